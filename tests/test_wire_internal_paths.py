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
    Ping,
    connection_parameters,
    decode_internal,
    decode_ping,
    encode_internal,
    encode_ping,
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
    # the ends of 2.2.2.1's ranges: clean, read alike by both
    "ConnectionParameters-highest": encode_internal(connection_parameters(120000, 120000, 1)),
    "ConnectionParameters-lowest": encode_internal(connection_parameters(500, 20000, 0xFFFF)),
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


def _changed(wire: bytes, at: int, value: bytes) -> bytes:
    return wire[:at] + value + wire[at + len(value) :]


@pytest.mark.parametrize(
    ("wire", "finding"),
    [
        (
            encode_internal(connection_parameters(400, 30000, 64)),
            ("MQQB-2.2.2.1-1", 20, "RecoverableAckTimeout is 400 ms"),
        ),
        (
            encode_internal(connection_parameters(120001, 30000, 64)),
            ("MQQB-2.2.2.1-1", 20, "RecoverableAckTimeout is 120001 ms"),
        ),
        (
            encode_internal(connection_parameters(900, 19999, 64)),
            ("MQQB-2.2.2.1-2", 24, "AckTimeout is 19999 ms"),
        ),
        (
            encode_internal(connection_parameters(900, 120001, 64)),
            ("MQQB-2.2.2.1-2", 24, "AckTimeout is 120001 ms"),
        ),
        (
            _changed(PACKETS["ConnectionParameters"], 28, b"\x01"),
            ("MQQB-2.2.2.1-3", 28, "Reserved is 0x0001"),
        ),
        (
            _changed(PACKETS["EstablishConnection"], 56, b"\x11"),
            ("MQQB-2.2.3.1-1", 56, "OperatingSystem.RE is 0x11, not 0x10"),
        ),
        (
            _changed(PACKETS["EstablishConnection"], 58, b"\x01"),
            ("MQQB-2.2.3.1-2", 58, "Reserved is 0x0001"),
        ),
    ],
)
def test_a_body_value_rule_is_a_finding_at_its_byte_in_its_words(wire: bytes, finding) -> None:
    packet, _ = decode_internal(wire)
    assert [(f.requirement, f.offset, f.message) for f in packet.findings] == [finding]


def test_a_body_read_on_the_general_path_keeps_every_field() -> None:
    wire = _changed(PACKETS["ConnectionParameters"], 28, b"\x01")  # a finding: general path
    body = decode_internal(wire)[0].body
    assert (body.recoverable_ack_timeout, body.ack_timeout, body.window_size, body.reserved) == (
        900,
        30000,
        64,
        1,
    )
    wire = _changed(PACKETS["EstablishConnection"], 58, b"\x01")
    body = decode_internal(wire)[0].body
    assert (body.timestamp, body.reserved, body.padding) == (77, 1, b"\x5a" * 512)


def test_a_ping_is_read_and_its_faults_are_named() -> None:
    ping = Ping(1, 7, uuid.UUID(int=3))
    assert decode_ping(encode_ping(ping)) == ping
    for wire, offset, message in (
        (bytes(10), 0, "a Ping Packet needs 24 bytes, 10 left"),
        (bytes(32), 2, "Signature is 0x0000, not 0x5548"),
    ):
        with pytest.raises(DecodeError) as info:
            decode_ping(wire)
        v = info.value.violation
        assert (v.requirement, v.offset, v.message) == ("MQQB-2.2.7-1", offset, message)
    assert decode_ping(bytes(4) + encode_ping(ping), 4) == ping


def test_an_establish_connection_is_written_only_with_its_512_padding_bytes() -> None:
    short = EstablishConnection(uuid.UUID(int=1), padding=bytes(511))
    with pytest.raises(
        ValueError, match=r"^EstablishConnectionHeader\.Padding is exactly 512 bytes$"
    ):
        encode_internal(establish_connection(short))


def test_a_session_ack_value_rule_is_a_finding_never_a_refusal() -> None:
    """WindowSize 0 (MQMQ-2.2.20.4-1) with a nonzero Reserved: read, and named, by both
    readers (the fast one declines it)."""
    wire = _changed(PACKETS["SessionAck"], 32, b"\x00\x00\x01\x00")
    packet, _ = decode_internal(wire)
    assert [(f.requirement, f.offset) for f in packet.findings] == [("MQMQ-2.2.20.4-1", 32)]
    assert _read(wire, 0, None) == _read(PREFIX + wire, len(PREFIX), None)
