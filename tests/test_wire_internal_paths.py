"""The internal packets' two readers agree: :func:`decode_internal` reads the three fixed
layouts of every session with one unpack (its fast path, at offset 0) and anything else on
its general path; for every packet -- well formed, or with one byte of its headers changed
-- both give the same packet and the same findings (the general path is taken by reading the
packet at offset 4)."""

from __future__ import annotations

import uuid

import pytest

from mqcn_model.errors import DecodeError
from mqcn_model.wire.base import decode_base_header
from mqcn_model.wire.internal import (
    EstablishConnection,
    connection_parameters,
    decode_internal,
    encode_internal,
    establish_connection,
    session_ack,
)
from mqcn_model.wire.session import SessionHeader

PACKETS = {
    "ConnectionParameters": encode_internal(connection_parameters(900, 30000, 64)),
    "EstablishConnection": encode_internal(
        establish_connection(EstablishConnection(uuid.UUID(int=1), uuid.UUID(int=2), 77))
    ),
    "SessionAck": encode_internal(session_ack(SessionHeader(3, 1, 0b1, 2, 1, 64))),
    "SessionAck-letter": encode_internal(
        session_ack(SessionHeader(3, 1, 0b1, 2, 1, 64)), letter_session_ack=True
    ),
}
PREFIX = b"\x00" * 4


def _read(wire: bytes, offset: int, response: bool | None) -> object:
    """The packet and findings (offsets from the packet's start) or the refusal."""
    try:
        packet, end = decode_internal(wire, offset, response=response)
    except DecodeError as exc:
        v = exc.violation
        return ("refused", v.requirement, (v.offset or 0) - offset, v.message)
    found = [(f.requirement, (f.offset or 0) - offset, f.message) for f in packet.findings]
    return (packet.base, packet.internal, packet.body, found, end - offset)


def variants(wire: bytes):
    """The packet, and each byte of its first 64 changed three ways."""
    yield wire
    for at in range(min(64, len(wire))):
        for value in (0x00, 0xFF, wire[at] ^ 0x01):
            if value != wire[at]:
                yield wire[:at] + bytes((value,)) + wire[at + 1 :]


@pytest.mark.parametrize("name", list(PACKETS))
@pytest.mark.parametrize("response", [None, False, True])
def test_the_fast_and_the_general_reader_agree(name: str, response: bool | None) -> None:
    for wire in variants(PACKETS[name]):
        fast = _read(wire, 0, response)
        general = _read(PREFIX + wire, len(PREFIX), response)
        assert fast == general, (name, wire.hex())


def test_a_response_padding_is_judged_only_in_a_response() -> None:
    wire = bytearray(PACKETS["EstablishConnection"])
    wire[100] = 0
    for response, found in ((True, ["MQQB-2.2.3.1-3"]), (False, []), (None, [])):
        packet, _ = decode_internal(bytes(wire), response=response)
        assert [f.requirement for f in packet.findings] == found


def test_any_buffer_type_reads_as_bytes() -> None:
    wire = PACKETS["SessionAck"]
    assert decode_internal(bytearray(wire)) == decode_internal(wire)
    assert decode_internal(memoryview(wire))[0].body == decode_internal(wire)[0].body


def test_a_base_header_read_before_is_not_read_again() -> None:
    wire = PREFIX + PACKETS["ConnectionParameters"]
    base, _ = decode_base_header(wire, 4)
    assert decode_internal(wire, 4, base=base) == decode_internal(wire, 4)
