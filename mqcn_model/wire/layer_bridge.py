"""The bridge between the scapy wire layers and the struct codec, derived from the headers'
one declaration: each way, byte for byte.

:func:`to_layer` gives the scapy twin (:mod:`mqcn_model.wire.packet_layers`) of a struct-codec
packet, with ``bytes(to_layer(p)) == encode(p)``; :func:`from_layer` gives the struct-codec
object a built or dissected layer stands for, and refuses (ValueError) what those objects
cannot carry.  Neither names a field: a record's fixed fields go to and come from the layer
under their spec names (:func:`~mqcn_model.wire.declared.fixed_values`, a Flags field as its
bit groups), and each variable part to and from the layer field its :func:`~mqcn_model.wire.
declared.part` names -- a nested record as its own layer, recursively.  Only what differs in
shape is written here: a queue format (one record for four layouts), the MQF header (one
record for four sub-headers), the extension chain (a list of layers) and the [MS-MQRR] 2.2.5
headers' variable parts (:mod:`mqcn_model.wire.extension_layers`).  :func:`ack_body` reads an
OrderAck / FinalAck body.
"""

from __future__ import annotations

from typing import Any

from mqcn_model.scapy_base import AutoLEIntField, SalvagingLayer, ScapyPacket
from mqcn_model.wire import acks as fast_acks
from mqcn_model.wire import base as fast_base
from mqcn_model.wire import debug as fast_debug
from mqcn_model.wire import extension_layers as ext_layers
from mqcn_model.wire import extensions as fast_extensions
from mqcn_model.wire import internal as fast_internal
from mqcn_model.wire import mqf as fast_mqf
from mqcn_model.wire import packet_layers as L
from mqcn_model.wire import properties as fast_properties
from mqcn_model.wire import queues as fast_queues
from mqcn_model.wire import security as fast_security
from mqcn_model.wire import session as fast_session
from mqcn_model.wire import soap as fast_soap
from mqcn_model.wire import transaction as fast_transaction
from mqcn_model.wire import user as fast_user
from mqcn_model.wire import usermessage as fast_usermessage
from mqcn_model.wire.declared import fixed_values, from_fixed_values, layout, part_kinds

__all__ = ["LAYERS", "ack_body", "from_layer", "to_layer"]

# each declared record and the layer its declaration builds
LAYERS: dict[type, type[ScapyPacket]] = {
    fast_base.BaseHeader: L.BaseHeader,
    fast_user.UserHeader: L.UserHeader,
    fast_properties.MessageProperties: L.MessagePropertiesHeader,
    fast_transaction.TransactionHeader: L.TransactionHeader,
    fast_security.SecurityHeader: L.SecurityHeader,
    fast_debug.DebugHeader: L.DebugHeader,
    fast_soap.SoapHeader: L.SoapHeader,
    fast_mqf.MQFAddressHeader: L.MQFAddressHeader,
    fast_mqf.MQFSignatureHeader: L.MQFSignatureHeader,
    fast_session.SessionHeader: L.SessionHeader,
    fast_internal.InternalHeader: L.InternalHeader,
    fast_internal.ConnectionParameters: L.ConnectionParametersHeader,
    fast_internal.EstablishConnection: L.EstablishConnectionHeader,
    fast_internal.Ping: L.PingPacket,
    fast_usermessage.UserMessage: L.UserMessagePacket,
    fast_internal.InternalPacket: L.InternalPacketLayer,
}
_RECORDS = {layer: record for record, layer in LAYERS.items()}

_QUEUE_LAYERS = {
    fast_queues.PRIVATE_ID: L.PrivateQueueFormatNameId,
    fast_queues.PUBLIC: L.PublicQueueFormatName,
    fast_queues.PRIVATE: L.PrivateQueueFormatName,
    fast_queues.DIRECT: L.DirectQueueFormatName,
}
_MQF_PARTS = ("Destination", "Administration", "Response")

# --- struct codec -> layer ----------------------------------------------------------------------


def to_layer(
    packet: fast_usermessage.UserMessage | fast_internal.InternalPacket | fast_internal.Ping,
) -> ScapyPacket:
    """The scapy twin of a struct-codec packet (or of any declared header record):
    ``bytes(to_layer(p)) == encode(p)``.

    >>> from mqcn_model.wire.internal import connection_parameters, encode_internal
    >>> p = connection_parameters(500, 20000, 64)
    >>> bytes(to_layer(p)) == encode_internal(p)
    True
    """
    if type(packet) in ext_layers.LAYERS:
        return ext_layers.to_layer(packet)
    values = fixed_values(packet)
    for item in layout(type(packet)).parts:
        value = getattr(packet, item.attribute)
        if value is not None:  # a part left out is the layer's default, as when dissected
            values[item.name] = _layer_value(value)
    return LAYERS[type(packet)](**values)


def _layer_value(value: Any) -> Any:
    """A part's value as its layer field holds it."""
    if isinstance(value, fast_queues.QueueFormat):
        return _queue_layer(value)
    if isinstance(value, fast_mqf.MultiQueueFormat):
        return _mqf_layer(value)
    if isinstance(value, fast_extensions.Extensions):
        parts = (value.extension, value.subqueue, value.dead_letter, value.extended_address)
        return [ext_layers.to_layer(p) for p in parts if p is not None]
    if type(value) in LAYERS or type(value) in ext_layers.LAYERS:
        return to_layer(value)
    return value


def _queue_layer(queue: fast_queues.QueueFormat) -> ScapyPacket | None:
    layout_ = queue.layout
    if layout_ == fast_queues.PRIVATE_ID:
        return L.PrivateQueueFormatNameId(PrivateQueueIdentifier=queue.private_id)
    if layout_ == fast_queues.PUBLIC:
        return L.PublicQueueFormatName(PublicQueueIdentifier=queue.guid)
    if layout_ == fast_queues.PRIVATE:
        return L.PrivateQueueFormatName(
            SourceQueueManager=queue.guid, PrivateQueueIdentifier=queue.private_id
        )
    if layout_ == fast_queues.DIRECT:
        return L.DirectQueueFormatName(DirectFormatName=queue.direct)
    return None


def _mqf_layer(mqf: fast_mqf.MultiQueueFormat) -> ScapyPacket:
    lists = (mqf.destination, mqf.admin, mqf.response)
    addresses = {
        name: to_layer(fast_mqf.MQFAddressHeader(None, header_id, reserved, elements=list(items)))
        for name, header_id, reserved, items in zip(
            _MQF_PARTS, fast_mqf.ADDRESS_IDS, mqf.reserved[:3], lists, strict=True
        )
    }
    signature = fast_mqf.MQFSignatureHeader(reserved=mqf.reserved[3], signature=mqf.signature)
    return L.MultiQueueFormatHeader(**addresses, Signature=to_layer(signature))


# --- layer -> struct codec ----------------------------------------------------------------------


def _whole(layer: ScapyPacket | None, what: str) -> ScapyPacket:
    if layer is None or not isinstance(layer, SalvagingLayer) or layer.broken:
        raise ValueError(f"the {what} did not dissect completely")
    return layer


class _Fixed:
    """A layer's fixed fields for its record: a length left at ``None`` worked out from what
    the layer holds; a size the record may state (AllocationBodySize, HeaderSize) ``None``
    unless it differs from what the layer holds (then it lies, and the record says so)."""

    def __init__(self, layer: ScapyPacket) -> None:
        self.layer = layer

    def getfieldval(self, name: str) -> Any:
        value = self.layer.getfieldval(name)
        field = self.layer.get_field(name)
        if isinstance(field, AutoLEIntField):
            return None if value is None or value == field.compute(self.layer) else value
        if value is None:
            return field.i2m(self.layer, None)
        return value


def _record(layer: ScapyPacket) -> Any:
    """The declared record a whole header layer stands for."""
    if type(layer) in ext_layers.LAYERS.values():
        return ext_layers.to_record(layer)
    record = _RECORDS[type(layer)]
    kinds = part_kinds(record)
    rest = {}
    for item in layout(record).parts:
        value = getattr(layer, item.name)  # a MultipleTypeField's default too
        flag = None if item.when is None else layer.getfieldval(item.when)
        rest[item.attribute] = _record_value(layer, item.name, value, flag, kinds[item.attribute])
    return from_fixed_values(record, _Fixed(layer), **rest)


def _record_value(layer: ScapyPacket, name: str, value: Any, flag: Any, kind: str) -> Any:
    """A layer field's value as its record part holds it; ``flag``: the bit group that
    puts the part on the wire (None: no group does)."""
    if "QueueFormat" in kind:
        return _fast_queue(value, flag, name)
    if flag is not None and not flag:
        return None  # the flags leave the part out (ConnectorType, ConnectorQMGuid...)
    if kind.startswith("str"):
        if value in (None, b"") and "None" in kind:
            return None
        if not isinstance(value, str):
            owner = layer.name.removeprefix("MSMQ ")
            raise ValueError(f"{owner}.{name} is not a UTF-16 string ending in 0x0000")
        return value
    if isinstance(value, list):
        return list(value)
    return value


def _fast_queue(layer: ScapyPacket | None, code: int, name: str) -> fast_queues.QueueFormat | None:
    layout_ = fast_queues.LAYOUT[code]
    if layout_ in (fast_queues.NONE, fast_queues.SAME_AS_ADMIN):
        return None
    layer = _whole(layer, name)
    if isinstance(layer, L.PrivateQueueFormatNameId):
        return fast_queues.QueueFormat(code, private_id=layer.PrivateQueueIdentifier)
    if isinstance(layer, L.PublicQueueFormatName):
        return fast_queues.QueueFormat(code, guid=layer.PublicQueueIdentifier)
    if isinstance(layer, L.PrivateQueueFormatName):
        return fast_queues.QueueFormat(
            code, private_id=layer.PrivateQueueIdentifier, guid=layer.SourceQueueManager
        )
    if not isinstance(layer.DirectFormatName, str):
        raise ValueError("the direct format name has no 0x0000 terminator")
    return fast_queues.QueueFormat(code, direct=layer.DirectFormatName)


def _check_size(layer: ScapyPacket, trailer: int) -> None:
    """A dissected packet whose fields ran short (a cut packet) has fewer bytes than its
    PacketSize says: refuse it."""
    size = L.base_header_of(layer).PacketSize
    if size is None:
        return  # built: computed when the layer is built
    own = layer.self_build()  # the dissected bytes while no field was changed since
    if len(own) - trailer != size:
        raise ValueError(f"PacketSize is {size} but the packet holds {len(own) - trailer}")


def _mqf_record(layer: ScapyPacket) -> fast_mqf.MultiQueueFormat:
    parts = [_whole(layer.getfieldval(n), n) for n in (*_MQF_PARTS, "Signature")]
    for address in parts[:3]:
        if address.Rest and any(address.Rest):
            raise ValueError("an MQFAddressHeader holds bytes after its elements")
    records = [_record(p) for p in parts]
    return fast_mqf.MultiQueueFormat(
        *(r.elements for r in records[:3]),
        records[3].signature,
        tuple(r.reserved for r in records),  # type: ignore[arg-type]
    )


def _user_message(layer: ScapyPacket) -> fast_usermessage.UserMessage:
    if layer.Extra:
        raise ValueError(f"{len(layer.Extra)} bytes inside PacketSize follow the last header")
    session = layer.SessionHeader
    _check_size(layer, len(bytes(session)) if session is not None else 0)
    out: dict[str, Any] = {}
    for item in layout(fast_usermessage.UserMessage).parts:
        value = layer.getfieldval(item.name)
        if value is None:
            out[item.attribute] = None
        elif item.name == "MultiQueueFormatHeader":
            out[item.attribute] = _mqf_record(_whole(value, item.name))
        elif item.name == "Extensions":
            records = {type(r): r for r in (_record(_whole(x, type(x).__name__)) for x in value)}
            out[item.attribute] = fast_extensions.Extensions(
                records[fast_extensions.ExtensionHeader],
                records.get(fast_extensions.SubqueueHeader),
                records.get(fast_extensions.DeadLetterHeader),
                records.get(fast_extensions.ExtendedAddressHeader),
            )
        else:
            out[item.attribute] = _record(_whole(value, item.name))
    message = fast_usermessage.UserMessage(**out)
    if session is None and message.base.session:
        raise ValueError("BaseHeader.Flags.SH is set but no SessionHeader follows the packet")
    return message


def _internal(layer: ScapyPacket) -> fast_internal.InternalPacket:
    if layer.Extra:
        raise ValueError(f"{len(layer.Extra)} bytes inside PacketSize follow the body")
    _check_size(layer, 0)
    parts = {
        item.attribute: _record(_whole(layer.getfieldval(item.name), item.name))
        for item in layout(fast_internal.InternalPacket).parts
    }
    return fast_internal.InternalPacket(**parts)


def from_layer(
    layer: ScapyPacket,
) -> fast_usermessage.UserMessage | fast_internal.InternalPacket | fast_internal.Ping:
    """The struct-codec object a (built or dissected) layer stands for.

    Raises ValueError when the layer holds what the struct codec's objects cannot carry (a
    broken dissection, bytes after the last header, an unterminated string...).

    >>> from mqcn_model.wire.internal import connection_parameters, encode_internal
    >>> p = connection_parameters(500, 20000, 64)
    >>> from_layer(L.InternalPacketLayer(encode_internal(p))) == p
    True
    """
    layer = _whole(layer, type(layer).__name__)
    if isinstance(layer, L.PingPacket):
        return _record(layer)
    if isinstance(layer, L.InternalPacketLayer):
        return _internal(layer)
    if isinstance(layer, L.UserMessagePacket):
        return _user_message(layer)
    raise ValueError(f"{type(layer).__name__} is not a packet layer")


def ack_body(layer: ScapyPacket) -> fast_acks.OrderAckBody | fast_acks.FinalAckBody:
    """The OrderAck / FinalAck body of a layer's MessageBody (by its class), unjudged."""
    body = bytes(layer.MessagePropertiesHeader.MessageBody)
    if layer.MessagePropertiesHeader.MessageClass == fast_acks.ORDER_ACK_CLASS:
        return fast_acks.decode_order_ack_body(body, 0)
    return fast_acks.decode_final_ack_body(body, 0)
