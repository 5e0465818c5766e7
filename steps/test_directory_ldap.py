"""Steps of features/3.2.5.2-directory-ldap.feature: Read Directory against the suite's LDAP
server when the object, an attribute or the server itself is missing (LDAP mode only)."""

from __future__ import annotations

from pytest_bdd import given, parsers, scenarios

from mqcn_suite.scenarios.fixtures import NEW_QUEUE_GUID, existing_queue
from mqcn_suite.world import World
from steps._server_steps import *  # noqa: F403 - shared server step definitions
from steps._server_steps import OBJECTS

scenarios("3.2.5.2-directory-ldap.feature")


@given("the directory is an LDAP server")
def _ldap_directory(world: World) -> None:
    world.require_ldap_directory()


@given(parsers.parse("the directory publishes {name} without its {attribute}"))
def _publishes_without(world: World, name: str, attribute: str) -> None:
    guid = OBJECTS[name]
    path = {NEW_QUEUE_GUID: {"Pathname": "qm1\\newq", "Label": "new"}}.get(guid, {})
    world.publish_queue(existing_queue(guid, **path))
    world.leave_out_of_directory(guid, attribute)


@given("the directory server is down")
def _server_down(world: World) -> None:
    world.setup.directory_condition = {"down": True}


@given(parsers.parse("the directory server answers each request after {seconds:g} seconds"))
def _server_slow(world: World, seconds: float) -> None:
    world.setup.directory_condition = {"delay": seconds}
