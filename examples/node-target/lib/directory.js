'use strict';
// The directory service as the set-up describes it (docs/adapter-protocol.md: "The server
// side reads the directory only through the set-up's `directory`"). Objects carry only the
// attributes that differ from the defaults; lookups return completed copies.
const { makeQueue, makeQueueManager, canonicalQueueAttribute } = require('./adm');
const { normalize } = require('./guid');
const { ReadFailure, Status } = require('./dssm');

class Directory {
  constructor(dir = { queues: [], queue_managers: [] }) {
    this.queues = new Map(); // guid -> {owner, queue}
    if (!dir || typeof dir !== 'object') throw new TypeError('directory must be an object');
    for (const e of dir.queues || []) {
      if (!e || typeof e !== 'object') throw new TypeError('a directory queue entry must be an object');
      const q = makeQueue(e.queue, { requireIdentifier: true });
      this.queues.set(q.Identifier, { owner: normalize(e.owner), queue: q });
    }
    this.queueManagers = new Map();
    for (const m of dir.queue_managers || []) {
      if (!m || typeof m !== 'object' || !('Identifier' in m)) throw new TypeError('a directory queue manager without Identifier');
      const qm = makeQueueManager(m);
      this.queueManagers.set(qm.Identifier, qm);
    }
  }

  queueEntry(guid) {
    const e = this.queues.get(guid.toLowerCase());
    return e ? { owner: e.owner, queue: { ...e.queue } } : null;
  }

  queueManager(guid) {
    const qm = this.queueManagers.get(guid.toLowerCase());
    return qm ? { ...qm, ConnectedNetworkIdentifierList: [...qm.ConnectedNetworkIdentifierList] } : null;
  }

  // Read Directory (3.2.5.2) against the set-up: a Queue carries the attributes asked for and
  // the defaults elsewhere; a QueueManager answer has just the attributes asked for. An
  // object the set-up does not hold is a ReadFailure (ObjectNotFound), as in lib/ldap.js.
  read(objectType, identifier, attributes) {
    if (objectType === 'Queue') {
      const e = this.queueEntry(identifier);
      if (!e) return new ReadFailure(Status.ObjectNotFound, 'not in the set-up\'s directory');
      const q = makeQueue();
      for (const name of attributes) {
        const attr = canonicalQueueAttribute(name);
        q[attr] = e.queue[attr];
      }
      return q;
    }
    const m = this.queueManager(identifier);
    if (!m) return new ReadFailure(Status.ObjectNotFound, 'not in the set-up\'s directory');
    const out = {};
    for (const name of attributes) out[name] = m[name];
    return out;
  }
}

module.exports = { Directory };
