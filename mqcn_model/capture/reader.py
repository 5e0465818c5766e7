"""Reading a capture: file bytes in, records out, incrementally (pure, sans-IO).

:func:`iter_capture` is the whole pipeline for one file — containers (pcap / pcapng) →
dissection (link, IP, TCP) → reassembly per direction of each connection to or from port
1801 → MS-MQQB framing → records (:mod:`mqcn_model.capture.records`).  It takes the file's
bytes as an iterable of chunks (of any size), so the caller chooses how to read — a file in
1 MiB pieces, a Spark ``binaryFile`` row, bytes in a test — and memory stays bounded by the
largest packet and the out-of-order window, never the capture.  Nothing raises for bad
input: a damaged file or stream is a quarantine record.

>>> from mqcn_model.capture.writer import PcapWriter
>>> from mqcn_model.envelope import Envelope, MessageId
>>> import uuid
>>> qm, ds = uuid.UUID(int=1), uuid.UUID(int=2)
>>> envelope = Envelope(b"\\x02\\x01", MessageId(ds, 5), sender_identifier=ds,
...                     destination_format_name=f"PRIVATE={qm}\\\\3", arrival_time=1e9)
>>> writer = PcapWriter()
>>> capture = writer.write(envelope) + writer.close()
>>> records = list(iter_capture("run.pcap", [capture]))
>>> [type(r).__name__ for r in records if type(r).__name__ in ("Message", "CaptureEnd")]
['Message', 'CaptureEnd']
>>> next(r for r in records if type(r).__name__ == "Message").envelope == envelope
True
"""

from __future__ import annotations

import math
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator

from mqcn_model.capture.containers import ContainerReader, RawFrame
from mqcn_model.capture.dissect import (
    MSMQ_PORT,
    TCP_FIN,
    TCP_RST,
    TCP_SYN,
    Segment,
    dissect,
    format_endpoint,
)
from mqcn_model.capture.records import CaptureEnd, Quarantine, Record, Where
from mqcn_model.capture.tcp import DEFAULT_MAX_PENDING, MASK, Direction
from mqcn_model.constants import AuthLevel

DEFAULT_IDLE_TIMEOUT = 600.0  # seconds of capture time without a segment: the stream ended
_ENDING = TCP_SYN | TCP_FIN | TCP_RST  # flags that open or end a stream
_CLOSED_REMEMBERED = 4096  # ended streams remembered to recognise their late segments
PIECE = 1 << 16  # bytes handed to the container at a time by CaptureReader.records

Key = tuple[bytes, int, bytes, int]


class CaptureReader:
    """The incremental reader of one capture file (see the module docstring).

    ``feed(chunk)`` returns the records the chunk completed, ``close()`` the rest (streams
    still open end with ``capture-end``) and the final :class:`~.records.CaptureEnd`.
    ``max_pending``: bytes kept out of order per direction before the hole is a gap;
    ``idle_timeout``: seconds of capture time after which a silent stream is ended;
    ``signed_as``: the AuthenticationLevel a packet's signature stands for (the wire says
    whether a message is signed, not with which MSMQ signature: errata W-05).
    """

    def __init__(
        self,
        name: str,
        *,
        max_pending: int = DEFAULT_MAX_PENDING,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        signed_as: AuthLevel = AuthLevel.Sig20,
    ) -> None:
        self.name = name
        self.signed_as = signed_as
        self.max_pending = max_pending
        self.idle_timeout = idle_timeout
        self.container = ContainerReader(name)
        self.counts: Counter[str] = Counter()
        self.flows: dict[Key, Direction] = {}
        self.closed: OrderedDict[Key, tuple[int, int]] = OrderedDict()
        self._out: list[Record] = []
        self._closed = False
        # idle streams are looked for at the first frame of each new interval of
        # max(1 s, idle_timeout / 4), intervals counted from the epoch: the instants depend on
        # the frames' times alone, so a split read (mqcn_model.capture.split) finds the same
        self.sweep_every = max(1.0, idle_timeout / 4)
        self._swept = -math.inf  # the highest interval looked in so far

    def feed(self, chunk: bytes) -> list[Record]:
        """The records the chunk completed (see :meth:`records`, which hands them over one
        frame at a time)."""
        return list(self.records(chunk))

    def records(self, chunk: bytes) -> Iterator[Record]:
        """The records of :meth:`feed`, in the same order, each handed over as soon as the
        frame that completes it is read.

        The chunk goes to the container :data:`PIECE` bytes at a time, so the frames and
        records alive at once are those of a piece, not of the whole chunk: a consumer that
        drops each record leaves the garbage collector young objects only (it traverses the
        survivors of each collection again and again), and less memory is held.
        """
        if self._out:
            yield from self._take()
        view = memoryview(chunk)
        for at in range(0, len(view), PIECE):
            yield from self._items(self.container.feed(view[at : at + PIECE]))

    def close(self) -> list[Record]:
        if self._closed:
            return []
        self._closed = True
        out = list(self._items(self.container.close()))
        for key in list(self.flows):
            self._end(key, "capture-end")
        container = self.container
        self._out.append(
            CaptureEnd(
                Where(self.name, "", 0, container.bytes),
                format=container.format,
                frames=container.frames,
                bytes=container.bytes,
                quarantined_bytes=container.quarantined_bytes,
                counts=dict(sorted(self.counts.items())),
            )
        )
        return out + self._take()

    def _take(self) -> list[Record]:
        # the streams hold this very list: hand over its contents, keep the list
        out = self._out[:]
        self._out.clear()
        return out

    # --- frames ------------------------------------------------------------------------------

    def _items(self, items: list[RawFrame | Quarantine]) -> Iterator[Record]:
        """Read the container's frames and quarantine records in order; hand over the
        records each completes (the one place a frame is read)."""
        out, counts, flows, every = self._out, self.counts, self.flows, self.sweep_every
        for item in items:
            if type(item) is not RawFrame:
                out.append(item)  # type: ignore[arg-type]  # a Quarantine
                yield from self._take()
                continue
            number, link_type, time, data, length, _ = item
            if len(data) < length:
                counts["snaplen-cut"] += 1
            found = dissect(link_type, data, length)
            if type(found) is str:
                counts[found] += 1
            else:
                counts["tcp-1801"] += 1
                seg: Segment = found  # type: ignore[assignment]
                if seg.payload or seg.missing or seg.flags & _ENDING:
                    self.segment(seg, number, time)
                else:  # a bare ACK: it only tells the stream it is alive
                    direction = flows.get((seg.src, seg.sport, seg.dst, seg.dport))
                    if direction is not None:
                        direction.last_time = time
            if time is not None and math.floor(time / every) > self._swept:
                self.tick(time)  # the first frame of a new interval (tick's own test, inlined)
            if out:
                yield from self._take()

    def frame_segment(self, seg: Segment, number: int, time: float | None) -> None:
        """The TCP segment of port 1801 that frame ``number`` carried: what :meth:`_items`
        does with each, inline there for speed (a split read's range calls this for the
        connections it reads; tests/test_capture_split.py holds the two reads equal)."""
        if seg.payload or seg.missing or seg.flags & _ENDING:
            self.segment(seg, number, time)
        else:  # a bare ACK: it only tells the stream it is alive
            direction = self.flows.get((seg.src, seg.sport, seg.dst, seg.dport))
            if direction is not None:
                direction.last_time = time

    def resume_sweeps(self, interval: float) -> None:
        """Idle streams were last looked for in sweep ``interval`` (:meth:`tick`): a split
        read's range goes on from the highest interval of the ranges before it."""
        self._swept = interval

    def tick(self, time: float) -> None:
        """A frame captured at ``time`` was read: at the first frame of a new interval
        (:attr:`sweep_every`), streams silent for longer than the idle timeout end."""
        interval = math.floor(time / self.sweep_every)
        if interval > self._swept:
            self._swept = interval
            self.sweep(time)

    def segment(self, seg: Segment, number: int, time: float | None) -> None:
        """The TCP segment ``seg`` of port 1801, in frame ``number`` captured at ``time``
        (what :meth:`feed` does with each; a split read calls it flow by flow)."""
        key = (seg.src, seg.sport, seg.dst, seg.dport)
        direction = self.flows.get(key)
        flags = seg.flags
        seq = seg.seq
        if direction is not None and not flags & _ENDING:
            # the common case, data of a stream followed: the steps below for it
            direction.segment(seq, seg.payload, seg.missing, number, time)
            if direction.fin_at is not None and direction.complete:
                self._end(key, "fin")
            return
        has_data = bool(seg.payload) or bool(seg.missing)
        if flags & TCP_SYN:
            if direction is not None and direction.isn not in (None, (seq + 1) & MASK):
                self._end(key, "reused")  # a new connection on the same addresses and ports
                direction = None
            if direction is None:
                direction = self._open(key)
            direction.syn(seq, number, time)
            seq = (seq + 1) & MASK  # data on a SYN (TCP Fast Open) follows it
        elif direction is None:
            if not has_data:
                return  # an ACK or FIN of a stream not followed (or already ended)
            if self._late(key, seq, len(seg.payload) + seg.missing):
                self.counts["tcp-1801-after-end"] += 1
                return
            direction = self._open(key)
        direction.segment(seq, seg.payload, seg.missing, number, time)
        if flags & TCP_FIN:
            direction.fin(seq, len(seg.payload) + seg.missing)
        if flags & TCP_RST:
            self._end(key, "rst")
            self._end((seg.dst, seg.dport, seg.src, seg.sport), "rst")
        elif direction.complete:
            self._end(key, "fin")

    def _open(self, key: Key) -> Direction:
        src, sport, dst, dport = key
        stream = f"{format_endpoint(src, sport)} -> {format_endpoint(dst, dport)}"
        response: bool | None = None
        if sport == MSMQ_PORT and dport != MSMQ_PORT:
            response = True
        elif dport == MSMQ_PORT and sport != MSMQ_PORT:
            response = False
        direction = Direction(
            self.name,
            stream,
            self._out,
            response=response,
            max_pending=self.max_pending,
            signed_as=self.signed_as,
        )
        self.flows[key] = direction
        return direction

    def _end(self, key: Key, ended_by: str) -> None:
        direction = self.flows.pop(key, None)
        if direction is None:
            return
        direction.finish(ended_by)
        if direction.isn is not None:
            self.closed[key] = (direction.isn, direction.next)
            if len(self.closed) > _CLOSED_REMEMBERED:
                self.closed.popitem(last=False)

    def _late(self, key: Key, seq: int, size: int) -> bool:
        """Is this data a repeat of bytes of a stream that already ended?"""
        ended = self.closed.get(key)
        if ended is None:
            return False
        isn, length = ended
        return ((seq - isn) & MASK) + size <= length

    def end_streams(self, ended_by: str = "capture-end") -> list[Record]:
        """End every stream still open; the records that completes."""
        for key in list(self.flows):
            self._end(key, ended_by)
        return self._take()

    def take(self) -> list[Record]:
        """The records completed so far (each handed over once)."""
        return self._take()

    def sweep(self, now: float) -> None:
        """End the streams silent since before ``now`` minus the idle timeout."""
        for key, direction in list(self.flows.items()):
            last = direction.last_time
            if last is not None and now - last > self.idle_timeout:
                self._end(key, "idle")


def iter_capture(
    name: str,
    chunks: Iterable[bytes],
    *,
    max_pending: int = DEFAULT_MAX_PENDING,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    signed_as: AuthLevel = AuthLevel.Sig20,
) -> Iterator[Record]:
    """Every record of the capture ``name`` whose bytes are ``chunks``, in order; the last
    is its :class:`~.records.CaptureEnd`.  (One Spark task can call it per capture file.)"""
    reader = CaptureReader(
        name, max_pending=max_pending, idle_timeout=idle_timeout, signed_as=signed_as
    )
    for chunk in chunks:
        yield from reader.records(chunk)
    yield from reader.close()
