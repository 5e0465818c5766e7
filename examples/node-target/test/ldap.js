'use strict';
// LDAP mode without a server: lib/ldap.js and the adapter protocol against a fake of the
// ldapts client that records every operation and answers from a small table. What a real
// slapd does is tested in test/ldap-e2e.js (run when a directory is given).
const test = require('node:test');
const assert = require('node:assert/strict');
const { LdapDirectory, checkLdapConfig, loadLdapts, timeoutFromEnv, INSTALL_HINT } = require('../lib/ldap');
const { Target, respond, respondInOrder } = require('../lib/protocol');
const { Client } = require('../lib/client');
const { guidToBytes } = require('../lib/guid');
const { READ_QUEUE_ATTRIBUTES, READ_QM_ATTRIBUTES } = require('../lib/adm');

const QM = '6f1c3a9e-2b4d-4c5e-8f70-1a2b3c4d5e6f';
const Q = '00000101-0000-4000-8000-000000000101';
const ROOT = 'DC=mqcn,DC=example';
const QDN = `cn=Orders,cn=msmq,cn=QM1,cn=Computers,${ROOT}`;
const MDN = `cn=msmq,cn=QM1,cn=Computers,${ROOT}`;
const SD = Buffer.from('01000480', 'hex');
const CONFIG = { url: 'ldap://127.0.0.1:1389', bind_dn: `CN=mqcn-target,CN=Users,${ROOT}`, password: 'pw',
  naming_context: ROOT, servers: { 'DC2.example.com': 'ldap://127.0.0.1:2389' } };

// An ldapts stand-in. `entries`: dn -> attributes; `fail`: {bind|find|read: Error};
// `delay`: ms before each answer. `log` collects [url, operation, ...details].
function fakeLdapts({ entries = {}, fail = {}, delay = 0, log = [] } = {}) {
  const wait = () => new Promise((r) => setTimeout(r, delay));
  class EqualityFilter { constructor(o) { Object.assign(this, o); } }
  class FakeClient {
    constructor(options) { this.options = options; }
    async bind(dn, password) {
      log.push([this.options.url, 'bind', dn, password]);
      await wait();
      if (fail.bind) throw fail.bind;
    }
    async search(base, options) {
      await wait();
      if (options.scope === 'sub') {
        log.push([this.options.url, 'find', base, options.filter.attribute, options.filter.value.toString('hex')]);
        if (fail.find) throw fail.find;
        const hits = Object.entries(entries).filter(([, a]) => a.objectGUID && a.objectGUID.equals(options.filter.value));
        return { searchEntries: hits.map(([dn]) => ({ dn, distinguishedName: [] })) };
      }
      log.push([this.options.url, 'read', base, options.scope, options.attributes.join(' ')]);
      if (fail.read) throw fail.read;
      const attrs = entries[base];
      if (!attrs) { const e = new Error('No Such Object'); e.code = 32; throw e; }
      const entry = { dn: base };
      for (const a of options.attributes) if (attrs[a] !== undefined) entry[a] = attrs[a];
      return { searchEntries: [entry] };
    }
    async unbind() { log.push([this.options.url, 'unbind']); }
  }
  return { Client: FakeClient, EqualityFilter };
}
const coded = (code, message = `LDAP ${code}`) => Object.assign(new Error(message), { code });
const ENTRIES = {
  [QDN]: { objectGUID: guidToBytes(Q), whenCreated: '20240102030405.0Z', whenChanged: '20240102030405.0Z',
    nTSecurityDescriptor: SD, mSMQLabelEx: 'from-ldap', mSMQQueueQuota: '-1', mSMQJournal: 'TRUE' },
  [MDN]: { objectGUID: guidToBytes(QM), nTSecurityDescriptor: SD, mSMQQuota: '5000' },
};
const directory = (opts) => new LdapDirectory(checkLdapConfig(CONFIG), { ldapts: fakeLdapts(opts) });

test('a Read Directory: bind, find by escaped objectGUID under the naming context, base-scope read at the DN', async () => {
  const log = [];
  const q = await directory({ entries: ENTRIES, log }).read('Queue', Q, READ_QUEUE_ATTRIBUTES, 'dc1.example.com');
  assert.equal(q.Identifier, Q);
  assert.equal(q.Label, 'from-ldap');
  assert.equal(q.Quota, 0xFFFFFFFF);
  assert.equal(q.Journaling, 1);
  assert.equal(q.Pathname, 'qm1\\orders');
  assert.equal(q.DirectoryPath, `LDAP://${QDN}`);
  assert.equal(q.CreateTime, 1704164645);
  assert.deepEqual(log.map((x) => x.slice(0, 3)), [
    ['ldap://127.0.0.1:1389', 'bind', CONFIG.bind_dn], ['ldap://127.0.0.1:1389', 'find', ROOT],
    ['ldap://127.0.0.1:1389', 'read', QDN], ['ldap://127.0.0.1:1389', 'unbind']]);
  assert.deepEqual(log[1].slice(3), ['objectGUID', guidToBytes(Q).toString('hex')]);
  assert.equal(log[2][3], 'base');
  assert.match(log[2][4], /^mSMQQueueType objectGUID .* nTSecurityDescriptor distinguishedName mSMQQueueNameExt .* MSMQ-MulticastAddress$/);
  const m = await directory({ entries: ENTRIES }).read('QueueManager', QM, READ_QM_ATTRIBUTES, null);
  assert.deepEqual(m, { QueueManagerQuota: 5000, JournalQuota: 0xFFFFFFFF, Security: SD.toString('hex') });
});

test('DomainController names go to the listener `servers` gives (without case); other names to `url`', async () => {
  const log = [];
  const dir = directory({ entries: ENTRIES, log });
  await dir.read('Queue', Q, ['Identifier'], 'dc2.EXAMPLE.com');
  await dir.read('Queue', Q, ['Identifier'], 'elsewhere.example.com');
  await dir.read('Queue', Q, ['Identifier'], null);
  assert.deepEqual(log.filter((x) => x[1] === 'bind').map((x) => x[0]),
    ['ldap://127.0.0.1:2389', 'ldap://127.0.0.1:1389', 'ldap://127.0.0.1:1389']);
});

test('failures: no entry ObjectNotFound; result codes per 2.2.6; no connection or bind DirectoryNotConnected', async () => {
  const status = async (opts, guid = Q) => {
    const log = [];
    const r = await directory({ entries: ENTRIES, log, ...opts }).read('Queue', guid, READ_QUEUE_ATTRIBUTES, null);
    assert.ok(log.some((x) => x[1] === 'unbind'), 'the connection is shut down');
    return r.status;
  };
  assert.equal(await status({}, '00000202-0000-4000-8000-000000000202'), 'ObjectNotFound');
  assert.equal(await status({ fail: { bind: coded(49, 'Invalid Credentials') } }), 'DirectoryNotConnected');
  assert.equal(await status({ fail: { bind: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) } }), 'DirectoryNotConnected');
  assert.equal(await status({ fail: { bind: new Error('Connection timeout') } }), 'DirectoryNotConnected');
  assert.equal(await status({ fail: { find: coded(32) } }), 'ObjectNotFound');
  assert.equal(await status({ fail: { find: coded(50, 'Insufficient Access') } }), 'GenericError');
  assert.equal(await status({ fail: { read: coded(16) } }), 'AttributeNotFound');
  assert.equal(await status({ fail: { read: coded(68) } }), 'ObjectAlreadyExists');
  assert.equal(await status({ fail: { read: new Error('SearchRequest: Operation timed out') } }), 'GenericError');
  // two objects with one GUID: nothing to choose between
  const twice = { ...ENTRIES, [`cn=Copy,cn=msmq,cn=QM1,cn=Computers,${ROOT}`]: ENTRIES[QDN] };
  assert.equal(await status({ entries: twice }), 'GenericError');
  // a value of the wrong syntax: 3.1.6.11 cannot build the element
  const broken = { ...ENTRIES, [QDN]: { ...ENTRIES[QDN], mSMQJournal: 'perhaps' } };
  assert.equal(await status({ entries: broken }), 'GenericError');
});

test('directory.ldap is checked field by field; the timeout comes from MQCN_NODE_LDAP_TIMEOUT_MS', () => {
  assert.equal(checkLdapConfig(CONFIG).servers.get('dc2.example.com'), 'ldap://127.0.0.1:2389');
  for (const [patch, message] of [[{ url: 'http://x' }, /url/], [{ bind_dn: 1 }, /bind_dn/], [{ password: null }, /password/],
    [{ naming_context: '' }, /naming_context/], [{ servers: [] }, /servers/], [{ servers: { a: 'x' } }, /servers\["a"\]/]]) {
    assert.throws(() => checkLdapConfig({ ...CONFIG, ...patch }), message);
  }
  assert.throws(() => checkLdapConfig('ldap://x'), /must be an object/);
  assert.equal(timeoutFromEnv({}), 5000);
  assert.equal(timeoutFromEnv({ MQCN_NODE_LDAP_TIMEOUT_MS: '250' }), 250);
  assert.throws(() => timeoutFromEnv({ MQCN_NODE_LDAP_TIMEOUT_MS: 'soon' }), /positive integer/);
});

test('the client module is loaded only in LDAP mode; a missing one is the one-line install hint', () => {
  const missing = () => { throw Object.assign(new Error("Cannot find module 'ldapts'"), { code: 'MODULE_NOT_FOUND' }); };
  assert.throws(() => loadLdapts(missing), (e) => e.message === INSTALL_HINT && !e.message.includes('\n'));
  const other = () => { throw new Error('boom'); };
  assert.throws(() => loadLdapts(other), /boom/);
});

// ---- the adapter protocol in LDAP mode -----------------------------------------------------
// The set-up of a scenario; `ldap` null: dict mode.
function setup(ldap = CONFIG) {
  return { qm_guid: QM, computer: 'qm1', profile: 'spec', readings: 'strict', workgroup: false, qm_attributes: {},
    queues: [], client: { identifier: QM, version: 2, server_name: 'dc1.example.com' },
    directory: { queues: [{ owner: QM, queue: { Identifier: Q, Label: 'from-the-set-up' } }], queue_managers: [{ Identifier: QM }],
      ...(ldap ? { ldap } : {}) } };
}
// The Version 0x02 envelope this target's own client sends about `object`.
function notification(operation, object) {
  const client = new Client({ setupClient: setup().client, directory: new (require('../lib/directory').Directory)(setup().directory),
    clock: { now: 0 }, profile: 'spec' });
  client.start(QM);
  const [env] = client.send(operation, object, ['Label']);
  return env;
}
async function ldapTarget(opts, ldap) {
  const log = [];
  const t = new Target((m) => log.push(m), { ldapClient: () => fakeLdapts(opts) });
  const call = async (method, params = {}) => {
    const r = await respondInOrder(t, { id: 1, method, params });
    assert.ok(!r.error, `${method}: ${r.error && r.error.message}`);
    return r.result;
  };
  assert.deepEqual((await call('hello', { suite: 't', protocol_versions: [1] })).directory, ['ldap']);
  await call('reset', { setup: setup(ldap) });
  await call('start_server');
  return { t, call, log };
}

test('LDAP mode: a creation and a machine change take their values from LDAP; directory_reads is []', async () => {
  const { call } = await ldapTarget({ entries: ENTRIES, delay: 5 });
  await call('deliver', { envelope: notification('QueueCreation', Q) });
  const st = await call('state');
  assert.equal(st.queues[Q].Label, 'from-ldap'); // not the set-up's "from-the-set-up"
  await call('deliver', { envelope: notification('QueueManagerUpdate', QM) });
  assert.equal((await call('state')).queue_manager.QueueManagerQuota, 5000);
  assert.deepEqual(await call('directory_reads'), []);
});

test('LDAP mode: a failed read takes nothing, and the target keeps serving', async () => {
  const { call, log } = await ldapTarget({ entries: ENTRIES, fail: { bind: coded(49, 'Invalid Credentials') } });
  await call('deliver', { envelope: notification('QueueCreation', Q) });
  await call('deliver', { envelope: notification('QueueManagerUpdate', QM) });
  const st = await call('state');
  assert.deepEqual(st.queues, {});
  assert.equal(st.queue_manager.QueueManagerQuota, 0xFFFFFFFF);
  assert.ok(log.some((m) => /Read Directory: Queue .* failed: DirectoryNotConnected/.test(m)), log.join('\n'));
});

test('LDAP mode: calls stay in order; a deliver answers after its read, the next one waits', async () => {
  const { t } = await ldapTarget({ entries: ENTRIES, delay: 30 });
  const order = [];
  const first = respondInOrder(t, { id: 2, method: 'deliver', params: { envelope: notification('QueueCreation', Q) } }).then(() => order.push('deliver'));
  const second = respondInOrder(t, { id: 3, method: 'state', params: {} }).then((r) => { order.push('state'); return r; });
  // the synchronous call answers at once, before the read finished: only respondInOrder waits
  assert.deepEqual(respond(t, { id: 4, method: 'state', params: {} }).result.queues, {});
  const [, st] = await Promise.all([first, second]);
  assert.deepEqual(order, ['deliver', 'state']);
  assert.equal(st.result.queues[Q].Label, 'from-ldap');
});

test('LDAP mode set-up errors are one line: bad directory.ldap, misplaced directory, missing client module', async () => {
  const t = new Target(() => {}, { ldapClient: () => fakeLdapts() });
  respond(t, { id: 1, method: 'hello', params: { suite: 't', protocol_versions: [1] } });
  const bad = respond(t, { id: 2, method: 'reset', params: { setup: setup({ ...CONFIG, url: 'nowhere' }) } });
  assert.equal(bad.error.code, 'bad-request');
  assert.match(bad.error.message, /directory\.ldap\.url/);
  const misplaced = respond(t, { id: 3, method: 'reset', params: { setup: setup(null), directory: { ldap: CONFIG } } });
  assert.equal(misplaced.error.code, 'bad-request');
  assert.match(misplaced.error.message, /setup\.directory/);
  const stderr = [];
  const noModule = new Target((m) => stderr.push(m), { ldapClient: () => { throw new Error(INSTALL_HINT); } });
  const r = respond(noModule, { id: 4, method: 'reset', params: { setup: setup() } });
  assert.deepEqual(r.error, { code: 'internal', message: INSTALL_HINT });
  assert.deepEqual(stderr, [`internal error: ${INSTALL_HINT}`]); // one line, no stack
  // without directory.ldap the module is never asked for: dict mode as before
  const dict = respond(noModule, { id: 5, method: 'reset', params: { setup: setup(null) } });
  assert.equal(dict.error, undefined);
});

test('LDAP mode: a message arriving over MS-MQQB is read in turn; the next call waits for its read', async () => {
  const { t, call } = await ldapTarget({ entries: ENTRIES, delay: 30 });
  const env = notification('QueueCreation', Q);
  // what lib/mqqb's listener hands over (transport.js packetToEnvelope reads it back)
  t.receive({ body: Buffer.from(env.body, 'hex'), messageId: { sender: QM, ordinal: 1 }, senderIdType: 0, signed: false,
    timeToReachQueue: 300, delivery: 0, messageClass: 0, hashAlgorithm: 0x800e, destination: `PRIVATE=${QM}\\3` });
  assert.deepEqual(respond(t, { id: 5, method: 'state', params: {} }).result.queues, {}, 'the read is still running');
  assert.equal((await call('state')).queues[Q].Label, 'from-ldap');
});
