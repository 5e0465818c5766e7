"""The split capture reader's pure parts, rule by rule (split.py): the layout a range task
needs, where ranges nominally start, and which bytes can start a record.

Each test states one rule with literal values at its boundary; the end-to-end split read
(the same records as one task) is tests/test_capture_split.py.
"""

from __future__ import annotations

import mmap
import struct
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from capture_helpers import (
    T0,
    Frame,
    Seg,
    ends,
    envelope,
    epb,
    frames,
    idb,
    messages,
    pcap,
    segments,
    session_packets,
    shb,
    vlan,
)

from mqcn_model.capture import Lost, Record, iter_capture
from mqcn_model.capture import split as model
from mqcn_model.capture.containers import (
    MAX_BLOCK_BYTES,
    MAX_FRAME_BYTES,
    PCAP_MICRO,
    PCAP_NANO,
    PCAPNG_BOM,
    PCAPNG_EPB,
    PCAPNG_IDB,
    PCAPNG_PB,
    PCAPNG_SHB,
    PCAPNG_SPB,
)
from mqcn_model.capture.dissect import (
    IPPROTO_UDP,
    LINK_ETHERNET,
    LINK_RAW,
    TCP_ACK,
    TCP_SYN,
)
from mqcn_model.capture.inet import MAC_A, MAC_B, tcp_frame
from mqcn_model.constants import AuthLevel
from mqcn_suite.pipeline.audit.kinds.capture_split import plan_split, split_records

FIRST = 1_704_067_200  # the first record's seconds


def _pcap_header(endian: str = "<", magic: int = PCAP_MICRO, snaplen: int = 65535) -> bytes:
    return struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, 1)


def _record(
    endian: str = "<",
    *,
    seconds: int = FIRST,
    fraction: int = 0,
    caplen: int = 4,
    length: int | None = None,
) -> bytes:
    header = struct.pack(
        endian + "IIII", seconds, fraction, caplen, caplen if length is None else length
    )
    return header + b"\xab" * caplen


def _block(kind: int, body: bytes, endian: str = "<", length: int | None = None) -> bytes:
    size = 12 + len(body) if length is None else length
    return struct.pack(endian + "II", kind, size) + body + struct.pack(endian + "I", size)


def _shb(endian: str = "<") -> bytes:
    return _block(PCAPNG_SHB, struct.pack(endian + "IHHq", PCAPNG_BOM, 1, 0, -1), endian)


def _idb(endian: str = "<") -> bytes:
    return _block(PCAPNG_IDB, struct.pack(endian + "HHI", 1, 0, 0), endian)


def _epb(interface: int = 0, caplen: int = 4, endian: str = "<") -> bytes:
    data = b"\xcd" * caplen + bytes(-caplen % 4)
    fields = struct.pack(endian + "IIIII", interface, 0, 0, caplen, caplen)
    return _block(PCAPNG_EPB, fields + data, endian)


def _pcap_shape(**changes: object) -> model.Layout:
    shape = model.layout(_pcap_header() + _record())
    assert isinstance(shape, model.Layout)
    return model.Layout(**{**{f: getattr(shape, f) for f in shape.__slots__}, **changes})


def _pcapng_shape(interfaces: int = 1) -> model.Layout:
    return model.Layout("pcapng", _shb() + _idb(), "<", interfaces=interfaces)


# --- layout ----------------------------------------------------------------------------------


@pytest.mark.parametrize("endian", ["<", ">"])
@pytest.mark.parametrize(("magic", "divisor"), [(PCAP_MICRO, 1_000_000), (PCAP_NANO, 10**9)])
def test_a_pcap_layout_reads_its_header_in_the_files_byte_order(
    endian: str, magic: int, divisor: int
) -> None:
    """The magic number gives the byte order and the tick; snaplen (offset 16) and the first
    record's seconds are unsigned 32-bit fields read in that order."""
    head = _pcap_header(endian, magic, snaplen=0x80000001) + _record(endian, seconds=0x80000002)
    shape = model.layout(head)
    assert shape == model.Layout(
        "pcap", head[:24], endian, divisor, snaplen=0x80000001, first_seconds=0x80000002
    )


def test_a_pcap_layout_needs_the_header_and_reads_a_first_time_only_when_it_is_there() -> None:
    header = _pcap_header()
    assert model.layout(header[:23]) == "the file ends inside its pcap header"
    assert model.layout(header).first_seconds is None  # type: ignore[union-attr]
    assert model.layout(header + bytes(3)).first_seconds is None  # type: ignore[union-attr]
    assert model.layout(header + struct.pack("<I", 7)).first_seconds == 7  # type: ignore[union-attr]


def test_what_is_not_a_capture_cannot_be_split() -> None:
    assert model.layout(b"\xd4\xc3") == "the file is too short to be split"
    assert model.layout(b"GET / HTTP/1.1") == "the file is neither pcap nor pcapng"


@pytest.mark.parametrize("endian", ["<", ">"])
def test_a_pcapng_layout_is_the_blocks_before_the_first_packet_block(endian: str) -> None:
    """The preamble is every block before the first packet block (its interfaces counted),
    in the byte order the Section Header Block's magic gives; 8 bytes of the packet block
    (type and length) are enough to see it."""
    skip = _block(0x0BAD, b"", endian)  # a 12-byte block: the least a block is
    preamble = _shb(endian) + skip + _idb(endian) + _idb(endian)
    shape = model.layout(preamble + _epb(endian=endian)[:8])
    assert shape == model.Layout("pcapng", preamble, endian, interfaces=2)


@pytest.mark.parametrize(
    ("head", "said"),
    [
        (_shb()[:11], "the file ends inside its first pcapng block"),
        (_shb()[:12], "no pcapng packet block follows the file's first blocks"),
        (
            _shb()[:8] + b"\x00\x00\x00\x00",
            "the pcapng Section Header Block has no byte-order magic",
        ),
        (_shb() + _shb() + _epb(), "the pcapng file has a second section before its first packet"),
        (_shb() + _idb()[:-1], "no pcapng packet block follows the file's first blocks"),
        (_shb() + _epb()[:7], "no pcapng packet block follows the file's first blocks"),
    ],
)
def test_a_pcapng_file_that_cannot_be_laid_out_says_why(head: bytes, said: str) -> None:
    assert model.layout(head) == said


@pytest.mark.parametrize("length", [8, 21])
def test_a_block_length_below_12_or_not_a_multiple_of_4_ends_the_layout(length: int) -> None:
    """The walk stops at a block whose length no block can have, even when its bytes are
    there: what follows is not read as blocks."""
    odd = struct.pack("<II", PCAPNG_IDB, length) + bytes(24)
    assert model.layout(_shb() + odd + _epb()) == (
        "no pcapng packet block follows the file's first blocks"
    )


# --- nominal starts --------------------------------------------------------------------------


def test_ranges_start_every_threshold_bytes_and_never_at_or_before_the_first_record() -> None:
    assert model.nominal_starts(1000, 24, 0) == [24]  # no threshold: one range
    assert model.nominal_starts(1000, 24, -5) == [24]
    assert model.nominal_starts(1000, 24, 1000) == [24]  # no larger than the threshold
    assert model.nominal_starts(100, 24, 10) == [24, *range(25, 100, 10)]
    assert model.nominal_starts(30, 24, 1) == [24, *range(25, 30)]
    assert model.nominal_starts(1000, 24, 300) == [24, 300, 600, 900]


# --- candidate records -----------------------------------------------------------------------


def test_a_pcap_record_is_plausible_within_snaplen_length_and_the_tick() -> None:
    shape = _pcap_shape(snaplen=64)
    check = model._pcap_candidate
    assert check(shape, _record(caplen=64), 0) == 16 + 64  # caplen at snaplen
    assert check(shape, _record(caplen=65, length=100), 0) is None  # past snaplen
    assert check(shape, _record(caplen=50, length=40), 0) is None  # more than the frame
    assert check(shape, _record(caplen=1), 0) == 17  # a 1-byte frame
    assert check(shape, _record(caplen=0, length=0), 0) is None
    assert check(shape, _record(fraction=999_999), 0) == 20
    assert check(shape, _record(fraction=1_000_000), 0) is None  # a whole second
    assert check(shape, _record(seconds=FIRST + model.PLAUSIBLE_SECONDS + 1), 0) is None
    unbounded = _pcap_shape(snaplen=0)  # no snaplen stated: the frame size limit
    big = struct.pack("<IIII", FIRST, 0, 4, MAX_FRAME_BYTES) + bytes(4)
    assert check(unbounded, big, 0) == 20
    bigger = struct.pack("<IIII", FIRST, 0, 4, MAX_FRAME_BYTES + 1) + bytes(4)
    assert check(unbounded, bigger, 0) is None
    assert check(unbounded, _record(caplen=100_000), 0) == 16 + 100_000


def test_a_pcapng_packet_block_is_plausible_when_its_fields_agree() -> None:
    shape = _pcapng_shape(interfaces=1)
    check = model._pcapng_candidate
    assert check(shape, _epb(caplen=0), 0) == 32  # the least an EPB is
    assert check(shape, _epb(interface=1), 0) is None  # interface 1 of 1: none
    assert check(shape, _epb(interface=0x80000000), 0) is None
    too_long = _block(PCAPNG_EPB, struct.pack("<IIIII", 0, 0, 0, 8, 8) + bytes(4))
    assert check(shape, too_long, 0) is None  # caplen 8 in 4 bytes of data
    wide = _block(PCAPNG_EPB, struct.pack("<IIIII", 0, 0, 0, 0x80000000, 8) + bytes(4))
    assert check(shape, wide, 0) is None
    packet = _block(PCAPNG_PB, struct.pack("<HHIIII", 0, 0, 0, 0, 0, 0))
    assert check(shape, packet, 0) == 32  # the least a PB is
    assert check(shape, _block(PCAPNG_PB, struct.pack("<HHIIII", 0x8000, 0, 0, 0, 0, 0)), 0) is None
    simple = _block(PCAPNG_SPB, struct.pack("<I", 0))
    assert check(shape, simple, 0) == 16
    assert check(_pcapng_shape(interfaces=0), simple, 0) is None  # no interface: no SPB
    assert check(shape, _block(0x0BAD, bytes(20)), 0) is None  # not a packet block
    assert check(shape, _epb()[:-4] + struct.pack("<I", 40), 0) is None  # its trailer disagrees
    assert check(shape, _epb()[:11], 0) is None
    assert check(shape, struct.pack("<II", PCAPNG_EPB, MAX_BLOCK_BYTES + 4), 0) is None


# --- boundaries -----------------------------------------------------------------------------


def test_a_pcapng_boundary_is_looked_for_at_4_aligned_offsets_of_the_file() -> None:
    shape = _pcapng_shape()
    block = _epb()
    assert model.find_boundary(shape, b"\x00\x00" + block, 0, 2 + len(block)) is None
    assert model.find_boundary(shape, bytes(4) + block, 0, 4 + len(block)) == 4
    # at file offset 102 the next aligned offset is 104: window index 2
    assert model.find_boundary(shape, b"\x00\x00" + block, 102, 104 + len(block)) == 104


def test_a_boundary_needs_a_chain_of_records_unless_the_file_ends_first() -> None:
    """A candidate is a boundary when the records after it are plausible too (CHAIN in all),
    or when they reach the file's end exactly; a candidate whose next record is not is
    passed over."""
    shape = _pcap_shape()
    record = _record()
    assert model.find_boundary(shape, record, 100, 100 + len(record)) == 100  # the last one
    false_start = _record(caplen=4) + b"\xff" * 16  # then no plausible record
    chain = record * model.CHAIN
    found = model.find_boundary(shape, false_start + chain, 0, 10_000)
    assert found == len(false_start)
    # a chain cut by the window, not by the file's end, is no boundary
    shape_ng = _pcapng_shape()
    assert model.find_boundary(shape_ng, _epb() + bytes(4), 0, 10_000) is None


# --- the scan's cheap look at a frame ----------------------------------------------------------

A_IP, B_IP = bytes([10, 1, 1, 1]), bytes([10, 2, 2, 2])


def _frame(flags: int = TCP_ACK, sport: int = 49152, dport: int = 1801) -> bytes:
    return tcp_frame(MAC_A, MAC_B, A_IP, B_IP, sport, dport, 1, 0, flags, b"payload")


def _edited(frame: bytes, at: int, value: int) -> bytes:
    return frame[:at] + bytes([value]) + frame[at + 1 :]


def test_the_scan_names_a_1801_connection_lower_endpoint_first_with_its_syn() -> None:
    frame = _frame(TCP_SYN, sport=0x1234)
    assert model.frame_connection(LINK_ETHERNET, frame, len(frame)) == (
        (A_IP, 0x1234, B_IP, 1801),
        True,
    )
    answer = tcp_frame(MAC_B, MAC_A, B_IP, A_IP, 1801, 0x1234, 1, 0, TCP_ACK, b"")
    assert model.frame_connection(LINK_ETHERNET, answer, len(answer)) == (
        (A_IP, 0x1234, B_IP, 1801),
        False,
    )


def test_the_scan_reads_a_frame_cut_after_its_ports_and_its_flags_only_when_there() -> None:
    """A frame the snaplen cut: the ports are enough to name the connection (34 + 4 bytes);
    the SYN flag is read only when its byte (TCP offset 13) was captured."""
    frame = _frame(TCP_SYN)
    conn = (A_IP, 49152, B_IP, 1801)
    look = model.frame_connection
    assert look(LINK_ETHERNET, frame[:38], len(frame)) == (conn, False)
    assert look(LINK_ETHERNET, frame[:36], len(frame)) is None  # cut inside the ports
    assert look(LINK_ETHERNET, frame[:47], len(frame)) == (conn, False)  # flags not captured
    assert look(LINK_ETHERNET, frame[:48], len(frame)) == (conn, True)


@pytest.mark.parametrize(
    ("at", "value", "what"),
    [
        (23, IPPROTO_UDP, "a UDP datagram"),
        (20, 0x20, "a first fragment (MF)"),
        (21, 0x01, "a later fragment (offset 8)"),
        (20, 0x01, "a later fragment (offset 2048)"),
    ],
)
def test_the_scan_names_no_connection_for_what_is_not_a_whole_tcp_segment(
    at: int, value: int, what: str
) -> None:
    frame = _edited(_frame(), at, value)
    assert model.frame_connection(LINK_ETHERNET, frame, len(frame)) is None, what


def test_a_frame_of_another_link_type_is_looked_at_through_dissect() -> None:
    """A raw IPv4 frame whose source address starts 8.0 holds 0x0800 where an Ethernet
    frame holds its type: it is still read as IPv4 (dissect), SYN flag included."""
    ip = tcp_frame(MAC_A, MAC_B, bytes([8, 0, 0, 1]), B_IP, 49152, 1801, 1, 0, TCP_SYN, b"x")[14:]
    assert ip[12:14] == b"\x08\x00"
    assert model.frame_connection(LINK_RAW, ip, len(ip)) == (
        (bytes([8, 0, 0, 1]), 49152, B_IP, 1801),
        True,
    )
    tagged = _frame(TCP_SYN)[:12] + b"\x81\x00\x00\x64" + _frame(TCP_SYN)[12:]
    assert model.frame_connection(LINK_ETHERNET, tagged, len(tagged)) == (
        (A_IP, 49152, B_IP, 1801),
        True,
    )


def test_the_scan_names_no_connection_for_a_frame_cut_inside_the_ports_of_either_side() -> None:
    """A frame cut before its 4 port bytes names nothing, even when the bytes it kept are
    port 1801 (the acceptor's answer, source port first)."""
    answer = tcp_frame(MAC_B, MAC_A, B_IP, A_IP, 1801, 0x1234, 1, 0, TCP_ACK, b"")
    for cut in (35, 36, 37):
        assert model.frame_connection(LINK_ETHERNET, answer[:cut], len(answer)) is None
    assert model.frame_connection(LINK_ETHERNET, answer[:38], len(answer)) == (
        (A_IP, 0x1234, B_IP, 1801),
        False,
    )


def test_the_scan_reads_an_ethernet_ipv4_frame_at_fixed_offsets_from_its_34th_byte() -> None:
    """The fast look takes an Ethernet IPv4 frame once the 34 bytes of the Ethernet header
    and the least IPv4 header are there, and reads the ports where the header length field
    puts them: a header length of 4 words puts them in the last 4 of those 34 bytes, and
    they are read there (dissect refuses such a header; naming a connection too often only
    makes a range read further)."""
    src, dst = bytes([10, 1, 1, 1]), bytes([7, 9, 0, 80])  # "ports" 1801 and 80
    ip = bytes([0x44, 0, 0, 20, 0, 0, 0, 0, 64, 6, 0, 0]) + src + dst
    frame = bytes(12) + b"\x08\x00" + ip
    assert len(frame) == 34
    assert model.frame_connection(LINK_ETHERNET, frame, 34) == ((dst, 80, src, 1801), False)


# --- layout: block lengths ---------------------------------------------------------------------


def test_a_block_length_not_a_multiple_of_4_ends_the_layout_even_where_a_block_follows() -> None:
    """A length of 21 is refused for not being a multiple of 4, not for overrunning the
    head: the walk does not go on to a packet block 21 bytes later."""
    odd = struct.pack("<II", PCAPNG_IDB, 21) + bytes(13)
    assert model.layout(_shb() + odd + _epb()) == (
        "no pcapng packet block follows the file's first blocks"
    )


def test_pcapng_block_lengths_are_unsigned_in_the_layout(tmp_path: Path) -> None:
    """A block length is an unsigned 32-bit field: a block of 2 GiB that the head holds is
    walked over like any other (here to a second Section Header Block)."""
    skip = 1 << 31
    head = _shb() + struct.pack("<II", 0x0BAD, skip)
    path = tmp_path / "big.pcapng"
    with path.open("wb") as out:  # sparse: 2 GiB of nothing on disk
        out.write(head)
        out.seek(len(_shb()) + skip)
        out.write(_shb() + _epb())
    with path.open("rb") as stream, mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as m:
        found = model.layout(m)  # type: ignore[arg-type]
    assert found == "the pcapng file has a second section before its first packet"


# --- the scan of a range -----------------------------------------------------------------------


def _offsets(capture: bytes) -> list[int]:
    """The file offsets of a little-endian pcap file's records."""
    out, at = [], 24
    while at + 16 <= len(capture):
        out.append(at)
        at += 16 + struct.unpack_from("<I", capture, at + 8)[0]
    return out


def _scan(capture: bytes, start: int, end: int | None, chunk: int = 1 << 20, **options: object):
    shape = model.layout(capture)
    assert isinstance(shape, model.Layout)
    reader = model.RangeReader("c", shape, 1, start, end, **options)  # type: ignore[arg-type]
    for at in range(start, len(capture), chunk):
        reader.feed(capture[at : at + chunk])
    return reader


@pytest.mark.parametrize(
    ("idle", "times", "intervals"),
    [
        (600.0, [149.5, 150.0, 299.0, 300.25], [0, 1, None, 2]),  # every 150 s
        (2.0, [0.5, 1.0, 1.5, 2.0], [0, 1, None, 2]),  # every second, not every 0.5 s
        (8.0, [1.5, 2.0, 3.5, 4.0], [0, 1, None, 2]),  # every 2 s
    ],
)
def test_a_scan_notes_the_first_frame_of_each_new_sweep_interval(
    idle: float, times: list[float], intervals: list[int | None]
) -> None:
    """The one-task read looks for idle streams at the first frame of each new interval of
    max(1 s, idle timeout / 4), intervals counted from the epoch: the scan notes those
    frames (number in the range, time, interval), a frame of an interval already seen
    being no look."""
    every = max(1.0, idle / 4)
    items = [replace(f, time=T0 + t) for f, t in zip(_four_frames(), times, strict=True)]
    summary = _scan(pcap(items), 24, None, idle_timeout=idle).close()
    first = int(T0 // every)
    assert summary.sweeps == [
        (n, T0 + t, first + i)
        for n, t, i in zip(range(1, 5), times, intervals, strict=True)
        if i is not None
    ]


def _four_frames() -> list[Frame]:
    return frames(segments(b"x" * 150, size=50, fin=False))  # SYN and three data segments


def test_the_last_range_ends_at_the_files_size_however_its_bytes_come() -> None:
    """The last range's end is the file's size (the offset after its last byte), counted
    from the range's start over every chunk fed."""
    capture = pcap(frames(segments(b"x" * 500, size=100)))
    for chunk in (7, 100, len(capture)):
        summary = _scan(capture, 24, None, chunk).close()
        assert (summary.end, summary.frames, summary.problem) == (len(capture), 7, None)
    start = _offsets(capture)[2]
    summary = _scan(capture, start, None, 50).close()
    assert (summary.start, summary.end, summary.frames) == (start, len(capture), 5)


def test_a_range_ends_at_the_first_record_at_or_after_its_end_which_it_leaves() -> None:
    """A record starting exactly at the range's end is the next range's: the range stops
    there (done, its end that record's offset) without counting it; done is False until
    then."""
    capture = pcap(frames(segments(b"x" * 500, size=100)))
    at = _offsets(capture)
    reader = _scan(capture[: at[3]], 24, at[3])
    assert reader.done is False and reader.summary.frames == 3
    reader.feed(capture[at[3] :])
    assert reader.done is True
    summary = reader.close()
    assert (summary.end, summary.frames, summary.problem) == (at[3], 3, None)


def test_a_range_that_stops_before_its_end_says_where_and_why() -> None:
    """A range whose records stop before its end (the file ends, or a damaged record ends
    the reading) is refused; the damage is named in brackets, the end of the file not."""
    capture = pcap(frames(segments(b"x" * 300, size=100)))
    damaged = bytearray(capture)
    struct.pack_into("<I", damaged, _offsets(capture)[2] + 8, 1 << 30)
    end = len(capture)
    cases = [
        (capture, f"range 1 stopped at offset {end} before its end 10000"),
        (capture[:-3], f"range 1 stopped at offset {end - 3} before its end 10000"),
        (
            bytes(damaged),
            f"range 1 stopped at offset {end} before its end 10000 (frame 3 claims "
            "1073741824 captured bytes, more than any frame (16777216): the rest of the file "
            "is not read)",
        ),
    ]
    for data, said in cases:
        summary = _scan(data, 24, 10_000).close()
        assert (summary.problem, summary.end) == (said, len(data))


def test_a_scan_names_the_connection_of_a_cut_frame_that_only_dissect_reads() -> None:
    """A VLAN-tagged frame cut by the snaplen goes through dissect with its whole length:
    the connection is named (a snaplen cut, not a malformed frame)."""
    segs = frames(segments(b"x" * 300, size=100))
    items = [Frame(f.time, vlan(f.data)[:60], f.length + 4) for f in segs]
    reader = _scan(pcap(items), 24, None)
    ((conn, trace),) = reader.traces().items()
    assert conn == (bytes([10, 1, 1, 1]), 49152, bytes([10, 2, 2, 2]), 1801)
    assert (trace.first_frame, trace.first_syn, trace.last_frame) == (1, True, 5)


# --- the scan's walk of pcapng blocks ----------------------------------------------------------


def _late(where: int, what: str = "interface description") -> str:
    return (
        f"a pcapng {what} block at offset {where}, after the first packet "
        "(the ranges would not know it)"
    )


def _pcapng_scan(capture: bytes, end: int | None = None, chunk: int = 1 << 20):
    shape = model.layout(capture)
    assert isinstance(shape, model.Layout)
    reader = model.RangeReader("c", shape, 0, shape.data_start, end)
    for at in range(shape.data_start, len(capture), chunk):
        if not reader.done:
            reader.feed(capture[at : at + chunk])
    return shape, reader


@pytest.mark.parametrize("chunk", [1, 3, 5, 8, 13, 1 << 20])
def test_a_new_interface_or_section_after_the_first_packet_refuses_the_split(chunk: int) -> None:
    """The scan follows the pcapng block headers, however the chunks cut them: an Interface
    Description Block or a Section Header Block after the first packet is named with its
    offset (the ranges would not know it)."""
    packets = _epb() + _epb(caplen=8)
    head = _shb() + _idb() + packets
    for late, what in ((_idb(), "interface description"), (_shb(), "section")):
        _, reader = _pcapng_scan(head + late + packets, chunk=chunk)
        summary = reader.close()
        assert (summary.problem, summary.frames) == (_late(len(head), what), 4)


def test_the_walk_steps_over_a_block_of_the_least_length_to_a_new_interface() -> None:
    """A 12-byte block (no body) is a block like any other: the walk goes on past it."""
    head = _shb() + _idb() + _epb() + _block(0x0BAD, b"")
    _, reader = _pcapng_scan(head + _idb() + _epb())
    assert reader.close().problem == _late(len(head))


def test_8_bytes_of_a_late_interface_block_are_enough_to_refuse_the_split() -> None:
    """The walk knows a block from its type and length: a file that ends 8 bytes into an
    Interface Description Block after the first packet is refused for it."""
    head = _shb() + _idb() + _epb()
    for chunk in (8, 1 << 20):
        _, reader = _pcapng_scan(head + _idb()[:8], chunk=chunk)
        summary = reader.close()
        assert summary.problem == _late(len(head))
        assert [q.reason for q in summary.quarantines] == ["capture-truncated"]


def test_a_range_answers_for_the_blocks_before_its_end_only() -> None:
    """An interface described after the range's last record is the next range's to report,
    even when the range was fed its bytes."""
    head = _shb() + _idb() + _epb()
    end = len(head)
    capture = head + _epb() + _idb() + _epb()
    _, reader = _pcapng_scan(capture, end=end)
    summary = reader.close()
    assert reader.done and (summary.end, summary.problem) == (end, None)
    shape = model.layout(capture)
    assert isinstance(shape, model.Layout)
    following = model.RangeReader("c", shape, 1, end, None)
    following.feed(capture[end:])
    assert following.close().problem == _late(end + len(_epb()))


def test_a_damaged_block_length_in_the_last_range_is_its_problem() -> None:
    """A block length of 0 (or one not a multiple of 4) ends the reading: the last range
    reports the reader's words, with the range's number, and the rest is quarantined."""
    head = _shb() + _idb() + _epb()
    for length in (0, 8, 14):
        damaged = head + struct.pack("<II", PCAPNG_EPB, length) + bytes(16)
        _, reader = _pcapng_scan(damaged, chunk=5)
        summary = reader.close()
        assert summary.problem == (
            f"range 0: a block of type 0x6 has length {length}, not a multiple of 4 between 12 "
            f"and {MAX_BLOCK_BYTES}: the rest of the file is not read"
        )
        ((quarantine,),) = [summary.quarantines]
        assert (quarantine.where.offset, quarantine.where.size) == (len(head), 24)
        assert summary.end == len(damaged)


# --- the driver's check and its sums -----------------------------------------------------------


def test_a_range_that_read_past_the_next_boundary_says_a_guess_was_fooled() -> None:
    summaries = [model.RangeSummary(0, 24, 100), model.RangeSummary(1, 120, 200)]
    assert model.check_ranges(summaries) == (
        "range 0 read records up to offset 100, but the next record boundary was guessed at "
        "120 (a record header inside a packet's bytes?)"
    )
    summaries[1] = model.RangeSummary(1, 100, 200)
    assert model.check_ranges(summaries) is None


def test_the_files_sweeps_are_each_ranges_looks_above_every_earlier_one_numbered_in_the_file() -> (
    None
):
    """A range's look whose interval is no higher than one before it (in this range or an
    earlier one) is no look of the one-task read; frames are numbered in the file."""
    ranges = [model.RangeSummary(i, 0, 0, frames=10) for i in range(3)]
    ranges[0].sweeps = [(2, 20.0, 4), (7, 25.0, 5)]
    ranges[1].sweeps = [(1, 26.0, 5), (3, 30.0, 6)]  # interval 5 was range 0's
    ranges[2].sweeps = [(4, 40.0, 8)]
    assert model.sweeps(ranges) == [(2, 20.0), (7, 25.0), (13, 30.0), (24, 40.0)]


def test_only_connections_seen_in_several_ranges_are_shared() -> None:
    one, two = (b"a", 1, b"b", 1801), (b"c", 2, b"d", 1801)
    traces = [model.Trace(i, 1, None, False, 1, 0, None) for i in range(2)]
    assert list(model.shared([{one: traces[0], two: traces[0]}, {one: traces[1]}])) == [
        (one, traces)
    ]


def test_the_capture_end_sums_the_counts_of_the_ranges_and_of_the_reads() -> None:
    shape = _pcap_shape()
    summaries = [model.RangeSummary(i, 0, 0, frames=3) for i in range(2)]
    summaries[0].counts.update({"non-ip": 2})
    summaries[1].counts.update({"non-ip": 1, "late": 4})
    end = model.capture_end("c", shape, 500, summaries, Counter({"tcp-1801": 3, "late": 1}))
    assert (end.frames, end.bytes) == (6, 500)
    assert end.counts == {"late": 5, "non-ip": 3, "tcp-1801": 3}


# --- the split read, end to end ----------------------------------------------------------------


def _two_ranges(tmp_path: Path, first: list[Seg], second: list[Seg]) -> tuple[str, int]:
    """A pcap of two connections' frames, the second's first record at the nominal start of
    the second (and last) range: the path and the threshold."""
    one, two = frames(first), frames(second)
    capture = pcap(one + two)
    at = _offsets(capture)[len(one)]
    assert 2 * at >= len(capture)
    path = tmp_path / "c.pcap"
    path.write_bytes(capture)
    plan = plan_split(str(path), at)
    assert not isinstance(plan, str) and (plan.starts, plan.ends) == ((24, at), (at, None))
    return str(path), at


def _session(sport: int, n: int, **options: object) -> list[Seg]:
    data = b"".join(session_packets(envelope(10 * sport + i) for i in range(n)))
    return segments(data, size=300, sport=sport, **options)  # type: ignore[arg-type]


def _whole(path: str, **options: object) -> list[str]:
    return sorted(repr(r) for r in iter_capture(path, [Path(path).read_bytes()], **options))  # type: ignore[arg-type]


def _split_read(path: str, threshold: int, **options: object) -> list[Record]:
    found = split_records(path, threshold, chunk=1000, **options)  # type: ignore[arg-type]
    assert not isinstance(found, str), found
    return found


def test_connections_of_one_range_each_are_read_by_their_range(tmp_path: Path) -> None:
    """Each range reads the connections it alone holds, and counts its own frames: a record
    at exactly the split point is the second range's."""
    path, at = _two_ranges(tmp_path, _session(40000, 4), _session(40001, 2))
    found = _split_read(path, at)
    assert sorted(repr(r) for r in found) == _whole(path)
    assert len(messages(found)) == 6
    shape = model.layout(Path(path).read_bytes())
    assert isinstance(shape, model.Layout)
    reader = model.OwnedRangeReader(
        path, shape, 0, 24, at, model.Ownership(), frame_offset=0, swept=-1.0
    )
    capture = Path(path).read_bytes()
    reader.feed(capture[24:at])
    assert reader.done is False
    reader.feed(capture[at:])
    assert reader.done is True
    assert reader.counts == Counter({"tcp-1801": len(_session(40000, 4))})


def test_a_split_read_holds_out_of_order_bytes_up_to_max_pending(tmp_path: Path) -> None:
    """``max_pending`` reaches every range's reassembly: a hole with more bytes held after
    it is a gap, as in the one-task read."""
    hole = [Seg(1000, b"", TCP_SYN), Seg(1101, b"b" * 50), Seg(1001, b"a" * 100)]
    path, at = _two_ranges(tmp_path, _session(40000, 3), hole)
    found = _split_read(path, at, max_pending=10)
    assert sorted(repr(r) for r in found) == _whole(path, max_pending=10)
    assert [r.reason for r in found if isinstance(r, Lost)] == ["gap"]


def test_a_split_read_reads_signatures_as_signed_as_says(tmp_path: Path) -> None:
    path, at = _two_ranges(tmp_path, _session(40000, 3), _session(40001, 2))
    found = _split_read(path, at, signed_as=AuthLevel.Sig10)
    assert sorted(repr(r) for r in found) == _whole(path, signed_as=AuthLevel.Sig10)
    assert {m.envelope.authentication_level for m in messages(found)} == {AuthLevel.Sig10}


def test_addresses_used_again_are_read_by_the_range_their_new_episode_begins_in(
    tmp_path: Path,
) -> None:
    """A connection's first episode runs through ranges 0 and 1; after an idle look the
    same ports begin again (SYN) in range 2, which reads that episode from its first frame."""
    data = b"".join(session_packets(envelope(i) for i in range(12)))
    first = frames(segments(data, size=200))
    other = frames([Seg(1, b"x" * 10, sport=5000, dport=80)])
    again = frames(segments(data[:600], size=200, isn=90_000))
    items = [replace(f, time=T0 + i * 0.01) for i, f in enumerate(first)]
    items += [replace(other[0], time=T0 + 50)]  # the idle look between the episodes
    items += [replace(f, time=T0 + 100 + i * 0.01) for i, f in enumerate(again)]
    capture = pcap(items)
    path = tmp_path / "c.pcap"
    path.write_bytes(capture)
    begins = _offsets(capture)[len(first) + 1]
    plan = plan_split(str(path), begins // 2)
    assert not isinstance(plan, str) and plan.starts[2] == begins
    found = _split_read(str(path), begins // 2, idle_timeout=2)
    assert sorted(repr(r) for r in found) == _whole(str(path), idle_timeout=2)
    assert [(e.where.stream, e.mid_session) for e in ends(found)] == [
        ("10.1.1.1:49152 -> 10.2.2.2:1801", False)
    ] * 2


# --- a new section between a range's end and the next range's boundary -------------------------


@pytest.mark.parametrize("before", [0, 40], ids=["at-the-split-point", "inside-the-gap"])
def test_a_section_block_after_a_range_s_end_is_walked_by_that_range(tmp_path, before) -> None:
    """A range reads every block up to the next range's boundary (the first packet block at
    or after its end), so a new pcapng section there -- here with nanosecond timestamps --
    is seen by it and the file is read as one task: its records are the whole read's, never
    the second section's packets read with the first section's interface."""

    def session(sport: int, n: int) -> list[Frame]:
        data = b"".join(session_packets(envelope(10 * sport + i) for i in range(n)))
        return frames(segments(data, size=300, sport=sport))

    first = shb() + idb(1) + b"".join(epb(f) for f in session(40000, 4))
    second = shb() + idb(1, tsresol=9) + b"".join(epb(f, divisor=10**9) for f in session(40001, 3))
    capture = first + second
    path = tmp_path / "two-sections.pcapng"
    path.write_bytes(capture)
    at = len(first) - before
    assert not isinstance(plan_split(str(path), at), str)  # the plan alone cannot tell
    read = split_records(str(path), at, chunk=1000)
    assert isinstance(read, str)
    assert read.endswith(
        f"a pcapng section block at offset {len(first)}, after the first packet (the ranges "
        "would not know it)"
    )
