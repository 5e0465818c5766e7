"""Steps shared by the message-format and client features (2.2.x, 3.3.x, section 6 client notes).

Imported with ``from steps._format_steps import *`` by each of those step modules, so that
pytest-bdd finds the step fixtures in the module that runs the scenarios.  Builders and readers
live in :mod:`mqcn_model.scenario_messages`; talking to the target goes through the World.
"""

from __future__ import annotations

import re

from pytest_bdd import given, parsers, then, when

from mqcn_model import scenario_messages as sm
from mqcn_model.codec.message import ChangeNotificationMessage, body_buffer, v1_message
from mqcn_model.codec.update import NotificationUpdate
from mqcn_model.constants import PROPERTIES, PropId, Version
from mqcn_model.profiles import PROFILES
from mqcn_suite.world import (
    COMPUTER,
    DC_NAME,
    DS_GUID,
    NEW_QUEUE_GUID,
    OTHER_QM_GUID,
    QM_GUID,
    QUEUE_GUID,
    World,
    existing_queue,
    v2_body,
)

IDS = sm.ScenarioIds(QUEUE_GUID, NEW_QUEUE_GUID, QM_GUID, DS_GUID, COMPUTER.split(".")[0])
CLIENT_VERSION = {
    "directory-service": Version.DIRECTORY_SERVICE,
    "queue-manager": Version.QUEUE_MANAGER,
}
OBJECTS = {
    "the queue orders": QUEUE_GUID,
    "the queue manager": QM_GUID,
    "another queue manager": OTHER_QM_GUID,
}
_ID = re.compile(r"MQCN-[0-9.]+-[0-9]+")


def requirement_ids(text: str) -> list[str]:
    """The requirement IDs written in a step's text."""
    return _ID.findall(text)


def emitted_messages(world: World) -> list[ChangeNotificationMessage | None]:
    """The emitted bodies as the suite's codec reads them (None: unreadable)."""
    return [sm.decoded(envelope.body) for envelope in world.emitted]


def all_updates(world: World) -> list[NotificationUpdate] | None:
    """Every update of the emitted messages; None unless each is a readable Version 0x01 one."""
    messages = emitted_messages(world)
    if not messages or any(m is None or m.version != Version.DIRECTORY_SERVICE for m in messages):
        return None
    return [update for message in messages if message for update in message.updates]


# --- given ----------------------------------------------------------------------------------


@given(parsers.parse("a {kind} client"))
def _client(world: World, kind: str) -> None:
    world.setup.client_version = int(CLIENT_VERSION[kind])


@given(parsers.parse('a queue-manager client named "{server}"'))
def _qm_client(world: World, server: str) -> None:
    world.setup.client_version, world.setup.client_server_name = int(Version.QUEUE_MANAGER), server


@given("a client that sends the Version its product profile chooses")
def _profile_client(world: World) -> None:
    world.setup.client_version = None


@given("the directory publishes the queue manager")
def _directory_has_qm(world: World) -> None:
    world.publish_queue_manager(**sm.queue_manager_attributes())


@given("the directory publishes the queue orders with distinctive values")
def _directory_has_distinct_orders(world: World) -> None:
    world.publish_queue(existing_queue(**sm.distinctive_queue_attributes()))


@given(parsers.parse("a Version 0x01 message with {defect}"))
def _v1_defect(world: World, defect: str) -> None:
    world.message = sm.v1_defect_message(defect, IDS)


@given(parsers.parse("a Version 0x02 message about the queue orders with {defect}"))
def _v2_defect(world: World, defect: str) -> None:
    world.message = sm.v2_defect_message(defect, QUEUE_GUID, DC_NAME)


@given("a conforming Version 0x01 message changing the Quota of the queue orders")
def _v1_quota(world: World) -> None:
    world.message = body_buffer(v1_message([sm.quota_change(IDS)]))


@given("a conforming Version 0x02 message about a change of the queue orders")
def _v2_change(world: World) -> None:
    world.message = v2_body(2)


# --- when -----------------------------------------------------------------------------------


@when(parsers.parse("the client is initialised towards {destination}"))
def _initialise(world: World, destination: str) -> None:
    world.start_client(OBJECTS[destination])


@when(parsers.parse('the client sends a "{operation}" notification'))
def _send(world: World, operation: str) -> None:
    world.send_change_notification(operation, changed=dict(sm.EVERY_CHANGE)[operation])


@when(parsers.parse('the client sends a "{operation}" notification changing "{attributes}"'))
def _send_changing(world: World, operation: str, attributes: str) -> None:
    world.send_change_notification(operation, changed=[a.strip() for a in attributes.split(",")])


@when("the client notifies every kind of change")
def _send_every(world: World) -> None:
    for operation, changed in sm.EVERY_CHANGE:
        world.send_change_notification(operation, changed=changed)


# --- then -----------------------------------------------------------------------------------


@then(parsers.parse("every message the client emitted satisfies {requirements}"))
def _emitted_satisfy(world: World, requirements: str) -> None:
    for requirement in requirement_ids(requirements):
        found = world.emitted_violations(requirement)
        world.expect(
            requirement, bool(world.emitted) and not found, "; ".join(found) or "nothing emitted"
        )


@then(parsers.re(r"the client emitted exactly (?P<count>\d+) messages? \((?P<requirement>[^)]+)\)"))
def _emitted_count(world: World, count: str, requirement: str) -> None:
    world.expect(
        requirement, len(world.emitted) == int(count), f"{len(world.emitted)} messages emitted"
    )


@then(parsers.parse("every emitted message has Version {version} ({requirement})"))
def _emitted_version(world: World, version: str, requirement: str) -> None:
    versions = [envelope.body[:1].hex() for envelope in world.emitted]
    world.expect(
        requirement,
        bool(versions) and set(versions) == {version[2:].lower()},
        f"Versions {versions}",
    )


@then(parsers.parse("every emitted Message was sent as 3.3.5.3 says ({requirement})"))
def _sent_as_3353(world: World, requirement: str) -> None:
    version = PROFILES[world.setup.profile].msmq_version
    found = [
        problem
        for envelope in world.emitted
        for problem in sm.sending_problems(envelope, destination=QM_GUID, msmq_version=version)
    ]
    world.expect(
        requirement, bool(world.emitted) and not found, "; ".join(found) or "nothing emitted"
    )


@then(parsers.parse("the target applies it with the Quota of the queue orders set ({requirement})"))
def _quota_applied(world: World, requirement: str) -> None:
    quota = (world.queue_state() or {}).get("Quota")
    world.expect(requirement, quota == sm.SENTINEL_QUOTA, f"Quota is {quota!r}")


@then(parsers.parse("the queue orders takes the directory's attributes ({requirement})"))
def _took_directory(world: World, requirement: str) -> None:
    queue = world.queue_state() or {}
    world.expect(
        requirement,
        (queue.get("Label"), queue.get("Quota")) == ("from the directory", 4242),
        f"{queue}",
    )


def propid_named(name: str) -> PropId:
    """A PROPID named in a feature file (checked against the 2.2.2.1 table)."""
    propid = PropId[name]
    assert propid in PROPERTIES
    return propid


@then(parsers.parse("the emitted message travels as the Body of an MSMQ Message ({requirement})"))
def _in_message(world: World, requirement: str) -> None:
    found = [m.version if m else None for m in emitted_messages(world)]
    world.expect(
        requirement,
        bool(found) and None not in found,
        f"the emitted Bodies read as versions {found}",
    )
