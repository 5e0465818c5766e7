"""The directory service as the server sees it: Read Directory ([MS-MQDMPR] 3.1.7.1.20).

:class:`InMemoryDirectory` holds queue and queue-manager objects and records every read, so
a test can check what the server asked for (3.2.5.2).

>>> d = InMemoryDirectory()
>>> d.put_queue(Queue.with_defaults(uuid.UUID(int=3)), owner=uuid.UUID(int=9))
>>> d.read("Queue", uuid.UUID(int=3), ("Label",))
{'Label': ''}
>>> d.reads[0].object_type
'Queue'
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

from mqcn_model.adm import READ_NAME_TO_ATTRIBUTE, Queue, QueueManager


class DirectoryOperationResult(enum.Enum):
    """How a directory operation ended ([MS-MQDMPR] 3.1.1.17).

    A :class:`Directory` answers a failed read with one of these instead of the attributes;
    the server then has no object to take its values from.
    """

    Success = "Success"
    GenericError = "GenericError"
    DirectoryNotConnected = "DirectoryNotConnected"
    ObjectNotFound = "ObjectNotFound"
    AttributeNotFound = "AttributeNotFound"
    EndOfData = "EndOfData"
    ObjectAlreadyExists = "ObjectAlreadyExists"


@dataclass(frozen=True, slots=True)
class DirectoryRead:
    """One Read Directory event: object type, the Identifier filter and the attribute list."""

    object_type: str
    identifier: uuid.UUID
    attributes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "object_type": self.object_type,
            "identifier": str(self.identifier),
            "attributes": list(self.attributes),
        }


class Directory(Protocol):
    def read(
        self,
        object_type: str,
        identifier: uuid.UUID,
        attributes: tuple[str, ...],
        server: str | None = None,
    ) -> dict[str, Any] | DirectoryOperationResult | None:
        """The requested attributes of the object whose Identifier matches, read from the
        directory service ``server`` (a notification's DomainController; None: the default
        one); on failure the :class:`DirectoryOperationResult` that says why (None is
        ObjectNotFound)."""


@dataclass
class InMemoryDirectory:
    """A directory service held in memory; ``reads`` records every Read Directory event."""

    queues: dict[uuid.UUID, Queue] = field(default_factory=dict)
    owners: dict[uuid.UUID, uuid.UUID] = field(default_factory=dict)
    queue_managers: dict[uuid.UUID, QueueManager] = field(default_factory=dict)
    reads: list[DirectoryRead] = field(default_factory=list)

    def put_queue(self, queue: Queue, *, owner: uuid.UUID) -> None:
        self.queues[queue.Identifier] = queue
        self.owners[queue.Identifier] = owner

    def put_queue_manager(self, qm: QueueManager) -> None:
        self.queue_managers[qm.Identifier] = qm

    def remove_queue(self, identifier: uuid.UUID) -> None:
        self.queues.pop(identifier, None)
        self.owners.pop(identifier, None)

    def read(
        self,
        object_type: str,
        identifier: uuid.UUID,
        attributes: tuple[str, ...],
        server: str | None = None,
    ) -> dict[str, Any] | None:
        """One dictionary plays every directory service: ``server`` is not used."""
        self.reads.append(DirectoryRead(object_type, identifier, tuple(attributes)))
        source: Any
        if object_type == "Queue":
            source = self.queues.get(identifier)
        elif object_type == "QueueManager":
            source = self.queue_managers.get(identifier)
        else:
            source = None
        if source is None:
            return None
        out = {}
        for name in attributes:
            attribute = READ_NAME_TO_ATTRIBUTE.get(name, name)
            if hasattr(source, attribute):
                out[name] = getattr(source, attribute)
        return out
