'use strict';
// ADM elements of MS-MQCN 3.1.1 as this target keeps them: plain objects holding the JSON
// values of docs/adapter-protocol.md (GUIDs as lower-case text, BLOBs as hex).
const { P } = require('./constants');
const { NIL, normalize } = require('./guid');

// Set Queue Defaults ([MS-MQDMPR] 3.1.7.1.33) as read by errata E-19: the [MS-MQMQ] defaults.
const QUEUE_DEFAULTS = Object.freeze({
  Identifier: NIL, Type: NIL, BasePriority: 0, Journaling: 0, Quota: 4294967295,
  JournalQuota: 4294967295, CreateTime: 0, ModifyTime: 0, Security: '', Pathname: '',
  Label: '', Authentication: 0, PrivacyLevel: 1, Transactional: 0, MulticastAddress: '',
  DirectoryPath: '', Scope: 1,
});

const QM_DEFAULTS = Object.freeze({
  Identifier: NIL, ForeignSystem: 0, QueueManagerQuota: 4294967295, JournalQuota: 4294967295,
  Security: '', ConnectedNetworkIdentifierList: [], QueueManagerVersion: '', OperatingSystemType: 0,
});

const GUID_ATTRS = new Set(['Identifier', 'Type']);
const HEX_ATTRS = new Set(['Security']);

// Copy `partial` over the defaults, normalising GUID and hex text to lower case.
function complete(defaults, partial = {}) {
  const out = { ...defaults };
  if (defaults === QM_DEFAULTS) out.ConnectedNetworkIdentifierList = [];
  if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) throw new TypeError('an ADM element must be an object');
  for (const [k, v] of Object.entries(partial)) {
    if (!(k in defaults)) throw new TypeError(`unknown attribute ${k}`);
    if (GUID_ATTRS.has(k)) out[k] = normalize(v);
    else if (HEX_ATTRS.has(k)) {
      if (typeof v !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(v)) throw new TypeError(`${k} must be hex`);
      out[k] = v.toLowerCase();
    } else if (k === 'ConnectedNetworkIdentifierList') {
      if (!Array.isArray(v)) throw new TypeError(`${k} must be a list of GUIDs`);
      out[k] = v.map(normalize);
    } else if (typeof defaults[k] === 'number') {
      if (!Number.isInteger(v)) throw new TypeError(`${k} must be an integer`);
      out[k] = v;
    } else {
      if (typeof v !== 'string') throw new TypeError(`${k} must be text`);
      out[k] = v;
    }
  }
  return out;
}
// A queue always names its Identifier (the key of the QueueCollection and the directory).
function makeQueue(partial, { requireIdentifier = false } = {}) {
  if (requireIdentifier && !(partial && typeof partial === 'object' && 'Identifier' in partial)) {
    throw new TypeError('a queue without Identifier');
  }
  return complete(QUEUE_DEFAULTS, partial);
}
const makeQueueManager = (partial) => complete(QM_DEFAULTS, partial);

// The attribute lists of the Read Directory events of 3.2.5.2, spelt as the spec spells
// them (they are reported verbatim in `directory_reads`).
const READ_QUEUE_ATTRIBUTES = Object.freeze(['Type', 'Identifier', 'BasePriority', 'Journal', 'Quota',
  'JournalQuota', 'CreateTime', 'ModifyTime', 'Security', 'Pathname', 'Label', 'Authentication',
  'PrivacyLevel', 'Transactional', 'MulticastAddress', 'DirectoryPath']);
const READ_QM_ATTRIBUTES = Object.freeze(['QueueManagerQuota', 'JournalQuota', 'Security']);

// The same Queue attribute is spelt several ways across 3.1.1.3, 3.2.5.1 and 3.2.5.2
// (errata E-17); map each spelling to the 3.1.1.3 name this target stores.
const QUEUE_ATTRIBUTE_ALIASES = Object.freeze({ Journal: 'Journaling', PathName: 'Pathname', Transaction: 'Transactional' });
const canonicalQueueAttribute = (name) => QUEUE_ATTRIBUTE_ALIASES[name] || name;

// Queue attribute <-> PROPID (3.1.1.3) and QueueManager attribute <-> PROPID (3.1.1.2.1).
const QUEUE_PROPID = Object.freeze({
  Identifier: P.Q_INSTANCE, Type: P.Q_TYPE, BasePriority: P.Q_BASEPRIORITY, Journaling: P.Q_JOURNAL,
  Quota: P.Q_QUOTA, JournalQuota: P.Q_JOURNAL_QUOTA, CreateTime: P.Q_CREATE_TIME,
  ModifyTime: P.Q_MODIFY_TIME, Security: P.Q_SECURITY, Pathname: P.Q_PATHNAME, Label: P.Q_LABEL,
  Authentication: P.Q_AUTHENTICATE, PrivacyLevel: P.Q_PRIV_LEVEL, Transactional: P.Q_TRANSACTION,
  MulticastAddress: P.Q_MULTICAST_ADDRESS, DirectoryPath: P.Q_ADS_PATH, Scope: P.Q_SCOPE,
});
const QM_PROPID = Object.freeze({
  Identifier: P.QM_MACHINE_ID, ForeignSystem: P.QM_FOREIGN, QueueManagerQuota: P.QM_QUOTA,
  JournalQuota: P.QM_JOURNAL_QUOTA, Security: P.QM_SECURITY, ConnectedNetworkIdentifierList: P.QM_CNS,
  QueueManagerVersion: P.QM_MACHINE_TYPE, OperatingSystemType: P.QM_OS,
});

// A decoded property value -> the JSON value of the ADM attribute.
function admValue(v) {
  if (Buffer.isBuffer(v)) return v.toString('hex');
  if (typeof v === 'bigint') return Number(v);
  return v;
}

module.exports = {
  QUEUE_DEFAULTS, QM_DEFAULTS, makeQueue, makeQueueManager,
  READ_QUEUE_ATTRIBUTES, READ_QM_ATTRIBUTES, canonicalQueueAttribute,
  QUEUE_PROPID, QM_PROPID, admValue,
};
