'use strict';
// The initiator over TCP: connect, establish the session, send UserMessage Packets and
// wait for their SessionAck, close. The protocol is session.js's.

const net = require('node:net');
const { InitiatorSession } = require('./session');

/**
 * @typedef {object} MqqbSender
 * @property {(message: import('./codec').OutgoingMessage) => Promise<{sequence: number}>} send
 *   send one UserMessage Packet; resolves once a SessionAck (or a piggy-backed
 *   SessionHeader) acknowledges its sequence number, rejects when the session closes first
 *   or no acknowledgment comes within `ackWaitMs`
 * @property {() => Promise<void>} close close the session (3.1.5.9: the connection only)
 * @property {string} remoteIdentifier the acceptor's queue manager GUID
 * @property {InitiatorSession} session the protocol state (counts, window sizes)
 */

/**
 * Open an MS-MQQB session to `host:port` as the queue manager `identifier`.
 * @param {object} o
 * @param {string} o.identifier this queue manager's GUID (ClientGuid)
 * @param {number} o.port the acceptor's port (1801 for a real queue manager)
 * @param {string} [o.host] '127.0.0.1' by default
 * @param {string} [o.remoteIdentifier] the acceptor's GUID (ServerGuid); absent: null GUID,
 *   as for a direct format name
 * @param {number} [o.ackTimeout] AckTimeout announced, ms (20000..120000)
 * @param {number} [o.ackWaitMs] how long `send` waits for its acknowledgment (ackTimeout)
 * @param {number} [o.initTimeoutMs] Session Initialization Timer (3.1.2.1), 30000
 * @param {number} [o.windowSize] WindowSize announced, 64
 * @returns {Promise<MqqbSender>} resolves when the session is OPEN
 */
function connect(o) {
  const session = new InitiatorSession(o);
  const waiting = new Map(); // sequence -> {resolve, reject, timer}
  const ackWaitMs = o.ackWaitMs === undefined ? session.ackTimeout : o.ackWaitMs;
  return new Promise((resolveOpen, rejectOpen) => {
    let opened = false;
    let reason = null;
    const socket = net.connect({ host: o.host || '127.0.0.1', port: o.port });
    const initTimer = setTimeout(() => fail('no session within the Session Initialization Timer (3.1.2.1)'),
      o.initTimeoutMs === undefined ? 30000 : o.initTimeoutMs);
    const fail = (why) => {
      if (reason) return;
      reason = why;
      clearTimeout(initTimer);
      socket.destroy();
      const error = new Error(`MS-MQQB session to ${o.host || '127.0.0.1'}:${o.port}: ${why}`);
      if (!opened) rejectOpen(error);
      for (const w of waiting.values()) { clearTimeout(w.timer); w.reject(error); }
      waiting.clear();
    };
    const settle = () => {
      for (const [sequence, w] of waiting) {
        if (sequence <= session.acked) {
          clearTimeout(w.timer);
          waiting.delete(sequence);
          w.resolve({ sequence });
        }
      }
    };
    socket.on('connect', () => socket.write(session.start()));
    socket.on('data', (chunk) => {
      if (reason) return;
      const r = session.receive(chunk);
      for (const packet of r.send) socket.write(packet);
      if (session.ackDue) socket.write(session.takeAck()); // a UserMessage from the acceptor
      settle();
      if (r.close) { fail(r.close); return; }
      if (r.opened) {
        opened = true;
        clearTimeout(initTimer);
        resolveOpen(api);
      }
    });
    socket.on('error', (e) => fail(e.code === 'ECONNREFUSED' ? 'connection refused' : e.message));
    socket.on('close', () => fail('closed by the peer'));
    const api = {
      session,
      get remoteIdentifier() { return session.remoteIdentifier; },
      send(message) {
        if (reason) return Promise.reject(new Error(`the session is closed: ${reason}`));
        const { bytes, sequence } = session.message(message);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(
            () => fail(`no SessionAck for message ${sequence} within ${ackWaitMs} ms (3.1.2.4)`), ackWaitMs);
          waiting.set(sequence, { resolve, reject, timer });
          socket.write(bytes);
        });
      },
      close() {
        return new Promise((done) => {
          if (reason) { done(); return; }
          socket.once('close', () => done());
          fail('closed by this side');
        });
      },
    };
  });
}

module.exports = { connect };
