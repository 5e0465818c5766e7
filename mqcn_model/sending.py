"""What a client's emitted MSMQ Messages must satisfy (3.3.x), as rules over envelopes.

The scenarios of the client side ask one question: which requirements do the messages a
target's client emitted break?  :func:`sending_violations` answers it for a sequence of
:class:`~mqcn_model.envelope.Envelope` objects and a :class:`SendingContext` (what the
scenario asked the client to do, and what the directory holds), under given errata readings.
It returns :class:`~mqcn_model.errors.Violation` objects with requirement IDs, like the codec
and the content rules, so a step only asks whether requirement X was violated.

Three kinds of judgement meet here:

* the **message format** (2.2.x) and the **content rules** of :mod:`mqcn_model.rules`, through
  :func:`mqcn_model.judge.judge` on each body: they name exactly the requirement a byte breaks;
* **rules that compare a message with what was asked** (3.3.5.1, 3.3.5.2, 3.3.5.3, 2.2.4-1,
  2.2.5-3/-4, product notes): each is a small function registered with :func:`rule` under its
  requirement ID (grep the ID to land on it).  When such a rule needs the decoded message and
  the message cannot be read, the blame goes to the requirement whose breach stopped the
  codec (it is broken); the rule's requirement is :class:`Stopped` by it, neither met nor
  broken (:func:`sending_judgement`);
* **aggregates**: "send it as 3.3.5.3 says" (3.3.4.1-3, 3.3.5.1-11, 3.3.5.2-28) and "prepare
  it per 3.3.5.1 / 3.3.5.2" (3.3.4.1-2) are broken by every MUST those sections' rules find.

Every rule takes the ``readings``: where an errata item lets a sender choose (E-01
``</ObjectGuid >``, E-05 bytes after the spare byte, E-11 extra PROPIDs, E-10/E-13 through the
codec), a target following the other reading is not failed under that reading.

>>> import uuid
>>> from mqcn_model.client import NotificationClient, Operation
>>> from mqcn_model.adm import Queue
>>> client = NotificationClient(uuid.UUID(int=1), version=1)
>>> queue, owner = Queue(uuid.UUID(int=3), Pathname="qm\\\\q"), uuid.UUID(int=9)
>>> sent = client.send_change_notification(Operation.QueueDeletion, queue, owner=owner)
>>> context = SendingContext(
...     client_identifier=uuid.UUID(int=1),
...     version=1,
...     notifications=(Notification(Operation.QueueDeletion, queue, owner),),
... )
>>> sending_violations([sent], context)
[]
>>> late = sent.with_(time_to_reach_queue=60)
>>> sorted({v.requirement for v in sending_violations([late], context)})
['MQCN-3.3.4.1-3', 'MQCN-3.3.5.2-28', 'MQCN-3.3.5.3-2']
"""

from __future__ import annotations

import struct
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

from mqcn_model.adm import Queue, QueueManager
from mqcn_model.catalog import CATALOG, req
from mqcn_model.codec.message import ChangeNotificationMessage, decode_message
from mqcn_model.codec.propvalue import encode_value
from mqcn_model.codec.update import NotificationUpdate
from mqcn_model.constants import (
    DELETE_PROPIDS,
    MACHINE_UPDATE_IGNORED,
    MACHINE_UPDATE_MODIFIABLE,
    MACHINE_UPDATE_REQUIRED,
    OPERATION_COMMAND,
    OPERATION_EVENT,
    PROPERTIES,
    QM_ATTRIBUTE_OF,
    QUEUE_ATTRIBUTE_OF,
    QUEUE_CREATE_REQUIRED,
    QUEUE_UPDATE_MODIFIABLE,
    QUEUE_UPDATE_REQUIRED,
    TIME_TO_REACH_QUEUE_SECONDS,
    VT,
    AuthLevel,
    DeliveryGuarantee,
    Event,
    HashAlgorithm,
    MessageClass,
    Operation,
    PropId,
    SenderIdType,
    Version,
    notify_queue_format_name,
    same_format_name,
)
from mqcn_model.envelope import Envelope
from mqcn_model.errata import STRICT, SWITCHES, Readings
from mqcn_model.errors import Violation
from mqcn_model.json_views import value_to_json
from mqcn_model.judge import Verdict, judge

__all__ = [
    "AGGREGATES",
    "Judgement",
    "Notification",
    "SendingContext",
    "Stopped",
    "default_hash_algorithm",
    "judged_unread",
    "open_queue_violations",
    "sending_judgement",
    "sending_violations",
    "statement_problem",
    "value_mismatch",
]

_V1, _V2 = int(Version.DIRECTORY_SERVICE), int(Version.QUEUE_MANAGER)
_QUEUE_OPERATIONS = frozenset(
    {Operation.QueueCreation, Operation.QueueUpdate, Operation.QueueDeletion}
)
_BY_GUID = frozenset({Operation.QueueUpdate, Operation.QueueDeletion, Operation.QueueManagerUpdate})
_ALL_OPERATIONS = frozenset(Operation)
_REQUIRED: dict[Operation, tuple[PropId, ...]] = {  # PROPIDs 3.3.5.2 requires per operation
    Operation.QueueCreation: QUEUE_CREATE_REQUIRED,
    Operation.QueueUpdate: QUEUE_UPDATE_REQUIRED,
    Operation.QueueDeletion: DELETE_PROPIDS,
    Operation.QueueManagerUpdate: MACHINE_UPDATE_REQUIRED,
}
_SPARE_PROBES = (0x00, 0x3C, 0xFF)  # values the 3.3.5.3 spare byte is tried with
_MAX_SEQUENCE = 0xFFFF_FFFF  # the 4-byte ordinal of PROPID_M_MSGID


# --- what the scenario asked -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Notification:
    """One Send Change Notification (3.3.4.1) the scenario raised, as a conforming client sees it.

    ``subject`` is iDirectoryObject as the directory holds it (its attributes are the values
    a Version 0x01 message must carry); ``owner`` the queue manager it belongs to — the
    destination, and for Version 0x01 the SenderIdentifier (errata E-21); a QueueManager owns
    itself.  ``changed`` names the ADM attributes a change modified (updates only);
    ``messages`` is how many Messages the client emitted for it, in emission order.
    """

    operation: Operation
    subject: Queue | QueueManager
    owner: uuid.UUID
    changed: tuple[str, ...] = ()
    messages: int = 1


@dataclass(frozen=True, slots=True)
class SendingContext:
    """What the scenario asked of the client, and what it knows the answer must be.

    Unknown parts (None, empty) are not judged: a rule that needs them stays silent.
    """

    client_identifier: uuid.UUID | None = None  # sender: PROPID_M_MSGID's GUID, GuidMasterId
    msmq_version: str = "6.0"  # of the product profile (HashAlgorithm E-16, Sig10 note <13>)
    opened_format_name: str | None = None  # what 3.3.3 opened, if the scenario asked
    version: int | None = None  # the Version the client was asked to send (Setup.client_version)
    product_version: int | None = None  # the Version the profile's product sends (notes <1> …)
    product_profile: bool = False  # a Windows profile: its product-behaviour notes apply
    server_name: str | None = None  # the directory server a queue-manager client names (3.3.5.1)
    notifications: tuple[Notification, ...] = ()  # every Send Change Notification, in order
    directory_queues: frozenset[uuid.UUID] = field(default_factory=frozenset)
    directory_queue_managers: frozenset[uuid.UUID] = field(default_factory=frozenset)


# --- one emitted message as the rules see it ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Emission:
    """One emitted Message: the envelope, the codec's verdict on its body (under the readings
    in force), the notification it answers (None when the context does not say), and the
    Version it must have (the one asked, else the one it claims)."""

    index: int
    envelope: Envelope
    verdict: Verdict
    notification: Notification | None
    version: int | None

    @property
    def body(self) -> bytes:
        return self.envelope.body

    @property
    def message(self) -> ChangeNotificationMessage | None:
        return self.verdict.message

    @property
    def updates(self) -> tuple[NotificationUpdate, ...]:
        return self.message.updates if self.message is not None else ()

    @property
    def unreadable(self) -> str:
        """Why the codec could not read the body ("" when it could)."""
        if self.message is not None:
            return ""
        return str(self.verdict.violations[0]) if self.verdict.violations else "no message"


def read_emissions(
    emitted: Sequence[Envelope], context: SendingContext, readings: Readings = STRICT
) -> list[Emission]:
    """Pair each emitted Message with the notification it answers (by the per-notification
    counts of the context) and the codec's verdict on its body under ``readings``."""
    answering: list[Notification | None] = [
        n for n in context.notifications for _ in range(n.messages)
    ]
    answering += [None] * (len(emitted) - len(answering))
    emissions = []
    for index, (envelope, notification) in enumerate(zip(emitted, answering, strict=False)):
        claimed = envelope.body[0] if envelope.body[:1] in (b"\x01", b"\x02") else None
        version = context.version if context.version is not None else claimed
        emissions.append(
            Emission(index, envelope, judge(envelope.body, readings), notification, version)
        )
    return emissions


# --- the registry ------------------------------------------------------------------------------

Check = Callable[[Emission, SendingContext, Readings], Iterable[str]]
ScenarioCheck = Callable[[Sequence[Emission], SendingContext, Readings], Iterable[str]]


@dataclass(frozen=True, slots=True)
class Rule:
    """A per-message rule: ``check`` yields one sentence per problem with ``requirement``.

    It runs on messages that must have Version ``sender`` (None: any) and that answer one of
    ``operations`` (None: any, even with no known notification); a product-behaviour note's
    rule only where the context follows a product profile.  With ``decoded`` it needs the
    message the codec read (of Version ``sender``): on a message it cannot read the rule is
    stopped (:meth:`stopped_by`), the breach that made it unreadable is what fails.
    """

    requirement: str
    check: Check
    sender: int | None
    decoded: bool
    operations: frozenset[Operation] | None
    version_known: bool = False  # judges which of the two Versions was sent

    @property
    def product_note(self) -> bool:
        """A product-behaviour note: judged only when the client follows a Windows profile."""
        return CATALOG[self.requirement].keyword == "PRODUCT"

    def applies_to(self, emission: Emission, context: SendingContext) -> bool:
        if self.sender is not None and emission.version != self.sender:
            return False
        if self.product_note and not context.product_profile:
            return False
        if self.operations is None:
            return True
        return emission.notification is not None and (
            emission.notification.operation in self.operations
        )

    def stopped_by(self, emission: Emission) -> Violation | None:
        """The breach that keeps this rule from judging the message (None: it can judge it).

        A rule that needs the decoded message cannot judge a body the codec cannot read:
        the requirement whose breach stopped the codec is the one broken (it is reported on
        its own), this rule's requirement is stopped by it.  A message read as the other
        Version is stopped by the Version its sender must write (2.2.4-1).
        """
        if self.version_known and emission.body[:1] not in (b"\x01", b"\x02"):
            # which Version a sender chose is judged only among the two that exist
            text = f"Version is {_version(emission)}, which no sender may write"
            return Violation(req("MQCN-2.2.4-1"), 0, text)
        if not self.decoded:
            return None
        if emission.message is None:
            if emission.verdict.violations:
                return emission.verdict.violations[0]
            return Violation(req("MQCN-2.2.4-1"), 0, "no message")
        if self.sender is not None and emission.message.version != self.sender:
            text = f"is a Version 0x{emission.message.version:02x} message, not 0x{self.sender:02x}"
            return Violation(req("MQCN-2.2.4-1"), 0, text)
        return None


RULES: list[Rule] = []
SCENARIO_RULES: list[tuple[str, ScenarioCheck]] = []


def rule(
    requirement: str,
    *,
    sender: int | None = None,
    decoded: bool = False,
    operations: Iterable[Operation] | None = None,
    version_known: bool = False,
) -> Callable[[Check], Check]:
    """Register ``check`` as a :class:`Rule` of ``requirement`` (stackable: one function may
    judge several requirements).  ``version_known``: the rule judges which of Version 0x01
    and 0x02 a sender chose, so a Version byte that is neither stops it (MQCN-2.2.4-1, no
    other value exists, is what breaks)."""
    ops = frozenset(operations) if operations is not None else None

    def register(check: Check) -> Check:
        RULES.append(Rule(req(requirement), check, sender, decoded, ops, version_known))
        return check

    return register


def scenario_rule(requirement: str) -> Callable[[ScenarioCheck], ScenarioCheck]:
    """Register a rule over all the messages of a scenario (uniqueness, one per notification)."""

    def register(check: ScenarioCheck) -> ScenarioCheck:
        SCENARIO_RULES.append((req(requirement), check))
        return check

    return register


def _names(propids: Iterable[int]) -> str:
    return ", ".join(sorted(PropId(p).name for p in propids)) or "none"


def _propids_of(changed: Iterable[str], table: Mapping[PropId, str]) -> set[int]:
    """The PROPIDs that carry the named ADM attributes (3.1.1.2.1, 3.1.1.3)."""
    wanted = set(changed)
    return {int(pid) for pid, name in table.items() if name in wanted}


def _version(emission: Emission) -> str:
    """The Version byte of an emitted body as hex ("missing" for an empty body)."""
    return emission.body[:1].hex() or "missing"


def _notification(emission: Emission) -> Notification:
    assert emission.notification is not None  # guaranteed by Rule.applies_to (operations set)
    return emission.notification


# --- 2.2.4 / 2.2.5 on emitted messages (what the codec cannot know) --------------------------


@rule("MQCN-2.2.4-1")
def version_of_the_sender(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """A directory service sends Version 0x01, a queue manager 0x02 (the kind asked)."""
    if context.version is not None and e.body[:1] != bytes((context.version,)):
        yield f"Version is {_version(e)}, the client was asked for 0x{context.version:02x}"


@rule("MQCN-2.2.4-2", sender=_V2)
def v2_count_is_one(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """A Version 0x02 Data carries one Notification Body, so the count is 1.  (For Version
    0x01 the codec and :mod:`mqcn_model.rules` judge the count against the updates, E-05.)
    The count is byte 1 whatever follows, so a body the codec cannot read is judged too."""
    count = e.body[1] if len(e.body) > 1 else None
    if count != 1:
        yield f"NumberOfUpdateNotifications is {count}, but Data carries one Notification Body"


@rule("MQCN-2.2.5-3", sender=_V2, decoded=True, operations=_ALL_OPERATIONS)
@rule("MQCN-3.3.5.1-4", sender=_V2, decoded=True, operations=_ALL_OPERATIONS)
def object_guid_is_the_subject(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """ObjectGuid is the GUID of the queue or machine object that changed."""
    wanted = _notification(e).subject.Identifier
    if e.message and e.message.body and e.message.body.object_guid != wanted:
        yield f"ObjectGuid is {e.message.body.object_guid}, the changed object is {wanted}"


@rule("MQCN-2.2.5-4", sender=_V2, decoded=True)
def object_guid_is_a_directory_object(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """The object ObjectGuid names is a queue (events 1-3) or machine (event 4) object of the
    directory (judged when the context knows the directory)."""
    body = e.message.body if e.message else None
    if body is None or not (context.directory_queues or context.directory_queue_managers):
        return
    machine = body.event == Event.CHANGE_MACHINE
    known = context.directory_queue_managers if machine else context.directory_queues
    if body.object_guid not in known:
        kind = "machine" if machine else "queue"
        yield f"Event {body.event} names {body.object_guid}, which is no {kind} object"


# --- 2.2.6 on emitted updates: how UseGuid and the naming fields go together -------------------
# The codec reads the bytes after UseGuid as a PathName (0x00) or a GuidIdentifier (0x01), so an
# update it read keeps these; a body it could not read breaks the requirement it names
# (MQCN-2.2.6-3 for another UseGuid, -4 for an unterminated PathName, -7 for a cut GUID), and
# stops these rules (they need the updates read).


@rule("MQCN-2.2.6-2", sender=_V1, decoded=True)
def guid_identifier_means_use_guid_1(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """An update that carries GuidIdentifier has UseGuid 0x01."""
    for update in e.updates:
        if update.guid_identifier is not None and update.use_guid != 1:
            yield f"a GuidIdentifier with UseGuid 0x{update.use_guid:02x}"


@rule("MQCN-2.2.6-3", sender=_V1, decoded=True)
def otherwise_use_guid_0_and_path_name(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """An update without GuidIdentifier has UseGuid 0x00 and a PathName."""
    for update in e.updates:
        if update.guid_identifier is None and (update.use_guid != 0 or update.path_name is None):
            yield f"UseGuid 0x{update.use_guid:02x} without a GuidIdentifier"


@rule("MQCN-2.2.6-6", sender=_V1, decoded=True)
def no_path_name_with_use_guid_1(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """An update with UseGuid 0x01 carries no PathName."""
    for update in e.updates:
        if update.use_guid == 1 and update.path_name is not None:
            yield f"UseGuid 0x01 with the PathName {update.path_name!r}"


@rule("MQCN-2.2.6-7", sender=_V1, decoded=True)
def guid_identifier_with_use_guid_1(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """An update with UseGuid 0x01 carries a 16-byte GuidIdentifier."""
    for update in e.updates:
        if update.use_guid == 1 and update.guid_identifier is None:
            yield "UseGuid 0x01 without a GuidIdentifier"


# --- 3.3.5.1 Preparing a Version 0x02 message ----------------------------------------------------


@rule("MQCN-3.3.5.1-1", sender=_V2, decoded=True)
@rule("MQCN-3.3.5.1-2", sender=_V2, decoded=True)
def carries_a_notification_body(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """The message carries a Notification Body the codec read by the 2.2.5 ABNF."""
    if e.message is not None and e.message.body is None:
        yield "the message carries no Notification Body"


@rule("MQCN-3.3.5.1-3", sender=_V2, decoded=True, operations=_ALL_OPERATIONS)
def event_of_the_operation(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """Event 1 created queue, 2 changed queue, 3 deleted queue, 4 changed machine."""
    operation = _notification(e).operation
    wanted = OPERATION_EVENT[operation]
    if e.message and e.message.body and e.message.body.event != wanted:
        yield f"Event is {e.message.body.event}, {operation.name} is Event {int(wanted)}"


@rule("MQCN-3.3.5.1-5", sender=_V2, decoded=True)
def domain_controller_is_the_server(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """DomainController names the directory server the change was made on."""
    body = e.message.body if e.message else None
    named = context.server_name
    if body is not None and named is not None and body.domain_controller != named:
        yield f"DomainController is {body.domain_controller!r}, not {context.server_name!r}"


@rule("MQCN-3.3.5.1-6", sender=_V2, version_known=True)
def version_is_0x02(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """A queue manager's message has Version 0x02."""
    if e.body[:1] != b"\x02":
        yield f"Version is {_version(e)}, not 02"


@rule("MQCN-3.3.5.1-9", sender=_V2, decoded=True)
def data_is_the_body_alone(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """Data holds the Notification Body and nothing else (the spare byte aside)."""
    if e.message is not None and len(e.message.trailing) > 1:
        yield f"{len(e.message.trailing)} bytes follow the Notification Body"


# --- 3.3.5.2 Preparing a Version 0x01 message ----------------------------------------------------


@rule("MQCN-3.3.5.2-1", sender=_V1, decoded=True)
def made_of_updates(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """The message is made of Notification Updates (at least one: it notifies a change)."""
    if not e.updates:
        yield "the message carries no Notification Update"


@rule("MQCN-3.3.5.2-2", sender=_V1, decoded=True, operations={Operation.QueueCreation})
@rule(
    "MQCN-3.3.5.2-3",
    sender=_V1,
    decoded=True,
    operations={Operation.QueueUpdate, Operation.QueueManagerUpdate},
)
@rule("MQCN-3.3.5.2-4", sender=_V1, decoded=True, operations={Operation.QueueDeletion})
def command_of_the_operation(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """Command 0x00 creates a queue, 0x01 updates a queue or machine, 0x02 deletes a queue."""
    operation = _notification(e).operation
    wanted = OPERATION_COMMAND[operation]
    for update in e.updates:
        if update.command != wanted:
            yield f"Command is 0x{update.command:02x}, {operation.name} is 0x{int(wanted):02x}"


@rule("MQCN-3.3.5.2-5", sender=_V1, decoded=True, operations={Operation.QueueCreation})
def creation_names_by_path(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """A creation uses UseGuid 0x00 (PathName)."""
    for update in e.updates:
        if update.use_guid != 0:
            yield f"a creation has UseGuid 0x{update.use_guid:02x}, not 0x00"


@rule("MQCN-3.3.5.2-6", sender=_V1, decoded=True, operations=_BY_GUID)
def others_name_by_guid(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """An update or deletion uses UseGuid 0x01 (GuidIdentifier)."""
    for update in e.updates:
        if update.use_guid != 1:
            yield f"Command 0x{update.command:02x} has UseGuid 0x{update.use_guid:02x}, not 0x01"


@rule("MQCN-3.3.5.2-7", sender=_V1, decoded=True, operations={Operation.QueueCreation})
def path_name_is_the_queues(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """A creation's PathName is present, null-terminated (the codec read it so) and the
    queue's path name."""
    wanted = _notification(e).subject.Pathname  # type: ignore[union-attr]
    for update in e.updates:
        if update.path_name != wanted:
            yield f"PathName is {update.path_name!r}, the queue's path name is {wanted!r}"


@rule("MQCN-3.3.5.2-8", sender=_V1, decoded=True, operations=_BY_GUID)
def no_path_name_with_guid(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """An update or deletion (UseGuid 0x01) leaves PathName out."""
    for update in e.updates:
        if update.path_name is not None:
            yield f"Command 0x{update.command:02x} carries the PathName {update.path_name!r}"


@rule("MQCN-3.3.5.2-9", sender=_V1, decoded=True, operations=_BY_GUID)
def guid_identifier_is_the_subject(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """GuidIdentifier is the GUID of the queue or machine object that changed."""
    wanted = _notification(e).subject.Identifier
    for update in e.updates:
        if update.guid_identifier != wanted:
            yield f"GuidIdentifier is {update.guid_identifier}, the changed object is {wanted}"


@rule("MQCN-3.3.5.2-10", sender=_V1, decoded=True)
def master_is_the_directory_service(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """GuidMasterId is the GUID of the directory service that sends the notification."""
    wanted = context.client_identifier
    for update in e.updates:
        if wanted is not None and update.guid_master_id != wanted:
            yield f"GuidMasterId is {update.guid_master_id}, not {wanted}"


@rule("MQCN-3.3.5.2-11", sender=_V1, decoded=True)
@rule("MQCN-3.3.5.2-12", sender=_V1, decoded=True)
@rule("MQCN-3.3.5.2-13", sender=_V1, decoded=True)
@rule("MQCN-3.3.5.2-25", sender=_V1, decoded=True)
def read_by_the_codec(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """Counts and identifiers the codec checks while reading (NumberOfProperties and the two
    arrays, known PROPIDs, NumberOfUpdateNotifications against the updates): a message it
    read keeps them; one it could not read breaks them.  (Bytes after the updates are judged
    by :mod:`mqcn_model.rules`, reading E-05.)"""
    return ()


@rule("MQCN-3.3.5.1-7", sender=_V2, decoded=True)
@rule("MQCN-3.3.5.2-14", sender=_V1, decoded=True, operations={Operation.QueueCreation})
@rule("MQCN-3.3.5.2-15", sender=_V1, decoded=True, operations={Operation.QueueCreation})
@rule("MQCN-3.3.5.2-17", sender=_V1, decoded=True, operations={Operation.QueueUpdate})
@rule("MQCN-3.3.5.2-19", sender=_V1, decoded=True, operations={Operation.QueueManagerUpdate})
@rule("MQCN-3.3.5.2-21", sender=_V1, decoded=True, operations={Operation.QueueDeletion})
@rule("MQCN-3.3.5.2-23", sender=_V1, decoded=True, operations={Operation.QueueDeletion})
def judged_by_the_content_rules(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """Property sets and values :func:`mqcn_model.rules.check_update` judges on every decoded
    update (creation's 15 PROPIDs and no ADS_PATH, PROPID_Q_QMID, MACHINE_ID and FOREIGN,
    the deletion's pair and values — reading E-11 —, the Version 0x02 count): their
    violations come through :func:`~mqcn_model.judge.judge`.  Registered so that a message
    the codec cannot read, or of the wrong Version, breaks them."""
    return ()


@rule("MQCN-3.3.5.2-18", sender=_V1, decoded=True, operations={Operation.QueueUpdate})
def queue_update_carries_the_change(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """Besides PROPID_Q_QMID a queue update carries exactly the modified properties.  Under
    E-11's other reading other PROPIDs may ride along, but every modified one is there."""
    wanted = _propids_of(_notification(e).changed, QUEUE_ATTRIBUTE_OF)
    for update in e.updates:
        yield from _rest_is_the_change(
            update, QUEUE_UPDATE_REQUIRED, QUEUE_UPDATE_MODIFIABLE, wanted, r
        )


@rule("MQCN-3.3.5.2-20", sender=_V1, decoded=True, operations={Operation.QueueManagerUpdate})
def machine_update_carries_the_change(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """Besides MACHINE_ID and FOREIGN a machine update carries exactly the modified properties
    of the three modifiable ones (the four ignored extras may ride along; what else is not
    listed, :mod:`mqcn_model.rules` judges, reading E-11)."""
    wanted = _propids_of(_notification(e).changed, QM_ATTRIBUTE_OF)
    for update in e.updates:
        yield from _rest_is_the_change(
            update, MACHINE_UPDATE_REQUIRED, MACHINE_UPDATE_MODIFIABLE, wanted, r
        )


def _rest_is_the_change(
    update: NotificationUpdate,
    required: Iterable[int],
    modifiable: Iterable[int],
    wanted: set[int],
    readings: Readings,
) -> Iterator[str]:
    """The PROPIDs beyond ``required``: of the ``modifiable`` ones exactly the ``wanted``
    (strict), or at least the ``wanted`` among any (E-11's other reading)."""
    rest = set(update.propids) - set(required)
    wanted = wanted & set(modifiable)
    if readings.extra_update_propids:  # E-11: extras allowed, the change still carried
        if not wanted <= rest:
            yield f"the modified {_names(wanted - rest)} missing (carries {_names(rest)})"
    elif rest & set(modifiable) != wanted:
        found = rest & set(modifiable)
        yield f"carries the modifiable {_names(found)}, the change modified {_names(wanted)}"


@rule("MQCN-3.3.5.2-22", sender=_V1, decoded=True, operations=_ALL_OPERATIONS)
def values_are_the_directorys(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """Each property that carries an attribute of the object holds the directory's value of
    it (PROPID_Q_QMID: the owner; PROPID_QM_FOREIGN: ForeignSystem; …).  The [MS-MQMQ] rules
    for each value (E-10, E-13) are :mod:`mqcn_model.values`'s, through the judge."""
    notification = _notification(e)
    for update in e.updates:
        for prop in update.properties:
            known, wanted = _directory_value(notification, prop.propid)
            found, wanted = value_to_json(prop.value), value_to_json(wanted)
            if known and found != wanted:
                yield f"{prop.name} is {found!r}, the directory holds {wanted!r}"


def _directory_value(notification: Notification, propid: int) -> tuple[bool, Any]:
    """(True, the directory's value) when ``propid`` carries an attribute of the subject."""
    subject = notification.subject
    if isinstance(subject, QueueManager):
        name = QM_ATTRIBUTE_OF.get(propid)  # type: ignore[call-overload]
    elif propid == PropId.PROPID_Q_QMID:
        return True, notification.owner
    else:
        name = QUEUE_ATTRIBUTE_OF.get(propid)  # type: ignore[call-overload]
    return (False, None) if name is None else (True, getattr(subject, name))


def value_mismatch(
    vt_requirement: str, propid: int, found: Sequence[Any], wanted: Any
) -> tuple[str, str] | None:
    """Which requirement an emitted creation breaks when ``found`` (the value of ``propid``
    in each update; None: not carried) is not the directory's one ``wanted`` value, and why;
    None when it is.

    A VT requirement (2.2.3.x, ``vt_requirement``) judges how a value is written, not which
    value is sent: only a value whose bytes are the directory's value's bytes in another
    order (a byte-order slip) breaks it.  Any other decodable value is merely another value
    (3.3.5.2-22: the directory's value is sent); a missing property breaks the creation's
    property set (3.3.5.2-14), a message with no update at all 3.3.5.2-1.

    >>> from mqcn_model.constants import PropId
    >>> value_mismatch("MQCN-2.2.3.1-1", PropId.PROPID_Q_BASEPRIORITY, [511], -255)[0]
    'MQCN-2.2.3.1-1'
    >>> value_mismatch("MQCN-2.2.3.1-1", PropId.PROPID_Q_BASEPRIORITY, [7], -255)[0]
    'MQCN-3.3.5.2-22'
    >>> value_mismatch("MQCN-2.2.3.1-1", PropId.PROPID_Q_BASEPRIORITY, [-255], -255) is None
    True
    """
    name = _propid_name(propid)
    if [value_to_json(f) for f in found] == [value_to_json(wanted)]:
        return None
    if not found:
        return req("MQCN-3.3.5.2-1"), "the message carries no Notification Update"
    for value in found:
        if value is None:
            return req("MQCN-3.3.5.2-14"), f"the creation does not carry {name}"
        if value_to_json(value) == value_to_json(wanted):
            continue
        if _reordered(PROPERTIES[PropId(propid)].vt, value, wanted):
            return req(vt_requirement), (
                f"{name} read as {value_to_json(value)!r}: the bytes of the directory's "
                f"{value_to_json(wanted)!r} in another order"
            )
        return req("MQCN-3.3.5.2-22"), (
            f"{name} is {value_to_json(value)!r}, the directory holds {value_to_json(wanted)!r}"
        )
    found_json = [value_to_json(f) for f in found]
    return req(vt_requirement), f"{name} read as {found_json}, the directory holds one value"


def _propid_name(propid: int) -> str:
    try:
        return PropId(propid).name
    except ValueError:
        return f"PROPID {propid}"


def _reordered(vt: VT, value: Any, wanted: Any) -> bool:
    """Are the wire bytes of ``value`` those of ``wanted`` in another order?"""
    try:
        found_bytes, wanted_bytes = encode_value(vt, value), encode_value(vt, wanted)
    except (ValueError, TypeError, UnicodeError, OverflowError, struct.error):
        return False
    return found_bytes != wanted_bytes and sorted(found_bytes) == sorted(wanted_bytes)


@rule("MQCN-3.3.5.2-24", sender=_V1, version_known=True)
def version_is_0x01(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """A directory service's message has Version 0x01."""
    if e.body[:1] != b"\x01":
        yield f"Version is {_version(e)}, not 01"


@rule("MQCN-3.3.5.2-26", sender=_V1, decoded=True)
def data_is_the_updates_alone(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """Data holds the updates back to back and nothing else: at most the spare byte follows
    (under E-05's other reading, any bytes may)."""
    if e.message is not None and len(e.message.trailing) > 1 and not r.trailing_data:
        yield f"{len(e.message.trailing)} bytes follow the announced updates"


@rule("MQCN-3.3.5.1-10", sender=_V2, decoded=True)
@rule("MQCN-3.3.5.2-27", sender=_V1, decoded=True)
@rule("MQCN-3.3.5.3-9", decoded=True)
@rule("MQCN-3.3.5.3-10", decoded=True)
def body_is_the_message(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """The Message's Body is the body buffer, the message from its first byte: the codec
    reads a Change Notification Message from byte 0."""
    return ()


# --- 3.3.5.3 Sending: the Message around the body ---------------------------------------------


def default_hash_algorithm(msmq_version: str) -> HashAlgorithm:
    """The default HashAlgorithm of an MSMQ version (errata E-16: [MS-MQMQ] note <7>).

    >>> [default_hash_algorithm(v).name for v in ("1.0", "2.0", "3.0", "5.0", "6.0")]
    ['MD5', 'MD5', 'SHA1', 'SHA1', 'SHA512']
    """
    major = int(msmq_version.split(".")[0])
    if major <= 2:
        return HashAlgorithm.MD5
    if major <= 5:
        return HashAlgorithm.SHA1
    return HashAlgorithm.SHA512


def _is_msmq_1(context: SendingContext) -> bool:
    return context.msmq_version.split(".")[0] == "1"


@rule("MQCN-3.3.5.3-1", operations=_ALL_OPERATIONS)
def goes_to_the_owners_notification_queue(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """The Message goes to NOTIFY_QUEUE_PRIVATE of the queue manager owning the object."""
    wanted = notify_queue_format_name(str(_notification(e).owner))
    if not same_format_name(e.envelope.destination_format_name, wanted):
        yield f"sent to {e.envelope.destination_format_name!r}, not {wanted!r}"


@rule("MQCN-3.3.5.3-1")
def message_id_of_the_sending_computer(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """A Message sent through MSMQ carries PROPID_M_MSGID: 20 bytes, the sending computer's
    GUID then a 4-byte ordinal (see also :func:`message_ids_never_repeat`)."""
    mid = e.envelope.message_id
    if not 0 <= mid.sequence <= _MAX_SEQUENCE:
        yield f"the message identifier's ordinal {mid.sequence} does not fit its 4 bytes"
    if mid.sequence == 0:  # [MS-MQQB] 3.1.7.1.1: an Identifier of 0 is one not yet assigned
        yield "the message identifier's ordinal is 0, which MSMQ reads as no identifier yet"
    if context.client_identifier is not None and mid.sender != context.client_identifier:
        yield f"the message identifier names {mid.sender}, not {context.client_identifier}"


@scenario_rule("MQCN-3.3.5.3-1")
def message_ids_never_repeat(
    emissions: Sequence[Emission], context: SendingContext, r: Readings
) -> Iterator[str]:
    """PROPID_M_MSGID's ordinal identifies each message a computer sends: never twice."""
    seen = Counter(e.envelope.message_id for e in emissions)
    for mid, times in seen.items():
        if times > 1:
            yield f"the message identifier {mid} was used {times} times"


@scenario_rule("MQCN-3.3.5.3-1")
def message_ids_count_up_by_one(
    emissions: Sequence[Emission], context: SendingContext, r: Readings
) -> Iterator[str]:
    """MSMQ numbers the messages a computer sends: [MS-MQQB] 3.1.7.1.1 gives each the
    MessageIdOrdinal and increments it by 1 (PROPID_M_MSGID: "a 4-byte sequential number").
    The messages a client emits one after the other in a scenario (nothing else is sent
    between them) so carry ordinals one apart, modulo 2**32."""
    ordinals = [(e.index, e.envelope.message_id.sequence) for e in emissions]
    for (_, before), (index, after) in pairwise(ordinals):
        if after != (before + 1) % (_MAX_SEQUENCE + 1):
            yield (
                f"emitted message {index} has the ordinal {after} after {before}: "
                "MessageIdOrdinal grows by 1 per message sent"
            )


@rule("MQCN-3.3.5.3-2")
def reaches_the_queue_in_300_seconds(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """TimeToReachQueue is 300 seconds."""
    if e.envelope.time_to_reach_queue != TIME_TO_REACH_QUEUE_SECONDS:
        yield f"TimeToReachQueue is {e.envelope.time_to_reach_queue}, not 300"


@rule("MQCN-3.3.5.3-3")
def express(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """DeliveryGuarantee is Express."""
    if e.envelope.delivery_guarantee is not DeliveryGuarantee.Express:
        yield f"DeliveryGuarantee is {e.envelope.delivery_guarantee.name}, not Express"


@rule("MQCN-3.3.5.3-4")
def class_normal(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """Class is Normal."""
    if e.envelope.message_class is not MessageClass.Normal:
        yield f"Class is {e.envelope.message_class.name}, not Normal"


@rule("MQCN-3.3.5.3-5")
@rule("MQCN-3.3.5.3-14")
def hash_of_the_msmq_version(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """HashAlgorithm is the default of the profile's MSMQ version (3.3.5.3-5 and note <12>,
    both read through errata E-16's table)."""
    wanted = default_hash_algorithm(context.msmq_version)
    allowed = {wanted}
    if r.note12_hashes and context.msmq_version.startswith("2."):  # E-16: note <12>'s list
        allowed.add(HashAlgorithm.SHA1)
    if e.envelope.hash_algorithm not in allowed:
        found = e.envelope.hash_algorithm.name if e.envelope.hash_algorithm else "none"
        yield f"HashAlgorithm is {found}, MSMQ {context.msmq_version} uses {wanted.name}"


@rule("MQCN-3.3.5.3-6")
def signed_sig20(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """AuthenticationLevel is Sig20 (MSMQ 1.0 uses Sig10 instead, note <13>)."""
    allowed = {AuthLevel.Sig20} | ({AuthLevel.Sig10} if _is_msmq_1(context) else set())
    level = e.envelope.authentication_level
    if level not in allowed:
        yield f"AuthenticationLevel is {level.name.rstrip('_')}, not Sig20"


@rule("MQCN-3.3.5.3-15")
def msmq_1_signs_sig10(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """Note <13>: an MSMQ 1.0 sender signs with Sig10."""
    if _is_msmq_1(context) and e.envelope.authentication_level is not AuthLevel.Sig10:
        level = e.envelope.authentication_level.name.rstrip("_")
        yield f"AuthenticationLevel is {level}; MSMQ 1.0 uses Sig10"


@rule("MQCN-3.3.5.3-7", decoded=True)
def one_spare_byte(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """The body buffer is the message plus one byte (under E-05's other reading more bytes
    may follow, so at least one)."""
    spare = len(e.message.trailing) if e.message else 0
    if spare != 1 and not (spare >= 1 and r.trailing_data):
        yield f"the Body holds {spare} bytes after the message, not the one spare byte"


@rule("MQCN-3.3.5.3-8", decoded=True)
def spare_byte_changes_nothing(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """The message reads the same whatever the spare byte holds (a Body without one is
    MQCN-3.3.5.3-7's concern)."""
    if e.message is None or not e.message.trailing:
        return
    at = len(e.body) - len(e.message.trailing)
    for value in _SPARE_PROBES:
        probe = e.body[:at] + bytes((value,)) + e.body[at + 1 :]
        try:
            same = decode_message(probe, r) == e.message
        except ValueError:
            same = False
        if not same:
            yield f"with 0x{value:02x} in the spare byte the message reads differently"


@rule("MQCN-3.3.5.3-11", sender=_V1, operations=_ALL_OPERATIONS)
def sender_is_the_owner(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """A Version 0x01 Message names the owning queue manager as SenderIdentifier (E-21)."""
    owner = _notification(e).owner
    if e.envelope.sender_identifier != owner:
        yield f"SenderIdentifier is {e.envelope.sender_identifier}, not the owner {owner}"


@rule("MQCN-3.3.5.3-12", sender=_V1)
def sender_type_is_queue_manager(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """A Version 0x01 Message has SenderIdentifierType QueueManagerIdentifier (E-15)."""
    kind = e.envelope.sender_identifier_type
    if kind is not SenderIdType.QueueManagerIdentifier:
        yield f"SenderIdentifierType is {kind.name.rstrip('_')}, not QueueManagerIdentifier"


@rule("MQCN-3.3.5.3-13")
def enqueued_to_the_opened_queue(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """The Message is enqueued to the queue 3.3.3 opened (judged when the scenario opened it)."""
    opened = context.opened_format_name
    if opened is not None and not same_format_name(e.envelope.destination_format_name, opened):
        yield f"sent to {e.envelope.destination_format_name!r}, the opened queue is {opened!r}"


# --- product-behaviour notes of the client side ------------------------------------------------


@rule("MQCN-1.6-1", version_known=True)
@rule("MQCN-1.6-2", version_known=True)
@rule("MQCN-2.2.4-4", version_known=True)
@rule("MQCN-3.3.4.1-4", version_known=True)
def version_of_the_product(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """Notes <1>, <2>, <5>, <9>: NT/2000's directory service sends Version 0x01, later
    Windows queue managers 0x02 (the Version of the profile's product).  Judged where the
    client sends the Version its profile chooses (a scenario that asks for a directory
    service or a queue manager chose the sender itself)."""
    wanted = context.product_version
    if wanted is None or context.version not in (None, wanted):
        return
    if e.body[:1] != bytes((wanted,)):
        yield f"Version is {_version(e)}; the product sends 0x{wanted:02x}"


@rule("MQCN-3.3.5.2-29", sender=_V1, decoded=True, operations={Operation.QueueManagerUpdate})
def machine_update_passes_extras(
    e: Emission, context: SendingContext, r: Readings
) -> Iterator[str]:
    """Note <11>: a Windows directory service passes its record through, so a machine update
    carries some of the ignored extras (judged where the profile's product sends Version
    0x01: the NT/2000 directory service, note <1>)."""
    if context.product_version != _V1:
        return
    for update in e.updates:
        if not set(update.propids) & set(MACHINE_UPDATE_IGNORED):
            yield f"the machine update carries no extra property ({_names(update.propids)})"


# --- rules over the whole scenario ---------------------------------------------------------------


@scenario_rule("MQCN-3.3.4.1-1")
def each_notification_was_sent(
    emissions: Sequence[Emission], context: SendingContext, r: Readings
) -> Iterator[str]:
    """Every Send Change Notification raised produced a message."""
    for number, notification in enumerate(context.notifications):
        if notification.messages < 1:
            yield f"notification {number} ({notification.operation.name}) produced no message"


@rule("MQCN-3.3.4.1-1", decoded=True, operations=_ALL_OPERATIONS)
def about_the_subject(e: Emission, context: SendingContext, r: Readings) -> Iterator[str]:
    """The message is about the iDirectoryObject of its notification."""
    wanted = _notification(e).subject.Identifier
    for named in _named_objects(e.message):  # type: ignore[arg-type]
        if named != wanted:
            yield f"the message is about {named}, the notification about {wanted}"


def _named_objects(message: ChangeNotificationMessage) -> list[uuid.UUID | None]:
    """What a message is about: ObjectGuid, else each update's GuidIdentifier or
    PROPID_Q_INSTANCE."""
    if message.body is not None:
        return [message.body.object_guid]
    named: list[uuid.UUID | None] = []
    for update in message.updates:
        instance = update.value_of(PropId.PROPID_Q_INSTANCE)
        named.append(
            update.guid_identifier or (instance if isinstance(instance, uuid.UUID) else None)
        )
    return named


@scenario_rule("MQCN-3.3.5.1-8")
def one_message_per_notification(
    emissions: Sequence[Emission], context: SendingContext, r: Readings
) -> Iterator[str]:
    """A queue manager sends one notification per message: one Send Change Notification,
    one Version 0x02 message."""
    if context.version != _V2:
        return
    for number, notification in enumerate(context.notifications):
        if notification.messages != 1:
            yield (
                f"notification {number} ({notification.operation.name}) produced "
                f"{notification.messages} messages"
            )


# --- aggregates and the entry point ----------------------------------------------------------


def _sent_per_3353(requirement: str) -> bool:
    return CATALOG[requirement].section == "3.3.5.3"


def _prepared_per_33512(requirement: str) -> bool:
    section = CATALOG[requirement].section
    return section.startswith("2.2.") or section in ("3.3.5.1", "3.3.5.2")


# (aggregate requirement, the Version it is about or None, which findings it is made of)
AGGREGATES: tuple[tuple[str, int | None, Callable[[str], bool]], ...] = (
    (req("MQCN-3.3.4.1-2"), None, _prepared_per_33512),
    (req("MQCN-3.3.4.1-3"), None, _sent_per_3353),
    (req("MQCN-3.3.5.1-11"), _V2, _sent_per_3353),
    (req("MQCN-3.3.5.2-28"), _V1, _sent_per_3353),
)
_AGGREGATE_IDS = frozenset(a for a, _, _ in AGGREGATES)


def _aggregated(
    found: Sequence[Violation], version: int | None, excused: frozenset[str] = frozenset()
) -> list[Violation]:
    """The aggregates broken by ``found`` (the MUSTs of the sections they stand for), leaving
    out the requirements in ``excused`` (those another errata reading admits)."""
    out = []
    for aggregate, sender, made_of in AGGREGATES:
        if sender is not None and version != sender:
            continue
        for v in found:
            own = v.requirement not in _AGGREGATE_IDS and made_of(v.requirement)
            if own and v.severity == "error" and v.requirement not in excused:
                out.append(Violation(aggregate, v.offset, f"{v.requirement}: {v.message}"))
    return out


def _excused_by_a_reading(
    emission: Emission, own: Sequence[Violation], context: SendingContext, readings: Readings
) -> frozenset[str]:
    """The requirements ``own`` breaks that the other reading of one more errata item admits
    (none of their violations left under it).  Such a requirement is the sender following a
    reading the spec allows: judged (and warned about) on its own, it does not break the
    aggregates.  A sender may follow several such readings at once (padding, E-05, and extra
    PROPIDs, E-11): the aggregate stays unbroken, where one switch at a time could not
    explain it."""
    broken = {
        v.requirement for v in own if v.severity == "error" and v.requirement not in _AGGREGATE_IDS
    }
    excused: set[str] = set()
    for switch in SWITCHES:
        if not broken - excused:
            break
        if readings.reading_of(switch.errata) != switch.suite:
            continue
        for name in switch.others:
            other = readings.with_reading(switch.errata, name)
            again = replace(emission, verdict=judge(emission.body, other))
            left = {v.requirement for v in _message_violations(again, context, other)}
            excused |= broken - left
    return frozenset(excused)


def _message_violations(
    emission: Emission,
    context: SendingContext,
    readings: Readings,
    stopped: list[Stopped] | None = None,
) -> list[Violation]:
    """The codec's and content rules' findings on one message, then every applicable rule's.

    A rule that cannot judge the message (:meth:`Rule.stopped_by`) adds nothing here; it is
    appended to ``stopped`` (when given) with the breach that stopped it."""
    found = [*emission.verdict.violations, *emission.verdict.observations]
    for each in RULES:
        if not each.applies_to(emission, context):
            continue
        blocker = each.stopped_by(emission)
        if blocker is not None:
            if stopped is not None and blocker.requirement != each.requirement:
                stopped.append(Stopped(each.requirement, emission.index, blocker))
            continue  # (a rule stopped by its own requirement: the codec reported it)
        problems = each.check(emission, context, readings)
        found += [Violation(each.requirement, None, problem) for problem in problems]
    return found


def _numbered(index: int, violation: Violation) -> Violation:
    return Violation(
        violation.requirement, violation.offset, f"emitted message {index}: {violation.message}"
    )


@dataclass(frozen=True, slots=True)
class Stopped:
    """A requirement a rule could not judge on emitted message ``index``: the message cannot
    be read (or reads as the other Version) because ``by`` is broken.  No evidence either
    way: the report shows it ``inconclusive (stopped by …)``, never ``fail``."""

    requirement: str
    index: int
    by: Violation

    def __str__(self) -> str:
        return f"emitted message {self.index} cannot be judged: {self.by}"


def judged_unread(requirement: str) -> bool:
    """Can ``requirement`` be judged on a message the codec cannot read?  Only where a rule
    of it looks at the envelope or the raw bytes (not ``decoded``) or at the whole scenario.
    Every other one -- the format and content rules the codec applies while reading, the
    aggregates, the rules that need the decoded message -- needs the reading."""
    return any(r.requirement == requirement and not r.decoded for r in RULES) or any(
        rid == requirement for rid, _ in SCENARIO_RULES
    )


@dataclass(frozen=True, slots=True)
class Judgement:
    """What :func:`sending_judgement` found: the violations, the requirements stopped by a
    rule that could not judge, and why each unreadable emitted message is unreadable."""

    violations: list[Violation]
    stopped: list[Stopped]
    unreadable: list[tuple[int, Violation]] = field(default_factory=list)

    def of(self, requirement: str) -> tuple[list[Violation], list[Stopped]]:
        """The violations of ``requirement`` and the places it was stopped.  A requirement
        with no violation that needs the reading (:func:`judged_unread`) is stopped on every
        message the codec could not read, by the breach that stopped the codec -- it was not
        seen to hold there."""
        violations = [v for v in self.violations if v.requirement == requirement]
        stopped = [s for s in self.stopped if s.requirement == requirement]
        if not violations and not judged_unread(requirement):
            seen = {s.index for s in stopped}
            stopped += [
                Stopped(requirement, index, blocker)
                for index, blocker in self.unreadable
                if index not in seen and blocker.requirement != requirement
            ]
        return violations, stopped


def sending_judgement(
    emitted: Sequence[Envelope], context: SendingContext, readings: Readings = STRICT
) -> Judgement:
    """Every requirement the emitted messages break, message by message, in order, then those
    of the scenario as a whole (message identifiers, one message per notification); and every
    requirement a rule could not judge because the message it needs cannot be read.

    Each violation of one message starts with ``emitted message N:``.  A body the codec cannot
    read breaks the requirement the codec names (and the aggregates made of it); the rules
    that need the decoded message are :class:`Stopped` by that breach, not broken.
    """
    emissions = read_emissions(emitted, context, readings)
    found: list[Violation] = []
    stopped: list[Stopped] = []
    for emission in emissions:
        own = _message_violations(emission, context, readings, stopped)
        excused = _excused_by_a_reading(emission, own, context, readings)
        aggregates = _aggregated(own, emission.version, excused)
        found += [_numbered(emission.index, v) for v in own + aggregates]
    whole = [
        Violation(requirement, None, problem)
        for requirement, check in SCENARIO_RULES
        for problem in check(emissions, context, readings)
    ]
    unreadable = [
        (e.index, e.verdict.violations[0])
        for e in emissions
        if e.message is None and e.verdict.violations
    ]
    return Judgement(found + whole + _aggregated(whole, context.version), stopped, unreadable)


def sending_violations(
    emitted: Sequence[Envelope], context: SendingContext, readings: Readings = STRICT
) -> list[Violation]:
    """The violations of :func:`sending_judgement` (every requirement the emitted messages
    break; those a rule could not judge are left out)."""
    return sending_judgement(emitted, context, readings).violations


# --- what a step's text states ---------------------------------------------------------------


def _facts(context: SendingContext) -> dict[str, frozenset[Any]]:
    """What the model derives from the scenario, in the terms feature files state it in."""
    notifications = context.notifications
    operations = {n.operation for n in notifications}
    return {
        "version": frozenset({context.version}),
        "product_version": frozenset({context.product_version}),
        "count": frozenset({len(notifications)}),
        "operation": frozenset(o.name for o in operations),
        "command": frozenset(int(OPERATION_COMMAND[o]) for o in operations),
        "use_guid": frozenset(int(o is not Operation.QueueCreation) for o in operations),
        "event": frozenset(int(OPERATION_EVENT[o]) for o in operations),
        "object": frozenset(n.subject.Identifier for n in notifications),
        "kind": frozenset("queue" if o in _QUEUE_OPERATIONS else "machine" for o in operations),
        "changed": frozenset(frozenset(n.changed) for n in notifications),
        "label": frozenset(n.subject.Label for n in notifications if isinstance(n.subject, Queue)),
        "required": frozenset(frozenset(p.name for p in _REQUIRED[o]) for o in operations),
        "server": frozenset({context.server_name}),
        "msmq": frozenset({context.msmq_version}),
        "hash": frozenset({default_hash_algorithm(context.msmq_version).name}),
        "level": frozenset({"Sig20"}),
        "product_level": frozenset({"Sig10" if _is_msmq_1(context) else "Sig20"}),
        "guarantee": frozenset({DeliveryGuarantee.Express.name}),
        "message_class": frozenset({MessageClass.Normal.name}),
        "sender_type": frozenset({SenderIdType.QueueManagerIdentifier.name}),
    }


def statement_problem(context: SendingContext, stated: Mapping[str, Any]) -> str | None:
    """Where a step's text states what the client must send (a Version, an Event token, a
    HashAlgorithm…), it must be what the model derives from the scenario: otherwise the
    feature file, not the target, is wrong.  None when every statement holds.

    >>> statement_problem(SendingContext(version=1), {"version": 1}) is None
    True
    >>> statement_problem(SendingContext(version=1), {"version": 2})
    'the step states version 2; the scenario makes it one of [1]'
    """
    facts = _facts(context)
    for key, value in stated.items():
        wanted = facts[key]
        if isinstance(value, Iterable) and not isinstance(value, str):
            value = frozenset(value)
        if {value} != set(wanted):
            facts = sorted(wanted, key=str)
            return f"the step states {key} {value!r}; the scenario makes it one of {facts!r}"
    return None


# --- 3.3.3 the Open Queue of the client's initialisation ---------------------------------------


def open_queue_violations(
    opened: Mapping[str, Any] | None,
    destination: uuid.UUID | None = None,
    enqueued: Sequence[Envelope] = (),
) -> list[Violation]:
    """How the Open Queue a client raised in 3.3.3 departs from it (``destination``: the queue
    manager it was initialised towards; None leaves the format name unjudged), and how the
    Messages it ``enqueued`` afterwards depart from MQCN-3.3.5.3-13: 3.3.5.3 enqueues each to
    the OpenQueueDescriptor 3.3.3 created, so a client that reports no Open Queue has none to
    enqueue them to (opening one is a SHOULD, MQCN-3.3.3-1; sending without one is not).

    >>> from mqcn_model.client import NotificationClient
    >>> qm = uuid.UUID(int=9)
    >>> opened = NotificationClient(uuid.UUID(int=1)).initialize(qm).to_json()
    >>> open_queue_violations(opened, qm)
    []
    >>> [v.requirement for v in open_queue_violations(opened | {"shared_mode": "DenyReceive"})]
    ['MQCN-3.3.3-5']
    """
    if opened is None:
        found = [Violation(req("MQCN-3.3.3-1"), None, "the client opened no OutgoingQueue")]
        if enqueued:
            text = (
                f"the client enqueued {len(enqueued)} Message(s), yet 3.3.3 opened no "
                "OutgoingQueue whose descriptor 3.3.5.3 enqueues them to"
            )
            found.append(Violation(req("MQCN-3.3.5.3-13"), None, text))
        return found
    found = []
    opened_name = str(opened.get("destination_format_name"))
    for index, envelope in enumerate(enqueued):
        if not same_format_name(envelope.destination_format_name, opened_name):
            text = (
                f"emitted message {index} went to {envelope.destination_format_name!r}, "
                f"the OutgoingQueue 3.3.3 opened is {opened_name!r}"
            )
            found.append(Violation(req("MQCN-3.3.5.3-13"), None, text))
    if destination is not None:
        wanted = notify_queue_format_name(str(destination))
        found_name = opened.get("destination_format_name")
        if not same_format_name(found_name, wanted):
            text = f"DestinationFormatName is {found_name!r}, not {wanted!r}"
            found.append(Violation(req("MQCN-3.3.3-2"), None, text))
    for requirement, key, wanted in (
        ("MQCN-3.3.3-3", "next_hops", ""),
        ("MQCN-3.3.3-4", "required_access", "SendAccess"),
        ("MQCN-3.3.3-5", "shared_mode", "DenyNone"),
    ):
        if opened.get(key) != wanted:
            found.append(
                Violation(req(requirement), None, f"{key} is {opened.get(key)!r}, not {wanted!r}")
            )
    return found
