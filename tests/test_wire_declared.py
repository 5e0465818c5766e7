"""One declaration per header (mqcn_model/wire/declared.py): each thing derived from it.

A header record declares its fixed fields once (spec name, struct code, requirement, flag
bits); the struct, offsets, codec, JSON view, scapy fields and the way between a record and
its layer all follow.  These tests state each derivation with literal values, on a record
declared here and calling the derivations themselves (a scapy layer's fields are made when
its class is, at import: out of reach of a mutant switched on afterwards).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from scapy.fields import ByteField, LEIntField, LELongField, LEShortField, StrFixedLenField

from mqcn_model.scapy_base import AutoLEIntField, ScapyPacket
from mqcn_model.wire.declared import (
    default_of,
    fixed_values,
    from_fixed_values,
    layout,
    pack,
    scapy_fields,
    to_json,
    unpack,
    wire,
)


@dataclass(frozen=True, slots=True)
class Sample:
    """Every struct code a declaration takes, a default, a requirement, named bits and a
    variable part."""

    kind: int = wire("Kind", "B", default=7, bits={0x1: "A", 0x4: "C"})
    count: int = wire("Count", "H", requirement="MQMQ-2.2.19.1-3")
    size: int = wire("Size", "I")
    stamp: int = wire("Stamp", "Q")
    name: bytes = wire("Name", "4s")
    tail: bytes = b""


def test_the_layout_is_the_declaration_in_order_little_endian() -> None:
    spec = layout(Sample)
    assert spec.header == "Sample" and spec.size == 1 + 2 + 4 + 8 + 4
    assert [(f.name, f.attribute, f.offset, f.size) for f in spec.fields] == [
        ("Kind", "kind", 0, 1),
        ("Count", "count", 1, 2),
        ("Size", "size", 3, 4),
        ("Stamp", "stamp", 7, 8),
        ("Name", "name", 15, 4),
    ]
    assert spec.struct.format == "<BHIQ4s"
    assert spec.field("Count").requirement == "MQMQ-2.2.19.1-3"
    assert spec.field("Kind").bits == ((0x1, "A"), (0x4, "C"))
    assert spec.field("Size").requirement is None and spec.field("Size").bits == ()
    assert spec.offset("Stamp") == 7 and spec.field("Stamp").code == "Q"


def test_a_field_the_header_does_not_have_is_named_in_the_error() -> None:
    with pytest.raises(KeyError, match="Sample has no field Nope"):
        layout(Sample).offset("Nope")
    with pytest.raises(KeyError, match="Sample has no field Nope"):
        layout(Sample).field("Nope")


def test_defaults_are_zero_or_zero_bytes_of_the_field_size_unless_given() -> None:
    assert Sample() == Sample(7, 0, 0, 0, b"\x00\x00\x00\x00", b"")
    assert default_of(Sample, "kind") == 7 and default_of(Sample, "name") == bytes(4)
    assert default_of(Sample, "count") == 0 and default_of(Sample, "tail") == b""

    @dataclass(frozen=True)
    class Given:
        name: bytes = wire("Name", "2s", default=b"ab")
        later: int = 0

    assert Given().name == b"ab"
    with pytest.raises(KeyError, match="nope"):
        default_of(Sample, "nope")


def test_a_field_without_default_has_none_as_its_default() -> None:
    @dataclass
    class Bare:
        must: int
        fixed: int = wire("Fixed", "B")

    assert default_of(Bare, "must") is None and default_of(Bare, "fixed") == 0


def test_pack_and_unpack_are_the_struct_of_the_declaration() -> None:
    header = Sample(0x05, 0x0102, 0x03040506, 0x0708090A0B0C0D0E, b"wxyz", b"variable")
    raw = pack(header)
    assert raw.hex() == "050201060504030e0d0c0b0a0908077778797a"
    assert unpack(Sample, b"--" + raw, 2, tail=b"variable") == header
    assert unpack(Sample, raw, 0) == Sample(5, 0x0102, 0x03040506, 0x0708090A0B0C0D0E, b"wxyz")


def test_the_json_view_has_every_field_bytes_as_hex_and_flag_bits_by_name() -> None:
    view = to_json(Sample(0x05, 1, 2, 3, b"\x00\xff\x10\x01", b"\xab"))
    assert view == {
        "kind": 5,
        "kind_bits": ["A", "C"],
        "count": 1,
        "size": 2,
        "stamp": 3,
        "name": "00ff1001",
        "tail": "ab",
    }
    assert to_json(Sample(kind=0))["kind_bits"] == []


def test_fixed_values_go_by_spec_name_and_come_back_from_a_mapping_or_a_layer() -> None:
    header = Sample(1, 2, 3, 4, b"abcd", b"t")
    values = fixed_values(header)
    assert values == {"Kind": 1, "Count": 2, "Size": 3, "Stamp": 4, "Name": b"abcd"}
    assert from_fixed_values(Sample, values, tail=b"t") == header

    class Layer(ScapyPacket):
        fields_desc = scapy_fields(Sample)

    assert from_fixed_values(Sample, Layer(**values), tail=b"t") == header
    assert bytes(Layer(**values)) == pack(header)


def test_the_scapy_fields_are_the_declaration_with_its_defaults() -> None:
    fields = scapy_fields(Sample)
    assert [type(f) for f in fields] == [
        ByteField,
        LEShortField,
        LEIntField,
        LELongField,
        StrFixedLenField,
    ]
    assert [f.name for f in fields] == ["Kind", "Count", "Size", "Stamp", "Name"]
    assert [f.default for f in fields] == [7, 0, 0, 0, bytes(4)]
    assert fields[4].length_from(None) == 4

    class Layer(ScapyPacket):
        fields_desc = scapy_fields(Sample)

    assert bytes(Layer()) == pack(Sample())
    assert Layer(pack(Sample(name=b"1234"))).Name == b"1234"


def test_a_computed_length_is_worked_out_when_left_at_none_and_may_lie() -> None:
    fields = scapy_fields(Sample, {"Size": lambda p: 40 + p.Count})
    assert isinstance(fields[2], AutoLEIntField) and fields[2].name == "Size"
    assert [type(f) for f in fields if f.name != "Size"] == [
        ByteField,
        LEShortField,
        LELongField,
        StrFixedLenField,
    ]

    class Layer(ScapyPacket):
        fields_desc = scapy_fields(Sample, {"Size": lambda p: 40 + p.Count})

    assert bytes(Layer(Count=2))[3:7] == (42).to_bytes(4, "little")
    assert bytes(Layer(Count=2, Size=7))[3:7] == (7).to_bytes(4, "little")


def test_only_a_32_bit_field_is_computed() -> None:
    with pytest.raises(TypeError, match="Count: only a 32-bit length is computed"):
        scapy_fields(Sample, {"Count": lambda p: 0})


@dataclass(frozen=True)
class Shuffled:
    """A record whose first field is no wire field: unpacked by keyword."""

    note: str = ""
    count: int = wire("Count", "H")
    size: int = wire("Size", "I")


def test_a_record_whose_first_fields_are_not_its_wire_fields_is_unpacked_by_name() -> None:
    assert layout(Sample).leading and not layout(Shuffled).leading
    raw = bytes.fromhex("030004000000")
    assert unpack(Shuffled, raw, 0) == Shuffled("", 3, 4)
    assert unpack(Shuffled, raw, 0, note="n") == Shuffled("n", 3, 4)
    assert pack(Shuffled("n", 3, 4)) == raw


def test_the_session_header_is_declared_once_for_both_codecs() -> None:
    """[MS-MQMQ] 2.2.20.4: the scapy layer's fields are the struct codec's declaration."""
    from mqcn_model.wire import packet_layers, session

    spec = layout(session.SessionHeader)
    assert spec.size == 16 and spec.offset("WindowSize") == 12
    assert spec.field("WindowSize").requirement == "MQMQ-2.2.20.4-1"
    names = [f.name for f in packet_layers.SessionHeader.fields_desc]
    assert names == [f.name for f in spec.fields]
    assert bytes(packet_layers.SessionHeader()) == pack(session.SessionHeader())
    assert pack(session.SessionHeader()).hex() == "00" * 12 + "4000" + "0000"


def test_a_byte_array_field_declared_now_defaults_to_its_size_in_zeros() -> None:
    """wire() itself, called inside the test: a "<n>s" field without a default is n zero
    bytes; with one, that default; an integer field is 0."""
    name = wire("Name", "12s")
    assert name.default == bytes(12)
    assert wire("Name", "12s", default=b"x").default == b"x"
    assert wire("Count", "H").default == 0 and wire("Count", "H", default=5).default == 5
    assert wire("Count", "I").metadata["mqcn.wire"][:4] == ("Count", "I", None, ())
