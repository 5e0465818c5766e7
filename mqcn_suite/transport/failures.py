"""What can go wrong on a real MS-MQQB connection: one exception class per story.

Every :class:`TransportError` carries the session's ``transcript`` (every byte both ways, with
time and a decoded summary) and, where the peer broke a wire rule, its ``requirement``;
``session`` is the session that failed, when there was one (its ``findings``: every rule the
peer broke on it).
"""

from __future__ import annotations

from typing import Any

from mqcn_suite.transport.transcript import Transcript


class TransportError(Exception):
    """A transport failure: ``str(e)`` is one line saying what happened."""

    def __init__(
        self, message: str, transcript: Transcript, requirement: str | None = None
    ) -> None:
        super().__init__(f"{requirement}: {message}" if requirement else message)
        self.transcript = transcript
        self.requirement = requirement
        self.session: Any = None  # the Session it happened on (set by connect)


class BindFailed(TransportError):
    """The listener cannot bind its address (in use, not ours, no permission)."""


class ConnectFailed(TransportError):
    """No TCP connection: the port is closed (refused), unreachable, or connecting timed out."""


class PeerClosed(TransportError):
    """The peer closed the connection before what we waited for happened."""


class NotMsmq(TransportError):
    """The peer's bytes are not MS-MQQB packets at all (e.g. an HTTP or SSH banner)."""


class PartialPacket(TransportError):
    """Part of a packet arrived, then silence (or the peer closed) before the rest."""


class ProtocolViolation(TransportError):
    """The peer sent a readable packet out of turn, an unreadable one, or wrong counts."""


class HandshakeTimeout(TransportError):
    """EstablishConnection / ConnectionParameters did not complete within the timeout."""


class AckTimeout(TransportError):
    """Our UserMessage was not acknowledged within the timeout."""


class SessionClosed(TransportError):
    """The session is closed (by us or earlier); nothing more can be sent on it."""
