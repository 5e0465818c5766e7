"""Steps of features/3.3.5.1-preparing-v2.feature (3.3.5.1).

Each Then step asks :mod:`mqcn_model.sending` whether its requirement was violated by the
Version 0x02 messages the client emitted; what the text states (the Event token, the object,
the server name) is checked against what the model derives from the scenario.
"""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import OBJECTS

scenarios("3.3.5.1-preparing-v2.feature")


@then(parsers.parse("the emitted message carries a Notification Body ({requirement})"))
@then(parsers.parse("the emitted Notification Body matches the ABNF of 2.2.5 ({requirement})"))
@then(parsers.parse("the emitted message has NumberOfUpdateNotifications 0x01 ({requirement})"))
@then(
    parsers.parse("the emitted Data holds the Notification Body and nothing else ({requirement})")
)
@then(parsers.parse("each Send Change Notification produced exactly one message ({requirement})"))
def _emitted(world: World, requirement: str) -> None:
    world.expect_emitted(requirement)


@then(parsers.parse("the emitted Event token is {event:d} ({requirement})"))
def _event(world: World, event: int, requirement: str) -> None:
    world.expect_sent(requirement, event=event)


@then(parsers.parse("the emitted ObjectGuid token is the GUID of {object_name} ({requirement})"))
def _object_guid(world: World, object_name: str, requirement: str) -> None:
    world.expect_sent(requirement, object=OBJECTS[object_name])


@then(parsers.parse('the emitted DomainController token is "{server}" ({requirement})'))
def _domain_controller(world: World, server: str, requirement: str) -> None:
    world.expect_sent(requirement, server=server)
