"""The reference target's directory in LDAP mode: Read Directory as an LDAP client does it.

A thin adapter between the sans-IO model and an LDAP server, with ldap3: the model raises a
Read Directory (:class:`mqcn_model.directory.Directory`), this module performs it the way
[MS-MQDSSM] 3.1.6.3 and 3.1.6.14 lay it out, and every conversion is the model's
(:mod:`mqcn_model.dssm`):

1. Prepare an LDAP connection (3.1.6.18): connect and bind to the directory service the
   notification named (the scenario's ``servers`` table, else the default URL).  A server
   that cannot be reached or refuses the bind is ``DirectoryNotConnected`` (3.1.6.14).  A
   simple bind with the account ``reset`` gives, not SASL GSS-SPNEGO (errata D-10).
2. Find the object by its GUID (3.1.6.19): a subtree search from base "" with the filter
   ``(objectGuid=<CompactGuid>)``, the letter's form (the Node example uses the other
   reading, the escaped 16 bytes; errata D-01).  No entry is ObjectNotFound (D-06).
3. Get its properties (3.1.6.14): a base search at the DN found, asking for every attribute.
4. Build the ADM object (3.1.6.11, :func:`mqcn_model.dssm.queue_from_ldap`), with its
   defaults and error rows.

LDAP result codes become DirectoryOperationResult values as 2.2.6 says.
"""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mqcn_model import dssm
from mqcn_model.directory import DirectoryOperationResult, DirectoryRead

if TYPE_CHECKING:
    import ldap3

# ldap3 is imported where a read is made: a process that never reads LDAP (a Spark executor
# running a zoo member) needs no LDAP client installed.

TIMEOUT = 5  # seconds to connect and for each answer; a slower server is not connected
# The object class a read of each ADM type must find (a GUID of another class: not found)
OBJECT_CLASS = {"Queue": "msmqqueue", "QueueManager": "msmqconfiguration"}


@dataclass
class LdapDirectory:
    """A :class:`~mqcn_model.directory.Directory` on an LDAP server (``setup.ldap``)."""

    url: str
    bind_dn: str
    password: str
    servers: dict[str, str] = field(default_factory=dict)
    reads: list[DirectoryRead] = field(default_factory=list)
    _connections: dict[str, ldap3.Connection] = field(default_factory=dict, repr=False)

    @classmethod
    def from_setup(cls, ldap: dict[str, Any]) -> LdapDirectory:
        return cls(ldap["url"], ldap["bind_dn"], ldap["password"], dict(ldap.get("servers", {})))

    def read(
        self,
        object_type: str,
        identifier: uuid.UUID,
        attributes: tuple[str, ...],
        server: str | None = None,
    ) -> dict[str, Any] | DirectoryOperationResult:
        self.reads.append(DirectoryRead(object_type, identifier, tuple(attributes)))
        from ldap3.core.exceptions import LDAPException

        url = self.servers.get(server or "", self.url)
        try:
            return self._read(url, object_type, identifier, attributes)
        except LDAPException:  # the connection broke (or never was): drop it
            self._drop(url)
            return DirectoryOperationResult.DirectoryNotConnected

    def _read(
        self, url: str, object_type: str, identifier: uuid.UUID, attributes: tuple[str, ...]
    ) -> dict[str, Any] | DirectoryOperationResult:
        import ldap3

        connection = self._connection(url)
        if connection is None:
            return DirectoryOperationResult.DirectoryNotConnected
        # 3.1.6.19: find the DN by objectGUID
        connection.search(
            "",
            self.guid_filter(identifier),
            search_scope=ldap3.SUBTREE,
            attributes=["distinguishedName"],
        )
        found = _status(connection)
        if found is not DirectoryOperationResult.Success:
            return found
        if not connection.entries:
            return DirectoryOperationResult.ObjectNotFound
        dn = connection.entries[0].entry_dn
        # 3.1.6.14: every attribute of the object, from a base search at its DN (errata D-07)
        connection.search(dn, "(objectClass=*)", search_scope=ldap3.BASE, attributes=["*"])
        got = _status(connection)
        if got is not DirectoryOperationResult.Success:
            return got
        if not connection.response:
            return DirectoryOperationResult.ObjectNotFound
        raw = connection.response[0].get("raw_attributes", {})
        classes = {bytes(v).decode().lower() for v in raw.get("objectClass", [])}
        if OBJECT_CLASS.get(object_type) not in classes:
            return DirectoryOperationResult.ObjectNotFound
        values: dict[str, list[bytes | str]] = {k: list(v) for k, v in raw.items()}
        values["distinguishedName"] = [dn]
        return self.convert(object_type, values, attributes)

    def convert(
        self, object_type: str, values: dict[str, list[bytes | str]], attributes: tuple[str, ...]
    ) -> dict[str, Any] | DirectoryOperationResult:
        """The ADM object of the entry's ``values`` (3.1.6.11: the model's conversion)."""
        convert = dssm.queue_from_ldap if object_type == "Queue" else dssm.queue_manager_from_ldap
        return convert(values, attributes)

    def guid_filter(self, identifier: uuid.UUID) -> str:
        """The filter of Find Object By GUID (3.1.6.19): the letter's CompactGuid form."""
        return dssm.guid_filter(identifier, "compact")

    def _connection(self, url: str) -> ldap3.Connection | None:
        """The cached connection to ``url`` (3.1.6.18), bound; None when that fails."""
        connection = self._connections.get(url)
        if connection is not None and not connection.closed:
            return connection
        from mqcn_suite.directory.ldap_client import connection as open_connection

        connection = open_connection(url, self.bind_dn, self.password, TIMEOUT)
        if not connection.bind():
            connection.unbind()
            return None
        self._connections[url] = connection
        return connection

    def _drop(self, url: str) -> None:
        connection = self._connections.pop(url, None)
        if connection is not None:
            from ldap3.core.exceptions import LDAPException

            with contextlib.suppress(LDAPException):
                connection.unbind()

    def close(self) -> None:
        """Unbind every connection (a reset, the end of the run)."""
        for url in list(self._connections):
            self._drop(url)


def _status(connection: ldap3.Connection) -> DirectoryOperationResult:
    """The DirectoryOperationResult of the connection's last operation (2.2.6)."""
    return dssm.result_of_ldap_code(int(connection.result.get("result", 0)))
