"""Never a silent pass (issue 11): every run's outcome is what it claims, failures explain
themselves, and a broken target costs seconds.

* pytest-xdist (``-n 2``): each worker drives its own target, the reports are merged;
* a run that executed no scenario exits 5; a target that hangs after hello stops the run
  after ``--max-timeouts`` consecutive timeouts (exit 4), without transport tracebacks;
* summary cards, console totals, pytest's counts and the exit code agree; error apart;
* a failing scenario shows its envelope, an attribute-by-attribute diff, a replay command
  with every option of the run, and "judge the message alone" only where the bytes failed;
* ``info`` rows speak the spec's language, never a Python repr.
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from mqcn_model.builders import queue_creation
from mqcn_suite.cli import app
from mqcn_suite.commands._common import ExitCode
from mqcn_suite.commands.run import RunCounter, exit_code
from mqcn_suite.pipeline.fuzz import NOT_RUN, run_cases
from mqcn_suite.report import ItemResult, build_traceability, render_html, validate_traceability
from mqcn_suite.targets import ReferenceTarget
from mqcn_suite.world import World, describe

runner = CliRunner()
HERE = Path(__file__).resolve().parent
HANGS = f"exec:{sys.executable} {HERE / 'hang_after_hello.py'}"
AUTH_NONE = "MQCN-3.2.5.1-4"
BAD_VERSION = "MQCN-2.2.4-3"
SELECTION = "MQCN-3.2.5.1-4 or MQCN-3.2.3-2 or MQCN-2.2.4-3"


def mqcn_run(report: Path, *pytest_args: str, target: str = "reference", **options: str) -> Result:
    args = ["run", "--target", target, "--report", str(report)]
    for name, value in options.items():
        args += [f"--{name.replace('_', '-')}", value]
    return runner.invoke(app, [*args, "--", "-q", "-p", "no:randomly", *pytest_args])


def load(report: Path) -> dict[str, Any]:
    return json.loads((report / "traceability.json").read_text("utf-8"))


def verdicts(document: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["verdict"] for r in document["requirements"]}


# --- 1. every run's outcome is what it claims --------------------------------------------------


def test_xdist_workers_drive_their_own_targets_and_the_reports_are_merged(tmp_path: Path) -> None:
    serial = mqcn_run(tmp_path / "serial", "-m", SELECTION)
    parallel = mqcn_run(tmp_path / "parallel", "-n", "2", "-m", SELECTION)
    assert serial.exit_code == parallel.exit_code == 0, parallel.output
    one, two = load(tmp_path / "serial"), load(tmp_path / "parallel")
    assert two["run"]["items"] == one["run"]["items"] > 0
    assert two["run"]["passed"] == one["run"]["passed"]
    assert two["run"]["deselected"] == one["run"]["deselected"] > 0
    assert verdicts(two) == verdicts(one)
    assert verdicts(two)[AUTH_NONE] == "pass"
    cucumber = json.loads((tmp_path / "parallel" / "cucumber.json").read_text("utf-8"))
    assert sum(len(f["elements"]) for f in cucumber) == two["run"]["items"]
    assert f"Scenario runs: {two['run']['items']} (" in parallel.stdout


def test_xdist_with_an_exec_target_starts_one_program_per_worker(tmp_path: Path) -> None:
    serve = f"exec:{sys.executable} -m mqcn_suite.targets.serve"
    result = mqcn_run(tmp_path, "-n", "2", "-m", SELECTION, target=serve)
    assert result.exit_code == 0, result.output
    document = load(tmp_path)
    assert document["run"]["passed"] == document["run"]["items"] > 0


def test_a_run_that_executed_no_scenario_exits_5(tmp_path: Path) -> None:
    result = mqcn_run(tmp_path, "-k", "nomatch-at-all")
    assert result.exit_code == ExitCode.NO_SCENARIO == 5, result.output
    assert "no scenario ran" in result.stderr
    assert load(tmp_path)["run"]["items"] == 0


def test_a_report_that_lost_its_results_is_an_internal_error() -> None:
    counter = RunCounter()

    class Report:
        def __init__(self, nodeid: str, outcome: str) -> None:
            self.nodeid, self.outcome = nodeid, outcome

    for n in range(3):
        counter.pytest_runtest_logreport(Report(f"t{n}", "passed"))  # type: ignore[arg-type]
    empty = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    assert "pytest ran 3 scenarios" in (counter.disagreement({"run": empty}) or "")
    assert counter.disagreement({"run": {**empty, "passed": 3}}) is None


def item(
    name: str,
    requirements: list[str],
    outcome: str = "passed",
    checks: list[dict[str, Any]] | None = None,
    target_error: bool = False,
    world: dict[str, Any] | None = None,
) -> ItemResult:
    return ItemResult(
        nodeid=f"steps/test_x.py::{name}",
        name=name,
        requirements=requirements,
        scenario=name,
        outcome=outcome,
        failure=f"{name} failed",
        target_error=target_error,
        world={"checks": checks or [], "message_hex": "", **(world or {})},
    )


def test_counts_agree_and_error_stays_apart_from_fail() -> None:
    """A broken target is an error in the run counts, the cards and the exit code (4); a
    requirement whose scenario stopped on another's failure is never a bare pass."""
    document = build_traceability(
        [
            item("broke", [AUTH_NONE], "error", target_error=True),
            item(
                "stopped",
                ["MQCN-3.2.3-2", BAD_VERSION],
                "failed",
                [{"requirement": BAD_VERSION, "verdict": "fail", "message": "processed"}],
            ),
        ],
        target="reference",
    )
    validate_traceability(document)
    found = verdicts(document)
    assert found[AUTH_NONE] == "error" and found[BAD_VERSION] == "fail"
    assert found["MQCN-3.2.3-2"] == "inconclusive"  # not a pass beside a failed scenario
    entry = next(r for r in document["requirements"] if r["id"] == "MQCN-3.2.3-2")
    assert entry["scenarios"][0]["stopped_by"] == [BAD_VERSION]
    assert document["run"] == {
        **document["run"],
        "items": 2,
        "passed": 0,
        "failed": 1,
        "error": 1,
    }
    assert document["summary"]["error"] == 1 and document["summary"]["failed"] == 1
    page = render_html(document)
    assert re.search(r'<div class="label">Error</div><div class="n"[^>]*>1<', page)
    assert re.search(r'<div class="label">Failed</div><div class="n"[^>]*>1<', page)
    assert "Failing requirements (2: 1 fail, 1 error)" in page
    assert exit_code(document, 1) == 1  # a failure outweighs the error
    only_error = build_traceability(
        [item("broke", [AUTH_NONE], "error", target_error=True)], target="reference"
    )
    assert exit_code(only_error, 1) == ExitCode.TARGET


def test_percentages_are_of_the_applicable_requirements(tmp_path: Path) -> None:
    pics = tmp_path / "v1.yaml"
    pics.write_text(
        "server: {v1: true, v2: false}\nclient: {v1: false, v2: false}\nprofiles: [spec]\n"
        "readings: [strict]\nworkgroup: false\n",
        encoding="utf-8",
    )
    result = mqcn_run(tmp_path / "r", "-m", SELECTION + " or MQCN-3.2.5.2-4", pics=str(pics))
    summary = load(tmp_path / "r")["summary"]
    assert summary["not_applicable"] > 0
    assert summary["applicable"] == summary["testable"] - summary["not_applicable"]
    share = f"{100 * summary['passed'] / summary['applicable']:.0f}%"
    assert f"{summary['passed']} passed ({share} of applicable)" in result.stdout


# --- 2. failures explain themselves -------------------------------------------------------------


def test_a_failed_state_check_shows_the_envelope_the_diff_and_no_misleading_decode(
    tmp_path: Path,
) -> None:
    result = mqcn_run(
        tmp_path,
        "-m",
        AUTH_NONE,
        target="python:mqcn_suite.targets.zoo:ProcessesUnauthenticated",
        timeout="5",
        claims="info",
    )
    assert result.exit_code == 1, result.output
    entry = next(r for r in load(tmp_path)["requirements"] if r["id"] == AUTH_NONE)
    failure = entry["failures"][0]
    fields = {f["name"]: f["value"] for f in failure["envelope"]}
    assert fields["AuthenticationLevel"] == "None"
    assert {"SenderIdentifier", "SenderIdentifierType", "HashAlgorithm"} <= set(fields)
    assert failure["diff"] and all(
        {"attribute", "expected", "observed"} == set(d) for d in failure["diff"]
    )
    assert "queue_manager.QueueManagerQuota: 4294967295 -> 7777" in failure["message"]
    assert failure["decode"] is None  # the bytes conform: the envelope is what failed
    assert "--mqcn-timeout=5" in failure["replay"] and "--mqcn-claims=info" in failure["replay"]
    assert "AuthenticationLevel None" in result.stdout
    page = (tmp_path / "report.html").read_text("utf-8")
    assert "<th>AuthenticationLevel</th><td><code>None</code>" in page
    assert "expected against observed" in page


def test_judge_the_message_alone_only_where_the_bytes_failed() -> None:
    bad_version, version_rule = "07" + "00" * 3, "MQCN-2.2.4-1"  # the judge sees this one
    document = build_traceability(
        [
            item(
                "bytes",
                [version_rule],
                "failed",
                [{"requirement": version_rule, "verdict": "fail", "message": "processed"}],
                world={"message_hex": bad_version},
            ),
            item(
                "envelope",
                [AUTH_NONE],
                "failed",
                [{"requirement": AUTH_NONE, "verdict": "fail", "message": "processed"}],
                world={"message_hex": bad_version},
            ),
        ],
        target="reference",
    )
    by_id = {r["id"]: r for r in document["requirements"]}
    assert by_id[version_rule]["failures"][0]["decode"] == f"mqcn decode --hex {bad_version}"
    assert by_id[AUTH_NONE]["failures"][0]["decode"] is None


def test_the_replay_command_repeats_every_option_that_shaped_the_run(tmp_path: Path) -> None:
    options = {
        "--mqcn-timeout": "2.5",
        "--mqcn-pics": str(tmp_path / "my pics.yaml"),
        "--mqcn-claims": "info",
    }
    document = build_traceability(
        [item("a", [BAD_VERSION], "failed")], target="exec:./qm --x", options=options
    )
    replay = next(r for r in document["requirements"] if r["id"] == BAD_VERSION)["failures"][0][
        "replay"
    ]
    assert replay == (
        "pytest steps/test_x.py::a --mqcn-target='exec:./qm --x' --mqcn-timeout=2.5 "
        f"--mqcn-pics='{tmp_path / 'my pics.yaml'}' --mqcn-claims=info"
    )
    assert document["run"]["options"] == options


def test_info_rows_speak_the_spec_not_python() -> None:
    update = queue_creation(uuid.UUID(int=5), "qm1\\orders", master=uuid.UUID(int=6))
    text = describe([update, b"\x00\x01"])
    assert "NotificationUpdate(" not in text and "b'" not in text
    assert text.startswith("update Command 0x00 UseGuid 0x00 qm1\\orders (PROPID_Q_TYPE")
    assert text.endswith("0x0001")
    world = World(target=ReferenceTarget())
    problems = world.problems_for(st.just([update]), lambda drawn: "noted", examples=1)
    assert problems and all("NotificationUpdate(" not in p for p in problems)
    assert all(not re.search(r"\b[A-Z]\w+\(\w+=", p) for p in problems)


# --- 3. a broken target costs seconds, not hours ------------------------------------------------


def test_a_target_that_hangs_after_hello_stops_the_run_after_three_timeouts(
    tmp_path: Path,
) -> None:
    result = mqcn_run(tmp_path, target=HANGS, timeout="0.5")
    assert result.exit_code == ExitCode.TARGET == 4, result.output
    document = load(tmp_path)
    run_info = document["run"]
    assert run_info["error"] == 3 and run_info["passed"] == run_info["failed"] == 0
    assert run_info["not_run"] > 300 and run_info["items"] == 3
    assert run_info["stopped"].startswith("mqcn: the target timed out 3 times in a row")
    assert set(verdicts(document).values()) <= {"error", "untestable"}
    assert "timed out 3 times in a row" in result.stderr
    assert "Traceback" not in result.output and "targets/exec.py" not in result.output
    assert "no answer within 0.5 s (stderr and the exchange: in the mqcn report)" in result.output
    assert "Failing requirements (171: 171 error)" in result.stdout


def test_max_timeouts_is_configurable(tmp_path: Path) -> None:
    result = mqcn_run(tmp_path, target=HANGS, timeout="0.5", max_timeouts="1")
    assert result.exit_code == ExitCode.TARGET, result.output
    assert load(tmp_path)["run"]["error"] == 1


def test_fuzz_stops_calling_a_target_that_keeps_timing_out() -> None:
    cases = pa.RecordBatch.from_pylist([{"id": n} for n in range(6)])
    rows = [
        row
        for batch in run_cases(HANGS, 0, timeout=0.5, max_timeouts=2)(iter([cases]))
        for row in batch.to_pylist()
        if row["kind"] == "divergence"
    ]
    kinds = [row["divergence"] for row in rows]
    assert kinds == ["target-error", "target-error", *[NOT_RUN] * 4], kinds


def test_fuzz_has_a_timeout_option() -> None:
    result = runner.invoke(app, ["fuzz", "target", "--help"])
    assert "--timeout" in result.stdout and "--max-timeouts" in result.stdout
    refused = runner.invoke(app, ["fuzz", "target", "--target", "reference", "--timeout", "0"])
    assert refused.exit_code == 2


def test_a_target_that_hangs_mid_hypothesis_is_one_error_line_and_never_replayed(
    tmp_path: Path,
) -> None:
    """The hang comes at the second generated example; a restarted program would pass it,
    which made hypothesis replay it and report a FlakyFailure in an exception group."""
    log = tmp_path / "target.log"
    log.touch()
    hangs_once = f"exec:{sys.executable} {HERE / 'hang_mid_hypothesis.py'}"
    result = mqcn_run(
        tmp_path / "report",
        "-k",
        "disregards_every_version_but_0x01_and_0x02_generated",
        target=f"{hangs_once} {log}",
        timeout="1",
    )
    assert result.exit_code == ExitCode.TARGET == 4, result.output
    assert "Flaky" not in result.output and "Exception Group" not in result.output
    assert "Traceback" not in result.output
    section = result.output.split("= ERRORS =", 1)[1].splitlines()[1:]
    heading, said = section[0], section[1:]
    said = said[: next(n for n, line in enumerate(said) if line.startswith(("=", "-")))]
    assert heading.startswith("_ ERROR at call of") and len(said) == 1, section
    assert said[0].startswith("TargetTimeout: ") and "deliver: no answer within 1 s" in said[0]
    # started by the command's check and by the run; never restarted to replay the example
    assert log.read_text().split() == ["start", "start", "hang"]
    assert verdicts(load(tmp_path / "report"))["MQCN-2.2.4-1"] == "error"
