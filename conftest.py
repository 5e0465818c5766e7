"""Project-level pytest configuration: the hypothesis profiles, and the packages' doctests.

The suite's pytest plugin (``mqcn_suite.plugin``: markers from the catalog, ``--mqcn-target``,
the ``world`` fixture) is loaded through its ``pytest11`` entry point once the project is
installed.  This file sets the hypothesis profiles used by the suite's own tests, and makes the
examples in the docstrings of ``mqcn_model`` and ``mqcn_suite`` tests: every module of the two
packages is collected as a doctest module, as ``--doctest-modules`` would, but only there.
``pytest`` alone collects the packages (``testpaths`` in pyproject.toml), ``pytest
mqcn_model/judge.py`` one module.  ``mqcn run``, the mutation sandbox and the other pytest runs
that name ``steps/`` or ``tests/`` never collect a doctest: the option is not in ``addopts``,
which they share.

``pytest`` alone -- the README's test command, which takes its paths from ``testpaths`` --
also runs on every core with pytest-xdist (``-n auto --dist loadgroup``: the tests that use
the local Spark session share one worker, tests/conftest.py).  A run that names its paths, or
says ``-n`` itself (``pytest -n 0``: one process), is left as it is; so are ``mqcn run``, the
mutation sandbox and the other pytest runs of the tests, which all name theirs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _pytest.doctest import DoctestModule  # pytest's own --doctest-modules collector
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
# `mqcn selftest mutmut` runs every mutant against the property tests too: the same examples
# for every mutant (derandomized: a kill is never luck) and fewer of them (a whole file in
# minutes); it sets MQCN_HYPOTHESIS_PROFILE=mutation for its runs
settings.register_profile(
    "mutation", parent=settings.get_profile("default"), derandomize=True, max_examples=25
)
settings.load_profile(
    os.environ.get("MQCN_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default")
)

# The packages whose docstring examples run as tests.
DOCTEST_PACKAGES = tuple(Path(__file__).parent / name for name in ("mqcn_model", "mqcn_suite"))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> DoctestModule | None:
    """A module of the two packages, as a doctest module (``--doctest-modules`` does it too)."""
    if file_path.suffix != ".py" or file_path.name == "__main__.py":
        return None  # as --doctest-modules: a __main__ is run, not imported
    if parent.config.getoption("doctestmodules"):
        return None  # pytest's own collector takes them
    if not any(file_path.is_relative_to(package) for package in DOCTEST_PACKAGES):
        return None
    return DoctestModule.from_parent(parent, path=file_path)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads -n and --dist
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``pytest`` alone runs on every core (see the module docstring)."""
    if (
        config.args_source is pytest.Config.ArgsSource.TESTPATHS
        and config.pluginmanager.hasplugin("xdist")
        and config.option.numprocesses is None
        and config.option.dist == "no"
        and not hasattr(config, "workerinput")  # an xdist worker: the controller decided
    ):
        config.option.numprocesses = "auto"
        config.option.dist = "loadgroup"
