"""The capture reader's streams, its split read, its reader and its writer, rule by rule
(stream.py, split.py, reader.py, writer.py).
"""

from __future__ import annotations

import itertools
import uuid
from dataclasses import replace

import pytest
from capture_helpers import (
    DS,
    QM,
    T0,
    Frame,
    Seg,
    capture_end,
    ends,
    envelope,
    epb,
    ethernet,
    frames,
    idb,
    messages,
    pcap,
    read,
    segments,
    session_packets,
    shb,
    user_message,
)

from mqcn_model.capture import Lost, Packet, PcapWriter
from mqcn_model.capture.containers import ContainerReader
from mqcn_model.capture.dissect import (
    LINK_ETHERNET,
    TCP_ACK,
    TCP_FIN,
    TCP_PSH,
    TCP_SYN,
    dissect,
)
from mqcn_model.capture.reader import CaptureReader
from mqcn_model.capture.records import Where
from mqcn_model.capture.stream import StreamFramer
from mqcn_model.wire import encode_internal, encode_user_message, envelope_to_packet
from mqcn_model.wire.base import BASE_HEADER, SIGNATURE
from mqcn_model.wire.internal import EstablishConnection, establish_connection

# --- reader.py: streams, late repeats, idle sweeps ---------------------------------------------


def _ended_by(records) -> list[tuple[str, str]]:
    return [(end.where.stream, end.ended_by) for end in ends(records)]


def test_closing_a_reader_twice_hands_over_nothing_the_second_time() -> None:
    """close() ends the capture once: a second call adds no second CaptureEnd."""
    reader = CaptureReader("twice.pcap")
    reader.feed(pcap(frames([Seg(1001, b"x" * 20)])))
    first = reader.close()
    assert type(first[-1]).__name__ == "CaptureEnd"
    assert reader.close() == []


def test_a_segment_bringing_bytes_past_an_ended_stream_opens_a_new_stream() -> None:
    """Only a segment wholly inside the bytes of an ended stream is a late repeat
    (``tcp-1801-after-end``); one reaching past its end is a new stream."""
    segs = [
        Seg(1000, b"", TCP_SYN),
        Seg(1001, b"a" * 100),
        Seg(1101, b"", TCP_FIN | TCP_ACK),
        Seg(1001, b"a" * 100, time=T0 + 1),  # a repeat: late
        Seg(1031, b"a" * 50, time=T0 + 1.5),  # another
        Seg(1051, b"b" * 100, time=T0 + 2),  # bytes 50..150: 50 new ones
    ]
    records = read(pcap(frames(segs)))
    assert capture_end(records).counts["tcp-1801-after-end"] == 2
    stream = "10.1.1.1:49152 -> 10.2.2.2:1801"
    assert _ended_by(records) == [(stream, "fin"), (stream, "capture-end")]
    assert ends(records)[1].mid_session and ends(records)[1].bytes == 100


def test_iter_capture_passes_max_pending_to_the_reassembly() -> None:
    """``max_pending``: bytes kept out of order per direction before the hole is a gap."""
    segs = [Seg(1000, b"", TCP_SYN), Seg(1101, b"b" * 50), Seg(1001, b"a" * 100)]
    capture = pcap(frames(segs))
    assert [r for r in read(capture) if isinstance(r, Lost)] == []
    (lost,) = [r for r in read(capture, max_pending=10) if isinstance(r, Lost)]
    assert (lost.where.offset, lost.where.size, lost.reason) == (0, 100, "gap")


def test_a_stream_silent_exactly_the_idle_timeout_is_not_idle() -> None:
    """A stream ends ``idle`` when silent for *longer than* the idle timeout (600 s)."""
    segs = [Seg(1001, b"a" * 20), Seg(5001, b"b" * 20, time=T0 + 600, sport=49153)]
    records = read(pcap(frames(segs)))
    assert [by for _, by in _ended_by(records)] == ["capture-end", "capture-end"]
    later = [Seg(1001, b"a" * 20), Seg(5001, b"b" * 20, time=T0 + 600.001, sport=49153)]
    assert [by for _, by in _ended_by(read(pcap(frames(later))))] == ["idle", "capture-end"]


def test_idle_streams_are_looked_for_at_capture_times_before_the_epoch() -> None:
    """A pcapng interface's if_tsoffset may put frames before 1970: the idle sweep still
    runs at the first frame of each new interval."""
    offset = -10_000_000
    a, b = frames([Seg(1001, b"a" * 20, time=-5000.0), Seg(5001, b"b" * 20, sport=49153)])
    b = Frame(-4000.0, b.data, b.length)
    capture = (
        shb() + idb(LINK_ETHERNET, tsoffset=offset) + epb(a, offset=offset) + epb(b, offset=offset)
    )
    records = read(capture)
    assert [by for _, by in _ended_by(records)] == ["idle", "capture-end"]
    assert ends(records)[0].where.time_last == -5000.0


def test_idle_streams_are_looked_for_once_per_sweep_interval() -> None:
    """Idle streams are looked for at the first frame of each interval of
    max(1 s, idle_timeout / 4) only, so a split read looks at the same frames."""
    reader = CaptureReader("sweeps.pcap", idle_timeout=400.0)  # intervals of 100 s
    reader.feed(pcap(frames([Seg(1001, b"a" * 20, time=T0 + 50)])))
    reader.take()
    reader.tick(T0 + 400)  # a new interval: 350 s of silence, not idle
    reader.tick(T0 + 460)  # 410 s, but the same interval: not looked at
    reader.tick(T0 + 490)
    assert ends(reader.take()) == []
    reader.tick(T0 + 500)
    assert [end.ended_by for end in ends(reader.take())] == ["idle"]


def _segment(seg: Seg):
    found = dissect(LINK_ETHERNET, ethernet(seg), len(ethernet(seg)))
    assert not isinstance(found, str)
    return found


def test_a_bare_ack_read_by_a_range_keeps_its_stream_alive() -> None:
    """frame_segment (a split read's range): a bare ACK only tells its stream it is alive;
    one of a stream not followed opens nothing."""
    reader = CaptureReader("alive.pcap")
    reader.frame_segment(_segment(Seg(7, b"", TCP_ACK, sport=49999)), 1, T0)
    assert reader.flows == {}
    reader.frame_segment(_segment(Seg(1001, b"a" * 20)), 2, T0)
    reader.frame_segment(_segment(Seg(1021, b"", TCP_ACK)), 3, T0 + 500)
    reader.sweep(T0 + 700)  # 200 s after the ACK
    assert ends(reader.take()) == []
    reader.sweep(T0 + 1200)  # 700 s after it
    (end,) = ends(reader.take())
    assert (end.ended_by, end.where.time_last) == ("idle", T0 + 500)


def test_a_new_syn_on_the_same_ports_ends_the_stream_as_reused_a_repeated_one_does_not() -> None:
    """A SYN with another initial sequence number is a new connection on the same addresses
    and ports (``reused``); the same SYN again is a retransmission of it."""
    segs = [
        Seg(1000, b"", TCP_SYN),
        Seg(1001, b"a" * 20),
        Seg(1000, b"", TCP_SYN, time=T0 + 0.1),  # retransmitted
        Seg(1021, b"a" * 20, time=T0 + 0.2),
        Seg(9000, b"", TCP_SYN, time=T0 + 0.3),  # the ports used again
        Seg(9001, b"b" * 30, time=T0 + 0.4),
    ]
    records = read(pcap(frames(segs)))
    assert [(e.ended_by, e.bytes, e.mid_session) for e in ends(records)] == [
        ("reused", 40, False),
        ("capture-end", 30, False),
    ]
    # each stream's first frame is its SYN's: its number and its time
    assert [(e.where.frames, e.where.time_first) for e in ends(records)] == [
        ((1,), T0),
        ((5,), T0 + 0.3),
    ]


def test_the_sweep_interval_is_never_below_one_second() -> None:
    """With an idle timeout under 4 s, idle streams are looked for once a second."""
    reader = CaptureReader("fast.pcap", idle_timeout=2.0)
    reader.feed(pcap(frames([Seg(1001, b"a" * 20)])))
    reader.tick(T0 + 2.0)  # a new second: 2 s of silence, not idle
    assert ends(reader.take()) == []
    reader.tick(T0 + 3.0)  # the next second: 3 s
    assert [end.ended_by for end in ends(reader.take())] == ["idle"]


@pytest.mark.parametrize(
    ("sport", "dport", "judged"),
    [(1801, 49152, True), (49152, 1801, False), (1801, 1801, False)],
    ids=["from-acceptor", "to-acceptor", "both-1801"],
)
def test_only_a_stream_from_port_1801_is_read_as_establish_connection_responses(
    sport: int, dport: int, judged: bool
) -> None:
    """MQQB-2.2.3.1-3: a response's Padding is 0x5A bytes; a stream is the acceptor's
    (its EstablishConnection a response) when it comes from port 1801 to another port."""
    request = EstablishConnection(DS, QM, 1, padding=bytes(512))
    wire = encode_internal(establish_connection(request))
    records = read(pcap(frames(segments(wire, sport=sport, dport=dport))))
    (packet,) = [r for r in records if isinstance(r, Packet)]
    assert packet.where.stream == f"10.1.1.1:{sport} -> 10.2.2.2:{dport}"
    found = [(f.requirement, f.offset, f.message) for f in packet.packet.findings]
    said = [("MQQB-2.2.3.1-3", 60, "a response's Padding byte is not 0x5A")]
    assert found == (said if judged else [])


# --- writer.py: what the written sessions carry -------------------------------------------------


def _establish(records) -> list:
    return [
        r.packet.body for r in records if isinstance(r, Packet) and r.kind == "EstablishConnection"
    ]


def test_a_message_s_sent_time_is_the_writer_s_clock_in_whole_seconds() -> None:
    """UserHeader.SentTime ([MS-MQMQ] 2.2.19.3): the writer's clock when it writes the
    message, in seconds (the fraction dropped)."""
    writer = PcapWriter(start_time=T0 + 3.7)
    (found,) = messages(read(writer.write(envelope(1)) + writer.close()))
    assert found.packet.user.sent_time == int(T0) + 3


def test_the_request_names_the_queue_manager_of_a_private_destination() -> None:
    """[MS-MQQB] 2.2.3.1: the initiator's EstablishConnection names the receiving queue
    manager (ServerGuid) when the destination names it; the response carries the same."""
    writer = PcapWriter()
    request, answer = _establish(read(writer.write(envelope(1)) + writer.close()))
    assert (request.client_guid, request.server_guid) == (DS, QM)
    assert (answer.client_guid, answer.server_guid) == (DS, QM)


def test_a_direct_receiver_s_guid_is_the_name_based_uuid_of_its_lower_cased_name() -> None:
    """A direct destination names no queue manager: the response's ServerGuid stands for
    it, the RFC 4122 name-based UUID (URL namespace) of its name in lower case, so any case
    of the name gives the same GUID."""
    name = "OS:QM-Host\\private$\\notify_queue$"
    writer = PcapWriter()
    sent = envelope(1, destination_format_name=f"DIRECT={name}")
    request, answer = _establish(read(writer.write(sent) + writer.close()))
    assert request.server_guid == uuid.UUID(int=0)
    assert answer.server_guid == uuid.uuid5(uuid.NAMESPACE_URL, name.lower())


# --- stream.py: the framer's records ------------------------------------------------------------


def _framer(**options) -> tuple[StreamFramer, list]:
    out: list = []
    return StreamFramer("c.pcap", "a -> b", out, **options), out


def _packets() -> list[bytes]:
    return session_packets([envelope(1)])


def test_a_gap_of_one_byte_is_lost_and_a_packet_it_cuts_is_quarantined() -> None:
    """packet-cut-by-gap: the bytes of a packet the gap cuts are quarantined, said in words;
    the missing byte is a Lost record (``gap``) at its stream offset, in the frame and at the
    time the reassembly names (none when it names no frame)."""
    request = _packets()[0]
    framer, out = _framer()
    framer.data(request[:30], 4, T0)
    framer.gap(1, "gap", 5, T0 + 1)
    framer.gap(2, "gap", None, None)
    cut, lost, later = out
    assert (cut.reason, cut.detail, cut.where) == (
        "packet-cut-by-gap",
        "30 bytes of a packet, then 1 bytes the capture lacks",
        Where("c.pcap", "a -> b", 0, 30, (4,), T0, T0),
    )
    assert (lost.reason, lost.where) == (
        "gap",
        Where("c.pcap", "a -> b", 30, 1, (5,), T0 + 1, T0 + 1),
    )
    assert later.where == Where("c.pcap", "a -> b", 31, 2, (), None, None)
    assert framer.consumed == 33


def _tcp(capture: bytes) -> list[tuple[int, int, int]]:
    """(source port, TCP flags, payload size) of each frame a writer wrote."""
    reader = ContainerReader("w.pcap")
    out = []
    for frame in reader.feed(capture):
        tcp = frame.data[34:]
        out.append((int.from_bytes(tcp[:2], "big"), tcp[13], len(tcp) - (tcp[12] >> 4) * 4))
    return out


def test_a_message_s_segments_all_acknowledge_and_only_its_last_pushes() -> None:
    """A UserMessage larger than the MSS travels in 1460-byte segments: each carries ACK,
    the last one PSH too."""
    writer = PcapWriter()
    capture = writer.write(envelope(1, bytes([2, 1]) + bytes(3000))) + writer.close()
    data = [(flags, size) for port, flags, size in _tcp(capture)[7:] if port != 1801 and size]
    assert [flags for flags, _ in data] == [TCP_ACK, TCP_ACK, TCP_ACK | TCP_PSH]
    assert [size for _, size in data][:2] == [1460, 1460]


def test_a_message_of_exactly_two_segments_pushes_its_second() -> None:
    """PSH marks the segment that ends the message, also when the message fills it."""
    body = next(
        b
        for n in range(2500, 2700)
        if len(user_message(envelope(1, b := bytes([2, 1]) + bytes(n)))) == 2 * 1460
    )
    writer = PcapWriter()
    capture = writer.write(envelope(1, body)) + writer.close()
    data = [(flags, size) for port, flags, size in _tcp(capture)[7:] if port != 1801 and size]
    assert data == [(TCP_ACK, 1460), (TCP_ACK | TCP_PSH, 1460)]


def test_frames_advance_100_microseconds_and_a_message_s_segments_share_one_instant() -> None:
    """The writer's clock: each frame of a session 100 us after the one before, but the
    segments of one UserMessage all at one instant (its capture time)."""
    writer = PcapWriter()
    capture = writer.write(envelope(1, bytes([2, 1]) + bytes(2000))) + writer.close()
    reader = ContainerReader("w.pcap")
    ticks = [round(frame.time * 1e6) for frame in reader.feed(capture)]
    steps = [after - before for before, after in itertools.pairwise(ticks)]
    # the steps are counted, not summed: no drift of an ulp a step (0.24 us near 1.7e9 s)
    assert steps == [100] * 7 + [0] + [100] * 4
    assert ticks[0] == round(T0 * 1e6)


def test_the_session_ack_counts_the_messages_of_its_session() -> None:
    """[MS-MQQB] 2.2.6: the receiver's SessionAck acknowledges the UserMessages of the
    session so far (AckSequenceNumber 1, 2, 3 on one sender's session)."""
    writer = PcapWriter(session="sender")
    capture = b"".join(writer.write(envelope(n)) for n in range(3)) + writer.close()
    acks = [
        r.packet.body for r in read(capture) if isinstance(r, Packet) and r.kind == "SessionAck"
    ]
    assert [(a.ack_sequence, a.window_size) for a in acks] == [(1, 64), (2, 64), (3, 64)]


def test_one_byte_before_the_first_packet_of_a_stream_joined_midway_is_quarantined() -> None:
    """mid-session-start: a stream the capture joins in its middle skips its bytes up to the
    first whole packet; even one byte is a quarantine record, with its frame and time."""
    request, parameters = _packets()[:2]
    framer, out = _framer(mid_session=True)
    framer.data(b"\x07" + request + parameters, 3, T0)
    skipped, first, second = out
    assert (skipped.reason, skipped.where, skipped.requirement) == (
        "mid-session-start",
        Where("c.pcap", "a -> b", 0, 1, (3,), T0, T0),
        None,
    )
    assert skipped.detail == (
        "the capture holds this stream from its middle (no SYN): bytes before its first "
        "whole packet"
    )
    assert [first.kind, second.kind] == ["EstablishConnection", "ConnectionParameters"]
    assert (first.where.offset, framer.consumed) == (1, 1 + len(request) + len(parameters))


def _run(chunks: list[bytes], **options) -> list:
    """The framer's records for ``chunks`` given as frames 1, 2, ... at T0, T0 + 1, ...,
    then the stream's end."""
    framer, out = _framer(**options)
    for number, chunk in enumerate(chunks, 1):
        framer.data(chunk, number, T0 + number - 1)
    framer.finish()
    return out


def test_an_internal_packet_the_codec_refuses_is_a_packet_record_with_its_violation() -> None:
    """A BaseHeader with IN whose InternalHeader names no packet type (PT 0; [MS-MQQB] 2.2.1)
    is still a packet: its record is an ``internal packet`` with the codec's violation, and
    the stream reads on."""
    parameters = bytearray(_packets()[1])
    parameters[18:20] = b"\x00\x00"  # InternalHeader.Flags: PT 0
    refused, after = _run([bytes(parameters) + _packets()[1]])
    assert isinstance(refused, Packet) and refused.packet is None
    assert (refused.where, refused.kind) == (
        Where("c.pcap", "a -> b", 0, 32, (1,), T0, T0),
        "internal packet",
    )
    assert (refused.violation.requirement, refused.violation.offset) == ("MQQB-2.2.1-1", 18)
    assert after.kind == "ConnectionParameters" and after.where.offset == 32


def test_a_user_message_the_codec_refuses_is_a_user_message_packet_record() -> None:
    """A UserMessage whose PacketSize leaves out the headers its flags announce is refused by
    the codec; its record still names it a UserMessage, with the violation and its place."""
    message = bytearray(_packets()[2])
    message[8:12] = (64).to_bytes(4, "little")  # PacketSize 64: no room for the properties
    refused, *_ = _run([bytes(message[:64])])
    assert isinstance(refused, Packet) and refused.packet is None
    assert (refused.where, refused.kind) == (
        Where("c.pcap", "a -> b", 0, 64, (1,), T0, T0),
        "UserMessage",
    )
    assert refused.violation is not None


def test_a_packet_to_another_queue_is_a_packet_record_saying_so_an_ack_says_nothing() -> None:
    """A UserMessage to a queue that is no notification queue is a Packet record where it
    was, noted with its destination; an OrderAck (class 0xFF) there is no message to note."""
    other = f"PRIVATE={QM}\\7"
    plain = user_message(envelope(1, destination_format_name=other))
    packet = envelope_to_packet(envelope(2, destination_format_name=other))
    ack = encode_user_message(
        replace(packet, properties=replace(packet.properties, message_class=0x00FF))
    )
    first, second = _run([plain, ack])
    assert (first.kind, first.where, first.note) == (
        "UserMessage",
        Where("c.pcap", "a -> b", 0, len(plain), (1,), T0, T0),
        f"to {other}: not a notification queue",
    )
    assert (second.kind, second.note) == ("OrderAck", "")
    assert second.where == Where("c.pcap", "a -> b", len(plain), len(ack), (2,), T0 + 1, T0 + 1)


def test_bytes_after_a_gap_are_skipped_for_the_gap_and_never_called_not_msmq() -> None:
    """After missing bytes the framer skips to the next whole packet: the run says it follows
    the gap (no requirement broken), and a stream that lost bytes is never ``not-msmq`` (the
    packets may have been in what it lost)."""
    junk = b"\x07" * 40
    framer, out = _framer()
    framer.gap(1, "gap", None, None)
    framer.data(junk, 2, T0)
    framer.finish()
    lost, skipped = out
    assert lost.where.offset == 0 and lost.where.size == 1
    assert (skipped.reason, skipped.detail, skipped.requirement) == (
        "no-base-header",
        "after 1 missing bytes, bytes before the next whole packet",
        None,
    )
    assert skipped.where == Where("c.pcap", "a -> b", 1, 40, (2,), T0, T0)
    framer, out = _framer()
    framer.gap(3, "gap", None, None)
    framer.data(junk + _packets()[1], 2, T0)
    lost, skipped, parameters = out
    assert (skipped.reason, skipped.where.offset, skipped.where.size) == ("no-base-header", 3, 40)
    assert (parameters.kind, parameters.where.offset) == ("ConnectionParameters", 43)


def test_a_stream_ending_inside_a_packet_says_how_much_of_it_came() -> None:
    """stream-ends-inside-packet: the detail counts the bytes that came and the packet's."""
    request = _packets()[0]
    (cut,) = _run([request[:30], request[30:100]])
    assert (cut.reason, cut.detail) == (
        "stream-ends-inside-packet",
        f"the stream ends after 100 of the {len(request)} bytes of a packet",
    )
    assert cut.where == Where("c.pcap", "a -> b", 0, 100, (1, 2), T0, T0 + 1)


def test_every_packet_and_run_of_one_payload_is_framed_when_it_comes() -> None:
    """One segment carrying junk then packets, or several packets, yields all their records
    at once, without waiting for more bytes or the stream's end."""
    request, parameters = _packets()[:2]
    framer, out = _framer()
    framer.data(b"\x07" * 12 + request + parameters, 1, T0)
    assert [type(r).__name__ for r in out] == ["Quarantine", "Packet", "Packet"]
    assert [r.where.offset for r in out] == [0, 12, 12 + len(request)]
    framer, out = _framer()
    framer.data(parameters * 3, 1, T0)
    assert [r.where.offset for r in out] == [0, 32, 64]


def test_one_byte_left_of_a_stream_joined_midway_is_quarantined_with_its_frame() -> None:
    """The bytes the framer keeps while it looks for a BaseHeader are quarantined at the end
    with the frame and time that carried them."""
    (skipped,) = _run([b"\x07"], mid_session=True)
    assert (skipped.reason, skipped.where) == (
        "not-msmq",
        Where("c.pcap", "a -> b", 0, 1, (1,), T0, T0),
    )


def test_junk_between_packets_names_the_frames_that_carried_the_junk_alone() -> None:
    """A run of skipped bytes names the frames that carried its bytes: not the earlier frame
    that carried only the packet before it."""
    request, parameters = _packets()[:2]
    junk = b"\x07" * 12
    first, skipped, second = _run([request[:100], request[100:] + junk + parameters])
    assert first.where.frames == (1, 2) and second.where.frames == (2,)
    assert (skipped.reason, skipped.where) == (
        "no-base-header",
        Where("c.pcap", "a -> b", len(request), 12, (2,), T0 + 1, T0 + 1),
    )


def test_a_packet_after_junk_held_from_an_earlier_frame_names_only_its_own_frame() -> None:
    """The framer holds the last bytes of a run of junk (a BaseHeader may start there); the
    packet that follows in the next frame is that frame's alone."""
    parameters = _packets()[1]
    skipped, packet = _run([b"\x07" * 40, parameters])
    assert skipped.where == Where("c.pcap", "a -> b", 0, 40, (1,), T0, T0)
    assert packet.where == Where("c.pcap", "a -> b", 40, 32, (2,), T0 + 1, T0 + 1)


def test_a_packet_found_after_a_false_start_names_the_frames_of_its_bytes_alone() -> None:
    """Resynchronising, the framer waits for the whole of a candidate packet before judging
    it; when that candidate turns out false, a packet inside it is framed with the frames
    that carried its bytes, not with the later frame that completed the false one."""
    parameters = _packets()[1]
    fake = BASE_HEADER.pack(0x10, 0, 0, SIGNATURE, 200, 0)  # PacketSize 200, no headers
    junk = b"\x07" * 8
    first = junk + fake + parameters  # the false start holds the packet
    rest = b"\x07" * (8 + 200 - len(first))  # up to the false start's end
    skipped, packet, *_ = _run([first, rest])
    assert skipped.where == Where("c.pcap", "a -> b", 0, 24, (1,), T0, T0)
    assert packet.kind == "ConnectionParameters"
    assert packet.where == Where("c.pcap", "a -> b", 24, 32, (1,), T0, T0)


# --- reader.py: which side a stream is, FINs and repeats with uncaptured bytes -----------------

A_IP, B_IP = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])


def _seg(sport: int, dport: int, seq: int, flags: int, payload: bytes = b"", missing: int = 0):
    from mqcn_model.capture.dissect import Segment

    return Segment(A_IP, B_IP, sport, dport, seq, 0, flags, payload, missing)


@pytest.mark.parametrize(
    ("sport", "dport", "response"),
    [(40000, 1801, False), (1801, 40000, True), (1801, 1801, None), (40000, 40001, None)],
)
def test_a_stream_is_a_response_when_it_comes_from_port_1801_alone(
    sport: int, dport: int, response: bool | None
) -> None:
    """From port 1801 to another: the acceptor's side (responses); to 1801 from another: the
    initiator's; 1801 to 1801, or neither (a split read's flow): unknown, both read."""
    reader = CaptureReader("sides.pcap")
    reader.segment(_seg(sport, dport, 99, TCP_SYN), 1, T0)
    (direction,) = reader.flows.values()
    assert direction.response is response


def test_a_fin_counts_the_bytes_its_frame_did_not_capture() -> None:
    """A FIN segment held ahead, with 2 bytes captured and 4 not: the stream ends at 16, so
    it is not complete when the bytes up to 8 arrive, and 8..10 still fill its hole."""
    reader = CaptureReader("fin.pcap")
    reader.segment(_seg(40000, 1801, 99, TCP_SYN), 1, T0)
    reader.segment(_seg(40000, 1801, 110, TCP_FIN | TCP_ACK, b"ab", 4), 2, T0 + 1)
    reader.segment(_seg(40000, 1801, 100, TCP_ACK, b"x" * 8), 3, T0 + 2)
    assert reader.flows, "the stream ended before its FIN's bytes"
    reader.segment(_seg(40000, 1801, 108, TCP_ACK, b"yy"), 4, T0 + 3)
    records = reader.take()
    (end,) = ends(records)
    assert (end.ended_by, end.bytes) == ("fin", 16)
    assert [r.reason for r in records if isinstance(r, Lost)] == ["snaplen"]


def test_data_reaching_past_an_ended_stream_is_no_repeat() -> None:
    """After a stream of 10 bytes ended, a segment at 6 with 2 bytes captured and 4 not
    reaches byte 12: not a late repeat of the ended stream, a stream joined in its middle."""
    reader = CaptureReader("late.pcap")
    reader.segment(_seg(40000, 1801, 99, TCP_SYN), 1, T0)
    reader.segment(_seg(40000, 1801, 100, TCP_FIN | TCP_ACK, b"z" * 10), 2, T0 + 1)
    assert not reader.flows
    reader.segment(_seg(40000, 1801, 106, TCP_ACK, b"ab", 4), 3, T0 + 2)
    assert reader.counts["tcp-1801-after-end"] == 0
    (direction,) = reader.flows.values()
    assert direction.mid_session
    reader.segment(_seg(40000, 1801, 100, TCP_ACK, b"z" * 4), 4, T0 + 3)  # wholly inside
    assert reader.counts["tcp-1801-after-end"] == 0  # the new stream follows it now
