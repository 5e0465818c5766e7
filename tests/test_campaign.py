"""The codec campaign, ``mqcn fuzz codec``: hostile bodies at scale, each finding replayable.

* the cases are a pure function of (seed, case), in any process;
* every category of finding is caught -- an exception, a broken verdict, a slow call, a hungry
  call, a call that never ends -- by planting the bug in a stand-in judge (the real model is
  not touched), and the replay of the case prints the same finding;
* the Spark path (``local[2]``) finds exactly the planted cases, writes findings.jsonl,
  bodies/ and summary.json, and checks its balance;
* 20 000 cases of the real model give no finding.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import typer
from cli_helpers import invoke, one_line_error

from mqcn_model.codec import decode_message
from mqcn_model.constants import Event
from mqcn_model.errata import LENIENT, Readings
from mqcn_model.errors import Violation
from mqcn_model.judge import Verdict, judge
from mqcn_suite.pipeline import campaign as campaign_module
from mqcn_suite.pipeline.audit import Auditor
from mqcn_suite.pipeline.campaign import (
    CAMPAIGN_SCHEMA,
    HEX_SHOWN,
    Examiner,
    Limits,
    campaign,
    codec_replay_line,
    replay_codec_case,
    run_campaign,
)
from mqcn_suite.pipeline.hostile import KINDS, SEEDS, hostile_case, seed_pool

pytestmark = pytest.mark.spark

SEED = 5


def unique_case(seed: int, start: int, *, minimum: int = 4) -> int:
    """A case number >= start whose body no other of the first 3000 cases shares."""
    bodies = [hostile_case(seed, n).body for n in range(3000)]
    for n in range(start, 3000):
        if len(bodies[n]) >= minimum and bodies.count(bodies[n]) == 1:
            return n
    raise AssertionError("no unique body")


def raising_on(*bodies: bytes, error: type[Exception] = IndexError) -> Any:
    """A judge that raises ``error`` on ``bodies`` and is the real judge otherwise."""
    planted = set(bodies)

    def planted_judge(body: bytes, readings: Readings) -> Verdict:
        if body in planted:
            raise error(f"planted on a {len(body)}-byte body")
        return judge(body, readings)

    return planted_judge


# --- the cases ------------------------------------------------------------------------------------


def _digest(seed: int, count: int) -> str:
    digest = hashlib.sha256()
    for n in range(count):
        case = hostile_case(seed, n)
        digest.update(f"{case.kind}:{case.origin}:{case.envelope_bits}:".encode())
        digest.update(case.body.hex().encode() + b"\n")
    return digest.hexdigest()


def test_cases_depend_on_seed_and_case_only_in_any_process() -> None:
    here = _digest(SEED, 400)
    source = inspect.getsource(_digest)
    code = f"import hashlib\nfrom mqcn_suite.pipeline.hostile import hostile_case\n{source}\n"
    code += f"print(_digest({SEED}, 400))"
    there = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "987"},
    ).stdout.strip()
    assert there == here
    assert _digest(SEED + 1, 400) != here
    assert hostile_case(SEED, 10) != hostile_case(SEED, 11)


def test_every_kind_of_damage_is_drawn_from_messages_of_every_kind() -> None:
    cases = [hostile_case(SEED, n) for n in range(3000)]
    assert {c.kind for c in cases} == set(KINDS)
    names = {seed.name for seed in seed_pool(SEED)}
    assert set(SEEDS) <= names
    assert {f"v2:{e.name.lower()}" for e in Event} <= names
    for kind in ("queue-creation", "queue-update", "machine-update", "queue-deletion"):
        assert any(kind in name for name in names), kind
    for seed in seed_pool(SEED):  # every seed is a valid message
        assert decode_message(seed.buffer) is not None and judge(seed.buffer).conforming
    by_name = {seed.name: seed for seed in seed_pool(SEED)}
    for case in cases:
        if case.kind == "truncation":
            assert by_name[case.origin].buffer.startswith(case.body)
            assert len(case.body) < len(by_name[case.origin].buffer)
        if case.kind in ("size-field", "count-field"):  # damage in place, at a field
            original = by_name[case.origin].buffer
            assert len(case.body) == len(original)
            changed = [
                i for i, (a, b) in enumerate(zip(original, case.body, strict=True)) if a != b
            ]
            seed = by_name[case.origin]
            starts = {o for o, _ in seed.fields}
            assert not changed or any(
                o <= changed[0] and changed[-1] < o + w for o, w in seed.fields if o in starts
            )


# --- each category is caught, and replays -------------------------------------------------------


def test_an_exception_in_the_judge_is_found_and_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    n = unique_case(SEED, 40)
    planted = raising_on(hostile_case(SEED, n).body)
    examiner = Examiner(warm_up=SEED, judge_function=planted)
    found = [c for c in range(n - 20, n + 20) if examiner.examine(hostile_case(SEED, c))]
    assert found == [n]
    finding = examiner.examine(hostile_case(SEED, n))
    assert finding is not None and finding.categories == ["exception"]
    assert finding.details[0].startswith("judge (strict): IndexError: planted on a")
    # where: the innermost frame of the project's code (the planted judge is the test's)
    assert "(at mqcn_suite/pipeline/campaign.py:" in finding.details[0]

    replayed = replay_codec_case(SEED, n, judge_function=planted)["finding"]
    assert replayed["categories"] == ["exception"] and replayed["detail"] == finding.details[0]
    assert replayed["replay"] == f"mqcn fuzz codec --seed {SEED} --case {n}"
    assert replay_codec_case(SEED, n)["finding"] is None  # the real judge: nothing


def test_an_exception_in_the_server_view_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    n = unique_case(SEED, 70)
    body = hostile_case(SEED, n).body
    real = Auditor.server_view

    def server_view(self: Auditor, envelope: Any, verdict: Any = None) -> Any:
        if envelope.body == body and self.readings is LENIENT:
            raise KeyError("planted in the server")
        return real(self, envelope, verdict)

    monkeypatch.setattr(Auditor, "server_view", server_view)
    examiner = Examiner(warm_up=SEED)
    finding = examiner.examine(hostile_case(SEED, n))
    assert finding is not None and finding.categories == ["exception"]
    assert finding.details[0].startswith("server view (lenient, other envelope): KeyError")
    assert examiner.examine(hostile_case(SEED, n + 1)) is None  # the auditors were rebuilt


def test_a_broken_verdict_is_a_contract_finding() -> None:
    n = unique_case(SEED, 100)
    target = hostile_case(SEED, n).body

    def lying_judge(body: bytes, readings: Readings) -> Verdict:
        verdict = judge(body, readings)
        if body != target:
            return verdict
        wrong = Violation("MQCN-2.2.4-2", len(body) + 5, "planted offset")
        return Verdict(False, None, (wrong,), (), len(body))

    finding = Examiner(judge_function=lying_judge).examine(hostile_case(SEED, n))
    assert finding is not None and finding.categories == ["contract"]
    assert "outside the input" in finding.details[0]


def test_a_slow_case_is_found_but_a_slow_first_run_is_noise() -> None:
    n = unique_case(SEED, 130)
    target = hostile_case(SEED, n).body
    calls: list[int] = []

    def slow_judge(body: bytes, readings: Readings) -> Verdict:
        if body == target:
            time.sleep(0.03)
        return judge(body, readings)

    def slow_once(body: bytes, readings: Readings) -> Verdict:
        if body == target:
            calls.append(1)
            if len(calls) == 1:
                time.sleep(0.05)
        return judge(body, readings)

    limits = Limits(trace_every=10**9)
    finding = Examiner(limits, judge_function=slow_judge).examine(hostile_case(SEED, n))
    assert finding is not None and finding.categories == ["slow"]
    assert finding.milliseconds is not None and finding.milliseconds > 2 * 30
    assert finding.traced  # every slow case is traced, sampled or not
    assert replay_codec_case(SEED, n, limits, judge_function=slow_judge)["finding"][
        "categories"
    ] == ["slow"]
    assert Examiner(limits, judge_function=slow_once).examine(hostile_case(SEED, n)) is None
    assert len(calls) == 2 + 2 * limits.repeats + 2  # first run, re-runs, traced run (x2 each)
    relaxed = Limits(slow_ms=500, trace_every=10**9)
    assert Examiner(relaxed, judge_function=slow_judge).examine(hostile_case(SEED, n)) is None
    assert "--slow-ms 500" in codec_replay_line(SEED, n, relaxed)


def test_a_call_that_never_ends_is_stopped() -> None:
    n = unique_case(SEED, 160)
    target = hostile_case(SEED, n).body

    def hanging_judge(body: bytes, readings: Readings) -> Verdict:
        if body == target:
            try:
                time.sleep(30)
            except Exception:  # code under test cannot swallow the watchdog
                return judge(body, readings)
        return judge(body, readings)

    examiner = Examiner(Limits(hang_seconds=0.3), judge_function=hanging_judge)
    started = time.perf_counter()
    finding = examiner.examine(hostile_case(SEED, n))
    assert time.perf_counter() - started < 5
    assert finding is not None and finding.categories == ["slow"]
    assert finding.details == ["judge (strict): stopped after 0.3 s, still running"]
    assert examiner.examine(hostile_case(SEED, n + 1)) is None


def test_a_hungry_case_is_found_when_traced() -> None:
    n = unique_case(SEED, 200)
    target = hostile_case(SEED, n).body
    budget = Limits().budget(len(target))

    def hungry_judge(body: bytes, readings: Readings) -> Verdict:
        hog = bytearray(2 * budget) if body == target else b""
        verdict = judge(body, readings)
        assert len(hog) in (0, 2 * budget)
        return verdict

    every = Limits(trace_every=1)
    finding = Examiner(every, judge_function=hungry_judge).examine(hostile_case(SEED, n))
    assert finding is not None and finding.categories == ["memory"]
    assert finding.peak_bytes is not None and finding.peak_bytes > 2 * budget
    assert f"> {budget} (max(65536, 64 x {len(target)} bytes))" in finding.details[0]
    # outside the sample (and fast), the call is not traced: the replay always traces
    sample = Limits(trace_every=10**9)
    assert Examiner(sample, judge_function=hungry_judge).examine(hostile_case(SEED, n)) is None
    replayed = replay_codec_case(SEED, n, sample, judge_function=hungry_judge)["finding"]
    assert replayed["categories"] == ["memory"] and replayed["traced"]
    generous = Limits(alloc_factor=64, alloc_floor=4 * budget, trace_every=1)
    assert Examiner(generous, judge_function=hungry_judge).examine(hostile_case(SEED, n)) is None


def test_the_sample_is_deterministic_and_documented() -> None:
    examiner = Examiner(Limits())
    traced = [n for n in range(64) if examiner.traced(hostile_case(SEED, n))]
    assert traced == [0, 16, 32, 48]
    assert all(Examiner(Limits(trace_every=1)).traced(hostile_case(SEED, n)) for n in range(5))


def test_the_same_seed_gives_the_same_findings() -> None:
    bodies = [hostile_case(SEED, n).body for n in (3, 50, 77)]

    def run() -> list[tuple[int, list[str], str]]:
        examiner = Examiner(judge_function=raising_on(*bodies, error=ValueError))
        found = []
        for n in range(120):
            finding = examiner.examine(hostile_case(SEED, n))
            if finding is not None:
                found.append((n, finding.categories, "; ".join(finding.details)))
        return found

    first = run()
    assert first == run()
    assert {n for n, _, _ in first} == {
        n for n in range(120) if hostile_case(SEED, n).body in bodies
    }


def test_each_batch_accounts_for_every_case() -> None:
    planted = raising_on(hostile_case(SEED, 9).body)
    task = run_campaign(SEED, Limits(), planted)
    batches = [pa.RecordBatch.from_pydict({"id": list(range(0, 300))})]
    out = pa.Table.from_batches(list(task(iter(batches))), schema=CAMPAIGN_SCHEMA).to_pylist()
    tallies = [r for r in out if r["row"] == "tally"]
    assert sum(t["generated"] for t in tallies) == sum(t["judged"] for t in tallies) == 300
    kinds = {t["kind"]: t["generated"] for t in tallies}
    assert kinds == {
        k: sum(1 for n in range(300) if hostile_case(SEED, n).kind == k) for k in kinds
    }
    assert sum(t["traced_cases"] for t in tallies) >= 300 // 16
    findings = [r for r in out if r["row"] == "finding"]
    assert {r["case"] for r in findings} >= {9}
    assert all(bytes.fromhex(r["hex"]) == hostile_case(SEED, r["case"]).body for r in findings)


# --- on Spark -------------------------------------------------------------------------------------


def test_spark_finds_exactly_the_planted_cases(spark: Any, tmp_path: Path) -> None:
    cases = 3000
    chosen = [
        unique_case(SEED, 7),
        unique_case(SEED, 1500, minimum=HEX_SHOWN + 1),
        unique_case(SEED, 2900),
    ]
    bodies = [hostile_case(SEED, n).body for n in chosen]
    planted = raising_on(*bodies)
    # --out as a file:// URI: written through Spark's Hadoop filesystem, as any cluster URI
    result = campaign(spark, cases, SEED, f"file://{tmp_path}/out", judge_function=planted)

    assert result.balanced and result.cases == result.generated == result.judged == cases
    assert result.findings == 3 and result.by_category["exception"] == 3
    assert sum(result.by_kind.values()) == cases and set(result.by_kind) == set(KINDS)
    assert result.traced >= cases // 16

    rows = [json.loads(line) for line in (tmp_path / "out" / "findings.jsonl").open()]
    assert [r["case"] for r in rows] == sorted(chosen)
    for row in rows:
        body = hostile_case(SEED, row["case"]).body
        assert row["seed"] == SEED and row["size"] == len(body)
        assert row["kind"] == hostile_case(SEED, row["case"]).kind
        assert row["categories"] == ["exception"] and "IndexError: planted" in row["detail"]
        assert row["replay"] == f"mqcn fuzz codec --seed {SEED} --case {row['case']}"
        assert row["hex"] == body.hex()[: 2 * HEX_SHOWN]
        assert row["hex_truncated"] == (len(body) > HEX_SHOWN)
        full = (tmp_path / "out" / row["body_file"]).read_text().strip()
        assert full == body.hex()
        # the replay, in process, prints the same finding
        again = replay_codec_case(SEED, row["case"], judge_function=planted)["finding"]
        assert (again["categories"], again["detail"]) == (row["categories"], row["detail"])
    assert any(r["hex_truncated"] for r in rows)

    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["cases"] == summary["generated"] == summary["judged"] == cases
    assert summary["balanced"] and summary["findings"] == 3 and summary["seed"] == SEED
    assert summary["by_category"] == {"exception": 3, "contract": 0, "slow": 0, "memory": 0}
    assert summary["cases_per_second"] > 0 and summary["limits"]["trace_every"] == 16


def test_twenty_thousand_cases_of_the_real_model_give_no_finding(
    spark: Any, app: typer.Typer, tmp_path: Path
) -> None:
    out = tmp_path / "clean"
    result = invoke(
        app, "fuzz", "codec", "--cases", "20000", "--seed", "1", "--out", str(out),
        "--engine", "spark",  # (tests/test_engines.py: the in-process engine gives the same)
    )  # fmt: skip
    assert result.exit_code == 0, (result.stdout, result.stderr)
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 2
    assert lines[0] == "20000 hostile bodies; engine: Spark local[2] (--engine spark)"
    assert lines[1].startswith("20000 hostile bodies (seed 1) through judge and server view: 0 ")
    assert "cases planned 20000 = generated 20000 = judged 20000" in lines[1]
    assert "; Spark local[2], " in lines[1]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["findings"] == 0 and summary["balanced"]
    assert (out / "findings.jsonl").read_text() == ""


# --- the command ---------------------------------------------------------------------------------


def test_the_replay_command(app: typer.Typer, monkeypatch: pytest.MonkeyPatch) -> None:
    n = unique_case(SEED, 300)
    clean = invoke(app, "fuzz", "codec", "--seed", str(SEED), "--case", str(n))
    assert clean.exit_code == 0, clean.stderr
    assert f"case {n} of seed {SEED} ({hostile_case(SEED, n).kind}" in clean.stdout
    assert clean.stdout.strip().endswith("no finding")

    monkeypatch.setattr(campaign_module, "judge", raising_on(hostile_case(SEED, n).body))
    found = invoke(app, "fuzz", "codec", "--seed", str(SEED), "--case", str(n))
    assert found.exit_code == 1, found.stderr
    assert "exception: judge (strict): IndexError: planted" in found.stdout
    assert f"replay: mqcn fuzz codec --seed {SEED} --case {n}" in found.stdout
    as_json = json.loads(
        invoke(app, "fuzz", "codec", "--seed", str(SEED), "--case", str(n), "--json").stdout
    )
    assert as_json["finding"]["categories"] == ["exception"]
    assert bytes.fromhex(as_json["hex"]) == hostile_case(SEED, n).body


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--cases", "0"], "--cases: 0: nothing to fuzz (give 1 or more cases)"),
        (["--cases", "-3"], "--cases: -3: nothing to fuzz"),
        ([], "--cases is required"),
        (["--case", "1", "--cases", "5"], "give no --cases"),
        (["--case", "1", "--out", "x"], "give no --out"),
        (["--case", "-1"], "--case: -1 is negative"),
        (["--case", "1", "--slow-ms", "0"], "--slow-ms: must be a positive"),
        (["--case", "1", "--trace-every", "0"], "--trace-every: must be at least 1"),
        (["--case", "1", "--alloc-factor", "x"], "--alloc-factor 'x': not"),
        (["--cases", "5", "--master", "lokal"], "is not a Spark master URL"),
    ],
)
def test_usage_errors_are_one_line(app: typer.Typer, args: list[str], expected: str) -> None:
    assert expected in one_line_error(invoke(app, "fuzz", "codec", *args))


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["codec", "--cases", "5", "--target", "reference"], "--target"),
        (["target", "--target", "reference", "--cases", "3", "--slow-ms", "5"], "--slow-ms"),
        (["--codec", "--cases", "5", "--target", "reference"], "--target"),
        (["--target", "reference", "--cases", "3", "--trace-every", "5"], "--trace-every"),
    ],
)
def test_an_option_of_the_other_subcommand_is_a_usage_error(
    app: typer.Typer, args: list[str], option: str
) -> None:
    """Each subcommand has its own options: the other's are unknown to it (exit 2)."""
    result = invoke(app, "fuzz", *args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert f"No such option: {option}" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (["--codec", "--seed", str(SEED), "--case", "3"], "codec"),
        (["--target", "reference", "--seed", str(SEED), "--case", "3"], "target"),
    ],
)
def test_the_older_spellings_still_work_and_name_the_new_one(
    app: typer.Typer, old: list[str], new: str
) -> None:
    before = invoke(app, "fuzz", *old)
    now = invoke(app, "fuzz", new, *(a for a in old if a != "--codec"))
    assert before.exit_code == now.exit_code == 0, (before.stderr, now.stderr)
    assert before.stdout == now.stdout and now.stderr == ""
    spelled = "--codec" if new == "codec" else "--target T"
    assert before.stderr == (
        f"mqcn fuzz: 'mqcn fuzz {spelled}' is deprecated: use 'mqcn fuzz {new}'\n"
    )


def test_a_non_empty_out_is_refused_before_spark(app: typer.Typer, tmp_path: Path) -> None:
    (tmp_path / "x").write_text("x")
    line = one_line_error(invoke(app, "fuzz", "codec", "--cases", "5", "--out", str(tmp_path)))
    assert "exists and is not an empty directory" in line


def test_a_broken_balance_is_an_internal_error(
    spark: Any, app: typer.Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def lossy(spark: Any, cases: int, seed: int, out: Any, limits: Limits, **_: Any) -> Any:
        return campaign_module.CampaignResult(
            seed,
            cases,
            cases,
            cases - 1,
            0,
            {},
            0,
            dict.fromkeys(campaign_module.CATEGORIES, 0),
            [],
            1.0,
            limits,
            None,
        )

    monkeypatch.setattr(campaign_module, "campaign", lossy)
    line = one_line_error(invoke(app, "fuzz", "codec", "--cases", "10"), code=3)
    assert line == (
        "mqcn fuzz: internal error: cases lost: cases planned 10 = generated 10 = judged 9"
    )
