"""Issue 18, items 4 and 5: the audit and the fuzzers on small or odd input.

* both engines -- Spark, and the in-process engine that runs the same task code without
  it -- give the same rows and the same summaries (apart from ``engine`` and the times), for
  the audit of captures, of a Parquet corpus and of raw bodies, for ``fuzz`` and for
  ``fuzz codec``;
* ``--engine auto`` runs small work in process and Spark above the thresholds or when
  ``--master``/``--conf`` is given; the summary and the terminal name the engine; the
  in-process engine never imports pyspark;
* the audit's first line names what INPUT was found to be; an empty file, or a file where a
  capture was expected that holds none, is refused in one line before any engine starts;
* the printed time is the command's wall time; a Spark run says ``starting Spark (…)…``
  before its session is created.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pytest
import typer
from capture_helpers import envelope, frames, pcap, segments, session_packets
from cli_helpers import invoke
from test_campaign import raising_on, unique_case
from test_capture_audit import damaged_captures
from test_pipeline import odd_corpus

from mqcn_model.constants import AuthLevel
from mqcn_suite.pipeline import engine as engine_module
from mqcn_suite.pipeline import session as session_module
from mqcn_suite.pipeline.audit import (
    INPUT_KINDS,
    PROVENANCE_COLUMNS,
    ROW_SCHEMA,
    Account,
    Auditor,
    InputKind,
    Plan,
    RowBuilder,
    Tally,
    Unit,
    audit,
    plan_input,
    quarantine_row,
    register_input_kind,
)
from mqcn_suite.pipeline.audit import job as job_module
from mqcn_suite.pipeline.audit.kind import files_bytes
from mqcn_suite.pipeline.audit.schema import spark_schema
from mqcn_suite.pipeline.audit.sink import BY_SPARK, VERDICTS_CONF
from mqcn_suite.pipeline.campaign import Limits, campaign
from mqcn_suite.pipeline.corpus import generate
from mqcn_suite.pipeline.engine import (
    AUDIT_BYTES,
    AUDIT_ROWS,
    CODEC_CASES,
    FUZZ_CASES,
    IN_PROCESS,
    SPARK,
    choose_engine,
    human_bytes,
)
from mqcn_suite.pipeline.fuzz import fuzz
from mqcn_suite.pipeline.session import PipelineError
from mqcn_suite.targets import ReferenceTarget
from mqcn_suite.wording import plural

pytestmark = pytest.mark.spark
SEED = 11
ROOT = Path(__file__).resolve().parent.parent
# what may differ between two runs of the same work: where it ran, when, and how long
TIMES = ("engine", "seconds", "generated", "cases_per_second")


def rows_of(folder: Path) -> list[dict[str, Any]]:
    """Every row of an output dataset, in an order that does not depend on the engine."""
    rows = ds.dataset(str(folder), format="parquet", ignore_prefixes=[".", "_"]).to_table()
    return sorted(rows.to_pylist(), key=lambda r: json.dumps(r, sort_keys=True, default=str))


def without_times(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in TIMES}


def summary_of(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


@pytest.fixture(scope="module")
def corpus(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus") / "c"
    generate(spark, 1000, folder, 0.3, SEED)
    return folder


# --- both engines give the same rows and summaries ---------------------------------------------


def audit_twice(
    spark: Any, source: Path, base: Path, *, every_way: bool = False
) -> tuple[Any, Any]:
    """The audit of ``source`` in process and on Spark, with their rows checked equal.

    ``every_way``: on Spark also with the verdicts written by Spark (``--conf
    mqcn.audit.verdicts=spark``, as for an ``hdfs://`` out) and with the tasks writing them
    but a staging dataset too large for the driver to read (Spark's summary jobs)."""
    local = audit(None, source, base / "in-process")
    on_spark = audit(spark, source, base / "spark")
    assert (local.engine, on_spark.engine) == (IN_PROCESS, "Spark local[2]")
    ways = ["spark"]
    if every_way:
        spark.conf.set(VERDICTS_CONF, BY_SPARK)
        try:
            audit(spark, source, base / "by-spark")
        finally:
            spark.conf.unset(VERDICTS_CONF)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(job_module, "SMALL_STAGING", -1)
            audit(spark, source, base / "large-staging")
        ways += ["by-spark", "large-staging"]
    for way in ways:
        for name in ("verdicts", "quarantine"):
            assert rows_of(base / "in-process" / name) == rows_of(base / way / name), (way, name)
        one, other = summary_of(base / "in-process"), summary_of(base / way)
        assert (one["engine"], other["engine"]) == (IN_PROCESS, "Spark local[2]")
        assert without_times(one) == without_times(other), way
        assert sorted(p.name for p in (base / way).iterdir()) == [
            "quarantine",
            "summary.html",
            "summary.json",
            "verdicts",
        ], way  # the staging dataset is gone
    return local, on_spark


def test_both_engines_audit_captures_alike(spark: Any, tmp_path: Path) -> None:
    folder = tmp_path / "captures"
    generate(spark, 60, folder, 0.3, SEED, "pcap")
    for name, data in damaged_captures().items():  # quarantine rows of every kind, a stray file
        (folder / name).write_bytes(data)
    local, _ = audit_twice(spark, folder, tmp_path, every_way=True)
    assert local.mode == "capture" and local.balanced
    assert local.conforming and local.non_conforming and local.quarantine_entries


def test_both_engines_audit_a_parquet_corpus_alike(
    spark: Any, corpus: Path, tmp_path: Path
) -> None:
    odd = odd_corpus(corpus, tmp_path / "odd")  # null bodies, a lost row group, lost files
    local, _ = audit_twice(spark, odd, tmp_path, every_way=True)
    assert local.mode == "parquet" and local.balanced
    assert local.quarantined and local.files_without_footer and local.rows_in_unreadable_row_groups


def test_both_engines_audit_raw_bodies_alike(spark: Any, corpus: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bodies"
    folder.mkdir()
    bodies = ds.dataset(str(corpus), format="parquet", ignore_prefixes=[".", "_"]).to_table()
    for n, body in enumerate(bodies.column("body").to_pylist()[:40]):
        (folder / f"m{n:03}.bin").write_bytes(body)
    (folder / "empty.bin").write_bytes(b"")  # a message too (MQCN-2.2.4-1 broken)
    local, _ = audit_twice(spark, folder, tmp_path)
    assert local.mode == "raw" and local.rows_in == 41 and local.non_conforming


def ignores_authentication() -> type[ReferenceTarget]:
    """A target that processes Version 0x01 messages whose AuthenticationLevel is None
    (3.2.5.1), made in a function so that Spark ships it by value."""

    class IgnoresAuthentication(ReferenceTarget):
        name = "ignores-authentication"

        def deliver(self, envelope: Any) -> None:
            super().deliver(envelope.with_(authentication_level=AuthLevel.Sig20))

    return IgnoresAuthentication


@pytest.mark.parametrize("target", ["reference:letter", "faulty"])
def test_both_engines_fuzz_alike(spark: Any, tmp_path: Path, target: Any) -> None:
    if target == "faulty":
        target = ignores_authentication()
    local = fuzz(None, target, 300, SEED, tmp_path / "in-process")
    on_spark = fuzz(spark, target, 300, SEED, tmp_path / "spark")
    assert (local.engine, on_spark.engine) == (IN_PROCESS, "Spark local[2]")
    assert without_times(local.to_json()) == without_times(on_spark.to_json())
    assert local.sample == on_spark.sample and (local.divergences or local.other_reading)
    assert rows_of(tmp_path / "in-process" / "divergences") == rows_of(
        tmp_path / "spark" / "divergences"
    )
    for name in ("divergences.jsonl", "summary.json"):
        one, other = (tmp_path / where / name for where in ("in-process", "spark"))
        if name.endswith(".jsonl"):
            assert one.read_text() == other.read_text()
        else:
            assert without_times(json.loads(one.read_text())) == without_times(
                json.loads(other.read_text())
            )


def test_both_engines_run_the_codec_campaign_alike(spark: Any, tmp_path: Path) -> None:
    planted = raising_on(*(hostile_body(n) for n in (unique_case(SEED, 5), unique_case(SEED, 90))))
    limits = Limits(slow_ms=60_000, alloc_floor=1 << 30)  # only what does not depend on time
    runs = {
        where: campaign(session, 400, SEED, tmp_path / where, limits, judge_function=planted)
        for where, session in (("in-process", None), ("spark", spark))
    }
    local, on_spark = runs["in-process"], runs["spark"]
    assert (local.engine, on_spark.engine) == (IN_PROCESS, "Spark local[2]")
    assert local.findings == 2 and local.balanced
    assert without_times(local.to_json()) == without_times(on_spark.to_json())
    assert local.sample == on_spark.sample
    for name in ("findings.jsonl", "bodies"):
        one, other = (tmp_path / where / name for where in runs)
        if one.is_dir():
            assert sorted(p.name for p in one.iterdir()) == sorted(p.name for p in other.iterdir())
        else:
            assert one.read_text() == other.read_text()


def hostile_body(case: int) -> bytes:
    from mqcn_suite.pipeline.hostile import hostile_case

    return hostile_case(SEED, case).body


# --- the engine chosen, and named ----------------------------------------------------------------


def test_the_engine_is_chosen_by_the_size_of_the_work_and_by_the_options() -> None:
    small, big = [(5_436, AUDIT_BYTES, "bytes")], [(AUDIT_BYTES + 1, AUDIT_BYTES, "bytes")]
    assert choose_engine("auto", None, small).kind == IN_PROCESS
    chosen = choose_engine("auto", None, big)
    assert (chosen.kind, chosen.label, chosen.reason) == (
        SPARK,
        "Spark local[2]",
        f"more than {human_bytes(AUDIT_BYTES)}",
    )
    assert choose_engine("auto", "local[4]", small).label == "Spark local[4]"
    assert choose_engine("auto", None, small, conf=["spark.driver.memory=4g"]).kind == SPARK
    assert choose_engine("auto", None, small, outputs=["hdfs://nn/a"]).kind == SPARK
    assert choose_engine("auto", None, small, outputs=["file:///tmp/a"]).kind == IN_PROCESS
    assert choose_engine("spark", None, small).label == "Spark local[2]"
    assert choose_engine("in-process", None, big).kind == IN_PROCESS
    for refused, match in [
        (dict(master="local[2]"), "--master sets up Spark"),
        (dict(conf=["spark.x=1"]), "--conf sets up Spark"),
        (dict(outputs=["s3a://b/a"]), "only Spark writes to a filesystem URI"),
    ]:
        with pytest.raises(PipelineError, match=match):
            choose_engine("in-process", refused.get("master"), small, **{
                k: v for k, v in refused.items() if k != "master"
            })  # fmt: skip
    with pytest.raises(PipelineError, match="--engine: 'local' is not one of"):
        choose_engine("local", None, small)
    assert human_bytes(999) == "999 bytes" and human_bytes(108_800_000) == "108.8 MB"


def small_capture(folder: Path, name: str = "small.pcap") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(pcap(frames(segments(b"".join(session_packets([envelope(1)]))))))
    return path


def test_a_small_audit_runs_in_process_and_names_its_engine(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_spark(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("Spark was started")

    monkeypatch.setattr(session_module, "create_session", no_spark)
    monkeypatch.setattr(session_module, "active_session", lambda: None)
    capture = small_capture(tmp_path)
    result = invoke(app, "audit", str(capture), "--out", str(tmp_path / "a"))
    assert result.exit_code == 1, (result.stdout, result.stderr)  # its message breaks a rule
    size = human_bytes(capture.stat().st_size)
    first = result.stdout.splitlines()[0]
    limits = f"at most {human_bytes(AUDIT_BYTES)} and {AUDIT_ROWS} rows"
    assert first == f"1 pcap capture, {size}; engine: in-process ({limits})"
    assert re.search(r"in .*/a \(in-process, \d+\.\d s\)$", result.stdout, re.M)
    assert summary_of(tmp_path / "a")["engine"] == "in-process"
    assert summary_of(tmp_path / "a")["detected"] == f"1 pcap capture, {size}"
    page = (tmp_path / "a" / "summary.html").read_text()
    assert f"(1 pcap capture, {size})" in page and " · in-process · " in page
    assert result.stderr == ""  # no Spark start-up line: Spark did not start


def test_above_the_threshold_or_with_master_the_audit_runs_on_spark(
    app: typer.Typer, spark: Any, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_module, "AUDIT_ROWS", 999)
    result = invoke(app, "audit", str(corpus), "--out", str(tmp_path / "a"))
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stdout.splitlines()[0].endswith("; engine: Spark local[2] (more than 999 rows)")
    assert summary_of(tmp_path / "a")["engine"] == "Spark local[2]"
    monkeypatch.undo()
    given = invoke(app, "audit", str(corpus), "--out", str(tmp_path / "b"), "--master", "local[2]")
    assert given.stdout.splitlines()[0].endswith("; engine: Spark local[2] (--master given)")
    assert "(Spark local[2], " in given.stdout
    refused = invoke(
        app, "audit", str(corpus), "--out", str(tmp_path / "c"), "--engine", "in-process",
        "--master", "local[2]",
    )  # fmt: skip
    assert refused.exit_code == 2 and "--master sets up Spark" in refused.stderr


def test_the_fuzzers_run_small_work_in_process_and_name_the_engine(
    app: typer.Typer, tmp_path: Path
) -> None:
    ran = invoke(
        app,
        "fuzz",
        "target",
        "--target",
        "reference",
        "--cases",
        "30",
        "--out",
        str(tmp_path / "f"),
    )
    assert ran.exit_code == 0, (ran.stdout, ran.stderr)
    first = f"30 cases against reference; engine: in-process (at most {FUZZ_CASES} cases)"
    assert ran.stdout.splitlines()[0] == first
    assert "0 divergences (in-process, " in ran.stdout
    assert summary_of(tmp_path / "f")["engine"] == "in-process"
    codec = invoke(app, "fuzz", "codec", "--cases", "50", "--out", str(tmp_path / "h"))
    assert codec.exit_code == 0, (codec.stdout, codec.stderr)
    first = f"50 hostile bodies; engine: in-process (at most {CODEC_CASES} cases)"
    assert codec.stdout.splitlines()[0] == first and "; in-process, " in codec.stdout
    assert summary_of(tmp_path / "h")["engine"] == "in-process"


def test_the_in_process_engine_runs_without_pyspark(tmp_path: Path) -> None:
    capture = small_capture(tmp_path)
    script = (
        "import sys\n"
        "sys.modules['pyspark'] = sys.modules['py4j'] = None  # importing them fails\n"
        "from mqcn_suite.cli import app\n"
        "sys.argv = ['mqcn', *sys.argv[1:]]\n"
        "app()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for args, code in [
        (["audit", str(capture), "--out", str(tmp_path / "a")], 1),  # its message breaks a rule
        (
            [
                "fuzz",
                "target",
                "--target",
                "reference",
                "--cases",
                "20",
                "--out",
                str(tmp_path / "f"),
            ],
            0,
        ),
        (["fuzz", "codec", "--cases", "20", "--out", str(tmp_path / "h")], 0),
    ]:
        done = subprocess.run(
            [sys.executable, "-c", script, *args], capture_output=True, text=True, env=env
        )
        assert done.returncode == code, (args, done.stdout, done.stderr)
        assert "in-process" in done.stdout


# --- the input named first; what cannot be judged refused before any engine ----------------------


def test_the_first_line_names_what_the_input_was_found_to_be(
    app: typer.Typer, corpus: Path, tmp_path: Path
) -> None:
    captures = tmp_path / "captures"
    small_capture(captures, "a.pcap")
    small_capture(captures, "b.pcap")
    size = human_bytes(sum(p.stat().st_size for p in captures.iterdir()))
    body = tmp_path / "message.bin"
    body.write_bytes(bytes.fromhex("0201") + bytes(40))
    corpus_size = human_bytes(sum(p.stat().st_size for p in corpus.glob("*.parquet")))
    for source, described in [
        (captures, f"2 pcap captures, {size}"),
        (corpus, f"a Parquet corpus of 1000 rows in 2 files, {corpus_size}"),
        (body, "1 file read as a raw message body, 42 bytes"),
    ]:
        out = tmp_path / f"out-{source.name}"
        result = invoke(app, "audit", str(source), "--out", str(out))
        assert result.exit_code in (0, 1), (result.stdout, result.stderr)
        assert result.stdout.splitlines()[0].startswith(f"{described}; engine: "), result.stdout
        assert summary_of(out)["detected"] == described
    quiet = invoke(app, "audit", str(body), "--out", str(tmp_path / "j"), "--json")
    assert json.loads(quiet.stdout)["detected"] == "1 file read as a raw message body, 42 bytes"
    assert quiet.stderr.startswith("1 file read as a raw message body")  # --json: on stderr


def test_a_folder_of_mixed_formats_and_a_stray_file_is_named_as_such(tmp_path: Path) -> None:
    small_capture(tmp_path, "a.pcap")
    (tmp_path / "b.pcapng").write_bytes(bytes.fromhex("0a0d0d0a") + bytes(24))
    (tmp_path / "notes.txt").write_text("x")
    size = human_bytes(sum(p.stat().st_size for p in tmp_path.iterdir()))
    assert plan_input(tmp_path).description == (
        f"2 captures (1 pcap, 1 pcapng) and 1 file without a capture header, {size}"
    )


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("empty.pcap", b"", "is an empty file (0 bytes)"),
        ("empty.parquet", b"", "is an empty file (0 bytes)"),
        ("empty.bin", b"", "is an empty file (0 bytes)"),
        ("notes.pcap", b"not a capture at all\n", "a capture was expected (named .pcap)"),
        ("netmon.cap", b"GMBU" + bytes(40), "are no pcap or pcapng magic number"),
        ("cut.bin", bytes.fromhex("d4c3"), "its first bytes begin a capture magic number"),
        ("short.pcap", bytes.fromhex("d4c3b2a1") + bytes(10), "a pcap capture cut short: 14"),
        ("short.bin", bytes.fromhex("0a0d0d0a") + bytes(8), "fewer than the 28-byte pcapng"),
    ],
)
def test_a_file_that_holds_nothing_to_judge_is_refused_before_any_engine(
    app: typer.Typer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    data: bytes,
    says: str,
) -> None:
    def no_spark(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("Spark was started")

    monkeypatch.setattr(session_module, "create_session", no_spark)
    monkeypatch.setattr(session_module, "active_session", lambda: None)
    (tmp_path / name).write_bytes(data)
    for engine in ([], ["--engine", "spark"]):  # auto, the default, and Spark
        started = time.perf_counter()
        out = tmp_path / f"out-{len(engine)}"
        result = invoke(app, "audit", str(tmp_path / name), "--out", str(out), *engine)
        assert result.exit_code == 2, (result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"mqcn audit: error: INPUT: {tmp_path}")
        assert says in lines[0] and result.stdout == "" and not out.exists()
        assert time.perf_counter() - started < 5


def test_a_capture_header_without_packets_is_judged_not_refused(
    app: typer.Typer, tmp_path: Path
) -> None:
    (tmp_path / "quiet.pcap").write_bytes(pcap([]))  # 24 bytes: a capture of nothing
    result = invoke(app, "audit", str(tmp_path / "quiet.pcap"), "--out", str(tmp_path / "a"))
    assert result.exit_code == 5, (result.stdout, result.stderr)
    assert "held 0 change notifications" in result.stderr


def test_a_folder_keeps_its_stray_files_as_quarantined_input(tmp_path: Path) -> None:
    # Only a single INPUT file is refused: in a folder of captures an empty or unknown file
    # is input like any other, quarantined with its bytes (never refused, never dropped).
    small_capture(tmp_path, "a.pcap")
    (tmp_path / "empty.pcap").write_bytes(b"")
    (tmp_path / "notes.pcap").write_text("x")
    plan = plan_input(tmp_path)
    assert plan.mode == "capture" and len(plan.work) == 3
    assert plan.description.startswith("1 pcap capture and 2 files without a capture header, ")
    result = audit(None, tmp_path, tmp_path.parent / "a")
    assert result.quarantine_entries >= 1 and result.balanced


# --- times and progress --------------------------------------------------------------------------


def test_the_printed_time_is_the_wall_time_of_the_whole_command(
    app: typer.Typer, spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mqcn_suite.pipeline.audit as audit_package

    capture = small_capture(tmp_path)
    planned = audit_package.plan_input

    def slow_plan(path: Any) -> Any:  # the work before the job counts too
        time.sleep(1.5)
        return planned(path)

    monkeypatch.setattr(audit_package, "plan_input", slow_plan)
    started = time.perf_counter()
    result = invoke(app, "audit", str(capture), "--out", str(tmp_path / "a"))
    wall = time.perf_counter() - started
    assert result.exit_code == 1, (result.stdout, result.stderr)  # its message breaks a rule
    shown = re.search(r"\((?:(?:in-process|Spark [^,]+), )?(\d+\.\d) s\)", result.stdout)
    printed = float(shown[1]) if shown else -1.0
    assert wall - 0.3 <= printed <= wall + 0.05, (printed, wall)
    assert summary_of(tmp_path / "a")["seconds"] >= 1.5


def test_a_spark_run_says_it_is_starting_spark_before_the_session_exists(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(master: str, *_args: Any, **_kwargs: Any) -> Any:
        raise PipelineError(f"cannot start Spark on {master!r}: no JVM in this test")

    monkeypatch.setattr(session_module, "active_session", lambda: None)
    monkeypatch.setattr(session_module, "create_session", refused)
    capture = small_capture(tmp_path)
    for args, master in [
        (["audit", str(capture), "--out", str(tmp_path / "a"), "--master", "local[2]"], "local[2]"),
        (
            ["fuzz", "target", "--target", "reference", "--cases", "5", "--master", "local[1]"],
            "local[1]",
        ),
        (["fuzz", "codec", "--cases", "5", "--master", "local[2]"], "local[2]"),
    ]:
        result = invoke(app, *args)
        assert result.exit_code == 2, (result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert lines[-2:] == [
            f"starting Spark ({master})…",
            f"mqcn {args[0]}: error: cannot start Spark on '{master}': no JVM in this test",
        ], lines


def test_the_docs_state_the_engine_and_the_first_line() -> None:
    readme = (ROOT / "README.md").read_text()
    spark_doc = (ROOT / "docs" / "spark.md").read_text()
    assert "1 file read as a raw message body" in readme
    assert "--engine" in readme and "--engine auto|in-process|spark" in spark_doc
    limits = (f"{AUDIT_BYTES // 1_000_000} MB", f"{AUDIT_ROWS:,}", f"{FUZZ_CASES:,}")
    for limit in (*limits, f"{CODEC_CASES:,}"):
        assert f"**{limit}**" in spark_doc and limit in readme, limit
    assert "starting Spark (local[2])…" in spark_doc


def test_a_task_failing_in_process_is_one_line_with_its_case_and_replay(
    app: typer.Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mqcn_suite.pipeline import fuzz as fuzz_module

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("a model bug")

    monkeypatch.setattr(fuzz_module, "compare_case", broken)
    result = invoke(app, "fuzz", "target", "--target", "reference", "--cases", "3", "--seed", "4")
    assert result.exit_code == 3, (result.stdout, result.stderr)
    assert result.stderr.strip().splitlines() == [
        "mqcn fuzz: error: a task failed at case 0 of seed 4: RuntimeError: a model bug "
        "(replay: mqcn fuzz target --target reference --seed 4 --case 0)"
    ]


# --- a fourth input kind, made and registered here, audited on both engines -------------------


@dataclass(frozen=True)
class HexLine(Unit):
    """A work unit of the kind below: one line of a ``.hexlines`` file."""

    path: str
    line: int  # 1-based
    text: str  # the message body in hex


HEX_LINE_SCHEMA = pa.schema([("path", pa.string()), ("line", pa.int64()), ("text", pa.string())])


def hex_lines_kind() -> InputKind:
    """Issue 19, item 1: a kind of input in one place -- text files holding one message body
    per line, in hex -- with its detection, plan, task, counts, summary block and balance
    text; nothing else in the audit changes for it."""

    def claims(files: list[Path]) -> bool:
        return any(f.suffix == ".hexlines" for f in files)

    def plan(files: list[Path]) -> Plan:
        work = [
            HexLine(str(f), number, text.strip())
            for f in files
            for number, text in enumerate(f.read_text().splitlines(), 1)
        ]
        size = files_bytes(files)
        found = f"{plural(len(work), 'hex line')} in {plural(len(files), 'file')}"
        return Plan("hexlines", work, [], len(work), size, f"{found}, {human_bytes(size)}")

    def task(readings: Any) -> Any:  # nested: Spark ships it by value, not by module name
        def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            auditor, tally = Auditor(readings), Tally()
            rows = RowBuilder(tally)
            for batch in batches:
                sources, bodies = [], []
                for unit in batch.to_pylist():
                    source = f"{unit['path']}#line={unit['line']}"
                    tally.count("lines")
                    try:
                        bodies.append(bytes.fromhex(unit["text"]))
                    except ValueError:
                        tally.count("not hex")
                        rows.quarantine(quarantine_row(source, "not hex", 1))
                        continue
                    sources.append(source)
                rows.judge(auditor, sources, bodies)
                yield from rows.batches()
            yield tally.batch()

        return run

    def frame(spark: Any, plan: Plan, readings: Any) -> Any:
        values = [tuple(unit.values()) for unit in plan.work]
        lines = spark.createDataFrame(values, spark_schema(HEX_LINE_SCHEMA))
        return lines.mapInArrow(task(readings), spark_schema(ROW_SCHEMA))

    def local(plan: Plan, readings: Any) -> Iterator[pa.RecordBatch]:
        units = pa.RecordBatch.from_pylist(plan.work, schema=HEX_LINE_SCHEMA)
        return task(readings)(iter([units]))

    def account(counts: dict[str, int], _entries: int) -> Account:
        return Account({"lines": counts.get("lines", 0), "not_hex": counts.get("not hex", 0)})

    def balance_text(balance: Any, block: Any) -> str:
        sign = "=" if balance["balanced"] else "!="
        return (
            f"hex lines {balance['rows_in']} {sign} conforming {balance['conforming']} + "
            f"non-conforming {balance['non_conforming']} + not hex {block['not_hex']}"
        )

    return InputKind(
        "hexlines", claims, plan, frame, local, "hex lines",
        account=account, balance_text=balance_text,
    )  # fmt: skip


@pytest.fixture
def hex_lines() -> Iterator[InputKind]:
    before = list(INPUT_KINDS)
    kind = hex_lines_kind()
    register_input_kind(kind)
    yield kind
    INPUT_KINDS[:] = before


def test_a_fourth_input_kind_registered_in_one_module_is_audited_on_both_engines(
    spark: Any, app: typer.Typer, hex_lines: InputKind, tmp_path: Path
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.hexlines").write_text("0300\n0201\nzz\n")  # 2 bodies, a line that is no hex
    (folder / "b.hexlines").write_text("02\n")
    plan = plan_input(folder)
    assert (plan.mode, plan.rows_expected, plan.description) == (
        "hexlines",
        4,
        f"4 hex lines in 2 files, {human_bytes(plan.bytes)}",
    )
    assert plan.work[0] == HexLine(str(folder / "a.hexlines"), 1, "0300")
    local, on_spark = audit_twice(spark, folder, tmp_path / "audit")
    for result in (local, on_spark):
        assert (result.mode, result.rows_in, result.quarantined) == ("hexlines", 4, 1)
        assert result.conforming + result.non_conforming == 3 and result.balanced
        assert result.block == {"lines": 4, "not_hex": 1}
        assert result.balance_line().startswith("hex lines 4 = conforming ")
    summary = summary_of(tmp_path / "audit" / "spark")
    assert summary["hexlines"] == {"lines": 4, "not_hex": 1} and "capture" not in summary
    verdicts = rows_of(tmp_path / "audit" / "spark" / "verdicts")
    assert sorted(v["source"].rsplit("#", 1)[1] for v in verdicts) == ["line=1", "line=1", "line=2"]
    assert all(v[c] is None for v in verdicts for c in PROVENANCE_COLUMNS)  # no capture here
    html = (tmp_path / "audit" / "spark" / "summary.html").read_text()
    assert local.balance_line() in html
    # Its block shows on the page without a template of its own: a table of its figures.
    assert '<section id="hexlines">' in html and "<h2>Hex lines</h2>" in html
    assert '<td>not_hex</td><td class="n">1</td>' in html and 'id="capture"' not in html
    # The CLI names what it found and prints the kind's balance.
    out = tmp_path / "cli"
    result = invoke(app, "audit", str(folder), "--out", str(out), "--engine", "in-process")
    assert result.exit_code == 1, (result.stdout, result.stderr)  # non-conforming, quarantined
    assert result.stdout.startswith("4 hex lines in 2 files")
    assert local.balance_line() in result.stdout
