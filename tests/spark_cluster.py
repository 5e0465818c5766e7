"""A real Spark standalone cluster for the tests: a master and two workers on 127.0.0.1.

Started with pyspark's own ``bin/spark-class`` (``SPARK_HOME`` is the pip-installed pyspark
package), on free ports, every service bound to the loopback address; each worker offers one
core and a modest amount of memory.  Their executors run a *bare* Python: a virtual
environment holding only what pyspark's Arrow path needs (pyarrow, pandas, numpy at the
driver's versions) and nothing of this project -- as on any real cluster, the code must be
shipped by the command (``mqcn_suite.pipeline.shipping``).  pyspark itself comes from the
worker's ``SPARK_HOME`` (``python/lib/pyspark.zip``, put on the Python path by Spark).

The bare environment is made once per machine and kept (its folder is named after the
Python and package versions); building it takes a pip install.  Executors find it as
``python3`` first on the workers' ``PATH``: a driver that names no Python
(``spark.pyspark.python`` / ``PYSPARK_PYTHON``) makes Spark run ``python3`` on each executor.
The workers' ``PYSPARK_PYTHON`` names it too, for anyone reading their environment.

Every process started here is the leader of its own process group (``start_new_session``):
:meth:`Cluster.stop` ends each group -- the JVM, its executors and their Python workers --
with SIGTERM, then SIGKILL after a grace period, by process id only.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import pyspark

from mqcn_suite.processes import stop_group

SPARK_HOME = Path(pyspark.__file__).resolve().parent
SPARK_CLASS = SPARK_HOME / "bin" / "spark-class"
HOST = "127.0.0.1"
EXECUTOR_PACKAGES = ("pyarrow", "pandas", "numpy")
WORKER_MEMORY = "1g"
START_TIMEOUT = 90.0  # seconds for a master or a worker to come up (a loaded CI machine)
# The JVMs of the tests live for seconds: the C1 compiler alone and the serial collector cost
# about 30 % less CPU than HotSpot's defaults there (measured on `corpus generate`), on two
# cores shared by two test workers.  Drivers get them through SPARK_SUBMIT_OPTS (set for
# every test by tests/conftest.py), the master and the workers through
# SPARK_DAEMON_JAVA_OPTS, the executors through the drivers' spark-defaults.conf.  Only the
# JIT and the collector change: never what the code does.
TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def free_port() -> int:
    """A TCP port nobody listens on now (the kernel's choice)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def closed_port() -> int:
    """A port that refuses connections (free, and nothing is started on it)."""
    return free_port()


# --- the executors' bare Python ------------------------------------------------------------------


def cache_root() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "mqcn-conformance"


def bare_python() -> Path:
    """The Python of a venv with only pyarrow, pandas and numpy (made once, then reused)."""
    versions = [f"{name}=={metadata.version(name)}" for name in EXECUTOR_PACKAGES]
    tag = "-".join(
        [f"py{sys.version_info.major}{sys.version_info.minor}{sys.version_info.micro}"]
        + [v.replace("==", "") for v in versions]
    )
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    venv = root / f"spark-executor-{tag}"
    python = venv / "bin" / "python"
    with (root / ".lock").open("w") as lock:  # xdist workers or two runs: build it once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (venv / ".complete").is_file():
            return python
        shutil.rmtree(venv, ignore_errors=True)
        partial = root / f".{venv.name}.{os.getpid()}"
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(partial)], check=True)
        subprocess.run(
            [str(partial / "bin" / "python"), "-m", "pip", "install", "--quiet", *versions],
            check=True,
            env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        )
        partial.rename(venv)  # the venv's python is a symlink: it works from the new place
        (venv / ".complete").write_text("\n".join(versions) + "\n")
    return python


# --- processes ---------------------------------------------------------------------------------


def _clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would leak the driver's Python."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH", "VIRTUAL_ENV"}
        and not k.startswith("SPARK_")
    }
    env.update(
        SPARK_HOME=str(SPARK_HOME),
        SPARK_LOCAL_IP=HOST,
        SPARK_DAEMON_JAVA_OPTS=TEST_JVM_OPTIONS,
        **extra,
    )
    return env


@dataclass
class Worker:
    """One worker JVM (and, under it, the executors the master gives it)."""

    index: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def log(self) -> Path:
        return self.folder / f"worker-{self.index}.log"


@dataclass
class Cluster:
    """A standalone master and its workers; :meth:`start` and :meth:`stop` (see the module)."""

    folder: Path
    python: Path
    workers_wanted: int = 2
    master_port: int = 0
    ui_port: int = 0
    master: subprocess.Popen[bytes] | None = None
    workers: list[Worker] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"spark://{HOST}:{self.master_port}"

    def _spawn(self, args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
        with log.open("ab") as sink:
            return subprocess.Popen(
                [str(SPARK_CLASS), *args],
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=self.folder,
                start_new_session=True,  # its own process group: stopped as one
            )

    @property
    def driver_conf(self) -> Path:
        return self.folder / "driver-conf"

    def start(self) -> Cluster:
        """Start the master, then the workers; return when all workers registered."""
        self.folder.mkdir(parents=True, exist_ok=True)
        # the drivers' spark-defaults.conf (SPARK_CONF_DIR, see driver_env): the executors'
        # JVMs get the test options too, as the drivers' and the daemons' do
        self.driver_conf.mkdir(exist_ok=True)
        (self.driver_conf / "spark-defaults.conf").write_text(
            f"spark.executor.extraJavaOptions {TEST_JVM_OPTIONS}\n", "utf-8"
        )
        self.master_port, self.ui_port = free_port(), free_port()
        env = _clean_env(SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false")
        self.master = self._spawn(
            [
                "org.apache.spark.deploy.master.Master",
                "--host",
                HOST,
                "--port",
                str(self.master_port),
                "--webui-port",
                str(self.ui_port),
            ],
            self.folder / "master.log",
            env,
        )
        self._until(lambda: self.status() is not None, "the master to answer", self.master)
        for index in range(self.workers_wanted):
            self.workers.append(Worker(index, self.folder / f"worker-{index}"))
            self.start_worker(self.workers[-1], wait=False)
        self.wait_for_workers()
        return self

    def worker_env(self, worker: Worker) -> dict[str, str]:
        """The bare venv first on PATH (executors run ``python3``), then Java, then the system."""
        java = shutil.which("java")
        path = [str(self.python.parent)]
        if java:
            path.append(str(Path(java).resolve().parent))
        path += ["/usr/local/bin", "/usr/bin", "/bin"]
        return _clean_env(
            PATH=os.pathsep.join(path),
            PYSPARK_PYTHON=str(self.python),
            SPARK_WORKER_DIR=str(worker.folder / "work"),
        )

    def start_worker(self, worker: Worker, wait: bool = True) -> None:
        """(Re)start one worker with 1 core and :data:`WORKER_MEMORY`."""
        worker.folder.mkdir(parents=True, exist_ok=True)
        worker.process = self._spawn(
            [
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                HOST,
                "--cores",
                "1",
                "--memory",
                WORKER_MEMORY,
                "--webui-port",
                str(free_port()),
                self.url,
            ],
            worker.log,
            self.worker_env(worker),
        )
        if wait:
            self.wait_for_workers()

    def status(self) -> dict[str, object] | None:
        """The master's ``/json`` status page (None while it does not answer)."""
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.ui_port}/json/", timeout=2) as page:
                return json.loads(page.read())  # type: ignore[no-any-return]
        except (OSError, ValueError):
            return None

    def alive_workers(self) -> int:
        status = self.status() or {}
        return int(status.get("aliveworkers", 0))  # type: ignore[call-overload]

    def wait_for_workers(self) -> None:
        """Until every worker we run is ALIVE at the master."""
        wanted = sum(1 for w in self.workers if w.process and w.process.poll() is None)
        self._until(lambda: self.alive_workers() >= wanted, f"{wanted} workers to register")

    def restore(self) -> None:
        """Restart any worker that is gone, and wait until all are registered again."""
        for worker in self.workers:
            if worker.process is None or worker.process.poll() is not None:
                if worker.process is not None:
                    stop_group(worker.process, grace=1)
                self.start_worker(worker, wait=False)
        self.wait_for_workers()

    def _until(
        self, done: Callable[[], bool], what: str, process: subprocess.Popen[bytes] | None = None
    ) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while not done():
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"the Spark process exited while waiting for {what}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {what} (logs in {self.folder})")
            time.sleep(0.3)

    def stop(self) -> None:
        """Stop the workers (and their executors), then the master; by process group."""
        for worker in self.workers:
            if worker.process is not None:
                stop_group(worker.process)
        if self.master is not None:
            stop_group(self.master)

    def driver_env(self, **extra: str) -> dict[str, str]:
        """The environment of a driver (an ``mqcn`` command) that uses this cluster.

        No ``PYSPARK_PYTHON``: on a cluster the executors' own ``python3`` runs the tasks.
        ``SPARK_LOCAL_IP`` keeps the driver on the loopback address, where the workers are.
        """
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_", "SPARK_"))}
        env.update(
            SPARK_LOCAL_IP=HOST,
            SPARK_SUBMIT_OPTS=TEST_JVM_OPTIONS,
            SPARK_CONF_DIR=str(self.driver_conf),
            **extra,
        )
        return env


@contextlib.contextmanager
def running_cluster(folder: Path, workers: int = 2) -> Iterator[Cluster]:
    """A started :class:`Cluster`, stopped on the way out whatever happened."""
    cluster = Cluster(folder, bare_python(), workers)
    try:
        yield cluster.start()
    finally:
        cluster.stop()
