'use strict';
// MS-MQQB session packets, written from [MS-MQQB] 2.2 and [MS-MQMQ] 2.2.18-2.2.20.
// Little-endian throughout ([MS-MQQB] 2.2). Bit 0 of every Flags field is its least
// significant bit.
//
//   BaseHeader (16)  [MS-MQMQ] 2.2.19.1  VersionNumber 0x10, Reserved, Flags, Signature "LIOR",
//                                        PacketSize, TimeToReachQueue
//   InternalHeader   [MS-MQQB] 2.2.1     Reserved(2) Flags(2): PT bits 0-3, CS bit 4
//   EstablishConnection  2.2.3   ClientGuid ServerGuid TimeStamp OperatingSystem Reserved
//                                Padding(512)                              -> 572 bytes
//   ConnectionParameters 2.2.2   RecoverableAckTimeout AckTimeout Reserved WindowSize -> 32
//   SessionAck           2.2.6   SessionHeader ([MS-MQMQ] 2.2.20.4)        -> 36 bytes
//   UserMessage          [MS-MQMQ] 2.2.20: UserHeader, [TransactionHeader], [SecurityHeader],
//                                MessagePropertiesHeader, [Debug, Soap, MultiQueueFormat],
//                                then a SessionHeader outside PacketSize when Flags.SH is set.
//
// PacketSize of a SessionAck: this module writes 36 (the whole packet) and reads 36 or 20
// (the mqcn-conformance errata W-01: [MS-MQMQ] 2.2.19.1 keeps the SessionHeader out of
// PacketSize, [MS-MQQB] 2.2.6 makes it part of the packet; both forms are read).

const { guidFromBytes, guidToBytes, NIL } = require('../guid');

/** A packet that does not follow [MS-MQQB] 2 / [MS-MQMQ] 2.2: the section and byte offset. */
class MqqbError extends Error {
  constructor(section, offset, message) {
    super(`${section} at byte ${offset}: ${message}`);
    this.section = section;
    this.offset = offset;
  }
}

const BASE = 16;
const VERSION = 0x10;
const SIGNATURE = 0x524f494c; // "LIOR" on the wire
const MAX_PACKET_SIZE = 0x00400000;
const INFINITE = 0xffffffff;
const F = { IN: 1 << 3, SH: 1 << 4, DH: 1 << 5, TR: 1 << 8 }; // BaseHeader.Flags
const PT = { SessionAck: 1, EstablishConnection: 2, ConnectionParameters: 3 };
const PT_NAMES = { 1: 'SessionAck', 2: 'EstablishConnection', 3: 'ConnectionParameters' };
const CS = 1 << 4; // InternalHeader.Flags.CS: the connection is refused
const EC_SIZE = 552;
const CP_SIZE = 12;
const SESSION_SIZE = 16;
const OS_RE = 0x10;
const OS_SE = 1 << 8; // no Ping Request was sent before the session
const OS_OS = 1 << 9; // the initiator runs a server-class OS
const RECOVERABLE_ACK_TIMEOUT = [0x1f4, 0x1d4c0];
const ACK_TIMEOUT = [0x4e20, 0x1d4c0];
const DEFAULT_WINDOW = 0x0040;
// UserHeader.Flags ([MS-MQMQ] 2.2.19.2)
const U = {
  DM_SHIFT: 5, DQ_SHIFT: 10, AQ_SHIFT: 13, RQ_SHIFT: 16,
  SH: 1 << 19, TH: 1 << 20, MP: 1 << 21, CQ: 1 << 22, MQ: 1 << 23, HH: 1 << 28,
};
const USER_FIXED = 48;
const PROPS_FIXED = 56;
const SECURITY_FIXED = 16;
const ST = { None: 0, Sid: 1, QueueManagerIdentifier: 2 }; // SecurityHeader.Flags.ST
const SEC_DE = 1 << 6; // default provider
const SEC_AI = 1 << 7; // SecurityData present
const MQMSG_CLASS_NORMAL = 0x0000;

const pad4 = (n) => (n + 3) & ~3;
const u16 = (v) => { const b = Buffer.alloc(2); b.writeUInt16LE(v); return b; };
const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return b; };
const zeros = (n) => Buffer.alloc(n);
const padded = (b) => Buffer.concat([b, zeros(pad4(b.length) - b.length)]);

// --- BaseHeader --------------------------------------------------------------------------

/**
 * The 16 bytes of a BaseHeader ([MS-MQMQ] 2.2.19.1).
 * @param {number} flags BaseHeader.Flags
 * @param {number} packetSize PacketSize
 * @param {number} [timeToReachQueue] seconds; 0xFFFFFFFF (infinite) by default
 * @returns {Buffer}
 */
function encodeBaseHeader(flags, packetSize, timeToReachQueue = INFINITE) {
  const b = Buffer.alloc(BASE);
  b.writeUInt8(VERSION, 0);
  b.writeUInt16LE(flags, 2);
  b.writeUInt32LE(SIGNATURE, 4);
  b.writeUInt32LE(packetSize, 8);
  b.writeUInt32LE(timeToReachQueue >>> 0, 12);
  return b;
}

/** Read and check a BaseHeader at `offset` (VersionNumber, Signature, PacketSize bounds). */
function decodeBaseHeader(buf, offset = 0) {
  if (buf.length - offset < BASE) {
    throw new MqqbError('[MS-MQMQ] 2.2.19.1', offset, `${buf.length - offset} bytes, a BaseHeader is 16`);
  }
  const version = buf.readUInt8(offset);
  if (version !== VERSION) {
    throw new MqqbError('[MS-MQMQ] 2.2.19.1', offset, `VersionNumber is 0x${version.toString(16)}, not 0x10`);
  }
  const signature = buf.readUInt32LE(offset + 4);
  if (signature !== SIGNATURE) {
    throw new MqqbError('[MS-MQMQ] 2.2.19.1', offset + 4, `Signature is 0x${signature.toString(16)}, not 0x524f494c`);
  }
  const packetSize = buf.readUInt32LE(offset + 8);
  if (packetSize > MAX_PACKET_SIZE || packetSize < BASE) {
    throw new MqqbError('[MS-MQMQ] 2.2.19.1', offset + 8, `PacketSize is ${packetSize}`);
  }
  return {
    flags: buf.readUInt16LE(offset + 2),
    packetSize,
    timeToReachQueue: buf.readUInt32LE(offset + 12),
  };
}

/**
 * Bytes a packet occupies on the TCP stream: PacketSize, plus the SessionHeader that follows
 * a UserMessage outside PacketSize ([MS-MQMQ] 2.2.19.1) or a SessionAck whose PacketSize is
 * 20 (the letter of 2.2.19.1, errata W-01).
 */
function streamSize(flags, packetSize) {
  if (!(flags & F.SH)) return packetSize;
  if (!(flags & F.IN) || packetSize === BASE + 4) return packetSize + SESSION_SIZE;
  return packetSize;
}

// --- SessionHeader -----------------------------------------------------------------------

/**
 * @typedef {object} SessionHeader [MS-MQMQ] 2.2.20.4
 * @property {number} ackSequence AckSequenceNumber: UserMessage Packets received
 * @property {number} recoverableAckSequence RecoverableMsgAckSeqNumber
 * @property {number} recoverableAckFlags RecoverableMsgAckFlags
 * @property {number} userSequence UserMsgSequenceNumber: UserMessage Packets sent
 * @property {number} recoverableSequence RecoverableMsgSeqNumber: recoverable ones sent
 * @property {number} windowSize WindowSize (1..0xFFFF)
 */

function encodeSessionHeader(s) {
  const b = Buffer.alloc(SESSION_SIZE);
  b.writeUInt16LE(s.ackSequence & 0xffff, 0);
  b.writeUInt16LE((s.recoverableAckSequence || 0) & 0xffff, 2);
  b.writeUInt32LE((s.recoverableAckFlags || 0) >>> 0, 4);
  b.writeUInt16LE((s.userSequence || 0) & 0xffff, 8);
  b.writeUInt16LE((s.recoverableSequence || 0) & 0xffff, 10);
  b.writeUInt16LE(s.windowSize === undefined ? DEFAULT_WINDOW : s.windowSize, 12);
  return b;
}

function decodeSessionHeader(buf, offset) {
  if (buf.length - offset < SESSION_SIZE) {
    throw new MqqbError('[MS-MQMQ] 2.2.20.4', offset, 'the SessionHeader is cut short');
  }
  return {
    ackSequence: buf.readUInt16LE(offset),
    recoverableAckSequence: buf.readUInt16LE(offset + 2),
    recoverableAckFlags: buf.readUInt32LE(offset + 4),
    userSequence: buf.readUInt16LE(offset + 8),
    recoverableSequence: buf.readUInt16LE(offset + 10),
    windowSize: buf.readUInt16LE(offset + 12),
  };
}

// --- internal packets ([MS-MQQB] 2.2.1-2.2.3, 2.2.6) --------------------------------------

function internalPacket(type, refused, body, baseFlags = F.IN) {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(type | (refused ? CS : 0), 2);
  return Buffer.concat([encodeBaseHeader(baseFlags, BASE + 4 + body.length), head, body]);
}

/**
 * An EstablishConnection Packet ([MS-MQQB] 2.2.3).
 * @param {object} ec
 * @param {string} ec.clientGuid the initiator's queue manager GUID (text)
 * @param {string} [ec.serverGuid] the acceptor's; the null GUID for a direct format name
 * @param {number} [ec.timestamp] ms since the OS started (the initiator's clock)
 * @param {boolean} [ec.pingSent] a Ping Request preceded the session (SE = 0)
 * @param {boolean} [ec.serverClass] the initiator runs a server-class OS (OS bit)
 * @param {boolean} [ec.response] an acceptor's response: Padding all 0x5A
 * @param {boolean} [ec.refused] InternalHeader.Flags.CS
 * @returns {Buffer}
 */
function encodeEstablishConnection(ec) {
  const body = Buffer.alloc(EC_SIZE);
  guidToBytes(ec.clientGuid).copy(body, 0);
  guidToBytes(ec.serverGuid || NIL).copy(body, 16);
  body.writeUInt32LE((ec.timestamp || 0) >>> 0, 32);
  const os = OS_RE | (ec.pingSent ? 0 : OS_SE) | (ec.serverClass ? OS_OS : 0);
  body.writeUInt16LE(ec.operatingSystem === undefined ? os : ec.operatingSystem, 36);
  // Padding: 0x5A in a response; "uninitialized" in a request (zeros here)
  body.fill(ec.response ? 0x5a : 0x00, 40);
  return internalPacket(PT.EstablishConnection, ec.refused, body);
}

/**
 * A ConnectionParameters Packet ([MS-MQQB] 2.2.2).
 * @param {{recoverableAckTimeout: number, ackTimeout: number, windowSize: number}} cp
 * @returns {Buffer}
 */
function encodeConnectionParameters(cp) {
  const body = Buffer.alloc(CP_SIZE);
  body.writeUInt32LE(cp.recoverableAckTimeout >>> 0, 0);
  body.writeUInt32LE(cp.ackTimeout >>> 0, 4);
  body.writeUInt16LE(cp.windowSize & 0xffff, 10);
  return internalPacket(PT.ConnectionParameters, false, body);
}

/** A SessionAck Packet ([MS-MQQB] 2.2.6): IN and SH set, PT 1, PacketSize 36. */
function encodeSessionAck(session) {
  return internalPacket(PT.SessionAck, false, encodeSessionHeader(session), F.IN | F.SH);
}

/**
 * Decode one internal packet (the whole stream frame).
 * @returns {{kind: string, refused: boolean, flags: number, body: object}}
 */
function decodeInternal(buf) {
  const base = decodeBaseHeader(buf, 0);
  if (!(base.flags & F.IN)) throw new MqqbError('[MS-MQMQ] 2.2.19.1', 2, 'Flags.IN is clear');
  const flags = buf.readUInt16LE(BASE + 2);
  const type = flags & 0xf;
  const kind = PT_NAMES[type];
  if (!kind) throw new MqqbError('[MS-MQQB] 2.2.1', BASE + 2, `InternalHeader.Flags.PT is ${type}`);
  const at = BASE + 4;
  const sizes = { SessionAck: SESSION_SIZE, EstablishConnection: EC_SIZE, ConnectionParameters: CP_SIZE };
  if (buf.length !== at + sizes[kind]) {
    throw new MqqbError('[MS-MQMQ] 2.2.19.1', 8, `a ${kind} Packet is ${at + sizes[kind]} bytes, not ${buf.length}`);
  }
  let body;
  if (kind === 'SessionAck') {
    if (!(base.flags & F.SH)) throw new MqqbError('[MS-MQQB] 2.2.6', 2, 'a SessionAck has Flags.SH clear');
    body = decodeSessionHeader(buf, at);
  } else if (kind === 'ConnectionParameters') {
    body = {
      recoverableAckTimeout: buf.readUInt32LE(at),
      ackTimeout: buf.readUInt32LE(at + 4),
      windowSize: buf.readUInt16LE(at + 10),
    };
  } else {
    const os = buf.readUInt16LE(at + 36);
    body = {
      clientGuid: guidFromBytes(buf, at),
      serverGuid: guidFromBytes(buf, at + 16),
      timestamp: buf.readUInt32LE(at + 32),
      operatingSystem: os,
      pingSent: !(os & OS_SE),
    };
  }
  return { kind, refused: Boolean(flags & CS), flags, body };
}

// --- queue formats ([MS-MQMQ] 2.2.18.1.5, 2.2.18.1.7) ---------------------------------------

/**
 * A destination as a format name: PRIVATE=<guid>\<hex number>, PUBLIC=<guid>, DIRECT=<name>.
 * @returns {{code: number, bytes: Buffer, host: string}} DQ code, field bytes, the
 *   QueueManagerAddress it implies (the null GUID for a direct name)
 */
function encodeDestination(formatName, destinationQm) {
  let m = /^PRIVATE=([0-9a-fA-F-]{36})\\([0-9a-fA-F]{1,8})$/.exec(formatName);
  if (m) return { code: 3, bytes: u32(parseInt(m[2], 16)), host: m[1].toLowerCase() };
  m = /^PUBLIC=([0-9a-fA-F-]{36})$/.exec(formatName);
  if (m) {
    if (!destinationQm) throw new TypeError('a PUBLIC= destination needs destinationQm');
    return { code: 5, bytes: guidToBytes(m[1]), host: destinationQm };
  }
  m = /^DIRECT=(.+)$/s.exec(formatName);
  if (m) {
    const text = Buffer.from(`${m[1]}\0`, 'utf16le');
    return { code: 7, bytes: padded(Buffer.concat([u16(text.length), text])), host: NIL };
  }
  throw new TypeError(`not a single-queue format name: ${JSON.stringify(formatName)}`);
}

// the queue field of type `code` at `offset`: [text form or null, offset after]
function decodeQueue(buf, offset, end, code, hosts, what) {
  const need = (n) => {
    if (offset + n > end) throw new MqqbError('[MS-MQMQ] 2.2.19.2', offset, `the ${what} queue is cut short`);
  };
  switch (code) {
    case 0: return [null, offset];
    case 2: case 3: case 4: {
      need(4);
      const host = code === 2 ? hosts.source : code === 3 ? hosts.destination : hosts.admin;
      return [`PRIVATE=${host}\\${buf.readUInt32LE(offset).toString(16)}`, offset + 4];
    }
    case 5: need(16); return [`PUBLIC=${guidFromBytes(buf, offset)}`, offset + 16];
    case 6: need(20); return [`PRIVATE=${guidFromBytes(buf, offset)}\\${buf.readUInt32LE(offset + 16).toString(16)}`, offset + 20];
    case 7: {
      need(2);
      const count = buf.readUInt16LE(offset);
      need(2 + count);
      const name = buf.toString('utf16le', offset + 2, offset + 2 + count).replace(/\0$/, '');
      return [`DIRECT=${name}`, offset + pad4(2 + count)];
    }
    default:
      throw new MqqbError('[MS-MQMQ] 2.2.19.2', offset, `Flags.${what === 'destination' ? 'DQ' : what === 'admin' ? 'AQ' : 'RQ'} is ${code}`);
  }
}

// --- UserMessage Packet ([MS-MQMQ] 2.2.20) -------------------------------------------------

/**
 * @typedef {object} OutgoingMessage what {@link encodeUserMessage} puts on the wire
 * @property {string} sourceQm UserHeader.SourceQueueManager: the sending QM's GUID
 * @property {number} messageId UserHeader.MessageID (the ordinal of PROPID_M_MSGID)
 * @property {string} destination format name: PRIVATE=<guid>\3 (the MS-MQCN notification
 *   queue), PUBLIC=<guid> or DIRECT=<name>
 * @property {string} [destinationQm] QueueManagerAddress for a PUBLIC= destination
 * @property {Buffer} body MessageBody
 * @property {string} [label] Label (no terminator; at most 249 characters)
 * @property {number} [timeToReachQueue] seconds (BaseHeader), 0xFFFFFFFF by default
 * @property {number} [timeToBeReceived] seconds (UserHeader), 0xFFFFFFFF by default
 * @property {number} [sentTime] seconds since 1970 (now by default)
 * @property {number} [delivery] 0 express (default), 1 recoverable
 * @property {number} [priority] 0..7, 3 by default
 * @property {number} [bodyType] a VT code, 0x1011 (VT_VECTOR|VT_UI1: bytes) by default
 * @property {number} [hashAlgorithm] 0 (none) by default; 0x800e SHA512 etc.
 * @property {{senderIdType: number, senderId: Buffer, signature?: Buffer}} [security]
 *   a SecurityHeader: ST 2 with the QM GUID's 16 bytes, or ST 1 with a SID; `signature`
 *   (opaque bytes) makes the message authenticated
 * @property {SessionHeader} [session] a piggy-backed SessionHeader (BaseHeader.Flags.SH)
 */

/**
 * The bytes of a UserMessage Packet: BaseHeader, UserHeader, [SecurityHeader],
 * MessagePropertiesHeader with MessageClass MQMSG_CLASS_NORMAL, [SessionHeader].
 * @param {OutgoingMessage} m
 * @returns {Buffer}
 */
function encodeUserMessage(m) {
  const dest = encodeDestination(m.destination, m.destinationQm);
  const security = m.security ? encodeSecurity(m.security) : null;
  const delivery = m.delivery || 0;
  const flags = (delivery << U.DM_SHIFT) | (dest.code << U.DQ_SHIFT) | U.MP | (security ? U.SH : 0);
  const user = Buffer.concat([
    guidToBytes(m.sourceQm),
    guidToBytes(dest.host),
    u32(m.timeToBeReceived === undefined ? INFINITE : m.timeToBeReceived),
    u32(m.sentTime === undefined ? Math.floor(Date.now() / 1000) : m.sentTime),
    u32(m.messageId),
    u32(flags),
    dest.bytes,
  ]);
  const props = encodeProperties(m);
  const parts = [user];
  if (security) parts.push(security);
  parts.push(props);
  const size = BASE + parts.reduce((n, p) => n + p.length, 0);
  const priority = m.priority === undefined ? 3 : m.priority & 7;
  const baseFlags = priority | (m.session ? F.SH : 0);
  const head = encodeBaseHeader(baseFlags, size, m.timeToReachQueue === undefined ? INFINITE : m.timeToReachQueue);
  return Buffer.concat([head, ...parts, m.session ? encodeSessionHeader(m.session) : Buffer.alloc(0)]);
}

function encodeSecurity(s) {
  const items = [s.senderId || Buffer.alloc(0), Buffer.alloc(0), s.signature || Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0)];
  const head = Buffer.alloc(SECURITY_FIXED);
  const any = items.some((i) => i.length);
  if (!any) throw new TypeError('a SecurityHeader carries at least one item ([MS-MQMQ] 2.2.20.6)');
  head.writeUInt16LE((s.senderIdType & 0xf) | (items[2].length ? SEC_DE : 0) | SEC_AI, 0);
  head.writeUInt16LE(items[0].length, 2);
  head.writeUInt16LE(items[1].length, 4);
  head.writeUInt16LE(items[2].length, 6);
  head.writeUInt32LE(items[3].length, 8);
  head.writeUInt32LE(items[4].length, 12);
  return Buffer.concat([head, ...items.map(padded)]);
}

function encodeProperties(m) {
  const body = m.body || Buffer.alloc(0);
  const label = m.label === undefined || m.label === null ? null : Buffer.from(`${m.label}\0`, 'utf16le');
  if (label && label.length / 2 > 0xfa) throw new TypeError('a Label is at most 250 WCHARs with its terminator');
  const head = Buffer.alloc(PROPS_FIXED);
  head.writeUInt8(0, 0); // Flags: no administration acknowledgments (so no AdminQueue)
  head.writeUInt8(label ? label.length / 2 : 0, 1);
  head.writeUInt16LE(MQMSG_CLASS_NORMAL, 2);
  head.writeUInt32LE(m.bodyType === undefined ? 0x1011 : m.bodyType, 24);
  head.writeUInt32LE(0, 28); // ApplicationTag
  head.writeUInt32LE(body.length, 32); // MessageSize
  head.writeUInt32LE(body.length, 36); // AllocationBodySize
  head.writeUInt32LE(0, 40); // PrivacyLevel: none
  head.writeUInt32LE(m.hashAlgorithm || 0, 44);
  head.writeUInt32LE(0, 48); // EncryptionAlgorithm
  head.writeUInt32LE(0, 52); // ExtensionSize
  return padded(Buffer.concat([head, label || Buffer.alloc(0), body]));
}

/**
 * @typedef {object} ReceivedMessage what {@link decodeUserMessage} reads
 * @property {{sender: string, ordinal: number}} messageId PROPID_M_MSGID: SourceQueueManager
 *   and UserHeader.MessageID
 * @property {string} destination format name of UserHeader.DestinationQueue
 * @property {string} destinationQm UserHeader.QueueManagerAddress
 * @property {number} senderIdType SecurityHeader.Flags.ST (0 without a SecurityHeader)
 * @property {string|null} senderIdentifier the QM GUID (ST 2) or the SID's hex (ST 1)
 * @property {boolean} signed a SecurityData.Signature is present
 * @property {Buffer} body MessageBody
 * @property {string|null} label
 * @property {number} messageClass, delivery, priority, timeToReachQueue, hashAlgorithm
 * @property {SessionHeader|null} session a piggy-backed SessionHeader
 */

/**
 * Read one UserMessage Packet (the whole stream frame) down to its body. Headers after the
 * MessagePropertiesHeader (Debug, Soap, MultiQueueFormat) are stepped over by PacketSize.
 * @param {Buffer} buf
 * @returns {ReceivedMessage}
 */
function decodeUserMessage(buf) {
  const base = decodeBaseHeader(buf, 0);
  if (base.flags & F.IN) throw new MqqbError('[MS-MQMQ] 2.2.20', 2, 'Flags.IN is set in a UserMessage');
  const end = base.packetSize;
  if (end > buf.length) throw new MqqbError('[MS-MQMQ] 2.2.19.1', 8, `PacketSize ${end} is past the packet's ${buf.length} bytes`);
  const cut = (at, n, what) => {
    if (at + n > end) throw new MqqbError('[MS-MQMQ] 2.2.19.1', at, `${what} does not fit in PacketSize ${end}`);
  };
  let at = BASE;
  cut(at, USER_FIXED, 'the UserHeader');
  const sourceQm = guidFromBytes(buf, at);
  const destinationQm = guidFromBytes(buf, at + 16);
  const messageOrdinal = buf.readUInt32LE(at + 40);
  const flags = buf.readUInt32LE(at + 44);
  if (!(flags & U.MP)) throw new MqqbError('[MS-MQMQ] 2.2.19.2', at + 44, 'Flags.MP is clear');
  at += USER_FIXED;
  const dq = (flags >> U.DQ_SHIFT) & 7;
  const aq = (flags >> U.AQ_SHIFT) & 7;
  const rq = (flags >> U.RQ_SHIFT) & 7;
  if (![0, 3, 5, 7].includes(dq)) throw new MqqbError('[MS-MQMQ] 2.2.19.2', BASE + 45, `Flags.DQ is ${dq}`);
  if (![0, 2, 3, 5, 6, 7].includes(aq)) throw new MqqbError('[MS-MQMQ] 2.2.19.2', BASE + 45, `Flags.AQ is ${aq}`);
  const hosts = { source: sourceQm, destination: destinationQm, admin: null };
  let destination, admin;
  [destination, at] = decodeQueue(buf, at, end, dq, hosts, 'destination');
  [admin, at] = decodeQueue(buf, at, end, aq, hosts, 'admin');
  hosts.admin = admin && admin.startsWith('PRIVATE=') ? admin.slice(8, 44) : null;
  if (rq !== 1) [, at] = decodeQueue(buf, at, end, rq, hosts, 'response');
  if (flags & U.CQ) { cut(at, 16, 'the ConnectorType'); at += 16; }
  if (flags & U.TH) {
    cut(at, 20, 'the TransactionHeader');
    at += 20 + (buf.readUInt32LE(at) & 1 ? 16 : 0); // Flags.CG: a ConnectorQMGuid follows
  }
  let senderIdType = 0, senderIdentifier = null, signed = false;
  if (flags & U.SH) {
    cut(at, SECURITY_FIXED, 'the SecurityHeader');
    const sflags = buf.readUInt16LE(at);
    const sizes = [buf.readUInt16LE(at + 2), buf.readUInt16LE(at + 4), buf.readUInt16LE(at + 6), buf.readUInt32LE(at + 8), buf.readUInt32LE(at + 12)];
    senderIdType = sflags & 0xf;
    let item = at + SECURITY_FIXED;
    cut(item, sizes.reduce((n, s) => n + pad4(s), 0), 'the SecurityData');
    const sender = buf.subarray(item, item + sizes[0]);
    if (senderIdType === ST.QueueManagerIdentifier && sizes[0] === 16) senderIdentifier = guidFromBytes(sender);
    else if (sizes[0]) senderIdentifier = sender.toString('hex');
    signed = sizes[2] > 0;
    for (const s of sizes) item += pad4(s);
    at = item;
  }
  cut(at, PROPS_FIXED, 'the MessagePropertiesHeader');
  const labelLength = buf.readUInt8(at + 1);
  const messageClass = buf.readUInt16LE(at + 2);
  const messageSize = buf.readUInt32LE(at + 32);
  const hashAlgorithm = buf.readUInt32LE(at + 44);
  const extension = buf.readUInt32LE(at + 52);
  let p = at + PROPS_FIXED;
  cut(p, 2 * labelLength, 'the Label');
  const label = labelLength ? buf.toString('utf16le', p, p + 2 * labelLength).replace(/\0$/, '') : null;
  p += 2 * labelLength;
  cut(p, extension, 'the ExtensionData');
  p += extension;
  // The body is the first MessageSize bytes of the body room; whether that room is
  // AllocationBodySize or MessageSize bytes (errata W-02) matters only to find the
  // MultiQueueFormatHeader (mqfSignature tries both), and PacketSize bounds the packet.
  cut(p, messageSize, 'the MessageBody');
  const body = Buffer.from(buf.subarray(p, p + messageSize));
  const mqfSigned = flags & U.MQ ? mqfSignature(buf, p, messageSize, buf.readUInt32LE(at + 36), base.flags, flags, end) : false;
  let session = null;
  if (base.flags & F.SH) session = decodeSessionHeader(buf, end);
  return {
    messageId: { sender: sourceQm, ordinal: messageOrdinal },
    destination,
    destinationQm,
    senderIdType,
    senderIdentifier,
    signed,
    mqfSigned,
    body,
    label,
    messageClass,
    delivery: (flags >> U.DM_SHIFT) & 3,
    priority: base.flags & 7,
    timeToReachQueue: base.timeToReachQueue,
    hashAlgorithm,
    session,
  };
}

/**
 * Whether the MultiQueueFormatHeader (UserHeader.Flags.MQ, [MS-MQMQ] 2.2.20.1) carries a
 * signature (its MQFSignatureHeader Size > 0: an MSMQ 3.0 signature). The headers between
 * the body and it are stepped over: the DebugHeader (4 bytes, + 16 when Flags.QT is 1); a
 * SOAP header (Flags.HH) is not read, so with one the answer is false. The body room is
 * AllocationBodySize bytes, or MessageSize bytes when that reading lays the headers out
 * exactly to PacketSize (errata W-02's two readings). A layout that does not fit: false.
 */
function mqfSignature(buf, bodyAt, messageSize, allocation, baseFlags, userFlags, end) {
  if (userFlags & U.HH) return false;
  for (const room of allocation === messageSize ? [allocation] : [allocation, messageSize]) {
    let at = pad4(bodyAt + room);
    if (baseFlags & F.DH) {
      if (at + 4 > end) continue;
      at += 4 + ((buf.readUInt16LE(at) & 3) === 1 ? 16 : 0);
    }
    let fits = true;
    for (let i = 0; i < 3 && fits; i += 1) { // destination, administration, response lists
      const size = at + 4 <= end ? buf.readUInt32LE(at) : 0;
      if (size < 12 || at + size > end) fits = false;
      else at += size;
    }
    if (!fits || at + 8 > end || buf.readUInt16LE(at) !== 0x015e) continue;
    const size = buf.readUInt32LE(at + 4);
    if (at + 8 + pad4(size) !== end) continue;
    return size > 0;
  }
  return false;
}

module.exports = {
  MqqbError,
  BASE, VERSION, SIGNATURE, MAX_PACKET_SIZE, INFINITE, F, PT, CS, SESSION_SIZE, ST,
  RECOVERABLE_ACK_TIMEOUT, ACK_TIMEOUT, DEFAULT_WINDOW, MQMSG_CLASS_NORMAL, U,
  encodeBaseHeader, decodeBaseHeader, streamSize,
  encodeSessionHeader, decodeSessionHeader,
  encodeEstablishConnection, encodeConnectionParameters, encodeSessionAck, decodeInternal,
  encodeUserMessage, decodeUserMessage, encodeDestination,
};
