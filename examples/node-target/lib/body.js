'use strict';
// Notification Body (MS-MQCN 2.2.5), the Data of a Version 0x02 message: a Unicode
// (UTF-16LE, no BOM) string matching the ABNF
//   "<Notification>" "<Event>" event "</Event>" "<ObjectGuid>" object-guid "</ObjectGuid>"
//   "<DomainController>" 1*256VCHAR "</DomainController>" "</Notification>"
// Readings: ABNF quoted strings are case-insensitive (RFC 5234 2.3, errata E-02), so tags
// and hex digits match in any case; the closing tag is "</ObjectGuid>" as in the template
// (E-01 strict: the ABNF's "</ObjectGuid >" with a space is not accepted); one trailing
// U+0000 is tolerated, a BOM is not (E-03); object-guid is 8-4-4-4-12 (E-04).
const { DecodeError } = require('./errors');
const utf16 = require('./utf16');

const sec = 'MQCN-2.2.5';

// ASCII-only case folding: String#toLowerCase would also fold e.g. U+212A KELVIN SIGN to
// 'k', which the ABNF (ASCII literals) must not match.
function foldAscii(s) {
  return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

const HEX = /^[0-9A-Fa-f]$/;
function isObjectGuid(s) {
  if (s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) { if (s[i] !== '-') return false; }
    else if (!HEX.test(s[i])) return false;
  }
  return true;
}

// `data` = the message bytes after Version and NumberOfUpdateNotifications; `base` = their
// offset in the message (for error reports). Returns {event, objectGuid, domainController, trailing}.
function decodeBody(data, base = 2) {
  // An odd byte count means the last byte is the unused byte of 3.3.5.3.
  const textLen = data.length - (data.length % 2);
  const trailing = Buffer.from(data.subarray(textLen));
  let s = utf16.unitsToString(data, 0, textLen);
  if (s.endsWith('\u0000')) s = s.slice(0, -1); // E-03: one terminator is tolerated
  const at = (i) => base + 2 * i;
  const bad = utf16.loneSurrogateIndex(s);
  if (bad >= 0) throw new DecodeError(sec, at(bad), 'body holds an unpaired surrogate');
  if (s.startsWith('\uFEFF')) throw new DecodeError(sec, at(0), 'byte-order mark before the body');

  let i = 0;
  const literal = (lit) => {
    if (foldAscii(s.slice(i, i + lit.length)) !== foldAscii(lit)) {
      throw new DecodeError(sec, at(i), `expected ${lit}`);
    }
    i += lit.length;
  };

  literal('<Notification>');
  literal('<Event>');
  const ev = s[i];
  if (!(ev >= '1' && ev <= '4')) throw new DecodeError(sec, at(i), 'Event MUST be 1, 2, 3 or 4');
  i += 1;
  literal('</Event>');
  literal('<ObjectGuid>');
  const guid = s.slice(i, i + 36);
  if (!isObjectGuid(guid)) throw new DecodeError(sec, at(i), 'ObjectGuid is not 8-4-4-4-12 hex digits');
  i += 36;
  literal('</ObjectGuid>');
  literal('<DomainController>');
  // DirectoryServiceServer = 1*256(VCHAR), and VCHAR includes '<' and '>': the name is
  // everything up to the closing tags that end the string.
  const tail = '</DomainController></Notification>';
  const endName = s.length - tail.length;
  if (endName < i || foldAscii(s.slice(endName)) !== foldAscii(tail)) {
    throw new DecodeError(sec, at(Math.max(i, endName)), 'body does not end with </DomainController></Notification>');
  }
  const name = s.slice(i, endName);
  if (name.length < 1 || name.length > 256) throw new DecodeError(sec, at(i), 'DomainController name must be 1..256 characters');
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k);
    if (c < 0x21 || c > 0x7e) throw new DecodeError(sec, at(i + k), 'DomainController name character outside VCHAR');
  }
  return { event: ev.charCodeAt(0) - 0x30, objectGuid: guid.toLowerCase(), domainController: name, trailing };
}

// Build the body text (template casing, lower-case GUID, no terminator).
function encodeBody(event, objectGuid, domainController) {
  const text = `<Notification><Event>${event}</Event><ObjectGuid>${objectGuid.toLowerCase()}</ObjectGuid>` +
    `<DomainController>${domainController}</DomainController></Notification>`;
  return utf16.encode(text);
}

module.exports = { decodeBody, encodeBody };
