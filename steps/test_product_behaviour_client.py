"""Steps of features/6-product-behaviour-client.feature (notes <1>, <2>, <5>, <9>).

The notes are rules of :mod:`mqcn_model.sending` (the Version the profile's product sends);
a step states the Version its Examples table gives, checked against the profile.
"""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions

scenarios("6-product-behaviour-client.feature")


@then(
    parsers.parse(
        "the emitted messages have Version {version}, as note {note} says ({requirement})"
    )
)
def _version_by_note(world: World, version: str, note: str, requirement: str) -> None:
    world.expect_sent(requirement, product_version=int(version, 16))
