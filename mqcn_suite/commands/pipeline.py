"""``mqcn corpus generate``, ``mqcn audit`` and ``mqcn fuzz``: the Spark pipeline commands.

* ``mqcn corpus generate --count N --out DIR [--invalid-share F] [--seed S] [--format F]``
  writes a synthetic Parquet corpus (docs/corpus-format.md) on Spark, or with
  ``--format pcap`` the same messages as capture files (docs/capture.md);
* ``mqcn audit INPUT --out DIR [--lenient]`` judges every message of a corpus (or of a folder
  of raw message bodies), writes verdicts/, quarantine/, summary.json and summary.html, and
  prints the balance ``rows in = conforming + non-conforming + quarantined`` with the rows
  in unreadable row groups and the bytes of files without a readable footer;
* ``mqcn fuzz --target T --cases N [--seed S] [--out DIR]`` runs differential cases against a
  target on Spark; ``--case I`` replays one case in process (no Spark).

All three take ``--master URL`` (default ``local[2]``) and repeatable ``--conf KEY=VALUE``.
``audit`` and ``fuzz`` also take ``--engine auto|in-process|spark``: ``auto`` (the default)
runs small work in this process, with the same task code and without Spark, and Spark
above the thresholds of :mod:`mqcn_suite.pipeline.engine` or whenever ``--master`` or
``--conf`` is given.  The engine is named on the first line and in the summary.  Printed
times are wall times of the whole command, Spark's start and stop included.

Exit codes (those of every ``mqcn`` command, :class:`~mqcn_suite.commands._common.ExitCode`):
0 ok; 1 non-conforming or quarantined input found (audit) / divergences found (fuzz, the run
and ``--case`` alike; reading and stricter-receiver rows are no divergence); 2 usage error,
one line on stderr (bad master, missing input, an empty INPUT file or one where a capture was
expected that holds none, a corpus without a body column, an --out that cannot be written,
--count 0, --cases 0, --engine in-process with --master, ...); 3 internal error, one line,
no traceback; 4 the target kept timing out (fuzz); 5 nothing judged: the audit's input held
no message.

Everything a command can refuse is refused before Spark starts
(:mod:`mqcn_suite.pipeline.checks`).

Spark is imported only when a command runs, so ``mqcn decode`` stays fast, and the base
package (without the ``[spark]`` extra) has every other command; each pipeline command first
says how to install the extra if it is missing (:mod:`mqcn_suite.pipeline.preflight`).  ``cli.py``
registers the commands with :func:`register`.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from mqcn_suite.commands._common import (
    PROG,
    ExitCode,
    UsageError,
    boundary,
    command_group,
    fail,
    parse_float,
    parse_int,
    parse_seconds,
)
from mqcn_suite.commands._text import hanging, plural
from mqcn_suite.pipeline.engine import (
    AUDIT_BYTES,
    AUDIT_ROWS,
    CODEC_CASES,
    FUZZ_CASES,
    human_bytes,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from mqcn_suite.pipeline.audit import AuditResult
    from mqcn_suite.pipeline.corpus import CorpusResult
    from mqcn_suite.pipeline.engine import Engine

DIVERGENCES_SHOWN = 10

MasterOption = Annotated[
    str | None,
    typer.Option(
        "--master",
        metavar="URL",
        help="Spark master: local[N], local[*], spark://HOST:PORT, yarn, k8s://URL "
        "(default local[2]; with --engine auto, giving it means Spark).",
        show_default=False,
    ),
]
EngineOption = Annotated[
    str,
    typer.Option(
        "--engine",
        metavar="ENGINE",
        help="auto (in this process when the work is small, else Spark), in-process, or spark.",
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


def _usage_errors() -> tuple[type[Exception], ...]:
    """The pipeline's own usage errors: a bad master or corpus, a target that does not start."""
    from mqcn_suite.pipeline.session import PipelineError
    from mqcn_suite.targets import TargetError

    return (PipelineError, TargetError)


def _require_spark_extra(spark: bool = False) -> None:
    """:class:`UsageError` saying how to install the ``[spark]`` extra when a module of it
    is missing -- the first thing every pipeline command checks (pyarrow and pandas, which
    the in-process engine needs), and again before a Spark session (pyspark too)."""
    from mqcn_suite.pipeline.preflight import IN_PROCESS_NEEDS, spark_extra_problem

    problem = spark_extra_problem() if spark else spark_extra_problem(IN_PROCESS_NEEDS)
    if problem is not None:
        raise UsageError(problem)


def _spark_explain(exc: BaseException) -> str | None:
    """The one line of a failed Spark job (its whole trace goes to a log file the line names)."""
    from mqcn_suite.pipeline.errors import spark_failure_line

    return spark_failure_line(exc)


@contextmanager
def _session(master: str | None, conf: list[str] | None) -> Iterator[SparkSession]:
    """The running session, or a new one on ``master`` stopped when the command ends.

    Before a new session is created, the Java Spark would run is checked (a missing or old
    one is one line, :func:`.preflight.java_problem`), then ``starting Spark (MASTER)…`` goes
    to stderr (and a spinner, on a terminal): the JVM takes seconds to start, and the user
    sees why at once.
    """
    from mqcn_suite.pipeline.preflight import java_problem
    from mqcn_suite.pipeline.progress import starting_spark
    from mqcn_suite.pipeline.session import (
        DEFAULT_MASTER,
        PipelineError,
        active_session,
        check_master,
        gateway_running,
        parse_conf,
        spark_session,
    )

    master = check_master(master or DEFAULT_MASTER)
    settings = parse_conf(conf or [])
    _require_spark_extra(spark=True)
    fresh = active_session() is None
    if fresh and not gateway_running():
        # A missing or old Java is the one line, before "starting Spark" promises a start.
        problem = java_problem()
        if problem is not None:
            raise PipelineError(problem)
    with ExitStack() as stack:
        starting = (
            starting_spark(Console(stderr=True, highlight=False), master)
            if fresh
            else nullcontext()
        )
        with starting:
            spark = stack.enter_context(spark_session(master, settings))
        yield spark


@contextmanager
def _engine_session(engine: Engine, conf: list[str] | None) -> Iterator[SparkSession | None]:
    """A Spark session for the Spark engine (:func:`_session`), None for the in-process one."""
    if not engine.spark:
        yield None
        return
    with _session(engine.master, conf) as spark:
        yield spark


def _steps(spark: SparkSession | None, console: Console) -> Any:
    """The progress factory of the engine running: Spark's tasks, or in-process steps."""
    from mqcn_suite.pipeline.progress import local_progress, spark_progress

    return local_progress(console) if spark is None else spark_progress(spark, console)


def _wall(started: float) -> float:
    """Seconds since the command started (what every printed time is)."""
    return time.perf_counter() - started


# --- corpus generate ---------------------------------------------------------------------------

GENERATE_HELP = (
    "Write a synthetic corpus of Change Notification Messages as Parquet (docs/corpus-format.md), "
    "built on Spark: many senders, both versions, all events and commands, and the given share "
    "of malformed or non-conforming messages. The same --seed gives byte-identical rows.\n\n"
    "--format pcap writes the same messages as capture files instead (docs/capture.md): one "
    "part-NNNNN.pcap per partition, each message an MS-MQQB session on TCP port 1801. The "
    "executors write these files themselves, so --out must then be a local path or file:// URI "
    "on a filesystem the driver and every executor share (no hdfs://). Messages the wire cannot "
    "carry are counted and named, not written.\n\n"
    "Exit 0: written. Exit 2: usage error (--count below 1, an --out that is not an empty "
    "writable directory, ...: checked before Spark starts). Exit 3: internal error."
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
    file_format: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="parquet (a dataset) or pcap (capture files; --out on a shared filesystem).",
        ),
    ] = "parquet",
    master: MasterOption = None,
    conf: ConfOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print only a JSON document.")] = False,
) -> None:
    """``mqcn corpus generate`` (see GENERATE_HELP)."""
    started = time.perf_counter()
    with boundary("corpus generate", usage_errors=_usage_errors(), explain=_spark_explain):
        _require_spark_extra()
        from mqcn_suite.pipeline.capture_corpus import check_format, local_out
        from mqcn_suite.pipeline.checks import check_generate_arguments
        from mqcn_suite.pipeline.session import check_master

        n = parse_int("--count", count)
        share = parse_float("--invalid-share", invalid_share)
        seed_value = parse_int("--seed", seed)
        pcap = check_format(file_format) == "pcap"
        if not out:
            raise UsageError("--out is required")
        if master is not None:
            check_master(master)
        out_place = local_out(out) if pcap else out  # executors write captures: no Hadoop URI
        check_generate_arguments(n, out_place, share)  # before pyarrow, Spark, the generators

        from mqcn_suite.pipeline.corpus import generate
        from mqcn_suite.pipeline.progress import spark_progress

        with _session(master, conf) as spark:
            step = spark_progress(spark, Console(stderr=True, highlight=False))
            with step(f"generating {n} messages"):
                result = generate(spark, n, out, share, seed_value, file_format)
        if as_json:
            sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
        else:
            typer.echo(_generate_line(result, _wall(started)))


def _generate_line(result: CorpusResult, seconds: float) -> str:
    """The summary line of ``corpus generate``; messages the wire cannot carry are named."""
    drawn = f"({result.invalid_share:.0%} drawn malformed or non-conforming, seed {result.seed})"
    if result.format == "parquet":
        return (
            f"wrote {result.rows} messages {drawn} in {result.files} Parquet files to "
            f"{result.path} in {seconds:.1f} s"
        )
    line = (
        f"wrote {result.messages} of {result.rows} messages {drawn} as MS-MQQB sessions in "
        f"{result.files} capture files ({(result.bytes or 0) / 1e6:.1f} MB) to {result.path} "
        f"in {seconds:.1f} s"
    )
    if result.unwritable:
        line += (
            f"; {result.unwritable} the wire cannot carry, not written "
            f"(first: {result.first_unwritable})"
        )
    return line


# --- audit -------------------------------------------------------------------------------------

AUDIT_HELP = (
    "Judge every message of INPUT (a Parquet corpus directory or file, a folder of raw "
    "message bodies, or a pcap/pcapng capture or folder of captures). Writes "
    "verdicts/ and quarantine/ (Parquet), summary.json and summary.html into --out, and prints "
    "the balance rows in = conforming + non-conforming + quarantined, with the rows in "
    "unreadable row groups and the bytes of files without a readable footer.\n\n"
    "The first line names what INPUT was found to be (2 pcap captures, 108.8 MB; a Parquet "
    "corpus of N rows; 1 file read as a raw message body) and the engine: in this process "
    f"for small input (at most {human_bytes(AUDIT_BYTES)} and {AUDIT_ROWS} rows or files), "
    "else Spark (--engine, --master).\n\n"
    "A capture (tcpdump -w x.pcap tcp port 1801) is reassembled and every UserMessage sent to "
    "a notification queue is judged; the balance is then UserMessages found = conforming + "
    "non-conforming + other messages + quarantined, and stream bytes = packets + quarantined "
    "+ lost (docs/capture.md).\n\n"
    "Exit 0: every row conforming. Exit 1: some row non-conforming or quarantined, or a file "
    "without a readable footer. Exit 2: usage error (also: INPUT is an empty file, or a "
    "file named or marked as a capture that holds none). Exit 3: internal error. Exit 5: "
    "INPUT held no message (nothing judged; for captures: no change notification and "
    "nothing set aside)."
)


def audit_command(
    input_path: Annotated[
        str | None,
        typer.Argument(
            metavar="INPUT",
            help="Parquet corpus (dir or file), folder of raw bodies, or capture(s).",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        str | None, typer.Option("--out", metavar="DIR", help="New or empty output directory.")
    ] = None,
    master: MasterOption = None,
    conf: ConfOption = None,
    engine: EngineOption = "auto",
    lenient: Annotated[
        bool,
        typer.Option("--lenient", help="Accept every errata reading an implementation may take."),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print only summary.json on stdout.")
    ] = False,
) -> None:
    """``mqcn audit`` (see AUDIT_HELP)."""
    started = time.perf_counter()
    with boundary("audit", usage_errors=_usage_errors(), explain=_spark_explain):
        _require_spark_extra()
        from mqcn_model.errata import LENIENT, STRICT
        from mqcn_suite.pipeline.audit import (
            NothingToJudge,
            audit,
            check_out,
            check_work,
            plan_input,
        )
        from mqcn_suite.pipeline.engine import AUDIT_BYTES, AUDIT_ROWS, check_engine, choose_engine
        from mqcn_suite.pipeline.session import check_master

        if not input_path:
            raise UsageError(
                "give the INPUT corpus (a Parquet directory or file, a folder of raw bodies, "
                "or a capture file or folder)"
            )
        if not out:
            raise UsageError("--out is required")
        check_engine(engine)
        if master is not None:
            check_master(master)
        plan = plan_input(input_path)  # missing input, bad columns: fail before Spark starts
        check_out(out)
        work = [(plan.bytes, AUDIT_BYTES, "bytes"), (plan.rows_expected, AUDIT_ROWS, "rows")]
        chosen = choose_engine(engine, master, work, conf=conf, outputs=[out])
        first = f"{plan.description}; engine: {chosen.label} ({chosen.reason})"
        typer.echo(first, err=as_json)
        try:
            check_work(plan, input_path)
        except NothingToJudge as exc:  # no usage error, and no pass: nothing was judged
            fail("audit", str(exc), ExitCode.NO_SCENARIO)
        console = Console(stderr=True, highlight=False)
        with _engine_session(chosen, conf) as spark:
            result = audit(
                spark,
                input_path,
                out,
                LENIENT if lenient else STRICT,
                progress=_steps(spark, console),
                plan=plan,
                started=started,
            )
        if as_json:
            sys.stdout.write(json.dumps(result.summary, indent=2) + "\n")
        else:
            _print_audit(Console(highlight=False, soft_wrap=True), result, _wall(started))
        if not result.balanced:
            fail(
                "audit",
                f"internal error: input rows lost: {result.balance_line()}",
                ExitCode.INTERNAL,
            )
        if result.nothing_judged:  # a capture known to be empty of notifications only now
            capture = result.capture or {}
            fail(
                "audit",
                f"INPUT: {input_path} held 0 change notifications ({capture.get('files', 0)} "
                f"capture file(s), {capture.get('frames', 0)} frames, {result.other_messages} "
                "UserMessage(s) to other queues): nothing was judged",
                ExitCode.NO_SCENARIO,
            )
        raise typer.Exit(ExitCode.OK if result.clean else ExitCode.FOUND)


def _print_audit(console: Console, result: AuditResult, seconds: float) -> None:
    summary = result.summary
    top = summary["by_requirement"][:10]
    if top:
        console.print(Text("Most broken requirements:", style="bold"))
        for entry in top:
            line = Text(f"  {entry['messages']:>8}  ")
            line.append(entry["requirement"], style="bold red")
            line.append("  ")
            console.print(hanging(line, entry["statement"] or "", console.width, indent=12))
    disregarded = [e for e in summary["by_server_outcome"] if e["outcome"] != "processed"]
    if disregarded:
        count = sum(e["messages"] for e in disregarded)
        console.print(
            Text(
                f"A conforming queue manager would disregard {plural(count, 'message')}.",
                style="bold",
            )
        )
    where = f"{result.out} ({result.engine}, {seconds:.1f} s)"
    console.print(f"verdicts, quarantine, summary.json and summary.html in {where}")
    style = "bold green" if result.balanced and not result.non_conforming else "bold red"
    console.print(Text(result.balance_line(), style=style))


# --- fuzz --------------------------------------------------------------------------------------

FUZZ_HELP = (
    f"Differential fuzzing, in this process for at most {FUZZ_CASES} cases (1 partition), else "
    "on Spark "
    "(--engine auto|in-process|spark; --master or --conf mean Spark): each partition generates "
    "valid and malformed messages "
    "(scapy layers, mutated reference vectors), delivers each to the target and to the "
    "reference model, and records every divergence (state or directory reads that no reading "
    "of the errata items involved gives, or the target fails) with its requirement IDs, hex "
    "and a replay command. --case I replays one case in process. A target following another "
    "reading of an errata item (docs/errata.md; the letter of the spec included) gives reading "
    "rows naming it, tallied as 'readings followed'; a target stricter than the model where "
    "the spec allows it (errata E-20) gives stricter-receiver rows, and cases a stopped "
    "partition never ran give not-run rows: all are written and counted apart, never as "
    "divergences.\n\n"
    "Exit 0: no divergence. Exit 1: divergences (the same rule for a run and for --case). "
    "Exit 2: usage error (--cases below 1, an --out that is not an empty writable directory: "
    "before Spark starts). Exit 3: internal error. Exit 4: the target kept timing out "
    "(--max-timeouts in a row): some cases not run.\n\n"
    "--codec (no --target): a hostile-input campaign instead -- N mutated and random bodies "
    "through the judge (both readings) and the server view; findings are exceptions, broken "
    "verdicts, cases slower than --slow-ms and allocations above max(--alloc-floor, "
    "--alloc-factor x size), each with its replay command (--codec --seed S --case I); in "
    f"this process for at most {CODEC_CASES} cases, else on Spark."
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
    master: MasterOption = None,
    conf: ConfOption = None,
    engine: EngineOption = "auto",
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
    started = time.perf_counter()
    with boundary("fuzz", usage_errors=_usage_errors(), explain=_spark_explain):
        _require_spark_extra()
        from mqcn_suite.commands import campaign as codec_campaign
        from mqcn_suite.pipeline.checks import check_cases, check_out
        from mqcn_suite.pipeline.engine import FUZZ_CASES, check_engine, choose_engine
        from mqcn_suite.pipeline.session import check_master

        extra = (slow_ms, alloc_factor, alloc_floor, trace_every)
        if codec:
            codec_campaign.codec_campaign(
                codec_campaign.CodecOptions(
                    target, cases, seed, master, conf, out, case, as_json, *extra, engine, started
                )
            )
        codec_campaign.refuse_codec_options(
            dict(zip(codec_campaign.CODEC_ONLY, extra, strict=True))
        )
        if not target:
            raise UsageError("--target is required (e.g. --target reference), or --codec")
        seed_value = parse_int("--seed", seed)
        limit = parse_seconds("--timeout", timeout)
        stop_after = parse_int("--max-timeouts", max_timeouts)
        n = None if case is not None else parse_int("--cases", cases)
        if n is not None:  # the cheap refusals first: before the generators, targets, Spark
            check_cases(n)
            if out is not None:
                check_out(out)
            if master is not None:
                check_master(master)
            check_engine(engine)

        from mqcn_suite.pipeline.fuzz import (
            READING,
            STRICTER,
            check_fuzz_arguments,
            fuzz,
            is_divergence,
            readings_line,
            replay_fuzz_case,
        )

        if n is None:
            found = replay_fuzz_case(target, seed_value, parse_int("--case", case), timeout=limit)
            _print_replay(found, as_json)
            raise typer.Exit(ExitCode.FOUND if is_divergence(found["divergence"]) else ExitCode.OK)
        check_fuzz_arguments(target, n, out, limit)  # a target that does not start: no Spark
        chosen = choose_engine(engine, master, [(n, FUZZ_CASES, "cases")], conf=conf, outputs=[out])
        said = f"{n} cases against {target}; engine: {chosen.label} ({chosen.reason})"
        typer.echo(said, err=as_json)
        with _engine_session(chosen, conf) as spark:
            step = _steps(spark, Console(stderr=True, highlight=False))
            with step(f"fuzzing {n} cases against {target}"):
                result = fuzz(
                    spark,
                    target,
                    n,
                    seed_value,
                    out,
                    timeout=limit,
                    max_timeouts=stop_after,
                    checked=True,
                    started=started,
                )
        if as_json:
            sys.stdout.write(
                json.dumps({**result.to_json(), "sample": result.sample}, indent=2) + "\n"
            )
        else:
            console = Console(highlight=False, soft_wrap=True)
            shown = [r for r in result.sample if is_divergence(r)]
            for row in shown[:DIVERGENCES_SHOWN]:
                line = Text(f"case {row['case']} ({row['family']}): ")
                line.append(row["divergence"], style="bold red")
                line.append(f" [{', '.join(row['requirements'])}] {row['detail']}")
                console.print(line)
                console.print(Text(f"  replay: {row['replay']}", style="dim"))
            where = f"; divergences in {result.out}" if result.out else ""
            style = "bold red" if result.divergences else "bold green"
            noted = [f"{result.other_reading} {READING} cases"] if result.other_reading else []
            noted += [f"{result.stricter} {STRICTER} cases, errata E-20"] if result.stricter else []
            noted += [f"{result.not_run} cases not run"] if result.not_run else []
            also = f" (and {'; '.join(noted)})" if noted else ""
            console.print(
                Text(
                    f"{result.cases} cases against {result.target} (seed {result.seed}): "
                    f"{result.divergences} divergences{also} ({result.engine}, "
                    f"{_wall(started):.1f} s){where}",
                    style=style,
                )
            )
            console.print(readings_line(result.readings_followed))
        not_run = result.not_run
        if not_run:
            typer.echo(
                f"{PROG} fuzz: the target timed out {stop_after} times in a row: stopped; "
                f"{not_run} cases not run (exit {int(ExitCode.TARGET)})",
                err=True,
            )
            raise typer.Exit(ExitCode.TARGET)
        raise typer.Exit(ExitCode.FOUND if result.divergences else ExitCode.OK)


def _print_replay(found: dict[str, Any], as_json: bool) -> None:
    from mqcn_suite.pipeline.fuzz import READING, STRICTER

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
    elif divergence["divergence"] == STRICTER:
        console.print(
            Text(
                f"{STRICTER}: {divergence['detail']} -- not a divergence: the target disregarded "
                "a message that breaks a sender's rule, which the model processes (errata E-20)",
                style="bold yellow",
            )
        )
    elif divergence["divergence"] == READING:
        console.print(
            Text(
                f"{READING}: the target {divergence['detail']} -- not a divergence: the model "
                "following that reading does the same (docs/errata.md)",
                style="bold green",
            )
        )
    else:
        console.print(Text(f"{divergence['divergence']}: {divergence['detail']}", style="bold red"))


# --- registration ------------------------------------------------------------------------------


def register(app: typer.Typer) -> None:
    """Add ``corpus generate``, ``audit`` and ``fuzz`` to ``app`` (``mqcn_suite.cli.app``)."""
    corpus = command_group(
        "corpus", "Synthetic corpora of Change Notification Messages (Parquet, on Spark)."
    )
    corpus.command("generate", help=GENERATE_HELP)(corpus_generate)
    app.add_typer(corpus, name="corpus")
    app.command("audit", help=AUDIT_HELP)(audit_command)
    app.command("fuzz", help=FUZZ_HELP)(fuzz_command)
