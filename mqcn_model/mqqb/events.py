"""What goes into an MS-MQQB session machine (events) and what comes out (effects).

The machine (:class:`mqcn_model.mqqb.machine.SessionMachine`) never does I/O.  Its driver
tells it what happened with an *event* and does what the returned *effects* say:

=====================  =======================================================================
event (in)             meaning
=====================  =======================================================================
``Connected``          the TCP connection is up (the initiator then speaks first)
``DataReceived``       bytes arrived from the peer, cut anywhere
``PeerClosed``         the peer closed the connection (EOF)
``TimerFired``         a timer the machine started (``StartTimer``) expired
``SendUserMessage``    the user sends a UserMessage (packet bytes, a UserMessage or Envelope)
``Close``              the user closes the session
=====================  =======================================================================

=======================  =====================================================================
effect (out)             what the driver does / learns
=======================  =====================================================================
``SendBytes``            write these bytes to the socket
``StartTimer``           (re)start the named timer for ``seconds`` (replacing one running)
``CancelTimer``          stop the named timer (a stale expiry is ignored by the machine)
``PacketReceived``       one whole packet came in (for the transcript: bytes and its kind)
``SessionEstablished``   the handshake is done: the peer's QM GUID, window, timeouts
``UserMessageSent``      a UserMessage went on the wire with this session sequence number
``UserMessageHeld``      the peer's window is full: the message waits for an acknowledgment
``UserMessageReceived``  a UserMessage arrived (bytes, decoded packet, sequence number)
``MessageAcknowledged``  the peer acknowledged our UserMessage ``sequence``
``SessionFinding``       the peer broke a rule the session survives (a value, an echo, a count)
``ProtocolError``        the peer broke a session rule or sent unreadable bytes (then closed)
``SessionClosed``        the session is over: close the socket (always the last effect)
=======================  =====================================================================
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from mqcn_model.envelope import Envelope
from mqcn_model.wire.usermessage import UserMessage

# --- the timers ([MS-MQQB] 3.1.2) the machine runs --------------------------------------------
INITIALIZATION = "session-initialization"  # 3.1.2.1: the handshake must finish in time
CLEANUP = "session-cleanup"  # 3.1.2.2: an idle session is closed
ACK_WAIT = "session-ack-wait"  # 3.1.2.4: our messages must be acknowledged in time
ACK_SEND = "session-ack-send"  # 3.1.2.5: we acknowledge what we received after a delay
TIMERS = (INITIALIZATION, CLEANUP, ACK_WAIT, ACK_SEND)


# --- events in ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Connected:
    """The transport connection is up."""


@dataclass(frozen=True, slots=True)
class DataReceived:
    data: bytes


@dataclass(frozen=True, slots=True)
class PeerClosed:
    """The peer closed the connection (EOF or a reset)."""


@dataclass(frozen=True, slots=True)
class TimerFired:
    name: str


@dataclass(frozen=True, slots=True)
class SendUserMessage:
    """Send ``message``: encoded packet bytes, a UserMessage, or an Envelope (mapped by
    :func:`mqcn_model.wire.mapping.envelope_to_packet`)."""

    message: bytes | UserMessage | Envelope


@dataclass(frozen=True, slots=True)
class Close:
    reason: str = "closed by the local side"


Event = Connected | DataReceived | PeerClosed | TimerFired | SendUserMessage | Close


# --- effects out --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SendBytes:
    data: bytes
    kind: str  # the packet's kind, for the transcript


@dataclass(frozen=True, slots=True)
class StartTimer:
    name: str
    seconds: float


@dataclass(frozen=True, slots=True)
class CancelTimer:
    name: str


@dataclass(frozen=True, slots=True)
class PacketReceived:
    data: bytes
    kind: str


@dataclass(frozen=True, slots=True)
class SessionEstablished:
    """The peer's queue manager GUID, its window (how many of our UserMessages may wait for
    acknowledgment; 0: unbounded), and the timeouts agreed in ConnectionParameters (ms)."""

    peer_qm: uuid.UUID
    window_size: int
    ack_timeout_ms: int
    recoverable_ack_timeout_ms: int


@dataclass(frozen=True, slots=True)
class UserMessageSent:
    sequence: int


@dataclass(frozen=True, slots=True)
class UserMessageHeld:
    sequence: int


@dataclass(frozen=True, slots=True)
class UserMessageReceived:
    data: bytes
    packet: UserMessage = field(repr=False)
    sequence: int


@dataclass(frozen=True, slots=True)
class MessageAcknowledged:
    sequence: int


@dataclass(frozen=True, slots=True)
class ProtocolError:
    """``what`` went wrong, the offending ``data``, and the wire requirement it breaks."""

    what: str
    data: bytes = field(repr=False)
    requirement: str | None = None

    def __str__(self) -> str:
        return f"{self.requirement}: {self.what}" if self.requirement else self.what


@dataclass(frozen=True, slots=True)
class SessionFinding:
    """The peer broke the wire requirement ``requirement`` in ``data`` (``what``: how), and
    the session goes on: a value rule of a packet it could read, a response that does not
    echo the request, an acknowledgment of a message never sent.  A rule whose breach closes
    the session is a :class:`ProtocolError` instead."""

    what: str
    data: bytes = field(repr=False)
    requirement: str | None = None

    def __str__(self) -> str:
        return f"{self.requirement}: {self.what}" if self.requirement else self.what


@dataclass(frozen=True, slots=True)
class SessionClosed:
    reason: str
    requirement: str | None = None


Effect = (
    SendBytes
    | StartTimer
    | CancelTimer
    | PacketReceived
    | SessionEstablished
    | UserMessageSent
    | UserMessageHeld
    | UserMessageReceived
    | MessageAcknowledged
    | SessionFinding
    | ProtocolError
    | SessionClosed
)
