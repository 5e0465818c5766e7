"""``mqcn selftest``: the suite measuring itself.  One subcommand today, ``mutation``::

    mqcn selftest mutation                                  # every default file, 2 jobs
    mqcn selftest mutation --file mqcn_model/batching.py --jobs 2 --out /tmp/m
    mqcn selftest mutation --sample 50 --seed 7 --min-score 0.8
    mqcn selftest mutation --target reference --target reference:E-14
    mqcn selftest mutation --file mqcn_model/rules.py --tests tests/test_rules.py
    mqcn selftest mutation --file mqcn_model/client.py --operator ArgDelete --operator StringAlter

It mutates the reference model and runs the conformance scenarios against every mutant, in
copies of the tree (never the work tree); see ``docs/mutation.md`` and
:mod:`mqcn_suite.selftest.mutation`.  Exit codes
(:class:`~mqcn_suite.commands._common.ExitCode`): 0 done (and every file meets
``--min-score``); 1 a file is below ``--min-score``; 2 usage error; 3 the analysis cannot be
trusted here (the unmutated suite fails, the isolation self-check fails) or an internal
error; 130 interrupted (finished mutants are kept: run the same command to resume).

The analysis modules are imported only when the command runs, so other commands stay fast.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mqcn_suite.commands._common import (
    PROG,
    ExitCode,
    UsageError,
    boundary,
    command_group,
    fail,
    parse_float,
    parse_int,
)
from mqcn_suite.locations import checkout_root, is_checkout

if TYPE_CHECKING:
    from rich.console import Console

    from mqcn_suite.selftest.mutation import Events, MutationOptions

COMMAND = "selftest mutation"
PLAIN_PROGRESS_SECONDS = 30.0

MUTATION_HELP = (
    "Mutation analysis: make small faults (mutants) in the reference model and run the "
    "conformance scenarios against each, in copies of the tree; a mutant no scenario notices "
    "survives. Writes DIR/mutation.json, DIR/mutation.md and DIR/state.jsonl (an interrupted "
    "run resumes). Exit 0: done; 1: a file is below --min-score; 2: usage error; 3: the "
    "unmutated suite or the isolation self-check fails; 130: interrupted."
)


def _optional_int(option: str, text: str | None) -> int | None:
    return None if text is None else parse_int(option, text)


def _optional_float(option: str, text: str | None) -> float | None:
    return None if text is None else parse_float(option, text)


def project_root(given: str | None) -> Path:
    """``--root``, else the current directory if it is the project, else the checkout this
    ``mqcn`` runs from; :class:`UsageError` from an installed wheel (no checkout)."""
    if given is not None:
        root = Path(given)
    elif (Path.cwd() / "mqcn_model").is_dir() and (Path.cwd() / "steps").is_dir():
        root = Path.cwd()
    elif is_checkout(checkout_root()):
        root = checkout_root()
    else:  # an installed wheel: the mutants are made in the sources and tests of a checkout
        raise UsageError(
            "mutation testing needs a checkout of mqcn-conformance (its sources, tests and "
            "features), not an installed package: run it from the checkout or give --root"
        )
    for needed in ("mqcn_model", "steps", "features"):
        if not (root / needed).is_dir():
            raise UsageError(
                f"--root {root}: not the project tree (no {needed}/); run from the project "
                "or give --root"
            )
    return root


class _Display:
    """Progress on stderr: a rich bar on a terminal, a line every 30 s otherwise."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.counts: Counter[str] = Counter()
        self.total = 0
        self.progress: Any = None
        self.task: Any = None
        self.last_line = 0.0

    def note(self, text: str) -> None:
        self.console.print(f"[dim]{PROG} {COMMAND}: {text}[/dim]", highlight=False)

    def started(self, total: int) -> None:
        self.total = total
        if self.progress is not None:
            self.task = self.progress.add_task(self._description(), total=total)
        self.last_line = time.monotonic()

    def finished(self, record: dict[str, Any]) -> None:
        self.counts[record["status"]] += 1
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, advance=1, description=self._description())
            return
        done = sum(self.counts.values())
        if time.monotonic() - self.last_line >= PLAIN_PROGRESS_SECONDS or done == self.total:
            self.last_line = time.monotonic()
            self.note(f"{done}/{self.total} mutants: {self._counts()}")

    def _counts(self) -> str:
        names = ("killed", "timeout", "survived", "no-coverage")
        return ", ".join(f"{self.counts[name]} {name}" for name in names)

    def _description(self) -> str:
        return f"mutants ({self._counts()})"

    @contextmanager
    def live(self) -> Iterator[None]:
        if not self.console.is_terminal:
            yield
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,
        )
        with self.progress:
            yield

    def events(self) -> Events:
        from mqcn_suite.selftest.mutation import Events

        return Events(note=self.note, started=self.started, finished=self.finished)


def _options(
    files: list[str] | None,
    jobs: str,
    timeout: str | None,
    out: str,
    sample: str | None,
    seed: str | None,
    ids: list[str] | None,
    resume: bool,
    targets: list[str] | None,
    min_score: str | None,
    equivalents: str | None,
    all_tests: bool,
    root: str | None,
    tests: list[str] | None = None,
    operators: list[str] | None = None,
) -> MutationOptions:
    from mqcn_suite.selftest.mutation import DEFAULT_TARGET, MutationOptions

    if seed is not None and sample is None:
        raise UsageError("--seed chooses a sample: give --sample N too")
    return MutationOptions(
        root=project_root(root),
        out=Path(out),
        files=list(files or ()),
        targets=list(targets or [DEFAULT_TARGET]),
        jobs=parse_int("--jobs", jobs),
        timeout=_optional_float("--timeout", timeout),
        sample=_optional_int("--sample", sample),
        seed=seed if seed is not None else "0",
        ids=list(ids or ()),
        resume=resume,
        min_score=_optional_float("--min-score", min_score),
        equivalents=Path(equivalents) if equivalents else None,
        all_tests=all_tests,
        tests=list(tests or ()),
        operators=list(operators or ()),
    )


def mutation_command(
    files: Annotated[
        list[str] | None,
        typer.Option(
            "--file",
            metavar="PATH",
            help="A module of mqcn_model/ to mutate (repeatable). Default: server.py, "
            "client.py, batching.py, rules.py, codec/*.py, sending.py, capture/*.py and "
            "wire/*.py.",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[
        str, typer.Option("--jobs", metavar="N", help="Mutants run at once (one copy each).")
    ] = "2",
    timeout: Annotated[
        str | None,
        typer.Option(
            "--timeout",
            metavar="SECONDS",
            help="Time limit of one mutant's run (a timeout counts as killed). Default: 10x "
            "the unmutated suite, at least 30 s.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        str,
        typer.Option("--out", metavar="DIR", help="Report, state and test-map cache go here."),
    ] = "mqcn-mutation",
    sample: Annotated[
        str | None,
        typer.Option(
            "--sample", metavar="N", help="Run N mutants chosen by --seed.", show_default=False
        ),
    ] = None,
    seed: Annotated[
        str | None,
        typer.Option(
            "--seed",
            metavar="S",
            help="Seed of --sample (default 0): same seed, same sample.",
            show_default=False,
        ),
    ] = None,
    ids: Annotated[
        list[str] | None,
        typer.Option(
            "--id",
            metavar="PATTERN",
            help="Run only mutants whose ID matches (repeatable; * and ? allowed), after --sample.",
            show_default=False,
        ),
    ] = None,
    operators: Annotated[
        list[str] | None,
        typer.Option(
            "--operator",
            metavar="NAME",
            help="Only this operator's mutants (repeatable; before --sample), e.g. ArgDelete. "
            "Default: every operator (docs/mutation.md lists them).",
            show_default=False,
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume/--restart", help="Skip mutants DIR/state.jsonl already has, or start over."
        ),
    ] = True,
    targets: Annotated[
        list[str] | None,
        typer.Option(
            "--target",
            metavar="SPEC",
            help="A --mqcn-target for the scenarios (repeatable; killed if any run fails). "
            "Default: reference.",
            show_default=False,
        ),
    ] = None,
    min_score: Annotated[
        str | None,
        typer.Option(
            "--min-score",
            metavar="F",
            help="Exit 1 if a file's score (0-1) is below F.",
            show_default=False,
        ),
    ] = None,
    equivalents: Annotated[
        str | None,
        typer.Option(
            "--equivalents",
            metavar="FILE",
            help="Documented equivalent/unreachable mutants. "
            "Default: docs/mutation-equivalents.yaml.",
            show_default=False,
        ),
    ] = None,
    all_tests: Annotated[
        bool,
        typer.Option(
            "--all-tests", help="Run every scenario for every mutant (no test selection)."
        ),
    ] = False,
    tests: Annotated[
        list[str] | None,
        typer.Option(
            "--tests",
            metavar="PATH",
            help="Test path (file or directory, e.g. tests/test_rules.py) run once per mutant "
            "besides the scenarios, whatever the targets (repeatable; only its tests that "
            "execute the mutated function; killed if one fails). For the oracle: rules.py, "
            "codec/. Default: none, but capture/ and wire/ files bring their unit tests.",
            show_default=False,
        ),
    ] = None,
    root: Annotated[
        str | None,
        typer.Option(
            "--root",
            metavar="DIR",
            help="The project tree (default: this one).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """``mqcn selftest mutation`` (see MUTATION_HELP)."""
    from rich.console import Console

    from mqcn_suite.selftest.mutation import MutationUsageError, SelfCheckError, run_mutation
    from mqcn_suite.selftest.report import REPORT_MD, summary_lines
    from mqcn_suite.selftest.state import STATE_FILE

    display = _Display(Console(stderr=True, highlight=False, soft_wrap=True))
    usage = (MutationUsageError,)
    with boundary(COMMAND, usage_errors=usage, interrupted="interrupted before any mutant ran"):
        options = _options(
            files,
            jobs,
            timeout,
            out,
            sample,
            seed,
            ids,
            resume,
            targets,
            min_score,
            equivalents,
            all_tests,
            root,
            tests,
            operators,
        )
        try:
            with display.live():
                outcome = run_mutation(options, display.events())
        except SelfCheckError as exc:  # the analysis cannot be trusted here: the suite's problem
            fail(COMMAND, f"error: {exc}", ExitCode.INTERNAL)
    for warning in outcome.warnings:
        typer.echo(f"{PROG} {COMMAND}: warning: {warning}", err=True)
    for line in summary_lines(outcome.document):
        typer.echo(line)
    typer.echo(f"{PROG} {COMMAND}: report {options.out / REPORT_MD}", err=True)
    if outcome.interrupted:
        fail(
            COMMAND,
            f"interrupted; finished mutants are kept in {options.out / STATE_FILE}: "
            "run the same command again to resume",
            outcome.exit_code,
        )
    raise typer.Exit(outcome.exit_code)


MUTMUT_COMMAND = "selftest mutmut"
MUTMUT_HELP = (
    "Whole-file mutation by mutmut 3 (its operators, its per-test selection): every mutant "
    "of each --file, with the fast tests that cover it, in a copy of the tree; scored whole "
    "(killed + timeout over mutants less the equivalents documented under `mutmut:` in "
    "docs/mutation-equivalents.yaml). Writes DIR/mutmut.json and DIR/mutmut.md. Exit 0: done; "
    "1: a file is below --min-score; 2: usage error (mutmut missing, no such file); 3: mutmut "
    "made no result; 130: interrupted."
)


def mutmut_command(
    files: Annotated[
        list[str] | None,
        typer.Option(
            "--file",
            metavar="PATH",
            help="A module under mqcn_model/ to mutate whole (repeatable). Default: every "
            "file whose whole-file score docs/mutation.md publishes (mqqb/, wire/, capture/, "
            "dssm.py, ldap_reads.py).",
            show_default=False,
        ),
    ] = None,
    tests: Annotated[
        list[str] | None,
        typer.Option(
            "--tests",
            metavar="PATH",
            help="Tests to kill its mutants with (repeatable; mutmut runs, per mutant, those "
            "that execute it). Default: the file's unit tests (as `selftest mutation`).",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[str, typer.Option("--jobs", metavar="N", help="Mutants run at once.")] = "2",
    out: Annotated[
        str, typer.Option("--out", metavar="DIR", help="mutmut.json and mutmut.md go here.")
    ] = "mqcn-mutation",
    min_score: Annotated[
        str | None,
        typer.Option(
            "--min-score",
            metavar="F",
            help="Exit 1 if a file's score (0-1) is below F.",
            show_default=False,
        ),
    ] = None,
    root: Annotated[
        str | None,
        typer.Option(
            "--root",
            metavar="DIR",
            help="The project tree (default: this one).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """``mqcn selftest mutmut`` (see MUTMUT_HELP)."""
    from mqcn_suite.selftest.equivalents import EquivalentsError
    from mqcn_suite.selftest.mutmut_engine import (
        REPORT_MD,
        MutmutError,
        MutmutMissing,
        run_mutmut,
        whole_files,
    )

    usage = (MutmutMissing, EquivalentsError)
    told = lambda exc: str(exc) if isinstance(exc, MutmutError) else None  # noqa: E731
    with boundary(MUTMUT_COMMAND, usage_errors=usage, interrupted="interrupted", explain=told):
        tree = project_root(root)
        files = list(files or whole_files(tree))
        for file in files:
            if not file.startswith("mqcn_model/") or not file.endswith(".py"):
                raise UsageError(f"--file {file}: a module under mqcn_model/ (a .py file)")
            if not (tree / file).is_file():
                raise UsageError(f"--file {file}: no such file in {tree}")
        threshold = _optional_float("--min-score", min_score)
        count = parse_int("--jobs", jobs)
        scores, stale = run_mutmut(
            tree,
            files,
            list(tests or ()),
            count,
            Path(out),
            lambda line: typer.echo(f"{PROG} {MUTMUT_COMMAND}: {line}", err=True),
        )
    for entry in stale:
        typer.echo(f"{PROG} {MUTMUT_COMMAND}: warning: stale equivalent: {entry}", err=True)
    typer.echo(f"{PROG} {MUTMUT_COMMAND}: report {Path(out) / REPORT_MD}", err=True)
    below = [s for s in scores if threshold is not None and (s.score or 0.0) < threshold]
    if below:
        fail(
            MUTMUT_COMMAND,
            f"below --min-score {threshold}: " + ", ".join(s.file for s in below),
            ExitCode.FOUND,
        )


def register(app: typer.Typer) -> None:
    """Add ``selftest mutation`` and ``selftest mutmut`` to ``app`` (``mqcn_suite.cli.app``)."""
    selftest = command_group(
        "selftest",
        help="The suite measuring itself: `mutation` runs the scenarios against mutants of "
        "the reference model.",
    )
    selftest.command("mutation", help=MUTATION_HELP)(mutation_command)
    selftest.command("mutmut", help=MUTMUT_HELP)(mutmut_command)
    app.add_typer(selftest, name="selftest")
