"""One run's LDAP directory: what the suite writes before each scenario, what it reads back.

:class:`DirectorySession` sits between :class:`~mqcn_suite.targets.ldap_mode.LdapMode` and
the server (:class:`~mqcn_suite.directory.slapd.SlapdDirectory`).  For each scenario it

1. writes the scenario's directory objects as Active Directory holds them
   (:func:`mqcn_model.dssm.directory_entries`), leaving out the attributes a scenario asks to
   leave out, on a server whose listeners play the DomainController names the scenario's
   messages carry (one listener per name, from a pool; the default listener for the rest);
2. puts back into the set-up what a Read Directory returns for each object it wrote (the
   model's own conversion, [MS-MQDSSM] 3.1.6.11): expectations compare a target's state with
   what the directory really says, defaults included;
3. afterwards turns the server's log of searches into the Read Directory events the target
   made (:func:`mqcn_model.ldap_reads.reads_from_searches`), each with ``source: "ldap"``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from mqcn_model import dssm
from mqcn_model.adm import Queue, QueueManager
from mqcn_model.constants import V2_QM_READ_ATTRIBUTES, V2_QUEUE_READ_ATTRIBUTES
from mqcn_model.directory import DirectoryOperationResult
from mqcn_model.json_views import value_to_json
from mqcn_model.ldap_reads import reads_from_searches
from mqcn_model.ldap_records import LdapEntry
from mqcn_model.server import queue_from_read
from mqcn_suite.targets.base import NotApplicable, Setup, TargetError

SERVER_POOL = 6  # listeners that can play a DomainController name in one scenario
SLOT = "dc-slot-{}"  # their names at the fixture


@dataclass
class _Scenario:
    """What one scenario's reads are judged against."""

    offset: int = 0
    objects: list[tuple[str, uuid.UUID, str]] = field(default_factory=list)
    listeners: dict[str, str] = field(default_factory=dict)
    down: bool = False


class DirectorySession:
    """The suite's LDAP directory for one run (module docstring)."""

    def __init__(self, directory: Any, *, owned: bool) -> None:
        self.directory = directory
        self.owned = owned  # started by this session (stopped by close()) or attached
        self.scenario = _Scenario()

    @classmethod
    def open(cls, spec: str) -> DirectorySession:
        """``ldap``: start the fixture server; an ``ldap://`` URL: attach to the server
        ``mqcn directory serve`` runs there.  A :class:`TargetError` when neither works."""
        from mqcn_suite.directory.fixture_errors import DirectoryFixtureError
        from mqcn_suite.directory.slapd import SlapdDirectory

        try:
            if spec == "ldap":
                directory = SlapdDirectory(
                    server_names=[SLOT.format(i) for i in range(SERVER_POOL)]
                )
                directory.start()
                return cls(directory, owned=True)
            return cls(SlapdDirectory.attach(spec), owned=False)
        except DirectoryFixtureError as exc:
            raise TargetError(str(exc)) from None

    # --- before a scenario --------------------------------------------------------------------
    def publish(self, setup: Setup) -> dict[str, Any]:
        """Write ``setup``'s directory, put back what reads of it return, and give the
        ``setup.ldap`` member of ``reset`` (module docstring)."""
        directory = self.directory
        directory.restore()  # a previous scenario may have stopped or slowed it
        slots = self._slots(setup.directory_servers)
        address_of = {name: address for address, name in directory.listeners.items()}
        entries = scenario_entries(setup, directory.root)
        directory.load(entries)
        self._put_back(setup, entries)
        self.scenario = _Scenario(
            offset=directory.mark(),
            objects=dssm.directory_objects(entries),
            listeners={address_of[slot]: name for name, slot in slots.items()}
            | {address_of[""]: ""},
        )
        condition = setup.directory_condition or {}
        delay = float(condition.get("delay") or 0)
        down = bool(condition.get("down"))
        # a slow server is a delaying proxy before the listener; a served server (attached) is
        # never stopped: "down" is a proxy before each listener, closed once the target has
        # been told its URL (connections refused, as from a stopped server)
        proxied = bool(delay) or (down and not self.owned)

        def url(slot: str) -> str:
            return directory.slow_url(slot, delay) if proxied else directory.urls[slot]

        params = {
            **directory.reset_ldap_params(),
            "url": url(""),
            "servers": {name: url(slot) for name, slot in slots.items()},
        }
        if down:
            if self.owned:
                directory.stop_listening()
            else:
                directory.drop_proxies()
            self.scenario.down = True
        return params

    def change(self, setup: Setup) -> None:
        """Rewrite the scenario's directory in the middle of the scenario (``setup`` as it is
        now) and put back what reads of it return; the reads made so far stay the
        scenario's, and the listeners keep their names."""
        entries = scenario_entries(setup, self.directory.root)
        self.directory.load(entries)
        self._put_back(setup, entries)
        self.scenario.objects = dssm.directory_objects(entries)

    def _slots(self, servers: list[str]) -> dict[str, str]:
        """Each DomainController name the scenario's messages carry -> the listener that plays
        it: the listener of that very name (a served directory's ``--server``), else a free
        one of the pool.  More names than listeners: a TargetError for the suite's own
        directory, not applicable for a served one (the message says how to serve enough)."""
        names = list(dict.fromkeys(servers))
        pool = list(self.directory.server_names)
        named = {listener.lower(): listener for listener in pool}
        slots = {name: named[name.lower()] for name in names if name.lower() in named}
        free = [listener for listener in pool if listener not in slots.values()]
        wanting = [name for name in names if name not in slots]
        if len(wanting) > len(free):
            if self.owned:
                raise TargetError(f"a scenario may name at most {SERVER_POOL} directory servers")
            serve = " ".join(f"--server {name}" for name in names)
            raise NotApplicable(
                f"the served directory has {len(pool)} server listener(s), the scenario's "
                f"messages name {len(names)} DomainController(s) ({', '.join(names)}): "
                f"serve it with `mqcn directory serve {serve}`"
            )
        return slots | dict(zip(wanting, free, strict=False))

    @staticmethod
    def _put_back(setup: Setup, entries: list[LdapEntry]) -> None:
        """Replace each written object in ``setup`` by what a 3.2.5.2 read of it returns; an
        object no read can return (an error row of 3.1.6.11) is left as the scenario gave it."""
        views: dict[str, dict[str, Any]] = {}
        for entry in entries:
            identity = _identity(entry)
            if identity is None:
                continue
            guid, object_type = identity
            values = dssm.entry_values(entry)
            if object_type == "Queue":
                found = dssm.queue_from_ldap(values, V2_QUEUE_READ_ATTRIBUTES)
                if isinstance(found, dict):
                    views[str(guid)] = _queue_view(guid, found)
            else:
                found = dssm.queue_manager_from_ldap(values, V2_QM_READ_ATTRIBUTES)
                if isinstance(found, dict):
                    views[str(guid)] = {"Identifier": str(guid)} | {
                        name: value_to_json(value) for name, value in found.items()
                    }
        for entry in setup.directory_queues:
            entry["queue"] = views.get(entry["queue"]["Identifier"], entry["queue"])
        setup.directory_queue_managers = [
            {**qm, **views.get(qm["Identifier"], {})} for qm in setup.directory_queue_managers
        ]

    # --- after a scenario ---------------------------------------------------------------------
    def reads(self) -> list[dict[str, Any]]:
        """The Read Directory events the searches since the scenario's reset amount to, and
        each bind the server refused (a read that never got to search)."""
        scenario = self.scenario
        if not scenario.down:
            self.directory.sync()
        since = scenario.offset
        ignore = {self.directory.suite_credentials.bind_dn}
        reads = reads_from_searches(
            self.directory.searches(since), scenario.objects, scenario.listeners, ignore
        )
        for bind in self.directory.binds(since):
            if bind.result != 0 and bind.dn not in ignore:
                reads.append(
                    {
                        "object_type": None,
                        "identifier": None,
                        "attributes": [],
                        "server": scenario.listeners.get(bind.listener, ""),
                        "source": "ldap",
                        "status": DirectoryOperationResult.DirectoryNotConnected.value,
                        "bind": {"dn": bind.dn, "result": bind.result},
                    }
                )
        return reads

    def close(self) -> None:
        if self.owned:
            self.directory.stop()


def scenario_entries(setup: Setup, root: str) -> list[LdapEntry]:
    """The LDAP entries of ``setup``'s directory (:func:`mqcn_model.dssm.directory_entries`),
    base tree included, without the attributes the scenario leaves out; an object published
    twice, or two queues of one Pathname, made fit for one DN each first (it changes
    ``setup``).  A value with no LDAP form raises the model's DirectoryValueError; a JSON
    object that is no Queue / QueueManager raises ValueError, KeyError or TypeError."""
    _one_object_per_name(setup)
    queues = [(Queue.from_json(entry["queue"]), None) for entry in setup.directory_queues]
    managers = [
        (QueueManager.from_json(qm), _computer_of(setup, uuid.UUID(qm["Identifier"])))
        for qm in setup.directory_queue_managers
    ]
    entries = dssm.directory_entries(queues, managers, root=root)
    return [_without(entry, setup.directory_absent) for entry in entries]


def _one_object_per_name(setup: Setup) -> None:
    """Make the scenario's directory one an LDAP server can hold: an object published twice
    is the later publication (as the in-memory directory keeps it), and a queue whose Pathname
    another queue already has is renamed ``<name>-<first 8 hex digits of its GUID>`` (a DN
    names one entry; the dict directory keeps queues by GUID and does not care; errata
    D-14)."""
    latest = {entry["queue"]["Identifier"]: entry for entry in setup.directory_queues}
    setup.directory_queues[:] = list(latest.values())
    taken: set[str] = set()
    for entry in setup.directory_queues:
        queue = entry["queue"]
        path = str(queue.get("Pathname", ""))
        if path.lower() in taken:
            path = f"{path}-{uuid.UUID(queue['Identifier']).hex[:8]}"
            entry["queue"] = {**queue, "Pathname": path}
        taken.add(path.lower())
    managers = {qm["Identifier"]: qm for qm in setup.directory_queue_managers}
    setup.directory_queue_managers[:] = list(managers.values())


def _computer_of(setup: Setup, guid: uuid.UUID) -> str:
    """The computer of a published queue manager: the scenario's own, or one named after
    the GUID (another queue manager)."""
    if guid == setup.qm_guid:
        return setup.computer.split(".")[0]
    return f"qm-{guid.hex[:8]}"


def _identity(entry: LdapEntry) -> tuple[uuid.UUID, str] | None:
    """(objectGUID, ADM type) of an entry that is a queue or a queue manager, else None."""
    found = dssm.directory_objects([entry])
    return (found[0][1], found[0][2]) if found else None


def _without(entry: LdapEntry, absent: dict[str, list[str]]) -> LdapEntry:
    identity = _identity(entry)
    if identity is None or str(identity[0]) not in absent:
        return entry
    guid, object_type = identity
    dropped = {a.lower() for a in dssm.ldap_attributes_for(object_type, tuple(absent[str(guid)]))}
    dropped -= {"objectguid", "distinguishedname"}  # what makes it the object
    kept = {k: v for k, v in entry.attributes.items() if k.lower() not in dropped}
    return LdapEntry(entry.dn, kept)


def _queue_view(guid: uuid.UUID, found: dict[str, Any]) -> dict[str, Any]:
    """The JSON of the queue a server makes of ``found`` (the model's own rule, 3.2.5.2)."""
    return queue_from_read(guid, found).to_json()
