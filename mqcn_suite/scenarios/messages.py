"""Conforming messages the scenarios deliver, built from a :class:`~.fixtures.ScenarioIds`.

Pure functions: no target, no World.  The step definitions call them with
:data:`~.fixtures.IDS` and hand the bytes to the target through
:class:`mqcn_suite.world.World`.  Every body ends with the 3.3.5.3 spare byte, as a sender
sends it.

Many messages are *carriers*: besides what the scenario is about they make one recognisable
change (Quota or QueueManagerQuota set to :data:`~.fixtures.SENTINEL_QUOTA`, or a queue
created), so the state after delivery shows whether the target applied the message at all.
The malformed twins of these messages live in :mod:`.defects`.

>>> from mqcn_model.judge import judge
>>> from mqcn_suite.scenarios.fixtures import IDS
>>> judge(v1_body(quota_change(IDS))).conforming, judge(v2_body(2)).conforming
(True, True)
"""

from __future__ import annotations

import uuid

from mqcn_model.builders import (
    machine_update,
    queue_creation,
    queue_creation_properties,
    queue_deletion,
    queue_update,
    v2_notification,
)
from mqcn_model.codec.body import NotificationBody
from mqcn_model.codec.message import body_buffer, decode_message, v1_message
from mqcn_model.codec.propvalue import PropertyValue
from mqcn_model.codec.update import NotificationUpdate
from mqcn_model.constants import (
    MQDS,
    MQDS_ENTERPRISESCOPE,
    MSMQ_MACHINE,
    PROPERTIES,
    QUEUE_UPDATE_MODIFIABLE,
    RESERVED_SIZE,
    SPARE_BYTE_COUNT,
    VT,
    Command,
    PropId,
)
from mqcn_model.errors import DecodeError
from mqcn_suite.scenarios.fixtures import (
    DC_NAME,
    DS_GUID,
    MACHINE_UPDATE_SAMPLE,
    OTHER_SECURITY,
    QUEUE_GUID,
    SENTINEL_QUOTA,
    ScenarioIds,
)
from mqcn_suite.scenarios.vocabulary import ELEMENT_OF

# --- whole bodies -----------------------------------------------------------------------------


def v1_body(*updates: NotificationUpdate) -> bytes:
    """The body buffer (spare byte included) of a Version 0x01 message carrying ``updates``."""
    return body_buffer(v1_message(list(updates)))


def deletion_of(guid: uuid.UUID) -> NotificationUpdate:
    """The deletion of the queue ``guid``, originated by the directory service of the fixtures."""
    return queue_deletion(guid, master=DS_GUID)


def queue_creation_at(guid: uuid.UUID, path: str) -> NotificationUpdate:
    """The creation of the queue ``guid`` at ``path``, originated by the directory service."""
    return queue_creation(guid, path, master=DS_GUID)


def v2_body(event: int, guid: uuid.UUID = QUEUE_GUID, server: str = DC_NAME) -> bytes:
    """The body buffer of a conforming Version 0x02 message."""
    return body_buffer(v2_notification(event, guid, server))


def notification_text(event: str, guid: str, server: str) -> str:
    """The Notification Body mark-up with the three tokens as given (no checks)."""
    return (
        f"<Notification><Event>{event}</Event><ObjectGuid>{guid}</ObjectGuid>"
        f"<DomainController>{server}</DomainController></Notification>"
    )


def v2_text_message(text: str, *, count: int = 1, encoding: str = "utf-16-le") -> bytes:
    """A Version 0x02 body buffer whose Data is ``text`` in ``encoding`` (plus the spare byte).

    >>> v2_text_message("<x/>")[:4].hex()
    '02013c00'
    """
    return bytes((2, count)) + text.encode(encoding, "surrogatepass") + b"\x00"


def with_version(body: bytes, version: int) -> bytes:
    """``body`` with its Version byte replaced."""
    return bytes((version,)) + body[1:]


def with_spare(body: bytes, spare: int | None) -> bytes:
    """``body`` (a body buffer ending with its spare byte) with that byte set to ``spare``, or
    dropped when ``spare`` is None."""
    return body[:-SPARE_BYTE_COUNT] + (b"" if spare is None else bytes((spare,)))


# label -> the spare byte (None: no spare byte at all)
SPARE_VARIANTS: dict[str, int | None] = {
    "no spare byte": None,
    "0x00": 0x00,
    "0x01": 0x01,
    "0x3C": 0x3C,
    "0x80": 0x80,
    "0xFF": 0xFF,
}

# --- Quota changes of the owned queue -----------------------------------------------------------


def quota_change(ids: ScenarioIds, quota: int = SENTINEL_QUOTA) -> NotificationUpdate:
    """A conforming queue update of the owned queue: PROPID_Q_QMID, then PROPID_Q_QUOTA."""
    return queue_update(ids.queue, ids.qm, [(PropId.PROPID_Q_QUOTA, quota)], master=ids.master)


def quota_changes(ids: ScenarioIds, count: int) -> bytes:
    """A conforming Version 0x01 body of ``count`` Quota changes of the owned queue; the
    n-th sets SENTINEL_QUOTA + n - 1, so the state shows whether the last was applied."""
    return v1_body(*(quota_change(ids, SENTINEL_QUOTA + n) for n in range(count)))


# --- carriers of one property value (2.2.3) -----------------------------------------------------


def carrier_update(propid: PropId, value: PropertyValue, ids: ScenarioIds) -> NotificationUpdate:
    """A conforming update whose LAST property is ``(propid, value)``, after a sentinel change.

    A property a queue update may change rides on an update of the owned queue; another queue
    property on a creation of the new queue; a queue-manager property on a machine update.
    """
    if propid in QUEUE_UPDATE_MODIFIABLE or propid is PropId.PROPID_Q_QMID:
        sentinel = PropId.PROPID_Q_JOURNAL_QUOTA
        if propid is PropId.PROPID_Q_JOURNAL_QUOTA:
            sentinel = PropId.PROPID_Q_QUOTA
        pairs: list[tuple[int, PropertyValue]] = [(sentinel, SENTINEL_QUOTA)]
        if propid is not PropId.PROPID_Q_QMID:
            pairs.insert(0, (PropId.PROPID_Q_QMID, ids.qm))
        return NotificationUpdate.change(ids.queue, [*pairs, (propid, value)], master=ids.master)
    if PROPERTIES[propid].mqmq_section.startswith("2.3.1"):  # a queue property: a creation
        path = value if propid is PropId.PROPID_Q_PATHNAME else ids.new_path
        props = queue_creation_properties(ids.new_queue, path, quota=SENTINEL_QUOTA)  # type: ignore[arg-type]
        props = [p for p in props if p[0] != propid]
        return NotificationUpdate.creation(path, [*props, (propid, value)], master=ids.master)  # type: ignore[arg-type]
    head = [(PropId.PROPID_QM_JOURNAL_QUOTA, SENTINEL_QUOTA), (propid, value)]
    return machine_update(ids.qm, head, master=ids.master)


def carrier_message(propid: PropId, value: PropertyValue, ids: ScenarioIds) -> bytes:
    """Body buffer of a conforming Version 0x01 message carrying ``value`` for ``propid``."""
    return v1_body(carrier_update(propid, value, ids))


# --- one update of each kind; Reserved ---------------------------------------------------------

RESERVED_FILLINGS: dict[str, bytes] = {
    "0xFF bytes": b"\xff" * RESERVED_SIZE,
    "the bytes 0x01 to 0x18": bytes(range(1, RESERVED_SIZE + 1)),
    "ASCII text": b"reserved for future use!",
}


def with_reserved(update: NotificationUpdate, reserved: bytes) -> NotificationUpdate:
    """``update`` with its 24 Reserved bytes replaced."""
    return NotificationUpdate(
        update.command,
        update.use_guid,
        update.path_name,
        update.guid_identifier,
        update.guid_master_id,
        update.properties,
        reserved,
    )


def every_kind_of_update(ids: ScenarioIds, second: uuid.UUID) -> list[NotificationUpdate]:
    """A creation of ``ids.new_queue``, a Quota change of ``ids.queue``, a QueueManagerQuota
    change and a deletion of the owned queue ``second``: one of each kind, for one message."""
    return [
        queue_creation(ids.new_queue, ids.new_path, master=ids.master),
        quota_change(ids),
        machine_update_carrying(ids, [], quota=True),
        queue_deletion(second, master=ids.master),
    ]


def every_kind_body(
    ids: ScenarioIds, second: uuid.UUID, reserved: bytes = bytes(RESERVED_SIZE)
) -> bytes:
    """The body of :func:`every_kind_of_update` with every update's Reserved set to ``reserved``.

    >>> from mqcn_suite.scenarios.fixtures import IDS
    >>> zero, text = every_kind_body(IDS, IDS.queue), every_kind_body(IDS, IDS.queue, b"x" * 24)
    >>> len(zero) == len(text) and zero != text
    True
    """
    return v1_body(*(with_reserved(u, reserved) for u in every_kind_of_update(ids, second)))


# --- updates for the server's processing rules (3.2.5.1) ----------------------------------------

LEADING_SAMPLES: dict[PropId, PropertyValue] = {
    PropId.PROPID_Q_SECURITY: OTHER_SECURITY,
    PropId.PROPID_QM_SECURITY: OTHER_SECURITY,
    PropId.PROPID_D_SCOPE: MQDS_ENTERPRISESCOPE,
    PropId.PROPID_D_OBJTYPE: int(MQDS.QUEUE),
    PropId.PROPID_Q_LABEL: "lead",
}


def _lead(
    pairs: list[tuple[int, PropertyValue]], propid: PropId, value: PropertyValue
) -> list[tuple[int, PropertyValue]]:
    """``pairs`` with ``propid`` moved (or, absent, inserted with ``value``) to the front."""
    rest = [pair for pair in pairs if pair[0] != propid]
    found = [pair for pair in pairs if pair[0] == propid]
    return [found[0] if found else (propid, value), *rest]


def _sample_value(propid: PropId, ids: ScenarioIds) -> PropertyValue:
    """Some value of ``propid``'s type (LEADING_SAMPLES first)."""
    if propid in LEADING_SAMPLES:
        return LEADING_SAMPLES[propid]
    vt = PROPERTIES[propid].vt
    by_type: dict[VT, PropertyValue] = {
        VT.CLSID: ids.qm,
        VT.LPWSTR: "lead",
        VT.BLOB: OTHER_SECURITY,
    }
    return by_type.get(vt, () if vt in ELEMENT_OF else 1)


def leading_update(kind: str, propid: PropId, ids: ScenarioIds) -> NotificationUpdate:
    """A ``kind`` update ("queue update", "machine update", "queue creation") whose
    PropertyId[0] is ``propid``; it sets Quota / QueueManagerQuota to SENTINEL_QUOTA (or
    creates ``ids.new_queue``) if a server takes it for the object ``kind`` names.

    >>> from mqcn_suite.scenarios.fixtures import IDS
    >>> leading_update("queue update", PropId.PROPID_Q_SECURITY, IDS).propids
    (1101, 115, 105)
    >>> leading_update("queue creation", PropId.PROPID_Q_QUOTA, IDS).propids[:2]
    (105, 102)
    """
    value = _sample_value(propid, ids)
    if kind == "queue creation":
        props = queue_creation_properties(ids.new_queue, ids.new_path, quota=SENTINEL_QUOTA)
        return NotificationUpdate.creation(
            ids.new_path, _lead(list(props), propid, value), master=ids.master
        )
    if kind == "queue update":
        pairs = [(PropId.PROPID_Q_QMID, ids.qm), (PropId.PROPID_Q_QUOTA, SENTINEL_QUOTA)]
        return NotificationUpdate.change(ids.queue, _lead(pairs, propid, value), master=ids.master)
    if kind == "machine update":
        pairs = [
            (PropId.PROPID_QM_MACHINE_ID, ids.qm),
            (PropId.PROPID_QM_FOREIGN, MSMQ_MACHINE),
            (PropId.PROPID_QM_QUOTA, SENTINEL_QUOTA),
        ]
        return NotificationUpdate.change(ids.qm, _lead(pairs, propid, value), master=ids.master)
    raise ValueError(f"unknown kind of update {kind!r}")


def queue_update_carrying(
    ids: ScenarioIds, pairs: list[tuple[int, PropertyValue]], *, quota: bool = False
) -> NotificationUpdate:
    """An update of ``ids.queue``: PROPID_Q_QMID (unless ``pairs`` gives its own value), then
    a Quota change to SENTINEL_QUOTA if ``quota``, then ``pairs``."""
    head = (
        [] if any(p == PropId.PROPID_Q_QMID for p, _ in pairs) else [(PropId.PROPID_Q_QMID, ids.qm)]
    )
    sentinel = [(PropId.PROPID_Q_QUOTA, SENTINEL_QUOTA)] if quota else []
    return NotificationUpdate.change(ids.queue, [*head, *sentinel, *pairs], master=ids.master)


def machine_update_carrying(
    ids: ScenarioIds, pairs: list[tuple[int, PropertyValue]], *, quota: bool = False
) -> NotificationUpdate:
    """An update of the queue manager: MACHINE_ID and FOREIGN (unless ``pairs`` gives their
    values), a QueueManagerQuota change to SENTINEL_QUOTA if ``quota``, then ``pairs``."""
    given = {p for p, _ in pairs}
    head = [
        (p, v)
        for p, v in (
            (PropId.PROPID_QM_MACHINE_ID, ids.qm),
            (PropId.PROPID_QM_FOREIGN, MSMQ_MACHINE),
        )
        if p not in given
    ]
    sentinel = [(PropId.PROPID_QM_QUOTA, SENTINEL_QUOTA)] if quota else []
    return NotificationUpdate.change(ids.qm, [*head, *sentinel, *pairs], master=ids.master)


def deletion_with(
    guid: uuid.UUID, pairs: list[tuple[int, PropertyValue]], master: uuid.UUID
) -> NotificationUpdate:
    """A deletion (Command 0x02, GuidIdentifier ``guid``) carrying exactly ``pairs``."""
    return NotificationUpdate(
        Command.DELETE, 1, None, guid, master, NotificationUpdate.props(pairs)
    )


def deletion_of_type(guid: uuid.UUID, object_type: int, master: uuid.UUID) -> NotificationUpdate:
    """A deletion of ``guid`` whose PropertyValue[1] (PROPID_D_OBJTYPE) is ``object_type``."""
    pairs = [(PropId.PROPID_D_SCOPE, MQDS_ENTERPRISESCOPE), (PropId.PROPID_D_OBJTYPE, object_type)]
    return deletion_with(guid, pairs, master)


def distinctive_creation(
    ids: ScenarioIds, order: str = "the spec's order"
) -> list[tuple[int, PropertyValue]]:
    """The 15 creation properties of ``ids.new_queue``, each unlike its Set Queue Defaults
    value, in ``order``: "the spec's order", "reverse order" or "PROPID_Q_SECURITY first"."""
    pairs = queue_creation_properties(
        ids.new_queue,
        ids.new_path,
        label="new queue",
        queue_type=uuid.UUID("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"),
        base_priority=-7,
        journal=1,
        quota=0x00012345,
        journal_quota=0x00023456,
        create_time=1_650_000_001,
        modify_time=1_650_000_002,
        scope=0,
        security=OTHER_SECURITY,
        authenticate=1,
        priv_level=2,
        transaction=1,
    )
    if order == "reverse order":
        return pairs[::-1]
    if order == "PROPID_Q_SECURITY first":
        return _lead(pairs, PropId.PROPID_Q_SECURITY, OTHER_SECURITY)
    if order != "the spec's order":
        raise ValueError(f"unknown order {order!r}")
    return pairs


def creation_of(ids: ScenarioIds, pairs: list[tuple[int, PropertyValue]]) -> NotificationUpdate:
    """A creation (Command 0x00, PathName ``ids.new_path``) carrying exactly ``pairs``."""
    return NotificationUpdate.creation(ids.new_path, pairs, master=ids.master)


def machine_creation(ids: ScenarioIds, *, by_guid: bool) -> NotificationUpdate:
    """A creation (Command 0x00) of object type 2: PropertyId[0] is PROPID_QM_MACHINE_ID, then
    the three properties a machine update may change (MACHINE_UPDATE_SAMPLE); named by the
    queue manager's GUID (``by_guid``) or by its computer name as PathName."""
    pairs = [(PropId.PROPID_QM_MACHINE_ID, ids.qm), *MACHINE_UPDATE_SAMPLE.items()]
    path, guid = (None, ids.qm) if by_guid else (ids.computer, None)
    props = NotificationUpdate.props(pairs)
    return NotificationUpdate(Command.CREATE, int(by_guid), path, guid, ids.master, props)


# --- server side: mutation analysis additions (updates no earlier scenario delivered) ---------


def with_command(update: NotificationUpdate, command: int) -> NotificationUpdate:
    """``update`` with its Command byte replaced (e.g. 0x03, which 2.2.6 does not define)."""
    return NotificationUpdate(
        command,
        update.use_guid,
        update.path_name,
        update.guid_identifier,
        update.guid_master_id,
        update.properties,
        update.reserved,
    )


def without_property(
    pairs: list[tuple[int, PropertyValue]], propid: PropId
) -> list[tuple[int, PropertyValue]]:
    """``pairs`` without ``propid`` (e.g. a creation without PROPID_Q_INSTANCE, errata E-22)."""
    return [pair for pair in pairs if pair[0] != propid]


def sparse_creation(ids: ScenarioIds, path: str, label: str) -> NotificationUpdate:
    """A creation of ``ids.new_queue`` carrying only PROPID_Q_INSTANCE, PROPID_Q_PATHNAME
    ``path`` and, last, PROPID_Q_LABEL ``label``: the other 12 attributes it does not set."""
    pairs: list[tuple[int, PropertyValue]] = [
        (PropId.PROPID_Q_INSTANCE, ids.new_queue),
        (PropId.PROPID_Q_PATHNAME, path),
        (PropId.PROPID_Q_LABEL, label),
    ]
    return NotificationUpdate.creation(path, pairs, master=ids.master)


def notification_body(body: bytes) -> NotificationBody | None:
    """The Notification Body of a Version 0x02 message (2.2.5); None for anything else,
    including bytes that do not decode.

    >>> notification_body(v2_body(2)).event
    2
    >>> notification_body(b"") is None
    True
    """
    try:
        message = decode_message(body)
    except DecodeError:
        return None
    found = message.body if message.version == 2 else None
    return found if isinstance(found, NotificationBody) else None


def domain_controllers(body: bytes) -> list[str]:
    """The DomainController a Version 0x02 message names (2.2.5), as a one-item list; empty
    for anything else, including bytes that do not decode (a negative scenario's message).

    >>> domain_controllers(v2_body(2, server="DC-07.corp.example.net"))
    ['DC-07.corp.example.net']
    >>> domain_controllers(b"")
    []
    """
    try:
        message = decode_message(body)
    except DecodeError:
        return []
    found = getattr(message.body, "domain_controller", None) if message.version == 2 else None
    return [found] if found else []
