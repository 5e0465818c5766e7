"""The pytest plugin of mqcn-conformance (entry point ``pytest11: mqcn``).

* registers every requirement ID of the catalog as a marker, so scenario tags
  (``@MQCN-2.2.4-3``) are markers usable with ``-m`` and accepted by ``--strict-markers``;
* adds ``--mqcn-target`` (which implementation to judge) and the ``target`` / ``world``
  fixtures the step definitions use;
* after each scenario, stores what the world recorded (checks, messages) on the test item
  for the traceability report;
* before collecting the scenarios, checks every tag of the feature files that looks like a
  requirement ID names one of the catalog (a usage error otherwise, before anything runs);
* with ``--mqcn-report DIR``: collects every item's outcome and, at the end of the session,
  writes ``DIR/traceability.json`` and ``DIR/report.html`` (per-requirement verdicts over the
  whole catalog), with pytest's ``DIR/junit.xml`` and pytest-bdd's ``DIR/cucumber.json``,
  both rewritten from the report once written (:mod:`mqcn_suite.report.ci`: failures as
  the report explains them, scenarios a stopped run never reached as skipped);
* with ``--mqcn-pcap FILE``: writes every message a scenario delivers to the target and every
  message the target's client sends into FILE, each as an MS-MQQB session
  (:class:`PcapRecorder`); under pytest-xdist each worker writes ``FILE.<worker>.part`` and
  the controller joins the parts into FILE (:class:`_PcapMerger`).
"""

from __future__ import annotations

import json
import os
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from mqcn_model.capture import PcapWriter, Unwritable
from mqcn_model.capture.inet import RECORD_HEADER_SIZE, pcap_header, record_ticks, retimed
from mqcn_model.catalog import CATALOG
from mqcn_model.envelope import Envelope
from mqcn_suite.coverage import Coverage, CoverageError, load_coverage
from mqcn_suite.report import (
    CUCUMBER_JSON,
    JUNIT_XML,
    REPORT_HTML,
    ReportError,
    ResultCollector,
    build_traceability,
    prepare_report_dir,
    write_report,
)
from mqcn_suite.report.ci import rewrite_cucumber, rewrite_junit
from mqcn_suite.report.results import (
    BDD_PROPERTY,
    ITEM_PROPERTY,
    PHASE_PROPERTY,
    REPORT_PROPERTY,
    STOPPED_PROPERTY,
    WORKER_DESELECTED,
    WORKER_ITEMS,
    item_metadata,
    phase_outcome,
)
from mqcn_suite.step_lookup import install as install_step_lookup
from mqcn_suite.targets import (
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_TIMEOUT,
    ClaimsGuard,
    NotApplicable,
    PicsError,
    Target,
    TargetError,
    load_pics,
    pics_of,
    resolve_target,
)
from mqcn_suite.targets.ldap_mode import with_directory
from mqcn_suite.targets.transport_mode import listener_address, transport_mode_of, with_transport
from mqcn_suite.targets.transport_pcap import transcript_records
from mqcn_suite.transport import Transcript
from mqcn_suite.transport.transcript import IN, OUT
from mqcn_suite.wording import plural
from mqcn_suite.world import World, stopped_label

__all__ = ["REPORT_PROPERTY", "mqcn_target", "world"]

_TARGET_SPEC = pytest.StashKey[str]()
_TARGET = pytest.StashKey[ClaimsGuard]()
_REPORT_DIR = pytest.StashKey[Path]()
_COLLECTOR = pytest.StashKey[ResultCollector]()
_COVERAGE = pytest.StashKey[Coverage]()
_STARTED = pytest.StashKey[float]()
_WRITTEN = pytest.StashKey[Path]()
_TIMEOUTS = pytest.StashKey["_TimeoutCount"]()
_DESELECTED = pytest.StashKey[int]()
_SCENARIO = pytest.StashKey[bool]()  # on an item: it is a scenario (it uses the world)
_PCAP = pytest.StashKey["PcapRecorder"]()
_PCAP_MERGER = pytest.StashKey["_PcapMerger"]()
_LISTENERS = pytest.StashKey["_ListenerNotes"]()
LISTENER_ADDRESS = "mqcn_listener"  # workeroutput: the worker's queue manager, host:port

PCAP_COUNTS = "mqcn-pcap"  # a pytest-xdist worker's pcap counts, for the controller
PART_GAP = 1.0  # seconds between the last frame of a worker's part and the next part's first
DEFAULT_MAX_TIMEOUTS = 3
# The reason a run stopped because the target kept timing out starts with this.
STOP_PREFIX = "mqcn: the target timed out"


class _TimeoutCount:
    """Consecutive scenarios that ended on a target timeout (one count per process: each
    pytest-xdist worker drives its own target)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_a_row = 0
        self.current_timed_out = False
        self.current_ran = False


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mqcn", "MS-MQCN conformance")
    group.addoption(
        "--mqcn-target",
        default="reference",
        help=(
            "implementation to judge: 'reference' (default, the embedded model), "
            "'python:package.module:factory' or 'exec:COMMAND ARGS...' (docs/adapter-protocol.md)"
        ),
    )
    group.addoption(
        "--mqcn-pics",
        metavar="FILE",
        default=None,
        help="the target's PICS file (YAML/JSON); default: what the target claims itself",
    )
    group.addoption(
        "--mqcn-timeout",
        metavar="SECONDS",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"time limit of one call to an exec: target (default {DEFAULT_TIMEOUT:g} s)",
    )
    group.addoption(
        "--mqcn-hello-timeout",
        metavar="SECONDS",
        type=float,
        default=DEFAULT_HELLO_TIMEOUT,
        help=(
            "time limit of an exec: target's hello, which includes the program's start "
            f"(default {DEFAULT_HELLO_TIMEOUT:g} s)"
        ),
    )
    group.addoption(
        "--mqcn-max-timeouts",
        metavar="N",
        type=int,
        default=DEFAULT_MAX_TIMEOUTS,
        help=(
            "stop the run after N consecutive scenarios ended on a target timeout; the "
            f"scenarios not run are marked error (default {DEFAULT_MAX_TIMEOUTS}; 0: never stop)"
        ),
    )
    group.addoption(
        "--mqcn-claims",
        choices=("fail", "info"),
        default="fail",
        help=(
            "a product-behaviour note broken in a profile the target claims: 'fail' "
            "(default, verdict claim-fail, counted in the exit code) or 'info'"
        ),
    )
    group.addoption(
        "--mqcn-reading-claims",
        choices=("warn", "fail"),
        default="warn",
        help=(
            "a scenario seeing the target follow an errata reading its PICS does not claim: "
            "'warn' (default: a warning in the report's Readings followed) or 'fail' "
            "(claim-fail; the suite's mutation analysis uses it)"
        ),
    )
    group.addoption(
        "--mqcn-pcap",
        metavar="FILE",
        default=None,
        help=(
            "write every message delivered to the target and every message its client sends "
            "into FILE (pcap), each as an MS-MQQB session on TCP port 1801"
        ),
    )
    group.addoption(
        "--mqcn-directory",
        metavar="dict|ldap|URL",
        default="dict",
        help=(
            "where the scenarios' directory lives: 'dict' (default: handed to the target in "
            "reset), 'ldap' (an OpenLDAP server the suite starts, laid out as Active "
            "Directory; reads observed at the server) or the ldap:// URL of a server "
            "'mqcn directory serve' started (docs/directory.md)"
        ),
    )
    group.addoption(
        "--mqcn-report",
        metavar="DIR",
        default=None,
        help=(
            "write the traceability report into DIR: traceability.json, report.html, "
            "junit.xml and cucumber.json (created if missing)"
        ),
    )


@pytest.hookimpl(tryfirst=True)  # before junitxml / pytest-bdd read their output paths
def pytest_configure(config: pytest.Config) -> None:
    install_step_lookup()  # each step's definition looked up once (mqcn_suite.step_lookup)
    for requirement in CATALOG.values():
        config.addinivalue_line(
            "markers", f"{requirement.id}: [{requirement.keyword}] {requirement.statement}"
        )
    spec = config.getoption("--mqcn-target", default="reference")
    config.stash[_TARGET_SPEC] = spec
    timeout = config.getoption("--mqcn-timeout", default=DEFAULT_TIMEOUT)
    if timeout is None or timeout <= 0:
        raise pytest.UsageError(
            f"--mqcn-timeout: must be a positive number of seconds, not {timeout}"
        )
    hello_timeout = config.getoption("--mqcn-hello-timeout", default=DEFAULT_HELLO_TIMEOUT)
    if hello_timeout is None or hello_timeout <= 0:
        raise pytest.UsageError(
            f"--mqcn-hello-timeout: must be a positive number of seconds, not {hello_timeout}"
        )
    max_timeouts = config.getoption("--mqcn-max-timeouts", default=DEFAULT_MAX_TIMEOUTS)
    if max_timeouts is None or max_timeouts < 0:
        raise pytest.UsageError(
            f"--mqcn-max-timeouts: must be 0 (never stop) or a positive number, not {max_timeouts}"
        )
    config.stash[_TIMEOUTS] = _TimeoutCount(max_timeouts)
    pics_file = config.getoption("--mqcn-pics", default=None)
    try:
        pics = load_pics(Path(pics_file)) if pics_file else None
    except PicsError as exc:
        raise pytest.UsageError(f"--mqcn-pics: {exc}") from None
    try:
        # Started here so that an unusable target fails before anything runs.
        target = resolve_target(spec, timeout=timeout, hello_timeout=hello_timeout)
    except TargetError as exc:
        raise pytest.UsageError(f"--mqcn-target: {exc}") from None
    try:
        claims = pics if pics is not None else pics_of(target)
    except PicsError as exc:
        target.close()
        raise pytest.UsageError(f"--mqcn-target: {exc}") from None
    try:  # a target that declared a transport is driven through it (protocol version 2)
        target = with_transport(target, timeout)
    except TargetError as exc:
        target.close()
        raise pytest.UsageError(f"--mqcn-target: {exc}") from None
    directory = config.getoption("--mqcn-directory", default="dict")
    if not _xdist_controller(config):  # each xdist worker brings a directory of its own
        try:
            target = with_directory(target, directory)
        except TargetError as exc:
            target.close()
            raise pytest.UsageError(f"--mqcn-directory: {exc}") from None
    elif directory not in ("dict", "ldap"):  # a served directory: workers cannot share it
        target.close()
        raise pytest.UsageError(
            f"--mqcn-directory {directory}: a directory `mqcn directory serve` runs serves one "
            "run at a time, not pytest-xdist workers: run without -n (or use --directory ldap)"
        )
    config.stash[_TARGET] = ClaimsGuard(target, claims)
    if _xdist_controller(config):
        target.close()  # each pytest-xdist worker starts and drives its own target
        config.pluginmanager.register(_BddCarrier(), "mqcn-bdd-carrier")
    if transport_mode_of(target) is not None:
        notes = config.stash[_LISTENERS] = _ListenerNotes()
        if _xdist_controller(config):
            config.pluginmanager.register(notes, "mqcn-listener-notes")
    _configure_pcap(config)
    report = config.getoption("--mqcn-report", default=None)
    if report is None or hasattr(config, "workerinput"):
        return
    try:
        directory = prepare_report_dir(report)
    except ReportError as exc:
        raise pytest.UsageError(f"--mqcn-report: {exc}") from None
    config.stash[_REPORT_DIR] = directory
    if not getattr(config.option, "xmlpath", None):
        config.option.xmlpath = str(directory / JUNIT_XML)
    if not getattr(config.option, "cucumber_json_path", None):
        config.option.cucumber_json_path = str(directory / CUCUMBER_JSON)
    collector = ResultCollector(config.rootpath)
    config.stash[_COLLECTOR] = collector
    config.pluginmanager.register(collector, "mqcn-report-collector")


def _xdist_controller(config: pytest.Config) -> bool:
    """Is this the pytest-xdist controller (which runs no test; its workers do)?"""
    if hasattr(config, "workerinput"):
        return False
    return getattr(config.option, "dist", "no") != "no" and bool(
        getattr(config.option, "numprocesses", None) or getattr(config.option, "tx", None)
    )


def run_options(config: pytest.Config) -> dict[str, str]:
    """The options that shaped the run, as a replay command must repeat them."""
    options: dict[str, str] = {}
    timeout = config.getoption("--mqcn-timeout", default=DEFAULT_TIMEOUT)
    if timeout != DEFAULT_TIMEOUT:
        options["--mqcn-timeout"] = f"{timeout:g}"
    hello_timeout = config.getoption("--mqcn-hello-timeout", default=DEFAULT_HELLO_TIMEOUT)
    if hello_timeout != DEFAULT_HELLO_TIMEOUT:
        options["--mqcn-hello-timeout"] = f"{hello_timeout:g}"
    pics = config.getoption("--mqcn-pics", default=None)
    if pics:
        options["--mqcn-pics"] = str(Path(pics).resolve())
    claims = config.getoption("--mqcn-claims", default="fail")
    if claims != "fail":
        options["--mqcn-claims"] = claims
    directory = config.getoption("--mqcn-directory", default="dict")
    if directory != "dict":
        options["--mqcn-directory"] = directory
    return options


def features_dir(config: pytest.Config) -> Path:
    """The directory pytest-bdd reads feature files from (ini ``bdd_features_base_dir``)."""
    try:
        configured = config.getini("bdd_features_base_dir")
    except ValueError:
        configured = ""
    return config.rootpath / (configured or "features")


def _overlaps(argument: str, directory: Path, invocation: Path) -> bool:
    """Does the command-line path ``argument`` include, or lie inside, ``directory``?"""
    path = Path(argument.split("::", 1)[0])
    path = (path if path.is_absolute() else invocation / path).resolve()
    directory = directory.resolve()
    return path == directory or directory in path.parents or path in directory.parents


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """Refuse feature files whose tags name no requirement, before any scenario is collected."""
    config = session.config
    directory = features_dir(config)
    reporting = _REPORT_DIR in config.stash
    steps = directory.parent / "steps"
    invocation = config.invocation_params.dir
    if not reporting and not any(_overlaps(arg, steps, invocation) for arg in config.args):
        return
    try:
        config.stash[_COVERAGE] = load_coverage(directory)
    except CoverageError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[_STARTED] = time.perf_counter()


def stop_reason(session: pytest.Session) -> str | None:
    """Why the run stopped early because the target kept timing out (None: it did not)."""
    for reason in (session.shouldfail, session.shouldstop):
        if isinstance(reason, str) and STOP_PREFIX in reason:
            return reason[reason.index(STOP_PREFIX) :]
    return None


# --- --mqcn-pcap: the messages of the run as MS-MQQB sessions --------------------------------


def pcap_problem(path: Path) -> str | None:
    """Why ``path`` cannot take the capture (None: it can), checked before anything runs."""
    if path.is_dir():
        return f"{path} is a directory"
    parent = path.parent
    if not parent.is_dir():
        return f"{parent} is not a directory"
    if path.exists() and not os.access(path, os.W_OK):
        return f"{path} cannot be replaced (permission denied)"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot write in {parent} (permission denied)"
    return None


class PcapRecorder:
    """This process's pcap: each Envelope the world reports goes out as an MS-MQQB session
    (:class:`mqcn_model.capture.PcapWriter`, one session per message), appended to the file
    as it comes, so the capture never sits in memory.  An Envelope no session can carry (an
    XML digital signature travels over SRMP, not MS-MQQB) is counted, not written.

    The capture runs on the writer's own clock, 100 µs a frame, so its times never go back:
    an ``arrival_time`` an envelope carries (a target's client may set one) is not on the
    wire, and following it could step the clock back.  Under pytest-xdist each worker is a
    lane of its writer (``lane`` of ``lanes``), so the joined file's sessions keep distinct
    4-tuples and initial sequence numbers."""

    def __init__(self, path: Path, lane: int = 0, lanes: int = 1) -> None:
        self.path = path
        self.writer = PcapWriter(lane=lane, lanes=lanes)
        self.file: BinaryIO | None = path.open("wb")
        self.file.write(self.writer.header())
        self.counts = {"delivered": 0, "sent": 0, "unwritable": 0}
        self.unwritable: list[str] = []

    def record(self, envelope: Envelope, kind: str) -> None:
        if self.file is None:
            return
        try:
            data = self.writer.write(envelope.with_(arrival_time=0.0))
        except Unwritable as exc:
            self.counts["unwritable"] += 1
            self.unwritable.append(str(exc))
            return
        self.file.write(data)
        self.counts[kind] += 1

    def record_transcript(self, transcript: Transcript, initiated: bool) -> None:
        """Transport mode: the bytes a real session carried, at their real times."""
        if self.file is None:
            return
        data, _ = transcript_records(transcript, initiated)
        self.file.write(data)
        kind, direction = ("delivered", OUT) if initiated else ("sent", IN)
        self.counts[kind] += sum(
            "UserMessage" in e.summary for e in transcript.entries if e.direction == direction
        )

    def close(self) -> None:
        if self.file is not None:
            self.file.write(self.writer.close())
            self.file.close()
            self.file = None


class _PcapMerger:
    """pytest-xdist controller: joins the workers' parts into the one capture.

    Every worker's clock starts at the same instant; the join moves each part's times so it
    begins :data:`PART_GAP` seconds after the previous part's last frame, so times never go
    back through the file, whatever each worker wrote."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.counts = {"delivered": 0, "sent": 0, "unwritable": 0}
        self.unwritable: list[str] = []
        self.parts: list[Path] = []

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", None) or {}
        data = output.get(PCAP_COUNTS)
        if data:
            counts = json.loads(data)
            for key in self.counts:
                self.counts[key] += counts[key]
            self.unwritable += counts["messages"]
            self.parts.append(Path(counts["part"]))

    def merge(self) -> None:
        """One pcap: a global header, then each part's records in worker order, retimed."""
        header = pcap_header()
        gap = round(PART_GAP * 1_000_000)
        last: int | None = None  # the time of the last record written (microseconds)
        with self.path.open("wb") as out:
            out.write(header)
            for part in sorted(self.parts, key=lambda p: int(p.name.rsplit(".", 2)[-2][2:])):
                with part.open("rb") as source:
                    source.seek(len(header))
                    shift: int | None = None
                    while len(record := source.read(RECORD_HEADER_SIZE)) == RECORD_HEADER_SIZE:
                        ticks, captured = record_ticks(record)
                        if shift is None:
                            shift = 0 if last is None else last + gap - ticks
                        last = ticks + shift
                        out.write(retimed(record, last) + source.read(captured))
                    out.write(record)  # nothing, or the bytes of a cut record (read as such)
                part.unlink()


def _configure_pcap(config: pytest.Config) -> None:
    pcap = config.getoption("--mqcn-pcap", default=None)
    if not pcap:
        return
    final = Path(pcap).resolve()
    problem = pcap_problem(final)
    if problem is not None:
        raise pytest.UsageError(f"--mqcn-pcap: {problem}")
    if _xdist_controller(config):
        merger = _PcapMerger(final)
        config.stash[_PCAP_MERGER] = merger
        config.pluginmanager.register(merger, "mqcn-pcap-merger")
        return
    workerinput = getattr(config, "workerinput", {})
    worker = workerinput.get("workerid")
    if worker is None:
        config.stash[_PCAP] = PcapRecorder(final)
        return
    part = final.with_name(f"{final.name}.{worker}.part")
    index = int(worker.removeprefix("gw") or 0)
    # a worker started to replace a crashed one (gwN, N >= the count) still gets a valid lane;
    # its ports may then meet a surviving worker's (the crashed worker's part is not joined)
    lanes = max(int(workerinput.get("workercount", 1)), index + 1)
    config.stash[_PCAP] = PcapRecorder(part, lane=index, lanes=lanes)


def _finish_pcap(config: pytest.Config) -> None:
    recorder = config.stash.get(_PCAP, None)
    if recorder is not None and recorder.file is not None:
        recorder.close()
        workeroutput = getattr(config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[PCAP_COUNTS] = json.dumps(
                {**recorder.counts, "messages": recorder.unwritable, "part": str(recorder.path)}
            )
    merger = config.stash.get(_PCAP_MERGER, None)
    if merger is not None:
        merger.merge()


def pcap_summary(config: pytest.Config) -> str | None:
    """The one line a run with ``--mqcn-pcap`` ends with (None without it)."""
    source = config.stash.get(_PCAP, None) or config.stash.get(_PCAP_MERGER, None)
    if source is None:
        return None
    path, counts = source.path, source.counts
    written = counts["delivered"] + counts["sent"]
    line = (
        f"mqcn pcap: {path}: {plural(written, 'message')} as MS-MQQB sessions "
        f"({counts['delivered']} delivered to the target, {counts['sent']} sent by its client)"
    )
    if counts["unwritable"]:
        line += (
            f"; {counts['unwritable']} not written, no MS-MQQB session can carry them "
            f"(first: {source.unwritable[0]})"
        )
    return line


# --- every process: what each report carries, and the timeout rule --------------------------


def not_applicable_is_a_skip(exc: NotApplicable) -> pytest.skip.Exception:
    """The pytest skip a target's :class:`~mqcn_suite.targets.base.NotApplicable` becomes:
    the same reason (``not applicable: ...``, the report's verdict), raised where the target
    raised it.  The targets know nothing of pytest (they also run on Spark executors)."""
    return pytest.skip.Exception(str(exc)).with_traceback(exc.__traceback__)


def _not_applicable_as_skip() -> Generator[None, Any, Any]:
    """The body of the three wrappers below: the phase's result, or its NotApplicable as
    a skip."""
    try:
        return (yield)
    except NotApplicable as exc:
        raise not_applicable_is_a_skip(exc) from None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Any:
    """A scenario whose fixtures meet a target's NotApplicable is skipped."""
    return (yield from _not_applicable_as_skip())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """A scenario whose steps meet a target's NotApplicable is skipped."""
    return (yield from _not_applicable_as_skip())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """A target's NotApplicable while a scenario is torn down is a skip too."""
    return (yield from _not_applicable_as_skip())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    """Annotate each phase's report for the report (also across pytest-xdist), shorten what
    the suite's own transport raised to one line, and note target timeouts."""
    report = yield
    phase = phase_outcome(call, report)
    if not item.stash.get(_SCENARIO, False):
        phase["target_error"] = phase["timeout"] = False  # not a scenario: pytest's own terms
        if phase["outcome"] == "error" and report.when == "call":
            phase["outcome"] = "failed"
    report.user_properties.append((PHASE_PROPERTY, json.dumps(phase)))
    if hasattr(item.config, "workerinput"):
        if report.when == "setup":
            metadata = item_metadata(item, item.config.rootpath)
            report.user_properties.append((ITEM_PROPERTY, json.dumps(metadata)))
        elif report.when == "call":
            _carry_bdd_report(item, report)
    if phase["target_error"] and call.excinfo is not None:
        first = str(call.excinfo.value).splitlines()[0] if str(call.excinfo.value) else ""
        report.longrepr = (
            f"{call.excinfo.typename}: {first} (stderr and the exchange: in the mqcn report)"
        )
    count = item.config.stash.get(_TIMEOUTS, None)
    if count is not None:
        if phase.get("timeout"):
            count.current_timed_out = True
        elif report.when == "call":
            count.current_ran = True
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """After N consecutive scenarios ended on a target timeout, stop the run."""
    count = item.config.stash.get(_TIMEOUTS, None)
    if count is not None:
        count.current_timed_out = count.current_ran = False
    result = yield
    if count is None:
        return result
    if count.current_timed_out:
        count.in_a_row += 1
    elif count.current_ran:
        count.in_a_row = 0
    if count.limit and count.in_a_row >= count.limit and not item.session.shouldfail:
        item.session.shouldfail = (
            f"{STOP_PREFIX} {count.in_a_row} times in a row (--mqcn-max-timeouts "
            f"{count.limit}): run stopped; the scenarios not run are marked error"
        )
    return result


def _carry_bdd_report(item: pytest.Item, report: pytest.TestReport) -> None:
    """pytest-bdd keeps a scenario's report for cucumber.json beside the TestReport, where
    pytest-xdist does not carry it: put it in the report for the controller."""
    from pytest_bdd.reporting import scenario_reports_registry

    scenario = scenario_reports_registry.get(item)
    if scenario is not None:
        report.user_properties.append((BDD_PROPERTY, json.dumps(scenario.serialize())))


class _ListenerNotes:
    """Transport mode: where the suite's queue manager listened, per process (pytest-xdist
    controller: each worker's, from its workeroutput); the run ends with a line naming them."""

    def __init__(self) -> None:
        self.workers: dict[str, str] = {}

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        address = (getattr(node, "workeroutput", None) or {}).get(LISTENER_ADDRESS)
        if address:
            self.workers[node.workerinput["workerid"]] = address

    def line(self) -> str | None:
        """``mqcn transport: ...`` (None: the suite's queue manager never listened)."""
        if self.workers:
            where = ", ".join(f"{w} {a}" for w, a in sorted(self.workers.items()))
        else:
            where = listener_address() or ""
        return f"mqcn transport: the suite's queue manager listened on {where}" if where else None


class _BddCarrier:
    """pytest-xdist controller: gives pytest-bdd back the scenario report a worker carried."""

    @pytest.hookimpl(tryfirst=True)  # before pytest-bdd's cucumber.json and junit.xml read it
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for index, (name, value) in enumerate(report.user_properties):
            if name == BDD_PROPERTY:
                from pytest_bdd.reporting import ReportContext, test_report_context_registry

                del report.user_properties[index]
                test_report_context_registry[report] = ReportContext(
                    scenario=json.loads(value), name=report.nodeid.rpartition("::")[2]
                )
                return


def pytest_report_teststatus(report: pytest.TestReport) -> tuple[str, str, str] | None:
    """A scenario the target broke is an error, not a failure, in pytest's counts too."""
    if report.when == "call" and report.failed:
        for name, value in report.user_properties:
            if name == PHASE_PROPERTY and json.loads(value).get("target_error"):
                return "error", "E", "ERROR"
    return None


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        config = items[0].config
        config.stash[_DESELECTED] = config.stash.get(_DESELECTED, 0) + len(items)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """pytest-xdist worker: hand every collected item's metadata to the controller."""
    config = session.config
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is None:
        return
    workeroutput[WORKER_ITEMS] = json.dumps(
        [item_metadata(item, config.rootpath) for item in session.items]
    )
    workeroutput[WORKER_DESELECTED] = config.stash.get(_DESELECTED, 0)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """With ``--mqcn-report``: compute every requirement's verdict and write the report.
    With ``--mqcn-pcap``: close this process's capture (the controller joins the parts)."""
    config = session.config
    _finish_pcap(config)
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None and _LISTENERS in config.stash:
        workeroutput[LISTENER_ADDRESS] = listener_address()
    directory = config.stash.get(_REPORT_DIR, None)
    collector = config.stash.get(_COLLECTOR, None)
    if directory is None or collector is None:
        return
    if session.exitstatus == pytest.ExitCode.USAGE_ERROR or _COVERAGE not in config.stash:
        return  # nothing ran: keep whatever an earlier run wrote
    started = config.stash.get(_STARTED, None)
    stopped = stop_reason(session)
    if stopped is not None:
        collector.mark_not_run(
            collector.collected, "not run: the run stopped after the target kept timing out"
        )
    document = build_traceability(
        collector.results.values(),
        target=config.stash[_TARGET_SPEC],
        coverage=config.stash[_COVERAGE],
        deselected=collector.deselected_count,
        duration=time.perf_counter() - started if started is not None else None,
        claimed_readings=config.stash[_TARGET].pics.claimed_readings,
        options=run_options(config),
        stopped=stopped,
    )
    try:
        write_report(directory, document)
        _rewrite_ci_files(config, document, collector)
    except ReportError as exc:
        sys.stderr.write(f"mqcn report: error: {exc}\n")
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
        return
    config.stash[_WRITTEN] = directory


def _rewrite_ci_files(
    config: pytest.Config, document: dict[str, Any], collector: ResultCollector
) -> None:
    """junit.xml and cucumber.json, written by pytest and pytest-bdd just before (this hook
    runs last), rewritten from the report (:mod:`mqcn_suite.report.ci`)."""
    junit = getattr(config.option, "xmlpath", None)
    cucumber = getattr(config.option, "cucumber_json_path", None)
    results = list(collector.results.values())
    try:
        if junit and Path(junit).is_file():
            rewrite_junit(
                Path(junit), document, results, getattr(config.option, "junitprefix", None)
            )
        if cucumber and Path(cucumber).is_file():
            rewrite_cucumber(Path(cucumber), document, results)
    except (OSError, ValueError, ET.ParseError) as exc:
        raise ReportError(f"cannot rewrite junit.xml / cucumber.json: {exc}") from None


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    directory = config.stash.get(_WRITTEN, None)
    if directory is not None:
        terminalreporter.write_sep("-", f"mqcn traceability report: {directory / REPORT_HTML}")
    line = pcap_summary(config)
    if line is not None:
        terminalreporter.write_line(line)
    notes = config.stash.get(_LISTENERS, None)
    listened = notes.line() if notes is not None else None
    if listened is not None:
        terminalreporter.write_line(listened)


def pytest_unconfigure(config: pytest.Config) -> None:
    recorder = config.stash.get(_PCAP, None)
    if recorder is not None:
        recorder.close()  # a session that never reached its end still leaves a valid pcap
    target = config.stash.get(_TARGET, None)
    if target is not None:
        target.close()


@pytest.fixture(scope="session")
def mqcn_target(pytestconfig: pytest.Config) -> Target:
    """The implementation under test behind its PICS guard, shared by all scenarios (each
    scenario resets it); closed when pytest ends."""
    return pytestconfig.stash[_TARGET]


@pytest.fixture
def world(mqcn_target: Target, request: pytest.FixtureRequest) -> Iterator[World]:
    """A fresh scenario world; what it records is attached to the test for the report."""
    request.node.stash[_SCENARIO] = True
    recorder = request.config.stash.get(_PCAP, None)
    transport = transport_mode_of(mqcn_target)
    if recorder is not None and transport is not None:  # the real bytes, not synthesized ones
        transport.on_transcript = recorder.record_transcript
    scenario_world = World(
        target=mqcn_target,
        on_message=recorder.record if recorder is not None and transport is None else None,
        claims_binding=request.config.getoption("--mqcn-claims", default="fail") == "fail",
        reading_claims_binding=request.config.getoption("--mqcn-reading-claims", default="warn")
        == "fail",
    )
    try:
        yield scenario_world
    finally:
        try:
            scenario_world.finish()
        finally:  # what the world saw is kept even when finishing raised (a broken claim)
            properties = scenario_world.report_properties()
            if transport is not None:  # the wire rules the target broke on its sessions
                found = transport.take_findings()
                properties["transport_findings"] = [f.to_json() for f in found]
            request.node.user_properties.append((REPORT_PROPERTY, json.dumps(properties)))
    for check in scenario_world.checks:  # a JUnit property each: what was not judged, and why
        if check.verdict == "stopped":
            label = f"{check.requirement}: {stopped_label(check.stopped_by)}"
            request.node.user_properties.append((STOPPED_PROPERTY, label))
