"""The wire scapy layers and the wire struct codec agree, both ways, and the layers build the
malformed packets the codec refuses.

Differential: struct build -> scapy dissect gives the same fields; scapy build -> struct
parse gives the same fields (hypothesis, over every header, every queue type and flag).
"""

from __future__ import annotations

import contextlib
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_strategies import internal_packets, pings, real_sender_messages, user_messages

from mqcn_model.errors import DecodeError
from mqcn_model.wire import (
    decode_internal,
    decode_ping,
    decode_user_message,
    encode_internal,
    encode_ping,
    encode_user_message,
)
from mqcn_model.wire import layer_bridge as B
from mqcn_model.wire import packet_layers as L
from mqcn_model.wire.declared import join_groups, layout, split_groups
from mqcn_model.wire.internal import InternalPacket, Ping
from mqcn_model.wire.user import UserHeader
from mqcn_model.wire.usermessage import UserMessage

G1 = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")


# --- differential ---------------------------------------------------------------------------


@settings(max_examples=200)
@given(user_messages())
def test_struct_build_then_scapy_dissect_gives_the_same_fields(message: UserMessage) -> None:
    wire = encode_user_message(message)
    layer = L.UserMessagePacket(wire)
    assert not layer.broken and layer.Extra == b""
    assert B.from_layer(layer) == message
    assert bytes(layer) == wire


@settings(max_examples=200)
@given(user_messages())
def test_scapy_build_then_struct_parse_gives_the_same_fields(message: UserMessage) -> None:
    layer = B.to_layer(message)
    wire = bytes(layer)
    assert wire == encode_user_message(message)
    decoded, end = decode_user_message(wire)
    assert decoded == message and end == len(wire)


@settings(max_examples=100, deadline=None)
@given(real_sender_messages())
def test_the_mqrr_headers_agree_both_ways(message: UserMessage) -> None:
    """The SRMP pair and the extension chain ([MS-MQRR] 2.2.5) travel through both codecs:
    the layers carry them (never dropped) and give back the same record."""
    wire = encode_user_message(message)
    layer = L.UserMessagePacket(wire)
    assert not layer.broken and layer.Extra == b""
    assert (layer.SRMPEnvelopeHeader is not None) == (message.srmp_envelope is not None)
    assert (layer.Extensions is not None) == (message.extensions is not None)
    assert B.from_layer(layer) == message and bytes(layer) == wire
    built = bytes(B.to_layer(message))
    assert built == wire
    decoded, end = decode_user_message(built)
    assert decoded.srmp_envelope == message.srmp_envelope
    assert decoded.compound == message.compound and decoded.extensions == message.extensions
    assert end == len(wire)


@settings(max_examples=100)
@given(internal_packets())
def test_internal_packets_agree_both_ways(packet: InternalPacket) -> None:
    wire = encode_internal(packet)
    assert B.from_layer(L.InternalPacketLayer(wire)) == packet
    built = bytes(B.to_layer(packet))
    assert built == wire and decode_internal(built)[0] == packet


@given(pings)
def test_pings_agree_both_ways(ping: Ping) -> None:
    wire = encode_ping(ping)
    assert B.from_layer(L.PingPacket(wire)) == ping
    assert decode_ping(bytes(B.to_layer(ping))) == ping


@settings(max_examples=100)
@given(user_messages(), st.binary(max_size=40))
def test_dissection_keeps_what_follows_the_packet(message: UserMessage, tail: bytes) -> None:
    wire = encode_user_message(message)
    layer = L.UserMessagePacket(wire + tail)
    assert B.from_layer(layer) == message
    assert bytes(layer) == wire + tail


# --- malformed packets ----------------------------------------------------------------------------


def _default() -> L.UserMessagePacket:
    return L.UserMessagePacket(
        MessagePropertiesHeader=L.MessagePropertiesHeader(MessageBody=b"\x02\x01")
    )


def test_the_default_layer_is_a_valid_packet() -> None:
    wire = bytes(_default())
    message, _ = decode_user_message(wire)
    assert message.body == b"\x02\x01" and message.user.dq == 3


@pytest.mark.parametrize(
    ("layer", "requirement"),
    [
        (L.UserMessagePacket(BaseHeader=L.BaseHeader(Signature=0x11223344)), "MQMQ-2.2.19.1-2"),
        (L.UserMessagePacket(BaseHeader=L.BaseHeader(PacketSize=0x1000)), "MQMQ-2.2.19.1-3"),
        (L.UserMessagePacket(UserHeader=L.UserHeader(DQ=2)), "MQMQ-2.2.19.2-3"),
        # the flag without the header: the properties are read as an (empty) SecurityHeader,
        # a value finding (MQMQ-2.2.20.6-5), and too few bytes are left for the properties
        (L.UserMessagePacket(UserHeader=L.UserHeader(SH=1)), "MQMQ-2.2.19.1-3"),
    ],
)
def test_malformed_builds_are_refused_naming_what_they_break(layer, requirement: str) -> None:
    wire = bytes(layer)
    with pytest.raises(DecodeError) as info:
        decode_user_message(wire)
    assert info.value.requirement == requirement
    assert bytes(L.UserMessagePacket(wire)) == wire


def test_a_header_the_flags_do_not_announce_is_read_as_what_the_flags_say() -> None:
    """A SecurityHeader without its flag: the properties are read where it stands (what the
    flags say), and the 32 bytes no announced header covers are a finding at their offset,
    not a refusal -- the packet is decoded as far as its bytes allow."""
    layer = L.UserMessagePacket(SecurityHeader=L.SecurityHeader(ST=2, SecurityID=G1.bytes_le))
    wire = bytes(layer)
    packet, end = decode_user_message(wire)
    assert end == len(wire) and packet.security is None
    last = packet.findings[-1]
    assert (last.requirement, last.offset) == ("MQMQ-2.2.19.1-3", len(wire) - 32)
    assert "32 bytes at offset" in last.message


def test_lying_lengths_can_be_built() -> None:
    props = L.MessagePropertiesHeader(MessageSize=0xFFFF, MessageBody=b"ab")
    wire = bytes(L.UserMessagePacket(MessagePropertiesHeader=props))
    with pytest.raises(DecodeError) as info:
        decode_user_message(wire)
    assert info.value.requirement == "MQMQ-2.2.19.3-6"  # MessageSize above AllocationBodySize


def test_show_is_readable() -> None:
    text = _default().show(dump=True)
    for fragment in (
        "MSMQ BaseHeader",
        "Signature = 0x524f494c",
        "DQ        = PrivateQueueOnDestination",
        "DestinationQueue= <PrivateQueueFormatNameId",
        "MessageBody= 0201",
    ):
        assert fragment.replace(" ", "") in text.replace(" ", ""), fragment
    mqf = L.MQFAddressHeader(FormatNameList=[])
    assert "FormatNameList" in mqf.show(dump=True)


@settings(max_examples=300)
@given(st.binary(max_size=200))
def test_the_layers_never_raise_on_garbage(data: bytes) -> None:
    for cls in (L.UserMessagePacket, L.InternalPacketLayer, L.PingPacket):
        layer = cls(data)
        layer.show(dump=True)
        with contextlib.suppress(ValueError):
            B.from_layer(layer)


@settings(max_examples=200)
@given(user_messages(), st.data())
def test_a_cut_packet_dissects_without_raising(message: UserMessage, data) -> None:
    wire = encode_user_message(message)
    cut = wire[: data.draw(st.integers(1, len(wire) - 1))]  # b"" builds the default layer
    layer = L.UserMessagePacket(cut)
    with pytest.raises(ValueError):
        B.from_layer(layer)


def test_from_layer_refuses_bytes_after_the_last_header() -> None:
    layer = L.UserMessagePacket(bytes(_default()[L.UserMessagePacket].copy()))
    layer.Extra = b"\x00\x00\x00\x00"
    layer.BaseHeader.PacketSize = None
    with pytest.raises(ValueError, match="follow the last header"):
        B.from_layer(L.UserMessagePacket(bytes(layer)))


def test_bits_split_and_join() -> None:
    flags = layout(UserHeader).field("Flags")
    parts = split_groups(flags, 0x00200C00)
    assert parts["MP"] == 1 and parts["DQ"] == 3 and parts["RC"] == 0
    assert join_groups(flags, L.UserHeader(**parts).getfieldval) == 0x00200C00
