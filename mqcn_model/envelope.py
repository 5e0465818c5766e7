"""The MSMQ Message that carries a notification: the [MS-MQDMPR] 3.1.1.12 attributes MS-MQCN uses.

>>> mid = MessageId(uuid.UUID(int=1), 7)
>>> MessageId.from_bytes(mid.to_bytes()) == mid, len(mid.to_bytes())
(True, 20)
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from mqcn_model.constants import (
    MSGID_SIZE,
    TIME_TO_REACH_QUEUE_SECONDS,
    AuthLevel,
    DeliveryGuarantee,
    HashAlgorithm,
    MessageClass,
    SenderIdType,
    WireValue,
)
from mqcn_model.frozen import quick_init

_SEQUENCE = struct.Struct("<I")


@quick_init
@dataclass(frozen=True, slots=True)
class MessageId:
    """PROPID_M_MSGID: the sending computer's GUID (16 bytes) + a 4-byte LE sequence number."""

    sender: uuid.UUID
    sequence: int

    def to_bytes(self) -> bytes:
        return self.sender.bytes_le + _SEQUENCE.pack(self.sequence)

    @classmethod
    def from_bytes(cls, raw: bytes) -> MessageId:
        if len(raw) != MSGID_SIZE:
            raise ValueError(f"a message identifier is exactly 20 bytes, not {len(raw)}")
        return cls(uuid.UUID(bytes_le=bytes(raw[:16])), _SEQUENCE.unpack_from(raw, 16)[0])

    def __str__(self) -> str:
        return f"{{{self.sender}}}\\{self.sequence}"


@quick_init
@dataclass(frozen=True, slots=True)
class Envelope:
    """One MSMQ Message as far as MS-MQCN cares: body bytes plus the attributes it reads or sets."""

    body: bytes
    message_id: MessageId = field(default_factory=lambda: MessageId(uuid.UUID(int=0), 1))
    sender_identifier: uuid.UUID | None = None
    sender_identifier_type: SenderIdType = SenderIdType.QueueManagerIdentifier
    authentication_level: AuthLevel = AuthLevel.Sig20
    time_to_reach_queue: int = TIME_TO_REACH_QUEUE_SECONDS
    delivery_guarantee: DeliveryGuarantee = DeliveryGuarantee.Express
    message_class: MessageClass = MessageClass.Normal
    hash_algorithm: HashAlgorithm | None = HashAlgorithm.SHA512
    destination_format_name: str = ""
    arrival_time: float = 0.0

    def with_(self, **changes: Any) -> Envelope:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """JSON form used by adapters and reports: enums by name, bytes as hex."""
        return {
            "body": self.body.hex(),
            "message_id": self.message_id.to_bytes().hex(),
            "sender_identifier": str(self.sender_identifier) if self.sender_identifier else None,
            "sender_identifier_type": self.sender_identifier_type.name.rstrip("_"),
            "authentication_level": self.authentication_level.name.rstrip("_"),
            "time_to_reach_queue": self.time_to_reach_queue,
            "delivery_guarantee": self.delivery_guarantee.name,
            "message_class": self.message_class.name,
            "hash_algorithm": self.hash_algorithm.name if self.hash_algorithm else None,
            "destination_format_name": self.destination_format_name,
            "arrival_time": self.arrival_time,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Envelope:
        """Inverse of :meth:`to_json`; raises ValueError/KeyError naming a bad field."""

        def enum(kind: Any, key: str) -> Any:
            name = data[key]
            if issubclass(kind, WireValue):  # a listed name, or a value the wire carried (0x…)
                try:
                    return kind.from_name(name)
                except ValueError as exc:
                    raise ValueError(f"{key}: {exc}") from None
            # not `or`: IntEnum members of value 0 (Express, None_) are falsy
            member = kind.__members__.get(name)
            if member is None:
                member = kind.__members__.get(f"{name}_")
            if member is None:
                raise ValueError(
                    f"{key}: {name!r} is not one of {[m.rstrip('_') for m in kind.__members__]}"
                )
            return member

        sender = data.get("sender_identifier")
        hash_name = data.get("hash_algorithm")
        return cls(
            body=bytes.fromhex(data["body"]),
            message_id=MessageId.from_bytes(bytes.fromhex(data["message_id"])),
            sender_identifier=uuid.UUID(sender) if sender else None,
            sender_identifier_type=enum(SenderIdType, "sender_identifier_type"),
            authentication_level=enum(AuthLevel, "authentication_level"),
            time_to_reach_queue=int(data["time_to_reach_queue"]),
            delivery_guarantee=enum(DeliveryGuarantee, "delivery_guarantee"),
            message_class=enum(MessageClass, "message_class"),
            hash_algorithm=enum(HashAlgorithm, "hash_algorithm") if hash_name else None,
            destination_format_name=str(data.get("destination_format_name", "")),
            arrival_time=float(data.get("arrival_time", 0.0)),
        )
