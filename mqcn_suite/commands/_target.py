"""What the commands that call a target share: ``--target``, ``--timeout``, ``--hello-timeout``.

``mqcn run`` and ``mqcn pics`` both start a target and bound its calls; each option is
declared here once, as an ``Annotated`` type a command's parameter names, and
:func:`call_limits` turns the two texts into seconds with the usual one-line usage errors.
"""

from __future__ import annotations

from typing import Annotated

import typer

from mqcn_suite.commands._common import parse_seconds
from mqcn_suite.targets import DEFAULT_HELLO_TIMEOUT, DEFAULT_TIMEOUT

TARGET_DEFAULT = "reference"
TIMEOUT_DEFAULT = str(DEFAULT_TIMEOUT)
HELLO_TIMEOUT_DEFAULT = str(DEFAULT_HELLO_TIMEOUT)

TargetOption = Annotated[
    str,
    typer.Option(
        "--target",
        metavar="TARGET",
        help=(
            "The implementation to judge: 'reference' (the embedded model), "
            "'python:package.module:factory' or 'exec:COMMAND ARGS...' "
            "(docs/adapter-protocol.md)."
        ),
    ),
]
CallTimeoutOption = Annotated[
    str,
    typer.Option("--timeout", metavar="SECONDS", help="Time limit of one call to the target."),
]
HelloTimeoutOption = Annotated[
    str,
    typer.Option(
        "--hello-timeout",
        metavar="SECONDS",
        help=(
            "Time limit of an exec: target's hello, which includes the program's start "
            "(a JVM, a loaded machine); --timeout bounds every other call."
        ),
    ),
]


def call_limits(timeout_text: str, hello_timeout_text: str) -> tuple[float, float]:
    """``(timeout, hello_timeout)`` in seconds; a UsageError names the bad option.

    >>> call_limits("10", "30")
    (10.0, 30.0)
    """
    return (
        parse_seconds("--timeout", timeout_text),
        parse_seconds("--hello-timeout", hello_timeout_text),
    )
