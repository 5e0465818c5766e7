'use strict';
// A judge over one MSMQ message body: the strict wire decoder (section 2) plus the sender
// content rules of 3.3.5.2 (rules.js). `decoded` is what the server side would process.
const { decodeMessage, DecodeError } = require('./codec');
const { contentViolations } = require('./rules');

function judge(buf) {
  let msg;
  try {
    msg = decodeMessage(buf);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return { ok: false, decoded: null, violations: [{ section: e.section, offset: e.offset, message: e.message }], observations: [] };
  }
  const { violations, observations } = contentViolations(msg);
  return { ok: violations.length === 0, decoded: msg, violations, observations };
}

// The decoded message in the shape of the reference vectors' `expected` field.
function toVectorShape(msg) {
  const { PROPID_NAMES, VT_NAMES } = require('./constants');
  const val = (v) => {
    if (Buffer.isBuffer(v)) return v.toString('hex');
    if (typeof v === 'bigint') return Number(v);
    if (Array.isArray(v)) return v.map(val);
    return v;
  };
  const out = { version: msg.version, number_of_update_notifications: msg.count };
  if (msg.version === 1) {
    out.updates = msg.updates.map((u) => ({
      command: u.command, use_guid: u.useGuid, path_name: u.pathName,
      guid_identifier: u.guidIdentifier, guid_master_id: u.guidMasterId,
      reserved: u.reserved.toString('hex'), number_of_properties: u.properties.length,
      properties: u.properties.map((p) => ({ propid: p.propid, name: PROPID_NAMES.get(p.propid), vt: VT_NAMES[p.vt], value: val(p.value) })),
    }));
  } else {
    out.body = { event: msg.body.event, object_guid: msg.body.objectGuid, domain_controller: msg.body.domainController };
  }
  out.trailing = msg.trailing.toString('hex');
  return out;
}

module.exports = { judge, toVectorShape };
