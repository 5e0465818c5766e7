"""Capture audit throughput and memory: pcap in, verdicts out, one process and Spark.

On demand, never part of the tests::

    python benchmarks/bench_capture.py                       # 100 000 and 400 000 messages
    python benchmarks/bench_capture.py --sizes 20000         # a quick check
    python benchmarks/bench_capture.py --sizes 400000 --keep --memory-only
    python benchmarks/bench_capture.py --corpus /tmp/cap20k --reader-only --repeat 3
    python benchmarks/bench_capture.py --corpus /tmp/two --no-peers --splits 0 --pairs 3

For each size it generates a capture corpus (``corpus generate --format pcap``, seed 1; one
``part-NNNNN.pcap`` per partition, one MS-MQQB session per message, about 2.7 KB a message:
400 000 messages make 1.1 GB), reused from an earlier ``--keep`` run when its manifest
matches, then measures on it:

* **reader alone** (fresh subprocess): :func:`mqcn_model.capture.iter_capture` over every
  file in 1 MiB chunks -- containers, TCP reassembly, MS-MQQB framing, the wire codec;
* **single process** (fresh subprocess): the audit's own task code
  (:func:`mqcn_suite.pipeline.audit.capture.judge_capture_units`: read, judge, server view,
  Arrow rows, tally) over every file, no Spark;
* **Spark**: ``audit.audit`` on ``--master`` (default ``local[2]``): the same task, one per
  capture file, plus the verdict and quarantine Parquet and the summary.

* **the peers, in the same run** (``--peers``, on by default): dpkt doing the bare
  Ethernet/IP/TCP parse of every frame (no reassembly: the peer of issue 22), installed on
  demand with pip into a venv of the benchmark's own (``<workdir>/peers-venv``; never a
  dependency of the suite), and ``tshark -q -z io,stat,0`` (full dissection with TCP
  reassembly) when it is on the PATH.  The reader and its peers run in turn, ``--repeat``
  times, and each keeps its best run: ``reader_over_dpkt`` and ``reader_over_tshark`` are the
  ratios of the best rates, comparable between runs on a noisy machine where absolute rates
  are not.  ``--reader-only`` measures only these (no single process, no Spark, and no Spark
  session when the corpus is already there: ``--keep`` left it, or ``--corpus DIR``).

``--pairs N`` runs the single process and then each
``--splits`` value's Spark audit, each in a new process with a new session, N times in turn,
and prints each pair's ``spark_over_single`` and, per split, their median: on a shared
machine the same run's time moves by a fifth between runs minutes apart, so only ratios of
runs made side by side compare.

Rates are messages per second and megabytes (10^6 bytes) of capture per second of wall
time.  Peak memory: the subprocesses report their own peak RSS (``ru_maxrss``: one Python
process reading and judging, whatever the file size); for Spark, the largest resident set
of the whole process tree (this driver, the JVM, the Python workers) sampled every 0.2 s
with :class:`bench_audit.PeakMemory`.  Memory is *flat in capture size* when the 1.1 GB
corpus peaks where the 270 MB one does.  ``--memory-only`` skips the two in-process runs.

Results go to stdout, one JSON line per size, and to ``--json`` (default
``bench_capture.json`` in the work directory).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_audit, next to this file

SEED = 1
CHUNK = 1 << 20


def _files(corpus: Path) -> list[Path]:
    return sorted([*corpus.glob("*.pcap"), *corpus.glob("*.pcapng")])


def reader_alone(corpus: Path) -> dict[str, Any]:
    """iter_capture over every file (run in a fresh process by :func:`measure`)."""
    from mqcn_model.capture import Message, iter_capture

    messages = size = 0
    started = time.perf_counter()
    for path in _files(corpus):
        size += path.stat().st_size
        with path.open("rb") as stream:
            chunks = iter(lambda: stream.read(CHUNK), b"")
            messages += sum(1 for r in iter_capture(path.name, chunks) if isinstance(r, Message))
    return _rates(messages, size, time.perf_counter() - started)


def single_process(corpus: Path) -> dict[str, Any]:
    """The audit task's code over every file (run in a fresh process by :func:`measure`)."""
    import pyarrow as pa

    from mqcn_model.errata import STRICT
    from mqcn_suite.pipeline.audit.kinds.capture import UNIT_SCHEMA, judge_capture_units

    files = _files(corpus)
    units = pa.RecordBatch.from_pylist(
        [{"path": str(p), "bytes": p.stat().st_size} for p in files], schema=UNIT_SCHEMA
    )
    verdicts = 0
    started = time.perf_counter()
    for batch in judge_capture_units(STRICT)(iter([units])):
        statuses = batch.column("status").to_pylist()
        verdicts += statuses.count("verdict")
    seconds = time.perf_counter() - started
    return _rates(verdicts, sum(p.stat().st_size for p in files), seconds)


# The peer of issue 22: dpkt's bare parse, Ethernet → IP → TCP, of every frame of every file.
DPKT_PARSE = """
import json, os, sys, time
import dpkt
frames = tcp = size = 0
started = time.perf_counter()
for path in sys.argv[1:]:
    size += os.path.getsize(path)
    with open(path, "rb") as stream:
        for _, frame in dpkt.pcap.Reader(stream):
            frames += 1
            ip = dpkt.ethernet.Ethernet(frame).data
            if isinstance(ip, dpkt.ip.IP) and isinstance(ip.data, dpkt.tcp.TCP):
                tcp += 1
seconds = time.perf_counter() - started
print(json.dumps({"frames": frames, "tcp_frames": tcp, "mb": round(size / 1e6, 1),
                  "seconds": round(seconds, 2), "mb_per_s": round(size / 1e6 / seconds, 2)}))
"""


def peers_python(work: Path) -> Path:
    """The Python of the benchmark's own venv, with dpkt (made and installed on first use)."""
    venv = work / "peers-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = subprocess.run([str(python), "-c", "import dpkt"], capture_output=True)
    if probe.returncode:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "dpkt"], check=True)
    return python


def dpkt_parse(python: Path, corpus: Path) -> dict[str, Any]:
    """dpkt's bare parse of every file of ``corpus``, in the peers' venv."""
    files = [str(p) for p in _files(corpus)]
    done = subprocess.run(
        [str(python), "-c", DPKT_PARSE, *files], check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def tshark_stat(tshark: str, corpus: Path) -> dict[str, Any]:
    """``tshark -q -z io,stat,0`` (full dissection, TCP reassembly) over every file."""
    size = 0
    started = time.perf_counter()
    for path in _files(corpus):
        size += path.stat().st_size
        subprocess.run(
            [tshark, "-q", "-z", "io,stat,0", "-r", str(path)], check=True, capture_output=True
        )
    seconds = time.perf_counter() - started
    return {
        "mb": round(size / 1e6, 1),
        "seconds": round(seconds, 2),
        "mb_per_s": round(size / 1e6 / seconds, 2),
    }


def side_by_side(corpus: Path, work: Path, repeat: int) -> dict[str, Any]:
    """The reader, dpkt and tshark in turn, ``repeat`` times; each keeps its best run, and the
    reader's rate is given as a ratio to each peer's."""
    python = peers_python(work)
    tshark = shutil.which("tshark")
    runs: dict[str, list[dict[str, Any]]] = {"reader": [], "dpkt": [], "tshark": []}
    for _ in range(max(1, repeat)):
        runs["reader"].append(measure("reader", corpus))
        runs["dpkt"].append(dpkt_parse(python, corpus))
        if tshark:
            runs["tshark"].append(tshark_stat(tshark, corpus))
    best = {k: max(v, key=lambda r: r["mb_per_s"]) for k, v in runs.items() if v}
    out: dict[str, Any] = {"repeat": max(1, repeat), **best}
    for peer in ("dpkt", "tshark"):
        if peer in best:
            out[f"reader_over_{peer}"] = round(
                best["reader"]["mb_per_s"] / best[peer]["mb_per_s"], 3
            )
    out["rates"] = {k: [r["mb_per_s"] for r in v] for k, v in runs.items() if v}
    if not tshark:
        out["tshark"] = "not on the PATH: not measured"
    return out


def _rates(messages: int, size: int, seconds: float) -> dict[str, Any]:
    return {
        "messages": messages,
        "mb": round(size / 1e6, 1),
        "seconds": round(seconds, 2),
        "messages_per_s": round(messages / seconds, 1),
        "mb_per_s": round(size / 1e6 / seconds, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def _mb(corpus: Path) -> float:
    return round(sum(p.stat().st_size for p in _files(corpus)) / 1e6, 1)


def measure(kind: str, corpus: Path, options: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run ``kind`` (reader / single / spark:SPLIT) in a fresh Python, so that its peak RSS
    is its own; ``options``: more of this command's options for the child."""
    done = subprocess.run(
        [sys.executable, __file__, *options, "--child", kind, str(corpus)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def corpus_for(spark: Any, size: int, work: Path, share: float) -> tuple[Path, Any]:
    """The capture corpus of ``size`` messages (reused when a ``--keep`` run left it)."""
    from bench_audit import PeakMemory

    from mqcn_suite.pipeline.corpus import MANIFEST, generate

    corpus = work / f"capture-{size}"
    manifest = corpus / MANIFEST
    if manifest.exists():
        known = json.loads(manifest.read_text())
        if (known.get("format"), known["rows"], known["seed"], known["invalid_share"]) == (
            "pcap",
            size,
            SEED,
            share,
        ):
            return corpus, None
    shutil.rmtree(corpus, ignore_errors=True)
    with PeakMemory() as memory:
        made = generate(spark, size, corpus, share, seed=SEED, format="pcap")
    return corpus, {
        "seconds": made.seconds,
        "messages_per_s": round(size / made.seconds, 1),
        "mb_per_s": round((made.bytes or 0) / 1e6 / made.seconds, 2),
        "files": made.files,
        "unwritable": made.unwritable,
        "peak_rss_mb": round(memory.peak / 2**20),
    }


def spark_audit(spark: Any, corpus: Path, work: Path, split: int | None) -> dict[str, Any]:
    """``audit.audit`` of ``corpus`` on ``spark`` (with ``mqcn.capture.split`` set to
    ``split`` unless None): time, CPU time of the process tree, peak memory, the balance."""
    from bench_audit import PeakMemory, tree_cpu

    from mqcn_suite.pipeline.audit import audit

    if split is not None:
        spark.conf.set("mqcn.capture.split", str(split))
    capture_bytes = sum(p.stat().st_size for p in _files(corpus))
    out = work / "audit-out"
    shutil.rmtree(out, ignore_errors=True)
    with PeakMemory() as memory:
        started, cpu = time.perf_counter(), tree_cpu(os.getpid())
        audited = audit(spark, corpus, out)
        seconds, cpu = time.perf_counter() - started, tree_cpu(os.getpid()) - cpu
    shutil.rmtree(out, ignore_errors=True)
    judged = audited.conforming + audited.non_conforming
    return {
        "split": split,
        "seconds": round(seconds, 2),
        "messages_per_s": round(judged / seconds, 1),
        "mb_per_s": round(capture_bytes / 1e6 / seconds, 2),
        "cpu_seconds": round(cpu, 1),
        "load_average": os.getloadavg(),
        "peak_rss_mb": round(memory.peak / 2**20),
        "balanced": audited.balanced,
        "balance": audited.balance_line(),
    }


def spark_child(args: argparse.Namespace, corpus: Path, split: int | None) -> dict[str, Any]:
    """:func:`spark_audit` on a new session of this (child) process, stopped afterwards."""
    from mqcn_suite.pipeline.session import create_session

    conf = dict(item.split("=", 1) for item in args.conf)
    spark = create_session(args.master, conf)
    try:
        return spark_audit(spark, corpus, Path(args.workdir), split)
    finally:
        spark.stop()


def alternate(
    args: argparse.Namespace, corpus: Path, splits: list[int | None], pairs: int
) -> dict[str, Any]:
    """The single process, then a Spark audit per split each in a new process (a new JVM, the
    first audit of its session, as in the one-pair figures), ``pairs`` times in turn: each
    pair's ratios and, per split, their median -- robust to a load that changes between runs
    minutes apart, which ratios of runs made far apart are not."""
    options = ("--master", args.master, "--workdir", args.workdir)
    options += tuple(word for item in args.conf for word in ("--conf", item))
    runs: list[dict[str, Any]] = []
    for pair in range(pairs):
        single = measure("single", corpus)["seconds"]
        for split in splits:
            kind = f"spark:{'' if split is None else split}"
            run = measure(kind, corpus, options)
            run.update(pair=pair + 1, single_seconds=single)
            run["spark_over_single"] = round(single / run["seconds"], 3)
            print(json.dumps(run), flush=True)
            runs.append(run)
    medians = {
        str(split): round(
            statistics.median(r["spark_over_single"] for r in runs if r["split"] == split), 3
        )
        for split in splits
    }
    return {"pairs": runs, "spark_over_single_median": medians}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="100000,400000")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--invalid-share", type=float, default=0.1)
    parser.add_argument("--memory-only", action="store_true", help="skip the in-process runs")
    parser.add_argument("--workdir", default="/tmp/mqcn-bench-capture")
    parser.add_argument("--keep", action="store_true", help="keep (and reuse) the captures")
    parser.add_argument("--json", default=None)
    parser.add_argument("--corpus", default=None, help="measure this capture corpus")
    parser.add_argument(
        "--splits",
        default=None,
        help="mqcn.capture.split values to audit with, in turn (e.g. 0,67108864)",
    )
    parser.add_argument("--peers", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--repeat", type=int, default=1, help="runs of reader and peers")
    parser.add_argument(
        "--reader-only", action="store_true", help="the reader and its peers, nothing else"
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="alternate the single process and Spark (a new process and session) N times",
    )
    parser.add_argument("--child", nargs=2, metavar=("KIND", "CORPUS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, corpus = args.child
        if kind.startswith("spark:"):  # --pairs: one Spark audit in a process of its own
            split = kind.removeprefix("spark:")
            run = spark_child(args, Path(corpus), int(split) if split else None)
        else:
            run = (reader_alone if kind == "reader" else single_process)(Path(corpus))
        print(json.dumps(run), flush=True)
        return

    # imported here, not at the top: the measuring subprocesses load only what they measure
    from mqcn_suite.pipeline.session import create_session

    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    conf = dict(item.split("=", 1) for item in args.conf)
    results: dict[str, Any] = {"master": args.master, "cpus": os.cpu_count(), "sizes": []}
    target = Path(args.json) if args.json else work / "bench_capture.json"
    if args.corpus and (args.peers or args.reader_only):  # a corpus given: measured as it is
        corpus = Path(args.corpus)
        peers: dict[str, Any] = {"corpus": str(corpus), "capture_mb": _mb(corpus)}
        peers["files"] = len(_files(corpus))
        peers["side_by_side"] = side_by_side(corpus, work, args.repeat)
        results["sizes"].append(peers)
        print(json.dumps(peers), flush=True)
        target.write_text(json.dumps(results, indent=2) + "\n")
    if args.corpus and args.reader_only:
        return
    splits = [int(v) for v in args.splits.split(",")] if args.splits else [None]
    spark = create_session(args.master, conf) if args.pairs <= 1 or not args.corpus else None
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s] if not args.corpus else [None]
        for size in sizes:
            if size is None:  # --corpus: that corpus, kept
                corpus, made = Path(args.corpus), None
            else:
                spark = spark if spark is not None else create_session(args.master, conf)
                corpus, made = corpus_for(spark, size, work, args.invalid_share)
            entry: dict[str, Any] = {
                "messages": size,
                "corpus": str(corpus),
                "capture_mb": _mb(corpus),
                "files": len(_files(corpus)),
                "generate": made,
            }
            if size is not None and (args.peers or args.reader_only):
                entry["side_by_side"] = side_by_side(corpus, work, args.repeat)
            if args.reader_only:
                pass  # the reader and its peers only: measured above
            elif args.pairs > 1:
                if spark is not None:  # the generating session: not beside the pairs' own
                    spark.stop()
                    spark = None
                entry.update(alternate(args, corpus, splits, args.pairs))
            else:
                if not args.memory_only:
                    entry["reader_alone"] = measure("reader", corpus)
                    entry["single_process"] = measure("single", corpus)
                entry["spark"] = [spark_audit(spark, corpus, work, split) for split in splits]
                if not args.memory_only:
                    single = entry["single_process"]["seconds"]
                    for run in entry["spark"]:
                        run["spark_over_single"] = round(single / run["seconds"], 3)
            results["sizes"].append(entry)
            print(json.dumps(entry), flush=True)
            target.write_text(json.dumps(results, indent=2) + "\n")
            if not args.keep and size is not None:
                shutil.rmtree(corpus, ignore_errors=True)
    finally:
        if spark is not None:
            spark.stop()
    target.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results in {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
