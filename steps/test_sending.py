"""Steps of features/3.3.5.3-sending.feature (3.3.5.3 and notes <12>, <13>).

Each Then step asks :mod:`mqcn_model.sending` whether its requirement was violated by the
Messages the client emitted; what the text states (Express, the MSMQ version's hash…) is
checked against what the model derives from the scenario and its product profile.
"""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions

scenarios("3.3.5.3-sending.feature")


@then(
    parsers.parse(
        "every emitted Message goes to the notification queue of the queue manager ({requirement})"
    )
)
@then(
    parsers.parse(
        "every emitted Message has a message identifier of the sending computer, used once "
        "({requirement})"
    )
)
@then(parsers.parse("every emitted Message has TimeToReachQueue 300 seconds ({requirement})"))
@then(parsers.parse("every emitted Body is one byte longer than its message ({requirement})"))
@then(parsers.parse("no emitted message depends on the value of its spare byte ({requirement})"))
@then(parsers.parse("every emitted message starts at the first byte of its Body ({requirement})"))
@then(
    parsers.parse(
        "every emitted Message has the SenderIdentifier of the queue manager ({requirement})"
    )
)
def _emitted(world: World, requirement: str) -> None:
    world.expect_emitted(requirement)


@then(parsers.parse("every emitted Message has DeliveryGuarantee {guarantee:w} ({requirement})"))
def _guarantee(world: World, guarantee: str, requirement: str) -> None:
    world.expect_sent(requirement, guarantee=guarantee)


@then(parsers.parse("every emitted Message has Class {message_class:w} ({requirement})"))
def _class(world: World, message_class: str, requirement: str) -> None:
    world.expect_sent(requirement, message_class=message_class)


@then(
    parsers.parse(
        "every emitted Message has the HashAlgorithm {hash_name} of MSMQ {msmq} ({requirement})"
    )
)
def _hash(world: World, hash_name: str, msmq: str, requirement: str) -> None:
    world.expect_sent(requirement, hash=hash_name, msmq=msmq)


@then(parsers.parse("every emitted Message has AuthenticationLevel {level:w} ({requirement})"))
def _auth(world: World, level: str, requirement: str) -> None:
    world.expect_sent(requirement, level=level)


@then(parsers.parse("every emitted Message has SenderIdentifierType {kind:w} ({requirement})"))
def _sender_type(world: World, kind: str, requirement: str) -> None:
    world.expect_sent(requirement, sender_type=kind)


@then(
    parsers.parse(
        "every emitted Message has HashAlgorithm {hash_name}, as note <12> says ({requirement})"
    )
)
def _hash_note(world: World, hash_name: str, requirement: str) -> None:
    world.expect_sent(requirement, hash=hash_name)


@then(
    parsers.parse(
        "every emitted Message has AuthenticationLevel {level}, as note <13> says ({requirement})"
    )
)
def _auth_note(world: World, level: str, requirement: str) -> None:
    world.expect_sent(requirement, product_level=level)
