'use strict';
// Content rules a *sender* must obey beyond the wire syntax: MS-MQCN 3.3.5.2 (which
// PROPIDs each kind of Notification Update carries, and "each PropertyValue MUST be
// filled according to the rules ... in [MS-MQMQ]"). The server side of this target does
// not enforce these (3.2.5.1 defines its own, narrower rules, see server.js); the client
// side uses them as a self-check and the smoke test uses them as a judge.
// Readings are the strict ones of docs/errata.md (E-11 extra PROPIDs, E-12 deletion pair,
// E-13 structural checks of BLOB/URL/address values).
const { P, CMD_CREATE, CMD_UPDATE, CMD_DELETE, MQDS_QUEUE, MQDS_ENTERPRISESCOPE } = require('./constants');
const { pathNameProblem } = require('./pathname');

// Object type of a creation/update from PropertyId[0] (3.2.5.1): (id - 1000) / 100 above
// 1000, id / 100 otherwise (integer division, as PROPID_TO_OBJTYPE).
function objectTypeOf(update) {
  if (update.properties.length === 0) return null;
  const id = update.properties[0].propid;
  return Math.floor((id > 1000 ? id - 1000 : id) / 100);
}

const CREATION_REQUIRED = [P.Q_TYPE, P.Q_INSTANCE, P.Q_BASEPRIORITY, P.Q_JOURNAL, P.Q_QUOTA,
  P.Q_JOURNAL_QUOTA, P.Q_CREATE_TIME, P.Q_MODIFY_TIME, P.Q_SCOPE, P.Q_SECURITY, P.Q_PATHNAME,
  P.Q_LABEL, P.Q_AUTHENTICATE, P.Q_PRIV_LEVEL, P.Q_TRANSACTION];
const QUEUE_MODIFIABLE = new Set([P.Q_JOURNAL, P.Q_QUOTA, P.Q_BASEPRIORITY, P.Q_JOURNAL_QUOTA,
  P.Q_SECURITY, P.Q_AUTHENTICATE, P.Q_PRIV_LEVEL]);
const MACHINE_ALLOWED = new Set([P.QM_MACHINE_ID, P.QM_FOREIGN, P.QM_QUOTA, P.QM_JOURNAL_QUOTA,
  P.QM_SECURITY, P.QM_ADDRESS, P.QM_CNS, P.QM_MACHINE_TYPE, P.QM_OS]);

// ---- [MS-MQMQ] value rules ----------------------------------------------------------

// Self-relative SECURITY_DESCRIPTOR ([MS-DTYP] 2.4.6), outer structure only (E-13):
// Revision 1, SE_SELF_RELATIVE (0x8000) set, every non-zero offset past the 20-byte
// header and leaving room for at least a SID/ACL header (8 bytes) inside the blob.
function securityDescriptorProblem(b) {
  if (b.length < 20) return 'shorter than the 20-byte header';
  if (b[0] !== 1) return `Revision ${b[0]} (MUST be 1)`;
  if (!(b.readUInt16LE(2) & 0x8000)) return 'SE_SELF_RELATIVE not set';
  for (const [name, at] of [['OffsetOwner', 4], ['OffsetGroup', 8], ['OffsetSacl', 12], ['OffsetDacl', 16]]) {
    const off = b.readUInt32LE(at);
    if (off !== 0 && (off < 20 || off + 8 > b.length)) return `${name} ${off} outside the blob`;
  }
  return null;
}

// PROPID_QM_ADDRESS: packed TA_ADDRESS entries ([MS-MQMQ] 2.2.4): AddressLength (2),
// AddressType (2), Address (AddressLength bytes), whole entries only.
function addressListProblem(b) {
  let p = 0;
  while (p < b.length) {
    if (p + 4 > b.length) return `TA_ADDRESS header cut at byte ${p}`;
    const len = b.readUInt16LE(p);
    if (p + 4 + len > b.length) return `TA_ADDRESS at byte ${p} runs past the blob`;
    p += 4 + len;
  }
  return null;
}

// PROPID_Q_MULTICAST_ADDRESS ([MS-MQMQ] 2.3.1.23): "a.b.c.d:port", class D address
// 224.0.0.0-239.255.255.255, decimal without leading zeros, port 0..65535.
function multicastProblem(s) {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3}):(\d{1,5})$/.exec(s);
  if (!m) return 'not of the form a.b.c.d:port';
  const nums = m.slice(1);
  if (nums.some((n) => n.length > 1 && n[0] === '0')) return 'leading zero';
  const [a, b, c, d, port] = nums.map(Number);
  if ([a, b, c, d].some((x) => x > 255)) return 'octet above 255';
  if (a < 224 || a > 239) return 'not a class D address';
  if (port > 65535) return 'port above 65535';
  return null;
}

function valueProblem(propid, v) {
  const oneOf = (...xs) => (xs.includes(v) ? null : `value ${v} not in {${xs.join(', ')}}`);
  switch (propid) {
    case P.Q_JOURNAL: case P.Q_AUTHENTICATE: case P.Q_TRANSACTION: case P.Q_SCOPE:
    case P.QM_FOREIGN: case P.D_SCOPE:
      return oneOf(0, 1);
    case P.Q_PRIV_LEVEL: return oneOf(0, 1, 2);
    case P.QM_OS: return oneOf(0x000, 0x100, 0x200, 0x300, 0x400, 0x500);
    case P.D_OBJTYPE: return v >= 1 && v <= 8 ? null : `object type ${v} not 1..8`;
    case P.Q_LABEL: return v.length <= 124 ? null : `label of ${v.length} characters (at most 124)`;
    case P.Q_PATHNAME: return pathNameProblem(v);
    case P.Q_MULTICAST_ADDRESS: return multicastProblem(v);
    case P.Q_ADS_PATH: return /^ldap:\/\/./i.test(v) ? null : 'not an LDAP URL';
    case P.Q_SECURITY: case P.QM_SECURITY: return securityDescriptorProblem(v);
    case P.QM_ADDRESS: return addressListProblem(v);
    default: return null;
  }
}

// ---- 3.3.5.2 per update -------------------------------------------------------------

function updateViolations(u) {
  const out = [];
  const v = (offset, message) => out.push({ section: 'MQCN-3.3.5.2', offset, message });
  const ids = u.properties.map((p) => p.propid);
  const has = (id) => ids.includes(id);

  if (u.command === CMD_CREATE && u.useGuid !== 0) v(u.offset, 'a creation MUST use PathName (UseGuid 0x00)');
  if (u.command !== CMD_CREATE && u.useGuid !== 1) v(u.offset, 'an update/deletion MUST use GuidIdentifier (UseGuid 0x01)');
  for (const p of u.properties) {
    const problem = valueProblem(p.propid, p.value);
    if (problem) v(p.offset, `PROPID ${p.propid}: ${problem}`);
  }

  const type = objectTypeOf(u);
  if (u.command === CMD_CREATE) {
    if (type !== MQDS_QUEUE) v(u.offset, 'a creation MUST describe a queue object');
    const missing = CREATION_REQUIRED.filter((id) => !has(id));
    if (missing.length) v(u.offset, `creation lacks PROPIDs ${missing.join(', ')}`);
    u.properties.filter((p) => p.propid === P.Q_ADS_PATH).forEach((p) => v(p.idOffset, 'PROPID_Q_ADS_PATH MUST NOT be included'));
  } else if (u.command === CMD_UPDATE) {
    if (type === 1) {
      if (!has(P.Q_QMID)) v(u.offset, 'queue update lacks PROPID_Q_QMID');
      u.properties.filter((p) => p.propid !== P.Q_QMID && !QUEUE_MODIFIABLE.has(p.propid))
        .forEach((p) => v(p.idOffset, `PROPID ${p.propid} is not a modifiable queue property (E-11 strict)`));
    } else if (type === 2) {
      if (!has(P.QM_MACHINE_ID) || !has(P.QM_FOREIGN)) v(u.offset, 'machine update lacks PROPID_QM_MACHINE_ID/PROPID_QM_FOREIGN');
      u.properties.filter((p) => !MACHINE_ALLOWED.has(p.propid))
        .forEach((p) => v(p.idOffset, `PROPID ${p.propid} is neither modifiable nor ignored on a machine (E-11 strict)`));
    } else {
      v(u.offset, 'an update MUST describe a queue or machine object');
    }
  } else if (u.command === CMD_DELETE) {
    if (ids.length !== 2 || ids[0] !== P.D_SCOPE || ids[1] !== P.D_OBJTYPE) {
      v(u.offset, 'a deletion carries exactly PROPID_D_SCOPE, PROPID_D_OBJTYPE');
    } else {
      if (u.properties[0].value !== MQDS_ENTERPRISESCOPE) v(u.properties[0].offset, 'PROPID_D_SCOPE MUST be MQDS_ENTERPRISESCOPE');
      if (u.properties[1].value !== MQDS_QUEUE) v(u.properties[1].offset, 'PROPID_D_OBJTYPE MUST be MQDS_QUEUE');
    }
  }
  return out;
}

// All content-rule violations of a decoded message (empty for Version 0x02: its body
// syntax is section 2 and already checked by the decoder), plus informational observations.
function contentViolations(msg) {
  if (msg.version !== 1) return { violations: [], observations: [] };
  const violations = [];
  const observations = [];
  for (const u of msg.updates) {
    violations.push(...updateViolations(u));
    if (u.reserved.some((b) => b !== 0)) observations.push({ section: 'MQCN-2.2.6', offset: u.offset, message: 'Reserved not zero (MAY be zero; ignored)' });
  }
  return { violations, observations };
}

module.exports = { objectTypeOf, contentViolations, updateViolations, valueProblem };
