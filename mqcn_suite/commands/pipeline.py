"""``mqcn corpus generate``, ``mqcn audit`` and ``mqcn fuzz``: the Spark pipeline commands.

* ``mqcn corpus generate --count N --out DIR [--invalid-share F] [--seed S]`` writes a
  synthetic Parquet corpus (docs/corpus-format.md) on Spark;
* ``mqcn audit INPUT --out DIR [--lenient]`` judges every message of a corpus (or of a folder
  of raw message bodies), writes verdicts/, quarantine/, summary.json and summary.html, and
  prints the balance ``rows in = conforming + non-conforming + quarantined``;
* ``mqcn fuzz --target T --cases N [--seed S] [--out DIR]`` runs differential cases against a
  target on Spark; ``--case I`` replays one case in process (no Spark).

All three take ``--master URL`` (default ``local[2]``) and repeatable ``--conf KEY=VALUE``.

Exit codes (those of every ``mqcn`` command): 0 ok; 1 non-conforming or quarantined rows
found (audit) / divergences found (fuzz); 2 usage error, one line on stderr (bad master,
missing input, a corpus without a body column, ...); 3 internal error, one line, no traceback.

Spark is imported only when a command runs, so ``mqcn decode`` stays fast.  ``cli.py``
registers the commands with :func:`register`.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from mqcn_suite.pipeline.audit import AuditResult

EXIT_OK = 0
EXIT_FOUND = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_TARGET = 4
PROG = "mqcn"
DIVERGENCES_SHOWN = 10

MasterOption = Annotated[
    str,
    typer.Option(
        "--master",
        metavar="URL",
        help="Spark master: local[N], local[*], spark://HOST:PORT, yarn, k8s://URL.",
    ),
]
ConfOption = Annotated[
    list[str] | None,
    typer.Option(
        "--conf",
        metavar="KEY=VALUE",
        help="A Spark setting (repeatable), e.g. spark.driver.memory=4g.",
    ),
]


class CommandProblem(Exception):
    """A usage error found by the command itself (one line on stderr, exit 2)."""


def _fail(command: str, message: str, code: int) -> NoReturn:
    typer.echo(f"{PROG} {command}: {message}", err=True)
    raise typer.Exit(code)


@contextmanager
def boundary(command: str) -> Iterator[None]:
    """Every failure becomes one line and an exit code (2 for the user's, 3 for ours)."""
    from mqcn_suite.pipeline.session import PipelineError
    from mqcn_suite.targets import TargetError

    try:
        yield
    except (typer.Exit, BrokenPipeError):
        raise
    except (CommandProblem, PipelineError, TargetError) as exc:
        _fail(command, f"error: {exc}", EXIT_USAGE)
    except KeyboardInterrupt:
        _fail(command, "interrupted", 130)
    except Exception as exc:
        from mqcn_suite.pipeline.errors import spark_failure_line

        spark_line = spark_failure_line(exc)  # the one line of a failed Spark job; trace in a log
        if spark_line is not None:
            _fail(command, f"error: {spark_line}", EXIT_INTERNAL)
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        _fail(command, f"internal error: {type(exc).__name__}: {text}", EXIT_INTERNAL)


def _parse(option: str, text: str | None, kind: type[int] | type[float]) -> int | float:
    """Parse a numeric option ourselves, so that a typo is one line, not click's usage block."""
    if text is None:
        raise CommandProblem(f"{option} is required")
    try:
        value = kind(text.replace("_", ""))
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise CommandProblem(f"{option}: {text!r} is not {noun}") from None
    if not math.isfinite(value):
        raise CommandProblem(f"{option}: {text!r} is not a finite number")
    return value


def _int(option: str, text: str | None) -> int:
    return int(_parse(option, text, int))


def _float(option: str, text: str | None) -> float:
    return float(_parse(option, text, float))


def _session(master: str, conf: list[str] | None) -> AbstractContextManager[SparkSession]:
    """The running session, or a new one on ``master`` stopped when the command ends."""
    from mqcn_suite.pipeline.session import parse_conf, spark_session

    return spark_session(master, parse_conf(conf or []))


# --- corpus generate ---------------------------------------------------------------------------

GENERATE_HELP = (
    "Write a synthetic corpus of Change Notification Messages as Parquet (docs/corpus-format.md), "
    "built on Spark: many senders, both versions, all events and commands, and the given share "
    "of malformed or non-conforming messages. The same --seed gives byte-identical rows.\n\n"
    "Exit 0: written. Exit 2: usage error. Exit 3: internal error."
)


def corpus_generate(
    count: Annotated[
        str | None, typer.Option("--count", metavar="N", help="How many messages.")
    ] = None,
    out: Annotated[
        str | None, typer.Option("--out", metavar="DIR", help="New or empty output directory.")
    ] = None,
    invalid_share: Annotated[
        str,
        typer.Option(
            "--invalid-share", metavar="F", help="Share of malformed/non-conforming messages, 0..1."
        ),
    ] = "0.1",
    seed: Annotated[
        str, typer.Option("--seed", metavar="S", help="Seed: same seed, same rows.")
    ] = "0",
    master: MasterOption = "local[2]",
    conf: ConfOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print only a JSON document.")] = False,
) -> None:
    """``mqcn corpus generate`` (see GENERATE_HELP)."""
    with boundary("corpus generate"):
        from pathlib import Path

        from mqcn_suite.pipeline.corpus import check_generate_arguments, generate
        from mqcn_suite.pipeline.progress import spark_progress
        from mqcn_suite.pipeline.session import check_master

        n = _int("--count", count)
        share = _float("--invalid-share", invalid_share)
        seed_value = _int("--seed", seed)
        if not out:
            raise CommandProblem("--out is required")
        check_master(master)
        check_generate_arguments(n, Path(out), share)
        with _session(master, conf) as spark:
            step = spark_progress(spark, Console(stderr=True, highlight=False))
            with step(f"generating {n} messages"):
                result = generate(spark, n, out, share, seed_value)
        if as_json:
            sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
        else:
            typer.echo(
                f"wrote {result.rows} messages ({result.invalid_share:.0%} drawn malformed or "
                f"non-conforming, seed {result.seed}) in {result.files} Parquet files to "
                f"{result.path} in {result.seconds:.1f} s"
            )


# --- audit -------------------------------------------------------------------------------------

AUDIT_HELP = (
    "Judge every message of INPUT (a Parquet corpus directory or file, or a folder of raw "
    "message bodies) on Spark. Writes verdicts/ and quarantine/ (Parquet), summary.json and "
    "summary.html into --out, and prints the balance rows in = conforming + non-conforming + "
    "quarantined.\n\n"
    "Exit 0: every row conforming. Exit 1: some row non-conforming or quarantined. "
    "Exit 2: usage error. Exit 3: internal error."
)


def audit_command(
    input_path: Annotated[
        str | None,
        typer.Argument(
            metavar="INPUT",
            help="Parquet corpus (dir or file) or folder of raw bodies.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        str | None, typer.Option("--out", metavar="DIR", help="New or empty output directory.")
    ] = None,
    master: MasterOption = "local[2]",
    conf: ConfOption = None,
    lenient: Annotated[
        bool,
        typer.Option("--lenient", help="Accept every errata reading an implementation may take."),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print only summary.json on stdout.")
    ] = False,
) -> None:
    """``mqcn audit`` (see AUDIT_HELP)."""
    with boundary("audit"):
        from mqcn_model.errata import LENIENT, STRICT
        from mqcn_suite.pipeline.audit import audit, check_out, plan_input
        from mqcn_suite.pipeline.progress import spark_progress
        from mqcn_suite.pipeline.session import check_master

        if not input_path:
            raise CommandProblem(
                "give the INPUT corpus (a Parquet directory or file, or a folder of raw bodies)"
            )
        if not out:
            raise CommandProblem("--out is required")
        check_master(master)
        plan_input(input_path)  # missing input, bad columns: fail before Spark starts
        check_out(out)
        console = Console(stderr=True, highlight=False)
        with _session(master, conf) as spark:
            result = audit(
                spark,
                input_path,
                out,
                LENIENT if lenient else STRICT,
                progress=spark_progress(spark, console),
            )
        if as_json:
            sys.stdout.write(json.dumps(result.summary, indent=2) + "\n")
        else:
            _print_audit(Console(highlight=False, soft_wrap=True), result)
        if not result.balanced:
            _fail(
                "audit", f"internal error: input rows lost: {result.balance_line()}", EXIT_INTERNAL
            )
        raise typer.Exit(EXIT_FOUND if result.non_conforming or result.quarantined else EXIT_OK)


def _print_audit(console: Console, result: AuditResult) -> None:
    summary = result.summary
    top = summary["by_requirement"][:10]
    if top:
        console.print(Text("Most broken requirements:", style="bold"))
        for entry in top:
            line = Text(f"  {entry['messages']:>8}  ")
            line.append(entry["requirement"], style="bold red")
            line.append(f"  {entry['statement'] or ''}"[:110])
            console.print(line)
    disregarded = [e for e in summary["by_server_outcome"] if e["outcome"] != "processed"]
    if disregarded:
        count = sum(e["messages"] for e in disregarded)
        console.print(
            Text(f"A conforming queue manager would disregard {count} messages.", style="bold")
        )
    where = f"{result.out} ({result.seconds:.1f} s)"
    console.print(f"verdicts, quarantine, summary.json and summary.html in {where}")
    style = "bold green" if result.balanced and not result.non_conforming else "bold red"
    console.print(Text(result.balance_line(), style=style))


# --- fuzz --------------------------------------------------------------------------------------

FUZZ_HELP = (
    "Differential fuzzing on Spark: each partition generates valid and malformed messages "
    "(scapy layers, mutated reference vectors), delivers each to the target and to the "
    "reference model, and records every divergence (state or directory reads differ, or the "
    "target fails) with its requirement IDs, hex and a replay command. --case I replays one "
    "case in process.\n\n"
    "Exit 0: no divergence. Exit 1: divergences. Exit 2: usage error. Exit 3: internal error. "
    "Exit 4: the target kept timing out (--max-timeouts in a row): the cases not run are "
    "counted as not-run divergences.\n\n"
    "--codec (no --target): a hostile-input campaign instead -- N mutated and random bodies "
    "through the judge (both readings) and the server view; findings are exceptions, broken "
    "verdicts, cases slower than --slow-ms and allocations above max(--alloc-floor, "
    "--alloc-factor x size), each with its replay command (--codec --seed S --case I)."
)


def fuzz_command(
    target: Annotated[
        str | None, typer.Option("--target", metavar="T", help="The target, e.g. reference.")
    ] = None,
    cases: Annotated[
        str | None, typer.Option("--cases", metavar="N", help="How many cases to run.")
    ] = None,
    seed: Annotated[
        str, typer.Option("--seed", metavar="S", help="Seed: same seed, same cases.")
    ] = "0",
    master: MasterOption = "local[2]",
    conf: ConfOption = None,
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Write divergences/ (Parquet), divergences.jsonl, summary.json.",
        ),
    ] = None,
    case: Annotated[
        str | None, typer.Option("--case", metavar="I", help="Replay case I only, without Spark.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print only a JSON document.")] = False,
    timeout: Annotated[
        str,
        typer.Option("--timeout", metavar="SECONDS", help="Time limit of one call to the target."),
    ] = "10",
    max_timeouts: Annotated[
        str,
        typer.Option(
            "--max-timeouts",
            metavar="N",
            help="Stop calling a target after N consecutive cases timed out (0: never).",
        ),
    ] = "3",
    codec: Annotated[
        bool,
        typer.Option(
            "--codec",
            help="Hostile-input campaign against the codec, judge and server view (no target).",
        ),
    ] = False,
    slow_ms: Annotated[
        str | None,
        typer.Option("--slow-ms", metavar="MS", help="--codec: a case slower than this (10)."),
    ] = None,
    alloc_factor: Annotated[
        str | None,
        typer.Option(
            "--alloc-factor", metavar="F", help="--codec: allowed peak per input byte (64)."
        ),
    ] = None,
    alloc_floor: Annotated[
        str | None,
        typer.Option(
            "--alloc-floor", metavar="BYTES", help="--codec: allowed peak at least (65536)."
        ),
    ] = None,
    trace_every: Annotated[
        str | None,
        typer.Option(
            "--trace-every", metavar="K", help="--codec: trace allocations of 1 case in K (16)."
        ),
    ] = None,
) -> None:
    """``mqcn fuzz`` (see FUZZ_HELP)."""
    with boundary("fuzz"):
        from mqcn_suite.commands import campaign as codec_campaign
        from mqcn_suite.pipeline.fuzz import NOT_RUN, STRICTER, fuzz, replay
        from mqcn_suite.pipeline.progress import spark_progress
        from mqcn_suite.pipeline.session import check_master

        extra = (slow_ms, alloc_factor, alloc_floor, trace_every)
        if codec:
            codec_campaign.codec_campaign(
                codec_campaign.CodecOptions(
                    target, cases, seed, master, conf, out, case, as_json, *extra
                )
            )
        codec_campaign.refuse_codec_options(
            dict(zip(codec_campaign.CODEC_ONLY, extra, strict=True))
        )
        if not target:
            raise CommandProblem("--target is required (e.g. --target reference), or --codec")
        seed_value = _int("--seed", seed)
        try:
            limit = float(timeout)
        except ValueError:
            raise CommandProblem(f"--timeout: not a number of seconds: {timeout!r}") from None
        if not limit > 0:
            raise CommandProblem(f"--timeout: must be a positive number of seconds, not {timeout}")
        stop_after = _int("--max-timeouts", max_timeouts)
        if case is not None:
            found = replay(target, seed_value, _int("--case", case), timeout=limit)
            _print_replay(found, as_json)
            raise typer.Exit(EXIT_FOUND if found["divergence"] else EXIT_OK)
        n = _int("--cases", cases)
        check_master(master)
        with _session(master, conf) as spark:
            step = spark_progress(spark, Console(stderr=True, highlight=False))
            with step(f"fuzzing {n} cases against {target}"):
                result = fuzz(
                    spark, target, n, seed_value, out, timeout=limit, max_timeouts=stop_after
                )
        if as_json:
            sys.stdout.write(
                json.dumps({**result.to_json(), "sample": result.sample}, indent=2) + "\n"
            )
        else:
            console = Console(highlight=False, soft_wrap=True)
            shown = [r for r in result.sample if r["divergence"] != STRICTER]
            for row in shown[:DIVERGENCES_SHOWN]:
                line = Text(f"case {row['case']} ({row['family']}): ")
                line.append(row["divergence"], style="bold red")
                line.append(f" [{', '.join(row['requirements'])}] {row['detail']}")
                console.print(line)
                console.print(Text(f"  replay: {row['replay']}", style="dim"))
            where = f"; divergences in {result.out}" if result.out else ""
            style = "bold red" if result.divergences else "bold green"
            stricter = result.by_kind.get(STRICTER, 0)
            noted = f" (and {stricter} stricter-receiver cases, errata E-20)" if stricter else ""
            console.print(
                Text(
                    f"{result.cases} cases against {result.target} (seed {result.seed}): "
                    f"{result.divergences} divergences{noted} in {result.seconds:.1f} s{where}",
                    style=style,
                )
            )
        not_run = result.by_kind.get(NOT_RUN, 0)
        if not_run:
            typer.echo(
                f"mqcn fuzz: the target timed out {stop_after} times in a row: stopped; "
                f"{not_run} cases not run (exit {EXIT_TARGET})",
                err=True,
            )
            raise typer.Exit(EXIT_TARGET)
        raise typer.Exit(EXIT_FOUND if result.divergences else EXIT_OK)


def _print_replay(found: dict[str, Any], as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(found, indent=2, default=str) + "\n")
        return
    console = Console(highlight=False, soft_wrap=True)
    family, name = found["family"], found["target"]
    console.print(f"case {found['case']} of seed {found['seed']} ({family}) against {name}")
    console.print(
        f"  envelope: {json.dumps({k: v for k, v in found['envelope'].items() if k != 'body'})}"
    )
    console.print(f"  body: {found['envelope']['body']}")
    console.print(f"  judge: {', '.join(found['verdict']) or 'conforming'}")
    reason = f": {found['model_reason']}" if found["model_reason"] else ""
    console.print(f"  model: {found['model_outcome']}{reason}")
    divergence = found["divergence"]
    if divergence is None:
        console.print(Text("target and model agree", style="bold green"))
    else:
        console.print(Text(f"{divergence['divergence']}: {divergence['detail']}", style="bold red"))


# --- registration ------------------------------------------------------------------------------


def register(app: typer.Typer) -> None:
    """Add ``corpus generate``, ``audit`` and ``fuzz`` to ``app`` (``mqcn_suite.cli.app``)."""
    corpus = typer.Typer(
        name="corpus",
        help="Synthetic corpora of Change Notification Messages (Parquet, on Spark).",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    corpus.command("generate", help=GENERATE_HELP)(corpus_generate)
    app.add_typer(corpus, name="corpus")
    app.command("audit", help=AUDIT_HELP)(audit_command)
    app.command("fuzz", help=FUZZ_HELP)(fuzz_command)
