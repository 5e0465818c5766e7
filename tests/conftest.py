"""Plumbing shared by the suite's own tests: Spark, the pipeline's command line, the cluster.

* ``spark``: ONE local Spark session (``local[2]``, 2 shuffle partitions) for every test of the
  process -- started by the first test that asks for it, stopped when the session ends.  Under
  pytest-xdist each worker is its own process with its own session; ``pytest`` alone gives
  every test that uses Spark (the ``spark`` marker) to one worker (``xdist_group``, see
  :func:`pytest_collection_modifyitems`), so one JVM serves them all; the ``cluster`` tests
  likewise share one worker, so one standalone cluster serves them.
* The Java guard: a test marked ``spark`` or ``cluster`` fails at once, in one line, where
  there is no ``java`` -- it never skips, since without Java it would pass by not running.
* ``app``: a Typer app holding only the pipeline's commands (``corpus generate``, ``audit``,
  ``fuzz``); ``cli_helpers.invoke`` runs it, ``cli_helpers.one_line_error`` reads its error.
* The JVMs the tests start (the session's, the commands' run as processes, the cluster's)
  use the C1 compiler and the serial collector (``SPARK_SUBMIT_OPTS``, set here unless the
  environment sets it): about 30 % less CPU for JVMs that live seconds
  (tests/spark_cluster.py, ``TEST_JVM_OPTIONS``).
* ``spark_cluster``: the Spark standalone cluster of tests/spark_cluster.py; ``pytest -m
  cluster`` selects the tests that run on it; they run in the default ``pytest`` too (CI has
  Java, which is all the cluster needs).

* Every test starts with the wire judge's memory of envelope findings empty
  (:func:`mqcn_model.wire.judgement.forget`): an answer remembered by an earlier test -- or,
  under mutmut, by the unmutated run its mutants fork from -- never stands in for the rules'.

Plain helpers live in importable modules beside this file (cli_helpers.py, capture_helpers.py,
spark_cluster.py): every conftest.py of the tree is imported under the one name ``conftest``,
so a test module cannot import from it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from spark_cluster import TEST_JVM_OPTIONS, Cluster, bare_python, running_cluster

from mqcn_model.wire.judgement import forget

os.environ.setdefault("SPARK_SUBMIT_OPTS", TEST_JVM_OPTIONS)  # see the module docstring

# The settings of the shared session: two cores, and as many shuffle partitions (Spark's 200
# would cost seconds on rows this small).  No test changes a setting of the live session.
SPARK_MASTER = "local[2]"
SPARK_CONF = {"spark.sql.shuffle.partitions": "2"}
# The xdist groups: the tests that use the local session, and those on the standalone cluster
# (a worker of their own starts it once, not once per worker).
SPARK_GROUP = "spark"
CLUSTER_GROUP = "cluster"
NO_JAVA = "needs Java 17 or 21 on PATH (see the README); without it this test cannot run"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "spark: uses the local Spark session (the `spark` fixture, or a command that joins it); "
        "needs Java; one xdist worker runs them all",
    )
    config.addinivalue_line(
        "markers", "cluster: runs on a Spark standalone cluster started by the test (needs Java)"
    )
    config.addinivalue_line(
        "markers",
        "slow: takes tens of seconds (the wheel built and installed in a fresh venv); runs in "
        "the default pytest too, -m 'not slow' leaves it out",
    )


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (it names items by them)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that uses the ``spark`` fixture is a ``spark`` test; every ``spark`` test goes
    to the one xdist worker of :data:`SPARK_GROUP`, every ``cluster`` test to that of
    :data:`CLUSTER_GROUP`; both are spared pyspark's pandas warning."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("spark"):
            item.add_marker(pytest.mark.spark)
        if item.get_closest_marker("spark") or item.get_closest_marker("cluster"):
            item.add_marker(
                pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
            )
        if item.get_closest_marker("spark"):
            item.add_marker(pytest.mark.xdist_group(SPARK_GROUP))
        elif item.get_closest_marker("cluster"):
            item.add_marker(pytest.mark.xdist_group(CLUSTER_GROUP))


@pytest.fixture(autouse=True)
def _judge_forgets() -> None:
    forget()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """The Java guard (see the module docstring)."""
    needs_java = item.get_closest_marker("spark") or item.get_closest_marker("cluster")
    if needs_java and shutil.which("java") is None:  # pragma: no cover - CI has Java
        pytest.fail(f"the Spark pipeline {NO_JAVA}", pytrace=False)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The process's one local SparkSession (see the module docstring)."""
    from mqcn_suite.pipeline.session import create_session

    session = create_session(SPARK_MASTER, SPARK_CONF)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def app() -> typer.Typer:
    """A Typer app with the pipeline's commands only (``mqcn_suite.cli.app`` has them all)."""
    from mqcn_suite.commands.pipeline import register

    fresh = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

    @fresh.callback()
    def _root() -> None:
        """Test app."""

    register(fresh)
    return fresh


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A master and two 1-core workers on 127.0.0.1, their executors a bare Python venv."""
    with running_cluster(tmp_path_factory.mktemp("spark-cluster")) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def executor_python() -> Path:
    """The bare executor venv's Python (pyarrow, pandas, numpy: nothing of the project)."""
    return bare_python()
