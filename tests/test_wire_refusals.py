"""What the wire codec says when it cannot read a packet: the requirement, the byte and the
words, exactly -- the one line a vendor reads (``mqcn decode --packet``, the audit, the
transport findings).  Each case is bytes written by hand from the layout of [MS-MQMQ] 2.2.19
and the one rule they break.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mqcn_model.errors import DecodeError
from mqcn_model.wire.base import decode_base_header

SIG = "4c494f52"  # "LIOR"

CASES: list[tuple[str, Callable[[bytes], object], str, str, int, str]] = [
    (
        "base-short",
        decode_base_header,
        "10000000",
        "MQMQ-2.2.19.1-3",
        0,
        "a BaseHeader needs 16 bytes, 4 left",
    ),
    (
        "base-version",
        decode_base_header,
        f"11000000 {SIG} 20000000 ffffffff",
        "MQMQ-2.2.19.1-1",
        0,
        "VersionNumber is 0x11, not 0x10",
    ),
    (
        "base-signature",
        decode_base_header,
        "10000000 00000000 20000000 ffffffff",
        "MQMQ-2.2.19.1-2",
        4,
        "Signature is 0x00000000, not 0x524f494c",
    ),
    (
        "base-too-big",
        decode_base_header,
        f"10000000 {SIG} 01004000 ffffffff",
        "MQMQ-2.2.19.1-4",
        8,
        "PacketSize is 4194305, above 0x00400000",
    ),
    (
        "base-too-small",
        decode_base_header,
        f"10000000 {SIG} 0c000000 ffffffff",
        "MQMQ-2.2.19.1-3",
        8,
        "PacketSize is 12: a packet is at least its 16-byte BaseHeader and its headers are "
        "4-byte aligned",
    ),
    (
        "base-unaligned",
        decode_base_header,
        f"10000000 {SIG} 11000000 ffffffff",
        "MQMQ-2.2.19.1-3",
        8,
        "PacketSize is 17: a packet is at least its 16-byte BaseHeader and its headers are "
        "4-byte aligned",
    ),
]


@pytest.mark.parametrize(
    ("decode", "wire", "requirement", "offset", "message"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_an_unreadable_structure_is_refused_with_its_rule_byte_and_words(
    decode: Callable[[bytes], object], wire: str, requirement: str, offset: int, message: str
) -> None:
    with pytest.raises(DecodeError) as info:
        decode(bytes.fromhex(wire.replace(" ", "")))
    violation = info.value.violation
    assert (violation.requirement, violation.offset, violation.message) == (
        requirement,
        offset,
        message,
    )
