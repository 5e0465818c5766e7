"""Bridges between the scapy wire layers and the struct codec: each way, byte for byte.

:func:`to_layer` gives the scapy twin (:mod:`mqcn_model.wire.packet_layers`) of a struct-codec
packet, with ``bytes(to_layer(p)) == encode(p)``; :func:`from_layer` gives the struct-codec
object a built or dissected layer stands for, and refuses (ValueError) what those objects
cannot carry.  :func:`split_bits` and :func:`join_bits` move a Flags value between its integer
and the layer's one-field-per-bit-group form; :func:`ack_body` reads an OrderAck / FinalAck
body.
"""

from __future__ import annotations

from typing import Any

from scapy.fields import (
    BitField,
)

from mqcn_model.scapy_base import SalvagingLayer, ScapyPacket
from mqcn_model.wire import acks as fast_acks
from mqcn_model.wire import base as fast_base
from mqcn_model.wire import extension_layers as ext_layers
from mqcn_model.wire import extensions as fast_extensions
from mqcn_model.wire import internal as fast_internal
from mqcn_model.wire import mqf as fast_mqf
from mqcn_model.wire import properties as fast_properties
from mqcn_model.wire import queues as fast_queues
from mqcn_model.wire import security as fast_security
from mqcn_model.wire import soap as fast_soap
from mqcn_model.wire.debug import DebugHeader as FastDebug
from mqcn_model.wire.declared import fixed_values, from_fixed_values
from mqcn_model.wire.packet_layers import (
    BaseHeader,
    ConnectionParametersHeader,
    DebugHeader,
    DirectQueueFormatName,
    EstablishConnectionHeader,
    InternalHeader,
    InternalPacketLayer,
    MessagePropertiesHeader,
    MQFAddressHeader,
    MQFSignatureHeader,
    MultiQueueFormatHeader,
    PingPacket,
    PrivateQueueFormatName,
    PrivateQueueFormatNameId,
    PublicQueueFormatName,
    SecurityHeader,
    SessionHeader,
    SoapHeader,
    TransactionHeader,
    UserHeader,
    UserMessagePacket,
    _Container,
    base_header_of,
)
from mqcn_model.wire.session import SessionHeader as FastSession
from mqcn_model.wire.transaction import TransactionHeader as FastTransaction
from mqcn_model.wire.user import UserHeader as FastUser
from mqcn_model.wire.usermessage import UserMessage as FastUserMessage

__all__ = ["ack_body", "from_layer", "join_bits", "split_bits", "to_layer"]

# --- bridges to the struct codec ----------------------------------------------------------------


def _bit_fields(cls: type[ScapyPacket], first: str, total: int) -> list[BitField]:
    """The run of BitFields of ``cls`` that starts at ``first`` and spans ``total`` bits."""
    fields: list[BitField] = []
    started = False
    for fld in cls.fields_desc:
        started = started or fld.name == first
        if started:
            fields.append(fld)
            if sum(f.size for f in fields) == total:
                return fields
    raise AssertionError(f"{cls.__name__} has no {total}-bit run from {first}")


def split_bits(cls: type[ScapyPacket], first: str, total: int, value: int) -> dict[str, int]:
    """Keyword arguments setting the bit fields of ``cls`` (from ``first``) to ``value``."""
    out = {}
    shift = total
    for fld in _bit_fields(cls, first, total):
        shift -= fld.size
        out[fld.name] = (value >> shift) & ((1 << fld.size) - 1)
    return out


def join_bits(layer: ScapyPacket, first: str, total: int) -> int:
    """The integer the bit fields of ``layer`` (from ``first``) hold."""
    value = 0
    for fld in _bit_fields(type(layer), first, total):
        value = (value << fld.size) | (int(layer.getfieldval(fld.name)) & ((1 << fld.size) - 1))
    return value


def _queue_layer(queue: fast_queues.QueueFormat | None) -> ScapyPacket | None:
    if queue is None:
        return None
    layout = queue.layout
    if layout == fast_queues.PRIVATE_ID:
        return PrivateQueueFormatNameId(PrivateQueueIdentifier=queue.private_id)
    if layout == fast_queues.PUBLIC:
        return PublicQueueFormatName(PublicQueueIdentifier=queue.guid)
    if layout == fast_queues.PRIVATE:
        return PrivateQueueFormatName(
            SourceQueueManager=queue.guid, PrivateQueueIdentifier=queue.private_id
        )
    if layout == fast_queues.DIRECT:
        return DirectQueueFormatName(DirectFormatName=queue.direct)
    return None


def _address(elements: list[fast_queues.MQFElement], header_id: int, reserved: int) -> ScapyPacket:
    return MQFAddressHeader(HeaderID=header_id, Reserved=reserved, FormatNameList=list(elements))


def _user_message_layer(message: FastUserMessage) -> UserMessagePacket:
    base, user, props = message.base, message.user, message.properties
    fields: dict[str, Any] = {
        "BaseHeader": BaseHeader(
            VersionNumber=base.version,
            Reserved=base.reserved,
            Signature=base.signature,
            TimeToReachQueue=base.time_to_reach_queue,
            **split_bits(BaseHeader, "X", 16, base.flags),
        ),
        "UserHeader": UserHeader(
            SourceQueueManager=user.source_qm,
            QueueManagerAddress=user.destination_qm,
            TimeToBeReceived=user.time_to_be_received,
            SentTime=user.sent_time,
            MessageID=user.message_id,
            DestinationQueue=_queue_layer(user.destination),
            AdminQueue=_queue_layer(user.admin),
            ResponseQueue=_queue_layer(user.response),
            **split_bits(UserHeader, "X4", 32, user.flags),
            **({"ConnectorType": user.connector_type} if user.connector_type else {}),
        ),
        "MessagePropertiesHeader": MessagePropertiesHeader(
            MessageClass=props.message_class,
            CorrelationID=props.correlation_id,
            BodyType=props.body_type,
            ApplicationTag=props.application_tag,
            PrivacyLevel=props.privacy_level,
            HashAlgorithm=props.hash_algorithm,
            EncryptionAlgorithm=props.encryption_algorithm,
            Label=props.label,
            ExtensionData=props.extension,
            MessageBody=props.body,
            BodySlack=props.body_slack,
            AllocationBodySize=props.declared_allocation,  # None: computed
            **split_bits(MessagePropertiesHeader, "X", 8, props.flags),
        ),
    }
    if message.transaction is not None:
        tx = message.transaction
        fields["TransactionHeader"] = TransactionHeader(
            TxSequenceOrdinal=tx.sequence_ordinal,
            TxSequenceTimeStamp=tx.sequence_timestamp,
            TxSequenceNumber=tx.sequence_number,
            PreviousTxSequenceNumber=tx.previous_number,
            **split_bits(TransactionHeader, "X", 32, tx.flags),
            **({"ConnectorQMGuid": tx.connector_qm} if tx.connector_qm else {}),
        )
    if message.security is not None:
        sec = message.security
        fields["SecurityHeader"] = SecurityHeader(
            SecurityID=sec.sender_id,
            EncryptionKey=sec.encryption_key,
            Signature=sec.signature,
            SenderCert=sec.sender_cert,
            ProviderInfo=sec.provider_info,
            **split_bits(SecurityHeader, "X", 16, sec.flags),
        )
    if message.debug is not None:
        debug = message.debug
        fields["DebugHeader"] = DebugHeader(
            Reserved=debug.reserved,
            **split_bits(DebugHeader, "X", 16, debug.flags),
            **({"QueueIdentifier": debug.queue} if debug.queue else {}),
        )
    if message.srmp_envelope is not None:
        fields["SRMPEnvelopeHeader"] = ext_layers.to_layer(message.srmp_envelope)
    if message.compound is not None:
        fields["CompoundMessageHeader"] = ext_layers.to_layer(message.compound)
    if message.extensions is not None:
        chain = message.extensions
        parts = (chain.extension, chain.subqueue, chain.dead_letter, chain.extended_address)
        fields["Extensions"] = [ext_layers.to_layer(p) for p in parts if p is not None]
    if message.soap is not None:
        soap = message.soap
        fields["SoapHeader"] = SoapHeader(
            Header=soap.header, Body=soap.body, Reserved=soap.reserved, Reserved1=soap.reserved1
        )
    if message.mqf is not None:
        mqf = message.mqf
        fields["MultiQueueFormatHeader"] = MultiQueueFormatHeader(
            Destination=_address(mqf.destination, fast_mqf.DESTINATION_ID, mqf.reserved[0]),
            Administration=_address(mqf.admin, fast_mqf.ADMIN_ID, mqf.reserved[1]),
            Response=_address(mqf.response, fast_mqf.RESPONSE_ID, mqf.reserved[2]),
            Signature=MQFSignatureHeader(Reserved=mqf.reserved[3], Signature=mqf.signature),
        )
    if message.session is not None:
        fields["SessionHeader"] = _session_layer(message.session)
    return UserMessagePacket(**fields)


def _session_layer(session: FastSession) -> SessionHeader:
    return SessionHeader(**fixed_values(session))


def _internal_layer(packet: fast_internal.InternalPacket) -> InternalPacketLayer:
    base, body = packet.base, packet.body
    layer_body: ScapyPacket
    if isinstance(body, FastSession):
        layer_body = _session_layer(body)
    elif isinstance(body, fast_internal.ConnectionParameters):
        layer_body = ConnectionParametersHeader(
            RecoverableAckTimeout=body.recoverable_ack_timeout,
            AckTimeout=body.ack_timeout,
            Reserved=body.reserved,
            WindowSize=body.window_size,
        )
    else:
        layer_body = EstablishConnectionHeader(
            ClientGuid=body.client_guid,
            ServerGuid=body.server_guid,
            TimeStamp=body.timestamp,
            Reserved=body.reserved,
            Padding=body.padding,
            **split_bits(EstablishConnectionHeader, "X", 16, body.operating_system),
        )
    return InternalPacketLayer(
        BaseHeader=BaseHeader(
            VersionNumber=base.version,
            Reserved=base.reserved,
            Signature=base.signature,
            TimeToReachQueue=base.time_to_reach_queue,
            **split_bits(BaseHeader, "X", 16, base.flags),
        ),
        InternalHeader=InternalHeader(
            Reserved=packet.internal.reserved,
            **split_bits(InternalHeader, "X", 16, packet.internal.flags),
        ),
        Body=layer_body,
    )


def to_layer(
    packet: FastUserMessage | fast_internal.InternalPacket | fast_internal.Ping,
) -> ScapyPacket:
    """The scapy twin of a struct-codec packet: ``bytes(to_layer(p)) == encode(p)``.

    >>> from mqcn_model.wire.internal import connection_parameters, encode_internal
    >>> p = connection_parameters(500, 20000, 64)
    >>> bytes(to_layer(p)) == encode_internal(p)
    True
    """
    if isinstance(packet, fast_internal.Ping):
        return PingPacket(
            Signature=packet.signature,
            Cookie=packet.cookie,
            QMGuid=packet.qm_guid,
            **split_bits(PingPacket, "X", 16, packet.flags),
        )
    if isinstance(packet, fast_internal.InternalPacket):
        return _internal_layer(packet)
    return _user_message_layer(packet)


# --- layer -> struct codec ----------------------------------------------------------------------


def _whole(layer: ScapyPacket | None, what: str) -> ScapyPacket:
    if layer is None or not isinstance(layer, SalvagingLayer) or layer.broken:
        raise ValueError(f"the {what} did not dissect completely")
    return layer


def _fast_base(layer: ScapyPacket) -> fast_base.BaseHeader:
    layer = _whole(layer, "BaseHeader")
    return fast_base.BaseHeader(
        flags=join_bits(layer, "X", 16),
        packet_size=layer.PacketSize or 0,
        time_to_reach_queue=layer.TimeToReachQueue,
        version=layer.VersionNumber,
        reserved=layer.Reserved,
        signature=layer.Signature,
    )


def _fast_queue(layer: ScapyPacket | None, code: int) -> fast_queues.QueueFormat | None:
    layout = fast_queues.LAYOUT[code]
    if layout in (fast_queues.NONE, fast_queues.SAME_AS_ADMIN):
        return None
    layer = _whole(layer, "queue field")
    if isinstance(layer, PrivateQueueFormatNameId):
        return fast_queues.QueueFormat(code, private_id=layer.PrivateQueueIdentifier)
    if isinstance(layer, PublicQueueFormatName):
        return fast_queues.QueueFormat(code, guid=layer.PublicQueueIdentifier)
    if isinstance(layer, PrivateQueueFormatName):
        return fast_queues.QueueFormat(
            code, private_id=layer.PrivateQueueIdentifier, guid=layer.SourceQueueManager
        )
    name = layer.DirectFormatName
    if not isinstance(name, str):
        raise ValueError("the direct format name has no 0x0000 terminator")
    return fast_queues.QueueFormat(code, direct=name)


def _fast_text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is not a UTF-16 string ending in 0x0000")
    return value


def _check_size(layer: _Container, trailer: int) -> None:
    """A dissected packet whose fields ran short (a cut packet) has fewer bytes than its
    PacketSize says: refuse it."""
    size = base_header_of(layer).PacketSize
    if size is None:
        return  # built: computed when the layer is built
    own = layer.self_build()  # the dissected bytes while no field was changed since
    if len(own) - trailer != size:
        raise ValueError(f"PacketSize is {size} but the packet holds {len(own) - trailer}")


def _fast_user_message(layer: UserMessagePacket) -> FastUserMessage:
    if layer.Extra:
        raise ValueError(f"{len(layer.Extra)} bytes inside PacketSize follow the last header")
    _check_size(layer, len(bytes(layer.SessionHeader)) if layer.SessionHeader is not None else 0)
    user = _whole(layer.UserHeader, "UserHeader")
    flags = join_bits(user, "X4", 32)
    fast_user = FastUser(
        source_qm=user.SourceQueueManager,
        destination_qm=user.QueueManagerAddress,
        time_to_be_received=user.TimeToBeReceived,
        sent_time=user.SentTime,
        message_id=user.MessageID,
        flags=flags,
        destination=_fast_queue(user.DestinationQueue, user.DQ),
        admin=_fast_queue(user.AdminQueue, user.AQ),
        response=_fast_queue(user.ResponseQueue, user.RQ),
        connector_type=user.ConnectorType if user.CQ else None,
    )
    props = _whole(layer.MessagePropertiesHeader, "MessagePropertiesHeader")
    label = props.Label
    fast_props = fast_properties.MessageProperties(
        flags=join_bits(props, "X", 8),
        message_class=props.MessageClass,
        correlation_id=bytes(props.CorrelationID),
        body_type=props.BodyType,
        application_tag=props.ApplicationTag,
        privacy_level=props.PrivacyLevel,
        hash_algorithm=props.HashAlgorithm,
        encryption_algorithm=props.EncryptionAlgorithm,
        label=None if label in (None, b"") else _fast_text(label, "the Label"),
        extension=bytes(props.ExtensionData),
        body=bytes(props.MessageBody),
        body_slack=bytes(props.BodySlack),
    )
    message = FastUserMessage(_fast_base(layer.BaseHeader), fast_user, fast_props)
    if layer.TransactionHeader is not None:
        tx = _whole(layer.TransactionHeader, "TransactionHeader")
        message.transaction = FastTransaction(
            flags=join_bits(tx, "X", 32),
            sequence_ordinal=tx.TxSequenceOrdinal,
            sequence_timestamp=tx.TxSequenceTimeStamp,
            sequence_number=tx.TxSequenceNumber,
            previous_number=tx.PreviousTxSequenceNumber,
            connector_qm=tx.ConnectorQMGuid if tx.CG else None,
        )
    if layer.SecurityHeader is not None:
        sec = _whole(layer.SecurityHeader, "SecurityHeader")
        message.security = fast_security.SecurityHeader(
            join_bits(sec, "X", 16),
            bytes(sec.SecurityID),
            bytes(sec.EncryptionKey),
            bytes(sec.Signature),
            bytes(sec.SenderCert),
            bytes(sec.ProviderInfo),
        )
    if layer.DebugHeader is not None:
        debug = _whole(layer.DebugHeader, "DebugHeader")
        message.debug = FastDebug(
            join_bits(debug, "X", 16), debug.Reserved, debug.QueueIdentifier if debug.QT else None
        )
    for name, attribute in (
        ("SRMPEnvelopeHeader", "srmp_envelope"),
        ("CompoundMessageHeader", "compound"),
    ):
        if layer.getfieldval(name) is not None:
            setattr(message, attribute, ext_layers.to_record(_whole(layer.getfieldval(name), name)))
    if layer.Extensions is not None:
        records = {
            type(r): r for r in (ext_layers.to_record(_whole(x, x.name)) for x in layer.Extensions)
        }
        message.extensions = fast_extensions.Extensions(
            records[fast_extensions.ExtensionHeader],
            records.get(fast_extensions.SubqueueHeader),
            records.get(fast_extensions.DeadLetterHeader),
            records.get(fast_extensions.ExtendedAddressHeader),
        )
    if layer.SoapHeader is not None:
        soap = _whole(layer.SoapHeader, "SoapHeader")
        message.soap = fast_soap.SoapHeader(
            _fast_text(soap.Header, "the SOAP Header"),
            _fast_text(soap.Body, "the SOAP Body"),
            soap.Reserved,
            soap.Reserved1,
        )
    if layer.MultiQueueFormatHeader is not None:
        mqf = _whole(layer.MultiQueueFormatHeader, "MultiQueueFormatHeader")
        parts = [
            _whole(mqf.getfieldval(n), n)
            for n in ("Destination", "Administration", "Response", "Signature")
        ]
        for part in parts[:3]:
            if part.Rest and any(part.Rest):
                raise ValueError("an MQFAddressHeader holds bytes after its elements")
        message.mqf = fast_mqf.MultiQueueFormat(
            list(parts[0].FormatNameList),
            list(parts[1].FormatNameList),
            list(parts[2].FormatNameList),
            bytes(parts[3].Signature),
            (parts[0].Reserved, parts[1].Reserved, parts[2].Reserved, parts[3].Reserved),
        )
    if layer.SessionHeader is not None:
        message.session = _fast_session(layer.SessionHeader)
    elif message.base.session:
        raise ValueError("BaseHeader.Flags.SH is set but no SessionHeader follows the packet")
    return message


def _fast_session(layer: ScapyPacket) -> FastSession:
    return from_fixed_values(FastSession, _whole(layer, "SessionHeader"))


def _fast_internal(layer: InternalPacketLayer) -> fast_internal.InternalPacket:
    if layer.Extra:
        raise ValueError(f"{len(layer.Extra)} bytes inside PacketSize follow the body")
    _check_size(layer, 0)
    header = _whole(layer.InternalHeader, "InternalHeader")
    body = _whole(layer.Body if isinstance(layer.Body, ScapyPacket) else None, "body")
    fast_body: fast_internal.InternalBody
    if isinstance(body, SessionHeader):
        fast_body = _fast_session(body)
    elif isinstance(body, ConnectionParametersHeader):
        fast_body = fast_internal.ConnectionParameters(
            body.RecoverableAckTimeout, body.AckTimeout, body.WindowSize, body.Reserved
        )
    else:
        fast_body = fast_internal.EstablishConnection(
            body.ClientGuid,
            body.ServerGuid,
            body.TimeStamp,
            join_bits(body, "X", 16),
            body.Reserved,
            bytes(body.Padding),
        )
    return fast_internal.InternalPacket(
        _fast_base(layer.BaseHeader),
        fast_internal.InternalHeader(join_bits(header, "X", 16), header.Reserved),
        fast_body,
    )


def from_layer(
    layer: ScapyPacket,
) -> FastUserMessage | fast_internal.InternalPacket | fast_internal.Ping:
    """The struct-codec object a (built or dissected) layer stands for.

    Raises ValueError when the layer holds what the struct codec's objects cannot carry (a
    broken dissection, bytes after the last header, an unterminated string...).

    >>> from mqcn_model.wire.internal import connection_parameters, encode_internal
    >>> p = connection_parameters(500, 20000, 64)
    >>> from_layer(InternalPacketLayer(encode_internal(p))) == p
    True
    """
    layer = _whole(layer, type(layer).__name__)
    if isinstance(layer, PingPacket):
        return fast_internal.Ping(
            join_bits(layer, "X", 16), layer.Cookie, layer.QMGuid, layer.Signature
        )
    if isinstance(layer, InternalPacketLayer):
        return _fast_internal(layer)
    if isinstance(layer, UserMessagePacket):
        return _fast_user_message(layer)
    raise ValueError(f"{type(layer).__name__} is not a packet layer")


def ack_body(layer: UserMessagePacket) -> fast_acks.OrderAckBody | fast_acks.FinalAckBody:
    """The OrderAck / FinalAck body of a layer's MessageBody (by its class), unjudged."""
    body = bytes(layer.MessagePropertiesHeader.MessageBody)
    if layer.MessagePropertiesHeader.MessageClass == fast_acks.ORDER_ACK_CLASS:
        return fast_acks.decode_order_ack_body(body, 0)
    return fast_acks.decode_final_ack_body(body, 0)
