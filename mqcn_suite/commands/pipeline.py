"""``mqcn corpus generate``, ``mqcn audit`` and ``mqcn fuzz target|codec``: the Spark pipeline.

* ``mqcn corpus generate --count N --out DIR [--invalid-share F] [--seed S] [--format F]``
  writes a synthetic Parquet corpus (docs/corpus-format.md) on Spark, or with
  ``--format pcap`` the same messages as capture files (docs/capture.md);
* ``mqcn audit INPUT --out DIR [--lenient]`` judges every message of a corpus (or of a folder
  of raw message bodies), writes verdicts/, quarantine/, summary.json and summary.html, and
  prints the balance ``rows in = conforming + non-conforming + quarantined`` with the rows
  in unreadable row groups and the bytes of files without a readable footer;
* ``mqcn fuzz target --target T --cases N [--seed S] [--out DIR]`` runs differential cases
  against a target; ``--case I`` replays one case in process (no Spark);
* ``mqcn fuzz codec --cases N`` runs the hostile-input campaign
  (:mod:`mqcn_suite.commands.fuzz_codec`).  ``mqcn fuzz --target T ...`` and ``mqcn fuzz
  --codec ...``, the older spellings, still work and say the new one on stderr
  (:class:`FuzzGroup`).

All take ``--master URL`` (default ``local[2]``) and repeatable ``--conf KEY=VALUE``,
declared once in :mod:`mqcn_suite.commands._spark`.  ``audit`` and ``fuzz`` also take
``--engine auto|in-process|spark``: ``auto`` (the default)
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
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

from mqcn_suite.commands import fuzz_codec as codec
from mqcn_suite.commands._common import (
    CONTEXT_SETTINGS,
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
from mqcn_suite.commands._spark import (
    CaseOption,
    CasesOption,
    ConfOption,
    EngineOption,
    JsonOption,
    MasterOption,
    OutOption,
    SeedOption,
    engine_session,
    require_spark_extra,
    session,
    spark_explain,
    steps,
    usage_errors,
    wall,
)
from mqcn_suite.commands._target import CallTimeoutOption
from mqcn_suite.pipeline.engine import (
    AUDIT_BYTES,
    AUDIT_ROWS,
    FUZZ_CASES,
    human_bytes,
)
from mqcn_suite.wording import hanging, plural

if TYPE_CHECKING:
    from mqcn_suite.pipeline.audit import AuditResult
    from mqcn_suite.pipeline.corpus_rows import CorpusResult
    from mqcn_suite.pipeline.fuzz import FuzzResult

DIVERGENCES_SHOWN = 10


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
    out: OutOption = None,
    invalid_share: Annotated[
        str,
        typer.Option(
            "--invalid-share", metavar="F", help="Share of malformed/non-conforming messages, 0..1."
        ),
    ] = "0.1",
    seed: SeedOption = "0",
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
    as_json: JsonOption = False,
) -> None:
    """``mqcn corpus generate`` (see GENERATE_HELP)."""
    started = time.perf_counter()
    with boundary("corpus generate", usage_errors=usage_errors(), explain=spark_explain):
        require_spark_extra()
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

        with session(master, conf) as spark:
            step = spark_progress(spark, Console(stderr=True, highlight=False))
            with step(f"generating {n} messages"):
                result = generate(spark, n, out, share, seed_value, file_format)
        if as_json:
            sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
        else:
            typer.echo(_generate_line(result, wall(started)))


def _generate_line(result: CorpusResult, seconds: float) -> str:
    """The summary line of ``corpus generate``; messages the wire cannot carry are named."""
    drawn = f"({result.invalid_share:.0%} drawn malformed or non-conforming, seed {result.seed})"
    if result.format == "parquet":
        return (
            f"wrote {plural(result.rows, 'message')} {drawn} in "
            f"{plural(result.files, 'Parquet file')} to "
            f"{result.path} in {seconds:.1f} s"
        )
    line = (
        f"wrote {result.messages} of {plural(result.rows, 'message')} {drawn} as MS-MQQB "
        f"sessions in {plural(result.files, 'capture file')} "
        f"({(result.bytes or 0) / 1e6:.1f} MB) to {result.path} "
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
    out: OutOption = None,
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
    with boundary("audit", usage_errors=usage_errors(), explain=spark_explain):
        require_spark_extra()
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
        with engine_session(chosen, conf) as spark:
            result = audit(
                spark,
                input_path,
                out,
                LENIENT if lenient else STRICT,
                progress=steps(spark, console),
                plan=plan,
                started=started,
            )
        if as_json:
            sys.stdout.write(json.dumps(result.summary, indent=2) + "\n")
        else:
            _print_audit(Console(highlight=False, soft_wrap=True), result, wall(started))
        if not result.balanced:
            fail(
                "audit",
                f"internal error: input rows lost: {result.balance_line()}",
                ExitCode.INTERNAL,
            )
        found = result.nothing_found  # known only now for some kinds (an empty capture)
        if found is not None:
            fail(
                "audit",
                f"INPUT: {input_path} held {found}: nothing was judged",
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


# --- fuzz target ----------------------------------------------------------------------------

FUZZ_HELP = (
    "Differential fuzzing of a target (mqcn fuzz target) or hostile input against the codec "
    "itself (mqcn fuzz codec); each has its own --help. The older spellings mqcn fuzz --target "
    "T ... and mqcn fuzz --codec ... still work, with a line on stderr naming the new one."
)

FUZZ_TARGET_HELP = (
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
    "divergences. --out gets divergences/ (Parquet), divergences.jsonl and summary.json.\n\n"
    "Exit 0: no divergence. Exit 1: divergences (the same rule for a run and for --case). "
    "Exit 2: usage error (--cases below 1, an --out that is not an empty writable directory: "
    "before Spark starts). Exit 3: internal error. Exit 4: the target kept timing out "
    "(--max-timeouts in a row): some cases not run."
)

TargetOption = Annotated[
    str | None, typer.Option("--target", metavar="T", help="The target, e.g. reference.")
]
MaxTimeoutsOption = Annotated[
    str,
    typer.Option(
        "--max-timeouts",
        metavar="N",
        help="Stop calling a target after N consecutive cases timed out (0: never).",
    ),
]


# The one target that takes messages only through its MS-MQQB front door (transport mode).
TRANSPORT_ONLY_REFERENCE = "reference:mqqb"


def fuzz_target(
    target: TargetOption = None,
    cases: CasesOption = None,
    seed: SeedOption = "0",
    master: MasterOption = None,
    conf: ConfOption = None,
    engine: EngineOption = "auto",
    out: OutOption = None,
    case: CaseOption = None,
    as_json: JsonOption = False,
    timeout: CallTimeoutOption = "10",
    max_timeouts: MaxTimeoutsOption = "3",
) -> None:
    """``mqcn fuzz target`` (see FUZZ_TARGET_HELP)."""
    started = time.perf_counter()
    with boundary("fuzz", usage_errors=usage_errors(), explain=spark_explain):
        require_spark_extra()
        if not target:
            raise UsageError("--target is required (e.g. --target reference)")
        if target == TRANSPORT_ONLY_REFERENCE:  # its deliver refuses: every case would error
            raise UsageError(
                f"--target {target}: the fuzzer hands each case to deliver (adapter mode), and "
                f"{target} takes messages only over MS-MQQB; fuzz --target reference (the same "
                "model) instead"
            )
        seed_value = parse_int("--seed", seed)
        limit = parse_seconds("--timeout", timeout)
        stop_after = parse_int("--max-timeouts", max_timeouts)
        if case is not None:
            _replay_target_case(target, seed_value, parse_int("--case", case), limit, as_json)
        n = parse_int("--cases", cases)
        _check_fuzz_run(target, n, out, master, engine, limit)
        result = _run_fuzz(target, n, seed_value, out, master, conf, engine, as_json, started,
                           timeout=limit, max_timeouts=stop_after)  # fmt: skip
        if as_json:
            sample = {**result.to_json(), "sample": result.sample}
            sys.stdout.write(json.dumps(sample, indent=2) + "\n")
        else:
            _print_fuzz(result, wall(started))
        if result.not_run:
            typer.echo(
                f"{PROG} fuzz: the target timed out {stop_after} times in a row: stopped; "
                f"{plural(result.not_run, 'case')} not run (exit {int(ExitCode.TARGET)})",
                err=True,
            )
            raise typer.Exit(ExitCode.TARGET)
        raise typer.Exit(ExitCode.FOUND if result.divergences else ExitCode.OK)


def _replay_target_case(target: str, seed: int, case: int, limit: float, as_json: bool) -> None:
    """``--case I``: run one case in this process and exit (1 when it is a divergence)."""
    from mqcn_suite.pipeline.fuzz import is_divergence, replay_fuzz_case

    found = replay_fuzz_case(target, seed, case, timeout=limit)
    _print_replay(found, as_json)
    raise typer.Exit(ExitCode.FOUND if is_divergence(found["divergence"]) else ExitCode.OK)


def _check_fuzz_run(
    target: str, n: int, out: str | None, master: str | None, engine: str, limit: float
) -> None:
    """Everything a run can be refused for, cheapest first, before Spark starts."""
    from mqcn_suite.pipeline.checks import check_cases, check_out
    from mqcn_suite.pipeline.engine import check_engine
    from mqcn_suite.pipeline.session import check_master

    check_cases(n)  # before the generators, the target, Spark
    if out is not None:
        check_out(out)
    if master is not None:
        check_master(master)
    check_engine(engine)
    from mqcn_suite.pipeline.fuzz import check_fuzz_arguments

    check_fuzz_arguments(target, n, out, limit)  # a target that does not start: no Spark


def _run_fuzz(
    target: str,
    n: int,
    seed: int,
    out: str | None,
    master: str | None,
    conf: list[str] | None,
    engine: str,
    as_json: bool,
    started: float,
    **limits: Any,
) -> FuzzResult:
    """Choose the engine, say it on the first line, and run the cases on it."""
    from mqcn_suite.pipeline.engine import choose_engine
    from mqcn_suite.pipeline.fuzz import fuzz

    chosen = choose_engine(engine, master, [(n, FUZZ_CASES, "cases")], conf=conf, outputs=[out])
    said = f"{plural(n, 'case')} against {target}; engine: {chosen.label} ({chosen.reason})"
    typer.echo(said, err=as_json)
    with engine_session(chosen, conf) as spark:
        step = steps(spark, Console(stderr=True, highlight=False))
        with step(f"fuzzing {plural(n, 'case')} against {target}"):
            return fuzz(spark, target, n, seed, out, checked=True, started=started, **limits)


def _print_fuzz(result: FuzzResult, seconds: float) -> None:
    """The first divergences with their replay lines, the summary line, the readings line."""
    from mqcn_suite.pipeline.fuzz import READING, STRICTER, is_divergence, readings_line

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
    noted = [plural(result.other_reading, f"{READING} case")] if result.other_reading else []
    if result.stricter:
        noted.append(f"{plural(result.stricter, f'{STRICTER} case')}, errata E-20")
    noted += [f"{plural(result.not_run, 'case')} not run"] if result.not_run else []
    also = f" (and {'; '.join(noted)})" if noted else ""
    console.print(
        Text(
            f"{plural(result.cases, 'case')} against {result.target} (seed {result.seed}): "
            f"{plural(result.divergences, 'divergence')}{also} ({result.engine}, "
            f"{seconds:.1f} s){where}",
            style=style,
        )
    )
    console.print(readings_line(result.readings_followed))


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


class FuzzGroup(TyperGroup):
    """``mqcn fuzz``: the ``target`` and ``codec`` subcommands, and the older spellings.

    ``mqcn fuzz --codec ...`` is read as ``mqcn fuzz codec ...`` and ``mqcn fuzz --target T
    ...`` as ``mqcn fuzz target --target T ...``, each with one line on stderr naming the new
    spelling; the subcommand then parses the options (an option it does not have is click's
    usage error, exit 2).
    """

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        if (
            args
            and args[0].startswith("-")
            and args[0] not in CONTEXT_SETTINGS["help_option_names"]
        ):
            if "--codec" in args:
                args = ["codec", *(a for a in args if a != "--codec")]
            else:
                args = ["target", *args]
            old = "--codec" if args[0] == "codec" else "--target T"
            typer.echo(
                f"{PROG} fuzz: 'mqcn fuzz {old}' is deprecated: use 'mqcn fuzz {args[0]}'",
                err=True,
            )
        return super().parse_args(ctx, args)


def register(app: typer.Typer) -> None:
    """Add ``corpus generate``, ``audit`` and ``fuzz target|codec`` to ``app``
    (``mqcn_suite.cli.app``)."""
    corpus = command_group(
        "corpus", "Synthetic corpora of Change Notification Messages (Parquet, on Spark)."
    )
    corpus.command("generate", help=GENERATE_HELP)(corpus_generate)
    app.add_typer(corpus, name="corpus")
    app.command("audit", help=AUDIT_HELP)(audit_command)
    fuzz = command_group("fuzz", FUZZ_HELP)
    fuzz.command(
        "target", help=FUZZ_TARGET_HELP, short_help="Differential fuzzing against a target."
    )(fuzz_target)
    fuzz.command(
        "codec", help=codec.CODEC_HELP, short_help="Hostile bodies through codec, judge, server."
    )(codec.fuzz_codec)
    app.add_typer(fuzz, name="fuzz", cls=FuzzGroup)
