"""An ldap3 connection as the suite opens one: whole-second timeouts, no schema read, no
exceptions for LDAP results (each caller decides what a refused bind means)."""

from __future__ import annotations

import math

import ldap3


def connection(url: str, bind_dn: str, password: str, timeout: float) -> ldap3.Connection:
    """An unbound connection to ``url`` as ``bind_dn``; ``timeout`` bounds the connect and
    every answer (rounded up to whole seconds: ldap3 packs them into socket options)."""
    seconds = max(1, math.ceil(timeout))
    server = ldap3.Server(url, get_info=ldap3.NONE, connect_timeout=seconds)
    return ldap3.Connection(
        server, user=bind_dn, password=password, receive_timeout=seconds, raise_exceptions=False
    )
