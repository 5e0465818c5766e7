"""The split capture reader's pure parts, rule by rule (split.py): the layout a range task
needs, where ranges nominally start, and which bytes can start a record.

Each test states one rule with literal values at its boundary; the end-to-end split read
(the same records as one task) is tests/test_capture_split.py.
"""

from __future__ import annotations

import struct

import pytest

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
