"""Product behaviour <3>/<14>: when a batching queue manager processes what has arrived.

Rules (section 6): on the first arrival with no timer running, if the last batch was
processed more than 14 minutes ago (or never) the timer is set for one minute, otherwise for
the rest of the 15 minutes since that batch.  When it fires, every waiting message is
processed, unless 100 or more arrived, in which case they are dropped and every owned public
queue is refreshed from the directory instead.

>>> s = BatchScheduler()
>>> s.on_arrival(now=0.0)
60.0
>>> s.on_arrival(now=10.0) is None     # the timer is already running
True
>>> s.fire(now=60.0).full_refresh
False
>>> s.on_arrival(now=120.0)            # 60 s after a batch: wait out the 15 minutes
960.0
"""

from __future__ import annotations

from dataclasses import dataclass

from mqcn_model.constants import (
    BATCH_FULL_REFRESH_THRESHOLD,
    BATCH_IDLE_THRESHOLD_SECONDS,
    BATCH_SHORT_WAIT_SECONDS,
    BATCH_WINDOW_SECONDS,
)


@dataclass(frozen=True, slots=True)
class BatchDecision:
    """What to do when the timer fires: process ``count`` waiting messages or refresh all."""

    count: int
    full_refresh: bool


@dataclass
class BatchScheduler:
    """The timer logic alone; the server owns the waiting messages."""

    last_processed: float | None = None
    deadline: float | None = None
    waiting: int = 0

    def on_arrival(self, now: float) -> float | None:
        """Count one arrival; return the new deadline if this arrival set the timer."""
        self.waiting += 1
        if self.deadline is not None:
            return None
        idle = (
            self.last_processed is None or now - self.last_processed > BATCH_IDLE_THRESHOLD_SECONDS
        )
        if idle:
            self.deadline = now + BATCH_SHORT_WAIT_SECONDS
        else:
            assert self.last_processed is not None
            self.deadline = self.last_processed + BATCH_WINDOW_SECONDS
        return self.deadline

    def due(self, now: float) -> bool:
        return self.deadline is not None and now >= self.deadline

    def fire(self, now: float) -> BatchDecision:
        """The timer expired: decide, reset the timer and remember when the batch ran."""
        decision = BatchDecision(self.waiting, self.waiting >= BATCH_FULL_REFRESH_THRESHOLD)
        self.waiting, self.deadline, self.last_processed = 0, None, now
        return decision
