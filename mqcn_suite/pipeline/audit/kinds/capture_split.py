"""One capture file read as several byte ranges: the file side of :mod:`mqcn_model.capture.split`.

:func:`plan_split` reads a capture's first bytes and a window at each nominal split point
and returns the ranges (or, in one line, why the file is read whole); :func:`scan_range`
runs one range's scan (its connections and summary) and :func:`read_owned` one range's read
for records; :func:`split_records` runs the whole split read in this process and gives the
same records as :func:`mqcn_model.capture.iter_capture` (in another order), or the line
saying why the file must be read whole (then the caller reads it whole).

On Spark (:func:`split_frame`) the scans are one job (a task per range; only their summaries
and the connections seen in several ranges come back to the driver) and the reads another
(a task per range, each judging its records into rows).  Memory: a task holds one chunk, and
what the one-task reader holds for the connections it reads; a connection that runs through
many ranges is read by its first range alone, streamed, never gathered.
"""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

import mqcn_suite.pipeline.audit.schema as schema
from mqcn_model.capture import Record
from mqcn_model.capture import split as model
from mqcn_model.capture.reader import DEFAULT_IDLE_TIMEOUT, PIECE
from mqcn_model.capture.tcp import DEFAULT_MAX_PENDING
from mqcn_model.constants import AuthLevel
from mqcn_model.errata import Readings
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.schema import spark_schema
from mqcn_suite.pipeline.audit.sink import VerdictSink, map_rows
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.audit.tasks import RowBuilder
from mqcn_suite.pipeline.session import ConfGetter, PipelineError, register_own_check

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# A capture above this many bytes is split into ranges of this many bytes (0: never).  64 MiB:
# on local[2] a 272 MB capture is read in 0.6 of the one task's time (docs/spark.md); the
# in-process engine, which never splits, takes the captures up to 128 MB.
DEFAULT_SPLIT_BYTES = 64 << 20
HEAD_BYTES = 1 << 20  # read to find the layout (a pcapng preamble must fit)
WINDOW_BYTES = 1 << 20  # read at each split point to find a record boundary
CHUNK = PIECE  # a range is read 64 KiB at a time: few records alive at once (reader.PIECE)


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


def _range_bytes(
    plan: SplitPlan, index: int, chunk: int, reading: Callable[[], bool]
) -> Iterator[bytes]:
    """The file's bytes from range ``index``'s boundary on, ``chunk`` at a time, while
    ``reading()`` (the range's reader wants more) and the file has any."""
    with open(plan.path, "rb") as stream:
        stream.seek(plan.starts[index])
        while reading():
            data = stream.read(chunk)
            if not data:
                return
            yield data


def scan_range(
    plan: SplitPlan, index: int, *, chunk: int = CHUNK, idle_timeout: float = DEFAULT_IDLE_TIMEOUT
) -> tuple[dict[model.Connection, model.Trace], model.RangeSummary]:
    """The scan of range ``index`` of ``plan``: each connection it holds, and where
    (:class:`~mqcn_model.capture.split.Trace`), and the range's summary."""
    reader = model.RangeReader(
        plan.path,
        plan.shape,
        index,
        plan.starts[index],
        plan.ends[index],
        idle_timeout=idle_timeout,
    )
    for data in _range_bytes(plan, index, chunk, lambda: not reader.done):
        reader.feed(data)
    return reader.traces(), reader.close()


@dataclass(frozen=True)
class SplitReads:
    """What the driver gives every range's read, once the scans passed the check."""

    ownership: model.Ownership
    offsets: list[int]  # frame_offsets
    swept: list[float]  # swept_before
    idle: list[tuple[int, float]]  # sweeps

    @classmethod
    def of(
        cls,
        summaries: list[model.RangeSummary],
        found: Iterable[tuple[model.Connection, list[model.Trace]]],
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    ) -> SplitReads:
        """The reads' plan from the scans' ``summaries`` and the connections ``found`` in
        several ranges (:func:`~mqcn_model.capture.split.shared`)."""
        offsets = model.frame_offsets(summaries)
        idle = model.sweeps(summaries)
        ownership = model.Ownership.of(found, offsets, idle, idle_timeout)
        return cls(ownership, offsets, model.swept_before(summaries), idle)


def read_owned(
    plan: SplitPlan,
    index: int,
    reads: SplitReads,
    *,
    counts: Counter[str] | None = None,
    chunk: int = CHUNK,
    max_pending: int = DEFAULT_MAX_PENDING,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    signed_as: AuthLevel = AuthLevel.Sig20,
) -> Iterator[Record]:
    """The records range ``index`` reads (:class:`~mqcn_model.capture.split.OwnedRangeReader`);
    the frames it counts on the way are added to ``counts``."""
    reader = model.OwnedRangeReader(
        plan.path,
        plan.shape,
        index,
        plan.starts[index],
        plan.ends[index],
        reads.ownership,
        frame_offset=reads.offsets[index],
        swept=reads.swept[index],
        max_pending=max_pending,
        idle_timeout=idle_timeout,
        signed_as=signed_as,
    )
    for data in _range_bytes(plan, index, chunk, lambda: not reader.done):
        yield from reader.feed(data)
    yield from reader.close(reads.idle)
    if counts is not None:
        counts.update(reader.counts)


def split_records(
    path: str,
    threshold: int,
    *,
    chunk: int = CHUNK,
    window: int = WINDOW_BYTES,
    max_pending: int = DEFAULT_MAX_PENDING,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    signed_as: AuthLevel = AuthLevel.Sig20,
) -> list[Record] | str:
    """Every record of the capture ``path`` read as split ranges (see the module docstring),
    or the line saying why it must be read whole."""
    plan = plan_split(path, threshold, window)
    if isinstance(plan, str):
        return f"{path}: read as one task: {plan}"
    scans = [
        scan_range(plan, index, chunk=chunk, idle_timeout=idle_timeout)
        for index in range(len(plan.starts))
    ]
    summaries = [summary for _, summary in scans]
    problem = model.check_ranges(summaries)
    if problem is not None:
        return f"{path}: read as one task: {problem}"
    found = model.shared([seen for seen, _ in scans])
    reads = SplitReads.of(summaries, found, idle_timeout)
    records: list[Record] = [q for s in summaries for q in s.quarantines]
    counts: Counter[str] = Counter()
    for index in range(len(plan.starts)):
        records.extend(
            read_owned(
                plan,
                index,
                reads,
                counts=counts,
                chunk=chunk,
                max_pending=max_pending,
                idle_timeout=idle_timeout,
                signed_as=signed_as,
            )
        )
    records.append(model.capture_end(path, plan.shape, plan.size, summaries, counts))
    return records


# --- on Spark -----------------------------------------------------------------------------------

SPLIT_CONF = "mqcn.capture.split"  # --conf key: split captures above this many bytes (0: never)
# Counters of the capture block (summary.json): files read as byte ranges, and their ranges.
C_FILES_SPLIT = "files_split"
C_RANGES = "ranges"
# The rows of the scan tasks: a connection a range holds (conn, range and its Trace) or a
# range's summary (range, summary: pickled).
SCAN_SCHEMA = pa.schema(
    [
        ("conn", pa.binary()),
        ("range", pa.int32()),
        ("first_frame", pa.int64()),
        ("first_time", pa.float64()),
        ("first_syn", pa.bool_()),
        ("last_frame", pa.int64()),
        ("last_offset", pa.int64()),
        ("latest", pa.float64()),
        ("summary", pa.binary()),
    ]
)
_TRACE_FIELDS = model.Trace._fields[1:]  # the columns after range
_SCAN_BATCH = 65536
# What judges a capture's records into rows (kinds.capture._judge_records; it and the frame
# counts' prefix are passed in: this module does not import the capture kind, which imports
# it).
JudgeRecords = Callable[[Auditor, RowBuilder, Iterator[Record], int], Iterator[pa.RecordBatch]]


def split_threshold(conf: ConfGetter) -> int:
    """The split threshold of a session whose ``conf(key, default)`` is given (bytes)."""
    value = (conf(SPLIT_CONF, str(DEFAULT_SPLIT_BYTES)) or "0").strip()
    try:
        threshold = int(value)
    except ValueError:
        raise PipelineError(
            f"--conf {SPLIT_CONF}={value!r}: expected a number of bytes (0: never split)"
        ) from None
    return max(0, threshold)


register_own_check(SPLIT_CONF, split_threshold)


def _conn_key(connection: model.Connection) -> bytes:
    a, pa_, b, pb = connection
    return bytes([len(a)]) + a + pa_.to_bytes(2, "big") + b + pb.to_bytes(2, "big")


def _connection(key: bytes) -> model.Connection:
    """The connection :func:`_conn_key` made ``key`` of."""
    size = key[0]
    low = key[1 : 1 + size]
    return (
        low,
        int.from_bytes(key[1 + size : 3 + size], "big"),
        key[3 + size : -2],
        int.from_bytes(key[-2:], "big"),
    )


def scan_task(plan: SplitPlan) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function of the scans: range indexes in; a row per connection each
    range holds, and one with the range's summary, out."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for index in batch.column("index").to_pylist():
                traces, summary = scan_range(plan, index)
                conns = list(traces)
                for at in range(0, len(conns), _SCAN_BATCH):
                    part = conns[at : at + _SCAN_BATCH]
                    rows = [traces[c] for c in part]
                    columns = {name: [getattr(t, name) for t in rows] for name in _TRACE_FIELDS}
                    yield pa.RecordBatch.from_pydict(
                        {
                            "conn": [_conn_key(c) for c in part],
                            "range": [index] * len(part),
                            **columns,
                            "summary": [None] * len(part),
                        },
                        schema=SCAN_SCHEMA,
                    )
                ending: dict[str, Any] = {name: None for name in SCAN_SCHEMA.names}
                ending.update(range=index, summary=pickle.dumps(summary))
                yield pa.RecordBatch.from_pylist([ending], schema=SCAN_SCHEMA)

    return run


def read_task(
    plan: SplitPlan,
    readings: Readings,
    reads: SplitReads,
    judge_records: JudgeRecords,
    batch: int,
    frames_prefix: str,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function of the reads: range indexes in, the rows of the records
    each range reads out (the same judging as the one-task read)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        auditor = Auditor(readings)
        rows = RowBuilder(Tally())
        counts: Counter[str] = Counter()
        for part in batches:
            for index in part.column("index").to_pylist():
                records = read_owned(plan, index, reads, counts=counts)
                yield from judge_records(auditor, rows, records, batch)
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
    sink: VerdictSink | None = None,
) -> DataFrame | str:
    """The rows of one capture read as split ranges on Spark, or the line saying why it must
    be read whole: the scans (one job: the summaries, and the connections seen in several
    ranges, come back), then the reads (a task per range, judging)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    count = len(plan.starts)
    indexes = spark.createDataFrame([(i,) for i in range(count)], "index int").repartition(count)
    scanned = indexes.mapInArrow(scan_task(plan), spark_schema(SCAN_SCHEMA))
    scanned = scanned.persist(StorageLevel.DISK_ONLY)  # read twice below: scan once
    try:
        found = scanned.filter(F.col("summary").isNotNull()).select("summary").collect()
        summaries = sorted((pickle.loads(r["summary"]) for r in found), key=lambda s: s.index)
        problem = model.check_ranges(summaries)
        if problem is not None:
            return f"{plan.path}: read as one task: {problem}"
        repeated = (
            scanned.filter(F.col("conn").isNotNull())
            .groupBy("conn")
            .agg(F.collect_list(F.struct("range", *_TRACE_FIELDS)).alias("traces"))
            .filter(F.size("traces") > 1)
            .toLocalIterator()  # a partition at a time: only the crossing ones are kept
        )
        traces = (
            (_connection(r["conn"]), [model.Trace(*t) for t in r["traces"]]) for r in repeated
        )
        reads = SplitReads.of(summaries, traces)
    finally:
        scanned.unpersist()
    task = read_task(plan, readings, reads, judge_records, batch, frames_prefix)
    judged = map_rows(indexes, task, sink)
    # the capture-level records: the last range's quarantine, then the capture's end
    rows = RowBuilder(Tally())
    rows.tally.count(C_FILES_SPLIT)
    rows.tally.count(C_RANGES, count)
    ending = [q for s in summaries for q in s.quarantines]
    ending.append(model.capture_end(plan.path, plan.shape, plan.size, summaries, Counter()))
    table = pa.Table.from_batches(
        [*judge_records(Auditor(readings), rows, iter(ending), batch), rows.tally.batch()],
        schema=schema.ROW_SCHEMA,
    )
    literal = [tuple(r[n] for n in schema.ROW_COLUMNS) for r in table.to_pylist()]
    return judged.unionByName(spark.createDataFrame(literal, spark_schema(schema.ROW_SCHEMA)))
