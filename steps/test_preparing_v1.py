"""Steps of features/3.3.5.2-preparing-v1.feature (3.3.5.2)."""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_model import scenario_messages as sm
from mqcn_model.constants import (
    DELETE_PROPIDS,
    DELETE_VALUES,
    MACHINE_UPDATE_IGNORED,
    MACHINE_UPDATE_MODIFIABLE,
    MACHINE_UPDATE_REQUIRED,
    PROPERTIES,
    QUEUE_CREATE_REQUIRED,
    QUEUE_UPDATE_MODIFIABLE,
    QUEUE_UPDATE_REQUIRED,
    PropId,
)
from mqcn_model.render import value_to_json
from mqcn_suite.world import World, existing_queue
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import OBJECTS, all_updates, emitted_messages, propid_named

scenarios("3.3.5.2-preparing-v1.feature")


def _judge(world: World, requirement: str, condition: object, what: str) -> None:
    """Judge ``condition(update)`` on every emitted update (none emitted or unreadable: fail)."""
    updates = all_updates(world)
    holds = bool(updates) and all(condition(u) for u in updates)  # type: ignore[operator, union-attr]
    world.expect(requirement, holds, f"{what}; updates: {updates}")


def _attributes(text: str) -> list[str]:
    return [name.strip() for name in text.split(",")]


@then(parsers.parse("the emitted message is made of Notification Updates ({requirement})"))
def _of_updates(world: World, requirement: str) -> None:
    found = [(m.version, len(m.updates)) if m else None for m in emitted_messages(world)]
    world.expect(
        requirement, bool(found) and all(f and f[0] == 1 and f[1] for f in found), f"{found}"
    )


@then(parsers.parse("the emitted update has Command {command} ({requirement})"))
def _command(world: World, command: str, requirement: str) -> None:
    _judge(world, requirement, lambda u: u.command == int(command, 16), f"Command is not {command}")


@then(parsers.parse("the emitted update has UseGuid {use_guid} ({requirement})"))
def _use_guid(world: World, use_guid: str, requirement: str) -> None:
    _judge(
        world, requirement, lambda u: u.use_guid == int(use_guid, 16), f"UseGuid is not {use_guid}"
    )


@then(
    parsers.parse(
        "the emitted update's PathName is the queue's path name, null-terminated ({requirement})"
    )
)
def _path_name(world: World, requirement: str) -> None:
    wanted = existing_queue().Pathname
    _judge(world, requirement, lambda u: u.path_name == wanted, f"PathName is not {wanted!r}")


@then(parsers.parse("the emitted update carries no PathName ({requirement})"))
def _no_path_name(world: World, requirement: str) -> None:
    _judge(world, requirement, lambda u: u.path_name is None, "a PathName is present")


@then(
    parsers.parse(
        "the emitted update's GuidIdentifier is the GUID of {object_name} ({requirement})"
    )
)
def _guid_identifier(world: World, object_name: str, requirement: str) -> None:
    _judge(
        world,
        requirement,
        lambda u: u.guid_identifier == OBJECTS[object_name],
        "another GuidIdentifier",
    )


@then(
    parsers.parse(
        "the emitted update's GuidMasterId is the directory service's GUID ({requirement})"
    )
)
def _master(world: World, requirement: str) -> None:
    master = world.setup.client_identifier
    _judge(
        world, requirement, lambda u: u.guid_master_id == master, f"GuidMasterId is not {master}"
    )


@then(
    parsers.parse("the emitted update's NumberOfProperties counts its properties ({requirement})")
)
@then(parsers.parse("the emitted PropertyId array has NumberOfProperties elements ({requirement})"))
@then(
    parsers.parse(
        "the emitted Data holds the updates back to back and nothing else ({requirement})"
    )
)
def _layout(world: World, requirement: str) -> None:
    problems = [p for p in (sm.layout_problem(e.body) for e in world.emitted) if p]
    world.expect(
        requirement, bool(world.emitted) and not problems, "; ".join(problems) or "nothing emitted"
    )


@then(
    parsers.parse(
        "the emitted NumberOfUpdateNotifications counts the updates in Data ({requirement})"
    )
)
def _update_count(world: World, requirement: str) -> None:
    found = [
        (m.count, len(m.updates), len(m.trailing)) if m else None for m in emitted_messages(world)
    ]
    good = bool(found) and all(f and f[0] == f[1] and f[2] <= 1 for f in found)
    world.expect(requirement, good, f"(count, updates, trailing bytes): {found}")


@then(parsers.parse("the emitted PropertyIds are property identifiers of 2.2.2.1 ({requirement})"))
def _known_propids(world: World, requirement: str) -> None:
    _judge(
        world,
        requirement,
        lambda u: all(p in PROPERTIES for p in u.propids),
        "an unknown PropertyId",
    )


@then(parsers.parse("the emitted update carries all 15 creation PROPIDs ({requirement})"))
def _creation_set(world: World, requirement: str) -> None:
    _judge(
        world,
        requirement,
        lambda u: set(QUEUE_CREATE_REQUIRED) <= set(u.propids),
        "a creation PROPID is missing",
    )


@then(
    parsers.parse("the emitted creation leaves out the queue's PROPID_Q_ADS_PATH ({requirement})")
)
def _no_ads_path(world: World, requirement: str) -> None:
    _judge(
        world,
        requirement,
        lambda u: PropId.PROPID_Q_ADS_PATH not in u.propids,
        "PROPID_Q_ADS_PATH is present",
    )


_CARRIES = (
    r"the emitted update carries (?P<names>PROPID_\w+(?: and PROPID_\w+)*)"
    r" \((?P<requirement>[^)]+)\)"
)


@then(parsers.re(_CARRIES))
def _carries(world: World, names: str, requirement: str) -> None:
    wanted = {propid_named(n.strip()) for n in names.split(" and ")}
    _judge(world, requirement, lambda u: wanted <= set(u.propids), f"{names} missing")


@then(
    parsers.parse(
        'the emitted update\'s other PROPIDs are exactly those of "{attributes}" ({requirement})'
    )
)
def _queue_rest(world: World, attributes: str, requirement: str) -> None:
    wanted = sm.propids_for(_attributes(attributes), of_queue_manager=False)
    assert wanted <= set(QUEUE_UPDATE_MODIFIABLE), (
        "the feature names an attribute a queue update cannot carry"
    )
    rest = lambda u: set(u.propids) - set(QUEUE_UPDATE_REQUIRED)  # noqa: E731
    _judge(
        world,
        requirement,
        lambda u: rest(u) == wanted,
        f"the changed PROPIDs are not {sorted(wanted)}",
    )


_MACHINE_REST = (
    "the emitted machine update's other PROPIDs are listed ones covering "
    '"{attributes}" ({requirement})'
)


@then(parsers.parse(_MACHINE_REST))
def _machine_rest(world: World, attributes: str, requirement: str) -> None:
    wanted = sm.propids_for(_attributes(attributes), of_queue_manager=True)
    listed = set(MACHINE_UPDATE_MODIFIABLE) | set(MACHINE_UPDATE_IGNORED)
    rest = lambda u: set(u.propids) - set(MACHINE_UPDATE_REQUIRED)  # noqa: E731
    _judge(
        world,
        requirement,
        lambda u: wanted <= rest(u) <= listed,
        f"the other PROPIDs are not {sorted(wanted)}",
    )


@then(parsers.parse('the emitted values are the queue\'s values of "{attributes}" ({requirement})'))
def _queue_values(world: World, attributes: str, requirement: str) -> None:
    queue = existing_queue(**sm.distinctive_queue_attributes()).to_json()
    _values_match(
        world, requirement, {name: queue[name] for name in _attributes(attributes)}, False
    )


@then(
    parsers.parse(
        'the emitted values are the queue manager\'s values of "{attributes}" ({requirement})'
    )
)
def _qm_values(world: World, attributes: str, requirement: str) -> None:
    qm = sm.queue_manager_attributes()
    _values_match(world, requirement, {name: qm[name] for name in _attributes(attributes)}, True)


def _values_match(world: World, requirement: str, wanted: dict[str, object], of_qm: bool) -> None:
    by_propid = {next(iter(sm.propids_for([name], of_qm))): value for name, value in wanted.items()}
    found = [
        {pid: value_to_json(v) for pid, v in sm.propid_values(u).items() if pid in by_propid}
        for u in all_updates(world) or []
    ]
    world.expect(requirement, found == [by_propid], f"values {found}, expected {by_propid}")


@then(
    parsers.parse(
        "the emitted PropertyIds are PROPID_D_SCOPE then PROPID_D_OBJTYPE ({requirement})"
    )
)
def _deletion_ids(world: World, requirement: str) -> None:
    _judge(
        world,
        requirement,
        lambda u: u.propids == DELETE_PROPIDS,
        "not exactly (PROPID_D_SCOPE, PROPID_D_OBJTYPE)",
    )


@then(
    parsers.parse(
        "the emitted PropertyValues are MQDS_ENTERPRISESCOPE then MQDS_QUEUE ({requirement})"
    )
)
def _deletion_values(world: World, requirement: str) -> None:
    values = lambda u: tuple(p.value for p in u.properties[:2])  # noqa: E731
    _judge(
        world,
        requirement,
        lambda u: values(u) == DELETE_VALUES,
        "not (MQDS_ENTERPRISESCOPE, MQDS_QUEUE)",
    )


@then(
    parsers.parse(
        "the emitted machine update carries ignored extras, as note <11> says ({requirement})"
    )
)
def _extras(world: World, requirement: str) -> None:
    _judge(
        world,
        requirement,
        lambda u: bool(set(u.propids) & set(MACHINE_UPDATE_IGNORED)),
        "no extra properties",
    )
