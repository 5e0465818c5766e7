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

import struct
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

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_HEADER_ID = req("MQMQ-2.2.20.7-1")
R_BODY_ID = req("MQMQ-2.2.20.7-2")
R_STRINGS = req("MQMQ-2.2.20.7-3")

HEADER_SECTION_ID = 0x0320
BODY_SECTION_ID = 0x0384

_PART = struct.Struct("<HHI")


@dataclass(slots=True)
class SoapHeader:
    header: str = ""
    body: str = ""
    reserved: int = 0
    reserved1: int = 0


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


def _encode_part(section_id: int, reserved: int, text: str) -> bytes:
    data = text.encode("utf-16-le", "surrogatepass") + b"\x00\x00"
    part = _PART.pack(section_id, reserved, len(data) // 2) + data
    return part + bytes(align4(len(part)) - len(part))


def encode_soap(header: SoapHeader) -> bytes:
    return _encode_part(HEADER_SECTION_ID, header.reserved, header.header) + _encode_part(
        BODY_SECTION_ID, header.reserved1, header.body
    )
