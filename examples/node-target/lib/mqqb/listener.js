'use strict';
// The acceptor over TCP: a queue manager's front door (port 1801 in [MS-MQQB] 2.1.1; any
// port here). One AcceptorSession per connection; the socket, the timers and the
// callbacks are this file's, the protocol is session.js's.

const net = require('node:net');
const { AcceptorSession } = require('./session');

/**
 * @typedef {object} Envelope what the listener hands over with each message body
 * @property {{sender: string, ordinal: number}} messageId PROPID_M_MSGID
 * @property {string|null} senderIdentifier SecurityID: the QM GUID (ST 2) or SID hex (ST 1)
 * @property {number} senderIdType SecurityHeader.Flags.ST (0: none)
 * @property {boolean} signed a Signature is present
 * @property {string} destination the destination format name, e.g. PRIVATE=<guid>\3
 * @property {number} sequence the session sequence number (3.1.1.4)
 * @property {string} remote the peer, "address:port"
 * @property {string} remoteIdentifier the peer's ClientGuid
 */

/**
 * @typedef {object} MqqbListener
 * @property {string} host
 * @property {number} port the bound port (useful with port 0)
 * @property {() => number} sessions the number of open connections
 * @property {() => Promise<void>} close stop listening and close every session (3.1.5.9)
 */

/**
 * Listen for MS-MQQB sessions and hand every UserMessage's body and envelope to `onMessage`.
 *
 * Each received UserMessage is acknowledged by a SessionAck Packet carrying the count of
 * UserMessage Packets received (and the recoverable ones as persisted): after `ackDelayMs`,
 * or at once when the acknowledgment window is full. Garbage, a malformed packet or a
 * packet out of the session's order closes that session (3.1.5.1.2, 3.1.5.1.3) and calls
 * `onSessionClosed` with the reason; the listener goes on.
 *
 * @param {object} o
 * @param {string|(() => string)} o.identifier this queue manager's GUID (EstablishConnection
 *   ServerGuid); a function is asked once per accepted connection (a target whose queue
 *   manager changes with each `reset`)
 * @param {(body: Buffer, envelope: Envelope, message: object) => void} o.onMessage
 * @param {string} [o.host] '127.0.0.1' by default
 * @param {number} [o.port] 0 (any free port) by default
 * @param {number} [o.windowSize] WindowSize sent, 64 by default
 * @param {number} [o.ackDelayMs] delay before a SessionAck, 0 by default. [MS-MQQB] 3.1.2.5
 *   batches acknowledgments for AckWaitTimeout / 2 (10 s and more); a test peer wants them
 *   at once, and an early acknowledgment is still a correct one
 * @param {number} [o.initTimeoutMs] Session Initialization Timer (3.1.2.1), 30000
 * @param {number} [o.idleTimeoutMs] Session Cleanup Timer (3.1.2.2): an open session with no
 *   UserMessage Packet during two such periods is closed; 0 (the default): never
 * @param {(reason: string, remote: string) => void} [o.onSessionClosed] a session closed
 *   by this side for `reason`, or by the peer (reason 'closed by the peer')
 * @returns {Promise<MqqbListener>}
 */
function listen(o) {
  if (typeof o.onMessage !== 'function') throw new TypeError('listen needs onMessage');
  const sockets = new Set();
  const closed = o.onSessionClosed || (() => {});
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const remote = `${socket.remoteAddress}:${socket.remotePort}`;
    const identifier = typeof o.identifier === 'function' ? o.identifier() : o.identifier;
    const session = new AcceptorSession({ identifier, windowSize: o.windowSize });
    let ackTimer = null;
    let reason = null;
    const initTimer = setTimeout(() => shut('no session within the Session Initialization Timer (3.1.2.1)'),
      o.initTimeoutMs === undefined ? 30000 : o.initTimeoutMs);
    let active = false; // SessionActive (3.1.2.2)
    let cleanupTimer = null;
    const cleanup = () => {
      if (!active) { shut(`idle: no UserMessage Packet for ${o.idleTimeoutMs} ms (3.1.6.2)`); return; }
      active = false;
      cleanupTimer = setTimeout(cleanup, o.idleTimeoutMs);
    };
    const shut = (why) => {
      if (reason) return;
      reason = why;
      clearTimeout(initTimer);
      clearTimeout(cleanupTimer);
      clearTimeout(ackTimer);
      clearImmediate(ackTimer);
      socket.end(); // 3.1.5.9: no packet, the connection is closed
      setTimeout(() => socket.destroy(), 1000).unref();
    };
    const sendAck = () => {
      ackTimer = null;
      if (!reason && session.ackDue) socket.write(session.takeAck());
    };
    socket.on('data', (chunk) => {
      if (reason) return;
      const r = session.receive(chunk);
      for (const packet of r.send) socket.write(packet);
      if (r.opened) {
        clearTimeout(initTimer);
        if (o.idleTimeoutMs) cleanupTimer = setTimeout(cleanup, o.idleTimeoutMs);
      }
      if (r.messages.length) active = true;
      for (const m of r.messages) {
        const envelope = {
          messageId: m.messageId,
          senderIdentifier: m.senderIdentifier,
          senderIdType: m.senderIdType,
          signed: m.signed,
          destination: m.destination,
          sequence: m.sequence,
          remote,
          remoteIdentifier: session.remoteIdentifier,
        };
        try {
          o.onMessage(m.body, envelope, m);
        } catch (e) {
          process.stderr.write(`mqqb listener: onMessage threw: ${e.stack || e}\n`);
        }
      }
      if (session.ackDue && (session.ackUrgent || r.close)) sendAck();
      else if (session.ackDue && !ackTimer) {
        // 0 ms: after the bytes already read are processed (one ack for a burst)
        ackTimer = o.ackDelayMs ? setTimeout(sendAck, o.ackDelayMs) : setImmediate(sendAck);
      }
      if (r.close) shut(r.close);
    });
    socket.on('error', () => {}); // a reset by the peer ends the session like a close
    socket.on('close', () => {
      sockets.delete(socket);
      clearTimeout(initTimer);
      clearTimeout(cleanupTimer);
      clearTimeout(ackTimer);
      clearImmediate(ackTimer);
      closed(reason || 'closed by the peer', remote);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port || 0, o.host || '127.0.0.1', () => {
      server.removeListener('error', reject);
      const address = server.address();
      resolve({
        host: address.address,
        port: address.port,
        sessions: () => sockets.size,
        close: () => new Promise((done) => {
          for (const s of sockets) s.destroy();
          server.close(() => done());
        }),
      });
    });
  });
}

module.exports = { listen };
