"""Steps of features/3.2.5.1-processing-v1.feature (3.2.5.1, and 3.3.5.2's PROPID_Q_ADS_PATH
rule for the receiving queue manager)."""

from __future__ import annotations

from dataclasses import replace

from pytest_bdd import given, parsers, scenarios, then

from mqcn_model import scenario_messages as sm
from mqcn_model.constants import PropId
from mqcn_suite.world import DS_GUID, QUEUE_GUID, World
from steps._server_steps import *  # noqa: F403 - shared server step definitions
from steps._server_steps import IDS, UNKNOWN_QUEUE_GUID, changes

scenarios("3.2.5.1-processing-v1.feature")


# --- given ----------------------------------------------------------------------------------


@given("an update of the queue invoices changing its Quota")
def _invoices_quota(world: World) -> None:
    world.message = sm.v1_body(sm.quota_change(replace(IDS, queue=sm.INVOICES_GUID)))


@given(parsers.parse("a {kind} whose PropertyId[0] is {propid}"))
def _leading(world: World, kind: str, propid: str) -> None:
    world.message = sm.v1_body(sm.leading_update(kind, PropId[propid], IDS))


@given(
    parsers.parse(
        "a Version 0x01 message of a queue creation led by {propid} and a Quota change of the"
        " queue orders"
    )
)
def _machine_creation_then_quota(world: World, propid: str) -> None:
    creation = sm.leading_update("queue creation", PropId[propid], IDS)
    world.message = sm.v1_body(creation, sm.quota_change(IDS))


@given(
    parsers.parse(
        "a Version 0x01 message of a Quota change to {first:d}, an update led by {propid} and a"
        " Quota change to {third:d}"
    )
)
def _stopped_midway(world: World, first: int, propid: str, third: int) -> None:
    bad = sm.leading_update("queue update", PropId[propid], IDS)
    world.message = sm.v1_body(sm.quota_change(IDS, first), bad, sm.quota_change(IDS, third))


@given(parsers.parse("a creation of the new queue with distinctive values in {order}"))
def _creation(world: World, order: str) -> None:
    world.message = sm.v1_body(sm.creation_of(IDS, sm.distinctive_creation(IDS, order)))


@given("a creation of the new queue with distinctive values and a PROPID_Q_ADS_PATH")
def _creation_ads_path(world: World) -> None:
    pairs = [*sm.distinctive_creation(IDS), (PropId.PROPID_Q_ADS_PATH, sm.ADS_PATH_SAMPLE)]
    world.message = sm.v1_body(sm.creation_of(IDS, pairs))


@given(parsers.parse("an update of the queue orders carrying {propid} = {value}"))
def _queue_update(world: World, propid: str, value: str) -> None:
    world.message = sm.v1_body(sm.queue_update_carrying(IDS, [sm.pair_from_text(propid, value)]))


@given("an update of the queue orders carrying all seven modifiable properties")
def _queue_update_all(world: World) -> None:
    pairs = list(sm.QUEUE_UPDATE_SAMPLE.items())
    world.message = sm.v1_body(sm.queue_update_carrying(IDS, pairs))


@given(
    parsers.parse(
        "an update of the queue orders changing its Quota and carrying {propid} = {value}"
    )
)
def _queue_update_ignored(world: World, propid: str, value: str) -> None:
    update = sm.queue_update_carrying(IDS, [sm.pair_from_text(propid, value)], quota=True)
    world.message = sm.v1_body(update)


@given(parsers.parse("an update of the queue manager carrying {propid} = {value}"))
def _machine_update(world: World, propid: str, value: str) -> None:
    world.message = sm.v1_body(sm.machine_update_carrying(IDS, [sm.pair_from_text(propid, value)]))


@given("an update of the queue manager carrying all three modifiable properties")
def _machine_update_all(world: World) -> None:
    pairs = list(sm.MACHINE_UPDATE_SAMPLE.items())
    world.message = sm.v1_body(sm.machine_update_carrying(IDS, pairs))


@given(
    parsers.parse(
        "an update of the queue manager changing its QueueManagerQuota and carrying"
        " {propid} = {value}"
    )
)
def _machine_update_ignored(world: World, propid: str, value: str) -> None:
    update = sm.machine_update_carrying(IDS, [sm.pair_from_text(propid, value)], quota=True)
    world.message = sm.v1_body(update)


@given(
    parsers.parse(
        "a deletion of the queue orders carrying PROPID_D_OBJTYPE = {first:d} and then"
        " PROPID_D_OBJTYPE = {second:d}"
    )
)
def _deletion_two_types(world: World, first: int, second: int) -> None:
    pairs = [(PropId.PROPID_D_OBJTYPE, first), (PropId.PROPID_D_OBJTYPE, second)]
    world.message = sm.v1_body(sm.deletion_with(QUEUE_GUID, pairs, DS_GUID))


@given(parsers.parse("a deletion of the queue orders whose PropertyValue[1] is {object_type:d}"))
def _deletion_of_type(world: World, object_type: int) -> None:
    world.message = sm.v1_body(sm.deletion_of_type(QUEUE_GUID, object_type, DS_GUID))


@given("a deletion of an unknown queue")
def _deletion_unknown(world: World) -> None:
    world.message = sm.v1_body(sm.queue_deletion(UNKNOWN_QUEUE_GUID, master=DS_GUID))


# --- then -----------------------------------------------------------------------------------


@then(
    parsers.parse(
        "the Quota of the queue orders is {applied:d}, or {undone:d} if the whole message was"
        " undone ({requirement})"
    )
)
def _quota_either(world: World, applied: int, undone: int, requirement: str) -> None:
    found = (world.queue_state() or {}).get("Quota")
    world.expect(requirement, found in (applied, undone), f"Quota is {found!r}")


@then(parsers.parse("the new queue holds the 15 values of the creation ({requirement})"))
def _holds_creation(world: World, requirement: str) -> None:
    pairs = [(p.propid, p.value) for p in sm.decoded(world.message).updates[0].properties]
    problems = sm.creation_problems(world.queue_state(IDS.new_queue), pairs)
    world.expect(requirement, not problems, "; ".join(problems))


@then(
    parsers.parse(
        "the DirectoryPath of the new queue is not the PROPID_Q_ADS_PATH of the creation"
        " ({requirement})"
    )
)
def _ads_path_ignored(world: World, requirement: str) -> None:
    path = (world.queue_state(IDS.new_queue) or {}).get("DirectoryPath", sm.ADS_PATH_SAMPLE)
    world.expect(requirement, path != sm.ADS_PATH_SAMPLE, f"DirectoryPath is {path!r}")


@then(
    parsers.parse(
        "the message changed exactly the seven attributes of the queue orders ({requirement})"
    )
)
def _seven_changed(world: World, requirement: str) -> None:
    wanted = sm.expected_changes(
        f"queue {QUEUE_GUID}", sm.QUEUE_UPDATE_SAMPLE, of_queue_manager=False
    )
    world.expect(requirement, changes(world) == wanted, f"the changes were {changes(world)}")


@then(
    parsers.parse(
        "the message changed exactly the three attributes of the queue manager ({requirement})"
    )
)
def _three_changed(world: World, requirement: str) -> None:
    wanted = sm.expected_changes("queue_manager", sm.MACHINE_UPDATE_SAMPLE, of_queue_manager=True)
    world.expect(requirement, changes(world) == wanted, f"the changes were {changes(world)}")
