"""The requirements catalog: load, validate and look up requirement IDs.

The catalog (``requirements.yaml`` beside this module) is the one home of every requirement
ID.  Code never writes an ID as a bare string that nobody checks: it calls :func:`req`, which
fails loudly for an ID the catalog does not hold, so a typo breaks the import (and the tests)
instead of inventing a silent new requirement.

>>> req("MQCN-2.2.4-3")
'MQCN-2.2.4-3'
>>> CATALOG["MQCN-2.2.4-3"].keyword
'MUST'

A second, separate catalog (``wire_requirements.yaml``, :data:`WIRE_CATALOG`) holds the MUSTs
of the MSMQ wire documents ([MS-MQMQ], [MS-MQQB], [MS-MQDMPR], [MS-MQRR]) that the wire codec
(:mod:`mqcn_model.wire`) checks.  Its IDs name their document (``MQMQ-2.2.19.1-2``); they are
not MS-MQCN requirements, so the MS-MQCN report and coverage never list them, but
:func:`req` guards them the same way and :func:`requirement` finds an entry in either.

>>> req("MQMQ-2.2.19.1-2"), requirement("MQMQ-2.2.19.1-2").keyword
('MQMQ-2.2.19.1-2', 'MUST')
>>> "MQMQ-2.2.19.1-2" in CATALOG
False
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

KEYWORDS = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "PRODUCT")
ROLES = ("message", "server", "client", "directory-service")
TESTABILITY = ("testable", "untestable")
ID_PATTERN = re.compile(r"^MQCN-(?P<section>\d+(?:\.\d+)*)-(?P<n>[1-9]\d*)$")
FINGERPRINT_PATTERN = re.compile(r"^[0-9a-f]{12}$")
# Sections of MS-MQCN v17.0 that may carry requirements (normative sections 1.5-3, plus 5/6
# whose product-behaviour notes the catalog records).
_KNOWN_SECTIONS_TEXT = """
    1.5 1.6 1.7 1.8 1.9 2.1 2.2 2.2.1 2.2.2 2.2.2.1 2.2.3 2.2.3.1 2.2.3.2 2.2.3.3 2.2.3.4
    2.2.3.5 2.2.3.6 2.2.3.7 2.2.3.8 2.2.3.9 2.2.3.10 2.2.3.11 2.2.3.12 2.2.3.13 2.2.3.14
    2.2.3.15 2.2.4 2.2.5 2.2.6 2.3 3.1.1 3.1.1.1 3.1.1.2 3.1.1.2.1 3.1.1.3 3.2.1.2.1 3.2.3
    3.2.5 3.2.5.1 3.2.5.2 3.3.1.1 3.3.3 3.3.4.1 3.3.5.1 3.3.5.2 3.3.5.3 5.1 6"""
KNOWN_SECTIONS = frozenset(_KNOWN_SECTIONS_TEXT.split())

# The wire catalog: MUSTs of the MSMQ wire documents the wire codec checks.  IDs name their
# document; each document has its own list of sections that may carry wire requirements.
# ``packet``: a rule one packet's bytes keep or break (the codec checks it); ``session``: a rule
# of the MS-MQQB session state machine (:mod:`mqcn_model.mqqb`) over a sequence of packets.
PACKET_ROLE, SESSION_ROLE = "packet", "session"
WIRE_ROLES = (PACKET_ROLE, SESSION_ROLE)
# What a broken wire requirement does: ``structural`` (sizes, offsets, header presence,
# lengths: the bytes cannot be read, DecodeError), ``value`` (a value or a consistency: the
# packet is decoded and carries the finding) or ``session`` (a packet out of turn or counts
# that do not add up: the session machine reports a ProtocolError and closes the session).
STRUCTURAL, VALUE_RULE, SESSION_RULE = "structural", "value", "session"
WIRE_RULE_KINDS = (STRUCTURAL, VALUE_RULE, SESSION_RULE)
# [MS-MQMQ] 2.2.18-2.2.20 (packet data types, common headers, the UserMessage Packet),
# [MS-MQQB] 2 (transport, session packets) and 3.1 (the session machine), [MS-MQDMPR]
# 3.1.7.1.30-32 (Message <-> packet)
_WIRE_SECTIONS_TEXT = {
    "MQMQ": """2.2.18.1.2 2.2.18.1.3 2.2.18.1.4 2.2.18.1.4.1 2.2.18.1.4.2 2.2.18.1.5.1
        2.2.18.1.5.2 2.2.18.1.6 2.2.18.1.7.1 2.2.18.1.7.2 2.2.19.1 2.2.19.2 2.2.19.3 2.2.20
        2.2.20.1 2.2.20.2 2.2.20.3 2.2.20.4 2.2.20.5 2.2.20.6 2.2.20.7 2.2.20.8""",
    "MQQB": """2.1.1 2.1.2 2.2 2.2.1 2.2.2 2.2.2.1 2.2.3 2.2.3.1 2.2.4 2.2.4.1 2.2.5 2.2.5.1 2.2.6
        2.2.7 3.1.1.3.1 3.1.1.4 3.1.5.1.2 3.1.5.1.3 3.1.5.3 3.1.5.3.1 3.1.5.3.2 3.1.5.4
        3.1.5.4.1 3.1.5.5 3.1.5.5.5 3.1.5.8 3.1.6.3""",
    "MQDMPR": "3.1.7.1.30 3.1.7.1.31 3.1.7.1.32",
    # [MS-MQRR] 2.2.5: the whole UserMessage as Windows parses it (SRMP headers, extensions)
    "MQRR": "2.2.5 2.2.5.1 2.2.5.1.2 2.2.5.1.2.1 2.2.5.1.2.2 2.2.5.2 2.2.5.3 2.2.5.4 2.2.5.5",
}
WIRE_KNOWN_SECTIONS = {spec: frozenset(text.split()) for spec, text in _WIRE_SECTIONS_TEXT.items()}
# the documents a wire ID may name, in the order above (MQMQ|MQQB|MQDMPR|MQRR)
WIRE_SPECS = "|".join(_WIRE_SECTIONS_TEXT)
WIRE_ID_PATTERN = re.compile(
    rf"^(?P<spec>{WIRE_SPECS})-(?P<section>\d+(?:\.\d+)*)-(?P<n>[1-9]\d*)$"
)


@dataclass(frozen=True, slots=True)
class CatalogScheme:
    """What one catalog file may contain: its ID form, sections, roles, fingerprint rule."""

    name: str
    id_pattern: re.Pattern[str]
    id_form: str
    roles: tuple[str, ...]
    fingerprints_allowed: bool
    # the ``rule`` every entry must name (empty: entries carry none)
    rule_kinds: tuple[str, ...] = ()

    def known_section(self, match: re.Match[str]) -> bool:
        if "spec" in self.id_pattern.groupindex:
            return match["section"] in WIRE_KNOWN_SECTIONS[match["spec"]]
        return match["section"] in KNOWN_SECTIONS


MQCN_SCHEME = CatalogScheme(
    "requirements catalog", ID_PATTERN, "MQCN-<section>-<n>", ROLES, fingerprints_allowed=True
)
WIRE_SCHEME = CatalogScheme(
    "wire requirements catalog",
    WIRE_ID_PATTERN,
    f"{WIRE_SPECS}-<section>-<n>",
    WIRE_ROLES,
    fingerprints_allowed=False,  # the wire documents are excerpts: no sentence coverage kept
    rule_kinds=WIRE_RULE_KINDS,
)


class CatalogError(ValueError):
    """The catalog file itself is broken (duplicate ID, unknown section, bad field...)."""


@dataclass(frozen=True, slots=True)
class Requirement:
    """One atomic normative statement of MS-MQCN."""

    id: str
    section: str
    keyword: str
    role: str
    statement: str
    testability: str
    reason: str = ""
    note: int | None = None
    fingerprints: tuple[str, ...] = ()
    errata: tuple[str, ...] = ()
    rule: str = ""  # wire catalog: structural or value (WIRE_RULE_KINDS)

    @property
    def testable(self) -> bool:
        return self.testability == "testable"

    @property
    def is_mandatory(self) -> bool:
        """MUST / MUST NOT: a failure is a failure (SHOULD/MAY/PRODUCT only warn or inform)."""
        return self.keyword in ("MUST", "MUST NOT")

    @property
    def severity(self) -> str:
        if self.is_mandatory:
            return "error"
        if self.keyword in ("SHOULD", "SHOULD NOT"):
            return "warning"
        return "info"

    def summary(self) -> dict[str, Any]:
        """The fields every JSON view of a requirement starts with (catalog list, report)."""
        return {
            "id": self.id,
            "section": self.section,
            "keyword": self.keyword,
            "role": self.role,
            "statement": self.statement,
            "testable": self.testable,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Catalog(Mapping[str, Requirement]):
    """An ordered, validated, read-only map from requirement ID to :class:`Requirement`."""

    spec: str
    entries: dict[str, Requirement] = field(repr=False)

    def __getitem__(self, key: str) -> Requirement:
        return self.entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def in_section(self, section: str) -> list[Requirement]:
        return [r for r in self.entries.values() if r.section == section]


def parse_catalog(document: Any, scheme: CatalogScheme = MQCN_SCHEME) -> Catalog:
    """Validate a parsed YAML document and build the :class:`Catalog`; raise CatalogError."""

    def _fail(where: str, message: str) -> CatalogError:
        return CatalogError(f"{scheme.name}, {where}: {message}")

    if not isinstance(document, dict) or not isinstance(document.get("requirements"), list):
        raise _fail("top level", "expected a mapping with a 'requirements' list")
    entries: dict[str, Requirement] = {}
    for index, raw in enumerate(document["requirements"]):
        where = f"entry #{index + 1}"
        if not isinstance(raw, dict):
            raise _fail(where, "an entry must be a mapping")
        rid = str(raw.get("id", ""))
        where = f"entry #{index + 1} ({rid or 'no id'})"
        match = scheme.id_pattern.match(rid)
        if not match:
            raise _fail(where, f"id must look like {scheme.id_form}")
        if rid in entries:
            raise _fail(where, "duplicate id")
        section = str(raw.get("section", ""))
        if section != match["section"]:
            raise _fail(where, f"section {section!r} does not match the id")
        if not scheme.known_section(match):
            raise _fail(where, f"unknown section {section!r}")
        keyword = raw.get("keyword")
        if keyword not in KEYWORDS:
            raise _fail(where, f"keyword must be one of {KEYWORDS}, not {keyword!r}")
        role = raw.get("role")
        if role not in scheme.roles:
            raise _fail(where, f"role must be one of {scheme.roles}, not {role!r}")
        statement = str(raw.get("statement", "")).strip()
        if not statement:
            raise _fail(where, "statement is empty")
        testability = raw.get("testability")
        if testability not in TESTABILITY:
            raise _fail(where, f"testability must be one of {TESTABILITY}")
        reason = str(raw.get("reason", "")).strip()
        if testability == "untestable" and not reason:
            raise _fail(where, "an untestable requirement needs a reason")
        note = raw.get("note")
        if keyword == "PRODUCT" and (not isinstance(note, int) or isinstance(note, bool)):
            raise _fail(where, "a PRODUCT entry needs the note number it records")
        fingerprints = raw.get("fingerprints") or []
        if fingerprints and not scheme.fingerprints_allowed:
            raise _fail(where, "entries of this catalog carry no fingerprints")
        if not isinstance(fingerprints, list) or not all(
            isinstance(f, str) and FINGERPRINT_PATTERN.match(f) for f in fingerprints
        ):
            raise _fail(where, "fingerprints must be a list of quoted 12-hex-digit strings")
        rule = str(raw.get("rule", ""))
        if scheme.rule_kinds and rule not in scheme.rule_kinds:
            raise _fail(where, f"rule must be one of {scheme.rule_kinds}, not {rule!r}")
        if not scheme.rule_kinds and rule:
            raise _fail(where, "entries of this catalog carry no rule kind")
        entries[rid] = Requirement(
            id=rid,
            section=section,
            keyword=keyword,
            role=role,
            statement=statement,
            testability=testability,
            reason=reason,
            note=note,
            fingerprints=tuple(fingerprints),
            errata=tuple(str(e) for e in raw.get("errata", ()) or ()),
            rule=rule,
        )
    return Catalog(spec=str(document.get("spec", "")), entries=entries)


# libyaml's safe loader when PyYAML was built with it (the wheels are): the same documents, a
# fifth of the time -- every process that imports the model (each Spark worker, each test
# worker, each command) loads both catalogs.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_catalog_text(text: str, scheme: CatalogScheme = MQCN_SCHEME) -> Catalog:
    """Parse catalog YAML text (used for the packaged catalogs and for testing broken ones)."""
    try:
        document = yaml.load(text, Loader=_SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise CatalogError(f"{scheme.name} is not valid YAML: {exc}") from None
    return parse_catalog(document, scheme)


def _load_packaged(
    file_name: str = "requirements.yaml", scheme: CatalogScheme = MQCN_SCHEME
) -> Catalog:
    text = resources.files(__package__).joinpath(file_name).read_text("utf-8")
    return load_catalog_text(text, scheme)


CATALOG: Catalog = _load_packaged()
WIRE_CATALOG: Catalog = _load_packaged("wire_requirements.yaml", WIRE_SCHEME)


class UnknownRequirementError(KeyError):
    """Code referred to a requirement ID the catalog does not hold: a bug in the suite."""


def req(requirement_id: str) -> str:
    """Return ``requirement_id`` after checking the catalog holds it.

    Use it for every ID written in code, at import time where possible, so that a typo is an
    immediate failure.
    """
    if requirement_id not in CATALOG and requirement_id not in WIRE_CATALOG:
        raise UnknownRequirementError(f"{requirement_id!r} is not in the requirements catalog")
    return requirement_id


def requirement(requirement_id: str) -> Requirement:
    """The entry of ``requirement_id`` in either catalog (UnknownRequirementError if none)."""
    found = CATALOG.get(requirement_id) or WIRE_CATALOG.get(requirement_id)
    if found is None:
        raise UnknownRequirementError(f"{requirement_id!r} is not in the requirements catalog")
    return found


# --- Spec sentence fingerprints ------------------------------------------------------------
#
# A fingerprint names one sentence of the specification independently of how the document
# was converted to text.  The normal form (``normalise_sentence``) is, in this order:
#
# 1. LaTeX-ish math of the PDF conversion unwrapped: ``$\text{PropertyId}[0] / 100$`` is
#    ``PropertyId[0] / 100``;
# 2. every backslash removed (markdown escapes: ``VT\_I2`` is ``VT_I2``, ``\[MS-MQMQ\]`` is
#    ``[MS-MQMQ]``; the sentences of MS-MQCN carry no meaningful backslash);
# 3. links reduced to their text (``[Notification Body (section 2.2.5)](#)`` is the text;
#    one level of brackets inside the text is kept, so ``[\[MS-DTYP\]](#)`` is ``[MS-DTYP]``);
# 4. anything in angle brackets removed: note marks ``<5>`` / ``[<5>](#)`` and HTML tags;
# 5. emphasis and code marks (``*``, ``**``, backquotes) removed;
# 6. runs of whitespace made one space, the space before ``. , ; : ! ?`` dropped, ends
#    stripped, and finally everything lower-cased.
#
# ``clean_sentence`` is steps 1-6 without the lower-casing (for display).  Cleaning a cleaned
# sentence changes nothing.
# Changing any step changes fingerprints: the catalog's ``fingerprints:`` must then be
# updated (``python tools/fingerprint_report.py --spec PATH`` lists every normative sentence
# with its fingerprint and the entries that map it; ``mqcn catalog verify`` checks the result).

_WS = re.compile(r"\s+")
_MATH_TEXT = re.compile(r"\\(?:text|mathrm|mathit|textbf)\{([^{}]*)\}")
MARKDOWN_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)")  # [text](url)
_ANGLE = re.compile(r"<[^<>]*>")
_EMPHASIS = re.compile(r"[*`]")
_SPACE_BEFORE_PUNCT = re.compile(r" ([.,;:!?])")


def clean_sentence(sentence: str) -> str:
    r"""``sentence`` without markup, note marks and extra spacing, case kept (see above).

    >>> clean_sentence("The value of a VT\\_I2 type **MUST** be set.[<5>](#)")
    'The value of a VT_I2 type MUST be set.'
    >>> clean_sentence("a **GUID** ([\\[MS-DTYP\\]](#) section 2.3.4.2) value")
    'a GUID ([MS-DTYP] section 2.3.4.2) value'
    """
    text = _MATH_TEXT.sub(r"\1", sentence).replace("$", "").replace("\\", "")
    text = MARKDOWN_LINK.sub(r"\1", text)
    text = _EMPHASIS.sub("", _ANGLE.sub("", text))
    return _SPACE_BEFORE_PUNCT.sub(r"\1", _WS.sub(" ", text)).strip()


def normalise_sentence(sentence: str) -> str:
    """Reduce a spec sentence to a canonical form: markup, note marks and spacing removed."""
    return clean_sentence(sentence).lower()


def sentence_fingerprint(sentence: str) -> str:
    """A short, stable fingerprint of one spec sentence (sha1 of its normal form, 12 hex)."""
    return hashlib.sha1(normalise_sentence(sentence).encode("utf-8")).hexdigest()[:12]
