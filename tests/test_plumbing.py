"""The suite's own test plumbing (conftest.py, tests/conftest.py): where doctests are collected,
when pytest-xdist runs, and which tests share the one local Spark session."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from mqcn_suite.commands import run as run_command

ROOT = Path(__file__).resolve().parents[1]


class _Collected:
    """A pytest plugin that keeps the node IDs of the items a collection found, by kind, and
    the distribution the run settled on."""

    def __init__(self) -> None:
        self.doctests: list[str] = []
        self.others: list[str] = []
        self.groups: dict[str, list[str]] = {}
        self.distribution: tuple[object, str] = (None, "no")

    def pytest_configure(self, config: pytest.Config) -> None:
        self.distribution = (config.option.numprocesses, config.option.dist)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            kind = self.doctests if isinstance(item, pytest.DoctestItem) else self.others
            kind.append(item.nodeid)
            for mark in item.iter_markers("xdist_group"):
                self.groups.setdefault(mark.args[0], []).append(item.nodeid)


def _collect(*arguments: str, allow_empty: bool = False) -> _Collected:
    """What ``pytest --co ARGUMENTS`` collects, run in this process."""
    collected = _Collected()
    status = pytest.main(["--co", "-q", *arguments], plugins=[collected])
    empty = pytest.ExitCode.NO_TESTS_COLLECTED if allow_empty else pytest.ExitCode.OK
    assert status in (pytest.ExitCode.OK, empty)
    return collected


def test_the_packages_doctests_are_collected_without_an_option() -> None:
    collected = _collect(
        str(ROOT / "mqcn_model" / "fitting.py"),
        str(ROOT / "mqcn_suite" / "targets" / "pics.py"),
        str(ROOT / "mqcn_suite" / "__main__.py"),
        f"--rootdir={ROOT}",
    )
    assert {nodeid.split("::")[0] for nodeid in collected.doctests} == {
        "mqcn_model/fitting.py",
        "mqcn_suite/targets/pics.py",
    }
    assert collected.others == []


def test_pytest_alone_collects_both_packages() -> None:
    """The README's test command is ``pytest``: its ``testpaths`` hold the two packages."""
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    paths = settings["tool"]["pytest"]["ini_options"]["testpaths"]
    assert set(paths) == {"tests", "steps", "mqcn_model", "mqcn_suite"}


def test_the_conformance_run_collects_no_doctest(tmp_path: Path) -> None:
    arguments = run_command.pytest_arguments("reference", tmp_path / "report", [])
    collected = _collect(*arguments)
    assert collected.doctests == [] and collected.others


def test_pytest_alone_runs_on_every_core_and_a_named_path_in_one_process() -> None:
    """The README's ``pytest`` (paths from ``testpaths``) gets ``-n auto --dist loadgroup``;
    a run that names its paths (as ``mqcn run`` does) or says ``-n`` keeps its own."""
    project = ["-c", str(ROOT / "pyproject.toml"), f"--rootdir={ROOT}"]
    alone = _collect(*project, "-o", "testpaths=tests/cli_helpers.py", allow_empty=True)
    workers, dist = alone.distribution  # pytest-xdist has turned "auto" into the core count
    assert dist == "loadgroup" and isinstance(workers, int) and workers >= 1
    named = _collect(*project, str(ROOT / "tests" / "cli_helpers.py"), allow_empty=True)
    assert named.distribution == (None, "no")
    one = _collect(*project, "-o", "testpaths=tests/cli_helpers.py", "-n", "0", allow_empty=True)
    assert one.distribution == (0, "no")


def test_the_tests_that_use_spark_or_the_cluster_share_one_xdist_group_each() -> None:
    engines, cluster = ROOT / "tests" / "test_engines.py", ROOT / "tests" / "test_cluster.py"
    collected = _collect(str(engines), str(cluster), f"--rootdir={ROOT}")
    on_spark = {n for n in collected.others if n.startswith("tests/test_engines.py")}
    on_cluster = set(collected.others) - on_spark
    assert on_spark and on_cluster
    assert set(collected.groups["spark"]) == on_spark
    assert set(collected.groups["cluster"]) == on_cluster


def test_xdist_keeps_a_group_on_one_worker(tmp_path: Path) -> None:
    """``--dist loadgroup`` really sends a group's tests to one worker (the marks alone are
    not enough: pytest 9.2 with pytest-xdist 3.8 keeps the marks and drops the grouping)."""
    for name in ("a", "b"):
        (tmp_path / f"test_{name}.py").write_text(
            "import pytest\n\n"
            "@pytest.mark.xdist_group('together')\n"
            "@pytest.mark.parametrize('i', range(4))\n"
            "def test_grouped(i):\n    pass\n\n"
            "@pytest.mark.parametrize('i', range(4))\n"
            "def test_free(i):\n    pass\n"
        )
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p",
         "no:cacheprovider", "-p", "no:randomly", "-c", "/dev/null", f"--rootdir={tmp_path}",
         str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    workers = re.findall(r"^\[(gw\d+)\].*test_grouped", ran.stdout, re.MULTILINE)
    assert len(workers) == 8 and len(set(workers)) == 1, ran.stdout
