"""The server side of MS-MQCN (3.2) as a sans-IO state machine.

A :class:`NotificationServer` owns one queue manager's ADM state.  Events go in
(:meth:`initialize`, :meth:`deliver` a dequeued message, :meth:`advance` the virtual clock);
what happened comes out as :class:`ProcessingRecord` objects listing the effects (queue
created, attribute changed, message disregarded and why, directory read...).  It reads the
directory through an injected :class:`~mqcn_model.directory.Directory`; it never touches a
socket, a file or the machine's clock.

>>> import uuid
>>> from mqcn_model.builders import v2_notification
>>> from mqcn_model.codec import body_buffer
>>> from mqcn_model.envelope import Envelope
>>> qm = QueueManager(uuid.UUID(int=1))
>>> server = NotificationServer(qm, InMemoryDirectory(), computer="qm1")
>>> [e.kind for e in server.initialize()]
['open-queue', 'dequeue']
>>> record = server.deliver(Envelope(body_buffer(v2_notification(3, uuid.UUID(int=5), "dc"))))
>>> record.outcome, [e.kind for e in record.effects]
('processed', ['dequeue'])
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from mqcn_model.adm import READ_NAME_TO_ATTRIBUTE, Queue, QueueManager
from mqcn_model.batching import BatchScheduler
from mqcn_model.catalog import req
from mqcn_model.clock import VirtualClock
from mqcn_model.codec.message import ChangeNotificationMessage, decode_message
from mqcn_model.codec.update import NotificationUpdate
from mqcn_model.constants import (
    MQDS,
    QM_ATTRIBUTE_OF,
    QUEUE_ATTRIBUTE_OF,
    SERVER_QM_UPDATE_SETS,
    SERVER_QUEUE_CREATE_SETS,
    SERVER_QUEUE_UPDATE_SETS,
    V2_QM_READ_ATTRIBUTES,
    V2_QUEUE_READ_ATTRIBUTES,
    AuthLevel,
    Command,
    Event,
    PropId,
    SenderIdType,
    Version,
    notify_queue_format_name,
)
from mqcn_model.directory import Directory, DirectoryOperationResult, InMemoryDirectory
from mqcn_model.envelope import Envelope
from mqcn_model.errata import STRICT, Readings
from mqcn_model.errors import DecodeError
from mqcn_model.frozen import quick_init
from mqcn_model.profiles import DEFAULT_PROFILE, ProductProfile

__all__ = [
    "Decoded",
    "Effect",
    "InMemoryDirectory",
    "NotificationServer",
    "ProcessingRecord",
    "QueueManager",
    "queue_from_read",
]

# What decoding a delivered body gave: the message, or the typed error (see ``deliver``).
Decoded = ChangeNotificationMessage | DecodeError

R_OPEN = req("MQCN-3.2.3-2")
R_V2_COUNT = req("MQCN-2.2.4-3")
R_LOOP = req("MQCN-3.2.5-5")
R_SENDER_TYPE = req("MQCN-3.2.5.1-3")
R_AUTH_NONE = req("MQCN-3.2.5.1-4")
R_OBJECT_TYPE = req("MQCN-3.2.5.1-8")
R_CREATE = req("MQCN-3.2.5.1-10")
R_QUEUE_UPDATE = req("MQCN-3.2.5.1-12")
R_QUEUE_UPDATE_IGNORED = req("MQCN-3.2.5.1-13")
R_QM_UPDATE = req("MQCN-3.2.5.1-14")
R_QM_UPDATE_IGNORED = req("MQCN-3.2.5.1-15")
R_DELETE_TYPE = req("MQCN-3.2.5.1-16")
R_DELETE_NOT_QUEUE = req("MQCN-3.2.5.1-17")
R_DELETE = req("MQCN-3.2.5.1-18")
R_ADS_PATH_IGNORED = req("MQCN-3.3.5.2-16")
R_V2_CREATE = req("MQCN-3.2.5.2-4")
R_V2_CHANGE = req("MQCN-3.2.5.2-6")
R_V2_DELETE = req("MQCN-3.2.5.2-7")
R_V2_MACHINE = req("MQCN-3.2.5.2-9")
R_V2_READ_QUEUE = req("MQCN-3.2.5.2-3")
R_V2_READ_QM = req("MQCN-3.2.5.2-8")
R_VERSIONS = req("MQCN-1.7-1")
R_BATCHING = req("MQCN-1.6-3")
R_WORKGROUP = req("MQCN-3.2.3-6")
NIL_IDENTIFIER = uuid.UUID(int=0)  # the Identifier Set Queue Defaults leaves (errata E-22)
# The PROPIDs each 3.2.5.1 rule sets, as sets: any other PROPID of the update is ignored.
_QUEUE_CREATE_USED = frozenset(SERVER_QUEUE_CREATE_SETS)
_QUEUE_UPDATE_USED = frozenset(SERVER_QUEUE_UPDATE_SETS)
_QM_UPDATE_USED = frozenset(SERVER_QM_UPDATE_SETS)
# ... and as (PROPID, ADM attribute) pairs, in the order of their lists.
_QUEUE_CREATE_SETS = tuple((int(p), QUEUE_ATTRIBUTE_OF[p]) for p in SERVER_QUEUE_CREATE_SETS)
_QUEUE_UPDATE_SETS = tuple((int(p), QUEUE_ATTRIBUTE_OF[p]) for p in SERVER_QUEUE_UPDATE_SETS)
_QM_UPDATE_SETS = tuple((int(p), QM_ATTRIBUTE_OF[p]) for p in SERVER_QM_UPDATE_SETS)


@quick_init
@dataclass(frozen=True, slots=True)
class Effect:
    """One observable thing the server did.

    ``kind`` is one of: open-queue, dequeue, read-directory, directory-read-failed,
    create-queue, update-queue, delete-queue, update-queue-manager, ignore-property, disregard,
    defer, full-refresh.
    ``requirement`` names the catalog entry that calls for it; ``detail`` carries the data.
    """

    kind: str
    requirement: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "requirement": self.requirement, "detail": self.detail}


@quick_init
@dataclass(frozen=True, slots=True)
class ProcessingRecord:
    """What became of one delivered message: processed, disregarded, deferred or not received."""

    message_id: str
    outcome: str
    effects: tuple[Effect, ...] = ()
    reason: str = ""

    @property
    def disregarded_by(self) -> str | None:
        for effect in self.effects:
            if effect.kind == "disregard":
                return effect.requirement
        return None


# The effect that ends every message's processing (the loop dequeues the next one).  Effects
# are frozen and nothing writes to a detail, so every record may hold this one object.
_DEQUEUE = Effect("dequeue", R_LOOP)


class _Disregard(Exception):
    """Internal: stop processing the current message (3.2.5.1 'perform no further processing')."""

    def __init__(self, requirement: str, reason: str) -> None:
        super().__init__(reason)
        self.requirement, self.reason = requirement, reason


class NotificationServer:
    """One queue manager's MS-MQCN server side (3.2), with its QueueManager ADM state."""

    def __init__(
        self,
        queue_manager: QueueManager,
        directory: Directory,
        *,
        computer: str,
        profile: ProductProfile = DEFAULT_PROFILE,
        readings: Readings = STRICT,
        clock: VirtualClock | None = None,
        workgroup: bool = False,
    ) -> None:
        self.qm = queue_manager
        self.directory = directory
        self.computer = computer
        self.profile = profile
        self.readings = readings
        self.clock = clock or VirtualClock()
        self.workgroup = workgroup
        self.queue_open = False
        self.scheduler = BatchScheduler()
        self.waiting: list[tuple[Envelope, Decoded | None]] = []
        self.records: list[ProcessingRecord] = []

    # --- 3.2.3 -----------------------------------------------------------------------------
    def initialize(self) -> list[Effect]:
        """Open NOTIFY_QUEUE_PRIVATE for receive / DenyNone and start the dequeue loop."""
        if self.workgroup and not self.profile.workgroup_opens_notification_queue:
            return [
                Effect(
                    "disregard", R_WORKGROUP, {"reason": "workgroup mode: no notification queue"}
                )
            ]
        self.queue_open = True
        open_queue = Effect(
            "open-queue",
            R_OPEN,
            {
                "format_name": notify_queue_format_name(str(self.qm.Identifier)),
                "required_access": "ReceiveAccess",
                "shared_mode": "DenyNone",
                "path_name": f"{self.computer}\\private$\\notify_queue$",
            },
        )
        return [open_queue, _DEQUEUE]

    # --- message arrival -----------------------------------------------------------------------
    def deliver(self, envelope: Envelope, decoded: Decoded | None = None) -> ProcessingRecord:
        """A message reached the notification queue (and the loop dequeued it).

        ``decoded`` is, when the caller already has it, what
        ``decode_message(envelope.body, self.readings)`` gives: the message, or the
        :class:`~mqcn_model.errors.DecodeError` it raises.  The server then does not decode
        the body a second time (the audit judges every body first and hands the result on);
        the outcome is exactly the same as without it.
        """
        message_id = str(envelope.message_id)
        if not self.queue_open:
            record = ProcessingRecord(
                message_id, "not-received", reason="the notification queue is not open"
            )
        elif self.profile.batching:
            deadline = self.scheduler.on_arrival(self.clock.now)
            self.waiting.append((envelope, decoded))
            detail = {"deadline": self.scheduler.deadline, "timer_set": deadline is not None}
            record = ProcessingRecord(
                message_id, "deferred", (Effect("defer", R_BATCHING, detail),)
            )
        else:
            record = self._process(envelope, decoded, message_id)
        self.records.append(record)
        return record

    def advance(self, seconds: float) -> list[ProcessingRecord]:
        """Move the virtual clock; a batching profile processes its batch when the timer fires."""
        target = self.clock.now + seconds
        records: list[ProcessingRecord] = []
        while self.scheduler.deadline is not None and self.scheduler.deadline <= target:
            self.clock.advance(self.scheduler.deadline - self.clock.now)
            records.extend(self._fire_batch())
        self.clock.advance(target - self.clock.now)
        self.records.extend(records)
        return records

    def _fire_batch(self) -> list[ProcessingRecord]:
        decision = self.scheduler.fire(self.clock.now)
        batch, self.waiting = self.waiting, []
        if not decision.full_refresh:
            return [self._process(envelope, decoded) for envelope, decoded in batch]
        effects = [Effect("full-refresh", R_BATCHING, {"ignored_messages": len(batch)})]
        for queue_id in list(self.qm.QueueCollection):
            effects.extend(self._v2_change_queue(queue_id, server=None, requirement=R_BATCHING))
        return [ProcessingRecord("*", "full-refresh", tuple(effects))]

    # --- 3.2.5 --------------------------------------------------------------------------------
    def _process(
        self, envelope: Envelope, decoded: Decoded | None = None, message_id: str | None = None
    ) -> ProcessingRecord:
        """Process one dequeued message (3.2.5); ``message_id``: its id as text, if known."""
        if message_id is None:
            message_id = str(envelope.message_id)
        effects: list[Effect] = []
        try:
            # errata E-08: an undecodable message is disregarded whole.  The caller's decode
            # error is not raised again: a raised exception kept in a local makes a reference
            # cycle (traceback -> frame -> local), garbage only the cyclic collector frees.
            if decoded is None:
                try:
                    message = decode_message(envelope.body, self.readings)
                except DecodeError as exc:
                    raise _Disregard(exc.requirement, f"undecodable: {exc.violation}") from None
            elif isinstance(decoded, DecodeError):
                raise _Disregard(decoded.requirement, f"undecodable: {decoded.violation}")
            else:
                message = decoded
            if not self.profile.accepts(message.version):
                raise _Disregard(
                    R_VERSIONS,
                    f"profile {self.profile.name} ignores Version 0x{message.version:02x}",
                )
            if message.version == Version.DIRECTORY_SERVICE:
                self._process_v1(envelope, message, effects)
            else:
                self._process_v2(message, effects)
        except _Disregard as stop:
            effects.append(Effect("disregard", stop.requirement, {"reason": stop.reason}))
            effects.append(_DEQUEUE)
            return ProcessingRecord(message_id, "disregarded", tuple(effects), stop.reason)
        effects.append(_DEQUEUE)
        return ProcessingRecord(message_id, "processed", tuple(effects))

    # --- 3.2.5.1 ------------------------------------------------------------------------------
    def _process_v1(
        self, envelope: Envelope, message: ChangeNotificationMessage, effects: list[Effect]
    ) -> None:
        if envelope.sender_identifier_type != SenderIdType.QueueManagerIdentifier:
            raise _Disregard(
                R_SENDER_TYPE, f"SenderIdentifierType is {envelope.sender_identifier_type.name}"
            )
        if envelope.authentication_level == AuthLevel.None_:
            raise _Disregard(R_AUTH_NONE, "AuthenticationLevel is None")
        snapshot = self._snapshot() if self.readings.disregard_whole_message else None
        try:
            for update in message.updates:
                self._apply_update(update, effects)
        except _Disregard:
            if snapshot is not None:  # errata E-14, all-or-nothing reading
                self._restore(snapshot)
            raise

    def _apply_update(self, update: NotificationUpdate, effects: list[Effect]) -> None:
        command = update.command
        if command in (Command.CREATE, Command.UPDATE):
            if not update.properties:
                raise _Disregard(R_OBJECT_TYPE, "no PropertyId[0] to derive the object type from")
            pid0 = update.properties[0].propid
            object_type = (pid0 - 1000) // 100 if pid0 > 1000 else pid0 // 100
            if object_type not in (MQDS.QUEUE, MQDS.MACHINE):
                raise _Disregard(
                    R_OBJECT_TYPE, f"object type {object_type} from PropertyId[0] = {pid0}"
                )
            if command == Command.CREATE and object_type == MQDS.QUEUE:
                self._v1_create_queue(update, effects)
            elif command == Command.UPDATE and object_type == MQDS.QUEUE:
                self._v1_update_queue(update, effects)
            elif command == Command.UPDATE and object_type == MQDS.MACHINE:
                self._v1_update_machine(update, effects)
            return  # a machine "creation" has no processing rule: nothing to do
        if command == Command.DELETE:
            props = update.properties
            if len(props) < 2:
                raise _Disregard(R_DELETE_TYPE, "no PropertyValue[1]: object type unknown")
            named = self.readings.deletion_object_type == "named"  # errata E-12
            if named and props[1].propid != PropId.PROPID_D_OBJTYPE:
                raise _Disregard(
                    R_DELETE_TYPE, "PropertyValue[1] is not PROPID_D_OBJTYPE: object type unknown"
                )
            if props[1].value != MQDS.QUEUE:
                raise _Disregard(
                    R_DELETE_NOT_QUEUE, f"deletion object type {props[1].value} is not MQDS_QUEUE"
                )
            if (
                update.guid_identifier is not None
                and update.guid_identifier in self.qm.QueueCollection
            ):
                del self.qm.QueueCollection[update.guid_identifier]
                effects.append(
                    Effect(
                        "delete-queue",
                        R_DELETE,
                        {"queue": str(update.guid_identifier), "skip_directory": True},
                    )
                )

    def _v1_create_queue(self, update: NotificationUpdate, effects: list[Effect]) -> None:
        first = update.first_indexes()
        index = first.get(PropId.PROPID_Q_INSTANCE)
        identifier = None if index is None else update.properties[index].value
        if not isinstance(identifier, uuid.UUID):  # errata E-22
            if self.readings.creation_without_instance == "nothing":  # no identity, no queue
                effects.append(
                    Effect(
                        "ignore-update", R_CREATE, {"reason": "creation without PROPID_Q_INSTANCE"}
                    )
                )
                return
            identifier = NIL_IDENTIFIER  # the letter: the default Identifier stays
        queue = Queue.with_defaults(identifier)
        changed = _set_attributes(queue, update, _QUEUE_CREATE_SETS, first)
        self._ignore_others(update, _QUEUE_CREATE_USED, R_CREATE, effects)
        existing = self.qm.QueueCollection.get(queue.Identifier)
        if existing is not None:  # errata E-24
            carried = {name: getattr(queue, name) for name in changed}
            if not self._create_existing(existing, queue, carried, R_CREATE, effects):
                return
        self.qm.QueueCollection[queue.Identifier] = queue
        effects.append(
            Effect(
                "create-queue",
                R_CREATE,
                {"queue": str(queue.Identifier), "attributes": changed, "skip_directory": True},
            )
        )

    def _v1_update_queue(self, update: NotificationUpdate, effects: list[Effect]) -> None:
        queue = (
            self.qm.QueueCollection.get(update.guid_identifier) if update.guid_identifier else None
        )
        self._ignore_others(update, _QUEUE_UPDATE_USED, R_QUEUE_UPDATE_IGNORED, effects)
        if queue is None:
            return
        changed = _set_attributes(queue, update, _QUEUE_UPDATE_SETS)
        effects.append(
            Effect(
                "update-queue",
                R_QUEUE_UPDATE,
                {"queue": str(queue.Identifier), "attributes": changed},
            )
        )

    def _v1_update_machine(self, update: NotificationUpdate, effects: list[Effect]) -> None:
        named = update.guid_identifier
        if self._leaves_local_unchanged(named):  # errata E-23
            effects.append(
                Effect("ignore-update", R_QM_UPDATE, {"reason": f"names queue manager {named}"})
            )
            return
        changed = _set_attributes(self.qm, update, _QM_UPDATE_SETS)
        self._ignore_others(update, _QM_UPDATE_USED, R_QM_UPDATE_IGNORED, effects)
        effects.append(Effect("update-queue-manager", R_QM_UPDATE, {"attributes": changed}))

    def _leaves_local_unchanged(self, named: uuid.UUID | None) -> bool:
        """Errata E-23: does a machine update naming ``named`` leave the local queue manager
        unchanged?  Under the suite's reading it does when it names another queue manager;
        under the letter the local QueueManager is updated whatever it names."""
        foreign = named is not None and named != self.qm.Identifier
        return foreign and self.readings.foreign_machine_update == "unchanged"

    def _create_existing(
        self,
        existing: Queue,
        created: Queue,
        carried: dict[str, Any],
        requirement: str,
        effects: list[Effect],
    ) -> bool:
        """Errata E-24: a creation of a queue the QueueCollection already holds.

        True when ``created`` is to take its place (``replace``); otherwise the reading was
        applied here: ``keep`` leaves it, ``merge`` sets the ``carried`` attributes on it,
        ``disregard`` stops the message."""
        reading = self.readings.existing_queue_creation
        if reading == "replace":
            return True
        if reading == "disregard":
            raise _Disregard(requirement, f"queue {existing.Identifier} exists")
        if reading == "merge":
            for name, value in carried.items():
                setattr(existing, READ_NAME_TO_ATTRIBUTE.get(name, name), value)
            detail = {"queue": str(existing.Identifier), "attributes": sorted(carried)}
            effects.append(Effect("update-queue", requirement, detail))
            return False
        effects.append(Effect("ignore-update", requirement, {"reason": "the queue exists"}))
        return False

    @staticmethod
    def _ignore_others(
        update: NotificationUpdate, used: frozenset[PropId], requirement: str, effects: list[Effect]
    ) -> None:
        for prop in update.properties:
            if prop.propid not in used:
                why = R_ADS_PATH_IGNORED if prop.propid == PropId.PROPID_Q_ADS_PATH else requirement
                effects.append(
                    Effect("ignore-property", why, {"propid": prop.propid, "name": prop.name})
                )

    # --- 3.2.5.2 ------------------------------------------------------------------------------
    def _process_v2(self, message: ChangeNotificationMessage, effects: list[Effect]) -> None:
        if message.count != 1:
            raise _Disregard(
                R_V2_COUNT, f"Version 0x02 with NumberOfUpdateNotifications {message.count}"
            )
        body = message.body
        assert body is not None
        guid, server = body.object_guid, body.domain_controller
        if body.event == Event.CREATE_QUEUE:
            found = self._read("Queue", guid, V2_QUEUE_READ_ATTRIBUTES, server, effects)
            queue = queue_from_read(guid, found) if found is not None else None
            existing = self.qm.QueueCollection.get(guid)
            if queue is not None and (
                existing is None
                or self._create_existing(existing, queue, found or {}, R_V2_CREATE, effects)
            ):
                self.qm.QueueCollection[guid] = queue
                effects.append(
                    Effect(
                        "create-queue", R_V2_CREATE, {"queue": str(guid), "skip_directory": True}
                    )
                )
        elif body.event == Event.CHANGE_QUEUE:
            effects.extend(self._v2_change_queue(guid, server=server, requirement=R_V2_CHANGE))
        elif body.event == Event.DELETE_QUEUE:
            if self.qm.QueueCollection.pop(guid, None) is not None:
                effects.append(
                    Effect(
                        "delete-queue", R_V2_DELETE, {"queue": str(guid), "skip_directory": True}
                    )
                )
        elif body.event == Event.CHANGE_MACHINE:
            found = self._read("QueueManager", guid, V2_QM_READ_ATTRIBUTES, server, effects)
            if found is not None and self._leaves_local_unchanged(guid):  # errata E-23
                effects.append(
                    Effect("ignore-update", R_V2_MACHINE, {"reason": f"names queue manager {guid}"})
                )
            elif found is not None:
                for name, value in found.items():
                    setattr(self.qm, name, value)
                effects.append(
                    Effect("update-queue-manager", R_V2_MACHINE, {"attributes": sorted(found)})
                )

    def _v2_change_queue(
        self, guid: uuid.UUID, *, server: str | None, requirement: str
    ) -> list[Effect]:
        effects: list[Effect] = []
        found = self._read("Queue", guid, V2_QUEUE_READ_ATTRIBUTES, server, effects)
        queue = self.qm.QueueCollection.get(guid)
        if found is not None and queue is not None:
            self.qm.QueueCollection[guid] = queue_from_read(guid, found)
            effects.append(
                Effect(
                    "update-queue", requirement, {"queue": str(guid), "attributes": sorted(found)}
                )
            )
        return effects

    def _read(
        self,
        object_type: str,
        guid: uuid.UUID,
        attributes: tuple[str, ...],
        server: str | None,
        effects: list[Effect],
    ) -> dict[str, Any] | None:
        requirement = R_V2_READ_QUEUE if object_type == "Queue" else R_V2_READ_QM
        identifier = str(guid)
        effects.append(
            Effect(
                "read-directory",
                requirement,
                {
                    "object_type": object_type,
                    "identifier": identifier,
                    "attributes": list(attributes),
                    "server": server,
                },
            )
        )
        found = self.directory.read(object_type, guid, attributes, server)
        if isinstance(found, dict):
            return found
        # rDirectoryObject is undefined when the read fails (MS-MQDMPR 3.1.7.1.20): nothing
        # is taken from it; the effect says why, for the report.
        status = found or DirectoryOperationResult.ObjectNotFound
        effects.append(
            Effect(
                "directory-read-failed",
                requirement,
                {"object_type": object_type, "identifier": identifier, "status": status.value},
            )
        )
        return None

    # --- snapshots ------------------------------------------------------------------------------
    def _snapshot(self) -> dict[str, Any]:
        queues = {k: v.copy() for k, v in self.qm.QueueCollection.items()}
        attributes = {name: getattr(self.qm, name) for name in QM_ATTRIBUTE_OF.values()}
        return {"queues": queues, "attributes": attributes}

    def _restore(self, snapshot: dict[str, Any]) -> None:
        self.qm.QueueCollection = snapshot["queues"]
        for name, value in snapshot["attributes"].items():
            setattr(self.qm, name, value)

    def state(self) -> dict[str, Any]:
        """JSON snapshot of the queue manager (attributes and queues)."""
        return self.qm.to_json()


def _set_attributes(
    target: Queue | QueueManager,
    update: NotificationUpdate,
    sets: tuple[tuple[int, str], ...],
    first: dict[int, int] | None = None,
) -> list[str]:
    """Set on ``target``, in the order of ``sets`` ((PROPID, attribute) pairs), the attribute
    of each PROPID the update carries, from the value at its IndexOf (3.2.5.1); the names set.
    ``first``: the update's :meth:`~NotificationUpdate.first_indexes`, when already known."""
    if first is None:
        first = update.first_indexes()
    properties = update.properties
    changed = []
    for propid, name in sets:
        index = first.get(propid)
        if index is not None:
            setattr(target, name, properties[index].value)
            changed.append(name)
    return changed


def queue_from_read(guid: uuid.UUID, found: dict[str, Any]) -> Queue:
    """The Queue a server makes of what a Read Directory returned: the defaults, then every
    attribute the read gave (its 3.2.5.2 name mapped to the ADM one), the Identifier kept."""
    queue = Queue.with_defaults(guid)
    for name, value in found.items():
        setattr(queue, READ_NAME_TO_ATTRIBUTE.get(name, name), value)
    queue.Identifier = guid
    return queue
