"""SoapHeader ([MS-MQMQ] 2.2.20.7): two application strings, kept as opaque text.

Layout, each part padded to a 4-byte boundary (errata W-08)::

    HeaderSectionID(2)=0x0320 Reserved(2) HeaderDataLength(4) Header(2*HeaderDataLength)
    BodySectionID(2)=0x0384 Reserved1(2) BodyDataLength(4) Body(2*BodyDataLength)

The lengths count UTF-16 code units including the final 0x0000.  A SoapHeader written to the
letter of the layout (no padding between Header and BodySectionID, only the header as a
whole padded: W-08's other reading) is read too: when the padded place holds no
BodySectionID and the unpadded one does, the Body part starts there.

>>> s = SoapHeader(header="<h/>", body="<b/>")
>>> wire = encode_soap(s)
>>> len(wire), decode_soap(wire, 0, len(wire))[0] == s
(40, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.errors import fail
from mqcn_model.wire.common import (
    READING,
    U16,
    Findings,
    Letter,
    WireReading,
    align4,
    breach,
    need,
    utf16z,
)
from mqcn_model.wire.declared import layout, pack, part, wire

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_HEADER_ID = req("MQMQ-2.2.20.7-1")
R_BODY_ID = req("MQMQ-2.2.20.7-2")
R_STRINGS = req("MQMQ-2.2.20.7-3")

HEADER_SECTION_ID = 0x0320
BODY_SECTION_ID = 0x0384


@dataclass(slots=True)
class SoapHeader:
    """Declared once (:mod:`mqcn_model.wire.declared`): two fixed runs, the Header part's and
    the Body part's, each before its string."""

    header: str = part("Header", default="")
    body: str = part("Body", default="")
    reserved: int = wire("Reserved", "H", at=2)
    reserved1: int = wire("Reserved1", "H", at=2, run=1)
    header_section_id: int = wire(
        "HeaderSectionID", "H", default=HEADER_SECTION_ID, at=0, kind="hex",
        requirement=R_HEADER_ID, compare=False,
    )  # fmt: skip
    body_section_id: int = wire(
        "BodySectionID", "H", default=BODY_SECTION_ID, at=0, run=1, kind="hex",
        requirement=R_BODY_ID, compare=False,
    )  # fmt: skip
    header_data_length: int | None = wire(
        "HeaderDataLength", "I", at=4, length_of="Header", unit=2, requirement=R_STRINGS
    )
    body_data_length: int | None = wire(
        "BodyDataLength", "I", at=4, run=1, length_of="Body", unit=2, requirement=R_STRINGS
    )


_PART = layout(SoapHeader).runs[0]  # the Body part's run has the same shape


def _decode_part(
    buf: bytes,
    offset: int,
    end: int,
    section_id: int,
    requirement: str,
    what: str,
    findings: Findings,
) -> tuple[str, int, int]:
    need(offset, _PART.size, end, R_PACKET_SIZE, f"the SoapHeader {what} part")
    found, reserved, units = _PART.unpack_from(buf, offset)
    if found != section_id:
        wanted = f"0x{section_id:04x}"
        breach(findings, requirement, offset, f"{what} section ID is 0x{found:04x}, not {wanted}")
    start = offset + _PART.size
    if units < 1 or start + 2 * units > end:
        raise fail(R_STRINGS, offset + 4, f"{what}DataLength {units} does not fit the packet")
    text, stop = utf16z(buf, start, start + 2 * units, R_STRINGS, what)
    return text, reserved, stop


def _section_id_at(buf: bytes, offset: int, end: int) -> int | None:
    return U16.unpack_from(buf, offset)[0] if offset + 2 <= end else None


def decode_soap(
    buf: bytes, offset: int, end: int, findings: Findings = None, letter: Letter = READING
) -> tuple[SoapHeader, int]:
    """Read a SoapHeader; a Body part read at the letter's place is noted in ``letter``
    (whatever items it follows: only that place holds a BodySectionID)."""
    start = offset
    header, reserved, stop = _decode_part(
        buf, offset, end, HEADER_SECTION_ID, R_HEADER_ID, "Header", findings
    )
    body_at = start + align4(stop - start)  # each part padded (errata W-08's reading)
    if (
        body_at != stop
        and _section_id_at(buf, body_at, end) != BODY_SECTION_ID
        and _section_id_at(buf, stop, end) == BODY_SECTION_ID
    ):
        body_at = stop  # the letter of the layout: BodySectionID right after Header
        if letter is not READING:
            letter.used.append(
                WireReading(
                    "W-08",
                    stop,
                    "the Body part follows the Header unpadded (BodySectionID 0x0384 is "
                    f"there, not at the 4-byte boundary {start + align4(stop - start)})",
                )
            )
    body, reserved1, stop = _decode_part(
        buf, body_at, end, BODY_SECTION_ID, R_BODY_ID, "Body", findings
    )
    offset = start + align4(stop - start)
    need(offset, 0, end, R_PACKET_SIZE, "the SoapHeader padding")
    return SoapHeader(header, body, reserved, reserved1), offset


def _encode_part(header: SoapHeader, run: int, length: str, text: str) -> bytes:
    data = text.encode("utf-16-le", "surrogatepass") + b"\x00\x00"
    out = pack(header, run, **{length: len(data) // 2}) + data
    return out + bytes(align4(len(out)) - len(out))


def encode_soap(header: SoapHeader) -> bytes:
    return _encode_part(header, 0, "HeaderDataLength", header.header) + _encode_part(
        header, 1, "BodyDataLength", header.body
    )
