"""DebugHeader ([MS-MQMQ] 2.2.20.8): the queue that receives trace messages.

Layout: Flags(2) Reserved(2) [QueueIdentifier(16) when Flags.QT is 1].  QT is bits 0-1.

>>> import uuid
>>> d = DebugHeader(flags=QT_PUBLIC, queue=uuid.UUID(int=5))
>>> decode_debug(encode_debug(d), 0, 20)[0] == d
True
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.errors import fail
from mqcn_model.wire.common import GUID_SIZE, guid_at, need

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_QT = req("MQMQ-2.2.20.8-1")

DEBUG_FIXED_SIZE = 4
QT_MASK = 0x3
QT_NONE, QT_PUBLIC = 0, 1

_FIXED = struct.Struct("<HH")


@dataclass(slots=True)
class DebugHeader:
    flags: int = QT_NONE
    reserved: int = 0
    queue: uuid.UUID | None = None

    @property
    def queue_type(self) -> int:
        return self.flags & QT_MASK


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
    head = _FIXED.pack(header.flags, header.reserved)
    return head + (header.queue.bytes_le if header.queue else b"")
