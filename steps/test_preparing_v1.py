"""Steps of features/3.3.5.2-preparing-v1.feature (3.3.5.2).

Each Then step asks :mod:`mqcn_model.sending` whether its requirement was violated by what the
client emitted; what the text states (a Command, the changed attributes…) is checked against
what the model derives from the scenario.
"""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then

from mqcn_suite.world import World
from steps._format_steps import *  # noqa: F403 - shared step definitions
from steps._format_steps import OBJECTS, attribute_names

scenarios("3.3.5.2-preparing-v1.feature")


@then(parsers.parse("the emitted message is made of Notification Updates ({requirement})"))
@then(
    parsers.parse(
        "the emitted update's PathName is the queue's path name, null-terminated ({requirement})"
    )
)
@then(parsers.parse("the emitted update carries no PathName ({requirement})"))
@then(
    parsers.parse(
        "the emitted update's GuidMasterId is the directory service's GUID ({requirement})"
    )
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
@then(
    parsers.parse(
        "the emitted NumberOfUpdateNotifications counts the updates in Data ({requirement})"
    )
)
@then(parsers.parse("the emitted PropertyIds are property identifiers of 2.2.2.1 ({requirement})"))
@then(parsers.parse("the emitted update carries all 15 creation PROPIDs ({requirement})"))
@then(
    parsers.parse("the emitted creation leaves out the queue's PROPID_Q_ADS_PATH ({requirement})")
)
@then(
    parsers.parse(
        "the emitted PropertyIds are PROPID_D_SCOPE then PROPID_D_OBJTYPE ({requirement})"
    )
)
@then(
    parsers.parse(
        "the emitted PropertyValues are MQDS_ENTERPRISESCOPE then MQDS_QUEUE ({requirement})"
    )
)
@then(
    parsers.parse(
        "the emitted machine update carries ignored extras, as note <11> says ({requirement})"
    )
)
def _emitted(world: World, requirement: str) -> None:
    world.expect_emitted(requirement)


@then(parsers.parse("the emitted update has Command {command} ({requirement})"))
def _command(world: World, command: str, requirement: str) -> None:
    world.expect_sent(requirement, command=int(command, 16))


@then(parsers.parse("the emitted update has UseGuid {use_guid} ({requirement})"))
def _use_guid(world: World, use_guid: str, requirement: str) -> None:
    world.expect_sent(requirement, use_guid=int(use_guid, 16))


@then(
    parsers.parse(
        "the emitted update's GuidIdentifier is the GUID of {object_name} ({requirement})"
    )
)
def _guid_identifier(world: World, object_name: str, requirement: str) -> None:
    world.expect_sent(requirement, object=OBJECTS[object_name])


_CARRIES = (
    r"the emitted update carries (?P<names>PROPID_\w+(?: and PROPID_\w+)*)"
    r" \((?P<requirement>[^)]+)\)"
)


@then(parsers.re(_CARRIES))
def _carries(world: World, names: str, requirement: str) -> None:
    world.expect_sent(requirement, required=[name.strip() for name in names.split(" and ")])


@then(
    parsers.parse(
        'the emitted update\'s other PROPIDs are exactly those of "{attributes}" ({requirement})'
    )
)
@then(
    parsers.parse(
        "the emitted machine update's other PROPIDs are listed ones covering "
        '"{attributes}" ({requirement})'
    )
)
@then(parsers.parse('the emitted values are the queue\'s values of "{attributes}" ({requirement})'))
@then(
    parsers.parse(
        'the emitted values are the queue manager\'s values of "{attributes}" ({requirement})'
    )
)
def _of_the_change(world: World, attributes: str, requirement: str) -> None:
    world.expect_sent(requirement, changed=attribute_names(attributes))


@then(
    parsers.parse(
        'the emitted creation carries the label "{label}" of the directory ({requirement})'
    )
)
def _label(world: World, label: str, requirement: str) -> None:
    world.expect_sent(requirement, label=label)
