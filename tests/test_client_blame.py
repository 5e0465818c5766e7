"""A failure blames the requirement that broke, on the scenarios' client-side path.

For every member of the defect catalogue a client can send (families version-0x01, content,
value from a directory service; version-0x02 from a queue manager), the client-side scenarios
run against ``zoo:sends:<member>`` (:class:`~mqcn_suite.targets.zoo.SendsDefect`), all members
in one pytest session (``tests/client_blame.py``: the scenarios are collected once, each
member runs exactly those in which its kind of message is sent).  Then:

* every member fails exactly its requirement and the collateral the catalogue declares (a
  sender's restatement, a consequence; ``sender_collateral``: what only the sending side's
  rules see, e.g. a Version 0x02 count other than 1 is no count of the one body Data
  carries, a creation whose PathName lacks its computer is not the queue's path), plus the
  aggregates made of them ("prepare it per 3.3.5.x", :data:`mqcn_model.sending.AGGREGATES`),
  and nothing else: every requirement that needed the reading is ``inconclusive (stopped
  by …)``;
* a member with an errata item warns on its requirement, naming the item, and never fails it
  (what it still breaks under that reading, ``under_errata`` and ``sender_collateral``,
  fails), unless its breach holds under every reading (its requirement is in its
  ``sender_collateral``: a multicast address no queue in the directory has);
* a Version 0x01 member some reading reads is a transformation of a conforming message
  (``Defect.apply``), which the zoo client applies to the very message it was asked for, so
  the rules comparing it with the directory see only the defect.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from mqcn_model.adm import Queue
from mqcn_model.client import NotificationClient, Operation
from mqcn_model.errata import STRICT, SWITCH_OF
from mqcn_model.judge import judge
from mqcn_model.sending import AGGREGATES
from mqcn_suite.cli import app
from mqcn_suite.scenarios.defects import DEFECTS, Defect, defect_version, sent_by_clients
from mqcn_suite.scenarios.fixtures import IDS
from mqcn_suite.targets import resolve_target
from mqcn_suite.targets.zoo import SendsDefect, _DefectClient

ROOT = Path(__file__).resolve().parents[1]
MEMBERS = sent_by_clients()
FAILING = ("fail", "claim-fail", "error")
# One xdist worker runs the module, so the ``verdicts`` fixture (a pytest session of its own,
# about half a minute) runs once rather than once per worker; session-scoped, so that this
# worker makes it once however the run orders the module's tests (a full run with module
# scope showed it made twice, 34 s each).
pytestmark = pytest.mark.xdist_group("client-blame")


@pytest.fixture(scope="session")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every member's failing, warning and stopped requirements (one pytest session)."""
    out = tmp_path_factory.mktemp("client-blame") / "verdicts.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(ROOT / "tests"), *filter(None, [env.get("PYTHONPATH")])]
    )
    command = [
        *(sys.executable, "-m", "pytest", "-q", "steps", "-p", "client_blame"),
        *("-k", "client or directory_service", "--tb=native", "-p", "no:randomly"),
        f"--client-blame-out={out}",
    ]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    result: dict[str, dict[str, Any]] = json.loads(out.read_text("utf-8"))
    return result


def aggregates_of(requirements: frozenset[str]) -> frozenset[str]:
    """The aggregate requirements made of any of ``requirements``."""
    return frozenset(a for a, _, made_of in AGGREGATES if any(map(made_of, requirements)))


def test_every_client_family_member_is_run(verdicts: dict[str, dict[str, Any]]) -> None:
    assert {d.family for d in MEMBERS} == {"version-0x01", "version-0x02", "content", "value"}
    assert set(verdicts) == {d.name for d in MEMBERS}


def expected_failing(defect: Defect) -> set[str]:
    """What a client sending ``defect`` fails: what its bytes break (under its errata item's
    reading, where it has one: the other reading passes its requirement) and what the
    sending side's rules see besides (``sender_collateral``)."""
    broken = defect.under_errata if defect.errata is not None else defect.breaks
    return set(broken) | set(defect.sender_collateral)


@pytest.mark.parametrize("defect", MEMBERS, ids=lambda d: d.name)
def test_a_client_sending_a_member_fails_exactly_what_it_breaks(
    verdicts: dict[str, dict[str, Any]], defect: Defect
) -> None:
    seen = verdicts[defect.name]
    failing = {rid for rid, verdict in seen["verdicts"].items() if verdict in FAILING}
    expected = expected_failing(defect)
    assert failing - aggregates_of(frozenset(expected)) == expected, seen
    verdict = seen["verdicts"].get(defect.requirement)
    if defect.errata is None or defect.requirement in defect.sender_collateral:
        assert verdict == "fail", seen  # broken under every reading
    else:
        # the other reading admits it: an observation of that reading, never a fail or a
        # warning; where some scenario judged the requirement, the report names the reading
        assert verdict is None or verdict.startswith("inconclusive"), seen
        if verdict is None and defect.requirement in seen["judged"]:
            assert seen["readings"][defect.errata] not in ("strict", "not observed"), seen


def test_a_readable_version_1_member_breaks_the_clients_own_message() -> None:
    """Every Version 0x01 member some reading reads is a transformation of a conforming
    message (or is built with the scenario's identities where it misaligns the layout), so
    what the client was asked to send is still what it sends, but for the defect."""
    for defect in MEMBERS:
        if defect_version(defect) != 1 or defect.apply is not None or defect.misaligned:
            continue
        body = defect.build(IDS)
        readings = [STRICT] + ([SWITCH_OF[defect.errata].readings] if defect.errata else [])
        assert all(judge(body, r).message is None for r in readings), defect.name


def test_the_zoo_client_applies_the_member_to_its_own_message() -> None:
    """Command 0x03: the conforming update the client was asked for, byte 2 changed."""
    defect = DEFECTS["Command 0x03"]
    queue = Queue(uuid.UUID(int=3), Pathname="qm\\q", Quota=77, Label="q")
    faulty = _DefectClient(uuid.UUID(int=1), version=1)
    faulty.defect = defect
    sent = [
        client.send_change_notification(
            Operation.QueueUpdate, queue, owner=uuid.UUID(int=9), changed=["Quota", "JournalQuota"]
        ).body
        for client in (NotificationClient(uuid.UUID(int=1), version=1), faulty)
    ]
    conforming, broken = sent
    assert broken == conforming[:2] + b"\x03" + conforming[3:]
    assert defect.apply is not None and defect.apply(conforming) == broken


def test_the_faulty_client_target_is_named_by_its_member() -> None:
    target = resolve_target("zoo:sends:a GUID in braces")
    assert isinstance(target, SendsDefect)
    assert target.name == "zoo:sends:a GUID in braces"
    assert target.BREAKS == "MQCN-2.2.5-7"


# --- the two cases of issue 17, through `mqcn run` ----------------------------------------------


def mqcn_run(report: Path, target: str) -> Result:
    arguments = ["run", "--target", target, "--report", str(report), "--", "-q"]
    return CliRunner().invoke(app, [*arguments, "-k", "client or directory_service"])


def test_a_guid_in_braces_fails_2_2_5_7_not_what_needed_the_reading(tmp_path: Path) -> None:
    """Was: MQCN-2.2.5-7 inconclusive, MQCN-3.3.5.1-7 and MQCN-3.3.5.3-7 failed."""
    result = mqcn_run(tmp_path, "zoo:sends:a GUID in braces")
    assert result.exit_code == 1, result.output
    document = json.loads((tmp_path / "traceability.json").read_text("utf-8"))
    failing = {r["id"] for r in document["requirements"] if r["verdict"] in FAILING}
    assert failing == {"MQCN-2.2.5-7"}


def test_a_count_of_2_over_one_update_blames_2_2_4_2_and_says_what_it_stopped(
    tmp_path: Path,
) -> None:
    """Was: a Version 1 client with NumberOfUpdateNotifications 2 got VT_I2, VT_I4 and BLOB
    failures.  Now MQCN-2.2.4-2 fails, and the terminal, traceability.json and junit.xml
    say which requirements it stopped."""
    result = mqcn_run(tmp_path, "zoo:sends:NumberOfUpdateNotifications 2 with one update")
    assert result.exit_code == 1, result.output
    document = json.loads((tmp_path / "traceability.json").read_text("utf-8"))
    failing = {r["id"] for r in document["requirements"] if r["verdict"] in FAILING}
    assert failing == {"MQCN-2.2.4-2"}
    stopped = {r["id"]: r["stopped_by"] for r in document["requirements"] if r["stopped_by"]}
    assert stopped and set(map(tuple, stopped.values())) == {("MQCN-2.2.4-2",)}
    some = next(iter(stopped))
    assert f"{some} inconclusive (stopped by MQCN-2.2.4-2)" in result.output
    junit = (tmp_path / "junit.xml").read_text("utf-8")
    assert "inconclusive (stopped by MQCN-2.2.4-2)" in junit
