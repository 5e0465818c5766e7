"""The audit job: plan, judge once, write the outputs, summarize -- on Spark or in process.

On Spark (a session given), one Spark job judges every message (the kind's task,
:mod:`.tasks`) and writes verdict, quarantine and tally rows to a staging dataset under
``out``; the verdicts and the quarantine are then copied out of it column by column, and the
summary merges the tallies (:mod:`.summary`).  The staging dataset is removed at the end.
With a local ``out`` the tasks write ``verdicts/`` themselves (:mod:`.sink`) and the staging
dataset holds only the quarantine and the tallies; when it is small this process reads it
and ends the audit as the in-process engine does.

In process (no session: the in-process engine, :mod:`mqcn_suite.pipeline.engine`), the
kind's same task runs here on the same work; its rows are written as they come, one Parquet
file per output folder (read like Spark's: ``pyarrow.dataset`` or ``spark.read.parquet``),
and the tallies are merged here (:func:`~.summary.summarize_local`).  Both engines give the
same rows and the same ``summary.json``, apart from its ``engine`` and ``seconds``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

import mqcn_suite.pipeline.audit.schema as schema
from mqcn_model.errata import STRICT, Readings
from mqcn_suite.pipeline.audit.kind import Plan, input_kind
from mqcn_suite.pipeline.audit.plan import check_work, plan_input
from mqcn_suite.pipeline.audit.schema import (
    QUARANTINE_DIR,
    QUARANTINED,
    STAGING_DIR,
    SUMMARY_HTML,
    SUMMARY_JSON,
    TALLY,
    VERDICT,
    VERDICTS_DIR,
    spark_schema,
)
from mqcn_suite.pipeline.audit.sink import BY_TASKS, LITERAL_PART, VerdictSink, verdicts_way
from mqcn_suite.pipeline.audit.summary import (
    Tally,
    render_html,
    summarize,
    summarize_local,
)
from mqcn_suite.pipeline.checks import check_out as check_dataset_out
from mqcn_suite.pipeline.engine import IN_PROCESS, spark_label
from mqcn_suite.pipeline.session import PipelineError
from mqcn_suite.pipeline.storage import Location, in_process_location, local_path

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass
class AuditResult:
    """The balance and where the outputs are.

    ``rows_in`` counts the rows known to be in the input (footers, raw files, stray files);
    ``quarantined`` includes ``rows_in_unreadable_row_groups``.  A Parquet file without a
    readable footer holds rows nobody can count: it is in ``files_without_footer`` and
    ``bytes_without_footer``, outside the row balance.
    """

    out: str
    mode: str
    rows_in: int
    conforming: int
    non_conforming: int
    quarantined: int
    summary: dict[str, Any]
    seconds: float
    rows_in_unreadable_row_groups: int = 0
    files_without_footer: int = 0
    bytes_without_footer: int = 0
    # Found and counted, not judged (the kind's counted balance terms: a capture's
    # UserMessages to other queues), and quarantine entries (where the kind counts them).
    other_messages: int = 0
    quarantine_entries: int = 0
    block: dict[str, Any] | None = None  # summary.json's block of the input kind, if it has one
    engine: str = IN_PROCESS  # summary.json's "engine": "in-process" or "Spark <master>"

    @property
    def balanced(self) -> bool:
        """Every message found is judged, counted or quarantined, and the kind's own balance
        holds (a capture's stream bytes: in a packet, a quarantine entry or lost)."""
        judged = self.conforming + self.non_conforming + self.other_messages + self.quarantined
        own = self.summary.get("balance", {}).get("balanced", True)
        return self.rows_in == judged and bool(own)

    @property
    def clean(self) -> bool:
        """Every input row read and conforming: nothing non-conforming, nothing set aside,
        and no finding beyond the verdicts (a capture's wire or envelope findings)."""
        return not (
            self.non_conforming
            or self.quarantined
            or self.files_without_footer
            or self.quarantine_entries
            or self.summary.get("findings_by_requirement")
            or (self.block or {}).get("packet_findings_by_requirement")
        )

    @property
    def nothing_found(self) -> str | None:
        """What an audit that judged nothing found, in words, by its kind's rule (None: it
        judged or set aside something).  Inputs whose messages are known before the job
        never get here empty: :func:`~.plan.check_work` refuses them."""
        figures = {
            "conforming": self.conforming,
            "non_conforming": self.non_conforming,
            "quarantine_entries": self.quarantine_entries,
            "other_messages": self.other_messages,
        }
        return input_kind(self.mode).nothing_judged(figures, self.block)

    @property
    def nothing_judged(self) -> bool:
        """The job judged no message and set nothing aside (:attr:`nothing_found`)."""
        return self.nothing_found is not None

    def balance_line(self) -> str:
        """The balance as one line, in the words of the input kind (:attr:`mode`)."""
        return input_kind(self.mode).balance_text(self.summary["balance"], self.block)


def check_out(out: str | Path | Location) -> None:
    """:class:`PipelineError` unless ``out`` is absent or an empty directory that can be written
    (a local path up front; a filesystem URI once Spark runs: :mod:`..checks`)."""
    check_dataset_out(out)


def _prepare_out(out: Location) -> None:
    check_out(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PipelineError(f"--out: cannot create {out}: {exc.strerror or exc}") from None


def planned_rows(plan: Plan) -> pa.RecordBatch | None:
    """What the driver set aside while planning, as :data:`ROW_SCHEMA` rows with their tally
    (None: nothing was set aside).  Both engines add these rows to the tasks' rows."""
    if not plan.quarantined:
        return None
    tally = Tally()
    for entry in plan.quarantined:
        tally.add_quarantine(entry["scope"], entry["reason"], entry["rows"], entry["bytes"])
    rows = [{"status": QUARANTINED, **entry} for entry in plan.quarantined]
    quarantined = pa.RecordBatch.from_pylist(rows, schema=schema.ROW_SCHEMA)
    table = pa.Table.from_batches([quarantined, tally.batch()])
    return table.combine_chunks().to_batches()[0]


def build_frame(spark: SparkSession, plan: Plan, readings: Readings) -> DataFrame:
    """The DataFrame of :data:`ROW_SCHEMA` rows for ``plan`` (lazy: nothing runs yet).

    The kind's tasks give the verdicts; what the driver set aside while planning joins them
    as literal rows, with its tally.
    """
    row_schema = spark_schema(schema.ROW_SCHEMA)
    frames = []
    judged = input_kind(plan.mode).frame(spark, plan, readings)
    if judged is not None:
        frames.append(judged)
    planned = planned_rows(plan)
    if planned is not None:
        rows = [tuple(r[n] for n in schema.ROW_COLUMNS) for r in planned.to_pylist()]
        frames.append(spark.createDataFrame(rows, row_schema))
    if not frames:
        return spark.createDataFrame([], row_schema)
    frame = frames[0]
    for other in frames[1:]:
        frame = frame.unionByName(other)
    return frame


def audit(
    spark: SparkSession | None,
    input_path: str | Path,
    out: str | Path,
    readings: Readings = STRICT,
    *,
    progress: Callable[[str], Any] | None = None,
    plan: Plan | None = None,
    started: float | None = None,
) -> AuditResult:
    """Judge every message of ``input_path``; write verdicts, quarantine and summaries to ``out``.

    ``spark``: the session to run on, or None to run in this process (the in-process engine:
    ``out`` must then be a local path or ``file:`` URI).  ``progress`` (optional) is a
    context-manager factory taking a description, used around each step (the CLI passes a
    progress bar).  ``plan``: the input's plan when the caller already made it;
    ``started``: the ``time.perf_counter()`` the caller's command started at, so that
    ``summary.json``'s ``seconds`` is the wall time of the whole command so far.
    """
    started = time.perf_counter() if started is None else started
    # in process a local path; on Spark a local path or a Hadoop filesystem URI (docs/spark.md)
    out = in_process_location(out) if spark is None else Location(out)
    plan = plan if plan is not None else plan_input(input_path)
    check_work(plan, input_path)
    _prepare_out(out)
    step = progress or (lambda _description: nullcontext())
    job = _Job(plan, input_path, out, readings, step)
    if spark is None:
        summary = _run_in_process(job)
        engine = IN_PROCESS
    else:
        summary = _run_on_spark(spark, job)
        engine = spark_label(spark.sparkContext.master)
    summary["engine"] = engine
    summary["detected"] = plan.description
    summary["seconds"] = round(time.perf_counter() - started, 3)
    balance = summary["balance"]
    result = AuditResult(
        out=str(out),
        mode=plan.mode,
        rows_in=balance["rows_in"],
        conforming=balance["conforming"],
        non_conforming=balance["non_conforming"],
        quarantined=balance["quarantined"],
        summary=summary,
        seconds=summary["seconds"],
        rows_in_unreadable_row_groups=balance["rows_in_unreadable_row_groups"],
        files_without_footer=balance["files_without_footer"],
        bytes_without_footer=balance["bytes_without_footer"],
        other_messages=balance.get("other_messages", 0),
        quarantine_entries=balance.get("quarantine_entries", 0),
        block=summary.get(plan.mode),
        engine=engine,
    )
    (out / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    (out / SUMMARY_HTML).write_text(render_html(summary), "utf-8")
    return result


@dataclass(frozen=True)
class _Job:
    """What either engine is given: the plan, where it came from, where rows go, the
    readings to judge by and the progress step to wrap each stage in."""

    plan: Plan
    input_path: str | Path
    out: Location
    readings: Readings
    step: Callable[[str], Any]


def _run_on_spark(spark: SparkSession, job: _Job) -> dict[str, Any]:
    """The Spark engine: judge into the staging dataset, copy the outputs, summarize.

    With a local ``--out`` the tasks write ``verdicts/`` themselves (:mod:`.sink`): the
    staging dataset then holds only the quarantine and tally rows, and when it is small
    (:data:`SMALL_STAGING`) this process reads it and ends the audit as the in-process
    engine does -- two Spark jobs fewer.
    """
    plan, out, readings, step = job.plan, job.out, job.readings, job.step
    from pyspark.sql import functions as F

    local = _tasks_write_to(spark, out)
    sink = None if local is None else VerdictSink.at(local / VERDICTS_DIR)
    if sink is not None:
        plan = replace(plan, verdict_sink=sink)
    # The judging runs exactly once, into a staging dataset that the outputs and the summary
    # then read column by column.  (Caching the rows in Spark instead ran the 1 GiB driver
    # heap out of memory at 4 M messages.)
    staging = out / STAGING_DIR
    try:
        with step("judging"):
            build_frame(spark, plan, readings).write.parquet(str(staging))
        if sink is not None and local is not None and _bytes(local / STAGING_DIR) <= SMALL_STAGING:
            return _finish_here(job, plan, sink, local)
        rows = spark.read.parquet(str(staging))
        with step("writing verdicts"):
            verdicts = rows.filter(F.col("status") == VERDICT).select(*schema.VERDICT_COLUMNS)
            if sink is None:
                verdicts.write.parquet(str(out / VERDICTS_DIR))
            aside = rows.filter(F.col("status") == QUARANTINED)
            aside.select(*schema.QUARANTINE_COLUMNS).write.parquet(str(out / QUARANTINE_DIR))
        with step("summary"):
            summary = summarize(rows, plan, job.input_path, readings)
        if sink is not None:
            balance = summary["balance"]
            staged = verdicts.toArrow()  # literal verdict rows: usually none (one job)
            sink.finish(balance["conforming"] + balance["non_conforming"], staged)
        return summary
    finally:
        staging.remove_tree()


def _tasks_write_to(spark: SparkSession, out: Location) -> Path | None:
    """The local path of ``out`` when the tasks write the verdicts there themselves, or None
    when Spark writes them (an ``out`` URI other than ``file:``, or ``--conf
    mqcn.audit.verdicts=spark``)."""
    if verdicts_way(spark.conf.get) != BY_TASKS:
        return None
    if out.uri:
        try:
            folder = local_path(str(out), "--out", "")
        except PipelineError:
            return None  # hdfs://, s3a://...: only Spark's Hadoop filesystems write there
    else:
        folder = out.path
    return folder


# A staging dataset of verdict-less rows up to this size is read by the driver itself: its
# tally rows merge in Python in less time than Spark's summary jobs take to start.
SMALL_STAGING = 16 * 2**20


def _bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*.parquet"))


def _finish_here(job: _Job, plan: Plan, sink: VerdictSink, out: Path) -> dict[str, Any]:
    """The end of a Spark audit whose tasks wrote the verdicts, in this process: the staging
    rows (quarantine, tallies, literal verdicts) read with pyarrow, as :func:`_run_in_process`
    takes its task's rows."""
    import pyarrow.dataset as ds

    table = ds.dataset(out / STAGING_DIR, format="parquet").to_table().cast(schema.ROW_SCHEMA)
    literal = OutPart(sink.folder_path / LITERAL_PART, schema.VERDICT_SCHEMA)
    aside = OutPart(out / QUARANTINE_DIR / LOCAL_PART, schema.QUARANTINE_SCHEMA, True)
    with job.step("writing the quarantine"), literal as verdicts, aside:
        tallies, quarantine = _take_rows(table.to_batches(), verdicts, aside)
    with job.step("summary"):
        summary = summarize_local(tallies, quarantine, plan, job.input_path, job.readings)
    balance = summary["balance"]
    sink.finish(balance["conforming"] + balance["non_conforming"])
    return summary


LOCAL_PART = "part-00000-in-process.parquet"  # the one file of each output folder in process
SUCCESS = "_SUCCESS"  # the marker Spark leaves in a dataset it finished writing


class OutPart:
    """One Parquet file of an output folder, opened at its first batch; on a clean exit an
    empty file when ``always`` and nothing came, and the folder's ``_SUCCESS``."""

    def __init__(self, path: Path, part_schema: pa.Schema, always: bool = False) -> None:
        self.path, self.schema, self.always = path, part_schema, always
        self._writer: Any = None

    def __enter__(self) -> OutPart:
        self.path.parent.mkdir(exist_ok=True)
        return self

    def write(self, batch: pa.RecordBatch) -> None:
        if self._writer is None:
            import pyarrow.parquet as pq

            self._writer = pq.ParquetWriter(self.path, self.schema)
        self._writer.write_batch(batch)

    def __exit__(self, kind: object, *_: object) -> None:
        if self._writer is not None:
            self._writer.close()
        elif self.always and kind is None:
            import pyarrow.parquet as pq

            pq.write_table(self.schema.empty_table(), self.path)
        if kind is None:
            (self.path.parent / SUCCESS).write_bytes(b"")


def _take_rows(
    batches: Iterable[pa.RecordBatch], verdicts: OutPart, aside: OutPart
) -> tuple[list[pa.RecordBatch], list[dict[str, Any]]]:
    """Write the verdict and quarantine rows of ``batches`` (:data:`ROW_SCHEMA`) to their
    parts; give back the tally rows and the quarantine rows (timestamps in microseconds, as
    the summary reads them)."""
    tallies: list[pa.RecordBatch] = []
    quarantine: list[dict[str, Any]] = []
    for batch in batches:
        status = batch.column("status")
        judged = batch.filter(pc.equal(status, VERDICT))
        if judged.num_rows:
            verdicts.write(judged.select(list(schema.VERDICT_COLUMNS)))
        held = batch.filter(pc.equal(status, QUARANTINED))
        if held.num_rows:
            rows = held.select(list(schema.QUARANTINE_COLUMNS))
            aside.write(rows)
            quarantine.extend(_micros(rows).to_pylist())
        counted = batch.filter(pc.equal(status, TALLY))
        if counted.num_rows:
            tallies.append(counted)
    return tallies, quarantine


def _local_rows(plan: Plan, readings: Readings) -> Iterator[pa.RecordBatch]:
    """Every row of the audit, in process: the kind's task on the plan's work, then what
    the planner set aside (as :func:`build_frame` unions them for Spark)."""
    yield from input_kind(plan.mode).local(plan, readings)
    planned = planned_rows(plan)
    if planned is not None:
        yield planned


def _run_in_process(job: _Job) -> dict[str, Any]:
    """The in-process engine: rows written as the task gives them, tallies merged here."""
    plan, out, readings, step = job.plan, job.out, job.readings, job.step
    verdicts = OutPart(out.path / VERDICTS_DIR / LOCAL_PART, schema.VERDICT_SCHEMA, True)
    aside = OutPart(out.path / QUARANTINE_DIR / LOCAL_PART, schema.QUARANTINE_SCHEMA, True)
    with step("judging in process"), verdicts, aside:
        tallies, quarantine = _take_rows(_local_rows(plan, readings), verdicts, aside)
    with step("summary"):
        return summarize_local(tallies, quarantine, plan, job.input_path, readings)


def _micros(rows: pa.RecordBatch) -> pa.RecordBatch:
    """``rows`` with every timestamp column as microseconds since the epoch (what the
    summary reads, as Spark's ``unix_micros`` gives it)."""
    for index, field in enumerate(rows.schema):
        if pa.types.is_timestamp(field.type):
            rows = rows.set_column(index, field.name, pc.cast(rows.column(index), pa.int64()))
    return rows
