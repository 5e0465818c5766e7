"""Which engine runs a pipeline command's tasks: this process, or Spark.  One place decides.

``mqcn audit``, ``mqcn fuzz target`` and ``mqcn fuzz codec`` run *the same task code* either way:
the ``mapInArrow`` functions of the audit's input kinds (:mod:`.audit.kinds`), :mod:`.fuzz` and
:mod:`.campaign` take Arrow batches of work and give Arrow batches of rows, and the
in-process engine feeds them those batches itself (no SparkSession, no JVM, no pyspark
import).  What differs is only who calls the task and who writes and sums its rows.

Starting Spark costs 10 to 20 s before the first row is judged; the in-process engine starts
at once but uses one core.  So ``--engine auto`` (the default) runs in process when the work
is small -- at most :data:`AUDIT_BYTES` bytes of capture or raw input and
:data:`AUDIT_ROWS` Parquet rows or raw files, at most :data:`FUZZ_CASES` differential or
:data:`CODEC_CASES` hostile cases -- and on Spark above that, or whenever the user asked for
Spark: ``--master``, ``--conf``, or an output on a Hadoop filesystem URI (``hdfs://``,
``s3a://``: only Spark writes there).  ``--engine in-process`` and ``--engine spark`` force
one; ``--engine in-process`` with ``--master``, ``--conf`` or such an output is refused.

>>> choose_engine("auto", None, [(5_436, AUDIT_BYTES, "bytes")]).label
'in-process'
>>> choose_engine("auto", "spark://head:7077", [(1, AUDIT_BYTES, "bytes")]).label
'Spark spark://head:7077'
>>> choose_engine("auto", None, [(2_000_000, 1_000, "rows")]).reason
'more than 1000 rows'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mqcn_suite.pipeline.session import DEFAULT_MASTER, PipelineError
from mqcn_suite.pipeline.storage import is_uri

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame

AUTO = "auto"
IN_PROCESS = "in-process"
SPARK = "spark"
ENGINE_CHOICES = (AUTO, IN_PROCESS, SPARK)

# The most work ``--engine auto`` runs in this process: about 15 s of work in process, where
# ``local[2]`` (12 to 15 s to start, then two cores) would take about as long.  Measured on a
# shared 2-core machine (docs/spark.md): in process, 100,000 Parquet rows took 6.0 s (Spark
# 19.1 s), a 54 MB capture 8.1 s (18.5 s), 2,000 cases against the reference 2.8 s (13.2 s),
# 100,000 hostile bodies 13.5 s (19.8 s).  An ``exec:`` target costs more per case: its
# limit is kept lower than the reference's rate would allow.
AUDIT_BYTES = 128_000_000  # bytes of capture files or raw bodies
AUDIT_ROWS = 250_000  # Parquet rows (from the footers) or raw files
FUZZ_CASES = 5_000  # mqcn fuzz target
CODEC_CASES = 150_000  # mqcn fuzz codec


@dataclass(frozen=True)
class Engine:
    """The engine chosen, and why (said on the command's first line and in its summary)."""

    kind: str  # IN_PROCESS or SPARK
    master: str | None  # the Spark master URL; None in process
    reason: str

    @property
    def spark(self) -> bool:
        return self.kind == SPARK

    @property
    def label(self) -> str:
        """``in-process`` or ``Spark <master>``: the ``engine`` of every summary."""
        return f"Spark {self.master}" if self.spark else IN_PROCESS


def spark_label(master: str) -> str:
    """The engine label of a run on an existing session of ``master``."""
    return f"Spark {master}"


def check_engine(choice: str) -> str:
    """``choice`` if it names an engine, else a one-line :class:`PipelineError`."""
    if choice not in ENGINE_CHOICES:
        raise PipelineError(f"--engine: {choice!r} is not one of {', '.join(ENGINE_CHOICES)}")
    return choice


def spark_only_output(outputs: Iterable[str | None]) -> str | None:
    """The first output only Spark can write (a filesystem URI other than ``file:``)."""
    for out in outputs:
        if out is not None and is_uri(out) and not str(out).startswith("file:"):
            return str(out)
    return None


def choose_engine(
    choice: str,
    master: str | None,
    work: Iterable[tuple[int, int, str]],
    *,
    conf: Iterable[str] | None = None,
    outputs: Iterable[str | None] = (),
) -> Engine:
    """The engine of a command asked for ``choice``, whose ``work`` is (size, most in
    process, unit) triples: Spark when any size is above its limit.

    ``master``: the ``--master`` given (None: not given); ``conf``: the ``--conf`` items;
    ``outputs``: the output places (a Hadoop filesystem URI needs Spark).
    """
    check_engine(choice)
    settings = list(conf or [])
    uri = spark_only_output(outputs)
    if choice == IN_PROCESS:
        for given, name in ((master, "--master"), (settings or None, "--conf")):
            if given is not None:
                raise PipelineError(
                    f"{name} sets up Spark, and --engine {IN_PROCESS} runs without it: give one "
                    f"or the other (--engine {AUTO} runs on Spark when {name} is given)"
                )
        if uri is not None:
            raise PipelineError(
                f"--out {uri}: only Spark writes to a filesystem URI; give a local path, or "
                f"--engine {SPARK}"
            )
        return Engine(IN_PROCESS, None, f"--engine {IN_PROCESS}")
    on = master or DEFAULT_MASTER
    if choice == SPARK:
        return Engine(SPARK, on, f"--engine {SPARK}")
    if master is not None:
        return Engine(SPARK, on, "--master given")
    if settings:
        return Engine(SPARK, on, "--conf given")
    if uri is not None:
        return Engine(SPARK, on, "--out is a filesystem URI")
    work = list(work)
    for size, limit, unit in work:
        if size > limit:
            return Engine(SPARK, on, f"more than {_amount(limit, unit)}")
    within = " and ".join(_amount(limit, unit) for _size, limit, unit in work)
    return Engine(IN_PROCESS, None, f"at most {within}" if within else "small work")


BATCH_CASES = 5000  # cases per Arrow batch in process (the sessions' maxRecordsPerBatch)


def count_exploded(frame: DataFrame, column: str) -> dict[str, int]:
    """How many rows of ``frame`` hold each value of its list ``column`` (Spark), most
    frequent first (ties by value): a row with two values counts once for each."""
    from pyspark.sql import functions as F

    counted = (
        frame.select(F.explode(column).alias("value"))
        .groupBy("value")
        .agg(F.count(F.lit(1)).alias("n"))
        .orderBy(F.desc("n"), "value")
        .collect()
    )
    return {row["value"]: int(row["n"]) for row in counted}


def case_batches(cases: int, batch: int = BATCH_CASES) -> Iterator[pa.RecordBatch]:
    """Case numbers ``0 .. cases-1`` as the batches ``spark.range(cases)`` hands a task
    (one ``id`` column): the fuzzers' input in process."""
    import pyarrow as pa  # (here: the commands import this module to word their --help)

    for start in range(0, cases, batch):
        ids = pa.array(range(start, min(cases, start + batch)), pa.int64())
        yield pa.RecordBatch.from_arrays([ids], names=["id"])


def _amount(limit: int, unit: str) -> str:
    return human_bytes(limit) if unit == "bytes" else f"{limit} {unit}"


def human_bytes(size: int) -> str:
    """A size as people read it: ``612 bytes``, ``5.4 kB``, ``108.8 MB``, ``2.1 GB``.

    >>> human_bytes(612), human_bytes(5_436), human_bytes(108_800_000)
    ('612 bytes', '5.4 kB', '108.8 MB')
    """
    if size < 1000:
        return f"{size} byte{'' if size == 1 else 's'}"
    if size < 1_000_000:
        return f"{size / 1e3:.1f} kB"
    if size < 1_000_000_000:
        return f"{size / 1e6:.1f} MB"
    return f"{size / 1e9:.1f} GB"
