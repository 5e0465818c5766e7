"""The normative sentences of the specification, and the catalog's completeness against them.

The real specification is ``../shared/spec/MS-MQCN.md`` relative to the repository root (CI
has ``shared/`` beside the repository).  It is required: without it these tests fail, they do
not skip, since the catalog's completeness is exactly what they prove.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from mqcn_model.catalog import (
    CATALOG,
    CatalogError,
    clean_sentence,
    load_catalog_text,
    normalise_sentence,
    sentence_fingerprint,
)
from mqcn_model.spec_text import (
    SpecSentence,
    check_coverage,
    find_keywords,
    heading_section,
    is_normative_section,
    normative_sentences,
    split_sentences,
)
from mqcn_suite.commands.catalog_verify import VERIFY_HELP, verify

ROOT = Path(__file__).resolve().parents[1]
SPEC_PATH = ROOT.parent / "shared" / "spec" / "MS-MQCN.md"

# What the extraction finds in [MS-MQCN] v17.0: a change here means the extraction (or the
# spec file) changed, and the catalog mapping has to be looked at again.
EXPECTED_TOTAL = 152
EXPECTED_BY_KEYWORD = {"MUST": 131, "MUST NOT": 3, "SHOULD": 3, "MAY": 1, "PRODUCT": 14}
EXPECTED_BY_SECTION = {
    "2.2.2": 1,
    "2.2.3": 1,
    "2.2.3.1": 2,
    "2.2.3.2": 2,
    "2.2.3.3": 5,
    "2.2.3.4": 1,
    "2.2.3.5": 1,
    "2.2.3.6": 2,
    "2.2.3.7": 2,
    "2.2.3.8": 2,
    "2.2.3.9": 2,
    "2.2.3.10": 3,
    "2.2.3.11": 3,
    "2.2.3.12": 1,
    "2.2.3.13": 4,
    "2.2.3.14": 4,
    "2.2.3.15": 4,
    "2.2.4": 3,
    "2.2.5": 4,
    "2.2.6": 10,
    "2.3": 1,
    "3.2.3": 3,
    "3.2.5": 5,
    "3.2.5.1": 18,
    "3.2.5.2": 7,
    "3.3.3": 2,
    "3.3.4.1": 2,
    "3.3.5.1": 10,
    "3.3.5.2": 25,
    "3.3.5.3": 8,
    "6": 14,
}


@pytest.fixture(scope="module")
def spec_text() -> str:
    if not SPEC_PATH.is_file():
        pytest.fail(
            f"the specification text is missing: expected {SPEC_PATH} "
            "(shared/spec/MS-MQCN.md beside the repository)",
            pytrace=False,
        )
    return SPEC_PATH.read_text("utf-8")


@pytest.fixture(scope="module")
def sentences(spec_text: str) -> list[SpecSentence]:
    return normative_sentences(spec_text)


def _texts(document: str) -> list[str]:
    return [sentence.text for sentence in normative_sentences(document)]


# --- the real specification ----------------------------------------------------------------


def test_the_spec_has_the_expected_number_of_normative_sentences(
    sentences: list[SpecSentence],
) -> None:
    assert len(sentences) == EXPECTED_TOTAL
    assert dict(Counter(s.keyword for s in sentences)) == EXPECTED_BY_KEYWORD
    assert dict(Counter(s.section for s in sentences)) == EXPECTED_BY_SECTION


def test_every_normative_sentence_is_mapped_by_the_catalog(
    sentences: list[SpecSentence],
) -> None:
    coverage = check_coverage(sentences, CATALOG.values())
    unmapped = [
        f"{s.scope} line {s.line}: {s.text[:80]} ({s.fingerprint})" for s in coverage.unmapped
    ]
    assert unmapped == []
    assert coverage.stale == ()
    assert coverage.complete
    assert all(coverage.mapped_by)


def test_every_catalog_entry_cites_a_sentence(sentences: list[SpecSentence]) -> None:
    assert [r.id for r in CATALOG.values() if not r.fingerprints] == []
    by_note = {s.note: s.fingerprint for s in sentences if s.note is not None}
    for requirement in CATALOG.values():
        if requirement.keyword == "PRODUCT":
            assert requirement.fingerprints == (by_note[requirement.note],), requirement.id


@pytest.mark.parametrize("value", ["[123456789012]", "[abc]", '["0123456789AB"]', '"a1b2c3d4e5f6"'])
def test_a_catalog_fingerprint_must_be_a_quoted_12_hex_string(value: str) -> None:
    entry = (
        "requirements:\n- id: MQCN-2.2.4-1\n  section: '2.2.4'\n  keyword: MUST\n"
        "  role: message\n  statement: x\n  testability: testable\n"
    )
    assert load_catalog_text(entry + '  fingerprints: ["a1b2c3d4e5f6"]\n')
    with pytest.raises(CatalogError, match="fingerprints must be a list"):
        load_catalog_text(entry + f"  fingerprints: {value}\n")


def test_informative_text_gives_no_sentence(sentences: list[SpecSentence]) -> None:
    assert all(is_normative_section(s.section) or s.note is not None for s in sentences)
    texts = " ".join(s.text for s in sentences)
    assert "These terms (in all caps)" not in texts  # the 1.1 glossary definition of MUST...
    assert "statement of optional behavior" not in texts  # the boilerplate of section 6
    assert "must be used for generating" not in texts  # lower-case "must" in the glossary
    assert all(s.note is not None for s in sentences if s.section == "6")


def test_product_behaviour_notes_are_one_item_each(sentences: list[SpecSentence]) -> None:
    notes = [s for s in sentences if s.note is not None]
    assert [n.note for n in notes] == list(range(1, 15))
    assert all(n.keywords == ("PRODUCT",) and n.section == "6" for n in notes)
    cites = {n.note: n.cites for n in notes}
    assert cites[1] == cites[2] == cites[3] == "1.6"
    assert (cites[4], cites[5], cites[8], cites[13], cites[14]) == (
        "1.7",
        "2.2.4",
        "3.2.3",
        "3.3.5.3",
        "5.1",
    )
    # note 2 is cut by a page break in the middle of "queue manager": joined again
    body = {n.note: n.text.split(": ", 1)[1] for n in notes}
    assert body[2] == body[1]
    assert "destination queue manager via" in body[2]
    # identical texts keep distinct fingerprints (the note number is part of the item)
    assert len({n.fingerprint for n in notes}) == 14
    assert notes[0].text.startswith("Note 1, section 1.6: On Windows NT and Windows 2000,")


def test_sections_follow_headings_of_any_level(sentences: list[SpecSentence]) -> None:
    section_of = {s.text: s.section for s in sentences}
    assert section_of["This MUST be set to 1, 2, 3, or 4."] == "2.2.5"  # under "### Event"
    assert section_of["The value of a VT_I2 type property MUST be a 2-byte signed integer."] == (
        "2.2.3.1"
    )
    first = sentences[0]
    assert (first.section, first.line, first.keywords) == ("2.2.2", 343, ("MUST",))
    assert first.fingerprint == sentence_fingerprint(first.text)


def test_known_hard_sentences_of_the_spec(sentences: list[SpecSentence]) -> None:
    texts = [s.text for s in sentences]
    # a lead-in bullet ending with ':' is one sentence
    assert "The receiving queue manager MUST ignore this property if received:" in texts
    # bold keywords, and a bullet holding three sentences
    assert (
        "This additional byte is unused and MUST NOT affect the behavior of this protocol." in texts
    )
    # a note mark after the full stop stays with its sentence
    assert any(
        t.startswith("The Event token MUST contain 1") and t.endswith("was changed.") for t in texts
    )
    assert any(t.startswith("The ObjectGuid token MUST contain") for t in texts)
    # math of the PDF conversion
    assert (
        "If the value of PropertyId[0] is less than or equal to 1,000, the object type MUST be set "
        "to PropertyId[0] / 100." in texts
    )
    # table rows
    assert "VARIANT_TRUE 0xFFFF MUST indicate a Boolean value of true." in texts
    # the same sentence in two places of one section is two items
    assert texts.count("All other PROPIDs are not used, and they MUST be ignored.") == 2


def test_plain_text_excerpts_give_the_same_fingerprints(sentences: list[SpecSentence]) -> None:
    excerpts = sorted(SPEC_PATH.parent.glob("excerpt-*.txt"))
    if not excerpts:
        pytest.fail(f"no plain-text excerpts beside {SPEC_PATH}", pytrace=False)
    known = {(s.section, s.fingerprint) for s in sentences}
    for excerpt in excerpts:
        found = normative_sentences(excerpt.read_text("utf-8"))
        assert found, excerpt.name
        assert {(s.section, s.fingerprint) for s in found} <= known, excerpt.name


# --- sentence splitting --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("paragraph", "expected"),
    [
        (
            "Use a VT type, e.g. VT_UI4. It MUST be set.",
            ["Use a VT type, e.g. VT_UI4.", "It MUST be set."],
        ),
        (
            "A value, i.e. PROPID_Q_LABEL, is ignored. Others MUST NOT be.",
            ["A value, i.e. PROPID_Q_LABEL, is ignored.", "Others MUST NOT be."],
        ),
        (
            "See e.g. Section 2.2.5 for the body. The body MUST follow it.",
            ["See e.g. Section 2.2.5 for the body.", "The body MUST follow it."],
        ),
        (
            "It MUST be parsed as specified in section 2.2.5. The Data field MUST follow.",
            ["It MUST be parsed as specified in section 2.2.5.", "The Data field MUST follow."],
        ),
        (
            "It MUST follow PROPID_Q_PATHNAME ([MS-MQMQ] section 2.3.1.3). It MUST NOT be empty.",
            [
                "It MUST follow PROPID_Q_PATHNAME ([MS-MQMQ] section 2.3.1.3).",
                "It MUST NOT be empty.",
            ],
        ),
        (
            "Value 1.5 is Windows 8.1 and rMessage.Body is 0x01. Next MUST hold.",
            ["Value 1.5 is Windows 8.1 and rMessage.Body is 0x01.", "Next MUST hold."],
        ),
        (
            "Set it to **PropertyValue[ 1 ]**. If not, the server MUST stop.",
            ["Set it to **PropertyValue[ 1 ]**.", "If not, the server MUST stop."],
        ),
        (
            "Written by R. Bradner. It MAY be read.",
            ["Written by R. Bradner.", "It MAY be read."],
        ),
        (
            "It was changed. [<10>](#) The token MUST be 1.",
            ["It was changed. [<10>](#)", "The token MUST be 1."],
        ),
        ("One and so on, etc. Then two.", ["One and so on, etc.", "Then two."]),
        ("It is done. and more", ["It is done. and more"]),
    ],
)
def test_split_sentences(paragraph: str, expected: list[str]) -> None:
    pieces = split_sentences(paragraph)
    assert [text for _, text in pieces] == expected
    for offset, text in pieces:
        assert paragraph[offset:].startswith(text.split(" [<")[0])


def test_keywords_are_the_capitalised_rfc2119_terms() -> None:
    assert find_keywords("The server **MUST** **NOT** send it.") == ("MUST NOT",)
    assert find_keywords("It MUST be sent and MAY be logged; it SHOULD NOT wait.") == (
        "MUST",
        "MAY",
        "SHOULD NOT",
    )
    assert find_keywords("The client must and should do it; it may.") == ()
    assert find_keywords("MUST_BE_SET is a constant, MUSTARD is food.") == ()
    assert find_keywords("It SHOULD\nNOT wait.") == ("SHOULD NOT",)


def test_bullets_tables_notes_and_page_breaks() -> None:
    document = "\n".join(
        [
            "## 3.9 Things",
            "",
            "The following actions MUST be performed. A second sentence has no keyword.",
            "",
            "- If the **Command** field is 0x00, the following rules MUST be performed:",
            "  - The queue MUST be created. It MAY be logged.",
            "    - *iQueue* := *newQueue*",
            "",
            "The sender MUST send the message to the",
            "",
            "destination queue manager.",
            "",
            "Value\tMeaning",
            "0x01\tMUST indicate a change.",
            "",
            "```",
            "rule = 1*VCHAR ; the ABNF MUST NOT count",
            "```",
            "",
            "#### Event",
            "",
            "This MUST be set to 1.",
            "",
            "## 4 Examples",
            "",
            "The example MUST NOT count.",
        ]
    )
    found = normative_sentences(document)
    assert [(s.section, s.keywords, s.text, s.line) for s in found] == [
        ("3.9", ("MUST",), "The following actions MUST be performed.", 3),
        (
            "3.9",
            ("MUST",),
            "If the Command field is 0x00, the following rules MUST be performed:",
            5,
        ),
        ("3.9", ("MUST",), "The queue MUST be created.", 6),
        ("3.9", ("MAY",), "It MAY be logged.", 6),
        ("3.9", ("MUST",), "The sender MUST send the message to the destination queue manager.", 9),
        ("3.9", ("MUST",), "0x01 MUST indicate a change.", 14),
        ("3.9", ("MUST",), "This MUST be set to 1.", 22),
    ]


def test_only_normative_sections_and_notes_count() -> None:
    document = "\n".join(
        [
            "# 1 Introduction",
            "Sections 1.5, 1.8, 1.9, 2, and 3 of this specification are normative.",
            "## 1.1 Glossary",
            "**MAY, SHOULD, MUST:** These terms are used as defined in [RFC2119].",
            "## 1.5 Prerequisites",
            "The client MUST know the server.",
            "## 1.6 Applicability",
            "It MUST apply.<1>",
            "## 5.1 Security",
            "An implementation SHOULD resist attacks.",
            "## 5.2 Index",
            "It MUST be indexed.",
            "## 6 Appendix A: Product Behavior",
            'Unless otherwise specified, the term "MAY" implies that the product does not.',
            "- Windows NT operating system",
            "[<1> Section 1.6](#): On Windows NT, it does not",
            "",
            "apply. Another sentence.",
            "",
            "<2> [Section 3.2.3](#): Windows does it.",
            "## 7 Change Tracking",
            "A change MUST be tracked.",
        ]
    )
    found = normative_sentences(document)
    assert [(s.section, s.keyword, s.note, s.cites) for s in found] == [
        ("1.5", "MUST", None, None),
        ("5.1", "SHOULD", None, None),
        ("6", "PRODUCT", 1, "1.6"),
        ("6", "PRODUCT", 2, "3.2.3"),
    ]
    assert (
        found[2].text == "Note 1, section 1.6: On Windows NT, it does not apply. Another sentence."
    )
    assert found[3].scope == "note 2"


def test_plain_text_headings_and_bullets() -> None:
    document = "\n".join(
        [
            "Table of Contents",
            "3.2.5\tProcessing Events ..... 20",
            "3.2.5.2 Processing a Change Notification Message Version 0x02",
            "",
            "The following actions MUST be performed upon the reception of a notification message:",
            "",
            "  •  If Event is set to 1 (create queue), the following processing rules MUST be",
            "     performed:",
            "",
            "1. An application MUST NOT be a heading.",
        ]
    )
    found = normative_sentences(document)
    assert [(s.section, s.text) for s in found] == [
        (
            "3.2.5.2",
            "The following actions MUST be performed upon the reception of a notification message:",
        ),
        (
            "3.2.5.2",
            "If Event is set to 1 (create queue), the following processing rules MUST be "
            "performed:",
        ),
        ("3.2.5.2", "An application MUST NOT be a heading."),
    ]


def test_headings() -> None:
    assert heading_section("###### 3.1.1.2.1 Queue Manager Attributes Mapping", True) == (
        True,
        "3.1.1.2.1",
    )
    assert heading_section("## 2 Messages", True) == (True, "2")
    assert heading_section("### **2.2.4** Change Notification Message", True) == (True, "2.2.4")
    assert heading_section("## [MS-MQCN]:", True) == (True, None)
    assert heading_section("The 2 values", True) == (False, None)
    assert heading_section("0", False) == (False, None)
    assert heading_section("2.2.3.1 VT_I2", False) == (True, "2.2.3.1")


def test_fingerprints_do_not_depend_on_the_conversion() -> None:
    pairs = [
        ("The value of a VT\\_I2 type **MUST** be set.", "The value of a VT_I2 type MUST be set."),
        (
            "It MUST be a **GUID** ([\\[MS-DTYP\\]](#) section 2.3.4.2) value.",
            "It MUST be a GUID ([MS-DTYP] section 2.3.4.2) value.",
        ),
        (
            "the object type MUST be set to  $\\text{PropertyId}[0] / 100$ .",
            "the object type MUST be set to PropertyId[0] / 100.",
        ),
        (
            "an array of [VT\\\\_UI4](#) type <b>values</b>.[<5>](#)",
            "an array of VT_UI4 type values.",
        ),
        (
            "Included in a [Notification Body \\(section 2.2.5\\)](#).",
            "Included in a Notification Body (section 2.2.5).",
        ),
    ]
    for markdown, plain in pairs:
        assert clean_sentence(markdown) == plain
        assert clean_sentence(plain) == plain
        assert normalise_sentence(markdown) == plain.lower()
        assert sentence_fingerprint(markdown) == sentence_fingerprint(plain)


# --- coverage rules ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Entry:
    id: str
    section: str
    fingerprints: tuple[str, ...]
    note: int | None = None


_DOC = "\n".join(
    [
        "## 2.2.3.1 VT_I2",
        "It MUST be formatted in little-endian byte order.",
        "## 2.2.3.2 VT_I4",
        "It MUST be formatted in little-endian byte order.",
        "All other PROPIDs MUST be ignored.",
        "",
        "All other PROPIDs MUST be ignored.",
        "## 6 Appendix A: Product Behavior",
        "<1> Section 1.6: Windows does it.",
    ]
)


def test_coverage_is_per_section_per_occurrence_and_per_note() -> None:
    found = normative_sentences(_DOC)
    little, ignored = found[0].fingerprint, found[2].fingerprint
    note = found[-1].fingerprint
    assert found[1].fingerprint == little and found[3].fingerprint == ignored
    entries = [
        _Entry("A", "2.2.3.1", (little,)),
        _Entry("B", "2.2.3.2", (ignored,)),
        _Entry("C", "1.6", (note,), note=1),
    ]
    coverage = check_coverage(found, entries)
    # the 2.2.3.1 entry does not map the same sentence of 2.2.3.2; one entry does not map
    # two occurrences of one sentence
    assert [(s.section, s.line) for s in coverage.unmapped] == [("2.2.3.2", 4), ("2.2.3.2", 7)]
    assert coverage.mapped_by[-1] == ("C",)
    entries += [_Entry("D", "2.2.3.2", (little, ignored))]
    coverage = check_coverage(found, entries)
    assert coverage.complete and coverage.stale == ()
    # a note is mapped only by an entry recording that note number
    wrong_note = [*entries[:2], _Entry("C", "1.6", (note,), note=2), entries[3]]
    assert [s.note for s in check_coverage(found, wrong_note).unmapped] == [1]
    # a fingerprint matching nothing in the entry's section is stale
    stale = check_coverage(found, [*entries, _Entry("E", "2.2.3.1", ("0123456789ab", ignored))])
    assert stale.complete
    assert stale.stale == (("E", "0123456789ab"), ("E", ignored))


# --- mqcn catalog verify -------------------------------------------------------------------

_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@_app.callback()
def _root() -> None:
    """A tiny app with a `catalog` group, as mqcn_suite.cli registers the command."""


_catalog = typer.Typer()
_catalog.command("verify", help=VERIFY_HELP)(verify)
_app.add_typer(_catalog, name="catalog")
runner = CliRunner()


def _verify(*args: str) -> Result:
    return runner.invoke(_app, ["catalog", "verify", *args])


def test_verify_exits_0_on_the_real_spec(spec_text: str) -> None:
    result = _verify("--spec", str(SPEC_PATH))
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"complete: {EXPECTED_TOTAL} normative sentences (")
    assert f"{len(CATALOG)} catalog entries, all mapped" in lines[0]
    result = _verify("--spec", str(SPEC_PATH), "--json", "--strict")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["complete"] is document["ok"] is True
    assert (document["sentences"], document["entries"]) == (EXPECTED_TOTAL, len(CATALOG))
    assert document["by_keyword"] == EXPECTED_BY_KEYWORD
    assert document["unmapped"] == document["stale"] == []


def test_verify_exits_1_naming_an_unmapped_sentence(spec_text: str, tmp_path: Path) -> None:
    extra = "An implementation MUST log every notification it disregards."
    anchor = "This protocol does not define any vendor-extensible fields."
    assert spec_text.count(anchor) == 1
    modified = tmp_path / "modified.md"
    modified.write_text(spec_text.replace(anchor, f"{anchor} {extra}"), "utf-8")
    result = _verify("--spec", str(modified))
    assert result.exit_code == 1, result.output
    assert "1 normative sentence is not mapped" in result.stdout
    assert "1.8, line 305 [MUST] " + sentence_fingerprint(extra) in result.stdout
    assert extra in result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("incomplete: 1 of 153")
    document = json.loads(_verify("--spec", str(modified), "--json").stdout)
    assert document["complete"] is False
    assert document["unmapped"] == [
        {
            "section": "1.8",
            "line": 305,
            "keywords": ["MUST"],
            "fingerprint": sentence_fingerprint(extra),
            "text": extra,
        }
    ]


def test_verify_lists_stale_fingerprints_of_a_missing_sentence(
    spec_text: str, tmp_path: Path
) -> None:
    sentence = "A queue manager MUST send only one notification message at a time. "
    assert spec_text.count(sentence) == 1
    shorter = tmp_path / "shorter.md"
    shorter.write_text(spec_text.replace(sentence, ""), "utf-8")
    fingerprint = sentence_fingerprint(sentence)
    result = _verify("--spec", str(shorter), "--json")
    assert result.exit_code == 0, result.output  # stale alone is a warning...
    document = json.loads(result.stdout)
    assert document["complete"] is True
    assert document["stale"] == [{"id": "MQCN-3.3.5.1-8", "fingerprint": fingerprint}]
    assert document["sentences"] == EXPECTED_TOTAL - 1
    human = _verify("--spec", str(shorter))
    assert human.exit_code == 0
    assert "warning: 1 catalog fingerprint(s) match no sentence" in human.stdout
    assert f"MQCN-3.3.5.1-8 {fingerprint}" in human.stdout
    strict = _verify("--spec", str(shorter), "--strict")  # ...and an error with --strict
    assert strict.exit_code == 1
    assert "error: 1 catalog fingerprint(s)" in strict.stdout


def _assert_usage_error(result: Result, *fragments: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mqcn catalog verify: error: --spec: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in result.output


def test_verify_exits_2_for_a_spec_it_cannot_use(tmp_path: Path) -> None:
    _assert_usage_error(_verify("--spec", str(tmp_path / "nope.md")), "no such file")
    _assert_usage_error(_verify("--spec", str(tmp_path)), "is a directory")
    empty = tmp_path / "empty.md"
    empty.write_text(" \n\n", "utf-8")
    _assert_usage_error(_verify("--spec", str(empty), "--json"), "is empty")
    binary = tmp_path / "spec.pdf"
    binary.write_bytes(b"%PDF-1.7\n\xff\xfe\x00\x81")
    _assert_usage_error(_verify("--spec", str(binary)), "not a text file")
    other = tmp_path / "other.md"
    other.write_text("# Notes\n\nNothing MUST be here.\n", "utf-8")
    _assert_usage_error(_verify("--spec", str(other)), "no normative sentence found")
    missing_option = _verify()
    assert missing_option.exit_code == 2
    assert "--spec" in missing_option.output


def test_verify_reads_utf16_and_plain_text(spec_text: str, tmp_path: Path) -> None:
    utf16 = tmp_path / "spec-utf16.md"
    utf16.write_text(spec_text, "utf-16")
    assert _verify("--spec", str(utf16)).exit_code == 0
    excerpt = tmp_path / "excerpt.txt"
    excerpt.write_text(
        "3.3.5.1 Preparing a Change Notification Message Version 0x02\n\n"
        "A queue manager MUST send only one notification message at a time.\n",
        "utf-8",
    )
    document = json.loads(_verify("--spec", str(excerpt), "--json").stdout)
    assert document["complete"] is True and document["sentences"] == 1
    assert len(document["stale"]) == sum(len(r.fingerprints) for r in CATALOG.values()) - 1
