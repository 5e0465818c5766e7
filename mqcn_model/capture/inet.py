"""Ethernet / IPv4 / TCP frames and pcap records, built with correct lengths and checksums.

The pieces :mod:`mqcn_model.capture.writer` puts together; pure functions of their arguments.

* :func:`internet_checksum` — the ones'-complement sum of RFC 1071 (IPv4 header, TCP);
* :func:`tcp_frame` — Ethernet II + IPv4 (no options, DF, TTL 128) + TCP (optional options,
  such as the MSS of a SYN) + payload, both checksums filled in;
* :func:`pcap_header` / :func:`pcap_record` — the libpcap global header (link type Ethernet)
  and a record header, microsecond or nanosecond timestamps;
* :func:`record_ticks` / :func:`retimed` — read and move the timestamp of a record header
  (joining captures written on separate clocks into one whose times increase).

>>> frame = tcp_frame(MAC_A, MAC_B, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]),
...                   49152, 1801, 1, 0, TCP_SYN, b"")
>>> len(frame), internet_checksum(frame[14:34])   # a valid IPv4 header sums to 0
(54, 0)
"""

from __future__ import annotations

import struct
import sys

from mqcn_model.capture.dissect import IPPROTO_TCP, TCP_SYN

__all__ = [
    "MAC_A",
    "MAC_B",
    "TCP_SYN",
    "internet_checksum",
    "pcap_header",
    "pcap_record",
    "record_ticks",
    "retimed",
    "tcp_frame",
]

MAC_A = bytes.fromhex("020000000001")
MAC_B = bytes.fromhex("020000000002")
ETHERTYPE_IPV4 = 0x0800
TTL = 128
WINDOW = 64240

_ETH = struct.Struct("!6s6sH")
_IPV4 = struct.Struct("!BBHHHBBH4s4s")
_TCP = struct.Struct("!HHIIBBHHH")
_PSEUDO = struct.Struct("!4s4sBBH")
_PCAP_HEADER = struct.Struct("<IHHiIII")
_PCAP_RECORD = struct.Struct("<IIII")
PCAP_HEADER_SIZE = _PCAP_HEADER.size  # 24
RECORD_HEADER_SIZE = _PCAP_RECORD.size  # 16
_LITTLE = sys.byteorder == "little"


def internet_checksum(data: bytes) -> int:
    """The RFC 1071 checksum of ``data`` (0 over bytes that already hold their checksum).

    >>> hex(internet_checksum(bytes.fromhex("4500003c1c4640004006") + bytes(2)
    ...     + bytes.fromhex("ac100a63ac100a0c")))
    '0xb1e6'
    """
    if len(data) % 2:
        data += b"\x00"
    # the ones'-complement sum is the same in either byte order, swapped: sum native words
    total = sum(memoryview(data).cast("H"))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    if _LITTLE:
        total = ((total & 0xFF) << 8) | (total >> 8)
    return ~total & 0xFFFF


def tcp_frame(
    src_mac: bytes,
    dst_mac: bytes,
    src_ip: bytes,
    dst_ip: bytes,
    sport: int,
    dport: int,
    seq: int,
    ack: int,
    flags: int,
    payload: bytes,
    *,
    ip_id: int = 0,
    options: bytes = b"",
    window: int = WINDOW,
) -> bytes:
    """One Ethernet frame carrying one TCP segment over IPv4, checksums computed."""
    if len(options) % 4:
        raise ValueError("TCP options are padded to 4 bytes")
    tcp_length = 20 + len(options) + len(payload)
    offset = (5 + len(options) // 4) << 4
    header = _TCP.pack(sport, dport, seq, ack, offset, flags, window, 0, 0) + options
    pseudo = _PSEUDO.pack(src_ip, dst_ip, 0, IPPROTO_TCP, tcp_length)
    checksum = internet_checksum(pseudo + header + payload)
    header = header[:16] + checksum.to_bytes(2, "big") + header[18:]
    ip = _IPV4.pack(
        0x45, 0, 20 + tcp_length, ip_id & 0xFFFF, 0x4000, TTL, IPPROTO_TCP, 0, src_ip, dst_ip
    )
    ip = ip[:10] + internet_checksum(ip).to_bytes(2, "big") + ip[12:]
    return _ETH.pack(dst_mac, src_mac, ETHERTYPE_IPV4) + ip + header + payload


def pcap_header(*, nanosecond: bool = False, snaplen: int = 65535, link_type: int = 1) -> bytes:
    """The 24-byte libpcap global header (little-endian, version 2.4)."""
    magic = 0xA1B23C4D if nanosecond else 0xA1B2C3D4
    return _PCAP_HEADER.pack(magic, 2, 4, 0, 0, snaplen, link_type)


def pcap_record(time: float, frame: bytes, *, nanosecond: bool = False) -> bytes:
    """A record header (timestamp to the microsecond, or nanosecond) and the frame."""
    divisor = 1_000_000_000 if nanosecond else 1_000_000
    ticks = round(time * divisor)
    seconds, fraction = divmod(ticks, divisor)
    return _PCAP_RECORD.pack(seconds, fraction, len(frame), len(frame)) + frame


def record_ticks(header: bytes, *, nanosecond: bool = False) -> tuple[int, int]:
    """A record header's timestamp in microseconds (nanoseconds) and its captured length.

    >>> record_ticks(pcap_record(2.5, b"abc")[:RECORD_HEADER_SIZE])
    (2500000, 3)
    """
    seconds, fraction, captured, _ = _PCAP_RECORD.unpack(header)
    return seconds * (1_000_000_000 if nanosecond else 1_000_000) + fraction, captured


def retimed(header: bytes, ticks: int, *, nanosecond: bool = False) -> bytes:
    """``header`` with its timestamp set to ``ticks`` (microseconds, or nanoseconds).

    >>> record_ticks(retimed(pcap_record(2.5, b"abc")[:16], 7_000_001))
    (7000001, 3)
    """
    seconds, fraction = divmod(ticks, 1_000_000_000 if nanosecond else 1_000_000)
    return _PCAP_RECORD.pack(seconds, fraction, *_PCAP_RECORD.unpack(header)[2:])
