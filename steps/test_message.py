"""Steps of features/2.2.4-change-notification-message.feature (2.2.4)."""

from __future__ import annotations

from hypothesis import strategies as st
from pytest_bdd import given, parsers, scenarios, then

from mqcn_suite.scenarios.defects import DEFECTS
from mqcn_suite.scenarios.fixtures import IDS, SENTINEL_QUOTA
from mqcn_suite.scenarios.messages import quota_changes, with_version
from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions

scenarios("2.2.4-change-notification-message.feature")


@then(
    parsers.parse("every generated Version other than 0x01 and 0x02 is disregarded ({requirement})")
)
def _any_bad_version(world: World, requirement: str) -> None:
    good = DEFECTS["Version 0x03"].build(IDS)
    versions = st.integers(0, 255).filter(lambda v: v not in (1, 2))
    problems = world.disregard_problems_for(versions, lambda v: with_version(good, v))
    world.expect(requirement, not problems, "; ".join(problems[:3]))


@given(
    parsers.parse(
        "a conforming Version 0x01 message with {count:d} Quota changes of the queue orders"
    )
)
def _quota_changes(world: World, count: int) -> None:
    world.message = quota_changes(IDS, count)


@then(
    parsers.parse("the Quota of the queue orders is the one the third update sets ({requirement})")
)
def _third_applied(world: World, requirement: str) -> None:
    quota = (world.queue_state() or {}).get("Quota")
    world.expect(requirement, quota == SENTINEL_QUOTA + 2, f"Quota is {quota!r}")


@then(
    parsers.parse(
        "every emitted NumberOfUpdateNotifications equals the updates in Data ({requirement})"
    )
)
@then(
    parsers.parse(
        "every emitted Version 0x02 message has NumberOfUpdateNotifications 0x01 ({requirement})"
    )
)
def _emitted(world: World, requirement: str) -> None:
    world.expect_emitted(requirement)
