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
from mqcn_suite.targets import TargetError

REPORT_PROPERTY = "mqcn"
# The longest failure text kept per item (the full traceback is in junit.xml).
MAX_FAILURE_TEXT = 2000
OUTCOME_ORDER = ("passed", "skipped", "failed", "error")


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
    outcome: str = "passed"  # passed | failed | skipped | error
    duration: float = 0.0
    failure: str = ""  # short failure text, or the skip reason
    target_error: bool = False
    world: dict[str, Any] = field(default_factory=dict)

    @property
    def checks(self) -> list[dict[str, str]]:
        return list(self.world.get("checks", []))

    @property
    def message_hex(self) -> str:
        return str(self.world.get("message_hex", ""))

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
            "world": self.world,
        }


def _short_failure(call: pytest.CallInfo[Any], report: pytest.TestReport) -> str:
    """One short text for a failure: the exception line(s), or pytest's own summary."""
    if call.excinfo is not None:
        text = call.excinfo.exconly().strip()
    else:
        text = str(report.longrepr or "").strip()
    if len(text) > MAX_FAILURE_TEXT:
        text = text[: MAX_FAILURE_TEXT - 1] + "…"
    return text


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        reason = str(longrepr[2]).removeprefix("Skipped: ")
        # pytest names a Skipped subclass in the reason ("...targets.base.NotApplicable: ...")
        _, marker, rest = reason.partition("NotApplicable: ")
        return rest if marker else reason
    return str(longrepr or "")


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path


class ResultCollector:
    """Pytest plugin object gathering one :class:`ItemResult` per test item."""

    def __init__(self, rootpath: Path) -> None:
        self.rootpath = rootpath
        self.results: dict[str, ItemResult] = {}
        self.deselected: list[str] = []
        self.collected: list[str] = []

    # --- building one result ---------------------------------------------------------------
    def _result_for(self, item: pytest.Item) -> ItemResult:
        from pytest_bdd.parser import render_string  # pytest has imported it by now
        from pytest_bdd.scenario import scenario_wrapper_template_registry
        from pytest_bdd.utils import registry_get_safe

        result = self.results.get(item.nodeid)
        if result is not None:
            return result
        requirements = []
        for mark in item.iter_markers():
            if mark.name in CATALOG and mark.name not in requirements:
                requirements.append(mark.name)
        order = {rid: index for index, rid in enumerate(CATALOG)}
        requirements.sort(key=order.__getitem__)
        result = ItemResult(nodeid=item.nodeid, name=item.name, requirements=requirements)
        template = registry_get_safe(scenario_wrapper_template_registry, getattr(item, "obj", None))
        if template is not None:
            result.feature_path = str(Path(template.feature.filename).resolve())
            result.feature = _relative(template.feature.filename, self.rootpath)
            result.template = template.name
            result.line = template.line_number
            callspec = getattr(item, "callspec", None)
            example = callspec.params.get("_pytest_bdd_example") if callspec else None
            result.scenario = render_string(template.name, example) if example else template.name
        self.results[item.nodeid] = result
        return result

    def record(
        self, item: pytest.Item, call: pytest.CallInfo[Any], report: pytest.TestReport
    ) -> None:
        """Fold the report of one phase (setup / call / teardown) into the item's result."""
        result = self._result_for(item)
        result.duration += report.duration
        outcome = None
        if report.failed:
            outcome = "failed" if report.when == "call" else "error"
            if call.excinfo is not None and call.excinfo.errisinstance(TargetError):
                result.target_error = True
        elif report.skipped:
            outcome = "skipped"
        if outcome is not None and OUTCOME_ORDER.index(outcome) > OUTCOME_ORDER.index(
            result.outcome
        ):
            result.outcome = outcome
            result.failure = (
                _skip_reason(report) if outcome == "skipped" else _short_failure(call, report)
            )
        for name, value in report.user_properties:
            if name == REPORT_PROPERTY:
                try:
                    result.world = json.loads(value)
                except (TypeError, ValueError):
                    result.world = {"unreadable": str(value)[:200]}

    # --- pytest hooks ----------------------------------------------------------------------
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
        report = yield
        self.record(item, call, report)
        return report

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected.extend(item.nodeid for item in items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected = [item.nodeid for item in session.items]
