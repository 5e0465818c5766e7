"""Shared pieces of the wire codec: little-endian structs, 4-byte alignment, bounds checks.

Every structure of [MS-MQMQ] 2.2.18-2.2.20 and [MS-MQQB] 2 is little-endian (2.2.18) and the
headers of a packet start on 4-byte boundaries, so the decoders share a handful of helpers.

>>> align4(0), align4(1), align4(4), align4(7)
(0, 4, 4, 8)
>>> utf16z(b"a\\x00b\\x00\\x00\\x00", 0, 6, "MQMQ-2.2.20.7-3", "Header")
('ab', 6)
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass, field

from mqcn_model.codec.guid import guid_at
from mqcn_model.errors import DecodeError, Violation, fail

U8 = struct.Struct("<B")
U16 = struct.Struct("<H")
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")
GUID_SIZE = 16
NIL = uuid.UUID(int=0)

__all__ = [
    "GUID_SIZE",
    "NIL",
    "U8",
    "U16",
    "U32",
    "U64",
    "Findings",
    "Letter",
    "WireReading",
    "align4",
    "breach",
    "guid_at",
    "need",
    "utf16z",
]


def align4(n: int) -> int:
    """``n`` rounded up to the next multiple of 4."""
    return (n + 3) & ~3


# Where a decoder puts the value rules a packet breaks: a list (the packet is still decoded and
# carries them as findings) or None (strict: the first one raises its DecodeError).
Findings = list[Violation] | None


def breach(findings: Findings, requirement: str, offset: int | None, message: str) -> None:
    """A *value rule* is broken (a wire MUST about a value or a consistency, not about where
    the bytes are): record the finding, or raise it when ``findings`` is None.

    Structural requirements (sizes, offsets, header presence, lengths: what reading needs)
    are raised with :func:`~mqcn_model.errors.fail` whatever ``findings`` is; the catalog
    says which kind each requirement is (``kind`` in ``wire_requirements.yaml``).
    """
    violation = Violation(requirement, offset, message)
    if findings is None:
        raise DecodeError(violation)
    findings.append(violation)


def need(offset: int, size: int, end: int, requirement: str, what: str) -> None:
    """Raise the DecodeError of ``requirement`` unless ``size`` bytes at ``offset`` fit before
    ``end`` (the end of the bytes given, or of the packet as PacketSize bounds it)."""
    if offset + size > end:
        left = max(0, end - offset)
        raise fail(requirement, offset, f"{what} needs {size} bytes, {left} left")


def utf16z(buf: bytes, offset: int, end: int, requirement: str, what: str) -> tuple[str, int]:
    """Decode the UTF-16LE string that fills ``buf[offset:end]`` and must end in 0x0000.

    Return the text (without the terminator; lone surrogates kept) and ``end``.
    """
    raw = bytes(buf[offset:end])
    if len(raw) < 2 or len(raw) % 2 or raw[-2:] != b"\x00\x00":
        raise fail(requirement, offset, f"{what} is not a UTF-16 string ending in 0x0000")
    return raw[:-2].decode("utf-16-le", "surrogatepass"), end


# --- the letter of the wire errata ---------------------------------------------------------------

# the wire errata whose letter is tried as a second layout of a whole packet; W-08's letter is
# read where it stands (by where BodySectionID is) and named the same way
LETTER_ITEMS = ("W-02", "W-06", "W-07")


@dataclass(frozen=True, slots=True)
class WireReading:
    """A packet was read to the *letter* of wire errata item ``errata`` (docs/errata.md), not
    the suite's reading, because its structure adds up only so: ``offset`` is the byte where
    the two layouts part, ``note`` says how it was read."""

    errata: str
    offset: int
    note: str
    reading: str = "letter"

    def to_json(self) -> dict[str, object]:
        return {
            "errata": self.errata,
            "reading": self.reading,
            "offset": self.offset,
            "note": self.note,
        }

    def __str__(self) -> str:
        return f"{self.errata} read to the {self.reading} at byte {self.offset}: {self.note}"


@dataclass(slots=True)
class Letter:
    """The errata items whose letter a decoder follows (``items``; empty: the suite's reading
    everywhere) and the places it did so (``used``, filled by the decoders)."""

    items: frozenset[str] = frozenset()
    used: list[WireReading] = field(default_factory=list)

    def follows(self, errata: str) -> bool:
        return errata in self.items

    def read(self, errata: str, offset: int, note: str) -> None:
        self.used.append(WireReading(errata, offset, note))


READING = (
    Letter()
)  # the suite's reading of every item, for a header decoded on its own: records nothing
