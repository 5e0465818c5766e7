"""The MSMQ wire codec: pure ``struct`` parse/build of the packets an MS-MQQB session carries.

Where MS-MQCN messages really travel: inside the UserMessage Packet of [MS-MQMQ] 2.2.20, on
a TCP session to port 1801 ([MS-MQQB] 2).  One module per structure group, each with a
symmetric ``decode_*`` / ``encode_*`` pair (``decode(encode(x)) == x``):

* :mod:`.base`        — BaseHeader (2.2.19.1)
* :mod:`.user`        — UserHeader (2.2.19.2); :mod:`.queues` its queue formats and the
  MQFFormatNameElement (2.2.18.1.4-7)
* :mod:`.properties`  — MessagePropertiesHeader (2.2.19.3) with the message body
* :mod:`.security`, :mod:`.transaction`, :mod:`.session`, :mod:`.debug`, :mod:`.soap`,
  :mod:`.mqf` — the optional headers (2.2.20.1-2.2.20.8)
* :mod:`.usermessage` — the UserMessage Packet as a whole; :mod:`.acks` OrderAck / FinalAck
* :mod:`.internal`    — InternalHeader, EstablishConnection, ConnectionParameters, SessionAck,
  and the UDP Ping Packet ([MS-MQQB] 2.2.1-2.2.7)
* :mod:`.packet`      — any session packet; :mod:`.framing` where the next one ends in a stream
* :mod:`.mapping`     — Message <-> packet ([MS-MQDMPR] 3.1.7.1.30-32) for the Envelope
* :mod:`.judgement`   — one UserMessage judged as MS-MQCN sees it (destination, wire and
  envelope findings, body): used by ``mqcn decode --packet`` and the capture reader
* :mod:`.render`      — JSON views
* :mod:`.declared`    — each header declared once, on its record: the structs, the scapy
  fields and the bridge between the two codecs derive from it
* :mod:`.packet_layers` — the scapy twins (for building anything) on the shared base
  :mod:`mqcn_model.scapy_base`; :mod:`.layer_bridge` converts them to and from the codec

Bytes that cannot be read (a broken *structural* requirement: sizes, offsets, header presence,
lengths) raise :class:`mqcn_model.errors.DecodeError` and nothing else; its Violation names a
requirement of the wire catalog (``mqcn_model/wire_requirements.yaml``, IDs such as
``MQMQ-2.2.19.1-2``) and the byte offset. A broken *value rule* (``rule: value`` in the
catalog) does not stop the decoder: the decoded packet lists it in ``findings``. No length
field makes the codec allocate more than the input holds. Errata W-01..W-09 (docs/errata.md)
give the readings where the wire documents disagree; docs/wire-codec.md lists what is decoded
and decided.
"""

from mqcn_model.wire.base import BaseHeader, decode_base_header, encode_base_header
from mqcn_model.wire.framing import (
    NEED_MORE,
    NOT_BASE_HEADER,
    PACKET,
    Frame,
    find_base_header,
    next_frame,
)
from mqcn_model.wire.internal import (
    ConnectionParameters,
    EstablishConnection,
    InternalHeader,
    InternalPacket,
    Ping,
    decode_internal,
    decode_ping,
    encode_internal,
    encode_ping,
)
from mqcn_model.wire.mapping import envelope_to_packet, packet_to_envelope
from mqcn_model.wire.packet import SessionPacket, decode_packet, encode_packet
from mqcn_model.wire.render import packet_to_json
from mqcn_model.wire.usermessage import (
    UserMessage,
    decode_user_message,
    encode_user_message,
    finalize,
)

__all__ = [
    "NEED_MORE",
    "NOT_BASE_HEADER",
    "PACKET",
    "BaseHeader",
    "ConnectionParameters",
    "EstablishConnection",
    "Frame",
    "InternalHeader",
    "InternalPacket",
    "Ping",
    "SessionPacket",
    "UserMessage",
    "decode_base_header",
    "decode_internal",
    "decode_packet",
    "decode_ping",
    "decode_user_message",
    "encode_base_header",
    "encode_internal",
    "encode_packet",
    "encode_ping",
    "encode_user_message",
    "envelope_to_packet",
    "finalize",
    "find_base_header",
    "next_frame",
    "packet_to_envelope",
    "packet_to_json",
]
