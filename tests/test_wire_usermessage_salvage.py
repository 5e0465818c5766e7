"""What the UserMessage decoder says, byte by byte, about the [MS-MQRR] 2.2.5 headers and the
packets real senders send (usermessage.py, issue 35): the headers salvage_user_message reads
before a stop, with their offsets; the exact words and bytes of each finding and refusal;
the order in which the SRMP and letter layouts are tried; encode_user_message's refusals.

Every packet here starts 4 bytes into its buffer (``PREFIX``), so an offset counted from the
packet's start and one counted from the buffer's differ.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest
from test_wire_usermessage_rules import PREFIX, full_message, simple

from mqcn_model.errors import DecodeError
from mqcn_model.wire import user as U
from mqcn_model.wire.common import Letter
from mqcn_model.wire.extensions import (
    ExtensionHeader,
    Extensions,
    compound_message,
    srmp_envelope,
)
from mqcn_model.wire.properties import MessageProperties
from mqcn_model.wire.usermessage import (
    UserMessage,
    _decode,
    decode_user_message,
    encode_user_message,
    finalize,
    salvage_user_message,
)

NOT_MQQB = "a header [MS-MQQB] 2.2 does not use ([MS-MQRR] 2.2.5), decoded all the same"
AH_ON_THE_WIRE = ("MQMQ-2.2.19.2-7", 67, "Flags.AH is set in a packet on the wire")


def found(packet: UserMessage) -> list[tuple[str, int | None, str]]:
    return [(f.requirement, f.offset, f.message) for f in packet.findings]


def with_ah(message: UserMessage) -> UserMessage:
    """``message`` with UserHeader.Flags.AH set (finalize keeps the bit as it is)."""
    return replace(message, user=replace(message.user, flags=message.user.flags | U.AH))


def every_header() -> UserMessage:
    """Every header a UserMessage Packet can carry: [MS-MQMQ] 2.2.20's, the SRMP pair and an
    extension chain, and a SessionHeader."""
    return finalize(
        replace(
            full_message(),
            srmp_envelope=srmp_envelope("<e/>"),
            compound=compound_message(b"POST / HTTP/1.1\r\n\r\n", b"xy"),
            extensions=Extensions(ExtensionHeader(12, 0, 0)),
        )
    )


# --- salvage_user_message: the headers read before the stop --------------------------------


def test_salvage_gives_every_header_with_its_offset_before_a_missing_session_header() -> None:
    """MQMQ-2.2.19.1-3: BaseHeader.Flags.SH announces 16 bytes after PacketSize; without them
    reading stops at PacketSize's end, after every other header has been read, each named
    with the buffer offset where it starts and its decoded record, in wire order."""
    message = every_header()
    wire = encode_user_message(message)
    assert len(wire) == 480 + 16
    whole, _ = decode_user_message(PREFIX + wire, 4)
    salvage = salvage_user_message(PREFIX + wire[:-16], 4)
    assert [(h.name, h.offset) for h in salvage.headers] == [
        ("BaseHeader", 4),
        ("UserHeader", 20),
        ("TransactionHeader", 112),
        ("SecurityHeader", 148),
        ("MessagePropertiesHeader", 188),
        ("DebugHeader", 252),
        ("SRMPEnvelopeHeader", 272),
        ("CompoundMessageHeader", 292),
        ("SoapHeader", 332),
        ("MultiQueueFormatHeader", 356),
        ("ExtensionHeader", 472),
    ]
    assert [h.header for h in salvage.headers] == [
        whole.base,
        whole.user,
        whole.transaction,
        whole.security,
        whole.properties,
        whole.debug,
        whole.srmp_envelope,
        whole.compound,
        whole.soap,
        whole.mqf,
        whole.extensions,
    ]
    stop = salvage.stopped
    assert (stop.requirement, stop.offset, stop.message) == (
        "MQMQ-2.2.19.1-3",
        4 + 480,
        "BaseHeader.Flags.SH is set but the SessionHeader after PacketSize is missing",
    )


def test_the_headers_mqqb_does_not_use_are_each_a_finding_at_their_first_byte() -> None:
    """MQQB-2.2-1: the SRMPEnvelopeHeader, the CompoundMessageHeader and the extension chain
    are decoded, each a finding at its offset that names it; findings come in wire order,
    the same in the decoded packet and in a salvage."""
    wire = encode_user_message(every_header())
    expected = [
        AH_ON_THE_WIRE,
        ("MQQB-2.2-1", 272, f"SRMPEnvelopeHeader: {NOT_MQQB}"),
        ("MQQB-2.2-1", 292, f"CompoundMessageHeader: {NOT_MQQB}"),
        ("MQQB-2.2-1", 472, f"ExtensionHeader (and the chain it opens): {NOT_MQQB}"),
        (
            "MQRR-2.2.5.2-3",
            480,
            "ExtensionHeader.Flags.SQ is clear: the chain always carries the SubqueueHeader",
        ),
        (
            "MQRR-2.2.5.2-3",
            480,
            "ExtensionHeader.Flags.EA is clear: the chain always carries the ExtendedAddressHeader",
        ),
    ]
    packet, end = decode_user_message(PREFIX + wire, 4)
    assert end == 4 + len(wire)
    assert found(packet) == expected
    salvage = salvage_user_message(PREFIX + wire[:-16], 4)
    assert [(f.requirement, f.offset, f.message) for f in salvage.findings] == expected


def test_salvage_reads_uncovered_bytes_as_a_finding_and_stops_at_the_next_refusal() -> None:
    """MQMQ-2.2.19.1-3: salvage reads as the decoder's last, tolerant pass does -- bytes inside
    PacketSize that no header covers are a finding, not the stop -- and stops at the
    missing SessionHeader after them."""
    wire = bytearray(encode_user_message(simple()) + bytes(4))
    wire[8] += 4  # PacketSize 128, the headers 124
    wire[2] |= 0x10  # BaseHeader.Flags.SH, no SessionHeader follows
    salvage = salvage_user_message(PREFIX + bytes(wire), 4)
    assert [(h.name, h.offset) for h in salvage.headers] == [
        ("BaseHeader", 4),
        ("UserHeader", 20),
        ("MessagePropertiesHeader", 72),
    ]
    assert [(f.requirement, f.offset, f.message) for f in salvage.findings] == [
        (
            "MQMQ-2.2.19.1-3",
            4 + 124,
            "4 bytes at offset 124 that no announced header covers (PacketSize is 128, "
            "the headers take 124)",
        )
    ]
    assert (salvage.stopped.requirement, salvage.stopped.offset) == ("MQMQ-2.2.19.1-3", 4 + 128)


def test_salvage_of_a_packet_that_reads_whole_is_refused_in_these_words() -> None:
    """A packet the decoder reads (even one with uncovered bytes, a finding) has nothing to
    salvage: ValueError, pointing to decode_user_message."""
    wire = bytearray(encode_user_message(simple()) + bytes(4))
    wire[8] += 4
    for data in (encode_user_message(simple()), bytes(wire)):
        with pytest.raises(ValueError) as refused:
            salvage_user_message(PREFIX + data, 4)
        assert str(refused.value) == (
            "salvage_user_message: the packet reads whole; use decode_user_message"
        )


# --- the uncovered bytes and PacketSize -----------------------------------------------------


def test_uncovered_bytes_are_counted_from_the_packets_start_in_the_finding() -> None:
    """MQMQ-2.2.19.1-3: the finding stands at the uncovered bytes' buffer offset; its words
    give their offset and the headers' size counted from the packet's first byte."""
    wire = bytearray(encode_user_message(simple()) + bytes(1))
    wire[8] += 1  # PacketSize 125: one byte past the 124 of the headers
    packet, end = decode_user_message(PREFIX + bytes(wire), 4)
    assert end == 4 + 125
    assert found(packet)[-1] == (
        "MQMQ-2.2.19.1-3",
        4 + 124,
        "1 byte at offset 124 that no announced header covers (PacketSize is 125, "
        "the headers take 124)",
    )


def test_the_strict_reading_refuses_a_packet_size_larger_than_its_headers() -> None:
    """MQMQ-2.2.19.1-3: each layout the decoder tries first reads strictly -- PacketSize must be
    exactly the headers' bytes -- and refuses at the PacketSize field, giving both sizes."""
    wire = bytearray(encode_user_message(simple()) + bytes(4))
    wire[8] += 4
    with pytest.raises(DecodeError) as refused:
        _decode(PREFIX + bytes(wire), 4, Letter())
    assert (refused.value.requirement, refused.value.offset) == ("MQMQ-2.2.19.1-3", 4 + 8)
    assert refused.value.violation.message == (
        "PacketSize is 128 but the headers the flags announce take 124 bytes"
    )


# --- UserHeader.Flags.AH: the SRMP pair, or the packet read without it ----------------------


@pytest.mark.parametrize("source", [None, uuid.UUID(int=0)])
def test_flags_ah_without_the_srmp_pair_is_read_without_it_and_said_at_the_flag(
    source: uuid.UUID | None,
) -> None:
    """MQRR-2.2.5.1.2-1: Flags.AH announces the SRMPEnvelopeHeader and CompoundMessageHeader;
    a packet that reads only without them is read so, a finding at the byte holding
    Flags.AH that gives (from the packet's start) where the pair should have stood.  Only
    UserHeader.Flags is looked at (a zero SourceQueueManager as well as another)."""
    message = with_ah(simple())
    if source is not None:
        message = replace(message, user=replace(message.user, source_qm=source))
    packet, end = decode_user_message(PREFIX + encode_user_message(message), 4)
    assert end == 4 + 124 and packet.srmp_envelope is None and packet.compound is None
    assert found(packet) == [
        AH_ON_THE_WIRE,
        (
            "MQRR-2.2.5.1.2-1",
            4 + 16 + 48 - 1,
            "UserHeader.Flags.AH is set but no SRMPEnvelopeHeader and CompoundMessageHeader "
            "stand at byte 124: the packet reads only without them",
        ),
    ]


def test_a_packet_that_reads_with_and_without_the_srmp_pair_is_read_with_it() -> None:
    """MQRR-2.2.5.1.2: with Flags.AH set the SRMP pair is tried first.  Here the pair's bytes
    could also be an extension chain (HeaderId 12 is an ExtensionHeader.HeaderSize of 12,
    DataLength its RemainingHeadersSize): the pair's reading is the one kept."""
    start = 4 + len(encode_user_message(simple()))  # where the pair starts
    shape = simple(srmp_envelope=srmp_envelope("@x"), compound=compound_message(b"", b""))
    remaining = len(encode_user_message(shape)) - (start - 4) - 12
    envelope = replace(srmp_envelope("@x"), header_id=12, data_length=remaining)
    wire = encode_user_message(replace(shape, srmp_envelope=envelope))
    packet, _ = decode_user_message(PREFIX + wire, 4)
    assert packet.srmp_envelope is not None and packet.srmp_envelope.envelope == "@x"
    assert packet.extensions is None
    assert [(f.requirement, f.offset) for f in packet.findings] == [
        ("MQMQ-2.2.19.2-7", 67),
        ("MQQB-2.2-1", start),
        ("MQRR-2.2.5.1.2.1-1", start + 4),
        ("MQQB-2.2-1", start + 16),
    ]
    # read without the pair, the same bytes are an extension chain
    without, _ = _decode(PREFIX + wire, 4, Letter(), srmp=False)
    assert without.extensions is not None and without.srmp_envelope is None


def w02(**headers: object) -> UserMessage:
    """W-02 by the letter: AllocationBodySize 16 for a 4-byte body, only the body written."""
    return simple(properties=MessageProperties(body=b"abcd", declared_allocation=16), **headers)


W02_NOTE = (
    "the body room is MessageSize (4 bytes), not AllocationBodySize (16): the next header "
    "follows the body"
)


def test_the_letter_is_tried_with_the_srmp_pair_flags_ah_announces() -> None:
    """W-02 (docs/errata.md) and MQRR-2.2.5.1.2: a packet whose SRMP pair follows a
    MessagePropertiesHeader laid out by the letter is read with the pair and the letter."""
    wire = encode_user_message(
        w02(srmp_envelope=srmp_envelope("<e/>"), compound=compound_message(b"H", b"b"))
    )
    packet, end = decode_user_message(PREFIX + wire, 4)
    assert end == 4 + len(wire)
    assert [(r.errata, r.offset, r.note) for r in packet.letter] == [("W-02", 108, W02_NOTE)]
    assert packet.srmp_envelope == srmp_envelope("<e/>")
    assert packet.compound == compound_message(b"H", b"b")
    assert found(packet) == [
        AH_ON_THE_WIRE,
        ("MQQB-2.2-1", 132, f"SRMPEnvelopeHeader: {NOT_MQQB}"),
        ("MQQB-2.2-1", 152, f"CompoundMessageHeader: {NOT_MQQB}"),
    ]


def test_the_letter_is_tried_without_the_srmp_pair_when_it_is_absent() -> None:
    """W-02 and MQRR-2.2.5.1.2-1: Flags.AH set, no SRMP pair, a MessagePropertiesHeader by the
    letter: read to the letter without the pair, the missing pair a finding."""
    wire = encode_user_message(with_ah(w02()))
    packet, end = decode_user_message(PREFIX + wire, 4)
    assert end == 4 + len(wire) and packet.srmp_envelope is None
    assert [(r.errata, r.offset) for r in packet.letter] == [("W-02", 108)]
    assert found(packet) == [
        AH_ON_THE_WIRE,
        (
            "MQRR-2.2.5.1.2-1",
            67,
            "UserHeader.Flags.AH is set but no SRMPEnvelopeHeader and CompoundMessageHeader "
            "stand at byte 128: the packet reads only without them",
        ),
    ]


# --- finalize and encode_user_message: the SRMP pair and Flags.AH ---------------------------


@pytest.mark.parametrize("half", ["srmp_envelope", "compound"])
def test_finalize_sets_flags_ah_for_either_header_of_the_pair(half: str) -> None:
    """MQRR-2.2.5.1.2: Flags.AH announces the pair; finalize sets it when either is there."""
    pair = {"srmp_envelope": srmp_envelope("<e/>"), "compound": compound_message(b"", b"")}
    bare = UserMessage(simple().base, simple().user, MessageProperties())
    assert not finalize(bare).user.flags & U.AH
    assert finalize(replace(bare, **{half: pair[half]})).user.flags & U.AH


@pytest.mark.parametrize("half", ["srmp_envelope", "compound"])
def test_encoding_half_of_the_srmp_pair_is_refused_in_these_words(half: str) -> None:
    """[MS-MQRR] 2.2.5.1.2: the SRMPEnvelopeHeader and CompoundMessageHeader come together."""
    pair = {"srmp_envelope": srmp_envelope("<e/>"), "compound": compound_message(b"", b"")}
    with pytest.raises(ValueError) as refused:
        encode_user_message(simple(**{half: pair[half]}))
    assert str(refused.value) == (
        "the SRMPEnvelopeHeader and the CompoundMessageHeader come as a pair"
    )


def test_encoding_the_srmp_pair_with_flags_ah_clear_is_refused_in_these_words() -> None:
    """MQRR-2.2.5.1.2-1: the SRMP pair is written only where UserHeader.Flags.AH announces it."""
    message = simple(srmp_envelope=srmp_envelope("<e/>"), compound=compound_message(b"", b""))
    cleared = replace(message, user=replace(message.user, flags=message.user.flags & ~U.AH))
    with pytest.raises(ValueError) as refused:
        encode_user_message(cleared)
    assert str(refused.value) == "UserHeader.Flags.AH is clear but the SRMP headers are present"


def test_the_bytes_judge_salvages_a_lone_base_header_and_nothing_shorter() -> None:
    """Sixteen bytes that are a BaseHeader (PacketSize 16): refused for the UserHeader they
    lack, with the BaseHeader shown; fifteen: refused, nothing to show (not even a
    BaseHeader)."""
    from mqcn_model.wire.base import BaseHeader, encode_base_header
    from mqcn_model.wire.judgement import judge_packet_bytes

    alone = encode_base_header(BaseHeader(), 16)
    verdict = judge_packet_bytes(alone)
    assert str(verdict.refused) == "MQMQ-2.2.19.1-3 at byte 16: a UserHeader needs 48 bytes, 0 left"
    assert verdict.salvage is not None
    assert [(h.name, h.offset) for h in verdict.salvage.headers] == [("BaseHeader", 0)]
    short = judge_packet_bytes(alone[:15])
    assert str(short.refused) == "MQMQ-2.2.19.1-3 at byte 0: a BaseHeader needs 16 bytes, 15 left"
    assert short.salvage is None
