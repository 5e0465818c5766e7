"""Messages the Gherkin scenarios deliver or inspect: conforming carriers and malformed twins.

Pure functions only (no target, no World): the step definitions call them with the World's
fixed identities and hand the bytes to the target through :class:`mqcn_suite.world.World`.
Each group of scenarios keeps its builders under its own comment heading.
"""

from __future__ import annotations

import re
import struct
import uuid
from dataclasses import dataclass
from typing import Any

from mqcn_model import layers
from mqcn_model.builders import (
    machine_update,
    minimal_security_descriptor,
    queue_creation,
    queue_creation_properties,
    queue_deletion,
    queue_update,
)
from mqcn_model.catalog import req
from mqcn_model.codec.message import (
    ChangeNotificationMessage,
    body_buffer,
    decode_message,
    encode_message,
    v1_message,
)
from mqcn_model.codec.propvalue import PropertyValue, decode_value, encode_value
from mqcn_model.codec.update import NotificationUpdate, encode_update
from mqcn_model.constants import (
    MQDS,
    MQDS_ENTERPRISESCOPE,
    MSMQ_MACHINE,
    PROPERTIES,
    QM_ATTRIBUTE_OF,
    QUEUE_ATTRIBUTE_OF,
    QUEUE_UPDATE_MODIFIABLE,
    RESERVED_SIZE,
    SERVER_QM_UPDATE_SETS,
    SERVER_QUEUE_CREATE_SETS,
    SERVER_QUEUE_UPDATE_SETS,
    SPARE_BYTE_COUNT,
    TIME_TO_REACH_QUEUE_SECONDS,
    V2_QM_READ_ATTRIBUTES,
    V2_QUEUE_READ_ATTRIBUTES,
    VARIANT_FALSE,
    VARIANT_TRUE,
    VT,
    AuthLevel,
    Command,
    DeliveryGuarantee,
    HashAlgorithm,
    MessageClass,
    PropId,
    SenderIdType,
    Version,
    notify_queue_format_name,
)
from mqcn_model.envelope import Envelope
from mqcn_model.errors import DecodeError
from mqcn_model.render import value_to_json

# message-format scenarios
# ---------------------------------------------------------------------------------------------
# Builders and readers for features/2.2.3-*, 2.2.4-*, 2.2.5-*, 2.2.6-* and the client features
# (3.3.3-3.3.5.3, section 6 client notes).  Well-formed bodies end with the 3.3.5.3 spare
# byte; a malformed body is its conforming twin with one defect, so that a target which applied
# what it could parse would change the queue manager's state (the "sentinel" change).

SENTINEL_QUOTA = 7777  # the change a carrier makes besides the value under test
NONE = ("", "(none)")  # how a feature file writes "no bytes" / "no items"
R_BOOL_VALUE = req("MQCN-2.2.3.3-3")
_ELEMENT_OF = {VT.UI4_VECTOR: VT.UI4, VT.CLSID_VECTOR: VT.CLSID, VT.LPWSTR_VECTOR: VT.LPWSTR}


@dataclass(frozen=True, slots=True)
class ScenarioIds:
    """The identities a scenario uses (the World's fixed GUIDs, passed in by the steps)."""

    queue: uuid.UUID  # a queue the queue manager owns ("orders")
    new_queue: uuid.UUID  # a queue a creation introduces
    qm: uuid.UUID  # the queue manager under test
    master: uuid.UUID  # the directory service (GuidMasterId)
    computer: str = "qm1"

    @property
    def new_path(self) -> str:
        return f"{self.computer}\\newq"


def vt_named(text: str) -> VT:
    """The VT a feature file names, e.g. ``VT_I2`` or ``VT_UI4|VT_VECTOR``.

    >>> vt_named("VT_CLSID | VT_VECTOR") is VT.CLSID_VECTOR
    True
    """
    wanted = text.replace(" ", "").upper()
    for vt in VT:
        if vt.label.replace(" ", "") == wanted:
            return vt
    raise ValueError(f"no PROPVALUE type {text!r}")


def value_from_text(vt: VT, text: str) -> PropertyValue:
    """A value written in a feature file, as the codec's Python value for ``vt``.

    Integers in any base (``0x..``), ``true``/``false``, BLOBs in hex, GUIDs as text, vectors
    as comma-separated items.

    >>> value_from_text(VT.UI4_VECTOR, "1, 0x102")
    (1, 258)
    """
    element = _ELEMENT_OF.get(vt)
    if element is not None:
        items = [t.strip() for t in text.split(",")] if text.strip() not in NONE else []
        return tuple(value_from_text(element, item) for item in items)  # type: ignore[return-value]
    if vt is VT.BOOL:
        return {"true": True, "false": False}[text.strip().lower()]
    if vt is VT.LPWSTR:
        return text
    if vt is VT.BLOB:
        return bytes.fromhex(text)
    if vt is VT.CLSID:
        return uuid.UUID(text)
    return int(text, 0)


def codec_reading(vt: VT, wire_hex: str) -> tuple[PropertyValue | None, str | None]:
    """What the suite's codec makes of ``wire_hex`` as one ``vt`` value that fills the bytes.

    Returns ``(value, None)``, or ``(None, requirement)`` naming what the bytes break; bytes
    left over after the value count as a refusal of the type's first requirement.

    >>> codec_reading(VT.UI2, "0102")
    (513, None)
    >>> codec_reading(VT.BOOL, "0100")
    (None, 'MQCN-2.2.3.3-3')
    """
    raw = b"" if wire_hex.strip() in NONE else bytes.fromhex(wire_hex.replace(" ", ""))
    try:
        value, end = decode_value(vt, raw, 0, len(raw))
    except DecodeError as exc:
        return None, exc.requirement
    if end != len(raw):
        return None, req(f"MQCN-{vt.spec_section}-1")
    return value, None


def bool_patterns_misread() -> list[int]:
    """Every 16-bit pattern the codec gets wrong as VT_BOOL: accepting one other than 0x0000 /
    0xFFFF, refusing one of those two, or refusing for another requirement than MQCN-2.2.3.3-3.

    >>> bool_patterns_misread()
    []
    """
    wrong = []
    for pattern in range(0x10000):
        _value, refused = codec_reading(VT.BOOL, struct.pack("<H", pattern).hex())
        valid = pattern in (VARIANT_FALSE, VARIANT_TRUE)
        if valid != (refused is None) or (not valid and refused != R_BOOL_VALUE):
            wrong.append(pattern)
    return wrong


def codec_writes(vt: VT, value: PropertyValue) -> str:
    """The hex the suite's codec writes for ``value`` as ``vt``."""
    return encode_value(vt, value).hex()


def _carrier_update(propid: PropId, value: PropertyValue, ids: ScenarioIds) -> NotificationUpdate:
    """A conforming update whose LAST property is ``(propid, value)``, after a sentinel change."""
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
    return body_buffer(v1_message([_carrier_update(propid, value, ids)]))


def _cut(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    return tail[:-1], False


def _no_terminator(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    if not tail.endswith(b"\x00\x00"):
        raise ValueError(f"{vt.label} has no terminator to drop")
    return tail[:-2], False


def _lone_surrogate(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    return tail[:-2] + b"\x00\xd8" + tail[-2:], True  # U+D800 just before the terminator


def _size_beyond(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    size = struct.unpack_from("<I", tail)[0]
    return struct.pack("<I", size + 3 if vt is not VT.BLOB else size + 16) + tail[4:], True


def _size_cut(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    return tail[:2], False


def _other_terminator(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    return tail[:-2] + b"\x01\x00", False  # ends with U+0001 where U+0000 belongs


# defect name -> (new tail, whether the spare byte still follows)
VALUE_DEFECTS = {
    "one byte short": _cut,
    "no terminator": _no_terminator,
    "U+0001 as terminator": _other_terminator,
    "a lone surrogate": _lone_surrogate,
    "Size beyond the data": _size_beyond,
    "Size cut to 2 bytes": _size_cut,
}


def broken_carrier_message(
    propid: PropId, value: PropertyValue, defect: str, ids: ScenarioIds
) -> bytes:
    """:func:`carrier_message` with ``defect`` (a key of VALUE_DEFECTS) applied to the value.

    >>> ids = ScenarioIds(uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=3), uuid.UUID(int=4))
    >>> good = carrier_message(PropId.PROPID_Q_QUOTA, 5, ids)
    >>> bad = broken_carrier_message(PropId.PROPID_Q_QUOTA, 5, "one byte short", ids)
    >>> len(good) - len(bad)
    2
    """
    vt = PROPERTIES[propid].vt
    wire = encode_message(v1_message([_carrier_update(propid, value, ids)]))
    tail = encode_value(vt, value)
    assert wire.endswith(tail)
    new_tail, spare = VALUE_DEFECTS[defect](tail, vt)
    return wire[: len(wire) - len(tail)] + new_tail + (b"\x00" if spare else b"")


def carrier_problem(
    state: dict[str, Any], propid: PropId, value: PropertyValue, ids: ScenarioIds
) -> str | None:
    """Did the target apply :func:`carrier_message`?  None if so, else what is missing.

    The sentinel change must be there, and the value itself where the server keeps it (a
    queue attribute, a queue-manager attribute; PROPIDs the server ignores have no place).
    """
    if propid in QUEUE_UPDATE_MODIFIABLE or propid is PropId.PROPID_Q_QMID:
        holder = state["queues"].get(str(ids.queue))
        attribute_of, sentinel = QUEUE_ATTRIBUTE_OF, "JournalQuota"
        if propid is PropId.PROPID_Q_JOURNAL_QUOTA:
            sentinel = "Quota"
    elif PROPERTIES[propid].mqmq_section.startswith("2.3.1"):
        holder = state["queues"].get(str(ids.new_queue))
        attribute_of, sentinel = QUEUE_ATTRIBUTE_OF, "Quota"
    else:
        holder = state["queue_manager"]
        attribute_of, sentinel = QM_ATTRIBUTE_OF, "JournalQuota"
    if holder is None:
        return "the queue the message is about is not in the queue manager's collection"
    if holder.get(sentinel) != SENTINEL_QUOTA:
        found = holder.get(sentinel)
        return f"{sentinel} is {found!r}, not {SENTINEL_QUOTA}: the update was not applied"
    attribute = attribute_of.get(propid)
    stored = propid in SERVER_QUEUE_CREATE_SETS + SERVER_QUEUE_UPDATE_SETS + SERVER_QM_UPDATE_SETS
    if attribute and stored and holder.get(attribute) != value_to_json(value):
        return f"{attribute} is {holder.get(attribute)!r}, not {value_to_json(value)!r}"
    return None


# --- Version 0x01 structure defects (2.2.4, 2.2.6, 2.2.2) ---------------------------------------


def quota_change(ids: ScenarioIds, quota: int = SENTINEL_QUOTA) -> NotificationUpdate:
    """A conforming queue update of the owned queue: PROPID_Q_QMID, then PROPID_Q_QUOTA."""
    return queue_update(ids.queue, ids.qm, [(PropId.PROPID_Q_QUOTA, quota)], master=ids.master)


def quota_changes(ids: ScenarioIds, count: int) -> bytes:
    """A conforming Version 0x01 body of ``count`` Quota changes of the owned queue; the
    n-th sets SENTINEL_QUOTA + n - 1, so the state shows whether the last was applied."""
    updates = [quota_change(ids, SENTINEL_QUOTA + n) for n in range(count)]
    return body_buffer(v1_message(updates))


def _path_bytes(path: str) -> bytes:
    return path.encode("utf-16-le", "surrogatepass")


def v1_defect_message(defect: str, ids: ScenarioIds) -> bytes:
    """A Version 0x01 body with one structural defect; every variant would set the owned
    queue's Quota to SENTINEL_QUOTA (or create the new queue) if a target applied it anyway.

    >>> ids = ScenarioIds(uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=3), uuid.UUID(int=4))
    >>> sorted(V1_DEFECTS)[:2]
    ['Command 0x03', 'Command 0xFF']
    >>> v1_defect_message("Version 0x03", ids)[:2].hex()
    '0301'
    """
    return V1_DEFECTS[defect](ids)


def _good(ids: ScenarioIds) -> bytes:
    return body_buffer(v1_message([quota_change(ids)]))


def _good_layer(ids: ScenarioIds, updates: int = 1) -> layers.ChangeNotificationMessage:
    """The scapy twin of the conforming carrier (spare byte included), ready to be broken."""
    message = v1_message([quota_change(ids, SENTINEL_QUOTA + n) for n in range(updates)])
    return layers.to_layer(body_buffer_message(message), trailing=True)


def body_buffer_message(message: ChangeNotificationMessage) -> ChangeNotificationMessage:
    """``message`` with the 3.3.5.3 spare byte as its trailing bytes."""
    return decode_message(body_buffer(message))


def _with_field(name: str, value: int) -> Any:
    """A carrier whose header (Version) or first update (Command) field ``name`` lies."""

    def build(ids: ScenarioIds) -> bytes:
        packet = _good_layer(ids)
        target = packet if name in ("Version", "NumberOfUpdateNotifications") else packet.Data[0]
        setattr(target, name, value)
        return bytes(packet)

    return build


def _with_byte(index: int, value: int) -> Any:
    """A carrier with one raw byte replaced: for fields whose value decides the layout
    (UseGuid), where a scapy rebuild would also move the fields that follow."""

    def build(ids: ScenarioIds) -> bytes:
        buf = bytearray(_good(ids))
        buf[index] = value
        return bytes(buf)

    return build


def _update_fields(ids: ScenarioIds) -> tuple[bytes, bytes, bytes]:
    """(Command+UseGuid, GuidIdentifier, everything after it) of quota_change, no header."""
    wire = encode_update(quota_change(ids))
    return wire[:2], wire[2:18], wire[18:]


def _useguid_one_with_pathname(ids: ScenarioIds) -> bytes:
    head, guid, rest = _update_fields(ids)
    return (
        b"\x01\x01"
        + head
        + _path_bytes(f"{ids.computer}\\orders")
        + b"\x00\x00"
        + guid
        + rest
        + b"\x00"
    )


def _guid_cut(ids: ScenarioIds) -> bytes:
    head, guid, _rest = _update_fields(ids)
    return b"\x01\x01" + head + guid[:8]


def _count_beyond_ids(ids: ScenarioIds) -> bytes:
    """NumberOfProperties 3 over the carrier's two PropertyIds, and no values at all."""
    packet = _good_layer(ids)
    update = packet.Data[0]
    update.NumberOfProperties = 3
    update.PropertyValue = []
    packet.Trailing = b""
    return bytes(packet)


def _values_short(ids: ScenarioIds) -> bytes:
    """One PropertyValue for two PropertyIds: PROPID_Q_QUOTA's value is missing."""
    packet = _good_layer(ids)
    packet.Data[0].PropertyValue = packet.Data[0].PropertyValue[:1]
    packet.Trailing = b""
    return bytes(packet)


def _unknown_propid(propid: int) -> Any:
    def build(ids: ScenarioIds) -> bytes:
        packet = _good_layer(ids)
        update = packet.Data[0]
        update.PropertyId = [propid if p == PropId.PROPID_Q_QUOTA else p for p in update.PropertyId]
        return bytes(packet)

    return build


def _pathname_unterminated(ids: ScenarioIds) -> bytes:
    return b"\x01\x01\x00\x00" + _path_bytes(ids.new_path)


def _pathname_lone_surrogate(ids: ScenarioIds) -> bytes:
    good = body_buffer(v1_message([queue_creation(ids.new_queue, ids.new_path, master=ids.master)]))
    path = _path_bytes(ids.new_path)
    return good[:4] + path + b"\x00\xd8" + good[4 + len(path) :]


def _count_with_updates(count: int, updates: int) -> Any:
    """``updates`` Quota changes under a NumberOfUpdateNotifications that says ``count``."""

    def build(ids: ScenarioIds) -> bytes:
        packet = _good_layer(ids, updates)
        packet.NumberOfUpdateNotifications = count
        return bytes(packet)

    return build


V1_DEFECTS: dict[str, Any] = {
    "Version 0x00": _with_field("Version", 0x00),
    "Version 0x03": _with_field("Version", 0x03),
    "Version 0xFF": _with_field("Version", 0xFF),
    "NumberOfUpdateNotifications 2 with one update": _count_with_updates(2, 1),
    "NumberOfUpdateNotifications 3 with two updates": _count_with_updates(3, 2),
    "NumberOfUpdateNotifications 0 with one update": _count_with_updates(0, 1),
    "Command 0x03": _with_field("Command", 0x03),
    "Command 0xFF": _with_field("Command", 0xFF),
    "UseGuid 0x02": _with_byte(3, 0x02),
    "UseGuid 0xFF": _with_byte(3, 0xFF),
    "UseGuid 0x00 before a GuidIdentifier": _with_byte(3, 0x00),
    "UseGuid 0x01 with a PathName": _useguid_one_with_pathname,
    "GuidIdentifier cut short": _guid_cut,
    "PathName without terminator": _pathname_unterminated,
    "PathName with a lone surrogate": _pathname_lone_surrogate,
    "NumberOfProperties beyond the PropertyIds": _count_beyond_ids,
    "fewer PropertyValues than NumberOfProperties": _values_short,
    "unknown PropertyId 999": _unknown_propid(999),
    "PropertyId 0": _unknown_propid(0),
}


def with_version(body: bytes, version: int) -> bytes:
    """``body`` with its Version byte replaced."""
    return bytes((version,)) + body[1:]


# --- Version 0x02 body defects (2.2.4, 2.2.5) ------------------------------------------------


def notification_text(event: str, guid: str, server: str) -> str:
    """The Notification Body mark-up with the three tokens as given (no checks)."""
    return (
        f"<Notification><Event>{event}</Event><ObjectGuid>{guid}</ObjectGuid>"
        f"<DomainController>{server}</DomainController></Notification>"
    )


def v2_text_message(text: str, *, count: int = 1, encoding: str = "utf-16-le") -> bytes:
    """A Version 0x02 body buffer whose Data is ``text`` in ``encoding`` (plus the spare byte)."""
    return bytes((2, count)) + text.encode(encoding, "surrogatepass") + b"\x00"


def v2_defect_message(defect: str, guid: uuid.UUID, server: str) -> bytes:
    """A Version 0x02 change-queue message for ``guid`` with one defect (V2_DEFECTS key).

    >>> body = v2_defect_message("byte-order mark", uuid.UUID(int=1), "dc")
    >>> body[2:4].hex()
    'fffe'
    """
    event, text_guid = "2", str(guid)
    build = V2_DEFECTS.get(defect) or V2_ACCEPTABLE_FORMS[defect]
    return build(event, text_guid, server)


def _tokens(event: str | None = None, guid: Any = None, server: Any = None) -> Any:
    def build(e: str, g: str, s: str) -> bytes:
        return v2_text_message(
            notification_text(
                e if event is None else event,
                g if guid is None else guid(g),
                s if server is None else server(s),
            )
        )

    return build


def _text(transform: Any, *, encoding: str = "utf-16-le", count: int = 1) -> Any:
    def build(e: str, g: str, s: str) -> bytes:
        return v2_text_message(
            transform(notification_text(e, g, s)), encoding=encoding, count=count
        )

    return build


V2_DEFECTS: dict[str, Any] = {
    "Event 0": _tokens(event="0"),
    "Event 5": _tokens(event="5"),
    "Event 12": _tokens(event="12"),
    "an empty Event": _tokens(event=""),
    "a GUID in braces": _tokens(guid=lambda g: "{" + g + "}"),
    "a 13-digit last GUID group": _tokens(guid=lambda g: g + "0"),
    "a GUID without hyphens": _tokens(guid=lambda g: g.replace("-", "")),
    "a GUID with a non-hex digit": _tokens(guid=lambda g: "g" + g[1:]),
    "a 257-character server name": _tokens(server=lambda s: "d" * 257),
    "an empty server name": _tokens(server=lambda s: ""),
    "a server name with a space": _tokens(server=lambda s: s.replace(".", " ", 1)),
    "a server name with a non-ASCII letter": _tokens(server=lambda s: "\u00e9" + s),
    "byte-order mark": _text(lambda t: "\ufeff" + t),
    "UTF-16BE text": _text(lambda t: t, encoding="utf-16-be"),
    "UTF-8 text": _text(lambda t: t, encoding="utf-8"),
    "a misspelt root element": _text(lambda t: t.replace("Notification>", "Notify>")),
    "no </Event> tag": _text(lambda t: t.replace("</Event>", "")),
    "elements out of order": _text(
        lambda t: t.replace("<Event>2</Event>", "").replace(
            "</ObjectGuid>", "</ObjectGuid><Event>2</Event>"
        )
    ),
    "an extra element": _text(
        lambda t: t.replace("</Notification>", "<Extra>1</Extra></Notification>")
    ),
    "the ABNF's </ObjectGuid > closing tag": _text(
        lambda t: t.replace("</ObjectGuid>", "</ObjectGuid >")
    ),
    "two U+0000 after the body": _text(lambda t: t + "\x00\x00"),
    "NumberOfUpdateNotifications 0": _text(lambda t: t, count=0),
    "NumberOfUpdateNotifications 2": _text(lambda t: t, count=2),
    "NumberOfUpdateNotifications 255": _text(lambda t: t, count=255),
}


# Forms of a conforming body that a strict reader must still accept (errata E-02, E-03).
V2_ACCEPTABLE_FORMS: dict[str, Any] = {
    "lower-case tags": _text(
        lambda t: re.sub(r"<(/?)([A-Za-z]+)>", lambda m: m.group(0).lower(), t)
    ),
    "upper-case tags": _text(
        lambda t: re.sub(r"<(/?)([A-Za-z]+)>", lambda m: m.group(0).upper(), t)
    ),
    "an upper-case ObjectGuid": _tokens(guid=str.upper),
    "one U+0000 after the body": _text(lambda t: t + "\x00"),
}


# --- reading what a client emitted ----------------------------------------------------------


def decoded(body: bytes) -> ChangeNotificationMessage | None:
    """The message in an emitted body, or None when the suite's codec cannot read it."""
    try:
        return decode_message(body)
    except DecodeError:
        return None


def message_length(body: bytes) -> int | None:
    """Bytes the Change Notification Message occupies at the start of ``body`` (None: no read)."""
    message = decoded(body)
    return None if message is None else len(body) - len(message.trailing)


def spare_byte_irrelevant(body: bytes) -> bool:
    """True when the message reads the same whatever its last (spare) byte holds (3.3.5.3)."""
    reference = decoded(body)
    if reference is None or not body:
        return False
    for spare in (0x00, 0x3C, 0xFF):
        other = decoded(body[:-1] + bytes((spare,)))
        if other != reference:
            return False
    return True


def propid_values(update: NotificationUpdate) -> dict[int, PropertyValue]:
    """PropertyId -> PropertyValue of one update (the first occurrence of each)."""
    out: dict[int, PropertyValue] = {}
    for prop in update.properties:
        out.setdefault(prop.propid, prop.value)
    return out


def propids_for(attributes: list[str], of_queue_manager: bool) -> set[int]:
    """The PROPIDs that carry the named Queue / QueueManager ADM attributes (3.1.1.2.1, 3.1.1.3)."""
    table = QM_ATTRIBUTE_OF if of_queue_manager else QUEUE_ATTRIBUTE_OF
    wanted = set(attributes)
    return {int(pid) for pid, name in table.items() if name in wanted}


def expected_hash_algorithm(msmq_version: str) -> HashAlgorithm:
    """The default HashAlgorithm of an MSMQ version (errata E-16: [MS-MQMQ] note <7>).

    >>> expected_hash_algorithm("2.0").name, expected_hash_algorithm("4.0").name
    ('MD5', 'SHA1')
    """
    major = int(msmq_version.split(".")[0])
    if major <= 2:
        return HashAlgorithm.MD5
    if major <= 5:
        return HashAlgorithm.SHA1
    return HashAlgorithm.SHA512


def same_format_name(left: str | None, right: str) -> bool:
    """Format names compare case-insensitively ([MS-MQMQ] 2.1: GUID text in any case)."""
    return left is not None and left.lower() == right.lower()


# --- what a client is asked to notify, and how its Messages are judged ------------------------

# (operation, changed attributes) for "the client notifies every kind of change"
EVERY_CHANGE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("QueueCreation", ()),
    ("QueueUpdate", ("Quota", "BasePriority", "Security")),
    ("QueueDeletion", ()),
    ("QueueManagerUpdate", ("QueueManagerQuota", "JournalQuota", "Security")),
)


def distinctive_queue_attributes() -> dict[str, Any]:
    """Queue attributes whose wire forms are easy to misread (sign, byte order, surrogates).

    >>> distinctive_queue_attributes()["BasePriority"]
    -255
    """
    return {
        "BasePriority": -255,  # 0xFF01: signed and little-endian
        "CreateTime": -16909060,  # 0xFEFDFCFC
        "ModifyTime": 0x12345678,
        "Quota": 0xF1020304,  # above 2**31: unsigned
        "JournalQuota": 0x01020304,
        "Journaling": 1,
        "Authentication": 1,
        "PrivacyLevel": 2,
        "Transactional": 1,
        "Label": "Z\u00fcrich \u2713 \U0001d11e",  # a non-BMP character: a surrogate pair
        "Type": uuid.UUID("00112233-4455-6677-8899-aabbccddeeff"),
        "Security": minimal_security_descriptor() + b"\xff\x80",
        "DirectoryPath": "LDAP://CN=orders,CN=msmq,DC=example,DC=com",
    }


def queue_manager_attributes() -> dict[str, Any]:
    """JSON attributes of the queue manager a scenario's directory publishes."""
    return {
        "QueueManagerQuota": 0x00020304,
        "JournalQuota": 0x01000002,
        "Security": minimal_security_descriptor().hex(),
        "ForeignSystem": 0,
    }


def named_object(message: ChangeNotificationMessage) -> uuid.UUID | None:
    """The object a message is about: ObjectGuid (v2), else GuidIdentifier or PROPID_Q_INSTANCE."""
    if message.body is not None:
        return message.body.object_guid
    if not message.updates:
        return None
    update = message.updates[0]
    if update.guid_identifier is not None:
        return update.guid_identifier
    instance = update.value_of(PropId.PROPID_Q_INSTANCE)
    return instance if isinstance(instance, uuid.UUID) else None


def sending_problems(envelope: Envelope, *, destination: uuid.UUID, msmq_version: str) -> list[str]:
    """How ``envelope`` departs from the Message of 3.3.5.3 (empty: it is as 3.3.5.3 says).

    ``destination`` is the queue manager the notification is for (the owner of the object);
    ``msmq_version`` the version the target claims (HashAlgorithm, E-16; Sig10 for 1.0, <13>).
    """
    problems: list[str] = []
    if envelope.time_to_reach_queue != TIME_TO_REACH_QUEUE_SECONDS:
        problems.append(f"TimeToReachQueue is {envelope.time_to_reach_queue}, not 300")
    if envelope.delivery_guarantee is not DeliveryGuarantee.Express:
        problems.append(f"DeliveryGuarantee is {envelope.delivery_guarantee.name}")
    if envelope.message_class is not MessageClass.Normal:
        problems.append(f"Class is {envelope.message_class.name}")
    expected_hash = expected_hash_algorithm(msmq_version)
    if envelope.hash_algorithm is not expected_hash:
        problems.append(f"HashAlgorithm is {envelope.hash_algorithm!r}, not {expected_hash.name}")
    allowed = {AuthLevel.Sig20} | ({AuthLevel.Sig10} if msmq_version.startswith("1.") else set())
    if envelope.authentication_level not in allowed:
        problems.append(f"AuthenticationLevel is {envelope.authentication_level.name}")
    if message_length(envelope.body) != len(envelope.body) - SPARE_BYTE_COUNT:
        problems.append("the Body is not the message followed by exactly one spare byte")
    wanted = notify_queue_format_name(str(destination))
    if not same_format_name(envelope.destination_format_name, wanted):
        problems.append(f"sent to {envelope.destination_format_name!r}, not {wanted!r}")
    if envelope.body[:1] == bytes((Version.DIRECTORY_SERVICE,)):
        if envelope.sender_identifier != destination:
            problems.append(f"SenderIdentifier is {envelope.sender_identifier}, not {destination}")
        if envelope.sender_identifier_type is not SenderIdType.QueueManagerIdentifier:
            problems.append(f"SenderIdentifierType is {envelope.sender_identifier_type.name}")
    return problems


def directory_kind(setup: dict[str, Any], guid: uuid.UUID) -> str | None:
    """What a scenario's directory holds under ``guid`` ("queue", "machine" or None), read
    from the JSON form of its Setup (``Setup.to_json()``)."""
    directory = setup["directory"]
    if any(e["queue"]["Identifier"] == str(guid) for e in directory["queues"]):
        return "queue"
    if any(qm["Identifier"] == str(guid) for qm in directory["queue_managers"]):
        return "machine"
    return None


def layout_problem(body: bytes) -> str | None:
    """Why ``body`` is not one whole Change Notification Message plus at most the spare byte
    (None when it is): unreadable, or bytes beyond what its counts announce."""
    try:
        message = decode_message(body)
    except DecodeError as exc:
        return f"unreadable: {exc}"
    if len(message.trailing) > SPARE_BYTE_COUNT:
        return f"{len(message.trailing)} bytes follow what the counts announce"
    return None


# server-side scenarios
# ---------------------------------------------------------------------------------------------
# Builders and readers for the server features (3.2.3, 3.2.5, 3.2.5.1, 3.2.5.2 and the server
# notes of section 6).  What a message did is read as a diff of two queue-manager states
# (:func:`state_diff`), so a Then-step compares a small dict or set with what the feature names.

INVOICES_GUID = uuid.UUID("d4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f70")  # a second owned queue
OTHER_SECURITY = minimal_security_descriptor(0x0014)  # a descriptor unlike the default one
LEADING_SAMPLES: dict[PropId, PropertyValue] = {
    PropId.PROPID_Q_SECURITY: OTHER_SECURITY,
    PropId.PROPID_QM_SECURITY: OTHER_SECURITY,
    PropId.PROPID_D_SCOPE: MQDS_ENTERPRISESCOPE,
    PropId.PROPID_D_OBJTYPE: int(MQDS.QUEUE),
    PropId.PROPID_Q_LABEL: "lead",
}
# Read Directory attribute names that mean the same ADM attribute (errata E-17).
_SAME_ATTRIBUTE = {"journaling": "journal", "transaction": "transactional"}


def v1_body(*updates: NotificationUpdate) -> bytes:
    """The body buffer (spare byte included) of a Version 0x01 message carrying ``updates``."""
    return body_buffer(v1_message(list(updates)))


def _lead(pairs: list[tuple[int, PropertyValue]], propid: PropId, value: PropertyValue) -> list:
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
    return by_type.get(vt, () if vt in _ELEMENT_OF else 1)


def leading_update(kind: str, propid: PropId, ids: ScenarioIds) -> NotificationUpdate:
    """A ``kind`` update ("queue update", "machine update", "queue creation") whose
    PropertyId[0] is ``propid``; it sets Quota / QueueManagerQuota to SENTINEL_QUOTA (or
    creates ``ids.new_queue``) if a server takes it for the object ``kind`` names.

    >>> ids = ScenarioIds(uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=3), uuid.UUID(int=4))
    >>> leading_update("queue update", PropId.PROPID_Q_SECURITY, ids).propids
    (1101, 115, 105)
    >>> leading_update("queue creation", PropId.PROPID_Q_QUOTA, ids).propids[:2]
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


def pair_from_text(name: str, text: str) -> tuple[PropId, PropertyValue]:
    """A (PROPID, value) pair a feature writes as ``PROPID_... = text``.

    >>> pair_from_text("PROPID_Q_QUOTA", "0x10")
    (<PropId.PROPID_Q_QUOTA: 105>, 16)
    """
    propid = PropId[name]
    return propid, value_from_text(PROPERTIES[propid].vt, text)


def creation_of(ids: ScenarioIds, pairs: list[tuple[int, PropertyValue]]) -> NotificationUpdate:
    """A creation (Command 0x00, PathName ``ids.new_path``) carrying exactly ``pairs``."""
    return NotificationUpdate.creation(ids.new_path, pairs, master=ids.master)


def creation_problems(
    queue: dict[str, Any] | None, pairs: list[tuple[int, PropertyValue]]
) -> list[str]:
    """How a created queue (JSON) departs from the 15 creation properties it was given."""
    if queue is None:
        return ["the queue was not created"]
    problems = []
    for propid, value in pairs:
        if propid in SERVER_QUEUE_CREATE_SETS:
            attribute = QUEUE_ATTRIBUTE_OF[PropId(propid)]
            if queue.get(attribute) != value_to_json(value):
                problems.append(
                    f"{attribute} is {queue.get(attribute)!r}, not {value_to_json(value)!r}"
                )
    return problems


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


def with_spare(body: bytes, spare: int | None) -> bytes:
    """``body`` (a body buffer ending with its spare byte) with that byte set to ``spare``, or
    dropped when ``spare`` is None."""
    return body[:-SPARE_BYTE_COUNT] + (b"" if spare is None else bytes((spare,)))


def state_diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed between two queue-manager states (``Target.state()``), one key a change:
    ``queue_manager.<Attribute>`` and ``queue <guid>.<Attribute>`` map to the new value,
    ``queue <guid>`` to "added" or "removed".

    >>> a = {"queue_manager": {"JournalQuota": 1}, "queues": {"q1": {"Quota": 1}}}
    >>> b = {"queue_manager": {"JournalQuota": 2}, "queues": {"q2": {"Quota": 1}}}
    >>> state_diff(a, b)
    {'queue_manager.JournalQuota': 2, 'queue q1': 'removed', 'queue q2': 'added'}
    """
    diff: dict[str, Any] = {}
    qm_before, qm_after = before.get("queue_manager", {}), after.get("queue_manager", {})
    for name in sorted(set(qm_before) | set(qm_after)):
        if qm_before.get(name) != qm_after.get(name):
            diff[f"queue_manager.{name}"] = qm_after.get(name)
    queues_before, queues_after = before.get("queues", {}), after.get("queues", {})
    for guid in sorted(set(queues_before) | set(queues_after)):
        old, new = queues_before.get(guid), queues_after.get(guid)
        if old is None or new is None:
            diff[f"queue {guid}"] = "added" if old is None else "removed"
            continue
        for name in sorted(set(old) | set(new)):
            if old.get(name) != new.get(name):
                diff[f"queue {guid}.{name}"] = new.get(name)
    return diff


def changed_objects(diff: dict[str, Any]) -> set[str]:
    """The objects a :func:`state_diff` touches: "queue_manager", "queue <guid>", or
    "queue <guid> added" / "queue <guid> removed".

    >>> sorted(changed_objects({"queue_manager.Security": "", "queue q1": "added"}))
    ['queue q1 added', 'queue_manager']
    """
    objects = set()
    for key, value in diff.items():
        if "." in key:
            objects.add(key.split(".", 1)[0])
        else:
            objects.add(f"{key} {value}")
    return objects


def attribute_list_problem(got: list[str] | None, wanted: tuple[str, ...]) -> str | None:
    """Why a Read Directory attribute list is not exactly ``wanted`` (None when it is); names
    compare in any case and with the spellings of errata E-17.

    >>> attribute_list_problem(["journaling", "Quota"], ("Journal", "Quota")) is None
    True
    >>> attribute_list_problem(["Quota", "Label"], ("Quota",))
    "asked for ['Label'] too"
    """
    if got is None:
        return "no attribute list"

    def norm(name: str) -> str:
        return _SAME_ATTRIBUTE.get(name.lower(), name.lower())

    names = [norm(n) for n in got]
    expected = {norm(n) for n in wanted}
    extra = sorted({n for n, m in zip(got, names, strict=True) if m not in expected})
    missing = sorted(n for n in wanted if norm(n) not in set(names))
    if len(names) != len(set(names)):
        return f"asked for some attributes twice: {got}"
    if extra:
        return f"asked for {extra} too"
    if missing:
        return f"did not ask for {missing}"
    return None


def read_problems(
    read: dict[str, Any] | None, object_type: str, guid: uuid.UUID, server: str | None = None
) -> list[str]:
    """How one recorded Read Directory (``Target.directory_reads()`` item) departs from a read
    of the ``object_type`` whose Identifier is ``guid``, with the attribute list of 3.2.5.2
    (and, if given, sent to the directory server ``server``)."""
    if read is None:
        return ["no Read Directory was made"]
    wanted = V2_QUEUE_READ_ATTRIBUTES if object_type == "Queue" else V2_QM_READ_ATTRIBUTES
    problems = []
    if str(read.get("object_type", "")).lower() != object_type.lower():
        problems.append(f"read a {read.get('object_type')!r}, not a {object_type!r}")
    if str(read.get("identifier", "")).lower() != str(guid):
        problems.append(f"filtered on Identifier {read.get('identifier')!r}, not {guid}")
    listed = attribute_list_problem(read.get("attributes"), wanted)
    if listed:
        problems.append(listed)
    if server is not None and str(read.get("server") or "").lower() != server.lower():
        problems.append(f"asked the server {read.get('server')!r}, not {server!r}")
    return problems


def read_attribute_problems(
    local: dict[str, Any] | None, published: dict[str, Any], names: tuple[str, ...]
) -> list[str]:
    """Attributes (3.2.5.2 read names) in which a local object (JSON) differs from what the
    directory publishes for it (JSON)."""
    if local is None:
        return ["the object is not in the queue manager's state"]
    problems = []
    for name in names:
        attribute = "Journaling" if name == "Journal" else name
        if local.get(attribute) != published.get(attribute):
            mine, theirs = local.get(attribute), published.get(attribute)
            problems.append(f"{attribute} is {mine!r}, the directory has {theirs!r}")
    return problems


def directory_copy_problems(
    setup: dict[str, Any], state: dict[str, Any], guid: uuid.UUID, *, queue_manager: bool
) -> list[str]:
    """Attributes in which the queue (or, ``queue_manager``, the queue manager) ``guid`` of
    ``state`` differs from what a Read Directory of 3.2.5.2 returns for it from the scenario's
    directory (``Setup.to_json()``)."""
    if queue_manager:
        published = published_queue_manager(setup, guid)
        return read_attribute_problems(state["queue_manager"], published, V2_QM_READ_ATTRIBUTES)
    local = state["queues"].get(str(guid))
    return read_attribute_problems(local, published_queue(setup, guid), V2_QUEUE_READ_ATTRIBUTES)


def published_queue(setup: dict[str, Any], guid: uuid.UUID) -> dict[str, Any]:
    """The JSON of the queue a scenario's directory publishes under ``guid`` (Setup.to_json())."""
    for entry in setup["directory"]["queues"]:
        if entry["queue"]["Identifier"] == str(guid):
            return entry["queue"]
    raise KeyError(f"the directory of this scenario publishes no queue {guid}")


def published_queue_manager(setup: dict[str, Any], guid: uuid.UUID) -> dict[str, Any]:
    """The JSON attributes of the queue manager a scenario's directory publishes under ``guid``."""
    for qm in setup["directory"]["queue_managers"]:
        if qm["Identifier"] == str(guid):
            return qm
    raise KeyError(f"the directory of this scenario publishes no queue manager {guid}")


def _cut_quota_change(ids: ScenarioIds) -> bytes:
    good = body_buffer(v1_message([quota_change(ids)]))
    return good[: len(good) // 2]


SERVER_MALFORMED: dict[str, Any] = {
    "an empty body": lambda ids: b"",
    "a lone Version byte 0x01": lambda ids: b"\x01",
    "a Version 0x01 header announcing an update that is missing": lambda ids: b"\x01\x01",
    "a Quota change cut in half": _cut_quota_change,
    "a Version 0x02 header without a Notification Body": lambda ids: b"\x02\x01",
    "a Version 0x02 body that is not UTF-16 text": lambda ids: b"\x02\x01\xff\xfe\xff",
    "4 KiB of 0xFF": lambda ids: b"\xff" * 4096,
}


def server_malformed(name: str, ids: ScenarioIds) -> bytes:
    """A malformed body a queue manager has to disregard (SERVER_MALFORMED key).

    >>> ids = ScenarioIds(uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=3), uuid.UUID(int=4))
    >>> decoded(server_malformed("a Quota change cut in half", ids)) is None
    True
    """
    return SERVER_MALFORMED[name](ids)


def alternating_stream(ids: ScenarioIds, count: int) -> list[tuple[bytes, int | None]]:
    """``count`` bodies alternating a Quota change (the n-th to SENTINEL_QUOTA + n) and a
    malformed body, with the Quota each should leave (None: the message is disregarded)."""
    malformed = list(SERVER_MALFORMED.values())
    stream: list[tuple[bytes, int | None]] = []
    for n in range(count):
        if n % 2:
            stream.append((malformed[(n // 2) % len(malformed)](ids), None))
        else:
            stream.append(
                (
                    body_buffer(v1_message([quota_change(ids, SENTINEL_QUOTA + n)])),
                    SENTINEL_QUOTA + n,
                )
            )
    return stream


def sender_identifier_type_named(text: str) -> SenderIdType:
    """The SenderIdentifierType a feature names ("None", "Sid", "QueueManagerIdentifier")."""
    return SenderIdType["None_" if text == "None" else text]


def authentication_level_named(text: str) -> AuthLevel:
    """The AuthenticationLevel a feature names ("None", "Always", "Sig10", ...)."""
    return AuthLevel["None_" if text == "None" else text]


ADS_PATH_SAMPLE = "LDAP://CN=newq,CN=msmq,CN=qm1,DC=example,DC=com"
# A value for each property a queue update may change (3.2.5.1), unlike existing_queue()'s.
QUEUE_UPDATE_SAMPLE: dict[PropId, PropertyValue] = {
    PropId.PROPID_Q_JOURNAL: 1,
    PropId.PROPID_Q_QUOTA: 4321,
    PropId.PROPID_Q_BASEPRIORITY: -3,
    PropId.PROPID_Q_JOURNAL_QUOTA: 8765,
    PropId.PROPID_Q_SECURITY: OTHER_SECURITY,
    PropId.PROPID_Q_AUTHENTICATE: 1,
    PropId.PROPID_Q_PRIV_LEVEL: 2,
}
# The same for a machine update, unlike a fresh QueueManager's values.
MACHINE_UPDATE_SAMPLE: dict[PropId, PropertyValue] = {
    PropId.PROPID_QM_QUOTA: 4321,
    PropId.PROPID_QM_JOURNAL_QUOTA: 8765,
    PropId.PROPID_QM_SECURITY: OTHER_SECURITY,
}


def expected_changes(
    prefix: str, pairs: dict[PropId, PropertyValue], *, of_queue_manager: bool
) -> dict[str, Any]:
    """The :func:`state_diff` that applying ``pairs`` to the object keyed ``prefix`` (e.g.
    ``queue <guid>`` or ``queue_manager``) gives."""
    table = QM_ATTRIBUTE_OF if of_queue_manager else QUEUE_ATTRIBUTE_OF
    return {f"{prefix}.{table[p]}": value_to_json(v) for p, v in pairs.items()}


# label -> the spare byte (None: no spare byte at all)
SPARE_VARIANTS: dict[str, int | None] = {
    "no spare byte": None,
    "0x00": 0x00,
    "0x01": 0x01,
    "0x3C": 0x3C,
    "0x80": 0x80,
    "0xFF": 0xFF,
}
RESERVED_FILLINGS: dict[str, bytes] = {
    "0xFF bytes": b"\xff" * RESERVED_SIZE,
    "the bytes 0x01 to 0x18": bytes(range(1, RESERVED_SIZE + 1)),
    "ASCII text": b"reserved for future use!",
}


def every_kind_body(
    ids: ScenarioIds, second: uuid.UUID, reserved: bytes = bytes(RESERVED_SIZE)
) -> bytes:
    """The body of :func:`every_kind_of_update` with every update's Reserved set to ``reserved``.

    >>> ids = ScenarioIds(uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=3), uuid.UUID(int=4))
    >>> zero, text = every_kind_body(ids, ids.queue), every_kind_body(ids, ids.queue, b"x" * 24)
    >>> len(zero) == len(text) and zero != text
    True
    """
    return v1_body(*(with_reserved(u, reserved) for u in every_kind_of_update(ids, second)))


def quotas_after_each(stream: list[tuple[bytes, int | None]], initial: Any) -> list[Any]:
    """The Quota the owned queue should hold after each body of :func:`alternating_stream`.

    >>> quotas_after_each([(b"", 5), (b"", None), (b"", 6)], 1)
    [5, 5, 6]
    """
    out, current = [], initial
    for _body, quota in stream:
        current = current if quota is None else quota
        out.append(current)
    return out


def open_queue_problems(opened: dict[str, Any] | None, format_name: str) -> list[str]:
    """How a reported Open Queue departs from the one of 3.2.3 for ``format_name``
    (NOTIFY_QUEUE_PRIVATE of the queue manager), ReceiveAccess and DenyNone.

    >>> open_queue_problems({"format_name": "PRIVATE=AB\\3", "required_access": "ReceiveAccess",
    ...                      "shared_mode": "DenyNone"}, "PRIVATE=ab\\3")
    []
    """
    if opened is None:
        return ["no Open Queue was reported"]
    problems = []
    if not same_format_name(opened.get("format_name"), format_name):
        problems.append(f"format name {opened.get('format_name')!r}, not {format_name!r}")
    if opened.get("required_access") != "ReceiveAccess":
        problems.append(f"access {opened.get('required_access')!r}, not 'ReceiveAccess'")
    if opened.get("shared_mode") != "DenyNone":
        problems.append(f"share mode {opened.get('shared_mode')!r}, not 'DenyNone'")
    return problems


def attribute_value_json(attribute: str, text: str, *, of_queue_manager: bool) -> Any:
    """The JSON form of ``text`` written in a feature as a value of the ADM ``attribute``.

    >>> attribute_value_json("BasePriority", "-3", of_queue_manager=False)
    -3
    """
    table = QM_ATTRIBUTE_OF if of_queue_manager else QUEUE_ATTRIBUTE_OF
    propid = next(p for p, name in table.items() if name == attribute)
    return value_to_json(value_from_text(PROPERTIES[propid].vt, text))
