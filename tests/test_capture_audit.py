"""``mqcn audit`` of captures: pcap/pcapng in, the same verdicts as a Parquet corpus out.

* a capture corpus (``corpus generate --format pcap``) audits to exactly the verdicts of the
  Parquet corpus of the same seed, message by message, plus where each message was (file,
  frames, TCP stream, capture time = the Parquet arrival time);
* damaged captures (those of tests/test_capture_bad_input.py) give one quarantine row per
  quarantined run, gap or refused UserMessage, with its reason, bytes and place; the
  balance holds and the exit code is 1;
* ``mqcn run --pcap`` then ``mqcn audit`` gives back, in order, the verdict ``mqcn decode``
  (``judge``) gives for every body the run put on the wire;
* detection (magic or name), a folder mixing captures and Parquet (refused), a capture
  without change notifications (exit 5), a file that cannot be read (quarantined).
"""

from __future__ import annotations

import io
import json
import re
import struct
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pytest
import typer
from capture_helpers import (
    QM,
    T0,
    envelope,
    frames,
    pcap,
    pcapng,
    segments,
    session_packets,
)
from cli_helpers import invoke, runner
from typer.testing import Result

import mqcn_suite.cli as cli
from mqcn_model.capture import Lost, Message, Packet, PcapWriter, Quarantine, iter_capture
from mqcn_model.constants import HashAlgorithm
from mqcn_model.envelope import Envelope
from mqcn_model.errata import STRICT
from mqcn_model.judge import judge
from mqcn_model.wire import encode_internal, encode_user_message, envelope_to_packet
from mqcn_model.wire.internal import connection_parameters
from mqcn_suite.pipeline.audit import VERDICT_COLUMNS, AuditResult, audit, plan_input
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.kinds import capture as capture_module
from mqcn_suite.pipeline.audit.kinds.capture import (
    C_FILES_UNREADABLE,
    CAPTURE_COLUMNS,
    SCOPE_CAPTURE_BYTES,
    SCOPE_CAPTURE_PACKET,
    is_capture,
    judge_capture,
)
from mqcn_suite.pipeline.audit.schema import QUARANTINE_COLUMNS
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.audit.tasks import RowBuilder
from mqcn_suite.pipeline.corpus import generate
from mqcn_suite.pipeline.session import PipelineError
from mqcn_suite.report.results import REPORT_PROPERTY

pytestmark = pytest.mark.spark

SEED = 31
COUNT = 1200
SHARE = 0.3
DOCS = Path(__file__).resolve().parent.parent / "docs"
# judged the same whichever the input: every verdict column but where the message came from
# and what only a packet carries (its wire and envelope findings)
SAME = [
    c
    for c in VERDICT_COLUMNS
    if c not in ("source", "findings", "finding_messages", *CAPTURE_COLUMNS)
]


def rows_of(folder: Path) -> list[dict[str, Any]]:
    return (
        ds.dataset(str(folder), format="parquet", ignore_prefixes=[".", "_"]).to_table().to_pylist()
    )


def summary_of(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


# --- a capture corpus audits like the Parquet corpus of its seed ------------------------------


@pytest.fixture(scope="module")
def both(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The Parquet and the pcap corpus of one seed, and their audits."""
    base = tmp_path_factory.mktemp("both")
    found = {}
    for kind in ("parquet", "pcap"):
        corpus, out = base / f"{kind}-corpus", base / f"{kind}-audit"
        generate(spark, COUNT, corpus, SHARE, SEED, kind)
        audit(spark, corpus, out)
        found[kind], found[f"{kind}-corpus"] = out, corpus
    return found


def test_a_capture_corpus_gives_the_verdicts_of_its_parquet_corpus(
    both: dict[str, Path],
) -> None:
    parquet = {r["message_id"]: r for r in rows_of(both["parquet"] / "verdicts")}
    capture = {r["message_id"]: r for r in rows_of(both["pcap"] / "verdicts")}
    assert len(parquet) == len(capture) == COUNT
    assert capture.keys() == parquet.keys()
    differing = [
        m for m in parquet if [parquet[m][c] for c in SAME] != [capture[m][c] for c in SAME]
    ]
    assert differing == []
    # the corpus is not all alike: the comparison covers verdicts of every kind
    assert {r["conforming"] for r in parquet.values()} == {True, False}
    assert len({r["server_reason"] for r in parquet.values()}) >= 3
    assert all(r[c] is None for r in parquet.values() for c in CAPTURE_COLUMNS)


def test_every_capture_verdict_says_where_the_message_was(both: dict[str, Path]) -> None:
    arrivals = {
        r["message_id"]: r["arrival_time"]
        for r in ds.dataset(str(both["parquet-corpus"]), format="parquet",
                            ignore_prefixes=[".", "_"]).to_table().to_pylist()
    }  # fmt: skip
    parts = {str(p.resolve()) for p in both["pcap-corpus"].glob("part-*.pcap")}
    stream = re.compile(r"^10\.\d+\.\d+\.\d+:\d+ -> 10\.\d+\.\d+\.\d+:1801$")
    for row in rows_of(both["pcap"] / "verdicts"):
        assert row["capture"] in parts and row["frames"] and stream.match(row["stream"])
        first, last = row["frames"][0], row["frames"][-1]
        where = f"frame={first}" if first == last else f"frames={first}-{last}"
        assert row["source"] == f"{row['capture']}#{where}"
        assert row["capture_time"] == arrivals[row["message_id"]]  # to the microsecond


def test_the_capture_summary_balances_messages_and_bytes(both: dict[str, Path]) -> None:
    capture, parquet = summary_of(both["pcap"]), summary_of(both["parquet"])
    for key in ("by_requirement", "by_version", "by_sender", "by_server_outcome"):
        assert capture[key] == parquet[key], key
    balance, block = capture["balance"], capture["capture"]
    assert capture["mode"] == "capture" and balance["balanced"] and block["bytes_balanced"]
    assert balance["rows_in"] == block["user_messages"] == block["change_notifications"] == COUNT
    assert balance["conforming"] + balance["non_conforming"] == COUNT
    assert balance["other_messages"] == balance["quarantined"] == 0
    assert balance["quarantine_entries"] == 0 and block["lost_bytes"] == 0
    assert block["files"] == 2 and block["formats"] == {"pcap": 2}
    sizes = sum(p.stat().st_size for p in both["pcap-corpus"].glob("part-*.pcap"))
    assert block["file_bytes"] == sizes and block["file_bytes_quarantined"] == 0
    assert block["streams"] == 2 * COUNT and block["frames_by_kind"] == {
        "tcp-1801": block["frames"]
    }
    assert block["packets_by_kind"]["UserMessage"] == COUNT
    assert block["packets_by_kind"]["EstablishConnection"] == 2 * COUNT
    assert block["stream_bytes"] == block["packet_bytes"] > 0
    line = (
        f"UserMessages found {COUNT} = conforming {balance['conforming']} + non-conforming "
        f"{balance['non_conforming']} + other messages 0 + quarantined 0; stream bytes "
        f"{block['stream_bytes']} = packets {block['packet_bytes']} + quarantined 0 + lost 0 "
        f"(2 capture files, {block['frames']} frames, {2 * COUNT} streams, 0 quarantine "
        f"entries); {block['messages_with_findings']} with wire or envelope findings"
    )
    page = (both["pcap"] / "summary.html").read_text()
    assert line in page and '<section id="capture">' in page and "Packets by kind" in page
    assert '<section id="capture">' not in (both["parquet"] / "summary.html").read_text()


# --- damaged captures -----------------------------------------------------------------------

SENT = [envelope(n) for n in range(1, 6)]
PACKETS = session_packets(SENT)
STREAM = b"".join(PACKETS)


def _offset(index: int) -> int:
    return sum(len(p) for p in PACKETS[:index])


def damaged_captures() -> dict[str, bytes]:
    """The damaged captures of tests/test_capture_bad_input.py, one file each, plus a file
    that is no capture and a UserMessage to another queue."""
    files: dict[str, bytes] = {}
    whole = pcap(frames(segments(STREAM, size=400)))
    files["truncated.pcap"] = whole[: len(whole) - 250]
    files["garbage.pcap"] = bytes(range(256)) * 40
    bogus = bytearray(PACKETS[3][:16])
    bogus[8:12] = struct.pack("<I", 0xFFFFFFFF)
    stream = b"".join(PACKETS[:3]) + bytes(bogus) + b"\x00" * 20 + b"".join(PACKETS[3:])
    files["packet-size-4gb.pcap"] = pcap(frames(segments(stream, size=300)))
    broken = bytearray(PACKETS[3])
    broken[4:8] = b"MIOR"
    stream = b"".join(PACKETS[:3]) + bytes(broken) + b"".join(PACKETS[4:])
    files["wrong-signature.pcap"] = pcap(frames(segments(stream)))
    segs = segments(STREAM, size=100)
    start = _offset(2) + 37
    files["mid-session.pcap"] = pcap(frames([s for s in segs[1:] if s.seq - 1001 >= start]))
    files["ends-inside-packet.pcap"] = pcap(frames(segments(STREAM, size=100, fin=False)[:-3]))
    http = b"GET /msmq/private$/orders HTTP/1.1\r\nHost: qm\r\n\r\n" * 300
    files["http-on-1801.pcapng"] = pcapng(frames(segments(http, size=1400)))
    missing = next(i for i, s in enumerate(segs) if s.seq - 1001 > _offset(3) + 10)
    files["gap.pcap"] = pcap(frames(segs[:missing] + segs[missing + 1 :]))
    cut = segments(STREAM, size=500)
    cut[3] = replace(cut[3], cut=300)
    files["snaplen.pcap"] = pcap(frames(cut), snaplen=len(frames(cut)[3].data))
    lying = bytearray(PACKETS[3])
    lying[8:12] = struct.pack("<I", len(PACKETS[3]) + 64)
    stream = b"".join(PACKETS[:3]) + bytes(lying) + b"".join(PACKETS[4:])
    files["lying-size.pcap"] = pcap(frames(segments(stream)))  # read, 64 bytes uncovered
    short = bytearray(PACKETS[3])
    short[8:12] = struct.pack("<I", 100)  # PacketSize ends inside the MessagePropertiesHeader
    stream = b"".join(PACKETS[:3]) + bytes(short) + b"".join(PACKETS[4:])
    files["cut-header.pcap"] = pcap(frames(segments(stream)))  # the refused UserMessage
    other = envelope(9, destination_format_name=f"PRIVATE={QM}\\5")
    files["other-queue.pcap"] = pcap(frames(segments(b"".join(session_packets([other, SENT[0]])))))
    files["notes.txt"] = b"not a capture, in a folder of captures\n"
    files.update(real_traffic())
    return files


def windows_acks(n: int) -> bytes:
    """A notification as a Windows sender was captured sending it: acknowledgment bits (PA,
    NA) in MessagePropertiesHeader.Flags and no administration queue (MQMQ-2.2.19.2-9)."""
    packet = envelope_to_packet(envelope(n))
    return encode_user_message(replace(packet, properties=replace(packet.properties, flags=0x5)))


def real_traffic() -> dict[str, bytes]:
    """Sessions of what real senders put on the wire: structurally sound, breaking a wire
    value rule or a 3.3.5.3 sender rule; and a message whose segments came out of order."""
    files = {}
    head = session_packets([envelope(20)])
    files["windows-acks.pcap"] = pcap(frames(segments(b"".join([*head, windows_acks(21)]))))
    sha256 = envelope(22, hash_algorithm=HashAlgorithm.SHA256)
    files["sha256.pcap"] = pcap(frames(segments(b"".join(session_packets([sha256])))))
    parameters = connection_parameters(5000, 20000, 64)
    parameters = replace(parameters, body=replace(parameters.body, reserved=0x1234))
    request, _, *rest = session_packets([envelope(24)])
    odd = b"".join([request, encode_internal(parameters), *rest])
    files["reserved-bits.pcap"] = pcap(frames(segments(odd)))
    segs = segments(b"".join(session_packets([envelope(23)])), size=120)
    segs[-2], segs[-3] = segs[-3], segs[-2]  # the message's end is captured before its middle
    segs = [replace(s, time=T0 + i) for i, s in enumerate(segs)]
    files["out-of-order.pcap"] = pcap(frames(segs))
    return files


def expected_rows(name: str, data: bytes, folder: Path) -> Counter[tuple[Any, ...]]:
    """What the reader says of one file: its quarantine rows as (capture, scope, reason, bytes)."""
    path = str((folder / name).resolve())
    rows: Counter[tuple[Any, ...]] = Counter()
    for record in iter_capture(path, [data]):
        if isinstance(record, Quarantine | Lost):
            rows[(path, SCOPE_CAPTURE_BYTES, record.reason, record.where.size)] += 1
        elif isinstance(record, Packet) and record.violation and record.kind == "UserMessage":
            reason = f"wire: {record.violation.requirement}"
            rows[(path, SCOPE_CAPTURE_PACKET, reason, record.where.size)] += 1
    return rows


@pytest.fixture(scope="module")
def damaged(
    app: typer.Typer, spark: Any, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, Result]:
    folder = tmp_path_factory.mktemp("damaged") / "captures"
    folder.mkdir()
    for name, data in damaged_captures().items():
        (folder / name).write_bytes(data)
    out = folder.parent / "audit"
    return folder, out, invoke(app, "audit", str(folder), "--out", str(out))


def test_damaged_captures_give_quarantine_rows_with_reasons_and_balance(
    damaged: tuple[Path, Path, Result],
) -> None:
    folder, out, result = damaged
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stderr == "" or "Traceback" not in result.stderr
    expected: Counter[tuple[Any, ...]] = Counter()
    for name, data in damaged_captures().items():
        expected += expected_rows(name, data, folder)
    rows = rows_of(out / "quarantine")
    found = Counter((r["capture"], r["scope"], r["reason"], r["bytes"]) for r in rows)
    assert found == expected
    reasons = {r["reason"] for r in rows}
    assert {"capture-truncated", "not-a-capture", "no-base-header", "mid-session-start",
            "stream-ends-inside-packet", "not-msmq", "gap", "snaplen", "packet-cut-by-gap"
            } <= reasons  # fmt: skip
    assert any(r.startswith("wire: MQMQ-") for r in reasons)  # the refused UserMessage
    for row in rows:
        assert row["detail"] and set(row) == set(QUARANTINE_COLUMNS)
        if row["scope"] == SCOPE_CAPTURE_PACKET:
            assert row["rows"] == 1 and row["frames"] and row["stream"]
        else:
            assert row["rows"] is None
    summary = summary_of(out)
    balance, block = summary["balance"], summary["capture"]
    assert balance["balanced"] and block["bytes_balanced"]
    assert block["files"] == len(damaged_captures())
    assert block["other_messages"] == 1 and balance["other_messages"] == 1
    assert balance["quarantined"] == block["user_messages_refused"] >= 1
    assert block["lost_bytes"] > 0 and block["quarantined_bytes"] > 0
    assert block["file_bytes_quarantined"] > 0  # garbage, notes.txt, the truncated tail
    assert result.stdout.strip().splitlines()[-1].startswith("UserMessages found ")
    listed = summary["quarantine"]["entries"]
    assert len(listed) == min(50, len(rows)) and all(e["detail"] and e["capture"] for e in listed)
    timed = [e for e in listed if e["capture_time"]]
    assert timed and all(e["capture_time"].endswith("+00:00") for e in timed)


def test_real_traffic_is_judged_by_destination_with_its_findings(
    damaged: tuple[Path, Path, Result],
) -> None:
    """A notification breaking a wire value rule (Windows' acknowledgments without an
    administration queue) or a sender rule (SHA-256) is judged as a notification, never
    quarantined nor counted as another message; its findings are in its verdict row and in
    the summary's table.  A message of out-of-order segments has the time of the frame that
    completed it."""
    _, out, _ = damaged
    verdicts = {r["message_id"]: r for r in rows_of(out / "verdicts")}
    acks = verdicts[envelope(21).message_id.to_bytes()]
    body_verdict = judge(envelope(21).body, STRICT)  # the findings leave the body's verdict
    assert acks["findings"] == ["MQMQ-2.2.19.2-9"]
    assert acks["conforming"] is body_verdict.conforming
    assert acks["violations"] == list(body_verdict.requirements)
    assert acks["finding_messages"][0].startswith("MQMQ-2.2.19.2-9 at byte ")
    sha256 = verdicts[envelope(22).message_id.to_bytes()]
    assert sha256["findings"] == ["MQCN-3.3.5.3-5"]
    assert "SHA256" in sha256["finding_messages"][0]
    assert verdicts[envelope(20).message_id.to_bytes()]["findings"] == []
    late = verdicts[envelope(23).message_id.to_bytes()]
    frames_of = late["frames"]
    assert frames_of == sorted(frames_of)
    completed = T0 + frames_of[-1] - 1  # frame k was captured at T0 + k - 1
    assert late["capture_time"].timestamp() == completed
    summary = summary_of(out)
    table = {r["requirement"]: r for r in summary["findings_by_requirement"]}
    acks_row = table["MQMQ-2.2.19.2-9"]
    assert acks_row["kind"] == "wire" and acks_row["rule"] == "value" and acks_row["messages"] == 1
    assert table["MQCN-3.3.5.3-5"]["kind"] == "envelope"
    block = summary["capture"]
    # the two above and the lying PacketSize's message: read, its 64 uncovered bytes a finding
    assert block["messages_with_findings"] == 3 and block["other_messages"] == 1
    assert table["MQMQ-2.2.19.1-3"]["messages"] == 1 and table["MQMQ-2.2.19.1-3"]["kind"] == "wire"
    # a packet that is no change notification: decoded, its finding counted
    assert block["packet_findings_by_requirement"] == {"MQQB-2.2.2.1-3": 1}
    assert verdicts[envelope(24).message_id.to_bytes()]["findings"] == []
    page = (out / "summary.html").read_text()
    assert "Wire and envelope findings by requirement" in page and "MQMQ-2.2.19.2-9" in page


def test_damaged_captures_judge_every_message_the_reader_found(
    damaged: tuple[Path, Path, Result],
) -> None:
    folder, out, _ = damaged
    expected = Counter()
    for name, data in damaged_captures().items():
        path = str((folder / name).resolve())
        for record in iter_capture(path, [data]):
            if isinstance(record, Message):
                expected[(path, record.envelope.message_id.to_bytes(), record.where.frames)] += 1
    verdicts = rows_of(out / "verdicts")
    found = Counter((r["capture"], r["message_id"], tuple(r["frames"])) for r in verdicts)
    assert found == expected and len(verdicts) > 20


# --- run --pcap, then audit ------------------------------------------------------------------


def recorded(report: Path) -> list[Envelope]:
    """The envelopes the run recorded (junit.xml): delivered, then sent, scenario by scenario."""
    envelopes: list[Envelope] = []
    for prop in ET.parse(report / "junit.xml").iter("property"):
        if prop.get("name") == REPORT_PROPERTY:
            world = json.loads(prop.get("value") or "{}")
            envelopes += [Envelope.from_json(e) for e in world["sent"]]
            envelopes += [Envelope.from_json(e) for e in world["emitted"]]
    return envelopes


def carried(envelope: Envelope) -> bool:
    try:
        PcapWriter().write(envelope)
    except ValueError:
        return False
    return True


def test_run_pcap_then_audit_gives_the_verdicts_of_the_runs_bodies(
    app: typer.Typer, spark: Any, tmp_path: Path
) -> None:
    capture, report, out = tmp_path / "run.pcap", tmp_path / "report", tmp_path / "a"
    run = runner.invoke(
        cli.app,
        ["run", "--pcap", str(capture), "--report", str(report), "--", "-q", "-p",
         "no:randomly", "-m", "MQCN-3.2.5.1-2 or MQCN-3.3.5.3-13 or MQCN-2.2.4-1"],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    result = invoke(app, "audit", str(capture), "--out", str(out))
    assert result.exit_code in (0, 1), (result.stdout, result.stderr)
    wire = [e for e in recorded(report) if carried(e)]
    expected = []
    for e in wire:
        verdict = judge(e.body, STRICT)
        violations = list(dict.fromkeys(v.requirement for v in verdict.violations))
        expected.append((e.message_id.to_bytes(), verdict.conforming, violations))
    verdicts = sorted(rows_of(out / "verdicts"), key=lambda r: r["frames"][0])
    found = [(r["message_id"], r["conforming"], r["violations"]) for r in verdicts]
    assert found == expected
    assert {c for _, c, _ in found} == {True, False}  # the subset has both kinds
    balance = summary_of(out)["balance"]
    assert balance["rows_in"] == len(wire) and balance["balanced"]
    assert result.exit_code == (0 if all(c for _, c, _ in found) else 1)


# --- detection, mixed folders, empty captures, unreadable files ------------------------------


def test_a_capture_is_known_by_its_magic_or_its_name(tmp_path: Path) -> None:
    header = pcap([])
    for name, data in [
        ("a.bin", header),  # pcap, little-endian microseconds
        ("b.bin", header[:4][::-1] + header[4:]),  # big-endian
        ("c.bin", bytes.fromhex("a1b23c4d") + header[4:]),  # nanoseconds
        ("d.bin", bytes.fromhex("0a0d0d0a") + bytes(24)),  # pcapng
        ("e.PCAPNG", b""),
        ("f.cap", b"x"),
    ]:
        (tmp_path / name).write_bytes(data)
        assert is_capture(tmp_path / name), name
    (tmp_path / "g.bin").write_bytes(bytes.fromhex("0201") + bytes(40))  # a message body
    assert not is_capture(tmp_path / "g.bin")
    assert plan_input(tmp_path).mode == "capture"
    assert plan_input(tmp_path / "a.bin").mode == "capture"
    assert plan_input(tmp_path / "g.bin").mode == "raw"


def test_a_folder_mixing_captures_and_parquet_is_refused_in_one_line(
    app: typer.Typer, tmp_path: Path
) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "x.pcap").write_bytes(pcap([]))
    (tmp_path / "in" / "y.parquet").write_bytes(b"PAR1")
    with pytest.raises(PipelineError, match="mixes 1 capture or other file"):
        plan_input(tmp_path / "in")
    result = invoke(app, "audit", str(tmp_path / "in"), "--out", str(tmp_path / "a"))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "audit each kind on its own" in result.stderr and not (tmp_path / "a").exists()


def test_a_capture_without_change_notifications_judges_nothing_exit_5(
    app: typer.Typer, spark: Any, tmp_path: Path
) -> None:
    other = envelope(9, destination_format_name=f"PRIVATE={QM}\\5")
    (tmp_path / "other.pcap").write_bytes(
        pcap(frames(segments(b"".join(session_packets([other])))))
    )
    result = invoke(app, "audit", str(tmp_path / "other.pcap"), "--out", str(tmp_path / "a"))
    assert result.exit_code == 5, (result.stdout, result.stderr)
    assert result.stderr.strip().splitlines() == [
        f"mqcn audit: INPUT: {tmp_path / 'other.pcap'} held 0 change notifications (1 capture "
        "file(s), 3 frames, 1 UserMessage(s) to other queues): nothing was judged"
    ]
    assert summary_of(tmp_path / "a")["capture"]["other_messages"] == 1


def test_only_a_capture_audit_can_end_having_judged_nothing() -> None:
    def result(mode: str, **counts: int) -> AuditResult:
        base = {"conforming": 0, "non_conforming": 0, "quarantined": 0}
        return AuditResult("out", mode, 0, **{**base, **counts}, summary={}, seconds=0.0)

    assert result("capture").nothing_judged
    assert not result("capture", quarantine_entries=1).nothing_judged  # bytes set aside
    assert not result("capture", non_conforming=1).nothing_judged
    # a Parquet corpus whose every row group was unreadable judged nothing, yet set rows aside
    assert not result("parquet", quarantined=5).nothing_judged
    assert not result("parquet", files_without_footer=1).nothing_judged


def test_a_capture_that_cannot_be_read_is_quarantined_not_lost(tmp_path: Path) -> None:
    rows = RowBuilder(Tally())
    batches = list(judge_capture(Auditor(), rows, str(tmp_path / "vanished.pcap")))
    (entry,) = batches[0].to_pylist()
    assert (entry["status"], entry["scope"], entry["reason"]) == (
        "quarantined",
        SCOPE_CAPTURE_BYTES,
        "unreadable",
    )
    assert entry["detail"].startswith("cannot open it: No such file")
    assert rows.tally.counters == {C_FILES_UNREADABLE: 1}


def test_a_capture_whose_reading_fails_keeps_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read error half-way (a disk, a network filesystem): the records of what was read
    stand, and the bytes not read are one quarantine entry."""
    data = pcap(frames(segments(STREAM, size=200)))
    path = tmp_path / "failing.pcap"
    path.write_bytes(data)

    class Failing(io.FileIO):
        def read(self, size: int = -1) -> bytes:
            if self.tell() >= 1000:
                raise OSError(5, "Input/output error")
            return super().read(min(size, 1000))

    monkeypatch.setattr(capture_module, "open", lambda name, _mode: Failing(name), raising=False)
    rows = RowBuilder(Tally())
    out = pa.Table.from_batches(list(judge_capture(Auditor(), rows, str(path), chunk=1000)))
    entries = [r for r in out.to_pylist() if r["status"] == "quarantined"]
    unread = [e for e in entries if e["reason"] == "unreadable"]
    assert len(unread) == 1 and unread[0]["bytes"] == len(data) - 1000
    assert unread[0]["detail"] == "reading failed after 1000 bytes: Input/output error"
    assert unread[0]["source"] == f"{path}@1000"
    assert rows.tally.counters[C_FILES_UNREADABLE] == 1
    assert rows.tally.counters["file_bytes"] == 1000  # the reader saw the first 1000 bytes


def test_the_docs_list_every_verdict_and_quarantine_column() -> None:
    text = (DOCS / "corpus-format.md").read_text()
    for column in (*VERDICT_COLUMNS, *QUARANTINE_COLUMNS):
        assert f"| `{column}` |" in text, column
    for scope in (SCOPE_CAPTURE_BYTES, SCOPE_CAPTURE_PACKET):
        assert f"`{scope}`" in text
