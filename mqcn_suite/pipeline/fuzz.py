"""``fuzz``: differential fuzzing of a target against the reference model, on Spark.

Case ``n`` of seed ``s`` is a pure function of ``(s, n)`` (:func:`fuzz_case`): half valid
messages from the conforming builders, half malformed ones (the catalogue of named defects,
mutations of the reference vectors and of valid messages), each in an envelope that
sometimes carries what makes a server disregard a Version 0x01 message (sender type,
authentication level).  ``spark.range(cases)`` spreads the cases over partitions; each
partition resolves *one* adapter for the target (``resolve_target(spec)``) and one reference
model, and for every case does, on both:

    reset(setup) -> start_server() -> deliver(envelope) -> state(), directory_reads()

The setup (:func:`fuzz_setup`) gives the queue manager queues of its own and a directory that
knows them, and the generators aim at those objects, so updates, deletions and Version 0x02
reads have visible effects.  The target's state and directory reads are judged as the
scenarios judge them: against the model following the suite's readings first, up to the
defaults of a queue it creates (errata E-19, :func:`mqcn_model.fitting.state_fits`); where
they differ, against the model following the other readings of the errata switches the case
involves (:func:`mqcn_model.fitting.search_readings`: only the switches that change the
model's outcome, and their combinations).  An outcome some reading gives is a ``reading`` row
naming the readings it fits (``E-24=replace``), tallied by item and reading in
``summary.json`` (``readings_followed``) and on the terminal.  A case *diverges* when no
reading gives the target's state and directory reads, or when the target fails where the
model did not.  Every divergence
is written with the requirement IDs involved (what the model's server did -- e.g.
MQCN-3.2.5.1-4 when it disregarded an unauthenticated message -- plus what
:func:`mqcn_model.judge.judge` finds in the bytes), the body in hex, and a one-line replay::

    mqcn decode --hex 0101...; mqcn fuzz target --target reference --seed 7 --case 123

Against ``reference`` -- and against ``reference:letter`` or any other reading of the switches
-- the expected number of divergences is 0.  Three other kinds of row are written beside the
divergences and counted apart, never as divergences (:func:`is_divergence`, the one rule for
the exit code of a run and of ``--case``): ``reading`` (another reading of an errata item,
docs/errata.md), ``stricter-receiver`` (errata E-20) and ``not-run`` (a partition stopped
calling a target that kept timing out).

The same task (:func:`run_cases`) also runs in this process, without Spark: ``fuzz(None,
...)``, the in-process engine that ``mqcn fuzz`` picks for small runs
(:mod:`mqcn_suite.pipeline.engine`).  It is one partition: ``--max-timeouts`` then counts
the timeouts of the whole run in a row, where on Spark each partition counts its own.
"""

from __future__ import annotations

import json
import math
import shlex
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mqcn_model.catalog import req
from mqcn_model.codec import body_buffer
from mqcn_model.envelope import Envelope
from mqcn_model.errata import READING_SEPARATOR, STRICT, SWITCH_OF, Readings
from mqcn_model.fitting import Fit, search_readings, state_fits
from mqcn_model.judge import judge
from mqcn_suite.pipeline.checks import check_cases, check_out
from mqcn_suite.pipeline.engine import IN_PROCESS, case_batches, count_exploded, spark_label
from mqcn_suite.pipeline.errors import TaskFailure
from mqcn_suite.pipeline.generators import (
    Population,
    envelope,
    malformed_message,
    reading_message,
    row_rng,
    valid_message,
)
from mqcn_suite.pipeline.session import PipelineError, default_parallelism
from mqcn_suite.pipeline.storage import SUMMARY_JSON, Location, in_process_location
from mqcn_suite.targets import (
    DEFAULT_TIMEOUT,
    ReferenceTarget,
    Setup,
    Target,
    TargetError,
    TargetTimeout,
    resolve_target,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TargetSpec = str | Callable[[], Target]
R_LOOP = req("MQCN-3.2.5-5")  # every record ends with "dequeue": not worth naming in a finding
DIVERGENCES_DIR = "divergences"
# A target that disregards a non-conforming message the model processes (errata E-20): the
# row is written and tallied by kind, but it is no divergence and does not fail the run.
STRICTER = "stricter-receiver"
# A target whose outcome is what the model gives following another reading of the errata
# switches the case involves (docs/errata.md): written with the readings, tallied, allowed.
READING = "reading"
NOT_RUN = "not-run"  # cases a partition never ran: its target kept timing out
DIVERGENCES_JSONL = "divergences.jsonl"
JSONL_LIMIT = 10_000
CASES_PER_PARTITION = 20_000

DIVERGENCE_SCHEMA = pa.schema(
    [
        ("kind", pa.string()),  # "divergence" rows, and one "tally" row per batch
        ("case", pa.int64()),
        ("family", pa.string()),  # generator family: v1:..., v2:..., mutation, defect:<name>, ...
        # state / directory-reads / target-error / model-error: divergences (is_divergence);
        # reading, stricter-receiver and not-run rows are written too, and counted apart
        ("divergence", pa.string()),
        ("requirements", pa.list_(pa.string())),
        # the readings the target's outcome fits, one per errata item: "E-24=replace|merge"
        ("readings", pa.list_(pa.string())),
        ("hex", pa.string()),
        ("envelope", pa.string()),  # Envelope.to_json()
        ("model_outcome", pa.string()),
        ("detail", pa.string()),
        ("replay", pa.string()),
        ("cases", pa.int64()),  # tally rows: how many cases the batch ran
    ]
)


# --- cases ------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def fuzz_population(seed: int) -> Population:
    """A small population, so that generated messages often name objects the setup knows."""
    return Population.from_seed(seed, services=4, managers=3, queues=12)


def fuzz_setup(seed: int) -> Setup:
    """The queue manager every case starts from: 4 queues of its own, 8 in the directory.

    The first population queue manager is the target; its queues are also in the directory (so a
    Version 0x02 change re-reads them), and the directory knows the machine itself.
    """
    population = fuzz_population(seed)
    qm = population.queue_managers[0]
    own = [
        {"Identifier": str(q), "Label": f"q{i}", "Quota": 1000 + i}
        for i, q in enumerate(population.queues[:4])
    ]
    directory = [
        {"owner": str(qm), "queue": {"Identifier": str(q), "Label": f"dir{i}", "Quota": 5000 + i}}
        for i, q in enumerate(population.queues[:8])
    ]
    return Setup(
        qm_guid=qm,
        queues=own,
        directory_queues=directory,
        directory_queue_managers=[{"Identifier": str(qm), "QueueManagerQuota": 77}],
    )


# the share of cases whose effect only an errata reading decides (E-12, E-22: the other items'
# cases come from the valid and malformed families), so every reading is met in a short run
READING_SHARE = 0.06


def fuzz_case(seed: int, case: int) -> tuple[str, Envelope]:
    """Case ``case`` of ``seed``: (generator family, envelope). Pure and replayable.

    Half valid messages, :data:`READING_SHARE` messages only a reading decides
    (:func:`~mqcn_suite.pipeline.generators.reading_message`), the rest malformed."""
    rng = row_rng(seed, case)
    population = fuzz_population(seed)
    draw = rng.random()
    if draw < 0.5:
        family, message = valid_message(rng, population)
        body = body_buffer(message)
    elif draw < 0.5 + READING_SHARE:
        family, message = reading_message(rng, population)
        body = body_buffer(message)
    else:
        family, body = malformed_message(rng, population)
    return family, envelope(rng, population, body, case, float(case), anomalies=0.4)


# --- running one case ----------------------------------------------------------------------------


@dataclass
class Observation:
    """What one implementation did with one case."""

    state: dict[str, Any] | None = None
    reads: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    not_applicable: str | None = None
    before: dict[str, Any] | None = None  # the state after start-up, before the delivery


def observe(target: Target, setup: Setup, env: Envelope) -> Observation:
    """reset, start the server, deliver, and read back state and directory reads."""
    from mqcn_suite.targets.base import NotApplicable

    try:
        target.reset(setup)
        target.start_server()
        before = target.state()
        target.deliver(env)
        return Observation(target.state(), target.directory_reads(), before=before)
    except NotApplicable as skip:  # the target does not claim this (its PICS): no verdict
        return Observation(not_applicable=str(skip))
    except Exception as exc:  # an adapter failing is itself a finding
        return Observation(error=f"{type(exc).__name__}: {exc}")


def _differences(a: Any, b: Any, path: str = "", limit: int = 4) -> list[str]:
    """Paths where two JSON values differ (at most ``limit``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        found: list[str] = []
        for key in sorted(set(a) | set(b), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in a:
                found.append(f"{where}: only in target")
            elif key not in b:
                found.append(f"{where}: missing in target")
            else:
                found.extend(_differences(a[key], b[key], where, limit - len(found)))
            if len(found) >= limit:
                break
        return found[:limit]
    if a != b:
        shown_a, shown_b = json.dumps(a, default=str)[:60], json.dumps(b, default=str)[:60]
        return [f"{path or 'value'}: model {shown_a} target {shown_b}"]
    return []


def is_divergence(row: dict[str, Any] | None) -> bool:
    """Whether a row of ``divergences/`` is a divergence: the target and the model disagree.

    A ``reading`` row (another reading of an errata item), a ``stricter-receiver`` row
    (errata E-20) and a ``not-run`` row are written beside the divergences and counted apart:
    the first two are behaviours the spec allows, the last a case that never ran (the run's
    exit code says so on its own).  A run and ``mqcn fuzz target --case I`` both use this one
    rule for their exit code.
    """
    return row is not None and row["divergence"] not in ALLOWED


ALLOWED = (READING, STRICTER, NOT_RUN)  # row kinds written and counted, never divergences


def fuzz_replay_command(target_name: str, seed: int, case: int) -> str:
    """The command that runs case ``case`` of ``seed`` again, in process."""
    return f"mqcn fuzz target --target {shlex.quote(target_name)} --seed {seed} --case {case}"


def fuzz_replay_line(target_name: str, seed: int, case: int, hex_body: str) -> str:
    """The one-line shell command that reproduces a case (bytes, then the delivery)."""
    decode = f"mqcn decode --hex {hex_body}" if hex_body else "mqcn decode --hex ''"
    return f"{decode}; {fuzz_replay_command(target_name, seed, case)}"


def _outcome_key(seen: Observation, model: ReferenceTarget) -> str:
    """What the model did with the case, for telling readings apart: its state, directory
    reads and error, and what its server did (the kinds of effect: a reading under which the
    message is processed differs from one under which it is disregarded even where the state
    ends the same, so a switch that matters only together with another is still found)."""
    records = model.server.records if model.server is not None else []
    did = [(r.outcome, [(e.kind, e.requirement) for e in r.effects]) for r in records[-1:]]
    return json.dumps([seen.state, seen.reads, seen.error, did], sort_keys=True, default=str)


def fit_readings(
    got: Observation, expected: Observation, model: ReferenceTarget, setup: Setup, env: Envelope
) -> Fit | None:
    """Which readings of the errata switches the target's outcome fits (None: the suite's do).

    ``expected`` is what ``model`` (following the suite's readings) did with ``env``; only
    where the target's outcome does not fit it is the model run following other readings
    (each combination once).
    """
    before = got.before or {}

    def fits_outcome(seen: Observation) -> bool:
        return (
            seen.error is None
            and seen.state is not None
            and got.state is not None
            and state_fits(got.state, seen.state, before)
            and got.reads == seen.reads
        )

    if fits_outcome(expected):
        return None
    runs: dict[Readings, tuple[Observation, str]] = {
        STRICT: (expected, _outcome_key(expected, model))
    }

    def run(readings: Readings) -> tuple[Observation, str]:
        if readings not in runs:
            other = ReferenceTarget(readings=readings)
            seen = observe(other, setup, env)
            runs[readings] = (seen, _outcome_key(seen, other))
        return runs[readings]

    return search_readings(lambda r: run(r)[1], lambda r: fits_outcome(run(r)[0]))


def followed_phrase(readings: list[str]) -> str:
    """``["E-24=replace|merge"]`` as a reader says it: ``E-24 replace or merge (...)``."""
    said = []
    for token in readings:
        errata, _, names = token.partition("=")
        each = names.split(READING_SEPARATOR)
        phrases = "; ".join(SWITCH_OF[errata].phrase(n) for n in each)
        said.append(f"{errata} {' or '.join(each)} ({phrases})")
    return "follows " + ", ".join(said)


def compare_case(
    model: ReferenceTarget, target: Target, target_name: str, setup: Setup, seed: int, case: int
) -> dict[str, Any] | None:
    """The row of case ``case``: None when the target's outcome is what the model following
    the suite's readings gives; a ``reading`` row when another reading of the errata items
    involved gives it; else a divergence (or a ``stricter-receiver`` row, errata E-20)."""
    family, env = fuzz_case(seed, case)
    expected = observe(model, setup, env)
    got = observe(target, setup, env)
    if got.not_applicable is not None:
        return None  # the target declines the case: nothing to compare
    readings: list[str] = []
    if expected.error is not None:
        kind, detail = "model-error", expected.error  # a bug in the suite: report it loudly
    elif got.error is not None:
        kind, detail = "target-error", got.error
    elif (fit := fit_readings(got, expected, model, setup, env)) is None:
        return None
    elif fit.fitting:
        readings = [f"{errata}={names}" for errata, names in fit.followed().items()]
        kind, detail = READING, followed_phrase(readings)
    else:
        involved = ", ".join(s.errata for s in fit.involved)
        unexplained = f" (no reading of {involved} gives it either)" if involved else ""
        if got.state is None or not state_fits(got.state, expected.state or {}, got.before or {}):
            kind, detail = "state", "; ".join(_differences(expected.state, got.state))
            if got.state == expected.before and not judge(env.body).conforming:
                # The target disregarded a message that breaks a sender's rule, which the
                # model processes: stricter than the spec asks, not wrong (errata E-20).
                kind = STRICTER
        else:
            kind, detail = "directory-reads", "; ".join(_differences(expected.reads, got.reads))
        detail += unexplained if kind != STRICTER else ""
    record = model.server.records[-1] if model.server is not None and model.server.records else None
    requirements: list[str] = []
    if record is not None:
        requirements += [
            e.requirement for e in record.effects if e.requirement and e.requirement != R_LOOP
        ]
    requirements += list(judge(env.body).requirements)
    hex_body = env.body.hex()
    return {
        "kind": "divergence",
        "case": case,
        "family": family,
        "divergence": kind,
        "requirements": list(dict.fromkeys(requirements)),
        "readings": readings,
        "hex": hex_body,
        "envelope": json.dumps(env.to_json(), sort_keys=True),
        "model_outcome": (
            f"{record.outcome}: {record.reason}"
            if record and record.reason
            else record.outcome
            if record
            else None
        ),
        "detail": detail,
        "replay": fuzz_replay_line(target_name, seed, case, hex_body),
        "cases": None,
    }


DEFAULT_MAX_TIMEOUTS = 3


class _TimeoutWatch:
    """A target seen through: notes whether a call timed out (``TargetTimeout``)."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.timed_out = False

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.target, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return attribute(*args, **kwargs)
            except TargetTimeout:
                self.timed_out = True
                raise

        return call


def _resolve(target: TargetSpec, timeout: float = DEFAULT_TIMEOUT) -> tuple[Target, str]:
    if isinstance(target, str):
        return resolve_target(target, timeout=timeout), target
    made = target()
    return made, str(getattr(made, "name", type(made).__name__))


def _not_run(case: int, limit: int) -> dict[str, Any]:
    return {
        "kind": "divergence",
        "case": case,
        "family": None,
        "divergence": NOT_RUN,
        "requirements": [],
        "readings": [],
        "hex": "",
        "envelope": "{}",
        "model_outcome": None,
        "detail": f"not run: the target timed out {limit} times in a row (--max-timeouts)",
        "replay": "",
        "cases": None,
    }


def run_cases(
    target: TargetSpec,
    seed: int,
    timeout: float = DEFAULT_TIMEOUT,
    max_timeouts: int = DEFAULT_MAX_TIMEOUTS,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function: case numbers in, divergences (and tallies) out.

    After ``max_timeouts`` consecutive cases on which the target timed out, the partition
    stops calling it: its remaining cases are ``not-run`` rows (0: never stop).
    """

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        made, name = _resolve(target, timeout)  # one adapter per partition
        adapter = _TimeoutWatch(made)
        model = ReferenceTarget()
        setup = fuzz_setup(seed)
        in_a_row = 0

        def one(case: int) -> dict[str, Any] | None:
            nonlocal in_a_row
            if max_timeouts and in_a_row >= max_timeouts:
                return _not_run(case, max_timeouts)
            adapter.timed_out = False
            try:
                row = compare_case(model, adapter, name, setup, seed, case)  # type: ignore[arg-type]
            except Exception as exc:  # the line the user sees names the case and its replay
                replay = fuzz_replay_command(name, seed, case)
                raise TaskFailure(f"case {case} of seed {seed}", exc, replay) from exc
            in_a_row = in_a_row + 1 if adapter.timed_out else 0
            return row

        try:
            for batch in batches:
                cases = batch.column(0).to_pylist()
                rows = [r for c in cases if (r := one(c))]
                tally = {n: None for n in DIVERGENCE_SCHEMA.names}
                tally.update(kind="tally", cases=len(cases), requirements=[], readings=[])
                yield pa.RecordBatch.from_pylist([*rows, tally], schema=DIVERGENCE_SCHEMA)
        finally:
            made.close()

    return run


# --- the job ------------------------------------------------------------------------------------


@dataclass
class FuzzResult:
    """How many cases ran, how many diverged, and the first rows of ``divergences/``.

    ``cases`` = the cases planned; ``not_run`` of them never ran (the target kept timing
    out); ``divergences`` counts only real disagreements (:func:`is_divergence`), and
    ``stricter`` the stricter-receiver rows (errata E-20), ``other_reading`` the cases whose
    outcome another reading of an errata item gives, apart.  ``by_kind`` counts every kind of
    row, ``by_requirement`` the requirements of the divergences, and ``readings_followed`` the
    readings the target was seen to follow, by errata item and reading (``{"E-24":
    {"replace": 9, "replace|merge": 2}}``: several names where the case fits each of them).
    """

    target: str
    seed: int
    cases: int
    divergences: int
    by_requirement: dict[str, int]
    by_kind: dict[str, int]
    sample: list[dict[str, Any]]
    seconds: float
    out: str | None
    not_run: int = 0
    stricter: int = 0
    other_reading: int = 0
    readings_followed: dict[str, dict[str, int]] = field(default_factory=dict)
    engine: str = IN_PROCESS  # "in-process" or "Spark <master>"

    @property
    def ran(self) -> int:
        return self.cases - self.not_run

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "seed": self.seed,
            "cases": self.cases,
            "ran": self.ran,
            "not_run": self.not_run,
            "divergences": self.divergences,
            "stricter_receiver": self.stricter,
            "other_reading": self.other_reading,
            "readings_followed": self.readings_followed,
            "by_requirement": self.by_requirement,
            "by_kind": self.by_kind,
            "engine": self.engine,
            "seconds": self.seconds,
            "cases_per_second": round(self.ran / self.seconds, 1) if self.seconds else None,
        }


def tally_readings(seen: dict[str, int]) -> dict[str, dict[str, int]]:
    """``{"E-24=replace": 9, ...}`` (counts of a row's ``readings`` entries) by errata item,
    in the order of docs/errata.md, each item's readings most seen first.

    >>> tally_readings({"E-24=replace": 9, "E-12=positional": 2, "E-24=replace|merge": 3})
    {'E-12': {'positional': 2}, 'E-24': {'replace': 9, 'replace|merge': 3}}
    """
    items: dict[str, dict[str, int]] = {}
    for token, n in sorted(seen.items(), key=lambda kv: (-kv[1], kv[0])):
        errata, _, names = token.partition("=")
        items.setdefault(errata, {})[names] = n
    return {errata: items[errata] for errata in SWITCH_OF if errata in items}


def readings_line(followed: dict[str, dict[str, int]]) -> str:
    """The terminal's line: which readings the target was seen to follow, with counts.

    >>> readings_line({"E-24": {"replace": 9, "replace|merge": 3}})
    'readings followed (docs/errata.md): E-24 replace 9, replace or merge 3'
    >>> readings_line({})
    "readings followed (docs/errata.md): the suite's (no case needed another)"
    """
    if not followed:
        return "readings followed (docs/errata.md): the suite's (no case needed another)"
    items = "; ".join(
        f"{errata} "
        + ", ".join(f"{names.replace(READING_SEPARATOR, ' or ')} {n}" for names, n in seen.items())
        for errata, seen in followed.items()
    )
    return f"readings followed (docs/errata.md): {items}"


def _target_name(target: TargetSpec) -> str:
    """The --target spec, or an in-process factory's name."""
    return target if isinstance(target, str) else str(getattr(target, "__name__", "in-process"))


def check_fuzz_arguments(
    target: TargetSpec, cases: int, out: str | Path | None, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Refuse, before Spark starts, what cannot give a result: no cases, a bad --target, an
    --out that is not an empty writable directory.  Returns the target's name."""
    check_cases(cases)
    if out is not None:
        check_out(out)
    if not isinstance(target, str):
        return _target_name(target)
    try:
        resolve_target(target, timeout=timeout).close()  # a bad --target fails here, once
    except TargetError as exc:
        raise PipelineError(f"--target: {exc}") from None
    return target


# The columns of divergences/ (a row's kind and a tally's count stay in the job).
FOUND_SCHEMA = pa.schema([f for f in DIVERGENCE_SCHEMA if f.name not in ("kind", "cases")])
LOCAL_PART = "part-00000-in-process.parquet"  # the one file of divergences/ in process


@dataclass
class _Found:
    """What a fuzz job found, whichever engine ran it (the inputs of :class:`FuzzResult`)."""

    ran: int
    by_requirement: dict[str, int]
    by_kind: dict[str, int]
    seen: dict[str, int]
    first: list[dict[str, Any]]


def fuzz(
    spark: SparkSession | None,
    target: TargetSpec,
    cases: int,
    seed: int = 0,
    out: str | Path | None = None,
    *,
    sample: int = 20,
    timeout: float = DEFAULT_TIMEOUT,
    max_timeouts: int = DEFAULT_MAX_TIMEOUTS,
    checked: bool = False,
    started: float | None = None,
) -> FuzzResult:
    """Run ``cases`` differential cases against ``target``; write divergences to ``out``.

    ``spark``: the session to run on, or None to run in this process (one partition).
    ``target`` is a --target spec (``"reference"``) or, in process, a zero-argument factory
    returning a :class:`~mqcn_suite.targets.base.Target` (on Spark it is shipped to the
    workers, so it must be picklable by cloudpickle -- a class defined in a test function is).
    ``checked``: the caller already ran :func:`check_fuzz_arguments` (the command does, before
    Spark starts), so the target is not started once more just to be checked.  ``started``:
    the ``time.perf_counter()`` the command started at (``seconds`` is then its wall time).
    """
    name = _target_name(target) if checked else check_fuzz_arguments(target, cases, out, timeout)
    started = time.perf_counter() if started is None else started
    task = run_cases(target, seed, timeout, max_timeouts)
    if spark is None:
        out_path = in_process_location(out) if out is not None else None
        found = _fuzz_in_process(task, cases, out_path, sample)
        engine = IN_PROCESS
    else:
        out_path = Location(out) if out is not None else None  # a local path or a URI
        found = _fuzz_on_spark(spark, task, cases, out_path, sample)
        engine = spark_label(spark.sparkContext.master)
    ran, by_kind, first = found.ran, found.by_kind, found.first
    if int(ran) != cases:
        raise RuntimeError(f"{cases} cases planned but {ran} ran")
    not_run, stricter, other = (by_kind.get(k, 0) for k in (NOT_RUN, STRICTER, READING))
    result = FuzzResult(
        target=name,
        seed=seed,
        cases=int(ran),
        divergences=sum(by_kind.values()) - not_run - stricter - other,
        by_requirement=found.by_requirement,
        by_kind=by_kind,
        sample=first[:sample],
        seconds=round(time.perf_counter() - started, 3),
        out=str(out_path) if out_path is not None else None,
        not_run=not_run,
        stricter=stricter,
        other_reading=other,
        readings_followed=tally_readings(found.seen),
        engine=engine,
    )
    if out_path is not None:
        # divergences.jsonl: the first JSONL_LIMIT rows of divergences/ (every kind, each row
        # saying its own), and summary.json counts exactly the lines written.
        written = first[:JSONL_LIMIT]
        lines = [json.dumps(row, sort_keys=True) + "\n" for row in written]
        (out_path / DIVERGENCES_JSONL).write_text("".join(lines), "utf-8")
        summary = {
            **result.to_json(),
            "rows": sum(by_kind.values()),
            "jsonl_rows": len(written),
            "jsonl_limit": JSONL_LIMIT,
        }
        (out_path / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    return result


def _fuzz_on_spark(
    spark: SparkSession,
    task: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]],
    cases: int,
    out_path: Location | None,
    sample: int,
) -> _Found:
    """The cases spread over Spark partitions; the counts summed by Spark."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_schema

    partitions = max(
        1, min(cases, max(default_parallelism(spark), math.ceil(cases / CASES_PER_PARTITION)))
    )
    frame = (
        spark.range(0, cases, 1, partitions)
        .mapInArrow(task, from_arrow_schema(DIVERGENCE_SCHEMA))
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    try:
        ran = (
            frame.filter(F.col("kind") == "tally").agg(F.sum("cases").alias("n")).collect()[0]["n"]
            or 0
        )
        found = frame.filter(F.col("kind") == "divergence").drop("kind", "cases")
        real = found.filter(~F.col("divergence").isin(*ALLOWED))
        by_requirement = count_exploded(real, "requirements")
        by_kind = {
            r["divergence"]: r["n"]
            for r in found.groupBy("divergence").agg(F.count(F.lit(1)).alias("n")).collect()
        }
        seen = count_exploded(found, "readings")
        first = [
            r.asDict()
            for r in found.orderBy("case")
            .limit(max(sample, JSONL_LIMIT if out_path else 0))
            .collect()
        ]
        if out_path is not None:
            found.orderBy("case").write.parquet(str(out_path / DIVERGENCES_DIR))
    finally:
        frame.unpersist()
    return _Found(int(ran), by_requirement, by_kind, seen, first)


def _fuzz_in_process(
    task: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]],
    cases: int,
    out_path: Location | None,
    sample: int,
) -> _Found:
    """The same task on every case in this process (one partition); the counts summed here."""
    ran = 0
    rows: list[dict[str, Any]] = []
    for batch in task(case_batches(cases)):
        for row in batch.to_pylist():
            if row["kind"] == "tally":
                ran += row["cases"]
            else:
                rows.append({n: row[n] for n in FOUND_SCHEMA.names})
    rows.sort(key=lambda r: r["case"])
    requirements = Counter(
        requirement
        for r in rows
        if r["divergence"] not in ALLOWED
        for requirement in r["requirements"]
    )
    by_requirement = dict(sorted(requirements.items(), key=lambda kv: (-kv[1], kv[0])))
    by_kind = dict(Counter(r["divergence"] for r in rows))
    seen = dict(Counter(reading for r in rows for reading in r["readings"]))
    if out_path is not None:
        import pyarrow.parquet as pq

        folder = out_path.path / DIVERGENCES_DIR
        folder.mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=FOUND_SCHEMA), folder / LOCAL_PART)
        (folder / "_SUCCESS").write_bytes(b"")
    first = rows[: max(sample, JSONL_LIMIT if out_path else 0)]
    return _Found(ran, by_requirement, by_kind, seen, first)


def replay_fuzz_case(
    target: TargetSpec, seed: int, case: int, timeout: float = DEFAULT_TIMEOUT
) -> dict[str, Any]:
    """Run one case in this process (no Spark): what ``mqcn fuzz target --case N`` prints."""
    try:
        adapter, name = _resolve(target, timeout)
    except TargetError as exc:
        raise PipelineError(f"--target: {exc}") from None
    if case < 0:
        raise PipelineError(f"--case: {case} is negative")
    try:
        family, env = fuzz_case(seed, case)
        model = ReferenceTarget()
        row = compare_case(model, adapter, name, fuzz_setup(seed), seed, case)
    finally:
        adapter.close()
    record = model.server.records[-1] if model.server is not None and model.server.records else None
    return {
        "case": case,
        "seed": seed,
        "target": name,
        "family": family,
        "envelope": env.to_json(),
        "model_outcome": record.outcome if record else None,
        "model_reason": record.reason if record else None,
        "verdict": list(judge(env.body).requirements),
        "divergence": row,
    }
