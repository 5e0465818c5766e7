"""Steps of features/3.2.5-dispatch.feature (3.2.5; the spare byte of 3.3.5.3 and the Reserved
field of 2.2.6 as a receiver sees them)."""

from __future__ import annotations

from hypothesis import strategies as st
from pytest_bdd import given, parsers, scenarios, then

from mqcn_model import scenario_messages as sm
from mqcn_suite.world import World, v2_body
from steps._server_steps import *  # noqa: F403 - shared server step definitions
from steps._server_steps import IDS

scenarios("3.2.5-dispatch.feature")


@given(parsers.parse("a Quota change of the queue orders relabelled Version {version}"))
def _v1_relabelled(world: World, version: str) -> None:
    world.message = sm.with_version(sm.v1_body(sm.quota_change(IDS)), int(version, 16))


@given(parsers.parse("a Version 0x02 change of the queue orders relabelled Version {version}"))
def _v2_relabelled(world: World, version: str) -> None:
    world.message = sm.with_version(v2_body(2), int(version, 16))


@given(parsers.parse("a malformed body: {body}"))
def _malformed(world: World, body: str) -> None:
    world.message = sm.server_malformed(body, IDS)


@then(
    parsers.parse(
        "every generated garbage body is disregarded and the next notification applied"
        " ({requirement})"
    )
)
def _garbage(world: World, requirement: str) -> None:
    problems = world.disregard_problems_for(st.binary(max_size=48), bytes)
    world.expect(requirement, not problems, "; ".join(problems[:3]))


@then(
    parsers.parse(
        "every generated cut of a Quota change is disregarded and the next notification applied"
        " ({requirement})"
    )
)
def _cuts(world: World, requirement: str) -> None:
    good = sm.v1_body(sm.quota_change(IDS))  # good[:-1] is whole: only shorter cuts are broken
    problems = world.disregard_problems_for(st.integers(0, len(good) - 2), lambda n: good[:n])
    world.expect(requirement, not problems, "; ".join(problems[:3]))


@then(
    parsers.parse(
        "in a stream of {count:d} notifications alternating conforming and malformed ones each"
        " conforming one is applied ({requirement})"
    )
)
def _stream(world: World, count: int, requirement: str) -> None:
    world.start()
    stream, found, initial = sm.alternating_stream(IDS, count), [], world.queue_state() or {}
    for body, _quota in stream:
        world.deliver(body)
        found.append((world.queue_state() or {}).get("Quota"))
    wanted = sm.quotas_after_each(stream, initial.get("Quota"))
    world.expect(requirement, found == wanted, f"Quota after each: {found}, not {wanted}")


@then(
    parsers.parse(
        "the outcome is the same without the spare byte and whatever it holds ({requirement})"
    )
)
def _spare_irrelevant(world: World, requirement: str) -> None:
    message = world.message  # outcome_of() replaces world.message with what it delivers
    outcomes = {
        label: world.outcome_of(sm.with_spare(message, spare))
        for label, spare in sm.SPARE_VARIANTS.items()
    }
    differing = [
        f"{label}: {sm.state_diff(outcomes['0x00'], state)}"
        for label, state in outcomes.items()
        if state != outcomes["0x00"]
    ]
    applied = outcomes["0x00"] != world.state_before
    world.expect(
        requirement,
        applied and not differing,
        f"applied with 0x00: {applied}; a different outcome with: {differing}",
    )


@then(
    parsers.parse(
        "one update of each kind with Reserved holding {filling} has the outcome of a zero"
        " Reserved ({requirement})"
    )
)
def _reserved_filling(world: World, filling: str, requirement: str) -> None:
    zero = world.outcome_of(sm.every_kind_body(IDS, sm.INVOICES_GUID))
    filled = world.outcome_of(
        sm.every_kind_body(IDS, sm.INVOICES_GUID, sm.RESERVED_FILLINGS[filling])
    )
    world.expect(requirement, filled == zero, f"changes: {sm.state_diff(zero, filled)}")


@then(
    parsers.parse(
        "every generated Reserved content gives the outcome of a zero Reserved ({requirement})"
    )
)
def _reserved_generated(world: World, requirement: str) -> None:
    zero = world.outcome_of(sm.every_kind_body(IDS, sm.INVOICES_GUID))

    def differs(reserved: bytes) -> str | None:
        state = world.outcome_of(sm.every_kind_body(IDS, sm.INVOICES_GUID, reserved))
        return None if state == zero else f"changes {sm.state_diff(zero, state)}"

    problems = world.problems_for(st.binary(min_size=24, max_size=24), differs)
    world.expect(requirement, not problems, "; ".join(problems[:3]))
