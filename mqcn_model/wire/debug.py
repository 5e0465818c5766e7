"""DebugHeader ([MS-MQMQ] 2.2.20.8): the queue that receives trace messages.

Layout: Flags(2) Reserved(2) [QueueIdentifier(16) when Flags.QT is 1].  QT is bits 0-1.

>>> import uuid
>>> d = DebugHeader(flags=QT_PUBLIC, queue=uuid.UUID(int=5))
>>> decode_debug(encode_debug(d), 0, 20)[0] == d
True
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.errors import fail
from mqcn_model.wire.common import GUID_SIZE, guid_at, need
from mqcn_model.wire.declared import layout, pack, part, wire

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_QT = req("MQMQ-2.2.20.8-1")

DEBUG_FIXED_SIZE = 4
QT_MASK = 0x3
QT_NONE, QT_PUBLIC = 0, 1


@dataclass(slots=True)
class DebugHeader:
    """Declared once (:mod:`mqcn_model.wire.declared`)."""

    flags: int = wire(
        "Flags", "H", groups=(("X", 14), ("QT", 2, {0: "none", 1: "public"})), requirement=R_QT
    )
    reserved: int = wire("Reserved", "H")
    queue: uuid.UUID | None = part("QueueIdentifier", default=None, when="QT")

    @property
    def queue_type(self) -> int:
        return self.flags & QT_MASK


_FIXED = layout(DebugHeader).struct


def decode_debug(buf: bytes, offset: int, end: int) -> tuple[DebugHeader, int]:
    need(offset, DEBUG_FIXED_SIZE, end, R_PACKET_SIZE, "a DebugHeader")
    flags, reserved = _FIXED.unpack_from(buf, offset)
    if flags & QT_MASK not in (QT_NONE, QT_PUBLIC):
        raise fail(R_QT, offset, f"Flags.QT is {flags & QT_MASK}, not 0 or 1")
    header = DebugHeader(flags, reserved)
    offset += DEBUG_FIXED_SIZE
    if flags & QT_MASK == QT_PUBLIC:
        need(offset, GUID_SIZE, end, R_PACKET_SIZE, "the QueueIdentifier")
        header.queue = guid_at(buf, offset)
        offset += GUID_SIZE
    return header, offset


def encode_debug(header: DebugHeader) -> bytes:
    if (header.queue_type == QT_PUBLIC) != (header.queue is not None):
        raise ValueError("Flags.QT and the QueueIdentifier field disagree")
    return pack(header) + (header.queue.bytes_le if header.queue else b"")
