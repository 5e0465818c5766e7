"""The client side of MS-MQCN (3.3) as a sans-IO state machine.

A :class:`NotificationClient` is either a queue manager (it prepares Version 0x02 messages,
3.3.5.1) or a directory service (Version 0x01, 3.3.5.2).  :meth:`initialize` yields the Open
Queue of 3.3.3; :meth:`send_change_notification` (3.3.4.1) yields the MSMQ Message of 3.3.5.3,
ready to enqueue.  Nothing is sent anywhere: the caller does the I/O.

>>> import uuid
>>> from mqcn_model.adm import Queue
>>> client = NotificationClient(uuid.UUID(int=1), version=2, server_name="dc1")
>>> sent = client.send_change_notification(
...     Operation.QueueDeletion, Queue(uuid.UUID(int=3)), owner=uuid.UUID(int=9)
... )
>>> sent.time_to_reach_queue, sent.authentication_level.name, sent.body[-1:]
(300, 'Sig20', b'\\x00')
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mqcn_model.adm import Queue, QueueManager
from mqcn_model.builders import (
    machine_update,
    queue_creation,
    queue_deletion,
    queue_update,
    v2_notification,
)
from mqcn_model.codec.message import ChangeNotificationMessage, body_buffer, v1_message
from mqcn_model.codec.propvalue import PropertyValue
from mqcn_model.constants import (
    MACHINE_UPDATE_MODIFIABLE,
    OPERATION_EVENT,
    QM_ATTRIBUTE_OF,
    QUEUE_ATTRIBUTE_OF,
    QUEUE_UPDATE_MODIFIABLE,
    DeliveryGuarantee,
    HashAlgorithm,
    MessageClass,
    Operation,
    PropId,
    SenderIdType,
    Version,
    notify_queue_format_name,
)
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import STRICT, Readings
from mqcn_model.profiles import DEFAULT_PROFILE, ProductProfile

__all__ = ["NotificationClient", "OpenQueueRequest", "Operation"]

_ATTRIBUTE_TO_QUEUE_PROPID = {v: k for k, v in QUEUE_ATTRIBUTE_OF.items()}
_ATTRIBUTE_TO_QM_PROPID = {v: k for k, v in QM_ATTRIBUTE_OF.items()}
_OBJECTGUID_CLOSE = "</ObjectGuid>".encode("utf-16-le")
_OBJECTGUID_CLOSE_ABNF = "</ObjectGuid >".encode("utf-16-le")


@dataclass(frozen=True, slots=True)
class OpenQueueRequest:
    """The Open Queue event of 3.3.3 (or 3.2.3): format name, next hops, access, share mode."""

    destination_format_name: str
    next_hops: str
    required_access: str
    shared_mode: str

    def to_json(self) -> dict[str, Any]:
        return {
            "destination_format_name": self.destination_format_name,
            "next_hops": self.next_hops,
            "required_access": self.required_access,
            "shared_mode": self.shared_mode,
        }


class NotificationClient:
    """The sending side: a queue manager (``version=2``) or a directory service (``version=1``)."""

    def __init__(
        self,
        identifier: uuid.UUID,
        *,
        version: int | None = None,
        server_name: str = "dc.example.com",
        profile: ProductProfile = DEFAULT_PROFILE,
        first_sequence: int = 1,
        readings: Readings = STRICT,
    ) -> None:
        self.identifier = identifier  # the sending QM's or directory server's GUID
        self.version = version if version is not None else profile.sends_version
        self.server_name = server_name  # DomainController token (v2)
        self.profile = profile
        self.sequence = first_sequence
        # Where an errata item lets a sender choose (docs/errata.md E-01, E-05, E-11), the
        # client sends the form its reading allows: the suite's tests use this to prove a
        # target taking either reading is never failed.
        self.readings = readings
        self.opened: dict[uuid.UUID, OpenQueueRequest] = {}

    def initialize(self, destination: uuid.UUID) -> OpenQueueRequest:
        """3.3.3: open the OutgoingQueue to ``destination``'s notification queue."""
        request = OpenQueueRequest(
            notify_queue_format_name(str(destination)), "", "SendAccess", "DenyNone"
        )
        self.opened[destination] = request
        return request

    def prepare(
        self,
        operation: Operation,
        obj: Queue | QueueManager,
        *,
        owner: uuid.UUID | None = None,
        changed: Iterable[str] = (),
    ) -> ChangeNotificationMessage:
        """3.3.5.1 / 3.3.5.2: the Change Notification Message for one change."""
        if self.version == Version.QUEUE_MANAGER:
            return v2_notification(OPERATION_EVENT[operation], obj.Identifier, self.server_name)
        master = self.identifier
        if operation is Operation.QueueCreation:
            assert isinstance(obj, Queue)
            attributes: dict[str, Any] = {
                "label": obj.Label,
                "queue_type": obj.Type,
                "base_priority": obj.BasePriority,
                "journal": obj.Journaling,
                "quota": obj.Quota,
                "journal_quota": obj.JournalQuota,
                "create_time": obj.CreateTime,
                "modify_time": obj.ModifyTime,
                "scope": obj.Scope,
                "security": obj.Security,
                "authenticate": obj.Authentication,
                "priv_level": obj.PrivacyLevel,
                "transaction": obj.Transactional,
            }
            update = queue_creation(obj.Identifier, obj.Pathname, master=master, **attributes)
        elif operation is Operation.QueueUpdate:
            assert isinstance(obj, Queue) and owner is not None
            pairs = _changes(obj, changed, _ATTRIBUTE_TO_QUEUE_PROPID, QUEUE_UPDATE_MODIFIABLE)
            if self.readings.extra_update_propids:  # E-11: the directory's modify time too
                pairs.append((PropId.PROPID_Q_MODIFY_TIME, obj.ModifyTime))
            update = queue_update(obj.Identifier, owner, pairs, master=master)
        elif operation is Operation.QueueManagerUpdate:
            assert isinstance(obj, QueueManager)
            pairs = _changes(obj, changed, _ATTRIBUTE_TO_QM_PROPID, MACHINE_UPDATE_MODIFIABLE)
            if self.profile.passes_directory_extras:  # note <11>: the directory's record as is
                pairs.append((PropId.PROPID_QM_CNS, obj.ConnectedNetworkIdentifierList))
            update = machine_update(obj.Identifier, pairs, master=master, foreign=obj.ForeignSystem)
        else:
            update = queue_deletion(obj.Identifier, master=master)
        return v1_message([update])

    def send_change_notification(
        self,
        operation: Operation,
        obj: Queue | QueueManager,
        *,
        owner: uuid.UUID | None = None,
        changed: Iterable[str] = (),
    ) -> Envelope:
        """3.3.4.1: prepare one message and wrap it as 3.3.5.3 says; one call, one message.

        ``owner`` is the queue manager that owns ``obj`` (the destination, and for Version 1
        the SenderIdentifier); for a QueueManager object it is the object itself.
        """
        destination = obj.Identifier if isinstance(obj, QueueManager) else owner
        if destination is None:
            raise ValueError("a Queue notification needs the owning queue manager (owner=...)")
        if destination not in self.opened:
            self.initialize(destination)
        message = self.prepare(operation, obj, owner=destination, changed=changed)
        is_v1 = message.version == Version.DIRECTORY_SERVICE
        body = body_buffer(message)
        if is_v1 and self.readings.trailing_data:  # E-05: padding after the spare byte
            body += bytes(2)
        if not is_v1 and self.readings.objectguid_close_with_space:  # E-01: the ABNF's tag
            body = body.replace(_OBJECTGUID_CLOSE, _OBJECTGUID_CLOSE_ABNF)
        envelope = Envelope(
            body=body,
            message_id=MessageId(self.identifier, self.sequence),
            sender_identifier=destination if is_v1 else self.identifier,
            sender_identifier_type=SenderIdType.QueueManagerIdentifier
            if is_v1
            else SenderIdType.Sid,
            authentication_level=self.profile.authentication_level,
            delivery_guarantee=DeliveryGuarantee.Express,
            message_class=MessageClass.Normal,
            hash_algorithm=self._hash_algorithm(),
            destination_format_name=self.opened[destination].destination_format_name,
        )
        self.sequence += 1
        return envelope

    def _hash_algorithm(self) -> HashAlgorithm:
        """The profile's HashAlgorithm; SHA-1 for MSMQ 2.0 under the lenient reading of
        errata E-16 (note <12> lists version 2 under SHA1 as well as MD5)."""
        if self.readings.note12_hashes and self.profile.msmq_version.startswith("2."):
            return HashAlgorithm.SHA1
        return self.profile.hash_algorithm


def _changes(
    obj: Queue | QueueManager,
    changed: Iterable[str],
    to_propid: dict[str, PropId],
    allowed: tuple[PropId, ...],
) -> list[tuple[int, PropertyValue]]:
    pairs: list[tuple[int, PropertyValue]] = []
    for name in changed:
        propid = to_propid.get(name)
        if propid is None or propid not in allowed:
            raise ValueError(f"{name!r} is not an attribute a Version 0x01 update can carry")
        pairs.append((propid, getattr(obj, name)))
    return pairs
