"""Steps of features/3.3.4.1-send-change-notification.feature (3.3.4.1).

Each Then step asks :mod:`mqcn_model.sending` whether its requirement was violated by what the
client emitted: the message is about the object asked (3.3.4.1-1), prepared as 3.3.5.1 or
3.3.5.2 says (3.3.4.1-2, every MUST of those sections and of 2.2.x), sent as 3.3.5.3 says.
"""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import OBJECTS

scenarios("3.3.4.1-send-change-notification.feature")


@then(
    parsers.parse(
        "the client emitted a message about {object_name} for {operation} ({requirement})"
    )
)
def _about_object(world: World, object_name: str, operation: str, requirement: str) -> None:
    world.expect_sent(requirement, object=OBJECTS[object_name], operation=operation)


@then(
    parsers.parse("the emitted message is a conforming Version {version} message ({requirement})")
)
def _conforming(world: World, version: str, requirement: str) -> None:
    world.expect_sent(requirement, version=int(version, 16))
