'use strict';
// The adapter protocol of docs/adapter-protocol.md (version 1): one request object in,
// one result (or error) out. Transport-free, so tests can drive it directly.
const { Server } = require('./server');
const { Client, RequestError } = require('./client');
const { Directory } = require('./directory');
const { VirtualClock } = require('./clock');
const { isGuidText, normalize } = require('./guid');
const adm = require('./adm');

const PROTOCOL_VERSION = 1;
const NAME = 'mqcn-node-target (independent JavaScript implementation of [MS-MQCN] v17.0)';
const PICS = Object.freeze({
  server: { v1: true, v2: true },
  client: { v1: true, v2: true },
  profiles: ['spec'],
  readings: ['strict'],
  workgroup: true,
});

class ProtocolError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}
const bad = (msg) => { throw new ProtocolError('bad-request', msg); };

const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const HEX = /^([0-9a-fA-F]{2})*$/;
const ENUMS = {
  sender_identifier_type: ['None', 'Sid', 'QueueManagerIdentifier'],
  authentication_level: ['None', 'Always', 'Sig10', 'Sig20', 'Sig30', 'XMLDSig'],
};

function checkGuid(x, what) { if (!isGuidText(x)) bad(`${what} is not a GUID`); return normalize(x); }

function checkEnvelope(env) {
  if (!isObject(env)) bad('envelope must be an object');
  if (typeof env.body !== 'string' || !HEX.test(env.body)) bad('envelope.body must be hex');
  for (const [k, values] of Object.entries(ENUMS)) {
    if (!values.includes(env[k])) bad(`envelope.${k} must be one of ${values.join(', ')}`);
  }
}

class Target {
  constructor(log) {
    this.log = log || (() => {});
    this.session = null;
  }

  handle(method, params) {
    if (!isObject(params)) bad('params must be an object');
    const fn = Target.METHODS[method];
    if (!fn) bad(`unknown method ${JSON.stringify(method)}`);
    if (method !== 'hello' && method !== 'reset' && method !== 'shutdown' && !this.session) {
      bad(`${method} before reset`);
    }
    return fn.call(this, params);
  }

  hello(p) {
    if (!Array.isArray(p.protocol_versions) || !p.protocol_versions.includes(PROTOCOL_VERSION)) {
      bad(`this target speaks protocol version ${PROTOCOL_VERSION} only`);
    }
    return { protocol_version: PROTOCOL_VERSION, name: NAME, pics: JSON.parse(JSON.stringify(PICS)) };
  }

  reset(p) {
    const s = p.setup;
    if (!isObject(s)) bad('setup must be an object');
    for (const k of ['qm_guid', 'computer', 'profile', 'readings', 'workgroup', 'qm_attributes', 'queues', 'directory', 'client']) {
      if (!(k in s)) bad(`setup.${k} is missing`);
    }
    if (!PICS.profiles.includes(s.profile)) throw new ProtocolError('not-implemented', `profile ${s.profile} is not implemented (only "spec")`);
    if (!PICS.readings.includes(s.readings)) throw new ProtocolError('not-implemented', `readings ${s.readings} are not implemented (only "strict")`);
    const qmGuid = checkGuid(s.qm_guid, 'setup.qm_guid');
    if (typeof s.computer !== 'string' || !s.computer) bad('setup.computer must be a non-empty string');
    if (!isObject(s.client)) bad('setup.client must be an object');
    checkGuid(s.client.identifier, 'setup.client.identifier');
    let qm; let queues; let directory;
    try {
      qm = adm.makeQueueManager({ Identifier: qmGuid, ...(s.qm_attributes || {}) });
      queues = new Map();
      for (const q of s.queues || []) {
        const full = adm.makeQueue(q, { requireIdentifier: true });
        queues.set(full.Identifier, full);
      }
      directory = new Directory(s.directory);
    } catch (e) {
      bad(`bad set-up: ${e.message}`);
    }
    const clock = new VirtualClock();
    this.session = {
      setup: s,
      clock,
      server: new Server({ qmGuid, computer: s.computer, qm, queues, directory, log: this.log }),
      client: new Client({ setupClient: s.client, directory, clock, profile: s.profile, log: this.log }),
    };
    return null;
  }

  // The `spec` profile opens the notification queue in workgroup mode too (note <8> is
  // product behaviour of later Windows versions, not claimed here).
  start_server() {
    return this.session.server.start();
  }

  deliver(p) {
    checkEnvelope(p.envelope);
    this.session.server.deliver({ ...p.envelope, arrival_time: this.session.clock.now });
    return null;
  }

  advance_clock(p) {
    if (typeof p.seconds !== 'number' || !(p.seconds >= 0) || !Number.isFinite(p.seconds)) bad('seconds must be a number >= 0');
    this.session.clock.advance(p.seconds);
    return null;
  }

  state() { return this.session.server.state(); }

  directory_reads() { return this.session.server.reads.map((r) => ({ ...r, attributes: [...r.attributes] })); }

  start_client(p) {
    return this.session.client.start(checkGuid(p.destination, 'destination'));
  }

  send_change_notification(p) {
    const object = checkGuid(p.object, 'object');
    if (!Array.isArray(p.changed) || p.changed.some((x) => typeof x !== 'string')) bad('changed must be a list of names');
    try {
      return this.session.client.send(p.operation, object, p.changed);
    } catch (e) {
      if (e instanceof RequestError) bad(e.message);
      throw e;
    }
  }

  shutdown() { return null; }
}

Target.METHODS = {
  hello: Target.prototype.hello,
  reset: Target.prototype.reset,
  start_server: Target.prototype.start_server,
  deliver: Target.prototype.deliver,
  advance_clock: Target.prototype.advance_clock,
  state: Target.prototype.state,
  directory_reads: Target.prototype.directory_reads,
  start_client: Target.prototype.start_client,
  send_change_notification: Target.prototype.send_change_notification,
  shutdown: Target.prototype.shutdown,
};

// One request object -> one response object (never throws).
function respond(target, req) {
  const id = isObject(req) && Number.isInteger(req.id) ? req.id : null;
  try {
    if (!isObject(req) || typeof req.method !== 'string') bad('a request is {"id", "method", "params"}');
    return { id, result: target.handle(req.method, req.params === undefined ? {} : req.params) };
  } catch (e) {
    const code = e instanceof ProtocolError ? e.code : 'internal';
    if (code === 'internal') target.log(`internal error: ${e.stack || e}`);
    return { id, error: { code, message: String(e.message || e) } };
  }
}

module.exports = { Target, respond, PICS, PROTOCOL_VERSION };
