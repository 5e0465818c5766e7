"""Framing an MS-MQQB byte stream: where does the next packet end? (pure, no I/O)

A TCP stream to port 1801 is a sequence of packets, each starting with a BaseHeader.  The
bytes one packet occupies on the stream are its PacketSize, plus 16 when it is a
UserMessage Packet (IN clear) with BaseHeader.Flags.SH set: that SessionHeader follows the
packet outside PacketSize.  A SessionAck (IN set) counts its SessionHeader in PacketSize
(errata W-01's reading, PacketSize 36) -- or, written to the letter of [MS-MQMQ] 2.2.19.1
(PacketSize never counts a SessionHeader), has PacketSize 20 and the 16 bytes follow: both
are framed.

:func:`next_frame` looks at the bytes from ``offset`` and says one of three things:

* ``PACKET``: a BaseHeader is there and the whole packet is in the buffer; ``size`` bytes;
* ``NEED_MORE``: a plausible start, but the buffer ends first; at least ``size`` bytes are
  needed from ``offset``;
* ``NOT_BASE_HEADER``: these bytes cannot start a packet; ``violation`` says why.
  :func:`find_base_header` finds the next place that could (to resynchronise).

It never reads the body and allocates nothing, so a TCP reassembler can call it on every
segment; memory is bounded by the largest packet (PacketSize <= 0x00400000).

>>> from mqcn_model.wire.internal import connection_parameters, encode_internal
>>> wire = encode_internal(connection_parameters(500, 20000, 64))
>>> next_frame(wire).status, next_frame(wire).size
('packet', 32)
>>> next_frame(wire[:20]).status, next_frame(wire[:20]).size
('need-more', 32)
>>> next_frame(b"GET / HTTP/1.1\\r\\n\\r\\n").status
'not-base-header'
>>> find_base_header(b"junk" + wire), find_base_header(b"junk")
(4, -1)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqcn_model.errors import DecodeError, Violation
from mqcn_model.wire.base import (
    BASE_HEADER_SIZE,
    IN,
    PACKET_VERSION,
    SH,
    SIGNATURE_BYTES,
    decode_base_header,
)
from mqcn_model.wire.session import SESSION_HEADER_SIZE

PACKET = "packet"
NEED_MORE = "need-more"
NOT_BASE_HEADER = "not-base-header"


@dataclass(frozen=True, slots=True)
class Frame:
    """What :func:`next_frame` found: ``status``, ``size`` (bytes of the packet on the stream,
    or bytes needed), ``packet_size`` (BaseHeader.PacketSize) and, when no BaseHeader is
    there, the ``violation`` that says why."""

    status: str
    size: int = 0
    packet_size: int = 0
    violation: Violation | None = None


# BaseHeader + InternalHeader: the PacketSize of a SessionAck whose sender followed the letter
# of 2.2.19.1 (no SessionHeader counted; W-01).  No other internal packet is that short.
LETTER_SESSION_ACK_SIZE = BASE_HEADER_SIZE + 4


def stream_size(flags: int, packet_size: int) -> int:
    """Bytes a packet with these BaseHeader Flags and PacketSize occupies on the stream."""
    if not flags & SH:
        return packet_size
    if not flags & IN or packet_size == LETTER_SESSION_ACK_SIZE:
        return packet_size + SESSION_HEADER_SIZE  # a UserMessage; a SessionAck to the letter
    return packet_size


def next_frame(buf: bytes, offset: int = 0) -> Frame:
    """Frame the packet that starts at ``offset`` of ``buf`` (see the module docstring)."""
    available = len(buf) - offset
    if available < BASE_HEADER_SIZE:
        # judge what is there already: a wrong VersionNumber or Signature needs no more bytes
        if available >= 1 and buf[offset] != PACKET_VERSION:
            return _not_header(buf, offset)
        if available >= 8 and bytes(buf[offset + 4 : offset + 8]) != SIGNATURE_BYTES:
            return _not_header(buf, offset)
        return Frame(NEED_MORE, BASE_HEADER_SIZE)
    try:
        # a PacketSize off the 4-byte grid still frames the packet (its decoder says so)
        header, _ = decode_base_header(buf, offset, [])
    except DecodeError as exc:
        return Frame(NOT_BASE_HEADER, violation=exc.violation)
    size = stream_size(header.flags, header.packet_size)
    if available < size:
        return Frame(NEED_MORE, size, header.packet_size)
    return Frame(PACKET, size, header.packet_size)


def _not_header(buf: bytes, offset: int) -> Frame:
    padded = bytes(buf[offset:]) + bytes(BASE_HEADER_SIZE)
    try:
        decode_base_header(padded[:BASE_HEADER_SIZE])
    except DecodeError as exc:
        return Frame(NOT_BASE_HEADER, violation=exc.violation)
    raise AssertionError("unreachable: the caller saw a wrong VersionNumber or Signature")


def find_base_header(buf: bytes, start: int = 0) -> int:
    """The first offset >= ``start`` where VersionNumber 0x10 and the Signature stand, or -1.

    Only those 8 bytes are matched; pass the result to :func:`next_frame` to judge the rest
    (and search again from one past it if that says ``not-base-header``).
    """
    position = start + 4
    while True:
        hit = buf.find(SIGNATURE_BYTES, position)
        if hit < 0:
            return -1
        if buf[hit - 4] == PACKET_VERSION:
            return hit - 4
        position = hit + 1
