"""The SparkSession the pipeline commands run on: local by default, quiet, Arrow on.

``spark_session(master, conf)`` is a context manager that yields a session and stops it
afterwards only if it created it, so a test (or a notebook) that already holds a session
simply lends it to the commands.  The master URL is checked *before* Spark starts, so a typo
costs a one-line :class:`PipelineError` rather than a JVM stack trace:

>>> check_master("local[2]"), check_master("spark://head:7077")
('local[2]', 'spark://head:7077')
>>> try:
...     check_master("lokal")
... except PipelineError as exc:
...     print(str(exc)[:43])
--master: 'lokal' is not a Spark master URL
>>> parse_conf(["spark.sql.shuffle.partitions=8"])
{'spark.sql.shuffle.partitions': '8'}
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[2]"
APP_NAME = "mqcn-pipeline"

_MASTER = re.compile(
    r"""
    local
    | local\[(\d+|\*)\]
    | local\[(\d+|\*),\s*\d+\]
    | local-cluster\[\d+,\s*\d+,\s*\d+\]
    | spark://[^\s/:]+(:\d+)?(,[^\s/:]+(:\d+)?)*
    | yarn
    | k8s://\S+
    """,
    re.VERBOSE,
)

# Spark's own log4j2 set-up writes INFO lines and a progress bar to stderr; this keeps ERROR.
_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark %p %c{1}: %m%n
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
logger.parquet.name = org.apache.parquet
logger.parquet.level = error
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = error
"""

# Settings every pipeline session gets (``--conf`` overrides them).
BASE_CONF: dict[str, str] = {
    "spark.driver.memory": "2g",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.execution.arrow.maxRecordsPerBatch": "5000",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.shuffle.partitions": "8",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.python.worker.reuse": "true",
}


class PipelineError(Exception):
    """The user asked for something impossible (a bad master, a missing input, a bad column).

    The commands turn it into one line on stderr and exit code 2; it never shows a traceback.
    """


def check_master(master: str) -> str:
    """``master`` if it is a Spark master URL, else :class:`PipelineError` saying what is."""
    if not _MASTER.fullmatch(master.strip()):
        raise PipelineError(
            f"--master: {master!r} is not a Spark master URL (local, local[N], local[*], "
            "local[N,F], local-cluster[N,C,M], spark://HOST:PORT, yarn, k8s://URL)"
        )
    return master.strip()


def parse_conf(pairs: Iterable[str]) -> dict[str, str]:
    """``--conf key=value`` items as a dict; :class:`PipelineError` for an item without ``=``."""
    conf: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise PipelineError(f"--conf: {pair!r} is not KEY=VALUE (e.g. spark.driver.memory=4g)")
        conf[key.strip()] = value
    return conf


def _log4j2_file() -> Path:
    """A log4j2 properties file that keeps only errors (written once per machine user)."""
    path = Path(tempfile.gettempdir()) / f"mqcn-spark-log4j2-{os.getuid()}.properties"
    if not path.is_file() or path.read_text() != _LOG4J2:
        path.write_text(_LOG4J2)
    return path


def _quiet_python() -> None:
    warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support pandas.*")
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")


def active_session() -> SparkSession | None:
    """The session this process already runs, if any."""
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


def create_session(
    master: str = DEFAULT_MASTER, conf: dict[str, str] | None = None, app_name: str = APP_NAME
) -> SparkSession:
    """Start (or join) a SparkSession on ``master`` with :data:`BASE_CONF` plus ``conf``.

    Workers run this very interpreter (``PYSPARK_PYTHON``), so they see the same installed
    suite.  A master Spark cannot reach, or a ``--conf`` it refuses, is a
    :class:`PipelineError` carrying Spark's first line of explanation.
    """
    master = check_master(master)
    _quiet_python()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    settings = {**BASE_CONF, **(conf or {})}
    log4j = f"-Dlog4j2.configurationFile=file:{_log4j2_file()}"
    extra = settings.get("spark.driver.extraJavaOptions", "")
    settings["spark.driver.extraJavaOptions"] = f"{extra} {log4j}".strip()
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except Exception as exc:  # Py4J/JVM start-up failures: one line is enough for the user
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise PipelineError(f"cannot start Spark on {master!r}: {first}") from None
    session.sparkContext.setLogLevel("ERROR")
    return session


@contextmanager
def spark_session(
    master: str = DEFAULT_MASTER, conf: dict[str, str] | None = None
) -> Iterator[SparkSession]:
    """Yield a session; stop it at the end only when this call started it.

    The master is validated even when a session already runs, so ``--master lokal`` is an
    error in every context.
    """
    check_master(master)
    existing = active_session()
    if existing is not None:
        yield existing
        return
    session = create_session(master, conf)
    try:
        yield session
    finally:
        session.stop()


def default_parallelism(spark: SparkSession) -> int:
    """How many tasks the session runs at once (at least 1)."""
    try:
        return max(1, int(spark.sparkContext.defaultParallelism))
    except Exception:  # pragma: no cover - a remote/Connect session without a SparkContext
        return 2
