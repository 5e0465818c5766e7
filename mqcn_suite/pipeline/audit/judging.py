"""One message in, the values of one verdict row out: the judge's verdict and the server's view.

:class:`Auditor` runs :func:`mqcn_model.judge.judge` (the fast codec and the content rules)
and then asks the reference queue manager (:class:`mqcn_model.server.NotificationServer`)
what a conforming server does with the same message: ``processed``, or ``disregarded`` with
a reason (:data:`REASON_OF`).  The server is handed the judge's decode
(``NotificationServer.deliver(envelope, verdict.decoded)``), so each body is decoded once.

Everything here runs once per message, millions of times per audit: what does not depend on
the message (enum names, the sender GUID of a 16-byte prefix seen before, the envelope
attributes of a name pair) is computed once and looked up afterwards.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Sequence
from typing import Any

import mqcn_suite.pipeline.audit.schema as schema
from mqcn_model.catalog import req
from mqcn_model.constants import AuthLevel, Command, Event, PropId, SenderIdType
from mqcn_model.directory import InMemoryDirectory
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import STRICT, Readings
from mqcn_model.errors import Violation
from mqcn_model.judge import judge
from mqcn_model.server import Decoded, NotificationServer, ProcessingRecord, QueueManager

# --- server-side reasons ----------------------------------------------------------------------

R_SENDER_TYPE = req("MQCN-3.2.5.1-3")
R_AUTH_NONE = req("MQCN-3.2.5.1-4")
R_OBJECT_TYPE = req("MQCN-3.2.5.1-8")
R_DELETE_TYPE = req("MQCN-3.2.5.1-16")
R_DELETE_NOT_QUEUE = req("MQCN-3.2.5.1-17")
R_VERSIONS = req("MQCN-1.7-1")
REASON_OF: dict[str, str] = {
    R_SENDER_TYPE: "authentication",
    R_AUTH_NONE: "authentication",
    R_OBJECT_TYPE: "object type",
    R_DELETE_TYPE: "object type",
    R_DELETE_NOT_QUEUE: "object type",
    R_VERSIONS: "version",
}

# (outcome, reason, requirement, detail) of the server view
ServerView = tuple[str, str | None, str | None, str | None]

# Names of the enum values a decoded message can carry; anything else is shown by number.
_COMMAND_NAMES = {int(c): c.name.lower() for c in Command}
_EVENT_NAMES = {int(e): e.name.lower() for e in Event}
_SEQUENCE = struct.Struct("<I")
_NO_MESSAGE_ID = MessageId(uuid.UUID(int=0), 0)  # a message without a usable PROPID_M_MSGID
# List columns are given as tuples: a row of immutable values is one the garbage collector
# stops tracking, and a task holds thousands of rows until it builds their Arrow batch.
_NONE: tuple[str, ...] = ()
_CACHE_LIMIT = 4096  # distinct senders / envelope names remembered per Auditor
_Q_INSTANCE = int(PropId.PROPID_Q_INSTANCE)


class _Sender(uuid.UUID):
    """A sending computer's GUID that keeps its text: the server formats the message id of
    every delivered message (twice), and the same few senders send millions of them.

    Equal to, and hashing like, the plain :class:`uuid.UUID` of the same value.
    """

    __slots__ = ("text",)

    def __init__(self, bytes_le: bytes) -> None:
        super().__init__(bytes_le=bytes_le)
        object.__setattr__(self, "text", super().__str__())

    def __str__(self) -> str:
        return self.text  # type: ignore[no-any-return]


def command_name(value: int) -> str:
    """``create`` / ``update`` / ``delete``, or the byte in hex for an undefined Command."""
    name = _COMMAND_NAMES.get(value)
    return name if name is not None else f"0x{value:02x}"


def event_name(value: int) -> str:
    """``create_queue`` ... ``change_machine``, or the number of an undefined Event."""
    name = _EVENT_NAMES.get(value)
    return name if name is not None else str(value)


def enum_member(kind: Any, name: str | None, column: str) -> tuple[Any, str | None]:
    """(member, None) for a known name (``None`` matches ``None_``), else (None, problem)."""
    if name is None:
        return None, f"{column} is null"
    member = kind.__members__.get(name) or kind.__members__.get(f"{name}_")
    if member is None:
        return None, f"{column} {name!r} is not one of {[m.rstrip('_') for m in kind.__members__]}"
    return member, None


class Auditor:
    """Judges messages and asks the reference server what it would do with each.

    One per Spark task (or per process): it holds a :class:`NotificationServer` whose state
    is cleared after every message, so every verdict is independent of the others.
    """

    def __init__(self, readings: Readings = STRICT) -> None:
        self.readings = readings
        self.server = NotificationServer(
            QueueManager(uuid.UUID(int=0)), InMemoryDirectory(), computer="audit", readings=readings
        )
        self.server.initialize()
        self._senders: dict[bytes, _Sender] = {}
        self._envelopes: dict[tuple[str | None, str | None], tuple[Any, Any, str | None]] = {}
        self._nowhere: tuple[None, ...] = (None,) * len(schema.PROVENANCE_COLUMNS)

    def server_view(self, envelope: Envelope, decoded: Decoded | None = None) -> ServerView:
        """(outcome, reason, requirement, detail) of delivering ``envelope`` to the server.

        ``decoded`` is the judge's decode of ``envelope.body`` with the same readings
        (``Verdict.decoded``): the server then does not decode it again.
        """
        server = self.server
        record: ProcessingRecord = server.deliver(envelope, decoded)
        server.records.clear()
        server.qm.QueueCollection.clear()
        server.directory.reads.clear()  # type: ignore[attr-defined]
        if record.outcome != "disregarded":
            return record.outcome, None, None, None
        requirement = record.disregarded_by
        if record.reason.startswith("undecodable"):
            reason = "malformed"
        else:
            reason = REASON_OF.get(requirement or "", "malformed")
        return record.outcome, reason, requirement, record.reason

    def values(
        self,
        source: str,
        body: bytes,
        message_id: bytes | None = None,
        sender_type: str | None = "QueueManagerIdentifier",
        auth_level: str | None = "Sig20",
        where: tuple[Any, ...] | None = None,
        findings: Sequence[Violation] = (),
    ) -> tuple[Any, ...]:
        """The verdict row of one message: its values in the order of :data:`VERDICT_COLUMNS`.

        ``sender_type`` and ``auth_level`` are the envelope's enum names as the corpus holds
        them (``None`` for ``None_``); a name that is not one is no verdict on the body, but
        the server view is then ``unknown`` for reason ``envelope``.  ``where``: the values of
        the provenance columns (:data:`~.schema.PROVENANCE_COLUMNS`) where the input kind
        says where the message was (a capture: file, frames, stream, time); None: all null.
        ``findings``: the findings outside the body's verdict, such as the wire and envelope
        findings of a captured message (:func:`mqcn_model.wire.judgement.judge_user_message`).
        """
        verdict = judge(body, self.readings)
        violations = verdict.violations
        if violations:
            requirements = tuple(dict.fromkeys([v.requirement for v in violations]))
            first_offset, first_message = violations[0].offset, violations[0].message
        else:
            requirements, first_offset, first_message = _NONE, None, None
        sender = None
        msg_id = _NO_MESSAGE_ID
        if message_id is not None and len(message_id) == 20:
            known = self._senders.get(message_id[:16])
            if known is None:
                known = self._sender(bytes(message_id[:16]))
            msg_id = MessageId(known, _SEQUENCE.unpack_from(message_id, 16)[0])
            sender = known.text
        commands, event, guids, updates, controller = _NONE, None, _NONE, None, None
        message = verdict.message
        if message is not None:
            notification = message.body
            if notification is not None:
                event = _EVENT_NAMES.get(notification.event) or event_name(notification.event)
                guids = (str(notification.object_guid),)
                controller = notification.domain_controller
            else:
                updates = len(message.updates)
                commands = tuple(
                    [
                        _COMMAND_NAMES.get(u.command) or command_name(u.command)
                        for u in message.updates
                    ]
                )
                found = []
                for update in message.updates:
                    guid = update.guid_identifier or update.value_of(_Q_INSTANCE)
                    if isinstance(guid, uuid.UUID):
                        found.append(str(guid))
                guids = tuple(found)
        known_envelope = self._envelopes.get((sender_type, auth_level))
        if known_envelope is None:
            known_envelope = self._envelope(sender_type, auth_level)
        kind, level, problem = known_envelope
        if problem is not None:
            view: ServerView = ("unknown", "envelope", None, problem)
        else:
            envelope = Envelope(
                body, msg_id, sender_identifier_type=kind, authentication_level=level
            )
            view = self.server_view(envelope, verdict.decoded)
        return (
            source,
            message_id,
            sender,
            body[0] if body else None,
            len(body),
            verdict.conforming,
            requirements,
            first_offset,
            first_message,
            commands,
            event,
            guids,
            updates,
            controller,
            *view,
            tuple(dict.fromkeys([f.requirement for f in findings])) if findings else _NONE,
            tuple([str(f) for f in findings]) if findings else _NONE,
            *(self._nowhere if where is None else where),
        )

    def row(self, source: str, body: bytes, *envelope: Any) -> dict[str, Any]:
        """:meth:`values` as a dict by column name (for tests and a quick look)."""
        return dict(zip(schema.VERDICT_COLUMNS, self.values(source, body, *envelope), strict=True))

    def _sender(self, prefix: bytes) -> _Sender:
        """The sending computer's GUID of a message id's first 16 bytes."""
        sender = _Sender(prefix)
        if len(self._senders) < _CACHE_LIMIT:
            self._senders[prefix] = sender
        return sender

    def _envelope(
        self, sender_type: str | None, auth_level: str | None
    ) -> tuple[Any, Any, str | None]:
        """The enum members of the envelope's names, or the problem with them."""
        kind, problem = enum_member(SenderIdType, sender_type, "sender_identifier_type")
        level, problem2 = enum_member(AuthLevel, auth_level, "authentication_level")
        known = (kind, level, problem or problem2)
        if len(self._envelopes) < _CACHE_LIMIT:
            self._envelopes[(sender_type, auth_level)] = known
        return known
