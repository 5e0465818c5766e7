"""From a captured frame to a TCP segment of port 1801, or the kind of frame it is (pure).

:func:`dissect` peels the link layer, IPv4 or IPv6 and TCP.  A TCP segment to or from port
1801 (the MS-MQQB port, [MS-MQQB] 2.1.1) comes back as a :class:`Segment`; every other frame
comes back as the name of its kind, which the reader counts (nothing is dropped unseen):

==================  ==========================================================================
kind                the frame
==================  ==========================================================================
``tcp-other``       TCP between other ports
``udp``             UDP (``udp-msmq-ping``: to or from port 3527, the MSMQ Ping, 2.1.2)
``ip-other``        IPv4/IPv6 carrying another protocol (ICMP, ...)
``ipv4-fragment``   an IPv4 fragment (MF set or a fragment offset): counted, not reassembled
``ipv6-fragment``   an IPv6 packet with a Fragment header: counted, not reassembled
``non-ip``          a link-layer frame that is not IP (ARP, LLC, LLDP, ...)
``headers-cut``     too short for its own headers (a snaplen below the headers, or damage)
``malformed``       an IP length longer than the frame, which no snaplen cut explains
``link-unknown``    a link type this reader does not know
``unknown-interface``  a pcapng packet naming an interface its section never described
==================  ==========================================================================

Link types (LINKTYPE_ numbers): 0 BSD loopback (address family in host byte order, either
order accepted), 1 Ethernet (802.1Q / 802.1ad VLAN tags skipped), 12/14/101 raw IP, 108
OpenBSD loopback (family in network order), 113 Linux cooked (SLL), 228 raw IPv4, 229 raw
IPv6, 276 Linux cooked v2 (SLL2).  The IP packet is cut at its own total length (Ethernet
pads short frames); when the frame holds fewer bytes than IP says, the TCP payload is what
was captured and :attr:`Segment.missing` counts the rest.

>>> import struct
>>> tcp = struct.pack("!HHIIBBHHH", 49152, 1801, 7, 0, 5 << 4, 0x18, 8192, 0, 0) + b"data"
>>> ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0,
...                  bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + tcp
>>> s = dissect(101, ip, len(ip))
>>> (s.sport, s.dport, s.seq, s.payload, s.missing), format_endpoint(s.src, s.sport)
((49152, 1801, 7, b'data', 0), '10.0.0.1:49152')
>>> dissect(1, bytes(12) + b"\\x08\\x06" + bytes(28), 42)
'non-ip'
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

MSMQ_PORT = 1801
PING_PORT = 3527

TCP_FIN, TCP_SYN, TCP_RST, TCP_PSH, TCP_ACK = 0x01, 0x02, 0x04, 0x08, 0x10

LINK_NULL, LINK_ETHERNET, LINK_RAW, LINK_LOOP, LINK_SLL = 0, 1, 101, 108, 113
LINK_IPV4, LINK_IPV6, LINK_SLL2 = 228, 229, 276
RAW_LINKS = frozenset({12, 14, LINK_RAW})

ETHERTYPE_IPV4, ETHERTYPE_IPV6 = 0x0800, 0x86DD
VLAN_TAGS = frozenset({0x8100, 0x88A8, 0x9100})
# BSD address families for IPv6 differ between systems (24 NetBSD/OpenBSD, 28 FreeBSD,
# 30 macOS); AF_INET is 2 everywhere.
AF_INET6 = frozenset({24, 28, 30})

IPPROTO_TCP, IPPROTO_UDP = 6, 17
IPV6_EXTENSIONS = frozenset({0, 43, 60})  # hop-by-hop, routing, destination options
IPV6_FRAGMENT = 44

_ETH = struct.Struct("!H")
_IPV4_ETHERTYPE = ETHERTYPE_IPV4.to_bytes(2, "big")
_IPV4 = struct.Struct("!BBHHHBB")
_IPV6 = struct.Struct("!IHBB")
_PORTS = struct.Struct("!HH")
_TCP = struct.Struct("!HHIIBB")
# Ethernet's EtherType, IPv4's fixed header but TTL and checksum, TCP's first 14 bytes
_ETHERNET_IPV4_TCP = struct.Struct("!12xHBxHxxHxBxx4s4sHHIIBB")


@dataclass(slots=True)
class Segment:
    """A TCP segment to or from port 1801: raw addresses (4 or 16 bytes), ports, sequence
    and acknowledgment numbers, flags, the captured payload, and ``missing``: payload bytes
    the segment carried but the frame did not capture (snaplen)."""

    src: bytes
    dst: bytes
    sport: int
    dport: int
    seq: int
    ack: int
    flags: int
    payload: bytes
    missing: int = 0


def dissect(link_type: int | None, data: bytes, length: int) -> Segment | str:
    """The TCP segment of port 1801 in ``data`` (a frame of ``length`` bytes, of which
    ``data`` was captured), or the kind of frame it is (see the module docstring)."""
    if link_type == LINK_ETHERNET and len(data) >= _ETHERNET_IPV4_TCP.size:
        # the common frame, Ethernet + IPv4 without options + TCP, read with one unpack; each
        # test is the one the general path below makes, and anything else takes that path
        (
            ethertype,
            first,
            total,
            fragment,
            protocol,
            src,
            dst,
            sport,
            dport,
            seq,
            ack,
            offset,
            flags,
        ) = _ETHERNET_IPV4_TCP.unpack_from(data)
        if (
            ethertype == ETHERTYPE_IPV4
            and first == 0x45
            and total >= 20
            and not fragment & 0x3FFF
            and protocol == IPPROTO_TCP
        ):
            if sport != MSMQ_PORT and dport != MSMQ_PORT:
                return "tcp-other"
            header = (offset >> 4) * 4
            end = 14 + total
            if header >= 20 and 34 + header <= end and len(data) >= 34 + header:
                captured_end = min(end, len(data))
                missing = end - captured_end
                if missing and len(data) >= length:
                    return "malformed"
                payload = data[34 + header : captured_end]
                return Segment(src, dst, sport, dport, seq, ack, flags, payload, missing)
    if link_type == LINK_ETHERNET and len(data) >= 14 and data[12:14] == _IPV4_ETHERTYPE:
        found = _ipv4(data, 14)  # without the link layer's dispatch
    else:
        found = _link(link_type, data)
    if type(found) is Segment and found.missing and len(data) >= length:
        return "malformed"  # IP claims more bytes than the whole frame had: not a snaplen cut
    return found


def _link(link_type: int | None, data: bytes) -> Segment | str:
    if link_type is None:
        return "unknown-interface"
    if link_type == LINK_ETHERNET:
        if len(data) < 14:
            return "headers-cut"
        at = 12
        (ethertype,) = _ETH.unpack_from(data, at)
        while ethertype in VLAN_TAGS:
            at += 4
            if len(data) < at + 2:
                return "headers-cut"
            (ethertype,) = _ETH.unpack_from(data, at)
        return _by_ethertype(ethertype, data, at + 2)
    if link_type == LINK_SLL:
        if len(data) < 16:
            return "headers-cut"
        return _by_ethertype(_ETH.unpack_from(data, 14)[0], data, 16)
    if link_type == LINK_SLL2:
        if len(data) < 20:
            return "headers-cut"
        return _by_ethertype(_ETH.unpack_from(data, 0)[0], data, 20)
    if link_type in RAW_LINKS or link_type in (LINK_IPV4, LINK_IPV6):
        if not data:
            return "headers-cut"
        version = data[0] >> 4
        if version == 4:
            return _ipv4(data, 0)
        if version == 6:
            return _ipv6(data, 0)
        return "non-ip"
    if link_type in (LINK_NULL, LINK_LOOP):
        if len(data) < 4:
            return "headers-cut"
        if link_type == LINK_LOOP:
            family = int.from_bytes(data[:4], "big")
        else:  # host byte order of the capturing machine: accept either
            family = int.from_bytes(data[:4], "little")
            if family > 0xFFFF:
                family = int.from_bytes(data[:4], "big")
        if family == 2:
            return _ipv4(data, 4)
        if family in AF_INET6:
            return _ipv6(data, 4)
        return "non-ip"
    return "link-unknown"


def _by_ethertype(ethertype: int, data: bytes, at: int) -> Segment | str:
    if ethertype == ETHERTYPE_IPV4:
        return _ipv4(data, at)
    if ethertype == ETHERTYPE_IPV6:
        return _ipv6(data, at)
    return "non-ip"


def _ipv4(data: bytes, at: int) -> Segment | str:
    if len(data) < at + 20:
        return "headers-cut"
    first, _, total, _, fragment, _, protocol = _IPV4.unpack_from(data, at)
    header = (first & 0x0F) * 4
    if first >> 4 != 4 or header < 20 or total < header:
        return "headers-cut"
    if fragment & 0x3FFF:  # MF or a fragment offset: only whole datagrams are read
        return "ipv4-fragment"
    if len(data) < at + header:
        return "headers-cut"
    src = data[at + 12 : at + 16]
    dst = data[at + 16 : at + 20]
    return _transport(protocol, src, dst, data, at + header, at + total)


def _ipv6(data: bytes, at: int) -> Segment | str:
    if len(data) < at + 40:
        return "headers-cut"
    first, payload_length, next_header, _ = _IPV6.unpack_from(data, at)
    if first >> 28 != 6:
        return "headers-cut"
    src = data[at + 8 : at + 24]
    dst = data[at + 24 : at + 40]
    end = at + 40 + payload_length
    at += 40
    while next_header in IPV6_EXTENSIONS or next_header == IPV6_FRAGMENT:
        if next_header == IPV6_FRAGMENT:
            return "ipv6-fragment"
        if len(data) < at + 2:
            return "headers-cut"
        next_header, size = data[at], (data[at + 1] + 1) * 8
        at += size
    return _transport(next_header, src, dst, data, at, end)


def _transport(
    protocol: int, src: bytes, dst: bytes, data: bytes, at: int, end: int
) -> Segment | str:
    """The TCP or UDP header at ``at``; ``end`` is where IP says the datagram stops."""
    if protocol == IPPROTO_UDP:
        if len(data) < at + 4:
            return "headers-cut"
        sport, dport = _PORTS.unpack_from(data, at)
        return "udp-msmq-ping" if PING_PORT in (sport, dport) else "udp"
    if protocol != IPPROTO_TCP:
        return "ip-other"
    if len(data) < at + 14:
        return "headers-cut"
    sport, dport, seq, ack, offset, flags = _TCP.unpack_from(data, at)
    if sport != MSMQ_PORT and dport != MSMQ_PORT:
        return "tcp-other"
    header = (offset >> 4) * 4
    if header < 20 or at + header > end or len(data) < at + header:
        return "headers-cut"
    captured_end = min(end, len(data))
    payload = data[at + header : captured_end]
    return Segment(src, dst, sport, dport, seq, ack, flags, payload, end - captured_end)


def format_endpoint(address: bytes, port: int) -> str:
    """``10.0.0.1:1801`` or ``[fe80::1]:1801``."""
    if len(address) == 4:
        return f"{address[0]}.{address[1]}.{address[2]}.{address[3]}:{port}"
    return f"[{ipaddress.IPv6Address(address)}]:{port}"
