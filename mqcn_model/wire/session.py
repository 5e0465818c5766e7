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

from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.wire.common import Findings, breach, need
from mqcn_model.wire.declared import layout, pack, unpack, wire

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_WINDOW = req("MQMQ-2.2.20.4-1")

DEFAULT_WINDOW_SIZE = 0x0040


@dataclass(slots=True)
class SessionHeader:
    """Declared once (:mod:`mqcn_model.wire.declared`): the codec, the JSON view and the
    scapy layer's fields come from these lines."""

    ack_sequence: int = wire("AckSequenceNumber", "H")
    recoverable_ack_sequence: int = wire("RecoverableMsgAckSeqNumber", "H")
    recoverable_ack_flags: int = wire("RecoverableMsgAckFlags", "I")
    user_sequence: int = wire("UserMsgSequenceNumber", "H")
    recoverable_sequence: int = wire("RecoverableMsgSeqNumber", "H")
    window_size: int = wire("WindowSize", "H", default=DEFAULT_WINDOW_SIZE, requirement=R_WINDOW)
    reserved: int = wire("Reserved", "H")


SESSION_HEADER_SIZE = layout(SessionHeader).size  # 16
_WINDOW_AT = layout(SessionHeader).offset("WindowSize")  # 12


def decode_session(
    buf: bytes, offset: int, end: int, findings: Findings = None
) -> tuple[SessionHeader, int]:
    need(offset, SESSION_HEADER_SIZE, end, R_PACKET_SIZE, "a SessionHeader")
    header = unpack(SessionHeader, buf, offset)
    if header.window_size == 0:
        breach(findings, R_WINDOW, offset + _WINDOW_AT, "WindowSize is 0")
    return header, offset + SESSION_HEADER_SIZE


def encode_session(header: SessionHeader) -> bytes:
    return pack(header)
