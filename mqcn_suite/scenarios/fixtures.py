"""The fixed world every scenario plays in: identities, the queue it owns, directory entries.

Fixed GUIDs and names keep reports and replays reproducible: the same scenario sends the same
bytes on every run, against every target.  :class:`ScenarioIds` bundles the identities a
message builder needs, so that the builders (:mod:`.messages`, :mod:`.defects`) stay pure
functions of it; :data:`IDS` is the one instance the step definitions use, while the
hypothesis strategies and the Spark generators draw other instances.

>>> IDS.computer, IDS.new_path, IDS.server
('qm1', 'qm1\\\\newq', 'dc1.example.com')
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from mqcn_model.adm import Queue
from mqcn_model.builders import minimal_security_descriptor
from mqcn_model.codec.propvalue import PropertyValue
from mqcn_model.constants import PropId

QM_GUID = uuid.UUID("6f1c3a9e-2b4d-4c5e-8f70-1a2b3c4d5e6f")  # the queue manager under test
OTHER_QM_GUID = uuid.UUID("11111111-2222-4333-8444-555555555555")  # another queue manager
DS_GUID = uuid.UUID("0d5e3c1f-7a6b-4e8d-9c2f-3b4a5d6e7f80")  # the directory service
QUEUE_GUID = uuid.UUID("a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d")  # the queue orders (owned)
NEW_QUEUE_GUID = uuid.UUID("b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e")  # a queue a creation adds
PROBE_QUEUE_GUID = uuid.UUID("c3d4e5f6-a7b8-4c9d-8e1f-2a3b4c5d6e7f")  # "still serving?" probe
INVOICES_GUID = uuid.UUID("d4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f70")  # a second owned queue
COMPUTER = "qm1.example.com"  # the queue manager's computer
DC_NAME = "dc1.example.com"  # the directory server Version 0x02 bodies name

SENTINEL_QUOTA = 7777  # the change a carrier makes besides the value under test
OTHER_SECURITY = minimal_security_descriptor(0x0014)  # a descriptor unlike the default one
ADS_PATH_SAMPLE = "LDAP://CN=newq,CN=msmq,CN=qm1,DC=example,DC=com"


@dataclass(frozen=True, slots=True)
class ScenarioIds:
    """The identities a message builder uses.

    ``computer`` is the short computer name path names start with; ``server`` the directory
    server a Version 0x02 body names (2.2.5 DirectoryServiceServer).
    """

    queue: uuid.UUID  # a queue the queue manager owns ("orders")
    new_queue: uuid.UUID  # a queue a creation introduces
    qm: uuid.UUID  # the queue manager under test
    master: uuid.UUID  # the directory service (GuidMasterId)
    computer: str = "qm1"
    server: str = DC_NAME

    @property
    def new_path(self) -> str:
        """The path name a creation gives the new queue."""
        return f"{self.computer}\\newq"


IDS = ScenarioIds(
    queue=QUEUE_GUID,
    new_queue=NEW_QUEUE_GUID,
    qm=QM_GUID,
    master=DS_GUID,
    computer=COMPUTER.split(".")[0],
    server=DC_NAME,
)


def existing_queue(identifier: uuid.UUID = QUEUE_GUID, **attributes: Any) -> Queue:
    """A queue the queue manager already owns, with recognisable non-default attributes."""
    base: dict[str, Any] = {
        "Pathname": f"{COMPUTER.split('.')[0]}\\orders",
        "Label": "orders",
        "BasePriority": 1,
        "Quota": 1000,
        "JournalQuota": 500,
        "Security": minimal_security_descriptor(),
        "CreateTime": 1_700_000_000,
        "ModifyTime": 1_700_000_000,
    }
    base.update(attributes)
    return Queue(Identifier=identifier, **base)


def distinctive_queue_attributes() -> dict[str, Any]:
    """Queue attributes whose wire forms are easy to misread (sign, byte order, surrogates).

    >>> distinctive_queue_attributes()["BasePriority"]
    -255
    """
    return {
        "BasePriority": -255,  # 0xFF01: signed and little-endian
        "CreateTime": -16909060,  # 0xFEFDFCFC
        "ModifyTime": 0x12345678,
        "Quota": 0xF1020304,  # above 2**31: unsigned
        "JournalQuota": 0x01020304,
        "Journaling": 1,
        "Authentication": 1,
        "PrivacyLevel": 2,
        "Transactional": 1,
        "Label": "Z\u00fcrich \u2713 \U0001d11e",  # a non-BMP character: a surrogate pair
        "Type": uuid.UUID("00112233-4455-6677-8899-aabbccddeeff"),
        "Security": minimal_security_descriptor() + b"\xff\x80",
        "DirectoryPath": "LDAP://CN=orders,CN=msmq,DC=example,DC=com",
    }


def queue_manager_attributes() -> dict[str, Any]:
    """JSON attributes of the queue manager a scenario's directory publishes."""
    return {
        "QueueManagerQuota": 0x00020304,
        "JournalQuota": 0x01000002,
        "Security": minimal_security_descriptor().hex(),
        "ForeignSystem": 0,
    }


# A value for each property a queue update may change (3.2.5.1), unlike existing_queue()'s.
QUEUE_UPDATE_SAMPLE: dict[PropId, PropertyValue] = {
    PropId.PROPID_Q_JOURNAL: 1,
    PropId.PROPID_Q_QUOTA: 4321,
    PropId.PROPID_Q_BASEPRIORITY: -3,
    PropId.PROPID_Q_JOURNAL_QUOTA: 8765,
    PropId.PROPID_Q_SECURITY: OTHER_SECURITY,
    PropId.PROPID_Q_AUTHENTICATE: 1,
    PropId.PROPID_Q_PRIV_LEVEL: 2,
}
# The same for a machine update, unlike a fresh QueueManager's values.
MACHINE_UPDATE_SAMPLE: dict[PropId, PropertyValue] = {
    PropId.PROPID_QM_QUOTA: 4321,
    PropId.PROPID_QM_JOURNAL_QUOTA: 8765,
    PropId.PROPID_QM_SECURITY: OTHER_SECURITY,
}

# (operation, changed attributes) for "the client notifies every kind of change"
EVERY_CHANGE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("QueueCreation", ()),
    ("QueueUpdate", ("Quota", "BasePriority", "Security")),
    ("QueueDeletion", ()),
    ("QueueManagerUpdate", ("QueueManagerQuota", "JournalQuota", "Security")),
)
