"""The audit loop against the judge alone, in instructions: a figure the machine's load cannot move.

On demand, never part of the tests (needs valgrind)::

    python benchmarks/bench_loop_instructions.py                  # 2,000 rows of the 4 M corpus
    python benchmarks/bench_loop_instructions.py --rows 4000 --corpus DIR

``bench_audit.py`` gives the loop's ratio to the judge in wall and CPU time; on a shared
machine the same code measured 0.54 to 0.62 within an hour, wider than the gap to issue 12's
goal (0.60).  This counts instructions instead (``valgrind --tool=callgrind``), which the
same code and inputs repeat to within about 0.3 % whatever else the machine runs (two
runs of the judge's part, side by side: 4,216,711,721 and 4,218,207,083 instructions).

Three runs of this script under callgrind, each in a process of its own made repeatable
(``PYTHONHASHSEED=0``; pyarrow's system allocator and no jemalloc thread, since jemalloc
purges on a timer; no address randomisation, ``setarch -R``; pyarrow's pools of one thread):
one that loads the first ``--rows`` rows of the corpus's first Parquet file and warms both
paths up on its first 200 rows, then measures nothing; one that then runs the judge
(:func:`mqcn_model.judge.judge`) over every body; one that runs the audit task's code over
the same rows instead (:func:`~.kinds.parquet.judge_chunk` into a
:class:`~.tasks.RowBuilder`, its Arrow batches built: the judge, the server's view, the
row's values, the tally). Each figure less the first, over the rows: instructions per
message of the judge and of the loop, the loop's extra, and ``judge / loop``, the ratio in
instructions. Both read the same in-memory batches: Parquet decoding is left out of both.

Instructions are not time: the loop's own part stalls more per instruction than the judge
(it touches more memory per message), so the ratio in instructions stays above the ratio in
time (0.66 against 0.57 to 0.58 when issue 22 measured both). It tells whether a change to the
loop removed work, which a time ratio on this machine cannot.

Results go to stdout as one JSON line, and to ``--json`` when given.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
WARM_ROWS = 200  # rows both paths run once before the measured part, in every mode
MODES = ("none", "judge", "loop")
_COLLECTED = re.compile(r"Collected\s*:\s*([\d,]+)")


def child(mode: str, corpus: Path, rows: int) -> int:
    """Load ``rows`` rows, warm both paths up, then run ``mode``'s part (under callgrind);
    the rows that part judged (the judge) or emitted (the loop: verdicts and quarantine)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mqcn_model.errata import STRICT
    from mqcn_model.judge import judge
    from mqcn_suite.pipeline.audit.judging import Auditor
    from mqcn_suite.pipeline.audit.kinds.parquet import judge_chunk
    from mqcn_suite.pipeline.audit.summary import Tally
    from mqcn_suite.pipeline.audit.tasks import RowBuilder
    from mqcn_suite.pipeline.corpus import BODY

    pa.set_cpu_count(1)  # pools of one thread: fewer threads whose waiting would count
    pa.set_io_thread_count(1)
    first = sorted(corpus.glob("*.parquet"))[0]
    columns = [BODY, "message_id", "sender_identifier_type", "authentication_level"]
    parquet = pq.ParquetFile(first)
    kept = [c for c in columns if c in parquet.schema_arrow.names]
    table = parquet.read(columns=kept, use_threads=False).slice(0, rows)
    batches = table.to_batches(max_chunksize=1000)
    warm = table.slice(0, WARM_ROWS).to_batches()

    def run_judge(chunks: list[Any]) -> int:
        judged = 0
        for chunk in chunks:
            for body in chunk.column(BODY).to_pylist():
                judge(body, STRICT)
                judged += 1
        return judged

    def run_loop(chunks: list[Any]) -> int:
        builder = RowBuilder(Tally())
        auditor = Auditor(STRICT)
        first_row = emitted = 0
        for chunk in chunks:
            judge_chunk(auditor, builder, str(first), first_row, chunk)
            emitted += sum(batch.num_rows for batch in builder.batches())
            first_row += chunk.num_rows
        return emitted

    run_judge(warm)
    run_loop(warm)
    if mode == "judge":
        return run_judge(batches)
    if mode == "loop":
        return run_loop(batches)
    return 0


def count(mode: str, corpus: Path, rows: int) -> tuple[int, int]:
    """The instructions one run of ``mode`` executes (callgrind's summary), and the rows its
    measured part went over (what the run printed)."""
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        # pyarrow's jemalloc purges from a background thread on a timer: not its pool, and
        # not that thread (which it starts even when the pool is another)
        "ARROW_DEFAULT_MEMORY_POOL": "system",
        "JE_ARROW_MALLOC_CONF": "background_thread:false",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    with tempfile.TemporaryDirectory(prefix="mqcn-callgrind-") as scratch:
        # the same addresses every run (setarch -R: no address randomisation), where present
        argv = ["setarch", "-R"] if shutil.which("setarch") else []
        argv += ["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/out"]
        argv += [sys.executable, str(HERE), "--child", mode, "--corpus", str(corpus)]
        argv += ["--rows", str(rows)]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    found = _COLLECTED.search(done.stderr)
    printed = done.stdout.strip().splitlines()
    if done.returncode != 0 or found is None or not printed or not printed[-1].isdigit():
        raise SystemExit(
            f"the {mode!r} run under callgrind failed (exit {done.returncode}):\n"
            f"{done.stderr[-3000:]}"
        )
    return int(found.group(1).replace(",", "")), int(printed[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", default="/tmp/mqcn-bench/corpus-4000000")
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--json", default=None)
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    corpus = Path(args.corpus)
    if args.child:  # a measured run: the rows it went over, for the tests
        print(child(args.child, corpus, args.rows))
        return
    if args.rows <= 0:
        raise SystemExit(f"--rows must be positive, not {args.rows}")
    if not any(corpus.glob("*.parquet")):
        raise SystemExit(
            f"no Parquet corpus at {corpus}: `python benchmarks/bench_audit.py --sizes 4000000 "
            "--keep --no-spark` makes one, or give --corpus DIR"
        )
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    runs = {mode: count(mode, corpus, args.rows) for mode in MODES}
    rows = runs["judge"][1]  # the first file may hold fewer rows than asked for
    if rows == 0 or runs["loop"][1] != rows:
        raise SystemExit(
            f"the judge went over {rows} rows and the loop emitted {runs['loop'][1]}: "
            "nothing to compare (is the first Parquet file empty?)"
        )
    if rows != args.rows:
        print(f"the first Parquet file holds {rows} rows: measured on {rows}", file=sys.stderr)
    totals = {mode: instructions for mode, (instructions, _) in runs.items()}
    judge = (totals["judge"] - totals["none"]) / rows
    loop = (totals["loop"] - totals["none"]) / rows
    result = {
        "rows": rows,
        "judge_instructions": round(judge),
        "loop_instructions": round(loop),
        "loop_extra_instructions": round(loop - judge),
        "single_over_judge_instructions": round(judge / loop, 4),
    }
    print(json.dumps(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
