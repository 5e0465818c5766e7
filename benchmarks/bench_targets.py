"""Per-scenario cost of each way to attach a target: in process vs over a pipe.

Runs the whole scenario set (``mqcn run``) against each target ``--repeat`` times and prints
the best wall time of the scenario phase, the time per scenario run, and the overhead of
``exec:`` over ``reference``:

    python benchmarks/bench_targets.py [--repeat 3] [--target SPEC ...]

Defaults: ``reference``, ``exec:python -m mqcn_suite.targets.serve`` (the reference behind the
JSON-lines protocol) and ``exec:node examples/node-target/target.js`` when node is installed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def default_targets() -> list[str]:
    targets = ["reference", f"exec:{sys.executable} -m mqcn_suite.targets.serve"]
    if shutil.which("node"):
        targets.append("exec:node examples/node-target/target.js")
    return targets


def one_run(target: str) -> tuple[float, float, int]:
    """(wall seconds of the command, seconds of the scenario phase, scenario runs)."""
    with tempfile.TemporaryDirectory() as report:
        started = time.perf_counter()
        subprocess.run(
            ["mqcn", "run", "--target", target, "--report", report],
            cwd=ROOT,
            check=False,
            capture_output=True,
        )
        wall = time.perf_counter() - started
        run = json.loads((Path(report) / "traceability.json").read_text("utf-8"))["run"]
    return wall, float(run["duration"]), int(run["items"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--target", action="append", dest="targets")
    args = parser.parse_args()
    rows = []
    for target in args.targets or default_targets():
        runs = [one_run(target) for _ in range(args.repeat)]
        wall, phase, count = min(runs, key=lambda r: r[1])
        rows.append((target, wall, phase, count))
    base = next((r[2] / r[3] for r in rows if r[0] == "reference"), None)
    print(f"{'target':58} {'wall s':>7} {'scen. s':>8} {'runs':>5} {'ms/run':>7} {'+ms':>6}")
    for target, wall, phase, count in rows:
        per = phase / count * 1000
        extra = f"{per - base * 1000:6.1f}" if base is not None else "     -"
        print(f"{target[:58]:58} {wall:7.2f} {phase:8.2f} {count:5d} {per:7.1f} {extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
