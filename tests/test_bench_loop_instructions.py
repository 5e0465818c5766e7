"""benchmarks/bench_loop_instructions.py: the parts that run without valgrind (its measured
runs, each in a process of its own as under callgrind, on a small corpus) and its refusals.
The callgrind runs themselves take minutes and are the benchmark's, on demand."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mqcn_suite.pipeline.corpus import generate_rows

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_loop_instructions.py"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    rows = generate_rows(list(range(300)), seed=1, invalid_share=0.1)
    pq.write_table(pa.Table.from_batches([rows]), tmp_path / "a.parquet")
    return tmp_path


@pytest.mark.parametrize(("mode", "rows"), [("none", 0), ("judge", 250), ("loop", 250)])
def test_each_measured_run_goes_over_the_rows_asked_for(corpus: Path, mode: str, rows: int) -> None:
    """``none`` measures nothing after the warm-up; the judge judges every body of the first
    250 rows; the loop emits a row for each (its batches are built, as the audit's).  Run as
    the benchmark runs it under callgrind, in a process of its own (it sets pyarrow's threads)."""
    root = str(SCRIPT.parents[1])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
    }
    argv = [sys.executable, str(SCRIPT), "--child", mode, "--corpus", str(corpus), "--rows", "250"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == str(rows)


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--corpus", "/nonexistent/corpus"], "no Parquet corpus at /nonexistent/corpus"),
        (["--rows", "0"], "--rows must be positive, not 0"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(
    arguments: list[str], said: str, corpus: Path
) -> None:
    if "--corpus" not in arguments:
        arguments = [*arguments, "--corpus", str(corpus)]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and said in done.stderr, done.stderr
