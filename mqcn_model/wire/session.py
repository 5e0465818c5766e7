"""SessionHeader ([MS-MQMQ] 2.2.20.4): the session acknowledgment counters (16 bytes).

Layout::

    AckSequenceNumber(2) RecoverableMsgAckSeqNumber(2) RecoverableMsgAckFlags(4)
    UserMsgSequenceNumber(2) RecoverableMsgSeqNumber(2) WindowSize(2) Reserved(2)

It ends a UserMessage Packet when BaseHeader.Flags.SH is set (outside PacketSize) and is
the body of a SessionAck Packet (inside its PacketSize: errata W-01).

>>> s = SessionHeader(ack_sequence=2, user_sequence=3)
>>> decode_session(encode_session(s), 0, 16)[0] == s
True
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.wire.common import Findings, breach, need

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_WINDOW = req("MQMQ-2.2.20.4-1")

SESSION_HEADER_SIZE = 16
DEFAULT_WINDOW_SIZE = 0x0040

_FIXED = struct.Struct("<HHIHHHH")


@dataclass(slots=True)
class SessionHeader:
    ack_sequence: int = 0
    recoverable_ack_sequence: int = 0
    recoverable_ack_flags: int = 0
    user_sequence: int = 0
    recoverable_sequence: int = 0
    window_size: int = DEFAULT_WINDOW_SIZE
    reserved: int = 0


def decode_session(
    buf: bytes, offset: int, end: int, findings: Findings = None
) -> tuple[SessionHeader, int]:
    need(offset, SESSION_HEADER_SIZE, end, R_PACKET_SIZE, "a SessionHeader")
    header = SessionHeader(*_FIXED.unpack_from(buf, offset))
    if header.window_size == 0:
        breach(findings, R_WINDOW, offset + 12, "WindowSize is 0")
    return header, offset + SESSION_HEADER_SIZE


def encode_session(header: SessionHeader) -> bytes:
    return _FIXED.pack(
        header.ack_sequence,
        header.recoverable_ack_sequence,
        header.recoverable_ack_flags,
        header.user_sequence,
        header.recoverable_sequence,
        header.window_size,
        header.reserved,
    )
