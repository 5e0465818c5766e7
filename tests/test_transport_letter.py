"""Transport mode against a peer that follows the words of [MS-MQMQ] / [MS-MQQB].

* ``reference:mqqb-letter`` (20-byte SessionAcks, expired packets ignored, its queue manager
  the set-up's) gets the verdicts of adapter mode, requirement by requirement;
* the suite's own side of a session to it follows the words: SentTime is the sending time,
  the EstablishConnection names the target's queue manager, the suite's queue manager
  answers as the scenario's queue managers (GUID_NULL too) and refuses others (Flags.CS), its
  SessionAcks take the form the target's hello asks for (W-01);
* an acknowledgment on the spec's own Session Ack Send Timer (AckWaitTimeout / 2) is waited
  for; a restarted target is reached at the port its new hello names; a target that never
  finishes the handshake stops the run after ``--max-timeouts`` timeouts, in seconds.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import mqcn_run

from mqcn_model.envelope import Envelope
from mqcn_model.mqqb import SessionConfig
from mqcn_model.wire.framing import LETTER_SESSION_ACK_SIZE
from mqcn_model.wire.internal import (
    EstablishConnection,
    connection_parameters,
    encode_internal,
    establish_connection,
    session_ack,
)
from mqcn_model.wire.session import SessionHeader
from mqcn_model.wire.usermessage import decode_user_message
from mqcn_suite.commands._common import ExitCode
from mqcn_suite.scenarios.fixtures import QM_GUID, existing_queue
from mqcn_suite.targets import ReferenceTarget, TargetBroken, TargetTimeout
from mqcn_suite.targets import transport_mode as mode
from mqcn_suite.targets.base import Setup
from mqcn_suite.targets.reference_mqqb import LetterMqqbTarget
from mqcn_suite.targets.transport_mode import TransportMode, with_transport
from mqcn_suite.transport import AckTimeout, Listener, ProtocolViolation, connect
from mqcn_suite.transport import connection as connection_module
from mqcn_suite.world import World

HOST = "127.0.0.1"
EC_SIZE = 572


def verdicts(report: Path) -> dict[str, str]:
    document = json.loads((report / "traceability.json").read_text("utf-8"))
    return {r["id"]: r["verdict"] for r in document["requirements"]}


# --- 1. the letter peer gets the verdicts of adapter mode ---------------------------------------


def test_the_letter_peer_gets_the_verdicts_of_adapter_mode(tmp_path: Path) -> None:
    adapter = mqcn_run(tmp_path / "adapter", "reference")
    letter = mqcn_run(tmp_path / "letter", "reference:mqqb-letter")
    assert adapter.exit_code == ExitCode.OK, adapter.output[-2000:]
    assert letter.exit_code == ExitCode.OK, letter.output[-3000:]
    differing = {
        rid: (expected, seen)
        for (rid, expected), seen in zip(
            verdicts(tmp_path / "adapter").items(),
            verdicts(tmp_path / "letter").values(),
            strict=True,
        )
        if expected != seen
    }
    assert differing == {}


def test_a_suite_sending_sent_time_0_would_fail_the_letter_peer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The power of the test above: with SentTime 0 (what the suite sent before) the letter
    peer ignores every UserMessage as expired, and the scenarios say so."""
    monkeypatch.setattr(connection_module, "sent_time_now", lambda: 0)
    result = mqcn_run(tmp_path, "reference:mqqb-letter", "-m", "MQCN-3.2.5.1-16")
    assert result.exit_code == ExitCode.FOUND, result.output[-2000:]
    assert verdicts(tmp_path)["MQCN-3.2.5.1-16"] == "fail"


def test_sent_time_is_the_sending_time() -> None:
    before = int(time.time())
    target = LetterMqqbTarget()
    wrapped = with_transport(target, 5.0)
    try:
        world = World(target=wrapped)
        world.own_queue()
        world.deliver(bytes.fromhex("0100"))  # any body: the packet is what is judged here
        assert isinstance(wrapped, TransportMode) and wrapped.session is not None
        sent = [e for e in wrapped.session.transcript.entries if e.summary == "UserMessage"]
        stamp = decode_user_message(sent[0].data)[0].user.sent_time
        assert before <= stamp <= int(time.time()) + 1
        assert target.expired == []
    finally:
        wrapped.close()


# --- 2. the suite's queue manager and its EstablishConnection -----------------------------------


def _handshake(port: int, named: uuid.UUID) -> Any:
    config = SessionConfig(uuid.uuid4(), remote_qm=named)
    return connect(HOST, port, config=config, timeout=2.0)


def suites_queue_manager() -> Listener:
    """A queue manager as the suite runs one (its GUID, acknowledging at once), apart from
    the process's own (tests/test_transport_mode.py counts that one's sessions)."""
    return Listener(HOST, 0, config=SessionConfig(mode.SUITE_QM, ack_send_delay=0.0))


@pytest.mark.parametrize("named", ["the scenario's queue manager", "GUID_NULL"])
def test_the_suites_queue_manager_accepts_the_scenarios_queue_managers(named: str) -> None:
    with suites_queue_manager() as listener:
        listener.answer_as(mode.scenario_queue_managers(Setup(qm_guid=QM_GUID)))
        guid = QM_GUID if named != "GUID_NULL" else uuid.UUID(int=0)
        session = _handshake(listener.port, guid)
        try:
            assert session.established is not None
            expected = QM_GUID if guid == QM_GUID else listener.qm_guid
            assert session.established.peer_qm == expected  # answered as the one named
        finally:
            session.close()


def test_the_suites_queue_manager_refuses_a_queue_manager_the_scenario_does_not_name() -> None:
    with suites_queue_manager() as listener:
        listener.answer_as(mode.scenario_queue_managers(Setup(qm_guid=QM_GUID)))
        with pytest.raises(ProtocolViolation, match=r"Flags\.CS is set"):
            _handshake(listener.port, uuid.UUID(int=7))


def test_the_suites_establish_connection_names_the_targets_queue_manager() -> None:
    """[MS-MQQB] 3.1.5.2.3: ServerGuid is the remote queue manager, the one the scenario's
    set-up names as the target's (an acceptor with that GUID accepts it)."""
    watching = Listener(HOST, 0, config=SessionConfig(QM_GUID))
    try:
        wrapped = with_transport(_ListeningAt(watching.port), 5.0)
        world = World(target=wrapped)
        world.own_queue()
        world.deliver(bytes.fromhex("0100"))
        session = watching.sessions[0]
        assert session.machine.peer_qm == mode.SUITE_QM  # the initiator's ClientGuid
        request = next(e for e in session.transcript.entries if e.direction == "in")
        assert uuid.UUID(bytes_le=bytes(request.data[36:52])) == QM_GUID  # its ServerGuid
        wrapped.close()
    finally:
        watching.close()


class _ListeningAt(ReferenceTarget):
    """A python: target whose queue manager listens at ``port`` (the test's listener)."""

    def __init__(self, port: int) -> None:
        super().__init__()
        self.port = port

    def transport(self) -> dict[str, Any]:
        return {"mqqb": {"host": HOST, "port": self.port}}

    def reset(self, setup: Setup, queue_manager: dict[str, Any] | None = None) -> None:
        super().reset(setup)


# --- 3. SessionAcks: the form the target reads ---------------------------------------------------


def test_the_suite_writes_letter_session_acks_to_a_target_that_asks_for_them(
    tmp_path: Path,
) -> None:
    """The letter peer's client refuses a 36-byte SessionAck (the suite broke the form its
    hello asked for): every client scenario passing shows the suite wrote 20-byte ones."""
    result = mqcn_run(tmp_path, "reference:mqqb-letter", "-m", "MQCN-3.3.4.1-1")
    assert result.exit_code == ExitCode.OK, result.output[-2000:]
    assert set(verdicts(tmp_path).values()) & {"pass"}


def test_a_letter_target_that_did_not_say_so_is_told_apart(tmp_path: Path) -> None:
    """Without ``readings: {W-01: letter}`` in its hello the suite writes the Windows form
    (36), which a letter reader refuses: an error naming W-01, never a fail."""
    spec = f"python:{__name__}:_letter_without_saying_so"
    result = mqcn_run(tmp_path, spec, "-m", "MQCN-3.3.4.1-1")
    assert result.exit_code == ExitCode.TARGET, result.output[-2000:]
    document = json.loads((tmp_path / "traceability.json").read_text("utf-8"))
    messages = [f["message"] for r in document["requirements"] for f in r["failures"]]
    assert messages and all("W-01" in m for m in messages), messages[:2]
    assert "fail" not in verdicts(tmp_path).values()


class _Unsaid(LetterMqqbTarget):
    def transport(self) -> dict[str, Any]:
        declared = super().transport()
        del declared["mqqb"]["readings"]
        return declared


def _letter_without_saying_so() -> LetterMqqbTarget:
    return _Unsaid()


def test_both_session_ack_sizes_are_read() -> None:
    for letter in (False, True):
        config = SessionConfig(QM_GUID, ack_send_delay=0.0, letter_session_ack=letter)
        with Listener(HOST, 0, config=config) as qm:
            session = connect(HOST, qm.port, config=SessionConfig(uuid.uuid4()), timeout=2.0)
            try:
                name = f"PRIVATE={QM_GUID}" + chr(92) + "3"
                message = Envelope(
                    b"\x01\x00", sender_identifier=QM_GUID, destination_format_name=name
                )
                session.send_and_wait(message, 2.0)
                acks = [e for e in session.transcript.entries if e.summary == "SessionAck"]
                size = int.from_bytes(acks[0].data[8:12], "little")
                assert size == (LETTER_SESSION_ACK_SIZE if letter else 36)
            finally:
                session.close()


# --- 4. deadlines from the session's timers; stalls bounded -------------------------------------


def test_an_acknowledgment_on_the_spec_timer_is_waited_for() -> None:
    """A peer holding its SessionAck for AckWaitTimeout / 2 (10 s with the suite's 20,000 ms,
    [MS-MQQB] 3.1.5.8) is acknowledged in time with --timeout 1."""
    patient = Listener(HOST, 0, config=SessionConfig(QM_GUID, ack_send_delay=10.0, window_size=64))
    try:
        wrapped = with_transport(_ListeningAt(patient.port), 1.0)
        world = World(target=wrapped)
        world.own_queue()
        started = time.monotonic()
        world.deliver(bytes.fromhex("0100"))
        assert 9.5 <= time.monotonic() - started < 11.5
        wrapped.close()
    finally:
        patient.close()


def test_a_target_restarted_on_a_new_port_is_reached_there() -> None:
    moving = _Moving()
    wrapped = with_transport(moving, 5.0)
    try:
        first = wrapped.address
        moving.move()
        assert wrapped.address != first and wrapped.address[1] == moving.listener.port
        world = World(target=wrapped)
        world.own_queue()
        world.deliver(bytes.fromhex("0100"))
    finally:
        wrapped.close()
        moving.close()


class _Moving(LetterMqqbTarget):
    """The letter peer, restarted on another port (as an exec: target restarted after it
    broke answers a new hello)."""

    def move(self) -> None:
        old = self.listener
        self.listener = Listener(HOST, 0, on_message=self._received)
        self.listener.answer_as(frozenset({QM_GUID}), letter_session_ack=True)
        old.close()


def test_a_dead_handshake_stops_the_run_after_max_timeouts_in_seconds(tmp_path: Path) -> None:
    """A queue manager that accepts TCP and never answers EstablishConnection: each scenario
    times out at --timeout, the timeouts count, the run stops after --max-timeouts (exit 4)."""
    started = time.monotonic()
    result = mqcn_run(
        tmp_path,
        f"python:{__name__}:_dead_handshake",
        timeout="1",
        max_timeouts="2",
    )
    elapsed = time.monotonic() - started
    assert result.exit_code == ExitCode.TARGET, result.output[-2000:]
    document = json.loads((tmp_path / "traceability.json").read_text("utf-8"))
    assert "timed out 2 times in a row" in (document["run"]["stopped"] or ""), document["run"]
    assert document["run"]["not_run"] > 0
    assert elapsed < 30, elapsed


class _DeadHandshake(ReferenceTarget):
    def __init__(self) -> None:
        super().__init__()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((HOST, 0))
        self.sock.listen(16)
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)  # never answers

    def transport(self) -> dict[str, Any]:
        return {"mqqb": {"host": HOST, "port": self.sock.getsockname()[1]}}

    def reset(self, setup: Setup, queue_manager: dict[str, Any] | None = None) -> None:
        super().reset(setup)

    def start_client(
        self, destination: uuid.UUID, queue_manager: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        return super().start_client(destination)

    def close(self) -> None:
        self.sock.close()
        super().close()


def _dead_handshake() -> _DeadHandshake:
    return _DeadHandshake()


def test_a_transport_silence_is_a_timeout() -> None:
    dead = _DeadHandshake()
    wrapped = with_transport(dead, 0.5)
    try:
        world = World(target=wrapped)
        world.own_queue()
        with pytest.raises(TargetTimeout, match="handshake did not complete"):
            world.deliver(bytes.fromhex("0100"))
    finally:
        wrapped.close()
        dead.close()


# --- 5. what the peer acknowledged -------------------------------------------------------------


def _acks_message_zero(server: socket.socket) -> None:
    """A peer that completes the handshake, then answers every burst with a SessionAck of
    AckSequenceNumber 0: it acknowledges no message of ours."""
    conn, _ = server.accept()
    with conn:
        request = conn.recv(EC_SIZE)
        client = uuid.UUID(bytes_le=request[20:36])
        answer = EstablishConnection(client, QM_GUID, 0, 0)
        conn.sendall(encode_internal(establish_connection(answer)))
        conn.recv(28)  # ConnectionParameters
        conn.sendall(encode_internal(connection_parameters(500, 20000, 64)))
        while conn.recv(4096):
            conn.sendall(encode_internal(session_ack(SessionHeader(0, 0, 0, 0, 0, 64))))


def test_an_acknowledgment_of_message_0_is_told_apart_from_none() -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind((HOST, 0))
    server.listen(1)
    threading.Thread(target=_acks_message_zero, args=(server,), daemon=True).start()
    try:
        session = connect(HOST, server.getsockname()[1], config=SessionConfig(uuid.uuid4()))
        name = f"PRIVATE={QM_GUID}" + chr(92) + "3"
        message = Envelope(b"\x01\x00", sender_identifier=QM_GUID, destination_format_name=name)
        with pytest.raises(AckTimeout) as waited:
            session.send_and_wait(message, 0.5)
        said = str(waited.value)
        assert "acknowledged up to UserMessage 0 (AckSequenceNumber), never 1" in said, said
        session.close()
    finally:
        server.close()


def test_no_acknowledgment_at_all_says_so() -> None:
    silent = Listener(HOST, 0, config=SessionConfig(QM_GUID, ack_send_delay=3600.0))
    try:
        session = connect(HOST, silent.port, config=SessionConfig(uuid.uuid4()))
        name = f"PRIVATE={QM_GUID}" + chr(92) + "3"
        message = Envelope(b"\x01\x00", sender_identifier=QM_GUID, destination_format_name=name)
        with pytest.raises(AckTimeout, match="the peer sent no SessionAck"):
            session.send_and_wait(message, 0.5)
        session.close()
    finally:
        silent.close()


# --- 6. evidence kept -------------------------------------------------------------------------


class _NamesAStranger(LetterMqqbTarget):
    """Its client names a queue manager no scenario has: the suite's refuses the session, the
    client answers an error."""

    def _client_config(self, remote: uuid.UUID) -> SessionConfig:
        return SessionConfig(self.setup.qm_guid, remote_qm=uuid.UUID(int=0x5757))


def test_a_client_error_keeps_what_the_suites_queue_manager_saw() -> None:
    target = _NamesAStranger()
    wrapped = with_transport(target, 2.0)
    world = World(target=wrapped)
    try:
        world.publish_queue(existing_queue())
        world.start_client()
        with pytest.raises(TargetBroken) as broke:
            world.notify("QueueCreation")
    finally:
        wrapped.close()
    said = str(broke.value)
    assert said.startswith("reference:mqqb client:") and "Flags.CS is set" in said, said
    assert "the suite's queue manager saw a session" in said
    assert "EstablishConnection" in said.split("the suite's queue manager saw a session")[1]
