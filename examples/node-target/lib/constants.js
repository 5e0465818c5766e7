'use strict';
// Constants of [MS-MQCN] and the [MS-MQMQ] facts it leans on.
// Sources: MS-MQCN 2.2.2.1 (PROPID values), MS-MQMQ 2.3 (the PROPVARIANT type of each
// PROPID, via the [MS-MQMQ] property tables), MS-MQMQ 2.2.12 (VT codes).

// PROPVARIANT type codes ([MS-MQMQ] 2.2.12). The wire carries no type: it follows from
// the PROPID (MS-MQCN 2.2.3), so these codes only name the decoders.
const VT = Object.freeze({
  I2: 2, I4: 3, BOOL: 11, I1: 16, UI1: 17, UI2: 18, UI4: 19, I8: 20, UI8: 21,
  LPWSTR: 31, BLOB: 65, CLSID: 72, VECTOR: 0x1000,
});

const VT_NAMES = Object.freeze({
  [VT.I2]: 'VT_I2', [VT.I4]: 'VT_I4', [VT.BOOL]: 'VT_BOOL', [VT.I1]: 'VT_I1',
  [VT.UI1]: 'VT_UI1', [VT.UI2]: 'VT_UI2', [VT.UI4]: 'VT_UI4', [VT.I8]: 'VT_I8',
  [VT.UI8]: 'VT_UI8', [VT.LPWSTR]: 'VT_LPWSTR', [VT.BLOB]: 'VT_BLOB', [VT.CLSID]: 'VT_CLSID',
  [VT.UI4 | VT.VECTOR]: 'VT_UI4 | VT_VECTOR',
  [VT.CLSID | VT.VECTOR]: 'VT_CLSID | VT_VECTOR',
  [VT.LPWSTR | VT.VECTOR]: 'VT_LPWSTR | VT_VECTOR',
});

// The 31 PROPIDs of MS-MQCN 2.2.2.1 with their [MS-MQMQ] 2.3 types. Only these have a
// known wire size, so any other PROPID makes a Notification Update undecodable (2.2.2:
// "MUST be filled with a valid property identifier"; see errata E-09).
const P = Object.freeze({
  Q_INSTANCE: 101, Q_TYPE: 102, Q_PATHNAME: 103, Q_JOURNAL: 104, Q_QUOTA: 105,
  Q_BASEPRIORITY: 106, Q_JOURNAL_QUOTA: 107, Q_LABEL: 108, Q_CREATE_TIME: 109,
  Q_MODIFY_TIME: 110, Q_AUTHENTICATE: 111, Q_PRIV_LEVEL: 112, Q_TRANSACTION: 113,
  Q_SCOPE: 114, Q_QMID: 115, Q_MULTICAST_ADDRESS: 125, Q_ADS_PATH: 126, Q_SECURITY: 1101,
  QM_SITE_ID: 201, QM_MACHINE_ID: 202, QM_ADDRESS: 206, QM_CNS: 207, QM_QUOTA: 214,
  QM_JOURNAL_QUOTA: 215, QM_MACHINE_TYPE: 216, QM_MODIFY_TIME: 218, QM_FOREIGN: 219,
  QM_OS: 220, QM_SECURITY: 1201, D_SCOPE: 1403, D_OBJTYPE: 1404,
});

const PROPERTIES = new Map([
  [P.Q_INSTANCE, VT.CLSID], [P.Q_TYPE, VT.CLSID], [P.Q_PATHNAME, VT.LPWSTR],
  [P.Q_JOURNAL, VT.UI1], [P.Q_QUOTA, VT.UI4], [P.Q_BASEPRIORITY, VT.I2],
  [P.Q_JOURNAL_QUOTA, VT.UI4], [P.Q_LABEL, VT.LPWSTR], [P.Q_CREATE_TIME, VT.I4],
  [P.Q_MODIFY_TIME, VT.I4], [P.Q_AUTHENTICATE, VT.UI1], [P.Q_PRIV_LEVEL, VT.UI4],
  [P.Q_TRANSACTION, VT.UI1], [P.Q_SCOPE, VT.UI1], [P.Q_QMID, VT.CLSID],
  [P.Q_MULTICAST_ADDRESS, VT.LPWSTR], [P.Q_ADS_PATH, VT.LPWSTR], [P.Q_SECURITY, VT.BLOB],
  [P.QM_SITE_ID, VT.CLSID], [P.QM_MACHINE_ID, VT.CLSID], [P.QM_ADDRESS, VT.BLOB],
  [P.QM_CNS, VT.CLSID | VT.VECTOR], [P.QM_QUOTA, VT.UI4], [P.QM_JOURNAL_QUOTA, VT.UI4],
  [P.QM_MACHINE_TYPE, VT.LPWSTR], [P.QM_MODIFY_TIME, VT.I4], [P.QM_FOREIGN, VT.UI1],
  [P.QM_OS, VT.UI4], [P.QM_SECURITY, VT.BLOB], [P.D_SCOPE, VT.UI1], [P.D_OBJTYPE, VT.UI1],
]);

const PROPID_NAMES = new Map(Object.entries(P).map(([k, v]) => [v, 'PROPID_' + k]));

// MQDS object types and scopes ([MS-MQMQ] 2.3.13.3/2.3.13.4).
const MQDS_QUEUE = 1;
const MQDS_MACHINE = 2;
const MQDS_SITESCOPE = 0;
const MQDS_ENTERPRISESCOPE = 1;

// Change Notification Message versions (2.2.4), Notification Update commands (2.2.6),
// Notification Body events (2.2.5).
const VERSION_DS = 0x01;
const VERSION_QM = 0x02;
const CMD_CREATE = 0x00;
const CMD_UPDATE = 0x01;
const CMD_DELETE = 0x02;
const EVENT = Object.freeze({ CREATE_QUEUE: 1, CHANGE_QUEUE: 2, DELETE_QUEUE: 3, CHANGE_MACHINE: 4 });

module.exports = {
  VT, VT_NAMES, P, PROPERTIES, PROPID_NAMES,
  MQDS_QUEUE, MQDS_MACHINE, MQDS_SITESCOPE, MQDS_ENTERPRISESCOPE,
  VERSION_DS, VERSION_QM, CMD_CREATE, CMD_UPDATE, CMD_DELETE, EVENT,
};
