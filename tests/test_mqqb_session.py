"""The MS-MQQB session machine alone: both roles against each other on a virtual clock."""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqcn_model.capture.dissect import MSMQ_PORT
from mqcn_model.capture.writer import PcapWriter
from mqcn_model.catalog import SESSION_ROLE, WIRE_CATALOG
from mqcn_model.clock import VirtualClock
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.mqqb import Role, SessionConfig, SessionMachine, State
from mqcn_model.mqqb import events as E
from mqcn_model.mqqb import machine as S
from mqcn_model.wire.internal import (
    EstablishConnection,
    connection_parameters,
    decode_internal,
    encode_internal,
    establish_connection,
    session_ack,
)
from mqcn_model.wire.mapping import envelope_to_packet
from mqcn_model.wire.session import SessionHeader
from mqcn_model.wire.user import DM_SHIFT
from mqcn_model.wire.usermessage import UserMessage, decode_user_message, encode_user_message

F = TypeVar("F")
CLIENT, SERVER = uuid.UUID(int=0xC1), uuid.UUID(int=0x5E)
# the session rules the tests below break or keep, declared at import (checked complete at
# the end, whatever order or subset of the tests runs)
COVERED: set[str] = set()


def covers(*requirements: str) -> Callable[[F], F]:
    COVERED.update(requirements)
    return lambda test: test


EVIDENCE = (E.ProtocolError, E.SessionFinding, E.PacketReceived, E.UserMessageReceived)


@pytest.fixture(autouse=True)
def _evidence_is_the_peers_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every effect that reports what the peer sent -- a broken rule (ProtocolError,
    SessionFinding), a packet, a message -- carries the bytes it was found in: some of the
    bytes the peer sent, never nothing (what a vendor reads in the report)."""
    handle = SessionMachine.handle
    heard: dict[int, bytearray] = {}

    def checked(machine: SessionMachine, event: E.Event) -> list[E.Effect]:
        got = heard.setdefault(id(machine), bytearray())
        if isinstance(event, E.DataReceived):
            got += event.data
        out = handle(machine, event)
        for effect in out:
            if isinstance(effect, EVIDENCE):
                assert isinstance(effect.data, bytes) and effect.data, effect
                assert effect.data in got, effect
        return out

    monkeypatch.setattr(SessionMachine, "handle", checked)


def envelope(n: int = 1, body: bytes = b"\x02\x01") -> Envelope:
    return Envelope(
        body,
        MessageId(CLIENT, n),
        sender_identifier=CLIENT,
        destination_format_name=f"PRIVATE={SERVER}\\3",
    )


def sent(effects: list[E.Effect]) -> bytes:
    return b"".join(e.data for e in effects if isinstance(e, E.SendBytes))


def of(kind: type, effects: list[E.Effect]) -> list:
    return [e for e in effects if isinstance(e, kind)]


@dataclass
class Side:
    """One machine with its timers on the shared virtual clock, and all it ever emitted."""

    machine: SessionMachine
    clock: VirtualClock
    deadlines: dict[str, float] = field(default_factory=dict)
    effects: list[E.Effect] = field(default_factory=list)

    def handle(self, event: E.Event) -> list[E.Effect]:
        out = self.machine.handle(event)
        for effect in out:
            if isinstance(effect, E.StartTimer):
                self.deadlines[effect.name] = self.clock.now + effect.seconds
            elif isinstance(effect, E.CancelTimer):
                self.deadlines.pop(effect.name, None)
        self.effects += out
        return out


@dataclass
class Pair:
    """An initiator and an acceptor joined by a perfect wire; ``pump`` carries the bytes."""

    a: Side
    b: Side
    clock: VirtualClock

    @classmethod
    def make(cls, *, a_config: dict | None = None, b_config: dict | None = None) -> Pair:
        clock = VirtualClock(1000.0)
        a = SessionMachine(
            Role.INITIATOR, SessionConfig(CLIENT, **(a_config or {})), lambda: clock.now
        )
        b = SessionMachine(
            Role.ACCEPTOR, SessionConfig(SERVER, **(b_config or {})), lambda: clock.now
        )
        return cls(Side(a, clock), Side(b, clock), clock)

    def open(self, rtt: float = 0.0) -> None:
        self.b.handle(E.Connected())
        wire = sent(self.a.handle(E.Connected()))
        self.clock.advance(rtt)
        self.deliver(self.a, self.b, sent(self.b.handle(E.DataReceived(wire))))

    def deliver(self, to: Side, other: Side, data: bytes) -> None:
        """Give ``data`` to ``to``; what it answers goes to ``other``, and so on."""
        while data:
            data = sent(to.handle(E.DataReceived(data)))
            to, other = other, to

    def send(self, message: object) -> list[E.Effect]:
        out = self.a.handle(E.SendUserMessage(message))
        self.deliver(self.b, self.a, sent(out))
        return out

    def advance(self, seconds: float) -> None:
        """Move time on, firing each timer that falls due, in deadline order."""
        end = self.clock.now + seconds
        while True:
            due = [
                (t, side, name)
                for side in (self.a, self.b)
                for name, t in side.deadlines.items()
                if t <= end
            ]
            if not due:
                break
            t, side, name = min(due, key=lambda d: d[0])
            self.clock.now = max(self.clock.now, t)
            del side.deadlines[name]
            other = self.b if side is self.a else self.a
            self.deliver(other, side, sent(side.handle(E.TimerFired(name))))
        self.clock.now = end


@covers(S.R_RTT)
def test_the_handshake_exchanges_the_four_packets_and_opens_both_sides() -> None:
    pair = Pair.make(b_config={"window_size": 16})
    pair.open(rtt=0.1)
    assert pair.a.machine.state is State.OPEN and pair.b.machine.state is State.OPEN
    kinds_a = [e.kind for e in of(E.SendBytes, pair.a.effects)]
    kinds_b = [e.kind for e in of(E.SendBytes, pair.b.effects)]
    assert kinds_a == ["EstablishConnection", "ConnectionParameters"]
    assert kinds_b == ["EstablishConnection", "ConnectionParameters"]
    (up_a,) = of(E.SessionEstablished, pair.a.effects)
    (up_b,) = of(E.SessionEstablished, pair.b.effects)
    assert (up_a.peer_qm, up_b.peer_qm) == (SERVER, CLIENT)
    assert (up_a.window_size, up_b.window_size) == (16, 64)
    # 8 x the 100 ms round trip (R_RTT), the same on both sides; the AckTimeout proposed
    assert up_a.recoverable_ack_timeout_ms == up_b.recoverable_ack_timeout_ms == 800
    assert up_a.ack_timeout_ms == up_b.ack_timeout_ms == 20000
    # the initialization timers stopped, the cleanup timers run
    assert set(pair.a.deadlines) == set(pair.b.deadlines) == {E.CLEANUP}


def test_the_round_trip_timeout_is_held_within_its_range() -> None:
    for rtt, expected in ((0.0, 500), (1.0, 8000), (100.0, 120000)):
        pair = Pair.make()
        pair.open(rtt=rtt)
        assert pair.a.machine.recoverable_ack_timeout_ms == expected


def test_the_round_trip_is_measured_across_the_millisecond_stamps_wrap() -> None:
    """TimeStamp is 32 bits of milliseconds (3.1.5.2.3): a request stamped 50 ms before the
    wrap, answered 100 ms later, took 100 ms (8 x: 800), not 49 days."""
    pair = Pair.make()
    pair.clock.now = ((1 << 32) - 50) / 1000
    pair.open(rtt=0.1)
    assert pair.a.machine.recoverable_ack_timeout_ms == 800


@covers(S.R_EC_RESPONSE, S.R_CP_RESPONSE)
def test_the_acceptor_echoes_the_request_and_answers_with_its_own_guid() -> None:
    machine = SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER, window_size=7))
    machine.handle(E.Connected())
    request = EstablishConnection(CLIENT, uuid.UUID(int=0), 123456, 0x0010)  # SE clear
    answer = sent(machine.handle(E.DataReceived(encode_internal(establish_connection(request)))))
    packet, _ = decode_internal(answer, response=True)
    assert packet.body.client_guid == CLIENT and packet.body.server_guid == SERVER
    assert packet.body.timestamp == 123456 and packet.body.operating_system == 0x0010
    assert not packet.internal.refused and packet.findings == []
    assert machine.state is State.WAITING_CP_MSG
    reply = sent(
        machine.handle(E.DataReceived(encode_internal(connection_parameters(900, 30000, 3))))
    )
    parameters, _ = decode_internal(reply)
    assert (parameters.body.recoverable_ack_timeout, parameters.body.ack_timeout) == (900, 30000)
    assert parameters.body.window_size == 7 and machine.state is State.OPEN
    assert machine.peer_window == 3


@covers(S.R_EC_VALID)
def test_a_request_for_another_queue_manager_is_refused_and_the_initiator_closes() -> None:
    pair = Pair.make(a_config={"remote_qm": uuid.UUID(int=0xBAD)})
    pair.open()
    (refusal,) = of(E.SendBytes, pair.b.effects)
    assert decode_internal(refusal.data)[0].internal.refused
    (error,) = of(E.ProtocolError, pair.a.effects)
    assert error.requirement == S.R_EC_VALID and "CS is set" in error.what
    assert "ServerGuid" in error.what
    assert pair.a.machine.state is State.CLOSED
    assert of(E.SessionClosed, pair.a.effects)[-1].requirement == S.R_EC_VALID


@covers(S.R_EC_RESPONSE, S.R_EC_VALID)
def test_an_acceptor_playing_other_queue_managers_answers_as_the_one_named() -> None:
    """[MS-MQQB] 3.1.5.3.1 (errata W-11): a request naming a queue manager the acceptor
    answers as is accepted, CS clear, and answered with that GUID; GUID_NULL and its own GUID
    get its own; any other is refused with CS set."""
    played = uuid.UUID(int=0xAB)
    for named, refused, answered in (
        (played, False, played),
        (uuid.UUID(int=0), False, SERVER),
        (SERVER, False, SERVER),
        (uuid.UUID(int=0xCD), True, SERVER),
    ):
        config = SessionConfig(SERVER, answers_as=frozenset({played}))
        machine = SessionMachine(Role.ACCEPTOR, config)
        machine.handle(E.Connected())
        request = EstablishConnection(CLIENT, named, 1, 0)
        answer = sent(
            machine.handle(E.DataReceived(encode_internal(establish_connection(request))))
        )
        packet, _ = decode_internal(answer, response=True)
        assert packet.internal.refused is refused, named
        assert packet.body.server_guid == answered, named
    pair = Pair.make(a_config={"remote_qm": played}, b_config={"answers_as": frozenset({played})})
    pair.open()
    assert pair.a.machine.state is State.OPEN and pair.a.machine.peer_qm == played


def test_an_acceptor_answering_any_queue_manager_refuses_no_session() -> None:
    """``answers_any`` (an auditor: `mqcn listen`): whatever GUID the request names is
    accepted and answered as; GUID_NULL gets the acceptor's own."""
    for named, answered in ((uuid.UUID(int=0xCD), uuid.UUID(int=0xCD)), (uuid.UUID(int=0), SERVER)):
        machine = SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER, answers_any=True))
        machine.handle(E.Connected())
        request = EstablishConnection(CLIENT, named, 1, 0)
        answer = sent(
            machine.handle(E.DataReceived(encode_internal(establish_connection(request))))
        )
        packet, _ = decode_internal(answer, response=True)
        assert not packet.internal.refused and packet.body.server_guid == answered


def test_a_letter_session_ack_leaves_the_session_header_out_of_packet_size() -> None:
    """Errata W-01: with ``letter_session_ack`` the acceptor's SessionAck says PacketSize 20
    ([MS-MQMQ] 2.2.19.1), else 36 (Windows); the initiator reads either and is acknowledged."""
    for letter, size in ((False, 36), (True, 20)):
        pair = Pair.make(b_config={"letter_session_ack": letter, "ack_send_delay": 0.0})
        pair.open()
        pair.send(envelope())
        pair.advance(1.0)
        (ack,) = [e for e in of(E.SendBytes, pair.b.effects) if e.kind == "SessionAck"]
        assert len(ack.data) == 36 and int.from_bytes(ack.data[8:12], "little") == size
        assert [e.sequence for e in of(E.MessageAcknowledged, pair.a.effects)] == [1]


@covers(S.R_SEQUENCE)
def test_one_message_is_received_numbered_and_acknowledged_on_the_ack_send_timer() -> None:
    pair = Pair.make()
    pair.open()
    out = pair.send(envelope())
    assert of(E.UserMessageSent, out) == [E.UserMessageSent(1)]
    (got,) = of(E.UserMessageReceived, pair.b.effects)
    assert got.sequence == 1 and got.data == encode_user_message(envelope_to_packet(envelope()))
    assert got.packet.user.message_id == 1
    assert of(E.MessageAcknowledged, pair.a.effects) == []
    assert E.ACK_SEND in pair.b.deadlines and E.ACK_WAIT in pair.a.deadlines
    pair.advance(0.5)
    assert of(E.MessageAcknowledged, pair.a.effects) == [E.MessageAcknowledged(1)]
    assert E.ACK_WAIT not in pair.a.deadlines  # nothing awaits acknowledgment


def test_many_messages_keep_their_order_and_numbers_and_are_all_acknowledged() -> None:
    pair = Pair.make()
    pair.open()
    for n in range(1, 301):
        pair.send(envelope(n))
    pair.advance(1)
    received = of(E.UserMessageReceived, pair.b.effects)
    assert [r.sequence for r in received] == list(range(1, 301))
    assert [r.packet.user.message_id for r in received] == list(range(1, 301))
    acked = [e.sequence for e in of(E.MessageAcknowledged, pair.a.effects)]
    assert acked == list(range(1, 301))
    # at half of the 64 window the acceptor acknowledges without waiting for its timer
    assert len(of(E.SendBytes, pair.b.effects)) - 2 == 300 // 32 + 1
    assert pair.a.machine.state is State.OPEN and pair.b.machine.state is State.OPEN


@covers(S.R_WINDOW)
def test_a_full_window_holds_messages_until_the_peer_acknowledges() -> None:
    pair = Pair.make(b_config={"window_size": 4})
    pair.open()
    a = pair.a
    wire = []
    for n in range(1, 8):
        out = a.handle(E.SendUserMessage(envelope(n)))
        wire.append(sent(out))
    assert [e.sequence for e in of(E.UserMessageSent, a.effects)] == [1, 2, 3, 4]
    assert [e.sequence for e in of(E.UserMessageHeld, a.effects)] == [5, 6, 7]
    assert len(a.machine.awaiting) == 4
    # the acceptor acknowledges 1-2 (half its window), then 3-4: the held ones go out
    pair.deliver(pair.b, a, b"".join(wire))
    pair.advance(1)
    assert [e.sequence for e in of(E.UserMessageSent, a.effects)] == list(range(1, 8))
    assert [e.sequence for e in of(E.MessageAcknowledged, a.effects)] == list(range(1, 8))


def test_the_receiver_acknowledges_at_half_its_window_and_the_rest_on_its_timer() -> None:
    pair = Pair.make(b_config={"window_size": 4})
    pair.open()
    for n in range(1, 8):
        pair.send(envelope(n))
    acks = [decode_internal(e.data)[0].body for e in of(E.SendBytes, pair.b.effects)[2:]]
    assert [a.ack_sequence for a in acks] == [2, 4, 6]  # no timer has run yet
    pair.advance(0.5)
    acks = [decode_internal(e.data)[0].body for e in of(E.SendBytes, pair.b.effects)[2:]]
    assert [a.ack_sequence for a in acks] == [2, 4, 6, 7]
    assert {(a.user_sequence, a.window_size) for a in acks} == {(0, 4)}


def test_messages_sent_before_the_session_opens_wait_for_it() -> None:
    pair = Pair.make()
    pair.b.handle(E.Connected())
    first = sent(pair.a.handle(E.Connected()))
    held = pair.a.handle(E.SendUserMessage(envelope()))
    assert of(E.UserMessageHeld, held) == [E.UserMessageHeld(1)] and sent(held) == b""
    pair.deliver(pair.b, pair.a, first)
    assert [e.sequence for e in of(E.UserMessageReceived, pair.b.effects)] == [1]


@covers(S.R_ACK_WAIT)
def test_no_acknowledgment_closes_the_session_on_the_second_ack_wait_expiry() -> None:
    pair = Pair.make()
    pair.open()
    a = pair.a
    a.handle(E.SendUserMessage(envelope()))  # never delivered: no acknowledgment ever comes
    assert a.deadlines[E.ACK_WAIT] == pair.clock.now + 20
    pair.advance(20)  # packets came since the handshake: ReceivedAck was TRUE, restarted
    assert a.machine.state is State.OPEN and E.ACK_WAIT in a.deadlines
    pair.advance(20)
    closed = of(E.SessionClosed, a.effects)[-1]
    assert closed.requirement == S.R_ACK_WAIT and "UserMessage 1" in closed.reason
    assert a.machine.state is State.CLOSED and a.deadlines == {}


def test_the_ack_wait_multiple_stretches_the_timer() -> None:
    pair = Pair.make(a_config={"ack_wait_multiple": 3})
    pair.open()
    pair.a.handle(E.SendUserMessage(envelope()))
    assert pair.a.deadlines[E.ACK_WAIT] == pair.clock.now + 60


def test_an_idle_session_is_closed_by_the_cleanup_timer_a_busy_one_is_not() -> None:
    pair = Pair.make(a_config={"cleanup_timeout": 10}, b_config={"cleanup_timeout": 100})
    pair.open()
    pair.advance(5)
    pair.send(envelope())
    pair.advance(6)  # the first expiry sees activity: restart
    assert pair.a.machine.state is State.OPEN
    pair.advance(10)  # idle since
    assert pair.a.machine.state is State.CLOSED
    assert of(E.SessionClosed, pair.a.effects)[-1].reason == "the session was idle"


def test_a_handshake_that_never_finishes_is_closed_by_the_initialization_timer() -> None:
    clock = VirtualClock()
    side = Side(
        SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER, initialization_timeout=2)), clock
    )
    side.handle(E.Connected())
    assert side.deadlines[E.INITIALIZATION] == 2
    out = side.handle(E.TimerFired(E.INITIALIZATION))
    assert side.machine.state is State.CLOSED
    assert "initialization timed out in state WAITING_EC_MSG" in of(E.SessionClosed, out)[0].reason


@covers(S.R_SIGNATURE)
def test_a_non_msmq_banner_is_a_protocol_error_and_closes() -> None:
    machine = SessionMachine(Role.INITIATOR, SessionConfig(CLIENT))
    machine.handle(E.Connected())
    out = machine.handle(E.DataReceived(b"SSH-2.0-OpenSSH_9.6\r\n"))
    error, closed = of(E.ProtocolError, out)[0], of(E.SessionClosed, out)[0]
    assert error.requirement == S.R_SIGNATURE and "not an MS-MQQB packet" in error.what
    assert "MQMQ-2.2.19.1-1" in error.what and error.data.startswith(b"SSH")
    assert closed.requirement == S.R_SIGNATURE and isinstance(out[-1], E.SessionClosed)
    assert machine.state is State.CLOSED
    assert machine.handle(E.DataReceived(b"more")) == []  # after closing: nothing
    assert machine.handle(E.TimerFired(E.CLEANUP)) == []


@covers(S.R_FORMAT)
def test_an_unreadable_packet_is_a_protocol_error_naming_the_structure() -> None:
    machine = SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER))
    machine.handle(E.Connected())
    wire = bytearray(encode_internal(connection_parameters(500, 20000, 64)))
    wire[18:20] = (7).to_bytes(2, "little")  # InternalHeader.Flags.PT 7
    out = machine.handle(E.DataReceived(bytes(wire)))
    (error,) = of(E.ProtocolError, out)
    assert error.requirement == S.R_FORMAT and "MQQB-2.2.1-1" in error.what
    assert of(E.PacketReceived, out)[0].kind == "unreadable packet"


@covers(S.R_USER_STATE, S.R_ACK_STATE, S.R_CP_STATE, S.R_EC_STATE)
def test_packets_out_of_turn_close_the_session_with_their_rule() -> None:
    user = encode_user_message(envelope_to_packet(envelope()))
    ack = encode_internal(session_ack(SessionHeader()))
    ec = encode_internal(establish_connection(EstablishConnection(CLIENT)))
    cp = encode_internal(connection_parameters(500, 20000, 64))
    cases = [
        (user, S.R_USER_STATE, "UserMessage Packet arrived in state WAITING_EC_MSG"),
        (ack, S.R_ACK_STATE, "SessionAck Packet arrived in state WAITING_EC_MSG"),
        (cp, S.R_CP_STATE, "ConnectionParameters Packet arrived in state WAITING_EC_MSG"),
    ]
    for data, requirement, what in cases:
        machine = SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER))
        machine.handle(E.Connected())
        (error,) = of(E.ProtocolError, machine.handle(E.DataReceived(data)))
        assert (error.requirement, what in error.what) == (requirement, True)
    pair = Pair.make()
    pair.open()
    (error,) = of(E.ProtocolError, pair.b.handle(E.DataReceived(ec)))
    assert error.requirement == S.R_EC_STATE
    assert error.what == "a EstablishConnection Packet arrived in state OPEN (acceptor)"
    # an EstablishConnection reaching an open initiator is no response to its request: its
    # Padding (0x5A only in a response, 2.2.3.1) is not judged, only its turn
    unpadded = EstablishConnection(CLIENT, padding=bytes(512))
    out = pair.a.handle(E.DataReceived(encode_internal(establish_connection(unpadded))))
    assert [type(e) for e in out if isinstance(e, E.ProtocolError | E.SessionFinding)] == [
        E.ProtocolError
    ]


def test_connected_twice_is_the_callers_mistake() -> None:
    machine = SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER))
    machine.handle(E.Connected())
    with pytest.raises(RuntimeError, match=r"^Connected twice$"):
        machine.handle(E.Connected())


# --- what the peer did wrong and the session survives: SessionFinding ---------------------------


def _findings(effects: list[E.Effect]) -> list[tuple[str | None, str]]:
    return [(f.requirement, f.what) for f in of(E.SessionFinding, effects)]


def _initiator_answered(answer: EstablishConnection) -> tuple[SessionMachine, list[E.Effect]]:
    """An initiator (its clock at 0: TimeStamp 0, SE set) given ``answer`` as the response."""
    machine = SessionMachine(Role.INITIATOR, SessionConfig(CLIENT))
    machine.handle(E.Connected())
    return machine, machine.handle(E.DataReceived(encode_internal(establish_connection(answer))))


def test_a_conforming_pair_reports_no_finding() -> None:
    """Both roles of the suite's own machine, express and recoverable messages both ways,
    acknowledgments on the timer and at half the window: not one SessionFinding."""
    pair = Pair.make(a_config={"window_size": 4}, b_config={"window_size": 4})
    pair.open(rtt=0.01)
    packet = envelope_to_packet(envelope())
    recoverable = replace(
        packet, user=replace(packet.user, flags=packet.user.flags | 1 << DM_SHIFT)
    )
    for n in range(40):
        pair.send(recoverable if n % 3 else envelope(n))
        pair.deliver(pair.a, pair.b, sent(pair.b.handle(E.SendUserMessage(envelope(100 + n)))))
        pair.advance(0.3)
    pair.advance(5)
    assert pair.b.machine.received == 40 and pair.a.machine.received == 40
    assert _findings(pair.a.effects) == _findings(pair.b.effects) == []


@covers(S.R_ACKED_SENT)
def test_an_acknowledgment_of_more_than_was_sent_is_a_finding() -> None:
    """[MS-MQMQ] 2.2.20.4: AckSequenceNumber counts what the peer received -- between what it
    acknowledged before and what we sent (16-bit counts); one more than we sent, or fewer
    than before, is a finding; the session goes on."""
    pair = Pair.make()
    pair.open()
    pair.a.handle(E.SendUserMessage(envelope()))  # one message sent, not delivered

    def ack(n: int) -> list[tuple[str | None, str]]:
        packet = encode_internal(session_ack(SessionHeader(n)))
        return _findings(pair.a.handle(E.DataReceived(packet)))

    between = "not between the {} acknowledged before and the {} UserMessage(s) sent"
    assert ack(2) == [(S.R_ACKED_SENT, "AckSequenceNumber is 2: " + between.format(0, 1))]
    assert pair.a.machine.state is State.OPEN
    assert ack(0) == [] and ack(1) == [] and ack(1) == []  # the window's two ends
    assert ack(0) == [(S.R_ACKED_SENT, "AckSequenceNumber is 0: " + between.format(1, 1))]
    pair.a.machine.sent = 2  # counts wrap at 16 bits: from 0xFFFF on, 0 and 1 are ahead
    for n, found in ((0xFFFF, False), (0, False), (2, False), (3, True), (0xFFFE, True)):
        pair.a.machine.peer_acked = 0xFFFF
        assert bool(ack(n)) is found, n


@covers(S.R_RECOVERABLE_ACKED_SENT)
def test_a_recoverable_acknowledgment_of_a_message_never_sent_is_a_finding() -> None:
    pair = Pair.make()
    pair.open()
    packet = envelope_to_packet(envelope())
    recoverable = replace(
        packet, user=replace(packet.user, flags=packet.user.flags | 1 << DM_SHIFT)
    )
    pair.a.handle(E.SendUserMessage(recoverable))  # recoverable message 1, not delivered
    cases = ((1, 0b11, 2), (2, 0b1, 2), (5, 0, 5), (0xFFFF, 0b11, 0xFFFF), (5, 0b10, 5), (0, 1, 0))
    for first, flags, named in cases:
        header = SessionHeader(1, first, flags)
        out = pair.a.handle(E.DataReceived(encode_internal(session_ack(header))))
        ((requirement, what),) = _findings(out)
        assert requirement == S.R_RECOVERABLE_ACKED_SENT
        assert f"name recoverable message {named}: 1 recoverable UserMessage(s) sent" in what
    for first, flags in ((1, 0b1), (0, 0), (1, 0)):
        header = SessionHeader(1, first, flags)
        out = pair.a.handle(E.DataReceived(encode_internal(session_ack(header))))
        assert _findings(out) == [], (first, flags)
    pair.a.machine.recoverable_sent_ever = 0x10000  # the count went round: every number was sent
    header = SessionHeader(1, 0xFFFF, 0b11)  # 0xFFFF and 0
    assert _findings(pair.a.handle(E.DataReceived(encode_internal(session_ack(header))))) == []


@covers(S.R_EC_RESPONSE)
def test_a_response_that_does_not_echo_the_request_is_a_finding() -> None:
    """[MS-MQQB] 3.1.5.3.1: the response carries the request's TimeStamp and SE bit; the
    initiator (3.1.5.3.2 checks only the GUIDs and CS) goes on."""
    good = EstablishConnection(CLIENT, SERVER, 0)
    machine, out = _initiator_answered(good)
    assert _findings(out) == [] and machine.state is State.WAITING_CPR_MSG
    machine, out = _initiator_answered(replace(good, timestamp=77))
    assert _findings(out) == [
        (
            S.R_EC_RESPONSE,
            "the EstablishConnection response does not echo the request: "
            "TimeStamp is 77, not the request's 0",
        )
    ]
    assert machine.state is State.WAITING_CPR_MSG
    _, out = _initiator_answered(
        replace(good, timestamp=5, operating_system=good.operating_system & ~0x100)
    )
    assert _findings(out) == [
        (
            S.R_EC_RESPONSE,
            "the EstablishConnection response does not echo the request: "
            "TimeStamp is 5, not the request's 0; OperatingSystem.SE differs from the request's",
        )
    ]


def test_a_response_padding_not_0x5a_is_a_finding_at_its_byte() -> None:
    """A value rule of the packet (MQQB-2.2.3.1-3): the decoded packet's finding, surfaced
    with its byte offset; the session goes on."""
    padding = b"\x5a" * 100 + b"\x00" + b"\x5a" * 411
    machine, out = _initiator_answered(EstablishConnection(CLIENT, SERVER, 0, padding=padding))
    assert _findings(out) == [
        ("MQQB-2.2.3.1-3", "EstablishConnection: a response's Padding byte is not 0x5A (byte 160)")
    ]
    assert machine.state is State.WAITING_CPR_MSG


@covers(S.R_CP_RESPONSE)
def test_a_parameters_response_that_does_not_echo_the_request_is_a_finding() -> None:
    machine, _ = _initiator_answered(EstablishConnection(CLIENT, SERVER, 0))
    proposed = (machine.recoverable_ack_timeout_ms, machine.ack_timeout_ms)
    answer = connection_parameters(proposed[0], 30000, 64)
    out = machine.handle(E.DataReceived(encode_internal(answer)))
    assert _findings(out) == [
        (
            S.R_CP_RESPONSE,
            "the ConnectionParameters response does not echo the request: "
            f"AckTimeout is 30000 ms, not the request's {proposed[1]}",
        )
    ]
    assert machine.state is State.OPEN
    machine, _ = _initiator_answered(EstablishConnection(CLIENT, SERVER, 0))
    answer = connection_parameters(proposed[0] + 1, 30000, 64)
    out = machine.handle(E.DataReceived(encode_internal(answer)))
    assert _findings(out) == [
        (
            S.R_CP_RESPONSE,
            "the ConnectionParameters response does not echo the request: "
            f"RecoverableAckTimeout is {proposed[0] + 1} ms, not the request's {proposed[0]}; "
            f"AckTimeout is 30000 ms, not the request's {proposed[1]}",
        )
    ]
    machine, _ = _initiator_answered(EstablishConnection(CLIENT, SERVER, 0))
    out = machine.handle(E.DataReceived(encode_internal(connection_parameters(*proposed, 1))))
    assert _findings(out) == [] and machine.state is State.OPEN


def test_a_packet_value_rule_of_a_request_is_a_finding() -> None:
    """An acceptor given a ConnectionParameters request whose AckTimeout is out of range
    (MQQB-2.2.2.1-2): a finding at its byte; the session opens all the same."""
    machine = SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER))
    machine.handle(E.Connected())
    request = EstablishConnection(CLIENT, uuid.UUID(int=0), 1)
    machine.handle(E.DataReceived(encode_internal(establish_connection(request))))
    out = machine.handle(E.DataReceived(encode_internal(connection_parameters(900, 100, 8))))
    assert _findings(out) == [
        ("MQQB-2.2.2.1-2", "ConnectionParameters: AckTimeout is 100 ms (byte 24)")
    ]
    assert machine.state is State.OPEN


def test_a_session_ack_in_the_windows_form_from_a_letter_peer_is_a_finding() -> None:
    """Errata W-01: a peer whose hello says it follows the letter (the suite then writes and
    expects PacketSize 20) sending a 36-byte SessionAck contradicts its own reading; one
    following Windows may send either (the letter is never a finding)."""
    for ours, theirs, found in ((True, False, True), (True, True, False), (False, True, False)):
        pair = Pair.make(
            a_config={"letter_session_ack": ours},
            b_config={"letter_session_ack": theirs, "ack_send_delay": 0.0},
        )
        pair.open()
        pair.send(envelope())
        pair.advance(1.0)
        findings = _findings(pair.a.effects)
        said = (
            "SessionAck: PacketSize is 36, counting its SessionHeader, though the peer follows "
            "the letter (W-01: 20)"
        )
        assert findings == ([("MQMQ-2.2.19.1-3", said)] if found else []), (ours, theirs)
        assert pair.a.machine.state is State.OPEN
        assert [e.sequence for e in of(E.MessageAcknowledged, pair.a.effects)] == [1]


@covers(S.R_COUNTS)
def test_a_session_ack_with_wrong_counts_closes_the_session() -> None:
    pair = Pair.make()
    pair.open()
    bad = encode_internal(session_ack(SessionHeader(ack_sequence=0, user_sequence=5)))
    (error,) = of(E.ProtocolError, pair.a.handle(E.DataReceived(bad)))
    assert error.requirement == S.R_COUNTS and "sent 5 UserMessages" in error.what


def test_recoverable_messages_are_counted_and_acknowledged_with_their_flags() -> None:
    pair = Pair.make()
    pair.open()
    packet = envelope_to_packet(envelope())
    recoverable = replace(
        packet, user=replace(packet.user, flags=packet.user.flags | 1 << DM_SHIFT)
    )
    for _ in range(3):
        pair.send(recoverable)
    pair.send(envelope())  # express
    pair.advance(1)
    assert pair.b.machine.recoverable_received == 3 and pair.a.machine.recoverable_sent == 3
    ack = of(E.SendBytes, pair.b.effects)[-1]
    header = decode_internal(ack.data)[0].body
    assert (header.ack_sequence, header.recoverable_ack_sequence) == (4, 1)
    assert header.recoverable_ack_flags == 0b111
    assert [e.sequence for e in of(E.MessageAcknowledged, pair.a.effects)] == [1, 2, 3, 4]


def test_a_piggy_backed_session_header_acknowledges() -> None:
    pair = Pair.make()
    pair.open()
    pair.a.handle(E.SendUserMessage(envelope()))  # not delivered
    reply = replace(envelope_to_packet(envelope(9)), session=SessionHeader(ack_sequence=1))
    reply = replace(reply, base=replace(reply.base, flags=reply.base.flags | 0x10))
    pair.a.handle(E.DataReceived(encode_user_message(reply)))
    assert of(E.MessageAcknowledged, pair.a.effects) == [E.MessageAcknowledged(1)]
    assert of(E.UserMessageReceived, pair.a.effects)[0].sequence == 1


def test_close_stops_every_timer_and_ends_the_session() -> None:
    pair = Pair.make()
    pair.open()
    pair.a.handle(E.SendUserMessage(envelope()))
    out = pair.a.handle(E.Close())
    assert {e.name for e in of(E.CancelTimer, out)} == {E.CLEANUP, E.ACK_WAIT}
    assert out[-1] == E.SessionClosed("closed by the local side")
    assert pair.a.machine.handle(E.SendUserMessage(envelope())) == []


def test_the_peer_closing_mid_packet_is_a_protocol_error() -> None:
    machine = SessionMachine(Role.INITIATOR, SessionConfig(CLIENT))
    machine.handle(E.Connected())
    answer = encode_internal(establish_connection(EstablishConnection(CLIENT, SERVER)))
    machine.handle(E.DataReceived(answer[:100]))
    assert (machine.buffered, machine.expected) == (100, 572)
    (error,) = of(E.ProtocolError, machine.handle(E.PeerClosed()))
    assert error.requirement == S.R_FORMAT and "100 of 572 bytes" in error.what
    clean = SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER))
    clean.handle(E.Connected())
    out = clean.handle(E.PeerClosed())
    assert of(E.ProtocolError, out) == [] and "WAITING_EC_MSG" in out[-1].reason


# --- the byte stream cut anywhere ----------------------------------------------------------------


def _initiator_stream(count: int) -> tuple[bytes, bytes]:
    """The initiator's whole stream for a session of ``count`` messages, and the acceptor's."""
    pair = Pair.make()
    pair.open()
    for n in range(1, count + 1):
        pair.send(envelope(n, bytes([n]) * n))
    pair.advance(1)  # the acceptor's SessionAck
    return sent(pair.a.effects), sent(pair.b.effects)


def _feed(chunks: list[bytes]) -> list[E.Effect]:
    machine = SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER))
    out = machine.handle(E.Connected())
    for chunk in chunks:
        out += machine.handle(E.DataReceived(chunk))
    return out


def _received(effects: list[E.Effect]) -> list[tuple[int, bytes]]:
    return [(e.sequence, e.data) for e in of(E.UserMessageReceived, effects)]


def test_a_stream_split_at_every_byte_gives_the_same_session() -> None:
    stream, _ = _initiator_stream(3)
    whole = _feed([stream])
    assert len(_received(whole)) == 3 and of(E.ProtocolError, whole) == []
    for cut in range(1, len(stream)):
        assert _received(_feed([stream[:cut], stream[cut:]])) == _received(whole), cut
    assert _received(_feed([stream[i : i + 1] for i in range(len(stream))])) == _received(whole)


def _acknowledged(chunks: list[bytes], count: int) -> list[E.Effect]:
    machine = SessionMachine(Role.INITIATOR, SessionConfig(CLIENT))
    out = machine.handle(E.Connected())
    for n in range(1, count + 1):
        out += machine.handle(E.SendUserMessage(envelope(n, bytes([n]) * n)))
    for chunk in chunks:
        out += machine.handle(E.DataReceived(chunk))
    return out


def test_the_acceptors_stream_split_at_every_byte_acknowledges_the_same() -> None:
    _, stream = _initiator_stream(3)
    for cut in range(1, len(stream)):
        out = _acknowledged([stream[:cut], stream[cut:]], 3)
        assert of(E.ProtocolError, out) == [], cut
        assert [e.sequence for e in of(E.MessageAcknowledged, out)] == [1, 2, 3], cut


@given(st.lists(st.integers(min_value=0, max_value=2000), max_size=12))
def test_a_stream_cut_anywhere_gives_the_same_messages(cuts: list[int]) -> None:
    stream, _ = _STREAM
    points = sorted({min(c, len(stream)) for c in cuts} | {0, len(stream)})
    chunks = [stream[a:b] for a, b in itertools.pairwise(points)]
    effects = _feed(chunks)
    assert _received(effects) == _WHOLE
    assert [e.kind for e in of(E.SendBytes, effects)][:2] == [
        "EstablishConnection",
        "ConnectionParameters",
    ]


_STREAM = _initiator_stream(4)
_WHOLE = _received(_feed([_STREAM[0]]))


def test_every_session_rule_of_the_wire_catalog_is_tested_here() -> None:
    session_rules = {r for r, entry in WIRE_CATALOG.items() if entry.role == SESSION_ROLE}
    assert session_rules == COVERED
    assert all(decode_user_message(d)[0] for _, d in _WHOLE)


# --- the project's own idea of a session: the PcapWriter's traffic -------------------------------


def _writer_payloads(messages: int) -> list[tuple[bool, bytes]]:
    """(from the initiator?, TCP payload) of each data frame the PcapWriter writes."""
    writer = PcapWriter(session="sender")
    data = b"".join(writer.write(envelope(n)) for n in range(1, messages + 1)) + writer.close()
    out, offset = [], 24
    while offset < len(data):
        length = int.from_bytes(data[offset + 8 : offset + 12], "little")
        frame = data[offset + 16 : offset + 16 + length]
        offset += 16 + length
        ip = frame[14:]
        tcp = ip[(ip[0] & 0x0F) * 4 : int.from_bytes(ip[2:4], "big")]
        payload = tcp[(tcp[12] >> 4) * 4 :]
        if payload:
            out.append((int.from_bytes(tcp[2:4], "big") == MSMQ_PORT, payload))
    return out


def test_the_pcap_writers_sessions_are_sessions_the_machines_accept() -> None:
    """Both roles take what the capture writer writes for the other side, as is."""
    payloads = _writer_payloads(3)
    acceptor = SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER))
    got = acceptor.handle(E.Connected())
    for from_initiator, payload in payloads:
        if from_initiator:
            got += acceptor.handle(E.DataReceived(payload))
    assert of(E.ProtocolError, got) == []
    assert [e.sequence for e in of(E.UserMessageReceived, got)] == [1, 2, 3]
    initiator = SessionMachine(Role.INITIATOR, SessionConfig(CLIENT))
    mine = initiator.handle(E.Connected())
    for n in range(1, 4):
        mine += initiator.handle(E.SendUserMessage(envelope(n)))
    for from_initiator, payload in payloads:
        if not from_initiator:
            mine += initiator.handle(E.DataReceived(payload))
    assert of(E.ProtocolError, mine) == []
    assert [e.sequence for e in of(E.MessageAcknowledged, mine)] == [1, 2, 3]


# --- written for the mutants of `mqcn selftest mutation` (sample of mqcn_model/mqqb) -------


def test_a_machine_knows_its_peer_only_after_the_handshake() -> None:
    pair = Pair.make()
    assert pair.a.machine.peer_qm is None and pair.b.machine.peer_qm is None
    pair.open()
    assert (pair.a.machine.peer_qm, pair.b.machine.peer_qm) == (SERVER, CLIENT)


@covers(S.R_EC_VALID)
def test_an_answer_naming_another_client_is_refused_by_the_initiator() -> None:
    pair = Pair.make()
    pair.a.handle(E.Connected())
    stranger = uuid.UUID(int=0xBAD)
    answer = establish_connection(EstablishConnection(stranger, SERVER))
    out = pair.a.handle(E.DataReceived(encode_internal(answer)))
    errors = of(E.ProtocolError, out)
    assert errors and errors[0].requirement == S.R_EC_VALID
    assert f"ClientGuid is {stranger}" in errors[0].what
    assert pair.a.machine.state is State.CLOSED
    # every reason at once, each said (3.1.5.3.2)
    named = SessionMachine(Role.INITIATOR, SessionConfig(CLIENT, remote_qm=SERVER))
    named.handle(E.Connected())
    other = uuid.UUID(int=0xD0)
    refusal = establish_connection(EstablishConnection(stranger, other), refused=True)
    (error,) = of(E.ProtocolError, named.handle(E.DataReceived(encode_internal(refusal))))
    assert error.what == (
        f"ClientGuid is {stranger}, not ours ({CLIENT}); ServerGuid is {other}, not {SERVER}; "
        "Flags.CS is set: the acceptor refused the connection"
    )


@covers(S.R_SEQUENCE)
def test_the_sequence_numbers_wrap_from_0xffff_to_1() -> None:
    pair = Pair.make()  # not open: the messages are held, each with its number
    pair.a.machine.assigned = 0xFFFE
    for _ in range(3):
        pair.a.handle(E.SendUserMessage(envelope()))
    assert [e.sequence for e in of(E.UserMessageHeld, pair.a.effects)] == [0xFFFF, 1, 2]


def test_a_broken_rule_reads_as_its_requirement_then_what() -> None:
    for kind in (E.ProtocolError, E.SessionFinding):
        assert str(kind("AckTimeout is 100 ms", b"\x10", "MQQB-2.2.2.1-2")) == (
            "MQQB-2.2.2.1-2: AckTimeout is 100 ms"
        )
        assert str(kind("the peer closed", b"\x10")) == "the peer closed"


# --- what the whole-file mutation run found (issue 34): each test states the rule it keeps ------


def _acks(side: Side) -> list[SessionHeader]:
    """The SessionHeaders of the SessionAcks ``side`` sent, in order."""
    return [
        decode_internal(e.data)[0].body
        for e in of(E.SendBytes, side.effects)
        if e.kind == "SessionAck"
    ]


def _recoverable(n: int) -> UserMessage:
    packet = envelope_to_packet(envelope(n))
    return replace(packet, user=replace(packet.user, flags=packet.user.flags | 1 << DM_SHIFT))


def test_a_session_without_messages_is_idle_at_its_first_cleanup_expiry() -> None:
    """3.1.6.2: the handshake is no activity; nothing sent or received by the first expiry
    of the Session Cleanup Timer closes the session then, not one expiry later."""
    pair = Pair.make(a_config={"cleanup_timeout": 10}, b_config={"cleanup_timeout": 10})
    pair.open()
    pair.advance(10.5)
    assert pair.a.machine.state is pair.b.machine.state is State.CLOSED
    assert of(E.SessionClosed, pair.b.effects)[-1].reason == "the session was idle"


def test_a_session_that_only_receives_is_busy() -> None:
    """3.1.6.2: messages arriving are activity for the receiver (its side sends none)."""
    pair = Pair.make(a_config={"cleanup_timeout": 1000}, b_config={"cleanup_timeout": 10})
    pair.open()
    for n in range(6):
        pair.send(envelope(n))
        pair.advance(6)
    assert pair.b.machine.state is State.OPEN


def test_the_ack_send_timer_runs_again_for_the_next_message() -> None:
    """3.1.2.5: a message after an acknowledgment sent on the timer starts the timer again
    (a fired timer is no longer running): each is acknowledged within the delay."""
    pair = Pair.make(b_config={"ack_send_delay": 0.5})
    pair.open()
    for n in (1, 2, 3):
        pair.send(envelope(n))
        pair.advance(0.6)
        assert [a.ack_sequence for a in _acks(pair.b)][-1] == n


def test_a_half_window_acknowledgment_stops_the_ack_send_timer() -> None:
    pair = Pair.make(b_config={"window_size": 4, "ack_send_delay": 0.5})
    pair.open()
    pair.send(envelope(1))
    assert E.ACK_SEND in pair.b.machine.timers
    out = pair.b.handle(E.DataReceived(sent(pair.a.handle(E.SendUserMessage(envelope(2))))))
    assert E.CancelTimer(E.ACK_SEND) in out and E.ACK_SEND not in pair.b.machine.timers


@pytest.mark.parametrize(
    ("window", "at_once_after"), [(0, 1), (1, 1), (2, 1), (3, 1), (5, 2), (7, 3)]
)
def test_the_receiver_acknowledges_at_half_its_window_rounded_down(
    window: int, at_once_after: int
) -> None:
    """At half the window (rounded down, at least one message), without waiting for the
    timer; the SessionAck's WindowSize is the window (1 for none: 2.2.20.4 allows 1..0xFFFF)."""
    pair = Pair.make(b_config={"window_size": window, "ack_send_delay": 60.0})
    pair.open()
    for n in range(1, at_once_after + 1):
        assert _acks(pair.b) == [], n
        pair.send(envelope(n))
    (ack,) = _acks(pair.b)
    assert ack.ack_sequence == at_once_after and ack.window_size == max(window, 1)


def test_a_recoverable_message_is_acknowledged_within_the_recoverable_ack_timeout() -> None:
    """3.1.5.8.x / 3.1.2.5: a recoverable message waits at most RecoverableAckTimeout (here
    500 ms, the least) for its acknowledgment, an express one the ack send delay (2 s)."""
    pair = Pair.make(b_config={"ack_send_delay": 2.0})
    pair.open()
    out = pair.a.handle(E.SendUserMessage(_recoverable(1)))
    started = of(E.StartTimer, pair.b.handle(E.DataReceived(sent(out))))
    assert E.StartTimer(E.ACK_SEND, 0.5) in started
    pair.advance(0.6)
    assert [a.ack_sequence for a in _acks(pair.b)] == [1]
    pair.send(envelope(2))
    pair.advance(1.0)
    assert [a.ack_sequence for a in _acks(pair.b)] == [1]  # express: the delay, not 0.5 s
    pair.advance(1.1)
    assert [a.ack_sequence for a in _acks(pair.b)] == [1, 2]


def test_more_than_32_recoverable_messages_are_acknowledged_32_at_a_time() -> None:
    """2.2.20.4: RecoverableMsgAckFlags holds 32 messages; the 33rd is acknowledged in the
    next SessionAck, from its own number."""
    pair = Pair.make(b_config={"window_size": 200, "ack_send_delay": 60.0})
    pair.open()
    for n in range(1, 34):
        pair.send(_recoverable(n))
    pair.advance(61)
    first = _acks(pair.b)[-1]
    assert (first.recoverable_ack_sequence, first.recoverable_ack_flags) == (1, 0xFFFFFFFF)
    pair.send(_recoverable(34))
    pair.advance(61)
    second = _acks(pair.b)[-1]
    assert (second.recoverable_ack_sequence, second.recoverable_ack_flags) == (33, 0b11)


def test_a_message_with_a_piggy_backed_acknowledgment_is_acknowledged_too() -> None:
    """3.1.5.8.4: the SessionHeader a UserMessage carries is processed, and the message is
    then acknowledged like any other."""
    pair = Pair.make(b_config={"ack_send_delay": 0.0})
    pair.open()
    pair.send(envelope(1))
    pair.advance(0.1)  # b acknowledged it; now a message from b, carrying an ack of it
    reply = replace(
        envelope_to_packet(envelope(9)), session=SessionHeader(ack_sequence=1, user_sequence=1)
    )
    reply = replace(reply, base=replace(reply.base, flags=reply.base.flags | 0x10))
    pair.a.handle(E.DataReceived(encode_user_message(reply)))
    pair.advance(1.0)
    assert pair.a.machine.state is State.OPEN
    assert [a.ack_sequence for a in _acks(pair.a)] == [1]  # a acknowledged b's message


def test_acknowledgments_compare_16_bit_numbers_within_half_the_range() -> None:
    """3.1.5.5.1 with 16-bit counts: an AckSequenceNumber acknowledges the messages at most
    half the range (32767) before it; one exactly half the range ahead acknowledges none."""
    for ack, acknowledged in ((30000, True), (32768, True), (32769, False)):
        pair = Pair.make()
        pair.open()
        pair.a.machine.awaiting.append(1)  # message 1 awaits its acknowledgment
        pair.a.machine.sent = 40000
        out = pair.a.handle(E.DataReceived(encode_internal(session_ack(SessionHeader(ack)))))
        assert (E.MessageAcknowledged(1) in out) is acknowledged, ack


def test_broken_bytes_sent_on_purpose_count_as_express() -> None:
    """A UserMessage the caller sends that does not decode is sent as it is and counted as
    express (RecoverableMsgSeqNumber does not move)."""
    pair = Pair.make()
    pair.open()
    pair.a.handle(E.SendUserMessage(encode_user_message(_recoverable(1))[:40]))
    assert (pair.a.machine.sent, pair.a.machine.recoverable_sent) == (1, 0)


def test_an_unknown_event_is_the_callers_mistake() -> None:
    with pytest.raises(TypeError, match=r"^not a session event: 'hello'$"):
        SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER)).handle("hello")  # type: ignore[arg-type]


def test_a_banner_is_quoted_by_its_first_16_bytes() -> None:
    machine = SessionMachine(Role.INITIATOR, SessionConfig(CLIENT))
    machine.handle(E.Connected())
    (error,) = of(E.ProtocolError, machine.handle(E.DataReceived(b"SSH-2.0-OpenSSH_9.6\r\n")))
    assert error.what.endswith("(first bytes b'SSH-2.0-OpenSSH_')")


def test_a_protocol_error_closes_the_session_for_that_reason() -> None:
    machine = SessionMachine(Role.INITIATOR, SessionConfig(CLIENT))
    machine.handle(E.Connected())
    out = machine.handle(E.DataReceived(b"SSH-2.0-OpenSSH_9.6\r\n"))
    (error,), closed = of(E.ProtocolError, out), out[-1]
    assert closed == E.SessionClosed(error.what, error.requirement)


def test_a_fired_timer_is_no_longer_running() -> None:
    """A timer that fired is over: acknowledging on the Session Ack Send Timer does not
    cancel it again (the driver would be told to stop a timer that is not running)."""
    pair = Pair.make(b_config={"ack_send_delay": 0.5})
    pair.open()
    pair.send(envelope(1))
    out = pair.b.handle(E.TimerFired(E.ACK_SEND))
    assert [type(e) for e in out] == [E.SendBytes] and E.ACK_SEND not in pair.b.machine.timers


# --- the timers' rules, one by one (issue 34: the project engine's whole-file survivors) -------


def test_the_initialization_timer_starts_after_each_side_sends_its_establish_connection() -> None:
    """3.1.5.2.3 and 3.1.2.1: the initiator starts the Session Initialization Timer after its
    EstablishConnection request is sent; the acceptor (re)starts it after its response is
    sent.  The duration is the configured one (the spec leaves it to configuration)."""
    initiator = SessionMachine(Role.INITIATOR, SessionConfig(CLIENT, initialization_timeout=7.0))
    out = initiator.handle(E.Connected())
    kinds = [(type(e).__name__, getattr(e, "kind", getattr(e, "name", ""))) for e in out]
    request = kinds.index(("SendBytes", "EstablishConnection"))
    assert E.StartTimer(E.INITIALIZATION, 7.0) in out[request + 1 :]
    acceptor = SessionMachine(Role.ACCEPTOR, SessionConfig(SERVER, initialization_timeout=9.0))
    acceptor.handle(E.Connected())
    answer = acceptor.handle(E.DataReceived(sent(out)))
    response = [type(e) for e in answer].index(E.SendBytes)
    assert answer[response + 1 :] == [E.StartTimer(E.INITIALIZATION, 9.0)]


def test_the_acceptor_takes_the_ack_timeout_the_initiator_proposes() -> None:
    """3.1.5.4.1: the acceptor adopts the AckTimeout of the initiator's ConnectionParameters
    request: its session reports it, and its Session Ack Wait Timer runs that long."""
    pair = Pair.make(a_config={"ack_timeout_ms": 45000}, b_config={"ack_timeout_ms": 20000})
    pair.open()
    (established,) = of(E.SessionEstablished, pair.b.effects)
    assert established.ack_timeout_ms == 45000
    out = pair.b.handle(E.SendUserMessage(envelope(1)))
    assert E.StartTimer(E.ACK_WAIT, 45.0) in out


def test_a_message_whose_piggy_backed_counts_close_the_session_is_its_last_word() -> None:
    """3.1.5.5.5: a SessionHeader whose counts disagree closes the session; nothing of the
    message that carried it follows the close (no acknowledgment, no timer)."""
    pair = Pair.make()
    pair.open()
    wrong = replace(envelope_to_packet(envelope(9)), session=SessionHeader(user_sequence=5))
    wrong = replace(wrong, base=replace(wrong.base, flags=wrong.base.flags | 0x10))
    out = pair.a.handle(E.DataReceived(encode_user_message(wrong)))
    assert isinstance(out[-1], E.SessionClosed) and out[-1].requirement == S.R_COUNTS
    assert not of(E.StartTimer, out) and not of(E.SendBytes, out)


def test_a_second_message_does_not_restart_a_running_ack_send_timer() -> None:
    """3.1.2.5: the Session Ack Send Timer starts when a UserMessage arrives while it is not
    running; a steady stream of messages cannot put the acknowledgment off."""
    pair = Pair.make(b_config={"ack_send_delay": 0.5})
    pair.open()
    pair.send(envelope(1))
    pair.send(envelope(2))
    assert of(E.StartTimer, pair.b.effects).count(E.StartTimer(E.ACK_SEND, 0.5)) == 1


def test_a_partial_acknowledgment_keeps_the_ack_wait_timer_running() -> None:
    """3.1.2.4: while a message still awaits its acknowledgment the Session Ack Wait Timer
    runs; an acknowledgment of the first of two does not stop it."""
    pair = Pair.make()
    pair.open()
    pair.a.handle(E.SendUserMessage(envelope(1)))
    pair.a.handle(E.SendUserMessage(envelope(2)))  # neither delivered
    ack = encode_internal(session_ack(SessionHeader(ack_sequence=1)))
    out = pair.a.handle(E.DataReceived(ack))
    assert of(E.MessageAcknowledged, out) == [E.MessageAcknowledged(1)]
    assert E.CancelTimer(E.ACK_WAIT) not in out and E.ACK_WAIT in pair.a.machine.timers
    # the model's reading, docs/transport.md: each SessionHeader restarts it while messages
    # await (the spec starts it on sending; both keep 3.1.2.4)
    assert E.StartTimer(E.ACK_WAIT, 20.0) in out


def test_the_ack_wait_timer_starts_with_the_first_message_sent_not_each() -> None:
    """docs/transport.md: the Session Ack Wait Timer starts when a UserMessage is sent while
    it is not running; the next message sent leaves it running (3.1.2.4)."""
    pair = Pair.make()
    pair.open()
    first = pair.a.handle(E.SendUserMessage(envelope(1)))
    second = pair.a.handle(E.SendUserMessage(envelope(2)))
    assert E.StartTimer(E.ACK_WAIT, 20.0) in first and not of(E.StartTimer, second)


def test_an_initialization_timeout_with_nothing_buffered_says_only_the_state() -> None:
    """The reason of a handshake timed out names the state, and the bytes of a packet only
    when some were buffered."""
    machine = SessionMachine(Role.INITIATOR, SessionConfig(CLIENT))
    machine.handle(E.Connected())
    out = machine.handle(E.TimerFired(E.INITIALIZATION))
    assert out[-1] == E.SessionClosed("session initialization timed out in state WAITING_ECR_MSG")


def test_a_timer_that_is_not_running_fires_to_no_effect() -> None:
    """A TimerFired for a timer the machine never started, or stopped, is stale: ignored
    (the Session Ack Wait Timer of a session with nothing sent closes nothing)."""
    pair = Pair.make()
    pair.open()
    assert E.ACK_WAIT not in pair.a.machine.timers
    assert pair.a.handle(E.TimerFired(E.ACK_WAIT)) == []
    assert pair.a.machine.state is State.OPEN


def test_a_closed_session_has_no_timer_left() -> None:
    """3.1.5.9: closing stops every timer: none is left running."""
    pair = Pair.make()
    pair.open()
    pair.a.handle(E.SendUserMessage(envelope()))
    pair.a.handle(E.Close())
    assert pair.a.machine.timers == set()


def test_the_session_durations_docs_transport_gives_are_the_machines_defaults() -> None:
    """The spec leaves these durations to configuration (3.1.2.1, 3.1.2.2, 3.1.2.5);
    docs/transport.md tells users the model's defaults, and they are the ones it uses."""
    text = (Path(__file__).parents[1] / "docs" / "transport.md").read_text()
    said = dict(re.findall(r"`(\w+)` (\d+(?:\.\d+)?)(?: s)?[,)]", text.replace("\n", " ")))
    defaults = {f.name: f.default for f in fields(SessionConfig)}
    names = ("initialization_timeout", "cleanup_timeout", "ack_send_delay", "ack_timeout_ms")
    names += ("ack_wait_multiple", "window_size")
    assert {n: float(said[n]) for n in names} == {n: float(defaults[n]) for n in names}
