"""The UserMessage Packet ([MS-MQMQ] 2.2.20): one whole MSMQ message on an MS-MQQB session.

Headers, in wire order, and the flag that announces each::

    BaseHeader                  always (16 bytes)
    UserHeader                  always
    TransactionHeader           UserHeader.Flags.TH
    SecurityHeader              UserHeader.Flags.SH
    MessagePropertiesHeader     always (UserHeader.Flags.MP must be set)
    DebugHeader                 BaseHeader.Flags.DH
    SRMPEnvelopeHeader          UserHeader.Flags.AH ([MS-MQRR] 2.2.5.1.2: first sent over HTTP)
    CompoundMessageHeader       UserHeader.Flags.AH
    SoapHeader                  UserHeader.Flags.HH
    MultiQueueFormatHeader      UserHeader.Flags.MQ
    extension chain             by its bytes ([MS-MQRR] 2.2.5.2-5: ExtensionHeader first)
    SessionHeader (16 bytes)    BaseHeader.Flags.SH - after PacketSize, not counted in it

Every header is padded to a 4-byte boundary; BaseHeader.PacketSize covers everything up to
the SessionHeader.  :func:`decode_user_message` reads and judges one packet: a *structural*
requirement broken (sizes, offsets, header presence, lengths: what reading needs) raises a
DecodeError naming it and the byte offset; a *value rule* broken (acknowledgments without an
administration queue, a reserved bit, an algorithm, a class...) is a finding in the decoded
packet's ``findings``, and the packet is read all the same.  Where the structure does not
add up under the suite's reading of wire errata W-02, W-06 and W-07 (docs/errata.md), the
letter's layout of those items is tried, and a packet read so says which item and where in
``letter`` (never silently; when both layouts fit, the reading is kept).  Real senders' packets
are read as far as their bytes allow: bytes inside PacketSize that no announced header covers
are a finding at their offset, a PacketSize off the 4-byte grid too, and a packet whose
Flags.AH announces SRMP headers it does not carry is read without them (MQRR-2.2.5.1.2-1);
:func:`salvage_user_message` gives every header that reads before a structural stop.
:func:`encode_user_message`
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
from mqcn_model.wire.declared import part
from mqcn_model.wire.extensions import (
    CompoundMessageHeader,
    Extensions,
    SrmpEnvelopeHeader,
    decode_compound,
    decode_extensions,
    decode_srmp_envelope,
    encode_compound,
    encode_extensions,
    encode_srmp_envelope,
    is_extension_chain,
)
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
R_SRMP_PRESENT = req("MQRR-2.2.5.1.2-1")
R_MQQB_HEADERS = req("MQQB-2.2-1")

USER_MESSAGE = "UserMessage"


@dataclass(slots=True)
class UserMessage:
    """A decoded (or to-be-built) UserMessage Packet: one field per header, each named by
    its field of the scapy layer (:mod:`mqcn_model.wire.packet_layers`)."""

    base: BaseHeader = part("BaseHeader")
    user: UserHeader = part("UserHeader")
    properties: MessageProperties = part("MessagePropertiesHeader")
    transaction: TransactionHeader | None = part("TransactionHeader", default=None)
    security: SecurityHeader | None = part("SecurityHeader", default=None)
    debug: DebugHeader | None = part("DebugHeader", default=None)
    soap: SoapHeader | None = part("SoapHeader", default=None)
    mqf: MultiQueueFormat | None = part("MultiQueueFormatHeader", default=None)
    session: SessionHeader | None = part("SessionHeader", default=None)
    # [MS-MQRR] 2.2.5: the SRMP pair (UserHeader.Flags.AH) and the extension chain
    srmp_envelope: SrmpEnvelopeHeader | None = part("SRMPEnvelopeHeader", default=None)
    compound: CompoundMessageHeader | None = part("CompoundMessageHeader", default=None)
    extensions: Extensions | None = part("Extensions", default=None)
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
    if message.srmp_envelope is not None or message.compound is not None:
        presence |= U.AH  # kept as it is otherwise: a packet may claim HTTP without the pair
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
    trials = _srmp_trials(buf, offset)
    for srmp in trials:
        try:
            return _decode(buf, offset, Letter(), base, srmp=srmp)
        except DecodeError:
            pass
        for items in _letter_trials(buf, offset):
            letter = Letter(items)
            try:
                message, after = _decode(buf, offset, letter, base, srmp=srmp)
            except DecodeError:
                continue
            if {r.errata for r in letter.used} >= items:  # each item tried mattered
                return message, after
    # no layout adds up exactly: read as far as the bytes allow (uncovered bytes a finding;
    # the SRMP headers Flags.AH announces are read, so a broken one is named, not skipped)
    try:
        return _decode(buf, offset, Letter(), base, tolerant=True)
    except DecodeError as refused:
        raise refused from None


@dataclass(frozen=True, slots=True)
class HeaderRead:
    """One header a salvaging read got through: its name, offset and decoded record."""

    name: str
    offset: int
    header: object


@dataclass(frozen=True, slots=True)
class Salvage:
    """What :func:`salvage_user_message` could read of a packet the decoder refuses: every
    header that read (``headers``, in wire order), the value rules they break
    (``findings``) and the structural requirement where reading stopped (``stopped``)."""

    headers: tuple[HeaderRead, ...]
    findings: tuple[Violation, ...]
    stopped: Violation


def salvage_user_message(buf: bytes, offset: int = 0) -> Salvage:
    """Read the packet at ``offset`` as far as its bytes allow (the suite's reading, uncovered
    bytes a finding): the headers before the structural requirement that stops it.  For a
    packet :func:`decode_user_message` reads there is nothing to salvage (ValueError);
    ``stopped`` is the refusal it raises."""
    buf = bytes(buf)
    parts: list[HeaderRead] = []
    findings: list[Violation] = []
    try:
        _decode(buf, offset, Letter(), None, tolerant=True, parts=parts, found=findings)
    except DecodeError as exc:
        return Salvage(tuple(parts), tuple(sorted(findings, key=_wire_order)), exc.violation)
    raise ValueError("salvage_user_message: the packet reads whole; use decode_user_message")


def _srmp_trials(buf: bytes, offset: int) -> tuple[bool, ...]:
    """With UserHeader.Flags.AH set: first with the SRMP headers, then without them."""
    at = offset + B.BASE_HEADER_SIZE + U.USER_FIXED_SIZE - 4  # UserHeader.Flags
    if at + 4 <= len(buf) and int.from_bytes(buf[at : at + 4], "little") & U.AH:
        return (True, False)
    return (True,)


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
    buf: bytes,
    offset: int,
    letter: Letter,
    base: BaseHeader | None = None,
    *,
    srmp: bool = True,
    tolerant: bool = False,
    parts: list[HeaderRead] | None = None,
    found: list[Violation] | None = None,
) -> tuple[UserMessage, int]:
    """:func:`decode_user_message` under one layout of the wire errata (``letter``); ``srmp``:
    read the SRMP headers Flags.AH announces; ``tolerant``: bytes inside PacketSize no header
    covers are a finding, not a refusal; ``parts``: collects each header as it reads."""
    start = offset
    findings: list[Violation] = [] if found is None else found
    if base is None:
        base, offset = decode_base_header(buf, offset, findings)
    else:
        offset += B.BASE_HEADER_SIZE
    if parts is not None:
        parts.append(HeaderRead("BaseHeader", start, base))
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
    at = offset
    user, offset = decode_user_header(buf, offset, end, findings, letter)
    if parts is not None:
        parts.append(HeaderRead("UserHeader", at, user))
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
    envelope: SrmpEnvelopeHeader | None = None
    compound: CompoundMessageHeader | None = None
    chain: Extensions | None = None

    def read(name: str, header: object, at: int) -> None:
        if parts is not None:
            parts.append(HeaderRead(name, at, header))

    if user_flags & U.TH:
        at = offset
        transaction, offset = decode_transaction(buf, offset, end, findings)
        read("TransactionHeader", transaction, at)
    if user_flags & U.SH:
        at = offset
        security, offset = decode_security(buf, offset, end, findings)
        read("SecurityHeader", security, at)
    at = offset
    properties, offset = decode_properties(buf, offset, end, findings, letter)
    read("MessagePropertiesHeader", properties, at)
    if flags & B.DH:
        at = offset
        debug, offset = decode_debug(buf, offset, end)
        read("DebugHeader", debug, at)
    if user_flags & U.AH:
        if srmp:
            at = offset
            envelope, offset = decode_srmp_envelope(buf, offset, end, findings)
            read("SRMPEnvelopeHeader", envelope, at)
            _not_mqqb(findings, at, "SRMPEnvelopeHeader")
            at = offset
            compound, offset = decode_compound(buf, offset, end, findings)
            read("CompoundMessageHeader", compound, at)
            _not_mqqb(findings, at, "CompoundMessageHeader")
        else:
            breach(
                findings,
                R_SRMP_PRESENT,
                start + B.BASE_HEADER_SIZE + U.USER_FIXED_SIZE - 1,  # the byte of Flags.AH
                "UserHeader.Flags.AH is set but no SRMPEnvelopeHeader and CompoundMessageHeader "
                f"stand at byte {offset - start}: the packet reads only without them",
            )
    if user_flags & U.HH:
        at = offset
        soap, offset = decode_soap(buf, offset, end, findings, letter)
        read("SoapHeader", soap, at)
    if user_flags & U.MQ:
        at = offset
        mqf, offset = decode_mqf(buf, offset, end, findings, letter)
        read("MultiQueueFormatHeader", mqf, at)
    if offset < end and is_extension_chain(buf, offset, end):
        at = offset
        chain, offset = decode_extensions(buf, offset, end, findings)
        read("ExtensionHeader", chain, at)
        _not_mqqb(findings, at, "ExtensionHeader (and the chain it opens)")
    if offset != end and not (tolerant and offset < end):
        raise fail(
            R_PACKET_SIZE,
            start + 8,
            f"PacketSize is {base.packet_size} but the headers the flags announce take "
            f"{offset - start} bytes",
        )
    if offset < end:
        left = end - offset
        breach(
            findings,
            R_PACKET_SIZE,
            offset,
            f"{left} {'byte' if left == 1 else 'bytes'} at offset {offset - start} that no "
            f"announced header covers (PacketSize is {base.packet_size}, the headers take "
            f"{offset - start})",
        )
        offset = end
    if flags & B.SH:
        if end + SESSION_HEADER_SIZE > len(buf):
            raise fail(
                R_PACKET_SIZE,
                end,
                "BaseHeader.Flags.SH is set but the SessionHeader after PacketSize is missing",
            )
        session, offset = decode_session(buf, end, len(buf), findings)
        read("SessionHeader", session, end)
    message = UserMessage(
        base,
        user,
        properties,
        transaction,
        security,
        debug,
        soap,
        mqf,
        session,
        envelope,
        compound,
        chain,
        None,
        findings,
    )
    _cross_checks(message, findings)
    kind = ack_kind(user, properties)
    if kind is not None:
        message.ack = check_ack(kind, flags, user, properties, start, findings)
    findings.sort(key=_wire_order)
    message.letter = letter.used
    return message, offset


def _not_mqqb(findings: Findings, offset: int, header: str) -> None:
    breach(
        findings,
        R_MQQB_HEADERS,
        offset,
        f"{header}: a header [MS-MQQB] 2.2 does not use ([MS-MQRR] 2.2.5), decoded all the same",
    )


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
    if (message.srmp_envelope is not None) != (message.compound is not None):
        raise ValueError("the SRMPEnvelopeHeader and the CompoundMessageHeader come as a pair")
    if message.srmp_envelope is not None and not user.has(U.AH):
        raise ValueError("UserHeader.Flags.AH is clear but the SRMP headers are present")
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
    if message.srmp_envelope is not None:
        parts.append(encode_srmp_envelope(message.srmp_envelope))
    if message.compound is not None:
        parts.append(encode_compound(message.compound))
    if message.soap is not None:
        parts.append(encode_soap(message.soap))
    if message.mqf is not None:
        parts.append(encode_mqf(message.mqf))
    if message.extensions is not None:
        parts.append(encode_extensions(message.extensions))
    body = b"".join(parts)
    head = encode_base_header(base, B.BASE_HEADER_SIZE + len(body))
    tail = encode_session(message.session) if message.session is not None else b""
    return head + body + tail
