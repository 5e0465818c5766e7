"""Steps of features/3.2.3-server-initialisation.feature (3.2.3, 3.2.5 first rule, note <8>)."""

from __future__ import annotations

import uuid

from pytest_bdd import given, parsers, scenarios, then, when

from mqcn_suite.scenarios.expectations import format_name_is, notification_queue_open_problems
from mqcn_suite.scenarios.fixtures import IDS, QM_GUID, SENTINEL_QUOTA
from mqcn_suite.scenarios.messages import quota_change, v1_body, v2_body
from mqcn_suite.world import World
from steps._server_steps import *  # noqa: F403 - shared server step definitions

scenarios("3.2.3-server-initialisation.feature")


@given(parsers.parse("the queue manager's identifier is {guid}"))
def _identifier(world: World, guid: str) -> None:
    world.setup.qm_guid = uuid.UUID(guid)


@given("the queue manager runs in workgroup mode")
def _workgroup(world: World) -> None:
    world.setup.workgroup = True


@when("the target receives a Quota change of the queue orders")
def _receive_quota(world: World) -> None:
    world.deliver(v1_body(quota_change(IDS)))


@when("the target receives a Quota change of the queue orders and then a Version 0x02 change of it")
def _receive_both(world: World) -> None:
    world.deliver(v1_body(quota_change(IDS)))
    world.deliver(v2_body(2))


@then(parsers.parse("the server raised an Open Queue for its notification queue ({requirement})"))
def _opened(world: World, requirement: str) -> None:
    world.expect(requirement, world.server_open is not None, "no Open Queue was reported")


@then(parsers.parse("the Open Queue names the format name {format_name} ({requirement})"))
def _format_name(world: World, format_name: str, requirement: str) -> None:
    found = (world.server_open or {}).get("format_name")
    world.expect(requirement, format_name_is(found, format_name), f"format name {found!r}")


@then(parsers.parse("the Open Queue asks for the access {value} ({requirement})"))
def _access(world: World, value: str, requirement: str) -> None:
    found = (world.server_open or {}).get("required_access")
    world.expect(requirement, found == value, f"iRequiredAccess is {found!r}")


@then(parsers.parse("the Open Queue asks for the share mode {value} ({requirement})"))
def _share_mode(world: World, value: str, requirement: str) -> None:
    found = (world.server_open or {}).get("shared_mode")
    world.expect(requirement, found == value, f"iSharedMode is {found!r}")


@then(parsers.parse("the Open Queue is the one 3.2.3 describes ({requirement})"))
def _open_as_described(world: World, requirement: str) -> None:
    problems = notification_queue_open_problems(world.server_open, QM_GUID)
    world.expect(requirement, not problems, "; ".join(problems))


@then(
    parsers.parse(
        "{count:d} Quota changes of the queue orders sent one after another are each applied"
        " in turn ({requirement})"
    )
)
def _each_in_turn(world: World, count: int, requirement: str) -> None:
    found = []
    for quota in range(7001, 7001 + count):
        world.deliver(v1_body(quota_change(IDS, quota)))
        found.append((world.queue_state() or {}).get("Quota"))
    wanted = list(range(7001, 7001 + count))
    world.expect(requirement, found == wanted, f"Quota after each: {found}, not {wanted}")


@then(parsers.parse("the notification queue is {state} ({requirement})"))
def _queue_state(world: World, state: str, requirement: str) -> None:
    opened = world.server_open is not None
    world.expect(
        requirement, opened == (state == "opened"), f"Open Queue reported: {world.server_open}"
    )


@then(parsers.parse("a Quota change of the queue orders is {handled} ({requirement})"))
def _handled(world: World, handled: str, requirement: str) -> None:
    world.deliver(v1_body(quota_change(IDS)))
    applied = (world.queue_state() or {}).get("Quota") == SENTINEL_QUOTA
    world.expect(requirement, applied == (handled == "applied"), f"applied: {applied}")
