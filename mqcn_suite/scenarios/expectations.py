"""Readers and expectation checks: what a scenario's Then-steps compare.

A server scenario reads what a message did as a diff of two queue-manager states
(:func:`state_diff`, from ``Target.state()``), so a Then-step compares a small dict or set with
what the feature names.  The ``*_problem(s)`` functions return None / an empty list when all
is as expected, else sentences for the report ("Quota is 5, not 7777: ...").  Verdicts on what
a *client* emitted are not here: :mod:`mqcn_model.sending` judges those.
"""

from __future__ import annotations

import struct
import uuid
from typing import Any

from mqcn_model.catalog import req
from mqcn_model.codec.message import ChangeNotificationMessage, decode_message
from mqcn_model.codec.propvalue import PropertyValue, decode_value, encode_value
from mqcn_model.codec.update import NotificationUpdate
from mqcn_model.constants import (
    PROPERTIES,
    QM_ATTRIBUTE_OF,
    QUEUE_ATTRIBUTE_OF,
    QUEUE_UPDATE_MODIFIABLE,
    SERVER_QM_UPDATE_SETS,
    SERVER_QUEUE_CREATE_SETS,
    SERVER_QUEUE_UPDATE_SETS,
    V2_QM_READ_ATTRIBUTES,
    V2_QUEUE_READ_ATTRIBUTES,
    VARIANT_FALSE,
    VARIANT_TRUE,
    VT,
    PropId,
    notify_queue_format_name,
    same_format_name,
)
from mqcn_model.errors import DecodeError
from mqcn_model.json_views import value_to_json
from mqcn_model.sending import value_mismatch
from mqcn_suite.scenarios.fixtures import (
    SENTINEL_QUOTA,
    ScenarioIds,
    distinctive_queue_attributes,
    existing_queue,
)
from mqcn_suite.scenarios.vocabulary import NONE, propid_named

R_BOOL_VALUE = req("MQCN-2.2.3.3-3")
# Read Directory attribute names that mean the same ADM attribute (errata E-17).
_SAME_ATTRIBUTE = {"journaling": "journal", "transaction": "transactional"}

# --- reading bytes with the suite's codec ---------------------------------------------------


def decoded(body: bytes) -> ChangeNotificationMessage | None:
    """The message in a body, or None when the suite's codec cannot read it."""
    try:
        return decode_message(body)
    except DecodeError:
        return None


def propid_values(update: NotificationUpdate) -> dict[int, PropertyValue]:
    """PropertyId -> PropertyValue of one update (the first occurrence of each)."""
    out: dict[int, PropertyValue] = {}
    for prop in update.properties:
        out.setdefault(prop.propid, prop.value)
    return out


def codec_reading(vt: VT, wire_hex: str) -> tuple[PropertyValue | None, str | None]:
    """What the suite's codec makes of ``wire_hex`` as one ``vt`` value that fills the bytes.

    Returns ``(value, None)``, or ``(None, requirement)`` naming what the bytes break; bytes
    left over after the value count as a refusal of the type's first requirement.

    >>> codec_reading(VT.UI2, "0102")
    (513, None)
    >>> codec_reading(VT.BOOL, "0100")
    (None, 'MQCN-2.2.3.3-3')
    """
    raw = b"" if wire_hex.strip() in NONE else bytes.fromhex(wire_hex.replace(" ", ""))
    try:
        value, end = decode_value(vt, raw, 0, len(raw))
    except DecodeError as exc:
        return None, exc.requirement
    if end != len(raw):
        return None, req(f"MQCN-{vt.spec_section}-1")
    return value, None


def codec_writes(vt: VT, value: PropertyValue) -> str:
    """The hex the suite's codec writes for ``value`` as ``vt``."""
    return encode_value(vt, value).hex()


def bool_patterns_misread() -> list[int]:
    """Every 16-bit pattern the codec gets wrong as VT_BOOL: accepting one other than 0x0000 /
    0xFFFF, refusing one of those two, or refusing for another requirement than MQCN-2.2.3.3-3.

    >>> bool_patterns_misread()
    []
    """
    wrong = []
    for pattern in range(0x10000):
        _value, refused = codec_reading(VT.BOOL, struct.pack("<H", pattern).hex())
        valid = pattern in (VARIANT_FALSE, VARIANT_TRUE)
        if valid != (refused is None) or (not valid and refused != R_BOOL_VALUE):
            wrong.append(pattern)
    return wrong


# --- what the queue manager's state shows ---------------------------------------------------


def carrier_problem(
    state: dict[str, Any], propid: PropId, value: PropertyValue, ids: ScenarioIds
) -> str | None:
    """Did the target apply :func:`~.messages.carrier_message`?  None if so, else what is
    missing.

    The sentinel change must be there, and the value itself where the server keeps it (a
    queue attribute, a queue-manager attribute; PROPIDs the server ignores have no place).
    """
    if propid in QUEUE_UPDATE_MODIFIABLE or propid is PropId.PROPID_Q_QMID:
        holder = state["queues"].get(str(ids.queue))
        attribute_of, sentinel = QUEUE_ATTRIBUTE_OF, "JournalQuota"
        if propid is PropId.PROPID_Q_JOURNAL_QUOTA:
            sentinel = "Quota"
    elif PROPERTIES[propid].mqmq_section.startswith("2.3.1"):
        holder = state["queues"].get(str(ids.new_queue))
        attribute_of, sentinel = QUEUE_ATTRIBUTE_OF, "Quota"
    else:
        holder = state["queue_manager"]
        attribute_of, sentinel = QM_ATTRIBUTE_OF, "JournalQuota"
    if holder is None:
        return "the queue the message is about is not in the queue manager's collection"
    if holder.get(sentinel) != SENTINEL_QUOTA:
        found = holder.get(sentinel)
        return f"{sentinel} is {found!r}, not {SENTINEL_QUOTA}: the update was not applied"
    attribute = attribute_of.get(propid)
    stored = propid in SERVER_QUEUE_CREATE_SETS + SERVER_QUEUE_UPDATE_SETS + SERVER_QM_UPDATE_SETS
    if attribute and stored and holder.get(attribute) != value_to_json(value):
        found, wanted = holder.get(attribute), value_to_json(value)
        return f"{attribute} is {found!r}, not {wanted!r}" + mapping_hint(found, wanted)
    return None


def state_diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed between two queue-manager states (``Target.state()``), one key a change:
    ``queue_manager.<Attribute>`` and ``queue <guid>.<Attribute>`` map to the new value,
    ``queue <guid>`` to "added" or "removed".

    >>> a = {"queue_manager": {"JournalQuota": 1}, "queues": {"q1": {"Quota": 1}}}
    >>> b = {"queue_manager": {"JournalQuota": 2}, "queues": {"q2": {"Quota": 1}}}
    >>> state_diff(a, b)
    {'queue_manager.JournalQuota': 2, 'queue q1': 'removed', 'queue q2': 'added'}
    """
    diff: dict[str, Any] = {}
    qm_before, qm_after = before.get("queue_manager", {}), after.get("queue_manager", {})
    for name in sorted(set(qm_before) | set(qm_after)):
        if qm_before.get(name) != qm_after.get(name):
            diff[f"queue_manager.{name}"] = qm_after.get(name)
    queues_before, queues_after = before.get("queues", {}), after.get("queues", {})
    for guid in sorted(set(queues_before) | set(queues_after)):
        old, new = queues_before.get(guid), queues_after.get(guid)
        if old is None or new is None:
            diff[f"queue {guid}"] = "added" if old is None else "removed"
            continue
        for name in sorted(set(old) | set(new)):
            if old.get(name) != new.get(name):
                diff[f"queue {guid}.{name}"] = new.get(name)
    return diff


def attribute_diff(expected: dict[str, Any], observed: dict[str, Any]) -> list[dict[str, Any]]:
    """Expected against observed queue-manager state (``Target.state()``), attribute by
    attribute: one ``{"attribute", "expected", "observed"}`` per difference; a queue present
    on one side only is one entry whose other side is ``None``.

    >>> a = {"queue_manager": {"JournalQuota": 1}, "queues": {"q1": {"Quota": 1}}}
    >>> b = {"queue_manager": {"JournalQuota": 2}, "queues": {"q1": {"Quota": 5}}}
    >>> attribute_diff(a, b)  # doctest: +NORMALIZE_WHITESPACE
    [{'attribute': 'queue_manager.JournalQuota', 'expected': 1, 'observed': 2},
     {'attribute': 'queue q1.Quota', 'expected': 1, 'observed': 5}]
    """
    found: list[dict[str, Any]] = []

    def compare(prefix: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        for name in sorted(set(old) | set(new)):
            if old.get(name) != new.get(name):
                found.append(
                    {
                        "attribute": f"{prefix}.{name}",
                        "expected": old.get(name),
                        "observed": new.get(name),
                    }
                )

    compare("queue_manager", expected.get("queue_manager", {}), observed.get("queue_manager", {}))
    queues_before, queues_after = expected.get("queues", {}), observed.get("queues", {})
    for guid in sorted(set(queues_before) | set(queues_after)):
        old, new = queues_before.get(guid), queues_after.get(guid)
        if old is None or new is None:
            found.append({"attribute": f"queue {guid}", "expected": old, "observed": new})
        else:
            compare(f"queue {guid}", old, new)
    for key in sorted((set(expected) | set(observed)) - {"queue_manager", "queues"}):
        if expected.get(key) != observed.get(key):
            found.append(
                {"attribute": key, "expected": expected.get(key), "observed": observed.get(key)}
            )
    return found


def changed_objects(diff: dict[str, Any]) -> set[str]:
    """The objects a :func:`state_diff` touches: "queue_manager", "queue <guid>", or
    "queue <guid> added" / "queue <guid> removed".

    >>> sorted(changed_objects({"queue_manager.Security": "", "queue q1": "added"}))
    ['queue q1 added', 'queue_manager']
    """
    objects = set()
    for key, value in diff.items():
        if "." in key:
            objects.add(key.split(".", 1)[0])
        else:
            objects.add(f"{key} {value}")
    return objects


def expected_changes(
    prefix: str, pairs: dict[PropId, PropertyValue], *, of_queue_manager: bool
) -> dict[str, Any]:
    """The :func:`state_diff` that applying ``pairs`` to the object keyed ``prefix`` (e.g.
    ``queue <guid>`` or ``queue_manager``) gives."""
    table = QM_ATTRIBUTE_OF if of_queue_manager else QUEUE_ATTRIBUTE_OF
    return {f"{prefix}.{table[p]}": value_to_json(v) for p, v in pairs.items()}


def creation_problems(
    queue: dict[str, Any] | None, pairs: list[tuple[int, PropertyValue]]
) -> list[str]:
    """How a created queue (JSON) departs from the 15 creation properties it was given."""
    if queue is None:
        return ["the queue was not created"]
    problems = []
    for propid, value in pairs:
        if propid in SERVER_QUEUE_CREATE_SETS:
            attribute = QUEUE_ATTRIBUTE_OF[PropId(propid)]
            if queue.get(attribute) != value_to_json(value):
                problems.append(
                    f"{attribute} is {queue.get(attribute)!r}, not {value_to_json(value)!r}"
                )
    return problems


def quotas_after_each(stream: list[tuple[bytes, int | None]], initial: Any) -> list[Any]:
    """The Quota the owned queue should hold after each body of
    :func:`~.defects.alternating_stream`.

    >>> quotas_after_each([(b"", 5), (b"", None), (b"", 6)], 1)
    [5, 5, 6]
    """
    out, current = [], initial
    for _body, quota in stream:
        current = current if quota is None else quota
        out.append(current)
    return out


# --- what the queue manager asked of the world (Open Queue, Read Directory) ------------------


def format_name_is(found: str | None, written: str) -> bool:
    """``found`` (what a target reported) names the format name a feature file writes."""
    return same_format_name(found, written)


def notification_queue_open_problems(opened: dict[str, Any] | None, qm: uuid.UUID) -> list[str]:
    """:func:`open_queue_problems` for the notification queue of the queue manager ``qm``."""
    return open_queue_problems(opened, notify_queue_format_name(str(qm)))


def emitted_value_verdict(
    requirement: str, messages: list[ChangeNotificationMessage], attribute: str, propid: str
) -> tuple[str, bool, str]:
    """The ``world.expect`` arguments for the value of the PROPID named ``propid`` in every
    update a client emitted, against the queue's distinctive ``attribute``: a VT slip or
    another value is blamed on its own requirement (:func:`value_mismatch`)."""
    pid = propid_named(propid)
    found = [propid_values(u).get(pid) for m in messages for u in m.updates]
    wanted = getattr(existing_queue(**distinctive_queue_attributes()), attribute)
    blamed = value_mismatch(requirement, pid, found, wanted)
    return (blamed[0], False, blamed[1]) if blamed else (requirement, True, f"{found}")


def delivered_carrier_problem(body: bytes, state: dict[str, Any], ids: ScenarioIds) -> str | None:
    """:func:`carrier_problem` for the carrier ``body`` delivered: its last value, re-derived
    from the bytes, is what the state must hold."""
    message = decoded(body)
    assert message is not None, "the carrier message must decode"
    last = message.updates[0].properties[-1]
    return carrier_problem(state, propid_named(last.name), last.value, ids)


def open_queue_problems(opened: dict[str, Any] | None, format_name: str) -> list[str]:
    """How a reported Open Queue departs from the one of 3.2.3 for ``format_name``
    (NOTIFY_QUEUE_PRIVATE of the queue manager), ReceiveAccess and DenyNone.

    >>> open_queue_problems({"format_name": "PRIVATE=AB\\3", "required_access": "ReceiveAccess",
    ...                      "shared_mode": "DenyNone"}, "PRIVATE=ab\\3")
    []
    """
    if opened is None:
        return ["no Open Queue was reported"]
    problems = []
    if not same_format_name(opened.get("format_name"), format_name):
        problems.append(f"format name {opened.get('format_name')!r}, not {format_name!r}")
    if opened.get("required_access") != "ReceiveAccess":
        problems.append(f"access {opened.get('required_access')!r}, not 'ReceiveAccess'")
    if opened.get("shared_mode") != "DenyNone":
        problems.append(f"share mode {opened.get('shared_mode')!r}, not 'DenyNone'")
    return problems


def attribute_list_problem(got: list[str] | None, wanted: tuple[str, ...]) -> str | None:
    """Why a Read Directory attribute list is not exactly ``wanted`` (None when it is); names
    compare in any case and with the spellings of errata E-17.

    >>> attribute_list_problem(["journaling", "Quota"], ("Journal", "Quota")) is None
    True
    >>> attribute_list_problem(["Quota", "Label"], ("Quota",))
    "asked for ['Label'] too"
    """
    if got is None:
        return "no attribute list"

    def norm(name: str) -> str:
        return _SAME_ATTRIBUTE.get(name.lower(), name.lower())

    names = [norm(n) for n in got]
    expected = {norm(n) for n in wanted}
    extra = sorted({n for n, m in zip(got, names, strict=True) if m not in expected})
    missing = sorted(n for n in wanted if norm(n) not in set(names))
    if len(names) != len(set(names)):
        return f"asked for some attributes twice: {got}"
    if extra:
        return f"asked for {extra} too"
    if missing:
        return f"did not ask for {missing}"
    return None


def ldap_attribute_problem(got: list[str] | None, wanted: tuple[str, ...]) -> str | None:
    """Why a read seen at the LDAP server does not cover ``wanted`` (None when it does).

    At the server a read is one or more searches, and the attributes they asked for name
    LDAP attributes ([MS-MQDSSM] 3.1.6.10), often more than the ADM list needs: the letter
    itself asks for every attribute (3.1.6.14; errata D-07).  So only a missing attribute is a
    problem; ``got`` holds the ADM names whose LDAP attributes were all asked for.

    >>> ldap_attribute_problem(["Quota", "Label", "FullPath"], ("Quota",)) is None
    True
    >>> ldap_attribute_problem(["Quota"], ("Quota", "Security"))
    "did not ask for the LDAP attributes of ['Security']"
    """
    have = {_SAME_ATTRIBUTE.get(n.lower(), n.lower()) for n in got or []}
    missing = [n for n in wanted if _SAME_ATTRIBUTE.get(n.lower(), n.lower()) not in have]
    return f"did not ask for the LDAP attributes of {missing}" if missing else None


def read_problems(
    read: dict[str, Any] | None,
    object_type: str,
    guid: uuid.UUID,
    server: str | None = None,
    others: list[dict[str, Any]] | None = None,
) -> list[str]:
    """How one recorded Read Directory (``Target.directory_reads()`` item) departs from a read
    of the ``object_type`` whose Identifier is ``guid``, with the attribute list of 3.2.5.2
    (and, if given, sent to the directory server ``server``).  When there is none, ``others``
    (every read the target made) says what was read instead (:func:`missed_read_problem`)."""
    if read is None:
        return [missed_read_problem(others or [], guid)]
    wanted = V2_QUEUE_READ_ATTRIBUTES if object_type == "Queue" else V2_QM_READ_ATTRIBUTES
    problems = []
    if str(read.get("identifier", "")).lower() != str(guid):
        problems.append(f"filtered on Identifier {read.get('identifier')!r}, not {guid}")
    if read.get("source") == "ldap" and read.get("object_type") is None:
        # seen at the server, a read of an object the directory does not hold ends with
        # Find Object By GUID ([MS-MQDSSM] 3.1.6.19): no type, no attributes to judge (D-06)
        return problems
    if str(read.get("object_type", "")).lower() != object_type.lower():
        problems.append(f"read a {read.get('object_type')!r}, not a {object_type!r}")
    listed = (
        ldap_attribute_problem(read.get("attributes"), wanted)
        if read.get("source") == "ldap"
        else attribute_list_problem(read.get("attributes"), wanted)
    )
    if listed:
        problems.append(listed)
    if server is not None and str(read.get("server") or "").lower() != server.lower():
        problems.append(f"asked the server {read.get('server')!r}, not {server!r}")
    return problems


# the names of the LDAP result codes a refused bind gives (RFC 4511 4.1.9)
BIND_RESULT_NAMES = {
    48: "inappropriateAuthentication",
    49: "invalidCredentials",
    50: "insufficientAccessRights",
}


def read_server_problem(read: dict[str, Any] | None, server: str, what: str) -> str | None:
    """Why the Read Directory ``read`` of ``what`` did not go to the directory service
    ``server`` (the DomainController the message names), in words; None when it did.

    >>> read_server_problem(None, "dc1", "the queue orders")
    'no Read Directory of the queue orders was made'
    >>> read_server_problem({"server": "", "source": "ldap"}, "dc1", "the queue orders")
    "the read went to the default listener, named by no DomainController, not to 'dc1'"
    >>> read_server_problem({"server": "dc2"}, "dc1", "the queue orders")
    "the read went to 'dc2', not to 'dc1'"
    """
    if read is None:
        return f"no Read Directory of {what} was made"
    found = str(read.get("server") or "")
    if found.lower() == server.lower():
        return None
    if not found:
        where = (
            "the default listener, named by no DomainController"
            if read.get("source") == "ldap"
            else "no directory service (the target's read names no server)"
        )
        return f"the read went to {where}, not to {server!r}"
    return f"the read went to {found!r}, not to {server!r}"


def reads_of_object(reads: list[dict[str, Any]], guid: uuid.UUID) -> list[dict[str, Any]]:
    """The Read Directory events of ``reads`` that read the object ``guid``, in order.

    >>> guid = uuid.UUID(int=7)
    >>> len(reads_of_object([{"identifier": str(guid)}, {"identifier": None}], guid))
    1
    """
    return [r for r in reads if str(r.get("identifier") or "").lower() == str(guid)]


def reads_count_problem(reads: list[dict[str, Any]], guid: uuid.UUID, count: int) -> str:
    """Why the Read Directory events ``reads`` fall short of one read of ``guid`` per
    notification about it, in words (none at all: :func:`missed_read_problem`).

    >>> guid = uuid.UUID(int=7)
    >>> reads_count_problem([{"identifier": str(guid)}], guid, 2)
    'read 1 time for 2 notifications: a notification was answered without a Read Directory'
    >>> reads_count_problem([], guid, 2)
    'no Read Directory was made'
    """
    found = reads_of_object(reads, guid)
    if not found:
        return missed_read_problem(reads, guid)
    times = f"{len(found)} time" + ("" if len(found) == 1 else "s")
    return (
        f"read {times} for {count} notifications: a notification was answered without a "
        "Read Directory"
    )


def missed_read_problem(reads: list[dict[str, Any]], guid: uuid.UUID) -> str:
    """Why none of ``reads`` (``Target.directory_reads()``) is a Read Directory of ``guid``,
    in words: a bind the LDAP server refused, a search whose filter names no object by its
    Identifier, a read of another GUID (the Identifier's bytes in RFC 4122 order where that
    is what they are, [MS-DTYP] 2.3.4.2 being objectGUID's order), or no read at all.

    >>> missed_read_problem([], uuid.UUID(int=1))
    'no Read Directory was made'
    >>> missed_read_problem([{"identifier": None, "filter": "(cn=x)"}], uuid.UUID(int=1))[-51:]
    'the search (cn=x) names no object by its Identifier'
    """
    said: list[str] = []
    for read in reads:
        bind = read.get("bind")
        identifier = read.get("identifier")
        if bind:
            code = bind.get("result")
            name = BIND_RESULT_NAMES.get(code, "")
            text = (
                f"the directory server refused the bind of {bind.get('dn')!r} "
                f"(LDAP result {code}{' ' + name if name else ''}), so no search was made"
            )
        elif identifier is None:
            shown = read.get("filter") or read.get("searches") or "a search"
            text = f"the search {shown} names no object by its Identifier"
        else:
            other = uuid.UUID(str(identifier))
            if other == guid:
                continue
            text = f"it read the object {other}"
            if other.bytes_le == guid.bytes:
                text += " (the Identifier's bytes in RFC 4122 order, not [MS-DTYP] 2.3.4.2's)"
            if read.get("source") == "ldap" and read.get("object_type") is None:
                text += ", which the directory does not hold"
        if text not in said:
            said.append(text)
    if not said:
        return "no Read Directory was made"
    return f"no Read Directory of {guid} was made: " + "; ".join(said)


def read_attribute_problems(
    local: dict[str, Any] | None, published: dict[str, Any], names: tuple[str, ...]
) -> list[str]:
    """Attributes (3.2.5.2 read names) in which a local object (JSON) differs from what the
    directory publishes for it (JSON)."""
    if local is None:
        return ["the object is not in the queue manager's state"]
    problems = []
    for name in names:
        attribute = "Journaling" if name == "Journal" else name
        if local.get(attribute) != published.get(attribute):
            mine, theirs = local.get(attribute), published.get(attribute)
            problem = f"{attribute} is {mine!r}, the directory has {theirs!r}"
            problems.append(problem + mapping_hint(mine, theirs))
    return problems


def mapping_hint(mine: Any, theirs: Any) -> str:
    """A likely cause when an integer read from the directory differs from what it holds only
    by the sign of its 32 bits (the AD Integer syntax is signed, the ADM quotas unsigned:
    [MS-MQDSSM] 3.1.6.11, errata D-05); else nothing.

    >>> mapping_hint(-251526396, 4043440900)
    ' (the same 32 bits read as a signed Integer: the ADM value is unsigned, errata D-05)'
    >>> mapping_hint(4043440900, -251526396)
    ' (the same 32 bits read as unsigned: the ADM value is signed, errata D-05)'
    >>> mapping_hint(5, 6)
    ''
    """
    numbers = all(isinstance(v, int) and not isinstance(v, bool) for v in (mine, theirs))
    if not numbers or mine == theirs or (mine - theirs) % (1 << 32):
        return ""
    if mine < 0 <= theirs:
        return (
            " (the same 32 bits read as a signed Integer: the ADM value is unsigned, errata D-05)"
        )
    return " (the same 32 bits read as unsigned: the ADM value is signed, errata D-05)"


def published_queue(setup: dict[str, Any], guid: uuid.UUID) -> dict[str, Any]:
    """The JSON of the queue a scenario's directory publishes under ``guid`` (Setup.to_json())."""
    for entry in setup["directory"]["queues"]:
        if entry["queue"]["Identifier"] == str(guid):
            return entry["queue"]
    raise KeyError(f"the directory of this scenario publishes no queue {guid}")


def published_queue_manager(setup: dict[str, Any], guid: uuid.UUID) -> dict[str, Any]:
    """The JSON attributes of the queue manager a scenario's directory publishes under ``guid``."""
    for qm in setup["directory"]["queue_managers"]:
        if qm["Identifier"] == str(guid):
            return qm
    raise KeyError(f"the directory of this scenario publishes no queue manager {guid}")


def directory_copy_problems(
    setup: dict[str, Any], state: dict[str, Any], guid: uuid.UUID, *, queue_manager: bool
) -> list[str]:
    """Attributes in which the queue (or, ``queue_manager``, the queue manager) ``guid`` of
    ``state`` differs from what a Read Directory of 3.2.5.2 returns for it from the scenario's
    directory (``Setup.to_json()``)."""
    if queue_manager:
        published = published_queue_manager(setup, guid)
        return read_attribute_problems(state["queue_manager"], published, V2_QM_READ_ATTRIBUTES)
    local = state["queues"].get(str(guid))
    return read_attribute_problems(local, published_queue(setup, guid), V2_QUEUE_READ_ATTRIBUTES)


# --- server side: mutation analysis additions ------------------------------------------------


def sparse_creation_problems(queue: dict[str, Any] | None, carried: dict[str, Any]) -> list[str]:
    """How a queue created from a creation that carried only ``carried`` (attribute -> JSON
    value, e.g. Pathname and Label) departs from it: each carried attribute holds its value,
    and no attribute the creation did not carry holds one of those values (it starts from Set
    Queue Defaults, errata E-19, whatever they are).  None created: no problem (E-20: a
    receiver may disregard a creation that breaks a sender's rule).

    >>> sparse_creation_problems({"Label": "s", "Quota": "s"}, {"Label": "s"})
    ["Quota holds 's', a value the creation gave Label"]
    """
    if queue is None:
        return []
    problems = [
        f"{name} is {queue.get(name)!r}, not {value!r}"
        for name, value in carried.items()
        if queue.get(name) != value
    ]
    for name, value in queue.items():
        for source, given in carried.items():
            if name != source and value == given:
                problems.append(f"{name} holds {value!r}, a value the creation gave {source}")
    return problems
