'use strict';
// The adapter protocol of docs/adapter-protocol.md: one request object in, one result (or
// error) out. Version 1 always; version 2 with a transport (an MS-MQQB listener the caller
// opened, see target.js) when the suite offers 2. Socket-free, so tests can drive it directly.
const { Server } = require('./server');
const { Client, RequestError } = require('./client');
const { Directory } = require('./directory');
const { LdapDirectory, checkLdapConfig, timeoutFromEnv, loadLdapts } = require('./ldap');
const { VirtualClock } = require('./clock');
const { isGuidText, normalize } = require('./guid');
const adm = require('./adm');
const { packetToEnvelope, Outgoing } = require('./transport');

const PROTOCOL_VERSION = 1;
const TRANSPORT_VERSION = 2; // version 1 + an optional transport (transport mode)
const NAME = 'mqcn-node-target (independent JavaScript implementation of [MS-MQCN] v17.0)';
// Optional capabilities answered in `hello`: "ldap" = the server side can read an LDAP
// directory laid out as Active Directory (reset's setup.directory.ldap, lib/ldap.js).
const DIRECTORY_CAPABILITIES = Object.freeze(['ldap']);
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
  // transport: {host, port} of this target's MS-MQQB listener, or null (adapter mode: the
  // target answers protocol version 1 even when the suite offers 2). ldapClient: loads the
  // LDAP client module in LDAP mode (tests pass a fake).
  constructor(log, { transport = null, ldapClient = loadLdapts } = {}) {
    this.log = log || (() => {});
    this.ldapClient = ldapClient;
    this.turn = Promise.resolve(); // the call respondInOrder is answering (see there)
    this.session = null;
    this.transport = transport;
    this.version = null; // the protocol version agreed in hello
    // UserMessages received at the front door, sent by the client (acknowledged), and not
    // delivered: target.js reports them (MQCN_NODE_STATS) so a run can show its mode
    this.counts = { received: 0, sent: 0, failed: 0 };
  }

  // Transport mode: both sides of the target use MS-MQQB instead of deliver / envelopes.
  get transportMode() { return this.version === TRANSPORT_VERSION; }

  // The queue manager GUID the listener answers as (the set-up's, once reset).
  get qmGuid() { return this.session ? this.session.server.qmGuid : null; }

  // A UserMessage arrived at the listener (lib/mqqb decodeUserMessage's result): it lands
  // on the notification queue exactly as `deliver` would put it there. Before a reset there
  // is no queue manager to give it to; it is logged and dropped.
  receive(message) {
    const envelope = packetToEnvelope(message);
    this.counts.received += 1;
    if (!this.session) {
      this.log(`transport: message ${envelope.message_id} arrived before reset; no queue manager to take it`);
      return;
    }
    this.session.server.deliver({ ...envelope, arrival_time: this.session.clock.now });
  }

  // Close the client's outgoing session once its messages are acknowledged (reset, shutdown).
  drain() {
    const outgoing = this.session && this.session.outgoing;
    if (this.session) this.session.outgoing = null;
    return outgoing ? outgoing.close() : Promise.resolve();
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
    if (!Array.isArray(p.protocol_versions)) bad('protocol_versions must be a list');
    const answer = { name: NAME, pics: JSON.parse(JSON.stringify(PICS)), directory: [...DIRECTORY_CAPABILITIES] };
    if (this.transport && p.protocol_versions.includes(TRANSPORT_VERSION)) {
      this.version = TRANSPORT_VERSION;
      this.log(`hello: protocol version 2, transport mode (MS-MQQB at ${this.transport.host}:${this.transport.port})`);
      return { protocol_version: TRANSPORT_VERSION, ...answer,
        transport: { mqqb: { host: this.transport.host, port: this.transport.port } } };
    }
    if (!p.protocol_versions.includes(PROTOCOL_VERSION)) {
      bad(`this target speaks protocol version ${PROTOCOL_VERSION}${this.transport ? ` or ${TRANSPORT_VERSION}` : ''} only`);
    }
    this.version = PROTOCOL_VERSION;
    return { protocol_version: PROTOCOL_VERSION, ...answer };
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
    if (p.directory !== undefined) bad('directory belongs in setup.directory (LDAP mode: setup.directory.ldap)');
    let qm; let queues; let directory; let ldap = null;
    try {
      qm = adm.makeQueueManager({ Identifier: qmGuid, ...(s.qm_attributes || {}) });
      queues = new Map();
      for (const q of s.queues || []) {
        const full = adm.makeQueue(q, { requireIdentifier: true });
        queues.set(full.Identifier, full);
      }
      directory = new Directory(s.directory);
      if (isObject(s.directory) && s.directory.ldap !== undefined) ldap = checkLdapConfig(s.directory.ldap);
    } catch (e) {
      bad(`bad set-up: ${e.message}`);
    }
    // LDAP mode: the server side reads the LDAP directory; the client side still takes its
    // directory objects from the set-up (what it notifies about). A missing npm package is
    // one line (`internal`: the scenario is an error, never not-applicable).
    let reader = directory;
    if (ldap) {
      try {
        reader = new LdapDirectory(ldap, { log: this.log, timeoutMs: timeoutFromEnv(), ldapts: this.ldapClient() });
      } catch (e) {
        throw new ProtocolError('internal', e.message);
      }
      this.log(`reset: LDAP mode, Read Directory goes to ${ldap.url} as ${ldap.bindDn}`
        + (ldap.servers.size ? ` (servers: ${[...ldap.servers].map(([n, u]) => `${n}=${u}`).join(', ')})` : ''));
    }
    const clock = new VirtualClock();
    this.drain(); // the previous scenario's outgoing session, if any
    this.session = {
      setup: s,
      clock,
      ldap: ldap !== null, // LDAP mode: reads are observed at the LDAP server
      server: new Server({ qmGuid, computer: s.computer, qm, queues, directory: reader, log: this.log }),
      client: new Client({ setupClient: s.client, directory, clock, profile: s.profile, log: this.log }),
      outgoing: null, // transport mode: the client's MS-MQQB session (reset, start_client)
    };
    // Transport mode: the suite's queue manager, where the client sends even when a scenario
    // has it send without start_client.
    if (p.queue_manager !== undefined) this.sendTo(p.queue_manager);
    return null;
  }

  // Check a `queue_manager` {host, port} and open the client's outgoing session towards it.
  sendTo(qm) {
    if (!this.transportMode) bad('queue_manager is only for a target that declared a transport (protocol version 2)');
    if (!isObject(qm) || typeof qm.host !== 'string' || !qm.host) bad('queue_manager.host must be a non-empty string');
    if (!Number.isInteger(qm.port) || qm.port < 1 || qm.port > 65535) bad('queue_manager.port must be an integer 1..65535');
    this.drain();
    this.session.outgoing = new Outgoing({
      identifier: this.session.client.identifier, host: qm.host, port: qm.port, log: this.log, counts: this.counts });
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

  // In LDAP mode the suite sees the reads at the LDAP server; this target's own account is
  // then not given (the adapter protocol: "not needed", [] allowed).
  directory_reads() {
    if (this.session.ldap) return [];
    return this.session.server.reads.map((r) => ({ ...r, attributes: [...r.attributes] }));
  }

  // Resolves once the server side has finished every message it has (LDAP reads included).
  settled() { return this.session ? this.session.server.idle() : Promise.resolve(); }

  // Transport mode: `queue_manager` {host, port} (here or at reset) is where the client's
  // messages go, as UserMessages over MS-MQQB; without one the client answers envelopes as
  // in version 1.
  start_client(p) {
    const destination = checkGuid(p.destination, 'destination');
    if (p.queue_manager !== undefined) this.sendTo(p.queue_manager);
    return this.session.client.start(destination);
  }

  send_change_notification(p) {
    const object = checkGuid(p.object, 'object');
    if (!Array.isArray(p.changed) || p.changed.some((x) => typeof x !== 'string')) bad('changed must be a list of names');
    try {
      const envelopes = this.session.client.send(p.operation, object, p.changed);
      const outgoing = this.session.outgoing;
      if (!outgoing) return envelopes;
      for (const e of envelopes) outgoing.enqueue(e);
      return null; // version 2: sent over the transport
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

// One request object -> one response object (never throws). Synchronous: with the set-up's
// directory every call is finished when it answers; LDAP mode needs respondInOrder.
function respond(target, req) {
  const id = isObject(req) && Number.isInteger(req.id) ? req.id : null;
  try {
    if (!isObject(req) || typeof req.method !== 'string') bad('a request is {"id", "method", "params"}');
    return { id, result: target.handle(req.method, req.params === undefined ? {} : req.params) };
  } catch (e) {
    const code = e instanceof ProtocolError ? e.code : 'internal';
    // an unexpected exception gets its stack; a known one (a missing module) its one line
    if (code === 'internal') target.log(`internal error: ${e instanceof ProtocolError ? e.message : e.stack || e}`);
    return { id, error: { code, message: String(e.message || e) } };
  }
}

// The same, for the JSON-lines loop: calls are answered one at a time, in the order they
// were made; each starts after everything before it has finished (messages that arrived over
// the transport included) and answers after the work it started has finished, so a `deliver`
// answers once its Read Directory is done (LDAP mode). Never rejects.
function respondInOrder(target, req) {
  const run = async () => {
    await target.settled();
    const res = respond(target, req);
    await target.settled();
    return res;
  };
  const answer = target.turn.then(run).catch((e) => { // settled() never rejects; kept for safety
    target.log(`internal error: ${e.stack || e}`);
    return { id: isObject(req) && Number.isInteger(req.id) ? req.id : null, error: { code: 'internal', message: String(e.message || e) } };
  });
  target.turn = answer;
  return answer;
}

module.exports = { Target, respond, respondInOrder, PICS, PROTOCOL_VERSION, TRANSPORT_VERSION, DIRECTORY_CAPABILITIES };
