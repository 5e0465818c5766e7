'use strict';
// The server side of [MS-MQCN] (section 3.2): the queue manager that owns queue and machine
// objects and receives change notifications on its private notification queue.
const { P, CMD_CREATE, CMD_UPDATE, CMD_DELETE, MQDS_QUEUE, EVENT } = require('./constants');
const { decodeMessage, DecodeError } = require('./codec');
const { objectTypeOf } = require('./rules');
const adm = require('./adm');
const { isFailure } = require('./dssm');

class Server {
  // qm: the local QueueManager ADM element; queues: Map guid -> Queue (its QueueCollection);
  // directory: what Read Directory asks, `read(objectType, identifier, attributes, server)`
  // (lib/directory.js: the set-up's; lib/ldap.js: an LDAP server); log: diagnostics to stderr.
  constructor({ qmGuid, computer, qm, queues, directory, log }) {
    this.qmGuid = qmGuid;
    this.computer = computer;
    this.qm = qm;
    this.queues = queues;
    this.directory = directory;
    this.log = log || (() => {});
    this.reads = []; // every Read Directory event raised, in order
    this.open = null;
    this.waiting = []; // messages that arrived before the queue was opened
    // The message being processed while its Read Directory is outstanding (LDAP mode: a
    // directory whose read answers a Promise), as a Promise; null when idle. Messages are
    // processed one at a time, in arrival order: the next waits for this one.
    this.pending = null;
  }

  // Process messages strictly in order: `fn` runs now when nothing is pending (so the dict
  // directory stays synchronous), else after what is pending.
  enqueue(fn) {
    const result = this.pending ? this.pending.then(fn) : fn();
    if (!result || typeof result.then !== 'function') return;
    const done = result.then(() => {}, (e) => this.log(`internal error while processing a message: ${e.stack || e}`))
      .then(() => { if (this.pending === done) this.pending = null; });
    this.pending = done;
  }

  // Resolves once every message delivered so far has been processed (its reads finished).
  idle() { return this.pending || Promise.resolve(); }

  // 3.2.3: open NOTIFY_QUEUE_PRIVATE (1.9) = "PRIVATE=<QM GUID>\3" for ReceiveAccess,
  // DenyNone; its path name is <computer>\private$\notify_queue$ (3.2.1.2.1). Then the
  // dequeue loop starts: messages already waiting are processed now, in arrival order.
  start() {
    if (!this.open) {
      this.open = {
        format_name: `PRIVATE=${this.qmGuid}\\3`,
        required_access: 'ReceiveAccess',
        shared_mode: 'DenyNone',
        path_name: `${this.computer}\\private$\\notify_queue$`,
      };
      const waiting = this.waiting;
      this.waiting = [];
      for (const env of waiting) this.enqueue(() => this.process(env));
    }
    return { ...this.open };
  }

  // A message arrives on the notification queue.
  deliver(envelope) {
    if (!this.open) { this.waiting.push(envelope); return; }
    this.enqueue(() => this.process(envelope));
  }

  // 3.2.5: parse rMessage.Body as a Change Notification Message and dispatch on Version.
  // A body that does not parse is disregarded as a whole (errata E-08); the loop goes on.
  process(env) {
    let msg;
    try {
      msg = decodeMessage(Buffer.from(env.body, 'hex'));
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      this.log(`disregarded: ${e.message}`);
      return;
    }
    if (msg.version === 1) return this.processV1(msg, env);
    return this.processV2(msg.body); // a Promise while an LDAP read is outstanding
  }

  // ---- 3.2.5.1 Version 0x01 --------------------------------------------------------
  processV1(msg, env) {
    for (const u of msg.updates) {
      // Authentication (per update in the text, but about rMessage: a failure disregards
      // the whole Change Notification Message).
      if (env.sender_identifier_type !== 'QueueManagerIdentifier') {
        this.log('disregarded: SenderIdentifierType is not QueueManagerIdentifier');
        return;
      }
      if (env.authentication_level === 'None') {
        this.log('disregarded: AuthenticationLevel None');
        return;
      }
      if (!this.applyUpdate(u)) return; // "perform no further processing" (E-14 strict)
    }
  }

  // Returns false when the message is to be disregarded from this update on.
  applyUpdate(u) {
    if (u.command === CMD_CREATE || u.command === CMD_UPDATE) {
      const type = objectTypeOf(u);
      if (type !== 1 && type !== 2) {
        this.log(`disregarded: object type ${type} from PropertyId[0]`);
        return false;
      }
      if (u.command === CMD_CREATE && type === 1) this.createQueueV1(u);
      else if (u.command === CMD_UPDATE && type === 1) this.updateQueueV1(u);
      else if (u.command === CMD_UPDATE && type === 2) this.updateMachineV1(u);
      else this.log('no processing rule for a creation of a queue manager object; update ignored');
      return true;
    }
    if (u.command === CMD_DELETE) {
      // Object type := PropertyValue[1], which presumes PropertyId[1] is PROPID_D_OBJTYPE
      // (errata E-12): anything else leaves the type unknown and the message is disregarded.
      const p1 = u.properties[1];
      if (!p1 || p1.propid !== P.D_OBJTYPE || p1.value !== MQDS_QUEUE) {
        this.log('disregarded: deletion whose object type is not MQDS_QUEUE');
        return false;
      }
      // Delete Queue: the queue whose Identifier equals GuidIdentifier (none if UseGuid 0).
      if (u.guidIdentifier && this.queues.has(u.guidIdentifier)) this.queues.delete(u.guidIdentifier);
      else this.log(`deletion of a queue not in the QueueCollection: ${u.guidIdentifier}`);
      return true;
    }
    return false; // unreachable: the decoder admits only Commands 0..2
  }

  static valueOf(u, propid) {
    const p = u.properties.find((x) => x.propid === propid); // IndexOf: the first occurrence
    return p ? adm.admValue(p.value) : undefined;
  }

  // Command 0x00, queue object: Set Queue Defaults, then exactly the 15 listed attributes,
  // then Create Queue (iSkipDirectory True). Every other PROPID (PROPID_Q_ADS_PATH,
  // PROPID_Q_MULTICAST_ADDRESS, ...) is not used.
  createQueueV1(u) {
    const q = adm.makeQueue();
    const listed = {
      Type: P.Q_TYPE, Identifier: P.Q_INSTANCE, BasePriority: P.Q_BASEPRIORITY, Journaling: P.Q_JOURNAL,
      Quota: P.Q_QUOTA, JournalQuota: P.Q_JOURNAL_QUOTA, CreateTime: P.Q_CREATE_TIME,
      ModifyTime: P.Q_MODIFY_TIME, Security: P.Q_SECURITY, Pathname: P.Q_PATHNAME, Label: P.Q_LABEL,
      Authentication: P.Q_AUTHENTICATE, PrivacyLevel: P.Q_PRIV_LEVEL, Transactional: P.Q_TRANSACTION,
      Scope: P.Q_SCOPE,
    };
    for (const [attr, propid] of Object.entries(listed)) {
      const v = Server.valueOf(u, propid);
      if (v !== undefined) q[attr] = v; // a missing PROPID keeps the Set Queue Defaults value
    }
    if (Server.valueOf(u, P.Q_INSTANCE) === undefined) {
      this.log('creation without PROPID_Q_INSTANCE: no queue identity, nothing created');
      return;
    }
    this.createQueue(q);
  }

  // Create Queue ([MS-MQDMPR] 3.1.7.1.3) with iSkipDirectory True: adds the queue to the
  // QueueCollection; a queue that already exists is left as it is (the event fails).
  createQueue(q) {
    if (this.queues.has(q.Identifier)) {
      this.log(`Create Queue: ${q.Identifier} already exists; left unchanged`);
      return;
    }
    this.queues.set(q.Identifier, q);
  }

  // The queue an update references: by GuidIdentifier, or by PathName (3.2.5.1: "referenced
  // by the PathName field or the GuidIdentifier field"; path names compare without case).
  referencedQueue(u) {
    if (u.guidIdentifier) return this.queues.get(u.guidIdentifier) || null;
    const want = u.pathName.toLowerCase();
    for (const q of this.queues.values()) if (q.Pathname.toLowerCase() === want) return q;
    return null;
  }

  // Command 0x01, queue object: exactly these seven attributes; all other PROPIDs ignored.
  updateQueueV1(u) {
    const q = this.referencedQueue(u);
    if (!q) { this.log('queue update for a queue not in the QueueCollection'); return; }
    const listed = {
      BasePriority: P.Q_BASEPRIORITY, Journaling: P.Q_JOURNAL, Quota: P.Q_QUOTA,
      JournalQuota: P.Q_JOURNAL_QUOTA, Security: P.Q_SECURITY, Authentication: P.Q_AUTHENTICATE,
      PrivacyLevel: P.Q_PRIV_LEVEL,
    };
    for (const [attr, propid] of Object.entries(listed)) {
      const v = Server.valueOf(u, propid);
      if (v !== undefined) q[attr] = v;
    }
  }

  // Command 0x01, queue manager object: exactly QueueManagerQuota, JournalQuota, Security
  // of the local QueueManager; all other PROPIDs ignored.
  updateMachineV1(u) {
    if (!this.isLocalQueueManager(u.guidIdentifier)) {
      this.log(`machine update for ${u.guidIdentifier}, not the local queue manager; ignored`);
      return;
    }
    const listed = { QueueManagerQuota: P.QM_QUOTA, JournalQuota: P.QM_JOURNAL_QUOTA, Security: P.QM_SECURITY };
    for (const [attr, propid] of Object.entries(listed)) {
      const v = Server.valueOf(u, propid);
      if (v !== undefined) this.qm[attr] = v;
    }
  }

  // 3.2.5.1 opens with "update the state of the ... queue manager object referenced by the
  // ... GuidIdentifier field": an update that names another machine is not about ours.
  isLocalQueueManager(guid) {
    return guid === null || guid === undefined || guid === this.qm.Identifier;
  }

  // ---- 3.2.5.2 Version 0x02 --------------------------------------------------------
  // Raise Read Directory (recorded for `directory_reads`) and hand the answer to `use`; a
  // failed read (a ReadFailure: ObjectNotFound, GenericError, DirectoryNotConnected, ...)
  // gives nothing to take, so the event changes nothing. The directory answers at once
  // (the set-up's) or with a Promise (LDAP mode), and so does this.
  readThen(objectType, identifier, attributes, server, use) {
    this.reads.push({ object_type: objectType, identifier, attributes: [...attributes], server });
    const finish = (found) => {
      if (isFailure(found)) {
        this.log(`Read Directory: ${objectType} ${identifier} failed: ${found}; nothing taken from it`);
        return;
      }
      use(found);
    };
    const found = this.directory.read(objectType, identifier, attributes, server);
    return found && typeof found.then === 'function' ? found.then(finish) : finish(found);
  }

  processV2(body) {
    const guid = body.objectGuid;
    const dc = body.domainController;
    switch (body.event) {
      case EVENT.CREATE_QUEUE:
        return this.readThen('Queue', guid, adm.READ_QUEUE_ATTRIBUTES, dc, (q) => this.createQueue(q));
      case EVENT.CHANGE_QUEUE:
        return this.readThen('Queue', guid, adm.READ_QUEUE_ATTRIBUTES, dc, (q) => {
          const local = this.queues.get(guid);
          if (!local) { this.log(`change of queue ${guid}, not in the QueueCollection`); return; }
          for (const name of adm.READ_QUEUE_ATTRIBUTES) {
            const attr = adm.canonicalQueueAttribute(name);
            local[attr] = q[attr];
          }
        });
      case EVENT.DELETE_QUEUE:
        // No directory read: the queue whose Identifier equals ObjectGuid is deleted.
        if (this.queues.has(guid)) this.queues.delete(guid);
        else this.log(`deletion of queue ${guid}, not in the QueueCollection`);
        return undefined;
      case EVENT.CHANGE_MACHINE:
        return this.readThen('QueueManager', guid, adm.READ_QM_ATTRIBUTES, dc, (m) => {
          if (!this.isLocalQueueManager(guid)) { this.log(`machine change for ${guid}, not the local queue manager`); return; }
          for (const name of adm.READ_QM_ATTRIBUTES) this.qm[name] = m[name];
        });
      default:
        return undefined; // unreachable: the decoder admits Events 1..4 only
    }
  }

  state() {
    const queues = {};
    for (const [g, q] of this.queues) queues[g] = { ...q };
    return { queue_manager: { ...this.qm, ConnectedNetworkIdentifierList: [...this.qm.ConnectedNetworkIdentifierList] }, queues };
  }
}

module.exports = { Server };
