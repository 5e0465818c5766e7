'use strict';
// Notification Update (MS-MQCN 2.2.6), the Data of a Version 0x01 message:
//   Command (1) UseGuid (1) [PathName (UTF-16, null-terminated) | GuidIdentifier (16)]
//   GuidMasterId (16) Reserved (24) NumberOfProperties (1)
//   PropertyId[NumberOfProperties] (4 each) PropertyValue[NumberOfProperties] (by type)
const { PROPERTIES } = require('./constants');
const { DecodeError } = require('./errors');
const { guidFromBytes, guidToBytes } = require('./guid');
const { decodeValue, encodeValue } = require('./propvalue');
const { pathNameProblem } = require('./pathname');
const utf16 = require('./utf16');

const sec = 'MQCN-2.2.6';

// Decode one update starting at `start`. Returns {update, end}; throws DecodeError.
function decodeUpdate(buf, start) {
  let p = start;
  if (p + 2 > buf.length) throw new DecodeError(sec, p, 'update cut short before UseGuid');
  const command = buf[p];
  // 2.2.6 Command: MUST be 0x00, 0x01 or 0x02.
  if (command > 0x02) throw new DecodeError(sec, p, `Command 0x${command.toString(16)} is not 0x00/0x01/0x02`);
  const useGuid = buf[p + 1];
  // 2.2.6 UseGuid: MUST be 0x00 or 0x01.
  if (useGuid > 0x01) throw new DecodeError(sec, p + 1, `UseGuid 0x${useGuid.toString(16)} is not 0x00/0x01`);
  p += 2;

  let pathName = null;
  let guidIdentifier = null;
  if (useGuid === 0x00) {
    // PathName: null-terminated Unicode string following PROPID_Q_PATHNAME's rules.
    const r = utf16.readNullTerminated(buf, p);
    if (!r) throw new DecodeError(sec, p, 'PathName has no terminator');
    const bad = utf16.loneSurrogateIndex(r.value);
    if (bad >= 0) throw new DecodeError(sec, p + 2 * bad, 'PathName holds an unpaired surrogate');
    const problem = pathNameProblem(r.value);
    if (problem) throw new DecodeError(sec, p, `PathName ${JSON.stringify(r.value)}: ${problem}`);
    pathName = r.value;
    p = r.end;
  } else {
    if (p + 16 > buf.length) throw new DecodeError(sec, p, 'GuidIdentifier cut short');
    guidIdentifier = guidFromBytes(buf, p);
    p += 16;
  }

  // GuidMasterId (16), Reserved (24, ignored by the server), NumberOfProperties (1).
  if (p + 41 > buf.length) throw new DecodeError(sec, p, 'GuidMasterId/Reserved/NumberOfProperties cut short');
  const guidMasterId = guidFromBytes(buf, p);
  const reserved = Buffer.from(buf.subarray(p + 16, p + 40));
  const count = buf[p + 40];
  p += 41;

  // PropertyId array: exactly NumberOfProperties ULONGs; each MUST be a valid PROPID (2.2.2),
  // and only the PROPIDs of 2.2.2.1 have a type we can decode (errata E-09).
  if (p + 4 * count > buf.length) throw new DecodeError(sec, p, `PropertyId array of ${count} cut short`);
  const ids = [];
  for (let i = 0; i < count; i++) ids.push(buf.readUInt32LE(p + 4 * i));
  for (let i = 0; i < count; i++) {
    if (!PROPERTIES.has(ids[i])) throw new DecodeError('MQCN-2.2.2', p + 4 * i, `PropertyId ${ids[i]} is not a PROPID of 2.2.2.1`);
  }
  p += 4 * count;

  const properties = [];
  const idsAt = p - 4 * count;
  for (const [i, propid] of ids.entries()) {
    const vt = PROPERTIES.get(propid);
    const r = decodeValue(vt, buf, p);
    // offset: where the value starts; idOffset: where its PropertyId is.
    properties.push({ propid, vt, value: r.value, offset: p, idOffset: idsAt + 4 * i });
    p = r.end;
  }
  return {
    update: { command, useGuid, pathName, guidIdentifier, guidMasterId, reserved, properties, offset: start },
    end: p,
  };
}

// Encode an update {command, useGuid, pathName, guidIdentifier, guidMasterId, reserved?,
// properties: [{propid, value}]}. The builder does not check content rules (rules.js does).
function encodeUpdate(u) {
  const parts = [Buffer.from([u.command, u.useGuid])];
  if (u.useGuid === 0) parts.push(utf16.encode(u.pathName), Buffer.alloc(2));
  else parts.push(guidToBytes(u.guidIdentifier));
  parts.push(guidToBytes(u.guidMasterId));
  parts.push(u.reserved ? Buffer.from(u.reserved) : Buffer.alloc(24)); // MAY be zero (2.2.6)
  parts.push(Buffer.from([u.properties.length]));
  for (const prop of u.properties) {
    const id = Buffer.alloc(4); id.writeUInt32LE(prop.propid); parts.push(id);
  }
  for (const prop of u.properties) parts.push(encodeValue(PROPERTIES.get(prop.propid), prop.value));
  return Buffer.concat(parts);
}

module.exports = { decodeUpdate, encodeUpdate };
