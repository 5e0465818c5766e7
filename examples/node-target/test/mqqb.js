'use strict';
// The MS-MQQB listener and sender (lib/mqqb): packets, the session sans I/O with the byte
// stream split at every byte, and both over real sockets on 127.0.0.1.
//
//   node --test examples/node-target/test/
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { listen, connect, Framer, AcceptorSession, InitiatorSession, codec: C } = require('../lib/mqqb');
const { guidToBytes } = require('../lib/guid');

const QM = '0f2c1e3a-1111-4222-8333-444455556666'; // the acceptor
const ME = '11111111-2222-4333-8444-555555555555'; // the initiator
const NOTIFY = `PRIVATE=${QM}\\3`;
const NIL = '00000000-0000-0000-0000-000000000000';

function message(ordinal, body, extra = {}) {
  return { sourceQm: ME, messageId: ordinal, destination: NOTIFY, body: Buffer.from(body), ...extra };
}

// an initiator's whole side of a session: EC, CP, then UserMessages
function initiatorBytes(count) {
  const out = [C.encodeEstablishConnection({ clientGuid: ME, serverGuid: QM, timestamp: 77 })];
  out.push(C.encodeConnectionParameters({ recoverableAckTimeout: 500, ackTimeout: 20000, windowSize: 64 }));
  for (let i = 1; i <= count; i += 1) out.push(C.encodeUserMessage(message(i, `body ${i}`, { sentTime: 1 })));
  return out;
}

// feed `chunks` to a fresh acceptor, collecting what it does
function drive(chunks, o = {}) {
  const s = new AcceptorSession({ identifier: QM, ...o });
  const seen = { send: [], messages: [], close: null, opened: 0 };
  for (const chunk of chunks) {
    const r = s.receive(chunk);
    seen.send.push(...r.send);
    seen.messages.push(...r.messages);
    seen.opened += r.opened ? 1 : 0;
    if (r.close) { seen.close = r.close; break; }
  }
  return { s, seen };
}

test('packet sizes and round trips ([MS-MQQB] 2.2.2, 2.2.3, 2.2.6)', () => {
  const ec = C.encodeEstablishConnection({ clientGuid: ME, serverGuid: QM, timestamp: 5, response: true });
  assert.equal(ec.length, 572);
  assert.equal(ec.readUInt32LE(8), 572);
  assert.ok(ec.subarray(60).every((b) => b === 0x5a), 'a response pads with 0x5A');
  const d = C.decodeInternal(ec);
  assert.deepEqual([d.kind, d.refused, d.body.clientGuid, d.body.serverGuid, d.body.timestamp],
    ['EstablishConnection', false, ME, QM, 5]);
  assert.equal(d.body.operatingSystem & 0xff, 0x10, 'OperatingSystem.RE is 0x10');
  const cp = C.encodeConnectionParameters({ recoverableAckTimeout: 500, ackTimeout: 20000, windowSize: 64 });
  assert.equal(cp.length, 32);
  assert.deepEqual(C.decodeInternal(cp).body, { recoverableAckTimeout: 500, ackTimeout: 20000, windowSize: 64 });
  const ack = C.encodeSessionAck({ ackSequence: 3, userSequence: 0, windowSize: 64 });
  assert.equal(ack.length, 36);
  assert.equal(ack.readUInt16LE(2), C.F.IN | C.F.SH);
  assert.equal(C.decodeInternal(ack).body.ackSequence, 3);
});

test('a UserMessage carries body, message ID, destination and sender identifier', () => {
  const wire = C.encodeUserMessage(message(9, '\x02\x01xyz', {
    label: 'change', timeToReachQueue: 300, hashAlgorithm: 0x800e,
    security: { senderIdType: C.ST.QueueManagerIdentifier, senderId: guidToBytes(ME), signature: Buffer.alloc(128, 1) },
    session: { ackSequence: 0, userSequence: 1 },
  }));
  assert.equal(wire.readUInt32LE(8) % 4, 0, 'PacketSize is 4-aligned');
  assert.equal(wire.length, wire.readUInt32LE(8) + 16, 'the SessionHeader follows PacketSize');
  const m = C.decodeUserMessage(wire);
  assert.deepEqual(m.messageId, { sender: ME, ordinal: 9 });
  assert.equal(m.destination, NOTIFY);
  assert.equal(m.destinationQm, QM);
  assert.equal(m.senderIdentifier, ME);
  assert.equal(m.senderIdType, 2);
  assert.equal(m.signed, true);
  assert.equal(m.body.toString('latin1'), '\x02\x01xyz');
  assert.equal(m.label, 'change');
  assert.equal(m.timeToReachQueue, 300);
  assert.equal(m.hashAlgorithm, 0x800e);
  assert.equal(m.session.userSequence, 1);
  const direct = C.decodeUserMessage(C.encodeUserMessage(message(1, 'x', { destination: 'DIRECT=TCP:127.0.0.1\\private$\\q' })));
  assert.equal(direct.destination, 'DIRECT=TCP:127.0.0.1\\private$\\q');
  assert.equal(direct.destinationQm, NIL, 'a direct destination has the null QueueManagerAddress');
});

test('a truncated or mislabelled UserMessage is refused with its section', () => {
  const wire = C.encodeUserMessage(message(1, 'abc'));
  const short = Buffer.from(wire);
  short.writeUInt32LE(40, 8); // PacketSize says 40: the UserHeader does not fit
  assert.throws(() => C.decodeUserMessage(short.subarray(0, 40)), /\[MS-MQMQ\] 2\.2\.19\.1/);
  const noMp = Buffer.from(wire);
  noMp.writeUInt32LE(noMp.readUInt32LE(16 + 44) & ~C.U.MP, 16 + 44);
  assert.throws(() => C.decodeUserMessage(noMp), /Flags\.MP is clear/);
});

test('the framer cuts the same packets at every split of the stream', () => {
  const packets = [...initiatorBytes(2), C.encodeUserMessage(message(3, 'z', { session: { ackSequence: 0, userSequence: 3 } }))];
  const ackLetter = Buffer.from(C.encodeSessionAck({ ackSequence: 1 }));
  ackLetter.writeUInt32LE(20, 8); // errata W-01, the letter of 2.2.19.1: PacketSize 20
  packets.push(ackLetter);
  const stream = Buffer.concat(packets);
  for (let cut = 0; cut <= stream.length; cut += 1) {
    const f = new Framer();
    const got = [...f.push(stream.subarray(0, cut)), ...f.push(stream.subarray(cut))];
    assert.deepEqual(got.map((p) => p.toString('hex')), packets.map((p) => p.toString('hex')), `split at ${cut}`);
    assert.equal(f.pending, 0);
  }
  const oneByOne = new Framer();
  const got = [];
  for (const byte of stream) got.push(...oneByOne.push(Buffer.from([byte])));
  assert.equal(got.length, packets.length);
});

test('the acceptor answers the handshake and acknowledges at every two-way split', () => {
  const stream = Buffer.concat(initiatorBytes(3));
  for (let cut = 0; cut <= stream.length; cut += 1) {
    const { s, seen } = drive([stream.subarray(0, cut), stream.subarray(cut)]);
    assert.equal(seen.close, null, `split at ${cut}`);
    assert.equal(seen.opened, 1);
    assert.equal(seen.send.length, 2);
    assert.deepEqual(seen.messages.map((m) => [m.sequence, m.body.toString()]), [[1, 'body 1'], [2, 'body 2'], [3, 'body 3']]);
    assert.equal(s.state, 'OPEN');
    assert.ok(s.ackDue);
    if (cut % 97 === 0) {
      const ack = C.decodeInternal(s.takeAck());
      assert.deepEqual(ack.body, { ackSequence: 3, recoverableAckSequence: 0, recoverableAckFlags: 0, userSequence: 0, recoverableSequence: 0, windowSize: 64 });
      assert.ok(!s.ackDue);
    }
  }
  // one byte at a time
  const { seen } = drive([...stream].map((b) => Buffer.from([b])));
  assert.equal(seen.messages.length, 3);
  const [ec, cp] = seen.send.map(C.decodeInternal);
  assert.deepEqual([ec.kind, ec.refused, ec.body.clientGuid, ec.body.serverGuid, ec.body.timestamp],
    ['EstablishConnection', false, ME, QM, 77]);
  assert.equal(ec.body.pingSent, false, 'SE is echoed (3.1.5.3.1)');
  assert.ok(seen.send[0].subarray(60).every((b) => b === 0x5a));
  assert.deepEqual(cp.body, { recoverableAckTimeout: 500, ackTimeout: 20000, windowSize: 64 });
});

test('recoverable messages are acknowledged as persisted, by sequence and bit field', () => {
  const packets = initiatorBytes(0);
  packets.push(C.encodeUserMessage(message(1, 'a')));
  packets.push(C.encodeUserMessage(message(2, 'b', { delivery: 1 })));
  packets.push(C.encodeUserMessage(message(3, 'c', { delivery: 1 })));
  const { s } = drive([Buffer.concat(packets)]);
  const ack = C.decodeInternal(s.takeAck()).body;
  assert.deepEqual([ack.ackSequence, ack.recoverableAckSequence, ack.recoverableAckFlags], [3, 1, 0b11]);
  s.receive(C.encodeUserMessage(message(4, 'd', { delivery: 1 })));
  const next = C.decodeInternal(s.takeAck()).body;
  assert.deepEqual([next.ackSequence, next.recoverableAckSequence, next.recoverableAckFlags], [4, 3, 1]);
});

test('the acceptor closes on garbage, disorder, a foreign ServerGuid and wrong counts', () => {
  assert.match(drive([Buffer.from('GET / HTTP/1.1\r\n\r\n')]).seen.close, /VersionNumber/);
  assert.match(drive([Buffer.from([0x10, 0, 0, 0, 0x4c, 0x49, 0x4f, 0x53])]).seen.close, /Signature/);
  const [ec, cp, um] = initiatorBytes(1);
  assert.match(drive([um]).seen.close, /UserMessage Packet in state WAITING_EC_MSG/);
  assert.match(drive([cp]).seen.close, /ConnectionParameters in state WAITING_EC_MSG/);
  assert.match(drive([ec, ec]).seen.close, /EstablishConnection in state WAITING_CP_MSG/);
  const foreign = C.encodeEstablishConnection({ clientGuid: ME, serverGuid: ME });
  const refused = drive([foreign]).seen;
  assert.match(refused.close, /refused/);
  assert.equal(C.decodeInternal(refused.send[0]).refused, true, 'CS is set (3.1.5.3.1)');
  const direct = drive([C.encodeEstablishConnection({ clientGuid: ME, serverGuid: NIL })]).seen;
  assert.equal(C.decodeInternal(direct.send[0]).refused, false, 'the null ServerGuid is accepted');
  assert.equal(C.decodeInternal(direct.send[0]).body.serverGuid, QM);
  // a piggy-backed SessionHeader whose UserMsgSequenceNumber is not the count: the message
  // is delivered, then the session closes ([MS-MQMQ] 2.2.20.4, 3.1.5.5.5)
  const lying = C.encodeUserMessage(message(1, 'x', { session: { ackSequence: 0, userSequence: 5 } }));
  const r = drive([ec, cp, lying]).seen;
  assert.equal(r.messages.length, 1);
  assert.match(r.close, /3\.1\.5\.5\.5/);
  const bad = Buffer.from(um);
  bad.writeUInt32LE(((bad.readUInt32LE(16 + 44) & ~(7 << C.U.DQ_SHIFT)) | (1 << C.U.DQ_SHIFT)) >>> 0, 16 + 44); // DQ 1
  assert.match(drive([ec, cp, bad]).seen.close, /Flags\.DQ is/);
});

test('the initiator checks the response and counts acknowledgments across 16-bit wrap', () => {
  const i = new InitiatorSession({ identifier: ME, remoteIdentifier: QM, uptime: () => 1000 });
  const request = C.decodeInternal(i.start());
  assert.deepEqual([request.body.clientGuid, request.body.serverGuid, request.body.timestamp], [ME, QM, 1000]);
  const wrong = i.receive(C.encodeEstablishConnection({ clientGuid: QM, serverGuid: QM, timestamp: 1000, response: true }));
  assert.match(wrong.close, /ClientGuid/);
  const j = new InitiatorSession({ identifier: ME, uptime: () => 1000 });
  assert.equal(C.decodeInternal(j.start()).body.serverGuid, NIL);
  assert.match(j.receive(C.encodeEstablishConnection({ clientGuid: ME, serverGuid: QM, refused: true, response: true })).close, /refused/);
  const k = new InitiatorSession({ identifier: ME, uptime: () => 1000 });
  k.start();
  const r = k.receive(C.encodeEstablishConnection({ clientGuid: ME, serverGuid: QM, timestamp: 990, response: true }));
  assert.equal(k.remoteIdentifier, QM, 'learnt from a direct session');
  assert.equal(C.decodeInternal(r.send[0]).body.recoverableAckTimeout, 500, '8 x 10 ms, raised to 500');
  assert.ok(k.receive(C.encodeConnectionParameters({ recoverableAckTimeout: 500, ackTimeout: 20000, windowSize: 8 })).opened);
  k.messageSentCount = 0x10002; // as if 65538 had been sent
  k.receive(C.encodeSessionAck({ ackSequence: 1 }));
  assert.equal(k.acked, 0x10001);
  assert.match(k.receive(C.encodeSessionAck({ ackSequence: 2, userSequence: 1 })).close, /3\.1\.5\.5\.5/);
  assert.throws(() => new InitiatorSession({ identifier: ME, ackTimeout: 100 }), /AckTimeout/);
});

// --- over sockets on 127.0.0.1 ----------------------------------------------------------------

// wait (up to 5 s) until `predicate()` holds: the peer's close reaches the listener
// asynchronously, sooner or later on a busy machine
async function until(predicate, what) {
  for (let waited = 0; !predicate(); waited += 10) {
    if (waited > 5000) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function rawClient(port) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });
}

function readUntil(socket, predicate, ms = 3000) {
  return new Promise((resolve, reject) => {
    const framer = new Framer();
    const got = [];
    const timer = setTimeout(() => reject(new Error(`timed out with ${got.length} packets`)), ms);
    socket.on('data', (chunk) => {
      got.push(...framer.push(chunk));
      if (predicate(got)) { clearTimeout(timer); resolve(got); }
    });
    socket.on('close', () => { clearTimeout(timer); resolve(got); });
  });
}

test('listener and sender over TCP: messages delivered, each acknowledged', async () => {
  const got = [];
  const closed = [];
  const l = await listen({ identifier: QM, onMessage: (body, env) => got.push([body.toString(), env]), onSessionClosed: (r) => closed.push(r) });
  try {
    const s = await connect({ identifier: ME, port: l.port, remoteIdentifier: QM, ackWaitMs: 3000 });
    assert.equal(s.remoteIdentifier, QM);
    const results = await Promise.all([1, 2, 3].map((n) => s.send(message(n, `m${n}`, {
      security: { senderIdType: 2, senderId: guidToBytes(ME) },
    }))));
    assert.deepEqual(results.map((x) => x.sequence), [1, 2, 3]);
    assert.equal(s.session.acked, 3);
    assert.deepEqual(got.map(([b, e]) => [b, e.sequence, e.messageId.ordinal, e.senderIdentifier, e.destination, e.remoteIdentifier]),
      [1, 2, 3].map((n) => [`m${n}`, n, n, ME, NOTIFY, ME]));
    await s.close();
    await until(() => closed.length === 1, 'the session to close');
    assert.deepEqual(closed, ['closed by the peer']);
  } finally {
    await l.close();
  }
});

test('the listener survives garbage, half a packet and a byte-by-byte peer', async () => {
  const got = [];
  const closed = [];
  const l = await listen({ identifier: QM, onMessage: (body) => got.push(body.toString()), onSessionClosed: (r) => closed.push(r) });
  try {
    const junk = await rawClient(l.port);
    const junkDone = readUntil(junk, () => false);
    junk.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.deepEqual(await junkDone, [], 'garbage gets no answer, the session closes');
    const half = await rawClient(l.port);
    const halfDone = readUntil(half, (p) => p.length === 2);
    const [ec, cp, um] = initiatorBytes(1);
    half.write(Buffer.concat([ec, cp, um.subarray(0, 30)]));
    assert.equal((await halfDone).length, 2);
    half.destroy();
    // one write per byte: the listener frames it all the same
    const slow = await rawClient(l.port);
    slow.setNoDelay(true);
    const answers = readUntil(slow, (p) => p.length === 3);
    for (const byte of Buffer.concat([ec, cp, um])) {
      slow.write(Buffer.from([byte]));
      if (byte % 64 === 0) await new Promise((r) => setImmediate(r));
    }
    const [ecr, cpr, ack] = (await answers).map(C.decodeInternal);
    assert.deepEqual([ecr.kind, cpr.kind, ack.kind, ack.body.ackSequence], ['EstablishConnection', 'ConnectionParameters', 'SessionAck', 1]);
    slow.destroy();
    await until(() => closed.length === 3 && l.sessions() === 0, 'three sessions to close');
    assert.deepEqual(got, ['body 1'], 'only the whole message was delivered');
    assert.equal(closed.length, 3);
    assert.match(closed[0], /not an MS-MQQB packet.*VersionNumber/);
    assert.equal(l.sessions(), 0);
  } finally {
    await l.close();
  }
});

test('the sender reports a closed port, a refusal and a missing acknowledgment', async () => {
  const probe = net.createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const freePort = probe.address().port;
  await new Promise((r) => probe.close(r));
  await assert.rejects(connect({ identifier: ME, port: freePort }), /connection refused/);
  const l = await listen({ identifier: QM, onMessage: () => {} });
  try {
    await assert.rejects(connect({ identifier: ME, port: l.port, remoteIdentifier: ME }), /refused the connection/);
  } finally {
    await l.close();
  }
  // an acceptor that opens the session and then never acknowledges
  const mute = net.createServer((socket) => {
    const s = new AcceptorSession({ identifier: QM });
    socket.on('data', (chunk) => { for (const p of s.receive(chunk).send) socket.write(p); });
  });
  await new Promise((r) => mute.listen(0, '127.0.0.1', r));
  try {
    const s = await connect({ identifier: ME, port: mute.address().port, ackWaitMs: 200 });
    await assert.rejects(s.send(message(1, 'x')), /no SessionAck for message 1 within 200 ms/);
  } finally {
    mute.close();
  }
});

test('the Session Cleanup Timer closes a session that carries no UserMessage', async () => {
  const closed = [];
  const got = [];
  const l = await listen({ identifier: QM, idleTimeoutMs: 100, onMessage: (b) => got.push(b.toString()), onSessionClosed: (r) => closed.push(r) });
  try {
    const s = await connect({ identifier: ME, port: l.port, ackWaitMs: 2000 });
    await s.send(message(1, 'kept alive'));
    const [ec, cp, um] = initiatorBytes(1);
    const half = await rawClient(l.port); // opens the session, then half a packet, then nothing
    half.write(Buffer.concat([ec, cp, um.subarray(0, um.length - 1)]));
    await until(() => closed.length >= 1, 'the idle session to close');
    assert.match(closed[0], /idle: no UserMessage Packet for 100 ms/);
    assert.deepEqual(got, ['kept alive']);
    half.destroy();
    await s.close().catch(() => {});
  } finally {
    await l.close();
  }
});
