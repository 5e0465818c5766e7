'use strict';
// Adapter protocol version 2, transport mode (docs/adapter-protocol.md): the bridge between
// the adapter's Envelope (JSON, as `deliver` takes and `send_change_notification` returns
// it) and a UserMessage Packet of lib/mqqb, in both directions, plus the client's outgoing
// MS-MQQB session.
//
// Envelope field             UserMessage Packet
// message_id                 UserHeader.SourceQueueManager (16 bytes) + UserHeader.MessageID (LE)
// sender_identifier_type     SecurityHeader.Flags.ST (no SecurityHeader: None)
// sender_identifier          SecurityID (ST 2: the queue manager GUID)
// authentication_level       a SecurityData.Signature: Sig20; else an MQFSignatureHeader:
//                            Sig30; else None (the wire does not tell Sig10 from Sig20)
// hash_algorithm             MessagePropertiesHeader.HashAlgorithm
// time_to_reach_queue        BaseHeader.TimeToReachQueue
// delivery_guarantee         UserHeader.Flags.DM
// destination_format_name    UserHeader.DestinationQueue, e.g. PRIVATE=<guid>\3
// body                       MessagePropertiesHeader.MessageBody

const { connect, listen } = require('./mqqb');
const { NIL, guidFromBytes, guidToBytes } = require('./guid');

const SENDER_TYPE = ['None', 'Sid', 'QueueManagerIdentifier']; // Flags.ST 0, 1, 2
const HASH = { MD5: 0x8003, SHA1: 0x8004, SHA256: 0x800c, SHA384: 0x800d, SHA512: 0x800e };
const HASH_NAME = Object.fromEntries(Object.entries(HASH).map(([k, v]) => [v, k]));
const DELIVERY = { Express: 0, Recoverable: 1 };
// This example does not sign: the signature is opaque bytes of the size of an RSA-1024 one.
const PLACEHOLDER_SIGNATURE = Buffer.alloc(128);
const SIGNED = new Set(['Always', 'Sig10', 'Sig20', 'Sig30']);

/**
 * The adapter Envelope of a received UserMessage (lib/mqqb decodeUserMessage's result).
 * Every value the packet holds is passed on, also ones the Envelope's enums do not list
 * (as `ST<n>` / `0x<hash>`), so the server judges them rather than this bridge.
 * @param {object} m a ReceivedMessage
 * @returns {object} an Envelope as `deliver` takes it
 */
function packetToEnvelope(m) {
  const id = Buffer.alloc(20);
  guidToBytes(m.messageId.sender).copy(id, 0);
  id.writeUInt32LE(m.messageId.ordinal >>> 0, 16);
  let level = 'None';
  if (m.signed) level = 'Sig20';
  else if (m.mqfSigned) level = 'Sig30';
  return {
    body: m.body.toString('hex'),
    message_id: id.toString('hex'),
    sender_identifier: m.senderIdType === 2 ? m.senderIdentifier : null,
    sender_identifier_type: SENDER_TYPE[m.senderIdType] || `ST${m.senderIdType}`,
    authentication_level: level,
    time_to_reach_queue: m.timeToReachQueue,
    delivery_guarantee: m.delivery === 1 ? 'Recoverable' : m.delivery === 0 ? 'Express' : `DM${m.delivery}`,
    message_class: m.messageClass === 0 ? 'Normal' : `0x${m.messageClass.toString(16)}`,
    hash_algorithm: m.hashAlgorithm ? HASH_NAME[m.hashAlgorithm] || `0x${m.hashAlgorithm.toString(16)}` : null,
    destination_format_name: m.destination,
  };
}

/**
 * The lib/mqqb OutgoingMessage carrying an Envelope the client built (client.js envelope()).
 * @param {object} env an Envelope as `send_change_notification` returns it
 * @returns {import('./mqqb/codec').OutgoingMessage}
 */
function envelopeToMessage(env) {
  const id = Buffer.from(env.message_id, 'hex');
  if (id.length !== 20) throw new TypeError(`message_id is ${id.length} bytes, not 20`);
  const kind = SENDER_TYPE.indexOf(env.sender_identifier_type);
  if (kind < 0) throw new TypeError(`sender_identifier_type ${env.sender_identifier_type} has no wire form`);
  if (kind === 1) throw new TypeError('a Sid sender needs a SID; this client never sends one');
  const senderId = kind === 2 ? guidToBytes(env.sender_identifier) : Buffer.alloc(0);
  const signature = SIGNED.has(env.authentication_level) ? PLACEHOLDER_SIGNATURE : Buffer.alloc(0);
  const message = {
    sourceQm: guidFromBytes(id, 0),
    messageId: id.readUInt32LE(16),
    destination: env.destination_format_name,
    body: Buffer.from(env.body, 'hex'),
    timeToReachQueue: env.time_to_reach_queue,
    delivery: DELIVERY[env.delivery_guarantee] || 0,
    hashAlgorithm: env.hash_algorithm ? HASH[env.hash_algorithm] : 0,
  };
  if (senderId.length || signature.length) message.security = { senderIdType: kind, senderId, signature };
  return message;
}

/**
 * The client's outgoing queue in transport mode: every enqueued Envelope goes, in order, as
 * a UserMessage over one MS-MQQB session to the queue manager at host:port (opened on the
 * first message, reopened after a failure). `send_change_notification` answers before the
 * packet is acknowledged: failures go to the log, and the suite sees no message arrive.
 */
class Outgoing {
  /**
   * @param {{identifier: string, host: string, port: number, log?: (s: string) => void,
   *   counts?: {sent: number, failed: number}}} o identifier: this client's queue manager
   *   GUID (ClientGuid); the ServerGuid sent is the null GUID, as for a direct format name
   *   (the address comes from the suite); counts: tallies to add to (the Target's)
   */
  constructor(o) {
    this.o = o;
    this.log = o.log || (() => {});
    this.sender = null;
    this.chain = Promise.resolve();
    this.counts = o.counts || { sent: 0, failed: 0 }; // acknowledged / not delivered
  }

  enqueue(envelope) {
    const message = envelopeToMessage(envelope);
    this.chain = this.chain.then(async () => {
      try {
        if (!this.sender) {
          this.sender = await connect({ identifier: this.o.identifier, host: this.o.host, port: this.o.port });
        }
        await this.sender.send(message);
        this.counts.sent += 1;
      } catch (e) {
        this.counts.failed += 1;
        this.log(`transport: message ${message.messageId} not delivered: ${e.message}`);
        const sender = this.sender;
        this.sender = null;
        if (sender) await sender.close();
      }
    });
    return this.chain;
  }

  /** Wait for the messages enqueued so far, then close the session. */
  close() {
    this.chain = this.chain.then(async () => {
      if (this.sender) await this.sender.close();
      this.sender = null;
    });
    return this.chain;
  }
}

/**
 * The target's front door: an MS-MQQB listener whose arriving UserMessages go to
 * `target().receive` (the notification queue, as `deliver`). It answers as the set-up's
 * queue manager (ServerGuid), or the null GUID before the first reset.
 * @param {() => import('./protocol').Target} target the Target (asked per message)
 * @param {{host?: string, port?: number, log?: (s: string) => void}} [o] 127.0.0.1:0 by default
 * @returns {Promise<import('./mqqb/listener').MqqbListener>}
 */
function openFrontDoor(target, o = {}) {
  const log = o.log || (() => {});
  return listen({
    identifier: () => (target() && target().qmGuid) || NIL,
    host: o.host || '127.0.0.1',
    port: o.port || 0,
    onMessage: (body, envelope, message) => target().receive(message),
    onSessionClosed: (reason, remote) => {
      if (reason !== 'closed by the peer') log(`transport: session from ${remote} closed: ${reason}`);
    },
  });
}

module.exports = { packetToEnvelope, envelopeToMessage, Outgoing, openFrontDoor, HASH };
