"""Steps of features/3.3.5.3-sending.feature (3.3.5.3 and notes <12>, <13>)."""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_model import scenario_messages as sm
from mqcn_model.constants import notify_queue_format_name
from mqcn_suite.world import QM_GUID, World
from steps._format_steps import *  # noqa: F403 - shared step definitions

scenarios("3.3.5.3-sending.feature")


def _judge(world: World, requirement: str, condition: object, what: str) -> None:
    """Judge ``condition(envelope)`` on every emitted Message (none emitted: fail)."""
    holds = bool(world.emitted) and all(condition(e) for e in world.emitted)  # type: ignore[operator]
    world.expect(
        requirement, holds, f"{what}: {[e.to_json() | {'body': '...'} for e in world.emitted]}"
    )


@then(
    parsers.parse(
        "every emitted Message goes to the notification queue of the queue manager ({requirement})"
    )
)
def _destination(world: World, requirement: str) -> None:
    wanted = notify_queue_format_name(str(QM_GUID))
    _judge(
        world,
        requirement,
        lambda e: sm.same_format_name(e.destination_format_name, wanted),
        f"not to {wanted}",
    )


@then(parsers.parse("every emitted Message has TimeToReachQueue 300 seconds ({requirement})"))
def _ttrq(world: World, requirement: str) -> None:
    _judge(world, requirement, lambda e: e.time_to_reach_queue == 300, "TimeToReachQueue differs")


@then(parsers.parse("every emitted Message has DeliveryGuarantee {guarantee:w} ({requirement})"))
def _guarantee(world: World, guarantee: str, requirement: str) -> None:
    _judge(world, requirement, lambda e: e.delivery_guarantee.name == guarantee, f"not {guarantee}")


@then(parsers.parse("every emitted Message has Class {message_class:w} ({requirement})"))
def _class(world: World, message_class: str, requirement: str) -> None:
    _judge(
        world, requirement, lambda e: e.message_class.name == message_class, f"not {message_class}"
    )


@then(parsers.parse("every emitted Body is one byte longer than its message ({requirement})"))
def _spare_byte(world: World, requirement: str) -> None:
    _judge(
        world,
        requirement,
        lambda e: sm.message_length(e.body) == len(e.body) - 1,
        "no single spare byte",
    )


@then(parsers.parse("no emitted message depends on the value of its spare byte ({requirement})"))
def _spare_irrelevant(world: World, requirement: str) -> None:
    _judge(
        world,
        requirement,
        lambda e: sm.spare_byte_irrelevant(e.body),
        "the spare byte changes the message",
    )


@then(parsers.parse("every emitted message starts at the first byte of its Body ({requirement})"))
def _starts_at_zero(world: World, requirement: str) -> None:
    _judge(
        world,
        requirement,
        lambda e: e.body[:1] in (b"\x01", b"\x02") and sm.decoded(e.body),
        "not at byte 0",
    )


@then(
    parsers.parse(
        "every emitted Message went to the queue opened at initialisation ({requirement})"
    )
)
def _opened_queue(world: World, requirement: str) -> None:
    opened = (world.client_open or {}).get("destination_format_name")
    _judge(
        world,
        requirement,
        lambda e: sm.same_format_name(e.destination_format_name, opened or "?"),
        f"not {opened}",
    )


@then(
    parsers.parse(
        "every emitted Message has the HashAlgorithm {hash_name} of MSMQ {msmq} ({requirement})"
    )
)
def _hash(world: World, hash_name: str, msmq: str, requirement: str) -> None:
    assert sm.expected_hash_algorithm(msmq).name == hash_name, (
        "the feature's table disagrees with errata E-16"
    )
    _judge(
        world,
        requirement,
        lambda e: e.hash_algorithm is not None and e.hash_algorithm.name == hash_name,
        "",
    )


@then(parsers.parse("every emitted Message has AuthenticationLevel {level:w} ({requirement})"))
def _auth(world: World, level: str, requirement: str) -> None:
    _judge(world, requirement, lambda e: e.authentication_level.name == level, f"not {level}")


@then(
    parsers.parse(
        "every emitted Message has the SenderIdentifier of the queue manager ({requirement})"
    )
)
def _sender(world: World, requirement: str) -> None:
    _judge(world, requirement, lambda e: e.sender_identifier == QM_GUID, f"not {QM_GUID}")


@then(parsers.parse("every emitted Message has SenderIdentifierType {kind:w} ({requirement})"))
def _sender_type(world: World, kind: str, requirement: str) -> None:
    _judge(world, requirement, lambda e: e.sender_identifier_type.name == kind, f"not {kind}")


@then(
    parsers.parse(
        "every emitted Message has HashAlgorithm {hash_name}, as note <12> says ({requirement})"
    )
)
def _hash_note(world: World, hash_name: str, requirement: str) -> None:
    _judge(
        world,
        requirement,
        lambda e: e.hash_algorithm is not None and e.hash_algorithm.name == hash_name,
        "",
    )


@then(
    parsers.parse(
        "every emitted Message has AuthenticationLevel {level}, as note <13> says ({requirement})"
    )
)
def _auth_note(world: World, level: str, requirement: str) -> None:
    _judge(world, requirement, lambda e: e.authentication_level.name == level, f"not {level}")
