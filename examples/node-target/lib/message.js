'use strict';
// Change Notification Message (MS-MQCN 2.2.4): Version (1) NumberOfUpdateNotifications (1)
// Data. Version 0x01: Data is NumberOfUpdateNotifications Notification Updates back to back;
// Version 0x02: NumberOfUpdateNotifications MUST be 1 and Data is one Notification Body.
// The MSMQ message body carries the message plus one unused byte (3.3.5.3), so one byte
// after the structure is fine (any value); more is data the count does not account for
// (errata E-05, strict) and the message is malformed.
const { VERSION_DS, VERSION_QM } = require('./constants');
const { DecodeError } = require('./errors');
const { decodeUpdate, encodeUpdate } = require('./update');
const { decodeBody, encodeBody } = require('./body');

const sec = 'MQCN-2.2.4';

function decodeMessage(buf) {
  if (buf.length < 1) throw new DecodeError(sec, 0, 'empty message: no Version');
  const version = buf[0];
  if (version !== VERSION_DS && version !== VERSION_QM) {
    throw new DecodeError(sec, 0, `Version 0x${version.toString(16)} is neither 0x01 nor 0x02`);
  }
  if (buf.length < 2) throw new DecodeError(sec, 1, 'no NumberOfUpdateNotifications');
  const count = buf[1];

  if (version === VERSION_QM) {
    if (count !== 1) throw new DecodeError(sec, 1, `Version 0x02 with NumberOfUpdateNotifications ${count}, MUST be 1`);
    const body = decodeBody(buf.subarray(2), 2);
    return { version, count, body, trailing: body.trailing };
  }

  const updates = [];
  let p = 2;
  for (let k = 0; k < count; k++) {
    // Nothing left but (at most) the spare byte: the count announces more updates than Data holds.
    if (buf.length - p <= 1) throw new DecodeError(sec, 1, `NumberOfUpdateNotifications ${count}, only ${k} updates present`);
    const r = decodeUpdate(buf, p);
    updates.push(r.update);
    p = r.end;
  }
  if (buf.length - p > 1) {
    throw new DecodeError(sec, p, `${buf.length - p} bytes after the last announced update (at most the 1 spare byte of 3.3.5.3)`);
  }
  return { version, count, updates, trailing: Buffer.from(buf.subarray(p)) };
}

// Build a message. For Version 0x01 pass {version: 1, updates: [...]}, for Version 0x02
// {version: 2, event, objectGuid, domainController}.
function encodeMessage(m) {
  if (m.version === VERSION_DS) {
    return Buffer.concat([Buffer.from([VERSION_DS, m.updates.length]), ...m.updates.map(encodeUpdate)]);
  }
  return Buffer.concat([Buffer.from([VERSION_QM, 1]), encodeBody(m.event, m.objectGuid, m.domainController)]);
}

module.exports = { decodeMessage, encodeMessage };
