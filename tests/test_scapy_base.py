"""The one scapy base of both layer modules (mqcn_model.scapy_base): the dissection that never
raises, and what each layer module does with the bytes a broken layer could not read.

* both modules' layers derive from :class:`SalvagingLayer` and use its field helpers;
* a broken dissection keeps the fields read, sets ``broken`` and rebuilds the input exactly;
  ``conf.debug_dissector`` re-raises;
* a field that reads as ``None`` before the field that breaks is not tracked (the copy the
  MS-MQCN layers had would raise out of the dissection there);
* a broken nested MS-MQCN structure keeps the rest as its own Raw payload, a broken wire
  header gives it back to its packet;
* the UTF-16 and computed-size helpers build what each layer module needs.
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

import pytest
from scapy.fields import ByteField, Field, PacketField
from scapy.packet import Raw, conf

from mqcn_model import message_layers as M
from mqcn_model.scapy_base import (
    AutoByteField,
    AutoLEIntField,
    GUIDField,
    SalvagingLayer,
    ScapyPacket,
    UTF16Field,
    UTF16ZField,
)
from mqcn_model.wire import packet_layers as W


class _Empty(ScapyPacket):
    fields_desc: ClassVar[list[Field[Any, Any]]] = [ByteField("b", 0)]


class _NothingInside(PacketField):
    """A packet field that reads as ``None`` (nothing inside), taking no bytes."""

    def getfield(self, pkt: ScapyPacket, s: bytes) -> tuple[bytes, Any]:
        return s, None


class _Holder(SalvagingLayer):
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        ByteField("n", 0),
        _NothingInside("inner", None, _Empty),
        GUIDField("g", None),
    ]


def test_both_layer_modules_stand_on_the_one_base() -> None:
    for layer in (M.ChangeNotificationMessage, M.NotificationUpdate, M.PropValue):
        assert issubclass(layer, SalvagingLayer)
    for layer in (W.UserMessagePacket, W.InternalPacketLayer, W.PingPacket, W.BaseHeader):
        assert issubclass(layer, SalvagingLayer)
    assert M.GUIDField is W.GUIDField is GUIDField


def test_a_broken_layer_keeps_what_it_read_and_rebuilds_the_input() -> None:
    cut = _Holder(b"\x07\x01\x02\x03")  # n, then 3 of the GUID's 16 bytes
    assert cut.broken and cut.n == 7 and cut.inner is None
    assert bytes(cut) == b"\x07\x01\x02\x03" and cut[Raw].load == b"\x01\x02\x03"
    whole = _Holder(b"\x07" + bytes(16))
    assert not whole.broken and whole.g == uuid.UUID(int=0)


def test_the_debug_dissector_setting_re_raises() -> None:
    before = conf.debug_dissector
    conf.debug_dissector = True
    try:
        with pytest.raises(Exception):  # noqa: B017 - scapy's own struct error, any kind
            _Holder(b"\x07\x01")
        with pytest.raises(Exception):  # noqa: B017
            M.ChangeNotificationMessage(b"\x01\x02\x00\x01\x02")
        with pytest.raises(Exception):  # noqa: B017
            W.PingPacket(b"\x00\x00\x01")
    finally:
        conf.debug_dissector = before


def test_a_broken_nested_message_structure_keeps_its_rest_a_broken_wire_header_gives_it_back() -> (
    None
):
    """MS-MQCN: the cut update holds the byte it could not read (so the message's update list
    stops there); wire: the cut PrivateQueueFormatNameId leaves its bytes to what follows."""
    message = M.ChangeNotificationMessage(b"\x01\x02\x00\x01\x02")  # 1 byte of GuidIdentifier
    update = message.Data[0]
    assert update.broken and update[Raw].load == b"\x02"
    assert bytes(message) == b"\x01\x02\x00\x01\x02"
    header = W.PrivateQueueFormatNameId(b"\x01\x02")  # 2 of its 4 bytes
    assert header.broken
    assert header.extract_padding(b"\x01\x02") == (b"", b"\x01\x02")
    assert update.extract_padding(b"\x02") == (b"\x02", None)


def test_the_utf16_fields_write_a_str_with_its_terminator_and_bytes_verbatim() -> None:
    class Z(ScapyPacket):
        fields_desc: ClassVar[list[Field[Any, Any]]] = [UTF16ZField("s", None)]

    class L(ScapyPacket):
        fields_desc: ClassVar[list[Field[Any, Any]]] = [
            UTF16Field("s", None, length_from=lambda p: 4)
        ]

    assert bytes(Z()) == b"\x00\x00"  # None: the empty string, terminated
    assert bytes(L()) == b""  # None: nothing at all
    assert bytes(Z(s="\ud800")) == bytes(L(s="\ud800")) == b"\x00\xd8\x00\x00"
    assert bytes(Z(s=b"\x41")) == bytes(L(s=b"\x41")) == b"\x41"
    assert Z(b"a\x00\x00\x00").s == L(b"a\x00\x00\x00").s == "a"


def test_computed_fields_compute_when_none_and_can_lie() -> None:
    class C(ScapyPacket):
        fields_desc: ClassVar[list[Field[Any, Any]]] = [
            AutoByteField("count", lambda p: len(p.data)),
            AutoLEIntField("size", lambda p: 4 + len(p.data)),
            Field("data", b"", fmt="3s"),
        ]

    assert bytes(C(data=b"xyz")) == b"\x03" + (7).to_bytes(4, "little") + b"xyz"
    assert bytes(C(count=9, size=1, data=b"xyz")) == b"\x09\x01\x00\x00\x00xyz"


def test_utf16_field_reads_text_only_when_its_one_terminator_ends_it() -> None:
    """A whole number of code units ending in the only 0x0000 is text; anything else (an odd
    length, a terminator before the end) stays the bytes read, for the rules to judge."""
    field = UTF16Field("name", None, length_from=lambda pkt: 0)
    assert field.m2i(None, "ab".encode("utf-16-le") + b"\x00\x00") == "ab"
    assert field.m2i(None, b"\x00\x00") == ""  # the terminator alone: the empty text
    assert field.m2i(None, b"") == b""  # nothing read: no text, no terminator
    assert field.m2i(None, b"\x00\x00a\x00") == b"\x00\x00a\x00"  # terminator not last
    assert field.m2i(None, b"a\x00\x00\x00\x00") == b"a\x00\x00\x00\x00"  # odd length
