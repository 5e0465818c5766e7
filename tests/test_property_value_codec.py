"""The suite's own codec of the property-value types no PROPID of [MS-MQCN] 2.2.2.1 carries
(VT_BOOL, VT_I1, VT_UI2, VT_I8, VT_UI8, VT_UI4|VT_VECTOR, VT_LPWSTR|VT_VECTOR).

No message a server reads holds one of these types, so no scenario can make a target act on
them: they are judged against a target only on what its client emits
(features/2.2.3-property-values.feature).  These checks were scenarios once; they judge the
suite alone, so they live here and no requirement's verdict counts them.  Each row names the
requirement whose rule the codec applies.
"""

from __future__ import annotations

import pytest

from mqcn_model.codec.propvalue import decode_value
from mqcn_model.constants import VT
from mqcn_model.errors import DecodeError
from mqcn_suite.scenarios.expectations import bool_patterns_misread, codec_reading, codec_writes
from mqcn_suite.scenarios.vocabulary import NONE, value_from_text, vt_named

READS = [  # type, wire bytes, value, the requirement the reading shows
    ("VT_BOOL", "ffff", "true", "MQCN-2.2.3.3-4"),
    ("VT_BOOL", "0000", "false", "MQCN-2.2.3.3-5"),
    ("VT_BOOL", "ffff", "true", "MQCN-2.2.3.3-1"),
    ("VT_BOOL", "0000", "false", "MQCN-2.2.3.3-2"),
    ("VT_I1", "ff", "-1", "MQCN-2.2.3.4-1"),
    ("VT_I1", "80", "-128", "MQCN-2.2.3.4-1"),
    ("VT_I1", "7f", "127", "MQCN-2.2.3.4-1"),
    ("VT_UI2", "ffff", "65535", "MQCN-2.2.3.6-1"),
    ("VT_UI2", "0102", "513", "MQCN-2.2.3.6-2"),
    ("VT_I8", "feffffffffffffff", "-2", "MQCN-2.2.3.8-1"),
    ("VT_I8", "0102030405060708", "0x0807060504030201", "MQCN-2.2.3.8-2"),
    ("VT_UI8", "ffffffffffffffff", "0xFFFFFFFFFFFFFFFF", "MQCN-2.2.3.9-1"),
    ("VT_UI8", "0102030405060708", "0x0807060504030201", "MQCN-2.2.3.9-2"),
    ("VT_UI4|VT_VECTOR", "020000000100000002010000", "1, 258", "MQCN-2.2.3.13-1"),
    ("VT_UI4|VT_VECTOR", "0100000004030201", "0x01020304", "MQCN-2.2.3.13-2"),
    ("VT_UI4|VT_VECTOR", "0200000000000000ffffffff", "0, 0xFFFFFFFF", "MQCN-2.2.3.13-3"),
    ("VT_UI4|VT_VECTOR", "00000000", "(none)", "MQCN-2.2.3.13-4"),
    ("VT_LPWSTR|VT_VECTOR", "0200000061000000620063000000", "a, bc", "MQCN-2.2.3.15-1"),
    ("VT_LPWSTR|VT_VECTOR", "010000007a000000", "z", "MQCN-2.2.3.15-2"),
    ("VT_LPWSTR|VT_VECTOR", "020000006100000062000000", "a, b", "MQCN-2.2.3.15-3"),
    ("VT_LPWSTR|VT_VECTOR", "00000000", "(none)", "MQCN-2.2.3.15-4"),
]

REFUSALS = [  # type, wire bytes, the requirement the codec names in refusing them
    ("VT_BOOL", "ff", "MQCN-2.2.3.3-1"),
    ("VT_BOOL", "0100", "MQCN-2.2.3.3-3"),
    ("VT_BOOL", "ff00", "MQCN-2.2.3.3-3"),
    ("VT_I1", "(none)", "MQCN-2.2.3.4-1"),
    ("VT_UI2", "01", "MQCN-2.2.3.6-1"),
    ("VT_I8", "01020304050607", "MQCN-2.2.3.8-1"),
    ("VT_UI8", "01020304050607", "MQCN-2.2.3.9-1"),
    ("VT_UI4|VT_VECTOR", "0200", "MQCN-2.2.3.13-2"),
    ("VT_UI4|VT_VECTOR", "030000000100000002000000", "MQCN-2.2.3.13-4"),
    ("VT_LPWSTR|VT_VECTOR", "0100", "MQCN-2.2.3.15-2"),
    ("VT_LPWSTR|VT_VECTOR", "010000006100", "MQCN-2.2.3.15-3"),
    ("VT_LPWSTR|VT_VECTOR", "0500000061000000", "MQCN-2.2.3.15-4"),
    # room for two elements by size, but the first takes every byte: the second is missing
    ("VT_LPWSTR|VT_VECTOR", "02000000610062000000", "MQCN-2.2.3.15-4"),
]


def _wire(text: str) -> str:
    return "" if text in NONE else text


@pytest.mark.parametrize(("vt", "wire", "value", "requirement"), READS)
def test_the_codec_reads_the_value_and_writes_the_same_bytes(
    vt: str, wire: str, value: str, requirement: str
) -> None:
    kind, expected = vt_named(vt), value_from_text(vt_named(vt), value)
    got, refused = codec_reading(kind, _wire(wire))
    assert refused is None, f"{requirement}: {vt} {wire} refused for {refused}"
    assert got == expected, f"{requirement}: {vt} {wire} read as {got!r}, not {expected!r}"
    assert codec_writes(kind, got) == _wire(wire), f"{requirement}: {got!r} written otherwise"


@pytest.mark.parametrize(("vt", "wire", "requirement"), REFUSALS)
def test_the_codec_refuses_the_bytes_naming_the_rule(vt: str, wire: str, requirement: str) -> None:
    got, refused = codec_reading(vt_named(vt), _wire(wire))
    assert refused == requirement, f"{vt} {wire}: read {got!r}, refused for {refused}"


def test_the_codec_accepts_only_0x0000_and_0xffff_as_vt_bool() -> None:
    wrong = bool_patterns_misread()
    assert not wrong, f"MQCN-2.2.3.3-3: misread patterns {[hex(p) for p in wrong[:8]]}"


def test_a_size_the_data_cannot_hold_is_refused_before_any_element_is_read() -> None:
    """A Size of 0xFFFFFFFF strings over 4 bytes: refused at once for the room it needs (2
    bytes a string at least), not after walking the elements (no allocation for it either)."""
    raw = bytes.fromhex("ffffffff61000000")
    with pytest.raises(DecodeError) as refused:
        decode_value(VT.LPWSTR_VECTOR, raw, 0, len(raw))
    assert refused.value.requirement == "MQCN-2.2.3.15-4"
    assert "needs at least 8589934590 bytes, 4 left" in str(refused.value)
    raw = bytes.fromhex("02000000610062000000")
    with pytest.raises(DecodeError) as short:
        decode_value(VT.LPWSTR_VECTOR, raw, 0, len(raw))
    assert "Size 2, only 1 elements" in str(short.value)
