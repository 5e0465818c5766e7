'use strict';
// [MS-MQDSSM] as a Read Directory needs it, pure (no socket): which LDAP attributes to ask
// for (3.1.6.10), how a GUID is written in a search filter (3.1.6.19 and AD practice), how
// an LDAP result code becomes a DirectoryOperationResult (2.2.6), and how the values an
// LDAP search returned become a Queue or QueueManager ADM element (3.1.6.11), with the
// defaults and error rows of its tables. lib/ldap.js does the I/O around these functions.
//
// Values come in as `{ lowercased LDAP attribute name: [Buffer, ...] }` (LDAP names compare
// without case) plus the entry's DN; the ADM element goes out in this target's JSON form
// (lib/adm.js: GUIDs as lower-case text, security descriptors as hex).
const { guidFromBytes, guidToBytes, normalize } = require('./guid');
const { makeQueue, canonicalQueueAttribute } = require('./adm');

// DirectoryOperationResult ([MS-MQDMPR] 3.1.1.17): how a directory operation ended.
const Status = Object.freeze({
  Success: 'Success', GenericError: 'GenericError', DirectoryNotConnected: 'DirectoryNotConnected',
  ObjectNotFound: 'ObjectNotFound', AttributeNotFound: 'AttributeNotFound', EndOfData: 'EndOfData',
  ObjectAlreadyExists: 'ObjectAlreadyExists',
});

// A Read Directory that did not succeed: rDirectoryObject is undefined, only rStatus (and,
// for the log, why) is known.
class ReadFailure {
  constructor(status, reason) { this.status = status; this.reason = reason; }
  toString() { return `${this.status} (${this.reason})`; }
}
const isFailure = (x) => x instanceof ReadFailure;

// 2.2.6: LDAP result code -> DirectoryOperationResult.
function statusOfLdapCode(code) {
  switch (code) {
    case 0: return Status.Success;
    case 32: return Status.ObjectNotFound; // noSuchObject
    case 16: return Status.AttributeNotFound; // noSuchAttribute
    case 68: return Status.ObjectAlreadyExists; // entryAlreadyExists
    default: return Status.GenericError;
  }
}

// 3.1.6.10.2 / 3.1.6.10.1: ADM attribute -> the LDAP attribute(s) of mSMQQueue /
// mSMQConfiguration it is computed from (only the attributes a Read Directory of MS-MQCN
// 3.2.5.2 can name, plus the identity ones).
const QUEUE_LDAP = Object.freeze({
  Identifier: ['objectGUID'], Label: ['mSMQLabelEx'], CreateTime: ['whenCreated'],
  ModifyTime: ['whenChanged'], Type: ['mSMQQueueType'],
  Pathname: ['distinguishedName', 'mSMQQueueNameExt'], Journaling: ['mSMQJournal'],
  Quota: ['mSMQQueueQuota'], JournalQuota: ['mSMQQueueJournalQuota'],
  Authentication: ['mSMQAuthenticate'], PrivacyLevel: ['mSMQPrivacyLevel'],
  Transactional: ['mSMQTransactional'], MulticastAddress: ['MSMQ-MulticastAddress'],
  Security: ['nTSecurityDescriptor'], BasePriority: ['mSMQBasePriority'],
  FullPath: ['distinguishedName'], DirectoryPath: ['distinguishedName'],
});
const QM_LDAP = Object.freeze({
  Identifier: ['objectGUID'], QueueManagerVersion: ['mSMQComputerTypeEx'],
  OperatingSystemType: ['mSMQOSType'], CreateTime: ['whenCreated'], ModifyTime: ['whenChanged'],
  QueueManagerQuota: ['mSMQQuota'], JournalQuota: ['mSMQJournalQuota'],
  ForeignSystem: ['mSMQForeign'], FullPath: ['distinguishedName'], Security: ['nTSecurityDescriptor'],
});

// The LDAP attributes a Read Directory of `admNames` asks for, in the order of the ADM list
// (3.1.6.10), each once; Get Object Properties adds objectGUID and distinguishedName
// (3.1.6.14). ADM names not in the table are ignored (3.1.6.10.x), e.g. Scope. MS-MQCN's
// spellings ("Journal") are the 3.1.1.3 names (errata E-17).
function ldapAttributesFor(objectType, admNames) {
  const table = objectType === 'Queue' ? QUEUE_LDAP : QM_LDAP;
  const out = [];
  const add = (name) => { if (!out.some((x) => x.toLowerCase() === name.toLowerCase())) out.push(name); };
  for (const name of admNames) {
    const attr = objectType === 'Queue' ? canonicalQueueAttribute(name) : name;
    for (const ldap of table[attr] || []) add(ldap);
  }
  add('objectGUID');
  add('distinguishedName');
  return out;
}

// ---- finding an object by its Identifier (3.1.6.19; errata: AD practice) -------------------
// The letter: CompactGuid = the hex digits of the braced string form, in string order.
const compactGuid = (guid) => normalize(guid).replace(/-/g, '');
// AD practice: the 16 bytes of objectGUID in [MS-DTYP] order, each escaped `\xx` (RFC 4515).
const escapedGuid = (guid) => [...guidToBytes(guid)].map((b) => `\\${b.toString(16).padStart(2, '0')}`).join('');
// The filter this target sends, as text (what a server log shows).
const guidFilterText = (guid) => `(objectGUID=${escapedGuid(guid)})`;

// ---- DNs (RFC 4514) and the 2.2.1 layout ----------------------------------------------------
// Parse a DN string into its RDNs [{type, value}], most specific first. Escapes `\,` `\\` ...
// and `\xx` hex pairs (which may spell UTF-8 bytes) are undone. A multi-valued RDN (`+`) or a
// component without `=` is an error (a TypeError naming the DN).
function parseDn(dn) {
  if (typeof dn !== 'string' || dn === '') throw new TypeError('empty distinguished name');
  const rdns = [];
  let i = 0;
  while (i < dn.length) {
    while (dn[i] === ' ') i++;
    const eq = dn.indexOf('=', i);
    if (eq < 0) throw new TypeError(`DN ${JSON.stringify(dn)}: component without "="`);
    const type = dn.slice(i, eq).trim();
    i = eq + 1;
    const bytes = [];
    let done = false;
    while (i < dn.length && !done) {
      const c = dn[i];
      if (c === '\\') {
        const pair = dn.slice(i + 1, i + 3);
        if (/^[0-9a-fA-F]{2}$/.test(pair)) { bytes.push(parseInt(pair, 16)); i += 3; continue; }
        if (i + 1 >= dn.length) throw new TypeError(`DN ${JSON.stringify(dn)}: "\\" at the end`);
        bytes.push(...Buffer.from(dn[i + 1], 'utf8')); i += 2; continue;
      }
      if (c === ',') { done = true; i++; continue; }
      if (c === '+') throw new TypeError(`DN ${JSON.stringify(dn)}: multi-valued RDN`);
      const cp = dn.codePointAt(i);
      const ch = String.fromCodePoint(cp);
      bytes.push(...Buffer.from(ch, 'utf8'));
      i += ch.length;
    }
    if (!type) throw new TypeError(`DN ${JSON.stringify(dn)}: component without a type`);
    rdns.push({ type, value: Buffer.from(bytes).toString('utf8').replace(/ +$/, '') });
  }
  return rdns;
}

// 2.2.1: CN=<queue name>,CN=msmq,CN=<computer name>,CN=Computers,<root>. Returns
// {computer, queue} or throws a TypeError saying what does not fit.
function queueDnParts(dn) {
  const r = parseDn(dn);
  const cn = (k) => r[k] && r[k].type.toLowerCase() === 'cn';
  if (r.length < 5 || !cn(0) || !cn(1) || !cn(2) || !cn(3)
      || r[1].value.toLowerCase() !== 'msmq' || r[3].value.toLowerCase() !== 'computers') {
    throw new TypeError(`DN ${JSON.stringify(dn)} is not CN=<queue>,CN=msmq,CN=<computer>,CN=Computers,<root> (MS-MQDSSM 2.2.1)`);
  }
  return { computer: r[2].value, queue: r[0].value };
}

// 3.1.6.11.2.1: Pathname = lowercase(computer "\" queue-name-without-backslashes [ext]), where
// a 64-character queue name (a hashed long name, 2.2.5) loses its last 9 characters and
// mSMQQueueNameExt is appended.
function pathnameFromDn(dn, ext) {
  const { computer, queue } = queueDnParts(dn);
  let qName = queue;
  let extName = '';
  if ([...qName].length === 64) {
    extName = ext || '';
    qName = [...qName].slice(0, 55).join('');
  }
  return `${computer}\\${qName.replace(/\\/g, '')}${extName}`.toLowerCase();
}

// ---- LDAP syntaxes -> ADM values ------------------------------------------------------------
// GeneralizedTime (RFC 4517 3.3.13): YYYYMMDDHH[MM[SS]][(.|,)fraction](Z|+hhmm|-hhmm)
// -> whole seconds since 1970-01-01T00:00:00Z (negative before 1970; a fraction is dropped,
// rounding towards the past).
const GT = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})?(\d{2})?(?:[.,](\d+))?(Z|[+-]\d{2}(?:\d{2})?)$/;
function epochSecondsOfGeneralizedTime(text) {
  const m = GT.exec(text);
  if (!m) throw new TypeError(`${JSON.stringify(text)} is not a GeneralizedTime`);
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const month = Number(mo); const day = Number(d); const hour = Number(h);
  const min = mi === undefined ? 0 : Number(mi); const sec = s === undefined ? 0 : Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60) {
    throw new TypeError(`${JSON.stringify(text)} is not a GeneralizedTime (a field is out of range)`);
  }
  const date = new Date(0);
  date.setUTCFullYear(Number(y), month - 1, day); // setUTCFullYear: years 0..99 stay as written
  if (date.getUTCDate() !== day) throw new TypeError(`${JSON.stringify(text)}: no such day`);
  date.setUTCHours(hour, min, Math.min(sec, 59), 0);
  let seconds = Math.floor(date.getTime() / 1000);
  // A fraction applies to the last field given (hours or minutes or seconds).
  if (frac !== undefined) {
    const unit = s !== undefined ? 1 : mi !== undefined ? 60 : 3600;
    seconds += Math.floor(Number(`0.${frac}`) * unit);
  }
  if (zone !== 'Z') {
    const sign = zone[0] === '+' ? 1 : -1;
    const offset = Number(zone.slice(1, 3)) * 3600 + (zone.length > 3 ? Number(zone.slice(3, 5)) * 60 : 0);
    seconds -= sign * offset;
  }
  return seconds;
}

// Integer syntax (RFC 4517 3.3.16): a decimal, optionally negative.
function integerOf(text) {
  if (!/^-?(0|[1-9]\d*)$/.test(text)) throw new TypeError(`${JSON.stringify(text)} is not an Integer`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new TypeError(`${text} is out of range`);
  return n;
}
// An unsigned 32-bit ADM quota stored in AD's 32-bit signed Integer: read back masked
// (errata D-05).
const unsigned32Of = (text) => {
  const n = integerOf(text);
  if (n < -(2 ** 31) || n >= 2 ** 32) throw new TypeError(`${text} does not fit 32 bits`);
  return n >>> 0;
};
// Boolean syntax (RFC 4517 3.3.3) is TRUE / FALSE; MS-MQDSSM writes the same values as 1 / 0
// (errata D-04)
// (3.1.6.11: "equals 1 ... equals 0"), which is accepted too.
function booleanOf(text) {
  if (text === 'TRUE' || text === '1') return 1;
  if (text === 'FALSE' || text === '0') return 0;
  throw new TypeError(`${JSON.stringify(text)} is not a Boolean (TRUE/FALSE)`);
}
// 3.1.6.11.2.3: mSMQPrivacyLevel 0 None, 1 Optional, 2 Body.
function privacyLevelOf(text) {
  const n = integerOf(text);
  if (n !== 0 && n !== 1 && n !== 2) throw new TypeError(`${n} is not a PrivacyLevel (0, 1 or 2; MS-MQDSSM 3.1.6.11.2.3)`);
  return n;
}
function guidOf(buf) {
  if (buf.length !== 16) throw new TypeError(`a GUID is 16 bytes, got ${buf.length}`);
  return guidFromBytes(buf);
}
const textOf = (buf) => buf.toString('utf8');

// One row of a 3.1.6.11 table: the LDAP attribute it is computed from, the conversion, and
// the value when the attribute is empty (ERROR: the read fails with GenericError).
const ERROR = Symbol('error');
const row = (ldap, convert, absent) => ({ ldap, convert, absent });
const QUEUE_ROWS = Object.freeze({
  Identifier: row('objectGUID', guidOf, ERROR),
  Label: row('mSMQLabelEx', textOf, ''),
  CreateTime: row('whenCreated', (b) => epochSecondsOfGeneralizedTime(textOf(b)), ERROR),
  ModifyTime: row('whenChanged', (b) => epochSecondsOfGeneralizedTime(textOf(b)), ERROR),
  Type: row('mSMQQueueType', guidOf, '00000000-0000-0000-0000-000000000000'),
  Journaling: row('mSMQJournal', (b) => booleanOf(textOf(b)), 0),
  Quota: row('mSMQQueueQuota', (b) => unsigned32Of(textOf(b)), 0xFFFFFFFF),
  JournalQuota: row('mSMQQueueJournalQuota', (b) => unsigned32Of(textOf(b)), 0xFFFFFFFF),
  Authentication: row('mSMQAuthenticate', (b) => booleanOf(textOf(b)), 0),
  PrivacyLevel: row('mSMQPrivacyLevel', (b) => privacyLevelOf(textOf(b)), 1),
  Transactional: row('mSMQTransactional', (b) => booleanOf(textOf(b)), 0),
  MulticastAddress: row('MSMQ-MulticastAddress', textOf, ''),
  Security: row('nTSecurityDescriptor', (b) => b.toString('hex'), ERROR),
  BasePriority: row('mSMQBasePriority', (b) => integerOf(textOf(b)), 0),
});
const QM_ROWS = Object.freeze({
  Identifier: row('objectGUID', guidOf, ERROR),
  QueueManagerVersion: row('mSMQComputerTypeEx', textOf, ''),
  CreateTime: row('whenCreated', (b) => epochSecondsOfGeneralizedTime(textOf(b)), ERROR),
  ModifyTime: row('whenChanged', (b) => epochSecondsOfGeneralizedTime(textOf(b)), ERROR),
  QueueManagerQuota: row('mSMQQuota', (b) => unsigned32Of(textOf(b)), 0x00100000),
  JournalQuota: row('mSMQJournalQuota', (b) => unsigned32Of(textOf(b)), 0xFFFFFFFF),
  ForeignSystem: row('mSMQForeign', (b) => booleanOf(textOf(b)), 0),
  Security: row('nTSecurityDescriptor', (b) => b.toString('hex'), ERROR),
});

// The single value of an attribute, or undefined when the entry has none (a multi-valued
// answer for these single-valued attributes takes the first value).
function single(values, ldapName) {
  const v = values[ldapName.toLowerCase()];
  if (!v || v.length === 0) return undefined;
  return Buffer.isBuffer(v[0]) ? v[0] : Buffer.from(String(v[0]), 'utf8');
}

// Set one ADM attribute from its table row; returns a ReadFailure or undefined.
function setFromRow(out, attr, r, values, section) {
  const buf = single(values, r.ldap);
  if (buf === undefined) {
    if (r.absent === ERROR) return new ReadFailure(Status.GenericError, `${r.ldap} is empty, which is an error for ${attr} (MS-MQDSSM ${section})`);
    out[attr] = r.absent;
    return undefined;
  }
  try {
    out[attr] = r.convert(buf);
  } catch (e) {
    return new ReadFailure(Status.GenericError, `${r.ldap} for ${attr}: ${e.message} (MS-MQDSSM ${section})`);
  }
  return undefined;
}

// 3.1.6.11.2: a Queue ADM element from the values of one mSMQQueue entry at `dn`, with the
// attributes `admNames` set (MS-MQCN spellings accepted) and every other attribute at its
// Set Queue Defaults value. Returns the element or a ReadFailure.
function queueFromLdap(values, dn, admNames) {
  const out = makeQueue();
  for (const name of admNames) {
    const attr = canonicalQueueAttribute(name);
    if (attr === 'Pathname') {
      if (!dn) return new ReadFailure(Status.GenericError, 'distinguishedName is empty (MS-MQDSSM 3.1.6.11.2.1)');
      const ext = single(values, 'mSMQQueueNameExt');
      try {
        out.Pathname = pathnameFromDn(dn, ext && textOf(ext));
      } catch (e) {
        return new ReadFailure(Status.GenericError, `Pathname: ${e.message} (MS-MQDSSM 3.1.6.11.2.1)`);
      }
    } else if (attr === 'DirectoryPath') {
      if (!dn) return new ReadFailure(Status.GenericError, 'distinguishedName is empty, an error for DirectoryPath (MS-MQDSSM 3.1.6.11.2)');
      out.DirectoryPath = `LDAP://${dn}`;
    } else if (QUEUE_ROWS[attr]) {
      const failed = setFromRow(out, attr, QUEUE_ROWS[attr], values, '3.1.6.11.2');
      if (failed) return failed;
    }
    // other names (Scope, ...) have no row in 3.1.6.11.2 and are left at their defaults
  }
  return out;
}

// 3.1.6.11.1: the QueueManager attributes `admNames` from the values of one
// mSMQConfiguration entry. Returns {name: value} for exactly those names, or a ReadFailure.
function queueManagerFromLdap(values, dn, admNames) {
  const out = {};
  for (const attr of admNames) {
    if (attr === 'FullPath') {
      if (!dn) return new ReadFailure(Status.GenericError, 'distinguishedName is empty, an error for FullPath (MS-MQDSSM 3.1.6.11.1)');
      out.FullPath = dn;
    } else if (QM_ROWS[attr]) {
      const failed = setFromRow(out, attr, QM_ROWS[attr], values, '3.1.6.11.1');
      if (failed) return failed;
    } else {
      return new ReadFailure(Status.GenericError, `QueueManager attribute ${attr} is not read by this target`);
    }
  }
  return out;
}

// ldapts' search entry {dn, attr: value | [values]} -> {lowercased attr: [Buffer]}.
function valuesOfEntry(entry) {
  const out = {};
  for (const [k, v] of Object.entries(entry)) {
    if (k === 'dn') continue;
    const list = Array.isArray(v) ? v : [v];
    out[k.toLowerCase()] = list.map((x) => (Buffer.isBuffer(x) ? x : Buffer.from(String(x), 'utf8')));
  }
  return out;
}

module.exports = {
  Status, ReadFailure, isFailure, statusOfLdapCode, ldapAttributesFor, QUEUE_LDAP, QM_LDAP,
  compactGuid, escapedGuid, guidFilterText, parseDn, queueDnParts, pathnameFromDn,
  epochSecondsOfGeneralizedTime, integerOf, unsigned32Of, booleanOf, privacyLevelOf,
  queueFromLdap, queueManagerFromLdap, valuesOfEntry,
};
