"""One MS-MQQB session ([MS-MQQB] 3.1) as an explicit state machine, for either role, sans-IO.

Style: ``effects = machine.handle(event)``.  The driver feeds every event (bytes in, a timer
expired, the user sends or closes) and carries out the effects in order (write bytes, start
or stop a timer, hand a message up, close the socket) -- see :mod:`mqcn_model.mqqb.events`.
Time is injected: ``clock()`` (seconds) stamps the EstablishConnection request and measures
its round trip; the timers run outside (the driver on real time, tests on a virtual clock).

The handshake (3.1.1.7.1, ping-less)::

    initiator                                   acceptor
    IDLE --Connected--> EstablishConnection -->  WAITING_EC_MSG
    WAITING_ECR_MSG  <-- EstablishConnection --  (response)      --> WAITING_CP_MSG
    ConnectionParameters ------------------->   (request)
    WAITING_CPR_MSG  <-- ConnectionParameters -- (response)      --> OPEN
    OPEN

Then both sides may send UserMessage Packets.  Each direction numbers them 1, 2, 3...
(3.1.1.4); the receiver acknowledges with a SessionAck whose AckSequenceNumber is the count
it received; a sender keeps at most the peer's window unacknowledged and holds the rest.

Anything the peer sends that cannot be read, or out of turn, is a :class:`ProtocolError`
effect naming the wire requirement, followed by :class:`SessionClosed`: the machine never
raises for the peer's bytes.  A packet that reads but breaks value rules is *not* refused:
each of its findings is a :class:`SessionFinding` (the requirement, the byte), as is every
rule the session survives -- a response that does not echo its request, a SessionHeader
acknowledging a message never sent, a SessionAck in another form than the peer said it
writes (W-01).  After ``SessionClosed`` every event is ignored.

>>> import uuid
>>> from mqcn_model.mqqb.events import Connected, DataReceived, SendBytes, SessionEstablished
>>> a = SessionMachine(Role.INITIATOR, SessionConfig(uuid.UUID(int=1)))
>>> b = SessionMachine(Role.ACCEPTOR, SessionConfig(uuid.UUID(int=2)))
>>> def wire(effects): return b"".join(e.data for e in effects if isinstance(e, SendBytes))
>>> out = wire(a.handle(Connected())); _ = b.handle(Connected())
>>> out = wire(a.handle(DataReceived(wire(b.handle(DataReceived(out))))))
>>> done = a.handle(DataReceived(wire(b.handle(DataReceived(out)))))
>>> a.state, b.state, [e.peer_qm.int for e in done if isinstance(e, SessionEstablished)]
(<State.OPEN: 'OPEN'>, <State.OPEN: 'OPEN'>, [2])
"""

from __future__ import annotations

import enum
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.envelope import Envelope
from mqcn_model.errors import DecodeError
from mqcn_model.mqqb import events as E
from mqcn_model.wire.common import NIL
from mqcn_model.wire.framing import (
    LETTER_SESSION_ACK_SIZE,
    NEED_MORE,
    NOT_BASE_HEADER,
    next_frame,
)
from mqcn_model.wire.internal import (
    OS_SE,
    PT_CONNECTION_PARAMETERS,
    PT_ESTABLISH_CONNECTION,
    R_PACKET_SIZE,
    RECOVERABLE_ACK_TIMEOUT_RANGE,
    ConnectionParameters,
    EstablishConnection,
    InternalPacket,
    connection_parameters,
    encode_internal,
    establish_connection,
    session_ack,
)
from mqcn_model.wire.mapping import envelope_to_packet
from mqcn_model.wire.packet import decode_packet
from mqcn_model.wire.session import SessionHeader
from mqcn_model.wire.usermessage import UserMessage, decode_user_message, encode_user_message

R_WINDOW = req("MQQB-3.1.1.3.1-1")
R_SEQUENCE = req("MQQB-3.1.1.4-1")
R_SIGNATURE = req("MQQB-3.1.5.1.2-1")
R_FORMAT = req("MQQB-3.1.5.1.3-1")
R_EC_STATE = req("MQQB-3.1.5.3-1")
R_EC_RESPONSE = req("MQQB-3.1.5.3.1-1")
R_EC_VALID = req("MQQB-3.1.5.3.2-1")
R_RTT = req("MQQB-3.1.5.3.2-2")
R_CP_STATE = req("MQQB-3.1.5.4-1")
R_CP_RESPONSE = req("MQQB-3.1.5.4.1-1")
R_ACK_STATE = req("MQQB-3.1.5.5-1")
R_COUNTS = req("MQQB-3.1.5.5.5-1")
R_USER_STATE = req("MQQB-3.1.5.8-1")
R_ACK_WAIT = req("MQQB-3.1.6.3-1")
R_ACKED_SENT = req("MQMQ-2.2.20.4-2")
R_RECOVERABLE_ACKED_SENT = req("MQMQ-2.2.20.4-3")

MOD = 0x10000  # session counts are 16-bit
RECOVERABLE = 1  # UserHeader.Flags.DM: 1 recoverable, 0 express


class Role(enum.Enum):
    INITIATOR = "initiator"  # opens the connection and speaks first
    ACCEPTOR = "acceptor"  # accepts the connection (a queue manager's port 1801)


class State(enum.Enum):
    """SessionState ([MS-MQQB] 3.1.1.3.1), plus IDLE before the connection is up."""

    IDLE = "IDLE"
    WAITING_EC_MSG = "WAITING_EC_MSG"
    WAITING_ECR_MSG = "WAITING_ECR_MSG"
    WAITING_CP_MSG = "WAITING_CP_MSG"
    WAITING_CPR_MSG = "WAITING_CPR_MSG"
    OPEN = "OPEN"
    CLOSED = "CLOSED"


@dataclass(frozen=True, slots=True)
class SessionConfig:
    """The local queue manager's side of a session (durations in seconds unless ``_ms``).

    ``remote_qm``: the initiator's ServerGuid (NIL: a direct format name, any acceptor).
    ``window_size``: WindowSize (3.1.3.2 suggests 64).  ``ack_timeout_ms``: AckWaitTimeout the
    initiator proposes (2.2.2.1 range 20000..120000).  ``ack_wait_multiple``: the ack wait
    timer is this many AckWaitTimeouts (3.1.2.4).  ``ack_send_delay``: how long a receiver
    batches acknowledgments of express messages (recoverable ones wait at most the agreed
    RecoverableAckTimeout).  ``initialization_timeout`` and ``cleanup_timeout``: the
    durations the spec leaves to configuration (3.1.2.1, 3.1.2.2).
    """

    qm_guid: uuid.UUID
    remote_qm: uuid.UUID = NIL
    window_size: int = 64
    ack_timeout_ms: int = 20000
    ack_wait_multiple: int = 1
    ack_send_delay: float = 0.5
    initialization_timeout: float = 30.0
    cleanup_timeout: float = 120.0
    # the other queue managers this one answers as (an acceptor playing several, as the
    # suite's does for a scenario): an EstablishConnection naming one is accepted as itself
    answers_as: frozenset[uuid.UUID] = frozenset()
    # an acceptor that takes every session, answering as whichever queue manager the request
    # names (`mqcn listen`: an auditor refuses no traffic)
    answers_any: bool = False
    # errata W-01: our SessionAcks' PacketSize counts their SessionHeader (36, as Windows
    # writes it) or, the letter of [MS-MQMQ] 2.2.19.1, does not (20); both are read.  With
    # the letter (the peer said it follows it), a 36 from the peer is a finding.
    letter_session_ack: bool = False


class SessionMachine:
    """The state machine of one MS-MQQB session (see the module docstring)."""

    def __init__(
        self,
        role: Role,
        config: SessionConfig,
        clock: Callable[[], float] = lambda: 0.0,
    ) -> None:
        self.role, self.config, self.clock = role, config, clock
        self.state = State.IDLE
        self.peer_qm: uuid.UUID | None = None
        # 3.1.3.2: every count starts at 0
        self.sent = 0  # MessageSentCount
        self.recoverable_sent = 0
        self.recoverable_sent_ever = 0  # the same, not wrapped at 16 bits
        self.received = 0  # MessageReceivedCount
        self.recoverable_received = 0
        self.unacked_received = 0  # UnackedReceivedMsgCount
        self.recoverable_unacked: list[int] = []  # recoverable numbers received, not yet acked
        self.peer_acked = 0  # the peer's last AckSequenceNumber in range (its received count)
        self.awaiting: deque[int] = deque()  # our sequence numbers awaiting acknowledgment
        self.held: deque[tuple[int, bytes]] = deque()  # queued: window full or not yet OPEN
        self.assigned = 0  # sequence numbers handed out (sent + held)
        self.peer_window = 0  # ReceivedWindowSize (0: unbounded)
        self.ack_timeout_ms = config.ack_timeout_ms
        self.recoverable_ack_timeout_ms = RECOVERABLE_ACK_TIMEOUT_RANGE[0]
        self.session_active = False
        self.received_ack = False
        self.timers: set[str] = set()
        self._buffer = bytearray()
        self._request = EstablishConnection(config.qm_guid)  # ours, once we sent it

    # --- the one entry point ----------------------------------------------------------------

    def handle(self, event: E.Event) -> list[E.Effect]:
        """Process ``event``; return the effects, in the order the driver must apply them.

        Raises only for the caller's own mistakes: an unknown event, ``Connected`` twice, an
        Envelope no UserMessage Packet can carry (ValueError from the mapping)."""
        if self.state is State.CLOSED:
            return []
        out: list[E.Effect] = []
        if isinstance(event, E.DataReceived):
            self._receive(event.data, out)
        elif isinstance(event, E.TimerFired):
            if event.name in self.timers:
                self.timers.discard(event.name)
                self._timer(event.name, out)
        elif isinstance(event, E.SendUserMessage):
            self._submit(event.message, out)
        elif isinstance(event, E.Connected):
            self._connected(out)
        elif isinstance(event, E.PeerClosed):
            self._peer_closed(out)
        elif isinstance(event, E.Close):
            self._close(event.reason, out)
        else:
            raise TypeError(f"not a session event: {event!r}")
        return out

    @property
    def buffered(self) -> int:
        """Bytes of an unfinished packet waiting for the rest."""
        return len(self._buffer)

    @property
    def expected(self) -> int:
        """Bytes the unfinished packet needs in all (0 when nothing is buffered)."""
        return next_frame(bytes(self._buffer)).size if self._buffer else 0

    # --- connection and handshake -----------------------------------------------------------

    def _connected(self, out: list[E.Effect]) -> None:
        if self.state is not State.IDLE:
            raise RuntimeError("Connected twice")
        self._start(E.CLEANUP, self.config.cleanup_timeout, out)  # 3.1.3.2
        if self.role is Role.ACCEPTOR:  # 3.1.5.10
            self.state = State.WAITING_EC_MSG
            self._start(E.INITIALIZATION, self.config.initialization_timeout, out)
            return
        stamp = int(self.clock() * 1000) & 0xFFFFFFFF  # 3.1.5.2.3
        request = EstablishConnection(self.config.qm_guid, self.config.remote_qm, stamp)
        self._request = request
        self._write(encode_internal(establish_connection(request)), "EstablishConnection", out)
        self.state = State.WAITING_ECR_MSG
        self._start(E.INITIALIZATION, self.config.initialization_timeout, out)

    def _establish(self, packet: InternalPacket, data: bytes, out: list[E.Effect]) -> None:
        body = packet.body
        assert isinstance(body, EstablishConnection)
        if self.state is State.WAITING_EC_MSG:  # 3.1.5.3.1: a request, we are the acceptor
            self.peer_qm = body.client_guid
            named = body.server_guid
            played = self.config.answers_any or named in self.config.answers_as
            refused = named not in (NIL, self.config.qm_guid) and not played
            answer = EstablishConnection(
                body.client_guid,
                named if played and named != NIL else self.config.qm_guid,
                body.timestamp,
                body.operating_system,
            )
            wire = encode_internal(establish_connection(answer, refused=refused))
            self._write(wire, "EstablishConnection", out)
            self.state = State.WAITING_CP_MSG
            self._start(E.INITIALIZATION, self.config.initialization_timeout, out)
            return
        # 3.1.5.3.2: a response, we are the initiator
        wrong = []
        if body.client_guid != self.config.qm_guid:
            wrong.append(f"ClientGuid is {body.client_guid}, not ours ({self.config.qm_guid})")
        if self.config.remote_qm != NIL and body.server_guid != self.config.remote_qm:
            wrong.append(f"ServerGuid is {body.server_guid}, not {self.config.remote_qm}")
        if packet.internal.refused:
            wrong.append("Flags.CS is set: the acceptor refused the connection")
        if wrong:
            self._error("; ".join(wrong), data, R_EC_VALID, out)
            return
        self.peer_qm = body.server_guid
        echoes = []  # 3.1.5.3.1: the response carries the request's TimeStamp and SE bit
        stamp = self._request.timestamp
        if body.timestamp != stamp:
            echoes.append(f"TimeStamp is {body.timestamp}, not the request's {stamp}")
        if (body.operating_system ^ self._request.operating_system) & OS_SE:
            echoes.append("OperatingSystem.SE differs from the request's")
        if echoes:
            what = "the EstablishConnection response does not echo the request: "
            self._finding(R_EC_RESPONSE, what + "; ".join(echoes), data, out)
        rtt = ((int(self.clock() * 1000) & 0xFFFFFFFF) - body.timestamp) % (1 << 32)
        low, high = RECOVERABLE_ACK_TIMEOUT_RANGE  # R_RTT: 8 x round trip, clamped
        self.recoverable_ack_timeout_ms = min(max(rtt * 8, low), high)
        parameters = connection_parameters(
            self.recoverable_ack_timeout_ms, self.ack_timeout_ms, self.config.window_size
        )
        self._write(encode_internal(parameters), "ConnectionParameters", out)
        self.state = State.WAITING_CPR_MSG

    def _parameters(self, packet: InternalPacket, data: bytes, out: list[E.Effect]) -> None:
        body = packet.body
        assert isinstance(body, ConnectionParameters)
        self.peer_window = body.window_size
        if self.state is State.WAITING_CPR_MSG:  # R_CP_RESPONSE: the acceptor echoes ours
            echoes = [
                f"{name} is {got} ms, not the request's {sent}"
                for name, got, sent in (
                    (
                        "RecoverableAckTimeout",
                        body.recoverable_ack_timeout,
                        self.recoverable_ack_timeout_ms,
                    ),
                    ("AckTimeout", body.ack_timeout, self.ack_timeout_ms),
                )
                if got != sent
            ]
            if echoes:
                what = "the ConnectionParameters response does not echo the request: "
                self._finding(R_CP_RESPONSE, what + "; ".join(echoes), data, out)
        if self.state is State.WAITING_CP_MSG:  # 3.1.5.4.1: R_CP_RESPONSE
            self.ack_timeout_ms = body.ack_timeout
            self.recoverable_ack_timeout_ms = body.recoverable_ack_timeout
            answer = connection_parameters(
                body.recoverable_ack_timeout, body.ack_timeout, self.config.window_size
            )
            self._write(encode_internal(answer), "ConnectionParameters", out)
        self._cancel(E.INITIALIZATION, out)
        self.state = State.OPEN
        out.append(
            E.SessionEstablished(
                self.peer_qm or NIL,
                self.peer_window,
                self.ack_timeout_ms,
                self.recoverable_ack_timeout_ms,
            )
        )
        self._flush(out)

    # --- bytes in ---------------------------------------------------------------------------

    def _receive(self, data: bytes, out: list[E.Effect]) -> None:
        self._buffer += data
        while self._buffer and self.state is not State.CLOSED:
            frame = next_frame(self._buffer)
            if frame.status == NEED_MORE:
                return
            if frame.status == NOT_BASE_HEADER:
                garbage = bytes(self._buffer)
                what = f"not an MS-MQQB packet: {frame.violation} (first bytes {garbage[:16]!r})"
                self._error(what, garbage, R_SIGNATURE, out)
                return
            data = bytes(self._buffer[: frame.size])
            del self._buffer[: frame.size]
            self._packet(data, out)

    def _packet(self, data: bytes, out: list[E.Effect]) -> None:
        self.received_ack = True  # 3.1.5.1: any packet counts
        response = self.role is Role.INITIATOR and self.state is State.WAITING_ECR_MSG
        try:
            packet, _ = decode_packet(data, response=response)
        except DecodeError as exc:
            out.append(E.PacketReceived(data, "unreadable packet"))
            self._error(f"unreadable packet: {exc.violation}", data, R_FORMAT, out)
            return
        out.append(E.PacketReceived(data, packet.kind))
        for violation in packet.findings:  # value rules: the packet is read all the same
            what = f"{packet.kind}: {violation.message} (byte {violation.offset})"
            self._finding(violation.requirement, what, data, out)
        if isinstance(packet, UserMessage):
            self._user_message(packet, data, out)
            return
        kind = packet.internal.packet_type
        if kind == PT_ESTABLISH_CONNECTION:
            if self.state not in (State.WAITING_EC_MSG, State.WAITING_ECR_MSG):
                self._error(self._out_of_turn("EstablishConnection"), data, R_EC_STATE, out)
            else:
                self._establish(packet, data, out)
        elif kind == PT_CONNECTION_PARAMETERS:
            if self.state not in (State.WAITING_CP_MSG, State.WAITING_CPR_MSG):
                self._error(self._out_of_turn("ConnectionParameters"), data, R_CP_STATE, out)
            else:
                self._parameters(packet, data, out)
        elif self.state is not State.OPEN:
            self._error(self._out_of_turn("SessionAck"), data, R_ACK_STATE, out)
        else:
            assert isinstance(packet.body, SessionHeader)
            size = packet.base.packet_size
            if self.config.letter_session_ack and size != LETTER_SESSION_ACK_SIZE:
                what = (
                    f"SessionAck: PacketSize is {size}, counting its SessionHeader, though "
                    f"the peer follows the letter (W-01: {LETTER_SESSION_ACK_SIZE})"
                )
                self._finding(R_PACKET_SIZE, what, data, out)
            self._session_header(packet.body, data, out)

    def _out_of_turn(self, kind: str) -> str:
        return f"a {kind} Packet arrived in state {self.state.value} ({self.role.value})"

    def _user_message(self, packet: UserMessage, data: bytes, out: list[E.Effect]) -> None:
        if self.state is not State.OPEN:
            self._error(self._out_of_turn("UserMessage"), data, R_USER_STATE, out)
            return
        self.received = (self.received + 1) % MOD  # R_SEQUENCE
        if packet.user.delivery == RECOVERABLE:
            self.recoverable_received = (self.recoverable_received + 1) % MOD
            self.recoverable_unacked.append(self.recoverable_received)
        self.unacked_received += 1
        self.session_active = True
        out.append(E.UserMessageReceived(data, packet, self.received))
        if packet.session is not None:  # 3.1.5.8.4: a piggy-backed acknowledgment
            self._session_header(packet.session, data, out)
            if self.state is State.CLOSED:
                return
        # acknowledge at half our window (at once with a window of 1 or 2), else on the timer
        if self.unacked_received >= max(1, self.config.window_size // 2):
            self._acknowledge(out)
        elif E.ACK_SEND not in self.timers:
            delay = self.config.ack_send_delay
            if packet.user.delivery == RECOVERABLE:
                delay = min(delay, self.recoverable_ack_timeout_ms / 1000)
            self._start(E.ACK_SEND, delay, out)

    def _session_header(self, header: SessionHeader, data: bytes, out: list[E.Effect]) -> None:
        """3.1.5.5: mark what the peer acknowledged, then check its counts (3.1.5.5.5)."""
        self._acknowledged_sent(header, data, out)
        while self.awaiting and (header.ack_sequence - self.awaiting[0]) % MOD < MOD // 2:
            out.append(E.MessageAcknowledged(self.awaiting.popleft()))
        if header.user_sequence != self.received or (
            header.recoverable_sequence != self.recoverable_received
        ):
            what = (
                f"the peer says it sent {header.user_sequence} UserMessages "
                f"({header.recoverable_sequence} recoverable); "
                f"{self.received} ({self.recoverable_received}) arrived"
            )
            self._error(what, data, R_COUNTS, out)
            return
        if self.awaiting:
            self._start(E.ACK_WAIT, self._ack_wait(), out)
        else:
            self._cancel(E.ACK_WAIT, out)
        self._flush(out)

    def _acknowledged_sent(self, header: SessionHeader, data: bytes, out: list[E.Effect]) -> None:
        """[MS-MQMQ] 2.2.20.4: the peer acknowledges only what we sent (its count of what it
        received: at most our count, never below its last), and only recoverable messages
        we sent recoverable."""
        ack, before = header.ack_sequence, self.peer_acked
        if (ack - before) % MOD > (self.sent - before) % MOD:  # outside before..sent
            what = (
                f"AckSequenceNumber is {ack}: not between the {before} acknowledged before "
                f"and the {self.sent} UserMessage(s) sent"
            )
            self._finding(R_ACKED_SENT, what, data, out)
        else:
            self.peer_acked = ack  # the lower end of the next one's window
        first, flags = header.recoverable_ack_sequence, header.recoverable_ack_flags
        named = [(first + k) % MOD for k in range(32) if flags >> k & 1]
        if first and first not in named:
            named.insert(0, first)
        # every number names one sent once the 16-bit count went round
        ever = self.recoverable_sent_ever
        never = [n for n in named if ever < MOD and not 0 < n <= ever]
        if never:
            what = (
                f"RecoverableMsgAckSeqNumber {first} / RecoverableMsgAckFlags 0x{flags:08x} "
                f"name recoverable message {never[0]}: {ever} recoverable UserMessage(s) sent"
            )
            self._finding(R_RECOVERABLE_ACKED_SENT, what, data, out)

    # --- bytes out --------------------------------------------------------------------------

    def _submit(self, message: bytes | UserMessage | Envelope, out: list[E.Effect]) -> None:
        if isinstance(message, Envelope):
            message = envelope_to_packet(message)
        if isinstance(message, UserMessage):
            message = encode_user_message(message)
        self.assigned = self.assigned % (MOD - 1) + 1  # R_SEQUENCE: 1, 2, ... 0xFFFF, 1
        self.held.append((self.assigned, bytes(message)))
        if self.state is State.OPEN:
            self._flush(out)
        if self.held and self.held[-1][0] == self.assigned:
            out.append(E.UserMessageHeld(self.assigned))

    def _flush(self, out: list[E.Effect]) -> None:
        """Send held messages while the peer's window allows (R_WINDOW)."""
        while self.held and (not self.peer_window or len(self.awaiting) < self.peer_window):
            sequence, data = self.held.popleft()
            self.sent = (self.sent + 1) % MOD
            try:
                recoverable = decode_user_message(data)[0].user.delivery == RECOVERABLE
            except DecodeError:
                recoverable = False  # the user may send broken packets on purpose
            if recoverable:
                self.recoverable_sent = (self.recoverable_sent + 1) % MOD
                self.recoverable_sent_ever += 1
            self.awaiting.append(sequence)
            self.session_active = True
            self._write(data, "UserMessage", out)
            out.append(E.UserMessageSent(sequence))
            if E.ACK_WAIT not in self.timers:  # 3.1.2.4
                self._start(E.ACK_WAIT, self._ack_wait(), out)

    def _acknowledge(self, out: list[E.Effect]) -> None:
        """Send a SessionAck for everything received ([MS-MQMQ] 2.2.20.4)."""
        first = self.recoverable_unacked[0] if self.recoverable_unacked else 0
        flags = 0
        for number in self.recoverable_unacked[:32]:
            flags |= 1 << ((number - first) % MOD)
        del self.recoverable_unacked[:32]
        header = SessionHeader(
            ack_sequence=self.received,
            recoverable_ack_sequence=first,
            recoverable_ack_flags=flags,
            user_sequence=self.sent,
            recoverable_sequence=self.recoverable_sent,
            window_size=self.config.window_size or 1,
        )
        self.unacked_received = 0
        self._cancel(E.ACK_SEND, out)
        wire = encode_internal(
            session_ack(header), letter_session_ack=self.config.letter_session_ack
        )
        self._write(wire, "SessionAck", out)

    def _write(self, data: bytes, kind: str, out: list[E.Effect]) -> None:
        out.append(E.SendBytes(data, kind))

    # --- timers -----------------------------------------------------------------------------

    def _ack_wait(self) -> float:
        return self.ack_timeout_ms / 1000 * self.config.ack_wait_multiple

    def _start(self, name: str, seconds: float, out: list[E.Effect]) -> None:
        self.timers.add(name)
        out.append(E.StartTimer(name, seconds))

    def _cancel(self, name: str, out: list[E.Effect]) -> None:
        if name in self.timers:
            self.timers.discard(name)
            out.append(E.CancelTimer(name))

    def _timer(self, name: str, out: list[E.Effect]) -> None:
        if name == E.INITIALIZATION:
            reason = f"session initialization timed out in state {self.state.value}"
            if self._buffer:
                reason += f" with {self.buffered} of {self.expected} bytes of a packet buffered"
            self._close(reason, out)
        elif name == E.ACK_SEND:
            if self.unacked_received:
                self._acknowledge(out)
        elif name == E.ACK_WAIT:  # 3.1.6.3; it runs only while a message awaits its ack
            if not self.received_ack:
                what = f"no acknowledgment of UserMessage {self.awaiting[0]} in time"
                self._close(what, out, R_ACK_WAIT)
            else:
                self.received_ack = False
                self._start(E.ACK_WAIT, self._ack_wait(), out)
        elif name == E.CLEANUP:  # 3.1.6.2
            if not self.session_active:
                self._close("the session was idle", out)
            else:
                self.session_active = False
                self._start(E.CLEANUP, self.config.cleanup_timeout, out)

    # --- closing ----------------------------------------------------------------------------

    def _peer_closed(self, out: list[E.Effect]) -> None:
        if self._buffer:
            what = (
                f"the peer closed the connection in the middle of a packet "
                f"({self.buffered} of {self.expected} bytes)"
            )
            self._error(what, bytes(self._buffer), R_FORMAT, out)
            return
        self._close(f"the peer closed the connection in state {self.state.value}", out)

    def _finding(self, requirement: str, what: str, data: bytes, out: list[E.Effect]) -> None:
        out.append(E.SessionFinding(what, data, requirement))

    def _error(self, what: str, data: bytes, requirement: str, out: list[E.Effect]) -> None:
        out.append(E.ProtocolError(what, data, requirement))
        self._close(what, out, requirement)

    def _close(self, reason: str, out: list[E.Effect], requirement: str | None = None) -> None:
        """3.1.5.9: no packet says goodbye; stop every timer and close the connection."""
        for name in sorted(self.timers):
            out.append(E.CancelTimer(name))
        self.timers.clear()
        self.state = State.CLOSED
        self._buffer.clear()
        out.append(E.SessionClosed(reason, requirement))
