"""Conforming messages for each kind of change, built from plain parameters.

The client model, the tests, the reference vectors, the benchmarks and the corpus generator
all start from these, so "a valid full queue creation" means one thing everywhere.

>>> import uuid
>>> from mqcn_model.judge import judge
>>> from mqcn_model.codec import body_buffer
>>> msg = v1_message([queue_creation(uuid.UUID(int=7), "host\\\\orders", master=uuid.UUID(int=1))])
>>> judge(body_buffer(msg)).conforming
True
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterable, Mapping

from mqcn_model.codec.body import NotificationBody
from mqcn_model.codec.message import ChangeNotificationMessage, v1_message, v2_message
from mqcn_model.codec.propvalue import PropertyValue
from mqcn_model.codec.update import NotificationUpdate
from mqcn_model.constants import (
    MQ_AUTHENTICATE_NONE,
    MQ_JOURNAL_NONE,
    MQ_PRIV_LEVEL_OPTIONAL,
    MQ_TRANSACTIONAL_NONE,
    MQDS_ENTERPRISESCOPE,
    MSMQ_MACHINE,
    Event,
    PropId,
)
from mqcn_model.values import SE_SELF_RELATIVE

__all__ = [
    "machine_update",
    "minimal_security_descriptor",
    "queue_creation",
    "queue_creation_properties",
    "queue_deletion",
    "queue_update",
    "v1_message",
    "v2_notification",
]

P = PropId


def minimal_security_descriptor(control_extra: int = 0x0004) -> bytes:
    """A 20-byte self-relative SECURITY_DESCRIPTOR with no owner, group or ACLs."""
    return struct.pack("<BBHIIII", 1, 0, SE_SELF_RELATIVE | control_extra, 0, 0, 0, 0)


def queue_creation_properties(
    queue_guid: uuid.UUID,
    path_name: str,
    *,
    label: str = "",
    queue_type: uuid.UUID | None = None,
    base_priority: int = 0,
    journal: int = MQ_JOURNAL_NONE,
    quota: int = 0xFFFFFFFF,
    journal_quota: int = 0xFFFFFFFF,
    create_time: int = 1_700_000_000,
    modify_time: int = 1_700_000_000,
    scope: int = MQDS_ENTERPRISESCOPE,
    security: bytes | None = None,
    authenticate: int = MQ_AUTHENTICATE_NONE,
    priv_level: int = MQ_PRIV_LEVEL_OPTIONAL,
    transaction: int = MQ_TRANSACTIONAL_NONE,
) -> list[tuple[int, PropertyValue]]:
    """The 15 properties 3.3.5.2 requires for a queue creation, in the spec's order."""
    return [
        (P.PROPID_Q_TYPE, queue_type or uuid.UUID(int=0)),
        (P.PROPID_Q_INSTANCE, queue_guid),
        (P.PROPID_Q_BASEPRIORITY, base_priority),
        (P.PROPID_Q_JOURNAL, journal),
        (P.PROPID_Q_QUOTA, quota),
        (P.PROPID_Q_JOURNAL_QUOTA, journal_quota),
        (P.PROPID_Q_CREATE_TIME, create_time),
        (P.PROPID_Q_MODIFY_TIME, modify_time),
        (P.PROPID_Q_SCOPE, scope),
        (P.PROPID_Q_SECURITY, security if security is not None else minimal_security_descriptor()),
        (P.PROPID_Q_PATHNAME, path_name),
        (P.PROPID_Q_LABEL, label),
        (P.PROPID_Q_AUTHENTICATE, authenticate),
        (P.PROPID_Q_PRIV_LEVEL, priv_level),
        (P.PROPID_Q_TRANSACTION, transaction),
    ]


def queue_creation(
    queue_guid: uuid.UUID,
    path_name: str,
    *,
    master: uuid.UUID,
    extra: Iterable[tuple[int, PropertyValue]] = (),
    **attributes: object,
) -> NotificationUpdate:
    """A conforming queue creation update (Command 0, PathName, 15 properties)."""
    props = queue_creation_properties(queue_guid, path_name, **attributes)  # type: ignore[arg-type]
    return NotificationUpdate.creation(path_name, [*props, *extra], master=master)


def queue_update(
    queue_guid: uuid.UUID,
    qm_guid: uuid.UUID,
    changes: Mapping[int, PropertyValue] | Iterable[tuple[int, PropertyValue]],
    *,
    master: uuid.UUID,
) -> NotificationUpdate:
    """A conforming queue update: PROPID_Q_QMID first, then the changed properties."""
    pairs = list(changes.items()) if isinstance(changes, Mapping) else list(changes)
    return NotificationUpdate.change(
        queue_guid, [(P.PROPID_Q_QMID, qm_guid), *pairs], master=master
    )


def machine_update(
    qm_guid: uuid.UUID,
    changes: Mapping[int, PropertyValue] | Iterable[tuple[int, PropertyValue]],
    *,
    master: uuid.UUID,
    foreign: int = MSMQ_MACHINE,
) -> NotificationUpdate:
    """A conforming machine update: MACHINE_ID and FOREIGN first, then the changes."""
    pairs = list(changes.items()) if isinstance(changes, Mapping) else list(changes)
    head = [(P.PROPID_QM_MACHINE_ID, qm_guid), (P.PROPID_QM_FOREIGN, foreign)]
    return NotificationUpdate.change(qm_guid, [*head, *pairs], master=master)


def queue_deletion(queue_guid: uuid.UUID, *, master: uuid.UUID) -> NotificationUpdate:
    """A conforming queue deletion (Command 2, GuidIdentifier, D_SCOPE/D_OBJTYPE pair)."""
    return NotificationUpdate.deletion(queue_guid, master=master)


def v2_notification(
    event: Event | int, object_guid: uuid.UUID, server: str
) -> ChangeNotificationMessage:
    """A conforming Version 0x02 message."""
    return v2_message(NotificationBody(int(event), object_guid, server))
