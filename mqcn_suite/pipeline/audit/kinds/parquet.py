"""The ``parquet`` input kind: a corpus of Parquet files (docs/corpus-format.md).

Claimed by any input holding a ``*.parquet`` file.  The driver reads only the footers: each
non-empty row group becomes a work unit (:class:`RowGroup`), a stray file is quarantined
(scope ``file``) and a file without a readable footer is quarantined with its size (scope
``file without footer``: its rows nobody can count).  Each task reads its row groups with
pyarrow *defensively*, a batch at a time, with page checksums verified: a row group that
does not decode is quarantined as one entry (scope ``row group``) standing for the rows its
footer declares less those already judged, while the good row groups around it are judged.
The corpus's envelope columns, where present, are the envelope the server view is given.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mqcn_model.errata import Readings
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.kind import (
    InputKind,
    Plan,
    Unit,
    files_bytes,
    register_input_kind,
)
from mqcn_suite.pipeline.audit.schema import (
    SCOPE_FILE,
    SCOPE_NO_FOOTER,
    SCOPE_ROW_GROUP,
    quarantine_row,
    spark_schema,
)
from mqcn_suite.pipeline.audit.sink import map_rows
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.audit.tasks import RowBuilder, Task
from mqcn_suite.pipeline.corpus import BODY
from mqcn_suite.pipeline.engine import human_bytes
from mqcn_suite.pipeline.session import PipelineError
from mqcn_suite.wording import plural

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# One work unit is one row group: the footer's row count and the file row of its first row.
UNIT_SCHEMA = pa.schema(
    [
        ("path", pa.string()),
        ("row_group", pa.int32()),
        ("rows", pa.int64()),
        ("row_base", pa.int64()),
    ]
)
_ENVELOPE_COLUMNS = ("message_id", "sender_identifier_type", "authentication_level")


@dataclass(frozen=True)
class RowGroup(Unit):
    """One work unit of a Parquet corpus (a row of :data:`UNIT_SCHEMA`)."""

    path: str  # resolved local path of the file
    row_group: int  # its index in the file
    rows: int  # rows the footer declares
    row_base: int  # the file row of its first row


# --- detection and planning -------------------------------------------------------------------


def _has_parquet(files: list[Path]) -> bool:
    return any(f.suffix == ".parquet" for f in files)


def plan_parquet(files: list[Path]) -> Plan:
    """One unit per non-empty row group (from the footers); stray and footer-less files aside."""
    import pyarrow.parquet as pq

    quarantined: list[dict[str, Any]] = []
    units: list[RowGroup] = []
    expected = 0
    for file in files:  # a stray file in a Parquet corpus is input too: account for it
        if file.suffix != ".parquet":
            reason = "not a Parquet file (*.parquet)"
            quarantined.append(quarantine_row(str(file.resolve()), reason, 1, scope=SCOPE_FILE))
            expected += 1
    for file in files:
        if file.suffix != ".parquet":
            continue
        try:
            meta = pq.ParquetFile(file)
            schema = meta.schema_arrow
        except Exception as exc:
            # Without a footer nobody can count the file's rows: it is set aside with its
            # size, and the balance states those bytes apart from the rows it can count.
            size = file.stat().st_size
            text = (str(exc).strip().splitlines() or [""])[0]
            reason = (
                f"unreadable Parquet file, no readable footer ({size} bytes, rows unknown): "
                f"{type(exc).__name__}: {text}"
            )
            quarantined.append(
                quarantine_row(str(file.resolve()), reason, None, scope=SCOPE_NO_FOOTER, size=size)
            )
            continue
        if BODY not in schema.names:
            raise PipelineError(
                f"INPUT: {file} has no '{BODY}' column (columns: {', '.join(schema.names)}); "
                "a corpus needs the message bodies (docs/corpus-format.md)"
            )
        body_type = schema.field(BODY).type
        if not (pa.types.is_binary(body_type) or pa.types.is_large_binary(body_type)):
            raise PipelineError(f"INPUT: {file}: column '{BODY}' is {body_type}, not binary")
        base = 0
        for group in range(meta.metadata.num_row_groups):
            rows = meta.metadata.row_group(group).num_rows
            if rows:
                units.append(RowGroup(str(file.resolve()), group, rows, base))
            base += rows
            expected += rows
    size = files_bytes(files)
    parquet = sum(1 for f in files if f.suffix == ".parquet")
    no_footer = sum(1 for q in quarantined if q["scope"] == SCOPE_NO_FOOTER)
    aside = [
        plural(n, word, many)
        for n, word, many in (
            (no_footer, "file without a readable footer", "files without a readable footer"),
            (len(files) - parquet, "other file", "other files"),
        )
        if n
    ]
    described = (
        f"a Parquet corpus of {plural(expected, 'row')} in {plural(parquet, 'file')}"
        + (f" ({', '.join(aside)})" if aside else "")
        + f", {human_bytes(size)}"
    )
    return Plan("parquet", units, quarantined, expected, size, described)


# --- the task ---------------------------------------------------------------------------------


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
    units = pa.RecordBatch.from_pylist(plan.work, schema=UNIT_SCHEMA)
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
    return map_rows(frame, judge_parquet_units(readings), plan.verdict_sink)


PARQUET = InputKind(
    "parquet", _has_parquet, plan_parquet, parquet_frame, local_parquet, "Parquet rows"
)
register_input_kind(PARQUET)
