"""The wire codec's property and security sections, the message queue format names and the
MS-MQDMPR mapping, rule by rule (mqf.py, security.py, mapping.py, properties.py, user.py).
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable
from dataclasses import replace

import pytest

from mqcn_model.constants import (
    AuthLevel,
    DeliveryGuarantee,
    HashAlgorithm,
    MessageClass,
    SenderIdType,
)
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errors import DecodeError
from mqcn_model.wire.base import BaseHeader
from mqcn_model.wire.common import Letter, align4
from mqcn_model.wire.mapping import envelope_to_packet, packet_to_envelope
from mqcn_model.wire.mqf import (
    MultiQueueFormat,
    decode_address,
    decode_mqf,
    encode_address,
    encode_mqf,
)
from mqcn_model.wire.properties import MessageProperties, decode_properties, encode_properties
from mqcn_model.wire.queues import MQFElement, QueueFormat
from mqcn_model.wire.security import (
    SecurityHeader,
    decode_security,
    encode_security,
    guid_for_sid,
    sid_for_guid,
    sid_problem,
    sid_text,
)
from mqcn_model.wire.user import (
    UserHeader,
    compose_user_flags,
    decode_user_header,
    encode_user_header,
)
from mqcn_model.wire.usermessage import UserMessage

QM = uuid.UUID("0f2c1e3a-1111-4222-8333-444455556666")
DST = uuid.UUID("9a8b7c6d-5e4f-4321-8765-0123456789ab")


def refusal(call: Callable[..., object], *args: object) -> tuple[str, int | None, str]:
    """The (requirement, offset, message) of the DecodeError ``call(*args)`` raises."""
    with pytest.raises(DecodeError) as info:
        call(*args)
    v = info.value.violation
    return v.requirement, v.offset, v.message


def told(findings: list) -> list[tuple[str, int | None, str]]:
    return [(f.requirement, f.offset, f.message) for f in findings]


# --- SecurityHeader ([MS-MQMQ] 2.2.20.6) ------------------------------------------------------


def _security(flags: int, *sizes: int, data: bytes = b"", at: int = 0) -> bytes:
    """``at`` filler bytes, then the 16-byte fixed part of a SecurityHeader and ``data``."""
    sizes = (*sizes, 0, 0, 0, 0, 0)[:5]
    return bytes(at) + struct.pack("<HHHHII", flags, *sizes) + data


SECURITY_FINDINGS = [
    (
        "st-3",
        _security(3, 0, 0, 4, data=b"sig!"),
        "MQMQ-2.2.20.6-1",
        0,
        "Flags.ST is 3, not 0, 1 or 2",
    ),
    (
        "st-15",
        _security(15, 0, 0, 4, data=b"sig!"),
        "MQMQ-2.2.20.6-1",
        0,
        "Flags.ST is 15, not 0, 1 or 2",
    ),
    (
        "au",
        _security(0x10, 0, 0, 4, data=b"sig!"),
        "MQMQ-2.2.20.6-3",
        0,
        "Flags.AU is set on the wire",
    ),
    ("as-1", _security(0x100, 0, 0, 4, data=b"sig!"), "MQMQ-2.2.20.6-4", 1, "Flags.AS is 1, not 0"),
    (
        "as-15",
        _security(0xF00, 0, 0, 4, data=b"sig!"),
        "MQMQ-2.2.20.6-4",
        1,
        "Flags.AS is 15, not 0",
    ),
    ("empty", _security(0), "MQMQ-2.2.20.6-5", 2, "every SecurityData size is zero"),
    (
        "st0-id",
        _security(0, 4, data=b"abcd"),
        "MQMQ-2.2.20.6-2",
        16,
        "ST is 0 but SenderIdSize is 4",
    ),
    (
        "st2-id",
        _security(2, 4, data=b"abcd"),
        "MQMQ-2.2.20.6-2",
        16,
        "ST is 2 but the SecurityID is 4 bytes",
    ),
    (
        "st2-17",
        _security(2, 17, data=bytes(20)),
        "MQMQ-2.2.20.6-2",
        16,
        "ST is 2 but the SecurityID is 17 bytes",
    ),
    (
        "st1-short",
        _security(1, 4, data=b"\x01\x00\x00\x00"),
        "MQMQ-2.2.20.6-2",
        16,
        "ST is 1 but the SecurityID is 4 bytes, shorter than a SID",
    ),
    (
        "st1-revision",
        _security(1, 8, data=bytes((2, 0)) + bytes(6)),
        "MQMQ-2.2.20.6-2",
        16,
        "ST is 1 but the SecurityID has Revision 2, not 1",
    ),
]


@pytest.mark.parametrize(
    ("wire", "requirement", "offset", "message"),
    [case[1:] for case in SECURITY_FINDINGS],
    ids=[case[0] for case in SECURITY_FINDINGS],
)
def test_a_security_value_rule_is_a_finding_at_its_byte_in_words(
    wire: bytes, requirement: str, offset: int, message: str
) -> None:
    """MQMQ-2.2.20.6-1..5: each value rule is one finding, its byte counted from the header's
    start (here 8 bytes into the buffer), and the header is still decoded."""
    wire = bytes(8) + wire
    found: list = []
    header, end = decode_security(wire, 8, len(wire), found)
    assert told(found) == [(requirement, 8 + offset, message)]
    assert end == len(wire) and header.flags == wire[8] | wire[9] << 8
    with pytest.raises(DecodeError) as strict:  # no list: the finding is the error
        decode_security(wire, 8, len(wire))
    assert strict.value.violation == found[0]


@pytest.mark.parametrize(
    ("flags", "sender_id"),
    [(0, b""), (1, sid_for_guid(QM)), (2, QM.bytes_le), (0x20 | 0x40 | 0x80 | 2, QM.bytes_le)],
    ids=["none", "sid", "qm-guid", "eb-de-ai"],
)
def test_a_sender_id_of_its_own_type_and_flags_eb_de_ai_break_no_rule(
    flags: int, sender_id: bytes
) -> None:
    """ST 0/1/2 with the SecurityID they ask for; EB, DE and AI may be set (2.2.20.6)."""
    header = SecurityHeader(flags, sender_id=sender_id, signature=b"sig!")
    wire = encode_security(header)
    found: list = []
    assert decode_security(wire, 0, len(wire), found) == (header, len(wire))
    assert found == []


@pytest.mark.parametrize("which", range(5))
def test_one_nonempty_security_data_item_is_enough(which: int) -> None:
    """MQMQ-2.2.20.6-5 asks for one item of SecurityData, whichever it is."""
    sizes = [0] * 5
    sizes[which] = 4
    wire = _security(0 if which else 2, *sizes, data=b"abcd")
    found: list = []
    decode_security(wire, 0, len(wire), found)
    assert all(f.requirement != "MQMQ-2.2.20.6-5" for f in found)


def test_each_security_data_item_is_read_at_its_padded_place() -> None:
    """2.2.20.6: SecurityID, EncryptionKey, Signature, SenderCert, ProviderInfo in order,
    each padded to 4 bytes; the header ends after the last item's padding."""
    items = [b"a", b"bb", b"ccc", b"ddddd", b"eeeeee"]
    data = b"".join(item + b"-" * (-len(item) % 4) for item in items)
    wire = _security(0x0040, *map(len, items), data=data, at=4) + b"tail"
    found: list = []
    header, end = decode_security(wire, 4, len(wire), found)
    assert header.items == tuple(items) and end == len(wire) - 4
    assert header.size == end - 4 == 16 + 4 + 4 + 4 + 8 + 8
    assert [f.requirement for f in found] == ["MQMQ-2.2.20.6-2"]  # ST 0 with a SecurityID


@pytest.mark.parametrize(
    ("wire", "end", "requirement", "offset", "message"),
    [
        (bytes(15), 15, "MQMQ-2.2.19.1-3", 0, "a SecurityHeader needs 16 bytes, 15 left"),
        (
            _security(2, 16),
            16,
            "MQMQ-2.2.20.6-6",
            2,
            "the SecurityData items need 16 bytes, 0 left",
        ),
        (
            _security(2, 13, data=bytes(15)),
            31,
            "MQMQ-2.2.20.6-6",
            2,
            "the SecurityData items need 16 bytes, 15 left",
        ),
        (
            _security(0, 0, 1, 1, 1, 1, data=bytes(15)),
            31,
            "MQMQ-2.2.20.6-6",
            2,
            "the SecurityData items need 16 bytes, 15 left",
        ),
        (
            _security(0, 0, 0, 0, 0x10000),
            16,
            "MQMQ-2.2.20.6-6",
            8,
            "SenderCertSize is 65536, above 0xFFFF",
        ),
    ],
    ids=["fixed-short", "no-data", "padding-short", "four-pads", "cert-size"],
)
def test_a_security_header_that_does_not_fit_is_refused_in_words(
    wire: bytes, end: int, requirement: str, offset: int, message: str
) -> None:
    """MQMQ-2.2.19.1-3 / 2.2.20.6-6: the items, padding included, fit the packet."""
    assert refusal(decode_security, wire, 0, end, []) == (requirement, offset, message)


def test_a_sender_cert_of_0xffff_bytes_fits() -> None:
    """SenderCertSize 0xFFFF is the largest MQMQ-2.2.20.6-6 allows."""
    cert = bytes(range(256)) * 255 + bytes(255)
    wire = _security(0, 0, 0, 0, 0xFFFF, data=cert + b"\x00")
    header, end = decode_security(wire, 0, len(wire), [])
    assert header.sender_cert == cert and end == len(wire)


def test_the_security_header_properties_read_their_flag_bits() -> None:
    """ST bits 0-3, EB bit 5, AS bits 8-11 ([MS-MQMQ] 2.2.20.6)."""
    header = SecurityHeader(0xFA3F)
    assert (header.sender_id_type, header.encrypted, header.authentication_signature) == (
        0xF,
        True,
        0xA,
    )
    plain = SecurityHeader(0x0010)
    assert (plain.sender_id_type, plain.encrypted, plain.authentication_signature) == (0, False, 0)


@pytest.mark.parametrize(
    ("info", "provider"),
    [
        (b"", None),
        (b"\x01\x00\x00\x00\x00", None),
        (b"\x07\x00\x00\x00\x00\x00", (7, "")),
        (b"\x01\x02\x00\x00" + "x".encode("utf-16-le") + b"\x00\x00", (0x201, "x")),
        (b"\x01\x00\x00\x00" + b"a\x00\x00", None),
        (b"\x01\x00\x00\x00" + b"\x00a\x00\x00\x00", (1, "\u6100")),
    ],
    ids=["empty", "five", "empty-name", "type-le", "odd-unit", "two-byte-units"],
)
def test_provider_info_is_a_type_and_a_terminated_utf16_name(
    info: bytes, provider: tuple[int, str] | None
) -> None:
    """ProviderInfo: ProviderType(4) then a UTF-16 name ending in a 0x0000 code unit."""
    assert SecurityHeader(0, provider_info=info).provider == provider


def test_a_security_item_too_large_for_its_16_bit_size_field_is_not_written() -> None:
    """SenderIdSize, EncryptionKeySize and SignatureSize are 16 bits (2.2.20.6)."""
    for field in ("sender_id", "encryption_key", "signature"):
        wire = encode_security(SecurityHeader(0, **{field: bytes(0xFFFF)}))
        assert len(wire) == 16 + 0x10000
        with pytest.raises(ValueError, match=r"^a SecurityData item is too large for its size"):
            encode_security(SecurityHeader(0, **{field: bytes(0x10000)}))
    assert len(encode_security(SecurityHeader(0, sender_cert=bytes(0x10000)))) == 16 + 0x10000


def test_a_security_header_is_written_with_its_sizes_and_padded_items() -> None:
    header = SecurityHeader(
        0x42, b"i", b"kk", b"sss", b"cccc", b"ppppp"
    )  # 2.2.20.6: sizes then the padded items
    assert encode_security(header) == (
        struct.pack("<HHHHII", 0x42, 1, 2, 3, 4, 5) + b"i\0\0\0kk\0\0sss\0cccc" + b"ppppp\0\0\0"
    )


# --- SIDs ([MS-DTYP] 2.4.2.2) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"", "is 0 bytes, shorter than a SID"),
        (bytes((1, 0)) + bytes(5), "is 7 bytes, shorter than a SID"),
        (bytes((1, 0)) + bytes(6), ""),
        (bytes((0, 0)) + bytes(6), "has Revision 0, not 1"),
        (bytes((2, 0)) + bytes(6), "has Revision 2, not 1"),
        (bytes((1, 2)) + bytes(10), "is 12 bytes but SubAuthorityCount 2 needs 16"),
        (bytes((1, 1)) + bytes(6) + bytes(8), "is 16 bytes but SubAuthorityCount 1 needs 12"),
        (bytes((1, 1)) + bytes(10), ""),
    ],
)
def test_a_binary_sid_is_revision_1_with_its_sub_authorities(raw: bytes, problem: str) -> None:
    """[MS-DTYP] 2.4.2.2: Revision 1, SubAuthorityCount, IdentifierAuthority(6), 4 a sub."""
    assert sid_problem(raw) == problem


def test_a_sid_is_written_as_text_authority_big_endian_subs_little_endian() -> None:
    raw = bytes((1, 2)) + (0x010203).to_bytes(6, "big") + struct.pack("<II", 21, 0x01000000)
    assert sid_text(raw) == "S-1-66051-21-16777216"
    with pytest.raises(ValueError, match=r"^not a SID: it has Revision 3, not 1$"):
        sid_text(bytes((3, 0)) + bytes(6))


def test_the_model_guid_travels_as_a_domain_sid_and_back() -> None:
    """The suite's SID shape S-1-5-21-a-b-c-d, a-d the GUID's little-endian words."""
    sid = sid_for_guid(QM)
    a, b, c, d = struct.unpack("<4I", QM.bytes_le)
    assert sid_text(sid) == f"S-1-5-21-{a}-{b}-{c}-{d}"
    assert len(sid) == 28 and guid_for_sid(sid) == QM


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s[:24],
        lambda s: s + bytes(4),
        lambda s: bytes((2,)) + s[1:],
        lambda s: s[:1] + bytes((6,)) + s[2:],
        lambda s: s[:7] + bytes((4,)) + s[8:],
        lambda s: s[:2] + bytes((1,)) + s[3:],
        lambda s: s[:8] + struct.pack("<I", 32) + s[12:],
    ],
    ids=["short", "long", "revision", "count", "authority", "authority-high", "rid"],
)
def test_a_sid_of_any_other_shape_stands_for_no_guid(change) -> None:
    assert guid_for_sid(change(sid_for_guid(QM))) is None


# --- Message <-> UserMessage Packet ([MS-MQDMPR] 3.1.7.1.30-3.1.7.1.32) ------------------------

NOTIFY = f"PRIVATE={DST}\\3"


def _envelope(**changes: object) -> Envelope:
    base = Envelope(
        b"\x02\x01", MessageId(QM, 7), sender_identifier=QM, destination_format_name=NOTIFY
    )
    return base.with_(**changes)


def test_every_packet_field_the_envelope_names_reaches_it() -> None:
    """3.1.7.1.31: the Envelope of a packet, field by field (module table of mapping.py)."""
    user = UserHeader(
        QM,
        DST,
        60,
        5,
        0x0A0B,
        compose_user_flags(delivery=1, dq=3),
        QueueFormat.private_number(3, 3),
    )
    packet = UserMessage(
        BaseHeader(flags=0, time_to_reach_queue=123),
        user,
        MessageProperties(message_class=0x8004, hash_algorithm=0x8003, body=b"\x02\x01b"),
        security=SecurityHeader(2, sender_id=DST.bytes_le),
    )
    envelope, body = packet_to_envelope(packet, arrival_time=4.5)
    assert body == b"\x02\x01b" and envelope == Envelope(
        b"\x02\x01b",
        MessageId(QM, 0x0A0B),
        sender_identifier=DST,
        sender_identifier_type=SenderIdType.QueueManagerIdentifier,
        authentication_level=AuthLevel.None_,
        time_to_reach_queue=123,
        delivery_guarantee=DeliveryGuarantee.Recoverable,
        message_class=MessageClass.NackAccessDenied,
        hash_algorithm=HashAlgorithm.MD5,
        destination_format_name=NOTIFY,
        arrival_time=4.5,
    )
    given = packet_to_envelope(packet, destination="DIRECT=x")[0]
    assert given.destination_format_name == "DIRECT=x"
    assert given.arrival_time == 0.0 and given.delivery_guarantee is DeliveryGuarantee.Recoverable


def _packet(security: SecurityHeader | None, mqf: MultiQueueFormat | None = None) -> UserMessage:
    return replace(envelope_to_packet(_envelope()), security=security, mqf=mqf)


SIGNED = MultiQueueFormat(signature=b"mqf!")


@pytest.mark.parametrize(
    ("security", "mqf", "kind", "sender", "level"),
    [
        (None, None, SenderIdType.None_, None, AuthLevel.None_),
        (None, SIGNED, SenderIdType.None_, None, AuthLevel.Sig30),
        (None, MultiQueueFormat(), SenderIdType.None_, None, AuthLevel.None_),
        (
            SecurityHeader(2, sender_id=DST.bytes_le),
            SIGNED,
            SenderIdType.QueueManagerIdentifier,
            DST,
            AuthLevel.Sig30,
        ),
        (
            SecurityHeader(2, sender_id=DST.bytes_le, signature=b"s"),
            SIGNED,
            SenderIdType.QueueManagerIdentifier,
            DST,
            AuthLevel.Sig20,
        ),
        (
            SecurityHeader(2, sender_id=DST.bytes_le, signature=b"s"),
            None,
            SenderIdType.QueueManagerIdentifier,
            DST,
            AuthLevel.Sig20,
        ),
        (
            SecurityHeader(2, sender_id=DST.bytes_le[:15], signature=b"s"),
            None,
            SenderIdType.QueueManagerIdentifier,
            None,
            AuthLevel.Sig20,
        ),
        (
            SecurityHeader(2, sender_id=DST.bytes_le + b"x"),
            None,
            SenderIdType.QueueManagerIdentifier,
            None,
            AuthLevel.None_,
        ),
        (
            SecurityHeader(1, sender_id=sid_for_guid(DST)),
            None,
            SenderIdType.Sid,
            DST,
            AuthLevel.None_,
        ),
        (SecurityHeader(1, sender_id=DST.bytes_le), None, SenderIdType.Sid, None, AuthLevel.None_),
        (
            SecurityHeader(0, sender_id=DST.bytes_le),
            None,
            SenderIdType.None_,
            None,
            AuthLevel.None_,
        ),
        (
            SecurityHeader(0, sender_id=sid_for_guid(DST)),
            None,
            SenderIdType.None_,
            None,
            AuthLevel.None_,
        ),
        (SecurityHeader(3, sender_id=DST.bytes_le), None, SenderIdType(3), None, AuthLevel.None_),
    ],
    ids=[
        "none",
        "mqf-sig",
        "mqf-unsigned",
        "sh-unsigned-mqf",
        "both-signed",
        "signed",
        "qm-short",
        "qm-long",
        "sid",
        "foreign-sid",
        "st0-guid",
        "st0-sid",
        "st3",
    ],
)
def test_the_sender_and_the_signature_are_read_as_errata_w05_says(
    security: SecurityHeader | None,
    mqf: MultiQueueFormat | None,
    kind: SenderIdType,
    sender: uuid.UUID | None,
    level: AuthLevel,
) -> None:
    """SenderIdentifier from SecurityID by ST; AuthenticationLevel: a SecurityData.Signature
    is ``signed_as`` (default Sig20), else an MQF signature is Sig30 (errata W-05)."""
    envelope, _ = packet_to_envelope(_packet(security, mqf))
    assert envelope.sender_identifier_type is kind
    assert (envelope.sender_identifier, envelope.authentication_level) == (sender, level)


def test_a_signature_stands_for_the_level_the_caller_assumes() -> None:
    """[MS-MQQB] 3.1.5.8.3: the wire does not say MSMQ 1.0 or 2.0 signature."""
    packet = _packet(SecurityHeader(2, sender_id=DST.bytes_le, signature=b"s"), SIGNED)
    assert packet_to_envelope(packet, signed_as=AuthLevel.Sig10)[0].authentication_level is (
        AuthLevel.Sig10
    )


def test_hash_algorithm_zero_is_none_and_unlisted_values_are_kept_by_number() -> None:
    """MessagePropertiesHeader.HashAlgorithm 0: no hash; any other value reaches the Envelope."""
    packet = envelope_to_packet(_envelope())
    for value, expected in ((0, None), (0x8003, HashAlgorithm.MD5), (7, HashAlgorithm(7))):
        properties = replace(packet.properties, hash_algorithm=value, message_class=0x0101)
        envelope, _ = packet_to_envelope(replace(packet, properties=properties))
        assert envelope.hash_algorithm is expected
        assert envelope.message_class is MessageClass(0x0101)
    user = replace(packet.user, flags=compose_user_flags(delivery=3, dq=3))
    assert packet_to_envelope(replace(packet, user=user))[0].delivery_guarantee is (
        DeliveryGuarantee(3)
    )


def test_an_envelope_is_written_with_the_callers_times_priority_and_body() -> None:
    """3.1.7.1.30: TimeToBeReceived, SentTime and the priority (BaseHeader.Flags.PR, 3
    bits) are the caller's; ``body`` overrides the Envelope's body."""
    envelope = _envelope(time_to_reach_queue=77, delivery_guarantee=DeliveryGuarantee.Recoverable)
    packet = envelope_to_packet(
        envelope, b"\x02\x01other", sent_time=9, time_to_be_received=60, priority=0xF
    )
    assert (packet.base.flags & 0x7, packet.base.time_to_reach_queue) == (7, 77)
    assert (packet.user.sent_time, packet.user.time_to_be_received) == (9, 60)
    assert (packet.user.source_qm, packet.user.message_id, packet.user.delivery) == (QM, 7, 1)
    assert packet.user.destination_qm == DST and packet.properties.body == b"\x02\x01other"
    default = envelope_to_packet(envelope)
    assert (default.user.time_to_be_received, default.user.sent_time) == (0xFFFFFFFF, 0)
    assert default.base.flags & 0x7 == 3 and default.properties.body == b"\x02\x01"
    assert default.properties.hash_algorithm == 0x800E
    nothing = envelope_to_packet(_envelope(hash_algorithm=None, message_class=MessageClass.Report))
    assert (nothing.properties.hash_algorithm, nothing.properties.message_class) == (0, 1)


@pytest.mark.parametrize(
    ("name", "qm", "element"),
    [
        (f"PUBLIC={DST}", QM, MQFElement(1, guid=DST)),
        ("DIRECT=TCP:10.0.0.1\\q", uuid.UUID(int=0), MQFElement(3, direct="TCP:10.0.0.1\\q")),
        (f"PRIVATE={DST}\\a", DST, MQFElement(2, guid=DST, private_id=10)),
    ],
    ids=["public", "direct", "private"],
)
def test_a_sig30_message_carries_its_destination_and_signature_in_an_mqf_header(
    name: str, qm: uuid.UUID, element: MQFElement
) -> None:
    """3.1.7.1.32: Sig30 puts the signature in the MultiQueueFormatHeader, whose destination
    list is the message's one destination; QueueManagerAddress is null for DIRECT=."""
    envelope = _envelope(authentication_level=AuthLevel.Sig30, destination_format_name=name)
    packet = envelope_to_packet(envelope, destination_qm=QM, signature=b"sig3")
    assert packet.user.destination_qm == qm
    assert packet.mqf == MultiQueueFormat(destination=[element], signature=b"sig3")
    assert packet.security == SecurityHeader(2, sender_id=QM.bytes_le)
    assert packet_to_envelope(packet)[0].authentication_level is AuthLevel.Sig30


@pytest.mark.parametrize("level", [AuthLevel.Always, AuthLevel.Sig10, AuthLevel.Sig20])
def test_a_signed_message_carries_its_signature_by_the_default_provider(level: AuthLevel) -> None:
    """3.1.7.1.32: a signed Message's SecurityHeader has the Signature and Flags.DE set."""
    packet = envelope_to_packet(
        _envelope(authentication_level=level), signature=b"sig!", sender_cert=b"cert"
    )
    assert packet.security == SecurityHeader(
        2 | 0x40, sender_id=QM.bytes_le, signature=b"sig!", sender_cert=b"cert"
    )
    assert packet.mqf is None
    default = envelope_to_packet(_envelope(authentication_level=level)).security
    assert default is not None and default.signature == bytes(128)


@pytest.mark.parametrize(
    ("kind", "sender", "cert", "security"),
    [
        (SenderIdType.None_, QM, b"", None),
        (SenderIdType.None_, None, b"c", SecurityHeader(0, sender_cert=b"c")),
        (SenderIdType.Sid, QM, b"", SecurityHeader(1, sender_id=sid_for_guid(QM))),
        (SenderIdType.QueueManagerIdentifier, QM, b"", SecurityHeader(2, sender_id=QM.bytes_le)),
    ],
    ids=["nothing", "cert-only", "sid", "qm"],
)
def test_an_unsigned_message_has_a_security_header_only_for_what_it_carries(
    kind: SenderIdType, sender: uuid.UUID | None, cert: bytes, security: SecurityHeader | None
) -> None:
    """3.1.7.1.32: no sender, signature or certificate: no SecurityHeader."""
    envelope = _envelope(
        authentication_level=AuthLevel.None_, sender_identifier_type=kind, sender_identifier=sender
    )
    assert envelope_to_packet(envelope, sender_cert=cert).security == security


@pytest.mark.parametrize(
    ("change", "destination_qm", "message"),
    [
        (
            {"authentication_level": AuthLevel.XMLDSig},
            None,
            "an XML digital signature has no MS-MQQB form (it travels over SRMP)",
        ),
        (
            {"destination_format_name": f"PUBLIC={DST}"},
            None,
            "a PUBLIC= destination needs destination_qm",
        ),
        (
            {"sender_identifier": None},
            None,
            "SenderIdentifierType QueueManagerIdentifier needs a SenderIdentifier on the wire",
        ),
        (
            {"sender_identifier": None, "sender_identifier_type": SenderIdType.Sid},
            None,
            "SenderIdentifierType Sid needs a SenderIdentifier on the wire",
        ),
    ],
    ids=["xmldsig", "public", "qm", "sid"],
)
def test_an_envelope_the_wire_cannot_carry_is_refused_in_words(
    change: dict, destination_qm: uuid.UUID | None, message: str
) -> None:
    with pytest.raises(ValueError) as info:
        envelope_to_packet(_envelope(**change), destination_qm=destination_qm)
    assert str(info.value) == message


# --- MessagePropertiesHeader ([MS-MQMQ] 2.2.19.3) --------------------------------------------


def _props(
    *,
    flags: int = 0,
    label_length: int = 0,
    cls: int = 0,
    size: int = 0,
    allocation: int | None = None,
    privacy: int = 0,
    hash_alg: int = 0,
    encryption: int = 0,
    extension_size: int = 0,
    data: bytes = b"",
    at: int = 0,
    pad: bool = True,
) -> bytes:
    """``at`` filler bytes, then a MessagePropertiesHeader's fixed 56 bytes and ``data``
    (zero-padded to 4 bytes unless ``pad`` is false)."""
    allocation = size if allocation is None else allocation
    fixed = struct.pack(
        "<BBH20sIIIIIIII",
        flags,
        label_length,
        cls,
        bytes(range(20)),
        0x11,
        0x22,
        size,
        allocation,
        privacy,
        hash_alg,
        encryption,
        extension_size,
    )
    return bytes(at) + fixed + data + bytes(-len(data) % 4 if pad else 0)


PROPERTY_FINDINGS = [
    (
        "label-length",
        _props(label_length=0xFB, data="x".encode("utf-16-le") * 0xFA + bytes(2)),
        "MQMQ-2.2.19.3-1",
        1,
        "LabelLength is 251, above 0xFA",
    ),
    (
        "class",
        _props(cls=0x0200),
        "MQMQ-2.2.19.3-3",
        2,
        "MessageClass 0x0200 is neither listed nor custom",
    ),
    (
        "class-high",
        _props(cls=0x1E00),
        "MQMQ-2.2.19.3-3",
        2,
        "MessageClass 0x1e00 is neither listed nor custom",
    ),
    ("privacy", _props(privacy=2), "MQMQ-2.2.19.3-4", 40, "PrivacyLevel is 2, not 0, 1, 3 or 5"),
    (
        "privacy-encryption",
        _props(privacy=2, encryption=0x6602),
        "MQMQ-2.2.19.3-4",
        40,
        "PrivacyLevel is 2, not 0, 1, 3 or 5",
    ),
    (
        "encryption",
        _props(privacy=1, encryption=0x6610),
        "MQMQ-2.2.19.3-5",
        48,
        "EncryptionAlgorithm 0x6610 is not allowed at PrivacyLevel 1",
    ),
    (
        "encryption-5",
        _props(privacy=5, encryption=0x6801),
        "MQMQ-2.2.19.3-5",
        48,
        "EncryptionAlgorithm 0x6801 is not allowed at PrivacyLevel 5",
    ),
    (
        "label-unterminated",
        _props(label_length=2, data="ab".encode("utf-16-le")),
        "MQMQ-2.2.19.3-2",
        56,
        "the Label has no 0x0000 terminator",
    ),
    (
        "label-early-zero",
        _props(label_length=3, data=b"a\x00\x00\x00b\x00"),
        "MQMQ-2.2.19.3-2",
        58,
        "the Label has a 0x0000 before its end",
    ),
]


@pytest.mark.parametrize(
    ("wire", "requirement", "offset", "message"),
    [case[1:] for case in PROPERTY_FINDINGS],
    ids=[case[0] for case in PROPERTY_FINDINGS],
)
def test_a_property_value_rule_is_a_finding_at_its_byte_in_words(
    wire: bytes, requirement: str, offset: int, message: str
) -> None:
    """MQMQ-2.2.19.3-1..5: one finding each, its byte counted from the header's start (here
    4 bytes into the buffer); the header is still decoded, or in strict mode refused."""
    wire = bytes(4) + wire
    found: list = []
    properties, end = decode_properties(wire, 4, len(wire), found)
    assert told(found) == [(requirement, 4 + offset, message)]
    assert properties.offset == 4 and end == 4 + align4(len(wire) - 4)
    with pytest.raises(DecodeError) as strict:
        decode_properties(wire, 4, len(wire))
    assert strict.value.violation == found[0]


@pytest.mark.parametrize(
    "wire",
    [
        _props(label_length=0xFA, data="x".encode("utf-16-le") * 0xF9 + bytes(2)),
        _props(cls=0x0123),
        _props(cls=0xE1FF),
        _props(cls=0x8000),
        _props(privacy=1, encryption=0x6602),
        _props(privacy=3, encryption=0x6801),
        _props(privacy=5, encryption=0x660E),
        _props(privacy=5, encryption=0x6610),
        _props(privacy=0, encryption=0x1234),
        _props(label_length=1, data=bytes(2)),
        _props(label_length=3, data=b"a\x00\x00b\x00\x00"),
    ],
    ids=[
        "label-0xfa",
        "custom",
        "custom-all-bits",
        "listed",
        "base-rc2",
        "enhanced-rc4",
        "advanced-aes128",
        "advanced-aes256",
        "none-any",
        "empty-label",
        "unit-aligned-zero",
    ],
)
def test_a_property_header_within_the_rules_has_no_finding(wire: bytes) -> None:
    """LabelLength up to 0xFA, a custom class (2.2.18.1.6, W-04), each PrivacyLevel with its
    algorithms (2.2.19.3), a Label whose only 0x0000 code unit is its last."""
    found: list = []
    decode_properties(wire, 0, len(wire), found)
    assert found == []


def test_every_property_field_is_read_where_the_layout_puts_it() -> None:
    """2.2.19.3: the fixed fields, then Label, ExtensionData, the body and its slack
    (AllocationBodySize - MessageSize, errata W-02's reading), padded to 4."""
    data = "hi".encode("utf-16-le") + bytes(2) + b"ext" + b"body!" + b"sl"
    wire = _props(
        flags=0x0F,
        label_length=3,
        cls=0x8001,
        size=5,
        allocation=7,
        privacy=3,
        hash_alg=0x8004,
        encryption=0x6801,
        extension_size=3,
        data=data,
        at=8,
    )
    properties, end = decode_properties(wire + b"next", 8, len(wire) + 4, [])
    assert properties == MessageProperties(
        flags=0x0F,
        message_class=0x8001,
        correlation_id=bytes(range(20)),
        body_type=0x11,
        application_tag=0x22,
        privacy_level=3,
        hash_algorithm=0x8004,
        encryption_algorithm=0x6801,
        label="hi",
        extension=b"ext",
        body=b"body!",
        body_slack=b"sl",
        declared_allocation=None,
    )
    assert properties.offset == 8 and end == 8 + 56 + 16 == len(wire)
    assert properties.allocation_body_size == 7 and properties.size == 72


def test_a_label_without_its_terminator_is_kept_whole() -> None:
    """A Label breaking MQMQ-2.2.19.3-2 is kept: all its units, or those before a final 0."""
    for data, label in (
        ("ab".encode("utf-16-le"), "ab"),
        (b"a\x00\x00\x00b\x00\x00\x00", "a\x00b"),
        (b"\x00\xd8\x00\x00", "\ud800"),
    ):
        wire = _props(label_length=len(data) // 2, data=data)
        assert decode_properties(wire, 0, len(wire), [])[0].label == label


@pytest.mark.parametrize(
    ("wire", "end", "requirement", "offset", "message"),
    [
        (bytes(55), 55, "MQMQ-2.2.19.1-3", 0, "a MessagePropertiesHeader needs 56 bytes, 55 left"),
        (
            _props(size=5, allocation=4, data=bytes(8)),
            64,
            "MQMQ-2.2.19.3-6",
            32,
            "MessageSize 5 exceeds AllocationBodySize 4",
        ),
        (
            _props(label_length=2, extension_size=3, size=1, allocation=5, data=bytes(11)),
            67,
            "MQMQ-2.2.19.3-7",
            52,
            "Label (4), ExtensionData (3) and the body room (5) need 12 bytes, 11 left in the "
            "packet",
        ),
        (
            _props(size=1),
            56,
            "MQMQ-2.2.19.3-7",
            52,
            "Label (0), ExtensionData (0) and the body room (1) need 1 bytes, 0 left in the packet",
        ),
        (
            _props(size=1, data=b"x", pad=False),
            57,
            "MQMQ-2.2.19.1-3",
            60,
            "the MessagePropertiesHeader padding needs 0 bytes, 0 left",
        ),
    ],
    ids=["fixed-short", "body-room", "variable", "nothing-left", "padding"],
)
def test_a_property_header_that_does_not_fit_is_refused_in_words(
    wire: bytes, end: int, requirement: str, offset: int, message: str
) -> None:
    """MQMQ-2.2.19.1-3, 2.2.19.3-6/7: the body fits its room and everything the packet."""
    assert refusal(decode_properties, wire, 0, end, []) == (requirement, offset, message)


def test_the_body_room_is_message_size_when_allocation_equals_it() -> None:
    wire = _props(size=4, allocation=4, data=b"abcd")
    properties, end = decode_properties(wire, 0, len(wire), [])
    assert (properties.body, properties.body_slack, end) == (b"abcd", b"", 60)


def test_w02s_letter_reads_message_size_bytes_and_keeps_the_stated_allocation() -> None:
    """Errata W-02's letter: the body room is MessageSize bytes; AllocationBodySize is kept
    as stated and where the layouts part is said (byte 36, AllocationBodySize)."""
    wire = _props(size=2, allocation=6, data=b"ab\x00\x00", at=4)
    letter = Letter(frozenset({"W-02"}))
    properties, end = decode_properties(wire, 4, len(wire), [], letter)
    assert (properties.body, properties.body_slack, end) == (b"ab", b"", len(wire))
    assert properties.declared_allocation == 6 and properties.allocation_body_size == 6
    assert [(r.errata, r.offset, r.note) for r in letter.used] == [
        (
            "W-02",
            40,
            "the body room is MessageSize (2 bytes), not AllocationBodySize (6): the next "
            "header follows the body",
        )
    ]
    assert encode_properties(properties) == wire[4:]
    same = Letter(frozenset({"W-02"}))
    wire = _props(size=2, allocation=2, data=b"ab\x00\x00")
    assert decode_properties(wire, 0, len(wire), [], same)[0].declared_allocation is None
    assert same.used == []
    with pytest.raises(DecodeError):  # the suite's reading: 6 bytes of room, 4 given
        decode_properties(_props(size=2, allocation=6, data=b"ab\x00\x00"), 0, 60, [])


@pytest.mark.parametrize(
    ("label", "length"),
    [(None, 0), ("", 1), ("a", 2), ("\U0001f600", 3), ("x" * 0xF9, 0xFA)],
)
def test_label_length_counts_utf16_code_units_and_the_terminator(
    label: str | None, length: int
) -> None:
    """LabelLength (2.2.19.3): code units of the Label including its 0x0000; 0: no Label."""
    properties = MessageProperties(label=label)
    assert properties.label_length == length
    wire = encode_properties(properties)
    assert wire[1] == length and len(wire) == properties.size == align4(56 + 2 * length)
    assert decode_properties(wire, 0, len(wire), [])[0] == properties


def test_a_property_header_is_written_field_by_field() -> None:
    properties = MessageProperties(
        flags=3,
        message_class=0x8002,
        correlation_id=bytes(range(20)),
        body_type=0x11,
        application_tag=0x22,
        privacy_level=1,
        hash_algorithm=0x8003,
        encryption_algorithm=0x6602,
        label="A",
        extension=b"E",
        body=b"BB",
        body_slack=b"S",
    )
    expected = (
        struct.pack(
            "<BBH20sIIIIIIII",
            3,
            2,
            0x8002,
            bytes(range(20)),
            0x11,
            0x22,
            2,
            3,
            1,
            0x8003,
            0x6602,
            1,
        )
        + b"A\x00\x00\x00"
        + b"E"
        + b"BB"
        + b"S"
    )
    assert encode_properties(properties) == expected
    assert properties.size == len(expected) == 64
    stated = MessageProperties(body=b"xy", body_slack=b"z", declared_allocation=9)
    assert stated.allocation_body_size == 9 and encode_properties(stated)[36:40] == bytes(
        (9, 0, 0, 0)
    )


def test_a_property_header_the_fields_cannot_carry_is_not_written() -> None:
    """CorrelationID is 20 bytes; LabelLength is one byte (2.2.19.3)."""
    with pytest.raises(ValueError, match=r"^CorrelationID is exactly 20 bytes$"):
        encode_properties(MessageProperties(correlation_id=bytes(19)))
    assert encode_properties(MessageProperties(label="x" * 254))[1] == 0xFF
    with pytest.raises(ValueError, match=r"^LabelLength is one byte$"):
        encode_properties(MessageProperties(label="x" * 255))


# --- UserHeader ([MS-MQMQ] 2.2.19.2) ----------------------------------------------------------


def _user(flags: int, queues: bytes = b"", *, source: uuid.UUID = QM, qm: uuid.UUID = DST) -> bytes:
    """4 filler bytes, then a UserHeader with ``flags`` and the queue fields ``queues``."""
    fixed = struct.pack("<16s16sIIII", source.bytes_le, qm.bytes_le, 60, 5, 9, flags)
    return bytes(4) + fixed + queues


def _flags(**parts: object) -> int:
    return compose_user_flags(**{"dq": 3, **parts})  # type: ignore[arg-type]


NUMBER_3 = struct.pack("<I", 3)

USER_FINDINGS = [
    ("rc", _flags(hop_count=0x1E), "MQMQ-2.2.19.2-1", 44, "Flags.RC is 30, above 0x1D"),
    ("rc-31", _flags(hop_count=0x1F), "MQMQ-2.2.19.2-1", 44, "Flags.RC is 31, above 0x1D"),
    ("dm-2", _flags(delivery=2), "MQMQ-2.2.19.2-2", 44, "Flags.DM is 2, not 0 or 1"),
    (
        "dm-3",
        _flags(delivery=3, transaction=True),
        "MQMQ-2.2.19.2-2",
        44,
        "Flags.DM is 3, not 0 or 1",
    ),
    (
        "th-express",
        _flags(transaction=True),
        "MQMQ-2.2.19.2-5",
        44,
        "Flags.TH is set but Flags.DM is express",
    ),
    ("ah", _flags(http=True), "MQMQ-2.2.19.2-7", 47, "Flags.AH is set in a packet on the wire"),
]


@pytest.mark.parametrize(
    ("flags", "requirement", "offset", "message"),
    [case[1:] for case in USER_FINDINGS],
    ids=[case[0] for case in USER_FINDINGS],
)
def test_a_user_header_value_rule_is_a_finding_at_its_flags_byte(
    flags: int, requirement: str, offset: int, message: str
) -> None:
    """MQMQ-2.2.19.2-1/2/5/7: one finding at its byte of Flags (counted from the header's
    start, here 4 bytes in); the header is still read, or in strict mode refused."""
    wire = _user(flags, NUMBER_3)
    found: list = []
    header, end = decode_user_header(wire, 4, len(wire), found)
    assert told(found) == [(requirement, 4 + offset, message)]
    assert (header.flags, header.destination, end) == (flags, QueueFormat(3, private_id=3), 56)
    with pytest.raises(DecodeError) as strict:
        decode_user_header(wire, 4, len(wire))
    assert strict.value.violation == found[0]


@pytest.mark.parametrize(
    "flags",
    [
        _flags(hop_count=0x1D),
        _flags(delivery=1),
        _flags(delivery=1, transaction=True),
        _flags(journal_negative=True, journal_positive=True, security=True, mqf=True, soap=True),
    ],
    ids=["rc-0x1d", "recoverable", "transactional", "other-bits"],
)
def test_a_user_header_within_the_rules_has_no_finding(flags: int) -> None:
    wire = _user(flags, NUMBER_3)
    found: list = []
    decode_user_header(wire, 4, len(wire), found)
    assert found == []


def test_a_direct_destination_names_no_queue_manager() -> None:
    """MQMQ-2.2.19.2-8: DQ 7 with a QueueManagerAddress that is not the null GUID."""
    name = "a".encode("utf-16-le") + bytes(2)
    direct = struct.pack("<H", len(name)) + name + bytes(2)
    found: list = []
    wire = _user(_flags(dq=7), direct)
    header, end = decode_user_header(wire, 4, len(wire), found)
    assert told(found) == [
        ("MQMQ-2.2.19.2-8", 20, f"the destination is direct but QueueManagerAddress is {DST}")
    ]
    assert header.destination == QueueFormat(7, direct="a") and end == len(wire)
    found = []
    decode_user_header(_user(_flags(dq=7), direct, qm=uuid.UUID(int=0)), 4, len(wire), found)
    assert found == []


@pytest.mark.parametrize(
    ("flags", "queues", "end", "requirement", "offset", "message"),
    [
        (0, b"", 51, "MQMQ-2.2.19.1-3", 4, "a UserHeader needs 48 bytes, 47 left"),
        (
            compose_user_flags(dq=1),
            b"",
            52,
            "MQMQ-2.2.19.2-3",
            49,
            "Flags.DQ is 1, not 0, 3, 5 or 7",
        ),
        (
            compose_user_flags(dq=6),
            b"",
            52,
            "MQMQ-2.2.19.2-3",
            49,
            "Flags.DQ is 6, not 0, 3, 5 or 7",
        ),
        (
            _flags(aq=1),
            NUMBER_3,
            56,
            "MQMQ-2.2.19.2-4",
            49,
            "Flags.AQ is 1, not 0, 2, 3, 5, 6 or 7",
        ),
        (
            _flags(aq=4),
            NUMBER_3,
            56,
            "MQMQ-2.2.19.2-4",
            49,
            "Flags.AQ is 4, not 0, 2, 3, 5, 6 or 7",
        ),
        (
            _flags(properties=False),
            NUMBER_3,
            56,
            "MQMQ-2.2.19.2-6",
            50,
            "Flags.MP is clear: no MessagePropertiesHeader",
        ),
        (
            _flags(connector=True),
            NUMBER_3 + bytes(15),
            71,
            "MQMQ-2.2.19.1-3",
            56,
            "the ConnectorType needs 16 bytes, 15 left",
        ),
    ],
    ids=["short", "dq-1", "dq-6", "aq-1", "aq-4", "mp", "connector"],
)
def test_a_user_header_that_cannot_be_read_is_refused_in_words(
    flags: int, queues: bytes, end: int, requirement: str, offset: int, message: str
) -> None:
    """MQMQ-2.2.19.1-3, 2.2.19.2-3/4/6: the structure rules of the UserHeader."""
    wire = _user(flags, queues)
    assert refusal(decode_user_header, wire, 4, end, []) == (requirement, offset, message)


def test_every_user_header_field_is_read_where_the_layout_puts_it() -> None:
    """2.2.19.2: the fixed fields, DestinationQueue, AdminQueue, ResponseQueue, ConnectorType."""
    connector = uuid.UUID(int=0xC0)
    flags = compose_user_flags(dq=5, aq=6, rq=2, connector=True)
    queues = DST.bytes_le + QM.bytes_le + struct.pack("<II", 4, 8) + connector.bytes_le
    wire = _user(flags, queues)
    header, end = decode_user_header(wire + b"more", 4, len(wire) + 4, [])
    assert header == UserHeader(
        QM,
        DST,
        60,
        5,
        9,
        flags,
        QueueFormat.public(DST),
        QueueFormat.private_on(QM, 4),
        QueueFormat.private_number(2, 8),
        connector,
    )
    assert end == len(wire) and encode_user_header(header) == wire[4:]


def test_the_user_flags_are_composed_bit_by_bit() -> None:
    """2.2.19.2 Flags: RC 0-4, DM 5-6, JN 8, JP 9, DQ 10-12, AQ 13-15, RQ 16-18, SH 19,
    TH 20, MP 21, CQ 22, MQ 23, AH 25, HH 28 (each part masked to its width)."""
    bits = {
        "hop_count": (0x3F, 0x1F),
        "delivery": (7, 0x3 << 5),
        "journal_negative": (True, 1 << 8),
        "journal_positive": (True, 1 << 9),
        "dq": (0xF, 0x7 << 10),
        "aq": (0xF, 0x7 << 13),
        "rq": (0xF, 0x7 << 16),
        "security": (True, 1 << 19),
        "transaction": (True, 1 << 20),
        "connector": (True, 1 << 22),
        "mqf": (True, 1 << 23),
        "http": (True, 1 << 25),
        "soap": (True, 1 << 28),
        "reserved": (0x80000080, 0x80000080),
    }
    mp = 1 << 21
    assert compose_user_flags() == mp and compose_user_flags(properties=False) == 0
    for name, (value, bit) in bits.items():
        assert compose_user_flags(**{name: value}) == mp | bit, name
    header = UserHeader(
        QM, DST, 0, 0, 0, compose_user_flags(hop_count=5, delivery=1, dq=3, aq=6, rq=4)
    )
    assert (header.hop_count, header.delivery, header.dq, header.aq, header.rq) == (5, 1, 3, 6, 4)
    assert header.has(mp) and not header.has(1 << 19)
    full = UserHeader(QM, DST, 0, 0, 0, 0xFFFFFFFF)
    assert (full.hop_count, full.delivery, full.dq, full.aq, full.rq) == (31, 3, 7, 7, 7)


def _response_letter(aq: int, admin: bytes, rq: int, response: bytes, letter: Letter):
    wire = _user(_flags(aq=aq, rq=rq), NUMBER_3 + admin + response) + b"rest"
    found: list = []
    header, end = decode_user_header(wire, 4, len(wire), found, letter)
    assert found == []
    return (
        header,
        end - 4 - 48 - 4 - len(admin),
        [(r.errata, r.offset, r.note) for r in letter.used],
    )


def test_w06s_letter_reads_no_response_field_for_rq_4() -> None:
    """Errata W-06's letter: RQ 0x4 carries no ResponseQueue field."""
    header, response_size, used = _response_letter(3, NUMBER_3, 4, b"", Letter(frozenset({"W-06"})))
    assert header.response is None and response_size == 0
    assert used == [
        (
            "W-06",
            60,
            "RQ 0x4 carries no ResponseQueue field (the response queue is a private queue on "
            "the administration queue's host, its number not given)",
        )
    ]
    reading, response_size, used = _response_letter(3, NUMBER_3, 4, NUMBER_3, Letter())
    assert reading.response == QueueFormat(4, private_id=3) and response_size == 4
    assert used == []
    other, response_size, used = _response_letter(
        3, NUMBER_3, 4, NUMBER_3, Letter(frozenset({"W-02"}))
    )
    assert other.response == QueueFormat(4, private_id=3) and used == []


@pytest.mark.parametrize(
    ("aq", "admin", "response", "host", "same"),
    [
        (3, struct.pack("<I", 5), struct.pack("<I", 5), DST, "the same as"),
        (2, struct.pack("<I", 5), struct.pack("<I", 6), QM, "NOT the same as"),
    ],
)
def test_w06s_letter_reads_rq_1s_response_field_laid_out_as_the_admin_queue(
    aq: int, admin: bytes, response: bytes, host: uuid.UUID, same: str
) -> None:
    """Errata W-06's letter: RQ 0x1 carries a ResponseQueue field, a copy of AdminQueue."""
    header, response_size, used = _response_letter(
        aq, admin, 1, response, Letter(frozenset({"W-06"}))
    )
    number = struct.unpack("<I", response)[0]
    assert header.response is None and response_size == 4
    assert used == [
        (
            "W-06",
            60,
            f"RQ 0x1 carries a ResponseQueue field (4 bytes, laid out as AQ 0x{aq:x}: "
            f"PRIVATE={host}\\{number:x}), {same} the AdminQueue",
        )
    ]


def test_w06s_letter_of_rq_1_without_an_admin_queue_reads_nothing() -> None:
    header, response_size, used = _response_letter(0, b"", 1, b"", Letter(frozenset({"W-06"})))
    assert (header.admin, header.response, response_size, used) == (None, None, 0, [])


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (
            UserHeader(QM, DST, 0, 0, 0, _flags(), None),
            "Flags say DQ type 3 but the DQ queue has type 0",
        ),
        (
            UserHeader(QM, DST, 0, 0, 0, _flags(), QueueFormat.public(DST)),
            "Flags say DQ type 3 but the DQ queue has type 5",
        ),
        (
            UserHeader(QM, DST, 0, 0, 0, compose_user_flags(), QueueFormat.public(DST)),
            "Flags say DQ type 0 but the DQ queue has type 5",
        ),
        (
            UserHeader(QM, DST, 0, 0, 0, _flags(aq=2), QueueFormat(3, 1)),
            "Flags say AQ type 2 but the AQ queue has type 0",
        ),
        (
            UserHeader(
                QM, DST, 0, 0, 0, _flags(rq=1), QueueFormat(3, 1), response=QueueFormat(3, 1)
            ),
            "Flags say RQ type 1 but the RQ queue has type 3",
        ),
        (
            UserHeader(QM, DST, 0, 0, 0, _flags(connector=True), QueueFormat(3, 1)),
            "Flags.CQ and the ConnectorType field disagree",
        ),
        (
            UserHeader(QM, DST, 0, 0, 0, _flags(), QueueFormat(3, 1), connector_type=QM),
            "Flags.CQ and the ConnectorType field disagree",
        ),
    ],
    ids=[
        "dq-missing",
        "dq-other",
        "dq-0-given",
        "aq-missing",
        "rq-1-given",
        "cq-missing",
        "cq-unflagged",
    ],
)
def test_a_user_header_whose_flags_and_fields_disagree_is_not_written(
    header: UserHeader, message: str
) -> None:
    with pytest.raises(ValueError) as info:
        encode_user_header(header)
    assert str(info.value) == message


def test_a_user_header_with_rq_1_and_no_response_field_is_written() -> None:
    """RQ 1 (same as the administration queue) and RQ 0 have no ResponseQueue field."""
    for rq in (0, 1):
        header = UserHeader(
            QM, DST, 1, 2, 3, _flags(aq=3, rq=rq), QueueFormat(3, 1), QueueFormat(3, 2)
        )
        wire = encode_user_header(header)
        assert len(wire) == 56 and decode_user_header(wire, 0, len(wire))[0] == header


# --- MultiQueueFormatHeader ([MS-MQMQ] 2.2.20.1-3) --------------------------------------------


def _address(header_id: int, count: int, body: bytes, size: int | None = None) -> bytes:
    size = 12 + len(body) if size is None else size
    return struct.pack("<IHHI", size, header_id, 0, count) + body


def _signature_part(signature: bytes, *, ident: int = 0x015E, size: int | None = None) -> bytes:
    size = len(signature) if size is None else size
    return struct.pack("<HHI", ident, 0, size) + signature


PUBLIC_ELEMENT = struct.pack("<H", 1) + bytes(2) + DST.bytes_le  # FormatType 1, pad, GUID
EMPTY_ADDRESSES = _address(0x64, 0, b"") + _address(0xC8, 0, b"") + _address(0x12C, 0, b"")


def test_every_mqf_part_is_read_in_order_with_its_reserved_fields() -> None:
    """2.2.20.1: destination, administration and response MQFAddressHeaders, then the
    MQFSignatureHeader padded to 4; the Reserved fields are kept in that order."""
    private = struct.pack("<H", 2) + bytes(2) + QM.bytes_le + struct.pack("<I", 7)
    direct = struct.pack("<H", 3) + "d".encode("utf-16-le") + bytes(2) + bytes(2)
    wire = (
        bytes(4)
        + struct.pack("<IHHI", 32, 0x64, 1, 1)
        + PUBLIC_ELEMENT
        + struct.pack("<IHHI", 36, 0xC8, 2, 1)
        + private
        + struct.pack("<IHHI", 20, 0x12C, 3, 1)
        + direct
        + struct.pack("<HHI", 0x015E, 4, 3)
        + b"sig\x00"
    )
    mqf, end = decode_mqf(wire + b"next", 4, len(wire) + 4, [])
    assert end == len(wire) and mqf == MultiQueueFormat(
        [MQFElement(1, guid=DST)],
        [MQFElement(2, guid=QM, private_id=7)],
        [MQFElement(3, direct="d")],
        b"sig",
        (1, 2, 3, 4),
    )
    assert encode_mqf(mqf) == wire[4:]


@pytest.mark.parametrize(
    ("wire", "requirement", "offset", "message"),
    [
        (
            _address(0xC8, 0, b"")
            + _address(0xC8, 0, b"")
            + _address(0x12C, 0, b"")
            + _signature_part(b"s\x00\x00\x00", size=1),
            "MQMQ-2.2.20.1-1",
            4,
            "HeaderID is 0x00c8, expected 0x0064",
        ),
        (
            _address(0x64, 0, b"")
            + _address(0x64, 0, b"")
            + _address(0x12C, 0, b"")
            + _signature_part(b"s\x00\x00\x00", size=1),
            "MQMQ-2.2.20.1-1",
            16,
            "HeaderID is 0x0064, expected 0x00c8",
        ),
        (
            _address(0x64, 0, b"")
            + _address(0xC8, 0, b"")
            + _address(0xC8, 0, b"")
            + _signature_part(b"s\x00\x00\x00", size=1),
            "MQMQ-2.2.20.1-1",
            28,
            "HeaderID is 0x00c8, expected 0x012c",
        ),
        (
            EMPTY_ADDRESSES + _signature_part(b"s\x00\x00\x00", ident=0x15F, size=1),
            "MQMQ-2.2.20.3-1",
            36,
            "ID is 0x015f, not 0x015e",
        ),
    ],
    ids=["destination-id", "admin-id", "response-id", "signature-id"],
)
def test_an_mqf_part_with_the_wrong_id_is_a_finding_at_its_id(
    wire: bytes, requirement: str, offset: int, message: str
) -> None:
    """MQMQ-2.2.20.1-1 (the parts in order, each with its HeaderID) and 2.2.20.3-1 (the
    signature ID 0x015E): findings, the header still read; strict mode: the error."""
    wire = bytes(4) + wire
    found: list = []
    mqf, end = decode_mqf(wire, 4, len(wire), found)
    assert told(found) == [(requirement, 4 + offset, message)]
    assert (mqf.signature, end) == (b"s", len(wire))
    with pytest.raises(DecodeError) as strict:
        decode_mqf(wire, 4, len(wire))
    assert strict.value.violation == found[0]


@pytest.mark.parametrize(
    ("wire", "requirement", "offset", "message"),
    [
        (bytes(11), "MQMQ-2.2.19.1-3", 0, "an MQFAddressHeader needs 12 bytes, 11 left"),
        (
            _address(0x64, 0, b"", size=8),
            "MQMQ-2.2.20.2-1",
            0,
            "HeaderSize 8 does not fit the packet",
        ),
        (
            _address(0x64, 0, b"", size=11),
            "MQMQ-2.2.20.2-1",
            0,
            "HeaderSize 11 does not fit the packet",
        ),
        (
            _address(0x64, 0, bytes(2), size=14),
            "MQMQ-2.2.20.2-1",
            0,
            "HeaderSize 14 does not fit the packet",
        ),
        (
            _address(0x64, 0, bytes(3), size=16),
            "MQMQ-2.2.20.2-1",
            0,
            "HeaderSize 16 does not fit the packet",
        ),
        (
            _address(0x64, 3, bytes(4)),
            "MQMQ-2.2.20.2-1",
            8,
            "ElementCount 3 cannot fit HeaderSize 16",
        ),
        (
            _address(0x64, 2, struct.pack("<H", 3) + b"\x00\x00"),
            "MQMQ-2.2.20.2-1",
            16,
            "a FormatType needs 2 bytes, 0 left",
        ),
        (
            _address(0x64, 1, PUBLIC_ELEMENT + bytes(4)),
            "MQMQ-2.2.20.2-1",
            0,
            "HeaderSize is 36 but the header with its 1 elements takes 32",
        ),
        (
            _address(0x64, 0, bytes(4)),
            "MQMQ-2.2.20.2-1",
            0,
            "HeaderSize is 16 but the header with its 0 elements takes 12",
        ),
        (
            EMPTY_ADDRESSES[:-12],
            "MQMQ-2.2.19.1-3",
            24,
            "an MQFAddressHeader needs 12 bytes, 0 left",
        ),
        (
            EMPTY_ADDRESSES + bytes(7),
            "MQMQ-2.2.19.1-3",
            36,
            "an MQFSignatureHeader needs 8 bytes, 7 left",
        ),
        (
            EMPTY_ADDRESSES + _signature_part(b"abc", size=4),
            "MQMQ-2.2.20.3-2",
            40,
            "Size 4 runs past the packet",
        ),
        (
            EMPTY_ADDRESSES + _signature_part(b"abcde", size=6),
            "MQMQ-2.2.20.3-2",
            40,
            "Size 6 runs past the packet",
        ),
        (
            EMPTY_ADDRESSES + _signature_part(b"abcde"),
            "MQMQ-2.2.19.1-3",
            52,
            "the MQFSignatureHeader padding needs 0 bytes, 0 left",
        ),
    ],
    ids=[
        "fixed-short",
        "size-8",
        "size-11",
        "size-unaligned",
        "size-past-end",
        "count",
        "count-at-bound",
        "elements-short",
        "no-elements",
        "response-missing",
        "signature-short",
        "signature-size",
        "signature-past",
        "signature-padding",
    ],
)
def test_an_mqf_header_that_does_not_add_up_is_refused_in_words(
    wire: bytes, requirement: str, offset: int, message: str
) -> None:
    """MQMQ-2.2.19.1-3, 2.2.20.2-1 (HeaderSize counts the address header with its padding,
    each element fits it), 2.2.20.3-2 (the Signature fits the packet)."""
    assert refusal(decode_mqf, wire, 0, len(wire), []) == (requirement, offset, message)


def test_an_address_header_ends_exactly_at_the_packet_end() -> None:
    """HeaderSize may reach the last byte the packet has (2.2.20.2)."""
    wire = _address(0x64, 1, PUBLIC_ELEMENT)
    assert decode_address(wire, 0, len(wire), 0x64) == ([MQFElement(1, guid=DST)], 0, 32)
    direct = struct.pack("<H", 3) + b"\x00\x00"  # an empty direct name: 4 bytes, count 2 fits 16
    wire = _address(0xC8, 2, direct + direct, size=20)
    assert decode_address(wire, 0, 20, 0xC8)[0] == [MQFElement(3, direct="")] * 2


def test_an_mqf_header_is_written_with_its_ids_sizes_and_padding() -> None:
    mqf = MultiQueueFormat(
        admin=[MQFElement(3, direct="ab")], signature=b"12345", reserved=(5, 6, 7, 8)
    )
    direct = struct.pack("<H", 3) + "ab".encode("utf-16-le") + bytes(2)  # 8 bytes
    assert encode_mqf(mqf) == (
        struct.pack("<IHHI", 12, 0x64, 5, 0)
        + struct.pack("<IHHI", 20, 0xC8, 6, 1)
        + direct
        + struct.pack("<IHHI", 12, 0x12C, 7, 0)
        + struct.pack("<HHI", 0x015E, 8, 5)
        + b"12345"
        + bytes(3)
    )
    assert encode_address([MQFElement(3, direct="a")], 0xC8, 9) == (
        struct.pack("<IHHI", 20, 0xC8, 9, 1) + struct.pack("<H", 3) + b"a\x00\x00\x00" + bytes(2)
    )


def test_w07s_letter_writes_and_reads_a_public_guid_unpadded() -> None:
    """Errata W-07's letter: a public element's GUID right after its FormatType."""
    mqf = MultiQueueFormat(
        destination=[MQFElement(1, guid=DST)],
        admin=[MQFElement(1, guid=QM)],
        response=[MQFElement(1, guid=DST)],
    )
    wire = encode_mqf(mqf, letter=True)
    assert wire[:32] == struct.pack("<IHHI", 32, 0x64, 0, 1) + struct.pack(
        "<H", 1
    ) + DST.bytes_le + bytes(2)
    assert encode_address([MQFElement(1, guid=QM)], 0xC8, letter=True)[14:30] == QM.bytes_le
    letter = Letter(frozenset({"W-07"}))
    assert decode_mqf(wire, 0, len(wire), [], letter) == (mqf, len(wire))
    assert [(r.errata, r.offset) for r in letter.used] == [("W-07", 14), ("W-07", 46), ("W-07", 78)]
    reading, _ = decode_mqf(wire, 0, len(wire), [])  # the suite's reading: GUID at byte 16
    assert reading.destination[0].guid == uuid.UUID(bytes_le=wire[16:32]) != DST
    letter = Letter(frozenset({"W-07"}))
    decode_address(wire, 0, len(wire), 0x64, [], letter)
    assert [(r.errata, r.offset) for r in letter.used] == [("W-07", 14)]


def test_an_address_header_is_measured_from_its_own_start() -> None:
    """2.2.20.2: HeaderSize and the element layout count from the header's first byte,
    wherever the header stands in the packet."""
    wire = bytes(8) + _address(0x64, 1, PUBLIC_ELEMENT + bytes(4))
    assert refusal(decode_address, wire, 8, len(wire), 0x64) == (
        "MQMQ-2.2.20.2-1",
        8,
        "HeaderSize is 36 but the header with its 1 elements takes 32",
    )
    wire = bytes(8) + _address(0x64, 3, bytes(4))
    assert refusal(decode_address, wire, 8, len(wire), 0x64) == (
        "MQMQ-2.2.20.2-1",
        16,
        "ElementCount 3 cannot fit HeaderSize 16",
    )


@pytest.mark.parametrize(
    ("flags", "queues", "offset", "message"),
    [
        (_flags(), b"", 52, "the destination queue number needs 4 bytes, 0 left"),
        (_flags(aq=3), NUMBER_3, 56, "the admin queue number needs 4 bytes, 0 left"),
        (_flags(aq=3, rq=3), NUMBER_3 * 2, 60, "the response queue number needs 4 bytes, 0 left"),
    ],
    ids=["destination", "admin", "response"],
)
def test_a_missing_queue_field_is_named_by_its_queue(
    flags: int, queues: bytes, offset: int, message: str
) -> None:
    """MQMQ-2.2.19.1-3: the DQ, AQ and RQ codes ask for a field the packet does not hold."""
    wire = _user(flags, queues)
    assert refusal(decode_user_header, wire, 4, len(wire), []) == (
        "MQMQ-2.2.19.1-3",
        offset,
        message,
    )


def test_w06s_letter_of_rq_1_names_the_response_field_it_cannot_read() -> None:
    """W-06's letter of RQ 0x1: the ResponseQueue field laid out as AQ must fit the packet."""
    wire = _user(_flags(aq=3, rq=1), NUMBER_3 * 2)
    letter = Letter(frozenset({"W-06"}))
    assert refusal(decode_user_header, wire, 4, len(wire), [], letter) == (
        "MQMQ-2.2.19.1-3",
        60,
        "the response queue number needs 4 bytes, 0 left",
    )


# --- what the survivors of the mutation run showed ----------------------------------------------


def test_a_sid_authority_is_all_six_bytes_big_endian() -> None:
    """[MS-DTYP] 2.4.2.2: IdentifierAuthority is 6 bytes, most significant first."""
    raw = bytes((1, 0)) + bytes((1, 0, 0, 0, 0, 5))
    assert sid_text(raw) == f"S-1-{(1 << 40) + 5}"


def test_a_guid_with_high_bits_travels_as_unsigned_sub_authorities() -> None:
    """The suite's SID shape: the four sub-authorities are unsigned 32-bit words."""
    guid = uuid.UUID("ffffffff-ffff-ffff-ffff-fffffffffffe")
    sid = sid_for_guid(guid)
    assert sid_text(sid) == "S-1-5-21-4294967295-4294967295-4294967295-4278190079"
    assert guid_for_sid(sid) == guid


def test_a_value_no_enum_lists_reaches_the_envelope_by_its_number() -> None:
    """mapping.py: an unlisted HashAlgorithm or MessageClass becomes a pseudo-member named by
    its number (values no other test uses, so none is cached before this one)."""
    packet = envelope_to_packet(_envelope())
    for kind, value in ((HashAlgorithm, 0x5EED1234), (MessageClass, 0x0177)):
        kind._value2member_map_.pop(value, None)  # met here for the first time in the process
    properties = replace(packet.properties, hash_algorithm=0x5EED1234, message_class=0x0177)
    envelope, _ = packet_to_envelope(replace(packet, properties=properties))
    assert (int(envelope.hash_algorithm), envelope.hash_algorithm.name) == (
        0x5EED1234,
        "0x5eed1234",
    )
    assert (int(envelope.message_class), envelope.message_class.name) == (0x0177, "0x177")


def test_the_destination_format_name_takes_its_hosts_from_the_user_header() -> None:
    """The destination's format name: a private queue number is on the queue manager the
    UserHeader names (code 2: SourceQueueManager, 3: QueueManagerAddress)."""
    packet = envelope_to_packet(_envelope())
    assert packet.user.destination == QueueFormat(3, private_id=3)
    for code, host in ((2, QM), (3, DST)):
        user = replace(packet.user, destination=QueueFormat(code, private_id=0xA))
        envelope, _ = packet_to_envelope(replace(packet, user=user))
        assert envelope.destination_format_name == f"PRIVATE={host}\\a"


def test_a_label_starting_with_0x0000_has_a_0x0000_before_its_end() -> None:
    """MQMQ-2.2.19.3-2: the first code unit 0x0000 of a longer Label is not its terminator."""
    wire = _props(label_length=2, data=b"\x00\x00a\x00")
    found: list = []
    decode_properties(wire, 0, len(wire), found)
    assert told(found) == [("MQMQ-2.2.19.3-2", 56, "the Label has a 0x0000 before its end")]


def test_a_label_with_a_lone_surrogate_is_written_and_read_back() -> None:
    """The Label is UTF-16 code units as they are: a lone surrogate travels unchanged."""
    properties = MessageProperties(label="a\ud800")
    wire = encode_properties(properties)
    assert wire[56:62] == b"a\x00\x00\xd8\x00\x00"
    assert decode_properties(wire, 0, len(wire), [])[0] == properties


@pytest.mark.parametrize(
    ("aq", "rq", "letter"),
    [(7, 0, Letter()), (3, 7, Letter()), (7, 1, Letter(frozenset({"W-06"})))],
    ids=["admin", "response", "w06-response-copy"],
)
def test_a_direct_queue_name_is_padded_from_the_user_headers_start(
    aq: int, rq: int, letter: Letter
) -> None:
    """2.2.19.2: a DirectQueueFormatName is padded to 4 bytes counted from the UserHeader's
    first byte (here 4 bytes into the buffer), in each queue field, W-06's copy included."""
    name = "a".encode("utf-16-le") + bytes(2)
    direct = struct.pack("<H", len(name)) + name + bytes(2)  # 2 + 4 + 2 padding
    queues = NUMBER_3 + (direct if aq == 7 else NUMBER_3) + (b"" if rq == 0 else direct)
    wire = _user(_flags(aq=aq, rq=rq), queues)
    header, end = decode_user_header(wire, 4, len(wire), [], letter)
    assert end == len(wire)
    queue = header.admin if aq == 7 else header.response
    assert queue == QueueFormat(7, direct="a")


def test_an_address_header_is_written_unreserved_and_padded_by_default() -> None:
    """encode_address: Reserved 0 and the suite's reading of W-07 (a public GUID at the next
    4-byte boundary) unless the caller says otherwise."""
    assert encode_address([MQFElement(1, guid=DST)], 0x64) == _address(0x64, 1, PUBLIC_ELEMENT)


def test_an_address_header_holds_every_element_of_its_list() -> None:
    """2.2.20.2: ElementCount elements back to back, each laid out where the last ended."""
    elements = [MQFElement(3, direct="a"), MQFElement(2, guid=QM, private_id=5)]
    wire = encode_address(elements, 0x64)
    private = struct.pack("<H", 2) + QM.bytes_le + struct.pack("<I", 5)  # GUID at byte 20
    assert wire == _address(0x64, 2, struct.pack("<H", 3) + b"a\x00\x00\x00" + private)
    assert decode_address(wire, 0, len(wire), 0x64) == (elements, 0, len(wire))
