"""The zoo: faulty variants of the reference target, each breaking one requirement.

They exist to test the suite itself — a conformance suite that cannot catch a known bug is
broken — and to show implementers what a failure looks like in the report:

    mqcn run --target python:mqcn_suite.targets.zoo:ProcessesUnauthenticated

Each class names the requirement it breaks in ``BREAKS`` and the verdict that gives
(``VERDICT``: ``fail`` for a MUST, ``claim-fail`` for a product note of a profile it claims);
``tests/test_targets.py`` runs the whole suite against every member and checks that exactly
that requirement fails (plus the few listed in ``ALSO_BREAKS`` whose scenarios observe the
same behaviour, of which those in ``SUMMARIES`` must fail too: the summaries a fault of that
section breaks) while the reference passes.  A member whose fault must be found *among
correct messages* runs only the scenarios where it hides so (``SCENARIOS``, a pytest ``-k``
expression): a whole run would also show it where it is the one message sent.

:data:`LDAP_ZOO` holds the members whose fault is in the LDAP reader (a wrong password, a
filter on the wrong attribute, the GUID's bytes in the wrong order): they differ from the
reference only with ``--directory ldap``, where ``tests/test_ldap_mode.py`` checks that each
fails the Read Directory requirements with a message saying what it read instead (``SAYS``),
and that :class:`ReadsByEscapedGuid`, the other accepted reading of Find Object By GUID,
passes.
"""

from __future__ import annotations

import copy
import dataclasses
import uuid
from typing import Any, ClassVar

from mqcn_model.builders import v2_notification
from mqcn_model.catalog import req
from mqcn_model.client import NotificationClient
from mqcn_model.codec.message import ChangeNotificationMessage
from mqcn_model.constants import (
    OPERATION_EVENT,
    SPARE_BYTE_COUNT,
    V2_QUEUE_READ_ATTRIBUTES,
    AuthLevel,
    Command,
    Event,
    Operation,
    PropId,
    SenderIdType,
    Version,
)
from mqcn_model.dssm import guid_filter, split_dn
from mqcn_model.envelope import Envelope
from mqcn_model.server import NotificationServer, queue_from_read
from mqcn_suite.targets.ldap_reader import LdapDirectory
from mqcn_suite.targets.reference import ReferenceTarget


class ZooTarget(ReferenceTarget):
    """A reference target with one deliberate fault."""

    BREAKS: ClassVar[str]
    VERDICT: ClassVar[str] = "fail"
    ALSO_BREAKS: ClassVar[frozenset[str]] = frozenset()
    SUMMARIES: ClassVar[frozenset[str]] = frozenset()  # of ALSO_BREAKS: these must fail too
    SCENARIOS: ClassVar[str | None] = None  # a pytest -k expression; None: the whole suite

    def __init__(self) -> None:
        super().__init__()
        self.name = f"zoo:{type(self).__name__}"


# --- 3.2.5.1 authentication ----------------------------------------------------------------


class _AcceptsUnauthenticatedServer(NotificationServer):
    def _process_v1(self, envelope: Envelope, message: Any, effects: list[Any]) -> None:
        if envelope.authentication_level == AuthLevel.None_:
            envelope = dataclasses.replace(envelope, authentication_level=AuthLevel.Sig20)
        super()._process_v1(envelope, message, effects)


class ProcessesUnauthenticated(ZooTarget):
    """Processes a Version 0x01 message whose AuthenticationLevel is None."""

    BREAKS = req("MQCN-3.2.5.1-4")
    server_class = _AcceptsUnauthenticatedServer


class _AnySenderTypeServer(NotificationServer):
    def _process_v1(self, envelope: Envelope, message: Any, effects: list[Any]) -> None:
        envelope = dataclasses.replace(
            envelope, sender_identifier_type=SenderIdType.QueueManagerIdentifier
        )
        super()._process_v1(envelope, message, effects)


class IgnoresSenderIdentifierType(ZooTarget):
    """Processes a Version 0x01 message whatever its SenderIdentifierType."""

    BREAKS = req("MQCN-3.2.5.1-3")
    server_class = _AnySenderTypeServer


# --- 2.2.4 the count of a Version 0x02 message ------------------------------------------------


class _AnyV2CountServer(NotificationServer):
    def deliver(self, envelope: Envelope) -> Any:
        body = envelope.body
        if len(body) >= 2 and body[0] == 2 and body[1] != 1:
            envelope = dataclasses.replace(envelope, body=body[:1] + b"\x01" + body[2:])
        return super().deliver(envelope)


class AcceptsAnyCountOnVersion2(ZooTarget):
    """Takes a Version 0x02 message with NumberOfUpdateNotifications 2 (or 0) as if it said 1."""

    BREAKS = req("MQCN-2.2.4-3")
    server_class = _AnyV2CountServer


# --- 3.2.5.1 what a queue update applies ---------------------------------------------------


class _LabelApplyingServer(NotificationServer):
    def _v1_update_queue(self, update: Any, effects: list[Any]) -> None:
        super()._v1_update_queue(update, effects)
        queue = self.qm.QueueCollection.get(update.guid_identifier)
        label = update.value_of(PropId.PROPID_Q_LABEL)
        if queue is not None and isinstance(label, str):
            queue.Label = label


class AppliesLabelOnQueueUpdate(ZooTarget):
    """Applies PROPID_Q_LABEL from a queue update (3.2.5.1 says to ignore it)."""

    BREAKS = req("MQCN-3.2.5.1-13")
    server_class = _LabelApplyingServer


# --- 3.2.5.1 deletion ---------------------------------------------------------------------


class _DeletesAnythingServer(NotificationServer):
    def _apply_update(self, update: Any, effects: list[Any]) -> None:
        if update.command == Command.DELETE and update.guid_identifier is not None:
            self.qm.QueueCollection.pop(update.guid_identifier, None)
            return
        super()._apply_update(update, effects)


class DeletesWhateverTheObjectType(ZooTarget):
    """Honours a deletion whose PropertyValue[1] is not MQDS_QUEUE."""

    BREAKS = req("MQCN-3.2.5.1-17")
    # a deletion naming no object type (one property, errata E-12) is deleted as well
    ALSO_BREAKS = frozenset({req("MQCN-3.2.5.1-16")})
    server_class = _DeletesAnythingServer


# --- 3.2.5.2 event 3: a read on the way -------------------------------------------------------


class _ReadsOnDeleteServer(NotificationServer):
    """Reads the queue from the directory before event 3's deletion (errata E-25)."""

    keeps_what_it_read = False

    def _process_v2(self, message: ChangeNotificationMessage, effects: list[Any]) -> None:
        body = message.body
        if body is not None and body.event == Event.DELETE_QUEUE and message.count == 1:
            guid = body.object_guid
            found = self._read(
                "Queue", guid, V2_QUEUE_READ_ATTRIBUTES, body.domain_controller, effects
            )
            if self.keeps_what_it_read and guid in self.qm.QueueCollection:
                if found is not None:
                    self.qm.QueueCollection[guid] = queue_from_read(guid, found)
                return  # the queue stays
        super()._process_v2(message, effects)


class _KeepsTheReadQueueServer(_ReadsOnDeleteServer):
    keeps_what_it_read = True


class ReadsBeforeDeleting(ReferenceTarget):
    """Not a fault: reads the queue from the directory before event 3 deletes it; 3.2.5.2
    calls for no read there and forbids none (errata E-25). Every requirement must pass."""

    server_class = _ReadsOnDeleteServer

    def __init__(self) -> None:
        super().__init__()
        self.name = f"zoo:{type(self).__name__}"


class KeepsTheQueueItReadOnDelete(ZooTarget):
    """Reads the queue on event 3 and keeps it, with what the read returned, instead of
    deleting it."""

    BREAKS = req("MQCN-3.2.5.2-7")
    server_class = _KeepsTheReadQueueServer


# --- 3.3.5.3 the body buffer -----------------------------------------------------------------


class _NoSpareByteClient(NotificationClient):
    def send_change_notification(self, *args: Any, **kwargs: Any) -> Envelope:
        envelope = super().send_change_notification(*args, **kwargs)
        return dataclasses.replace(envelope, body=envelope.body[:-SPARE_BYTE_COUNT])


class SendsNoSpareByte(ZooTarget):
    """Its client puts the bare Change Notification Message in the body (no spare byte)."""

    BREAKS = req("MQCN-3.3.5.3-7")
    # the three "then send it as 3.3.5.3 says" requirements observe the same body
    ALSO_BREAKS = frozenset({req("MQCN-3.3.4.1-3"), req("MQCN-3.3.5.1-11"), req("MQCN-3.3.5.2-28")})
    client_class = _NoSpareByteClient


# --- 3.3.5.2 the values a Version 0x01 update carries ------------------------------------------


class _ForeignZeroClient(NotificationClient):
    def prepare(self, operation: Any, obj: Any, **kwargs: Any) -> ChangeNotificationMessage:
        if getattr(obj, "ForeignSystem", 0):
            obj = dataclasses.replace(obj, ForeignSystem=0)
        return super().prepare(operation, obj, **kwargs)


class SendsForeignZero(ZooTarget):
    """Its directory service sends PROPID_QM_FOREIGN 0 whatever the directory holds: a foreign
    queue manager is announced as an MSMQ one (issue 17: no scenario published one)."""

    BREAKS = req("MQCN-3.3.5.2-22")
    client_class = _ForeignZeroClient


# --- 3.3.5.3 one of several messages -----------------------------------------------------------


class _FirstMessageLateClient(NotificationClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent = 0

    def send_change_notification(self, *args: Any, **kwargs: Any) -> Envelope:
        envelope = super().send_change_notification(*args, **kwargs)
        self.sent += 1
        return envelope.with_(time_to_reach_queue=60) if self.sent == 1 else envelope


class BreaksOnlyItsFirstMessage(ZooTarget):
    """Sends its first message with TimeToReachQueue 60, every later one correctly.  Checked
    where it sends several (every kind of change): a judgement that kept only the last
    message's violations would pass it (issue 17)."""

    BREAKS = req("MQCN-3.3.5.3-2")
    SCENARIOS = "sends_each_notification_as_3353_says"
    client_class = _FirstMessageLateClient


# --- 3.3.5.1 the DomainController of a Version 0x02 message -------------------------------------


class _OtherDomainControllerClient(NotificationClient):
    def prepare(self, operation: Any, obj: Any, **kwargs: Any) -> ChangeNotificationMessage:
        if self.version == Version.QUEUE_MANAGER:
            other = f"elsewhere.{self.server_name}"
            return v2_notification(OPERATION_EVENT[operation], obj.Identifier, other)
        return super().prepare(operation, obj, **kwargs)


class NamesAnotherDomainController(ZooTarget):
    """Its queue manager names a DomainController other than the directory server the change
    was made on: a Version 0x02 preparation fault, which also breaks the summary "prepare it
    per 3.3.5.1" (MQCN-3.3.4.1-2; issue 17)."""

    BREAKS = req("MQCN-3.3.5.1-5")
    ALSO_BREAKS = frozenset({req("MQCN-3.3.4.1-2")})
    SUMMARIES = ALSO_BREAKS
    client_class = _OtherDomainControllerClient


class _SidClient(NotificationClient):
    def send_change_notification(self, *args: Any, **kwargs: Any) -> Envelope:
        envelope = super().send_change_notification(*args, **kwargs)
        return dataclasses.replace(envelope, sender_identifier_type=SenderIdType.Sid)


class NamesItselfBySid(ZooTarget):
    """Its Version 0x01 client identifies the sender by a SID (SenderIdentifierType Sid),
    not by the queue manager's GUID.  The type is judged first: MQCN-3.3.5.3-12 fails, and
    MQCN-3.3.5.3-11 (what the identifier names) is stopped by it, in adapter mode as in
    transport mode, where the wire carries the SID (tests/test_transport_findings.py)."""

    BREAKS = req("MQCN-3.3.5.3-12")
    # the summaries "then send it as 3.3.5.3 says" observe the same messages (a whole run)
    ALSO_BREAKS = frozenset({req("MQCN-3.3.4.1-3"), req("MQCN-3.3.5.2-28")})
    SCENARIOS = "names_the_owning_queue_manager"
    client_class = _SidClient


# --- a claimed product profile (note <13>) -----------------------------------------------------


class _AlwaysSig20Client(NotificationClient):
    def send_change_notification(self, *args: Any, **kwargs: Any) -> Envelope:
        envelope = super().send_change_notification(*args, **kwargs)
        return dataclasses.replace(envelope, authentication_level=AuthLevel.Sig20)


class SignsSig20InItsNt4Profile(ZooTarget):
    """Claims the windows-nt4 profile (every profile, as the reference does) but its MSMQ 1.0
    directory service signs with Sig20, not Sig10 (note <13>): a broken claim, not a MUST."""

    BREAKS = req("MQCN-3.3.5.3-15")
    VERDICT = "claim-fail"
    client_class = _AlwaysSig20Client


# --- a client that sends a member of the defect catalogue ----------------------------------------


def _operation_of(body: bytes, ids: Any) -> Operation:
    """The Send Change Notification a defective body stands for: a Version 0x02 body of the
    catalogue is about a change of the owned queue (Event 2); a Version 0x01 one says it in
    its first update's Command (a machine update names the queue manager), a broken or
    missing Command standing for the owned queue's update its twin is."""
    if body[:1] != b"\x01" or len(body) < 3 or body[2] not in (0, 1, 2):
        return Operation.QueueUpdate
    if body[2] == Command.CREATE:
        return Operation.QueueCreation
    if body[2] == Command.DELETE:
        return Operation.QueueDeletion
    return Operation.QueueManagerUpdate if ids.qm.bytes_le in body[4:20] else Operation.QueueUpdate


class _DefectClient(NotificationClient):
    """Sends the conforming message, except where the defect applies.  A member written as a
    transformation (``defect.apply``, :class:`~mqcn_suite.scenarios.defects.catalogue.Twisted`)
    breaks every message of this client's Version it fits, in place: the rest of the
    message is the one the client was asked for.  Any other member replaces the kind of
    message it is by its own bytes, built with this client's identities."""

    defect: Any = None  # set by SendsDefect.reset

    def send_change_notification(self, operation: Operation, obj: Any, **kwargs: Any) -> Envelope:
        envelope = super().send_change_notification(operation, obj, **kwargs)
        if self.defect is not None and self.defect.apply is not None:  # broken in place
            from mqcn_suite.scenarios.defects import defect_version

            mine = defect_version(self.defect) == self.version
            body = self.defect.apply(envelope.body) if mine else None
        else:
            body = self.defective_body(operation, obj, kwargs.get("owner"))
        return envelope if body is None else dataclasses.replace(envelope, body=body)

    def defective_body(self, operation: Operation, obj: Any, owner: Any) -> bytes | None:
        """The defect's bytes where this notification is the kind of message it breaks."""
        from mqcn_suite.scenarios.defects import defect_version
        from mqcn_suite.scenarios.fixtures import (
            COMPUTER,
            DC_NAME,
            IDS,
            NEW_QUEUE_GUID,
            ScenarioIds,
        )

        if self.defect is None or defect_version(self.defect) != self.version:
            return None
        if _operation_of(self.defect.build(IDS), IDS) is not operation:
            return None
        subject = obj.Identifier
        ids = ScenarioIds(
            queue=subject if operation is not Operation.QueueCreation else NEW_QUEUE_GUID,
            new_queue=subject if operation is Operation.QueueCreation else NEW_QUEUE_GUID,
            qm=owner if isinstance(owner, uuid.UUID) else subject,
            master=self.identifier,
            computer=COMPUTER.split(".")[0],
            server=self.server_name or DC_NAME,
        )
        return bytes(self.defect.build(ids))


class SendsDefect(ZooTarget):
    """Its client sends one member of the defect catalogue (``zoo:sends:<defect name>``) in
    place of the conforming message of the kind that member is (a Version 0x01 member from a
    directory-service client, a Version 0x02 one from a queue-manager client); everything
    else it does as the reference.  ``BREAKS`` is the member's requirement; the test holds
    the client-side scenarios to failing exactly that (and its declared collateral)."""

    client_class = _DefectClient

    def __init__(self, defect: Any) -> None:
        super().__init__()
        self.defect = defect
        self.name = f"zoo:sends:{defect.name}"

    @property
    def BREAKS(self) -> str:  # type: ignore[override]
        return str(self.defect.requirement)

    def reset(self, setup: Any) -> None:
        super().reset(setup)
        assert isinstance(self.client, _DefectClient)
        self.client.defect = self.defect


# --- Read Directory against an LDAP server ([MS-MQDSSM] 3.1.6; LDAP mode only) -------------------


class _OwnLdapReader(ReferenceTarget):
    """A reference whose LDAP reader is ``reader_class``, a small subclass of
    :class:`~mqcn_suite.targets.ldap_reader.LdapDirectory` (the reference builds its reader
    from that class attribute).  With the dict directory it is the reference."""


class LdapZooTarget(_OwnLdapReader, ZooTarget):
    """A zoo member whose fault is in its LDAP reader: it shows only in LDAP mode
    (``--directory ldap``).  ``SAYS`` is what the report's message for the read requirements
    (``READS``) says about it."""

    BREAKS = req("MQCN-3.2.5.2-5")
    # every read of 3.2.5.2 goes wrong: the queue created, the queue manager, and what a
    # failed read leaves behind (nothing copied)
    ALSO_BREAKS = frozenset(
        {req("MQCN-3.2.5.2-3"), req("MQCN-3.2.5.2-8")}
        | {req("MQCN-3.2.5.2-4"), req("MQCN-3.2.5.2-6"), req("MQCN-3.2.5.2-9")}
    )
    READS = frozenset({req("MQCN-3.2.5.2-3"), req("MQCN-3.2.5.2-5"), req("MQCN-3.2.5.2-8")})
    SAYS: ClassVar[str]


class _WrongPasswordReader(LdapDirectory):
    @classmethod
    def from_setup(cls, ldap: dict[str, Any]) -> LdapDirectory:
        reader = super().from_setup(ldap)
        reader.password += "-stale"
        return reader


class BindsWithAWrongPassword(LdapZooTarget):
    """Binds to the directory with a password that is not the one ``reset`` gave: the server
    refuses the bind, so no read ever searches (DirectoryNotConnected, 3.1.6.14)."""

    SAYS = "refused the bind"
    reader_class = _WrongPasswordReader


class _NameFilterReader(LdapDirectory):
    def guid_filter(self, identifier: uuid.UUID) -> str:
        return f"(cn={identifier})"


class FiltersOnTheWrongAttribute(LdapZooTarget):
    """Finds the object with ``(cn=<Identifier>)``, a filter on the naming attribute, not on
    objectGUID (3.1.6.19): it names no object by its Identifier, and finds nothing."""

    SAYS = "names no object by its Identifier"
    reader_class = _NameFilterReader


class _RfcOrderReader(LdapDirectory):
    def guid_filter(self, identifier: uuid.UUID) -> str:
        return "(objectGUID=" + "".join(f"\\{b:02x}" for b in identifier.bytes) + ")"


class WritesTheGuidInRfc4122Order(LdapZooTarget):
    """Escapes the Identifier's 16 bytes in RFC 4122 order, not the [MS-DTYP] 2.3.4.2 order
    objectGUID holds: a read of another GUID, which no object has."""

    SAYS = "RFC 4122 order"
    reader_class = _RfcOrderReader


class _CaseKeepingReader(LdapDirectory):
    def convert(
        self, object_type: str, values: dict[str, list[Any]], attributes: tuple[str, ...]
    ) -> Any:
        found = super().convert(object_type, values, attributes)
        if isinstance(found, dict) and "Pathname" in found:
            rdns = split_dn(str(values["distinguishedName"][0]))
            found["Pathname"] = f"{rdns[2][1]}\\{rdns[0][1].replace(chr(92), '')}"
        return found


class KeepsThePathnameCase(_OwnLdapReader, ZooTarget):
    """Takes a queue's Pathname from its DN as the directory spells it, not lower-cased as
    [MS-MQDSSM] 3.1.6.11.2.1 says: a queue the directory names ``qm1\\NewOrders`` is created
    as ``qm1\\NewOrders``, not ``qm1\\neworders``."""

    BREAKS = req("MQCN-3.2.5.2-4")
    # a change event copies the read too (no scenario changes a queue's name so far)
    ALSO_BREAKS = frozenset({req("MQCN-3.2.5.2-6")})
    SAYS = "Pathname is"
    reader_class = _CaseKeepingReader


class _CachingReader(LdapDirectory):
    cache: dict[tuple[str, uuid.UUID], Any]

    def read(
        self,
        object_type: str,
        identifier: uuid.UUID,
        attributes: tuple[str, ...],
        server: str | None = None,
    ) -> Any:
        cache = self.__dict__.setdefault("cache", {})
        key = (object_type, identifier)
        if key not in cache:
            cache[key] = super().read(object_type, identifier, attributes, server)
        return copy.deepcopy(cache[key])


class CachesReadsBetweenNotifications(_OwnLdapReader, ZooTarget):
    """Answers a second creation or change event about an object from what the first Read
    Directory of it returned, without reading again (3.2.5.2 reads for every such event): the
    directory's change between the two notifications never arrives."""

    BREAKS = req("MQCN-3.2.5.2-5")
    ALSO_BREAKS = frozenset({req("MQCN-3.2.5.2-6"), req("MQCN-3.2.5.2-8"), req("MQCN-3.2.5.2-9")})
    SAYS = "a notification was answered without a Read Directory"
    reader_class = _CachingReader


class _EscapedGuidReader(LdapDirectory):
    def guid_filter(self, identifier: uuid.UUID) -> str:
        return guid_filter(identifier, "escaped")


class ReadsByEscapedGuid(_OwnLdapReader):
    """Not a fault: the reference finding objects the way Active Directory clients do, by the
    16 objectGUID bytes escaped, the other accepted reading of 3.1.6.19 (docs/directory.md,
    decision 4).  Every requirement must pass, as with the letter's CompactGuid."""

    reader_class = _EscapedGuidReader

    def __init__(self) -> None:
        super().__init__()
        self.name = f"zoo:{type(self).__name__}"


def zoo_target(name: str) -> ZooTarget | ReferenceTarget:
    """The zoo member ``name`` (``zoo:NAME`` of ``--target``): a class of :data:`ZOO`, or
    ``sends:<defect name>`` for :class:`SendsDefect` of that catalogue member."""
    from mqcn_suite.scenarios.defects import every_defect

    if name.startswith("sends:"):
        wanted = name.removeprefix("sends:")
        members = {d.name: d for d in every_defect()}
        if wanted not in members:
            raise KeyError(f"no defect named {wanted!r} in the catalogue")
        return SendsDefect(members[wanted])
    members = (*ZOO, *LDAP_ZOO, *LDAP_VALUE_ZOO, ReadsByEscapedGuid, ReadsBeforeDeleting)
    for member in members:
        if member.__name__ == name:
            return member()
    known = ", ".join(m.__name__ for m in members)
    raise KeyError(f"no zoo member {name!r} (known: {known}, sends:<defect name>)")


ZOO: tuple[type[ZooTarget], ...] = (
    ProcessesUnauthenticated,
    IgnoresSenderIdentifierType,
    AcceptsAnyCountOnVersion2,
    AppliesLabelOnQueueUpdate,
    DeletesWhateverTheObjectType,
    KeepsTheQueueItReadOnDelete,
    SendsNoSpareByte,
    SignsSig20InItsNt4Profile,
    SendsForeignZero,
    BreaksOnlyItsFirstMessage,
    NamesAnotherDomainController,
    NamesItselfBySid,
)

# LDAP mode only (``--directory ldap``; tests/test_ldap_mode.py): each fails the read requirements
# MQCN-3.2.5.2-3/-5/-8 with a message that says what went wrong (``SAYS``).
LDAP_ZOO: tuple[type[LdapZooTarget], ...] = (
    BindsWithAWrongPassword,
    FiltersOnTheWrongAttribute,
    WritesTheGuidInRfc4122Order,
)

# LDAP mode only too: readers that find the right object but make the wrong value of it, or
# none of it at a later notification; each fails BREAKS (and no more than ALSO_BREAKS), its
# message saying ``SAYS`` (tests/test_ldap_mode.py).
LDAP_VALUE_ZOO: tuple[type[ZooTarget], ...] = (
    KeepsThePathnameCase,
    CachesReadsBetweenNotifications,
)
