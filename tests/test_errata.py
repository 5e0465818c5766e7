"""docs/errata.md and the registry ``mqcn_model.errata.ERRATA`` state the same facts: every
item in both, its letter, its switch and readings, or why it has none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mqcn_model.errata import (
    ERRATA,
    LETTER,
    STRICT,
    SWITCHES,
    Item,
    following,
    spelt,
)

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docs" / "errata.md").read_text("utf-8")


def _section(errata_id: str) -> str:
    start = TEXT.index(f"### {errata_id} ")
    end = TEXT.find("\n### ", start + 1)
    return TEXT[start : end if end >= 0 else len(TEXT)].split("\n---")[0]


def _labelled(section: str, label: str) -> str | None:
    """The paragraph after ``**label:**`` in ``section``, whitespace collapsed."""
    found = re.search(rf"\*\*{re.escape(label)}:\*\* (.*?)(?:\n\n|$)", section, re.DOTALL)
    return " ".join(found.group(1).split()) if found else None


def test_every_item_is_in_the_registry_and_the_document() -> None:
    headings = set(re.findall(r"^### ([EWD]-\d{2}) ", TEXT, re.MULTILINE))
    expected = {f"E-{n:02d}" for n in range(1, 26)} | {f"W-{n:02d}" for n in range(1, 14)}
    expected |= {f"D-{n:02d}" for n in range(1, 21)}
    assert set(ERRATA) == headings == expected


@pytest.mark.parametrize("item", ERRATA.values(), ids=list(ERRATA))
def test_the_document_states_the_letter_and_the_switch_or_why_none(item: Item) -> None:
    section = _section(item.id)
    assert _labelled(section, "Letter") == " ".join(item.letter.split()), item.id
    if item.switch is None:
        assert _labelled(section, "Why no switch") == " ".join(item.why_no_switch.split())
        assert _labelled(section, "Readings") is None
    else:
        readings = _labelled(section, "Readings") or ""
        assert re.findall(r"`([a-z-]+)`", readings) == list(item.switch.names), item.id
        assert f"`{item.switch.letter}` (the" in readings or (
            "the suite's and the letter" in readings and item.switch.letter == item.switch.suite
        )
        assert _labelled(section, "Why no switch") is None


def test_every_switch_is_an_item_and_knows_its_letter() -> None:
    assert {s.errata for s in SWITCHES} == {i.id for i in ERRATA.values() if i.switch}
    for switch in SWITCHES:
        assert switch.letter in switch.names and switch.suite == switch.names[0]
        assert LETTER.reading_of(switch.errata) == switch.letter
        assert STRICT.reading_of(switch.errata) == switch.suite


def test_an_item_has_a_switch_or_a_justification_never_both() -> None:
    with pytest.raises(ValueError, match="a switch or says why"):
        Item("E-99", "t", "r", "l")
    with pytest.raises(ValueError, match="a switch or says why"):
        Item("E-99", "t", "r", "l", SWITCHES[0], "why")


def test_named_readings_select_and_spell_back() -> None:
    assert following("E-24=disregard").existing_queue_creation == "disregard"
    assert following("E-24").existing_queue_creation == "replace"  # the letter
    assert following("E-14").disregard_whole_message  # the letter is the suite's: the other
    assert following("letter") == LETTER
    assert spelt(following("E-24=merge", "E-07")) == "E-07,E-24=merge"
    with pytest.raises(ValueError, match="'sometimes' is not a reading of E-24"):
        following("E-24=sometimes")
    with pytest.raises(ValueError, match="'E-02' is not a switchable errata item"):
        following("E-02")


def test_every_single_reading_spells_back_to_itself() -> None:
    """``reference:<spelt>`` names exactly the readings it follows, from the suite's readings
    or from the letter (``letter,E-14``)."""
    cases = [STRICT, LETTER, following("letter", "E-14"), following("letter", "E-01=strict")]
    cases += [STRICT.with_reading(s.errata, n) for s in SWITCHES for n in s.names]
    cases += [LETTER.with_reading(s.errata, n) for s in SWITCHES for n in s.names]
    for readings in cases:
        text = spelt(readings)
        assert (following(*text.split(",")) if text else STRICT) == readings, text
    assert spelt(following("letter", "E-14")) == "letter,E-14"


def _anchor(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's rule) gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_directory_guide_links_every_directory_item_to_its_section() -> None:
    """docs/directory.md lists the D-nn items by link; each link lands on its item's section."""
    guide = (ROOT / "docs" / "directory.md").read_text("utf-8")
    links = re.findall(r"\[(D-\d{2})\]\(errata\.md#([^)\s]+)\)", guide)
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.*)$", TEXT, re.MULTILINE)}
    assert {i for i, _ in links} == {i for i in ERRATA if i.startswith("D-")}
    for errata_id, anchor in links:
        assert anchor in anchors and anchor.startswith(f"{errata_id.lower()}--"), anchor
