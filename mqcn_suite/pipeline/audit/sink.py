"""The verdicts written by the tasks themselves, on Spark (``--conf mqcn.audit.verdicts``).

A verdict row handed to Spark costs more than judging it would suggest: the Python worker
sends it to the JVM as Arrow, the JVM turns it into its own rows, writes it to the staging
dataset, reads it back and writes it again into ``verdicts/`` -- on two cores, the JVM's
share of an audit was a third to a half of the Python work (docs/spark.md).  So when the
audit's ``--out`` is a local path (or ``file:`` URI), each task writes its own verdict rows
straight into ``verdicts/`` with pyarrow, exactly as the in-process engine does, and hands
Spark only its quarantine and tally rows (few).  Any other ``--out`` (``hdfs://``,
``s3a://``) is written by Spark, and ``--conf mqcn.audit.verdicts=spark`` asks for that
everywhere.

**Files, retries.**  A task writes ``.part-<partition>-<token>.<attempt>.tmp`` and renames it
``part-<partition>-<token>.parquet`` once its last row is written, so a retried or
speculative attempt replaces the same file with the same rows, and a failed attempt leaves
only a hidden ``.tmp`` the driver removes (:meth:`VerdictSink.finish`).  ``token`` is new for
each mapped task, so two frames of one job never share a name.  A task without verdicts
writes no file; :meth:`~VerdictSink.finish` writes an empty one when no task wrote any, so the
folder is always a readable dataset.

**Nothing lost.**  :meth:`~VerdictSink.finish` counts the rows of every file from its footer;
unless they are the verdicts the tasks' tallies counted, the audit fails with a line saying
both figures.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import mqcn_suite.pipeline.audit.schema as schema
from mqcn_suite.pipeline.audit.schema import VERDICT
from mqcn_suite.pipeline.session import ConfGetter, PipelineError, register_own_check

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyspark.sql import DataFrame

    # tasks.Task's shape, written here: importing it would tie tasks -> summary -> kind -> sink
    # into a circle (kind names VerdictSink).
    Task = Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]

VERDICTS_CONF = "mqcn.audit.verdicts"  # --conf key: "tasks" (the default) or "spark"
BY_TASKS = "tasks"  # each task writes its verdicts (a local --out)
BY_SPARK = "spark"  # the verdict rows go through Spark's staging dataset, as any URI --out
WAYS = (BY_TASKS, BY_SPARK)
PART_GLOB = "part-*.parquet"
EMPTY_PART = "part-00000-empty.parquet"  # the file of a job whose tasks wrote no verdict
LITERAL_PART = "part-literal.parquet"  # verdict rows that reached Spark as literal rows


def verdicts_way(conf: ConfGetter) -> str:
    """``mqcn.audit.verdicts`` of a session whose ``conf(key, default)`` is given."""
    given = conf(VERDICTS_CONF, BY_TASKS) or BY_TASKS
    value = given.strip().lower()
    if value not in WAYS:
        raise PipelineError(
            f"--conf {VERDICTS_CONF}={given!r}: expected {' or '.join(WAYS)} (who writes "
            "verdicts/: each task itself, or Spark)"
        )
    return value


register_own_check(VERDICTS_CONF, verdicts_way)


@dataclass(frozen=True)
class VerdictSink:
    """The local folder the tasks of one audit write their verdicts to (module doc).

    ``folder`` is an absolute path every executor reaches (a local ``--out`` on a cluster is
    a shared filesystem, as for Spark's own writer); ``token`` tells this mapping's files
    apart from another frame's of the same job.
    """

    folder: str
    token: str = ""

    @property
    def folder_path(self) -> Path:
        return Path(self.folder)

    @classmethod
    def at(cls, folder: Path) -> VerdictSink:
        """The sink of a new folder ``folder`` (made here, by the driver)."""
        folder = folder.absolute()
        folder.mkdir()
        return cls(str(folder))

    def task(self, task: Task) -> Task:
        """``task``, writing its verdict rows here and giving Spark the other rows."""
        sink = replace(self, token=uuid.uuid4().hex[:12])

        def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            return sink._write(task(batches))

        return run

    def _write(self, rows: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        context = TaskContext.get()
        partition = context.partitionId() if context is not None else 0
        attempt = context.attemptNumber() if context is not None else 0
        name = f"part-{partition:05d}-{self.token}"
        temp = Path(self.folder, f".{name}.{attempt}.tmp")
        writer: pq.ParquetWriter | None = None
        try:
            for batch in rows:
                is_verdict = pc.equal(batch.column("status"), VERDICT)
                judged = batch.filter(is_verdict)
                if judged.num_rows:
                    if writer is None:
                        writer = pq.ParquetWriter(temp, schema.VERDICT_SCHEMA)
                    writer.write_batch(judged.select(list(schema.VERDICT_COLUMNS)))
                rest = batch.filter(pc.invert(is_verdict))
                if rest.num_rows:
                    yield rest
            if writer is not None:
                writer.close()
                writer = None
                os.replace(temp, Path(self.folder, f"{name}.parquet"))
        finally:
            if writer is not None:  # the task failed: its attempt's file goes
                writer.close()
                temp.unlink(missing_ok=True)

    def finish(self, verdicts: int, staged: pa.Table | None = None) -> None:
        """End the folder once the job is done: ``staged`` (verdict rows that reached Spark
        as literal rows) written beside the tasks' files, failed attempts' files removed,
        an empty file if there is none, ``_SUCCESS``; then the rows of its files checked
        against ``verdicts``, the number the tallies counted (:class:`PipelineError`)."""
        folder = Path(self.folder)
        for stale in folder.glob(".part-*.tmp"):
            stale.unlink(missing_ok=True)
        if staged is not None and staged.num_rows:
            columns = staged.select(list(schema.VERDICT_COLUMNS))
            pq.write_table(columns.cast(schema.VERDICT_SCHEMA), folder / LITERAL_PART)
        parts = sorted(folder.glob(PART_GLOB))
        if not parts:
            pq.write_table(schema.VERDICT_SCHEMA.empty_table(), folder / EMPTY_PART)
        written = sum(pq.ParquetFile(part).metadata.num_rows for part in parts)
        (folder / "_SUCCESS").write_bytes(b"")
        if written != verdicts:
            raise PipelineError(
                f"{folder}: the tasks' files hold {written} verdict rows but their tallies "
                f"count {verdicts}: verdicts were lost or written twice (is --out on a "
                f"filesystem every executor shares? --conf {VERDICTS_CONF}={BY_SPARK} has "
                "Spark write them)"
            )


def map_rows(frame: DataFrame, task: Task, sink: VerdictSink | None) -> DataFrame:
    """``frame`` mapped by a kind's ``task`` into :data:`~.schema.ROW_SCHEMA` rows; with a
    ``sink``, the task writes its verdicts there and the frame holds the others."""
    from mqcn_suite.pipeline.audit.schema import spark_schema

    mapped = task if sink is None else sink.task(task)
    return frame.mapInArrow(mapped, spark_schema(schema.ROW_SCHEMA))
