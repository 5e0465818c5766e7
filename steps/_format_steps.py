"""Steps shared by the message-format and client features (2.2.x, 3.3.x, section 6 client notes).

Imported with ``from steps._format_steps import *`` by each of those step modules, so that
pytest-bdd finds the step fixtures in the module that runs the scenarios.  Builders and readers
live in :mod:`mqcn_suite.scenarios` (defects are looked up by name in its catalogue,
:mod:`mqcn_suite.scenarios.defects`); talking to the target goes through the World.

Client-side Then steps only ask whether a requirement was violated by what the client emitted
(``world.expect_emitted`` / ``world.expect_sent``): every such judgement is a rule of
:mod:`mqcn_model.sending`, registered under its requirement ID and aware of the errata readings.
"""

from __future__ import annotations

import re

from pytest_bdd import given, parsers, then, when

from mqcn_suite.scenarios.defects import DEFECTS, version_0x02_body
from mqcn_suite.scenarios.fixtures import (
    EVERY_CHANGE,
    IDS,
    OTHER_QM_GUID,
    QM_GUID,
    QUEUE_GUID,
    SENTINEL_QUOTA,
    distinctive_queue_attributes,
    existing_queue,
    queue_manager_attributes,
)
from mqcn_suite.scenarios.messages import quota_change, v1_body, v2_body
from mqcn_suite.scenarios.vocabulary import CLIENT_VERSION
from mqcn_suite.world import World

OBJECTS = {
    "the queue orders": QUEUE_GUID,
    "the queue manager": QM_GUID,
    "another queue manager": OTHER_QM_GUID,
}
_ID = re.compile(r"MQCN-[0-9.]+-[0-9]+")


def requirement_ids(text: str) -> list[str]:
    """The requirement IDs written in a step's text."""
    return _ID.findall(text)


def attribute_names(text: str) -> tuple[str, ...]:
    """ADM attribute names written in a step as ``"Quota, BasePriority"``."""
    return tuple(name.strip() for name in text.split(","))


# --- given ----------------------------------------------------------------------------------


@given(parsers.parse("a {kind} client"))
def _client(world: World, kind: str) -> None:
    world.setup.client_version = CLIENT_VERSION[kind]


@given(parsers.parse('a queue-manager client named "{server}"'))
def _qm_client(world: World, server: str) -> None:
    world.setup.client_version = CLIENT_VERSION["queue-manager"]
    world.setup.client_server_name = server


@given("a client that sends the Version its product profile chooses")
def _profile_client(world: World) -> None:
    world.setup.client_version = None


@given("the directory publishes the queue manager")
def _directory_has_qm(world: World) -> None:
    world.publish_queue_manager(**queue_manager_attributes())


@given("the directory publishes the queue orders with distinctive values")
def _directory_has_distinct_orders(world: World) -> None:
    world.publish_queue(existing_queue(**distinctive_queue_attributes()))


@given(parsers.parse("the queue manager has ForeignSystem {foreign:d} in the directory"))
def _qm_foreign(world: World, foreign: int) -> None:
    """Change ForeignSystem of the queue manager the directory publishes (published before)."""
    world.published_queue_manager()["ForeignSystem"] = foreign


@given(parsers.parse("a Version 0x01 message with {defect}"))
def _v1_defect(world: World, defect: str) -> None:
    world.message = DEFECTS.named(defect, "version-0x01").build(IDS)


@given(parsers.parse("a Version 0x02 message about the queue orders with {defect}"))
def _v2_defect(world: World, defect: str) -> None:
    world.message = version_0x02_body(defect, IDS)


@given(parsers.parse('the queue orders is labelled "{label}" in the directory'))
def _orders_labelled(world: World, label: str) -> None:
    """Change the Label of the queue orders the directory publishes (published before)."""
    for entry in world.setup.directory_queues:
        if entry["queue"]["Identifier"] == str(QUEUE_GUID):
            entry["queue"]["Label"] = label
            return
    raise AssertionError("the directory does not publish the queue orders")


@given("a conforming Version 0x01 message changing the Quota of the queue orders")
def _v1_quota(world: World) -> None:
    world.message = v1_body(quota_change(IDS))


@given("a conforming Version 0x02 message about a change of the queue orders")
def _v2_change(world: World) -> None:
    world.message = v2_body(2)


# --- when -----------------------------------------------------------------------------------


@when(parsers.parse("the client is initialised towards {destination}"))
def _initialise(world: World, destination: str) -> None:
    world.start_client(OBJECTS[destination])


@when(parsers.parse('the client sends a "{operation}" notification'))
def _send(world: World, operation: str) -> None:
    world.notify(operation, changed=dict(EVERY_CHANGE)[operation])


@when(parsers.parse('the client sends a "{operation}" notification changing "{attributes}"'))
def _send_changing(world: World, operation: str, attributes: str) -> None:
    world.notify(operation, changed=attribute_names(attributes))


@when("the client notifies every kind of change")
def _send_every(world: World) -> None:
    for operation, changed in EVERY_CHANGE:
        world.notify(operation, changed=changed)


# --- then: what the client emitted, judged by mqcn_model.sending ---------------------------------


@then(parsers.parse("every message the client emitted satisfies {requirements}"))
def _emitted_satisfy(world: World, requirements: str) -> None:
    for requirement in requirement_ids(requirements):
        world.expect_emitted(requirement)


@then(parsers.re(r"the client emitted exactly (?P<count>\d+) messages? \((?P<requirement>[^)]+)\)"))
def _emitted_count(world: World, count: str, requirement: str) -> None:
    world.expect_sent(requirement, count=int(count))


@then(parsers.parse("every emitted message has Version {version} ({requirement})"))
def _emitted_version(world: World, version: str, requirement: str) -> None:
    world.expect_sent(requirement, version=int(version, 16))


@then(
    parsers.parse(
        "every emitted Message went to the queue opened at initialisation ({requirement})"
    )
)
def _to_the_opened_queue(world: World, requirement: str) -> None:
    """Judged on the Messages (their destination) and on the Open Queue itself: a client that
    reports none has no descriptor to enqueue them to (3.3.5.3)."""
    world.expect_emitted(requirement)
    world.expect_opened(requirement)


@then(parsers.parse("every emitted Message was sent as 3.3.5.3 says ({requirement})"))
@then(parsers.parse("the emitted message travels as the Body of an MSMQ Message ({requirement})"))
def _emitted_judged(world: World, requirement: str) -> None:
    world.expect_emitted(requirement)


# --- then: what the server side did -------------------------------------------------------------


@then(parsers.parse("the target applies it with the Quota of the queue orders set ({requirement})"))
def _quota_applied(world: World, requirement: str) -> None:
    quota = (world.queue_state() or {}).get("Quota")
    world.expect(requirement, quota == SENTINEL_QUOTA, f"Quota is {quota!r}")


@then(parsers.parse("the queue orders takes the directory's attributes ({requirement})"))
def _took_directory(world: World, requirement: str) -> None:
    queue = world.queue_state() or {}
    world.expect(
        requirement,
        (queue.get("Label"), queue.get("Quota")) == ("from the directory", 4242),
        f"{queue}",
    )
