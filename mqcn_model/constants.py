"""Every numeric fact of [MS-MQCN] and the MSMQ documents it leans on, in one table.

Everything else in the suite (codecs, scapy layers, rules, vectors, steps, the Spark jobs)
derives from the names below; nothing else spells a PROPID, a VT code or an enumeration
value.  Sources are given per block; ``../shared/MSMQ_FACTS.md`` carries the citations.

>>> PROPERTIES[PropId.PROPID_Q_LABEL].vt is VT.LPWSTR
True
>>> object_type_of(PropId.PROPID_Q_SECURITY)
1
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum


class VT(IntEnum):
    """PROPVARIANT type codes ([MS-MQMQ] 2.2.12 VARENUM) for the 15 types of MS-MQCN 2.2.3.

    The wire carries no VT code: the type follows from the PROPID (MS-MQCN 2.2.3).
    """

    I2 = 0x0002
    I4 = 0x0003
    BOOL = 0x000B
    I1 = 0x0010
    UI1 = 0x0011
    UI2 = 0x0012
    UI4 = 0x0013
    I8 = 0x0014
    UI8 = 0x0015
    LPWSTR = 0x001F
    BLOB = 0x0041
    CLSID = 0x0048
    UI4_VECTOR = 0x1013
    CLSID_VECTOR = 0x1048
    LPWSTR_VECTOR = 0x101F

    @property
    def spec_section(self) -> str:
        """The MS-MQCN 2.2.3.x section that defines this type's wire form."""
        return VT_SECTION[self]

    @property
    def label(self) -> str:
        """The name as MS-MQCN writes it, e.g. ``VT_CLSID | VT_VECTOR``."""
        if self.value & VT_VECTOR_FLAG:
            return f"VT_{VT(self.value & ~VT_VECTOR_FLAG).name} | VT_VECTOR"
        return f"VT_{self.name}"


VT_VECTOR_FLAG = 0x1000

VT_SECTION: dict[VT, str] = {
    VT.I2: "2.2.3.1",
    VT.I4: "2.2.3.2",
    VT.BOOL: "2.2.3.3",
    VT.I1: "2.2.3.4",
    VT.UI1: "2.2.3.5",
    VT.UI2: "2.2.3.6",
    VT.UI4: "2.2.3.7",
    VT.I8: "2.2.3.8",
    VT.UI8: "2.2.3.9",
    VT.LPWSTR: "2.2.3.10",
    VT.BLOB: "2.2.3.11",
    VT.CLSID: "2.2.3.12",
    VT.UI4_VECTOR: "2.2.3.13",
    VT.CLSID_VECTOR: "2.2.3.14",
    VT.LPWSTR_VECTOR: "2.2.3.15",
}

VARIANT_TRUE = 0xFFFF
VARIANT_FALSE = 0x0000


class PropId(IntEnum):
    """The PROPID constants of MS-MQCN 2.2.2.1 (values from [MS-MQMQ] 2.3)."""

    PROPID_Q_INSTANCE = 101
    PROPID_Q_TYPE = 102
    PROPID_Q_PATHNAME = 103
    PROPID_Q_JOURNAL = 104
    PROPID_Q_QUOTA = 105
    PROPID_Q_BASEPRIORITY = 106
    PROPID_Q_JOURNAL_QUOTA = 107
    PROPID_Q_LABEL = 108
    PROPID_Q_CREATE_TIME = 109
    PROPID_Q_MODIFY_TIME = 110
    PROPID_Q_AUTHENTICATE = 111
    PROPID_Q_PRIV_LEVEL = 112
    PROPID_Q_TRANSACTION = 113
    PROPID_Q_SCOPE = 114
    PROPID_Q_QMID = 115
    PROPID_Q_MULTICAST_ADDRESS = 125
    PROPID_Q_ADS_PATH = 126
    PROPID_Q_SECURITY = 1101
    PROPID_QM_SITE_ID = 201
    PROPID_QM_MACHINE_ID = 202
    PROPID_QM_ADDRESS = 206
    PROPID_QM_CNS = 207
    PROPID_QM_QUOTA = 214
    PROPID_QM_JOURNAL_QUOTA = 215
    PROPID_QM_MACHINE_TYPE = 216
    PROPID_QM_MODIFY_TIME = 218
    PROPID_QM_FOREIGN = 219
    PROPID_QM_OS = 220
    PROPID_QM_SECURITY = 1201
    PROPID_D_SCOPE = 1403
    PROPID_D_OBJTYPE = 1404


class ValueKind(IntEnum):
    """What [MS-MQMQ] allows for a property's value, beyond its wire type."""

    ANY = 0  # every value of the wire type is allowed
    ENUM = 1  # one of PropertyDef.allowed
    PATHNAME = 2  # [MS-MQMQ] 2.1.1 QueuePathName
    LABEL = 3  # at most MAX_LABEL_CHARS characters
    MULTICAST = 4  # "a.b.c.d:port", class D address
    LDAP_URL = 5  # RFC 4516 LDAP URL
    SECURITY_DESCRIPTOR = 6  # self-relative SECURITY_DESCRIPTOR ([MS-DTYP] 2.4.6)
    TA_ADDRESS_LIST = 7  # packed TA_ADDRESS array ([MS-MQMQ] 2.2.4)


@dataclass(frozen=True, slots=True)
class PropertyDef:
    """One row of the PROPID table: wire type, [MS-MQMQ] section and allowed values."""

    propid: PropId
    vt: VT
    mqmq_section: str
    kind: ValueKind = ValueKind.ANY
    allowed: tuple[int, ...] = ()

    @property
    def name(self) -> str:
        return self.propid.name


MQ_JOURNAL_NONE, MQ_JOURNAL = 0, 1
MQ_AUTHENTICATE_NONE, MQ_AUTHENTICATE = 0, 1
MQ_PRIV_LEVEL_NONE, MQ_PRIV_LEVEL_OPTIONAL, MQ_PRIV_LEVEL_BODY = 0, 1, 2
MQ_TRANSACTIONAL_NONE, MQ_TRANSACTIONAL = 0, 1
MSMQ_MACHINE, FOREIGN_MACHINE = 0, 1
MSMQ_OS_VALUES = (0x000, 0x100, 0x200, 0x300, 0x400, 0x500)
MAX_LABEL_CHARS = 124


class MQDS(IntEnum):
    """MQDS_* object types and scopes ([MS-MQMQ] 2.3.13.3/2.3.13.4, [MS-MQDS] 2.2.8)."""

    QUEUE = 1
    MACHINE = 2
    SITE = 3
    DELETEDOBJECT = 4
    CN = 5
    ENTERPRISE = 6
    USER = 7
    ROUTINGLINK = 8


MQDS_SITESCOPE = 0
MQDS_ENTERPRISESCOPE = 1
SCOPES = (MQDS_SITESCOPE, MQDS_ENTERPRISESCOPE)

_P = PropId
_E = ValueKind.ENUM

PROPERTIES: dict[PropId, PropertyDef] = {
    d.propid: d
    for d in (
        PropertyDef(_P.PROPID_Q_INSTANCE, VT.CLSID, "2.3.1.1"),
        PropertyDef(_P.PROPID_Q_TYPE, VT.CLSID, "2.3.1.2"),
        PropertyDef(_P.PROPID_Q_PATHNAME, VT.LPWSTR, "2.3.1.3", ValueKind.PATHNAME),
        PropertyDef(_P.PROPID_Q_JOURNAL, VT.UI1, "2.3.1.4", _E, (MQ_JOURNAL_NONE, MQ_JOURNAL)),
        PropertyDef(_P.PROPID_Q_QUOTA, VT.UI4, "2.3.1.5"),
        PropertyDef(_P.PROPID_Q_BASEPRIORITY, VT.I2, "2.3.1.6"),
        PropertyDef(_P.PROPID_Q_JOURNAL_QUOTA, VT.UI4, "2.3.1.7"),
        PropertyDef(_P.PROPID_Q_LABEL, VT.LPWSTR, "2.3.1.8", ValueKind.LABEL),
        PropertyDef(_P.PROPID_Q_CREATE_TIME, VT.I4, "2.3.1.9"),
        PropertyDef(_P.PROPID_Q_MODIFY_TIME, VT.I4, "2.3.1.10"),
        PropertyDef(
            _P.PROPID_Q_AUTHENTICATE,
            VT.UI1,
            "2.3.1.11",
            _E,
            (MQ_AUTHENTICATE_NONE, MQ_AUTHENTICATE),
        ),
        PropertyDef(
            _P.PROPID_Q_PRIV_LEVEL,
            VT.UI4,
            "2.3.1.12",
            _E,
            (MQ_PRIV_LEVEL_NONE, MQ_PRIV_LEVEL_OPTIONAL, MQ_PRIV_LEVEL_BODY),
        ),
        PropertyDef(
            _P.PROPID_Q_TRANSACTION,
            VT.UI1,
            "2.3.1.13",
            _E,
            (MQ_TRANSACTIONAL_NONE, MQ_TRANSACTIONAL),
        ),
        PropertyDef(_P.PROPID_Q_SCOPE, VT.UI1, "2.3.1.14", _E, SCOPES),
        PropertyDef(_P.PROPID_Q_QMID, VT.CLSID, "2.3.1.15"),
        PropertyDef(_P.PROPID_Q_MULTICAST_ADDRESS, VT.LPWSTR, "2.3.1.23", ValueKind.MULTICAST),
        PropertyDef(_P.PROPID_Q_ADS_PATH, VT.LPWSTR, "2.3.1.24", ValueKind.LDAP_URL),
        PropertyDef(_P.PROPID_Q_SECURITY, VT.BLOB, "2.3.1.25", ValueKind.SECURITY_DESCRIPTOR),
        PropertyDef(_P.PROPID_QM_SITE_ID, VT.CLSID, "2.3.2.1"),
        PropertyDef(_P.PROPID_QM_MACHINE_ID, VT.CLSID, "2.3.2.2"),
        PropertyDef(_P.PROPID_QM_ADDRESS, VT.BLOB, "2.3.2.5", ValueKind.TA_ADDRESS_LIST),
        PropertyDef(_P.PROPID_QM_CNS, VT.CLSID_VECTOR, "2.3.2.6"),
        PropertyDef(_P.PROPID_QM_QUOTA, VT.UI4, "2.3.2.10"),
        PropertyDef(_P.PROPID_QM_JOURNAL_QUOTA, VT.UI4, "2.3.2.14"),
        PropertyDef(_P.PROPID_QM_MACHINE_TYPE, VT.LPWSTR, "2.3.2.15"),
        PropertyDef(_P.PROPID_QM_MODIFY_TIME, VT.I4, "2.3.2.17"),
        PropertyDef(_P.PROPID_QM_FOREIGN, VT.UI1, "2.3.2.18", _E, (MSMQ_MACHINE, FOREIGN_MACHINE)),
        PropertyDef(_P.PROPID_QM_OS, VT.UI4, "2.3.2.19", _E, MSMQ_OS_VALUES),
        PropertyDef(_P.PROPID_QM_SECURITY, VT.BLOB, "2.3.2.36", ValueKind.SECURITY_DESCRIPTOR),
        PropertyDef(_P.PROPID_D_SCOPE, VT.UI1, "2.3.13.3", _E, SCOPES),
        PropertyDef(_P.PROPID_D_OBJTYPE, VT.UI1, "2.3.13.4", _E, tuple(int(t) for t in MQDS)),
    )
}


def object_type_of(propid: int) -> int:
    """Object type implied by a PROPID (MS-MQCN 3.2.5.1): ``(id - 1000) // 100`` above 1000.

    >>> object_type_of(1201), object_type_of(202), object_type_of(1000)
    (2, 2, 10)
    """
    return (propid - 1000) // 100 if propid > 1000 else propid // 100


# --- Notification enumerations (MS-MQCN 2.2.4, 2.2.5, 2.2.6) -------------------------------


class Version(IntEnum):
    """Change Notification Message Version (2.2.4): who sent it."""

    DIRECTORY_SERVICE = 0x01
    QUEUE_MANAGER = 0x02


class Event(IntEnum):
    """Notification Body Event token (2.2.5)."""

    CREATE_QUEUE = 1
    CHANGE_QUEUE = 2
    DELETE_QUEUE = 3
    CHANGE_MACHINE = 4


class Command(IntEnum):
    """Notification Update Command field (2.2.6)."""

    CREATE = 0x00
    UPDATE = 0x01
    DELETE = 0x02


class Operation(IntEnum):
    """iOperation of the Send Change Notification event (3.3.4.1)."""

    QueueCreation = 1
    QueueUpdate = 2
    QueueDeletion = 3
    QueueManagerUpdate = 4


OPERATION_EVENT: dict[Operation, Event] = {
    Operation.QueueCreation: Event.CREATE_QUEUE,
    Operation.QueueUpdate: Event.CHANGE_QUEUE,
    Operation.QueueDeletion: Event.DELETE_QUEUE,
    Operation.QueueManagerUpdate: Event.CHANGE_MACHINE,
}
OPERATION_COMMAND: dict[Operation, Command] = {
    Operation.QueueCreation: Command.CREATE,
    Operation.QueueUpdate: Command.UPDATE,
    Operation.QueueDeletion: Command.DELETE,
    Operation.QueueManagerUpdate: Command.UPDATE,
}

# --- Notification Update layout (2.2.6) ----------------------------------------------------

GUID_SIZE = 16
RESERVED_SIZE = 24
MAX_PROPERTIES = 0xFF  # NumberOfProperties is one UCHAR
MAX_UPDATES = 0xFF  # NumberOfUpdateNotifications is one UCHAR
MESSAGE_HEADER_SIZE = 2  # Version + NumberOfUpdateNotifications
SPARE_BYTE_COUNT = 1  # 3.3.5.3: the body buffer is the message plus one unused byte

# --- Property sets of 3.2.5.1 / 3.3.5.2 ----------------------------------------------------

QUEUE_CREATE_REQUIRED: tuple[PropId, ...] = (
    _P.PROPID_Q_TYPE,
    _P.PROPID_Q_INSTANCE,
    _P.PROPID_Q_BASEPRIORITY,
    _P.PROPID_Q_JOURNAL,
    _P.PROPID_Q_QUOTA,
    _P.PROPID_Q_JOURNAL_QUOTA,
    _P.PROPID_Q_CREATE_TIME,
    _P.PROPID_Q_MODIFY_TIME,
    _P.PROPID_Q_SCOPE,
    _P.PROPID_Q_SECURITY,
    _P.PROPID_Q_PATHNAME,
    _P.PROPID_Q_LABEL,
    _P.PROPID_Q_AUTHENTICATE,
    _P.PROPID_Q_PRIV_LEVEL,
    _P.PROPID_Q_TRANSACTION,
)
QUEUE_CREATE_FORBIDDEN: tuple[PropId, ...] = (_P.PROPID_Q_ADS_PATH,)
QUEUE_UPDATE_REQUIRED: tuple[PropId, ...] = (_P.PROPID_Q_QMID,)
QUEUE_UPDATE_MODIFIABLE: tuple[PropId, ...] = (
    _P.PROPID_Q_JOURNAL,
    _P.PROPID_Q_QUOTA,
    _P.PROPID_Q_BASEPRIORITY,
    _P.PROPID_Q_JOURNAL_QUOTA,
    _P.PROPID_Q_SECURITY,
    _P.PROPID_Q_AUTHENTICATE,
    _P.PROPID_Q_PRIV_LEVEL,
)
MACHINE_UPDATE_REQUIRED: tuple[PropId, ...] = (_P.PROPID_QM_MACHINE_ID, _P.PROPID_QM_FOREIGN)
MACHINE_UPDATE_MODIFIABLE: tuple[PropId, ...] = (
    _P.PROPID_QM_QUOTA,
    _P.PROPID_QM_JOURNAL_QUOTA,
    _P.PROPID_QM_SECURITY,
)
MACHINE_UPDATE_IGNORED: tuple[PropId, ...] = (
    _P.PROPID_QM_ADDRESS,
    _P.PROPID_QM_CNS,
    _P.PROPID_QM_MACHINE_TYPE,
    _P.PROPID_QM_OS,
)
DELETE_PROPIDS: tuple[PropId, PropId] = (_P.PROPID_D_SCOPE, _P.PROPID_D_OBJTYPE)
DELETE_VALUES: tuple[int, int] = (MQDS_ENTERPRISESCOPE, int(MQDS.QUEUE))

# Queue ADM attribute <- PROPID (3.1.1.3); the server's create and update lists (3.2.5.1).
QUEUE_ATTRIBUTE_OF: dict[PropId, str] = {
    _P.PROPID_Q_INSTANCE: "Identifier",
    _P.PROPID_Q_TYPE: "Type",
    _P.PROPID_Q_BASEPRIORITY: "BasePriority",
    _P.PROPID_Q_JOURNAL: "Journaling",
    _P.PROPID_Q_QUOTA: "Quota",
    _P.PROPID_Q_JOURNAL_QUOTA: "JournalQuota",
    _P.PROPID_Q_CREATE_TIME: "CreateTime",
    _P.PROPID_Q_MODIFY_TIME: "ModifyTime",
    _P.PROPID_Q_SECURITY: "Security",
    _P.PROPID_Q_PATHNAME: "Pathname",
    _P.PROPID_Q_LABEL: "Label",
    _P.PROPID_Q_AUTHENTICATE: "Authentication",
    _P.PROPID_Q_PRIV_LEVEL: "PrivacyLevel",
    _P.PROPID_Q_TRANSACTION: "Transactional",
    _P.PROPID_Q_MULTICAST_ADDRESS: "MulticastAddress",
    _P.PROPID_Q_ADS_PATH: "DirectoryPath",
    _P.PROPID_Q_SCOPE: "Scope",
}
SERVER_QUEUE_CREATE_SETS: tuple[PropId, ...] = QUEUE_CREATE_REQUIRED
SERVER_QUEUE_UPDATE_SETS: tuple[PropId, ...] = QUEUE_UPDATE_MODIFIABLE

# QueueManager ADM attribute <- PROPID (3.1.1.2.1); the server's update list (3.2.5.1).
QM_ATTRIBUTE_OF: dict[PropId, str] = {
    _P.PROPID_QM_MACHINE_ID: "Identifier",
    _P.PROPID_QM_FOREIGN: "ForeignSystem",
    _P.PROPID_QM_QUOTA: "QueueManagerQuota",
    _P.PROPID_QM_JOURNAL_QUOTA: "JournalQuota",
    _P.PROPID_QM_SECURITY: "Security",
    _P.PROPID_QM_CNS: "ConnectedNetworkIdentifierList",
    _P.PROPID_QM_MACHINE_TYPE: "QueueManagerVersion",
    _P.PROPID_QM_OS: "OperatingSystemType",
}
SERVER_QM_UPDATE_SETS: tuple[PropId, ...] = MACHINE_UPDATE_MODIFIABLE

# Read Directory attribute lists of 3.2.5.2 (names as the spec writes them).
V2_QUEUE_READ_ATTRIBUTES: tuple[str, ...] = (
    "Type",
    "Identifier",
    "BasePriority",
    "Journal",
    "Quota",
    "JournalQuota",
    "CreateTime",
    "ModifyTime",
    "Security",
    "Pathname",
    "Label",
    "Authentication",
    "PrivacyLevel",
    "Transactional",
    "MulticastAddress",
    "DirectoryPath",
)
V2_QM_READ_ATTRIBUTES: tuple[str, ...] = ("QueueManagerQuota", "JournalQuota", "Security")

# --- MSMQ Message attributes (MS-MQDMPR 3.1.1.12 names; values from MC-MQAC / mqprops.h) ---


class WireValue(IntEnum):
    """An MSMQ Message attribute whose field on the wire can hold a value the spec does not list.

    A decoded packet is carried whole (real traffic is never refused): a value outside the
    listed members becomes a *pseudo-member* named by its number in hex (``0x1234``), equal
    to that int and always the same object, so rules compare it with ``is`` as usual and
    find it is none of the members they ask for.  Iterating the class or its ``__members__``
    gives only the listed members.

    >>> HashAlgorithm(0x1234).name, HashAlgorithm(0x1234) is HashAlgorithm(0x1234)
    ('0x1234', True)
    >>> HashAlgorithm.from_name("0x1234") is HashAlgorithm(0x1234), len(HashAlgorithm)
    (True, 6)
    """

    @classmethod
    def _missing_(cls, value: object) -> WireValue | None:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 0xFFFFFFFF:
            return None
        member = int.__new__(cls, value)
        member._name_ = f"0x{value:x}"
        member._value_ = value
        return cls._value2member_map_.setdefault(value, member)  # type: ignore[return-value]

    @classmethod
    def from_name(cls, name: str) -> WireValue:
        """The member named ``name`` (``None`` matches ``None_``), or the pseudo-member of a
        ``0x…`` number; ValueError otherwise."""
        for key in (name, f"{name}_"):  # not `or`: a member of value 0 is falsy
            member = cls.__members__.get(key)
            if member is not None:
                return member
        if re.fullmatch(r"0x[0-9a-f]{1,8}", name):
            return cls(int(name, 16))
        raise ValueError(f"{name!r} is not one of {[m.rstrip('_') for m in cls.__members__]}")


class SenderIdType(WireValue):
    """Message.SenderIdentifierType. QueueManagerIdentifier = 2 is inferred (see errata E-15)."""

    None_ = 0
    Sid = 1
    QueueManagerIdentifier = 2


class AuthLevel(IntEnum):
    """Message.AuthenticationLevel (MQMSG_AUTH_LEVEL_*)."""

    None_ = 0
    Always = 1
    Sig10 = 2
    Sig20 = 4
    Sig30 = 8
    XMLDSig = 0x10000


class DeliveryGuarantee(WireValue):
    Express = 0
    Recoverable = 1


class MessageClass(WireValue):
    """Message.Class: [MS-MQMQ] 2.2.18.1.6 MESSAGE_CLASS_VALUES with the [MS-MQDMPR] 3.1.1.12
    names (errata W-04: 0x8001 is NackPurged); a custom class is a pseudo-member."""

    Normal = 0x0000
    Report = 0x0001
    AckReachQueue = 0x0002
    OrderAck = 0x00FF
    AckReceive = 0x4000
    NackBadDestQueue = 0x8000
    NackPurged = 0x8001
    NackReachQueueTimeout = 0x8002
    NackQueueExceedQuota = 0x8003
    NackAccessDenied = 0x8004
    NackHopCountExceeded = 0x8005
    NackBadSignature = 0x8006
    NackBadEncryption = 0x8007
    NackNotTransactionalQueue = 0x8009
    NackNotTransactionalMessage = 0x800A
    NackUnsupportedCryptoProvider = 0x800B
    NackQueueDeleted = 0xC000
    NackQueuePurged = 0xC001
    NackReceiveTimeout = 0xC002
    NackReceiveRejected = 0xC004


class HashAlgorithm(WireValue):
    """Message.HashAlgorithm: the values [MS-MQMQ] 2.2.19.3 lists (0x8003 is MD5, errata W-10);
    the 3.3.5.3 sender rules ask for MD5, SHA1 or SHA512 by MSMQ version (E-16)."""

    MD2 = 0x8001
    MD4 = 0x8002
    MD5 = 0x8003
    SHA1 = 0x8004
    SHA256 = 0x800C
    SHA512 = 0x800E


TIME_TO_REACH_QUEUE_SECONDS = 300
MSGID_SIZE = 20  # PROPID_M_MSGID: 16-byte sender GUID + 4-byte LE sequence

NOTIFY_QUEUE_NAME = "notify_queue$"
NOTIFY_QUEUE_SUFFIX = "3"


def notify_queue_format_name(qm_guid: str) -> str:
    """NOTIFY_QUEUE_PRIVATE of MS-MQCN 1.9 for one queue manager.

    >>> notify_queue_format_name("0f2c1e3a-0000-4000-8000-000000000001")
    'PRIVATE=0f2c1e3a-0000-4000-8000-000000000001\\\\3'
    """
    return f"PRIVATE={qm_guid}\\{NOTIFY_QUEUE_SUFFIX}"


def same_format_name(left: str | None, right: str) -> bool:
    """Format names compare case-insensitively ([MS-MQMQ] 2.1: GUID text in any case).

    >>> same_format_name("PRIVATE=AB\\3", "private=ab\\3"), same_format_name(None, "x")
    (True, False)
    """
    return left is not None and left.lower() == right.lower()


def notify_queue_path_name(computer: str) -> str:
    """The Change Notification Queue path name of MS-MQCN 3.2.1.2.1."""
    return f"{computer}\\private$\\{NOTIFY_QUEUE_NAME}"


# --- Product behaviour <3>/<14>: batching ----------------------------------------------------

BATCH_SHORT_WAIT_SECONDS = 60
BATCH_WINDOW_SECONDS = 15 * 60
BATCH_IDLE_THRESHOLD_SECONDS = 14 * 60
BATCH_FULL_REFRESH_THRESHOLD = 100
