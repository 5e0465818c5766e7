'use strict';
// PROPVALUE (MS-MQCN 2.2.3): one property value on the wire, formatted by its PROPVARIANT
// type; numbers little-endian, arrays concatenated with no padding.
const { VT } = require('./constants');
const { DecodeError } = require('./errors');
const { guidFromBytes, guidToBytes } = require('./guid');
const utf16 = require('./utf16');

// Sections of 2.2.3.x per type, for error reports.
const SECTION = {
  [VT.I2]: '2.2.3.1', [VT.I4]: '2.2.3.2', [VT.BOOL]: '2.2.3.3', [VT.I1]: '2.2.3.4',
  [VT.UI1]: '2.2.3.5', [VT.UI2]: '2.2.3.6', [VT.UI4]: '2.2.3.7', [VT.I8]: '2.2.3.8',
  [VT.UI8]: '2.2.3.9', [VT.LPWSTR]: '2.2.3.10', [VT.BLOB]: '2.2.3.11', [VT.CLSID]: '2.2.3.12',
  [VT.UI4 | VT.VECTOR]: '2.2.3.13', [VT.CLSID | VT.VECTOR]: '2.2.3.14',
  [VT.LPWSTR | VT.VECTOR]: '2.2.3.15',
};

const FIXED = { [VT.I2]: 2, [VT.I4]: 4, [VT.BOOL]: 2, [VT.I1]: 1, [VT.UI1]: 1, [VT.UI2]: 2,
  [VT.UI4]: 4, [VT.I8]: 8, [VT.UI8]: 8, [VT.CLSID]: 16 };

function fail(vt, offset, msg) {
  throw new DecodeError('MQCN-' + SECTION[vt], offset, msg);
}

function readFixed(vt, buf, off) {
  const n = FIXED[vt];
  if (off + n > buf.length) fail(vt, off, `value needs ${n} bytes, ${Math.max(0, buf.length - off)} left`);
  switch (vt) {
    case VT.I2: return buf.readInt16LE(off);
    case VT.I4: return buf.readInt32LE(off);
    case VT.I1: return buf.readInt8(off);
    case VT.UI1: return buf.readUInt8(off);
    case VT.UI2: return buf.readUInt16LE(off);
    case VT.UI4: return buf.readUInt32LE(off);
    case VT.I8: return buf.readBigInt64LE(off);
    case VT.UI8: return buf.readBigUInt64LE(off);
    case VT.CLSID: return guidFromBytes(buf, off);
    case VT.BOOL: {
      // 2.2.3.3: only VARIANT_TRUE 0xFFFF and VARIANT_FALSE 0x0000 are values.
      const v = buf.readUInt16LE(off);
      if (v === 0xffff) return true;
      if (v === 0x0000) return false;
      return fail(vt, off, `VT_BOOL 0x${v.toString(16).padStart(4, '0')} is neither VARIANT_TRUE nor VARIANT_FALSE`);
    }
    default: throw new Error(`no fixed decoder for VT ${vt}`);
  }
}

// 2.2.3.10: null-terminated UTF-16LE. A lone surrogate is not UTF-16 (errata E-07, strict).
function readString(buf, off, vt = VT.LPWSTR) {
  const r = utf16.readNullTerminated(buf, off);
  if (!r) fail(vt, off, 'string without a 0x0000 terminator');
  const bad = utf16.loneSurrogateIndex(r.value);
  if (bad >= 0) throw new DecodeError('MQCN-2.2.3.10', off + 2 * bad, 'unpaired UTF-16 surrogate');
  return r;
}

function readSize(vt, buf, off) {
  if (off + 4 > buf.length) fail(vt, off, 'Size field cut short');
  return buf.readUInt32LE(off);
}

// Decode one value of type `vt` at `off`. Returns {value, end}.
// Values: numbers (BigInt for 8-byte), booleans, GUID text, strings, BLOB as Buffer, arrays.
function decodeValue(vt, buf, off) {
  if (vt in FIXED) return { value: readFixed(vt, buf, off), end: off + FIXED[vt] };
  if (vt === VT.LPWSTR) return readString(buf, off);
  const size = readSize(vt, buf, off);
  let p = off + 4;
  switch (vt) {
    case VT.BLOB:
      if (size > buf.length - p) fail(vt, off, `BLOB Size ${size} exceeds the ${buf.length - p} bytes left`);
      return { value: Buffer.from(buf.subarray(p, p + size)), end: p + size };
    case VT.UI4 | VT.VECTOR:
    case VT.CLSID | VT.VECTOR: {
      const el = vt === (VT.UI4 | VT.VECTOR) ? VT.UI4 : VT.CLSID;
      const w = FIXED[el];
      if (size > (buf.length - p) / w) fail(vt, off, `vector Size ${size} exceeds the data left`);
      const out = [];
      for (let i = 0; i < size; i++, p += w) out.push(readFixed(el, buf, p));
      return { value: out, end: p };
    }
    case VT.LPWSTR | VT.VECTOR: {
      // Each element takes at least 2 bytes (its terminator): cheap guard against huge Size.
      if (size > (buf.length - p) / 2) fail(vt, off, `vector Size ${size} exceeds the data left`);
      const out = [];
      for (let i = 0; i < size; i++) {
        const r = utf16.readNullTerminated(buf, p);
        if (!r) fail(vt, p, `element ${i} has no terminator`);
        const bad = utf16.loneSurrogateIndex(r.value);
        if (bad >= 0) throw new DecodeError('MQCN-2.2.3.10', p + 2 * bad, 'unpaired UTF-16 surrogate');
        out.push(r.value);
        p = r.end;
      }
      return { value: out, end: p };
    }
    default:
      throw new Error(`unknown VT ${vt}`);
  }
}

function encodeValue(vt, value) {
  let b;
  switch (vt) {
    case VT.I2: b = Buffer.alloc(2); b.writeInt16LE(value); return b;
    case VT.I4: b = Buffer.alloc(4); b.writeInt32LE(value); return b;
    case VT.I1: b = Buffer.alloc(1); b.writeInt8(value); return b;
    case VT.UI1: b = Buffer.alloc(1); b.writeUInt8(value); return b;
    case VT.UI2: b = Buffer.alloc(2); b.writeUInt16LE(value); return b;
    case VT.UI4: b = Buffer.alloc(4); b.writeUInt32LE(value >>> 0); return b;
    case VT.I8: b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(value)); return b;
    case VT.UI8: b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(value)); return b;
    case VT.BOOL: b = Buffer.alloc(2); b.writeUInt16LE(value ? 0xffff : 0); return b;
    case VT.CLSID: return guidToBytes(value);
    case VT.LPWSTR: return Buffer.concat([utf16.encode(value), Buffer.alloc(2)]);
    case VT.BLOB: {
      const data = Buffer.isBuffer(value) ? value : Buffer.from(value, 'hex');
      b = Buffer.alloc(4); b.writeUInt32LE(data.length);
      return Buffer.concat([b, data]);
    }
    case VT.UI4 | VT.VECTOR:
    case VT.CLSID | VT.VECTOR:
    case VT.LPWSTR | VT.VECTOR: {
      b = Buffer.alloc(4); b.writeUInt32LE(value.length);
      const el = vt & ~VT.VECTOR;
      return Buffer.concat([b, ...value.map((v) => encodeValue(el, v))]);
    }
    default: throw new Error(`unknown VT ${vt}`);
  }
}

module.exports = { decodeValue, encodeValue, SECTION };
