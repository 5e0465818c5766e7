"""OrderAck and FinalAck ([MS-MQQB] 2.2.4, 2.2.5): transactional acknowledgments.

Both are UserMessage Packets addressed to the sender's order queue (``order_queue$``,
private queue 4, or ``DIRECT=TCP:<address>\\PRIVATE$\\order_queue$``) whose 36-byte body is::

    OrderAck Body: TxSequenceID(8) TxSequenceNumber(4) TxPreviousSequenceNumber(4) Reserved(20)
    FinalAck Body: TxSequenceID(8) TxSequenceNumber(4) TxPreviousSequenceNumber(4)
                   SourceGUID(16) MessageID(4)

A packet is an OrderAck when its class is MQMSG_CLASS_ORDER_ACK, a FinalAck when it goes to
the order queue with another class; :func:`check_ack` judges either against MS-MQQB.

>>> b = OrderAckBody(sequence_number=5, previous_number=4)
>>> decode_order_ack_body(encode_order_ack_body(b), 0) == b
True
"""

from __future__ import annotations

import ipaddress
import re
import struct
import uuid
from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.errors import fail
from mqcn_model.wire.base import SH as BASE_SH
from mqcn_model.wire.common import NIL, Findings, breach, guid_at
from mqcn_model.wire.properties import MessageProperties
from mqcn_model.wire.user import DM_SHIFT, DQ_SHIFT, MP, UserHeader

R_BASE_FLAGS = req("MQQB-2.2.4-1")
R_USER_FLAGS = req("MQQB-2.2.4-2")
R_ORDER_QUEUE = req("MQQB-2.2.4-3")
R_PROPERTIES = req("MQQB-2.2.4-4")
R_ORDER_BODY = req("MQQB-2.2.4.1-1")
R_FINAL_BODY = req("MQQB-2.2.5.1-1")

ORDER_ACK_CLASS = 0x00FF
ACK_RECEIVE_CLASS = 0x4000
FINAL_ACK_NACKS = frozenset(
    {0x8009, 0x8000, 0x8004, 0x8007, 0x800B, 0x8006, 0x8003, 0xC000, 0xC001, 0xC002}
)
ORDER_QUEUE_NUMBER = 4
ACK_LABEL = "QM Ordering Ack"
ACK_BODY_SIZE = 0x24
VT_EMPTY = 0

ORDER_ACK = "OrderAck"
FINAL_ACK = "FinalAck"

_ORDER_SUFFIX = "\\private$\\order_queue$"
_IPX = re.compile(r"[0-9A-F]{8}\.[0-9A-F]{12}", re.IGNORECASE | re.ASCII)
_ORDER_BODY = struct.Struct("<IIII20s")
_FINAL_BODY = struct.Struct("<IIII16sI")


@dataclass(slots=True)
class OrderAckBody:
    sequence_ordinal: int = 0
    sequence_timestamp: int = 0
    sequence_number: int = 1
    previous_number: int = 0
    reserved: bytes = bytes(20)


@dataclass(slots=True)
class FinalAckBody:
    sequence_ordinal: int = 0
    sequence_timestamp: int = 0
    sequence_number: int = 1
    previous_number: int = 0
    source_guid: uuid.UUID = NIL
    message_id: int = 0


def decode_order_ack_body(body: bytes, at: int, findings: Findings = None) -> OrderAckBody:
    """Read an OrderAck Body (``at``: its offset in the packet, for error positions)."""
    if len(body) != ACK_BODY_SIZE:
        raise fail(R_PROPERTIES, at, f"the OrderAck body is {len(body)} bytes, not 0x24")
    ordinal, stamp, number, previous, reserved = _ORDER_BODY.unpack(body)
    if number < 1 or previous != number - 1:
        breach(
            findings,
            R_ORDER_BODY,
            at + 8,
            f"TxSequenceNumber {number} with TxPreviousSequenceNumber {previous}",
        )
    return OrderAckBody(ordinal, stamp, number, previous, reserved)


def encode_order_ack_body(body: OrderAckBody) -> bytes:
    return _ORDER_BODY.pack(
        body.sequence_ordinal,
        body.sequence_timestamp,
        body.sequence_number,
        body.previous_number,
        body.reserved,
    )


def decode_final_ack_body(body: bytes, at: int, findings: Findings = None) -> FinalAckBody:
    if len(body) != ACK_BODY_SIZE:
        raise fail(R_PROPERTIES, at, f"the FinalAck body is {len(body)} bytes, not 0x24")
    ordinal, stamp, number, previous, _, message_id = _FINAL_BODY.unpack(body)
    if number < 1 or previous > 0xFFFFFFFE:
        breach(
            findings,
            R_FINAL_BODY,
            at + 8,
            f"TxSequenceNumber {number} with TxPreviousSequenceNumber {previous}",
        )
    return FinalAckBody(ordinal, stamp, number, previous, guid_at(body, 16), message_id)


def encode_final_ack_body(body: FinalAckBody) -> bytes:
    return _FINAL_BODY.pack(
        body.sequence_ordinal,
        body.sequence_timestamp,
        body.sequence_number,
        body.previous_number,
        body.source_guid.bytes_le,
        body.message_id,
    )


def is_order_queue(user: UserHeader) -> bool:
    """Whether the destination is an order queue (private 4, or a direct name ending in
    ``\\PRIVATE$\\order_queue$`` in any case)."""
    queue = user.destination
    if queue is None:
        return False
    if user.dq == 3:
        return queue.private_id == ORDER_QUEUE_NUMBER
    if user.dq == 7 and queue.direct is not None:
        return queue.direct.lower().endswith(_ORDER_SUFFIX)
    return False


def ack_kind(user: UserHeader, properties: MessageProperties) -> str | None:
    """OrderAck, FinalAck or None for an ordinary UserMessage Packet."""
    if properties.message_class == ORDER_ACK_CLASS:
        return ORDER_ACK
    if is_order_queue(user):
        return FINAL_ACK
    return None


def _order_address_ok(address: str) -> bool:
    """The ABNF of 2.2.4: "TCP:" IPv4/IPv6 address, or "SPX:" network.node in hex."""
    scheme, rest = address[:4].upper(), address[4:]
    if scheme == "SPX:":
        return bool(_IPX.fullmatch(rest))
    if scheme != "TCP:":
        return False
    try:
        ipaddress.ip_address(rest)
    except ValueError:
        return False
    return True


def check_ack(
    kind: str,
    base_flags: int,
    user: UserHeader,
    properties: MessageProperties,
    offset: int,
    findings: Findings = None,
) -> OrderAckBody | FinalAckBody | None:
    """Judge an OrderAck or FinalAck (``offset``: where the packet starts); return its body,
    None when it is not the 0x24 bytes of one (a finding of MQQB-2.2.4-4).

    BaseHeader.Flags.SH may be set: a session acknowledgment can ride on any UserMessage
    Packet (errata W-09).
    """
    if base_flags & ~BASE_SH:
        breach(findings, R_BASE_FLAGS, offset + 2, f"BaseHeader.Flags is 0x{base_flags:04x}, not 0")
    allowed = MP | ((1 << DM_SHIFT) if kind == FINAL_ACK else 0)
    rest = user.flags & ~(0x7 << DQ_SHIFT)
    if rest != allowed or user.dq not in (3, 7):
        breach(
            findings,
            R_USER_FLAGS,
            offset + 60,
            f"{kind} UserHeader.Flags is 0x{user.flags:08x}: expected only MP"
            + (" and DM 1" if kind == FINAL_ACK else "")
            + " besides DQ 3 or 7",
        )
    queue = user.destination
    if user.dq == 3 and queue is not None and queue.private_id != ORDER_QUEUE_NUMBER:
        breach(findings, R_ORDER_QUEUE, offset + 64, f"private queue {queue.private_id}, not 4")
    if user.dq == 7 and queue is not None:
        name = queue.direct or ""
        if not name.lower().endswith(_ORDER_SUFFIX) or not _order_address_ok(
            name[: -len(_ORDER_SUFFIX)]
        ):
            breach(findings, R_ORDER_QUEUE, offset + 64, f"{name!r} is not an order queue name")
    at = properties.offset
    wanted = {ORDER_ACK_CLASS} if kind == ORDER_ACK else {ACK_RECEIVE_CLASS} | FINAL_ACK_NACKS
    problems = []
    if properties.label != ACK_LABEL:
        problems.append(f"Label {properties.label!r}")
    if len(properties.body) != ACK_BODY_SIZE:
        problems.append(f"MessageSize {len(properties.body)}")
    if properties.flags:
        problems.append(f"Flags 0x{properties.flags:02x}")
    if properties.body_type != VT_EMPTY:
        problems.append(f"BodyType {properties.body_type}")
    if properties.message_class not in wanted:
        problems.append(f"MessageClass 0x{properties.message_class:04x}")
    if problems:
        breach(
            findings, R_PROPERTIES, at, f"{kind} MessagePropertiesHeader has " + ", ".join(problems)
        )
    if len(properties.body) != ACK_BODY_SIZE:
        return None  # no acknowledgment body to read (the finding above says why)
    body_at = at + 56 + 2 * properties.label_length + len(properties.extension)
    if kind == ORDER_ACK:
        return decode_order_ack_body(properties.body, body_at, findings)
    return decode_final_ack_body(properties.body, body_at, findings)
