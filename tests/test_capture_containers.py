"""The capture reader's containers, link layers, TCP and dissection, rule by rule
(containers.py, dissect.py, inet.py, records.py, tcp.py).
"""

from __future__ import annotations

import struct

import pytest
from capture_helpers import T0, option

from mqcn_model.capture.containers import (
    MAX_BLOCK_BYTES,
    MAX_FRAME_BYTES,
    ContainerReader,
    RawFrame,
)
from mqcn_model.capture.dissect import LINK_ETHERNET, LINK_IPV6, dissect
from mqcn_model.capture.inet import (
    MAC_A,
    MAC_B,
    PCAP_HEADER_SIZE,
    RECORD_HEADER_SIZE,
    TCP_SYN,
    internet_checksum,
    pcap_header,
    pcap_record,
    retimed,
    tcp_frame,
)
from mqcn_model.capture.records import (
    CAPTURE_CORRUPT,
    CAPTURE_FORMAT,
    CAPTURE_TRUNCATED,
    GAP,
    SNAPLEN,
    Lost,
    Quarantine,
    StreamEnd,
)
from mqcn_model.capture.tcp import Direction

# --- containers.py: what a reader returns, and the words of each capture-level quarantine ------


def fed(data: bytes, chunk: int | None = None) -> tuple[ContainerReader, list[object]]:
    """A reader fed ``data`` (in chunks of ``chunk`` bytes, or whole) and closed."""
    reader = ContainerReader("c.cap")
    size = chunk or max(len(data), 1)
    out: list[object] = []
    for start in range(0, len(data), size):
        out += reader.feed(data[start : start + size])
    out += reader.close()
    return reader, out


def one_quarantine(out: list[object]) -> Quarantine:
    (record,) = [r for r in out if isinstance(r, Quarantine)]
    return record


def got_frames(out: list[object]) -> list[RawFrame]:
    return [r for r in out if isinstance(r, RawFrame)]


def block(kind: int, body: bytes, endian: str = "<") -> bytes:
    """A pcapng block of ``body``, padded to 4 bytes."""
    body += bytes(-len(body) % 4)
    length = len(body) + 12
    return struct.pack(endian + "II", kind, length) + body + struct.pack(endian + "I", length)


def pcap_file(*records: bytes, endian: str = "<", magic: int = 0xA1B2C3D4, link: int = 1) -> bytes:
    header = struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, 65535, link)
    return header + b"".join(records)


def pcap_rec(
    data: bytes,
    *,
    seconds: int = 1,
    fraction: int = 0,
    length: int | None = None,
    caplen: int | None = None,
    endian: str = "<",
) -> bytes:
    caplen = len(data) if caplen is None else caplen
    length = len(data) if length is None else length
    return struct.pack(endian + "IIII", seconds, fraction, caplen, length) + data


@pytest.mark.parametrize(
    ("data", "reason", "detail"),
    [
        (b"", CAPTURE_TRUNCATED, "the capture file is empty"),
        (
            b"\xd4\xc3\xb2",
            CAPTURE_FORMAT,
            "the file is 3 bytes, too short for a pcap or pcapng header",
        ),
        (
            b"GET / HTTP/1.1\r\n",
            CAPTURE_FORMAT,
            "the file starts with 0x47455420, the magic number of neither pcap nor pcapng",
        ),
        (
            pcap_file()[:10],
            CAPTURE_TRUNCATED,
            "the file ends inside the pcap global header (10 of 24 bytes)",
        ),
        (
            pcap_file(pcap_rec(b"abcdef"))[: 24 + 13],
            CAPTURE_TRUNCATED,
            "the file ends 13 bytes into a record it does not complete",
        ),
    ],
)
def test_a_file_that_is_no_whole_capture_says_why_in_words(
    data: bytes, reason: str, detail: str
) -> None:
    """The one line an auditor reads for a file the reader cannot read to its end: the reason
    and the sentence (docs/capture.md), with the bytes they cover."""
    reader, out = fed(data)
    record = one_quarantine(out)
    assert (record.reason, record.detail, record.requirement) == (reason, detail, None)
    assert record.where.capture == "c.cap" and record.where.stream == ""
    assert record.where.offset + record.where.size == len(data)
    assert reader.quarantined_bytes == record.where.size and reader.bytes == len(data)


def test_a_garbage_file_fed_in_pieces_is_one_quarantine_of_every_byte() -> None:
    """Once the magic number is wrong nothing more is read, but every byte fed is counted."""
    garbage = b"\x00\x01\x02\x03" + bytes(1000)
    reader, out = fed(garbage, chunk=7)
    record = one_quarantine(out)
    assert out == [record] and (record.where.offset, record.where.size) == (0, len(garbage))
    assert record.where.frames == () and reader.format == "unknown"
    assert reader.bytes == reader.quarantined_bytes == len(garbage)


@pytest.mark.parametrize("endian", ["<", ">"])
@pytest.mark.parametrize(("magic", "divisor"), [(0xA1B2C3D4, 10**6), (0xA1B23C4D, 10**9)])
def test_pcap_times_count_in_the_unit_of_the_magic_number(
    endian: str, magic: int, divisor: int
) -> None:
    """libpcap: 0xA1B2C3D4 times in microseconds, 0xA1B23C4D in nanoseconds, either byte
    order; a record's time is seconds + fraction / divisor."""
    data = pcap_file(
        pcap_rec(b"abcd", seconds=T0_S, fraction=divisor // 4, endian=endian),
        endian=endian,
        magic=magic,
    )
    reader, out = fed(data, chunk=5)
    (frame,) = got_frames(out)
    assert frame.time == T0_S + 0.25 and frame.data == b"abcd"
    assert (frame.number, frame.offset, frame.link_type) == (1, 24, 1)
    assert reader.format == "pcap" and reader.frames == 1


T0_S = int(T0)


def test_the_pcap_link_type_drops_the_fcs_bits_of_the_header() -> None:
    """The upper four bits of the global header's LinkType carry the FCS length (libpcap
    LINKTYPE_ field): the link type is the rest."""
    data = pcap_file(pcap_rec(b"x"), link=0xF0000071)
    (frame,) = got_frames(fed(data)[1])
    assert frame.link_type == 0x71


def test_pcap_frames_are_numbered_and_placed_in_the_file_across_chunks() -> None:
    """Frames numbered from 1 (as Wireshark does), each with the file offset of its record,
    whatever the chunks; an original length below the captured one is the captured one."""
    data = pcap_file(
        pcap_rec(b"a" * 5), pcap_rec(b"b" * 7, length=3), pcap_rec(b"c" * 2, length=60)
    )
    for chunk in (1, 3, 16, len(data)):
        frames = got_frames(fed(data, chunk)[1])
        assert [(f.number, f.offset, f.data, f.length) for f in frames] == [
            (1, 24, b"aaaaa", 5),
            (2, 24 + 21, b"bbbbbbb", 7),
            (3, 24 + 21 + 23, b"cc", 60),
        ]
        assert [f.cut for f in frames] == [False, False, True]


def test_a_pcap_frame_of_the_largest_size_is_read_one_byte_more_is_corrupt() -> None:
    """MAX_FRAME_BYTES captured bytes are a frame; one more is garbage: the rest of the file is
    one ``capture-corrupt`` quarantine naming the frame and the limit."""
    big = bytes(MAX_FRAME_BYTES)
    reader, out = fed(pcap_file(pcap_rec(big)))
    assert [len(f.data) for f in got_frames(out)] == [MAX_FRAME_BYTES] and reader.frames == 1
    lying = struct.pack("<IIII", 1, 0, MAX_FRAME_BYTES + 1, 70) + b"rest"
    data = pcap_file(pcap_rec(b"ok"), lying)
    reader, out = fed(data)
    record = one_quarantine(out)
    assert (record.reason, record.where.offset, record.where.size) == (
        CAPTURE_CORRUPT,
        24 + 18,
        len(lying),
    )
    assert record.detail == (
        f"frame 2 claims {MAX_FRAME_BYTES + 1} captured bytes, more than any frame "
        f"({MAX_FRAME_BYTES}): the rest of the file is not read"
    )
    assert reader.frames == 1


# --- pcapng -------------------------------------------------------------------------------------


def shb_body(endian: str = "<", bom: int = 0x1A2B3C4D) -> bytes:
    return struct.pack(endian + "IHHq", bom, 1, 0, -1)


def epb_body(iface: int, ticks: int, data: bytes, length: int | None = None, e: str = "<") -> bytes:
    length = len(data) if length is None else length
    fixed = struct.pack(e + "IIIII", iface, ticks >> 32, ticks & 0xFFFFFFFF, len(data), length)
    return fixed + data


def idb_body(link: int, snaplen: int = 0, options: bytes = b"", e: str = "<") -> bytes:
    return struct.pack(e + "HHI", link, 0, snaplen) + options


@pytest.mark.parametrize(
    ("bad", "detail"),
    [
        (
            block(0x0A0D0D0A, shb_body()[:12]),
            "a Section Header Block is shorter than its fixed fields",
        ),
        (block(1, bytes(4)), "an Interface Description Block is shorter than its fixed fields"),
        (block(6, bytes(16)), "an Enhanced Packet Block is shorter than its fixed fields"),
        (block(2, bytes(16)), "a Packet Block is shorter than its fixed fields"),
        (block(3, b""), "a Simple Packet Block is shorter than its fixed field"),
    ],
)
def test_a_pcapng_block_too_short_for_its_fixed_fields_ends_the_reading(
    bad: bytes, detail: str
) -> None:
    """A block whose body cannot hold its fixed fields: the rest of the file, from that
    block, is ``capture-corrupt`` with the sentence naming the block."""
    head = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(1))
    tail = block(6, epb_body(0, 0, b"next"))
    reader, out = fed(head + bad + tail)
    record = one_quarantine(out)
    assert (record.reason, record.where.offset, record.where.size) == (
        CAPTURE_CORRUPT,
        len(head),
        len(bad) + len(tail),
    )
    assert record.detail == detail
    assert reader.frames == 0 and got_frames(out) == []


@pytest.mark.parametrize("kind", [6, 2])
def test_a_packet_block_of_its_fixed_fields_alone_is_an_empty_frame(kind: int) -> None:
    """An Enhanced (6) or obsolete Packet Block (2) of 20 bytes of fixed fields and no packet
    bytes is a frame of no captured bytes, and the reading goes on."""
    head = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(1))
    empty = block(kind, bytes(12) + struct.pack("<II", 0, 60))
    reader, out = fed(head + empty + block(6, epb_body(0, 0, b"next")))
    assert [(f.data, f.length, f.offset) for f in got_frames(out)] == [
        (b"", 60, len(head)),
        (b"next", 4, len(head) + len(empty)),
    ]
    assert reader.quarantined_bytes == 0


def test_a_packet_block_whose_frame_fills_its_body_exactly_is_read() -> None:
    """The captured bytes may end exactly where the block's body ends (a length multiple of
    four needs no padding); one more claimed byte is corrupt, naming the frame."""
    head = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(1))
    reader, out = fed(head + block(6, epb_body(0, 0, b"abcd")))
    assert [f.data for f in got_frames(out)] == [b"abcd"] and reader.quarantined_bytes == 0
    over = bytearray(block(6, epb_body(0, 0, b"abcd")))
    struct.pack_into("<I", over, 20, 5)  # caplen 5: one byte more than the body holds
    reader, out = fed(head + bytes(over))
    record = one_quarantine(out)
    assert record.detail == "frame 1 claims 5 captured bytes, its block holds fewer"
    assert (record.reason, record.where.offset) == (CAPTURE_CORRUPT, len(head))


@pytest.mark.parametrize(
    ("length", "trailer"),
    [(8, None), (14, 14), (MAX_BLOCK_BYTES + 4, None), (0x80000000, None)],
)
def test_a_pcapng_block_length_out_of_bounds_ends_the_reading(
    length: int, trailer: int | None
) -> None:
    """A block length below 12 (type, length and trailer), not a multiple of 4, or above
    MAX_BLOCK_BYTES is garbage: the rest of the file is one quarantine saying so."""
    head = block(0x0A0D0D0A, shb_body())
    bad = struct.pack("<II", 0x0BAD, length) + bytes(8)
    record = one_quarantine(fed(head + bad)[1])
    assert (record.reason, record.where.offset, record.where.size) == (
        CAPTURE_CORRUPT,
        len(head),
        len(bad),
    )
    assert record.detail == (
        f"a block of type 0xbad has length {length}, not a multiple of 4 between 12 and "
        f"{MAX_BLOCK_BYTES}: the rest of the file is not read"
    )


def test_blocks_of_the_smallest_and_largest_lengths_are_skipped_as_blocks() -> None:
    """A block of 12 bytes (no body) and one of MAX_BLOCK_BYTES are whole blocks: an unknown
    type is skipped by its length, and the frame after each is read."""
    head = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(1))
    after = block(6, epb_body(0, 0, b"data"))
    for skipped in (block(0x0BAD, b""), block(0x0BAD, bytes(MAX_BLOCK_BYTES - 12))):
        reader, out = fed(head + skipped + after)
        assert [f.data for f in got_frames(out)] == [b"data"] and reader.quarantined_bytes == 0


def test_a_block_of_twelve_bytes_at_the_end_of_a_chunk_is_read_at_once() -> None:
    """A whole block is handled by the feed that completes it, even the 12-byte least one:
    nothing is left for ``close`` to call truncated."""
    data = block(0x0A0D0D0A, shb_body()) + block(0x0BAD, b"")
    reader = ContainerReader("c.cap")
    assert reader.feed(data) == []
    assert reader.close() == [] and reader.quarantined_bytes == 0


@pytest.mark.parametrize("trailer", [36, 0xFFFFFFFC])
def test_a_block_whose_trailing_length_differs_ends_the_reading(trailer: int) -> None:
    """Both lengths of a block are unsigned 32-bit and must agree."""
    head = block(0x0A0D0D0A, shb_body())
    bad = struct.pack("<II", 6, 32) + bytes(20) + struct.pack("<I", trailer)
    record = one_quarantine(fed(head + bad + b"tail")[1])
    assert (record.where.offset, record.where.size) == (len(head), len(bad) + 4)
    assert record.detail == (
        f"a block of type 0x6 says 32 bytes at its start and {trailer} at its end: the rest "
        "of the file is not read"
    )


def test_a_section_header_with_a_wrong_byte_order_magic_ends_the_reading() -> None:
    """The byte-order magic 0x1A2B3C4D, read in either order, sets the section's byte order;
    any other value is corrupt, from that Section Header Block on."""
    head = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(1))
    bad = block(0x0A0D0D0A, shb_body(bom=0x01020304))
    record = one_quarantine(fed(head + bad)[1])
    assert (record.reason, record.where.offset, record.where.size) == (
        CAPTURE_CORRUPT,
        len(head),
        len(bad),
    )
    assert record.detail == "a Section Header Block has byte-order magic 0x04030201"


def test_a_new_section_forgets_the_interfaces_of_the_last() -> None:
    """Interface numbers are per section: after a second Section Header Block, a packet
    naming interface 0 names an interface never described (no link type, no time)."""
    first = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(1))
    second = block(0x0A0D0D0A, shb_body()) + block(6, epb_body(0, 10**6, b"x"))
    frames = got_frames(fed(first + block(6, epb_body(0, 10**6, b"x")) + second)[1])
    assert [(f.link_type, f.time) for f in frames] == [(1, 1.0), (None, None)]


@pytest.mark.parametrize(
    ("options", "ticks", "time"),
    [
        (b"", 1_500_000, 1.5),  # no if_tsresol: microseconds
        (option("<", 9, bytes([3])), 1_500, 1.5),  # 10**-3
        (option("<", 9, bytes([9])), 1_500_000_000, 1.5),  # 10**-9
        (option("<", 9, bytes([0x80 | 10])), 1536, 1.5),  # 2**-10
        (option("<", 9, bytes([0x80 | 41])), 3 << 40, 1.5),  # 2**-41
        (option("<", 9, b""), 1_500_000, 1.5),  # an empty if_tsresol says nothing
        (option("<", 14, struct.pack("<q", 100)), 1_500_000, 101.5),  # if_tsoffset, seconds
        (option("<", 14, struct.pack("<q", -1)), 1_500_000, 0.5),
        (option("<", 14, struct.pack("<i", 100)), 1_500_000, 1.5),  # too short to be one
        (option("<", 2, b"eth0") + option("<", 9, bytes([3])), 1_500, 1.5),  # if_name skipped
        (option("<", 2, b"eth") + option("<", 9, bytes([3])), 1_500, 1.5),  # padded to 4
        (option("<", 2, b"eth0eth0") + option("<", 9, bytes([3])), 1_500, 1.5),  # 8 bytes
        (option("<", 0, b"") + option("<", 9, bytes([3])), 1_500_000, 1.5),  # after opt_endofopt
        (option("<", 9, bytes([3])) + option("<", 14, struct.pack("<q", 7)), 1_500, 8.5),
    ],
)
def test_the_interface_options_set_the_clock_of_its_packets(
    options: bytes, ticks: int, time: float
) -> None:
    """pcapng if_tsresol (9: a power of 10, or of 2 with its top bit) and if_tsoffset (14:
    seconds added); other options skipped by their padded length; none after opt_endofopt."""
    data = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(1, options=options))
    (frame,) = got_frames(fed(data + block(6, epb_body(0, ticks, b"x")))[1])
    assert frame.time == time


@pytest.mark.parametrize(
    ("options", "ticks"),
    [
        (struct.pack("<HH", 9, 8) + bytes([3]), 1_500_000),  # if_tsresol: 8 bytes, 4 there
        (option("<", 9, bytes([3])) + struct.pack("<HH", 2, 0x8004), 1_500),  # 32 KiB claimed
    ],
)
def test_an_option_running_past_its_block_ends_the_options(options: bytes, ticks: int) -> None:
    """An option whose value the block does not hold is not read, nor any after it; those
    before it count (option lengths are unsigned 16-bit)."""
    data = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(1, options=options))
    reader, out = fed(data + block(6, epb_body(0, ticks, b"x")))
    (frame,) = got_frames(out)
    assert frame.time == 1.5 and reader.quarantined_bytes == 0


def test_a_simple_packet_block_is_cut_at_its_length_and_at_the_snaplen() -> None:
    """A Simple Packet Block's captured bytes are its body, without the padding past the
    stated length, and no more than the first interface's snaplen."""
    head = block(0x0A0D0D0A, shb_body())
    body = struct.pack("<I", 6) + b"abcdef" + bytes(2)  # 6 bytes, padded to 8
    frames = got_frames(fed(head + block(1, idb_body(1)) + block(3, body))[1])
    assert [(f.data, f.length, f.time, f.link_type) for f in frames] == [(b"abcdef", 6, None, 1)]
    frames = got_frames(fed(head + block(1, idb_body(1, snaplen=4)) + block(3, body))[1])
    assert [(f.data, f.length) for f in frames] == [(b"abcd", 6)]
    frames = got_frames(fed(head + block(3, body))[1])
    assert [(f.data, f.link_type) for f in frames] == [(b"abcdef", None)]


def test_a_pcapng_packet_names_its_interface_link_type_and_original_length() -> None:
    """Each Enhanced Packet Block names its interface (link type and clock); its original
    length is kept, never below the captured one."""
    data = (
        block(0x0A0D0D0A, shb_body())
        + block(1, idb_body(1))
        + block(1, idb_body(101, options=option("<", 9, bytes([3]))))
        + block(6, epb_body(1, 2_000, b"ab", length=80))
        + block(6, epb_body(0, 2_000, b"abcd", length=2))
        + block(6, epb_body(2, 2_000, b"abcd"))
    )
    reader, out = fed(data, chunk=9)
    assert [(f.number, f.link_type, f.time, f.length) for f in got_frames(out)] == [
        (1, 101, 2.0, 80),
        (2, 1, 0.002, 4),
        (3, None, None, 4),
    ]
    assert reader.format == "pcapng" and reader.frames == 3


def test_a_big_endian_pcapng_section_is_read_big_endian() -> None:
    e = ">"
    data = (
        block(0x0A0D0D0A, shb_body(e), e)
        + block(1, idb_body(113, options=option(e, 9, bytes([6])), e=e), e)
        + block(6, epb_body(0, (1 << 32) + 5, b"xyz", e=e), e)
    )
    (frame,) = got_frames(fed(data)[1])
    assert (frame.link_type, frame.time, frame.data) == (113, ((1 << 32) + 5) / 10**6, b"xyz")


# --- inet.py: the frames and pcap records the writer builds --------------------------------------


@pytest.mark.parametrize(
    ("data", "checksum"),
    [
        (b"\x01", 0xFEFF),  # one byte: the word 0x0100
        (b"\x12\x34\x56", 0xFFFF - 0x1234 - 0x5600),  # the odd last byte is the high one
        (b"\x12\x34\x56\x00", 0xFFFF - 0x1234 - 0x5600),
        (b"\xff\xff\x00\x01", 0xFFFE),  # 0xFFFF + 1 = 0x10000: the carry folds back in
        (b"", 0xFFFF),
    ],
)
def test_the_internet_checksum_pads_an_odd_length_with_a_zero_byte(
    data: bytes, checksum: int
) -> None:
    """RFC 1071: an odd count of bytes is summed as if a zero byte followed; carries are
    added back into the 16-bit sum."""
    assert internet_checksum(data) == checksum


def test_a_tcp_frame_by_default_has_ip_identification_zero() -> None:
    """Frames the writer builds carry the IP identification they are given, 0 by default."""
    frame = tcp_frame(MAC_A, MAC_B, bytes(4), bytes(4), 49152, 1801, 1, 0, TCP_SYN, b"")
    assert struct.unpack_from("!H", frame, 18) == (0,)
    moved = tcp_frame(MAC_A, MAC_B, bytes(4), bytes(4), 1, 1801, 1, 0, 0, b"", ip_id=0x12345)
    assert struct.unpack_from("!H", moved, 18) == (0x2345,)


def test_tcp_options_not_padded_to_four_bytes_are_refused_in_words() -> None:
    with pytest.raises(ValueError, match=r"^TCP options are padded to 4 bytes$"):
        tcp_frame(MAC_A, MAC_B, bytes(4), bytes(4), 1, 1801, 1, 0, 0, b"", options=b"\x01")


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, (0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)),
        ({"nanosecond": True, "snaplen": 96, "link_type": 101}, (0xA1B23C4D, 2, 4, 0, 0, 96, 101)),
    ],
)
def test_the_pcap_global_header_written(options: dict[str, object], expected: tuple) -> None:
    """libpcap 2.4, little-endian, microseconds unless asked, GMT offset and sigfigs 0,
    snaplen 65535 and Ethernet by default."""
    header = pcap_header(**options)  # type: ignore[arg-type]
    assert len(header) == PCAP_HEADER_SIZE and struct.unpack("<IHHiIII", header) == expected


@pytest.mark.parametrize(
    ("nanosecond", "fields"), [(False, (2, 750000, 1, 1)), (True, (2, 750000000, 1, 1))]
)
def test_a_pcap_record_header_splits_its_time_into_seconds_and_fraction(
    nanosecond: bool, fields: tuple[int, ...]
) -> None:
    record = pcap_record(2.75, b"x", nanosecond=nanosecond)
    assert struct.unpack_from("<IIII", record) == fields and record[RECORD_HEADER_SIZE:] == b"x"


def test_retimed_counts_microseconds_unless_told_nanoseconds() -> None:
    header = pcap_record(2.5, b"abc")[:RECORD_HEADER_SIZE]
    assert struct.unpack("<IIII", retimed(header, 7_000_001)) == (7, 1, 3, 3)
    assert struct.unpack("<IIII", retimed(header, 7_000_000_001, nanosecond=True)) == (7, 1, 3, 3)


@pytest.mark.parametrize("kind", [6, 2])
def test_a_packet_block_timestamp_is_a_64_bit_unsigned_count(kind: int) -> None:
    """The Enhanced (6) and obsolete (2) Packet Blocks give the time as two unsigned 32-bit
    halves, high then low, of one count of the interface's ticks."""
    fixed = struct.pack("<IIIII", 0, 0x80000000, 5, 1, 1)  # interface 0 (PB: HH, 0 and 0)
    head = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(1))
    (frame,) = got_frames(fed(head + block(kind, fixed + b"x"))[1])
    assert frame.time == ((1 << 63) + 5) / 10**6 and frame.data == b"x"


def test_link_types_and_original_lengths_are_unsigned() -> None:
    """An interface's LinkType is unsigned 16-bit (65535 is a link type, not -1); a Simple
    Packet Block's original length is unsigned 32-bit."""
    head = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(0xFFFF))
    data = head + block(3, struct.pack("<I", 0x80000000) + b"abcd")
    (frame,) = got_frames(fed(data)[1])
    assert (frame.link_type, frame.length, frame.data) == (0xFFFF, 0x80000000, b"abcd")


def test_an_obsolete_packet_block_names_its_interface_in_16_bits() -> None:
    """The Packet Block's interface is a 16-bit unsigned field: 0x8000 names no interface
    described (not the last one)."""
    head = block(0x0A0D0D0A, shb_body()) + block(1, idb_body(1))
    fixed = struct.pack("<HHIIII", 0x8000, 0, 0, 10**6, 1, 1)
    (frame,) = got_frames(fed(head + block(2, fixed + b"x"))[1])
    assert (frame.link_type, frame.time) == (None, None)


# --- tcp.py: one direction's reassembly ----------------------------------------------------------

ISN = 0xFFFFFF00  # near 2**32: every rule below holds across the wrap


def direction(max_pending: int = 1 << 20) -> tuple[Direction, list[object]]:
    out: list[object] = []
    d = Direction("c.pcap", "a -> b", out, response=False, max_pending=max_pending)  # type: ignore[arg-type]
    d.syn(ISN - 1, 1, T0)
    return d, out


def seq(offset: int) -> int:
    return (ISN + offset) & 0xFFFFFFFF


def stream_end(out: list[object]) -> StreamEnd:
    (end,) = [r for r in out if isinstance(r, StreamEnd)]
    return end


def test_a_gap_carries_the_time_it_was_declared_and_a_snaplen_loss_its_frame() -> None:
    """Lost records say when the loss was known: a gap declared because the out-of-order
    window filled, at that segment's time (no frame: the bytes were in none); a gap found at
    the stream's end, at the last time the direction saw; a snaplen cut, its own frame."""
    d, out = direction(max_pending=10)
    d.segment(seq(0), b"a" * 4, 2, 2, T0 + 1)  # 4 bytes captured of 6
    d.segment(seq(20), b"b" * 8, 0, 3, T0 + 2)  # held: 8 bytes waiting
    d.segment(seq(28), b"c" * 8, 0, 4, T0 + 3)  # 16 > 10 waiting: the gap 6..20 is declared
    d.segment(seq(50), b"d" * 4, 0, 5, T0 + 4)  # held until the end
    d.finish("capture-end")
    lost = [
        (
            r.reason,
            r.where.offset,
            r.where.size,
            r.where.frames,
            r.where.time_first,
            r.where.time_last,
        )
        for r in out
        if isinstance(r, Lost)
    ]
    assert lost == [
        (SNAPLEN, 4, 2, (2,), T0 + 1, T0 + 1),
        (GAP, 6, 14, (), T0 + 3, T0 + 3),
        (GAP, 36, 14, (), T0 + 4, T0 + 4),
    ]
    end = stream_end(out)
    assert (end.bytes, end.lost_bytes, end.out_of_order_segments) == (54, 30, 3)


def test_a_segment_half_the_sequence_space_away_is_taken_as_behind() -> None:
    """Sequence numbers compare modulo 2**32 (RFC 793): one exactly 2**31 past the next
    expected byte is read as 2**31 behind it, a retransmission, never as 2 GB ahead."""
    d, out = direction()
    d.segment(seq(0), b"x" * 10, 0, 2, T0)
    d.segment(seq(10 + (1 << 31)), b"y" * 5, 0, 3, T0)
    d.segment(seq(10 + (1 << 31) - 1), b"z" * 5, 0, 4, T0)  # one less: ahead, held
    d.finish("capture-end")
    end = stream_end(out)
    assert (end.retransmitted_bytes, end.out_of_order_segments) == (5, 1)
    assert end.bytes == 10 + (1 << 31) - 1 + 5


def test_a_segment_from_before_the_streams_first_byte_is_a_retransmission() -> None:
    """Bytes placed before the stream's offset 0 were seen (or are before the SYN): dropped and
    counted, not read as new bytes."""
    d, out = direction()
    d.segment(seq(0), b"x" * 100, 0, 2, T0)
    d.segment(seq(-100), b"y" * 50, 0, 3, T0)
    d.finish("fin")
    end = stream_end(out)
    assert (end.bytes, end.retransmitted_bytes, end.overlap_bytes) == (100, 50, 0)


def test_a_fin_carrying_data_ends_the_stream_after_its_data() -> None:
    """The FIN's sequence number is that of its segment's first byte: the stream is complete
    once the segment's payload has arrived, not before."""
    d, _ = direction()
    d.segment(seq(0), b"x" * 10, 0, 2, T0)
    d.fin(seq(20), 5)  # FIN on a segment of 5 bytes at 20, that segment not yet delivered
    d.segment(seq(10), b"y" * 10, 0, 3, T0)
    assert not d.complete and d.fin_at == 25
    d.segment(seq(20), b"z" * 4, 0, 4, T0)
    assert not d.complete
    d.segment(seq(24), b"z", 0, 4, T0)
    assert d.complete


def test_an_overlapping_segment_cut_by_the_snaplen_loses_only_its_new_bytes() -> None:
    """A segment that repeats bytes already read and whose tail the snaplen cut: the repeat is
    overlap, and only the cut bytes beyond the stream's end are lost."""
    d, out = direction()
    d.segment(seq(0), b"x" * 10, 0, 2, T0)
    d.segment(seq(4), b"y" * 3, 8, 3, T0)  # bytes 4..6 captured, 7..14 cut; 10..14 are new
    d.finish("fin")
    end = stream_end(out)
    lost = [(r.where.offset, r.where.size) for r in out if isinstance(r, Lost)]
    assert (end.bytes, end.overlap_bytes, end.lost_bytes, lost) == (15, 6, 5, [(10, 5)])


def test_pcap_record_fields_are_unsigned_past_2038() -> None:
    """A pcap record's seconds are unsigned 32-bit: 0x80000000 is in 2038, not 1901."""
    data = pcap_file(pcap_rec(b"abcd", seconds=0x80000000, fraction=500_000))
    (frame,) = got_frames(fed(data)[1])
    assert frame.time == 0x80000000 + 0.5


def test_a_pcap_record_of_no_captured_bytes_is_a_frame() -> None:
    """A record header alone (caplen 0, as a snaplen of 0 writes) is a whole record: a frame
    of no bytes, read by the feed that completes it, nothing left truncated at the end."""
    reader = ContainerReader("c.cap")
    frames = reader.feed(pcap_file(pcap_rec(b"", length=60)))
    assert [(f.number, f.data, f.length) for f in frames] == [(1, b"", 60)]  # type: ignore[union-attr]
    assert reader.close() == []


def test_a_repeat_of_a_held_segment_counts_its_cut_bytes_too() -> None:
    """A segment held out of order stands for its captured and its snaplen-cut bytes: a repeat
    at the same place that covers no more is a retransmission of all its bytes; one that
    covers more replaces it."""
    d, out = direction()
    d.segment(seq(0), b"x" * 10, 0, 2, T0)
    d.segment(seq(0), b"x" * 3, 0, 3, T0)  # a retransmission of 3 bytes
    d.segment(seq(20), b"a" * 4, 4, 4, T0)  # held: 4 captured, 4 cut
    d.segment(seq(20), b"a" * 6, 2, 5, T0)  # 8 bytes, no more: retransmitted
    d.segment(seq(40), b"b" * 4, 4, 6, T0)  # held: 8 bytes
    d.segment(seq(40), b"b" * 8, 2, 7, T0)  # 10 bytes: replaces it
    d.finish("capture-end")
    end = stream_end(out)
    lost = [(r.reason, r.where.offset, r.where.size) for r in out if isinstance(r, Lost)]
    assert lost == [(GAP, 10, 10), (SNAPLEN, 24, 4), (GAP, 28, 12), (SNAPLEN, 48, 2)]
    assert (end.bytes, end.retransmitted_bytes, end.out_of_order_segments) == (50, 11, 4)


def test_a_held_segment_replaced_by_a_longer_one_counts_once_against_the_window() -> None:
    """The out-of-order window counts the captured bytes held: replacing a held segment by a
    longer one at the same place counts the longer one only, with the other held segments;
    the window overflowing then declares the gap, at that segment's time."""
    d, out = direction(max_pending=15)
    d.segment(seq(0), b"x" * 10, 0, 2, T0)
    d.segment(seq(30), b"a" * 10, 0, 3, T0 + 1)  # 10 held
    d.segment(seq(20), b"b" * 4, 0, 4, T0 + 2)  # 14 held
    d.segment(seq(20), b"b" * 8, 0, 5, T0 + 3)  # 10 + 8 = 18 held: over 15
    d.segment(seq(0), b"x", 0, 6, T0 + 9)
    d.finish("capture-end")
    lost = [(r.where.offset, r.where.size, r.where.time_first) for r in out if isinstance(r, Lost)]
    assert lost == [(10, 10, T0 + 3), (28, 2, T0 + 9)]


# --- dissect.py: from a frame to a segment of port 1801, or its kind ----------------------------


def test_an_ipv6_ethertype_on_a_packet_that_is_not_ipv6_is_headers_cut() -> None:
    """An EtherType 0x86DD whose packet's version is not 6: its IPv6 header is unreadable."""
    frame = bytes(12) + b"\x86\xdd" + b"\x45" + bytes(59)
    assert dissect(LINK_ETHERNET, frame, len(frame)) == "headers-cut"


def test_an_ipv6_extension_header_of_its_two_first_bytes_is_stepped_over() -> None:
    """Next Header and Hdr Ext Len are all an extension header needs to be skipped: a frame
    ending there, whose last header says No Next Header (59), carries another protocol."""
    fixed = struct.pack("!IHBB16s16s", 6 << 28, 8, 0, 64, bytes(16), bytes(15) + b"\x01")
    data = fixed + bytes([59, 0])
    assert dissect(LINK_IPV6, data, len(data)) == "ip-other"


@pytest.mark.parametrize(
    ("link_type", "frame", "kind"),
    [
        (LINK_ETHERNET, bytes(12) + b"\x08\x06", "non-ip"),  # the 14-byte header, ARP
        (LINK_ETHERNET, bytes(12) + b"\x81\x00\x00\x01\x08\x06", "non-ip"),  # one tag, ARP
        (113, bytes(15), "headers-cut"),  # Linux cooked: 16-byte header
        (276, bytes(19), "headers-cut"),  # Linux cooked v2: 20-byte header
        (101, b"", "headers-cut"),  # raw IP, nothing captured
        (101, b"\x00" * 40, "non-ip"),  # raw IP whose version is neither 4 nor 6
        (0, bytes(3), "headers-cut"),  # BSD loopback: 4-byte family
    ],
)
def test_a_link_header_whole_or_cut(link_type: int, frame: bytes, kind: str) -> None:
    """Each link type's header is whole at its own length (what it carries is then named) and
    cut one byte short of it."""
    assert dissect(link_type, frame, len(frame)) == kind


def test_every_overlap_of_a_stream_is_counted() -> None:
    """``overlap_bytes`` adds up the repeated part of each segment that also brought new
    bytes."""
    d, out = direction()
    d.segment(seq(0), b"x" * 10, 0, 2, T0)
    d.segment(seq(6), b"y" * 8, 0, 3, T0)  # 4 repeated, 4 new
    d.segment(seq(12), b"z" * 8, 0, 4, T0)  # 2 repeated, 6 new
    d.finish("fin")
    end = stream_end(out)
    assert (end.bytes, end.overlap_bytes, end.retransmitted_bytes) == (20, 6, 0)


def test_a_held_segment_replaced_within_the_window_declares_no_gap() -> None:
    """The replaced segment's bytes leave the window: 10 + 8 held of 20 declares nothing until
    the stream ends."""
    d, out = direction(max_pending=20)
    d.segment(seq(0), b"x" * 10, 0, 2, T0)
    d.segment(seq(30), b"a" * 10, 0, 3, T0 + 1)
    d.segment(seq(20), b"b" * 4, 0, 4, T0 + 2)
    d.segment(seq(20), b"b" * 8, 0, 5, T0 + 3)
    d.segment(seq(0), b"x", 0, 6, T0 + 9)
    d.finish("capture-end")
    lost = [(r.where.offset, r.where.size, r.where.time_first) for r in out if isinstance(r, Lost)]
    assert lost == [(10, 10, T0 + 9), (28, 2, T0 + 9)]


def _ip(protocol: int, payload: bytes, *, ihl: int = 5, total: int | None = None) -> bytes:
    size = ihl * 4 + len(payload) if total is None else total
    fixed = struct.pack(
        "!BBHHHBBH4s4s", 0x40 | ihl, 0, size, 0, 0, 64, protocol, 0, bytes(4), bytes(4)
    )
    return fixed + bytes(ihl * 4 - 20) + payload


def _tcp(offset: int, sport: int = 49152, extra: bytes = b"") -> bytes:
    return struct.pack("!HHIIBBHHH", sport, 1801, 7, 0, offset << 4, 0x18, 1, 0, 0) + extra


@pytest.mark.parametrize(
    ("ip", "kind"),
    [
        (_ip(59, b""), "ip-other"),  # the 20-byte IPv4 header alone, total 20
        (_ip(59, b"")[:19], "headers-cut"),
        (_ip(59, b"", ihl=6), "ip-other"),  # a 24-byte header with options, all there
        (_ip(59, b"", ihl=6)[:23], "headers-cut"),
        (_ip(6, struct.pack("!HHIIBB", 5000, 80, 0, 0, 0x50, 0)), "tcp-other"),  # 14 TCP bytes
        (_ip(6, struct.pack("!HHIIBB", 5000, 80, 0, 0, 0x50, 0))[:33], "headers-cut"),
        (_ip(6, _tcp(4)), "headers-cut"),  # a TCP data offset under 5 words
        (_ip(6, _tcp(6, extra=bytes(4)), total=40), "headers-cut"),  # TCP header past IP's end
    ],
)
def test_ip_and_tcp_headers_are_whole_at_their_stated_lengths(ip: bytes, kind: str) -> None:
    """An IPv4 header is whole at 20 bytes or at its IHL, a TCP header is read from 14 bytes
    (ports to flags) and must lie, at its data offset of 5 words or more, inside the datagram
    IP states."""
    assert dissect(101, ip, len(ip)) == kind


@pytest.mark.parametrize("ethernet", [False, True])
def test_a_tcp_header_whose_options_the_capture_cut_is_headers_cut(ethernet: bool) -> None:
    """A 32-byte TCP header (12 bytes of options) inside a datagram IP says is 152 bytes long,
    of which the capture kept 24 TCP bytes (a snaplen cut, not a lie): its payload cannot even
    be located, so the frame is ``headers-cut`` -- on Ethernet's one-unpack path and on raw
    IP's general one alike -- never a segment with nothing in it."""
    ip = _ip(6, _tcp(8, extra=bytes(12) + bytes(100)))
    frame = (bytes(12) + b"\x08\x00" if ethernet else b"") + ip
    kept = frame[: len(frame) - len(ip) + 44]
    assert dissect(LINK_ETHERNET if ethernet else 101, kept, len(frame)) == "headers-cut"


@pytest.mark.parametrize(
    "ip",
    [
        _ip(6, _tcp(4, extra=bytes(8))),  # a TCP data offset under 5 words
        _ip(6, _tcp(6, extra=bytes(4)), total=40),  # TCP header past IP's end
    ],
)
def test_a_bad_tcp_header_over_ethernet_is_headers_cut(ip: bytes) -> None:
    """The common Ethernet + IPv4 frame refuses the TCP headers the general path refuses."""
    frame = bytes(12) + b"\x08\x00" + ip + bytes(16)
    assert dissect(LINK_ETHERNET, frame, len(frame)) == "headers-cut"


def test_a_direction_that_saw_no_byte_ends_without_a_record() -> None:
    """No SYN, no data (a FIN alone): finishing the direction reports nothing."""
    out: list[object] = []
    d = Direction("c.pcap", "a -> b", out, response=False)  # type: ignore[arg-type]
    d.fin(5, 0)
    d.finish("fin")
    assert out == [] and d.finished


def test_a_stream_end_says_where_and_when_the_stream_was_seen() -> None:
    """A SYN alone: the StreamEnd names the capture and the stream, the SYN's frame, and its
    time as the first and the last the direction saw."""
    d, out = direction()
    d.finish("capture-end")
    where = stream_end(out).where
    assert (where.capture, where.stream, where.offset, where.size) == ("c.pcap", "a -> b", 0, 0)
    assert (where.frames, where.time_first, where.time_last) == ((1,), T0, T0)


def test_a_stream_joined_in_its_middle_starts_at_its_first_data_segment() -> None:
    out: list[object] = []
    d = Direction("c.pcap", "a -> b", out, response=False)  # type: ignore[arg-type]
    d.segment(1000, b"x" * 4, 0, 7, T0 + 5)
    d.segment(1004, b"y" * 4, 0, 8, T0 + 6)
    d.finish("capture-end")
    end = stream_end(out)
    assert end.mid_session and end.bytes == 8
    assert (end.where.frames, end.where.time_first, end.where.time_last) == ((7,), T0 + 5, T0 + 6)


def test_held_bytes_follow_at_once_when_the_hole_before_them_fills() -> None:
    """A segment held out of order goes to the framer as soon as the segment before it
    arrives, with its own frame and time (its snaplen loss says so), not at the next one."""
    d, out = direction()
    d.segment(seq(0), b"a" * 4, 0, 2, T0 + 1)
    d.segment(seq(10), b"c" * 4, 2, 3, T0 + 2)  # held; 2 bytes not captured
    d.segment(seq(4), b"b" * 6, 0, 4, T0 + 3)  # in order: the hole 4..10 filled
    assert d.next == 16 and not d.pending
    lost = [(r.reason, r.where.offset, r.where.frames, r.where.time_first) for r in out]
    assert [r for r in lost if r[0] == SNAPLEN] == [(SNAPLEN, 14, (3,), T0 + 2)]


def test_a_segment_ahead_is_held_whatever_its_raw_sequence_number() -> None:
    """The in-order test compares the segment's offset from the initial sequence number
    (seq - ISN) with the next byte: a segment 512 bytes ahead is held, not delivered."""
    d, _ = direction()
    d.segment(seq(0), b"x" * 10, 0, 2, T0)
    ahead = (10 - ISN) & 0xFFFFFFFF  # seq + ISN would be the next byte; seq - ISN is not
    d.segment(ahead, b"y" * 4, 0, 3, T0 + 1)
    assert d.next == 10 and d.out_of_order == 1
    assert list(d.pending) == [((ahead - ISN) & 0xFFFFFFFF)]
