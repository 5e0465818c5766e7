"""The UserMessage Packet ([MS-MQMQ] 2.2.20): one whole MSMQ message on an MS-MQQB session.

Headers, in wire order, and the flag that announces each::

    BaseHeader                  always (16 bytes)
    UserHeader                  always
    TransactionHeader           UserHeader.Flags.TH
    SecurityHeader              UserHeader.Flags.SH
    MessagePropertiesHeader     always (UserHeader.Flags.MP must be set)
    DebugHeader                 BaseHeader.Flags.DH
    SoapHeader                  UserHeader.Flags.HH
    MultiQueueFormatHeader      UserHeader.Flags.MQ
    SessionHeader (16 bytes)    BaseHeader.Flags.SH - after PacketSize, not counted in it

Every header is padded to a 4-byte boundary; BaseHeader.PacketSize covers everything up to
the SessionHeader.  :func:`decode_user_message` reads and judges one packet: a *structural*
requirement broken (sizes, offsets, header presence, lengths: what reading needs) raises a
DecodeError naming it and the byte offset; a *value rule* broken (acknowledgments without an
administration queue, a reserved bit, an algorithm, a class...) is a finding in the decoded
packet's ``findings``, and the packet is read all the same.  Where the structure does not
add up under the suite's reading of wire errata W-02, W-06 and W-07 (docs/errata.md), the
letter's layout of those items is tried, and a packet read so says which item and where in
``letter`` (never silently; when both layouts fit, the reading is kept); :func:`encode_user_message`
writes one, computing PacketSize; :func:`finalize` sets the flag bits that say which headers
are present, so a packet built from parts encodes.

>>> import uuid
>>> from mqcn_model.wire.queues import QueueFormat
>>> m = finalize(UserMessage(
...     BaseHeader(time_to_reach_queue=300),
...     UserHeader(uuid.UUID(int=1), uuid.UUID(int=2), 0xFFFFFFFF, 0, 1, 0,
...                destination=QueueFormat.private_number(3, 3)),
...     MessageProperties(body=b"\\x02\\x01")))
>>> wire = encode_user_message(m)
>>> len(wire), decode_user_message(wire)[0] == m
(128, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import combinations

from mqcn_model.catalog import req
from mqcn_model.errors import DecodeError, Violation, fail
from mqcn_model.wire import base as B
from mqcn_model.wire import user as U
from mqcn_model.wire.acks import FinalAckBody, OrderAckBody, ack_kind, check_ack
from mqcn_model.wire.base import BaseHeader, decode_base_header, encode_base_header
from mqcn_model.wire.common import LETTER_ITEMS, Findings, Letter, WireReading, breach
from mqcn_model.wire.debug import DebugHeader, decode_debug, encode_debug
from mqcn_model.wire.mqf import MultiQueueFormat, decode_mqf, encode_mqf
from mqcn_model.wire.properties import (
    HASH_ALGORITHMS,
    MessageProperties,
    decode_properties,
    encode_properties,
)
from mqcn_model.wire.security import SecurityHeader, decode_security, encode_security
from mqcn_model.wire.session import (
    SESSION_HEADER_SIZE,
    SessionHeader,
    decode_session,
    encode_session,
)
from mqcn_model.wire.soap import SoapHeader, decode_soap, encode_soap
from mqcn_model.wire.transaction import TransactionHeader, decode_transaction, encode_transaction
from mqcn_model.wire.user import UserHeader, decode_user_header, encode_user_header

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_TRACE_NEEDS_DEBUG = req("MQMQ-2.2.19.1-5")
R_TRANSACTIONAL_PRIORITY = req("MQMQ-2.2.19.1-7")
R_NOT_INTERNAL = req("MQMQ-2.2.20-1")
R_ADMIN_QUEUE = req("MQMQ-2.2.19.2-9")
R_HASH = req("MQMQ-2.2.19.3-8")
R_ENCRYPTED = req("MQDMPR-3.1.7.1.32-1")

USER_MESSAGE = "UserMessage"


@dataclass(slots=True)
class UserMessage:
    """A decoded (or to-be-built) UserMessage Packet: one field per header."""

    base: BaseHeader
    user: UserHeader
    properties: MessageProperties
    transaction: TransactionHeader | None = None
    security: SecurityHeader | None = None
    debug: DebugHeader | None = None
    soap: SoapHeader | None = None
    mqf: MultiQueueFormat | None = None
    session: SessionHeader | None = None
    # the body of an OrderAck / FinalAck as decoded (derived from properties.body)
    ack: OrderAckBody | FinalAckBody | None = field(default=None, compare=False)
    # the value rules of the wire catalog the packet breaks, in wire order (decoded packets)
    findings: list[Violation] = field(default_factory=list, compare=False)
    # the wire errata read to their letter because the packet's structure adds up only so
    # (W-02, W-06, W-07), or because a BodySectionID stands only at the letter's place (W-08)
    letter: list[WireReading] = field(default_factory=list, compare=False)

    @property
    def kind(self) -> str:
        """``UserMessage``, or ``OrderAck`` / ``FinalAck`` for the MS-MQQB acknowledgments."""
        return ack_kind(self.user, self.properties) or USER_MESSAGE

    @property
    def body(self) -> bytes:
        return self.properties.body


def finalize(message: UserMessage) -> UserMessage:
    """``message`` with the presence bits of both Flags fields set from its headers.

    BaseHeader SH/DH and UserHeader SH/TH/MP/CQ/MQ/HH and DQ/AQ/RQ follow what the packet
    holds; every other bit is kept.
    """
    base_bits = (B.SH if message.session else 0) | (B.DH if message.debug else 0)
    base_flags = (message.base.flags & ~(B.SH | B.DH)) | base_bits
    user = message.user
    codes = (
        ((user.destination.code if user.destination else 0) << U.DQ_SHIFT)
        | ((user.admin.code if user.admin else 0) << U.AQ_SHIFT)
        | (
            (user.response.code if user.response else (user.rq if user.rq == 1 else 0))
            << U.RQ_SHIFT
        )
    )
    presence = (
        (U.SH if message.security else 0)
        | (U.TH if message.transaction else 0)
        | U.MP
        | (U.CQ if user.connector_type is not None else 0)
        | (U.MQ if message.mqf else 0)
        | (U.HH if message.soap else 0)
    )
    user_flags = (user.flags & ~(U.PRESENCE_MASK | U.QUEUE_CODE_MASK)) | presence | codes
    return replace(
        message,
        base=replace(message.base, flags=base_flags),
        user=replace(user, flags=user_flags),
    )


# the letter layouts tried, in order, when the reading's does not add up: one item, then two,
# then all (a sender by the letter may follow it on several items at once)
LETTER_TRIALS: tuple[frozenset[str], ...] = tuple(
    frozenset(items)
    for n in range(1, len(LETTER_ITEMS) + 1)
    for items in combinations(LETTER_ITEMS, n)
)


def decode_user_message(
    buf: bytes, offset: int = 0, *, base: BaseHeader | None = None
) -> tuple[UserMessage, int]:
    """Read and judge the UserMessage Packet at ``offset``; return it and the offset after it
    (after its SessionHeader, if any).  Raises DecodeError naming the broken structural
    requirement (under the suite's reading); the value rules it breaks are in
    ``packet.findings``.  A packet whose structure adds up only under the letter of W-02,
    W-06 or W-07 is read so, and ``packet.letter`` names each item and the byte where it
    mattered.  ``base``: the packet's BaseHeader when the caller has already decoded it with
    :func:`~mqcn_model.wire.base.decode_base_header`'s checks (a framer does)."""
    if type(buf) is not bytes:
        buf = bytes(buf)
    try:
        return _decode(buf, offset, Letter(), base)
    except DecodeError as refused:
        for items in _letter_trials(buf, offset):
            letter = Letter(items)
            try:
                message, after = _decode(buf, offset, letter, base)
            except DecodeError:
                continue
            if {r.errata for r in letter.used} >= items:  # each item tried mattered
                return message, after
        raise refused from None


def _letter_trials(buf: bytes, offset: int) -> tuple[frozenset[str], ...]:
    """The :data:`LETTER_TRIALS` that can change how these bytes are read: W-06 only with
    UserHeader.Flags.RQ 0x1 or 0x4, W-07 only with Flags.MQ (a refused packet costs one
    decode per trial)."""
    at = offset + B.BASE_HEADER_SIZE + U.USER_FIXED_SIZE - 4  # UserHeader.Flags
    if at + 4 > len(buf):
        return LETTER_TRIALS
    flags = int.from_bytes(buf[at : at + 4], "little")
    skip = set()
    if (flags >> U.RQ_SHIFT) & 7 not in (1, 4):
        skip.add("W-06")
    if not flags & U.MQ:
        skip.add("W-07")
    return tuple(items for items in LETTER_TRIALS if not items & skip)


def _decode(
    buf: bytes, offset: int, letter: Letter, base: BaseHeader | None = None
) -> tuple[UserMessage, int]:
    """:func:`decode_user_message` under one layout of the wire errata (``letter``)."""
    start = offset
    findings: list[Violation] = []
    if base is None:
        base, offset = decode_base_header(buf, offset)
    else:
        offset += B.BASE_HEADER_SIZE
    flags = base.flags  # the BaseHeader's bits read from here, not through its properties
    if flags & B.IN:
        raise fail(R_NOT_INTERNAL, start + 2, "BaseHeader.Flags.IN is set: an internal packet")
    end = start + base.packet_size
    if end > len(buf):
        raise fail(
            R_PACKET_SIZE,
            start + 8,
            f"PacketSize is {base.packet_size} but {len(buf) - start} bytes are given",
        )
    if flags & B.TR and not flags & B.DH:
        breach(findings, R_TRACE_NEEDS_DEBUG, start + 2, "Flags.TR is set without Flags.DH")
    user, offset = decode_user_header(buf, offset, end, findings, letter)
    user_flags = user.flags
    if user_flags & U.TH and flags & B.PR_MASK:
        breach(
            findings,
            R_TRANSACTIONAL_PRIORITY,
            start + 2,
            f"a transactional message has priority {flags & B.PR_MASK}, not 0",
        )
    # the headers in wire order, each findings in turn; the packet is built once at the end
    transaction: TransactionHeader | None = None
    security: SecurityHeader | None = None
    debug: DebugHeader | None = None
    soap: SoapHeader | None = None
    mqf: MultiQueueFormat | None = None
    session: SessionHeader | None = None
    if user_flags & U.TH:
        transaction, offset = decode_transaction(buf, offset, end, findings)
    if user_flags & U.SH:
        security, offset = decode_security(buf, offset, end, findings)
    properties, offset = decode_properties(buf, offset, end, findings, letter)
    if flags & B.DH:
        debug, offset = decode_debug(buf, offset, end)
    if user_flags & U.HH:
        soap, offset = decode_soap(buf, offset, end, findings, letter)
    if user_flags & U.MQ:
        mqf, offset = decode_mqf(buf, offset, end, findings, letter)
    if offset != end:
        raise fail(
            R_PACKET_SIZE,
            start + 8,
            f"PacketSize is {base.packet_size} but the headers the flags announce take "
            f"{offset - start} bytes",
        )
    if flags & B.SH:
        if end + SESSION_HEADER_SIZE > len(buf):
            raise fail(
                R_PACKET_SIZE,
                end,
                "BaseHeader.Flags.SH is set but the SessionHeader after PacketSize is missing",
            )
        session, offset = decode_session(buf, end, len(buf), findings)
    message = UserMessage(
        base, user, properties, transaction, security, debug, soap, mqf, session, None, findings
    )
    _cross_checks(message, findings)
    kind = ack_kind(user, properties)
    if kind is not None:
        message.ack = check_ack(kind, flags, user, properties, start, findings)
    findings.sort(key=_wire_order)
    message.letter = letter.used
    return message, offset


def _wire_order(finding: Violation) -> int:
    return finding.offset if finding.offset is not None else -1


def _cross_checks(message: UserMessage, findings: Findings) -> None:
    """Value rules that tie two headers together."""
    properties = message.properties
    if properties.flags & 0x0F and message.user.aq == 0:
        breach(
            findings,
            R_ADMIN_QUEUE,
            properties.offset,
            f"acknowledgments 0x{properties.flags & 0x0F:x} are requested but no "
            "administration queue is named",
        )
    security = message.security
    signed = security is not None and bool(security.signature)
    if signed and properties.hash_algorithm not in HASH_ALGORITHMS:
        breach(
            findings,
            R_HASH,
            properties.offset + 44,
            f"the message is signed but HashAlgorithm is 0x{properties.hash_algorithm:x}",
        )
    encrypted = security is not None and security.encrypted
    if encrypted != (properties.privacy_level != 0):
        breach(
            findings,
            R_ENCRYPTED,
            properties.offset + 40,
            f"PrivacyLevel is {properties.privacy_level} but SecurityHeader.Flags.EB is "
            f"{'set' if encrypted else 'clear or absent'}",
        )


def encode_user_message(message: UserMessage) -> bytes:
    """The wire bytes of ``message``: PacketSize computed, Flags written as they are.

    Raises ValueError when the flags and the headers present disagree (use
    :func:`finalize`, or build malformed packets with :mod:`mqcn_model.wire.packet_layers`).
    """
    base, user = message.base, message.user
    if base.internal:
        raise ValueError("a UserMessage Packet has BaseHeader.Flags.IN clear")
    pairs = (
        ("BaseHeader.Flags.SH", base.session, message.session),
        ("BaseHeader.Flags.DH", base.debug, message.debug),
        ("UserHeader.Flags.TH", user.has(U.TH), message.transaction),
        ("UserHeader.Flags.SH", user.has(U.SH), message.security),
        ("UserHeader.Flags.HH", user.has(U.HH), message.soap),
        ("UserHeader.Flags.MQ", user.has(U.MQ), message.mqf),
    )
    for name, flag, header in pairs:
        if flag != (header is not None):
            raise ValueError(
                f"{name} is {'set' if flag else 'clear'} but the header is "
                f"{'absent' if header is None else 'present'}"
            )
    if not user.has(U.MP):
        raise ValueError("UserHeader.Flags.MP is clear: the fast codec always writes the header")
    parts = [encode_user_header(user)]
    if message.transaction is not None:
        parts.append(encode_transaction(message.transaction))
    if message.security is not None:
        parts.append(encode_security(message.security))
    parts.append(encode_properties(message.properties))
    if message.debug is not None:
        parts.append(encode_debug(message.debug))
    if message.soap is not None:
        parts.append(encode_soap(message.soap))
    if message.mqf is not None:
        parts.append(encode_mqf(message.mqf))
    body = b"".join(parts)
    head = encode_base_header(base, B.BASE_HEADER_SIZE + len(body))
    tail = encode_session(message.session) if message.session is not None else b""
    return head + body + tail
