#!/usr/bin/env node
'use strict';
// The MS-MQQB module's bytes as hex lines, for checking them against another codec
// (tests/test_node_mqqb.py checks them against mqcn-conformance's own wire codec).
// Not a test file (node --test runs every .js under test/), hence tools/.
//
//   node tools/mqqb-hex.js send '<json>'
//       An initiator and an acceptor session joined in memory: the packets each writes,
//       in order, as "initiator <hex>" / "acceptor <hex>". JSON: {identifier,
//       remoteIdentifier, acceptor, messages: [{messageId, destination, bodyHex,
//       senderIdHex?, senderIdType?, signatureHex?, timeToReachQueue?, hashAlgorithm?,
//       delivery?, label?}]}; sourceQm is `identifier`, sentTime 0.
//   node tools/mqqb-hex.js answer <acceptor GUID>   (hex chunks on stdin, one a line)
//       The acceptor's answers: "acceptor <hex>" per packet, "message <json>" per
//       UserMessage, then "acceptor <hex>" for the SessionAck owed, "close <reason>".
//   node tools/mqqb-hex.js listen <acceptor GUID>
//       A listener on 127.0.0.1 (any port): prints "port <n>", then "message <json>" per
//       message and "closed <reason>" per session; stops when stdin closes.

const readline = require('node:readline');
const { listen, AcceptorSession, InitiatorSession } = require('../lib/mqqb');

const hex = (b) => Buffer.from(b).toString('hex');

function view(body, m) {
  return JSON.stringify({
    bodyHex: hex(body),
    messageId: m.messageId,
    senderIdentifier: m.senderIdentifier,
    senderIdType: m.senderIdType,
    signed: m.signed,
    destination: m.destination,
    sequence: m.sequence,
    timeToReachQueue: m.timeToReachQueue,
  });
}

function outgoing(identifier, m) {
  const message = {
    sourceQm: identifier,
    messageId: m.messageId,
    destination: m.destination,
    body: Buffer.from(m.bodyHex, 'hex'),
    sentTime: 0,
  };
  for (const key of ['timeToReachQueue', 'hashAlgorithm', 'delivery', 'label', 'priority']) {
    if (m[key] !== undefined) message[key] = m[key];
  }
  if (m.senderIdHex || m.signatureHex) {
    message.security = {
      senderIdType: m.senderIdType === undefined ? 2 : m.senderIdType,
      senderId: Buffer.from(m.senderIdHex || '', 'hex'),
      signature: Buffer.from(m.signatureHex || '', 'hex'),
    };
  }
  return message;
}

function send(spec) {
  const out = [];
  const initiator = new InitiatorSession({ identifier: spec.identifier, remoteIdentifier: spec.remoteIdentifier, uptime: () => 1000 });
  const acceptor = new AcceptorSession({ identifier: spec.acceptor || spec.remoteIdentifier });
  const toAcceptor = (bytes) => {
    out.push(`initiator ${hex(bytes)}`);
    const r = acceptor.receive(bytes);
    if (r.close) throw new Error(`the acceptor closed: ${r.close}`);
    for (const p of r.send) toInitiator(p);
  };
  const toInitiator = (bytes) => {
    out.push(`acceptor ${hex(bytes)}`);
    const r = initiator.receive(bytes);
    if (r.close) throw new Error(`the initiator closed: ${r.close}`);
    for (const p of r.send) toAcceptor(p);
  };
  toAcceptor(initiator.start());
  for (const m of spec.messages || []) {
    toAcceptor(initiator.message(outgoing(spec.identifier, m)).bytes);
    toInitiator(acceptor.takeAck());
  }
  return out;
}

async function answer(identifier) {
  const session = new AcceptorSession({ identifier });
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const r = session.receive(Buffer.from(line.trim(), 'hex'));
    for (const p of r.send) console.log(`acceptor ${hex(p)}`);
    for (const m of r.messages) console.log(`message ${view(m.body, m)}`);
    if (r.close) { console.log(`close ${r.close}`); return; }
  }
  if (session.ackDue) console.log(`acceptor ${hex(session.takeAck())}`);
}

async function serve(identifier) {
  const l = await listen({
    identifier,
    onMessage: (body, envelope, m) => console.log(`message ${view(body, m)}`),
    onSessionClosed: (reason) => console.log(`closed ${reason}`),
  });
  console.log(`port ${l.port}`);
  process.stdin.resume();
  process.stdin.on('end', () => l.close().then(() => process.exit(0)));
}

async function main(argv) {
  const [mode, arg] = argv;
  if (mode === 'send') for (const line of send(JSON.parse(arg))) console.log(line);
  else if (mode === 'answer') await answer(arg);
  else if (mode === 'listen') await serve(arg);
  else {
    process.stderr.write('usage: mqqb-hex.js send <json> | answer <guid> | listen <guid>\n');
    process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`mqqb-hex: ${e.message}\n`);
  process.exitCode = 1;
});
