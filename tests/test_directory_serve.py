"""``mqcn directory serve`` and runs attached to it (issue 21, item 6; docs/directory.md).

A served directory is a subprocess (``python -m mqcn_suite directory serve``) with ``TMPDIR``
set to the test's folder, so its state file lands there; the tests read what it prints, bind
with the printed target account (ldap3) and find the objects by GUID, stop it (``--for``,
Ctrl-C, SIGTERM) and check its process group is gone.  Attaching runs ``mqcn run --directory
ldap://127.0.0.1:PORT`` against it and reads the report.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ldap3
import pytest
from typer.testing import CliRunner

import mqcn_suite.cli as cli
from mqcn_model import dssm
from mqcn_suite.directory.fixture_errors import NotAttachableError
from mqcn_suite.directory.ldap_session import DirectorySession, scenario_entries
from mqcn_suite.directory.slapd import SlapdDirectory, dn_key, free_port, state_path
from mqcn_suite.targets.base import NotApplicable, Setup, TargetError

pytest_plugins = ["ldap_fixture"]
pytestmark = pytest.mark.xdist_group("ldap")

ROOT = Path(__file__).resolve().parent.parent
QUEUE = uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff")
QM = uuid.UUID("0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0")
DIRECTORY = {
    "queues": [
        {
            "owner": str(QM),
            "queue": {
                "Identifier": str(QUEUE),
                "Pathname": "qm7\\orders",
                "Label": "Orders",
                "Journaling": 1,
                "CreateTime": 1700000000,
                "ModifyTime": 1700000100,
                "Security": "0100048000000000000000000000000000000000",
            },
        }
    ],
    "queue_managers": [{"Identifier": str(QM), "Security": "01000480"}],
}
PRINTED = (
    "url",
    "naming context",
    "target bind DN",
    "target password",
    "suite bind DN",
    "suite password",
    "slapd log",
    "state file",
    "pid",
)
START_WAIT = 60.0  # seconds for a served directory to print its header (a loaded CI machine)
runner = CliRunner()


@pytest.fixture
def tmpdir_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The state files of this test go to its own folder (served and attaching alike)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@dataclass
class Served:
    """A ``mqcn directory serve`` subprocess and what it printed before serving."""

    process: subprocess.Popen[str]
    printed: dict[str, str]
    text: str
    lines: queue.Queue[str | None]

    @property
    def url(self) -> str:
        return self.printed["url"]

    @property
    def pid(self) -> int:
        return int(self.printed["pid"])

    def rest(self, timeout: float = 60) -> str:
        """Everything it prints until it exits."""
        out = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            if line is None:
                break
            out.append(line)
        return "".join(out)


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "mqcn_suite", "directory", "serve", *args]


@contextmanager
def served(*args: str) -> Iterator[Served]:
    """Start ``mqcn directory serve ARGS``; the header parsed; never left running."""
    process = subprocess.Popen(
        serve_command(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        start_new_session=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    text, deadline = "", time.monotonic() + START_WAIT
    try:
        while "attach a run:" not in text:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            assert line is not None, f"serve ended before serving: {text}"
            text += line
        printed = {}
        for label in PRINTED:
            found = re.search(rf"^{re.escape(label)}:\s+(\S+)\s*$", text, re.MULTILINE)
            assert found, (label, text)
            printed[label] = found.group(1)
        yield Served(process, printed, text, lines)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)


def group_gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def target_search(server: Served, search_filter: str) -> list[dict[str, Any]]:
    """Search the served directory as the target account the server printed."""
    connection = ldap3.Connection(
        ldap3.Server(server.url, get_info=ldap3.NONE),
        user=server.printed["target bind DN"],
        password=server.printed["target password"],
        raise_exceptions=True,
    )
    connection.bind()
    try:
        connection.search(
            server.printed["naming context"],
            search_filter,
            ldap3.SUBTREE,
            attributes=["objectClass", "mSMQLabelEx", "distinguishedName"],
        )
        return [dict(item) for item in connection.response if item["type"] == "searchResEntry"]
    finally:
        connection.unbind()


def by_guid(guid: uuid.UUID) -> str:
    return dssm.guid_filter(guid, "escaped")


# --- serving ----------------------------------------------------------------------------------


def test_an_empty_directory_serves_the_base_tree_until_for_ends(
    slapd_installed: Path, tmpdir_env: Path
) -> None:
    began = time.monotonic()
    with served("--for", "4", "--server", "dc1.example.com") as server:
        assert server.printed["naming context"] == "DC=mqcn,DC=example"
        assert server.printed["target bind DN"] == "CN=mqcn-target,CN=Users,DC=mqcn,DC=example"
        assert server.printed["suite bind DN"] == "CN=mqcn-suite,DC=mqcn,DC=example"
        assert re.search(r"^  dc1\.example\.com  ldap://127\.0\.0\.1:\d+$", server.text, re.M)
        state = Path(server.printed["state file"])
        assert state.parent == tmpdir_env and state.stat().st_mode & 0o777 == 0o600
        saved = json.loads(state.read_text())
        assert saved["pid"] == server.pid and set(saved["ports"]) == {"", "dc1.example.com"}
        assert saved["log"] == server.printed["slapd log"]
        found = target_search(server, "(objectClass=container)")
        assert {dn_key(item["dn"]) for item in found} == {
            "cn=computers,dc=mqcn,dc=example",
            "cn=users,dc=mqcn,dc=example",
        }
        assert server.process.wait(30) == 0
        rest = server.rest()
    assert 4 <= time.monotonic() - began < 30
    assert "stopped slapd" in rest
    assert not state.exists()
    assert group_gone(server.pid)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_stop_it_with_exit_0(
    slapd_installed: Path, tmpdir_env: Path, stop: signal.Signals
) -> None:
    with served() as server:
        state = Path(server.printed["state file"])
        assert state.exists()
        os.killpg(server.process.pid, stop)  # the terminal's Ctrl-C goes to the group
        assert server.process.wait(30) == 0, server.rest()
    assert not state.exists()
    assert group_gone(server.pid)


@pytest.mark.parametrize("form", ["directory", "setup"])
def test_data_from_a_yaml_file_is_found_by_guid(
    slapd_installed: Path, tmpdir_env: Path, tmp_path: Path, form: str
) -> None:
    import yaml

    document: dict[str, Any] = DIRECTORY
    if form == "setup":  # a whole reset params object: its qm_guid and computer place the QM
        document = {**Setup().to_json(), "qm_guid": str(QM), "computer": "qm7.example.com"}
        document["directory"] = DIRECTORY
    data = tmp_path / "directory.yaml"
    data.write_text(yaml.safe_dump(document))
    with served("--data", str(data), "--for", "60") as server:
        assert re.search(rf"^  {QUEUE}  Queue\s+CN=orders,CN=msmq,CN=qm7,", server.text, re.M)
        assert re.search(rf"^  {QM}  QueueManager  CN=msmq,", server.text, re.M)
        assert "2 object(s)" in server.text
        queues = target_search(server, by_guid(QUEUE))
        assert [item["attributes"]["mSMQLabelEx"] for item in queues] == [["Orders"]]
        assert dn_key(queues[0]["dn"]) == "cn=orders,cn=msmq,cn=qm7,cn=computers,dc=mqcn,dc=example"
        managers = target_search(server, dssm.guid_filter(QM, "compact"))  # the letter's form
        assert (
            len(managers) == 1 and "mSMQConfiguration" in managers[0]["attributes"]["objectClass"]
        )
        # setup form: the QM under test is on qm7, the queues' computer; directory form: the
        # QM is another computer's (qm-<guid>), and qm7's msmq is a plain container
        expected = "qm7" if form == "setup" else f"qm-{QM.hex[:8]}"
        assert dn_key(managers[0]["dn"]) == f"cn=msmq,cn={expected},cn=computers,dc=mqcn,dc=example"


def test_a_scenario_of_a_report_is_loaded_by_part_of_its_name(
    slapd_installed: Path, tmpdir_env: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report"
    report.mkdir()
    entry = {"name": "Event 1 about the queue orders", "nodeid": "steps/t.py::a"}
    other = {"name": "Event 2 about nothing", "nodeid": "steps/t.py::b"}
    document = {
        "requirements": [
            {"scenarios": [entry, other]},
            {"scenarios": [entry]},  # one scenario, two requirements
        ],
        "directories": {entry["nodeid"]: DIRECTORY},
    }
    (report / "traceability.json").write_text(json.dumps(document))
    with served("--report", str(report), "--scenario", "QUEUE ORDERS", "--for", "60") as server:
        assert "Event 1 about the queue orders" in server.text
        assert len(target_search(server, by_guid(QUEUE))) == 1
    with served("--report", str(report), "--scenario", "about nothing", "--for", "60") as server:
        assert "published nothing" in server.text and "0 object(s)" in server.text
        assert target_search(server, by_guid(QUEUE)) == []


# --- bad input: one line, exit 2, nothing left running ------------------------------------------


def one_line_error(*args: str) -> str:
    result = runner.invoke(cli.app, ["directory", "serve", *args])
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mqcn directory serve: error: "), lines
    return lines[0]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("queues: [\n  - a: b\n", "not YAML or JSON (line 2, column 3)"),
        ("[1, 2]", "expected a mapping"),
        ('{"foo": 1}', "expected the setup.directory shape"),
        ('{"queues": [{"owner": "x"}]}', 'queues[0] is not {"owner": GUID, "queue": {...}}'),
        ('{"queues": [], "queue_managers": [{"Bogus": 1}]}', "queue_managers[0] has no Identifier"),
        (
            json.dumps({"queue_managers": [{"Identifier": str(QM), "Bogus": 1}]}),
            "unknown QueueManager attributes: ['Bogus']",
        ),
        (
            json.dumps(
                {
                    "queues": [
                        {"queue": {**DIRECTORY["queues"][0]["queue"], "Journaling": 7}},
                    ]
                }
            ),
            "Journaling (mSMQJournal) = 7 cannot be written: a Boolean is 0 or 1",
        ),
        ('{"directory": {"queues": []}, "qm_guid": "nope"}', "qm_guid 'nope' is not a GUID"),
    ],
    ids=[
        "not-yaml",
        "not-mapping",
        "shape",
        "queue-entry",
        "no-identifier",
        "unknown-attribute",
        "no-ldap-form",
        "qm-guid",
    ],
)
def test_bad_data_is_one_line_naming_what_is_wrong(
    tmp_path: Path, tmpdir_env: Path, content: str, said: str
) -> None:
    data = tmp_path / "data.yaml"
    data.write_text(content)
    line = one_line_error("--data", str(data))
    assert f"--data {data}" in line and said in line, line
    assert list(tmpdir_env.glob("mqcn-directory-*")) == []  # nothing was started


def test_bad_options_are_one_line(tmp_path: Path) -> None:
    assert "no such file" in one_line_error("--data", str(tmp_path / "missing.yaml"))
    assert "give one source" in one_line_error("--data", "x", "--report", "y", "--scenario", "z")
    assert "go together" in one_line_error("--report", str(tmp_path))
    assert "not a TCP port" in one_line_error("--port", "70000")
    assert "positive number of seconds" in one_line_error("--for", "0")
    assert "must start with DC=" in one_line_error("--root", "O=x")


def test_a_scenario_that_matches_none_or_several_is_one_line_listing_candidates(
    tmp_path: Path,
) -> None:
    names = ["Event 1 about a queue", "Event 2 about a queue", "Event 4 about a manager"]
    document = {
        "requirements": [
            {"scenarios": [{"name": name, "nodeid": f"n{i}"} for i, name in enumerate(names)]}
        ],
        "directories": {f"n{i}": DIRECTORY for i in range(len(names))},
    }
    (tmp_path / "traceability.json").write_text(json.dumps(document))
    several = one_line_error("--report", str(tmp_path), "--scenario", "queue")
    assert "2 scenarios" in several and "'Event 1 about a queue'" in several
    assert "'Event 2 about a queue'" in several and "manager" not in several
    none = one_line_error("--report", str(tmp_path), "--scenario", "event 9")
    assert "no scenario" in none and "3 published a directory" in none
    assert "not a folder" in one_line_error("--report", str(tmp_path / "x"), "--scenario", "a")


def test_a_port_in_use_is_one_line(slapd_installed: Path, tmpdir_env: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        line = one_line_error("--port", str(port))
    assert f"port 127.0.0.1:{port} (the default listener) is in use" in line
    assert not state_path(port).exists()


# --- attaching ----------------------------------------------------------------------------------


def test_a_run_attached_to_a_served_directory_sees_its_reads_and_passes(
    slapd_installed: Path, tmpdir_env: Path, tmp_path: Path
) -> None:
    """The reads of ``mqcn run --directory ldap://...`` are observed at the served server;
    every verdict passes, the down and slow server scenarios included; the report records
    each scenario's directory, which serve --report loads back."""
    report = tmp_path / "report"
    with served("--server", "dc1.example.com", "--for", "300") as server:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "mqcn_suite",
                "run",
                "--report",
                str(report),
                "--directory",
                server.url,
                "--",
                "-k",
                "3.2.5.2 or event",
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=600,
        )
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        assert server.process.poll() is None  # the run never stops a served directory
    document = json.loads((report / "traceability.json").read_text())
    ran = {
        s["nodeid"]: s
        for r in document["requirements"]
        for s in r["scenarios"]
        if s["nodeid"] is not None
    }
    assert len(ran) > 20 and {s["outcome"] for s in ran.values()} == {"passed"}
    sources = {tuple(s.get("read_sources", [])) for s in ran.values()}
    assert ("ldap",) in sources and ("target",) not in sources
    names = " ".join(ran)
    assert "server_is_down" in names and "after_half_a_second" in names
    published = document["directories"]
    assert published and set(published) <= set(ran)
    assert all(set(d) == {"queues", "queue_managers"} for d in published.values())  # no ldap
    assert document["run"]["options"].get("--mqcn-directory") == server.url
    # serve --report: the directory of one of those scenarios, found by GUID
    nodeid = next(n for n, d in published.items() if d["queues"])
    chosen = ran[nodeid]
    guid = uuid.UUID(published[nodeid]["queues"][0]["queue"]["Identifier"])
    with served("--report", str(report), "--scenario", chosen["name"], "--for", "60") as again:
        assert len(target_search(again, by_guid(guid))) == 1


def test_a_url_without_a_state_file_is_one_line(tmpdir_env: Path, tmp_path: Path) -> None:
    port = free_port()
    with pytest.raises(NotAttachableError) as refused:
        SlapdDirectory.attach(f"ldap://127.0.0.1:{port}")
    message = str(refused.value)
    assert "\n" not in message
    assert "only such a server can be attached" in message
    assert f"mqcn directory serve --port {port}" in message
    with pytest.raises(TargetError, match="only such a server can be attached"):
        DirectorySession.open(f"ldap://127.0.0.1:{port}")
    with pytest.raises(NotAttachableError, match="only a directory started by"):
        SlapdDirectory.attach("ldap://dc.example.com:389")
    run = subprocess.run(
        [
            *(sys.executable, "-m", "mqcn_suite", "run", "--report", str(tmp_path / "r")),
            *("--directory", f"ldap://127.0.0.1:{port}", "--", "-k", "event"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert run.returncode == 2
    errors = [line for line in run.stderr.splitlines() if line.strip()]
    assert any("only such a server can be attached" in line for line in errors), errors


def test_a_served_directory_is_not_shared_by_xdist_workers(tmp_path: Path) -> None:
    run = subprocess.run(
        [
            *(sys.executable, "-m", "mqcn_suite", "run", "--report", str(tmp_path / "r")),
            *("--directory", f"ldap://127.0.0.1:{free_port()}", "--", "-k", "event", "-n", "2"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert run.returncode == 2
    errors = [line for line in run.stderr.splitlines() if line.strip()]
    assert any("serves one run at a time" in line and "without -n" in line for line in errors)
    assert "Traceback" not in run.stdout + run.stderr


def test_a_stale_or_foreign_state_file_is_refused(tmpdir_env: Path) -> None:
    port = free_port()
    path = state_path(port)
    path.write_text("not json")
    with pytest.raises(NotAttachableError, match="is not JSON"):
        SlapdDirectory.attach(f"ldap://127.0.0.1:{port}")
    path.write_text(json.dumps({"root": "DC=x"}))
    with pytest.raises(NotAttachableError, match="no folder, ports, suite, target, log, pid"):
        SlapdDirectory.attach(f"ldap://127.0.0.1:{port}")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    state = {
        "root": "DC=mqcn,DC=example",
        "folder": str(tmpdir_env),
        "ports": {"": port},
        "suite": {"bind_dn": "CN=s", "password": "p"},
        "target": {"bind_dn": "CN=t", "password": "p"},
        "log": str(tmpdir_env / "slapd.log"),
        "pid": dead.pid,
    }
    path.write_text(json.dumps(state))
    with pytest.raises(NotAttachableError, match=rf"is gone \(process {dead.pid} ended\)"):
        SlapdDirectory.attach(f"ldap://127.0.0.1:{port}")


def test_an_attached_directory_is_used_but_never_stopped(
    slapd_installed: Path, tmpdir_env: Path
) -> None:
    """attach(): load, searches, sync; one run at a time; stop() lets it go; the server is
    "down" for a target through closed proxies, and a scenario naming more DomainControllers
    than the served listeners is not applicable."""
    with served("--server", "dc1.example.com", "--for", "120") as server:
        directory = SlapdDirectory.attach(server.url)
        try:
            assert directory.attached and directory.pid == server.pid
            with pytest.raises(NotAttachableError, match="another run is attached"):
                SlapdDirectory.attach(server.url)
            with pytest.raises(Exception, match="does not stop a directory it did not start"):
                directory.stop_listening()
            setup = Setup(directory_queues=[dict(q) for q in DIRECTORY["queues"]])
            directory.load(scenario_entries(setup, directory.root))
            assert len(target_search(server, by_guid(QUEUE))) == 1
            directory.sync()
            assert directory.searches(0)  # the log of the served slapd, read from here
        finally:
            directory.stop()
        assert directory.running  # stop() let it go: slapd serves on
        assert len(target_search(server, by_guid(QUEUE))) == 1

        session = DirectorySession.open(server.url)
        try:
            # the listener of the very name plays it; another name takes a free listener
            exact = Setup(directory_servers=["DC1.example.com"])
            params = session.publish(exact)
            assert params["servers"] == {"DC1.example.com": server_url(server, "dc1.example.com")}
            other = Setup(directory_servers=["dc9.example.com"])
            assert session.publish(other)["servers"]["dc9.example.com"] == server_url(
                server, "dc1.example.com"
            )
            two = Setup(directory_servers=["dc1.example.com", "dc9.example.com"])
            with pytest.raises(NotApplicable, match=r"--server dc1\.example\.com --server dc9"):
                session.publish(two)
            down = Setup(directory_condition={"down": True})
            refused = session.publish(down)["url"]
            assert refused != server.url
            with pytest.raises(OSError):
                socket.create_connection(("127.0.0.1", int(refused.rsplit(":", 1)[1])), 1)
            assert session.reads() == []
            assert session.directory.running  # the served slapd was not stopped
            assert session.publish(Setup())["url"] == server.url  # up again for the next
        finally:
            session.close()
        assert server.process.poll() is None


def server_url(server: Served, name: str) -> str:
    state = json.loads(Path(server.printed["state file"]).read_text())
    return f"ldap://127.0.0.1:{state['ports'][name]}"


def test_slapd_ending_on_its_own_is_exit_3_in_one_line(
    slapd_installed: Path, tmpdir_env: Path
) -> None:
    with served("--for", "120") as server:
        state = Path(server.printed["state file"])
        os.killpg(server.pid, signal.SIGKILL)  # slapd's own group, not serve's
        assert server.process.wait(30) == 3
        rest = server.rest().strip().splitlines()
    assert len(rest) == 1 and rest[0].startswith("mqcn directory serve: error: slapd ended")
    assert not state.exists()


def test_the_report_records_what_a_scenario_published_without_credentials() -> None:
    from mqcn_suite.world import World

    world = World(target=None)  # type: ignore[arg-type]
    assert "directory" not in world.report_properties()  # published nothing
    world.setup.directory_queues = [dict(q) for q in DIRECTORY["queues"]]
    world.setup.ldap = {"url": "ldap://127.0.0.1:1", "password": "secret"}
    recorded = world.report_properties()["directory"]
    assert recorded == {"queues": DIRECTORY["queues"], "queue_managers": []}
    assert "secret" not in json.dumps(world.report_properties())
