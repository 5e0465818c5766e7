"""OrderAck and FinalAck Packets ([MS-MQQB] 2.2.4, 2.2.5): each broken rule is a finding with
its requirement, **its byte** and its words -- what a vendor reads to find the fault.

The offsets are the layout's ([MS-MQMQ] 2.2.19): BaseHeader.Flags at byte 2, UserHeader at 16
(its Flags at 60, its DestinationQueue at 64), the acknowledgment body found in the packet by
its bytes; TxSequenceNumber is the body's byte 8.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest
from test_wire_codec import final_ack, order_ack

from mqcn_model.errors import DecodeError
from mqcn_model.wire.acks import (
    FinalAckBody,
    OrderAckBody,
    decode_final_ack_body,
    decode_order_ack_body,
    encode_final_ack_body,
    encode_order_ack_body,
)
from mqcn_model.wire.common import NIL
from mqcn_model.wire.queues import QueueFormat
from mqcn_model.wire.usermessage import (
    UserMessage,
    decode_user_message,
    encode_user_message,
    finalize,
)

ACK_RULES = ("MQQB-2.2.4", "MQQB-2.2.5")


def findings(message: UserMessage) -> list[tuple[str, int | None, str]]:
    wire = encode_user_message(finalize(message))
    packet, _ = decode_user_message(wire)
    return [
        (f.requirement, f.offset, f.message)
        for f in packet.findings
        if f.requirement.startswith(ACK_RULES)
    ]


def body_offset(message: UserMessage) -> int:
    """Where the acknowledgment body lies in the packet (found by its bytes)."""
    wire = encode_user_message(finalize(message))
    return wire.index(message.properties.body)


def test_well_formed_acknowledgments_have_no_finding() -> None:
    assert findings(order_ack()) == [] and findings(final_ack()) == []


def test_base_header_flags_other_than_sh_are_named_at_byte_2() -> None:
    ack = order_ack()
    bad = replace(ack, base=replace(ack.base, flags=ack.base.flags | 0x0002))
    ((rule, at, said),) = findings(bad)
    assert (rule, at) == ("MQQB-2.2.4-1", 2)
    assert said == f"BaseHeader.Flags is 0x{bad.base.flags:04x}, not 0"


@pytest.mark.parametrize(
    ("make", "tail"),
    [
        (order_ack, "expected only MP besides DQ 3 or 7"),
        (final_ack, "expected only MP and DM 1 besides DQ 3 or 7"),
    ],
    ids=["order", "final"],
)
def test_user_flags_beyond_mp_are_named_at_byte_60(make, tail: str) -> None:
    ack = make()
    bad = replace(ack, user=replace(ack.user, flags=ack.user.flags | 1 << 31))
    kind = "OrderAck" if make is order_ack else "FinalAck"
    found = [f for f in findings(bad) if f[0] == "MQQB-2.2.4-2"]
    assert found == [
        ("MQQB-2.2.4-2", 60, f"{kind} UserHeader.Flags is 0x{bad.user.flags:08x}: {tail}")
    ]


def test_an_order_ack_to_another_queue_is_named_at_byte_64() -> None:
    assert findings(order_ack(destination=QueueFormat(3, private_id=5))) == [
        ("MQQB-2.2.4-3", 64, "private queue 5, not 4")
    ]
    name = "TCP:10.0.0.1\\private$\\orders"
    assert findings(order_ack(destination=QueueFormat(7, direct=name), qm=NIL)) == [
        ("MQQB-2.2.4-3", 64, f"{name!r} is not an order queue name")
    ]
    good = "TCP:10.0.0.1\\PRIVATE$\\order_queue$"
    assert findings(order_ack(destination=QueueFormat(7, direct=good), qm=NIL)) == []


def test_the_properties_header_problems_are_listed_together_at_its_start() -> None:
    ack = order_ack()
    bad = replace(ack, properties=replace(ack.properties, flags=0x01, body_type=3))
    wire = encode_user_message(finalize(bad))
    start = decode_user_message(wire)[0].properties.offset
    assert findings(bad) == [
        ("MQQB-2.2.4-4", start, "OrderAck MessagePropertiesHeader has Flags 0x01, BodyType 3")
    ]


@pytest.mark.parametrize(
    ("number", "previous", "broken"),
    [(0, 0, True), (1, 0, False), (2, 1, False), (2, 0, True), (5, 5, True)],
)
def test_an_order_ack_body_numbers_its_sequence_at_body_byte_8(
    number: int, previous: int, broken: bool
) -> None:
    ack = order_ack()
    body = encode_order_ack_body(OrderAckBody(7, 8, number, previous))
    bad = replace(ack, properties=replace(ack.properties, body=body))
    expected = [
        (
            "MQQB-2.2.4.1-1",
            body_offset(bad) + 8,
            f"TxSequenceNumber {number} with TxPreviousSequenceNumber {previous}",
        )
    ]
    assert findings(bad) == (expected if broken else [])


@pytest.mark.parametrize(
    ("number", "previous", "broken"),
    [(0, 0, True), (1, 0, False), (2, 0xFFFFFFFE, False), (2, 0xFFFFFFFF, True)],
)
def test_a_final_ack_body_numbers_its_sequence_at_body_byte_8(
    number: int, previous: int, broken: bool
) -> None:
    ack = final_ack()
    body = encode_final_ack_body(FinalAckBody(7, 8, number, previous))
    bad = replace(ack, properties=replace(ack.properties, body=body))
    expected = [
        (
            "MQQB-2.2.5.1-1",
            body_offset(bad) + 8,
            f"TxSequenceNumber {number} with TxPreviousSequenceNumber {previous}",
        )
    ]
    assert findings(bad) == (expected if broken else [])


def test_the_body_is_found_after_the_label_and_the_extension() -> None:
    """[MS-MQMQ] 2.2.19.3: the body follows the 56-byte header, the Label (2 bytes a
    character) and the Extension; a finding in it is placed there."""
    ack = order_ack()
    body = encode_order_ack_body(OrderAckBody(7, 8, 0, 0))
    bad = replace(ack, properties=replace(ack.properties, body=body, extension=b"\x01\x02\x03\x04"))
    ((rule, at, _),) = findings(bad)
    assert (rule, at) == ("MQQB-2.2.4.1-1", body_offset(bad) + 8)


def test_an_order_ack_body_is_read_whole() -> None:
    body = encode_order_ack_body(OrderAckBody(7, 8, 5, 4, bytes(range(20))))
    assert decode_order_ack_body(body, 0) == OrderAckBody(7, 8, 5, 4, bytes(range(20)))


@pytest.mark.parametrize(
    ("decode", "kind"), [(decode_order_ack_body, "OrderAck"), (decode_final_ack_body, "FinalAck")]
)
def test_a_body_not_0x24_bytes_is_refused_at_its_offset(decode, kind: str) -> None:
    with pytest.raises(DecodeError) as info:
        decode(bytes(35), 100)
    violation = info.value.violation
    assert (violation.requirement, violation.offset) == ("MQQB-2.2.4-4", 100)
    assert violation.message == f"the {kind} body is 35 bytes, not 0x24"


@pytest.mark.parametrize(
    ("destination", "qm", "kind"),
    [
        (QueueFormat(3, private_id=4), None, "FinalAck"),
        (QueueFormat(3, private_id=5), None, "UserMessage"),
        (QueueFormat(7, direct="TCP:10.0.0.1\\PRIVATE$\\order_queue$"), NIL, "FinalAck"),
        (QueueFormat(7, direct="tcp:10.0.0.1\\private$\\ORDER_QUEUE$"), NIL, "FinalAck"),
        (QueueFormat(7, direct="TCP:10.0.0.1\\private$\\orders"), NIL, "UserMessage"),
        (QueueFormat(5, guid=uuid.UUID(int=9)), None, "UserMessage"),
    ],
    ids=["private-4", "private-5", "direct", "direct-any-case", "direct-other", "public"],
)
def test_a_message_to_an_order_queue_is_a_final_ack(destination, qm, kind: str) -> None:
    """[MS-MQQB] 2.2.5: a packet to the order queue (private queue 4, or a direct name ending
    in \\PRIVATE$\\order_queue$, in any case) that is not an OrderAck is a FinalAck."""
    ack = final_ack()
    user = replace(ack.user, destination=destination, **({"destination_qm": qm} if qm else {}))
    packet, _ = decode_user_message(encode_user_message(finalize(replace(ack, user=user))))
    assert packet.kind == kind


def test_an_acknowledgment_without_its_0x24_byte_body_says_so_and_reads_no_body() -> None:
    ack = order_ack()
    bad = replace(ack, properties=replace(ack.properties, body=bytes(35)))
    wire = encode_user_message(finalize(bad))
    packet, _ = decode_user_message(wire)
    start = packet.properties.offset
    assert findings(bad) == [
        ("MQQB-2.2.4-4", start, "OrderAck MessagePropertiesHeader has MessageSize 35")
    ]
    assert packet.ack is None
