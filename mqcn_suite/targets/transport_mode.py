"""Transport mode (adapter protocol version 2): a target reached through its real front door.

A target whose ``hello`` declared ``"transport": {"mqqb": {"host": H, "port": P}}`` listens
as a queue manager at H:P.  :func:`with_transport` wraps it in a :class:`TransportMode`, which
World calls exactly as any target (steps and World do not know the difference):

* **server side** -- ``deliver(envelope)`` is not passed on: the envelope goes out as a
  UserMessage Packet over an MS-MQQB session to H:P (opened at the scenario's first delivery,
  reused by the next ones, closed at the scenario's end or its next ``reset``), and the call
  returns once the session acknowledged it (at most ``timeout`` seconds);
* **client side** -- ``reset`` and ``start_client`` add ``queue_manager``: the address of
  this process's :class:`~mqcn_suite.transport.Listener` (127.0.0.1, a port the kernel
  chose; one per pytest-xdist worker).  Given at ``reset`` too, it reaches the target's client
  even in a scenario that has it send without initialising it first.
  ``send_change_notification`` ignores what the target answers and returns the Envelopes read
  from the UserMessages that arrived on the listener (at least one within ``timeout``), so
  every message judged on the client side travelled over MS-MQQB.  A packet's signature is
  read as the level of the target's product profile (Sig10 for an MSMQ 1.0 profile, else
  Sig20): the wire shows *that* a message is signed, not which MSMQ version's signature it is
  (docs/errata.md W-05), so in this mode MQCN-3.3.5.3-15 checks that an MSMQ 1.0 client signs.

A transport failure (refused, closed, silent, garbage) raises :class:`TransportBroken`, a
:class:`~mqcn_suite.targets.base.TargetBroken`: the scenario's verdict is ``error``, never
``fail``, and its message carries the session transcript for the report.

The target's side of every session of a scenario is judged too: each [MS-MQMQ] / [MS-MQQB]
rule the suite's machine saw it break (:class:`~mqcn_model.mqqb.events.SessionFinding`, or
the ProtocolError that closed the session) is a :class:`TransportFinding`, collected when
the scenario ends (:meth:`TransportMode.take_findings`): the report's "transport findings",
warnings beside the MS-MQCN verdicts, which they never change.
"""

from __future__ import annotations

import inspect
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mqcn_model.constants import AuthLevel
from mqcn_model.envelope import Envelope
from mqcn_model.mqqb import SessionConfig
from mqcn_model.mqqb import events as E
from mqcn_model.profiles import PROFILES
from mqcn_model.wire.common import NIL
from mqcn_model.wire.mapping import envelope_to_packet, packet_to_envelope
from mqcn_suite.targets.base import (
    NotApplicable,
    Setup,
    Target,
    TargetBroken,
    TargetError,
    TargetTimeout,
    TargetWrapper,
    layer_of,
)
from mqcn_suite.transport import (
    AckTimeout,
    HandshakeTimeout,
    Listener,
    PartialPacket,
    Session,
    Transcript,
    TransportError,
    ack_wait_bound,
    connect,
)

TRANSCRIPT_LINES = 24  # the last lines of a transcript a failure shows (the report clips text)
SUITE_QM = uuid.UUID("5e1f7c0a-9d2b-4a8e-b3c6-0f1e2d3c4b5a")  # the suite's queue manager

TranscriptHook = Callable[[Transcript, bool], None]  # a session ended; True: we opened it


class TransportBroken(TargetBroken):
    """The MS-MQQB session with the target failed: one line saying how, then its transcript."""

    def __init__(self, doing: str, exc: TransportError) -> None:
        lines = _clipped(exc.transcript)
        super().__init__(f"transport: {doing}: {exc}\ntranscript:\n  " + "\n  ".join(lines))
        self.transcript = exc.transcript


class TransportTimeout(TransportBroken, TargetTimeout):
    """The peer went silent: the handshake, an acknowledgment or the rest of a packet never
    came within the time allowed.  A timeout like any other: ``--max-timeouts`` of them in a
    row stop the run."""

    def __init__(self, doing: str, exc: TransportError) -> None:
        super().__init__(doing, exc)


SILENCES = (AckTimeout, HandshakeTimeout, PartialPacket)

SERVER_SIDE, CLIENT_SIDE = "server", "client"
SIDES = {
    SERVER_SIDE: "the suite's session to the target's queue manager",
    CLIENT_SIDE: "the target client's session to the suite's queue manager",
}


@dataclass(frozen=True, slots=True)
class TransportFinding:
    """A wire rule the target broke on one session of a scenario: its requirement ID (the
    wire catalog), how, on which side (``server``: a session the suite opened to the target;
    ``client``: one the target's client opened to the suite's queue manager), whether the
    session was closed for it, and the session's transcript (``None`` when an earlier
    finding of the same rule on the same session already carries it)."""

    requirement: str
    what: str
    side: str
    closed: bool
    transcript: tuple[str, ...] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "requirement": self.requirement,
            "what": self.what,
            "side": self.side,
            "closed": self.closed,
            **({"transcript": list(self.transcript)} if self.transcript is not None else {}),
        }


def session_findings(session: Session, side: str) -> list[TransportFinding]:
    """What ``session``'s machine saw the peer break, as TransportFindings (the transcript
    with the first finding of each rule)."""
    found: list[TransportFinding] = []
    lines: tuple[str, ...] | None = None
    told: set[str] = set()
    for finding in session.findings:
        rule = finding.requirement or "MQQB-3.1.5.1.3-1"
        if lines is None:
            lines = tuple(_clipped(session.transcript))
        closed = isinstance(finding, E.ProtocolError)
        found.append(
            TransportFinding(rule, finding.what, side, closed, None if rule in told else lines)
        )
        told.add(rule)
    return found


def transport_failure(doing: str, exc: TransportError) -> TransportBroken:
    """The TargetBroken a TransportError becomes: a TransportTimeout for silence."""
    kind = TransportTimeout if isinstance(exc, SILENCES) else TransportBroken
    return kind(doing, exc)


# The wire errata (docs/errata.md) a transport target may say, in hello, which reading it
# reads: the suite then writes that form to it (it reads both forms from the target).
WIRE_READINGS = {"W-01": ("windows", "letter")}


def mqqb_readings(hello: dict[str, Any]) -> dict[str, str]:
    """The wire readings a version-2 ``hello`` declares (``transport.mqqb.readings``), each
    checked; the suite's own (``windows``) for what it does not name.

    >>> mqqb_readings({"transport": {"mqqb": {"readings": {"W-01": "letter"}}}})
    {'W-01': 'letter'}
    >>> mqqb_readings({"transport": {"mqqb": {"host": "h", "port": 1}}})
    {'W-01': 'windows'}
    >>> try:
    ...     mqqb_readings({"transport": {"mqqb": {"readings": {"W-01": "yes"}}}})
    ... except TargetError as exc:
    ...     print(exc)
    transport.mqqb.readings: W-01 is 'windows' or 'letter', not 'yes'
    """
    mqqb = (hello.get("transport") or {}).get("mqqb") or {}
    said = mqqb.get("readings", {}) if isinstance(mqqb, dict) else {}
    if not isinstance(said, dict):
        raise TargetError(f"transport.mqqb.readings: expected {{'W-01': …}}, not {said!r}")
    readings = {}
    for item, names in WIRE_READINGS.items():
        value = said.get(item, names[0])
        if value not in names:
            raise TargetError(
                f"transport.mqqb.readings: {item} is {' or '.join(map(repr, names))}, not {value!r}"
            )
        readings[item] = value
    unknown = sorted(set(said) - set(WIRE_READINGS))
    if unknown:
        raise TargetError(
            f"transport.mqqb.readings: no wire erratum {', '.join(unknown)} has readings "
            f"(known: {', '.join(WIRE_READINGS)})"
        )
    return readings


def mqqb_address(hello: dict[str, Any]) -> tuple[str, int] | None:
    """The host and port a version-2 ``hello`` answer declares (None: adapter mode).

    >>> mqqb_address({"transport": {"mqqb": {"host": "127.0.0.1", "port": 1801}}})
    ('127.0.0.1', 1801)
    >>> mqqb_address({"transport": {"mqqb": {"host": "127.0.0.1", "port": 0}}})
    Traceback (most recent call last):
    ...
    mqcn_suite.targets.base.TargetError: transport.mqqb: port must be an integer 1..65535, not 0
    """
    transport = hello.get("transport")
    if transport is None:
        return None
    mqqb = transport.get("mqqb") if isinstance(transport, dict) else None
    if not isinstance(mqqb, dict):
        raise TargetError(f"transport.mqqb: expected {{'host': H, 'port': P}}, not {transport!r}")
    host, port = mqqb.get("host"), mqqb.get("port")
    if not isinstance(host, str) or not host:
        raise TargetError(f"transport.mqqb: host must be a non-empty string, not {host!r}")
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise TargetError(f"transport.mqqb: port must be an integer 1..65535, not {port!r}")
    mqqb_readings(hello)
    return host, port


# --- the suite's queue manager: one Listener per process -------------------------------------

LISTEN_HOST, LISTEN_PORT = "127.0.0.1", 0  # the kernel chooses the port: one per process
_listener: Listener | None = None
_arrived: list[tuple[Session, E.UserMessageReceived]] = []
_arrived_lock = threading.Condition()
_ended = 0  # the listener's sessions closed at the end of an earlier scenario


def _on_message(session: Session, received: E.UserMessageReceived) -> None:
    with _arrived_lock:
        _arrived.append((session, received))
        _arrived_lock.notify_all()


def suite_listener() -> Listener:
    """This process's queue manager (started at first use, on 127.0.0.1, port 0).

    Raises TransportBroken when it cannot bind (:class:`~mqcn_suite.transport.BindFailed`)."""
    global _listener
    if _listener is None:
        config = SessionConfig(SUITE_QM, ack_send_delay=0.0)
        try:
            _listener = Listener(LISTEN_HOST, LISTEN_PORT, on_message=_on_message, config=config)
        except TransportError as exc:
            raise TransportBroken("the suite's queue manager cannot listen", exc) from None
    return _listener


def listener_address() -> str | None:
    """``host:port`` of this process's queue manager (None: it never listened)."""
    return None if _listener is None else f"{_listener.host}:{_listener.port}"


class TransportMode(TargetWrapper):
    """``inner`` driven through MS-MQQB at ``address`` (see the module docstring)."""

    def __init__(
        self,
        inner: Target,
        address: tuple[str, int],
        timeout: float,
        on_transcript: TranscriptHook | None = None,
        readings: dict[str, str] | None = None,
    ) -> None:
        super().__init__(inner)
        # the forms the target said it reads (hello): the suite writes those to it
        self.readings = readings or {item: names[0] for item, names in WIRE_READINGS.items()}
        self.letter_session_ack = self.readings["W-01"] == "letter"
        self._address = address
        self.timeout = timeout
        self.on_transcript = on_transcript  # told of every session's transcript, once ended
        self.session: Session | None = None
        self._opened: list[Session] = []  # the sessions to the target in this scenario
        self.findings: list[TransportFinding] = []  # the scenario's, gathered at its end
        self._seen = 0  # how many arrivals on the listener earlier calls consumed
        self.target_qm: uuid.UUID = NIL  # the target's queue manager: named in EstablishConnection
        self.signed_as = AuthLevel.Sig20  # what a signature stands for (the profile's, at reset)

    def __getattr__(self, name: str) -> Any:  # pics() and anything else the inner offers
        return getattr(self.inner, name)

    @property
    def address(self) -> tuple[str, int]:
        """Where the target listens now: what its latest ``hello`` declared (a target
        restarted after it broke may listen on another port), else the first one's."""
        declared = getattr(self.inner, "transport", None)
        current = declared() if callable(declared) else None
        found = mqqb_address({"transport": current}) if current is not None else None
        if found is not None:
            self._address = found
        return self._address

    # --- scenario boundaries ------------------------------------------------------------------
    def end_scenario(self) -> None:
        """Close the scenario's sessions (ours to the target, the target's to us) and hand
        their transcripts to ``on_transcript``."""
        if self.session is not None:
            session, self.session = self.session, None
            session.close()
            self._hand_on(session.transcript, True)
        opened, self._opened = self._opened, []
        for session in opened:
            self.findings += session_findings(session, SERVER_SIDE)
        global _ended
        if _listener is not None:  # the suite's queue manager closes the target's sessions too
            sessions = _listener.sessions_from(_ended)
            _ended += len(sessions)
            for session in sessions:
                session.close()
                self._hand_on(session.transcript, False)
                self.findings += session_findings(session, CLIENT_SIDE)

    def take_findings(self) -> list[TransportFinding]:
        """The transport findings of the scenario that just ended (:meth:`end_scenario`),
        handed over once."""
        found, self.findings = self.findings, []
        return found

    def _hand_on(self, transcript: Transcript, initiated: bool) -> None:
        if self.on_transcript is not None and transcript.entries:
            self.on_transcript(transcript, initiated)

    def reset(self, setup: Setup) -> None:
        """Reset the target, giving it the suite's queue manager (where its client sends)."""
        self.end_scenario()
        self.findings = []  # an earlier scenario's, never taken: not this one's story
        with _arrived_lock:
            self._seen = len(_arrived)
        self.signed_as = signed_as(setup.profile)
        self.target_qm = setup.qm_guid
        suite_listener().answer_as(
            scenario_queue_managers(setup), letter_session_ack=self.letter_session_ack
        )
        self.inner.reset(setup, queue_manager=self.queue_manager())  # type: ignore[call-arg]

    def queue_manager(self) -> dict[str, Any]:
        """The ``queue_manager`` member of ``reset`` and ``start_client``: the address of
        this process's listener, and the GUID it answers as when an EstablishConnection
        names none of the scenario's queue managers (``guid``)."""
        listener = suite_listener()
        return {"host": listener.host, "port": listener.port, "guid": str(listener.qm_guid)}

    def close(self) -> None:
        self.end_scenario()
        self.inner.close()

    # --- server side --------------------------------------------------------------------------
    def start_server(self) -> dict[str, Any] | None:
        return self.inner.start_server()

    def deliver(self, envelope: Envelope) -> None:
        """Send ``envelope`` as a UserMessage on the scenario's session; wait for its ack."""
        host, port = self.address
        try:
            envelope_to_packet(envelope)
        except ValueError as exc:  # e.g. an XML digital signature: it travels over SRMP
            raise NotApplicable(f"this message cannot travel over MS-MQQB: {exc}") from None
        if self.session is None or self.session.closed:
            config = SessionConfig(  # 3.1.5.2.3: name the queue manager we connect to
                SUITE_QM, remote_qm=self.target_qm, letter_session_ack=self.letter_session_ack
            )
            try:
                self.session = connect(host, port, config=config, timeout=self.timeout)
                self._opened.append(self.session)
            except TransportError as exc:
                if exc.session is not None:  # a handshake that failed: what it broke counts
                    self._opened.append(exc.session)
                raise transport_failure(f"opening a session to {host}:{port}", exc) from None
        try:
            self.session.send_and_wait(envelope, ack_wait_bound(self.session, self.timeout))
        except TransportError as exc:
            session, self.session = self.session, None
            session.close()
            self._hand_on(session.transcript, True)
            raise transport_failure(f"delivering a UserMessage to {host}:{port}", exc) from None

    def listener_evidence(self) -> str:
        """What the suite's queue manager saw of the target's client in this scenario: each
        session's broken rule (if any) and transcript, or that none was opened."""
        sessions = _listener.sessions_from(_ended) if _listener is not None else []
        if not sessions:
            return "the suite's queue manager: no session was opened to it in this scenario"
        parts = []
        for session in sessions:
            said = f"; it ended with {session.error}" if session.error is not None else ""
            parts.append(f"the suite's queue manager saw a session{said}:")
            parts += [f"  {line}" for line in _clipped(session.transcript)]
        return "\n".join(parts)

    # --- client side --------------------------------------------------------------------------
    def start_client(
        self, destination: uuid.UUID, queue_manager: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        return self.inner.start_client(destination, queue_manager=self.queue_manager())  # type: ignore[call-arg]

    def send_change_notification(
        self, operation: str, object_id: uuid.UUID, changed: list[str]
    ) -> list[Envelope]:
        """What reached the suite's queue manager after the target's client was asked to send
        (its own answer is not used); TransportBroken when nothing arrives in time."""
        listener = suite_listener()
        try:
            self.inner.send_change_notification(operation, object_id, changed)
        except TargetBroken as exc:  # what the suite's queue manager saw stays in the report
            kind = TargetTimeout if isinstance(exc, TargetTimeout) else TargetBroken
            raise kind(f"{exc}\n{self.listener_evidence()}") from None
        deadline = time.monotonic() + self.timeout
        with _arrived_lock:
            while len(_arrived) == self._seen:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                _arrived_lock.wait(left)
            arrived, self._seen = _arrived[self._seen :], len(_arrived)
        if not arrived:
            # this scenario's sessions only: an earlier one's failure is not this one's story
            failed = [s.error for s in listener.sessions_from(_ended) if s.error is not None]
            if failed:
                raise transport_failure(
                    f"receiving {operation} on the suite's queue manager", failed[-1]
                )
            accepted = listener.sessions_from(0)
            raise TransportTimeout(
                f"receiving {operation}",
                TransportError(
                    f"no UserMessage arrived on 127.0.0.1:{listener.port} within "
                    f"{self.timeout:g} s after send_change_notification answered",
                    accepted[-1].transcript
                    if accepted
                    else Transcript((listener.host, listener.port), None),
                ),
            )
        return [
            packet_to_envelope(received.packet, signed_as=self.signed_as)[0]
            for _, received in arrived
        ]


def _clipped(transcript: Transcript) -> list[str]:
    lines = transcript.render().splitlines()
    head, body = lines[:1], lines[1:]
    if len(body) > TRANSCRIPT_LINES:
        body = [f"  … {len(body) - TRANSCRIPT_LINES} earlier lines", *body[-TRANSCRIPT_LINES:]]
    return head + body


def scenario_queue_managers(setup: Setup) -> frozenset[uuid.UUID]:
    """The queue managers a scenario's set-up names, as the suite's queue manager may be
    asked to be any of them ([MS-MQQB] 3.1.5.3.1: an EstablishConnection names the receiving
    queue manager): the one under test, the directory's, the owners of its queues.

    >>> setup = Setup(qm_guid=uuid.UUID(int=1))
    >>> setup.directory_queue_managers.append({"Identifier": str(uuid.UUID(int=2))})
    >>> sorted(g.int for g in scenario_queue_managers(setup))
    [1, 2]
    """
    named = {setup.qm_guid}
    named |= {uuid.UUID(qm["Identifier"]) for qm in setup.directory_queue_managers}
    named |= {uuid.UUID(entry["owner"]) for entry in setup.directory_queues}
    return frozenset(named)


def signed_as(profile: str) -> AuthLevel:
    """The AuthenticationLevel a signature from a client of ``profile`` stands for: the
    profile's own (Sig10 for MSMQ 1.0, note <13>), Sig20 otherwise (W-05).

    >>> signed_as("windows-nt4"), signed_as("spec")
    (<AuthLevel.Sig10: 2>, <AuthLevel.Sig20: 4>)
    """
    known = PROFILES.get(profile)
    return known.authentication_level if known is not None else AuthLevel.Sig20


def with_transport(
    target: Target, timeout: float, on_transcript: TranscriptHook | None = None
) -> Target:
    """``target`` in transport mode if it declared a transport (its ``transport()``: the
    ``transport`` member of its hello answer), else as it is."""
    declared = getattr(target, "transport", None)
    transport = declared() if callable(declared) else None
    address = mqqb_address({"transport": transport}) if transport is not None else None
    if address is None:
        return target
    try:
        inspect.signature(target.reset).bind(None, queue_manager=None)
    except TypeError:
        raise TargetError(
            "transport: a target that declares a transport takes reset(setup, queue_manager)"
            " (where its client sends, adapter protocol version 2)"
        ) from None
    readings = mqqb_readings({"transport": transport})
    return TransportMode(target, address, timeout, on_transcript, readings)


def transport_mode_of(target: Target) -> TransportMode | None:
    """The TransportMode under ``target`` (behind its PICS guard, its directory mode), if it
    runs in one."""
    return layer_of(target, TransportMode)
