"""Steps of features/3.2.5-dispatch.feature (3.2.5; the spare byte of 3.3.5.3 and the Reserved
field of 2.2.6 as a receiver sees them)."""

from __future__ import annotations

from hypothesis import strategies as st
from pytest_bdd import given, parsers, scenarios, then

from mqcn_suite.scenarios.defects import DEFECTS, alternating_stream
from mqcn_suite.scenarios.expectations import quotas_after_each, state_diff
from mqcn_suite.scenarios.fixtures import IDS, INVOICES_GUID
from mqcn_suite.scenarios.messages import (
    RESERVED_FILLINGS,
    SPARE_VARIANTS,
    every_kind_body,
    quota_change,
    v1_body,
    v2_body,
    with_spare,
    with_version,
)
from mqcn_suite.world import World
from steps._server_steps import *  # noqa: F403 - shared server step definitions

scenarios("3.2.5-dispatch.feature")


@given(parsers.parse("a Quota change of the queue orders relabelled Version {version}"))
def _v1_relabelled(world: World, version: str) -> None:
    world.message = with_version(v1_body(quota_change(IDS)), int(version, 16))


@given(parsers.parse("a Version 0x02 change of the queue orders relabelled Version {version}"))
def _v2_relabelled(world: World, version: str) -> None:
    world.message = with_version(v2_body(2), int(version, 16))


@given(parsers.parse("a malformed body: {body}"))
def _malformed(world: World, body: str) -> None:
    world.message = DEFECTS.named(body, "body").build(IDS)


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
    good = v1_body(quota_change(IDS))  # good[:-1] is whole: only shorter cuts are broken
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
    stream, found, initial = alternating_stream(IDS, count), [], world.queue_state() or {}
    for body, _quota in stream:
        world.deliver(body)
        found.append((world.queue_state() or {}).get("Quota"))
    wanted = quotas_after_each(stream, initial.get("Quota"))
    world.expect(requirement, found == wanted, f"Quota after each: {found}, not {wanted}")


@then(
    parsers.parse(
        "the outcome is the same without the spare byte and whatever it holds ({requirement})"
    )
)
def _spare_irrelevant(world: World, requirement: str) -> None:
    message = world.message  # outcome_of() replaces world.message with what it delivers
    outcomes = {
        label: world.outcome_of(with_spare(message, spare))
        for label, spare in SPARE_VARIANTS.items()
    }
    differing = [
        f"{label}: {state_diff(outcomes['0x00'], state)}"
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
    zero = world.outcome_of(every_kind_body(IDS, INVOICES_GUID))
    filled = world.outcome_of(every_kind_body(IDS, INVOICES_GUID, RESERVED_FILLINGS[filling]))
    world.expect(requirement, filled == zero, f"changes: {state_diff(zero, filled)}")


@then(
    parsers.parse(
        "every generated Reserved content gives the outcome of a zero Reserved ({requirement})"
    )
)
def _reserved_generated(world: World, requirement: str) -> None:
    zero = world.outcome_of(every_kind_body(IDS, INVOICES_GUID))

    def differs(reserved: bytes) -> str | None:
        state = world.outcome_of(every_kind_body(IDS, INVOICES_GUID, reserved))
        return None if state == zero else f"changes {state_diff(zero, state)}"

    problems = world.problems_for(st.binary(min_size=24, max_size=24), differs)
    world.expect(requirement, not problems, "; ".join(problems[:3]))
