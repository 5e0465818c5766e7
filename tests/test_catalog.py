"""The requirements catalog: the packaged one is sound, broken ones are refused, IDs are checked.

Requirement IDs that must *not* be in the catalog are assembled at run time (``_rid``) so the
repository scan below, which fails on any ``MQCN-<section>-<n>`` text the catalog lacks, does
not trip over this file.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from mqcn_model import catalog as catalog_module
from mqcn_model.catalog import (
    CATALOG,
    ID_PATTERN,
    KEYWORDS,
    KNOWN_SECTIONS,
    ROLES,
    TESTABILITY,
    WIRE_CATALOG,
    Catalog,
    CatalogError,
    UnknownRequirementError,
    load_catalog_text,
    normalise_sentence,
    parse_catalog,
    req,
    sentence_fingerprint,
)
from mqcn_model.errata import ERRATA, LENIENT, STRICT, SWITCHES, Readings
from mqcn_model.errors import DecodeError, Violation, fail

ROOT = Path(__file__).resolve().parents[1]
SCANNED_DIRS = ("mqcn_model", "mqcn_suite", "steps", "features", "reference_vectors", "tests")
ID_IN_TEXT = re.compile(r"MQCN-[0-9]+(?:\.[0-9]+)*-[0-9]+", re.ASCII)


def _rid(section: str, n: int | str) -> str:
    """Build an ID at run time (see the module docstring)."""
    return "MQCN" + f"-{section}-{n}"


# --- the packaged catalog -------------------------------------------------------------------


def test_packaged_catalog_loads() -> None:
    assert isinstance(CATALOG, Catalog)
    assert len(CATALOG) > 100
    assert "MS-MQCN" in CATALOG.spec
    assert list(CATALOG) == [r.id for r in CATALOG.values()]
    # loading it again gives the same entries
    assert catalog_module._load_packaged().entries == CATALOG.entries


@pytest.mark.parametrize("file_name", ["requirements.yaml", "wire_requirements.yaml"])
def test_libyaml_and_the_pure_python_loader_read_the_same_catalog(file_name: str) -> None:
    # The catalogs are read with libyaml's safe loader where PyYAML has it, for speed; the
    # pure-Python safe loader must read the same documents from them.
    text = (Path(catalog_module.__file__).parent / file_name).read_text(encoding="utf-8")
    loader = catalog_module._SAFE_LOADER
    assert loader is getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml where it is
    assert yaml.load(text, Loader=loader) == yaml.safe_load(text)


def test_the_catalog_loads_where_pyyaml_has_no_libyaml() -> None:
    # PyYAML built without libyaml (a source build) has no CSafeLoader: the pure-Python
    # loader is used, with the same catalog.
    probe = (
        "import yaml; del yaml.CSafeLoader\n"
        "from mqcn_model.catalog import CATALOG, WIRE_CATALOG\n"
        "print(len(CATALOG), len(WIRE_CATALOG))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(len(CATALOG)), str(len(WIRE_CATALOG))]


def test_packaged_catalog_ids_are_unique_in_the_file() -> None:
    text = (ROOT / "mqcn_model" / "requirements.yaml").read_text("utf-8")
    raw_ids = [entry["id"] for entry in yaml.safe_load(text)["requirements"]]
    assert len(raw_ids) == len(set(raw_ids)) == len(CATALOG)


def test_packaged_catalog_entries_are_well_formed() -> None:
    for requirement in CATALOG.values():
        match = ID_PATTERN.fullmatch(requirement.id)
        assert match, requirement.id
        assert match["section"] == requirement.section
        assert requirement.section in KNOWN_SECTIONS
        assert requirement.keyword in KEYWORDS
        assert requirement.role in ROLES
        assert requirement.testability in TESTABILITY
        assert requirement.statement.strip() == requirement.statement != ""
        if not requirement.testable:
            assert requirement.reason, requirement.id
        if requirement.keyword == "PRODUCT":
            assert isinstance(requirement.note, int), requirement.id
        for fingerprint in requirement.fingerprints:
            assert re.fullmatch(r"[0-9a-f]{12}", fingerprint), requirement.id


def test_catalog_covers_the_message_sections() -> None:
    for section in ("2.2.2", "2.2.4", "2.2.5", "2.2.6", "3.3.5.1", "3.3.5.2", "3.3.5.3"):
        assert CATALOG.in_section(section), section
    assert all(r.section == "2.2.4" for r in CATALOG.in_section("2.2.4"))
    assert CATALOG.in_section("9.9") == []


@pytest.mark.parametrize(
    ("keyword", "severity"),
    [
        ("MUST", "error"),
        ("MUST NOT", "error"),
        ("SHOULD", "warning"),
        ("SHOULD NOT", "warning"),
        ("MAY", "info"),
        ("PRODUCT", "info"),
    ],
)
def test_severity_follows_the_keyword(keyword: str, severity: str) -> None:
    requirement = dataclasses.replace(CATALOG["MQCN-2.2.4-1"], keyword=keyword)
    assert requirement.severity == severity
    assert requirement.is_mandatory is (severity == "error")


def _scanned_files() -> list[Path]:
    files = []
    for name in SCANNED_DIRS:
        base = ROOT / name
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                files.append(path)
    return files


def test_every_requirement_id_written_in_the_repository_is_in_the_catalog() -> None:
    unknown: list[str] = []
    seen = 0
    for path in _scanned_files():
        text = path.read_text("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for found in ID_IN_TEXT.findall(line):
                seen += 1
                if found not in CATALOG:
                    unknown.append(f"{path.relative_to(ROOT)}:{number}: {found}")
    assert seen > 100  # the scan did find the IDs the code uses
    assert unknown == [], "requirement IDs not in the catalog:\n" + "\n".join(unknown)


def test_the_scan_pattern_catches_typos() -> None:
    text = f'R = req("{_rid("2.2.4", 31)}")  # and @{_rid("2.2.44", 1)} in a feature'
    found = ID_IN_TEXT.findall(text)
    assert found == [_rid("2.2.4", 31), _rid("2.2.44", 1)]
    assert not any(f in CATALOG for f in found)


# --- req() and Violation ----------------------------------------------------------------------


def test_req_returns_a_known_id() -> None:
    assert req("MQCN-2.2.6-3") == "MQCN-2.2.6-3"


@pytest.mark.parametrize(
    "requirement_id",
    [_rid("2.2.4", 99), _rid("9.9.9", 1), _rid("2.2.4", "01"), "mqcn-2.2.4-1", "2.2.4-1", ""],
)
def test_req_refuses_unknown_ids(requirement_id: str) -> None:
    with pytest.raises(UnknownRequirementError) as info:
        req(requirement_id)
    assert isinstance(info.value, KeyError)
    assert repr(requirement_id) in str(info.value)


def test_violation_with_an_unknown_id_raises() -> None:
    with pytest.raises(UnknownRequirementError):
        Violation(_rid("2.2.4", 99), 0, "typo")
    with pytest.raises(UnknownRequirementError):
        fail(_rid("2.2.4", 99), 0, "typo")


def test_violation_and_decode_error_carry_the_catalog_entry() -> None:
    violation = Violation("MQCN-2.2.6-8", 36, "Reserved is not zero")
    assert violation.severity == "info"
    assert violation.to_json() == {
        "requirement": "MQCN-2.2.6-8",
        "offset": 36,
        "message": "Reserved is not zero",
        "severity": "info",
    }
    error = fail("MQCN-2.2.4-1", 0, "Version is 0x03")
    assert isinstance(error, DecodeError)
    assert (error.requirement, error.offset) == ("MQCN-2.2.4-1", 0)
    assert str(error) == "MQCN-2.2.4-1 at byte 0: Version is 0x03"
    assert str(Violation("MQCN-2.2.4-1", None, "x")) == "MQCN-2.2.4-1: x"


# --- broken catalogs --------------------------------------------------------------------------


def _entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": "MQCN-2.2.4-1",
        "section": "2.2.4",
        "keyword": "MUST",
        "role": "message",
        "statement": "Version is 0x01 or 0x02.",
        "testability": "testable",
    }
    entry.update(changes)
    return {k: v for k, v in entry.items() if v is not None}


def _document(*entries: dict[str, Any]) -> str:
    return yaml.safe_dump({"version": 1, "spec": "test", "requirements": list(entries)})


def test_a_minimal_catalog_loads() -> None:
    second = _entry(id="MQCN-2.2.4-2", keyword="PRODUCT", note=5, errata=["E-05"])
    loaded = load_catalog_text(_document(_entry(), second))
    assert list(loaded) == ["MQCN-2.2.4-1", "MQCN-2.2.4-2"]
    assert loaded.spec == "test"
    assert loaded["MQCN-2.2.4-2"].note == 5
    assert loaded["MQCN-2.2.4-2"].errata == ("E-05",)
    untestable = _entry(testability="untestable", reason="needs a directory")
    assert not load_catalog_text(_document(untestable))["MQCN-2.2.4-1"].testable


BROKEN: list[tuple[str, list[dict[str, Any]], str, str]] = [
    (
        "duplicate-id",
        [_entry(), _entry(id="MQCN-2.2.4-2"), _entry()],
        "entry #3 (MQCN-2.2.4-1)",
        "duplicate id",
    ),
    (
        "id-section-mismatch",
        [_entry(), _entry(id="MQCN-2.2.4-2", section="2.2.5")],
        "entry #2 (MQCN-2.2.4-2)",
        "does not match the id",
    ),
    (
        "unknown-section",
        [_entry(id=_rid("4.1", 1), section="4.1")],
        f"entry #1 ({_rid('4.1', 1)})",
        "unknown section '4.1'",
    ),
    ("bad-id-zero", [_entry(id=_rid("2.2.4", 0))], f"({_rid('2.2.4', 0)})", "id must look like"),
    ("bad-id-form", [_entry(id="MQCN-2.2.4")], "(MQCN-2.2.4)", "id must look like"),
    ("bad-id-prefix", [_entry(id="MQMQ-2.2.4-1")], "(MQMQ-2.2.4-1)", "id must look like"),
    ("no-id", [_entry(id=None)], "entry #1 (no id)", "id must look like"),
    ("bad-keyword", [_entry(keyword="SHALL")], "(MQCN-2.2.4-1)", "keyword must be one of"),
    ("lower-keyword", [_entry(keyword="must")], "(MQCN-2.2.4-1)", "keyword must be one of"),
    ("bad-role", [_entry(role="router")], "(MQCN-2.2.4-1)", "role must be one of"),
    ("no-role", [_entry(role=None)], "(MQCN-2.2.4-1)", "role must be one of"),
    ("empty-statement", [_entry(statement="   ")], "(MQCN-2.2.4-1)", "statement is empty"),
    ("no-statement", [_entry(statement=None)], "(MQCN-2.2.4-1)", "statement is empty"),
    ("bad-testability", [_entry(testability="maybe")], "(MQCN-2.2.4-1)", "testability must be"),
    (
        "untestable-without-reason",
        [_entry(testability="untestable")],
        "(MQCN-2.2.4-1)",
        "needs a reason",
    ),
    (
        "untestable-blank-reason",
        [_entry(testability="untestable", reason="  ")],
        "(MQCN-2.2.4-1)",
        "needs a reason",
    ),
    ("product-without-note", [_entry(keyword="PRODUCT")], "(MQCN-2.2.4-1)", "note number"),
    (
        "product-note-text",
        [_entry(keyword="PRODUCT", note="five")],
        "(MQCN-2.2.4-1)",
        "note number",
    ),
    (
        "product-note-bool",
        [_entry(keyword="PRODUCT", note=True)],
        "(MQCN-2.2.4-1)",
        "note number",
    ),
]


@pytest.mark.parametrize(
    ("entries", "names", "problem"), [case[1:] for case in BROKEN], ids=[c[0] for c in BROKEN]
)
def test_broken_catalog_is_refused_naming_the_entry(
    entries: list[dict[str, Any]], names: str, problem: str
) -> None:
    with pytest.raises(CatalogError) as info:
        load_catalog_text(_document(*entries))
    message = str(info.value)
    assert message.startswith("requirements catalog, entry #")
    assert names in message
    assert problem in message


@pytest.mark.parametrize(
    "text",
    ["requirements: [\n  - id: x\n", "requirements:\n\t- id: x", "a: b: c", "{[}"],
    ids=["unclosed", "tab", "nested-colon", "brackets"],
)
def test_invalid_yaml_is_refused(text: str) -> None:
    with pytest.raises(CatalogError) as info:
        load_catalog_text(text)
    assert "not valid YAML" in str(info.value)


@pytest.mark.parametrize(
    "document",
    [None, [], "text", {}, {"requirements": None}, {"requirements": {"id": "x"}}],
    ids=repr,
)
def test_catalog_without_a_requirements_list_is_refused(document: Any) -> None:
    with pytest.raises(CatalogError, match="top level"):
        parse_catalog(document)


def test_catalog_entry_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(CatalogError, match=r"entry #2: an entry must be a mapping"):
        parse_catalog({"requirements": [_entry(), "MQCN"]})


def test_catalog_error_is_a_value_error() -> None:
    assert issubclass(CatalogError, ValueError)


# --- errata ------------------------------------------------------------------------------------


def test_every_errata_id_in_the_catalog_exists() -> None:
    referenced = {e for r in CATALOG.values() for e in r.errata}
    assert referenced  # the catalog does use errata
    assert referenced <= set(ERRATA), referenced - set(ERRATA)


def test_every_switch_is_a_readings_field_and_every_field_a_switch() -> None:
    fields = {f.name for f in dataclasses.fields(Readings)}
    switched = [item.switch.field for item in ERRATA.values() if item.switch is not None]
    assert sorted(switched) == sorted(fields)  # each field switched by exactly one erratum
    assert [s.field for s in SWITCHES] == [f.name for f in dataclasses.fields(Readings)]
    for errata_id in ERRATA:
        assert re.fullmatch(r"[EWD]-\d{2}", errata_id)


def test_strict_and_lenient_readings() -> None:
    assert STRICT.is_strict and not LENIENT.is_strict
    assert not any(v for v in STRICT.describe().values() if isinstance(v, bool))
    assert all(v for v in LENIENT.describe().values() if isinstance(v, bool))
    assert all(STRICT.reading_of(s.errata) == s.suite for s in SWITCHES)
    assert not dataclasses.replace(STRICT, trailing_data=True).is_strict


def test_errata_document_lists_the_same_items_and_switches() -> None:
    text = (ROOT / "docs" / "errata.md").read_text("utf-8")
    rows = re.findall(r"^\| ([EWD]-\d{2}) \|[^|]*\| (.*?) \|$", text, re.MULTILINE)
    table = {errata_id: switch.strip("`") for errata_id, switch in rows}
    assert set(table) == set(ERRATA)
    for errata_id, item in ERRATA.items():
        if item.switch is None and table[errata_id] == "both read":
            # a wire item whose two layouts the codec both reads (docs/errata.md, W-nn)
            assert item.why_no_switch.startswith("both"), errata_id
        elif item.switch is None:
            assert table[errata_id].startswith("—"), errata_id
        else:
            assert table[errata_id] == item.switch.field, errata_id
        assert f"### {errata_id} " in text, f"{errata_id} has no section in docs/errata.md"


# --- sentence fingerprints --------------------------------------------------------------------


def test_fingerprint_ignores_markup_note_marks_and_spacing() -> None:
    plain = "The Version field MUST be set to 0x02."
    marked = "The **Version**  field MUST be set to 0x02.[<5>](#)"
    assert normalise_sentence(marked) == normalise_sentence(plain) == plain.lower()
    assert sentence_fingerprint(marked) == sentence_fingerprint(plain)
    assert re.fullmatch(r"[0-9a-f]{12}", sentence_fingerprint(plain))
    assert sentence_fingerprint(plain) != sentence_fingerprint("The Version field MUST be 0x01.")
