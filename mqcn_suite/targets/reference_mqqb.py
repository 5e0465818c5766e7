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
from mqcn_model.mqqb import SessionConfig
from mqcn_model.mqqb import events as E
from mqcn_model.wire.base import decode_base_header
from mqcn_model.wire.common import NIL
from mqcn_model.wire.framing import LETTER_SESSION_ACK_SIZE
from mqcn_model.wire.mapping import packet_to_envelope
from mqcn_model.wire.queues import parse_format_name
from mqcn_suite.targets.base import Setup, TargetBroken, TargetError
from mqcn_suite.targets.reference import ReferenceTarget
from mqcn_suite.transport import (
    Listener,
    Session,
    TransportError,
    ack_wait_bound,
    connect,
    sent_time_now,
)
from mqcn_suite.transport.transcript import IN

SEND_TIMEOUT = 10.0  # the reference client's bound on one session's handshake and ack


def _address(queue_manager: dict[str, Any] | None) -> tuple[str, int] | None:
    """The host and port of a ``queue_manager`` member (None: none given)."""
    if queue_manager is None:
        return None
    return queue_manager["host"], int(queue_manager["port"])


def destination_queue_manager(envelope: Envelope) -> uuid.UUID:
    """The queue manager a message's DestinationQueueFormatName names (``PRIVATE=`` a queue
    manager's GUID and a queue number): its session's EstablishConnection names it as the
    remote queue manager ([MS-MQQB] 3.1.5.2.3); GUID_NULL for any other form.

    >>> from mqcn_model.envelope import MessageId
    >>> qm = uuid.UUID(int=5)
    >>> name = f"PRIVATE={qm}" + chr(92) + "3"
    >>> envelope = Envelope(b"", MessageId(qm, 1), destination_format_name=name)
    >>> destination_queue_manager(envelope) == qm
    True
    """
    try:
        _, host = parse_format_name(envelope.destination_format_name)
    except ValueError:
        return NIL
    return host or NIL


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
            # it is the queue manager the set-up names: an EstablishConnection naming it is
            # accepted ([MS-MQQB] 3.1.5.3.1), as one naming GUID_NULL is
            self.listener.answer_as(frozenset({setup.qm_guid}))
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
                # 3.1.5.2.3: the EstablishConnection names the remote queue manager
                remote = destination_queue_manager(envelopes[0]) if envelopes else NIL
                config = self._client_config(remote)
                self.session = connect(host, port, config=config, timeout=SEND_TIMEOUT)
            for envelope in envelopes:
                self.session.send_and_wait(envelope, ack_wait_bound(self.session, SEND_TIMEOUT))
            self._sent(self.session)
        except TransportError as exc:
            self._end_session()
            raise TargetBroken(f"reference:mqqb client: {exc}") from None
        return None

    def _client_config(self, remote: uuid.UUID) -> SessionConfig:
        """Its client's side of a session to the queue manager ``remote``."""
        return SessionConfig(self.setup.qm_guid, remote_qm=remote)

    def _sent(self, session: Session) -> None:
        """Its client's messages were acknowledged on ``session`` (a check may follow)."""

    def _end_session(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None

    def close(self) -> None:
        self._end_session()
        self.listener.close()
        super().close()


class LetterMqqbTarget(MqqbReferenceTarget):
    """``reference:mqqb-letter``: ``reference:mqqb`` following the letter of the wire
    documents where the suite's own side might not (docs/errata.md):

    * it reads and writes SessionAcks as [MS-MQMQ] 2.2.19.1 says, PacketSize 20 without the
      SessionHeader (errata W-01; its hello says so: ``readings: {"W-01": "letter"}``), and
      refuses a 36-byte one from the suite's queue manager (the suite broke the form it was
      told);
    * it ignores a UserMessage whose SentTime lies further back than its TimeToReachQueue
      ([MS-MQMQ] 2.2.19.1; its clock is the system's, seconds since 1970 UTC);
    * its queue manager is the one the set-up names: an EstablishConnection naming another
      is refused (Flags.CS), GUID_NULL or its own GUID accepted ([MS-MQQB] 3.1.5.3.1); its
      client names the destination queue manager ([MS-MQQB] 3.1.5.2.3).

    The suite in transport mode must give it the verdicts of adapter mode
    (tests/test_transport_letter.py).
    """

    name = "reference:mqqb-letter"

    def __init__(self) -> None:
        super().__init__()
        self.expired: list[int] = []  # message ids ignored as expired
        self.listener.answer_as(frozenset(), letter_session_ack=True)

    def transport(self) -> dict[str, Any]:
        declared = super().transport()
        declared["mqqb"]["readings"] = {"W-01": "letter"}
        return declared

    def reset(self, setup: Setup, queue_manager: dict[str, Any] | None = None) -> None:
        super().reset(setup, queue_manager)
        self.listener.answer_as(frozenset({setup.qm_guid}), letter_session_ack=True)

    def _received(self, session: Session, received: E.UserMessageReceived) -> None:
        packet = received.packet
        age = sent_time_now() - packet.user.sent_time
        if age > packet.base.time_to_reach_queue:  # 2.2.19.1: ignored, never processed
            self.expired.append(packet.user.message_id)
            return
        super()._received(session, received)

    def _client_config(self, remote: uuid.UUID) -> SessionConfig:
        return SessionConfig(self.setup.qm_guid, remote_qm=remote, letter_session_ack=True)

    def _sent(self, session: Session) -> None:
        """After its client's messages were acknowledged: every SessionAck it read must
        have had the letter's PacketSize, 20."""
        for entry in session.transcript.entries:
            if entry.direction == IN and entry.summary.startswith("SessionAck"):
                size = decode_base_header(entry.data)[0].packet_size
                if size != LETTER_SESSION_ACK_SIZE:
                    raise TargetBroken(
                        f"{self.name} client: the suite's queue manager sent a SessionAck with "
                        f"PacketSize {size}, not the letter's {LETTER_SESSION_ACK_SIZE} "
                        "its hello asked for (W-01)"
                    )
