"""GUIDs: the 16-byte [MS-DTYP] 2.3.4.2 layout and the MS-MQCN 2.2.5 text form.

Data1, Data2 and Data3 are little-endian, Data4 is a byte array: exactly
``uuid.UUID(bytes_le=...)``.

>>> g = guid_from_text("F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6")
>>> encode_guid(g).hex()
'ae4f1df8ec7dd011a76500a0c91e6bf6'
>>> decode_guid(encode_guid(g), 0) == (g, 16)
True
>>> guid_to_text(g)
'f81d4fae-7dec-11d0-a765-00a0c91e6bf6'
"""

from __future__ import annotations

import re
import struct
import uuid

from mqcn_model.constants import GUID_SIZE
from mqcn_model.errors import fail

# 2.2.5 object-guid: 8-4-4-4-12 HEXDIG; ABNF literals match either case (RFC 5234), no braces.
GUID_TEXT = re.compile(
    r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}", re.ASCII
)


_DATA = struct.Struct("<IHH")
_TAIL = struct.Struct(">Q")  # Data4, whose bytes are in the order of the GUID's text
_new = object.__new__
_UNKNOWN = uuid.SafeUUID.unknown
_UUID = uuid.UUID
# uuid.UUID's two slots, set through their descriptors (what object.__setattr__ finds by name)
_set_int = _UUID.__dict__["int"].__set__
_set_is_safe = _UUID.__dict__["is_safe"].__set__


def guid_at(buf: bytes, offset: int) -> uuid.UUID:
    """The GUID whose 16 bytes start at ``offset`` (caller checked the length).

    Same result as ``uuid.UUID(bytes_le=buf[offset:offset + 16])`` at about half the cost:
    the codec builds several GUIDs per message, so this is on its hot path.
    """
    data1, data2, data3 = _DATA.unpack_from(buf, offset)
    (tail,) = _TAIL.unpack_from(buf, offset + 8)
    value = _new(_UUID)
    _set_int(value, (data1 << 96) | (data2 << 80) | (data3 << 64) | tail)
    _set_is_safe(value, _UNKNOWN)
    return value


def guid_from_checked_text(text: str) -> uuid.UUID:
    """A GUID from text already matched by :data:`GUID_TEXT` (fast path of ``uuid.UUID(text)``)."""
    value = _new(_UUID)
    _set_int(value, int(text.replace("-", ""), 16))
    _set_is_safe(value, _UNKNOWN)
    return value


def decode_guid(
    buf: bytes, offset: int, end: int | None = None, requirement: str = "MQCN-2.2.3.12-1"
) -> tuple[uuid.UUID, int]:
    """Read a 16-byte GUID at ``offset``; return it and the offset after it.

    ``requirement`` names what a truncated GUID breaks (it differs by field).
    """
    stop = offset + GUID_SIZE
    if stop > (len(buf) if end is None else end):
        raise fail(
            requirement,
            offset,
            f"a GUID needs 16 bytes, {max(0, (len(buf) if end is None else end) - offset)} left",
        )
    return guid_at(buf, offset), stop


def encode_guid(value: uuid.UUID) -> bytes:
    """The 16 wire bytes of ``value``."""
    return value.bytes_le


def guid_from_text(text: str) -> uuid.UUID:
    """Parse the 2.2.5 object-guid form (raises ValueError for anything else)."""
    if not GUID_TEXT.fullmatch(text):
        raise ValueError(f"not an 8-4-4-4-12 GUID: {text!r}")
    return uuid.UUID(text)


def guid_to_text(value: uuid.UUID, *, upper: bool = False) -> str:
    """The 2.2.5 object-guid form of ``value`` (lower case unless ``upper``)."""
    text = str(value)
    return text.upper() if upper else text
