"""``mqcn fuzz codec``: the hostile-input campaign (:mod:`mqcn_suite.pipeline.campaign`).

``mqcn fuzz codec --cases N [--seed S] [--out DIR]`` runs N hostile bodies (on Spark above
:data:`~mqcn_suite.pipeline.engine.CODEC_CASES`); ``mqcn fuzz codec --seed S --case I``
replays one in this process, without Spark.  The options are parsed and checked here, so
every mistake is one line (exit 2); those shared with the other pipeline commands are
declared in :mod:`mqcn_suite.commands._spark`.  ``mqcn fuzz --codec ...`` is the older
spelling (:class:`~mqcn_suite.commands.pipeline.FuzzGroup`).

Exit 0: no finding ("no finding" for a replay). Exit 1: findings (or the replayed case's
finding). Exit 2: usage error. Exit 3: internal error, including a broken balance
(cases planned = generated = judged).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from mqcn_suite.commands import _spark as spark_cli
from mqcn_suite.commands._common import (
    ExitCode,
    UsageError,
    boundary,
    fail,
    parse_float,
    parse_int,
)
from mqcn_suite.pipeline.engine import CODEC_CASES
from mqcn_suite.wording import plural

FINDINGS_SHOWN = 10
HEX_ON_TERMINAL = 128  # bytes of a replayed body printed; --json prints all

CODEC_HELP = (
    "A hostile-input campaign against the codec, the judge (both readings) and the server "
    "view -- no target: N mutated and random bodies; findings are exceptions, broken "
    "verdicts, cases slower than --slow-ms and allocations above max(--alloc-floor, "
    "--alloc-factor x size), each with its replay command (mqcn fuzz codec --seed S --case "
    f"I); in this process for at most {CODEC_CASES} cases, else on Spark (--engine, --master). "
    "--out gets findings.jsonl, bodies/ and summary.json.\n\n"
    "Exit 0: no finding. Exit 1: findings (or the replayed case's). Exit 2: usage error "
    "(--cases below 1, an --out that is not an empty writable directory: before Spark "
    "starts). Exit 3: internal error, including a broken balance."
)


@dataclass(frozen=True)
class CodecOptions:
    """The options of ``mqcn fuzz codec`` as given (text, None when absent), by name."""

    cases: str | None = None
    seed: str = "0"
    case: str | None = None
    out: str | None = None
    as_json: bool = False
    slow_ms: str | None = None
    alloc_factor: str | None = None
    alloc_floor: str | None = None
    trace_every: str | None = None
    master: str | None = None
    conf: list[str] | None = None
    engine: str = "auto"
    started: float | None = None  # time.perf_counter() when the command started


def fuzz_codec(
    cases: spark_cli.CasesOption = None,
    seed: spark_cli.SeedOption = "0",
    case: spark_cli.CaseOption = None,
    out: spark_cli.OutOption = None,
    as_json: spark_cli.JsonOption = False,
    slow_ms: Annotated[
        str | None,
        typer.Option("--slow-ms", metavar="MS", help="A case slower than this (10)."),
    ] = None,
    alloc_factor: Annotated[
        str | None,
        typer.Option("--alloc-factor", metavar="F", help="Allowed peak per input byte (64)."),
    ] = None,
    alloc_floor: Annotated[
        str | None,
        typer.Option("--alloc-floor", metavar="BYTES", help="Allowed peak at least (65536)."),
    ] = None,
    trace_every: Annotated[
        str | None,
        typer.Option("--trace-every", metavar="K", help="Trace allocations of 1 case in K (16)."),
    ] = None,
    master: spark_cli.MasterOption = None,
    conf: spark_cli.ConfOption = None,
    engine: spark_cli.EngineOption = "auto",
) -> None:
    """``mqcn fuzz codec`` (see CODEC_HELP)."""
    started = time.perf_counter()
    with boundary("fuzz", usage_errors=spark_cli.usage_errors(), explain=spark_cli.spark_explain):
        spark_cli.require_spark_extra()
        codec_campaign(
            CodecOptions(
                cases=cases,
                seed=seed,
                case=case,
                out=out,
                as_json=as_json,
                slow_ms=slow_ms,
                alloc_factor=alloc_factor,
                alloc_floor=alloc_floor,
                trace_every=trace_every,
                master=master,
                conf=conf,
                engine=engine,
                started=started,
            )
        )


def _limits(options: CodecOptions) -> Any:
    from mqcn_suite.pipeline.campaign import Limits

    default = Limits()
    slow = default.slow_ms if options.slow_ms is None else parse_float("--slow-ms", options.slow_ms)
    factor = (
        default.alloc_factor
        if options.alloc_factor is None
        else parse_int("--alloc-factor", options.alloc_factor)
    )
    floor = (
        default.alloc_floor
        if options.alloc_floor is None
        else parse_int("--alloc-floor", options.alloc_floor)
    )
    every = (
        default.trace_every
        if options.trace_every is None
        else parse_int("--trace-every", options.trace_every)
    )
    if slow <= 0:
        raise UsageError(f"--slow-ms: must be a positive number of milliseconds, not {slow:g}")
    if factor < 1:
        raise UsageError(f"--alloc-factor: must be at least 1, not {factor}")
    if floor < 0:
        raise UsageError(f"--alloc-floor: must be a number of bytes >= 0, not {floor}")
    if every < 1:
        raise UsageError(f"--trace-every: must be at least 1 (1: every case), not {every}")
    return Limits(slow_ms=slow, alloc_factor=factor, alloc_floor=floor, trace_every=every)


def codec_campaign(options: CodecOptions) -> None:
    """Run or replay the campaign; always ends with ``typer.Exit``."""
    from mqcn_suite.pipeline.campaign import campaign, replay_codec_case
    from mqcn_suite.pipeline.checks import check_cases, check_out
    from mqcn_suite.pipeline.engine import check_engine, choose_engine
    from mqcn_suite.pipeline.session import check_master

    seed = parse_int("--seed", options.seed)
    limits = _limits(options)
    if options.case is not None:
        if options.cases is not None or options.out is not None:
            given = "--cases" if options.cases is not None else "--out"
            raise UsageError(f"--case replays one case in process: give no {given}")
        found = replay_codec_case(seed, parse_int("--case", options.case), limits)
        _print_replay(found, options.as_json)
        raise typer.Exit(ExitCode.FOUND if found["finding"] else ExitCode.OK)
    n = parse_int("--cases", options.cases)
    check_cases(n)
    if options.master is not None:
        check_master(options.master)
    check_engine(options.engine)
    if options.out is not None:
        check_out(options.out)
    started = time.perf_counter() if options.started is None else options.started
    chosen = choose_engine(
        options.engine,
        options.master,
        [(n, CODEC_CASES, "cases")],
        conf=options.conf,
        outputs=[options.out],
    )
    said = f"{n} hostile bodies; engine: {chosen.label} ({chosen.reason})"
    typer.echo(said, err=options.as_json)
    with spark_cli.engine_session(chosen, options.conf) as spark:
        step = spark_cli.steps(spark, Console(stderr=True, highlight=False))
        with step(f"{n} hostile bodies through the judge and the server view"):
            result = campaign(spark, n, seed, options.out, limits, started=started)
    if options.as_json:
        sys.stdout.write(json.dumps({**result.to_json(), "sample": result.sample}, indent=2) + "\n")
    else:
        console = Console(highlight=False, soft_wrap=True)
        for row in result.sample[:FINDINGS_SHOWN]:
            _print_finding(console, row)
        line = _summary_line(result, time.perf_counter() - started)
        console.print(Text(line, style="bold red" if result.findings else "bold green"))
    if not result.balanced:
        fail("fuzz", f"internal error: cases lost: {result.balance_line()}", ExitCode.INTERNAL)
    raise typer.Exit(ExitCode.FOUND if result.findings else ExitCode.OK)


def _summary_line(result: Any, seconds: float) -> str:
    """The campaign's last line; ``seconds``: the command's wall time until now."""
    categories = ", ".join(f"{c} {n}" for c, n in result.by_category.items())
    rate = result.cases / result.seconds if result.seconds else 0.0
    where = f"; findings.jsonl and summary.json in {result.out}" if result.out else ""
    return (
        f"{plural(result.cases, 'hostile body', 'hostile bodies')} (seed {result.seed}) "
        "through judge and server view: "
        f"{plural(result.findings, 'finding')} ({categories}); {result.traced} traced; "
        f"{result.balance_line()}; {rate:,.0f} cases/s; {result.engine}, {seconds:.1f} s{where}"
    )


def _print_finding(console: Console, row: dict[str, Any]) -> None:
    line = Text(f"case {row['case']} ({row['kind']}, {row['size']} bytes): ")
    line.append(", ".join(row["categories"]), style="bold red")
    line.append(f": {row['detail']}")
    console.print(line)
    console.print(Text(f"  replay: {row['replay']}", style="dim"))


def _print_replay(found: dict[str, Any], as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(found, indent=2) + "\n")
        return
    console = Console(highlight=False, soft_wrap=True)
    console.print(
        f"case {found['case']} of seed {found['seed']} ({found['kind']} of {found['origin']}, "
        f"{found['size']} bytes)"
    )
    shown = found["hex"][: 2 * HEX_ON_TERMINAL]
    more = f"... ({found['size']} bytes; --json for all)" if len(found["hex"]) > len(shown) else ""
    console.print(f"  body: {shown or '(empty)'}{more}")
    verdict = found["verdict"]
    if verdict is not None:
        console.print(f"  judge: {', '.join(verdict) or 'conforming'}")
    finding = found["finding"]
    if finding is None:
        console.print(Text("no finding", style="bold green"))
    else:
        _print_finding(console, finding)
