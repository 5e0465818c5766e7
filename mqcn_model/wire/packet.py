"""Any MS-MQQB session packet: dispatch on BaseHeader.Flags.IN.

>>> from mqcn_model.wire.internal import connection_parameters, encode_internal
>>> packet, end = decode_packet(encode_internal(connection_parameters(500, 20000, 64)))
>>> packet.kind, end
('ConnectionParameters', 32)
"""

from __future__ import annotations

from mqcn_model.wire.base import IN, decode_base_header
from mqcn_model.wire.internal import InternalPacket, decode_internal, encode_internal
from mqcn_model.wire.usermessage import UserMessage, decode_user_message, encode_user_message

# Any packet of an MS-MQQB session ("packet" alone means this in the project; scapy's class is
# ``mqcn_model.scapy_base.ScapyPacket``, the capture reader's record ``records.Packet``).
SessionPacket = UserMessage | InternalPacket


def decode_packet(
    buf: bytes, offset: int = 0, *, response: bool | None = None
) -> tuple[SessionPacket, int]:
    """Read and judge one packet at ``offset``: an internal packet when Flags.IN is set,
    else a UserMessage Packet (OrderAck and FinalAck included).  ``response``: see
    :func:`mqcn_model.wire.internal.decode_internal`."""
    header, _ = decode_base_header(buf, offset)
    if header.flags & IN:
        return decode_internal(buf, offset, response=response)
    return decode_user_message(buf, offset)


def encode_packet(packet: SessionPacket) -> bytes:
    if isinstance(packet, InternalPacket):
        return encode_internal(packet)
    return encode_user_message(packet)
