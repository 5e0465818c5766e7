"""Hypothesis strategies for MS-MQCN structures, shared by the tests and the Gherkin steps.

Three families:

* **valid** (``prop_values``, ``notification_updates``, ``v1_messages``, ...): anything the
  wire grammar of 2.2.3-2.2.6 accepts, so the fast codec decodes what it encodes.  Values
  have the right Python type for their PROPID but need not satisfy the content rules (a
  PathName may be any text, a creation may lack properties).
* **conforming** (``conforming_updates``, ``conforming_messages``, ...): built through
  :mod:`mqcn_model.builders` from drawn parameters, so every content rule holds and
  :func:`mqcn_model.judge.judge` accepts the bytes;
* **defective** (``defective_messages``): a member of the one catalogue of named defects
  (:mod:`mqcn_suite.scenarios.defects`) built with drawn identities, paired with the
  :class:`~mqcn_suite.scenarios.defects.Defect` that says which requirement the bytes break.

Every strategy draws fast-codec objects (:mod:`mqcn_model.codec`); turn them into bytes with
``encode_message``/``body_buffer`` or into scapy layers with
:func:`mqcn_model.message_layers.to_layer`.

>>> from hypothesis import given, settings
>>> from mqcn_model.codec import body_buffer
>>> from mqcn_model.judge import judge
>>> @settings(max_examples=20)
... @given(conforming_messages())
... def check(message):
...     assert judge(body_buffer(message)).conforming
>>> check()
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Sequence

from hypothesis import strategies as st

from mqcn_model import builders
from mqcn_model.codec.body import MAX_SERVER_NAME, NotificationBody
from mqcn_model.codec.message import ChangeNotificationMessage, v1_message, v2_message
from mqcn_model.codec.propvalue import PropertyValue
from mqcn_model.codec.update import ZERO_RESERVED, NotificationUpdate, Property
from mqcn_model.constants import (
    MACHINE_UPDATE_IGNORED,
    MACHINE_UPDATE_MODIFIABLE,
    MAX_LABEL_CHARS,
    MAX_PROPERTIES,
    PROPERTIES,
    QUEUE_UPDATE_MODIFIABLE,
    RESERVED_SIZE,
    SCOPES,
    VT,
    Command,
    Event,
    PropId,
    ValueKind,
)
from mqcn_suite.scenarios.defects import Defect, every_defect
from mqcn_suite.scenarios.fixtures import ScenarioIds

__all__ = [
    "conforming_messages",
    "conforming_updates",
    "conforming_v1_messages",
    "conforming_v2_messages",
    "defective_messages",
    "guids",
    "labels",
    "lpwstr_texts",
    "machine_updates",
    "messages",
    "notification_bodies",
    "notification_updates",
    "pathnames",
    "prop_values",
    "properties",
    "propids",
    "queue_creations",
    "queue_deletions",
    "queue_updates",
    "scenario_ids",
    "security_descriptors",
    "server_names",
    "ta_address_lists",
    "v1_messages",
    "v2_messages",
    "vt_values",
    "vts",
]

P = PropId

# --- building blocks -----------------------------------------------------------------------


def guids() -> st.SearchStrategy[uuid.UUID]:
    """Any 128-bit GUID (nil and all-ones included), not only RFC 4122 version 4.

    >>> from hypothesis import find
    >>> find(guids(), lambda g: g.int == (1 << 128) - 1)  # the extremes are drawn on purpose
    UUID('ffffffff-ffff-ffff-ffff-ffffffffffff')
    >>> find(guids(), lambda g: 5 < g.int < (1 << 128) - 1)  # the simplest other GUID above 5
    UUID('00000000-0000-0000-0000-000000000006')
    """
    return st.one_of(
        st.sampled_from([uuid.UUID(int=0), uuid.UUID(int=(1 << 128) - 1)]),
        st.integers(0, (1 << 128) - 1).map(lambda i: uuid.UUID(int=i)),
    )


def lpwstr_texts(*, min_size: int = 0, max_size: int = 40) -> st.SearchStrategy[str]:
    """Text a VT_LPWSTR can carry: no U+0000 (it would end the string), no lone surrogate.

    Characters outside the BMP are included (each is two UTF-16 code units).

    >>> from hypothesis import find
    >>> find(lpwstr_texts(), lambda t: len(t.encode("utf-16-le")) > 2 * len(t))
    '𐀀'
    """
    alphabet = st.characters(exclude_categories=("Cs",), exclude_characters="\x00")
    return st.text(alphabet, min_size=min_size, max_size=max_size)


_INT_RANGES: dict[VT, tuple[int, int]] = {
    VT.I1: (-(1 << 7), (1 << 7) - 1),
    VT.UI1: (0, (1 << 8) - 1),
    VT.I2: (-(1 << 15), (1 << 15) - 1),
    VT.UI2: (0, (1 << 16) - 1),
    VT.I4: (-(1 << 31), (1 << 31) - 1),
    VT.UI4: (0, (1 << 32) - 1),
    VT.I8: (-(1 << 63), (1 << 63) - 1),
    VT.UI8: (0, (1 << 64) - 1),
}


def prop_values(vt: VT, *, max_items: int = 6) -> st.SearchStrategy[PropertyValue]:
    """Any value of wire type ``vt`` as the fast codec represents it (2.2.3).

    Integers span the full range of their type; vectors hold up to ``max_items`` elements.

    >>> from hypothesis import find
    >>> find(prop_values(VT.I2), lambda v: v < -100), find(prop_values(VT.BOOL), bool)
    (-101, True)
    """
    vt = VT(vt)
    if vt in _INT_RANGES:
        low, high = _INT_RANGES[vt]
        return st.integers(low, high)
    if vt is VT.BOOL:
        return st.booleans()
    if vt is VT.LPWSTR:
        return lpwstr_texts()
    if vt is VT.BLOB:
        return st.binary(max_size=64)
    if vt is VT.CLSID:
        return guids()
    if vt is VT.UI4_VECTOR:
        return st.lists(st.integers(0, (1 << 32) - 1), max_size=max_items).map(tuple)
    if vt is VT.CLSID_VECTOR:
        return st.lists(guids(), max_size=max_items).map(tuple)
    if vt is VT.LPWSTR_VECTOR:
        return st.lists(lpwstr_texts(max_size=12), max_size=max_items).map(tuple)
    raise ValueError(f"not a MS-MQCN PROPVALUE type: {vt!r}")


def vts() -> st.SearchStrategy[VT]:
    """One of the 15 PROPVALUE types of 2.2.3."""
    return st.sampled_from(list(VT))


def vt_values() -> st.SearchStrategy[tuple[VT, PropertyValue]]:
    """A (type, value) pair for any of the 15 types.

    >>> from hypothesis import find
    >>> find(vt_values(), lambda pair: pair[0] is VT.CLSID_VECTOR and len(pair[1]) == 1)
    (<VT.CLSID_VECTOR: 4168>, (UUID('00000000-0000-0000-0000-000000000000'),))
    """
    return vts().flatmap(lambda vt: st.tuples(st.just(vt), prop_values(vt)))


def propids() -> st.SearchStrategy[PropId]:
    """One of the 31 PROPIDs of 2.2.2.1 (the wire-type table ``constants.PROPERTIES``)."""
    return st.sampled_from(list(PROPERTIES))


def properties(ids: Sequence[int] | None = None) -> st.SearchStrategy[Property]:
    """A Property whose value has its PROPID's wire type (content rules not applied).

    >>> from hypothesis import find
    >>> find(properties([PropId.PROPID_Q_LABEL]), lambda p: p.value != "")
    Property(propid=108, value='0', id_offset=-1, value_offset=-1)
    """
    chosen = propids() if ids is None else st.sampled_from(list(ids))
    return chosen.flatmap(
        lambda pid: prop_values(PROPERTIES[pid].vt).map(lambda v: Property(int(pid), v))
    )


def _property_lists(max_properties: int) -> st.SearchStrategy[list[Property]]:
    """Mostly short lists; about one draw in twelve goes up to ``MAX_PROPERTIES`` (255)."""
    small = st.lists(properties(), max_size=max_properties)
    if max_properties >= MAX_PROPERTIES:
        return small
    large = st.lists(properties(), min_size=max_properties, max_size=MAX_PROPERTIES)
    return st.integers(0, 11).flatmap(lambda k: large if k == 11 else small)


def _reserved() -> st.SearchStrategy[bytes]:
    """Reserved (24 bytes): usually zero, sometimes anything (the server ignores it)."""
    return st.one_of(
        st.just(ZERO_RESERVED), st.binary(min_size=RESERVED_SIZE, max_size=RESERVED_SIZE)
    )


# --- valid structures ----------------------------------------------------------------------


@st.composite
def notification_updates(
    draw: st.DrawFn, *, max_properties: int = 30, commands: Sequence[int] = tuple(Command)
) -> NotificationUpdate:
    """A well-formed Notification Update (2.2.6), either UseGuid form.

    Between 0 and ``max_properties`` properties, occasionally up to 255; any PROPIDs in any
    order (duplicates too).  ``commands`` bounds Command (the decoder reads any byte).

    >>> from hypothesis import find
    >>> u = find(notification_updates(), lambda u: u.use_guid == 1 and len(u.properties) > 1)
    >>> u.path_name, len(u.properties)
    (None, 2)
    """
    use_guid = draw(st.sampled_from((0, 1)))
    return NotificationUpdate(
        command=int(draw(st.sampled_from(list(commands)))),
        use_guid=use_guid,
        path_name=draw(lpwstr_texts()) if use_guid == 0 else None,
        guid_identifier=draw(guids()) if use_guid == 1 else None,
        guid_master_id=draw(guids()),
        properties=tuple(draw(_property_lists(max_properties))),
        reserved=draw(_reserved()),
    )


def server_names(*, min_size: int = 1, max_size: int = MAX_SERVER_NAME) -> st.SearchStrategy[str]:
    """A DirectoryServiceServer of 2.2.5: 1..256 characters of %x21-7E.

    >>> from hypothesis import find
    >>> name = find(server_names(), lambda s: len(s) > 3)
    >>> len(name), all("\\x21" <= c <= "\\x7e" for c in name)
    (4, True)
    """
    return st.text(
        st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=min_size, max_size=max_size
    )


def notification_bodies() -> st.SearchStrategy[NotificationBody]:
    """A Notification Body (2.2.5): Event 1-4, any GUID, a valid server name."""
    return st.builds(
        NotificationBody,
        st.sampled_from([int(e) for e in Event]),
        guids(),
        server_names(),
    )


def v1_messages(
    *, max_updates: int = 6, max_properties: int = 30
) -> st.SearchStrategy[ChangeNotificationMessage]:
    """A well-formed Version 0x01 message: 0..``max_updates`` updates, count that matches.

    >>> from hypothesis import find
    >>> m = find(v1_messages(), lambda m: len(m.updates) == 2)
    >>> int(m.version), m.count
    (1, 2)
    """
    updates = notification_updates(max_properties=max_properties)
    return st.lists(updates, max_size=max_updates).map(v1_message)


def v2_messages() -> st.SearchStrategy[ChangeNotificationMessage]:
    """A well-formed Version 0x02 message (count 1, one body)."""
    return notification_bodies().map(v2_message)


def messages(
    *, max_updates: int = 6, max_properties: int = 30
) -> st.SearchStrategy[ChangeNotificationMessage]:
    """Either version, well-formed."""
    return st.one_of(
        v1_messages(max_updates=max_updates, max_properties=max_properties), v2_messages()
    )


# --- conforming values ([MS-MQMQ] rules of values.py) --------------------------------------

_VCHAR = st.characters(min_codepoint=0x21, max_codepoint=0x7E)
# QueueName characters for MSMQ 2.0 and later: %x21-7F without \ ; + , "
_QUEUE_CHAR = st.characters(min_codepoint=0x21, max_codepoint=0x7F, exclude_characters='\\;+,"')


@st.composite
def pathnames(draw: st.DrawFn, *, private: bool | None = None) -> str:
    """A QueuePathName of [MS-MQMQ] 2.1.1 that ``values.check_pathname`` accepts.

    ``Computer\\QueueName`` (public) or ``Computer\\private$\\QueueName``.

    >>> from hypothesis import find
    >>> from mqcn_model.values import check_pathname
    >>> path = find(pathnames(private=True), lambda p: len(p) > 14)
    >>> "\\\\private$\\\\" in path, check_pathname(path)
    (True, None)
    """
    computer = draw(st.text(_VCHAR.filter(lambda c: c != "\\"), min_size=1, max_size=24))
    queue = draw(st.text(_QUEUE_CHAR, min_size=1, max_size=40))
    is_private = draw(st.booleans()) if private is None else private
    return f"{computer}\\private$\\{queue}" if is_private else f"{computer}\\{queue}"


def labels() -> st.SearchStrategy[str]:
    """A PROPID_Q_LABEL value: at most 124 UTF-16 code units (BMP characters only here)."""
    alphabet = st.characters(
        max_codepoint=0xFFFF, exclude_categories=("Cs",), exclude_characters="\x00"
    )
    return st.text(alphabet, max_size=MAX_LABEL_CHARS)


def security_descriptors() -> st.SearchStrategy[bytes]:
    """A minimal self-relative SECURITY_DESCRIPTOR with drawn extra Control bits."""
    return st.integers(0, 0x7FFF).map(builders.minimal_security_descriptor)


@st.composite
def ta_address_lists(draw: st.DrawFn) -> bytes:
    """A packed TA_ADDRESS array ([MS-MQMQ] 2.2.4): AddressLength, AddressType, Address."""
    entries = draw(st.lists(st.tuples(st.integers(0, 0xFFFF), st.binary(max_size=16)), max_size=3))
    return b"".join(struct.pack("<HH", len(a), t) + a for t, a in entries)


@st.composite
def _multicast_addresses(draw: st.DrawFn) -> str:
    octets = [draw(st.integers(224, 239)), *(draw(st.integers(0, 255)) for _ in range(3))]
    return ".".join(map(str, octets)) + f":{draw(st.integers(0, 65535))}"


def _enum_value(pid: PropId) -> st.SearchStrategy[int]:
    return st.sampled_from(PROPERTIES[pid].allowed)


def _conforming_value(pid: PropId) -> st.SearchStrategy[PropertyValue]:
    """A value that both the wire type and the [MS-MQMQ] content rule of ``pid`` allow."""
    definition = PROPERTIES[pid]
    kind = definition.kind
    if kind is ValueKind.ENUM:
        return _enum_value(pid)
    if kind is ValueKind.PATHNAME:
        return pathnames()
    if kind is ValueKind.LABEL:
        return labels()
    if kind is ValueKind.MULTICAST:
        return _multicast_addresses()
    if kind is ValueKind.SECURITY_DESCRIPTOR:
        return security_descriptors()
    if kind is ValueKind.TA_ADDRESS_LIST:
        return ta_address_lists()
    if kind is ValueKind.LDAP_URL:
        return st.text(_VCHAR, max_size=30).map(lambda rest: "LDAP://" + rest)
    return prop_values(definition.vt)


# --- conforming updates and messages -------------------------------------------------------


@st.composite
def queue_creations(draw: st.DrawFn) -> NotificationUpdate:
    """A conforming queue creation (``builders.queue_creation``) with drawn attributes.

    Sometimes carries PROPID_Q_MULTICAST_ADDRESS as an extra property.
    """
    path = draw(pathnames())
    extra = []
    if draw(st.booleans()):
        extra.append((P.PROPID_Q_MULTICAST_ADDRESS, draw(_multicast_addresses())))
    return builders.queue_creation(
        draw(guids()),
        path,
        master=draw(guids()),
        extra=extra,
        label=draw(labels()),
        queue_type=draw(guids()),
        base_priority=draw(prop_values(VT.I2)),
        journal=draw(_enum_value(P.PROPID_Q_JOURNAL)),
        quota=draw(prop_values(VT.UI4)),
        journal_quota=draw(prop_values(VT.UI4)),
        create_time=draw(prop_values(VT.I4)),
        modify_time=draw(prop_values(VT.I4)),
        scope=draw(st.sampled_from(SCOPES)),
        security=draw(security_descriptors()),
        authenticate=draw(_enum_value(P.PROPID_Q_AUTHENTICATE)),
        priv_level=draw(_enum_value(P.PROPID_Q_PRIV_LEVEL)),
        transaction=draw(_enum_value(P.PROPID_Q_TRANSACTION)),
    )


@st.composite
def _changes(draw: st.DrawFn, allowed: Sequence[PropId]) -> list[tuple[int, PropertyValue]]:
    chosen = draw(st.lists(st.sampled_from(list(allowed)), unique=True, max_size=len(allowed)))
    return [(pid, draw(_conforming_value(pid))) for pid in chosen]


@st.composite
def queue_updates(draw: st.DrawFn) -> NotificationUpdate:
    """A conforming queue update: PROPID_Q_QMID, then some of the modifiable properties."""
    return builders.queue_update(
        draw(guids()), draw(guids()), draw(_changes(QUEUE_UPDATE_MODIFIABLE)), master=draw(guids())
    )


@st.composite
def machine_updates(draw: st.DrawFn) -> NotificationUpdate:
    """A conforming machine update: MACHINE_ID, FOREIGN, then modifiable/ignored properties."""
    allowed = MACHINE_UPDATE_MODIFIABLE + MACHINE_UPDATE_IGNORED
    return builders.machine_update(
        draw(guids()),
        draw(_changes(allowed)),
        master=draw(guids()),
        foreign=draw(_enum_value(P.PROPID_QM_FOREIGN)),
    )


def queue_deletions() -> st.SearchStrategy[NotificationUpdate]:
    """A conforming queue deletion (D_SCOPE = 1, D_OBJTYPE = 1)."""
    return st.builds(lambda g, m: builders.queue_deletion(g, master=m), guids(), guids())


def conforming_updates() -> st.SearchStrategy[NotificationUpdate]:
    """Any of the four conforming update kinds of 3.3.5.2."""
    return st.one_of(queue_creations(), queue_updates(), machine_updates(), queue_deletions())


def conforming_v1_messages(*, max_updates: int = 5) -> st.SearchStrategy[ChangeNotificationMessage]:
    """A conforming Version 0x01 message of 0..``max_updates`` conforming updates."""
    return st.lists(conforming_updates(), max_size=max_updates).map(builders.v1_message)


def conforming_v2_messages() -> st.SearchStrategy[ChangeNotificationMessage]:
    """A conforming Version 0x02 message (``builders.v2_notification``)."""
    return st.builds(
        builders.v2_notification, st.sampled_from(list(Event)), guids(), server_names()
    )


def conforming_messages(*, max_updates: int = 5) -> st.SearchStrategy[ChangeNotificationMessage]:
    """A conforming message of either version."""
    return st.one_of(conforming_v1_messages(max_updates=max_updates), conforming_v2_messages())


# --- defective messages (the catalogue of mqcn_suite.scenarios.defects) ----------------------

_HOST_CHAR = st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789-")


@st.composite
def _host_names(draw: st.DrawFn, *, labels: int = 1) -> str:
    parts = [draw(st.text(_HOST_CHAR, min_size=1, max_size=15)) for _ in range(labels)]
    return ".".join(parts)


@st.composite
def scenario_ids(draw: st.DrawFn) -> ScenarioIds:
    """Identities for the scenario builders: any GUIDs, a computer name, a dotted server name.

    >>> from hypothesis import given, settings
    >>> @settings(max_examples=20)
    ... @given(scenario_ids())
    ... def check(ids):
    ...     assert "." in ids.server and ids.new_path == ids.computer + chr(92) + "newq"
    >>> check()
    """
    return ScenarioIds(
        queue=draw(guids()),
        new_queue=draw(guids()),
        qm=draw(guids()),
        master=draw(guids()),
        computer=draw(_host_names()),
        server=draw(_host_names(labels=draw(st.integers(2, 4)))),
    )


def defective_messages(
    families: Sequence[str] | None = None,
) -> st.SearchStrategy[tuple[Defect, bytes]]:
    """A (defect, body) pair: a member of the catalogue of named defects (``families`` of
    them, default all), built with drawn identities (:func:`scenario_ids`).

    Every body is non-conforming; unless the defect is ``misaligned`` it breaks exactly
    ``defect.breaks`` whatever the identities.

    >>> from hypothesis import given, settings
    >>> from mqcn_model.judge import judge
    >>> @settings(max_examples=30)
    ... @given(defective_messages())
    ... def check(pair):
    ...     defect, body = pair
    ...     verdict = judge(body)
    ...     assert not verdict.conforming
    ...     assert defect.misaligned or set(verdict.requirements) == defect.breaks
    >>> check()
    """
    members = [d for d in every_defect() if families is None or d.family in families]
    if not members:
        raise ValueError(f"no defect of the families {families!r}")
    return st.tuples(st.sampled_from(members), scenario_ids()).map(
        lambda pair: (pair[0], pair[0].build(pair[1]))
    )
