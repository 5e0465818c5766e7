"""The capture reader's fast paths read exactly what the general paths read (issue 22).

The reader takes shortcuts for the common frames (docs/capture.md, "Performance"): a bare
ACK only tells its stream it is alive, in-order data goes straight to the framer, and a
payload is framed in place when the framer holds nothing.  These tests pin what the
shortcuts must keep: the idle timeout, the streams a bare ACK may (not) open, and the same
packets, offsets, frames and balances whatever the segment sizes.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from capture_helpers import (
    T0,
    Seg,
    balanced,
    capture_end,
    ends,
    envelope,
    frames,
    messages,
    pcap,
    quarantined,
    read,
    segments,
    session_packets,
)

from mqcn_model.capture import Message, Packet
from mqcn_model.capture.dissect import TCP_ACK

SENT = [envelope(n) for n in range(1, 4)]
STREAM = b"".join(session_packets(SENT))


def _quiet_stream(with_acks: bool) -> list:
    """A stream silent for 1000 s in its middle (bare ACKs every 50 s, or none), while
    another connection talks at 900 s (the reader looks for idle streams as time passes)."""
    segs = segments(STREAM, size=300)
    half = len(segs) // 2
    acks = [Seg(segs[half].seq, b"", TCP_ACK, time=T0 + 25 + 50 * i) for i in range(20)]
    rest = [replace(s, time=T0 + 1001 + i) for i, s in enumerate(segs[half:])]
    other = [replace(s, time=T0 + 900 + i) for i, s in enumerate(segments(STREAM, sport=50000))]
    return read(
        pcap(frames([*segs[:half], *(acks if with_acks else []), *other, *rest])), idle_timeout=60
    )


def test_bare_acks_keep_a_stream_alive_past_the_idle_timeout() -> None:
    records = _quiet_stream(with_acks=True)
    assert [e.ended_by for e in ends(records)] == ["fin", "fin"]
    assert sorted(m.envelope.message_id.sequence for m in messages(records)) == [1, 1, 2, 2, 3, 3]
    assert balanced(records) and quarantined(records) == []


def test_without_the_acks_the_same_silence_ends_the_stream() -> None:
    records = _quiet_stream(with_acks=False)
    assert [e.ended_by for e in ends(records)] == ["idle", "fin", "fin"]  # the rest: anew


def test_a_bare_ack_of_a_stream_not_followed_opens_none_and_is_counted() -> None:
    records = read(pcap(frames([Seg(5000, b"", TCP_ACK)])))
    assert ends(records) == [] and capture_end(records).counts == {"tcp-1801": 1}


def _packets(records: list) -> list[tuple[str, int, int]]:
    return [
        (r.kind if isinstance(r, Packet) else "Message", r.where.offset, r.where.size)
        for r in records
        if isinstance(r, Packet | Message)
    ]


@pytest.mark.parametrize("size", [1, 7, 37, 250, 1000, len(STREAM)])
def test_every_cut_of_the_stream_frames_the_same_packets(size: int) -> None:
    whole = read(pcap(frames(segments(STREAM, size=len(STREAM)))))
    records = read(pcap(frames(segments(STREAM, size=size))), chunk=size * 3 + 1)
    assert _packets(records) == _packets(whole) and len(_packets(whole)) == 5
    assert balanced(records) and quarantined(records) == []
    for message in messages(records):  # the frames that carried each packet, in order
        first = 2 + message.where.offset // size
        last = 2 + (message.where.offset + message.where.size - 1) // size
        assert message.where.frames == tuple(range(first, last + 1))
    (end,) = ends(records)
    assert end.bytes == end.packet_bytes == len(STREAM)
