'use strict';
// A virtual clock. The `spec` profile processes every message at once (MS-MQCN main text;
// the batching timers of notes <3>/<14> are product behaviour this target does not claim),
// so advancing the clock fires nothing: it only moves time.
class VirtualClock {
  constructor() { this.now = 0; this.timers = []; }
  advance(seconds) {
    this.now += seconds;
    const due = this.timers.filter((t) => t.at <= this.now).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((t) => t.at > this.now);
    for (const t of due) t.fire();
  }
}
module.exports = { VirtualClock };
