"""Steps of features/2.2.3-property-values.feature (2.2.2 PROPID, 2.2.3 PROPVALUE)."""

from __future__ import annotations

from pytest_bdd import given, parsers, scenarios, then

from mqcn_model.constants import PROPERTIES
from mqcn_model.sending import value_mismatch
from mqcn_suite.scenarios.defects import VALUE_DEFECTS
from mqcn_suite.scenarios.expectations import (
    bool_patterns_misread,
    carrier_problem,
    codec_reading,
    codec_writes,
    decoded,
    propid_values,
)
from mqcn_suite.scenarios.fixtures import IDS, distinctive_queue_attributes, existing_queue
from mqcn_suite.scenarios.messages import carrier_message
from mqcn_suite.scenarios.vocabulary import NONE, value_from_text, vt_named
from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import propid_named

scenarios("2.2.3-property-values.feature")


def _value(propid: str, text: str) -> object:
    return value_from_text(PROPERTIES[propid_named(propid)].vt, text)


@given(parsers.parse("a Version 0x01 message carrying {value} as {propid} with {defect}"))
def _broken_carrier(world: World, value: str, propid: str, defect: str) -> None:
    world.message = VALUE_DEFECTS[defect].message(propid_named(propid), _value(propid, value), IDS)


@given(parsers.re(r"a Version 0x01 message carrying (?P<value>.+) as (?P<propid>PROPID_\w+)$"))
def _carrier(world: World, value: str, propid: str) -> None:
    world.message = carrier_message(propid_named(propid), _value(propid, value), IDS)


@then(parsers.parse("the target applies it with the value in place ({requirement})"))
def _carrier_applied(world: World, requirement: str) -> None:
    problem = _carrier_problem(world)
    world.expect(requirement, problem is None, problem or "")


def _carrier_problem(world: World) -> str | None:
    """Re-derive the carrier from the delivered message and ask the model what is missing."""
    message = decoded(world.message)
    assert message is not None, "the carrier message must decode"
    last = message.updates[0].properties[-1]
    return carrier_problem(world.state(), propid_named(last.name), last.value, IDS)


@then(
    parsers.parse(
        "the emitted creation carries the queue's {attribute} as {propid} ({requirement})"
    )
)
def _emitted_value(world: World, attribute: str, propid: str, requirement: str) -> None:
    messages = world.emitted_read(requirement)
    if messages is None:  # not read: stopped by what broke (judged instead)
        return
    pid = propid_named(propid)
    found = [propid_values(u).get(pid) for m in messages for u in m.updates]
    wanted = getattr(existing_queue(**distinctive_queue_attributes()), attribute)
    blamed = value_mismatch(requirement, pid, found, wanted)  # a VT slip, or another value
    world.expect(*(blamed[0], False, blamed[1]) if blamed else (requirement, True, f"{found}"))


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
