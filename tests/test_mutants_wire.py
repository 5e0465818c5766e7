"""Sharper tests of the wire codec (mqcn_model/wire/), written for the mutants of
``mqcn selftest mutation`` that the broader wire tests let survive (issue 19).

Each test states one behaviour of the codec in its own right (a round trip, a size the header
states, a rule's edge); the mutant it was written for is named in its docstring.
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import replace

import pytest
from capture_helpers import envelope, user_message

from mqcn_model.errors import DecodeError
from mqcn_model.wire import (
    decode_internal,
    decode_user_message,
    encode_internal,
    encode_user_message,
    finalize,
    packet_to_json,
)
from mqcn_model.wire.acks import (
    FINAL_ACK,
    FINAL_ACK_NACKS,
    FinalAckBody,
    decode_final_ack_body,
    encode_final_ack_body,
)
from mqcn_model.wire.base import (
    BASE_HEADER_SIZE,
    BaseHeader,
    decode_base_header,
    encode_base_header,
)
from mqcn_model.wire.common import READING, Letter
from mqcn_model.wire.internal import (
    CS,
    EstablishConnection,
    connection_parameters,
    establish_connection,
    session_ack,
)
from mqcn_model.wire.mapping import envelope_to_packet
from mqcn_model.wire.properties import MessageProperties, decode_properties, encode_properties
from mqcn_model.wire.queues import QueueFormat, decode_queue, encode_queue, format_name
from mqcn_model.wire.security import SecurityHeader, decode_security, encode_security
from mqcn_model.wire.session import SessionHeader
from mqcn_model.wire.soap import decode_soap
from mqcn_model.wire.transaction import CG, FA, FM, TransactionHeader, encode_transaction
from mqcn_model.wire.user import RQ_SHIFT, USER_FIXED_SIZE, UserHeader, compose_user_flags
from mqcn_model.wire.usermessage import (
    LETTER_TRIALS,
    R_ENCRYPTED,
    UserMessage,
    _letter_trials,
)

QM = uuid.UUID("0f2c1e3a-1111-4222-8333-444455556666")
DST = uuid.UUID("9a8b7c6d-1234-4567-89ab-cdef01234567")
NIL = uuid.UUID(int=0)
ACK_LABEL = "QM Ordering Ack"


def ack(
    message_class: int, destination: QueueFormat, *, final: bool, qm: uuid.UUID = DST
) -> UserMessage:
    """An OrderAck (class 0xFF) or FinalAck to ``destination``, every other field valid."""
    body = b"".join(x.to_bytes(4, "little") for x in (7, 8, 5, 4))
    body += QM.bytes_le + (42).to_bytes(4, "little") if final else bytes(20)
    flags = compose_user_flags(delivery=1) if final else 0
    return finalize(
        UserMessage(
            BaseHeader(flags=0, time_to_reach_queue=300),
            UserHeader(QM, qm, 0xFFFFFFFF, 0, 1, flags, destination),
            MessageProperties(message_class=message_class, label=ACK_LABEL, body=body),
        )
    )


def findings_of(message: UserMessage) -> list[str]:
    decoded, _ = decode_user_message(encode_user_message(message))
    return [finding.requirement for finding in decoded.findings]


def test_a_final_ack_body_round_trips_every_field() -> None:
    """``encode_final_ack_body`` writes all six fields (each one an ArgDelete mutant)."""
    body = FinalAckBody(7, 0x5F5E100, 12, 11, uuid.UUID(int=0x0102030405060708090A0B0C0D0E0F10), 99)
    wire = encode_final_ack_body(body)
    assert len(wire) == 0x24
    assert decode_final_ack_body(wire, 0) == body


def test_the_size_of_a_properties_header_is_its_encoded_length() -> None:
    """``MessageProperties.size`` counts the label, extension, body, slack and padding."""
    for properties in (
        MessageProperties(),
        MessageProperties(label="q", extension=b"\x01\x02", body=b"abc", body_slack=b"\x00"),
        MessageProperties(label="notification", body=bytes(17)),
    ):
        assert properties.size == len(encode_properties(properties))


def test_the_size_of_a_transaction_header_counts_the_connector_guid() -> None:
    """``TransactionHeader.size``: 20 bytes, 36 with Flags.CG and its ConnectorQMGuid."""
    plain = TransactionHeader()
    connected = TransactionHeader(flags=CG, connector_qm=uuid.UUID(int=5))
    assert (plain.size, connected.size) == (20, 36)
    assert plain.size == len(encode_transaction(plain))
    assert connected.size == len(encode_transaction(connected))


NACKS = (0x8000, 0x8003, 0x8004, 0x8006, 0x8007, 0x8009, 0x800B, 0xC000, 0xC001, 0xC002)


@pytest.mark.parametrize("nack", NACKS)
def test_a_final_ack_may_carry_every_negative_class(nack: int) -> None:
    """[MS-MQQB] 2.2.5: each of the ten NACK classes is a valid FinalAck MessageClass (the
    table is spelled out here, not read from ``FINAL_ACK_NACKS``, so a changed table fails)."""
    message = ack(nack, QueueFormat(3, private_id=4), final=True)
    assert message.kind == FINAL_ACK
    assert findings_of(message) == []


def test_no_other_class_is_a_final_ack_nack() -> None:
    assert set(NACKS) == FINAL_ACK_NACKS
    other = ack(0x8001, QueueFormat(3, private_id=4), final=True)
    assert findings_of(other) == ["MQQB-2.2.4-4"]


@pytest.mark.parametrize(
    "name",
    [
        "TCP:10.1.2.3\\private$\\order_queue$",
        "SPX:0000000A.00A0C91E6BF6\\PRIVATE$\\ORDER_QUEUE$",
        "TCP:::1\\PRIVATE$\\order_queue$",
    ],
)
def test_a_direct_order_queue_name_in_each_address_form_breaks_no_rule(name: str) -> None:
    """The address ABNF of [MS-MQQB] 2.2.4 (``_order_address_ok``): TCP with IPv4 or IPv6,
    SPX with network.node in hex."""
    assert findings_of(ack(0xFF, QueueFormat(7, direct=name), final=False, qm=NIL)) == []


@pytest.mark.parametrize(
    "name",
    [
        "SPX:0000000A.00A0C91E6BFX\\private$\\order_queue$",
        "TCP:host\\private$\\order_queue$",
        "UDP:10.1.2.3\\private$\\order_queue$",
    ],
)
def test_a_direct_order_queue_with_a_bad_address_breaks_the_order_queue_rule(name: str) -> None:
    found = findings_of(ack(0xFF, QueueFormat(7, direct=name), final=False, qm=NIL))
    assert found == ["MQQB-2.2.4-3"]


def test_a_message_built_without_its_destination_is_an_ordinary_user_message() -> None:
    """``kind`` of an in-memory message whose Flags name a private destination it does not
    hold (as a fuzzer may build): an ordinary UserMessage, not an error."""
    user = UserHeader(QM, DST, 0xFFFFFFFF, 0, 1, compose_user_flags(dq=3), None)
    message = UserMessage(BaseHeader(), user, MessageProperties())
    assert user.dq == 3
    assert message.kind == "UserMessage"


def session_ack_with(reserved: int, flags_or: int) -> bytes:
    """A SessionAck Packet with its InternalHeader (at byte 16) Reserved and Flags changed."""
    wire = bytearray(encode_internal(session_ack(SessionHeader(window_size=64))))
    flags = int.from_bytes(wire[18:20], "little") | flags_or
    wire[16:20] = reserved.to_bytes(2, "little") + flags.to_bytes(2, "little")
    return bytes(wire)


def test_a_nonzero_internal_reserved_field_is_kept_and_named_at_its_offset() -> None:
    packet, _ = decode_internal(session_ack_with(5, 0))
    assert packet.internal.reserved == 5
    assert [(f.requirement, f.offset) for f in packet.findings] == [("MQQB-2.2.1-3", 16)]


def test_a_session_ack_with_flags_cs_is_named_at_the_flags_offset() -> None:
    packet, _ = decode_internal(session_ack_with(0, CS))
    assert packet.internal.refused
    assert [(f.requirement, f.offset) for f in packet.findings] == [("MQQB-2.2.1-2", 18)]


@pytest.mark.parametrize(
    ("code", "name"),
    [(0x6602, "RC2"), (0x6801, "RC4"), (0x6610, "AES256"), (0x660E, "AES128"), (0x660F, "AES192")],
)
def test_the_encryption_algorithm_is_shown_by_name(code: int, name: str) -> None:
    message = ack(0xFF, QueueFormat(3, private_id=4), final=False)
    message.properties.encryption_algorithm = code
    shown = packet_to_json(message)["message_properties_header"]
    assert (shown["encryption_algorithm"], shown["encryption_algorithm_name"]) == (code, name)


ALLOWED = {1: {0x6602, 0x6801}, 3: {0x6602, 0x6801}, 5: {0x660E, 0x660F, 0x6610}}


@pytest.mark.parametrize("privacy", [1, 3, 5])
@pytest.mark.parametrize("encryption", [0x6602, 0x6801, 0x660E, 0x660F, 0x6610, 0])
def test_each_privacy_level_allows_exactly_its_encryption_algorithms(
    privacy: int, encryption: int
) -> None:
    """[MS-MQMQ] 2.2.19.3: RC2/RC4 at Base and Enhanced, AES at Advanced (the table is spelled
    out here, not read from ``ALLOWED_ENCRYPTION``)."""
    wire = encode_properties(
        MessageProperties(privacy_level=privacy, encryption_algorithm=encryption)
    )
    findings: list = []
    decode_properties(wire, 0, len(wire), findings)
    broken = [(f.requirement, f.offset) for f in findings]
    assert broken == ([] if encryption in ALLOWED[privacy] else [(broken[0][0], 48)])
    assert (encryption in ALLOWED[privacy]) == (broken == [])


@pytest.mark.parametrize("privacy", [2, 4, 6, 255])
def test_an_unknown_privacy_level_is_named_at_its_offset(privacy: int) -> None:
    """PrivacyLevel is 0, 1, 3 or 5; another breaks MQMQ-2.2.19.3-4 at byte 40 of the header."""
    wire = encode_properties(MessageProperties(privacy_level=privacy))
    findings: list = []
    decode_properties(wire, 0, len(wire), findings)
    assert [(f.requirement, f.offset) for f in findings] == [("MQMQ-2.2.19.3-4", 40)]


@pytest.mark.parametrize(
    "queue",
    [
        QueueFormat(2, private_id=7),
        QueueFormat(5, guid=QM),
        QueueFormat(6, private_id=7, guid=QM),
        QueueFormat(3, private_id=4),
    ],
    ids=lambda queue: f"code-{queue.code}",
)
def test_a_queue_field_that_ends_exactly_at_the_packet_end_decodes(queue: QueueFormat) -> None:
    """A queue field needs its own bytes and no more (``decode_queue``'s bounds): it decodes
    when the packet ends right after it, and is refused one byte short."""
    wire = encode_queue(queue)
    assert decode_queue(wire, 0, len(wire), queue.code, 0) == (queue, len(wire))
    with pytest.raises(DecodeError):
        decode_queue(wire, 0, len(wire) - 1, queue.code, 0)


@pytest.mark.parametrize("code", [0, 1])
def test_a_queue_of_no_layout_encodes_to_nothing(code: int) -> None:
    """Code 0 (no queue) and 1 (the admin queue's again) carry no bytes of their own."""
    assert encode_queue(QueueFormat(code)) == b""
    assert decode_queue(b"", 0, 0, code, 0) == (None, 0)


@pytest.mark.parametrize(
    ("size", "refused_by"),
    [
        (16, None),
        (20, None),
        (0x00400000, None),
        (12, "MQMQ-2.2.19.1-3"),
        (18, "MQMQ-2.2.19.1-3"),
        (0x00400004, "MQMQ-2.2.19.1-4"),
    ],
)
def test_the_packet_size_bounds_of_a_base_header(size: int, refused_by: str | None) -> None:
    """PacketSize: a multiple of 4, at least the 16-byte BaseHeader, at most 0x00400000
    (``decode_base_header``); the bounds themselves are allowed."""
    wire = encode_base_header(BaseHeader(), size)
    if refused_by is None:
        header, end = decode_base_header(wire)
        assert (header.packet_size, end) == (size, 16)
    else:
        with pytest.raises(DecodeError) as refused:
            decode_base_header(wire)
        assert (refused.value.violation.requirement, refused.value.violation.offset) == (
            refused_by,
            8,
        )


def test_the_format_name_of_no_queue_is_empty_text() -> None:
    """``format_name`` gives "" (a string, never None) for an absent queue field and for the
    codes with no bytes of their own when there is no admin queue."""
    assert format_name(None, source=QM, destination=DST) == ""
    assert format_name(QueueFormat(0), source=QM, destination=DST) == ""
    assert format_name(QueueFormat(3, private_id=4), source=QM, destination=DST) == (
        f"PRIVATE={DST}\\4"
    )


def test_a_transaction_header_is_shown_field_by_field() -> None:
    """What ``mqcn decode --packet`` prints of a TransactionHeader: every field by name."""
    message = ack(0xFF, QueueFormat(3, private_id=4), final=False)
    message.transaction = TransactionHeader(
        flags=FA | FM | (5 << 4), sequence_ordinal=7, sequence_timestamp=8, sequence_number=3,
        previous_number=2,
    )  # fmt: skip
    assert packet_to_json(message)["transaction_header"] == {
        "flags": FA | FM | (5 << 4),
        "flag_bits": ["FA", "FM"],
        "transaction_id": 5,
        "sequence_id": {"ordinal": 7, "timestamp": 8},
        "sequence_number": 3,
        "previous_sequence_number": 2,
        "connector_qm": None,
    }


INTERNAL_BASE = {
    "version": 16,
    "reserved": 0,
    "flags": 8,
    "priority": 0,
    "flag_bits": ["IN"],
    "signature": "0x524f494c",
    "time_to_reach_queue": 0xFFFFFFFF,
}


def test_internal_packets_are_shown_field_by_field() -> None:
    """What ``mqcn decode --packet`` prints of a ConnectionParameters and an
    EstablishConnection Packet: every header and body field by name."""
    parameters, _ = decode_internal(encode_internal(connection_parameters(500, 20000, 64)))
    assert packet_to_json(parameters) == {
        "kind": "ConnectionParameters",
        "base_header": {**INTERNAL_BASE, "packet_size": 32},
        "internal_header": {
            "reserved": 0, "flags": 3, "packet_type": 3, "connection_refused": False
        },
        "connection_parameters": {
            "recoverable_ack_timeout": 500, "ack_timeout": 20000, "reserved": 0, "window_size": 64
        },
    }  # fmt: skip
    establish, _ = decode_internal(encode_internal(establish_connection(EstablishConnection(QM))))
    assert packet_to_json(establish) == {
        "kind": "EstablishConnection",
        "base_header": {**INTERNAL_BASE, "packet_size": 572},
        "internal_header": {
            "reserved": 0, "flags": 2, "packet_type": 2, "connection_refused": False
        },
        "establish_connection": {
            "client_guid": str(QM),
            "server_guid": str(NIL),
            "timestamp": 0,
            "operating_system": 0x110,
            "reserved": 0,
            "padding": "5a" * 512,
        },
    }  # fmt: skip


def test_ack_bodies_are_shown_field_by_field() -> None:
    final, _ = decode_user_message(
        encode_user_message(ack(0x4000, QueueFormat(3, private_id=4), final=True))
    )
    assert packet_to_json(final)["ack_body"] == {
        "sequence_id": {"ordinal": 7, "timestamp": 8},
        "sequence_number": 5,
        "previous_sequence_number": 4,
        "source_guid": str(QM),
        "message_id": 42,
    }
    order, _ = decode_user_message(
        encode_user_message(ack(0xFF, QueueFormat(3, private_id=4), final=False))
    )
    assert packet_to_json(order)["ack_body"] == {
        "sequence_id": {"ordinal": 7, "timestamp": 8},
        "sequence_number": 5,
        "previous_sequence_number": 4,
        "reserved": "00" * 20,
    }


def test_a_session_ack_is_shown_with_its_session_header() -> None:
    packet, _ = decode_internal(encode_internal(session_ack(SessionHeader(1, 2, 3, 4, 5, 64))))
    shown = packet_to_json(packet)
    assert (shown["kind"], shown["internal_header"]["packet_type"]) == ("SessionAck", 1)
    assert shown["session_header"] == {
        "ack_sequence_number": 1,
        "recoverable_msg_ack_seq_number": 2,
        "recoverable_msg_ack_flags": 3,
        "user_msg_sequence_number": 4,
        "recoverable_msg_seq_number": 5,
        "window_size": 64,
        "reserved": 0,
    }


def test_the_provider_of_a_security_header_is_its_type_and_terminated_name() -> None:
    """ProviderInfo: ProviderType (4 bytes), then a UTF-16 name up to its 0x0000 unit, read
    on 2-byte units only (``SecurityHeader.provider``)."""
    name = "Microsoft Base Cryptographic Provider v1.0"
    info = (1).to_bytes(4, "little") + name.encode("utf-16-le") + b"\x00\x00" + b"pad!"
    assert SecurityHeader(0, provider_info=info).provider == (1, name)
    odd = (24).to_bytes(4, "little") + "\u0100A".encode("utf-16-le") + b"\x00\x00"
    assert SecurityHeader(0, provider_info=odd).provider == (24, "\u0100A")
    unterminated = (1).to_bytes(4, "little") + "AB".encode("utf-16-le")
    assert SecurityHeader(0, provider_info=unterminated).provider is None


def test_a_sender_cert_size_above_16_bits_is_refused_at_its_field() -> None:
    """SenderCertSize is at most 0xFFFF (MQMQ-2.2.20.6-6, its field at byte 8), however many
    bytes follow."""
    fixed = struct.pack("<HHHHII", 0, 0, 0, 0, 0x10000, 0)
    for buf in (fixed, fixed + bytes(0x10000)):
        with pytest.raises(DecodeError) as refused:
            decode_security(buf, 0, len(buf))
        violation = refused.value.violation
        assert (violation.requirement, violation.offset) == ("MQMQ-2.2.20.6-6", 8)


def test_the_security_flags_are_shown_by_name() -> None:
    """Flags AU, EB, DE and AI by name in ``mqcn decode --packet``'s security header."""
    message = ack(0xFF, QueueFormat(3, private_id=4), final=False)
    for flag, name in ((1 << 4, "AU"), (1 << 5, "EB"), (1 << 6, "DE"), (1 << 7, "AI")):
        message.security = SecurityHeader(2 | flag, sender_id=QM.bytes_le)
        assert packet_to_json(message)["security_header"]["flag_bits"] == [name]


def security_findings(header: SecurityHeader) -> list[tuple[str, int | None]]:
    wire = encode_security(header)
    findings: list = []
    decode_security(wire, 0, len(wire), findings)
    return [(f.requirement, f.offset) for f in findings]


def test_a_sender_id_must_match_its_sender_id_type() -> None:
    """ST 0 carries no SecurityID, ST 2 a 16-byte QM GUID (MQMQ-2.2.20.6-2, at byte 16)."""
    assert security_findings(SecurityHeader(0, signature=b"sig!")) == []
    assert security_findings(SecurityHeader(0, sender_id=b"abcd")) == [("MQMQ-2.2.20.6-2", 16)]
    assert security_findings(SecurityHeader(2, sender_id=QM.bytes_le)) == []
    assert security_findings(SecurityHeader(2, sender_id=b"abcd")) == [("MQMQ-2.2.20.6-2", 16)]


SOAP_TO_THE_LETTER = (
    bytes.fromhex("2003000003000000") + "ab".encode("utf-16-le") + bytes(2)
    + bytes.fromhex("8403000002000000") + "c".encode("utf-16-le") + bytes(2) + bytes(2)
)  # fmt: skip


def test_a_soap_header_decoded_on_its_own_records_nothing_in_the_shared_reading() -> None:
    """``decode_soap`` without a Letter reads W-08's letter form but records it nowhere:
    ``READING`` is shared by every header decoded on its own and stays empty."""
    soap, _ = decode_soap(SOAP_TO_THE_LETTER, 0, len(SOAP_TO_THE_LETTER))
    assert (soap.header, soap.body) == ("ab", "c")
    assert READING.used == []
    letter = Letter()
    decode_soap(SOAP_TO_THE_LETTER, 0, len(SOAP_TO_THE_LETTER), letter=letter)
    assert [reading.errata for reading in letter.used] == ["W-08"]


def test_a_session_header_starts_with_nothing_acknowledged() -> None:
    """A SessionHeader given only some fields counts nothing else: every sequence number and
    flag 0, the window 64, Reserved 0."""
    assert SessionHeader() == SessionHeader(0, 0, 0, 0, 0, 0x40, 0)
    assert SessionHeader(window_size=8).ack_sequence == 0


def test_user_flags_composed_from_nothing_hold_only_mp() -> None:
    """``compose_user_flags`` sets only what it is given, and MP (a MessagePropertiesHeader,
    which every UserMessage has): no queue types, no other bit."""
    assert compose_user_flags() == 1 << 21  # MP
    assert compose_user_flags(properties=False) == 0
    only_delivery = UserHeader(QM, DST, 0, 0, 1, compose_user_flags(delivery=1))
    assert (only_delivery.dq, only_delivery.aq, only_delivery.rq, only_delivery.delivery) == (
        0,
        0,
        0,
        1,
    )


def test_a_private_message_without_encryption_is_named_at_its_privacy_level() -> None:
    """PrivacyLevel 1 with no SecurityHeader (so Flags.EB clear): the cross-check finding
    points at PrivacyLevel, byte 40 of the MessagePropertiesHeader."""
    message = ack(0xFF, QueueFormat(3, private_id=4), final=False)
    message.properties.privacy_level = 1
    message.properties.encryption_algorithm = 0x6801
    decoded, _ = decode_user_message(encode_user_message(message))
    found = [(f.requirement, f.offset) for f in decoded.findings]
    assert found == [(R_ENCRYPTED, decoded.properties.offset + 40)]


# --- the scapy layers and their bridge (issue 19 follow-up: packet_layers, layer_bridge) -------


def test_each_session_layer_default_is_the_struct_codecs_default() -> None:
    """A SessionHeader layer built from its defaults is the struct codec's default
    SessionHeader (mutant: the layer's WindowSize default off by one)."""
    from mqcn_model.wire.packet_layers import SessionHeader as SessionHeaderLayer
    from mqcn_model.wire.session import decode_session

    raw = bytes(SessionHeaderLayer())
    decoded, _ = decode_session(raw, 0, len(raw))
    assert decoded == SessionHeader()


def test_a_default_layer_dissects_to_its_own_defaults() -> None:
    """Every header layer whose fields all have defaults reads back, from the bytes it builds,
    the very values it was built from (mutant: CorrelationID's default shorter than its 20
    bytes, which the build pads and the dissection then shows as 20 zero bytes)."""
    from scapy.fields import ConditionalField, PacketField, PacketListField

    import mqcn_model.wire.packet_layers as layers

    checked = 0
    for name in dir(layers):
        cls = getattr(layers, name)
        if not (isinstance(cls, type) and issubclass(cls, layers._Header)) or cls is layers._Header:
            continue
        built = cls()
        again = cls(bytes(built))
        for field in cls.fields_desc:
            if isinstance(field, ConditionalField | PacketField | PacketListField):
                continue  # present only when a flag says so; a header of its own
            if field.default is None:
                continue  # computed when built (sizes, lengths)
            assert again.getfieldval(field.name) == built.getfieldval(field.name), (name, field)
        checked += 1
    assert checked >= 8


def test_an_internal_headers_reserved_bits_reach_the_layer() -> None:
    """The InternalHeader's Reserved field survives struct codec -> layer -> bytes
    (mutant: the bridge dropping it)."""
    from dataclasses import replace as replaced

    from mqcn_model.wire.layer_bridge import to_layer

    packet = connection_parameters(500, 20000, 64)
    odd = replaced(packet, internal=replaced(packet.internal, reserved=0x5A))
    assert bytes(to_layer(odd)) == encode_internal(odd)
    assert decode_internal(bytes(to_layer(odd)))[0].internal.reserved == 0x5A


def test_a_layer_that_did_not_dissect_whole_is_refused_by_its_own_name() -> None:
    """``from_layer`` refuses a broken packet layer first, naming that layer (mutant: the
    check of the whole packet deleted, leaving only the checks of its parts)."""
    from mqcn_model.wire.layer_bridge import from_layer
    from mqcn_model.wire.packet_layers import InternalPacketLayer

    whole = encode_internal(connection_parameters(500, 20000, 64))
    cut = InternalPacketLayer(whole[:20])  # the headers, and no body
    assert cut.broken
    with pytest.raises(ValueError, match="the InternalPacketLayer did not dissect completely"):
        from_layer(cut)


# --- issue 22: the internal packets' findings, by value and by byte -------------------------------


def _findings_of(wire: bytes) -> list[tuple[str, int | None]]:
    packet, _ = decode_internal(wire)
    return [(f.requirement, f.offset) for f in packet.findings]


@pytest.mark.parametrize(
    ("ack", "expected"),
    [
        (20000, []),
        (19999, [("MQQB-2.2.2.1-2", 24)]),
        (120000, []),
        (120001, [("MQQB-2.2.2.1-2", 24)]),
    ],
)
def test_ack_timeout_bounds_and_the_byte_a_finding_names(
    ack: int, expected: list[tuple[str, int]]
) -> None:
    """AckTimeout is 0x4E20..0x1D4C0 ms (2.2.2.1); a finding names byte 24, the field's own
    (mutants: the upper bound 120001, the offset 16 + 4 + 5)."""
    wire = encode_internal(connection_parameters(500, ack, 64))
    assert _findings_of(wire) == expected


def test_time_to_reach_queue_in_an_internal_packet_is_a_finding_at_byte_12() -> None:
    """(mutant: the finding naming byte 0 instead of TimeToReachQueue's byte 12)"""
    packet = connection_parameters(500, 20000, 64)
    wire = encode_internal(packet)
    wire = wire[:12] + struct.pack("<I", 300) + wire[16:]
    assert _findings_of(wire) == [("MQMQ-2.2.19.1-9", 12)]


# --- issue 22, third pass: the sample of wire/usermessage.py ----------------------------------


def _signed_packet() -> UserMessage:
    """A signed notification's UserMessage Packet (a SecurityHeader with a signature)."""
    return envelope_to_packet(envelope(3))


def test_findings_come_in_the_order_of_their_bytes() -> None:
    """Every finding of a packet is listed by its offset, whatever check found it first: the
    cross checks run last but may name earlier bytes.  (The mutant of ``_wire_order`` keeps
    the order they were found in.)"""
    message = _signed_packet()
    assert message.security is not None and message.security.signature
    properties = replace(message.properties, hash_algorithm=0x1234, privacy_level=1)
    raw = encode_user_message(finalize(replace(message, properties=properties)))
    decoded, _ = decode_user_message(raw)
    offsets = [f.offset for f in decoded.findings]
    assert len(offsets) >= 3 and offsets == sorted(offsets)
    at = decoded.properties.offset
    assert {at + 40, at + 44} <= set(offsets)  # PrivacyLevel (cross check), HashAlgorithm


def test_a_packet_inside_a_larger_buffer_decodes_with_its_base_header_given() -> None:
    """A framer hands the BaseHeader it decoded and the packet's offset in its buffer: the
    headers after it are read from there.  (The mutant that restarts at byte 16 of the
    buffer reads the wrong bytes.)"""
    raw = user_message(envelope(5))
    buf = b"\x00" * 24 + raw
    base, _ = decode_base_header(buf, 24)
    given, after = decode_user_message(buf, 24, base=base)
    alone, size = decode_user_message(raw)
    assert after == 24 + size and given.body == alone.body
    assert [f.requirement for f in given.findings] == [f.requirement for f in alone.findings]


def test_a_bytearray_packet_decodes_to_bytes_fields() -> None:
    """A packet given as a bytearray is read as bytes: its fields are bytes (hashable), as
    from a bytes input.  (The mutant that skips the conversion reads the same: the headers'
    decoders copy what they keep; documented as equivalent.)"""
    raw = user_message(envelope(6))
    decoded, _ = decode_user_message(bytearray(raw))
    assert type(decoded.body) is bytes and decoded.body == decode_user_message(raw)[0].body


def test_a_response_queue_code_of_one_is_kept_without_a_response_header() -> None:
    """``finalize`` keeps UserHeader.Flags.RQ 0x1 (the response queue is the admin queue, no
    header of its own) when the packet has no response queue; any other code without one
    becomes 0.  (The mutant that inverts the test keeps the others and drops 0x1.)"""
    message = _signed_packet()
    assert message.user.response is None
    for rq, kept in ((1, 1), (2, 0), (0, 0)):
        user = replace(message.user, flags=(message.user.flags & ~(7 << RQ_SHIFT)) | rq << RQ_SHIFT)
        final = finalize(replace(message, user=user))
        assert (final.user.flags >> RQ_SHIFT) & 7 == kept, rq


def test_only_the_letter_trials_that_can_matter_are_tried() -> None:
    """W-06 is tried only for RQ 0x1 or 0x4 and W-07 only with MQ; the flags are read when
    the buffer holds them, even when they are its last four bytes.  (The mutants that try
    every trial whatever the flags, or only once the buffer holds more, read the same but
    decode a refused packet up to eight times more.)"""
    at = BASE_HEADER_SIZE + USER_FIXED_SIZE - 4
    plain = bytes(at) + struct.pack("<I", 0)
    trials = _letter_trials(plain, 0)
    assert trials and not any("W-06" in t or "W-07" in t for t in trials)
    assert _letter_trials(plain[:-1], 0) == LETTER_TRIALS  # flags not there: every trial
    assert len(trials) < len(LETTER_TRIALS)
