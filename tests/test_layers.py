"""The scapy layers and the fast codec agree, and the layers build every malformed form.

Differential part: on every generated valid message both implementations produce the same
bytes and read the same bytes back to the same objects.  Malformed part: the layers build
each broken form, the fast codec refuses it naming the right requirement, and the layers
still dissect it without raising (``bytes(layer) == input``).
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.packet import Packet, Padding, Raw

from mqcn_model import builders
from mqcn_model.codec import (
    body_buffer,
    decode_message,
    decode_value,
    encode_message,
    encode_value,
)
from mqcn_model.constants import VT, PropId
from mqcn_model.errors import DecodeError
from mqcn_model.judge import judge
from mqcn_model.message_layers import (
    ChangeNotificationMessage,
    NotificationBody,
    NotificationUpdate,
    PropValueBLOB,
    PropValueCLSIDVector,
    PropValueLPWSTR,
    dissect_value,
    from_layer,
    prop_value,
    properties,
    to_layer,
)
from mqcn_suite import strategies as S

P = PropId
MASTER = uuid.UUID("0f2c1e3a-1111-4222-8333-444455556666")
QUEUE = uuid.UUID("9a8b7c6d-1234-4567-89ab-cdef01234567")


def _layer_of(data: bytes) -> ChangeNotificationMessage:
    layer = ChangeNotificationMessage(data)
    assert bytes(layer) == data, "the layers must rebuild exactly what they dissected"
    return layer


# --- differential: the two codecs agree ----------------------------------------------------


@settings(max_examples=200)
@given(S.messages())
def test_layers_build_what_the_fast_codec_encodes(message):
    assert bytes(to_layer(message)) == encode_message(message)


@settings(max_examples=200)
@given(S.messages(), st.one_of(st.none(), st.integers(0, 0xFF)))
def test_layers_dissect_what_the_fast_codec_decodes(message, spare):
    data = encode_message(message) if spare is None else body_buffer(message, spare)
    decoded = decode_message(data)
    from_scapy = from_layer(_layer_of(data))
    assert from_scapy == decoded == message
    assert from_scapy.trailing == decoded.trailing


@settings(max_examples=400)
@given(S.vt_values(), st.binary(max_size=3))
def test_each_vt_value_agrees(pair, suffix):
    vt, value = pair
    wire = encode_value(vt, value)
    assert bytes(prop_value(vt, value)) == wire
    layer = dissect_value(vt, wire + suffix)
    fast_value, end = decode_value(vt, wire + suffix, 0)
    from_scapy = layer.to_python()
    assert from_scapy == fast_value == value
    assert type(from_scapy) is type(fast_value)  # a bool stays a bool, a tuple a tuple
    rest = layer[Padding].load if Padding in layer else b""
    assert rest == suffix and end == len(wire)


@settings(max_examples=25)
@given(S.notification_updates(), st.lists(S.properties(), min_size=240, max_size=255))
def test_updates_with_up_to_255_properties_agree(update, props):
    message = builders.v1_message([replace(update, properties=tuple(props))])
    data = encode_message(message)
    assert bytes(to_layer(message)) == data
    assert from_layer(_layer_of(data)) == decode_message(data)


@settings(max_examples=200)
@given(S.conforming_messages())
def test_conforming_messages_are_judged_conforming_by_both_paths(message):
    data = body_buffer(message)
    verdict = judge(data)
    assert verdict.conforming, [str(v) for v in verdict.violations]
    assert judge(bytes(to_layer(message, trailing=False)) + b"\x00").conforming
    assert from_layer(_layer_of(data)) == verdict.message


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    """A valid message with a few bytes overwritten, inserted or cut off."""
    data = bytearray(body_buffer(draw(S.messages(max_updates=3, max_properties=6))))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(("set", "insert", "cut")))
        if action == "set":
            data[at] = draw(st.integers(0, 0xFF))
        elif action == "insert":
            data.insert(at, draw(st.integers(0, 0xFF)))
        elif at > 0:
            del data[at:]
    return bytes(data)


@settings(max_examples=400)
@given(st.one_of(_mutated(), st.binary(min_size=1, max_size=200)))
def test_any_bytes_dissect_rebuild_and_agree_when_the_fast_codec_decodes(data):
    layer = _layer_of(data)
    assert layer.show(dump=True).startswith("###[ MQCN Change Notification Message ]###")
    try:
        decoded = decode_message(data)
    except DecodeError:
        return  # the layers may be more lenient than the decoder; rebuilding is enough
    assert from_layer(layer) == decoded
    assert bytes(layer.Trailing) == decoded.trailing


# --- malformed messages: the layers build them, the fast codec names the requirement -------


def _v1(*updates: Packet, **fields: object) -> ChangeNotificationMessage:
    return ChangeNotificationMessage(Data=list(updates), **fields)


def _change(pairs: list[tuple[int, object]], **fields: object) -> NotificationUpdate:
    return NotificationUpdate(
        Command=1,
        UseGuid=1,
        GuidIdentifier=QUEUE,
        GuidMasterId=MASTER,
        **fields,
        **properties(pairs),
    )


def _v2(**fields: object) -> ChangeNotificationMessage:
    base = {"Event": 1, "ObjectGuid": QUEUE, "DomainController": "dc1.example.com"}
    return ChangeNotificationMessage(Version=2, Data=NotificationBody(**{**base, **fields}))


MALFORMED: dict[str, tuple[Callable[[], Packet], str]] = {
    "blob-size-0xffffffff-with-3-bytes": (
        lambda: _v1(_change([(P.PROPID_Q_SECURITY, PropValueBLOB(Size=0xFFFFFFFF, Value=b"abc"))])),
        "MQCN-2.2.3.11-3",
    ),
    "numberofproperties-5-with-2-ids": (
        lambda: _v1(
            _change([(P.PROPID_Q_JOURNAL, 1), (P.PROPID_Q_QUOTA, 7)], NumberOfProperties=5)
        ),
        "MQCN-2.2.6-10",
    ),
    "useguid-7": (
        lambda: _v1(NotificationUpdate(Command=1, UseGuid=7, GuidMasterId=MASTER)),
        "MQCN-2.2.6-3",
    ),
    "version-3": (lambda: ChangeNotificationMessage(Version=3), "MQCN-2.2.4-1"),
    "unterminated-lpwstr-value": (
        lambda: _v1(_change([(P.PROPID_Q_LABEL, PropValueLPWSTR(Value=b"a\x00b\x00"))])),
        "MQCN-2.2.3.10-1",
    ),
    "unterminated-pathname": (
        lambda: _v1(
            NotificationUpdate(
                PathName=b"h\x00q\x00",
                GuidMasterId=uuid.UUID(int=(1 << 128) - 1),
                Reserved=b"\x01" * 24,
            )
        ),
        "MQCN-2.2.6-4",
    ),
    "count-3-with-1-update": (
        lambda: _v1(_change([(P.PROPID_Q_QMID, MASTER)]), NumberOfUpdateNotifications=3),
        "MQCN-2.2.4-2",
    ),
    "unknown-propid": (lambda: _v1(_change([(999, b"\x01\x02")])), "MQCN-2.2.2-1"),
    "clsid-vector-size-beyond-data": (
        lambda: _v1(_change([(P.PROPID_QM_CNS, PropValueCLSIDVector(Size=10, Value=[QUEUE]))])),
        "MQCN-2.2.3.14-4",
    ),
    "truncated-clsid": (
        lambda: _v1(_change([(P.PROPID_Q_INSTANCE, Raw(load=b"\x01" * 5))])),
        "MQCN-2.2.3.12-1",
    ),
    "body-event-9": (lambda: _v2(Event=9), "MQCN-2.2.5-2"),
    "body-guid-not-8-4-4-4-12": (lambda: _v2(ObjectGuid="{not-a-guid}"), "MQCN-2.2.5-7"),
    "body-server-with-space": (lambda: _v2(DomainController="dc 1"), "MQCN-2.2.5-8"),
    "body-server-257-chars": (lambda: _v2(DomainController="d" * 257), "MQCN-2.2.5-8"),
    "body-with-bom": (lambda: _v2(Text="\ufeff<Notification>"), "MQCN-2.2.5-5"),
    "body-missing-close-tag": (
        lambda: _v2(Text=f"<Notification><Event>1</Event><ObjectGuid>{QUEUE}</ObjectGuid>"),
        "MQCN-2.2.5-6",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_layers_build_malformed_messages_the_fast_codec_refuses(case):
    build, requirement = MALFORMED[case]
    data = bytes(build())
    with pytest.raises(DecodeError) as refused:
        decode_message(data)
    assert refused.value.requirement == requirement
    assert judge(data).requirements == (requirement,)
    assert _layer_of(data).show(dump=True)  # the layers still read it back without raising


def test_bool_0x1234_is_built_and_refused():
    wire = bytes(prop_value(VT.BOOL, 0x1234))
    assert wire == b"\x34\x12"
    with pytest.raises(DecodeError) as refused:
        decode_value(VT.BOOL, wire, 0)
    assert refused.value.requirement == "MQCN-2.2.3.3-3"
    with pytest.raises(ValueError, match="VARIANT_TRUE"):
        dissect_value(VT.BOOL, wire).to_python()


def test_v2_count_2_decodes_but_is_judged_nonconforming():
    body = NotificationBody(Event=2, ObjectGuid=QUEUE, DomainController="dc1")
    data = bytes(ChangeNotificationMessage(Version=2, NumberOfUpdateNotifications=2, Data=body))
    assert decode_message(data).count == 2
    assert "MQCN-2.2.4-3" in judge(data).requirements


def test_from_layer_refuses_what_the_fast_objects_cannot_carry():
    lying_blob = MALFORMED["blob-size-0xffffffff-with-3-bytes"][0]()
    with pytest.raises(ValueError):
        from_layer(_layer_of(bytes(lying_blob)))
    with pytest.raises(ValueError, match="NumberOfProperties"):
        from_layer(MALFORMED["numberofproperties-5-with-2-ids"][0]())


def test_truncated_header_dissects_to_raw():
    layer = _layer_of(b"\x01")
    assert layer.Version == 1 and layer.broken and Raw not in layer
    cut = _layer_of(b"\x01\x02\x00\x01\x02")  # UseGuid 1, then 1 byte of GuidIdentifier
    assert cut.Data[0].broken and cut.Data[0].UseGuid == 1 and cut.Data[0][Raw].load == b"\x02"


# --- defaults, show() and the import rule --------------------------------------------------


def test_defaults_build_valid_messages():
    assert bytes(ChangeNotificationMessage()) == b"\x01\x00"
    assert judge(bytes(ChangeNotificationMessage())).conforming
    v2 = bytes(ChangeNotificationMessage(Version=2, Data=NotificationBody()))
    assert judge(v2).conforming
    with_update = bytes(ChangeNotificationMessage(Data=[NotificationUpdate()]))
    assert decode_message(with_update).updates[0].path_name == "host\\queue"


def test_show_names_every_field():
    creation = builders.queue_creation(QUEUE, "host\\orders", master=MASTER, label="orders")
    layer = to_layer(builders.v1_message([creation]), trailing=True)
    text = layer.show(dump=True)
    for name in ("Version", "NumberOfUpdateNotifications", "PathName", "GuidMasterId"):
        assert name in text
    assert "PROPID_Q_LABEL" in text and "'orders'" in text and str(QUEUE) in text
    assert "(CREATE_QUEUE)" in _v2().show2(dump=True)


def test_layers_do_not_import_scapy_all():
    code = "import sys, mqcn_model.message_layers; print('scapy.all' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
