"""The embedded reference target: the sans-IO model of mqcn_model behind the Target interface.

``reference`` follows the suite's reading of every errata item; ``reference:E-07,E-14``
follows the other reading of the items named (docs/errata.md), ``reference:E-24=merge`` the
reading named, ``reference:letter`` the letter of every item — on both sides: its server
accepts what that reading admits, its client sends what that reading allows.  The suite's
own tests use these to prove that every reading passes.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any, ClassVar

from mqcn_model.adm import Queue, QueueManager
from mqcn_model.client import NotificationClient
from mqcn_model.constants import Operation
from mqcn_model.directory import Directory, InMemoryDirectory
from mqcn_model.envelope import Envelope
from mqcn_model.errata import LENIENT, STRICT, Readings, followed, following, spelt
from mqcn_model.profiles import PROFILES
from mqcn_model.server import NotificationServer
from mqcn_suite.targets.base import Setup, TargetError
from mqcn_suite.targets.ldap_reader import LdapDirectory
from mqcn_suite.targets.pics import EVERYTHING, Pics


class ReferenceTarget:
    """The reference queue manager, directory service and client, in process."""

    name = "reference"
    directory_modes = ("ldap",)  # LDAP mode: the server reads through targets/ldap_reader.py
    # the LDAP reader a reset builds (ldap3 is imported only when it reads); zoo members that
    # read LDAP wrongly swap it
    reader_class: ClassVar[type[LdapDirectory]] = LdapDirectory
    # The model classes a reset builds; faulty variants (targets/zoo.py) swap them.
    server_class: type[NotificationServer] = NotificationServer
    client_class: type[NotificationClient] = NotificationClient

    def __init__(self, readings: Readings = STRICT) -> None:
        self.readings = readings
        if spelt(readings):
            self.name = f"reference:{spelt(readings)}"
        self.server: NotificationServer | None = None
        self.client: NotificationClient | None = None
        self.directory = InMemoryDirectory()
        self.ldap_directory: Any = None  # LDAP mode's LdapDirectory
        self.setup = Setup()

    def reset(self, setup: Setup) -> None:
        if setup.profile not in PROFILES:
            raise TargetError(
                f"unknown product profile {setup.profile!r}; known: {sorted(PROFILES)}"
            )
        self.setup = setup
        profile = PROFILES[setup.profile]
        qm = QueueManager.from_json({"Identifier": str(setup.qm_guid), **setup.qm_attributes})
        for queue_json in setup.queues:
            queue = Queue.from_json(queue_json)
            qm.QueueCollection[queue.Identifier] = queue
        self.directory = InMemoryDirectory()
        for entry in setup.directory_queues:
            self.directory.put_queue(
                Queue.from_json(entry["queue"]), owner=uuid.UUID(entry["owner"])
            )
        for qm_json in setup.directory_queue_managers:
            self.directory.put_queue_manager(QueueManager.from_json(qm_json))
        readings = LENIENT if setup.readings == "lenient" else self.readings
        self.server = self.server_class(
            qm,
            self._server_directory(setup),
            computer=setup.computer,
            profile=profile,
            readings=readings,
            workgroup=setup.workgroup,
        )
        self.client = self.client_class(
            setup.client_identifier,
            version=setup.client_version,
            server_name=setup.client_server_name,
            profile=profile,
            readings=readings,
        )

    def _server_directory(self, setup: Setup) -> Directory:
        """Where the server side reads: the scenario's LDAP server in LDAP mode (the client
        side still takes its objects from the set-up), else the in-memory directory."""
        self._close_ldap()
        if setup.ldap is None:
            return self.directory
        self.ldap_directory = self.reader_class.from_setup(setup.ldap)
        return self.ldap_directory

    def _close_ldap(self) -> None:
        if self.ldap_directory is not None:
            self.ldap_directory.close()
            self.ldap_directory = None

    def pics(self) -> Pics:
        """Everything, and exactly the errata readings this reference follows."""
        return dataclasses.replace(
            EVERYTHING, readings=tuple(sorted(followed(self.readings).items()))
        )

    def _server(self) -> NotificationServer:
        if self.server is None:
            raise TargetError("reset() was not called")
        return self.server

    def start_server(self) -> dict[str, Any] | None:
        for effect in self._server().initialize():
            if effect.kind == "open-queue":
                return dict(effect.detail)
        return None

    def deliver(self, envelope: Envelope) -> None:
        self._server().deliver(envelope)

    def advance_clock(self, seconds: float) -> None:
        self._server().advance(seconds)

    def state(self) -> dict[str, Any]:
        return self._server().state()

    def directory_reads(self) -> list[dict[str, Any]]:
        reads = [r.to_json() for r in getattr(self._server().directory, "reads", [])]
        servers = [
            e.detail.get("server")
            for rec in self._server().records
            for e in rec.effects
            if e.kind == "read-directory"
        ]
        for read, server in zip(reads, servers, strict=False):
            read["server"] = server
        return reads

    def start_client(self, destination: uuid.UUID) -> dict[str, Any] | None:
        assert self.client is not None
        return self.client.initialize(destination).to_json()

    def send_change_notification(
        self, operation: str, object_id: uuid.UUID, changed: list[str]
    ) -> list[Envelope]:
        """Send about a directory object (queue or queue manager) the scenario set up."""
        assert self.client is not None
        try:
            op = Operation[operation]
        except KeyError:
            raise TargetError(
                f"unknown operation {operation!r}; one of {[o.name for o in Operation]}"
            ) from None
        if op is Operation.QueueManagerUpdate:
            obj: Queue | QueueManager | None = self.directory.queue_managers.get(object_id)
            owner = object_id
        else:
            obj = self.directory.queues.get(object_id)
            owner = self.directory.owners.get(object_id)
        if obj is None:
            raise TargetError(f"no directory object {object_id} for {operation}")
        return [self.client.send_change_notification(op, obj, owner=owner, changed=changed)]

    def close(self) -> None:
        self._close_ldap()
        self.server = None


def reference_following(errata: str) -> ReferenceTarget:
    """``reference:E-07,E-14``: the reference following the other reading of those items
    (``E-24=merge``: the reading named; ``letter``: the letter of every item).

    >>> reference_following("E-14").name, reference_following("letter").name
    ('reference:E-14', 'reference:letter')
    >>> reference_following("E-24=merge").readings.existing_queue_creation
    'merge'
    """
    names = [e.strip() for e in errata.split(",") if e.strip()]
    try:
        return ReferenceTarget(following(*names))
    except ValueError as exc:
        raise TargetError(f"reference:{errata}: {exc}") from None
