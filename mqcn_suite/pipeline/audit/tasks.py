"""The Spark side of the audit: the ``mapInArrow`` functions and the frames that feed them.

Each kind of input (:mod:`.plan`) has a task function, run by the executors on batches of
work (Parquet row groups, raw files), and a frame function, run by the driver, that makes
the Spark DataFrame of that work and maps the task over it; its ``local_*`` function feeds
the very same task the same work in this process (the in-process engine,
:mod:`mqcn_suite.pipeline.engine`).  A task judges every message
with one :class:`~.judging.Auditor`, builds its output columns in Arrow
(:class:`RowBuilder`), keeps a :class:`~.summary.Tally` of what it emitted and emits the
tally last.  Nothing a task reads is ever dropped: a row, row group or file it cannot judge
becomes a quarantine entry that says how many input rows it stands for.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mqcn_model.errata import Readings
from mqcn_model.errors import Violation
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.schema import (
    CAPTURE_COLUMNS,
    QUARANTINED,
    ROW_SCHEMA,
    SCOPE_ROW_GROUP,
    VERDICT,
    VERDICT_SCHEMA,
    quarantine_row,
    spark_schema,
)
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.corpus import BODY

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from mqcn_suite.pipeline.audit.plan import Plan

Task = Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]

# One work unit of a Parquet corpus is one row group: the footer's row count and the file
# row of its first row.
UNIT_SCHEMA = pa.schema(
    [
        ("path", pa.string()),
        ("row_group", pa.int32()),
        ("rows", pa.int64()),
        ("row_base", pa.int64()),
    ]
)
_ENVELOPE_COLUMNS = ("message_id", "sender_identifier_type", "authentication_level")
_VERDICT_STRUCT = pa.struct(list(VERDICT_SCHEMA))  # a verdict's tuple of values is one of these
_OTHER_FIELDS = [f for f in ROW_SCHEMA if f.name != "status" and f.name not in VERDICT_SCHEMA.names]


class RowBuilder:
    """The rows of one output batch, gathered per message and turned into Arrow columns.

    A verdict is kept as its tuple of values; :meth:`batches` converts the tuples into Arrow
    columns in one call (no dict per row, no ``from_pylist``) and counts every row it emits in
    ``tally`` -- rows dropped by :meth:`discard` are never counted.
    """

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self._verdicts: list[tuple[Any, ...]] = []
        self._quarantine: list[dict[str, Any]] = []

    def quarantine(self, entry: dict[str, Any]) -> None:
        """One quarantine entry (:func:`~.schema.quarantine_row`)."""
        self._quarantine.append(entry)

    def judge(
        self,
        auditor: Auditor,
        sources: Sequence[str],
        bodies: Sequence[Any],
        message_ids: Sequence[bytes | None] | None = None,
        sender_types: Sequence[str | None] | None = None,
        auth_levels: Sequence[str | None] | None = None,
        captures: Sequence[tuple[Any, ...]] | None = None,
        findings: Sequence[Sequence[Violation]] | None = None,
    ) -> None:
        """Judge each message of a batch, or quarantine the ones that cannot be judged at all.

        The arguments are columns, one value per message.  An envelope column not given holds
        what a corpus without it is taken to hold: no message id, an authenticated
        (``Sig20``) ``QueueManagerIdentifier`` sender.  ``captures``: the values of the
        capture columns of each message (:data:`~.schema.CAPTURE_COLUMNS`), for a capture;
        ``findings``: its wire and envelope findings.
        """
        values, verdicts, quarantine = auditor.values, self._verdicts, self._quarantine
        count = len(bodies)
        envelopes = zip(
            [None] * count if message_ids is None else message_ids,
            ["QueueManagerIdentifier"] * count if sender_types is None else sender_types,
            ["Sig20"] * count if auth_levels is None else auth_levels,
            [_NO_CAPTURE] * count if captures is None else captures,
            [()] * count if findings is None else findings,
            strict=True,
        )
        for source, body, (message_id, kind, level, where, found) in zip(
            sources, bodies, envelopes, strict=True
        ):
            if body is None:
                entry = quarantine_row(source, f"{BODY} is null", 1, message_id)
                quarantine.append(_placed(entry, where))
                continue
            try:
                verdicts.append(values(source, bytes(body), message_id, kind, level, where, found))
            except Exception as exc:  # a bug in the model must not lose the row
                reason = f"internal error: {type(exc).__name__}: {exc}"
                quarantine.append(_placed(quarantine_row(source, reason, 1, message_id), where))

    def discard(self) -> None:
        """Forget the rows added since the last :meth:`batches` (their input is set aside)."""
        self._verdicts, self._quarantine = [], []

    def batches(self) -> list[pa.RecordBatch]:
        """The rows added since the last call, as :data:`ROW_SCHEMA` batches; now counted."""
        verdicts, self._verdicts = self._verdicts, []
        quarantine, self._quarantine = self._quarantine, []
        out = []
        if verdicts:
            judged = pa.RecordBatch.from_struct_array(pa.array(verdicts, _VERDICT_STRUCT))
            count = len(verdicts)
            arrays = [pa.repeat(pa.scalar(VERDICT), count), *judged.columns]
            arrays += [pa.nulls(count, field.type) for field in _OTHER_FIELDS]
            out.append(pa.RecordBatch.from_arrays(arrays, schema=ROW_SCHEMA))
        if quarantine:
            rows = [{"status": QUARANTINED, **entry} for entry in quarantine]
            out.append(pa.RecordBatch.from_pylist(rows, schema=ROW_SCHEMA))
        # Counted once built: rows whose batch cannot be built are not emitted (the caller
        # quarantines their input), so they must not be counted either.
        if verdicts:
            self.tally.add_verdicts(out[0])
        for entry in quarantine:
            scope, reason = entry["scope"], entry["reason"]
            self.tally.add_quarantine(scope, reason, entry["rows"], entry["bytes"])
        return out


_NO_CAPTURE: tuple[None, ...] = (None,) * len(CAPTURE_COLUMNS)


def _placed(entry: dict[str, Any], where: tuple[Any, ...]) -> dict[str, Any]:
    """``entry`` with the capture columns ``where`` (unchanged when it is not from a capture)."""
    if where is _NO_CAPTURE:
        return entry
    return {**entry, **dict(zip(CAPTURE_COLUMNS, where, strict=True))}


# --- Parquet corpus ----------------------------------------------------------------------------


def judge_parquet_units(readings: Readings, batch_rows: int = 5000) -> Task:
    """The ``mapInArrow`` function of Parquet input: units in, verdict/quarantine/tally rows out."""

    def run(units: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        auditor, tally = Auditor(readings), Tally()
        rows = RowBuilder(tally)
        for unit_batch in units:
            for unit in unit_batch.to_pylist():
                yield from judge_row_group(auditor, rows, unit, batch_rows)
        yield tally.batch()

    return run


def judge_row_group(
    auditor: Auditor, rows: RowBuilder, unit: dict[str, Any], batch_rows: int
) -> Iterator[pa.RecordBatch]:
    """Verdicts of one row group, read a batch at a time; what cannot be read is quarantined.

    The footer said how many rows the group holds.  When reading fails (a damaged page, a
    short file), the rows not yet judged -- all of them, or the tail after the last good
    batch -- become one quarantine entry for the row group, so the balance still adds up.
    Page checksums are verified where the writer stored them (Spark's writer does), so
    damaged data is found rather than judged as if it were what was sent.
    """
    import pyarrow.parquet as pq

    path, group = unit["path"], unit["row_group"]
    expected, base = unit["rows"], unit["row_base"]
    done = 0
    try:
        parquet = pq.ParquetFile(path, page_checksum_verification=True)
        names = set(parquet.schema_arrow.names)
        columns = [BODY, *(c for c in _ENVELOPE_COLUMNS if c in names)]
        for chunk in parquet.iter_batches(
            batch_size=batch_rows, row_groups=[group], columns=columns, use_threads=False
        ):
            if done + chunk.num_rows > expected:
                raise ValueError(f"it holds more rows than the {expected} its footer declares")
            judge_chunk(auditor, rows, path, base + done, chunk)
            yield from rows.batches()
            done += chunk.num_rows
        if done != expected:
            raise ValueError(f"it ends after {done} rows")
    except Exception as exc:
        text = (str(exc).strip().splitlines() or [""])[0]
        judged = f"; its first {done} rows were judged" if done else ""
        reason = (
            f"unreadable row group {group} ({expected} rows per the footer{judged}): "
            f"{type(exc).__name__}: {text}"
        )
        source = f"{path}#rowgroup={group}"
        rows.discard()  # a chunk judged in part is in the rows quarantined below
        rows.quarantine(quarantine_row(source, reason, expected - done, scope=SCOPE_ROW_GROUP))
        yield from rows.batches()


def judge_chunk(
    auditor: Auditor, rows: RowBuilder, path: str, first: int, chunk: pa.RecordBatch
) -> None:
    """Judge one Arrow batch of a corpus file into ``rows``; its first row is file row ``first``."""
    names = chunk.schema.names
    sources = [f"{path}#{index}" for index in range(first, first + chunk.num_rows)]
    envelope = [chunk.column(n).to_pylist() if n in names else None for n in _ENVELOPE_COLUMNS]
    rows.judge(auditor, sources, chunk.column(BODY).to_pylist(), *envelope)


def local_parquet(plan: Plan, readings: Readings) -> Iterator[pa.RecordBatch]:
    """The Parquet task of :func:`parquet_frame`, run in this process on the same units."""
    if not plan.work:
        return iter(())
    units = pa.RecordBatch.from_pylist(
        [{n: u[n] for n in UNIT_SCHEMA.names} for u in plan.work], schema=UNIT_SCHEMA
    )
    return judge_parquet_units(readings)(iter([units]))


def parquet_frame(spark: SparkSession, plan: Plan, readings: Readings) -> DataFrame | None:
    """The rows of a Parquet corpus: one work unit (a row group) per input row of the job."""
    if not plan.work:
        return None
    units = spark.sparkContext.parallelize(
        [tuple(u[n] for n in UNIT_SCHEMA.names) for u in plan.work],
        numSlices=min(len(plan.work), 10_000),
    )
    frame = spark.createDataFrame(units, spark_schema(UNIT_SCHEMA))
    return frame.mapInArrow(judge_parquet_units(readings), spark_schema(ROW_SCHEMA))


# --- a folder of raw bodies ------------------------------------------------------------------


def judge_raw_files(readings: Readings) -> Task:
    """The ``mapInArrow`` function of raw input: (path, content) rows in, verdicts out."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        auditor, tally = Auditor(readings), Tally()
        rows = RowBuilder(tally)
        for batch in batches:
            paths = [local_path(path) for path in batch.column("path").to_pylist()]
            rows.judge(auditor, paths, batch.column("content").to_pylist())
            yield from rows.batches()
        yield tally.batch()

    return run


def local_path(uri: str) -> str:
    """``file:/a/b`` (how Spark names files) as ``/a/b``; other URIs unchanged."""
    if uri.startswith("file://"):
        return uri[len("file://") :]
    if uri.startswith("file:"):
        return uri[len("file:") :]
    return uri


def raw_frame(spark: SparkSession, plan: Plan, readings: Readings) -> DataFrame | None:
    """The rows of a folder of raw bodies: Spark's ``binaryFile`` source, one file per body."""
    if not plan.work:
        return None
    # Spark's file sources skip empty files; they are messages too (MQCN-2.2.4-1 broken),
    # so they join the binaryFile rows as literal rows.
    sizes = {path: os.path.getsize(path) for path in plan.work}
    non_empty = [path for path, size in sizes.items() if size]
    empty = [(path, bytearray()) for path, size in sizes.items() if not size]
    parts = []
    if non_empty:
        parts.append(spark.read.format("binaryFile").load(non_empty).select("path", "content"))
    if empty:
        parts.append(spark.createDataFrame(empty, "path string, content binary"))
    files = parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])
    return files.mapInArrow(judge_raw_files(readings), spark_schema(ROW_SCHEMA))


RAW_BATCH_BYTES = 64 << 20  # the in-process engine reads raw files this many bytes at a time
_RAW_SCHEMA = pa.schema([("path", pa.string()), ("content", pa.binary())])


def local_raw(plan: Plan, readings: Readings) -> Iterator[pa.RecordBatch]:
    """The raw task of :func:`raw_frame`, run in this process: the files read here, in
    batches of at most :data:`RAW_BATCH_BYTES` (or 5000 files), instead of by ``binaryFile``."""
    if not plan.work:
        return iter(())

    def batches() -> Iterator[pa.RecordBatch]:
        paths: list[str] = []
        contents: list[bytes] = []
        held = 0
        for path in plan.work:
            with open(path, "rb") as stream:
                content = stream.read()
            paths.append(path)
            contents.append(content)
            held += len(content)
            if held >= RAW_BATCH_BYTES or len(paths) >= 5000:
                yield pa.RecordBatch.from_arrays(
                    [pa.array(paths, pa.string()), pa.array(contents, pa.binary())],
                    schema=_RAW_SCHEMA,
                )
                paths, contents, held = [], [], 0
        if paths:
            yield pa.RecordBatch.from_arrays(
                [pa.array(paths, pa.string()), pa.array(contents, pa.binary())], schema=_RAW_SCHEMA
            )

    return judge_raw_files(readings)(batches())
