"""A thin driver for real MS-MQQB sessions over TCP (loopback in the tests).

``connect(host, port) -> Session`` opens a session as the initiator; ``Session.send_and_wait``
sends a UserMessage and waits for its acknowledgment; :class:`Listener` accepts sessions as a
queue manager does.  The protocol itself is the sans-IO machine :mod:`mqcn_model.mqqb`; each
session keeps a :class:`Transcript` of every byte both ways; failures are TransportError
subclasses (:mod:`.failures`) carrying it.  docs/transport.md tells the whole story.
"""

from mqcn_suite.transport.connection import Session, ack_wait_bound, connect, sent_time_now
from mqcn_suite.transport.failures import (
    AckTimeout,
    BindFailed,
    ConnectFailed,
    HandshakeTimeout,
    NotMsmq,
    PartialPacket,
    PeerClosed,
    ProtocolViolation,
    SessionClosed,
    TransportError,
)
from mqcn_suite.transport.listener import Listener
from mqcn_suite.transport.transcript import Transcript, TranscriptEntry

__all__ = [
    "AckTimeout",
    "BindFailed",
    "ConnectFailed",
    "HandshakeTimeout",
    "Listener",
    "NotMsmq",
    "PartialPacket",
    "PeerClosed",
    "ProtocolViolation",
    "Session",
    "SessionClosed",
    "Transcript",
    "TranscriptEntry",
    "TransportError",
    "ack_wait_bound",
    "connect",
    "sent_time_now",
]
