"""Hypothesis strategies for the wire codec's tests: packets the struct codec accepts.

Every generated packet conforms to each wire requirement the codec checks (so it must
decode), and varies everything else: reserved bits, every queue type of DQ/AQ/RQ, every
optional header, odd lengths that exercise the padding.
"""

from __future__ import annotations

import uuid

from hypothesis import strategies as st

from mqcn_model.wire import base as B
from mqcn_model.wire import user as U
from mqcn_model.wire.debug import DebugHeader
from mqcn_model.wire.internal import (
    PT_CONNECTION_PARAMETERS,
    PT_ESTABLISH_CONNECTION,
    PT_SESSION_ACK,
    ConnectionParameters,
    EstablishConnection,
    InternalHeader,
    InternalPacket,
    Ping,
)
from mqcn_model.wire.mqf import MultiQueueFormat
from mqcn_model.wire.properties import (
    ALLOWED_ENCRYPTION,
    HASH_ALGORITHMS,
    MESSAGE_CLASSES,
    MessageProperties,
)
from mqcn_model.wire.queues import MQFElement, QueueFormat
from mqcn_model.wire.security import DE, EB, SecurityHeader
from mqcn_model.wire.session import SessionHeader
from mqcn_model.wire.soap import SoapHeader
from mqcn_model.wire.transaction import CG, TransactionHeader
from mqcn_model.wire.usermessage import UserMessage, finalize

NIL = uuid.UUID(int=0)
u8 = st.integers(0, 0xFF)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)


def set_length(wire: bytes, offset: int, size: int, value: int) -> tuple[bytes, int]:
    """``wire`` with the ``size``-byte little-endian field at ``offset`` set to ``value`` (cut
    to its width), and the value it held."""
    data = bytearray(wire)
    true = int.from_bytes(data[offset : offset + size], "little")
    data[offset : offset + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    return bytes(data), true


def length_values(small: int) -> st.SearchStrategy[int]:
    """A value for a length field: any 32 bits, one with the top bit set (wrapped, as in
    CVE-2023-21554's trigger), or a small one (up to ``small``) near the true length."""
    return st.one_of(
        u32, st.integers(0, 0x7FFFFFFF).map(lambda n: n | 0x80000000), st.integers(0, small)
    )


guids = st.uuids(allow_nil=True)
texts = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=24
)
small_bytes = st.binary(max_size=11)

# reserved bits the codec must ignore
BASE_RESERVED = 0xFEC0  # bits 6, 7, 9-15
USER_RESERVED = (1 << 7) | (1 << 24) | (0x3 << 26) | (0x7 << 29)


def queue_format(code: int) -> st.SearchStrategy[QueueFormat | None]:
    """A queue field of type ``code`` (None for codes 0 and 1)."""
    if code in (0, 1):
        return st.none()
    if code in (2, 3, 4):
        return st.builds(QueueFormat, st.just(code), private_id=u32)
    if code == 5:
        return st.builds(QueueFormat, st.just(code), guid=guids)
    if code == 6:
        return st.builds(QueueFormat, st.just(code), private_id=u32, guid=guids)
    return st.builds(QueueFormat, st.just(code), direct=texts.filter(lambda t: t != ""))


def mqf_elements() -> st.SearchStrategy[MQFElement]:
    return st.one_of(
        st.builds(MQFElement, st.just(1), guid=guids),
        st.builds(MQFElement, st.just(2), guid=guids, private_id=u32),
        st.builds(MQFElement, st.just(3), direct=texts),
        st.builds(MQFElement, st.just(6), guid=guids),
    )


def sid_bytes() -> st.SearchStrategy[bytes]:
    return st.integers(0, 5).flatmap(
        lambda n: st.builds(
            lambda authority, subs: bytes((1, n)) + authority + subs,
            st.binary(min_size=6, max_size=6),
            st.binary(min_size=4 * n, max_size=4 * n),
        )
    )


@st.composite
def security_headers(draw: st.DrawFn, *, encrypted: bool) -> SecurityHeader:
    kind = draw(st.sampled_from((0, 1, 2)))
    sender = {0: b"", 1: draw(sid_bytes()), 2: draw(guids).bytes_le}[kind]
    flags = kind | (EB if encrypted else 0) | draw(st.sampled_from((0, DE)))
    flags |= draw(st.sampled_from((0, 1 << 7, 0xF000, 0x3000)))  # AI and the unused bits
    header = SecurityHeader(
        flags,
        sender_id=sender,
        encryption_key=draw(small_bytes),
        signature=draw(st.binary(max_size=40)),
        sender_cert=draw(small_bytes),
        provider_info=draw(small_bytes),
    )
    if not any(header.items):
        header.sender_cert = b"\x30"
    return header


@st.composite
def user_messages(draw: st.DrawFn) -> UserMessage:
    """A UserMessage Packet the struct codec accepts (never an OrderAck / FinalAck)."""
    transactional = draw(st.booleans())
    dq = draw(st.sampled_from(sorted(U.DQ_CODES)))
    aq = draw(st.sampled_from(sorted(U.AQ_CODES)))
    rq = draw(st.integers(0, 7))
    destination = draw(queue_format(dq))
    if destination is not None and dq == 3 and destination.private_id == 4:
        destination.private_id = 5  # private queue 4 is the order queue: a FinalAck
    debug = draw(st.none() | st.builds(DebugHeader, st.sampled_from((0, 1, 0xFFFC, 0x0010)), u16))
    if debug is not None and debug.queue_type == 1:
        debug.queue = draw(guids)
    base_flags = (
        (0 if transactional else draw(st.integers(0, 7)))
        | (draw(u16) & BASE_RESERVED)
        | (B.TR if debug is not None and draw(st.booleans()) else 0)
    )
    user_flags = (
        draw(st.integers(0, 0x1D))
        | ((1 if transactional else draw(st.integers(0, 1))) << U.DM_SHIFT)
        | (draw(u32) & (U.JN | U.JP | USER_RESERVED))
        | (rq << U.RQ_SHIFT)
    )
    user = U.UserHeader(
        source_qm=draw(guids),
        destination_qm=NIL if dq == 7 else draw(guids),
        time_to_be_received=draw(u32),
        sent_time=draw(u32),
        message_id=draw(u32),
        flags=user_flags,
        destination=destination,
        admin=draw(queue_format(aq)),
        response=draw(queue_format(rq)),
        connector_type=draw(st.none() | guids),
    )
    encrypted = draw(st.booleans())
    security = draw(st.none() | security_headers(encrypted=encrypted))
    privacy = 0
    encryption = draw(u32)
    if security is not None and security.encrypted:
        privacy = draw(st.sampled_from((1, 3, 5)))
        encryption = draw(st.sampled_from(sorted(ALLOWED_ENCRYPTION[privacy])))
    signed = security is not None and bool(security.signature)
    classes = [*sorted(set(MESSAGE_CLASSES) - {0x00FF}), 0x0123, 0xE000]
    properties = MessageProperties(
        flags=(draw(st.integers(0, 15)) if aq else 0) | (draw(u8) & 0xF0),
        message_class=draw(st.sampled_from(classes)),
        correlation_id=draw(st.binary(min_size=20, max_size=20)),
        body_type=draw(u32),
        application_tag=draw(u32),
        privacy_level=privacy,
        hash_algorithm=draw(st.sampled_from(sorted(HASH_ALGORITHMS)) if signed else u32),
        encryption_algorithm=encryption,
        label=draw(st.none() | texts),
        extension=draw(small_bytes),
        body=draw(st.binary(max_size=64)),
        body_slack=draw(st.binary(max_size=5)),
    )
    transaction = None
    if transactional:
        number = draw(st.integers(1, 0xFFFFFFFF))
        transaction = TransactionHeader(
            flags=draw(u32) & ~CG,
            sequence_ordinal=draw(u32),
            sequence_timestamp=draw(u32),
            sequence_number=number,
            previous_number=draw(st.integers(0, number - 1)),
        )
        if draw(st.booleans()):
            transaction.flags |= CG
            transaction.connector_qm = draw(guids)
    soap = draw(st.none() | st.builds(SoapHeader, texts, texts, u16, u16))
    mqf = draw(
        st.none()
        | st.builds(
            MultiQueueFormat,
            st.lists(mqf_elements(), max_size=3),
            st.lists(mqf_elements(), max_size=2),
            st.lists(mqf_elements(), max_size=2),
            st.binary(max_size=9),
            st.tuples(u16, u16, u16, u16),
        )
    )
    session = draw(
        st.none() | st.builds(SessionHeader, u16, u16, u32, u16, u16, st.integers(1, 0xFFFF), u16)
    )
    message = UserMessage(
        B.BaseHeader(flags=base_flags, time_to_reach_queue=draw(u32), reserved=draw(u8)),
        user,
        properties,
        transaction=transaction,
        security=security,
        debug=debug,
        soap=soap,
        mqf=mqf,
        session=session,
    )
    return finalize(message)


def internal_packets() -> st.SearchStrategy[InternalPacket]:
    """SessionAck, EstablishConnection and ConnectionParameters Packets the codec accepts."""
    session_ack = st.builds(
        lambda s: InternalPacket(
            B.BaseHeader(flags=B.IN | B.SH | 3), InternalHeader(PT_SESSION_ACK), s
        ),
        st.builds(SessionHeader, u16, u16, u32, u16, u16, st.integers(1, 0xFFFF), u16),
    )
    establish = st.builds(
        lambda body, refused, x: InternalPacket(
            B.BaseHeader(flags=B.IN),
            InternalHeader(PT_ESTABLISH_CONNECTION | (0x10 if refused else 0) | x),
            body,
        ),
        st.builds(
            EstablishConnection,
            guids,
            guids,
            u32,
            st.integers(0, 0xFF).map(lambda hi: 0x10 | hi << 8),
            st.just(0),
            st.binary(min_size=512, max_size=512),
        ),
        st.booleans(),
        st.sampled_from((0, 0x20, 0xFFE0)),
    )
    parameters = st.builds(
        lambda body: InternalPacket(
            B.BaseHeader(flags=B.IN), InternalHeader(PT_CONNECTION_PARAMETERS), body
        ),
        st.builds(
            ConnectionParameters,
            st.integers(0x1F4, 0x1D4C0),
            st.integers(0x4E20, 0x1D4C0),
            u16,
        ),
    )
    return st.one_of(session_ack, establish, parameters)


pings = st.builds(Ping, u16, u32, guids)


@st.composite
def real_sender_messages(draw: st.DrawFn) -> UserMessage:
    """A UserMessage as Windows stores it ([MS-MQRR] 2.2.5): one of :func:`user_messages`
    with the SRMP pair (Flags.AH) and an extension chain added, either or both.  It decodes,
    with the findings the session headers carry (MQQB-2.2-1, MQMQ-2.2.19.2-7)."""
    from dataclasses import replace

    from mqcn_model.wire import extensions as X

    message = draw(user_messages())
    pair, chain = draw(st.sampled_from([(True, False), (False, True), (True, True)]))
    if pair:
        text = draw(
            st.text(
                st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                max_size=30,
            )
        )
        message.srmp_envelope = X.srmp_envelope(text, unit=draw(st.sampled_from([X.WCHAR, X.BYTE])))
        message.compound = X.compound_message(
            draw(st.binary(max_size=40)), draw(st.binary(max_size=20))
        )
        message.user = replace(message.user, flags=message.user.flags | U.AH)
    if chain:
        subqueue = X.SubqueueHeader(subqueue_name=bytes(64), target_subqueue_name=bytes(64))
        message.extensions = X.extensions(
            subqueue=subqueue,
            dead_letter=draw(
                st.none()
                | st.text(
                    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                    max_size=12,
                )
            ),
            extended_address=X.ExtendedAddressHeader(
                address_length=4, address_type=1, address=bytes(16)
            ),
        )
    return message
