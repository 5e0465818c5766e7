"""slapd's stats log (``slapd -d 256``), read back as the searches and binds it records.

slapd writes one line per event of an operation, each naming its connection (and
operation): ``ACCEPT`` (the listener the client connected to), ``BIND dn=...`` and its
``RESULT tag=97``, ``SRCH base=... scope=... filter=...``, ``SRCH attr=...`` and ``SEARCH
RESULT tag=101 err=... nentries=...``, ``ABANDON``, ``closed``.  :class:`StatsLog` joins them
into :class:`~mqcn_model.ldap_records.LdapSearch` records (what a queue manager asked the
directory, as the server saw it) and :class:`LdapBind` records (who bound, with what result:
``err=49`` is a wrong password).  It is fed the log as it grows; every record remembers the
byte offset of its first line, so a caller asks for the records after a mark.

A server restarted on the same log starts numbering connections again: the banner line of a
new start ends every connection of the previous one.

>>> log = StatsLog()
>>> log.feed(b'conn=1000 fd=12 ACCEPT from IP=127.0.0.1:5 (IP=127.0.0.1:389)\\n'
...          b'conn=1000 op=0 SRCH base="" scope=0 deref=0 filter="(objectClass=*)"\\n'
...          b'conn=1000 op=0 SEARCH RESULT tag=101 err=0 qtime=0 etime=0 nentries=1 text=\\n')
>>> [(s.listener, s.filter, s.result, s.entries) for s in log.searches()]
[('127.0.0.1:389', '(objectClass=*)', 0, 1)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from mqcn_model.ldap_records import LdapSearch

# Each pattern finds its event anywhere in the line: slapd prefixes a time stamp and a thread id.
_ACCEPT = re.compile(r"\bconn=(\d+) fd=\d+ ACCEPT from (\S+) \((\S+)\)")
_BIND = re.compile(r'\bconn=(\d+) op=(\d+) BIND dn="(.*)" method=(\d+)')
_BIND_RESULT = re.compile(r"\bconn=(\d+) op=(\d+) RESULT tag=97 err=(\d+)")
_SRCH = re.compile(r'\bconn=(\d+) op=(\d+) SRCH base="(.*)" scope=(\d+) deref=\d+ filter="(.*)"$')
# A base slapd cannot parse (``<GUID=...>``, AD's alternative DN form) is refused before the
# SRCH line: this line and the SEARCH RESULT (err=34) are all the log has of that search.
_INVALID_BASE = re.compile(r'\bconn=(\d+) op=(\d+) do_search: invalid dn: "(.*)"$')
UNLOGGED_SCOPE = -1  # the scope of a search whose base slapd refused (not logged; errata D-09)
_SRCH_ATTR = re.compile(r"\bconn=(\d+) op=(\d+) SRCH attr=(.*)$")
_SEARCH_RESULT = re.compile(r"\bconn=(\d+) op=(\d+) SEARCH RESULT tag=101 err=(\d+)(.*)$")
_NENTRIES = re.compile(r"\bnentries=(\d+)")
_ABANDON = re.compile(r"\bconn=(\d+) op=\d+ ABANDON msg=(\d+)")
_CLOSED = re.compile(r"\bconn=(\d+) fd=\d+ closed")
# The first line a starting slapd writes in debug mode (``@(#) $OpenLDAP: slapd 2.5...``).
_BANNER = re.compile(r"\$OpenLDAP: slapd ")
_ESCAPE = re.compile(r"\\([0-9a-fA-F]{2})")


def unescape_value(text: str) -> bytes:
    """The bytes of a filter assertion value as slapd prints it (RFC 4515 ``\\xx`` escapes).

    slapd prints a value's printable ASCII as is and every other byte as ``\\XX``.

    >>> unescape_value(r"\\FF\\19\\96o")
    b'\\xff\\x19\\x96o'
    """
    out = bytearray()
    position = 0
    for match in _ESCAPE.finditer(text):
        out += text[position : match.start()].encode("utf-8")
        out.append(int(match.group(1), 16))
        position = match.end()
    out += text[position:].encode("utf-8")
    return bytes(out)


def _listener(address: str) -> str:
    """``IP=127.0.0.1:389`` -> ``127.0.0.1:389`` (slapd names the address family first)."""
    return address.split("=", 1)[1] if "=" in address else address


@dataclass(frozen=True)
class LdapBind:
    """One bind a server saw: on which connection and listener, as whom, with what result.

    ``result`` is the LDAP result code (0 success, 49 invalid credentials, None while the
    server has not answered); ``offset`` the byte offset of its line in the log.
    """

    connection: int
    operation: int
    listener: str
    dn: str
    result: int | None
    offset: int


@dataclass
class _Connection:
    """What is known of one connection: its listener, who it is bound as, a bind in flight.

    slapd logs from several threads: the RESULT of a bind may come after the SRCH lines of
    the searches the client sent once it had that result (RFC 4511 4.2.1: no request while a
    bind is in progress).  Such searches wait in ``waiting`` for the bind's outcome.  Likewise
    the listener thread's ACCEPT may come after the first lines of the connection: the
    records made before it get their listener when it comes."""

    listener: str = ""
    bind_dn: str = ""
    pending_bind: tuple[int, str] | None = None  # (op, dn) of a bind without its RESULT yet
    waiting: list[int] = field(default_factory=list)  # searches made during pending_bind
    searches: list[int] = field(default_factory=list)  # its searches (indexes)
    binds: list[int] = field(default_factory=list)  # its binds (indexes)


@dataclass
class _Pending:
    offset: int
    search: LdapSearch
    gone: bool = False  # abandoned, or its connection (or server) ended before a result


class StatsLog:
    """The searches and binds of a stats log, joined per connection (see the module)."""

    def __init__(self) -> None:
        # connection numbers are unique within one server start: a connection is kept after
        # it closed, since a thread may log the last result after another logged the close
        self._connections: dict[int, _Connection] = {}
        self._searches: list[_Pending] = []
        self._open: dict[tuple[int, int], int] = {}  # (conn, op) -> index in _searches
        self._binds: list[LdapBind] = []
        self._open_binds: dict[tuple[int, int], int] = {}
        self._rest = b""  # an unfinished last line
        self._offset = 0  # bytes consumed (lines complete)

    @property
    def offset(self) -> int:
        """How many bytes of the log were read as complete lines."""
        return self._offset

    def feed(self, data: bytes) -> None:
        """Read the next bytes of the log (any chunking; a partial line waits for its end)."""
        data = self._rest + data
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            self._line(data[start:end].decode("utf-8", "replace"), self._offset)
            self._offset += end + 1 - start
            start = end + 1
        self._rest = data[start:]

    # --- one line --------------------------------------------------------------------------

    def _conn(self, number: int) -> _Connection:
        return self._connections.setdefault(number, _Connection())

    def _line(self, line: str, offset: int) -> None:
        if _BANNER.search(line):
            self._restart()
        elif match := _SRCH.search(line):
            self._search(match, offset)
        elif match := _INVALID_BASE.search(line):
            self._search(match, offset, refused_base=True)
        elif match := _SRCH_ATTR.search(line):
            self._attributes(match)
        elif match := _SEARCH_RESULT.search(line):
            self._search_result(match)
        elif match := _ACCEPT.search(line):
            self._accept(int(match.group(1)), _listener(match.group(3)))
        elif match := _BIND.search(line):
            self._bind(match, offset)
        elif match := _BIND_RESULT.search(line):
            self._bind_result(match)
        elif match := _ABANDON.search(line):
            self._gone(int(match.group(1)), {int(match.group(2))})
        elif match := _CLOSED.search(line):
            conn = int(match.group(1))
            self._gone(conn, {op for c, op in self._open if c == conn})

    def _accept(self, conn: int, listener: str) -> None:
        state = self._conn(conn)
        state.listener = listener
        for index in state.searches:
            pending = self._searches[index]
            pending.search = replace(pending.search, listener=listener)
        for index in state.binds:
            self._binds[index] = replace(self._binds[index], listener=listener)

    def _search(self, match: re.Match[str], offset: int, refused_base: bool = False) -> None:
        """A SRCH line, or a base slapd refused (scope :data:`UNLOGGED_SCOPE`, no filter)."""
        conn, op = int(match.group(1)), int(match.group(2))
        state = self._conn(conn)
        search = LdapSearch(
            connection=conn,
            operation=op,
            listener=state.listener,
            bind_dn=state.bind_dn,
            base=match.group(3),
            scope=UNLOGGED_SCOPE if refused_base else int(match.group(4)),
            filter="" if refused_base else match.group(5),
        )
        index = len(self._searches)
        self._open[(conn, op)] = index
        if state.pending_bind is not None:
            state.waiting.append(index)
        state.searches.append(index)
        self._searches.append(_Pending(offset, search))

    def _attributes(self, match: re.Match[str]) -> None:
        index = self._open.get((int(match.group(1)), int(match.group(2))))
        if index is not None:
            pending = self._searches[index]
            names = tuple(match.group(3).split())
            pending.search = replace(pending.search, attributes=pending.search.attributes + names)

    def _search_result(self, match: re.Match[str]) -> None:
        index = self._open.pop((int(match.group(1)), int(match.group(2))), None)
        if index is None:
            return
        entries = _NENTRIES.search(match.group(4))
        pending = self._searches[index]
        pending.search = replace(
            pending.search,
            result=int(match.group(3)),
            entries=int(entries.group(1)) if entries else 0,
        )

    def _bind(self, match: re.Match[str], offset: int) -> None:
        conn, op = int(match.group(1)), int(match.group(2))
        state = self._conn(conn)
        state.pending_bind = (op, match.group(3))
        self._open_binds[(conn, op)] = len(self._binds)
        state.binds.append(len(self._binds))
        self._binds.append(LdapBind(conn, op, state.listener, match.group(3), None, offset))

    def _bind_result(self, match: re.Match[str]) -> None:
        conn, op, err = int(match.group(1)), int(match.group(2)), int(match.group(3))
        index = self._open_binds.pop((conn, op), None)
        if index is not None:
            self._binds[index] = replace(self._binds[index], result=err)
        state = self._conn(conn)
        if state.pending_bind is None or state.pending_bind[0] != op:
            return  # the RESULT of another operation kind with tag 97 (none in LDAPv3)
        # a failed bind leaves the connection anonymous (RFC 4511 4.2.1)
        state.bind_dn = state.pending_bind[1] if err == 0 else ""
        for waiting in state.waiting:
            pending = self._searches[waiting]
            pending.search = replace(pending.search, bind_dn=state.bind_dn)
        state.pending_bind, state.waiting = None, []

    def _gone(self, conn: int, ops: set[int]) -> None:
        """Operations that will get no result (abandoned, or their connection closed).

        They stay open: a result logged late by another thread still fills them in."""
        for op in ops:
            index = self._open.get((conn, op))
            if index is not None:
                self._searches[index].gone = True

    def _restart(self) -> None:
        """A new server start: every connection and open operation of the last one ended."""
        for index in self._open.values():
            self._searches[index].gone = True
        self._open.clear()
        self._open_binds.clear()
        self._connections.clear()

    # --- queries ---------------------------------------------------------------------------

    def searches(self, since: int = 0) -> list[LdapSearch]:
        """Every search whose SRCH line starts at byte ``since`` or later, in log order."""
        return [p.search for p in self._searches if p.offset >= since]

    def binds(self, since: int = 0) -> list[LdapBind]:
        """Every bind whose BIND line starts at byte ``since`` or later, in log order."""
        return [b for b in self._binds if b.offset >= since]

    def unsettled(self, before: int | None = None) -> list[LdapSearch]:
        """The searches that may still get a result: none yet, not abandoned, connection open
        (those whose line starts before ``before``)."""
        return [
            p.search
            for p in self._searches
            if p.search.result is None and not p.gone and (before is None or p.offset < before)
        ]

    def unanswered(self, before: int | None = None) -> list[LdapSearch]:
        """The searches without a result, gone ones included (line before ``before``)."""
        return [
            p.search
            for p in self._searches
            if p.search.result is None and (before is None or p.offset < before)
        ]

    def state_of(self, filter_text: str) -> tuple[int, bool] | None:
        """The offset of the last search with exactly this filter, and whether it has its
        result (None: no such search)."""
        for pending in reversed(self._searches):
            if pending.search.filter == filter_text:
                return pending.offset, pending.search.result is not None
        return None


def parse_searches(text: str) -> list[LdapSearch]:
    """The searches of a whole log text (a convenience for a log read at once)."""
    log = StatsLog()
    log.feed(text.encode("utf-8") + (b"" if text.endswith("\n") else b"\n"))
    return log.searches()
