"""pcap and pcapng files, read incrementally: bytes in, frames out (pure, no I/O).

:class:`ContainerReader` is fed the file's bytes in chunks of any size and returns what each
chunk completed: :class:`RawFrame` objects (one per captured packet, numbered from 1 as
Wireshark numbers them) and capture-level :class:`~mqcn_model.capture.records.Quarantine`
records.  It holds at most one record or block beyond the current chunk, so memory is
bounded by the largest frame, never by the file.

* **pcap** (libpcap): the four magic numbers — microsecond and nanosecond timestamps, each in
  either byte order; the link type of the global header (its upper FCS bits masked off).
* **pcapng**: Section Header Blocks in either byte order (a new section resets the
  interfaces and may change the byte order), Interface Description Blocks with their own link
  type, snaplen, ``if_tsresol`` and ``if_tsoffset``; Enhanced, Simple and the obsolete Packet
  Blocks; every other block is skipped by its length.

A frame captured shorter than it was (``caplen < length``) keeps both lengths, so the
dissector can tell the bytes that exist from those cut away.  A file that is neither format,
a record or block whose lengths cannot be right (a capture length above
:data:`MAX_FRAME_BYTES`, a pcapng block length that is not a multiple of 4 or whose trailing
copy differs) ends the reading of that file: the rest is one quarantine record with its byte
count (there is no reliable way to find the next record in garbage).  A file that ends
inside a record is one quarantine record for the bytes of that last, partial record.

>>> import struct
>>> header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
>>> frame = struct.pack("<IIII", 1700000000, 250000, 3, 60) + b"abc"
>>> reader = ContainerReader("x.pcap")
>>> [(f.number, f.link_type, f.time, f.data, f.length) for f in reader.feed(header + frame)]
[(1, 1, 1700000000.25, b'abc', 60)]
>>> reader.close(), reader.format, reader.frames
([], 'pcap', 1)
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import NamedTuple

from mqcn_model.capture.records import (
    CAPTURE_CORRUPT,
    CAPTURE_FORMAT,
    CAPTURE_TRUNCATED,
    Quarantine,
    Where,
)

# A frame above this is taken as a sign of garbage, not a packet (pcap's own limit for most
# link types is 256 KiB; this leaves room for jumbo and reassembled captures).
MAX_FRAME_BYTES = 16 * 1024 * 1024
MAX_BLOCK_BYTES = MAX_FRAME_BYTES + 4096

PCAP_MICRO, PCAP_NANO = 0xA1B2C3D4, 0xA1B23C4D
PCAPNG_SHB = 0x0A0D0D0A
PCAPNG_BOM = 0x1A2B3C4D
PCAPNG_IDB, PCAPNG_PB, PCAPNG_SPB, PCAPNG_EPB = 1, 2, 3, 6
OPT_END, IF_TSRESOL, IF_TSOFFSET = 0, 9, 14

_PCAP_HEADER_SIZE = 24
_frame = tuple.__new__  # builds a RawFrame from a tuple of its fields
_PCAP_RECORD_SIZE = 16


class RawFrame(NamedTuple):
    """One captured packet: its number, where it came from, its time, and its bytes.

    ``link_type`` is the LINKTYPE_ number of its interface (None when a pcapng block names an
    interface the section never described); ``time`` is seconds since the epoch (None in a
    Simple Packet Block); ``data`` holds the ``caplen`` bytes captured of the ``length``
    bytes the packet had (fewer when a snaplen cut it).  A named tuple, not a frozen
    dataclass: one is made per frame, and a tuple is built several times faster.
    """

    number: int
    link_type: int | None
    time: float | None
    data: bytes
    length: int
    offset: int  # where the record starts in the file

    @property
    def cut(self) -> bool:
        return len(self.data) < self.length


@dataclass(slots=True)
class _Interface:
    link_type: int
    snaplen: int
    divisor: int = 1_000_000  # ticks per second (if_tsresol)
    offset: int = 0  # seconds added (if_tsoffset)

    def time(self, ticks: int) -> float:
        # one division of exact integers: the float nearest the true time
        return (ticks + self.offset * self.divisor) / self.divisor


class ContainerReader:
    """Incremental reader of one pcap or pcapng file (see the module docstring).

    ``feed(chunk)`` returns the frames and quarantine records the chunk completed;
    ``close()`` returns what the end of the file says (a partial last record).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.format = "unknown"
        self.frames = 0  # frames returned so far
        self.bytes = 0  # bytes fed so far
        self.quarantined_bytes = 0
        self._buf = bytearray()
        self._base = 0  # file offset of self._buf[0]
        self._dead_from: int | None = None  # offset from which everything is quarantined
        self._dead_reason = ""
        self._dead_detail = ""
        # pcap
        self._endian = "<"
        self._pcap_divisor = 1_000_000
        self._pcap_interface: _Interface | None = None
        self._pcap_record: struct.Struct | None = None
        # pcapng
        self._interfaces: list[_Interface] = []

    # --- the public protocol ----------------------------------------------------------------

    def feed(self, chunk: bytes) -> list[RawFrame | Quarantine]:
        self.bytes += len(chunk)
        if self._dead_from is not None:
            return []
        self._buf += chunk
        out: list[RawFrame | Quarantine] = []
        if self.format == "unknown":
            self._detect()
        if self.format == "pcap":
            self._pcap_records(out)
        elif self.format == "pcapng":
            self._pcapng_blocks(out)
        if self._dead_from is not None:
            self._buf = bytearray()
        return out

    def close(self) -> list[RawFrame | Quarantine]:
        """What the end of the file says: the quarantined rest, or a partial last record."""
        if self._dead_from is not None:
            size = self.bytes - self._dead_from
            return [self._quarantine(self._dead_from, size, self._dead_reason, self._dead_detail)]
        if self.format == "unknown":
            if self.bytes == 0:
                return [self._quarantine(0, 0, CAPTURE_TRUNCATED, "the capture file is empty")]
            return [
                self._quarantine(
                    0,
                    self.bytes,
                    CAPTURE_FORMAT,
                    f"the file is {self.bytes} bytes, too short for a pcap or pcapng header",
                )
            ]
        if not self._buf:
            return []
        left = len(self._buf)
        detail = f"the file ends {left} bytes into a record it does not complete"
        if self.format == "pcap" and self._pcap_interface is None:
            detail = f"the file ends inside the pcap global header ({left} of 24 bytes)"
        return [self._quarantine(self._base, left, CAPTURE_TRUNCATED, detail)]

    # --- helpers ----------------------------------------------------------------------------

    def _quarantine(self, offset: int, size: int, reason: str, detail: str) -> Quarantine:
        self.quarantined_bytes += size
        where = Where(self.name, "", offset, size, ())
        return Quarantine(where, reason, detail)

    def _die(self, at: int, reason: str, detail: str) -> None:
        """Everything from file offset ``at`` on is quarantined (reported at close)."""
        self._dead_from = at
        self._dead_reason = reason
        self._dead_detail = detail

    def _detect(self) -> None:
        if len(self._buf) < 4:
            return
        magic_le = int.from_bytes(self._buf[:4], "little")
        magic_be = int.from_bytes(self._buf[:4], "big")
        if magic_le == PCAPNG_SHB:
            self.format = "pcapng"
        elif PCAP_MICRO in (magic_le, magic_be) or PCAP_NANO in (magic_le, magic_be):
            self.format = "pcap"
            self._endian = "<" if magic_le in (PCAP_MICRO, PCAP_NANO) else ">"
            self._pcap_divisor = 1_000_000 if PCAP_MICRO in (magic_le, magic_be) else 10**9
        else:
            self._die(
                0,
                CAPTURE_FORMAT,
                f"the file starts with 0x{bytes(self._buf[:4]).hex()}, the magic number of "
                "neither pcap nor pcapng",
            )

    # --- pcap ------------------------------------------------------------------------------

    def _pcap_records(self, out: list[RawFrame | Quarantine]) -> None:
        buf, pos = self._buf, 0
        if self._pcap_interface is None:
            if len(buf) < _PCAP_HEADER_SIZE:
                return
            snaplen, network = struct.unpack_from(self._endian + "II", buf, 16)
            self._pcap_interface = _Interface(network & 0x0FFFFFFF, snaplen)
            self._pcap_record = struct.Struct(self._endian + "IIII")
            pos = _PCAP_HEADER_SIZE
        record = self._pcap_record
        assert record is not None and self._pcap_interface is not None
        link_type = self._pcap_interface.link_type
        divisor = self._pcap_divisor
        size = len(buf)
        base, frames, append = self._base, self.frames, out.append
        while size - pos >= _PCAP_RECORD_SIZE:
            seconds, fraction, caplen, length = record.unpack_from(buf, pos)
            if caplen > MAX_FRAME_BYTES:
                self.frames = frames
                self._die(
                    base + pos,
                    CAPTURE_CORRUPT,
                    f"frame {frames + 1} claims {caplen} captured bytes, more than any "
                    f"frame ({MAX_FRAME_BYTES}): the rest of the file is not read",
                )
                return
            end = pos + _PCAP_RECORD_SIZE + caplen
            if end > size:
                break
            frames += 1
            # RawFrame(...) without its Python-level __new__: the same tuple
            append(
                _frame(
                    RawFrame,
                    (
                        frames,
                        link_type,
                        (seconds * divisor + fraction) / divisor,
                        bytes(buf[pos + _PCAP_RECORD_SIZE : end]),
                        length if length > caplen else caplen,
                        base + pos,
                    ),
                )
            )
            pos = end
        self.frames = frames
        del buf[:pos]
        self._base += pos

    # --- pcapng ----------------------------------------------------------------------------

    def _pcapng_blocks(self, out: list[RawFrame | Quarantine]) -> None:
        buf, pos, size = self._buf, 0, len(self._buf)
        while size - pos >= 12:
            # the file's first block is a Section Header Block (its magic number made the
            # file pcapng), so every other block follows one
            if int.from_bytes(buf[pos : pos + 4], "little") == PCAPNG_SHB:
                bom = buf[pos + 8 : pos + 12]
                if bom == PCAPNG_BOM.to_bytes(4, "little"):
                    self._endian = "<"
                elif bom == PCAPNG_BOM.to_bytes(4, "big"):
                    self._endian = ">"
                else:
                    self._die(
                        self._base + pos,
                        CAPTURE_CORRUPT,
                        f"a Section Header Block has byte-order magic 0x{bytes(bom).hex()}",
                    )
                    return
            kind, length = struct.unpack_from(self._endian + "II", buf, pos)
            if length < 12 or length % 4 or length > MAX_BLOCK_BYTES:
                self._die(
                    self._base + pos,
                    CAPTURE_CORRUPT,
                    f"a block of type 0x{kind:x} has length {length}, not a multiple of 4 "
                    f"between 12 and {MAX_BLOCK_BYTES}: the rest of the file is not read",
                )
                return
            if size - pos < length:
                break
            (trailer,) = struct.unpack_from(self._endian + "I", buf, pos + length - 4)
            if trailer != length:
                self._die(
                    self._base + pos,
                    CAPTURE_CORRUPT,
                    f"a block of type 0x{kind:x} says {length} bytes at its start and "
                    f"{trailer} at its end: the rest of the file is not read",
                )
                return
            problem = self._pcapng_block(kind, bytes(buf[pos + 8 : pos + length - 4]), pos, out)
            if problem:
                self._die(self._base + pos, CAPTURE_CORRUPT, problem)
                return
            pos += length
        del buf[:pos]
        self._base += pos

    def _pcapng_block(
        self, kind: int, body: bytes, pos: int, out: list[RawFrame | Quarantine]
    ) -> str | None:
        """Handle one block's body; return a problem that ends the reading, or None."""
        e = self._endian
        if kind == PCAPNG_SHB:
            if len(body) < 16:
                return "a Section Header Block is shorter than its fixed fields"
            self._interfaces = []
            return None
        if kind == PCAPNG_IDB:
            if len(body) < 8:
                return "an Interface Description Block is shorter than its fixed fields"
            link_type, _, snaplen = struct.unpack_from(e + "HHI", body, 0)
            interface = _Interface(link_type, snaplen)
            self._interface_options(interface, body, 8)
            self._interfaces.append(interface)
            return None
        if kind == PCAPNG_EPB:
            if len(body) < 20:
                return "an Enhanced Packet Block is shorter than its fixed fields"
            iface, high, low, caplen, length = struct.unpack_from(e + "IIIII", body, 0)
            return self._packet(iface, (high << 32) | low, body, 20, caplen, length, pos, out)
        if kind == PCAPNG_PB:
            if len(body) < 20:
                return "a Packet Block is shorter than its fixed fields"
            iface, _, high, low, caplen, length = struct.unpack_from(e + "HHIIII", body, 0)
            return self._packet(iface, (high << 32) | low, body, 20, caplen, length, pos, out)
        if kind == PCAPNG_SPB:
            if len(body) < 4:
                return "a Simple Packet Block is shorter than its fixed field"
            (length,) = struct.unpack_from(e + "I", body, 0)
            caplen = min(length, len(body) - 4)
            if self._interfaces and self._interfaces[0].snaplen:
                caplen = min(caplen, self._interfaces[0].snaplen)
            return self._packet(0, None, body, 4, caplen, length, pos, out)
        return None  # any other block: skipped by its length

    def _packet(
        self,
        iface: int,
        ticks: int | None,
        body: bytes,
        start: int,
        caplen: int,
        length: int,
        pos: int,
        out: list[RawFrame | Quarantine],
    ) -> str | None:
        if start + caplen > len(body):
            return f"frame {self.frames + 1} claims {caplen} captured bytes, its block holds fewer"
        interface = self._interfaces[iface] if iface < len(self._interfaces) else None
        time = None
        if ticks is not None and interface is not None:
            time = interface.time(ticks)
        self.frames += 1
        out.append(
            RawFrame(
                self.frames,
                interface.link_type if interface is not None else None,
                time,
                body[start : start + caplen],
                max(length, caplen),
                self._base + pos,
            )
        )
        return None

    def _interface_options(self, interface: _Interface, body: bytes, at: int) -> None:
        """Read if_tsresol and if_tsoffset; other options are skipped by their length."""
        e = self._endian
        while at + 4 <= len(body):
            code, size = struct.unpack_from(e + "HH", body, at)
            value = body[at + 4 : at + 4 + size]
            if code == OPT_END or len(value) < size:
                return
            if code == IF_TSRESOL and size >= 1:
                resolution = value[0]
                exponent = resolution & 0x7F
                interface.divisor = 2**exponent if resolution & 0x80 else 10**exponent
            elif code == IF_TSOFFSET and size >= 8:
                (interface.offset,) = struct.unpack_from(e + "q", value, 0)
            at += 4 + ((size + 3) & ~3)
