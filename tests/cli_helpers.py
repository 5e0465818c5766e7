"""Running a Typer app in the test process and reading what it said (see tests/conftest.py).

``invoke(app, "audit", ...)`` runs one command line on the ``app`` fixture (or any Typer app)
with click's runner, stderr kept apart; ``mqcn_run`` runs ``mqcn run`` against a target;
``one_line_error`` checks the project's rule for a refused command: the exit code, exactly one
line on stderr, and no traceback anywhere.
"""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner, Result

runner = CliRunner()


def invoke(app: typer.Typer, *args: str) -> Result:
    """``app`` run with the command line ``args``."""
    return runner.invoke(app, list(args))


def mqcn_run(report: Path, target: str, *pytest_args: str, **options: str) -> Result:
    """``mqcn run --target target --report report`` in this process, each option given as
    ``--name value`` (``max_timeouts="2"`` is ``--max-timeouts 2``), then ``pytest_args``."""
    from mqcn_suite.cli import app

    args = ["run", "--target", target, "--report", str(report)]
    for name, value in options.items():
        args += [f"--{name.replace('_', '-')}", value]
    return runner.invoke(app, [*args, "--", "-q", "-p", "no:randomly", *pytest_args])


def one_line_error(result: Result, code: int = 2) -> str:
    """The one line a refused command wrote on stderr (asserting there is exactly one)."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    return lines[0]
