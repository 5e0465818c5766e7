"""What one test item (a scenario, or one row of a Scenario Outline) did, as the report needs it.

:class:`ResultCollector` is registered by the pytest plugin when ``--mqcn-report`` is given;
it turns the setup / call / teardown reports of each item into one :class:`ItemResult`:
nodeid, feature and scenario, the requirement markers, the outcome, the duration, a short
failure text, and the JSON the ``world`` fixture recorded (checks, messages sent and emitted).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mqcn_model.catalog import CATALOG
from mqcn_suite.targets import ClaimNotImplemented, TargetError, TargetTimeout

REPORT_PROPERTY = "mqcn"  # what the world recorded (checks, messages), JSON
ITEM_PROPERTY = "mqcn-item"  # the item's metadata (requirements, feature, scenario), JSON
# a requirement a scenario could not judge: "MQCN-…: inconclusive (stopped by MQCN-…)" (JUnit)
STOPPED_PROPERTY = "mqcn-stopped"
PHASE_PROPERTY = "mqcn-phase"  # what one phase did (outcome, failure, target broke), JSON
BDD_PROPERTY = "mqcn-bdd"  # pytest-bdd's scenario report, carried across pytest-xdist
WORKER_ITEMS = "mqcn_items"  # pytest-xdist workeroutput: every collected item's metadata
WORKER_DESELECTED = "mqcn_deselected"
# The longest failure text kept per item (the full traceback is in junit.xml).
MAX_FAILURE_TEXT = 2000
OUTCOME_ORDER = ("passed", "skipped", "failed", "error", "not run")


@dataclass
class ItemResult:
    """The combined outcome of one test item."""

    nodeid: str
    name: str
    requirements: list[str]
    feature: str | None = None  # e.g. features/3.2.5.1-processing-v1.feature
    feature_path: str | None = None  # absolute path of the feature file
    scenario: str | None = None  # rendered scenario name (an outline row's values filled in)
    template: str | None = None  # the scenario's name as written in the feature file
    line: int | None = None
    outcome: str = "passed"  # passed | failed | skipped | error | not run (a stopped run)
    duration: float = 0.0
    failure: str = ""  # short failure text, or the skip reason
    target_error: bool = False
    # a call a claimed part needs answered not-implemented: {"claim": "server.v1", "call": …}
    claim_missing: dict[str, str] | None = None
    world: dict[str, Any] = field(default_factory=dict)
    # the Gherkin scenario as cucumber.json shows it (feature header, tags, steps), for the
    # scenarios a stopped run never reached (:func:`bdd_metadata`)
    bdd: dict[str, Any] | None = None

    @property
    def checks(self) -> list[dict[str, str]]:
        return list(self.world.get("checks", []))

    @property
    def message_hex(self) -> str:
        return str(self.world.get("message_hex", ""))

    @property
    def target_acted(self) -> bool:
        """Did the target do anything in this scenario (a delivery processed, an
        initialisation, a client's send)?  The world fixture always says (its
        ``target_acted``: the calls that answered); an item recorded without it (a report
        made before the field existed, a test's hand-made item) is taken as it was then."""
        return bool(self.world.get("target_acted", True))

    def to_json(self) -> dict[str, Any]:
        return {
            "nodeid": self.nodeid,
            "name": self.name,
            "feature": self.feature,
            "scenario": self.scenario,
            "line": self.line,
            "requirements": self.requirements,
            "outcome": self.outcome,
            "duration": round(self.duration, 6),
            "failure": self.failure,
            "target_error": self.target_error,
            **({"claim_missing": self.claim_missing} if self.claim_missing else {}),
            "world": self.world,
        }


def _short_failure(call: pytest.CallInfo[Any], report: pytest.TestReport) -> str:
    """One short text for a failure: the exception line(s), or pytest's own summary."""
    if call.excinfo is not None:  # the exception's class by its name, not its module's path
        said = str(call.excinfo.value).strip()
        text = f"{call.excinfo.typename}: {said}" if said else call.excinfo.typename
    else:
        text = str(report.longrepr or "").strip()
    if len(text) > MAX_FAILURE_TEXT:
        text = text[: MAX_FAILURE_TEXT - 1] + "…"
    return text


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple | list) and len(longrepr) == 3:
        reason = str(longrepr[2]).removeprefix("Skipped: ")
        # "Skipped: not applicable: ..." (older reports named the class: "NotApplicable: ...")
        _, marker, rest = reason.partition("NotApplicable: ")
        return rest if marker else reason
    return str(longrepr or "")


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path


def item_metadata(item: pytest.Item, rootpath: Path) -> dict[str, Any]:
    """What the report needs to know of a test item besides its outcome (JSON-shaped, so
    that pytest-xdist carries it from a worker to the controller in ``user_properties``)."""
    from pytest_bdd.parser import render_string  # pytest has imported it by now
    from pytest_bdd.scenario import scenario_wrapper_template_registry
    from pytest_bdd.utils import registry_get_safe

    requirements = []
    for mark in item.iter_markers():
        if mark.name in CATALOG and mark.name not in requirements:
            requirements.append(mark.name)
    order = {rid: index for index, rid in enumerate(CATALOG)}
    requirements.sort(key=order.__getitem__)
    data: dict[str, Any] = {"nodeid": item.nodeid, "name": item.name, "requirements": requirements}
    template = registry_get_safe(scenario_wrapper_template_registry, getattr(item, "obj", None))
    if template is not None:
        data["feature_path"] = str(Path(template.feature.filename).resolve())
        data["feature"] = _relative(template.feature.filename, rootpath)
        data["template"] = template.name
        data["line"] = template.line_number
        callspec = getattr(item, "callspec", None)
        example = callspec.params.get("_pytest_bdd_example") if callspec else None
        data["scenario"] = render_string(template.name, example) if example else template.name
        data["bdd"] = bdd_metadata(template, example or {})
    return data


def bdd_metadata(template: Any, example: dict[str, Any]) -> dict[str, Any]:
    """A scenario (an outline's row rendered) as cucumber.json describes it, without results:
    what :mod:`mqcn_suite.report.ci` writes for a scenario that never ran."""
    scenario = template.render(example)
    feature = template.feature
    return {
        "keyword": scenario.keyword,
        "name": scenario.name,
        "line": scenario.line_number,
        "description": scenario.description or "",
        "tags": sorted(scenario.tags),
        "steps": [[step.keyword, step.name, step.line_number] for step in scenario.steps],
        "feature": {  # the feature's header as pytest-bdd's cucumber.json writes it
            "keyword": feature.keyword,
            "uri": feature.rel_filename,
            "name": feature.name or feature.rel_filename,
            "id": feature.rel_filename.lower().replace(" ", "-"),
            "line": feature.line_number,
            "description": feature.description or "",
            "language": feature.language,
            "tags": [{"name": t, "line": feature.line_number - 1} for t in sorted(feature.tags)],
        },
    }


def phase_outcome(call: pytest.CallInfo[Any], report: pytest.TestReport) -> dict[str, Any]:
    """What one phase (setup / call / teardown) of an item did, JSON-shaped (see
    :func:`item_metadata`): outcome, failure text or skip reason, whether the target broke."""
    data: dict[str, Any] = {"outcome": None, "failure": "", "target_error": False, "timeout": False}
    if report.failed:
        broke = call.excinfo is not None and call.excinfo.errisinstance(TargetError)
        data["target_error"] = broke
        data["timeout"] = call.excinfo is not None and call.excinfo.errisinstance(TargetTimeout)
        data["outcome"] = "failed" if report.when == "call" and not broke else "error"
        data["failure"] = _short_failure(call, report)
        if call.excinfo is not None and call.excinfo.errisinstance(ClaimNotImplemented):
            missing = call.excinfo.value
            data["outcome"] = "failed"  # wherever it happened: the claim failed, not the suite
            data["failure"] = str(missing)
            data["claim_missing"] = {"claim": missing.claim, "call": missing.call}
    elif report.skipped:
        data["outcome"] = "skipped"
        data["failure"] = _skip_reason(report)
    return data


def _property(report: pytest.TestReport, name: str) -> Any:
    for key, value in report.user_properties:
        if key == name:
            return value
    return None


class ResultCollector:
    """Pytest plugin object gathering one :class:`ItemResult` per test item.

    It reads only the reports (``pytest_runtest_logreport``), never the items: the plugin
    puts what the report needs into each report's ``user_properties``
    (:data:`ITEM_PROPERTY`, :data:`PHASE_PROPERTY`, :data:`REPORT_PROPERTY`), which
    pytest-xdist carries from the workers to the controller, where this collector runs.
    """

    def __init__(self, rootpath: Path) -> None:
        self.rootpath = rootpath
        self.results: dict[str, ItemResult] = {}
        self.deselected: list[str] = []
        self.collected: list[str] = []
        # every collected item's metadata (for items a stopped run never reached)
        self.metadata: dict[str, dict[str, Any]] = {}
        self.worker_deselected = 0

    def _result_for(self, nodeid: str, metadata: dict[str, Any] | None) -> ItemResult:
        result = self.results.get(nodeid)
        if result is None:
            data = metadata or self.metadata.get(nodeid) or {"nodeid": nodeid, "name": nodeid}
            result = ItemResult(
                nodeid=nodeid,
                name=data.get("name", nodeid),
                requirements=list(data.get("requirements", [])),
                feature=data.get("feature"),
                feature_path=data.get("feature_path"),
                scenario=data.get("scenario"),
                template=data.get("template"),
                line=data.get("line"),
                bdd=data.get("bdd"),
            )
            self.results[nodeid] = result
        return result

    def record_report(self, report: pytest.TestReport) -> None:
        """Fold the report of one phase (setup / call / teardown) into the item's result."""
        metadata = _property(report, ITEM_PROPERTY)
        result = self._result_for(
            report.nodeid, json.loads(metadata) if isinstance(metadata, str) else None
        )
        result.duration += report.duration
        phase = _property(report, PHASE_PROPERTY)
        data = json.loads(phase) if isinstance(phase, str) else {}
        outcome = data.get("outcome")
        if outcome is None and report.failed:  # a report the plugin did not annotate
            outcome = "failed" if report.when == "call" else "error"
            data["failure"] = str(report.longrepr or "")[:MAX_FAILURE_TEXT]
        if data.get("target_error"):
            result.target_error = True
        if data.get("claim_missing"):
            result.claim_missing = dict(data["claim_missing"])
        if outcome is not None and OUTCOME_ORDER.index(outcome) > OUTCOME_ORDER.index(
            result.outcome
        ):
            result.outcome = outcome
            result.failure = data.get("failure", "")
        world = _property(report, REPORT_PROPERTY)
        if world is not None:
            try:
                result.world = json.loads(world)
            except (TypeError, ValueError):
                result.world = {"unreadable": str(world)[:200]}

    def mark_not_run(self, nodeids: list[str], why: str) -> None:
        """Items a stopped run never reached: outcome ``not run``, verdict ``error``."""
        for nodeid in nodeids:
            if nodeid in self.results:
                continue
            result = self._result_for(nodeid, None)
            result.outcome = "not run"
            result.failure = why
            result.target_error = True

    # --- pytest hooks ----------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.record_report(report)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected.extend(item.nodeid for item in items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected = [item.nodeid for item in session.items]
        for item in session.items:
            self.metadata[item.nodeid] = item_metadata(item, self.rootpath)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """pytest-xdist: a worker finished; keep what it collected and deselected."""
        output = getattr(node, "workeroutput", None) or {}
        for data in json.loads(output.get(WORKER_ITEMS, "[]")):
            self.metadata.setdefault(data["nodeid"], data)
            if data["nodeid"] not in self.collected:
                self.collected.append(data["nodeid"])
        self.worker_deselected = max(self.worker_deselected, int(output.get(WORKER_DESELECTED, 0)))

    @property
    def deselected_count(self) -> int:
        return len(self.deselected) or self.worker_deselected
