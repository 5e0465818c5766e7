"""The wire requirements catalog: loaded beside the MS-MQCN one, guarded by the same req(),
kept out of everything that reports on MS-MQCN.

Wire IDs that must *not* be in the catalog are assembled at run time (``_wid``) so the
repository scan below does not trip over this file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mqcn_model.catalog import (
    CATALOG,
    WIRE_CATALOG,
    WIRE_ID_PATTERN,
    WIRE_KNOWN_SECTIONS,
    WIRE_ROLES,
    WIRE_SCHEME,
    WIRE_SPECS,
    CatalogError,
    UnknownRequirementError,
    load_catalog_text,
    req,
    requirement,
)
from mqcn_model.errors import Violation, fail
from mqcn_suite.coverage import Coverage

ROOT = Path(__file__).resolve().parents[1]
WIRE_ID_IN_TEXT = re.compile(rf"\b(?:{WIRE_SPECS})-[0-9]+(?:\.[0-9]+)*-[0-9]+", re.ASCII)


def _wid(spec: str, section: str, n: int | str) -> str:
    return spec + f"-{section}-{n}"


def test_the_wire_catalog_loads_with_its_own_ids() -> None:
    assert len(WIRE_CATALOG) >= 60
    for entry in WIRE_CATALOG.values():
        match = WIRE_ID_PATTERN.fullmatch(entry.id)
        assert match and match["section"] == entry.section
        assert entry.section in WIRE_KNOWN_SECTIONS[match["spec"]]
        assert entry.role in WIRE_ROLES and entry.testable and entry.is_mandatory
        assert entry.fingerprints == ()
    specs = {WIRE_ID_PATTERN.fullmatch(r)["spec"] for r in WIRE_CATALOG}  # type: ignore[index]
    assert specs == {"MQMQ", "MQQB", "MQDMPR", "MQRR"} == set(WIRE_SPECS.split("|"))


def test_the_two_catalogs_stay_apart() -> None:
    assert not set(WIRE_CATALOG) & set(CATALOG)
    assert all(r.startswith("MQCN-") for r in CATALOG)
    # the MS-MQCN coverage (and so the report's requirement list) knows nothing of wire IDs
    assert not set(WIRE_CATALOG) & set(Coverage(ROOT / "features").by_requirement())


def test_req_and_requirement_find_wire_ids() -> None:
    assert req("MQQB-2.2.7-1") == "MQQB-2.2.7-1"
    assert requirement("MQQB-2.2.7-1").section == "2.2.7"
    assert requirement("MQCN-2.2.4-1").section == "2.2.4"
    for unknown in (_wid("MQMQ", "2.2.19.1", 99), _wid("MQXX", "2.2.19.1", 1), "mqmq-2.2.19.1-1"):
        with pytest.raises(UnknownRequirementError):
            req(unknown)
        with pytest.raises(UnknownRequirementError):
            requirement(unknown)


def test_a_violation_of_a_wire_requirement_has_its_severity() -> None:
    violation = Violation("MQMQ-2.2.19.1-2", 4, "Signature is wrong")
    assert violation.severity == "error"
    assert violation.to_json()["requirement"] == "MQMQ-2.2.19.1-2"
    assert fail("MQMQ-2.2.19.1-2", 4, "x").requirement == "MQMQ-2.2.19.1-2"
    with pytest.raises(UnknownRequirementError):
        Violation(_wid("MQQB", "2.2.7", 9), 0, "typo")


_GOOD = """
requirements:
- id: MQMQ-2.2.19.1-1
  section: "2.2.19.1"
  keyword: MUST
  role: packet
  statement: BaseHeader.VersionNumber is 0x10.
  testability: testable
  rule: structural
"""


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ("id: MQMQ-2.2.19.1-1", "id: " + _wid("MQCN", "2.2.19.1", 1), "id must look like"),
        ("id: MQMQ-2.2.19.1-1", f"id: {_wid('MQMQ', '9.9', 1)}", "section '2.2.19.1' does not"),
        ('section: "2.2.19.1"', 'section: "2.2.19"', "does not match"),
        ("role: packet", "role: server", "role must be one of"),
        (
            "testability: testable",
            'testability: testable\n  fingerprints: ["0123456789ab"]',
            "carry no fingerprints",
        ),
        ("rule: structural", "rule: lenient", "rule must be one of"),
        ("  rule: structural\n", "", "rule must be one of"),
    ],
)
def test_a_broken_wire_catalog_is_refused(old: str, new: str, fragment: str) -> None:
    assert len(load_catalog_text(_GOOD, WIRE_SCHEME)) == 1
    with pytest.raises(CatalogError, match=fragment) as info:
        load_catalog_text(_GOOD.replace(old, new), WIRE_SCHEME)
    assert str(info.value).startswith("wire requirements catalog")


def test_the_mqcn_catalog_carries_no_rule_kind() -> None:
    """Only wire requirements are split into structural ones and value rules."""
    assert {r.rule for r in CATALOG.values()} == {""}
    assert {r.rule for r in WIRE_CATALOG.values()} == {"structural", "value", "session"}
    # a session rule belongs to the session machine, a packet rule to the codec
    assert all((r.rule == "session") == (r.role == "session") for r in WIRE_CATALOG.values())


def test_an_unknown_wire_section_is_refused() -> None:
    unknown = _wid("MQMQ", "2.2.99", 1)
    text = _GOOD.replace("MQMQ-2.2.19.1-1", unknown).replace('"2.2.19.1"', '"2.2.99"')
    with pytest.raises(CatalogError, match="unknown section"):
        load_catalog_text(text, WIRE_SCHEME)


def test_every_wire_id_written_in_the_repository_is_in_the_wire_catalog() -> None:
    unknown, seen = [], 0
    paths = [
        p for folder in ("mqcn_model", "mqcn_suite", "docs") for p in (ROOT / folder).rglob("*")
    ]
    paths += list((ROOT / "tests").glob("*wire*.py"))  # test_catalog.py uses one as a bad MQCN id
    for path in sorted(paths):
        if path.is_file() and path.suffix in (".py", ".yaml", ".md"):
            for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                for found in WIRE_ID_IN_TEXT.findall(line):
                    seen += 1
                    if found not in WIRE_CATALOG:
                        unknown.append(f"{path.relative_to(ROOT)}:{number}: {found}")
    assert seen > 100
    assert unknown == []


def test_the_wire_errata_the_catalog_names_exist() -> None:
    text = (ROOT / "docs" / "errata.md").read_text("utf-8")
    sections = set(re.findall(r"^### (W-\d\d) ", text, re.MULTILINE))
    rows = set(re.findall(r"^\| (W-\d\d) \|", text, re.MULTILINE))
    referenced = {e for r in WIRE_CATALOG.values() for e in r.errata}
    assert referenced and referenced <= sections
    assert sections == rows
    code = "\n".join(p.read_text("utf-8") for p in (ROOT / "mqcn_model" / "wire").glob("*.py"))
    assert set(re.findall(r"\bW-\d\d\b", code)) <= sections
