"""The audit job: plan, judge once into a staging dataset, write the outputs, summarize.

One Spark job judges every message (the kind's task, :mod:`.tasks`) and writes verdict,
quarantine and tally rows to a staging dataset under ``out``; the verdicts and the
quarantine are then copied out of it column by column, and the summary merges the tallies
(:mod:`.summary`).  The staging dataset is removed at the end.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqcn_model.errata import STRICT, Readings
from mqcn_suite.pipeline.audit.plan import Plan, check_work, input_kind, plan_input
from mqcn_suite.pipeline.audit.schema import (
    QUARANTINE_COLUMNS,
    QUARANTINE_DIR,
    QUARANTINED,
    ROW_COLUMNS,
    ROW_SCHEMA,
    STAGING_DIR,
    SUMMARY_HTML,
    SUMMARY_JSON,
    VERDICT,
    VERDICT_COLUMNS,
    VERDICTS_DIR,
    spark_schema,
)
from mqcn_suite.pipeline.audit.summary import Tally, balance_text, render_html, summarize
from mqcn_suite.pipeline.checks import check_out as check_dataset_out
from mqcn_suite.pipeline.session import PipelineError
from mqcn_suite.pipeline.storage import Location

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
    other_messages: int = 0  # captures: UserMessages to other queues (not judged, counted)
    quarantine_entries: int = 0
    capture: dict[str, Any] | None = None  # summary.json's "capture" block (mode "capture")

    @property
    def balanced(self) -> bool:
        """Every message found is judged, counted or quarantined (and, for captures, every
        stream byte is in a packet, a quarantine entry or lost)."""
        judged = self.conforming + self.non_conforming + self.other_messages + self.quarantined
        return self.rows_in == judged and (
            self.capture is None or bool(self.capture["bytes_balanced"])
        )

    @property
    def clean(self) -> bool:
        """Every input row read and conforming: nothing non-conforming, nothing set aside,
        and (captures) no wire or envelope finding."""
        return not (
            self.non_conforming
            or self.quarantined
            or self.files_without_footer
            or self.quarantine_entries
            or (self.capture or {}).get("messages_with_findings", 0)
        )

    @property
    def nothing_judged(self) -> bool:
        """A capture audit that judged no message and set nothing aside: the captures held
        no change notification.  (Other inputs without messages are refused before the job:
        :func:`~.plan.check_work`.)"""
        return self.mode == "capture" and not (
            self.conforming or self.non_conforming or self.quarantine_entries
        )

    def balance_line(self) -> str:
        return balance_text(self.summary["balance"], self.capture)


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


def build_frame(spark: SparkSession, plan: Plan, readings: Readings) -> DataFrame:
    """The DataFrame of :data:`ROW_SCHEMA` rows for ``plan`` (lazy: nothing runs yet).

    The kind's tasks give the verdicts; what the driver set aside while planning joins them
    as literal rows, with its tally.
    """
    row_schema = spark_schema(ROW_SCHEMA)
    frames = []
    judged = input_kind(plan.mode).frame(spark, plan, readings)
    if judged is not None:
        frames.append(judged)
    if plan.quarantined:
        tally = Tally()
        for entry in plan.quarantined:
            tally.add_quarantine(entry["scope"], entry["reason"], entry["rows"], entry["bytes"])
        rows = [
            tuple({"status": QUARANTINED, **entry}.get(n) for n in ROW_COLUMNS)
            for entry in plan.quarantined
        ]
        rows += [tuple(r.values()) for r in tally.batch().to_pylist()]
        frames.append(spark.createDataFrame(rows, row_schema))
    if not frames:
        return spark.createDataFrame([], row_schema)
    frame = frames[0]
    for other in frames[1:]:
        frame = frame.unionByName(other)
    return frame


def audit(
    spark: SparkSession,
    input_path: str | Path,
    out: str | Path,
    readings: Readings = STRICT,
    *,
    progress: Callable[[str], Any] | None = None,
) -> AuditResult:
    """Judge every message of ``input_path``; write verdicts, quarantine and summaries to ``out``.

    ``progress`` (optional) is a context-manager factory taking a description, used around
    each Spark action (the CLI passes a rich progress bar).
    """
    from pyspark.sql import functions as F

    started = time.perf_counter()
    out = Location(out)  # a local path or a Hadoop filesystem URI (docs/spark.md)
    plan = plan_input(input_path)
    check_work(plan, input_path)
    _prepare_out(out)
    step = progress or (lambda _description: nullcontext())
    # The judging runs exactly once, into a staging dataset that the outputs and the summary
    # then read column by column.  (Caching the rows in Spark instead ran the 1 GiB driver
    # heap out of memory at 4 M messages.)
    staging = out / STAGING_DIR
    try:
        with step("judging"):
            build_frame(spark, plan, readings).write.parquet(str(staging))
        rows = spark.read.parquet(str(staging))
        with step("writing verdicts"):
            rows.filter(F.col("status") == VERDICT).select(*VERDICT_COLUMNS).write.parquet(
                str(out / VERDICTS_DIR)
            )
            rows.filter(F.col("status") == QUARANTINED).select(*QUARANTINE_COLUMNS).write.parquet(
                str(out / QUARANTINE_DIR)
            )
        with step("summary"):
            summary = summarize(rows, plan, input_path, readings)
    finally:
        staging.remove_tree()
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
        capture=summary.get("capture"),
    )
    (out / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    (out / SUMMARY_HTML).write_text(render_html(summary), "utf-8")
    return result
