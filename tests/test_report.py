"""The traceability report, ``--mqcn-report`` and ``mqcn run``.

* verdict rules on hand-made item results (fast, exact);
* the suite run in-process against the reference, on a small selection (plain ``pytest``
  with ``--mqcn-report``) and on everything (``mqcn run``): the four files, the schema, the
  consistency of the figures, the HTML page;
* the suite judging DELIBERATELY BROKEN references: each flipped rule of the server model must
  make its requirement fail, and nothing else;
* bad input: unknown target, a feature tag naming no requirement, an unwritable report
  directory, no steps directory.
"""

from __future__ import annotations

import dataclasses
import json
import re
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from fake_ids import NOT_AN_ID
from typer.testing import CliRunner, Result

import mqcn_model.server as server_model
import mqcn_suite.commands.run as run_command
import mqcn_suite.targets.reference as reference
from mqcn_model.catalog import CATALOG, KEYWORDS
from mqcn_model.constants import AuthLevel, PropId
from mqcn_suite.commands.run import RUN_HELP, run
from mqcn_suite.coverage import load_coverage
from mqcn_suite.report import (
    REPORT_FILES,
    ItemResult,
    ReportError,
    build_traceability,
    prepare_report_dir,
    render_html,
    validate_traceability,
)
from mqcn_suite.report.traceability import SUMMARY_KEY, VERDICTS, verdict_label

# ``mqcn run`` as the lead registers it, on a small app of its own.
app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command("run", help=RUN_HELP)(run)


@app.callback()
def _root() -> None:
    """Test app."""


runner = CliRunner()


AUTH_NONE = "MQCN-3.2.5.1-4"
LABEL_IGNORED = "MQCN-3.2.5.1-13"


def mqcn_run(report: Path, *pytest_args: str, target: str = "reference") -> Result:
    args = ["run", "--target", target, "--report", str(report)]
    if pytest_args:
        args += ["--", "-q", *pytest_args]
    else:
        args += ["--", "-q"]
    return runner.invoke(app, args)


def load(report: Path) -> dict[str, Any]:
    return json.loads((report / "traceability.json").read_text("utf-8"))


def verdicts(document: dict[str, Any], *wanted: str) -> dict[str, str]:
    return {r["id"]: r["verdict"] for r in document["requirements"] if r["verdict"] in wanted}


# --- verdict rules on hand-made results ------------------------------------------------------


def item(
    name: str,
    requirements: list[str],
    outcome: str = "passed",
    checks: list[tuple[str, str]] = (),  # type: ignore[assignment]
    failure: str = "",
    target_error: bool = False,
) -> ItemResult:
    return ItemResult(
        nodeid=f"steps/test_x.py::{name}",
        name=name,
        requirements=requirements,
        scenario=name.replace("_", " "),
        outcome=outcome,
        failure=failure,
        target_error=target_error,
        duration=0.01,
        world={
            "checks": [
                {"requirement": r, "verdict": v, "message": f"{r} said {v}"} for r, v in checks
            ],
            "message_hex": "0201ff",
        },
    )


MUST_A, MUST_B, MUST_C = "MQCN-2.2.4-3", "MQCN-3.2.5.1-4", "MQCN-3.2.5.1-13"
SHOULD = "MQCN-3.2.3-1"
MAY = "MQCN-2.2.6-8"
PRODUCT = "MQCN-1.7-1"
UNTESTABLE = next(r.id for r in CATALOG.values() if not r.testable)


def document_of(*items: ItemResult) -> dict[str, Any]:
    document = build_traceability(items, target="reference")
    validate_traceability(document)
    return document


def verdict_map(document: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["verdict"] for r in document["requirements"]}


def test_catalog_entries_exist() -> None:
    for rid in (MUST_A, MUST_B, MUST_C):
        assert CATALOG[rid].is_mandatory and CATALOG[rid].testable
    assert CATALOG[SHOULD].keyword == "SHOULD" and CATALOG[SHOULD].testable
    assert CATALOG[MAY].keyword == "MAY" and CATALOG[PRODUCT].keyword == "PRODUCT"


def test_passing_scenarios_pass_and_the_rest_is_inconclusive() -> None:
    document = document_of(
        item("a", [MUST_A], checks=[(MUST_A, "pass")]), item("b", [MUST_A, MUST_B])
    )
    got = verdict_map(document)
    assert got[MUST_A] == got[MUST_B] == "pass"
    assert got[MUST_C] == "inconclusive"
    assert got[UNTESTABLE] == "untestable"
    assert document["summary"]["passed"] == 2
    assert document["summary"]["inconclusive"] == sum(r.testable for r in CATALOG.values()) - 2


def test_a_failed_check_fails_its_requirement_only() -> None:
    # The scenario checks A (passes), then B (fails, the scenario stops): C never got checked.
    failed = item(
        "f",
        [MUST_A, MUST_B, MUST_C],
        "failed",
        [(MUST_A, "pass"), (MUST_B, "fail")],
        "RequirementFailure: B",
    )
    got = verdict_map(document_of(failed))
    assert (got[MUST_A], got[MUST_B], got[MUST_C]) == ("pass", "fail", "inconclusive")


def requirement_of(document: dict[str, Any], rid: str) -> dict[str, Any]:
    return next(r for r in document["requirements"] if r["id"] == rid)


def test_a_requirement_stopped_by_another_is_inconclusive_naming_it() -> None:
    """A check recorded ``stopped`` (the message it needs could not be read because MUST_B
    broke), and a tagged requirement the scenario never reached: both are inconclusive
    (stopped by MUST_B), shown so in the JSON, the label and the HTML; neither fails."""
    failed = item(
        "s",
        [MUST_A, MUST_C],
        "failed",
        [(MUST_A, "stopped"), (MUST_B, "fail")],
        "RequirementFailure: B",
    )
    failed.world["checks"][0]["stopped_by"] = [MUST_B]
    document = document_of(failed)
    got = verdict_map(document)
    assert (got[MUST_A], got[MUST_B], got[MUST_C]) == ("inconclusive", "fail", "inconclusive")
    for rid in (MUST_A, MUST_C):
        entry = requirement_of(document, rid)
        assert entry["stopped_by"] == [MUST_B]
        assert verdict_label(entry) == f"inconclusive (stopped by {MUST_B})"
    assert requirement_of(document, MUST_B)["stopped_by"] == []
    assert f"(stopped by {MUST_B})" in render_html(document)


def test_a_requirement_judged_elsewhere_is_not_stopped() -> None:
    """The worst real judgement wins: passed in one scenario, stopped in another -> pass."""
    stopped = item("s", [MUST_A], "failed", [(MUST_A, "stopped"), (MUST_B, "fail")], "B")
    stopped.world["checks"][0]["stopped_by"] = [MUST_B]
    document = document_of(stopped, item("p", [MUST_A], checks=[(MUST_A, "pass")]))
    assert verdict_map(document)[MUST_A] == "pass"
    assert requirement_of(document, MUST_A)["stopped_by"] == []


def test_an_unattributed_failure_fails_every_tagged_requirement() -> None:
    broken = item("g", [MUST_A, SHOULD], "failed", [], "StepDefinitionNotFoundError: no step")
    document = document_of(broken, item("h", [MUST_A]))
    got = verdict_map(document)
    assert got[MUST_A] == got[SHOULD] == "fail"
    failure = next(r for r in document["requirements"] if r["id"] == MUST_A)["failures"][0]
    assert failure == {
        "scenario": "g",
        "nodeid": "steps/test_x.py::g",
        "kind": "scenario",
        "message": "StepDefinitionNotFoundError: no step",
        "message_hex": "0201ff",
        "envelope": [],
        "diff": [],
        "replay": "pytest steps/test_x.py::g --mqcn-target=reference",
        "decode": None,  # the judge does not see MUST_A in these bytes: they are not what failed
    }


def test_a_target_error_is_error_and_wins() -> None:
    crashed = item("t", [MUST_A], "failed", [], "TargetError: adapter died", target_error=True)
    failed = item("u", [MUST_A], "failed", [(MUST_A, "fail")], "RequirementFailure")
    got = verdict_map(document_of(crashed, failed))
    assert got[MUST_A] == "error"


def test_should_may_and_product_findings_warn_or_inform() -> None:
    document = document_of(
        item("w", [SHOULD], checks=[(SHOULD, "warning")]),
        item("w2", [SHOULD], checks=[(SHOULD, "pass")]),
        item("i", [MAY, PRODUCT], checks=[(MAY, "info"), (PRODUCT, "pass")]),
    )
    got = verdict_map(document)
    assert (got[SHOULD], got[MAY], got[PRODUCT]) == ("warning", "info", "pass")
    should = next(r for r in document["requirements"] if r["id"] == SHOULD)
    assert should["notes"] == [
        {
            "scenario": "w",
            "nodeid": "steps/test_x.py::w",
            "verdict": "warning",
            "message": f"{SHOULD} said warning",
        }
    ]
    assert should["failures"] == []


def test_skips_are_not_applicable_or_inconclusive() -> None:
    document = document_of(
        item("na", [MUST_A], "skipped", failure="not applicable: PICS says no client"),
        item("sk", [MUST_B], "skipped", failure="needs a network"),
        item("mix", [MUST_C], "skipped", failure="not applicable: x"),
        item("mix2", [MUST_C]),
    )
    got = verdict_map(document)
    assert (got[MUST_A], got[MUST_B], got[MUST_C]) == ("not applicable", "inconclusive", "pass")


def test_a_check_in_passing_counts_for_an_untagged_requirement() -> None:
    got = verdict_map(document_of(item("p", [MUST_A], checks=[(MUST_B, "pass")])))
    assert got[MUST_B] == "pass"
    got = verdict_map(
        document_of(item("q", [MUST_A], "failed", [(MUST_B, "fail")], "RequirementFailure"))
    )
    assert (got[MUST_A], got[MUST_B]) == ("inconclusive", "fail")


def test_an_untestable_requirement_stays_untestable() -> None:
    got = verdict_map(document_of(item("x", [UNTESTABLE], "failed", [], "boom")))
    assert got[UNTESTABLE] == "untestable"


def test_hypothesis_repeats_are_reported_once() -> None:
    repeated = item(
        "r",
        [MUST_A],
        "failed",
        [(MUST_A, "fail")] * 5 + [(SHOULD, "warning")] * 3,
        "RequirementFailure",
    )
    document = document_of(repeated)
    entry = {r["id"]: r for r in document["requirements"]}
    assert len(entry[MUST_A]["failures"]) == 1
    assert len(entry[SHOULD]["notes"]) == 1


def test_replay_commands_quote_what_the_shell_would_split() -> None:
    odd = dataclasses.replace(
        item("o", [MUST_A], "failed"), nodeid="steps/test_x.py::test_o[a b-it's]"
    )
    failure = document_of(odd)["requirements"]
    failure = next(r for r in failure if r["id"] == MUST_A)["failures"][0]
    assert (
        failure["replay"]
        == "pytest 'steps/test_x.py::test_o[a b-it'\"'\"'s]' --mqcn-target=reference"
    )


def assert_consistent(document: dict[str, Any]) -> None:
    """The figures of the summary add up, overall and per keyword."""
    summary = document["summary"]
    requirements = document["requirements"]
    assert summary["total"] == len(requirements) == len(CATALOG)
    assert [r["id"] for r in requirements] == list(CATALOG)
    assert sum(summary[SUMMARY_KEY[v]] for v in VERDICTS) == summary["total"]
    assert summary["testable"] + summary["untestable"] == summary["total"]
    assert summary["covered"] + summary["uncovered"] == summary["testable"]
    assert summary["ran"] <= summary["covered"] <= summary["testable"]
    for verdict in VERDICTS:
        assert summary[SUMMARY_KEY[verdict]] == sum(r["verdict"] == verdict for r in requirements)
    for name in ("total", "testable", "covered", *(SUMMARY_KEY[v] for v in VERDICTS)):
        assert sum(summary["by_keyword"][k][name] for k in KEYWORDS) == summary[name], name
    mandatory = [r for r in requirements if r["keyword"] in ("MUST", "MUST NOT")]
    assert summary["mandatory"]["total"] == len(mandatory)
    assert summary["mandatory"]["failed"] == sum(r["verdict"] == "fail" for r in mandatory)
    run_info = document["run"]
    assert run_info["items"] == sum(run_info[k] for k in ("passed", "failed", "skipped", "error"))
    for requirement in requirements:
        assert (requirement["verdict"] == "untestable") is (not requirement["testable"])
        if requirement["verdict"] in ("fail", "error"):
            assert requirement["failures"], requirement["id"]


def test_the_document_of_hand_made_results_is_consistent() -> None:
    assert_consistent(
        document_of(
            item("a", [MUST_A]),
            item("b", [MUST_B], "failed", [(MUST_B, "fail")]),
            item("c", [SHOULD], checks=[(SHOULD, "warning")]),
        )
    )


def test_the_schema_rejects_a_bad_document() -> None:
    document = document_of(item("a", [MUST_A]))
    document["requirements"][0]["verdict"] = "maybe"
    with pytest.raises(ReportError, match=r"requirements/0/verdict: 'maybe' is not one of"):
        validate_traceability(document)
    document = document_of(item("a", [MUST_A]))
    del document["summary"]["by_keyword"]["MUST"]["covered"]
    with pytest.raises(ReportError, match="covered"):
        validate_traceability(document)


def test_the_html_page_is_self_contained_and_names_every_requirement() -> None:
    page = render_html(document_of(item("b", [MUST_B], "failed", [], "RequirementFailure: x<y")))
    for rid in CATALOG:
        assert f'id="{rid}"' in page
    assert "0201ff" in page  # the bytes; no "judge alone" offer: the judge sees no MUST_B there
    assert "mqcn decode --hex 0201ff" not in page
    assert "pytest steps/test_x.py::b --mqcn-target=reference" in page
    assert "RequirementFailure: x&lt;y" in page  # escaped
    assert "RequirementFailure: x<y" not in page
    assert not re.search(r"<link|<script[^>]+src=|<img|@import|url\(", page)
    assert not re.search(r"(src|href)=\"(https?:)?//", page)


def test_the_html_diff_reads_like_the_adapters_json() -> None:
    """The attribute column does not wrap (it was ~6 characters wide), and a queue is shown
    attribute by attribute as the adapter's JSON gives it, not as a Python repr with doubled
    backslashes (docs/adapter-protocol.md, Values)."""
    queue = {"Identifier": "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "Pathname": "qm1\\orders"}
    queue |= {"Label": "\ud800", "Quota": 1000, "Security": ""}
    diff = [{"attribute": "queue a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "expected": None,
             "observed": queue}]  # fmt: skip
    failing = item("b", [MUST_B], "failed", [], "RequirementFailure: MQCN-3.2.5.1-4: changed")
    failing.world["checks"] = [
        {"requirement": MUST_B, "verdict": "fail", "message": "changed", "diff": diff}
    ]
    page = render_html(document_of(failing))
    assert "table.reqs table.kv td.attr { white-space: nowrap; overflow-wrap: normal;" in page
    assert '<td class="attr"><code>queue a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d</code></td>' in page
    assert "<th>Pathname</th><td><code>qm1\\orders</code></td>" in page  # one backslash
    assert "<th>Label</th><td><code>\\ud800</code></td>" in page  # a lone surrogate: its escape
    assert "<th>Security</th><td><code>&#34;&#34;</code></td>" in page  # empty text
    assert '<td class="value"><code>(absent)</code></td>' in page
    assert "qm1\\\\orders" not in page and "{&#39;" not in page


def test_prepare_report_dir(tmp_path: Path) -> None:
    assert prepare_report_dir(tmp_path / "a" / "b") == (tmp_path / "a" / "b").resolve()
    (tmp_path / "file").write_text("x")
    with pytest.raises(ReportError, match="exists and is not a directory"):
        prepare_report_dir(tmp_path / "file")
    with pytest.raises(ReportError, match="cannot write to"):
        prepare_report_dir(tmp_path / "file" / "sub")


# --- the suite against the reference -------------------------------------------------------------


@pytest.fixture(scope="module")
def coverage():
    return load_coverage()


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, Path]:
    report = tmp_path_factory.mktemp("full")
    return mqcn_run(report), report


def test_full_run_writes_the_four_files(full_run: tuple[Result, Path], coverage) -> None:
    result, report = full_run
    assert result.exit_code == 0, result.output
    for name in REPORT_FILES:
        assert (report / name).is_file(), name
    document = load(report)
    validate_traceability(document)
    assert_consistent(document)
    assert document["target"] == "reference"
    assert verdicts(document, "fail", "error") == {}
    assert document["run"]["items"] > 0
    assert document["run"]["failed"] == document["run"]["error"] == 0
    assert document["summary"]["covered"] == sum(
        1
        for rid, scenarios in coverage.by_requirement().items()
        if scenarios and CATALOG[rid].testable
    )
    # every scenario of every feature file ran (a feature no step module binds would not)
    not_run = {
        (s["feature"], s["name"])
        for r in document["requirements"]
        for s in r["scenarios"]
        if s["outcome"] == "not run"
    }
    assert not not_run, f"scenarios that never ran: {sorted(not_run)}"
    # junit.xml and cucumber.json describe the same run
    junit = ET.parse(report / "junit.xml").getroot()
    suite = junit if junit.tag == "testsuite" else junit.find("testsuite")
    assert suite is not None
    assert int(suite.get("tests", "-1")) == document["run"]["items"]
    cucumber = json.loads((report / "cucumber.json").read_text("utf-8"))
    assert sum(len(f["elements"]) for f in cucumber) == document["run"]["items"]
    # the summary of mqcn run
    assert "Requirements by verdict and keyword" in result.stdout
    assert f"{document['summary']['covered']} covered by a scenario" in result.stdout
    assert str(report / "report.html") in result.stdout


def test_full_run_html_names_every_requirement(full_run: tuple[Result, Path]) -> None:
    _, report = full_run
    page = (report / "report.html").read_text("utf-8")
    document = load(report)
    for requirement in document["requirements"]:
        assert f'id="{requirement["id"]}"' in page
    assert f"<strong>{document['target']}</strong>" in page
    assert not re.search(r"<link|<script[^>]+src=|<img|@import|url\(", page)


def test_plain_pytest_with_a_small_selection_writes_the_report(tmp_path: Path, coverage) -> None:
    selected = next(
        rid
        for rid, scenarios in coverage.by_requirement().items()
        if scenarios and CATALOG[rid].is_mandatory
    )
    report = tmp_path / "small"
    arguments = run_command.pytest_arguments("reference", report, ["-q", "-m", selected])
    assert pytest.main(arguments) == pytest.ExitCode.OK
    for name in REPORT_FILES:
        assert (report / name).is_file(), name
    document = load(report)
    validate_traceability(document)
    assert_consistent(document)
    assert document["run"]["deselected"] > 0
    by_id = {r["id"]: r for r in document["requirements"]}
    assert by_id[selected]["verdict"] == "pass"
    ran = [s for s in by_id[selected]["scenarios"] if s["outcome"] == "passed"]
    assert len(ran) >= len(coverage.by_requirement()[selected])
    # what did not run is inconclusive, not passed
    for requirement in document["requirements"]:
        if (
            not any(s["outcome"] != "not run" for s in requirement["scenarios"])
            and requirement["testable"]
        ):
            assert requirement["verdict"] == "inconclusive", requirement["id"]


# --- deliberately broken references --------------------------------------------------------------


class AcceptsUnauthenticated(server_model.NotificationServer):
    """Breaks MQCN-3.2.5.1-4: processes Version 0x01 messages whatever their AuthenticationLevel."""

    def _process_v1(self, envelope: Any, message: Any, effects: list[Any]) -> None:
        if envelope.authentication_level == AuthLevel.None_:
            envelope = dataclasses.replace(envelope, authentication_level=AuthLevel.Sig20)
        super()._process_v1(envelope, message, effects)


def accept_unauthenticated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reference.ReferenceTarget, "server_class", AcceptsUnauthenticated)


def apply_label(monkeypatch: pytest.MonkeyPatch) -> None:
    """Breaks MQCN-3.2.5.1-13: a queue update also applies PROPID_Q_LABEL (in the list and
    in the tables the server derives from it at import)."""
    sets = (*server_model.SERVER_QUEUE_UPDATE_SETS, PropId.PROPID_Q_LABEL)
    monkeypatch.setattr(server_model, "SERVER_QUEUE_UPDATE_SETS", sets)
    monkeypatch.setattr(server_model, "_QUEUE_UPDATE_USED", frozenset(sets))
    pairs = tuple((int(p), server_model.QUEUE_ATTRIBUTE_OF[p]) for p in sets)
    monkeypatch.setattr(server_model, "_QUEUE_UPDATE_SETS", pairs)


# Requirements a flipped rule may drag along (their scenarios observe the same behaviour).
ALSO_FAILING: dict[str, set[str]] = {AUTH_NONE: set(), LABEL_IGNORED: set()}


@pytest.mark.parametrize(
    ("requirement", "breakage"),
    [(AUTH_NONE, accept_unauthenticated), (LABEL_IGNORED, apply_label)],
    ids=["authentication-none-processed", "label-applied"],
)
def test_a_broken_reference_fails_exactly_the_broken_requirement(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    coverage,
    requirement: str,
    breakage: Callable[[pytest.MonkeyPatch], None],
) -> None:
    assert coverage.by_requirement()[requirement], f"no scenario is tagged with {requirement}"
    breakage(monkeypatch)
    result = mqcn_run(tmp_path)
    assert result.exit_code == 1, result.output
    document = load(tmp_path)
    assert_consistent(document)
    failing = verdicts(document, "fail", "error")
    assert requirement in failing, failing
    assert set(failing) - {requirement} <= ALSO_FAILING[requirement], failing
    entry = next(r for r in document["requirements"] if r["id"] == requirement)
    assert entry["failures"]
    for failure in entry["failures"]:
        assert failure["replay"].startswith("pytest steps/") and "\n" not in failure["replay"]
        assert failure["replay"].endswith("--mqcn-target=reference")
        # the bytes conform (the envelope or the server failed): no "judge it alone" offer
        assert failure["decode"] is None
        assert failure["envelope"]
    assert "Failing requirements" in result.stdout and requirement in result.stdout
    page = (tmp_path / "report.html").read_text("utf-8")
    assert 'class="badge v-fail">fail</span>' in page


# --- bad input ---------------------------------------------------------------------------------


@pytest.fixture
def tiny_project(tmp_path: Path) -> Iterator[Path]:
    """A project with one feature file and one step module, whose step leaves a trace."""
    root = tmp_path / "project"
    (root / "features").mkdir(parents=True)
    (root / "steps").mkdir()
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nbdd_features_base_dir = "features/"\n', encoding="utf-8"
    )
    (root / "steps" / "test_tiny.py").write_text(
        textwrap.dedent(
            """\
            from pathlib import Path
            from pytest_bdd import given, scenarios

            scenarios("tiny.feature")


            @given("a step")
            def _step():
                Path(__file__).with_name("ran").write_text("yes")
            """
        ),
        encoding="utf-8",
    )
    yield root


def tiny_run(root: Path, *extra: str) -> int:
    return pytest.main(
        [
            str(root / "steps"),
            f"--rootdir={root}",
            "-c",
            str(root / "pyproject.toml"),
            "-q",
            "--import-mode=importlib",
            "--strict-markers",
            *extra,
        ]
    )


def test_a_tag_naming_no_requirement_stops_the_run_before_anything_runs(
    tiny_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tiny_project / "features" / "tiny.feature").write_text(
        f"Feature: tiny\n  @{NOT_AN_ID}\n  Scenario: s\n    Given a step\n", encoding="utf-8"
    )
    status = tiny_run(tiny_project, f"--mqcn-report={tiny_project / 'out'}")
    assert status == pytest.ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert f"features/tiny.feature:2: tag @{NOT_AN_ID} names no requirement of the catalog" in err
    assert not (tiny_project / "steps" / "ran").exists()
    assert not (tiny_project / "out" / "traceability.json").exists()
    # without --mqcn-report too: the path covers the steps directory
    assert tiny_run(tiny_project) == pytest.ExitCode.USAGE_ERROR


def test_the_tiny_project_runs_when_its_tags_are_right(tiny_project: Path) -> None:
    (tiny_project / "features" / "tiny.feature").write_text(
        "Feature: tiny\n  @MQCN-3.2.5.1-4\n  Scenario: s\n    Given a step\n", encoding="utf-8"
    )
    assert tiny_run(tiny_project, f"--mqcn-report={tiny_project / 'out'}") == pytest.ExitCode.OK
    assert (tiny_project / "steps" / "ran").exists()
    document = load(tiny_project / "out")
    entry = next(r for r in document["requirements"] if r["id"] == "MQCN-3.2.5.1-4")
    assert entry["verdict"] == "pass"
    assert entry["scenarios"][0]["feature"] == "features/tiny.feature"


def test_an_unwritable_report_dir_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("x")
    arguments = run_command.pytest_arguments("reference", tmp_path / "file" / "sub", ["-q"])
    assert pytest.main(arguments) == pytest.ExitCode.USAGE_ERROR
    assert "--mqcn-report: cannot write to" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--target", "nonsense"], "--target: unknown target 'nonsense'"),
        (["--report", "{file}"], "is not a directory"),
        (["--report", "{file}/sub"], "--report: cannot write to"),
    ],
)
def test_run_usage_errors(tmp_path: Path, args: list[str], fragment: str) -> None:
    (tmp_path / "file").write_text("x")
    args = [a.replace("{file}", str(tmp_path / "file")) for a in args]
    result = runner.invoke(app, ["run", *args])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("mqcn run: error: ")
    assert fragment in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_run_without_a_steps_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_command, "suite_root", lambda: tmp_path)
    result = runner.invoke(app, ["run", "--report", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "the scenarios' step definitions are not installed" in result.stderr


def test_run_passes_pytest_usage_errors_on(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--report", str(tmp_path), "--", "--no-such-pytest-option"])
    assert result.exit_code == 2
    assert "mqcn run: error: pytest refused the run" in result.stderr
