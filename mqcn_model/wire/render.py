"""Plain-JSON views of decoded wire packets (for ``mqcn decode --packet --json`` and reports).

GUIDs are lower-case 8-4-4-4-12 text, bytes are hex, Flags fields are given raw and taken
apart into their named bits, and queue fields carry their format name.

>>> from mqcn_model.wire.internal import connection_parameters
>>> view = packet_to_json(connection_parameters(500, 20000, 64))
>>> view["kind"], view["connection_parameters"]["window_size"]
('ConnectionParameters', 64)
"""

from __future__ import annotations

import uuid
from typing import Any

from mqcn_model.wire import base as B
from mqcn_model.wire import security as S
from mqcn_model.wire import transaction as T
from mqcn_model.wire import user as U
from mqcn_model.wire.acks import FinalAckBody, OrderAckBody
from mqcn_model.wire.debug import DebugHeader
from mqcn_model.wire.declared import to_json as declared_json
from mqcn_model.wire.extensions import (
    ADDRESS_TYPES,
    CompoundMessageHeader,
    Extensions,
    SrmpEnvelopeHeader,
    subqueue_name,
)
from mqcn_model.wire.internal import (
    ConnectionParameters,
    EstablishConnection,
    InternalPacket,
    Ping,
)
from mqcn_model.wire.mqf import MultiQueueFormat
from mqcn_model.wire.properties import (
    ACK_NAMES,
    ENCRYPTION_ALGORITHMS,
    HASH_ALGORITHMS,
    MESSAGE_CLASSES,
    PRIVACY_LEVELS,
    MessageProperties,
)
from mqcn_model.wire.queues import (
    CODE_NAMES,
    MQF_TYPE_NAMES,
    MQFElement,
    QueueFormat,
    format_name,
    mqf_element_name,
)
from mqcn_model.wire.security import SecurityHeader, sid_problem, sid_text
from mqcn_model.wire.session import SessionHeader
from mqcn_model.wire.soap import SoapHeader
from mqcn_model.wire.usermessage import UserMessage


def _text(value: str | None) -> str | None:
    # lone surrogates are not valid JSON text: escape them
    if value is None:
        return None
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _guid(value: uuid.UUID | None) -> str | None:
    return None if value is None else str(value)


def _bits(flags: int, names: dict[int, str]) -> list[str]:
    return [name for bit, name in names.items() if flags & bit]


def base_to_json(header: B.BaseHeader) -> dict[str, Any]:
    return {
        "version": header.version,
        "reserved": header.reserved,
        "flags": header.flags,
        "priority": header.priority,
        "flag_bits": _bits(header.flags, B.FLAG_NAMES),
        "signature": f"0x{header.signature:08x}",
        "packet_size": header.packet_size,
        "time_to_reach_queue": header.time_to_reach_queue,
    }


def queue_to_json(queue: QueueFormat | None, name: str) -> dict[str, Any] | None:
    if queue is None:
        return None
    return {
        "type": queue.code,
        "type_name": CODE_NAMES[queue.code],
        "private_id": queue.private_id,
        "guid": _guid(queue.guid),
        "direct": _text(queue.direct),
        "format_name": _text(name),
    }


def user_to_json(header: U.UserHeader) -> dict[str, Any]:
    def name(queue: QueueFormat | None) -> str:
        return format_name(
            queue, source=header.source_qm, destination=header.destination_qm, admin=header.admin
        )

    response = header.response
    response_name = name(header.admin) if header.rq == 1 else name(response)
    return {
        "source_queue_manager": str(header.source_qm),
        "queue_manager_address": str(header.destination_qm),
        "time_to_be_received": header.time_to_be_received,
        "sent_time": header.sent_time,
        "message_id": header.message_id,
        "flags": header.flags,
        "hop_count": header.hop_count,
        "delivery": header.delivery,
        "dq": header.dq,
        "aq": header.aq,
        "rq": header.rq,
        "flag_bits": _bits(header.flags, U.FLAG_NAMES),
        "destination_queue": queue_to_json(header.destination, name(header.destination)),
        "admin_queue": queue_to_json(header.admin, name(header.admin)),
        "response_queue": queue_to_json(response, response_name)
        if response is not None
        else ({"type": 1, "format_name": response_name} if header.rq == 1 else None),
        "connector_type": _guid(header.connector_type),
    }


def properties_to_json(header: MessageProperties) -> dict[str, Any]:
    return {
        "flags": header.flags,
        "acknowledgments": _bits(header.flags, ACK_NAMES),
        "label_length": header.label_length,
        "label": _text(header.label),
        "message_class": header.message_class,
        "message_class_name": MESSAGE_CLASSES.get(header.message_class, "custom"),
        "correlation_id": header.correlation_id.hex(),
        "body_type": header.body_type,
        "application_tag": header.application_tag,
        "message_size": len(header.body),
        "allocation_body_size": header.allocation_body_size,
        "privacy_level": header.privacy_level,
        "privacy_level_name": PRIVACY_LEVELS.get(header.privacy_level),
        "hash_algorithm": header.hash_algorithm,
        "hash_algorithm_name": HASH_ALGORITHMS.get(header.hash_algorithm),
        "encryption_algorithm": header.encryption_algorithm,
        "encryption_algorithm_name": ENCRYPTION_ALGORITHMS.get(header.encryption_algorithm),
        "extension": header.extension.hex(),
        "body": header.body.hex(),
        "body_slack": header.body_slack.hex(),
    }


def security_to_json(header: SecurityHeader) -> dict[str, Any]:
    sender: str | None = None
    if header.sender_id_type == S.ST_QM_GUID and len(header.sender_id) == 16:
        sender = str(uuid.UUID(bytes_le=header.sender_id))
    elif header.sender_id_type == S.ST_SID and not sid_problem(header.sender_id):
        sender = sid_text(header.sender_id)
    provider = header.provider
    return {
        "flags": header.flags,
        "sender_id_type": header.sender_id_type,
        "sender_id_type_name": S.ST_NAMES.get(header.sender_id_type),
        "flag_bits": _bits(header.flags, S.FLAG_NAMES),
        "authentication_signature": header.authentication_signature,
        "sender_id": header.sender_id.hex(),
        "sender": sender,
        "encryption_key": header.encryption_key.hex(),
        "signature": header.signature.hex(),
        "sender_cert": header.sender_cert.hex(),
        "provider_info": header.provider_info.hex(),
        "provider": None if provider is None else {"type": provider[0], "name": _text(provider[1])},
    }


def transaction_to_json(header: T.TransactionHeader) -> dict[str, Any]:
    return {
        "flags": header.flags,
        "flag_bits": _bits(header.flags, T.FLAG_NAMES),
        "transaction_id": header.transaction_id,
        "sequence_id": {"ordinal": header.sequence_ordinal, "timestamp": header.sequence_timestamp},
        "sequence_number": header.sequence_number,
        "previous_sequence_number": header.previous_number,
        "connector_qm": _guid(header.connector_qm),
    }


def session_to_json(header: SessionHeader) -> dict[str, Any]:
    return {
        "ack_sequence_number": header.ack_sequence,
        "recoverable_msg_ack_seq_number": header.recoverable_ack_sequence,
        "recoverable_msg_ack_flags": header.recoverable_ack_flags,
        "user_msg_sequence_number": header.user_sequence,
        "recoverable_msg_seq_number": header.recoverable_sequence,
        "window_size": header.window_size,
        "reserved": header.reserved,
    }


def _element(element: MQFElement) -> dict[str, Any]:
    return {
        "format_type": element.format_type,
        "format_type_name": MQF_TYPE_NAMES.get(element.format_type),
        "format_name": _text(mqf_element_name(element)),
    }


def mqf_to_json(header: MultiQueueFormat) -> dict[str, Any]:
    return {
        "destination": [_element(e) for e in header.destination],
        "administration": [_element(e) for e in header.admin],
        "response": [_element(e) for e in header.response],
        "signature": header.signature.hex(),
    }


def srmp_envelope_to_json(header: SrmpEnvelopeHeader) -> dict[str, Any]:
    out = declared_json(header)
    out["envelope"] = _text(header.envelope)
    return out


def _http_text(raw: bytes) -> str:
    """The HTTP part as text: UTF-8 (its headers are ASCII), a byte that is not UTF-8 shown as
    U+FFFD; never a refusal."""
    return raw.decode("utf-8", "replace")


def compound_to_json(header: CompoundMessageHeader) -> dict[str, Any]:
    out = declared_json(header)
    del out["data"]
    out["http"] = _http_text(header.http)
    out["message_body"] = header.message_body.hex()
    # the bytes of Data after the message body, if any: shown, never dropped
    out["after_body"] = header.data[header.msg_body_offset + header.msg_body_size :].hex()
    out["data_size"] = len(header.data)
    return out


def extensions_to_json(chain: Extensions) -> dict[str, Any]:
    subqueue = chain.subqueue
    address = chain.extended_address
    return {
        "extension_header": declared_json(chain.extension),
        "subqueue_header": None
        if subqueue is None
        else {
            **declared_json(subqueue),
            "tm": subqueue.word & 1,
            "acknowledgement_class": subqueue.acknowledgement_class,
            "subqueue_name": _text(subqueue_name(subqueue.subqueue_name)),
            "target_subqueue_name": _text(subqueue_name(subqueue.target_subqueue_name)),
        },
        "dead_letter_header": None
        if chain.dead_letter is None
        else {**declared_json(chain.dead_letter), "path": _text(chain.dead_letter.path)},
        "extended_address_header": None
        if address is None
        else {
            **declared_json(address),
            "address_type_name": ADDRESS_TYPES.get(address.address_type),
        },
    }


def _ack(body: OrderAckBody | FinalAckBody | None) -> dict[str, Any] | None:
    if body is None:
        return None
    out: dict[str, Any] = {
        "sequence_id": {"ordinal": body.sequence_ordinal, "timestamp": body.sequence_timestamp},
        "sequence_number": body.sequence_number,
        "previous_sequence_number": body.previous_number,
    }
    if isinstance(body, FinalAckBody):
        out["source_guid"] = str(body.source_guid)
        out["message_id"] = body.message_id
    else:
        out["reserved"] = body.reserved.hex()
    return out


def debug_to_json(header: DebugHeader) -> dict[str, Any]:
    return {
        "flags": header.flags,
        "queue_type": header.queue_type,
        "reserved": header.reserved,
        "queue_identifier": _guid(header.queue),
    }


def soap_to_json(header: SoapHeader) -> dict[str, Any]:
    return {"header": _text(header.header), "body": _text(header.body)}


# each header record of a UserMessage Packet and its JSON view (a salvaged packet's headers)
_HEADER_VIEWS: dict[type, Any] = {
    B.BaseHeader: base_to_json,
    U.UserHeader: user_to_json,
    T.TransactionHeader: transaction_to_json,
    SecurityHeader: security_to_json,
    MessageProperties: properties_to_json,
    DebugHeader: debug_to_json,
    SrmpEnvelopeHeader: srmp_envelope_to_json,
    CompoundMessageHeader: compound_to_json,
    SoapHeader: soap_to_json,
    MultiQueueFormat: mqf_to_json,
    Extensions: extensions_to_json,
    SessionHeader: session_to_json,
}


def header_to_json(header: object) -> dict[str, Any]:
    """The JSON view of one decoded header of a UserMessage Packet."""
    return _HEADER_VIEWS[type(header)](header)


def packet_to_json(packet: UserMessage | InternalPacket | Ping) -> dict[str, Any]:
    """Every header of ``packet`` as a JSON-ready dict (absent optional headers: null)."""
    if isinstance(packet, Ping):
        return {
            "kind": "Ping",
            "flags": packet.flags,
            "signature": f"0x{packet.signature:04x}",
            "cookie": packet.cookie,
            "qm_guid": str(packet.qm_guid),
        }
    if isinstance(packet, InternalPacket):
        out: dict[str, Any] = {
            "kind": packet.kind,
            "base_header": base_to_json(packet.base),
            "internal_header": {
                "reserved": packet.internal.reserved,
                "flags": packet.internal.flags,
                "packet_type": packet.internal.packet_type,
                "connection_refused": packet.internal.refused,
            },
        }
        body = packet.body
        if isinstance(body, SessionHeader):
            out["session_header"] = session_to_json(body)
        elif isinstance(body, ConnectionParameters):
            out["connection_parameters"] = {
                "recoverable_ack_timeout": body.recoverable_ack_timeout,
                "ack_timeout": body.ack_timeout,
                "reserved": body.reserved,
                "window_size": body.window_size,
            }
        elif isinstance(body, EstablishConnection):
            out["establish_connection"] = {
                "client_guid": str(body.client_guid),
                "server_guid": str(body.server_guid),
                "timestamp": body.timestamp,
                "operating_system": body.operating_system,
                "reserved": body.reserved,
                "padding": body.padding.hex(),
            }
        return out
    return {
        "kind": packet.kind,
        "base_header": base_to_json(packet.base),
        "user_header": user_to_json(packet.user),
        "transaction_header": transaction_to_json(packet.transaction)
        if packet.transaction
        else None,
        "security_header": security_to_json(packet.security) if packet.security else None,
        "message_properties_header": properties_to_json(packet.properties),
        "debug_header": debug_to_json(packet.debug) if packet.debug else None,
        "srmp_envelope_header": srmp_envelope_to_json(packet.srmp_envelope)
        if packet.srmp_envelope
        else None,
        "compound_message_header": compound_to_json(packet.compound) if packet.compound else None,
        "soap_header": soap_to_json(packet.soap) if packet.soap else None,
        "multi_queue_format_header": mqf_to_json(packet.mqf) if packet.mqf else None,
        "extensions": extensions_to_json(packet.extensions) if packet.extensions else None,
        "session_header": session_to_json(packet.session) if packet.session else None,
        "ack_body": _ack(packet.ack),
        "letter": [reading.to_json() for reading in packet.letter],
    }
