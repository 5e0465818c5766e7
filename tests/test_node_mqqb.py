"""The Node example's MS-MQQB module (examples/node-target/lib/mqqb) against the suite's wire codec.

Two independent codecs written from the same spec must agree: every packet the Node side
writes decodes with ``mqcn_model.wire`` (no structural refusal, no value finding), and the
Node side reads and answers what ``mqcn_model.wire`` builds, in memory and over a real
socket on 127.0.0.1.  ``examples/node-target/tools/mqqb-hex.js`` prints the Node bytes.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqcn_model.builders import queue_creation
from mqcn_model.codec.message import body_buffer, v1_message
from mqcn_model.constants import AuthLevel, HashAlgorithm, SenderIdType
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.wire import encode_user_message
from mqcn_model.wire.internal import (
    EstablishConnection,
    InternalPacket,
    connection_parameters,
    decode_internal,
    encode_internal,
    establish_connection,
)
from mqcn_model.wire.judgement import judge_packet_bytes
from mqcn_model.wire.mapping import envelope_to_packet
from mqcn_model.wire.session import SessionHeader

NODE = shutil.which("node")
TOOL = Path(__file__).resolve().parent.parent / "examples" / "node-target" / "tools" / "mqqb-hex.js"
QM = uuid.UUID("0f2c1e3a-1111-4222-8333-444455556666")  # the acceptor (the Node listener)
ME = uuid.UUID("11111111-2222-4333-8444-555555555555")  # the initiator
NOTIFY = f"PRIVATE={QM}\\3"
BODY = body_buffer(v1_message([queue_creation(uuid.UUID(int=7), "host\\orders", master=ME)]))


@pytest.fixture
def node() -> str:
    """Node.js, which the project's machines have; its absence fails, it is not skipped."""
    assert NODE is not None, "Node.js (20+) is needed to run examples/node-target"
    return NODE


def run_tool(node: str, *args: str, stdin: str = "") -> list[tuple[str, str]]:
    done = subprocess.run(
        [node, str(TOOL), *args], input=stdin, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return [tuple(line.split(" ", 1)) for line in done.stdout.splitlines()]  # type: ignore[misc]


def python_handshake() -> list[bytes]:
    """EstablishConnection and ConnectionParameters requests built by the suite's codec."""
    request = establish_connection(EstablishConnection(ME, QM, timestamp=1234, padding=bytes(512)))
    return [encode_internal(request), encode_internal(connection_parameters(500, 20000, 64))]


def python_user_message(ordinal: int, body: bytes = BODY) -> bytes:
    envelope = Envelope(
        body,
        MessageId(ME, ordinal),
        sender_identifier=ME,
        sender_identifier_type=SenderIdType.QueueManagerIdentifier,
        authentication_level=AuthLevel.Sig20,
        time_to_reach_queue=300,
        hash_algorithm=HashAlgorithm.SHA512,
        destination_format_name=NOTIFY,
    )
    return encode_user_message(envelope_to_packet(envelope))


def internal(raw: bytes, *, response: bool | None = None) -> InternalPacket:
    packet, end = decode_internal(raw, response=response)
    assert end == len(raw)
    assert packet.findings == [], [str(f) for f in packet.findings]
    return packet


def test_every_packet_the_node_sender_and_listener_write_decodes_clean(node: str) -> None:
    spec = {
        "identifier": str(ME),
        "remoteIdentifier": str(QM),
        "messages": [
            {
                "messageId": n,
                "destination": NOTIFY,
                "bodyHex": BODY.hex(),
                "senderIdHex": ME.bytes_le.hex(),
                "signatureHex": "00" * 128,
                "timeToReachQueue": 300,
                "hashAlgorithm": int(HashAlgorithm.SHA512),
                "delivery": n - 1,
            }
            for n in (1, 2)
        ],
    }
    lines = run_tool(node, "send", json.dumps(spec))
    sides = [side for side, _ in lines]
    assert sides == ["initiator", "acceptor"] * 4
    packets = [bytes.fromhex(raw) for _, raw in lines]
    ec, ec_answer, cp, cp_answer = packets[:4]
    request = internal(ec, response=False)
    assert request.kind == "EstablishConnection"
    assert (request.body.client_guid, request.body.server_guid) == (ME, QM)
    answer = internal(ec_answer, response=True)
    assert not answer.internal.refused
    assert (answer.body.client_guid, answer.body.server_guid) == (ME, QM)
    assert answer.body.timestamp == request.body.timestamp
    assert internal(cp).kind == internal(cp_answer).kind == "ConnectionParameters"
    for n, (message, ack) in enumerate(zip(packets[4::2], packets[5::2], strict=True), 1):
        verdict = judge_packet_bytes(message)
        assert verdict.refused is None
        assert verdict.violations == ()
        # MS-MQCN sends Express; the recoverable second message is judged so (3.3.5.3)
        expected = () if n == 1 else ("MQCN-3.3.5.3-3",)
        assert tuple(f.requirement for f in verdict.envelope_findings) == expected
        assert verdict.body is not None and verdict.body.conforming
        envelope = verdict.envelope
        assert envelope is not None
        assert envelope.message_id == MessageId(ME, n)
        assert envelope.sender_identifier == ME
        assert envelope.sender_identifier_type is SenderIdType.QueueManagerIdentifier
        assert envelope.authentication_level is AuthLevel.Sig20
        assert envelope.destination_format_name == NOTIFY
        assert int(envelope.delivery_guarantee) == n - 1
        assert envelope.body == BODY
        session = internal(ack).body
        assert isinstance(session, SessionHeader)
        assert session.ack_sequence == n
        # the second message is recoverable: acknowledged as persisted, bit 0 of sequence 1
        assert (session.recoverable_ack_sequence, session.recoverable_ack_flags) == (
            (0, 0) if n == 1 else (1, 1)
        )


def test_the_node_listener_reads_and_answers_what_the_suite_builds(node: str) -> None:
    chunks = [*python_handshake(), python_user_message(5), python_user_message(6)]
    lines = run_tool(node, "answer", str(QM), stdin="".join(c.hex() + "\n" for c in chunks))
    assert [kind for kind, _ in lines] == ["acceptor", "acceptor", "message", "message", "acceptor"]
    ec = internal(bytes.fromhex(lines[0][1]), response=True)
    assert not ec.internal.refused
    assert (ec.body.client_guid, ec.body.server_guid, ec.body.timestamp) == (ME, QM, 1234)
    cp = internal(bytes.fromhex(lines[1][1]))
    assert (cp.body.recoverable_ack_timeout, cp.body.ack_timeout) == (500, 20000)
    for (_, raw), ordinal in zip(lines[2:4], (5, 6), strict=True):
        seen = json.loads(raw)
        assert bytes.fromhex(seen["bodyHex"]) == BODY
        assert seen["messageId"] == {"sender": str(ME), "ordinal": ordinal}
        assert seen["senderIdentifier"] == str(ME)
        assert seen["signed"] is True
        assert seen["destination"] == NOTIFY
        assert seen["timeToReachQueue"] == 300
    ack = internal(bytes.fromhex(lines[4][1])).body
    assert isinstance(ack, SessionHeader)
    assert (ack.ack_sequence, ack.user_sequence, ack.recoverable_sequence) == (2, 0, 0)


def test_the_node_listener_refuses_a_session_for_another_queue_manager(node: str) -> None:
    other = encode_internal(establish_connection(EstablishConnection(ME, ME, timestamp=1)))
    lines = run_tool(node, "answer", str(QM), stdin=other.hex() + "\n")
    assert [kind for kind, _ in lines] == ["acceptor", "close"]
    assert internal(bytes.fromhex(lines[0][1]), response=True).internal.refused
    assert "refused" in lines[1][1]


@pytest.fixture
def listener(node: str) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """The Node listener on 127.0.0.1 (any port), its stdout giving what it delivers."""
    process = subprocess.Popen(
        [node, str(TOOL), "listen", str(QM)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    first = process.stdout.readline().split()
    assert first[0] == "port", first
    try:
        yield int(first[1]), process
    finally:
        process.stdin.close()
        process.wait(timeout=10)


def receive_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        assert chunk, f"the listener closed after {len(data)} of {size} bytes"
        data += chunk
    return data


def test_a_python_session_over_a_socket_gets_its_session_ack(
    listener: tuple[int, subprocess.Popen[str]],
) -> None:
    port, process = listener
    assert process.stdout is not None
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        ec, cp = python_handshake()
        conn.sendall(ec)
        answer = internal(receive_exactly(conn, 572), response=True)
        assert (answer.body.server_guid, answer.internal.refused) == (QM, False)
        conn.sendall(cp)
        assert internal(receive_exactly(conn, 32)).kind == "ConnectionParameters"
        message = python_user_message(9)
        conn.sendall(message[:7])  # split mid-BaseHeader
        conn.sendall(message[7:])
        ack = internal(receive_exactly(conn, 36))
        assert ack.kind == "SessionAck"
        assert isinstance(ack.body, SessionHeader) and ack.body.ack_sequence == 1
    delivered = process.stdout.readline().split(" ", 1)
    assert delivered[0] == "message"
    seen = json.loads(delivered[1])
    assert bytes.fromhex(seen["bodyHex"]) == BODY
    assert seen["messageId"] == {"sender": str(ME), "ordinal": 9}
    assert process.stdout.readline().strip() == "closed closed by the peer"


def test_garbage_closes_only_its_own_session(listener: tuple[int, subprocess.Popen[str]]) -> None:
    port, process = listener
    assert process.stdout is not None
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: mqcn\r\n\r\n")
        assert conn.recv(100) == b""  # closed, nothing answered
    closed = process.stdout.readline()
    assert closed.startswith("closed not an MS-MQQB packet") and "VersionNumber" in closed
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(python_handshake()[0])
        assert internal(receive_exactly(conn, 572), response=True).kind == "EstablishConnection"
