"""One declaration per header: the fixed fields of a wire header, declared once on its record.

A header record is a frozen dataclass whose fields carry their wire form in the field's
metadata (:func:`wire`): the spec's field name, the ``struct`` code, the requirement that
governs the value and, for a Flags field, the names of its bits.  From that one declaration
:func:`layout` derives the struct, each field's offset and the fixed size; :func:`unpack` and
:func:`pack` are the codec, :func:`to_json` the rendering ``mqcn decode --packet`` prints, and
:func:`scapy_fields` the scapy layer's ``fields_desc`` (as dpkt's ``__hdr__`` and scapy's
``fields_desc`` declare a header once).  Variable parts (a string, a byte array whose length
a fixed field gives) are plain dataclass fields without wire metadata, read by the header's
own decoder after the fixed part; :func:`part` names each one's layer field, so the bridge
between a record and its scapy layer is derived too.

A Flags field declares its bit groups (``groups``, most significant first, as scapy lists
them); a length field (``length_of``) is not an argument of the record: the encoder computes
it, the decoder keeps what the wire said; ``at`` places a field at its offset where the
record's argument order is not the wire's; ``run`` numbers the separate fixed runs of a header
whose variable parts lie between them (a SoapHeader's two sections).

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
import uuid
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from typing import Any

_WIRE = "mqcn.wire"
_PART = "mqcn.part"

# a bit group: (name, width) or (name, width, value names), most significant first
Group = tuple[Any, ...]


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
    groups: tuple[Group, ...] = ()
    kind: str | None = None  # "guid" (a uuid.UUID, little-endian on the wire) or "hex" (shown so)
    enum: tuple[tuple[int, str], ...] = ()
    length_of: str | None = None  # the part it counts (spec name); not a record argument
    unit: int = 1  # bytes per unit of the count
    count_of: str | None = None  # the part whose elements it counts
    run: int = 0
    computed: bool = False  # the packet's encoder works it out (a layer computes it too)


@dataclass(frozen=True, slots=True)
class Part:
    """One variable part: its record attribute, its layer field's name, and the bit group
    (spec name) whose non-zero value puts it on the wire, if one does."""

    attribute: str
    name: str
    when: str | None = None


@dataclass(frozen=True, slots=True)
class Layout:
    """The fixed part of one header, derived from its record's declaration."""

    header: str
    fields: tuple[WireField, ...]
    struct: struct.Struct
    leading: bool = False  # the wire fields are the record's first fields, in order
    parts: tuple[Part, ...] = ()
    runs: tuple[struct.Struct, ...] = ()  # run 0 is ``struct``
    guids: tuple[int, ...] = ()  # positions (in ``fields``) of the GUID fields
    late: tuple[int, ...] = ()  # positions of the length fields (set after construction)

    @property
    def size(self) -> int:
        return self.struct.size

    def offset(self, name: str) -> int:
        """The offset of the field the spec calls ``name`` within its run."""
        return self.field(name).offset

    def field(self, name: str) -> WireField:
        for item in self.fields:
            if item.name == name:
                return item
        raise KeyError(f"{self.header} has no field {name}")

    def run(self, index: int) -> tuple[WireField, ...]:
        return tuple(f for f in self.fields if f.run == index)


def wire(
    name: str,
    code: str,
    *,
    default: Any = 0,
    requirement: str | None = None,
    bits: dict[int, str] | None = None,
    groups: tuple[Group, ...] = (),
    kind: str | None = None,
    enum: dict[int, str] | None = None,
    length_of: str | None = None,
    unit: int = 1,
    count_of: str | None = None,
    at: int | None = None,
    run: int = 0,
    compare: bool = True,
    computed: bool = False,
) -> Any:
    """A dataclass field declared as fixed wire field ``name`` of struct code ``code``
    (``B``, ``H``, ``I``, ``Q`` or ``<n>s``); ``bits``: bit mask -> name for a Flags field's
    JSON view; ``groups``: its bit groups for the scapy layer.  A ``length_of`` or ``count_of``
    field is no argument of the record and defaults to ``None`` (computed when encoded);
    ``computed``: the packet's encoder works the value out (the record keeps what the wire
    said, out of equality; the scapy layer computes it when left at ``None``)."""
    if code.endswith("s") and default == 0:  # left out: zeros (a GUID: the nil GUID)
        default = uuid.UUID(int=0) if kind == "guid" else bytes(int(code[:-1]))
    meta = {
        _WIRE: (
            name,
            code,
            requirement,
            tuple(sorted((bits or {}).items())),
            tuple(groups),
            kind,
            tuple(sorted((enum or {}).items())),
            length_of,
            unit,
            count_of,
            at,
            run,
            computed,
        )
    }
    if length_of or count_of:
        return field(default=None, init=False, compare=False, repr=False, metadata=meta)
    return field(default=default, compare=compare and not computed, metadata=meta)


def part(name: str, *, default: Any = MISSING, when: str | None = None, **kw: Any) -> Any:
    """A variable part of a header, carried by the layer field ``name``; ``when``: the bit
    group that puts it on the wire (a part the flags leave out reads as ``None``)."""
    return field(default=default, metadata={_PART: (name, when)}, **kw)


@cache
def layout(record: type) -> Layout:
    """The :class:`Layout` of ``record``'s wire fields, in wire order."""
    found: list[tuple[int, int, int, WireField]] = []
    parts: list[Part] = []
    declared = fields(record)
    offsets: dict[int, int] = {}
    for index, item in enumerate(declared):
        if _PART in item.metadata:
            parts.append(Part(item.name, *item.metadata[_PART]))
        meta = item.metadata.get(_WIRE)
        if meta is None:
            continue
        (name, code, requirement, bits, groups, kind, enum, length_of, unit, count_of, at, run,
         computed) = meta  # fmt: skip
        size = struct.calcsize("<" + code)
        widths = sum(g[1] for g in groups)
        if groups and widths != 8 * size:
            raise TypeError(f"{record.__name__}.{name}: {widths} bits")
        if at is None:
            at = offsets.get(run, 0)
        offsets[run] = max(offsets.get(run, 0), at + size)
        one = WireField(
            name, code, item.name, at, size, requirement, bits, groups, kind, enum,
            length_of, unit, count_of, run, computed,
        )  # fmt: skip
        found.append((run, at, index, one))
    found.sort(key=lambda t: (t[0], t[1]))
    out = tuple(t[3] for t in found)
    runs = []
    for number in sorted({f.run for f in out}):
        expected = 0
        for item in (f for f in out if f.run == number):
            if item.offset != expected:
                raise TypeError(f"{record.__name__}.{item.name}: a gap or overlap")
            expected += item.size
        runs.append(struct.Struct("<" + "".join(f.code for f in out if f.run == number)))
    in_order = [f.name for f in declared[: len(out)]] == [f.attribute for f in out]
    late = tuple(i for i, f in enumerate(out) if f.length_of or f.count_of)
    return Layout(
        record.__name__,
        out,
        runs[0] if runs else struct.Struct("<"),
        in_order and not late and len(runs) < 2,
        tuple(parts),
        tuple(runs),
        tuple(i for i, f in enumerate(out) if f.kind == "guid"),
        late,
    )


@cache
def part_kinds(record: type) -> dict[str, str]:
    """Each field's declared type, as its annotation's text, by attribute (how a bridge tells a
    text part from a byte part)."""
    return {item.name: str(item.type) for item in fields(record)}


def unpack(record: type, buf: bytes, offset: int, **rest: Any) -> Any:
    """A ``record`` from its fixed part (run 0) at ``offset`` (the caller checked the bytes
    are there) and the variable parts given as keywords."""
    spec = layout(record)
    values = spec.struct.unpack_from(buf, offset)
    if spec.guids:
        values = list(values)
        for i in spec.guids:
            values[i] = uuid.UUID(bytes_le=values[i])
    if spec.leading:  # the common case, and the fast one: positional
        return record(*values, **rest)
    return build(record, dict(zip((f.name for f in spec.run(0)), values, strict=True)), **rest)


def build(record: type, values: dict[str, Any], **rest: Any) -> Any:
    """A ``record`` from spec-named fixed values (length fields kept as the wire said) and
    its variable parts as keywords."""
    spec = layout(record)
    args, late = {}, []
    for item in spec.fields:
        if item.name not in values:
            continue
        if item.length_of or item.count_of:
            late.append((item.attribute, values[item.name]))
        else:
            args[item.attribute] = values[item.name]
    out = record(**args, **rest)
    for attribute, value in late:
        setattr(out, attribute, value)
    return out


def pack(header: Any, run: int = 0, **given: Any) -> bytes:
    """The fixed part (run ``run``) of ``header`` on the wire; ``given``: spec name -> value
    for the fields the encoder computes (a length field left at ``None`` must be given)."""
    spec = layout(type(header))
    if not given and spec.leading and not spec.guids:
        # a list, not a generator: CPython 3.11 keeps memory behind a generator unpacked into
        # a C call (about 48 bytes a call: tests/test_capture_bad_input.py's memory test saw it)
        return spec.struct.pack(*[getattr(header, f.attribute) for f in spec.fields])
    values = []
    for item in spec.fields:
        if item.run != run:
            continue
        value = getattr(header, item.attribute)
        if value is None or item.name in given:
            value = given[item.name]
        if item.kind == "guid":
            value = value.bytes_le
        values.append(value)
    return spec.runs[run].pack(*values)


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


def split_groups(item: WireField, value: int) -> dict[str, int]:
    """A Flags value as its bit groups (name -> value), most significant group first."""
    out = {}
    shift = item.size * 8
    for group in item.groups:
        shift -= group[1]
        out[group[0]] = (value >> shift) & ((1 << group[1]) - 1)
    return out


def join_groups(item: WireField, get: Any) -> int:
    """The Flags value whose bit groups ``get(name)`` gives."""
    value = 0
    for group in item.groups:
        value = (value << group[1]) | (int(get(group[0])) & ((1 << group[1]) - 1))
    return value


def fixed_values(header: Any) -> dict[str, Any]:
    """The fixed fields of ``header`` under their spec names: a scapy layer's keywords (a
    Flags field as its bit groups; a computed field, and a length field the record does not
    hold, left out, so the layer computes them)."""
    out: dict[str, Any] = {}
    for item in layout(type(header)).fields:
        value = getattr(header, item.attribute)
        if item.computed or (value is None and (item.length_of or item.count_of)):
            continue
        if item.groups:
            out.update(split_groups(item, value))
        else:
            out[item.name] = value
    return out


def from_fixed_values(record: type, values: Any, **rest: Any) -> Any:
    """A ``record`` from the spec-named values of a mapping or a scapy layer (``getfieldval``),
    and its variable parts as keywords: the way back of :func:`fixed_values`."""
    get = values.getfieldval if hasattr(values, "getfieldval") else values.__getitem__
    fixed = {}
    for item in layout(record).fields:
        fixed[item.name] = join_groups(item, get) if item.groups else get(item.name)
    return build(record, fixed, **rest)


def scapy_fields(
    record: type,
    computed: dict[str, Any] | None = None,
    *,
    run: int = 0,
    defaults: dict[str, Any] | None = None,
) -> list[Any]:
    """The scapy ``fields_desc`` of ``record``'s fixed run ``run`` (little-endian, as on the
    wire); ``computed``: spec name -> ``compute(layer)`` for a 32-bit length worked out when
    left at ``None`` (and free to lie when set); ``defaults``: a layer default that differs
    from the record's (``None`` for a size the packet container computes)."""
    from scapy import fields as F

    from mqcn_model.scapy_base import AutoLEIntField, GUIDField

    plain = {"B": F.ByteField, "H": F.LEShortField, "I": F.LEIntField, "Q": F.LELongField}
    hexed = {"B": F.XByteField, "H": F.XLEShortField, "I": F.XLEIntField, "Q": F.XLELongField}
    named = {"B": F.ByteEnumField, "H": F.LEShortEnumField, "I": F.LEIntEnumField}
    computed = computed or {}
    defaults = defaults or {}
    out = []
    for item in layout(record).run(run):
        default = None if item.computed else default_of(record, item.attribute)
        default = defaults.get(item.name, default)
        if item.name in computed:
            if item.code != "I":
                raise TypeError(f"{item.name}: only a 32-bit length is computed")
            out.append(AutoLEIntField(item.name, computed[item.name]))
        elif item.groups:
            out.extend(_bit_fields(item, default))
        elif item.length_of or item.count_of:
            which = {"count_of": item.count_of} if item.count_of else {"length_of": item.length_of}
            out.append(
                F.FieldLenField(
                    item.name,
                    None,
                    fmt="<" + item.code,
                    adjust=lambda p, x, u=item.unit: x // u,
                    **which,
                )
            )
        elif item.kind == "guid":
            out.append(GUIDField(item.name, default))
        elif item.code.endswith("s"):
            kind = F.XStrFixedLenField if item.kind == "hex" else F.StrFixedLenField
            out.append(kind(item.name, default, item.size))
        elif item.enum:
            out.append(named[item.code](item.name, default, dict(item.enum)))
        else:
            out.append((hexed if item.kind == "hex" else plain)[item.code](item.name, default))
    return out


def _bit_fields(item: WireField, default: int) -> list[Any]:
    """A little-endian Flags field as scapy bit fields, one per group."""
    from scapy.fields import BitEnumField, BitField

    values = split_groups(item, default or 0)
    out = []
    last = len(item.groups) - 1
    for index, group in enumerate(item.groups):
        name, width = group[0], group[1]
        sizes = {}
        if item.size > 1 and index == 0:
            sizes["tot_size"] = -item.size
        if item.size > 1 and index == last:
            sizes["end_tot_size"] = -item.size
        if len(group) > 2:
            out.append(BitEnumField(name, values[name], width, group[2], **sizes))
        else:
            out.append(BitField(name, values[name], width, **sizes))
    return out
