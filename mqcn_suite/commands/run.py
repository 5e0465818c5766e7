"""``mqcn run``: run every scenario against a target and write the traceability report.

Runs pytest in-process on the suite's ``steps/`` directory with ``--mqcn-target`` and
``--mqcn-report``; extra pytest arguments follow ``--`` (``mqcn run -- -m MQCN-3.2.5.1-4``).
Then prints a summary of the per-requirement verdicts and where the report files are.

Exit codes (those of every ``mqcn`` command):

* 0 — no requirement failed (warnings, information and inconclusive ones do not count);
* 1 — some requirement failed (a MUST / MUST NOT broken, a product note broken in a profile
  the target claims, a scenario failed, or the target broke), or a test failed that no
  requirement accounts for;
* 2 — usage error: unknown target, unwritable report directory, pytest refused the arguments,
  a feature file tag naming no requirement (one line on stderr);
* 3 — internal error of the suite (collection errors, no report written...).

The command is the function :func:`run`; ``mqcn_suite.cli`` registers it as ``mqcn run``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any, NoReturn

import pytest
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

import mqcn_suite
from mqcn_model.catalog import KEYWORDS
from mqcn_suite.report import (
    CUCUMBER_JSON,
    JUNIT_XML,
    REPORT_HTML,
    TRACEABILITY_JSON,
    VERDICTS,
    ReportError,
    prepare_report_dir,
)
from mqcn_suite.report.traceability import SUMMARY_KEY
from mqcn_suite.targets import (
    DEFAULT_TIMEOUT,
    PicsError,
    TargetError,
    load_pics,
    resolve_target,
)

EXIT_CONFORMING = 0
EXIT_NONCONFORMING = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

COMMAND = "mqcn run"
# Failing requirements listed in the summary (the HTML report lists them all).
FAILURES_SHOWN = 25
VERDICT_STYLE = {
    "pass": "green",
    "fail": "bold red",
    "claim-fail": "red",
    "warning": "yellow",
    "info": "blue",
    "inconclusive": "dim",
    "not applicable": "dim",
    "error": "magenta",
    "untestable": "dim",
}

FAILING_VERDICTS = ("fail", "claim-fail", "error")

RUN_HELP = (
    "Run the conformance scenarios against a target and write the traceability report "
    "(traceability.json, report.html, junit.xml, cucumber.json) into the report directory. "
    "Extra pytest arguments go after --, e.g. `mqcn run -- -m MQCN-3.2.5.1-4 -x`.\n\n"
    "Exit 0: no requirement failed. Exit 1: some requirement failed. Exit 2: usage error. "
    "Exit 3: internal error."
)


class RunProblem(Exception):
    """The command line asks for something impossible; the message is one line for stderr."""


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(f"{COMMAND}: {message}", err=True)
    raise typer.Exit(code)


def suite_root() -> Path:
    """The checkout the suite runs from: the directory holding ``mqcn_suite/`` and ``steps/``."""
    return Path(mqcn_suite.__file__).resolve().parent.parent


def steps_dir() -> Path:
    """The suite's ``steps/`` directory; :class:`RunProblem` if this installation has none."""
    steps = suite_root() / "steps"
    if not steps.is_dir():
        raise RunProblem(
            f"the scenarios' step definitions are not installed: {steps} is missing "
            "(run mqcn from a checkout of mqcn-conformance, installed with pip install -e)"
        )
    return steps


def pytest_arguments(
    target: str,
    report: Path,
    extra: list[str],
    pics: Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    claims: str = "fail",
) -> list[str]:
    """The pytest command line ``mqcn run`` uses (absolute paths; extra arguments last)."""
    root = suite_root()
    arguments = [str(steps_dir()), f"--rootdir={root}"]
    ini = root / "pyproject.toml"
    if ini.is_file():
        arguments += ["-c", str(ini)]
    else:  # no project file: give pytest-bdd and pytest what it would have said
        arguments += ["-o", f"bdd_features_base_dir={root / 'features'}/", "--strict-markers"]
    arguments += [f"--mqcn-target={target}", f"--mqcn-report={report}"]
    if pics is not None:
        arguments.append(f"--mqcn-pics={pics}")
    if timeout != DEFAULT_TIMEOUT:
        arguments.append(f"--mqcn-timeout={timeout}")
    if claims != "fail":
        arguments.append(f"--mqcn-claims={claims}")
    return [*arguments, *extra]


def read_document(report: Path, not_before: float) -> dict[str, Any] | None:
    """The traceability document this run wrote (None if it wrote none)."""
    path = report / TRACEABILITY_JSON
    try:
        if path.stat().st_mtime < not_before:
            return None  # left by an earlier run
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None


def exit_code(document: dict[str, Any], pytest_status: int) -> int:
    """0 if no requirement failed (and no test failed), else 1."""
    failing = [r for r in document["requirements"] if r["verdict"] in FAILING_VERDICTS]
    if failing or pytest_status == pytest.ExitCode.TESTS_FAILED:
        return EXIT_NONCONFORMING
    return EXIT_CONFORMING


def summary_table(document: dict[str, Any]) -> Table:
    """Requirements counted by verdict (rows) and keyword (columns), with coverage figures."""
    summary = document["summary"]
    keywords = [k for k in KEYWORDS if summary["by_keyword"][k]["total"]]
    table = Table(title="Requirements by verdict and keyword", title_justify="left")
    table.add_column("")
    for keyword in keywords:
        table.add_column(keyword, justify="right")
    table.add_column("all", justify="right", style="bold")
    blocks = [summary["by_keyword"][k] for k in keywords] + [summary]

    def row(key: str) -> list[str]:
        return [str(block[key] or "·") for block in blocks]

    for name in ("total", "testable", "covered"):
        table.add_row(name, *row(name))
    table.add_section()
    for verdict in VERDICTS:
        table.add_row(Text(verdict, style=VERDICT_STYLE[verdict]), *row(SUMMARY_KEY[verdict]))
    return table


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def print_summary(console: Console, document: dict[str, Any], report: Path) -> None:
    """The human summary of a run: table, coverage figures, failures, report files."""
    summary, run_info = document["summary"], document["run"]
    console.print()
    console.print(summary_table(document))
    testable = summary["testable"]
    console.print(
        f"Target {document['target']}: {summary['total']} requirements, {testable} testable, "
        f"{summary['covered']} covered by a scenario ({_percent(summary['covered'], testable)}), "
        f"{summary['passed']} passed ({_percent(summary['passed'], testable)}), "
        f"{summary['failed']} failed"
        + (f", {summary['claim_failed']} broken claims." if summary["claim_failed"] else ".")
    )
    console.print(
        f"Scenario runs: {run_info['items']} ({run_info['passed']} passed, "
        f"{run_info['failed']} failed, {run_info['skipped']} skipped, {run_info['error']} errors, "
        f"{run_info['deselected']} deselected) in {run_info['duration']:.2f} s."
    )
    failing = [r for r in document["requirements"] if r["verdict"] in FAILING_VERDICTS]
    if failing:
        console.print(Text(f"Failing requirements ({len(failing)}):", style="bold red"))
        for requirement in failing[:FAILURES_SHOWN]:
            line = Text("  ")
            line.append(requirement["id"], style="bold red")
            line.append(f" [{requirement['keyword']}] {requirement['statement']}")
            console.print(line)
            for failure in requirement["failures"][:1]:
                console.print(Text(f"      {failure['message'].splitlines()[0]}", style="dim"))
                console.print(Text(f"      replay: {failure['replay']}", style="dim"))
        if len(failing) > FAILURES_SHOWN:
            console.print(f"  ... and {len(failing) - FAILURES_SHOWN} more (see the HTML report)")
    print_readings(console, document)
    console.print("Report:")
    for name in (REPORT_HTML, TRACEABILITY_JSON, JUNIT_XML, CUCUMBER_JSON):
        path = report / name
        if path.exists():
            console.print(f"  {path}")


def print_readings(console: Console, document: dict[str, Any]) -> None:
    """One line per errata switch whose reading was observed or claimed."""
    shown = [r for r in document.get("readings", []) if r["observed"] != "not observed"]
    if not shown:
        return
    console.print("Readings followed (docs/errata.md):")
    for entry in shown:
        line = Text(f"  {entry['errata']} {entry['observed']}")
        if entry["claimed"]:
            line.append(f" (claimed {entry['claimed']})")
        if entry["verdict"] == "warning":
            line.append("  warning: the observations contradict the PICS claim", style="yellow")
        console.print(line)


def _check(target: str, report: Path, pics: Path | None, timeout: float) -> Path:
    if timeout <= 0:
        raise RunProblem(f"--timeout: must be a positive number of seconds, not {timeout:g}")
    if pics is not None:
        try:
            load_pics(pics)
        except PicsError as exc:
            raise RunProblem(f"--pics: {exc}") from None
    try:
        resolve_target(target, timeout=timeout).close()
    except TargetError as exc:
        raise RunProblem(f"--target: {exc}") from None
    try:
        return prepare_report_dir(report)
    except ReportError as exc:
        raise RunProblem(f"--report: {exc}") from None


def run(
    target: Annotated[
        str,
        typer.Option(
            "--target",
            metavar="TARGET",
            help=(
                "The implementation to judge: 'reference' (the embedded model), "
                "'python:package.module:factory' or 'exec:COMMAND ARGS...' "
                "(docs/adapter-protocol.md)."
            ),
        ),
    ] = "reference",
    pics: Annotated[
        Path | None,
        typer.Option(
            "--pics",
            metavar="FILE",
            help="The target's PICS file (default: what the target claims in hello).",
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option("--timeout", metavar="SECONDS", help="Time limit of one call to the target."),
    ] = DEFAULT_TIMEOUT,
    claims: Annotated[
        str,
        typer.Option(
            "--claims",
            metavar="fail|info",
            help=(
                "A product-behaviour note broken in a profile the target claims: 'fail' "
                "(verdict claim-fail, exit 1) or 'info'."
            ),
        ),
    ] = "fail",
    report: Annotated[
        Path,
        typer.Option(
            "--report", metavar="DIR", help="Where to write the report files (created if missing)."
        ),
    ] = Path("mqcn-report"),
    pytest_args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PYTEST_ARGS", help="Extra pytest arguments, after --.", show_default=False
        ),
    ] = None,
) -> None:
    """``mqcn run``: the scenarios against ``target``, the report into ``report`` (see RUN_HELP)."""
    try:
        directory = _check(target, report, pics, timeout)
        if claims not in ("fail", "info"):
            raise RunProblem(f"--claims: expected 'fail' or 'info', not {claims!r}")
        arguments = pytest_arguments(
            target, directory, list(pytest_args or []), pics, timeout, claims
        )
        started = time.time() - 1  # file systems with coarse modification times
        status = pytest.main(arguments)
        if status == pytest.ExitCode.USAGE_ERROR:
            raise RunProblem("pytest refused the run (the reason is printed above)")
        if status == pytest.ExitCode.INTERRUPTED:
            _fail("interrupted (collection errors or Ctrl-C; see above)", EXIT_INTERNAL)
        if status == pytest.ExitCode.INTERNAL_ERROR:
            _fail("internal error of pytest or of the suite (see above)", EXIT_INTERNAL)
        document = read_document(directory, started)
        if document is None:
            _fail(
                f"internal error: no {TRACEABILITY_JSON} was written in {directory}", EXIT_INTERNAL
            )
        print_summary(Console(highlight=False, soft_wrap=True), document, directory)
        if status == pytest.ExitCode.NO_TESTS_COLLECTED:
            typer.echo(
                f"{COMMAND}: note: no scenario was selected; every requirement is inconclusive"
            )
    except (typer.Exit, BrokenPipeError):
        raise
    except RunProblem as exc:
        _fail(f"error: {exc}", EXIT_USAGE)
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except Exception as exc:
        _fail(f"internal error: {type(exc).__name__}: {exc}", EXIT_INTERNAL)
    raise typer.Exit(exit_code(document, status))
