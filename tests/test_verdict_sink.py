"""Issue 22, item 4: on Spark with a local --out, each task writes its own verdicts.

The sink (``mqcn_suite/pipeline/audit/sink.py``) is checked here without Spark (no
``TaskContext``: partition 0, attempt 0): what reaches Spark, the file a task leaves, a failed
attempt, a retried one, the end of the folder and its count of rows against the tallies.
That the outputs and the summary are those of the in-process engine, with the tasks or Spark
writing the verdicts, is tests/test_engines.py's ``audit_twice(..., every_way=True)``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
from capture_helpers import envelope, frames, pcap, segments, session_packets
from cli_helpers import invoke, one_line_error

import mqcn_suite.pipeline.audit.schema as schema
from mqcn_model.errata import STRICT
from mqcn_suite.pipeline.audit import Auditor, RowBuilder, Tally
from mqcn_suite.pipeline.audit.schema import QUARANTINED, TALLY, VERDICT, quarantine_row
from mqcn_suite.pipeline.audit.sink import (
    BY_SPARK,
    BY_TASKS,
    EMPTY_PART,
    VERDICTS_CONF,
    VerdictSink,
    verdicts_way,
)
from mqcn_suite.pipeline.session import PipelineError

BODY = bytes.fromhex("01") + b"\x00" * 12  # a Version 0x01 body: judged, non-conforming


def judged_rows(count: int, quarantined: int = 1) -> list[pa.RecordBatch]:
    """ROW_SCHEMA batches of ``count`` verdicts, ``quarantined`` entries and the tally."""
    rows = RowBuilder(Tally())
    rows.judge(Auditor(STRICT), [f"m{n}" for n in range(count)], [BODY] * count)
    for n in range(quarantined):
        rows.quarantine(quarantine_row(f"q{n}", "unreadable", 1))
    return [*rows.batches(), rows.tally.batch()]


def task_of(batches: list[pa.RecordBatch], fail_after: int | None = None):
    """A kind's task giving ``batches`` (raising after ``fail_after`` of them)."""

    def run(_units: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for n, batch in enumerate(batches):
            if fail_after is not None and n == fail_after:
                raise RuntimeError("the executor died")
            yield batch

    return run


def statuses(batches: list[pa.RecordBatch]) -> list[str]:
    return [s for b in batches for s in b.column("status").to_pylist()]


def test_the_task_writes_its_verdicts_and_gives_spark_the_rest(tmp_path: Path) -> None:
    sink = VerdictSink.at(tmp_path / "verdicts")
    given = judged_rows(5, quarantined=2)
    out = list(sink.task(task_of(given))(iter([])))
    assert VERDICT not in statuses(out)
    assert sorted(set(statuses(out))) == [QUARANTINED, TALLY]
    assert statuses(out).count(QUARANTINED) == 2
    [part] = (tmp_path / "verdicts").glob("part-*.parquet")
    assert part.name.startswith("part-00000-")
    table = pq.read_table(part)
    assert table.schema == schema.VERDICT_SCHEMA and table.num_rows == 5
    assert table.column("source").to_pylist() == [f"m{n}" for n in range(5)]
    assert not list((tmp_path / "verdicts").glob(".*"))  # no attempt file left
    sink.finish(5)
    assert (tmp_path / "verdicts" / "_SUCCESS").exists()


def test_each_mapping_names_its_files_apart(tmp_path: Path) -> None:
    sink = VerdictSink.at(tmp_path / "verdicts")
    for _ in range(2):  # two frames of one job: both partition 0
        list(sink.task(task_of(judged_rows(3)))(iter([])))
    assert len(list((tmp_path / "verdicts").glob("part-00000-*.parquet"))) == 2
    sink.finish(6)


def test_a_failed_attempt_leaves_nothing_and_its_retry_the_whole_file(tmp_path: Path) -> None:
    sink = VerdictSink.at(tmp_path / "verdicts")
    given = [*judged_rows(4), *judged_rows(3)]
    task = sink.task(task_of(given, fail_after=2))  # one mapping: retried under one name
    with pytest.raises(RuntimeError, match="the executor died"):
        list(task(iter([])))
    assert list((tmp_path / "verdicts").iterdir()) == []
    retried = sink.task(task_of(given))
    list(retried(iter([])))
    list(retried(iter([])))  # a speculative twin: the same name, replaced
    [part] = (tmp_path / "verdicts").glob("part-*.parquet")
    assert pq.read_metadata(part).num_rows == 7
    sink.finish(7)


def test_a_task_stopped_early_leaves_no_file(tmp_path: Path) -> None:
    sink = VerdictSink.at(tmp_path / "verdicts")
    rows = sink.task(task_of([*judged_rows(2), *judged_rows(2)]))(iter([]))
    next(rows)
    rows.close()  # Spark stopped reading it (a cancelled job)
    assert list((tmp_path / "verdicts").iterdir()) == []


def test_the_end_removes_failed_attempts_and_writes_an_empty_file_when_none_came(
    tmp_path: Path,
) -> None:
    sink = VerdictSink.at(tmp_path / "verdicts")
    (tmp_path / "verdicts" / ".part-00003-abc.0.tmp").write_bytes(b"half a file")
    out = list(sink.task(task_of(judged_rows(0, quarantined=1)))(iter([])))
    assert statuses(out).count(QUARANTINED) == 1
    sink.finish(0)
    names = sorted(p.name for p in (tmp_path / "verdicts").iterdir())
    assert names == ["_SUCCESS", EMPTY_PART]
    assert pq.read_table(tmp_path / "verdicts").num_rows == 0


def test_literal_verdict_rows_join_the_tasks_files(tmp_path: Path) -> None:
    sink = VerdictSink.at(tmp_path / "verdicts")
    list(sink.task(task_of(judged_rows(2)))(iter([])))
    literal = pa.Table.from_batches(judged_rows(3, quarantined=0)[:1])
    sink.finish(5, literal)
    assert pq.read_table(tmp_path / "verdicts").num_rows == 5


def test_rows_lost_or_doubled_fail_the_audit_with_both_figures(tmp_path: Path) -> None:
    sink = VerdictSink.at(tmp_path / "verdicts")
    list(sink.task(task_of(judged_rows(4)))(iter([])))
    with pytest.raises(PipelineError, match=r"hold 4 verdict rows but their tallies count 6"):
        sink.finish(6)


def test_the_folder_must_be_new(tmp_path: Path) -> None:
    (tmp_path / "verdicts").mkdir()
    with pytest.raises(FileExistsError):
        VerdictSink.at(tmp_path / "verdicts")


@pytest.mark.parametrize(
    ("given", "way"),
    [(None, BY_TASKS), ("tasks", BY_TASKS), (" Spark ", BY_SPARK), ("", BY_TASKS)],
)
def test_the_conf_key_says_who_writes(given: str | None, way: str) -> None:
    assert verdicts_way(lambda _key, default: default if given is None else given) == way


def test_a_bad_conf_value_is_one_line_naming_the_key() -> None:
    with pytest.raises(PipelineError, match=rf"--conf {VERDICTS_CONF}='driver': expected"):
        verdicts_way(lambda _key, _default: "driver")


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        (VERDICTS_CONF, "driver", "expected tasks or spark"),
        ("mqcn.capture.split", "64MB", "expected a number of bytes"),
    ],
)
def test_a_bad_own_key_is_refused_before_spark_starts(
    app: typer.Typer, tmp_path: Path, key: str, value: str, words: str
) -> None:
    capture = tmp_path / "one.pcap"
    capture.write_bytes(pcap(frames(segments(b"".join(session_packets([envelope(1)]))))))
    result = invoke(
        app, "audit", str(capture), "--out", str(tmp_path / "out"), "--conf", f"{key}={value}"
    )
    line = one_line_error(result)
    assert f"--conf {key}={value!r}" in line and words in line
    assert "starting Spark" not in result.stderr
    assert not (tmp_path / "out").exists()
