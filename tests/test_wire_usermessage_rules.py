"""A UserMessage's queue names and headers as the wire codec reads and renders them, rule by
rule (queues.py, usermessage.py, render.py).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import replace

import pytest
from test_wire_codec import final_ack, order_ack
from test_wire_letter import LETTER_FORMS

from mqcn_model.errors import DecodeError
from mqcn_model.wire.acks import FinalAckBody, OrderAckBody
from mqcn_model.wire.base import BaseHeader
from mqcn_model.wire.common import Letter
from mqcn_model.wire.debug import DebugHeader
from mqcn_model.wire.internal import (
    EstablishConnection,
    InternalHeader,
    InternalPacket,
    Ping,
    connection_parameters,
    establish_connection,
    session_ack,
)
from mqcn_model.wire.mqf import MultiQueueFormat
from mqcn_model.wire.properties import MessageProperties
from mqcn_model.wire.queues import (
    AQ_CODES,
    CODE_NAMES,
    DQ_CODES,
    MQF_TYPE_NAMES,
    RQ_CODES,
    MQFElement,
    QueueFormat,
    decode_mqf_element,
    decode_queue,
    encode_mqf_element,
    encode_queue,
    format_name,
    mqf_element_name,
    parse_format_name,
)
from mqcn_model.wire.render import packet_to_json, queue_to_json
from mqcn_model.wire.security import DE, EB, ST_QM_GUID, ST_SID, SecurityHeader, sid_for_guid
from mqcn_model.wire.session import SessionHeader
from mqcn_model.wire.soap import SoapHeader, encode_soap
from mqcn_model.wire.transaction import TransactionHeader
from mqcn_model.wire.user import UserHeader, compose_user_flags
from mqcn_model.wire.usermessage import (
    LETTER_TRIALS,
    UserMessage,
    decode_user_message,
    encode_user_message,
    finalize,
)

QM = uuid.UUID("0f2c1e3a-1111-4222-8333-444455556666")
DST = uuid.UUID("9a8b7c6d-1234-4567-89ab-cdef01234567")
G1 = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")


def decoded(message: UserMessage) -> UserMessage:
    """``message`` finalized, written and read back (what ``mqcn decode --packet`` shows)."""
    packet, _ = decode_user_message(encode_user_message(finalize(message)))
    return packet


def user(flags: int = 0, **queues: object) -> UserHeader:
    return UserHeader(QM, DST, 600, 7, 42, flags, **queues)  # type: ignore[arg-type]


# --- render.py: the JSON view of ``mqcn decode --packet --json`` ---------------------------


def full_message() -> UserMessage:
    """A UserMessage with every optional header, each field a distinct value."""
    return UserMessage(
        BaseHeader(flags=0x100, time_to_reach_queue=300),
        user(
            compose_user_flags(hop_count=2, delivery=1, journal_positive=True),
            destination=QueueFormat(3, private_id=0x1A),
            admin=QueueFormat.private_on(G1, 0x2B),
            response=QueueFormat(4, private_id=5),
            connector_type=G1,
        ),
        MessageProperties(
            flags=0x3,
            label="L",
            correlation_id=bytes(range(20)),
            body_type=8,
            application_tag=9,
            hash_algorithm=0x800E,
            body=b"\x02\x01\x00",
        ),
        transaction=TransactionHeader(1, 2, 3, 4, 3, connector_qm=G1),
        security=SecurityHeader(ST_QM_GUID | DE, sender_id=QM.bytes_le, signature=b"\x01" * 8),
        debug=DebugHeader(flags=1, reserved=6, queue=G1),
        soap=SoapHeader("h", "b"),
        mqf=MultiQueueFormat(
            [MQFElement(1, guid=G1)],
            [MQFElement(2, guid=G1, private_id=10)],
            [MQFElement(3, direct="x"), MQFElement(6, guid=DST)],
            signature=b"s",
        ),
        session=SessionHeader(1, 2, 3, 4, 5, 64, 7),
    )


FULL_VIEW = {
    "kind": "UserMessage",
    "base_header": {
        "version": 16,
        "reserved": 0,
        "flags": 0x130,
        "priority": 0,
        "flag_bits": ["SH", "DH", "TR"],
        "signature": "0x524f494c",
        "packet_size": 408,
        "time_to_reach_queue": 300,
    },
    "user_header": {
        "source_queue_manager": str(QM),
        "queue_manager_address": str(DST),
        "time_to_be_received": 600,
        "sent_time": 7,
        "message_id": 42,
        "flags": 285003298,
        "hop_count": 2,
        "delivery": 1,
        "dq": 3,
        "aq": 6,
        "rq": 4,
        "flag_bits": ["JP", "SH", "TH", "MP", "CQ", "MQ", "HH"],
        "destination_queue": {
            "type": 3,
            "type_name": "PrivateQueueOnDestination",
            "private_id": 26,
            "guid": None,
            "direct": None,
            "format_name": f"PRIVATE={DST}\\1a",
        },
        "admin_queue": {
            "type": 6,
            "type_name": "PrivateQueueOnOther",
            "private_id": 43,
            "guid": str(G1),
            "direct": None,
            "format_name": f"PRIVATE={G1}\\2b",
        },
        "response_queue": {
            "type": 4,
            "type_name": "PrivateQueueOnAdmin",
            "private_id": 5,
            "guid": None,
            "direct": None,
            "format_name": f"PRIVATE={G1}\\5",
        },
        "connector_type": str(G1),
    },
    "transaction_header": {
        "flags": 1,
        "flag_bits": ["CG"],
        "transaction_id": 0,
        "sequence_id": {"ordinal": 2, "timestamp": 3},
        "sequence_number": 4,
        "previous_sequence_number": 3,
        "connector_qm": str(G1),
    },
    "security_header": {
        "flags": 66,
        "sender_id_type": 2,
        "sender_id_type_name": "QueueManagerIdentifier",
        "flag_bits": ["DE"],
        "authentication_signature": 0,
        "sender_id": QM.bytes_le.hex(),
        "sender": str(QM),
        "encryption_key": "",
        "signature": "01" * 8,
        "sender_cert": "",
        "provider_info": "",
        "provider": None,
    },
    "message_properties_header": {
        "flags": 3,
        "acknowledgments": ["PA", "PR"],
        "label_length": 2,
        "label": "L",
        "message_class": 0,
        "message_class_name": "Normal",
        "correlation_id": bytes(range(20)).hex(),
        "body_type": 8,
        "application_tag": 9,
        "message_size": 3,
        "allocation_body_size": 3,
        "privacy_level": 0,
        "privacy_level_name": "None",
        "hash_algorithm": 0x800E,
        "hash_algorithm_name": "SHA512",
        "encryption_algorithm": 0,
        "encryption_algorithm_name": None,
        "extension": "",
        "body": "020100",
        "body_slack": "",
    },
    "debug_header": {"flags": 1, "queue_type": 1, "reserved": 6, "queue_identifier": str(G1)},
    "srmp_envelope_header": None,  # the [MS-MQRR] 2.2.5 headers: tests/test_wire_real_senders.py
    "compound_message_header": None,
    "soap_header": {"header": "h", "body": "b"},
    "multi_queue_format_header": {
        "destination": [
            {"format_type": 1, "format_type_name": "public", "format_name": f"PUBLIC={G1}"}
        ],
        "administration": [
            {"format_type": 2, "format_type_name": "private", "format_name": f"PRIVATE={G1}\\a"}
        ],
        "response": [
            {"format_type": 3, "format_type_name": "direct", "format_name": "DIRECT=x"},
            {"format_type": 6, "format_type_name": "dl", "format_name": f"DL={DST}"},
        ],
        "signature": "73",
    },
    "extensions": None,
    "session_header": {
        "ack_sequence_number": 1,
        "recoverable_msg_ack_seq_number": 2,
        "recoverable_msg_ack_flags": 3,
        "user_msg_sequence_number": 4,
        "recoverable_msg_seq_number": 5,
        "window_size": 64,
        "reserved": 7,
    },
    "ack_body": None,
    "letter": [],
}


def test_the_json_view_names_every_field_of_every_header() -> None:
    """``mqcn decode --packet --json``: each header under its name, each field under its key,
    GUIDs as text, bytes as hex, Flags raw and taken apart into their named bits."""
    view = packet_to_json(decoded(full_message()))
    assert view == FULL_VIEW
    assert json.loads(json.dumps(view)) == FULL_VIEW


def test_the_json_view_of_a_bare_message_has_null_for_each_absent_header() -> None:
    view = packet_to_json(decoded(UserMessage(BaseHeader(), user(), MessageProperties())))
    absent = (
        "transaction_header",
        "security_header",
        "debug_header",
        "srmp_envelope_header",
        "compound_message_header",
        "soap_header",
        "multi_queue_format_header",
        "extensions",
        "session_header",
        "ack_body",
    )
    assert {key: view[key] for key in absent} == dict.fromkeys(absent)
    header = view["user_header"]
    assert (header["destination_queue"], header["admin_queue"], header["response_queue"]) == (
        None,
        None,
        None,
    )
    assert header["connector_type"] is None
    assert view["base_header"]["priority"] == 3 and view["base_header"]["flag_bits"] == []


def test_a_response_queue_same_as_the_administration_queue_is_shown_with_its_name() -> None:
    """[MS-MQMQ] 2.2.19.2: RQ 1 carries no bytes; the response queue is the admin queue."""
    message = UserMessage(
        BaseHeader(),
        user(compose_user_flags(rq=1), admin=QueueFormat.public(G1)),
        MessageProperties(),
    )
    header = packet_to_json(decoded(message))["user_header"]
    assert header["rq"] == 1
    assert header["response_queue"] == {"type": 1, "format_name": f"PUBLIC={G1}"}


def test_a_private_queue_on_the_source_is_named_with_the_source_queue_manager() -> None:
    """[MS-MQMQ] 2.2.19.2: AQ 2 (PrivateQueueOnSource) is hosted by SourceQueueManager."""
    message = UserMessage(
        BaseHeader(), user(admin=QueueFormat(2, private_id=0x10)), MessageProperties()
    )
    shown = packet_to_json(decoded(message))["user_header"]["admin_queue"]
    assert (shown["type_name"], shown["format_name"]) == (
        "PrivateQueueOnSource",
        f"PRIVATE={QM}\\10",
    )


def test_a_direct_response_queue_is_shown_with_its_own_name() -> None:
    message = UserMessage(
        BaseHeader(),
        user(admin=QueueFormat.public(G1), response=QueueFormat.direct_name("OS:h\\q")),
        MessageProperties(),
    )
    shown = packet_to_json(decoded(message))["user_header"]["response_queue"]
    assert shown == {
        "type": 7,
        "type_name": "DirectQueue",
        "private_id": None,
        "guid": None,
        "direct": "OS:h\\q",
        "format_name": "DIRECT=OS:h\\q",
    }


def test_a_lone_surrogate_in_a_name_is_shown_as_valid_json_text() -> None:
    """A direct name is UTF-16LE on the wire: an unpaired surrogate becomes U+FFFD in JSON."""
    shown = queue_to_json(QueueFormat.direct_name("a\ud800"), "DIRECT=a\ud800")
    assert shown is not None
    assert (shown["direct"], shown["format_name"]) == ("a\ufffd", "DIRECT=a\ufffd")
    assert json.dumps(shown, ensure_ascii=False).encode("utf-8")
    assert queue_to_json(None, "") is None


def test_a_custom_class_and_unknown_algorithms_have_no_invented_names() -> None:
    properties = MessageProperties(
        message_class=0x0101, privacy_level=3, encryption_algorithm=0x660E, hash_algorithm=1
    )
    message = UserMessage(BaseHeader(), user(), properties)
    shown = packet_to_json(message)["message_properties_header"]
    assert shown["message_class_name"] == "custom"
    assert (shown["privacy_level_name"], shown["encryption_algorithm_name"]) == (
        "Enhanced",
        "AES128",
    )
    assert shown["hash_algorithm_name"] is None


@pytest.mark.parametrize(
    ("flags", "sender_id", "sender"),
    [
        (ST_QM_GUID, QM.bytes_le, str(QM)),
        (ST_QM_GUID, QM.bytes_le[:15], None),  # not a GUID: no sender text
        # S-1-5-21 and QM's GUID as four little-endian sub-authorities
        (ST_SID, sid_for_guid(QM), "S-1-5-21-254549562-1109528849-1145320323-1717982549"),
        (ST_SID, b"\x02" + bytes(7), None),  # not a SID: no sender text
        (0, sid_for_guid(QM), None),  # SenderIdType None: the bytes name nobody
        (ST_QM_GUID, sid_for_guid(QM), None),  # a SID under the GUID type: not read as one
    ],
)
def test_the_sender_is_named_only_when_its_id_is_what_its_type_says(
    flags: int, sender_id: bytes, sender: str | None
) -> None:
    header = SecurityHeader(flags, sender_id=sender_id)
    message = UserMessage(BaseHeader(), user(), MessageProperties(), security=header)
    shown = packet_to_json(message)["security_header"]
    assert shown["sender"] == sender and shown["sender_id"] == sender_id.hex()


def test_the_provider_is_shown_with_its_type_and_name() -> None:
    info = (3).to_bytes(4, "little") + "Mi\ud800".encode("utf-16-le", "surrogatepass")
    header = SecurityHeader(0, provider_info=info + b"\x00\x00")
    message = UserMessage(BaseHeader(), user(), MessageProperties(), security=header)
    assert packet_to_json(message)["security_header"]["provider"] == {
        "type": 3,
        "name": "Mi\ufffd",
    }


def test_acknowledgment_bodies_are_shown_field_by_field() -> None:
    """[MS-MQQB] 2.2.4.1 / 2.2.5.1: an OrderAck's Reserved, a FinalAck's source and ID."""
    message = UserMessage(BaseHeader(), user(), MessageProperties())
    message.ack = OrderAckBody(1, 2, 3, 4, bytes([9]) * 20)
    assert packet_to_json(message)["ack_body"] == {
        "sequence_id": {"ordinal": 1, "timestamp": 2},
        "sequence_number": 3,
        "previous_sequence_number": 4,
        "reserved": "09" * 20,
    }
    message.ack = FinalAckBody(5, 6, 7, 8, QM, 42)
    assert packet_to_json(message)["ack_body"] == {
        "sequence_id": {"ordinal": 5, "timestamp": 6},
        "sequence_number": 7,
        "previous_sequence_number": 8,
        "source_guid": str(QM),
        "message_id": 42,
    }


def test_internal_packets_are_shown_with_their_body() -> None:
    """[MS-MQQB] 2.2.1-2.2.3, 2.2.6: the InternalHeader and the body its PacketType names."""
    view = packet_to_json(connection_parameters(500, 20000, 64))
    assert view["kind"] == "ConnectionParameters"
    assert view["internal_header"] == {
        "reserved": 0,
        "flags": 3,
        "packet_type": 3,
        "connection_refused": False,
    }
    assert view["connection_parameters"] == {
        "recoverable_ack_timeout": 500,
        "ack_timeout": 20000,
        "reserved": 0,
        "window_size": 64,
    }
    assert view["base_header"]["flag_bits"] == ["IN"]
    establish = establish_connection(
        EstablishConnection(QM, DST, 99, 0x11, 5, b"\x5a\x01"), refused=True
    )
    view = packet_to_json(establish)
    assert view["internal_header"]["connection_refused"] is True
    assert view["establish_connection"] == {
        "client_guid": str(QM),
        "server_guid": str(DST),
        "timestamp": 99,
        "operating_system": 0x11,
        "reserved": 5,
        "padding": "5a01",
    }
    view = packet_to_json(session_ack(SessionHeader(1, 2, 3, 4, 5, 64, 7)))
    assert view["session_header"]["reserved"] == 7
    assert "connection_parameters" not in view and "establish_connection" not in view
    bare = InternalPacket(BaseHeader(flags=8), InternalHeader(9, reserved=2), None)  # type: ignore[arg-type]
    assert packet_to_json(bare) == {
        "kind": "PT 9",
        "base_header": packet_to_json(bare)["base_header"],
        "internal_header": {
            "reserved": 2,
            "flags": 9,
            "packet_type": 9,
            "connection_refused": False,
        },
    }


def test_a_ping_is_shown_with_its_signature_in_hex() -> None:
    assert packet_to_json(Ping(1, 77, QM, signature=0x48)) == {
        "kind": "Ping",
        "flags": 1,
        "signature": "0x0048",
        "cookie": 77,
        "qm_guid": str(QM),
    }


# --- usermessage.py: reading and judging one packet ([MS-MQMQ] 2.2.19-2.2.20) ---------------

PREFIX = b"\xaa" * 4  # the packet starts 4 bytes into the buffer: offsets are the buffer's


def simple(**headers: object) -> UserMessage:
    """A finalized UserMessage to PRIVATE=<DST>\\3 with no optional header unless given."""
    message = UserMessage(
        BaseHeader(), user(destination=QueueFormat(3, private_id=3)), MessageProperties()
    )
    return finalize(replace(message, **headers))  # type: ignore[arg-type]


def refusal(wire: bytes) -> tuple[str, int | None, str]:
    with pytest.raises(DecodeError) as refused:
        decode_user_message(PREFIX + wire, len(PREFIX))
    return refused.value.requirement, refused.value.offset, refused.value.violation.message


def judged(wire: bytes) -> list[tuple[str, int | None, str]]:
    packet, end = decode_user_message(PREFIX + wire, len(PREFIX))
    assert end == len(PREFIX) + len(wire)
    return [(f.requirement, f.offset, f.message) for f in packet.findings]


def edited(wire: bytes, at: int, value: int) -> bytes:
    """``wire`` with byte ``at`` OR-ed with ``value``."""
    out = bytearray(wire)
    out[at] |= value
    return bytes(out)


def test_a_packet_with_flags_in_is_refused_as_internal_at_its_flags() -> None:
    """MQMQ-2.2.20-1: a UserMessage Packet has BaseHeader.Flags.IN (bit 3) clear."""
    wire = edited(encode_user_message(simple()), 2, 0x08)
    assert refusal(wire) == (
        "MQMQ-2.2.20-1",
        4 + 2,
        "BaseHeader.Flags.IN is set: an internal packet",
    )


def test_a_packet_cut_before_its_packet_size_is_refused_saying_how_many_bytes_came() -> None:
    """MQMQ-2.2.19.1-3: PacketSize covers the bytes given (offset: the PacketSize field)."""
    wire = encode_user_message(simple())
    assert len(wire) == 124
    assert refusal(wire[:-4]) == (
        "MQMQ-2.2.19.1-3",
        4 + 8,
        "PacketSize is 124 but 120 bytes are given",
    )
    assert judged(wire) == []  # exactly PacketSize bytes: read


def test_a_packet_size_larger_than_its_headers_is_a_finding_at_the_uncovered_bytes() -> None:
    """Bytes inside PacketSize that no announced header covers (and that are no extension
    chain) are a finding with both sizes; the packet is decoded all the same."""
    wire = bytearray(encode_user_message(simple()) + bytes(4))
    wire[8] += 4  # PacketSize 128, the headers 124
    packet, end = decode_user_message(bytes(wire))
    assert end == 128 and packet.properties == simple().properties
    assert [str(f) for f in packet.findings] == [
        "MQMQ-2.2.19.1-3 at byte 124: 4 bytes at offset 124 that no announced header covers "
        "(PacketSize is 128, the headers take 124)"
    ]


def test_a_session_header_announced_but_missing_is_refused_at_packet_size_end() -> None:
    """BaseHeader.Flags.SH: 16 bytes of SessionHeader follow PacketSize's bytes."""
    wire = edited(encode_user_message(simple()), 2, 0x10)
    message = (
        "MQMQ-2.2.19.1-3",
        4 + 124,
        "BaseHeader.Flags.SH is set but the SessionHeader after PacketSize is missing",
    )
    assert refusal(wire) == message
    assert refusal(wire + bytes(15)) == message
    packet, end = decode_user_message(PREFIX + wire + bytes(16) + b"next", len(PREFIX))
    assert packet.session == SessionHeader(window_size=0) and end == 4 + 124 + 16


def test_a_decoded_base_header_given_by_the_framer_is_not_read_again() -> None:
    wire = encode_user_message(simple())
    packet, _ = decode_user_message(PREFIX + wire, len(PREFIX))
    again, end = decode_user_message(PREFIX + wire, len(PREFIX), base=packet.base)
    assert again == packet and end == len(PREFIX) + len(wire)
    # the caller's BaseHeader is the one judged: its IN bit refuses the packet
    internal = replace(packet.base, flags=packet.base.flags | 0x08)
    with pytest.raises(DecodeError, match="internal packet"):
        decode_user_message(PREFIX + wire, len(PREFIX), base=internal)


def test_bytearray_and_memoryview_buffers_are_read_as_bytes() -> None:
    wire = PREFIX + encode_user_message(simple())
    expected = decode_user_message(wire, 4)
    assert decode_user_message(bytearray(wire), 4) == expected
    assert decode_user_message(memoryview(wire), 4) == expected


@pytest.mark.parametrize(
    ("message", "finding"),
    [
        (
            replace(simple(), base=BaseHeader(flags=0x100 | 3)),
            ("MQMQ-2.2.19.1-5", 4 + 2, "Flags.TR is set without Flags.DH"),
        ),
        (
            replace(
                simple(transaction=TransactionHeader()),
                base=BaseHeader(flags=5),
            ),
            ("MQMQ-2.2.19.1-7", 4 + 2, "a transactional message has priority 5, not 0"),
        ),
        (
            simple(properties=MessageProperties(flags=0x5)),
            (
                "MQMQ-2.2.19.2-9",
                4 + 68,
                "acknowledgments 0x5 are requested but no administration queue is named",
            ),
        ),
        (
            simple(
                properties=MessageProperties(hash_algorithm=0x1234),
                security=SecurityHeader(ST_QM_GUID, sender_id=QM.bytes_le, signature=b"x"),
            ),
            ("MQMQ-2.2.19.3-8", 4 + 104 + 44, "the message is signed but HashAlgorithm is 0x1234"),
        ),
        (
            simple(security=SecurityHeader(ST_QM_GUID | EB, sender_id=QM.bytes_le)),
            (
                "MQDMPR-3.1.7.1.32-1",
                4 + 100 + 40,
                "PrivacyLevel is 0 but SecurityHeader.Flags.EB is set",
            ),
        ),
        (
            simple(properties=MessageProperties(privacy_level=1, encryption_algorithm=0x6602)),
            (
                "MQDMPR-3.1.7.1.32-1",
                4 + 68 + 40,
                "PrivacyLevel is 1 but SecurityHeader.Flags.EB is clear or absent",
            ),
        ),
    ],
    ids=["trace-without-debug", "transactional-priority", "acks-without-admin", "hash", "eb", "pl"],
)
def test_a_broken_value_rule_is_one_finding_with_its_byte_and_words(
    message: UserMessage, finding: tuple[str, int, str]
) -> None:
    """[MS-MQMQ] 2.2.19.1-2.2.19.3, [MS-MQDMPR] 3.1.7.1.32: the packet is read all the same."""
    found = judged(encode_user_message(message))
    assert finding in found
    assert [f for f in found if f[0] == finding[0]] == [finding]


@pytest.mark.parametrize(
    "message",
    [
        replace(simple(), base=BaseHeader(flags=0x100 | 0x20 | 3), debug=DebugHeader()),
        replace(
            simple(
                transaction=TransactionHeader(),
                user=user(compose_user_flags(delivery=1), destination=QueueFormat(3, private_id=3)),
            ),
            base=BaseHeader(flags=0),
        ),
        simple(
            properties=MessageProperties(flags=0x5),
            user=user(
                compose_user_flags(aq=3),
                destination=QueueFormat(3, private_id=3),
                admin=QueueFormat(3, private_id=9),
            ),
        ),
        simple(
            properties=MessageProperties(hash_algorithm=0x800E),
            security=SecurityHeader(ST_QM_GUID, sender_id=QM.bytes_le, signature=b"x"),
        ),
        simple(properties=MessageProperties(hash_algorithm=0x1234)),  # unsigned: any hash
        simple(
            properties=MessageProperties(privacy_level=1, encryption_algorithm=0x6602),
            security=SecurityHeader(ST_QM_GUID | EB, sender_id=QM.bytes_le, encryption_key=b"k"),
        ),
    ],
    ids=["trace-with-debug", "transactional-0", "acks-with-admin", "hash", "unsigned", "eb-pl"],
)
def test_the_unbroken_forms_of_the_value_rules_have_no_finding(message: UserMessage) -> None:
    assert judged(encode_user_message(finalize(message))) == []


def test_findings_are_given_in_wire_order() -> None:
    """The cross-header rules are judged last but listed at their byte, among the others."""
    message = simple(
        properties=MessageProperties(flags=0x5, privacy_level=1, encryption_algorithm=0x6602),
        session=SessionHeader(window_size=0),
    )
    found = judged(encode_user_message(message) + b"")
    offsets = [offset for _, offset, _ in found]
    assert offsets == sorted(offsets) and len(found) >= 3
    assert [requirement for requirement, _, _ in found][:2] == [
        "MQMQ-2.2.19.2-9",
        "MQDMPR-3.1.7.1.32-1",
    ]


# --- finalize and encode_user_message: the flags say which headers follow --------------------

ALL_HEADERS = {
    "transaction": TransactionHeader(),
    "security": SecurityHeader(ST_QM_GUID, sender_id=QM.bytes_le),
    "debug": DebugHeader(),
    "soap": SoapHeader("h", "b"),
    "mqf": MultiQueueFormat([MQFElement(1, guid=G1)]),
    "session": SessionHeader(),
}
BARE = UserMessage(BaseHeader(flags=0), user(), MessageProperties())


@pytest.mark.parametrize(
    ("header", "base_bits", "user_bits"),
    [
        ("transaction", 0, 1 << 20),
        ("security", 0, 1 << 19),
        ("debug", 0x20, 0),
        ("soap", 0, 1 << 28),
        ("mqf", 0, 1 << 23),
        ("session", 0x10, 0),
    ],
)
def test_finalize_sets_the_presence_bit_of_each_header_and_only_its(
    header: str, base_bits: int, user_bits: int
) -> None:
    """[MS-MQMQ] 2.2.20: BaseHeader.Flags SH/DH and UserHeader.Flags TH/SH/HH/MQ announce the
    headers present; MP is always set (the header is always there)."""
    message = finalize(replace(BARE, **{header: ALL_HEADERS[header]}))  # type: ignore[arg-type]
    assert message.base.flags == base_bits
    assert message.user.flags == user_bits | (1 << 21)
    assert finalize(BARE).user.flags == 1 << 21 and finalize(BARE).base.flags == 0


def test_finalize_clears_the_bits_of_absent_headers_and_keeps_every_other_bit() -> None:
    kept_user = compose_user_flags(
        hop_count=3, delivery=1, journal_negative=True, http=True, reserved=1 << 7
    )
    message = replace(
        BARE,
        base=BaseHeader(flags=0x100 | 0x30 | 2),  # TR, SH, DH, priority 2
        user=user(kept_user | (0x7 << 10) | (1 << 19) | (1 << 20) | (1 << 23) | (1 << 28)),
    )
    final = finalize(message)
    assert final.base.flags == 0x102
    assert final.user.flags == kept_user | (1 << 21)
    everything = finalize(replace(message, **ALL_HEADERS, user=user(kept_user, connector_type=G1)))  # type: ignore[arg-type]
    assert everything.base.flags == 0x132
    assert everything.user.flags == kept_user | sum(1 << bit for bit in (19, 20, 21, 22, 23, 28))
    assert encode_user_message(everything)  # a finalized packet encodes


@pytest.mark.parametrize(
    ("queues", "rq_flags", "codes"),
    [
        ({"destination": QueueFormat(3, private_id=1)}, 0, {"dq": 3, "aq": 0, "rq": 0}),
        ({"destination": QueueFormat.public(G1)}, 0, {"dq": 5, "aq": 0, "rq": 0}),
        ({"admin": QueueFormat(2, private_id=1)}, 0, {"dq": 0, "aq": 2, "rq": 0}),
        ({"admin": QueueFormat.private_on(G1, 1)}, 0, {"dq": 0, "aq": 6, "rq": 0}),
        ({"response": QueueFormat.direct_name("q")}, 0, {"dq": 0, "aq": 0, "rq": 7}),
        ({"response": QueueFormat(4, private_id=1)}, 0, {"dq": 0, "aq": 0, "rq": 4}),
        # RQ 1 (same as the administration queue) has no field: the code is kept as it is
        ({"admin": QueueFormat.public(G1)}, 1, {"dq": 0, "aq": 5, "rq": 1}),
        # any other RQ without a response queue is cleared
        ({}, 4, {"dq": 0, "aq": 0, "rq": 0}),
        ({}, 7, {"dq": 0, "aq": 0, "rq": 0}),
        ({"response": QueueFormat(3, private_id=1)}, 1, {"dq": 0, "aq": 0, "rq": 3}),
    ],
)
def test_finalize_writes_the_queue_type_codes_of_the_queues_present(
    queues: dict[str, QueueFormat], rq_flags: int, codes: dict[str, int]
) -> None:
    """[MS-MQMQ] 2.2.19.2: Flags.DQ (bits 10-12), AQ (13-15) and RQ (16-18) type the queues."""
    message = finalize(replace(BARE, user=user((rq_flags << 16) | (0x3F << 10), **queues)))
    header = message.user
    assert {"dq": header.dq, "aq": header.aq, "rq": header.rq} == codes
    assert header.flags & ~(0x1FF << 10) == 1 << 21


PAIRS = [
    ("session", "BaseHeader.Flags.SH", ("base", 0x10)),
    ("debug", "BaseHeader.Flags.DH", ("base", 0x20)),
    ("transaction", "UserHeader.Flags.TH", ("user", 1 << 20)),
    ("security", "UserHeader.Flags.SH", ("user", 1 << 19)),
    ("soap", "UserHeader.Flags.HH", ("user", 1 << 28)),
    ("mqf", "UserHeader.Flags.MQ", ("user", 1 << 23)),
]


@pytest.mark.parametrize(("header", "name", "bit"), PAIRS)
def test_encoding_refuses_flags_that_disagree_with_the_headers_present(
    header: str, name: str, bit: tuple[str, int]
) -> None:
    """What the encoder tells a test author who built the flags by hand."""
    present = finalize(replace(BARE, **{header: ALL_HEADERS[header]}))  # type: ignore[arg-type]
    field, value = bit
    part = getattr(present, field)
    cleared = replace(present, **{field: replace(part, flags=part.flags & ~value)})
    with pytest.raises(ValueError) as refused:
        encode_user_message(cleared)
    assert str(refused.value) == f"{name} is clear but the header is present"
    bare = finalize(BARE)
    part = getattr(bare, field)
    flagged = replace(bare, **{field: replace(part, flags=part.flags | value)})
    with pytest.raises(ValueError) as refused:
        encode_user_message(flagged)
    assert str(refused.value) == f"{name} is set but the header is absent"


def test_encoding_refuses_an_internal_packet_and_a_missing_properties_header() -> None:
    with pytest.raises(ValueError) as refused:
        encode_user_message(replace(finalize(BARE), base=BaseHeader(flags=0x08)))
    assert str(refused.value) == "a UserMessage Packet has BaseHeader.Flags.IN clear"
    with pytest.raises(ValueError) as refused:
        encode_user_message(BARE)
    assert str(refused.value) == (
        "UserHeader.Flags.MP is clear: the fast codec always writes the header"
    )


def test_the_headers_are_written_in_wire_order_and_packet_size_excludes_the_session() -> None:
    """[MS-MQMQ] 2.2.20: Base, User, Transaction, Security, Properties, Debug, Soap, MQF;
    the SessionHeader follows PacketSize's bytes."""
    message = finalize(replace(BARE, **ALL_HEADERS))  # type: ignore[arg-type]
    wire = encode_user_message(message)
    size = int.from_bytes(wire[8:12], "little")
    assert len(wire) == size + 16
    packet, end = decode_user_message(wire)
    assert packet == message and end == len(wire)


# --- queues.py: the UserHeader queue fields ([MS-MQMQ] 2.2.19.2, 2.2.18.1.5) -----------------


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


G1_LE = "33221100554477668899aabbccddeeff"


@pytest.mark.parametrize(
    ("code", "wire", "queue", "layout", "name"),
    [
        (0, "", None, "none", "None"),
        (1, "", None, "same-as-admin", "SameAsAdministrationQueue"),
        (2, "2a000000", QueueFormat(2, private_id=0x2A), "private-id", "PrivateQueueOnSource"),
        (3, "2a000000", QueueFormat(3, private_id=0x2A), "private-id", "PrivateQueueOnDestination"),
        (4, "2a000000", QueueFormat(4, private_id=0x2A), "private-id", "PrivateQueueOnAdmin"),
        (5, G1_LE, QueueFormat(5, guid=G1), "public", "PublicQueue"),
        (6, G1_LE + "2a000000", QueueFormat(6, 0x2A, G1), "private", "PrivateQueueOnOther"),
        (7, "0600 6100 6200 0000", QueueFormat(7, direct="ab"), "direct", "DirectQueue"),
    ],
)
def test_each_queue_type_code_has_its_layout_and_bytes(
    code: int, wire: str, queue: QueueFormat | None, layout: str, name: str
) -> None:
    """[MS-MQMQ] 2.2.19.2 / [MS-MQDMPR] 3.1.1.12: the 3-bit code picks the layout and name."""
    raw = h(wire)
    buf = b"\xee" * 4 + raw + b"\xee" * 4
    assert decode_queue(buf, 4, len(buf), code, 0) == (queue, 4 + len(raw))
    assert QueueFormat(code).layout == layout and CODE_NAMES[code] == name
    assert encode_queue(queue) == raw
    assert encode_queue(QueueFormat(code, 0x2A, G1, "ab")) == raw


def test_the_queue_constructors_give_their_codes() -> None:
    assert QueueFormat.private_number(2, 9) == QueueFormat(2, private_id=9)
    assert QueueFormat.public(G1) == QueueFormat(5, guid=G1)
    assert QueueFormat.private_on(G1, 9) == QueueFormat(6, private_id=9, guid=G1)
    assert QueueFormat.direct_name("q") == QueueFormat(7, direct="q")
    assert (sorted(DQ_CODES), sorted(AQ_CODES), sorted(RQ_CODES)) == (
        [0, 3, 5, 7],
        [0, 2, 3, 5, 6, 7],
        list(range(8)),
    )


@pytest.mark.parametrize(
    ("name", "at", "header_start", "after"),
    [
        ("abc", 0, 0, 12),  # 2 + 8 bytes, padded to 12 from the UserHeader's start
        ("abc", 4, 0, 16),
        ("abc", 4, 2, 14),  # the UserHeader starts at byte 2: padded to its own boundary
        ("ab", 0, 0, 8),  # 2 + 6 bytes: already on the boundary
        ("a\ud800", 0, 0, 8),  # a lone surrogate is kept as it is
    ],
)
def test_a_direct_name_is_padded_to_4_bytes_from_the_user_headers_start(
    name: str, at: int, header_start: int, after: int
) -> None:
    """[MS-MQMQ] 2.2.18.1.5.2: Count, the UTF-16LE name with its terminator, padding."""
    body = encode_queue(QueueFormat.direct_name(name))
    count = int.from_bytes(body[:2], "little")
    buf = bytes(at) + body[: 2 + count] + bytes(8)
    queue, end = decode_queue(buf, at, after, 7, header_start)
    assert (queue, end) == (QueueFormat(7, direct=name), after)
    assert len(body) % 4 == 0 and body[2 + count :] == bytes(len(body) - 2 - count)


@pytest.mark.parametrize(
    ("code", "wire", "end", "requirement", "offset", "words"),
    [
        (2, "2a0000", 3, "MQMQ-2.2.19.1-3", 0, "the admin queue number needs 4 bytes, 3 left"),
        (5, G1_LE[:30], 15, "MQMQ-2.2.19.1-3", 0, "the admin queue GUID needs 16 bytes, 15 left"),
        (
            6,
            G1_LE + "2a0000",
            19,
            "MQMQ-2.2.19.1-3",
            0,
            "the admin private queue needs 20 bytes, 19 left",
        ),
        (7, "06", 1, "MQMQ-2.2.19.1-3", 0, "the admin direct name Count needs 2 bytes, 1 left"),
        (7, "0000", 2, "MQMQ-2.2.18.1.5.2-1", 0, "admin direct name Count is 0, not an even >= 2"),
        (
            7,
            "0300 61",
            3,
            "MQMQ-2.2.18.1.5.2-1",
            0,
            "admin direct name Count is 3, not an even >= 2",
        ),
        (
            7,
            "0600 6100 6200",
            6,
            "MQMQ-2.2.18.1.5.2-1",
            0,
            "admin direct name Count 6 runs past the packet",
        ),
        (
            7,
            "0600 6100 6200 0100",
            8,
            "MQMQ-2.2.18.1.5.2-1",
            6,
            "admin direct name does not end in 0x0000",
        ),
        (
            7,
            "0800 6100 6200 6300 0000",
            10,
            "MQMQ-2.2.19.1-3",
            12,
            "the admin direct name padding needs 0 bytes, 0 left",
        ),
    ],
)
def test_a_queue_field_that_does_not_fit_is_refused_naming_it(
    code: int, wire: str, end: int, requirement: str, offset: int, words: str
) -> None:
    """[MS-MQMQ] 2.2.19.1 PacketSize bounds each field; 2.2.18.1.5.2 a direct name's Count."""
    with pytest.raises(DecodeError) as refused:
        decode_queue(h(wire) + bytes(32), 0, end, code, 0, what="admin")
    assert (refused.value.requirement, refused.value.offset) == (requirement, offset)
    assert refused.value.violation.message == words


def test_a_direct_name_count_of_2_is_the_empty_name() -> None:
    assert decode_queue(h("0200 0000"), 0, 4, 7, 0) == (QueueFormat(7, direct=""), 4)
    with pytest.raises(DecodeError, match=r"^MQMQ-2\.2\.19\.1-3.*the queue direct name padding"):
        decode_queue(h("0400 6100 0000"), 0, 7, 7, 0)


@pytest.mark.parametrize(
    ("queue", "words"),
    [
        (QueueFormat(2), "queue type 2 needs a private queue number"),
        (QueueFormat(4), "queue type 4 needs a private queue number"),
        (QueueFormat(5), "a public queue needs its GUID"),
        (
            QueueFormat(6, private_id=1),
            "a PrivateQueueFormatName needs a host GUID and a queue number",
        ),
        (QueueFormat(6, guid=G1), "a PrivateQueueFormatName needs a host GUID and a queue number"),
        (QueueFormat(7), "a direct queue needs its name"),
        (QueueFormat(7, direct="x" * 0x7FFF), "a direct name's Count is 16 bits"),
    ],
)
def test_encoding_a_queue_without_the_values_its_layout_needs_is_refused(
    queue: QueueFormat, words: str
) -> None:
    with pytest.raises(ValueError) as refused:
        encode_queue(queue)
    assert str(refused.value) == words


def test_the_longest_direct_name_fits_its_16_bit_count() -> None:
    wire = encode_queue(QueueFormat(7, direct="x" * 0x7FFE))
    assert wire[:2] == b"\xfe\xff" and len(wire) == 2 + 0xFFFE  # 2 + 65534: on the boundary
    assert encode_queue(None) == b""


# --- the MQFFormatNameElement ([MS-MQMQ] 2.2.18.1.4) -----------------------------------------


@pytest.mark.parametrize(
    ("element", "position", "wire"),
    [
        (MQFElement(1, guid=G1), 0, "0100 0000" + G1_LE),
        (MQFElement(1, guid=G1), 2, "0100" + G1_LE),
        (MQFElement(2, guid=G1, private_id=9), 0, "0200 0000" + G1_LE + "09000000"),
        (MQFElement(2, guid=G1, private_id=9), 3, "0200 000000" + G1_LE + "09000000"),
        (MQFElement(6, guid=G1), 1, "0600 00" + G1_LE),
        (MQFElement(3, direct="ab"), 0, "0300 6100 6200 0000"),
        (MQFElement(3, direct="ab"), 1, "0300 6100 6200 0000"),
        (MQFElement(3, direct="a\ud800"), 0, "0300 6100 00d8 0000"),  # a lone surrogate kept
    ],
)
def test_an_mqf_element_guid_starts_on_a_4_byte_boundary_of_its_header(
    element: MQFElement, position: int, wire: str
) -> None:
    """Errata W-07's reading: the GUID of a public, private or DL element is 4-aligned from the
    MultiQueueFormatHeader's start; a direct name follows its FormatType."""
    raw = h(wire)
    assert encode_mqf_element(element, position) == raw
    buf = bytes(position) + raw + b"\xee" * 4
    assert decode_mqf_element(buf, position, len(buf), 0) == (element, position + len(raw))


def test_w07_letter_reads_a_public_guid_right_after_its_format_type() -> None:
    element = MQFElement(1, guid=G1)
    raw = encode_mqf_element(element, 0, letter=True)
    assert raw == h("0100" + G1_LE)
    letter = Letter(frozenset({"W-07"}))
    buf = b"\xee" * 4 + raw
    assert decode_mqf_element(buf, 4, len(buf), 0, letter) == (element, 4 + 18)
    assert [(r.errata, r.offset, r.note) for r in letter.used] == [
        (
            "W-07",
            6,
            "the public FormatName's GUID follows its FormatType unpadded "
            "(not at the 4-byte boundary 8)",
        )
    ]
    # already aligned: both layouts agree and the letter is not named
    letter = Letter(frozenset({"W-07"}))
    buf = bytes(2) + raw
    assert decode_mqf_element(buf, 2, len(buf), 0, letter) == (element, 20)
    assert letter.used == []
    # private and DL GUIDs stay aligned under the letter
    private = encode_mqf_element(MQFElement(2, guid=G1, private_id=1), 0, letter=True)
    assert private == h("0200 0000" + G1_LE + "01000000")
    letter = Letter(frozenset({"W-07"}))
    assert decode_mqf_element(private, 0, len(private), 0, letter)[1] == 24
    assert letter.used == []


@pytest.mark.parametrize(
    ("wire", "end", "requirement", "offset", "words"),
    [
        ("01", 1, "MQMQ-2.2.20.2-1", 0, "a FormatType needs 2 bytes, 1 left"),
        (
            "0100 0000" + G1_LE[:30],
            19,
            "MQMQ-2.2.20.2-1",
            4,
            "a format name element needs 16 bytes, 15 left",
        ),
        (
            "0200 0000" + G1_LE + "090000",
            23,
            "MQMQ-2.2.20.2-1",
            4,
            "a format name element needs 20 bytes, 19 left",
        ),
        (
            "0300 6100 6200",
            6,
            "MQMQ-2.2.18.1.4.1-1",
            2,
            "the direct format name has no 0x0000 terminator",
        ),
        (
            "0300 6100 00",
            5,
            "MQMQ-2.2.18.1.4.1-1",
            2,
            "the direct format name has no 0x0000 terminator",
        ),
        ("0400", 2, "MQMQ-2.2.18.1.4-1", 0, "FormatType is 0x0004, not 1, 2, 3 or 6"),
        ("0000", 2, "MQMQ-2.2.18.1.4-1", 0, "FormatType is 0x0000, not 1, 2, 3 or 6"),
    ],
)
def test_an_mqf_element_that_cannot_be_read_is_refused_naming_its_rule(
    wire: str, end: int, requirement: str, offset: int, words: str
) -> None:
    with pytest.raises(DecodeError) as refused:
        decode_mqf_element(h(wire) + bytes(32), 0, end, 0)
    assert (refused.value.requirement, refused.value.offset) == (requirement, offset)
    assert refused.value.violation.message == words


def test_a_direct_element_ends_at_its_first_aligned_0000() -> None:
    # "a" then a 0x00 0x00 pair straddling two code units is not a terminator
    wire = h("0300 6100 0061 0000")
    assert decode_mqf_element(wire, 0, len(wire), 0) == (MQFElement(3, direct="a\u6100"), 8)
    assert decode_mqf_element(h("0300 0000"), 0, 4, 0) == (MQFElement(3, direct=""), 4)


@pytest.mark.parametrize(
    ("element", "words"),
    [
        (MQFElement(1), "a public, private or distribution list element needs a GUID"),
        (MQFElement(6), "a public, private or distribution list element needs a GUID"),
        (MQFElement(2, guid=G1), "a private element needs a queue number"),
        (MQFElement(3), "a direct element needs a name"),
        (MQFElement(4), "FormatType 4 has no layout"),
    ],
)
def test_encoding_an_mqf_element_without_its_values_is_refused(
    element: MQFElement, words: str
) -> None:
    with pytest.raises(ValueError) as refused:
        encode_mqf_element(element, 0)
    assert str(refused.value) == words


def test_mqf_element_names_are_the_format_names_of_ms_mqmq_2_1() -> None:
    assert mqf_element_name(MQFElement(1, guid=G1)) == f"PUBLIC={G1}"
    assert mqf_element_name(MQFElement(2, guid=G1, private_id=0x1F)) == f"PRIVATE={G1}\\1f"
    assert mqf_element_name(MQFElement(6, guid=G1)) == f"DL={G1}"
    assert mqf_element_name(MQFElement(3, direct="OS:h\\q")) == "DIRECT=OS:h\\q"
    assert MQF_TYPE_NAMES == {1: "public", 2: "private", 3: "direct", 6: "dl"}


# --- format names ([MS-MQMQ] 2.1) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("queue", "admin", "name"),
    [
        (QueueFormat(2, private_id=0x1A), None, f"PRIVATE={QM}\\1a"),
        (QueueFormat(3, private_id=0x1A), None, f"PRIVATE={DST}\\1a"),
        (QueueFormat(4, private_id=0x1A), QueueFormat(2, private_id=1), f"PRIVATE={QM}\\1a"),
        (QueueFormat(4, private_id=0x1A), QueueFormat(3, private_id=1), f"PRIVATE={DST}\\1a"),
        (QueueFormat(4, private_id=0x1A), QueueFormat.private_on(G1, 1), f"PRIVATE={G1}\\1a"),
        (QueueFormat(4, private_id=0x1A), QueueFormat.public(G1), "PRIVATE=?\\1a"),
        (QueueFormat(4, private_id=0x1A), None, "PRIVATE=?\\1a"),
        (QueueFormat(3, private_id=0), None, f"PRIVATE={DST}\\0"),
        (QueueFormat(3, private_id=0xFFFFFFFF), None, f"PRIVATE={DST}\\ffffffff"),
        (QueueFormat.public(G1), None, f"PUBLIC={G1}"),
        (QueueFormat.private_on(G1, 0xAB), None, f"PRIVATE={G1}\\ab"),
        (QueueFormat.direct_name("TCP:1.2.3.4\\q"), None, "DIRECT=TCP:1.2.3.4\\q"),
        (QueueFormat(1), QueueFormat.public(G1), ""),
        (QueueFormat(0), None, ""),
        (None, None, ""),
    ],
)
def test_format_names_name_the_host_each_code_says(
    queue: QueueFormat | None, admin: QueueFormat | None, name: str
) -> None:
    """[MS-MQMQ] 2.2.19.2: code 2 is on the source, 3 on the destination, RQ 4 on the
    administration queue's host ("?" when that queue names none); hex without leading zeros."""
    assert format_name(queue, source=QM, destination=DST, admin=admin) == name


@pytest.mark.parametrize(
    ("text", "code", "queue", "host"),
    [
        (f"PRIVATE={DST}\\3", 3, QueueFormat(3, private_id=3), DST),
        (f"private={str(DST).upper()}\\1A", 2, QueueFormat(2, private_id=0x1A), DST),
        (f"Private={DST}\\ffffffff", 4, QueueFormat(4, private_id=0xFFFFFFFF), DST),
        (f"PUBLIC={G1}", 3, QueueFormat(5, guid=G1), None),
        (f"public={str(G1).upper()}", 3, QueueFormat(5, guid=G1), None),
        ("DIRECT=OS:h\\private$\\q", 3, QueueFormat(7, direct="OS:h\\private$\\q"), None),
        ("direct=a\nb", 3, QueueFormat(7, direct="a\nb"), None),
    ],
)
def test_format_names_are_parsed_in_any_case(
    text: str, code: int, queue: QueueFormat, host: uuid.UUID | None
) -> None:
    """[MS-MQMQ] 2.1: prefixes and hex digits match in any case."""
    assert parse_format_name(text, code) == (queue, host)


def test_a_private_format_name_is_a_private_number_on_the_destination_by_default() -> None:
    assert parse_format_name(f"PRIVATE={DST}\\3") == (QueueFormat(3, private_id=3), DST)


@pytest.mark.parametrize(
    "text",
    [
        f"PRIVATE={DST}\\123456789",  # more than 8 hex digits
        f"PRIVATE={DST}\\",
        f"PRIVATE={DST}",
        f"PRIVATE={DST}\\3 ",
        f" PUBLIC={G1}",
        f"PUBLIC={G1}x",
        f"PUBLIC={str(G1)[:-1]}",
        f"PUBLIC={str(G1).replace('-', '')}",
        "DIRECT=",
        "DL=" + str(G1),
        "",
        f"PRIVATE={DST}\\\u0663",  # a non-ASCII digit is not a hex digit
    ],
)
def test_anything_else_is_not_a_format_name(text: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_format_name(text)
    assert str(refused.value) == f"not a PRIVATE=, PUBLIC= or DIRECT= format name: {text!r}"


# --- the letter of W-02, W-06, W-07, tried when the reading does not add up -------------------


def test_the_letter_layouts_are_tried_one_item_then_two_then_all() -> None:
    assert (
        frozenset({"W-02"}),
        frozenset({"W-06"}),
        frozenset({"W-07"}),
        frozenset({"W-02", "W-06"}),
        frozenset({"W-02", "W-07"}),
        frozenset({"W-06", "W-07"}),
        frozenset({"W-02", "W-06", "W-07"}),
    ) == LETTER_TRIALS


@pytest.mark.parametrize("name", LETTER_FORMS)
def test_a_letter_form_inside_a_stream_is_read_and_named_at_its_bytes(name: str) -> None:
    """docs/errata.md W-02/W-06/W-07: the packet starts 4 bytes into the buffer (a framer's
    stream); its UserHeader.Flags are read there to pick the layouts worth trying."""
    build, items = LETTER_FORMS[name]
    wire, expected = build()
    at_start, _ = decode_user_message(wire)
    packet, end = decode_user_message(PREFIX + wire + b"next", len(PREFIX))
    assert (packet, end) == (expected, len(PREFIX) + len(wire))
    assert [r.errata for r in packet.letter] == items
    assert [r.offset for r in packet.letter] == [r.offset + 4 for r in at_start.letter]


def test_a_packet_cut_inside_its_user_header_is_refused_as_the_reading_refuses_it() -> None:
    wire = encode_user_message(simple())
    for size in (16 + 44, 16 + 48, 16 + 50):
        cut = bytearray(wire[:size])
        cut[8:12] = size.to_bytes(4, "little")
        assert refusal(bytes(cut))[0] == "MQMQ-2.2.19.1-3"


def test_a_decoded_packet_equals_the_one_built_whatever_its_findings_and_ack() -> None:
    """``findings``, ``letter`` and ``ack`` are what the decoder says, not the packet."""
    message = simple(properties=MessageProperties(flags=0x5, body=b"\x01\x02"))
    packet = decoded(message)
    assert packet.findings and packet == finalize(message)
    assert packet.body == b"\x01\x02" and packet.kind == "UserMessage"
    final = decoded(final_ack())
    assert final.ack is not None and final == final_ack() and final.kind == "FinalAck"
    built = UserMessage(BaseHeader(), user(), MessageProperties())
    assert (built.ack, built.findings, built.letter) == (None, [], [])


def test_a_session_header_of_exactly_16_bytes_after_packet_size_is_read() -> None:
    wire = encode_user_message(simple(session=SessionHeader(1, 0, 0, 2, 0, 64)))
    packet, end = decode_user_message(PREFIX + wire, len(PREFIX))
    assert packet.session == SessionHeader(1, 0, 0, 2, 0, 64) and end == len(PREFIX) + len(wire)


def _patched(wire: bytes, at: int, value: int) -> bytes:
    out = bytearray(wire)
    out[at] = value
    return bytes(out)


def _soap_id_broken() -> bytes:
    soap = SoapHeader("h", "b")
    wire = encode_user_message(simple(soap=soap))
    return _patched(wire, len(wire) - len(encode_soap(soap)), 0x21)  # HeaderSectionID 0x0321


def _mqf_signature_id_broken() -> bytes:
    wire = encode_user_message(simple(mqf=MultiQueueFormat([MQFElement(1, guid=G1)])))
    return _patched(wire, len(wire) - 8, 0x5F)  # MQFSignatureHeader.ID 0x015f


@pytest.mark.parametrize(
    ("make", "requirement"),
    [
        (
            lambda: encode_user_message(
                simple(
                    transaction=TransactionHeader(sequence_number=0),
                    user=user(compose_user_flags(delivery=1), destination=QueueFormat(3, 3)),
                )
            ),
            "MQMQ-2.2.20.5-1",
        ),
        (
            lambda: encode_user_message(
                simple(security=SecurityHeader(ST_QM_GUID | 0x10, sender_id=QM.bytes_le))
            ),
            "MQMQ-2.2.20.6-3",
        ),
        (
            lambda: encode_user_message(simple(properties=MessageProperties(privacy_level=2))),
            "MQMQ-2.2.19.3-4",
        ),
        (_soap_id_broken, "MQMQ-2.2.20.7-1"),
        (_mqf_signature_id_broken, "MQMQ-2.2.20.3-1"),
    ],
    ids=["transaction", "security", "properties", "soap", "mqf"],
)
def test_a_value_rule_broken_inside_any_header_is_a_finding_not_a_refusal(
    make: Callable[[], bytes], requirement: str
) -> None:
    """usermessage.py: each header's value rules go to ``packet.findings``; the packet is read."""
    assert requirement in [found[0] for found in judged(make())]


def test_an_acknowledgment_rule_is_a_finding_at_its_byte_in_the_stream() -> None:
    """[MS-MQQB] 2.2.4: an OrderAck's BaseHeader.Flags are 0 (SH aside), named at byte 2."""
    ack = order_ack()
    bad = finalize(replace(ack, base=replace(ack.base, flags=ack.base.flags | 0x0002)))
    packet, _ = decode_user_message(PREFIX + encode_user_message(bad), len(PREFIX))
    assert [(f.requirement, f.offset, f.message) for f in packet.findings] == [
        ("MQQB-2.2.4-1", 4 + 2, "BaseHeader.Flags is 0x0002, not 0")
    ]
    assert packet.kind == "OrderAck" and packet.ack == OrderAckBody(7, 8, 5, 4)


def test_a_memoryview_buffer_gives_bytes_values() -> None:
    wire = encode_user_message(simple(properties=MessageProperties(body=b"\x01\x02")))
    packet, _ = decode_user_message(memoryview(wire))
    assert type(packet.body) is bytes and packet.body == b"\x01\x02"


@pytest.mark.parametrize("name", ["W-02", "W-06 RQ 4", "W-07"])
def test_the_framers_base_header_is_kept_when_the_letter_is_read(name: str) -> None:
    wire, _ = LETTER_FORMS[name][0]()
    base = decode_user_message(wire)[0].base
    given = replace(base, time_to_reach_queue=base.time_to_reach_queue + 1)
    packet, _ = decode_user_message(wire, base=given)
    assert packet.base.time_to_reach_queue == base.time_to_reach_queue + 1 and packet.letter


def test_a_soap_header_without_inner_padding_is_read_to_the_letter_of_w08() -> None:
    """W-08: BodySectionID right after the header part's text; the packet says so."""
    soap = SoapHeader("ab", "c")
    packet = simple(soap=soap)
    wire = encode_user_message(packet)
    at = len(wire) - len(encode_soap(soap))
    letter = h("2003000003000000") + "ab".encode("utf-16-le") + bytes(2)
    letter += h("8403000002000000") + "c".encode("utf-16-le") + bytes(2)
    letter += bytes(-len(letter) % 4)
    body = bytearray(wire[:at] + letter)
    body[8:12] = len(body).to_bytes(4, "little")
    read, _ = decode_user_message(PREFIX + bytes(body), len(PREFIX))
    assert read == packet
    assert [(r.errata, r.offset) for r in read.letter] == [("W-08", 4 + at + 8 + 6)]
