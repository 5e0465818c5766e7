"""MultiQueueFormatHeader, MQFAddressHeader, MQFSignatureHeader ([MS-MQMQ] 2.2.20.1-3).

A message sent to several queues carries the whole list: three MQFAddressHeaders
(destination, administration, response) and an MQFSignatureHeader, back to back::

    MQFAddressHeader:   HeaderSize(4) HeaderID(2) Reserved(2) ElementCount(4)
                        FormatNameList (MQFFormatNameElements), padded to 4 bytes
    MQFSignatureHeader: ID(2)=0x015E Reserved(2) Size(4) Signature(Size), padded to 4

HeaderSize counts the whole address header, padding included.

>>> import uuid
>>> from mqcn_model.wire.queues import MQFElement
>>> m = MultiQueueFormat(destination=[MQFElement(1, guid=uuid.UUID(int=1))])
>>> wire = encode_mqf(m)
>>> len(wire), decode_mqf(wire, 0, len(wire))[0] == m
(64, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqcn_model.catalog import req
from mqcn_model.errors import fail
from mqcn_model.wire.common import READING, Findings, Letter, align4, breach, need
from mqcn_model.wire.declared import layout, pack, part, wire
from mqcn_model.wire.queues import MQFElement, decode_mqf_element, encode_mqf_element

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_ORDER = req("MQMQ-2.2.20.1-1")
R_ADDRESS_SIZE = req("MQMQ-2.2.20.2-1")
R_SIGNATURE_ID = req("MQMQ-2.2.20.3-1")
R_SIGNATURE_SIZE = req("MQMQ-2.2.20.3-2")

DESTINATION_ID, ADMIN_ID, RESPONSE_ID, SIGNATURE_ID = 0x0064, 0x00C8, 0x012C, 0x015E
ADDRESS_FIXED_SIZE = 12
ADDRESS_IDS = (DESTINATION_ID, ADMIN_ID, RESPONSE_ID)

ADDRESS_NAMES = {
    DESTINATION_ID: "Destination", ADMIN_ID: "Admin", RESPONSE_ID: "Response",
    SIGNATURE_ID: "Signature",
}  # fmt: skip


@dataclass(slots=True)
class MQFAddressHeader:
    """One MQFAddressHeader (2.2.20.2), declared once: its struct here, its scapy layer
    (:mod:`mqcn_model.wire.packet_layers`).  HeaderSize left at ``None`` is computed."""

    header_size: int | None = wire("HeaderSize", "I", default=None, requirement=R_ADDRESS_SIZE)
    header_id: int = wire("HeaderID", "H", default=DESTINATION_ID, enum=ADDRESS_NAMES)
    reserved: int = wire("Reserved", "H")
    element_count: int | None = wire("ElementCount", "I", count_of="FormatNameList")
    elements: list[MQFElement] = part("FormatNameList", default_factory=list)


@dataclass(slots=True)
class MQFSignatureHeader:
    """The MQFSignatureHeader (2.2.20.3), declared once."""

    id: int = wire("ID", "H", default=SIGNATURE_ID, kind="hex", requirement=R_SIGNATURE_ID)
    reserved: int = wire("Reserved", "H")
    size: int | None = wire("Size", "I", length_of="Signature", requirement=R_SIGNATURE_SIZE)
    signature: bytes = part("Signature", default=b"")


_ADDRESS = layout(MQFAddressHeader).struct
_SIGNATURE = layout(MQFSignatureHeader).struct


@dataclass(slots=True)
class MultiQueueFormat:
    """The MultiQueueFormatHeader: the three element lists and the signature bytes."""

    destination: list[MQFElement] = field(default_factory=list)
    admin: list[MQFElement] = field(default_factory=list)
    response: list[MQFElement] = field(default_factory=list)
    signature: bytes = b""
    reserved: tuple[int, int, int, int] = (0, 0, 0, 0)  # of the four parts, in order


def decode_address(
    buf: bytes,
    offset: int,
    end: int,
    header_id: int,
    findings: Findings = None,
    letter: Letter = READING,
) -> tuple[list[MQFElement], int, int]:
    """Read one MQFAddressHeader that must carry ``header_id``; (elements, reserved, end)."""
    start = offset
    need(offset, ADDRESS_FIXED_SIZE, end, R_PACKET_SIZE, "an MQFAddressHeader")
    size, found, reserved, count = _ADDRESS.unpack_from(buf, offset)
    if found != header_id:
        breach(
            findings,
            R_ORDER,
            offset + 4,
            f"HeaderID is 0x{found:04x}, expected 0x{header_id:04x}",
        )
    if size < ADDRESS_FIXED_SIZE or size % 4 or start + size > end:
        raise fail(R_ADDRESS_SIZE, offset, f"HeaderSize {size} does not fit the packet")
    stop = start + size
    offset += ADDRESS_FIXED_SIZE
    elements = []
    if count > (size - ADDRESS_FIXED_SIZE) // 2:  # every element takes at least 2 bytes
        raise fail(R_ADDRESS_SIZE, start + 8, f"ElementCount {count} cannot fit HeaderSize {size}")
    for _ in range(count):
        element, offset = decode_mqf_element(buf, offset, stop, start, letter)
        elements.append(element)
    if start + align4(offset - start) != stop:
        raise fail(
            R_ADDRESS_SIZE,
            start,
            f"HeaderSize is {size} but the header with its {count} elements takes "
            f"{align4(offset - start)}",
        )
    return elements, reserved, stop


def encode_address(
    elements: list[MQFElement], header_id: int, reserved: int = 0, *, letter: bool = False
) -> bytes:
    """One MQFAddressHeader (``letter``: public GUIDs unpadded, W-07's letter)."""
    body = b""
    for element in elements:
        body += encode_mqf_element(element, ADDRESS_FIXED_SIZE + len(body), letter=letter)
    size = align4(ADDRESS_FIXED_SIZE + len(body))
    head = pack(MQFAddressHeader(size, header_id, reserved), ElementCount=len(elements))
    return head + body + bytes(size - ADDRESS_FIXED_SIZE - len(body))


def decode_mqf(
    buf: bytes, offset: int, end: int, findings: Findings = None, letter: Letter = READING
) -> tuple[MultiQueueFormat, int]:
    lists = []
    reserved = []
    for header_id in ADDRESS_IDS:
        elements, spare, offset = decode_address(buf, offset, end, header_id, findings, letter)
        lists.append(elements)
        reserved.append(spare)
    need(offset, _SIGNATURE.size, end, R_PACKET_SIZE, "an MQFSignatureHeader")
    found, spare, size = _SIGNATURE.unpack_from(buf, offset)
    if found != SIGNATURE_ID:
        breach(findings, R_SIGNATURE_ID, offset, f"ID is 0x{found:04x}, not 0x015e")
    start = offset + _SIGNATURE.size
    if start + size > end:
        raise fail(R_SIGNATURE_SIZE, offset + 4, f"Size {size} runs past the packet")
    signature = bytes(buf[start : start + size])
    after = start + align4(size)
    need(after, 0, end, R_PACKET_SIZE, "the MQFSignatureHeader padding")
    mqf = MultiQueueFormat(
        lists[0], lists[1], lists[2], signature, (reserved[0], reserved[1], reserved[2], spare)
    )
    return mqf, after


def encode_mqf(mqf: MultiQueueFormat, *, letter: bool = False) -> bytes:
    """The header's bytes (``letter``: public GUIDs unpadded, as W-07's letter lays them)."""
    parts = [
        encode_address(mqf.destination, DESTINATION_ID, mqf.reserved[0], letter=letter),
        encode_address(mqf.admin, ADMIN_ID, mqf.reserved[1], letter=letter),
        encode_address(mqf.response, RESPONSE_ID, mqf.reserved[2], letter=letter),
        pack(MQFSignatureHeader(SIGNATURE_ID, mqf.reserved[3]), Size=len(mqf.signature)),
        mqf.signature,
        bytes(align4(len(mqf.signature)) - len(mqf.signature)),
    ]
    return b"".join(parts)
