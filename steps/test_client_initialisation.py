"""Steps of features/3.3.3-client-initialisation.feature (3.3.3)."""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_model import scenario_messages as sm
from mqcn_model.constants import notify_queue_format_name
from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import OBJECTS

scenarios("3.3.3-client-initialisation.feature")


def _opened(world: World, key: str) -> object:
    return (world.client_open or {}).get(key)


@then(parsers.parse("the client opened an OutgoingQueue ({requirement})"))
def _opened_queue(world: World, requirement: str) -> None:
    world.expect(requirement, world.client_open is not None, "the client reported no Open Queue")


@then(
    parsers.parse(
        "its DestinationFormatName is the NOTIFY_QUEUE_PRIVATE of {destination} ({requirement})"
    )
)
def _format_name(world: World, destination: str, requirement: str) -> None:
    found, wanted = (
        _opened(world, "destination_format_name"),
        notify_queue_format_name(str(OBJECTS[destination])),
    )
    world.expect(
        requirement, sm.same_format_name(found, wanted), f"opened {found!r}, not {wanted!r}"
    )  # type: ignore[arg-type]


@then(parsers.parse("its NextHops is empty ({requirement})"))
def _next_hops(world: World, requirement: str) -> None:
    world.expect(
        requirement, _opened(world, "next_hops") == "", f"NextHops {_opened(world, 'next_hops')!r}"
    )


@then(parsers.parse("it was opened with the access {access} ({requirement})"))
def _access(world: World, access: str, requirement: str) -> None:
    world.expect(
        requirement,
        _opened(world, "required_access") == access,
        f"{_opened(world, 'required_access')!r}",
    )


@then(parsers.parse("it was opened with the share mode {mode} ({requirement})"))
def _share(world: World, mode: str, requirement: str) -> None:
    world.expect(
        requirement, _opened(world, "shared_mode") == mode, f"{_opened(world, 'shared_mode')!r}"
    )
