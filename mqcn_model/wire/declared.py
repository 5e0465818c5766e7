"""One declaration per header: the fixed fields of a wire header, declared once on its record.

A header record is a frozen dataclass whose fields carry their wire form in the field's
metadata (:func:`wire`): the spec's field name, the ``struct`` code, the requirement that
governs the value and, for a Flags field, the names of its bits.  From that one declaration
:func:`layout` derives the struct, each field's offset and the fixed size; :func:`unpack` and
:func:`pack` are the codec, :func:`to_json` the rendering ``mqcn decode --packet`` prints, and
:func:`scapy_fields` the scapy layer's ``fields_desc`` (as dpkt's ``__hdr__`` and scapy's
``fields_desc`` declare a header once).  Variable parts (a string, a byte array whose length
a fixed field gives) are plain dataclass fields without wire metadata, read by the header's
own decoder after the fixed part.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True, slots=True)
... class Demo:
...     header_id: int = wire("HeaderId", "H")
...     data_length: int = wire("DataLength", "I")
>>> layout(Demo).size, layout(Demo).offset("DataLength")
(6, 2)
>>> unpack(Demo, pack(Demo(3, 7)), 0)
Demo(header_id=3, data_length=7)
>>> to_json(Demo(3, 7))
{'header_id': 3, 'data_length': 7}
"""

from __future__ import annotations

import struct
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from typing import Any

_WIRE = "mqcn.wire"


@dataclass(frozen=True, slots=True)
class WireField:
    """One fixed field: its spec name, struct code, record attribute and offset."""

    name: str
    code: str
    attribute: str
    offset: int
    size: int
    requirement: str | None = None
    bits: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Layout:
    """The fixed part of one header, derived from its record's declaration."""

    header: str
    fields: tuple[WireField, ...]
    struct: struct.Struct
    leading: bool = False  # the wire fields are the record's first fields, in order

    @property
    def size(self) -> int:
        return self.struct.size

    def offset(self, name: str) -> int:
        """The offset of the field the spec calls ``name`` within the header."""
        for item in self.fields:
            if item.name == name:
                return item.offset
        raise KeyError(f"{self.header} has no field {name}")

    def field(self, name: str) -> WireField:
        for item in self.fields:
            if item.name == name:
                return item
        raise KeyError(f"{self.header} has no field {name}")


def wire(
    name: str,
    code: str,
    *,
    default: Any = 0,
    requirement: str | None = None,
    bits: dict[int, str] | None = None,
) -> Any:
    """A dataclass field declared as fixed wire field ``name`` of struct code ``code``
    (``B``, ``H``, ``I``, ``Q`` or ``<n>s``); ``bits``: bit mask -> name for a Flags field."""
    if code.endswith("s") and default == 0:
        default = bytes(int(code[:-1]))
    meta = {_WIRE: (name, code, requirement, tuple(sorted((bits or {}).items())))}
    return field(default=default, metadata=meta)


@cache
def layout(record: type) -> Layout:
    """The :class:`Layout` of ``record``'s wire fields, in declaration order."""
    out: list[WireField] = []
    offset = 0
    codes = []
    declared = fields(record)
    for item in declared:
        meta = item.metadata.get(_WIRE)
        if meta is None:
            continue
        name, code, requirement, bits = meta
        size = struct.calcsize("<" + code)
        out.append(WireField(name, code, item.name, offset, size, requirement, bits))
        codes.append(code)
        offset += size
    leading = [f.name for f in declared[: len(out)]] == [f.attribute for f in out]
    return Layout(record.__name__, tuple(out), struct.Struct("<" + "".join(codes)), leading)


def unpack(record: type, buf: bytes, offset: int, **rest: Any) -> Any:
    """A ``record`` from its fixed part at ``offset`` (the caller checked the bytes are there)
    and the variable parts given as keywords."""
    spec = layout(record)
    values = spec.struct.unpack_from(buf, offset)
    if spec.leading:  # the common case, and the fast one: positional
        return record(*values, **rest)
    return record(**{f.attribute: v for f, v in zip(spec.fields, values, strict=True)}, **rest)


def pack(header: Any) -> bytes:
    """The fixed part of ``header`` on the wire."""
    spec = layout(type(header))
    # a list, not a generator: CPython 3.11 keeps memory behind a generator unpacked into a C
    # call (about 48 bytes a call: tests/test_capture_bad_input.py's memory test saw it)
    return spec.struct.pack(*[getattr(header, f.attribute) for f in spec.fields])


def to_json(header: Any) -> dict[str, Any]:
    """Every field of ``header`` as JSON: bytes as hex, a Flags field with its named bits."""
    out: dict[str, Any] = {}
    spec = {f.attribute: f for f in layout(type(header)).fields}
    for item in fields(header):
        value = getattr(header, item.name)
        if isinstance(value, bytes):
            value = value.hex()
        out[item.name] = value
        declared = spec.get(item.name)
        if declared is not None and declared.bits:
            out[item.name + "_bits"] = [name for bit, name in declared.bits if value & bit]
    return out


def default_of(record: type, attribute: str) -> Any:
    for item in fields(record):
        if item.name == attribute:
            return None if item.default is MISSING else item.default
    raise KeyError(attribute)


def fixed_values(header: Any) -> dict[str, Any]:
    """The fixed fields of ``header`` under their spec names: a scapy layer's keywords."""
    return {f.name: getattr(header, f.attribute) for f in layout(type(header)).fields}


def from_fixed_values(record: type, values: Any, **rest: Any) -> Any:
    """A ``record`` from the spec-named values of a mapping or a scapy layer (``getfieldval``),
    and its variable parts as keywords: the way back of :func:`fixed_values`."""
    get = values.getfieldval if hasattr(values, "getfieldval") else values.__getitem__
    return record(**{f.attribute: get(f.name) for f in layout(record).fields}, **rest)


def scapy_fields(record: type, computed: dict[str, Any] | None = None) -> list[Any]:
    """The scapy ``fields_desc`` of ``record``'s fixed part (little-endian, as on the wire);
    ``computed``: spec name -> ``compute(layer)`` for a 32-bit length worked out when left
    at ``None`` (and free to lie when set)."""
    from scapy.fields import ByteField, LEIntField, LELongField, LEShortField, StrFixedLenField

    from mqcn_model.scapy_base import AutoLEIntField

    kinds = {"B": ByteField, "H": LEShortField, "I": LEIntField, "Q": LELongField}
    computed = computed or {}
    out = []
    for item in layout(record).fields:
        default = default_of(record, item.attribute)
        if item.name in computed:
            assert item.code == "I", f"{item.name}: only a 32-bit length is computed"
            out.append(AutoLEIntField(item.name, computed[item.name]))
        elif item.code.endswith("s"):
            out.append(StrFixedLenField(item.name, default, item.size))
        else:
            out.append(kinds[item.code](item.name, default))
    return out
