"""Transport mode (adapter protocol version 2, issue 20): the suite reaches a target through
MS-MQQB sessions on 127.0.0.1 instead of ``deliver`` and the client's own report.

* ``--target reference:mqqb`` passes with the verdicts of ``--target reference``,
  requirement by requirement, also under ``-n 2`` (each worker its own ports);
* a hostile target (python: targets here, each with a tiny hostile peer) gives the scenario
  ``error`` -- never ``fail`` -- with one clear line and the session transcript, within
  ``--timeout``: a closed port, a peer that closes after EstablishConnection, one that never
  acknowledges, a non-MSMQ banner, a client that sends half a packet, a port the suite cannot
  bind;
* the hello's ``transport.mqqb`` is checked: a bad host or port is one line naming it.
"""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from mqcn_model.builders import queue_creation, v1_message
from mqcn_model.codec.message import body_buffer
from mqcn_model.mqqb import SessionConfig
from mqcn_model.wire.internal import EstablishConnection, encode_internal, establish_connection
from mqcn_suite.cli import app
from mqcn_suite.scenarios.fixtures import QM_GUID, QUEUE_GUID
from mqcn_suite.targets import ReferenceTarget, TargetBroken, TargetError, resolve_target
from mqcn_suite.targets import transport_mode as mode
from mqcn_suite.targets.base import Setup, TargetTimeout
from mqcn_suite.targets.transport_mode import TransportMode, mqqb_address, with_transport
from mqcn_suite.transport import Listener
from mqcn_suite.world import World

runner = CliRunner()
HOST = "127.0.0.1"
TIMEOUT = 1.0
EC_SIZE = 572


def mqcn_run(report: Path, target: str, *pytest_args: str, timeout: str = "5") -> Result:
    args = ["run", "--target", target, "--report", str(report), "--timeout", timeout]
    return runner.invoke(app, [*args, "--", "-q", "-p", "no:randomly", *pytest_args])


def verdicts(report: Path) -> dict[str, str]:
    document = json.loads((report / "traceability.json").read_text("utf-8"))
    return {r["id"]: r["verdict"] for r in document["requirements"]}


# --- the reference behind a real socket ---------------------------------------------------------


def test_reference_mqqb_gives_the_verdicts_of_reference_requirement_by_requirement(
    tmp_path: Path,
) -> None:
    adapter = mqcn_run(tmp_path / "adapter", "reference")
    transport = mqcn_run(tmp_path / "transport", "reference:mqqb")
    assert adapter.exit_code == 0, adapter.output
    assert transport.exit_code == 0, transport.output
    expected, seen = verdicts(tmp_path / "adapter"), verdicts(tmp_path / "transport")
    assert seen == expected
    assert "pass" in seen.values()


def test_two_workers_each_with_their_own_ports_give_the_same_verdicts(tmp_path: Path) -> None:
    selection = "MQCN-3.2.5.1-16 or MQCN-3.3.4.1-1 or MQCN-2.2.4-3"
    adapter = mqcn_run(tmp_path / "adapter", "reference", "-m", selection)
    transport = mqcn_run(tmp_path / "transport", "reference:mqqb", "-n", "2", "-m", selection)
    assert adapter.exit_code == 0, adapter.output
    assert transport.exit_code == 0, transport.output
    assert verdicts(tmp_path / "transport") == verdicts(tmp_path / "adapter")
    # each worker's queue manager: its own port (the run's "mqcn transport:" line)
    listened = re.findall(r"(gw\d+) 127\.0\.0\.1:(\d+)", transport.output)
    assert [worker for worker, _ in listened] == ["gw0", "gw1"], transport.output
    assert len({port for _, port in listened}) == 2, listened


def test_reference_mqqb_really_goes_over_the_socket() -> None:
    """Its deliver refuses; a delivery through transport mode reaches its server, acknowledged."""
    from mqcn_suite.targets.reference_mqqb import MqqbReferenceTarget

    target = MqqbReferenceTarget()
    wrapped = with_transport(target, TIMEOUT)
    try:
        assert isinstance(wrapped, TransportMode)
        world = World(target=wrapped)
        with pytest.raises(TargetError, match="not deliver"):
            target.deliver(world.envelope(b"\x01"))
        creation = queue_creation(QUEUE_GUID, "qm1\\orders", master=uuid.UUID(int=9))
        world.deliver(body_buffer(v1_message([creation])))
        assert str(QUEUE_GUID) in world.state()["queues"]
        session = wrapped.session
        assert session is not None and session.acknowledged == {1}
        world.finish()
        assert wrapped.session is None and session.closed
    finally:
        wrapped.close()


# --- hostile peers ------------------------------------------------------------------------------


class HostilePeer:
    """A TCP server on 127.0.0.1 that treats each connection with ``behave(conn)``."""

    def __init__(self, behave: Callable[[socket.socket], None]) -> None:
        self.sock = socket.socket()
        self.sock.bind((HOST, 0))
        self.sock.listen(8)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.behave = behave
        self.stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self.behave, args=(conn,), daemon=True).start()

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


def closes_after_establish_connection(conn: socket.socket) -> None:
    data = b""
    while len(data) < EC_SIZE and (chunk := conn.recv(EC_SIZE - len(data))):
        data += chunk
    conn.close()


def ssh_banner(conn: socket.socket) -> None:
    conn.sendall(b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n")
    time.sleep(2)
    conn.close()


class HostileServer(ReferenceTarget):
    """The reference whose hello names a hostile MS-MQQB address (set by the test)."""

    port = 0

    def transport(self) -> dict[str, Any]:
        return {"mqqb": {"host": HOST, "port": self.port}}

    def reset(self, setup: Setup, queue_manager: dict[str, Any] | None = None) -> None:
        assert queue_manager is not None  # transport mode gives the suite's address at reset
        super().reset(setup)


def closed_port() -> int:
    sock = socket.socket()
    sock.bind((HOST, 0))
    port = sock.getsockname()[1]
    sock.close()  # bound, never listening, closed: connecting is refused
    return port


def deliver_through(port: int) -> tuple[TargetBroken, float]:
    target = HostileServer()
    target.port = port
    wrapped = with_transport(target, TIMEOUT)
    world = World(target=wrapped)
    started = time.monotonic()
    with pytest.raises(TargetBroken) as caught:
        world.deliver(b"\x01\x00")
    elapsed = time.monotonic() - started
    wrapped.close()
    return caught.value, elapsed


def test_a_closed_port_is_an_error_with_one_line() -> None:
    port = closed_port()
    error, elapsed = deliver_through(port)
    first = str(error).splitlines()[0]
    assert first.startswith(f"transport: opening a session to {HOST}:{port}: cannot connect")
    assert "transcript:" in str(error) and elapsed < TIMEOUT + 2


@pytest.mark.parametrize(
    ("behave", "said", "seen"),
    [
        (closes_after_establish_connection, "closed", "EstablishConnection"),
        (ssh_banner, "does not speak MS-MQQB", "not a packet"),
    ],
    ids=["closes-after-establish-connection", "non-msmq-banner"],
)
def test_a_hostile_queue_manager_is_an_error_with_the_transcript(
    behave: Callable[[socket.socket], None], said: str, seen: str
) -> None:
    peer = HostilePeer(behave)
    try:
        error, elapsed = deliver_through(peer.port)
    finally:
        peer.close()
    first, *rest = str(error).splitlines()
    assert first.startswith("transport: opening a session") and said in first
    assert any(seen in line for line in rest), str(error)
    assert elapsed < TIMEOUT + 2


def test_a_queue_manager_that_never_acknowledges_is_an_error_within_the_timeout() -> None:
    silent = Listener(HOST, 0, config=SessionConfig(QM_GUID, ack_send_delay=3600.0))
    try:
        error, elapsed = deliver_through(silent.port)
    finally:
        silent.close()
    first = str(error).splitlines()[0]
    assert first.startswith("transport: delivering a UserMessage")
    # the timeout plus the longest a conforming peer may hold its SessionAck: half the
    # AckTimeout the session agreed (20,000 ms: the Session Ack Send Timer, 3.1.2.5)
    assert "not acknowledged within 11.0 s" in first
    assert isinstance(error, TargetTimeout)  # counted for --max-timeouts
    assert "UserMessage" in str(error).split("transcript:")[1]
    assert TIMEOUT + 10 <= elapsed < TIMEOUT + 12


class HalfPacketClient(ReferenceTarget):
    """A client that opens a TCP session to the suite's queue manager and sends half of an
    EstablishConnection packet, then nothing (its hello declares a working server)."""

    def __init__(self) -> None:
        super().__init__()
        self.listener = Listener(HOST, 0, on_message=lambda s, m: None)
        self.address: tuple[str, int] | None = None
        self.sock: socket.socket | None = None

    def transport(self) -> dict[str, Any]:
        return {"mqqb": {"host": HOST, "port": self.listener.port}}

    def reset(self, setup: Setup, queue_manager: dict[str, Any] | None = None) -> None:
        assert queue_manager is not None
        self.address = (queue_manager["host"], queue_manager["port"])
        super().reset(setup)

    def start_client(
        self, destination: uuid.UUID, queue_manager: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        assert queue_manager is not None
        self.address = (queue_manager["host"], queue_manager["port"])
        return super().start_client(destination)

    def send_change_notification(
        self, operation: str, object_id: uuid.UUID, changed: list[str]
    ) -> None:  # type: ignore[override]
        assert self.address is not None
        self.sock = socket.create_connection(self.address)
        request = EstablishConnection(uuid.UUID(int=0xC1), uuid.UUID(int=0))
        self.sock.sendall(encode_internal(establish_connection(request))[:100])  # of 572 bytes
        return None

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.listener.close()


def test_a_client_sending_half_a_packet_is_an_error_with_the_transcript() -> None:
    target = HalfPacketClient()
    wrapped = with_transport(target, TIMEOUT)
    world = World(target=wrapped)
    world.publish_queue(queue_creation_queue())
    try:
        world.start_client()
        started = time.monotonic()
        with pytest.raises(TargetBroken) as caught:
            world.notify("QueueCreation")
        elapsed = time.monotonic() - started
    finally:
        wrapped.close()
    first, *rest = str(caught.value).splitlines()
    assert first.startswith("transport: receiving QueueCreation: no UserMessage arrived")
    assert any("part of a packet (100 of 572 B)" in line for line in rest), str(caught.value)
    assert elapsed < TIMEOUT + 2


def queue_creation_queue() -> Any:
    from mqcn_suite.scenarios.fixtures import existing_queue

    return existing_queue()


def test_a_port_the_suite_cannot_bind_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = socket.socket()
    taken.bind((HOST, 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    monkeypatch.setattr(mode, "_listener", None)
    monkeypatch.setattr(mode, "LISTEN_PORT", port)
    target = HostileServer()
    target.port = closed_port()
    wrapped = with_transport(target, TIMEOUT)
    try:
        with pytest.raises(TargetBroken) as caught:
            World(target=wrapped).start_client()
    finally:
        taken.close()
        wrapped.close()
    first = str(caught.value).splitlines()[0]
    assert first.startswith(
        f"transport: the suite's queue manager cannot listen: cannot listen on {HOST}:{port}"
    )


def test_a_hostile_target_in_a_run_is_error_never_fail_with_the_transcript_in_the_report(
    tmp_path: Path,
) -> None:
    report = tmp_path / "report"
    result = mqcn_run(
        report,
        "python:tests.test_transport_mode:NeverAcknowledges",
        "-m",
        "MQCN-3.2.5.1-16",
        timeout="1",
    )
    document = json.loads((report / "traceability.json").read_text("utf-8"))
    row = next(r for r in document["requirements"] if r["id"] == "MQCN-3.2.5.1-16")
    assert row["verdict"] == "error", result.output
    assert document["summary"]["failed"] == 0
    text = json.dumps(row)
    assert "not acknowledged within 11.0 s" in text and "transcript:" in text
    assert "UserMessage" in text
    html = (report / "report.html").read_text("utf-8")
    assert "transcript:" in html


class NeverAcknowledges(HostileServer):
    """A python: target whose queue manager completes the handshake and never acknowledges."""

    def __init__(self) -> None:
        super().__init__()
        # the queue manager the set-up names: our EstablishConnection names it (3.1.5.2.3)
        self.silent = Listener(HOST, 0, config=SessionConfig(QM_GUID, ack_send_delay=3600.0))
        self.port = self.silent.port

    def close(self) -> None:
        self.silent.close()


# --- the hello's transport member ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("transport", "said"),
    [
        ({"mqqb": {"host": HOST, "port": 70000}}, "transport.mqqb: port must be"),
        ({"mqqb": {"host": HOST, "port": "1801"}}, "transport.mqqb: port must be"),
        ({"mqqb": {"host": "", "port": 1801}}, "transport.mqqb: host must be"),
        ({"mqqb": "127.0.0.1:1801"}, "transport.mqqb: expected"),
    ],
)
def test_a_bad_transport_address_is_one_line_naming_transport_mqqb(
    transport: dict[str, Any], said: str
) -> None:
    with pytest.raises(TargetError) as caught:
        mqqb_address({"transport": transport})
    assert str(caught.value).startswith(said) and "\n" not in str(caught.value)


class OldReset(ReferenceTarget):
    """Declares a transport, but its reset does not take the suite's queue manager."""

    def transport(self) -> dict[str, Any]:
        return {"mqqb": {"host": HOST, "port": 1801}}


def test_a_transport_target_whose_reset_takes_no_queue_manager_is_one_line() -> None:
    with pytest.raises(TargetError) as caught:
        with_transport(OldReset(), TIMEOUT)
    assert str(caught.value).startswith("transport: a target that declares a transport takes")
    assert "\n" not in str(caught.value)


def test_without_a_transport_the_target_is_driven_as_today() -> None:
    target = ReferenceTarget()
    assert with_transport(target, TIMEOUT) is target


# --- version 2 over exec: ---------------------------------------------------------------------


def test_an_exec_target_at_version_2_is_driven_through_its_transport(tmp_path: Path) -> None:
    served = (
        f"exec:{sys.executable} -m mqcn_suite.targets.serve reference:mqqb --protocol-version 2"
    )
    selection = "MQCN-3.2.5.1-16 or MQCN-3.3.4.1-1 or MQCN-2.2.4-3"
    adapter = mqcn_run(tmp_path / "adapter", "reference", "-m", selection)
    transport = mqcn_run(tmp_path / "transport", served, "-m", selection)
    assert adapter.exit_code == 0, adapter.output
    assert transport.exit_code == 0, transport.output
    assert verdicts(tmp_path / "transport") == verdicts(tmp_path / "adapter")


BAD_HELLO = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    answer = {"protocol_version": 2, "name": "bad", "pics": PICS,
              "transport": {"mqqb": {"host": "127.0.0.1", "port": 0}}}
    print(json.dumps({"id": request["id"], "result": answer}), flush=True)
"""


def test_an_exec_hello_with_a_bad_port_is_one_line_naming_transport_mqqb(tmp_path: Path) -> None:
    from mqcn_suite.targets.pics import EVERYTHING

    script = tmp_path / "bad_hello.py"
    script.write_text(BAD_HELLO.replace("PICS", repr(EVERYTHING.to_json())), "utf-8")
    with pytest.raises(TargetError) as caught:
        resolve_target(f"exec:{sys.executable} {script}")
    assert str(caught.value) == (
        "exec: the target's hello: transport.mqqb: port must be an integer 1..65535, not 0"
    )


# --- --pcap in transport mode: the real bytes ---------------------------------------------------


def audit(capture: Path, out: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["audit", str(capture), "--out", str(out)])
    assert result.exit_code in (0, 1), result.output  # 1: non-conforming messages found
    return json.loads((out / "summary.json").read_text("utf-8"))


def pcap_counts(output: str) -> tuple[int, int]:
    """(delivered to the target, sent by its client) from the run's ``mqcn pcap:`` line."""
    found = re.search(r"\((\d+) delivered to the target, (\d+) sent by its client\)", output)
    assert found is not None, output
    return int(found[1]), int(found[2])


def test_pcap_in_transport_mode_holds_the_real_sessions_and_audits_to_the_same_verdicts(
    tmp_path: Path,
) -> None:
    # server side, client scenarios that initialise the client, and one whose client sends
    # without start_client (MQCN-2.2.6-8: it learnt the suite's address at reset)
    selection = "MQCN-3.2.5.1-16 or MQCN-3.2.5-1 or MQCN-3.3.5.3-13 or MQCN-2.2.6-8"
    counted: dict[str, tuple[int, int]] = {}
    for name, target in (("adapter", "reference"), ("transport", "reference:mqqb")):
        args = ["run", "--target", target, "--report", str(tmp_path / f"{name}-report")]
        args += ["--pcap", str(tmp_path / f"{name}.pcap"), "--", "-q", "-m", selection]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        counted[name] = pcap_counts(result.output)
    # every message the client sent is on the wire in transport mode, as in adapter mode
    assert counted["transport"] == counted["adapter"]
    assert counted["transport"][1] > 0
    capture = (tmp_path / "transport.pcap").read_bytes()
    # the real handshake: the suite's queue manager GUID in its EstablishConnection request
    assert mode.SUITE_QM.bytes_le in capture
    adapter = audit(tmp_path / "adapter.pcap", tmp_path / "adapter-audit")
    transport = audit(tmp_path / "transport.pcap", tmp_path / "transport-audit")
    assert transport["balance"]["quarantined"] == 0 and transport["balance"]["balanced"]
    for key in ("rows_in", "conforming", "non_conforming"):
        assert transport["balance"][key] == adapter["balance"][key], key
    assert transport["by_requirement"] == adapter["by_requirement"]
