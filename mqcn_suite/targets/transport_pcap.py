"""A live session's transcript as pcap records: the bytes actually exchanged, at their times.

In transport mode ``--mqcn-pcap`` writes what went over each MS-MQQB session rather than
sessions synthesized from Envelopes.  The TCP segments are rebuilt around the transcript's
chunks (a handshake before the first, each chunk in segments of at most :data:`MSS` bytes
from its side, a FIN exchange after the last); the payload bytes and the times are the real
ones.  The acceptor's port is written as 1801, the MS-MQQB port ([MS-MQQB] 2.1.1) a capture
reader looks for: on loopback the suite and its targets listen on ports the kernel chose.
"""

from __future__ import annotations

import itertools
import socket

from mqcn_model.capture.dissect import MSMQ_PORT, TCP_ACK, TCP_FIN, TCP_PSH, TCP_SYN
from mqcn_model.capture.inet import pcap_record, tcp_frame
from mqcn_suite.transport import Transcript
from mqcn_suite.transport.transcript import OUT

MSS = 1460
_numbers = itertools.count(1)


def transcript_records(transcript: Transcript, initiated: bool) -> tuple[bytes, int]:
    """The pcap records of one session (``initiated``: the local end opened it), and how many
    frames they hold."""
    entries = list(transcript.entries)
    if not entries:
        return b"", 0
    local, peer = transcript.local or ("127.0.0.1", 0), transcript.peer or ("127.0.0.1", 0)
    initiator, acceptor = (local, peer) if initiated else (peer, local)
    number = next(_numbers)
    ends = {
        True: [socket.inet_aton(initiator[0]), initiator[1], (number * 0x9E3779B1) & 0xFFFFFFFF],
        False: [socket.inet_aton(acceptor[0]), MSMQ_PORT, (number * 0x7F4A7C15) & 0xFFFFFFFF],
    }
    macs = {True: b"\x02\x00\x00\x00\x00\x01", False: b"\x02\x00\x00\x00\x00\x02"}
    out: list[bytes] = []

    def send(at: float, from_initiator: bool, flags: int, payload: bytes = b"") -> None:
        me, peer_end = ends[from_initiator], ends[not from_initiator]
        frame = tcp_frame(
            macs[from_initiator],
            macs[not from_initiator],
            me[0],
            peer_end[0],
            me[1],
            peer_end[1],
            me[2],
            peer_end[2] if flags & TCP_ACK else 0,
            flags,
            payload,
        )
        me[2] = (me[2] + len(payload) + (1 if flags & (TCP_SYN | TCP_FIN) else 0)) & 0xFFFFFFFF
        out.append(pcap_record(at, frame))

    start, end = entries[0].time, entries[-1].time
    send(start, True, TCP_SYN)
    send(start, False, TCP_SYN | TCP_ACK)
    send(start, True, TCP_ACK)
    for entry in entries:
        from_initiator = (entry.direction == OUT) == initiated
        for offset in range(0, len(entry.data), MSS):
            send(entry.time, from_initiator, TCP_ACK | TCP_PSH, entry.data[offset : offset + MSS])
    send(end, True, TCP_FIN | TCP_ACK)
    send(end, False, TCP_FIN | TCP_ACK)
    send(end, True, TCP_ACK)
    return b"".join(out), len(out)
