"""Sharper tests of the capture reader (mqcn_model/capture/), written for the mutants of
``mqcn selftest mutation`` that the broader capture tests let survive (issue 19).

Each test states one behaviour of the reader in its own right; the mutant it was written for
is named in its docstring, so a reader can see why it exists.
"""

from __future__ import annotations

import struct
from dataclasses import replace

import pytest
from capture_helpers import (
    IP_A,
    IP_B,
    T0,
    Frame,
    Seg,
    _block,
    balanced,
    capture_end,
    ends,
    envelope,
    epb,
    ethernet,
    frames,
    idb,
    ipv6_of,
    messages,
    pcap,
    read,
    segments,
    session_packets,
    shb,
    spb,
    user_message,
)

from mqcn_model.capture import Message, Packet
from mqcn_model.capture.containers import PCAP_MICRO, ContainerReader
from mqcn_model.capture.dissect import (
    LINK_ETHERNET,
    LINK_IPV6,
    LINK_NULL,
    LINK_RAW,
    LINK_SLL,
    LINK_SLL2,
    dissect,
)
from mqcn_model.capture.inet import (
    MAC_A,
    MAC_B,
    RECORD_HEADER_SIZE,
    TCP_SYN,
    internet_checksum,
    pcap_record,
    record_ticks,
    retimed,
    tcp_frame,
)
from mqcn_model.capture.reader import CaptureReader
from mqcn_model.capture.records import (
    CAPTURE_CORRUPT,
    CAPTURE_FORMAT,
    CAPTURE_TRUNCATED,
    GAP,
    Lost,
    Quarantine,
    Where,
)
from mqcn_model.capture.tcp import DEFAULT_MAX_PENDING


def test_a_file_of_just_a_pcap_magic_number_is_a_truncated_pcap_not_an_unknown_format() -> None:
    """Four bytes are enough to know the format (``_detect``'s ``< 4``, not ``<= 4``)."""
    reader = ContainerReader("magic.pcap")
    assert reader.feed(struct.pack("<I", PCAP_MICRO)) == []
    assert reader.format == "pcap"
    (record,) = reader.close()
    assert record.reason == CAPTURE_TRUNCATED
    assert (record.where.offset, record.where.size) == (0, 4)


def test_three_bytes_are_too_short_for_any_format() -> None:
    reader = ContainerReader("short.pcap")
    reader.feed(b"\xd4\xc3\xb2")
    (record,) = reader.close()
    assert reader.format == "unknown"
    assert record.reason == CAPTURE_FORMAT


def test_where_to_json_names_every_field() -> None:
    """The provenance columns of a record, as the audit and the corpus write them."""
    where = Where("c.pcap", "10.0.0.1:49152 -> 10.0.0.2:1801", 7, 42, (3, 5), 1.5, 2.25)
    assert where.to_json() == {
        "capture": "c.pcap",
        "stream": "10.0.0.1:49152 -> 10.0.0.2:1801",
        "offset": 7,
        "size": 42,
        "frames": [3, 5],
        "time_first": 1.5,
        "time_last": 2.25,
    }


def read_all(data: bytes) -> tuple[ContainerReader, list[object]]:
    """A reader fed ``data`` in one chunk and closed; what it returned, in order."""
    reader = ContainerReader("c.pcapng")
    out: list[object] = [*reader.feed(data)]
    out += reader.close()
    return reader, out


def test_a_pcapng_block_shorter_than_its_own_framing_ends_the_reading() -> None:
    """A block of length 8 (less than the 12 of type, length and trailer) is corrupt, even
    when its "trailer" (here its own length field) agrees: ``_pcapng_blocks``' length check."""
    head = shb() + idb(1)
    bad = struct.pack("<II", 0x0BAD, 8)
    frame = epb(Frame(1.0, b"abc", 3))
    reader, out = read_all(head + bad + frame)
    assert reader.frames == 0
    (record,) = out
    assert record.reason == CAPTURE_CORRUPT
    assert (record.where.offset, record.where.size) == (len(head), len(bad) + len(frame))


def test_a_pcapng_block_length_that_is_not_a_multiple_of_4_ends_the_reading() -> None:
    head = shb() + idb(1)
    bad = struct.pack("<II", 0x0BAD, 14) + b"xy" + struct.pack("<I", 14)
    reader, out = read_all(head + bad + epb(Frame(1.0, b"abc", 3)))
    assert reader.frames == 0
    assert [record.reason for record in out] == [CAPTURE_CORRUPT]


def test_a_simple_packet_block_keeps_the_original_length_it_states() -> None:
    """The SPB's first field is the packet's original length (``_pcapng_block`` reads it at
    offset 0 of the body): a snapped frame keeps it beside its captured bytes."""
    _, out = read_all(shb() + idb(1) + spb(Frame(None, b"abcdefghijkl", 64)))
    (frame,) = out
    assert (frame.data, frame.length, frame.time) == (b"abcdefghijkl", 64, None)
    assert frame.cut


@pytest.mark.parametrize("tag", [0x8100, 0x88A8, 0x9100])
def test_an_ethernet_frame_cut_inside_its_vlan_tags_is_headers_cut(tag: int) -> None:
    """A frame that ends after a VLAN tag, before the next EtherType, is ``headers-cut``
    (``_link``'s bound check inside the tag loop), never an exception."""
    for tail in (b"", b"\x00", b"\x00\x01"):
        frame = bytes(12) + tag.to_bytes(2, "big") + tail
        assert dissect(LINK_ETHERNET, frame, len(frame)) == "headers-cut"


@pytest.mark.parametrize("tag", [0x8100, 0x88A8, 0x9100])
def test_every_vlan_tag_kind_is_skipped(tag: int) -> None:
    """802.1Q (0x8100), 802.1ad (0x88A8) and the older QinQ 0x9100 (``VLAN_TAGS``)."""
    tagged = bytes(12) + tag.to_bytes(2, "big") + b"\x00\x01\x08\x06" + bytes(28)
    assert dissect(LINK_ETHERNET, tagged, len(tagged)) == "non-ip"  # ARP behind one tag


@pytest.mark.parametrize("nanosecond", [False, True])
def test_record_times_in_micro_and_nanoseconds(nanosecond: bool) -> None:
    """``record_ticks`` and ``retimed`` count in the unit of the capture's magic number."""
    header = pcap_record(2.5, b"abc", nanosecond=nanosecond)[:RECORD_HEADER_SIZE]
    second = 1_000_000_000 if nanosecond else 1_000_000
    assert record_ticks(header, nanosecond=nanosecond) == (5 * second // 2, 3)
    moved = retimed(header, 7 * second + 1, nanosecond=nanosecond)
    assert record_ticks(moved, nanosecond=nanosecond) == (7 * second + 1, 3)
    assert struct.unpack("<II", moved[:8]) == (7, 1)


def test_a_written_tcp_frame_holds_exactly_the_fields_it_was_given() -> None:
    """Every field of the Ethernet, IPv4 and TCP headers ``tcp_frame`` writes, read back with
    ``struct``: no stray urgent pointer, window or flag, and both checksums valid."""
    src, dst = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    mss = b"\x02\x04\x05\xb4"
    frame = tcp_frame(
        MAC_A, MAC_B, src, dst, 49152, 1801, 7, 9, TCP_SYN, b"hi", ip_id=3, options=mss
    )
    dst_mac, src_mac, ethertype = struct.unpack_from("!6s6sH", frame, 0)
    assert (dst_mac, src_mac, ethertype) == (MAC_B, MAC_A, 0x0800)
    ip = struct.unpack_from("!BBHHHBBH4s4s", frame, 14)
    assert ip[:7] == (0x45, 0, 20 + 24 + 2, 3, 0x4000, 128, 6)
    assert ip[8:] == (src, dst)
    assert internet_checksum(frame[14:34]) == 0
    tcp = struct.unpack_from("!HHIIBBHHH", frame, 34)
    assert tcp[:7] == (49152, 1801, 7, 9, 6 << 4, TCP_SYN, 64240)
    assert tcp[8] == 0  # urgent pointer: no URG flag, no pointer
    assert frame[54:] == mss + b"hi"
    pseudo = src + dst + struct.pack("!BBH", 0, 6, 24 + 2)
    assert internet_checksum(pseudo + frame[34:]) == 0


def test_streams_silent_for_minutes_stay_open_under_the_default_idle_timeout() -> None:
    """Two connections whose segments come 5 minutes apart, interleaved: each is silent for
    150 s whenever the other sends, well within the default 600 s (``DEFAULT_IDLE_TIMEOUT``,
    docs/capture.md), so both end by FIN with all their messages."""
    stream = b"".join(session_packets([envelope(n) for n in range(1, 4)]))
    first = [replace(s, time=T0 + 300 * i) for i, s in enumerate(segments(stream, size=400))]
    second = [
        replace(s, time=T0 + 300 * i + 150)
        for i, s in enumerate(segments(stream, size=400, sport=50000))
    ]
    interleaved = sorted(first + second, key=lambda seg: seg.time)
    records = read(pcap(frames(interleaved)))
    assert [e.ended_by for e in ends(records)] == ["fin", "fin"]
    assert len(messages(records)) == 6


def feed_frame_by_frame(items: list[Frame], **options: object) -> list[list[object]]:
    """What a :class:`CaptureReader` returns for each frame fed on its own; the last entry is
    what ``close()`` returns."""
    data = pcap(items)
    reader = CaptureReader("one-by-one.pcap", **options)  # type: ignore[arg-type]
    returned: list[list[object]] = [[*reader.feed(data[:24])]]
    at = 24
    for frame in items:
        size = 16 + len(frame.data)
        returned.append([*reader.feed(data[at : at + size])])
        at += size
    returned.append([*reader.close()])
    return returned


def gap_at(returned: list[list[object]]) -> int:
    """The index of the feed (or close) that returned the one GAP record."""
    (index,) = [i for i, part in enumerate(returned) for r in part if isinstance(r, Lost)]
    assert [r.reason for part in returned for r in part if isinstance(r, Lost)] == [GAP]
    return index


def test_a_gap_is_declared_by_the_segment_that_fills_the_out_of_order_window() -> None:
    """Segments of 1000 bytes wait behind a missing one; the fifth makes 5000 > 4000 bytes
    waiting, and the gap comes out with that frame, not at the end of the capture."""
    segs = segments(bytes(20_000), size=1000, fin=False)
    missing = 3
    items = frames(segs[:missing] + segs[missing + 1 :])
    returned = feed_frame_by_frame(items, max_pending=4000)
    # feed 0 is the pcap header, feed i the i-th frame: the SYN and two in order, then 5 kept
    assert gap_at(returned) == missing + 5


def test_the_default_out_of_order_window_is_one_mebibyte() -> None:
    """docs/capture.md: out-of-order segments wait up to 1 MiB per direction."""
    size = 16_384
    segs = segments(bytes(DEFAULT_MAX_PENDING + 4 * size), size=size, fin=False)
    items = frames(segs[:2] + segs[3:])
    kept_to_overflow = DEFAULT_MAX_PENDING // size + 1
    assert DEFAULT_MAX_PENDING == 1 << 20
    assert gap_at(feed_frame_by_frame(items)) == 2 + kept_to_overflow  # SYN, one in order


def test_a_repeat_of_a_segment_still_waiting_is_counted_retransmitted() -> None:
    """A segment sent twice while it waits out of order is kept once; the repeat counts as
    retransmitted bytes (``Direction._keep``), and the messages are whole."""
    stream = b"".join(session_packets([envelope(n) for n in range(1, 4)]))
    segs = segments(stream, size=100)
    early = segs[3]
    records = read(pcap(frames([*segs[:2], early, early, *segs[2:]])))
    (end,) = ends(records)
    assert end.retransmitted_bytes == 2 * len(early.payload)  # the repeat, then the original
    assert len(messages(records)) == 3


def test_a_stream_that_is_not_msmq_is_named_by_its_first_eight_bytes() -> None:
    """A stream on port 1801 holding no MS-MQQB packet is quarantined with its first eight
    bytes shown, however the bytes arrived.  (Written for the mutant of ``StreamFramer.data``
    that tests ``< 9``: it is equivalent -- the slice still stops at eight -- and documented.)"""
    from mqcn_model.capture.records import Quarantine as QuarantineRecord
    from mqcn_model.capture.stream import StreamFramer

    banner = b"SSH-2.0-OpenSSH_9.6\r\n"
    for cut in (1, 3, 8, 9, len(banner)):
        out: list[object] = []
        framer = StreamFramer("c.pcap", "a -> b", out)  # type: ignore[arg-type]
        framer.data(banner[:cut], 1, 0.0)
        if cut < len(banner):
            framer.data(banner[cut:], 2, 0.0)
        framer.finish()
        details = [r.detail for r in out if isinstance(r, QuarantineRecord)]
        assert details == [
            f"no MS-MQQB packet in the {len(banner)} bytes of this stream on port 1801 "
            f"(it starts with {banner[:8].hex()})"
        ], cut


# --- issue 22: survivors of the sample of the files the fast reader touched ------------------

STREAM22 = b"".join(session_packets([envelope(n) for n in range(1, 4)]))


def test_the_capture_end_spans_the_file_from_its_first_byte() -> None:
    """The CaptureEnd's ``where`` is the whole file: offset 0 and every byte read.  (The
    mutant of ``CaptureReader.close`` that starts it at offset 1.)"""
    data = pcap(frames(segments(STREAM22)))
    end = capture_end(read(data))
    assert (end.where.offset, end.where.size, end.bytes) == (0, len(data), len(data))


def test_idle_streams_are_looked_for_every_quarter_of_the_timeout() -> None:
    """A stream is ended as idle at a look for idle streams, and the looks come at the first
    frame of each quarter of ``idle_timeout`` of capture time (at least every second), not at
    every frame: a stream silent for 61 s of a 60 s timeout at a frame that is not the first
    of its quarter, that speaks again before the next look, goes on.  (A mutant that looks at
    every frame ends it as idle.)"""
    a = [replace(s, time=T0 + 5 + i * 0.001) for i, s in enumerate(segments(STREAM22, size=300))]
    b = segments(STREAM22, sport=50000)
    b = [replace(s, time=T0 + (60.5 if i == 0 else 66 + i * 0.001)) for i, s in enumerate(b)]
    rest = [replace(s, time=T0 + 70 + i * 0.001) for i, s in enumerate(a[2:])]
    records = read(pcap(frames([*a[:2], *b, *rest])), idle_timeout=60)
    # looks at 5 (the first frame) and at 60.5 (the first of 60-75): the stream of a, silent
    # since 5, is 55.5 s quiet then and speaks again at 70, before the look at 75
    assert [e.ended_by for e in ends(records)] == ["fin", "fin"]
    assert len(messages(records)) == 6


def test_the_acceptors_establish_connection_is_judged_as_a_response() -> None:
    """A stream from port 1801 is the acceptor's: its EstablishConnection is a response, whose
    Padding must be 0x5A bytes (MQQB-2.2.3.1-3); the same packet from the initiator is not
    judged so.  (The mutant of ``CaptureReader._open`` that never sets ``response``.)"""
    request = session_packets([])[0][:-1] + b"\x00"  # the last Padding byte is not 0x5A
    back = frames(segments(request, sport=1801, dport=49152), src=IP_B, dst=IP_A)
    for items, expected in ((back, ["MQQB-2.2.3.1-3"]), (frames(segments(request)), [])):
        (packet,) = [r for r in read(pcap(items)) if isinstance(r, Packet)]
        assert packet.packet is not None
        assert [f.requirement for f in packet.packet.findings] == expected


def test_a_little_endian_section_after_a_big_endian_one_is_read_little_endian() -> None:
    """Each Section Header Block sets the byte order of its section, back to little-endian
    too.  (The mutant of ``_pcapng_blocks`` that forgets ``self._endian = "<"``.)"""
    items = frames(segments(STREAM22))
    half = len(items) // 2
    first = shb(">") + idb(1, ">") + b"".join(epb(f, ">") for f in items[:half])
    second = shb("<") + idb(1, "<") + b"".join(epb(f, "<") for f in items[half:])
    records = read(first + second)
    assert len(messages(records)) == 3 and capture_end(records).quarantined_bytes == 0


def test_a_packet_block_too_short_for_its_fields_ends_the_reading_where_it_starts() -> None:
    """An Enhanced Packet Block whose body cannot hold its fixed fields makes the rest of the
    file, from that block's first byte, one ``capture-corrupt`` record.  (The mutants of
    ``_pcapng_blocks`` that skip the ``_die`` or place it at ``_base - pos``.)"""
    head = shb() + idb(1)
    tail = _block("<", 6, bytes(8)) + epb(frames(segments(STREAM22))[0])
    for chunk in (len(head) + len(tail), 7):
        records = read(head + tail, chunk=chunk)
        (bad,) = [r for r in records if isinstance(r, Quarantine)]
        assert (bad.reason, bad.where.offset, bad.where.size) == (
            CAPTURE_CORRUPT,
            len(head),
            len(tail),
        )
        assert "Enhanced Packet Block is shorter" in bad.detail


def test_a_bare_fin_ahead_of_the_last_data_is_no_out_of_order_segment() -> None:
    """A FIN that carries no data, captured before the stream's last data segment, is held
    as the stream's end, not as an out-of-order segment.  (The mutant of
    ``Direction.segment`` that does not return at once for a segment without bytes.)"""
    segs = segments(STREAM22, size=300)
    records = read(pcap(frames([*segs[:-2], segs[-1], segs[-2]])))
    (end,) = ends(records)
    assert (end.ended_by, end.out_of_order_segments, end.bytes) == ("fin", 0, len(STREAM22))
    assert len(messages(records)) == 3


def test_a_direction_ended_twice_reports_one_stream_end() -> None:
    """Ending a direction is done once: a second ``finish`` adds nothing.  (The mutants of
    ``Direction.finish`` that drop its guard or never set ``finished``.)"""
    from mqcn_model.capture.records import StreamEnd
    from mqcn_model.capture.tcp import Direction

    out: list[object] = []
    direction = Direction("c.pcap", "a -> b", out, response=False)  # type: ignore[arg-type]
    direction.syn(999, 1, T0)
    direction.segment(1000, STREAM22, 0, 2, T0 + 1)
    direction.finish("fin")
    direction.finish("capture-end")
    (end,) = [r for r in out if isinstance(r, StreamEnd)]
    assert (end.ended_by, end.bytes, end.messages) == ("fin", len(STREAM22), 3)
    where = end.where
    assert (where.offset, where.size, where.frames) == (0, len(STREAM22), (1,))
    assert (where.time_first, where.time_last) == (T0, T0 + 1)


@pytest.mark.parametrize("next_header", [0, 43, 60])
def test_each_ipv6_extension_header_is_stepped_over(next_header: int) -> None:
    """Hop-by-hop (0), routing (43) and destination-options (60) headers are skipped to the
    TCP header.  (The mutant of ``IPV6_EXTENSIONS`` that loses 43.)"""
    tcp_segment = ethernet(Seg(1000, b"data"))
    ip = ipv6_of(tcp_segment, extension=True)
    ip = ip[:6] + bytes([next_header]) + ip[7:]  # the fixed header's Next Header
    found = dissect(LINK_IPV6, ip, len(ip))
    assert not isinstance(found, str) and found.payload == b"data"


@pytest.mark.parametrize(
    ("link_type", "frame"),
    [
        (LINK_SLL, bytes(14) + b"\x08\x06"),  # ARP, the 16-byte header and nothing more
        (LINK_SLL2, b"\x08\x06" + bytes(18)),  # ARP, the 20-byte header and nothing more
        (LINK_NULL, (0x1234).to_bytes(4, "little")),  # a family that is not IP, and no more
    ],
)
def test_a_whole_link_header_of_a_frame_that_is_not_ip_is_non_ip(
    link_type: int, frame: bytes
) -> None:
    """A frame that is exactly its link header says what it carries: not IP.  It is not cut
    short.  (The mutants of ``_link`` that ask for one byte more than the header.)"""
    assert dissect(link_type, frame, len(frame)) == "non-ip"


def _ipv6_header(next_header: int, payload: bytes = b"") -> bytes:
    fixed = struct.pack("!IHBB", 6 << 28, len(payload), next_header, 64)
    return fixed + bytes(16) + bytes(15) + b"\x01" + payload


@pytest.mark.parametrize(
    ("ip", "kind"),
    [
        (_ipv6_header(59), "ip-other"),  # the 40-byte header alone: No Next Header
        (_ipv6_header(59)[:39], "headers-cut"),
        (_ipv6_header(59)[:8], "headers-cut"),
    ],
)
def test_an_ipv6_header_is_whole_at_forty_bytes(ip: bytes, kind: str) -> None:
    """An IPv6 packet that is exactly its 40-byte header is read (it carries no next header);
    one byte short is cut.  (The mutants of ``_ipv6``'s length check.)"""
    assert dissect(LINK_IPV6, ip, len(ip)) == kind


def test_a_udp_header_cut_before_its_ports_is_headers_cut() -> None:
    """A UDP datagram whose frame ends before the two ports is ``headers-cut``.  (The mutant
    of ``_transport`` that returns None there.)"""
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 22, 0, 0, 64, 17, 0, bytes(4), bytes(4))
    assert dissect(LINK_RAW, ip + b"\x0d\xc7", 22) == "headers-cut"


def _framer(mid_session: bool = False) -> tuple[object, list[object]]:
    from mqcn_model.capture.stream import StreamFramer

    out: list[object] = []
    return StreamFramer("c.pcap", "a -> b", out, mid_session=mid_session), out  # type: ignore[arg-type]


def test_a_gap_of_no_bytes_is_nothing_and_the_framer_accounts_every_byte() -> None:
    """``gap(0)`` records nothing; ``consumed`` is packets + quarantined + lost.  (The mutants
    of ``StreamFramer.gap``'s ``<= 0`` and of ``consumed``.)"""
    framer, out = _framer()
    framer.gap(0, GAP, 1, T0)  # type: ignore[attr-defined]
    assert out == []
    framer.data(STREAM22, 2, T0)  # type: ignore[attr-defined]
    framer.gap(5, GAP, 3, T0)  # type: ignore[attr-defined]
    assert framer.consumed == len(STREAM22) + 5 == framer.packet_bytes + framer.lost_bytes  # type: ignore[attr-defined]


def test_a_user_message_to_another_queue_says_so() -> None:
    """A UserMessage that is no Message is kept decoded, and names its destination in the
    record's note.  (The mutants of ``_emit`` that drop ``packet`` or ``note=``.)"""
    other = envelope(1, destination_format_name="PRIVATE=00000000-0000-0000-0000-000000000009\\7")
    framer, out = _framer()
    framer.data(session_packets([])[0] + user_message(other), 1, T0)  # type: ignore[attr-defined]
    (packet,) = [r for r in out if isinstance(r, Packet) and r.kind == "UserMessage"]
    assert packet.note.endswith(": not a notification queue") and packet.note.startswith("to ")
    assert packet.packet is not None and packet.packet.kind == "UserMessage"  # decoded, kept


def test_a_skipped_run_names_the_frames_that_held_it_and_no_other() -> None:
    """A run of skipped bytes names its first and last frames: one frame once, two frames
    as a pair, never the frame that starts just after it.  (The mutants of ``_flush_run``'s
    ``==`` and of ``_skip_at``'s ``>=``.)"""
    packets = b"".join(session_packets([envelope(1)]))
    for pieces, frames_named in (((b"x" * 10,), (1,)), ((b"x" * 6, b"y" * 4), (1, 2))):
        framer, out = _framer(mid_session=True)
        for number, piece in enumerate(pieces, 1):
            framer.data(piece, number, T0 + number)  # type: ignore[attr-defined]
        framer.data(packets, len(pieces) + 1, T0 + 9)  # type: ignore[attr-defined]
        (run,) = [r for r in out if isinstance(r, Quarantine)]
        assert (run.where.offset, run.where.size, run.where.frames) == (0, 10, frames_named)
        assert (run.where.time_first, run.where.time_last) == (T0 + 1, T0 + len(pieces))


def test_a_packet_one_segment_carried_names_that_frame_and_its_time() -> None:
    """The provenance of a packet from one segment: that frame, its time first and last.
    (The mutants of ``_where``'s shortcut for one segment.)"""
    framer, out = _framer()
    framer.data(STREAM22, 4, T0 + 4)  # type: ignore[attr-defined]
    wheres = [r.where for r in out if isinstance(r, Packet)]
    assert [(w.frames, w.time_first, w.time_last) for w in wheres] == [((4,), T0 + 4, T0 + 4)] * 2
    assert [(w.capture, w.stream, w.offset) for w in wheres][1] == ("c.pcap", "a -> b", 572)
    assert [m.where.time_last for m in out if isinstance(m, Message)] == [T0 + 4] * 3


def test_held_segments_count_against_the_window_only_while_held() -> None:
    """A held segment replaced by a longer one at the same place counts once, and bytes that
    left the window free it: two holes, one after the other, each within ``max_pending``,
    lose nothing.  (The mutants of ``Direction._keep``'s and ``_drain``'s accounting.)"""
    syn, d1, d2, d3, d4, *rest = segments(STREAM22, size=300)
    part = replace(d2, payload=d2.payload[:100])
    order = [syn, part, d2, d1, d4, d3, *rest]
    records = read(pcap(frames(order)), max_pending=500)
    assert not [r for r in records if isinstance(r, Lost)]
    assert len(messages(records)) == 3 and balanced(records)


# --- issue 22, the second pass (the wire codec's sample of dissect.py) ---------------------------


@pytest.mark.parametrize("link_type", [12, 14, 101, 228])
def test_every_raw_ip_link_type_reads_the_ip_packet(link_type: int) -> None:
    """LINKTYPE 12, 14 and 101 are raw IP (as 228 is raw IPv4): the frame is the IP packet
    (mutant: 14 read as 15, an unknown link type)."""
    from capture_helpers import ip_of

    ip = ip_of(ethernet(Seg(7, b"data")))
    found = dissect(link_type, ip, len(ip))
    assert not isinstance(found, str) and (found.seq, found.payload) == (7, b"data")
    assert dissect(15, ip, len(ip)) == "link-unknown"


@pytest.mark.parametrize(("first", "total"), [(0x65, None), (0x45, 19), (0x44, None)])
def test_an_ipv4_header_is_cut_by_any_one_of_its_three_faults(
    first: int, total: int | None
) -> None:
    """A version other than 4, a header under 20 bytes, or a total length under the header:
    each alone makes the IPv4 header unreadable (mutant: all three needed at once)."""
    frame = bytearray(ethernet(Seg(7, b"data")))
    frame[14] = first
    if total is not None:
        frame[16:18] = total.to_bytes(2, "big")
    assert dissect(1, bytes(frame), len(frame)) == "headers-cut"


@pytest.mark.parametrize("left", [0, 1])
def test_an_ipv6_extension_header_cut_before_its_length_is_headers_cut(left: int) -> None:
    """The frame ends before an extension header's Next Header and Hdr Ext Len bytes
    (mutant: read them anyway)."""
    header = struct.pack("!IHBB16s16s", 6 << 28, 8, 0, 64, bytes(16), bytes(15) + b"\x01")
    data = header + bytes(left)
    assert dissect(229, data, len(data)) == "headers-cut"


@pytest.mark.parametrize(("ports", "kind"), [((5000, 53), "udp"), ((5000, 3527), "udp-msmq-ping")])
def test_a_udp_header_of_its_ports_alone_is_read(ports: tuple[int, int], kind: str) -> None:
    """Four bytes of UDP (the two ports) are enough to name the datagram (mutant: five)."""
    udp = struct.pack("!HH", *ports)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 24, 0, 0, 64, 17, 0, bytes(4), bytes(4)) + udp
    assert dissect(LINK_RAW, ip, len(ip)) == kind


# --- issue 22, third pass: the sample of capture/reader.py ------------------------------------


def test_a_stream_whose_first_frame_lost_all_its_payload_to_the_snaplen_is_followed() -> None:
    """A data segment of a stream not yet followed opens the stream when it carries bytes,
    even if the snaplen cut every one of them (``missing``): they are the stream's first
    bytes, lost.  (The mutant of ``CaptureReader.segment`` that looks only at the payload
    drops the segment and starts the stream after it.)"""
    data = STREAM22
    segs = segments(data, size=200, syn=False)
    segs[0] = replace(segs[0], cut=len(segs[0].payload))  # all of the first 200 bytes cut
    records = read(pcap(frames(segs)))
    (end,) = ends(records)
    assert end.bytes == len(data) and end.lost_bytes == 200
    lost = [r for r in records if isinstance(r, Lost)]
    assert [(r.reason, r.where.size) for r in lost] == [("snaplen", 200)]
    assert balanced(records)


def test_data_on_a_syn_follows_the_syns_sequence_number() -> None:
    """TCP Fast Open: data carried by the SYN begins one past its sequence number, where the
    next segment's data continues.  (The mutant that keeps the SYN's own number puts the
    data one byte early: the stream then has a byte too many.)"""
    data = STREAM22
    first = segments(data, size=300)
    syn, rest = first[0], first[1:]
    opened = replace(syn, payload=rest[0].payload)  # the SYN carries the first 300 bytes
    records = read(pcap(frames([opened, *rest[1:]])))
    (end,) = ends(records)
    assert end.bytes == len(data) and end.lost_bytes == 0
    assert len(messages(records)) == 3 and balanced(records)


def test_a_reset_ends_both_directions_of_its_connection_at_once() -> None:
    """An RST ends the connection: the other direction too, at that frame, though its RST
    was never seen.  (The mutant that ends only the RST's own direction leaves the other
    open until the capture's end.)"""
    request = segments(STREAM22, fin=False)
    answer = session_packets([])[0]
    back = segments(answer, sport=1801, dport=49152, fin=False)
    back = [replace(s, time=T0 + 0.5 + i * 0.001) for i, s in enumerate(back)]
    reset = replace(request[-1], seq=request[-1].seq + len(request[-1].payload), payload=b"")
    reset = replace(reset, flags=0x04 | 0x10, time=T0 + 1)  # RST|ACK from the initiator
    items = [*frames(request), *frames(back, src=IP_B, dst=IP_A), *frames([reset])]
    records = read(pcap(items))
    assert [e.ended_by for e in ends(records)] == ["rst", "rst"]
    assert isinstance(records[-1], type(capture_end(records)))


def test_the_reader_remembers_a_bounded_number_of_ended_streams() -> None:
    """Ended streams are remembered (to recognise their late segments) up to a bound, the
    oldest forgotten first.  (The mutant that never forgets grows without bound.)"""
    reader = CaptureReader("many.pcap")
    bound = 4096
    for n in range(bound + 3):
        for seg in segments(b"", sport=10000 + n):  # a SYN, then a FIN: ended at once
            frame = ethernet(seg)
            reader.frame_segment(dissect(LINK_ETHERNET, frame, len(frame)), n, seg.time)
    assert len(reader.closed) == bound
    assert next(iter(reader.closed))[1] == 10003  # the three oldest forgotten


# --- issue 22, third pass: the sample of capture/containers.py --------------------------------


def test_a_pcapng_block_just_under_the_largest_frame_is_read() -> None:
    """A block holding a frame of almost MAX_FRAME_BYTES is a block, not garbage: the block
    limit leaves room for the block's own fields above the frame limit.  (The mutant that
    puts the block limit below the frame limit refuses it.)"""
    frame = Frame(T0, b"\xff" * (16 * 2**20 - 1000), 16 * 2**20 - 1000)
    data = shb() + idb(LINK_ETHERNET) + epb(frame)
    records = read(data, chunk=len(data))
    assert not [r for r in records if isinstance(r, Quarantine)]
    assert capture_end(records).frames == 1


def test_a_simple_packet_block_of_no_captured_bytes_is_an_empty_frame() -> None:
    """A Simple Packet Block is four bytes of fixed field (the original length), then the
    packet: with no packet bytes it is still a frame, and the reading goes on.  (The mutant
    that asks for more than the fixed field calls it corrupt.)"""
    after = frames(segments(STREAM22))
    data = shb() + idb(LINK_ETHERNET) + spb(Frame(None, b"", 60)) + b"".join(map(epb, after))
    records = read(data)
    assert not [r for r in records if isinstance(r, Quarantine)]
    assert capture_end(records).frames == 1 + len(after)
    assert len(messages(records)) == 3


def test_a_packet_block_claiming_more_bytes_than_it_holds_ends_the_reading() -> None:
    """An Enhanced Packet Block whose captured length is more than its body holds is corrupt:
    the reading ends there with a line naming the frame.  (The mutant that skips the check
    reads a frame shorter than it says.)"""
    first, second = frames(segments(STREAM22))[:2]
    block = bytearray(epb(second))
    struct.pack_into("<I", block, 20, len(second.data) + 64)  # caplen: 64 bytes too many
    struct.pack_into("<I", block, 24, len(second.data) + 64)
    records = read(shb() + idb(LINK_ETHERNET) + epb(first) + bytes(block))
    (corrupt,) = [r for r in records if isinstance(r, Quarantine)]
    assert corrupt.reason == CAPTURE_CORRUPT
    assert "frame 2 claims" in corrupt.detail and "its block holds fewer" in corrupt.detail
    assert capture_end(records).frames == 1


# --- issue 22, third pass: the sample of capture/stream.py ------------------------------------


def test_bytes_that_start_no_packet_after_packets_are_not_called_a_stream_of_no_msmq() -> None:
    """A stream that carried packets and ends in bytes that start none: those bytes are
    quarantined as no packet (``no-base-header``), not as a stream in which no MS-MQQB packet
    was ever found.  (The mutant of ``StreamFramer.finish`` that names every run left at the
    end ``not-msmq``.)"""
    records = read(pcap(frames(segments(STREAM22 + b"\x07" * 40))))
    assert len(messages(records)) == 3
    (left,) = [r for r in records if isinstance(r, Quarantine)]
    assert (left.reason, left.where.size) == ("no-base-header", 40)
    assert balanced(records)


def test_a_false_packet_start_that_needed_more_bytes_joins_the_skipped_run() -> None:
    """While skipping bytes, a BaseHeader whose packet is not all there yet is waited for; if
    once complete it does not decode, it was no packet: its bytes join the run skipped before
    it, one quarantine up to the next packet that decodes.  (The mutant that ends the run at
    the candidate without waiting reads the candidate as a packet the codec refuses.)"""
    packets = session_packets([envelope(n) for n in range(1, 4)])
    fake = user_message(envelope(9))
    forged = fake[:16] + b"\xff" * (len(fake) - 16)  # a BaseHeader, then no UserHeader
    garbage = b"\x07" * 20
    stream = b"".join(packets[:2]) + garbage + forged + b"".join(packets[2:])
    cut = len(b"".join(packets[:2])) + len(garbage) + 30  # the forged packet's 31st byte
    first, rest = stream[:cut], stream[cut:]
    segs = segments(first, size=len(first), fin=False)
    tail = segments(rest, size=len(rest), syn=False, isn=segs[-1].seq + len(first))
    records = read(pcap(frames([*segs, *tail])))
    (skipped,) = [r for r in records if isinstance(r, Quarantine)]
    assert (skipped.reason, skipped.where.size) == ("no-base-header", 20 + len(forged))
    refused = [r for r in records if isinstance(r, Packet) and r.violation is not None]
    assert refused == [] and len(messages(records)) == 3
    assert balanced(records)
