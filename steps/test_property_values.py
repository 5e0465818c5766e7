"""Steps of features/2.2.3-property-values.feature (2.2.2 PROPID, 2.2.3 PROPVALUE)."""

from __future__ import annotations

from pytest_bdd import given, parsers, scenarios, then

from mqcn_suite.scenarios.defects import VALUE_DEFECTS
from mqcn_suite.scenarios.expectations import (
    bool_patterns_misread,
    codec_reading,
    codec_writes,
    delivered_carrier_problem,
    emitted_value_verdict,
)
from mqcn_suite.scenarios.fixtures import IDS
from mqcn_suite.scenarios.messages import carrier_message
from mqcn_suite.scenarios.vocabulary import (
    NONE,
    property_value_from_text,
    propid_named,
    value_from_text,
    vt_named,
)
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


@given(parsers.parse("the {vt} wire bytes {wire}"))
def _wire(world: World, vt: str, wire: str) -> None:
    world.message = bytes.fromhex(wire) if wire not in NONE else b""


@then(
    parsers.parse(
        "the suite's codec reads the {vt} value {value} and writes the same bytes ({requirement})"
    )
)
def _codec_reads(world: World, vt: str, value: str, requirement: str) -> None:
    kind, expected = vt_named(vt), value_from_text(vt_named(vt), value)
    got, refused = codec_reading(kind, world.message.hex())
    same = refused is None and got == expected and codec_writes(kind, got) == world.message.hex()
    world.expect(requirement, same, f"read {got!r} (refused: {refused}), expected {expected!r}")


@then(parsers.parse("the suite's codec refuses them as {vt} for breaking {requirement}"))
def _codec_refuses(world: World, vt: str, requirement: str) -> None:
    got, refused = codec_reading(vt_named(vt), world.message.hex())
    world.expect(requirement, refused == requirement, f"read {got!r}, refused for {refused}")


@then(
    parsers.parse(
        "the suite's codec accepts 0x0000 and 0xFFFF alone of all VT_BOOL patterns ({requirement})"
    )
)
def _codec_bool_patterns(world: World, requirement: str) -> None:
    wrong = bool_patterns_misread()
    world.expect(requirement, not wrong, f"misread patterns: {[hex(p) for p in wrong[:8]]}")
