"""The two records that cross between an LDAP directory and the model: entries and searches.

An :class:`LdapEntry` is one object as it is written to (or read from) an LDAP directory laid
out as Active Directory ([MS-MQDSSM] 2.2.1).  An :class:`LdapSearch` is one search request a
directory server saw, with its result, as the server's own log records it; the model turns a
run of them into the Read Directory events a queue manager made (3.2.5.2 of MS-MQCN).

Both are plain data: no connection, no file.  Values are ``bytes`` for octet-string syntaxes
and ``str`` for every other syntax.

>>> LdapEntry("CN=x,DC=example", {"objectClass": ["container"]}).rdn
'CN=x'
"""

from __future__ import annotations

from dataclasses import dataclass, field

LdapValue = bytes | str


@dataclass(frozen=True)
class LdapEntry:
    """One directory object: its distinguished name and attribute values (in order)."""

    dn: str
    attributes: dict[str, list[LdapValue]]

    @property
    def rdn(self) -> str:
        """The first component of the DN (``CN=orders`` of ``CN=orders,CN=msmq,...``)."""
        return self.dn.split(",", 1)[0]


@dataclass(frozen=True)
class LdapSearch:
    """One search operation seen at the server.

    ``connection``/``operation`` identify it in the server's log; ``listener`` is the address
    (``host:port``) the client connected to; ``bind_dn`` the identity it bound with (empty:
    anonymous); ``scope`` is 0 base, 1 one level, 2 subtree (-1: the server refused the
    request before it logged the scope, as slapd does with a ``<GUID=...>`` base); ``filter``
    the filter as the
    server printed it; ``attributes`` the attribute list asked for (empty: all user
    attributes); ``result`` the LDAP result code and ``entries`` how many entries were
    returned (None while the server has not answered).
    """

    connection: int
    operation: int
    listener: str
    bind_dn: str
    base: str
    scope: int
    filter: str
    attributes: tuple[str, ...] = field(default_factory=tuple)
    result: int | None = None
    entries: int | None = None
