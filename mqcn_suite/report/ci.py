"""What CI dashboards read: ``junit.xml`` and ``cucumber.json`` rewritten from the report.

pytest's ``--junitxml`` and pytest-bdd's ``--cucumberjson`` write a failure as pytest shows it
in a terminal: the traceback, with the reprs of fixtures and of the World (raw message bytes
included).  At the end of the session the plugin rewrites both files from the traceability
document, which already holds what explains each failure (the same entries ``report.html``
shows, :func:`mqcn_suite.report.traceability.build_traceability`):

* a failing scenario's ``<failure>`` / ``<error>`` gets ``message`` = the requirement ID(s)
  and the one-line reason, and a body: each requirement's statement, the envelope delivered,
  the expected-against-observed diff and the replay command (:func:`failure_text`);
* in ``cucumber.json`` the failing step's ``error_message`` gets the same text, and the steps
  after it, which never ran, are ``skipped`` (pytest-bdd marks them ``failed``);
* a run stopped by a target that kept timing out: every scenario it never reached is added as
  a skipped testcase (and a skipped cucumber scenario) with the reason, so the totals of both
  files equal the report's runs;
* pytest-xdist's transport properties (``mqcn-phase``, ``mqcn-item``, ``mqcn-bdd``) are
  dropped; ``mqcn`` (what the world recorded) and ``mqcn-stopped`` stay.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqcn_suite.report.results import (
    BDD_PROPERTY,
    ITEM_PROPERTY,
    PHASE_PROPERTY,
    ItemResult,
)
from mqcn_suite.report.values import value_text

# Properties that only carry data from a pytest-xdist worker to the controller.
TRANSPORT_PROPERTIES = frozenset({PHASE_PROPERTY, ITEM_PROPERTY, BDD_PROPERTY})
NOT_RUN_TYPE = "mqcn.not-run"


@dataclass(frozen=True)
class CiFailure:
    """What a CI tool shows of one failing scenario: a one-line message and a plain body."""

    message: str
    body: str

    @property
    def text(self) -> str:
        """Message and body together (cucumber's ``error_message``)."""
        return f"{self.message}\n\n{self.body}"


def _reason(failure: Mapping[str, Any], rid: str) -> str:
    """The first line of a failure's message, without the requirement ID it starts with."""
    first = (str(failure["message"]).splitlines() or [""])[0]
    return first.removeprefix(f"{rid}: ").strip()


def failure_lines(failure: Mapping[str, Any]) -> list[str]:
    """One failure entry of the traceability document (as ``report.html`` shows it) as plain
    text lines: the scenario, the envelope delivered, the message under test, the
    expected-against-observed diff, the replay command and the judge-alone command."""
    lines = [f"scenario: {failure['scenario']}"]
    if failure.get("envelope"):
        lines.append("envelope delivered:")
        lines += [f"  {e['name']}: {value_text(e['value'])}" for e in failure["envelope"]]
    if failure.get("message_hex"):
        hex_text = failure["message_hex"]
        lines.append(f"message under test ({len(hex_text) // 2} bytes): {hex_text}")
    if failure.get("diff"):
        lines.append("expected against observed:")
        for change in failure["diff"]:
            lines.append(f"  {change['attribute']}")
            lines.append(f"    expected: {value_text(change['expected'])}")
            lines.append(f"    observed: {value_text(change['observed'])}")
    lines.append(f"replay: {failure['replay']}")
    if failure.get("decode"):
        lines.append(f"judge the message alone: {failure['decode']}")
    return lines


def failure_text(entries: list[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> CiFailure:
    """The CI text of one failing scenario from its ``(requirement, failure)`` entries of the
    traceability document: every requirement it failed, with its statement (the catalog's
    words), then what explains the failure."""
    reasons: dict[str, list[str]] = {}
    for requirement, failure in entries:
        reasons.setdefault(_reason(failure, requirement["id"]), []).append(requirement["id"])
    message = "; ".join(f"{', '.join(ids)}: {reason}" for reason, ids in reasons.items())
    lines: list[str] = []
    for requirement, failure in entries:
        lines.append(
            f"{requirement['id']} [{requirement['keyword']}] ({requirement['section']}) "
            f"{requirement['statement']}"
        )
        lines.append(f"  {requirement['verdict']}: {_reason(failure, requirement['id'])}")
    shown: list[list[str]] = []
    for _, failure in entries:
        explained = failure_lines(failure)
        details = str(failure["message"]).splitlines()[1:]  # e.g. the target's last words
        if details:
            explained += ["details:", *(f"  {line}" for line in details)]
        if explained not in shown:  # a scenario failing several requirements: explained once
            lines += ["", *explained]
            shown.append(explained)
    return CiFailure(message=message, body="\n".join(lines))


def failures_by_item(document: Mapping[str, Any]) -> dict[str, CiFailure]:
    """Every failing scenario of the document (by pytest node id) with its CI text."""
    entries: dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any]]]] = {}
    for requirement in document["requirements"]:
        for failure in requirement["failures"]:
            entries.setdefault(failure["nodeid"], []).append((requirement, failure))
    return {nodeid: failure_text(found) for nodeid, found in entries.items()}


def not_run_reason(document: Mapping[str, Any]) -> str:
    """Why the scenarios of a stopped run that it never reached did not run, in one line:
    ``not run: the target timed out 3 times in a row (--mqcn-max-timeouts 3): run stopped``."""
    stopped = str(document["run"].get("stopped") or "the run stopped")
    return "not run: " + stopped.removeprefix("mqcn: ").split(";")[0]


# --- junit.xml ----------------------------------------------------------------------------------


def _junit_names(nodeid: str, prefix: str | None) -> tuple[str, str]:
    """The ``classname`` and ``name`` pytest's junitxml gives a node id."""
    from _pytest.junitxml import mangle_test_address  # pytest's own mapping: one truth

    names = mangle_test_address(nodeid)
    classnames = names[:-1]
    if prefix:
        classnames.insert(0, prefix)
    return ".".join(classnames), names[-1]


def rewrite_junit(
    path: Path,
    document: Mapping[str, Any],
    results: Iterable[ItemResult],
    prefix: str | None = None,
) -> None:
    """Rewrite pytest's ``junit.xml`` at ``path`` (see the module's docstring)."""
    results = list(results)
    tree = ET.parse(path)
    root = tree.getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    if suite is None:
        return
    failures = failures_by_item(document)
    by_name = {_junit_names(r.nodeid, prefix): r for r in results}
    present: set[str] = set()
    moved = 0  # failures that are errors
    for case in suite.iter("testcase"):
        item = by_name.get((case.get("classname", ""), case.get("name", "")))
        if item is None:
            continue
        present.add(item.nodeid)
        for properties in case.findall("properties"):
            for prop in properties.findall("property"):
                if prop.get("name") in TRANSPORT_PROPERTIES:
                    properties.remove(prop)
            if not len(properties):
                case.remove(properties)
        for element in [*case.findall("failure"), *case.findall("error")]:
            explained = failures.get(item.nodeid) or CiFailure(
                item.failure.splitlines()[0] if item.failure else "failed", item.failure
            )
            element.set("message", explained.message)
            element.text = explained.body
            if element.tag == "failure" and item.target_error:  # the target broke: an error
                element.tag = "error"
                moved += 1
    added = 0
    for item in results:
        if item.outcome != "not run" or item.nodeid in present:
            continue
        classname, name = _junit_names(item.nodeid, prefix)
        case = ET.SubElement(suite, "testcase", classname=classname, name=name, time="0.000")
        reason = not_run_reason(document)
        skipped = ET.SubElement(case, "skipped", type=NOT_RUN_TYPE, message=reason)
        skipped.text = reason
        added += 1
    for name, more in (
        ("tests", added),
        ("skipped", added),
        ("failures", -moved),
        ("errors", moved),
    ):
        suite.set(name, str(int(suite.get(name, "0")) + more))
    tree.write(path, encoding="utf-8", xml_declaration=True)


# --- cucumber.json ------------------------------------------------------------------------------


def _scenario_key(uri: str, line: int, name: str) -> tuple[str, int, str]:
    return (uri, line, name)


def _skipped_element(item: ItemResult, reason: str) -> dict[str, Any]:
    """A cucumber scenario for a scenario the run never reached: every step skipped, the
    first carrying the reason."""
    bdd = item.bdd or {}
    steps = []
    for index, (keyword, name, line) in enumerate(bdd.get("steps", [])):
        result: dict[str, Any] = {"status": "skipped", "duration": 0}
        if index == 0:
            result["error_message"] = reason
        steps.append(
            {
                "keyword": keyword,
                "name": name,
                "line": line,
                "match": {"location": ""},
                "result": result,
            }
        )
    return {
        "keyword": bdd.get("keyword", "Scenario"),
        "id": item.name,
        "name": bdd.get("name", item.scenario or item.name),
        "line": bdd.get("line", item.line or 0),
        "description": bdd.get("description", ""),
        "tags": [{"name": tag, "line": bdd.get("line", 1) - 1} for tag in bdd.get("tags", [])],
        "type": "scenario",
        "steps": steps,
    }


def _fix_steps(element: dict[str, Any], failure: CiFailure | None) -> None:
    """The first failed step carries ``failure``; the steps after it are ``skipped``."""
    failed = False
    for step in element.get("steps", []):
        result = step.get("result", {})
        if result.get("status") != "failed":
            continue
        if failed:
            result["status"] = "skipped"
            result.pop("error_message", None)
            continue
        failed = True
        if failure is not None:
            result["error_message"] = failure.text


def rewrite_cucumber(
    path: Path, document: Mapping[str, Any], results: Iterable[ItemResult]
) -> None:
    """Rewrite pytest-bdd's ``cucumber.json`` at ``path`` (see the module's docstring)."""
    results = list(results)
    features: list[dict[str, Any]] = json.loads(path.read_text("utf-8"))
    failures = failures_by_item(document)
    by_key = {
        _scenario_key(r.bdd["feature"]["uri"], r.bdd["line"], r.name): r
        for r in results
        if r.bdd is not None
    }
    present: set[str] = set()
    for feature in features:
        for element in feature.get("elements", []):
            item = by_key.get(_scenario_key(feature["uri"], element["line"], element["id"]))
            if item is not None:
                present.add(item.nodeid)
            failure = failures.get(item.nodeid) if item is not None else None
            if failure is None and item is not None and item.failure:
                failure = CiFailure(item.failure.splitlines()[0], item.failure)
            _fix_steps(element, failure)
    by_uri = {feature["uri"]: feature for feature in features}
    for item in results:
        if item.outcome != "not run" or item.nodeid in present or item.bdd is None:
            continue
        header = item.bdd["feature"]
        feature = by_uri.get(header["uri"])
        if feature is None:
            feature = by_uri[header["uri"]] = {**header, "elements": []}
            features.append(feature)
        feature["elements"].append(_skipped_element(item, not_run_reason(document)))
    path.write_text(json.dumps(features), "utf-8")
