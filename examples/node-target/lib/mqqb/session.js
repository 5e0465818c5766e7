'use strict';
// The MS-MQQB session of [MS-MQQB] 3.1, sans I/O: bytes in, packets and events out. The
// socket drivers (listener.js, sender.js) own the sockets and the timers.
//
//   Framer            cuts a TCP byte stream into packets (any split), refuses garbage
//   AcceptorSession   WAITING_EC_MSG -> WAITING_CP_MSG -> OPEN   (3.1.5.10, 3.1.5.3.1, 3.1.5.4.1)
//   InitiatorSession  WAITING_ECR_MSG -> WAITING_CPR_MSG -> OPEN (3.1.5.2.3, 3.1.5.3.2, 3.1.5.4.2)
//
// Both count UserMessage Packets sent and received (3.1.1.4, sequence numbers from 1,
// 16 bits on the wire), build SessionAck Packets from those counts (3.1.1.6.1, [MS-MQMQ]
// 2.2.20.4) and check a received SessionHeader's counts (3.1.5.5.5). Closing is not a
// packet (3.1.5.9): `receive` returns `close` with the reason, and the driver closes.

const C = require('./codec');
const { NIL } = require('../guid');

/** Cuts a byte stream into whole packets. */
class Framer {
  constructor() {
    this.buf = Buffer.alloc(0);
  }

  /**
   * Add bytes; return the whole packets now available (each a Buffer, its SessionHeader
   * included when one follows PacketSize). Throws MqqbError as soon as the bytes cannot
   * start a BaseHeader (3.1.5.1.2: a wrong VersionNumber or Signature closes the session).
   * @param {Buffer} chunk
   * @returns {Buffer[]}
   */
  push(chunk) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out = [];
    for (;;) {
      const b = this.buf;
      if (b.length < C.BASE) {
        // VersionNumber and Signature are judged as soon as they arrive: a banner that is
        // not MSMQ closes the session without waiting for 16 bytes
        const probe = C.encodeBaseHeader(0, C.BASE);
        b.copy(probe, 0, 0, Math.min(b.length, 8));
        C.decodeBaseHeader(probe, 0);
        return out;
      }
      const head = C.decodeBaseHeader(b, 0);
      const size = C.streamSize(head.flags, head.packetSize);
      if (b.length < size) return out;
      out.push(Buffer.from(b.subarray(0, size)));
      this.buf = b.subarray(size);
    }
  }

  /** Bytes held that do not yet make a whole packet. */
  get pending() {
    return this.buf.length;
  }
}

// n (a count) from its 16 low bits, the largest value <= limit with those bits
function unwrap16(low, limit) {
  let n = limit - ((limit - low) & 0xffff);
  if (n < 0) n = low;
  return n;
}

class Session {
  /**
   * @param {object} o
   * @param {string} o.identifier this queue manager's GUID (QueueManager.Identifier)
   * @param {number} [o.windowSize] WindowSize sent (3.1.3.2: 64)
   */
  constructor(o) {
    if (!o || !o.identifier) throw new TypeError('an MS-MQQB session needs the queue manager identifier');
    this.identifier = o.identifier.toLowerCase();
    this.windowSize = o.windowSize === undefined ? C.DEFAULT_WINDOW : o.windowSize;
    this.state = null;
    this.framer = new Framer();
    // 3.1.3.2 Session Initialization
    this.messageSentCount = 0;
    this.recoverableMessageSentCount = 0;
    this.messageReceivedCount = 0;
    this.recoverableMessageReceivedCount = 0;
    this.unackedReceivedMsgCount = 0;
    this.unackedRecoverable = []; // recoverable sequence numbers received, not yet acknowledged
    this.receivedWindowSize = null;
    this.remoteIdentifier = null;
    this.acked = 0; // UserMessage Packets sent that the peer acknowledged
  }

  /** Whether a SessionAck is owed (UnackedReceivedMsgCount is not 0). */
  get ackDue() {
    return this.unackedReceivedMsgCount > 0;
  }

  /** Whether it is owed now: the window is full (the smaller window of the two sides). */
  get ackUrgent() {
    const window = Math.min(this.windowSize || 1, this.receivedWindowSize || this.windowSize || 1);
    return this.unackedReceivedMsgCount >= window || this.unackedRecoverable.length >= 32;
  }

  /**
   * The SessionAck Packet acknowledging everything received so far (3.1.1.6.1): the count
   * of UserMessage Packets received, the recoverable ones received since the last ack as
   * RecoverableMsgAckSeqNumber + bit field, and this side's own sent counts.
   * @returns {Buffer}
   */
  takeAck() {
    const recoverable = this.unackedRecoverable.splice(0, 32);
    let flags = 0;
    for (const n of recoverable) flags |= 1 << (n - recoverable[0]);
    this.unackedReceivedMsgCount = 0;
    return C.encodeSessionAck({
      ackSequence: this.messageReceivedCount,
      recoverableAckSequence: recoverable.length ? recoverable[0] : 0,
      recoverableAckFlags: flags >>> 0,
      userSequence: this.messageSentCount,
      recoverableSequence: this.recoverableMessageSentCount,
      windowSize: this.windowSize,
    });
  }

  /**
   * Bytes from the peer.
   * @param {Buffer} chunk
   * @returns {{send: Buffer[], messages: object[], close: string|null, opened: boolean}}
   *   packets to write (in order), UserMessages received (each with its `sequence`), the
   *   reason to close the session (after writing `send`), whether the session opened
   */
  receive(chunk) {
    const r = { send: [], messages: [], close: null, opened: false };
    let frames;
    try {
      frames = this.framer.push(chunk);
    } catch (e) {
      r.close = `not an MS-MQQB packet: ${e.message}`;
      return r;
    }
    for (const frame of frames) {
      try {
        this.packet(frame, r);
      } catch (e) {
        if (!(e instanceof C.MqqbError)) throw e;
        r.close = `a malformed packet (3.1.5.1.3): ${e.message}`;
      }
      if (r.close) break;
    }
    return r;
  }

  packet(frame, r) {
    const flags = frame.readUInt16LE(2);
    if (!(flags & C.F.IN)) return this.userMessage(frame, r);
    const p = C.decodeInternal(frame);
    if (p.kind === 'EstablishConnection') return this.establishConnection(p, r);
    if (p.kind === 'ConnectionParameters') return this.connectionParameters(p, r);
    if (this.state !== 'OPEN') { r.close = `a SessionAck in state ${this.state} (3.1.5.5)`; return undefined; }
    return this.sessionHeader(p.body, r);
  }

  // 3.1.5.8: General Processing counts it; a piggy-backed SessionHeader is then processed
  userMessage(frame, r) {
    if (this.state !== 'OPEN') { r.close = `a UserMessage Packet in state ${this.state} (3.1.5.8)`; return; }
    const m = C.decodeUserMessage(frame);
    this.messageReceivedCount += 1;
    this.unackedReceivedMsgCount += 1;
    if (m.delivery === 1) {
      this.recoverableMessageReceivedCount += 1;
      this.unackedRecoverable.push(this.recoverableMessageReceivedCount & 0xffff);
    }
    m.sequence = this.messageReceivedCount;
    r.messages.push(m);
    if (m.session) this.sessionHeader(m.session, r);
  }

  // 3.1.5.5: mark what the peer acknowledged; 3.1.5.5.5: its counts must equal ours
  sessionHeader(s, r) {
    if (s.userSequence !== (this.messageReceivedCount & 0xffff) ||
        s.recoverableSequence !== (this.recoverableMessageReceivedCount & 0xffff)) {
      r.close = `SessionHeader counts ${s.userSequence}/${s.recoverableSequence} sent, ` +
        `${this.messageReceivedCount}/${this.recoverableMessageReceivedCount} received (3.1.5.5.5)`;
      return;
    }
    const acked = unwrap16(s.ackSequence, this.messageSentCount);
    if (acked > this.acked) this.acked = acked;
    r.acked = this.acked;
  }
}

/** The acceptor's side of a session (a queue manager receiving a connection). */
class AcceptorSession extends Session {
  constructor(o) {
    super(o);
    this.state = 'WAITING_EC_MSG'; // 3.1.5.10
  }

  // 3.1.5.3.1 Request Packet
  establishConnection(p, r) {
    if (this.state !== 'WAITING_EC_MSG') { r.close = `an EstablishConnection in state ${this.state} (3.1.5.3)`; return; }
    this.remoteIdentifier = p.body.clientGuid;
    const server = p.body.serverGuid;
    const refused = server !== NIL && server !== this.identifier;
    r.send.push(C.encodeEstablishConnection({
      clientGuid: p.body.clientGuid,
      serverGuid: this.identifier,
      timestamp: p.body.timestamp,
      pingSent: p.body.pingSent,
      response: true,
      refused,
    }));
    if (refused) { r.close = `refused: ServerGuid ${server} is not this queue manager (3.1.5.3.1)`; return; }
    this.state = 'WAITING_CP_MSG';
  }

  // 3.1.5.4.1 Request Packet
  connectionParameters(p, r) {
    if (this.state !== 'WAITING_CP_MSG') { r.close = `a ConnectionParameters in state ${this.state} (3.1.5.4)`; return; }
    this.receivedWindowSize = p.body.windowSize;
    this.ackWaitTimeout = p.body.ackTimeout;
    this.recoverableAckSendTimeout = p.body.recoverableAckTimeout;
    r.send.push(C.encodeConnectionParameters({
      recoverableAckTimeout: p.body.recoverableAckTimeout,
      ackTimeout: p.body.ackTimeout,
      windowSize: this.windowSize,
    }));
    this.state = 'OPEN';
    r.opened = true;
  }
}

/** The initiator's side of a session (a queue manager sending to another). */
class InitiatorSession extends Session {
  /**
   * @param {object} o
   * @param {string} o.identifier this queue manager's GUID
   * @param {string} [o.remoteIdentifier] the acceptor's GUID; absent for a direct format
   *   name (ServerGuid is then the null GUID)
   * @param {number} [o.ackTimeout] AckTimeout sent, ms (20000..120000; 20000)
   * @param {() => number} [o.uptime] ms since the OS started (the TimeStamp clock)
   */
  constructor(o) {
    super(o);
    this.remoteIdentifier = o.remoteIdentifier ? o.remoteIdentifier.toLowerCase() : null;
    this.ackTimeout = o.ackTimeout === undefined ? C.ACK_TIMEOUT[0] : o.ackTimeout;
    const [low, high] = C.ACK_TIMEOUT;
    if (!(this.ackTimeout >= low && this.ackTimeout <= high)) {
      throw new RangeError(`AckTimeout is ${low}..${high} ms ([MS-MQQB] 2.2.2.1), not ${this.ackTimeout}`);
    }
    this.uptime = o.uptime || (() => Math.floor(require('node:os').uptime() * 1000));
    this.state = 'CLOSED';
  }

  /** 3.1.5.2.3: the EstablishConnection request; the session waits for the response. */
  start() {
    this.timestamp = this.uptime() >>> 0;
    this.state = 'WAITING_ECR_MSG';
    return C.encodeEstablishConnection({
      clientGuid: this.identifier,
      serverGuid: this.remoteIdentifier || NIL,
      timestamp: this.timestamp,
      pingSent: false,
    });
  }

  // 3.1.5.3.2 Response Packet
  establishConnection(p, r) {
    if (this.state !== 'WAITING_ECR_MSG') { r.close = `an EstablishConnection in state ${this.state} (3.1.5.3)`; return; }
    const b = p.body;
    const server = this.remoteIdentifier;
    if (p.refused || b.clientGuid !== this.identifier || (server && b.serverGuid !== server)) {
      r.close = p.refused ? 'the acceptor refused the connection (CS set, 3.1.5.3.2)'
        : `the EstablishConnection response names ClientGuid ${b.clientGuid}, ServerGuid ${b.serverGuid} (3.1.5.3.2)`;
      return;
    }
    if (!server) this.remoteIdentifier = b.serverGuid; // direct format name: learnt here
    const [low, high] = C.RECOVERABLE_ACK_TIMEOUT;
    const roundTrip = ((this.uptime() >>> 0) - b.timestamp) >>> 0;
    this.recoverableAckSendTimeout = Math.min(high, Math.max(low, roundTrip * 8));
    r.send.push(C.encodeConnectionParameters({
      recoverableAckTimeout: this.recoverableAckSendTimeout,
      ackTimeout: this.ackTimeout,
      windowSize: this.windowSize,
    }));
    this.state = 'WAITING_CPR_MSG';
  }

  // 3.1.5.4.2 Response Packet
  connectionParameters(p, r) {
    if (this.state !== 'WAITING_CPR_MSG') { r.close = `a ConnectionParameters in state ${this.state} (3.1.5.4)`; return; }
    this.receivedWindowSize = p.body.windowSize;
    this.state = 'OPEN';
    r.opened = true;
  }

  /**
   * The bytes of the next UserMessage Packet and its session sequence number.
   * @param {import('./codec').OutgoingMessage} message
   * @returns {{bytes: Buffer, sequence: number}}
   */
  message(message) {
    if (this.state !== 'OPEN') throw new Error(`the session is ${this.state}, not OPEN`);
    const bytes = C.encodeUserMessage(message);
    this.messageSentCount += 1;
    if (message.delivery === 1) this.recoverableMessageSentCount += 1;
    return { bytes, sequence: this.messageSentCount };
  }
}

module.exports = { Framer, AcceptorSession, InitiatorSession, unwrap16 };
