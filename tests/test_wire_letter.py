"""The letter of wire errata W-02, W-06 and W-07 is read too (issue 17: the letter passes).

A sender that lays a UserMessage out exactly as the words of [MS-MQMQ] say, where the suite's
reading (docs/errata.md) lays it out otherwise, is not refused: where the structure does not
add up under the reading, the decoder tries the letter's layout, and the packet says which
item it read so (``UserMessage.letter``, ``packet.letter`` of ``mqcn decode --packet``, the
capture reader's Message).  When both layouts fit, the reading is kept and nothing is said;
bytes that fit neither are refused with the reading's structural requirement.

Letter forms are built three ways: the struct codec (``declared_allocation``,
``encode_mqf(letter=True)``), the scapy layers, and raw bytes patched from a reading's packet.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable
from dataclasses import replace

import pytest
from capture_helpers import (
    balanced,
    envelope,
    frames,
    messages,
    pcap,
    read,
    segments,
    session_packets,
)
from test_capture import sequences
from test_decode_packet import V2_BODY, decoded, invoke, validate

from mqcn_model.errors import DecodeError
from mqcn_model.wire import decode_user_message, encode_user_message, envelope_to_packet
from mqcn_model.wire import layer_bridge as B
from mqcn_model.wire import packet_layers as L
from mqcn_model.wire.common import READING
from mqcn_model.wire.mqf import ADDRESS_FIXED_SIZE, MultiQueueFormat, encode_mqf
from mqcn_model.wire.queues import MQFElement, QueueFormat, encode_mqf_element
from mqcn_model.wire.soap import SoapHeader, encode_soap
from mqcn_model.wire.usermessage import UserMessage, _decode, finalize

PUBLIC_GUID = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")
ADMIN = QueueFormat.private_number(3, 9)
# a public element after a direct name that leaves its FormatType on a 4-byte boundary, and
# one more element after it (so the two layouts part: see the ambiguous case below)
MQF = MultiQueueFormat(
    destination=[
        MQFElement(3, direct="ab"),
        MQFElement(1, guid=PUBLIC_GUID),
        MQFElement(3, direct="x"),
    ]
)
FLAGS_AT = 16 + 44  # UserHeader.Flags in the packet
RQ_BYTE = FLAGS_AT + 2  # RQ is bits 16-18 of Flags


def notification(n: int = 2, **changes: object) -> UserMessage:
    """A reading-form notification (to the notification queue) with ``changes``."""
    return finalize(replace(envelope_to_packet(envelope(n, V2_BODY)), **changes))  # type: ignore[arg-type]


def with_admin(packet: UserMessage, rq: QueueFormat | None = None) -> UserMessage:
    return finalize(replace(packet, user=replace(packet.user, admin=ADMIN, response=rq)))


def resized(wire: bytes | bytearray) -> bytes:
    """``wire`` with BaseHeader.PacketSize set to its length (no SessionHeader)."""
    out = bytearray(wire)
    struct.pack_into("<I", out, 8, len(out))
    return bytes(out)


def set_rq(wire: bytes, rq: int) -> bytes:
    out = bytearray(wire)
    out[RQ_BYTE] = (out[RQ_BYTE] & ~0x07) | rq
    return bytes(out)


def drop(wire: bytes, at: int, size: int) -> bytes:
    return resized(wire[:at] + wire[at + size :])


# where the ResponseQueue field starts in these packets: BaseHeader, the UserHeader's fixed
# part, then DQ 3 and AQ 3 (a PrivateQueueFormatNameId of 4 bytes each)
RESPONSE_AT = 16 + 48 + 4 + 4


# --- the letter forms ---------------------------------------------------------------------------


def w02() -> tuple[bytes, UserMessage]:
    """W-02: AllocationBodySize states 12 bytes more than the body; only the body is there."""
    packet = notification()
    props = replace(packet.properties, declared_allocation=len(packet.properties.body) + 12)
    letter = finalize(replace(packet, properties=props))
    return encode_user_message(letter), letter


def w02_then_mqf() -> tuple[bytes, UserMessage]:
    """W-02 with a MultiQueueFormatHeader after the body: the reading would start it inside."""
    packet = notification(mqf=MQF)
    props = replace(packet.properties, declared_allocation=len(packet.properties.body) + 40)
    letter = finalize(replace(packet, properties=props))
    return encode_user_message(letter), letter


def w06_rq4() -> tuple[bytes, UserMessage]:
    """W-06: RQ 0x4 written with no ResponseQueue field."""
    reading = with_admin(notification(), QueueFormat.private_number(4, 5))
    wire = drop(encode_user_message(reading), RESPONSE_AT, 4)
    return wire, replace(reading, user=replace(reading.user, response=None))


def w06_rq1() -> tuple[bytes, UserMessage]:
    """W-06: RQ 0x1 written with a ResponseQueue field, a copy of the administration queue."""
    copy = with_admin(notification(), ADMIN)  # RQ 3 with the admin queue's bytes
    expected = with_admin(notification(), None)
    expected = replace(expected, user=replace(expected.user, flags=expected.user.flags | 1 << 16))
    return set_rq(encode_user_message(copy), 1), expected


def w07() -> tuple[bytes, UserMessage]:
    """W-07: the public FormatName's GUID right after its FormatType."""
    packet = notification(mqf=MQF)
    wire = encode_user_message(packet)
    reading_mqf = encode_mqf(MQF)
    body = wire[: len(wire) - len(reading_mqf)] + encode_mqf(MQF, letter=True)
    return resized(body), packet


def all_three() -> tuple[bytes, UserMessage]:
    """A sender by the letter of all three at once."""
    packet = with_admin(notification(mqf=MQF), QueueFormat.private_number(4, 5))
    props = replace(packet.properties, declared_allocation=len(packet.properties.body) + 8)
    packet = finalize(replace(packet, properties=props))
    wire = encode_user_message(packet)
    wire = resized(wire[: len(wire) - len(encode_mqf(MQF))] + encode_mqf(MQF, letter=True))
    wire = drop(wire, RESPONSE_AT, 4)
    return wire, replace(packet, user=replace(packet.user, response=None))


LETTER_FORMS: dict[str, tuple[Callable[[], tuple[bytes, UserMessage]], list[str]]] = {
    "W-02": (w02, ["W-02"]),
    "W-02 then MQF": (w02_then_mqf, ["W-02"]),
    "W-06 RQ 4": (w06_rq4, ["W-06"]),
    "W-06 RQ 1": (w06_rq1, ["W-06"]),
    "W-07": (w07, ["W-07"]),
    "all three": (all_three, ["W-06", "W-02", "W-07"]),
}


@pytest.mark.parametrize("name", LETTER_FORMS)
def test_a_letter_form_decodes_and_names_its_reading(name: str) -> None:
    build, items = LETTER_FORMS[name]
    wire, expected = build()
    with pytest.raises(DecodeError):  # the reading alone refuses these bytes
        _decode(wire, 0, READING)
    packet, end = decode_user_message(wire)
    assert end == len(wire)
    assert packet == expected
    assert [r.errata for r in packet.letter] == items  # in wire order
    assert all(r.reading == "letter" and 0 < r.offset < len(wire) for r in packet.letter)
    assert packet.findings == []


def test_the_letter_readings_say_what_was_read() -> None:
    wire, _ = w06_rq1()
    (rq1,) = decode_user_message(wire)[0].letter
    assert "RQ 0x1 carries a ResponseQueue field (4 bytes" in rq1.note
    assert "the same as the AdminQueue" in rq1.note and rq1.offset == 72
    (rq4,) = decode_user_message(w06_rq4()[0])[0].letter
    assert rq4.note.startswith("RQ 0x4 carries no ResponseQueue field") and rq4.offset == 72
    packet, _ = decode_user_message(w02()[0])
    assert packet.properties.allocation_body_size == len(packet.body) + 12
    assert packet.properties.body_slack == b""
    (room,) = packet.letter
    assert room.offset == packet.properties.offset + 36  # AllocationBodySize
    assert str(room).startswith("W-02 read to the letter at byte ")
    (guid,) = decode_user_message(w07()[0])[0].letter
    assert "unpadded" in guid.note and guid.offset % 4 == 2


def test_an_rq1_copy_that_names_another_queue_says_so() -> None:
    other = with_admin(notification(), QueueFormat.private_number(3, 77))
    wire = set_rq(encode_user_message(other), 1)
    (reading,) = decode_user_message(wire)[0].letter
    assert "NOT the same as the AdminQueue" in reading.note and "\\4d" in reading.note


@pytest.mark.parametrize(
    "build",
    [
        lambda: notification(),
        lambda: notification(mqf=MQF),
        lambda: with_admin(notification(), QueueFormat.private_number(4, 5)),
        lambda: with_admin(notification(), None),
        lambda: with_admin(notification(mqf=MQF), QueueFormat.private_number(4, 5)),
    ],
    ids=["plain", "mqf", "rq4", "rq1", "rq4+mqf"],
)
def test_the_readings_form_still_decodes_as_before(build: Callable[[], UserMessage]) -> None:
    packet = build()
    wire = encode_user_message(packet)
    decoded_packet, end = decode_user_message(wire)
    assert (decoded_packet, end) == (packet, len(wire))
    assert decoded_packet.letter == []


def test_the_reading_form_of_the_body_room_keeps_its_slack() -> None:
    packet = notification()
    props = replace(packet.properties, body_slack=b"\xee" * 12)
    packet = finalize(replace(packet, properties=props))
    decoded_packet = decode_user_message(encode_user_message(packet))[0]
    assert decoded_packet.properties.body_slack == b"\xee" * 12 and decoded_packet.letter == []


def test_when_both_layouts_fit_the_reading_is_kept_and_nothing_is_said() -> None:
    """A public element last in its list: its letter GUID (2 bytes early) and the reading's
    both end inside the same padded HeaderSize, so the bytes read either way; the reading
    wins (the GUID is read where the reading puts it)."""
    last = MultiQueueFormat(
        destination=[MQFElement(3, direct="ab"), MQFElement(1, guid=PUBLIC_GUID)]
    )
    packet = notification(mqf=last)
    wire = encode_user_message(packet)
    letter = resized(wire[: len(wire) - len(encode_mqf(last))] + encode_mqf(last, letter=True))
    assert letter != wire
    decoded_packet = decode_user_message(letter)[0]
    assert decoded_packet.letter == []
    assert decoded_packet.mqf is not None and decoded_packet.mqf.destination[1].guid != PUBLIC_GUID


@pytest.mark.parametrize(
    ("name", "requirement"),
    [
        ("W-02", "MQMQ-2.2.19.3-7"),  # the body room runs past the packet
        ("W-02 then MQF", "MQMQ-2.2.20.2-1"),  # the reading starts the MQF inside the slack
        ("W-06 RQ 4", "MQMQ-2.2.20.6-6"),  # the reading's 4 bytes shift the SecurityHeader
        ("W-06 RQ 1", "MQMQ-2.2.20.6-6"),
        ("W-07", "MQMQ-2.2.18.1.4-1"),  # the reading reads a name's text as a FormatType
        ("all three", "MQMQ-2.2.20.6-6"),
    ],
)
def test_a_truly_broken_packet_is_still_refused_with_its_structural_id(
    name: str, requirement: str
) -> None:
    """A letter form with 4 more bytes gone (PacketSize kept true): neither layout adds up,
    and the refusal is the reading's."""
    wire, _ = LETTER_FORMS[name][0]()
    cut = resized(wire[:-4])
    with pytest.raises(DecodeError) as reading:
        _decode(cut, 0, READING)
    with pytest.raises(DecodeError) as info:
        decode_user_message(cut)
    assert info.value.violation == reading.value.violation
    assert info.value.requirement == requirement


def test_a_soap_header_read_to_its_letter_is_named_too() -> None:
    """W-08 (read both ways before this work, silently): a packet whose SoapHeader has no
    padding between its parts says it was read to the letter."""
    soap = SoapHeader("ab", "c")
    packet = notification(soap=soap)
    wire = encode_user_message(packet)
    padded = encode_soap(soap)
    at = wire.index(padded)
    letter = bytes.fromhex("2003000003000000") + "ab".encode("utf-16-le") + bytes(2)
    letter += bytes.fromhex("8403000002000000") + "c".encode("utf-16-le") + bytes(2)
    letter += bytes(-len(letter) % 4)
    decoded_packet, _ = decode_user_message(resized(wire[:at] + letter + wire[at + len(padded) :]))
    assert decoded_packet == packet
    (reading,) = decoded_packet.letter
    assert (reading.errata, reading.offset) == ("W-08", at + 8 + 6)
    assert decode_user_message(wire)[0].letter == []


# --- the scapy layers build the letter forms ------------------------------------------------------


def test_the_layers_build_the_letter_forms_byte_for_byte() -> None:
    packet = notification()
    layer = B.to_layer(packet)
    props = layer.MessagePropertiesHeader
    props.AllocationBodySize = len(packet.properties.body) + 12
    assert bytes(layer) == w02()[0]

    rq4 = B.to_layer(with_admin(notification(), QueueFormat.private_number(4, 5)))
    rq4.UserHeader.ResponseQueue = b""
    assert bytes(rq4) == w06_rq4()[0]

    rq1 = B.to_layer(with_admin(notification(), None))
    rq1.UserHeader.RQ = 1
    rq1.UserHeader.ResponseQueue = bytes(L.PrivateQueueFormatNameId(PrivateQueueIdentifier=9))
    assert bytes(rq1) == w06_rq1()[0]

    mqf = B.to_layer(notification(mqf=MQF))
    raw = b""
    for element in MQF.destination:
        raw += encode_mqf_element(element, ADDRESS_FIXED_SIZE + len(raw), letter=True)
    destination = mqf.MultiQueueFormatHeader.Destination
    destination.FormatNameList = []
    destination.ElementCount = len(MQF.destination)
    destination.Rest = raw + bytes(-len(raw) % 4)
    destination.HeaderSize = ADDRESS_FIXED_SIZE + len(destination.Rest)
    assert bytes(mqf) == w07()[0]


# --- decode --packet and the capture reader -------------------------------------------------------


@pytest.mark.parametrize("name", ["W-02", "W-06 RQ 4", "W-07", "all three"])
def test_decode_packet_names_the_letter_reading_in_json_and_text(name: str) -> None:
    build, items = LETTER_FORMS[name]
    wire, _ = build()
    code, document = decoded(wire)
    validate(document)
    assert document["packet"] is not None and document["wire"]["violations"] == []
    assert [r["errata"] for r in document["packet"]["letter"]] == items
    assert {r["reading"] for r in document["packet"]["letter"]} == {"letter"}
    assert code == 0, document  # a letter-follower is conforming
    text = invoke("--hex", wire.hex()).stdout
    for item in items:
        assert f"Read to the letter - {item} read to the letter at byte" in text


def test_decode_packet_of_a_readings_form_has_no_letter() -> None:
    _, document = decoded(encode_user_message(notification(mqf=MQF)))
    assert document["packet"]["letter"] == []


@pytest.mark.parametrize("name", ["W-02 then MQF", "W-06 RQ 1", "all three"])
def test_the_capture_reader_carries_the_letter_reading(name: str) -> None:
    build, items = LETTER_FORMS[name]
    wire, _ = build()
    stream = b"".join(session_packets([envelope(1)])) + wire
    records = read(pcap(frames(segments(stream))))
    assert sequences(records) == [1, 2] and balanced(records)
    first, second = messages(records)
    assert first.letter == ()
    assert [r.errata for r in second.letter] == items
    assert second.findings == ()
