"""Fixtures shared by the suite's own tests: the Spark standalone cluster (tests/spark_cluster.py).

``pytest -m cluster`` selects the tests that run on it; they run in the default ``pytest`` too
(CI has Java, which is all the cluster needs).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from spark_cluster import Cluster, bare_python, running_cluster


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "cluster: runs on a Spark standalone cluster started by the test (needs Java)"
    )
    config.addinivalue_line(
        "markers",
        "slow: takes tens of seconds (the wheel built and installed in a fresh venv); runs in "
        "the default pytest too, -m 'not slow' leaves it out",
    )


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A master and two 1-core workers on 127.0.0.1, their executors a bare Python venv."""
    with running_cluster(tmp_path_factory.mktemp("spark-cluster")) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def executor_python() -> Path:
    """The bare executor venv's Python (pyarrow, pandas, numpy: nothing of the project)."""
    return bare_python()
