"""Judge one UserMessage Packet as MS-MQCN sees it: the single place that does so.

``mqcn decode --packet`` calls :func:`judge_packet_bytes` (the bytes of one whole packet); the
capture reader's stream framer (hence ``mqcn audit`` of a capture) calls
:func:`judge_user_message` with ``only_notifications`` on each UserMessage it frames.  Both
come down to :func:`judge_user_message`, which answers, for a packet whose structure parsed:

* **where it goes**: a notification queue or not (:func:`is_notification_queue`, MS-MQCN 1.9
  and 3.2.1.2.1) — the only thing that decides whether the packet is judged as a change
  notification or counted as another message;
* **the wire findings**: the value rules of the wire catalog it breaks (``packet.findings``,
  each with its ID and byte offset; a broken *structure* never gets here, the codec refused
  the bytes);
* **the Envelope** ([MS-MQDMPR] 3.1.7.1.31): always, whatever values the packet holds;
* **the envelope findings**: what the 3.3.5.3 sender rules of :mod:`mqcn_model.sending` say
  of those attributes (:func:`envelope_findings`), e.g. a HashAlgorithm no sender uses, an
  unsigned message;
* optionally **the body's verdict** (:func:`mqcn_model.judge.judge`).

With ``only_notifications`` a packet to another queue is not judged further than its
destination (the framer counts it as another message).

>>> import uuid
>>> from mqcn_model.envelope import Envelope, MessageId
>>> from mqcn_model.constants import HashAlgorithm, notify_queue_format_name
>>> from mqcn_model.wire.mapping import envelope_to_packet
>>> qm = uuid.UUID(int=7)
>>> e = Envelope(b"\\x02\\x01", MessageId(qm, 1), sender_identifier=qm,
...              hash_algorithm=HashAlgorithm.SHA256,
...              destination_format_name=notify_queue_format_name(str(qm)))
>>> found = judge_user_message(envelope_to_packet(e))
>>> found.notification_queue, found.wire, [f.requirement for f in found.envelope_findings]
(True, (), ['MQCN-3.3.5.3-5'])
"""

from __future__ import annotations

from dataclasses import dataclass

from mqcn_model.catalog import CATALOG, req
from mqcn_model.constants import (
    NOTIFY_QUEUE_NAME,
    AuthLevel,
    notify_queue_format_name,
    same_format_name,
)
from mqcn_model.envelope import Envelope
from mqcn_model.errata import STRICT, Readings
from mqcn_model.errors import DecodeError, Violation
from mqcn_model.frozen import quick_init
from mqcn_model.judge import Verdict, judge
from mqcn_model.profiles import PROFILES
from mqcn_model.sending import RULES, Emission, Rule, SendingContext
from mqcn_model.wire.mapping import packet_to_envelope
from mqcn_model.wire.queues import format_name
from mqcn_model.wire.usermessage import (
    Salvage,
    UserMessage,
    decode_user_message,
    salvage_user_message,
)

_NOTIFY_PATH_SUFFIX = f"\\private$\\{NOTIFY_QUEUE_NAME}".lower()


def is_notification_queue(name: str, queue_manager: str) -> bool:
    """Is the format name ``name`` (the destination of a packet addressed to the queue
    manager ``queue_manager``) the notification queue?

    >>> qm = "0f2c1e3a-0000-4000-8000-000000000001"
    >>> is_notification_queue(f"PRIVATE={qm.upper()}\\\\3", qm)
    True
    >>> is_notification_queue("DIRECT=OS:host\\\\private$\\\\notify_queue$", qm)
    True
    >>> is_notification_queue(f"PRIVATE={qm}\\\\4", qm)
    False
    """
    if same_format_name(name, notify_queue_format_name(queue_manager)):
        return True
    return name.upper().startswith("DIRECT=") and name.lower().endswith(_NOTIFY_PATH_SUFFIX)


def destination_of(packet: UserMessage) -> str:
    """The destination's format name, e.g. ``PRIVATE=<guid>\\3`` or ``DIRECT=OS:host\\q``."""
    user = packet.user
    return format_name(user.destination, source=user.source_qm, destination=user.destination_qm)


def goes_to_a_notification_queue(packet: UserMessage) -> bool:
    """The destination alone decides whether a packet is a change notification."""
    user = packet.user
    destination = user.destination
    if destination is not None and destination.code == 3 and destination.private_id == 3:
        return True  # PRIVATE=<the queue manager addressed>\3: the common case, no text built
    return is_notification_queue(destination_of(packet), str(user.destination_qm))


# --- the sender rules that judge a Message by its envelope alone -------------------------------


def _judges_the_envelope_alone(each: Rule) -> bool:
    """A 3.3.5.3 rule that reads only the Message's attributes: not the decoded body, not the
    notification the client was asked to send, not a Windows product note."""
    return (
        CATALOG[each.requirement].section == "3.3.5.3"
        and not each.decoded
        and each.operations is None
        and not each.product_note
    )


ENVELOPE_RULES: tuple[Rule, ...] = tuple(r for r in RULES if _judges_the_envelope_alone(r))
# The MSMQ versions of the product profiles: a captured sender's version is not on the wire,
# so an attribute is a finding only when the rules of every one of them reject it (MD5 is
# MSMQ 2.0's hash, Sig10 MSMQ 1.0's signature: neither is a finding on its own).
MSMQ_VERSIONS: tuple[str, ...] = tuple(sorted({p.msmq_version for p in PROFILES.values()}))
_NOT_READ = Verdict(True, None)  # the envelope rules never read the body's verdict
_MAX_ORDINAL = 0xFFFF_FFFF


def envelope_findings(
    envelope: Envelope, readings: Readings = STRICT, msmq_version: str | None = None
) -> tuple[Violation, ...]:
    """The 3.3.5.3 requirements the Message's attributes break whatever MSMQ version sent it
    (``msmq_version``: the sender's, when it is known).

    >>> from mqcn_model.constants import AuthLevel, HashAlgorithm
    >>> e = Envelope(b"\\x02\\x01")
    >>> envelope_findings(e)
    ()
    >>> [str(v) for v in envelope_findings(e.with_(authentication_level=AuthLevel.None_))]
    ['MQCN-3.3.5.3-6: AuthenticationLevel is None, not Sig20']
    >>> md5 = e.with_(hash_algorithm=HashAlgorithm.MD5)
    >>> envelope_findings(md5)
    ()
    >>> [str(v) for v in envelope_findings(md5, STRICT, "6.0")]
    ['MQCN-3.3.5.3-5: HashAlgorithm is MD5, MSMQ 6.0 uses SHA512']

    Millions of captured messages share a few attribute sets, so the answer is remembered
    per attribute set the rules read: the body's Version byte, whether the message id's
    ordinal is 0 (no client identifier is known, nor the queue opened: the rules read neither
    the id's GUID, the destination, the sender's identifier nor the arrival time), the six
    attributes, the readings and the versions.
    """
    versions = MSMQ_VERSIONS if msmq_version is None else (msmq_version,)
    sequence = envelope.message_id.sequence
    remembered = (
        envelope.body[:1],
        1 if 0 < sequence <= _MAX_ORDINAL else sequence,
        envelope.sender_identifier_type,
        envelope.authentication_level,
        envelope.time_to_reach_queue,
        envelope.delivery_guarantee,
        envelope.message_class,
        envelope.hash_algorithm,
        readings,
        versions,
    )
    found = _FINDINGS.get(remembered)
    if found is None:
        found = judge_envelope(envelope, readings, versions)
        if len(_FINDINGS) >= _REMEMBERED:
            _FINDINGS.clear()  # a bound on memory; the answers are the rules' own either way
        _FINDINGS[remembered] = found
    return found


_REMEMBERED = 4096
_FINDINGS: dict[tuple[object, ...], tuple[Violation, ...]] = {}


def forget() -> None:
    """Empty the memory of :func:`envelope_findings` (the next answers are computed again)."""
    _FINDINGS.clear()


def judge_envelope(
    envelope: Envelope, readings: Readings, versions: tuple[str, ...] = MSMQ_VERSIONS
) -> tuple[Violation, ...]:
    """:func:`envelope_findings` without the memory: the rules under each MSMQ version of
    ``versions``; a requirement is broken when it is under every one of them."""
    claimed = envelope.body[0] if envelope.body[:1] in (b"\x01", b"\x02") else None
    emission = Emission(0, envelope, _NOT_READ, None, claimed)
    broken: dict[str, list[str]] | None = None
    for version in versions:
        context = SendingContext(msmq_version=version)
        found: dict[str, list[str]] = {}
        for each in ENVELOPE_RULES:
            if each.applies_to(emission, context):
                for problem in each.check(emission, context, readings):
                    found.setdefault(each.requirement, []).append(problem)
        if broken is None:
            broken = found
        else:
            broken = {
                rid: problems + [p for p in found[rid] if p not in problems]
                for rid, problems in broken.items()
                if rid in found
            }
        if not broken:
            return ()
    return tuple(
        Violation(rid, None, " / ".join(problems)) for rid, problems in (broken or {}).items()
    )


# --- one packet ---------------------------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True)
class MessageJudgement:
    """What MS-MQCN makes of one decoded UserMessage Packet (see the module docstring).

    ``body`` is None when the caller judges the body itself (the audit, which also asks the
    reference server what it does with it).  ``envelope`` is None only for a packet judged
    with ``only_notifications`` that goes to another queue: nothing but its destination is
    judged then.
    """

    packet: UserMessage
    destination: str
    notification_queue: bool
    envelope: Envelope | None
    wire: tuple[Violation, ...]
    envelope_findings: tuple[Violation, ...]
    body: Verdict | None

    @property
    def findings(self) -> tuple[Violation, ...]:
        """Wire findings, then envelope findings."""
        return self.wire + self.envelope_findings


def judge_user_message(
    packet: UserMessage,
    readings: Readings = STRICT,
    *,
    signed_as: AuthLevel = AuthLevel.Sig20,
    arrival_time: float = 0.0,
    judge_body: bool = True,
    msmq_version: str | None = None,
    only_notifications: bool = False,
) -> MessageJudgement:
    """Judge a decoded UserMessage Packet: destination, wire and envelope findings, and (with
    ``judge_body``) the verdict on its body.  ``signed_as`` and ``arrival_time``: see
    :func:`mqcn_model.wire.mapping.packet_to_envelope`; ``msmq_version``: the sender's, when
    known (else an attribute some MSMQ version sends is no finding).  ``only_notifications``:
    a packet to another queue than a notification queue is judged no further than its wire
    findings (no envelope, no body verdict) — the capture reader meets millions of those.

    >>> import uuid
    >>> from mqcn_model.envelope import Envelope, MessageId
    >>> from mqcn_model.wire.mapping import envelope_to_packet
    >>> qm = uuid.UUID(int=7)
    >>> e = Envelope(b"\\x02\\x01", MessageId(qm, 1), sender_identifier=qm,
    ...              destination_format_name=f"PRIVATE={qm}\\\\4")
    >>> other = judge_user_message(envelope_to_packet(e), only_notifications=True)
    >>> other.notification_queue, other.destination, other.envelope, other.findings
    (False, 'PRIVATE=00000000-0000-0000-0000-000000000007\\\\4', None, ())
    """
    destination = destination_of(packet)
    notification_queue = goes_to_a_notification_queue(packet)
    if only_notifications and not notification_queue:
        return MessageJudgement(packet, destination, False, None, tuple(packet.findings), (), None)
    envelope, body = packet_to_envelope(
        packet, signed_as=signed_as, arrival_time=arrival_time, destination=destination
    )
    return MessageJudgement(
        packet,
        destination,
        notification_queue,
        envelope,
        tuple(packet.findings),
        envelope_findings(envelope, readings, msmq_version),
        judge(body, readings) if judge_body else None,
    )


# --- the bytes of one whole packet ------------------------------------------------------------

# Bytes after a UserMessage Packet's end: PacketSize does not cover the whole input.
R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")


@dataclass(frozen=True)
class BytesVerdict:
    """The verdict on bytes given as one whole UserMessage Packet (``mqcn decode --packet``):
    ``refused`` when their structure cannot be read -- with ``salvage``, every header read
    before the stop, when a BaseHeader is there --, else the :class:`MessageJudgement`
    (every header, the wire findings; for a notification-queue destination the envelope
    findings and the body's verdict) and ``trailing``, bytes given after the packet's end."""

    size: int
    refused: Violation | None
    judgement: MessageJudgement | None
    trailing: Violation | None = None
    salvage: Salvage | None = None

    @property
    def packet(self) -> UserMessage | None:
        return self.judgement.packet if self.judgement is not None else None

    @property
    def violations(self) -> tuple[Violation, ...]:
        """The wire requirements broken: the structural one that stopped the decoder, or
        every value rule the packet breaks (and bytes after it)."""
        if self.judgement is None:
            return (self.refused,) if self.refused is not None else ()
        trailing = (self.trailing,) if self.trailing is not None else ()
        return self.judgement.wire + trailing

    @property
    def envelope_findings(self) -> tuple[Violation, ...]:
        return self.judgement.envelope_findings if self.judgement is not None else ()

    @property
    def envelope(self) -> Envelope | None:
        return self.judgement.envelope if self.judgement is not None else None

    @property
    def notification_queue(self) -> bool | None:
        return self.judgement.notification_queue if self.judgement is not None else None

    @property
    def body(self) -> Verdict | None:
        return self.judgement.body if self.judgement is not None else None

    @property
    def conforming(self) -> bool:
        """No wire finding, no envelope finding, and a conforming body (a packet to another
        queue than a notification queue: no wire finding; its body is not MS-MQCN's)."""
        if self.judgement is None or self.violations or self.envelope_findings:
            return False
        return self.body.conforming if self.body is not None else not self.notification_queue


def judge_packet_bytes(buf: bytes, readings: Readings = STRICT) -> BytesVerdict:
    """Decode ``buf`` as one whole UserMessage Packet and judge it (:func:`judge_user_message`;
    the envelope and the body only for a notification-queue destination): only bytes whose
    structure cannot be read are refused, with every header read before the stop.

    >>> judge_packet_bytes(b"\\x10\\x00").refused.requirement
    'MQMQ-2.2.19.1-3'
    """
    try:
        packet, end = decode_user_message(buf)
    except DecodeError as exc:
        salvage: Salvage | None = salvage_user_message(buf)
        if not salvage.headers:
            salvage = None  # not even a BaseHeader
        return BytesVerdict(len(buf), exc.violation, None, salvage=salvage)
    trailing = None
    if end != len(buf):
        extra = len(buf) - end
        trailing = Violation(
            R_PACKET_SIZE,
            end,
            f"{extra} {'byte follows' if extra == 1 else 'bytes follow'} the packet, "
            f"which ends at byte {end} (PacketSize {packet.base.packet_size})",
        )
    judged = judge_user_message(packet, readings, only_notifications=True)
    return BytesVerdict(len(buf), None, judged, trailing)
