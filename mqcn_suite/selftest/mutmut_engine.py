"""``mqcn selftest mutmut``: every mutant of whole files of the model, by mutmut 3.

The project's own engine (:mod:`.mutation`) runs the scenarios against its own operators;
this one hands a file to **mutmut** (its operators, its per-test coverage, its speed: a
whole ``mqqb/machine.py`` in about two minutes) with the fast unit tests that cover it
(:data:`~mqcn_suite.selftest.mutation.DEFAULT_TESTS`, or ``--tests``), and scores the file
whole -- never a sample:

    score = (killed + timeout) / (mutants - documented equivalents)

Each file runs in its own copy of the tree (:class:`~mqcn_suite.selftest.sandbox.Sandbox`
plus a ``setup.cfg`` naming the file alone), so the checkout is never touched.  Surviving
mutants are shown as mutmut's diff (the lines removed and added); a survivor documented in
``docs/mutation-equivalents.yaml`` under ``mutmut:`` (file, function, the line it changes and
the line it makes, kind, reason) is left out of the score.  The identity is the change, not
mutmut's number, which moves whenever the function is edited.

Writes ``DIR/mutmut.json`` (every mutant with its status) and ``DIR/mutmut.md`` (per file:
mutants, killed, timeout, equivalent, survived, score; each survivor's diff).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import yaml

from mqcn_suite.selftest.equivalents import KINDS, EquivalentsError
from mqcn_suite.selftest.mutation import (
    _WIRE_AND_CAPTURE_TESTS,
    EQUIVALENTS_FILE,
    default_tests,
)
from mqcn_suite.selftest.sandbox import Sandbox

MUTMUT_VERSION = "3.8.1"  # the version the figures in docs/mutation.md were made with
EXTRA_COPIED = ("README.md", "setup.py")  # read by some tests; not in the Sandbox's list
KILLED = ("killed", "timeout")  # mutmut's statuses that count as killed
RESULT_LINE = re.compile(r"^\s*(?P<name>\S+): (?P<status>.+?)\s*$")
MUTANT_NAME = re.compile(
    r"^(?P<module>.+?)\.x(?:ǁ(?P<cls>[^ǁ]+)ǁ|_)(?P<function>.+)__mutmut_(?P<n>\d+)$"
)
REPORT_JSON, REPORT_MD = "mutmut.json", "mutmut.md"


class MutmutMissing(Exception):
    """mutmut is not installed (a usage error: one line saying how to install it)."""


class MutmutError(Exception):
    """mutmut ran but its output cannot be read: one line saying which."""


@dataclass(frozen=True, slots=True)
class MutmutEquivalent:
    """A survivor documented once: the change it makes in ``function`` of ``file``."""

    file: str
    function: str
    changed: str  # the line(s) mutmut removed, whitespace collapsed, " / " between lines
    to: str  # the line(s) it put there
    kind: str
    reason: str
    # instead of one change: every survivor of the function whose change only alters the
    # case of letters (a name looked up case-insensitively, as LDAP attribute names are)
    case_only: bool = False

    def matches(self, mutant: MutmutMutant) -> bool:
        if (self.file, self.function) != (mutant.file, mutant.function):
            return False
        if self.case_only:
            return _case_only(mutant.changed, mutant.to)
        return (self.changed, self.to) == (mutant.changed, mutant.to)


_LITERAL = re.compile(r"\"([^\"]*)\"|'([^']*)'")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")


def _case_only(changed: str, to: str) -> bool:
    """``to`` differs from ``changed`` only in the case of string literals that are names (one
    word: an LDAP attribute description), never in a message (which has spaces).

    >>> _case_only('v.text("mSMQLabelEx")', 'v.text("MSMQLABELEX")')
    True
    >>> _case_only('_Failed("mSMQSites holds a value")', '_Failed("MSMQSITES HOLDS A VALUE")')
    False
    >>> _case_only('v.text("a")', 'v.text("a")'), _case_only('x = "ab"', 'y = "AB"')
    (False, False)
    """
    if changed == to or changed.lower() != to.lower():
        return False
    before, after = _LITERAL.split(changed), _LITERAL.split(to)
    if len(before) != len(after):
        return False
    for old, new in zip(before, after, strict=True):
        if old != new and not (old is not None and _NAME.fullmatch(old)):
            return False
    return True


@dataclass(slots=True)
class MutmutMutant:
    name: str  # mutmut's, e.g. mqcn_model.mqqb.machine.xǁSessionMachineǁ_flush__mutmut_14
    file: str
    function: str  # Class.method or function
    status: str  # killed | timeout | survived | no tests | suspicious | ... (mutmut's words)
    changed: str = ""
    to: str = ""
    documented: str | None = None  # the equivalent's kind, when documented


@dataclass(slots=True)
class FileScore:
    file: str
    tests: list[str]
    mutants: list[MutmutMutant] = field(default_factory=list)
    wall: float = 0.0

    def count(self, *statuses: str) -> int:
        return sum(1 for m in self.mutants if m.status in statuses and m.documented is None)

    @property
    def equivalent(self) -> int:
        return sum(1 for m in self.mutants if m.documented is not None)

    @property
    def score(self) -> float | None:
        judged = len(self.mutants) - self.equivalent
        return self.count(*KILLED) / judged if judged else None

    def summary(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "mutants": len(self.mutants),
            "killed": self.count("killed"),
            "timeout": self.count("timeout"),
            "equivalent": self.equivalent,
            "survived": len(self.mutants) - self.equivalent - self.count(*KILLED),
            "score": None if self.score is None else round(self.score, 4),
            "wall_s": round(self.wall, 1),
            "tests": self.tests,
        }


def _collapse(lines: Sequence[str]) -> str:
    return " / ".join(" ".join(line.split()) for line in lines if line.strip())


def function_of(name: str) -> tuple[str, str]:
    """The module and the function (``Class.method``) a mutmut mutant name is in.

    >>> function_of("mqcn_model.mqqb.machine.xǁSessionMachineǁ_flush__mutmut_14")
    ('mqcn_model.mqqb.machine', 'SessionMachine._flush')
    >>> function_of("mqcn_model.mqqb.machine.x__summary__mutmut_3")
    ('mqcn_model.mqqb.machine', '_summary')
    """
    found = MUTANT_NAME.match(name)
    if found is None:
        raise MutmutError(f"cannot read the mutant name {name!r} (mutmut {MUTMUT_VERSION}?)")
    owner = f"{found['cls']}." if found["cls"] else ""
    return found["module"], owner + found["function"]


def parse_results(text: str) -> dict[str, str]:
    """``mutmut results --all true``: each mutant's status by name."""
    statuses = {}
    for line in text.splitlines():
        found = RESULT_LINE.match(line)
        if found and "__mutmut_" in found["name"]:
            statuses[found["name"]] = found["status"]
    return statuses


def parse_diff(text: str) -> tuple[str, str]:
    """The lines ``mutmut show`` removes and adds (collapsed), from its unified diff."""
    removed = [
        line[1:]
        for line in text.splitlines()
        if line.startswith("-") and not line.startswith("---")
    ]
    added = [
        line[1:]
        for line in text.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    return _collapse(removed), _collapse(added)


def load_mutmut_equivalents(path: Path) -> list[MutmutEquivalent]:
    """The ``mutmut:`` entries of the equivalents file (none when it has none)."""
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        return []
    except (OSError, yaml.YAMLError) as exc:
        raise EquivalentsError(f"{path}: cannot read ({exc})") from None
    entries = document.get("mutmut") or [] if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise EquivalentsError(f"{path}: 'mutmut' must be a list")
    found = []
    keys = ("file", "function", "changed", "to", "kind", "reason")
    by_case = ("file", "function", "case_only", "kind", "reason")
    for number, entry in enumerate(entries, 1):
        where = f"{path}: mutmut entry {number}"
        case_only = isinstance(entry, dict) and entry.get("case_only") is True
        wanted = by_case if case_only else keys
        if not isinstance(entry, dict) or set(entry) != set(wanted):
            raise EquivalentsError(
                f"{where}: expected exactly {', '.join(keys)} (or {', '.join(by_case)}: true)"
            )
        if entry["kind"] not in KINDS or entry["kind"] == "reading":
            raise EquivalentsError(f"{where}: 'kind' is 'equivalent' or 'unreachable'")
        # ``to`` alone may be empty: the mutant deleted the line (a keyword argument)
        texts = [k for k in wanted if k not in ("case_only", "to")]
        if not all(isinstance(entry[k], str) and entry[k].strip() for k in texts) or not (
            case_only or isinstance(entry["to"], str)
        ):
            raise EquivalentsError(
                f"{where}: every field is a non-empty string (to: a string, empty when the "
                "mutant deletes the line)"
            )
        found.append(
            MutmutEquivalent(
                entry["file"],
                entry["function"],
                _collapse([entry.get("changed", "")]),
                _collapse([entry.get("to", "")]),
                entry["kind"],
                entry["reason"].strip(),
                case_only,
            )
        )
    return found


def document(mutants: list[MutmutMutant], equivalents: list[MutmutEquivalent]) -> list[str]:
    """Mark each survivor an entry documents; the entries that match no survivor (stale)."""
    used: set[int] = set()
    for mutant in mutants:
        if mutant.status in KILLED:
            continue
        for index, entry in enumerate(equivalents):
            if entry.matches(mutant):
                mutant.documented = entry.kind
                used.add(index)
    return [
        f"{e.file} {e.function}: "
        + ("case-only changes" if e.case_only else f"{e.changed!r} -> {e.to!r}")
        for i, e in enumerate(equivalents)
        if i not in used and any(m.file == e.file for m in mutants)
    ]


# The tests that start a JVM (markers ``spark``, ``cluster``) are left out: a survivor pays
# for every test that executes its function, and with the Spark tests a survivor of the
# capture reader cost about 150 s (issue 34, on a loaded 2-core machine); the code a Spark
# task runs is the capture reader's own, which its direct tests judge (and mutmut cannot see
# the workers' processes run it).
PYTEST_ARGS = (
    *("-p", "no:randomly", "-n", "0", "-p", "no:cacheprovider"),
    *("-m", "not spark and not cluster"),
)


def setup_cfg(file: str, tests: Sequence[str]) -> str:
    """The ``[mutmut]`` section that mutates ``file`` alone with ``tests``."""
    lines = ["[mutmut]", "source_paths = mqcn_model", f"only_mutate = {file}", "also_copy ="]
    lines += [
        f"    {name}"
        for name in (
            "mqcn_suite",
            "steps",
            "features",
            "tests",
            "reference_vectors",
            "docs",
            "conftest.py",
            *EXTRA_COPIED,
        )
    ]
    lines += ["pytest_add_cli_args_test_selection ="] + [f"    {t}" for t in tests]
    lines += ["pytest_add_cli_args ="] + [f"    {a}" for a in PYTEST_ARGS]
    return "\n".join(lines) + "\n"


HYPOTHESIS_PROFILE = "mutation"  # conftest.py: derandomized, fewer examples

# mutmut runs, for each mutant, every selected test that executes it until one fails: a
# survivor costs all of them.  The wire codec's own tests judge a wire file (the capture
# reader's, which decode whole captures through it, add minutes a mutant and nothing the
# codec's do not); the capture reader's judge a capture file.  Other files: DEFAULT_TESTS.
_WIRE_TESTS = (
    *(t for t in _WIRE_AND_CAPTURE_TESTS if "capture" not in t),
    "tests/test_mqqb_session.py",  # the session machine reads internal packets through them
)
# real senders' streams (a UserMessage first) are framed by capture/stream.py
_CAPTURE_TESTS = (
    *(t for t in _WIRE_AND_CAPTURE_TESTS if "capture" in t),
    "tests/test_wire_real_senders.py",
)
MUTMUT_TESTS: dict[str, tuple[str, ...]] = {
    "mqcn_model/wire/*.py": _WIRE_TESTS,
    "mqcn_model/capture/*.py": _CAPTURE_TESTS,
}


# The files whose whole-file score docs/mutation.md publishes (issue 34): `selftest mutmut`
# without --file runs them all.  Package __init__ modules only re-export: no mutant.
WHOLE_FILES = (
    "mqcn_model/mqqb/*.py",
    "mqcn_model/wire/*.py",
    "mqcn_model/capture/*.py",
    "mqcn_model/dssm.py",
    "mqcn_model/ldap_reads.py",
)


def whole_files(root: Path) -> list[str]:
    """:data:`WHOLE_FILES` in ``root``, each file once, in order (no ``__init__.py``).

    >>> from pathlib import Path
    >>> files = whole_files(Path(__file__).parents[2])
    >>> files[0], "mqcn_model/dssm.py" in files, any(f.endswith("__init__.py") for f in files)
    ('mqcn_model/mqqb/events.py', True, False)
    """
    found: list[str] = []
    for pattern in WHOLE_FILES:
        for path in sorted(root.glob(pattern)):
            name = path.relative_to(root).as_posix()
            if path.name != "__init__.py" and name not in found:
                found.append(name)
    return found


def default_tests_for(file: str) -> list[str]:
    """The tests that judge ``file``'s mutants by default (:data:`MUTMUT_TESTS`, else the
    project engine's ``DEFAULT_TESTS``).

    >>> default_tests_for("mqcn_model/capture/tcp.py")[0]
    'tests/test_capture.py'
    >>> default_tests_for("mqcn_model/dssm.py")[0]
    'tests/test_dssm.py'
    """
    for pattern, tests in MUTMUT_TESTS.items():
        if fnmatchcase(file, pattern):
            return list(tests)
    return default_tests([file])


def _mutmut(sandbox: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    env["MQCN_HYPOTHESIS_PROFILE"] = HYPOTHESIS_PROFILE
    return subprocess.run(
        [sys.executable, "-m", "mutmut", *args],
        cwd=sandbox,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


# mutmut's own diff of each survivor, all in one process (``mutmut show`` is one process per
# mutant: minutes for a file with hundreds of survivors); what ``show`` prints after its header
_DIFFS = """
import json, sys
from mutmut.__main__ import find_mutant, get_diff_for_mutant
names = json.load(sys.stdin)
print(json.dumps({n: get_diff_for_mutant(n, path=find_mutant(n).path) for n in names}))
"""


def _diffs(sandbox: Path, names: Sequence[str]) -> dict[str, str]:
    """The unified diff of each mutant in ``names`` (``mutmut show``'s, without its header)."""
    if not names:
        return {}
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    ran = subprocess.run(
        [sys.executable, "-c", _DIFFS],
        cwd=sandbox,
        env=env,
        input=json.dumps(list(names)),
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        found = json.loads(ran.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        found = None
    if not isinstance(found, dict) or set(found) != set(names):
        tail = ran.stderr.strip().splitlines()[-1:] or ["no output"]
        raise MutmutError(f"cannot read mutmut's diffs of the survivors ({tail[0]})")
    return found


def check_mutmut() -> None:
    """MutmutMissing unless mutmut (3.x) can be imported by this Python."""
    try:
        import mutmut  # noqa: F401
    except ImportError:
        raise MutmutMissing(
            f"mutmut is not installed: pip install 'mutmut=={MUTMUT_VERSION}' "
            "(or the project's [mutation] extra)"
        ) from None


NO_TESTS = "no tests"  # mutmut's status of a mutant no selected test executes
_DEFINED = re.compile(r"^\s*def (x\S+__mutmut_\d+)\(", re.MULTILINE)


def _unrun(sandbox: Path, file: str, ran: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """The mutants of a run that gave no result: none (a file with nothing to mutate, e.g.
    an ``__init__`` of imports), or, when no selected test executes any of them (mutmut
    stops early), each one ``no tests`` -- a survivor, never left out."""
    said = ran.stdout + ran.stderr
    mutated = sandbox / "mutants" / file
    module = file.removesuffix(".py").replace("/", ".")
    try:
        names = _DEFINED.findall(mutated.read_text(encoding="utf-8"))
    except OSError:
        names = []
    if names and "could not find any test case" in said:
        return {f"{module}.{name}": NO_TESTS for name in names}
    if not names and "files mutated" in said:  # mutmut looked, and found nothing to mutate
        return {}
    tail = said.strip().splitlines()[-3:]
    raise MutmutError(f"{file}: mutmut made no result ({' | '.join(tail) or 'no output'})")


NOT_CHECKED = "not checked"  # mutmut's status of a mutant it never ran


def none_checked(statuses: dict[str, str]) -> bool:
    """Did mutmut run none of the mutants it lists?  (No selected test executes any -- code
    run only at import, say -- or the tests failed before any mutant ran.)

    >>> none_checked({"a": "killed", "b": "not checked"}), none_checked({"a": "not checked"})
    (False, True)
    """
    return bool(statuses) and all(status == NOT_CHECKED for status in statuses.values())


def run_file(
    root: Path, file: str, tests: Sequence[str], jobs: int, note: Callable[[str], None]
) -> FileScore:
    """Every mutant of ``file`` (a path under mqcn_model/), killed or not by ``tests``."""
    started = time.monotonic()
    sandbox = Sandbox.create(root)
    try:
        for name in EXTRA_COPIED:
            if (root / name).is_file():
                shutil.copy2(root / name, sandbox.root / name)
        (sandbox.root / "setup.cfg").write_text(setup_cfg(file, tests), encoding="utf-8")
        note(f"{file}: mutmut run ({', '.join(tests)})")
        ran = _mutmut(sandbox.root, "run", "--max-children", str(jobs))
        results = _mutmut(sandbox.root, "results", "--all", "true")
        statuses = parse_results(results.stdout)
        if not statuses or none_checked(statuses):  # each "no tests", or MutmutError
            statuses = _unrun(sandbox.root, file, ran)
        score = FileScore(file, list(tests))
        diffs = _diffs(sandbox.root, [n for n, status in statuses.items() if status not in KILLED])
        for name, status in statuses.items():
            _, function = function_of(name)
            mutant = MutmutMutant(name, file, function, status)
            if status not in KILLED:
                mutant.changed, mutant.to = parse_diff(diffs[name])
            score.mutants.append(mutant)
        score.wall = time.monotonic() - started
        return score
    finally:
        sandbox.remove()


def write_reports(out: Path, scores: list[FileScore], stale: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    data = {
        "tool": f"mutmut {MUTMUT_VERSION}",
        "files": [s.summary() for s in scores],
        "mutants": [asdict(m) for s in scores for m in s.mutants],
        "stale_equivalents": stale,
    }
    (out / REPORT_JSON).write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    lines = [
        f"# Whole-file mutation, mutmut {MUTMUT_VERSION}",
        "",
        "| file | mutants | killed | timeout | equivalent | survived | score | wall |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in scores:
        row = s.summary()
        shown = "–" if row["score"] is None else f"{100 * row['score']:.1f} %"
        lines.append(
            f"| {row['file']} | {row['mutants']} | {row['killed']} | {row['timeout']} | "
            f"{row['equivalent']} | {row['survived']} | {shown} | {row['wall_s']} s |"
        )
    for s in scores:
        left = [m for m in s.mutants if m.status not in KILLED and m.documented is None]
        if left:
            lines += ["", f"## Survivors of {s.file}", ""]
            lines += [f"* `{m.function}` ({m.status}): `{m.changed}` → `{m.to}`" for m in left]
    if stale:
        lines += ["", "## Stale equivalents (no survivor matches them)", ""]
        lines += [f"* {entry}" for entry in stale]
    (out / REPORT_MD).write_text("\n".join(lines) + "\n", encoding="utf-8")


def summary_line(score: FileScore) -> str:
    row = score.summary()
    shown = "no mutant judged" if row["score"] is None else f"{100 * row['score']:.1f} %"
    return (
        f"{row['file']}: {row['mutants']} mutants, {row['killed']} killed, {row['timeout']} "
        f"timeout, {row['equivalent']} equivalent, {row['survived']} survived: {shown} "
        f"({row['wall_s']} s)"
    )


def run_mutmut(
    root: Path,
    files: Sequence[str],
    tests: Sequence[str],
    jobs: int,
    out: Path,
    note: Callable[[str], None],
    equivalents: Path | None = None,
) -> tuple[list[FileScore], list[str]]:
    """Each of ``files`` whole under mutmut; the scores and the stale equivalents."""
    check_mutmut()
    documented = load_mutmut_equivalents(equivalents or root / EQUIVALENTS_FILE)
    scores, stale = [], []
    for file in files:
        chosen = list(tests) or default_tests_for(file)
        if not chosen:
            raise MutmutMissing(f"{file}: no tests cover it by default: give --tests")
        chosen.append(file)  # its doctests (pytest collects them: --doctest-modules)
        score = run_file(root, file, chosen, jobs, note)
        stale += document(score.mutants, documented)
        scores.append(score)
        note(summary_line(score))
        write_reports(out, scores, stale)
    return scores, stale
