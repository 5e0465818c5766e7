"""The scenario world: what one Gherkin scenario knows while it runs.

Step definitions stay a line or two long by calling into a :class:`World`, which talks to the
target only through :class:`~mqcn_suite.targets.base.Target` and to the model only through
``mqcn_model``.  It also records what the report needs: the messages sent (hex), and the
verdict of each checked requirement (pass / fail / warning / info).  The fixed identities and
the messages the steps deliver live in :mod:`mqcn_suite.scenarios`.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mqcn_model.adm import Queue, QueueManager
from mqcn_model.builders import queue_creation, v1_message
from mqcn_model.catalog import CATALOG, req
from mqcn_model.codec.message import ChangeNotificationMessage, body_buffer
from mqcn_model.constants import (
    BATCH_WINDOW_SECONDS,
    AuthLevel,
    Operation,
    SenderIdType,
)
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import READING_SEPARATOR, SWITCH_OF, Readings, following
from mqcn_model.errors import Violation
from mqcn_model.fitting import combinations, state_fits
from mqcn_model.judge import errata_admitting, explain_by_errata, judge
from mqcn_model.profiles import DEFAULT_PROFILE, PROFILES
from mqcn_model.sending import (
    Judgement,
    Notification,
    SendingContext,
    Stopped,
    open_queue_violations,
    sending_judgement,
    statement_problem,
)
from mqcn_suite.scenarios.expectations import (
    attribute_diff,
    reads_count_problem,
    reads_of_object,
)
from mqcn_suite.scenarios.fixtures import (
    COMPUTER,
    DS_GUID,
    PROBE_QUEUE_GUID,
    QM_GUID,
    QUEUE_GUID,
    existing_queue,
)
from mqcn_suite.scenarios.messages import domain_controllers, notification_body
from mqcn_suite.targets.base import (
    ClaimNotImplemented,
    NotApplicable,
    Setup,
    Target,
    TargetError,
)
from mqcn_suite.targets.ldap_mode import ldap_mode_of
from mqcn_suite.targets.pics import admit_delivery

# 3.2.5.2: the Read Directory each creation or change event makes (queue created, queue
# changed, machine changed), and every requirement of that section (judged as they are, never
# stopped by a read)
READ_OF_EVENT = {1: req("MQCN-3.2.5.2-3"), 2: req("MQCN-3.2.5.2-5"), 4: req("MQCN-3.2.5.2-8")}
READ_REQUIREMENTS = frozenset(rid for rid in CATALOG if rid.startswith("MQCN-3.2.5.2-"))


class RequirementFailure(AssertionError):
    """A MUST / MUST NOT requirement was not met; the message starts with its ID."""


@dataclass
class Check:
    """One requirement judged inside a scenario.

    ``errata`` and ``reading`` are set where the outcome depended on an errata reading
    (docs/errata.md): the reading the target was seen to follow there, for the report's
    "Readings followed" section.
    """

    requirement: str
    verdict: str  # pass | fail | claim-fail | warning | info | stopped
    message: str
    errata: str | None = None
    reading: str | None = None  # the reading seen (strict, lenient, keep|disregard: any of)
    diff: list[dict[str, Any]] | None = None  # expected against observed, attribute by attribute
    # verdict "stopped": the requirements whose breach kept this one from being judged (the
    # message it needs cannot be read); the report shows "inconclusive (stopped by …)"
    stopped_by: tuple[str, ...] = ()
    # False: recorded before the target did anything in the scenario (the suite's own model
    # or codec alone): no evidence about the target, so the report credits it to nobody
    target_acted: bool = True

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "requirement": self.requirement,
            "verdict": self.verdict,
            "message": self.message,
        }
        if not self.target_acted:
            data["target_acted"] = False
        if self.errata is not None:
            data |= {"errata": self.errata, "reading": self.reading or ""}
        if self.diff:
            data["diff"] = self.diff
        if self.stopped_by:
            data["stopped_by"] = list(self.stopped_by)
        return data


def describe_change(change: dict[str, Any]) -> str:
    """One attribute of an :func:`attribute_diff` as a short phrase (a queue as present or
    absent, not all its attributes)."""

    def short(value: Any) -> str:
        if value is None:
            return "absent"
        return "present" if isinstance(value, dict) else describe(value)

    return f"{change['attribute']}: {short(change['expected'])} -> {short(change['observed'])}"


def describe(value: Any) -> str:
    """A drawn or observed value in the spec's terms, never a Python repr: bytes as hex, an
    update as its Command and what it names, a message by its fields, collections item by item.

    >>> describe(b"\\x00\\x01")
    '0x0001'
    >>> describe([1, "a"])
    '1, a'
    """
    from mqcn_model.codec.message import ChangeNotificationMessage
    from mqcn_model.codec.update import NotificationUpdate
    from mqcn_model.json_views import message_to_json, update_to_json, value_to_json

    if isinstance(value, bytes | bytearray):
        return f"0x{bytes(value).hex()}" if value else "no bytes"
    if isinstance(value, NotificationUpdate):
        data = update_to_json(value)
        names = ", ".join(p["name"] for p in data["properties"]) or "no property"
        subject = data["path_name"] if data["use_guid"] == 0 else data["guid_identifier"]
        return (
            f"update Command 0x{data['command']:02x} UseGuid 0x{data['use_guid']:02x} "
            f"{subject} ({names})"
        )
    if isinstance(value, ChangeNotificationMessage):
        return describe(message_to_json(value))
    if isinstance(value, Envelope):
        return describe({k: v for k, v in value.to_json().items()})
    if isinstance(value, dict):
        return "; ".join(f"{key} = {describe(item)}" for key, item in value.items()) or "nothing"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(describe(item) for item in value) or "none"
    if isinstance(value, str | int | float | bool) or value is None:
        return str(value)
    return str(value_to_json(value))


@dataclass
class World:
    """Per-scenario state shared by the steps."""

    target: Target
    setup: Setup = field(
        default_factory=lambda: Setup(qm_guid=QM_GUID, computer=COMPUTER, client_identifier=DS_GUID)
    )
    started: bool = False
    _server_open: dict[str, Any] | None = None
    client_open: dict[str, Any] | None = None
    sent: list[Envelope] = field(default_factory=list)  # what the suite delivered to the target
    emitted: list[Envelope] = field(default_factory=list)  # what the target's client produced
    state_before: dict[str, Any] | None = None
    checks: list[Check] = field(default_factory=list)
    claims_binding: bool = True  # a claimed profile's product note is a promise (--mqcn-claims)
    reading_claims_binding: bool = False  # a contradicted reading claim fails (self-tests)
    script: list[tuple[str, Any]] = field(default_factory=list)  # deliveries, clock moves
    sequence: int = 1
    message: bytes = b""  # the message body under test
    # what the target did in this scenario, by call: a message processed (deliver, or its
    # transport), an initialisation (start_server, start_client), a client's send
    # (send_change_notification). None of them: the scenario judged only the suite itself
    acted: list[str] = field(default_factory=list)
    reset_done: bool = False
    # start_server answered not-implemented: raised at the scenario's next use of the server
    # side (a delivery its PICS admits, the Open Queue, the state), so that a scenario the
    # PICS makes not applicable stays so
    _unstarted: ClaimNotImplemented | None = field(default=None, repr=False)
    # pcap hook (--mqcn-pcap): told of every Envelope delivered ("delivered") or emitted by
    # the target's client ("sent"), in the order they travel
    on_message: Callable[[Envelope, str], None] | None = None
    reads_seen: list[dict[str, Any]] = field(default_factory=list)  # the last directory_reads()
    _judgements: dict[tuple[Any, ...], Judgement] = field(default_factory=dict, repr=False)

    # --- set-up -----------------------------------------------------------------------------
    def own_queue(self, queue: Queue | None = None) -> Queue:
        queue = queue or existing_queue()
        self.setup.queues.append(queue.to_json())
        return queue

    def publish_queue(self, queue: Queue, owner: uuid.UUID = QM_GUID) -> None:
        self.setup.directory_queues.append({"owner": str(owner), "queue": queue.to_json()})

    def leave_out_of_directory(self, guid: uuid.UUID, attribute: str) -> None:
        """LDAP mode: write the object ``guid`` without the LDAP attribute of ``attribute``."""
        self.setup.directory_absent.setdefault(str(guid), []).append(attribute)

    def require_ldap_directory(self) -> None:
        """Not applicable unless the scenario's directory is the suite's LDAP server."""
        if ldap_mode_of(self.target) is None:
            raise NotApplicable("the scenario needs the LDAP directory (--directory ldap)")

    def change_published(self, guid: uuid.UUID, **attributes: Any) -> None:
        """From now on the directory publishes the queue (or queue manager) ``guid`` with
        ``attributes`` changed (JSON values), in the middle of the scenario.  LDAP mode only:
        the adapter protocol gives a target its directory at ``reset``, so in dict mode a
        change between two notifications cannot reach it (not applicable)."""
        mode = ldap_mode_of(self.target)
        if mode is None:
            raise NotApplicable(
                "the scenario changes the directory between two notifications, which needs "
                "the LDAP directory (--directory ldap)"
            )
        queues = [e["queue"] for e in self.setup.directory_queues]
        found = [q for q in queues if q["Identifier"] == str(guid)]
        (found[0] if found else self.published_queue_manager(guid)).update(attributes)
        mode.change_directory(self.setup)

    def publish_queue_manager(self, guid: uuid.UUID = QM_GUID, **attributes: Any) -> None:
        """Publish the queue manager ``guid`` (by default the one under test) in the directory."""
        self.setup.directory_queue_managers.append({"Identifier": str(guid), **attributes})

    def published_queue_manager(self, guid: uuid.UUID = QM_GUID) -> dict[str, Any]:
        """The directory's (JSON) record of the queue manager ``guid``, to change it before the
        scenario starts; an AssertionError when the directory does not publish it."""
        for entry in self.setup.directory_queue_managers:
            if entry["Identifier"] == str(guid):
                return entry
        raise AssertionError(f"the directory does not publish the queue manager {guid}")

    def start(self) -> None:
        """reset + start_server (3.2.3), once per scenario (reset only if the client side
        reset the target already)."""
        if self.started:
            return
        if not self.reset_done:
            self.reset()
        self.started = True
        try:
            self._server_open = self.target.start_server()
        except ClaimNotImplemented as exc:
            self._unstarted = exc
            return
        self._acted("start_server")

    def _server_side(self) -> None:
        """Raise the claim start_server broke, once the scenario uses the server side."""
        if self._unstarted is not None:
            raise self._unstarted

    @property
    def server_open(self) -> dict[str, Any] | None:
        """The Open Queue the server side reported when it started (3.2.3), or None."""
        self._server_side()
        return self._server_open

    def restart(self) -> None:
        """reset + start_server now (scenarios that compare variants of one message)."""
        self.reset()
        self.started = False
        self._unstarted = None
        self.start()

    def reset(self) -> None:
        """reset the target to the scenario's set-up (the server side not yet started)."""
        # LDAP mode gives each DomainController the message names a server of its own
        self.setup.directory_servers = domain_controllers(self.message)
        self.target.reset(self.setup)
        self.script = []
        self.reset_done = True

    def _client_ready(self) -> None:
        """The client side needs a reset target, not a started server side: a target that
        claims only a client (its PICS) is never asked to start a server."""
        if not self.reset_done:
            self.reset()

    def _acted(self, call: str) -> None:
        """The target did something the scenario can judge (``call`` answered)."""
        self.acted.append(call)

    def _record(self, check: Check) -> None:
        """Keep ``check``, marked with whether the target had acted by then."""
        check.target_acted = bool(self.acted)
        self.checks.append(check)

    def finish(self) -> None:
        """The scenario is over: a transport-mode target closes its sessions now.  A server
        side that never started because start_server is not implemented fails its claim here
        if nothing in the scenario asked for it before."""
        end = getattr(self.target, "end_scenario", None)
        if callable(end):
            end()
        self._server_side()

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
        envelope = self.envelope(body, **attributes)
        # not applicable (its PICS) before the server side starts and the state is read
        admit_delivery(self.target, envelope, self.setup)
        self.start()
        self._server_side()
        if self.state_before is None:
            self.state_before = self.target.state()
        self.message = body
        self.sent.append(envelope)
        self.script.append(("deliver", envelope))
        if self.on_message is not None:
            self.on_message(envelope, "delivered")
        self.target.deliver(envelope)
        self._acted("deliver")
        if settle:
            self.settle()

    def settle(self) -> None:
        """Advance the clock past any batching window (product behaviour <3>)."""
        self.script.append(("advance", BATCH_WINDOW_SECONDS + 1))
        self.target.advance_clock(BATCH_WINDOW_SECONDS + 1)

    def state(self) -> dict[str, Any]:
        self._server_side()
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
    @property
    def profile_claimed(self) -> bool:
        """Did the scenario put the target in a product profile it claims (not ``spec``)?"""
        return self.setup.profile != DEFAULT_PROFILE.name

    def expect(
        self,
        requirement: str,
        condition: bool,
        message: str,
        diff: list[dict[str, Any]] | None = None,
    ) -> None:
        """Record the verdict of ``requirement``; a MUST that fails raises RequirementFailure.

        SHOULD / SHOULD NOT give a warning, MAY and product-behaviour notes give info: they
        never fail the scenario — except a product-behaviour note checked in a product profile
        the target claims (its PICS): the claim is a promise, and breaking it is a
        ``claim-fail`` (``--mqcn-claims=info`` turns it back into info).
        """
        entry = CATALOG[req(requirement)]
        if condition:
            self._record(Check(requirement, "pass", message))
            return
        if entry.is_mandatory:
            blocker = None if requirement in READ_REQUIREMENTS else self.read_blocker()
            if blocker is not None:  # the Read Directory broke: blame it, not the vehicle
                read_requirement, problem = blocker
                self._record(
                    Check(
                        requirement,
                        "stopped",
                        f"not judged: {problem} ({read_requirement})",
                        stopped_by=(read_requirement,),
                    )
                )
                self._record(Check(read_requirement, "fail", problem))
                raise RequirementFailure(
                    f"{read_requirement}: {problem} "
                    f"[{requirement}: {stopped_label((read_requirement,))}]"
                )
            self._record(Check(requirement, "fail", message, diff=diff))
            raise RequirementFailure(f"{requirement}: {message}")
        if entry.keyword == "PRODUCT" and self.claims_binding and self.profile_claimed:
            text = f"the target claims product profile {self.setup.profile!r}, yet {message}"
            self._record(Check(requirement, "claim-fail", text, diff=diff))
            raise RequirementFailure(f"{requirement}: {text}")
        verdict = "warning" if entry.severity == "warning" else "info"
        self._record(Check(requirement, verdict, message, diff=diff))

    def read_blocker(self) -> tuple[str, str] | None:
        """``(requirement, problem)`` when a Version 0x02 creation or change notification
        delivered in this scenario was answered without a Read Directory of its object
        (3.2.5.2): the read requirement of its event and why; None when every such
        notification was read (or none was delivered).  A check that fails after such a
        notification is stopped by that requirement, which fails instead (a message used only
        as a vehicle never fails a format requirement for a broken read)."""
        needed: dict[uuid.UUID, list[int]] = {}
        for envelope in self.sent:
            body = notification_body(envelope.body)
            if body is not None and body.event in READ_OF_EVENT:
                needed.setdefault(body.object_guid, []).append(body.event)
        if not needed:
            return None
        try:
            reads = self.directory_reads()
        except (TargetError, NotApplicable, ClaimNotImplemented):
            return None  # no account of the reads: the check judges as it is
        for guid, events in needed.items():
            found = reads_of_object(reads, guid)
            if len(found) < len(events):
                problem = reads_count_problem(reads, guid, len(events))
                return READ_OF_EVENT[events[len(found)]], problem
        return None

    def expect_reading(
        self, requirement: str, errata: str, *, strict: bool, lenient: bool, message: str
    ) -> None:
        """Judge an outcome that depends on the two-reading errata item ``errata``: either
        reading passes (:meth:`expect_readings` with the readings ``strict`` / ``lenient``
        say the outcome matches)."""
        matching = [name for name, ok in (("strict", strict), ("lenient", lenient)) if ok]
        self.expect_readings(requirement, errata, matching, message=message)

    def expect_readings(
        self, requirement: str, errata: str, matching: Iterable[str], *, message: str
    ) -> None:
        """Judge an outcome that depends on errata item ``errata``: every reading passes.

        ``matching`` names the readings of the item whose outcome is what the target did.
        Where it is some of them, the check records them for the report ("Readings
        followed"); where it is all, the scenario cannot tell them apart; only an outcome
        that no reading gives fails ``requirement`` as :meth:`expect` does.
        """
        switch = SWITCH_OF[errata]
        seen = [name for name in switch.names if name in set(matching)]
        if len(seen) == len(switch.names):  # this scenario cannot tell the readings apart
            self._record(Check(requirement, "pass", f"{message} (every reading of {errata})"))
        elif seen:
            said = " or ".join(f"{name}: {switch.phrase(name)}" for name in seen)
            self._observed(
                Check(
                    requirement,
                    "pass",
                    f"{message}: follows the {' or '.join(seen)} reading of {errata} ({said})",
                    errata,
                    READING_SEPARATOR.join(seen),
                )
            )
        else:
            every = "; ".join(f"{name}: {phrase}" for name, phrase in switch.readings)
            self.expect(
                requirement,
                False,
                f"{message}, which no reading of {errata} allows ({every})",
            )

    def expect_outcome_whatever_was_read(self, requirement: str) -> None:
        """The queue manager state is what the reference reaches from this scenario's
        deliveries (up to the defaults of a queue it creates: E-19), whether or not the target
        read the directory on the way: a read that changes nothing passes (errata E-25), a
        read whose values the target then kept or applied does not."""
        after, before = self.state(), self.state_before or {}
        reads = len(self.directory_reads())
        fits = state_fits(after, self.reference_state(following()), before)
        diff = attribute_diff(before, after)
        changed = "; ".join(describe_change(d) for d in diff[:3]) or "nothing"
        said = f"{reads} Read Directory event(s) made" if reads else "no Read Directory made"
        self.expect(requirement, fits, f"the message changed {changed} ({said})", diff)

    def expect_state_by_readings(self, requirement: str, errata: str) -> None:
        """The queue manager state is what the reference reaches following one of the
        readings of ``errata`` from this scenario's set-up and deliveries (up to the defaults
        of a queue it creates, errata E-19: :func:`~mqcn_model.fitting.state_fits`); recorded as
        :meth:`expect_readings` does."""
        after, before = self.state(), self.state_before or {}
        matching = [
            readings.reading_of(errata)
            for readings in combinations([SWITCH_OF[errata]])
            if state_fits(after, self.reference_state(readings), before)
        ]
        diff = attribute_diff(self.state_before or {}, after)
        changed = "; ".join(describe_change(d) for d in diff[:3]) or "nothing"
        self.expect_readings(
            requirement, errata, matching, message=f"the message changed {changed}"
        )

    def _observed(self, check: Check) -> None:
        """Record a check that saw the target follow ``check.reading`` of ``check.errata``.

        The report compares it with the reading the target claims (its PICS); a contradicted
        claim is a warning there.  With ``--mqcn-reading-claims=fail`` (what the suite's own
        mutation analysis uses: the reference's claims are exact) it fails here instead.
        """
        self._record(check)
        claimed = getattr(getattr(self.target, "pics", None), "claimed_readings", None) or {}
        claim = claimed.get(check.errata or "")
        seen = (check.reading or "").split(READING_SEPARATOR)
        if self.reading_claims_binding and claim is not None and claim not in seen:
            text = (
                f"the target claims the {claim} reading of {check.errata}, yet it followed the "
                f"{check.reading} one here: {check.message}"
            )
            self._record(Check(check.requirement, "claim-fail", text, check.errata))
            raise RequirementFailure(f"{check.requirement}: {text}")

    def expect_disregarded(self, requirement: str) -> None:
        """The message under test changed nothing — or, where an errata reading admits it
        (:func:`~mqcn_model.judge.errata_admitting`), did exactly what a receiver following
        that reading does with it."""
        after = self.state()
        unchanged = after == self.state_before
        admitting = errata_admitting(self.message) if self.message else ()
        if not admitting:
            diff = attribute_diff(self.state_before or {}, after)
            changed = "; ".join(describe_change(d) for d in diff[:3])
            more = f" (and {len(diff) - 3} more)" if len(diff) > 3 else ""
            self.expect(
                requirement, unchanged, f"the queue manager state changed: {changed}{more}", diff
            )
            return
        switch = admitting[0]
        expected = self.reference_state(switch.flipped)
        lenient = not unchanged and state_fits(after, expected, self.state_before or {})
        self.expect_reading(
            requirement,
            switch.errata,
            strict=unchanged,
            lenient=lenient,
            message="the message was disregarded" if unchanged else "the message was processed",
        )

    def expect_emitted(self, requirement: str) -> None:
        """Every message the target's client emitted satisfies ``requirement``.

        Judged by the model (:func:`mqcn_model.sending.sending_judgement`).  A message that
        only the other reading of one errata item admits passes, recorded as an observation of
        that reading (the report's "Readings followed"): the sender follows a reading the spec
        allows, the letter included, and is neither failed nor warned for it.  A body that
        only such a reading can read at all (``</ObjectGuid >``, a lone surrogate) is read that
        way for every other requirement.

        Where ``requirement`` needs a message that cannot be read (or reads as the other
        Version), it is not judged: it is recorded ``stopped`` by the requirement whose breach
        made the message unreadable, and that requirement is judged here, wherever this
        happens — so the failure lands on what broke (MQCN-2.2.5-7 for a GUID in braces),
        never on the requirements that merely needed the reading.
        """
        if not self.emitted:
            self.expect(requirement, False, "the client emitted nothing")
            return
        context = self.sending_context()
        needed = [s for e in self.emitted for s in errata_admitting(e.body)[:1]]
        if needed:
            verdicts = (judge(e.body) for e in self.emitted)
            unreadable = {v.requirements[0] for v in verdicts if v.message is None}
            if requirement in unreadable:
                switch = needed[0]
                text = (
                    f"an emitted body is read only under the lenient reading of {switch.errata} "
                    f"({switch.lenient}); the strict reading refuses it ({requirement})"
                )
                self._observed(Check(requirement, "pass", text, switch.errata, "lenient"))
                return
        base = following(*dict.fromkeys(s.errata for s in needed))

        def found(readings: Readings) -> list[Violation]:
            return self.judgement(context, readings).of(requirement)[0]

        strict, switch = explain_by_errata(found, base)
        if not strict:
            _, stopped = self.judgement(context, base).of(requirement)
            if stopped:
                self._stopped(requirement, stopped)
            else:
                self._record(Check(requirement, "pass", "every emitted message satisfies it"))
        elif switch is not None:
            text = (
                f"follows the lenient reading of {switch.errata} ({switch.lenient}): "
                f"{_described(strict)} under the strict one"
            )
            self._observed(Check(requirement, "pass", text, switch.errata, "lenient"))
        else:
            self.expect(requirement, False, _described(strict))

    def judgement(self, context: SendingContext, readings: Readings) -> Judgement:
        """:func:`~mqcn_model.sending.sending_judgement` of what the client emitted so far,
        computed once per scenario state and readings (every Then step of a scenario asks
        about the same messages)."""
        key = (repr(context), readings, len(self.emitted))
        if key not in self._judgements:
            self._judgements[key] = sending_judgement(self.emitted, context, readings)
        return self._judgements[key]

    def emitted_read(self, requirement: str) -> list[ChangeNotificationMessage] | None:
        """The emitted messages as the codec reads them (under the errata reading a body
        needs to be read at all), for a step that judges ``requirement`` on what they say.

        None when one of them cannot be read: ``requirement`` is then recorded stopped by the
        requirement whose breach made it unreadable, and that one is judged instead
        (:meth:`expect_emitted`) -- a step never fails a value it could not see.
        """
        needed = [s for e in self.emitted for s in errata_admitting(e.body)[:1]]
        readings = following(*dict.fromkeys(s.errata for s in needed))
        verdicts = [judge(e.body, readings) for e in self.emitted]
        unreadable = [
            Stopped(requirement, index, verdict.violations[0])
            for index, verdict in enumerate(verdicts)
            if verdict.message is None and verdict.violations
        ]
        if unreadable:
            self._stopped(requirement, unreadable)
            return None
        return [v.message for v in verdicts if v.message is not None]

    def _stopped(self, requirement: str, stopped: list[Stopped]) -> None:
        """Record ``requirement`` as stopped by the breaches in ``stopped``, then judge each
        of those (the scenario row fails on the one that broke, not on ``requirement``)."""
        blockers = tuple(dict.fromkeys(s.by.requirement for s in stopped))
        text = "; ".join(dict.fromkeys(str(s) for s in stopped))
        self._record(Check(requirement, "stopped", f"not judged: {text}", stopped_by=blockers))
        try:
            for blocker in blockers:
                self.expect_emitted(blocker)
        except RequirementFailure as exc:  # JUnit, cucumber and pytest show both
            raise RequirementFailure(f"{exc} [{requirement}: {stopped_label(blockers)}]") from None

    def sending_context(self) -> SendingContext:
        """What a conforming client would have had to send in this scenario: the notifications
        raised (:meth:`notify`) with the directory's objects, the Version asked (else the
        profile's), the profile's MSMQ version, the client's identity, the queue it opened."""
        profile = PROFILES.get(self.setup.profile, DEFAULT_PROFILE)
        asked = self.setup.client_version
        return SendingContext(
            client_identifier=self.setup.client_identifier,
            msmq_version=profile.msmq_version,
            opened_format_name=(self.client_open or {}).get("destination_format_name"),
            version=int(profile.sends_version) if asked is None else asked,
            product_version=int(profile.sends_version),
            product_profile=self.profile_claimed,
            server_name=self.setup.client_server_name,
            notifications=tuple(self.notified),
            directory_queues=frozenset(
                uuid.UUID(entry["queue"]["Identifier"]) for entry in self.setup.directory_queues
            ),
            directory_queue_managers=frozenset(
                uuid.UUID(qm["Identifier"]) for qm in self.setup.directory_queue_managers
            ),
        )

    def reference_state(self, readings: Readings) -> dict[str, Any]:
        """The state the reference queue manager following ``readings`` reaches from this
        scenario's set-up and deliveries (what the other reading of an errata item does)."""
        from mqcn_suite.targets.reference import ReferenceTarget  # targets import the world

        reference = ReferenceTarget(readings=readings)
        # from the set-up as written (LDAP mode put back what reads return): the reference
        # reads it in memory, so no search of its own joins the target's at the LDAP server
        reference.reset(dataclasses.replace(self.setup, ldap=None))
        reference.start_server()
        for action, argument in self.script:
            if action == "deliver":
                reference.deliver(argument)
            else:
                reference.advance_clock(argument)
        return reference.state()

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
            **({"directory_reads": self.reads_seen} if self.reads_seen else {}),
            "target_acted": list(dict.fromkeys(self.acted)),
            **self._published_directory(),
        }

    def _published_directory(self) -> dict[str, Any]:
        """``{"directory": ...}``: what the scenario published (the ``setup.directory`` of the
        adapter protocol, without ``ldap``: no credentials in reports), for ``mqcn directory
        serve --report``; nothing when it published nothing."""
        setup = self.setup
        if not (setup.directory_queues or setup.directory_queue_managers):
            return {}
        directory = dict(setup.to_json()["directory"])
        directory.pop("ldap", None)
        return {"directory": directory}

    # --- client side (3.3) and message-format families ---------------------------------------
    def start_client(self, destination: uuid.UUID = QM_GUID) -> dict[str, Any] | None:
        """Run the target's client initialisation (3.3.3) towards ``destination``.

        Resets the target first if the scenario has not yet; records the Open Queue it reports.
        """
        self._client_ready()
        self.client_open = self.target.start_client(destination)
        self._acted("start_client")
        return self.client_open

    def send_change_notification(
        self, operation: str, object_id: uuid.UUID | None = None, changed: Iterable[str] = ()
    ) -> list[Envelope]:
        """Raise Send Change Notification (3.3.4.1) on the target's client; keep what it emits.

        ``object_id`` defaults to the queue orders (the queue manager for QueueManagerUpdate);
        the object must be in the scenario's directory set-up.
        """
        self._client_ready()
        if object_id is None:
            object_id = QM_GUID if operation == "QueueManagerUpdate" else QUEUE_GUID
        sent = self.target.send_change_notification(operation, object_id, list(changed))
        self._acted("send_change_notification")
        self.emitted.extend(sent)
        if self.on_message is not None:
            for envelope in sent:
                self.on_message(envelope, "sent")
        return sent

    def disregard_problem(self, body: bytes) -> str | None:
        """Deliver ``body`` to a freshly reset target: None if it was disregarded (state
        unchanged, the next notification still applied), else what went wrong.

        For families of malformed messages judged inside one step (e.g. hypothesis examples).
        """
        self.restart()
        kept, self.state_before = self.state_before, None
        self.deliver(body)  # not applicable (its PICS) before the state is read
        before = self.state_before or {}
        if kept is not None:
            self.state_before = kept
        after = self.target.state()
        if after != before:
            changed = "; ".join(describe_change(d) for d in attribute_diff(before, after)[:3])
            return f"{body.hex()}: the queue manager state changed ({changed})"
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
        """Every Read Directory the target made since the scenario's reset, in order; each
        says where the suite learnt of it (``source``: ``ldap``, seen at the suite's LDAP
        server, or ``target``, the target's own account through ``directory_reads``)."""
        reads = [
            {**read, "source": read.get("source", "target")}
            for read in self.target.directory_reads()
        ]
        self.reads_seen = reads
        return reads

    def advance_clock(self, seconds: float) -> None:
        """Move the target's virtual clock by ``seconds`` (batching profiles, note <3>)."""
        self.start()
        self.script.append(("advance", seconds))
        self.target.advance_clock(seconds)

    def outcome_of(self, body: bytes, **attributes: Any) -> dict[str, Any]:
        """The queue manager state after ``body`` alone reached a freshly reset, started
        target (batching window elapsed): for comparing variants of one message."""
        self.restart()
        self.state_before = None  # read by deliver, once its PICS admits the message
        self.deliver(body, **attributes)
        return self.target.state()

    def problems_for(
        self, strategy: Any, check: Callable[[Any], str | None], examples: int = 10
    ) -> list[str]:
        """``check(x)`` for hypothesis-drawn ``x`` (derandomised, ``examples`` draws): every
        problem it reports (None: no problem), prefixed with the drawn value.

        A target that breaks or stops answering (:class:`~mqcn_suite.targets.base.TargetError`),
        or does not claim what a draw needs (:class:`~mqcn_suite.targets.base.NotApplicable`),
        ends the family: the error is kept, the remaining draws no longer call the target, and
        it is raised once hypothesis has returned.  Hypothesis never sees it, so it neither
        shrinks nor replays the example against a target that stopped -- a replay that
        restarts the target passes (or breaks differently) and hypothesis would report a
        FlakyFailure inside an exception group instead of the scenario's one-line ``error``.
        """
        from hypothesis import HealthCheck, settings
        from hypothesis import given as for_all

        problems: list[str] = []
        broke: list[TargetError | NotApplicable | ClaimNotImplemented] = []

        @settings(
            max_examples=examples,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @for_all(strategy)
        def run(drawn: Any) -> None:
            if broke:
                return  # the target stopped: no more calls to it
            try:
                problem = check(drawn)
            except (TargetError, NotApplicable, ClaimNotImplemented) as exc:  # raised later
                broke.append(exc)
                return
            if problem:
                problems.append(f"{describe(drawn)}: {problem}")

        run()
        if broke:
            raise broke[0]
        return problems

    # --- client side judged by mqcn_model.sending ---------------------------------------------
    notified: list[Notification] = field(default_factory=list)  # Send Change Notifications

    def notify(
        self, operation: str, changed: Iterable[str] = (), object_id: uuid.UUID | None = None
    ) -> list[Envelope]:
        """:meth:`send_change_notification`, remembering what was asked (the operation, the
        directory object and its owner, the changed attributes, how many messages came back)
        so that :mod:`mqcn_model.sending` can judge what the client emitted for it."""
        changed = tuple(changed)
        if object_id is None:
            object_id = QM_GUID if operation == "QueueManagerUpdate" else QUEUE_GUID
        sent = self.send_change_notification(operation, object_id, changed)
        subject, owner = self.directory_object(operation, object_id)
        self.notified.append(Notification(Operation[operation], subject, owner, changed, len(sent)))
        return sent

    def directory_object(
        self, operation: str, object_id: uuid.UUID
    ) -> tuple[Queue | QueueManager, uuid.UUID]:
        """The object a notification concerns as the scenario's directory publishes it, and
        the queue manager owning it (a queue manager owns itself)."""
        if operation == "QueueManagerUpdate":
            for data in self.setup.directory_queue_managers:
                if uuid.UUID(data["Identifier"]) == object_id:
                    return QueueManager.from_json(data), object_id
            return QueueManager(object_id), object_id
        for entry in self.setup.directory_queues:
            if uuid.UUID(entry["queue"]["Identifier"]) == object_id:
                return Queue.from_json(entry["queue"]), uuid.UUID(entry["owner"])
        return Queue(object_id), self.setup.qm_guid

    def expect_sent(self, requirement: str, **stated: Any) -> None:
        """:meth:`expect_emitted`, after checking what the step's text states (a Version, an
        Event token…) against what the model derives from the scenario: a mismatch is an
        error in the feature file, not a verdict on the target."""
        problem = statement_problem(self.sending_context(), stated)
        assert problem is None, f"the feature file contradicts the scenario: {problem}"
        self.expect_emitted(requirement)

    def expect_opened(self, requirement: str, destination: uuid.UUID | None = None) -> None:
        """The Open Queue the client raised at initialisation (3.3.3), and the Messages it
        enqueued afterwards to it (MQCN-3.3.5.3-13), satisfy ``requirement`` (``destination``:
        the queue manager it was initialised towards)."""
        found = [
            str(v)
            for v in open_queue_violations(self.client_open, destination, self.emitted)
            if v.requirement == requirement
        ]
        self.expect(requirement, not found, "; ".join(found) or "opened as 3.3.3 says")


def _described(violations: list[Violation]) -> str:
    """Violations of one requirement as one line, without repeating its ID."""
    return "; ".join(
        v.message if v.offset is None else f"{v.message} (byte {v.offset})" for v in violations
    )


def stopped_label(blockers: Iterable[str]) -> str:
    """How a requirement stopped by ``blockers`` is shown everywhere.

    >>> stopped_label(["MQCN-2.2.5-7"])
    'inconclusive (stopped by MQCN-2.2.5-7)'
    """
    return f"inconclusive (stopped by {', '.join(blockers)})"
