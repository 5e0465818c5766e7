"""The Spark pipeline: corpus generation, audit, differential fuzzing and their commands.

The suite's one local SparkSession (``spark``, tests/conftest.py) serves the file; the data stay
small (a 2000-message corpus, 200 fuzz cases) so the file runs in about a minute on two cores.
The commands are registered on a fresh typer app (``register``) and driven with ``CliRunner``;
they reuse the running session instead of starting their own.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import typer
from cli_helpers import invoke, one_line_error, runner

from mqcn_model.catalog import CATALOG
from mqcn_model.constants import AuthLevel, Command, Event, SenderIdType
from mqcn_model.directory import InMemoryDirectory
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import STRICT
from mqcn_model.judge import judge
from mqcn_model.server import NotificationServer, QueueManager
from mqcn_suite import cli
from mqcn_suite.pipeline.audit import (
    INPUT_KINDS,
    QUARANTINE_COLUMNS,
    ROW_SCHEMA,
    VERDICT_COLUMNS,
    Auditor,
    InputKind,
    NothingToJudge,
    Plan,
    RowBuilder,
    Tally,
    audit,
    judge_parquet_units,
    plan_input,
    register_input_kind,
)
from mqcn_suite.pipeline.audit.kinds.parquet import UNIT_SCHEMA
from mqcn_suite.pipeline.audit.schema import spark_schema
from mqcn_suite.pipeline.corpus import SCHEMA, generate, generate_rows, read_corpus
from mqcn_suite.pipeline.fuzz import NOT_RUN, STRICTER, fuzz, is_divergence, replay_fuzz_case
from mqcn_suite.pipeline.session import PipelineError, check_master
from mqcn_suite.targets import ReferenceTarget

pytestmark = pytest.mark.spark

SEED = 11
COUNT = 2000
INVALID_SHARE = 0.2


@pytest.fixture(scope="session")
def corpus(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corpus") / "c"
    result = generate(spark, COUNT, out, INVALID_SHARE, SEED)
    assert result.rows == COUNT and result.files >= 1
    return out


@pytest.fixture(scope="session")
def corpus_table(corpus: Path) -> pa.Table:
    return read_corpus(corpus).sort_by("arrival_time")


def fresh_server() -> NotificationServer:
    server = NotificationServer(
        QueueManager(uuid.UUID(int=0)), InMemoryDirectory(), computer="test"
    )
    server.initialize()
    return server


def envelope_of(row: dict[str, Any]) -> Envelope:
    def member(kind: Any, name: str) -> Any:
        return kind.__members__.get(name) or kind.__members__[f"{name}_"]

    return Envelope(
        row["body"],
        MessageId.from_bytes(row["message_id"]),
        sender_identifier_type=member(SenderIdType, row["sender_identifier_type"]),
        authentication_level=member(AuthLevel, row["authentication_level"]),
    )


@pytest.fixture(scope="session")
def audited(spark: Any, corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    return audit(spark, corpus, tmp_path_factory.mktemp("audit") / "out")


# --- corpus ----------------------------------------------------------------------------------


def test_corpus_has_the_documented_schema_and_a_realistic_mix(corpus_table: pa.Table) -> None:
    table = corpus_table
    assert table.num_rows == COUNT
    assert [(f.name, f.type) for f in table.schema] == [(f.name, f.type) for f in SCHEMA]
    ids = table.column("message_id").to_pylist()
    assert {len(i) for i in ids} == {20} and len(set(ids)) == COUNT
    assert len({i[:16] for i in ids}) > 100  # many senders
    verdicts = [judge(b) for b in table.column("body").to_pylist()]
    bad = sum(not v.conforming for v in verdicts)
    assert 0.12 * COUNT < bad < 0.3 * COUNT  # about the invalid share (mutations may conform)
    messages = [v.message for v in verdicts if v.conforming and v.message is not None]
    events = {m.body.event for m in messages if m.body is not None}
    commands = {u.command for m in messages for u in m.updates}
    assert events == {int(e) for e in Event} and commands == {int(c) for c in Command}
    levels = Counter(table.column("authentication_level").to_pylist())
    kinds = Counter(table.column("sender_identifier_type").to_pylist())
    assert levels[AuthLevel.None_.name.rstrip("_")] > 0 and kinds["Sid"] > 0
    assert set(levels) <= {m.rstrip("_") for m in AuthLevel.__members__}


def test_corpus_is_deterministic_whatever_the_partitioning(
    spark: Any, corpus_table: pa.Table, tmp_path: Path
) -> None:
    # rows depend on (seed, row) only: a smaller corpus (other partitions) is a prefix ...
    small = generate(spark, 300, tmp_path / "small", INVALID_SHARE, SEED)
    assert small.rows == 300
    again = read_corpus(tmp_path / "small").sort_by("arrival_time")
    assert again.equals(corpus_table.slice(0, 300))
    # ... and the pure row function, called outside Spark, gives the same bytes
    direct = pa.Table.from_batches([generate_rows(list(range(1000, 1100)), SEED, INVALID_SHARE)])
    assert direct.equals(corpus_table.slice(1000, 100))
    other = pa.Table.from_batches([generate_rows(list(range(1000, 1100)), SEED + 1, INVALID_SHARE)])
    assert not other.equals(direct)


# --- audit -----------------------------------------------------------------------------------


def test_audit_accounts_for_every_row_and_agrees_with_judge(
    audited: Any, corpus: Path, corpus_table: pa.Table
) -> None:
    assert audited.balanced and audited.rows_in == COUNT and audited.quarantined == 0
    assert audited.non_conforming > 0 and audited.conforming > 0
    out = Path(audited.out)
    verdicts = pq.read_table(out / "verdicts")
    assert verdicts.num_rows == COUNT and pq.read_table(out / "quarantine").num_rows == 0
    by_id = {r["message_id"]: r for r in verdicts.to_pylist()}
    for index, row in enumerate(corpus_table.to_pylist()):
        verdict = judge(row["body"])
        found = by_id[row["message_id"]]
        assert found["conforming"] == verdict.conforming
        assert found["violations"] == list(verdict.requirements)
        if index % 5 == 0:  # the server view is what a fresh reference server does
            record = fresh_server().deliver(envelope_of(row))
            assert found["server_outcome"] == record.outcome
            assert found["server_requirement"] == record.disregarded_by
            assert found["server_detail"] == (record.reason or None)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["balance"] == {
        "rows_in": COUNT,
        "conforming": audited.conforming,
        "non_conforming": audited.non_conforming,
        "quarantined": 0,
        "rows_in_unreadable_row_groups": 0,
        "files_without_footer": 0,
        "bytes_without_footer": 0,
        "balanced": True,
    }
    assert all(e["requirement"] in CATALOG for e in summary["by_requirement"])
    assert summary["distinct_senders"] > 100
    assert {v["version"] for v in summary["by_version"]} >= {1, 2}
    reasons = {e["reason"] for e in summary["by_server_outcome"]}
    assert {None, "authentication", "malformed", "object type"} <= reasons
    assert "<html" in (out / "summary.html").read_text()


def test_raw_files_are_judged_exactly_as_mqcn_decode(
    spark: Any, corpus_table: pa.Table, tmp_path: Path
) -> None:
    folder = tmp_path / "raw"
    (folder / "nested").mkdir(parents=True)
    bodies = corpus_table.column("body").to_pylist()[:40]
    bodies += [b"", b"\x03\x00", bytes.fromhex("0201")]
    for index, body in enumerate(bodies):
        (folder / ("nested" if index % 2 else "") / f"m{index:03d}.bin").write_bytes(body)
    result = audit(spark, folder, tmp_path / "out")
    assert result.mode == "raw" and result.balanced and result.rows_in == len(bodies)
    verdicts = pq.read_table(tmp_path / "out" / "verdicts").to_pylist()
    assert len(verdicts) == len(bodies)
    for row in verdicts:
        decoded = runner.invoke(cli.app, ["decode", "--file", row["source"], "--json"])
        document = json.loads(decoded.stdout)
        assert decoded.exit_code == (0 if row["conforming"] else 1)
        assert document["conforming"] == row["conforming"]
        ids = list(dict.fromkeys(v["requirement"] for v in document["violations"]))
        assert ids == row["violations"], row["source"]


def test_damaged_parquet_is_quarantined_per_row_group_and_by_bytes(
    spark: Any, corpus: Path, tmp_path: Path
) -> None:
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    parts = sorted(corpus.glob("*.parquet"))
    for part in parts:
        shutil.copy(part, mixed / part.name)
    # One generated file laid out in four row groups (as a long capture would be) ...
    table = pq.read_table(parts[0])
    groups, per_group = 4, -(-table.num_rows // 4)
    pq.write_table(table, tmp_path / "laid-out.parquet", row_group_size=per_group)
    good = (tmp_path / "laid-out.parquet").read_bytes()
    meta = pq.ParquetFile(tmp_path / "laid-out.parquet").metadata
    assert meta.num_row_groups == groups
    # ... whose second row group has its body column destroyed: the footer stays readable
    body = meta.row_group(1).column(SCHEMA.get_field_index("body"))
    start = body.dictionary_page_offset if body.has_dictionary_page else body.data_page_offset
    garbled = bytearray(good)
    garbled[start : start + body.total_compressed_size] = b"\xab" * body.total_compressed_size
    (mixed / "garbled.parquet").write_bytes(bytes(garbled))
    lost_rows = meta.row_group(1).num_rows
    # ... and the same file with its tail cut off: no footer, so its rows cannot be counted
    truncated = good[: len(good) // 2]
    (mixed / "truncated.parquet").write_bytes(truncated)
    garbage = b"PAR1 this is not a parquet file"
    (mixed / "garbage.parquet").write_bytes(garbage)
    (mixed / "notes.txt").write_text("a stray file is input too")
    # A file as Spark wrote it (with page checksums) with one bit of a body page flipped:
    # read without the checksum, the altered bodies would be judged as if they had been sent.
    spark_written = bytearray(parts[1].read_bytes())
    spark_meta = pq.ParquetFile(parts[1]).metadata
    assert spark_meta.num_row_groups == 1
    chunk = spark_meta.row_group(0).column(SCHEMA.get_field_index("body"))
    spark_written[chunk.dictionary_page_offset + chunk.total_compressed_size // 2] ^= 0x01
    (mixed / "flipped.parquet").write_bytes(bytes(spark_written))
    flipped_rows = spark_meta.num_rows
    result = audit(spark, mixed, tmp_path / "out")

    lost = lost_rows + flipped_rows
    assert result.balanced and not result.clean
    assert result.rows_in == COUNT + table.num_rows + flipped_rows + 1  # footers, stray file
    assert result.conforming + result.non_conforming == COUNT + table.num_rows - lost_rows
    assert result.quarantined == lost + 1
    assert result.rows_in_unreadable_row_groups == lost
    assert result.files_without_footer == 2
    assert result.bytes_without_footer == len(truncated) + len(garbage)
    line = result.balance_line()
    assert line.startswith(f"rows in (known) {result.rows_in} = conforming ")
    assert f"+ quarantined {lost + 1} ({lost} rows in unreadable row groups)" in line
    assert f"; {len(truncated) + len(garbage)} bytes in files without a readable footer" in line

    quarantine = pq.read_table(tmp_path / "out" / "quarantine").to_pylist()
    by_name = {Path(q["source"]).name: q for q in quarantine}
    assert set(by_name) == {
        "garbage.parquet",
        "truncated.parquet",
        "garbled.parquet#rowgroup=1",
        "flipped.parquet#rowgroup=0",
        "notes.txt",
    }
    group = by_name["garbled.parquet#rowgroup=1"]
    assert (group["scope"], group["rows"], group["bytes"]) == ("row group", lost_rows, None)
    assert group["reason"].startswith(f"unreadable row group 1 ({lost_rows} rows per the footer)")
    flipped = by_name["flipped.parquet#rowgroup=0"]
    assert (flipped["scope"], flipped["rows"]) == ("row group", flipped_rows)
    assert "CRC checksum verification failed" in flipped["reason"]
    cut = by_name["truncated.parquet"]
    assert (cut["scope"], cut["rows"], cut["bytes"]) == (
        "file without footer",
        None,
        len(truncated),
    )
    assert f"({len(truncated)} bytes, rows unknown)" in cut["reason"]
    assert (by_name["notes.txt"]["scope"], by_name["notes.txt"]["rows"]) == ("file", 1)
    assert by_name["notes.txt"]["reason"] == "not a Parquet file (*.parquet)"
    # the other row groups of the damaged file were judged, row by row
    verdicts = pq.read_table(tmp_path / "out" / "verdicts").to_pylist()
    judged = sorted(
        int(v["source"].rpartition("#")[2])
        for v in verdicts
        if Path(v["source"].rpartition("#")[0]).name == "garbled.parquet"
    )
    assert judged == [r for r in range(table.num_rows) if not per_group <= r < 2 * per_group]

    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["balance"] == {
        "rows_in": result.rows_in,
        "conforming": result.conforming,
        "non_conforming": result.non_conforming,
        "quarantined": lost + 1,
        "rows_in_unreadable_row_groups": lost,
        "files_without_footer": 2,
        "bytes_without_footer": len(truncated) + len(garbage),
        "balanced": True,
    }
    page = (tmp_path / "out" / "summary.html").read_text()
    assert html.escape(line) in page


def test_a_parquet_file_without_body_is_a_clear_error(app: typer.Typer, tmp_path: Path) -> None:
    pq.write_table(pa.table({"message_id": [b"x" * 20]}), tmp_path / "nobody.parquet")
    with pytest.raises(PipelineError, match="no 'body' column"):
        plan_input(tmp_path)
    line = one_line_error(invoke(app, "audit", str(tmp_path), "--out", str(tmp_path / "o")))
    assert "no 'body' column" in line and "nobody.parquet" in line


def test_an_empty_corpus_is_nothing_to_judge(spark: Any, tmp_path: Path) -> None:
    pq.write_table(SCHEMA.empty_table(), tmp_path / "empty.parquet")
    with pytest.raises(NothingToJudge, match="held 0 messages"):
        audit(spark, tmp_path, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def odd_corpus(corpus: Path, folder: Path) -> Path:
    """``corpus`` plus what the summary must count: odd rows, a lost row group, lost files."""
    folder.mkdir()
    parts = sorted(corpus.glob("*.parquet"))
    for part in parts:
        shutil.copy(part, folder / part.name)
    table = pq.read_table(parts[0])
    sample = table.slice(0, 60).to_pylist()
    for index, row in enumerate(sample):
        if index % 7 == 0:
            row["body"] = None  # quarantined, one row each
        if index % 5 == 1:
            row["message_id"] = b"short" if index % 2 else None  # no sender
        if index % 9 == 2:
            row["sender_identifier_type"] = "Bogus" if index % 2 else None  # server: unknown
    pq.write_table(pa.Table.from_pylist(sample, schema=table.schema), folder / "odd.parquet")
    bodies = pa.table({"body": table.column("body").slice(60, 30)})  # no envelope columns
    pq.write_table(bodies, folder / "bodies-only.parquet")
    laid_out = folder.parent / "laid-out.parquet"
    pq.write_table(table.slice(0, 400), laid_out, row_group_size=100)
    meta = pq.ParquetFile(laid_out).metadata
    body = meta.row_group(2).column(SCHEMA.get_field_index("body"))
    start = body.dictionary_page_offset if body.has_dictionary_page else body.data_page_offset
    garbled = bytearray(laid_out.read_bytes())
    garbled[start : start + body.total_compressed_size] = b"\xab" * body.total_compressed_size
    (folder / "garbled.parquet").write_bytes(bytes(garbled))
    (folder / "truncated.parquet").write_bytes(laid_out.read_bytes()[:5000])
    (folder / "notes.txt").write_text("a stray file is input too")
    return folder


def _sorted(rows: list[dict[str, Any]], *keys: tuple[str, bool]) -> list[dict[str, Any]]:
    """``rows`` ordered by ``keys`` (name, descending): SQL's order, nulls first ascending and
    last descending; a stable sort from the last key to the first."""
    for name, descending in reversed(keys):
        rows = sorted(
            rows,
            key=lambda r: (r[name] is not None, 0 if r[name] is None else r[name]),
            reverse=descending,
        )
    return rows


def expected_summary(verdicts: pa.Table, quarantine: pa.Table) -> dict[str, Any]:
    """The summary's counts recomputed from the output rows with pyarrow group-bys."""
    count = [([], "count_all")]
    flagged = verdicts.append_column("bad", pc.cast(pc.invert(verdicts["conforming"]), pa.int64()))
    totals = {
        r["conforming"]: r["count_all"]
        for r in verdicts.group_by("conforming").aggregate(count).to_pylist()
    }
    requirements = pc.value_counts(pc.list_flatten(verdicts["violations"])).to_pylist()
    by_requirement = _sorted(
        [{"requirement": r["values"], "messages": r["counts"]} for r in requirements],
        ("messages", True),
        ("requirement", False),
    )
    senders = flagged.group_by("sender").aggregate([*count, ("bad", "sum")]).to_pylist()
    by_sender = _sorted(
        [
            {"sender": r["sender"], "messages": r["count_all"], "non_conforming": r["bad_sum"]}
            for r in senders
        ],
        ("messages", True),
        ("sender", False),
    )
    versions = flagged.group_by("version").aggregate([*count, ("bad", "sum")]).to_pylist()
    by_version = _sorted(
        [
            {"version": r["version"], "messages": r["count_all"], "non_conforming": r["bad_sum"]}
            for r in versions
        ],
        ("version", False),
    )
    server = ["server_outcome", "server_reason", "server_requirement"]
    by_server = _sorted(
        [
            {
                "outcome": r["server_outcome"],
                "reason": r["server_reason"],
                "requirement": r["server_requirement"],
                "messages": r["count_all"],
            }
            for r in verdicts.group_by(server).aggregate(count).to_pylist()
        ],
        ("messages", True),
        ("outcome", False),
        ("reason", False),
        ("requirement", False),
    )
    sums = [*count, ("rows", "sum"), ("bytes", "sum")]
    reasons = _sorted(
        [
            {
                "reason": r["reason"],
                "entries": r["count_all"],
                "rows": r["rows_sum"],
                "bytes": r["bytes_sum"],
            }
            for r in quarantine.group_by("reason").aggregate(sums).to_pylist()
        ],
        ("rows", True),
        ("bytes", True),
        ("reason", False),
    )
    scopes = {r["scope"]: r for r in quarantine.group_by("scope").aggregate(sums).to_pylist()}
    entries = _sorted(quarantine.drop_columns(["message_id"]).to_pylist(), ("source", False))
    quarantined = sum(r["rows_sum"] or 0 for r in scopes.values())
    no_footer = scopes.get("file without footer", {})
    return {
        "balance": {
            "conforming": totals.get(True, 0),
            "non_conforming": totals.get(False, 0),
            "quarantined": quarantined,
            "rows_in_unreadable_row_groups": scopes.get("row group", {}).get("rows_sum") or 0,
            "files_without_footer": no_footer.get("count_all", 0),
            "bytes_without_footer": no_footer.get("bytes_sum") or 0,
        },
        "by_requirement": by_requirement,
        "by_sender": by_sender[:50],
        "distinct_senders": len(senders),
        "by_version": by_version,
        "by_server_outcome": by_server,
        "quarantine": {"by_reason": reasons[:50], "entries": entries[:50]},
    }


def test_the_summary_is_what_the_verdict_and_quarantine_rows_say(
    spark: Any, corpus: Path, tmp_path: Path
) -> None:
    folder = odd_corpus(corpus, tmp_path / "odd")
    result = audit(spark, folder, tmp_path / "out")
    verdicts = pq.read_table(tmp_path / "out" / "verdicts")
    quarantine = pq.read_table(tmp_path / "out" / "quarantine")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    expected = expected_summary(verdicts, quarantine)
    balance = summary["balance"]
    assert {k: balance[k] for k in expected["balance"]} == expected["balance"]
    assert balance["rows_in"] == COUNT + 60 + 30 + 400 + 1 and balance["balanced"]
    assert balance["quarantined"] == 100 + 9 + 1  # a row group, 9 null bodies, the stray file
    assert balance["files_without_footer"] == 1 and result.balanced
    by_requirement = [
        {"requirement": e["requirement"], "messages": e["messages"]}
        for e in summary["by_requirement"]
    ]
    assert by_requirement == expected["by_requirement"]
    assert all(
        e["statement"] == CATALOG[e["requirement"]].statement for e in summary["by_requirement"]
    )
    assert summary["by_sender"] == expected["by_sender"]
    assert summary["distinct_senders"] == expected["distinct_senders"] > 50
    assert None in set(verdicts["sender"].to_pylist())  # ids that name no sender are counted
    assert [
        {k: e[k] for k in ("version", "messages", "non_conforming")} for e in summary["by_version"]
    ] == expected["by_version"]
    assert summary["by_server_outcome"] == expected["by_server_outcome"]
    assert {"unknown"} <= {e["outcome"] for e in summary["by_server_outcome"]}
    assert summary["quarantine"] == expected["quarantine"]
    assert (summary["mode"], summary["readings"], summary["input"]) == (
        "parquet",
        "strict",
        str(folder),
    )

    # The single-process loop (the benchmark's) runs the very task code: the same rows.
    plan = plan_input(folder)
    units = pa.RecordBatch.from_pylist(plan.work, schema=UNIT_SCHEMA)
    task = pa.Table.from_batches(list(judge_parquet_units(STRICT)(iter([units]))), ROW_SCHEMA)
    for status, table, columns in (
        ("verdict", verdicts, VERDICT_COLUMNS),
        ("quarantined", quarantine, QUARANTINE_COLUMNS),
    ):
        mine = task.filter(pc.equal(task["status"], status)).select(list(columns)).to_pylist()
        if status == "quarantined":
            mine += [{k: e[k] for k in columns} for e in plan.quarantined]
        assert sorted(mine, key=lambda r: r["source"]) == sorted(
            table.to_pylist(), key=lambda r: r["source"]
        )


def test_a_registered_input_kind_is_audited_end_to_end(spark: Any, tmp_path: Path) -> None:
    """The extension point a new input (packet captures) uses: a planner, a task, a frame."""

    def plan_lines(files: list[Path]) -> Plan:
        work = [(str(f), n, line) for f in files for n, line in enumerate(f.read_text().split())]
        return Plan("hexlines", work, [], len(work))

    def task(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        auditor, tally = Auditor(), Tally()
        rows = RowBuilder(tally)
        for batch in batches:
            lines = batch.to_pylist()
            sources = [f"{line['path']}#{line['line']}" for line in lines]
            rows.judge(auditor, sources, [bytes.fromhex(line["hex"]) for line in lines])
            yield from rows.batches()
        yield tally.batch()

    def frame(spark: Any, plan: Plan, _readings: Any) -> Any:
        lines = spark.createDataFrame(plan.work, "path string, line int, hex string")
        return lines.mapInArrow(task, spark_schema(ROW_SCHEMA))

    before = list(INPUT_KINDS)
    register_input_kind(
        InputKind(
            "hexlines",
            lambda fs: all(f.suffix == ".hexlines" for f in fs),
            plan_lines,
            frame,
            "lines",
        )
    )
    try:
        (tmp_path / "in").mkdir()
        (tmp_path / "in" / "a.hexlines").write_text("0300\n0201\n")
        result = audit(spark, tmp_path / "in", tmp_path / "out")
    finally:
        INPUT_KINDS[:] = before
    assert (result.mode, result.rows_in, result.non_conforming, result.balanced) == (
        "hexlines",
        2,
        2,
        True,
    )
    verdicts = pq.read_table(tmp_path / "out" / "verdicts").sort_by("source").to_pylist()
    assert [v["violations"] for v in verdicts] == [
        list(judge(bytes.fromhex(h)).requirements) for h in ("0300", "0201")
    ]
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["mode"] == "hexlines"


def test_missing_input_and_invalid_master_are_usage_errors(
    app: typer.Typer, tmp_path: Path
) -> None:
    missing = one_line_error(invoke(app, "audit", str(tmp_path / "nope"), "--out", str(tmp_path)))
    assert "no such file or directory" in missing
    assert "INPUT" in one_line_error(invoke(app, "audit", "--out", str(tmp_path / "o")))
    bad_master = ["--master", "lokal[2]"]
    for args in (
        ["corpus", "generate", "--count", "5", "--out", str(tmp_path / "g"), *bad_master],
        ["audit", str(tmp_path), "--out", str(tmp_path / "o"), *bad_master],
        ["fuzz", "target", "--target", "reference", "--cases", "5", *bad_master],
    ):
        assert "is not a Spark master URL" in one_line_error(invoke(app, *args))
    assert "not an integer" in one_line_error(
        invoke(app, "corpus", "generate", "--count", "many", "--out", str(tmp_path / "g"))
    )
    assert "unknown target" in one_line_error(
        invoke(app, "fuzz", "target", "--target", "x", "--cases", "1")
    )
    assert check_master("local[*]") == "local[*]"


def test_commands_end_to_end(app: typer.Typer, tmp_path: Path) -> None:
    made = invoke(app, "corpus", "generate", "--count", "60", "--out", str(tmp_path / "c"))
    assert made.exit_code == 0, made.stderr
    assert "wrote 60 messages" in made.stdout
    audited = invoke(app, "audit", str(tmp_path / "c"), "--out", str(tmp_path / "a"))
    assert audited.exit_code == 1, audited.stderr  # 10% drawn malformed: some are found
    assert "rows in 60 = conforming" in audited.stdout
    clean = invoke(
        app,
        "corpus",
        "generate",
        "--count",
        "20",
        "--invalid-share",
        "0",
        "--out",
        str(tmp_path / "d"),
    )
    assert clean.exit_code == 0
    result = json.loads(
        invoke(app, "audit", str(tmp_path / "d"), "--out", str(tmp_path / "e"), "--json").stdout
    )
    assert result["balance"]["rows_in"] == 20


# --- fuzz --------------------------------------------------------------------------------------


def test_fuzz_against_the_reference_finds_nothing(spark: Any, app: typer.Typer) -> None:
    result = fuzz(spark, "reference", 200, seed=3)
    assert result.cases == 200 and result.divergences == 0, result.sample[:3]
    ran = invoke(app, "fuzz", "target", "--target", "reference", "--cases", "40", "--seed", "5")
    assert ran.exit_code == 0 and "0 divergences" in ran.stdout


def test_fuzz_finds_a_faulty_target(spark: Any, app: typer.Typer, tmp_path: Path) -> None:
    class IgnoresAuthentication(ReferenceTarget):
        """Processes Version 0x01 messages whose AuthenticationLevel is None (3.2.5.1)."""

        name = "ignores-authentication"

        def deliver(self, envelope: Any) -> None:
            super().deliver(envelope.with_(authentication_level=AuthLevel.Sig20))

    result = fuzz(spark, IgnoresAuthentication, 200, seed=3, out=tmp_path / "f")
    assert result.cases == 200 and result.divergences > 0
    assert result.by_requirement["MQCN-3.2.5.1-4"] == result.divergences
    lines = (tmp_path / "f" / "divergences.jsonl").read_text().splitlines()
    assert len(lines) == result.divergences
    summary = json.loads((tmp_path / "f" / "summary.json").read_text())
    assert summary["jsonl_rows"] == len(lines) == summary["rows"]
    assert (summary["divergences"], summary["not_run"], summary["stricter_receiver"]) == (
        result.divergences,
        0,
        0,
    )
    first = json.loads(lines[0])
    assert first["replay"].startswith(
        f"mqcn decode --hex {first['hex']}; mqcn fuzz target --target"
    )
    assert json.loads(first["envelope"])["authentication_level"] == "None"
    assert pq.read_table(tmp_path / "f" / "divergences").num_rows == result.divergences
    # the replay of a case runs in process, and the reference agrees with itself there
    again = replay_fuzz_case("reference", 3, first["case"])
    assert again["divergence"] is None and again["model_outcome"] == "disregarded"
    assert (
        replay_fuzz_case(IgnoresAuthentication, 3, first["case"])["divergence"]["detail"]
        == first["detail"]
    )
    shown = invoke(
        app, "fuzz", "target", "--target", "reference", "--seed", "3", "--case", str(first["case"])
    )
    assert shown.exit_code == 0 and "target and model agree" in shown.stdout


def test_fuzz_admits_the_letter_and_names_the_readings_it_saw(
    spark: Any, app: typer.Typer, tmp_path: Path
) -> None:
    # The reference following the letter of every errata item (E-12, E-22, E-23, E-24, ...)
    # never diverges; the readings it was seen to follow are reading rows, tallied by item in
    # summary.json and on the terminal (tests/test_fuzz_readings.py: each reading, in process).
    out = tmp_path / "f"
    ran = invoke(
        app,
        "fuzz",
        "target",
        "--target",
        "reference:letter",
        "--cases",
        "400",
        "--seed",
        "0",
        "--out",
        str(out),
    )
    assert ran.exit_code == 0, (ran.stdout, ran.stderr)
    summary = json.loads((out / "summary.json").read_text())
    lines = [json.loads(x) for x in (out / "divergences.jsonl").read_text().splitlines()]
    assert summary["divergences"] == 0 and summary["other_reading"] == len(lines) > 0
    assert {row["divergence"] for row in lines} == {"reading"}
    followed = summary["readings_followed"]
    assert {"E-12", "E-22", "E-23", "E-24"} <= set(followed), followed
    assert followed["E-22"] == {
        "nil-identifier": sum("E-22=nil-identifier" in r["readings"] for r in lines)
    }
    assert all("replace" in names.split("|") for names in followed["E-24"])
    assert f"0 divergences (and {len(lines)} reading cases)" in ran.stdout
    assert (
        "readings followed (docs/errata.md): E-" in ran.stdout
        and "E-22 nil-identifier" in ran.stdout
    )


NODE_TARGET = Path(__file__).resolve().parent.parent / "examples" / "node-target" / "target.js"


def test_a_stricter_receiver_is_no_divergence_in_the_run_nor_in_its_replay(
    spark: Any, app: typer.Typer, tmp_path: Path
) -> None:
    # The node example disregards some messages that break a sender's rule, which the model
    # processes (errata E-20): the rows are written, counted apart, and fail neither path.
    node = shutil.which("node")
    assert node is not None, "Node.js (20+) is needed to run examples/node-target"
    target = f"exec:{node} {NODE_TARGET}"
    ran = invoke(
        app,
        "fuzz",
        "target",
        "--target",
        target,
        "--cases",
        "200",
        "--seed",
        "1",
        "--out",
        str(tmp_path / "f"),
    )
    assert ran.exit_code == 0, (ran.stdout, ran.stderr)
    summary = json.loads((tmp_path / "f" / "summary.json").read_text())
    lines = [json.loads(x) for x in (tmp_path / "f" / "divergences.jsonl").read_text().splitlines()]
    assert summary["jsonl_rows"] == len(lines) == summary["rows"] > 0
    assert summary["divergences"] == 0 and summary["stricter_receiver"] == len(lines)
    assert {row["divergence"] for row in lines} == {"stricter-receiver"}
    assert f"0 divergences (and {len(lines)} stricter-receiver" in ran.stdout
    case = str(lines[0]["case"])
    shown = invoke(app, "fuzz", "target", "--target", target, "--seed", "1", "--case", case)
    assert shown.exit_code == 0, (shown.stdout, shown.stderr)
    assert "stricter-receiver" in shown.stdout and "not a divergence" in shown.stdout


def test_not_run_cases_are_counted_apart_from_divergences() -> None:
    rows = [
        {"divergence": "state"},
        {"divergence": STRICTER},
        {"divergence": NOT_RUN},
        {"divergence": "target-error"},
    ]
    assert [is_divergence(r) for r in rows] == [True, False, False, True]
    assert not is_divergence(None)


def test_the_model_never_imports_spark() -> None:
    code = (
        "import sys, mqcn_model.judge, mqcn_model.server, mqcn_model.message_layers, "
        "mqcn_suite.commands.pipeline, mqcn_suite.pipeline.audit; "
        "print('pyspark' in sys.modules)"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"
