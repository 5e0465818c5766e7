"""Hostile input: the decoder and the judge never do anything but return or raise DecodeError.

For every input, whatever it is:

* ``decode_message`` returns a ChangeNotificationMessage or raises DecodeError (never another
  exception), naming a catalog requirement and an offset inside the input;
* a decoded Version 1 message re-encodes to exactly the bytes it came from (plus ``trailing``);
* ``judge`` returns a Verdict whose every finding names a catalog requirement;
* nothing allocates more than ``64 * len(input) + 1 MiB`` (checked with tracemalloc wherever a
  size or count field is hostile), and nothing hangs (hypothesis deadline).

The number of inputs run is printed in the terminal summary ("mqcn fuzz").
"""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import timedelta
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqcn_model.catalog import CATALOG
from mqcn_model.codec import (
    ChangeNotificationMessage,
    decode_message,
    decode_value,
    encode_message,
    encode_value,
)
from mqcn_model.constants import VT, Version
from mqcn_model.errata import LENIENT, STRICT, Readings
from mqcn_model.errors import DecodeError
from mqcn_model.judge import Verdict, judge
from mqcn_suite.pipeline.byte_mutations import HOSTILE_U32, mutate_once
from mqcn_suite.pipeline.campaign import allocation_peak
from mqcn_suite.pipeline.hostile import SEED_NAMES, SEEDS

T = TypeVar("T")
MEMORY_SLACK = 1 << 20  # 1 MiB
MEMORY_FACTOR = 64

FUZZ = settings(
    max_examples=1500,
    deadline=timedelta(milliseconds=500),
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# --- counting, reported at the end of the session ---------------------------------------------

RUN: Counter[str] = Counter()


class _FuzzSummary:
    """Registered once per session; writes how many inputs the fuzz tests fed the codec."""

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not RUN:
            return
        terminalreporter.write_sep("-", "mqcn fuzz")
        terminalreporter.write_line(
            f"{RUN.total()} hostile inputs run (messages through decode_message and judge, "
            "strict and lenient; single values through decode_value):"
        )
        for name, count in sorted(RUN.items()):
            terminalreporter.write_line(f"  {name}: {count}")


@pytest.fixture(scope="module", autouse=True)
def _fuzz_summary(request: pytest.FixtureRequest) -> Iterator[None]:
    manager = request.config.pluginmanager
    if not manager.has_plugin("mqcn-fuzz-summary"):
        manager.register(_FuzzSummary(), "mqcn-fuzz-summary")
    yield


# --- the invariants ----------------------------------------------------------------------------


@contextmanager
def allocation_budget(size: int) -> Iterator[None]:
    """Fail if the block allocates more than MEMORY_FACTOR * size + 1 MiB at its peak."""
    with allocation_peak() as peak:
        yield
    budget = MEMORY_FACTOR * size + MEMORY_SLACK
    assert peak.bytes <= budget, f"peak allocation {peak.bytes} > {budget} bytes"


def check_decode(buf: bytes, readings: Readings) -> ChangeNotificationMessage | DecodeError:
    try:
        message = decode_message(buf, readings)
    except DecodeError as error:
        assert error.requirement in CATALOG
        assert error.offset is not None and 0 <= error.offset <= len(buf), str(error)
        assert error.violation.message
        return error
    assert isinstance(message, ChangeNotificationMessage)
    assert message.version in (Version.DIRECTORY_SERVICE, Version.QUEUE_MANAGER)
    assert 0 <= message.count <= 0xFF
    assert buf.endswith(message.trailing)
    if message.is_v1:
        assert len(message.updates) == message.count
        assert encode_message(message) + message.trailing == buf  # decode/encode symmetric
    else:
        assert message.body is not None
        assert len(message.trailing) <= 1
        assert decode_message(encode_message(message), readings) == message
    return message


def check_judge(buf: bytes, readings: Readings) -> Verdict:
    verdict = judge(buf, readings)
    assert isinstance(verdict, Verdict)
    assert verdict.size == len(buf)
    assert verdict.conforming == (not verdict.violations)
    for found in (*verdict.violations, *verdict.observations):
        assert found.requirement in CATALOG
        assert found.offset is None or 0 <= found.offset <= len(buf), str(found)
    assert all(v.severity == "error" for v in verdict.violations)
    assert all(v.severity != "error" for v in verdict.observations)
    if verdict.message is None:
        assert len(verdict.violations) == 1 and not verdict.observations
    return verdict


def exercise(buf: bytes, category: str, *, measure: bool = False) -> dict[Readings, object]:
    """Run ``buf`` through decode_message and judge, strict and lenient; return the decodes."""
    RUN[category] += 1
    buf = bytes(buf)
    outcome: dict[Readings, object] = {}
    for readings in (STRICT, LENIENT):
        if measure:
            with allocation_budget(len(buf)):
                decoded = check_decode(buf, readings)
            with allocation_budget(len(buf)):
                verdict = check_judge(buf, readings)
        else:
            decoded = check_decode(buf, readings)
            verdict = check_judge(buf, readings)
        if isinstance(decoded, DecodeError):
            assert verdict.message is None
            assert verdict.violations == (decoded.violation,)
        else:
            assert verdict.message == decoded
        outcome[readings] = decoded
    return outcome


# --- seeds: valid messages and where their hostile fields are ----------------------------------
# (shared with the codec campaign, ``mqcn fuzz codec``: mqcn_suite.pipeline.hostile)


class HypothesisDraw:
    """The mutation operators' choices drawn from hypothesis, so that a failure shrinks."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))

    def choice(self, options: Sequence[T]) -> T:
        return self.data.draw(st.sampled_from(options))

    def binary(self, low: int, high: int) -> bytes:
        return self.data.draw(st.binary(min_size=low, max_size=high))


def test_seeds_are_valid_messages() -> None:
    for seed in SEEDS.values():
        verdict = judge(seed.buffer)
        assert verdict.conforming, (seed.name, verdict.violations)
    assert sum(len(s.sizes) for s in SEEDS.values()) >= 8
    assert any(vt is VT.CLSID_VECTOR for s in SEEDS.values() for _, vt in s.sizes)
    assert sum(len(s.strings) for s in SEEDS.values()) >= 8


# --- arbitrary bytes ---------------------------------------------------------------------------


@FUZZ
@given(st.binary(max_size=600))
def test_arbitrary_bytes(buf: bytes) -> None:
    exercise(buf, "arbitrary bytes")


@FUZZ
@given(st.sampled_from([0x01, 0x02]), st.integers(0, 0xFF), st.binary(max_size=600))
def test_arbitrary_data_behind_a_valid_header(version: int, count: int, data: bytes) -> None:
    exercise(bytes((version, count)) + data, "arbitrary data behind a header", measure=True)


def test_short_inputs_exhaustively() -> None:
    """Every input of up to 2 bytes, and every odd/even length of one repeated byte."""
    inputs = [b""] + [bytes((a,)) for a in range(256)]
    inputs += [bytes((v, c)) for v in range(4) for c in range(256)]
    inputs += [
        bytes((v, 1)) + bytes((b,)) * n for v in (1, 2) for b in (0, 0xFF) for n in range(70)
    ]
    for buf in inputs:
        exercise(buf, "short inputs")
    assert isinstance(exercise(b"", "short inputs")[STRICT], DecodeError)


# --- mutations of valid messages ---------------------------------------------------------------


@FUZZ
@given(st.sampled_from(SEED_NAMES), st.data())
def test_mutated_valid_messages(name: str, data: st.DataObject) -> None:
    seed = SEEDS[name]
    buf = bytearray(seed.buffer)
    for _ in range(data.draw(st.integers(1, 4))):
        mutate_once(buf, HypothesisDraw(data), fields=seed.fields)
    exercise(bytes(buf), "mutations", measure=True)


def test_every_bit_flip_of_small_seeds() -> None:
    for name in ("deletion", "queue-update", "v2"):
        wire = SEEDS[name].buffer
        for index in range(len(wire)):
            for bit in range(8):
                buf = bytearray(wire)
                buf[index] ^= 1 << bit
                exercise(bytes(buf), "bit flips")


# --- hostile size and count fields --------------------------------------------------------------

_SIZE_FIELDS = [(name, o, vt) for name in SEED_NAMES for o, vt in SEEDS[name].sizes]
_COUNT_FIELDS = [(name, o) for name in SEED_NAMES for o in SEEDS[name].counts]


@FUZZ
@given(
    st.sampled_from(_SIZE_FIELDS),
    st.one_of(st.sampled_from(HOSTILE_U32), st.integers(0, 2**32 - 1)),
)
def test_hostile_size_fields(field: tuple[str, int, VT], value: int) -> None:
    name, offset, _ = field
    buf = bytearray(SEEDS[name].buffer)
    buf[offset : offset + 4] = struct.pack("<I", value)
    exercise(bytes(buf), "hostile sizes", measure=True)


@FUZZ
@given(st.sampled_from(_COUNT_FIELDS), st.integers(0, 0xFF))
def test_hostile_count_fields(field: tuple[str, int], value: int) -> None:
    name, offset = field
    seed = SEEDS[name]
    buf = bytearray(seed.buffer)
    original = buf[offset]
    buf[offset] = value
    outcome = exercise(bytes(buf), "hostile counts", measure=True)
    if offset == 1 and seed.buffer[0] == Version.DIRECTORY_SERVICE and value > original:
        error = outcome[STRICT]
        assert isinstance(error, DecodeError)
        assert (error.requirement, error.offset) == ("MQCN-2.2.4-2", 1)


def _blob_fields() -> list[tuple[str, int]]:
    return [(name, o) for name, o, vt in _SIZE_FIELDS if vt is VT.BLOB]


@FUZZ
@given(
    st.sampled_from(_blob_fields()),
    st.one_of(st.integers(2**31, 2**32 - 1), st.sampled_from([2**32 - 1, 2**32 - 2, 2**31])),
)
def test_4gb_blob_sizes(field: tuple[str, int], size: int) -> None:
    name, offset = field
    buf = bytearray(SEEDS[name].buffer)
    buf[offset : offset + 4] = struct.pack("<I", size)
    outcome = exercise(bytes(buf), "4 GB blob sizes", measure=True)
    for readings in (STRICT, LENIENT):
        error = outcome[readings]
        assert isinstance(error, DecodeError)
        assert (error.requirement, error.offset) == ("MQCN-2.2.3.11-3", offset)


@FUZZ
@given(
    st.sampled_from([(name, o) for name, o, vt in _SIZE_FIELDS if vt is VT.CLSID_VECTOR]),
    st.one_of(st.integers(1 << 16, 2**32 - 1), st.sampled_from([2**32 - 1, 2**28, 2**31])),
)
def test_huge_vector_counts_in_messages(field: tuple[str, int], count: int) -> None:
    name, offset = field
    buf = bytearray(SEEDS[name].buffer)
    buf[offset : offset + 4] = struct.pack("<I", count)
    outcome = exercise(bytes(buf), "huge vector counts", measure=True)
    error = outcome[STRICT]
    assert isinstance(error, DecodeError)
    assert (error.requirement, error.offset) == ("MQCN-2.2.3.14-4", offset)


_ALL_TYPES = sorted(VT, key=int)
_VALUE_REQUIREMENTS = {
    vt: {r for r in CATALOG if r.startswith(f"MQCN-{vt.spec_section}-")} for vt in _ALL_TYPES
}


@FUZZ
@given(
    st.sampled_from(_ALL_TYPES),
    st.one_of(st.sampled_from(HOSTILE_U32), st.integers(0, 2**32 - 1)),
    st.binary(max_size=300),
    st.booleans(),
)
def test_decode_value_of_every_type(vt: VT, size: int, data: bytes, lenient: bool) -> None:
    """Each type from hostile bytes: a value that re-encodes to what was read, or DecodeError."""
    RUN["decode_value inputs"] += 1
    buf = b"\xee" + struct.pack("<I", size) + data
    readings = LENIENT if lenient else STRICT
    with allocation_budget(len(buf)):
        try:
            value, stop = decode_value(vt, buf, 1, readings=readings)
        except DecodeError as error:
            value, stop = None, -1
            allowed = _VALUE_REQUIREMENTS[vt] | {"MQCN-2.2.3.10-2"}  # a string's bad unit
            assert error.requirement in allowed, str(error)
            assert error.offset is not None and 1 <= error.offset <= len(buf)
    if stop >= 0:
        assert 1 < stop <= len(buf)
        assert encode_value(vt, value) == buf[1:stop]  # type: ignore[arg-type]
        if vt in (VT.UI4_VECTOR, VT.CLSID_VECTOR, VT.LPWSTR_VECTOR):
            assert len(value) == size  # type: ignore[arg-type]


# --- invalid UTF-16 -----------------------------------------------------------------------------

_STRING_FIELDS = [(name, s) for name in SEED_NAMES for s in SEEDS[name].strings]


@FUZZ
@given(st.sampled_from(_STRING_FIELDS), st.data(), st.integers(0xD800, 0xDFFF))
def test_lone_surrogates(
    field: tuple[str, tuple[int, int, str]], data: st.DataObject, unit: int
) -> None:
    name, (start, units, requirement) = field
    index = data.draw(st.integers(0, units - 1))
    at = start + 2 * index
    buf = bytearray(SEEDS[name].buffer)
    buf[at : at + 2] = struct.pack("<H", unit)  # neighbours are ASCII: the surrogate is alone
    outcome = exercise(bytes(buf), "lone surrogates")
    error = outcome[STRICT]
    assert isinstance(error, DecodeError)
    assert (error.requirement, error.offset) == (requirement, at)
    if requirement == "MQCN-2.2.5-5":  # the body is never lenient about UTF-16
        assert isinstance(outcome[LENIENT], DecodeError)
    else:  # errata E-07: the lenient reading accepts any 16-bit unit
        assert isinstance(outcome[LENIENT], ChangeNotificationMessage)


@FUZZ
@given(st.lists(st.integers(0, 0xFFFF), max_size=80), st.sampled_from(["v2", "creation"]))
def test_arbitrary_code_units_in_strings(units: list[int], name: str) -> None:
    """Any UTF-16 code units (NUL included) as a server name or a queue label."""
    raw = struct.pack(f"<{len(units)}H", *units)
    seed = SEEDS[name]
    start, count, _ = seed.strings[-1]
    buf = seed.buffer[:start] + raw + seed.buffer[start + 2 * count :]
    exercise(buf, "arbitrary code units")


# --- deterministic: every truncation ------------------------------------------------------------


@pytest.mark.parametrize("name", SEED_NAMES)
def test_every_truncation_is_a_verdict_or_a_decode_error(name: str) -> None:
    buffer = SEEDS[name].buffer
    valid = 0
    for cut in range(len(buffer) + 1):
        outcome = exercise(buffer[:cut], "truncations")
        if isinstance(outcome[STRICT], ChangeNotificationMessage):
            valid += 1
    # the full buffer and the message without its spare byte decode; the empty input does not
    assert isinstance(exercise(buffer, "truncations")[STRICT], ChangeNotificationMessage)
    assert isinstance(exercise(buffer[:-1], "truncations")[STRICT], ChangeNotificationMessage)
    assert isinstance(exercise(b"", "truncations")[STRICT], DecodeError)
    assert valid >= 2


def test_allocation_budget_catches_a_large_allocation() -> None:
    """The harness itself: an allocation beyond the budget fails the check."""
    with pytest.raises(AssertionError, match="peak allocation"), allocation_budget(16):
        block = bytearray(2 * MEMORY_SLACK)
        assert len(block) == 2 * MEMORY_SLACK
    with allocation_budget(16):
        assert len(bytearray(1024)) == 1024
