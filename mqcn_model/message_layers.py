"""Scapy layers for the MS-MQCN wire structures: the slow, inspectable twin of the fast codec.

The fast codec (:mod:`mqcn_model.codec`) decodes and judges; these layers *build* anything,
including the malformed messages the fast codec refuses, and show them field by field.  Every
length and count is computed when left at ``None`` and can be overridden to lie.

* :class:`ChangeNotificationMessage` (2.2.4): Version, NumberOfUpdateNotifications, Data,
  and Trailing (the 3.3.5.3 spare byte, or more);
* :class:`NotificationUpdate` (2.2.6): one directory-service change (Version 0x01 Data);
* :class:`NotificationBody` (2.2.5): the UTF-16LE mark-up of a Version 0x02 message;
* :class:`PropValue` subclasses (2.2.3): one property value per VT (``PROPVALUE_LAYERS[vt]``).

Only ``scapy.packet`` and ``scapy.fields`` are imported (never ``scapy.all``); the dissection
that never raises and the GUID, UTF-16 and computed-count fields come from
:mod:`mqcn_model.scapy_base`, shared with the wire packet layers.
:func:`to_layer` and :func:`from_layer` convert to and from the fast codec's objects, so the
two implementations can be compared byte for byte.

>>> import uuid
>>> msg = ChangeNotificationMessage(Data=[NotificationUpdate(
...     Command=2, UseGuid=1, GuidIdentifier=uuid.UUID(int=1),
...     **properties([(1403, 1), (1404, 1)]))])
>>> wire = bytes(msg)
>>> wire[:4].hex(), len(wire)
('01010201', 71)
>>> ChangeNotificationMessage(wire).Data[0].PropertyId
[1403, 1404]
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from typing import Any, ClassVar

from scapy.fields import (
    ByteEnumField,
    ByteField,
    ConditionalField,
    Field,
    FieldLenField,
    FieldListField,
    LEIntEnumField,
    LEIntField,
    LELongField,
    LEShortEnumField,
    LEShortField,
    LESignedIntField,
    LESignedLongField,
    LESignedShortField,
    PacketListField,
    SignedByteField,
    StrField,
    StrLenField,
    XStrFixedLenField,
)
from scapy.packet import Raw

from mqcn_model.codec.body import NotificationBody as FastBody
from mqcn_model.codec.message import ChangeNotificationMessage as FastMessage
from mqcn_model.codec.propvalue import PropertyValue
from mqcn_model.codec.update import NotificationUpdate as FastUpdate
from mqcn_model.codec.update import Property
from mqcn_model.constants import (
    MAX_PROPERTIES,
    MAX_UPDATES,
    PROPERTIES,
    RESERVED_SIZE,
    VARIANT_FALSE,
    VARIANT_TRUE,
    VT,
    Command,
    Event,
    PropId,
    Version,
)
from mqcn_model.scapy_base import (
    AutoByteField,
    GUIDField,
    SalvagingLayer,
    ScapyPacket,
    UTF16ZField,
)

__all__ = [
    "PROPVALUE_LAYERS",
    "ChangeNotificationMessage",
    "NotificationBody",
    "NotificationUpdate",
    "PropValue",
    "PropValueBLOB",
    "PropValueBOOL",
    "PropValueCLSID",
    "PropValueCLSIDVector",
    "PropValueI1",
    "PropValueI2",
    "PropValueI4",
    "PropValueI8",
    "PropValueLPWSTR",
    "PropValueLPWSTRVector",
    "PropValueUI1",
    "PropValueUI2",
    "PropValueUI4",
    "PropValueUI4Vector",
    "PropValueUI8",
    "dissect_value",
    "from_layer",
    "prop_value",
    "properties",
    "to_layer",
]

_MAX_VECTOR = 0xFFFFFFFF  # a vector Size is a ULONG; the data bounds the real count
_NIL = uuid.UUID(int=0)

# --- robust dissection ---------------------------------------------------------------------


class _NestedLayer(SalvagingLayer):
    """A structure that lives inside another: what follows it goes back to the container,
    but a broken one keeps its undecodable rest as its own ``Raw`` payload, so the container
    (a count of updates, a vector) reads no further and ``bytes(message)`` equals the input."""

    def extract_padding(self, s: bytes) -> tuple[bytes, bytes | None]:
        if self.broken:
            return s, None  # keep the undecodable rest here, as Raw
        return b"", s


# --- PROPVALUE (2.2.3) ---------------------------------------------------------------------


class PropValue(_NestedLayer):
    """One property value (2.2.3); the wire carries no type, so each VT has its own subclass.

    ``PROPVALUE_LAYERS[vt]`` is the subclass; :func:`prop_value` builds one from a Python
    value, :func:`dissect_value` reads one, :meth:`to_python` gives the fast codec's value.

    >>> p = prop_value(VT.UI4_VECTOR, (1, 2))
    >>> bytes(p).hex(), p.to_python()
    ('020000000100000002000000', (1, 2))
    """

    vt: ClassVar[VT]
    fields_desc: ClassVar[list[Field[Any, Any]]] = []

    def to_python(self) -> PropertyValue:
        """The value as the fast codec represents it; ValueError if the layer is malformed."""
        return int(self.Value)

    def _check_size(self) -> None:
        size = self.Size
        if size is not None and size != len(self.Value):
            raise ValueError(f"{self.name}: Size {size} but {len(self.Value)} elements")


class PropValueI1(PropValue):
    """VT_I1 (2.2.3.4): one signed byte.  ``bytes(PropValueI1(Value=-1)) == b"\\xff"``."""

    name = VT.I1.label
    vt = VT.I1
    fields_desc: ClassVar[list[Field[Any, Any]]] = [SignedByteField("Value", 0)]


class PropValueUI1(PropValue):
    """VT_UI1 (2.2.3.5): one unsigned byte.  ``bytes(PropValueUI1(Value=1)) == b"\\x01"``."""

    name = VT.UI1.label
    vt = VT.UI1
    fields_desc: ClassVar[list[Field[Any, Any]]] = [ByteField("Value", 0)]


class PropValueI2(PropValue):
    """VT_I2 (2.2.3.1): 2-byte signed LE.  ``bytes(PropValueI2(Value=-2)) == b"\\xfe\\xff"``."""

    name = VT.I2.label
    vt = VT.I2
    fields_desc: ClassVar[list[Field[Any, Any]]] = [LESignedShortField("Value", 0)]


class PropValueUI2(PropValue):
    """VT_UI2 (2.2.3.6): 2-byte unsigned LE.  ``bytes(PropValueUI2(Value=1)) == b"\\x01\\x00"``."""

    name = VT.UI2.label
    vt = VT.UI2
    fields_desc: ClassVar[list[Field[Any, Any]]] = [LEShortField("Value", 0)]


class PropValueI4(PropValue):
    """VT_I4 (2.2.3.2): 4-byte signed LE.  ``len(PropValueI4(Value=-1)) == 4``."""

    name = VT.I4.label
    vt = VT.I4
    fields_desc: ClassVar[list[Field[Any, Any]]] = [LESignedIntField("Value", 0)]


class PropValueUI4(PropValue):
    """VT_UI4 (2.2.3.7): 4-byte unsigned LE.  ``len(PropValueUI4(Value=0xFFFFFFFF)) == 4``."""

    name = VT.UI4.label
    vt = VT.UI4
    fields_desc: ClassVar[list[Field[Any, Any]]] = [LEIntField("Value", 0)]


class PropValueI8(PropValue):
    """VT_I8 (2.2.3.8): 8-byte signed LE.  ``len(PropValueI8(Value=-1)) == 8``."""

    name = VT.I8.label
    vt = VT.I8
    fields_desc: ClassVar[list[Field[Any, Any]]] = [LESignedLongField("Value", 0)]


class PropValueUI8(PropValue):
    """VT_UI8 (2.2.3.9): 8-byte unsigned LE.  ``len(PropValueUI8(Value=2**64 - 1)) == 8``."""

    name = VT.UI8.label
    vt = VT.UI8
    fields_desc: ClassVar[list[Field[Any, Any]]] = [LELongField("Value", 0)]


class _BoolField(LEShortEnumField):
    """16-bit VARIANT_BOOL; ``True``/``False`` become 0xFFFF/0x0000, any int is kept."""

    def __init__(self, name: str, default: int) -> None:
        super().__init__(
            name, default, {VARIANT_TRUE: "VARIANT_TRUE", VARIANT_FALSE: "VARIANT_FALSE"}
        )

    def any2i(self, pkt: ScapyPacket | None, x: Any) -> Any:
        if isinstance(x, bool):
            return VARIANT_TRUE if x else VARIANT_FALSE
        return super().any2i(pkt, x)


class PropValueBOOL(PropValue):
    """VT_BOOL (2.2.3.3): 0xFFFF true, 0x0000 false; any other 16-bit value can be built.

    >>> bytes(PropValueBOOL(Value=True)).hex(), bytes(PropValueBOOL(Value=0x1234)).hex()
    ('ffff', '3412')
    """

    name = VT.BOOL.label
    vt = VT.BOOL
    fields_desc: ClassVar[list[Field[Any, Any]]] = [_BoolField("Value", VARIANT_FALSE)]

    def to_python(self) -> PropertyValue:
        if self.Value not in (VARIANT_TRUE, VARIANT_FALSE):
            raise ValueError(f"VT_BOOL 0x{self.Value:04x} is neither VARIANT_TRUE nor FALSE")
        return self.Value == VARIANT_TRUE


class PropValueLPWSTR(PropValue):
    """VT_LPWSTR (2.2.3.10): UTF-16LE + 0x0000; ``bytes`` give an unterminated value.

    >>> bytes(PropValueLPWSTR(Value="hi")).hex(), bytes(PropValueLPWSTR(Value=b"h\\x00")).hex()
    ('680069000000', '6800')
    """

    name = VT.LPWSTR.label
    vt = VT.LPWSTR
    fields_desc: ClassVar[list[Field[Any, Any]]] = [UTF16ZField("Value", "")]

    def to_python(self) -> PropertyValue:
        if not isinstance(self.Value, str):
            raise ValueError("VT_LPWSTR has no 0x0000 terminator")
        return self.Value


class PropValueBLOB(PropValue):
    """VT_BLOB (2.2.3.11): Size (4-byte LE, computed) then Size bytes.

    >>> bytes(PropValueBLOB(Value=b"ab")).hex()
    '020000006162'
    >>> bytes(PropValueBLOB(Size=0xFFFFFFFF, Value=b"abc")).hex()  # a Size beyond the data
    'ffffffff616263'
    """

    name = VT.BLOB.label
    vt = VT.BLOB
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        FieldLenField("Size", None, length_of="Value", fmt="<I"),
        StrLenField("Value", b"", length_from=lambda p: p.Size),
    ]

    def to_python(self) -> PropertyValue:
        self._check_size()
        return bytes(self.Value)


class PropValueCLSID(PropValue):
    """VT_CLSID (2.2.3.12): one GUID.  ``len(PropValueCLSID(Value=uuid.UUID(int=1))) == 16``."""

    name = VT.CLSID.label
    vt = VT.CLSID
    fields_desc: ClassVar[list[Field[Any, Any]]] = [GUIDField("Value", _NIL)]

    def to_python(self) -> PropertyValue:
        return self.Value


class PropValueUI4Vector(PropValue):
    """VT_UI4 | VT_VECTOR (2.2.3.13): Size (computed) then Size VT_UI4 values.

    >>> bytes(PropValueUI4Vector(Value=[7])).hex(), bytes(PropValueUI4Vector(Size=9)).hex()
    ('0100000007000000', '09000000')
    """

    name = VT.UI4_VECTOR.label
    vt = VT.UI4_VECTOR
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        FieldLenField("Size", None, count_of="Value", fmt="<I"),
        FieldListField(
            "Value", [], LEIntField("", 0), count_from=lambda p: p.Size, max_count=_MAX_VECTOR
        ),
    ]

    def to_python(self) -> PropertyValue:
        self._check_size()
        return tuple(int(v) for v in self.Value)


class PropValueCLSIDVector(PropValue):
    """VT_CLSID | VT_VECTOR (2.2.3.14): Size (computed) then Size GUIDs.

    >>> len(PropValueCLSIDVector(Value=[uuid.UUID(int=1), uuid.UUID(int=2)]))
    36
    """

    name = VT.CLSID_VECTOR.label
    vt = VT.CLSID_VECTOR
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        FieldLenField("Size", None, count_of="Value", fmt="<I"),
        FieldListField(
            "Value", [], GUIDField("", _NIL), count_from=lambda p: p.Size, max_count=_MAX_VECTOR
        ),
    ]

    def to_python(self) -> PropertyValue:
        self._check_size()
        return tuple(self.Value)


class PropValueLPWSTRVector(PropValue):
    """VT_LPWSTR | VT_VECTOR (2.2.3.15): Size (computed) then Size VT_LPWSTR values.

    >>> bytes(PropValueLPWSTRVector(Value=["a", ""])).hex()
    '02000000610000000000'
    """

    name = VT.LPWSTR_VECTOR.label
    vt = VT.LPWSTR_VECTOR
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        FieldLenField("Size", None, count_of="Value", fmt="<I"),
        FieldListField(
            "Value", [], UTF16ZField("", ""), count_from=lambda p: p.Size, max_count=_MAX_VECTOR
        ),
    ]

    def to_python(self) -> PropertyValue:
        self._check_size()
        if not all(isinstance(v, str) for v in self.Value):
            raise ValueError("a VT_LPWSTR | VT_VECTOR element has no 0x0000 terminator")
        return tuple(self.Value)


PROPVALUE_LAYERS: dict[VT, type[PropValue]] = {
    cls.vt: cls
    for cls in (
        PropValueI1,
        PropValueUI1,
        PropValueI2,
        PropValueUI2,
        PropValueI4,
        PropValueUI4,
        PropValueI8,
        PropValueUI8,
        PropValueBOOL,
        PropValueLPWSTR,
        PropValueBLOB,
        PropValueCLSID,
        PropValueUI4Vector,
        PropValueCLSIDVector,
        PropValueLPWSTRVector,
    )
}


def prop_value(vt: VT | int, value: Any = None, **fields: Any) -> PropValue:
    """Build the PropValue layer of type ``vt`` holding ``value`` (fast-codec Python value).

    Extra ``fields`` override the wire fields, e.g. ``Size`` to lie about a count.

    >>> bytes(prop_value(VT.BLOB, b"xyz", Size=0xFFFFFFFF)).hex()
    'ffffffff78797a'
    >>> bytes(prop_value(VT.BOOL, 0x1234)).hex()
    '3412'
    """
    cls = PROPVALUE_LAYERS[VT(vt)]
    if value is not None:
        if isinstance(value, tuple):
            value = list(value)
        fields = {"Value": value, **fields}
    return cls(**fields)


def dissect_value(vt: VT | int, data: bytes) -> PropValue:
    """Dissect ``data`` as one value of type ``vt``; what follows it is left as Padding.

    >>> dissect_value(VT.LPWSTR, "ab".encode("utf-16-le") + b"\\0\\0").to_python()
    'ab'
    """
    return PROPVALUE_LAYERS[VT(vt)](data)


def _value_layer(propid: int, value: Any) -> ScapyPacket:
    """The layer for ``value`` as PROPID ``propid``'s wire type (packets and bytes kept)."""
    if isinstance(value, ScapyPacket):
        return value
    if isinstance(value, bytes | bytearray) and propid not in PROPERTIES:
        return Raw(load=bytes(value))
    definition = PROPERTIES.get(propid)  # type: ignore[call-overload]
    if definition is None:
        raise ValueError(f"PROPID {propid} is unknown: pass a PropValue layer or bytes")
    return prop_value(definition.vt, value)


def properties(pairs: Iterable[tuple[int, Any]]) -> dict[str, list[Any]]:
    """``PropertyId``/``PropertyValue`` keyword arguments for :class:`NotificationUpdate`.

    Each value is a fast-codec Python value (typed by its PROPID), a PropValue layer or, for
    an unknown PROPID, raw bytes.

    >>> kw = properties([(PropId.PROPID_Q_LABEL, "x")])
    >>> kw["PropertyId"], bytes(kw["PropertyValue"][0]).hex()
    ([108], '78000000')
    """
    pairs = list(pairs)
    return {
        "PropertyId": [int(pid) for pid, _ in pairs],
        "PropertyValue": [_value_layer(int(pid), value) for pid, value in pairs],
    }


# --- Notification Update (2.2.6) -----------------------------------------------------------


def _next_value_cls(
    pkt: ScapyPacket, lst: list[ScapyPacket], cur: ScapyPacket | None, remain: bytes
) -> type[ScapyPacket] | None:
    """PropertyValue[i] is typed by PropertyId[i]; an unknown PROPID leaves the rest raw."""
    index = len(lst) + (cur is not None)
    ids = pkt.PropertyId or []
    if index >= len(ids):
        return None
    definition = PROPERTIES.get(ids[index])
    return Raw if definition is None else PROPVALUE_LAYERS[definition.vt]


class NotificationUpdate(_NestedLayer):
    """Notification Update (2.2.6): one change sent by a directory service.

    ``PathName`` is on the wire iff ``UseGuid == 0``, ``GuidIdentifier`` iff ``UseGuid == 1``
    (so any other UseGuid builds neither).  ``NumberOfProperties`` counts ``PropertyId``
    unless set; :func:`properties` builds the id and value lists from pairs.

    >>> u = NotificationUpdate(PathName="h\\\\q", **properties([(PropId.PROPID_Q_JOURNAL, 1)]))
    >>> len(u), u.UseGuid
    (56, 0)
    >>> bad = NotificationUpdate(NumberOfProperties=5, **properties([(104, 1), (113, 0)]))
    >>> bytes(bad)[-11:].hex()  # NumberOfProperties 5, then only 2 ids and 2 values
    '0568000000710000000100'
    """

    name = "MQCN Notification Update"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        ByteEnumField("Command", Command.CREATE, {int(c): c.name for c in Command}),
        ByteEnumField("UseGuid", 0, {0: "PathName", 1: "GuidIdentifier"}),
        ConditionalField(UTF16ZField("PathName", "host\\queue"), lambda p: p.UseGuid == 0),
        ConditionalField(GUIDField("GuidIdentifier", _NIL), lambda p: p.UseGuid == 1),
        GUIDField("GuidMasterId", _NIL),
        XStrFixedLenField("Reserved", bytes(RESERVED_SIZE), RESERVED_SIZE),
        FieldLenField("NumberOfProperties", None, count_of="PropertyId", fmt="B"),
        FieldListField(
            "PropertyId",
            [],
            LEIntEnumField("", 0, {int(p): p.name for p in PropId}),
            count_from=lambda p: p.NumberOfProperties,
            max_count=MAX_PROPERTIES,
        ),
        PacketListField("PropertyValue", [], next_cls_cb=_next_value_cls, max_count=MAX_PROPERTIES),
    ]


# --- Notification Body (2.2.5) -------------------------------------------------------------

_BODY = re.compile(
    r"<Notification><Event>(.*?)</Event><ObjectGuid>(.*?)</ObjectGuid ?>"
    r"<DomainController>(.*)</DomainController></Notification>\x00?",
    re.IGNORECASE | re.DOTALL,
)
_EVENT_NAMES = {str(int(e)): e.name for e in Event}


def _parse_body(raw: bytes) -> tuple[str | None, str | None, str | None]:
    """(Event, ObjectGuid, DomainController) texts of a UTF-16LE body, or Nones."""
    match = _BODY.fullmatch(raw[: len(raw) & ~1].decode("utf-16-le", "surrogatepass"))
    return match.groups() if match else (None, None, None)  # type: ignore[return-value]


def _compose_body(pkt: ScapyPacket) -> str:
    event, guid, server = (pkt.getfieldval(n) for n in ("Event", "ObjectGuid", "DomainController"))
    return (
        f"<Notification><Event>{event or ''}</Event><ObjectGuid>{guid or ''}</ObjectGuid>"
        f"<DomainController>{server or ''}</DomainController></Notification>"
    )


class _BodyPartField(StrField):
    """One token of the body mark-up, shown as a field but written by ``Text`` (no wire)."""

    __slots__ = ("index",)

    def __init__(self, name: str, default: str, index: int) -> None:
        super().__init__(name, default)
        self.index = index

    def any2i(self, pkt: ScapyPacket | None, x: Any) -> Any:
        if x is None or isinstance(x, str):
            return x
        return str(int(x)) if isinstance(x, int) else str(x)

    def i2m(self, pkt: ScapyPacket | None, x: Any) -> bytes:
        return b""

    def addfield(self, pkt: ScapyPacket, s: bytes, val: Any) -> bytes:
        return s

    def getfield(self, pkt: ScapyPacket, s: bytes) -> tuple[bytes, Any]:
        tokens = pkt.__dict__.get("_tokens")  # parsed once per dissection by pre_dissect
        return s, (tokens or _parse_body(bytes(s)))[self.index]

    def i2repr(self, pkt: ScapyPacket | None, x: Any) -> str:
        if self.index == 0 and x in _EVENT_NAMES:
            return f"{x!r} ({_EVENT_NAMES[x]})"
        return repr(x)


class _BodyTextField(Field[Any, bytes]):
    """The whole body on the wire: composed from the tokens when ``None``.

    A ``str`` is written as UTF-16LE, ``bytes`` verbatim.  Dissection takes the even-length
    part of the rest and keeps it here only when the tokens do not rebuild it exactly.
    """

    def __init__(self, name: str) -> None:
        super().__init__(name, None, fmt="H")

    def i2m(self, pkt: ScapyPacket | None, x: Any) -> bytes:
        if x is None:
            x = _compose_body(pkt) if pkt is not None else ""
        if isinstance(x, bytes | bytearray):
            return bytes(x)
        return str(x).encode("utf-16-le", "surrogatepass")

    def addfield(self, pkt: ScapyPacket, s: bytes, val: Any) -> bytes:
        return s + self.i2m(pkt, val)

    def getfield(self, pkt: ScapyPacket, s: bytes) -> tuple[bytes, Any]:
        even = len(s) & ~1
        raw, rest = bytes(s[:even]), s[even:]
        text = raw.decode("utf-16-le", "surrogatepass")
        if pkt.getfieldval("Event") is not None and _compose_body(pkt) == text:
            return rest, None
        return rest, text

    def i2repr(self, pkt: ScapyPacket | None, x: Any) -> str:
        return "(composed)" if x is None else repr(x)


class NotificationBody(_NestedLayer):
    """Notification Body (2.2.5): the UTF-16LE mark-up of a Version 0x02 message.

    ``Event``, ``ObjectGuid`` and ``DomainController`` are the three tokens (any text, so an
    Event of ``"9"`` or a server name with a space can be built); ``Text`` overrides the
    whole body (``str`` or raw ``bytes``) for anything the tokens cannot say.  Dissection
    fills the tokens (tags in any case) and keeps ``Text`` only when they do not rebuild the
    bytes exactly; an odd last byte is left to the container (the 3.3.5.3 spare byte).

    >>> b = NotificationBody(Event=4, ObjectGuid=uuid.UUID(int=9), DomainController="dc1")
    >>> bytes(b)[:12].decode("utf-16-le")
    '<Notif'
    >>> d = NotificationBody(bytes(b))
    >>> d.Event, d.DomainController, d.Text
    ('4', 'dc1', None)
    >>> NotificationBody(Text="<Notification>").Event
    '1'
    """

    name = "MQCN Notification Body"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        _BodyPartField("Event", "1", 0),
        _BodyPartField("ObjectGuid", str(_NIL), 1),
        _BodyPartField("DomainController", "dc", 2),
        _BodyTextField("Text"),
    ]

    def pre_dissect(self, s: bytes) -> bytes:
        self.__dict__["_tokens"] = _parse_body(bytes(s))
        return s


# --- Change Notification Message (2.2.4) ---------------------------------------------------


def _auto_count(pkt: ScapyPacket) -> int:
    """NumberOfUpdateNotifications: 1 for Version 0x02, else the number of Data entries."""
    if pkt.Version == Version.QUEUE_MANAGER:
        return 1
    return len(pkt.Data or [])


def _next_data_cls(
    pkt: ScapyPacket, lst: list[ScapyPacket], cur: ScapyPacket | None, remain: bytes
) -> type[ScapyPacket] | None:
    """Version 0x01: NumberOfUpdateNotifications updates; 0x02: one body; else nothing."""
    index = len(lst) + (cur is not None)
    if pkt.Version == Version.QUEUE_MANAGER:
        return NotificationBody if index == 0 else None
    if pkt.Version == Version.DIRECTORY_SERVICE and index < pkt.NumberOfUpdateNotifications:
        return NotificationUpdate
    return None


class ChangeNotificationMessage(SalvagingLayer):
    """Change Notification Message (2.2.4): Version, NumberOfUpdateNotifications, Data.

    ``Data`` holds NotificationUpdate layers (Version 0x01) or one NotificationBody (0x02);
    ``NumberOfUpdateNotifications`` is computed unless set.  ``Trailing`` is whatever
    follows the structure: one byte there is the 3.3.5.3 spare byte.  A dissection with any
    other Version leaves all of Data in ``Trailing``.

    >>> bytes(ChangeNotificationMessage()).hex()
    '0100'
    >>> m = ChangeNotificationMessage(Version=2, Data=NotificationBody(), Trailing=b"\\0")
    >>> wire = bytes(m)
    >>> wire[:2].hex(), len(wire) % 2
    ('0201', 1)
    >>> d = ChangeNotificationMessage(wire)
    >>> d.Data[0].DomainController, d.Trailing
    ('dc', b'\\x00')
    >>> bytes(ChangeNotificationMessage(Version=3, NumberOfUpdateNotifications=0)).hex()
    '0300'
    """

    name = "MQCN Change Notification Message"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        ByteEnumField("Version", Version.DIRECTORY_SERVICE, {int(v): v.name for v in Version}),
        AutoByteField("NumberOfUpdateNotifications", _auto_count),
        PacketListField("Data", [], next_cls_cb=_next_data_cls, max_count=MAX_UPDATES),
        StrField("Trailing", b""),
    ]


# --- bridges to the fast codec -------------------------------------------------------------


def to_layer(message: FastMessage, *, trailing: bool = False) -> ChangeNotificationMessage:
    """The scapy twin of a fast-codec message (``trailing``: also write ``message.trailing``).

    ``bytes(to_layer(m)) == encode_message(m)`` for every message the fast codec can encode.

    >>> from mqcn_model.codec import encode_message, v2_message
    >>> m = v2_message(FastBody(1, uuid.UUID(int=3), "dc"))
    >>> bytes(to_layer(m)) == encode_message(m)
    True
    """
    data: list[ScapyPacket] = []
    if message.body is not None:
        body = message.body
        data.append(
            NotificationBody(
                Event=body.event,
                ObjectGuid=body.object_guid,
                DomainController=body.domain_controller,
            )
        )
    for update in message.updates:
        fields: dict[str, Any] = {
            "Command": update.command,
            "UseGuid": update.use_guid,
            "GuidMasterId": update.guid_master_id,
            "Reserved": update.reserved,
        }
        if update.use_guid == 0:
            fields["PathName"] = update.path_name
        elif update.use_guid == 1:
            fields["GuidIdentifier"] = update.guid_identifier
        fields.update(properties((p.propid, p.value) for p in update.properties))
        data.append(NotificationUpdate(**fields))
    return ChangeNotificationMessage(
        Version=message.version,
        NumberOfUpdateNotifications=message.count,
        Data=data,
        Trailing=message.trailing if trailing else b"",
    )


def _update_from_layer(layer: ScapyPacket) -> FastUpdate:
    if not isinstance(layer, NotificationUpdate) or layer.broken:
        raise ValueError(f"not a whole Notification Update: {layer.summary()}")
    ids = [int(i) for i in layer.PropertyId]
    values = list(layer.PropertyValue)
    count = layer.NumberOfProperties
    if len(values) != len(ids) or (count is not None and count != len(ids)):
        raise ValueError(
            f"NumberOfProperties {count}, {len(ids)} PropertyIds, {len(values)} PropertyValues"
        )
    props = []
    for propid, value in zip(ids, values, strict=True):
        definition = PROPERTIES.get(propid)  # type: ignore[call-overload]
        if not isinstance(value, PropValue) or value.broken or definition is None:
            raise ValueError(f"PropertyValue for PROPID {propid} is not a whole value")
        if value.vt is not definition.vt:
            raise ValueError(f"PROPID {propid} is {definition.vt.label}, not {value.vt.label}")
        props.append(Property(propid, value.to_python()))
    path_name = guid = None
    if layer.UseGuid == 0:
        path_name = layer.PathName
        if not isinstance(path_name, str):
            raise ValueError("PathName has no 0x0000 terminator")
    elif layer.UseGuid == 1:
        guid = layer.GuidIdentifier
    return FastUpdate(
        command=layer.Command,
        use_guid=layer.UseGuid,
        path_name=path_name,
        guid_identifier=guid,
        guid_master_id=layer.GuidMasterId,
        properties=tuple(props),
        reserved=bytes(layer.Reserved),
    )


def _body_from_layer(layer: ScapyPacket) -> FastBody:
    if not isinstance(layer, NotificationBody) or layer.Event is None:
        raise ValueError("not a Notification Body the tokens describe")
    return FastBody(int(layer.Event), uuid.UUID(layer.ObjectGuid), layer.DomainController)


def from_layer(pkt: ChangeNotificationMessage) -> FastMessage:
    """The fast-codec message a (built or dissected) layer stands for.

    Raises ValueError when the layer holds something the fast codec's objects cannot carry
    (a broken dissection, a BOOL of 0x1234, a count that disagrees with the lists, ...).

    >>> from mqcn_model.codec import decode_message
    >>> wire = bytes.fromhex("0100")
    >>> from_layer(ChangeNotificationMessage(wire)) == decode_message(wire)
    True
    """
    if pkt.broken or isinstance(pkt.payload, Raw):
        raise ValueError("the message did not dissect completely")
    count_field = pkt.get_field("NumberOfUpdateNotifications")
    count = count_field.i2m(pkt, pkt.NumberOfUpdateNotifications)
    data = list(pkt.Data)
    if pkt.Version == Version.QUEUE_MANAGER:
        if len(data) != 1:
            raise ValueError(f"a Version 0x02 message carries one body, not {len(data)}")
        body = _body_from_layer(data[0])
        return FastMessage(pkt.Version, count, body=body, trailing=bytes(pkt.Trailing))
    updates = tuple(_update_from_layer(u) for u in data)
    return FastMessage(pkt.Version, count, updates=updates, trailing=bytes(pkt.Trailing))
