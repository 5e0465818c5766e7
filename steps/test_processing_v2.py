"""Steps of features/3.2.5.2-processing-v2.feature (3.2.5.2, 2.2.5's read-from-the-directory
rule, note <10>)."""

from __future__ import annotations

from pytest_bdd import given, parsers, scenarios, then

from mqcn_suite.scenarios.expectations import directory_copy_problems, read_problems
from mqcn_suite.scenarios.fixtures import DC_NAME, QUEUE_GUID
from mqcn_suite.scenarios.messages import notification_text, v2_text_message
from mqcn_suite.world import World
from steps._server_steps import *  # noqa: F403 - shared server step definitions
from steps._server_steps import OBJECTS

scenarios("3.2.5.2-processing-v2.feature")


def _object_type(name: str) -> str:
    return "QueueManager" if name.endswith("queue manager") else "Queue"


def _read_of(world: World, name: str) -> dict | None:
    """The first Read Directory the target made for the object ``name``, if any."""
    guid = str(OBJECTS[name])
    return next(
        (r for r in world.directory_reads() if str(r.get("identifier")).lower() == guid), None
    )


@given(
    parsers.parse(
        'a Version 0x02 notification with the Event token "{event}" about the queue orders'
    )
)
def _event_token(world: World, event: str) -> None:
    world.message = v2_text_message(notification_text(event, str(QUEUE_GUID), DC_NAME))


@then(parsers.parse("{name} was read from the directory ({requirement})"))
def _was_read(world: World, name: str, requirement: str) -> None:
    read = _read_of(world, name)
    world.expect(requirement, read is not None, f"reads made: {world.directory_reads()}")


@then(
    parsers.parse(
        "{name} was read from the directory with the {count:d} attributes of 3.2.5.2"
        " ({requirement})"
    )
)
def _read_with_list(world: World, name: str, count: int, requirement: str) -> None:
    problems = read_problems(_read_of(world, name), _object_type(name), OBJECTS[name])
    world.expect(requirement, not problems, "; ".join(problems))


@then(parsers.parse('the Read Directory for {name} went to the server "{server}" ({requirement})'))
def _read_server(world: World, name: str, server: str, requirement: str) -> None:
    read = _read_of(world, name) or {}
    found = str(read.get("server") or "")
    world.expect(requirement, found.lower() == server.lower(), f"the read went to {found!r}")


@then(parsers.parse("no Read Directory was made ({requirement})"))
def _no_read(world: World, requirement: str) -> None:
    reads = world.directory_reads()
    world.expect(requirement, not reads, f"reads made: {reads}")


@then(parsers.parse("{name} now holds what the directory read returned ({requirement})"))
def _holds_read(world: World, name: str, requirement: str) -> None:
    is_qm = name == "the queue manager"
    problems = directory_copy_problems(
        world.setup.to_json(), world.state(), OBJECTS[name], queue_manager=is_qm
    )
    world.expect(requirement, not problems, "; ".join(problems))
