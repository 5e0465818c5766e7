"""benchmarks/bench_loop_instructions.py: the parts that run without valgrind (its measured
runs, each in a process of its own as under callgrind, on a small corpus) and its refusals.
The callgrind runs themselves take minutes and are the benchmark's, on demand."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

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


def _load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_loop_instructions", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_figures_are_per_row_measured_and_a_short_file_is_said(
    corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The callgrind totals (stood in for here) less the run that measures nothing, over the
    rows the runs went over: 300 when the first file holds 300 of the 2,000 asked for."""
    bench = _load_bench()
    totals = {"none": (1_000_000, 0), "judge": (1_000_000 + 300 * 200, 300)}
    totals["loop"] = (1_000_000 + 300 * 320, 300)
    monkeypatch.setattr(bench, "count", lambda mode, corpus, rows: totals[mode])
    monkeypatch.setattr(bench.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(sys, "argv", ["bench", "--corpus", str(corpus), "--rows", "2000"])
    bench.main()
    out, err = capsys.readouterr()
    assert json.loads(out) == {
        "rows": 300,
        "judge_instructions": 200,
        "loop_instructions": 320,
        "loop_extra_instructions": 120,
        "single_over_judge_instructions": 0.625,
    }
    assert "holds 300 rows: measured on 300" in err
    totals["loop"] = (1_000_000, 0)  # a loop that emitted nothing: no figure, one line
    with pytest.raises(SystemExit, match="the loop emitted 0: nothing to compare"):
        bench.main()
