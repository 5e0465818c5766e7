"""Steps of features/3.3.4.1-send-change-notification.feature (3.3.4.1)."""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_model import scenario_messages as sm
from mqcn_model.judge import judge
from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import OBJECTS, emitted_messages

scenarios("3.3.4.1-send-change-notification.feature")


@then(
    parsers.parse(
        "the client emitted a message about {object_name} for {operation} ({requirement})"
    )
)
def _about_object(world: World, object_name: str, operation: str, requirement: str) -> None:
    named = [sm.named_object(m) if m else None for m in emitted_messages(world)]
    world.expect(
        requirement, named == [OBJECTS[object_name]], f"{operation}: messages about {named}"
    )


@then(
    parsers.parse("the emitted message is a conforming Version {version} message ({requirement})")
)
def _conforming(world: World, version: str, requirement: str) -> None:
    verdicts = [(e.body[:1].hex(), judge(e.body).violations) for e in world.emitted]
    good = bool(verdicts) and all(v == version[2:] and not broken for v, broken in verdicts)
    world.expect(requirement, good, f"(Version, violations) per message: {verdicts}")
