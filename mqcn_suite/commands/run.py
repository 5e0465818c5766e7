"""``mqcn run``: run every scenario against a target and write the traceability report.

Runs pytest in-process on the suite's ``steps/`` directory with ``--mqcn-target`` and
``--mqcn-report``; extra pytest arguments follow ``--`` (``mqcn run -- -m MQCN-3.2.5.1-4``).
Then prints a summary of the per-requirement verdicts and where the report files are.

Exit codes (those of every ``mqcn`` command, :class:`~mqcn_suite.commands._common.ExitCode`):

* 0 — no requirement failed (warnings, information and inconclusive ones do not count);
* 1 — some requirement failed (a MUST / MUST NOT broken, a product note broken in a profile
  the target claims, a scenario failed), or a test failed that no requirement accounts for;
* 2 — usage error: unknown target, unwritable report directory or an old report file in it
  that cannot be replaced (found before any scenario runs), pytest refused the arguments,
  a feature file tag naming no requirement (one line on stderr);
* 3 — internal error of the suite (collection errors, no report written, the report and
  pytest disagree on what ran...);
* 4 — the target broke: the run stopped after ``--max-timeouts`` consecutive timeouts (the
  scenarios not run are ``error``), or some requirement is ``error`` and none failed;
* 5 — no scenario ran (all deselected, e.g. ``-k`` matching nothing, or all skipped): every
  requirement is inconclusive or not applicable — never a silent pass.

The command is the function :func:`run`; ``mqcn_suite.cli`` registers it as ``mqcn run``.
"""

from __future__ import annotations

import json
import time
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mqcn_model.catalog import KEYWORDS
from mqcn_suite import locations
from mqcn_suite.commands._common import (
    PROG,
    ExitCode,
    UsageError,
    boundary,
    fail,
    parse_int,
)
from mqcn_suite.commands._target import (
    HELLO_TIMEOUT_DEFAULT,
    TARGET_DEFAULT,
    TIMEOUT_DEFAULT,
    CallTimeoutOption,
    HelloTimeoutOption,
    TargetOption,
    call_limits,
)
from mqcn_suite.plugin import DEFAULT_MAX_TIMEOUTS, pcap_problem
from mqcn_suite.report import (
    CUCUMBER_JSON,
    JUNIT_XML,
    REPORT_HTML,
    TRACEABILITY_JSON,
    VERDICTS,
    ReportError,
    prepare_report_dir,
)
from mqcn_suite.report.traceability import SUMMARY_KEY, inconclusive_cause, verdict_label
from mqcn_suite.report.values import value_text
from mqcn_suite.targets import (
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_TIMEOUT,
    PicsError,
    TargetError,
    load_pics,
    resolve_target,
)
from mqcn_suite.targets.ldap_mode import check_directory
from mqcn_suite.wording import hanging, plural
from mqcn_suite.world import describe_change

COMMAND = "run"
# Failing requirements listed in the summary (the HTML report lists them all).
FAILURES_SHOWN = 25
# Inconclusive requirements named per cause (a run of a few scenarios leaves most unselected).
IDS_SHOWN = 10
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

# pytest's settings for a run without a checkout (see :func:`pytest_arguments`).
INSTALLED_INI = locations.INSTALLED_INI

RUN_HELP = (
    "Run the conformance scenarios against a target and write the traceability report "
    "(traceability.json, report.html, junit.xml, cucumber.json) into the report directory. "
    "Extra pytest arguments go after --, e.g. `mqcn run -- -m MQCN-3.2.5.1-4 -x`.\n\n"
    "Exit 0: no requirement failed. Exit 1: some requirement failed. Exit 2: usage error. "
    "Exit 3: internal error. Exit 4: the target broke (timeouts stopped the run, or errors "
    "and no failure). Exit 5: no scenario ran."
)


# pytest plugins whose output has no place in a conformance run: pytest-benchmark prints a
# banner of timer settings although no scenario is a benchmark.
QUIET_PLUGINS = ("benchmark",)


def _silenced_plugins() -> list[str]:
    """``-p no:NAME`` for each installed plugin of :data:`QUIET_PLUGINS`."""
    installed = {entry.name for entry in entry_points(group="pytest11")}
    return [arg for name in QUIET_PLUGINS if name in installed for arg in ("-p", f"no:{name}")]


def suite_root() -> Path:
    """The directory holding ``features/`` and ``steps/``: the checkout the suite runs from,
    or the copy an installed wheel carries (:mod:`mqcn_suite.locations`); :class:`UsageError`
    if this installation has neither."""
    try:
        return locations.suite_root()
    except locations.SuiteTreeMissing as exc:
        raise UsageError(f"the scenarios' step definitions are not installed: {exc}") from None


def steps_dir() -> Path:
    """The suite's ``steps/`` directory; :class:`UsageError` if this installation has none."""
    steps = suite_root() / "steps"
    if not steps.is_dir():
        raise UsageError(
            f"the scenarios' step definitions are not installed: {steps} is missing "
            "(reinstall it: pip install mqcn-conformance)"
        )
    return steps


def pytest_arguments(
    target: str,
    report: Path,
    extra: list[str],
    pics: Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    claims: str = "fail",
    max_timeouts: int = DEFAULT_MAX_TIMEOUTS,
    pcap: Path | None = None,
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
    directory: str = "dict",
) -> list[str]:
    """The pytest command line ``mqcn run`` uses (absolute paths; extra arguments last).

    pytest's settings come from the checkout's ``pyproject.toml``, or where there is none
    (an installed wheel) from :data:`INSTALLED_INI`, which holds the same; either is given
    with ``-c`` so that no other configuration file around is taken up.
    """
    root = suite_root()
    arguments = [str(steps_dir()), f"--rootdir={root}"]
    ini = root / locations.PROJECT_FILE
    arguments += ["-c", str(ini if ini.is_file() else INSTALLED_INI)]
    arguments += [f"--mqcn-target={target}", f"--mqcn-report={report}"]
    if pics is not None:
        arguments.append(f"--mqcn-pics={pics}")
    if timeout != DEFAULT_TIMEOUT:
        arguments.append(f"--mqcn-timeout={timeout}")
    if hello_timeout != DEFAULT_HELLO_TIMEOUT:
        arguments.append(f"--mqcn-hello-timeout={hello_timeout}")
    if claims != "fail":
        arguments.append(f"--mqcn-claims={claims}")
    if max_timeouts != DEFAULT_MAX_TIMEOUTS:
        arguments.append(f"--mqcn-max-timeouts={max_timeouts}")
    if pcap is not None:
        arguments.append(f"--mqcn-pcap={pcap.resolve()}")
    if directory != "dict":
        arguments.append(f"--mqcn-directory={directory}")
    return [*arguments, *_silenced_plugins(), *extra]


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
    """The exit code of a run (see the module's docstring), from its document."""
    verdicts = {r["verdict"] for r in document["requirements"]}
    run_info = document["run"]
    if run_info.get("stopped"):
        return ExitCode.TARGET
    if verdicts & {"fail", "claim-fail"}:
        return ExitCode.FOUND
    if "error" in verdicts:
        return ExitCode.TARGET
    if pytest_status == pytest.ExitCode.TESTS_FAILED:
        return ExitCode.FOUND
    if run_info["passed"] + run_info["failed"] + run_info["error"] == 0:
        return ExitCode.NO_SCENARIO
    if not run_info.get("target_acted"):  # scenarios ran, yet none made the target act
        return ExitCode.NO_SCENARIO
    return ExitCode.OK


def nothing_judged(run_info: dict[str, Any]) -> str:
    """The one line of a run that judged nothing of the target (exit 5)."""
    if run_info["passed"] + run_info["failed"] + run_info["error"] == 0:
        return (
            "no scenario ran (all deselected or skipped); every requirement is inconclusive "
            f"or not applicable (exit {int(ExitCode.NO_SCENARIO)})"
        )
    return (
        f"the run exercised nothing: in none of its {run_info['passed'] + run_info['failed']} "
        "scenario runs did the target act (no delivery, initialisation or client message); "
        f"only the suite's own checks ran (exit {int(ExitCode.NO_SCENARIO)})"
    )


class RunCounter:
    """Pytest plugin object counting what pytest itself ran, item by item, to check that the
    report holds the same (a report that lost its results must never pass silently)."""

    def __init__(self) -> None:
        self.outcomes: dict[str, str] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        order = ("passed", "skipped", "failed")
        seen = self.outcomes.setdefault(report.nodeid, "passed")
        if order.index(report.outcome) > order.index(seen):
            self.outcomes[report.nodeid] = report.outcome

    def disagreement(self, document: dict[str, Any]) -> str | None:
        """What differs between pytest's count and the report's (None: they agree)."""
        run_info = document["run"]
        ran = sum(1 for o in self.outcomes.values() if o != "skipped")
        reported = run_info["passed"] + run_info["failed"] + run_info["error"]
        skipped = sum(1 for o in self.outcomes.values() if o == "skipped")
        if ran != reported or skipped != run_info["skipped"]:
            return (
                f"pytest ran {plural(ran, 'scenario')} and skipped {skipped}, the report holds "
                f"{plural(reported, 'run')} and {run_info['skipped']} skipped"
            )
        return None


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


def failing_breakdown(failing: list[dict[str, Any]]) -> str:
    """ "2 fail, 1 claim-fail, 3 error": the failing requirements by verdict, apart."""
    counts = {v: sum(r["verdict"] == v for r in failing) for v in FAILING_VERDICTS}
    return ", ".join(f"{n} {verdict}" for verdict, n in counts.items() if n)


def requirement_line(document: dict[str, Any]) -> str:
    """The one line of requirement totals; percentages are of the applicable requirements."""
    summary = document["summary"]
    testable, applicable = summary["testable"], summary["applicable"]
    parts = [
        f"Target {document['target']}: {plural(summary['total'], 'requirement')}, "
        f"{testable} testable",
    ]
    if summary["not_applicable"]:
        parts.append(f"{summary['not_applicable']} not applicable, {applicable} applicable")
    parts.append(
        f"{summary['covered']} covered by a scenario ({_percent(summary['covered'], testable)} "
        "of testable)"
    )
    parts.append(
        f"{summary['passed']} passed ({_percent(summary['passed'], applicable)} of applicable)"
    )
    parts.append(f"{summary['failed']} failed")
    parts.append(f"{summary['claim_failed']} claim-fail")
    parts.append(f"{summary['error']} error")
    return ", ".join(parts) + "."


def runs_line(run_info: dict[str, Any]) -> str:
    """The one line of scenario runs, as pytest counts them (errors apart from failures)."""
    line = (
        f"Scenario runs: {run_info['items']} ({run_info['passed']} passed, "
        f"{run_info['failed']} failed, {plural(run_info['error'], 'error')}, "
        f"{run_info['skipped']} skipped, "
        f"{run_info['deselected']} deselected"
    )
    if run_info.get("not_run"):
        line += f"; {run_info['not_run']} not run, marked error"
    line += f") in {run_info['duration']:.2f} s"
    ran = run_info["passed"] + run_info["failed"] + run_info["error"]
    if ran:
        line += f"; the target acted in {run_info.get('target_acted', 0)} of them"
    return line + "."


def print_summary(console: Console, document: dict[str, Any], report: Path) -> None:
    """The human summary of a run: table, coverage figures, failures, report files."""
    run_info = document["run"]
    console.print()
    console.print(summary_table(document))
    console.print(requirement_line(document))
    console.print(runs_line(run_info))
    failing = [r for r in document["requirements"] if r["verdict"] in FAILING_VERDICTS]
    if failing:
        console.print(
            Text(
                f"Failing requirements ({len(failing)}: {failing_breakdown(failing)}):",
                style="bold red",
            )
        )
        unreached = [
            r
            for r in failing
            if r["failures"] and all(f["message"].startswith("not run") for f in r["failures"])
        ]
        if unreached:
            console.print(
                f"  {len(unreached)} of them error because the run stopped before their "
                "scenarios (listed in the HTML report)"
            )
        failing = [r for r in failing if r not in unreached]
        for requirement in failing[:FAILURES_SHOWN]:
            head = Text("  ")
            head.append(requirement["id"], style="bold red")
            head.append(f" {requirement['verdict']}", style=VERDICT_STYLE[requirement["verdict"]])
            head.append(f" [{requirement['keyword']}] ")
            console.print(hanging(head, requirement["statement"], console.width, indent=4))
            for failure in requirement["failures"][:1]:
                first = (failure["message"].splitlines() or [""])[0]
                console.print(hanging("      ", first, console.width, style="dim"))
                if failure["envelope"]:
                    fields = ", ".join(
                        f"{f['name']} {value_text(f['value'])}" for f in failure["envelope"]
                    )
                    console.print(hanging("      envelope: ", fields, console.width, style="dim"))
                for change in failure["diff"][:5]:
                    console.print(Text(f"      {describe_change(change)}", style="dim"))
                console.print(Text(f"      replay: {failure['replay']}", style="dim"))
        if len(failing) > FAILURES_SHOWN:
            console.print(f"  ... and {len(failing) - FAILURES_SHOWN} more (see the HTML report)")
    print_claimed_not_implemented(console, document)
    print_transport_findings(console, document)
    print_inconclusive(console, document)
    print_suite_own(console, document)
    print_readings(console, document)
    console.print("Report:")
    for name in (REPORT_HTML, TRACEABILITY_JSON, JUNIT_XML, CUCUMBER_JSON):
        path = report / name
        if path.exists():
            console.print(f"  {path}")


def print_claimed_not_implemented(console: Console, document: dict[str, Any]) -> None:
    """One line per call a claimed part needed that the target answered not-implemented."""
    missing = document.get("claimed_not_implemented") or []
    if not missing:
        return
    console.print(
        Text(
            f"Claimed but not implemented ({plural(len(missing), 'call')}; each a claim-fail "
            "of the requirements its scenarios judge):",
            style="bold red",
        )
    )
    for entry in missing:
        console.print(
            f"  {entry['claim']}: {entry['call']} answered not-implemented "
            f"({plural(entry['scenarios'], 'scenario')}, "
            f"{plural(len(entry['requirements']), 'requirement')})"
        )


def print_transport_findings(console: Console, document: dict[str, Any]) -> None:
    """One line per wire rule the target broke on its MS-MQQB sessions (transport mode):
    warnings, beside the MS-MQCN verdicts."""
    found = document.get("transport_findings") or []
    if not found:
        return
    console.print(
        Text(
            f"Transport findings ({plural(len(found), 'rule')} of [MS-MQMQ] / [MS-MQQB] the "
            "target broke on its sessions; warnings, no MS-MQCN verdict counts them):",
            style="bold yellow",
        )
    )
    for entry in found:
        first = entry["examples"][0]["what"] if entry["examples"] else ""
        console.print(
            hanging(
                f"  {entry['requirement']}: ",
                f"{first} ({plural(entry['findings'], 'time')} in "
                f"{plural(entry['scenarios'], 'scenario')}, {', '.join(entry['sides'])})",
                console.width,
            )
        )


def print_suite_own(console: Console, document: dict[str, Any]) -> None:
    """How many scenarios checked only the suite itself (credited to no requirement)."""
    own = document.get("suite_own") or []
    if own:
        console.print(
            f"The suite's own checks: {plural(len(own), 'scenario')} ran without the target "
            "doing anything; no requirement's verdict counts them (listed in the HTML report)."
        )


def print_inconclusive(console: Console, document: dict[str, Any]) -> None:
    """The inconclusive requirements, named, with why nothing judged them: each one another
    requirement stopped on its own line (``MQCN-… inconclusive (stopped by MQCN-…)``), the
    others grouped by cause (``its scenarios were not selected: MQCN-…, MQCN-…``)."""
    inconclusive = [r for r in document["requirements"] if r["verdict"] == "inconclusive"]
    if not inconclusive:
        return
    console.print(
        f"Inconclusive ({plural(len(inconclusive), 'requirement')}, nothing judged them; "
        "they do not fail):"
    )
    stopped = [r for r in inconclusive if r.get("stopped_by")]
    for requirement in stopped[:FAILURES_SHOWN]:
        line = Text("  ")
        line.append(requirement["id"])
        line.append(f" {verdict_label(requirement)}", style=VERDICT_STYLE["inconclusive"])
        console.print(line)
    if len(stopped) > FAILURES_SHOWN:
        console.print(f"  ... and {len(stopped) - FAILURES_SHOWN} more (see the HTML report)")
    causes: dict[str, list[str]] = {}
    for requirement in inconclusive:
        if not requirement.get("stopped_by"):
            causes.setdefault(inconclusive_cause(requirement), []).append(requirement["id"])
    for cause, ids in causes.items():
        named = ", ".join(ids[:IDS_SHOWN])
        if len(ids) > IDS_SHOWN:
            named += f" and {len(ids) - IDS_SHOWN} more (see the HTML report)"
        head = Text(f"  {cause} ({len(ids)}): ", style=VERDICT_STYLE["inconclusive"])
        console.print(hanging(head, named, console.width, indent=4))


def print_readings(console: Console, document: dict[str, Any]) -> None:
    """One line per errata switch whose reading was observed or claimed."""
    shown = [r for r in document.get("readings", []) if r["observed"] != "not observed"]
    if not shown:
        return
    overall = document.get("readings_overall", "not observed")
    console.print(f"Readings followed (docs/errata.md): {overall}")
    for entry in shown:
        line = Text(f"  {entry['errata']} {entry['observed']}")
        if entry["claimed"]:
            line.append(f" (claimed {entry['claimed']})")
        if entry["verdict"] == "warning":
            line.append("  warning: the observations contradict the PICS claim", style="yellow")
        console.print(line)


def _check(
    target: str,
    report: Path,
    pics: Path | None,
    timeout: float,
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
    directory: str = "dict",
) -> Path:
    """Everything the run needs, checked before it starts: the report directory first (and
    the old report files in it), so that nothing -- not even the target -- starts for a run
    whose report could not be written; then the target, and ``--directory`` for it."""
    if timeout <= 0:
        raise UsageError(f"--timeout: must be a positive number of seconds, not {timeout:g}")
    try:
        prepare_report_dir(report, create=False)
    except ReportError as exc:
        raise UsageError(f"--report: {exc}") from None
    if pics is not None:
        try:
            load_pics(pics)
        except PicsError as exc:
            raise UsageError(f"--pics: {exc}") from None
    try:
        resolved = resolve_target(target, timeout=timeout, hello_timeout=hello_timeout)
    except TargetError as exc:
        raise UsageError(f"--target: {exc}") from None
    try:
        check_directory(resolved, directory)
    except TargetError as exc:
        raise UsageError(f"--directory: {exc}") from None
    finally:
        resolved.close()
    try:
        return prepare_report_dir(report)
    except ReportError as exc:
        raise UsageError(f"--report: {exc}") from None


def run(
    target: TargetOption = TARGET_DEFAULT,
    pics: Annotated[
        Path | None,
        typer.Option(
            "--pics",
            metavar="FILE",
            help="The target's PICS file (default: what the target claims in hello).",
        ),
    ] = None,
    timeout_text: CallTimeoutOption = TIMEOUT_DEFAULT,
    hello_timeout_text: HelloTimeoutOption = HELLO_TIMEOUT_DEFAULT,
    max_timeouts_text: Annotated[
        str,
        typer.Option(
            "--max-timeouts",
            metavar="N",
            help=(
                "Stop the run after N consecutive scenarios ended on a target timeout; the "
                "rest are marked error and the exit is 4 (0: never stop)."
            ),
        ),
    ] = str(DEFAULT_MAX_TIMEOUTS),
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
    pcap: Annotated[
        Path | None,
        typer.Option(
            "--pcap",
            metavar="FILE",
            help=(
                "Also write every message delivered to the target and every message its "
                "client sends into FILE (pcap), each as an MS-MQQB session on TCP port 1801."
            ),
            show_default=False,
        ),
    ] = None,
    directory_spec: Annotated[
        str,
        typer.Option(
            "--directory",
            metavar="dict|ldap|URL",
            help=(
                "Where the scenarios' directory lives: 'dict' (handed to the target in reset), "
                "'ldap' (an OpenLDAP server the suite starts, laid out as Active Directory; the "
                "reads are observed at the server) or the ldap:// URL 'mqcn directory serve' "
                "printed (docs/directory.md)."
            ),
        ),
    ] = "dict",
    pytest_args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PYTEST_ARGS", help="Extra pytest arguments, after --.", show_default=False
        ),
    ] = None,
) -> None:
    """``mqcn run``: the scenarios against ``target``, the report into ``report`` (see RUN_HELP)."""
    with boundary(COMMAND):
        timeout, hello_timeout = call_limits(timeout_text, hello_timeout_text)
        max_timeouts = parse_int("--max-timeouts", max_timeouts_text)
        directory = _check(target, report, pics, timeout, hello_timeout, directory_spec)
        if claims not in ("fail", "info"):
            raise UsageError(f"--claims: expected 'fail' or 'info', not {claims!r}")
        if max_timeouts < 0:
            raise UsageError(f"--max-timeouts: must be 0 (never stop) or more, not {max_timeouts}")
        if pcap is not None and (problem := pcap_problem(pcap.resolve())) is not None:
            raise UsageError(f"--pcap: {problem}")
        arguments = pytest_arguments(
            target,
            directory,
            list(pytest_args or []),
            pics,
            timeout,
            claims,
            max_timeouts,
            pcap,
            hello_timeout,
            directory_spec,
        )
        started = time.time() - 1  # file systems with coarse modification times
        counter = RunCounter()
        status = pytest.main(arguments, plugins=[counter])
        if status == pytest.ExitCode.USAGE_ERROR:
            raise UsageError("pytest refused the run (the reason is printed above)")
        document = read_document(directory, started)
        stopped = document is not None and document["run"].get("stopped")
        if status == pytest.ExitCode.INTERRUPTED and not stopped:
            fail(COMMAND, "interrupted (collection errors or Ctrl-C; see above)", ExitCode.INTERNAL)
        if status == pytest.ExitCode.INTERNAL_ERROR:
            fail(COMMAND, "internal error of pytest or of the suite (see above)", ExitCode.INTERNAL)
        if document is None:
            fail(
                COMMAND,
                f"internal error: no {TRACEABILITY_JSON} was written in {directory}",
                ExitCode.INTERNAL,
            )
        console = Console(highlight=False, soft_wrap=True)
        print_summary(console, document, directory)
        if pcap is not None and pcap.is_file():
            console.print(f"Capture:\n  {pcap}")
        disagreement = counter.disagreement(document)
        if disagreement is not None:
            fail(
                COMMAND,
                f"internal error: the report lost results: {disagreement}",
                ExitCode.INTERNAL,
            )
        code = exit_code(document, status)
        if stopped:
            typer.echo(f"{PROG} {COMMAND}: {stopped} (exit {int(ExitCode.TARGET)})", err=True)
        elif code == ExitCode.NO_SCENARIO:
            typer.echo(f"{PROG} {COMMAND}: {nothing_judged(document['run'])}", err=True)
        raise typer.Exit(code)
