"""The MS-MQQB socket driver on loopback: connect() against the Listener, and hostile peers."""

from __future__ import annotations

import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import pytest

from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.mqqb import SessionConfig, State
from mqcn_model.mqqb.machine import R_ACK_WAIT, R_FORMAT, R_SIGNATURE
from mqcn_model.wire.internal import (
    EstablishConnection,
    connection_parameters,
    encode_internal,
    establish_connection,
)
from mqcn_model.wire.mapping import envelope_to_packet
from mqcn_model.wire.usermessage import encode_user_message
from mqcn_suite.transport import (
    AckTimeout,
    BindFailed,
    ConnectFailed,
    HandshakeTimeout,
    Listener,
    NotMsmq,
    PartialPacket,
    PeerClosed,
    SessionClosed,
    connect,
)
from mqcn_suite.transport.transcript import IN, OUT

HOST = "127.0.0.1"
CLIENT = uuid.UUID(int=0xC1)
EC_SIZE, CP_SIZE = 572, 32


def envelope(n: int, server: uuid.UUID) -> Envelope:
    return Envelope(
        b"\x02\x01",
        MessageId(CLIENT, n),
        sender_identifier=CLIENT,
        destination_format_name=f"PRIVATE={server}\\3",
    )


def recv_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


@contextmanager
def hostile_peer(behaviour: Callable[[socket.socket], None]) -> Iterator[int]:
    """A one-connection TCP server on loopback that runs ``behaviour`` on what it accepts."""
    server = socket.socket()
    server.bind((HOST, 0))
    server.listen(1)
    server.settimeout(5)
    done = threading.Event()

    def serve() -> None:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            with suppress(OSError):
                behaviour(conn)
            done.wait(5)  # hold the connection open until the test is done with it

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        done.set()
        server.close()
        thread.join(5)


def handshake(conn: socket.socket) -> None:
    """The acceptor's half of a correct handshake, written out by hand."""
    request = recv_exactly(conn, EC_SIZE)
    client = uuid.UUID(bytes_le=request[20:36])
    stamp = int.from_bytes(request[52:56], "little")
    answer = EstablishConnection(client, uuid.UUID(int=0x5E), stamp)
    conn.sendall(encode_internal(establish_connection(answer)))
    recv_exactly(conn, CP_SIZE)
    conn.sendall(encode_internal(connection_parameters(500, 20000, 64)))


# --- the good path ---------------------------------------------------------------------------


def test_an_initiator_sends_to_the_listener_and_each_message_is_acknowledged() -> None:
    got: list[tuple[int, int]] = []
    with Listener(HOST, 0, on_message=lambda s, m: got.append((m.sequence, len(m.data)))) as qm:
        with connect(HOST, qm.port, qm_guid=CLIENT, timeout=5) as session:
            assert session.established.peer_qm == qm.qm_guid
            assert session.established.window_size == 64
            for n in range(1, 21):
                assert session.send_and_wait(envelope(n, qm.qm_guid), timeout=5) == n
        (accepted,) = qm.wait_for_sessions(1, timeout=5)
    wire = encode_user_message(envelope_to_packet(envelope(1, qm.qm_guid)))
    assert got == [(n, len(wire)) for n in range(1, 21)]
    assert [r.packet.user.message_id for r in accepted.received] == list(range(1, 21))
    assert accepted.machine.peer_qm == CLIENT and accepted.error is None
    # the transcript holds every byte, both ways, on both sides
    assert session.transcript.bytes_of(OUT) == accepted.transcript.bytes_of(IN)
    assert session.transcript.bytes_of(IN) == accepted.transcript.bytes_of(OUT)
    summaries = [e.summary for e in session.transcript.entries]
    assert summaries[:4] == [
        "EstablishConnection",
        "EstablishConnection",
        "ConnectionParameters",
        "ConnectionParameters",
    ]
    assert "SessionAck" in summaries and "UserMessage" in summaries
    assert "-> " in session.transcript.render() and "<- " in session.transcript.render()


def test_many_messages_sent_at_once_are_all_acknowledged_through_the_window() -> None:
    config = SessionConfig(uuid.uuid4(), window_size=8, ack_send_delay=0.0)
    with Listener(HOST, 0, config=config) as qm:
        with connect(HOST, qm.port, qm_guid=CLIENT, timeout=5) as session:
            numbers = [session.send(envelope(n, qm.qm_guid)) for n in range(1, 201)]
            session.wait_acknowledged(numbers[-1], timeout=10)
            assert session.acknowledged == set(range(1, 201))
            assert session.established.window_size == 8
        (accepted,) = qm.wait_for_sessions(1, timeout=5)
    assert [r.sequence for r in accepted.received] == list(range(1, 201))


def test_two_listeners_on_port_zero_get_their_own_ports_and_a_taken_port_cannot_be_bound() -> None:
    with Listener(HOST, 0) as one, Listener(HOST, 0) as two:
        assert one.port != two.port and 0 not in (one.port, two.port)
        with pytest.raises(BindFailed, match=f"cannot listen on {HOST}:{one.port}"):
            Listener(HOST, one.port)


def test_sending_on_a_closed_session_says_so() -> None:
    with Listener(HOST, 0) as qm:
        session = connect(HOST, qm.port, timeout=5)
        session.close()
        assert session.machine.state is State.CLOSED
        with pytest.raises(SessionClosed, match="closed by the local side"):
            session.send(envelope(1, qm.qm_guid))


# --- bad input: each a clear exception with the transcript ---------------------------------


def test_a_closed_port_is_a_connect_failure() -> None:
    probe = socket.socket()
    probe.bind((HOST, 0))
    port = probe.getsockname()[1]
    probe.close()  # nobody listens there now
    with pytest.raises(ConnectFailed, match=f"cannot connect to {HOST}:{port}") as info:
        connect(HOST, port, timeout=2)
    assert info.value.transcript.entries == []


def test_a_peer_closing_after_establish_connection() -> None:
    with (
        hostile_peer(lambda conn: recv_exactly(conn, EC_SIZE) and conn.close()) as port,
        pytest.raises(PeerClosed, match="after we sent EstablishConnection") as info,
    ):
        connect(HOST, port, timeout=3)
    assert "WAITING_ECR_MSG" in str(info.value)
    assert [e.summary for e in info.value.transcript.entries] == ["EstablishConnection"]


def test_a_peer_that_never_acknowledges() -> None:
    def silent(conn: socket.socket) -> None:
        handshake(conn)
        while conn.recv(4096):
            pass  # read and never answer

    with (
        hostile_peer(silent) as port,
        connect(HOST, port, timeout=3) as session,
        pytest.raises(AckTimeout, match="UserMessage 1 was not acknowledged") as info,
    ):
        session.send_and_wait(envelope(1, uuid.UUID(int=0x5E)), timeout=0.3)
    assert info.value.requirement == R_ACK_WAIT
    assert [e.summary for e in info.value.transcript.entries][-1] == "UserMessage"


def test_the_ack_wait_timer_closes_a_session_nobody_acknowledges() -> None:
    def silent(conn: socket.socket) -> None:
        request = recv_exactly(conn, EC_SIZE)
        answer = EstablishConnection(uuid.UUID(bytes_le=request[20:36]), uuid.UUID(int=0x5E))
        conn.sendall(encode_internal(establish_connection(answer)))
        recv_exactly(conn, CP_SIZE)
        conn.sendall(encode_internal(connection_parameters(500, 20000, 64)))
        while conn.recv(4096):
            pass

    config = SessionConfig(CLIENT, ack_timeout_ms=100)  # the timer: 0.1 s (below 2.2.2.1)
    with (
        hostile_peer(silent) as port,
        connect(HOST, port, config=config, timeout=3) as session,
    ):
        session.send(envelope(1, uuid.UUID(int=0x5E)))
        assert session.wait_closed(3)
        assert isinstance(session.error, AckTimeout)
        assert session.error.requirement == R_ACK_WAIT


def test_a_non_msmq_banner() -> None:
    with (
        hostile_peer(lambda conn: conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")) as port,
        pytest.raises(NotMsmq, match="does not speak MS-MQQB") as info,
    ):
        connect(HOST, port, timeout=3)
    assert info.value.requirement == R_SIGNATURE
    assert info.value.transcript.entries[-1].data.startswith(b"SSH-2.0")
    assert info.value.transcript.entries[-1].summary == f"not a packet ({R_SIGNATURE})"


def test_half_a_packet_then_silence_from_the_acceptor() -> None:
    def half(conn: socket.socket) -> None:
        recv_exactly(conn, EC_SIZE)
        answer = EstablishConnection(CLIENT, uuid.UUID(int=0x5E))
        conn.sendall(encode_internal(establish_connection(answer))[:100])

    config = SessionConfig(CLIENT, initialization_timeout=30)
    with (
        hostile_peer(half) as port,
        pytest.raises(PartialPacket, match="100 of 572 bytes arrived") as info,
    ):
        connect(HOST, port, config=config, timeout=0.5)
    assert "half a packet then silence" in str(info.value)
    assert info.value.transcript.entries[-1].summary == "part of a packet (100 of 572 B)"


def test_half_a_packet_then_close_from_the_acceptor() -> None:
    def half(conn: socket.socket) -> None:
        recv_exactly(conn, EC_SIZE)
        answer = EstablishConnection(CLIENT, uuid.UUID(int=0x5E))
        conn.sendall(encode_internal(establish_connection(answer))[:100])
        conn.shutdown(socket.SHUT_WR)

    with (
        hostile_peer(half) as port,
        pytest.raises(PartialPacket, match="in the middle of a packet") as info,
    ):
        connect(HOST, port, timeout=3)
    assert info.value.requirement == R_FORMAT


def test_a_sender_that_sends_half_a_packet_to_the_listener() -> None:
    config = SessionConfig(uuid.uuid4(), initialization_timeout=0.3)
    with Listener(HOST, 0, config=config) as qm:
        request = encode_internal(establish_connection(EstablishConnection(CLIENT)))
        with socket.create_connection((HOST, qm.port), timeout=3) as raw:
            raw.sendall(request[:50])
            (session,) = qm.wait_for_sessions(1, timeout=5)
            assert session.closed
    assert isinstance(session.error, PartialPacket)
    assert "half a packet then silence" in str(session.error)
    assert "50 of 572 bytes of a packet" in str(session.error)
    assert session.transcript.entries[0].data == request[:50]


def test_a_silent_peer_times_out_the_handshake() -> None:
    with (
        hostile_peer(lambda conn: recv_exactly(conn, EC_SIZE)) as port,
        pytest.raises(HandshakeTimeout, match=r"handshake did not complete within 0\.3 s"),
    ):
        connect(HOST, port, timeout=0.3)
