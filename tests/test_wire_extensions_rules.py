"""The [MS-MQRR] 2.2.5 headers of a UserMessage, rule by rule (mqcn_model/wire/extensions.py).

One rule per test, with the values at its boundary: the SRMP pair (SRMPEnvelopeHeader,
CompoundMessageHeader, 2.2.5.1.2) and the extension chain (ExtensionHeader, SubqueueHeader,
DeadLetterHeader, ExtendedAddressHeader, 2.2.5.2-5).  A vendor reads each finding and each
refusal, so they are checked whole: requirement ID, byte offset and exact text.  Every header
is decoded at byte 4 of a buffer with junk before it and after the end it is given, so a
reading that starts at byte 0 or runs to the end of the buffer shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mqcn_model.errors import DecodeError, Violation
from mqcn_model.wire import extensions as X
from mqcn_model.wire.declared import pack
from mqcn_model.wire.extensions import (
    DI,
    DL,
    EA,
    SQ,
    X2,
    CompoundMessageHeader,
    DeadLetterHeader,
    ExtendedAddressHeader,
    ExtensionHeader,
    Extensions,
    SrmpEnvelopeHeader,
    SubqueueHeader,
)

JUNK = b"\xee\xee\xee\xee"
AT = 4  # where each header starts in its buffer
WRAPPED = " (its top bit is set: a wrapped length)"
PACKET_SIZE = "MQMQ-2.2.19.1-3"


def placed(wire: bytes, tail: bytes = JUNK) -> tuple[bytes, int, int]:
    """``wire`` at byte 4 of a buffer: junk before it, ``tail`` after the end it is given."""
    return JUNK + wire + tail, AT, AT + len(wire)


def refusal(call: Callable[..., Any], *args: Any) -> Violation:
    """The Violation ``call(*args)`` is refused with; its DecodeError says it whole."""
    with pytest.raises(DecodeError) as refused:
        call(*args)
    error = refused.value
    violation = error.violation
    assert (error.requirement, error.offset) == (violation.requirement, violation.offset)
    assert str(error) == f"{violation.requirement} at byte {violation.offset}: {violation.message}"
    return violation


def u32(value: int) -> bytes:
    return value.to_bytes(4, "little")


# --- the wrapped-length suffix ---------------------------------------------------------------


def test_the_wrapped_suffix_is_there_exactly_when_the_top_bit_is_set() -> None:
    """CVE-2023-21554's trigger is a length with its top bit set: the suffix says so, and
    only then."""
    assert X._wrapped(0x80000000) == WRAPPED
    assert X._wrapped(0xFFFFFFFF) == WRAPPED
    assert X._wrapped(0x7FFFFFFF) == ""
    assert X._wrapped(0) == ""


# --- SRMPEnvelopeHeader ([MS-MQRR] 2.2.5.1.2.1) ------------------------------------------------


def test_the_srmp_envelope_builder_counts_the_text_and_its_terminator() -> None:
    """MQRR-2.2.5.1.2.1-1: DataLength counts Data with its terminator, in WCHARs (or in
    bytes, W-13); HeaderId defaults to 0 and Reserved is 0."""
    assert X.srmp_envelope("ab") == SrmpEnvelopeHeader(0, 0, 3, "ab", "WCHAR")
    assert X.srmp_envelope("ab", unit="byte") == SrmpEnvelopeHeader(0, 0, 6, "ab", "byte")
    assert X.srmp_envelope("", header_id=7) == SrmpEnvelopeHeader(7, 0, 1, "", "WCHAR")
    assert X.srmp_envelope("\U0001f600") == SrmpEnvelopeHeader(0, 0, 3, "\U0001f600", "WCHAR")
    lone = X.srmp_envelope("\ud800")  # a lone surrogate is one WCHAR, kept as it is
    assert lone == SrmpEnvelopeHeader(0, 0, 2, "\ud800", "WCHAR")
    assert (
        type(lone.data_length) is int and type(X.srmp_envelope("a", unit="byte").data_length) is int
    )


def test_an_srmp_envelope_is_encoded_byte_for_byte_and_padded_to_4() -> None:
    """[MS-MQRR] 2.2.5.1.2.1: HeaderId, Reserved, DataLength, Data (UTF-16LE, 0x0000), then
    zeros to the next 4-byte boundary."""
    assert X.encode_srmp_envelope(X.srmp_envelope("a")) == bytes.fromhex(
        "0000 0000 02000000 6100 0000"
    )
    assert X.encode_srmp_envelope(X.srmp_envelope("ab", header_id=0x0102)) == bytes.fromhex(
        "0201 0000 03000000 6100 6200 0000 0000"
    )
    assert X.encode_srmp_envelope(X.srmp_envelope("\ud800")) == bytes.fromhex(
        "0000 0000 02000000 00d8 0000"
    )
    lying = SrmpEnvelopeHeader(1, 2, 0x80000009, "abc", None)  # encoded as given
    assert X.encode_srmp_envelope(lying) == bytes.fromhex("0100 0200 09000080 6100 6200 6300 0000")


def test_an_srmp_envelope_is_read_at_its_offset_with_its_padding() -> None:
    """MQRR-2.2.5.1.2.1-1: DataLength 3 counts 'ab' and its terminator in WCHARs; the header
    ends at the next 4-byte boundary after Data."""
    wire = bytes.fromhex("0201 0000 03000000 6100 6200 0000 0000")
    buf, offset, end = placed(wire)
    findings: list[Violation] = []
    header, after = X.decode_srmp_envelope(buf, offset, end, findings)
    assert header == SrmpEnvelopeHeader(0x0102, 0, 3, "ab", "WCHAR")
    assert after == 20 and findings == []


def test_an_srmp_envelope_counted_in_bytes_passes() -> None:
    """W-13: DataLength 6 counts the 6 bytes of 'ab' and its terminator: the byte reading."""
    buf, offset, end = placed(bytes.fromhex("0000 0000 06000000 6100 6200 0000 0000"))
    findings: list[Violation] = []
    header, after = X.decode_srmp_envelope(buf, offset, end, findings)
    assert header == SrmpEnvelopeHeader(0, 0, 6, "ab", "byte")
    assert after == 20 and findings == []


def test_the_padding_after_data_stops_at_the_end_of_the_packet() -> None:
    """A packet that ends right after the terminator (no padding): the header ends there, at
    the terminator that ends the packet exactly."""
    buf, offset, end = placed(bytes.fromhex("0000 0000 03000000 6100 6200 0000"))
    header, after = X.decode_srmp_envelope(buf, offset, end, [])
    assert header.envelope == "ab" and after == end == 18


def test_a_data_length_that_counts_neither_is_a_finding_and_data_is_read_all_the_same() -> None:
    """MQRR-2.2.5.1.2.1-1: DataLength 4 is neither 3 WCHARs nor 6 bytes: a finding at the
    DataLength field, Data read to its terminator, the unit None."""
    buf, offset, end = placed(bytes.fromhex("0000 0000 04000000 6100 6200 0000 0000"))
    findings: list[Violation] = []
    header, after = X.decode_srmp_envelope(buf, offset, end, findings)
    assert header == SrmpEnvelopeHeader(0, 0, 4, "ab", None) and after == 20
    assert findings == [
        Violation(
            "MQRR-2.2.5.1.2.1-1",
            8,
            "SRMPEnvelopeHeader.DataLength is 4 (0x00000004) but Data is 3 WCHARs (6 bytes) to "
            "its terminator",
        )
    ]


def test_a_wrapped_data_length_says_its_top_bit_is_set() -> None:
    """MQRR-2.2.5.1.2.1-1 with the CVE's shape: 3 + 0x80000000."""
    buf, offset, end = placed(bytes.fromhex("0000 0000 03000080 6100 6200 0000 0000"))
    findings: list[Violation] = []
    header, _ = X.decode_srmp_envelope(buf, offset, end, findings)
    assert header.unit is None and header.envelope == "ab"
    assert findings == [
        Violation(
            "MQRR-2.2.5.1.2.1-1",
            8,
            f"SRMPEnvelopeHeader.DataLength is 2147483651 (0x80000003){WRAPPED} but Data is 3 "
            "WCHARs (6 bytes) to its terminator",
        )
    ]
    buf, offset, end = placed(bytes.fromhex("0000 0000 ffffff7f 6100 6200 0000 0000"))
    findings = []
    X.decode_srmp_envelope(buf, offset, end, findings)
    assert [f.message for f in findings] == [
        "SRMPEnvelopeHeader.DataLength is 2147483647 (0x7fffffff) but Data is 3 WCHARs (6 "
        "bytes) to its terminator"
    ]


def test_an_srmp_envelope_keeps_a_lone_surrogate() -> None:
    """Data is UTF-16 as Windows stores it: a lone surrogate is read, not refused."""
    buf, offset, end = placed(bytes.fromhex("0000 0000 02000000 00d8 0000"))
    header, after = X.decode_srmp_envelope(buf, offset, end, [])
    assert header.envelope == "\ud800" and after == 16


def test_data_without_a_terminator_before_the_end_is_refused() -> None:
    """MQRR-2.2.5.1.2.1-2: Data must end in 0x0000 inside the packet; a terminator after the
    end given does not count."""
    buf, offset, end = placed(bytes.fromhex("0000 0000 03000000 6100 6200"), tail=b"\x00\x00")
    assert refusal(X.decode_srmp_envelope, buf, offset, end, []) == Violation(
        "MQRR-2.2.5.1.2.1-2",
        12,
        "SRMPEnvelopeHeader.Data has no 0x0000 terminator before the packet ends at byte 16",
    )
    # a terminator at an odd offset into Data is no terminator
    buf, offset, end = placed(bytes.fromhex("0000 0000 03000000 6100 0062"))
    assert refusal(X.decode_srmp_envelope, buf, offset, end, []).offset == 12


def test_an_srmp_envelope_header_needs_its_8_bytes() -> None:
    """MQMQ-2.2.19.1-3: the fixed part is 8 bytes."""
    buf, offset, end = placed(bytes(7))
    assert refusal(X.decode_srmp_envelope, buf, offset, end, []) == Violation(
        PACKET_SIZE, 4, "an SRMPEnvelopeHeader needs 8 bytes, 7 left"
    )


def test_the_terminator_is_the_first_aligned_0x0000_unit_before_the_end() -> None:
    """[MS-MQRR] 2.2.5.1.2.1: Data is UTF-16 code units; its terminator is a whole unit."""
    t = X._terminator
    assert t(b"\x00\x00", 0, 2) == 2  # the last unit before the end
    assert t(b"\x00\x00", 0, 1) == -1  # half a unit is no unit
    assert t(b"a\x00\x00\x00", 0, 4) == 4
    assert t(b"\x00a\x00\x00", 0, 4) == 4  # both bytes must be zero
    assert t(b"a\x00\x00a\x00\x00", 0, 6) == 6
    assert t(b"a\x00\x00b", 0, 4) == -1  # the zeros straddle two units
    assert t(b"a\x00\x00\x00", 0, 3) == -1  # past the end
    assert t(b"\xee\xee\xee\xee\xee\xee\x00\x00", 4, 8) == 8
    assert t(b"\x00\x00\x00\x00a\x00\x00\x00", 4, 8) == 8  # from start, not from 0
    assert t(b"\xee\xee\xee\xee\xee\xee", 4, 6) == -1
    assert t(b"", 0, 0) == -1


def test_data_length_counts_in_wchars_or_bytes_or_neither() -> None:
    """W-13: DataLength * 2 bytes is the WCHAR reading, DataLength bytes the byte one."""
    assert X.unit_of(3, 6) == "WCHAR"
    assert X.unit_of(6, 6) == "byte"
    assert X.unit_of(4, 6) is None
    assert X.unit_of(2, 6) is None
    assert X.unit_of(0, 0) == "WCHAR"


# --- CompoundMessageHeader ([MS-MQRR] 2.2.5.1.2.2) ---------------------------------------------


def test_the_compound_builder_places_the_body_after_the_http_part() -> None:
    """MQRR-2.2.5.1.2.2-1/-2: HTTPBodySize is all of Data; the body is MsgBodySize bytes at
    MsgBodyOffset, right after the HTTP part."""
    header = X.compound_message(b"GET", b"xy")
    assert header == CompoundMessageHeader(0, 0, 5, 2, 3, b"GETxy")
    assert header.http == b"GET" and header.message_body == b"xy"
    assert X.compound_message(b"", b"", header_id=9) == CompoundMessageHeader(9, 0, 0, 0, 0, b"")


def test_the_message_body_is_msg_body_size_bytes_at_msg_body_offset() -> None:
    """MQRR-2.2.5.1.2.2-2: the body lies in Data at MsgBodyOffset; the HTTP part is before it."""
    header = CompoundMessageHeader(0, 0, 6, 2, 1, b"abcdef")
    assert header.http == b"a" and header.message_body == b"bc"
    header = CompoundMessageHeader(0, 0, 6, 3, 2, b"abcdef")
    assert header.http == b"ab" and header.message_body == b"cde"


def test_a_compound_header_is_encoded_byte_for_byte_and_padded_to_4() -> None:
    """[MS-MQRR] 2.2.5.1.2.2: HeaderId, Reserved, HTTPBodySize, MsgBodySize, MsgBodyOffset,
    Data, zeros to the next 4-byte boundary."""
    assert X.encode_compound(X.compound_message(b"GET", b"xy", header_id=0x0102)) == (
        bytes.fromhex("0201 0000 05000000 02000000 03000000") + b"GETxy\x00\x00\x00"
    )
    assert X.encode_compound(X.compound_message(b"ab", b"cd")) == (
        bytes.fromhex("0000 0000 04000000 02000000 02000000") + b"abcd"
    )


def test_a_compound_header_is_read_at_its_offset_with_its_padding() -> None:
    buf, offset, end = placed(
        bytes.fromhex("0201 0000 05000000 02000000 03000000") + b"GETxy\x00\x00\x00"
    )
    findings: list[Violation] = []
    header, after = X.decode_compound(buf, offset, end, findings)
    assert header == CompoundMessageHeader(0x0102, 0, 5, 2, 3, b"GETxy")
    assert after == 28 and findings == []


def test_data_that_fills_the_packet_exactly_is_read_and_the_padding_stops_at_the_end() -> None:
    """MQRR-2.2.5.1.2.2-1: HTTPBodySize 5 with 5 bytes left fits; no room for padding."""
    buf, offset, end = placed(bytes.fromhex("0000 0000 05000000 02000000 03000000") + b"GETxy")
    header, after = X.decode_compound(buf, offset, end, [])
    assert header.data == b"GETxy" and after == end == 25


def test_an_http_body_size_past_the_packet_is_refused() -> None:
    """MQRR-2.2.5.1.2.2-1: HTTPBodySize 6 with 5 bytes left; the refusal names the field."""
    buf, offset, end = placed(bytes.fromhex("0000 0000 06000000 00000000 00000000") + b"GETxy")
    assert refusal(X.decode_compound, buf, offset, end, []) == Violation(
        "MQRR-2.2.5.1.2.2-1",
        8,
        "CompoundMessageHeader.HTTPBodySize is 6 (0x00000006) but 5 bytes are left in the packet",
    )
    buf, offset, end = placed(bytes.fromhex("0000 0000 00000080 00000000 00000000") + b"GETxy")
    assert refusal(X.decode_compound, buf, offset, end, []) == Violation(
        "MQRR-2.2.5.1.2.2-1",
        8,
        f"CompoundMessageHeader.HTTPBodySize is 2147483648 (0x80000000){WRAPPED} but 5 bytes "
        "are left in the packet",
    )


def test_a_message_body_that_ends_at_the_end_of_data_passes() -> None:
    """MQRR-2.2.5.1.2.2-2: MsgBodyOffset 3 + MsgBodySize 2 == HTTPBodySize 5: inside Data."""
    buf, offset, end = placed(
        bytes.fromhex("0000 0000 05000000 02000000 03000000") + b"GETxy\x00\x00\x00"
    )
    findings: list[Violation] = []
    X.decode_compound(buf, offset, end, findings)
    assert findings == []


def test_a_message_body_past_data_is_a_finding_at_msg_body_size() -> None:
    """MQRR-2.2.5.1.2.2-2: MsgBodyOffset 4 + MsgBodySize 2 run one byte past Data's 5."""
    buf, offset, end = placed(
        bytes.fromhex("0000 0000 05000000 02000000 04000000") + b"GETxy\x00\x00\x00"
    )
    findings: list[Violation] = []
    header, after = X.decode_compound(buf, offset, end, findings)
    assert header.data == b"GETxy" and after == 28
    assert findings == [
        Violation(
            "MQRR-2.2.5.1.2.2-2",
            12,
            "MsgBodyOffset 4 (0x00000004) + MsgBodySize 2 (0x00000002) run past Data's 5 bytes",
        )
    ]


@pytest.mark.parametrize(
    ("body_size", "body_offset", "shown"),
    [
        (0, 0x80000000, "MsgBodyOffset 2147483648 (0x80000000) + MsgBodySize 0 (0x00000000)"),
        (0x80000000, 0, "MsgBodyOffset 0 (0x00000000) + MsgBodySize 2147483648 (0x80000000)"),
    ],
)
def test_a_wrapped_msg_body_offset_or_size_says_its_top_bit_is_set(
    body_size: int, body_offset: int, shown: str
) -> None:
    """MQRR-2.2.5.1.2.2-2: either field with its top bit set is a wrapped length."""
    fixed = bytes.fromhex("0000 0000 04000000") + u32(body_size) + u32(body_offset)
    buf, offset, end = placed(fixed + b"abcd")
    findings: list[Violation] = []
    X.decode_compound(buf, offset, end, findings)
    assert findings == [
        Violation("MQRR-2.2.5.1.2.2-2", 12, f"{shown} run past Data's 4 bytes{WRAPPED}")
    ]


def test_a_compound_header_needs_its_16_bytes() -> None:
    """MQMQ-2.2.19.1-3: the fixed part is 16 bytes."""
    buf, offset, end = placed(bytes(15))
    assert refusal(X.decode_compound, buf, offset, end, []) == Violation(
        PACKET_SIZE, 4, "a CompoundMessageHeader needs 16 bytes, 15 left"
    )


# --- the extension chain: builder and encoder ([MS-MQRR] 2.2.5.2-5) ----------------------------

SUBQUEUE = SubqueueHeader(148, 0x00000004, 3, 2, 1, b"p\x00" + bytes(62), b"t\x00" + bytes(62))
SUBQUEUE_WIRE = (
    bytes.fromhex("94000000 04000000 03000000 02000000 01000000")
    + b"p\x00"
    + bytes(62)
    + b"t\x00"
    + bytes(62)
)
ADDRESS = ExtendedAddressHeader(28, 4, 1, 0, b"\x0a\x00\x00\x01" + bytes(12))
ADDRESS_WIRE = bytes.fromhex("1c000000 0400 0100 00000000 0a000001") + bytes(12)
DEAD = DeadLetterHeader(12, "ab")
DEAD_WIRE = bytes.fromhex("0c000000 6100 6200 0000 0000")


def test_the_empty_chain_is_an_extension_header_with_no_flags() -> None:
    """MQRR-2.2.5.2-1/-2: HeaderSize 12, RemainingHeadersSize 0, Flags 0, Reserved zero."""
    assert X.extensions() == Extensions(ExtensionHeader(12, 0, 0, bytes(3)), None, None, None)
    assert X.encode_extensions(X.extensions()) == bytes.fromhex("0c000000 00000000 00 000000")


def test_the_builder_sets_each_flag_for_the_header_it_carries() -> None:
    """MQRR-2.2.5.2-2/-3: SQ, DL, EA for the headers given, DI when asked; the remaining size
    is the sum of their HeaderSizes."""
    assert X.extensions(subqueue=SUBQUEUE).extension == ExtensionHeader(12, 148, SQ)
    assert X.extensions(dead_letter="ab").extension == ExtensionHeader(12, 12, DL)
    assert X.extensions(extended_address=ADDRESS).extension == ExtensionHeader(12, 28, EA)
    assert X.extensions(invalid_dead_letter=True).extension == ExtensionHeader(12, 0, DI)
    whole = X.extensions(
        subqueue=SUBQUEUE, dead_letter="ab", extended_address=ADDRESS, invalid_dead_letter=True
    )
    assert whole == Extensions(ExtensionHeader(12, 188, 0x1B), SUBQUEUE, DEAD, ADDRESS)
    odd = X.extensions(
        subqueue=SubqueueHeader(header_size=150),
        extended_address=ExtendedAddressHeader(header_size=30),
    )
    assert odd.extension == ExtensionHeader(12, 180, SQ | EA)  # the sizes the headers say


def test_the_builder_pads_the_dead_letter_path_to_4_bytes() -> None:
    """MQRR-2.2.5.4-1/-2: HeaderSize 4 + the path with its terminator, rounded up to 4."""
    assert X.extensions(dead_letter="").dead_letter == DeadLetterHeader(8, "")
    assert X.extensions(dead_letter="a").dead_letter == DeadLetterHeader(8, "a")
    assert X.extensions(dead_letter="ab").dead_letter == DeadLetterHeader(12, "ab")
    assert X.extensions(dead_letter="abc").dead_letter == DeadLetterHeader(12, "abc")
    assert X.extensions(dead_letter="\ud800").dead_letter == DeadLetterHeader(8, "\ud800")


def test_an_extension_chain_is_encoded_byte_for_byte() -> None:
    """[MS-MQRR] 2.2.5.2-5: the ExtensionHeader, then SubqueueHeader, DeadLetterHeader and
    ExtendedAddressHeader in that order, each as declared."""
    chain = X.extensions(subqueue=SUBQUEUE, dead_letter="ab", extended_address=ADDRESS)
    assert X.encode_extensions(chain) == (
        bytes.fromhex("0c000000 bc000000 13 000000") + SUBQUEUE_WIRE + DEAD_WIRE + ADDRESS_WIRE
    )


def test_a_dead_letter_header_is_encoded_to_its_header_size() -> None:
    """MQRR-2.2.5.4-1: the path, its terminator, zeros up to HeaderSize -- none when the path
    fills it, and never fewer bytes than the path."""
    empty = ExtensionHeader(12, 0, 0)
    assert X.encode_extensions(Extensions(empty, dead_letter=DeadLetterHeader(8, "a")))[
        12:
    ] == bytes.fromhex("08000000 6100 0000")
    assert X.encode_extensions(Extensions(empty, dead_letter=DeadLetterHeader(4, "abc")))[
        12:
    ] == bytes.fromhex("04000000 6100 6200 6300 0000")
    assert X.encode_extensions(Extensions(empty, dead_letter=DeadLetterHeader(16, "\ud800")))[
        12:
    ] == bytes.fromhex("10000000 00d8 0000") + bytes(8)


# --- is_extension_chain ([MS-MQRR] 2.2.5.2) ----------------------------------------------------


def _sizes(size: int, remaining: int, left: int) -> tuple[bytes, int, int]:
    wire = (u32(size) + u32(remaining) + bytes(max(0, left - 8)))[:left]
    return placed(wire, tail=bytes(8))


def test_fewer_than_12_bytes_left_are_no_extension_chain() -> None:
    """[MS-MQRR] 2.2.5.2: an ExtensionHeader is 12 bytes."""
    assert X.is_extension_chain(*_sizes(12, 0, 11)) is False
    assert X.is_extension_chain(*_sizes(12, 0, 12)) is True


def test_a_header_size_of_12_is_an_extension_chain_whatever_follows() -> None:
    """MQRR-2.2.5.2-1: HeaderSize 12 is the ExtensionHeader's, even when
    RemainingHeadersSize does not add up."""
    assert X.is_extension_chain(*_sizes(12, 999, 12)) is True
    assert X.is_extension_chain(*_sizes(12, 8, 40)) is True


def test_other_sizes_are_a_chain_only_when_they_cover_exactly_the_bytes_left() -> None:
    """MQRR-2.2.5.2-1/-2: a HeaderSize other than 12 (at least 12) is a chain when
    HeaderSize + RemainingHeadersSize is the bytes left, not one more or one fewer."""
    assert X.is_extension_chain(*_sizes(16, 4, 20)) is True
    assert X.is_extension_chain(*_sizes(16, 4, 24)) is False
    assert X.is_extension_chain(*_sizes(16, 4, 19)) is False
    assert X.is_extension_chain(*_sizes(16, 5, 20)) is False
    assert X.is_extension_chain(*_sizes(13, 0, 13)) is True
    assert X.is_extension_chain(*_sizes(11, 1, 12)) is False  # smaller than a header
    assert X.is_extension_chain(*_sizes(0, 12, 12)) is False


# --- decode_extensions ([MS-MQRR] 2.2.5.2) -----------------------------------------------------


def _chain(flags: int, header_size: int = 12, extra: int = 0) -> tuple[bytes, Extensions]:
    """An extension chain with the headers ``flags`` announce (SQ, DL, EA; X2 and DI carry
    none), an ExtensionHeader of ``header_size`` bytes and ``extra`` bytes after them that
    RemainingHeadersSize counts."""
    body = b""
    subqueue = dead = address = None
    if flags & SQ:
        body, subqueue = body + SUBQUEUE_WIRE, SUBQUEUE
    if flags & DL:
        body, dead = body + DEAD_WIRE, DEAD
    if flags & EA:
        body, address = body + ADDRESS_WIRE, ADDRESS
    header = ExtensionHeader(header_size, len(body) + extra, flags)
    wire = pack(header) + bytes(header_size - 12) + body + bytes(extra)
    return wire, Extensions(header, subqueue, dead, address)


def _clear(offset: int, *names: str) -> list[Violation]:
    carried = {"SQ": "SubqueueHeader", "EA": "ExtendedAddressHeader"}
    return [
        Violation(
            "MQRR-2.2.5.2-3",
            offset + 8,
            f"ExtensionHeader.Flags.{name} is clear: the chain always carries the {carried[name]}",
        )
        for name in names
    ]


@pytest.mark.parametrize("flags", range(32))
def test_every_flags_combination_reads_the_headers_it_announces(flags: int) -> None:
    """MQRR-2.2.5.2-2/-3: SQ, DL and EA each announce their header, in that order; X2 and DI
    announce none; SQ or EA clear is a finding at the Flags byte."""
    wire, chain = _chain(flags)
    buf, offset, end = placed(wire)
    findings: list[Violation] = []
    assert X.decode_extensions(buf, offset, end, findings) == (chain, end)
    clear = [name for bit, name in ((SQ, "SQ"), (EA, "EA")) if not flags & bit]
    assert findings == _clear(4, *clear)


def test_a_full_chain_with_di_reads_clean() -> None:
    """[MS-MQRR] 2.2.5.2: DL, SQ, X2, DI and EA all set; the chain as Windows writes it."""
    wire, chain = _chain(DL | SQ | X2 | DI | EA)
    assert wire[8] == 0x1F
    buf, offset, end = placed(wire)
    findings: list[Violation] = []
    assert X.decode_extensions(buf, offset, end, findings) == (chain, end)
    assert findings == [] and end == 4 + 12 + 148 + 12 + 28


def test_the_flags_clear_findings_come_sq_first() -> None:
    """MQRR-2.2.5.2-3: Flags 0: two findings at the Flags byte, SQ then EA."""
    buf, offset, end = placed(bytes.fromhex("0c000000 00000000 00 000000"))
    findings: list[Violation] = []
    chain, after = X.decode_extensions(buf, offset, end, findings)
    assert chain == Extensions(ExtensionHeader(12, 0, 0)) and after == 16
    assert findings == [
        Violation(
            "MQRR-2.2.5.2-3",
            12,
            "ExtensionHeader.Flags.SQ is clear: the chain always carries the SubqueueHeader",
        ),
        Violation(
            "MQRR-2.2.5.2-3",
            12,
            "ExtensionHeader.Flags.EA is clear: the chain always carries the ExtendedAddressHeader",
        ),
    ]


def test_a_header_size_other_than_12_is_a_finding_and_the_headers_follow_it() -> None:
    """MQRR-2.2.5.2-1: HeaderSize 16 is a finding at HeaderSize; the SubqueueHeader starts
    16 bytes in, and RemainingHeadersSize counts from there."""
    wire, chain = _chain(SQ | EA, header_size=16)
    buf, offset, end = placed(wire)
    findings: list[Violation] = []
    assert X.decode_extensions(buf, offset, end, findings) == (chain, end)
    assert findings == [Violation("MQRR-2.2.5.2-1", 4, "ExtensionHeader.HeaderSize is 16, not 12")]


def test_a_header_size_that_takes_all_the_bytes_left_is_read() -> None:
    """MQRR-2.2.5.2-1: HeaderSize 16 with 16 bytes left and nothing remaining: read, with its
    findings."""
    buf, offset, end = placed(u32(16) + u32(0) + bytes(8))
    findings: list[Violation] = []
    chain, after = X.decode_extensions(buf, offset, end, findings)
    assert chain == Extensions(ExtensionHeader(16, 0, 0)) and after == end == 20
    assert findings == [
        Violation("MQRR-2.2.5.2-1", 4, "ExtensionHeader.HeaderSize is 16, not 12"),
        *_clear(4, "SQ", "EA"),
    ]


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (17, "17 (0x00000011)"),
        (11, "11 (0x0000000b)"),
        (0, "0 (0x00000000)"),
        (0x80000010, f"2147483664 (0x80000010){WRAPPED}"),
    ],
)
def test_a_header_size_below_12_or_past_the_packet_is_refused(size: int, shown: str) -> None:
    """MQMQ-2.2.19.1-3: an ExtensionHeader smaller than its 12 bytes, or larger than the 16
    bytes left, cannot be read: refused for that, before any finding (a strict reader, no
    findings list, is refused for the same)."""
    buf, offset, end = placed(u32(size) + u32(0) + bytes(8))
    findings: list[Violation] = []
    refused = Violation(
        PACKET_SIZE, 4, f"ExtensionHeader.HeaderSize is {shown}: 16 bytes are left in the packet"
    )
    assert refusal(X.decode_extensions, buf, offset, end, findings) == refused
    assert findings == []
    assert refusal(X.decode_extensions, buf, offset, end, None) == refused


def test_remaining_headers_that_fill_the_packet_exactly_are_read() -> None:
    """MQRR-2.2.5.2-2: RemainingHeadersSize 4 with 4 bytes after the header: read, and the
    4 bytes no flag announces are a finding at RemainingHeadersSize."""
    buf, offset, end = placed(bytes.fromhex("0c000000 04000000 00 000000") + bytes(4))
    findings: list[Violation] = []
    chain, after = X.decode_extensions(buf, offset, end, findings)
    assert chain == Extensions(ExtensionHeader(12, 4, 0)) and after == end == 20
    assert findings[-1] == Violation(
        "MQRR-2.2.5.2-2",
        8,
        "ExtensionHeader.RemainingHeadersSize is 4 but the headers its Flags announce take 0",
    )


@pytest.mark.parametrize(
    ("remaining", "shown"),
    [(5, "5 (0x00000005)"), (0x80000000, f"2147483648 (0x80000000){WRAPPED}")],
)
def test_remaining_headers_past_the_packet_are_refused(remaining: int, shown: str) -> None:
    """MQMQ-2.2.19.1-3: RemainingHeadersSize larger than the 4 bytes after the header."""
    buf, offset, end = placed(bytes.fromhex("0c000000") + u32(remaining) + bytes(4) + bytes(4))
    assert refusal(X.decode_extensions, buf, offset, end, []) == Violation(
        PACKET_SIZE,
        8,
        f"ExtensionHeader.RemainingHeadersSize is {shown} but 4 bytes are left in the packet",
    )


def test_remaining_headers_past_the_bytes_after_a_longer_header_are_refused() -> None:
    """MQMQ-2.2.19.1-3: the bytes left are counted from the end of a 16-byte header."""
    buf, offset, end = placed(u32(16) + u32(5) + bytes(12))
    assert refusal(X.decode_extensions, buf, offset, end, []) == Violation(
        PACKET_SIZE,
        8,
        "ExtensionHeader.RemainingHeadersSize is 5 (0x00000005) but 4 bytes are left in the packet",
    )


def test_a_remaining_size_larger_than_the_headers_is_a_finding_and_the_chain_ends_there() -> None:
    """MQRR-2.2.5.2-2: the headers SQ and EA announce take 176 bytes; RemainingHeadersSize
    180 counts 4 more (after a 16-byte ExtensionHeader): a finding, the chain ends at 180."""
    wire, chain = _chain(SQ | EA, header_size=16, extra=4)
    buf, offset, end = placed(wire)
    findings: list[Violation] = []
    assert X.decode_extensions(buf, offset, end, findings) == (chain, end)
    assert end == 4 + 16 + 180
    assert findings == [
        Violation("MQRR-2.2.5.2-1", 4, "ExtensionHeader.HeaderSize is 16, not 12"),
        Violation(
            "MQRR-2.2.5.2-2",
            8,
            "ExtensionHeader.RemainingHeadersSize is 180 but the headers its Flags announce "
            "take 176",
        ),
    ]


def test_the_chain_ends_where_remaining_headers_size_says_not_at_the_packet_end() -> None:
    """MQRR-2.2.5.2-2: bytes after the chain are not the chain's: the chain ends at
    RemainingHeadersSize even when more bytes follow."""
    wire, chain = _chain(SQ | EA)
    buf, offset, end = placed(wire + bytes(8))
    assert X.decode_extensions(buf, offset, end, []) == (chain, end - 8)


@pytest.mark.parametrize(
    ("flags", "remaining", "what"),
    [
        (SQ, 100, "a SubqueueHeader needs 148 bytes, 100 left"),
        (EA, 20, "an ExtendedAddressHeader needs 28 bytes, 20 left"),
        (DL, 3, "a DeadLetterHeader needs 4 bytes, 3 left"),
    ],
)
def test_each_announced_header_is_read_inside_the_chain_only(
    flags: int, remaining: int, what: str
) -> None:
    """MQMQ-2.2.19.1-3: a header the Flags announce must fit in RemainingHeadersSize, even
    when the packet has the bytes."""
    wire = pack(ExtensionHeader(12, remaining, flags)) + bytes(200)
    buf, offset, end = placed(wire)
    assert refusal(X.decode_extensions, buf, offset, end, []) == Violation(PACKET_SIZE, 16, what)


def test_a_dead_letter_header_is_held_to_the_chain() -> None:
    """MQRR-2.2.5.4-1: DL with RemainingHeadersSize 12 and a DeadLetterHeader of 16: the
    chain has 12 bytes for it."""
    wire = pack(ExtensionHeader(12, 12, DL)) + bytes.fromhex("10000000 6100 0000") + bytes(8)
    buf, offset, end = placed(wire)
    assert refusal(X.decode_extensions, buf, offset, end, []) == Violation(
        "MQRR-2.2.5.4-1",
        16,
        "DeadLetterHeader.HeaderSize is 16 (0x00000010): the chain has 12 bytes left for it",
    )


def test_findings_of_the_chained_headers_are_kept_with_the_chain_s() -> None:
    """[MS-MQRR] 2.2.5.3-5: a finding inside a chained header is a finding of the packet,
    after the ExtensionHeader's own."""
    subqueue = pack(SubqueueHeader(148, 1))
    address = pack(ExtendedAddressHeader(28, 0, 2))
    dead = bytes.fromhex("08000000 6100 0000")
    wire = pack(ExtensionHeader(16, 148 + 8 + 28, SQ | DL | EA)) + bytes(4)
    buf, offset, end = placed(wire + subqueue + dead + address)
    findings: list[Violation] = []
    X.decode_extensions(buf, offset, end, findings)
    assert [(f.requirement, f.offset) for f in findings] == [
        ("MQRR-2.2.5.2-1", 4),
        ("MQRR-2.2.5.3-1", 24),  # TM, 4 bytes into the SubqueueHeader at 20
        ("MQRR-2.2.5.5-1", 182),  # AddressType, 6 bytes into the header at 176
    ]


def test_an_extension_header_needs_its_12_bytes() -> None:
    """MQMQ-2.2.19.1-3: an ExtensionHeader is 12 bytes."""
    buf, offset, end = placed(bytes(11))
    assert refusal(X.decode_extensions, buf, offset, end, []) == Violation(
        PACKET_SIZE, 4, "an ExtensionHeader needs 12 bytes, 11 left"
    )


# --- SubqueueHeader ([MS-MQRR] 2.2.5.3) ----------------------------------------------------------


def test_a_subqueue_header_is_read_at_its_offset() -> None:
    """[MS-MQRR] 2.2.5.3: 148 bytes; the acknowledgement class is bits 1-16 of the second
    word, TM bit 0."""
    buf, at, end = placed(SUBQUEUE_WIRE)
    findings: list[Violation] = []
    assert X._subqueue(buf, at, end, findings) == (SUBQUEUE, 152)
    assert findings == []
    assert SUBQUEUE.acknowledgement_class == 2


def test_the_acknowledgement_class_is_bits_1_to_16() -> None:
    """[MS-MQRR] 2.2.5.3: TM is bit 0, AcknowledgementClass the 16 bits above it."""
    assert SubqueueHeader(word=(0xABCD << 1) | 1 | (0x5 << 17)).acknowledgement_class == 0xABCD
    assert SubqueueHeader(word=0xFFFFFFFF).acknowledgement_class == 0xFFFF
    assert SubqueueHeader(word=1).acknowledgement_class == 0


def test_each_subqueue_header_rule_is_a_finding_at_its_field() -> None:
    """MQRR-2.2.5.3-1/-2: HeaderSize 148, TM 0, each name terminated and zero-filled; each
    broken one a finding at its field, in field order."""
    header = SubqueueHeader(150, 1, 0, 0, 0, b"\xee" * 64, b"a\x00\x00\x00b\x00" + bytes(58))
    buf, at, end = placed(pack(header))
    findings: list[Violation] = []
    assert X._subqueue(buf, at, end, findings) == (header, 152)
    assert findings == [
        Violation("MQRR-2.2.5.3-1", 4, "SubqueueHeader.HeaderSize is 150, not 148"),
        Violation("MQRR-2.2.5.3-1", 8, "SubqueueHeader.TM is set"),
        Violation(
            "MQRR-2.2.5.3-2",
            24,
            "SubqueueHeader.SubqueueName has no 0x0000 terminator in its 64 bytes",
        ),
        Violation(
            "MQRR-2.2.5.3-2",
            88,
            "SubqueueHeader.TargetSubqueueName has bytes other than 0x00 after its terminator",
        ),
    ]


def test_tm_is_bit_0_only() -> None:
    """MQRR-2.2.5.3-1: every bit but TM set is no TM finding."""
    header = SubqueueHeader(word=0xFFFFFFFE)
    buf, at, end = placed(pack(header))
    findings: list[Violation] = []
    X._subqueue(buf, at, end, findings)
    assert findings == []


def test_a_subqueue_header_needs_its_148_bytes() -> None:
    """MQMQ-2.2.19.1-3: a SubqueueHeader is 148 bytes."""
    buf, at, end = placed(bytes(147))
    assert refusal(X._subqueue, buf, at, end, []) == Violation(
        PACKET_SIZE, 4, "a SubqueueHeader needs 148 bytes, 147 left"
    )


def test_a_subqueue_name_is_a_terminated_utf16_string_then_zeros() -> None:
    """MQRR-2.2.5.3-2: a terminated string (or nothing), only 0x00 after its terminator."""
    problem = X._name_problem
    assert problem(bytes(64)) == ""
    assert problem(b"a\x00\x00\x00" + bytes(60)) == ""
    assert problem(b"\xee" * 62 + b"\x00\x00") == ""  # the terminator in the last unit
    assert problem(b"\xee" * 64) == "has no 0x0000 terminator in its 64 bytes"
    assert problem(b"\xee" + bytes(2) + b"\xee" * 61) == "has no 0x0000 terminator in its 64 bytes"
    assert (
        problem(b"a\x00" + bytes(61) + b"\x01") == "has bytes other than 0x00 after its terminator"
    )
    assert problem(b"a\x00\x00\x00\x01" + bytes(59)) == (
        "has bytes other than 0x00 after its terminator"
    )


def test_a_subqueue_name_reads_up_to_its_terminator_or_the_whole_units() -> None:
    """[MS-MQRR] 2.2.5.3: the name is the UTF-16 text before its terminator; without one,
    every whole code unit; an unpaired surrogate is shown as U+FFFD."""
    name = X.subqueue_name
    assert name(b"p\x00o\x00\x00\x00" + bytes(58)) == "po"
    assert name(b"p\x00\x00\x00q\x00") == "p"  # nothing after the terminator
    assert name(b"p\x00o\x00") == "po"
    assert name(b"p\x00o") == "p"  # an odd byte is no unit
    assert name(b"p") == ""
    assert name(b"\x00\xd8\x00\x00") == "\ufffd"
    assert name(b"") == ""
    assert name(bytes(64)) == ""


# --- DeadLetterHeader ([MS-MQRR] 2.2.5.4) ------------------------------------------------------


def test_a_dead_letter_header_is_read_at_its_offset() -> None:
    """MQRR-2.2.5.4-1: HeaderSize 12 covers 'ab', its terminator and 2 bytes of padding."""
    buf, at, end = placed(DEAD_WIRE)
    findings: list[Violation] = []
    assert X._dead_letter(buf, at, end, findings) == (DEAD, 16)
    assert findings == []
    buf, at, end = placed(bytes.fromhex("08000000 6100 0000"))
    assert X._dead_letter(buf, at, end, findings) == (DeadLetterHeader(8, "a"), 12)
    assert findings == []


def test_a_dead_letter_path_keeps_a_lone_surrogate() -> None:
    buf, at, end = placed(bytes.fromhex("08000000 00d8 0000"))
    assert X._dead_letter(buf, at, end, []) == (DeadLetterHeader(8, "\ud800"), 12)


def test_the_smallest_dead_letter_header_is_6_bytes_and_unpadded() -> None:
    """MQRR-2.2.5.4-1/-2: HeaderSize 6 holds an empty path; 6 is not 4-aligned: a padding
    finding just past the terminator."""
    buf, at, end = placed(bytes.fromhex("06000000 0000"))
    findings: list[Violation] = []
    assert X._dead_letter(buf, at, end, findings) == (DeadLetterHeader(6, ""), 10)
    assert findings == [
        Violation(
            "MQRR-2.2.5.4-2",
            10,
            "DeadLetterHeader is 6 bytes: the path is not padded with zeros to a 4-byte boundary",
        )
    ]


def test_a_dead_letter_padding_that_is_not_zeros_is_a_finding() -> None:
    """MQRR-2.2.5.4-2: HeaderSize 12 is aligned but a padding byte is 0x01."""
    buf, at, end = placed(bytes.fromhex("0c000000 6100 0000 0100 0000"))
    findings: list[Violation] = []
    assert X._dead_letter(buf, at, end, findings) == (DeadLetterHeader(12, "a"), 16)
    assert findings == [
        Violation(
            "MQRR-2.2.5.4-2",
            12,
            "DeadLetterHeader is 12 bytes: the path is not padded with zeros to a 4-byte boundary",
        )
    ]
    buf, at, end = placed(bytes.fromhex("0c000000 6100 0000 0000 0001"))
    findings = []
    X._dead_letter(buf, at, end, findings)
    assert [f.offset for f in findings] == [12]


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (5, "5 (0x00000005)"),
        (13, "13 (0x0000000d)"),
        (0x8000000C, f"2147483660 (0x8000000c){WRAPPED}"),
    ],
)
def test_a_dead_letter_size_below_6_or_past_the_chain_is_refused(size: int, shown: str) -> None:
    """MQRR-2.2.5.4-1: HeaderSize covers at least the size field and a terminator, and no
    more than the 12 bytes the chain has left."""
    buf, at, end = placed(u32(size) + bytes.fromhex("6100 0000 0000 0000"))
    assert refusal(X._dead_letter, buf, at, end, []) == Violation(
        "MQRR-2.2.5.4-1",
        4,
        f"DeadLetterHeader.HeaderSize is {shown}: the chain has 12 bytes left for it",
    )


def test_a_dead_letter_size_that_takes_the_rest_of_the_chain_is_read() -> None:
    """MQRR-2.2.5.4-1: HeaderSize 12 with exactly 12 bytes left."""
    buf, at, end = placed(u32(12) + bytes.fromhex("6100 0000 0000 0000"))
    assert X._dead_letter(buf, at, end, []) == (DeadLetterHeader(12, "a"), 16)


def test_a_dead_letter_path_without_a_terminator_inside_its_size_is_refused() -> None:
    """MQRR-2.2.5.4-1: the terminator must lie within HeaderSize; one after it is another
    header's bytes."""
    buf, at, end = placed(bytes.fromhex("08000000 6100 6200 0000 0000"))
    assert refusal(X._dead_letter, buf, at, end, []) == Violation(
        "MQRR-2.2.5.4-1",
        8,
        "DeadLetterHeader.DeadLetterPathName has no 0x0000 terminator in its 4 bytes",
    )


def test_a_dead_letter_header_needs_its_4_bytes() -> None:
    """MQMQ-2.2.19.1-3: the HeaderSize field is 4 bytes."""
    buf, at, end = placed(bytes(3))
    assert refusal(X._dead_letter, buf, at, end, []) == Violation(
        PACKET_SIZE, 4, "a DeadLetterHeader needs 4 bytes, 3 left"
    )


# --- ExtendedAddressHeader ([MS-MQRR] 2.2.5.5) ---------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        ADDRESS,
        ExtendedAddressHeader(28, 0, 0, 0),
        ExtendedAddressHeader(28, 16, 6, 7),
        ExtendedAddressHeader(28, 16, 1, 0),
    ],
)
def test_a_valid_extended_address_header_reads_clean(header: ExtendedAddressHeader) -> None:
    """MQRR-2.2.5.5-1: HeaderSize 28, AddressType 0, 1 or 6, AddressLength up to 16,
    AddressScope only for IPv6."""
    buf, at, end = placed(pack(header))
    findings: list[Violation] = []
    assert X._extended_address(buf, at, end, findings) == (header, 32)
    assert findings == []


def test_each_extended_address_rule_is_a_finding_at_its_field() -> None:
    """MQRR-2.2.5.5-1: each broken rule at its field, in field order: HeaderSize,
    AddressLength, AddressType, AddressScope; the header is 28 bytes all the same."""
    header = ExtendedAddressHeader(32, 17, 2, 5)
    buf, at, end = placed(pack(header))
    findings: list[Violation] = []
    assert X._extended_address(buf, at, end, findings) == (header, 32)
    assert findings == [
        Violation("MQRR-2.2.5.5-1", 4, "ExtendedAddressHeader.HeaderSize is 32, not 28"),
        Violation(
            "MQRR-2.2.5.5-1",
            8,
            "ExtendedAddressHeader.AddressLength is 17: the Address field holds 16 bytes",
        ),
        Violation(
            "MQRR-2.2.5.5-1",
            10,
            "ExtendedAddressHeader.AddressType is 0x0002, not 0x0000, 0x0001 or 0x0006",
        ),
        Violation(
            "MQRR-2.2.5.5-1",
            12,
            "ExtendedAddressHeader.AddressScope is 5 for an address that is not IPv6",
        ),
    ]


def test_an_address_scope_for_ipv4_is_a_finding() -> None:
    """MQRR-2.2.5.5-1: AddressScope 1 for an IPv4 address."""
    buf, at, end = placed(pack(ExtendedAddressHeader(28, 4, 1, 1)))
    findings: list[Violation] = []
    X._extended_address(buf, at, end, findings)
    assert findings == [
        Violation(
            "MQRR-2.2.5.5-1",
            12,
            "ExtendedAddressHeader.AddressScope is 1 for an address that is not IPv6",
        )
    ]


def test_an_extended_address_header_needs_its_28_bytes() -> None:
    """MQMQ-2.2.19.1-3: an ExtendedAddressHeader is 28 bytes."""
    buf, at, end = placed(bytes(27))
    assert refusal(X._extended_address, buf, at, end, []) == Violation(
        PACKET_SIZE, 4, "an ExtendedAddressHeader needs 28 bytes, 27 left"
    )
