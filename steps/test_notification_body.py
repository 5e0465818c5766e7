"""Steps of features/2.2.5-notification-body.feature (2.2.5)."""

from __future__ import annotations

from hypothesis import strategies as st
from pytest_bdd import given, parsers, scenarios, then

from mqcn_suite.scenarios.fixtures import DC_NAME, QM_GUID, QUEUE_GUID, queue_manager_attributes
from mqcn_suite.scenarios.messages import notification_text, v2_body, v2_text_message
from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import OBJECTS

scenarios("2.2.5-notification-body.feature")

_VCHAR = st.characters(min_codepoint=0x21, max_codepoint=0x7E)
_NOT_VCHAR = st.characters(blacklist_categories=("Cs",)).filter(lambda c: not "\x21" <= c <= "\x7e")


def _body(event: str = "2", server: str = DC_NAME) -> bytes:
    return v2_text_message(notification_text(event, str(QUEUE_GUID), server))


@then(
    parsers.parse(
        "every generated Event token other than 1, 2, 3 and 4 is disregarded ({requirement})"
    )
)
def _any_bad_event(world: World, requirement: str) -> None:
    tokens = st.text(_VCHAR.filter(lambda c: c != "<"), max_size=4).filter(
        lambda t: t not in "1234" or not t
    )
    problems = world.disregard_problems_for(tokens, lambda token: _body(event=token))
    world.expect(requirement, not problems, "; ".join(problems[:3]))


@then(
    parsers.parse(
        "every generated server name with a non-VCHAR character is disregarded ({requirement})"
    )
)
def _any_bad_server(world: World, requirement: str) -> None:
    names = st.tuples(st.text(_VCHAR, max_size=8), _NOT_VCHAR, st.text(_VCHAR, max_size=8)).map(
        "".join
    )
    problems = world.disregard_problems_for(names, lambda name: _body(server=name))
    world.expect(requirement, not problems, "; ".join(problems[:3]))


@given("a conforming Version 0x02 message about a change of the queue manager")
def _v2_machine(world: World) -> None:
    world.message = v2_body(4, QM_GUID)


@given("a conforming Version 0x02 message about the queue orders from a 256-character server")
def _v2_long_server(world: World) -> None:
    world.message = v2_body(2, QUEUE_GUID, "d" * 256)


@then(parsers.parse("the queue manager takes the directory's attributes ({requirement})"))
def _qm_took_directory(world: World, requirement: str) -> None:
    quota = world.state()["queue_manager"].get("QueueManagerQuota")
    world.expect(
        requirement,
        quota == queue_manager_attributes()["QueueManagerQuota"],
        f"QueueManagerQuota {quota!r}",
    )


@then(parsers.parse("the emitted ObjectGuid names {object_name} ({requirement})"))
def _names_object(world: World, object_name: str, requirement: str) -> None:
    world.expect_sent(requirement, object=OBJECTS[object_name])


@then(parsers.parse("the object the emitted ObjectGuid names is a {kind} object ({requirement})"))
def _names_kind(world: World, kind: str, requirement: str) -> None:
    world.expect_sent(requirement, kind=kind)
