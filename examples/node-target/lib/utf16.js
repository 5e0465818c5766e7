'use strict';
// UTF-16LE helpers. [MS-MQCN] strings are "Unicode strings": UTF-16LE code units, no BOM
// (glossary). JavaScript strings are sequences of UTF-16 code units too, so a decoded
// string keeps every unit (a lone surrogate survives), and we test well-formedness apart.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function hasLoneSurrogate(s) {
  return LONE_SURROGATE.test(s);
}

// Index (in code units) of the first lone surrogate, or -1.
function loneSurrogateIndex(s) {
  const m = LONE_SURROGATE.exec(s);
  return m ? m.index : -1;
}

function unitsToString(buf, start, end) {
  let s = '';
  for (let i = start; i + 1 < end; i += 2) s += String.fromCharCode(buf.readUInt16LE(i));
  return s;
}

function encode(s) {
  const out = Buffer.alloc(s.length * 2);
  for (let i = 0; i < s.length; i++) out.writeUInt16LE(s.charCodeAt(i), i * 2);
  return out;
}

// Null-terminated string starting at `offset`: scans 2-byte code units (a 0x00 0x00 pair at
// an odd offset is not a terminator). Returns {value, end} or null if no terminator.
function readNullTerminated(buf, offset) {
  for (let i = offset; i + 1 < buf.length; i += 2) {
    if (buf[i] === 0 && buf[i + 1] === 0) {
      return { value: unitsToString(buf, offset, i), end: i + 2 };
    }
  }
  return null;
}

module.exports = { hasLoneSurrogate, loneSurrogateIndex, unitsToString, encode, readNullTerminated };
