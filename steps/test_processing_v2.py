"""Steps of features/3.2.5.2-processing-v2.feature (3.2.5.2, 2.2.5's read-from-the-directory
rule, note <10>)."""

from __future__ import annotations

from pytest_bdd import given, parsers, scenarios, then

from mqcn_suite.scenarios.expectations import directory_copy_problems
from mqcn_suite.scenarios.fixtures import DC_NAME, QUEUE_GUID
from mqcn_suite.scenarios.messages import notification_text, v2_text_message
from mqcn_suite.world import World
from steps._server_steps import *  # noqa: F403 - shared server step definitions
from steps._server_steps import OBJECTS

scenarios("3.2.5.2-processing-v2.feature")


@given(
    parsers.parse(
        'a Version 0x02 notification with the Event token "{event}" about the queue orders'
    )
)
def _event_token(world: World, event: str) -> None:
    world.message = v2_text_message(notification_text(event, str(QUEUE_GUID), DC_NAME))


@then(parsers.parse("{name} now holds what the directory read returned ({requirement})"))
def _holds_read(world: World, name: str, requirement: str) -> None:
    is_qm = name == "the queue manager"
    problems = directory_copy_problems(
        world.setup.to_json(), world.state(), OBJECTS[name], queue_manager=is_qm
    )
    world.expect(requirement, not problems, "; ".join(problems))
