"""Sharper tests of the capture reader (mqcn_model/capture/), written for the mutants of
``mqcn selftest mutation`` that the broader capture tests let survive (issue 19).

Each test states one behaviour of the reader in its own right; the mutant it was written for
is named in its docstring, so a reader can see why it exists.
"""

from __future__ import annotations

import struct

from mqcn_model.capture.containers import PCAP_MICRO, ContainerReader
from mqcn_model.capture.records import CAPTURE_FORMAT, CAPTURE_TRUNCATED, Where


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
