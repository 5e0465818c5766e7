"""``ReferenceTarget.directory_reads``: each Read Directory call keeps its own server.

The reference target pairs the directory's log of reads with the ``server`` of the
"read-directory" effects in the server's records, in order.  A batching profile's full
refresh (section 6, <3>/<14>) reads every local queue without naming a server; the
records of that refresh must carry those reads too, or every later read would be paired
with the wrong domain controller (a mutant that dropped the refresh's effects survived
every scenario).
"""

from __future__ import annotations

import uuid

from mqcn_model.builders import v2_notification
from mqcn_model.codec import body_buffer
from mqcn_model.constants import BATCH_FULL_REFRESH_THRESHOLD, AuthLevel, Event, SenderIdType
from mqcn_model.envelope import Envelope, MessageId
from mqcn_suite.targets.base import Setup
from mqcn_suite.targets.reference import ReferenceTarget

QUEUE = uuid.UUID("5b0f8c1e-9d2a-4e3b-8c7d-6e5f4a3b2c1d")


def _change_queue(server: str, serial: int) -> Envelope:
    return Envelope(
        body_buffer(v2_notification(Event.CHANGE_QUEUE, QUEUE, server)),
        MessageId(uuid.UUID(int=9), serial),
        sender_identifier_type=SenderIdType.QueueManagerIdentifier,
        authentication_level=AuthLevel.Sig20,
    )


def test_a_read_after_a_full_refresh_keeps_the_server_its_notification_names() -> None:
    setup = Setup(profile="windows-xp-2003", queues=[{"Identifier": str(QUEUE)}])
    setup.directory_queues.append(
        {"owner": str(setup.qm_guid), "queue": {"Identifier": str(QUEUE)}}
    )
    target = ReferenceTarget()
    target.reset(setup)
    assert target.start_server() is not None
    for serial in range(BATCH_FULL_REFRESH_THRESHOLD):
        target.deliver(_change_queue("dc1.example.com", serial + 1))
    target.advance_clock(60)  # the timer fires: 100 waiting -> a full refresh instead
    target.deliver(_change_queue("dc2.example.com", 1000))
    target.advance_clock(900)  # the rest of the 15 minutes: processed one by one
    reads = target.directory_reads()
    assert [read.get("server") for read in reads] == [None, "dc2.example.com"]
    assert [read.get("object_type") for read in reads] == ["Queue", "Queue"]
