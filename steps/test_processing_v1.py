"""Steps of features/3.2.5.1-processing-v1.feature (3.2.5.1, and 3.3.5.2's PROPID_Q_ADS_PATH
rule for the receiving queue manager)."""

from __future__ import annotations

from dataclasses import replace

from pytest_bdd import given, parsers, scenarios, then

from mqcn_suite.scenarios.expectations import (
    creation_problems,
    expected_changes,
    sparse_creation_problems,
)
from mqcn_suite.scenarios.fixtures import (
    ADS_PATH_SAMPLE,
    DS_GUID,
    IDS,
    INVOICES_GUID,
    MACHINE_UPDATE_SAMPLE,
    OTHER_QM_GUID,
    QUEUE_GUID,
    QUEUE_UPDATE_SAMPLE,
)
from mqcn_suite.scenarios.messages import (
    creation_of,
    deletion_of,
    deletion_of_type,
    deletion_with,
    distinctive_creation,
    leading_update,
    machine_creation,
    machine_update_carrying,
    queue_update_carrying,
    quota_change,
    sparse_creation,
    v1_body,
    with_command,
    without_property,
)
from mqcn_suite.scenarios.vocabulary import PropId, pair_from_text
from mqcn_suite.world import World
from steps._server_steps import *  # noqa: F403 - shared server step definitions
from steps._server_steps import UNKNOWN_QUEUE_GUID, changes

scenarios("3.2.5.1-processing-v1.feature")


# --- given ----------------------------------------------------------------------------------


@given("an update of the queue invoices changing its Quota")
def _invoices_quota(world: World) -> None:
    world.message = v1_body(quota_change(replace(IDS, queue=INVOICES_GUID)))


@given(parsers.parse("a {kind} whose PropertyId[0] is {propid}"))
def _leading(world: World, kind: str, propid: str) -> None:
    world.message = v1_body(leading_update(kind, PropId[propid], IDS))


@given(
    parsers.parse(
        "a Version 0x01 message of a queue creation led by {propid} and a Quota change of the"
        " queue orders"
    )
)
def _machine_creation_then_quota(world: World, propid: str) -> None:
    creation = leading_update("queue creation", PropId[propid], IDS)
    world.message = v1_body(creation, quota_change(IDS))


@given(
    parsers.parse(
        "a Version 0x01 message of a Quota change to {first:d}, an update led by {propid} and a"
        " Quota change to {third:d}"
    )
)
def _stopped_midway(world: World, first: int, propid: str, third: int) -> None:
    bad = leading_update("queue update", PropId[propid], IDS)
    world.message = v1_body(quota_change(IDS, first), bad, quota_change(IDS, third))


@given(
    parsers.parse("a creation of the new queue with distinctive values in {order}"),
    target_fixture="creation_pairs",
)
def _creation(world: World, order: str) -> list:
    pairs = distinctive_creation(IDS, order)
    world.message = v1_body(creation_of(IDS, pairs))
    return pairs


@given(
    "a creation of the new queue with distinctive values and a PROPID_Q_ADS_PATH",
    target_fixture="creation_pairs",
)
def _creation_ads_path(world: World) -> list:
    pairs = [*distinctive_creation(IDS), (PropId.PROPID_Q_ADS_PATH, ADS_PATH_SAMPLE)]
    world.message = v1_body(creation_of(IDS, pairs))
    return pairs


@given(parsers.parse("an update of the queue orders carrying {propid} = {value}"))
def _queue_update(world: World, propid: str, value: str) -> None:
    world.message = v1_body(queue_update_carrying(IDS, [pair_from_text(propid, value)]))


@given("an update of the queue orders carrying all seven modifiable properties")
def _queue_update_all(world: World) -> None:
    pairs = list(QUEUE_UPDATE_SAMPLE.items())
    world.message = v1_body(queue_update_carrying(IDS, pairs))


@given(
    parsers.parse(
        "an update of the queue orders changing its Quota and carrying {propid} = {value}"
    )
)
def _queue_update_ignored(world: World, propid: str, value: str) -> None:
    update = queue_update_carrying(IDS, [pair_from_text(propid, value)], quota=True)
    world.message = v1_body(update)


@given(parsers.parse("an update of the queue manager carrying {propid} = {value}"))
def _machine_update(world: World, propid: str, value: str) -> None:
    world.message = v1_body(machine_update_carrying(IDS, [pair_from_text(propid, value)]))


@given("an update of the queue manager carrying all three modifiable properties")
def _machine_update_all(world: World) -> None:
    pairs = list(MACHINE_UPDATE_SAMPLE.items())
    world.message = v1_body(machine_update_carrying(IDS, pairs))


@given(
    parsers.parse(
        "an update of the queue manager changing its QueueManagerQuota and carrying"
        " {propid} = {value}"
    )
)
def _machine_update_ignored(world: World, propid: str, value: str) -> None:
    update = machine_update_carrying(IDS, [pair_from_text(propid, value)], quota=True)
    world.message = v1_body(update)


@given(
    parsers.parse(
        "a deletion of the queue orders carrying {first} = {first_value} and then"
        " {second} = {second_value}"
    )
)
def _deletion_two(
    world: World, first: str, first_value: str, second: str, second_value: str
) -> None:
    pairs = [pair_from_text(first, first_value), pair_from_text(second, second_value)]
    world.message = v1_body(deletion_with(QUEUE_GUID, pairs, DS_GUID))


@given(parsers.parse("a deletion of the queue orders carrying only {propid} = {value}"))
def _deletion_one(world: World, propid: str, value: str) -> None:
    pairs = [pair_from_text(propid, value)]
    world.message = v1_body(deletion_with(QUEUE_GUID, pairs, DS_GUID))


@given("a deletion of the queue orders carrying no property")
def _deletion_none(world: World) -> None:
    world.message = v1_body(deletion_with(QUEUE_GUID, [], DS_GUID))


@given("a creation of the queue orders with distinctive values")
def _creation_of_owned(world: World) -> None:
    ids = replace(IDS, new_queue=QUEUE_GUID)
    world.message = v1_body(creation_of(ids, distinctive_creation(ids)))


@given(
    "a Version 0x01 message of a creation of the queue orders with distinctive values and a"
    " Quota change of the queue orders"
)
def _creation_of_owned_then_quota(world: World) -> None:
    ids = replace(IDS, new_queue=QUEUE_GUID)
    world.message = v1_body(creation_of(ids, distinctive_creation(ids)), quota_change(IDS))


@given(
    parsers.parse(
        'a creation of the queue orders carrying only its identifier, the path name "{path}"'
        ' and the label "{label}"'
    )
)
def _sparse_creation_of_owned(world: World, path: str, label: str) -> None:
    world.message = v1_body(sparse_creation(replace(IDS, new_queue=QUEUE_GUID), path, label))


@given(parsers.parse("a creation of object type 2 naming the queue manager by its {naming}"))
def _machine_creation(world: World, naming: str) -> None:
    world.message = v1_body(machine_creation(IDS, by_guid=naming == "GuidIdentifier"))


@given("an update of another queue manager carrying all three modifiable properties")
def _foreign_machine_update(world: World) -> None:
    pairs = list(MACHINE_UPDATE_SAMPLE.items())
    world.message = v1_body(machine_update_carrying(replace(IDS, qm=OTHER_QM_GUID), pairs))


@given(
    parsers.parse(
        "a Version 0x01 message of a Quota change to {quota:d}, a QueueManagerQuota change to"
        " {qm_quota:d} and an update led by {propid}"
    )
)
def _queue_and_machine_then_stop(world: World, quota: int, qm_quota: int, propid: str) -> None:
    machine = machine_update_carrying(IDS, [(PropId.PROPID_QM_QUOTA, qm_quota)])
    bad = leading_update("queue update", PropId[propid], IDS)
    world.message = v1_body(quota_change(IDS, quota), machine, bad)


@given(parsers.parse("a deletion of the queue orders whose PropertyValue[1] is {object_type:d}"))
def _deletion_of_type(world: World, object_type: int) -> None:
    world.message = v1_body(deletion_of_type(QUEUE_GUID, object_type, DS_GUID))


@given("a deletion of an unknown queue")
def _deletion_unknown(world: World) -> None:
    world.message = v1_body(deletion_of(UNKNOWN_QUEUE_GUID))


@given("a creation of the new queue with distinctive values but no PROPID_Q_INSTANCE")
def _creation_without_instance(world: World) -> None:
    pairs = without_property(distinctive_creation(IDS), PropId.PROPID_Q_INSTANCE)
    world.message = v1_body(creation_of(IDS, pairs))


@given(
    parsers.parse(
        'a creation of the new queue carrying only its identifier, the path name "{path}" and'
        ' the label "{label}"'
    )
)
def _sparse_creation(world: World, path: str, label: str) -> None:
    world.message = v1_body(sparse_creation(IDS, path, label))


@given("an update of an unknown queue carrying all seven modifiable properties")
def _unknown_queue_update(world: World) -> None:
    pairs = list(QUEUE_UPDATE_SAMPLE.items())
    world.message = v1_body(queue_update_carrying(replace(IDS, queue=UNKNOWN_QUEUE_GUID), pairs))


@given(parsers.parse("a deletion of the queue orders relabelled Command {command}"))
def _relabelled_deletion(world: World, command: str) -> None:
    update = deletion_of(QUEUE_GUID)
    world.message = v1_body(with_command(update, int(command, 16)))


# --- then -----------------------------------------------------------------------------------


@then(
    parsers.parse(
        "the Quota of the queue orders is {applied:d}, or {undone:d} where the whole message"
        " is undone ({requirement})"
    )
)
def _quota_either(world: World, applied: int, undone: int, requirement: str) -> None:
    found = (world.queue_state() or {}).get("Quota")
    world.expect_reading(
        requirement,
        "E-14",
        strict=found == applied,
        lenient=found == undone,
        message=f"Quota is {found!r}",
    )


@then(parsers.parse("the new queue holds the 15 values of the creation ({requirement})"))
def _holds_creation(world: World, creation_pairs: list, requirement: str) -> None:
    problems = creation_problems(world.queue_state(IDS.new_queue), creation_pairs)
    world.expect(requirement, not problems, "; ".join(problems))


@then(
    parsers.parse(
        "the DirectoryPath of the new queue is not the PROPID_Q_ADS_PATH of the creation"
        " ({requirement})"
    )
)
def _ads_path_ignored(world: World, requirement: str) -> None:
    path = (world.queue_state(IDS.new_queue) or {}).get("DirectoryPath", ADS_PATH_SAMPLE)
    world.expect(requirement, path != ADS_PATH_SAMPLE, f"DirectoryPath is {path!r}")


@then(
    parsers.parse(
        "the message changed exactly the seven attributes of the queue orders ({requirement})"
    )
)
def _seven_changed(world: World, requirement: str) -> None:
    wanted = expected_changes(f"queue {QUEUE_GUID}", QUEUE_UPDATE_SAMPLE, of_queue_manager=False)
    world.expect(requirement, changes(world) == wanted, f"the changes were {changes(world)}")


@then(
    parsers.parse(
        "the message changed exactly the three attributes of the queue manager ({requirement})"
    )
)
def _three_changed(world: World, requirement: str) -> None:
    wanted = expected_changes("queue_manager", MACHINE_UPDATE_SAMPLE, of_queue_manager=True)
    world.expect(requirement, changes(world) == wanted, f"the changes were {changes(world)}")


@then(
    parsers.parse(
        "the message changed the Quota of the queue orders to {quota:d} and the"
        " QueueManagerQuota of the queue manager to {qm_quota:d}, or nothing where the whole"
        " message is undone ({requirement})"
    )
)
def _both_or_nothing(world: World, quota: int, qm_quota: int, requirement: str) -> None:
    applied = {f"queue {QUEUE_GUID}.Quota": quota, "queue_manager.QueueManagerQuota": qm_quota}
    diff = changes(world)
    world.expect_reading(
        requirement, "E-14", strict=diff == applied, lenient=diff == {}, message=f"changes {diff}"
    )


@then(
    parsers.parse(
        'the new queue, if created, has the path name "{path}" and the label "{label}" and no'
        " other attribute holds either ({requirement})"
    )
)
def _sparse_created(world: World, path: str, label: str, requirement: str) -> None:
    carried = {"Pathname": path, "Label": label}
    problems = sparse_creation_problems(world.queue_state(IDS.new_queue), carried)
    world.expect(requirement, not problems, "; ".join(problems))
