"""One judge of one UserMessage (mqcn_model.wire.judgement), used by decode --packet and the
capture reader: destination alone decides, wire and envelope findings, nothing set aside.

* every wire value rule broken in a UserMessage: ``mqcn decode --packet`` shows the packet
  and the finding;
* a notification signed with MD5, SHA-256 or not at all is judged, with the envelope
  finding the 3.3.5.3 sender rules give (MD5 is MSMQ 1.0/2.0's hash: a finding only for a
  sender known to be another version);
* decode --packet and the stream framer give the judgement of the same function.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest
from capture_helpers import QM, envelope, user_message
from test_wire_codec import BROKEN, VALUE_IDS

from mqcn_model.builders import v2_notification
from mqcn_model.capture.records import Message
from mqcn_model.capture.stream import StreamFramer
from mqcn_model.codec import body_buffer
from mqcn_model.constants import (
    AuthLevel,
    DeliveryGuarantee,
    Event,
    HashAlgorithm,
    MessageClass,
    SenderIdType,
)
from mqcn_model.envelope import MessageId
from mqcn_model.errata import LENIENT, STRICT
from mqcn_model.sending import RULES
from mqcn_model.wire import decode_user_message, encode_user_message, envelope_to_packet
from mqcn_model.wire import judgement as J
from mqcn_model.wire.queues import QueueFormat
from mqcn_model.wire.usermessage import UserMessage

QUEUE = uuid.UUID(int=0x51)
BODY = body_buffer(v2_notification(Event.CREATE_QUEUE, QUEUE, "dc01"))
USER_MESSAGE_VALUE_RULES = [r for r in VALUE_IDS if BROKEN[r][1] is decode_user_message]


@pytest.mark.parametrize("requirement", USER_MESSAGE_VALUE_RULES)
def test_decode_packet_shows_a_packet_breaking_a_value_rule_with_the_finding(
    requirement: str,
) -> None:
    data = BROKEN[requirement][0]()
    verdict = J.judge_packet_bytes(data)
    assert verdict.packet is not None and verdict.refused is None
    assert requirement in [v.requirement for v in verdict.violations]
    # the body is judged as MS-MQCN's only on its way to a notification queue (issue 35)
    notification = verdict.judgement is not None and verdict.judgement.notification_queue
    assert (verdict.envelope is not None and verdict.body is not None) == notification
    assert not verdict.conforming


def signed_with(level: AuthLevel, hash_algorithm: HashAlgorithm | None) -> bytes:
    sent = envelope(7, BODY, authentication_level=level, hash_algorithm=hash_algorithm)
    return encode_user_message(envelope_to_packet(sent))


@pytest.mark.parametrize(
    ("level", "hash_algorithm", "findings", "as_msmq_6"),
    [
        (AuthLevel.Sig20, HashAlgorithm.MD5, [], ["MQCN-3.3.5.3-5"]),
        (AuthLevel.Sig20, HashAlgorithm.SHA256, ["MQCN-3.3.5.3-5"], ["MQCN-3.3.5.3-5"]),
        (AuthLevel.None_, HashAlgorithm.SHA512, ["MQCN-3.3.5.3-6"], ["MQCN-3.3.5.3-6"]),
        (AuthLevel.None_, None, ["MQCN-3.3.5.3-5", "MQCN-3.3.5.3-6"], None),
    ],
    ids=["md5", "sha256", "unsigned", "unsigned-no-hash"],
)
def test_a_notification_signed_with_any_hash_or_not_at_all_is_judged(
    level: AuthLevel,
    hash_algorithm: HashAlgorithm | None,
    findings: list[str],
    as_msmq_6: list[str] | None,
) -> None:
    packet, _ = decode_user_message(signed_with(level, hash_algorithm))
    found = J.judge_user_message(packet)
    assert found.notification_queue and found.wire == ()
    assert found.envelope.hash_algorithm is hash_algorithm
    assert found.envelope.authentication_level is level
    assert found.body is not None and found.body.conforming
    assert [f.requirement for f in found.envelope_findings] == findings
    assert all(f.offset is None and f.message for f in found.envelope_findings)
    if as_msmq_6 is not None:
        known = J.judge_user_message(packet, msmq_version="6.0")
        assert [f.requirement for f in known.envelope_findings] == as_msmq_6


def test_the_destination_alone_decides_whatever_the_values() -> None:
    """A Report-class, recoverable message with an unlisted HashAlgorithm, sent to the
    notification queue, is judged as a notification (with its findings); the same message
    to another queue is not."""
    sent = envelope(
        8,
        BODY,
        message_class=MessageClass.Report,
        delivery_guarantee=DeliveryGuarantee.Recoverable,
        hash_algorithm=HashAlgorithm(0x800D),
    )
    packet, _ = decode_user_message(encode_user_message(envelope_to_packet(sent)))
    found = J.judge_user_message(packet)
    assert found.notification_queue and found.body is not None and found.body.conforming
    assert found.envelope.hash_algorithm.name == "0x800d"
    assert [f.requirement for f in found.findings] == [
        "MQMQ-2.2.19.3-8",  # signed, but 0x800D is no 2.2.19.3 HashAlgorithm
        "MQCN-3.3.5.3-3",
        "MQCN-3.3.5.3-4",
        "MQCN-3.3.5.3-5",
    ]
    elsewhere = replace(sent, destination_format_name=f"PRIVATE={QM}\\4")
    assert not J.judge_user_message(envelope_to_packet(elsewhere)).notification_queue


def test_only_notifications_judges_a_packet_to_another_queue_no_further_than_its_destination() -> (
    None
):
    """The framer's call: a packet to another queue keeps its destination for the record's
    note and gets no envelope, findings or body verdict; a notification is judged whole."""
    sent = envelope(8, BODY, hash_algorithm=HashAlgorithm(0x800D))
    elsewhere = envelope_to_packet(replace(sent, destination_format_name=f"PRIVATE={QM}\\4"))
    other = J.judge_user_message(elsewhere, only_notifications=True)
    assert (other.notification_queue, other.envelope, other.findings, other.body) == (
        False,
        None,
        (),
        None,
    )
    assert other.destination == f"PRIVATE={QM}\\4"
    assert J.judge_user_message(elsewhere).envelope is not None  # decode --packet: judged whole
    notification = J.judge_user_message(envelope_to_packet(sent), only_notifications=True)
    assert notification == J.judge_user_message(envelope_to_packet(sent))


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"message_id": MessageId(QM, 0)},
        {"time_to_reach_queue": 60},
        {"sender_identifier_type": SenderIdType.Sid, "body": b"\x01\x00"},
        {"sender_identifier_type": SenderIdType(9)},
        {"authentication_level": AuthLevel.Sig10},
        {"authentication_level": AuthLevel.Sig30, "hash_algorithm": HashAlgorithm.SHA1},
        {"message_class": MessageClass(0x123), "destination_format_name": "DIRECT=OS:x\\q"},
        {"hash_algorithm": None, "body": b""},
    ],
)
def test_remembered_envelope_findings_are_those_of_the_rules(changes: dict[str, object]) -> None:
    """:func:`envelope_findings` remembers its answer per attribute set the envelope rules
    read, so the answer is the rules' own."""
    sent = replace(envelope(3), **changes)  # type: ignore[arg-type]
    for readings in (STRICT, LENIENT):
        assert J.envelope_findings(sent, readings) == J.judge_envelope(sent, readings)
        assert J.envelope_findings(sent, readings, "1.0") == J.judge_envelope(
            sent, readings, ("1.0",)
        )


# Each attribute the envelope rules read, with values the rules judge differently: judged one
# after another with a cold memory, a memory keyed without that attribute (or keyed wrongly)
# answers the second with the first's findings.
_ONE_AFTER_ANOTHER = {
    "body": [b"\x02\x01", b"\x01\x00", b""],
    "message_id": [
        MessageId(QM, 1),
        MessageId(QM, 0),
        MessageId(QM, 0xFFFF_FFFF),
        MessageId(QM, 2),
    ],
    "sender_identifier_type": [SenderIdType.QueueManagerIdentifier, SenderIdType.Sid],
    "authentication_level": [AuthLevel.Sig20, AuthLevel.None_, AuthLevel.Sig10],
    "time_to_reach_queue": [300, 60],
    "delivery_guarantee": [DeliveryGuarantee.Express, DeliveryGuarantee.Recoverable],
    "message_class": [MessageClass.Normal, MessageClass(0x123)],
    "hash_algorithm": [HashAlgorithm.SHA512, HashAlgorithm.MD5, None],
}


@pytest.mark.parametrize("attribute", sorted(_ONE_AFTER_ANOTHER))
def test_the_memory_of_envelope_findings_tells_apart_every_attribute_the_rules_read(
    attribute: str,
) -> None:
    """Millions of captured messages are judged from memory: two envelopes differing in one
    attribute a 3.3.5.3 rule reads (under any readings, sender version or none) never share an
    answer, whichever was judged first."""
    values = _ONE_AFTER_ANOTHER[attribute]
    base = envelope(3).with_(body=b"\x01\x00", sender_identifier_type=SenderIdType.Sid)
    for first in values:
        for second in values:
            for readings, version in ((STRICT, None), (LENIENT, None), (STRICT, "6.0")):
                J.forget()
                versions = J.MSMQ_VERSIONS if version is None else (version,)
                for value in (first, second):
                    sent = base.with_(**{attribute: value})
                    assert J.envelope_findings(sent, readings, version) == J.judge_envelope(
                        sent, readings, versions
                    ), (attribute, first, second, readings, version)


def test_the_memory_tells_apart_readings_and_sender_versions() -> None:
    """The answer for MD5 under every MSMQ version (none: MSMQ 2.0 hashes so) is not the
    answer for a sender known to be MSMQ 6.0, nor the reverse; nor one readings' for another's."""
    md5 = envelope(3).with_(hash_algorithm=HashAlgorithm.MD5, time_to_reach_queue=60)
    for order in ((None, "6.0"), ("6.0", None)):
        J.forget()
        said = [J.envelope_findings(md5, STRICT, version) for version in order]
        assert said == [
            J.judge_envelope(md5, STRICT, J.MSMQ_VERSIONS if v is None else (v,)) for v in order
        ]
        assert said[0] != said[1]
    for order in ((STRICT, LENIENT), (LENIENT, STRICT)):
        J.forget()
        said = [J.envelope_findings(md5, readings) for readings in order]
        assert said == [J.judge_envelope(md5, readings) for readings in order]


def test_the_memory_of_envelope_findings_is_bounded() -> None:
    """However many attribute sets a capture holds, the memory keeps at most _REMEMBERED
    answers (then starts again), and every answer stays the rules' own."""
    sizes = []
    for ttrq in range(J._REMEMBERED + 2):
        sent = envelope(3).with_(time_to_reach_queue=ttrq)
        assert J.envelope_findings(sent) == J.judge_envelope(sent, STRICT)
        sizes.append(len(J._FINDINGS))
    assert max(sizes) == J._REMEMBERED
    assert sizes[-2:] == [1, 2]  # full at _REMEMBERED: cleared before the next is kept


def test_the_envelope_rules_are_the_3353_rules_a_message_alone_can_be_judged_by() -> None:
    """A captured message is judged by the 3.3.5.3 sender rules that read its attributes
    only: not those that decode the body, name an operation the client was asked for, or are
    a Windows product note (no captured sender's product is known)."""
    assert [r.requirement for r in J.ENVELOPE_RULES] == [
        f"MQCN-3.3.5.3-{n}" for n in (1, 2, 3, 4, 5, 6, 12, 13)
    ]
    assert all(not r.decoded and r.operations is None for r in J.ENVELOPE_RULES)
    assert all(not r.product_note for r in J.ENVELOPE_RULES)
    assert [r for r in RULES if J._judges_the_envelope_alone(r)] == list(J.ENVELOPE_RULES)


def test_what_the_memory_drops_no_envelope_rule_reads() -> None:
    """The memory's premise: with no scenario to say which client or queue, the envelope rules
    read neither the message id's GUID, its ordinal (but whether it is 0), the destination,
    the sender's identifier, the arrival time nor the body past its Version byte."""
    base = envelope(3).with_(body=b"\x01\x00", sender_identifier_type=SenderIdType.Sid)
    other = base.with_(
        body=b"\x01\xff\xff",
        message_id=MessageId(uuid.UUID(int=0x77), 0xFFFF_FFFF),
        destination_format_name="DIRECT=OS:elsewhere\\orders",
        sender_identifier=uuid.UUID(int=0x78),
        arrival_time=99.0,
    )
    for readings, versions in ((STRICT, J.MSMQ_VERSIONS), (LENIENT, ("6.0",))):
        assert J.judge_envelope(other, readings, versions) == J.judge_envelope(
            base, readings, versions
        )


def test_an_attribute_set_judged_once_is_answered_from_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A capture's millions of messages share a few attribute sets: the rules run once per
    set (messages differing only in what the rules do not read share it)."""
    calls: list[object] = []
    rules = J.judge_envelope

    def counted(*args: object) -> object:
        calls.append(args[0])
        return rules(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(J, "judge_envelope", counted)
    first = envelope(3)
    same_set = [
        first,
        first.with_(body=first.body[:1] + b"\xff"),
        first.with_(message_id=MessageId(QM, 2)),
        first.with_(message_id=MessageId(QM, 0xFFFF_FFFF)),
        first.with_(destination_format_name="DIRECT=OS:x\\q", arrival_time=5.0),
    ]
    answers = {J.envelope_findings(e) for e in same_set}
    assert len(calls) == 1 and len(answers) == 1
    J.envelope_findings(first.with_(message_id=MessageId(QM, 0)))
    assert len(calls) == 2


def test_a_version_1_message_is_judged_by_the_version_1_sender_rules() -> None:
    """MQCN-3.3.5.3-12: a Version 0x01 notification names its sender by the queue manager's
    identifier; the rule judges a captured message whose body says Version 0x01 (and no
    other: a Version 0x02 message or an empty body is not judged by it)."""
    sid = envelope(3).with_(sender_identifier_type=SenderIdType.Sid)
    judged = {
        body: [v.requirement for v in J.judge_envelope(sid.with_(body=body), STRICT)]
        for body in (b"\x01\x00", b"\x02\x01", b"")
    }
    assert "MQCN-3.3.5.3-12" in judged[b"\x01\x00"]
    assert "MQCN-3.3.5.3-12" not in judged[b"\x02\x01"]
    assert "MQCN-3.3.5.3-12" not in judged[b""]


def test_one_requirement_broken_under_each_version_says_each_way_it_is() -> None:
    """A HashAlgorithm no MSMQ version uses is one finding of MQCN-3.3.5.3-5, naming what
    each version uses, the problems joined by " / "."""
    (found,) = J.judge_envelope(envelope(3).with_(hash_algorithm=HashAlgorithm.SHA256), STRICT)
    parts = found.message.split(" / ")
    assert found.requirement == "MQCN-3.3.5.3-5" and len(parts) >= 2
    assert all(p.startswith("HashAlgorithm is SHA256, MSMQ ") for p in parts), parts


@pytest.mark.parametrize(
    ("name", "notification"),
    [
        (f"PRIVATE={QM}\\3", True),
        ("DIRECT=OS:dc01\\PRIVATE$\\Notify_Queue$", True),  # any case (1.9)
        ("DIRECT=TCP:10.0.0.1\\private$\\notify_queue$", True),
        ("DIRECT=OS:dc01\\private$\\orders", False),  # a DIRECT name to another queue
        ("OS:dc01\\private$\\notify_queue$", False),  # the path, but no DIRECT= name
        (f"PRIVATE={QM}\\4", False),
        (f"PRIVATE={uuid.UUID(int=0x99)}\\3", False),  # queue 3 of another queue manager
    ],
)
def test_the_notification_queue_by_its_format_name(name: str, notification: bool) -> None:
    """MS-MQCN 1.9 / 3.2.1.2.1: the notification queue is queue 3 of the queue manager
    addressed, or a DIRECT name ending in private$\\notify_queue$ (any case)."""
    assert J.is_notification_queue(name, str(QM)) is notification


_SOURCE = uuid.UUID(int=0x5C)


def _addressed(destination: QueueFormat, source: uuid.UUID = _SOURCE) -> UserMessage:
    packet = envelope_to_packet(envelope(3))
    return replace(packet, user=replace(packet.user, destination=destination, source_qm=source))


def test_a_destination_relative_to_the_source_is_named_by_the_source_queue_manager() -> None:
    """[MS-MQMQ] 2.1: a PrivateQueueFormatNameId of type 2 names a queue of the sending queue
    manager (SourceQueueManager), of type 3 one of the queue manager addressed."""
    source = _SOURCE
    assert J.destination_of(_addressed(QueueFormat(2, private_id=4), source)) == (
        f"PRIVATE={source}\\4"
    )
    assert J.destination_of(_addressed(QueueFormat(3, private_id=4), source)) == f"PRIVATE={QM}\\4"


def test_queue_3_of_the_queue_manager_addressed_named_by_its_guid_is_the_notification_queue() -> (
    None
):
    """Whatever form names it: queue 3 of the queue manager the packet is addressed to, by
    its GUID (code 6, a wire finding as a destination, judged all the same), is the
    notification queue; queue 3 of another queue manager is not."""
    by_guid = _addressed(QueueFormat(6, private_id=3, guid=QM))
    assert J.goes_to_a_notification_queue(by_guid)
    assert J.judge_user_message(by_guid).notification_queue
    other = _addressed(QueueFormat(6, private_id=3, guid=uuid.UUID(int=0x99)))
    assert not J.goes_to_a_notification_queue(other)


def test_a_judgement_keeps_the_packet_its_destination_and_the_arrival_time_given() -> None:
    """What ``mqcn decode --packet`` and the audit print of a judged packet: the packet
    itself, its destination, the Envelope's arrival time (0 when none is given), and the
    body verdict only when asked for."""
    packet = envelope_to_packet(envelope(3))
    for only in (False, True):
        judged = J.judge_user_message(packet, only_notifications=only)
        assert judged.packet is packet and judged.destination == f"PRIVATE={QM}\\3"
        assert judged.envelope is not None and judged.envelope.arrival_time == 0.0
    elsewhere = _addressed(QueueFormat(3, private_id=4))
    assert J.judge_user_message(elsewhere, only_notifications=True).packet is elsewhere
    assert J.judge_user_message(packet, arrival_time=12.5).envelope.arrival_time == 12.5
    assert J.judge_user_message(packet, judge_body=False).body is None
    assert J.judge_user_message(packet).body is not None


def test_a_signature_stands_for_the_level_the_caller_assumes() -> None:
    """[MS-MQQB] 3.1.5.8.3: the wire does not say whether a signature is MSMQ 1.0's or 2.0's;
    the judge takes the caller's word (Sig10 for an MSMQ 1.0 sender) and judges by it."""
    packet = envelope_to_packet(envelope(3))
    assert packet.security is not None and packet.security.signature
    as10 = J.judge_user_message(packet, signed_as=AuthLevel.Sig10, msmq_version="6.0")
    assert as10.envelope.authentication_level is AuthLevel.Sig10
    assert "MQCN-3.3.5.3-6" in [f.requirement for f in as10.envelope_findings]
    assert not J.judge_user_message(packet, msmq_version="6.0").envelope_findings
    assert J.judge_user_message(packet).envelope.authentication_level is AuthLevel.Sig20


@pytest.mark.parametrize(("extra", "words"), [(1, "1 byte follows"), (2, "2 bytes follow")])
def test_bytes_after_the_packet_are_counted_in_words(extra: int, words: str) -> None:
    """MQMQ-2.2.19.1-3: the finding says how many bytes follow the packet and where it ends."""
    packet = user_message(envelope(3))
    verdict = J.judge_packet_bytes(packet + b"\0" * extra)
    assert verdict.trailing is not None
    assert verdict.trailing.message.startswith(
        f"{words} the packet, which ends at byte {len(packet)}"
    )
    assert verdict.size == len(packet) + extra


def test_refused_bytes_keep_their_size() -> None:
    assert J.judge_packet_bytes(b"\x10\x00").size == 2


def test_decode_packet_and_the_capture_reader_use_the_one_judge() -> None:
    wire = signed_with(AuthLevel.Sig20, HashAlgorithm.SHA256)
    packet, _ = decode_user_message(wire)
    expected = J.judge_user_message(packet)
    assert J.judge_packet_bytes(wire).judgement == expected
    out: list[object] = []
    framer = StreamFramer("c.pcap", "a -> b", out, mid_session=True)  # no handshake to miss
    framer.data(wire, 1, 5.0)
    (message,) = out
    assert isinstance(message, Message)
    assert message.findings == expected.findings
    assert message.envelope == replace(expected.envelope, arrival_time=5.0)


def test_bytes_after_a_whole_packet_are_a_finding_on_it_not_a_refusal() -> None:
    """decode --packet: a packet followed by bytes is decoded and judged; the extra bytes are
    one PacketSize finding at the packet's end (the packet itself still judged)."""
    from pathlib import Path

    sample = Path(__file__).resolve().parent.parent / "reference_vectors" / "samples"
    packet = (sample / "v1-queue-creation.packet.bin").read_bytes()
    clean = J.judge_packet_bytes(packet)
    assert clean.trailing is None and clean.conforming
    verdict = J.judge_packet_bytes(packet + b"\x00\x01\x02")
    assert verdict.refused is None and verdict.judgement is not None
    assert verdict.trailing is not None and verdict.trailing.offset == len(packet)
    assert "3 bytes follow the packet" in verdict.trailing.message
    assert verdict.trailing in verdict.violations and not verdict.conforming


# --- issue 22, third pass: the sample of wire/judgement.py (docs/mutation.md) ------------------


def _vector_body(tc_id: int) -> bytes:
    """The body of case ``tc_id`` of reference_vectors/change_notification_message_test.json."""
    import json
    from pathlib import Path

    path = Path(__file__).parent.parent / "reference_vectors/change_notification_message_test.json"
    groups = json.loads(path.read_text())["testGroups"]
    (found,) = [t for g in groups for t in g["tests"] if t["tcId"] == tc_id]
    return bytes.fromhex(found["msg"])


def test_the_bytes_judge_judges_the_body_by_the_readings_given() -> None:
    """``judge_packet_bytes`` passes its readings to the body's judge: a body that breaks a
    rule only under the strict reading (a count mismatch, vector 22) conforms under the
    lenient one.  (The mutant that drops the readings judges every packet strictly.)"""
    raw = encode_user_message(envelope_to_packet(envelope(7, _vector_body(22))))
    strict, lenient = J.judge_packet_bytes(raw, STRICT), J.judge_packet_bytes(raw, LENIENT)
    assert strict.body is not None and lenient.body is not None
    assert (strict.body.conforming, lenient.body.conforming) == (False, True)


def test_refused_bytes_have_the_refusal_as_their_one_violation_and_no_envelope() -> None:
    """Bytes whose structure cannot be read: the refusal is the verdict's one violation, and
    there is no envelope, finding or destination to speak of.  (The mutants of the verdict's
    properties that invert their ``is None`` tests.)"""
    refused = J.judge_packet_bytes(b"\x10\x00")
    assert refused.refused is not None and refused.violations == (refused.refused,)
    assert refused.envelope_findings == () and refused.notification_queue is None
    assert not refused.conforming


def test_a_judged_packet_gives_its_envelope_findings_and_its_destination() -> None:
    """A packet read whole: its envelope findings and whether it goes to a notification queue
    come from its judgement."""
    unsigned = envelope(7, BODY, authentication_level=AuthLevel.None_, hash_algorithm=None)
    verdict = J.judge_packet_bytes(encode_user_message(envelope_to_packet(unsigned)))
    assert verdict.notification_queue is True
    found = [f.requirement for f in verdict.envelope_findings]
    assert found == ["MQCN-3.3.5.3-5", "MQCN-3.3.5.3-6"]


def test_a_private_queue_3_destination_is_known_without_building_its_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``PRIVATE=<the queue manager addressed>\\3`` is a notification queue at once; only other
    destinations build their format name.  (The mutants of the fast path send every packet
    down the general one: the same answer, slower; here the general one fails.)"""
    packet = envelope_to_packet(envelope(7, BODY))
    destination = packet.user.destination
    assert destination is not None and (destination.code, destination.private_id) == (3, 3)

    def no_general_path(*_args: object) -> bool:
        raise AssertionError("the general path was taken")

    monkeypatch.setattr(J, "is_notification_queue", no_general_path)
    assert J.goes_to_a_notification_queue(packet) is True
