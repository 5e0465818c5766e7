"""Audit throughput: the judge alone, the single-process audit loop and Spark, on one corpus.

On demand, never part of the tests::

    python benchmarks/bench_audit.py                        # 1 M and 4 M messages, local[2]
    python benchmarks/bench_audit.py --sizes 200000         # a quick check
    python benchmarks/bench_audit.py --sizes 1000000,2000000,4000000,8000000 --memory-only
    python benchmarks/bench_audit.py --master spark://host:7077 --sizes 4000000

For each size it generates a corpus (``corpus.generate``, seed 1; reused from an earlier run
with ``--keep`` when its manifest matches), then measures on that corpus, in one run:

* **judge alone**: :func:`mqcn_model.judge.judge` over every body, read from the corpus'
  row groups exactly as the audit task reads them (pyarrow, page checksums verified);
* **single-process audit loop**: the audit task's own code
  (:func:`mqcn_suite.pipeline.audit.tasks.judge_row_group`: judge, server view, Arrow
  rows, tally) over the same row groups, in this process -- no Spark;
* **Spark**: ``audit.audit`` on ``--master`` (default ``local[2]``): the same task in
  ``mapInArrow``, plus the verdict and quarantine Parquet and the summary.

The first two alternate row group by row group, so that a machine whose load changes
affects both alike; both are limited to the first ``--single-limit`` rows (rates, not
totals).  Rates are messages per second of wall time, and per second of CPU time, which the
load of other processes disturbs less: ``time.process_time`` for the in-process loops, the
CPU time of the whole process tree (``/proc``) for Spark -- for ``local[N]`` on an idle
machine Spark's CPU rate is its wall rate divided by up to N.  Printed ratios: single /
judge (goal >= 0.6) and Spark / single (goal >= 1.7 for ``local[2]`` at 4 M).  Peak memory
is the largest resident set of the whole process tree (this driver, the JVM, the Python
workers), sampled from ``/proc`` every 0.2 s (``psutil`` is not needed), for the generation
and for the Spark audit apart.  ``--memory-only`` skips the two in-process loops (for the
8 M memory figure), ``--no-spark`` the Spark audit (Spark then only generates a corpus that
``--keep`` did not leave: the quick way to measure the in-process ratio);
``--pairs N`` runs the single-process loop and then the Spark audit (in a new process, on a
new session) N times in turn and prints each pair's ratio and their median
(``spark_over_single_median``): on a shared machine the same job's time moves by a fifth
between runs minutes apart, which a ratio of two runs made far apart shows as a gain or a
loss;
``--fuzz-cases N`` also times N differential fuzz cases against ``reference``;
``--whole-single`` also times the in-process engine's whole audit of the corpus (the same
job as Spark's: planning, judging, writing the outputs and the summary, in this one process)
and prints Spark's time against it (``spark_over_whole_single``), beside the ratio to the
loop's rate, which leaves out the writing and the start.

Results go to stdout, one JSON line per size, and to ``--json`` (default
``bench_audit.json`` in the work directory).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mqcn_model.errata import STRICT
from mqcn_model.judge import judge
from mqcn_suite.pipeline.audit import audit, plan_input
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.kinds.parquet import judge_row_group
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.audit.tasks import RowBuilder
from mqcn_suite.pipeline.corpus import BODY, MANIFEST, generate
from mqcn_suite.pipeline.fuzz import fuzz
from mqcn_suite.pipeline.session import create_session

PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")
SEED = 1
BATCH_ROWS = 5000  # what the audit task reads at a time


def _stat(pid: int | str) -> list[bytes]:
    """The fields of /proc/<pid>/stat after the command name (field 3 is the first)."""
    with open(f"/proc/{pid}/stat", "rb") as handle:
        return handle.read().rsplit(b")", 1)[1].split()


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            parent = int(_stat(entry)[1])
        except OSError:
            continue
        tree.setdefault(parent, []).append(int(entry))
    return tree


def _descendants(root: int) -> list[int]:
    tree, found, stack = _children(), [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(tree.get(pid, []))
    return found


def tree_cpu(root: int) -> float:
    """CPU seconds used so far by ``root`` and its descendants, living or reaped."""
    total = 0
    for pid in _descendants(root):
        try:
            fields = _stat(pid)
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return total / TICK


def tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants (from /proc/<pid>/statm)."""
    total = 0
    for pid in _descendants(root):
        try:
            with open(f"/proc/{pid}/statm") as handle:
                total += int(handle.read().split()[1]) * PAGE
        except OSError:
            pass
    return total


class PeakMemory:
    """Context manager sampling the process tree's RSS; ``.peak`` in bytes afterwards."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval, self.peak = interval, 0
        self._stop = threading.Event()

    def __enter__(self) -> PeakMemory:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss(os.getpid()))
            self._stop.wait(self.interval)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, tree_rss(os.getpid()))


class Clock:
    """Wall and CPU seconds spent inside ``with clock:`` blocks, summed."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0

    def __enter__(self) -> Clock:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall += time.perf_counter() - self._wall
        self.cpu += time.process_time() - self._cpu


def _judge_alone(unit: dict[str, Any]) -> int:
    """judge() over the bodies of one row group, read as the audit task reads them."""
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(unit["path"], page_checksum_verification=True)
    done = 0
    for chunk in parquet.iter_batches(
        batch_size=BATCH_ROWS, row_groups=[unit["row_group"]], columns=[BODY], use_threads=False
    ):
        for body in chunk.column(BODY).to_pylist():
            judge(body, STRICT)
        done += chunk.num_rows
    return done


def in_process(corpus: Path, limit: int) -> dict[str, Any]:
    """The judge alone and the audit task's code, alternating row group by row group."""
    plan = plan_input(corpus)
    auditor, tally = Auditor(STRICT), Tally()
    rows = RowBuilder(tally)
    alone, single = Clock(), Clock()
    done = emitted = 0
    for unit in plan.work:
        if done >= limit:
            break
        with alone:
            judged = _judge_alone(unit)
        with single:
            for batch in judge_row_group(auditor, rows, unit, BATCH_ROWS):
                emitted += batch.num_rows
        done += judged
    with single:
        emitted += tally.batch().num_rows  # the task's last batch: its tally
    rate = {
        "rows": done,
        "judge_rate": round(done / alone.wall, 1),
        "single_rate": round(done / single.wall, 1),
        "judge_rate_cpu": round(done / alone.cpu, 1),
        "single_rate_cpu": round(done / single.cpu, 1),
        "single_over_judge": round(alone.wall / single.wall, 3),
        "single_over_judge_cpu": round(alone.cpu / single.cpu, 3),
        "rows_emitted": emitted,
    }
    return rate


def step_timer(phases: dict[str, float]) -> Callable[[str], Any]:
    """The audit's ``progress`` argument that keeps the wall seconds of each of its steps
    (judging, writing the quarantine, the summary) in ``phases``."""

    @contextmanager
    def steps(name: str) -> Iterator[None]:
        begun = time.perf_counter()
        yield
        phases[name] = round(time.perf_counter() - begun, 2)

    return steps


def spark_audit(
    session: Callable[[], Any],
    corpus: Path,
    out: Path,
    size: int,
    steps: Callable[[str], Any],
    phases: dict[str, float],
) -> dict[str, Any]:
    """``audit.audit`` of ``corpus`` on Spark, timed from before the session is asked for (a
    new session's start is in the time), with the process tree's CPU and peak memory."""
    with PeakMemory() as memory:
        begun, cpu = time.perf_counter(), tree_cpu(os.getpid())
        audited = audit(session(), corpus, out, progress=steps)
        seconds, cpu = time.perf_counter() - begun, tree_cpu(os.getpid()) - cpu
    return {
        "seconds": round(seconds, 2),
        "rate": round(size / seconds, 1),
        "cpu_seconds": round(cpu, 1),
        "rate_cpu": round(size / cpu, 1),
        "steps": dict(phases),
        "load_average": os.getloadavg(),
        "peak_rss_mb": round(memory.peak / 2**20),
        "balance": audited.balance_line(),
    }


def spark_child(args: argparse.Namespace, corpus: Path, out: Path, size: int) -> dict[str, Any]:
    """:func:`spark_audit` in this (child) process, on a session of its own; ``out`` is
    removed before and after."""
    conf = dict(item.split("=", 1) for item in args.conf)
    sessions: list[Any] = []
    phases: dict[str, float] = {}

    def session() -> Any:
        sessions.append(create_session(args.master, conf))
        return sessions[0]

    shutil.rmtree(out, ignore_errors=True)
    try:
        return spark_audit(session, corpus, out, size, step_timer(phases), phases)
    finally:
        for spark in sessions:
            spark.stop()
        shutil.rmtree(out, ignore_errors=True)  # measured: the rows are not kept


def spark_in_child(args: argparse.Namespace, corpus: Path, out: Path, size: int) -> dict[str, Any]:
    """:func:`spark_child` in a new Python process (a new JVM: every pair starts cold)."""
    argv = [sys.executable, __file__, "--master", args.master, "--spark-child"]
    argv += [str(corpus), str(out), str(size)]
    for item in args.conf:
        argv += ["--conf", item]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the Spark audit failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def whole_single(corpus: Path, out: Path) -> dict[str, Any]:
    """The in-process engine's whole audit of ``corpus``: planning, judging, the verdict and
    quarantine Parquet and the summary -- the same job as Spark's, in this one process."""
    shutil.rmtree(out, ignore_errors=True)
    with PeakMemory() as memory:
        begun, cpu = time.perf_counter(), time.process_time()
        audited = audit(None, corpus, out)
        seconds, cpu = time.perf_counter() - begun, time.process_time() - cpu
    shutil.rmtree(out, ignore_errors=True)
    return {
        "seconds": round(seconds, 2),
        "rate": round(audited.rows_in / seconds, 1),
        "cpu_seconds": round(cpu, 1),
        "peak_rss_mb": round(memory.peak / 2**20),
        "balance": audited.balance_line(),
    }


def corpus_for(
    session: Callable[[], Any], size: int, work: Path, invalid_share: float
) -> tuple[Path, Any]:
    """The corpus of ``size`` rows: reused when an earlier ``--keep`` run left a matching one
    (``session()`` starts Spark only when the corpus is to be generated)."""
    corpus = work / f"corpus-{size}"
    manifest = corpus / MANIFEST
    if manifest.exists():
        known = json.loads(manifest.read_text())
        if (known["rows"], known["seed"], known["invalid_share"]) == (size, SEED, invalid_share):
            return corpus, None
    shutil.rmtree(corpus, ignore_errors=True)
    with PeakMemory() as memory:
        made = generate(session(), size, corpus, invalid_share, seed=SEED)
    return corpus, {
        "generate_seconds": made.seconds,
        "generate_rate": round(size / made.seconds, 1),
        "generate_peak_rss_mb": round(memory.peak / 2**20),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="1000000,4000000")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--invalid-share", type=float, default=0.1)
    parser.add_argument("--single-limit", type=int, default=1_000_000)
    parser.add_argument("--memory-only", action="store_true", help="skip the in-process loops")
    parser.add_argument("--no-spark", action="store_true", help="skip the Spark audit")
    parser.add_argument("--workdir", default="/tmp/mqcn-bench")
    parser.add_argument("--keep", action="store_true", help="keep (and reuse) the corpora")
    parser.add_argument("--fuzz-cases", type=int, default=0, help="also time differential fuzzing")
    parser.add_argument(
        "--whole-single",
        action="store_true",
        help="also time the in-process engine's whole audit (writing its outputs)",
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="alternate the in-process loop and a Spark audit on a new session N times",
    )
    parser.add_argument("--json", default=None)
    parser.add_argument("--spark-child", nargs=3, help=argparse.SUPPRESS)  # CORPUS OUT SIZE
    args = parser.parse_args()
    if args.spark_child:
        child_corpus, child_out, child_size = args.spark_child
        print(json.dumps(spark_child(args, Path(child_corpus), Path(child_out), int(child_size))))
        return
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    conf = dict(item.split("=", 1) for item in args.conf)
    started: list[Any] = []

    def session() -> Any:
        """The Spark session, started on first use (never, for --no-spark on a kept corpus)."""
        if not started:
            started.append(create_session(args.master, conf))
        return started[0]

    results: dict[str, Any] = {"master": args.master, "cpus": os.cpu_count(), "sizes": []}
    target = Path(args.json) if args.json else work / "bench_audit.json"
    phases: dict[str, float] = {}
    steps = step_timer(phases)

    try:
        for size in (int(s) for s in args.sizes.split(",") if s):
            corpus, made = corpus_for(session, size, work, args.invalid_share)
            out = work / f"audit-{size}"
            shutil.rmtree(out, ignore_errors=True)
            entry: dict[str, Any] = {"messages": size, "generate": made}
            if not args.memory_only:
                entry["in_process"] = in_process(corpus, args.single_limit)
            if args.whole_single:
                entry["whole_single"] = whole_single(corpus, work / f"audit-{size}-in-process")
            if args.no_spark:
                results["sizes"].append(entry)
                print(json.dumps(entry), flush=True)
                target.write_text(json.dumps(results, indent=2) + "\n")
                if not args.keep:
                    shutil.rmtree(corpus, ignore_errors=True)
                continue
            pairs = []
            if args.pairs > 1 and started:  # the generating session: not beside the pairs' own
                started.pop().stop()
            for pair in range(max(args.pairs, 1)):
                if pair:  # each pair: the loop again, then Spark
                    entry["in_process"] = in_process(corpus, args.single_limit)
                if args.pairs > 1:  # a new process each time: a new JVM, as cold as the first
                    entry["spark"] = spark_in_child(args, corpus, out, size)
                else:
                    entry["spark"] = spark_audit(session, corpus, out, size, steps, phases)
                shutil.rmtree(out, ignore_errors=True)
                if args.whole_single:
                    whole = entry["whole_single"]["seconds"]
                    entry["spark_over_whole_single"] = round(whole / entry["spark"]["seconds"], 3)
                if not args.memory_only:
                    single = entry["in_process"]
                    spark_rate = entry["spark"]["rate"]
                    entry["spark_over_single"] = round(spark_rate / single["single_rate"], 3)
                    entry["spark_over_single_cpu"] = round(
                        entry["spark"]["rate_cpu"] / single["single_rate_cpu"], 3
                    )
                    pairs.append(
                        {
                            "single_rate": single["single_rate"],
                            "single_over_judge": single["single_over_judge"],
                            "spark_seconds": entry["spark"]["seconds"],
                            "spark_over_single": entry["spark_over_single"],
                        }
                    )
                    print(json.dumps({"pair": pair + 1, **pairs[-1]}), flush=True)
            if len(pairs) > 1:  # the same-time ratios, and their median: robust to a load
                entry["pairs"] = pairs  # that changes between runs, which absolute rates are not
                entry["spark_over_single_median"] = round(
                    statistics.median(p["spark_over_single"] for p in pairs), 3
                )
                entry["single_over_judge_median"] = round(
                    statistics.median(p["single_over_judge"] for p in pairs), 3
                )
            entry["corpus_mb"] = round(
                sum(p.stat().st_size for p in corpus.glob("*.parquet")) / 2**20, 1
            )
            results["sizes"].append(entry)
            print(json.dumps(entry), flush=True)
            target.write_text(json.dumps(results, indent=2) + "\n")
            if not args.keep:
                shutil.rmtree(corpus, ignore_errors=True)
        if args.fuzz_cases:
            with PeakMemory() as memory:
                fuzzed = fuzz(session(), "reference", args.fuzz_cases, seed=SEED)
            results["fuzz"] = {
                "cases": fuzzed.cases,
                "divergences": fuzzed.divergences,
                "seconds": fuzzed.seconds,
                "cases_per_second": round(fuzzed.cases / fuzzed.seconds, 1),
                "peak_rss_mb": round(memory.peak / 2**20),
            }
            print(json.dumps(results["fuzz"]), flush=True)
    finally:
        for spark in started:
            spark.stop()
    target.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results in {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
