"""Steps of features/2.2.3-property-values.feature (2.2.2 PROPID, 2.2.3 PROPVALUE)."""

from __future__ import annotations

from pytest_bdd import given, parsers, scenarios, then

from mqcn_suite.scenarios.defects import VALUE_DEFECTS
from mqcn_suite.scenarios.expectations import (
    delivered_carrier_problem,
    emitted_value_verdict,
)
from mqcn_suite.scenarios.fixtures import IDS
from mqcn_suite.scenarios.messages import carrier_message
from mqcn_suite.scenarios.vocabulary import property_value_from_text, propid_named
from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions

scenarios("2.2.3-property-values.feature")


@given(parsers.parse("a Version 0x01 message carrying {value} as {propid} with {defect}"))
def _broken_carrier(world: World, value: str, propid: str, defect: str) -> None:
    world.message = VALUE_DEFECTS[defect].message(
        propid_named(propid), property_value_from_text(propid, value), IDS
    )


@given(parsers.re(r"a Version 0x01 message carrying (?P<value>.+) as (?P<propid>PROPID_\w+)$"))
def _carrier(world: World, value: str, propid: str) -> None:
    world.message = carrier_message(
        propid_named(propid), property_value_from_text(propid, value), IDS
    )


@then(parsers.parse("the target applies it with the value in place ({requirement})"))
def _carrier_applied(world: World, requirement: str) -> None:
    problem = delivered_carrier_problem(world.message, world.state(), IDS)
    world.expect(requirement, problem is None, problem or "")


@then(
    parsers.parse(
        "the emitted creation carries the queue's {attribute} as {propid} ({requirement})"
    )
)
def _emitted_value(world: World, attribute: str, propid: str, requirement: str) -> None:
    messages = world.emitted_read(requirement)
    if messages is None:  # not read: stopped by what broke (judged instead)
        return
    world.expect(*emitted_value_verdict(requirement, messages, attribute, propid))
