"""Which scenarios execute which function of the model: the basis of test selection.

The scenario suite runs once per target under ``coverage`` in a sandbox, with the dynamic
context switched to each test's node ID while it runs (:mod:`mqcn_suite.selftest.guard`).
The result, a :class:`TestMap`, tells for every measured line of ``mqcn_model`` which tests
executed it, and whether it also ran outside any test (import, collection, a session
fixture) — the *global* mark.

**Why running only those tests is safe.**  A mutant changes the body of one function F (or
module-level code, for which every test runs).  A test that never executes a line of F's
body runs exactly the same bytecode on the mutant as on the original — up to the first call
of F, which never comes — so it passes on the mutant exactly when it passes on the original,
and the original passes every test (checked before the run).  Running it would not change the
verdict.  Three things could break that argument, and each is handled:

* F runs at import or in a wider-scoped fixture and leaves state every test sees: such lines
  carry the global mark, and a mutant of F then runs every test;
* F is the default value, decorator or signature of a function: those run at import and
  belong to the enclosing scope (module level: every test);
* a test reads state that F wrote during an *earlier* test: the scenarios do not share state
  (each one resets its target; the model is sans-IO and keeps no module-level mutable
  state), which ``mqcn selftest mutation --all-tests`` can confirm on any sample.

The same holds for the unit tests and vectors given with ``--tests`` (a :class:`Suite` of
its own, measured the same way): a mutant runs only those of them that executed its function.

The map is cached in the output directory, keyed by a hash of every file the scenarios run
(the model, the suite, the steps and features, ``conftest.py``, ``pyproject.toml``; for a
``--tests`` suite also ``tests/``, ``reference_vectors/`` and ``docs/``), of the suite
(target, paths) and of the Python and coverage versions: it is recomputed only when one
changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqcn_suite.selftest.guard import COLLECTED_ENV, CONTEXTS_ENV
from mqcn_suite.selftest.mutants import Mutant
from mqcn_suite.selftest.sandbox import COPIED, ProcessRegistry, RunOutcome, Sandbox

MAP_VERSION = 1
CACHE_FILE = "testmap.json"
GLOBAL = -1  # "ran outside any test" in TestMap.lines
SCENARIOS = "steps"
_NOT_KEYED = ("tests", "reference_vectors", "docs")  # keyed for --tests suites only


TESTS_PREFIX = "tests:"


class TestMapError(Exception):
    """The scenario suite could not be measured (it fails, or coverage is missing)."""


@dataclass(frozen=True, slots=True)
class Suite:
    """One pytest run per mutant: the scenarios under a target, or the ``--tests`` paths.

    ``name`` keys the suite everywhere (selections, test maps, state records, the report):
    the target itself for the scenarios, ``tests:PATH,PATH…`` for the ``--tests`` paths, which
    run with ``--mqcn-target=target`` too (they do not use it, the plugin wants one).
    """

    name: str
    target: str
    paths: tuple[str, ...] = (SCENARIOS,)

    @property
    def scenarios(self) -> bool:
        return self.paths == (SCENARIOS,)

    @classmethod
    def of(cls, suite: str | Suite) -> Suite:
        """``suite`` itself, or the scenarios under the target ``suite``."""
        return suite if isinstance(suite, Suite) else cls(suite, suite)

    @classmethod
    def tests(cls, paths: Sequence[str], target: str) -> Suite:
        """The ``--tests`` paths (relative to the project root), as one suite."""
        return cls(TESTS_PREFIX + ",".join(paths), target, tuple(paths))


@dataclass(frozen=True, slots=True)
class Selection:
    """The tests a mutant needs under one target: all of them, some, or none."""

    everything: bool
    tests: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.everything and not self.tests

    def paths(self, everything: Sequence[str] = (SCENARIOS,)) -> list[str]:
        """The test files to give pytest, in suite order (``everything``: the whole suite's)."""
        if self.everything:
            return list(everything)
        return list(dict.fromkeys(test.split("::", 1)[0] for test in self.tests))

    def count(self, total: int) -> int:
        return total if self.everything else len(self.tests)


ALL_TESTS = Selection(True)


@dataclass(frozen=True, slots=True)
class TestMap:
    """For one target: the tests in suite order, and per file and line the tests that ran it."""

    __test__ = False  # not a pytest test class, whatever its name

    key: str
    target: str
    tests: list[str]
    lines: dict[str, dict[int, list[int]]]  # file -> line -> indices into tests (or GLOBAL)
    seconds: float

    def select(self, mutant: Mutant, units: dict[str, tuple[int, int]]) -> Selection:
        """The tests that executed the mutant's function (every test for module level)."""
        if mutant.unit is None or mutant.unit not in units:
            return ALL_TESTS
        first, last = units[mutant.unit]
        by_line = self.lines.get(mutant.file, {})
        found: set[int] = set()
        for line in range(first, last + 1):
            found.update(by_line.get(line, ()))
        if GLOBAL in found:
            return ALL_TESTS
        return Selection(False, tuple(self.tests[i] for i in sorted(found)))

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "target": self.target,
            "seconds": round(self.seconds, 3),
            "tests": self.tests,
            "lines": {
                file: {str(line): tests for line, tests in sorted(by_line.items())}
                for file, by_line in sorted(self.lines.items())
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestMap:
        lines = {
            file: {int(line): list(tests) for line, tests in by_line.items()}
            for file, by_line in data["lines"].items()
        }
        return cls(data["key"], data["target"], list(data["tests"]), lines, data["seconds"])


def snapshot_key(root: Path, target: str | Suite) -> str:
    """Hash of everything a suite's run depends on in the tree at ``root``, and the suite."""
    suite = Suite.of(target)
    digest = hashlib.sha256()
    coverage_version = _coverage_version()
    described = suite.name if suite.scenarios else f"{suite.name}|{suite.target}"
    digest.update(f"v{MAP_VERSION}|{sys.version}|{coverage_version}|{described}\n".encode())
    for name in COPIED:
        if name in _NOT_KEYED and suite.scenarios:
            continue
        for path in sorted(_files(root / name)):
            relative = path.relative_to(root).as_posix()
            digest.update(relative.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _files(path: Path) -> Iterable[Path]:
    if path.is_file():
        yield path
    elif path.is_dir():
        for child in path.rglob("*"):
            if child.is_file() and "__pycache__" not in child.parts and child.suffix != ".pyc":
                yield child


def _coverage_version() -> str:
    try:
        import coverage
    except ImportError:
        return "none"
    return coverage.__version__


def load_cached(directory: Path, key: str) -> TestMap | None:
    """The cached map for ``key`` in ``directory``, if there is one."""
    try:
        data = json.loads((directory / CACHE_FILE).read_text(encoding="utf-8"))
        entry = data.get("maps", {}).get(key)
        if data.get("version") == MAP_VERSION and entry is not None:
            return TestMap.from_json(entry)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def store(directory: Path, testmap: TestMap) -> None:
    """Add ``testmap`` to the cache in ``directory`` (maps of other keys for the same target
    are dropped: they describe an older tree)."""
    path = directory / CACHE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        maps = data.get("maps", {}) if data.get("version") == MAP_VERSION else {}
    except (OSError, ValueError):
        maps = {}
    maps = {k: v for k, v in maps.items() if v.get("target") != testmap.target}
    maps[testmap.key] = testmap.to_json()
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps({"version": MAP_VERSION, "maps": maps}), encoding="utf-8")
    os.replace(temporary, path)


def measure(
    sandbox: Sandbox, target: str | Suite, key: str, *, timeout: float, registry: ProcessRegistry
) -> TestMap:
    """Run the whole suite (the scenarios under a target, by default) under coverage in
    ``sandbox`` and build the map."""
    suite = Suite.of(target)
    try:
        from coverage import CoverageData
    except ImportError:
        raise TestMapError(
            "test selection needs the 'coverage' package (pip install 'coverage>=7,<8', "
            "part of the dev extra)"
        ) from None
    with tempfile.TemporaryDirectory(prefix="mqcn-mutation-coverage-") as scratch:
        data_file = Path(scratch) / "coverage.data"
        collected = Path(scratch) / "collected.txt"
        prefix = [
            "-m",
            "coverage",
            "run",
            f"--data-file={data_file}",
            f"--source={sandbox.root / 'mqcn_model'}",
        ]
        env = {CONTEXTS_ENV: "1", COLLECTED_ENV: str(collected)}
        outcome = sandbox.pytest(
            list(suite.paths),
            suite.target,
            timeout=timeout,
            registry=registry,
            env=env,
            prefix=prefix,
        )
        _require_pass(outcome, suite.name)
        tests = collected.read_text(encoding="utf-8").splitlines()
        data = CoverageData(basename=str(data_file))
        data.read()
        lines = _lines_by_test(data, sandbox.root, {test: i for i, test in enumerate(tests)})
    return TestMap(key, suite.name, tests, lines, outcome.seconds)


def _require_pass(outcome: RunOutcome, name: str) -> None:
    what = (
        f"the --tests run ({name.removeprefix(TESTS_PREFIX)})"
        if name.startswith(TESTS_PREFIX)
        else f"the scenario suite for target {name}"
    )
    if outcome.cancelled:
        raise KeyboardInterrupt
    if outcome.timed_out:
        raise TestMapError(f"{what} under coverage timed out")
    if outcome.code != 0:
        raise TestMapError(
            f"{what}, unmutated, fails under coverage "
            f"(pytest exit {outcome.code}: {outcome.last_line()})"
        )


def _lines_by_test(data: Any, root: Path, index: dict[str, int]) -> dict[str, dict[int, list[int]]]:
    base = os.path.realpath(root)
    lines: dict[str, dict[int, list[int]]] = {}
    for measured in data.measured_files():
        real = os.path.realpath(measured)
        if os.path.commonpath([base, real]) != base:
            continue
        file = Path(os.path.relpath(real, base)).as_posix()
        by_line: dict[int, list[int]] = {}
        for line, contexts in data.contexts_by_lineno(measured).items():
            ids = {index.get(context, GLOBAL) for context in contexts}
            by_line[line] = sorted(ids)
        lines[file] = by_line
    return lines
