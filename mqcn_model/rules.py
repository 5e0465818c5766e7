"""Content rules: what a decoded message must satisfy beyond its syntax.

These are the requirements of 2.2.4, 2.2.6, 3.3.5.1 and 3.3.5.2 (and the [MS-MQMQ] value
rules they point to) that can be judged from the message bytes alone.  Input is a decoded
:class:`~mqcn_model.codec.message.ChangeNotificationMessage`; output is a list of
:class:`~mqcn_model.errors.Violation` in wire order.

>>> import uuid
>>> from mqcn_model.codec import NotificationUpdate, v1_message
>>> bad = NotificationUpdate(2, 0, "h\\\\q", None, uuid.UUID(int=1))   # delete by PathName
>>> [v.requirement for v in check_message(v1_message([bad]))]
['MQCN-3.3.5.2-6', 'MQCN-3.3.5.2-21']
"""

from __future__ import annotations

from mqcn_model.catalog import req
from mqcn_model.codec.message import ChangeNotificationMessage
from mqcn_model.codec.update import ZERO_RESERVED, NotificationUpdate
from mqcn_model.constants import (
    DELETE_PROPIDS,
    DELETE_VALUES,
    GUID_SIZE,
    MACHINE_UPDATE_IGNORED,
    MACHINE_UPDATE_MODIFIABLE,
    MACHINE_UPDATE_REQUIRED,
    MQDS,
    PROPERTIES,
    QUEUE_CREATE_FORBIDDEN,
    QUEUE_CREATE_REQUIRED,
    QUEUE_UPDATE_MODIFIABLE,
    QUEUE_UPDATE_REQUIRED,
    SPARE_BYTE_COUNT,
    Command,
    PropId,
    Version,
    object_type_of,
)
from mqcn_model.errata import STRICT, Readings
from mqcn_model.errors import Violation
from mqcn_model.values import check_pathname, check_property_value

R_COUNT = req("MQCN-2.2.4-2")
R_V2_COUNT = req("MQCN-2.2.4-3")
R_COMMAND = req("MQCN-2.2.6-1")
R_PATHNAME_SYNTAX = req("MQCN-2.2.6-5")
R_RESERVED_MAY = req("MQCN-2.2.6-8")
R_QM_V2_COUNT = req("MQCN-3.3.5.1-7")
R_CREATE_IS_QUEUE = req("MQCN-3.3.5.2-2")
R_UPDATE_OBJECT = req("MQCN-3.3.5.2-3")
R_USEGUID_CREATE = req("MQCN-3.3.5.2-5")
R_USEGUID_OTHER = req("MQCN-3.3.5.2-6")
R_CREATE_REQUIRED = req("MQCN-3.3.5.2-14")
R_CREATE_FORBIDDEN = req("MQCN-3.3.5.2-15")
R_QUEUE_UPDATE_QMID = req("MQCN-3.3.5.2-17")
R_QUEUE_UPDATE_REST = req("MQCN-3.3.5.2-18")
R_MACHINE_UPDATE_REQUIRED = req("MQCN-3.3.5.2-19")
R_MACHINE_UPDATE_REST = req("MQCN-3.3.5.2-20")
R_DELETE_PROPIDS = req("MQCN-3.3.5.2-21")
R_VALUE_ALLOWED = req("MQCN-3.3.5.2-22")
R_DELETE_VALUES = req("MQCN-3.3.5.2-23")
R_DS_COUNT = req("MQCN-3.3.5.2-25")

_QUEUE, _MACHINE = int(MQDS.QUEUE), int(MQDS.MACHINE)


def _names(propids: object) -> str:
    return ", ".join(PropId(p).name for p in propids)  # type: ignore[attr-defined]


def update_object_type(update: NotificationUpdate) -> int | None:
    """The object type 3.2.5.1 derives from PropertyId[0] (None when there is no property)."""
    return object_type_of(update.properties[0].propid) if update.properties else None


def check_update(update: NotificationUpdate, readings: Readings = STRICT) -> list[Violation]:
    """Content rules for one Notification Update (2.2.6 and 3.3.5.2)."""
    found: list[Violation] = []
    at = update.offset if update.offset >= 0 else None
    command, use_guid = update.command, update.use_guid

    def flag(requirement: str, message: str, offset: int | None = at) -> None:
        found.append(Violation(requirement, offset, message))

    if command not in tuple(Command):
        flag(R_COMMAND, f"Command is 0x{command:02x}; only 0x00, 0x01 and 0x02 exist")
    elif command == Command.CREATE and use_guid != 0:
        flag(
            R_USEGUID_CREATE,
            "a creation (Command 0x00) must name the queue by PathName (UseGuid 0x00)",
        )
    elif command != Command.CREATE and use_guid != 1:
        flag(R_USEGUID_OTHER, f"Command 0x{command:02x} must use GuidIdentifier (UseGuid 0x01)")
    if update.path_name is not None:
        problem = check_pathname(update.path_name, readings)
        if problem:
            flag(R_PATHNAME_SYNTAX, f"PathName {update.path_name!r}: {problem}", _plus(at, 2))
    if update.reserved != ZERO_RESERVED:
        flag(
            R_RESERVED_MAY,
            "Reserved is not all zero (allowed; the server ignores it)",
            _reserved_offset(update),
        )

    for prop in update.properties:
        definition = PROPERTIES[prop.propid]  # type: ignore[index]
        problem = check_property_value(definition, prop.value, readings)
        if problem:
            where = prop.value_offset if prop.value_offset >= 0 else None
            flag(R_VALUE_ALLOWED, f"{definition.name}: {problem}", where)

    propids = set(update.propids)
    object_type = update_object_type(update)
    if command == Command.CREATE:
        if object_type != _QUEUE:
            flag(
                R_CREATE_IS_QUEUE,
                f"a creation must be of a queue object; PropertyId[0] gives type {object_type}",
            )
        missing = [p for p in QUEUE_CREATE_REQUIRED if p not in propids]
        if missing:
            flag(R_CREATE_REQUIRED, f"queue creation lacks {_names(missing)}")
        for forbidden in QUEUE_CREATE_FORBIDDEN:
            if forbidden in propids:
                index = update.index_of(forbidden)
                where = update.properties[index].id_offset
                flag(
                    R_CREATE_FORBIDDEN,
                    f"queue creation carries {forbidden.name}",
                    where if where >= 0 else None,  # a built update has no offsets
                )
    elif command == Command.UPDATE:
        if object_type == _QUEUE:
            _required_and_rest(
                update,
                QUEUE_UPDATE_REQUIRED,
                QUEUE_UPDATE_MODIFIABLE,
                R_QUEUE_UPDATE_QMID,
                R_QUEUE_UPDATE_REST,
                "queue update",
                readings,
                flag,
            )
        elif object_type == _MACHINE:
            _required_and_rest(
                update,
                MACHINE_UPDATE_REQUIRED,
                MACHINE_UPDATE_MODIFIABLE + MACHINE_UPDATE_IGNORED,
                R_MACHINE_UPDATE_REQUIRED,
                R_MACHINE_UPDATE_REST,
                "machine update",
                readings,
                flag,
            )
        else:
            flag(
                R_UPDATE_OBJECT,
                "an update must be of a queue or machine object; "
                f"PropertyId[0] gives type {object_type}",
            )
    elif command == Command.DELETE:
        _check_deletion(update, readings, flag)
    return found


def _reserved_offset(update: NotificationUpdate) -> int | None:
    """Where Reserved starts: after Command, UseGuid, PathName or GuidIdentifier, GuidMasterId."""
    if update.offset < 0:
        return None
    if update.path_name is not None:
        name = len(update.path_name.encode("utf-16-le", "surrogatepass")) + 2
    else:
        name = GUID_SIZE
    return update.offset + 2 + name + GUID_SIZE


def _plus(offset: int | None, delta: int) -> int | None:
    return None if offset is None else offset + delta


def _required_and_rest(update, required, allowed, r_required, r_rest, what, readings, flag) -> None:
    propids = update.propids
    missing = [p for p in required if p not in propids]
    if missing:
        flag(r_required, f"{what} lacks {_names(missing)}")
    if readings.extra_update_propids:
        return
    permitted = set(required) | set(allowed)
    for prop in update.properties:
        if prop.propid not in permitted:
            flag(
                r_rest,
                f"{what} carries {prop.name}, which is not among the properties it may change",
                prop.id_offset if prop.id_offset >= 0 else None,
            )


def _check_deletion(update: NotificationUpdate, readings: Readings, flag) -> None:
    propids = update.propids
    if propids[:2] != DELETE_PROPIDS or (len(propids) != 2 and not readings.extra_update_propids):
        flag(
            R_DELETE_PROPIDS,
            "a queue deletion carries exactly PROPID_D_SCOPE, PROPID_D_OBJTYPE; "
            f"found [{_names(propids)}]",
        )
        return
    values = tuple(p.value for p in update.properties[:2])
    if values != DELETE_VALUES:
        flag(
            R_DELETE_VALUES,
            f"a queue deletion has values (MQDS_ENTERPRISESCOPE=1, MQDS_QUEUE=1); found {values}",
            update.properties[0].value_offset if update.properties[0].value_offset >= 0 else None,
        )


def check_message(
    message: ChangeNotificationMessage, readings: Readings = STRICT
) -> list[Violation]:
    """All content rules for one decoded message, in wire order."""
    found: list[Violation] = []
    if message.version == Version.QUEUE_MANAGER:
        if message.count != 1:
            text = f"a Version 0x02 message has NumberOfUpdateNotifications {message.count}, not 1"
            found.append(Violation(R_V2_COUNT, 1, text))
            found.append(Violation(R_QM_V2_COUNT, 1, text))
        return found
    for update in message.updates:
        found.extend(check_update(update, readings))
    if len(message.trailing) > SPARE_BYTE_COUNT and not readings.trailing_data:
        end = 2 + sum(u.size for u in message.updates if u.size >= 0)
        text = (
            f"{len(message.trailing)} bytes follow the {message.count} update(s) that "
            "NumberOfUpdateNotifications announces (one spare byte is allowed)"
        )
        found.append(Violation(R_COUNT, end, text))
        found.append(Violation(R_DS_COUNT, end, text))
    return found
