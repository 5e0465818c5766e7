"""Notification Update (MS-MQCN 2.2.6): one directory-service change inside a Version 1 message.

Layout::

    Command(1) UseGuid(1) [PathName: UTF-16LE + 0x0000 | GuidIdentifier: 16]
    GuidMasterId(16) Reserved(24) NumberOfProperties(1)
    PropertyId[N] (4 bytes LE each) PropertyValue[N] (typed by each PropertyId)

>>> import uuid
>>> from mqcn_model.constants import PropId, MQDS
>>> u = NotificationUpdate.deletion(uuid.UUID(int=1), master=uuid.UUID(int=2))
>>> wire = encode_update(u)
>>> len(wire), decode_update(wire, 0)[0] == u
(69, True)
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from mqcn_model.catalog import req
from mqcn_model.codec.guid import guid_at
from mqcn_model.codec.propvalue import (
    PropertyValue,
    decode_utf16z,
    decode_value,
    encode_utf16z,
    encode_value,
)
from mqcn_model.constants import (
    DELETE_PROPIDS,
    DELETE_VALUES,
    GUID_SIZE,
    MAX_PROPERTIES,
    PROPERTIES,
    RESERVED_SIZE,
    Command,
    PropId,
)
from mqcn_model.errata import STRICT, Readings
from mqcn_model.errors import DecodeError, fail

R_COMMAND_PRESENT = req("MQCN-2.2.6-1")
R_USEGUID = req("MQCN-2.2.6-3")
R_PATHNAME = req("MQCN-2.2.6-4")
R_GUID_IDENTIFIER = req("MQCN-2.2.6-7")
R_PROPERTY_IDS = req("MQCN-2.2.6-10")
R_PROPERTY_VALUES = req("MQCN-2.2.6-11")
R_KNOWN_PROPID = req("MQCN-2.2.2-1")
R_FIELD_TRUNCATED = req("MQCN-2.2.6-11")

_U32 = struct.Struct("<I")
_FIXED_TAIL = GUID_SIZE + RESERVED_SIZE + 1  # GuidMasterId + Reserved + NumberOfProperties
ZERO_RESERVED = bytes(RESERVED_SIZE)
_PROPID_NAMES = {int(p): p.name for p in PropId}  # PropId(n).name, without building the member


@dataclass(slots=True)
class Property:
    """One (PropertyId, PropertyValue) pair; offsets are where they sat on the wire (-1: built)."""

    propid: int
    value: PropertyValue
    id_offset: int = field(default=-1, compare=False)
    value_offset: int = field(default=-1, compare=False)

    @property
    def name(self) -> str:
        """The PROPID's constant name, or ``PROPID <number>`` for one MS-MQCN does not define."""
        name = _PROPID_NAMES.get(self.propid)
        return name if name is not None else f"PROPID {self.propid}"


@dataclass(slots=True)
class NotificationUpdate:
    """A decoded (or to-be-built) Notification Update.

    ``path_name`` is set exactly when ``use_guid == 0``; ``guid_identifier`` when it is 1.
    """

    command: int
    use_guid: int
    path_name: str | None
    guid_identifier: uuid.UUID | None
    guid_master_id: uuid.UUID
    properties: tuple[Property, ...] = ()
    reserved: bytes = ZERO_RESERVED
    offset: int = field(default=-1, compare=False)
    size: int = field(default=-1, compare=False)

    # --- convenience -----------------------------------------------------------------------
    @property
    def propids(self) -> tuple[int, ...]:
        return tuple(p.propid for p in self.properties)

    def index_of(self, propid: int) -> int:
        """IndexOf(PROPID) of 3.2.5.1: the first position of ``propid``, or -1."""
        for index, prop in enumerate(self.properties):
            if prop.propid == propid:
                return index
        return -1

    def first_indexes(self) -> dict[int, int]:
        """:meth:`index_of` of every PROPID present at once: PROPID -> its first position.

        A server applying a list of settable PROPIDs looks each one up here instead of
        scanning the properties once per PROPID of the list.

        >>> u = NotificationUpdate.change(uuid.UUID(int=1), [(103, "a"), (104, "b"), (103, "c")],
        ...                               master=uuid.UUID(int=2))
        >>> u.first_indexes(), u.first_indexes().get(103) == u.index_of(103)
        ({103: 0, 104: 1}, True)
        """
        props = self.properties
        # from the last to the first: each PROPID's first position is the one left standing
        return {props[index].propid: index for index in range(len(props) - 1, -1, -1)}

    def value_of(self, propid: int, default: PropertyValue | None = None) -> PropertyValue | None:
        index = self.index_of(propid)
        return default if index < 0 else self.properties[index].value

    # --- builders ----------------------------------------------------------------------------
    @staticmethod
    def props(pairs: Iterable[tuple[int, PropertyValue]]) -> tuple[Property, ...]:
        return tuple(Property(int(pid), value) for pid, value in pairs)

    @classmethod
    def creation(
        cls, path_name: str, properties: Iterable[tuple[int, PropertyValue]], *, master: uuid.UUID
    ) -> NotificationUpdate:
        """A queue creation (Command 0, UseGuid 0, PathName) as 3.3.5.2 builds it."""
        return cls(Command.CREATE, 0, path_name, None, master, cls.props(properties))

    @classmethod
    def change(
        cls, guid: uuid.UUID, properties: Iterable[tuple[int, PropertyValue]], *, master: uuid.UUID
    ) -> NotificationUpdate:
        """A queue or machine update (Command 1, UseGuid 1, GuidIdentifier)."""
        return cls(Command.UPDATE, 1, None, guid, master, cls.props(properties))

    @classmethod
    def deletion(cls, guid: uuid.UUID, *, master: uuid.UUID) -> NotificationUpdate:
        """A queue deletion with the PROPID_D_SCOPE / PROPID_D_OBJTYPE pair of 3.3.5.2."""
        pairs = zip(DELETE_PROPIDS, DELETE_VALUES, strict=True)
        return cls(Command.DELETE, 1, None, guid, master, cls.props(pairs))


def decode_update(
    buf: bytes, offset: int, end: int | None = None, readings: Readings = STRICT
) -> tuple[NotificationUpdate, int]:
    """Decode one Notification Update at ``offset``; return it and the offset after it."""
    end = len(buf) if end is None else end
    start = offset
    if offset + 2 > end:
        raise fail(R_COMMAND_PRESENT, offset, "a Notification Update needs Command and UseGuid")
    command, use_guid = buf[offset], buf[offset + 1]
    offset += 2
    path_name: str | None = None
    guid_identifier: uuid.UUID | None = None
    if use_guid == 0:
        path_name, offset = decode_utf16z(
            buf,
            offset,
            end,
            readings,
            unterminated=R_PATHNAME,
            bad_units=R_PATHNAME,
            what="PathName",
        )
    elif use_guid == 1:
        if offset + GUID_SIZE > end:
            raise fail(R_GUID_IDENTIFIER, offset, "UseGuid is 0x01 but GuidIdentifier is cut short")
        guid_identifier = guid_at(buf, offset)
        offset += GUID_SIZE
    else:
        raise fail(R_USEGUID, start + 1, f"UseGuid is 0x{use_guid:02x}; only 0x00 and 0x01 exist")
    if offset + _FIXED_TAIL > end:
        raise fail(
            R_FIELD_TRUNCATED,
            offset,
            f"GuidMasterId, Reserved and NumberOfProperties need {_FIXED_TAIL} bytes, "
            f"{max(0, end - offset)} left",
        )
    guid_master_id = guid_at(buf, offset)
    offset += GUID_SIZE
    reserved = bytes(buf[offset : offset + RESERVED_SIZE])
    offset += RESERVED_SIZE
    count = buf[offset]
    offset += 1
    if offset + 4 * count > end:
        raise fail(
            R_PROPERTY_IDS,
            offset,
            f"NumberOfProperties is {count} but only {max(0, end - offset) // 4} PropertyIds fit",
        )
    propids = struct.unpack_from(f"<{count}I", buf, offset)
    id_offsets = range(offset, offset + 4 * count, 4)
    for propid, id_offset in zip(propids, id_offsets, strict=True):
        if propid not in PROPERTIES:
            raise fail(R_KNOWN_PROPID, id_offset, f"PropertyId {propid} is not a known PROPID")
    offset += 4 * count
    properties = []
    for propid, id_offset in zip(propids, id_offsets, strict=True):
        definition = PROPERTIES[propid]  # type: ignore[index]
        try:
            value, next_offset = decode_value(definition.vt, buf, offset, end, readings)
        except DecodeError as exc:
            broken = exc.violation
            raise fail(
                broken.requirement, broken.offset, f"{definition.name}: {broken.message}"
            ) from None
        properties.append(Property(propid, value, id_offset, offset))
        offset = next_offset
    update = NotificationUpdate(
        command=command,
        use_guid=use_guid,
        path_name=path_name,
        guid_identifier=guid_identifier,
        guid_master_id=guid_master_id,
        properties=tuple(properties),
        reserved=reserved,
        offset=start,
        size=offset - start,
    )
    return update, offset


def encode_update(update: NotificationUpdate) -> bytes:
    """The wire bytes of ``update`` (NumberOfProperties computed from ``update.properties``).

    Raises ValueError for an update the fast codec cannot express; malformed updates are
    built with the scapy layers (:mod:`mqcn_model.message_layers`) instead.
    """
    if len(update.properties) > MAX_PROPERTIES:
        raise ValueError(f"at most {MAX_PROPERTIES} properties fit in one update")
    if len(update.reserved) != RESERVED_SIZE:
        raise ValueError("Reserved is exactly 24 bytes")
    parts = [bytes((update.command, update.use_guid))]
    if update.use_guid == 0:
        if update.path_name is None:
            raise ValueError("UseGuid 0x00 needs a path_name")
        parts.append(encode_utf16z(update.path_name))
    elif update.use_guid == 1:
        if update.guid_identifier is None:
            raise ValueError("UseGuid 0x01 needs a guid_identifier")
        parts.append(update.guid_identifier.bytes_le)
    else:
        raise ValueError("the fast codec builds UseGuid 0x00 or 0x01 only")
    parts.append(update.guid_master_id.bytes_le)
    parts.append(update.reserved)
    parts.append(bytes((len(update.properties),)))
    parts.append(b"".join(_U32.pack(p.propid) for p in update.properties))
    for prop in update.properties:
        definition = PROPERTIES.get(prop.propid)  # type: ignore[call-overload]
        if definition is None:
            raise ValueError(f"unknown PROPID {prop.propid}: its wire type is not known")
        parts.append(encode_value(definition.vt, prop.value))
    return b"".join(parts)
