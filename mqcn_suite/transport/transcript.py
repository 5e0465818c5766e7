"""A session's transcript: every chunk of bytes in and out, when, and what it was.

Kept so a failure can print the traffic (:meth:`Transcript.render`) and so the real bytes
can later be written to a pcap with their real timing (``entries``: wall-clock seconds).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

IN, OUT = "in", "out"


@dataclass(frozen=True, slots=True)
class TranscriptEntry:
    time: float  # seconds since the epoch (time.time()), when sent or received
    direction: str  # IN or OUT
    data: bytes = field(repr=False)
    summary: str  # the packets the chunk completed, or what part of one it is

    def line(self, start: float) -> str:
        arrow = "->" if self.direction == OUT else "<-"
        return f"{self.time - start:9.4f}s {arrow} {len(self.data):6d} B  {self.summary}"


@dataclass
class Transcript:
    """Entries in order; ``local``/``peer``: the addresses of the two ends."""

    local: tuple[str, int] | None = None
    peer: tuple[str, int] | None = None
    entries: list[TranscriptEntry] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, time: float, direction: str, data: bytes, summary: str) -> None:
        with self._lock:
            self.entries.append(TranscriptEntry(time, direction, data, summary))

    def bytes_of(self, direction: str) -> bytes:
        return b"".join(e.data for e in self.entries if e.direction == direction)

    def render(self) -> str:
        """The transcript as text, one line per chunk (time from the first entry)."""
        with self._lock:
            entries = list(self.entries)
        head = f"MS-MQQB session {self.local} -> {self.peer}"
        if not entries:
            return head + ": no bytes exchanged"
        start = entries[0].time
        return "\n".join([head, *(e.line(start) for e in entries)])
