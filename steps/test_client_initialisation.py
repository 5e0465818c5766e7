"""Steps of features/3.3.3-client-initialisation.feature (3.3.3).

Each Then step asks :func:`mqcn_model.sending.open_queue_violations` whether its requirement
was violated by the Open Queue the client raised; the text states the access and share mode,
which are those of 3.3.3.
"""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import OBJECTS

scenarios("3.3.3-client-initialisation.feature")


@then(parsers.parse("the client opened an OutgoingQueue ({requirement})"))
@then(parsers.parse("its NextHops is empty ({requirement})"))
@then(parsers.parse("it was opened with the access SendAccess ({requirement})"))
@then(parsers.parse("it was opened with the share mode DenyNone ({requirement})"))
def _opened(world: World, requirement: str) -> None:
    world.expect_opened(requirement)


@then(
    parsers.parse(
        "its DestinationFormatName is the NOTIFY_QUEUE_PRIVATE of {destination} ({requirement})"
    )
)
def _format_name(world: World, destination: str, requirement: str) -> None:
    world.expect_opened(requirement, OBJECTS[destination])
