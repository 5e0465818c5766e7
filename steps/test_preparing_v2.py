"""Steps of features/3.3.5.1-preparing-v2.feature (3.3.5.1)."""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_model import scenario_messages as sm
from mqcn_model.judge import judge
from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import OBJECTS, emitted_messages

scenarios("3.3.5.1-preparing-v2.feature")


def _bodies(world: World) -> list[object]:
    return [m.body if m else None for m in emitted_messages(world)]


@then(parsers.parse("the emitted message carries a Notification Body ({requirement})"))
def _has_body(world: World, requirement: str) -> None:
    bodies = _bodies(world)
    world.expect(requirement, bool(bodies) and None not in bodies, f"bodies {bodies}")


@then(parsers.parse("the emitted Notification Body matches the ABNF of 2.2.5 ({requirement})"))
def _abnf(world: World, requirement: str) -> None:
    verdicts = [judge(e.body) for e in world.emitted]
    good = bool(verdicts) and all(v.conforming and v.message and v.message.body for v in verdicts)
    world.expect(requirement, good, "; ".join(str(x) for v in verdicts for x in v.violations))


@then(parsers.parse("the emitted Event token is {event:d} ({requirement})"))
def _event(world: World, event: int, requirement: str) -> None:
    events = [b.event if b else None for b in _bodies(world)]  # type: ignore[attr-defined]
    world.expect(requirement, events == [event], f"Event tokens {events}")


@then(parsers.parse("the emitted ObjectGuid token is the GUID of {object_name} ({requirement})"))
def _object_guid(world: World, object_name: str, requirement: str) -> None:
    guids = [b.object_guid if b else None for b in _bodies(world)]  # type: ignore[attr-defined]
    world.expect(requirement, guids == [OBJECTS[object_name]], f"ObjectGuid tokens {guids}")


@then(parsers.parse('the emitted DomainController token is "{server}" ({requirement})'))
def _domain_controller(world: World, server: str, requirement: str) -> None:
    names = [b.domain_controller if b else None for b in _bodies(world)]  # type: ignore[attr-defined]
    world.expect(
        requirement, bool(names) and set(names) == {server}, f"DomainController tokens {names}"
    )


@then(parsers.parse("the emitted message has NumberOfUpdateNotifications 0x01 ({requirement})"))
def _count_one(world: World, requirement: str) -> None:
    counts = [e.body[1] if len(e.body) > 1 else None for e in world.emitted]
    world.expect(requirement, bool(counts) and set(counts) == {1}, f"counts {counts}")


@then(
    parsers.parse("the emitted Data holds the Notification Body and nothing else ({requirement})")
)
def _data_is_body(world: World, requirement: str) -> None:
    problems = [sm.layout_problem(e.body) for e in world.emitted]
    good = bool(problems) and problems.count(None) == len(problems) and None not in _bodies(world)
    world.expect(requirement, good, f"{problems}")


@then(parsers.parse("each Send Change Notification produced exactly one message ({requirement})"))
def _one_per_send(world: World, requirement: str) -> None:
    named = [sm.named_object(m) if m else None for m in emitted_messages(world)]
    events = [b.event if b else None for b in _bodies(world)]  # type: ignore[attr-defined]
    world.expect(requirement, events == [1, 2, 3, 4], f"events {events} about {named}")
