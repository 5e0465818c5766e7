'use strict';
// The directory service as the set-up describes it (docs/adapter-protocol.md: "The server
// side reads the directory only through the set-up's `directory`"). Objects carry only the
// attributes that differ from the defaults; lookups return completed copies.
const { makeQueue, makeQueueManager } = require('./adm');
const { normalize } = require('./guid');

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
}

module.exports = { Directory };
