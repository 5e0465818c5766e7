"""Bad captures: each gives quarantine records with its reason, never a crash, a hang or a
silent drop; every stream stays balanced and memory stays bounded by the largest packet.

One test per bad input of issue 13: a truncated capture, a garbage file, a snaplen-cut
packet, a PacketSize of 4 GB, a wrong Signature, a stream starting mid-session, a stream
ending inside a packet, non-MSMQ traffic on port 1801, pcapng with several interfaces and
link types (tests/test_capture.py), out-of-order and retransmitted segments, a gap — and a
property over random damage, and the memory bound.
"""

from __future__ import annotations

import gc
import struct
import tracemalloc
from collections.abc import Iterator
from dataclasses import replace

from capture_helpers import (
    T0,
    Frame,
    Seg,
    accounting,
    balanced,
    capture_end,
    ends,
    envelope,
    frames,
    idb,
    messages,
    pcap,
    quarantined,
    read,
    segments,
    session_packets,
    shb,
    user_message,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqcn_model.capture import Lost, PcapWriter, Quarantine, iter_capture
from mqcn_model.capture.containers import MAX_FRAME_BYTES
from mqcn_model.capture.records import (
    CAPTURE_CORRUPT,
    CAPTURE_FORMAT,
    CAPTURE_TRUNCATED,
    CUT_BY_GAP,
    ENDS_INSIDE_PACKET,
    GAP,
    MID_SESSION,
    NO_BASE_HEADER,
    NOT_MSMQ,
    SNAPLEN,
)

SENT = [envelope(n) for n in range(1, 6)]
PACKETS = session_packets(SENT)
STREAM = b"".join(PACKETS)


def sequences(records: list) -> list[int]:
    return [m.envelope.message_id.sequence for m in messages(records)]


def reasons(records: list) -> list[tuple[str, int]]:
    return [(q.reason, q.where.size) for q in quarantined(records)]


def lost(records: list) -> list[tuple[str, int]]:
    return [(r.reason, r.where.size) for r in records if isinstance(r, Lost)]


def survivors(start: int, end: int) -> list[int]:
    """The messages whose bytes all lie outside the stream bytes ``start..end``."""
    return [
        e.message_id.sequence
        for k, e in enumerate(SENT, 2)
        if offset_of(k + 1) <= start or offset_of(k) >= end
    ]


def offset_of(index: int) -> int:
    """Stream offset where packet ``index`` of PACKETS starts."""
    return sum(len(p) for p in PACKETS[:index])


# --- damaged capture files -----------------------------------------------------------------


def test_a_truncated_capture_quarantines_its_partial_last_record() -> None:
    whole = pcap(frames(segments(STREAM, size=400)))
    cut = whole[: len(whole) - 250]
    records = read(cut)
    (partial,) = [q for q in quarantined(records) if not q.where.stream]
    assert partial.reason == CAPTURE_TRUNCATED and "ends" in partial.detail
    assert partial.where.offset + partial.where.size == len(cut)
    end = capture_end(records)
    assert end.bytes == len(cut) and end.quarantined_bytes == partial.where.size
    assert sequences(records) == [1, 2, 3, 4]  # the last message lost its last frame
    stream_reasons = [r for r, _ in reasons(records) if r != CAPTURE_TRUNCATED]
    assert stream_reasons == [ENDS_INSIDE_PACKET] and balanced(records)


def test_a_capture_cut_inside_its_global_header() -> None:
    records = read(pcap([])[:10])
    assert reasons(records) == [(CAPTURE_TRUNCATED, 10)]
    assert "global header" in quarantined(records)[0].detail


def test_a_garbage_file_is_one_quarantine_record_with_all_its_bytes() -> None:
    garbage = bytes(range(256)) * 40
    records = read(garbage)
    assert reasons(records) == [(CAPTURE_FORMAT, len(garbage))]
    assert "magic number of neither pcap nor pcapng" in quarantined(records)[0].detail
    assert capture_end(records).frames == 0 and capture_end(records).format == "unknown"


def test_an_empty_or_tiny_file() -> None:
    assert reasons(read(b"")) == [(CAPTURE_TRUNCATED, 0)]
    assert reasons(read(b"\xd4\xc3")) == [(CAPTURE_FORMAT, 2)]


def test_a_record_claiming_an_impossible_length_ends_the_reading_of_the_file() -> None:
    good = pcap(frames(segments(STREAM)))
    lying = struct.pack("<IIII", 1, 0, MAX_FRAME_BYTES + 1, 100) + b"more bytes"
    records = read(good + lying + good[24:])
    (bad,) = [q for q in quarantined(records) if not q.where.stream]
    assert bad.reason == CAPTURE_CORRUPT and bad.where.offset == len(good)
    assert bad.where.size == len(lying) + len(good) - 24
    assert sequences(records) == [1, 2, 3, 4, 5]


def test_a_pcapng_block_whose_lengths_disagree() -> None:
    good = shb() + idb(1)
    block = struct.pack("<II", 6, 32) + bytes(20) + struct.pack("<I", 36)
    records = read(good + block + b"tail")
    assert reasons(records) == [(CAPTURE_CORRUPT, len(block) + 4)]
    assert "32 bytes at its start and 36 at its end" in quarantined(records)[0].detail


def test_a_pcapng_block_length_that_is_not_a_multiple_of_4() -> None:
    records = read(shb() + struct.pack("<II", 6, 30) + bytes(30))
    assert [r for r, _ in reasons(records)] == [CAPTURE_CORRUPT]


def test_a_pcapng_file_without_a_section_header() -> None:
    records = read(idb(1) + shb())
    assert [r for r, _ in reasons(records)] == [CAPTURE_FORMAT]


# --- damaged streams -----------------------------------------------------------------------


def test_a_snaplen_cut_packet_is_marked_and_its_missing_bytes_lost() -> None:
    segs = segments(STREAM, size=500)
    victim = 3  # bytes 1000-1499 of the stream; 1200-1499 not captured
    segs[victim] = replace(segs[victim], cut=300)
    records = read(pcap(frames(segs), snaplen=len(frames(segs)[victim].data)))
    assert capture_end(records).counts["snaplen-cut"] == 1
    assert lost(records) == [(SNAPLEN, 300)]
    (where,) = [r.where for r in records if isinstance(r, Lost)]
    assert where.frames == (victim + 1,)
    assert CUT_BY_GAP in [r for r, _ in reasons(records)]
    assert sequences(records) == survivors(1200, 1500) == [1, 4, 5]  # resynchronised
    assert balanced(records)


def test_a_packet_size_of_4_gb_is_quarantined_with_its_requirement() -> None:
    bogus = bytearray(PACKETS[3][:16])
    bogus[8:12] = struct.pack("<I", 0xFFFFFFFF)
    stream = b"".join(PACKETS[:3]) + bytes(bogus) + b"\x00" * 20 + b"".join(PACKETS[3:])
    records = read(pcap(frames(segments(stream, size=300))))
    (bad,) = quarantined(records)
    assert (bad.reason, bad.where.size, bad.requirement) == (NO_BASE_HEADER, 36, "MQMQ-2.2.19.1-4")
    assert bad.where.offset == offset_of(3) and "above 0x00400000" in bad.detail
    assert sequences(records) == [1, 2, 3, 4, 5] and balanced(records)


def test_a_wrong_signature_is_quarantined_up_to_the_next_packet() -> None:
    broken = bytearray(PACKETS[3])
    broken[4:8] = b"MIOR"
    stream = b"".join(PACKETS[:3]) + bytes(broken) + b"".join(PACKETS[4:])
    records = read(pcap(frames(segments(stream))))
    (bad,) = quarantined(records)
    assert (bad.reason, bad.where.size, bad.requirement) == (
        NO_BASE_HEADER,
        len(PACKETS[3]),
        "MQMQ-2.2.19.1-2",
    )
    assert sequences(records) == [1, 3, 4, 5] and balanced(records)


def test_a_stream_starting_mid_session_resynchronises_and_counts_what_it_skipped() -> None:
    segs = segments(STREAM, size=100)
    start = offset_of(2) + 37  # inside the first UserMessage
    joined = [s for s in segs[1:] if s.seq - 1001 >= start]  # no SYN, from inside it
    records = read(pcap(frames(joined)))
    (skipped,) = quarantined(records)
    first_byte = joined[0].seq - 1001
    assert skipped.reason == MID_SESSION
    assert skipped.where.size == offset_of(3) - first_byte
    assert sequences(records) == [2, 3, 4, 5]
    (end,) = ends(records)
    assert end.mid_session and end.bytes == len(STREAM) - first_byte and balanced(records)


def test_a_stream_ending_inside_a_packet() -> None:
    segs = segments(STREAM, size=100, fin=False)[:-3]
    delivered = sum(len(s.payload) for s in segs)
    last = max(k for k in range(len(PACKETS)) if offset_of(k) < delivered)
    assert offset_of(last) < delivered < offset_of(last + 1)
    records = read(pcap(frames(segs)))
    (cut,) = quarantined(records)
    assert cut.reason == ENDS_INSIDE_PACKET
    assert (cut.where.offset, cut.where.size) == (offset_of(last), delivered - offset_of(last))
    assert f"of the {len(PACKETS[last])} bytes of a packet" in cut.detail
    assert sequences(records) == [e.message_id.sequence for e in SENT[: last - 2]]
    assert balanced(records)


def test_non_msmq_traffic_on_port_1801_is_one_quarantine_record() -> None:
    http = b"GET /msmq/private$/orders HTTP/1.1\r\nHost: qm\r\n\r\n" * 300
    records = read(pcap(frames(segments(http, size=1400))))
    assert reasons(records) == [(NOT_MSMQ, len(http))]
    assert "474554202f6d736d" in quarantined(records)[0].detail  # "GET /msm"
    (end,) = ends(records)
    assert end.packets == 0 and balanced(records)


def test_out_of_order_and_retransmitted_segments_lose_nothing() -> None:
    segs = segments(STREAM, size=120)
    body = segs[1:-1]
    reordered = [segs[0], *reversed(body[:6]), *body[6:], *body[2:9], segs[-1]]
    records = read(pcap(frames(reordered)))
    assert sequences(records) == [1, 2, 3, 4, 5] and quarantined(records) == []
    (end,) = ends(records)
    assert end.out_of_order_segments >= 5
    assert end.retransmitted_bytes == sum(len(s.payload) for s in body[2:9])
    assert balanced(records)


def test_a_gap_cuts_the_stream_and_framing_resynchronises_after_it() -> None:
    segs = segments(STREAM, size=100)
    missing = next(i for i, s in enumerate(segs) if s.seq - 1001 > offset_of(3) + 10)
    records = read(pcap(frames(segs[:missing] + segs[missing + 1 :])))
    assert lost(records) == [(GAP, len(segs[missing].payload))]
    kinds = [r for r, _ in reasons(records)]
    assert kinds[0] == CUT_BY_GAP
    assert set(kinds) <= {CUT_BY_GAP, NO_BASE_HEADER}
    assert sequences(records) == [1, 3, 4, 5]
    (end,) = ends(records)
    assert end.bytes == len(STREAM) and end.lost_bytes == len(segs[missing].payload)
    assert balanced(records)


def test_a_gap_larger_than_the_out_of_order_window_is_declared_without_waiting() -> None:
    many = b"".join(session_packets([envelope(n) for n in range(1, 200)]))
    segs = segments(many, size=1000, fin=False)
    missing = 10
    records = read(pcap(frames(segs[:missing] + segs[missing + 1 :])), max_pending=4000)
    (gap,) = [r for r in records if isinstance(r, Lost)]
    later = [m for m in messages(records) if m.where.offset > gap.where.offset]
    # the gap is declared once 4000 bytes wait behind it, not at the end of the stream
    assert records.index(gap) < records.index(later[-1]) - 100
    assert balanced(records)


def test_a_framed_packet_that_lies_about_its_size_does_not_swallow_the_stream() -> None:
    """A BaseHeader with a plausible but wrong PacketSize: framed, refused by the codec, and
    the packets after it are still found."""
    lying = bytearray(PACKETS[3])
    lying[8:12] = struct.pack("<I", len(PACKETS[3]) + 64)
    stream = b"".join(PACKETS[:3]) + bytes(lying) + b"".join(PACKETS[4:])
    records = read(pcap(frames(segments(stream))))
    assert 1 in sequences(records) and 5 in sequences(records)
    assert balanced(records)


# --- any damage: never an exception, never a hang, always balanced ---------------------------


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["drop", "repeat", "swap", "cut", "flip"]), st.integers(0, 10**6)
        ),
        max_size=8,
    ),
    st.integers(1, 4096),
)
def test_random_damage_never_escapes_and_every_stream_balances(
    damage: list[tuple[str, int]], chunk: int
) -> None:
    segs = segments(STREAM, size=90)
    items = frames(segs)
    for action, where in damage:
        i = where % len(items)
        if action == "drop":
            del items[i]
        elif action == "repeat":
            items.insert(where % (len(items) + 1), items[i])
        elif action == "swap" and i + 1 < len(items):
            items[i], items[i + 1] = items[i + 1], items[i]
        elif action == "cut":
            items[i] = replace(items[i], data=items[i].data[: where % (len(items[i].data) + 1)])
        elif action == "flip" and len(items[i].data) > 54:
            data = bytearray(items[i].data)
            data[54 + where % (len(data) - 54)] ^= 0xFF  # inside the TCP payload
            items[i] = replace(items[i], data=bytes(data))
        if not items:
            break
    capture = pcap(items)
    records = read(capture, chunk=chunk)
    assert capture_end(records).bytes == len(capture)
    for _, stated, added in accounting(records):
        assert stated == added


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=3000), st.integers(0, 3))
def test_random_bytes_after_a_valid_header_never_escape(tail: bytes, kind: int) -> None:
    head = [pcap([]), shb() + idb(1), shb() + idb(101), pcap([], link_type=0)][kind]
    records = read(head + tail, chunk=101)
    end = capture_end(records)
    assert end.bytes == len(head) + len(tail)
    assert all(stated == added for _, stated, added in accounting(records))


# --- memory: bounded by the largest packet, not the capture -----------------------------------


def _lazy_capture(count: int) -> Iterator[bytes]:
    """A capture of ``count`` messages, produced piece by piece (never held whole)."""
    writer = PcapWriter(session="sender")
    for n in range(count):
        yield writer.write(envelope(n, bytes([2, 1]) + bytes(600)))
    yield writer.close()


def _peak(count: int) -> tuple[int, int]:
    gc.collect()
    tracemalloc.start()
    found = 0
    for record in iter_capture("big.pcap", _lazy_capture(count)):
        found += type(record).__name__ == "Message"
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return found, peak


def test_memory_does_not_grow_with_the_number_of_messages() -> None:
    small, small_peak = _peak(200)
    large, large_peak = _peak(2000)
    assert (small, large) == (200, 2000)
    assert large_peak < small_peak * 1.5 + 64 * 1024, (small_peak, large_peak)


def test_a_stream_of_garbage_on_port_1801_is_not_kept_in_memory() -> None:
    def garbage_stream(count: int) -> Iterator[bytes]:
        yield pcap([])
        seq = 5000
        for n in range(count):
            seg = Seg(seq, bytes([n % 251]) * 1400)
            seq += 1400
            yield pcap([Frame(T0 + n, frames([seg])[0].data, 1454)])[24:]

    def peak(count: int) -> int:
        gc.collect()
        tracemalloc.start()
        records = list(iter_capture("g.pcap", garbage_stream(count)))
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert [q.where.size for q in records if isinstance(q, Quarantine)] == [1400 * count]
        return top

    assert peak(3000) < peak(300) * 1.5 + 64 * 1024


def test_a_message_never_completed_holds_at_most_one_packet() -> None:
    """A UserMessage announced at the 4 MB maximum and never finished."""
    head = bytearray(user_message(envelope(1))[:16])
    head[8:12] = struct.pack("<I", 0x00400000)
    stream = b"".join(PACKETS[:2]) + bytes(head) + bytes(0x00400000 - 16 - 100)
    records = read(pcap(frames(segments(stream, size=1400, fin=False))), chunk=1 << 16)
    (cut,) = quarantined(records)
    assert cut.reason == ENDS_INSIDE_PACKET and cut.where.size == 0x00400000 - 100
    assert balanced(records)
