"""Each fast path of the capture reader and the wire codec gives what its general path gives
(issue 22, "a reader as fast as dpkt"; docs/capture.md, "Performance").

The fast paths read the common case in fewer steps and hand everything else to the general
code.  Here random inputs -- near-valid ones above all, where a wrong test in a fast path
would show -- go through both, the fast path switched off by :func:`general_paths`:

* the three fixed internal layouts without a finding (``internal._decode_clean``);
* Ethernet + IPv4 + TCP in one unpack (``dissect._ETHERNET_IPV4_TCP``);
* the BaseHeader read once by the framer and handed to the decoders, with the packet's
  ``Where`` made by the framer (``stream``);
* data of a followed stream without SYN, FIN or RST (``reader.segment``);
* the envelope findings remembered by a tuple (``judgement._FINDINGS``);
* records handed over frame by frame (``CaptureReader.records``) against ``feed``.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from itertools import pairwise
from unittest import mock

from capture_helpers import (
    T0,
    Frame,
    Seg,
    envelope,
    ethernet,
    frames,
    pcap,
    segments,
    session_packets,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mqcn_model.capture import dissect as D
from mqcn_model.capture import reader as R
from mqcn_model.capture import stream as S
from mqcn_model.capture.reader import CaptureReader, iter_capture
from mqcn_model.capture.stream import StreamFramer
from mqcn_model.codec.guid import guid_at
from mqcn_model.constants import AuthLevel, HashAlgorithm, MessageClass, SenderIdType
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import LENIENT, STRICT
from mqcn_model.errors import DecodeError
from mqcn_model.wire import base as B
from mqcn_model.wire import internal as I
from mqcn_model.wire import judgement as J
from mqcn_model.wire.internal import (
    ACK_TIMEOUT_RANGE,
    RECOVERABLE_ACK_TIMEOUT_RANGE,
    RESPONSE_PADDING,
    decode_internal,
)
from mqcn_model.wire.mapping import packet_to_envelope
from mqcn_model.wire.usermessage import decode_user_message

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


class _Forgetful(dict):  # type: ignore[type-arg]
    """A memory that never remembers: every envelope is judged by the rules again."""

    def get(self, key: object, default: object = None) -> object:
        return default


@contextmanager
def general_paths() -> Iterator[None]:
    """Switch every fast path off: each test below reads its input with and without."""
    with (
        mock.patch.object(I, "_decode_clean", lambda *args: None),
        mock.patch.object(D, "_ETHERNET_IPV4_TCP", struct.Struct("!65536x")),
        mock.patch.object(S, "BASE_HEADER_SIZE", 1 << 30),
        mock.patch.object(R, "_ENDING", 0xFFFF),
        mock.patch.object(J, "_FINDINGS", _Forgetful()),
    ):
        yield


def _outcome(call: object) -> tuple[object, ...]:
    """What a decoder makes of its input: the packet, its findings (not part of a packet's
    equality) and where it ends, or the violation that refused it."""
    try:
        packet, end = call()  # type: ignore[operator]
    except DecodeError as exc:
        return ("refused", exc.violation)
    return ("read", packet, packet.findings, end, packet.kind)


# --- the fixed internal layouts -----------------------------------------------------------------

_U16, _U32 = st.integers(0, 0xFFFF), st.integers(0, 0xFFFFFFFF)


def _near(low: int, high: int) -> st.SearchStrategy[int]:
    """Values at and around the bounds of a range, and any."""
    return st.sampled_from([low - 1, low, low + 1, high - 1, high, high + 1, 0]) | _U32


@st.composite
def internal_bytes(draw: st.DrawFn) -> tuple[bytes, bool | None]:
    """A ConnectionParameters, EstablishConnection or SessionAck Packet with any value in
    any field (most of them right, so the clean case comes up), sometimes cut or padded."""
    kind = draw(st.sampled_from([I.PT_CONNECTION_PARAMETERS, I.PT_ESTABLISH_CONNECTION, 1]))
    good_flags = B.IN | (B.SH if kind == I.PT_SESSION_ACK else 0) | B.PRIORITY_DEFAULT
    flags = draw(st.sampled_from([good_flags, good_flags | B.DH, good_flags & ~B.SH]) | _U16)
    ttrq = draw(st.sampled_from([B.INFINITE, 0, 300]))
    reserved = draw(st.sampled_from([0, 0, 1]))
    internal_flags = draw(st.sampled_from([kind, kind, kind | I.CS, 0, 4, kind | 0x100]))
    if kind == I.PT_CONNECTION_PARAMETERS:
        body = struct.pack(
            "<IIHH",
            draw(_near(*RECOVERABLE_ACK_TIMEOUT_RANGE)),
            draw(_near(*ACK_TIMEOUT_RANGE)),
            draw(st.sampled_from([0, 0, 7])),
            draw(_U16),
        )
    elif kind == I.PT_ESTABLISH_CONNECTION:
        padding = draw(st.sampled_from([RESPONSE_PADDING, bytes(512), b"\x5a" * 511 + b"\0"]))
        body = struct.pack(
            "<16s16sIHH512s",
            draw(st.binary(min_size=16, max_size=16)),
            draw(st.binary(min_size=16, max_size=16)),
            draw(_U32),
            draw(st.sampled_from([I.OS_RE | I.OS_SE, I.OS_RE, 0x11, 0])),
            draw(st.sampled_from([0, 0, 2])),
            padding,
        )
    else:
        body = struct.pack(
            "<HHIHHHH",
            *(draw(_U16) for _ in range(2)),
            draw(_U32),
            *(draw(_U16) for _ in range(2)),
            draw(st.sampled_from([0, 64, 1])),
            draw(_U16),
        )
    rest = struct.pack("<HH", reserved, internal_flags) + body
    size = draw(st.sampled_from([16 + len(rest), 16 + len(rest), 20, 32, 36, 572]))
    wire = B.encode_base_header(B.BaseHeader(flags, size, ttrq), size) + rest
    wire += draw(st.sampled_from([b"", b"", bytes(16)]))
    wire = wire[: draw(st.sampled_from([len(wire), len(wire), size - 1, 30]))]
    return wire, draw(st.sampled_from([True, False, None]))


@SETTINGS
@given(internal_bytes())
def test_a_fixed_internal_layout_reads_as_the_general_path_reads_it(
    case: tuple[bytes, bool | None],
) -> None:
    wire, response = case
    assume(len(wire) >= 16)
    try:
        base, _ = B.decode_base_header(wire)
    except DecodeError:
        base = None
    fast = _outcome(lambda: decode_internal(wire, response=response))
    handed = (
        _outcome(lambda: decode_internal(wire, response=response, base=base))
        if base is not None
        else fast
    )
    with general_paths():
        general = _outcome(lambda: decode_internal(wire, response=response))
    assert fast == general
    assert handed == general


def test_the_clean_layouts_take_the_fast_path() -> None:
    """Each of the three packets a session is made of, without a finding, is read by
    ``_decode_clean`` (so the test above compares two paths, not one with itself)."""
    wires = session_packets([])
    wires.append(I.encode_internal(I.session_ack(I.SessionHeader(1, 2, 3, 4, 5, 64, 0))))
    for wire in wires:
        base, _ = B.decode_base_header(wire)
        clean = I._decode_clean(wire, base, None)
        assert clean is not None
        assert clean == decode_internal(wire)[0]


# --- Ethernet, IPv4, TCP in one unpack ------------------------------------------------------


@st.composite
def ethernet_frames(draw: st.DrawFn) -> tuple[bytes, int]:
    """An Ethernet frame of an IPv4 TCP segment with each header field right or not, cut by
    a snaplen or not, and the length the frame had."""
    payload = draw(st.binary(max_size=40))
    offset_words = draw(st.sampled_from([5, 5, 6, 4, 15]))
    options = bytes(4 * max(0, offset_words - 5))
    tcp = struct.pack(
        "!HHIIBBHHH",
        draw(st.sampled_from([1801, 49152, 80])),
        draw(st.sampled_from([1801, 49153, 443])),
        draw(_U32),
        draw(_U32),
        offset_words << 4,
        draw(st.integers(0, 0xFF)),
        8192,
        0,
        0,
    )
    segment = tcp + options + payload
    total = 20 + len(segment) + draw(st.sampled_from([0, 0, 0, 5, -3, -len(segment) - 21]))
    first = draw(st.sampled_from([0x45, 0x45, 0x46, 0x44, 0x65]))
    ip = struct.pack(
        "!BBHHHBBH4s4s",
        first,
        0,
        max(0, min(total, 0xFFFF)),
        0,
        draw(st.sampled_from([0, 0, 0x4000, 0x2000, 0x0001])),
        64,
        draw(st.sampled_from([6, 6, 17, 1])),
        0,
        bytes([10, 0, 0, 1]),
        bytes([10, 0, 0, 2]),
    )
    ethertype = draw(st.sampled_from([0x0800, 0x0800, 0x86DD, 0x0806, 0x8100]))
    frame = bytes(12) + ethertype.to_bytes(2, "big") + ip + segment
    frame += draw(st.sampled_from([b"", b"", bytes(6)]))  # Ethernet padding
    length = len(frame)
    cut = draw(st.integers(0, len(frame)))
    captured = frame[: len(frame) - cut] if draw(st.booleans()) else frame
    return captured, draw(st.sampled_from([length, length, len(captured)]))


@SETTINGS
@given(ethernet_frames())
def test_an_ethernet_ipv4_tcp_frame_dissects_as_the_general_path_dissects_it(
    case: tuple[bytes, int],
) -> None:
    data, length = case
    fast = D.dissect(D.LINK_ETHERNET, data, length)
    with general_paths():
        general = D.dissect(D.LINK_ETHERNET, data, length)
    assert fast == general


def test_the_one_unpack_reads_the_fields_the_general_path_reads() -> None:
    seg = Seg(7, b"payload", sport=49152, dport=1801)
    data = ethernet(seg)
    with general_paths():
        general = D.dissect(D.LINK_ETHERNET, data, len(data))
    assert D.dissect(D.LINK_ETHERNET, data, len(data)) == general
    assert (general.seq, general.payload, general.src) == (7, b"payload", bytes([10, 1, 1, 1]))


# --- the framer and the reader -------------------------------------------------------------------

SENT = [envelope(n) for n in range(1, 4)]
PACKETS = session_packets(SENT)


@st.composite
def streams(draw: st.DrawFn) -> list[bytes]:
    """A stream of packets, some damaged or with bytes between them, cut into segments."""
    parts = []
    for packet in draw(st.lists(st.sampled_from(PACKETS), min_size=1, max_size=6)):
        damage = draw(st.sampled_from(["", "", "", "signature", "size", "junk", "short"]))
        if damage == "signature":
            packet = packet[:4] + b"XXXX" + packet[8:]
        elif damage == "size":
            packet = packet[:8] + struct.pack("<I", len(packet) + 4) + packet[12:]
        elif damage == "junk":
            packet = b"junk" + packet
        elif damage == "short":
            packet = packet[: len(packet) // 2]
        parts.append(packet)
    data = b"".join(parts)
    cuts = sorted(set(draw(st.lists(st.integers(1, max(1, len(data) - 1)), max_size=8))))
    edges = [0, *cuts, len(data)]
    return [data[a:b] for a, b in pairwise(edges) if b > a]


def _framed(pieces: list[bytes], mid_session: bool) -> list[object]:
    out: list[object] = []
    framer = StreamFramer("c.pcap", "a -> b", out, mid_session=mid_session)
    for n, piece in enumerate(pieces, start=1):
        framer.data(piece, n, T0 + n)
    framer.finish()
    counts = (framer.packet_bytes, framer.quarantined_bytes, framer.packets, framer.messages)
    return [*out, counts]


@SETTINGS
@given(streams(), st.booleans())
def test_a_stream_frames_as_the_general_path_frames_it(
    pieces: list[bytes], mid_session: bool
) -> None:
    fast = _framed(pieces, mid_session)
    with general_paths():
        general = _framed(pieces, mid_session)
    assert fast == general


@st.composite
def captures(draw: st.DrawFn) -> bytes:
    """Two sessions' segments, resized, reordered, repeated, cut by a snaplen, with bare
    ACKs and the other direction's SYN-ACK, as a pcap file."""
    stream = b"".join(PACKETS)
    segs = segments(stream, size=draw(st.sampled_from([64, 300, 1000, 5000])))
    other = segments(stream, size=draw(st.sampled_from([100, 700])), sport=50000)
    if draw(st.booleans()):  # a stream joined in its middle
        other = other[2:]
    segs = [*segs, Seg(9, b"", 0x12, sport=1801, dport=49152)]  # the SYN-ACK
    segs += [Seg(s.seq, b"", 0x10, time=s.time) for s in segs[1:4]]  # bare ACKs
    mixed = segs + other
    order = draw(st.permutations(range(len(mixed)))) if draw(st.booleans()) else range(len(mixed))
    chosen = [mixed[i] for i in order]
    for at in draw(st.lists(st.integers(0, len(chosen) - 1), max_size=3)):
        chosen.insert(at, chosen[at])  # a retransmission
    for at in draw(st.lists(st.integers(0, len(chosen) - 1), max_size=2)):
        if chosen[at].payload:
            chosen[at] = replace(chosen[at], cut=min(5, len(chosen[at].payload)))
    timed = [replace(s, time=T0 + i * 0.01) for i, s in enumerate(chosen)]
    return pcap(frames(timed))


@SETTINGS
@given(captures(), st.sampled_from([997, 1 << 16, 70_001]))
def test_a_capture_reads_as_the_general_paths_read_it(capture: bytes, chunk: int) -> None:
    pieces = [capture[i : i + chunk] for i in range(0, len(capture), chunk)]
    fast = list(iter_capture("t.pcap", pieces, max_pending=4000))
    with general_paths():
        reader = CaptureReader("t.pcap", max_pending=4000)
        general = [record for piece in pieces for record in reader.feed(piece)]
        general += reader.close()
    assert fast == general


def test_records_hands_over_what_feed_returns_across_pieces() -> None:
    """A chunk larger than a piece (:data:`reader.PIECE`) and chunks that cut pieces and
    records anywhere give the records ``feed`` gives, in the same order."""
    stream = b"".join(PACKETS)
    sessions = [pcap(frames(segments(stream, size=700, sport=40000 + n)))[24:] for n in range(100)]
    capture = pcap([]) + b"".join(sessions)
    assert len(capture) > 2 * R.PIECE
    reader = CaptureReader("t.pcap")
    expected = reader.feed(capture) + reader.close()
    for chunk in (len(capture), R.PIECE, R.PIECE + 1, 4093):
        pieces = [capture[i : i + chunk] for i in range(0, len(capture), chunk)]
        assert list(iter_capture("t.pcap", pieces)) == expected
    one = CaptureReader("t.pcap")
    assert list(one.records(b"")) == [] and one.container.bytes == 0


def test_records_first_hands_over_what_an_earlier_feed_left() -> None:
    reader = CaptureReader("t.pcap")
    capture = pcap(frames(segments(b"".join(PACKETS))))
    reader.feed(capture)
    reader._out.append(marker := Frame(None, b"", 0))  # type: ignore[arg-type]
    assert next(iter(reader.records(b""))) is marker


# --- the judge -----------------------------------------------------------------------------------


@st.composite
def envelopes(draw: st.DrawFn) -> Envelope:
    return Envelope(
        body=draw(st.sampled_from([b"", b"\x01", b"\x02\x01", b"\x03\x00", b"\x02"])),
        message_id=MessageId(uuid.UUID(int=draw(st.integers(0, 3))), draw(_near(1, 0xFFFFFFFF))),
        sender_identifier=draw(st.sampled_from([None, uuid.UUID(int=5)])),
        sender_identifier_type=draw(st.sampled_from([*SenderIdType, SenderIdType(9)])),
        authentication_level=draw(st.sampled_from(list(AuthLevel))),
        time_to_reach_queue=draw(st.sampled_from([0, 1, 300, 0xFFFFFFFF])),
        message_class=draw(st.sampled_from([MessageClass.Normal, MessageClass(0x123)])),
        hash_algorithm=draw(st.sampled_from([None, *HashAlgorithm])),
        destination_format_name=draw(st.sampled_from(["", "DIRECT=OS:x\\q"])),
        arrival_time=draw(st.floats(0, 1e9)),
    )


@SETTINGS
@given(envelopes(), st.sampled_from([STRICT, LENIENT]), st.sampled_from([None, "1.0", "6.0"]))
def test_remembered_envelope_findings_are_the_rules_own(
    envelope: Envelope, readings: object, version: str | None
) -> None:
    versions = J.MSMQ_VERSIONS if version is None else (version,)
    expected = J.judge_envelope(envelope, readings, versions)  # type: ignore[arg-type]
    assert J.envelope_findings(envelope, readings, version) == expected  # type: ignore[arg-type]
    assert J.envelope_findings(envelope, readings, version) == expected  # type: ignore[arg-type]


def test_the_remembered_findings_are_bounded() -> None:
    J._FINDINGS.clear()
    for n in range(J._REMEMBERED + 10):
        J.envelope_findings(Envelope(b"\x02\x01", time_to_reach_queue=n))
    assert 0 < len(J._FINDINGS) <= J._REMEMBERED


def test_a_given_destination_is_the_one_packet_to_envelope_would_make() -> None:
    packet, _ = decode_user_message(session_packets([envelope(1)])[2])
    made, _ = packet_to_envelope(packet)
    given_one, _ = packet_to_envelope(packet, destination=J.destination_of(packet))
    assert made == given_one
    other, _ = packet_to_envelope(packet, destination="DIRECT=OS:elsewhere\\q")
    assert other.destination_format_name == "DIRECT=OS:elsewhere\\q"


@SETTINGS
@given(st.binary(min_size=16, max_size=40), st.data())
def test_guid_at_is_uuid_bytes_le(buf: bytes, data: st.DataObject) -> None:
    offset = data.draw(st.integers(0, len(buf) - 16))
    value = guid_at(buf, offset)
    assert value == uuid.UUID(bytes_le=buf[offset : offset + 16])
    assert str(value) == str(uuid.UUID(bytes_le=buf[offset : offset + 16]))
    assert value.is_safe is uuid.SafeUUID.unknown


# --- the fast paths are taken where they can be --------------------------------------------------
# (a fast path that declined more than it must would read the same, only slower: these pin
# that each one takes the whole of its common case, bounds included)


def _parameters(recoverable: int, ack: int, window: int = 64, flags: int = 3) -> bytes:
    body = struct.pack("<HHIIHH", 0, flags, recoverable, ack, 0, window)
    return B.encode_base_header(B.BaseHeader(B.IN | 3), 32) + body


def _establish(system: int, flags: int = 2, padding: bytes = RESPONSE_PADDING) -> bytes:
    body = struct.pack("<HH16s16sIHH512s", 0, flags, bytes(16), bytes(16), 1, system, 0, padding)
    return B.encode_base_header(B.BaseHeader(B.IN | 3), 572) + body


def _session_ack(window: int, flags: int = 1) -> bytes:
    body = struct.pack("<HHHHIHHHH", 0, flags, 1, 2, 3, 4, 5, window, 6)
    return B.encode_base_header(B.BaseHeader(B.IN | B.SH | 3), 36) + body


TAKEN = [
    (_parameters(RECOVERABLE_ACK_TIMEOUT_RANGE[0], ACK_TIMEOUT_RANGE[0]), True),
    (_parameters(RECOVERABLE_ACK_TIMEOUT_RANGE[1], ACK_TIMEOUT_RANGE[1], 0), None),
    (_parameters(500, 20000, flags=3 | I.CS | 0x100), False),
    (_establish(I.OS_RE), True),
    (_establish(I.OS_RE | 0xFF00, flags=2 | I.CS), True),
    (_establish(I.OS_RE, padding=bytes(512)), False),
    (_establish(I.OS_RE, padding=bytes(512)), None),
    (_session_ack(1), None),
    (_session_ack(0xFFFF, flags=1 | 0x100), None),
    (_session_ack(64) + b"next packet", None),
]


def test_every_clean_fixed_layout_takes_the_fast_path() -> None:
    for wire, response in TAKEN:
        base, _ = B.decode_base_header(wire)
        clean = I._decode_clean(wire, base, response)
        assert clean is not None, wire[:24].hex()
        with general_paths():
            packet, end = decode_internal(wire, response=response)
        assert clean == packet and clean.findings == packet.findings == []
        assert decode_internal(wire, response=response) == (packet, end)


def test_a_fixed_layout_with_a_finding_or_another_shape_takes_the_general_path() -> None:
    declined = [
        (_parameters(RECOVERABLE_ACK_TIMEOUT_RANGE[0] - 1, 20000), None),
        (_parameters(500, ACK_TIMEOUT_RANGE[1] + 1), None),
        (_establish(I.OS_RE + 1), None),
        (_session_ack(0), None),
        (_session_ack(64, flags=1 | I.CS), None),
        (_parameters(500, 20000)[:31], None),
    ]
    for wire, response in declined:
        base, _ = B.decode_base_header(wire)
        assert I._decode_clean(wire, base, response) is None


def _dissected_without_the_general_path(data: bytes, length: int) -> object:
    def refuse(*args: object) -> object:
        raise AssertionError("the general path was taken")

    with mock.patch.object(D, "_ipv4", refuse), mock.patch.object(D, "_link", refuse):
        return D.dissect(D.LINK_ETHERNET, data, length)


def test_every_plain_ethernet_ipv4_tcp_frame_takes_the_fast_path() -> None:
    bare = ethernet(Seg(7, b"", sport=1801, dport=49152))  # header only: end == 34 + 20
    assert len(bare) == 54
    data = ethernet(Seg(7, b"0123456789"))
    cases = [
        (bare, 54),
        (data, len(data)),
        (data[:-4], len(data)),  # cut by a snaplen: 4 bytes missing
        (data[:54], len(data)),  # cut right after the TCP header
        (data[:60], 60),  # IP says more than the whole frame had: malformed
        (ethernet(Seg(7, b"x", sport=80, dport=443)), 55),  # another port
        (ethernet(Seg(7, b"x", sport=1801, dport=1801)), 55),
    ]
    for frame, length in cases:
        found = _dissected_without_the_general_path(frame, length)
        with general_paths():
            assert found == D.dissect(D.LINK_ETHERNET, frame, length)
    assert _dissected_without_the_general_path(data[:60], 60) == "malformed"


def test_the_framer_reads_a_valid_base_header_itself() -> None:
    """next_frame is asked only about bytes that are not a valid BaseHeader: a packet of the
    smallest and of the largest PacketSize, and a stream waiting for more, never reach it."""

    def refuse(*args: object) -> object:
        raise AssertionError("next_frame was asked")

    smallest = B.encode_base_header(B.BaseHeader(B.IN | 3), 16)
    largest = B.encode_base_header(B.BaseHeader(3), B.MAX_PACKET_SIZE) + bytes(100)
    for wire in (smallest, b"".join(PACKETS), largest):
        out: list[object] = []
        framer = StreamFramer("c.pcap", "a -> b", out)
        with mock.patch.object(S, "next_frame", refuse):
            framer.data(wire, 1, T0)
            framer.data(b"", 2, T0)
        if wire is largest:
            assert out == [] and framer._buf == wire
        else:
            assert framer.packets == (1 if wire is smallest else len(PACKETS))
            assert framer.packet_bytes == len(wire)
