"""A slapd of the suite's own, laid out as Active Directory, whose log says what was read.

:class:`SlapdDirectory` writes a ``slapd.conf`` into a folder of its own (the MSMQ schema of
``schema/msmq.schema``, an ``mdb`` database, the ``rwm`` rules that let ``(objectGuid=<hex>)``
match the 16-byte objectGUID, a rootDSE naming the naming contexts, ACLs) and starts ``slapd
-d 256`` in the foreground, in a process group of its own, its stderr -- the stats log -- into
``slapd.log``.  It listens on free 127.0.0.1 ports: one default listener, plus one per name in
``server_names`` (a DomainController name a notification may carry: each plays that server).

The tree (MS-MQDSSM 2.2.1, docs/directory.md): ``<root>`` (domainDNS), ``CN=Configuration``,
``CN=Computers``, ``CN=Users`` and the target's account ``CN=mqcn-target,CN=Users,<root>``,
which may read everything and write nothing.  The suite writes as the rootdn
``CN=mqcn-suite,<root>``.  Both passwords are new at every start.  :meth:`SlapdDirectory.load`
replaces everything below ``CN=Computers`` with a scenario's entries.

Reads are observed, not reported: :meth:`~SlapdDirectory.searches` reads the log from a mark
(:meth:`~SlapdDirectory.mark`); :meth:`~SlapdDirectory.sync` makes sure every search made
before it has its result in the log.

Failure helpers for scenarios: :meth:`~SlapdDirectory.stop_listening` /
:meth:`~SlapdDirectory.start_listening` (the server down: connections refused, then back on
the same ports with the same data); :meth:`~SlapdDirectory.pause` (the server hung: SIGSTOP,
SIGCONT after a while -- connections are accepted by the kernel, nothing answers);
:meth:`~SlapdDirectory.slow_url` (a slow server: a proxy that holds each request ``delay``
seconds before passing it on).

Serving one by hand: ``mqcn directory serve`` starts a directory and writes
:meth:`~SlapdDirectory.write_state` (a JSON file at :func:`state_path` of its port, mode 0600,
removed at stop); :meth:`SlapdDirectory.attach` rebuilds from that file a directory that loads,
marks, reads the log, binds and syncs like a started one, but never starts or stops slapd.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from mqcn_model.ldap_records import LdapEntry, LdapSearch
from mqcn_suite.directory.fixture_errors import (
    DirectoryFixtureError,
    DirectoryTimeoutError,
    DirectoryValueError,
    NotAttachableError,
    PortInUseError,
    SchemaRefusedError,
    SlapdExitedError,
    SlapdNotInstalledError,
)
from mqcn_suite.directory.slow_proxy import SlowProxy
from mqcn_suite.directory.statslog import LdapBind, StatsLog
from mqcn_suite.processes import stop_group

if TYPE_CHECKING:  # ldap3 is imported where it is used: the module loads without it
    import ldap3

HOST = "127.0.0.1"
SCHEMA = Path(__file__).parent / "schema" / "msmq.schema"
CORE_SCHEMA = Path("/etc/ldap/schema/core.schema")
MODULE_PATH = Path("/usr/lib/ldap")
DEFAULT_ROOT = "DC=mqcn,DC=example"
INSTALL_HINT = "apt-get install slapd ldap-utils"
# Where slapd lives on Debian (not on a plain user's PATH): searched after PATH.
SBIN = ("/usr/sbin", "/usr/local/sbin", "/sbin")
START_TIMEOUT = 20.0  # seconds for slapd to answer (a loaded CI machine)
GRACE = 5.0  # seconds between SIGTERM and SIGKILL
SYNC_TIMEOUT = 10.0
LATE_RESULT_GRACE = 0.2  # seconds sync() waits for the result of a search whose connection ended
LOG_TAIL = 6  # log lines quoted in an error
SYNC_MARK = "mqcn-sync-"  # the cn of the suite's marker searches (no entry has it)

STATE_PREFIX = "mqcn-directory-"  # state files of `mqcn directory serve`: <prefix><port>.json
SERVE_COMMAND = "mqcn directory serve"
STATE_KEYS = ("root", "folder", "ports", "suite", "target", "log", "pid")

# The rwm rules that let the compact GUID filter match the 16-byte objectGUID (errata D-01).
RWM_RULES = Path(__file__).parent / "schema" / "objectguid-rwm.conf"


# --- small helpers -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DirectoryCredentials:
    """How to reach and bind to the directory: what ``reset`` hands a target (the contract)."""

    url: str
    bind_dn: str
    password: str
    naming_context: str


def free_port() -> int:
    """A TCP port nobody listens on now (the kernel's choice)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def port_is_free(port: int) -> bool:
    """Whether a listener could bind ``127.0.0.1:port`` now (slapd sets SO_REUSEADDR too)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
    return True


def state_path(port: int) -> Path:
    """Where ``mqcn directory serve`` with its default listener on ``port`` describes its
    server for runs that attach to it (``$TMPDIR/mqcn-directory-<port>.json``)."""
    return Path(tempfile.gettempdir()) / f"{STATE_PREFIX}{port}.json"


def attachable_port(url: str) -> int:
    """The port of ``ldap://127.0.0.1:PORT`` (or ``localhost``); :class:`NotAttachableError`
    for any other URL: a served directory is described by a file on this machine."""
    parsed = urllib.parse.urlsplit(url)
    try:
        port = parsed.port
    except ValueError:
        port = None
    if parsed.scheme.lower() != "ldap" or parsed.hostname not in (HOST, "localhost") or not port:
        raise NotAttachableError(
            f"cannot attach to {url}: only a directory started by `{SERVE_COMMAND}` on this "
            f"machine can be attached, by the URL it printed (ldap://{HOST}:PORT); start one "
            f"with `{SERVE_COMMAND}`"
        )
    return port


def find_slapd(program: str | None = None, search_path: str | None = None) -> Path:
    """The slapd program: ``program`` (a path or a name), else ``slapd`` on ``search_path``.

    ``search_path`` defaults to ``PATH`` followed by the sbin folders, where Debian puts it.
    """
    path = search_path
    if path is None:
        path = os.pathsep.join([os.environ.get("PATH", ""), *SBIN])
    found = shutil.which(program or "slapd", path=path)
    if found is None:
        where = program or f"slapd on {path!r}"
        raise SlapdNotInstalledError(
            f"OpenLDAP's slapd is not installed ({where} not found): {INSTALL_HINT}"
        )
    return Path(found)


def ssha(password: str) -> str:
    """``password`` as an RFC 2307 ``{SSHA}`` userPassword value (salted SHA-1; slapd checks it)."""
    salt = os.urandom(8)
    digest = hashlib.sha1(password.encode("utf-8") + salt).digest()
    return "{SSHA}" + base64.b64encode(digest + salt).decode("ascii")


def dn_key(dn: str) -> str:
    """A DN in a form two spellings of it share: lower case, no spaces around ``,`` and ``=``.

    >>> dn_key("CN=Orders, CN=msmq,DC=Example")
    'cn=orders,cn=msmq,dc=example'
    """
    parts = re.split(r"(?<!\\),", dn)
    return ",".join(
        "=".join(side.strip() for side in part.split("=", 1)).lower() for part in parts if part
    )


def dn_depth(dn: str) -> int:
    """How many RDNs ``dn`` has (parents have fewer)."""
    return len([part for part in re.split(r"(?<!\\),", dn) if part.strip()])


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (and is not a zombie waiting for its parent)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        status = Path(f"/proc/{pid}/stat").read_text("ascii", "replace")
    except OSError:
        return True  # no /proc: the signal said it exists
    return status.rsplit(")", 1)[-1].split()[:1] != ["Z"]


def _parse_state(path: Path, text: str) -> dict[str, Any]:
    """The state file's JSON; :class:`NotAttachableError` naming what is wrong with it."""
    try:
        state = json.loads(text)
    except ValueError as error:
        raise NotAttachableError(f"{path} is not JSON: {error}") from None
    missing = [key for key in STATE_KEYS if not isinstance(state, dict) or key not in state]
    if missing:
        raise NotAttachableError(
            f"{path} is not a state file of `{SERVE_COMMAND}`: no {', '.join(missing)}"
        )
    ports = state["ports"]
    if not isinstance(ports, dict) or not isinstance(ports.get(""), int):
        raise NotAttachableError(f'{path}: ports has no default listener ("")')
    for account in ("suite", "target"):
        if not isinstance(state[account], dict) or "password" not in state[account]:
            raise NotAttachableError(f"{path}: {account} has no password")
    return state


def _ldif_line(name: str, value: str) -> str:
    return f"{name}: {value}\n"


# Classes of msmq.schema: AD keeps distinguishedName on every object of them.
AD_CLASSES = frozenset(
    {"domaindns", "container", "configuration", "computer", "msmqconfiguration", "msmqqueue"}
)


def with_distinguished_name(entry: LdapEntry) -> dict[str, list[bytes | str]]:
    """The entry's attributes, plus ``distinguishedName`` (its DN) on an AD-class object
    that lacks it: AD maintains that attribute on every object, and clients may ask for it."""
    attributes = dict(entry.attributes)
    names = {name.lower(): name for name in attributes}
    classes = {str(value).lower() for value in attributes.get(names.get("objectclass", ""), [])}
    if classes & AD_CLASSES and "distinguishedname" not in names:
        attributes["distinguishedName"] = [entry.dn]
    return attributes


def refusal(dn: str, attributes: Mapping[str, object], result: Mapping[str, object]) -> str:
    """One line for an entry the server refused: the DN, the attribute, the server's words.

    The attribute is the first of the entry's own the server's message names (slapd says
    ``mSMQJournal: value #0 invalid per syntax`` or ``attribute 'x' not allowed``).

    >>> refusal("CN=q", {"cn": ["q"], "mSMQJournal": ["7"]},
    ...         {"result": 21, "description": "invalidAttributeSyntax",
    ...          "message": "mSMQJournal: bad"})
    'the directory refused CN=q: attribute mSMQJournal: bad (LDAP 21 invalidAttributeSyntax)'
    """
    message = str(result.get("message") or "").strip()
    description = str(result.get("description") or "")
    named = {name.lower(): name for name in attributes if name.lower() != "objectclass"}
    words = re.findall(r"[A-Za-z][\w-]*", message)
    attribute = next((named[w.lower()] for w in words if w.lower() in named), "")
    said = message or description
    if attribute and said.startswith(f"{attribute}: "):
        said = said[len(attribute) + 2 :]  # slapd starts with the attribute's name
    which = f"attribute {attribute}: " if attribute else ""
    return f"the directory refused {dn}: {which}{said} (LDAP {result.get('result')} {description})"


# --- the directory -----------------------------------------------------------------------------


class SlapdDirectory:
    """A slapd of its own on 127.0.0.1 (see the module).  Use as a context manager, or
    :meth:`start` then :meth:`stop` (also run at interpreter exit if forgotten)."""

    def __init__(
        self,
        folder: Path | None = None,
        *,
        root: str = DEFAULT_ROOT,
        server_names: Sequence[str] = (),
        ports: Mapping[str, int] | None = None,
        schema: Path = SCHEMA,
        slapd: str | None = None,
        search_path: str | None = None,
        module_path: Path = MODULE_PATH,
        core_schema: Path = CORE_SCHEMA,
        start_timeout: float = START_TIMEOUT,
    ) -> None:
        first = root.split(",", 1)[0].strip()
        if not first.lower().startswith("dc="):
            raise ValueError(f"the root naming context must start with DC=..., not {root!r}")
        self.root = root
        self.server_names = tuple(server_names)
        self._fixed_ports = dict(ports or {})
        unknown = set(self._fixed_ports) - {"", *self.server_names}
        if unknown:
            raise ValueError(f"ports given for listeners that do not exist: {sorted(unknown)}")
        self.schema = Path(schema)
        self._slapd_program = slapd
        self._search_path = search_path
        self.module_path = module_path
        self.core_schema = core_schema
        self.start_timeout = start_timeout
        self._own_folder = folder is None
        self.folder = Path(folder) if folder is not None else None
        self._ports: dict[str, int] = {}
        self._process: subprocess.Popen[bytes] | None = None
        self._log = StatsLog()
        self._read_position = 0
        self._suite_password = secrets.token_urlsafe(18)
        self._target_password = secrets.token_urlsafe(18)
        self._resume_timer: threading.Timer | None = None
        self._proxies: list[SlowProxy] = []
        self._slapd: Path | None = None
        self._attached_pid: int | None = None  # the slapd of a served directory (attach())
        self._attach_lock: IO[str] | None = None  # held while attached: one run at a time
        self._state_file: Path | None = None  # written by write_state(), removed by stop()
        self.start_seconds: float | None = None  # how long the last start took

    # --- names -----------------------------------------------------------------------------

    @property
    def suite_dn(self) -> str:
        return f"CN=mqcn-suite,{self.root}"

    @property
    def target_dn(self) -> str:
        return f"CN=mqcn-target,CN=Users,{self.root}"

    @property
    def configuration_nc(self) -> str:
        return f"CN=Configuration,{self.root}"

    @property
    def computers_dn(self) -> str:
        return f"CN=Computers,{self.root}"

    @property
    def url(self) -> str:
        """The default listener's URL."""
        return self.urls[""]

    @property
    def urls(self) -> dict[str, str]:
        """Listener name ("" the default, else a server name) -> ``ldap://127.0.0.1:port``."""
        return {name: f"ldap://{HOST}:{port}" for name, port in self._ports.items()}

    @property
    def listeners(self) -> dict[str, str]:
        """``127.0.0.1:port`` (as the log names a listener) -> listener name ("" the default)."""
        return {f"{HOST}:{port}": name for name, port in self._ports.items()}

    @property
    def log_path(self) -> Path:
        assert self.folder is not None, "the directory was never started"
        return self.folder / "slapd.log"

    @property
    def conf_path(self) -> Path:
        assert self.folder is not None, "the directory was never started"
        return self.folder / "slapd.conf"

    def _credentials(self, dn: str, password: str) -> DirectoryCredentials:
        return DirectoryCredentials(self.url, dn, password, self.root)

    @property
    def target_credentials(self) -> DirectoryCredentials:
        """The read-only account a target binds with."""
        return self._credentials(self.target_dn, self._target_password)

    def reset_ldap_params(self) -> dict[str, object]:
        """The ``ldap`` object of a ``reset`` in LDAP mode (docs/adapter-protocol.md): the
        target's credentials and ``servers``, each DomainController name -> its listener."""
        credentials = self.target_credentials
        return {
            "url": credentials.url,
            "bind_dn": credentials.bind_dn,
            "password": credentials.password,
            "naming_context": credentials.naming_context,
            "servers": {name: url for name, url in self.urls.items() if name},
        }

    @property
    def suite_credentials(self) -> DirectoryCredentials:
        """The suite's own writer (the rootdn)."""
        return self._credentials(self.suite_dn, self._suite_password)

    @property
    def running(self) -> bool:
        if self._attached_pid is not None:
            return _alive(self._attached_pid)
        return self._process is not None and self._process.poll() is None

    @property
    def attached(self) -> bool:
        """Attached to a served directory (:meth:`attach`): the suite never starts or stops it."""
        return self._attached_pid is not None

    # --- serving by hand, attaching ----------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """What a run needs to use this server: root, folder, ports by listener name ("" the
        default), both accounts, the log's path and slapd's pid."""
        if self.pid is None or self.folder is None:
            raise DirectoryFixtureError("the directory is not running: it has no state")
        return {
            "root": self.root,
            "folder": str(self.folder),
            "ports": dict(self._ports),
            "suite": {"bind_dn": self.suite_dn, "password": self._suite_password},
            "target": {"bind_dn": self.target_dn, "password": self._target_password},
            "log": str(self.log_path),
            "pid": self.pid,
        }

    def write_state(self) -> Path:
        """Write :meth:`state` to :func:`state_path` of the default port (mode 0600: it holds
        both passwords), for :meth:`attach`; :meth:`stop` removes it."""
        path = state_path(self._ports[""])
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as sink:
            json.dump(self.state(), sink, indent=1)
        os.replace(partial, path)  # whole or not at all, for a run that reads it now
        self._state_file = path
        return path

    @classmethod
    def attach(cls, url: str, timeout: float = SYNC_TIMEOUT) -> SlapdDirectory:
        """The directory ``mqcn directory serve`` runs at ``url`` (its default listener),
        rebuilt from its state file: it loads, marks, reads the log, binds and syncs, and never
        starts or stops slapd (:meth:`stop` lets it go).  One run at a time may be attached.

        :class:`NotAttachableError` when no served directory listens there (one line saying
        how to start one), when the state file is not one, or when another run holds it."""
        port = attachable_port(url)
        path = state_path(port)
        start_one = f"start one with `{SERVE_COMMAND} --port {port}`"
        try:
            text = path.read_text("utf-8")
        except FileNotFoundError:
            raise NotAttachableError(
                f"no directory started by `{SERVE_COMMAND}` listens at {url} (no {path}): "
                f"only such a server can be attached; {start_one}"
            ) from None
        except OSError as error:
            raise NotAttachableError(f"cannot read {path}: {error.strerror or error}") from None
        state = _parse_state(path, text)
        ports = {str(name): int(number) for name, number in state["ports"].items()}
        directory = cls(
            Path(state["folder"]),
            root=state["root"],
            server_names=[name for name in ports if name],
            ports=ports,
        )
        directory._own_folder = False
        directory._ports = ports
        directory._suite_password = state["suite"]["password"]
        directory._target_password = state["target"]["password"]
        directory._attached_pid = int(state["pid"])
        if not directory.running or not directory.log_path.exists():
            raise NotAttachableError(
                f"the directory {path} describes is gone (process {state['pid']} ended): "
                f"{start_one}"
            )
        directory._hold(path)
        try:  # it answers, and the passwords are its own
            directory._connection(directory.suite_credentials, timeout).unbind()
        except DirectoryFixtureError as error:
            directory.stop()
            raise NotAttachableError(f"the directory at {url} ({path}): {error}") from None
        return directory

    def _hold(self, path: Path) -> None:
        """Lock the state file for this run (released by :meth:`stop` or at exit)."""
        handle = path.open("r", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise NotAttachableError(
                f"another run is attached to the directory of {path}: a served directory "
                "serves one run at a time (no `-n` either; start another server for another run)"
            ) from None
        self._attach_lock = handle

    # --- configuration ---------------------------------------------------------------------

    def _config(self) -> str:
        assert self.folder is not None
        folder = self.folder
        return "".join(
            [
                "# written by mqcn_suite.directory.slapd (one fixture start)\n",
                f'include "{self.core_schema}"\n',
                f'include "{self.schema}"\n',
                f'pidfile "{folder / "slapd.pid"}"\n',
                f'argsfile "{folder / "slapd.args"}"\n',
                f'modulepath "{self.module_path}"\n',
                "moduleload back_mdb\n",
                "moduleload rwm\n",
                # a subtree search from base "" (MS-MQDSSM 3.1.6.19) is served from the root
                f'defaultsearchbase "{self.root}"\n',
                f'rootDSE "{folder / "rootdse.ldif"}"\n',
                "sizelimit unlimited\n",
                # anyone may read the rootDSE and the schema, as in AD
                'access to dn.base="" by * read\n',
                'access to dn.base="cn=Subschema" by * read\n',
                "database mdb\n",
                f'suffix "{self.root}"\n',
                f'rootdn "{self.suite_dn}"\n',
                f'rootpw "{self._suite_password}"\n',
                f'directory "{folder / "db"}"\n',
                "maxsize 67108864\n",
                "dbnosync\n",  # a throwaway test database: no fsync per write
                "index objectClass eq\n",
                "index objectGUID eq\n",
                "access to attrs=userPassword by anonymous auth by * none\n",
                f'access to * by dn.exact="{self.target_dn}" read by * none\n',
                f'include "{RWM_RULES}"\n',
            ]
        )

    def _rootdse(self) -> str:
        return "".join(
            [
                "dn:\n",
                _ldif_line("configurationNamingContext", self.configuration_nc),
                _ldif_line("rootDomainNamingContext", self.root),
                _ldif_line("defaultNamingContext", self.root),
            ]
        )

    def _base_entries(self) -> list[LdapEntry]:
        dc = self.root.split(",", 1)[0].split("=", 1)[1].strip()
        return [
            LdapEntry(self.root, {"objectClass": ["domainDNS"], "dc": [dc]}),
            LdapEntry(self.configuration_nc, {"objectClass": ["configuration"]}),
            LdapEntry(self.computers_dn, {"objectClass": ["container"]}),
            LdapEntry(f"CN=Users,{self.root}", {"objectClass": ["container"]}),
            LdapEntry(
                self.target_dn,
                {
                    "objectClass": ["person"],
                    "sn": ["mqcn-target"],
                    "userPassword": [ssha(self._target_password)],
                },
            ),
        ]

    # --- start and stop --------------------------------------------------------------------

    def _choose_ports(self) -> None:
        self._ports = {}
        for name in ["", *self.server_names]:
            port = self._fixed_ports.get(name)
            if port is None:
                port = free_port()
                while port in self._ports.values() or port in self._fixed_ports.values():
                    port = free_port()  # the kernel may hand out a port twice
            elif not port_is_free(port):
                raise PortInUseError(self._port_message(port))
            self._ports[name] = port

    def _port_message(self, port: int) -> str:
        name = next((n for n, p in self._ports.items() if p == port), None)
        if name is None:
            name = next((n for n, p in self._fixed_ports.items() if p == port), "")
        which = f"the listener for {name!r}" if name else "the default listener"
        return f"port {HOST}:{port} ({which}) is in use: the directory cannot listen there"

    def _slaptest(self, dry_run: bool) -> tuple[int, str]:
        """slaptest (``slapd -Tt``) on the configuration: its status and its reason, one line.

        ``dry_run`` (``-u``) leaves the database unopened."""
        assert self._slapd is not None
        check = subprocess.run(
            [str(self._slapd), "-Tt", *(["-u"] if dry_run else []), "-f", str(self.conf_path)],
            capture_output=True,
            text=True,
            timeout=self.start_timeout,
            check=False,
        )
        lines = [ln.strip() for ln in check.stderr.splitlines() if ln.strip()]
        return check.returncode, " | ".join(lines[-LOG_TAIL:]) or f"exit status {check.returncode}"

    def _check_config(self) -> None:
        """slaptest before the start: a refused schema says why (slapd's stats log would not)."""
        status, reason = self._slaptest(dry_run=True)
        if status == 0:
            return
        if str(self.schema) in reason or self.schema.name in reason:
            raise SchemaRefusedError(f"slapd refuses the schema {self.schema}: {reason}")
        raise SlapdExitedError(f"slapd refuses its configuration {self.conf_path}: {reason}")

    def start(self) -> SlapdDirectory:
        """Write the configuration, start slapd, wait until it answers, write the base tree.

        Whatever fails, nothing is left running (and a folder of its own is removed)."""
        began = time.monotonic()
        if self.attached:
            raise DirectoryFixtureError("an attached directory is started by its own server")
        self._slapd = find_slapd(self._slapd_program, self._search_path)
        atexit.register(self.stop)
        try:
            if self.folder is None:
                self.folder = Path(tempfile.mkdtemp(prefix="mqcn-slapd-"))
            self.folder.mkdir(parents=True, exist_ok=True)
            # every start is a new directory: an empty database, a new log
            shutil.rmtree(self.folder / "db", ignore_errors=True)
            (self.folder / "db").mkdir()
            self.log_path.write_bytes(b"")
            self._log, self._read_position = StatsLog(), 0
            self._choose_ports()
            self.conf_path.write_text(self._config(), "utf-8")
            self.conf_path.chmod(0o600)  # it holds the rootdn's password
            (self.folder / "rootdse.ldif").write_text(self._rootdse(), "utf-8")
            self._check_config()
            self._spawn()
            self._write(self._base_entries())
        except BaseException:
            self.stop()
            raise
        self.start_seconds = time.monotonic() - began
        return self

    def _spawn(self) -> None:
        assert self._slapd is not None
        listeners = " ".join(f"ldap://{HOST}:{port}/" for port in self._ports.values())
        for port in self._ports.values():
            if not port_is_free(port):
                raise PortInUseError(self._port_message(port))
        with self.log_path.open("ab") as sink:
            self._process = subprocess.Popen(
                [str(self._slapd), "-d", "256", "-f", str(self.conf_path), "-h", listeners],
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                cwd=self.folder,
                start_new_session=True,  # its own process group: stopped as one
            )
        self._wait_ready()

    def log_tail(self, lines: int = LOG_TAIL) -> str:
        try:
            text = self.log_path.read_text("utf-8", "replace")
        except OSError:
            return "(no log)"
        tail = [ln.strip() for ln in text.splitlines() if ln.strip()][-lines:]
        return " | ".join(tail) or "(empty log)"

    def _wait_ready(self) -> None:
        """Until slapd says it started and every listener accepts; bounded."""
        assert self._process is not None
        deadline = time.monotonic() + self.start_timeout
        start_of_log = self._read_position
        while True:
            if self._process.poll() is not None:
                tail = self.log_tail()
                if "errno=98" in tail or "Address already in use" in tail:
                    # slapd does not say which port: the one something else answers on now
                    taken = [p for p in self._ports.values() if self._accepts(p)]
                    if taken:
                        raise PortInUseError(self._port_message(taken[0]))
                    ports = ", ".join(str(p) for p in self._ports.values())
                    raise PortInUseError(f"one of the ports {ports} on {HOST} is in use: {tail}")
                # the stats level does not log configuration errors: slaptest says them
                status, reason = self._slaptest(dry_run=False)
                said = f"{tail} | slaptest: {reason}" if status != 0 else tail
                raise SlapdExitedError(
                    f"slapd exited at start (status {self._process.returncode}): {said}"
                )
            if self._started_since(start_of_log) and all(
                self._accepts(port) for port in self._ports.values()
            ):
                return
            if time.monotonic() > deadline:
                raise SlapdExitedError(
                    f"slapd did not answer within {self.start_timeout:g} s: {self.log_tail()}"
                )
            time.sleep(0.02)

    def _started_since(self, offset: int) -> bool:
        with self.log_path.open("rb") as log:
            log.seek(offset)
            return b"slapd starting" in log.read()

    @staticmethod
    def _accepts(port: int) -> bool:
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        """Stop slapd by process group (SIGTERM, then SIGKILL), the proxies, the timer.

        Safe to call twice and on a directory that never started; a folder the directory
        made itself is removed, and so is its state file (:meth:`write_state`).  An attached
        directory is only let go: its proxies closed, its lock released; slapd runs on."""
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        if self._resume_timer is not None:
            self._resume_timer.cancel()
            self._resume_timer = None
        self.drop_proxies()
        if self._attach_lock is not None:
            self._attach_lock.close()  # releases the flock
            self._attach_lock = None
        if self.attached:
            return
        if self._state_file is not None:
            self._state_file.unlink(missing_ok=True)
            self._state_file = None
        self._stop_process()
        if self._own_folder and self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def _stop_process(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            stop_group(process, GRACE)

    @property
    def pid(self) -> int | None:
        """The slapd process id (its process group's id too), None when not running."""
        if self._attached_pid is not None:
            return self._attached_pid
        return self._process.pid if self._process is not None else None

    def __enter__(self) -> SlapdDirectory:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # --- failure helpers -------------------------------------------------------------------

    def stop_listening(self) -> None:
        """The server goes down: slapd stops; connections to every listener are refused.

        The data stays (the database is on disk); :meth:`start_listening` brings it back.
        The suite never stops an attached directory (:class:`DirectoryFixtureError`)."""
        if self.attached:
            raise DirectoryFixtureError(
                f"the suite does not stop a directory it did not start ({self.url} is served "
                f"by `{SERVE_COMMAND}`)"
            )
        if self._resume_timer is not None:
            self._resume_timer.cancel()
            self._resume_timer = None
        self._stop_process()

    def start_listening(self) -> None:
        """The server comes back: slapd again, on the same ports, with the same data.

        An attached directory that is gone is a :class:`DirectoryTimeoutError` (the suite
        does not start it)."""
        if self.running:
            return
        if self.attached:
            raise DirectoryTimeoutError(
                f"the served directory at {self.url} is gone (process {self.pid} ended)"
            )
        self._read_log()  # to the end: the new start's "slapd starting" is looked for after it
        self._spawn()

    def pause(self, seconds: float) -> None:
        """The server hangs for ``seconds``: SIGSTOP now, SIGCONT later (returns at once).

        While paused the kernel still accepts connections; no request gets an answer, so a
        client waits for its own timeout.  :meth:`resume` ends the pause early.  Not on an
        attached directory (:class:`DirectoryFixtureError`)."""
        if self.attached:
            raise DirectoryFixtureError("the suite does not pause a directory it did not start")
        if self._process is None:
            raise DirectoryFixtureError("cannot pause the directory: slapd is not running")
        os.killpg(self._process.pid, signal.SIGSTOP)
        self._resume_timer = threading.Timer(seconds, self.resume)
        self._resume_timer.daemon = True
        self._resume_timer.start()

    def resume(self) -> None:
        """End a pause (SIGCONT)."""
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGCONT)

    def restore(self) -> None:
        """Undo every failure helper: the server up, not paused, no slow proxy."""
        if self._resume_timer is not None:
            self._resume_timer.cancel()
            self._resume_timer = None
        self.resume()
        self.drop_proxies()
        self.start_listening()

    def drop_proxies(self) -> None:
        """Close every proxy :meth:`slow_url` made: their URLs refuse connections from now on
        (how a served directory is "down" for a target without being stopped)."""
        for proxy in self._proxies:
            proxy.close()
        self._proxies.clear()

    def slow_url(self, name: str = "", delay: float = 1.0) -> str:
        """The URL of a slow copy of listener ``name``: each request is held ``delay`` s."""
        if name not in self._ports:
            raise KeyError(f"no listener named {name!r}")
        proxy = SlowProxy(self._ports[name], delay)
        self._proxies.append(proxy)
        return proxy.url

    # --- writing ---------------------------------------------------------------------------

    def _connection(self, credentials: DirectoryCredentials, timeout: float) -> ldap3.Connection:
        import ldap3  # the client is needed only here (the project's LDAP client)

        from mqcn_suite.directory.ldap_client import connection as open_connection

        connection = open_connection(
            credentials.url, credentials.bind_dn, credentials.password, timeout
        )
        try:
            bound = connection.bind()
        except ldap3.core.exceptions.LDAPException as error:
            raise DirectoryTimeoutError(
                f"the directory at {credentials.url} did not answer: {error}"
            ) from error
        if not bound:
            raise DirectoryFixtureError(
                f"the directory at {credentials.url} refused the bind of {credentials.bind_dn}: "
                f"{connection.result.get('description')}"
            )
        return connection

    def _write(self, entries: Sequence[LdapEntry], timeout: float = 10.0) -> None:
        connection = self._connection(self.suite_credentials, timeout)
        try:
            for entry in sorted(entries, key=lambda e: dn_depth(e.dn)):  # parents first
                attributes = with_distinguished_name(entry)
                if not connection.add(entry.dn, attributes=attributes):
                    result = connection.result
                    raise DirectoryValueError(refusal(entry.dn, attributes, result))
        finally:
            connection.unbind()

    def load(self, entries: Sequence[LdapEntry]) -> None:
        """Replace everything below ``CN=Computers,<root>`` with ``entries`` (parents first).

        Entries naming the fixture's own base tree (the root, the three containers, the
        target account) are taken as already there; any other entry outside
        ``CN=Computers`` is refused, as is any the server refuses (:class:`DirectoryValueError`
        names the DN, the attribute and the server's message)."""
        base = {dn_key(entry.dn) for entry in self._base_entries()}
        computers = dn_key(self.computers_dn)
        wanted = []
        for entry in entries:
            key = dn_key(entry.dn)
            if key in base:
                continue
            if not key.endswith("," + computers):
                raise DirectoryValueError(
                    f"the directory refused {entry.dn}: the fixture holds scenario objects "
                    f"only below {self.computers_dn} (MS-MQDSSM 2.2.1)"
                )
            wanted.append(entry)
        self.clear()
        self._write(wanted)

    def clear(self, timeout: float = 10.0) -> None:
        """Delete everything below ``CN=Computers,<root>`` (the container stays)."""
        import ldap3

        connection = self._connection(self.suite_credentials, timeout)
        try:
            connection.search(
                self.computers_dn, "(objectClass=*)", ldap3.SUBTREE, attributes=["1.1"]
            )
            dns = [
                item["dn"]
                for item in connection.response or []
                if item.get("type") == "searchResEntry"
            ]
            for dn in sorted(dns, key=dn_depth, reverse=True):  # children first
                if dn_key(dn) != dn_key(self.computers_dn):
                    connection.delete(dn)
        finally:
            connection.unbind()

    # --- observing -------------------------------------------------------------------------

    def _read_log(self) -> None:
        if self.folder is None or not self.log_path.exists():
            return
        with self.log_path.open("rb") as log:
            log.seek(self._read_position)
            data = log.read()
        self._read_position += len(data)
        self._log.feed(data)

    def mark(self) -> int:
        """The log's size now: :meth:`searches` and :meth:`binds` from here on are new."""
        return self.log_path.stat().st_size

    def searches(self, since: int = 0) -> list[LdapSearch]:
        """Every search the server logged from byte ``since`` on (the suite's own included:
        they are bound as :attr:`suite_credentials`)."""
        self._read_log()
        return self._log.searches(since)

    def binds(self, since: int = 0) -> list[LdapBind]:
        """Every bind the server logged from byte ``since`` on, with its result code."""
        self._read_log()
        return self._log.binds(since)

    def sync(self, timeout: float = SYNC_TIMEOUT) -> None:
        """Until the log holds every search made before now, with its result; bounded.

        The suite searches for a marker no entry has (``(cn=mqcn-sync-...)``, as the
        rootdn); once the log shows that search's result and every earlier search settled
        (answered, abandoned, or its connection gone), the log is complete up to now."""
        import ldap3

        marker = f"(cn={SYNC_MARK}{secrets.token_hex(8)})"
        deadline = time.monotonic() + timeout
        connection = self._connection(self.suite_credentials, timeout)
        try:
            connection.search(self.root, marker, ldap3.BASE, attributes=["1.1"])
        except ldap3.core.exceptions.LDAPException as error:
            raise DirectoryTimeoutError(
                f"the directory did not answer the suite's marker search: {error}"
            ) from error
        finally:
            with contextlib.suppress(Exception):
                connection.unbind()
        grace_until: float | None = None
        while True:
            self._read_log()
            state = self._log.state_of(marker)
            if state is not None and state[1] and not self._log.unsettled(before=state[0]):
                # a search cut off by its connection's close may still have its result
                # logged late by another thread: wait a moment for it, no more
                now = time.monotonic()
                grace_until = grace_until or now + LATE_RESULT_GRACE
                if not self._log.unanswered(before=state[0]) or now >= grace_until:
                    return
            if time.monotonic() > deadline:
                waiting = self._log.unsettled(before=state[0] if state else None)
                raise DirectoryTimeoutError(
                    f"the directory log did not settle within {timeout:g} s "
                    f"({len(waiting)} search(es) without a result)"
                )
            time.sleep(0.01)
