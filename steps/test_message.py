"""Steps of features/2.2.4-change-notification-message.feature (2.2.4)."""

from __future__ import annotations

from hypothesis import strategies as st
from pytest_bdd import given, parsers, scenarios, then

from mqcn_model import scenario_messages as sm
from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import IDS, emitted_messages

scenarios("2.2.4-change-notification-message.feature")


@then(
    parsers.parse("every generated Version other than 0x01 and 0x02 is disregarded ({requirement})")
)
def _any_bad_version(world: World, requirement: str) -> None:
    good = sm.v1_defect_message("Version 0x03", IDS)
    versions = st.integers(0, 255).filter(lambda v: v not in (1, 2))
    problems = world.disregard_problems_for(versions, lambda v: sm.with_version(good, v))
    world.expect(requirement, not problems, "; ".join(problems[:3]))


@given(
    parsers.parse(
        "a conforming Version 0x01 message with {count:d} Quota changes of the queue orders"
    )
)
def _quota_changes(world: World, count: int) -> None:
    world.message = sm.quota_changes(IDS, count)


@then(
    parsers.parse("the Quota of the queue orders is the one the third update sets ({requirement})")
)
def _third_applied(world: World, requirement: str) -> None:
    quota = (world.queue_state() or {}).get("Quota")
    world.expect(requirement, quota == sm.SENTINEL_QUOTA + 2, f"Quota is {quota!r}")


@then(
    parsers.parse(
        "every emitted NumberOfUpdateNotifications equals the updates in Data ({requirement})"
    )
)
def _counts_true(world: World, requirement: str) -> None:
    found = [
        (m.count, len(m.updates) or int(m.body is not None), len(m.trailing)) if m else None
        for m in emitted_messages(world)
    ]
    honest = all(f is not None and f[0] == f[1] and f[2] <= 1 for f in found)
    world.expect(
        requirement,
        bool(found) and honest,
        f"(count, carried, trailing bytes) per message: {found}",
    )


@then(
    parsers.parse(
        "every emitted Version 0x02 message has NumberOfUpdateNotifications 0x01 ({requirement})"
    )
)
def _v2_count_one(world: World, requirement: str) -> None:
    headers = [envelope.body[:2].hex() for envelope in world.emitted]
    world.expect(requirement, bool(headers) and set(headers) == {"0201"}, f"headers {headers}")
