"""A Read Directory that fails (MS-MQDMPR 3.1.7.1.20: rDirectoryObject is undefined) gives
the server nothing to take: no queue appears or changes, the failure is an effect the report
can show, and the next message is processed as usual.  The directory is told which directory
service the notification named (its DomainController, 3.2.5.2)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest

from mqcn_model.adm import Queue, QueueManager
from mqcn_model.builders import v2_notification
from mqcn_model.codec import body_buffer
from mqcn_model.constants import Event
from mqcn_model.directory import DirectoryOperationResult, InMemoryDirectory
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.server import NotificationServer

LOCAL = uuid.UUID(int=7)
ORDERS = uuid.UUID(int=0x0D)
NEW = uuid.UUID(int=0x0E)


@dataclass
class FailingDirectory:
    """Answers every read with ``status``; records the servers it was asked to use."""

    status: DirectoryOperationResult | None
    servers: list[str | None] = field(default_factory=list)

    def read(
        self,
        object_type: str,
        identifier: uuid.UUID,
        attributes: tuple[str, ...],
        server: str | None = None,
    ) -> Any:
        self.servers.append(server)
        return self.status


def _started(directory: Any) -> tuple[NotificationServer, QueueManager]:
    qm = QueueManager(LOCAL, QueueManagerQuota=11)
    qm.QueueCollection[ORDERS] = Queue(ORDERS, Label="old", Quota=5)
    server = NotificationServer(qm, directory, computer="qm")
    server.initialize()
    return server, qm


def _deliver(server: NotificationServer, event: Event, guid: uuid.UUID, sequence: int = 1):
    message = v2_notification(event, guid, "DC-07.corp.example.net")
    return server.deliver(Envelope(body_buffer(message), MessageId(uuid.UUID(int=9), sequence)))


FAILURES = [s for s in DirectoryOperationResult if s is not DirectoryOperationResult.Success]


@pytest.mark.parametrize("status", [*FAILURES, None], ids=lambda s: s.value if s else "None")
@pytest.mark.parametrize("event", [Event.CREATE_QUEUE, Event.CHANGE_QUEUE, Event.CHANGE_MACHINE])
def test_a_failed_read_changes_nothing_and_says_why(
    status: DirectoryOperationResult | None, event: Event
) -> None:
    directory = FailingDirectory(status)
    server, qm = _started(directory)
    guid = {Event.CREATE_QUEUE: NEW, Event.CHANGE_QUEUE: ORDERS}.get(event, LOCAL)
    before = qm.to_json()
    record = _deliver(server, event, guid)
    assert qm.to_json() == before
    failed = [e for e in record.effects if e.kind == "directory-read-failed"]
    expected = (status or DirectoryOperationResult.ObjectNotFound).value
    assert [e.detail["status"] for e in failed] == [expected]
    assert failed[0].detail["identifier"] == str(guid)
    assert failed[0].detail["object_type"] == (
        "QueueManager" if event == Event.CHANGE_MACHINE else "Queue"
    )
    read = next(e for e in record.effects if e.kind == "read-directory")
    assert failed[0].requirement == read.requirement
    assert directory.servers == ["DC-07.corp.example.net"]


def test_the_next_message_after_a_failed_read_is_processed() -> None:
    directory = FailingDirectory(DirectoryOperationResult.DirectoryNotConnected)
    server, qm = _started(directory)
    _deliver(server, Event.CHANGE_QUEUE, ORDERS)
    # the directory answers again
    server.directory = InMemoryDirectory()
    server.directory.put_queue(Queue(ORDERS, Label="new"), owner=LOCAL)
    _deliver(server, Event.CHANGE_QUEUE, ORDERS, sequence=2)
    assert qm.QueueCollection[ORDERS].Label == "new"


def test_the_in_memory_directory_ignores_the_server_it_is_named() -> None:
    directory = InMemoryDirectory()
    directory.put_queue(Queue(ORDERS, Label="x"), owner=LOCAL)
    assert directory.read("Queue", ORDERS, ("Label",), "dc9") == {"Label": "x"}
