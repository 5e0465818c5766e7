"""The suite's own test plumbing: where doctests are collected, and what a run inherits."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from mqcn_suite.commands import run as run_command

ROOT = Path(__file__).resolve().parents[1]


class _Collected:
    """A pytest plugin that keeps the node IDs of the items a collection found, by kind."""

    def __init__(self) -> None:
        self.doctests: list[str] = []
        self.others: list[str] = []

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            kind = self.doctests if isinstance(item, pytest.DoctestItem) else self.others
            kind.append(item.nodeid)


def _collect(*arguments: str) -> _Collected:
    collected = _Collected()
    status = pytest.main(["--co", "-q", "-p", "no:randomly", *arguments], plugins=[collected])
    assert status == pytest.ExitCode.OK
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
