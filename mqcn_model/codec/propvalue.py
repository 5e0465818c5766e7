"""PROPVALUE (MS-MQCN 2.2.3): the wire form of one property value, for each of the 15 types.

The type is never on the wire; the caller knows it from the PROPID.  Python values:

=====================  ===========================
VT_I1 … VT_UI8          ``int``
VT_BOOL                 ``bool`` (only 0x0000 / 0xFFFF are accepted)
VT_LPWSTR               ``str`` (terminator not included)
VT_BLOB                 ``bytes``
VT_CLSID                ``uuid.UUID``
VT_UI4 | VT_VECTOR      ``tuple[int, ...]``
VT_CLSID | VT_VECTOR    ``tuple[uuid.UUID, ...]``
VT_LPWSTR | VT_VECTOR   ``tuple[str, ...]``
=====================  ===========================

>>> encode_value(VT.I2, -2).hex()
'feff'
>>> decode_value(VT.LPWSTR, "ab".encode("utf-16-le") + b"\\0\\0", 0)
('ab', 6)
>>> from mqcn_model.errors import DecodeError
>>> try:
...     decode_value(VT.BLOB, b"\\xff\\xff\\xff\\xff", 0)
... except DecodeError as exc:
...     print(exc.requirement, exc.offset)
MQCN-2.2.3.11-3 0
"""

from __future__ import annotations

import struct
import uuid
from typing import Union

from mqcn_model.catalog import req
from mqcn_model.codec.guid import guid_at
from mqcn_model.constants import GUID_SIZE, VARIANT_FALSE, VARIANT_TRUE, VT
from mqcn_model.errata import STRICT, Readings
from mqcn_model.errors import fail

PropertyValue = Union[  # noqa: UP007 - a runtime alias used in isinstance-free annotations
    int, bool, str, bytes, uuid.UUID, tuple[int, ...], tuple[uuid.UUID, ...], tuple[str, ...]
]

# Fixed-size scalars: struct format and the requirement a short read breaks.
_SCALARS: dict[VT, tuple[struct.Struct, str]] = {
    VT.I1: (struct.Struct("<b"), req("MQCN-2.2.3.4-1")),
    VT.UI1: (struct.Struct("<B"), req("MQCN-2.2.3.5-1")),
    VT.I2: (struct.Struct("<h"), req("MQCN-2.2.3.1-1")),
    VT.UI2: (struct.Struct("<H"), req("MQCN-2.2.3.6-1")),
    VT.I4: (struct.Struct("<i"), req("MQCN-2.2.3.2-1")),
    VT.UI4: (struct.Struct("<I"), req("MQCN-2.2.3.7-1")),
    VT.I8: (struct.Struct("<q"), req("MQCN-2.2.3.8-1")),
    VT.UI8: (struct.Struct("<Q"), req("MQCN-2.2.3.9-1")),
}
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")

R_BOOL_SIZE = req("MQCN-2.2.3.3-1")
R_BOOL_VALUE = req("MQCN-2.2.3.3-3")
R_STR_TERMINATED = req("MQCN-2.2.3.10-1")
R_STR_UNITS = req("MQCN-2.2.3.10-2")
R_BLOB_SIZE = req("MQCN-2.2.3.11-2")
R_BLOB_DATA = req("MQCN-2.2.3.11-3")
R_CLSID = req("MQCN-2.2.3.12-1")
# VT | VECTOR: (Size field requirement, element requirement, count requirement)
_VECTORS: dict[VT, tuple[str, str, str]] = {
    VT.UI4_VECTOR: (req("MQCN-2.2.3.13-2"), req("MQCN-2.2.3.13-3"), req("MQCN-2.2.3.13-4")),
    VT.CLSID_VECTOR: (req("MQCN-2.2.3.14-2"), req("MQCN-2.2.3.14-3"), req("MQCN-2.2.3.14-4")),
    VT.LPWSTR_VECTOR: (req("MQCN-2.2.3.15-2"), req("MQCN-2.2.3.15-3"), req("MQCN-2.2.3.15-4")),
}


def decode_utf16z(
    buf: bytes,
    offset: int,
    end: int,
    readings: Readings = STRICT,
    *,
    unterminated: str = R_STR_TERMINATED,
    bad_units: str = R_STR_UNITS,
    what: str = "VT_LPWSTR",
) -> tuple[str, int]:
    """Read a 0x0000-terminated UTF-16LE string; return it (without terminator) and the end.

    The terminator is the first *aligned* 0x0000 code unit.  A lone surrogate breaks
    ``bad_units`` unless ``readings.lone_surrogates`` accepts it (errata E-07).
    """
    position = offset
    while True:
        hit = buf.find(b"\x00\x00", position, end)
        if hit < 0:
            raise fail(unterminated, offset, f"{what} has no 0x0000 terminator before byte {end}")
        if (hit - offset) % 2 == 0:
            break
        position = hit + 1
    raw = buf[offset:hit]
    try:
        text = raw.decode("utf-16-le")
    except UnicodeDecodeError as exc:
        if not readings.lone_surrogates:
            raise fail(
                bad_units,
                offset + exc.start,
                f"{what} holds an unpaired UTF-16 surrogate "
                f"(0x{raw[exc.start + 1]:02x}{raw[exc.start]:02x})",
            ) from None
        text = raw.decode("utf-16-le", "surrogatepass")
    return text, hit + 2


def encode_utf16z(text: str) -> bytes:
    """UTF-16LE code units of ``text`` plus the 0x0000 terminator (lone surrogates kept)."""
    return text.encode("utf-16-le", "surrogatepass") + b"\x00\x00"


def _count(buf: bytes, offset: int, end: int, size_req: str, what: str) -> tuple[int, int]:
    if offset + 4 > end:
        raise fail(size_req, offset, f"{what} Size needs 4 bytes, {max(0, end - offset)} left")
    return _U32.unpack_from(buf, offset)[0], offset + 4


def decode_value(
    vt: VT, buf: bytes, offset: int, end: int | None = None, readings: Readings = STRICT
) -> tuple[PropertyValue, int]:
    """Decode one value of type ``vt`` at ``offset``; return it and the offset after it."""
    end = len(buf) if end is None else end
    scalar = _SCALARS.get(vt)
    if scalar is not None:
        fmt, requirement = scalar
        stop = offset + fmt.size
        if stop > end:
            raise fail(
                requirement,
                offset,
                f"{vt.label} needs {fmt.size} bytes, {max(0, end - offset)} left",
            )
        return fmt.unpack_from(buf, offset)[0], stop
    if vt is VT.BOOL:
        if offset + 2 > end:
            raise fail(R_BOOL_SIZE, offset, f"VT_BOOL needs 2 bytes, {max(0, end - offset)} left")
        raw = _U16.unpack_from(buf, offset)[0]
        if raw not in (VARIANT_TRUE, VARIANT_FALSE):
            raise fail(R_BOOL_VALUE, offset, f"VT_BOOL is 0x{raw:04x}, neither 0xffff nor 0x0000")
        return raw == VARIANT_TRUE, offset + 2
    if vt is VT.LPWSTR:
        return decode_utf16z(buf, offset, end, readings)
    if vt is VT.BLOB:
        size, start = _count(buf, offset, end, R_BLOB_SIZE, "VT_BLOB")
        if size > end - start:
            raise fail(
                R_BLOB_DATA, offset, f"VT_BLOB Size {size} exceeds the {end - start} bytes left"
            )
        return bytes(buf[start : start + size]), start + size
    if vt is VT.CLSID:
        return _decode_clsid(buf, offset, end, R_CLSID)
    if vt in _VECTORS:
        return _decode_vector(vt, buf, offset, end, readings)
    raise ValueError(f"not a MS-MQCN PROPVALUE type: {vt!r}")  # a caller bug, not bad input


def _decode_clsid(buf: bytes, offset: int, end: int, requirement: str) -> tuple[uuid.UUID, int]:
    stop = offset + GUID_SIZE
    if stop > end:
        raise fail(requirement, offset, f"a GUID needs 16 bytes, {max(0, end - offset)} left")
    return guid_at(buf, offset), stop


def _decode_vector(
    vt: VT, buf: bytes, offset: int, end: int, readings: Readings
) -> tuple[PropertyValue, int]:
    size_req, element_req, count_req = _VECTORS[vt]
    count, position = _count(buf, offset, end, size_req, vt.label)
    left = end - position
    # Refuse a count the data cannot hold before allocating anything for it.
    smallest = {VT.UI4_VECTOR: 4, VT.CLSID_VECTOR: GUID_SIZE, VT.LPWSTR_VECTOR: 2}[vt]
    if count * smallest > left:
        raise fail(
            count_req,
            offset,
            f"{vt.label} Size {count} needs at least {count * smallest} bytes, {left} left",
        )
    if vt is VT.UI4_VECTOR:
        stop = position + 4 * count
        return struct.unpack_from(f"<{count}I", buf, position), stop
    if vt is VT.CLSID_VECTOR:
        guids = []
        for _ in range(count):
            guid, position = _decode_clsid(buf, position, end, element_req)
            guids.append(guid)
        return tuple(guids), position
    strings = []
    for index in range(count):
        if position >= end:  # the data ends where an element should start: Size is too big
            raise fail(count_req, offset, f"{vt.label} Size {count}, only {index} elements")
        text, position = decode_utf16z(
            buf, position, end, readings, unterminated=element_req, what=f"{vt.label} element"
        )
        strings.append(text)
    return tuple(strings), position


def encode_value(vt: VT, value: PropertyValue) -> bytes:
    """Encode ``value`` as type ``vt``; raise ValueError/struct.error if it does not fit."""
    scalar = _SCALARS.get(vt)
    if scalar is not None:
        if isinstance(value, bool):
            raise ValueError(f"{vt.label} takes an int, not a bool")
        return scalar[0].pack(value)
    if vt is VT.BOOL:
        if not isinstance(value, bool):
            raise ValueError("VT_BOOL takes a bool")
        return _U16.pack(VARIANT_TRUE if value else VARIANT_FALSE)
    if vt is VT.LPWSTR:
        if not isinstance(value, str):
            raise ValueError("VT_LPWSTR takes a str")
        return encode_utf16z(value)
    if vt is VT.BLOB:
        if not isinstance(value, bytes | bytearray):
            raise ValueError("VT_BLOB takes bytes")
        return _U32.pack(len(value)) + bytes(value)
    if vt is VT.CLSID:
        if not isinstance(value, uuid.UUID):
            raise ValueError("VT_CLSID takes a uuid.UUID")
        return value.bytes_le
    if vt is VT.UI4_VECTOR:
        items = tuple(value)  # type: ignore[arg-type]
        return _U32.pack(len(items)) + struct.pack(f"<{len(items)}I", *items)
    if vt is VT.CLSID_VECTOR:
        items = tuple(value)  # type: ignore[arg-type]
        return _U32.pack(len(items)) + b"".join(g.bytes_le for g in items)
    if vt is VT.LPWSTR_VECTOR:
        items = tuple(value)  # type: ignore[arg-type]
        return _U32.pack(len(items)) + b"".join(encode_utf16z(s) for s in items)
    raise ValueError(f"not a MS-MQCN PROPVALUE type: {vt!r}")
