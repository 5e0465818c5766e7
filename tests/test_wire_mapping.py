"""Message <-> UserMessage Packet ([MS-MQDMPR] 3.1.7.1.30-32) and the JSON view of packets.

The round trip runs over what the model's client side really sends: hypothesis drives
:class:`mqcn_model.client.NotificationClient` (every product profile, both versions, every
operation it can send) and each emitted Envelope must come back from its packet unchanged.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_strategies import internal_packets, pings, user_messages

from mqcn_model.adm import Queue, QueueManager
from mqcn_model.client import NotificationClient
from mqcn_model.constants import (
    AuthLevel,
    DeliveryGuarantee,
    HashAlgorithm,
    Operation,
    SenderIdType,
    notify_queue_format_name,
)
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.profiles import PROFILES
from mqcn_model.wire import (
    decode_packet,
    decode_user_message,
    encode_packet,
    encode_user_message,
    envelope_to_packet,
    finalize,
    packet_to_envelope,
    packet_to_json,
)
from mqcn_model.wire.mqf import MultiQueueFormat
from mqcn_model.wire.queues import MQFElement
from mqcn_model.wire.security import ST_SID, SecurityHeader, guid_for_sid, sid_for_guid, sid_text

QM = uuid.UUID("0f2c1e3a-1111-4222-8333-444455556666")
DST = uuid.UUID("9a8b7c6d-1234-4567-89ab-cdef01234567")

_OPERATIONS = {
    1: [Operation.QueueDeletion],
    2: [
        Operation.QueueCreation,
        Operation.QueueUpdate,
        Operation.QueueDeletion,
        Operation.QueueManagerUpdate,
    ],
}


@st.composite
def client_envelopes(draw: st.DrawFn) -> Envelope:
    """One Envelope as the reference client emits it."""
    profile = draw(st.sampled_from(sorted(PROFILES)))
    version = draw(st.sampled_from(sorted(v for v in (1, 2) if PROFILES[profile].accepts(v))))
    client = NotificationClient(
        draw(st.uuids()),
        version=version,
        profile=PROFILES[profile],
        first_sequence=draw(st.integers(0, 0xFFFFFFFF)),
    )
    operation = draw(st.sampled_from(_OPERATIONS[version]))
    owner = draw(st.uuids())
    subject = (
        QueueManager(owner)
        if operation is Operation.QueueManagerUpdate
        else Queue(draw(st.uuids()))
    )
    return client.send_change_notification(operation, subject, owner=owner)


def _signed_as(envelope: Envelope) -> AuthLevel:
    return AuthLevel.Sig10 if envelope.authentication_level is AuthLevel.Sig10 else AuthLevel.Sig20


@settings(max_examples=150)
@given(client_envelopes())
def test_what_the_client_sends_survives_the_wire(envelope: Envelope) -> None:
    packet = envelope_to_packet(envelope)
    wire = encode_user_message(packet)
    decoded, end = decode_user_message(wire)
    assert end == len(wire)
    back, body = packet_to_envelope(decoded, signed_as=_signed_as(envelope))
    assert back == envelope and body == envelope.body
    assert back.message_id.to_bytes() == wire[16:32] + wire[56:60]  # PROPID_M_MSGID


def test_the_fields_land_where_the_spec_puts_them() -> None:
    envelope = Envelope(
        b"\x02\x01xyz",
        MessageId(QM, 0x01020304),
        sender_identifier=DST,
        sender_identifier_type=SenderIdType.QueueManagerIdentifier,
        authentication_level=AuthLevel.Sig20,
        time_to_reach_queue=300,
        delivery_guarantee=DeliveryGuarantee.Recoverable,
        hash_algorithm=HashAlgorithm.SHA1,
        destination_format_name=notify_queue_format_name(str(DST)),
    )
    packet = envelope_to_packet(envelope, sent_time=1_700_000_000)
    wire = encode_user_message(packet)
    assert wire[12:16] == (300).to_bytes(4, "little")  # BaseHeader.TimeToReachQueue
    assert wire[16:32] == QM.bytes_le and wire[32:48] == DST.bytes_le  # source, destination QM
    assert wire[52:56] == (1_700_000_000).to_bytes(4, "little")
    assert wire[56:60] == bytes.fromhex("04030201")  # MessageID
    assert packet.user.dq == 3 and packet.user.destination.private_id == 3
    assert packet.user.delivery == 1
    assert packet.security is not None and packet.security.sender_id == DST.bytes_le
    assert packet.security.sender_id_type == 2 and len(packet.security.signature) == 128
    assert packet.properties.hash_algorithm == 0x8004 and packet.properties.body == b"\x02\x01xyz"


def test_a_sid_sender_is_written_as_a_sid() -> None:
    envelope = Envelope(
        b"\x02\x01",
        MessageId(QM, 1),
        sender_identifier=QM,
        sender_identifier_type=SenderIdType.Sid,
        destination_format_name=notify_queue_format_name(str(DST)),
    )
    packet = envelope_to_packet(envelope)
    assert packet.security is not None and packet.security.sender_id_type == ST_SID
    assert sid_text(packet.security.sender_id).startswith("S-1-5-21-")
    assert packet_to_envelope(packet)[0] == envelope


def test_a_foreign_sid_leaves_the_sender_identifier_empty() -> None:
    packet = envelope_to_packet(
        Envelope(
            b"\x02",
            MessageId(QM, 1),
            sender_identifier=QM,
            destination_format_name=notify_queue_format_name(str(DST)),
        )
    )
    everyone = bytes.fromhex("010100000000000100000000")  # S-1-1-0
    packet = replace(packet, security=replace(packet.security, flags=ST_SID, sender_id=everyone))
    envelope, _ = packet_to_envelope(decode_user_message(encode_user_message(packet))[0])
    assert envelope.sender_identifier_type is SenderIdType.Sid
    assert envelope.sender_identifier is None
    assert guid_for_sid(sid_for_guid(QM)) == QM and guid_for_sid(everyone) is None


def test_no_security_header_means_no_sender_and_no_signature() -> None:
    envelope = Envelope(
        b"\x01\x00",
        MessageId(QM, 1),
        sender_identifier_type=SenderIdType.None_,
        authentication_level=AuthLevel.None_,
        destination_format_name=notify_queue_format_name(str(DST)),
    )
    packet = envelope_to_packet(envelope)
    assert packet.security is None and not packet.user.has(1 << 19)
    assert packet_to_envelope(packet)[0] == envelope


def test_an_mqf_signature_reads_as_sig30() -> None:
    envelope = Envelope(
        b"\x02\x01",
        MessageId(QM, 1),
        sender_identifier=DST,
        authentication_level=AuthLevel.Sig30,
        destination_format_name=notify_queue_format_name(str(DST)),
    )
    packet = envelope_to_packet(envelope)
    assert packet.mqf is not None and packet.mqf.signature
    assert packet.security is not None and not packet.security.signature
    decoded, _ = decode_user_message(encode_user_message(packet))
    assert packet_to_envelope(decoded)[0] == envelope


@pytest.mark.parametrize(
    ("name", "qm", "code"),
    [
        (f"PUBLIC={DST}", QM, 5),
        ("DIRECT=TCP:10.0.0.1\\private$\\notify_queue$", uuid.UUID(int=0), 7),
        (f"PRIVATE={DST}\\a", DST, 3),
    ],
)
def test_every_destination_form(name: str, qm: uuid.UUID, code: int) -> None:
    envelope = Envelope(
        b"\x02", MessageId(QM, 1), sender_identifier=QM, destination_format_name=name
    )
    packet = envelope_to_packet(envelope, destination_qm=QM)
    assert packet.user.dq == code and packet.user.destination_qm == qm
    decoded, _ = decode_user_message(encode_user_message(packet))
    assert packet_to_envelope(decoded)[0] == envelope


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"authentication_level": AuthLevel.XMLDSig}, "XML digital signature"),
        ({"destination_format_name": "MULTICAST=1.2.3.4:5"}, "format name"),
        ({"destination_format_name": f"PUBLIC={DST}"}, "destination_qm"),
        ({"sender_identifier": None}, "needs a SenderIdentifier"),
    ],
)
def test_envelopes_the_wire_cannot_carry_are_refused(change: dict, fragment: str) -> None:
    envelope = Envelope(
        b"\x02",
        MessageId(QM, 1),
        sender_identifier=QM,
        destination_format_name=notify_queue_format_name(str(DST)),
    )
    with pytest.raises(ValueError, match=fragment):
        envelope_to_packet(replace(envelope, **change))


@pytest.mark.parametrize(
    ("field", "value", "name"),
    [
        ("message_class", 0x8000, "NackBadDestQueue"),
        ("message_class", 0x0123, "0x123"),
        ("hash_algorithm", 0x800C, "SHA256"),
        ("hash_algorithm", 0x8001, "MD2"),
        ("hash_algorithm", 0x1234, "0x1234"),
    ],
)
def test_values_a_change_notification_does_not_use_reach_the_envelope(
    field: str, value: int, name: str
) -> None:
    """Nothing parseable is set aside: the Envelope carries every class and HashAlgorithm a
    packet holds (an unlisted one as its number), and the JSON form reads back."""
    envelope = Envelope(
        b"\x02",
        MessageId(QM, 1),
        sender_identifier=QM,
        destination_format_name=notify_queue_format_name(str(DST)),
    )
    packet = envelope_to_packet(envelope)
    packet = replace(packet, properties=replace(packet.properties, **{field: value}))
    decoded, _ = decode_user_message(encode_user_message(packet))
    back, _ = packet_to_envelope(decoded)
    carried = getattr(back, field)
    assert int(carried) == value and carried.name == name
    assert Envelope.from_json(back.to_json()) == back
    assert envelope_to_packet(back).properties == decoded.properties


def test_arrival_time_is_the_callers() -> None:
    envelope = Envelope(
        b"\x02",
        MessageId(QM, 1),
        sender_identifier=QM,
        destination_format_name=notify_queue_format_name(str(DST)),
    )
    back, _ = packet_to_envelope(envelope_to_packet(envelope), arrival_time=12.5)
    assert back.arrival_time == 12.5


# --- JSON ---------------------------------------------------------------------------------------


@settings(max_examples=100)
@given(st.one_of(user_messages(), internal_packets()))
def test_every_packet_renders_as_json(packet) -> None:
    decoded, _ = decode_packet(encode_packet(packet))
    view = packet_to_json(decoded)
    text = json.dumps(view)
    assert json.loads(text) == view
    assert view["kind"] == decoded.kind
    assert view["base_header"]["signature"] == "0x524f494c"


@given(pings)
def test_a_ping_renders_as_json(ping) -> None:
    assert json.loads(json.dumps(packet_to_json(ping)))["kind"] == "Ping"


def test_the_json_names_the_queues_and_flags() -> None:
    envelope = Envelope(
        b"\x02\x01",
        MessageId(QM, 9),
        sender_identifier=DST,
        destination_format_name=notify_queue_format_name(str(DST)),
    )
    packet = envelope_to_packet(envelope)
    packet = finalize(
        replace(packet, mqf=MultiQueueFormat([MQFElement(2, guid=DST, private_id=3)]))
    )
    view = packet_to_json(decode_user_message(encode_user_message(packet))[0])
    user = view["user_header"]
    assert user["destination_queue"]["format_name"] == f"PRIVATE={DST}\\3"
    assert user["destination_queue"]["type_name"] == "PrivateQueueOnDestination"
    assert set(user["flag_bits"]) == {"SH", "MP", "MQ"}
    assert view["security_header"]["sender"] == str(DST)
    assert view["security_header"]["sender_id_type_name"] == "QueueManagerIdentifier"
    assert view["message_properties_header"]["hash_algorithm_name"] == "SHA512"
    assert view["message_properties_header"]["body"] == "0201"
    assert view["multi_queue_format_header"]["destination"][0]["format_name"] == (
        f"PRIVATE={DST}\\3"
    )
    assert view["transaction_header"] is None and view["session_header"] is None


def test_security_json_shows_a_sid_as_text() -> None:
    header = SecurityHeader(ST_SID, sender_id=sid_for_guid(QM))
    from mqcn_model.wire.render import security_to_json

    assert security_to_json(header)["sender"].startswith("S-1-5-21-")
