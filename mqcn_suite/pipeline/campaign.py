"""``mqcn fuzz codec``: a hostile-input campaign against the codec, the judge and the server view.

Case ``n`` of seed ``s`` is a hostile body (:func:`mqcn_suite.pipeline.hostile.hostile_case`):
a valid message of some kind damaged one way (bit flips, inserted or deleted bytes, a hostile
size or count field, a broken string, a truncation, a splice of two messages, several of the
test suite's operators stacked) or plain random bytes.  ``spark.range(cases)`` spreads the
cases over partitions; every case goes, in one measured call, through

    judge(body, STRICT), judge(body, LENIENT),
    the strict Auditor's server view   (envelope: QueueManagerIdentifier, Sig20),
    the lenient Auditor's server view  (envelope: other values drawn for the case)

and is a **finding** when

* ``exception``: anything escaped the call -- the judge turns the codec's DecodeError into a
  verdict, and the server disregards what it cannot decode, so *any* exception is a bug;
* ``contract``: a verdict broke its own contract (a requirement outside the catalog, an
  offset outside the input, ``conforming`` disagreeing with the violations);
* ``slow``: the call took more than ``slow_ms`` (perf_counter) -- re-run ``repeats`` times
  and kept only if the fastest re-run is still over (scheduler noise, a GC pause);
* ``memory``: tracemalloc's peak during the call exceeded ``max(alloc_floor, alloc_factor x
  size)``, re-measured like a slow case (the first call through a code path fills caches).

Tracing allocations is dear: measured on one core, 11.8 k cases/s untraced, 1.7 k cases/s
tracing every case (6.8x the cost), 8.4 k cases/s tracing one case in 16 (1.4x).  So a
deterministic sample is traced -- the cases whose number is a multiple of ``trace_every``
(:data:`TRACE_EVERY`; ``--trace-every 1`` traces all) -- plus every case whose first run
was slow.  A replay (``mqcn fuzz codec --seed S --case I``) always traces.

The balance ``cases planned = cases generated = cases judged`` is checked from per-batch
tallies; a difference fails the campaign.

The same task (:func:`run_campaign`) also runs in this process, without Spark:
``campaign(None, ...)``, the in-process engine ``mqcn fuzz codec`` picks for small runs
(:mod:`mqcn_suite.pipeline.engine`).
"""

from __future__ import annotations

import json
import math
import random
import signal
import threading
import time
import traceback
import tracemalloc
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mqcn_model.catalog import CATALOG
from mqcn_model.constants import (
    AuthLevel,
    DeliveryGuarantee,
    HashAlgorithm,
    SenderIdType,
    notify_queue_format_name,
)
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import LENIENT, STRICT, Readings
from mqcn_model.judge import Verdict, judge
from mqcn_suite.pipeline.audit import Auditor
from mqcn_suite.pipeline.checks import check_cases, check_out
from mqcn_suite.pipeline.engine import IN_PROCESS, case_batches, count_exploded, spark_label
from mqcn_suite.pipeline.hostile import QM, HostileCase, hostile_case, seed_pool
from mqcn_suite.pipeline.session import PipelineError, default_parallelism
from mqcn_suite.pipeline.storage import SUMMARY_JSON, Location, in_process_location

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CATEGORIES = ("exception", "contract", "slow", "memory")
JudgeFunction = Callable[[bytes, Readings], Verdict]
TRACE_EVERY = 16  # one case in 16 is traced (by case number), besides every slow case
HEX_SHOWN = 256  # bytes of the body shown in a finding row; the whole body is in bodies/
JSONL_LIMIT = 10_000
CASES_PER_PARTITION = 100_000
FINDINGS_JSONL = "findings.jsonl"
BODIES_DIR = "bodies"

CAMPAIGN_SCHEMA = pa.schema(
    [
        ("row", pa.string()),  # "finding", or "tally" (one per batch and kind)
        ("case", pa.int64()),
        ("kind", pa.string()),  # kind of damage (hostile.KINDS)
        ("origin", pa.string()),
        ("size", pa.int64()),
        ("categories", pa.list_(pa.string())),
        ("detail", pa.string()),
        ("milliseconds", pa.float64()),
        ("peak_bytes", pa.int64()),
        ("traced", pa.bool_()),
        ("hex", pa.string()),  # the whole body
        ("generated", pa.int64()),  # tally rows
        ("judged", pa.int64()),
        ("traced_cases", pa.int64()),
    ]
)


@dataclass(frozen=True)
class Limits:
    """What counts as too slow or too hungry, and how hard to look."""

    slow_ms: float = 10.0
    alloc_factor: int = 64
    alloc_floor: int = 64 * 1024
    trace_every: int = TRACE_EVERY  # 1: trace every case
    repeats: int = 3
    hang_seconds: float = 10.0  # a call still running after this is stopped (main thread only)

    def budget(self, size: int) -> int:
        """The most a call on ``size`` input bytes may allocate at its peak."""
        return max(self.alloc_floor, self.alloc_factor * size)

    def options(self) -> str:
        """The command-line options that differ from the defaults (for the replay line)."""
        default = Limits()
        parts = []
        if self.slow_ms != default.slow_ms:
            parts.append(f"--slow-ms {self.slow_ms:g}")
        if self.alloc_factor != default.alloc_factor:
            parts.append(f"--alloc-factor {self.alloc_factor}")
        if self.alloc_floor != default.alloc_floor:
            parts.append(f"--alloc-floor {self.alloc_floor}")
        return " ".join(parts)


def codec_replay_line(seed: int, case: int, limits: Limits) -> str:
    """The one-line command that replays case ``case`` in process, without Spark."""
    extra = limits.options()
    return f"mqcn fuzz codec --seed {seed} --case {case}" + (f" {extra}" if extra else "")


class ContractBroken(AssertionError):
    """A verdict contradicts what every verdict promises (see :func:`check_verdict`)."""


def check_verdict(verdict: Verdict, body: bytes) -> None:
    """The judge's promises: catalog IDs, offsets inside the input, consistent flags."""
    if verdict.size != len(body):
        raise ContractBroken(f"verdict size {verdict.size} for a {len(body)}-byte input")
    if verdict.conforming != (not verdict.violations):
        raise ContractBroken("conforming disagrees with the violations")
    for found in (*verdict.violations, *verdict.observations):
        if found.requirement not in CATALOG:
            raise ContractBroken(f"{found.requirement} is not in the catalog")
        if found.offset is not None and not 0 <= found.offset <= len(body):
            raise ContractBroken(f"{found.requirement} at offset {found.offset} outside the input")
    if verdict.message is None and (len(verdict.violations) != 1 or verdict.observations):
        raise ContractBroken("an undecodable input must carry exactly its one decode violation")


@dataclass
class Peak:
    """The peak allocation of a block, in bytes above what was allocated when it began."""

    bytes: int = 0


@contextmanager
def allocation_peak() -> Iterator[Peak]:
    """Measure the block's peak allocation with tracemalloc (set when the block ends).

    Tracing is started for the block and stopped after it, unless it was already on (then it
    is left on, and the peak is reset).  Tracing slows every allocation down: see
    :data:`TRACE_EVERY`.
    """
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    peak = Peak()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        yield peak
        peak.bytes = tracemalloc.get_traced_memory()[1] - before
    finally:
        if started:
            tracemalloc.stop()


# --- one case ------------------------------------------------------------------------------------

_SENDER_TYPES = tuple(SenderIdType)
_AUTH_LEVELS = tuple(AuthLevel)
_HASHES = (None, HashAlgorithm.MD5, HashAlgorithm.SHA1, HashAlgorithm.SHA512)  # the senders' (E-16)
_DESTINATION = notify_queue_format_name(str(QM))


def envelopes(case: HostileCase) -> tuple[Envelope, Envelope]:
    """The two envelopes of a case: an authenticated queue manager's, and other values.

    The second draws every attribute the server may look at from the case's own bits, so it
    is sometimes disregarded (sender type, authentication level) and sometimes processed.
    """
    plain = Envelope(
        case.body,
        MessageId(QM, case.case & 0xFFFFFFFF),
        sender_identifier=QM,
        sender_identifier_type=SenderIdType.QueueManagerIdentifier,
        authentication_level=AuthLevel.Sig20,
        destination_format_name=_DESTINATION,
    )
    rng = random.Random(case.envelope_bits)
    sender = uuid.UUID(int=rng.getrandbits(128))
    kind = rng.choice(_SENDER_TYPES)
    other = Envelope(
        case.body,
        MessageId(sender, rng.getrandbits(32)),
        sender_identifier=None if kind is SenderIdType.None_ else sender,
        sender_identifier_type=kind,
        authentication_level=rng.choice(_AUTH_LEVELS),
        time_to_reach_queue=rng.choice((0, 1, 300, 0xFFFFFFFF)),
        delivery_guarantee=rng.choice(tuple(DeliveryGuarantee)),
        hash_algorithm=rng.choice(_HASHES),
        destination_format_name=rng.choice((_DESTINATION, "", "DIRECT=OS:x\\private$\\notify")),
        arrival_time=float(rng.getrandbits(31)),
    )
    return plain, other


class _Hang(BaseException):
    """Raised by the watchdog timer inside a call that ran too long (a BaseException, so that
    no ``except Exception`` in the code under test can swallow it)."""


def _where(exc: BaseException) -> str:
    """The innermost frame of the project's code in ``exc``'s traceback: ``file:line in fn``."""
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if "mqcn_model" in frame.filename or "mqcn_suite" in frame.filename:
            name = frame.filename.rsplit("mqcn_", 1)[-1]
            found = f"mqcn_{name}:{frame.lineno} in {frame.name}"
    return found


@dataclass
class Finding:
    """What went wrong with one case."""

    categories: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    milliseconds: float | None = None
    peak_bytes: int | None = None
    traced: bool = False

    def add(self, category: str, detail: str) -> None:
        self.categories.append(category)
        self.details.append(detail)


class Examiner:
    """Runs cases through the judge and the server view, and measures them.

    One per Spark task (or process).  Its two :class:`~mqcn_suite.pipeline.audit.Auditor`
    objects clear their server after every message; after an exception they are rebuilt, so
    a broken case never leaks state into the next.
    """

    def __init__(
        self,
        limits: Limits | None = None,
        warm_up: int | None = None,
        judge_function: JudgeFunction | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.judge = judge_function or judge
        self._fresh()
        self.stage = ""  # which part of the call runs (named in an exception's finding)
        self.last_traced = False  # whether the last examined case was traced
        self._watchdog = (
            self.limits.hang_seconds > 0
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        if warm_up is not None:  # fill the caches of every code path before measuring
            for seed in seed_pool(warm_up):
                self.call(HostileCase(warm_up, -1, "warm-up", seed.name, seed.buffer, 0))

    def _fresh(self) -> None:
        self.strict = Auditor(STRICT)
        self.lenient = Auditor(LENIENT)

    def call(self, case: HostileCase, pair: tuple[Envelope, Envelope] | None = None) -> None:
        """The measured unit: both judges and both server views of one body (``pair``: the
        case's :func:`envelopes`, made before the clock starts)."""
        body = case.body
        plain, other = pair or envelopes(case)
        self.stage = "judge (strict)"
        strict = self.judge(body, STRICT)
        check_verdict(strict, body)
        self.stage = "judge (lenient)"
        lenient = self.judge(body, LENIENT)
        check_verdict(lenient, body)
        self.stage = "server view (strict, QueueManagerIdentifier/Sig20)"
        self.strict.server_view(plain, strict.decoded)
        self.stage = "server view (lenient, other envelope)"
        self.lenient.server_view(other, lenient.decoded)

    def _timed(self, case: HostileCase, pair: tuple[Envelope, Envelope]) -> float:
        """Seconds one call took; raises what the call raised (or :class:`_Hang`)."""
        if self._watchdog:
            previous = signal.signal(signal.SIGALRM, _raise_hang)
            signal.setitimer(signal.ITIMER_REAL, self.limits.hang_seconds)
        try:
            started = time.perf_counter()
            self.call(case, pair)
            return time.perf_counter() - started
        finally:
            if self._watchdog:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)

    def _peak(self, case: HostileCase, pair: tuple[Envelope, Envelope]) -> int:
        """tracemalloc's peak (bytes above the starting point) during one call."""
        with allocation_peak() as peak:
            self._timed(case, pair)
        return peak.bytes

    def traced(self, case: HostileCase) -> bool:
        """Whether the sample traces ``case``'s allocations (deterministic in the case)."""
        every = self.limits.trace_every
        return every <= 1 or case.case % every == 0

    def examine(self, case: HostileCase, *, trace: bool | None = None) -> Finding | None:
        """The finding of ``case``, or None when it is fast, frugal and raised nothing.

        ``trace`` forces tracing on or off; by default the sample (:meth:`traced`) and every
        slow case are traced.
        """
        finding = Finding()
        self.last_traced = False
        try:
            self._measure(case, finding, trace)
        except _Hang:
            self._fresh()
            hang = self.limits.hang_seconds
            finding.add("slow", f"{self.stage}: stopped after {hang:g} s, still running")
        except ContractBroken as exc:
            self._fresh()
            finding.add("contract", f"{self.stage}: {exc}")
        except Exception as exc:
            self._fresh()
            where = _where(exc)
            text = f"{self.stage}: {type(exc).__name__}: {_short(str(exc))}"
            finding.add("exception", text + (f" (at {where})" if where else ""))
        return finding if finding.categories else None

    def _measure(self, case: HostileCase, finding: Finding, trace: bool | None) -> None:
        limits = self.limits
        pair = envelopes(case)
        elapsed = self._timed(case, pair)
        finding.milliseconds = round(elapsed * 1000, 3)
        slow = elapsed * 1000 > limits.slow_ms
        if slow:  # re-run: a single slow run may be the scheduler's or the collector's doing
            best = min(self._timed(case, pair) for _ in range(limits.repeats))
            finding.milliseconds = round(best * 1000, 3)
            if best * 1000 > limits.slow_ms:
                finding.add(
                    "slow",
                    f"{best * 1000:.1f} ms, the fastest of {limits.repeats} re-runs "
                    f"(limit {limits.slow_ms:g} ms; first run {elapsed * 1000:.1f} ms)",
                )
        if not (trace if trace is not None else (slow or self.traced(case))):
            return
        finding.traced = self.last_traced = True
        budget = limits.budget(len(case.body))
        peak = self._peak(case, pair)
        if peak > budget:  # the first call through a path fills caches: measure again
            peak = min([peak, *(self._peak(case, pair) for _ in range(limits.repeats - 1))])
        finding.peak_bytes = peak
        if peak > budget:
            finding.add(
                "memory",
                f"peak allocation {peak} bytes > {budget} "
                f"(max({limits.alloc_floor}, {limits.alloc_factor} x {len(case.body)} bytes))",
            )


def _short(text: str, limit: int = 300) -> str:
    """One line of at most ``limit`` characters (an exception's text may quote the input)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _raise_hang(signum: int, frame: object) -> None:
    raise _Hang


# --- the Spark task ------------------------------------------------------------------------------


def _finding_row(case: HostileCase, finding: Finding) -> dict[str, Any]:
    return {
        "row": "finding",
        "case": case.case,
        "kind": case.kind,
        "origin": case.origin,
        "size": len(case.body),
        "categories": finding.categories,
        "detail": "; ".join(finding.details),
        "milliseconds": finding.milliseconds,
        "peak_bytes": finding.peak_bytes,
        "traced": finding.traced,
        "hex": case.body.hex(),
        "generated": None,
        "judged": None,
        "traced_cases": None,
    }


def run_campaign(
    seed: int, limits: Limits, judge_function: JudgeFunction | None = None
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function: case numbers in; findings, and tallies per kind, out."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        examiner = Examiner(limits, warm_up=seed, judge_function=judge_function)
        for batch in batches:
            generated: Counter[str] = Counter()
            judged: Counter[str] = Counter()
            traced: Counter[str] = Counter()
            rows: list[dict[str, Any]] = []
            for number in batch.column(0).to_pylist():
                case = hostile_case(seed, number)
                generated[case.kind] += 1
                finding = examiner.examine(case)
                judged[case.kind] += 1
                traced[case.kind] += examiner.last_traced
                if finding is not None:
                    rows.append(_finding_row(case, finding))
            for kind in generated:
                tally = dict.fromkeys(CAMPAIGN_SCHEMA.names)
                tally.update(row="tally", kind=kind, categories=[], generated=generated[kind])
                tally.update(judged=judged[kind], traced_cases=traced[kind])
                rows.append(tally)
            yield pa.RecordBatch.from_pylist(rows, schema=CAMPAIGN_SCHEMA)

    return run


# --- the job -----------------------------------------------------------------------------------


@dataclass
class CampaignResult:
    """What the campaign ran and found."""

    seed: int
    cases: int
    generated: int
    judged: int
    traced: int
    by_kind: dict[str, int]
    findings: int
    by_category: dict[str, int]
    sample: list[dict[str, Any]]
    seconds: float
    limits: Limits
    out: str | None
    engine: str = IN_PROCESS  # "in-process" or "Spark <master>"

    @property
    def balanced(self) -> bool:
        return self.cases == self.generated == self.judged

    def balance_line(self) -> str:
        return f"cases planned {self.cases} = generated {self.generated} = judged {self.judged}"

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "cases": self.cases,
            "generated": self.generated,
            "judged": self.judged,
            "balanced": self.balanced,
            "traced": self.traced,
            "by_kind": self.by_kind,
            "findings": self.findings,
            "by_category": self.by_category,
            "engine": self.engine,
            "seconds": self.seconds,
            "cases_per_second": round(self.cases / self.seconds, 1) if self.seconds else None,
            "limits": {
                "slow_ms": self.limits.slow_ms,
                "alloc_factor": self.limits.alloc_factor,
                "alloc_floor": self.limits.alloc_floor,
                "trace_every": self.limits.trace_every,
                "repeats": self.limits.repeats,
                "hang_seconds": self.limits.hang_seconds,
            },
        }


def presentable(row: dict[str, Any], seed: int, limits: Limits) -> dict[str, Any]:
    """A finding as written to findings.jsonl and shown: hex capped, a replay line added."""
    full = row["hex"] or ""
    shown = {
        k: v for k, v in row.items() if k not in ("row", "generated", "judged", "traced_cases")
    }
    shown.update(
        seed=seed,
        hex=full[: 2 * HEX_SHOWN],
        hex_truncated=len(full) > 2 * HEX_SHOWN,
        body_file=f"{BODIES_DIR}/case-{row['case']}.hex",
        replay=codec_replay_line(seed, row["case"], limits),
    )
    return shown


def campaign(
    spark: SparkSession | None,
    cases: int,
    seed: int = 0,
    out: str | Path | None = None,
    limits: Limits | None = None,
    *,
    sample: int = 20,
    judge_function: JudgeFunction | None = None,
    started: float | None = None,
) -> CampaignResult:
    """Run ``cases`` hostile bodies; write findings.jsonl and summary.json to ``out``.

    ``spark``: the session to run on, or None to run in this process.  ``judge_function``
    replaces :func:`mqcn_model.judge.judge` (the tests plant bugs with it; on Spark it is
    shipped to the executors, so it must be picklable by cloudpickle).  ``started``: the
    ``time.perf_counter()`` the command started at (``seconds`` is then its wall time).
    """
    limits = limits or Limits()
    check_cases(cases)
    started = time.perf_counter() if started is None else started
    task = run_campaign(seed, limits, judge_function)
    keep = max(sample, JSONL_LIMIT if out is not None else 0)
    if spark is None:
        out_path = in_process_location(out) if out is not None else None
        if out_path is not None:
            check_out(out_path)
        tallies, findings, by_category, first = _campaign_in_process(task, cases, keep)
        engine = IN_PROCESS
    else:
        out_path = Location(out) if out is not None else None  # a local path or a URI
        if out_path is not None:
            check_out(out_path)
        tallies, findings, by_category, first = _campaign_on_spark(spark, task, cases, keep)
        engine = spark_label(spark.sparkContext.master)
    seconds = round(time.perf_counter() - started, 3)
    rows = [presentable(r, seed, limits) for r in first]
    result = CampaignResult(
        seed=seed,
        cases=cases,
        generated=int(sum(t["generated"] for t in tallies)),
        judged=int(sum(t["judged"] for t in tallies)),
        traced=int(sum(t["traced"] for t in tallies)),
        by_kind={t["kind"]: int(t["generated"]) for t in sorted(tallies, key=lambda t: t["kind"])},
        findings=int(findings),
        by_category={c: int(by_category.get(c, 0)) for c in CATEGORIES},
        sample=rows[:sample],
        seconds=seconds,
        limits=limits,
        out=str(out_path) if out_path is not None else None,
        engine=engine,
    )
    if out_path is not None:
        write_out(out_path, result, first, rows)
    return result


Tallies = list[dict[str, Any]]  # per kind: generated, judged, traced


def _campaign_on_spark(
    spark: SparkSession,
    task: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]],
    cases: int,
    keep: int,
) -> tuple[Tallies, int, dict[str, int], list[dict[str, Any]]]:
    """(tallies per kind, findings, findings per category, the first ``keep`` findings)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_schema

    partitions = max(
        1, min(cases, max(default_parallelism(spark), math.ceil(cases / CASES_PER_PARTITION)))
    )
    frame = (
        spark.range(0, cases, 1, partitions)
        .mapInArrow(task, from_arrow_schema(CAMPAIGN_SCHEMA))
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    try:
        tallies = (
            frame.filter(F.col("row") == "tally")
            .groupBy("kind")
            .agg(
                F.sum("generated").alias("generated"),
                F.sum("judged").alias("judged"),
                F.sum("traced_cases").alias("traced"),
            )
            .collect()
        )
        found = frame.filter(F.col("row") == "finding")
        findings = found.count()
        by_category = count_exploded(found, "categories")
        first = [r.asDict() for r in found.orderBy("case").limit(keep).collect()]
    finally:
        frame.unpersist()
    return [t.asDict() for t in tallies], int(findings), by_category, first


def _campaign_in_process(
    task: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]],
    cases: int,
    keep: int,
) -> tuple[Tallies, int, dict[str, int], list[dict[str, Any]]]:
    """The same as :func:`_campaign_on_spark`, the task run here on every case."""
    sums: dict[str, dict[str, Any]] = {}
    found: list[dict[str, Any]] = []
    for batch in task(case_batches(cases)):
        for row in batch.to_pylist():
            if row["row"] == "tally":
                kind = sums.setdefault(
                    row["kind"], {"kind": row["kind"], "generated": 0, "judged": 0, "traced": 0}
                )
                kind["generated"] += row["generated"]
                kind["judged"] += row["judged"]
                kind["traced"] += row["traced_cases"]
            else:
                found.append(row)
    found.sort(key=lambda r: r["case"])
    by_category = dict(Counter(c for r in found for c in r["categories"]))
    return list(sums.values()), len(found), by_category, found[:keep]


def write_out(
    out_path: Location,
    result: CampaignResult,
    raw: list[dict[str, Any]],
    rows: list[dict[str, Any]],
) -> None:
    """findings.jsonl (at most :data:`JSONL_LIMIT` rows), bodies/, summary.json."""
    (out_path / BODIES_DIR).mkdir(parents=True, exist_ok=True)
    lines = []
    for full, row in zip(raw[:JSONL_LIMIT], rows[:JSONL_LIMIT], strict=True):
        lines.append(json.dumps(row, sort_keys=True) + "\n")
        (out_path / BODIES_DIR / f"case-{row['case']}.hex").write_text(full["hex"] + "\n")
    (out_path / FINDINGS_JSONL).write_text("".join(lines))
    summary = {**result.to_json(), "jsonl_rows": min(result.findings, JSONL_LIMIT)}
    (out_path / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n", "utf-8")


def replay_codec_case(
    seed: int,
    case: int,
    limits: Limits | None = None,
    judge_function: JudgeFunction | None = None,
) -> dict[str, Any]:
    """Case ``case`` of ``seed`` in this process (no Spark), always traced: its finding or None."""
    if case < 0:
        raise PipelineError(f"--case: {case} is negative")
    limits = limits or Limits()
    examiner = Examiner(limits, warm_up=seed, judge_function=judge_function)
    hostile = hostile_case(seed, case)
    finding = examiner.examine(hostile, trace=True)
    row = presentable(_finding_row(hostile, finding), seed, limits) if finding else None
    verdict: Verdict | None = None
    if finding is None or not any(d.endswith("still running") for d in finding.details):
        try:
            verdict = examiner.judge(hostile.body, STRICT)
        except Exception:  # the finding says what it raised
            verdict = None
    return {
        "seed": seed,
        "case": case,
        "kind": hostile.kind,
        "origin": hostile.origin,
        "size": len(hostile.body),
        "hex": hostile.body.hex(),
        "verdict": list(verdict.requirements) if verdict is not None else None,
        "finding": row,
    }
