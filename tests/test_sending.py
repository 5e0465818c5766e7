"""The rules of what a client emits (mqcn_model.sending).

* every message the reference client emits, for every operation, Version and profile, breaks
  no rule (a hypothesis property), and the rules' doctests hold;
* each rule, on an emission broken in one place, finds exactly its requirement (where one
  defect necessarily breaks several requirements, the test names them all and says why);
* "sent as 3.3.5.3 says" and "prepared per 3.3.5.1/3.3.5.2" aggregate the MUSTs they stand for;
* the readings: a body with ``</ObjectGuid >`` (E-01), bytes after the spare byte (E-05) and
  extra PROPIDs in updates and deletions (E-11) break rules under the strict readings only;
* what a step's text states is checked against the scenario; the Open Queue of 3.3.3.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Iterable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqcn_model import sending
from mqcn_model.adm import Queue, QueueManager
from mqcn_model.builders import minimal_security_descriptor, v2_notification
from mqcn_model.client import NotificationClient
from mqcn_model.codec.message import (
    ChangeNotificationMessage,
    body_buffer,
    decode_message,
    v1_message,
)
from mqcn_model.codec.update import NotificationUpdate, Property
from mqcn_model.constants import (
    MACHINE_UPDATE_MODIFIABLE,
    QM_ATTRIBUTE_OF,
    QUEUE_ATTRIBUTE_OF,
    QUEUE_UPDATE_MODIFIABLE,
    AuthLevel,
    DeliveryGuarantee,
    HashAlgorithm,
    Operation,
    PropId,
    SenderIdType,
)
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import STRICT, Readings, following
from mqcn_model.errors import Violation
from mqcn_model.judge import Verdict
from mqcn_model.profiles import DEFAULT_PROFILE, PROFILES, ProductProfile
from mqcn_model.sending import (
    AGGREGATES,
    Emission,
    Notification,
    SendingContext,
    Stopped,
    open_queue_violations,
    sending_judgement,
    sending_violations,
    statement_problem,
    value_mismatch,
)
from mqcn_suite import strategies

DS = uuid.UUID("0d5e3c1f-7a6b-4e8d-9c2f-3b4a5d6e7f80")  # the sending computer
QM = uuid.UUID("6f1c3a9e-2b4d-4c5e-8f70-1a2b3c4d5e6f")  # owns the queue
OTHER = uuid.UUID("11111111-2222-4333-8444-555555555555")
QUEUE_ID = uuid.UUID("a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d")
SERVER = "dc7.example.com"
AGGREGATE_IDS = frozenset(a for a, _, _ in AGGREGATES)
CHANGED = {
    Operation.QueueUpdate: ("Quota", "BasePriority", "Security"),
    Operation.QueueManagerUpdate: ("QueueManagerQuota", "JournalQuota"),
}


def orders(**attributes: object) -> Queue:
    base: dict[str, object] = {
        "Pathname": "qm1\\orders",
        "Label": "orders",
        "BasePriority": -255,
        "Quota": 0xF1020304,
        "Security": minimal_security_descriptor(),
        "CreateTime": 1_700_000_000,
        "ModifyTime": 1_700_000_001,
    }
    return Queue(QUEUE_ID, **(base | attributes))  # type: ignore[arg-type]


def machine(**attributes: object) -> QueueManager:
    base: dict[str, object] = {
        "QueueManagerQuota": 0x20304,
        "JournalQuota": 0x1000002,
        "Security": minimal_security_descriptor(),
    }
    return QueueManager(QM, **(base | attributes))  # type: ignore[arg-type]


@dataclasses.dataclass
class Scenario:
    """What a client emitted for some notifications, and the context that judges it."""

    emitted: list[Envelope]
    context: SendingContext

    def found(self, readings: Readings = STRICT) -> list[Violation]:
        return sending_violations(self.emitted, self.context, readings)

    def broken(self, readings: Readings = STRICT) -> set[str]:
        """The requirements broken, aggregates left out."""
        return {v.requirement for v in self.found(readings)} - AGGREGATE_IDS

    def with_body(self, change: Callable[[bytes], bytes], index: int = 0) -> Scenario:
        emitted = list(self.emitted)
        emitted[index] = emitted[index].with_(body=change(emitted[index].body))
        return Scenario(emitted, self.context)

    def with_envelope(self, index: int = 0, **changes: object) -> Scenario:
        emitted = list(self.emitted)
        emitted[index] = emitted[index].with_(**changes)
        return Scenario(emitted, self.context)

    def with_context(self, **changes: object) -> Scenario:
        return Scenario(self.emitted, dataclasses.replace(self.context, **changes))

    def with_update(self, change: Callable[[NotificationUpdate], NotificationUpdate]) -> Scenario:
        """The first message re-encoded with its (only) update changed."""

        def rewrite(body: bytes) -> bytes:
            message = decode_message(body)
            return body_buffer(v1_message([change(message.updates[0])]))

        return self.with_body(rewrite)


def emit(
    operations: Iterable[Operation],
    *,
    version: int | None,
    profile: ProductProfile = DEFAULT_PROFILE,
    readings: Readings = STRICT,
    queue: Queue | None = None,
    qm: QueueManager | None = None,
    changed: dict[Operation, tuple[str, ...]] | None = None,
) -> Scenario:
    """The reference client, initialised towards QM, notifying ``operations`` in order."""
    queue, qm = queue or orders(), qm or machine()
    changed = CHANGED if changed is None else changed
    client = NotificationClient(
        DS, version=version, server_name=SERVER, profile=profile, readings=readings
    )
    opened = client.initialize(QM)
    emitted, notifications = [], []
    for operation in operations:
        subject: Queue | QueueManager = qm if operation is Operation.QueueManagerUpdate else queue
        what = changed.get(operation, ())
        emitted.append(client.send_change_notification(operation, subject, owner=QM, changed=what))
        notifications.append(Notification(operation, subject, QM, what))
    context = SendingContext(
        client_identifier=DS,
        msmq_version=profile.msmq_version,
        opened_format_name=opened.destination_format_name,
        version=client.version,
        product_version=int(profile.sends_version),
        product_profile=profile is not DEFAULT_PROFILE,
        server_name=SERVER,
        notifications=tuple(notifications),
        directory_queues=frozenset({queue.Identifier}),
        directory_queue_managers=frozenset({qm.Identifier}),
    )
    return Scenario(emitted, context)


def one(operation: Operation, version: int, **options: object) -> Scenario:
    return emit([operation], version=version, **options)  # type: ignore[arg-type]


def replace_update(update: NotificationUpdate, **changes: object) -> NotificationUpdate:
    return dataclasses.replace(update, **changes)  # type: ignore[arg-type]


def with_property(update: NotificationUpdate, propid: int, value: object) -> NotificationUpdate:
    """``update`` with the value of ``propid`` replaced (appended when absent)."""
    props = [
        Property(p.propid, value if p.propid == propid else p.value) for p in update.properties
    ]
    if propid not in update.propids:
        props.append(Property(propid, value))  # type: ignore[arg-type]
    return replace_update(update, properties=tuple(props))


def without_property(update: NotificationUpdate, propid: int) -> NotificationUpdate:
    props = tuple(p for p in update.properties if p.propid != propid)
    return replace_update(update, properties=props)


# --- conforming emissions ------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("operation", list(Operation), ids=[o.name for o in Operation])
def test_a_conforming_emission_breaks_nothing(operation: Operation, version: int) -> None:
    scenario = one(operation, version)
    assert scenario.found() == []


@pytest.mark.parametrize("profile", list(PROFILES.values()), ids=list(PROFILES))
def test_every_profile_of_the_reference_client_breaks_nothing(profile: ProductProfile) -> None:
    """Product notes included: Sig10 for MSMQ 1.0 (<13>), the hash (<12>), extras (<11>)."""
    scenario = emit(list(Operation), version=None, profile=profile)
    assert scenario.found() == []


_OPERATIONS = st.lists(st.sampled_from(list(Operation)), min_size=1, max_size=6)
_QUEUES = st.builds(
    orders,
    Pathname=strategies.pathnames(),
    Label=strategies.labels(),
    BasePriority=st.integers(-32768, 32767),
    Quota=st.integers(0, 2**32 - 1),
    JournalQuota=st.integers(0, 2**32 - 1),
    Journaling=st.sampled_from([0, 1]),
    Authentication=st.sampled_from([0, 1]),
    PrivacyLevel=st.sampled_from([0, 1, 2]),
    Transactional=st.sampled_from([0, 1]),
    Scope=st.sampled_from([0, 1]),
    CreateTime=st.integers(-(2**31), 2**31 - 1),
    ModifyTime=st.integers(-(2**31), 2**31 - 1),
    Type=strategies.guids(),
    Security=strategies.security_descriptors(),
)
_MACHINES = st.builds(
    machine,
    QueueManagerQuota=st.integers(0, 2**32 - 1),
    JournalQuota=st.integers(0, 2**32 - 1),
    Security=strategies.security_descriptors(),
    ForeignSystem=st.sampled_from([0, 1]),
    ConnectedNetworkIdentifierList=st.lists(strategies.guids(), max_size=3).map(tuple),
)


def _names_of(table: dict[PropId, str], modifiable: Sequence[PropId]) -> st.SearchStrategy:
    return st.lists(st.sampled_from([table[p] for p in modifiable]), unique=True).map(tuple)


_CHANGES = st.fixed_dictionaries(
    {
        Operation.QueueUpdate: _names_of(QUEUE_ATTRIBUTE_OF, QUEUE_UPDATE_MODIFIABLE),
        Operation.QueueManagerUpdate: _names_of(QM_ATTRIBUTE_OF, MACHINE_UPDATE_MODIFIABLE),
    }
)


@given(
    operations=_OPERATIONS,
    version=st.sampled_from([1, 2, None]),
    profile=st.sampled_from(list(PROFILES.values())),
    queue=_QUEUES,
    qm=_MACHINES,
    changed=_CHANGES,
)
def test_every_message_the_reference_client_emits_breaks_no_rule(
    operations: list[Operation],
    version: int | None,
    profile: ProductProfile,
    queue: Queue,
    qm: QueueManager,
    changed: dict[Operation, tuple[str, ...]],
) -> None:
    scenario = emit(
        operations, version=version, profile=profile, queue=queue, qm=qm, changed=changed
    )
    assert scenario.found() == []


@given(
    errata=st.sampled_from(["E-01", "E-05", "E-11"]),
    operations=_OPERATIONS,
    version=st.sampled_from([1, 2]),
    changed=_CHANGES,
)
def test_a_client_following_the_other_reading_breaks_no_rule_under_that_reading(
    errata: str, operations: list[Operation], version: int, changed: dict
) -> None:
    scenario = emit(operations, version=version, readings=following(errata), changed=changed)
    assert scenario.found(following(errata)) == []


# --- 3.3.5.3: the Message around the body --------------------------------------------------

_ENVELOPE_DEFECTS = [
    ("MQCN-3.3.5.3-2", {"time_to_reach_queue": 60}),
    ("MQCN-3.3.5.3-3", {"delivery_guarantee": DeliveryGuarantee.Recoverable}),
    ("MQCN-3.3.5.3-6", {"authentication_level": AuthLevel.Sig30}),
    ("MQCN-3.3.5.3-11", {"sender_identifier": OTHER}),
    ("MQCN-3.3.5.3-12", {"sender_identifier_type": SenderIdType.Sid}),
    ("MQCN-3.3.5.3-1", {"message_id": MessageId(OTHER, 1)}),
    ("MQCN-3.3.5.3-1", {"message_id": MessageId(DS, 2**32)}),
]


@pytest.mark.parametrize(("requirement", "changes"), _ENVELOPE_DEFECTS)
def test_each_envelope_defect_breaks_exactly_its_requirement(
    requirement: str, changes: dict[str, object]
) -> None:
    scenario = one(Operation.QueueUpdate, 1).with_envelope(**changes)
    assert scenario.broken() == {requirement}


def test_the_hash_is_the_msmq_versions_default_as_3353_and_note_12_say() -> None:
    """One check, two requirements: the MUST and note <12> read through errata E-16."""
    for profile in PROFILES.values():
        scenario = emit([Operation.QueueDeletion], version=1, profile=profile)
        wrong = next(h for h in HashAlgorithm if h is not scenario.emitted[0].hash_algorithm)
        note = set() if profile is DEFAULT_PROFILE else {"MQCN-3.3.5.3-14"}  # a Windows note
        assert scenario.with_envelope(hash_algorithm=wrong).broken() == {"MQCN-3.3.5.3-5", *note}


def test_msmq_1_signs_sig10_as_note_13_says() -> None:
    nt4 = PROFILES["windows-nt4"]
    scenario = emit([Operation.QueueDeletion], version=1, profile=nt4)
    assert scenario.emitted[0].authentication_level is AuthLevel.Sig10
    assert scenario.with_envelope(authentication_level=AuthLevel.Sig20).broken() == {
        "MQCN-3.3.5.3-15"
    }
    assert scenario.with_envelope(authentication_level=AuthLevel.None_).broken() == {
        "MQCN-3.3.5.3-6",
        "MQCN-3.3.5.3-15",
    }


def test_the_destination_is_the_owners_notification_queue_and_the_opened_one() -> None:
    scenario = one(Operation.QueueUpdate, 2)
    elsewhere = f"PRIVATE={OTHER}\\3"
    moved = scenario.with_envelope(destination_format_name=elsewhere)
    assert moved.broken() == {"MQCN-3.3.5.3-1", "MQCN-3.3.5.3-13"}
    assert moved.with_context(opened_format_name=None).broken() == {"MQCN-3.3.5.3-1"}
    assert scenario.with_context(opened_format_name=elsewhere).broken() == {"MQCN-3.3.5.3-13"}
    upper = scenario.with_envelope(destination_format_name=f"PRIVATE={str(QM).upper()}\\3")
    assert upper.broken() == set()  # format names compare in any case


def test_message_ids_never_repeat_in_a_scenario() -> None:
    scenario = emit([Operation.QueueUpdate, Operation.QueueDeletion], version=1)
    again = scenario.with_envelope(1, message_id=scenario.emitted[0].message_id)
    assert again.broken() == {"MQCN-3.3.5.3-1"}
    # the ordinals do not count up either; the finding also says which identifier repeats
    texts = [v.message for v in again.found()]
    assert f"the message identifier {scenario.emitted[0].message_id} was used 2 times" in texts
    assert not any("was used" in v.message for v in scenario.found())


def test_message_ids_count_up_by_one_as_msmq_numbers_them() -> None:
    """[MS-MQQB] 3.1.7.1.1: MessageIdOrdinal grows by 1 per message sent; 0 is unassigned."""
    scenario = emit(list(Operation), version=1)
    ordinals = [e.message_id.sequence for e in scenario.emitted]
    assert ordinals == list(range(ordinals[0], ordinals[0] + len(ordinals)))
    assert scenario.broken() == set()
    for index in (1, 3):  # a gap (+2) and a step back both break it
        mid = scenario.emitted[index].message_id
        for sequence in (mid.sequence + 1, mid.sequence - 2):
            moved = scenario.with_envelope(index, message_id=MessageId(DS, sequence))
            assert moved.broken() == {"MQCN-3.3.5.3-1"}, (index, sequence)
    # counted modulo 2**32: after 0xFFFFFFFF comes 0, yet no identifier may be 0 (unassigned)
    wrapped = emit([Operation.QueueDeletion, Operation.QueueDeletion], version=2)
    wrapped = wrapped.with_envelope(0, message_id=MessageId(DS, 0xFFFF_FFFF))
    wrapped = wrapped.with_envelope(1, message_id=MessageId(DS, 0))
    assert [v.message for v in wrapped.found() if v.requirement == "MQCN-3.3.5.3-1"] == [
        "emitted message 1: the message identifier's ordinal is 0, which MSMQ reads as no "
        "identifier yet"
    ]
    zero = one(Operation.QueueUpdate, 1).with_envelope(message_id=MessageId(DS, 0))
    assert zero.broken() == {"MQCN-3.3.5.3-1"}
    assert "no identifier" in " ".join(v.message for v in zero.found())


def test_the_body_is_the_message_and_one_spare_byte() -> None:
    scenario = one(Operation.QueueCreation, 1)
    assert scenario.with_body(lambda b: b[:-1]).broken() == {"MQCN-3.3.5.3-7"}
    for value in (0x00, 0x7F, 0xFF):
        assert scenario.with_body(lambda b, v=value: b[:-1] + bytes((v,))).broken() == set()
    v2 = one(Operation.QueueUpdate, 2)
    assert v2.with_body(lambda b: b[:-1]).broken() == {"MQCN-3.3.5.3-7"}


def test_a_body_that_is_no_message_breaks_only_what_stopped_the_codec() -> None:
    """An unreadable body breaks the requirement the codec names; the requirements that need
    the message read are stopped by it (neither met nor broken), never failed."""
    scenario = one(Operation.QueueUpdate, 1).with_body(lambda b: b"\x00" + b)
    assert scenario.broken() == {"MQCN-2.2.4-1"}
    judgement = sending_judgement(scenario.emitted, scenario.context)
    for requirement in (
        "MQCN-3.3.5.3-7",
        "MQCN-3.3.5.3-9",
        "MQCN-3.3.5.3-10",
        "MQCN-3.3.5.2-27",
        "MQCN-3.3.5.2-24",  # which Version a sender chose: only among the two that exist
        "MQCN-3.3.5.2-22",
        "MQCN-2.2.6-8",  # needs the updates read, though no rule of its own does
    ):
        violations, stopped = judgement.of(requirement)
        assert not violations, requirement
        assert {s.by.requirement for s in stopped} == {"MQCN-2.2.4-1"}, requirement
    assert judgement.of("MQCN-3.3.5.3-2") == ([], [])  # the envelope is judged all the same


def test_a_guid_in_braces_blames_2_2_5_7_and_stops_the_rest() -> None:
    """Issue 17: a Version 2 client writing the GUID with braces failed MQCN-3.3.5.1-7 and
    MQCN-3.3.5.3-7 ("cannot be read") while MQCN-2.2.5-7 stayed unjudged."""

    def braces(body: bytes) -> bytes:
        guid = str(QUEUE_ID).encode("utf-16-le")
        return body.replace(guid, "{".encode("utf-16-le") + guid + "}".encode("utf-16-le"))

    scenario = one(Operation.QueueUpdate, 2).with_body(braces)
    assert scenario.broken() == {"MQCN-2.2.5-7"}
    judgement = sending_judgement(scenario.emitted, scenario.context)
    for requirement in ("MQCN-3.3.5.1-7", "MQCN-3.3.5.3-7", "MQCN-2.2.5-8", "MQCN-3.3.5.1-4"):
        violations, stopped = judgement.of(requirement)
        assert not violations and stopped, requirement
        assert stopped[0].by.requirement == "MQCN-2.2.5-7"


def test_a_version_2_count_other_than_1_breaks_the_count_rules_only() -> None:
    found = one(Operation.QueueUpdate, 2).with_body(lambda b: b[:1] + b"\x02" + b[2:]).broken()
    assert found == {"MQCN-2.2.4-2", "MQCN-2.2.4-3", "MQCN-3.3.5.1-7"}


def test_every_defect_of_3353_also_breaks_the_send_it_as_3353_says_aggregates() -> None:
    for version, aggregate in ((1, "MQCN-3.3.5.2-28"), (2, "MQCN-3.3.5.1-11")):
        late = one(Operation.QueueDeletion, version).with_envelope(time_to_reach_queue=1)
        found = {v.requirement: v.message for v in late.found()}
        assert set(found) == {"MQCN-3.3.5.3-2", "MQCN-3.3.4.1-3", aggregate}
        assert found[aggregate].startswith("emitted message 0: MQCN-3.3.5.3-2: ")


@pytest.mark.parametrize("version", [1, 2])
def test_a_defect_of_an_earlier_message_is_kept_beside_the_later_ones(version: int) -> None:
    """Issue 17: one of several messages broken, not the last: its violations (and the
    aggregates they break) are reported, numbered with that message, whatever follows."""
    operations = [Operation.QueueCreation, Operation.QueueUpdate, Operation.QueueDeletion]
    scenario = emit(operations, version=version)
    assert scenario.found() == []
    aggregate = "MQCN-3.3.5.2-28" if version == 1 else "MQCN-3.3.5.1-11"
    for index in (0, 1):
        late = scenario.with_envelope(index, time_to_reach_queue=1)
        found = late.found()
        assert {v.requirement for v in found} == {"MQCN-3.3.5.3-2", "MQCN-3.3.4.1-3", aggregate}
        assert all(v.message.startswith(f"emitted message {index}: ") for v in found), found


def test_a_wrong_value_breaks_the_prepared_per_3352_aggregate_not_the_sent_ones() -> None:
    wrong = one(Operation.QueueUpdate, 1).with_update(
        lambda u: with_property(u, PropId.PROPID_Q_QUOTA, 1)
    )
    assert {v.requirement for v in wrong.found()} == {"MQCN-3.3.5.2-22", "MQCN-3.3.4.1-2"}


# --- 3.3.5.2: a Version 0x01 message --------------------------------------------------------

_V1_DEFECTS: list[
    tuple[Operation, Callable[[NotificationUpdate], NotificationUpdate], set[str]]
] = [
    # the update of another queue: the message is then about another object too (3.3.4.1-1)
    (
        Operation.QueueUpdate,
        lambda u: replace_update(u, guid_identifier=OTHER),
        {"MQCN-3.3.5.2-9", "MQCN-3.3.4.1-1"},
    ),
    (Operation.QueueUpdate, lambda u: replace_update(u, guid_master_id=OTHER), {"MQCN-3.3.5.2-10"}),
    (
        Operation.QueueCreation,
        lambda u: replace_update(u, path_name="qm1\\invoices"),
        {"MQCN-3.3.5.2-7"},
    ),
    # a modifiable property that did not change; a changed one left out
    (
        Operation.QueueUpdate,
        lambda u: with_property(u, PropId.PROPID_Q_JOURNAL, 0),
        {"MQCN-3.3.5.2-18"},
    ),
    (
        Operation.QueueUpdate,
        lambda u: without_property(u, PropId.PROPID_Q_QUOTA),
        {"MQCN-3.3.5.2-18"},
    ),
    (
        Operation.QueueManagerUpdate,
        lambda u: without_property(u, PropId.PROPID_QM_QUOTA),
        {"MQCN-3.3.5.2-20"},
    ),
    (
        Operation.QueueManagerUpdate,
        lambda u: with_property(u, PropId.PROPID_QM_SECURITY, minimal_security_descriptor()),
        {"MQCN-3.3.5.2-20"},
    ),
    # values other than the directory's
    (
        Operation.QueueUpdate,
        lambda u: with_property(u, PropId.PROPID_Q_BASEPRIORITY, 3),
        {"MQCN-3.3.5.2-22"},
    ),
    (
        Operation.QueueUpdate,
        lambda u: with_property(u, PropId.PROPID_Q_QMID, OTHER),
        {"MQCN-3.3.5.2-22"},
    ),
    (
        Operation.QueueManagerUpdate,
        lambda u: with_property(u, PropId.PROPID_QM_FOREIGN, 1),
        {"MQCN-3.3.5.2-22"},
    ),
    (
        Operation.QueueCreation,
        lambda u: with_property(u, PropId.PROPID_Q_LABEL, "other"),
        {"MQCN-3.3.5.2-22"},
    ),
    # judged by mqcn_model.rules on the decoded update
    (
        Operation.QueueCreation,
        lambda u: without_property(u, PropId.PROPID_Q_LABEL),
        {"MQCN-3.3.5.2-14"},
    ),
    (
        Operation.QueueUpdate,
        lambda u: without_property(u, PropId.PROPID_Q_QMID),
        {"MQCN-3.3.5.2-17"},
    ),
    (
        Operation.QueueManagerUpdate,
        lambda u: without_property(u, PropId.PROPID_QM_FOREIGN),
        {"MQCN-3.3.5.2-19"},
    ),
    (
        Operation.QueueDeletion,
        lambda u: with_property(u, PropId.PROPID_D_SCOPE, 0),
        {"MQCN-3.3.5.2-23"},
    ),
]


@pytest.mark.parametrize(("operation", "change", "wanted"), _V1_DEFECTS)
def test_each_v1_defect_breaks_exactly_its_requirement(
    operation: Operation,
    change: Callable[[NotificationUpdate], NotificationUpdate],
    wanted: set[str],
) -> None:
    scenario = one(operation, 1)
    assert scenario.broken() == set()
    assert scenario.with_update(change).broken() == wanted


def test_the_command_follows_the_operation() -> None:
    """A message of one operation answering another: a queue update where a deletion was
    asked breaks only the deletion's Command; a deletion where an update was asked only the
    update's.  (A creation's Command cannot change alone: its UseGuid and PathName go too.)"""
    update, deletion = one(Operation.QueueUpdate, 1), one(Operation.QueueDeletion, 1)
    as_deletion = update.with_context(notifications=deletion.context.notifications)
    assert as_deletion.broken() == {"MQCN-3.3.5.2-4"}
    as_update = deletion.with_context(notifications=update.context.notifications)
    as_update = as_update.with_context(
        notifications=(dataclasses.replace(as_update.context.notifications[0], changed=()),)
    )
    assert as_update.broken() == {"MQCN-3.3.5.2-3"}
    as_creation = update.with_context(
        notifications=one(Operation.QueueCreation, 1).context.notifications
    )
    assert as_creation.broken() == {"MQCN-3.3.5.2-2", "MQCN-3.3.5.2-5", "MQCN-3.3.5.2-7"}


def test_a_directory_service_sends_version_1() -> None:
    scenario = one(Operation.QueueUpdate, 2).with_context(version=1)
    found = scenario.broken()
    assert {"MQCN-2.2.4-1", "MQCN-3.3.5.2-24"} <= found
    assert {"MQCN-3.3.5.1-3", "MQCN-3.3.5.1-6"}.isdisjoint(found)  # not a queue manager's
    # the rules of a Version 0x01 message cannot read a Version 0x02 one: stopped, not broken
    assert {"MQCN-3.3.5.2-1", "MQCN-3.3.5.2-9"}.isdisjoint(found)
    judgement = sending_judgement(scenario.emitted, scenario.context)
    by = Violation("MQCN-2.2.4-1", 0, "is a Version 0x02 message, not 0x01")
    assert judgement.of("MQCN-3.3.5.2-9")[1] == [Stopped("MQCN-3.3.5.2-9", 0, by)]


def test_note_11_a_windows_directory_service_passes_extras_through() -> None:
    windows_2000 = PROFILES["windows-2000"]
    scenario = one(Operation.QueueManagerUpdate, 1, profile=windows_2000)
    assert scenario.broken() == set()
    bare = scenario.with_update(lambda u: without_property(u, PropId.PROPID_QM_CNS))
    assert bare.broken() == {"MQCN-3.3.5.2-29"}
    assert [v.severity for v in bare.found()] == ["info"]  # a note, never a failure
    assert bare.with_context(product_profile=False).broken() == set()


def test_notes_1_2_5_9_the_version_of_the_product() -> None:
    notes = {"MQCN-1.6-1", "MQCN-1.6-2", "MQCN-2.2.4-4", "MQCN-3.3.4.1-4"}
    windows_2000 = emit(list(Operation), version=None, profile=PROFILES["windows-2000"])
    assert windows_2000.broken() == set()
    as_windows_xp = windows_2000.with_context(version=None, product_version=2)
    assert notes <= as_windows_xp.broken()
    # a scenario that asks for a directory service chose the sender: the notes do not apply
    assert notes.isdisjoint(windows_2000.with_context(version=1, product_version=2).broken())


# --- 2.2.6: UseGuid and the naming fields (bypassing the codec, which keeps them) ----------


def judged(
    requirement: str, message: ChangeNotificationMessage, context: SendingContext, version: int = 1
) -> list:
    """What the rules registered for ``requirement`` find in ``message`` taken as read."""
    envelope = Envelope(body=bytes((version,)))  # the rules read the message, not these bytes
    emission = Emission(0, envelope, Verdict(True, message), None, version)
    return [
        problem
        for rule in sending.RULES
        if rule.requirement == requirement and rule.applies_to(emission, context)
        for problem in rule.check(emission, context, STRICT)
    ]


@pytest.mark.parametrize(
    ("requirement", "use_guid", "path_name", "guid"),
    [
        ("MQCN-2.2.6-2", 0, "qm1\\orders", QUEUE_ID),
        ("MQCN-2.2.6-3", 2, None, None),
        ("MQCN-2.2.6-3", 0, None, None),
        ("MQCN-2.2.6-6", 1, "qm1\\orders", QUEUE_ID),
        ("MQCN-2.2.6-7", 1, None, None),
    ],
)
def test_use_guid_and_the_naming_fields_go_together(
    requirement: str, use_guid: int, path_name: str | None, guid: uuid.UUID | None
) -> None:
    good = decode_message(one(Operation.QueueUpdate, 1).emitted[0].body)
    assert judged(requirement, good, SendingContext()) == []
    odd = replace_update(good.updates[0], use_guid=use_guid, path_name=path_name)
    odd = replace_update(odd, guid_identifier=guid)
    assert judged(requirement, v1_message([odd]), SendingContext())


@pytest.mark.parametrize(
    ("requirement", "version", "message"),
    [
        ("MQCN-3.3.5.1-1", 2, ChangeNotificationMessage(2, 1)),  # no Notification Body
        ("MQCN-3.3.5.1-9", 2, ChangeNotificationMessage(2, 1, trailing=b"\x00\x00")),
        ("MQCN-3.3.5.2-1", 1, ChangeNotificationMessage(1, 0)),  # no Notification Update
        ("MQCN-3.3.5.2-26", 1, ChangeNotificationMessage(1, 0, trailing=b"\x00\x00")),
    ],
)
def test_structure_rules_judge_a_message_taken_as_read(
    requirement: str, version: int, message: ChangeNotificationMessage
) -> None:
    """What the codec keeps when it reads bytes (a body, updates, one spare byte), these rules
    check on the message as given: each finds its fault, and a spare byte alone is none."""
    assert judged(requirement, message, SendingContext(), version)
    spare = dataclasses.replace(message, trailing=b"\x00")
    conforming = decode_message(one(Operation.QueueUpdate, version).emitted[0].body)
    assert judged(requirement, conforming, SendingContext(), version) == []
    if requirement in ("MQCN-3.3.5.1-9", "MQCN-3.3.5.2-26"):
        assert judged(requirement, spare, SendingContext(), version) == []


# --- 3.3.5.1 and 2.2.5: a Version 0x02 message ------------------------------------------------


def _v2(event: int, guid: uuid.UUID = QUEUE_ID, server: str = SERVER) -> Callable[[bytes], bytes]:
    return lambda body: body_buffer(v2_notification(event, guid, server))


def aggregates(scenario: Scenario) -> set[str]:
    return {v.requirement for v in scenario.found()} & AGGREGATE_IDS


def test_each_v2_defect_breaks_exactly_its_requirement() -> None:
    scenario = one(Operation.QueueUpdate, 2)
    assert scenario.with_body(_v2(1)).broken() == {"MQCN-3.3.5.1-3"}
    assert scenario.with_body(_v2(2, server="dc9")).broken() == {"MQCN-3.3.5.1-5"}
    # ObjectGuid is the changed object: 2.2.5-3, 3.3.5.1-4 and 3.3.4.1-1 are one question
    another = scenario.with_body(_v2(2, OTHER)).with_context(
        directory_queues=frozenset({QUEUE_ID, OTHER})
    )
    assert another.broken() == {"MQCN-2.2.5-3", "MQCN-3.3.5.1-4", "MQCN-3.3.4.1-1"}
    unknown = scenario.with_context(directory_queues=frozenset({OTHER}))
    assert unknown.broken() == {"MQCN-2.2.5-4"}
    # issue 17: a Version 0x02 preparation fault breaks the summary "prepare it per 3.3.5.1"
    # (MQCN-3.3.4.1-2) too, whether the rule is of 3.3.5.1 or of 2.2.x, and nothing it sends
    for wrong in (scenario.with_body(_v2(1)), scenario.with_body(_v2(2, server="dc9")), unknown):
        assert aggregates(wrong) == {"MQCN-3.3.4.1-2"}
    assert scenario.with_body(lambda b: b[:1] + b"\x02" + b[2:]).broken() == {
        "MQCN-2.2.4-2",
        "MQCN-2.2.4-3",
        "MQCN-3.3.5.1-7",
    }


def test_a_queue_manager_sends_one_message_per_notification() -> None:
    scenario = emit([Operation.QueueCreation, Operation.QueueCreation], version=2)
    twice = dataclasses.replace(scenario.context.notifications[0], messages=2)
    update = one(Operation.QueueUpdate, 2).context.notifications[0]
    none = dataclasses.replace(update, messages=0)
    assert scenario.with_context(notifications=(twice, none)).broken() == {
        "MQCN-3.3.5.1-8",
        "MQCN-3.3.4.1-1",
    }


def test_a_directory_service_may_send_several_messages_for_one_notification() -> None:
    """One message per notification is a queue manager's rule (MQCN-3.3.5.1-8), not a
    directory service's."""
    scenario = emit([Operation.QueueCreation, Operation.QueueCreation], version=1)
    twice = dataclasses.replace(scenario.context.notifications[0], messages=2)
    assert scenario.with_context(notifications=(twice,)).broken() == set()


def test_a_queue_manager_sends_version_2() -> None:
    found = one(Operation.QueueUpdate, 1).with_context(version=2).broken()
    assert {"MQCN-2.2.4-1", "MQCN-3.3.5.1-6"} <= found
    assert {"MQCN-3.3.5.1-1", "MQCN-3.3.5.1-4"}.isdisjoint(found)  # stopped by MQCN-2.2.4-1


# --- the readings ------------------------------------------------------------------------------

_SPACED = "</ObjectGuid >".encode("utf-16-le")
_TAG = "</ObjectGuid>".encode("utf-16-le")


def test_e01_a_body_closing_objectguid_with_a_space() -> None:
    scenario = one(Operation.QueueUpdate, 2).with_body(lambda b: b.replace(_TAG, _SPACED))
    assert scenario.broken() == {"MQCN-2.2.5-6"}  # what needs the body read is stopped
    assert scenario.broken(following("E-01")) == set()
    assert scenario.broken(following("E-05")) == scenario.broken()


def test_e05_bytes_after_the_spare_byte() -> None:
    scenario = one(Operation.QueueCreation, 1).with_body(lambda b: b + b"\x00\x00")
    assert scenario.broken() == {
        "MQCN-2.2.4-2",
        "MQCN-3.3.5.2-25",
        "MQCN-3.3.5.2-26",
        "MQCN-3.3.5.3-7",
    }
    assert scenario.broken(following("E-05")) == set()
    # the 3.3.5.3 spare byte is still required under that reading
    bare = one(Operation.QueueCreation, 1).with_body(lambda b: b[:-1])
    assert bare.broken(following("E-05")) == {"MQCN-3.3.5.3-7"}


@pytest.mark.parametrize(
    ("operation", "propid", "value", "requirement"),
    [
        (Operation.QueueUpdate, PropId.PROPID_Q_MODIFY_TIME, 1_700_000_001, "MQCN-3.3.5.2-18"),
        (Operation.QueueManagerUpdate, PropId.PROPID_QM_MODIFY_TIME, 5, "MQCN-3.3.5.2-20"),
        (Operation.QueueDeletion, PropId.PROPID_Q_LABEL, "orders", "MQCN-3.3.5.2-21"),
    ],
)
def test_e11_properties_beyond_the_lists_incl_deletions(
    operation: Operation, propid: PropId, value: object, requirement: str
) -> None:
    scenario = one(operation, 1).with_update(lambda u: with_property(u, propid, value))
    assert scenario.broken() == {requirement}
    assert scenario.broken(following("E-11")) == set()


def test_e11_still_requires_every_changed_property() -> None:
    scenario = one(Operation.QueueUpdate, 1).with_update(
        lambda u: with_property(without_property(u, PropId.PROPID_Q_QUOTA), 110, 1_700_000_001)
    )
    assert scenario.broken(following("E-11")) == {"MQCN-3.3.5.2-18"}


def test_a_client_following_two_readings_at_once_breaks_no_aggregate() -> None:
    """Padding (E-05) and an extra PROPID (E-11) in one message: each requirement they break
    is excused by one reading, so the aggregates stay unbroken (one switch at a time could not
    excuse them); a real defect in the same message still breaks them."""
    both = following("E-05", "E-11")
    scenario = emit([Operation.QueueUpdate], version=1, readings=both)
    assert {"MQCN-3.3.5.2-18", "MQCN-3.3.5.2-26", "MQCN-3.3.5.3-7"} <= scenario.broken()
    assert not {v.requirement for v in scenario.found()} & AGGREGATE_IDS
    assert scenario.found(both) == []
    late = scenario.with_envelope(time_to_reach_queue=1)
    aggregates = {v.requirement for v in late.found()} & AGGREGATE_IDS
    assert aggregates == {"MQCN-3.3.4.1-3", "MQCN-3.3.5.2-28"}
    wrong = scenario.with_update(lambda u: with_property(u, PropId.PROPID_Q_QUOTA, 1))
    assert {v.requirement for v in wrong.found()} & AGGREGATE_IDS == {"MQCN-3.3.4.1-2"}


# --- what a step states; the Open Queue ----------------------------------------------------


def test_a_statement_of_the_step_must_be_what_the_scenario_makes_it() -> None:
    context = one(Operation.QueueUpdate, 2).context
    assert statement_problem(context, {"event": 2, "version": 2, "object": QUEUE_ID}) is None
    assert statement_problem(context, {"changed": ("Security", "Quota", "BasePriority")}) is None
    assert statement_problem(context, {"hash": "SHA512", "msmq": "6.0", "level": "Sig20"}) is None
    assert "event 3" in (statement_problem(context, {"event": 3}) or "")
    assert statement_problem(context, {"label": "orders"}) is None
    assert statement_problem(context, {"label": "</ObjectGuid>"}) is not None
    nt4 = emit([Operation.QueueDeletion], version=None, profile=PROFILES["windows-nt4"]).context
    assert statement_problem(nt4, {"hash": "MD5", "product_level": "Sig10", "version": 1}) is None
    assert statement_problem(nt4, {"required": ["PROPID_D_SCOPE", "PROPID_D_OBJTYPE"]}) is None


def test_the_open_queue_of_3_3_3() -> None:
    opened = NotificationClient(DS).initialize(QM).to_json()
    assert open_queue_violations(opened, QM) == []
    assert [v.requirement for v in open_queue_violations(None)] == ["MQCN-3.3.3-1"]
    assert [v.requirement for v in open_queue_violations(opened, OTHER)] == ["MQCN-3.3.3-2"]
    for requirement, key in (
        ("MQCN-3.3.3-3", "next_hops"),
        ("MQCN-3.3.3-4", "required_access"),
        ("MQCN-3.3.3-5", "shared_mode"),
    ):
        found = open_queue_violations(opened | {key: "x"}, QM)
        assert [v.requirement for v in found] == [requirement]


def test_messages_need_the_outgoing_queue_3_3_3_opened() -> None:
    """3.3.5.3 enqueues to the descriptor 3.3.3 created: no Open Queue, nowhere to enqueue."""
    scenario = emit([Operation.QueueUpdate, Operation.QueueDeletion], version=1)
    opened = NotificationClient(DS).initialize(QM).to_json()
    assert open_queue_violations(opened, QM, scenario.emitted) == []
    found = open_queue_violations(None, QM, scenario.emitted)
    assert [v.requirement for v in found] == ["MQCN-3.3.3-1", "MQCN-3.3.5.3-13"]
    assert "2 Message(s)" in found[1].message
    elsewhere = scenario.with_envelope(1, destination_format_name=f"PRIVATE={OTHER}\\3")
    found = open_queue_violations(opened, QM, elsewhere.emitted)
    assert [v.requirement for v in found] == ["MQCN-3.3.5.3-13"]
    assert found[0].message.startswith("emitted message 1 went to")
    upper = opened | {"destination_format_name": f"PRIVATE={str(QM).upper()}\\3"}
    assert open_queue_violations(upper, QM, scenario.emitted) == []


# --- which requirement a value the client wrote differently breaks (2.2.3 vs 3.3.5.2) ---------


@pytest.mark.parametrize(
    ("found", "blamed"),
    [
        ([-255], None),  # the directory's value
        ([511], "MQCN-2.2.3.1-1"),  # 01 ff written ff 01: the VT's byte order slipped
        ([7], "MQCN-3.3.5.2-22"),  # a well-written other value: not the directory's
        ([None], "MQCN-3.3.5.2-14"),  # the creation lacks the property
        ([], "MQCN-3.3.5.2-1"),  # no update at all
    ],
)
def test_a_value_mismatch_blames_the_vt_rule_only_for_a_byte_order_slip(
    found: list[int | None], blamed: str | None
) -> None:
    problem = value_mismatch("MQCN-2.2.3.1-1", PropId.PROPID_Q_BASEPRIORITY, found, -255)
    assert (problem[0] if problem else None) == blamed


# --- issue 17: the judgement's own plumbing, measured by mutation --------------------------------


def test_a_rule_that_needs_an_unreadable_message_says_what_stopped_it() -> None:
    """A rule that needs the decoded message is stopped, not broken, by a body the codec
    cannot read, and the stop names the codec's first violation; a readable body has no
    such reason."""
    from mqcn_model.judge import judge

    scenario = one(Operation.QueueUpdate, 1)
    broken = scenario.with_body(lambda b: b"\x00" + b)
    first = judge(broken.emitted[0].body).violations[0]
    assert "MQCN-3.3.5.2-22" not in broken.broken()
    judgement = sending.sending_judgement(broken.emitted, broken.context)
    assert judgement.of("MQCN-3.3.5.2-22") == ([], [Stopped("MQCN-3.3.5.2-22", 0, first)])
    (readable,) = sending.read_emissions(scenario.emitted, scenario.context)
    assert readable.unreadable == ""
    nameless = dataclasses.replace(readable, verdict=Verdict(False, None))
    assert nameless.unreadable == "no message"


def test_messages_answer_the_notifications_in_order_and_extra_ones_answer_none() -> None:
    scenario = emit([Operation.QueueCreation, Operation.QueueUpdate], version=1)
    first = scenario.context.notifications[0]
    announced = dataclasses.replace(scenario.context, notifications=(first,))
    emissions = sending.read_emissions(scenario.emitted, announced)
    assert [e.notification for e in emissions] == [first, None]
    fewer = sending.read_emissions(scenario.emitted[:1], scenario.context)  # no error
    assert [e.notification for e in fewer] == [first]
    assert sending_violations(scenario.emitted[:1], scenario.context) == []


def test_without_an_asked_version_the_rules_follow_the_version_the_body_claims() -> None:
    v1 = one(Operation.QueueUpdate, 1).with_context(version=None)
    v1 = v1.with_envelope(sender_identifier_type=SenderIdType.Sid)
    assert v1.broken() == {"MQCN-3.3.5.3-12"}
    v2 = one(Operation.QueueUpdate, 2).with_context(version=None).with_body(_v2(2, server="dc9"))
    assert v2.broken() == {"MQCN-3.3.5.1-5"}
    neither = v1.with_body(lambda b: b"\x03" + b[1:])
    (emission,) = sending.read_emissions(neither.emitted, neither.context)
    assert emission.version is None
    assert "MQCN-3.3.5.3-12" not in neither.broken()  # a Version 0x01 rule: not applied


def test_product_notes_are_judged_only_where_the_context_follows_a_product_profile() -> None:
    """Note <11> (MQCN-3.3.5.2-29) on a machine update without extras: judged for a client
    that follows the Windows 2000 profile, not for one the context calls profile-less."""
    scenario = one(Operation.QueueManagerUpdate, 1).with_context(product_version=1)
    assert scenario.context.product_profile is False and scenario.broken() == set()
    assert scenario.with_context(product_profile=True).broken() == {"MQCN-3.3.5.2-29"}
    assert SendingContext(product_version=1).product_profile is False


def test_findings_name_what_was_found() -> None:
    """The text of a finding says what the message holds (the suite promises the requirement
    ID; these check that its sentence is not empty or wrong)."""
    v1 = one(Operation.QueueUpdate, 1)
    found = {v.requirement: v.message for v in v1.with_context(version=2).found()}
    assert (
        found["MQCN-2.2.4-1"] == "emitted message 0: Version is 01, the client was asked for 0x02"
    )
    empty = {v.requirement: v.message for v in v1.with_body(lambda b: b"").found()}
    assert empty["MQCN-2.2.4-1"] == (
        "emitted message 0: Version is missing, the client was asked for 0x01"
    )
    bare = v1.with_update(lambda u: without_property(u, PropId.PROPID_Q_QUOTA))
    bare = bare.with_update(lambda u: without_property(u, PropId.PROPID_Q_BASEPRIORITY))
    bare = bare.with_update(lambda u: without_property(u, PropId.PROPID_Q_SECURITY))
    texts = [v.message for v in bare.found() if v.requirement == "MQCN-3.3.5.2-18"]
    assert texts and texts[0].startswith("emitted message 0: carries the modifiable none, ")


def test_the_version_0x02_count_is_read_from_the_second_byte() -> None:
    scenario = one(Operation.QueueUpdate, 2)
    found = {v.requirement: v.message for v in scenario.with_body(lambda b: b"\x02").found()}
    assert found["MQCN-2.2.4-2"].endswith(
        "NumberOfUpdateNotifications is None, but Data carries one Notification Body"
    )
    two_bytes = scenario.with_body(lambda b: b"\x02\x01")
    assert "MQCN-2.2.4-2" not in {v.requirement for v in two_bytes.found()}


def test_the_directory_object_is_judged_only_where_the_directory_is_known() -> None:
    scenario = one(Operation.QueueUpdate, 2)
    unknown = scenario.with_context(
        directory_queues=frozenset(), directory_queue_managers=frozenset()
    )
    assert unknown.broken() == set()
    machines_only = scenario.with_context(directory_queues=frozenset())
    found = {v.requirement: v.message for v in machines_only.found()}
    assert found["MQCN-2.2.5-4"].endswith(f"names {QUEUE_ID}, which is no queue object")
    machine = one(Operation.QueueManagerUpdate, 2).with_context(
        directory_queue_managers=frozenset({OTHER})
    )
    found = {v.requirement: v.message for v in machine.found()}
    assert found["MQCN-2.2.5-4"].endswith(f"names {QM}, which is no machine object")


def test_a_rule_that_reads_no_decoded_message_judges_an_unreadable_body_too() -> None:
    """Version 0x01 is judged on the first byte, readable or not (MQCN-3.3.5.2-24 is no
    decoded rule); a rule that needs the decoded message is stopped by the codec's breach,
    which is the one requirement broken."""
    cut = one(Operation.QueueUpdate, 1).with_body(lambda b: b[:5])
    assert cut.broken() == {"MQCN-2.2.6-7"}
    judgement = sending.sending_judgement(cut.emitted, cut.context)
    assert judgement.of("MQCN-3.3.5.2-24") == ([], [])
    _, stopped = judgement.of("MQCN-3.3.5.2-22")
    assert [s.by.requirement for s in stopped] == ["MQCN-2.2.6-7"]


def test_an_update_named_by_its_path_breaks_the_guid_naming_rules() -> None:
    by_path = one(Operation.QueueUpdate, 1).with_update(
        lambda u: replace_update(u, use_guid=0, path_name="qm1\\orders", guid_identifier=None)
    )
    assert {"MQCN-3.3.5.2-6", "MQCN-3.3.5.2-8", "MQCN-3.3.5.2-9"} <= by_path.broken()
    # named by its path as a creation is (Command 0x00): the content rules see a well-named
    # creation, the operation asked for an update named by GUID
    as_creation = by_path.with_update(lambda u: replace_update(u, command=0))
    assert {"MQCN-3.3.5.2-3", "MQCN-3.3.5.2-6"} <= as_creation.broken()


def test_e11_lets_an_unchanged_modifiable_property_ride_along() -> None:
    """Under E-11's other reading any PROPID may ride along, a modifiable one the change did
    not touch too; the strict reading wants exactly the changed ones."""
    queue = orders()
    scenario = emit([Operation.QueueUpdate], version=1, changed={Operation.QueueUpdate: ("Quota",)})
    along = scenario.with_update(
        lambda u: with_property(u, PropId.PROPID_Q_BASEPRIORITY, queue.BasePriority)
    )
    assert {v.requirement: v.message for v in along.found()}["MQCN-3.3.5.2-18"] == (
        "emitted message 0: carries the modifiable PROPID_Q_BASEPRIORITY, PROPID_Q_QUOTA, "
        "the change modified PROPID_Q_QUOTA"
    )
    assert along.broken() == {"MQCN-3.3.5.2-18"}
    assert along.broken(following("E-11")) == set()
    missing = scenario.with_update(lambda u: without_property(u, PropId.PROPID_Q_QUOTA))
    found = {v.requirement: v.message for v in missing.found(following("E-11"))}
    # what it carries beyond PROPID_Q_QMID: nothing
    assert found["MQCN-3.3.5.2-18"] == (
        "emitted message 0: the modified PROPID_Q_QUOTA missing (carries none)"
    )


def test_a_change_of_an_attribute_no_update_carries_is_not_asked_of_the_message() -> None:
    """Only the modifiable PROPIDs of the change are wanted: a change that also names Label
    (which a queue update does not carry, 3.3.5.2) is met by carrying Quota."""
    scenario = emit([Operation.QueueUpdate], version=1, changed={Operation.QueueUpdate: ("Quota",)})
    notification = dataclasses.replace(
        scenario.context.notifications[0], changed=("Quota", "Label")
    )
    assert scenario.with_context(notifications=(notification,)).broken() == set()


def test_a_message_without_a_hash_algorithm_says_none() -> None:
    unhashed = one(Operation.QueueUpdate, 1).with_envelope(hash_algorithm=None)
    found = {v.requirement: v.message for v in unhashed.found()}
    assert (
        found["MQCN-3.3.5.3-5"] == "emitted message 0: HashAlgorithm is none, MSMQ 6.0 uses SHA512"
    )


def test_a_reading_already_followed_does_not_stop_the_search_for_another() -> None:
    """Judged under E-01's other reading, padding after the spare byte (E-05) is still
    excused from the summaries: the readings not followed yet are all tried."""
    padded = one(Operation.QueueCreation, 1).with_body(lambda b: b + b"\x00\x00")
    e01 = following("E-01")
    assert padded.broken(e01) == {
        "MQCN-2.2.4-2",
        "MQCN-3.3.5.2-25",
        "MQCN-3.3.5.2-26",
        "MQCN-3.3.5.3-7",
    }
    assert not {v.requirement for v in padded.found(e01)} & AGGREGATE_IDS


def test_a_stopped_requirement_says_which_message_and_what_stopped_it() -> None:
    """The report shows a stop as ``inconclusive (stopped by …)``: its text names the emitted
    message and the breach that keeps the rule from judging it."""
    by = Violation("MQCN-2.2.4-1", 0, "no message")
    assert str(Stopped("MQCN-3.3.5.2-22", 2, by)) == (
        "emitted message 2 cannot be judged: MQCN-2.2.4-1 at byte 0: no message"
    )


def test_a_version_no_sender_may_write_stops_the_rules_that_judge_the_version_chosen() -> None:
    """Version 0x03 breaks MQCN-2.2.4-1 at byte 0; the rules that judge which of the two
    Versions a sender chose (here MQCN-3.3.5.2-24) are stopped by exactly that breach."""
    scenario = one(Operation.QueueUpdate, 1).with_body(lambda b: b"\x03" + b[1:])
    _, stopped = sending_judgement(scenario.emitted, scenario.context).of("MQCN-3.3.5.2-24")
    by = Violation("MQCN-2.2.4-1", 0, "Version is 03, which no sender may write")
    assert stopped == [Stopped("MQCN-3.3.5.2-24", 0, by)]


def test_a_message_the_codec_gave_no_reason_for_stops_a_decoded_rule_as_no_message() -> None:
    """A verdict with no message and no violation (the judge always names one; the fallback
    keeps a rule from judging nothing silently) stops a rule that needs the decoded message
    by MQCN-2.2.4-1, "no message"; a rule that reads only the envelope is not stopped."""
    scenario = one(Operation.QueueUpdate, 1)
    (readable,) = sending.read_emissions(scenario.emitted, scenario.context)
    nameless = dataclasses.replace(readable, verdict=Verdict(False, None))
    decoded = next(r for r in sending.RULES if r.decoded and not r.version_known)
    assert decoded.stopped_by(nameless) == Violation("MQCN-2.2.4-1", 0, "no message")
    envelope_only = next(r for r in sending.RULES if not r.decoded and not r.version_known)
    assert envelope_only.stopped_by(nameless) is None


def test_a_value_mismatch_names_what_is_missing_other_or_repeated() -> None:
    """value_mismatch on each shape of ``found``: a property not carried (3.3.5.2-14, named
    even when no PropId names it), another value after an equal one (3.3.5.2-22), a value
    that does not encode as the VT (another value, never a byte-order slip), and the right
    value in more than one update (the VT requirement: one value is held)."""
    base = PropId.PROPID_Q_BASEPRIORITY
    assert sending.value_mismatch("MQCN-2.2.3.1-1", base, [None], -255) == (
        "MQCN-3.3.5.2-14",
        "the creation does not carry PROPID_Q_BASEPRIORITY",
    )
    assert sending.value_mismatch("MQCN-2.2.3.1-1", 99999, [None], 1) == (
        "MQCN-3.3.5.2-14",
        "the creation does not carry PROPID 99999",
    )
    assert sending.value_mismatch("MQCN-2.2.3.1-1", base, [-255, 7], -255) == (
        "MQCN-3.3.5.2-22",
        "PROPID_Q_BASEPRIORITY is 7, the directory holds -255",
    )
    assert sending.value_mismatch("MQCN-2.2.3.1-1", base, ["x"], -255)[0] == "MQCN-3.3.5.2-22"
    assert sending.value_mismatch("MQCN-2.2.3.1-1", base, [-255, -255], -255) == (
        "MQCN-2.2.3.1-1",
        "PROPID_Q_BASEPRIORITY read as [-255, -255], the directory holds one value",
    )


@pytest.mark.parametrize(
    ("msmq_version", "e16", "broken"),
    [("2.0", False, True), ("2.0", True, False), ("6.0", True, True), ("6.0", False, True)],
)
def test_sha1_is_msmq_2_0s_hash_only_under_e16s_other_reading(
    msmq_version: str, e16: bool, broken: bool
) -> None:
    """Note <12> lists MSMQ 2.0 under SHA-1 as well as MD5 (errata E-16): SHA-1 from an
    MSMQ 2.0 sender passes under that reading only, and never from MSMQ 6.0 (SHA-512)."""
    scenario = one(Operation.QueueUpdate, 1).with_envelope(hash_algorithm=HashAlgorithm.SHA1)
    scenario = scenario.with_context(msmq_version=msmq_version)
    readings = following("E-16") if e16 else STRICT
    assert ("MQCN-3.3.5.3-5" in scenario.broken(readings)) is broken


def test_a_readable_message_with_a_codec_finding_stops_nothing() -> None:
    """Padding after the spare byte (a codec finding under the strict E-05 reading) leaves
    the message readable: it is not among the unreadable ones and stops no requirement."""
    padded = one(Operation.QueueCreation, 1).with_body(lambda b: b + b"\x00\x00")
    (emission,) = sending.read_emissions(padded.emitted, padded.context)
    assert emission.message is not None and emission.verdict.violations
    judgement = sending_judgement(padded.emitted, padded.context)
    assert judgement.unreadable == []
    assert judgement.of("MQCN-3.3.5.2-22") == ([], [])
