'use strict';
// LDAP mode end to end: `node target.js` (adapter mode, JSON lines) reads a real LDAP
// directory laid out as Active Directory. Runs only when a directory is given (the suite's
// slapd fixture, or one started by hand), through these environment variables:
//
//   MQCN_TEST_LDAP_URL             ldap://127.0.0.1:PORT the target reads        (required)
//   MQCN_TEST_LDAP_WRITE_DN        an account that may add and delete entries   (required)
//   MQCN_TEST_LDAP_WRITE_PASSWORD  its password                                 (required)
//   MQCN_TEST_LDAP_BIND_DN         the target's account       (default: the writing account)
//   MQCN_TEST_LDAP_PASSWORD        its password               (default: the writing one)
//   MQCN_TEST_LDAP_NAMING_CONTEXT  the root naming context    (default DC=mqcn,DC=example)
//   MQCN_TEST_LDAP_SERVERS         JSON {"dc1.example.com": "ldap://..."}: the listener that
//                                  plays the DomainController the messages name
//                                  (default: dc1.example.com is MQCN_TEST_LDAP_URL)
//
// The test writes its own objects under CN=Computers,<root> (a computer with a random name,
// its mSMQConfiguration and one mSMQQueue; the schema must have the MSMQ classes) and
// deletes them afterwards. Needs `npm ci` (ldapts).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawn } = require('node:child_process');
const { guidToBytes } = require('../lib/guid');
const { Client: NotificationClient } = require('../lib/client');
const { Directory } = require('../lib/directory');

const env = process.env;
const GIVEN = env.MQCN_TEST_LDAP_URL && env.MQCN_TEST_LDAP_WRITE_DN && env.MQCN_TEST_LDAP_WRITE_PASSWORD !== undefined;
const SKIP = GIVEN ? false : 'no LDAP directory given (set MQCN_TEST_LDAP_URL, MQCN_TEST_LDAP_WRITE_DN, MQCN_TEST_LDAP_WRITE_PASSWORD)';
const ROOT = env.MQCN_TEST_LDAP_NAMING_CONTEXT || 'DC=mqcn,DC=example';
const TARGET = path.resolve(__dirname, '..', 'target.js');
const SERVERS = GIVEN ? JSON.parse(env.MQCN_TEST_LDAP_SERVERS || JSON.stringify({ 'dc1.example.com': env.MQCN_TEST_LDAP_URL })) : {};

const QM = crypto.randomUUID();
const Q = crypto.randomUUID();
const ABSENT = crypto.randomUUID(); // in the set-up (the client can notify about it), not in LDAP
const TYPE = crypto.randomUUID();
const COMPUTER = `nodetest${crypto.randomBytes(4).toString('hex')}`;
const COMPUTER_DN = `CN=${COMPUTER},CN=Computers,${ROOT}`;
const MSMQ_DN = `CN=msmq,${COMPUTER_DN}`;
const QUEUE_DN = `CN=Orders,${MSMQ_DN}`;
const SD = Buffer.from('0100048000000000000000000000000014000000020008000000000000', 'hex');

// The objects, encoded as the AD syntaxes require (GUIDs in [MS-DTYP] order, Boolean
// TRUE/FALSE, Integer as signed 32-bit, GeneralizedTime), parents first.
const ENTRIES = [
  [COMPUTER_DN, { objectClass: ['top', 'computer'], cn: COMPUTER }],
  [MSMQ_DN, { objectClass: ['top', 'mSMQConfiguration'], cn: 'msmq', objectGUID: guidToBytes(QM),
    nTSecurityDescriptor: SD, mSMQQuota: '5000', mSMQJournalQuota: '-2',
    whenCreated: '20240102030405.0Z', whenChanged: '20240102030405.0Z' }],
  [QUEUE_DN, { objectClass: ['top', 'mSMQQueue'], cn: 'Orders', objectGUID: guidToBytes(Q),
    nTSecurityDescriptor: SD, whenCreated: '19650101000000.0Z', whenChanged: '20240102030405.0Z',
    mSMQLabelEx: 'from-ldap', mSMQQueueType: guidToBytes(TYPE), mSMQJournal: 'TRUE', mSMQQueueQuota: '-1',
    mSMQQueueJournalQuota: '2147483647', mSMQAuthenticate: 'FALSE', mSMQPrivacyLevel: '2',
    mSMQTransactional: 'TRUE', mSMQBasePriority: '-3' }],
];

// The target as the suite runs it: one JSON line per request, one per answer.
function startTarget() {
  const child = spawn(process.execPath, [TARGET, '--adapter-mode'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr = [];
  child.stderr.on('data', (d) => stderr.push(String(d)));
  let buffered = '';
  const waiting = [];
  child.stdout.on('data', (d) => {
    buffered += d;
    let i;
    while ((i = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      waiting.shift()(JSON.parse(line));
    }
  });
  let id = 0;
  const call = (method, params = {}) => new Promise((resolve) => {
    waiting.push(resolve);
    child.stdin.write(`${JSON.stringify({ id: ++id, method, params })}\n`);
  }).then((r) => {
    assert.ok(!r.error, `${method}: ${r.error && r.error.message}\n${stderr.join('')}`);
    return r.result;
  });
  const stop = async () => { await call('shutdown'); child.stdin.end(); };
  return { call, stop, stderr };
}

function setup(password) {
  return {
    qm_guid: QM, computer: COMPUTER, profile: 'spec', readings: 'strict', workgroup: false, qm_attributes: {}, queues: [],
    client: { identifier: QM, version: 2, server_name: 'dc1.example.com' },
    directory: {
      queues: [{ owner: QM, queue: { Identifier: Q } }, { owner: QM, queue: { Identifier: ABSENT } }],
      queue_managers: [{ Identifier: QM }],
      ldap: { url: env.MQCN_TEST_LDAP_URL, bind_dn: env.MQCN_TEST_LDAP_BIND_DN || env.MQCN_TEST_LDAP_WRITE_DN,
        password, naming_context: ROOT, servers: SERVERS },
    },
  };
}

// The Version 0x02 envelope about `object` (this target's own client builds it).
function notification(operation, object) {
  const s = setup('');
  const client = new NotificationClient({ setupClient: s.client, directory: new Directory(s.directory), clock: { now: 0 }, profile: 'spec' });
  client.start(QM);
  return client.send(operation, object, ['Label'])[0];
}

test('LDAP mode against a real directory: values from LDAP, failures take nothing, the target keeps serving', { skip: SKIP, timeout: 60000 }, async () => {
  const { Client } = require('ldapts');
  const writer = new Client({ url: env.MQCN_TEST_LDAP_URL, timeout: 5000, connectTimeout: 5000 });
  await writer.bind(env.MQCN_TEST_LDAP_WRITE_DN, env.MQCN_TEST_LDAP_WRITE_PASSWORD);
  const added = [];
  try {
    for (const [dn, attributes] of ENTRIES) {
      await writer.add(dn, attributes);
      added.unshift(dn);
    }
    const target = startTarget();
    try {
      assert.deepEqual((await target.call('hello', { suite: 'ldap-e2e', protocol_versions: [1] })).directory, ['ldap']);
      await target.call('reset', { setup: setup(env.MQCN_TEST_LDAP_PASSWORD ?? env.MQCN_TEST_LDAP_WRITE_PASSWORD) });
      await target.call('start_server');
      await target.call('deliver', { envelope: notification('QueueCreation', Q) });
      await target.call('deliver', { envelope: notification('QueueManagerUpdate', QM) });
      await target.call('deliver', { envelope: notification('QueueCreation', ABSENT) }); // ObjectNotFound
      const st = await target.call('state');
      assert.deepEqual(Object.keys(st.queues), [Q]);
      const q = st.queues[Q];
      assert.deepEqual({ ...q, DirectoryPath: q.DirectoryPath.toLowerCase() }, {
        Identifier: Q, Type: TYPE, BasePriority: -3, Journaling: 1, Quota: 0xFFFFFFFF, JournalQuota: 2147483647,
        CreateTime: -157766400, ModifyTime: 1704164645, Security: SD.toString('hex'),
        Pathname: `${COMPUTER}\\orders`, Label: 'from-ldap', Authentication: 0, PrivacyLevel: 2, Transactional: 1,
        MulticastAddress: '', DirectoryPath: `ldap://${QUEUE_DN}`.toLowerCase(), Scope: 1,
      });
      assert.equal(st.queue_manager.QueueManagerQuota, 5000);
      assert.equal(st.queue_manager.JournalQuota, 0xFFFFFFFE);
      assert.equal(st.queue_manager.Security, SD.toString('hex'));
      assert.deepEqual(await target.call('directory_reads'), []); // seen at the server instead

      // Wrong credentials: every read is DirectoryNotConnected; nothing is taken, all answered.
      await target.call('reset', { setup: setup('not-the-password') });
      await target.call('start_server');
      await target.call('deliver', { envelope: notification('QueueCreation', Q) });
      await target.call('deliver', { envelope: notification('QueueManagerUpdate', QM) });
      const after = await target.call('state');
      assert.deepEqual(after.queues, {});
      assert.equal(after.queue_manager.QueueManagerQuota, 0xFFFFFFFF);
      assert.match(target.stderr.join(''), /failed: DirectoryNotConnected/);
    } finally {
      await target.stop();
    }
  } finally {
    for (const dn of added) await writer.del(dn).catch(() => {});
    await writer.unbind();
  }
});
