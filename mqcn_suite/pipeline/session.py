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

What a session does beyond ``SparkSession.builder`` (docs/spark.md tells the user):

* **Quiet.** The driver JVM's own stdout and stderr (its start-up lines, the standalone
  client's retries, log4j) go to a log file (:func:`driver_log`), never to the terminal.
* **Which Python the executors run.** ``--conf spark.pyspark.python=...`` if given, else the
  ``PYSPARK_PYTHON`` of the environment if set; else, on a local master, this interpreter
  (its executors are processes of this machine), and on any other master Spark's default,
  ``python3`` on each executor's ``PATH``: the driver's venv path means nothing there.
* **The code.** On a non-local master the project's packages are shipped to the executors
  (:mod:`.shipping`; ``--conf mqcn.ship=none`` to turn it off).
* **A master that is not there** fails within ``mqcn.master.timeout`` seconds (default
  :data:`DEFAULT_TIMEOUT` for ``spark://``, :data:`DEFAULT_TIMEOUT_MANAGED` for YARN and
  Kubernetes, whose containers take longer to start): a ``spark://`` address that accepts no
  connection fails at once, and a session to which no executor comes within the timeout is
  stopped -- one :class:`PipelineError` line naming the master, instead of Spark's endless
  "Initial job has not accepted any resources".
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import socket
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqcn_suite.pipeline.groundwork import PipelineError, cache_dir, is_local_master

if TYPE_CHECKING:
    from py4j.java_gateway import JavaGateway
    from pyspark import SparkConf, SparkContext
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

# The pipeline's own settings, given as ``--conf mqcn.KEY=VALUE``: never given to the JVM at its
# launch, but set in the session's run-time configuration, where the stages read them
# (``spark.conf.get``, e.g. ``mqcn.capture.split``).
TIMEOUT = "mqcn.master.timeout"
OWN_PREFIX = "mqcn."
DEFAULT_TIMEOUT = 30.0  # seconds: spark:// masters
DEFAULT_TIMEOUT_MANAGED = 180.0  # seconds: yarn, k8s:// (containers and pods start slowly)
SPARK_PORT = 7077
LOGS_KEPT = 20

# Spark's log4j2 set-up: warnings and errors, with a time, to the JVM's stderr -- which the
# session sends to the driver log file (the terminal never sees any of it).
_LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
logger.parquet.name = org.apache.parquet
logger.parquet.level = error
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = warn
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


def split_conf(conf: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(the pipeline's own ``mqcn.*`` settings, the Spark settings) of ``--conf``."""
    own = {k: v for k, v in conf.items() if k.startswith(OWN_PREFIX)}
    return own, {k: v for k, v in conf.items() if not k.startswith(OWN_PREFIX)}


# The checks of the pipeline's own keys read by the stages (``mqcn.capture.split``...), by key:
# each takes a ``conf(key, default)`` getter, as the stage reads the key, and raises
# :class:`PipelineError` for a bad value.  The modules that read a key register its check
# (:func:`register_own_check`); :func:`check_own` runs them on ``--conf`` before a session
# starts, so that a bad value is refused at once, not after Spark's start.
ConfGetter = Callable[[str, str], str | None]  # spark.conf.get's shape: (key, default)
OWN_CHECKS: dict[str, Callable[[ConfGetter], object]] = {}


def register_own_check(key: str, check: Callable[[ConfGetter], object]) -> None:
    """Have :func:`check_own` check ``--conf KEY=...`` with ``check``."""
    OWN_CHECKS[key] = check


def check_own(conf: dict[str, str]) -> None:
    """:class:`PipelineError` for the first ``--conf mqcn.*`` value its check refuses."""
    for key, check in OWN_CHECKS.items():
        if key in conf:
            check(lambda name, default: conf.get(name, default))


def master_timeout(master: str, own: dict[str, str]) -> float:
    """Seconds to wait for a master and its first executor (``--conf mqcn.master.timeout``)."""
    default = DEFAULT_TIMEOUT if master.startswith("spark://") else DEFAULT_TIMEOUT_MANAGED
    text = own.get(TIMEOUT)
    if text is None:
        return default
    try:
        value = float(text.strip().removesuffix("s"))
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise PipelineError(f"--conf {TIMEOUT}={text!r}: expected a positive number of seconds")
    return value


def _log4j2_file() -> Path:
    """The log4j2 properties file of every pipeline driver (named by its content, so that
    drivers of different versions never rewrite each other's)."""
    digest = hashlib.sha256(_LOG4J2.encode()).hexdigest()[:12]
    path = cache_dir() / f"log4j2-{digest}.properties"
    if not path.is_file():
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_text(_LOG4J2)
        os.replace(partial, path)
    return path


_DRIVER_LOG: Path | None = None


def driver_log() -> Path | None:
    """The file the driver JVM of this process writes to (None before the first session)."""
    return _DRIVER_LOG


def _new_driver_log() -> Path:
    folder = cache_dir() / "logs"
    folder.mkdir(exist_ok=True)
    old = sorted(folder.glob("driver-*.log"), key=lambda p: p.stat().st_mtime)
    for stale in old[: max(0, len(old) - LOGS_KEPT + 1)]:
        stale.unlink(missing_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return folder / f"driver-{stamp}-{os.getpid()}.log"


def _quiet_python(log: Path) -> None:
    warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support pandas.*")
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
    # py4j logs connection trouble with Python's logging: into the driver log, not stderr.
    handler = logging.FileHandler(log, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in ("py4j", "pyspark"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.propagate = False


def active_session() -> SparkSession | None:
    """The session this process already runs, if any."""
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


def _master_addresses(master: str) -> list[tuple[str, int]]:
    """(host, port) of each master of ``spark://h1:p1,h2:p2``."""
    found = []
    for item in master.removeprefix("spark://").split(","):
        host, _, port = item.partition(":")
        found.append((host, int(port) if port else SPARK_PORT))
    return found


def check_reachable(master: str, timeout: float) -> None:
    """:class:`PipelineError` unless some master of a ``spark://`` URL accepts a connection.

    Spark's standalone client would retry an absent master for a minute and more, writing
    a stack of warnings; a refused or timed-out connection is known in milliseconds.
    """
    if not master.startswith("spark://"):
        return
    problems = []
    for host, port in _master_addresses(master):
        try:
            with socket.create_connection((host, port), timeout=min(timeout, 10.0)):
                return
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            if isinstance(exc, TimeoutError):
                reason = f"no answer within {min(timeout, 10.0):g} s"
            problems.append(f"{host}:{port}: {reason.lower()}")
    raise PipelineError(f"cannot reach the Spark master {master} ({'; '.join(problems)})")


def _executor_python(master: str, spark_conf: dict[str, str]) -> str | None:
    """The ``PYSPARK_PYTHON`` the new context must see (None: leave the environment alone).

    PySpark reads only the environment variable when the driver is a plain Python process
    (``spark.pyspark.python`` is honoured by ``spark-submit`` alone), so the conf is applied
    here.
    """
    if spark_conf.get("spark.pyspark.python"):
        return spark_conf["spark.pyspark.python"]
    if os.environ.get("PYSPARK_PYTHON"):
        return None
    return sys.executable if is_local_master(master) else None


@contextmanager
def _environment(name: str, value: str | None) -> Iterator[None]:
    """``os.environ[name] = value`` for the block (nothing when ``value`` is None)."""
    if value is None:
        yield
        return
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


def _spark_conf(master: str, app_name: str, settings: dict[str, str]) -> SparkConf:
    from pyspark import SparkConf

    conf = SparkConf(loadDefaults=False)
    for key, value in settings.items():
        conf.set(key, value)
    return conf.setMaster(master).setAppName(app_name)


def gateway_running() -> bool:
    """Whether this process already has Spark's driver JVM (so starting a session needs no
    Java check)."""
    from pyspark import SparkContext

    return SparkContext._gateway is not None


def _launch_jvm(conf: SparkConf) -> JavaGateway | None:
    """Start the driver JVM with its stdout and stderr in a new driver log (None: it runs).

    One JVM serves every session of a process (PySpark keeps the gateway), so only the first
    session of a process launches it -- after :func:`.preflight.java_problem` found a Java
    Spark can run on.
    """
    global _DRIVER_LOG
    from pyspark import SparkContext

    if SparkContext._gateway is not None:
        return None
    from pyspark.java_gateway import launch_gateway

    from mqcn_suite.pipeline.preflight import java_problem

    problem = java_problem()  # missing or too old: one line, not [JAVA_GATEWAY_EXITED]
    if problem is not None:
        raise PipelineError(problem)

    log = _new_driver_log()
    _quiet_python(log)
    _DRIVER_LOG = log
    with log.open("ab") as sink:
        return launch_gateway(conf, popen_kwargs={"stdout": sink, "stderr": sink})


def _start_context(
    conf: SparkConf, gateway: JavaGateway | None, deadline: float | None, timeout: float = 0.0
) -> SparkContext:
    """The SparkContext of ``conf``; with a ``deadline`` (``time.monotonic()``), a master that
    has not taken the application by then is a :class:`PipelineError` (Spark's standalone
    client would go on trying for a minute and more)."""
    from pyspark import SparkContext

    master = conf.get("spark.master")
    if deadline is None:
        return SparkContext(conf=conf, gateway=gateway)
    made: dict[str, Any] = {}

    def make() -> None:
        try:
            made["context"] = SparkContext(conf=conf, gateway=gateway)
        except BaseException as exc:  # handed to the caller's thread below
            made["error"] = exc

    thread = threading.Thread(target=make, name="mqcn-spark-start", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    if thread.is_alive():
        raise PipelineError(
            f"the Spark master {master} did not take the application within {timeout:g} s (is "
            f"it a Spark master of a compatible version?); --conf {TIMEOUT}=SECONDS waits longer; "
            f"driver log: {driver_log()}"
        )
    if "error" in made:
        raise made["error"]
    return made["context"]


def _executors(sc: SparkContext) -> int:
    """How many executors are registered (the driver is not counted)."""
    return max(0, int(sc._jsc.sc().getExecutorMemoryStatus().size()) - 1)  # type: ignore[union-attr]


def wait_for_executors(sc: SparkContext, master: str, timeout: float, deadline: float) -> None:
    """Return once an executor joined; :class:`PipelineError` at ``deadline`` (monotonic)."""
    while True:
        if sc._jsc.sc().isStopped():  # type: ignore[union-attr]
            raise PipelineError(
                f"Spark on {master} stopped the application before it started "
                f"(the driver log says why: {driver_log()})"
            )
        if _executors(sc) > 0:
            return
        if time.monotonic() >= deadline:
            raise PipelineError(
                f"no executor of {master} joined within {timeout:g} s (is a worker alive, with "
                "free cores and memory, and can it reach this machine?); "
                f"--conf {TIMEOUT}=SECONDS waits longer; driver log: {driver_log()}"
            )
        time.sleep(0.2)


def create_session(
    master: str = DEFAULT_MASTER, conf: dict[str, str] | None = None, app_name: str = APP_NAME
) -> SparkSession:
    """Start a SparkSession on ``master`` with :data:`BASE_CONF` plus ``conf`` (or join the
    one this process runs: Spark allows one SparkContext per process).

    ``conf`` may hold the pipeline's own ``mqcn.*`` keys (shipping, the master timeout: see
    the module docstring).  A master Spark cannot reach, one that gives no executor in time,
    or a ``--conf`` it refuses, is a :class:`PipelineError` of one line.
    """
    from pyspark import SparkContext

    from mqcn_suite.pipeline.shipping import ship, ship_mode

    master = check_master(master)
    own, spark_conf = split_conf(conf or {})
    if SparkContext._active_spark_context is not None:
        return _own_settings(_join(spark_conf), own)
    mode = ship_mode(master, own)
    local = is_local_master(master)
    timeout = 0.0 if local else master_timeout(master, own)
    if not local:
        check_reachable(master, timeout)
    settings = {**BASE_CONF, **spark_conf}
    log4j = f"-Dlog4j2.configurationFile=file:{_log4j2_file()}"
    extra = settings.get("spark.driver.extraJavaOptions", "")
    settings["spark.driver.extraJavaOptions"] = f"{log4j} {extra}".strip()  # the user's wins
    from pyspark.sql import SparkSession

    conf_object = _spark_conf(master, app_name, settings)
    try:
        gateway = _launch_jvm(conf_object)
        deadline = None if local else time.monotonic() + timeout  # the JVM is up: now the master
        with _environment("PYSPARK_PYTHON", _executor_python(master, spark_conf)):
            context = _start_context(conf_object, gateway, deadline, timeout)
    except PipelineError:
        raise
    except Exception as exc:  # Py4J/JVM start-up failures: one line is enough for the user
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        where = f" (driver log: {driver_log()})" if driver_log() else ""
        raise PipelineError(f"cannot start Spark on {master!r}: {first}{where}") from None
    session = SparkSession(context)
    try:
        context.setLogLevel("WARN")
        dynamic = context.getConf().get("spark.dynamicAllocation.enabled", "false")
        if deadline is not None and dynamic.strip().lower() != "true":  # (else: none until a job)
            wait_for_executors(context, master, timeout, deadline)
        if mode == "zip":
            ship(context)
    except BaseException:
        session.stop()
        raise
    return _own_settings(session, own)


def _own_settings(session: SparkSession, own: dict[str, str]) -> SparkSession:
    """``session`` with the pipeline's own ``mqcn.*`` settings in its run-time configuration."""
    for key, value in own.items():
        session.conf.set(key, value)
    return session


def _join(spark_conf: dict[str, str]) -> SparkSession:
    """The session of the SparkContext this process already runs (one per process), with
    ``spark_conf`` applied where Spark allows it at run time (SQL settings)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder
    for key, value in spark_conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


@contextmanager
def spark_session(
    master: str = DEFAULT_MASTER, conf: dict[str, str] | None = None
) -> Iterator[SparkSession]:
    """Yield a session; stop it at the end only when this call started it.  A session
    already running is lent with the pipeline's own ``mqcn.*`` settings of ``conf`` set for
    the time of the loan.

    The master is validated even when a session already runs, so ``--master lokal`` is an
    error in every context.
    """
    check_master(master)
    existing = active_session()
    if existing is not None:  # lent: the pipeline's own settings for this use only
        own, _ = split_conf(conf or {})
        before = {key: existing.conf.get(key, None) for key in own}
        _own_settings(existing, own)
        try:
            yield existing
        finally:
            for key, value in before.items():
                if value is None:
                    existing.conf.unset(key)
                else:
                    existing.conf.set(key, value)
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
