"""Transport mode judges the target's side of each MS-MQQB session.

A proxy between the suite and a conforming peer breaks one rule of [MS-MQMQ] / [MS-MQQB] in
what the peer sends; the suite's side of the session names the rule (its wire catalog ID),
as a finding the session survives or as the error that closed it, and `mqcn run` reports
it under "transport findings" -- a warning: the MS-MQCN verdicts are those of a clean run.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_helpers import mqcn_run

from mqcn_model.envelope import Envelope
from mqcn_model.mqqb import SessionConfig
from mqcn_model.wire.base import IN
from mqcn_model.wire.framing import NEED_MORE, PACKET, next_frame
from mqcn_model.wire.internal import (
    PT_CONNECTION_PARAMETERS,
    PT_ESTABLISH_CONNECTION,
    PT_MASK,
    PT_SESSION_ACK,
)
from mqcn_suite.commands._common import ExitCode
from mqcn_suite.report import traceability
from mqcn_suite.scenarios.fixtures import QM_GUID
from mqcn_suite.targets import zoo
from mqcn_suite.targets.reference_mqqb import LetterMqqbTarget
from mqcn_suite.transport import Listener, connect

HOST = "127.0.0.1"
Fault = Callable[[bytearray], None]


def _kind(frame: bytes) -> int | None:
    """The internal packet type of ``frame`` (None: a UserMessage)."""
    flags = struct.unpack_from("<H", frame, 2)[0]
    return struct.unpack_from("<H", frame, 18)[0] & PT_MASK if flags & IN else None


def _add(frame: bytearray, at: int, fmt: str, delta: int) -> None:
    struct.pack_into(fmt, frame, at, struct.unpack_from(fmt, frame, at)[0] + delta)


def acks_one_more(frame: bytearray) -> None:
    if _kind(frame) == PT_SESSION_ACK:
        _add(frame, 20, "<H", 1)  # AckSequenceNumber


def miscounts(frame: bytearray) -> None:
    if _kind(frame) == PT_SESSION_ACK:
        _add(frame, 28, "<H", 5)  # UserMsgSequenceNumber


def pads_with_zero(frame: bytearray) -> None:
    if _kind(frame) == PT_ESTABLISH_CONNECTION:
        frame[100] = 0  # a Padding byte of the response


def moves_the_timestamp(frame: bytearray) -> None:
    if _kind(frame) == PT_ESTABLISH_CONNECTION:
        _add(frame, 52, "<I", 1)  # TimeStamp


def answers_other_timeouts(frame: bytearray) -> None:
    if _kind(frame) == PT_CONNECTION_PARAMETERS:
        struct.pack_into("<I", frame, 24, 30000)  # AckTimeout


class FaultyProxy:
    """127.0.0.1:port, forwarding to ``upstream``; each packet from upstream passes through
    ``fault`` (which may change its bytes) on the way back."""

    def __init__(self, upstream: int, fault: Fault) -> None:
        self.upstream, self.fault = upstream, fault
        self.server = socket.create_server((HOST, 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            peer = socket.create_connection((HOST, self.upstream))
            threading.Thread(target=self._pump, args=(client, peer, None), daemon=True).start()
            threading.Thread(
                target=self._pump, args=(peer, client, self.fault), daemon=True
            ).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket, fault: Fault | None) -> None:
        buffer = bytearray()
        try:
            while data := source.recv(65536):
                if fault is None:
                    sink.sendall(data)
                    continue
                buffer += data
                while buffer and (frame := next_frame(bytes(buffer))).status != NEED_MORE:
                    size = frame.size if frame.status == PACKET else len(buffer)
                    packet = bytearray(buffer[:size])
                    del buffer[:size]
                    fault(packet)
                    sink.sendall(packet)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.server.close()


def _message() -> Envelope:
    name = f"PRIVATE={QM_GUID}" + chr(92) + "3"
    return Envelope(b"\x01\x00", sender_identifier=QM_GUID, destination_format_name=name)


FAULTS = [
    (acks_one_more, "MQMQ-2.2.20.4-2", False),
    (miscounts, "MQQB-3.1.5.5.5-1", True),
    (pads_with_zero, "MQQB-2.2.3.1-3", False),
    (moves_the_timestamp, "MQQB-3.1.5.3.1-1", False),
    (answers_other_timeouts, "MQQB-3.1.5.4.1-1", False),
]


@pytest.mark.parametrize(("fault", "rule", "closes"), FAULTS, ids=[f[0].__name__ for f in FAULTS])
def test_each_session_fault_of_the_peer_is_named_by_its_rule(
    fault: Fault, rule: str, closes: bool
) -> None:
    peer = Listener(HOST, 0, config=SessionConfig(QM_GUID, ack_send_delay=0.0))
    proxy = FaultyProxy(peer.port, fault)
    try:
        session = connect(HOST, proxy.port, config=SessionConfig(uuid.uuid4()), timeout=3.0)
        try:
            session.send_and_wait(_message(), 3.0)  # acknowledged: the fault is no failure
            if closes:
                assert session.wait_closed(3.0)
            found = [(f.requirement, type(f).__name__) for f in session.findings]
            kind = "ProtocolError" if closes else "SessionFinding"
            assert found == [(rule, kind)], found
            assert session.closed is closes
        finally:
            session.close()
    finally:
        proxy.close()
        peer.close()


def test_a_conforming_peer_gives_no_finding() -> None:
    peer = Listener(HOST, 0, config=SessionConfig(QM_GUID, ack_send_delay=0.0))
    proxy = FaultyProxy(peer.port, lambda frame: None)
    try:
        with connect(HOST, proxy.port, config=SessionConfig(uuid.uuid4())) as session:
            for _ in range(3):
                session.send_and_wait(_message(), 3.0)
            assert session.findings == []
        assert all(s.findings == [] for s in peer.sessions)
    finally:
        proxy.close()
        peer.close()


def test_a_windows_form_session_ack_from_a_peer_claiming_the_letter_is_named() -> None:
    """Errata W-01: the peer's hello says it follows the letter (PacketSize 20), yet its
    SessionAck says 36: the reading it claimed, contradicted (MQMQ-2.2.19.1-3)."""
    peer = Listener(HOST, 0, config=SessionConfig(QM_GUID, ack_send_delay=0.0))
    try:
        config = SessionConfig(uuid.uuid4(), letter_session_ack=True)
        with connect(HOST, peer.port, config=config) as session:
            session.send_and_wait(_message(), 3.0)
            ((finding),) = session.findings
            assert finding.requirement == "MQMQ-2.2.19.1-3" and "W-01" in finding.what
    finally:
        peer.close()


# --- the whole run: "transport findings" in the report, the verdicts unchanged ------------------


class _BehindAProxy(LetterMqqbTarget):
    """The letter peer, reached through a FaultyProxy that adds one to every AckSequenceNumber
    it sends; its client proposes an AckTimeout of 100 ms (out of MQQB-2.2.2.1-2's range)."""

    def __init__(self) -> None:
        super().__init__()
        self.proxy = FaultyProxy(self.listener.port, acks_one_more)

    def transport(self) -> dict[str, Any]:
        declared = super().transport()
        declared["mqqb"]["port"] = self.proxy.port
        return declared

    def _client_config(self, remote: uuid.UUID) -> SessionConfig:
        return SessionConfig(
            self.setup.qm_guid, remote_qm=remote, letter_session_ack=True, ack_timeout_ms=100
        )

    def close(self) -> None:
        self.proxy.close()
        super().close()


def _behind_a_proxy() -> _BehindAProxy:
    return _BehindAProxy()


def test_a_run_reports_the_transport_findings_and_keeps_its_verdicts(tmp_path: Path) -> None:
    spec = f"python:{__name__}:_behind_a_proxy"
    server, client = "MQCN-3.2.5.1-16", "MQCN-3.3.4.1-1"
    result = mqcn_run(tmp_path, spec, "-m", f"{server} or {client}")
    assert result.exit_code == ExitCode.OK, result.output[-3000:]
    document = json.loads((tmp_path / "traceability.json").read_text("utf-8"))
    schema = json.loads(
        Path(traceability.__file__).with_name("traceability.schema.json").read_text()
    )
    jsonschema.validate(document, schema)
    verdicts = {r["id"]: r["verdict"] for r in document["requirements"]}
    assert verdicts[server] == verdicts[client] == "pass"
    found = {f["requirement"]: f for f in document["transport_findings"]}
    assert set(found) == {"MQMQ-2.2.20.4-2", "MQQB-2.2.2.1-2"}, found.keys()
    acked = found["MQMQ-2.2.20.4-2"]
    assert acked["sides"] == ["server"] and acked["closed"] == 0 and acked["scenarios"] >= 1
    example = acked["examples"][0]
    assert "AckSequenceNumber is 2: not between the 0 acknowledged before" in example["what"]
    assert example["transcript"][0].startswith("MS-MQQB session")
    assert found["MQQB-2.2.2.1-2"]["sides"] == ["client"]
    assert "Transport findings (2 rules" in result.output
    html = (tmp_path / "report.html").read_text("utf-8")
    assert 'id="transport-MQMQ-2.2.20.4-2"' in html and "AckSequenceNumber is 2" in html


def test_no_transport_findings_for_a_clean_peer(tmp_path: Path) -> None:
    result = mqcn_run(tmp_path, "reference:mqqb-letter", "-m", "MQCN-3.2.5.1-16 or MQCN-3.3.4.1-1")
    assert result.exit_code == ExitCode.OK, result.output[-3000:]
    document = json.loads((tmp_path / "traceability.json").read_text("utf-8"))
    assert document["transport_findings"] == []
    assert "Transport findings" not in result.output


# --- blame in transport mode as in adapter mode ---------------------------------------------------


class _SidLetter(LetterMqqbTarget):
    """The letter peer whose Version 0x01 client names the sender by a SID (on the wire:
    SecurityHeader.Flags.ST 1), as zoo:NamesItselfBySid does in adapter mode."""

    client_class = zoo.NamesItselfBySid.client_class


def _sid_letter() -> _SidLetter:
    return _SidLetter()


@pytest.mark.parametrize("spec", ["zoo:NamesItselfBySid", f"python:{__name__}:_sid_letter"])
def test_a_sid_sender_is_blamed_on_the_sender_type_in_both_modes(tmp_path: Path, spec: str) -> None:
    result = mqcn_run(tmp_path, spec, "-k", zoo.NamesItselfBySid.SCENARIOS)
    assert result.exit_code == ExitCode.FOUND, result.output[-3000:]
    document = json.loads((tmp_path / "traceability.json").read_text("utf-8"))
    found = {r["id"]: r for r in document["requirements"]}
    assert found["MQCN-3.3.5.3-12"]["verdict"] == "fail"
    assert found["MQCN-3.3.5.3-11"]["verdict"] == "inconclusive"
    assert found["MQCN-3.3.5.3-11"]["stopped_by"] == ["MQCN-3.3.5.3-12"]
