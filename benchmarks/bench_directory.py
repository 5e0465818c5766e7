"""What LDAP mode costs: the directory fixture's start, and LDAP mode against dict mode.

    python benchmarks/bench_directory.py [--starts 10] [--repeat 3] [--full-repeat 1]
                                         [--select test_processing_v2]

Prints three tables:

1. the fixture (mqcn_suite/directory/slapd.py): start and stop of the directory LDAP mode
   starts (``with_directory(target, "ldap")``, its listeners included), median and spread of
   ``--starts`` starts;
2. the per-scenario cost: ``mqcn run`` of one selection of scenarios (a pytest ``-k``
   expression) both ways (default the 23 scenarios of 3.2.5.2 processing, every one applicable
   in both modes), best of
   ``--repeat``: wall time of the command, time of the scenario phase, milliseconds per
   scenario, and LDAP mode's ratio and extra milliseconds per scenario;
3. the full run (every scenario) both ways for the reference and the Node example (when node
   and its ldapts are installed), best of ``--full-repeat``.

Each ``mqcn run`` is a process of its own (what a user runs); the scenario phase is the
``run.duration`` of its traceability.json.  A benchmark, never a test: nothing here asserts a
time.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE_TARGET = ROOT / "examples" / "node-target"


def fixture_times(starts: int) -> tuple[list[float], list[float]]:
    """(start seconds, stop seconds) of ``starts`` directories as LDAP mode starts them (its
    listeners included), one after another."""
    from mqcn_suite.targets.ldap_mode import with_directory
    from mqcn_suite.targets.reference import ReferenceTarget

    started, stopped = [], []
    for _ in range(starts):
        began = time.perf_counter()
        target = with_directory(ReferenceTarget(), "ldap")
        middle = time.perf_counter()
        target.close()
        started.append(middle - began)
        stopped.append(time.perf_counter() - middle)
    return started, stopped


def one_run(target: str, directory: str, selection: list[str]) -> tuple[float, float, int]:
    """(wall seconds of ``mqcn run``, seconds of its scenario phase, scenarios that ran)."""
    with tempfile.TemporaryDirectory() as report:
        command = ["mqcn", "run", "--target", target, "--report", report]
        command += ["--directory", directory, "--", "-q", "-p", "no:cacheprovider", *selection]
        began = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, check=False, capture_output=True, text=True)
        wall = time.perf_counter() - began
        path = Path(report) / "traceability.json"
        if not path.is_file():
            raise SystemExit(f"mqcn run wrote no report ({' '.join(command)}):\n{done.stderr}")
        run = json.loads(path.read_text("utf-8"))["run"]
    return wall, float(run["duration"]), int(run["passed"]) + int(run["failed"])


def best(
    target: str, directory: str, selection: list[str], repeat: int
) -> tuple[float, float, int]:
    """The run of least scenario-phase time among ``repeat``."""
    return min((one_run(target, directory, selection) for _ in range(repeat)), key=lambda r: r[1])


def compare(targets: list[str], selection: list[str], repeat: int) -> list[tuple]:
    """Rows (target, mode, wall, phase, count, ms/scenario, ratio, +ms) both ways."""
    rows = []
    for target in targets:
        plain = best(target, "dict", selection, repeat)
        ldap = best(target, "ldap", selection, repeat)
        base = plain[1] / max(plain[2], 1)
        for mode, (wall, phase, count) in (("dict", plain), ("ldap", ldap)):
            per = phase / max(count, 1)
            rows.append(
                (target, mode, wall, phase, count, per * 1000, per / base, (per - base) * 1000)
            )
    return rows


def print_runs(title: str, rows: list[tuple]) -> None:
    print(f"\n{title}")
    print(
        f"{'target':44} {'mode':5} {'wall s':>7} {'scen. s':>8} {'runs':>5} "
        f"{'ms/scen':>8} {'x dict':>7} {'+ms':>7}"
    )
    for target, mode, wall, phase, count, per, ratio, extra in rows:
        print(
            f"{target[:44]:44} {mode:5} {wall:7.2f} {phase:8.2f} {count:5d} "
            f"{per:8.1f} {ratio:7.2f} {extra:7.1f}"
        )


def node_target() -> str | None:
    """The Node example as an exec: target, when node and its npm packages are installed."""
    node = shutil.which("node")
    if node is None or not (NODE_TARGET / "node_modules" / "ldapts").is_dir():
        return None
    return f"exec:{node} {NODE_TARGET / 'target.js'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--full-repeat", type=int, default=1)
    parser.add_argument("--select", default="test_processing_v2", metavar="K_EXPRESSION")
    args = parser.parse_args()

    started, stopped = fixture_times(args.starts)
    print(f"fixture: {args.starts} starts of LDAP mode's slapd, then stops")
    print(f"{'':6} {'median s':>9} {'min s':>7} {'max s':>7}")
    for name, values in (("start", started), ("stop", stopped)):
        print(f"{name:6} {statistics.median(values):9.3f} {min(values):7.3f} {max(values):7.3f}")

    node = node_target()
    selection = ["-k", args.select] if args.select else []
    print_runs(
        f"per scenario: -k {args.select!r}, best of {args.repeat}",
        compare(["reference"], selection, args.repeat),
    )
    targets = ["reference", *([node] if node else [])]
    print_runs(f"full run, best of {args.full_repeat}", compare(targets, [], args.full_repeat))
    if node is None:
        print("(the Node example was left out: node or its ldapts is not installed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
