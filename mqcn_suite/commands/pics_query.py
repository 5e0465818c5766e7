"""``mqcn pics``: ask a target what it implements and write its PICS file.

    mqcn pics --target 'exec:node examples/node-target/target.js' --out node.pics.yaml

Capability discovery: an ``exec:`` target states its claims in ``hello``, a ``python:``
target through its ``pics()`` method; the reference claims everything.  Without ``--out``
the PICS is printed.  Exit 0 on success, 2 for a usage error (unknown target, a target that
does not start, an unwritable file), 3 for an internal error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mqcn_suite.commands import _target as target_cli
from mqcn_suite.commands._common import PROG, UsageError, boundary
from mqcn_suite.outputs import OutputError, check_output_file
from mqcn_suite.targets import PicsError, TargetError, pics_of, resolve_target

COMMAND = "pics"

PICS_HELP = (
    "Ask a target which parts of MS-MQCN it implements (server/client versions, product "
    "profiles, errata readings, workgroup mode) and write its PICS file (YAML) for "
    "`mqcn run --pics`. Exit 0: written. Exit 2: usage error. Exit 3: internal error."
)


def pics(
    target: target_cli.TargetOption = target_cli.TARGET_DEFAULT,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="FILE", help="Write the PICS here (default: print it)."),
    ] = None,
    timeout_text: target_cli.CallTimeoutOption = target_cli.TIMEOUT_DEFAULT,
    hello_timeout_text: target_cli.HelloTimeoutOption = target_cli.HELLO_TIMEOUT_DEFAULT,
) -> None:
    """``mqcn pics`` (see PICS_HELP)."""
    with boundary(COMMAND, usage_errors=(TargetError, PicsError, OutputError)):
        timeout, hello_timeout = target_cli.call_limits(timeout_text, hello_timeout_text)
        if out is not None:
            check_output_file(out, "--out")  # before the target starts
        implementation = resolve_target(target, timeout=timeout, hello_timeout=hello_timeout)
        try:
            text = pics_of(implementation).to_yaml()
        finally:
            implementation.close()
        if out is None:
            typer.echo(text, nl=False)
            return
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
        typer.echo(f"{PROG} {COMMAND}: wrote {out}", err=True)
