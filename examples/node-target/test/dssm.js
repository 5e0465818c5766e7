'use strict';
// The [MS-MQDSSM] mapping of lib/dssm.js, pure: attribute lists (3.1.6.10), GUID filters
// (3.1.6.19 / AD practice), result codes (2.2.6), DNs (2.2.1) and the 3.1.6.11 tables with
// their defaults and error rows.
const test = require('node:test');
const assert = require('node:assert/strict');
const d = require('../lib/dssm');
const { READ_QUEUE_ATTRIBUTES, READ_QM_ATTRIBUTES, QUEUE_DEFAULTS } = require('../lib/adm');
const { guidToBytes } = require('../lib/guid');

const Q = '00000101-0000-4000-8000-000000000101';
const QM = '6f1c3a9e-2b4d-4c5e-8f70-1a2b3c4d5e6f';
const QDN = 'cn=Orders,cn=msmq,cn=QM1,cn=Computers,dc=mqcn,dc=example';
const SD = Buffer.from('0100048000000000000000000000000014000000', 'hex');
const vals = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k.toLowerCase(), [Buffer.isBuffer(v) ? v : Buffer.from(String(v))]]));
const MINIMAL = { objectGUID: guidToBytes(Q), whenCreated: '19700101000000.0Z', whenChanged: '19700101000001.0Z', nTSecurityDescriptor: SD };

test('2.2.6: LDAP result codes map to DirectoryOperationResult', () => {
  assert.deepEqual([0, 32, 16, 68, 1, 49, 50, 80].map(d.statusOfLdapCode),
    ['Success', 'ObjectNotFound', 'AttributeNotFound', 'ObjectAlreadyExists', 'GenericError', 'GenericError', 'GenericError', 'GenericError']);
});

test('3.1.6.10: the LDAP attributes of the 3.2.5.2 lists, in order, each once, plus objectGUID and distinguishedName', () => {
  assert.deepEqual(d.ldapAttributesFor('Queue', READ_QUEUE_ATTRIBUTES), ['mSMQQueueType', 'objectGUID',
    'mSMQBasePriority', 'mSMQJournal', 'mSMQQueueQuota', 'mSMQQueueJournalQuota', 'whenCreated', 'whenChanged',
    'nTSecurityDescriptor', 'distinguishedName', 'mSMQQueueNameExt', 'mSMQLabelEx', 'mSMQAuthenticate',
    'mSMQPrivacyLevel', 'mSMQTransactional', 'MSMQ-MulticastAddress']);
  assert.deepEqual(d.ldapAttributesFor('QueueManager', READ_QM_ATTRIBUTES),
    ['mSMQQuota', 'mSMQJournalQuota', 'nTSecurityDescriptor', 'objectGUID', 'distinguishedName']);
  // ADM names without a row (Scope) are ignored; the identity attributes are always asked for.
  assert.deepEqual(d.ldapAttributesFor('Queue', ['Scope']), ['objectGUID', 'distinguishedName']);
});

test('3.1.6.19: the letter\'s CompactGuid and the AD-practice escaped bytes name the same object', () => {
  const g = '6f9619ff-8b86-d011-b42d-00c04fc964ff';
  assert.equal(d.compactGuid(g), '6f9619ff8b86d011b42d00c04fc964ff');
  assert.equal(d.escapedGuid(g), '\\ff\\19\\96\\6f\\86\\8b\\11\\d0\\b4\\2d\\00\\c0\\4f\\c9\\64\\ff');
  assert.equal(d.guidFilterText(g), `(objectGUID=${d.escapedGuid(g)})`);
  assert.throws(() => d.compactGuid('not-a-guid'), /not a GUID/);
});

test('DNs: RFC 4514 escapes are undone; the 2.2.1 queue layout gives computer and queue name', () => {
  assert.deepEqual(d.parseDn('CN=a\\,b,CN=x\\3Dy, DC=ex'), [{ type: 'CN', value: 'a,b' }, { type: 'CN', value: 'x=y' }, { type: 'DC', value: 'ex' }]);
  assert.deepEqual(d.parseDn('cn=\\C3\\A9t\\C3\\A9,dc=x')[0].value, 'été'); // hex pairs spell UTF-8
  assert.throws(() => d.parseDn(''), /empty/);
  assert.throws(() => d.parseDn('CN=a+SN=b,DC=x'), /multi-valued/);
  assert.throws(() => d.parseDn('nonsense'), /without "="/);
  assert.deepEqual(d.queueDnParts(QDN), { computer: 'QM1', queue: 'Orders' });
  assert.throws(() => d.queueDnParts('cn=msmq,cn=QM1,cn=Computers,dc=mqcn,dc=example'), /MS-MQDSSM 2.2.1/);
  assert.throws(() => d.queueDnParts('cn=Orders,cn=other,cn=QM1,cn=Computers,dc=x'), /MS-MQDSSM 2.2.1/);
});

test('3.1.6.11.2.1: Pathname is lower-case computer\\queue, backslashes dropped, long names take mSMQQueueNameExt', () => {
  assert.equal(d.pathnameFromDn(QDN), 'qm1\\orders');
  assert.equal(d.pathnameFromDn('CN=a\\\\b,CN=msmq,CN=QM1,CN=Computers,DC=x'), 'qm1\\ab');
  const long = 'q'.repeat(55) + '12345678'; // 63: kept whole
  assert.equal(d.pathnameFromDn(`CN=${long},CN=msmq,CN=C,CN=Computers,DC=x`, 'ignored'), `c\\${long}`);
  const hashed = 'Q'.repeat(55) + '-ABCDEF01'; // 64: 55 kept, the rest from mSMQQueueNameExt
  assert.equal(d.pathnameFromDn(`CN=${hashed},CN=msmq,CN=C,CN=Computers,DC=x`, 'TAIL'), `c\\${'q'.repeat(55)}tail`);
  assert.equal(d.pathnameFromDn(`CN=${hashed},CN=msmq,CN=C,CN=Computers,DC=x`), `c\\${'q'.repeat(55)}`);
});

test('GeneralizedTime -> seconds since 1970 (before 1970 negative; fractions and offsets)', () => {
  const t = d.epochSecondsOfGeneralizedTime;
  assert.equal(t('19700101000000.0Z'), 0);
  assert.equal(t('19700101000000Z'), 0);
  assert.equal(t('20240102030405.0Z'), 1704164645);
  assert.equal(t('19650101000000.0Z'), -157766400);
  assert.equal(t('19691231235959.9Z'), -1); // towards the past
  assert.equal(t('197001010100Z'), 3600); // minutes precision
  assert.equal(t('1970010101Z'), 3600); // hours precision
  assert.equal(t('1970010101.5Z'), 5400); // a fraction of the hour
  assert.equal(t('19700101020000+0100'), 3600);
  assert.equal(t('19700101000000-0130'), 5400);
  assert.equal(t('00010101000000Z'), -62135596800); // year 1 stays year 1
  for (const bad of ['', '2024', '20241301000000Z', '20240230000000Z', '20240101000000', 'x0240101000000Z']) {
    assert.throws(() => t(bad), /GeneralizedTime|no such day/, bad);
  }
});

test('Integer, Boolean and PrivacyLevel syntaxes', () => {
  assert.equal(d.integerOf('-3'), -3);
  assert.throws(() => d.integerOf('03'), /not an Integer/);
  assert.throws(() => d.integerOf('1.5'), /not an Integer/);
  assert.equal(d.unsigned32Of('-1'), 0xFFFFFFFF); // AD's signed 32-bit Integer, read back masked
  assert.equal(d.unsigned32Of('-2147483648'), 0x80000000);
  assert.equal(d.unsigned32Of('4294967295'), 0xFFFFFFFF);
  assert.throws(() => d.unsigned32Of('4294967296'), /32 bits/);
  assert.throws(() => d.unsigned32Of('-2147483649'), /32 bits/);
  assert.deepEqual(['TRUE', 'FALSE', '1', '0'].map(d.booleanOf), [1, 0, 1, 0]);
  assert.throws(() => d.booleanOf('true'), /not a Boolean/);
  assert.throws(() => d.booleanOf('2'), /not a Boolean/);
  assert.deepEqual(['0', '1', '2'].map(d.privacyLevelOf), [0, 1, 2]);
  assert.throws(() => d.privacyLevelOf('3'), /3.1.6.11.2.3/);
});

test('3.1.6.11.2: a Queue from every value of an mSMQQueue entry', () => {
  const q = d.queueFromLdap(vals({
    ...MINIMAL, mSMQQueueType: guidToBytes(QM), mSMQBasePriority: '-3', mSMQJournal: 'TRUE', mSMQQueueQuota: '-1',
    mSMQQueueJournalQuota: '2147483647', mSMQLabelEx: 'from-ldap', mSMQAuthenticate: 'FALSE', mSMQPrivacyLevel: '2',
    mSMQTransactional: 'TRUE', 'MSMQ-MulticastAddress': '234.1.1.1:8001',
  }), QDN, READ_QUEUE_ATTRIBUTES);
  assert.deepEqual(q, {
    Identifier: Q, Type: QM, BasePriority: -3, Journaling: 1, Quota: 0xFFFFFFFF, JournalQuota: 2147483647,
    CreateTime: 0, ModifyTime: 1, Security: SD.toString('hex'), Pathname: 'qm1\\orders', Label: 'from-ldap',
    Authentication: 0, PrivacyLevel: 2, Transactional: 1, MulticastAddress: '234.1.1.1:8001',
    DirectoryPath: `LDAP://${QDN}`, Scope: QUEUE_DEFAULTS.Scope,
  });
});

test('3.1.6.11.2: absent attributes take the table\'s defaults', () => {
  const q = d.queueFromLdap(vals(MINIMAL), QDN, READ_QUEUE_ATTRIBUTES);
  assert.equal(q.Type, '00000000-0000-0000-0000-000000000000');
  assert.equal(q.Label, '');
  assert.equal(q.Journaling, 0);
  assert.equal(q.Quota, 0xFFFFFFFF);
  assert.equal(q.JournalQuota, 0xFFFFFFFF);
  assert.equal(q.Authentication, 0);
  assert.equal(q.PrivacyLevel, 1); // Optional
  assert.equal(q.Transactional, 0);
  assert.equal(q.MulticastAddress, '');
  assert.equal(q.BasePriority, 0);
  // LDAP attribute names compare without case
  assert.equal(d.queueFromLdap({ ...vals(MINIMAL), msmqlabelex: [Buffer.from('x')] }, QDN, ['Label']).Label, 'x');
});

test('3.1.6.11.2: the error rows and values of the wrong syntax are GenericError', () => {
  for (const missing of ['objectGUID', 'whenCreated', 'whenChanged', 'nTSecurityDescriptor']) {
    const v = { ...MINIMAL }; delete v[missing];
    const r = d.queueFromLdap(vals(v), QDN, READ_QUEUE_ATTRIBUTES);
    assert.ok(d.isFailure(r), missing);
    assert.equal(r.status, 'GenericError');
    assert.match(r.reason, new RegExp(`${missing}.*3\\.1\\.6\\.11\\.2`));
  }
  // no DN: Pathname and DirectoryPath are errors; a DN outside the 2.2.1 layout too
  assert.equal(d.queueFromLdap(vals(MINIMAL), '', ['Pathname']).status, 'GenericError');
  assert.equal(d.queueFromLdap(vals(MINIMAL), '', ['DirectoryPath']).status, 'GenericError');
  assert.match(d.queueFromLdap(vals(MINIMAL), 'cn=msmq,cn=QM1,cn=Computers,dc=x', ['Pathname']).reason, /2\.2\.1/);
  for (const [attr, value] of [['mSMQJournal', 'yes'], ['mSMQQueueQuota', 'many'], ['mSMQPrivacyLevel', '7'],
    ['mSMQQueueType', Buffer.alloc(15)], ['objectGUID', Buffer.alloc(17)], ['whenCreated', 'yesterday']]) {
    const r = d.queueFromLdap(vals({ ...MINIMAL, [attr]: value }), QDN, READ_QUEUE_ATTRIBUTES);
    assert.equal(r.status, 'GenericError', attr);
    assert.match(r.reason, new RegExp(attr));
  }
  // only the attributes asked for are computed: an absent Security is no error when not asked
  assert.ok(!d.isFailure(d.queueFromLdap(vals({ objectGUID: guidToBytes(Q) }), QDN, ['Identifier', 'Label'])));
});

test('3.1.6.11.1: QueueManager quotas and Security, with defaults 0x00100000 / 0xFFFFFFFF and the Security error', () => {
  const full = d.queueManagerFromLdap(vals({ mSMQQuota: '5000', mSMQJournalQuota: '-2', nTSecurityDescriptor: SD }),
    'cn=msmq,cn=QM1,cn=Computers,dc=x', READ_QM_ATTRIBUTES);
  assert.deepEqual(full, { QueueManagerQuota: 5000, JournalQuota: 0xFFFFFFFE, Security: SD.toString('hex') });
  const defaults = d.queueManagerFromLdap(vals({ nTSecurityDescriptor: SD }), 'cn=msmq,cn=QM1,cn=Computers,dc=x', READ_QM_ATTRIBUTES);
  assert.deepEqual(defaults, { QueueManagerQuota: 0x00100000, JournalQuota: 0xFFFFFFFF, Security: SD.toString('hex') });
  const noSecurity = d.queueManagerFromLdap(vals({ mSMQQuota: '1' }), 'cn=msmq,cn=QM1,cn=Computers,dc=x', READ_QM_ATTRIBUTES);
  assert.equal(noSecurity.status, 'GenericError');
  assert.match(noSecurity.reason, /nTSecurityDescriptor.*3\.1\.6\.11\.1/);
  assert.equal(d.queueManagerFromLdap(vals({}), 'x', ['ConnectedNetworkIdentifierList']).status, 'GenericError');
});

test('an ldapts search entry becomes lower-cased names with byte values', () => {
  assert.deepEqual(d.valuesOfEntry({ dn: 'cn=x', mSMQLabelEx: 'a', objectGUID: Buffer.from([1]), Multi: ['p', 'q'] }),
    { msmqlabelex: [Buffer.from('a')], objectguid: [Buffer.from([1])], multi: [Buffer.from('p'), Buffer.from('q')] });
});
