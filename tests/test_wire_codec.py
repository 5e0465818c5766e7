"""The wire struct codec: hand-computed byte vectors per header, round trips, framing, and one
negative test per wire requirement ID (each breaks exactly that requirement).

The byte vectors are written from the layouts of [MS-MQMQ] 2.2.18-2.2.20 and [MS-MQQB] 2 by
hand (field by field, little-endian), not produced by the codec under test.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_strategies import internal_packets, pings, user_messages

from mqcn_model.catalog import PACKET_ROLE, STRUCTURAL, VALUE_RULE, WIRE_CATALOG
from mqcn_model.errors import DecodeError
from mqcn_model.wire import (
    NEED_MORE,
    NOT_BASE_HEADER,
    PACKET,
    decode_internal,
    decode_packet,
    decode_ping,
    decode_user_message,
    encode_internal,
    encode_packet,
    encode_ping,
    encode_user_message,
    finalize,
    find_base_header,
    next_frame,
    packet_to_envelope,
    packet_to_json,
)
from mqcn_model.wire import layer_bridge as B
from mqcn_model.wire import packet_layers as L
from mqcn_model.wire.acks import FINAL_ACK, ORDER_ACK, FinalAckBody, OrderAckBody
from mqcn_model.wire.base import BaseHeader, decode_base_header, encode_base_header
from mqcn_model.wire.debug import DebugHeader, decode_debug, encode_debug
from mqcn_model.wire.declared import pack
from mqcn_model.wire.extensions import (
    DL,
    EA,
    SQ,
    TM,
    DeadLetterHeader,
    ExtendedAddressHeader,
    ExtensionHeader,
    SubqueueHeader,
    compound_message,
    extensions,
    srmp_envelope,
)
from mqcn_model.wire.internal import (
    EstablishConnection,
    Ping,
    connection_parameters,
    establish_connection,
    session_ack,
)
from mqcn_model.wire.mqf import MultiQueueFormat, decode_mqf, encode_mqf
from mqcn_model.wire.properties import MessageProperties, decode_properties, encode_properties
from mqcn_model.wire.queues import MQFElement, QueueFormat, decode_queue, encode_queue
from mqcn_model.wire.security import (
    DE,
    ST_QM_GUID,
    SecurityHeader,
    decode_security,
    encode_security,
)
from mqcn_model.wire.session import SessionHeader, decode_session, encode_session
from mqcn_model.wire.soap import SoapHeader, decode_soap, encode_soap
from mqcn_model.wire.transaction import FM, LM, TransactionHeader, decode_transaction
from mqcn_model.wire.user import AH, UserHeader, compose_user_flags, decode_user_header
from mqcn_model.wire.usermessage import UserMessage

G1 = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")
G1_LE = "33221100554477668899aabbccddeeff"  # Data1..Data3 little-endian, Data4 as is
QM = uuid.UUID("0f2c1e3a-1111-4222-8333-444455556666")
DST = uuid.UUID("9a8b7c6d-1234-4567-89ab-cdef01234567")
NIL = uuid.UUID(int=0)


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


# --- hand-computed vectors --------------------------------------------------------------------


def test_base_header_bytes() -> None:
    # VersionNumber 0x10, Reserved 0, Flags PR=3|SH (0x0013), "LIOR", PacketSize 0x40, TTRQ 300
    wire = h("10 00 1300 4c494f52 40000000 2c010000")
    header, end = decode_base_header(wire)
    assert end == 16
    assert (header.priority, header.session, header.internal, header.debug) == (
        3,
        True,
        False,
        False,
    )
    assert header.packet_size == 64 and header.time_to_reach_queue == 300
    assert encode_base_header(header) == wire


def test_user_header_bytes_with_a_private_destination() -> None:
    # source G1, QueueManagerAddress nil, TTBR infinite, SentTime 0x5F5E1000, MessageID 7,
    # Flags MP (bit 21) | DQ 3 (bits 10-12) = 0x00200C00, DestinationQueue: queue number 3
    wire = h(G1_LE + "00" * 16 + "ffffffff 00105e5f 07000000 000c2000 03000000")
    header, end = decode_user_header(wire, 0, len(wire))
    assert end == 52
    assert header.source_qm == G1 and header.destination_qm == NIL
    assert (header.sent_time, header.message_id, header.dq) == (0x5F5E1000, 7, 3)
    assert header.destination == QueueFormat(3, private_id=3)
    flags = compose_user_flags(dq=3)
    assert flags == 0x00200C00
    expected = UserHeader(G1, NIL, 0xFFFFFFFF, 0x5F5E1000, 7, flags, QueueFormat(3, private_id=3))
    assert header == expected


def test_direct_queue_format_name_bytes_and_padding() -> None:
    # Count 6 = "ab" + terminator in UTF-16LE; 2 + 6 = 8 bytes: already 4-aligned
    assert encode_queue(QueueFormat.direct_name("ab")) == h("0600 6100 6200 0000")
    # "abc": Count 8, 2 + 8 = 10 bytes, padded to 12
    wire = encode_queue(QueueFormat.direct_name("abc"))
    assert wire == h("0800 6100 6200 6300 0000 0000")
    assert decode_queue(wire, 0, len(wire), 7, 0) == (QueueFormat(7, direct="abc"), 12)


def test_private_queue_format_name_is_guid_then_number() -> None:
    assert encode_queue(QueueFormat.private_on(G1, 5)) == h(G1_LE + "05000000")
    assert encode_queue(QueueFormat.public(G1)) == h(G1_LE)


def test_message_properties_bytes() -> None:
    # Flags 0, LabelLength 2 ("A" + terminator), class 0, CorrelationID 20 zeros, BodyType 0,
    # ApplicationTag 0, MessageSize 3, AllocationBodySize 3, PrivacyLevel 0, HashAlgorithm
    # 0x800E, EncryptionAlgorithm 0, ExtensionSize 0, Label "A\0", body 02 01 00, 1 pad byte
    wire = h(
        "00 02 0000" + "00" * 20 + "00000000 00000000 03000000 03000000 00000000 0e800000"
        "00000000 00000000 4100 0000 020100 00"
    )
    props = MessageProperties(label="A", hash_algorithm=0x800E, body=b"\x02\x01\x00")
    assert encode_properties(props) == wire
    decoded, end = decode_properties(wire, 0, len(wire))
    assert decoded == props and end == len(wire) == 64


def test_allocation_body_size_gives_the_room_the_body_takes() -> None:
    """Errata W-02: the next header starts after AllocationBodySize bytes, not MessageSize."""
    props = MessageProperties(body=b"\x01", body_slack=b"\xee\xee\xee\xee")
    wire = encode_properties(props)
    assert wire[32:40] == h("01000000 05000000") and len(wire) == 64  # 56 + 5 -> 64
    assert decode_properties(wire, 0, len(wire))[0] == props


def test_security_header_bytes() -> None:
    # Flags ST=2 | DE (bit 6) = 0x0042; SenderIdSize 16; EncryptionKeySize 0; SignatureSize 3;
    # SenderCertSize 0; ProviderInfoSize 0; SecurityID G1; Signature 3 bytes + 1 pad
    wire = h("4200 1000 0000 0300 00000000 00000000" + G1_LE + "aabbcc00")
    header = SecurityHeader(ST_QM_GUID | DE, sender_id=G1.bytes_le, signature=h("aabbcc"))
    assert encode_security(header) == wire
    assert decode_security(wire, 0, len(wire)) == (header, len(wire))


def test_transaction_header_bytes() -> None:
    # Flags FM|LM|ID 5 (bits 4-23) = 0x5C; TxSequenceID ordinal 1, timestamp 2; number 3; prev 2
    wire = h("5c000000 01000000 02000000 03000000 02000000")
    header = TransactionHeader(FM | LM | (5 << 4), 1, 2, 3, 2)
    assert decode_transaction(wire, 0, len(wire)) == (header, 20)
    assert header.transaction_id == 5


def test_session_header_bytes() -> None:
    wire = h("0300 0100 05000000 0400 0200 4000 0000")
    header = SessionHeader(3, 1, 5, 4, 2, 0x40, 0)
    assert encode_session(header) == wire
    assert decode_session(wire, 0, 16) == (header, 16)


def test_debug_header_bytes() -> None:
    wire = h("0100 0000" + G1_LE)
    header = DebugHeader(1, 0, G1)
    assert encode_debug(header) == wire and decode_debug(wire, 0, 20) == (header, 20)
    assert encode_debug(DebugHeader()) == h("0000 0000")


def test_soap_header_bytes() -> None:
    # HeaderSectionID 0x0320, HeaderDataLength 2 ("h" + terminator), padded to 4;
    # BodySectionID 0x0384, BodyDataLength 1 (terminator only), padded to 4
    wire = h("2003 0000 02000000 6800 0000" + "8403 0000 01000000 0000 0000")
    header = SoapHeader("h", "")
    assert encode_soap(header) == wire
    assert decode_soap(wire, 0, len(wire)) == (header, len(wire))


def test_mqf_header_bytes() -> None:
    # Destination: HeaderSize 0x20 (12 + 2 type + 2 pad + 16 GUID), ID 0x64, 1 public element;
    # Administration and Response empty (12 bytes each); Signature ID 0x15E, Size 1, 3 pad bytes
    wire = h(
        "20000000 6400 0000 01000000 0100 0000" + G1_LE + "0c000000 c800 0000 00000000"
        "0c000000 2c01 0000 00000000" + "5e01 0000 01000000 ff000000"
    )
    header = MultiQueueFormat([MQFElement(1, guid=G1)], signature=b"\xff")
    assert encode_mqf(header) == wire
    assert decode_mqf(wire, 0, len(wire)) == (header, len(wire))


def test_mqf_private_and_direct_elements_align_guids_relative_to_the_header() -> None:
    """W-07: a direct element leaves the next FormatType at 2 mod 4; the GUID is re-aligned."""
    header = MultiQueueFormat([MQFElement(3, direct="a"), MQFElement(2, guid=G1, private_id=9)])
    wire = encode_mqf(header)
    # 12 + (2 + 4) = 18: type of the private element at 18-19, GUID at 20
    assert wire[12:18] == h("0300 6100 0000") and wire[18:20] == h("0200")
    assert wire[20:36] == G1.bytes_le and wire[36:40] == h("09000000")
    assert decode_mqf(wire, 0, len(wire))[0] == header


def test_connection_parameters_packet_bytes() -> None:
    # BaseHeader: IN (bit 3) = 0x0008, PacketSize 32, TTRQ infinite; InternalHeader PT 3;
    # RecoverableAckTimeout 500, AckTimeout 20000, Reserved 0, WindowSize 64
    wire = h("10 00 0800 4c494f52 20000000 ffffffff" + "0000 0300" + "f4010000 204e0000 0000 4000")
    packet = connection_parameters(500, 20000, 64)
    assert encode_internal(packet) == wire
    assert decode_internal(wire) == (packet, 32)
    assert decode_packet(wire)[0].kind == "ConnectionParameters"


def test_session_ack_packet_counts_its_session_header_in_packet_size() -> None:
    """W-01: a SessionAck's PacketSize is 36 (the Windows sources send it so)."""
    wire = h("10 00 1800 4c494f52 24000000 ffffffff" + "0000 0100" + "0200 0000 00000000")
    wire += h("0200 0000 4000 0000")
    packet = session_ack(SessionHeader(2, 0, 0, 2, 0, 0x40))
    assert encode_internal(packet) == wire and len(wire) == 36
    assert decode_internal(wire) == (packet, 36)


def test_a_session_ack_is_written_to_the_letter_when_asked() -> None:
    """W-01's letter on the sending side: the same 36 bytes, PacketSize 20; only a SessionAck
    changes (the other internal packets count everything either way)."""
    letter = h("10 00 1800 4c494f52 14000000 ffffffff" + "0000 0100" + "0200 0000 00000000")
    letter += h("0200 0000 4000 0000")
    packet = session_ack(SessionHeader(2, 0, 0, 2, 0, 0x40))
    assert encode_internal(packet, letter_session_ack=True) == letter
    parameters = connection_parameters(900, 30000, 3)
    assert encode_internal(parameters, letter_session_ack=True) == encode_internal(parameters)


def test_a_session_ack_written_to_the_letter_of_2_2_19_1_is_read_too() -> None:
    """W-01, the letter: PacketSize never counts a SessionHeader, so a sender may write a
    SessionAck with PacketSize 20 and its SessionHeader after it.  It frames to 36 bytes and
    decodes to the same packet, with no finding."""
    wire = h("10 00 1800 4c494f52 14000000 ffffffff" + "0000 0100" + "0200 0000 00000000")
    wire += h("0200 0000 4000 0000")
    frame = next_frame(wire + b"more")
    assert (frame.status, frame.size, frame.packet_size) == (PACKET, 36, 20)
    packet, end = decode_internal(wire)
    assert (packet, end) == (session_ack(SessionHeader(2, 0, 0, 2, 0, 0x40)), 36)
    assert packet.findings == []
    with pytest.raises(DecodeError) as info:
        decode_internal(wire[:30])  # the SessionHeader it announces is cut
    assert info.value.requirement == "MQMQ-2.2.19.1-3"


def test_a_soap_header_without_inner_padding_is_read_too() -> None:
    """W-08, the letter: BodySectionID right after an odd-length Header, the SoapHeader padded
    only as a whole.  It reads as the padded form does; the encoder pads each part."""
    letter = h("2003 0000 03000000") + "ab".encode("utf-16-le") + bytes(2)
    letter += h("8403 0000 02000000") + "c".encode("utf-16-le") + bytes(2)
    letter += bytes(-len(letter) % 4)
    soap, end = decode_soap(letter, 0, len(letter))
    assert (soap, end) == (SoapHeader("ab", "c"), len(letter))
    padded = encode_soap(soap)
    assert padded != letter and decode_soap(padded, 0, len(padded))[0] == soap


def test_establish_connection_packet_bytes() -> None:
    body = EstablishConnection(G1, NIL, 0x1234, 0x0110)  # RE 0x10 | SE (bit 8)
    wire = encode_internal(establish_connection(body))
    assert len(wire) == 572 and wire[8:12] == h("3c020000")  # PacketSize 572
    assert wire[20:36] == G1.bytes_le and wire[52:58] == h("34120000 1001")
    assert wire[60:] == b"\x5a" * 512
    assert decode_internal(wire, response=True)[0].body == body


def test_ping_packet_bytes() -> None:
    wire = h("0100 4855 78563412" + G1_LE)
    assert decode_ping(wire) == Ping(1, 0x12345678, G1)
    assert encode_ping(Ping(1, 0x12345678, G1)) == wire


# --- whole packets ----------------------------------------------------------------------------


def good_message(**changes: object) -> UserMessage:
    """A signed change notification to PRIVATE=<DST>\\3 (every check passes)."""
    message = UserMessage(
        BaseHeader(time_to_reach_queue=300),
        UserHeader(QM, DST, 0xFFFFFFFF, 0, 42, 0, destination=QueueFormat(3, private_id=3)),
        MessageProperties(hash_algorithm=0x800E, body=b"\x02\x01\x00"),
        security=SecurityHeader(ST_QM_GUID | DE, sender_id=QM.bytes_le, signature=bytes(128)),
    )
    return finalize(replace(message, **changes))


def test_a_whole_user_message_decodes_to_what_was_built() -> None:
    message = good_message()
    wire = encode_user_message(message)
    assert len(wire) == 16 + 52 + 16 + 16 + 128 + 60
    assert wire[8:12] == len(wire).to_bytes(4, "little")
    decoded, end = decode_user_message(wire)
    assert decoded == message and end == len(wire) and decoded.kind == "UserMessage"


def test_a_trailing_session_header_is_outside_packet_size() -> None:
    message = good_message(session=SessionHeader(1, 0, 0, 1, 0, 64))
    wire = encode_user_message(message)
    size = int.from_bytes(wire[8:12], "little")
    assert len(wire) == size + 16
    assert decode_user_message(wire) == (message, len(wire))
    assert next_frame(wire).size == len(wire)


@settings(max_examples=150)
@given(user_messages())
def test_every_generated_user_message_round_trips(message: UserMessage) -> None:
    wire = encode_user_message(message)
    decoded, end = decode_user_message(wire + b"next")
    assert decoded == message and end == len(wire)
    assert encode_user_message(decoded) == wire
    frame = next_frame(wire + b"next")
    assert (frame.status, frame.size) == (PACKET, len(wire))


@settings(max_examples=100)
@given(internal_packets())
def test_every_generated_internal_packet_round_trips(packet) -> None:
    wire = encode_packet(packet)
    assert decode_packet(wire) == (packet, len(wire))
    assert next_frame(wire).size == len(wire)


@given(pings)
def test_every_generated_ping_round_trips(ping: Ping) -> None:
    assert decode_ping(encode_ping(ping)) == ping


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_garbage_raises_only_decode_errors(data: bytes) -> None:
    for decoder in (decode_packet, decode_user_message, decode_internal, decode_ping):
        try:
            decoder(data)
        except DecodeError as exc:
            assert exc.requirement in WIRE_CATALOG
    frame = next_frame(data)
    assert frame.status in (PACKET, NEED_MORE, NOT_BASE_HEADER)


@settings(max_examples=200)
@given(user_messages(), st.data())
def test_a_cut_packet_is_refused_or_framed_as_needing_more(message, data) -> None:
    wire = encode_user_message(message)
    cut = data.draw(st.integers(0, len(wire) - 1))
    with pytest.raises(DecodeError):
        decode_user_message(wire[:cut])
    frame = next_frame(wire[:cut])
    assert frame.status == NEED_MORE and frame.size > cut


def test_acks_decode_with_their_kind_and_body() -> None:
    order = order_ack()
    decoded, _ = decode_user_message(encode_user_message(order))
    assert decoded.kind == ORDER_ACK and decoded.ack == OrderAckBody(7, 8, 5, 4)
    final = final_ack()
    decoded, _ = decode_user_message(encode_user_message(final))
    assert decoded.kind == FINAL_ACK
    assert decoded.ack == FinalAckBody(7, 8, 5, 4, QM, 42)


def test_an_ack_may_carry_a_session_acknowledgment() -> None:
    """W-09: BaseHeader.Flags.SH (and the SessionHeader) on an OrderAck is accepted."""
    ack = finalize(replace(order_ack(), session=SessionHeader(window_size=64)))
    decoded, _ = decode_user_message(encode_user_message(ack))
    assert decoded.kind == ORDER_ACK and decoded.session is not None


def test_an_ack_to_a_direct_order_queue() -> None:
    for name in (
        "TCP:10.1.2.3\\private$\\order_queue$",
        "SPX:0000000A.00A0C91E6BF6\\PRIVATE$\\ORDER_QUEUE$",
        "TCP:::1\\PRIVATE$\\order_queue$",
    ):
        ack = order_ack(destination=QueueFormat(7, direct=name), qm=NIL)
        assert decode_user_message(encode_user_message(ack))[0].kind == ORDER_ACK


# --- framing ----------------------------------------------------------------------------------


def test_framing_of_a_stream_of_packets() -> None:
    stream = b"".join(
        (
            encode_internal(connection_parameters(500, 20000, 64)),
            encode_user_message(good_message(session=SessionHeader(window_size=64))),
            encode_internal(session_ack(SessionHeader(1, 0, 0, 1, 0, 64))),
        )
    )
    offset, kinds = 0, []
    while offset < len(stream):
        frame = next_frame(stream, offset)
        assert frame.status == PACKET
        packet, end = decode_packet(stream, offset)
        assert end == offset + frame.size
        kinds.append(packet.kind)
        offset = end
    assert kinds == ["ConnectionParameters", "UserMessage", "SessionAck"]


def test_framing_needs_more_bytes_before_deciding() -> None:
    wire = encode_user_message(good_message())
    assert next_frame(b"").status == NEED_MORE
    assert next_frame(wire[:7]).status == NEED_MORE
    frame = next_frame(wire[:40])
    assert (frame.status, frame.size, frame.packet_size) == (NEED_MORE, len(wire), len(wire))


@pytest.mark.parametrize(
    ("data", "requirement"),
    [
        (b"\x11", "MQMQ-2.2.19.1-1"),
        (h("10 00 0000 4c494f53"), "MQMQ-2.2.19.1-2"),
        (h("10 00 0000 4c494f52 04004000 ffffffff"), "MQMQ-2.2.19.1-4"),
        (h("10 00 0000 4c494f52 0c000000 ffffffff"), "MQMQ-2.2.19.1-3"),  # smaller than 16
    ],
)
def test_framing_says_why_there_is_no_base_header(data: bytes, requirement: str) -> None:
    frame = next_frame(data)
    assert frame.status == NOT_BASE_HEADER and frame.violation is not None
    assert frame.violation.requirement == requirement


def test_a_packet_size_off_the_4_byte_grid_still_frames_its_packet() -> None:
    """Real senders count a stray byte: the packet is framed by its PacketSize and the
    decoder makes the size a finding (MQMQ-2.2.19.1-3 at byte 8), never a refusal."""
    wire = encode_user_message(good_message()) + b"!"
    wire = wire[:8] + len(wire).to_bytes(4, "little") + wire[12:]
    frame = next_frame(wire)
    assert (frame.status, frame.size, frame.packet_size) == (PACKET, len(wire), len(wire))
    assert next_frame(wire[:-1]).status == NEED_MORE
    packet, end = decode_user_message(wire)
    assert end == len(wire)
    assert [(f.requirement, f.offset) for f in packet.findings] == [
        ("MQMQ-2.2.19.1-3", 8),
        ("MQMQ-2.2.19.1-3", len(wire) - 1),
    ]
    assert str(packet.findings[1]).endswith(
        f"1 byte at offset {len(wire) - 1} that no announced header covers (PacketSize is "
        f"{len(wire)}, the headers take {len(wire) - 1})"
    )
    with pytest.raises(DecodeError, match="4-byte aligned"):
        decode_base_header(wire)  # alone, without a list for its findings: strict


def test_a_stream_that_starts_mid_packet_resynchronises() -> None:
    wire = encode_user_message(good_message())
    stream = wire[37:] + wire
    assert next_frame(stream).status == NOT_BASE_HEADER
    start = find_base_header(stream, 1)
    while next_frame(stream, start).status != PACKET:
        start = find_base_header(stream, start + 1)
    assert start == len(wire) - 37
    assert decode_packet(stream, start)[0] == good_message()


def test_a_packet_size_of_4_gigabytes_is_refused_without_waiting() -> None:
    frame = next_frame(h("10 00 0000 4c494f52 ffffffff ffffffff"))
    assert frame.status == NOT_BASE_HEADER
    assert frame.violation is not None and frame.violation.requirement == "MQMQ-2.2.19.1-4"


# --- one negative test per wire requirement -----------------------------------------------------


def layer_of(message: UserMessage) -> L.UserMessagePacket:
    return B.to_layer(message)  # type: ignore[return-value]


def order_ack(*, destination: QueueFormat | None = None, qm: uuid.UUID = DST) -> UserMessage:
    body = b"".join(x.to_bytes(4, "little") for x in (7, 8, 5, 4)) + bytes(20)
    return finalize(
        UserMessage(
            BaseHeader(flags=0, time_to_reach_queue=300),
            UserHeader(QM, qm, 0xFFFFFFFF, 0, 1, 0, destination or QueueFormat(3, private_id=4)),
            MessageProperties(message_class=0xFF, label="QM Ordering Ack", body=body),
        )
    )


def final_ack(sequence: int = 5) -> UserMessage:
    body = b"".join(x.to_bytes(4, "little") for x in (7, 8, sequence, 4))
    body += QM.bytes_le + (42).to_bytes(4, "little")
    return finalize(
        UserMessage(
            BaseHeader(flags=0, time_to_reach_queue=300),
            UserHeader(
                QM,
                DST,
                0xFFFFFFFF,
                0,
                1,
                compose_user_flags(delivery=1),
                QueueFormat(3, private_id=4),
            ),
            MessageProperties(message_class=0x4000, label="QM Ordering Ack", body=body),
        )
    )


def built(change: Callable[[L.UserMessagePacket], None], message: UserMessage | None = None):
    """Bytes of ``message`` (default: the good one) after ``change`` edits its layer."""

    def make() -> bytes:
        layer = layer_of(message or good_message())
        change(layer)
        return bytes(layer)

    return make


def patched(message: UserMessage, at: int, raw: bytes):
    def make() -> bytes:
        wire = bytearray(encode_user_message(message))
        wire[at : at + len(raw)] = raw
        return bytes(wire)

    return make


def _set(path: str, value: object) -> Callable[[L.UserMessagePacket], None]:
    def change(layer: L.UserMessagePacket) -> None:
        target = layer
        *parents, name = path.split(".")
        for parent in parents:
            target = getattr(target, parent)
        setattr(target, name, value)

    return change


def _mqf_message() -> UserMessage:
    return good_message(mqf=MultiQueueFormat([MQFElement(1, guid=G1)], signature=b"s"))


def _mqf_at(message: UserMessage) -> int:
    return len(encode_user_message(message)) - len(encode_mqf(message.mqf))  # type: ignore[arg-type]


def _direct_mqf() -> UserMessage:
    return good_message(mqf=MultiQueueFormat([MQFElement(3, direct="ab")]))


def _internal(change: Callable[[L.InternalPacketLayer], None], packet=None):
    def make() -> bytes:
        layer = B.to_layer(packet or connection_parameters(500, 20000, 64))
        change(layer)  # type: ignore[arg-type]
        return bytes(layer)

    return make


def _session_ack_layer():
    return session_ack(SessionHeader(1, 0, 0, 1, 0, 64))


def _combine(
    *changes: Callable[[L.UserMessagePacket], None],
) -> Callable[[L.UserMessagePacket], None]:
    def change(layer: L.UserMessagePacket) -> None:
        for one in changes:
            one(layer)

    return change


TRANSACTIONAL = good_message(
    transaction=TransactionHeader(sequence_number=2, previous_number=1),
    base=BaseHeader(flags=0, time_to_reach_queue=300),
    user=replace(good_message().user, flags=compose_user_flags(delivery=1)),
)
DIRECT = good_message(
    user=replace(good_message().user, destination_qm=NIL, destination=QueueFormat(7, direct="x"))
)


def _with_tail(tail: bytes, message: UserMessage | None = None) -> Callable[[], bytes]:
    """``message`` (default: the good one) with ``tail`` inside its PacketSize."""

    def make() -> bytes:
        wire = bytearray(encode_user_message(message or good_message()))
        wire += tail
        wire[8:12] = len(wire).to_bytes(4, "little")
        return bytes(wire)

    return make


def _encoded(message: UserMessage) -> Callable[[], bytes]:
    return lambda: encode_user_message(message)


# [MS-MQRR] 2.2.5: a message first sent over HTTP, and one carrying the extension chain
ENVELOPE = srmp_envelope("<se:Envelope><se:Header/><se:Body/></se:Envelope>")
COMPOUND = compound_message(b"POST /msmq/private$/q HTTP/1.1\r\n\r\n", b"\x02\x01\x00")
SRMP = good_message(srmp_envelope=ENVELOPE, compound=COMPOUND)
AH_ONLY = good_message(user=replace(good_message().user, flags=good_message().user.flags | AH))
CHAIN = good_message(
    extensions=extensions(subqueue=SubqueueHeader(), extended_address=ExtendedAddressHeader())
)
_SUBQUEUE, _ADDRESS = pack(SubqueueHeader()), pack(ExtendedAddressHeader())


def _chain(*parts: bytes) -> Callable[[], bytes]:
    return _with_tail(b"".join(parts))


BROKEN: dict[str, tuple[Callable[[], bytes], Callable[..., object]]] = {
    "MQMQ-2.2.18.1.4-1": (
        patched(_mqf_message(), _mqf_at(_mqf_message()) + 12, h("0400")),
        decode_user_message,
    ),
    "MQMQ-2.2.18.1.4.1-1": (
        patched(_direct_mqf(), _mqf_at(_direct_mqf()) + 18, h("6300")),
        decode_user_message,
    ),
    "MQMQ-2.2.18.1.5.2-1": (
        built(_set("UserHeader.DestinationQueue.Count", 3), DIRECT),
        decode_user_message,
    ),
    "MQMQ-2.2.19.1-1": (built(_set("BaseHeader.VersionNumber", 0x11)), decode_user_message),
    "MQMQ-2.2.19.1-2": (built(_set("BaseHeader.Signature", 0x524F494D)), decode_user_message),
    # PacketSize past the bytes there are (bytes inside it that no header covers are a finding)
    "MQMQ-2.2.19.1-3": (
        built(_set("BaseHeader.PacketSize", 16 + 52 + 32 + 128 + 60 + 4)),
        decode_user_message,
    ),
    "MQMQ-2.2.19.1-4": (built(_set("BaseHeader.PacketSize", 0x00400004)), decode_user_message),
    "MQMQ-2.2.19.1-5": (built(_set("BaseHeader.TR", 1)), decode_user_message),
    "MQMQ-2.2.19.1-6": (_internal(_set("BaseHeader.DH", 1)), decode_internal),
    "MQMQ-2.2.19.1-7": (built(_set("BaseHeader.PR", 3), TRANSACTIONAL), decode_user_message),
    "MQMQ-2.2.19.1-8": (_internal(_set("BaseHeader.IN", 0)), decode_internal),
    "MQMQ-2.2.19.1-9": (_internal(_set("BaseHeader.TimeToReachQueue", 300)), decode_internal),
    "MQMQ-2.2.19.2-1": (built(_set("UserHeader.RC", 0x1E)), decode_user_message),
    "MQMQ-2.2.19.2-2": (built(_set("UserHeader.DM", 2)), decode_user_message),
    "MQMQ-2.2.19.2-3": (built(_set("UserHeader.DQ", 1)), decode_user_message),
    "MQMQ-2.2.19.2-4": (built(_set("UserHeader.AQ", 4)), decode_user_message),
    "MQMQ-2.2.19.2-5": (built(_set("UserHeader.DM", 0), TRANSACTIONAL), decode_user_message),
    "MQMQ-2.2.19.2-6": (built(_set("UserHeader.MP", 0)), decode_user_message),
    "MQMQ-2.2.19.2-7": (built(_set("UserHeader.AH", 1)), decode_user_message),
    "MQMQ-2.2.19.2-8": (
        built(_set("UserHeader.QueueManagerAddress", QM), DIRECT),
        decode_user_message,
    ),
    "MQMQ-2.2.19.2-9": (built(_set("MessagePropertiesHeader.NA", 1)), decode_user_message),
    "MQMQ-2.2.19.3-1": (
        built(_set("MessagePropertiesHeader.Label", "x" * 250)),
        decode_user_message,
    ),
    "MQMQ-2.2.19.3-2": (
        built(_set("MessagePropertiesHeader.Label", h("6100 0000 6200 0000"))),
        decode_user_message,
    ),
    "MQMQ-2.2.19.3-3": (
        built(_set("MessagePropertiesHeader.MessageClass", 0x0200)),
        decode_user_message,
    ),
    "MQMQ-2.2.19.3-4": (
        built(
            _combine(
                _set("MessagePropertiesHeader.PrivacyLevel", 2),
                _set("SecurityHeader.EB", 1),
            )
        ),
        decode_user_message,
    ),
    "MQMQ-2.2.19.3-5": (
        built(
            _combine(
                _set("MessagePropertiesHeader.PrivacyLevel", 1),
                _set("MessagePropertiesHeader.EncryptionAlgorithm", 0x660E),
                _set("SecurityHeader.EB", 1),
            )
        ),
        decode_user_message,
    ),
    "MQMQ-2.2.19.3-6": (
        built(
            _combine(
                _set("MessagePropertiesHeader.AllocationBodySize", 2),
                _set("MessagePropertiesHeader.Padding", b"\0"),
            )
        ),
        decode_user_message,
    ),
    "MQMQ-2.2.19.3-7": (
        built(_set("MessagePropertiesHeader.ExtensionSize", 0x10000)),
        decode_user_message,
    ),
    "MQMQ-2.2.19.3-8": (
        built(_set("MessagePropertiesHeader.HashAlgorithm", 0x8005)),
        decode_user_message,
    ),
    "MQMQ-2.2.20-1": (built(_set("BaseHeader.IN", 1)), decode_user_message),
    "MQMQ-2.2.20.1-1": (
        built(_set("MultiQueueFormatHeader.Administration.HeaderID", 0x64), _mqf_message()),
        decode_user_message,
    ),
    "MQMQ-2.2.20.2-1": (
        built(_set("MultiQueueFormatHeader.Destination.HeaderSize", 8), _mqf_message()),
        decode_user_message,
    ),
    "MQMQ-2.2.20.3-1": (
        built(_set("MultiQueueFormatHeader.Signature.ID", 0x15F), _mqf_message()),
        decode_user_message,
    ),
    "MQMQ-2.2.20.3-2": (
        built(_set("MultiQueueFormatHeader.Signature.Size", 0x1000), _mqf_message()),
        decode_user_message,
    ),
    "MQMQ-2.2.20.4-1": (
        built(_set("SessionHeader.WindowSize", 0), good_message(session=SessionHeader())),
        decode_user_message,
    ),
    "MQMQ-2.2.20.5-1": (
        built(
            _combine(
                _set("TransactionHeader.TxSequenceNumber", 0),
                _set("TransactionHeader.PreviousTxSequenceNumber", 0),
            ),
            TRANSACTIONAL,
        ),
        decode_user_message,
    ),
    "MQMQ-2.2.20.5-2": (
        built(_set("TransactionHeader.PreviousTxSequenceNumber", 2), TRANSACTIONAL),
        decode_user_message,
    ),
    "MQMQ-2.2.20.6-1": (built(_set("SecurityHeader.ST", 3)), decode_user_message),
    "MQMQ-2.2.20.6-2": (
        built(_set("SecurityHeader.SecurityID", b"\x01\x02\x03\x04")),
        decode_user_message,
    ),
    "MQMQ-2.2.20.6-3": (built(_set("SecurityHeader.AU", 1)), decode_user_message),
    "MQMQ-2.2.20.6-4": (built(_set("SecurityHeader.AS", 3)), decode_user_message),
    "MQMQ-2.2.20.6-5": (
        built(
            _combine(
                _set("SecurityHeader.ST", 0),
                _set("SecurityHeader.SecurityID", b""),
                _set("SecurityHeader.Signature", b""),
            )
        ),
        decode_user_message,
    ),
    "MQMQ-2.2.20.6-6": (built(_set("SecurityHeader.SenderCertSize", 0x10000)), decode_user_message),
    "MQMQ-2.2.20.7-1": (
        built(_set("SoapHeader.HeaderSectionID", 0x0321), good_message(soap=SoapHeader("h", "b"))),
        decode_user_message,
    ),
    "MQMQ-2.2.20.7-2": (
        built(_set("SoapHeader.BodySectionID", 0x0385), good_message(soap=SoapHeader("h", "b"))),
        decode_user_message,
    ),
    "MQMQ-2.2.20.7-3": (
        built(_set("SoapHeader.Header", b"hx"), good_message(soap=SoapHeader("h", "b"))),
        decode_user_message,
    ),
    "MQMQ-2.2.20.8-1": (
        built(_set("DebugHeader.QT", 2), good_message(debug=DebugHeader())),
        decode_user_message,
    ),
    "MQQB-2.2.1-1": (_internal(_set("InternalHeader.PT", 4)), decode_internal),
    "MQQB-2.2.1-2": (
        _internal(_set("InternalHeader.CS", 1), _session_ack_layer()),
        decode_internal,
    ),
    "MQQB-2.2.1-3": (_internal(_set("InternalHeader.Reserved", 1)), decode_internal),
    "MQQB-2.2.2.1-1": (_internal(_set("Body.RecoverableAckTimeout", 100)), decode_internal),
    "MQQB-2.2.2.1-2": (_internal(_set("Body.AckTimeout", 100)), decode_internal),
    "MQQB-2.2.2.1-3": (_internal(_set("Body.Reserved", 1)), decode_internal),
    "MQQB-2.2.3.1-1": (
        _internal(_set("Body.RE", 0x11), establish_connection(EstablishConnection(G1))),
        decode_internal,
    ),
    "MQQB-2.2.3.1-2": (
        _internal(_set("Body.Reserved", 1), establish_connection(EstablishConnection(G1))),
        decode_internal,
    ),
    "MQQB-2.2.3.1-3": (
        _internal(_set("Body.Padding", bytes(512)), establish_connection(EstablishConnection(G1))),
        lambda data: decode_internal(data, response=True),
    ),
    "MQQB-2.2.4-1": (built(_set("BaseHeader.PR", 1), order_ack()), decode_user_message),
    "MQQB-2.2.4-2": (built(_set("UserHeader.JP", 1), order_ack()), decode_user_message),
    "MQQB-2.2.4-3": (
        lambda: encode_user_message(
            order_ack(destination=QueueFormat(7, direct="TCP:host\\private$\\order_queue$"), qm=NIL)
        ),
        decode_user_message,
    ),
    "MQQB-2.2.4-4": (
        built(_set("MessagePropertiesHeader.Label", "QM Ack"), order_ack()),
        decode_user_message,
    ),
    "MQQB-2.2.4.1-1": (
        lambda: encode_user_message(
            replace(
                order_ack(),
                properties=replace(
                    order_ack().properties,
                    body=h("07000000 08000000 05000000 03000000") + bytes(20),
                ),
            )
        ),
        decode_user_message,
    ),
    "MQQB-2.2.5.1-1": (lambda: encode_user_message(final_ack(sequence=0)), decode_user_message),
    "MQQB-2.2.6-1": (_internal(_set("BaseHeader.SH", 0), _session_ack_layer()), decode_internal),
    "MQQB-2.2.7-1": (lambda: encode_ping(Ping(0, 1, G1, signature=0x1234)), decode_ping),
    "MQQB-2.2-1": (_encoded(CHAIN), decode_user_message),
    "MQRR-2.2.5.1.2-1": (_encoded(AH_ONLY), decode_user_message),
    "MQRR-2.2.5.1.2.1-1": (
        _encoded(replace(SRMP, srmp_envelope=replace(ENVELOPE, data_length=0x80000000 + 50))),
        decode_user_message,
    ),
    "MQRR-2.2.5.1.2.1-2": (
        _with_tail(h("0000 0000 05000000") + "abcd".encode("utf-16-le"), AH_ONLY),
        decode_user_message,
    ),
    "MQRR-2.2.5.1.2.2-1": (
        _encoded(replace(SRMP, compound=replace(COMPOUND, http_body_size=0x80000024))),
        decode_user_message,
    ),
    "MQRR-2.2.5.1.2.2-2": (
        _encoded(replace(SRMP, compound=replace(COMPOUND, msg_body_offset=0xFFFFFFF0))),
        decode_user_message,
    ),
    "MQRR-2.2.5.2-1": (
        _chain(pack(ExtensionHeader(16, 176)), bytes(4), _SUBQUEUE, _ADDRESS),
        decode_user_message,
    ),
    "MQRR-2.2.5.2-2": (
        _chain(pack(ExtensionHeader(12, 180)), _SUBQUEUE, _ADDRESS, bytes(4)),
        decode_user_message,
    ),
    "MQRR-2.2.5.2-3": (
        _encoded(good_message(extensions=extensions(extended_address=ExtendedAddressHeader()))),
        decode_user_message,
    ),
    "MQRR-2.2.5.3-1": (
        _encoded(
            good_message(
                extensions=extensions(
                    subqueue=SubqueueHeader(word=TM), extended_address=ExtendedAddressHeader()
                )
            )
        ),
        decode_user_message,
    ),
    "MQRR-2.2.5.3-2": (
        _encoded(
            good_message(
                extensions=extensions(
                    subqueue=SubqueueHeader(subqueue_name=b"a" * 64),
                    extended_address=ExtendedAddressHeader(),
                )
            )
        ),
        decode_user_message,
    ),
    "MQRR-2.2.5.4-1": (
        _chain(
            pack(ExtensionHeader(12, 148 + 8 + 28, SQ | DL | EA)),
            _SUBQUEUE,
            pack(DeadLetterHeader(0x80000008)) + "a".encode("utf-16-le") + bytes(2),
            _ADDRESS,
        ),
        decode_user_message,
    ),
    "MQRR-2.2.5.4-2": (
        _chain(
            pack(ExtensionHeader(12, 148 + 12 + 28, SQ | DL | EA)),
            _SUBQUEUE,
            pack(DeadLetterHeader(12)) + "ab".encode("utf-16-le") + bytes(2) + b"!!",
            _ADDRESS,
        ),
        decode_user_message,
    ),
    "MQRR-2.2.5.5-1": (
        _encoded(
            good_message(
                extensions=extensions(
                    subqueue=SubqueueHeader(),
                    extended_address=ExtendedAddressHeader(address_type=2),
                )
            )
        ),
        decode_user_message,
    ),
    "MQDMPR-3.1.7.1.32-1": (
        built(
            _combine(
                _set("MessagePropertiesHeader.PrivacyLevel", 3),
                _set("MessagePropertiesHeader.EncryptionAlgorithm", 0x6801),
            )
        ),
        decode_user_message,
    ),
}


PACKET_IDS = {r for r, entry in WIRE_CATALOG.items() if entry.role == PACKET_ROLE}


def test_every_wire_requirement_has_a_negative_test() -> None:
    """Every packet rule here; the session rules in tests/test_mqqb_session.py."""
    assert set(BROKEN) == PACKET_IDS


def _layer_bytes(decoder: Callable[..., object], data: bytes) -> bytes:
    """The bytes the scapy layers rebuild from ``data`` (they dissect anything)."""
    if decoder is decode_ping:
        return bytes(L.PingPacket(data))
    if decoder is decode_user_message:
        return bytes(L.UserMessagePacket(data))
    return bytes(L.InternalPacketLayer(data))


def test_every_wire_requirement_is_structural_or_a_value_rule() -> None:
    kinds = Counter(entry.rule for r, entry in WIRE_CATALOG.items() if r in PACKET_IDS)
    assert set(kinds) == {STRUCTURAL, VALUE_RULE}, kinds


# A breach that cannot come alone: TxSequenceNumber 0 leaves no smaller previous number.
# The [MS-MQRR] headers are each a header [MS-MQQB] does not use (W-12), and the SRMP pair
# comes with Flags.AH, which a sender never sets.
_RR = {"MQQB-2.2-1"}
_HTTP = _RR | {"MQMQ-2.2.19.2-7"}
IMPLIED = {
    "MQMQ-2.2.20.5-1": {"MQMQ-2.2.20.5-2"},
    "MQMQ-2.2.19.2-7": {"MQRR-2.2.5.1.2-1"},
    "MQRR-2.2.5.1.2-1": {"MQMQ-2.2.19.2-7"},
    "MQRR-2.2.5.1.2.1-1": _HTTP,
    "MQRR-2.2.5.1.2.2-2": _HTTP,
    **{rid: _RR for rid in ("MQRR-2.2.5.2-1", "MQRR-2.2.5.2-2", "MQRR-2.2.5.2-3")},
    **{
        rid: _RR for rid in ("MQRR-2.2.5.3-1", "MQRR-2.2.5.3-2", "MQRR-2.2.5.4-2", "MQRR-2.2.5.5-1")
    },
}
STRUCTURAL_IDS = sorted(r for r in BROKEN if WIRE_CATALOG[r].rule == STRUCTURAL)
VALUE_IDS = sorted(r for r in BROKEN if WIRE_CATALOG[r].rule == VALUE_RULE)


@pytest.mark.parametrize("requirement", STRUCTURAL_IDS)
def test_a_broken_structure_is_refused_naming_exactly_its_requirement(requirement: str) -> None:
    make, decoder = BROKEN[requirement]
    data = make()
    with pytest.raises(DecodeError) as info:
        decoder(data)
    assert info.value.requirement == requirement, str(info.value)
    assert info.value.offset is not None and 0 <= info.value.offset <= len(data)
    assert _layer_bytes(decoder, data) == data


@pytest.mark.parametrize("requirement", VALUE_IDS)
def test_a_broken_value_rule_is_a_finding_on_the_decoded_packet(requirement: str) -> None:
    """Each value rule of the wire catalog, broken alone: the packet decodes, every header
    is there, and its findings name exactly that requirement with a byte offset in it."""
    make, decoder = BROKEN[requirement]
    data = make()
    packet, end = decoder(data)  # type: ignore[misc]
    assert end == len(data)
    found = [f.requirement for f in packet.findings]
    assert set(found) == {requirement} | IMPLIED.get(requirement, set()), packet.findings
    assert all(f.offset is not None and 0 <= f.offset < len(data) for f in packet.findings)
    if decoder is decode_user_message:
        assert packet_to_json(packet)["user_header"] is not None
        packet_to_envelope(packet)  # the Envelope carries whatever the packet says
    assert _layer_bytes(decoder, data) == data


def test_the_unbroken_forms_of_the_negative_tests_decode() -> None:
    for message in (
        good_message(),
        _mqf_message(),
        _direct_mqf(),
        TRANSACTIONAL,
        DIRECT,
        order_ack(),
        final_ack(),
        good_message(soap=SoapHeader("h", "b")),
        good_message(debug=DebugHeader()),
        good_message(session=SessionHeader()),
    ):
        wire = encode_user_message(message)
        assert decode_user_message(wire)[0] == message
        assert bytes(layer_of(message)) == wire
    for packet in (
        connection_parameters(500, 20000, 64),
        _session_ack_layer(),
        establish_connection(EstablishConnection(G1)),
    ):
        assert decode_internal(encode_internal(packet), response=True)[0] == packet


def test_errors_are_one_line_with_id_and_offset() -> None:
    data = built(_set("BaseHeader.Signature", 0x524F494D))()
    with pytest.raises(DecodeError) as info:
        decode_packet(data)
    assert str(info.value) == "MQMQ-2.2.19.1-2 at byte 4: Signature is 0x524f494d, not 0x524f494c"
    assert info.value.violation.severity == "error"
