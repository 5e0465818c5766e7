"""A live MS-MQQB session: the sans-IO machine driven over a real TCP socket by one thread.

Why threads and not asyncio: the suite (pytest, World, the targets) is synchronous, and a
step must be able to say "send this and wait for the acknowledgment, at most T seconds" as
one blocking call.  Each session owns one reader thread that is the only place bytes are read
and timers fire; callers send from their own thread under the session's lock.  Nothing
blocks without a timeout: the reader wakes at least every 50 ms, every wait takes a timeout.

>>> # see tests/test_transport.py: connect() against a Listener on 127.0.0.1
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
import uuid
from collections.abc import Callable

from mqcn_model.envelope import Envelope
from mqcn_model.errors import DecodeError
from mqcn_model.mqqb import Role, SessionConfig, SessionMachine, State
from mqcn_model.mqqb import events as E
from mqcn_model.mqqb.machine import R_ACK_WAIT, R_FORMAT, R_SIGNATURE
from mqcn_model.wire.internal import decode_internal
from mqcn_model.wire.mapping import envelope_to_packet
from mqcn_model.wire.session import SessionHeader
from mqcn_model.wire.usermessage import UserMessage
from mqcn_suite.transport import failures as X
from mqcn_suite.transport.transcript import IN, OUT, Transcript

TICK = 0.05  # the longest the reader sleeps between looks at its timers
CHUNK = 65536
SEND_TIMEOUT = 5.0  # a peer that stops reading fails a write after this long

MessageCallback = Callable[["Session", E.UserMessageReceived], None]


class Session:
    """One MS-MQQB session over a connected socket (either role); see the module docstring.

    ``received``: every UserMessageReceived, in order.  ``error``: the TransportError that
    ended the session, if one did.  ``established``: the SessionEstablished effect.
    ``findings``: every rule the peer broke, in order -- those the session survived
    (SessionFinding) and the one that closed it (ProtocolError).
    """

    def __init__(
        self,
        sock: socket.socket,
        role: Role,
        config: SessionConfig,
        *,
        on_message: MessageCallback | None = None,
    ) -> None:
        self.sock = sock
        sock.settimeout(SEND_TIMEOUT)
        self.machine = SessionMachine(role, config, time.monotonic)
        self.on_message = on_message
        self.transcript = Transcript(_address(sock.getsockname), _address(sock.getpeername))
        self.received: list[E.UserMessageReceived] = []
        self.acknowledged: set[int] = set()
        self.established: E.SessionEstablished | None = None
        self.protocol_error: E.ProtocolError | None = None
        self.findings: list[E.SessionFinding | E.ProtocolError] = []
        self.closed_reason: E.SessionClosed | None = None
        self.error: X.TransportError | None = None
        self.last_receive = time.monotonic()
        self.peer_acks: list[int] = []  # AckSequenceNumber of each SessionHeader the peer sent
        self._deadlines: dict[str, float] = {}
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mqqb-session", daemon=True)
        with self._lock:
            self._apply(E.Connected())
        self._thread.start()

    # --- the caller's side --------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def send(self, message: bytes | UserMessage | Envelope) -> int:
        """Queue ``message``; it goes out as the window allows.  Its sequence number.

        An Envelope becomes a UserMessage Packet whose UserHeader.SentTime is now, in seconds
        since 1970 UTC ([MS-MQMQ] 2.2.19.2: the time the packet was sent; a receiver ignores
        a packet older than its TimeToReachQueue, 2.2.19.1)."""
        if isinstance(message, Envelope):
            message = envelope_to_packet(message, sent_time=sent_time_now())
        with self._lock:
            if self.closed:
                raise self._closed_error("cannot send")
            effects = self._apply(E.SendUserMessage(message))
        for effect in effects:
            if isinstance(effect, E.UserMessageSent | E.UserMessageHeld):
                return effect.sequence
        raise self._closed_error("the message was not sent")

    def wait_acknowledged(self, sequence: int, timeout: float) -> None:
        """Block until the peer acknowledged ``sequence``; AckTimeout after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while sequence not in self.acknowledged:
                if self.closed:
                    raise self._failure(f"waiting for the acknowledgment of UserMessage {sequence}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise X.AckTimeout(
                        f"UserMessage {sequence} was not acknowledged within {timeout} s"
                        + self._acks_note(sequence)
                        + self._partial_note(),
                        self.transcript,
                        R_ACK_WAIT,
                    )
                self._changed.wait(min(left, TICK))

    def send_and_wait(self, message: bytes | UserMessage | Envelope, timeout: float) -> int:
        """Send ``message`` and wait for its acknowledgment; its sequence number."""
        sequence = self.send(message)
        self.wait_acknowledged(sequence, timeout)
        return sequence

    def wait_established(self, timeout: float) -> E.SessionEstablished:
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.established is None:
                if self.closed:
                    raise self._failure("during the handshake")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self._silence(
                        f"the handshake did not complete within {timeout} s "
                        f"(state {self.machine.state.value})",
                        X.HandshakeTimeout,
                    )
                self._changed.wait(min(left, TICK))
            return self.established

    def wait_closed(self, timeout: float) -> bool:
        return self._closed.wait(timeout)

    def close(self, timeout: float = 2.0) -> None:
        """Close the session (no packet says goodbye: [MS-MQQB] 3.1.5.9) and its thread."""
        with self._lock:
            self._apply(E.Close())
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the reader thread --------------------------------------------------------------

    def _run(self) -> None:
        while not self.closed:
            with self._lock:
                now = time.monotonic()
                wait = min([d - now for d in self._deadlines.values()] + [TICK])
            data: bytes | None = None
            try:  # select, not a socket timeout: senders share the socket's (SEND_TIMEOUT)
                if select.select([self.sock], [], [], max(wait, 0.0))[0]:
                    data = self.sock.recv(CHUNK)
            except (OSError, ValueError):
                data = b""  # reset, or closed under us
            with self._lock:
                if self.closed:
                    break
                if data:
                    self.last_receive = time.monotonic()
                    self._receive(data)
                elif data == b"":
                    self._apply(E.PeerClosed())
                self._fire_due()

    def _receive(self, data: bytes) -> None:
        stamp = time.time()
        effects = self._apply(E.DataReceived(data), record_in=(stamp, data))
        del effects

    def _fire_due(self) -> None:
        now = time.monotonic()
        for name, deadline in sorted(self._deadlines.items(), key=lambda item: item[1]):
            if deadline <= now and name in self._deadlines and not self.closed:
                del self._deadlines[name]
                self._apply(E.TimerFired(name))

    # --- effects ------------------------------------------------------------------------

    def _apply(
        self, event: E.Event, record_in: tuple[float, bytes] | None = None
    ) -> list[E.Effect]:
        """Feed ``event`` to the machine and carry out its effects (lock held)."""
        effects = self.machine.handle(event)
        if record_in is not None:
            kinds = [e.kind for e in effects if isinstance(e, E.PacketReceived)]
            garbage = [e for e in effects if isinstance(e, E.ProtocolError)]
            summary = ", ".join(kinds)
            if garbage and not kinds:
                summary = f"not a packet ({garbage[0].requirement})"
            if self.machine.buffered:
                part = f"part of a packet ({self.machine.buffered} of {self.machine.expected} B)"
                summary = f"{summary}; {part}" if summary else part
            self.transcript.add(record_in[0], IN, record_in[1], summary or "?")
        for effect in effects:
            self._do(effect)
        self._changed.notify_all()
        return effects

    def _do(self, effect: E.Effect) -> None:
        if isinstance(effect, E.SendBytes):
            self.transcript.add(time.time(), OUT, effect.data, effect.kind)
            try:
                self.sock.sendall(effect.data)
            except OSError as exc:
                self._apply(E.Close(f"writing to the peer failed: {exc}"))
        elif isinstance(effect, E.StartTimer):
            self._deadlines[effect.name] = time.monotonic() + effect.seconds
        elif isinstance(effect, E.CancelTimer):
            self._deadlines.pop(effect.name, None)
        elif isinstance(effect, E.SessionEstablished):
            self.established = effect
        elif isinstance(effect, E.UserMessageReceived):
            self.received.append(effect)
            if effect.packet.session is not None:  # a piggy-backed acknowledgment
                self.peer_acks.append(effect.packet.session.ack_sequence)
            if self.on_message is not None:
                self.on_message(self, effect)
        elif isinstance(effect, E.MessageAcknowledged):
            self.acknowledged.add(effect.sequence)
        elif isinstance(effect, E.PacketReceived) and effect.kind == "SessionAck":
            with contextlib.suppress(DecodeError):
                header = decode_internal(effect.data)[0].body
                if isinstance(header, SessionHeader):
                    self.peer_acks.append(header.ack_sequence)
        elif isinstance(effect, E.SessionFinding):
            self.findings.append(effect)
        elif isinstance(effect, E.ProtocolError):
            self.protocol_error = self.protocol_error or effect
            self.findings.append(effect)
        elif isinstance(effect, E.SessionClosed):
            self.closed_reason = effect
            self._closed.set()
            local = effect.reason == E.Close().reason
            if self.protocol_error or effect.requirement or not (self.established or local):
                self.error = self._failure("")
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
            self.sock.close()

    # --- failures -----------------------------------------------------------------------

    def _failure(self, doing: str) -> X.TransportError:
        """The TransportError that tells why the session is closed."""
        tail = f" ({doing})" if doing else ""
        error = self.protocol_error
        if error is not None:
            if error.requirement == R_SIGNATURE:
                return X.NotMsmq(
                    f"the peer does not speak MS-MQQB: {error.what}{tail}",
                    self.transcript,
                    error.requirement,
                )
            if error.requirement == R_FORMAT and "middle of a packet" in error.what:
                return X.PartialPacket(error.what + tail, self.transcript, error.requirement)
            return X.ProtocolViolation(error.what + tail, self.transcript, error.requirement)
        closed = self.closed_reason
        reason = closed.reason if closed else "closed"
        if closed is not None and closed.requirement == R_ACK_WAIT:
            return X.AckTimeout(reason + tail, self.transcript, R_ACK_WAIT)
        if reason.startswith("session initialization timed out"):
            if "bytes of a packet" in reason:
                return X.PartialPacket(f"half a packet then silence: {reason}", self.transcript)
            return X.HandshakeTimeout(reason + tail, self.transcript)
        if closed is not None and closed.reason.startswith("the peer closed"):
            last = [e.summary for e in self.transcript.entries if e.direction == OUT]
            after = f" after we sent {last[-1]}" if last else ""
            return X.PeerClosed(reason + after + tail, self.transcript)
        return X.SessionClosed(f"the session is closed: {reason}{tail}", self.transcript)

    def _closed_error(self, doing: str) -> X.TransportError:
        return self.error or self._failure(doing)

    def _acks_note(self, sequence: int) -> str:
        """What the peer did acknowledge: no SessionAck at all is one story, SessionAcks that
        acknowledge other messages (message 0, an earlier one) another."""
        if not self.peer_acks:
            return "; the peer sent no SessionAck"
        return (
            f"; the peer's {len(self.peer_acks)} SessionAck(s) acknowledged up to UserMessage "
            f"{self.peer_acks[-1]} (AckSequenceNumber), never {sequence}"
        )

    def _partial_note(self) -> str:
        if not self.machine.buffered:
            return ""
        return f"; {self.machine.buffered} of {self.machine.expected} bytes of a packet arrived"

    def _silence(self, message: str, kind: type[X.TransportError]) -> X.TransportError:
        """A timeout: half a packet then silence is its own story."""
        if self.machine.buffered:
            quiet = time.monotonic() - self.last_receive
            return X.PartialPacket(
                f"half a packet then silence: {self.machine.buffered} of "
                f"{self.machine.expected} bytes arrived, then nothing for {quiet:.1f} s "
                f"(state {self.machine.state.value})",
                self.transcript,
            )
        return kind(message, self.transcript)


def sent_time_now() -> int:
    """UserHeader.SentTime for a packet sent now: seconds since 1970 UTC, 32 bits."""
    return int(time.time()) & 0xFFFFFFFF


def ack_wait_bound(session: Session, timeout: float) -> float:
    """How long to wait for the acknowledgment of a UserMessage on ``session``: ``timeout``
    plus the longest a conforming peer may hold its SessionAck, half the AckTimeout the
    session agreed (the Session Ack Send Timer, [MS-MQQB] 3.1.2.5 / 3.1.5.8.2).

    >>> class Agreed:
    ...     established = E.SessionEstablished(uuid.UUID(int=1), 64, 20000, 2000)
    >>> ack_wait_bound(Agreed(), 3.0)
    13.0
    """
    established = session.established
    held = established.ack_timeout_ms / 2000 if established is not None else 0.0
    return timeout + held


def _address(getter: Callable[[], tuple]) -> tuple[str, int] | None:
    try:
        host, port = getter()[:2]
    except OSError:
        return None
    return host, port


def connect(
    host: str,
    port: int,
    *,
    qm_guid: uuid.UUID | None = None,
    config: SessionConfig | None = None,
    timeout: float = 5.0,
    on_message: MessageCallback | None = None,
) -> Session:
    """Open an MS-MQQB session to ``host:port`` as the initiator; return it once open.

    Raises ConnectFailed (no TCP connection), or, with the transcript attached, NotMsmq,
    PeerClosed, PartialPacket, ProtocolViolation or HandshakeTimeout (``timeout`` seconds for
    the TCP connection and again for the handshake).
    """
    if config is None:
        config = SessionConfig(qm_guid or uuid.uuid4())
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        transcript = Transcript(None, (host, port))
        raise X.ConnectFailed(
            f"cannot connect to {host}:{port}: {exc.strerror or exc}", transcript
        ) from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    session = Session(sock, Role.INITIATOR, config, on_message=on_message)
    try:
        session.wait_established(timeout)
    except X.TransportError as exc:
        session.close()
        exc.session = session  # what the peer broke on it stays readable
        raise
    return session


__all__ = ["Session", "State", "ack_wait_bound", "connect", "sent_time_now"]
