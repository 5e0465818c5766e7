"""pcap in: containers, link types, TCP reassembly and MS-MQQB framing of the capture reader.

Each test builds the capture it needs (tests/capture_helpers.py) and checks what
:func:`mqcn_model.capture.iter_capture` finds in it: the messages, the counts of every other
kind of frame, the provenance of each record, and the balance of every stream.
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
    balanced,
    capture_end,
    ends,
    envelope,
    epb,
    ethernet,
    frames,
    idb,
    ip_of,
    ipv6_of,
    messages,
    null_loopback,
    obsolete_pb,
    pcap,
    quarantined,
    read,
    segments,
    session_packets,
    shb,
    sll,
    sll2,
    spb,
    unknown_block,
    user_message,
    vlan,
    with_ipv4_options,
)

from mqcn_model.capture import Packet, iter_capture
from mqcn_model.capture.dissect import TCP_ACK, TCP_PSH, TCP_RST, dissect
from mqcn_model.capture.inet import MAC_A, MAC_B, tcp_frame
from mqcn_model.wire import encode_user_message, envelope_to_packet
from mqcn_model.wire.judgement import is_notification_queue

SENT = [envelope(n) for n in range(1, 4)]
STREAM = b"".join(session_packets(SENT))


def stream_frames(**options: object) -> list[Frame]:
    return frames(segments(STREAM, **options))  # type: ignore[arg-type]


def sequences(records: list) -> list[int]:
    return [m.envelope.message_id.sequence for m in messages(records)]


# --- containers --------------------------------------------------------------------------


@pytest.mark.parametrize("endian", ["<", ">"])
@pytest.mark.parametrize("nano", [False, True])
def test_pcap_in_both_byte_orders_with_micro_and_nanosecond_times(endian: str, nano: bool) -> None:
    items = [replace(f, time=T0 + i + 0.123456) for i, f in enumerate(stream_frames())]
    records = read(pcap(items, endian=endian, nano=nano))
    assert sequences(records) == [1, 2, 3] and quarantined(records) == []
    first = next(r for r in records if isinstance(r, Packet))
    assert first.where.time_first == T0 + 1 + 0.123456  # frame 2: after the SYN
    assert capture_end(records).format == "pcap"


@pytest.mark.parametrize("endian", ["<", ">"])
def test_pcapng_in_both_byte_orders_with_every_packet_block_and_unknown_blocks(
    endian: str,
) -> None:
    items = stream_frames()
    blocks = [shb(endian), idb(1, endian), unknown_block(endian)]
    for n, frame in enumerate(items):
        block = (epb, obsolete_pb, epb)[n % 3]
        blocks.append(block(frame, endian))
    blocks.append(unknown_block(endian))
    records = read(b"".join(blocks))
    assert sequences(records) == [1, 2, 3] and quarantined(records) == []
    end = capture_end(records)
    assert (end.format, end.frames) == ("pcapng", len(items))


def test_simple_packet_blocks_have_no_time() -> None:
    items = stream_frames()
    data = shb() + idb(1) + b"".join(spb(f) for f in items)
    records = read(data)
    assert sequences(records) == [1, 2, 3]
    assert {m.where.time_last for m in messages(records)} == {None}
    assert {m.envelope.arrival_time for m in messages(records)} == {0.0}


def test_pcapng_with_several_interfaces_link_types_and_time_resolutions() -> None:
    """Three interfaces: Ethernet (microseconds), raw IP (nanoseconds), Linux SLL (2**-10 s
    with an offset); one stream per interface, each read with its own link type and clock."""
    ethernet_frames = stream_frames(sport=50001)
    raw_frames = [
        replace(f, data=ip_of(f.data), length=f.length - 14, interface=1)
        for f in stream_frames(sport=50002)
    ]
    sll_frames = [
        replace(f, data=sll(f.data), length=f.length + 2, interface=2)
        for f in stream_frames(sport=50003)
    ]
    data = [shb(), idb(1), idb(101, tsresol=9), idb(113, tsresol=0x80 | 10, tsoffset=1000)]
    for a, b, c in zip(ethernet_frames, raw_frames, sll_frames, strict=True):
        data += [epb(a), epb(b, divisor=10**9), epb(c, divisor=1024, offset=1000)]
    records = read(b"".join(data))
    assert quarantined(records) == [] and balanced(records)
    by_port: dict[int, list[int]] = {}
    for message in messages(records):
        port = int(message.where.stream.split(" -> ")[0].rsplit(":", 1)[1])
        by_port.setdefault(port, []).append(message.envelope.message_id.sequence)
        # frames interleave the three streams: frame f is segment (f - 1) // 3 of its stream
        segment_time = T0 + 0.001 * ((message.where.last_frame - 1) // 3)
        assert abs(message.where.time_last - segment_time) < 1 / 1024
    assert by_port == {50001: [1, 2, 3], 50002: [1, 2, 3], 50003: [1, 2, 3]}


def test_a_new_section_resets_the_interfaces_and_may_change_byte_order() -> None:
    items = stream_frames()
    half = len(items) // 2
    first = shb("<") + idb(1, "<") + b"".join(epb(f, "<") for f in items[:half])
    raw = [replace(f, data=ip_of(f.data), length=f.length - 14) for f in items[half:]]
    second = shb(">") + idb(101, ">") + b"".join(epb(f, ">") for f in raw)
    records = read(first + second)
    assert sequences(records) == [1, 2, 3] and quarantined(records) == []


def test_a_packet_naming_an_interface_never_described_is_counted() -> None:
    items = stream_frames()
    data = shb() + idb(1) + epb(replace(items[0], interface=7)) + b"".join(map(epb, items))
    end = capture_end(read(data))
    assert end.counts["unknown-interface"] == 1


# --- link types ----------------------------------------------------------------------------


LINKS = {
    "ethernet": (1, lambda f: f, False),
    "vlan": (1, vlan, False),
    "qinq": (1, lambda f: vlan(f, tags=2), False),
    "ipv4-options": (1, with_ipv4_options, False),
    "sll": (113, sll, False),
    "sll2": (276, sll2, False),
    "raw": (101, ip_of, False),
    "ipv4": (228, ip_of, False),
    "raw-12": (12, ip_of, False),
    "null-little": (0, lambda f: null_loopback(ip_of(f)), False),
    "null-big": (0, lambda f: null_loopback(ip_of(f), big=True), False),
    "loop": (108, lambda f: null_loopback(ip_of(f), big=True), False),
    "raw-ipv6": (101, ipv6_of, True),
    "ipv6-extension": (229, lambda f: ipv6_of(f, extension=True), True),
    "null-ipv6": (0, lambda f: null_loopback(ipv6_of(f), family=30), True),
    "ethernet-ipv6": (1, lambda f: f[:12] + b"\x86\xdd" + ipv6_of(f), True),
}


@pytest.mark.parametrize("name", LINKS)
def test_every_link_type_carries_the_messages(name: str) -> None:
    link_type, rewrite, ipv6 = LINKS[name]
    items = []
    for f in stream_frames():
        data = rewrite(f.data)
        items.append(replace(f, data=data, length=len(data)))
    records = read(pcap(items, link_type=link_type))
    assert sequences(records) == [1, 2, 3]
    assert quarantined(records) == [] and balanced(records)
    stream = messages(records)[0].where.stream
    expected = "[fd00::a01:101]:49152 -> [fd00::a02:202]:1801" if ipv6 else "10.1.1.1:49152"
    assert stream.startswith(expected) and stream.endswith(":1801")


def test_ethernet_padding_is_not_read_as_stream_bytes() -> None:
    """Ethernet pads frames to 60 bytes: IP's total length, not the frame, ends the segment."""
    segs = segments(STREAM, size=3)  # 3-byte payloads: 57-byte frames, padded
    items = [
        replace(f, data=f.data + b"\xee" * (60 - len(f.data)), length=60) if len(f.data) < 60 else f
        for f in frames(segs)
    ]
    records = read(pcap(items))
    assert sequences(records) == [1, 2, 3] and balanced(records)


def test_other_traffic_is_counted_by_kind_never_dropped_unseen() -> None:
    def ip_packet(protocol: int, payload: bytes, fragment: int = 0) -> bytes:
        header = struct.pack(
            "!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, fragment, 64, protocol, 0, IP_A, IP_B
        )
        return MAC_B + MAC_A + b"\x08\x00" + header + payload

    udp = struct.pack("!HHHH", 5000, 53, 12, 0) + b"dns?"
    ping = struct.pack("!HHHH", 5000, 3527, 32, 0) + bytes(24)
    other = [
        tcp_frame(MAC_A, MAC_B, IP_A, IP_B, 40000, 80, 1, 0, TCP_ACK | TCP_PSH, b"GET /"),
        ip_packet(17, udp),
        ip_packet(17, ping),
        ip_packet(1, b"\x08\x00\x00\x00icmp"),
        ip_packet(6, bytes(20), fragment=0x2000),  # MF set
        ip_packet(6, bytes(20), fragment=0x0010),  # offset 128
        MAC_B + MAC_A + b"\x08\x06" + bytes(28),  # ARP
        MAC_B + MAC_A + b"\x00\x26" + bytes(38),  # 802.3 LLC
        MAC_B
        + MAC_A
        + b"\x86\xdd"
        + ipv6_of(ethernet(Seg(1, b"x")))[:40].replace(b"\x06\x40", b"\x2c\x40", 1)
        + bytes(8),
        b"\x01\x02",
    ]
    items = stream_frames() + [Frame(T0 + 5, d, len(d)) for d in other]
    end = capture_end(read(pcap(items)))
    assert end.counts == {
        "tcp-1801": len(stream_frames()),
        "tcp-other": 1,
        "udp": 1,
        "udp-msmq-ping": 1,
        "ip-other": 1,
        "ipv4-fragment": 2,
        "non-ip": 2,
        "ipv6-fragment": 1,
        "headers-cut": 1,
    }
    assert end.frames == sum(end.counts.values())


def test_an_unknown_link_type_is_counted() -> None:
    end = capture_end(read(pcap(stream_frames(), link_type=147)))
    assert end.counts == {"link-unknown": len(stream_frames())}


def test_an_ip_length_beyond_the_frame_is_malformed_not_a_snaplen_cut() -> None:
    frame = ethernet(Seg(2000, b"abcdef"))
    lying = frame[:16] + struct.pack("!H", 500) + frame[18:]
    assert dissect(1, lying, len(lying)) == "malformed"
    cut = dissect(1, lying, 600)  # the frame had 600 bytes: a snaplen cut explains it
    assert cut.missing == 500 - (len(lying) - 14)  # type: ignore[union-attr]


# --- reassembly ------------------------------------------------------------------------------


def test_out_of_order_and_retransmitted_segments_give_the_same_messages() -> None:
    segs = segments(STREAM, size=100)
    body = segs[1:-1]
    shuffled = [segs[0]]
    for i in range(0, len(body) - 1, 2):  # swap neighbours: every other segment early
        shuffled += [body[i + 1], body[i]]
    if len(body) % 2:
        shuffled.append(body[-1])
    shuffled += [body[3], body[5], replace(body[7], payload=body[7].payload[:50])]  # repeats
    overlap = Seg(body[10].seq + 50, body[10].payload[50:] + body[11].payload[:30])
    shuffled.insert(len(shuffled) // 2, overlap)
    shuffled.append(segs[-1])
    records = read(pcap(frames(shuffled)))
    assert sequences(records) == [1, 2, 3] and quarantined(records) == []
    (end,) = ends(records)
    assert end.bytes == len(STREAM) and end.lost_bytes == 0
    assert end.retransmitted_bytes == 100 + 100 + 50
    assert end.out_of_order_segments >= len(body) // 2
    assert balanced(records)


def test_a_message_from_out_of_order_segments_has_the_time_of_the_frame_that_completed_it() -> None:
    """Its last bytes come first (frame 4), the bytes before them later (frame 5): the message
    is complete with frame 5, so that is its capture time, not frame 4's."""
    wire = user_message(envelope(1))
    segs = segments(wire, size=120)  # SYN, 120, 120, the rest, FIN
    assert len(segs) == 5
    swapped = [segs[0], segs[1], segs[3], segs[2], segs[4]]
    swapped = [replace(s, time=T0 + i) for i, s in enumerate(swapped)]  # capture order
    (message,) = messages(read(pcap(frames(swapped))))
    assert message.where.frames == (2, 3, 4)
    assert message.where.time_last == T0 + 3 == message.envelope.arrival_time
    assert message.where.time_first == T0 + 1


def test_a_stream_whose_sequence_numbers_wrap_reads_the_same() -> None:
    records = read(pcap(frames(segments(STREAM, size=200, isn=2**32 - 700))))
    assert sequences(records) == [1, 2, 3] and quarantined(records) == []
    assert ends(records)[0].bytes == len(STREAM)


def test_a_message_spanning_segments_names_all_its_frames_and_times() -> None:
    records = read(pcap(stream_frames(size=100)))
    first = messages(records)[0]
    start = len(STREAM) - sum(len(user_message(e)) for e in SENT)
    assert first.where.offset == start
    assert first.where.frames == tuple(
        range(2 + start // 100, 2 + (start + first.where.size - 1) // 100 + 1)
    )
    assert first.where.time_first < first.where.time_last == first.envelope.arrival_time
    assert first.where.capture == "test.pcap"
    assert first.where.stream == "10.1.1.1:49152 -> 10.2.2.2:1801"


def test_both_directions_and_several_connections_are_kept_apart() -> None:
    forward = frames(segments(STREAM, size=300))
    answer = session_packets([])[:1]  # an acceptor's stream: just an EstablishConnection
    backward = frames(segments(answer[0], sport=1801, dport=49152, size=300), src=IP_B, dst=IP_A)
    other = frames(segments(STREAM, size=500, sport=50000))
    items = [x for pair in zip(forward, backward + other, strict=False) for x in pair]
    items += forward[len(backward + other) :] + (backward + other)[len(forward) :]
    records = read(pcap(items))
    assert sorted(sequences(records)) == [1, 1, 2, 2, 3, 3]
    assert len(ends(records)) == 3 and balanced(records) and quarantined(records) == []


def test_a_reset_ends_both_directions_at_once() -> None:
    segs = segments(STREAM, fin=False)
    reset = Seg(segs[-1].seq + len(segs[-1].payload), b"", TCP_RST | TCP_ACK)
    records = read(pcap(frames([*segs, reset])))
    assert sequences(records) == [1, 2, 3]
    assert [e.ended_by for e in ends(records)] == ["rst"]


def test_a_stream_that_never_ends_is_closed_at_the_end_of_the_capture() -> None:
    records = read(pcap(frames(segments(STREAM, fin=False))))
    assert sequences(records) == [1, 2, 3]
    assert [e.ended_by for e in ends(records)] == ["capture-end"]


def test_a_stream_silent_for_longer_than_the_idle_timeout_is_ended() -> None:
    items = frames(segments(STREAM, fin=False))
    other = frames(segments(STREAM, sport=50000))
    later = [replace(f, time=T0 + 1000 + i) for i, f in enumerate(other)]
    records = read(pcap(items + later), idle_timeout=60)
    assert ends(records)[0].ended_by == "idle"


def test_late_repeats_of_an_ended_stream_are_counted_not_a_new_stream() -> None:
    segs = segments(STREAM)
    records = read(pcap(frames([*segs, segs[2]])))
    assert len(ends(records)) == 1
    assert capture_end(records).counts["tcp-1801-after-end"] == 1


def test_data_on_a_syn_is_part_of_the_stream() -> None:
    segs = segments(STREAM)
    syn_with_data = replace(segs[0], payload=segs[1].payload)
    records = read(pcap(frames([syn_with_data, *segs[2:]])))
    assert sequences(records) == [1, 2, 3] and balanced(records)


# --- what is a message ---------------------------------------------------------------------


def test_only_user_messages_to_a_notification_queue_are_messages() -> None:
    other_queue = envelope(
        7, destination_format_name=f"PRIVATE={envelope(1).destination_format_name[8:-2]}\\1a"
    )
    stream = b"".join(session_packets([envelope(1), other_queue, envelope(2)]))
    records = read(pcap(frames(segments(stream))))
    assert sequences(records) == [1, 2]
    notes = [r.note for r in records if isinstance(r, Packet) and r.kind == "UserMessage"]
    assert len(notes) == 1 and notes[0].endswith("\\1a: not a notification queue")


def test_the_notification_queue_by_private_id_or_by_direct_path() -> None:
    qm = "0f2c1e3a-1111-4222-8333-444455556666"
    assert is_notification_queue(f"PRIVATE={qm}\\3", qm)
    assert not is_notification_queue(f"PRIVATE={qm}\\3", "9a8b7c6d-1234-4567-89ab-cdef01234567")
    assert is_notification_queue("DIRECT=TCP:10.0.0.1\\PRIVATE$\\Notify_Queue$", qm)
    assert not is_notification_queue("DIRECT=TCP:10.0.0.1\\private$\\orders", qm)
    assert not is_notification_queue(f"PUBLIC={qm}", qm)


def test_a_framed_packet_the_codec_refuses_is_a_packet_with_its_wire_violation() -> None:
    broken = bytearray(user_message(envelope(2)))
    # UserHeader.Flags.DQ 2: no queue layout has that code, the destination cannot be read
    broken[16 + 44 + 1] = (broken[16 + 44 + 1] & ~0x1C) | (2 << 2)
    stream = b"".join(session_packets([envelope(1)])) + bytes(broken) + user_message(envelope(3))
    records = read(pcap(frames(segments(stream))))
    refused = [r for r in records if isinstance(r, Packet) and r.violation is not None]
    assert len(refused) == 1 and refused[0].packet is None
    assert refused[0].violation.requirement == "MQMQ-2.2.19.2-3"
    assert sequences(records) == [1, 3] and balanced(records)


def test_a_framed_packet_breaking_a_value_rule_is_a_message_with_its_finding() -> None:
    """A structurally sound UserMessage to the notification queue is a Message whatever
    wire value rule it breaks: the finding rides on it (here UserHeader.Flags.AH, which
    only a receiver sets, 2.2.19.2)."""
    broken = bytearray(user_message(envelope(2)))
    broken[16 + 44 + 3] |= 0x02
    stream = b"".join(session_packets([envelope(1)])) + bytes(broken) + user_message(envelope(3))
    records = read(pcap(frames(segments(stream))))
    assert sequences(records) == [1, 2, 3] and balanced(records)
    (message,) = [m for m in messages(records) if m.envelope.message_id.sequence == 2]
    # AH also announces the SRMP pair, which this packet reads only without (MQRR-2.2.5.1.2-1)
    assert sorted((f.requirement, f.offset) for f in message.findings) == [
        ("MQMQ-2.2.19.2-7", 63),
        ("MQRR-2.2.5.1.2-1", 63),
    ]
    assert not [r for r in records if isinstance(r, Packet) and r.violation is not None]


def test_a_message_to_the_notification_queue_is_judged_whatever_its_class() -> None:
    """Class OrderAck (0xFF) would make a packet an OrderAck; sent to the notification queue
    it is judged as a notification all the same, with what it breaks as an OrderAck (it
    does not go to the order queue, MQQB-2.2.4-3, ...) and as a notification (Class, 3.3.5.3)."""
    packet = envelope_to_packet(envelope(2))
    odd = replace(packet, properties=replace(packet.properties, message_class=0x00FF))
    stream = b"".join(session_packets([envelope(1)])) + encode_user_message(odd)
    records = read(pcap(frames(segments(stream))))
    assert sequences(records) == [1, 2] and balanced(records)
    message = messages(records)[1]
    assert message.packet.kind == "OrderAck"
    found = {f.requirement for f in message.findings}
    assert {"MQQB-2.2.4-3", "MQCN-3.3.5.3-4"} <= found


def test_iter_capture_takes_any_iterable_of_chunks_lazily() -> None:
    data = pcap(stream_frames())

    def one_byte_at_a_time():
        for i in range(len(data)):
            yield data[i : i + 1]

    records = list(iter_capture("lazy.pcap", one_byte_at_a_time()))
    assert sequences(records) == [1, 2, 3]
    assert records[-1].where.capture == "lazy.pcap"
