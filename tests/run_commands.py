"""Run several ``mqcn`` commands in one driver process, on one Spark session: the cluster test's
driver.

    python tests/run_commands.py MASTER RESULTS.json -- ARGS... [-- ARGS...]

Starts the session with :func:`mqcn_suite.pipeline.session.create_session` (which ships the
code to the executors, exactly as each command would), then runs each command line through
the ``mqcn`` application; the commands lend the running session instead of starting their
own, so the cluster starts executors once instead of once per command.  The exit code of
each command goes to RESULTS.json; what they print goes to stdout and stderr as usual.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    master, results, *rest = argv
    groups: list[list[str]] = []
    for item in rest:
        if item == "--":
            groups.append([])
        else:
            groups[-1].append(item)
    import typer.main

    from mqcn_suite.cli import app
    from mqcn_suite.pipeline.session import create_session

    session = create_session(master)
    command = typer.main.get_command(app)
    codes = []
    try:
        for args in groups:
            code = command.main(args=args, prog_name="mqcn", standalone_mode=False)
            codes.append(int(code or 0))
            sys.stdout.flush()
    finally:
        session.stop()
    Path(results).write_text(json.dumps(codes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
