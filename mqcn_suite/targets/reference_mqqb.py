"""``reference:mqqb``: the reference model behind a real socket (adapter protocol version 2).

Its hello declares ``transport.mqqb``: a :class:`~mqcn_suite.transport.Listener` on
127.0.0.1, port 0, whose received UserMessages go to the model's server (what ``deliver``
does in adapter mode).  Its client sends every message it enqueues as a UserMessage over an
MS-MQQB session (:func:`~mqcn_suite.transport.connect`) to the ``queue_manager`` address
``reset`` (or ``start_client``) gives it, waits for the acknowledgment, and answers ``None``
("sent over the transport").  The suite wraps it in
:class:`~mqcn_suite.targets.transport_mode.TransportMode` like any version-2 target.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

from mqcn_model.envelope import Envelope
from mqcn_model.mqqb import events as E
from mqcn_model.wire.mapping import packet_to_envelope
from mqcn_suite.targets.base import Setup, TargetBroken, TargetError
from mqcn_suite.targets.reference import ReferenceTarget
from mqcn_suite.transport import Listener, Session, TransportError, connect

SEND_TIMEOUT = 10.0  # the reference client's bound on one session's handshake and ack


def _address(queue_manager: dict[str, Any] | None) -> tuple[str, int] | None:
    """The host and port of a ``queue_manager`` member (None: none given)."""
    if queue_manager is None:
        return None
    return queue_manager["host"], int(queue_manager["port"])


class MqqbReferenceTarget(ReferenceTarget):
    """The reference queue manager listening on MS-MQQB, and its client sending over it."""

    name = "reference:mqqb"

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.RLock()  # the listener's session threads deliver to the server
        self.listener = Listener("127.0.0.1", 0, on_message=self._received)
        self.queue_manager: tuple[str, int] | None = None
        self.session: Session | None = None

    def transport(self) -> dict[str, Any]:
        """The ``transport`` member of this target's hello (protocol version 2)."""
        return {"mqqb": {"host": self.listener.host, "port": self.listener.port}}

    def _received(self, session: Session, received: E.UserMessageReceived) -> None:
        envelope, _ = packet_to_envelope(received.packet)
        with self._lock:
            if self.server is not None:
                self.server.deliver(envelope)

    def reset(self, setup: Setup, queue_manager: dict[str, Any] | None = None) -> None:
        with self._lock:
            self._end_session()
            super().reset(setup)
            self.queue_manager = _address(queue_manager)

    def deliver(self, envelope: Envelope) -> None:
        raise TargetError("reference:mqqb takes messages over MS-MQQB, not deliver")

    def advance_clock(self, seconds: float) -> None:
        with self._lock:
            super().advance_clock(seconds)

    def state(self) -> dict[str, Any]:
        with self._lock:
            return super().state()

    def start_client(
        self, destination: uuid.UUID, queue_manager: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        if queue_manager is not None:
            self.queue_manager = _address(queue_manager)
        return super().start_client(destination)

    def send_change_notification(  # type: ignore[override]
        self, operation: str, object_id: uuid.UUID, changed: list[str]
    ) -> list[Envelope] | None:
        """Send over MS-MQQB to the queue manager reset or start_client named (``None``), or,
        without one, answer the messages as the adapter-mode reference does."""
        envelopes = super().send_change_notification(operation, object_id, changed)
        if self.queue_manager is None:
            return envelopes
        host, port = self.queue_manager
        try:
            if self.session is None or self.session.closed:
                self.session = connect(host, port, qm_guid=self.setup.qm_guid, timeout=SEND_TIMEOUT)
            for envelope in envelopes:
                self.session.send_and_wait(envelope, SEND_TIMEOUT)
        except TransportError as exc:
            self._end_session()
            raise TargetBroken(f"reference:mqqb client: {exc}") from None
        return None

    def _end_session(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None

    def close(self) -> None:
        self._end_session()
        self.listener.close()
        super().close()
