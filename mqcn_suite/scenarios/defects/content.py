"""Well-formed Version 0x01 messages that break a content rule (3.3.5.2, [MS-MQMQ] 2.3).

The codec reads every byte of these; what is wrong is what the bytes say: a path name without
a computer, a label too long, a creation missing a property, an enumeration out of range, a
deletion of something that is not a queue, a queue update without its PROPID_Q_QMID.
"""

from __future__ import annotations

from typing import Any

from mqcn_model.builders import queue_creation
from mqcn_model.catalog import req
from mqcn_model.constants import MAX_LABEL_CHARS, MQDS, PropId
from mqcn_suite.scenarios.defects import twists
from mqcn_suite.scenarios.defects.catalogue import Build, Defect, Twisted
from mqcn_suite.scenarios.fixtures import ScenarioIds
from mqcn_suite.scenarios.messages import deletion_of_type, quota_change, v1_body

VALUE_RULE = req("MQCN-3.3.5.2-22")  # every value obeys [MS-MQMQ] for its PROPID


def creation(**overrides: Any) -> Build:
    """A creation of the new queue with ``overrides`` of :func:`builders.queue_creation`
    (``path`` replaces the path name)."""

    def build(ids: ScenarioIds) -> bytes:
        arguments = dict(overrides)
        path = str(arguments.pop("path", ids.new_path))
        return v1_body(queue_creation(ids.new_queue, path, master=ids.master, **arguments))

    return build


def deletion_of_object_type(object_type: int) -> Build:
    return lambda ids: v1_body(deletion_of_type(ids.queue, object_type, ids.master))


def quota_carrier(ids: ScenarioIds) -> bytes:
    """A conforming queue update of the owned queue: PROPID_Q_QMID, PROPID_Q_QUOTA."""
    return v1_body(quota_change(ids))


CREATE, UPDATE = twists.command_is(0), twists.command_is(1)


def _content(name: str, requirement: str, description: str, build: Build, **more: Any) -> Defect:
    return Defect(name, "content", req(requirement), description, build, **more)


MEMBERS: tuple[Defect, ...] = (
    _content(
        "a path name without a computer part",
        "MQCN-2.2.6-5",
        "a creation whose PathName is a bare queue name",
        Twisted(creation(), twists.path_changed(lambda path: path.rpartition("\\")[2], CREATE)),
        collateral=(VALUE_RULE,),
        sender_collateral=(req("MQCN-3.3.5.2-7"),),  # no longer the queue's path name
    ),
    _content(
        "a 125-character label",
        VALUE_RULE,
        "a creation whose PROPID_Q_LABEL has one character too many",
        Twisted(
            creation(),
            twists.property_set(PropId.PROPID_Q_LABEL, "L" * (MAX_LABEL_CHARS + 1), CREATE),
        ),
    ),
    _content(
        "a creation without PROPID_Q_LABEL",
        "MQCN-3.3.5.2-14",
        "a creation with 14 of its 15 properties",
        Twisted(creation(), twists.property_dropped(PropId.PROPID_Q_LABEL, CREATE)),
    ),
    _content(
        "PROPID_Q_JOURNAL 0x02",
        VALUE_RULE,
        "a creation whose PROPID_Q_JOURNAL is neither MQ_JOURNAL_NONE nor MQ_JOURNAL",
        Twisted(creation(), twists.property_set(PropId.PROPID_Q_JOURNAL, 2, CREATE)),
    ),
    _content(
        "a deletion of object type 2",
        "MQCN-3.3.5.2-23",
        "a deletion of the owned queue whose PROPID_D_OBJTYPE is MQDS_MACHINE",
        Twisted(
            deletion_of_object_type(int(MQDS.QUEUE)),
            twists.property_set(PropId.PROPID_D_OBJTYPE, int(MQDS.MACHINE), twists.command_is(2)),
        ),
    ),
    _content(
        "a queue update without PROPID_Q_QMID",
        "MQCN-3.3.5.2-17",
        "a Quota change of the owned queue whose PropertyId[0] is PROPID_Q_QUOTA",
        Twisted(quota_carrier, twists.property_dropped(PropId.PROPID_Q_QMID, UPDATE)),
    ),
    _content(
        "a multicast address outside class D",
        VALUE_RULE,
        "a creation with PROPID_Q_MULTICAST_ADDRESS 10.0.0.1:80",
        Twisted(
            creation(),
            twists.property_set(PropId.PROPID_Q_MULTICAST_ADDRESS, "10.0.0.1:80", CREATE),
        ),
        errata="E-13",  # a shallow check sees only a VT_LPWSTR
        # no queue's address in the directory is this one: its value breaks the rule anyway
        sender_collateral=(VALUE_RULE,),
    ),
)
