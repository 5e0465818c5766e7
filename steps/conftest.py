"""Step definitions shared by every feature file.

Each step is a line or two: the logic lives in ``mqcn_model`` (codec, rules, server and
client models) and in ``mqcn_suite.world.World`` (delivering, observing, judging).  A step
that judges names its requirement ID in the Gherkin text, so the scenario reads as the
requirement it checks and the ID is recorded with its verdict.
"""

from __future__ import annotations

from pytest_bdd import given, parsers, then, when

from mqcn_suite.scenarios.fixtures import existing_queue
from mqcn_suite.scenarios.vocabulary import profile_named
from mqcn_suite.world import World


@given("a queue manager that owns the queue orders")
def _owns_orders(world: World) -> None:
    world.own_queue()


@given("the directory publishes the queue orders")
def _directory_has_orders(world: World) -> None:
    world.publish_queue(existing_queue(Label="from the directory", Quota=4242))


@given(parsers.parse('the target follows the product profile "{profile}"'))
def _profile(world: World, profile: str) -> None:
    world.setup.profile = profile_named(profile)


@given("the server side has started")
def _started(world: World) -> None:
    world.start()


@when("the target receives the message")
def _receive(world: World) -> None:
    world.deliver(world.message)


@then(parsers.parse("the queue manager state is unchanged ({requirement})"))
@then(
    parsers.parse(
        "the queue manager state is unchanged, or what the errata reading admitting the"
        " message gives ({requirement})"
    )
)
def _unchanged(world: World, requirement: str) -> None:
    world.expect_disregarded(requirement)


@then(parsers.parse("the target still serves the next notification ({requirement})"))
def _still_serving(world: World, requirement: str) -> None:
    world.expect(
        requirement,
        world.probe_still_serving(),
        "a conforming notification after it was not applied",
    )
