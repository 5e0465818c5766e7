"""Writing MSMQ messages as a pcap of MS-MQQB sessions, a piece at a time (pure, no I/O).

:class:`PcapWriter` turns each Envelope into what a network between two queue managers would
carry ([MS-MQQB] 2.1.1): a TCP connection from the sending queue manager (an ephemeral port)
to the receiving one (port 1801) — the three-way handshake, the EstablishConnection request
and its response, ConnectionParameters both ways, the UserMessage Packet
(:func:`mqcn_model.wire.envelope_to_packet`; split into 1460-byte segments when larger), the
receiver's SessionAck, and FIN both ways.  With ``session="message"`` every message has its
own connection; with ``session="sender"`` the connection between a sender and a receiver
stays open for all their messages and closes at :meth:`PcapWriter.close`.

Frames are Ethernet II / IPv4 / TCP with correct lengths, sequence numbers and checksums.
Addresses are plausible and stable: a queue manager's IPv4 address is ``10.a.b.c`` from its
GUID (a direct destination's from its name), its MAC address ``02:00:`` + that address.
Every session has its own 4-tuple: the n-th session between two addresses takes client port
49152 + n (the ports of a pair are reused only after 16,384 sessions of that pair), and its
own initial sequence numbers.  Writers whose captures are joined into one file (pytest-xdist
workers) are *lanes*: lane k of n takes the client ports 49152 + n·i + k and the sessions
n·i + k of the sequence-number series, so no two lanes share a 4-tuple or an initial
sequence number.
``write`` returns the bytes of the new records (the global header before the first), so a
capture of any size is written without being held: append each piece to the file.

Time: frames advance by 100 microseconds on the writer's clock (``start_time``, fixed by
default so the same messages give the same file); a message whose ``arrival_time`` is set
is captured at exactly that time (to the microsecond, or the nanosecond with
``nanosecond=True``), so reading the capture back gives the same Envelope
(:mod:`mqcn_model.capture.reader` sets ``arrival_time`` from the capture time).

>>> import uuid
>>> from mqcn_model.envelope import Envelope, MessageId
>>> qm = uuid.UUID(int=1)
>>> w = PcapWriter()
>>> piece = w.write(Envelope(b"\\x02\\x01", MessageId(uuid.UUID(int=2), 1), sender_identifier=qm,
...                          destination_format_name=f"PRIVATE={qm}\\\\3"))
>>> piece[:4].hex(), w.frames, w.messages
('d4c3b2a1', 12, 1)
>>> len(w.close()), w.frames
(0, 12)
"""

from __future__ import annotations

import hashlib
import struct
import uuid
from dataclasses import dataclass

from mqcn_model.capture.dissect import MSMQ_PORT, TCP_ACK, TCP_FIN, TCP_PSH, TCP_SYN
from mqcn_model.capture.inet import pcap_header, pcap_record, tcp_frame
from mqcn_model.envelope import Envelope
from mqcn_model.wire.common import NIL
from mqcn_model.wire.internal import (
    EstablishConnection,
    connection_parameters,
    encode_internal,
    establish_connection,
    session_ack,
)
from mqcn_model.wire.mapping import envelope_to_packet
from mqcn_model.wire.queues import parse_format_name
from mqcn_model.wire.session import DEFAULT_WINDOW_SIZE, SessionHeader
from mqcn_model.wire.usermessage import encode_user_message

DEFAULT_START_TIME = 1_704_067_200.0  # 2024-01-01T00:00:00Z
STEP = 0.0001  # seconds between two frames of a session
MSS = 1460
FIRST_PORT, LAST_PORT = 49152, 65535
SESSION_MODES = ("message", "sender")
# ConnectionParameters a Windows queue manager proposes ([MS-MQQB] 2.2.2.1 ranges)
RECOVERABLE_ACK_TIMEOUT_MS, ACK_TIMEOUT_MS, WINDOW_SIZE = 5000, 20000, DEFAULT_WINDOW_SIZE
_MSS_OPTION = struct.pack("!BBH", 2, 4, MSS)


class Unwritable(ValueError):
    """An Envelope no MS-MQQB session can carry (e.g. an XML digital signature, which travels
    over SRMP; a destination that is not one queue); nothing was written for it."""


def address_of(key: str) -> bytes:
    """A stable private IPv4 address (10.a.b.c, c in 1..254) for a queue manager GUID or a
    direct name.

    >>> ".".join(map(str, address_of("0f2c1e3a-1111-4222-8333-444455556666")))
    '10.15.44.31'
    """
    try:
        raw = uuid.UUID(key).bytes
    except ValueError:
        raw = hashlib.sha256(key.lower().encode("utf-8")).digest()
    return bytes([10, raw[0], raw[1], raw[2] % 254 + 1])


@dataclass(slots=True)
class _Side:
    ip: bytes
    mac: bytes
    port: int
    seq: int
    ip_id: int = 0


@dataclass(slots=True)
class _Session:
    initiator: _Side
    acceptor: _Side
    delivered: int = 0  # UserMessages sent on the session (for the SessionAck counters)


class PcapWriter:
    """Writes Envelopes as MS-MQQB sessions into a pcap, piece by piece (see the module doc).

    ``write(envelope)`` returns the bytes to append (raises :class:`Unwritable` and writes
    nothing for an Envelope no session can carry); ``close()`` returns the last bytes (the
    FINs of the sessions still open, or the global header of an empty capture).
    """

    def __init__(
        self,
        *,
        session: str = "message",
        start_time: float = DEFAULT_START_TIME,
        nanosecond: bool = False,
        lane: int = 0,
        lanes: int = 1,
    ) -> None:
        if session not in SESSION_MODES:
            raise ValueError(f"session is one of {SESSION_MODES}, not {session!r}")
        if not 0 <= lane < lanes:
            raise ValueError(f"lane is one of 0..{lanes - 1}, not {lane}")
        self.mode = session
        self.nanosecond = nanosecond
        self.time = start_time  # the clock (see the property)
        self.frames = 0
        self.messages = 0
        self.bytes = 0
        self._started = False
        self._sessions: dict[tuple[uuid.UUID, str], _Session] = {}
        self.lane, self.lanes = lane, lanes
        self._count = 0  # sessions opened (initial sequence numbers)
        self._pairs: dict[tuple[bytes, bytes], int] = {}  # sessions per address pair (ports)

    @property
    def time(self) -> float:
        """The writer's clock: the time last set (``start_time``, an arrival time) plus 100 us
        a step since -- the steps counted, not summed: near 1.7e9 s a float's ulp is 0.24 us,
        and adding 0.0001 seven times made 699 us."""
        return self._origin + self._steps * STEP

    @time.setter
    def time(self, value: float) -> None:
        self._origin, self._steps = value, 0

    # --- the public protocol ----------------------------------------------------------------

    def header(self) -> bytes:
        """The pcap global header, the first time it is asked for (then b"")."""
        if self._started:
            return b""
        self._started = True
        data = pcap_header(nanosecond=self.nanosecond)
        self.bytes += len(data)
        return data

    def write(self, envelope: Envelope) -> bytes:
        """The records carrying ``envelope`` (preceded by the global header the first time)."""
        try:
            destination, host = parse_format_name(envelope.destination_format_name)
            wire = encode_user_message(envelope_to_packet(envelope, sent_time=int(self.time)))
        except ValueError as exc:
            raise Unwritable(
                f"message {envelope.message_id} cannot travel on an MS-MQQB session: {exc}"
            ) from None
        acceptor_key = str(host) if host is not None else (destination.direct or "").lower()
        sender = envelope.message_id.sender
        out = [self.header()]
        session = self._sessions.get((sender, acceptor_key))
        if session is None:
            session = self._open(sender, acceptor_key, host, out)
        arrival = envelope.arrival_time or None
        if arrival is not None:
            self.time = arrival
        for start in range(0, len(wire), MSS):
            flags = TCP_ACK | (TCP_PSH if start + MSS >= len(wire) else 0)
            out.append(self._send(session, True, flags, wire[start : start + MSS], advance=False))
        self._steps += 1
        session.delivered += 1
        # no recoverable message, the window of ConnectionParameters: the other fields' defaults
        ack = SessionHeader(ack_sequence=session.delivered & 0xFFFF)
        out.append(self._send(session, False, TCP_ACK | TCP_PSH, encode_internal(session_ack(ack))))
        self.messages += 1
        if self.mode == "message":
            out.append(self._close(session))
        else:
            self._sessions[(sender, acceptor_key)] = session
        data = b"".join(out)
        self.bytes += len(data) - len(out[0])
        return data

    def write_packet(
        self, data: bytes, *, sender: uuid.UUID, acceptor: str, handshake: bool = True
    ) -> bytes:
        """The records carrying ``data`` -- one packet's bytes as a tool builds them, whatever
        they hold -- from ``sender``'s address to ``acceptor``'s on a connection of their own:
        after the MS-MQQB handshake, or (``handshake=False``) after the TCP handshake alone, as
        tools probing port 1801 send a UserMessage; then the connection is closed."""
        out = [self.header()]
        session = self._open(sender, acceptor.lower(), None, out, mqqb=handshake)
        for start in range(0, len(data), MSS):
            flags = TCP_ACK | (TCP_PSH if start + MSS >= len(data) else 0)
            out.append(self._send(session, True, flags, data[start : start + MSS], advance=False))
        self._steps += 1
        out.append(self._close(session))
        self.messages += 1
        written = b"".join(out)
        self.bytes += len(written) - len(out[0])
        return written

    def close(self) -> bytes:
        """Close every session still open (``session="sender"``); the last bytes to write."""
        out = [self.header()]
        for session in self._sessions.values():
            out.append(self._close(session))
        self._sessions.clear()
        data = b"".join(out)
        self.bytes += len(data) - len(out[0])
        return data

    # --- sessions ---------------------------------------------------------------------------

    def _open(
        self,
        sender: uuid.UUID,
        acceptor_key: str,
        host: uuid.UUID | None,
        out: list[bytes],
        *,
        mqqb: bool = True,
    ) -> _Session:
        """Handshake, EstablishConnection and ConnectionParameters both ways (``mqqb``; else
        the TCP handshake alone).

        ``host`` is the receiving queue manager when the destination names it; for a direct
        destination the request carries the null GUID and the response a GUID standing for
        the receiver (derived from its name), as [MS-MQQB] 2.2.3.1 has the acceptor answer."""
        number = self._count * self.lanes + self.lane
        self._count += 1
        initiator_ip, acceptor_ip = address_of(str(sender)), address_of(acceptor_key)
        pair = self._pairs.get((initiator_ip, acceptor_ip), 0)
        self._pairs[(initiator_ip, acceptor_ip)] = pair + 1
        port = FIRST_PORT + (pair * self.lanes + self.lane) % (LAST_PORT - FIRST_PORT + 1)
        session = _Session(
            _Side(initiator_ip, b"\x02\x00" + initiator_ip, port, _isn(number, 0)),
            _Side(acceptor_ip, b"\x02\x00" + acceptor_ip, MSMQ_PORT, _isn(number, 1)),
        )
        out.append(self._send(session, True, TCP_SYN, b"", options=_MSS_OPTION, syn=True))
        out.append(
            self._send(session, False, TCP_SYN | TCP_ACK, b"", options=_MSS_OPTION, syn=True)
        )
        out.append(self._send(session, True, TCP_ACK, b""))
        if not mqqb:
            return session
        stamp = int(self.time * 1000) & 0xFFFFFFFF
        receiver = host if host is not None else uuid.uuid5(uuid.NAMESPACE_URL, acceptor_key)
        request = EstablishConnection(sender, host if host is not None else NIL, stamp)
        answer = EstablishConnection(sender, receiver, stamp)
        data = TCP_ACK | TCP_PSH
        out.append(self._send(session, True, data, encode_internal(establish_connection(request))))
        out.append(self._send(session, False, data, encode_internal(establish_connection(answer))))
        parameters = encode_internal(
            connection_parameters(RECOVERABLE_ACK_TIMEOUT_MS, ACK_TIMEOUT_MS, WINDOW_SIZE)
        )
        out.append(self._send(session, True, data, parameters))
        out.append(self._send(session, False, data, parameters))
        return session

    def _close(self, session: _Session) -> bytes:
        return b"".join(
            (
                self._send(session, True, TCP_FIN | TCP_ACK, b"", syn=True),
                self._send(session, False, TCP_FIN | TCP_ACK, b"", syn=True),
                self._send(session, True, TCP_ACK, b""),
            )
        )

    def _send(
        self,
        session: _Session,
        from_initiator: bool,
        flags: int,
        payload: bytes,
        *,
        options: bytes = b"",
        syn: bool = False,
        advance: bool = True,
    ) -> bytes:
        """One frame from one side to the other; ``syn``: SYN and FIN take a sequence number."""
        me, peer = (
            (session.initiator, session.acceptor)
            if from_initiator
            else (session.acceptor, session.initiator)
        )
        ack = peer.seq if flags & TCP_ACK else 0
        frame = tcp_frame(
            me.mac,
            peer.mac,
            me.ip,
            peer.ip,
            me.port,
            peer.port,
            me.seq,
            ack,
            flags,
            payload,
            ip_id=me.ip_id,
            options=options,
        )
        me.seq = (me.seq + len(payload) + (1 if syn else 0)) & 0xFFFFFFFF
        me.ip_id = (me.ip_id + 1) & 0xFFFF
        self.frames += 1
        record = pcap_record(self.time, frame, nanosecond=self.nanosecond)
        if advance:
            self._steps += 1
        return record


def _isn(number: int, side: int) -> int:
    """A deterministic, well-spread initial sequence number (some near 2**32, to wrap)."""
    return (number * 2 + side) * 0x9E3779B1 & 0xFFFFFFFF
