"""The audit's task code without Spark: verdict rows, the server's decode, tallies, input kinds.

Spark runs exactly this code inside ``mapInArrow`` (tests/test_pipeline.py checks the
outputs of a real job); here it runs in-process, as the benchmark's single-process loop does.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from mqcn_model import server as server_module
from mqcn_model.codec.message import ChangeNotificationMessage, decode_message
from mqcn_model.directory import InMemoryDirectory
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import STRICT
from mqcn_model.errors import DecodeError
from mqcn_model.judge import judge
from mqcn_model.server import NotificationServer, QueueManager
from mqcn_suite.pipeline.audit import (
    INPUT_KINDS,
    VERDICT_COLUMNS,
    InputKind,
    NothingToJudge,
    Plan,
    check_work,
    plan_input,
    register_input_kind,
)
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.kinds import parquet as tasks_module
from mqcn_suite.pipeline.audit.kinds.parquet import (
    UNIT_SCHEMA,
    judge_parquet_units,
    judge_row_group,
)
from mqcn_suite.pipeline.audit.schema import ROW_SCHEMA
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.audit.tasks import RowBuilder
from mqcn_suite.pipeline.corpus import generate_rows

SEED = 3
ROWS = 1200


@pytest.fixture(scope="module")
def table() -> pa.Table:
    return pa.Table.from_batches([generate_rows(list(range(ROWS)), SEED, 0.2)])


@pytest.fixture(scope="module")
def corpus(table: pa.Table, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    pq.write_table(table, folder / "part-0.parquet", row_group_size=500)  # 3 row groups
    return folder


def run_task(plan: Plan, batch_rows: int = 200) -> pa.Table:
    """What one Spark task given every unit of ``plan`` emits, run in this process."""
    units = pa.RecordBatch.from_pylist(plan.work, schema=UNIT_SCHEMA)
    batches = list(judge_parquet_units(STRICT, batch_rows)(iter([units])))
    return pa.Table.from_batches(batches, schema=ROW_SCHEMA)


def of_status(rows: pa.Table, status: str) -> list[dict[str, Any]]:
    return rows.filter(pc.equal(rows.column("status"), status)).to_pylist()


def fresh_view(envelope: Envelope) -> tuple[str, str | None, str]:
    """What a new reference server, decoding the body itself, does with ``envelope``."""
    server = NotificationServer(QueueManager(uuid.UUID(int=0)), InMemoryDirectory(), computer="t")
    server.initialize()
    record = server.deliver(envelope)
    return record.outcome, record.disregarded_by, record.reason


# --- verdict rows ------------------------------------------------------------------------------


def test_the_task_judges_every_row_and_its_tally_counts_what_it_emitted(
    corpus: Path, table: pa.Table
) -> None:
    rows = run_task(plan_input(corpus))
    verdicts = of_status(rows, "verdict")
    assert len(verdicts) == ROWS and not of_status(rows, "quarantined")
    path = str((corpus / "part-0.parquet").resolve())
    assert [v["source"] for v in verdicts] == [f"{path}#{i}" for i in range(ROWS)]
    for source, row in zip(table.to_pylist(), verdicts, strict=True):
        verdict = judge(source["body"])
        assert row["message_id"] == source["message_id"]
        assert row["conforming"] == verdict.conforming
        assert row["violations"] == list(verdict.requirements)
        assert row["sender"] == str(MessageId.from_bytes(source["message_id"]).sender)
        assert row["size"] == len(source["body"])
        assert row["version"] == (source["body"][0] if source["body"] else None)
    # The tally rows say what a group-by over the verdict rows says.
    tally = Counter()
    for row in of_status(rows, "tally"):
        key = {
            "verdicts": (row["conforming"],),
            "requirement": (row["requirement"],),
            "sender": (row["sender"],),
            "version": (row["version"],),
            "server": (row["server_outcome"], row["server_reason"], row["server_requirement"]),
        }[row["tally"]]
        tally[(row["tally"], *key)] += row["n"]
        if row["tally"] in ("sender", "version"):
            tally[(row["tally"] + " bad", *key)] += row["bad"]
    expected = Counter()
    for row in verdicts:
        bad = 0 if row["conforming"] else 1
        expected[("verdicts", row["conforming"])] += 1
        for requirement in row["violations"]:
            expected[("requirement", requirement)] += 1
        for name in ("sender", "version"):
            expected[(name, row[name])] += 1
            expected[(name + " bad", row[name])] += bad
        server = (row["server_outcome"], row["server_reason"], row["server_requirement"])
        expected[("server", *server)] += 1
    assert +tally == +expected and len(expected) > 100


def test_the_server_is_handed_the_judges_decode_and_decides_as_if_it_decoded(
    table: pa.Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = table.slice(0, 300).to_pylist()
    envelopes = [
        Envelope(r["body"], MessageId.from_bytes(r["message_id"]))
        for r in sample
        if r["sender_identifier_type"] == "QueueManagerIdentifier"
    ]
    expected = [fresh_view(e) for e in envelopes]
    handed: list[Any] = []
    deliver = NotificationServer.deliver

    def spy(self: NotificationServer, envelope: Envelope, decoded: Any = None) -> Any:
        handed.append(decoded)
        return deliver(self, envelope, decoded)

    def no_second_decode(*_args: Any) -> None:
        raise AssertionError("the server decoded a body the judge had decoded")

    monkeypatch.setattr(NotificationServer, "deliver", spy)
    monkeypatch.setattr(server_module, "decode_message", no_second_decode)
    auditor = Auditor()
    for envelope, (outcome, requirement, reason) in zip(envelopes, expected, strict=True):
        row = auditor.row("x", envelope.body, envelope.message_id.to_bytes())
        assert (row["server_outcome"], row["server_requirement"]) == (outcome, requirement)
        assert row["server_detail"] == (reason or None)
    assert len(handed) == len(envelopes)
    kinds = Counter(type(d) for d in handed)
    assert kinds[ChangeNotificationMessage] > 0 and kinds[DecodeError] > 0
    for envelope, decoded in zip(envelopes, handed, strict=True):
        try:
            assert decoded == decode_message(envelope.body, STRICT)
        except DecodeError as exc:
            assert isinstance(decoded, DecodeError) and decoded.violation == exc.violation


def test_rows_that_cannot_be_judged_are_quarantined_and_odd_envelopes_kept(
    table: pa.Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = next(  # a Version 0x01 message: its server checks the sender's type
        b for b in table.column("body").to_pylist() if b[0] == 1 and judge(b).message is not None
    )
    chunk = pa.RecordBatch.from_pylist(
        [
            {"body": None, "message_id": b"m" * 20, "sender_identifier_type": "Sid"},
            {"body": body, "message_id": b"short", "sender_identifier_type": "Bogus"},
            {"body": b"boom", "message_id": None, "sender_identifier_type": None},
            {"body": body, "message_id": b"\x01" * 20, "sender_identifier_type": "Sid"},
        ],
        schema=pa.schema(
            [("body", pa.binary()), ("message_id", pa.binary()), ("sender_identifier_type", "str")]
        ),
    )
    auditor = Auditor()
    values = auditor.values

    def broken_model(source: str, body: bytes, *envelope: Any) -> tuple[Any, ...]:
        if body == b"boom":
            raise RuntimeError("a bug in the model")
        return values(source, body, *envelope)

    monkeypatch.setattr(auditor, "values", broken_model)
    rows = RowBuilder(Tally())
    tasks_module.judge_chunk(auditor, rows, "f.parquet", 10, chunk)
    out = pa.Table.from_batches(rows.batches())
    quarantined = {r["source"]: r for r in of_status(out, "quarantined")}
    assert quarantined["f.parquet#10"]["reason"] == "body is null"
    assert quarantined["f.parquet#10"]["message_id"] == b"m" * 20
    bug = "internal error: RuntimeError: a bug in the model"
    assert quarantined["f.parquet#12"]["reason"] == bug
    assert {r["rows"] for r in quarantined.values()} == {1}
    verdicts = {r["source"]: r for r in of_status(out, "verdict")}
    odd = verdicts["f.parquet#11"]  # a short id has no sender; an unknown type no server view
    assert (odd["sender"], odd["server_outcome"], odd["server_reason"]) == (
        None,
        "unknown",
        "envelope",
    )
    assert "sender_identifier_type 'Bogus' is not one of" in odd["server_detail"]
    sid = verdicts["f.parquet#13"]  # no authentication_level column: Sig20 is assumed
    assert sid["sender"] == str(uuid.UUID(bytes_le=b"\x01" * 16))
    assert (sid["server_outcome"], sid["server_reason"]) == ("disregarded", "authentication")
    tally = pa.Table.from_batches([rows.tally.batch()]).to_pylist()
    reasons = {r["reason"]: r["n"] for r in tally if r["tally"] == "reason"}
    assert reasons == {"body is null": 1, bug: 1}


# --- a row group that breaks ------------------------------------------------------------------


def test_a_row_group_that_breaks_midway_keeps_its_judged_rows_and_sets_aside_the_rest(
    table: pa.Table, tmp_path: Path
) -> None:
    path = tmp_path / "paged.parquet"
    pq.write_table(
        table,
        path,
        data_page_size=2048,
        write_batch_size=50,  # the page size is checked every 50 values: pages of ~10 rows
        write_page_checksum=True,
        compression="none",
        use_dictionary=False,
    )
    meta = pq.ParquetFile(path).metadata
    chunk = meta.row_group(0).column(table.schema.get_field_index("body"))
    damaged = bytearray(path.read_bytes())
    damaged[chunk.data_page_offset + chunk.total_compressed_size * 3 // 4] ^= 0xFF
    path.write_bytes(bytes(damaged))
    plan = plan_input(path)
    rows = run_task(plan, batch_rows=100)
    verdicts, quarantined = of_status(rows, "verdict"), of_status(rows, "quarantined")
    judged = len(verdicts)
    assert 0 < judged < ROWS and judged % 100 == 0  # whole batches before the damaged page
    (entry,) = quarantined
    assert (entry["scope"], entry["rows"]) == ("row group", ROWS - judged)
    assert entry["reason"].startswith(
        f"unreadable row group 0 ({ROWS} rows per the footer; its first {judged} rows were judged)"
    )
    tally = {r["tally"]: r for r in of_status(rows, "tally") if r["tally"] in ("scope",)}
    assert (tally["scope"]["n"], tally["scope"]["rows"]) == (1, ROWS - judged)
    counted = sum(r["n"] for r in of_status(rows, "tally") if r["tally"] == "verdicts")
    assert counted == judged


def test_rows_judged_in_a_batch_that_then_fails_are_neither_emitted_nor_counted(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tasks_module.judge_chunk
    calls = 0

    def fails_on_the_second_batch(
        auditor: Auditor, rows: RowBuilder, path: str, first: int, chunk: pa.RecordBatch
    ) -> None:
        nonlocal calls
        calls += 1
        real(auditor, rows, path, first, chunk.slice(0, 7 if calls == 2 else chunk.num_rows))
        if calls == 2:
            raise OSError("the disk went away")

    monkeypatch.setattr(tasks_module, "judge_chunk", fails_on_the_second_batch)
    unit = plan_input(corpus).work[0]
    tally = Tally()
    emitted = pa.Table.from_batches(
        list(judge_row_group(Auditor(), RowBuilder(tally), unit, 100)), schema=ROW_SCHEMA
    )
    verdicts, (entry,) = of_status(emitted, "verdict"), of_status(emitted, "quarantined")
    assert len(verdicts) == 100  # the first batch; the 7 rows of the failed one are not kept
    assert entry["rows"] == unit["rows"] - 100 and "OSError: the disk went away" in entry["reason"]
    assert sum(tally.verdicts.values()) == 100
    assert tally.scopes == {"row group": [1, unit["rows"] - 100, None]}


# --- tallies ------------------------------------------------------------------------------------


def test_a_tally_sums_like_sql_a_sum_of_no_known_value_stays_null() -> None:
    tally = Tally()
    tally.add_quarantine("file without footer", "no footer", None, 100)
    tally.add_quarantine("file without footer", "no footer", None, 20)
    tally.add_quarantine("row", "body is null", 1, None)
    tally.add_quarantine("row group", "no footer", 40, None)
    rows = {(r["tally"], r["scope"] or r["reason"]): r for r in tally.batch().to_pylist()}
    no_footer = rows[("scope", "file without footer")]
    assert (no_footer["n"], no_footer["rows"], no_footer["bytes"]) == (2, None, 120)
    mixed = rows[("reason", "no footer")]
    assert (mixed["n"], mixed["rows"], mixed["bytes"]) == (3, 40, 120)
    row = rows[("scope", "row")]
    assert (row["n"], row["rows"], row["bytes"]) == (1, 1, None)
    assert {r["status"] for r in rows.values()} == {"tally"}


# --- input kinds ------------------------------------------------------------------------------


@pytest.fixture
def restore_kinds() -> Iterator[None]:
    before = list(INPUT_KINDS)
    yield
    INPUT_KINDS[:] = before


def test_a_new_input_kind_is_one_registration_asked_before_the_others(
    tmp_path: Path, restore_kinds: None
) -> None:
    def plan_lines(files: list[Path]) -> Plan:
        lines = [line for f in files if f.suffix == ".hexlines" for line in f.read_text().split()]
        return Plan("hexlines", lines, [], len(lines))

    kind = InputKind(
        "hexlines",
        lambda files: any(f.suffix == ".hexlines" for f in files),
        plan_lines,
        lambda *_args: None,  # its Spark frame
        lambda *_args: iter(()),  # the same task in process
        "lines",
    )
    register_input_kind(kind)
    (tmp_path / "a.hexlines").write_text("0300\n0201\n")
    (tmp_path / "b.parquet").write_bytes(b"not asked: the new kind claims the folder first")
    plan = plan_input(tmp_path)
    assert (plan.mode, plan.work, plan.rows_expected) == ("hexlines", ["0300", "0201"], 2)
    (tmp_path / "a.hexlines").write_text("")
    with pytest.raises(NothingToJudge, match=r"held 0 messages \(no lines\)"):
        check_work(plan_input(tmp_path), tmp_path)
    with pytest.raises(ValueError, match="already registered"):
        register_input_kind(kind)
    # (a kind its user registers, such as mqcn listen's "listen", comes after the built-in ones)
    assert [k.mode for k in INPUT_KINDS][:4] == ["hexlines", "capture", "parquet", "raw"]


def test_the_verdict_columns_are_the_auditors_values() -> None:
    row = Auditor().row("x", bytes.fromhex("0300"))
    assert tuple(row) == VERDICT_COLUMNS
    assert list(row["violations"]) == ["MQCN-2.2.4-1"] and row["server_reason"] == "malformed"
