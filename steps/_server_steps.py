"""Steps shared by the server features (3.2.3, 3.2.5, 3.2.5.1, 3.2.5.2, section 6 server notes).

Imported with ``from steps._server_steps import *`` by each of those step modules, so that
pytest-bdd finds the step fixtures in the module that runs the scenarios.  Builders and readers
live in :mod:`mqcn_suite.scenarios`; talking to the target goes through the World.
"""

from __future__ import annotations

import uuid

from pytest_bdd import given, parsers, then, when

from mqcn_suite.scenarios.expectations import (
    changed_objects,
    directory_copy_problems,
    missed_read_problem,
    read_problems,
    read_server_problem,
    reads_count_problem,
    reads_of_object,
    state_diff,
)
from mqcn_suite.scenarios.fixtures import (
    IDS,
    INVOICES_GUID,
    NEW_QUEUE_GUID,
    OTHER_QM_GUID,
    QM_GUID,
    QUEUE_GUID,
    distinctive_queue_attributes,
    existing_queue,
    queue_manager_attributes,
)
from mqcn_suite.scenarios.messages import (
    deletion_of,
    every_kind_of_update,
    quota_change,
    quota_changes,
    v1_body,
    v2_body,
)
from mqcn_suite.scenarios.vocabulary import (
    attribute_value_json,
    authentication_level_named,
    sender_identifier_type_named,
)
from mqcn_suite.world import World

UNKNOWN_QUEUE_GUID = uuid.UUID("e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7081")
OBJECTS = {
    "the queue orders": QUEUE_GUID,
    "the queue invoices": INVOICES_GUID,
    "the new queue": NEW_QUEUE_GUID,
    "an unknown queue": UNKNOWN_QUEUE_GUID,
    "the queue manager": QM_GUID,
    "another queue manager": OTHER_QM_GUID,
}


def object_key(name: str) -> str:
    """How :func:`changed_objects` names an object a feature names ("the new queue added")."""
    for suffix in (" added", " removed"):
        if name.endswith(suffix):
            return object_key(name[: -len(suffix)]) + suffix
    return "queue_manager" if name == "the queue manager" else f"queue {OBJECTS[name]}"


def object_type(name: str) -> str:
    """The directory object type of the object a feature names."""
    return "QueueManager" if name.endswith("queue manager") else "Queue"


def read_of(world: World, name: str) -> dict | None:
    """The first Read Directory the target made for the object ``name``, if any."""
    guid = str(OBJECTS[name])
    return next(
        (r for r in world.directory_reads() if str(r.get("identifier")).lower() == guid), None
    )


def changes(world: World) -> dict[str, object]:
    """What the scenario's messages changed so far (a :func:`state_diff`)."""
    return state_diff(world.state_before or world.state(), world.state())


# --- given ----------------------------------------------------------------------------------


@given("the queue manager also owns the queue invoices")
def _owns_invoices(world: World) -> None:
    world.own_queue(existing_queue(INVOICES_GUID, Pathname="qm1\\invoices", Label="invoices"))


@given(parsers.parse("the directory publishes {name} with other values"))
def _publishes_other(world: World, name: str) -> None:
    if name in ("the queue manager", "another queue manager"):
        world.publish_queue_manager(OBJECTS[name], **queue_manager_attributes())
    else:
        queue = existing_queue(OBJECTS[name], **distinctive_queue_attributes())
        world.publish_queue(queue)


@given("the directory publishes the new queue")
def _publishes_new(world: World) -> None:
    world.publish_queue(existing_queue(NEW_QUEUE_GUID, Pathname="qm1\\newq", Label="new"))


@given("a Quota change of the queue orders")
def _quota_change(world: World) -> None:
    world.message = v1_body(quota_change(IDS))


@given("a Version 0x02 change of the queue orders")
def _v2_change(world: World) -> None:
    world.message = v2_body(2)


@given(parsers.parse('a Version 0x02 notification of event {event:d} about {name} from "{server}"'))
def _v2_event(world: World, event: int, name: str, server: str) -> None:
    world.message = v2_body(event, OBJECTS[name], server)


@given("a Version 0x01 message with one update of each kind")
def _every_kind(world: World) -> None:
    world.message = v1_body(*every_kind_of_update(IDS, INVOICES_GUID))


@given(parsers.parse("a Version 0x01 message with {count:d} Quota changes of the queue orders"))
def _quota_changes(world: World, count: int) -> None:
    world.message = quota_changes(IDS, count)


@given("a deletion of the queue orders")
def _deletion(world: World) -> None:
    world.message = v1_body(deletion_of(QUEUE_GUID))


# --- when -----------------------------------------------------------------------------------


@when("the server side starts")
def _starts(world: World) -> None:
    world.start()


@when(parsers.parse("the target receives the message with SenderIdentifierType {name}"))
def _receive_sender_type(world: World, name: str) -> None:
    world.deliver(world.message, sender_identifier_type=sender_identifier_type_named(name))


@when(parsers.parse("the target receives the message with AuthenticationLevel {name}"))
def _receive_auth_level(world: World, name: str) -> None:
    world.deliver(world.message, authentication_level=authentication_level_named(name))


# --- then -----------------------------------------------------------------------------------


@then(parsers.parse("the Quota of the queue orders is {quota:d} ({requirement})"))
def _quota_is(world: World, quota: int, requirement: str) -> None:
    found = (world.queue_state() or {}).get("Quota")
    world.expect(requirement, found == quota, f"Quota is {found!r}, not {quota}")


@then(parsers.parse("the message changed exactly: {objects} ({requirement})"))
def _changed_objects(world: World, objects: str, requirement: str) -> None:
    names = [] if objects == "nothing" else objects.replace(" and ", ", ").split(", ")
    diff = changes(world)
    wanted = {object_key(name) for name in names}
    world.expect(requirement, changed_objects(diff) == wanted, f"the changes were {diff}")


@then(
    parsers.parse("the message changed only the {attribute} of {name}, now {value} ({requirement})")
)
def _changed_attribute(
    world: World, attribute: str, name: str, value: str, requirement: str
) -> None:
    of_qm = name == "the queue manager"
    wanted = {
        f"{object_key(name)}.{attribute}": attribute_value_json(
            attribute, value, of_queue_manager=of_qm
        )
    }
    diff = changes(world)
    world.expect(requirement, diff == wanted, f"the changes were {diff}, not {wanted}")


@then(parsers.parse("{name} now holds what the directory publishes ({requirement})"))
def _holds_published(world: World, name: str, requirement: str) -> None:
    problems = directory_copy_problems(
        world.setup.to_json(), world.state(), OBJECTS[name], queue_manager=False
    )
    world.expect(requirement, not problems, "; ".join(problems))


@then(parsers.parse("{name} was read from the directory ({requirement})"))
def _was_read(world: World, name: str, requirement: str) -> None:
    read = read_of(world, name)  # which asked for every read: world.reads_seen
    problem = missed_read_problem(world.reads_seen, OBJECTS[name])
    world.expect(requirement, read is not None, problem)


@then(
    parsers.parse(
        "{name} was read from the directory with the {count:d} attributes of 3.2.5.2"
        " ({requirement})"
    )
)
def _read_with_list(world: World, name: str, count: int, requirement: str) -> None:
    read, reads = read_of(world, name), world.reads_seen  # read_of asked for every read
    problems = read_problems(read, object_type(name), OBJECTS[name], None, reads)
    world.expect(requirement, not problems, "; ".join(problems))


@then(parsers.parse('the Read Directory for {name} went to the server "{server}" ({requirement})'))
def _read_server(world: World, name: str, server: str, requirement: str) -> None:
    problem = read_server_problem(read_of(world, name), server, name)
    world.expect(requirement, problem is None, problem or f"the read went to {server!r}")


@then(parsers.parse("no Read Directory was made ({requirement})"))
def _no_read(world: World, requirement: str) -> None:
    reads = world.directory_reads()
    world.expect(requirement, not reads, f"reads made: {reads}")


@then(parsers.parse("the outcome is what a reading of errata {errata} gives ({requirement})"))
def _by_readings(world: World, errata: str, requirement: str) -> None:
    world.expect_state_by_readings(requirement, errata)


@then(parsers.parse("the message left {name} as it was ({requirement})"))
def _left_as_it_was(world: World, name: str, requirement: str) -> None:
    key = object_key(name)
    touched = sorted(k for k in changes(world) if k == key or k.startswith(f"{key}."))
    world.expect(requirement, not touched, f"the message changed {', '.join(touched)}")


# --- two notifications about one object, the directory changed between them ----------------


@given(parsers.parse('the directory publishes the new queue named "{pathname}"'))
def _publishes_new_named(world: World, pathname: str) -> None:
    world.publish_queue(existing_queue(NEW_QUEUE_GUID, Pathname=pathname, Label="new"))


@when(parsers.parse("the directory then publishes {name} with the {attribute} {value:d}"))
def _republishes(world: World, name: str, attribute: str, value: int) -> None:
    world.change_published(OBJECTS[name], **{attribute: value})


@when("the target receives the message again")
def _receive_again(world: World) -> None:
    world.deliver(world.message)


@then(
    parsers.parse(
        "{name} was read from the directory once for each of the {count:d} notifications"
        " ({requirement})"
    )
)
def _read_each_time(world: World, name: str, count: int, requirement: str) -> None:
    reads = world.directory_reads()
    found = reads_of_object(reads, OBJECTS[name])
    world.expect(requirement, len(found) >= count, reads_count_problem(reads, OBJECTS[name], count))


@then(parsers.parse('{name} holds the Pathname "{pathname}" ({requirement})'))
def _holds_pathname(world: World, name: str, pathname: str, requirement: str) -> None:
    found = (world.queue_state(OBJECTS[name]) or {}).get("Pathname")
    world.expect(requirement, found == pathname, f"Pathname is {found!r}, not {pathname!r}")


@then(parsers.parse("the outcome is the deletion's, whatever the target read ({requirement})"))
def _deletion_outcome(world: World, requirement: str) -> None:
    world.expect_outcome_whatever_was_read(requirement)


@then(parsers.parse("{name} now holds what the directory read returned ({requirement})"))
def _holds_read(world: World, name: str, requirement: str) -> None:
    is_qm = name == "the queue manager"
    problems = directory_copy_problems(
        world.setup.to_json(), world.state(), OBJECTS[name], queue_manager=is_qm
    )
    world.expect(requirement, not problems, "; ".join(problems))


@then(parsers.parse("the {attribute} of the queue manager is {value:d} ({requirement})"))
def _queue_manager_value(world: World, attribute: str, value: int, requirement: str) -> None:
    found = world.state()["queue_manager"].get(attribute)
    world.expect(requirement, found == value, f"{attribute} is {found!r}, not {value}")
