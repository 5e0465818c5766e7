"""Builders for the capture tests: MS-MQQB byte streams, TCP frames, pcap and pcapng files.

Each test states its capture in a few lines: the packets of a stream (:func:`session_packets`),
cut into TCP segments (:func:`segments`), perturbed as the test needs (reordered, repeated,
dropped, cut by a snaplen), framed for a link type (:func:`link_frame`) and put in a file
(:func:`pcap`, :func:`pcapng`).  Summing the records of a read (:func:`accounting`) checks
the balance of every stream.
"""

from __future__ import annotations

import struct
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace

from mqcn_model.capture import (
    CaptureEnd,
    Lost,
    Message,
    Packet,
    Quarantine,
    Record,
    StreamEnd,
    iter_capture,
)
from mqcn_model.capture.dissect import TCP_ACK, TCP_FIN, TCP_PSH, TCP_RST, TCP_SYN
from mqcn_model.capture.inet import MAC_A, MAC_B, tcp_frame
from mqcn_model.constants import AuthLevel, SenderIdType
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.wire import encode_internal, encode_user_message, envelope_to_packet
from mqcn_model.wire.internal import (
    EstablishConnection,
    connection_parameters,
    establish_connection,
)

QM = uuid.UUID("0f2c1e3a-1111-4222-8333-444455556666")
DS = uuid.UUID("9a8b7c6d-1234-4567-89ab-cdef01234567")
IP_A, IP_B = bytes([10, 1, 1, 1]), bytes([10, 2, 2, 2])
T0 = 1_704_067_200.0


def envelope(n: int, body: bytes | None = None, **changes: object) -> Envelope:
    """The n-th conforming-looking notification from DS to QM's notification queue."""
    base = Envelope(
        body=body if body is not None else bytes([2, 1]) + n.to_bytes(4, "little") * 10,
        message_id=MessageId(DS, n),
        sender_identifier=DS,
        sender_identifier_type=SenderIdType.QueueManagerIdentifier,
        authentication_level=AuthLevel.Sig20,
        destination_format_name=f"PRIVATE={QM}\\3",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def user_message(env: Envelope) -> bytes:
    return encode_user_message(envelope_to_packet(env))


def session_packets(envelopes: Iterable[Envelope]) -> list[bytes]:
    """The initiator's side of a session: EstablishConnection, ConnectionParameters, messages."""
    request = encode_internal(establish_connection(EstablishConnection(DS, QM, 1)))
    parameters = encode_internal(connection_parameters(5000, 20000, 64))
    return [request, parameters, *(user_message(e) for e in envelopes)]


@dataclass(frozen=True)
class Seg:
    """A TCP segment of the A -> B direction, before it is framed."""

    seq: int
    payload: bytes
    flags: int = TCP_ACK | TCP_PSH
    time: float = T0
    cut: int = 0  # bytes of the frame's end a snaplen removed
    sport: int = 49152
    dport: int = 1801


def segments(
    data: bytes,
    *,
    size: int = 1000,
    isn: int = 1000,
    syn: bool = True,
    fin: bool = True,
    sport: int = 49152,
    dport: int = 1801,
) -> list[Seg]:
    """``data`` as one direction's segments of ``size`` bytes (a SYN first, a FIN last)."""
    out: list[Seg] = []
    seq = isn
    if syn:
        out.append(Seg(seq, b"", TCP_SYN, sport=sport, dport=dport))
        seq += 1
    for start in range(0, len(data), size):
        piece = data[start : start + size]
        out.append(Seg(seq & 0xFFFFFFFF, piece, sport=sport, dport=dport))
        seq += len(piece)
    if fin:
        out.append(Seg(seq & 0xFFFFFFFF, b"", TCP_FIN | TCP_ACK, sport=sport, dport=dport))
    return [replace(s, time=T0 + i * 0.001) for i, s in enumerate(out)]


def ethernet(seg: Seg, src: bytes = IP_A, dst: bytes = IP_B) -> bytes:
    return tcp_frame(
        MAC_A, MAC_B, src, dst, seg.sport, seg.dport, seg.seq, 0, seg.flags, seg.payload
    )


@dataclass(frozen=True)
class Frame:
    time: float | None
    data: bytes
    length: int
    interface: int = 0


def frames(segs: Iterable[Seg], src: bytes = IP_A, dst: bytes = IP_B) -> list[Frame]:
    """Ethernet frames of ``segs`` (a cut segment keeps its original length)."""
    out = []
    for seg in segs:
        data = ethernet(seg, src, dst)
        out.append(Frame(seg.time, data[: len(data) - seg.cut], len(data)))
    return out


def pcap(
    items: Iterable[Frame],
    *,
    link_type: int = 1,
    endian: str = "<",
    nano: bool = False,
    snaplen: int = 65535,
) -> bytes:
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = [struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, link_type)]
    divisor = 10**9 if nano else 10**6
    for frame in items:
        ticks = round((frame.time or 0.0) * divisor)
        seconds, fraction = divmod(ticks, divisor)
        out.append(struct.pack(endian + "IIII", seconds, fraction, len(frame.data), frame.length))
        out.append(frame.data)
    return b"".join(out)


def _block(endian: str, kind: int, body: bytes) -> bytes:
    body += bytes(-len(body) % 4)
    length = len(body) + 12
    return struct.pack(endian + "II", kind, length) + body + struct.pack(endian + "I", length)


def option(endian: str, code: int, value: bytes) -> bytes:
    return struct.pack(endian + "HH", code, len(value)) + value + bytes(-len(value) % 4)


def shb(endian: str = "<") -> bytes:
    body = struct.pack(endian + "IHHq", 0x1A2B3C4D, 1, 0, -1)
    return _block(endian, 0x0A0D0D0A, body)


def idb(
    link_type: int, endian: str = "<", *, tsresol: int | None = None, tsoffset: int = 0
) -> bytes:
    body = struct.pack(endian + "HHI", link_type, 0, 0)
    if tsresol is not None:
        body += option(endian, 9, bytes([tsresol]))
    if tsoffset:
        body += option(endian, 14, struct.pack(endian + "q", tsoffset))
    if tsresol is not None or tsoffset:
        body += option(endian, 0, b"")
    return _block(endian, 1, body)


def epb(frame: Frame, endian: str = "<", divisor: int = 10**6, offset: int = 0) -> bytes:
    ticks = round(((frame.time or 0.0) - offset) * divisor)
    body = struct.pack(
        endian + "IIIII",
        frame.interface,
        ticks >> 32,
        ticks & 0xFFFFFFFF,
        len(frame.data),
        frame.length,
    )
    return _block(endian, 6, body + frame.data)


def obsolete_pb(frame: Frame, endian: str = "<", divisor: int = 10**6) -> bytes:
    ticks = round((frame.time or 0.0) * divisor)
    body = struct.pack(
        endian + "HHIIII",
        frame.interface,
        0,
        ticks >> 32,
        ticks & 0xFFFFFFFF,
        len(frame.data),
        frame.length,
    )
    return _block(endian, 2, body + frame.data)


def spb(frame: Frame, endian: str = "<") -> bytes:
    return _block(endian, 3, struct.pack(endian + "I", frame.length) + frame.data)


def unknown_block(endian: str = "<") -> bytes:
    return _block(endian, 0x0BAD, b"custom block the reader must skip")


def pcapng(items: Iterable[Frame], link_type: int = 1, endian: str = "<") -> bytes:
    return shb(endian) + idb(link_type, endian) + b"".join(epb(f, endian) for f in items)


# --- link types: an Ethernet/IPv4 frame rewritten for another link ----------------------------


def ip_of(ethernet_frame: bytes) -> bytes:
    return ethernet_frame[14:]


def ipv6_of(ethernet_frame: bytes, *, extension: bool = False) -> bytes:
    """The same TCP segment over IPv6 (addresses fd00::<IPv4>), optionally behind a
    destination-options extension header."""
    ip = ethernet_frame[14:]
    header = (ip[0] & 0x0F) * 4
    tcp = ip[header:]
    src = bytes.fromhex("fd00") + bytes(10) + ip[12:16]
    dst = bytes.fromhex("fd00") + bytes(10) + ip[16:20]
    next_header, extra = 6, b""
    if extension:
        next_header, extra = 60, bytes([6, 0]) + bytes([1, 4, 0, 0, 0, 0])
    fixed = struct.pack("!IHBB", 6 << 28, len(extra) + len(tcp), next_header, 64)
    return fixed + src + dst + extra + tcp


def with_ipv4_options(ethernet_frame: bytes) -> bytes:
    """The frame with 4 bytes of IPv4 options (NOPs); lengths fixed, checksum not needed."""
    ip = ethernet_frame[14:]
    total = struct.unpack("!H", ip[2:4])[0] + 4
    header = bytes([0x46, ip[1]]) + struct.pack("!H", total) + ip[4:20] + b"\x01\x01\x01\x01"
    return ethernet_frame[:14] + header + ip[20:]


def vlan(ethernet_frame: bytes, tags: int = 1) -> bytes:
    tag = b"\x81\x00\x00\x64"
    return ethernet_frame[:12] + tag * tags + ethernet_frame[12:]


def sll(ethernet_frame: bytes) -> bytes:
    return struct.pack("!HHH8sH", 0, 1, 6, MAC_A + b"\x00\x00", 0x0800) + ethernet_frame[14:]


def sll2(ethernet_frame: bytes) -> bytes:
    return (
        struct.pack("!HHIHBB8s", 0x0800, 0, 1, 1, 0, 6, MAC_A + b"\x00\x00") + (ethernet_frame[14:])
    )


def null_loopback(ip: bytes, *, big: bool = False, family: int = 2) -> bytes:
    return family.to_bytes(4, "big" if big else "little") + ip


# --- reading -----------------------------------------------------------------------------------


def read(capture: bytes, chunk: int = 997, **options: object) -> list[Record]:
    """Every record of ``capture``, fed in chunks of ``chunk`` bytes."""
    pieces = [capture[i : i + chunk] for i in range(0, len(capture), chunk)]
    return list(iter_capture("test.pcap", pieces, **options))  # type: ignore[arg-type]


def messages(records: Iterable[Record]) -> list[Message]:
    return [r for r in records if isinstance(r, Message)]


def quarantined(records: Iterable[Record]) -> list[Quarantine]:
    return [r for r in records if isinstance(r, Quarantine)]


def ends(records: Iterable[Record]) -> list[StreamEnd]:
    return [r for r in records if isinstance(r, StreamEnd)]


def capture_end(records: list[Record]) -> CaptureEnd:
    last = records[-1]
    assert isinstance(last, CaptureEnd)
    return last


def accounting(records: list[Record]) -> list[tuple[str, int, int]]:
    """Per stream, in order: (name, bytes its StreamEnd states, bytes its Message, Packet,
    Quarantine and Lost records add up to); each StreamEnd's own counters must match its
    records.  Records of a stream come before its StreamEnd, so a reused name starts afresh."""
    summed: dict[str, Counter[str]] = defaultdict(Counter)
    out = []
    for record in records:
        if isinstance(record, Message | Packet):
            summed[record.where.stream]["packet"] += record.where.size
        elif isinstance(record, Quarantine) and record.where.stream:
            summed[record.where.stream]["quarantined"] += record.where.size
        elif isinstance(record, Lost):
            summed[record.where.stream]["lost"] += record.where.size
        elif isinstance(record, StreamEnd):
            mine = summed.pop(record.where.stream, Counter())
            assert (record.packet_bytes, record.quarantined_bytes, record.lost_bytes) == (
                mine["packet"],
                mine["quarantined"],
                mine["lost"],
            ), record
            out.append((record.where.stream, record.bytes, sum(mine.values())))
    assert not summed, f"records of streams that never ended: {sorted(summed)}"
    return out


def balanced(records: list[Record]) -> bool:
    return all(stated == added for _, stated, added in accounting(records))


# --- a busy capture: sessions interleaved across the whole file -------------------------------


def client_session(n: int, *, size: int, mid_session: bool = False) -> list[Seg]:
    """Session ``n`` (its own client port), initiator side, with a retransmission and two
    segments swapped; ``mid_session``: its first segments are not in the capture."""
    data = b"".join(session_packets(envelope(100 * n + i) for i in range(12)))
    sport = 40000 + n
    seq = 5000 * n
    out = [] if mid_session else [Seg(seq, b"", TCP_SYN, sport=sport)]
    seq += 1
    for start in range(0, len(data), size):
        piece = data[start : start + size]
        out.append(Seg(seq & 0xFFFFFFFF, piece, sport=sport))
        seq += len(piece)
    out.append(Seg(seq & 0xFFFFFFFF, b"", TCP_FIN | TCP_ACK, sport=sport))
    if mid_session:
        out = out[3:]
    out.insert(5, out[3])  # a retransmission
    out[6], out[7] = out[7], out[6]  # out of order
    return out


def busy_frames(sessions: int = 6, *, pause_after: int | None = None) -> list[Frame]:
    """Sessions interleaved frame by frame so that each runs across the whole file (hence
    across every split point); one starts mid-session, one is reset, and the acceptor
    answers one with data.  ``pause_after``: a 1000 s silence after that many frames."""
    per = [
        frames(client_session(n, size=150 + 37 * n, mid_session=n == 2)) for n in range(sessions)
    ]
    reply = [Seg(9000, b"", TCP_SYN, sport=1801, dport=40001)]
    reply += [Seg(9001, b"not an msmq packet, sent back", sport=1801, dport=40001)]
    per.append(frames(reply, src=IP_B, dst=IP_A))
    if sessions > 3:
        per[3] = per[3][:-4] + frames([Seg(777, b"", TCP_RST, sport=40003)])
    out: list[Frame] = []
    while any(per):
        for items in per:
            if items:
                out.append(items.pop(0))
    timed = []
    for i, frame in enumerate(out):
        late = 1000.0 if pause_after is not None and i >= pause_after else 0.0
        timed.append(replace(frame, time=T0 + i * 0.01 + late))
    return timed
