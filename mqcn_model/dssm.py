"""The MS-MQDSSM mapping: Queue and QueueManager ADM objects as LDAP entries laid out as Active
Directory, and back.

Write side: :func:`directory_entries` turns a scenario's directory (ADM objects) into the
:class:`~mqcn_model.ldap_records.LdapEntry` list a directory server is loaded with, at the
distinguished names of [MS-MQDSSM] 2.2.1, every value in the syntax the AD schema gives its
attribute.  A value that has no such form raises :class:`~mqcn_model.errors.DirectoryValueError`.

Read side: :func:`queue_from_ldap` / :func:`queue_manager_from_ldap` are Create ADM Element From
LDAP Values (3.1.6.11): the attribute values a search returned become ADM values, with the
defaults and the error rows of the 3.1.6.11 tables; :func:`ldap_attributes_for` is Create LDAP
Attribute List (3.1.6.10); :func:`result_of_ldap_code` is the table of 2.2.6.

Finding an object by its Identifier (3.1.6.19 and errata D-01): :func:`guid_filter`
builds either form of the objectGUID filter, :func:`guids_named` finds them in a filter as a
server prints it.

:func:`published_view` is decode(encode(directory)): what a Read Directory of MS-MQCN 3.2.5.2's
attribute lists gives for each object, in the ADM JSON form.

Pure: no connection, no clock.

>>> import uuid
>>> queue_dn("QM1\\\\Orders")
'CN=Orders,CN=msmq,CN=QM1,CN=Computers,DC=mqcn,DC=example'
>>> compact_guid(uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff"))
'6F9619FF8B86D011B42D00C04FC964FF'
>>> result_of_ldap_code(32).value
'ObjectNotFound'
"""

from __future__ import annotations

import calendar
import datetime
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mqcn_model.adm import NO_LIMIT, READ_NAME_TO_ATTRIBUTE, Queue, QueueManager
from mqcn_model.constants import (
    MSMQ_OS_VALUES,
    V2_QM_READ_ATTRIBUTES,
    V2_QUEUE_READ_ATTRIBUTES,
)
from mqcn_model.directory import DirectoryOperationResult
from mqcn_model.errors import DirectoryValueError
from mqcn_model.json_views import value_to_json
from mqcn_model.ldap_records import LdapEntry, LdapValue

DEFAULT_ROOT = "DC=mqcn,DC=example"
MAX_QUEUE_NAME = 63  # longer: the 2.2.5 hash and mSMQQueueNameExt, not supported (errata D-18)
MAX_CN = 64  # rangeUpper of cn ([MS-ADA1] 2.110)
INT32_MIN, INT32_MAX, UINT32_MAX = -(2**31), 2**31 - 1, 2**32 - 1
ZERO_GUID = uuid.UUID(int=0)

# objectClass values the entries carry (the fixture's schema defines the MSMQ and AD classes).
DOMAIN_CLASSES = ("top", "dcObject", "organization")  # core.schema only (no cosine "domain")
CONTAINER_CLASSES = ("top", "container")
COMPUTER_CLASSES = ("top", "computer")
CONFIGURATION_CLASSES = ("top", "mSMQConfiguration")
QUEUE_CLASSES = ("top", "mSMQQueue")

# Create LDAP Attribute List (3.1.6.10.1 / 3.1.6.10.2): ADM name -> LDAP attribute names.
QUEUE_LDAP_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "Identifier": ("objectGUID",),
    "Label": ("mSMQLabelEx",),
    "CreateTime": ("whenCreated",),
    "ModifyTime": ("whenChanged",),
    "Type": ("mSMQQueueType",),
    "Pathname": ("distinguishedName", "mSMQQueueNameExt"),
    "QualifiedPathname": ("distinguishedName", "mSMQQueueNameExt"),
    "Journaling": ("mSMQJournal",),
    "Quota": ("mSMQQueueQuota",),
    "JournalQuota": ("mSMQQueueJournalQuota",),
    "Authentication": ("mSMQAuthenticate",),
    "PrivacyLevel": ("mSMQPrivacyLevel",),
    "Transactional": ("mSMQTransactional",),
    "MulticastAddress": ("MSMQ-MulticastAddress",),
    "Security": ("nTSecurityDescriptor",),
    "BasePriority": ("mSMQBasePriority",),
    "FullPath": ("distinguishedName",),
    "DirectoryPath": ("distinguishedName",),
}
QUEUE_MANAGER_LDAP_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "Identifier": ("objectGUID",),
    "ComputerName": ("distinguishedName",),
    "QueueManagerVersion": ("mSMQComputerTypeEx",),
    "OperatingSystemType": ("mSMQOSType",),
    "CreateTime": ("whenCreated",),
    "ModifyTime": ("whenChanged",),
    "QueueManagerQuota": ("mSMQQuota",),
    "JournalQuota": ("mSMQJournalQuota",),
    "ForeignSystem": ("mSMQForeign",),
    "FullPath": ("distinguishedName",),
    "SiteIdentifierList": ("mSMQSites",),
    "OutRoutingServerIdentifierList": ("mSMQOutRoutingServers",),
    "InRoutingServerIdentifierList": ("mSMQInRoutingServers",),
    "RoutingServer": ("mSMQRoutingServices",),
    "DirectoryServer": ("mSMQDsServices",),
    "DirectoryServerType": ("mSMQDsServices", "mSMQServiceType"),
    "RemoteAccessServer": ("mSMQServiceType",),
    "SupportingServer": ("mSMQDependentClientServices",),
    "PublicEncryptionKeyList": ("mSMQEncryptKey",),
    "Security": ("nTSecurityDescriptor",),
}
LDAP_ATTRIBUTES = {"Queue": QUEUE_LDAP_ATTRIBUTES, "QueueManager": QUEUE_MANAGER_LDAP_ATTRIBUTES}
# MS-MQCN 3.2.5.2 writes "Journal" for the Journaling attribute (errata E-17).
READ_ALIASES = READ_NAME_TO_ATTRIBUTE


# === distinguished names (2.2.1) ============================================================


def escape_rdn_value(value: str) -> str:
    """``value`` escaped for a DN (RFC 4514 2.4): ``,+"\\<>;=``, a leading ``#`` or space and a
    trailing space take a backslash.

    >>> escape_rdn_value("a,b ")
    'a\\\\,b\\\\ '
    """
    out = []
    for i, char in enumerate(value):
        special = char in ',+"\\<>;=' or (i == 0 and char in "# ")
        special = special or (i == len(value) - 1 and char == " ")
        out.append("\\" + char if special else char)
    return "".join(out)


def split_dn(dn: str) -> list[tuple[str, str]]:
    """The RDNs of ``dn`` as (type, unescaped value) pairs; unescaped spaces around them are
    ignored, escaped ones kept (RFC 4514).

    >>> split_dn("CN=a\\\\,b, DC=x")
    [('CN', 'a,b'), ('DC', 'x')]
    >>> split_dn("CN=\\\\ a\\\\20 ,DC=x")[0]
    ('CN', ' a ')
    """
    rdns: list[tuple[str, str]] = []
    current: list[tuple[str, bool]] = []  # (text, escaped)
    raw = bytearray()

    def drain() -> None:
        if raw:
            current.append((raw.decode("utf-8", "replace"), True))
            raw.clear()

    def flush() -> None:
        drain()
        cut = next((n for n, (c, esc) in enumerate(current) if c == "=" and not esc), None)
        if cut is None:
            text = "".join(c for c, _ in current)
            raise ValueError(f"{dn!r} is not a distinguished name: {text!r} has no '='")
        kind = "".join(c for c, _ in current[:cut]).strip()
        value = current[cut + 1 :]
        while value and value[0] == (" ", False):
            value.pop(0)
        while value and value[-1] == (" ", False):
            value.pop()
        rdns.append((kind, "".join(c for c, _ in value)))
        current.clear()

    i = 0
    while i < len(dn):
        char = dn[i]
        if char == "\\" and i + 1 < len(dn):
            pair = dn[i + 1 : i + 3]
            if re.fullmatch(r"[0-9a-fA-F]{2}", pair):
                raw.extend(bytes.fromhex(pair))
                i += 3
                continue
            drain()
            current.append((dn[i + 1], True))
            i += 2
            continue
        drain()
        if char == ",":
            flush()
        else:
            current.append((char, False))
        i += 1
    if current or raw or rdns:
        flush()
    return rdns


def normal_dn(dn: str) -> str:
    """``dn`` in one form for comparing: RDN types and values lowercase, no spaces around them.

    >>> normal_dn("CN=Orders, CN=msmq,cn=QM1") == normal_dn("cn=orders,cn=MSMQ, CN=qm1")
    True
    """
    return ",".join(f"{k.lower()}={escape_rdn_value(v.lower())}" for k, v in split_dn(dn))


def pretty_dn(dn: str) -> str:
    """``dn`` as OpenLDAP's slapd returns it (its "pretty" form): attribute types lowercase,
    ``,+"\\<>;=`` and a leading ``#`` or space and a trailing space as ``\\XX`` hex escapes.

    The fixture's server gives every DN in this form (entry DNs and distinguishedName alike);
    Active Directory writes the types in capitals.  Compare DNs with :func:`same_dn` (errata
    D-13).

    >>> pretty_dn("CN=a\\\\,b,DC=x")
    'cn=a\\\\2Cb,dc=x'
    """

    def escape(value: str) -> str:
        out = []
        for i, char in enumerate(value):
            edge = (i == 0 and char in "# ") or (i == len(value) - 1 and char == " ")
            out.append(f"\\{ord(char):02X}" if edge or char in ',+"\\<>;=' else char)
        return "".join(out)

    return ",".join(f"{kind.lower()}={escape(value)}" for kind, value in split_dn(dn))


def same_dn(one: str, other: str) -> bool:
    """Whether two DNs name one entry: RDNs equal in any case, whatever the escapes and the
    spaces around them (the DNs of this layout are all of case-insensitive ``cn``/``dc``)."""
    try:
        return normal_dn(one) == normal_dn(other)
    except ValueError:
        return one == other


def configuration_naming_context(root: str = DEFAULT_ROOT) -> str:
    """configurationNamingContext: ``CN=Configuration,<root>`` ([MS-ADTS] NC naming)."""
    return f"CN=Configuration,{root}"


def computers_dn(root: str = DEFAULT_ROOT) -> str:
    """Where 2.2.1 puts computers and their MSMQ objects (not the configuration NC: errata D-02)."""
    return f"CN=Computers,{root}"


def users_dn(root: str = DEFAULT_ROOT) -> str:
    return f"CN=Users,{root}"


def suite_bind_dn(root: str = DEFAULT_ROOT) -> str:
    """The identity the suite writes the directory with (the server's rootdn)."""
    return f"CN=mqcn-suite,{root}"


def target_bind_dn(root: str = DEFAULT_ROOT) -> str:
    """The read-only account a target reads the directory with."""
    return f"CN=mqcn-target,{users_dn(root)}"


def _computer_cn(computer: str) -> str:
    """The CN of a computer: the first label of a DNS name (``qm1`` of ``qm1.example.com``)."""
    return computer.split(".", 1)[0]


def computer_dn(computer: str, root: str = DEFAULT_ROOT) -> str:
    """``CN=<computer>,CN=Computers,<root>`` (2.2.1); a DNS name gives its first label."""
    return f"CN={escape_rdn_value(_computer_cn(computer))},{computers_dn(root)}"


def configuration_dn(computer: str, root: str = DEFAULT_ROOT) -> str:
    """The mSMQConfiguration object (the queue manager) of ``computer``: ``CN=msmq,<computer>``."""
    return f"CN=msmq,{computer_dn(computer, root)}"


def pathname_parts(pathname: str, subject: str = "queue") -> tuple[str, str]:
    """``(computer, queue name)`` of an ADM Pathname ``computer\\queuename`` ([MS-MQMQ] 2.1.1);
    a DirectoryValueError when the Pathname has no such form or the fixture cannot lay it out
    (errata D-18).
    """
    computer, sep, name = pathname.partition("\\")

    def refuse(why: str) -> DirectoryValueError:
        return DirectoryValueError(subject, "Pathname", "distinguishedName", pathname, why)

    if not sep or not computer or not name:
        raise refuse("a public queue's Pathname is 'computer\\queuename' (MS-MQMQ 2.1.1)")
    if "\\" in name:
        raise refuse("the queue name holds a backslash (a private queue is not in the directory)")
    if len(name) > MAX_QUEUE_NAME:
        raise refuse(
            f"the queue name has {len(name)} characters; names over {MAX_QUEUE_NAME} take the "
            "MS-MQDSSM 2.2.5 hash, which the fixture does not support"
        )
    if len(_computer_cn(computer)) > MAX_CN:
        raise refuse(f"the computer name is longer than {MAX_CN} characters (cn's range)")
    return computer, name


def queue_dn(pathname: str, root: str = DEFAULT_ROOT) -> str:
    """``CN=<queue name>,CN=msmq,CN=<computer>,CN=Computers,<root>`` of a queue's Pathname."""
    computer, name = pathname_parts(pathname)
    return f"CN={escape_rdn_value(name)},{configuration_dn(computer, root)}"


# === value encodings ========================================================================


def compact_guid(guid: uuid.UUID) -> str:
    """CompactGuid of 3.1.6.19: the hex digits of the braced string form, in string order."""
    return guid.hex.upper()


def escaped_guid(guid: uuid.UUID) -> str:
    """The 16 objectGUID bytes ([MS-DTYP] 2.3.4.2 order) escaped for a filter (RFC 4515)."""
    return "".join(f"\\{b:02x}" for b in guid.bytes_le)


def guid_filter(guid: uuid.UUID, form: str = "compact") -> str:
    """The filter that finds the object whose objectGUID is ``guid``: ``compact`` (the letter
    of 3.1.6.19) or ``escaped`` (the 16 bytes, as Active Directory clients send them); both
    pass (errata D-01).

    >>> guid_filter(uuid.UUID(int=1), "escaped")[:27]
    '(objectGUID=\\\\00\\\\00\\\\00\\\\00\\\\00'
    """
    if form == "compact":
        return f"(objectGuid={compact_guid(guid)})"
    if form == "escaped":
        return f"(objectGUID={escaped_guid(guid)})"
    raise ValueError(f"unknown GUID filter form {form!r} (compact or escaped)")


def generalized_time(seconds: int) -> str:
    """Epoch seconds (UTC, may be negative) as GeneralizedTime ``YYYYMMDDHHMMSS.0Z``."""
    moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)
    return (
        f"{moment.year:04d}{moment.month:02d}{moment.day:02d}"
        f"{moment.hour:02d}{moment.minute:02d}{moment.second:02d}.0Z"
    )


_GENERALIZED = re.compile(
    r"(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})?(\d{2})?(?:[.,](\d+))?(Z|[+-]\d{2}(?:\d{2})?)"
)


def epoch_seconds(text: str) -> int:
    """GeneralizedTime (RFC 4517 3.3.13) as whole epoch seconds (fraction dropped); ValueError
    when ``text`` is not one."""
    match = _GENERALIZED.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a GeneralizedTime")
    year, month, day, hour = (int(match.group(n)) for n in range(1, 5))
    minute, second = int(match.group(5) or 0), int(match.group(6) or 0)
    when = datetime.datetime(year, month, day, hour, minute, min(second, 59))
    seconds = calendar.timegm(when.timetuple())
    zone = match.group(8)
    if zone != "Z":
        offset = int(zone[1:3]) * 3600 + int(zone[3:5] or 0) * 60
        seconds -= offset if zone[0] == "+" else -offset
    return seconds


def _boolean(value: int, subject: str, adm: str, ldap: str) -> str:
    if isinstance(value, bool) or value not in (0, 1):
        raise DirectoryValueError(subject, adm, ldap, value, "a Boolean is 0 or 1")
    return "TRUE" if value else "FALSE"  # the LDAP Boolean AD returns, not 1/0 (errata D-04)


def _unsigned32(value: int, subject: str, adm: str, ldap: str) -> str:
    """An unsigned 32-bit ADM value as AD's 32-bit signed Integer (two's complement; errata
    D-05)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= UINT32_MAX:
        raise DirectoryValueError(subject, adm, ldap, value, "not an unsigned 32-bit integer")
    return str(value - 2**32 if value > INT32_MAX else value)


def _signed32(value: int, subject: str, adm: str, ldap: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DirectoryValueError(subject, adm, ldap, value, "not an integer")
    if not INT32_MIN <= value <= INT32_MAX:
        raise DirectoryValueError(subject, adm, ldap, value, "outside AD's 32-bit Integer")
    return str(value)


def _text(value: str, subject: str, adm: str, ldap: str) -> str:
    if not isinstance(value, str):
        raise DirectoryValueError(subject, adm, ldap, value, "not a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise DirectoryValueError(
            subject, adm, ldap, value, "a lone surrogate has no UTF-8 form (String(Unicode))"
        ) from None
    return value


def _time(value: int, subject: str, adm: str, ldap: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DirectoryValueError(subject, adm, ldap, value, "not an integer")
    try:
        return generalized_time(value)
    except OverflowError:
        raise DirectoryValueError(
            subject, adm, ldap, value, "outside GeneralizedTime's years 0001-9999"
        ) from None


def _octets(value: bytes, subject: str, adm: str, ldap: str) -> bytes:
    if not isinstance(value, bytes | bytearray):
        raise DirectoryValueError(subject, adm, ldap, value, "not bytes")
    return bytes(value)


def _guid(value: uuid.UUID, subject: str, adm: str, ldap: str) -> bytes:
    if not isinstance(value, uuid.UUID):
        raise DirectoryValueError(subject, adm, ldap, value, "not a GUID")
    return value.bytes_le


# === entries (write side) ===================================================================


def _container(dn: str, name: str) -> LdapEntry:
    return LdapEntry(dn, {"objectClass": list(CONTAINER_CLASSES), "cn": [name]})


def base_entries(root: str = DEFAULT_ROOT) -> list[LdapEntry]:
    """The domain entry and its Configuration, Computers and Users containers."""
    parts = split_dn(root)
    if not parts or parts[0][0].upper() != "DC":
        raise ValueError(f"the root naming context {root!r} must start with a DC= component")
    name = parts[0][1]
    domain = LdapEntry(root, {"objectClass": list(DOMAIN_CLASSES), "dc": [name], "o": [name]})
    return [
        domain,
        _container(configuration_naming_context(root), "Configuration"),
        _container(computers_dn(root), "Computers"),
        _container(users_dn(root), "Users"),
    ]


def queue_attributes(queue: Queue, dn: str) -> dict[str, list[LdapValue]]:
    """The mSMQQueue attribute values of ``queue`` (3.1.6.10.2 names, AD syntaxes).

    Empty strings and an empty Security are left out (LDAP has no empty value, errata D-15); the
    reader's defaults give "" back, and no Security is a read error (3.1.6.11.2).
    """
    who = f"queue {queue.Identifier}"
    name = split_dn(dn)[0][1]
    out: dict[str, list[LdapValue]] = {
        "objectClass": list(QUEUE_CLASSES),
        "cn": [name],
        "objectGUID": [_guid(queue.Identifier, who, "Identifier", "objectGUID")],
        "mSMQQueueType": [_guid(queue.Type, who, "Type", "mSMQQueueType")],
        "whenCreated": [_time(queue.CreateTime, who, "CreateTime", "whenCreated")],
        "whenChanged": [_time(queue.ModifyTime, who, "ModifyTime", "whenChanged")],
        "mSMQJournal": [_boolean(queue.Journaling, who, "Journaling", "mSMQJournal")],
        "mSMQQueueQuota": [_unsigned32(queue.Quota, who, "Quota", "mSMQQueueQuota")],
        "mSMQQueueJournalQuota": [
            _unsigned32(queue.JournalQuota, who, "JournalQuota", "mSMQQueueJournalQuota")
        ],
        "mSMQAuthenticate": [
            _boolean(queue.Authentication, who, "Authentication", "mSMQAuthenticate")
        ],
        "mSMQTransactional": [
            _boolean(queue.Transactional, who, "Transactional", "mSMQTransactional")
        ],
        "mSMQBasePriority": [
            _signed32(queue.BasePriority, who, "BasePriority", "mSMQBasePriority")
        ],
    }
    if queue.PrivacyLevel not in (0, 1, 2) or isinstance(queue.PrivacyLevel, bool):
        raise DirectoryValueError(
            who, "PrivacyLevel", "mSMQPrivacyLevel", queue.PrivacyLevel, "not 0, 1 or 2"
        )
    out["mSMQPrivacyLevel"] = [str(queue.PrivacyLevel)]
    label = _text(queue.Label, who, "Label", "mSMQLabelEx")
    multicast = _text(queue.MulticastAddress, who, "MulticastAddress", "MSMQ-MulticastAddress")
    security = _octets(queue.Security, who, "Security", "nTSecurityDescriptor")
    for ldap, value in (
        ("mSMQLabelEx", label),
        ("MSMQ-MulticastAddress", multicast),
        ("nTSecurityDescriptor", security),
    ):
        if value:
            out[ldap] = [value]
    return out


def queue_manager_attributes(qm: QueueManager, computer: str) -> dict[str, list[LdapValue]]:
    """The mSMQConfiguration attribute values of ``qm`` (3.1.6.10.1 names, AD syntaxes).

    The suite's QueueManager has no CreateTime/ModifyTime; whenCreated/whenChanged (present on
    every AD object) are written as the epoch (errata D-19).
    """
    who = f"queue manager {qm.Identifier}"
    if qm.ConnectedNetworkIdentifierList:
        raise DirectoryValueError(
            who,
            "ConnectedNetworkIdentifierList",
            "(none)",
            [str(g) for g in qm.ConnectedNetworkIdentifierList],
            "not stored in an Active Directory environment (MS-MQDSSM 3.1.6.20.1)",
        )
    if qm.OperatingSystemType not in MSMQ_OS_VALUES or isinstance(qm.OperatingSystemType, bool):
        raise DirectoryValueError(
            who,
            "OperatingSystemType",
            "mSMQOSType",
            qm.OperatingSystemType,
            "not a value of the 3.1.6.11.1.2 table",
        )
    out: dict[str, list[LdapValue]] = {
        "objectClass": list(CONFIGURATION_CLASSES),
        "cn": ["msmq"],
        "objectGUID": [_guid(qm.Identifier, who, "Identifier", "objectGUID")],
        "whenCreated": [generalized_time(0)],
        "whenChanged": [generalized_time(0)],
        "mSMQQuota": [_unsigned32(qm.QueueManagerQuota, who, "QueueManagerQuota", "mSMQQuota")],
        "mSMQJournalQuota": [_unsigned32(qm.JournalQuota, who, "JournalQuota", "mSMQJournalQuota")],
        "mSMQForeign": [_boolean(qm.ForeignSystem, who, "ForeignSystem", "mSMQForeign")],
        "mSMQOSType": [str(qm.OperatingSystemType)],
    }
    version = _text(qm.QueueManagerVersion, who, "QueueManagerVersion", "mSMQComputerTypeEx")
    security = _octets(qm.Security, who, "Security", "nTSecurityDescriptor")
    if version:
        out["mSMQComputerTypeEx"] = [version]
    if security:
        out["nTSecurityDescriptor"] = [security]
    return out


def directory_entries(
    queues: Iterable[tuple[Queue, str | None]],
    queue_managers: Iterable[tuple[QueueManager, str]],
    root: str = DEFAULT_ROOT,
    *,
    distinguished_names: bool = True,
) -> list[LdapEntry]:
    """Every entry of a directory holding ``queues`` (each with its owner's computer, or None:
    the Pathname's) and ``queue_managers`` (each with its computer), parents first, base
    entries included.

    A computer with queues but no published queue manager gets a plain ``container`` CN=msmq
    (no objectGUID).  ``distinguished_names`` stores each MSMQ entry's DN in its
    distinguishedName attribute, as Active Directory returns it.  Raises DirectoryValueError
    for a value with no LDAP form, a queue under a computer that is not its owner's, and two
    objects at one DN or with one objectGUID; a root that is not a DN starting with ``DC=`` is
    refused first, with a ValueError naming it.
    """
    entries = base_entries(root)  # checks the root before any DN is made under it
    computers: dict[str, str] = {}  # normal DN -> computer name as first given
    configurations: dict[str, LdapEntry] = {}
    leaves: list[LdapEntry] = []
    guids: dict[uuid.UUID, str] = {}

    def claim(guid: uuid.UUID, who: str) -> None:
        if guid in guids:
            raise DirectoryValueError(
                who, "Identifier", "objectGUID", str(guid), f"{guids[guid]} has it too"
            )
        guids[guid] = who

    def computer_of(name: str) -> str:
        dn = computer_dn(name, root)
        computers.setdefault(normal_dn(dn), name)
        return dn

    for qm, computer in queue_managers:
        who = f"queue manager {qm.Identifier}"
        if not computer or len(_computer_cn(computer)) > MAX_CN:
            raise DirectoryValueError(who, "(computer)", "cn", computer, "no usable computer name")
        claim(qm.Identifier, who)
        computer_of(computer)
        dn = configuration_dn(computer, root)
        if normal_dn(dn) in configurations:
            raise DirectoryValueError(who, "(computer)", "cn", computer, "has two queue managers")
        configurations[normal_dn(dn)] = LdapEntry(dn, queue_manager_attributes(qm, computer))
    seen: dict[str, str] = {}
    for queue, owner in queues:
        who = f"queue {queue.Identifier}"
        computer, _ = pathname_parts(queue.Pathname, who)
        if owner is not None and _computer_cn(owner).lower() != computer.lower():
            raise DirectoryValueError(
                who,
                "Pathname",
                "distinguishedName",
                queue.Pathname,
                f"its owner is on computer {owner!r}, the Pathname names {computer!r}",
            )
        claim(queue.Identifier, who)
        computer_of(computer)
        dn = queue_dn(queue.Pathname, root)
        if normal_dn(dn) in seen:
            raise DirectoryValueError(
                who,
                "Pathname",
                "distinguishedName",
                queue.Pathname,
                f"{seen[normal_dn(dn)]} has it",
            )
        seen[normal_dn(dn)] = who
        leaves.append(LdapEntry(dn, queue_attributes(queue, dn)))
    for name in computers.values():
        dn = computer_dn(name, root)
        attributes: dict[str, list[LdapValue]] = {
            "objectClass": list(COMPUTER_CLASSES),
            "cn": [_computer_cn(name)],
        }
        if "." in name:
            attributes["dNSHostName"] = [name]
        entries.append(LdapEntry(dn, attributes))
        msmq = configuration_dn(name, root)
        entries.append(configurations.get(normal_dn(msmq)) or _container(msmq, "msmq"))
    entries.extend(leaves)
    if distinguished_names:
        entries = [
            LdapEntry(e.dn, {**e.attributes, "distinguishedName": [e.dn]})
            if "objectGUID" in e.attributes or e.attributes["objectClass"] == list(COMPUTER_CLASSES)
            else e
            for e in entries
        ]
    return entries


# === read side (3.1.6.10, 3.1.6.11, 2.2.6) ==================================================


def result_of_ldap_code(code: int) -> DirectoryOperationResult:
    """The DirectoryOperationResult of an LDAP result code (MS-MQDSSM 2.2.6)."""
    return {
        0: DirectoryOperationResult.Success,
        32: DirectoryOperationResult.ObjectNotFound,
        16: DirectoryOperationResult.AttributeNotFound,
        68: DirectoryOperationResult.ObjectAlreadyExists,
    }.get(code, DirectoryOperationResult.GenericError)


def _table(object_type: str) -> dict[str, tuple[str, ...]]:
    try:
        return LDAP_ATTRIBUTES[object_type]
    except KeyError:
        raise ValueError(
            f"unknown directory object type {object_type!r} (Queue or QueueManager)"
        ) from None


def ldap_attributes_for(object_type: str, adm_names: Iterable[str]) -> tuple[str, ...]:
    """Create LDAP Attribute List (3.1.6.10): the LDAP attributes that give ``adm_names``, in
    order, each once; names outside the table are ignored ("Journal" is "Journaling").

    >>> ldap_attributes_for("QueueManager", ("QueueManagerQuota", "JournalQuota", "Security"))
    ('mSMQQuota', 'mSMQJournalQuota', 'nTSecurityDescriptor')
    """
    table = _table(object_type)
    out: list[str] = []
    for name in adm_names:
        for ldap in table.get(READ_ALIASES.get(name, name), ()):
            if ldap not in out:
                out.append(ldap)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class LdapReadFailure:
    """A Create ADM Element From LDAP Values that fails: the result and the reason."""

    result: DirectoryOperationResult
    reason: str


class _Failed(Exception):
    pass


class _Values:
    """Attribute values looked up by name in any case (LDAP attribute names are)."""

    def __init__(self, values: Mapping[str, Sequence[LdapValue]], dn: str | None) -> None:
        self._values = {k.lower(): list(v) for k, v in values.items()}
        if dn is not None and not self._values.get("distinguishedname"):
            self._values["distinguishedname"] = [dn]

    def one(self, name: str) -> LdapValue | None:
        found = self._values.get(name.lower()) or []
        if len(found) > 1:
            raise _Failed(f"{name} has {len(found)} values; it is single-valued")
        return found[0] if found else None

    def many(self, name: str) -> list[LdapValue]:
        return self._values.get(name.lower()) or []

    def text(self, name: str) -> str | None:
        value = self.one(name)
        if isinstance(value, bytes):
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError:
                raise _Failed(f"{name} is not UTF-8: {value.hex()}") from None
        return value

    def octets(self, name: str, size: int | None = None) -> bytes | None:
        value = self.one(name)
        if value is None:
            return None
        if not isinstance(value, bytes):
            raise _Failed(f"{name} is an octet string; got text {value!r}")
        if size is not None and len(value) != size:
            raise _Failed(f"{name} has {len(value)} bytes, not {size}")
        return value

    def integer(self, name: str) -> int | None:
        text = self.text(name)
        if text is None:
            return None
        if not re.fullmatch(r"-?\d+", text.strip()):
            raise _Failed(f"{name} = {text!r} is not an Integer")
        number = int(text)
        if not INT32_MIN <= number <= UINT32_MAX:  # signed as AD stores it, or not (D-05)
            raise _Failed(f"{name} = {number} is outside a 32-bit Integer")
        return number

    def boolean(self, name: str) -> int | None:
        text = self.text(name)
        if text is None:
            return None
        word = text.strip().upper()  # AD's TRUE/FALSE, or MS-MQDSSM's 1/0 (errata D-04)
        if word in ("TRUE", "1"):
            return 1
        if word in ("FALSE", "0"):
            return 0
        raise _Failed(f"{name} = {text!r} is neither TRUE (1) nor FALSE (0)")

    def time(self, name: str) -> int | None:
        text = self.text(name)
        if text is None:
            return None
        try:
            return epoch_seconds(text.strip())
        except ValueError as exc:
            raise _Failed(f"{name}: {exc}") from None

    def dn(self) -> str:
        text = self.text("distinguishedName")
        if not text:
            raise _Failed("no distinguishedName (the entry's DN)")
        return text


def _required(value: Any, what: str) -> Any:
    if value is None:
        raise _Failed(f"{what} is not set (an error in the 3.1.6.11 table)")
    return value


def _queue_pathname(v: _Values) -> str:
    """3.1.6.11.2.1: ``computer\\queuename`` from the DN (and mSMQQueueNameExt), lowercase."""
    rdns = split_dn(v.dn())
    if len(rdns) < 3:
        raise _Failed(f"distinguishedName {v.dn()!r} is not a queue's (2.2.1)")
    name, computer = rdns[0][1], rdns[2][1]
    ext = ""
    if len(name) == 64:
        ext = v.text("mSMQQueueNameExt") or ""
        name = name[:-9]
    return (computer + "\\" + name.replace("\\", "") + ext).lower()


def _unsigned(value: int | None) -> int | None:
    return None if value is None else value & UINT32_MAX


def _queue_value(name: str, v: _Values) -> Any:
    if name == "Identifier":
        guid = _required(v.octets("objectGUID", 16), "objectGUID")
        return uuid.UUID(bytes_le=guid)
    if name == "Label":
        return v.text("mSMQLabelEx") or ""
    if name == "CreateTime":
        return _required(v.time("whenCreated"), "whenCreated")
    if name == "ModifyTime":
        return _required(v.time("whenChanged"), "whenChanged")
    if name == "Type":
        kind = v.octets("mSMQQueueType", 16)
        return ZERO_GUID if kind is None else uuid.UUID(bytes_le=kind)
    if name == "Pathname":
        return _queue_pathname(v)
    if name in ("Journaling", "Authentication", "Transactional"):
        ldap = QUEUE_LDAP_ATTRIBUTES[name][0]
        found = v.boolean(ldap)
        return 0 if found is None else found
    if name in ("Quota", "JournalQuota"):
        found = _unsigned(v.integer(QUEUE_LDAP_ATTRIBUTES[name][0]))
        return NO_LIMIT if found is None else found
    if name == "PrivacyLevel":
        level = v.integer("mSMQPrivacyLevel")
        if level is None:
            return 1
        if level not in (0, 1, 2):
            raise _Failed(f"mSMQPrivacyLevel = {level} is not 0, 1 or 2 (3.1.6.11.2.3)")
        return level
    if name == "MulticastAddress":
        return v.text("MSMQ-MulticastAddress") or ""
    if name == "Security":
        return _required(v.octets("nTSecurityDescriptor") or None, "nTSecurityDescriptor")
    if name == "BasePriority":
        found = v.integer("mSMQBasePriority")
        return 0 if found is None else found
    if name == "FullPath":
        return v.dn()
    if name == "DirectoryPath":
        return "LDAP://" + v.dn()
    return None


def _queue_manager_value(name: str, v: _Values) -> Any:
    if name == "Identifier":
        guid = _required(v.octets("objectGUID", 16), "objectGUID")
        return uuid.UUID(bytes_le=guid)
    if name == "ComputerName":
        rdns = split_dn(v.dn())
        if len(rdns) < 2:
            raise _Failed(f"distinguishedName {v.dn()!r} is not a queue manager's (2.2.1)")
        return rdns[1][1]
    if name == "QueueManagerVersion":
        return v.text("mSMQComputerTypeEx") or ""
    if name == "OperatingSystemType":
        os_type = v.integer("mSMQOSType")
        if os_type is None:
            return 0  # 3.1.6.11.1's "Unknown" is not in the table (errata D-17)
        if os_type not in MSMQ_OS_VALUES:
            raise _Failed(f"mSMQOSType = {os_type:#x} is not in the 3.1.6.11.1.2 table")
        return os_type
    if name == "CreateTime":
        return _required(v.time("whenCreated"), "whenCreated")
    if name == "ModifyTime":
        return _required(v.time("whenChanged"), "whenChanged")
    if name == "QueueManagerQuota":
        found = _unsigned(v.integer("mSMQQuota"))
        return 0x00100000 if found is None else found  # note <10>: XP 0xFFFFFFFF (D-16)
    if name == "JournalQuota":
        found = _unsigned(v.integer("mSMQJournalQuota"))
        return NO_LIMIT if found is None else found
    if name in ("ForeignSystem", "RoutingServer", "DirectoryServer", "SupportingServer"):
        found = v.boolean(QUEUE_MANAGER_LDAP_ATTRIBUTES[name][0])
        return 0 if found is None else found
    if name == "RemoteAccessServer":
        service = v.integer("mSMQServiceType")
        return int(bool((service or 0) & 0x10))
    if name == "FullPath":
        return v.dn()
    if name == "SiteIdentifierList":
        sites = v.many("mSMQSites")
        if any(not isinstance(s, bytes) or len(s) != 16 for s in sites):
            raise _Failed("mSMQSites holds a value that is not 16 bytes")
        return tuple(uuid.UUID(bytes_le=bytes(s)) for s in sites)  # type: ignore[arg-type]
    if name == "PublicEncryptionKeyList":
        return v.octets("mSMQEncryptKey") or b""
    if name == "Security":
        return _required(v.octets("nTSecurityDescriptor") or None, "nTSecurityDescriptor")
    return None


def object_from_ldap(
    object_type: str,
    values: Mapping[str, Sequence[LdapValue]],
    attributes: Iterable[str],
    *,
    dn: str | None = None,
) -> dict[str, Any] | LdapReadFailure:
    """Create ADM Element From LDAP Values (3.1.6.11): the ADM values of ``attributes`` (keyed
    as asked: "Journal" stays "Journal") from the LDAP ``values`` (names in any case; the
    entry's DN as distinguishedName or ``dn``), or the failure and why.

    Names the mapping does not compute (3.1.6.10's "ignored") are left out.  Asking a
    QueueManager for ConnectedNetworkIdentifierList is GenericError (3.1.6.3.2.1, errata D-19);
    so is a value of the wrong syntax (errata D-20).
    """
    convert = _queue_value if object_type == "Queue" else _queue_manager_value
    _table(object_type)
    found = _Values(values, dn)
    out: dict[str, Any] = {}
    try:
        for asked in attributes:
            name = READ_ALIASES.get(asked, asked)
            if object_type == "QueueManager" and name == "ConnectedNetworkIdentifierList":
                raise _Failed("ConnectedNetworkIdentifierList is not supported in AD (3.1.6.3.2.1)")
            value = convert(name, found)
            if value is not None:
                out[asked] = value
    except _Failed as exc:
        return LdapReadFailure(DirectoryOperationResult.GenericError, str(exc))
    return out


def queue_from_ldap(
    values: Mapping[str, Sequence[LdapValue]],
    attributes: tuple[str, ...],
    *,
    dn: str | None = None,
) -> DirectoryOperationResult | dict[str, Any]:
    """3.1.6.11.2: a Queue's ADM values, or the DirectoryOperationResult of a failed read."""
    out = object_from_ldap("Queue", values, attributes, dn=dn)
    return out.result if isinstance(out, LdapReadFailure) else out


def queue_manager_from_ldap(
    values: Mapping[str, Sequence[LdapValue]],
    attributes: tuple[str, ...],
    *,
    dn: str | None = None,
) -> DirectoryOperationResult | dict[str, Any]:
    """3.1.6.11.1: a QueueManager's ADM values, or the DirectoryOperationResult of a failure."""
    out = object_from_ldap("QueueManager", values, attributes, dn=dn)
    return out.result if isinstance(out, LdapReadFailure) else out


# === finding objects by GUID in a filter ====================================================

_ASSERTION = re.compile(r"\(([^()=<>~:!&|]+)=([^()]*)\)")


def _filter_value_bytes(text: str) -> bytes | None:
    """The octets of an assertion value as a server prints it: ``\\xx`` escapes and plain
    characters (UTF-8); None when it is a presence or substring assertion (a bare ``*``)."""
    if "*" in text:
        return None
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "\\" and re.fullmatch(r"[0-9a-fA-F]{2}", text[i + 1 : i + 3]):
            out.append(int(text[i + 1 : i + 3], 16))
            i += 3
        else:
            out.extend(text[i].encode("utf-8", "surrogatepass"))
            i += 1
    return bytes(out)


def guids_named(filter_text: str) -> list[tuple[uuid.UUID, str]]:
    """Every objectGUID equality assertion in ``filter_text``, as ``(GUID, form)``: ``compact``
    (32 hex digits, string order, 3.1.6.19) or ``escaped`` (16 octets, [MS-DTYP] order).

    >>> g = uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff")
    >>> guids_named("(&(objectClass=*)(objectGUID=6f9619ff8b86d011b42d00c04fc964ff))")
    [(UUID('6f9619ff-8b86-d011-b42d-00c04fc964ff'), 'compact')]
    >>> guids_named(r"(objectGUID=\\FF\\19\\96o\\86\\8B\\11\\D0\\B4-\\00\\C0O\\C9d\\FF)")[0][1]
    'escaped'
    >>> guids_named("(cn=orders)")
    []
    """
    found: list[tuple[uuid.UUID, str]] = []
    for attribute, value in _ASSERTION.findall(filter_text):
        if attribute.strip().lower() != "objectguid":
            continue
        if re.fullmatch(r"[0-9a-fA-F]{32}", value):
            found.append((uuid.UUID(hex=value), "compact"))
            continue
        octets = _filter_value_bytes(value)
        if octets is not None and len(octets) == 16:
            found.append((uuid.UUID(bytes_le=octets), "escaped"))
    return found


def guid_of_dn(dn: str) -> uuid.UUID | None:
    """The GUID of an AD ``<GUID=...>`` DN ([MS-ADTS] 3.1.1.3.1.2.4): dashed string form, or
    32 hex digits of the binary ([MS-DTYP]) form; None for any other DN.  slapd refuses such
    bases (errata D-09)."""
    match = re.fullmatch(r"\s*<GUID=([^>]*)>\s*", dn, re.IGNORECASE)
    if match is None:
        return None
    text = match.group(1).strip().strip("{}")
    try:
        if re.fullmatch(r"[0-9a-fA-F]{32}", text):
            return uuid.UUID(bytes_le=bytes.fromhex(text))
        return uuid.UUID(text)
    except ValueError:
        return None


# === the published view =====================================================================

_VIEW_NAMES = {
    "Queue": tuple(READ_ALIASES.get(n, n) for n in V2_QUEUE_READ_ATTRIBUTES),
    "QueueManager": ("Identifier", *V2_QM_READ_ATTRIBUTES),
}


def directory_objects(entries: Iterable[LdapEntry]) -> list[tuple[str, uuid.UUID, str]]:
    """The queues and queue managers among ``entries`` as ``(dn, objectGUID, object type)``:
    what :func:`mqcn_model.ldap_reads.reads_from_searches` needs to know them by."""
    out = []
    for entry in entries:
        classes = {str(c).lower() for c in entry.attributes.get("objectClass", [])}
        guids = entry.attributes.get("objectGUID") or []
        if not guids or not isinstance(guids[0], bytes) or len(guids[0]) != 16:
            continue
        if "msmqqueue" in classes:
            out.append((entry.dn, uuid.UUID(bytes_le=guids[0]), "Queue"))
        elif "msmqconfiguration" in classes:
            out.append((entry.dn, uuid.UUID(bytes_le=guids[0]), "QueueManager"))
    return out


def entry_values(entry: LdapEntry) -> dict[str, list[LdapValue]]:
    """An entry's values as the fixture's server returns them: its DN as distinguishedName,
    in the server's form (:func:`pretty_dn`)."""
    return {**entry.attributes, "distinguishedName": [pretty_dn(entry.dn)]}


def published_view(
    queues: Iterable[tuple[Queue, str | None]],
    queue_managers: Iterable[tuple[QueueManager, str]],
    root: str = DEFAULT_ROOT,
) -> dict[str, dict[str, Any]]:
    """What Read Directory returns, for the attribute lists of MS-MQCN 3.2.5.2, for each object
    of the directory :func:`directory_entries` writes: ``{"queues": {guid: JSON or result},
    "queue_managers": {...}}``.  JSON uses ADM names (Journaling); a read that fails (no
    Security, say) gives the DirectoryOperationResult value instead.
    """
    entries = directory_entries(queues, queue_managers, root)
    view: dict[str, dict[str, Any]] = {"queues": {}, "queue_managers": {}}
    by_dn = {entry.dn: entry for entry in entries}
    for dn, guid, object_type in directory_objects(entries):
        key = "queues" if object_type == "Queue" else "queue_managers"
        read = object_from_ldap(object_type, entry_values(by_dn[dn]), _VIEW_NAMES[object_type])
        if isinstance(read, LdapReadFailure):
            view[key][str(guid)] = read.result.value
        else:
            view[key][str(guid)] = {k: value_to_json(v) for k, v in read.items()}
    return view
