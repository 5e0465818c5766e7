"""What both scapy layer modules share: the dissection that never raises, and the field helpers.

The MS-MQCN message layers (:mod:`mqcn_model.message_layers`) and the MSMQ wire packet layers
(:mod:`mqcn_model.wire.packet_layers`) both *build* anything and *show* any bytes, so both
need:

* :class:`SalvagingLayer`: a layer whose dissection keeps the fields it could read when a
  later one cannot be read (a short buffer, a count beyond the data …), marks itself
  :attr:`~SalvagingLayer.broken` and hands the unread bytes on.  What happens to those
  bytes is the subclass's choice (``extract_padding``): a nested MS-MQCN structure keeps
  them as its own ``Raw`` payload, a wire header gives them back to its packet, whose
  ``Extra``/``Rest`` fields hold them.  Either way ``bytes(layer)`` equals the input.
* the field helpers: :class:`GUIDField` ([MS-DTYP] 2.3.4.2), the two UTF-16LE string
  forms (:class:`UTF16ZField` ends at its terminator, :class:`UTF16Field` has its byte
  length in another field; both write a ``str`` with its terminator and ``bytes``
  verbatim) and the computed counts and sizes (:class:`AutoByteField`,
  :class:`AutoLEIntField`: ``None`` means "compute it when building").

Only ``scapy.packet`` and ``scapy.fields`` are imported (never ``scapy.all``).  The name
``ScapyPacket`` is scapy's ``Packet`` class: in this project a bare "packet" is an MS-MQQB
session packet (:data:`mqcn_model.wire.packet.SessionPacket`).

>>> class Pair(SalvagingLayer):
...     fields_desc = [AutoByteField("n", lambda p: 2), GUIDField("g", None)]
>>> cut = Pair(b"\\x02\\x01\\x02")  # the GUID needs 16 bytes, 2 are there
>>> cut.broken, cut.n, bytes(cut) == b"\\x02\\x01\\x02"
(True, 2, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scapy.fields import ByteField, Field, LEIntField, StrLenField, UUIDField
from scapy.packet import Packet as ScapyPacket
from scapy.packet import conf

__all__ = [
    "AutoByteField",
    "AutoLEIntField",
    "GUIDField",
    "SalvagingLayer",
    "ScapyPacket",
    "UTF16Field",
    "UTF16ZField",
    "utf16_text",
]


# --- the dissection that never raises ---------------------------------------------------------


class SalvagingLayer(ScapyPacket):
    """Bad bytes never raise out of a dissection (``conf.debug_dissector`` re-raises instead).

    Scapy's own loop (``Packet.do_dissect``, 2.8) less its "stop at a MayEnd field" rule (no
    layer here has one), with each field read guarded: at the first field that cannot be read
    the fields read so far are kept, :attr:`broken` is set and the bytes from that field on
    are returned, for ``extract_padding`` to place.  A field that reads as ``None`` (an unused
    ConditionalField, a packet field with nothing in it) is not tracked for changes.
    """

    def do_dissect(self, s: bytes) -> bytes:
        raw = s
        self.raw_packet_cache_fields = {}
        for fld in self.fields_desc:
            try:
                rest, value = fld.getfield(self, s)
            except Exception:
                if conf.debug_dissector:
                    raise
                self.__dict__["_broken"] = True
                break
            s = rest
            if fld.isconditional and value is None:
                continue
            if (fld.islist or fld.holds_packets or fld.ismutable) and value is not None:
                self.raw_packet_cache_fields[fld.name] = self._raw_packet_cache_field_value(
                    fld, value, copy=True
                )
            self.fields[fld.name] = value
        self.raw_packet_cache = raw[: len(raw) - len(s)]
        self.explicit = 1
        return s

    @property
    def broken(self) -> bool:
        """True when a field could not be read (it and what follows were left undissected)."""
        return bool(self.__dict__.get("_broken"))


# --- GUID ---------------------------------------------------------------------------------------


class GUIDField(UUIDField):
    """A 16-byte GUID in the [MS-DTYP] 2.3.4.2 layout (``uuid.UUID(bytes_le=...)``).

    Accepts a ``uuid.UUID``, its text, an int or the 16 wire bytes; shows the text form.

    >>> class G(ScapyPacket):
    ...     fields_desc = [GUIDField("g", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6")]
    >>> bytes(G()).hex()
    'ae4f1df8ec7dd011a76500a0c91e6bf6'
    >>> G(bytes(G())).g
    UUID('f81d4fae-7dec-11d0-a765-00a0c91e6bf6')
    """

    def __init__(self, name: str, default: Any) -> None:
        super().__init__(name, default, uuid_fmt=UUIDField.FORMAT_LE)

    def i2repr(self, pkt: ScapyPacket | None, x: Any) -> str:
        return str(x)


# --- UTF-16LE strings ---------------------------------------------------------------------------


def utf16_text(x: Any, none: bytes) -> bytes:
    """The wire form of a string field's value: a ``str`` in UTF-16LE (lone surrogates kept)
    with its 0x0000 terminator, ``bytes`` verbatim (unterminated or odd-length forms), and
    ``none`` for ``None``.

    >>> utf16_text("a", b""), utf16_text(b"a", b""), utf16_text(None, b"\\0\\0")
    (b'a\\x00\\x00\\x00', b'a', b'\\x00\\x00')
    """
    if x is None:
        return none
    if isinstance(x, bytes | bytearray):
        return bytes(x)
    return str(x).encode("utf-16-le", "surrogatepass") + b"\x00\x00"


def _terminator(s: bytes, start: int = 0) -> int:
    """Index of the first 0x0000 code unit aligned on ``start``, or -1."""
    position = start
    while True:
        hit = s.find(b"\x00\x00", position)
        if hit < 0 or (hit - start) % 2 == 0:
            return hit
        position = hit + 1


class UTF16ZField(Field[Any, bytes]):
    """A null-terminated UTF-16LE string (MS-MQCN 2.2.3.10 VT_LPWSTR, 2.2.6 PathName).

    Written by :func:`utf16_text` (``None`` is the empty string: its terminator alone).
    Dissection stops at the first *aligned* 0x0000 and yields a ``str``; with no terminator
    it yields the rest as ``bytes``.

    >>> class S(ScapyPacket):
    ...     fields_desc = [UTF16ZField("s", "ab")]
    >>> bytes(S()).hex(), bytes(S(s=b"a\\x00")).hex()
    ('610062000000', '6100')
    >>> S(b"a\\x00\\x00\\x01\\x00\\x00").s, S(b"a\\x00b").s  # 0x0100 is not a terminator
    ('a\u0100', b'a\\x00b')
    """

    def __init__(self, name: str, default: Any) -> None:
        super().__init__(name, default, fmt="H")

    def i2m(self, pkt: ScapyPacket | None, x: Any) -> bytes:
        return utf16_text(x, b"\x00\x00")

    def i2len(self, pkt: ScapyPacket | None, x: Any) -> int:
        return len(self.i2m(pkt, x))

    def addfield(self, pkt: ScapyPacket, s: bytes, val: Any) -> bytes:
        return s + self.i2m(pkt, val)

    def getfield(self, pkt: ScapyPacket, s: bytes) -> tuple[bytes, Any]:
        hit = _terminator(s)
        if hit < 0:
            return b"", bytes(s)
        return s[hit + 2 :], s[:hit].decode("utf-16-le", "surrogatepass")

    def i2repr(self, pkt: ScapyPacket | None, x: Any) -> str:
        return repr(x)


class UTF16Field(StrLenField):
    """A UTF-16LE string whose byte length another field gives; the 0x0000 terminator counts.

    Written by :func:`utf16_text` (``None`` writes nothing).  Dissection gives a ``str``
    (without terminator) when the bytes are an even-length string ending in one 0x0000 and
    holding no other, else the bytes.

    >>> class S(ScapyPacket):
    ...     fields_desc = [UTF16Field("s", "a", length_from=lambda p: 6)]
    >>> bytes(S()).hex(), S(b"a\\x00b\\x00\\x00\\x00").s
    ('61000000', 'ab')
    >>> S(b"a\\x00\\x00\\x00b\\x00").s  # a 0x0000 before the last code unit
    b'a\\x00\\x00\\x00b\\x00'

    (A run of bytes with no 0x0000 at all cannot be read: the layer holding it is broken.)
    """

    def any2i(self, pkt: ScapyPacket | None, x: Any) -> Any:
        return x  # keep a str a str (StrField would encode it as bytes)

    def i2m(self, pkt: ScapyPacket | None, x: Any) -> bytes:
        return utf16_text(x, b"")

    def m2i(self, pkt: ScapyPacket | None, x: bytes) -> Any:
        units = [x[i : i + 2] for i in range(0, len(x), 2)]
        if len(x) >= 2 and not len(x) % 2 and units.index(b"\x00\x00") == len(units) - 1:
            return x[:-2].decode("utf-16-le", "surrogatepass")
        return bytes(x)

    def i2len(self, pkt: ScapyPacket, x: Any) -> int:
        return len(self.i2m(pkt, x))

    def i2repr(self, pkt: ScapyPacket | None, x: Any) -> str:
        return repr(x)


# --- computed counts and sizes ------------------------------------------------------------------


class _Computed:
    """An integer field computed by ``compute(layer)`` when left at ``None`` (set a value to
    make the count or size lie).  Mixed before a scapy integer field."""

    __slots__ = ()
    compute: Callable[[ScapyPacket], int]

    def __init__(self, name: str, compute: Callable[[ScapyPacket], int]) -> None:
        super().__init__(name, None)  # type: ignore[call-arg]
        self.compute = compute

    def i2m(self, pkt: ScapyPacket | None, x: int | None) -> int:
        if x is None:
            return self.compute(pkt) if pkt is not None else 0
        return x


class AutoByteField(_Computed, ByteField):
    """One byte computed by ``compute(layer)`` when ``None`` (e.g. a count of updates)."""

    __slots__ = ("compute",)


class AutoLEIntField(_Computed, LEIntField):
    """A 32-bit little-endian integer computed by ``compute(layer)`` when ``None``."""

    __slots__ = ("compute",)
