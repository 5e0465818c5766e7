"""The scapy layers of MS-MQMQ / MS-MQQB packets and their bridge to the wire codec, field by
field (packet_layers.py, layer_bridge.py).
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass, replace

import pytest

from mqcn_model.errors import DecodeError
from mqcn_model.wire import base as fast_base
from mqcn_model.wire import (
    decode_user_message,
    encode_internal,
    encode_ping,
    encode_user_message,
)
from mqcn_model.wire import layer_bridge as B
from mqcn_model.wire import packet_layers as L
from mqcn_model.wire.acks import (
    FinalAckBody,
    OrderAckBody,
    encode_final_ack_body,
    encode_order_ack_body,
)
from mqcn_model.wire.base import BaseHeader as BaseHeaderRecord
from mqcn_model.wire.debug import DebugHeader
from mqcn_model.wire.declared import join_groups, layout, wire
from mqcn_model.wire.internal import (
    ConnectionParameters,
    EstablishConnection,
    InternalHeader,
    InternalPacket,
    Ping,
    connection_parameters,
)
from mqcn_model.wire.mqf import MultiQueueFormat
from mqcn_model.wire.properties import MessageProperties
from mqcn_model.wire.queues import MQFElement, QueueFormat, mqf_element_name
from mqcn_model.wire.security import SecurityHeader
from mqcn_model.wire.session import SessionHeader
from mqcn_model.wire.soap import SoapHeader
from mqcn_model.wire.transaction import TransactionHeader
from mqcn_model.wire.user import UserHeader
from mqcn_model.wire.usermessage import UserMessage, finalize

G1 = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")
G2 = uuid.UUID("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
G3 = uuid.UUID("12345678-9abc-def0-1234-56789abcdef0")

# A BaseHeader whose every field is off its default: a bridge that drops a field shows the
# layer's default instead.
ODD_BASE = fast_base.BaseHeader(
    flags=fast_base.PRIORITY_DEFAULT | 0x0100,
    time_to_reach_queue=0x01020304,
    version=0x11,
    reserved=0xA5,
    signature=0x11223344,
)
ODD_SESSION = SessionHeader(0x0102, 0x0304, 0x05060708, 0x090A, 0x0B0C, 0x0D0E, 0x0F10)


def _loaded(**changes) -> UserMessage:
    """A UserMessage carrying every optional header, each field off its layer default."""
    message = UserMessage(
        base=ODD_BASE,
        user=UserHeader(
            source_qm=G1,
            destination_qm=G2,
            time_to_be_received=0x11121314,
            sent_time=0x21222324,
            message_id=0x31323334,
            flags=0x0000_0103,
            destination=QueueFormat(5, guid=G3),
            admin=QueueFormat(6, private_id=0x77, guid=G2),
            response=QueueFormat(7, direct="OS:host\\private$\\q"),
            connector_type=G3,
        ),
        properties=MessageProperties(
            flags=0x0F,
            message_class=0,
            correlation_id=bytes(range(20)),
            body_type=0x41,
            application_tag=0x42,
            privacy_level=0,
            hash_algorithm=0x8004,
            encryption_algorithm=0x6610,
            label="odd label",
            extension=b"\x01\x02\x03",
            body=b"\x02\x01body",
            body_slack=b"\x00\x00\x00",
        ),
        transaction=TransactionHeader(
            flags=0x0000_0171,  # CG, ID 0x17
            sequence_ordinal=0x51,
            sequence_timestamp=0x52,
            sequence_number=0x53,
            previous_number=0x54,
            connector_qm=G1,
        ),
        security=SecurityHeader(
            0x0002,
            sender_id=G1.bytes_le,
            encryption_key=b"\x61",
            signature=b"\x62\x63",
            sender_cert=b"\x30\x01\x02",
            provider_info=b"\x64\x65\x66\x67\x68",
        ),
        debug=DebugHeader(0x0001, 0x7788, G2),
        soap=SoapHeader("<h/>", "<body>x</body>", 0x0102, 0x0304),
        mqf=MultiQueueFormat(
            [MQFElement(1, guid=G1), MQFElement(3, direct="OS:a\\b")],
            [MQFElement(2, guid=G2, private_id=9)],
            [MQFElement(6, guid=G3)],
            b"\x71\x72\x73",
            (0x11, 0x22, 0x33, 0x44),
        ),
        session=ODD_SESSION,
    )
    return finalize(replace(message, **changes))


def _internal(body, *, header: InternalHeader) -> InternalPacket:
    return InternalPacket(replace(ODD_BASE, flags=fast_base.IN | 0x0100), header, body)


ODD_INTERNALS = {
    "ConnectionParameters": _internal(
        ConnectionParameters(0x1F5, 0x4E21, 0x41, reserved=0x5A5A),
        header=InternalHeader(3 | 0x0100, reserved=0x1234),
    ),
    "EstablishConnection": _internal(
        EstablishConnection(G1, G2, 0x01020304, 0x0010, reserved=0x6B6B, padding=b"\x33" * 512),
        header=InternalHeader(2, reserved=0x4321),
    ),
    "SessionAck": _internal(ODD_SESSION, header=InternalHeader(1, reserved=0x0F0F)),
}


# --- both bridges carry every field ([MS-MQMQ] 2.2.19-2.2.20, [MS-MQQB] 2.2.1-2.2.7) -----------


def _plain() -> UserMessage:
    """The other forms: private-id queues, no ConnectorType / ConnectorQMGuid / debug queue,
    a Report class and a Base privacy level."""
    message = _loaded()
    return _loaded(
        user=replace(
            message.user,
            destination=QueueFormat(3, private_id=0x1234),
            admin=QueueFormat(2, private_id=0x55),
            response=QueueFormat(4, private_id=0x66),
            connector_type=None,
        ),
        properties=replace(message.properties, message_class=1, privacy_level=1),
        transaction=replace(message.transaction, flags=0x0000_0170, connector_qm=None),
        debug=DebugHeader(0x0000, 0x7788, None),
    )


def _odd_padding() -> UserMessage:
    """No queues at all (codes 0), and a MessagePropertiesHeader padded by 1 byte."""
    message = _plain()
    return _loaded(
        user=replace(message.user, destination=None, admin=None, response=None),
        properties=replace(message.properties, body_slack=b"\x00\x00"),
    )


LOADED = {"every optional field": _loaded, "the other forms": _plain, "odd padding": _odd_padding}


@pytest.mark.parametrize("kind", sorted(LOADED))
def test_every_user_message_field_reaches_the_layer_and_comes_back(kind: str) -> None:
    """[MS-MQMQ] 2.2.20: the layer built from a UserMessage is its very bytes, and the
    struct object read back from a dissection of those bytes is the message, every field off
    its default (VersionNumber, Reserved, Signature and TimeToReachQueue included)."""
    message = LOADED[kind]()
    wire = encode_user_message(message)
    assert bytes(B.to_layer(message)) == wire
    assert B.from_layer(L.UserMessagePacket(wire)) == message


@pytest.mark.parametrize("kind", sorted(ODD_INTERNALS))
def test_every_internal_packet_field_reaches_the_layer_and_comes_back(kind: str) -> None:
    """[MS-MQQB] 2.2.1-2.2.3, 2.2.6: an internal packet with its Reserved fields, BaseHeader
    and InternalHeader off their defaults survives struct -> layer -> bytes -> struct."""
    packet = ODD_INTERNALS[kind]
    wire = encode_internal(packet)
    assert bytes(B.to_layer(packet)) == wire
    assert B.from_layer(L.InternalPacketLayer(wire)) == packet


def test_every_ping_field_reaches_the_layer_and_comes_back() -> None:
    """[MS-MQQB] 2.2.7: a Ping's flags, Cookie, QMGuid and Signature, both ways."""
    ping = Ping(0x0003, 0x01020304, G1, 0x1234)
    wire = encode_ping(ping)
    assert bytes(B.to_layer(ping)) == wire
    assert B.from_layer(L.PingPacket(wire)) == ping


@pytest.mark.parametrize("kind", sorted(LOADED))
def test_the_loaded_message_is_one_the_struct_codec_reads(kind: str) -> None:
    """The fixtures above, with the VersionNumber and Signature the struct codec demands, are
    real packets: read whole, to the same object (so the tests above compare two codecs)."""
    odd = LOADED[kind]()
    base = replace(odd.base, version=fast_base.PACKET_VERSION, signature=fast_base.SIGNATURE)
    message = replace(odd, base=base)
    wire = encode_user_message(message)
    decoded, end = decode_user_message(wire)
    assert decoded == message and end == len(wire)


# --- what from_layer refuses, in the words a user reads -------------------------------------------

_BODY = L.MessagePropertiesHeader(MessageBody=b"\x02\x01")


def _user_layer(**fields) -> L.UserMessagePacket:
    fields.setdefault("MessagePropertiesHeader", _BODY)
    return L.UserMessagePacket(**fields)


def _one_address() -> bytes:
    return bytes(L.MQFAddressHeader(FormatNameList=[]))


def _sized(layer, delta: int) -> L.UserMessagePacket:
    dissected = type(layer)(bytes(layer))
    dissected.BaseHeader.PacketSize = len(bytes(layer)) + delta
    return dissected


REFUSALS = {
    # a header cut inside a built packet (the layer holds the bytes it could not read)
    "BaseHeader": (_user_layer(BaseHeader=L.BaseHeader(b"\x10\x00\x00")), "the BaseHeader"),
    "UserHeader": (_user_layer(UserHeader=L.UserHeader(bytes(5))), "the UserHeader"),
    "MessagePropertiesHeader": (
        _user_layer(MessagePropertiesHeader=L.MessagePropertiesHeader(bytes(5))),
        "the MessagePropertiesHeader",
    ),
    "TransactionHeader": (
        _user_layer(UserHeader=L.UserHeader(TH=1), TransactionHeader=L.TransactionHeader(b"\0")),
        "the TransactionHeader",
    ),
    "SecurityHeader": (
        _user_layer(UserHeader=L.UserHeader(SH=1), SecurityHeader=L.SecurityHeader(b"\0")),
        "the SecurityHeader",
    ),
    "DebugHeader": (
        _user_layer(BaseHeader=L.BaseHeader(DH=1), DebugHeader=L.DebugHeader(b"\0")),
        "the DebugHeader",
    ),
    "SoapHeader": (
        _user_layer(UserHeader=L.UserHeader(HH=1), SoapHeader=L.SoapHeader(b"\0")),
        "the SoapHeader",
    ),
    "MultiQueueFormatHeader": (
        _user_layer(
            UserHeader=L.UserHeader(MQ=1),
            MultiQueueFormatHeader=L.MultiQueueFormatHeader(_one_address()),
        ),
        "the MultiQueueFormatHeader",
    ),
    "MQF Destination": (
        _user_layer(
            UserHeader=L.UserHeader(MQ=1),
            MultiQueueFormatHeader=L.MultiQueueFormatHeader(Destination=L.MQFAddressHeader(b"\0")),
        ),
        "the Destination",
    ),
    "MQF Response": (
        _user_layer(
            UserHeader=L.UserHeader(MQ=1),
            MultiQueueFormatHeader=L.MultiQueueFormatHeader(Response=L.MQFAddressHeader(b"\0")),
        ),
        "the Response",
    ),
    "SessionHeader": (
        _user_layer(BaseHeader=L.BaseHeader(SH=1), SessionHeader=L.SessionHeader(b"\0")),
        "the SessionHeader",
    ),
    "queue field": (
        _user_layer(UserHeader=L.UserHeader(DQ=5, DestinationQueue=L.PublicQueueFormatName(b"\0"))),
        "the DestinationQueue",
    ),
    "InternalHeader": (
        L.InternalPacketLayer(InternalHeader=L.InternalHeader(b"\0\0")),
        "the InternalHeader",
    ),
    "body": (L.InternalPacketLayer(Body=L.ConnectionParametersHeader(b"\0")), "the Body"),
    "no body for the PT": (
        L.InternalPacketLayer(InternalHeader=L.InternalHeader(PT=5)),
        "the Body",
    ),
    "Ping": (L.PingPacket(b"\0"), "the PingPacket"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_part_that_did_not_dissect_whole_is_refused_by_its_name(case: str) -> None:
    """from_layer refuses a layer holding a cut header, naming that header: the struct
    objects hold whole headers only."""
    layer, what = REFUSALS[case]
    with pytest.raises(ValueError) as info:
        B.from_layer(layer)
    assert str(info.value) == f"{what} did not dissect completely"


WORDS = {
    "Label": (
        _user_layer(MessagePropertiesHeader=L.MessagePropertiesHeader(Label=b"a\0b\0")),
        "MessagePropertiesHeader.Label is not a UTF-16 string ending in 0x0000",
    ),
    "SOAP Header": (
        _user_layer(UserHeader=L.UserHeader(HH=1), SoapHeader=L.SoapHeader(Header=b"a\0")),
        "SoapHeader.Header is not a UTF-16 string ending in 0x0000",
    ),
    "SOAP Body": (
        _user_layer(UserHeader=L.UserHeader(HH=1), SoapHeader=L.SoapHeader(Body=b"a\0")),
        "SoapHeader.Body is not a UTF-16 string ending in 0x0000",
    ),
    "direct format name": (
        _user_layer(
            UserHeader=L.UserHeader(
                DQ=7, DestinationQueue=L.DirectQueueFormatName(DirectFormatName=b"a\0")
            )
        ),
        "the direct format name has no 0x0000 terminator",
    ),
    "MQF Rest": (
        _user_layer(
            UserHeader=L.UserHeader(MQ=1),
            MultiQueueFormatHeader=L.MultiQueueFormatHeader(
                Administration=L.MQFAddressHeader(HeaderID=0xC8, Rest=b"\0\0\0\1")
            ),
        ),
        "an MQFAddressHeader holds bytes after its elements",
    ),
    "SH without SessionHeader": (
        L.UserMessagePacket(bytes(_user_layer(BaseHeader=L.BaseHeader(SH=1)))),
        "BaseHeader.Flags.SH is set but no SessionHeader follows the packet",
    ),
    "Extra in a UserMessage": (
        L.UserMessagePacket(bytes(_user_layer(Extra=b"\0\0\0"))),
        "3 bytes inside PacketSize follow the last header",
    ),
    "Extra in an internal packet": (
        L.InternalPacketLayer(bytes(L.InternalPacketLayer(Extra=b"\0\0\0"))),
        "3 bytes inside PacketSize follow the body",
    ),
    "PacketSize too big": (_sized(_user_layer(), 4), "PacketSize is 132 but the packet holds 128"),
    # the trailing SessionHeader lies after PacketSize: not counted in what the packet holds
    "PacketSize too big, with a SessionHeader": (
        _sized(_user_layer(BaseHeader=L.BaseHeader(SH=1), SessionHeader=L.SessionHeader()), 4),
        "PacketSize is 148 but the packet holds 128",
    ),
    "not a packet": (L.SessionHeader(), "SessionHeader is not a packet layer"),
}


@pytest.mark.parametrize("case", sorted(WORDS))
def test_what_the_struct_objects_cannot_carry_is_refused_in_words(case: str) -> None:
    """from_layer's refusals, word for word: unterminated strings, bytes after the last
    header or element, a SessionHeader announced by BaseHeader.Flags.SH and missing, a
    PacketSize the bytes do not fill ([MS-MQMQ] 2.2.19.1)."""
    layer, words = WORDS[case]
    with pytest.raises(ValueError) as info:
        B.from_layer(layer)
    assert str(info.value) == words


def test_zero_bytes_after_the_mqf_elements_are_the_padding() -> None:
    """An MQFAddressHeader whose Rest is zeros (the padding to 4 bytes) is accepted."""
    layer = _user_layer(
        UserHeader=L.UserHeader(MQ=1),
        MultiQueueFormatHeader=L.MultiQueueFormatHeader(
            Administration=L.MQFAddressHeader(HeaderID=0xC8, Rest=b"\0\0\0\0")
        ),
    )
    assert B.from_layer(layer).mqf.admin == []


def test_bit_groups_that_do_not_fill_their_field_are_a_programming_error() -> None:
    """A Flags field whose declared bit groups do not add up to its width is refused when its
    layout is derived, naming the header, the field and the bits declared (a declaration's
    mistake, never a packet's)."""

    @dataclass(slots=True)
    class Odd:
        flags: int = wire("Flags", "H", groups=(("X", 15),))

    with pytest.raises(TypeError, match=r"^Odd\.Flags: 15 bits$"):
        layout(Odd)


def test_a_stated_allocation_body_size_reaches_the_layer() -> None:
    """W-02's letter: a MessagePropertiesHeader whose AllocationBodySize states more than its
    body room holds is built as stated, not recomputed."""
    message = _loaded()
    props = replace(message.properties, declared_allocation=len(message.properties.body) + 9)
    odd = replace(message, properties=props)
    layer = B.to_layer(odd)
    assert layer.MessagePropertiesHeader.AllocationBodySize == props.declared_allocation
    assert bytes(layer) == encode_user_message(odd)


@pytest.mark.parametrize(
    ("header", "field"),
    [
        ("UserHeader", "ConnectorType"),
        ("TransactionHeader", "ConnectorQMGuid"),
        ("DebugHeader", "QueueIdentifier"),
    ],
)
def test_an_optional_field_left_out_reads_as_on_the_dissected_twin(header, field) -> None:
    """A field its flag leaves off the wire (CQ, CG, QT clear) reads, on the twin layer, as
    on the layer dissected from the packet's bytes: its default, never an explicit None."""
    message = _plain()
    twin = B.to_layer(message).getfieldval(header)
    dissected = L.UserMessagePacket(encode_user_message(message)).getfieldval(header)
    assert twin.getfieldval(field) == dissected.getfieldval(field) == uuid.UUID(int=0)


def test_the_packet_size_read_is_the_one_the_layer_holds() -> None:
    """BaseHeader.PacketSize: a dissected layer's value reaches the struct object; a built
    layer's (None: computed when built) is the struct codec's own default, 0."""
    message = _loaded()
    wire = encode_user_message(message)
    size = int.from_bytes(wire[8:12], "little")
    assert B.from_layer(L.UserMessagePacket(wire)).base.packet_size == size
    assert B.from_layer(B.to_layer(message)).base.packet_size == 0


def test_join_groups_reads_what_the_bytes_hold() -> None:
    """A bit field set past its width is cut to it on the wire; join_groups gives the Flags
    value those bytes carry (PR=9 in a 3-bit field is priority 1, beside SH)."""
    layer = L.BaseHeader(PR=9, SH=1)
    flags = layout(BaseHeaderRecord).field("Flags")
    assert join_groups(flags, layer.getfieldval) == 0x0011
    assert int.from_bytes(bytes(layer)[2:4], "little") == 0x0011


def test_a_layer_that_is_not_a_salvaging_layer_is_refused() -> None:
    """from_layer refuses, as a ValueError naming it, a scapy layer that is not one of the
    packet layers (scapy's Raw)."""
    from scapy.packet import Raw

    with pytest.raises(ValueError, match=r"^the Raw did not dissect completely$"):
        B.from_layer(Raw(b"\x10\x00"))


# --- ack_body: the OrderAck / FinalAck body of a layer ([MS-MQQB] 2.2.4.1, 2.2.5.1) --------------


def _ack_layer(message_class: int, body: bytes) -> L.UserMessagePacket:
    return _user_layer(
        MessagePropertiesHeader=L.MessagePropertiesHeader(
            MessageClass=message_class, MessageBody=body
        )
    )


def test_ack_body_reads_an_order_ack_by_its_class() -> None:
    """MessageClass 0x00FF: the MessageBody is an OrderAck body, every field read."""
    body = OrderAckBody(0x11, 0x22, 0x33, 0x32, bytes(range(20)))
    assert B.ack_body(_ack_layer(0x00FF, encode_order_ack_body(body))) == body


def test_ack_body_reads_a_final_ack_otherwise() -> None:
    """Any other MessageClass: the MessageBody is read as a FinalAck body."""
    body = FinalAckBody(0x11, 0x22, 0x33, 0x32, G1, 0x44)
    assert B.ack_body(_ack_layer(0x8000, encode_final_ack_body(body))) == body


@pytest.mark.parametrize(("message_class", "kind"), [(0x00FF, "OrderAck"), (0x0000, "FinalAck")])
def test_ack_body_refuses_a_body_of_the_wrong_size_at_its_first_byte(message_class, kind) -> None:
    """MQQB-2.2.4-4: an ack body is 0x24 bytes; the refusal points at the body's first byte
    (offset 0: ack_body reads the body alone)."""
    with pytest.raises(DecodeError) as info:
        B.ack_body(_ack_layer(message_class, b"\x01\x02\x03"))
    assert info.value.requirement == "MQQB-2.2.4-4"
    assert info.value.offset == 0
    assert str(info.value).endswith(f"the {kind} body is 3 bytes, not 0x24")


@pytest.mark.parametrize("built_first", [False, True])
def test_an_edited_layer_is_measured_as_it_now_stands(built_first: bool) -> None:
    """A dissected layer whose body was lengthened afterwards, PacketSize left as read, is
    refused whether or not it was built in between (the verdict once hung on scapy's cache
    of the dissected bytes: an edited layer that was never built passed)."""

    def edited() -> L.UserMessagePacket:
        layer = L.UserMessagePacket(bytes(_user_layer()))
        layer.MessagePropertiesHeader.MessageBody = b"\x02\x01 and more"
        return layer

    holds = len(bytes(edited()))  # the padding as dissected: 2 bytes, not recomputed
    assert holds == 137
    layer = edited()
    if built_first:
        bytes(layer)
    with pytest.raises(ValueError, match=f"^PacketSize is 128 but the packet holds {holds}$"):
        B.from_layer(layer)


# --- the layer declarations themselves --------------------------------------------------------
# The fields of every layer are made once, when packet_layers is imported (_queue_field,
# _padded, _present, _internal_body_field, the field classes' __init__).  These tests import
# packet_layers and layer_bridge anew, check the packets they build and read against the
# struct codec, and put the modules back as they were.


@pytest.fixture
def fresh():
    """packet_layers and layer_bridge as a new import declares them (restored afterwards)."""
    import importlib

    saved = {module: dict(vars(module)) for module in (L, B)}
    try:
        importlib.reload(L)
        importlib.reload(B)
        yield L, B
    finally:
        for module, names in saved.items():
            vars(module).clear()
            vars(module).update(names)


@pytest.mark.parametrize("kind", sorted(LOADED))
def test_newly_declared_layers_carry_every_user_message_field(fresh, kind: str) -> None:
    """[MS-MQMQ] 2.2.20 through the layers as declared: the struct codec's bytes, both ways,
    and the same bytes again when dissected and rebuilt."""
    layers, bridge = fresh
    message = LOADED[kind]()
    wire = encode_user_message(message)
    assert bytes(bridge.to_layer(message)) == wire
    dissected = layers.UserMessagePacket(wire)
    assert bridge.from_layer(dissected) == message
    assert bytes(layers.UserMessagePacket(wire)) == wire


@pytest.mark.parametrize("kind", sorted(ODD_INTERNALS))
def test_newly_declared_layers_carry_every_internal_packet_field(fresh, kind: str) -> None:
    """[MS-MQQB] 2.2.1-2.2.3, 2.2.6 through the layers as declared: each PT's body."""
    layers, bridge = fresh
    packet = ODD_INTERNALS[kind]
    wire = encode_internal(packet)
    assert bytes(bridge.to_layer(packet)) == wire
    assert bridge.from_layer(layers.InternalPacketLayer(wire)) == packet


def test_newly_declared_default_packets_are_the_struct_codecs(fresh) -> None:
    """The default layers as declared: a UserMessage with its default queue and properties
    (and no optional header) and a ConnectionParameters packet, as the struct codec writes
    them; the default SecurityHeader and MQF Signature header are their fixed parts, zeros."""
    layers, _ = fresh
    user = layers.UserMessagePacket(
        MessagePropertiesHeader=layers.MessagePropertiesHeader(MessageBody=b"\x02\x01")
    )
    message, end = decode_user_message(bytes(user))
    assert end == len(bytes(user)) == 128 and message.user.destination.private_id == 1
    internal = bytes(layers.InternalPacketLayer())
    assert len(internal) == 32
    assert internal[16:] == encode_internal(connection_parameters(500, 20000, 64))[16:]
    assert bytes(layers.SecurityHeader()) == bytes(16)
    assert bytes(layers.MQFSignatureHeader()) == bytes.fromhex("5e010000 00000000")


def test_newly_declared_layers_build_a_header_without_its_flag(fresh) -> None:
    """A SecurityHeader given with UserHeader.Flags.SH clear is on the wire all the same (the
    malformed "header without its flag" form), and none is without one."""
    layers, _ = fresh
    body = layers.MessagePropertiesHeader(MessageBody=b"\x02\x01")
    plain = bytes(layers.UserMessagePacket(MessagePropertiesHeader=body))
    security = layers.SecurityHeader(ST=2, SecurityID=G1.bytes_le)
    odd = layers.UserMessagePacket(SecurityHeader=security, MessagePropertiesHeader=body)
    assert len(bytes(odd)) == len(plain) + len(bytes(security))


def test_newly_declared_internal_layers_without_a_known_body(fresh) -> None:
    """A PT with no body ([MS-MQQB] 2.2.1 names three) holds no body bytes: what follows the
    InternalHeader stays in Extra; without an InternalHeader the body is the default PT's."""
    layers, _ = fresh
    odd = layers.InternalPacketLayer(InternalHeader=layers.InternalHeader(PT=5), Extra=b"\1\2\3")
    wire = bytes(odd)
    assert len(wire) == 23
    assert odd.Body == b""
    again = layers.InternalPacketLayer(wire)
    assert again.Body == b"" and again.Extra == b"\1\2\3"
    assert "Body" in again.show(dump=True)
    headless = layers.InternalPacketLayer(InternalHeader=None)
    assert len(bytes(headless)) == 16 + 12


def test_newly_declared_empty_queue_and_mqf_fields(fresh) -> None:
    """Queue code 0 holds no queue field (b"", not None), and a default MQF header's address
    lists are empty lists the bridge reads as no elements ([MS-MQMQ] 2.2.20.1-2.2.20.2)."""
    layers, bridge = fresh
    assert layers.UserHeader(DQ=0).DestinationQueue == b""
    layer = layers.UserMessagePacket(
        UserHeader=layers.UserHeader(MQ=1),
        MultiQueueFormatHeader=layers.MultiQueueFormatHeader(),
        MessagePropertiesHeader=layers.MessagePropertiesHeader(MessageBody=b"\x02\x01"),
    )
    mqf = bridge.from_layer(layer).mqf
    assert (mqf.destination, mqf.admin, mqf.response) == ([], [], [])


def test_a_lying_packet_size_is_built_as_given() -> None:
    """BaseHeader.PacketSize set by hand is written as it is (MQMQ-2.2.19.1-3's malformed
    form); left at None it is computed."""
    lying = bytes(_user_layer(BaseHeader=L.BaseHeader(PacketSize=0x1000)))
    assert int.from_bytes(lying[8:12], "little") == 0x1000
    assert int.from_bytes(bytes(_user_layer())[8:12], "little") == 128


@pytest.mark.parametrize("session_flag", [0, 1])
def test_what_follows_a_packet_is_a_session_header_only_when_sh_says_so(session_flag) -> None:
    """[MS-MQMQ] 2.2.20: a SessionHeader follows PacketSize only when BaseHeader.Flags.SH is
    set; else the 16 bytes after the packet are not the packet's."""
    message = _plain()
    if not session_flag:
        message = finalize(replace(message, session=None))
    tail = bytes(range(16))
    layer = L.UserMessagePacket(encode_user_message(message) + tail)
    assert (layer.SessionHeader is not None) == bool(session_flag)
    assert B.from_layer(layer) == message


def test_show_names_each_mqf_element_by_its_format_name() -> None:
    """An MQFAddressHeader shows its FormatNameList as the format names a user reads."""
    element = MQFElement(1, guid=G1)
    shown = L.MQFAddressHeader(FormatNameList=[element]).show(dump=True)
    assert repr([mqf_element_name(element)]) in shown


def test_a_packet_built_without_its_base_or_user_header_leaves_them_out() -> None:
    """The malformed builds without a BaseHeader or a UserHeader: the header is absent from the
    bytes, the rest is built as the default header's flags say."""
    whole = len(bytes(_user_layer()))
    assert len(bytes(_user_layer(BaseHeader=None))) == whole - 16
    assert len(bytes(_user_layer(UserHeader=None))) == whole - 52


def test_an_odd_length_label_is_padded_to_four_bytes() -> None:
    """[MS-MQMQ] 2.2.19.3: the MessagePropertiesHeader ends on a 4-byte boundary, whatever the
    bytes of its Label (3 bytes: 56 + 3, padded by 1)."""
    assert len(bytes(L.MessagePropertiesHeader(Label=b"abc"))) == 60


def test_an_mqf_rest_given_is_written_as_it_is() -> None:
    """An MQFAddressHeader built with a Rest (bytes after its elements, a malformed form)
    writes those bytes unpadded; without one the elements are padded to 4 bytes."""
    assert len(bytes(L.MQFAddressHeader(Rest=b"\x01"))) == 12 + 1
    assert len(bytes(L.MQFAddressHeader())) == 12


# --- the fields' corners (whole-file mutation of packet_layers.py) ----------------------------


def test_an_mqf_elements_guid_is_padded_by_where_it_starts_after_the_others() -> None:
    """Two direct names of 6 bytes put the public element's FormatType at byte 24: its GUID
    is padded from 26 to 28; the layer writes what the struct codec writes."""
    from mqcn_model.wire.mqf import encode_address

    elements = [MQFElement(3, direct="a"), MQFElement(3, direct="a"), MQFElement(1, guid=G1)]
    built = bytes(L.MQFAddressHeader(FormatNameList=elements))
    assert built == encode_address(elements, 0x64)
    assert built[24:26] == b"\x01\x00" and built[26:28] == b"\0\0"
    assert built[28:44] == G1.bytes_le


def _address(size: int, count: int, body: bytes) -> bytes:

    return struct.pack("<IHHI", size, 0x64, 0, count) + body


PUBLIC_G1 = b"\x01\x00\0\0" + G1.bytes_le  # a public element at byte 12 of its header


def _ack() -> bytes:
    from mqcn_model.wire.internal import session_ack

    return encode_internal(session_ack(SessionHeader(1, 0, 0, 1, 0, 64)))


def test_mqf_elements_are_read_only_inside_the_header_size() -> None:
    """HeaderSize 12 leaves no room: an element after it belongs to what follows."""
    header = L.MQFAddressHeader(_address(12, 1, PUBLIC_G1))
    assert header.FormatNameList == [] and header.Rest == b""
    assert bytes(header.payload) == PUBLIC_G1


def test_mqf_elements_are_read_only_as_many_as_element_count() -> None:
    """ElementCount 0: the bytes inside HeaderSize are the Rest, not an element."""
    header = L.MQFAddressHeader(_address(12 + len(PUBLIC_G1), 0, PUBLIC_G1))
    assert header.FormatNameList == [] and header.Rest == PUBLIC_G1


def test_an_element_that_does_not_read_ends_the_list_and_the_rest_keeps_it() -> None:
    """ElementCount 2 with one element and a FormatType 9: one element, the four bytes left
    in Rest, the header whole (not salvaged)."""
    header = L.MQFAddressHeader(_address(12 + len(PUBLIC_G1) + 4, 2, PUBLIC_G1 + b"\x09\0\0\0"))
    assert header.FormatNameList == [MQFElement(1, guid=G1)]
    assert header.Rest == b"\x09\0\0\0" and not header.broken


def test_an_align_pad_field_of_no_packet_is_no_bytes() -> None:
    field = L.AlignPadField("Padding", lambda p: 1)
    assert field.i2m(None, None) == b""
    assert field.i2m(L.BaseHeader(), None) == b"\0\0\0"


def test_a_strict_packet_field_names_itself_when_no_bytes_are_left() -> None:
    field = L.StrictPacketField("Header", L.BaseHeader(), L.BaseHeader)
    with pytest.raises(ValueError, match=r"^Header: no bytes left$"):
        field.m2i(None, b"")


def test_a_cut_internal_packet_names_its_missing_body(
    fresh, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With scapy's debug_dissector on, the salvage raises: the field says what is missing
    (the layers as a new import declares them: the Body field is made at import)."""
    from scapy.packet import conf

    layers, _ = fresh
    ack = _ack()
    monkeypatch.setattr(conf, "debug_dissector", True)
    with pytest.raises(ValueError, match=r"^Body: no bytes left$"):
        layers.InternalPacketLayer(ack[:20])


def test_dissected_headers_know_the_packet_they_are_in() -> None:
    ack = _ack()
    layer = L.InternalPacketLayer(ack)
    assert layer.BaseHeader.parent is layer and layer.Body.parent is layer


def test_an_internal_packet_of_an_unknown_type_has_an_empty_body_and_keeps_its_bytes(
    fresh,
) -> None:

    layers, _ = fresh
    ack = bytearray(_ack())
    struct.pack_into("<H", ack, 18, struct.unpack_from("<H", ack, 18)[0] | 0xF)  # PT 15
    layer = layers.InternalPacketLayer(bytes(ack))
    assert layer.InternalHeader.PT == 15 and layer.Body == b""
    assert layer.Extra == bytes(ack[20:]) and bytes(layer) == bytes(ack)


def test_queues_of_code_0_take_no_bytes() -> None:
    built = bytes(L.UserHeader(DQ=3, AQ=0, RQ=0))
    header = L.UserHeader(built + b"\x01\x02\x03\x04")
    assert header.AdminQueue == b"" and header.ResponseQueue == b""
    assert bytes(header.payload) == b"\x01\x02\x03\x04"


def test_a_container_reads_packet_size_from_twelve_bytes_and_not_from_fewer() -> None:
    """PacketSize 4 in a 12-byte input: 4 bytes are the packet, 8 follow it.  A 10-byte input
    has no PacketSize: it is all the packet's (cut)."""

    twelve = struct.pack("<HHII", 0x10, 0, 0, 4)
    layer = L.InternalPacketLayer(twelve)
    assert layer.raw_packet_cache == twelve[:4] and bytes(layer.payload) == twelve[4:]
    ten = bytes(8) + b"\x01\x00"
    for cls in (L.InternalPacketLayer, L.UserMessagePacket):
        cut = cls(ten)
        assert cut.raw_packet_cache == ten and bytes(cut.payload) == b"", cls


def test_packet_size_is_written_only_into_a_whole_base_header() -> None:
    """Built without a BaseHeader, or with one cut short and then edited, a container is its
    fields' bytes: no PacketSize is written over the bytes that follow."""
    bare = L.InternalPacketLayer(BaseHeader=None, InternalHeader=None, Extra=b"\x01" * 12)
    assert bytes(bare).endswith(b"\x01" * 12)
    assert bytes(bare) == bytes(bare.Body) + b"\x01" * 12
    cut = L.InternalPacketLayer(b"\x10\x00\x00")
    cut.Extra = b"\x07"
    rest = L.InternalPacketLayer(
        BaseHeader=None, InternalHeader=cut.InternalHeader, Body=cut.Body, Extra=b"\x07"
    )
    assert bytes(cut) == b"\x10\x00\x00" + bytes(rest)
    whole = L.InternalPacketLayer(InternalHeader=L.InternalHeader(PT=1), Body=L.SessionHeader())
    assert int.from_bytes(bytes(whole)[8:12], "little") == len(bytes(whole))
