"""Steps of features/6-product-behaviour-server.feature (notes <3>, <4>, <14>).

Every requirement here is a product-behaviour note: World.expect records a differing target as
'info' and never fails the scenario.
"""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then, when

from mqcn_suite.scenarios.expectations import changed_objects, directory_copy_problems
from mqcn_suite.scenarios.fixtures import IDS
from mqcn_suite.scenarios.messages import quota_change, v1_body
from mqcn_suite.world import World
from steps._server_steps import *  # noqa: F403 - shared server step definitions
from steps._server_steps import changes, object_key

scenarios("6-product-behaviour-server.feature")


@when(parsers.parse("a Quota change of the queue orders to {quota:d} arrives"))
def _arrives(world: World, quota: int) -> None:
    world.deliver(v1_body(quota_change(IDS, quota)), settle=False)


@when(
    parsers.parse("{count:d} Quota changes of the queue orders arrive, the n-th setting 7000 + n")
)
def _many_arrive(world: World, count: int) -> None:
    for n in range(1, count + 1):
        world.deliver(v1_body(quota_change(IDS, 7000 + n)), settle=False)


@when(parsers.parse("{seconds:d} seconds pass"))
@when(parsers.parse("{seconds:d} more seconds pass"))
def _time_passes(world: World, seconds: int) -> None:
    world.advance_clock(seconds)


@then(parsers.parse("the Quota of the queue orders is not yet {quota:d} ({requirement})"))
def _not_yet(world: World, quota: int, requirement: str) -> None:
    found = (world.queue_state() or {}).get("Quota")
    world.expect(requirement, found != quota, f"Quota is already {found}")


@then(parsers.parse("the queue orders was refreshed from the directory instead ({requirement})"))
def _refreshed(world: World, requirement: str) -> None:
    problems = directory_copy_problems(
        world.setup.to_json(), world.state(), IDS.queue, queue_manager=False
    )
    world.expect(requirement, not problems, "; ".join(problems))


@then(parsers.parse("the Version 0x02 notification was {outcome} ({requirement})"))
def _v2_outcome(world: World, outcome: str, requirement: str) -> None:
    applied = changed_objects(changes(world)) == {object_key("the queue invoices")}
    world.expect(requirement, applied == (outcome == "applied"), f"changes: {changes(world)}")
