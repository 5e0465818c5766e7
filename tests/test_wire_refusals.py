"""What the wire codec says when it cannot read a packet: the requirement, the byte and the
words, exactly -- the one line a vendor reads (``mqcn decode --packet``, the audit, the
transport findings).  Each case is bytes written by hand from the layout of [MS-MQMQ] 2.2.19
and the one rule they break.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest

from mqcn_model.errors import DecodeError
from mqcn_model.wire.base import DH, decode_base_header
from mqcn_model.wire.common import Letter, breach, need, utf16z
from mqcn_model.wire.debug import DebugHeader, decode_debug, encode_debug
from mqcn_model.wire.framing import NEED_MORE, NOT_BASE_HEADER, find_base_header, next_frame
from mqcn_model.wire.internal import decode_internal
from mqcn_model.wire.session import decode_session
from mqcn_model.wire.soap import SoapHeader, decode_soap, encode_soap
from mqcn_model.wire.transaction import TransactionHeader, decode_transaction, encode_transaction

SIG = "4c494f52"  # "LIOR"


def _debug(wire: bytes) -> object:
    return decode_debug(wire, 0, len(wire))


CASES: list[tuple[str, Callable[[bytes], object], str, str, int, str]] = [
    ("debug-short", _debug, "0000", "MQMQ-2.2.19.1-3", 0, "a DebugHeader needs 4 bytes, 2 left"),
    ("debug-qt", _debug, "fe000000", "MQMQ-2.2.20.8-1", 0, "Flags.QT is 2, not 0 or 1"),
    (
        "debug-queue-short",
        _debug,
        "01000000 00112233",
        "MQMQ-2.2.19.1-3",
        4,
        "the QueueIdentifier needs 16 bytes, 4 left",
    ),
    (
        "base-short",
        decode_base_header,
        "10000000",
        "MQMQ-2.2.19.1-3",
        0,
        "a BaseHeader needs 16 bytes, 4 left",
    ),
    (
        "base-version",
        decode_base_header,
        f"11000000 {SIG} 20000000 ffffffff",
        "MQMQ-2.2.19.1-1",
        0,
        "VersionNumber is 0x11, not 0x10",
    ),
    (
        "base-signature",
        decode_base_header,
        "10000000 00000000 20000000 ffffffff",
        "MQMQ-2.2.19.1-2",
        4,
        "Signature is 0x00000000, not 0x524f494c",
    ),
    (
        "base-too-big",
        decode_base_header,
        f"10000000 {SIG} 01004000 ffffffff",
        "MQMQ-2.2.19.1-4",
        8,
        "PacketSize is 4194305, above 0x00400000",
    ),
    (
        "base-too-small",
        decode_base_header,
        f"10000000 {SIG} 0c000000 ffffffff",
        "MQMQ-2.2.19.1-3",
        8,
        "PacketSize is 12: a packet is at least its 16-byte BaseHeader and its headers are "
        "4-byte aligned",
    ),
    (
        "base-unaligned",
        decode_base_header,
        f"10000000 {SIG} 11000000 ffffffff",
        "MQMQ-2.2.19.1-3",
        8,
        "PacketSize is 17: a packet is at least its 16-byte BaseHeader and its headers are "
        "4-byte aligned",
    ),
]


@pytest.mark.parametrize(
    ("decode", "wire", "requirement", "offset", "message"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_an_unreadable_structure_is_refused_with_its_rule_byte_and_words(
    decode: Callable[[bytes], object], wire: str, requirement: str, offset: int, message: str
) -> None:
    with pytest.raises(DecodeError) as info:
        decode(bytes.fromhex(wire.replace(" ", "")))
    violation = info.value.violation
    assert (violation.requirement, violation.offset, violation.message) == (
        requirement,
        offset,
        message,
    )


# --- the helpers every decoder uses (mqcn_model/wire/common.py) ----------------------------------


def test_a_value_rule_is_a_finding_or_in_strict_mode_the_error() -> None:
    found: list = []
    breach(found, "MQMQ-2.2.20.4-1", 30, "WindowSize is 0")
    assert [(v.requirement, v.offset, v.message) for v in found] == [
        ("MQMQ-2.2.20.4-1", 30, "WindowSize is 0")
    ]
    with pytest.raises(DecodeError) as info:
        breach(None, "MQMQ-2.2.20.4-1", 30, "WindowSize is 0")
    assert info.value.violation == found[0]


@pytest.mark.parametrize(("offset", "end", "left"), [(10, 14, 4), (10, 10, 0), (10, 8, 0)])
def test_bytes_that_do_not_fit_say_how_many_are_left(offset: int, end: int, left: int) -> None:
    need(offset, 4, offset + 4, "MQMQ-2.2.19.1-3", "a UserHeader")  # fits: no error
    with pytest.raises(DecodeError) as info:
        need(offset, 8, end, "MQMQ-2.2.19.1-3", "a UserHeader")
    violation = info.value.violation
    assert (violation.requirement, violation.offset) == ("MQMQ-2.2.19.1-3", offset)
    assert violation.message == f"a UserHeader needs 8 bytes, {left} left"


@pytest.mark.parametrize(
    "raw", ["", "61", "610000", "61006200"], ids=["empty", "one", "odd", "no-nul"]
)
def test_a_string_without_its_utf16_terminator_is_refused_at_its_start(raw: str) -> None:
    buf = bytes(6) + bytes.fromhex(raw)
    with pytest.raises(DecodeError) as info:
        utf16z(buf, 6, len(buf), "MQMQ-2.2.20.7-3", "SoapHeader.Header")
    violation = info.value.violation
    assert (violation.requirement, violation.offset, violation.message) == (
        "MQMQ-2.2.20.7-3",
        6,
        "SoapHeader.Header is not a UTF-16 string ending in 0x0000",
    )


def test_a_utf16_string_keeps_a_lone_surrogate_and_ends_where_asked() -> None:
    buf = b"xx" + "a".encode("utf-16-le") + b"\x00\xd8" + b"\x00\x00"  # a, lone U+D800, NUL
    assert utf16z(buf, 2, len(buf), "MQMQ-2.2.20.7-3", "s") == ("a\ud800", len(buf))


def test_a_debug_header_whose_flags_and_queue_disagree_is_not_written() -> None:
    with pytest.raises(ValueError, match=r"^Flags\.QT and the QueueIdentifier field disagree$"):
        encode_debug(DebugHeader(flags=1))


# --- framing a stream (mqcn_model/wire/framing.py) ------------------------------------------

HEADER = bytes.fromhex(f"10000000 {SIG} 10000000 ffffffff".replace(" ", ""))  # a 16-byte packet


def test_a_stream_is_framed_at_any_offset() -> None:
    """After a whole packet, the next one's first bytes: more are needed; a wrong
    VersionNumber among them: not a BaseHeader, told at once (the violation of those bytes)."""
    assert next_frame(HEADER + b"\x10\x00\x00\x00", 16).status == NEED_MORE
    frame = next_frame(HEADER + b"\x11\x00", 16)
    assert frame.status == NOT_BASE_HEADER
    assert (
        frame.violation is not None and frame.violation.message == "VersionNumber is 0x11, not 0x10"
    )
    frame = next_frame(HEADER + bytes.fromhex("10000000 4c494f00"), 16)
    assert frame.status == NOT_BASE_HEADER and frame.violation is not None
    assert frame.violation.requirement == "MQMQ-2.2.19.1-2"


def test_a_base_header_is_found_from_where_the_search_starts() -> None:
    """find_base_header: the first VersionNumber 0x10 + Signature at or after ``start``
    (a stray Signature without its VersionNumber is skipped)."""
    stray = b"xxxx" + bytes.fromhex(SIG) + b"yyyy"  # "LIOR" after a byte that is not 0x10
    stream = HEADER + stray + HEADER
    assert find_base_header(stream) == 0
    assert find_base_header(stream, 1) == 16 + len(stray)
    assert find_base_header(stray) == -1


# --- internal packets (mqcn_model/wire/internal.py) -------------------------------------------

_CP = "100008004c494f5220000000ffffffff00000300840300003075000000004000"  # ConnectionParameters
_ACK = "100018004c494f5224000000ffffffff0000010003000100010000000200010040000000"  # SessionAck


def _set(wire: str, at: int, hex_bytes: str) -> str:
    raw = bytearray(bytes.fromhex(wire))
    new = bytes.fromhex(hex_bytes)
    raw[at : at + len(new)] = new
    return raw.hex()


INTERNAL_REFUSALS = [
    (
        "in-clear",
        _set(_CP, 2, "0000"),
        "MQMQ-2.2.19.1-8",
        2,
        "BaseHeader.Flags.IN is clear in an internal packet",
    ),
    ("size-given", _CP[:48], "MQMQ-2.2.19.1-3", 8, "PacketSize is 32 but 24 bytes are given"),
    (
        "no-internal-header",
        f"10000800{SIG}10000000ffffffff",
        "MQMQ-2.2.19.1-3",
        16,
        "an InternalHeader needs 4 bytes, 0 left",
    ),
    (
        "pt",
        _set(_CP, 18, "0500"),
        "MQQB-2.2.1-1",
        18,
        "InternalHeader.Flags.PT is 5, not 1, 2 or 3",
    ),
    (
        "body-size",
        _set(_CP, 8, "24000000") + "00000000",
        "MQMQ-2.2.19.1-3",
        8,
        "a ConnectionParameters Packet is 32 bytes, PacketSize says 36",
    ),
    (
        "letter-ack-short",
        f"10001800{SIG}14000000ffffffff00000100",
        "MQMQ-2.2.19.1-3",
        20,
        "the SessionAck's SessionHeader needs 16 bytes, 0 left",
    ),
]


@pytest.mark.parametrize(
    ("wire", "requirement", "offset", "message"),
    [case[1:] for case in INTERNAL_REFUSALS],
    ids=[case[0] for case in INTERNAL_REFUSALS],
)
def test_an_unreadable_internal_packet_is_refused_with_its_rule_byte_and_words(
    wire: str, requirement: str, offset: int, message: str
) -> None:
    with pytest.raises(DecodeError) as info:
        decode_internal(bytes.fromhex(wire))
    violation = info.value.violation
    assert (violation.requirement, violation.offset, violation.message) == (
        requirement,
        offset,
        message,
    )


INTERNAL_FINDINGS = [
    (
        "dh",
        _set(_CP, 2, f"{0x0008 | DH:04x}"[2:] + f"{0x0008 | DH:04x}"[:2]),
        "MQMQ-2.2.19.1-6",
        2,
        "BaseHeader.Flags.DH is set in an internal packet",
    ),
    (
        "ttrq",
        _set(_CP, 12, "2c010000"),
        "MQMQ-2.2.19.1-9",
        12,
        "TimeToReachQueue is 0x12c in an internal packet",
    ),
    ("reserved", _set(_CP, 16, "0100"), "MQQB-2.2.1-3", 16, "InternalHeader.Reserved is 0x0001"),
    (
        "cs-in-ack",
        _set(_ACK, 18, "1100"),
        "MQQB-2.2.1-2",
        18,
        "Flags.CS is set in a SessionAck Packet",
    ),
    (
        "sh-clear",
        _set(_ACK, 2, "0800"),
        "MQQB-2.2.6-1",
        2,
        "a SessionAck has BaseHeader.Flags.SH clear",
    ),
]


@pytest.mark.parametrize(
    ("wire", "requirement", "offset", "message"),
    [case[1:] for case in INTERNAL_FINDINGS],
    ids=[case[0] for case in INTERNAL_FINDINGS],
)
def test_a_value_rule_of_an_internal_packet_is_a_finding_at_its_byte(
    wire: str, requirement: str, offset: int, message: str
) -> None:
    packet, _ = decode_internal(bytes.fromhex(wire))
    found = [(f.requirement, f.offset, f.message) for f in packet.findings]
    assert (requirement, offset, message) in found


def test_a_session_header_short_or_windowless_is_told_exactly() -> None:
    with pytest.raises(DecodeError) as info:
        decode_session(bytes(20), 10, 20)
    v = info.value.violation
    assert (v.requirement, v.offset, v.message) == (
        "MQMQ-2.2.19.1-3",
        10,
        "a SessionHeader needs 16 bytes, 10 left",
    )
    found: list = []
    header, end = decode_session(bytes(20), 2, 20, found)
    assert (header.window_size, end) == (0, 18)
    assert [(f.requirement, f.offset, f.message) for f in found] == [
        ("MQMQ-2.2.20.4-1", 14, "WindowSize is 0")
    ]


def _transaction(number: int, previous: int, flags: int = 0) -> bytes:
    return struct.pack("<IIIII", flags, 1, 2, number, previous)


def test_a_transaction_header_short_or_misnumbered_is_told_exactly() -> None:
    for wire, end, offset, message in (
        (bytes(30), 30, 14, "a TransactionHeader needs 20 bytes, 16 left"),
        (
            bytes(4) + _transaction(5, 4, flags=1) + bytes(8),
            32,
            24,
            "the ConnectorQMGuid needs 16 bytes, 8 left",
        ),
    ):
        with pytest.raises(DecodeError) as info:
            decode_transaction(wire, offset if offset == 14 else 4, end)
        v = info.value.violation
        assert (v.requirement, v.offset, v.message) == ("MQMQ-2.2.19.1-3", offset, message)
    found: list = []
    decode_transaction(bytes(2) + _transaction(0, 0), 2, 22, found)
    assert [(f.requirement, f.offset, f.message) for f in found] == [
        ("MQMQ-2.2.20.5-1", 14, "TxSequenceNumber is 0"),
        ("MQMQ-2.2.20.5-2", 18, "PreviousTxSequenceNumber 0 does not precede TxSequenceNumber 0"),
    ]
    found = []
    decode_transaction(_transaction(0xFFFFFFFF, 0xFFFFFFFE), 0, 20, found)
    assert found == []  # the highest pair that 2.2.20.5 allows
    with pytest.raises(ValueError, match=r"^Flags\.CG and the ConnectorQMGuid field disagree$"):
        encode_transaction(TransactionHeader(flags=1))


# --- the SoapHeader (mqcn_model/wire/soap.py) ------------------------------------------------


def _part(section: int, text: str, *, pad: bool = True) -> bytes:
    data = text.encode("utf-16-le") + b"\x00\x00"
    raw = struct.pack("<HHI", section, 0, len(data) // 2) + data
    return raw + bytes(-len(raw) % 4) if pad else raw


@pytest.mark.parametrize(
    ("wire", "requirement", "offset", "message"),
    [
        (
            bytes(4) + bytes(6),
            "MQMQ-2.2.19.1-3",
            4,
            "the SoapHeader Header part needs 8 bytes, 6 left",
        ),
        (
            bytes(4) + struct.pack("<HHI", 0x320, 0, 0) + bytes(8),
            "MQMQ-2.2.20.7-3",
            8,
            "HeaderDataLength 0 does not fit the packet",
        ),
        (
            bytes(4) + struct.pack("<HHI", 0x320, 0, 100) + bytes(8),
            "MQMQ-2.2.20.7-3",
            8,
            "HeaderDataLength 100 does not fit the packet",
        ),
        (
            bytes(4) + struct.pack("<HHI", 0x320, 0, 2) + b"a\x00b\x00" + _part(0x384, "b"),
            "MQMQ-2.2.20.7-3",
            12,
            "Header is not a UTF-16 string ending in 0x0000",
        ),
    ],
    ids=["short", "no-units", "too-many-units", "no-terminator"],
)
def test_an_unreadable_soap_header_is_refused_exactly(
    wire: bytes, requirement: str, offset: int, message: str
) -> None:
    with pytest.raises(DecodeError) as info:
        decode_soap(wire, 4, len(wire), [])
    v = info.value.violation
    assert (v.requirement, v.offset, v.message) == (requirement, offset, message)


def test_a_soap_header_section_id_is_a_finding_at_its_part() -> None:
    for wire, finding in (
        (
            _part(0x321, "<h/>") + _part(0x384, "<b/>"),
            ("MQMQ-2.2.20.7-1", 4, "Header section ID is 0x0321, not 0x0320"),
        ),
        (
            _part(0x320, "<h/>") + _part(0x385, "<b/>"),
            ("MQMQ-2.2.20.7-2", 24, "Body section ID is 0x0385, not 0x0384"),
        ),
    ):
        found: list = []
        header, end = decode_soap(bytes(4) + wire, 4, 4 + len(wire), found)
        assert (header.header, header.body, end) == ("<h/>", "<b/>", 44)
        assert [(f.requirement, f.offset, f.message) for f in found] == [finding]


def test_a_soap_header_by_the_letter_is_read_and_named() -> None:
    """W-08: the Body part right after the Header, unpadded, is read there, and said."""
    wire = bytes(4) + _part(0x320, "ab", pad=False) + _part(0x384, "<b/>")
    letter = Letter(frozenset())
    header, end = decode_soap(wire, 4, len(wire), [], letter)
    assert (header.header, header.body, end) == ("ab", "<b/>", 36)
    assert [str(u) for u in letter.used] == [
        "W-08 read to the letter at byte 18: the Body part follows the Header unpadded "
        "(BodySectionID 0x0384 is there, not at the 4-byte boundary 20)"
    ]
    padded = bytes(4) + _part(0x320, "ab") + _part(0x384, "<b/>")
    letter = Letter(frozenset())
    assert decode_soap(padded, 4, len(padded), [], letter)[0].body == "<b/>"
    assert letter.used == []


def test_a_soap_text_keeps_a_lone_surrogate() -> None:
    soap = SoapHeader(header="a\ud800", body="b\udfff")
    wire = encode_soap(soap)
    assert decode_soap(wire, 0, len(wire))[0] == soap


def test_a_soap_header_cut_at_its_end_is_refused_where_it_stops() -> None:
    """The Body part's padding runs past the packet: refused at the end of the Body; a Body
    part that starts unpadded 2 bytes before the end is read there (W-08) and is too short."""
    wire = bytes(4) + _part(0x320, "<h/>") + _part(0x384, "ab", pad=False)
    with pytest.raises(DecodeError) as info:
        decode_soap(wire, 4, len(wire), [])
    v = info.value.violation
    assert (v.requirement, v.offset, v.message) == (
        "MQMQ-2.2.19.1-3",
        40,
        "the SoapHeader padding needs 0 bytes, 0 left",
    )
    cut = bytes(4) + _part(0x320, "ab", pad=False) + struct.pack("<H", 0x384)
    letter = Letter(frozenset())
    with pytest.raises(DecodeError) as info:
        decode_soap(cut, 4, len(cut), [], letter)
    v = info.value.violation
    assert (v.offset, v.message) == (18, "the SoapHeader Body part needs 8 bytes, 2 left")
    assert [u.errata for u in letter.used] == ["W-08"]
