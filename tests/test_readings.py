"""Readings are observed, not declared: a target following any reading of an errata item
(docs/errata.md) passes, and the report names the reading it was seen to follow.

* for **every** errata item (``mqcn_model.errata.ERRATA``: a new item is covered by the
  parametrisation automatically), the item is switchable or says why not, and the reference
  following each other reading of its switch alone gets no ``fail`` and no ``claim-fail``,
  and the report's "Readings followed" names that reading — or, for a switch that only
  changes how the suite judges bytes, ``not observed``;
* ``reference:letter`` (the letter everywhere) passes and is named ``letter`` overall;
* a target following the letter on one item and the suite's reading on another is ``mixed``;
* a target following one reading for PathName and the other for VT_LPWSTR is ``mixed``;
* a PICS claim that the observations contradict is a warning, never a failure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mqcn_model.codec.message import decode_message
from mqcn_model.errata import ERRATA, STRICT, SWITCHES, Item, following
from mqcn_model.errors import DecodeError
from mqcn_model.judge import errata_admitting
from mqcn_model.server import NotificationServer
from mqcn_suite.cli import app
from mqcn_suite.report import build_traceability
from mqcn_suite.report.results import ItemResult
from mqcn_suite.targets.pics import Pics, PicsError
from mqcn_suite.targets.reference import ReferenceTarget

runner = CliRunner()
FAILING = ("fail", "claim-fail", "error")


def run(report: Path, target: str, *options: str) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(
        app, ["run", "--target", target, "--report", str(report), *options, "--", "-q"]
    )
    document = json.loads((report / "traceability.json").read_text("utf-8"))
    return result.exit_code, document


def failing(document: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["verdict"] for r in document["requirements"] if r["verdict"] in FAILING}


def reading_of(document: dict[str, Any], errata: str) -> dict[str, Any]:
    return next(r for r in document["readings"] if r["errata"] == errata)


@pytest.mark.parametrize("item", ERRATA.values(), ids=list(ERRATA))
def test_every_item_is_switchable_or_justified_and_every_other_reading_passes(
    tmp_path: Path, item: Item
) -> None:
    if item.switch is None:
        assert item.why_no_switch and item.letter, item.id
        return
    switch = item.switch
    assert switch.others, item.id
    for name in switch.others:
        code, document = run(tmp_path / name, f"reference:{switch.errata}={name}")
        assert failing(document) == {}, name
        assert code == 0, name
        entry = reading_of(document, switch.errata)
        if switch.judging_only:
            assert entry["observed"] == "not observed", entry
            continue
        assert entry["observed"] == name, entry
        assert entry["scenarios"][name], entry
        others = [r for r in document["readings"] if r["errata"] != switch.errata]
        assert all(
            r["observed"] in ("not observed", STRICT.reading_of(r["errata"])) for r in others
        ), others


def test_the_reference_following_the_letter_passes_and_is_named_letter(tmp_path: Path) -> None:
    code, document = run(tmp_path, "reference:letter")
    assert failing(document) == {}
    assert code == 0
    assert document["readings_overall"] == "letter"
    for switch in SWITCHES:
        observed = reading_of(document, switch.errata)["observed"]
        assert observed in (switch.letter, "not observed"), (switch.errata, observed)
    for errata in ("E-01", "E-07", "E-12", "E-22", "E-23", "E-24"):
        assert reading_of(document, errata)["observed"] == ERRATA[errata].switch.letter


def test_the_letter_on_one_item_and_the_suite_elsewhere_is_mixed(tmp_path: Path) -> None:
    code, document = run(tmp_path, "reference:E-12")
    assert code == 0 and failing(document) == {}
    assert reading_of(document, "E-12")["followed"] == "letter"
    assert reading_of(document, "E-24")["followed"] == "suite"
    assert document["readings_overall"] == "mixed"


def test_the_strict_reference_is_seen_to_follow_the_strict_readings(tmp_path: Path) -> None:
    code, document = run(tmp_path, "reference")
    assert code == 0 and failing(document) == {}
    assert document["readings_overall"] == "suite"
    for switch in SWITCHES:
        wanted = "not observed" if switch.judging_only else switch.suite
        # a switch observable only on the sending side is not seen on a strict sender:
        # a conforming message is admitted by both readings
        assert reading_of(document, switch.errata)["observed"] in (wanted, "not observed")
    for errata in ("E-01", "E-07", "E-12", "E-14", "E-22", "E-23", "E-24"):
        assert reading_of(document, errata)["observed"] == STRICT.reading_of(errata)


class _MixedServer(NotificationServer):
    """Accepts a lone surrogate in a PathName (E-07 lenient) but not in a VT_LPWSTR value."""

    def deliver(self, envelope: Any) -> Any:
        lenient = following("E-07")
        try:
            message = decode_message(envelope.body, lenient)
        except DecodeError:
            message = None
        in_path = message is not None and any(
            u.path_name is not None and _has_lone_surrogate(u.path_name) for u in message.updates
        )
        self.readings = lenient if in_path else STRICT
        try:
            return super().deliver(envelope)
        finally:
            self.readings = STRICT


def _has_lone_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


class MixedTarget(ReferenceTarget):
    """Follows one reading of E-07 for PathName and the other for VT_LPWSTR."""

    name = "mixed-e07"
    server_class = _MixedServer


def test_a_target_following_both_readings_in_different_places_is_mixed(tmp_path: Path) -> None:
    code, document = run(tmp_path, "python:tests.test_readings:MixedTarget")
    assert failing(document) == {}
    assert code == 0
    entry = reading_of(document, "E-07")
    assert entry["observed"] == "mixed"
    assert {o["requirement"] for o in entry["scenarios"]["lenient"]} == {"MQCN-2.2.6-4"}
    assert "MQCN-2.2.3.10-2" in {o["requirement"] for o in entry["scenarios"]["strict"]}


def test_a_pics_claim_the_observations_contradict_is_a_warning(tmp_path: Path) -> None:
    pics = tmp_path / "claims.yaml"
    pics.write_text(
        "server: {v1: true, v2: true}\nclient: {v1: true, v2: true}\n"
        "profiles: [spec]\nworkgroup: false\nreadings: [strict]\n"
    )
    code, document = run(tmp_path / "r", "reference:E-14", "--pics", str(pics))
    assert code == 0 and failing(document) == {}
    entry = reading_of(document, "E-14")
    assert (entry["observed"], entry["claimed"], entry["verdict"]) == (
        "lenient",
        "strict",
        "warning",
    )
    assert reading_of(document, "E-07")["verdict"] == "pass"


def test_the_pics_readings_key_is_optional_and_may_name_items() -> None:
    base = {
        "server": {"v1": True, "v2": True},
        "client": {"v1": False, "v2": False},
        "profiles": ["spec"],
        "workgroup": False,
    }
    assert Pics.from_json(base).claimed_readings is None
    assert Pics.from_json(base | {"readings": ["strict", "lenient"]}).claimed_readings is None
    named = Pics.from_json(base | {"readings": {"E-07": "lenient"}})
    assert named.claimed_readings == {"E-07": "lenient"}
    assert Pics.from_json(named.to_json()) == named
    with pytest.raises(PicsError, match="E-02 is not a switchable errata item"):
        Pics.from_json(base | {"readings": {"E-02": "lenient"}})


def test_readings_followed_folds_the_checks_of_every_scenario() -> None:
    def item(nodeid: str, reading: str) -> ItemResult:
        check = {"requirement": "MQCN-2.2.6-4", "verdict": "pass", "message": "m"}
        check |= {"errata": "E-07", "reading": reading}
        return ItemResult(nodeid, nodeid, ["MQCN-2.2.6-4"], world={"checks": [check]})

    document = build_traceability(
        [item("a", "strict"), item("b", "strict")], target="t", claimed_readings={"E-07": "strict"}
    )
    entry = reading_of(document, "E-07")
    assert (entry["observed"], entry["verdict"]) == ("strict", "pass")
    assert [o["nodeid"] for o in entry["scenarios"]["strict"]] == ["a", "b"]
    document = build_traceability([item("a", "strict"), item("b", "lenient")], target="t")
    assert reading_of(document, "E-07")["observed"] == "mixed"
    assert reading_of(document, "E-01")["observed"] == "not observed"


def test_errata_admitting_names_the_switch_a_malformed_message_needs() -> None:
    from mqcn_suite.scenarios.defects import DEFECTS
    from mqcn_suite.scenarios.fixtures import IDS

    body = DEFECTS["PathName with a lone surrogate"].build(IDS)
    assert [s.errata for s in errata_admitting(body)] == ["E-07"]
    assert errata_admitting(DEFECTS["Command 0x03"].build(IDS)) == ()


class _OtherDefaultsServer(NotificationServer):
    """Set Queue Defaults with a Quota of 0 where the suite's model takes 0xFFFFFFFF (errata
    E-19 leaves the defaults open)."""

    def _v1_create_queue(self, update: Any, effects: list[Any]) -> None:
        before = {k: q.Quota for k, q in self.qm.QueueCollection.items()}
        super()._v1_create_queue(update, effects)
        for key, queue in self.qm.QueueCollection.items():
            if queue.Quota == 0xFFFFFFFF and before.get(key) != 0xFFFFFFFF:
                queue.Quota = 0


class LetterWithOtherDefaults(ReferenceTarget):
    """The letter everywhere, with other queue defaults: a replaced or nil-identified queue
    takes them."""

    name = "letter-other-defaults"
    server_class = _OtherDefaultsServer

    def __init__(self) -> None:
        super().__init__(following("letter"))


def test_a_reading_that_creates_a_queue_is_judged_up_to_its_defaults(tmp_path: Path) -> None:
    code, document = run(tmp_path, "python:tests.test_readings:LetterWithOtherDefaults")
    assert failing(document) == {}
    assert code == 0
    assert reading_of(document, "E-24")["observed"] == "replace"
    assert reading_of(document, "E-22")["observed"] == "nil-identifier"
