'use strict';
// Adapter protocol version 2 (transport mode): hello's answer, the server side fed by the
// MS-MQQB front door, the client side sending over MS-MQQB; the suite's side is faked here
// with lib/mqqb's sender and listener on 127.0.0.1.
//
//   node --test examples/node-target/test/
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Target, respond } = require('../lib/protocol');
const { openFrontDoor, packetToEnvelope, envelopeToMessage } = require('../lib/transport');
const { listen, connect, codec: C } = require('../lib/mqqb');
const { guidToBytes } = require('../lib/guid');

const QM = '6f1c3a9e-2b4d-4c5e-8f70-1a2b3c4d5e6f';
const SUITE = '11111111-2222-4333-8444-555555555555';
const Q = '00000101-0000-4000-8000-000000000101';
const CREATION = fs.readFileSync(path.resolve(__dirname, '../../../reference_vectors/samples/v1-queue-creation.bin'));
const SETUP = {
  qm_guid: QM, computer: 'qm1', profile: 'spec', readings: 'strict', workgroup: false,
  qm_attributes: {}, queues: [],
  directory: { queues: [{ owner: QM, queue: { Identifier: Q, Label: 'from-dc', Quota: 7 } }], queue_managers: [] },
  client: { identifier: QM, version: 1, server_name: 'dc1.example.com' },
};

function caller(t) {
  return (method, params = {}) => {
    const r = respond(t, { id: 1, method, params });
    assert.ok(!r.error, `${method}: ${r.error && r.error.message}`);
    return r.result;
  };
}

// a Target wired as target.js wires it in transport mode
async function transportTarget(logs = []) {
  let target = null;
  const door = await openFrontDoor(() => target, { log: (s) => logs.push(s) });
  target = new Target((s) => logs.push(s), { transport: { host: door.host, port: door.port } });
  return { target, door, call: caller(target) };
}

const until = async (what, ok, ms = 3000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

test('hello: version 2 with transport.mqqb when offered [1, 2]; version 1 otherwise', async () => {
  const { target, door, call } = await transportTarget();
  try {
    const v2 = call('hello', { suite: 't', protocol_versions: [1, 2] });
    assert.equal(v2.protocol_version, 2);
    assert.deepEqual(v2.transport, { mqqb: { host: '127.0.0.1', port: door.port } });
    assert.equal(target.transportMode, true);
    const v1 = call('hello', { suite: 't', protocol_versions: [1] });
    assert.equal(v1.protocol_version, 1);
    assert.equal('transport' in v1, false, 'a version 1 answer has no transport');
    assert.equal(target.transportMode, false);
  } finally {
    await door.close();
  }
  // adapter mode: no transport, version 1 even when 2 is offered
  const adapter = caller(new Target());
  const a = adapter('hello', { suite: 't', protocol_versions: [1, 2] });
  assert.equal(a.protocol_version, 1);
  assert.equal('transport' in a, false);
  const r = respond(new Target(), { id: 1, method: 'hello', params: { suite: 't', protocol_versions: [2] } });
  assert.equal(r.error.code, 'bad-request');
  // queue_manager in start_client is refused unless a transport was agreed
  const s = respond(adapterTarget(), { id: 2, method: 'start_client', params: { destination: QM, queue_manager: { host: '127.0.0.1', port: 1801 } } });
  assert.equal(s.error.code, 'bad-request');
});

function adapterTarget() {
  const t = new Target();
  const call = caller(t);
  call('hello', { suite: 't', protocol_versions: [1, 2] });
  call('reset', { setup: SETUP });
  return t;
}

test('server side: a UserMessage at the front door is processed as deliver would (3.2.5.1)', async () => {
  const { door, call, target } = await transportTarget();
  let sender = null;
  try {
    call('hello', { suite: 't', protocol_versions: [1, 2] });
    call('reset', { setup: SETUP });
    call('start_server');
    // the suite's side: an initiator naming the set-up's queue manager as ServerGuid
    sender = await connect({ identifier: SUITE, port: door.port, remoteIdentifier: QM });
    const base = { sourceQm: SUITE, destination: `PRIVATE=${QM}\\3`, body: CREATION,
      timeToReachQueue: 300, hashAlgorithm: 0x800e };
    // unauthenticated first (no signature): disregarded whole (3.2.5.1), state unchanged
    await sender.send({ ...base, messageId: 1, security: { senderIdType: 2, senderId: guidToBytes(QM) } });
    assert.equal(call('state').queues[Q], undefined);
    // the SessionAck came after the message was processed: state answers at once
    await sender.send({ ...base, messageId: 2, security: { senderIdType: 2, senderId: guidToBytes(QM), signature: Buffer.alloc(128, 1) } });
    assert.equal(call('state').queues[Q].Label, 'Orders');
    assert.equal(target.counts.received, 2);
  } finally {
    if (sender) await sender.close();
    await door.close();
  }
});

test('server side: a session naming another queue manager is refused, the target goes on', async () => {
  const { door, call } = await transportTarget();
  try {
    call('hello', { suite: 't', protocol_versions: [1, 2] });
    call('reset', { setup: SETUP });
    await assert.rejects(connect({ identifier: SUITE, port: door.port, remoteIdentifier: SUITE }));
    const ok = await connect({ identifier: SUITE, port: door.port }); // null ServerGuid: accepted
    await ok.close();
  } finally {
    await door.close();
  }
});

test('client side: start_client with queue_manager sends over MS-MQQB and answers null (3.3.5.3)', async () => {
  const arrived = [];
  const qm = await listen({ identifier: QM, onMessage: (body, envelope, message) => arrived.push(message) });
  const logs = [];
  const { door, call, target } = await transportTarget(logs);
  try {
    call('hello', { suite: 't', protocol_versions: [1, 2] });
    call('reset', { setup: SETUP });
    call('start_client', { destination: QM, queue_manager: { host: '127.0.0.1', port: qm.port } });
    assert.equal(call('send_change_notification', { operation: 'QueueUpdate', object: Q, changed: ['Quota'] }), null);
    assert.equal(call('send_change_notification', { operation: 'QueueDeletion', object: Q, changed: [] }), null);
    await until('two messages', () => arrived.length === 2);
    // what adapter mode answers for the same calls
    const adapter = caller(adapterTarget());
    adapter('start_client', { destination: QM });
    const expected = [
      ...adapter('send_change_notification', { operation: 'QueueUpdate', object: Q, changed: ['Quota'] }),
      ...adapter('send_change_notification', { operation: 'QueueDeletion', object: Q, changed: [] }),
    ];
    assert.deepEqual(arrived.map(packetToEnvelope), expected.map((e) => ({ ...e })));
    assert.equal(arrived[0].signed, true);
    assert.equal(qm.sessions(), 1, 'one session for the scenario');
    await target.drain(); // reset and shutdown close the session
    await until('the session closed', () => qm.sessions() === 0);
    assert.deepEqual(logs.filter((l) => l.includes('not delivered')), []);
    assert.deepEqual(target.counts, { received: 0, sent: 2, failed: 0 });
  } finally {
    await door.close();
    await qm.close();
  }
});

test('client side: a queue manager that is not there: null, and the failure is logged', async () => {
  const gone = await listen({ identifier: QM, onMessage: () => {} });
  const port = gone.port;
  await gone.close();
  const logs = [];
  const { door, call, target } = await transportTarget(logs);
  try {
    call('hello', { suite: 't', protocol_versions: [1, 2] });
    call('reset', { setup: SETUP });
    call('start_client', { destination: QM, queue_manager: { host: '127.0.0.1', port } });
    assert.equal(call('send_change_notification', { operation: 'QueueUpdate', object: Q, changed: ['Quota'] }), null);
    await target.drain();
    assert.match(logs.join('\n'), /message 1 not delivered: .*connection refused/);
    assert.deepEqual(target.counts, { received: 0, sent: 0, failed: 1 });
    const bad = respond(target, { id: 3, method: 'start_client', params: { destination: QM, queue_manager: { host: '127.0.0.1', port: 0 } } });
    assert.equal(bad.error.code, 'bad-request');
  } finally {
    await door.close();
  }
});

test('Envelope <-> packet: every field the client sets survives the wire', () => {
  const env = { body: '0201ff00', message_id: `${guidToBytes(QM).toString('hex')}07000000`, sender_identifier: QM,
    sender_identifier_type: 'QueueManagerIdentifier', authentication_level: 'Sig20', time_to_reach_queue: 300,
    delivery_guarantee: 'Express', message_class: 'Normal', hash_algorithm: 'SHA512',
    destination_format_name: `PRIVATE=${QM}\\3` };
  const back = (e) => packetToEnvelope(C.decodeUserMessage(C.encodeUserMessage(envelopeToMessage(e))));
  assert.deepEqual(back(env), env);
  const v2 = { ...env, sender_identifier: null, sender_identifier_type: 'None' };
  assert.deepEqual(back(v2), v2, 'a signature without a sender: SecurityHeader with ST 0');
  const none = { ...env, authentication_level: 'None', hash_algorithm: 'SHA256', delivery_guarantee: 'Recoverable' };
  assert.deepEqual(back(none), none);
});

// a UserMessage with a MultiQueueFormatHeader appended: three empty MQFAddressHeaders and
// an MQFSignatureHeader with `signature` ([MS-MQMQ] 2.2.20.1-3); `room` spare body bytes
// after the 4-byte body, `allocation` the AllocationBodySize declared (errata W-02)
function withMqf(signature, room = 0, allocation = 4 + room) {
  const plain = C.encodeUserMessage({ sourceQm: SUITE, messageId: 1, destination: `PRIVATE=${QM}\\3`, body: Buffer.from('0201ff00', 'hex') });
  const props = plain.length - 56 - 4; // the MessagePropertiesHeader: the last 56 + 4 body bytes
  const address = (id) => { const b = Buffer.alloc(12); b.writeUInt32LE(12, 0); b.writeUInt16LE(id, 4); return b; };
  const sig = Buffer.alloc(8 + ((signature.length + 3) & ~3));
  sig.writeUInt16LE(0x015e, 0);
  sig.writeUInt32LE(signature.length, 4);
  signature.copy(sig, 8);
  const out = Buffer.concat([plain, Buffer.alloc(room), address(0x12c), address(0x12d), address(0x12e), sig]);
  out.writeUInt32LE(out.length, 8); // PacketSize
  out.writeUInt32LE(out.readUInt32LE(16 + 44) | C.U.MQ, 16 + 44); // UserHeader.Flags.MQ
  out.writeUInt32LE(allocation, props + 36); // AllocationBodySize
  return out;
}

test('an MQFSignatureHeader signature reads as Sig30 (errata W-05), either body room (W-02)', () => {
  const level = (buf) => packetToEnvelope(C.decodeUserMessage(buf)).authentication_level;
  assert.equal(level(withMqf(Buffer.alloc(128, 7))), 'Sig30');
  assert.equal(level(withMqf(Buffer.alloc(5, 7), 8)), 'Sig30', 'the next header after AllocationBodySize');
  assert.equal(level(withMqf(Buffer.alloc(5, 7), 0, 12)), 'Sig30', 'the next header after MessageSize');
  assert.equal(level(withMqf(Buffer.alloc(0))), 'None', 'an empty signature signs nothing');
  const broken = withMqf(Buffer.alloc(8, 7));
  broken.writeUInt16LE(0x015f, broken.length - 16); // not an MQFSignatureHeader ID
  assert.equal(level(broken), 'None');
});
