#!/usr/bin/env node
'use strict';
// Entry point: speaks the mqcn-conformance adapter protocol (docs/adapter-protocol.md)
// as JSON lines on stdin/stdout. Diagnostics go to stderr only.
const readline = require('node:readline');
const { Target, respond } = require('./lib/protocol');

const log = (msg) => process.stderr.write(`[node-target] ${msg}\n`);
const target = new Target(log);
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });

rl.on('line', (line) => {
  if (!line.trim()) return;
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    log(`ignored a line that is not JSON: ${e.message}`);
    return;
  }
  const res = respond(target, req);
  process.stdout.write(JSON.stringify(res) + '\n');
  if (req && req.method === 'shutdown' && res.result === null) {
    rl.close();
  }
});
rl.on('close', () => {
  // Let stdout drain, then leave.
  process.stdout.write('', () => process.exit(0));
});
process.on('uncaughtException', (e) => log(`uncaught: ${e.stack || e}`));
