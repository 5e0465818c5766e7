"""The Read Directory events a run of LDAP searches amounts to: the read judge's input when the
directory is a real server and the reads are observed there (MS-MQCN 3.2.5.2, [MS-MQDSSM]
3.1.6.14 and 3.1.6.19).

A queue manager reading an object by its Identifier searches for its objectGUID (Find Object
By GUID, 3.1.6.19: the compact form of the letter or the escaped octets of AD practice,
errata D-01), then reads the object's attributes with a base-scope search at the DN found (Get
Object Properties, 3.1.6.14).  :func:`reads_from_searches` folds such a pair, on one
connection, into one read, and says which object it read, which attributes (the ADM names of
3.2.5.2's lists whose LDAP attributes were all asked for), which server it went to and how it
ended.

A search that names no object by its GUID or DN (``(cn=orders)``) is still a read: of no
identifier, with its filter kept, so a judge can say what was searched instead.  The rootDSE,
the subschema entry and the suite's own connections are not reads.

>>> import uuid
>>> from mqcn_model.ldap_records import LdapSearch
>>> g = uuid.UUID(int=7)
>>> s = LdapSearch(1, 1, "127.0.0.1:389", "CN=t", "", 2, f"(objectGUID={g.hex})", (), 0, 1)
>>> [(r["object_type"], r["identifier"], r["status"]) for r in reads_from_searches(
...     [s], [("CN=q,CN=msmq,CN=qm1,CN=Computers,DC=x", g, "Queue")], {}, set())]
[('Queue', '00000000-0000-0000-0000-000000000007', 'Success')]
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mqcn_model.constants import V2_QM_READ_ATTRIBUTES, V2_QUEUE_READ_ATTRIBUTES
from mqcn_model.directory import DirectoryOperationResult
from mqcn_model.dssm import (
    guid_of_dn,
    guids_named,
    ldap_attributes_for,
    normal_dn,
    result_of_ldap_code,
)
from mqcn_model.ldap_records import LdapSearch

READ_LISTS = {"Queue": V2_QUEUE_READ_ATTRIBUTES, "QueueManager": V2_QM_READ_ATTRIBUTES}
SUBSCHEMA_DNS = frozenset({"cn=subschema"})  # schema discovery (ldap3 reads it on bind)
SCOPE_BASE = 0


def asks_all(attributes: Iterable[str]) -> bool:
    """Whether a search's attribute list asks for every user attribute: empty, or ``*``."""
    names = [a.strip() for a in attributes]
    return not names or "*" in names


def names_asked(object_type: str | None, ldap_attributes: Iterable[str]) -> list[str]:
    """The names of MS-MQCN 3.2.5.2's list for ``object_type`` whose LDAP attributes
    (3.1.6.10) were all asked for; every name when all were (errata D-07).  An unknown object
    type takes the names of either list, Queue's first."""
    asked_list = list(ldap_attributes)
    everything = asks_all(asked_list)
    asked = {a.strip().lower() for a in asked_list}
    types = [object_type] if object_type else ["Queue", "QueueManager"]
    out: list[str] = []
    for kind in types:
        for name in READ_LISTS[kind]:
            needed = ldap_attributes_for(kind, (name,))
            if name not in out and (everything or all(n.lower() in asked for n in needed)):
                out.append(name)
    return out


def _normal_bind(dn: str) -> str:
    try:
        return normal_dn(dn)
    except ValueError:
        return dn.strip().lower()


@dataclass
class _Read:
    """One read being folded: the searches so far and what they name."""

    object_type: str | None
    identifier: uuid.UUID | None
    server: str
    connection: int
    by_guid: bool  # the first search named the object by its GUID (a Find Object By GUID)
    searches: list[LdapSearch] = field(default_factory=list)

    def status(self) -> str | None:
        """How the read ended: the first search that failed (2.2.6) or found nothing
        (ObjectNotFound), else Success; None while a search has no answer."""
        for search in self.searches:
            if search.result is None:
                return None
            if search.result != 0:
                return result_of_ldap_code(search.result).value
            if not search.entries:
                return DirectoryOperationResult.ObjectNotFound.value
        return DirectoryOperationResult.Success.value

    def to_json(self) -> dict[str, Any]:
        ldap: list[str] = []
        everything = False
        for search in self.searches:
            everything = everything or asks_all(search.attributes)
            for name in search.attributes:
                if name.lower() not in {n.lower() for n in ldap}:
                    ldap.append(name)
        if everything:
            ldap = ["*"]
        return {
            "object_type": self.object_type,
            "identifier": None if self.identifier is None else str(self.identifier),
            "attributes": names_asked(self.object_type, ldap),
            "server": self.server,
            "source": "ldap",
            "ldap_attributes": ldap,
            "status": self.status(),
            "filter": self.searches[0].filter,
            "connection": self.connection,
            "searches": [
                {
                    "base": s.base,
                    "scope": s.scope,
                    "filter": s.filter,
                    "attributes": list(s.attributes),
                    "result": s.result,
                    "entries": s.entries,
                }
                for s in self.searches
            ],
        }


def reads_from_searches(
    searches: Iterable[LdapSearch],
    objects: Iterable[tuple[str, uuid.UUID, str]],
    servers: Mapping[str, str],
    ignore_bind_dns: Iterable[str],
) -> list[dict[str, Any]]:
    """Each Read Directory ``searches`` amount to, in order, as JSON (see the module doc).

    ``objects`` are the directory's objects as ``(dn, objectGUID, object type)``; ``servers``
    names each listener (``host:port``; a listener not in it is ``""``, the default server);
    searches made under a DN of ``ignore_bind_dns`` (the suite's own) are not reads.

    A search names an object when its filter asserts the object's objectGUID (either form),
    or when it is a base-scope search at the object's DN or at ``<GUID=...>``.  A base-scope
    search at the object's DN (whatever its filter) that follows, on the same connection, a
    search naming the same object by its GUID is the second half of that read (Find Object By
    GUID, then Get Object Properties).
    """
    by_dn: dict[str, tuple[uuid.UUID, str]] = {}
    by_guid: dict[uuid.UUID, str] = {}
    for dn, guid, object_type in objects:
        by_dn[normal_dn(dn)] = (guid, object_type)
        by_guid[guid] = object_type
    ignored = {_normal_bind(dn) for dn in ignore_bind_dns}
    reads: list[_Read] = []
    last_on: dict[int, _Read] = {}  # the read the connection's previous search belongs to
    for search in searches:
        if search.bind_dn and _normal_bind(search.bind_dn) in ignored:
            continue
        base = search.base.strip()
        if search.scope == SCOPE_BASE and (not base or _normal_bind(base) in SUBSCHEMA_DNS):
            continue  # rootDSE / subschema: how to talk to the server, not a read
        named = guids_named(search.filter)
        at: uuid.UUID | None = None  # the object a base-scope search is made at
        # a server may refuse a <GUID=...> base before logging its scope (-1: not logged; D-09)
        if search.scope == SCOPE_BASE or search.scope < 0:
            at = guid_of_dn(base)
            if at is None:
                try:
                    found = by_dn.get(normal_dn(base))
                except ValueError:
                    found = None
                if found is not None:
                    at = found[0]
        guid = named[0][0] if named else at
        # whatever its filter, a base-scope search at the object found may end a find of it
        at_dn = at is not None and at == guid
        previous = last_on.get(search.connection)
        if (
            at_dn
            and previous is not None
            and previous.by_guid
            and len(previous.searches) == 1
            and previous.identifier == guid
        ):
            previous.searches.append(search)
            continue
        read = _Read(
            object_type=by_guid.get(guid) if guid is not None else None,
            identifier=guid,
            server=servers.get(search.listener, ""),
            connection=search.connection,
            by_guid=bool(named),
            searches=[search],
        )
        reads.append(read)
        last_on[search.connection] = read
    return [read.to_json() for read in reads]
