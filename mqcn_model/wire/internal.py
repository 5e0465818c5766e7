"""The MS-MQQB internal packets ([MS-MQQB] 2.2.1-2.2.3, 2.2.6) and the Ping Packet (2.2.7).

An internal packet has BaseHeader.Flags.IN set and an InternalHeader whose PT says what
follows::

    InternalHeader: Reserved(2) Flags(2)   PT bits 0-3, CS bit 4 (connection refused)
    PT 1 SessionAck:            SessionHeader (16)             PacketSize 36
    PT 2 EstablishConnection:   EstablishConnectionHeader (552) PacketSize 572
    PT 3 ConnectionParameters:  ConnectionParametersHeader (12) PacketSize 32

A SessionAck's PacketSize counts its SessionHeader (errata W-01).  The Ping Packet travels on
UDP with no BaseHeader: Flags(2) Signature(2)=0x5548 Cookie(4) QMGuid(16).

>>> p = connection_parameters(500, 20000, 64)
>>> wire = encode_internal(p)
>>> len(wire), decode_internal(wire)[0] == p
(32, True)
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass, field

from mqcn_model.catalog import req
from mqcn_model.errors import Violation, fail
from mqcn_model.wire import base as B
from mqcn_model.wire.base import BaseHeader, decode_base_header, encode_base_header
from mqcn_model.wire.common import NIL, Findings, breach, guid_at, need
from mqcn_model.wire.declared import layout, pack, part, wire
from mqcn_model.wire.session import (
    SESSION_HEADER_SIZE,
    SessionHeader,
    decode_session,
    encode_session,
)

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_DEBUG_ONLY_USER = req("MQMQ-2.2.19.1-6")
R_IN = req("MQMQ-2.2.19.1-8")
R_TTRQ = req("MQMQ-2.2.19.1-9")
R_PT = req("MQQB-2.2.1-1")
R_CS = req("MQQB-2.2.1-2")
R_RESERVED = req("MQQB-2.2.1-3")
R_RECOVERABLE_TIMEOUT = req("MQQB-2.2.2.1-1")
R_ACK_TIMEOUT = req("MQQB-2.2.2.1-2")
R_CP_RESERVED = req("MQQB-2.2.2.1-3")
R_RE = req("MQQB-2.2.3.1-1")
R_EC_RESERVED = req("MQQB-2.2.3.1-2")
R_PADDING = req("MQQB-2.2.3.1-3")
R_SESSION_ACK_FLAGS = req("MQQB-2.2.6-1")
R_PING_SIGNATURE = req("MQQB-2.2.7-1")

INTERNAL_HEADER_SIZE = 4
PT_MASK = 0x000F
CS = 1 << 4
PT_SESSION_ACK, PT_ESTABLISH_CONNECTION, PT_CONNECTION_PARAMETERS = 1, 2, 3
KINDS = {
    PT_SESSION_ACK: "SessionAck",
    PT_ESTABLISH_CONNECTION: "EstablishConnection",
    PT_CONNECTION_PARAMETERS: "ConnectionParameters",
}
ESTABLISH_CONNECTION_SIZE = 552
CONNECTION_PARAMETERS_SIZE = 12
BODY_SIZES = {PT_SESSION_ACK: 16, PT_ESTABLISH_CONNECTION: 552, PT_CONNECTION_PARAMETERS: 12}
RECOVERABLE_ACK_TIMEOUT_RANGE = (0x1F4, 0x1D4C0)
ACK_TIMEOUT_RANGE = (0x4E20, 0x1D4C0)
OS_RE = 0x10
OS_SE, OS_OS, OS_QS = 1 << 8, 1 << 9, 1 << 10
RESPONSE_PADDING = b"\x5a" * 512

PING_SIGNATURE = 0x5548
PING_RC, PING_RF = 1 << 0, 1 << 1

# Each record below is its header's one declaration (mqcn_model.wire.declared): the structs
# here, the scapy layers and the bridge between them are derived from it.


@dataclass(slots=True)
class InternalHeader:
    flags: int = wire(
        "Flags",
        "H",
        at=2,
        default=PT_CONNECTION_PARAMETERS,
        groups=(("X", 11), ("CS", 1), ("PT", 4, KINDS)),
        requirement=R_PT,
    )
    reserved: int = wire("Reserved", "H", at=0, requirement=R_RESERVED)

    @property
    def packet_type(self) -> int:
        return self.flags & PT_MASK

    @property
    def refused(self) -> bool:
        return bool(self.flags & CS)


@dataclass(slots=True)
class ConnectionParameters:
    recoverable_ack_timeout: int = wire(
        "RecoverableAckTimeout", "I", default=0x1F4, at=0, requirement=R_RECOVERABLE_TIMEOUT
    )
    ack_timeout: int = wire("AckTimeout", "I", default=0x4E20, at=4, requirement=R_ACK_TIMEOUT)
    window_size: int = wire("WindowSize", "H", default=0x40, at=10)
    reserved: int = wire("Reserved", "H", at=8, requirement=R_CP_RESERVED)


@dataclass(slots=True)
class EstablishConnection:
    client_guid: uuid.UUID = wire("ClientGuid", "16s", kind="guid", default=NIL)
    server_guid: uuid.UUID = wire("ServerGuid", "16s", kind="guid", default=NIL)
    timestamp: int = wire("TimeStamp", "I")
    operating_system: int = wire(
        "OperatingSystem",
        "H",
        default=OS_RE | OS_SE,
        groups=(("X", 5), ("QS", 1), ("OS", 1), ("SE", 1), ("RE", 8)),
        requirement=R_RE,
    )
    reserved: int = wire("Reserved", "H", requirement=R_EC_RESERVED)
    padding: bytes = wire("Padding", "512s", default=RESPONSE_PADDING, kind="hex")


InternalBody = SessionHeader | EstablishConnection | ConnectionParameters


@dataclass(slots=True)
class InternalPacket:
    """A decoded (or to-be-built) internal packet: BaseHeader, InternalHeader, body (each
    part named by its field of the scapy layer)."""

    base: BaseHeader = part("BaseHeader")
    internal: InternalHeader = part("InternalHeader")
    body: InternalBody = part("Body")
    # the value rules of the wire catalog the packet breaks (decoded packets)
    findings: list[Violation] = field(default_factory=list, compare=False)

    @property
    def kind(self) -> str:
        kind = self.internal.flags & PT_MASK  # InternalHeader.packet_type
        name = KINDS.get(kind)
        return name if name is not None else f"PT {kind}"


def session_ack(session: SessionHeader) -> InternalPacket:
    """A SessionAck Packet carrying ``session`` (IN and SH set, PT 1)."""
    return InternalPacket(BaseHeader(flags=B.IN | B.SH), InternalHeader(PT_SESSION_ACK), session)


def establish_connection(body: EstablishConnection, *, refused: bool = False) -> InternalPacket:
    flags = PT_ESTABLISH_CONNECTION | (CS if refused else 0)
    return InternalPacket(BaseHeader(flags=B.IN), InternalHeader(flags), body)


def connection_parameters(
    recoverable_ack_timeout: int, ack_timeout: int, window_size: int
) -> InternalPacket:
    body = ConnectionParameters(recoverable_ack_timeout, ack_timeout, window_size)
    return InternalPacket(BaseHeader(flags=B.IN), InternalHeader(PT_CONNECTION_PARAMETERS), body)


def decode_internal(
    buf: bytes,
    offset: int = 0,
    *,
    response: bool | None = None,
    base: BaseHeader | None = None,
) -> tuple[InternalPacket, int]:
    """Read and judge the internal packet at ``offset``; return it and the offset after it.

    ``response``: True when the packet is known to be the acceptor's EstablishConnection
    response (then its Padding must be 0x5A bytes), False or None when not known to be.
    A structural requirement broken raises DecodeError; the value rules broken are in
    ``packet.findings``.  ``base``: the packet's BaseHeader when the caller has already
    decoded it with :func:`~mqcn_model.wire.base.decode_base_header`'s checks (a framer
    does), so it is not read twice.

    The three fixed layouts without a finding -- the packets of every session -- are read
    with one unpack each (:func:`_decode_clean`); anything else takes the general path
    below, which gives the same packet for those.
    """
    if type(buf) is not bytes:
        buf = bytes(buf)
    start = offset
    if base is None:
        base, offset = decode_base_header(buf, offset)
    else:
        offset += B.BASE_HEADER_SIZE
    if not start:
        clean = _decode_clean(buf, base, response)
        if clean is not None:
            return clean, base.packet_size
    findings: list[Violation] = []
    if not base.internal:
        raise fail(R_IN, start + 2, "BaseHeader.Flags.IN is clear in an internal packet")
    end = start + base.packet_size
    if end > len(buf):
        raise fail(
            R_PACKET_SIZE,
            start + 8,
            f"PacketSize is {base.packet_size} but {len(buf) - start} bytes are given",
        )
    if base.debug:
        breach(
            findings,
            R_DEBUG_ONLY_USER,
            start + 2,
            "BaseHeader.Flags.DH is set in an internal packet",
        )
    if base.time_to_reach_queue != B.INFINITE:
        breach(
            findings,
            R_TTRQ,
            start + 12,
            f"TimeToReachQueue is 0x{base.time_to_reach_queue:x} in an internal packet",
        )
    need(offset, INTERNAL_HEADER_SIZE, end, R_PACKET_SIZE, "an InternalHeader")
    reserved, flags = _INTERNAL.unpack_from(buf, offset)
    header = InternalHeader(flags, reserved)
    if reserved:
        breach(findings, R_RESERVED, offset, f"InternalHeader.Reserved is 0x{reserved:04x}")
    kind = header.packet_type
    if kind not in KINDS:
        raise fail(R_PT, offset + 2, f"InternalHeader.Flags.PT is {kind}, not 1, 2 or 3")
    if header.refused and kind == PT_SESSION_ACK:
        breach(findings, R_CS, offset + 2, "Flags.CS is set in a SessionAck Packet")
    offset += INTERNAL_HEADER_SIZE
    if kind == PT_SESSION_ACK and end == offset and base.session:
        # the letter of [MS-MQMQ] 2.2.19.1 (errata W-01): PacketSize leaves the SessionHeader
        # out, and it follows the packet as it does a UserMessage's
        need(end, SESSION_HEADER_SIZE, len(buf), R_PACKET_SIZE, "the SessionAck's SessionHeader")
        end += SESSION_HEADER_SIZE
    if end - offset != BODY_SIZES[kind]:
        raise fail(
            R_PACKET_SIZE,
            start + 8,
            f"a {KINDS[kind]} Packet is {16 + 4 + BODY_SIZES[kind]} bytes, "
            f"PacketSize says {base.packet_size}",
        )
    body: InternalBody
    if kind == PT_SESSION_ACK:
        if not base.session:
            breach(
                findings,
                R_SESSION_ACK_FLAGS,
                start + 2,
                "a SessionAck has BaseHeader.Flags.SH clear",
            )
        body, offset = decode_session(buf, offset, end, findings)
    elif kind == PT_CONNECTION_PARAMETERS:
        body = _decode_parameters(buf, offset, findings)
    else:
        body = _decode_establish(buf, offset, response, findings)
    return InternalPacket(base, header, body, findings), end


_INTERNAL = layout(InternalHeader).struct
_PARAMETERS = layout(ConnectionParameters).struct
_ESTABLISH = layout(EstablishConnection).struct


def _joined(*records: type) -> struct.Struct:
    return struct.Struct("<" + "".join(layout(r).struct.format.lstrip("<") for r in records))


# the InternalHeader and the body of each fixed layout, read at once (after the BaseHeader)
_CLEAN_PARAMETERS = _joined(InternalHeader, ConnectionParameters)
_CLEAN_ESTABLISH = _joined(InternalHeader, EstablishConnection)
_CLEAN_SESSION_ACK = _joined(InternalHeader, SessionHeader)
_PARAMETERS_SIZE = B.BASE_HEADER_SIZE + INTERNAL_HEADER_SIZE + CONNECTION_PARAMETERS_SIZE
_ESTABLISH_SIZE = B.BASE_HEADER_SIZE + INTERNAL_HEADER_SIZE + ESTABLISH_CONNECTION_SIZE
_SESSION_ACK_SIZE = B.BASE_HEADER_SIZE + INTERNAL_HEADER_SIZE + SESSION_HEADER_SIZE


def _decode_clean(buf: bytes, base: BaseHeader, response: bool | None) -> InternalPacket | None:
    """The packet at the start of ``buf`` when it is a ConnectionParameters,
    EstablishConnection or SessionAck (counting its SessionHeader) Packet that breaks no
    rule; None for anything else (the general path reads it, and says what it breaks).

    Each test below is one the general path makes, so what this returns is what it would.
    """
    flags = base.flags
    if flags & (B.IN | B.DH) != B.IN or base.time_to_reach_queue != B.INFINITE:
        return None
    size = base.packet_size
    if size > len(buf):
        return None
    if size == _PARAMETERS_SIZE:
        reserved, kind, recoverable, ack, zero, window = _CLEAN_PARAMETERS.unpack_from(buf, 16)
        if (
            reserved
            or kind & PT_MASK != PT_CONNECTION_PARAMETERS
            or not RECOVERABLE_ACK_TIMEOUT_RANGE[0]
            <= recoverable
            <= RECOVERABLE_ACK_TIMEOUT_RANGE[1]
            or not ACK_TIMEOUT_RANGE[0] <= ack <= ACK_TIMEOUT_RANGE[1]
            or zero
        ):
            return None
        body: InternalBody = ConnectionParameters(recoverable, ack, window, zero)
    elif size == _ESTABLISH_SIZE:
        reserved, kind, _, _, stamp, system, zero, padding = _CLEAN_ESTABLISH.unpack_from(buf, 16)
        if (
            reserved
            or kind & PT_MASK != PT_ESTABLISH_CONNECTION
            or system & 0xFF != OS_RE
            or zero
            or (response and padding != RESPONSE_PADDING)
        ):
            return None
        body = EstablishConnection(guid_at(buf, 20), guid_at(buf, 36), stamp, system, 0, padding)
    elif size == _SESSION_ACK_SIZE:
        reserved, kind, *fields = _CLEAN_SESSION_ACK.unpack_from(buf, 16)
        if reserved or kind & (PT_MASK | CS) != PT_SESSION_ACK or not flags & B.SH or not fields[5]:
            return None
        body = SessionHeader(*fields)
    else:
        return None
    return InternalPacket(base, InternalHeader(kind, 0), body, [])


def _decode_parameters(buf: bytes, offset: int, findings: Findings) -> ConnectionParameters:
    recoverable, ack, reserved, window = _PARAMETERS.unpack_from(buf, offset)
    low, high = RECOVERABLE_ACK_TIMEOUT_RANGE
    if not low <= recoverable <= high:
        breach(
            findings, R_RECOVERABLE_TIMEOUT, offset, f"RecoverableAckTimeout is {recoverable} ms"
        )
    low, high = ACK_TIMEOUT_RANGE
    if not low <= ack <= high:
        breach(findings, R_ACK_TIMEOUT, offset + 4, f"AckTimeout is {ack} ms")
    if reserved:
        breach(findings, R_CP_RESERVED, offset + 8, f"Reserved is 0x{reserved:04x}")
    return ConnectionParameters(recoverable, ack, window, reserved)


def _decode_establish(
    buf: bytes, offset: int, response: bool | None, findings: Findings
) -> EstablishConnection:
    _, _, stamp, system, reserved, padding = _ESTABLISH.unpack_from(buf, offset)
    if system & 0xFF != OS_RE:
        breach(
            findings, R_RE, offset + 36, f"OperatingSystem.RE is 0x{system & 0xFF:02x}, not 0x10"
        )
    if reserved:
        breach(findings, R_EC_RESERVED, offset + 38, f"Reserved is 0x{reserved:04x}")
    if response and padding != RESPONSE_PADDING:
        bad = next(i for i, b in enumerate(padding) if b != 0x5A)
        breach(findings, R_PADDING, offset + 40 + bad, "a response's Padding byte is not 0x5A")
    return EstablishConnection(
        guid_at(buf, offset), guid_at(buf, offset + 16), stamp, system, reserved, bytes(padding)
    )


def encode_internal(packet: InternalPacket, *, letter_session_ack: bool = False) -> bytes:
    """The wire bytes of ``packet`` (PacketSize computed; the SessionAck's counts its body,
    as Windows writes it, or, ``letter_session_ack``, does not: [MS-MQMQ] 2.2.19.1's letter,
    errata W-01)."""
    body = packet.body
    if isinstance(body, SessionHeader):
        raw = encode_session(body)
    elif isinstance(body, ConnectionParameters):
        raw = pack(body)
    else:
        if len(body.padding) != 512:
            raise ValueError("EstablishConnectionHeader.Padding is exactly 512 bytes")
        raw = pack(body)
    head = pack(packet.internal)
    size = B.BASE_HEADER_SIZE + len(head) + len(raw)
    if letter_session_ack and isinstance(body, SessionHeader):
        size -= len(raw)  # the letter: PacketSize never counts the SessionHeader
    return encode_base_header(packet.base, size) + head + raw


# --- Ping (2.2.7) -------------------------------------------------------------------------------


@dataclass(slots=True)
class Ping:
    """A Ping Request or Response: Flags (RC bit 0, RF bit 1), Cookie, the sender's QMGuid."""

    flags: int = wire("Flags", "H", at=0, groups=(("X", 14), ("RF", 1), ("RC", 1)))
    cookie: int = wire("Cookie", "I", at=4)
    qm_guid: uuid.UUID = wire("QMGuid", "16s", kind="guid", default=NIL, at=8)
    signature: int = wire(
        "Signature", "H", default=PING_SIGNATURE, at=2, kind="hex", requirement=R_PING_SIGNATURE
    )


_PING = layout(Ping).struct
PING_SIZE = _PING.size


def decode_ping(buf: bytes, offset: int = 0) -> Ping:
    """Read a Ping Packet (a UDP datagram's payload)."""
    need(offset, PING_SIZE, len(buf), R_PING_SIGNATURE, "a Ping Packet")
    flags, signature, cookie, _ = _PING.unpack_from(buf, offset)
    if signature != PING_SIGNATURE:
        raise fail(R_PING_SIGNATURE, offset + 2, f"Signature is 0x{signature:04x}, not 0x5548")
    return Ping(flags, cookie, guid_at(buf, offset + 8), signature)


def encode_ping(ping: Ping) -> bytes:
    return pack(ping)
