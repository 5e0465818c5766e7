"""BaseHeader ([MS-MQMQ] 2.2.19.1): the 16 bytes every MS-MQQB session packet starts with.

Layout (little-endian)::

    VersionNumber(1) Reserved(1) Flags(2) Signature(4) PacketSize(4) TimeToReachQueue(4)

Flags, bit 0 the least significant (the spec's diagram numbers bits the same way; the
Windows sources declare the same C bit-fields): PR bits 0-2 (priority), IN bit 3 (internal
packet), SH bit 4 (a SessionHeader follows), DH bit 5 (a DebugHeader is present), TR bit 8
(tracing); the other bits are reserved.

>>> h = BaseHeader(flags=PRIORITY_DEFAULT, packet_size=32, time_to_reach_queue=300)
>>> wire = encode_base_header(h)
>>> wire.hex()
'100003004c494f52200000002c010000'
>>> decode_base_header(wire) == (h, 16)
True
"""

from __future__ import annotations

from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.errors import fail
from mqcn_model.wire.common import Findings, breach, need
from mqcn_model.wire.declared import layout, wire

R_VERSION = req("MQMQ-2.2.19.1-1")
R_SIGNATURE = req("MQMQ-2.2.19.1-2")
R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_MAX_SIZE = req("MQMQ-2.2.19.1-4")

BASE_HEADER_SIZE = 16
PACKET_VERSION = 0x10
SIGNATURE = 0x524F494C  # "LIOR" on the wire
SIGNATURE_BYTES = b"LIOR"
MAX_PACKET_SIZE = 0x00400000
INFINITE = 0xFFFFFFFF  # TimeToReachQueue outside UserMessage Packets; "never" inside them

PR_MASK = 0x0007
IN = 1 << 3
SH = 1 << 4
DH = 1 << 5
TR = 1 << 8
PRIORITY_DEFAULT = 3
FLAG_NAMES = {IN: "IN", SH: "SH", DH: "DH", TR: "TR"}

# the Flags bit groups, most significant first (X: bits 15-9)
FLAG_GROUPS = (
    ("X", 7), ("TR", 1), ("X8", 1), ("X9", 1), ("DH", 1), ("SH", 1), ("IN", 1), ("PR", 3),
)  # fmt: skip


@dataclass(slots=True)
class BaseHeader:
    """A decoded (or to-be-built) BaseHeader; ``flags`` is the raw 16-bit Flags field.
    Declared once (:mod:`mqcn_model.wire.declared`): the struct, the scapy layer's fields and
    the bridge between them come from these lines.

    ``packet_size`` is not part of equality: the packet encoders compute it, so a packet
    built with the default 0 equals its decoded self.
    """

    flags: int = wire("Flags", "H", default=PRIORITY_DEFAULT, at=2, groups=FLAG_GROUPS)
    packet_size: int = wire("PacketSize", "I", at=8, computed=True)
    time_to_reach_queue: int = wire("TimeToReachQueue", "I", default=INFINITE, at=12, kind="hex")
    version: int = wire("VersionNumber", "B", default=PACKET_VERSION, at=0, requirement=R_VERSION)
    reserved: int = wire("Reserved", "B", at=1)
    signature: int = wire(
        "Signature", "I", default=SIGNATURE, at=4, kind="hex", requirement=R_SIGNATURE
    )

    @property
    def priority(self) -> int:
        return self.flags & PR_MASK

    @property
    def internal(self) -> bool:
        return bool(self.flags & IN)

    @property
    def session(self) -> bool:
        return bool(self.flags & SH)

    @property
    def debug(self) -> bool:
        return bool(self.flags & DH)

    @property
    def trace(self) -> bool:
        return bool(self.flags & TR)


# the six fields in wire order; a framer that checked them (see decode_base_header) builds
# its BaseHeader from one unpack and hands it to the packet decoders
BASE_HEADER = _HEAD = layout(BaseHeader).struct


def decode_base_header(
    buf: bytes, offset: int = 0, findings: Findings = None
) -> tuple[BaseHeader, int]:
    """Read a BaseHeader at ``offset``; check VersionNumber, Signature and the PacketSize
    bounds (a multiple of 4, at least the header, at most 0x00400000).  A PacketSize that is
    not a multiple of 4 still frames the packet: with ``findings`` it is a finding there (real
    senders count a stray byte), without it a DecodeError."""
    need(offset, BASE_HEADER_SIZE, len(buf), R_PACKET_SIZE, "a BaseHeader")
    version, reserved, flags, signature, size, ttrq = _HEAD.unpack_from(buf, offset)
    if version != PACKET_VERSION:
        raise fail(R_VERSION, offset, f"VersionNumber is 0x{version:02x}, not 0x10")
    if signature != SIGNATURE:
        raise fail(R_SIGNATURE, offset + 4, f"Signature is 0x{signature:08x}, not 0x524f494c")
    if size > MAX_PACKET_SIZE:
        raise fail(R_MAX_SIZE, offset + 8, f"PacketSize is {size}, above 0x00400000")
    if size < BASE_HEADER_SIZE or size % 4:
        if size < BASE_HEADER_SIZE or findings is None:
            raise fail(R_PACKET_SIZE, offset + 8, _unaligned(size))
        breach(findings, R_PACKET_SIZE, offset + 8, _unaligned(size))  # framed all the same
    header = BaseHeader(flags, size, ttrq, version, reserved, signature)
    return header, offset + BASE_HEADER_SIZE


def _unaligned(size: int) -> str:
    return (
        f"PacketSize is {size}: a packet is at least its 16-byte BaseHeader and its headers are "
        "4-byte aligned"
    )


def encode_base_header(header: BaseHeader, packet_size: int | None = None) -> bytes:
    """The 16 wire bytes of ``header`` (``packet_size`` overrides ``header.packet_size``)."""
    size = header.packet_size if packet_size is None else packet_size
    return _HEAD.pack(
        header.version,
        header.reserved,
        header.flags,
        header.signature,
        size,
        header.time_to_reach_queue,
    )
