"""The pipeline on a real Spark standalone cluster whose executors know nothing of the project.

The ``spark_cluster`` fixture (tests/conftest.py, tests/spark_cluster.py) starts a master and
two 1-core workers on 127.0.0.1; their executors run a bare venv (pyarrow, pandas, numpy).
The commands run as a user runs them -- ``mqcn ... --master spark://...`` in a process of its
own -- and must ship their code themselves.  What is checked:

* generate -> audit -> fuzz on the cluster give, row for row, what the same tasks give in
  this process for the same seed (the corpus rows as ``generate_rows`` draws them, the
  in-process engine's verdicts, summary and divergences; tests/test_engines.py holds that
  engine equal to ``local[2]``, so no second JVM is started here), and a capture read as
  byte ranges on the cluster (``mqcn.capture.split``) gives the one-task read's verdicts;
* the zip the driver ships holds everything the executor-side code imports: run in the bare
  Python with nothing else, the tasks' work gives the driver's results;
* failures are one line on stderr and no traceback: a master that refuses connections (at
  once), one that never answers (after ``mqcn.master.timeout``), a Python exception inside a
  task (the case it failed on, the replay, the log file with the whole trace); and a worker
  killed during an audit is survived: Spark retries, the balance holds, the verdicts are the
  same.  On success nothing of Spark's start-up reaches stderr (on ``local[2]`` either).

Small data (a thousand rows): the file costs about two minutes on two busy cores, most of
it JVMs starting.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from capture_helpers import busy_frames, pcap
from spark_cluster import HOST, SPARK_HOME, Cluster, closed_port, running_cluster

from mqcn_suite.pipeline.audit import audit
from mqcn_suite.pipeline.corpus import generate_rows, read_corpus
from mqcn_suite.pipeline.fuzz import fuzz
from mqcn_suite.pipeline.shipping import DEPENDENCY_PACKAGES, NOT_SHIPPED, build_bundle

pytestmark = pytest.mark.cluster  # Java guard and pyspark's pandas warning: tests/conftest.py

SEED = 21
COUNT = 1000
SHARE = 0.2
CASES = 200
SPLIT = 8192  # the capture's byte ranges: about 9 of them
FAULTY = "python:mqcn_suite.targets.zoo:ProcessesUnauthenticated"
HERE = Path(__file__).resolve().parent


def mqcn(
    *args: str, env: dict[str, str], cwd: Path, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """``mqcn ARGS`` in a process of its own, as a user runs it."""
    code = "from mqcn_suite.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
    )


STARTING = re.compile(r"starting Spark \((local\[2\]|spark://\S+)\)…")


def with_path(folder: Path) -> str:
    """``folder`` before this process's own PYTHONPATH (a checkout run from PYTHONPATH keeps it)."""
    return os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))


def one_line(result: subprocess.CompletedProcess[str], code: int) -> str:
    """The single stderr line of a command that failed with ``code`` (no traceback anywhere),
    after the ``starting Spark (MASTER)…`` it says before the session exists."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    if lines and STARTING.fullmatch(lines[0]):
        lines = lines[1:]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    return lines[0]


def quiet(result: subprocess.CompletedProcess[str], code: int) -> None:
    """Exit ``code`` with nothing on stderr but the command's own ``starting Spark (MASTER)…``
    (no JVM start-up line, no log4j, no warning)."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    others = [line for line in result.stderr.splitlines() if not STARTING.fullmatch(line)]
    assert others == [], result.stderr


def verdict_rows(out: Path) -> list[dict[str, Any]]:
    """The verdicts of an audit, sorted, with the corpus file's random name taken out."""
    rows = pq.read_table(out / "verdicts").to_pylist()
    for row in rows:
        row["source"] = re.sub(r"^.*/part-(\d+)-[^#]*#", r"part-\1#", row["source"])
    return sorted(rows, key=lambda r: (r["message_id"], r["source"]))


def comparable(summary: dict[str, Any]) -> dict[str, Any]:
    """A summary.json without what differs between two runs (paths, times), its lists in a
    fixed order (entries with equal counts come in the order of Spark's partitions)."""
    skipped = {"input", "generated", "seconds", "engine"}
    kept = {k: v for k, v in summary.items() if k not in skipped}
    return json.loads(json.dumps(kept), object_hook=_sorted_lists)


def _sorted_lists(item: dict[str, Any]) -> dict[str, Any]:
    return {
        k: sorted(v, key=lambda e: json.dumps(e, sort_keys=True)) if isinstance(v, list) else v
        for k, v in item.items()
    }


def divergences(out: Path) -> list[str]:
    return sorted((out / "divergences.jsonl").read_text().splitlines())


@pytest.fixture(scope="module")
def on_cluster(spark_cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """generate -> audit -> fuzz, the ``mqcn`` commands on the cluster, in one driver process
    (tests/run_commands.py: one session, so the executors start once; each command alone,
    ``mqcn ... --master spark://...``, is run by the failure tests below)."""
    work = tmp_path_factory.mktemp("on-cluster")
    master = ("--master", spark_cluster.url)
    capture = work / "busy.pcap"  # read by the executors by its path: the disk they share
    capture.write_bytes(pcap(busy_frames(12)))
    started = time.perf_counter()
    uri = f"file://{work}"  # outputs as filesystem URIs (here the disk the workers share)
    ran = subprocess.run(
        [sys.executable, str(HERE / "run_commands.py"), spark_cluster.url, "codes.json",
         "--", "corpus", "generate", "--count", str(COUNT), "--invalid-share", str(SHARE),
         "--seed", str(SEED), "--out", f"{uri}/corpus", *master,
         "--", "audit", f"{uri}/corpus", "--out", f"{uri}/audit", *master,
         "--", "fuzz", "target", "--target", FAULTY, "--cases", str(CASES), "--seed", str(SEED),
         "--out", f"{uri}/fuzz", *master,
         "--", "audit", str(capture), "--out", f"{uri}/capture", *master,
         "--conf", f"mqcn.capture.split={SPLIT}"],
        capture_output=True, text=True, env=spark_cluster.driver_env(), cwd=work, timeout=600,
    )  # fmt: skip
    quiet(ran, 0)  # nothing on stderr: Spark's start-up and the standalone client kept off it
    # generated; a fifth drawn malformed: non-conforming rows; the faulty target diverges
    # (the capture: a non-MSMQ reply and a stream seen from its middle are quarantined)
    assert json.loads((work / "codes.json").read_text()) == [0, 1, 1, 1], ran.stdout
    assert "read as one task" not in ran.stderr
    return {"work": work, "seconds": time.perf_counter() - started, "stdout": ran.stdout}


@pytest.fixture(scope="module")
def on_local(on_cluster: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same three steps in this process: the corpus rows drawn by the very function the
    Spark tasks run, the audit (of the cluster's corpus) and the fuzz on the in-process
    engine."""
    work = tmp_path_factory.mktemp("on-local")
    started = time.perf_counter()
    pq.write_table(pa.Table.from_batches([generate_rows(list(range(COUNT)), SEED, SHARE)]),
                   work / "corpus.parquet")  # fmt: skip
    audit(None, on_cluster["work"] / "corpus", work / "audit")
    audit(None, on_cluster["work"] / "busy.pcap", work / "capture")  # one task, in process
    fuzz(None, FAULTY, CASES, SEED, work / "fuzz")
    print(f"\nin process: generate + audit + fuzz in {time.perf_counter() - started:.1f} s")
    return work


def test_the_cluster_gives_what_one_process_gives_row_for_row(
    on_cluster: dict[str, Any], on_local: Path, spark_cluster: Cluster
) -> None:
    cluster, local = on_cluster["work"], on_local
    made = read_corpus(cluster / "corpus").sort_by("message_id")
    drawn = pq.read_table(local / "corpus.parquet").sort_by("message_id")
    assert made.num_rows == COUNT and made.to_pylist() == drawn.to_pylist()
    verdicts = verdict_rows(cluster / "audit")
    assert len(verdicts) == COUNT and verdicts == verdict_rows(local / "audit")
    assert not all(row["conforming"] for row in verdicts)
    summary = json.loads((cluster / "audit" / "summary.json").read_text())
    assert summary["balance"]["balanced"] and summary["balance"]["rows_in"] == COUNT
    assert comparable(summary) == comparable(json.loads((local / "audit/summary.json").read_text()))
    assert f"rows in {COUNT} = conforming" in on_cluster["stdout"]
    found = divergences(cluster / "fuzz")
    assert found and found == divergences(local / "fuzz")
    cluster_fuzz = json.loads((cluster / "fuzz" / "summary.json").read_text())
    local_fuzz = json.loads((local / "fuzz" / "summary.json").read_text())
    for key in ("cases", "divergences", "by_requirement", "by_kind"):
        assert cluster_fuzz[key] == local_fuzz[key]
    assert cluster_fuzz["by_requirement"]["MQCN-3.2.5.1-4"] == cluster_fuzz["divergences"]
    # a capture read as byte ranges on the cluster: the verdicts and summary of one task
    split = verdict_rows(cluster / "capture")
    assert len(split) > 12 * 10 and split == verdict_rows(local / "capture")
    ranged = json.loads((cluster / "capture" / "summary.json").read_text())
    whole = json.loads((local / "capture" / "summary.json").read_text())
    read_as = [ranged["capture"].pop(key) for key in ("files_split", "ranges")]
    assert read_as[0] == 1 and read_as[1] >= 8, read_as
    assert [whole["capture"].pop(key) for key in ("files_split", "ranges")] == [0, 0]
    assert comparable(ranged) == comparable(whole)
    # both executors fetched the shipped zip
    shipped = list(Path(spark_cluster.folder).glob("worker-*/work/app-*/*/mqcn-*.zip"))
    assert {p.parts[-5] for p in shipped} == {"worker-0", "worker-1"}, shipped
    print(f"\ncluster: generate + audit + fuzz in {on_cluster['seconds']:.1f} s")


def test_the_bare_executor_python_needs_only_the_zip(executor_python: Path) -> None:
    """The executors' venv has nothing of the project; with the zip, the tasks' work is the
    driver's -- the catalog (PyYAML without its C extension), the named defects (scapy),
    the reference vectors, a target's PICS guard -- and nothing else is imported (no pytest)."""
    python = str(executor_python)
    bare = subprocess.run(
        [python, "-c", "import pyarrow, pandas, numpy\nimport mqcn_model"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        cwd="/",  # not the checkout: "python -c" imports from its working directory
    )
    assert bare.returncode == 1 and "No module named 'mqcn_model'" in bare.stderr
    bundle = build_bundle()
    names = zipfile.ZipFile(bundle.path).namelist()
    assert not [n for n in names if n.endswith(".so")]  # a zip cannot hold importable C
    assert {n for n in names if n.endswith(".pyc")} == {f"{n}c" for n in names if n.endswith(".py")}
    assert "mqcn_model/requirements.yaml" in names
    assert any(n.startswith("reference_vectors/") for n in names)
    lib = SPARK_HOME / "python" / "lib"
    path = [str(bundle.path), *map(str, sorted(lib.glob("*.zip")))]
    probe = subprocess.run(
        [python, str(HERE / "executor_probe.py")],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(path)},
        cwd="/",
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    there = json.loads(probe.stdout)
    here = json.loads(
        subprocess.run(
            [sys.executable, str(HERE / "executor_probe.py")],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert there["results"] == here["results"]
    assert there["vectors"] == here["vectors"] > 0
    assert all(".zip/" in origin for origin in there["project_files"])
    shipped = set(DEPENDENCY_PACKAGES) | {"mqcn_model", "mqcn_suite"}
    own = {"pyarrow", "pandas", "numpy", "pyspark", "py4j", "dateutil", "tzdata", "six"}
    imported = {n for n in there["third_party"] if not n.startswith("_") or n == "_pytest"}
    assert not imported & set(NOT_SHIPPED), imported
    assert imported <= shipped | own, imported  # (_cyutility & co: Cython's, of pyarrow)
    assert "yaml" in there["third_party"] and "scapy" in there["third_party"]


def test_a_local_run_prints_nothing_of_spark_on_stderr(tmp_path: Path) -> None:
    """The default master too: no JVM warning, no "Setting default log level" on stderr."""
    result = mqcn(
        "corpus", "generate", "--count", "20", "--out", "c", env=dict(os.environ), cwd=tmp_path
    )
    quiet(result, 0)
    assert "wrote 20 messages" in result.stdout
    assert result.stderr == "starting Spark (local[2])…\n"  # said before the session exists


def test_an_unreachable_master_is_one_line_at_once(tmp_path: Path) -> None:
    master = f"spark://{HOST}:{closed_port()}"
    started = time.perf_counter()
    result = mqcn(
        "corpus", "generate", "--count", "10", "--out", "c", "--master", master,
        env={**os.environ, "SPARK_LOCAL_IP": HOST}, cwd=tmp_path,
    )  # fmt: skip
    line = one_line(result, 2)
    assert master in line and "connection refused" in line
    assert time.perf_counter() - started < 15  # no JVM, no retries


@pytest.fixture
def silent_master() -> Iterator[str]:
    """An address that accepts connections and never says a word (not a Spark master)."""
    server = socket.create_server((HOST, 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"spark://{HOST}:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for connection in held:
            connection.close()
        server.close()


def test_a_master_that_never_answers_fails_after_the_stated_timeout(
    silent_master: str, tmp_path: Path
) -> None:
    started = time.perf_counter()
    result = mqcn(
        "corpus", "generate", "--count", "10", "--out", "c", "--master", silent_master,
        "--conf", "mqcn.master.timeout=4",
        env={**os.environ, "SPARK_LOCAL_IP": HOST}, cwd=tmp_path,
    )  # fmt: skip
    line = one_line(result, 2)
    assert silent_master in line and "within 4 s" in line and "mqcn.master.timeout" in line
    log = Path(line.rsplit("driver log: ", 1)[1])
    assert log.is_file()
    assert time.perf_counter() - started < 60  # the JVM's start plus 4 s, not Spark's minutes


BOOM = '''
from mqcn_suite.targets.reference import ReferenceTarget


class Poison:
    def __eq__(self, other):
        raise RuntimeError("injected failure: this state cannot be compared")

    __hash__ = None


class Boom(ReferenceTarget):
    """A Python target whose state breaks the comparison itself (outside the adapter calls)."""

    name = "boom"

    def state(self):
        found = dict(super().state())
        found[next(iter(found))] = Poison()
        return found
'''


def test_a_python_exception_in_a_task_is_one_line_with_its_row(
    spark_cluster: Cluster, tmp_path: Path
) -> None:
    (tmp_path / "boom_target.py").write_text(BOOM)
    with zipfile.ZipFile(tmp_path / "boom.zip", "w") as archive:  # the user's adapter, shipped
        archive.write(tmp_path / "boom_target.py", "boom_target.py")
    result = mqcn(
        "fuzz", "target", "--target", "python:boom_target:Boom", "--cases", "30", "--seed", "4",
        "--master", spark_cluster.url,
        "--conf", f"spark.submit.pyFiles={tmp_path / 'boom.zip'}",
        "--conf", "spark.task.maxFailures=1",  # the failure is deterministic: no retries
        env=spark_cluster.driver_env(PYTHONPATH=with_path(tmp_path)), cwd=tmp_path,
    )  # fmt: skip
    line = one_line(result, 3)
    found = re.search(
        r"a Spark task failed at case (\d+) of seed 4: RuntimeError: injected failure: this "
        r"state cannot be compared \(replay: mqcn fuzz target --target python:boom_target:Boom "
        r"--seed 4 --case (\d+)\); full trace in (\S+)$",
        line,
    )
    assert found, line
    assert found.group(1) == found.group(2)
    trace = Path(found.group(3)).read_text()
    assert "Traceback (most recent call last)" in trace and "TaskFailure" in trace
    assert "at org.apache.spark" in trace  # the Java side is kept too


def test_a_worker_killed_mid_audit_is_retried_and_the_balance_holds(
    spark_cluster: Cluster, on_cluster: dict[str, Any], tmp_path: Path
) -> None:
    modules = tmp_path / "modules"
    modules.mkdir()
    shutil.copy(HERE / "kill_own_worker.py", modules / "pyspark_kill_own_worker.py")
    marker = tmp_path / "killed"
    try:
        result = mqcn(
            "audit", str(on_cluster["work"] / "corpus"), "--out", "audit",
            "--master", spark_cluster.url,
            "--conf", "spark.python.worker.module=pyspark_kill_own_worker",
            "--conf", f"spark.executorEnv.PYTHONPATH={modules}",
            "--conf", f"spark.executorEnv.MQCN_KILL_MARKER={marker}",
            env=spark_cluster.driver_env(), cwd=tmp_path,
        )  # fmt: skip
        victim = int(marker.read_text())  # a worker was killed, during the job
        dead = [w for w in spark_cluster.workers if w.process and w.process.poll() is not None]
        assert [w.process.pid for w in dead if w.process] == [victim]
    finally:
        spark_cluster.restore()
    quiet(result, 1)
    assert verdict_rows(tmp_path / "audit") == verdict_rows(on_cluster["work"] / "audit")
    summary = json.loads((tmp_path / "audit" / "summary.json").read_text())
    assert summary["balance"]["balanced"] and summary["balance"]["rows_in"] == COUNT
    balance = result.stdout.splitlines()[-1]
    assert balance.startswith(f"rows in {COUNT} = ") and balance in on_cluster["stdout"]


def test_the_fixture_stops_what_it_started_even_when_a_test_fails(tmp_path: Path) -> None:
    """Every process group it started is gone afterwards, also after an exception."""
    groups: list[int] = []
    failing = pytest.raises(RuntimeError, match="a test failing")
    with failing, running_cluster(tmp_path / "c", workers=1) as cluster:
        groups += [cluster.master.pid] if cluster.master else []
        groups += [w.process.pid for w in cluster.workers if w.process]
        assert cluster.alive_workers() == 1 and len(groups) == 2
        path = cluster.worker_env(cluster.workers[0])["PATH"]  # executors: the bare venv first
        assert shutil.which("python3", path=path) == str(cluster.python.parent / "python3")
        raise RuntimeError("a test failing")
    assert groups and not [pid for pid in _running() if _group(pid) in groups]


def _running() -> list[int]:
    """Process ids of this machine that are not zombies (a zombie is gone, only unreaped:
    spark-class's launcher subshell becomes one under the JVM that ``exec`` made of it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                found.append(int(entry.name))
    return found


def _group(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])
    except (OSError, ValueError, IndexError):
        return None
