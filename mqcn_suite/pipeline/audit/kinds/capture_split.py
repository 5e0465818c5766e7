"""One capture file read as several byte ranges: the file side of :mod:`mqcn_model.capture.split`.

:func:`plan_split` reads a capture's first bytes and a window at each nominal split point
and returns the ranges (or, in one line, why the file is read whole);
:func:`read_range` runs one range task on the file; :func:`split_records` runs the whole
split read in this process and gives the same records as
:func:`mqcn_model.capture.iter_capture` (in another order), or the line saying why the file
must be read whole (then the caller reads it whole).

Memory: a range task holds one chunk and one record; the regrouping of segments by
connection holds their payloads until every range is read, so it is bounded by
``memory_budget`` bytes: a capture whose segments exceed it (one huge flow, say) is refused
with a line and read whole by the one-task reader, whose memory is bounded by the largest
packet and the out-of-order window.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mqcn_model.capture import Record
from mqcn_model.capture import split as model
from mqcn_model.capture.dissect import Segment, format_endpoint
from mqcn_model.capture.reader import DEFAULT_IDLE_TIMEOUT
from mqcn_model.capture.tcp import DEFAULT_MAX_PENDING
from mqcn_model.constants import AuthLevel

DEFAULT_SPLIT_BYTES = 256 << 20  # a capture above this is split (0: never)
HEAD_BYTES = 1 << 20  # read to find the layout (a pcapng preamble must fit)
WINDOW_BYTES = 1 << 20  # read at each split point to find a record boundary
DEFAULT_MEMORY_BUDGET = 512 << 20  # segment bytes the in-process regrouping may hold
CHUNK = 1 << 20


@dataclass(frozen=True)
class SplitPlan:
    """The ranges of one capture: ``starts[i]`` is range i's record boundary and
    ``ends[i]`` the nominal start of range i+1 (None for the last range)."""

    path: str
    size: int
    shape: model.Layout
    starts: tuple[int, ...]
    ends: tuple[int | None, ...]


def plan_split(
    path: str, threshold: int = DEFAULT_SPLIT_BYTES, window: int = WINDOW_BYTES
) -> SplitPlan | str:
    """The ranges of ``path`` (its size above ``threshold``), or why it is read whole."""
    size = Path(path).stat().st_size
    if threshold <= 0 or size <= threshold:
        return f"{size} bytes, not above the split threshold of {threshold} bytes"
    with open(path, "rb") as stream:
        shape = model.layout(stream.read(HEAD_BYTES))
        if isinstance(shape, str):
            return shape
        nominal = model.nominal_starts(size, shape.data_start, threshold)
        starts, ends = [shape.data_start], []
        for at in nominal[1:]:
            stream.seek(at)
            found = model.find_boundary(shape, stream.read(window), at, size)
            if found is None or found <= starts[-1]:
                continue  # no boundary in the window: the range before runs on
            ends.append(at)
            starts.append(found)
        ends.append(None)
    if len(starts) == 1:
        return "no record boundary found at any split point"
    return SplitPlan(path, size, shape, tuple(starts), tuple(ends))


def read_range(
    plan: SplitPlan, index: int, *, chunk: int = CHUNK, idle_timeout: float = DEFAULT_IDLE_TIMEOUT
) -> Iterator[model.SegmentEvent | model.RangeSummary]:
    """Range ``index`` of ``plan``: its segments, then its summary (the last item)."""
    reader = model.RangeReader(
        plan.path,
        plan.shape,
        index,
        plan.starts[index],
        plan.ends[index],
        idle_timeout=idle_timeout,
    )
    with open(plan.path, "rb") as stream:
        stream.seek(plan.starts[index])
        while not reader.done:
            data = stream.read(chunk)
            if not data:
                break
            yield from reader.feed(data)
    yield reader.close()


def split_records(
    path: str,
    threshold: int = DEFAULT_SPLIT_BYTES,
    *,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    chunk: int = CHUNK,
    window: int = WINDOW_BYTES,
    max_pending: int = DEFAULT_MAX_PENDING,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    signed_as: AuthLevel = AuthLevel.Sig20,
) -> list[Record] | str:
    """Every record of the capture ``path`` read as split ranges, then connection by
    connection (see the module docstring), or the line saying why it must be read whole."""
    plan = plan_split(path, threshold, window)
    if isinstance(plan, str):
        return f"{path}: read as one task: {plan}"
    groups: dict[model.Connection, list[tuple[int, int, float | None, Segment]]]
    groups = defaultdict(list)
    held: Counter[model.Connection] = Counter()
    summaries: list[model.RangeSummary] = []
    for index in range(len(plan.starts)):
        for item in read_range(plan, index, chunk=chunk, idle_timeout=idle_timeout):
            if isinstance(item, model.RangeSummary):
                summaries.append(item)
                continue
            groups[item.connection].append((index, item.frame, item.time, item.segment))
            held[item.connection] += len(item.segment.payload) + 64
            if held.total() > memory_budget:
                (largest, size), *_ = held.most_common(1)
                a, b = format_endpoint(*largest[:2]), format_endpoint(*largest[2:])
                return (
                    f"{path}: read as one task: the split's segments outgrow the memory "
                    f"budget of {memory_budget} bytes (the connection {a} <-> {b} alone "
                    f"holds {size})"
                )
    problem = model.check_ranges(summaries)
    if problem is not None:
        return f"{path}: read as one task: {problem}"
    offsets = model.frame_offsets(summaries)
    idle = model.sweeps(summaries)
    records: list[Record] = [q for s in summaries for q in s.quarantines]
    counts: Counter[str] = Counter()
    for events in groups.values():
        numbered = ((offsets[r] + frame, time, seg) for r, frame, time, seg in events)
        records.extend(
            model.replay(
                path,
                numbered,
                idle,
                max_pending=max_pending,
                idle_timeout=idle_timeout,
                signed_as=signed_as,
                counts=counts,
            )
        )
    records.append(model.capture_end(path, plan.shape, plan.size, summaries, counts))
    return records
