"""A virtual clock: time is injected, never read from the machine.

>>> c = VirtualClock()
>>> c.advance(90); c.now
90.0
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class VirtualClock:
    """Seconds since an arbitrary epoch; only :meth:`advance` moves it."""

    now: float = 0.0

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not run backwards")
        self.now += float(seconds)
