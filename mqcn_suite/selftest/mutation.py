"""Mutation analysis of the reference model, as ``mqcn selftest mutation`` runs it.

:func:`run_mutation` does, in order:

1. **snapshot** — copy the project tree into a first sandbox; everything after reads the
   copy, so edits made to the work tree meanwhile change nothing (and nothing is written
   to the work tree: only the sandboxes and the output directory);
2. **plan** — generate every mutant of the chosen files, keep those of the chosen operators
   (``--operator``), take the sample (``--sample``),
   set aside the documented ones (``docs/mutation-equivalents.yaml``) and those already
   finished in ``DIR/state.jsonl`` (unless ``--restart``);
3. **self-check** — the unmutated copy must pass the scenario suite under every target,
   and the ``--tests`` (the slowest run sets the default time limit), and a deliberately
   fatal *canary* mutant (``raise RuntimeError`` at the top of
   ``NotificationServer.deliver``) must be killed: if it is not, the scenarios are not
   running the copy's code and the tool stops;
4. **select** — the test map (:mod:`.testmap`, cached) tells which scenarios (and which of
   the ``--tests``) execute each mutated function; a mutant none executes is
   ``no-coverage`` without running;
5. **run** — the rest, in parallel (:mod:`.runner`), each result appended to the state file
   as it finishes;
6. **report** — ``DIR/mutation.json``, ``DIR/mutation.md`` and a line per file (:mod:`.report`).
"""

from __future__ import annotations

import ast
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path
from types import FrameType
from typing import Any

from mqcn_suite.exit_codes import ExitCode
from mqcn_suite.selftest.equivalents import Documented, EquivalentsError, load_equivalents
from mqcn_suite.selftest.mutants import FileMutants, Mutant, display_name, mutants_of, sample
from mqcn_suite.selftest.operators import OPERATORS
from mqcn_suite.selftest.report import build_document, write_reports
from mqcn_suite.selftest.runner import IsolationError, Job, MutantRunner, isolation_problem
from mqcn_suite.selftest.sandbox import COPIED, ProcessRegistry, RunOutcome, Sandbox
from mqcn_suite.selftest.state import StateFile, reusable
from mqcn_suite.selftest.testmap import (
    ALL_TESTS,
    SCENARIOS,
    TESTS_PREFIX,
    Suite,
    TestMap,
    TestMapError,
    load_cached,
    measure,
    snapshot_key,
    store,
)

DEFAULT_FILES = (
    "mqcn_model/server.py",
    "mqcn_model/client.py",
    "mqcn_model/batching.py",
    "mqcn_model/rules.py",
    "mqcn_model/codec/*.py",
    "mqcn_model/sending.py",
    "mqcn_model/capture/*.py",
    "mqcn_model/wire/*.py",
    "mqcn_model/scapy_base.py",
    "mqcn_model/mqqb/*.py",
    "mqcn_model/dssm.py",
    "mqcn_model/ldap_reads.py",
)
# The scenarios judge messages, not bytes on a wire: they barely reach the capture reader and
# the wire codec, so the mutants of those files are measured by their unit tests.  When no
# --tests is given, a chosen file matching a pattern brings these tests along (coverage still
# selects, per mutant, the ones that execute its function).
_WIRE_AND_CAPTURE_TESTS = (
    "tests/test_capture.py",
    "tests/test_capture_bad_input.py",
    "tests/test_capture_writer.py",
    "tests/test_capture_fast.py",
    "tests/test_capture_wire_fast.py",
    "tests/test_wire_codec.py",
    "tests/test_wire_layers.py",
    "tests/test_wire_mapping.py",
    "tests/test_wire_catalog.py",
    "tests/test_wire_letter.py",
    "tests/test_wire_judgement.py",
    "tests/test_wire_acks.py",
    "tests/test_wire_refusals.py",
    "tests/test_wire_internal_paths.py",
    "tests/test_mutants_capture.py",
    "tests/test_mutants_wire.py",
    "tests/test_capture_split.py",
    "tests/test_capture_split_rules.py",
    "tests/test_wire_property_values.py",
    "tests/test_wire_usermessage_rules.py",
    "tests/test_wire_scapy_layers.py",
    "tests/test_capture_containers.py",
    "tests/test_capture_streams.py",
    "tests/test_wire_real_senders.py",
    "tests/test_wire_extension_layers.py",
    "tests/test_wire_extensions_rules.py",
    "tests/test_wire_declared.py",
    "tests/test_wire_declared_headers.py",
    "tests/test_wire_usermessage_salvage.py",
    "tests/test_wire_render_views.py",
)
# The directory mapping and the read judge run only in LDAP mode (the mutation tool's
# scenarios run in dict mode): their own tests measure them.
_DIRECTORY_TESTS = ("tests/test_dssm.py", "tests/test_dssm_vectors.py", "tests/test_ldap_reads.py")
DEFAULT_TESTS: dict[str, tuple[str, ...]] = {
    "mqcn_model/dssm.py": _DIRECTORY_TESTS,
    "mqcn_model/ldap_reads.py": _DIRECTORY_TESTS,
    # a Read Directory that fails: dict-mode scenarios never make one
    "mqcn_model/server.py": ("tests/test_directory_failures.py",),
    "mqcn_model/directory.py": ("tests/test_directory_failures.py",),
    # the property-value types no PROPID carries: the suite's own codec tests judge them
    # (no scenario can make a target act on them)
    "mqcn_model/codec/propvalue.py": (
        "tests/test_property_value_codec.py",
        "tests/test_codec.py",
        "tests/test_rules.py",
        "tests/test_sending.py",
        "tests/test_defects.py",
    ),
    "mqcn_model/capture/*.py": _WIRE_AND_CAPTURE_TESTS,
    # the records' __init__ (and the Envelope's): its own tests, then the capture's
    "mqcn_model/frozen.py": ("tests/test_frozen.py", *_WIRE_AND_CAPTURE_TESTS),
    "mqcn_model/wire/*.py": _WIRE_AND_CAPTURE_TESTS,
    # the MS-MQQB session machine: its own tests (the driver's run it over real sockets)
    "mqcn_model/mqqb/*.py": ("tests/test_mqqb_session.py", "tests/test_transport.py"),
    # the base of both scapy layer modules: its own tests, the message layers', the wire's
    "mqcn_model/scapy_base.py": (
        "tests/test_scapy_base.py",
        "tests/test_layers.py",
        *_WIRE_AND_CAPTURE_TESTS,
    ),
}
EQUIVALENTS_FILE = "docs/mutation-equivalents.yaml"
DEFAULT_TARGET = "reference"
MIN_TIMEOUT = 30.0
TIMEOUT_FACTOR = 10.0
SUITE_TIMEOUT = 900.0  # the unmutated suite, with or without coverage
CANARY_FILE = "mqcn_model/server.py"
CANARY_FUNCTION = ("NotificationServer", "deliver")
CANARY_TEXT = "mqcn mutation canary"
EXIT_INTERRUPTED = ExitCode.INTERRUPTED  # the one table of exit codes
_PASSED = re.compile(r"(\d+) passed")


class MutationUsageError(Exception):
    """The command line asks for something impossible (exit 2); the message is one line."""


class SelfCheckError(Exception):
    """The analysis cannot be trusted on this tree (exit 3); the message is one line."""


@dataclass
class MutationOptions:
    """Everything ``mqcn selftest mutation`` can be told."""

    root: Path
    out: Path
    files: Sequence[str] = ()  # empty: DEFAULT_FILES
    targets: Sequence[str] = (DEFAULT_TARGET,)
    jobs: int = 2
    timeout: float | None = None  # None: 10 x the unmutated suite, at least 30 s
    sample: int | None = None
    seed: str = "0"
    ids: Sequence[str] = ()  # only mutants whose ID matches one of these (fnmatch) patterns
    operators: Sequence[str] = ()  # only these operators' mutants (before --sample); () all
    resume: bool = True
    min_score: float | None = None
    equivalents: Path | None = None  # None: ROOT/docs/mutation-equivalents.yaml
    all_tests: bool = False  # run every scenario for every mutant (no selection)
    tests: Sequence[str] = ()  # --tests: test paths run once per mutant, besides the targets
    temp_dir: Path | None = None  # where sandboxes go (default: the system's)


@dataclass
class Outcome:
    """What :func:`run_mutation` produced."""

    document: dict[str, Any]
    exit_code: int
    warnings: list[str] = field(default_factory=list)
    interrupted: bool = False


@dataclass
class Events:
    """Callbacks through which the command shows progress (all optional)."""

    note: Callable[[str], None] = lambda text: None
    started: Callable[[int], None] = lambda total: None
    finished: Callable[[dict[str, Any]], None] = lambda record: None


# --- options ---------------------------------------------------------------------------------
def resolve_files(root: Path, given: Sequence[str]) -> list[str]:
    """The files to mutate, as posix paths from ``root``; :class:`MutationUsageError` names
    the first that is missing, not Python, or not a module of ``mqcn_model/``."""
    model = (root / "mqcn_model").resolve()
    if not model.is_dir():
        raise MutationUsageError(f"--root {root}: no mqcn_model/ directory there")
    if not given:
        found: list[str] = []
        for pattern in DEFAULT_FILES:
            paths = sorted(root.glob(pattern))
            found += [p.relative_to(root).as_posix() for p in paths if p.name != "__init__.py"]
        return found
    files: list[str] = []
    for name in given:
        path = Path(name)
        candidates = [path] if path.is_absolute() else [Path.cwd() / path, root / path]
        candidates.append(root / "mqcn_model" / path)
        existing = next((c.resolve() for c in candidates if c.is_file()), None)
        if existing is None:
            raise MutationUsageError(f"--file {name}: no such file")
        if existing.suffix != ".py":
            raise MutationUsageError(f"--file {name}: not a Python file")
        if model not in existing.parents:
            raise MutationUsageError(
                f"--file {name}: not a module of {model} (only the reference model is mutated)"
            )
        relative = existing.relative_to(root.resolve()).as_posix()
        if relative not in files:
            files.append(relative)
    return files


def resolve_tests(root: Path, given: Sequence[str]) -> list[str]:
    """The ``--tests`` paths, as posix paths from ``root`` (each once, in the order given; a
    pytest test ID ``FILE::NAME`` keeps its ``::NAME``);
    :class:`MutationUsageError` names the first that is not a file or directory of the tree
    the sandboxes copy (``tests/``, ``reference_vectors/``…)."""
    base = root.resolve()
    paths: list[str] = []
    for given_name in given:
        name, node = given_name.split("::", 1) if "::" in given_name else (given_name, "")
        path = Path(name)
        candidates = [path] if path.is_absolute() else [root / path, Path.cwd() / path]
        existing = next((c.resolve() for c in candidates if c.exists()), None)
        if existing is None:
            raise MutationUsageError(f"--tests {name}: no such file or directory")
        if base not in existing.parents:
            raise MutationUsageError(f"--tests {name}: not inside the project tree {root}")
        relative = existing.relative_to(base).as_posix()
        if node and not existing.is_file():
            raise MutationUsageError(f"--tests {given_name}: a test ID needs a test file")
        if node:
            relative = f"{relative}::{node}"
        if relative.split("/", 1)[0] not in COPIED:
            raise MutationUsageError(
                f"--tests {name}: not in a part of the tree the sandboxes copy "
                f"({', '.join(COPIED)})"
            )
        if relative not in paths:
            paths.append(relative)
    return paths


def default_tests(files: Sequence[str]) -> list[str]:
    """The tests :data:`DEFAULT_TESTS` brings along for ``files`` (each once, in order),
    used when no ``--tests`` is given."""
    tests: list[str] = []
    for pattern, paths in DEFAULT_TESTS.items():
        if any(fnmatchcase(file, pattern) for file in files):
            tests += [path for path in paths if path not in tests]
    return tests


def suites_of(targets: Sequence[str], tests: Sequence[str]) -> list[Suite]:
    """The pytest runs of each mutant: the scenarios under each target, then the tests."""
    suites = [Suite.of(target) for target in targets]
    if tests:
        suites.append(Suite.tests(tests, DEFAULT_TARGET))
    return suites


def check_options(options: MutationOptions) -> None:
    """Refuse impossible numbers with a one-line :class:`MutationUsageError`."""
    if options.jobs < 1:
        raise MutationUsageError(f"--jobs {options.jobs}: must be at least 1")
    if options.timeout is not None and options.timeout <= 0:
        raise MutationUsageError(f"--timeout {options.timeout:g}: must be a positive number")
    if options.sample is not None and options.sample < 1:
        raise MutationUsageError(f"--sample {options.sample}: must be at least 1")
    if options.min_score is not None and not 0 <= options.min_score <= 1:
        raise MutationUsageError(f"--min-score {options.min_score:g}: must be between 0 and 1")
    for name in options.operators:
        if name not in OPERATORS:
            raise MutationUsageError(
                f"--operator {name}: no such operator (one of {', '.join(OPERATORS)})"
            )
    if not options.targets:
        raise MutationUsageError("--target: give at least one target")
    for target in options.targets:
        if not target.strip():
            raise MutationUsageError("--target: an empty target")


def prepare_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise MutationUsageError(f"--out {out}: exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise MutationUsageError(f"--out {out}: not writable ({exc.strerror or exc})") from None


# --- the self-check ------------------------------------------------------------------------
def canary_source(source: str) -> str:
    """``source`` (server.py) with ``raise RuntimeError(...)`` first in the canary function."""
    tree = ast.parse(source)
    class_name, function_name = CANARY_FUNCTION
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == function_name:
                    body = item.body
                    first = body[1] if len(body) > 1 and _is_docstring(body[0]) else body[0]
                    lines = source.splitlines(keepends=True)
                    indent = " " * first.col_offset
                    line = f'{indent}raise RuntimeError("{CANARY_TEXT}")\n'
                    lines.insert(first.lineno - 1, line)
                    return "".join(lines)
    raise SelfCheckError(
        f"canary: {class_name}.{function_name} not found in {CANARY_FILE}; "
        "the isolation self-check cannot run"
    )


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _suite_failure(outcome: RunOutcome, target: str, what: str) -> Exception:
    problem = isolation_problem(outcome)
    if problem:
        return SelfCheckError(f"isolation check failed: {problem}")
    if target.startswith(TESTS_PREFIX):
        what, target = "the unmutated --tests run", target.removeprefix(TESTS_PREFIX)
        if outcome.timed_out:
            return SelfCheckError(f"{what} ({target}) timed out")
        first = outcome.first_failure()
        detail = f"{first}; {outcome.last_line()}" if first else outcome.last_line()
        return SelfCheckError(
            f"{what} fails ({target}; pytest exit {outcome.code}: {detail}); "
            "fix the tests or the model first"
        )
    if outcome.timed_out:
        return SelfCheckError(f"{what} timed out for target {target}")
    last = outcome.last_line()
    if outcome.code == 4 and "--mqcn-target" in outcome.output:
        detail = next(
            (line for line in outcome.output.splitlines() if "--mqcn-target" in line), last
        )
        detail = detail.strip().removeprefix("ERROR:").strip().removeprefix("--mqcn-target:")
        return MutationUsageError(f"--target {target}: {detail.strip()}")
    first = outcome.first_failure()
    detail = f"{first}; {last}" if first else last
    return SelfCheckError(
        f"{what} fails for target {target} (pytest exit {outcome.code}: {detail}); "
        "fix the suite or the model first"
    )


def self_check(
    sandbox: Sandbox,
    targets: Sequence[str | Suite],
    registry: ProcessRegistry,
    note: Callable[[str], None],
) -> tuple[float, dict[str, int]]:
    """The unmutated copy passes every suite (the scenarios under every target, the
    ``--tests``) and the canary is killed by the scenarios of the first target.

    Returns the slowest suite's time for a whole unmutated run, and each suite's number of
    tests (by suite name).
    """
    suites = [Suite.of(target) for target in targets]
    slowest = 0.0
    counts: dict[str, int] = {}
    for suite in suites:
        outcome = sandbox.pytest(
            list(suite.paths), suite.target, timeout=SUITE_TIMEOUT, registry=registry
        )
        if outcome.cancelled:
            raise KeyboardInterrupt
        if outcome.code != 0:
            raise _suite_failure(outcome, suite.name, "the unmutated scenario suite")
        if suite.scenarios:
            note(f"unmutated suite passes on {suite.name} ({outcome.last_line()})")
        else:
            note(f"unmutated --tests pass ({outcome.last_line()})")
        slowest = max(slowest, outcome.seconds)
        passed = _PASSED.search(outcome.last_line())
        counts[suite.name] = int(passed.group(1)) if passed else 0
    first = next(suite for suite in suites if suite.scenarios)
    original = sandbox.read(CANARY_FILE)
    with sandbox.mutated(CANARY_FILE, canary_source(original)):
        outcome = sandbox.pytest(
            [SCENARIOS], first.target, timeout=SUITE_TIMEOUT, registry=registry
        )
    if outcome.cancelled:
        raise KeyboardInterrupt
    problem = isolation_problem(outcome)
    if problem:
        raise SelfCheckError(f"isolation check failed: {problem}")
    if outcome.code == 0 or CANARY_TEXT not in outcome.output:
        raise SelfCheckError(
            "isolation check failed: the fatal canary mutant of NotificationServer.deliver "
            "was not killed, so the scenarios are not running the sandbox's code"
        )
    note("canary mutant killed: the scenarios run the sandbox's code")
    return slowest, counts


# --- planning --------------------------------------------------------------------------------
@dataclass
class Plan:
    """The mutants of one run, file by file, and what is already known about them."""

    files: list[FileMutants]
    chosen: dict[str, list[Mutant]]  # file -> the mutants in the run (the sample)
    documented: dict[str, Documented]
    stale: list[str]

    def pairs(self) -> list[tuple[FileMutants, list[Mutant]]]:
        return [(fm, self.chosen[fm.file]) for fm in self.files]

    def all_chosen(self) -> list[Mutant]:
        return [m for fm in self.files for m in self.chosen[fm.file]]


def make_plan(
    sandbox: Sandbox,
    files: Sequence[str],
    documented: dict[str, Documented],
    sample_size: int | None,
    seed: str,
    patterns: Sequence[str] = (),
    operators: Sequence[str] = (),
) -> Plan:
    """Every mutant of ``files`` (read from the sandbox), then ``--operator``, then the
    sample, then ``--id``."""
    generated: list[FileMutants] = []
    for file in files:
        try:
            generated.append(mutants_of(file, sandbox.read(file)))
        except SyntaxError as exc:
            raise MutationUsageError(f"--file {file}: does not parse (line {exc.lineno})") from None
    everything = [m for fm in generated for m in fm.mutants]
    wanted = set(operators)
    of_operators = [m for m in everything if not wanted or m.operator in wanted]
    in_run = sample(of_operators, sample_size, seed) if sample_size is not None else of_operators
    if patterns:
        in_run = [m for m in in_run if any(fnmatchcase(m.id, p) for p in patterns)]
    chosen_ids = {m.id for m in in_run}
    chosen = {fm.file: [m for m in fm.mutants if m.id in chosen_ids] for fm in generated}
    names = {display_name(file) for file in files}
    known = {m.id for m in everything}
    stale = sorted(
        identifier
        for identifier in documented
        if identifier.split(":", 1)[0] in names and identifier not in known
    )
    return Plan(generated, chosen, documented, stale)


def what(suite: Suite) -> str:
    """The suite, as the progress notes name it."""
    return "the scenarios" if suite.scenarios else "the --tests"


def _test_maps(
    sandbox: Sandbox,
    targets: Sequence[str | Suite],
    out: Path,
    registry: ProcessRegistry,
    note: Callable[[str], None],
) -> dict[str, TestMap]:
    maps: dict[str, TestMap] = {}
    for suite in (Suite.of(target) for target in targets):
        target = suite.name
        key = snapshot_key(sandbox.root, suite)
        cached = load_cached(out, key)
        if cached is not None:
            note(f"test map for {target}: cached ({len(cached.tests)} tests)")
            maps[target] = cached
            continue
        note(f"test map for {target}: running {what(suite)} under coverage...")
        try:
            testmap = measure(sandbox, suite, key, timeout=SUITE_TIMEOUT, registry=registry)
        except TestMapError as exc:
            raise SelfCheckError(str(exc)) from None
        store(out, testmap)
        note(f"test map for {target}: {len(testmap.tests)} tests in {testmap.seconds:.0f} s")
        maps[target] = testmap
    return maps


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM behaves like Ctrl-C (workers stopped, state kept) while the run lasts."""
    if sys.platform == "win32" or not _in_main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


# --- the analysis ----------------------------------------------------------------------------
def _documented(options: MutationOptions, root: Path) -> dict[str, Documented]:
    """The equivalents file's entries; a broken file is a usage error."""
    try:
        return load_equivalents(options.equivalents or root / EQUIVALENTS_FILE)
    except EquivalentsError as exc:
        raise MutationUsageError(f"equivalents file: {exc}") from None


def _meta(options: MutationOptions, targets: list[str], tests: list[str]) -> dict[str, Any]:
    """The report's ``meta`` block as known before the run (timeout and duration come later)."""
    return {
        "started": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "targets": targets,
        "tests": tests or None,
        "jobs": options.jobs,
        "selection": "every scenario for every mutant" if options.all_tests else "coverage",
        "sample": {"count": options.sample, "seed": options.seed} if options.sample else None,
        "ids": list(options.ids) or None,
        "operators": list(options.operators) or None,
    }


def _plan_warnings(plan: Plan, ids: Sequence[str]) -> list[str]:
    """Stale equivalents entries and ``--id`` patterns that match no mutant of the run."""
    warnings = [f"stale equivalents entry: {i} names no mutant" for i in plan.stale]
    for pattern in ids:
        if not any(fnmatchcase(m.id, pattern) for m in plan.all_chosen()):
            warnings.append(f"--id {pattern}: matches no mutant in the run")
    return warnings


@dataclass
class _Run:
    """One analysis while it lasts: what it was told, and what it has recorded so far."""

    options: MutationOptions
    events: Events
    root: Path
    files: list[str]
    documented: dict[str, Documented]
    suites: list[Suite]
    state: StateFile
    registry: ProcessRegistry = field(default_factory=ProcessRegistry)
    sandboxes: list[Sandbox] = field(default_factory=list)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    plan: Plan | None = None

    @property
    def targets(self) -> list[str]:
        """The runs' names: the targets, then ``tests:…``."""
        return [suite.name for suite in self.suites]

    def finish(self, job: Job, record: dict[str, Any]) -> None:
        """A mutant's verdict: saved first (the state file is the truth), then shown."""
        self.state.append(record)
        self.records[record["id"]] = record
        self.events.finished(record)

    def reuse(self, plan: Plan, saved: dict[str, dict[str, Any]]) -> list[Mutant]:
        """Take the still-valid verdicts of ``saved`` into the records; return the chosen
        mutants that are neither documented, recorded nor reusable (those left to run)."""
        hashes = {fm.file: fm.file_hash for fm in plan.files}
        left: list[Mutant] = []
        for mutant in plan.all_chosen():
            if mutant.id in self.records or mutant.id in self.documented:
                continue
            known = reusable(saved.get(mutant.id), hashes[mutant.file], self.targets)
            if known is not None:
                self.records[mutant.id] = known
            else:
                left.append(mutant)
        return left

    def make_plan(self) -> Plan:
        """The plan, read from the first sandbox (the snapshot of the tree)."""
        options = self.options
        return make_plan(
            self.sandboxes[0],
            self.files,
            self.documented,
            options.sample,
            options.seed,
            options.ids,
            options.operators,
        )

    def jobs(self, plan: Plan, todo: list[Mutant], totals: dict[str, int]) -> list[Job]:
        """One job per mutant left, with the tests each suite runs against it."""
        maps = (
            {}
            if self.options.all_tests
            else _test_maps(
                self.sandboxes[0], self.suites, self.options.out, self.registry, self.events.note
            )
        )
        sources = {fm.file: fm for fm in plan.files}
        jobs: list[Job] = []
        for mutant in todo:
            fm = sources[mutant.file]
            selections = {
                target: maps[target].select(mutant, fm.units) if target in maps else ALL_TESTS
                for target in self.targets
            }
            jobs.append(Job(mutant, fm.source, fm.file_hash, selections, totals))
        return jobs

    def execute(self, plan: Plan, todo: list[Mutant], meta: dict[str, Any]) -> None:
        """Self-check the snapshot, then run ``todo`` over as many sandboxes as jobs allow;
        a mutant no selected test covers is recorded ``no-coverage`` without a run."""
        snapshot = self.sandboxes[0]
        slowest, totals = self_check(snapshot, self.suites, self.registry, self.events.note)
        timeout = self.options.timeout or max(MIN_TIMEOUT, TIMEOUT_FACTOR * slowest)
        meta["timeout_seconds"] = round(timeout, 1)
        jobs = self.jobs(plan, todo, totals)
        runner = MutantRunner(self.sandboxes, self.suites, timeout=timeout, registry=self.registry)
        self.events.started(len(jobs))
        runnable = []
        for job in jobs:
            if all(s.empty for s in job.selections.values()):
                self.finish(job, runner.record(job, "no-coverage", seconds=0.0))
            else:
                runnable.append(job)
        while len(self.sandboxes) < min(self.options.jobs, max(len(runnable), 1)):
            self.sandboxes.append(snapshot.clone(self.options.temp_dir))
        runner.sandboxes = list(self.sandboxes)
        runner.run(runnable, self.finish)

    def analyse(self, meta: dict[str, Any], warnings: list[str]) -> None:
        """Snapshot, plan, reuse what the state file already knows, run the rest."""
        self.sandboxes.append(Sandbox.create(self.root, self.options.temp_dir))
        self.plan = plan = self.make_plan()
        warnings += _plan_warnings(plan, self.options.ids)
        todo = self.reuse(plan, self.state.load())
        self.events.note(
            f"{len(plan.all_chosen())} mutants in the run: {len(self.records)} already done, "
            f"{len(todo)} to run"
        )
        if todo:
            self.execute(plan, todo, meta)

    def close(self) -> None:
        """Stop every process the run started and remove its sandboxes."""
        self.registry.stop_all()
        for sandbox in self.sandboxes:
            sandbox.remove()


def _start(options: MutationOptions, events: Events) -> tuple[_Run, list[str]]:
    """Check the options and the inputs they name; ready the output directory and state."""
    check_options(options)
    root = options.root.resolve()
    files = resolve_files(root, options.files)
    if not files:
        raise MutationUsageError("no files to mutate")
    documented = _documented(options, root)
    tests = resolve_tests(root, options.tests or default_tests(files))
    prepare_out(options.out)
    suites = suites_of(list(dict.fromkeys(options.targets)), tests)  # each target once
    state = StateFile(options.out)
    if options.resume:
        state.repair()
    else:
        state.reset()
    return _Run(options, events, root, files, documented, suites, state), tests


def run_mutation(options: MutationOptions, events: Events | None = None) -> Outcome:
    """Run the whole analysis (see the module documentation); raises
    :class:`MutationUsageError`, :class:`SelfCheckError` or :class:`KeyboardInterrupt`."""
    run, tests = _start(options, events or Events())
    meta = _meta(options, run.targets, tests)
    clock = time.monotonic()
    warnings: list[str] = []
    interrupted = False
    try:
        with _terminate_as_interrupt():
            run.analyse(meta, warnings)
    except KeyboardInterrupt:
        interrupted = True
        if run.plan is not None:
            # Ctrl-C may land inside finish(), after state.append and before records is
            # updated: the state file is the truth, so the report counts what reached it.
            run.reuse(run.plan, run.state.load())
    except IsolationError as exc:
        raise SelfCheckError(f"isolation check failed: {exc}") from None
    finally:
        run.close()
    plan = run.plan
    if plan is None:  # interrupted before the plan existed: nothing to report
        raise KeyboardInterrupt
    meta["duration_seconds"] = round(time.monotonic() - clock, 1)
    meta["interrupted"] = interrupted
    document = build_document(
        plan.pairs(), run.records, plan.documented, stale=plan.stale, meta=meta
    )
    write_reports(options.out, document)
    if interrupted:
        return Outcome(document, EXIT_INTERRUPTED, warnings, interrupted=True)
    return Outcome(document, exit_code_for(document, options.min_score), warnings)


def exit_code_for(document: dict[str, Any], min_score: float | None) -> int:
    """0, or 1 when some file's score is below ``min_score`` (a file without a score passes)."""
    if min_score is None:
        return 0
    for entry in document["files"].values():
        if entry["score"] is not None and entry["score"] < min_score:
            return 1
    return 0
