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
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from mqcn_model.builders import v2_notification
from mqcn_model.catalog import req
from mqcn_model.client import NotificationClient
from mqcn_model.codec.message import ChangeNotificationMessage
from mqcn_model.constants import (
    OPERATION_EVENT,
    SPARE_BYTE_COUNT,
    AuthLevel,
    Command,
    PropId,
    SenderIdType,
    Version,
)
from mqcn_model.envelope import Envelope
from mqcn_model.server import NotificationServer
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


ZOO: tuple[type[ZooTarget], ...] = (
    ProcessesUnauthenticated,
    IgnoresSenderIdentifierType,
    AcceptsAnyCountOnVersion2,
    AppliesLabelOnQueueUpdate,
    DeletesWhateverTheObjectType,
    SendsNoSpareByte,
    SignsSig20InItsNt4Profile,
    SendsForeignZero,
    BreaksOnlyItsFirstMessage,
    NamesAnotherDomainController,
)
