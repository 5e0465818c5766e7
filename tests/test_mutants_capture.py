"""Sharper tests of the capture reader (mqcn_model/capture/), written for the mutants of
``mqcn selftest mutation`` that the broader capture tests let survive (issue 19).

Each test states one behaviour of the reader in its own right; the mutant it was written for
is named in its docstring, so a reader can see why it exists.
"""

from __future__ import annotations

import struct

from capture_helpers import Frame, epb, idb, shb, spb

from mqcn_model.capture.containers import PCAP_MICRO, ContainerReader
from mqcn_model.capture.records import CAPTURE_CORRUPT, CAPTURE_FORMAT, CAPTURE_TRUNCATED, Where


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
    reader, out = read_all(shb() + idb(1) + spb(Frame(None, b"abcdefghijkl", 64)))
    (frame,) = out
    assert (frame.data, frame.length, frame.time) == (b"abcdefghijkl", 64, None)
    assert frame.cut
