"""Scapy layers of the [MS-MQRR] 2.2.5 headers, derived from their one declaration.

The fixed part of each layer is :func:`~mqcn_model.wire.declared.scapy_fields` of the
header's record in :mod:`mqcn_model.wire.extensions` -- the field names, sizes and defaults
the struct codec reads -- and the way between a record and its layer is
:func:`~mqcn_model.wire.declared.fixed_values` / ``from_fixed_values``: no field is named
twice.  Only the variable parts are written here: the SOAP envelope text, the HTTP part,
the dead-letter path (each named once, by its record's :func:`~mqcn_model.wire.declared.part`)
and the padding to 4 bytes.  A length left at ``None`` is computed;
set, it may lie (a wrapped DataLength, an HTTPBodySize past the packet), which is what the
tests of the codec's findings build.

>>> wire = bytes(SRMPEnvelopeHeader(Data="<e/>"))
>>> wire.hex()
'00000000050000003c0065002f003e0000000000'
>>> to_record(SRMPEnvelopeHeader(wire)) == X.srmp_envelope("<e/>")
True
>>> bytes(to_layer(X.compound_message(b"POST / HTTP/1.1\\r\\n\\r\\n", b"hi")))[4:8].hex()
'15000000'
"""

from __future__ import annotations

from typing import Any, ClassVar

from scapy.fields import Field, StrLenField, XStrLenField

from mqcn_model.scapy_base import SalvagingLayer, ScapyPacket, UTF16ZField, utf16_text
from mqcn_model.wire import extensions as X
from mqcn_model.wire.declared import (
    fixed_values,
    from_fixed_values,
    layout,
    part_kinds,
    scapy_fields,
)

__all__ = [
    "LAYERS",
    "CompoundMessageHeader",
    "DeadLetterHeader",
    "ExtendedAddressHeader",
    "ExtensionHeader",
    "SRMPEnvelopeHeader",
    "SubqueueHeader",
    "to_layer",
    "to_record",
]


class _Header(SalvagingLayer):
    """A header nested in a packet: the bytes after it are the container's."""

    def extract_padding(self, s: bytes) -> tuple[bytes, bytes | None]:
        return b"", s


class _Padding(StrLenField):
    """Zeros to a 4-byte boundary after ``used(layer)`` bytes when left at ``None``; read,
    ``size(layer)`` bytes."""

    __slots__ = ("used",)

    def __init__(self, name: str, used: Any, size: Any) -> None:
        super().__init__(name, None, length_from=size)
        self.used = used

    def i2m(self, pkt: ScapyPacket | None, x: Any) -> bytes:
        if x is None:
            return bytes(-self.used(pkt) % 4) if pkt is not None else b""
        return bytes(x)


def _text(layer: ScapyPacket, name: str) -> bytes:
    return utf16_text(layer.getfieldval(name), b"\x00\x00")


def _envelope_size(p: ScapyPacket) -> int:
    return X.SRMP_FIXED + len(_text(p, "Data"))


class SRMPEnvelopeHeader(_Header):
    """[MS-MQRR] 2.2.5.1.2.1: DataLength counts Data in WCHARs when left at ``None``."""

    name = "MSMQ SRMPEnvelopeHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(X.SrmpEnvelopeHeader, {"DataLength": lambda p: len(_text(p, "Data")) // 2}),
        UTF16ZField("Data", ""),
        _Padding("Padding", _envelope_size, lambda p: -_envelope_size(p) % 4),
    ]


def _compound_size(p: ScapyPacket) -> int:
    return X.COMPOUND_FIXED + len(p.Data)


class CompoundMessageHeader(_Header):
    """[MS-MQRR] 2.2.5.1.2.2: HTTPBodySize is the size of Data when left at ``None``."""

    name = "MSMQ CompoundMessageHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(X.CompoundMessageHeader, {"HTTPBodySize": lambda p: len(p.Data)}),
        XStrLenField("Data", b"", length_from=lambda p: p.HTTPBodySize),
        _Padding("Padding", _compound_size, lambda p: -_compound_size(p) % 4),
    ]


class ExtensionHeader(_Header):
    name = "MSMQ ExtensionHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = scapy_fields(X.ExtensionHeader)


class SubqueueHeader(_Header):
    name = "MSMQ SubqueueHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = scapy_fields(X.SubqueueHeader)


def _dead_letter_used(p: ScapyPacket) -> int:
    return X.DEAD_LETTER_FIXED + len(_text(p, "DeadLetterPathName"))


def _dead_letter_size(p: ScapyPacket) -> int:
    return X.align4(_dead_letter_used(p))


class DeadLetterHeader(_Header):
    """[MS-MQRR] 2.2.5.4: HeaderSize is the path, its terminator and the padding when left at
    ``None``; read, the padding runs to HeaderSize."""

    name = "MSMQ DeadLetterHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(X.DeadLetterHeader, {"HeaderSize": _dead_letter_size}),
        UTF16ZField("DeadLetterPathName", ""),
        _Padding(
            "Padding", _dead_letter_used, lambda p: max(0, p.HeaderSize - _dead_letter_used(p))
        ),
    ]


class ExtendedAddressHeader(_Header):
    name = "MSMQ ExtendedAddressHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = scapy_fields(X.ExtendedAddressHeader)


LAYERS: dict[type, type[ScapyPacket]] = {
    X.SrmpEnvelopeHeader: SRMPEnvelopeHeader,
    X.CompoundMessageHeader: CompoundMessageHeader,
    X.ExtensionHeader: ExtensionHeader,
    X.SubqueueHeader: SubqueueHeader,
    X.DeadLetterHeader: DeadLetterHeader,
    X.ExtendedAddressHeader: ExtendedAddressHeader,
}
_RECORDS = {layer: record for record, layer in LAYERS.items()}


def to_layer(header: Any) -> ScapyPacket:
    """The scapy twin of a header record: ``bytes(to_layer(h))`` is what the codec writes."""
    values = fixed_values(header)
    for item in layout(type(header)).parts:
        values[item.name] = getattr(header, item.attribute)
    if isinstance(header, X.DeadLetterHeader):  # the zeros up to HeaderSize, as written
        used = X.DEAD_LETTER_FIXED + len(utf16_text(header.path, b""))
        values["Padding"] = bytes(max(0, header.header_size - used))
    return LAYERS[type(header)](**values)


def to_record(layer: ScapyPacket) -> Any:
    """The header record a built or dissected layer stands for (ValueError for a text that
    is not a string: no 0x0000 terminator)."""
    record = _RECORDS[type(layer)]
    fixed = _Fixed(layer)
    kinds = part_kinds(record)
    rest = {}
    for item in layout(record).parts:
        value = layer.getfieldval(item.name)
        if kinds[item.attribute] == "str" and not isinstance(value, str):
            raise ValueError(f"{layer.name}.{item.name} has no 0x0000 terminator")
        rest[item.attribute] = value
    if record is X.SrmpEnvelopeHeader:
        size = len(utf16_text(rest["envelope"], b"\x00\x00"))
        rest["unit"] = X.unit_of(fixed.getfieldval("DataLength"), size)
    return from_fixed_values(record, fixed, **rest)


class _Fixed:
    """A layer's fixed fields as they are on the wire (computed lengths worked out)."""

    def __init__(self, layer: ScapyPacket) -> None:
        self.layer = layer

    def getfieldval(self, name: str) -> Any:
        field = self.layer.get_field(name)
        return field.i2m(self.layer, self.layer.getfieldval(name))
