"""Message <-> UserMessage Packet ([MS-MQDMPR] 3.1.7.1.30-3.1.7.1.32), for the suite's Envelope.

:func:`packet_to_envelope` fills every Envelope field the packet carries:

==============================  ================================================================
Envelope field                  from the packet
==============================  ================================================================
message_id (PROPID_M_MSGID)     UserHeader.SourceQueueManager (16 bytes) + UserHeader.MessageID
sender_identifier_type          SecurityHeader.Flags.ST (no SecurityHeader: None)
sender_identifier               SecurityID: ST 2 the queue manager GUID; ST 1 the GUID a SID of
                                the suite's shape stands for (:func:`.security.guid_for_sid`),
                                None for any other SID
authentication_level            a SecurityData.Signature: ``signed_as`` (default Sig20); else an
                                MQF signature: Sig30; else None (errata W-05)
time_to_reach_queue             BaseHeader.TimeToReachQueue
delivery_guarantee              UserHeader.Flags.DM
message_class                   MessagePropertiesHeader.MessageClass
hash_algorithm                  MessagePropertiesHeader.HashAlgorithm (0: None)
destination_format_name         UserHeader.DestinationQueue (+ QueueManagerAddress), e.g.
                                ``PRIVATE=<guid>\\3``
body                            MessagePropertiesHeader.MessageBody
arrival_time                    not on the wire: the caller's ``arrival_time``
==============================  ================================================================

Every value a decoded packet holds reaches the Envelope: its MessageClass, HashAlgorithm,
DeliveryGuarantee and SenderIdentifierType enums carry a value they do not list as a
pseudo-member named by its number (:class:`mqcn_model.constants.WireValue`), so nothing
parseable is set aside and the sender rules judge it; every other packet field stays in
the packet (docs/wire-codec.md lists them).

:func:`envelope_to_packet` goes the other way (3.1.7.1.30/32): a SecurityHeader when the
Envelope names a sender or a signature, a MultiQueueFormatHeader carrying the signature for
Sig30.  The suite neither signs nor verifies: signature bytes are opaque (``signature``,
default 128 zero bytes).

>>> import uuid
>>> from mqcn_model.envelope import Envelope, MessageId
>>> qm = uuid.UUID("0f2c1e3a-1111-4222-8333-444455556666")
>>> e = Envelope(b"\\x02\\x01", MessageId(qm, 9), sender_identifier=qm,
...              destination_format_name=f"PRIVATE={qm}\\\\3")
>>> back, body = packet_to_envelope(envelope_to_packet(e))
>>> back == e, body
(True, b'\\x02\\x01')
"""

from __future__ import annotations

import uuid
from enum import Enum
from typing import TypeVar

from mqcn_model.constants import (
    AuthLevel,
    DeliveryGuarantee,
    HashAlgorithm,
    MessageClass,
    SenderIdType,
)
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.wire.base import PRIORITY_DEFAULT, BaseHeader
from mqcn_model.wire.common import GUID_SIZE, NIL, guid_at
from mqcn_model.wire.mqf import MultiQueueFormat
from mqcn_model.wire.properties import MessageProperties
from mqcn_model.wire.queues import MQFElement, QueueFormat, format_name, parse_format_name
from mqcn_model.wire.security import (
    DE,
    ST_NONE,
    ST_QM_GUID,
    ST_SID,
    SecurityHeader,
    guid_for_sid,
    sid_for_guid,
)
from mqcn_model.wire.user import UserHeader, compose_user_flags
from mqcn_model.wire.usermessage import UserMessage, finalize

INFINITE = 0xFFFFFFFF
E = TypeVar("E", bound=Enum)
PLACEHOLDER_SIGNATURE = bytes(128)
_SIGNED = (AuthLevel.Sig10, AuthLevel.Sig20, AuthLevel.Always)


def _member(kind: type[E], value: int) -> E:
    """``kind(value)``: the member is looked up first (what the call does before its
    ``_missing_``), without the call's own cost (a captured message makes four)."""
    member = kind._value2member_map_.get(value)
    return member if member is not None else kind(value)  # type: ignore[return-value]


def packet_to_envelope(
    packet: UserMessage,
    *,
    signed_as: AuthLevel = AuthLevel.Sig20,
    arrival_time: float = 0.0,
    destination: str | None = None,
) -> tuple[Envelope, bytes]:
    """The Envelope of a (decoded) UserMessage Packet, and its body.

    ``signed_as`` is the level a SecurityData.Signature stands for: the wire does not say
    whether it is an MSMQ 1.0 or 2.0 signature (a receiver learns it by verifying, [MS-MQQB]
    3.1.5.8.3), so the caller says which it assumes (Sig10 for an MSMQ 1.0 sender).
    ``destination``: the destination's format name when the caller has it already
    (:func:`mqcn_model.wire.judgement.destination_of`), else it is made here.
    """
    user, properties, security = packet.user, packet.properties, packet.security
    hash_value = properties.hash_algorithm
    sender_type = SenderIdType.None_
    sender: uuid.UUID | None = None
    level = AuthLevel.None_
    if security is not None:
        sender_type = _member(SenderIdType, security.sender_id_type)
        if security.sender_id_type == ST_QM_GUID and len(security.sender_id) == GUID_SIZE:
            sender = guid_at(security.sender_id, 0)  # else MQMQ-2.2.20.6-2: no GUID
        elif security.sender_id_type == ST_SID:
            sender = guid_for_sid(security.sender_id)
        if security.signature:
            level = signed_as
    if level is AuthLevel.None_ and packet.mqf is not None and packet.mqf.signature:
        level = AuthLevel.Sig30
    envelope = Envelope(
        body=properties.body,
        message_id=MessageId(user.source_qm, user.message_id),
        sender_identifier=sender,
        sender_identifier_type=sender_type,
        authentication_level=level,
        time_to_reach_queue=packet.base.time_to_reach_queue,
        delivery_guarantee=_member(DeliveryGuarantee, user.delivery),
        message_class=_member(MessageClass, properties.message_class),
        hash_algorithm=_member(HashAlgorithm, hash_value) if hash_value else None,
        destination_format_name=format_name(
            user.destination, source=user.source_qm, destination=user.destination_qm
        )
        if destination is None
        else destination,
        arrival_time=arrival_time,
    )
    return envelope, properties.body


def envelope_to_packet(
    envelope: Envelope,
    body: bytes | None = None,
    *,
    destination_qm: uuid.UUID | None = None,
    sent_time: int = 0,
    time_to_be_received: int = INFINITE,
    signature: bytes = PLACEHOLDER_SIGNATURE,
    sender_cert: bytes = b"",
    priority: int = PRIORITY_DEFAULT,
) -> UserMessage:
    """The UserMessage Packet that carries ``envelope`` (``body`` overrides its body).

    ``destination_qm`` is the destination queue manager for a ``PUBLIC=`` destination (a
    ``PRIVATE=`` name carries it, a ``DIRECT=`` one has the null GUID).  Raises ValueError
    for an Envelope the wire cannot carry (XMLDSig, a sender type without its identifier,
    a destination that is not a single-element format name).
    """
    destination, host = parse_format_name(envelope.destination_format_name)
    if destination.code == 5:
        if destination_qm is None:
            raise ValueError("a PUBLIC= destination needs destination_qm")
        host = destination_qm
    qm_address = NIL if destination.code == 7 else host
    assert qm_address is not None
    user = UserHeader(
        source_qm=envelope.message_id.sender,
        destination_qm=qm_address,
        time_to_be_received=time_to_be_received,
        sent_time=sent_time,
        message_id=envelope.message_id.sequence,
        flags=compose_user_flags(delivery=int(envelope.delivery_guarantee)),
        destination=destination,
    )
    properties = MessageProperties(
        message_class=int(envelope.message_class),
        hash_algorithm=int(envelope.hash_algorithm) if envelope.hash_algorithm else 0,
        body=envelope.body if body is None else body,
    )
    level = envelope.authentication_level
    if level is AuthLevel.XMLDSig:
        raise ValueError("an XML digital signature has no MS-MQQB form (it travels over SRMP)")
    security = _security(envelope, signature if level in _SIGNED else b"", sender_cert)
    mqf = None
    if level is AuthLevel.Sig30:
        element = _mqf_element(destination, qm_address)
        mqf = MultiQueueFormat(destination=[element], signature=signature)
    message = UserMessage(
        BaseHeader(flags=priority & 0x7, time_to_reach_queue=envelope.time_to_reach_queue),
        user,
        properties,
        security=security,
        mqf=mqf,
    )
    return finalize(message)


def _security(envelope: Envelope, signature: bytes, sender_cert: bytes) -> SecurityHeader | None:
    kind = envelope.sender_identifier_type
    sender = envelope.sender_identifier
    if kind is SenderIdType.None_:
        sender_id = b""
    elif sender is None:
        raise ValueError(f"SenderIdentifierType {kind.name} needs a SenderIdentifier on the wire")
    elif kind is SenderIdType.QueueManagerIdentifier:
        sender_id = sender.bytes_le
    else:
        sender_id = sid_for_guid(sender)
    if not (sender_id or signature or sender_cert):
        return None  # nothing to carry: no SecurityHeader (read back as SenderIdType None)
    flags = {SenderIdType.None_: ST_NONE, SenderIdType.Sid: ST_SID}.get(kind, ST_QM_GUID)
    if signature:
        flags |= DE  # signed by the queuing system's default provider ([MS-MQDMPR] 3.1.7.1.32)
    return SecurityHeader(flags, sender_id=sender_id, signature=signature, sender_cert=sender_cert)


def _mqf_element(destination: QueueFormat, host: uuid.UUID) -> MQFElement:
    if destination.code == 5:
        return MQFElement(1, guid=destination.guid)
    if destination.code == 7:
        return MQFElement(3, direct=destination.direct)
    return MQFElement(2, guid=host, private_id=destination.private_id)
