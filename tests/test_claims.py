"""A verdict only for what the target did.

* **Claimed means tested.** A call a claimed part (PICS) needs that answers
  ``not-implemented`` is a ``claim-fail`` of every requirement its scenario judges, naming the
  PICS entry and the call; ``not applicable`` is only for what the PICS leaves out.
* **Credit only the target.** A pass rests on a scenario in which the target acted; a run in
  which it never did exits 5 with one line.
* **Blame.** A state value outside the adapter schema's range is judged against its
  requirement (the likely mapping named), never "the target broke"; a vehicle scenario whose
  Read Directory broke is stopped by the read requirement.

The adapters are tests/adapters/: a vendor's first adapter that implements nothing, and the
reference with its quotas read signed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import mqcn_run
from typer.testing import Result

from mqcn_suite.commands._common import ExitCode
from mqcn_suite.commands.run import exit_code, nothing_judged
from mqcn_suite.report import ItemResult, build_traceability, validate_traceability
from mqcn_suite.scenarios.fixtures import IDS
from mqcn_suite.scenarios.messages import quota_change, v1_body, v2_body
from mqcn_suite.targets import ClaimNotImplemented, ClaimsGuard, Pics, ReferenceTarget, Setup
from mqcn_suite.targets.pics import out_of_range_only
from mqcn_suite.world import READ_OF_EVENT, RequirementFailure, World

ADAPTERS = Path(__file__).resolve().parent / "adapters"
NOTHING = f"exec:{sys.executable} {ADAPTERS / 'nothing.py'}"
SIGNED_QUOTA = f"exec:{sys.executable} {ADAPTERS / 'signed_quota.py'}"


def load(report: Path) -> dict[str, Any]:
    document = json.loads((report / "traceability.json").read_text("utf-8"))
    validate_traceability(document)
    return document


def verdicts(document: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["verdict"] for r in document["requirements"]}


def pics_file(directory: Path, *claims: str) -> Path:
    """A PICS claiming ``claims`` (``server.v1``, ``client.v2``…) and nothing else."""
    data = {
        side: {f"v{v}": f"{side}.v{v}" in claims for v in (1, 2)} for side in ("server", "client")
    }
    path = directory / f"claims-{'-'.join(claims)}.yaml"
    path.write_text(json.dumps(data | {"profiles": ["spec"], "workgroup": False}), "utf-8")
    return path


Run = tuple[Result, dict[str, Any], Path]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Run]:
    """``run(target, claims=…)``: the outcome, document and report folder of ``mqcn run``
    against ``target`` (with a PICS claiming ``claims`` alone, if given), made once per
    module: several tests read the same run."""
    made: dict[tuple[str, tuple[str, ...]], Run] = {}

    def once(target: str, *, claims: tuple[str, ...] = ()) -> Run:
        key = (target, claims)
        if key not in made:
            report = tmp_path_factory.mktemp("run")
            options = {"pics": str(pics_file(report.parent, *claims))} if claims else {}
            result = mqcn_run(report, target, **options)
            made[key] = (result, load(report), report)
        return made[key]

    return once


def assert_claim_fails_what_the_reference_passes(
    document: dict[str, Any], run: Callable[..., Run], claim: str
) -> None:
    """Every requirement an implementation of ``claim`` is judged by (what the reference
    passes with a PICS claiming that alone) is claim-fail in ``document``."""
    reference, judged_document, _ = run("reference", claims=(claim,))
    assert reference.exit_code == ExitCode.OK, reference.output[-2000:]
    judged = {rid for rid, v in verdicts(judged_document).items() if v == "pass"}
    mine = verdicts(document)
    assert judged and all(mine[rid] == "claim-fail" for rid in judged), {
        rid: mine[rid] for rid in judged if mine[rid] != "claim-fail"
    }


# --- 1. a target that implements nothing is never green -----------------------------------------


def test_an_adapter_claiming_server_v1_that_implements_nothing_fails_its_claim(
    run: Callable[..., Run],
) -> None:
    """Every requirement a server v1 implementation is judged by (what the reference passes
    with the same PICS) is claim-fail; none passes; the call and the PICS entry are named in
    the terminal and the document."""
    result, document, report = run(f"{NOTHING} --claims server.v1")
    assert result.exit_code == ExitCode.FOUND, result.output[-3000:]
    summary = document["summary"]
    assert summary["passed"] == 0
    assert summary["claim_failed"] > 0
    assert document["run"]["target_acted"] == 0
    missing = document["claimed_not_implemented"]
    assert [(m["claim"], m["call"]) for m in missing] == [("server.v1", "start_server")]
    assert "server.v1: start_server answered not-implemented" in result.output
    assert "Claimed but not implemented" in result.output
    html = (report / "report.html").read_text("utf-8")
    assert "Claimed but not implemented (1)" in html
    assert "<code>server.v1</code></td><td><code>start_server</code>" in html
    assert "The run exercised nothing" in html
    assert_claim_fails_what_the_reference_passes(document, run, "server.v1")
    for requirement in document["requirements"]:
        for failure in requirement["failures"]:
            assert failure["kind"] == "claim", failure
            assert "claims server.v1" in failure["message"], failure
            assert "start_server" in failure["message"], failure


def test_an_adapter_claiming_client_v2_that_implements_nothing_fails_its_claim(
    run: Callable[..., Run],
) -> None:
    """The client side is judged without a server side started (a client-only target is
    never asked to start one): its calls are the ones named."""
    result, document, _ = run(f"{NOTHING} --claims client.v2")
    assert result.exit_code == ExitCode.FOUND, result.output[-3000:]
    assert document["summary"]["passed"] == 0
    calls = {(m["claim"], m["call"]) for m in document["claimed_not_implemented"]}
    assert calls <= {("client.v2", "start_client"), ("client.v2", "send_change_notification")}
    assert ("client.v2", "send_change_notification") in calls
    assert not any(m["call"] == "start_server" for m in document["claimed_not_implemented"])
    assert_claim_fails_what_the_reference_passes(document, run, "client.v2")


def test_a_client_only_reference_is_judged_on_its_client_side(run: Callable[..., Run]) -> None:
    """Before, every client scenario started the server side first and a client-only PICS
    made them all not applicable: the client side of such a target was never judged."""
    result, document, _ = run("reference", claims=("client.v2",))
    assert result.exit_code == ExitCode.OK, result.output[-2000:]
    client = [r for r in document["requirements"] if r["role"] == "client" and r["testable"]]
    passed = [r["id"] for r in client if r["verdict"] == "pass"]
    assert len(passed) >= 20, passed
    assert document["run"]["target_acted"] > 0


def test_an_adapter_that_delivers_but_cannot_tell_its_state_fails_its_claim(
    run: Callable[..., Run],
) -> None:
    target = f"{NOTHING} --claims server.v1 --implements start_server,deliver,advance_clock"
    result, document, _ = run(target)
    assert result.exit_code == ExitCode.FOUND, result.output[-3000:]
    assert document["summary"]["passed"] == 0
    calls = {m["call"] for m in document["claimed_not_implemented"]}
    assert "state" in calls, calls
    assert "start_server" not in calls and "deliver" not in calls
    assert "server.v1: state answered not-implemented" in result.output


def test_not_applicable_stays_for_what_the_pics_leaves_out(run: Callable[..., Run]) -> None:
    """The do-nothing adapter's unclaimed parts (server v2, the client) stay not applicable:
    a claim-fail is never made of what it does not claim."""
    result, document, _ = run(f"{NOTHING} --claims server.v1")
    assert result.exit_code == ExitCode.FOUND
    mine = verdicts(document)
    reference, theirs_document, _ = run("reference", claims=("server.v1",))
    assert reference.exit_code == ExitCode.OK
    theirs = verdicts(theirs_document)
    not_applicable = {rid for rid, v in theirs.items() if v == "not applicable"}
    # a scenario needing both Versions fails at its first (claimed) delivery: the two
    # requirements it alone judges are claim-fail, as its other requirements are
    differing = {rid for rid in not_applicable if mine[rid] != "not applicable"}
    assert len(differing) <= 2, differing
    assert all(mine[rid] == "claim-fail" for rid in differing)


def test_the_guard_names_the_claim_a_python_target_breaks() -> None:
    """A Python target's NotImplementedError is the same claim-fail as an exec: target's
    ``not-implemented``: the Version delivered is the claim named."""

    class DeliversNothing(ReferenceTarget):
        def deliver(self, envelope: Any) -> None:
            raise NotImplementedError("deliver")

    pics = Pics(frozenset({1, 2}), frozenset(), frozenset({"spec"}), False)
    world = World(target=ClaimsGuard(DeliversNothing(), pics))
    world.own_queue()
    with pytest.raises(ClaimNotImplemented) as raised:
        world.deliver(v1_body(quota_change(IDS)))
    assert (raised.value.claim, raised.value.call) == ("server.v1", "deliver")
    assert world.acted == ["start_server"]


# --- 2. credit only the target ------------------------------------------------------------------


def test_no_scenario_of_the_suite_passes_without_the_target_acting(tmp_path: Path) -> None:
    """Every scenario the reference passes made it act: no requirement's pass rests on the
    suite's own codec or model (those checks live in tests/test_property_value_codec.py)."""
    result = mqcn_run(tmp_path, "reference")
    assert result.exit_code == ExitCode.OK, result.output[-2000:]
    document = load(tmp_path)
    assert document["suite_own"] == []
    for requirement in document["requirements"]:
        if requirement["verdict"] == "pass":
            acted = [s for s in requirement["scenarios"] if s["outcome"] == "passed"]
            assert any(s["target_acted"] for s in acted), requirement["id"]
    assert document["run"]["target_acted"] == document["run"]["passed"]


def _item(nodeid: str, requirement: str, *, acted: bool) -> ItemResult:
    world = {"checks": [{"requirement": requirement, "verdict": "pass", "message": "ok"}]}
    world["target_acted"] = ["deliver"] if acted else []
    return ItemResult(nodeid, nodeid, [requirement], outcome="passed", world=world)


def test_a_pass_without_the_target_acting_is_credited_to_nobody() -> None:
    rid = "MQCN-2.2.3.3-1"
    document = build_traceability([_item("own", rid, acted=False)], target="t")
    entry = next(r for r in document["requirements"] if r["id"] == rid)
    assert entry["verdict"] == "inconclusive"
    assert document["suite_own"][0]["nodeid"] == "own"
    assert document["run"]["target_acted"] == 0
    both = build_traceability(
        [_item("own", rid, acted=False), _item("real", rid, acted=True)], target="t"
    )
    assert next(r for r in both["requirements"] if r["id"] == rid)["verdict"] == "pass"


def test_a_run_that_exercised_nothing_exits_5_with_one_line() -> None:
    document = build_traceability([_item("own", "MQCN-2.2.3.3-1", acted=False)], target="t")
    assert exit_code(document, 0) == ExitCode.NO_SCENARIO
    line = nothing_judged(document["run"])
    assert "exercised nothing" in line and "\n" not in line
    acted = build_traceability([_item("real", "MQCN-2.2.3.3-1", acted=True)], target="t")
    assert exit_code(acted, 0) == ExitCode.OK


def test_a_check_recorded_before_the_target_acted_is_no_pass() -> None:
    """Within a scenario: a check the suite made before the target did anything carries
    ``target_acted: false`` and is credited to nobody, even if the target acts later."""
    rid = "MQCN-2.2.3.3-1"
    world = {
        "checks": [{"requirement": rid, "verdict": "pass", "message": "", "target_acted": False}],
        "target_acted": ["deliver"],
    }
    item = ItemResult("n", "n", ["MQCN-3.2.3-1"], outcome="passed", world=world)
    document = build_traceability([item], target="t")
    assert next(r for r in document["requirements"] if r["id"] == rid)["verdict"] == "inconclusive"


# --- 3. blame -----------------------------------------------------------------------------------


def test_a_quota_read_signed_fails_its_requirement_naming_the_mapping(tmp_path: Path) -> None:
    """Quota 4294967295 given as -1 is outside the schema's uint32: a fail of the
    requirement whose value it is, with the value and the likely mapping (errata D-05), never
    ``error``."""
    result = mqcn_run(tmp_path, SIGNED_QUOTA)
    assert result.exit_code == ExitCode.FOUND, result.output[-3000:]
    document = load(tmp_path)
    found = verdicts(document)
    assert "error" not in found.values()
    for rid in ("MQCN-3.2.5.2-6", "MQCN-2.2.3.7-1"):  # the read's copy, the VT_UI4 value
        assert found[rid] == "fail", rid
        messages = [
            f["message"] for r in document["requirements"] if r["id"] == rid for f in r["failures"]
        ]
        assert all("errata D-05" in m for m in messages), messages


def test_a_state_that_breaks_the_schema_otherwise_is_still_the_target_broken() -> None:
    reference = ReferenceTarget()
    reference.reset(Setup())
    state = reference.state()
    state["queue_manager"]["QueueManagerQuota"] = "many"
    assert not out_of_range_only("result/state", state)


def test_a_read_on_event_3_passes_and_keeping_the_queue_it_read_fails(tmp_path: Path) -> None:
    """Errata E-25: 3.2.5.2 forbids no read on event 3; a deletion that reads and then keeps
    the queue fails MQCN-3.2.5.2-7."""
    selection = ("-m", "MQCN-3.2.5.2-7")
    reads = mqcn_run(tmp_path / "reads", "zoo:ReadsBeforeDeleting", *selection)
    assert reads.exit_code == ExitCode.OK, reads.output[-2000:]
    assert verdicts(load(tmp_path / "reads"))["MQCN-3.2.5.2-7"] == "pass"
    keeps = mqcn_run(tmp_path / "keeps", "zoo:KeepsTheQueueItReadOnDelete", *selection)
    assert keeps.exit_code == ExitCode.FOUND, keeps.output[-2000:]
    assert verdicts(load(tmp_path / "keeps"))["MQCN-3.2.5.2-7"] == "fail"


class _NeverReads(ReferenceTarget):
    """Processes a Version 0x02 change as if it had read the directory, without reading."""

    def directory_reads(self) -> list[dict[str, Any]]:
        return []


def test_a_vehicle_scenario_with_a_missed_read_is_stopped_by_the_read_requirement() -> None:
    """A check of a format requirement that fails after a Version 0x02 change answered
    without a Read Directory is stopped by the read requirement, which fails instead."""
    world = World(target=_NeverReads())
    world.own_queue()
    world.deliver(v2_body(2))
    assert world.read_blocker() == (READ_OF_EVENT[2], "no Read Directory was made")
    with pytest.raises(RequirementFailure, match=r"^MQCN-3\.2\.5\.2-5: .*\[MQCN-2\.2\.5-6: "):
        world.expect("MQCN-2.2.5-6", False, "the message was processed")
    recorded = {(c.requirement, c.verdict) for c in world.checks}
    assert recorded == {("MQCN-2.2.5-6", "stopped"), ("MQCN-3.2.5.2-5", "fail")}
    with pytest.raises(RequirementFailure, match=r"^MQCN-3\.2\.5\.2-6: "):
        world.expect("MQCN-3.2.5.2-6", False, "a read requirement is judged as it is")
