"""pcap out: MS-MQQB sessions written by :class:`mqcn_model.capture.PcapWriter`.

The round trip runs over what the suite really puts on a network: the Envelopes the model's
client emits (every product profile, both versions, every operation) and the body of every
named defect.  Written and read back they give exactly the same (Envelope, body) pairs in
order, with nothing quarantined and every stream balanced.  The frames are checked without
Wireshark: lengths, sequence and acknowledgment numbers, and both checksums, recomputed here
with a separate implementation.
"""

from __future__ import annotations

import hashlib
import struct
import uuid
from dataclasses import replace

import pytest
from capture_helpers import (
    DS,
    QM,
    T0,
    accounting,
    balanced,
    capture_end,
    ends,
    envelope,
    messages,
    quarantined,
    read,
)

from mqcn_model.adm import Queue, QueueManager
from mqcn_model.capture import Packet, PcapWriter, Unwritable
from mqcn_model.capture.containers import ContainerReader
from mqcn_model.capture.dissect import MSMQ_PORT, TCP_ACK, TCP_FIN, TCP_SYN
from mqcn_model.capture.writer import (
    DEFAULT_START_TIME,
    FIRST_PORT,
    LAST_PORT,
    MSS,
    STEP,
    address_of,
)
from mqcn_model.client import NotificationClient
from mqcn_model.constants import AuthLevel, Operation
from mqcn_model.envelope import Envelope
from mqcn_model.profiles import PROFILES
from mqcn_suite.scenarios.defects import every_defect
from mqcn_suite.scenarios.fixtures import IDS

_OPERATIONS = {
    1: [Operation.QueueDeletion],
    2: [
        Operation.QueueCreation,
        Operation.QueueUpdate,
        Operation.QueueDeletion,
        Operation.QueueManagerUpdate,
    ],
}


def client_envelopes() -> list[Envelope]:
    """What the reference client sends: every profile, version and operation."""
    out = []
    for index, name in enumerate(sorted(PROFILES)):
        profile = PROFILES[name]
        for version in (1, 2):
            if not profile.accepts(version):
                continue
            client = NotificationClient(
                uuid.UUID(int=index + 1), version=version, profile=profile, first_sequence=index
            )
            for operation in _OPERATIONS[version]:
                subject = (
                    QueueManager(QM)
                    if operation is Operation.QueueManagerUpdate
                    else Queue(uuid.UUID(int=0x1000 + index))
                )
                out.append(client.send_change_notification(operation, subject, owner=QM))
    return out


def defect_envelopes() -> list[Envelope]:
    return [envelope(n, defect.build(IDS)) for n, defect in enumerate(every_defect(), 1)]


def written(envelopes: list[Envelope], **options: object) -> bytes:
    writer = PcapWriter(**options)  # type: ignore[arg-type]
    return b"".join(writer.write(e) for e in envelopes) + writer.close()


def timed(envelopes: list[Envelope]) -> list[Envelope]:
    """The envelopes with arrival times (a quarter second apart: exact in binary)."""
    return [replace(e, arrival_time=T0 + 0.25 * n) for n, e in enumerate(envelopes)]


@pytest.mark.parametrize("session", ["message", "sender"])
def test_client_and_defect_messages_round_trip_exactly(session: str) -> None:
    sig20 = [e for e in client_envelopes() if e.authentication_level is AuthLevel.Sig20]
    sent = timed(sig20 + defect_envelopes())
    assert len(sig20) >= 10 and len(sent) >= 90
    records = read(written(sent, session=session))
    assert [(m.envelope, m.body) for m in messages(records)] == [(e, e.body) for e in sent]
    assert quarantined(records) == []
    assert balanced(records)
    assert capture_end(records).counts == {"tcp-1801": capture_end(records).frames}


def test_a_sender_signing_msmq_1_0_signatures_reads_back_with_signed_as() -> None:
    sig10 = [e for e in client_envelopes() if e.authentication_level is AuthLevel.Sig10]
    assert sig10, "some product profile sends MSMQ 1.0 signatures"
    sent = timed(sig10)
    records = read(written(sent), signed_as=AuthLevel.Sig10)
    assert [m.envelope for m in messages(records)] == sent
    as_sig20 = [m.envelope.authentication_level for m in messages(read(written(sent)))]
    assert set(as_sig20) == {AuthLevel.Sig20}  # the wire does not say which (errata W-05)


def test_without_an_arrival_time_a_message_arrives_at_its_capture_time() -> None:
    sent = [envelope(n) for n in range(3)]
    found = messages(read(written(sent, start_time=T0)))
    assert [m.envelope.with_(arrival_time=0.0) for m in found] == sent
    times = [m.envelope.arrival_time for m in found]
    assert times == sorted(times) and T0 < times[0] < T0 + 1
    assert all(m.where.time_last == m.envelope.arrival_time for m in found)


def test_each_message_has_its_own_session_or_one_per_sender() -> None:
    sent = [envelope(n) for n in range(5)]
    per_message = read(written(sent))
    per_sender = read(written(sent, session="sender"))
    kinds = [r.kind for r in per_message if isinstance(r, Packet)]
    assert kinds.count("EstablishConnection") == 10 and kinds.count("SessionAck") == 5
    assert kinds.count("ConnectionParameters") == 10
    assert len(ends(per_message)) == 10 and len(ends(per_sender)) == 2
    kinds = [r.kind for r in per_sender if isinstance(r, Packet)]
    assert kinds.count("EstablishConnection") == 2 and kinds.count("SessionAck") == 5
    assert all(e.ended_by == "fin" and not e.mid_session for e in ends(per_sender))


def test_a_large_message_is_split_into_segments_and_reassembled() -> None:
    big = envelope(1, bytes([2, 1]) + bytes(range(256)) * 40)
    records = read(written([big]))
    (found,) = messages(records)
    assert found.body == big.body and len(found.where.frames) == -(-found.where.size // MSS)
    assert balanced(records)


def test_an_envelope_no_session_can_carry_is_refused_and_nothing_is_written() -> None:
    writer = PcapWriter()
    first = writer.write(envelope(1))
    frames = writer.frames
    for bad in (
        envelope(2, authentication_level=AuthLevel.XMLDSig),
        envelope(3, destination_format_name="PRIVATE=not-a-guid\\3"),
    ):
        with pytest.raises(Unwritable, match="cannot travel on an MS-MQQB session"):
            writer.write(bad)
    assert writer.frames == frames and writer.messages == 1
    rest = writer.write(envelope(4)) + writer.close()
    assert [m.envelope.message_id.sequence for m in messages(read(first + rest))] == [1, 4]


def test_an_empty_capture_is_a_valid_pcap_with_no_frame() -> None:
    writer = PcapWriter()
    data = writer.close()
    assert len(data) == writer.bytes == 24
    records = read(data)
    assert capture_end(records).format == "pcap" and capture_end(records).frames == 0
    assert quarantined(records) == []


def test_addresses_come_from_the_queue_manager_guids() -> None:
    records = read(written([envelope(1)]))
    (found,) = messages(records)
    sender = ".".join(map(str, address_of(str(DS))))
    receiver = ".".join(map(str, address_of(str(QM))))
    assert found.where.stream == f"{sender}:49152 -> {receiver}:{MSMQ_PORT}"
    assert address_of(str(DS))[0] == 10 and 1 <= address_of(str(DS))[3] <= 254


# --- Wireshark-independent sanity of every frame -------------------------------------------


def _sum16(data: bytes) -> int:
    """RFC 1071 over ``data``, written independently of mqcn_model.capture.inet."""
    if len(data) % 2:
        data += b"\0"
    total = 0
    for (word,) in struct.iter_unpack("!H", data):
        total += word
        total = (total & 0xFFFF) + (total >> 16)
    return total


def _records(capture: bytes) -> list[tuple[float, bytes]]:
    """The written capture's frames as a reader sees them: (time, bytes) each."""
    reader = ContainerReader("x")
    records = [(f.time, f.data) for f in reader.feed(capture)]  # type: ignore[union-attr]
    assert reader.close() == []
    return records  # type: ignore[return-value]


def _frames(capture: bytes) -> list[bytes]:
    return [data for _, data in _records(capture)]


@pytest.mark.parametrize("session", ["message", "sender"])
def test_every_frame_has_valid_lengths_checksums_and_sequence_numbers(session: str) -> None:
    sent = [envelope(n, bytes([2, 1]) + bytes(40 + 1000 * (n % 3))) for n in range(6)]
    capture = written(sent, session=session)
    magic, major, minor, _, _, snaplen, link = struct.unpack("<IHHiIII", capture[:24])
    assert (magic, major, minor, link) == (0xA1B2C3D4, 2, 4, 1) and snaplen >= 1514
    expected: dict[tuple[bytes, int], int] = {}  # next sequence number per sender
    for frame in _frames(capture):
        assert len(frame) <= 1514 and frame[12:14] == b"\x08\x00"
        ip = frame[14:]
        total = struct.unpack("!H", ip[2:4])[0]
        assert ip[0] == 0x45 and total == len(ip)
        assert _sum16(ip[:20]) == 0xFFFF, "IPv4 header checksum"
        tcp = ip[20:]
        pseudo = ip[12:20] + struct.pack("!BBH", 0, 6, len(tcp))
        assert _sum16(pseudo + tcp) == 0xFFFF, "TCP checksum"
        sport, dport, seq, ack, offset, flags = struct.unpack("!HHIIBB", tcp[:14])
        payload = tcp[(offset >> 4) * 4 :]
        assert MSMQ_PORT in (sport, dport)
        me, peer = (ip[12:16], sport), (ip[16:20], dport)
        if flags & TCP_SYN:
            expected[me] = seq
        assert seq == expected[me], "each segment follows the previous one"
        expected[me] = (seq + len(payload) + (1 if flags & (TCP_SYN | TCP_FIN) else 0)) % 2**32
        if flags & TCP_ACK:
            assert ack == expected[peer], "acknowledges every byte the peer sent"


def test_frames_are_also_valid_for_scapy() -> None:
    from scapy.layers.inet import IP, TCP
    from scapy.layers.l2 import Ether

    for raw in _frames(written([envelope(1)]))[:9]:
        packet = Ether(raw)
        rebuilt = Ether(raw)
        del rebuilt[IP].chksum, rebuilt[TCP].chksum
        rebuilt = Ether(bytes(rebuilt))
        assert (packet[IP].chksum, packet[TCP].chksum) == (rebuilt[IP].chksum, rebuilt[TCP].chksum)


def test_a_capture_written_in_pieces_balances_stream_by_stream() -> None:
    records = read(written([envelope(n) for n in range(20)]), chunk=64)
    streams = accounting(records)
    assert len(streams) == 40 and all(stated == added > 0 for _, stated, added in streams)


def test_nanosecond_captures_keep_the_arrival_time_to_the_nanosecond() -> None:
    sent = [replace(envelope(1), arrival_time=T0 + 0.123456789)]
    (found,) = messages(read(written(sent, nanosecond=True)))
    assert abs(found.envelope.arrival_time - sent[0].arrival_time) < 1e-6
    assert found.envelope.with_(arrival_time=0.0) == sent[0].with_(arrival_time=0.0)


def test_a_direct_destination_gets_a_session_to_an_address_from_its_name() -> None:
    direct = "DIRECT=OS:qm-host\\private$\\notify_queue$"
    sent = timed([envelope(1, destination_format_name=direct)])
    records = read(written(sent))
    assert [m.envelope for m in messages(records)] == sent
    request, answer = (
        r.packet.body for r in records if isinstance(r, Packet) and r.kind == "EstablishConnection"
    )
    assert request.server_guid == uuid.UUID(int=0)  # a direct name: the acceptor is not known
    assert answer.server_guid != uuid.UUID(int=0) and answer.padding == b"\x5a" * 512
    receiver = ".".join(map(str, address_of("os:qm-host\\private$\\notify_queue$")))
    assert messages(records)[0].where.stream.endswith(f"-> {receiver}:1801")


# --- one 4-tuple and one pair of initial sequence numbers per session -----------------------


def _syns(capture: bytes) -> list[tuple[tuple[bytes, int, bytes, int], int]]:
    """(4-tuple, initial sequence number) of every SYN (and SYN-ACK) of a capture."""
    out = []
    for frame in _frames(capture):
        ip, tcp = frame[14:34], frame[34:]
        sport, dport, seq, _, _, flags = struct.unpack("!HHIIBB", tcp[:14])
        if flags & TCP_SYN:
            out.append(((ip[12:16], sport, ip[16:20], dport), seq))
    return out


def test_sessions_between_the_same_addresses_take_the_next_port() -> None:
    other = uuid.UUID(int=0x77)  # another sender: its own address pair, its own ports
    sent = [envelope(n) for n in range(3)] + [
        envelope(9, message_id=replace(envelope(9).message_id, sender=other))
    ]
    ports = [four[1] for four, _ in _syns(written(sent)) if four[3] == MSMQ_PORT]
    assert ports == [49152, 49153, 49154, 49152]


@pytest.mark.parametrize("lanes", [2, 3, 7])
def test_lanes_joined_into_one_file_never_share_a_session(lanes: int) -> None:
    """pytest-xdist workers write the same kind of traffic on separate writers; joined, each
    session is still its own TCP conversation with its own initial sequence numbers."""
    sent = [envelope(n) for n in range(40)]
    syns = [s for lane in range(lanes) for s in _syns(written(sent, lane=lane, lanes=lanes))]
    assert len(syns) == 2 * 40 * lanes
    opened = [four for four, _ in syns if four[3] == MSMQ_PORT]
    assert len(set(opened)) == len(opened)  # a 4-tuple per session across all lanes
    assert len({seq for _, seq in syns}) == len(syns)  # an ISN per side of each session


def test_a_lane_outside_the_lanes_is_refused() -> None:
    with pytest.raises(ValueError, match=r"lane is one of 0\.\.1, not 2"):
        PcapWriter(lane=2, lanes=2)


def test_a_session_is_written_side_by_side_as_mqqb_2_1_1_orders_it() -> None:
    """One message, its own session, between two queue managers: who sends each frame, its
    flags, options, IP id, acknowledgment and packet, in [MS-MQQB] 2.1.1's order; the
    EstablishConnection request and response carry the same TimeStamp (the writer's clock in
    ms); the SessionAck acknowledges the one message; the writer counts every byte."""
    from mqcn_model.envelope import MessageId
    from mqcn_model.wire.packet import decode_packet

    sender = uuid.UUID("11223344-0000-4000-8000-000000000001")
    receiver = uuid.UUID("55667788-0000-4000-8000-000000000002")
    sent = Envelope(
        b"\x02\x01",
        MessageId(sender, 1),
        sender_identifier=sender,
        destination_format_name=f"PRIVATE={receiver}\\3",
    )
    writer = PcapWriter()
    capture = writer.write(sent) + writer.close()
    assert writer.bytes == len(capture) and writer.messages == 1
    client, server = address_of(str(sender)), address_of(str(receiver))
    seen, ids, stamps = [], {client: [], server: []}, []
    for time, frame in _records(capture):
        ip, tcp = frame[14:34], frame[34:]
        source, target = ip[12:16], ip[16:20]
        assert frame[6:12] == b"\x02\x00" + source and frame[:6] == b"\x02\x00" + target
        ids[source].append(struct.unpack("!H", ip[4:6])[0])
        sport, dport, _, ack, offset, flags = struct.unpack("!HHIIBB", tcp[:14])
        assert (sport == MSMQ_PORT) is (source == server) and (dport == MSMQ_PORT) is (
            target == server
        )
        options, payload = tcp[20 : (offset >> 4) * 4], tcp[(offset >> 4) * 4 :]
        if not flags & TCP_ACK:
            assert ack == 0
        kind = ""
        if payload:
            packet, _ = decode_packet(payload, response=source == server and not seen[4:])
            kind = packet.kind
            if kind == "EstablishConnection":
                stamps.append((packet.body.timestamp, int(time * 1000) & 0xFFFFFFFF))
            if kind == "SessionAck":
                counts = packet.body
                assert (counts.ack_sequence, counts.user_sequence) == (1, 0)
                assert (counts.recoverable_ack_sequence, counts.window_size) == (0, 64)
        seen.append(("server" if source == server else "client", flags, options.hex(), kind))
    psh = TCP_ACK | 0x08
    assert seen == [
        ("client", TCP_SYN, "020405b4", ""),
        ("server", TCP_SYN | TCP_ACK, "020405b4", ""),
        ("client", TCP_ACK, "", ""),
        ("client", psh, "", "EstablishConnection"),
        ("server", psh, "", "EstablishConnection"),
        ("client", psh, "", "ConnectionParameters"),
        ("server", psh, "", "ConnectionParameters"),
        ("client", psh, "", "UserMessage"),
        ("server", psh, "", "SessionAck"),
        ("client", TCP_FIN | TCP_ACK, "", ""),
        ("server", TCP_FIN | TCP_ACK, "", ""),
        ("client", TCP_ACK, "", ""),
    ]
    assert ids == {client: list(range(7)), server: list(range(5))}
    (request, first_time), (answer, _) = stamps
    assert request == answer == first_time


# --- the writer's own arithmetic: addresses, defaults, ports, ISNs, counters ----------------


def test_an_address_is_10_and_three_bytes_of_the_guid_or_of_the_lowercase_name_hash() -> None:
    """A GUID gives its first three bytes (the last one mapped into 1..254: never the network
    or broadcast address); a direct name the first three bytes of SHA-256 of its lowercase
    UTF-8 (so OS:QM-Host and os:qm-host are one host)."""
    assert address_of("QM-Host") == address_of("qm-host") == bytes([10, 0x22, 0x3D, 155])
    digest = hashlib.sha256("hôte".encode()).digest()  # UTF-8, not Latin-1
    assert address_of("Hôte") == bytes([10, digest[0], digest[1], digest[2] % 254 + 1])
    lasts = {
        last: address_of(str(uuid.UUID(bytes=bytes([1, 2, last]) + bytes(13))))
        for last in (0, 253, 254, 255)
    }
    assert lasts == {
        0: bytes([10, 1, 2, 1]),
        253: bytes([10, 1, 2, 254]),
        254: bytes([10, 1, 2, 1]),
        255: bytes([10, 1, 2, 2]),
    }


def test_the_writer_refuses_an_unknown_session_mode_or_a_lane_below_zero_in_words() -> None:
    with pytest.raises(ValueError) as bad_mode:
        PcapWriter(session="connection")
    assert str(bad_mode.value) == "session is one of ('message', 'sender'), not 'connection'"
    with pytest.raises(ValueError) as bad_lane:
        PcapWriter(lane=-1)
    assert str(bad_lane.value) == "lane is one of 0..0, not -1"
    assert PcapWriter(lane=1, lanes=2).lane == 1  # the last lane is a lane


def test_by_default_a_writer_starts_at_2024_in_microseconds_one_session_per_message() -> None:
    writer = PcapWriter()
    capture = writer.write(envelope(1)) + writer.write(envelope(2)) + writer.close()
    assert capture[:4] == bytes.fromhex("d4c3b2a1")  # microsecond pcap, little-endian
    times = [time for time, _ in _records(capture)]
    assert times[0] == DEFAULT_START_TIME and times[1] == pytest.approx(DEFAULT_START_TIME + STEP)
    assert len(_syns(capture)) == 4 and writer.lanes == 1 and writer.lane == 0


def test_a_lane_takes_every_lanes_th_port_and_session_number() -> None:
    """Lane 1 of 3: client ports 49152 + 3i + 1, initial sequence numbers of sessions 3i + 1."""
    capture = written([envelope(n) for n in range(3)], lane=1, lanes=3)
    syns = _syns(capture)
    assert [four[1] for four, _ in syns if four[3] == MSMQ_PORT] == [49153, 49156, 49159]
    # session n's are (2n) and (2n + 1) times 0x9E3779B1, modulo 2**32
    isns = [0x3C6EF362, 0xDAA66D13, 0xF1BBCD88, 0x8FF34739, 0xA708A7AE, 0x4540215F]
    assert [seq for _, seq in syns] == isns
    assert [seq for _, seq in _syns(written([envelope(1)]))] == [0, 0x9E3779B1]


def test_after_16384_sessions_of_one_pair_its_ports_start_again() -> None:
    writer = PcapWriter()
    first = writer.write(envelope(1))
    pair = next(iter(writer._pairs))
    writer._pairs[pair] = LAST_PORT - FIRST_PORT  # the pair's 16,384th session comes next
    last = writer.write(envelope(2))
    again = writer.write(envelope(3))
    ports = [four[1] for four, _ in _syns(first + last + again) if four[3] == MSMQ_PORT]
    assert ports == [49152, 65535, 49152]


def test_in_one_session_the_session_ack_counts_every_message_and_wraps_at_16_bits() -> None:
    """[MS-MQQB] 2.2.2.2: AckSequenceNumber is the 16-bit count of the messages received; the
    IP id of each side wraps at 16 bits too; the writer's byte count is every byte it returned."""
    writer = PcapWriter(session="sender")
    capture = writer.write(envelope(1)) + writer.write(envelope(2))
    (session,) = writer._sessions.values()
    session.delivered = 0xFFFF - 1
    session.initiator.ip_id = 0xFFFF
    capture += writer.write(envelope(3)) + writer.write(envelope(4)) + writer.close()
    assert writer.bytes == len(capture) and writer.messages == 4
    acks = [p.body.ack_sequence for p in _packets(capture) if p.kind == "SessionAck"]
    assert acks == [1, 2, 0xFFFF, 0]
    client = address_of(str(DS))
    ids = [struct.unpack("!H", f[18:20])[0] for f in _frames(capture) if f[26:30] == client]
    assert ids[-4:] == [0xFFFF, 0, 1, 2]  # message 3, message 4, then FIN and the last ACK


def _packets(capture: bytes) -> list[object]:
    """The MSMQ packets of a written capture, in order, as the capture reader decodes them."""
    return [r.packet for r in read(capture) if isinstance(r, Packet)]


def test_a_public_queue_is_unwritable_for_want_of_its_queue_manager() -> None:
    """PUBLIC=<guid> names no host, and the UserMessage needs the destination queue manager
    the name does not give: the writer refuses it, saying so, and writes nothing."""
    writer = PcapWriter()
    public = envelope(1, destination_format_name=f"PUBLIC={uuid.UUID(int=3)}")
    with pytest.raises(Unwritable) as refused:
        writer.write(public)
    assert str(refused.value).endswith(
        "cannot travel on an MS-MQQB session: a PUBLIC= destination needs destination_qm"
    )
    assert (writer.frames, writer.bytes, writer.close()[:4]) == (0, 0, bytes.fromhex("d4c3b2a1"))
