"""``mqcn directory serve``: the suite's LDAP directory alone, for a vendor to look at by hand.

``mqcn directory serve [--port P] [--server NAME]... [--root DN] [--data FILE | --report DIR
--scenario TEXT] [--for SECONDS]`` starts the fixture directory
(:class:`~mqcn_suite.directory.slapd.SlapdDirectory`: OpenLDAP laid out as Active Directory,
docs/directory.md), writes into it

* ``--data FILE``: a YAML or JSON file holding the ``setup.directory`` of the adapter protocol
  (``{"queues": [{"owner": guid, "queue": {...}}], "queue_managers": [{...}]}``) or a whole
  ``setup`` / ``reset`` params object (its ``directory``; its ``qm_guid`` and ``computer``
  place the queue manager under test);
* ``--report DIR --scenario TEXT``: what the scenario whose name holds TEXT published, as
  ``mqcn run`` recorded it in ``DIR/traceability.json``;
* nothing: the base tree only,

with the entries the suite's LDAP mode writes
(:func:`mqcn_suite.directory.ldap_session.scenario_entries`), prints the URLs, the target's and the
suite's accounts, the naming context, the servers and the objects, and serves until Ctrl-C
(or SIGTERM, or ``--for`` seconds): slapd is stopped by process group, exit 0.

While it serves, a state file (``$TMPDIR/mqcn-directory-<port>.json``, mode 0600) lets
``mqcn run --directory ldap://127.0.0.1:<port>`` attach to it
(:meth:`~mqcn_suite.directory.slapd.SlapdDirectory.attach`).

Exit codes: 0 served and stopped; 2 a usage error or a directory that cannot start (slapd
not installed, a port in use, data it refuses), one line; 3 slapd ended on its own, or an
internal error.
"""

from __future__ import annotations

import json
import signal
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer
import yaml
from rich.console import Console
from rich.markup import escape

from mqcn_suite.commands._common import (
    PROG,
    ExitCode,
    UsageError,
    boundary,
    command_group,
    fail,
    parse_int,
    parse_seconds,
    read_user_file,
)
from mqcn_suite.targets.base import Setup

if TYPE_CHECKING:
    from mqcn_model.ldap_records import LdapEntry
    from mqcn_suite.directory.slapd import SlapdDirectory

COMMAND = "directory serve"
TICK = 0.2  # how often the loop checks that slapd still runs
SHOWN_CANDIDATES = 6  # scenario names quoted in an error

SERVE_HELP = (
    "Start the suite's LDAP directory (OpenLDAP laid out as Active Directory) alone, loaded "
    "with --data FILE (YAML/JSON: a reset's setup.directory or a whole setup) or with what a "
    "scenario of a report published (--report DIR --scenario TEXT), or empty; print its URL, "
    "the target's and the suite's bind DN and password, the naming context and the servers, "
    "and serve until Ctrl-C (exit 0). `mqcn run --directory ldap://127.0.0.1:PORT` attaches a "
    "run to it. Exit 0 stopped, 2 usage error or a directory that cannot start, 3 slapd ended "
    "on its own."
)


class _Stopped(Exception):
    """SIGTERM: stop serving as Ctrl-C does."""


# --- the data ---------------------------------------------------------------------------------


def setup_from_document(document: object, source: str) -> Setup:
    """The Setup whose directory ``document`` describes: a ``setup.directory`` object, or a
    whole ``setup`` / ``reset`` params object (its ``directory``, ``qm_guid``, ``computer``).

    :class:`UsageError` naming ``source`` and what is wrong (the shape, a member, an entry)."""
    if not isinstance(document, dict):
        raise UsageError(
            f"{source}: expected a mapping (a setup.directory or a whole setup), "
            f"not {type(document).__name__}"
        )
    setup = Setup()
    if "directory" in document:  # a whole setup / reset params object
        for name in ("qm_guid", "computer"):
            if name not in document:
                continue
            value = document[name]
            try:
                setattr(setup, name, uuid.UUID(value) if name == "qm_guid" else str(value))
            except (TypeError, ValueError, AttributeError):
                raise UsageError(f"{source}: {name} {value!r} is not a GUID") from None
        directory = document["directory"]
        where = f"{source}: directory"
    else:
        directory, where = document, source
    if not isinstance(directory, dict):
        raise UsageError(f"{where}: expected a mapping, not {type(directory).__name__}")
    unknown = sorted(set(directory) - {"queues", "queue_managers", "ldap"})
    if unknown or not {"queues", "queue_managers"} & set(directory):
        raise UsageError(
            f"{where}: expected the setup.directory shape "
            '{"queues": [{"owner": GUID, "queue": {...}}], "queue_managers": [{...}]} '
            f"or a whole setup; found the members {sorted(directory) or 'none'}"
        )
    queues = directory.get("queues") or []
    managers = directory.get("queue_managers") or []
    if not isinstance(queues, list) or not isinstance(managers, list):
        raise UsageError(f"{where}: queues and queue_managers are lists")
    for index, entry in enumerate(queues):
        if not isinstance(entry, dict) or not isinstance(entry.get("queue"), dict):
            raise UsageError(f'{where}: queues[{index}] is not {{"owner": GUID, "queue": {{...}}}}')
        if "Identifier" not in entry["queue"]:
            raise UsageError(f"{where}: queues[{index}].queue has no Identifier")
    for index, entry in enumerate(managers):
        if not isinstance(entry, dict):
            raise UsageError(f"{where}: queue_managers[{index}] is not a mapping")
        if "Identifier" not in entry:
            raise UsageError(f"{where}: queue_managers[{index}] has no Identifier")
    setup.directory_queues = [dict(entry) for entry in queues]
    setup.directory_queue_managers = [dict(entry) for entry in managers]
    return setup


def setup_from_file(name: str) -> Setup:
    """``--data FILE``: YAML (JSON is YAML) holding a directory (see
    :func:`setup_from_document`)."""
    text = read_user_file("--data", name)
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise UsageError(f"--data {name}: not YAML or JSON{where}: {problem}") from None
    return setup_from_document(document, f"--data {name}")


def scenario_directory(report: str, text: str) -> tuple[str, dict[str, Any] | None]:
    """The name of the one scenario of ``report``'s traceability.json whose name holds
    ``text`` (any case; an exact name wins), and what it published (its entry of the
    document's ``directories``; None: nothing).

    :class:`UsageError` when the report cannot be read, or when no scenario or several match
    (the candidates listed)."""
    path = Path(report) / "traceability.json"
    if not Path(report).is_dir():
        raise UsageError(f"--report {report}: not a folder (a report `mqcn run` wrote)")
    try:
        document = json.loads(read_user_file("--report", str(path)))
    except ValueError as error:
        raise UsageError(f"--report {path}: not JSON: {error}") from None
    ran: dict[str, dict[str, Any]] = {}  # nodeid -> its entry (one per requirement it touches)
    for requirement in document.get("requirements", []) if isinstance(document, dict) else []:
        for entry in requirement.get("scenarios", []):
            if entry.get("nodeid"):
                ran.setdefault(entry["nodeid"], entry)
    if not ran:
        raise UsageError(f"--report {path}: no scenario ran in this report")
    wanted = text.strip().lower()
    if not wanted:
        raise UsageError("--scenario: the text is empty")
    directories = document.get("directories") or {}
    found = [e for e in ran.values() if wanted in e["name"].lower()]
    exact = [e for e in found if e["name"].lower() == wanted]
    found = exact or found
    if len(found) == 1:
        return found[0]["name"], directories.get(found[0]["nodeid"])
    if not found:
        published = sorted({e["name"] for e in ran.values() if e["nodeid"] in directories})
        raise UsageError(
            f"--scenario {text!r}: no scenario of {path} has it in its name; "
            f"{len(published)} published a directory, e.g. {_listed(published)}"
        )
    raise UsageError(
        f"--scenario {text!r}: {len(found)} scenarios of {path} match: "
        f"{_listed(sorted(e['name'] for e in found))}"
    )


def _listed(names: list[str]) -> str:
    shown = "; ".join(repr(name) for name in names[:SHOWN_CANDIDATES])
    more = len(names) - SHOWN_CANDIDATES
    return f"{shown} and {more} more" if more > 0 else shown or "none"


def entries_of(setup: Setup, root: str, source: str) -> list[LdapEntry]:
    """The LDAP entries the suite writes for ``setup`` (its LDAP mode's own function);
    :class:`UsageError` naming ``source`` for an object or a value with no LDAP form."""
    from mqcn_model.errors import DirectoryValueError
    from mqcn_suite.directory.ldap_session import scenario_entries

    try:
        return scenario_entries(setup, root)
    except DirectoryValueError as error:
        raise UsageError(f"{source}: {error}") from None
    except (KeyError, TypeError, ValueError) as error:
        reason = f"no {error}" if isinstance(error, KeyError) else str(error)
        raise UsageError(
            f"{source}: not a queue or queue manager of the ADM JSON: {reason}"
        ) from None


# --- the command ------------------------------------------------------------------------------


def serve(
    port: Annotated[
        str,
        typer.Option(
            "--port", metavar="P", help="TCP port of the default listener (0: a free one)."
        ),
    ] = "0",
    servers: Annotated[
        list[str] | None,
        typer.Option(
            "--server",
            metavar="NAME",
            help="A DomainController name with a listener of its own (repeatable).",
            show_default=False,
        ),
    ] = None,
    root: Annotated[
        str, typer.Option("--root", metavar="DN", help="The root naming context.")
    ] = "DC=mqcn,DC=example",
    data: Annotated[
        str | None,
        typer.Option(
            "--data",
            metavar="FILE",
            help="YAML/JSON: a reset's setup.directory, or a whole setup.",
            show_default=False,
        ),
    ] = None,
    report: Annotated[
        str | None,
        typer.Option(
            "--report",
            metavar="DIR",
            help="A report of `mqcn run` (with --scenario).",
            show_default=False,
        ),
    ] = None,
    scenario: Annotated[
        str | None,
        typer.Option(
            "--scenario",
            metavar="TEXT",
            help="The scenario of --report whose name holds TEXT.",
            show_default=False,
        ),
    ] = None,
    for_seconds: Annotated[
        str | None,
        typer.Option(
            "--for", metavar="SECONDS", help="Serve that long, then stop.", show_default=False
        ),
    ] = None,
) -> None:
    """``mqcn directory serve`` (see the module docstring)."""
    from mqcn_suite.directory.fixture_errors import DirectoryFixtureError, DirectoryValueError

    with boundary(COMMAND, usage_errors=(DirectoryFixtureError,)):
        number = parse_int("--port", port)
        if not 0 <= number <= 65535:
            raise UsageError(f"--port {port}: not a TCP port (0..65535)")
        seconds = parse_seconds("--for", for_seconds) if for_seconds is not None else None
        names = list(dict.fromkeys(servers or []))
        if any(not name.strip() for name in names):
            raise UsageError("--server: a name is empty")
        setup, source = _chosen_data(data, report, scenario)
        directory = _directory(root, names, number)
        entries = entries_of(setup, directory.root, source)  # bad data: before slapd starts
        try:
            directory.start()
            try:
                directory.load(entries)
            except DirectoryValueError as error:
                raise UsageError(f"{source}: {error}") from None
            state = directory.write_state()
            console = Console(highlight=False, soft_wrap=True)
            pid = directory.pid
            with _sigterm_stops():  # from the first line printed: a stop is never a traceback
                try:
                    _print_served(console, directory, entries, source, state)
                    code = _serve_until_stopped(directory, seconds)
                except (KeyboardInterrupt, _Stopped):
                    code = ExitCode.OK
            said = directory.log_tail() if code != ExitCode.OK else ""
        finally:
            directory.stop()
        if code != ExitCode.OK:
            fail(COMMAND, f"error: slapd ended on its own: {said}", code)
        console.print(f"{PROG} {COMMAND}: stopped slapd (process group {pid}); {state} removed")
        raise typer.Exit(int(ExitCode.OK))


def _chosen_data(data: str | None, report: str | None, scenario: str | None) -> tuple[Setup, str]:
    """The Setup to load and where it came from (for messages)."""
    if data is not None and (report is not None or scenario is not None):
        raise UsageError("--data and --report/--scenario: give one source of data")
    if (report is None) != (scenario is None):
        raise UsageError("--report and --scenario go together")
    if data is not None:
        return setup_from_file(data), f"--data {data}"
    if report is not None and scenario is not None:
        name, directory = scenario_directory(report, scenario)
        source = f"scenario {name!r} of {report}"
        if directory is None:
            return Setup(), f"{source} (it published nothing)"
        return setup_from_document(directory, source), source
    return Setup(), "no data (the base tree)"


def _directory(root: str, names: list[str], port: int) -> SlapdDirectory:
    """The directory to start: its default listener on ``port`` (0: a free one)."""
    from mqcn_suite.directory.slapd import SlapdDirectory

    try:
        directory = SlapdDirectory(
            root=root, server_names=names, ports={"": port} if port else None
        )
    except ValueError as error:
        raise UsageError(f"--root {root}: {error}") from None
    return directory


def _print_served(
    console: Console,
    directory: SlapdDirectory,
    entries: list[LdapEntry],
    source: str,
    state: Path,
) -> None:
    """What a vendor needs to attach a queue manager, and what the directory holds."""
    from mqcn_model import dssm

    target, suite = directory.target_credentials, directory.suite_credentials
    objects = dssm.directory_objects(entries)
    lines = [
        ("url", directory.url),
        ("naming context", directory.root),
        ("target bind DN", target.bind_dn),
        ("target password", target.password),
        ("suite bind DN", suite.bind_dn),
        ("suite password", suite.password),
        ("slapd log", str(directory.log_path)),
        ("state file", str(state)),
        ("pid", str(directory.pid)),
    ]
    console.print(f"{PROG} {COMMAND}: serving {escape(source)}, {len(objects)} object(s)")
    for label, value in lines:
        console.print(f"{label + ':':17}{escape(value)}")
    # plain aligned lines, not a table: a DN or a URL is copied whole, never folded
    listeners = [("(default)", directory.url)]
    listeners += [(name, url) for name, url in directory.urls.items() if name]
    width = max(len(name) for name, _ in listeners)
    console.print("servers (DomainController name -> listener):")
    for name, url in listeners:
        console.print(f"  {escape(name):{width}}  {url}")
    if objects:
        console.print("objects (objectGUID, ADM type, DN):")
        for dn, guid, kind in objects:
            console.print(f"  {guid}  {kind:12}  {escape(dn)}")
    console.print(
        f"attach a run: mqcn run --directory {directory.url}   (Ctrl-C stops the directory)"
    )


@contextmanager
def _sigterm_stops() -> Iterator[None]:
    """SIGTERM ends serving as Ctrl-C does (the state file removed, slapd stopped)."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise _Stopped

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: only Ctrl-C and --for stop it
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _serve_until_stopped(directory: SlapdDirectory, seconds: float | None) -> ExitCode:
    """Until ``seconds`` (Ctrl-C and SIGTERM raise): OK; INTERNAL if slapd ends on its own."""
    deadline = None if seconds is None else time.monotonic() + seconds
    while deadline is None or time.monotonic() < deadline:
        if not directory.running:
            return ExitCode.INTERNAL
        time.sleep(TICK)
    return ExitCode.OK


def register(app: typer.Typer) -> None:
    """Add the ``directory`` group (``directory serve``) to ``app``."""
    group = command_group(
        "directory",
        help="The suite's LDAP directory (OpenLDAP laid out as Active Directory): `serve` "
        "starts it alone for a vendor to attach a queue manager by hand.",
    )
    group.command("serve", help=SERVE_HELP)(serve)
    app.add_typer(group, name="directory")
