"""The abstract data model elements MS-MQCN touches (3.1.1): Queue and QueueManager.

Attribute names are those of 3.1.1.2.1 / 3.1.1.3 (errata E-17 maps the other spellings).
Values are Python natives: ``uuid.UUID`` for GUIDs, ``int``, ``str``, ``bytes``.

>>> q = Queue.with_defaults(uuid.UUID(int=1))
>>> q.PrivacyLevel, q.Quota
(1, 4294967295)
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from mqcn_model.constants import (
    MQ_AUTHENTICATE_NONE,
    MQ_JOURNAL_NONE,
    MQ_PRIV_LEVEL_OPTIONAL,
    MQ_TRANSACTIONAL_NONE,
    MQDS_ENTERPRISESCOPE,
    MSMQ_MACHINE,
)
from mqcn_model.json_views import value_to_json

# Read Directory names of 3.2.5.2 that differ from the 3.1.1.3 attribute names (errata E-17).
READ_NAME_TO_ATTRIBUTE = {"Journal": "Journaling", "Pathname": "Pathname"}
NO_LIMIT = 0xFFFFFFFF
_NIL_GUID = uuid.UUID(int=0)
_GUID_ATTRIBUTES = frozenset({"Identifier", "Type"})
_BYTES_ATTRIBUTES = frozenset({"Security"})
_TEXT_ATTRIBUTES = frozenset(
    {"Pathname", "Label", "MulticastAddress", "DirectoryPath", "QueueManagerVersion"}
)


def attribute_from_json(name: str, value: Any) -> Any:
    """Inverse of :func:`~mqcn_model.json_views.value_to_json` for one ADM attribute.

    Raises ValueError naming the attribute when the JSON value has the wrong form.
    """
    try:
        if name in _GUID_ATTRIBUTES:
            return uuid.UUID(value)
        if name in _BYTES_ATTRIBUTES:
            return bytes.fromhex(value)
        if name == "ConnectedNetworkIdentifierList":
            return tuple(uuid.UUID(v) for v in value)
        if name in _TEXT_ATTRIBUTES:
            if not isinstance(value, str):
                raise TypeError("expected a string")
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("expected an integer")
        return value
    except (TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"attribute {name}: {value!r} is not valid ({exc})") from None


@dataclass
class Queue:
    """Queue ADM element ([MS-MQDMPR] 3.1.1.2) with the attributes of MS-MQCN 3.1.1.3.

    Defaults are what Set Queue Defaults gives in this suite (the [MS-MQMQ] defaults).
    """

    Identifier: uuid.UUID
    Type: uuid.UUID = _NIL_GUID  # a UUID is immutable: every new Queue may share this one
    BasePriority: int = 0
    Journaling: int = MQ_JOURNAL_NONE
    Quota: int = NO_LIMIT
    JournalQuota: int = NO_LIMIT
    CreateTime: int = 0
    ModifyTime: int = 0
    Security: bytes = b""
    Pathname: str = ""
    Label: str = ""
    Authentication: int = MQ_AUTHENTICATE_NONE
    PrivacyLevel: int = MQ_PRIV_LEVEL_OPTIONAL
    Transactional: int = MQ_TRANSACTIONAL_NONE
    MulticastAddress: str = ""
    DirectoryPath: str = ""
    Scope: int = MQDS_ENTERPRISESCOPE

    @classmethod
    def with_defaults(cls, identifier: uuid.UUID) -> Queue:
        """Set Queue Defaults ([MS-MQDMPR] 3.1.7.1.33) on a new Queue."""
        return cls(Identifier=identifier)

    def copy(self, **changes: Any) -> Queue:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {k: value_to_json(v) for k, v in asdict(self).items()}

    @classmethod
    def attribute_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Queue:
        """Build a Queue from its JSON form; unknown attribute names are an error."""
        unknown = set(data) - set(cls.attribute_names())
        if unknown:
            raise ValueError(f"unknown Queue attributes: {sorted(unknown)}")
        if "Identifier" not in data:
            raise ValueError("a Queue needs its Identifier")
        return cls(**{k: attribute_from_json(k, v) for k, v in data.items()})


@dataclass
class QueueManager:
    """QueueManager ADM element ([MS-MQDMPR] 3.1.1.1), attributes of MS-MQCN 3.1.1.2.1."""

    Identifier: uuid.UUID
    ForeignSystem: int = MSMQ_MACHINE
    QueueManagerQuota: int = NO_LIMIT
    JournalQuota: int = NO_LIMIT
    Security: bytes = b""
    ConnectedNetworkIdentifierList: tuple[uuid.UUID, ...] = ()
    QueueManagerVersion: str = ""
    OperatingSystemType: int = 0
    QueueCollection: dict[uuid.UUID, Queue] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QueueManager:
        """Build a QueueManager (without queues) from its attributes' JSON form."""
        names = {f.name for f in fields(cls)} - {"QueueCollection"}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown QueueManager attributes: {sorted(unknown)}")
        if "Identifier" not in data:
            raise ValueError("a QueueManager needs its Identifier")
        return cls(**{k: attribute_from_json(k, v) for k, v in data.items()})

    def attributes_json(self) -> dict[str, Any]:
        return {
            k: value_to_json(getattr(self, k))
            for k in (f.name for f in fields(self))
            if k != "QueueCollection"
        }

    def to_json(self) -> dict[str, Any]:
        """Snapshot: the QM's attributes and its queues, keyed by GUID text, sorted."""
        return {
            "queue_manager": self.attributes_json(),
            "queues": {
                str(k): q.to_json()
                for k, q in sorted(self.QueueCollection.items(), key=lambda kv: str(kv[0]))
            },
        }
