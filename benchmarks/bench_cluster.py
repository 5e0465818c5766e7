"""The tests' standalone cluster against ``local[2]``: the same Parquet audit, side by side.

On demand, never part of the tests::

    python benchmarks/bench_cluster.py                      # 3 pairs on the 4 M-row corpus
    python benchmarks/bench_cluster.py --pairs 5 --corpus /tmp/mqcn-bench/corpus-4000000

Starts the standalone cluster of the tests (``tests/spark_cluster.py``: a master and two
1-core workers on 127.0.0.1, their executors on a bare venv), then runs the audit of one
Parquet corpus on ``local[2]`` and on the cluster in turn, ``--pairs`` times; each audit is
``bench_audit.py --spark-child`` (a new Python process with a new session: every run as cold
as the first, its time from before the session starts).  Prints each pair's
``cluster_over_local`` (the cluster's wall time over ``local[2]``'s; issue 22's goal: at most
1.15) and their median.  The corpus is the one ``bench_audit.py --sizes 4000000 --keep``
leaves (``--corpus`` for another).  The CPU seconds of a cluster run count only its driver's
process tree: the executors are children of the cluster's workers.

Results go to stdout, one JSON line per pair, and to ``--json`` (default
``bench_cluster.json`` beside the corpus).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))  # the cluster fixture of the tests


def audit_in_child(master: str, corpus: Path, out: Path, rows: int) -> dict[str, Any]:
    """``bench_audit.py --spark-child``: one cold audit of ``corpus`` on ``master``."""
    argv = [sys.executable, str(HERE / "bench_audit.py"), "--master", master]
    argv += ["--spark-child", str(corpus), str(out), str(rows)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(
            f"the audit on {master} failed (exit {done.returncode}):\n{done.stderr[-3000:]}"
        )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", default="/tmp/mqcn-bench/corpus-4000000")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    corpus = Path(args.corpus)
    manifest = corpus / "_mqcn_corpus.json"
    if not manifest.exists():
        raise SystemExit(
            f"{corpus}: no corpus there (no {manifest.name}); make one with "
            "`python benchmarks/bench_audit.py --sizes 4000000 --keep --no-spark`"
        )
    rows = int(json.loads(manifest.read_text())["rows"])

    from spark_cluster import running_cluster

    pairs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="mqcn-bench-cluster-") as scratch:
        folder, out = Path(scratch) / "cluster", Path(scratch) / "out"
        folder.mkdir()
        with running_cluster(folder) as cluster:
            for pair in range(args.pairs):
                local = audit_in_child("local[2]", corpus, out, rows)
                remote = audit_in_child(cluster.url, corpus, out, rows)
                pairs.append(
                    {
                        "pair": pair + 1,
                        "local_seconds": local["seconds"],
                        "local_cpu_seconds": local["cpu_seconds"],
                        "cluster_seconds": remote["seconds"],
                        "cluster_driver_cpu_seconds": remote["cpu_seconds"],
                        "cluster_over_local": round(remote["seconds"] / local["seconds"], 3),
                    }
                )
                print(json.dumps(pairs[-1]), flush=True)
    median = round(statistics.median(p["cluster_over_local"] for p in pairs), 3)
    results = {"corpus": str(corpus), "rows": rows, "pairs": pairs, "median": median}
    print(json.dumps({"cluster_over_local_median": median}), flush=True)
    target = Path(args.json) if args.json else corpus.parent / "bench_cluster.json"
    target.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results in {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
