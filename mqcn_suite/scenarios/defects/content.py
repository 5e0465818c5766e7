"""Well-formed Version 0x01 messages that break a content rule (3.3.5.2, [MS-MQMQ] 2.3).

The codec reads every byte of these; what is wrong is what the bytes say: a path name without
a computer, a label too long, a creation missing a property, an enumeration out of range, a
deletion of something that is not a queue, a queue update without its PROPID_Q_QMID.
"""

from __future__ import annotations

from typing import Any

from mqcn_model.builders import queue_creation
from mqcn_model.catalog import req
from mqcn_model.codec.update import NotificationUpdate
from mqcn_model.constants import MAX_LABEL_CHARS, MQDS, PropId
from mqcn_suite.scenarios.defects.catalogue import Build, Defect
from mqcn_suite.scenarios.fixtures import SENTINEL_QUOTA, ScenarioIds
from mqcn_suite.scenarios.messages import deletion_of_type, v1_body

VALUE_RULE = req("MQCN-3.3.5.2-22")  # every value obeys [MS-MQMQ] for its PROPID


def creation(**overrides: Any) -> Build:
    """A creation of the new queue with ``overrides`` of :func:`builders.queue_creation`
    (``path`` replaces the path name)."""

    def build(ids: ScenarioIds) -> bytes:
        arguments = dict(overrides)
        path = str(arguments.pop("path", ids.new_path))
        return v1_body(queue_creation(ids.new_queue, path, master=ids.master, **arguments))

    return build


def creation_without(propid: PropId) -> Build:
    """A creation of the new queue that lacks ``propid`` (one of the 15 of 3.3.5.2)."""

    def build(ids: ScenarioIds) -> bytes:
        full = queue_creation(ids.new_queue, ids.new_path, master=ids.master)
        pairs = [(p.propid, p.value) for p in full.properties if p.propid != propid]
        return v1_body(NotificationUpdate.creation(ids.new_path, pairs, master=ids.master))

    return build


def update_without_qmid(ids: ScenarioIds) -> bytes:
    pairs = [(PropId.PROPID_Q_QUOTA, SENTINEL_QUOTA)]
    return v1_body(NotificationUpdate.change(ids.queue, pairs, master=ids.master))


def deletion_of_object_type(object_type: int) -> Build:
    return lambda ids: v1_body(deletion_of_type(ids.queue, object_type, ids.master))


def _content(name: str, requirement: str, description: str, build: Build, **more: Any) -> Defect:
    return Defect(name, "content", req(requirement), description, build, **more)


MEMBERS: tuple[Defect, ...] = (
    _content(
        "a path name without a computer part",
        "MQCN-2.2.6-5",
        "a creation whose PathName is a bare queue name",
        creation(path="newq"),
        collateral=(VALUE_RULE,),
    ),
    _content(
        "a 125-character label",
        VALUE_RULE,
        "a creation whose PROPID_Q_LABEL has one character too many",
        creation(label="L" * (MAX_LABEL_CHARS + 1)),
    ),
    _content(
        "a creation without PROPID_Q_LABEL",
        "MQCN-3.3.5.2-14",
        "a creation with 14 of its 15 properties",
        creation_without(PropId.PROPID_Q_LABEL),
    ),
    _content(
        "PROPID_Q_JOURNAL 0x02",
        VALUE_RULE,
        "a creation whose PROPID_Q_JOURNAL is neither MQ_JOURNAL_NONE nor MQ_JOURNAL",
        creation(journal=2),
    ),
    _content(
        "a deletion of object type 2",
        "MQCN-3.3.5.2-23",
        "a deletion of the owned queue whose PROPID_D_OBJTYPE is MQDS_MACHINE",
        deletion_of_object_type(int(MQDS.MACHINE)),
    ),
    _content(
        "a queue update without PROPID_Q_QMID",
        "MQCN-3.3.5.2-17",
        "a Quota change of the owned queue whose PropertyId[0] is PROPID_Q_QUOTA",
        update_without_qmid,
    ),
    _content(
        "a multicast address outside class D",
        VALUE_RULE,
        "a creation with PROPID_Q_MULTICAST_ADDRESS 10.0.0.1:80",
        creation(extra=[(PropId.PROPID_Q_MULTICAST_ADDRESS, "10.0.0.1:80")]),
        errata="E-13",  # a shallow check sees only a VT_LPWSTR
    ),
)
