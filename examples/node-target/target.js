#!/usr/bin/env node
'use strict';
// Entry point: speaks the mqcn-conformance adapter protocol (docs/adapter-protocol.md)
// as JSON lines on stdin/stdout. Diagnostics go to stderr only.
//
// Transport mode (the default): an MS-MQQB listener on 127.0.0.1 (port 0: the kernel's
// choice; MQCN_NODE_MQQB_PORT to fix it) is opened first, and `hello` answers protocol
// version 2 with its address when the suite offers 2. `--adapter-mode` (or the environment
// variable MQCN_NODE_ADAPTER_MODE=1) opens no listener and answers version 1, as before.
// MQCN_NODE_STATS=<file>: at shutdown, one JSON line is appended there: the protocol
// version agreed and the UserMessages received / sent / not delivered over MS-MQQB.
const fs = require('node:fs');
const readline = require('node:readline');
const { Target, respondInOrder } = require('./lib/protocol');
const { openFrontDoor } = require('./lib/transport');

const log = (msg) => process.stderr.write(`[node-target] ${msg}\n`);
const adapterMode = process.argv.includes('--adapter-mode') || process.env.MQCN_NODE_ADAPTER_MODE === '1';

async function main() {
  let target = null;
  let listener = null;
  if (!adapterMode) {
    listener = await openFrontDoor(() => target, { port: Number(process.env.MQCN_NODE_MQQB_PORT || 0), log });
    log(`transport mode: MS-MQQB listener on ${listener.host}:${listener.port}`);
  }
  target = new Target(log, { transport: listener && { host: listener.host, port: listener.port } });
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });

  // Requests are answered strictly in order, one at a time (respondInOrder): a call waits
  // for the one before it (LDAP mode: a `deliver` answers only after its Read Directory).
  rl.on('line', (line) => {
    if (!line.trim()) return;
    let req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      log(`ignored a line that is not JSON: ${e.message}`);
      return;
    }
    respondInOrder(target, req).then((res) => {
      process.stdout.write(JSON.stringify(res) + '\n');
      if (req && req.method === 'shutdown' && res.result === null) rl.close();
    });
  });
  rl.on('close', () => { target.turn.then(finish); });
  async function finish() {
    // Messages still on their way out are finished (or fail) first; then stdout drains.
    await target.drain();
    if (listener) await listener.close();
    if (process.env.MQCN_NODE_STATS) {
      const line = { protocol_version: target.version, ...target.counts };
      fs.appendFileSync(process.env.MQCN_NODE_STATS, `${JSON.stringify(line)}\n`);
    }
    process.stdout.write('', () => process.exit(0));
  }
}

process.on('uncaughtException', (e) => log(`uncaught: ${e.stack || e}`));
main().catch((e) => {
  log(`cannot start: ${e.stack || e}`);
  process.exit(1);
});
