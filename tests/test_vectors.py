"""The reference vectors (reference_vectors/*_test.json) against the codec and content rules.

Each vector is its own test: a ``valid`` vector must be conforming and decode to its
``expected`` fields; an ``invalid`` one must break exactly its ``violations``, the first at
``offset``; an ``acceptable`` one must be invalid under STRICT (as stated) and valid under
LENIENT and under STRICT with only its errata switches on.  The files themselves are checked
against the schema and for reproducibility (``generate.py --check``).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from mqcn_model.catalog import CATALOG
from mqcn_model.codec.propvalue import decode_value
from mqcn_model.constants import VT
from mqcn_model.errata import ERRATA, LENIENT, STRICT, Readings
from mqcn_model.errors import DecodeError
from mqcn_model.json_views import message_to_json, value_to_json
from mqcn_model.judge import judge

ROOT = Path(__file__).resolve().parent.parent
VECTOR_DIR = ROOT / "reference_vectors"
VECTOR_FILES = sorted(VECTOR_DIR.glob("*_test.json"))
SCHEMA = json.loads((VECTOR_DIR / "schema.json").read_text(encoding="utf-8"))
MIN_VECTORS = 150
READINGS = {"strict": STRICT, "lenient": LENIENT}

# Requirement IDs the codec or the rules name but no input can make them report:
UNREACHABLE = {
    # every element fits once Size has passed the "Size x element size <= bytes left" check
    "MQCN-2.2.3.13-3": "VT_UI4|VT_VECTOR elements cannot be cut short after the Size check",
    "MQCN-2.2.3.14-3": "VT_CLSID|VT_VECTOR elements cannot be cut short after the Size check",
    # a server-behaviour requirement the body codec names but never raises
    "MQCN-2.2.5-1": "taking changed data from the directory is judged by scenarios",
}
_CODE_WITH_IDS = [
    *sorted((ROOT / "mqcn_model" / "codec").glob("*.py")),
    ROOT / "mqcn_model" / "rules.py",
]


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _vectors() -> Iterator[Any]:
    for path in VECTOR_FILES:
        for group in _load(path)["testGroups"]:
            for test in group["tests"]:
                yield pytest.param(
                    group["type"], group["readings"], test, id=f"{path.stem}-{test['tcId']}"
                )


@dataclasses.dataclass
class Outcome:
    """What the implementation under test says about one vector."""

    conforming: bool
    violations: list[str]
    offset: int | None
    decoded: Any
    observations: list[str]


def run(test_type: str, test: dict[str, Any], readings: Readings) -> Outcome:
    """Judge one vector's ``msg`` under ``readings``."""
    buf = bytes.fromhex(test["msg"])
    if test_type == "PropertyValueTest":
        try:
            value, end = decode_value(VT(test["vt"]), buf, 0, len(buf), readings)
        except DecodeError as exc:
            return Outcome(False, [exc.requirement], exc.offset, None, [])
        return Outcome(True, [], None, {"value": value_to_json(value), "size": end}, [])
    assert test_type == "ChangeNotificationMessageTest", test_type
    verdict = judge(buf, readings)
    decoded = message_to_json(verdict.message) if verdict.message is not None else None
    first = verdict.violations[0].offset if verdict.violations else None
    notes = [o.requirement for o in verdict.observations]
    return Outcome(verdict.conforming, list(verdict.requirements), first, decoded, notes)


def assert_valid(outcome: Outcome, test: dict[str, Any]) -> None:
    assert outcome.conforming, f"expected valid, got {outcome.violations} at {outcome.offset}"
    assert outcome.decoded == test["expected"]
    assert outcome.observations == test.get("observations", [])


def assert_invalid(outcome: Outcome, test: dict[str, Any]) -> None:
    assert not outcome.conforming, "expected invalid, got a conforming verdict"
    assert outcome.violations == test["violations"]
    assert outcome.offset == test["offset"]


def errata_readings(test: dict[str, Any]) -> Readings:
    """STRICT with only the switches of the errata named in the test's flags turned on."""
    switches = {
        ERRATA[flag].switch.field: True  # type: ignore[union-attr]
        for flag in test["flags"]
        if flag in ERRATA and ERRATA[flag].switch is not None
    }
    assert switches, "an acceptable vector names an errata item that has a switch"
    return dataclasses.replace(STRICT, **switches)


@pytest.mark.parametrize(("test_type", "readings", "test"), list(_vectors()))
def test_vector(test_type: str, readings: str, test: dict[str, Any]) -> None:
    base = READINGS[readings]
    outcome = run(test_type, test, base)
    if test["result"] == "valid":
        assert_valid(outcome, test)
    elif test["result"] == "invalid":
        assert_invalid(outcome, test)
    else:
        assert readings == "strict", "acceptable is stated against the strict readings"
        assert_invalid(outcome, test)
        assert_valid(run(test_type, test, LENIENT), test)
        assert_valid(run(test_type, test, errata_readings(test)), test)


@pytest.mark.parametrize("path", VECTOR_FILES, ids=lambda p: p.stem)
def test_file_matches_schema(path: Path) -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(_load(path))


@pytest.mark.parametrize("path", VECTOR_FILES, ids=lambda p: p.stem)
def test_file_is_consistent(path: Path) -> None:
    data = _load(path)
    tests = [t for g in data["testGroups"] for t in g["tests"]]
    ids = [t["tcId"] for t in tests]
    assert len(ids) == len(set(ids)), "tcId values are unique within a file"
    assert data["numberOfTests"] == len(tests)
    used = {flag for t in tests for flag in t["flags"]}
    assert used <= set(data["notes"]), f"flags without a note: {used - set(data['notes'])}"
    for test in tests:
        for requirement in test["requirements"] + test.get("violations", []):
            assert requirement in CATALOG, f"tcId {test['tcId']}: unknown {requirement}"
        for flag in test["flags"]:
            if flag.startswith("E-"):
                assert flag in ERRATA, f"tcId {test['tcId']}: unknown errata {flag}"


EXPECTED_FILES = {
    "propvalue_test.json",
    "notification_update_test.json",
    "notification_body_test.json",
    "change_notification_message_test.json",
    "content_rules_test.json",
}


def test_enough_vectors() -> None:
    assert {p.name for p in VECTOR_FILES} >= EXPECTED_FILES
    total = sum(_load(p)["numberOfTests"] for p in VECTOR_FILES)
    assert total >= MIN_VECTORS


def test_every_raisable_requirement_has_a_vector() -> None:
    """Each requirement ID the codec or rules can report appears in some vector's verdict."""
    named = {
        rid
        for path in _CODE_WITH_IDS
        for rid in re.findall(r"MQCN-\d+(?:\.\d+)*-\d+", path.read_text(encoding="utf-8"))
    }
    covered = {
        rid
        for path in VECTOR_FILES
        for group in _load(path)["testGroups"]
        for test in group["tests"]
        for rid in test.get("violations", []) + test.get("observations", [])
    }
    missing = named - covered - set(UNREACHABLE)
    assert not missing, f"no vector reports {sorted(missing)}"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "mqcn_vector_generator", VECTOR_DIR / "generate.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it executes
    spec.loader.exec_module(module)
    return module


def test_files_are_reproducible() -> None:
    """``generate.py --check`` passes: the files are exactly what the generator writes."""
    assert _generator().main(["--check"]) == 0


@pytest.mark.parametrize(
    ("name", "conforming", "broken"),
    [
        ("v1-queue-creation.bin", True, ()),
        ("v1-update-and-deletion.bin", True, ()),
        ("v2-change-queue.bin", True, ()),
        ("v1-bad-deletion.bin", False, ("MQCN-3.3.5.2-23",)),
    ],
)
def test_samples_judge_as_documented(name: str, conforming: bool, broken: tuple[str, ...]) -> None:
    """The sample bodies the README points ``mqcn decode --file`` at say what they claim."""
    verdict = judge((VECTOR_DIR / "samples" / name).read_bytes())
    assert verdict.conforming is conforming
    assert verdict.requirements == broken


@pytest.mark.parametrize(
    ("name", "exit_code", "notification_queue", "body_broken"),
    [
        ("v1-queue-creation.packet.bin", 0, True, []),
        ("not-a-notification.packet.bin", 0, False, None),  # its body is not judged
    ],
)
def test_packet_samples_decode_as_documented(
    name: str, exit_code: int, notification_queue: bool, body_broken: list[str] | None
) -> None:
    """The UserMessage Packets the README points ``mqcn decode --packet`` at say what they
    claim: a change notification to a notification queue, and a message that is none."""
    from typer.testing import CliRunner

    from mqcn_suite.cli import app

    path = VECTOR_DIR / "samples" / name
    result = CliRunner().invoke(app, ["decode", "--packet", "--file", str(path), "--json"])
    assert result.exit_code == exit_code, result.output
    document = json.loads(result.stdout)
    assert document["notification_queue"] is notification_queue
    assert document["wire"] == {"conforming": True, "violations": []}
    assert document["envelope_findings"] == [] and document["packet"]["kind"] == "UserMessage"
    if body_broken is None:  # to another queue: the packet judged, the body only shown
        assert document["body"] is None and document["envelope"] is None
        assert document["conforming"] is True
        return
    assert [v["requirement"] for v in document["body"]["violations"]] == body_broken
    assert document["envelope"]["authentication_level"] == "Sig20"


def test_packet_samples_are_what_the_generator_writes() -> None:
    """Regenerating gives the same bytes (the wire encoder and a fixed SentTime)."""
    generator = _generator()
    first, again = generator.packet_samples(), generator.packet_samples()
    assert first == again and len(first) == 2
    for name, data in first.items():
        assert (VECTOR_DIR / "samples" / name).read_bytes() == data


def test_every_sample_the_readme_names_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"reference_vectors/samples/[\w.-]+", readme))
    assert {n.rsplit("/", 1)[1] for n in named} >= {
        "v1-queue-creation.packet.bin",
        "not-a-notification.packet.bin",
    }
    assert all((ROOT / n).is_file() for n in named), named
