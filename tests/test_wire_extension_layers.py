"""The scapy layers of the [MS-MQRR] 2.2.5 headers against the struct codec, byte for byte.

Both are derived from one declaration per header (mqcn_model/wire/declared.py); these tests
are the differential check that the derivation holds: whatever the codec writes, the layer
writes; whatever the layer dissects, the codec decodes the same.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqcn_model.wire import extension_layers as L
from mqcn_model.wire import extensions as X
from mqcn_model.wire.declared import layout, pack

TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)
U32 = st.integers(0, 0xFFFFFFFF)


def _decoded_envelope(wire: bytes) -> X.SrmpEnvelopeHeader:
    return X.decode_srmp_envelope(wire, 0, len(wire), [])[0]


@settings(max_examples=150, deadline=None)
@given(TEXT, st.sampled_from([X.WCHAR, X.BYTE]), st.integers(0, 0xFFFF))
def test_an_srmp_envelope_header_is_the_same_bytes_both_ways(text, unit, header_id) -> None:
    header = X.srmp_envelope(text, unit=unit, header_id=header_id)
    wire = X.encode_srmp_envelope(header)
    assert bytes(L.to_layer(header)) == wire
    assert L.to_record(L.SRMPEnvelopeHeader(wire)) == _decoded_envelope(wire) == header


@settings(max_examples=100, deadline=None)
@given(TEXT, U32)
def test_a_lying_data_length_is_built_and_read_back_as_the_codec_reads_it(text, length) -> None:
    wire = bytes(L.SRMPEnvelopeHeader(Data=text, DataLength=length))
    assert wire[4:8] == length.to_bytes(4, "little")
    decoded = _decoded_envelope(wire)
    assert L.to_record(L.SRMPEnvelopeHeader(wire)) == decoded
    assert decoded.unit == X.unit_of(length, len(text.encode("utf-16-le")) + 2)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=60), st.binary(max_size=30), st.integers(0, 0xFFFF))
def test_a_compound_message_header_is_the_same_bytes_both_ways(http, body, header_id) -> None:
    header = X.compound_message(http, body, header_id=header_id)
    wire = X.encode_compound(header)
    assert bytes(L.to_layer(header)) == wire
    decoded = X.decode_compound(wire, 0, len(wire), [])[0]
    assert L.to_record(L.CompoundMessageHeader(wire)) == decoded == header
    assert L.CompoundMessageHeader(wire).HTTPBodySize == len(http) + len(body)


SUBQUEUES = st.builds(
    X.SubqueueHeader,
    header_size=st.just(148),
    word=U32,
    abort_counter=U32,
    move_counter=U32,
    last_move_time=U32,
    subqueue_name=st.binary(min_size=64, max_size=64),
    target_subqueue_name=st.binary(min_size=64, max_size=64),
)
ADDRESSES = st.builds(
    X.ExtendedAddressHeader,
    header_size=st.just(28),
    address_length=st.integers(0, 0xFFFF),
    address_type=st.integers(0, 0xFFFF),
    address_scope=U32,
    address=st.binary(min_size=16, max_size=16),
)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.none(), SUBQUEUES), st.one_of(st.none(), TEXT), st.one_of(st.none(), ADDRESSES))
def test_an_extension_chain_is_the_same_bytes_both_ways(subqueue, dead, address) -> None:
    chain = X.extensions(subqueue=subqueue, dead_letter=dead, extended_address=address)
    wire = X.encode_extensions(chain)
    parts = [chain.extension, chain.subqueue, chain.dead_letter, chain.extended_address]
    layers = [L.to_layer(part) for part in parts if part is not None]
    assert b"".join(bytes(layer) for layer in layers) == wire
    decoded = X.decode_extensions(wire, 0, len(wire), [])[0]
    at = 0
    for part, layer in zip([p for p in parts if p is not None], layers, strict=True):
        size = len(bytes(layer))
        dissected = type(layer)(wire[at:])  # the bytes after it are the container's
        assert L.to_record(dissected) == part
        assert bytes(dissected)[:size] == wire[at : at + size]
        at += size
    assert at == len(wire)
    assert decoded == chain


def test_a_dead_letter_header_longer_than_its_path_keeps_its_zeros_both_ways() -> None:
    header = X.DeadLetterHeader(24, "q")  # 4 + 4 bytes of text, 16 zeros
    wire = X.encode_extensions(replace(X.extensions(), dead_letter=header))[12:]
    assert bytes(L.to_layer(header)) == wire[:24]
    dissected = L.DeadLetterHeader(wire[:24])
    assert dissected.Padding == bytes(16) and L.to_record(dissected) == header


def test_each_layer_s_fixed_fields_are_its_declaration() -> None:
    """No field is named twice: the layer's first fields are the record's declared ones,
    with the record's defaults, and the default layer is the default record on the wire."""
    for record, layer in L.LAYERS.items():
        spec = layout(record)
        names = [f.name for f in layer.fields_desc][: len(spec.fields)]
        assert names == [f.name for f in spec.fields], record.__name__
        if record in (X.ExtensionHeader, X.SubqueueHeader, X.ExtendedAddressHeader):
            assert bytes(layer()) == pack(record()), record.__name__


def test_a_text_without_its_terminator_is_no_record() -> None:
    cut = bytes(L.SRMPEnvelopeHeader(Data="abc"))[:12]  # the fixed part and 'ab'
    with pytest.raises(ValueError, match=r"SRMPEnvelopeHeader\.Data has no 0x0000 terminator"):
        L.to_record(L.SRMPEnvelopeHeader(cut))
    dead = bytes(L.DeadLetterHeader(DeadLetterPathName="abc"))[:10]
    with pytest.raises(ValueError, match=r"DeadLetterHeader\.DeadLetterPathName has no"):
        L.to_record(L.DeadLetterHeader(dead))


def test_a_wrapped_http_body_size_is_built_as_given() -> None:
    layer = L.CompoundMessageHeader(Data=b"POST", HTTPBodySize=0x80000004)
    wire = bytes(layer)
    assert wire[4:8] == (0x80000004).to_bytes(4, "little") and wire[16:20] == b"POST"
    with pytest.raises(Exception, match=r"MQRR-2\.2\.5\.1\.2\.2-1"):
        X.decode_compound(wire, 0, len(wire), [])


# --- the layers as a new import declares them ---------------------------------------------------
# The layers' fields are made when the module is imported (scapy_fields, _Padding.__init__):
# these tests import extension_layers anew, check what it builds and reads, and put it back.


@pytest.fixture
def fresh():
    import importlib

    saved = dict(vars(L))
    try:
        yield importlib.reload(L)
    finally:
        vars(L).clear()
        vars(L).update(saved)


def test_newly_declared_layers_write_and_read_what_the_codec_does(fresh) -> None:
    envelope = X.srmp_envelope("<e/>")
    wire = X.encode_srmp_envelope(envelope)
    assert bytes(fresh.to_layer(envelope)) == wire
    assert fresh.to_record(fresh.SRMPEnvelopeHeader(wire)) == envelope
    compound = X.compound_message(b"POST / HTTP/1.1\r\n\r\n", b"hi!")  # 22 bytes: 2 of padding
    wire = X.encode_compound(compound)
    assert bytes(fresh.to_layer(compound)) == wire and len(wire) == 16 + 24
    dissected = fresh.CompoundMessageHeader(wire + b"next")
    assert fresh.to_record(dissected) == compound and dissected.Padding == b"\x00\x00"
    assert bytes(dissected.payload) == b"next"  # the bytes after it are the container's
    chain = X.extensions(dead_letter="dl", subqueue=X.SubqueueHeader())  # 4 + 6: 2 padding
    wire = X.encode_extensions(chain)
    dead = fresh.DeadLetterHeader(wire[12 + 148 :])
    assert fresh.to_record(dead) == chain.dead_letter and dead.Padding == b"\x00\x00"
    assert bytes(fresh.to_layer(chain.dead_letter)) == wire[12 + 148 :]


def test_newly_declared_padding_is_zeros_to_four_bytes_and_the_layer_s_own(fresh) -> None:
    """A padding left at None is the zeros up to a 4-byte boundary; given, it is written as
    given (a lying header); its field is named Padding and read to its length."""
    layer = fresh.SRMPEnvelopeHeader(Data="ab")  # 8 + 6 bytes: 2 of padding
    assert bytes(layer)[-2:] == b"\x00\x00" and len(bytes(layer)) == 16
    assert bytes(fresh.SRMPEnvelopeHeader(Data="ab", Padding=b"\x01"))[-1:] == b"\x01"
    padding = layer.get_field("Padding")
    assert padding.name == "Padding" and padding.i2m(None, None) == b""
    assert padding.length_from(layer) == 2
    assert fresh.SRMPEnvelopeHeader(bytes(layer)).Padding == b"\x00\x00"
    unpadded = fresh.SRMPEnvelopeHeader(Data="a")  # 8 + 4 bytes
    assert bytes(unpadded).hex() == "000000000200000061000000"
    assert bytes(fresh.to_layer(X.srmp_envelope("a"))) == bytes(unpadded)


def test_a_built_layer_is_the_record_its_computed_lengths_make() -> None:
    """A layer built with its lengths left at None stands for the record whose lengths are
    the computed ones; a Data of None is the empty text (its terminator alone)."""
    assert L.to_record(L.SRMPEnvelopeHeader(Data="ab")) == X.srmp_envelope("ab")
    assert L.to_record(L.CompoundMessageHeader(Data=b"xyz")) == X.CompoundMessageHeader(
        http_body_size=3, data=b"xyz"
    )
    empty = L.SRMPEnvelopeHeader(Data=None)
    assert bytes(empty).hex() == "000000000100000000000000"


def test_an_odd_length_data_is_written_verbatim_and_padded_after_it() -> None:
    """Bytes given for Data are written as they are (an unterminated, odd form the codec
    refuses), then zeros up to the 4-byte boundary after the 8-byte fixed part."""
    layer = L.SRMPEnvelopeHeader(Data=b"abc", DataLength=3)
    assert bytes(layer).hex() == "000000000300000061626300"
    assert bytes(L.SRMPEnvelopeHeader(Data=b"a", DataLength=1)).hex().endswith("61000000")


def test_the_chain_field_reads_only_the_headers_whose_bytes_are_there() -> None:
    """An ExtensionHeader whose Flags announce a SubqueueHeader and an ExtendedAddressHeader,
    with no byte after it: the chain is the ExtensionHeader alone (nothing read from nothing);
    shown by its layers' names, or "none"."""
    from mqcn_model.wire.packet_layers import ExtensionChainField

    field = ExtensionChainField("Extensions")
    rest, layers = field.getfield(None, bytes(L.ExtensionHeader(RemainingHeadersSize=0)))
    assert rest == b"" and [type(layer) for layer in layers] == [L.ExtensionHeader]
    assert field.i2repr(None, layers) == "MSMQ ExtensionHeader"
    shown = field.i2repr(None, [L.ExtensionHeader(), L.SubqueueHeader()])
    assert shown == "MSMQ ExtensionHeader / MSMQ SubqueueHeader"
    assert field.i2repr(None, None) == "none" and field.i2repr(None, []) == "none"
    assert field.addfield(None, b"ab", layers) == b"ab" + bytes(layers[0])
