"""Every MSMQ header declared once (mqcn_model/wire/declared.py), and what the declaration
grew for them: fields placed by offset, Flags bit groups, lengths the encoder computes,
GUIDs, enumerations, fixed runs between variable parts, variable parts named once.

Each derivation is stated with literal values on a record declared here; then every header
record of the wire layer is checked against the layer derived from it (names, order, sizes,
defaults) and against its codec (the same bytes for the default header).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.fields import (
    BitEnumField,
    BitField,
    ByteEnumField,
    FieldLenField,
    XStrFixedLenField,
)
from scapy.packet import Packet
from wire_strategies import length_values, set_length

from mqcn_model.catalog import WIRE_CATALOG
from mqcn_model.errors import DecodeError
from mqcn_model.scapy_base import GUIDField
from mqcn_model.wire import base as B
from mqcn_model.wire import debug as D
from mqcn_model.wire import internal as I
from mqcn_model.wire import layer_bridge as bridge
from mqcn_model.wire import mqf as M
from mqcn_model.wire import properties as P
from mqcn_model.wire import security as S
from mqcn_model.wire import soap as SO
from mqcn_model.wire import transaction as T
from mqcn_model.wire import user as U
from mqcn_model.wire.declared import (
    build,
    fixed_values,
    from_fixed_values,
    join_groups,
    layout,
    pack,
    part,
    scapy_fields,
    split_groups,
    unpack,
    wire,
)

G = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")


@dataclass(slots=True)
class Shaped:
    """Arguments in an order that is not the wire's; a GUID; a Flags field in groups; a
    length of a part; an enumeration; a hex field; a part put on the wire by a flag."""

    guid: uuid.UUID = wire("Guid", "16s", kind="guid", default=uuid.UUID(int=0), at=4)
    flags: int = wire(
        "Flags", "H", at=0, default=0x0102, groups=(("HI", 4), ("MID", 8, {1: "one"}), ("LO", 4))
    )
    kind: int = wire("Kind", "B", at=2, enum={1: "first", 2: "second"}, default=2)
    spare: int = wire("Spare", "B", at=3, kind="hex")
    text: bytes = part("Text", default=b"")
    maybe: uuid.UUID | None = part("Maybe", default=None, when="LO")
    text_size: int | None = wire("TextSize", "I", at=20, length_of="Text", unit=2)


def test_fields_placed_by_offset_are_laid_out_in_wire_order() -> None:
    spec = layout(Shaped)
    assert [(f.name, f.offset, f.size) for f in spec.fields] == [
        ("Flags", 0, 2),
        ("Kind", 2, 1),
        ("Spare", 3, 1),
        ("Guid", 4, 16),
        ("TextSize", 20, 4),
    ]
    assert spec.struct.format == "<HBB16sI" and spec.size == 24
    assert not spec.leading  # keywords: the record's arguments are not in wire order
    assert spec.guids == (3,) and spec.late == (4,)
    assert [(p.attribute, p.name, p.when) for p in spec.parts] == [
        ("text", "Text", None),
        ("maybe", "Maybe", "LO"),
    ]


def test_a_gap_or_an_overlap_between_placed_fields_is_a_declaration_error() -> None:
    @dataclass(slots=True)
    class Gap:
        a: int = wire("A", "H", at=0)
        b: int = wire("B", "H", at=4)

    @dataclass(slots=True)
    class Overlap:
        a: int = wire("A", "I", at=0)
        b: int = wire("B", "H", at=2)

    with pytest.raises(TypeError, match=r"^Gap\.B: a gap or overlap$"):
        layout(Gap)
    with pytest.raises(TypeError, match=r"^Overlap\.B: a gap or overlap$"):
        layout(Overlap)


def test_a_length_field_is_no_argument_and_is_given_when_packed() -> None:
    record = Shaped(text=b"abcd")
    assert record.text_size is None
    assert [f.name for f in fields(Shaped) if not f.init] == ["text_size"]
    wire_bytes = pack(record, TextSize=2)
    assert wire_bytes.hex() == "0201" + "02" + "00" + "00" * 16 + "02000000"
    with pytest.raises(KeyError):
        pack(record)  # a length the record does not hold must be given
    record.text_size = 9  # as a dissected layer said: the encoder's value wins
    assert pack(record, TextSize=2)[20:] == b"\x02\x00\x00\x00"


def test_a_guid_is_a_uuid_in_the_record_and_little_endian_on_the_wire() -> None:
    record = Shaped(guid=G)
    raw = pack(record, TextSize=0)
    assert raw[4:20] == G.bytes_le
    back = unpack(Shaped, raw, 0)
    assert back.guid == G and isinstance(back.guid, uuid.UUID)
    assert back.text_size == 0  # the wire's length kept, out of equality
    assert back == Shaped(guid=G)


def test_unpack_reads_at_its_offset_and_keeps_the_variable_parts_given() -> None:
    raw = b"\xee" * 3 + pack(Shaped(flags=0xABCD, kind=1, spare=0x7F, guid=G), TextSize=5)
    back = unpack(Shaped, raw, 3, text=b"xy")
    assert (back.flags, back.kind, back.spare, back.guid, back.text) == (0xABCD, 1, 0x7F, G, b"xy")
    assert back.text_size == 5


def test_bit_groups_split_a_flags_value_most_significant_first_and_join_it_back() -> None:
    flags = layout(Shaped).field("Flags")
    assert split_groups(flags, 0xA5C3) == {"HI": 0xA, "MID": 0x5C, "LO": 0x3}
    assert join_groups(flags, {"HI": 0xA, "MID": 0x5C, "LO": 0x3}.__getitem__) == 0xA5C3
    # a group given past its width is cut to it
    assert join_groups(flags, {"HI": 0x1A, "MID": 0x15C, "LO": 0x13}.__getitem__) == 0xA5C3


def test_the_scapy_fields_follow_each_kind_of_declaration() -> None:
    made = scapy_fields(Shaped)
    assert [type(f) for f in made] == [
        BitField,
        BitEnumField,
        BitField,
        ByteEnumField,
        type(made[4]),
        GUIDField,
        FieldLenField,
    ]
    assert [f.name for f in made] == ["HI", "MID", "LO", "Kind", "Spare", "Guid", "TextSize"]
    assert type(made[4]).__name__ == "XByteField"
    assert [f.default for f in made[:4]] == [0x0, 0x10, 0x2, 2]
    assert made[1].i2s == {1: "one"} and made[3].i2s == {1: "first", 2: "second"}
    # a little-endian 16-bit field: the first group opens it, the last one closes it
    assert (made[0].rev, made[0].tot_size, made[0].end_tot_size) == (True, 2, 0)
    assert (made[2].rev, made[2].tot_size, made[2].end_tot_size) == (True, 0, 2)
    assert made[1].rev is False  # a middle group neither opens nor closes the field
    assert made[6].length_of == "Text" and made[6].adjust(None, 8) == 4


def test_a_layer_from_the_declaration_builds_what_pack_writes() -> None:
    class Layer(Packet):
        fields_desc = [  # noqa: RUF012
            *scapy_fields(Shaped),
            XStrFixedLenField("Text", b"", 4),
            GUIDField("Maybe", uuid.UUID(int=0)),
        ]

    record = Shaped(flags=0xA5C3, kind=1, spare=9, guid=G, text=b"abcd")
    layer = Layer(**fixed_values(record), Text=b"abcd")
    assert bytes(layer)[:24] == pack(record, TextSize=2)
    back = from_fixed_values(Shaped, Layer(bytes(layer)), text=b"abcd")
    assert back == record and back.text_size == 2
    assert "TextSize" not in fixed_values(record)  # None: the layer computes it
    assert fixed_values(record)["MID"] == 0x5C


def test_build_keeps_a_length_as_the_wire_said() -> None:
    record = build(Shaped, {"Flags": 1, "Kind": 2, "Spare": 0, "Guid": G, "TextSize": 77})
    assert record.text_size == 77 and record.flags == 1 and record.guid == G


@dataclass(slots=True)
class TwoRuns:
    head: str = part("Head", default="")
    first: int = wire("First", "H")
    second: int = wire("Second", "H", run=1)
    size: int | None = wire("Size", "I", run=1, length_of="Head")


def test_a_header_with_two_fixed_runs_packs_each_on_its_own() -> None:
    spec = layout(TwoRuns)
    assert [r.format for r in spec.runs] == ["<H", "<HI"]
    assert [f.name for f in spec.run(1)] == ["Second", "Size"]
    record = TwoRuns("x", 0x0102, 0x0304)
    assert pack(record, 0) == b"\x02\x01"
    assert pack(record, 1, Size=6) == b"\x04\x03\x06\x00\x00\x00"
    assert [f.name for f in scapy_fields(TwoRuns, run=1)] == ["Second", "Size"]


def test_a_computed_field_stays_out_of_equality_and_of_the_layer_values() -> None:
    assert B.BaseHeader(packet_size=32) == B.BaseHeader(packet_size=0)
    assert "PacketSize" not in fixed_values(B.BaseHeader(packet_size=32))
    assert scapy_fields(B.BaseHeader)[11].name == "PacketSize"
    assert scapy_fields(B.BaseHeader)[11].default is None  # the container computes it


# --- every header of the wire layer, against the layer derived from it -----------------------

DECLARED = {
    # alone, a BaseHeader layer has no container to compute its PacketSize: 0
    B.BaseHeader: (B.BaseHeader(time_to_reach_queue=9), lambda h: B.encode_base_header(h, 0)),
    I.InternalHeader: (I.InternalHeader(), pack),
    I.ConnectionParameters: (I.ConnectionParameters(), pack),
    I.EstablishConnection: (I.EstablishConnection(G), pack),
    I.Ping: (I.Ping(1, 7, G), I.encode_ping),
    T.TransactionHeader: (T.TransactionHeader(), T.encode_transaction),
    D.DebugHeader: (D.DebugHeader(), D.encode_debug),
    S.SecurityHeader: (S.SecurityHeader(S.ST_QM_GUID, sender_id=G.bytes_le), S.encode_security),
    P.MessageProperties: (P.MessageProperties(label="hi", body=b"xyz"), P.encode_properties),
    SO.SoapHeader: (SO.SoapHeader("<h/>", "<b/>"), SO.encode_soap),
}


@pytest.mark.parametrize("record", list(DECLARED), ids=lambda r: r.__name__)
def test_each_header_s_layer_is_its_declaration(record: type) -> None:
    """The layer's leading fields are the declaration's, in wire order; the layer built from
    a record gives the bytes the codec writes; the record read back from those bytes is the
    record."""
    header, encode = DECLARED[record]
    layer_cls = bridge.LAYERS[record]
    derived = [f.name for f in scapy_fields(record)]
    assert [f.name for f in layer_cls.fields_desc[: len(derived)]] == derived
    layer = bridge.to_layer(header)
    assert bytes(layer) == encode(header)
    assert bridge._record(layer_cls(bytes(layer))) == header


def test_the_user_header_layer_is_its_declaration_before_the_queue_fields() -> None:
    derived = [f.name for f in scapy_fields(U.UserHeader)]
    assert derived[:5] == [
        "SourceQueueManager",
        "QueueManagerAddress",
        "TimeToBeReceived",
        "SentTime",
        "MessageID",
    ]
    assert derived[5:] == [g[0] for g in U.FLAG_GROUPS]
    layer = bridge.LAYERS[U.UserHeader]
    assert [f.name for f in layer.fields_desc[: len(derived)]] == derived
    assert [f.name for f in layer.fields_desc[len(derived) :]] == [
        "DestinationQueue",
        "AdminQueue",
        "ResponseQueue",
        "ConnectorType",
    ]
    assert U.UserHeader().flags == U.MP | 3 << U.DQ_SHIFT  # the layer's default: MP, DQ 3


def test_the_mqf_headers_are_declared_with_their_computed_sizes() -> None:
    assert layout(M.MQFAddressHeader).struct.format == "<IHHI"
    assert layout(M.MQFSignatureHeader).struct.format == "<HHI"
    raw = M.encode_address([], M.ADMIN_ID, 5)
    assert raw == b"\x0c\x00\x00\x00\xc8\x00\x05\x00\x00\x00\x00\x00"
    names = [f.name for f in scapy_fields(M.MQFAddressHeader)]
    assert names == ["HeaderSize", "HeaderID", "Reserved", "ElementCount"]


@pytest.mark.parametrize(
    ("record", "names"),
    [
        (
            S.SecurityHeader,
            [
                "SenderIdSize",
                "EncryptionKeySize",
                "SignatureSize",
                "SenderCertSize",
                "ProviderInfoSize",
            ],
        ),
        (P.MessageProperties, ["LabelLength", "MessageSize", "ExtensionSize"]),
        (SO.SoapHeader, ["HeaderDataLength", "BodyDataLength"]),
        (M.MQFAddressHeader, ["ElementCount"]),
        (M.MQFSignatureHeader, ["Size"]),
    ],
    ids=lambda v: getattr(v, "__name__", "names"),
)
def test_each_length_field_is_declared_with_the_part_it_counts(
    record: type, names: list[str]
) -> None:
    spec = layout(record)
    counted = [f for f in spec.fields if f.length_of or f.count_of]
    assert [f.name for f in counted] == names
    part_names = {p.name for p in spec.parts}
    assert all((f.length_of or f.count_of) in part_names for f in counted)


# --- every length field of every [MS-MQMQ] header, from the declarations ------------------------


def _loaded_message():
    """A UserMessage with every [MS-MQMQ] header, each variable part non-empty."""
    from mqcn_model.wire.queues import MQFElement, QueueFormat
    from mqcn_model.wire.session import SessionHeader
    from mqcn_model.wire.usermessage import UserMessage, finalize

    user = U.UserHeader(
        G, uuid.UUID(int=0), flags=U.compose_user_flags(delivery=1, dq=7, transaction=True)
    )
    user.destination = QueueFormat(7, direct="OS:host\\private$\\q")
    return finalize(
        UserMessage(
            B.BaseHeader(),
            user,
            P.MessageProperties(label="label", extension=b"ext!", body=b"body!", body_slack=b"sl"),
            transaction=T.TransactionHeader(sequence_number=2, previous_number=1),
            security=S.SecurityHeader(
                S.ST_QM_GUID,
                sender_id=G.bytes_le,
                encryption_key=b"k" * 5,
                signature=b"s" * 7,
                sender_cert=b"c" * 9,
                provider_info=b"p" * 6,
            ),
            debug=D.DebugHeader(D.QT_PUBLIC, 0, G),
            soap=SO.SoapHeader("<h/>", "<b/>"),
            mqf=M.MultiQueueFormat([MQFElement(1, guid=G)], [], [MQFElement(1, guid=G)], b"sig"),
            session=SessionHeader(),
        )
    )


def _length_fields() -> list[tuple[str, str, int, int]]:
    """(header, field, absolute offset, size) of every length, count and size field the
    declarations name, in the loaded message's bytes."""
    from mqcn_model.wire.usermessage import encode_user_message

    message = _loaded_message()
    starts: dict[type, int] = {B.BaseHeader: 0}
    at = B.BASE_HEADER_SIZE
    for record, header, encode in (
        (U.UserHeader, message.user, U.encode_user_header),
        (T.TransactionHeader, message.transaction, T.encode_transaction),
        (S.SecurityHeader, message.security, S.encode_security),
        (P.MessageProperties, message.properties, P.encode_properties),
        (D.DebugHeader, message.debug, D.encode_debug),
        (SO.SoapHeader, message.soap, SO.encode_soap),
        (M.MQFAddressHeader, message.mqf, M.encode_mqf),
    ):
        starts[record] = at
        at += len(encode(header))
    assert len(encode_user_message(message)) == at + 16  # the SessionHeader after PacketSize
    out = []
    for record, start in starts.items():
        for item in layout(record).fields:
            sized = item.length_of or item.count_of or item.computed
            if item.run == 0 and (sized or item.name in ("AllocationBodySize", "HeaderSize")):
                out.append((record.__name__, item.name, start + item.offset, item.size))
    soap = message.soap
    assert soap is not None
    body_run = starts[SO.SoapHeader] + len(SO.encode_soap(soap)) // 2  # "<h/>" and "<b/>": even
    out.append(("SoapHeader", "BodyDataLength", body_run + 4, 4))
    mqf_sig = starts[M.MQFAddressHeader] + len(M.encode_mqf(message.mqf)) - 4 - 8
    out.append(("MQFSignatureHeader", "Size", mqf_sig + 4, 4))
    return out


LENGTHS = _length_fields()


def test_the_length_fields_found_are_the_declared_ones() -> None:
    from mqcn_model.wire.usermessage import encode_user_message

    wire_bytes = encode_user_message(_loaded_message())
    assert len({(h, n) for h, n, _, _ in LENGTHS}) == len(LENGTHS) == 15
    found = {(h, n): int.from_bytes(wire_bytes[o : o + s], "little") for h, n, o, s in LENGTHS}
    assert found == {
        ("BaseHeader", "PacketSize"): len(wire_bytes) - 16,
        ("SecurityHeader", "SenderIdSize"): 16,
        ("SecurityHeader", "EncryptionKeySize"): 5,
        ("SecurityHeader", "SignatureSize"): 7,
        ("SecurityHeader", "SenderCertSize"): 9,
        ("SecurityHeader", "ProviderInfoSize"): 6,
        ("MessageProperties", "LabelLength"): 6,
        ("MessageProperties", "MessageSize"): 5,
        ("MessageProperties", "AllocationBodySize"): 7,
        ("MessageProperties", "ExtensionSize"): 4,
        ("SoapHeader", "HeaderDataLength"): 5,
        ("SoapHeader", "BodyDataLength"): 5,
        ("MQFAddressHeader", "HeaderSize"): 32,
        ("MQFAddressHeader", "ElementCount"): 1,
        ("MQFSignatureHeader", "Size"): 3,
    }


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(LENGTHS),
    length_values(600),
)
def test_every_length_field_of_every_header_is_held_to_the_packet(
    where: tuple[str, str, int, int], value: int
) -> None:
    """Any value in any declared length field: the codec reads the packet (findings inside
    it) or refuses it with a wire ID at an offset inside it, and the salvage then reads as far
    as the bytes allow -- never an over-read, never another exception; a value other than
    the true one changes what is read."""
    from mqcn_model.wire.usermessage import (
        decode_user_message,
        encode_user_message,
        salvage_user_message,
    )

    _, _, offset, size = where
    original_bytes = encode_user_message(_loaded_message())
    data, true = set_length(original_bytes, offset, size, value)
    value &= (1 << (8 * size)) - 1
    try:
        packet, end = decode_user_message(bytes(data))
    except DecodeError as exc:
        assert exc.requirement in WIRE_CATALOG and 0 <= exc.offset <= len(data)
        salvage = salvage_user_message(bytes(data))
        assert salvage.stopped.requirement in WIRE_CATALOG
        assert all(0 <= f.offset <= len(data) for f in salvage.findings)
        return
    assert end <= len(data)
    assert all(0 <= f.offset < len(data) for f in packet.findings)
    if value != true:
        original = decode_user_message(original_bytes)[0]
        changed = packet != original or packet.findings != original.findings
        assert changed or end != len(original_bytes), where


# --- wire() and part() called here: a record declared inside each test -----------------------


def test_a_plain_field_is_an_argument_in_run_0_compared_and_not_computed() -> None:
    @dataclass(slots=True)
    class Plain:
        a: int = wire("A", "H")
        b: int = wire("B", "H", compare=False)

    spec = layout(Plain)
    item = spec.field("A")
    assert (item.unit, item.run, item.computed, item.length_of, item.count_of) == (
        1,
        0,
        False,
        None,
        None,
    )
    compared = {f.name: f.compare for f in fields(Plain)}
    assert compared == {"a": True, "b": False}
    assert Plain(1) != Plain(2) and Plain(1, 5) == Plain(1, 6)


def test_a_computed_field_is_an_argument_left_out_of_equality() -> None:
    @dataclass(slots=True)
    class Sized:
        size: int = wire("Size", "I", computed=True)
        kind: int = wire("Kind", "H")

    assert Sized(8, 1) == Sized(9, 1) and Sized(8, 1) != Sized(8, 2)
    assert layout(Sized).field("Size").computed and not layout(Sized).field("Kind").computed
    assert fixed_values(Sized(8, 1)) == {"Kind": 1}


def test_a_length_or_a_count_field_is_no_argument_none_and_out_of_repr_and_equality() -> None:
    @dataclass(slots=True)
    class Counted:
        items: list[int] = part("Items", default_factory=list)
        count: int | None = wire("Count", "H", count_of="Items")
        text: bytes = part("Text", default=b"")
        size: int | None = wire("Size", "H", length_of="Text")

    declared = {f.name: f for f in fields(Counted)}
    for name in ("count", "size"):
        item = declared[name]
        assert (item.default, item.init, item.compare, item.repr) == (None, False, False, False)
        assert "mqcn.wire" in item.metadata
    one, two = Counted([1]), Counted([1])
    two.count = 5
    assert one == two and "count=" not in repr(two)
    assert Counted().items == [] and Counted().items is not Counted().items
    assert [(p.attribute, p.name) for p in layout(Counted).parts] == [
        ("items", "Items"),
        ("text", "Text"),
    ]
    assert fixed_values(two) == {"Count": 5}  # a length the record holds goes to the layer


def test_a_part_without_a_default_is_a_required_argument() -> None:
    @dataclass(slots=True)
    class Needs:
        head: str = part("Head")
        tail: str = part("Tail", default="t", when="T")

    with pytest.raises(TypeError):
        Needs()  # type: ignore[call-arg]
    assert Needs("h").tail == "t"
    assert [(p.name, p.when) for p in layout(Needs).parts] == [("Head", None), ("Tail", "T")]


def test_a_guid_or_bytes_field_left_without_a_default_is_zeros() -> None:
    @dataclass(slots=True)
    class Zeros:
        guid: uuid.UUID = wire("Guid", "16s", kind="guid")
        raw: bytes = wire("Raw", "4s")
        shown: bytes = wire("Shown", "4s", kind="hex")
        big: int = wire("Big", "Q", kind="hex")

    assert Zeros().guid == uuid.UUID(int=0) and Zeros().raw == bytes(4)
    made = scapy_fields(Zeros, defaults={"Raw": b"abcd"})
    assert isinstance(made[0], GUIDField) and made[0].default == uuid.UUID(int=0)
    assert type(made[1]).__name__ == "StrFixedLenField" and made[1].default == b"abcd"
    assert type(made[2]).__name__ == "XStrFixedLenField"
    assert type(made[3]).__name__ == "XLELongField"
    assert pack(Zeros(big=1))[-8:] == b"\x01" + bytes(7)


def test_a_guid_field_s_layer_default_is_the_declared_one() -> None:
    assert scapy_fields(I.Ping)[-1].default == uuid.UUID(int=0)
    assert scapy_fields(I.EstablishConnection)[0].name == "ClientGuid"


def test_a_one_byte_flags_field_s_bit_groups_open_and_close_nothing() -> None:
    @dataclass(slots=True)
    class Small:
        flags: int = wire("Flags", "B", default=0x21, groups=(("HI", 4), ("LO", 4)))

    made = scapy_fields(Small)
    assert [(f.name, f.default, f.rev) for f in made] == [("HI", 2, False), ("LO", 1, False)]


def test_build_sets_each_field_given_whatever_comes_before_it() -> None:
    record = build(Shaped, {"Kind": 1, "Spare": 3})  # Flags and Guid not given: defaults
    assert (record.flags, record.kind, record.spare) == (0x0102, 1, 3)


def test_pack_uses_a_given_value_on_the_fast_path_too() -> None:
    @dataclass(slots=True)
    class Lead:
        a: int = wire("A", "H")
        b: int = wire("B", "H")

    assert layout(Lead).leading
    assert pack(Lead(1, 2)) == b"\x01\x00\x02\x00"
    assert pack(Lead(1, 2), B=7) == b"\x01\x00\x07\x00"


# --- the bridge: what a layer holds reaches the record -----------------------------------------


def test_a_lying_allocation_body_size_reaches_the_record_and_a_true_one_does_not() -> None:
    from mqcn_model.wire import packet_layers as L

    lying = L.MessagePropertiesHeader(MessageBody=b"ab", AllocationBodySize=9)
    assert bridge._record(lying).declared_allocation == 9
    true = L.MessagePropertiesHeader(MessageBody=b"ab", AllocationBodySize=2)
    assert bridge._record(true).declared_allocation is None
    assert bridge._record(L.MessagePropertiesHeader(MessageBody=b"ab")).declared_allocation is None


def test_a_built_layer_s_lengths_reach_the_record_as_computed() -> None:
    from mqcn_model.wire import packet_layers as L

    props = bridge._record(L.MessagePropertiesHeader(MessageBody=b"abc", Label="hi"))
    assert (props.message_size, props.label_length_field, props.extension_size) == (3, 3, 0)
    assert bridge._record(L.SecurityHeader(SenderCert=b"c")).signature == b""  # left out: empty
    security = bridge._record(L.SecurityHeader(SecurityID=b"x" * 16, SenderCert=b"c"))
    assert (security.sender_id_size, security.sender_cert_size, security.signature_size) == (
        16,
        1,
        0,
    )


def test_a_broken_header_in_the_extension_chain_is_refused_by_its_name() -> None:
    from mqcn_model.wire import extension_layers as E
    from mqcn_model.wire import packet_layers as L

    layer = L.UserMessagePacket(
        MessagePropertiesHeader=L.MessagePropertiesHeader(MessageBody=b"ab"),
        Extensions=[E.ExtensionHeader(), E.SubqueueHeader(b"\x00")],
    )
    with pytest.raises(ValueError, match=r"^the SubqueueHeader did not dissect completely$"):
        bridge.from_layer(layer)


def test_the_internal_packets_fast_structs_join_the_declared_ones() -> None:
    """The clean-path struct of each fixed internal packet is the InternalHeader's and the
    body's declared structs, joined little-endian (called here: the module's own structs
    are made at import)."""
    from mqcn_model.wire.session import SessionHeader

    assert I._joined(I.InternalHeader, I.ConnectionParameters).format == "<HHIIHH"
    assert I._joined(I.InternalHeader, SessionHeader).format == "<HHHHIHHHH"
    assert I._joined(I.InternalHeader, I.EstablishConnection).size == 4 + 552
