"""Steps of features/2.2.6-notification-update.feature (2.2.6)."""

from __future__ import annotations

from hypothesis import strategies as st
from pytest_bdd import given, parsers, scenarios, then

from mqcn_model import scenario_messages as sm
from mqcn_model.builders import queue_creation
from mqcn_model.codec.message import body_buffer, v1_message
from mqcn_suite.world import DS_GUID, NEW_QUEUE_GUID, World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import IDS, all_updates

scenarios("2.2.6-notification-update.feature")


def _judge_updates(world: World, requirement: str, condition: object, what: str) -> None:
    updates = all_updates(world)
    holds = bool(updates) and all(condition(u) for u in updates)  # type: ignore[operator]
    world.expect(requirement, holds, f"{what}; updates: {updates}")


@then(
    parsers.parse("every generated Command above 0x02 leaves the state unchanged ({requirement})")
)
def _any_bad_command(world: World, requirement: str) -> None:
    good = sm.v1_defect_message("Command 0x03", IDS)
    problems = world.disregard_problems_for(
        st.integers(3, 255), lambda c: good[:2] + bytes((c,)) + good[3:]
    )
    world.expect(requirement, not problems, "; ".join(problems[:3]))


@given(parsers.parse('a conforming Version 0x01 message creating the queue "{path}"'))
def _creation(world: World, path: str) -> None:
    world.message = body_buffer(v1_message([queue_creation(NEW_QUEUE_GUID, path, master=DS_GUID)]))


@then(parsers.parse('the queue "{path}" exists with that path name ({requirement})'))
def _created(world: World, path: str, requirement: str) -> None:
    queue = world.queue_state(NEW_QUEUE_GUID) or {}
    world.expect(
        requirement, queue.get("Pathname") == path, f"the new queue is {queue or 'missing'}"
    )


@then(parsers.parse("every emitted update has Command 0x00, 0x01 or 0x02 ({requirement})"))
def _commands(world: World, requirement: str) -> None:
    _judge_updates(
        world, requirement, lambda u: u.command in (0, 1, 2), "a Command outside 0x00-0x02"
    )


@then(
    parsers.parse(
        "every emitted update that carries a GuidIdentifier has UseGuid 0x01 ({requirement})"
    )
)
def _guid_means_one(world: World, requirement: str) -> None:
    _judge_updates(
        world,
        requirement,
        lambda u: u.guid_identifier is None or u.use_guid == 1,
        "GuidIdentifier without UseGuid 0x01",
    )


@then(
    parsers.parse("every emitted update that carries a PathName has UseGuid 0x00 ({requirement})")
)
def _path_means_zero(world: World, requirement: str) -> None:
    _judge_updates(
        world,
        requirement,
        lambda u: u.path_name is None or u.use_guid == 0,
        "PathName without UseGuid 0x00",
    )


@then(
    parsers.parse(
        "every emitted PathName is the queue's path name, null-terminated ({requirement})"
    )
)
def _path_names(world: World, requirement: str) -> None:
    paths = [u.path_name for u in all_updates(world) or [] if u.use_guid == 0]
    world.expect(
        requirement, bool(paths) and set(paths) == {f"{IDS.computer}\\orders"}, f"PathNames {paths}"
    )


@then(parsers.parse("every emitted update with UseGuid 0x01 carries no PathName ({requirement})"))
def _no_path(world: World, requirement: str) -> None:
    _judge_updates(
        world,
        requirement,
        lambda u: u.use_guid != 1 or u.path_name is None,
        "UseGuid 0x01 with a PathName",
    )


@then(
    parsers.parse(
        "every emitted update with UseGuid 0x01 carries a 16-byte GuidIdentifier ({requirement})"
    )
)
def _has_guid(world: World, requirement: str) -> None:
    _judge_updates(
        world,
        requirement,
        lambda u: u.use_guid != 1 or u.guid_identifier is not None,
        "no GuidIdentifier",
    )


@then(parsers.parse("every emitted update has 24 zero bytes in Reserved ({requirement})"))
def _reserved_zero(world: World, requirement: str) -> None:
    _judge_updates(
        world, requirement, lambda u: u.reserved == bytes(24), "Reserved holds non-zero bytes"
    )


@then(parsers.parse("the emitted update has NumberOfProperties PropertyIds ({requirement})"))
@then(
    parsers.parse("the emitted update has NumberOfProperties values of their types ({requirement})")
)
def _arrays_complete(world: World, requirement: str) -> None:
    problems = [p for p in (sm.layout_problem(e.body) for e in world.emitted) if p]
    world.expect(
        requirement, bool(world.emitted) and not problems, "; ".join(problems) or "nothing emitted"
    )
