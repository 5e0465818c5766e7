"""The scenario world: what one Gherkin scenario knows while it runs.

Step definitions stay a line or two long by calling into a :class:`World`, which talks to the
target only through :class:`~mqcn_suite.targets.base.Target` and to the model only through
``mqcn_model``.  It also records what the report needs: the messages sent (hex), and the
verdict of each checked requirement (pass / fail / warning / info).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mqcn_model.adm import Queue
from mqcn_model.builders import (
    minimal_security_descriptor,
    queue_creation,
    v1_message,
    v2_notification,
)
from mqcn_model.catalog import CATALOG, req
from mqcn_model.codec.message import body_buffer
from mqcn_model.constants import (
    BATCH_WINDOW_SECONDS,
    AuthLevel,
    SenderIdType,
)
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import LENIENT, STRICT
from mqcn_model.judge import judge
from mqcn_suite.targets.base import Setup, Target

# Fixed identities so that reports and replays are reproducible.
QM_GUID = uuid.UUID("6f1c3a9e-2b4d-4c5e-8f70-1a2b3c4d5e6f")
OTHER_QM_GUID = uuid.UUID("11111111-2222-4333-8444-555555555555")
DS_GUID = uuid.UUID("0d5e3c1f-7a6b-4e8d-9c2f-3b4a5d6e7f80")
QUEUE_GUID = uuid.UUID("a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d")
NEW_QUEUE_GUID = uuid.UUID("b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e")
PROBE_QUEUE_GUID = uuid.UUID("c3d4e5f6-a7b8-4c9d-8e1f-2a3b4c5d6e7f")
COMPUTER = "qm1.example.com"
DC_NAME = "dc1.example.com"


class RequirementFailure(AssertionError):
    """A MUST / MUST NOT requirement was not met; the message starts with its ID."""


@dataclass
class Check:
    """One requirement judged inside a scenario."""

    requirement: str
    verdict: str  # pass | fail | warning | info
    message: str

    def to_json(self) -> dict[str, str]:
        return {"requirement": self.requirement, "verdict": self.verdict, "message": self.message}


def existing_queue(identifier: uuid.UUID = QUEUE_GUID, **attributes: Any) -> Queue:
    """A queue the queue manager already owns, with recognisable non-default attributes."""
    base: dict[str, Any] = {
        "Pathname": f"{COMPUTER.split('.')[0]}\\orders",
        "Label": "orders",
        "BasePriority": 1,
        "Quota": 1000,
        "JournalQuota": 500,
        "Security": minimal_security_descriptor(),
        "CreateTime": 1_700_000_000,
        "ModifyTime": 1_700_000_000,
    }
    base.update(attributes)
    return Queue(Identifier=identifier, **base)


@dataclass
class World:
    """Per-scenario state shared by the steps."""

    target: Target
    setup: Setup = field(
        default_factory=lambda: Setup(qm_guid=QM_GUID, computer=COMPUTER, client_identifier=DS_GUID)
    )
    started: bool = False
    server_open: dict[str, Any] | None = None
    client_open: dict[str, Any] | None = None
    sent: list[Envelope] = field(default_factory=list)  # what the suite delivered to the target
    emitted: list[Envelope] = field(default_factory=list)  # what the target's client produced
    state_before: dict[str, Any] | None = None
    checks: list[Check] = field(default_factory=list)
    sequence: int = 1
    message: bytes = b""  # the message body under test

    # --- set-up -----------------------------------------------------------------------------
    def own_queue(self, queue: Queue | None = None) -> Queue:
        queue = queue or existing_queue()
        self.setup.queues.append(queue.to_json())
        return queue

    def publish_queue(self, queue: Queue, owner: uuid.UUID = QM_GUID) -> None:
        self.setup.directory_queues.append({"owner": str(owner), "queue": queue.to_json()})

    def publish_queue_manager(self, **attributes: Any) -> None:
        self.setup.directory_queue_managers.append({"Identifier": str(QM_GUID), **attributes})

    def start(self) -> None:
        """reset + start_server (3.2.3), once per scenario."""
        if not self.started:
            self.target.reset(self.setup)
            self.server_open = self.target.start_server()
            self.started = True

    # --- delivering -------------------------------------------------------------------------
    def envelope(self, body: bytes, **attributes: Any) -> Envelope:
        """An MSMQ Message as a well-behaved sender would send ``body`` (overridable)."""
        defaults: dict[str, Any] = {
            "message_id": MessageId(DS_GUID, self.sequence),
            "sender_identifier": QM_GUID,
            "sender_identifier_type": SenderIdType.QueueManagerIdentifier,
            "authentication_level": AuthLevel.Sig20,
            "destination_format_name": f"PRIVATE={QM_GUID}\\3",
        }
        defaults.update(attributes)
        self.sequence += 1
        return Envelope(body=body, **defaults)

    def deliver(self, body: bytes, *, settle: bool = True, **attributes: Any) -> None:
        """Deliver one message body; by default let any batching window elapse afterwards."""
        self.start()
        if self.state_before is None:
            self.state_before = self.target.state()
        self.message = body
        envelope = self.envelope(body, **attributes)
        self.sent.append(envelope)
        self.target.deliver(envelope)
        if settle:
            self.settle()

    def settle(self) -> None:
        """Advance the clock past any batching window (product behaviour <3>)."""
        self.target.advance_clock(BATCH_WINDOW_SECONDS + 1)

    def state(self) -> dict[str, Any]:
        return self.target.state()

    def queue_state(self, identifier: uuid.UUID = QUEUE_GUID) -> dict[str, Any] | None:
        return self.state()["queues"].get(str(identifier))

    # --- probing ------------------------------------------------------------------------------
    def probe_still_serving(self) -> bool:
        """Deliver a conforming creation of a probe queue; True if the target applied it."""
        probe = queue_creation(PROBE_QUEUE_GUID, f"{COMPUTER.split('.')[0]}\\probe", master=DS_GUID)
        self.deliver(body_buffer(v1_message([probe])))
        return str(PROBE_QUEUE_GUID) in self.state()["queues"]

    # --- judging ------------------------------------------------------------------------------
    def expect(self, requirement: str, condition: bool, message: str) -> None:
        """Record the verdict of ``requirement``; a MUST that fails raises RequirementFailure.

        SHOULD / SHOULD NOT give a warning, MAY and product-behaviour notes give info: they
        never fail the scenario.
        """
        entry = CATALOG[req(requirement)]
        if condition:
            self.checks.append(Check(requirement, "pass", message))
            return
        if entry.is_mandatory:
            self.checks.append(Check(requirement, "fail", message))
            raise RequirementFailure(f"{requirement}: {message}")
        verdict = "warning" if entry.severity == "warning" else "info"
        self.checks.append(Check(requirement, verdict, message))

    def judge_emitted(self) -> list[Any]:
        """Verdicts of the codec on every message the target's client emitted."""
        return [judge(e.body) for e in self.emitted]

    # --- reporting --------------------------------------------------------------------------
    def report_properties(self) -> dict[str, Any]:
        return {
            "checks": [c.to_json() for c in self.checks],
            "sent": [e.to_json() for e in self.sent],
            "emitted": [e.to_json() for e in self.emitted],
            "message_hex": self.message.hex(),
        }

    # --- client side (3.3) and message-format families ---------------------------------------
    def start_client(self, destination: uuid.UUID = QM_GUID) -> dict[str, Any] | None:
        """Run the target's client initialisation (3.3.3) towards ``destination``.

        Resets the target first if the scenario has not yet; records the Open Queue it reports.
        """
        self.start()
        self.client_open = self.target.start_client(destination)
        return self.client_open

    def send_change_notification(
        self, operation: str, object_id: uuid.UUID | None = None, changed: Iterable[str] = ()
    ) -> list[Envelope]:
        """Raise Send Change Notification (3.3.4.1) on the target's client; keep what it emits.

        ``object_id`` defaults to the queue orders (the queue manager for QueueManagerUpdate);
        the object must be in the scenario's directory set-up.
        """
        self.start()
        if object_id is None:
            object_id = QM_GUID if operation == "QueueManagerUpdate" else QUEUE_GUID
        sent = self.target.send_change_notification(operation, object_id, list(changed))
        self.emitted.extend(sent)
        return sent

    def emitted_violations(self, requirement: str) -> list[str]:
        """What the codec finds against ``requirement`` in the emitted bodies, one line each."""
        readings = LENIENT if self.setup.readings == "lenient" else STRICT
        return [
            f"emitted message {index}: {violation}"
            for index, envelope in enumerate(self.emitted)
            for violation in judge(envelope.body, readings).violations
            if violation.requirement == requirement
        ]

    def disregard_problem(self, body: bytes) -> str | None:
        """Deliver ``body`` to a freshly reset target: None if it was disregarded (state
        unchanged, the next notification still applied), else what went wrong.

        For families of malformed messages judged inside one step (e.g. hypothesis examples).
        """
        self.target.reset(self.setup)
        self.server_open = self.target.start_server()
        self.started = True
        before = self.target.state()
        self.deliver(body)
        if self.target.state() != before:
            return f"{body.hex()}: the queue manager state changed"
        if not self.probe_still_serving():
            return f"{body.hex()}: the next conforming notification was not applied"
        return None

    def disregard_problems_for(
        self, strategy: Any, build: Callable[[Any], bytes], examples: int = 15
    ) -> list[str]:
        """:meth:`disregard_problem` of ``build(x)`` for hypothesis-drawn ``x`` (derandomised,
        ``examples`` draws); returns every problem found (empty when all were disregarded)."""
        return self.problems_for(
            strategy, lambda drawn: self.disregard_problem(build(drawn)), examples
        )

    # --- server side (3.2) and the server notes of section 6 -----------------------------------
    def directory_reads(self) -> list[dict[str, Any]]:
        """Every Read Directory the target made since the scenario's reset, in order."""
        return self.target.directory_reads()

    def advance_clock(self, seconds: float) -> None:
        """Move the target's virtual clock by ``seconds`` (batching profiles, note <3>)."""
        self.start()
        self.target.advance_clock(seconds)

    def outcome_of(self, body: bytes, **attributes: Any) -> dict[str, Any]:
        """The queue manager state after ``body`` alone reached a freshly reset, started
        target (batching window elapsed): for comparing variants of one message."""
        self.target.reset(self.setup)
        self.server_open = self.target.start_server()
        self.started = True
        self.state_before = self.target.state()
        self.deliver(body, **attributes)
        return self.target.state()

    def problems_for(
        self, strategy: Any, check: Callable[[Any], str | None], examples: int = 10
    ) -> list[str]:
        """``check(x)`` for hypothesis-drawn ``x`` (derandomised, ``examples`` draws): every
        problem it reports (None: no problem), prefixed with the drawn value."""
        from hypothesis import HealthCheck, settings
        from hypothesis import given as for_all

        problems: list[str] = []

        @settings(
            max_examples=examples,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @for_all(strategy)
        def run(drawn: Any) -> None:
            problem = check(drawn)
            if problem:
                problems.append(f"{drawn!r}: {problem}")

        run()
        return problems


def v2_body(event: int, guid: uuid.UUID = QUEUE_GUID, server: str = DC_NAME) -> bytes:
    """The body buffer of a conforming Version 0x02 message."""
    return body_buffer(v2_notification(event, guid, server))
