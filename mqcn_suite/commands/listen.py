"""``mqcn listen``: be a queue manager on a TCP port and audit every change notification sent to it.

``mqcn listen --port P --report D [--host 127.0.0.1] [--count N] [--seconds S] [--lenient]``
runs the suite's queue manager alone (a :class:`mqcn_suite.transport.Listener`): it accepts
MS-MQQB sessions, acknowledges as a queue manager does, and judges every UserMessage that
arrives exactly as ``mqcn audit`` judges a captured one (:mod:`mqcn_suite.pipeline.listening`).
It prints the address it listens on first (port 0: the kernel's choice), then one line per
arrival (verdict, source, requirement IDs), and at the end the balance.  ``D`` receives the
audit's outputs: ``verdicts/`` and ``quarantine/`` as messages arrive, ``summary.json`` and
``summary.html`` at the end.  It stops after ``--count`` UserMessages (each acknowledged
first), after ``--seconds``, or on Ctrl-C (the outputs are written, exit 130).

Exit codes: 0 every change notification conforming and no session set aside; 1 a
non-conforming message, a wire or envelope finding or a quarantined session; 2 a usage error
(a port it cannot bind, a --report that is not an empty folder...), one line; 5 nothing
judged (no change notification arrived and no session was set aside, as ``mqcn audit`` of an
input without one); 130 Ctrl-C.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Annotated

import typer

from mqcn_model.errata import LENIENT, STRICT
from mqcn_suite.commands._common import UsageError, boundary, parse_int, parse_seconds
from mqcn_suite.exit_codes import ExitCode

if TYPE_CHECKING:
    from mqcn_model.errata import Readings
    from mqcn_suite.transport import Listener

LISTEN_HELP = (
    "Run the suite's queue manager alone on a TCP port: accept MS-MQQB sessions, acknowledge "
    "as a queue manager does, and judge every change notification that arrives with the "
    "judge of `mqcn audit` (same verdict rows, summary.json and summary.html, in --report). "
    "Prints the address first, one line per message, then the balance.  Exit 0 all "
    "conforming, 1 findings or quarantined sessions, 2 usage error (e.g. a port it cannot "
    "bind), 5 nothing judged, 130 Ctrl-C (what arrived is written)."
)
TICK = 0.05  # how often the loop looks at the sessions and prints
ACK_GRACE = 2.0  # after --count: how long the last messages may wait for their SessionAck


def listen(
    port: Annotated[
        str,
        typer.Option("--port", metavar="P", help="TCP port to listen on (0: the kernel's choice)."),
    ],
    report: Annotated[
        str,
        typer.Option("--report", metavar="DIR", help="Where the verdicts and summaries go."),
    ],
    host: Annotated[
        str, typer.Option("--host", metavar="ADDR", help="Address to listen on.")
    ] = "127.0.0.1",
    count: Annotated[
        str | None,
        typer.Option("--count", metavar="N", help="Stop after N UserMessages.", show_default=False),
    ] = None,
    seconds: Annotated[
        str | None,
        typer.Option("--seconds", metavar="S", help="Stop after S seconds.", show_default=False),
    ] = None,
    lenient: Annotated[
        bool,
        typer.Option("--lenient", help="Accept every errata reading an implementation may take."),
    ] = False,
) -> None:
    """``mqcn listen`` (see the module docstring)."""
    from mqcn_suite.pipeline.session import PipelineError
    from mqcn_suite.transport import BindFailed

    with boundary("listen", usage_errors=(BindFailed, PipelineError)):
        number = parse_int("--port", port)
        if not 0 <= number <= 65535:
            raise UsageError(f"--port {port}: not a TCP port (0..65535)")
        limit = parse_int("--count", count) if count is not None else None
        if limit is not None and limit < 1:
            raise UsageError(f"--count {count}: must be at least 1")
        stop_after = parse_seconds("--seconds", seconds) if seconds is not None else None
        code = _serve(host, number, report, limit, stop_after, LENIENT if lenient else STRICT)
        raise typer.Exit(int(code))


def _serve(
    host: str,
    port: int,
    report: str,
    limit: int | None,
    stop_after: float | None,
    readings: Readings,
) -> ExitCode:
    """Listen, print, write; the exit code."""
    from mqcn_model.mqqb import SessionConfig
    from mqcn_suite.pipeline.audit import balance_text
    from mqcn_suite.pipeline.listening import LISTEN, ListenAudit
    from mqcn_suite.transport import Listener

    started = time.perf_counter()
    audit = ListenAudit(report, readings)
    # an auditor refuses no session: it answers as whichever queue manager a sender names
    config = SessionConfig(uuid.uuid4(), ack_send_delay=0.0, answers_any=True)
    listener = Listener(host, port, on_message=audit.on_message, config=config)
    address = f"{listener.host}:{listener.port}"
    typer.echo(f"listening on {address}")
    interrupted = False
    try:
        deadline = None if stop_after is None else time.monotonic() + stop_after
        while True:
            audit.account_sessions(listener.sessions_from(0))
            for line in audit.take_lines():
                typer.echo(line.text())
            if limit is not None and audit.received >= limit:
                _await_acks(listener)
                break
            if deadline is not None and time.monotonic() >= deadline:
                break
            time.sleep(TICK)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        listener.close()
        audit.account_sessions(listener.sessions_from(0), all_of_them=True)
        for line in audit.take_lines():
            typer.echo(line.text())
        summary = audit.finish(address, started)
    typer.echo(balance_text(summary))
    if interrupted:
        typer.echo("mqcn listen: interrupted", err=True)
        return ExitCode.INTERRUPTED
    balance = summary["balance"]
    if not balance["balanced"]:
        typer.echo("mqcn listen: internal error: messages lost from the balance", err=True)
        return ExitCode.INTERNAL
    nothing = LISTEN.nothing_judged(balance, summary.get(LISTEN.mode))
    if nothing is not None:
        typer.echo(f"mqcn listen: {address} received {nothing}: nothing was judged", err=True)
        return ExitCode.NO_SCENARIO
    found = (
        balance["non_conforming"]
        or balance["quarantine_entries"]
        or summary.get("findings_by_requirement")
    )
    return ExitCode.FOUND if found else ExitCode.OK


def _await_acks(listener: Listener) -> None:
    """Give the sessions a moment to acknowledge what they received (at most ACK_GRACE s)."""
    deadline = time.monotonic() + ACK_GRACE
    sessions = listener.sessions_from(0)
    while time.monotonic() < deadline:
        if all(s.closed or s.machine.unacked_received == 0 for s in sessions):
            return
        time.sleep(TICK / 5)
