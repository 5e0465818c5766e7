"""Unit tests of the fast codec (``mqcn_model.codec``), one structure at a time.

GUID (MS-DTYP 2.3.4.2 and the 2.2.5 text form), the 15 PROPVALUE types of 2.2.3, the
Notification Update (2.2.6), the Notification Body (2.2.5), the Change Notification Message
(2.2.4) and the body buffer of 3.3.5.3.  Every decode failure must be a DecodeError naming the
requirement broken and the byte offset where it is broken.
"""

from __future__ import annotations

import dataclasses
import struct
import uuid
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqcn_model.builders import (
    machine_update,
    minimal_security_descriptor,
    queue_creation,
    queue_deletion,
    queue_update,
)
from mqcn_model.catalog import CATALOG
from mqcn_model.codec import (
    ChangeNotificationMessage,
    NotificationBody,
    NotificationUpdate,
    body_buffer,
    decode_body,
    decode_guid,
    decode_message,
    decode_update,
    decode_value,
    encode_body,
    encode_guid,
    encode_message,
    encode_update,
    encode_value,
    guid_from_text,
    guid_to_text,
    v1_message,
    v2_message,
)
from mqcn_model.codec.propvalue import PropertyValue
from mqcn_model.codec.update import Property
from mqcn_model.constants import (
    MAX_UPDATES,
    PROPERTIES,
    VT,
    Command,
    Event,
    PropId,
    Version,
)
from mqcn_model.errata import LENIENT, STRICT
from mqcn_model.errors import DecodeError
from mqcn_model.judge import judge

P = PropId
G = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")
QUEUE = uuid.UUID("6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f0")
QM = uuid.UUID("0f2c1e3a-0000-4000-8000-000000000001")
MASTER = uuid.UUID("11111111-2222-4333-8444-555555555555")
MAX_GUID = uuid.UUID(int=(1 << 128) - 1)
NIL = uuid.UUID(int=0)


def raises_decode(call: Callable[[], object]) -> DecodeError:
    """Run ``call``; it must raise DecodeError (and nothing else) with a catalog requirement."""
    with pytest.raises(DecodeError) as info:
        call()
    error = info.value
    assert error.requirement in CATALOG
    assert error.violation.message
    return error


def assert_decode_error(
    call: Callable[[], object], requirement: str, offset: int | None
) -> DecodeError:
    error = raises_decode(call)
    assert (error.requirement, error.offset) == (requirement, offset), str(error)
    return error


# --- GUID ([MS-DTYP] 2.3.4.2 and the 2.2.5 object-guid text form) --------------------------


def test_guid_wire_layout_is_data1_data2_data3_little_endian_data4_in_order() -> None:
    wire = encode_guid(G)
    data1, data2, data3 = struct.unpack_from("<IHH", wire)
    assert (data1, data2, data3) == (0x00112233, 0x4455, 0x6677)
    assert wire[8:] == bytes.fromhex("8899aabbccddeeff")  # Data4: array order, not swapped
    assert wire == bytes.fromhex("33221100554477668899aabbccddeeff")


def test_guid_known_ms_dtyp_example() -> None:
    guid = guid_from_text("F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6")
    assert encode_guid(guid).hex() == "ae4f1df8ec7dd011a76500a0c91e6bf6"


def test_decode_guid_at_an_offset_returns_the_next_offset() -> None:
    buf = b"\xaa\xbb" + encode_guid(G) + b"\xcc"
    assert decode_guid(buf, 2) == (G, 18)


@pytest.mark.parametrize("available", range(16))
def test_decode_guid_short_raises_with_the_callers_requirement(available: int) -> None:
    buf = b"\x00" * 3 + encode_guid(G)[:available]
    assert_decode_error(lambda: decode_guid(buf, 3), "MQCN-2.2.3.12-1", 3)
    assert_decode_error(lambda: decode_guid(buf, 3, requirement="MQCN-2.2.6-7"), "MQCN-2.2.6-7", 3)


def test_decode_guid_respects_end() -> None:
    buf = encode_guid(G) + b"\x00" * 4
    assert_decode_error(lambda: decode_guid(buf, 0, end=15), "MQCN-2.2.3.12-1", 0)
    assert decode_guid(buf, 0, end=16) == (G, 16)


def test_guid_text_form_is_8_4_4_4_12_lower_case_by_default() -> None:
    assert guid_to_text(G) == "00112233-4455-6677-8899-aabbccddeeff"
    assert guid_to_text(G, upper=True) == "00112233-4455-6677-8899-AABBCCDDEEFF"


@pytest.mark.parametrize(
    "text",
    [
        "00112233-4455-6677-8899-aabbccddeeff",
        "00112233-4455-6677-8899-AABBCCDDEEFF",
        "00112233-4455-6677-8899-AaBbCcDdEeFf",
    ],
)
def test_guid_from_text_accepts_hex_digits_in_any_case(text: str) -> None:
    assert guid_from_text(text) == G


@pytest.mark.parametrize(
    "text",
    [
        "{00112233-4455-6677-8899-aabbccddeeff}",  # braces: the MS-DTYP 2.3.4.3 form, not 2.2.5
        "00112233-4455-6677-8899-aabbccddeeff0",  # 13 digits in the last group (errata E-04)
        "00112233445566778899aabbccddeeff",  # no hyphens
        "00112233-4455-6677-8899-aabbccddeefg",  # not hex
        "0011223-34455-6677-8899-aabbccddeeff",  # groups in the wrong places
        " 00112233-4455-6677-8899-aabbccddeeff",
        "urn:uuid:00112233-4455-6677-8899-aabbccddeeff",
        "٠٠112233-4455-6677-8899-aabbccddeeff",  # Arabic-Indic digits are not HEXDIG
        "",
    ],
)
def test_guid_from_text_rejects_other_forms(text: str) -> None:
    with pytest.raises(ValueError):
        guid_from_text(text)


@given(st.uuids(version=None))
@settings(max_examples=200, database=None)
def test_guid_round_trips_binary_and_text(guid: uuid.UUID) -> None:
    assert decode_guid(encode_guid(guid), 0) == (guid, 16)
    assert guid_from_text(guid_to_text(guid)) == guid
    assert guid_from_text(guid_to_text(guid, upper=True)) == guid


# --- PROPVALUE (2.2.3): the 15 types ---------------------------------------------------------

# (type, value, exact wire bytes): the boundaries of every type.
BOUNDARIES: list[tuple[VT, PropertyValue, bytes]] = [
    (VT.I1, -128, b"\x80"),
    (VT.I1, 127, b"\x7f"),
    (VT.I1, 0, b"\x00"),
    (VT.UI1, 0, b"\x00"),
    (VT.UI1, 255, b"\xff"),
    (VT.I2, -32768, b"\x00\x80"),
    (VT.I2, 32767, b"\xff\x7f"),
    (VT.I2, -2, b"\xfe\xff"),
    (VT.UI2, 0, b"\x00\x00"),
    (VT.UI2, 0xFFFF, b"\xff\xff"),
    (VT.UI2, 0x0102, b"\x02\x01"),
    (VT.I4, -(2**31), b"\x00\x00\x00\x80"),
    (VT.I4, 2**31 - 1, b"\xff\xff\xff\x7f"),
    (VT.UI4, 0, b"\x00\x00\x00\x00"),
    (VT.UI4, 2**32 - 1, b"\xff\xff\xff\xff"),
    (VT.UI4, 0x01020304, b"\x04\x03\x02\x01"),
    (VT.I8, -(2**63), b"\x00" * 7 + b"\x80"),
    (VT.I8, 2**63 - 1, b"\xff" * 7 + b"\x7f"),
    (VT.UI8, 0, b"\x00" * 8),
    (VT.UI8, 2**64 - 1, b"\xff" * 8),
    (VT.UI8, 0x0102030405060708, bytes.fromhex("0807060504030201")),
    (VT.BOOL, True, b"\xff\xff"),
    (VT.BOOL, False, b"\x00\x00"),
    (VT.LPWSTR, "", b"\x00\x00"),
    (VT.LPWSTR, "ab", b"a\x00b\x00\x00\x00"),
    (VT.LPWSTR, "\U0001f600", b"\x3d\xd8\x00\xde\x00\x00"),  # a surrogate pair is fine
    (VT.LPWSTR, "é\u4200", b"\xe9\x00\x00\x42\x00\x00"),  # 0x0000 across units is no terminator
    (VT.BLOB, b"", b"\x00\x00\x00\x00"),
    (VT.BLOB, b"\x00\xff", b"\x02\x00\x00\x00\x00\xff"),
    (VT.CLSID, G, encode_guid(G)),
    (VT.CLSID, NIL, b"\x00" * 16),
    (VT.CLSID, MAX_GUID, b"\xff" * 16),
    (VT.UI4_VECTOR, (), b"\x00\x00\x00\x00"),
    (VT.UI4_VECTOR, (0, 2**32 - 1), b"\x02\x00\x00\x00" + b"\x00" * 4 + b"\xff" * 4),
    (VT.CLSID_VECTOR, (), b"\x00\x00\x00\x00"),
    (VT.CLSID_VECTOR, (G, NIL), b"\x02\x00\x00\x00" + encode_guid(G) + b"\x00" * 16),
    (VT.LPWSTR_VECTOR, (), b"\x00\x00\x00\x00"),
    (VT.LPWSTR_VECTOR, ("",), b"\x01\x00\x00\x00\x00\x00"),
    (VT.LPWSTR_VECTOR, ("a", ""), b"\x02\x00\x00\x00a\x00\x00\x00\x00\x00"),
]


def test_boundaries_cover_all_15_types() -> None:
    assert {vt for vt, _, _ in BOUNDARIES} == set(VT)
    assert len(VT) == 15


@pytest.mark.parametrize(("vt", "value", "wire"), BOUNDARIES, ids=lambda x: repr(x)[:40])
def test_value_encodes_to_its_exact_wire_form(vt: VT, value: PropertyValue, wire: bytes) -> None:
    assert encode_value(vt, value) == wire


@pytest.mark.parametrize(("vt", "value", "wire"), BOUNDARIES, ids=lambda x: repr(x)[:40])
def test_value_decodes_at_an_offset_and_stops_at_its_end(
    vt: VT, value: PropertyValue, wire: bytes
) -> None:
    buf = b"\x99\x99\x99" + wire + b"\x01\x02\x03\x04\x05"
    decoded, stop = decode_value(vt, buf, 3)
    assert decoded == value
    assert type(decoded) is type(value)
    assert stop == 3 + len(wire)
    # ``end`` exactly at the value's end is enough
    assert decode_value(vt, buf, 3, 3 + len(wire)) == (value, 3 + len(wire))


_INT_RANGES = {
    VT.I1: (-(2**7), 2**7 - 1),
    VT.UI1: (0, 2**8 - 1),
    VT.I2: (-(2**15), 2**15 - 1),
    VT.UI2: (0, 2**16 - 1),
    VT.I4: (-(2**31), 2**31 - 1),
    VT.UI4: (0, 2**32 - 1),
    VT.I8: (-(2**63), 2**63 - 1),
    VT.UI8: (0, 2**64 - 1),
}
_TEXT = st.text(st.characters(codec="utf-16", exclude_characters="\x00"), max_size=40)
VALUE_STRATEGIES: dict[VT, st.SearchStrategy[PropertyValue]] = {
    **{vt: st.integers(lo, hi) for vt, (lo, hi) in _INT_RANGES.items()},
    VT.BOOL: st.booleans(),
    VT.LPWSTR: _TEXT,
    VT.BLOB: st.binary(max_size=64),
    VT.CLSID: st.uuids(version=None),
    VT.UI4_VECTOR: st.lists(st.integers(0, 2**32 - 1), max_size=20).map(tuple),
    VT.CLSID_VECTOR: st.lists(st.uuids(version=None), max_size=8).map(tuple),
    VT.LPWSTR_VECTOR: st.lists(_TEXT, max_size=8).map(tuple),
}


@pytest.mark.parametrize("vt", list(VT), ids=lambda vt: vt.name)
@given(data=st.data())
@settings(max_examples=60, database=None)
def test_every_type_round_trips(vt: VT, data: st.DataObject) -> None:
    value = data.draw(VALUE_STRATEGIES[vt])
    wire = encode_value(vt, value)
    assert decode_value(vt, wire, 0) == (value, len(wire))


@pytest.mark.parametrize(
    ("vt", "value"),
    [
        (VT.I1, 128),
        (VT.I1, -129),
        (VT.UI1, 256),
        (VT.UI1, -1),
        (VT.I2, 2**15),
        (VT.UI2, 2**16),
        (VT.I4, 2**31),
        (VT.UI4, 2**32),
        (VT.UI4, -1),
        (VT.I8, 2**63),
        (VT.UI8, 2**64),
        (VT.UI4, True),  # a bool is not an integer value here
        (VT.BOOL, 1),
        (VT.LPWSTR, b"bytes"),
        (VT.BLOB, "text"),
        (VT.CLSID, "00112233-4455-6677-8899-aabbccddeeff"),
        (VT.UI4_VECTOR, (2**32,)),
    ],
)
def test_encode_refuses_values_that_do_not_fit(vt: VT, value: object) -> None:
    with pytest.raises((ValueError, struct.error)):
        encode_value(vt, value)  # type: ignore[arg-type]


SCALAR_SIZE_REQUIREMENT = {
    VT.I1: (1, "MQCN-2.2.3.4-1"),
    VT.UI1: (1, "MQCN-2.2.3.5-1"),
    VT.I2: (2, "MQCN-2.2.3.1-1"),
    VT.UI2: (2, "MQCN-2.2.3.6-1"),
    VT.I4: (4, "MQCN-2.2.3.2-1"),
    VT.UI4: (4, "MQCN-2.2.3.7-1"),
    VT.I8: (8, "MQCN-2.2.3.8-1"),
    VT.UI8: (8, "MQCN-2.2.3.9-1"),
    VT.BOOL: (2, "MQCN-2.2.3.3-1"),
    VT.CLSID: (16, "MQCN-2.2.3.12-1"),
}


@pytest.mark.parametrize("vt", list(SCALAR_SIZE_REQUIREMENT), ids=lambda vt: vt.name)
def test_fixed_size_value_cut_short(vt: VT) -> None:
    size, requirement = SCALAR_SIZE_REQUIREMENT[vt]
    for available in range(size):
        buf = b"\x07" * 5 + b"\x00" * available + b"\xee" * 9
        stop = 5 + available
        assert_decode_error(lambda b=buf, e=stop: decode_value(vt, b, 5, e), requirement, 5)
        assert_decode_error(lambda b=buf, e=stop: decode_value(vt, b[:e], 5), requirement, 5)


@pytest.mark.parametrize("raw", [0x0001, 0x00FF, 0xFF00, 0x8000, 0xFFFE, 0x7FFF])
def test_bool_other_than_ffff_or_0000_is_malformed(raw: int) -> None:
    buf = b"\x00\x00" + struct.pack("<H", raw)
    assert_decode_error(lambda: decode_value(VT.BOOL, buf, 2), "MQCN-2.2.3.3-3", 2)


@pytest.mark.parametrize(
    "raw",
    [b"", b"a", b"a\x00", b"a\x00b\x00\x00", b"a\x00\x00b\x00", b"a\x00\x00"],
    ids=repr,
)
def test_lpwstr_without_an_aligned_terminator(raw: bytes) -> None:
    buf = b"\x01\x01" + raw
    assert_decode_error(lambda: decode_value(VT.LPWSTR, buf, 2), "MQCN-2.2.3.10-1", 2)


def test_lpwstr_terminator_beyond_end_is_not_seen() -> None:
    buf = "abc".encode("utf-16-le") + b"\x00\x00"
    assert_decode_error(lambda: decode_value(VT.LPWSTR, buf, 0, 6), "MQCN-2.2.3.10-1", 0)
    assert decode_value(VT.LPWSTR, buf, 0, 8) == ("abc", 8)


@pytest.mark.parametrize(
    ("units", "bad_at"),
    [
        ([0xD800], 0),  # lone high surrogate before the terminator
        ([0xDC00], 0),  # lone low surrogate
        ([0x0061, 0x0062, 0xD83D], 4),
        ([0x0061, 0xDE00, 0x0062], 2),
        ([0xD800, 0xD800, 0xDC00], 0),  # high, then a proper pair
        ([0xDBFF, 0x0041], 0),
    ],
)
def test_lpwstr_lone_surrogate_strict_vs_lenient(units: list[int], bad_at: int) -> None:
    raw = struct.pack(f"<{len(units)}H", *units) + b"\x00\x00"
    buf = b"\xaa" * 4 + raw
    assert_decode_error(lambda: decode_value(VT.LPWSTR, buf, 4), "MQCN-2.2.3.10-2", 4 + bad_at)
    text, stop = decode_value(VT.LPWSTR, buf, 4, readings=LENIENT)
    assert stop == len(buf)
    assert text.encode("utf-16-le", "surrogatepass") == raw[:-2]  # type: ignore[union-attr]
    switched = dataclasses.replace(STRICT, lone_surrogates=True)
    assert decode_value(VT.LPWSTR, buf, 4, readings=switched) == (text, stop)
    assert encode_value(VT.LPWSTR, text) == raw  # lone surrogates survive encoding


@pytest.mark.parametrize("available", range(4))
def test_blob_size_cut_short(available: int) -> None:
    buf = b"\x00" * 3 + b"\x05" * available
    assert_decode_error(lambda: decode_value(VT.BLOB, buf, 3), "MQCN-2.2.3.11-2", 3)


@pytest.mark.parametrize("size", [1, 5, 6, 2**31, 2**32 - 1])
def test_blob_size_beyond_the_data(size: int) -> None:
    buf = b"\x00" + struct.pack("<I", size) + b"data"[: min(4, size - 1)]
    assert_decode_error(lambda: decode_value(VT.BLOB, buf, 1), "MQCN-2.2.3.11-3", 1)


VECTOR_REQUIREMENTS = {
    # type: (Size cut short, Size beyond data, element broken)
    VT.UI4_VECTOR: ("MQCN-2.2.3.13-2", "MQCN-2.2.3.13-4"),
    VT.CLSID_VECTOR: ("MQCN-2.2.3.14-2", "MQCN-2.2.3.14-4"),
    VT.LPWSTR_VECTOR: ("MQCN-2.2.3.15-2", "MQCN-2.2.3.15-4"),
}


@pytest.mark.parametrize("vt", list(VECTOR_REQUIREMENTS), ids=lambda vt: vt.name)
def test_vector_size_cut_short(vt: VT) -> None:
    size_requirement, _ = VECTOR_REQUIREMENTS[vt]
    for available in range(4):
        buf = b"\x09" * 2 + b"\x01" * available
        assert_decode_error(lambda b=buf: decode_value(vt, b, 2), size_requirement, 2)


@pytest.mark.parametrize("vt", list(VECTOR_REQUIREMENTS), ids=lambda vt: vt.name)
@pytest.mark.parametrize("count", [1, 2, 3, 1000, 2**31, 2**32 - 1])
def test_vector_count_beyond_the_data(vt: VT, count: int) -> None:
    _, count_requirement = VECTOR_REQUIREMENTS[vt]
    element = {VT.UI4_VECTOR: 4, VT.CLSID_VECTOR: 16, VT.LPWSTR_VECTOR: 2}[vt]
    data = b"\x00" * (element * (count - 1)) if count < 10 else b"\x00" * 64
    buf = b"\x09" + struct.pack("<I", count) + data[: max(0, element * count - 1)]
    assert_decode_error(lambda: decode_value(vt, buf, 1), count_requirement, 1)


def test_lpwstr_vector_element_without_terminator() -> None:
    buf = struct.pack("<I", 2) + "ab".encode("utf-16-le") + b"\x00\x00" + "cd".encode("utf-16-le")
    assert_decode_error(lambda: decode_value(VT.LPWSTR_VECTOR, buf, 0), "MQCN-2.2.3.15-3", 10)


def test_lpwstr_vector_element_lone_surrogate() -> None:
    buf = struct.pack("<I", 2) + b"\x00\x00" + b"x\x00\x00\xdc\x00\x00"
    assert_decode_error(lambda: decode_value(VT.LPWSTR_VECTOR, buf, 0), "MQCN-2.2.3.10-2", 8)
    assert decode_value(VT.LPWSTR_VECTOR, buf, 0, readings=LENIENT) == (("", "x\udc00"), 12)


def test_decode_value_refuses_a_type_outside_the_fifteen() -> None:
    with pytest.raises(ValueError):
        decode_value(0x0008, b"\x00" * 8, 0)  # type: ignore[arg-type]  # VT_BSTR


@pytest.mark.parametrize("value", [("a", "b"), b"\x00" * 8, 5])
def test_encode_value_refuses_a_type_outside_the_fifteen(value: PropertyValue) -> None:
    with pytest.raises(ValueError, match="not a MS-MQCN PROPVALUE type"):
        encode_value(0x0008, value)  # type: ignore[arg-type]  # VT_BSTR


# --- Notification Update (2.2.6) -----------------------------------------------------------


def full_creation(path: str = "host\\orders") -> NotificationUpdate:
    return queue_creation(QUEUE, path, master=MASTER, label="Orders")


def full_machine_update() -> NotificationUpdate:
    address = struct.pack("<HH", 6, 1) + b"\x1f\x90\xc0\xa8\x00\x01"
    return machine_update(
        QM,
        [
            (P.PROPID_QM_QUOTA, 1000),
            (P.PROPID_QM_SECURITY, minimal_security_descriptor()),
            (P.PROPID_QM_ADDRESS, address),
            (P.PROPID_QM_CNS, (G, NIL)),
            (P.PROPID_QM_MACHINE_TYPE, "Windows"),
            (P.PROPID_QM_OS, 0x400),
        ],
        master=MASTER,
    )


SAMPLE_UPDATES: dict[str, Callable[[], NotificationUpdate]] = {
    "creation": full_creation,
    "creation-private": lambda: full_creation("host\\private$\\orders;poison"),
    "queue-update": lambda: queue_update(
        QUEUE, QM, {P.PROPID_Q_QUOTA: 5, P.PROPID_Q_BASEPRIORITY: -3}, master=MASTER
    ),
    "machine-update": full_machine_update,
    "deletion": lambda: queue_deletion(QUEUE, master=MASTER),
    "no-properties": lambda: NotificationUpdate(Command.UPDATE, 1, None, G, MASTER),
    "reserved-set": lambda: dataclasses.replace(full_creation(), reserved=bytes(range(24))),
    "lone-surrogate-label": lambda: queue_update(
        QUEUE, QM, {P.PROPID_Q_LABEL: "a\ud800b"}, master=MASTER
    ),
}


@pytest.mark.parametrize("name", list(SAMPLE_UPDATES))
def test_update_round_trips(name: str) -> None:
    update = SAMPLE_UPDATES[name]()
    wire = encode_update(update)
    readings = LENIENT if "surrogate" in name else STRICT
    decoded, stop = decode_update(b"\xee" + wire + b"\xee", 1, readings=readings)
    assert decoded == update
    assert (stop, decoded.offset, decoded.size) == (1 + len(wire), 1, len(wire))
    assert encode_update(decoded) == wire


def test_deletion_update_exact_layout() -> None:
    wire = encode_update(queue_deletion(QUEUE, master=MASTER))
    expected = (
        b"\x02\x01"
        + QUEUE.bytes_le
        + MASTER.bytes_le
        + bytes(24)
        + b"\x02"
        + struct.pack("<II", 1403, 1404)
        + b"\x01\x01"
    )
    assert wire == expected
    assert len(wire) == 69


def test_creation_update_layout_starts_with_the_pathname() -> None:
    wire = encode_update(full_creation("h\\q"))
    assert wire[:2] == b"\x00\x00"
    assert wire[2:10] == "h\\q\x00".encode("utf-16-le")
    assert wire[10:26] == MASTER.bytes_le
    assert wire[26:50] == bytes(24)
    assert wire[50] == 15


def test_decoded_update_records_property_offsets() -> None:
    update = queue_update(QUEUE, QM, {P.PROPID_Q_QUOTA: 7}, master=MASTER)
    decoded, _ = decode_update(encode_update(update), 0)
    ids_at = 2 + 16 + 16 + 24 + 1
    assert [p.id_offset for p in decoded.properties] == [ids_at, ids_at + 4]
    assert [p.value_offset for p in decoded.properties] == [ids_at + 8, ids_at + 8 + 16]


def test_255_properties_in_one_update() -> None:
    pairs = [(P.PROPID_Q_QMID, QM)] + [(P.PROPID_Q_QUOTA, n) for n in range(254)]
    update = NotificationUpdate.change(QUEUE, pairs, master=MASTER)
    wire = encode_update(update)
    assert wire[2 + 16 + 16 + 24] == 255
    decoded, stop = decode_update(wire, 0)
    assert decoded == update
    assert stop == len(wire)
    assert len(decoded.properties) == 255


def test_256_properties_do_not_fit() -> None:
    pairs = [(P.PROPID_Q_QUOTA, n) for n in range(256)]
    with pytest.raises(ValueError, match="at most 255 properties fit in one update"):
        encode_update(NotificationUpdate.change(QUEUE, pairs, master=MASTER))


@pytest.mark.parametrize(
    "update",
    [
        NotificationUpdate(0, 2, None, G, MASTER),
        NotificationUpdate(0, 0, None, None, MASTER),
        NotificationUpdate(1, 1, None, None, MASTER),
        NotificationUpdate(1, 1, None, G, MASTER, reserved=b"\x00"),
        NotificationUpdate(1, 1, None, G, MASTER, NotificationUpdate.props([(999, 1)])),
    ],
)
def test_encode_update_refuses_what_it_cannot_express(update: NotificationUpdate) -> None:
    with pytest.raises(ValueError):
        encode_update(update)


def test_update_shorter_than_command_and_useguid() -> None:
    assert_decode_error(lambda: decode_update(b"", 0), "MQCN-2.2.6-1", 0)
    assert_decode_error(lambda: decode_update(b"\x00\x00\x01", 2), "MQCN-2.2.6-1", 2)


@pytest.mark.parametrize("use_guid", [2, 3, 0x10, 0xFF])
def test_useguid_other_than_0_or_1(use_guid: int) -> None:
    wire = bytearray(encode_update(queue_deletion(QUEUE, master=MASTER)))
    wire[1] = use_guid
    buf = b"\x00\x00\x00" + bytes(wire)
    assert_decode_error(lambda: decode_update(buf, 3), "MQCN-2.2.6-3", 4)


def test_pathname_lone_surrogate_strict_vs_lenient() -> None:
    update = NotificationUpdate(Command.CREATE, 0, "h\\q\udc00", None, MASTER)
    wire = encode_update(update)
    assert_decode_error(lambda: decode_update(wire, 0), "MQCN-2.2.6-4", 2 + 6)
    assert decode_update(wire, 0, readings=LENIENT)[0] == update


@pytest.mark.parametrize(
    "propid", [0, 1, 100, 116, 124, 127, 237, 999, 1000, 1102, 1405, 0xFFFFFFFF]
)
def test_unknown_propid_stops_decoding_at_its_offset(propid: int) -> None:
    update = queue_update(QUEUE, QM, {P.PROPID_Q_QUOTA: 7}, master=MASTER)
    wire = bytearray(encode_update(update))
    second_id = 2 + 16 + 16 + 24 + 1 + 4
    wire[second_id : second_id + 4] = struct.pack("<I", propid)
    assert_decode_error(lambda: decode_update(bytes(wire), 0), "MQCN-2.2.2-1", second_id)


def test_every_known_propid_decodes() -> None:
    assert len(PROPERTIES) == 31
    for propid, definition in PROPERTIES.items():
        value = next(v for t, v, _ in BOUNDARIES if t is definition.vt)
        update = NotificationUpdate.change(G, [(propid, value)], master=MASTER)
        assert decode_update(encode_update(update), 0)[0] == update


# Requirement a value of each type breaks when the data ends inside it (``cut`` bytes in).
def value_truncation_requirement(vt: VT, cut: int) -> str:
    if vt in SCALAR_SIZE_REQUIREMENT:
        return SCALAR_SIZE_REQUIREMENT[vt][1]
    if vt is VT.LPWSTR:
        return "MQCN-2.2.3.10-1"
    if vt is VT.BLOB:
        return "MQCN-2.2.3.11-2" if cut < 4 else "MQCN-2.2.3.11-3"
    size_requirement, count_requirement = VECTOR_REQUIREMENTS[vt]
    return size_requirement if cut < 4 else count_requirement


def update_truncation_expectations(
    update: NotificationUpdate, base: int
) -> list[tuple[int, int, str, int]]:
    """(from, to, requirement, offset): decoding fails thus when the data ends in [from, to)."""
    wire = encode_update(update)
    decoded, _ = decode_update(wire, 0)
    spans: list[tuple[int, int, str, int]] = []
    position = 2
    spans.append((0, 2, "MQCN-2.2.6-1", 0))
    if update.use_guid == 0:
        assert update.path_name is not None
        end = position + 2 * len(update.path_name) + 2
        spans.append((position, end, "MQCN-2.2.6-4", position))
    else:
        end = position + 16
        spans.append((position, end, "MQCN-2.2.6-7", position))
    position, end = end, end + 16 + 24 + 1
    spans.append((position, end, "MQCN-2.2.6-11", position))
    position, end = end, end + 4 * len(update.properties)
    spans.append((position, end, "MQCN-2.2.6-10", position))
    value_ends = [p.value_offset for p in decoded.properties[1:]]
    if decoded.properties:
        value_ends.append(len(wire))
    for prop, value_end in zip(decoded.properties, value_ends, strict=True):
        vt = PROPERTIES[prop.propid].vt  # type: ignore[index]
        for cut_at in range(prop.value_offset, value_end):
            requirement = value_truncation_requirement(vt, cut_at - prop.value_offset)
            spans.append((cut_at, cut_at + 1, requirement, prop.value_offset))
    return [(a + base, b + base, r, o + base) for a, b, r, o in spans]


@pytest.mark.parametrize("name", [n for n in SAMPLE_UPDATES if "surrogate" not in n])
def test_every_truncation_of_an_update_names_the_field(name: str) -> None:
    update = SAMPLE_UPDATES[name]()
    wire = b"\x55\x55" + encode_update(update)
    expectations = update_truncation_expectations(update, 2)
    covered = set()
    for start, stop, requirement, offset in expectations:
        for cut in range(start, stop):
            covered.add(cut)
            assert_decode_error(lambda c=cut: decode_update(wire[:c], 2), requirement, offset)
            # the same with ``end`` instead of slicing, and junk after ``end``
            assert_decode_error(
                lambda c=cut: decode_update(wire[:c] + b"\x00" * 64, 2, c), requirement, offset
            )
    assert covered == set(range(2, len(wire)))
    assert decode_update(wire, 2)[0] == update


def test_update_conveniences_index_of_value_of_and_property_names() -> None:
    update = queue_update(QUEUE, QM, [(P.PROPID_Q_QUOTA, 7)], master=MASTER)
    assert update.index_of(P.PROPID_Q_QUOTA) == update.propids.index(P.PROPID_Q_QUOTA)
    assert update.index_of(P.PROPID_Q_LABEL) == -1  # IndexOf of 3.2.5.1: -1 when absent
    assert update.value_of(P.PROPID_Q_QUOTA) == 7
    assert update.value_of(P.PROPID_Q_LABEL, "none") == "none"
    assert Property(P.PROPID_Q_QUOTA, 7).name == "PROPID_Q_QUOTA"
    assert Property(0x7777, 7).name == "PROPID 30583"  # not a PROPID: named by its number


@settings(max_examples=200, deadline=None)
@given(propids=st.lists(st.sampled_from([*map(int, P), 0, 0x7777]), max_size=12))
def test_first_indexes_is_index_of_for_every_propid_at_once(propids: list[int]) -> None:
    """The server's one-pass lookup equals IndexOf (3.2.5.1) for any PROPID, repeats included."""
    update = NotificationUpdate.change(QUEUE, [(pid, 1) for pid in propids], master=MASTER)
    first = update.first_indexes()
    assert set(first) == set(propids)
    for propid in [*map(int, P), 0, 0x7777]:
        assert first.get(propid, -1) == update.index_of(propid)


def test_property_names_are_those_of_the_propid_constants() -> None:
    """``Property.name`` looks the name up; it is what ``PropId(n).name`` gives for each one."""
    for propid in P:
        assert Property(int(propid), 0).name == PropId(int(propid)).name == propid.name


# --- Notification Body (2.2.5) -------------------------------------------------------------

BODY = NotificationBody(2, G, "dc1.example.com")
BODY_TEXT = (
    "<Notification><Event>2</Event><ObjectGuid>00112233-4455-6677-8899-aabbccddeeff"
    "</ObjectGuid><DomainController>dc1.example.com</DomainController></Notification>"
)


def utf16(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def byte_offset_of(text: str, marker: str, base: int = 0) -> int:
    return base + 2 * text.index(marker)


def test_body_text_is_the_canonical_template_by_default() -> None:
    assert BODY.text() == BODY_TEXT
    assert BODY.text(upper_guid=True) == BODY_TEXT.replace(str(G), str(G).upper())
    assert BODY.text(close_with_space=True) == BODY_TEXT.replace("</ObjectGuid>", "</ObjectGuid >")


def test_an_odd_length_body_is_reported_at_its_last_byte_before_any_other_fault() -> None:
    """An odd byte count is the first thing wrong, even with a lone surrogate before it."""
    wire = utf16("\ud800<Notification>") + b"x"
    assert_decode_error(lambda: decode_body(wire, 0), "MQCN-2.2.5-5", len(wire) - 1)
    assert_decode_error(lambda: decode_body(b"\x00" + wire, 1), "MQCN-2.2.5-5", len(wire))


def test_body_encodes_to_the_template_in_utf16le_without_bom() -> None:
    assert encode_body(BODY) == utf16(BODY_TEXT)
    assert encode_body(BODY, terminator=True) == utf16(BODY_TEXT + "\x00")
    assert encode_body(BODY, upper_guid=True) == utf16(
        BODY_TEXT.replace("aabbccddeeff", "AABBCCDDEEFF")
    )
    assert encode_body(BODY, close_with_space=True) == utf16(
        BODY_TEXT.replace("</ObjectGuid>", "</ObjectGuid >")
    )


@pytest.mark.parametrize("event", list(Event))
def test_body_round_trips_for_every_event(event: Event) -> None:
    body = NotificationBody(int(event), G, "dc")
    assert decode_body(b"\x00\x00" + encode_body(body), 2) == body


@pytest.mark.parametrize("length", [1, 2, 255, 256])
def test_body_server_name_lengths_1_to_256(length: int) -> None:
    server = ("abcdefghij" * 26)[:length]
    body = NotificationBody(4, G, server)
    assert decode_body(encode_body(body), 0) == body


def test_body_server_name_of_every_vchar() -> None:
    server = "".join(chr(c) for c in range(0x21, 0x7F))
    body = NotificationBody(1, G, server)
    assert decode_body(encode_body(body), 0) == body


@pytest.mark.parametrize(
    "text",
    [
        BODY_TEXT.lower(),
        BODY_TEXT.upper(),
        BODY_TEXT.replace("Notification>", "NOTIFICATION>").replace("<Event>", "<event>"),
        BODY_TEXT.replace("aabbccddeeff", "AABBCCDDEEFF"),
    ],
    ids=["lower", "upper", "mixed", "upper-guid"],
)
def test_body_tags_and_hex_digits_match_in_any_case(text: str) -> None:
    decoded = decode_body(utf16(text), 0)
    assert (decoded.event, decoded.object_guid) == (2, G)
    assert decoded.domain_controller.lower() == "dc1.example.com"


def test_body_with_one_nul_terminator_is_accepted() -> None:
    assert decode_body(utf16(BODY_TEXT + "\x00"), 0) == BODY


def test_body_with_two_nul_terminators_is_not() -> None:
    raw = utf16(BODY_TEXT + "\x00\x00")
    assert_decode_error(lambda: decode_body(raw, 0), "MQCN-2.2.5-6", len(raw) - 70)


def test_objectguid_close_with_space_strict_vs_lenient() -> None:
    raw = encode_body(BODY, close_with_space=True)
    at = byte_offset_of(BODY_TEXT, "</ObjectGuid>")
    assert_decode_error(lambda: decode_body(raw, 0), "MQCN-2.2.5-6", at)
    assert decode_body(raw, 0, readings=LENIENT) == BODY
    switched = dataclasses.replace(STRICT, objectguid_close_with_space=True)
    assert decode_body(raw, 0, readings=switched) == BODY
    assert decode_body(encode_body(BODY), 0, readings=switched) == BODY
    lower = utf16(BODY_TEXT.replace("</ObjectGuid>", "</objectguid >"))
    assert decode_body(lower, 0, readings=LENIENT) == BODY


def test_body_with_bom() -> None:
    raw = b"\x00\x00" + utf16("\ufeff" + BODY_TEXT)
    assert_decode_error(lambda: decode_body(raw, 2), "MQCN-2.2.5-5", 2)


def test_body_with_odd_length() -> None:
    raw = utf16(BODY_TEXT) + b">"
    assert_decode_error(lambda: decode_body(raw, 0), "MQCN-2.2.5-5", len(raw) - 1)


@pytest.mark.parametrize("unit", [0xD800, 0xDBFF, 0xDC00, 0xDFFF])
def test_body_lone_surrogate_is_never_accepted(unit: int) -> None:
    text = BODY_TEXT.replace("dc1", "dc" + chr(unit))
    raw = utf16(text)
    at = byte_offset_of(text, chr(unit))
    assert_decode_error(lambda: decode_body(raw, 0), "MQCN-2.2.5-5", at)
    assert_decode_error(lambda: decode_body(raw, 0, readings=LENIENT), "MQCN-2.2.5-5", at)


@pytest.mark.parametrize("event", ["0", "5", "9", "", "12", " 1", "1 ", "01", "１", "a"])
def test_body_bad_event(event: str) -> None:
    text = BODY_TEXT.replace("<Event>2<", f"<Event>{event}<")
    at = byte_offset_of(text, "<Event>") + 14
    assert_decode_error(lambda: decode_body(utf16(text), 0), "MQCN-2.2.5-2", at)


@pytest.mark.parametrize(
    "guid",
    [
        "{00112233-4455-6677-8899-aabbccddeeff}",
        "00112233-4455-6677-8899-aabbccddeeff0",  # errata E-04: 13 digits
        "00112233-4455-6677-8899-aabbccddeef",
        "00112233445566778899aabbccddeeff",
        "00112233-4455-6677-8899-aabbccddeefg",
        "00112233_4455_6677_8899_aabbccddeeff",
        "",
        " 00112233-4455-6677-8899-aabbccddeeff",
    ],
)
def test_body_bad_guid_form(guid: str) -> None:
    text = BODY_TEXT.replace("00112233-4455-6677-8899-aabbccddeeff", guid)
    at = byte_offset_of(text, "<ObjectGuid>") + 24
    assert_decode_error(lambda: decode_body(utf16(text), 0), "MQCN-2.2.5-7", at)


def test_body_server_name_of_257_characters() -> None:
    text = BODY_TEXT.replace("dc1.example.com", "s" * 257)
    at = byte_offset_of(text, "<DomainController>") + 36
    assert_decode_error(lambda: decode_body(utf16(text), 0), "MQCN-2.2.5-8", at)


def test_body_empty_server_name() -> None:
    text = BODY_TEXT.replace("dc1.example.com", "")
    at = byte_offset_of(text, "</DomainController>")
    assert_decode_error(lambda: decode_body(utf16(text), 0), "MQCN-2.2.5-8", at)


@pytest.mark.parametrize("char", [" ", "\t", "\x7f", "\x00", "é", "\u3000", "\U0001f600"])
def test_body_server_name_outside_vchar(char: str) -> None:
    text = BODY_TEXT.replace("dc1.example", "dc1" + char + "example")
    at = byte_offset_of(text, char)
    assert_decode_error(lambda: decode_body(utf16(text), 0), "MQCN-2.2.5-8", at)


@pytest.mark.parametrize(
    ("text", "marker"),
    [
        ("", None),
        (BODY_TEXT.replace("<Notification>", "<Notification >"), "<Notification >"),
        (BODY_TEXT.replace("</Event>", "</Evnt>"), "</Evnt>"),
        (BODY_TEXT.replace("<ObjectGuid>", " <ObjectGuid>"), " <ObjectGuid>"),
        (BODY_TEXT.replace("<DomainController>", "<DC>"), "<DC>"),
        ('<?xml version="1.0"?>' + BODY_TEXT, "<?xml"),
        (BODY_TEXT[: BODY_TEXT.index("<ObjectGuid>")], "end"),
    ],
    ids=["empty", "space-in-tag", "bad-close", "whitespace", "other-tag", "xml-decl", "cut"],
)
def test_body_structure_other_than_the_abnf(text: str, marker: str | None) -> None:
    if marker is None:
        at = 0
    elif marker == "end":
        at = 2 * len(text)
    else:
        at = byte_offset_of(text, marker)
    assert_decode_error(lambda: decode_body(utf16(text), 0), "MQCN-2.2.5-6", at)


@pytest.mark.parametrize(
    "suffix", ["</DomainController></Notification", "</DomainController>", "</Notification>"]
)
def test_body_without_its_closing_tags(suffix: str) -> None:
    text = BODY_TEXT.replace("</DomainController></Notification>", suffix)
    error = raises_decode(lambda: decode_body(utf16(text), 0))
    assert error.requirement == "MQCN-2.2.5-6"


def test_body_text_after_the_closing_tag() -> None:
    error = raises_decode(lambda: decode_body(utf16(BODY_TEXT + "x"), 0))
    assert error.requirement == "MQCN-2.2.5-6"


def test_body_offsets_count_code_units_not_characters() -> None:
    # A character outside the BMP before the failure point takes 4 bytes, not 2.
    text = BODY_TEXT.replace("dc1.example.com</DomainController></Notification>", "\U0001f600")
    text += "x</DomainController></Notification"  # closing '>' missing
    raw = utf16(text)
    error = raises_decode(lambda: decode_body(raw, 0))
    assert error.requirement == "MQCN-2.2.5-6"
    assert error.offset == len(raw) - 2 * len("</DomainController></Notification>")


# --- Change Notification Message (2.2.4) and the body buffer (3.3.5.3) ---------------------

SAMPLE_MESSAGES: dict[str, Callable[[], ChangeNotificationMessage]] = {
    "v1-empty": lambda: v1_message([]),
    "v1-creation": lambda: v1_message([full_creation()]),
    "v1-mixed": lambda: v1_message(
        [f() for n, f in SAMPLE_UPDATES.items() if "surrogate" not in n]
    ),
    "v1-255-deletions": lambda: v1_message(
        [queue_deletion(uuid.UUID(int=n), master=MASTER) for n in range(MAX_UPDATES)]
    ),
    "v2-create": lambda: v2_message(NotificationBody(1, G, "dc")),
    "v2-machine": lambda: v2_message(NotificationBody(4, MAX_GUID, "x" * 256)),
}


@pytest.mark.parametrize("name", list(SAMPLE_MESSAGES))
def test_message_round_trips_with_and_without_the_spare_byte(name: str) -> None:
    message = SAMPLE_MESSAGES[name]()
    wire = encode_message(message)
    assert wire[0] == message.version
    assert wire[1] == message.count
    decoded = decode_message(wire)
    assert decoded == message
    assert decoded.trailing == b""
    assert encode_message(decoded) == wire
    buffer = body_buffer(message)
    assert buffer == wire + b"\x00"  # the spare byte is 0x00 unless asked otherwise
    assert decode_message(buffer) == message
    assert decode_message(bytearray(buffer)) == message
    assert decode_message(memoryview(buffer)) == message


@pytest.mark.parametrize("name", list(SAMPLE_MESSAGES))
def test_is_v1_tells_the_version(name: str) -> None:
    decoded = decode_message(body_buffer(SAMPLE_MESSAGES[name]()))
    assert decoded.is_v1 is name.startswith("v1-")


@pytest.mark.parametrize("name", list(SAMPLE_MESSAGES))
def test_spare_byte_never_changes_the_result(name: str) -> None:
    message = SAMPLE_MESSAGES[name]()
    wire = encode_message(message)
    reference = judge(wire)
    for spare in range(256):
        buffer = body_buffer(message, spare)
        assert buffer[-1] == spare
        decoded = decode_message(buffer)
        assert decoded == message
        verdict = judge(buffer)
        assert verdict.conforming == reference.conforming
        assert verdict.violations == reference.violations
        assert verdict.observations == reference.observations


def test_v1_with_count_255() -> None:
    message = SAMPLE_MESSAGES["v1-255-deletions"]()
    assert encode_message(message)[1] == 255
    assert len(decode_message(body_buffer(message)).updates) == 255


def test_v1_trailing_bytes_are_kept_for_the_rules() -> None:
    message = v1_message([queue_deletion(QUEUE, master=MASTER)])
    decoded = decode_message(encode_message(message) + b"xyz")
    assert decoded == message
    assert decoded.trailing == b"xyz"


def test_v2_count_is_kept_as_on_the_wire() -> None:
    wire = bytearray(encode_message(v2_message(BODY)))
    wire[1] = 5
    decoded = decode_message(bytes(wire))
    assert (decoded.version, decoded.count, decoded.body) == (Version.QUEUE_MANAGER, 5, BODY)


def test_v2_body_with_terminator_and_spare_byte() -> None:
    buffer = b"\x02\x01" + encode_body(BODY, terminator=True) + b"\xff"
    assert decode_message(buffer).body == BODY


@pytest.mark.parametrize("count", [256, -1])
def test_encode_message_refuses_a_count_beyond_one_byte(count: int) -> None:
    with pytest.raises(ValueError, match="NumberOfUpdateNotifications is one byte"):
        encode_message(ChangeNotificationMessage(1, count))


def test_empty_message() -> None:
    assert_decode_error(lambda: decode_message(b""), "MQCN-2.2.4-1", 0)


@pytest.mark.parametrize("version", [0x00, 0x03, 0x10, 0x81, 0xFF])
def test_unknown_version(version: int) -> None:
    buffer = bytes((version,)) + body_buffer(v1_message([full_creation()]))[1:]
    assert_decode_error(lambda: decode_message(buffer), "MQCN-2.2.4-1", 0)
    assert_decode_error(lambda: decode_message(buffer, LENIENT), "MQCN-2.2.4-1", 0)


@pytest.mark.parametrize("version", [1, 2])
def test_message_without_a_count(version: int) -> None:
    assert_decode_error(lambda: decode_message(bytes((version,))), "MQCN-2.2.4-2", 1)


@pytest.mark.parametrize("spare", [b"", b"\x00", b"\xff"], ids=["bare", "spare-00", "spare-ff"])
@pytest.mark.parametrize("announced", [1, 2, 3, 255])
def test_count_beyond_the_data(spare: bytes, announced: int) -> None:
    updates = [queue_deletion(QUEUE, master=MASTER)] * (announced - 1)
    wire = bytearray(encode_message(v1_message(updates)))
    wire[1] = announced
    error = assert_decode_error(lambda: decode_message(bytes(wire) + spare), "MQCN-2.2.4-2", 1)
    assert f"is {announced}" in error.violation.message


@pytest.mark.parametrize("name", ["v1-creation", "v1-mixed"])
def test_every_truncation_of_a_v1_message_names_the_field(name: str) -> None:
    message = SAMPLE_MESSAGES[name]()
    wire = encode_message(message)
    expected: dict[int, tuple[str, int]] = {0: ("MQCN-2.2.4-1", 0), 1: ("MQCN-2.2.4-2", 1)}
    position = 2
    for update in message.updates:
        size = len(encode_update(update))
        for start, stop, requirement, offset in update_truncation_expectations(update, position):
            for cut in range(start, stop):
                expected[cut] = (requirement, offset)
        # no update data, or only what could be the spare byte: the count is beyond the data
        expected[position] = expected[position + 1] = ("MQCN-2.2.4-2", 1)
        position += size
    assert set(expected) == set(range(len(wire)))
    for cut, (requirement, offset) in sorted(expected.items()):
        assert_decode_error(lambda c=cut: decode_message(wire[:c]), requirement, offset)
    assert decode_message(wire) == message


@pytest.mark.parametrize("name", ["v2-create", "v2-machine"])
def test_every_truncation_of_a_v2_message_breaks_the_abnf(name: str) -> None:
    wire = encode_message(SAMPLE_MESSAGES[name]())
    assert_decode_error(lambda: decode_message(wire[:0]), "MQCN-2.2.4-1", 0)
    assert_decode_error(lambda: decode_message(wire[:1]), "MQCN-2.2.4-2", 1)
    for cut in range(2, len(wire)):
        error = raises_decode(lambda c=cut: decode_message(wire[:c]))
        assert error.requirement == "MQCN-2.2.5-6", (cut, str(error))
        assert error.offset is not None
        assert 2 <= error.offset <= cut


def test_decode_failures_inside_a_message_keep_absolute_offsets() -> None:
    first = queue_deletion(QUEUE, master=MASTER)
    second = queue_update(QUEUE, QM, {P.PROPID_Q_QUOTA: 1}, master=MASTER)
    wire = bytearray(encode_message(v1_message([first, second])))
    second_at = 2 + 69
    wire[second_at + 1] = 7  # UseGuid of the second update
    assert_decode_error(lambda: decode_message(bytes(wire)), "MQCN-2.2.6-3", second_at + 1)
