"""The normative sentences of the [MS-MQCN] text, and how the catalog covers them.

Pure: text in, data out (no file I/O).  :func:`normative_sentences` reads the specification as
markdown (the PDF conversion: ``#`` headings of any level, ``-`` bullets, tab-separated table
rows, bold keywords, escapes, page-break artefacts) or as plain text (headings are lines
``3.2.5.1 Title``, bullets ``•``) and returns every normative sentence:

* in the normative sections (1.5, 1.8, 1.9, 2 and 3 with their subsections, as section 1 of
  the specification says) and in 5.1, every sentence holding an RFC 2119 keyword in capitals
  (``MUST``, ``MUST NOT``, ``SHOULD``, ``SHOULD NOT``, ``MAY``; a lower-case "must" is prose);
* in section 6, every product-behaviour note ``<n>`` as one item of keyword ``PRODUCT`` (the
  paragraphs before the first note are boilerplate, not requirements).

Everything else (glossary, references, overview, examples, change tracking, index) is
informative and yields nothing.

Sentences are cut inside a paragraph, a bullet item or a table row, never across them; a
bullet that ends with ``:`` and leads in to a nested list stays one sentence.  A cut is made
after ``.``, ``!`` or ``?`` followed by white space and a capital, a digit or markup, except
after an abbreviation (``e.g.``, ``i.e.``, ``etc.``...) or a single initial; dots inside
section numbers (``section 2.2.5``) are never followed by white space, so never cut.  A note
mark that the conversion put after the full stop (``changed. [<10>](#) The``) stays with the
sentence it ends.  A paragraph cut by a page break (the next paragraph starts in lower case
and the previous one did not end a sentence) is joined again.

:func:`check_coverage` matches the sentences against the catalog's ``fingerprints:``; see its
docstring for the rules.

>>> text = "## 2.2.4 Message\\n\\nThe Version **MUST** be 0x01. It is one byte."
>>> [(s.section, s.keywords, s.text) for s in normative_sentences(text)]
[('2.2.4', ('MUST',), 'The Version MUST be 0x01.')]
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Protocol

from mqcn_model.catalog import MARKDOWN_LINK, clean_sentence, sentence_fingerprint

RFC2119_KEYWORDS = ("MUST NOT", "MUST", "SHOULD NOT", "SHOULD", "MAY")
PRODUCT = "PRODUCT"
# Section 1 of MS-MQCN: "Sections 1.5, 1.8, 1.9, 2, and 3 of this specification are
# normative."  5.1 (security considerations) is read as well; section 6 gives the notes.
NORMATIVE_SECTIONS = ("1.5", "1.8", "1.9", "2", "3", "5.1")
NOTES_SECTION = "6"
# Words whose full stop does not end a sentence even before a capital ("e.g. PROPID_Q_LABEL").
# "etc." is not one: before a capital it usually does end the sentence.
_ABBREVIATIONS_TEXT = (
    "e.g i.e cf vs viz approx al fig figs sec secs ref refs resp incl esp mr mrs dr inc"
)
ABBREVIATIONS = frozenset(_ABBREVIATIONS_TEXT.split())

_KEYWORD = re.compile(r"(?<![\w-])(MUST\s+NOT|SHOULD\s+NOT|MUST|SHOULD|MAY)(?![\w-])")
_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SECTION_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.?$")
_TEXT_HEADING = re.compile(r"^(\d+(?:\.\d+)*)[ \t]+([A-Z][^\t]{0,118})$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SEPARATOR = re.compile(r"^\s*([-=_*])(\s*\1){2,}\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+•●◦▪]|\d{1,3}[.)]|[a-z][.)])\s+(?P<text>\S.*)$")
_NOTE_START = re.compile(r"^<(?P<n>\d+)>\s*Section\s+(?P<cites>\d+(?:\.\d+)*)\s*:\s*(?P<body>.*)$")
# A possible end of sentence: the stop, closing marks, then (looked ahead) space and a start.
_STOP = re.compile(r"""[.!?](?:\*\*|\*|_|["'’”)\]])*(?=\s+\S)""")
_SENTENCE_START = re.compile(r"""\s+(?:[A-Z0-9"'“‘(\[<*_`]|\\\[)""")
_LEADING_NOTE_MARK = re.compile(r"^(?:\[<\d+>\]\([^)]*\)|<\d+>)\s*")
_TERMINATED = re.compile(r"""[.:;!?](?:\*\*|\*|["'’”)\]])*$""")


@dataclass(frozen=True, slots=True)
class SpecSentence:
    """One normative sentence (or, in section 6, one product-behaviour note) of the spec.

    ``section`` is where the text stands ("3.2.5.1"; "6" for a note); ``line`` the 1-based
    line it starts on; ``keywords`` the RFC 2119 keywords it holds, in order of first
    appearance (``("PRODUCT",)`` for a note); ``text`` the sentence without markup (see
    :func:`mqcn_model.catalog.clean_sentence`); ``fingerprint`` its
    :func:`~mqcn_model.catalog.sentence_fingerprint`.  A note also has ``note`` (its number)
    and ``cites`` (the section that refers to it), and its ``text`` starts with
    ``Note <n>, section <cites>:`` so that identical notes keep distinct fingerprints.
    """

    section: str
    keywords: tuple[str, ...]
    text: str
    fingerprint: str
    line: int
    note: int | None = None
    cites: str | None = None

    @property
    def scope(self) -> str:
        """What a catalog entry has to name to map this sentence: the section or the note."""
        return f"note {self.note}" if self.note is not None else self.section

    @property
    def keyword(self) -> str:
        """The first keyword (the one a reader sees as the sentence's strength)."""
        return self.keywords[0]

    def to_json(self) -> dict[str, object]:
        document: dict[str, object] = {
            "section": self.section,
            "line": self.line,
            "keywords": list(self.keywords),
            "fingerprint": self.fingerprint,
            "text": self.text,
        }
        if self.note is not None:
            document["note"] = self.note
            document["cites"] = self.cites
        return document


# --- sections ----------------------------------------------------------------------------


def is_normative_section(section: str | None) -> bool:
    """True for 1.5, 1.8, 1.9, 2, 3, 5.1 and their subsections.

    >>> [is_normative_section(s) for s in ("1.5", "1.1", "2", "3.2.5.1", "5.1", "5.2", "6")]
    [True, False, True, True, True, False, False]
    """
    if section is None:
        return False
    return any(section == top or section.startswith(top + ".") for top in NORMATIVE_SECTIONS)


def heading_section(line: str, markdown: bool) -> tuple[bool, str | None]:
    """``(is_heading, section_number_or_None)`` for one line.

    In markdown a heading is a ``#`` line of any level whose first token, escapes and bold
    removed, is the section number; a heading without a number (``### Event``) is a heading
    that leaves the section unchanged.  In plain text a heading is a short line
    ``<number> <Title>`` (no tab, no dot leaders, not ending like a sentence).

    >>> heading_section("### 2.2.3.1 VT\\\\_I2", True)
    (True, '2.2.3.1')
    >>> heading_section("## Revision Summary", True)
    (True, None)
    >>> heading_section("3.2.5.2 Processing a Change Notification Message Version 0x02", False)
    (True, '3.2.5.2')
    >>> heading_section("1. An application requests a queue.", False)
    (False, None)
    """
    if markdown:
        match = _MD_HEADING.match(line)
        if not match:
            return False, None
        words = clean_sentence(match[2]).split()
        number = _SECTION_NUMBER.match(words[0]) if words else None
        return True, number[1] if number else None
    match = _TEXT_HEADING.match(line.strip())
    if not match or "....." in line or line.rstrip().endswith((".", ":", ";", ",")):
        return False, None
    return True, match[1]


# --- sentences ---------------------------------------------------------------------------


def find_keywords(sentence: str) -> tuple[str, ...]:
    """The RFC 2119 keywords (capitals only) of ``sentence``, first appearance first.

    >>> find_keywords("It **MUST** **NOT** be sent, and MAY be logged; it must be MUST.")
    ('MUST NOT', 'MAY', 'MUST')
    >>> find_keywords("The client must and should do it.")
    ()
    """
    text = clean_sentence(sentence)
    found: list[str] = []
    for match in _KEYWORD.finditer(text):
        keyword = " ".join(match[1].split())
        if keyword not in found:
            found.append(keyword)
    return tuple(found)


def _ends_with_abbreviation(text: str, stop: int) -> bool:
    """Is the ``.`` at ``stop`` the end of an abbreviation or of a single initial?"""
    if text[stop] != ".":
        return False
    start = stop
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    word = clean_sentence(text[start:stop]).lstrip("([{\"'“‘").lower()
    return word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def split_sentences(text: str) -> list[tuple[int, str]]:
    """Cut one paragraph (bullet item, table row) into ``(offset, sentence)`` pairs.

    >>> [s for _, s in split_sentences("It is 0x01. See e.g. Foo. As in section 2.2.5. Done")]
    ['It is 0x01.', 'See e.g. Foo.', 'As in section 2.2.5.', 'Done']
    """
    cuts = [0]
    for match in _STOP.finditer(text):
        end = match.end()
        if not _SENTENCE_START.match(text, end) or _ends_with_abbreviation(text, match.start()):
            continue
        cuts.append(end)
    cuts.append(len(text))
    pieces: list[tuple[int, str]] = []
    for start, end in pairwise(cuts):
        chunk = text[start:end]
        offset = start + len(chunk) - len(chunk.lstrip())
        chunk = chunk.strip()
        mark = _LEADING_NOTE_MARK.match(chunk)
        if mark and pieces:  # "... was changed. [<10>](#) The token" - the mark ends the first
            previous_offset, previous = pieces[-1]
            pieces[-1] = (previous_offset, f"{previous} {mark.group().strip()}")
            offset += mark.end()
            chunk = chunk[mark.end() :]
        if chunk:
            pieces.append((offset, chunk))
    return pieces


# --- blocks ------------------------------------------------------------------------------


@dataclass
class _Block:
    """A paragraph, bullet item, table row or note: lines of one section read as one text."""

    kind: str  # "para" | "bullet" | "row" | "note"
    section: str | None
    parts: list[tuple[int, str]] = field(default_factory=list)  # (line number, text)
    note: int | None = None
    cites: str | None = None

    def add(self, line: int, text: str) -> None:
        self.parts.append((line, text.strip()))

    def text_and_lines(self) -> tuple[str, list[tuple[int, int]]]:
        """The joined text and ``(offset, line)`` where each part starts in it."""
        text, starts = "", []
        for line, part in self.parts:
            if text:
                text += " "
            starts.append((len(text), line))
            text += part
        return text, starts

    def ends_sentence(self) -> bool:
        text = clean_sentence(self.parts[-1][1]) if self.parts else ""
        return bool(_TERMINATED.search(text))


def _blocks(document: str) -> list[_Block]:
    """Read the document into blocks, tracking the section of each."""
    lines = document.splitlines()
    markdown = any(_MD_HEADING.match(line) for line in lines)
    section: str | None = None
    blocks: list[_Block] = []
    current: _Block | None = None  # the block that the next plain line continues
    last: _Block | None = None  # the last paragraph/bullet/note of this section (page breaks)
    in_code = False
    for number, raw in enumerate(lines, 1):
        if _FENCE.match(raw):
            in_code, current, last = not in_code, None, None
            continue
        if in_code:
            continue
        is_heading, heading_number = heading_section(raw, markdown)
        if is_heading:
            current = last = None
            if heading_number is not None:
                section = heading_number
            continue
        stripped = raw.strip()
        if not stripped or _SEPARATOR.match(raw):
            current = None
            continue
        if section == NOTES_SECTION:
            note = _NOTE_START.match(clean_link(stripped))
            if note:
                current = last = _Block("note", section, note=int(note["n"]), cites=note["cites"])
                current.add(number, note["body"])
                blocks.append(current)
            elif last is not None and last.kind == "note":
                last.add(number, stripped)  # a note runs on to the next note or heading
                current = last
            continue
        bullet = _BULLET.match(raw)
        if bullet:
            current = last = _Block("bullet", section)
            current.add(number, bullet["text"])
            blocks.append(current)
            continue
        if "\t" in raw:
            row = _Block("row", section)
            row.add(number, " ".join(cell.strip() for cell in stripped.split("\t")))
            blocks.append(row)
            current = last = None
            continue
        if current is not None:
            current.add(number, stripped)
            continue
        if last is not None and stripped[:1].islower() and not last.ends_sentence():
            last.add(number, stripped)  # a sentence cut by a page break goes on
            current = last
            continue
        current = last = _Block("para", section)
        current.add(number, stripped)
        blocks.append(current)
    return blocks


def clean_link(text: str) -> str:
    """``text`` with markdown escapes undone and links reduced to their text (notes' heads)."""
    return MARKDOWN_LINK.sub(r"\1", text.replace("\\", ""))


# --- the normative sentences -------------------------------------------------------------


def normative_sentences(document: str) -> list[SpecSentence]:
    """Every normative sentence of ``document`` (the spec as markdown or plain text), in order.

    See the module docstring for what counts.
    """
    found: list[SpecSentence] = []
    for block in _blocks(document):
        text, starts = block.text_and_lines()
        if block.kind == "note":
            canonical = f"Note {block.note}, section {block.cites}: {clean_sentence(text)}"
            found.append(
                SpecSentence(
                    section=NOTES_SECTION,
                    keywords=(PRODUCT,),
                    text=canonical,
                    fingerprint=sentence_fingerprint(canonical),
                    line=starts[0][1],
                    note=block.note,
                    cites=block.cites,
                )
            )
            continue
        if not is_normative_section(block.section):
            continue
        assert block.section is not None
        for offset, sentence in split_sentences(text):
            keywords = find_keywords(sentence)
            if not keywords:
                continue
            line = max(line for start, line in starts if start <= offset)
            found.append(
                SpecSentence(
                    section=block.section,
                    keywords=keywords,
                    text=clean_sentence(sentence),
                    fingerprint=sentence_fingerprint(sentence),
                    line=line,
                )
            )
    return found


# --- coverage by the catalog -------------------------------------------------------------


class CatalogEntry(Protocol):
    """What :func:`check_coverage` needs of a requirement (``mqcn_model.catalog.Requirement``)."""

    @property
    def id(self) -> str: ...
    @property
    def section(self) -> str: ...
    @property
    def note(self) -> int | None: ...
    @property
    def fingerprints(self) -> tuple[str, ...]: ...


def entry_scopes(entry: CatalogEntry) -> frozenset[str]:
    """The scopes an entry's fingerprints count in: its section, and its note if it has one."""
    scopes = {entry.section}
    if entry.note is not None:
        scopes.add(f"note {entry.note}")
    return frozenset(scopes)


@dataclass(frozen=True)
class Coverage:
    """How the catalog covers the normative sentences (see :func:`check_coverage`)."""

    sentences: tuple[SpecSentence, ...]
    entries: int
    mapped_by: tuple[tuple[str, ...], ...]  # for each sentence, the IDs that map it
    unmapped: tuple[SpecSentence, ...]
    stale: tuple[tuple[str, str], ...]  # (requirement ID, fingerprint) matching no sentence

    @property
    def complete(self) -> bool:
        """Every normative sentence is mapped by at least one entry."""
        return not self.unmapped

    def by_keyword(self) -> dict[str, int]:
        return dict(Counter(sentence.keyword for sentence in self.sentences))

    def by_section(self) -> dict[str, int]:
        return dict(Counter(sentence.scope for sentence in self.sentences))


def check_coverage(sentences: Iterable[SpecSentence], entries: Iterable[CatalogEntry]) -> Coverage:
    """Match the catalog's fingerprints against the normative sentences.

    An entry maps a sentence when it carries the sentence's fingerprint *in the sentence's
    scope*: the entry's section is the sentence's section, or (for a product-behaviour note)
    the entry records that note number.  So one identical sentence in two sections (``It MUST
    be formatted in little-endian byte order.`` is in six) needs an entry in each.  A sentence
    that occurs k times in one scope needs k distinct entries carrying it (each occurrence is
    a requirement of its own); the k-th occurrence is the one reported if they are fewer.

    A catalog fingerprint that matches no sentence of any of the entry's scopes is *stale*:
    the spec text changed, or the fingerprint was mistyped.
    """
    sentences = tuple(sentences)
    entries = tuple(entries)
    holders: dict[tuple[str, str], list[str]] = defaultdict(list)
    for entry in entries:
        for fingerprint in dict.fromkeys(entry.fingerprints):
            for scope in entry_scopes(entry):
                holders[(scope, fingerprint)].append(entry.id)
    seen: Counter[tuple[str, str]] = Counter()
    mapped_by: list[tuple[str, ...]] = []
    unmapped: list[SpecSentence] = []
    for sentence in sentences:
        key = (sentence.scope, sentence.fingerprint)
        seen[key] += 1
        ids = tuple(holders.get(key, ()))
        mapped_by.append(ids)
        if len(ids) < seen[key]:
            unmapped.append(sentence)
    present = {(sentence.scope, sentence.fingerprint) for sentence in sentences}
    stale = [
        (entry.id, fingerprint)
        for entry in entries
        for fingerprint in dict.fromkeys(entry.fingerprints)
        if not any((scope, fingerprint) in present for scope in entry_scopes(entry))
    ]
    return Coverage(
        sentences=sentences,
        entries=len(entries),
        mapped_by=tuple(mapped_by),
        unmapped=tuple(unmapped),
        stale=tuple(stale),
    )
