"""What CI dashboards read (issue 18): junit.xml and cucumber.json, read by real consumers.

* junitparser reads ``junit.xml``; a failing scenario's ``<failure>`` says the requirement and
  the reason in ``message``, and its body the statement, the envelope, the diff and the replay
  command -- the same entries ``report.html`` shows;
* cucumber-json-aggregator reads ``cucumber.json`` (its loader and its scenario summary), and
  cucumber-json-to-junit-xml converts it to JUnit as CI pipelines do: one failing scenario is
  one failure there, its ``error_message`` the same text, and the steps after it ``skipped``;
* nowhere pytest internals: no fixture reprs, no ``object at 0x…``, no raw bytes;
* a run stopped by a hung target lists every scenario it never reached as skipped, in both
  files, so their totals equal the report's runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from cucumber_json_aggregator.loader import load_file
from cucumber_json_aggregator.summary import summarize
from junitparser import Error, Failure, JUnitXml, Skipped
from typer.testing import CliRunner

from mqcn_model.catalog import CATALOG
from mqcn_suite.cli import app
from mqcn_suite.commands._common import ExitCode

runner = CliRunner()
HERE = Path(__file__).resolve().parent
HANGS = f"exec:{sys.executable} {HERE / 'hang_after_hello.py'}"
AUTH_NONE = "MQCN-3.2.5.1-4"
# what pytest shows in a terminal and a CI tool must never show
INTERNALS = ("fixturefunc", "object at 0x", "World(target=", "\\x00", "FixtureRequest", "_pytest")


def mqcn_run(report: Path, *pytest_args: str, target: str, **options: str) -> Any:
    args = ["run", "--target", target, "--report", str(report)]
    for name, value in options.items():
        args += [f"--{name.replace('_', '-')}", value]
    return runner.invoke(app, [*args, "--", "-q", "-p", "no:randomly", *pytest_args])


def cases(report: Path) -> list[Any]:
    xml = JUnitXml.fromfile(str(report / "junit.xml"))
    return [case for suite in xml for case in suite]


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One scenario failing MQCN-3.2.5.1-4 (a step follows the failing one)."""
    report = tmp_path_factory.mktemp("failing")
    result = mqcn_run(report, "-m", AUTH_NONE, target="zoo:ProcessesUnauthenticated")
    assert result.exit_code == ExitCode.FOUND, result.output
    return report


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run the hung target stopped after three timeouts."""
    report = tmp_path_factory.mktemp("stopped")
    result = mqcn_run(report, target=HANGS, timeout="0.5")
    assert result.exit_code == ExitCode.TARGET, result.output
    return report


def test_junit_failure_says_requirement_reason_statement_envelope_diff_and_replay(
    failing: Path,
) -> None:
    document = json.loads((failing / "traceability.json").read_text("utf-8"))
    (entry,) = [r for r in document["requirements"] if r["id"] == AUTH_NONE]
    (expected,) = entry["failures"]
    (case,) = cases(failing)
    (failure,) = case.result
    assert isinstance(failure, Failure)
    assert failure.message.startswith(f"{AUTH_NONE}: the queue manager state changed: ")
    assert "\n" not in failure.message
    body = failure.text
    assert CATALOG[AUTH_NONE].statement in body
    assert "envelope delivered:\n" in body and "  AuthenticationLevel: None\n" in body
    assert "expected against observed:\n  queue_manager.QueueManagerQuota\n" in body
    assert "    expected: 4294967295\n    observed: 7777\n" in body
    assert "Pathname: qm1\\invoices," in body  # a queue as the adapter's JSON gives it
    assert f"replay: {expected['replay']}" in body  # the report's own replay line
    assert f"message under test ({len(expected['message_hex']) // 2} bytes)" in body


def test_no_pytest_internals_in_either_file(failing: Path) -> None:
    for name in ("junit.xml", "cucumber.json"):
        text = (failing / name).read_text("utf-8")
        assert not [marker for marker in INTERNALS if marker in text], name
    properties = [p.get("name") for p in ET.parse(failing / "junit.xml").iter("property")]
    assert "mqcn-phase" not in properties and "mqcn" in properties  # the world's record stays


def test_cucumber_failing_step_says_the_same_and_the_next_steps_are_skipped(
    failing: Path,
) -> None:
    features, warnings = load_file(failing / "cucumber.json")
    assert features is not None and not warnings
    summary = summarize(features, 1, 0, 0)
    assert (summary.scenarios, summary.failed, summary.passed) == (1, 1, 0)
    (scenario,) = features[0]["elements"]
    statuses = [step["result"]["status"] for step in scenario["steps"]]
    assert statuses == ["passed", "passed", "passed", "passed", "failed", "skipped"]
    (case,) = cases(failing)
    failure = case.result[0]
    assert scenario["steps"][4]["result"]["error_message"] == f"{failure.message}\n\n{failure.text}"


def test_cucumber_converted_to_junit_counts_one_failure(failing: Path, tmp_path: Path) -> None:
    """cucumber-json-to-junit-xml counts every failed step: a step that never ran must not
    be one."""
    converted = tmp_path / "converted.xml"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "cucumber_json_to_junit_xml.cucumber_json_to_junit",
            str(failing / "cucumber.json"),
            str(converted),
        ],
        check=True,
        capture_output=True,
    )
    xml = JUnitXml.fromfile(str(converted))
    assert (xml.tests, xml.failures) == (1, 1)
    ((case,),) = list(xml)
    assert case.result[0].message.startswith(f"{AUTH_NONE}: the queue manager state changed")


def test_a_stopped_run_lists_every_scenario_not_run_as_skipped(stopped: Path) -> None:
    run = json.loads((stopped / "traceability.json").read_text("utf-8"))["run"]
    assert run["not_run"] > 300 and run["error"] == 3
    junit = cases(stopped)
    assert len(junit) == run["items"] + run["not_run"]
    skipped = [c for c in junit if c.result and isinstance(c.result[0], Skipped)]
    errors = [c for c in junit if c.result and isinstance(c.result[0], Error)]
    assert len(skipped) == run["not_run"] and len(errors) == run["error"]
    reason = skipped[0].result[0].message
    assert reason.startswith("not run: the target timed out 3 times in a row")
    assert errors[0].result[0].message.split(": ", 1)[1].startswith("TargetTimeout: ")
    suite = next(iter(JUnitXml.fromfile(str(stopped / "junit.xml"))))
    assert (suite.tests, suite.skipped, suite.errors) == (len(junit), run["not_run"], 3)
    features, _ = load_file(stopped / "cucumber.json")
    assert features is not None
    summary = summarize(features, 1, 0, 0)
    assert summary.scenarios == run["items"] + run["not_run"]
    assert summary.other == run["not_run"]  # skipped
    assert len({f["uri"] for f in features}) == len(features)  # one entry per feature file
    for name in ("junit.xml", "cucumber.json"):
        text = (stopped / name).read_text("utf-8")
        assert not [marker for marker in INTERNALS if marker in text], name
