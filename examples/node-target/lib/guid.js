'use strict';
// GUID ([MS-DTYP] 2.3.4.2, MS-MQCN 2.2.1): 16 bytes, Data1 (4 bytes) Data2 (2) Data3 (2)
// little-endian, Data4 (8 bytes) in array order. Text form 8-4-4-4-12, lower case.

const TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const NIL = '00000000-0000-0000-0000-000000000000';

function isGuidText(s) {
  return typeof s === 'string' && TEXT.test(s);
}

function normalize(s) {
  if (!isGuidText(s)) throw new TypeError(`not a GUID: ${JSON.stringify(s)}`);
  return s.toLowerCase();
}

// bytes (16, MS-DTYP layout) -> text
function guidFromBytes(buf, offset = 0) {
  const b = buf.subarray(offset, offset + 16);
  const hex = (i, n) => Buffer.from(b.subarray(i, i + n)).toString('hex');
  const rev = (i, n) => Buffer.from(b.subarray(i, i + n)).reverse().toString('hex');
  return `${rev(0, 4)}-${rev(4, 2)}-${rev(6, 2)}-${hex(8, 2)}-${hex(10, 6)}`;
}

// text -> bytes (16, MS-DTYP layout)
function guidToBytes(text) {
  const h = normalize(text).replace(/-/g, '');
  const out = Buffer.alloc(16);
  Buffer.from(h.slice(0, 8), 'hex').reverse().copy(out, 0);
  Buffer.from(h.slice(8, 12), 'hex').reverse().copy(out, 4);
  Buffer.from(h.slice(12, 16), 'hex').reverse().copy(out, 6);
  Buffer.from(h.slice(16), 'hex').copy(out, 8);
  return out;
}

module.exports = { NIL, isGuidText, normalize, guidFromBytes, guidToBytes };
