"""One capture read as many byte ranges, each connection by one range (pure: bytes in, records out).

A large capture is cut into byte ranges that separate tasks read at once; the records are
then the very records :func:`~mqcn_model.capture.iter_capture` yields for the whole file
(in another order).  The steps, and who runs them (docs/capture.md, "Splitting a capture"):

1. **Layout** (:func:`layout`, the driver, from the file's first bytes): the format and
   what every range must know before its first record — the pcap global header, or a pcapng
   section's Section Header Block and Interface Description Blocks up to its first packet
   block (the *preamble*).  One section whose interfaces are all described before its first
   packet can be split; anything else is read whole (the reason is a line).
2. **Boundaries** (:func:`find_boundary`, the driver, from a window of bytes at each nominal
   split point): the first place a record could start.  pcap: a 16-byte record header whose
   captured length is at most the file's snaplen and at most the original length, whose
   fraction of a second is below one second, whose original length is not 0, whose seconds
   are within a year of the first record's, and after which the next two records' headers
   pass the same checks (or the file ends exactly after them).  pcapng: a 4-byte aligned
   Enhanced, Simple or obsolete Packet Block whose leading and trailing lengths agree (a
   multiple of 4), whose interface exists and whose captured length fits, followed by two
   more such packet blocks (or the end).
3. **The scan** (:class:`RangeReader`, one task per range): the preamble, then the file
   from the range's boundary; whole records, until the first record that starts at or after
   the range's end (its offset is reported).  Each frame is dissected (link, IP, TCP) and
   counted by kind; each TCP segment of port 1801 is reported with its connection
   (:func:`connection`, both directions alike), its frame number in the range and its
   record's file offset.  The scan keeps no payload: it learns which connections each
   range holds, where their last record is, and where idle streams may be looked for.
4. **The check** (:func:`check_ranges`, the driver): each range must end exactly where the
   next range's boundary was guessed.  A forged record header inside a packet's payload can
   fool a guess; the range before it then reads past the guess (it reads true records from a
   true boundary), the offsets differ, and the file is read whole, with a line saying so.
   By induction from the first range (which starts at the true first record) every range
   that passes starts at a true record.  A range that meets a damaged record, a new pcapng
   section or a new interface is refused the same way.  The driver then numbers the frames
   in the file (:func:`frame_offsets`), finds the frames where the one-task read looks for
   idle streams (:func:`sweeps`, :func:`swept_before`) and gives each connection seen in
   several ranges to the first of them, episode by episode (:class:`Ownership`, from
   :func:`shared`: addresses and ports come back in long captures).
5. **The reads** (:class:`OwnedRangeReader`, one task per range): the range again, through
   the same reassembly and framing as the one-task read
   (:class:`~mqcn_model.capture.reader.CaptureReader`), for the connections seen in this
   range alone and for the episodes it owns, which it follows past its end up to their last
   record; the episodes owned by an earlier range are left to it.  Every frame read
   moves the capture time on, so idle streams are looked for at the same frames, and the
   streams still open at the end are ended at the file's later looks, else at its end.
   Nothing is regrouped or shuffled: each connection is read by one task, from its first
   segment to its last, holding what the one-task read holds.  The capture-level records
   come from the last range, and :func:`capture_end` sums the counts.

Two differences are allowed by construction and stated, both about the one-task read's
memory of the last 4096 ended streams (docs/capture.md, "Splitting a capture"): a range's
reader remembers the last 4096 of its own connections, which are fewer, so only a late
retransmission arriving after more than 4096 other streams ended can be read differently
(counted as late, not as a new stream); and a new episode remembers nothing of the one
before, so a segment of the other direction arriving without a SYN inside the bytes of that
direction's previous stream, ended more than the idle timeout before, is read as a new
stream where the one-task read may drop it as late.
"""

from __future__ import annotations

import bisect
import itertools
import math
import struct
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from mqcn_model.capture.containers import (
    MAX_BLOCK_BYTES,
    MAX_FRAME_BYTES,
    PCAP_MICRO,
    PCAP_NANO,
    PCAPNG_BOM,
    PCAPNG_EPB,
    PCAPNG_IDB,
    PCAPNG_PB,
    PCAPNG_SHB,
    PCAPNG_SPB,
    ContainerReader,
)
from mqcn_model.capture.dissect import (
    IPPROTO_TCP,
    LINK_ETHERNET,
    MSMQ_PORT,
    TCP_SYN,
    Segment,
    dissect,
)
from mqcn_model.capture.reader import DEFAULT_IDLE_TIMEOUT, CaptureReader
from mqcn_model.capture.records import CAPTURE_CORRUPT, CaptureEnd, Quarantine, Record, Where
from mqcn_model.capture.tcp import DEFAULT_MAX_PENDING
from mqcn_model.constants import AuthLevel

__all__ = [
    "Layout",
    "OwnedRangeReader",
    "Ownership",
    "RangeReader",
    "RangeSummary",
    "capture_end",
    "check_ranges",
    "connection",
    "find_boundary",
    "frame_connection",
    "frame_offsets",
    "layout",
    "nominal_starts",
    "sweeps",
    "swept_before",
]

PLAUSIBLE_SECONDS = 366 * 86400  # a record's time within a year of the first record's
CHAIN = 3  # records checked from a candidate boundary (fewer when the file ends)
_PACKET_BLOCKS = frozenset({PCAPNG_EPB, PCAPNG_SPB, PCAPNG_PB})
_PCAP_HEADER = 24

Connection = tuple[bytes, int, bytes, int]  # the lower endpoint first


@dataclass(frozen=True, slots=True)
class Layout:
    """What every range task must know of its file (see :func:`layout`)."""

    format: str  # pcap or pcapng
    preamble: bytes  # fed before a range's bytes: the pcap header, or SHB + IDBs
    endian: str  # "<" or ">"
    divisor: int = 1_000_000  # pcap: ticks per second
    snaplen: int = 0  # pcap: the global header's snaplen (0: none stated)
    first_seconds: int | None = None  # pcap: the first record's seconds
    interfaces: int = 0  # pcapng: interfaces described in the preamble

    @property
    def data_start(self) -> int:
        """The file offset of the first record or packet block."""
        return len(self.preamble)

    def container_at(self, name: str, start: int) -> tuple[ContainerReader, int]:
        """A container reader of file ``name`` ready for the file's bytes from offset
        ``start`` (a record boundary: it has read the preamble), and the shift that turns its
        offsets into the file's (file offset = reader offset + shift)."""
        container = ContainerReader(name)
        container.feed(self.preamble)
        return container, start - len(self.preamble)


def layout(head: bytes) -> Layout | str:
    """The layout of the capture whose first bytes are ``head`` (enough to hold its header
    and, for pcapng, every block before its first packet block), or why it cannot be split."""
    if len(head) < 4:
        return "the file is too short to be split"
    magic_le = int.from_bytes(head[:4], "little")
    magic_be = int.from_bytes(head[:4], "big")
    if magic_le == PCAPNG_SHB:
        return _pcapng_layout(head)
    for magic in (PCAP_MICRO, PCAP_NANO):
        if magic in (magic_le, magic_be):
            if len(head) < _PCAP_HEADER:
                return "the file ends inside its pcap header"
            endian = "<" if magic == magic_le else ">"
            (snaplen,) = struct.unpack_from(endian + "I", head, 16)
            first = None
            if len(head) >= _PCAP_HEADER + 4:
                (first,) = struct.unpack_from(endian + "I", head, _PCAP_HEADER)
            divisor = 1_000_000 if magic == PCAP_MICRO else 10**9
            return Layout("pcap", bytes(head[:_PCAP_HEADER]), endian, divisor, snaplen, first)
    return "the file is neither pcap nor pcapng"


def _pcapng_layout(head: bytes) -> Layout | str:
    if len(head) < 12:
        return "the file ends inside its first pcapng block"
    bom = head[8:12]
    if bom == PCAPNG_BOM.to_bytes(4, "little"):
        endian = "<"
    elif bom == PCAPNG_BOM.to_bytes(4, "big"):
        endian = ">"
    else:
        return "the pcapng Section Header Block has no byte-order magic"
    at, interfaces = 0, 0
    while at + 8 <= len(head):
        kind, length = struct.unpack_from(endian + "II", head, at)
        if kind in _PACKET_BLOCKS:
            return Layout("pcapng", bytes(head[:at]), endian, interfaces=interfaces)
        if kind == PCAPNG_SHB and at:
            return "the pcapng file has a second section before its first packet"
        if length < 12 or length % 4 or at + length > len(head):
            break
        interfaces += kind == PCAPNG_IDB
        at += length
    return "no pcapng packet block follows the file's first blocks"


def nominal_starts(size: int, data_start: int, threshold: int) -> list[int]:
    """Where the ranges of a ``size``-byte file nominally start: every ``threshold`` bytes
    after the first record (one range when the file is no larger than ``threshold``)."""
    if threshold <= 0 or size <= threshold:
        return [data_start]
    return [data_start, *range(max(threshold, data_start + 1), size, threshold)]


# --- boundaries --------------------------------------------------------------------------------


def find_boundary(shape: Layout, window: bytes, at: int, size: int) -> int | None:
    """The first file offset at or after ``at`` where a record can start, judged from
    ``window`` (the file's bytes from ``at``; ``size``: the file's size); None when the
    window holds none (the range is then joined to the one before)."""
    check = _pcap_candidate if shape.format == "pcap" else _pcapng_candidate
    start = 0 if shape.format == "pcap" else -at % 4
    step = 1 if shape.format == "pcap" else 4
    for i in range(start, len(window) - 7, step):
        following: int | None = i
        for _ in range(CHAIN):  # the candidate, then the records after it
            following = check(shape, window, following)
            if following is None or at + following == size:
                break
        if following is not None:
            return at + i
    return None


def _pcap_candidate(shape: Layout, window: bytes, i: int) -> int | None:
    """The window index after the pcap record header at ``i`` and its bytes, if plausible."""
    if i + 16 > len(window):
        return None
    seconds, fraction, caplen, length = struct.unpack_from(shape.endian + "IIII", window, i)
    snaplen = shape.snaplen or MAX_FRAME_BYTES
    if caplen > snaplen or caplen > length or not 0 < length <= MAX_FRAME_BYTES:
        return None
    if fraction >= shape.divisor:
        return None
    if shape.first_seconds is not None and abs(seconds - shape.first_seconds) > PLAUSIBLE_SECONDS:
        return None
    return i + 16 + caplen


def _pcapng_candidate(shape: Layout, window: bytes, i: int) -> int | None:
    """The window index after the pcapng packet block at ``i``, if its fields agree."""
    if i + 12 > len(window):
        return None
    kind, length = struct.unpack_from(shape.endian + "II", window, i)
    if length < 12 or length % 4 or length > MAX_BLOCK_BYTES or i + length > len(window):
        return None
    (trailer,) = struct.unpack_from(shape.endian + "I", window, i + length - 4)
    if trailer != length:
        return None
    if kind == PCAPNG_EPB:
        if length < 32:
            return None
        interface, _, _, caplen = struct.unpack_from(shape.endian + "IIII", window, i + 8)
        if interface >= shape.interfaces or caplen > length - 32:
            return None
    elif kind == PCAPNG_PB:
        if length < 32:
            return None
        (interface,) = struct.unpack_from(shape.endian + "H", window, i + 8)
        if interface >= shape.interfaces:
            return None
    elif kind != PCAPNG_SPB or length < 16 or shape.interfaces == 0:
        return None
    return i + length


# --- range tasks -------------------------------------------------------------------------------


def connection(seg: Segment) -> Connection:
    """The connection of a segment, the same for both directions (lower endpoint first)."""
    a, b = (seg.src, seg.sport), (seg.dst, seg.dport)
    low, high = (a, b) if a <= b else (b, a)
    return (low[0], low[1], high[0], high[1])


_IPV4_ETHERNET = b"\x08\x00"
_PORT = MSMQ_PORT.to_bytes(2, "big")


def frame_connection(
    link_type: int | None, data: bytes, length: int
) -> tuple[Connection, bool] | None:
    """The connection of the TCP segment of port 1801 a frame may carry, and whether the
    segment has the SYN flag; None when the frame carries no such segment.

    When :func:`~mqcn_model.capture.dissect.dissect` finds a segment, this finds its
    :func:`connection` and flag; it may also name a connection for a frame dissect rejects,
    or miss the flag of a frame cut short (a scan only learns where connections are and
    where one may begin again: naming one too often, or a beginning too rarely, only makes a
    range read further).  The common frame, Ethernet and IPv4 with no VLAN tag, is read at
    fixed offsets; any other goes through dissect."""
    if link_type == LINK_ETHERNET and data[12:14] == _IPV4_ETHERNET and len(data) >= 34:
        at = 14 + (data[14] & 0x0F) * 4
        if data[23] != IPPROTO_TCP or data[20] & 0x3F or data[21] or len(data) < at + 4:
            return None  # not TCP, an IPv4 fragment, or cut before the ports: no segment
        if data[at : at + 2] != _PORT and data[at + 2 : at + 4] != _PORT:
            return None
        a = (data[26:30], int.from_bytes(data[at : at + 2], "big"))
        b = (data[30:34], int.from_bytes(data[at + 2 : at + 4], "big"))
        low, high = (a, b) if a <= b else (b, a)
        syn = len(data) > at + 13 and bool(data[at + 13] & TCP_SYN)
        return (low[0], low[1], high[0], high[1]), syn
    found = dissect(link_type, data, length)
    if type(found) is str:
        return None
    seg: Segment = found  # type: ignore[assignment]
    return connection(seg), bool(seg.flags & TCP_SYN)


class Trace(NamedTuple):
    """Where a range saw a connection: its first frame (number in the range, time, whether
    its segment has the SYN flag), its last frame (number in the range, the file offset of
    its record), and the latest time of its frames (None when a frame had no time)."""

    range: int
    first_frame: int
    first_time: float | None
    first_syn: bool
    last_frame: int
    last_offset: int
    latest: float | None


@dataclass
class RangeSummary:
    """What a range task reports besides its segments (see :func:`check_ranges`)."""

    index: int
    start: int  # its boundary
    end: int  # the offset of the first record at or after its end (the file's size: last)
    frames: int = 0
    counts: Counter[str] = field(default_factory=Counter)  # (the reads count the frames)
    # frames (number in the range, time, interval) whose sweep interval is above every
    # earlier frame's of the range: where the one-task read may look for idle streams
    sweeps: list[tuple[int, float, int]] = field(default_factory=list)
    quarantines: list[Quarantine] = field(default_factory=list)  # the last range's
    problem: str | None = None  # why the file must be read whole after all


class RangeReader:
    """Reads one byte range of a capture (see the module docstring, step 3).

    Feed it the file's bytes from ``start`` on with :meth:`feed` while :attr:`done` is
    False; :meth:`close` gives the :class:`RangeSummary`.  ``end`` is the next range's
    nominal start (None: the range runs to the end of the file).
    """

    def __init__(
        self,
        name: str,
        shape: Layout,
        index: int,
        start: int,
        end: int | None,
        *,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    ) -> None:
        self.shape = shape
        self.end = end
        self.container, self.shift = shape.container_at(name, start)
        self.sweep_every = max(1.0, idle_timeout / 4)
        self.summary = RangeSummary(index, start, start)
        # each connection the range holds: [first frame, its time, its SYN flag, last frame,
        # the file offset of its record, the latest time] (see :meth:`traces`)
        self.seen: dict[Connection, list[Any]] = {}
        self.done = False
        self._interval = -math.inf
        self._position = start  # file offset of the next byte fed
        self._block = start  # pcapng: file offset of the next block header
        self._tail = b""  # pcapng: the first bytes of that header, when cut by a chunk

    def feed(self, chunk: bytes) -> None:
        """Read the whole records the chunk completed, up to the range's end: the
        connections they carry go to :attr:`seen`."""
        if self.done:
            return
        if self.shape.format == "pcapng":
            self._walk(chunk)
        self._position += len(chunk)
        summary = self.summary
        seen = self.seen
        for item in self.container.feed(chunk):
            if isinstance(item, Quarantine):  # damage: the one-task read must report it
                summary.problem = summary.problem or f"range {summary.index}: {item.detail}"
                continue
            offset = item.offset + self.shift
            if self.end is not None and offset >= self.end:
                summary.end = offset
                self.done = True
                break
            summary.frames += 1
            found = frame_connection(item.link_type, item.data, item.length)
            if found is not None:
                time, frame = item.time, summary.frames
                trace = seen.get(found[0])
                if trace is None:
                    seen[found[0]] = [frame, time, found[1], frame, offset, time]
                else:
                    trace[3] = frame
                    trace[4] = offset
                    latest = trace[5]
                    if time is None or latest is None:
                        trace[5] = None  # an untimed frame: idle streams cannot be judged
                    elif time > latest:
                        trace[5] = time
            if item.time is not None:
                interval = math.floor(item.time / self.sweep_every)
                if interval > self._interval:
                    self._interval = interval
                    summary.sweeps.append((summary.frames, item.time, interval))

    def traces(self) -> dict[Connection, Trace]:
        """Each connection the range holds, and where (:class:`Trace`)."""
        index = self.summary.index
        return {conn: Trace(index, *trace) for conn, trace in self.seen.items()}

    def close(self) -> RangeSummary:
        """The range's summary; the last range also reports the file's truncated end."""
        summary = self.summary
        ending = self.container.close()
        if self.end is None:
            summary.end = self._position
            for item in ending:
                if item.reason == CAPTURE_CORRUPT:
                    summary.problem = f"range {summary.index}: {item.detail}"
                shifted = replace(item.where, offset=item.where.offset + self.shift)
                summary.quarantines.append(replace(item, where=shifted))
        elif not self.done:
            why = next((i.detail for i in ending if i.reason == CAPTURE_CORRUPT), "")
            summary.problem = (
                f"range {summary.index} stopped at offset {self._position} before its end "
                f"{self.end}" + (f" ({why})" if why else "")
            )
            summary.end = self._position
        return summary

    def _walk(self, chunk: bytes) -> None:
        """Follow the pcapng block headers: a new section or interface refuses the split.

        Every block the range's reader reads is walked: those before its end, and those
        after it up to the first packet block there (the next range's boundary) -- a
        section or interface block between the two is read by this range alone."""
        data = self._tail + chunk
        base = self._position - len(self._tail)
        limit = self.end if self.end is not None else math.inf
        while self._block + 8 <= base + len(data):
            kind, length = struct.unpack_from(self.shape.endian + "II", data, self._block - base)
            if self._block >= limit and kind in _PACKET_BLOCKS:
                self._block = math.inf  # type: ignore[assignment]  # the next range's: walked
                break
            if kind in (PCAPNG_SHB, PCAPNG_IDB) and self.summary.problem is None:
                what = "section" if kind == PCAPNG_SHB else "interface description"
                self.summary.problem = (
                    f"a pcapng {what} block at offset {self._block}, after the first packet "
                    "(the ranges would not know it)"
                )
            if length < 12 or length % 4:
                self._block = math.inf  # type: ignore[assignment]  # damage: the reader says
                break
            self._block += length
        cut = self._block - base
        self._tail = bytes(data[cut:]) if 0 <= cut < len(data) else b""


# --- the driver's check, then the flows ---------------------------------------------------------


def check_ranges(summaries: list[RangeSummary]) -> str | None:
    """Why the ranges cannot stand for the file (None: each ended where the next began).

    In file order: a range's own problem, then whether it ended where the next range's
    boundary was guessed (a range after a wrong guess may fail in its own way: the wrong
    guess is what is reported).
    """
    for before, after in itertools.zip_longest(summaries, summaries[1:]):
        if before.problem:
            return before.problem
        if after is not None and before.end != after.start:
            return (
                f"range {before.index} read records up to offset {before.end}, but the next "
                f"record boundary was guessed at {after.start} (a record header inside a "
                "packet's bytes?)"
            )
    return None


def frame_offsets(summaries: list[RangeSummary]) -> list[int]:
    """What to add to a range's frame numbers to number them in the file."""
    offsets, total = [], 0
    for summary in summaries:
        offsets.append(total)
        total += summary.frames
    return offsets


def sweeps(summaries: list[RangeSummary]) -> list[tuple[int, float]]:
    """The frames (numbered in the file, with their time) at which the one-task read looks
    for idle streams: those whose sweep interval is above every earlier frame's."""
    out: list[tuple[int, float]] = []
    highest = -math.inf
    for offset, summary in zip(frame_offsets(summaries), summaries, strict=True):
        for frame, time, interval in summary.sweeps:
            if interval > highest:
                highest = interval
                out.append((offset + frame, time))
    return out


def swept_before(summaries: list[RangeSummary]) -> list[float]:
    """For each range, the highest sweep interval of the ranges before it (where its reader
    goes on looking for idle streams: :meth:`CaptureReader.resume_sweeps`)."""
    out: list[float] = []
    highest = -math.inf
    for summary in summaries:
        out.append(highest)
        if summary.sweeps:
            highest = max(highest, summary.sweeps[-1][2])
    return out


def shared(seen: list[dict[Connection, Trace]]) -> Iterator[tuple[Connection, list[Trace]]]:
    """The connections seen in more than one range, each with its traces in range order
    (from each range's :meth:`RangeReader.traces`)."""
    found: dict[Connection, list[Trace]] = {}
    for traces in seen:
        for conn, trace in traces.items():
            found.setdefault(conn, []).append(trace)
    for conn, traces in found.items():
        if len(traces) > 1:
            yield conn, traces


@dataclass(frozen=True)
class Ownership:
    """Which range reads each connection seen in more than one range.

    A connection's segments in several ranges are cut into *episodes*: a new episode begins
    at the first segment a range sees of it when that segment has the SYN flag and the
    one-task read has ended every stream of the connection before it (a look for idle
    streams came between, later than the idle timeout after the connection's latest frame
    so far).  The one-task read then holds nothing of it (but the memory of its ended
    streams: module docstring), so the episode can be read on its own.  Each episode is
    read by the range it begins in, its *owner*, which reads on past its end up to the
    episode's last record.  (Addresses and ports come back in long captures: without the
    cut, the first range would read on to the file's end.)

    ``owners``: connection → its episodes as (number in the file of their first frame,
    owning range), in order, for the connections with an episode running into a later range
    (any other is read range by range, each range its own part, like a connection of one
    range only: so the ownership stays as small as the connections crossing the cuts);
    ``reach``: range → the file offset of the last record of an episode it owns that lies
    beyond its end (absent: the range stops at its end).
    """

    owners: dict[Connection, list[tuple[int, int]]] = field(default_factory=dict)
    reach: dict[int, int] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        found: Iterable[tuple[Connection, list[Trace]]],
        offsets: list[int],
        idle_sweeps: list[tuple[int, float]],
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    ) -> Ownership:
        """The ownership of the connections ``found`` in several ranges (:func:`shared`);
        ``offsets`` from :func:`frame_offsets`, ``idle_sweeps`` from :func:`sweeps`."""
        frames = [number for number, _ in idle_sweeps]
        owners: dict[Connection, list[tuple[int, int]]] = {}
        reach: dict[int, int] = {}

        def ended_between(before: Trace, after: Trace) -> bool:
            """Did a look for idle streams end every stream of ``before`` in between?"""
            if before.latest is None:
                return False
            last = offsets[before.range] + before.last_frame
            at = bisect.bisect_left(frames, offsets[after.range] + after.first_frame) - 1
            return (
                at >= 0 and frames[at] > last and idle_sweeps[at][1] - before.latest > idle_timeout
            )

        for conn, traces in found:
            traces = sorted(traces, key=lambda t: t.range)
            owner, final = traces[0].range, traces[0]
            episodes = [(offsets[owner] + traces[0].first_frame, owner)]
            spanning = False  # does an episode run into a later range?
            for before, after in itertools.pairwise([*traces, None]):
                if after is None or (after.first_syn and ended_between(before, after)):
                    if final.range > owner:
                        reach[owner] = max(reach.get(owner, final.last_offset), final.last_offset)
                        spanning = True
                    if after is None:
                        break
                    owner = after.range
                    episodes.append((offsets[owner] + after.first_frame, owner))
                final = after
            if spanning:  # else each range reads its own episodes: as if not listed
                owners[conn] = episodes
        return cls(owners, reach)


class OwnedRangeReader:
    """Reads one range for its records (see the module docstring, step 5): the connections
    seen in this range alone and those it owns (:class:`Ownership`), read on past the
    range's end as far as its owned connections go.

    ``frame_offset``: the frames of the ranges before (:func:`frame_offsets`); ``swept``:
    the highest sweep interval before the range (:func:`swept_before`).  Feed the file's
    bytes from ``start`` with :meth:`feed` while :attr:`done` is False; :meth:`close` (with
    the file's sweeps, :func:`sweeps`) ends the streams as the one-task read would.
    """

    def __init__(
        self,
        name: str,
        shape: Layout,
        index: int,
        start: int,
        end: int | None,
        ownership: Ownership,
        *,
        frame_offset: int,
        swept: float,
        max_pending: int = DEFAULT_MAX_PENDING,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        signed_as: AuthLevel = AuthLevel.Sig20,
    ) -> None:
        self.index = index
        self.end = math.inf if end is None else end
        self.reach = ownership.reach.get(index, -1)  # records at or before it are read
        self.owners = ownership.owners
        self.container, self.shift = shape.container_at(name, start)
        self.reader = CaptureReader(
            name, max_pending=max_pending, idle_timeout=idle_timeout, signed_as=signed_as
        )
        self.reader.resume_sweeps(swept)
        self.frame_offset = frame_offset
        self.last = frame_offset  # the number of the last frame read
        self.done = False

    def feed(self, chunk: bytes) -> list[Record]:
        """The records the chunk completed."""
        if self.done:
            return []
        reader, owners, index = self.reader, self.owners, self.index
        counts = reader.counts
        for item in self.container.feed(chunk):
            if isinstance(item, Quarantine):  # the range's scan found none: the file changed
                raise ValueError(f"range {index} of {item.where.capture}: {item.detail}")
            offset = item.offset + self.shift
            inside = offset < self.end
            if not inside and offset > self.reach:
                self.done = True
                break
            number = self.last = self.frame_offset + item.number
            found = dissect(item.link_type, item.data, item.length)
            if type(found) is str:
                if inside:  # frames are counted by the range they lie in
                    counts[found] += 1  # type: ignore[index]
            else:
                seg: Segment = found  # type: ignore[assignment]
                if inside:
                    counts["tcp-1801"] += 1
                episodes = owners.get(connection(seg))
                if episodes is None:
                    read = inside  # a connection of this range alone
                else:
                    owner = episodes[0][1]
                    for first, who in episodes:  # few: one per reuse of the addresses
                        if first > number:
                            break
                        owner = who
                    read = owner == index
                if read:
                    reader.frame_segment(seg, number, item.time)
            if inside and item.cut:
                counts["snaplen-cut"] += 1
            if item.time is not None:
                reader.tick(item.time)
        return reader.take()

    def close(self, idle_sweeps: list[tuple[int, float]]) -> list[Record]:
        """The records of the streams still open: ended at the file's later looks for idle
        streams (``idle_sweeps``, :func:`sweeps`), else at the capture's end."""
        reader = self.reader
        for number, time in idle_sweeps:
            if not reader.flows:
                break
            if number > self.last:
                reader.sweep(time)
        return reader.end_streams()

    @property
    def counts(self) -> Counter[str]:
        """The range's frames counted by kind (and late repeats of ended streams)."""
        return self.reader.counts


def capture_end(
    name: str, shape: Layout, size: int, summaries: list[RangeSummary], counts: Counter[str]
) -> CaptureEnd:
    """The capture's last record from its ranges' summaries (``counts``: the frames the
    reads counted)."""
    merged: Counter[str] = Counter(counts)
    for summary in summaries:
        merged.update(summary.counts)
    return CaptureEnd(
        Where(name, "", 0, size),
        format=shape.format,
        frames=sum(s.frames for s in summaries),
        bytes=size,
        quarantined_bytes=sum(q.where.size for s in summaries for q in s.quarantines),
        counts=dict(sorted(merged.items())),
    )
