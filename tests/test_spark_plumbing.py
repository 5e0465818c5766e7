"""The pipeline's Spark plumbing without Spark: settings, Python choice, paths, failure lines.

(What these decide is exercised for real on a cluster in tests/test_cluster.py; here each
rule is pinned down on its own, in milliseconds.)
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from mqcn_suite.pipeline import generators, session
from mqcn_suite.pipeline.errors import (
    TaskFailure,
    describe,
    is_spark_failure,
    locate_failure,
    one_problem,
)
from mqcn_suite.pipeline.generators import _vector_texts
from mqcn_suite.pipeline.session import (
    DEFAULT_TIMEOUT,
    DEFAULT_TIMEOUT_MANAGED,
    PipelineError,
    check_reachable,
    is_local_master,
    master_timeout,
    split_conf,
)
from mqcn_suite.pipeline.shipping import (
    DEPENDENCY_PACKAGES,
    EXECUTOR_PROVIDED,
    NOT_SHIPPED,
    PROJECT_PACKAGES,
    build_bundle,
    bundle_files,
    ship_mode,
)
from mqcn_suite.pipeline.storage import Location, is_uri, local_input

# --- session settings ---------------------------------------------------------------------------


def test_local_masters_are_told_apart_from_clusters() -> None:
    assert all(map(is_local_master, ["local", "local[2]", "local[*]", "local-cluster[2,1,1024]"]))
    assert not any(map(is_local_master, ["spark://h:7077", "yarn", "k8s://https://api:6443"]))


def test_the_pipelines_own_settings_never_reach_spark() -> None:
    own, spark = split_conf({"mqcn.ship": "none", "spark.executor.memory": "2g"})
    assert own == {"mqcn.ship": "none"} and spark == {"spark.executor.memory": "2g"}


def test_the_master_timeout_has_a_default_per_kind_and_refuses_nonsense() -> None:
    assert master_timeout("spark://h:7077", {}) == DEFAULT_TIMEOUT == 30
    assert master_timeout("yarn", {}) == master_timeout("k8s://x", {}) == DEFAULT_TIMEOUT_MANAGED
    assert master_timeout("spark://h:7077", {"mqcn.master.timeout": "7.5"}) == 7.5
    assert master_timeout("yarn", {"mqcn.master.timeout": "45s"}) == 45
    for bad in ("0", "-3", "soon", "inf", "nan"):
        with pytest.raises(PipelineError, match=r"mqcn\.master\.timeout"):
            master_timeout("yarn", {"mqcn.master.timeout": bad})


def test_the_executors_python_is_the_users_choice_then_local_only_the_drivers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    assert session._executor_python("local[2]", {}) == sys.executable
    assert session._executor_python("spark://h:7077", {}) is None  # Spark's python3 there
    assert session._executor_python("yarn", {"spark.pyspark.python": "./env/bin/python"}) == (
        "./env/bin/python"
    )
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/py/bin/python3")
    assert session._executor_python("local[2]", {}) is None  # the environment's stands
    assert session._executor_python("spark://h:7077", {}) is None


def test_the_environment_is_restored_after_the_context_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    with session._environment("PYSPARK_PYTHON", "/x/python"):
        assert session.os.environ["PYSPARK_PYTHON"] == "/x/python"
    assert "PYSPARK_PYTHON" not in session.os.environ  # a later cluster session is not misled


def test_a_refused_master_is_named_at_once() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    master = f"spark://127.0.0.1:{port}"
    with pytest.raises(PipelineError, match=rf"cannot reach the Spark master {master} "):
        check_reachable(master, 5)
    with socket.create_server(("127.0.0.1", 0)) as server:  # one of several masters answers
        check_reachable(f"spark://127.0.0.1:{port},127.0.0.1:{server.getsockname()[1]}", 5)


# --- shipping ------------------------------------------------------------------------------------


def test_shipping_is_for_clusters_unless_told_otherwise() -> None:
    assert ship_mode("local[2]", {}) == "none" and ship_mode("yarn", {}) == "zip"
    assert ship_mode("local[2]", {"mqcn.ship": "zip"}) == "zip"
    assert ship_mode("spark://h:7077", {"mqcn.ship": "none"}) == "none"
    with pytest.raises(PipelineError, match=r"mqcn\.ship"):
        ship_mode("yarn", {"mqcn.ship": "sometimes"})


def test_the_bundle_holds_the_packages_and_no_compiled_file() -> None:
    names = [inside for inside, _ in bundle_files()]
    tops = {name.split("/")[0].removesuffix(".py") for name in names}
    assert tops == set(PROJECT_PACKAGES) | set(DEPENDENCY_PACKAGES) | {"reference_vectors"}
    assert not tops & set(EXECUTOR_PROVIDED)
    assert not [n for n in names if n.endswith((".so", ".pyc", ".pyd"))]
    assert "mqcn_suite/targets/adapter-protocol.schema.json" in names  # data files too


def test_the_shipped_zip_holds_no_pytest() -> None:
    """A target's NotApplicable is its own exception: pytest and its dependencies stay home."""
    names = zipfile.ZipFile(build_bundle().path).namelist()
    tops = {name.split("/")[0].removesuffix(".pyc").removesuffix(".py") for name in names}
    assert not tops & set(NOT_SHIPPED), tops & set(NOT_SHIPPED)
    assert {"mqcn_model", "mqcn_suite", "yaml", "scapy"} <= tops


# What an executor imports (tests/executor_probe.py), where pytest cannot be imported at all.
WITHOUT_PYTEST = """
import sys
for name in NOT_SHIPPED:
    sys.modules[name] = None  # "import pytest" now raises ImportError
from mqcn_suite.pipeline import audit, campaign, corpus, fuzz, generators, hostile
import dataclasses
from mqcn_suite.targets.pics import EVERYTHING, ClaimsGuard
guard = ClaimsGuard(fuzz.ReferenceTarget(), dataclasses.replace(EVERYTHING, profiles=("spec",)))
setup = fuzz.fuzz_setup(3)
setup.profile = "windows-2000"  # a profile the guard's PICS does not claim
print(fuzz.observe(guard, setup, fuzz.fuzz_case(3, 0)[1]).not_applicable)
"""


def test_the_executor_side_modules_run_without_pytest() -> None:
    code = f"NOT_SHIPPED = {NOT_SHIPPED!r}\n" + WITHOUT_PYTEST
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("not applicable: the target does not claim product profile")


def test_reference_vectors_are_read_from_a_shipped_zip(tmp_path: Path) -> None:
    root = Path(generators.__file__).resolve().parents[2] / "reference_vectors"
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for path in sorted(root.glob("*_test.json")):
            bundle.write(path, f"reference_vectors/{path.name}")
        bundle.writestr("reference_vectors/README.md", "not a vector file")
    assert _vector_texts(archive / "reference_vectors") == _vector_texts(root)
    assert _vector_texts(tmp_path / "absent.zip" / "reference_vectors") == []


# --- paths ---------------------------------------------------------------------------------------


def test_uris_are_kept_whole_and_inputs_must_be_local() -> None:
    assert is_uri("hdfs://nn:8020/c") and is_uri("file:/tmp/c") and is_uri("s3a://b/c")
    assert not is_uri("/tmp/c") and not is_uri("c") and not is_uri("C:/c")
    assert str(Location("hdfs://nn:8020/out/") / "verdicts") == "hdfs://nn:8020/out/verdicts"
    assert str(Location("out") / "verdicts") == str(Path("out") / "verdicts")
    assert local_input("file:///tmp/a%20b") == Path("/tmp/a b")
    assert local_input("/data/c") == Path("/data/c")
    with pytest.raises(PipelineError, match=r"INPUT: s3a://b/c: .* file:// URI"):
        local_input("s3a://b/c")


def test_a_uri_needs_the_running_jvm_a_local_path_does_not(tmp_path: Path) -> None:
    local = Location(tmp_path) / "summary.json"
    local.write_text("{}")
    assert local.exists() and (tmp_path / "summary.json").read_text() == "{}"
    assert [c.name for c in Location(tmp_path).glob("*.json")] == ["summary.json"]
    from pyspark import SparkContext

    if SparkContext._active_spark_context is None:
        with pytest.raises(PipelineError, match="needs a running Spark session"):
            Location("hdfs://nn:8020/x").exists()


# --- failures -------------------------------------------------------------------------------------

PYTHON_FAILURE = """\
An exception was thrown from the Python worker. Please see the stack trace below.
Traceback (most recent call last):
  File "/w/pyspark.zip/pyspark/worker.py", line 1883, in read_udfs
    udfs = [
           ^
  File "/w/pyspark.zip/pyspark/serializers.py", line 483, in loads
    return cloudpickle.loads(obj, encoding=encoding)
ModuleNotFoundError: No module named 'mqcn_suite'
 SQLSTATE: 38000

JVM stacktrace:
org.apache.spark.SparkException: Job aborted due to stage failure: Task 1 in stage 0.0 failed 4 \
times, most recent failure: Lost task 1.3 in stage 0.0 (TID 7) (127.0.0.1 executor 1)
\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAGScheduler.scala:2935)
"""


def test_a_python_error_on_an_executor_is_its_last_traceback_line() -> None:
    assert one_problem(PYTHON_FAILURE) == "ModuleNotFoundError: No module named 'mqcn_suite'"
    assert describe(PYTHON_FAILURE) == (
        "a Spark task failed on an executor (tried 4 times): "
        "ModuleNotFoundError: No module named 'mqcn_suite'"
    )


def test_a_task_failure_names_its_row_and_replay() -> None:
    failure = TaskFailure(
        "case 12 of seed 3", ValueError("bad\nsecond line"), "mqcn fuzz --case 12"
    )
    text = f"Traceback (most recent call last):\n  File x\nmqcn.TaskFailure: {failure}\n"
    assert describe(text) == (
        "a Spark task failed at case 12 of seed 3: ValueError: bad (replay: mqcn fuzz --case 12)"
    )
    assert all(len(line) < 120 for line in str(failure).splitlines())


def test_lost_executors_and_a_stopped_context_are_named_by_sparks_reason() -> None:
    lost = (
        "Job aborted due to stage failure: Task 0 in stage 3.0 failed 4 times, most recent "
        "failure: Lost task 0.3 in stage 3.0: ExecutorLostFailure (executor 2 exited)\n\tat x"
    )
    assert describe(lost) == (
        "Spark gave up on the job (tried 4 times): Lost task 0.3 in stage 3.0: "
        "ExecutorLostFailure (executor 2 exited)"
    )
    stopped = "Job 3 cancelled because SparkContext was shut down\n\tat org.apache.spark.x"
    assert describe(stopped).startswith("Spark stopped the application: Job 3 cancelled")
    assert len(describe("x" * 5000)) <= 400


def test_locating_the_failing_row_of_a_pure_batch_function() -> None:
    def rows(ids: list[int]) -> list[int]:
        return [100 // (i - 7) for i in ids]

    with pytest.raises(TaskFailure, match=r"at row 7 of seed 1\nZeroDivisionError"):
        locate_failure(range(3, 12), lambda i: rows([i]), "row {item} of seed 1")
    locate_failure([1, 2], lambda i: rows([i]), "row {item}")  # nothing fails: nothing raised


def test_only_sparks_own_exceptions_get_the_spark_line() -> None:
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkRuntimeError

    assert is_spark_failure(Py4JError("x"))
    assert is_spark_failure(
        PySparkRuntimeError(errorClass="JAVA_GATEWAY_EXITED", messageParameters={})
    )
    assert not is_spark_failure(ValueError("x"))


def test_the_error_logs_are_new_files_and_the_oldest_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mqcn_suite.pipeline import errors

    monkeypatch.setattr(errors, "cache_dir", lambda: tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    for n in range(errors.LOGS_KEPT + 5):
        (logs / f"spark-error-old-{n:02}.log").write_text("old")
        session.os.utime(logs / f"spark-error-old-{n:02}.log", (n, n))
    path = errors.write_error_log("the whole trace")
    assert path.read_text().endswith("the whole trace")
    kept = sorted(p.name for p in logs.glob("spark-error-*.log"))
    assert len(kept) == errors.LOGS_KEPT and path.name in kept
    assert "spark-error-old-00.log" not in kept and "spark-error-old-24.log" in kept
