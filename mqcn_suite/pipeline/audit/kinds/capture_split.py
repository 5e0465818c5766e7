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

import itertools
import pickle
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

import mqcn_suite.pipeline.audit.schema as schema
from mqcn_model.capture import Record
from mqcn_model.capture import split as model
from mqcn_model.capture.dissect import Segment, format_endpoint
from mqcn_model.capture.reader import DEFAULT_IDLE_TIMEOUT
from mqcn_model.capture.tcp import DEFAULT_MAX_PENDING
from mqcn_model.constants import AuthLevel
from mqcn_model.errata import Readings
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.schema import spark_schema
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.audit.tasks import RowBuilder
from mqcn_suite.pipeline.session import PipelineError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# A capture above this many bytes is split; 0, the default: never (measured slower than one
# task on local[2] so far: docs/spark.md).  256 MiB (268435456) is a sensible value to try.
DEFAULT_SPLIT_BYTES = 0
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


def plan_split(path: str, threshold: int, window: int = WINDOW_BYTES) -> SplitPlan | str:
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
        for cut in nominal[1:]:
            at = max(cut, starts[-1] + 1)  # after the range before, whose records are long
            stream.seek(at)
            found = model.find_boundary(shape, stream.read(window), at, size)
            if found is None:
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
    threshold: int,
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
    total = 0
    summaries: list[model.RangeSummary] = []
    for index in range(len(plan.starts)):
        for item in read_range(plan, index, chunk=chunk, idle_timeout=idle_timeout):
            if isinstance(item, model.RangeSummary):
                summaries.append(item)
                continue
            groups[item.connection].append((index, item.frame, item.time, item.segment))
            size = len(item.segment.payload) + 64  # the payload and about its headers
            held[item.connection] += size
            total += size
            if total > memory_budget:
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


# --- on Spark -----------------------------------------------------------------------------------

SPLIT_CONF = "mqcn.capture.split"  # --conf key: split captures above this many bytes (0: never)
# The rows of the range tasks: a segment (kind "s") or a range's summary (kind "r", pickled).
SEGMENT_SCHEMA = pa.schema(
    [
        ("kind", pa.string()),
        ("conn", pa.binary()),
        ("range", pa.int32()),
        ("frame", pa.int64()),
        ("time", pa.float64()),
        ("src", pa.binary()),
        ("dst", pa.binary()),
        ("sport", pa.int32()),
        ("dport", pa.int32()),
        ("seq", pa.int64()),
        ("ack", pa.int64()),
        ("flags", pa.int32()),
        ("payload", pa.binary()),
        ("missing", pa.int64()),
        ("summary", pa.binary()),
    ]
)
_SEGMENT_BATCH = 4096
# What judges a capture's records into rows (kinds.capture._judge_records; it and the frame
# counts' prefix are passed in: this module does not import the capture kind, which imports
# it).
JudgeRecords = Callable[[Auditor, RowBuilder, Iterator[Record], int], Iterator[pa.RecordBatch]]


def split_threshold(conf: Callable[[str, str], str | None]) -> int:
    """The split threshold of a session whose ``conf(key, default)`` is given (bytes)."""
    value = (conf(SPLIT_CONF, str(DEFAULT_SPLIT_BYTES)) or "0").strip()
    try:
        threshold = int(value)
    except ValueError:
        raise PipelineError(
            f"--conf {SPLIT_CONF}={value!r}: expected a number of bytes (0: never split)"
        ) from None
    return max(0, threshold)


def _conn_key(connection: model.Connection) -> bytes:
    a, pa_, b, pb = connection
    return bytes([len(a)]) + a + pa_.to_bytes(2, "big") + b + pb.to_bytes(2, "big")


def range_task(plan: SplitPlan) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function of the range tasks: range indexes in, segment rows out
    (built column by column: no dict per segment)."""
    names = SEGMENT_SCHEMA.names

    def batch_of(columns: list[list[Any]]) -> pa.RecordBatch:
        return pa.RecordBatch.from_arrays(
            [pa.array(c, type=f.type) for c, f in zip(columns, SEGMENT_SCHEMA, strict=True)],
            schema=SEGMENT_SCHEMA,
        )

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for index in batch.column("index").to_pylist():
                columns: list[list[Any]] = [[] for _ in names]
                for item in read_range(plan, index):
                    if isinstance(item, model.RangeSummary):
                        row = ["r", None, index, None, None, None, None, None, None, None]
                        row += [None, None, None, None, pickle.dumps(item)]
                    else:
                        seg = item.segment
                        row = [
                            "s",
                            _conn_key(item.connection),
                            index,
                            item.frame,
                            item.time,
                            seg.src,
                            seg.dst,
                            seg.sport,
                            seg.dport,
                            seg.seq,
                            seg.ack,
                            seg.flags,
                            seg.payload,
                            seg.missing,
                            None,
                        ]
                    for column, value in zip(columns, row, strict=True):
                        column.append(value)
                    if len(columns[0]) >= _SEGMENT_BATCH:
                        yield batch_of(columns)
                        columns = [[] for _ in names]
                if columns[0]:
                    yield batch_of(columns)

    return run


def flow_task(
    path: str,
    readings: Readings,
    offsets: list[int],
    idle: list[tuple[int, float]],
    judge_records: JudgeRecords,
    batch: int,
    frames_prefix: str,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function of the flow tasks: segments sorted by connection and frame
    in, the rows of their records out (the same judging as the one-task read)."""

    def segments(batches: Iterator[pa.RecordBatch]) -> Iterator[tuple[bytes, int, Any, Segment]]:
        fields = ("src", "dst", "sport", "dport", "seq", "ack", "flags", "payload", "missing")
        for part in batches:
            columns = [part.column(name).to_pylist() for name in ("conn", "range", "frame", "time")]
            segs = itertools.starmap(
                Segment, zip(*(part.column(n).to_pylist() for n in fields), strict=True)
            )
            for (conn, index, frame, time), seg in zip(
                zip(*columns, strict=True), segs, strict=True
            ):
                yield conn, offsets[index] + frame, time, seg

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        auditor = Auditor(readings)
        rows = RowBuilder(Tally())
        counts: Counter[str] = Counter()

        def records() -> Iterator[Record]:
            for _, group in itertools.groupby(segments(batches), key=lambda item: item[0]):
                events = ((number, time, seg) for _, number, time, seg in group)
                yield from model.replay(path, events, idle, counts=counts)

        yield from judge_records(auditor, rows, records(), batch)
        for kind, frames in counts.items():
            rows.tally.count(frames_prefix + kind, frames)
        yield rows.tally.batch()

    return run


def split_frame(
    spark: SparkSession,
    plan: SplitPlan,
    readings: Readings,
    judge_records: JudgeRecords,
    batch: int,
    frames_prefix: str,
) -> DataFrame | str:
    """The rows of one capture read as split ranges on Spark, or the line saying why it must
    be read whole.  The range tasks' segments are kept on disk, the driver checks the ranges,
    then a shuffle by connection gives each flow to one task (Spark's sort spills to disk:
    a flow larger than a task's memory is streamed, never held)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    count = len(plan.starts)
    indexes = spark.createDataFrame([(i,) for i in range(count)], "index int").repartition(count)
    segments = indexes.mapInArrow(range_task(plan), spark_schema(SEGMENT_SCHEMA))
    segments = segments.persist(StorageLevel.DISK_ONLY)
    found = segments.filter(F.col("kind") == "r").select("summary").collect()
    summaries = sorted((pickle.loads(r["summary"]) for r in found), key=lambda s: s.index)
    problem = model.check_ranges(summaries)
    if problem is not None:
        segments.unpersist()
        return f"{plan.path}: read as one task: {problem}"
    offsets = model.frame_offsets(summaries)
    idle = model.sweeps(summaries)
    flows = (
        segments.filter(F.col("kind") == "s")
        .repartition(count, "conn")
        .sortWithinPartitions("conn", "range", "frame")
    )
    task = flow_task(plan.path, readings, offsets, idle, judge_records, batch, frames_prefix)
    judged = flows.mapInArrow(task, spark_schema(schema.ROW_SCHEMA))
    # the capture-level records: the last range's quarantine, then the capture's end
    rows = RowBuilder(Tally())
    ending = [q for s in summaries for q in s.quarantines]
    ending.append(model.capture_end(plan.path, plan.shape, plan.size, summaries, Counter()))
    table = pa.Table.from_batches(
        [*judge_records(Auditor(readings), rows, iter(ending), batch), rows.tally.batch()],
        schema=schema.ROW_SCHEMA,
    )
    literal = [tuple(r[n] for n in schema.ROW_COLUMNS) for r in table.to_pylist()]
    return judged.unionByName(spark.createDataFrame(literal, spark_schema(schema.ROW_SCHEMA)))
