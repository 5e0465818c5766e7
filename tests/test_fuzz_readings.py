"""``mqcn fuzz`` admits every reading of the errata items (issue 17), in process, no Spark.

A target that follows another reading of a behavioural switch -- the letter of the spec
included -- never diverges from the reference: a case is a divergence only when no reading of
the switches it involves gives the target's outcome.  The readings a target was seen to follow
are named per row (``reading`` rows) and tallied.  A target that breaks a MUST still diverges.
The Spark side (``summary.json``, the terminal line) is in tests/test_pipeline.py.
"""

from __future__ import annotations

import collections
from typing import Any

import pyarrow as pa
import pytest

from mqcn_model.errata import STRICT, SWITCH_OF, Readings
from mqcn_model.fitting import BEHAVIOURAL, combinations, search_readings
from mqcn_suite.pipeline.fuzz import READING, is_divergence, replay_fuzz_case, run_cases

SEED = 0
CASES = 700  # enough for every reading the generators reach (E-01's lenient tag is the rarest)


def rows_of(target: Any, cases: int = CASES, seed: int = SEED) -> list[dict[str, Any]]:
    """Every row ``run_cases`` (the Spark task's function) writes for ``cases`` cases."""
    batch = pa.RecordBatch.from_pylist([{"id": n} for n in range(cases)])
    return [
        row
        for out in run_cases(target, seed)(iter([batch]))
        for row in out.to_pylist()
        if row["kind"] == "divergence"
    ]


def readings_seen(rows: list[dict[str, Any]]) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = collections.defaultdict(set)
    for row in rows:
        for token in row["readings"]:
            errata, _, names = token.partition("=")
            seen[errata].add(names)
    return dict(seen)


def divergences(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if is_divergence(r)]


# The readings the fuzzer's generators meet, each with what a run must name for it; the other
# readings (E-05, E-11, E-16: sending only; E-14 needs a disregard within a message) must pass.
NAMED = {
    "letter": {
        "E-01": "lenient",
        "E-07": "lenient",
        "E-12": "positional",
        "E-22": "nil-identifier",
        "E-23": "local",
        "E-24": "replace",
    },
    "E-12": {"E-12": "positional"},
    "E-22": {"E-22": "nil-identifier"},
    "E-23": {"E-23": "local"},
    "E-24=replace": {"E-24": "replace"},
    "E-24=merge": {"E-24": "merge"},
    "E-24=disregard": {"E-24": "disregard"},
    "E-24=disregard,E-14": {"E-24": "disregard", "E-14": "lenient"},
    "E-07": {"E-07": "lenient"},
    "E-01": {"E-01": "lenient"},
}
OTHER_READINGS = [
    f"{s.errata}={name}"
    for s in BEHAVIOURAL
    for name in s.others
    if not any(key.startswith(s.errata) for key in NAMED)
]


@pytest.mark.parametrize("readings", [*NAMED, *OTHER_READINGS])
def test_a_reference_following_another_reading_never_diverges(readings: str) -> None:
    rows = rows_of(f"reference:{readings}")
    assert divergences(rows) == [], divergences(rows)[:2]
    seen = readings_seen(rows)
    for errata, name in NAMED.get(readings, {}).items():
        assert any(name in names.split("|") for names in seen.get(errata, ())), (errata, seen)
    for row in rows:  # every row is a reading row naming what it fits
        assert row["divergence"] == READING and row["readings"], row
        assert row["detail"].startswith("follows "), row["detail"]


def test_the_suite_reading_writes_no_row() -> None:
    assert rows_of("reference", 300) == []


@pytest.mark.parametrize(
    ("target", "requirement"),
    [
        ("zoo:DeletesWhateverTheObjectType", "MQCN-3.2.5.1-17"),
        ("zoo:ProcessesUnauthenticated", "MQCN-3.2.5.1-4"),
        ("zoo:IgnoresSenderIdentifierType", "MQCN-3.2.5.1-3"),
    ],
)
def test_a_target_breaking_a_must_still_diverges(target: str, requirement: str) -> None:
    found = divergences(rows_of(target))
    assert found and all(requirement in row["requirements"] for row in found), found[:2]
    assert all(row["readings"] == [] for row in found)


def test_a_deletion_the_positional_reading_admits_is_a_reading_beside_the_divergences() -> None:
    # DeletesWhateverTheObjectType deletes whatever PropertyValue[1] is: where PropertyId[1]
    # is no PROPID_D_OBJTYPE and the value is MQDS_QUEUE, that is E-12's letter, not a fault
    rows = rows_of("zoo:DeletesWhateverTheObjectType")
    assert readings_seen(rows) == {"E-12": {"positional"}}
    assert {r["family"] for r in rows if r["divergence"] == READING} == {"reading:E-12"}


def test_the_replay_of_a_reading_case_names_the_reading_and_exits_clean() -> None:
    case = next(r["case"] for r in rows_of("reference:E-22", 200))
    found = replay_fuzz_case("reference:E-22", SEED, case)
    row = found["divergence"]
    assert row["divergence"] == READING and row["readings"] == ["E-22=nil-identifier"]
    assert not is_divergence(row)


def test_two_switches_that_matter_only_together_are_both_searched() -> None:
    # An outcome is a pair of the readings of E-24 and E-14 here: flipping E-14 alone changes
    # nothing (it undoes earlier updates only when a later one is disregarded), so only the
    # widening search reaches (disregard, lenient).
    def outcome(r: Readings) -> tuple[str, bool]:
        disregarding = r.existing_queue_creation == "disregard"
        return (r.existing_queue_creation, disregarding and r.disregard_whole_message)

    wanted = ("disregard", True)
    fit = search_readings(outcome, lambda r: outcome(r) == wanted)
    assert [s.errata for s in fit.involved] == ["E-14", "E-24"]
    assert fit.followed() == {"E-14": "lenient", "E-24": "disregard"}
    assert search_readings(outcome, lambda r: False).fitting == ()
    assert search_readings(outcome, lambda r: r == STRICT).involved == ()


def test_combinations_start_with_the_suite_reading() -> None:
    both = combinations([SWITCH_OF["E-12"], SWITCH_OF["E-23"]])
    assert both[0] == STRICT and len(both) == 4 and len(set(both)) == 4


def test_a_queue_created_with_other_defaults_is_judged_up_to_them() -> None:
    # The letter with another Set Queue Defaults (Quota 0): errata E-19 leaves the defaults
    # open, and the fuzzer judges a created queue as the scenarios do (state_fits).
    rows = rows_of("python:tests.test_readings:LetterWithOtherDefaults")
    assert divergences(rows) == [], divergences(rows)[:2]
    seen = readings_seen(rows)
    assert "nil-identifier" in seen["E-22"] and any("replace" in n for n in seen["E-24"])


def test_the_command_replays_a_reading_case_as_no_divergence() -> None:
    from typer.testing import CliRunner

    from mqcn_suite.cli import app

    case = next(r["case"] for r in rows_of("reference:E-22", 200))
    shown = CliRunner().invoke(
        app,
        ["fuzz", "target", "--target", "reference:E-22", "--seed", str(SEED), "--case", str(case)],
    )
    assert shown.exit_code == 0, (shown.stdout, shown.stderr)
    assert "reading: the target follows E-22 nil-identifier" in shown.stdout
    assert "not a divergence" in shown.stdout
