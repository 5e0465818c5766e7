"""Content rules (``mqcn_model.rules``) on both sides: what passes and what each break yields.

Every case goes through the wire: the update is built, encoded in a body buffer (with the
3.3.5.3 spare byte), judged, and the requirement IDs found must be exactly the expected ones,
in wire order.  A few cases also call :func:`check_update` on built (never encoded) updates.
"""

from __future__ import annotations

import dataclasses
import struct
import uuid
from collections.abc import Iterable, Sequence

import pytest

from mqcn_model.builders import (
    machine_update,
    minimal_security_descriptor,
    queue_creation,
    queue_creation_properties,
    queue_deletion,
    queue_update,
    v2_notification,
)
from mqcn_model.catalog import CATALOG
from mqcn_model.codec import (
    NotificationUpdate,
    body_buffer,
    decode_message,
    encode_message,
    v1_message,
)
from mqcn_model.codec.propvalue import PropertyValue
from mqcn_model.codec.update import decode_update, encode_update
from mqcn_model.constants import (
    MACHINE_UPDATE_IGNORED,
    MACHINE_UPDATE_MODIFIABLE,
    MQDS,
    PROPERTIES,
    QUEUE_CREATE_REQUIRED,
    QUEUE_UPDATE_MODIFIABLE,
    Command,
    Event,
    PropId,
    ValueKind,
)
from mqcn_model.errata import LENIENT, STRICT, Readings
from mqcn_model.judge import Verdict, judge
from mqcn_model.rules import check_message, check_update, update_object_type
from mqcn_model.values import (
    check_label,
    check_ldap_url,
    check_multicast,
    check_pathname,
    check_property_value,
    check_security_descriptor,
    check_ta_address_list,
)

P = PropId
QUEUE = uuid.UUID("6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f0")
QM = uuid.UUID("0f2c1e3a-0000-4000-8000-000000000001")
MASTER = uuid.UUID("11111111-2222-4333-8444-555555555555")
OTHER = uuid.UUID(int=0x42)

VALUE = "MQCN-3.3.5.2-22"
PATHNAME = "MQCN-2.2.6-5"


def judged(
    updates: NotificationUpdate | Sequence[NotificationUpdate],
    readings: Readings = STRICT,
    spare: int = 0,
) -> Verdict:
    if isinstance(updates, NotificationUpdate):
        updates = [updates]
    return judge(body_buffer(v1_message(list(updates)), spare), readings)


def violation_ids(verdict: Verdict) -> list[str]:
    assert verdict.message is not None, verdict.violations  # decoded: this is about content
    for found in (*verdict.violations, *verdict.observations):
        assert found.requirement in CATALOG
    assert verdict.conforming == (not verdict.violations)
    assert all(v.severity == "error" for v in verdict.violations)
    assert all(v.severity != "error" for v in verdict.observations)
    return [v.requirement for v in verdict.violations]


def assert_ids(
    updates: NotificationUpdate | Sequence[NotificationUpdate],
    expected: Iterable[str],
    readings: Readings = STRICT,
) -> Verdict:
    verdict = judged(updates, readings)
    assert violation_ids(verdict) == list(expected), [str(v) for v in verdict.violations]
    return verdict


def assert_conforming(
    updates: NotificationUpdate | Sequence[NotificationUpdate], readings: Readings = STRICT
) -> None:
    verdict = assert_ids(updates, [], readings)
    assert verdict.conforming
    assert verdict.observations == ()


def creation(path: str = "host\\orders", **attributes: object) -> NotificationUpdate:
    return queue_creation(QUEUE, path, master=MASTER, **attributes)


def creation_with(
    pairs: Iterable[tuple[int, PropertyValue]], path: str = "host\\orders"
) -> NotificationUpdate:
    return NotificationUpdate.creation(path, pairs, master=MASTER)


def change(pairs: Iterable[tuple[int, PropertyValue]]) -> NotificationUpdate:
    return NotificationUpdate.change(QUEUE, pairs, master=MASTER)


def deletion(pairs: Iterable[tuple[int, PropertyValue]]) -> NotificationUpdate:
    return NotificationUpdate(
        Command.DELETE, 1, None, QUEUE, MASTER, NotificationUpdate.props(pairs)
    )


# --- conforming messages --------------------------------------------------------------------


@pytest.mark.parametrize(
    "update",
    [
        creation(),
        creation("host.example.com\\private$\\orders", label="x" * 124),
        creation(extra=[(P.PROPID_Q_MULTICAST_ADDRESS, "234.1.1.1:8001")]),
        queue_update(QUEUE, QM, {}, master=MASTER),
        queue_update(
            QUEUE, QM, {P.PROPID_Q_QUOTA: 0, P.PROPID_Q_BASEPRIORITY: -32768}, master=MASTER
        ),
        machine_update(QM, {}, master=MASTER),
        machine_update(QM, {P.PROPID_QM_QUOTA: 0xFFFFFFFF}, master=MASTER, foreign=1),
        queue_deletion(QUEUE, master=MASTER),
    ],
    ids=[
        "creation",
        "creation-private",
        "creation-multicast",
        "queue-update-qmid-only",
        "queue-update",
        "machine-update-ids-only",
        "machine-update-foreign",
        "deletion",
    ],
)
def test_conforming_update(update: NotificationUpdate) -> None:
    assert_conforming(update)
    assert_conforming(update, LENIENT)
    assert check_update(update) == []


def test_conforming_message_of_many_updates() -> None:
    updates = [
        creation(),
        queue_update(QUEUE, QM, {P.PROPID_Q_JOURNAL: 1}, master=MASTER),
        machine_update(QM, {P.PROPID_QM_JOURNAL_QUOTA: 5}, master=MASTER),
        queue_deletion(QUEUE, master=MASTER),
    ]
    assert_conforming(updates)


def test_empty_version_1_message_conforms() -> None:
    assert_conforming([])


@pytest.mark.parametrize("event", list(Event))
def test_conforming_version_2_messages(event: Event) -> None:
    verdict = judge(body_buffer(v2_notification(event, QUEUE, "dc1.example.com")))
    assert verdict.conforming
    assert (verdict.violations, verdict.observations) == ((), ())


def test_queue_update_with_every_modifiable_property() -> None:
    values: dict[int, PropertyValue] = {
        P.PROPID_Q_JOURNAL: 1,
        P.PROPID_Q_QUOTA: 100,
        P.PROPID_Q_BASEPRIORITY: 7,
        P.PROPID_Q_JOURNAL_QUOTA: 200,
        P.PROPID_Q_SECURITY: minimal_security_descriptor(),
        P.PROPID_Q_AUTHENTICATE: 1,
        P.PROPID_Q_PRIV_LEVEL: 2,
    }
    assert set(values) == set(QUEUE_UPDATE_MODIFIABLE)
    assert_conforming(queue_update(QUEUE, QM, values, master=MASTER))


def test_queue_update_qmid_need_not_come_first() -> None:
    # PropertyId[0] = PROPID_Q_SECURITY (1101) still gives a queue object
    update = change([(P.PROPID_Q_SECURITY, minimal_security_descriptor()), (P.PROPID_Q_QMID, QM)])
    assert update_object_type(update) == MQDS.QUEUE
    assert_conforming(update)


def test_machine_update_with_the_ignored_extras_conforms() -> None:
    extras: dict[int, PropertyValue] = {
        P.PROPID_QM_ADDRESS: struct.pack("<HH", 6, 1) + bytes(6),
        P.PROPID_QM_CNS: (OTHER, QUEUE),
        P.PROPID_QM_MACHINE_TYPE: "",
        P.PROPID_QM_OS: 0x500,
    }
    assert set(extras) == set(MACHINE_UPDATE_IGNORED)
    modifiable: dict[int, PropertyValue] = {
        P.PROPID_QM_QUOTA: 1,
        P.PROPID_QM_JOURNAL_QUOTA: 2,
        P.PROPID_QM_SECURITY: minimal_security_descriptor(),
    }
    assert set(modifiable) == set(MACHINE_UPDATE_MODIFIABLE)
    assert_conforming(machine_update(QM, {**extras, **modifiable}, master=MASTER))


def test_machine_update_ids_in_any_order() -> None:
    update = NotificationUpdate.change(
        QM,
        [(P.PROPID_QM_QUOTA, 1), (P.PROPID_QM_FOREIGN, 0), (P.PROPID_QM_MACHINE_ID, QM)],
        master=MASTER,
    )
    assert update_object_type(update) == MQDS.MACHINE
    assert_conforming(update)


def test_creation_properties_in_any_order() -> None:
    pairs = list(reversed(queue_creation_properties(QUEUE, "host\\orders")))
    assert_conforming(creation_with(pairs))


# --- queue creation (3.3.5.2) ---------------------------------------------------------------


@pytest.mark.parametrize("missing", QUEUE_CREATE_REQUIRED, ids=lambda p: p.name)
def test_creation_missing_a_required_propid(missing: PropId) -> None:
    pairs = [(p, v) for p, v in queue_creation_properties(QUEUE, "host\\orders") if p != missing]
    assert len(pairs) == 14
    verdict = assert_ids(creation_with(pairs), ["MQCN-3.3.5.2-14"])
    assert missing.name in verdict.violations[0].message
    assert_ids(creation_with(pairs), ["MQCN-3.3.5.2-14"], LENIENT)


def test_creation_missing_everything() -> None:
    update = creation_with([])
    assert_ids(update, ["MQCN-3.3.5.2-2", "MQCN-3.3.5.2-14"])
    assert update_object_type(update) is None


def test_creation_with_ads_path() -> None:
    update = creation(extra=[(P.PROPID_Q_ADS_PATH, "LDAP://CN=orders,DC=example,DC=com")])
    verdict = assert_ids(update, ["MQCN-3.3.5.2-15"])
    decoded = verdict.message.updates[0]  # type: ignore[union-attr]
    ads = decoded.properties[decoded.index_of(P.PROPID_Q_ADS_PATH)]
    assert verdict.violations[0].offset == ads.id_offset > 0
    assert_ids(update, ["MQCN-3.3.5.2-15"], LENIENT)  # no switch for the MUST NOT


def test_a_built_creation_with_ads_path_has_no_offset() -> None:
    """An update built in memory has no byte offsets: the violation says None, not -1."""
    update = creation(extra=[(P.PROPID_Q_ADS_PATH, "LDAP://CN=orders,DC=example,DC=com")])
    found = [v for v in check_update(update) if v.requirement == "MQCN-3.3.5.2-15"]
    assert [v.offset for v in found] == [None]


def test_creation_with_an_invalid_ads_path_breaks_both() -> None:
    update = creation(extra=[(P.PROPID_Q_ADS_PATH, "http://example.com")])
    assert_ids(update, [VALUE, "MQCN-3.3.5.2-15"])
    assert_ids(update, ["MQCN-3.3.5.2-15"], LENIENT)


@pytest.mark.parametrize(
    "first",
    [P.PROPID_QM_QUOTA, P.PROPID_QM_SECURITY, P.PROPID_D_SCOPE, P.PROPID_QM_MACHINE_ID],
    ids=lambda p: p.name,
)
def test_creation_whose_first_propid_is_not_a_queue_propid(first: PropId) -> None:
    value: PropertyValue = {
        P.PROPID_QM_QUOTA: 1,
        P.PROPID_QM_SECURITY: minimal_security_descriptor(),
        P.PROPID_D_SCOPE: 1,
        P.PROPID_QM_MACHINE_ID: QM,
    }[first]
    update = creation_with([(first, value), *queue_creation_properties(QUEUE, "host\\orders")])
    assert update_object_type(update) != MQDS.QUEUE
    assert_ids(update, ["MQCN-3.3.5.2-2"])


def test_creation_extra_queue_properties_are_allowed() -> None:
    update = creation(extra=[(P.PROPID_Q_QMID, QM), (P.PROPID_Q_MULTICAST_ADDRESS, "239.0.0.1:1")])
    assert_conforming(update)


# --- queue and machine updates (3.3.5.2) ----------------------------------------------------


def test_queue_update_without_qmid() -> None:
    update = change([(P.PROPID_Q_QUOTA, 5)])
    verdict = assert_ids(update, ["MQCN-3.3.5.2-17"])
    assert "PROPID_Q_QMID" in verdict.violations[0].message
    assert_ids(update, ["MQCN-3.3.5.2-17"], LENIENT)


@pytest.mark.parametrize(
    ("extra", "value"),
    [
        (P.PROPID_Q_LABEL, "new label"),
        (P.PROPID_Q_TRANSACTION, 1),
        (P.PROPID_Q_PATHNAME, "host\\q"),
        (P.PROPID_Q_MODIFY_TIME, 0),
        (P.PROPID_Q_INSTANCE, QUEUE),
    ],
    ids=lambda x: getattr(x, "name", "v"),
)
def test_queue_update_with_an_unlisted_property(extra: PropId, value: PropertyValue) -> None:
    update = queue_update(QUEUE, QM, [(P.PROPID_Q_QUOTA, 1), (extra, value)], master=MASTER)
    verdict = assert_ids(update, ["MQCN-3.3.5.2-18"])
    decoded = verdict.message.updates[0]  # type: ignore[union-attr]
    assert verdict.violations[0].offset == decoded.properties[2].id_offset
    assert_conforming(update, LENIENT)
    assert_conforming(update, dataclasses.replace(STRICT, extra_update_propids=True))


def test_queue_update_with_a_machine_property_is_unlisted() -> None:
    update = queue_update(QUEUE, QM, [(P.PROPID_QM_QUOTA, 1)], master=MASTER)
    assert_ids(update, ["MQCN-3.3.5.2-18"])


@pytest.mark.parametrize(
    "pairs",
    [
        [(P.PROPID_QM_FOREIGN, 0), (P.PROPID_QM_QUOTA, 1)],
        [(P.PROPID_QM_MACHINE_ID, QM), (P.PROPID_QM_QUOTA, 1)],
        [(P.PROPID_QM_QUOTA, 1)],
    ],
    ids=["no-machine-id", "no-foreign", "neither"],
)
def test_machine_update_without_its_ids(pairs: list[tuple[int, PropertyValue]]) -> None:
    update = NotificationUpdate.change(QM, pairs, master=MASTER)
    assert_ids(update, ["MQCN-3.3.5.2-19"])
    assert_ids(update, ["MQCN-3.3.5.2-19"], LENIENT)


@pytest.mark.parametrize(
    ("extra", "value"),
    [(P.PROPID_QM_SITE_ID, OTHER), (P.PROPID_QM_MODIFY_TIME, 5), (P.PROPID_Q_QUOTA, 5)],
    ids=lambda x: getattr(x, "name", "v"),
)
def test_machine_update_with_an_unlisted_property(extra: PropId, value: PropertyValue) -> None:
    update = machine_update(QM, {extra: value}, master=MASTER)
    assert_ids(update, ["MQCN-3.3.5.2-20"])
    assert_conforming(update, LENIENT)


@pytest.mark.parametrize(
    "pairs",
    [
        [],
        [(P.PROPID_D_SCOPE, 1), (P.PROPID_D_OBJTYPE, 1)],
        [(P.PROPID_D_OBJTYPE, 1), (P.PROPID_Q_QMID, QM)],
    ],
    ids=["no-properties", "deletion-propids", "objtype-first"],
)
def test_update_of_an_object_neither_queue_nor_machine(
    pairs: list[tuple[int, PropertyValue]],
) -> None:
    assert_ids(change(pairs), ["MQCN-3.3.5.2-3"])
    assert_ids(change(pairs), ["MQCN-3.3.5.2-3"], LENIENT)


# --- deletion (3.3.5.2) ---------------------------------------------------------------------

D_SCOPE, D_OBJTYPE = P.PROPID_D_SCOPE, P.PROPID_D_OBJTYPE


@pytest.mark.parametrize(
    ("pairs", "strict", "lenient"),
    [
        ([(D_OBJTYPE, 1), (D_SCOPE, 1)], ["MQCN-3.3.5.2-21"], ["MQCN-3.3.5.2-21"]),
        ([(D_SCOPE, 1)], ["MQCN-3.3.5.2-21"], ["MQCN-3.3.5.2-21"]),
        ([(D_OBJTYPE, 1)], ["MQCN-3.3.5.2-21"], ["MQCN-3.3.5.2-21"]),
        ([], ["MQCN-3.3.5.2-21"], ["MQCN-3.3.5.2-21"]),
        ([(D_SCOPE, 1), (P.PROPID_Q_SCOPE, 1)], ["MQCN-3.3.5.2-21"], ["MQCN-3.3.5.2-21"]),
        ([(D_SCOPE, 1), (D_OBJTYPE, 1), (D_OBJTYPE, 1)], ["MQCN-3.3.5.2-21"], []),
        ([(D_SCOPE, 1), (D_OBJTYPE, 1), (P.PROPID_Q_QMID, QM)], ["MQCN-3.3.5.2-21"], []),
        ([(D_SCOPE, 0), (D_OBJTYPE, 1)], ["MQCN-3.3.5.2-23"], ["MQCN-3.3.5.2-23"]),
        ([(D_SCOPE, 1), (D_OBJTYPE, int(MQDS.MACHINE))], ["MQCN-3.3.5.2-23"], ["MQCN-3.3.5.2-23"]),
        ([(D_SCOPE, 2), (D_OBJTYPE, 1)], [VALUE, "MQCN-3.3.5.2-23"], [VALUE, "MQCN-3.3.5.2-23"]),
        ([(D_SCOPE, 1), (D_OBJTYPE, 9)], [VALUE, "MQCN-3.3.5.2-23"], [VALUE, "MQCN-3.3.5.2-23"]),
        ([(D_SCOPE, 1), (D_OBJTYPE, 0)], [VALUE, "MQCN-3.3.5.2-23"], [VALUE, "MQCN-3.3.5.2-23"]),
    ],
    ids=[
        "reversed",
        "scope-only",
        "objtype-only",
        "none",
        "wrong-second",
        "extra-objtype",
        "extra-qmid",
        "site-scope",
        "machine-type",
        "scope-2",
        "objtype-9",
        "objtype-0",
    ],
)
def test_deletion_pair_variants(
    pairs: list[tuple[int, PropertyValue]], strict: list[str], lenient: list[str]
) -> None:
    update = deletion(pairs)
    assert_ids(update, strict)
    assert_ids(update, lenient, LENIENT)


def test_deletion_value_violation_points_at_the_first_value() -> None:
    verdict = assert_ids(deletion([(D_SCOPE, 0), (D_OBJTYPE, 1)]), ["MQCN-3.3.5.2-23"])
    decoded = verdict.message.updates[0]  # type: ignore[union-attr]
    assert verdict.violations[0].offset == decoded.properties[0].value_offset


# --- Command and UseGuid (2.2.6, 3.3.5.2) ---------------------------------------------------


@pytest.mark.parametrize("command", [3, 4, 0x7F, 0xFF])
def test_command_outside_0_1_2(command: int) -> None:
    for base in (queue_deletion(QUEUE, master=MASTER), creation()):
        update = dataclasses.replace(base, command=command)
        verdict = assert_ids(update, ["MQCN-2.2.6-1"])
        assert verdict.violations[0].offset == 2  # the update starts after the header
        assert_ids(update, ["MQCN-2.2.6-1"], LENIENT)


def test_creation_by_guid_identifier() -> None:
    base = creation()
    update = dataclasses.replace(base, use_guid=1, path_name=None, guid_identifier=QUEUE)
    assert_ids(update, ["MQCN-3.3.5.2-5"])


@pytest.mark.parametrize(
    "base",
    [
        queue_update(QUEUE, QM, {P.PROPID_Q_QUOTA: 1}, master=MASTER),
        machine_update(QM, {}, master=MASTER),
        queue_deletion(QUEUE, master=MASTER),
    ],
    ids=["queue-update", "machine-update", "deletion"],
)
def test_update_or_deletion_by_pathname(base: NotificationUpdate) -> None:
    update = dataclasses.replace(base, use_guid=0, path_name="host\\q", guid_identifier=None)
    assert_ids(update, ["MQCN-3.3.5.2-6"])
    assert_ids(update, ["MQCN-3.3.5.2-6"], LENIENT)


def test_deletion_by_pathname_with_a_bad_pathname() -> None:
    update = NotificationUpdate(Command.DELETE, 0, "no-backslash", None, MASTER)
    assert_ids(update, ["MQCN-3.3.5.2-6", PATHNAME, "MQCN-3.3.5.2-21"])


# --- Reserved (2.2.6) -----------------------------------------------------------------------


@pytest.mark.parametrize("reserved", [b"\x01" + bytes(23), bytes(23) + b"\xff", b"\xff" * 24])
def test_nonzero_reserved_is_an_observation_only(reserved: bytes) -> None:
    update = dataclasses.replace(queue_deletion(QUEUE, master=MASTER), reserved=reserved)
    verdict = judged(update)
    assert violation_ids(verdict) == []
    assert verdict.conforming
    assert [v.requirement for v in verdict.observations] == ["MQCN-2.2.6-8"]
    assert verdict.observations[0].severity == "info"
    assert verdict.observations[0].offset == 2 + 2 + 16 + 16  # Reserved itself


@pytest.mark.parametrize(
    ("path", "name_bytes"),
    [("host\\orders", 24), ("h\\q", 8), ("a-long-host-name\\q", 38)],
)
def test_nonzero_reserved_after_a_pathname_is_observed_at_reserved(
    path: str, name_bytes: int
) -> None:
    """The observation points at Reserved: after the UTF-16LE PathName and its U+0000."""
    update = dataclasses.replace(creation(path), reserved=b"\x01" * 24)
    verdict = judged(update)
    assert violation_ids(verdict) == []
    assert [(v.requirement, v.offset) for v in verdict.observations] == [
        ("MQCN-2.2.6-8", 2 + 2 + name_bytes + 16)
    ]


def test_nonzero_reserved_of_a_built_update_has_no_offset() -> None:
    for update in (creation(), queue_deletion(QUEUE, master=MASTER)):
        found = check_update(dataclasses.replace(update, reserved=b"\xff" * 24))
        assert [(v.requirement, v.offset) for v in found] == [("MQCN-2.2.6-8", None)]


def test_an_update_decoded_at_offset_0_reports_offsets_from_0() -> None:
    """Offset 0 is a position like any other (not "no position")."""
    bad = dataclasses.replace(creation(), command=3, reserved=b"\x01" * 24)
    decoded, _ = decode_update(encode_update(bad), 0)
    found = check_update(decoded)
    assert [(v.requirement, v.offset) for v in found] == [
        ("MQCN-2.2.6-1", 0),
        ("MQCN-2.2.6-8", 2 + 24 + 16),
    ]
    guid_form = dataclasses.replace(
        queue_deletion(QUEUE, master=MASTER), command=5, reserved=b"\x01" * 24
    )
    decoded, _ = decode_update(encode_update(guid_form), 0)
    assert [(v.requirement, v.offset) for v in check_update(decoded)] == [
        ("MQCN-2.2.6-1", 0),
        ("MQCN-2.2.6-8", 2 + 16 + 16),
    ]


# --- enumerated values ([MS-MQMQ] via MQCN-3.3.5.2-22) ---------------------------------------


def _with_value(propid: PropId, value: int) -> NotificationUpdate:
    """An otherwise conforming update that carries ``propid`` = ``value``."""
    if propid in (P.PROPID_Q_JOURNAL, P.PROPID_Q_AUTHENTICATE, P.PROPID_Q_PRIV_LEVEL):
        return queue_update(QUEUE, QM, {propid: value}, master=MASTER)
    if propid is P.PROPID_Q_TRANSACTION:
        return creation(transaction=value)
    if propid is P.PROPID_Q_SCOPE:
        return creation(scope=value)
    if propid is P.PROPID_QM_FOREIGN:
        return machine_update(QM, {}, master=MASTER, foreign=value)
    if propid is P.PROPID_QM_OS:
        return machine_update(QM, {propid: value}, master=MASTER)
    if propid is P.PROPID_D_SCOPE:
        return deletion([(D_SCOPE, value), (D_OBJTYPE, 1)])
    assert propid is P.PROPID_D_OBJTYPE
    return deletion([(D_SCOPE, 1), (D_OBJTYPE, value)])


ENUMS = [d for d in PROPERTIES.values() if d.kind is ValueKind.ENUM]
ALLOWED_CASES = [(d.propid, v) for d in ENUMS for v in d.allowed]
BAD_CASES = [
    (P.PROPID_Q_JOURNAL, 2),
    (P.PROPID_Q_JOURNAL, 255),
    (P.PROPID_Q_AUTHENTICATE, 2),
    (P.PROPID_Q_PRIV_LEVEL, 3),
    (P.PROPID_Q_PRIV_LEVEL, 0xFFFFFFFF),
    (P.PROPID_Q_TRANSACTION, 2),
    (P.PROPID_Q_SCOPE, 2),
    (P.PROPID_QM_FOREIGN, 2),
    (P.PROPID_QM_OS, 0x101),
    (P.PROPID_QM_OS, 0x600),
    (P.PROPID_QM_OS, 0xFFFFFFFF),
    (P.PROPID_D_SCOPE, 2),
    (P.PROPID_D_OBJTYPE, 9),
]


def test_every_enumerated_propid_has_cases() -> None:
    assert {d.propid for d in ENUMS} == {p for p, _ in BAD_CASES}
    assert len(ENUMS) == 9


@pytest.mark.parametrize(("propid", "value"), ALLOWED_CASES, ids=str)
def test_enumerated_value_allowed(propid: PropId, value: int) -> None:
    update = _with_value(propid, value)
    if propid in (D_SCOPE, D_OBJTYPE) and (value != 1):
        assert_ids(update, ["MQCN-3.3.5.2-23"])  # allowed value, but not the deletion's
    else:
        assert_conforming(update)


@pytest.mark.parametrize(("propid", "value"), BAD_CASES, ids=str)
def test_enumerated_value_out_of_range(propid: PropId, value: int) -> None:
    update = _with_value(propid, value)
    expected = [VALUE, "MQCN-3.3.5.2-23"] if propid in (D_SCOPE, D_OBJTYPE) else [VALUE]
    verdict = assert_ids(update, expected)
    assert propid.name in verdict.violations[0].message
    decoded = verdict.message.updates[0]  # type: ignore[union-attr]
    bad = decoded.properties[decoded.index_of(propid)]
    assert verdict.violations[0].offset == bad.value_offset
    assert_ids(update, expected, LENIENT)  # enumerations are checked in every reading


# --- label -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "ok"),
    [
        ("", True),
        ("x" * 124, True),
        ("x" * 125, False),
        ("\U0001f600" * 62, True),  # 124 UTF-16 code units
        ("x" * 123 + "\U0001f600", False),  # 125 code units
    ],
    ids=["empty", "124", "125", "62-pairs", "123+pair"],
)
def test_label_length(label: str, ok: bool) -> None:
    update = creation(label=label)
    assert_ids(update, [] if ok else [VALUE])
    assert_ids(update, [] if ok else [VALUE], LENIENT)  # not a shallow check
    assert (check_label(label) is None) is ok


def test_label_in_a_queue_update_also_checked_for_length() -> None:
    update = queue_update(QUEUE, QM, {P.PROPID_Q_LABEL: "x" * 125}, master=MASTER)
    assert_ids(update, [VALUE, "MQCN-3.3.5.2-18"])
    assert_ids(update, [VALUE], LENIENT)


# --- path names ([MS-MQMQ] 2.1.1, errata E-10) -----------------------------------------------

VALID_PATHS = [
    "host\\orders",
    "host.example.com\\orders",
    "HOST\\q",
    "host\\private$\\orders",
    "host\\PRIVATE$\\orders",
    "host\\system$;journal",
    "host\\orders;poison",
    "host\\private$\\orders;poison",
    "h" * 256 + "\\q",
    "host\\" + "q" * 124,
    "host\\q;" + "s" * 32,
    "host\\a$b_c-d.e!f",
]
INVALID_PATHS = [
    "no-backslash",
    "\\orders",
    "host\\",
    "host\\private$\\",
    "host\\a\\b",
    "host\\a b",
    "ho st\\q",
    "host\\q;",
    "host\\q;a;b",
    "h" * 257 + "\\q",
    "host\\" + "q" * 125,
    "host\\q;" + "s" * 33,
    "host\\qé",
    "hosté\\q",
    "host\\q\t",
]


@pytest.mark.parametrize("path", VALID_PATHS)
def test_valid_pathnames(path: str) -> None:
    assert check_pathname(path) is None
    assert_conforming(creation(path))


@pytest.mark.parametrize("path", INVALID_PATHS)
def test_invalid_pathnames(path: str) -> None:
    assert check_pathname(path) is not None
    assert check_pathname(path, LENIENT) is not None
    verdict = assert_ids(creation(path), [PATHNAME, VALUE])  # header PathName and Q_PATHNAME
    assert verdict.violations[0].offset == 4  # header (2) + Command/UseGuid (2)
    assert_ids(creation(path), [PATHNAME, VALUE], LENIENT)


@pytest.mark.parametrize("char", ["+", ",", '"'])
def test_msmq10_characters_strict_vs_lenient(char: str) -> None:
    path = f"host\\a{char}b"
    assert check_pathname(path) is not None
    assert_ids(creation(path), [PATHNAME, VALUE])
    assert_conforming(creation(path), LENIENT)
    assert_conforming(creation(path), dataclasses.replace(STRICT, pathname_msmq10_charset=True))


def test_pathname_checked_in_the_header_and_in_the_property_separately() -> None:
    pairs = queue_creation_properties(QUEUE, "host\\good")
    assert_ids(creation_with(pairs, path="bad"), [PATHNAME])
    assert_ids(creation_with(pairs, path="host\\good"), [])
    bad_prop = queue_creation_properties(QUEUE, "bad")
    assert_ids(creation_with(bad_prop, path="host\\good"), [VALUE])


def test_lone_surrogate_pathname_lenient_decodes_but_breaks_the_syntax() -> None:
    update = creation("host\\q\ud800")
    strict = judged(update)
    assert strict.message is None
    assert [v.requirement for v in strict.violations] == ["MQCN-2.2.6-4"]
    assert_ids(update, [PATHNAME, VALUE], LENIENT)


# --- multicast address, LDAP URL, security descriptor, TA_ADDRESS (errata E-13) --------------


@pytest.mark.parametrize(
    ("address", "ok"),
    [
        ("234.1.1.1:8001", True),
        ("224.0.0.0:0", True),
        ("239.255.255.255:65535", True),
        ("223.255.255.255:1", False),
        ("240.0.0.0:1", False),
        ("10.0.0.1:80", False),
        ("234.1.1.256:1", False),
        ("234.1.1.1:65536", False),
        ("234.1.1.1", False),
        ("234.1.1:1", False),
        ("", False),
        ("[ff02::1]:1", False),
    ],
)
def test_multicast_address(address: str, ok: bool) -> None:
    update = creation(extra=[(P.PROPID_Q_MULTICAST_ADDRESS, address)])
    assert (check_multicast(address) is None) is ok
    assert_ids(update, [] if ok else [VALUE])
    assert_conforming(update, LENIENT)  # shallow: only the wire type
    assert_conforming(update, dataclasses.replace(STRICT, shallow_value_checks=True))


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("LDAP://CN=orders,CN=host,DC=example,DC=com", True),
        ("ldap://", True),
        ("ldap://server:389/dc=example", True),
        ("http://example.com", False),
        ("ldap://a b", False),
        ("CN=orders,DC=example", False),
        ("", False),
    ],
)
def test_ldap_url(url: str, ok: bool) -> None:
    assert (check_ldap_url(url) is None) is ok
    readings = dataclasses.replace(STRICT, extra_update_propids=True)
    update = queue_update(QUEUE, QM, {P.PROPID_Q_ADS_PATH: url}, master=MASTER)
    assert_ids(update, [] if ok else [VALUE], readings)
    assert_conforming(update, LENIENT)


def _descriptor(
    revision: int = 1, control: int = 0x8004, offsets: tuple[int, ...] = (0, 0, 0, 0), tail: int = 0
) -> bytes:
    return struct.pack("<BBHIIII", revision, 0, control, *offsets) + bytes(tail)


@pytest.mark.parametrize(
    ("blob", "ok"),
    [
        (minimal_security_descriptor(), True),
        (_descriptor(offsets=(20, 0, 0, 0), tail=28), True),
        (_descriptor(offsets=(20, 32, 0, 40), tail=28), True),
        (_descriptor(control=0x8000), True),
        (b"", False),
        (_descriptor()[:19], False),
        (_descriptor(revision=2), False),
        (_descriptor(revision=0), False),
        (_descriptor(control=0x0004), False),
        (_descriptor(offsets=(20, 0, 0, 0)), False),  # Owner at the very end
        (_descriptor(offsets=(4, 0, 0, 0), tail=8), False),  # Owner inside the header
        (_descriptor(offsets=(0, 0, 0, 0xFFFFFFFF), tail=8), False),
    ],
    ids=[
        "minimal",
        "owner",
        "owner-group-dacl",
        "sr-only",
        "empty",
        "19-bytes",
        "revision-2",
        "revision-0",
        "absolute",
        "owner-at-end",
        "owner-in-header",
        "dacl-far",
    ],
)
def test_security_descriptor(blob: bytes, ok: bool) -> None:
    assert (check_security_descriptor(blob) is None) is ok
    expected = [] if ok else [VALUE]
    assert_ids(creation(security=blob), expected)
    assert_ids(queue_update(QUEUE, QM, {P.PROPID_Q_SECURITY: blob}, master=MASTER), expected)
    assert_ids(machine_update(QM, {P.PROPID_QM_SECURITY: blob}, master=MASTER), expected)
    assert_conforming(creation(security=blob), LENIENT)  # shallow reading (E-13)
    assert_conforming(machine_update(QM, {P.PROPID_QM_SECURITY: blob}, master=MASTER), LENIENT)


def _ta(length: int, kind: int, address: bytes) -> bytes:
    return struct.pack("<HH", length, kind) + address


@pytest.mark.parametrize(
    ("blob", "ok"),
    [
        (b"", True),
        (_ta(6, 1, bytes(6)), True),
        (_ta(6, 1, bytes(6)) + _ta(16, 3, bytes(16)), True),
        (_ta(0, 0, b""), True),
        (b"\x06\x00\x01", False),  # header cut short
        (_ta(6, 1, bytes(5)), False),  # address runs past the end
        (_ta(6, 1, bytes(6)) + b"\x01", False),
        (_ta(0xFFFF, 1, bytes(10)), False),
    ],
    ids=["empty", "one", "two", "zero-length", "cut-header", "short", "trailing", "huge"],
)
def test_ta_address_list(blob: bytes, ok: bool) -> None:
    assert (check_ta_address_list(blob) is None) is ok
    update = machine_update(QM, {P.PROPID_QM_ADDRESS: blob}, master=MASTER)
    assert_ids(update, [] if ok else [VALUE])
    assert_conforming(update, LENIENT)


def test_check_property_value_of_plain_types_accepts_anything() -> None:
    for definition in PROPERTIES.values():
        if definition.kind is ValueKind.ANY:
            assert check_property_value(definition, object()) is None


# --- message level: counts and trailing bytes (2.2.4, 3.3.5.1, 3.3.5.2, errata E-05) ----------


@pytest.mark.parametrize("count", [0, 2, 3, 0xFF])
def test_version_2_count_other_than_1(count: int) -> None:
    wire = bytearray(encode_message(v2_notification(Event.CHANGE_QUEUE, QUEUE, "dc")))
    wire[1] = count
    for readings in (STRICT, LENIENT):
        verdict = judge(bytes(wire) + b"\x00", readings)
        assert violation_ids(verdict) == ["MQCN-2.2.4-3", "MQCN-3.3.5.1-7"]
        assert [v.offset for v in verdict.violations] == [1, 1]


@pytest.mark.parametrize("extra", [b"\x00", b"\x00\x00", b"\xff" * 7, bytes(69)])
def test_version_1_trailing_bytes_beyond_the_spare_byte(extra: bytes) -> None:
    message = v1_message([queue_deletion(QUEUE, master=MASTER)])
    buffer = body_buffer(message) + extra
    verdict = judge(buffer)
    assert violation_ids(verdict) == ["MQCN-2.2.4-2", "MQCN-3.3.5.2-25"]
    assert [v.offset for v in verdict.violations] == [2 + 69, 2 + 69]
    assert violation_ids(judge(buffer, LENIENT)) == []
    assert violation_ids(judge(buffer, dataclasses.replace(STRICT, trailing_data=True))) == []


def test_version_1_count_0_with_an_update_behind_it() -> None:
    wire = bytearray(body_buffer(v1_message([queue_deletion(QUEUE, master=MASTER)])))
    wire[1] = 0
    verdict = judge(bytes(wire))
    assert violation_ids(verdict) == ["MQCN-2.2.4-2", "MQCN-3.3.5.2-25"]
    assert violation_ids(judge(bytes(wire), LENIENT)) == []


@pytest.mark.parametrize("spare", [b"", b"\x00", b"\x7f", b"\xff"])
def test_version_1_zero_or_one_trailing_byte_is_fine(spare: bytes) -> None:
    wire = encode_message(v1_message([queue_deletion(QUEUE, master=MASTER)])) + spare
    assert violation_ids(judge(wire)) == []


# --- wire order and the two entry points --------------------------------------------------------


def test_violations_come_in_wire_order_across_updates() -> None:
    updates = [
        change([(P.PROPID_Q_QUOTA, 5)]),  # -17
        queue_deletion(QUEUE, master=MASTER),
        dataclasses.replace(creation(), command=3),  # 2.2.6-1
        deletion([(D_OBJTYPE, 1), (D_SCOPE, 1)]),  # -21
    ]
    verdict = assert_ids(updates, ["MQCN-3.3.5.2-17", "MQCN-2.2.6-1", "MQCN-3.3.5.2-21"])
    offsets = [v.offset for v in verdict.violations]
    assert offsets == sorted(offsets)


def test_check_update_on_built_updates_has_no_offsets() -> None:
    update = deletion([(D_SCOPE, 0), (D_OBJTYPE, 9)])
    found = check_update(update)
    assert [v.requirement for v in found] == [VALUE, "MQCN-3.3.5.2-23"]
    assert [v.offset for v in found] == [None, None]


def test_check_update_on_a_built_update_with_an_unlisted_property_has_no_offset() -> None:
    update = queue_update(QUEUE, QM, [(P.PROPID_Q_TRANSACTION, 1)], master=MASTER)
    found = check_update(update)
    assert [(v.requirement, v.offset) for v in found] == [("MQCN-3.3.5.2-18", None)]


def test_check_message_agrees_with_judge() -> None:
    updates = [creation("bad"), change([(P.PROPID_Q_QUOTA, 1)])]
    message = v1_message(updates)
    buffer = body_buffer(message)
    from_judge = judged(updates)
    direct = check_message(decode_message(buffer))
    assert [v.requirement for v in direct] == violation_ids(from_judge)
    assert [v.requirement for v in check_message(message)] == violation_ids(from_judge)
