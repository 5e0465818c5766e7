"""``mqcn corpus generate --format pcap``: the synthetic corpus as capture files.

The capture corpus of a seed holds exactly the messages of the Parquet corpus of that seed:
read back with :func:`mqcn_model.capture.iter_capture`, every part file gives the
(Envelope, body) pairs of the Parquet rows — arrival times to the microsecond included —
modulo what the wire cannot say (docs/capture.md: a signature reads back as Sig20), with
nothing quarantined or lost and every stream balanced.  Messages the wire cannot carry are
counted and named; the files are written a message at a time; a bad ``--format`` or an
``--out`` the executors cannot share is one line and exit 2 before Spark starts.
"""

from __future__ import annotations

import json
import tracemalloc
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import typer
from capture_helpers import balanced, capture_end, messages, quarantined
from cli_helpers import invoke, one_line_error

import mqcn_suite.pipeline.corpus_rows as corpus_rows
from mqcn_model.capture import Lost, Record, iter_capture
from mqcn_model.constants import AuthLevel, SenderIdType
from mqcn_model.envelope import Envelope, MessageId
from mqcn_suite.commands.pipeline import _generate_line
from mqcn_suite.pipeline.capture_corpus import part_name, write_part, write_parts
from mqcn_suite.pipeline.corpus import generate, read_corpus
from mqcn_suite.pipeline.corpus_rows import CorpusResult

pytestmark = pytest.mark.spark

SEED = 23
COUNT = 1500
SHARE = 0.3


def read_file(path: Path) -> list[Record]:
    """A capture file read as ``mqcn audit`` will: 1 MiB chunks."""
    with path.open("rb") as stream:
        return list(iter_capture(path.name, iter(lambda: stream.read(1 << 20), b"")))


def from_row(row: dict[str, Any]) -> Envelope:
    """The Envelope of a Parquet corpus row (every column)."""

    def member(kind: Any, name: str) -> Any:
        return kind.__members__.get(name) or kind.__members__[f"{name}_"]

    sender = row["sender_identifier"]
    arrival = row["arrival_time"]
    return Envelope(
        row["body"],
        MessageId.from_bytes(row["message_id"]),
        sender_identifier=uuid.UUID(sender) if sender is not None else None,
        sender_identifier_type=member(SenderIdType, row["sender_identifier_type"]),
        authentication_level=member(AuthLevel, row["authentication_level"]),
        destination_format_name=row["destination_format_name"],
        arrival_time=arrival.timestamp(),
    )


def on_the_wire(envelope: Envelope) -> Envelope:
    """What a UserMessage Packet says of ``envelope`` (docs/capture.md): that it is signed,
    not with which signature (Always and Sig10 read back as Sig20, errata W-05)."""
    if envelope.authentication_level in (AuthLevel.Always, AuthLevel.Sig10):
        return envelope.with_(authentication_level=AuthLevel.Sig20)
    return envelope


def microseconds(envelope: Envelope) -> Envelope:
    return envelope.with_(arrival_time=round(envelope.arrival_time * 1_000_000))


@pytest.fixture(scope="module")
def pcap_corpus(app: typer.Typer, spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pcap") / "c"
    result = invoke(
        app, "corpus", "generate", "--count", str(COUNT), "--out", str(out), "--seed",
        str(SEED), "--invalid-share", str(SHARE), "--format", "pcap",
    )  # fmt: skip
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stdout.startswith(f"wrote {COUNT} of {COUNT} messages (30% drawn")
    assert "as MS-MQQB sessions in 2 capture files" in result.stdout
    return out


@pytest.fixture(scope="module")
def parquet_rows(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("parquet") / "c"
    generate(spark, COUNT, out, SHARE, SEED)
    table: pa.Table = read_corpus(out)
    return sorted(table.to_pylist(), key=lambda row: row["message_id"][16:][::-1])


def test_a_pcap_corpus_holds_exactly_the_parquet_corpus_of_its_seed(
    pcap_corpus: Path, parquet_rows: list[dict[str, Any]]
) -> None:
    files = sorted(p.name for p in pcap_corpus.iterdir())
    assert files == ["_mqcn_corpus.json", part_name(0), part_name(1)]
    found = []
    for name in files[1:]:
        records = read_file(pcap_corpus / name)
        assert quarantined(records) == [] and not any(isinstance(r, Lost) for r in records)
        assert balanced(records)
        end = capture_end(records)
        assert end.quarantined_bytes == 0 and end.bytes == (pcap_corpus / name).stat().st_size
        found += [(microseconds(m.envelope), m.body) for m in messages(records)]
    expected = [(microseconds(on_the_wire(from_row(row))), row["body"]) for row in parquet_rows]
    assert len(found) == COUNT
    assert found == expected  # the same messages, in row order, arrival times included
    # the normalisation matters: the corpus does draw AuthenticationLevel Always
    assert any(row["authentication_level"] == "Always" for row in parquet_rows)


def test_the_manifest_says_pcap_and_counts(pcap_corpus: Path) -> None:
    manifest = json.loads((pcap_corpus / "_mqcn_corpus.json").read_text())
    sizes = sum((pcap_corpus / part_name(i)).stat().st_size for i in range(2))
    assert manifest["manifest"] == "mqcn-corpus" and manifest["format"] == "pcap"
    assert manifest["rows"] == manifest["messages"] == COUNT
    assert manifest["unwritable"] == 0 and manifest["first_unwritable"] is None
    assert manifest["files"] == 2 and manifest["bytes"] == sizes
    assert manifest["seed"] == SEED and manifest["invalid_share"] == SHARE


def test_a_part_is_the_same_bytes_for_the_same_rows(
    pcap_corpus: Path, tmp_path: Path, spark: Any
) -> None:
    """Deterministic: the executor's file equals the same rows written in this process."""
    first = (pcap_corpus / part_name(0)).read_bytes()
    rows = sum(1 for r in read_file(pcap_corpus / part_name(0)) if type(r).__name__ == "Message")
    part = write_part(str(tmp_path), 0, range(rows), seed=SEED, invalid_share=SHARE)
    assert (tmp_path / part_name(0)).read_bytes() == first
    assert part.rows == part.messages == rows and part.bytes == len(first)


def test_messages_the_wire_cannot_carry_are_counted_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = corpus_rows.corpus_message

    def some_xmldsig(row: int, seed: int, share: float) -> tuple[int, Envelope]:
        arrival, env = drawn(row, seed, share)
        if row % 3 == 1:
            env = env.with_(authentication_level=AuthLevel.XMLDSig)
        return arrival, env

    monkeypatch.setattr(corpus_rows, "corpus_message", some_xmldsig)
    part = write_part(str(tmp_path), 4, range(10, 22), seed=1, invalid_share=0.0)
    assert (part.rows, part.messages, part.unwritable) == (12, 8, 4)
    assert part.first_unwritable is not None and part.first_unwritable.startswith("row 10: ")
    assert "SRMP" in part.first_unwritable
    records = read_file(tmp_path / part_name(4))
    sequences = [m.envelope.message_id.sequence for m in messages(records)]
    assert sequences == [r for r in range(10, 22) if r % 3 != 1]
    result = CorpusResult(
        path="c", rows=12, partitions=1, files=1, seed=1, invalid_share=0.0, seconds=0.1,
        format="pcap", messages=8, unwritable=4, first_unwritable=part.first_unwritable,
        bytes=part.bytes,
    )  # fmt: skip
    line = _generate_line(result, 0.1)  # (the wall time of the command)
    assert line.startswith("wrote 8 of 12 messages")
    assert line.endswith(f"; 4 the wire cannot carry, not written (first: {part.first_unwritable})")


def test_a_part_is_written_a_message_at_a_time(tmp_path: Path) -> None:
    """Memory does not grow with the file: 10x the messages, about the same peak."""
    write_part(str(tmp_path), 0, range(20), seed=2, invalid_share=0.1)  # warm the caches

    def peak(rows: int, index: int) -> int:
        tracemalloc.start()
        try:
            write_part(str(tmp_path), index, range(rows), seed=2, invalid_share=0.1)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(200, 1), peak(2000, 2)
    assert (tmp_path / part_name(2)).stat().st_size > 5_000_000
    assert large < small * 1.5 + 200_000, (small, large)


def test_a_failed_task_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = corpus_rows.corpus_message

    def breaks(row: int, seed: int, share: float) -> tuple[int, Envelope]:
        if row == 5:
            raise RuntimeError("executor lost")
        return drawn(row, seed, share)

    monkeypatch.setattr(corpus_rows, "corpus_message", breaks)
    with pytest.raises(RuntimeError, match="executor lost"):
        write_part(str(tmp_path), 0, range(10), seed=1, invalid_share=0.0, attempt=3)
    assert list(tmp_path.iterdir()) == []


def test_an_executor_without_the_folder_says_it_must_be_shared(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="filesystem the driver and every executor share"):
        write_part(str(tmp_path / "absent"), 0, range(3), seed=1, invalid_share=0.0)


class _Elsewhere:
    """A SparkContext stand-in whose 'executor' writes then loses its file (another disk)."""

    def parallelize(self, rows: range, partitions: int) -> _Elsewhere:
        self.rows = rows
        return self

    def mapPartitionsWithIndex(self, task: Any) -> _Elsewhere:
        self.task = task
        return self

    def collect(self) -> list[dict[str, Any]]:
        done = list(self.task(0, iter(self.rows)))
        for part in done:
            (self.folder / part["file"]).unlink()
        return done


def test_files_the_driver_cannot_see_are_one_line(tmp_path: Path) -> None:
    from mqcn_suite.pipeline.session import PipelineError

    context = _Elsewhere()
    context.folder = tmp_path
    spark = type("Spark", (), {"sparkContext": context})()
    with pytest.raises(PipelineError, match=r"the driver does not see part-00000\.pcap"):
        write_parts(spark, 3, tmp_path, 1, seed=1, invalid_share=0.0)


def test_a_bad_format_is_one_line(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "c"
    line = one_line_error(
        invoke(app, "corpus", "generate", "--count", "3", "--out", str(out), "--format", "pcapng")
    )
    assert line == "mqcn corpus generate: error: --format: 'pcapng' is not one of parquet, pcap"
    assert not out.exists()


def test_a_hadoop_uri_is_refused_for_pcap(app: typer.Typer) -> None:
    line = one_line_error(
        invoke(app, "corpus", "generate", "--count", "3", "--out", "hdfs://nn/c", "--format",
               "pcap")
    )  # fmt: skip
    assert line.startswith("mqcn corpus generate: error: --out: hdfs://nn/c: capture files")
    assert "file:// URI on a filesystem the driver and every executor share" in line


def test_a_file_uri_is_a_local_folder(app: typer.Typer, spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "c"
    result = invoke(
        app, "corpus", "generate", "--count", "5", "--out", f"file://{out}", "--format", "pcap",
        "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["format"] == "pcap" and document["messages"] == 5
    assert document["path"] == str(out) and (out / part_name(0)).is_file()
