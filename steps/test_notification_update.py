"""Steps of features/2.2.6-notification-update.feature (2.2.6).

Server side: malformed updates delivered and disregarded.  Client side: each Then step asks
:mod:`mqcn_model.sending` (the codec, the content rules and its 2.2.6 rules) whether its
requirement was violated by the updates the client emitted.
"""

from __future__ import annotations

from hypothesis import strategies as st
from pytest_bdd import given, parsers, scenarios, then

from mqcn_suite.scenarios.defects import DEFECTS
from mqcn_suite.scenarios.fixtures import IDS, NEW_QUEUE_GUID
from mqcn_suite.scenarios.messages import queue_creation_at, v1_body
from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions

scenarios("2.2.6-notification-update.feature")


@then(
    parsers.parse("every generated Command above 0x02 leaves the state unchanged ({requirement})")
)
def _any_bad_command(world: World, requirement: str) -> None:
    good = DEFECTS["Command 0x03"].build(IDS)
    problems = world.disregard_problems_for(
        st.integers(3, 255), lambda c: good[:2] + bytes((c,)) + good[3:]
    )
    world.expect(requirement, not problems, "; ".join(problems[:3]))


@given(parsers.parse('a conforming Version 0x01 message creating the queue "{path}"'))
def _creation(world: World, path: str) -> None:
    world.message = v1_body(queue_creation_at(NEW_QUEUE_GUID, path))


@then(parsers.parse('the queue "{path}" exists with that path name ({requirement})'))
def _created(world: World, path: str, requirement: str) -> None:
    queue = world.queue_state(NEW_QUEUE_GUID) or {}
    world.expect(
        requirement, queue.get("Pathname") == path, f"the new queue is {queue or 'missing'}"
    )


@then(parsers.parse("every emitted update has Command 0x00, 0x01 or 0x02 ({requirement})"))
@then(
    parsers.parse(
        "every emitted update that carries a GuidIdentifier has UseGuid 0x01 ({requirement})"
    )
)
@then(
    parsers.parse("every emitted update that carries a PathName has UseGuid 0x00 ({requirement})")
)
@then(parsers.parse("every emitted PathName is a null-terminated Unicode string ({requirement})"))
@then(parsers.parse("every emitted update with UseGuid 0x01 carries no PathName ({requirement})"))
@then(
    parsers.parse(
        "every emitted update with UseGuid 0x01 carries a 16-byte GuidIdentifier ({requirement})"
    )
)
@then(parsers.parse("every emitted update has 24 zero bytes in Reserved ({requirement})"))
@then(parsers.parse("the emitted update has NumberOfProperties PropertyIds ({requirement})"))
@then(
    parsers.parse("the emitted update has NumberOfProperties values of their types ({requirement})")
)
def _emitted(world: World, requirement: str) -> None:
    world.expect_emitted(requirement)
