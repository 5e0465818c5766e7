'use strict';
// The client side of [MS-MQCN] (section 3.3): builds Change Notification Messages about
// directory objects and sends them to the owning queue manager's notification queue.
const { P, CMD_CREATE, CMD_UPDATE, CMD_DELETE, MQDS_QUEUE, MQDS_ENTERPRISESCOPE, EVENT } = require('./constants');
const { encodeMessage, guidToBytes } = require('./codec');
const { judge } = require('./judge');
const adm = require('./adm');

// iOperation of 3.3.4.1 -> Event token of 2.2.5 (3.3.5.1).
const EVENT_OF = {
  QueueCreation: EVENT.CREATE_QUEUE, QueueUpdate: EVENT.CHANGE_QUEUE,
  QueueDeletion: EVENT.DELETE_QUEUE, QueueManagerUpdate: EVENT.CHANGE_MACHINE,
};

// 3.3.5.2: the 15 PROPIDs of a queue creation, in the order the spec lists them.
const CREATION = [
  ['Type', P.Q_TYPE], ['Identifier', P.Q_INSTANCE], ['BasePriority', P.Q_BASEPRIORITY],
  ['Journaling', P.Q_JOURNAL], ['Quota', P.Q_QUOTA], ['JournalQuota', P.Q_JOURNAL_QUOTA],
  ['CreateTime', P.Q_CREATE_TIME], ['ModifyTime', P.Q_MODIFY_TIME], ['Scope', P.Q_SCOPE],
  ['Security', P.Q_SECURITY], ['Pathname', P.Q_PATHNAME], ['Label', P.Q_LABEL],
  ['Authentication', P.Q_AUTHENTICATE], ['PrivacyLevel', P.Q_PRIV_LEVEL], ['Transactional', P.Q_TRANSACTION],
];
// 3.3.5.2: the queue properties an update can carry (besides PROPID_Q_QMID).
const QUEUE_MODIFIABLE = ['Journaling', 'Quota', 'BasePriority', 'JournalQuota', 'Security', 'Authentication', 'PrivacyLevel'];
// 3.3.5.2: the machine properties an update can carry (besides MACHINE_ID and FOREIGN):
// three modifiable ones and four the server ignores (note <11>).
const MACHINE_MODIFIABLE = ['QueueManagerQuota', 'JournalQuota', 'Security',
  'ConnectedNetworkIdentifierList', 'QueueManagerVersion', 'OperatingSystemType'];

class RequestError extends Error {}

class Client {
  // setupClient: {identifier, version, server_name}; directory: Directory; clock; log.
  constructor({ setupClient, directory, clock, profile, log }) {
    this.identifier = setupClient.identifier.toLowerCase();
    this.version = setupClient.version;
    this.serverName = setupClient.server_name;
    this.directory = directory;
    this.clock = clock;
    this.profile = profile;
    this.log = log || (() => {});
    this.opened = new Map(); // destination guid -> OutgoingQueue open descriptor
    this.sequence = 0;
  }

  // 3.3.3: open an OutgoingQueue whose DestinationFormatName is NOTIFY_QUEUE_PRIVATE of the
  // destination queue manager, NextHops empty, SendAccess, DenyNone.
  start(destination) {
    const d = destination.toLowerCase();
    const open = {
      destination_format_name: `PRIVATE=${d}\\3`,
      next_hops: '',
      required_access: 'SendAccess',
      shared_mode: 'DenyNone',
    };
    this.opened.set(d, open);
    return { ...open };
  }

  // 3.3.4.1 Send Change Notification. Returns the envelopes enqueued.
  send(operation, objectGuid, changed) {
    if (!(operation in EVENT_OF)) throw new RequestError(`unknown operation ${operation}`);
    const guid = objectGuid.toLowerCase();
    let destination;
    let object = null;
    if (operation === 'QueueManagerUpdate') {
      object = this.directory.queueManager(guid);
      destination = guid;
    } else {
      const e = this.directory.queueEntry(guid);
      if (e) { object = e.queue; destination = e.owner; }
    }
    if (!object) {
      // A deletion needs only the identifier; the destination is then the one queue the
      // client opened (the directory object may already be gone).
      if (operation === 'QueueDeletion' && this.opened.size === 1) destination = [...this.opened.keys()][0];
      else throw new RequestError(`${guid} is not a directory object of the set-up`);
    }
    // Note <9>: the version is the sender's choice; the `spec` profile sends Version 0x02.
    const version = this.version === 1 || this.version === 2 ? this.version : 2;
    const message = version === 2
      ? this.prepareV2(operation, guid)
      : this.prepareV1(operation, guid, object, destination, changed);
    const verdict = judge(message);
    if (!verdict.ok) this.log(`warning: built a message breaking ${verdict.violations.map((v) => v.message).join('; ')}`);
    return [this.envelope(message, version, destination)];
  }

  // 3.3.5.1: Version 0x02, NumberOfUpdateNotifications 1, one Notification Body.
  prepareV2(operation, guid) {
    return encodeMessage({ version: 2, event: EVENT_OF[operation], objectGuid: guid, domainController: this.serverName });
  }

  // 3.3.5.2: Version 0x01 with one Notification Update built from the directory object.
  prepareV1(operation, guid, object, destination, changed) {
    const base = { guidMasterId: this.identifier, reserved: Buffer.alloc(24) };
    const known = new Set(changed.map(adm.canonicalQueueAttribute));
    let update;
    switch (operation) {
      case 'QueueCreation':
        update = { ...base, command: CMD_CREATE, useGuid: 0, pathName: object.Pathname,
          properties: CREATION.map(([attr, propid]) => ({ propid, value: object[attr] })) };
        break;
      case 'QueueUpdate': {
        const props = [{ propid: P.Q_QMID, value: destination }];
        for (const attr of QUEUE_MODIFIABLE) {
          if (known.has(attr)) props.push({ propid: adm.QUEUE_PROPID[attr], value: object[attr] });
        }
        for (const attr of known) {
          if (!QUEUE_MODIFIABLE.includes(attr)) this.log(`QueueUpdate: ${attr} is not a modifiable queue property; not sent (3.3.5.2)`);
        }
        update = { ...base, command: CMD_UPDATE, useGuid: 1, guidIdentifier: guid, properties: props };
        break;
      }
      case 'QueueDeletion':
        update = { ...base, command: CMD_DELETE, useGuid: 1, guidIdentifier: guid, properties: [
          { propid: P.D_SCOPE, value: MQDS_ENTERPRISESCOPE }, { propid: P.D_OBJTYPE, value: MQDS_QUEUE }] };
        break;
      case 'QueueManagerUpdate': {
        const props = [{ propid: P.QM_MACHINE_ID, value: guid }, { propid: P.QM_FOREIGN, value: object.ForeignSystem }];
        for (const attr of MACHINE_MODIFIABLE) {
          if (known.has(attr)) props.push({ propid: adm.QM_PROPID[attr], value: object[attr] });
        }
        update = { ...base, command: CMD_UPDATE, useGuid: 1, guidIdentifier: guid, properties: props };
        break;
      }
      default:
        throw new RequestError(`unknown operation ${operation}`);
    }
    return encodeMessage({ version: 1, updates: [update] });
  }

  // 3.3.5.3: the Message ADM element around the Change Notification Message.
  envelope(message, version, destination) {
    this.sequence = (this.sequence + 1) >>> 0;
    const seq = Buffer.alloc(4);
    seq.writeUInt32LE(this.sequence);
    return {
      // Body: a buffer one byte longer than the message; the extra byte is unused.
      body: Buffer.concat([message, Buffer.alloc(1)]).toString('hex'),
      // PROPID_M_MSGID: the sending computer's GUID + a 4-byte sequence number.
      message_id: Buffer.concat([guidToBytes(this.identifier), seq]).toString('hex'),
      // Version 0x01: SenderIdentifier := the Identifier of "the QueueManager ADM element
      // instance referenced by the iDirectoryObject input argument" (3.3.5.3): the queue's
      // owner, or the queue manager itself for QueueManagerUpdate, i.e. the destination.
      // (docs/adapter-protocol.md calls setup.client.identifier "the QueueManager.Identifier
      // of 3.3.5.3"; the spec text names the object's queue manager. See README.)
      sender_identifier: version === 1 ? destination : null,
      sender_identifier_type: version === 1 ? 'QueueManagerIdentifier' : 'None',
      authentication_level: 'Sig20',
      time_to_reach_queue: 300,
      delivery_guarantee: 'Express',
      message_class: 'Normal',
      hash_algorithm: 'SHA512', // the MSMQ 6.0 default (note <12>, [MS-MQMQ] note <7>)
      destination_format_name: `PRIVATE=${destination}\\3`,
    };
  }
}

module.exports = { Client, RequestError };
