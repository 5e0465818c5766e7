"""Steps of features/3.2.5.2-processing-v2.feature (3.2.5.2, 2.2.5's read-from-the-directory
rule, note <10>)."""

from __future__ import annotations

from pytest_bdd import given, parsers, scenarios

from mqcn_suite.scenarios.fixtures import DC_NAME, QUEUE_GUID
from mqcn_suite.scenarios.messages import notification_text, v2_text_message
from mqcn_suite.world import World
from steps._server_steps import *  # noqa: F403 - shared server step definitions

scenarios("3.2.5.2-processing-v2.feature")


@given(
    parsers.parse(
        'a Version 0x02 notification with the Event token "{event}" about the queue orders'
    )
)
def _event_token(world: World, event: str) -> None:
    world.message = v2_text_message(notification_text(event, str(QUEUE_GUID), DC_NAME))
