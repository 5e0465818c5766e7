"""Audit throughput on Spark vs one Python process, peak memory, and fuzz cases per second.

On demand, never part of the tests::

    python benchmarks/bench_audit.py                       # 1 M and 4 M messages, local[2]
    python benchmarks/bench_audit.py --sizes 1000000 --single-limit 200000

For each size it generates a corpus (``corpus.generate``, timed too), audits it on Spark
(``audit.audit``: judge + server view + verdict/quarantine Parquet + summaries) and runs the
*same* per-message work (:class:`mqcn_suite.pipeline.audit.Auditor`) in a single-process loop
over the same Parquet files (on the first ``--single-limit`` rows, extrapolated as a rate).
Peak memory is the largest resident set seen for the whole process tree (this driver, the
JVM, the Python workers), sampled from ``/proc`` every 0.2 s; ``psutil`` is not needed.
Finally it runs ``--fuzz-cases`` differential cases against ``reference``.

Results go to stdout as a table and to ``--json`` (default ``bench_audit.json`` in the work
directory).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds

from mqcn_suite.pipeline.audit import Auditor, audit
from mqcn_suite.pipeline.corpus import generate
from mqcn_suite.pipeline.fuzz import fuzz
from mqcn_suite.pipeline.session import create_session

PAGE = os.sysconf("SC_PAGE_SIZE")


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants (from /proc/<pid>/statm)."""
    tree, total, stack = _children(), 0, [root]
    while stack:
        pid = stack.pop()
        try:
            with open(f"/proc/{pid}/statm") as handle:
                total += int(handle.read().split()[1]) * PAGE
        except OSError:
            pass
        stack.extend(tree.get(pid, []))
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


def single_process(corpus: Path, limit: int) -> dict[str, Any]:
    """The audit's per-message work in one loop over the corpus (first ``limit`` rows)."""
    auditor = Auditor()
    dataset = ds.dataset(str(corpus), format="parquet", ignore_prefixes=[".", "_"])
    columns = ["body", "message_id", "sender_identifier_type", "authentication_level"]
    done, started = 0, time.perf_counter()
    for batch in dataset.to_batches(columns=columns, batch_size=5000):
        data = batch.to_pydict()
        for i, body in enumerate(data["body"]):
            auditor.row(
                f"#{done}",
                body,
                data["message_id"][i],
                data["sender_identifier_type"][i],
                data["authentication_level"][i],
            )
            done += 1
            if done >= limit:
                break
        if done >= limit:
            break
    seconds = time.perf_counter() - started
    return {"rows": done, "seconds": round(seconds, 2), "rate": round(done / seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,4000000")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--invalid-share", type=float, default=0.1)
    parser.add_argument("--single-limit", type=int, default=200_000)
    parser.add_argument("--fuzz-cases", type=int, default=20_000)
    parser.add_argument("--workdir", default="/tmp/mqcn-bench")
    parser.add_argument("--keep", action="store_true", help="keep the corpora afterwards")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    spark = create_session(args.master)
    results: dict[str, Any] = {"master": args.master, "cpus": os.cpu_count(), "sizes": []}
    try:
        for size in (int(s) for s in args.sizes.split(",") if s):
            corpus, out = work / f"corpus-{size}", work / f"audit-{size}"
            for path in (corpus, out):
                shutil.rmtree(path, ignore_errors=True)
            with PeakMemory() as gen_mem:
                made = generate(spark, size, corpus, args.invalid_share, seed=1)
            with PeakMemory() as audit_mem:
                started = time.perf_counter()
                audited = audit(spark, corpus, out)
                seconds = time.perf_counter() - started
            single = single_process(corpus, args.single_limit)
            entry = {
                "messages": size,
                "generate_seconds": made.seconds,
                "generate_rate": round(size / made.seconds, 1),
                "generate_peak_rss_mb": round(gen_mem.peak / 2**20),
                "audit_seconds": round(seconds, 2),
                "audit_rate": round(size / seconds, 1),
                "audit_peak_rss_mb": round(audit_mem.peak / 2**20),
                "balance": audited.balance_line(),
                "single_process": single,
                "speedup": round((size / seconds) / single["rate"], 2),
                "corpus_mb": round(
                    sum(p.stat().st_size for p in corpus.glob("*.parquet")) / 2**20, 1
                ),
            }
            results["sizes"].append(entry)
            print(json.dumps(entry), flush=True)
            if not args.keep:
                shutil.rmtree(corpus, ignore_errors=True)
                shutil.rmtree(out, ignore_errors=True)
        if args.fuzz_cases:
            with PeakMemory() as fuzz_mem:
                fuzzed = fuzz(spark, "reference", args.fuzz_cases, seed=1)
            results["fuzz"] = {
                "cases": fuzzed.cases,
                "divergences": fuzzed.divergences,
                "seconds": fuzzed.seconds,
                "cases_per_second": round(fuzzed.cases / fuzzed.seconds, 1),
                "peak_rss_mb": round(fuzz_mem.peak / 2**20),
            }
            print(json.dumps(results["fuzz"]), flush=True)
    finally:
        spark.stop()
    target = Path(args.json) if args.json else work / "bench_audit.json"
    target.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results in {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
