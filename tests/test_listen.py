"""``mqcn listen``: a queue manager on a port judging what real sessions send it.

The messages are the synthetic corpus's (conforming and not); they go over real MS-MQQB
sessions (:func:`mqcn_suite.transport.connect`) on 127.0.0.1, and the verdict rows must be
the ones ``mqcn audit`` gives for a capture of the same messages (apart from where each was).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import mqcn_suite.pipeline.audit.schema as schema
from mqcn_model.capture.writer import PcapWriter
from mqcn_model.envelope import Envelope
from mqcn_model.wire.mapping import envelope_to_packet
from mqcn_model.wire.usermessage import encode_user_message
from mqcn_suite.pipeline.audit import audit
from mqcn_suite.pipeline.corpus_rows import corpus_message
from mqcn_suite.pipeline.listening import SCOPE_SESSION, ListenAudit
from mqcn_suite.transport import Listener, connect

SEED, ROWS, INVALID = 7, 12, 0.4
ROOT = Path(__file__).resolve().parents[1]


def corpus(rows: int = ROWS) -> list[Envelope]:
    """Corpus rows 0..rows-1: conforming and malformed bodies, varied envelopes."""
    return [corpus_message(row, SEED, INVALID)[1] for row in range(rows)]


def to_another_queue(envelope: Envelope) -> Envelope:
    """The same message sent to a private queue that is not the notification queue."""
    qm = uuid.UUID(int=0x51)
    return envelope.with_(destination_format_name=f"PRIVATE={qm}\\0000002a")


def _without_where(rows: list[dict]) -> list[dict]:
    """Verdict rows without the columns that say where a message was."""
    where = {"source", *schema.PROVENANCE_COLUMNS}
    kept = [{k: v for k, v in row.items() if k not in where} for row in rows]
    return sorted(kept, key=lambda row: row["message_id"])


def _listen(out: Path, envelopes: list[Envelope]) -> tuple[dict, int]:
    """Send ``envelopes`` over one session to a listener judging into ``out``: the summary,
    and the port it listened on."""
    judged = ListenAudit(out)
    with Listener(on_message=judged.on_message) as listener:
        with connect(listener.host, listener.port) as session:
            for envelope in envelopes:
                session.send_and_wait(envelope, 5.0)
        listener.wait_for_sessions(1, 5.0)
        judged.account_sessions(listener.sessions, all_of_them=True)
    summary = judged.finish(f"{listener.host}:{listener.port}", time.perf_counter())
    return summary, listener.port


def test_rows_equal_the_audit_of_a_capture_of_the_same_messages(tmp_path: Path) -> None:
    envelopes = corpus()
    other = to_another_queue(envelopes[0])
    summary, _ = _listen(tmp_path / "listen", [*envelopes, other])
    writer = PcapWriter(session="message")
    capture = tmp_path / "same.pcap"
    capture.write_bytes(b"".join(writer.write(e) for e in [*envelopes, other]) + writer.close())
    audited = audit(None, capture, tmp_path / "audit")

    listened = pq.read_table(tmp_path / "listen" / "verdicts").to_pylist()
    captured = pq.read_table(tmp_path / "audit" / "verdicts").to_pylist()
    assert len(listened) == ROWS
    assert _without_where(listened) == _without_where(captured)
    assert {r["conforming"] for r in listened} == {True, False}  # both kinds were sent
    balance = summary["balance"]
    assert balance["rows_in"] == ROWS + 1 and balance["other_messages"] == 1
    assert balance["balanced"] and balance["quarantine_entries"] == 0
    assert audited.other_messages == 1
    assert balance["conforming"] == audited.conforming
    assert balance["non_conforming"] == audited.non_conforming
    assert summary["by_requirement"] == audited.summary["by_requirement"]
    assert summary["findings_by_requirement"] == audited.summary["findings_by_requirement"]
    assert (tmp_path / "listen" / "summary.html").read_text().count("UserMessages received") >= 1


def test_every_row_says_which_session_and_when(tmp_path: Path) -> None:
    before = time.time()
    _, port = _listen(tmp_path, corpus(2))
    rows = pq.read_table(tmp_path / "verdicts").to_pylist()
    assert [r["source"].rsplit("&", 1)[1] for r in rows] == ["seq=1", "seq=2"]
    assert all(r["source"].startswith("mqqb://127.0.0.1:") for r in rows)
    peer = rows[0]["source"].removeprefix("mqqb://").split("#")[0]
    assert {r["stream"] for r in rows} == {f"{peer} -> 127.0.0.1:{port}"}
    assert all(r["capture_time"].timestamp() >= before - 1 for r in rows)
    assert all(r["capture"] is None and r["frames"] is None for r in rows)


def test_garbage_and_a_cut_packet_are_quarantined_and_the_listener_goes_on(
    tmp_path: Path,
) -> None:
    judged = ListenAudit(tmp_path)
    envelope = corpus(1)[0]
    with Listener(on_message=judged.on_message) as listener:
        with socket.create_connection((listener.host, listener.port)) as raw:
            raw.sendall(b"GET / HTTP/1.0\r\n\r\n")
            raw.shutdown(socket.SHUT_WR)
            raw.recv(100)  # the listener closes it
        cut = connect(listener.host, listener.port)
        packet = encode_user_message(envelope_to_packet(envelope))
        cut.sock.sendall(packet[: len(packet) // 2])
        cut.sock.shutdown(socket.SHUT_RDWR)
        cut.close()
        with connect(listener.host, listener.port) as good:
            good.send_and_wait(envelope, 5.0)
        listener.wait_for_sessions(3, 5.0)
        judged.account_sessions(listener.sessions, all_of_them=True)
    summary = judged.finish("here", time.perf_counter())
    aside = pq.read_table(tmp_path / "quarantine").to_pylist()
    assert [(q["scope"], q["rows"]) for q in aside] == [(SCOPE_SESSION, None)] * 2
    reasons = sorted(q["reason"] for q in aside)
    assert reasons == ["session: NotMsmq", "session: PartialPacket"]
    garbage = next(q for q in aside if q["reason"] == "session: NotMsmq")
    assert garbage["bytes"] == len(b"GET / HTTP/1.0\r\n\r\n")
    assert "MS-MQQB session" in garbage["detail"] and "<-" in garbage["detail"]  # transcript
    assert pq.read_table(tmp_path / "verdicts").num_rows == 1
    balance = summary["balance"]
    assert balance["quarantine_entries"] == 2 and balance["rows_in"] == 1 and balance["balanced"]
    assert summary["listen"]["sessions"] == 3 and summary["listen"]["sessions_failed"] == 2


# --- the command ----------------------------------------------------------------------------


def _mqcn(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "mqcn_suite", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


@pytest.fixture
def started(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str, int, Path]]:
    """``mqcn listen --port 0`` running until it stops (or 30 s); its address first."""
    report = tmp_path / "report"
    process = _mqcn("listen", "--port", "0", "--report", str(report), "--seconds", "30")
    assert process.stdout is not None
    first = process.stdout.readline().strip()
    assert first.startswith("listening on 127.0.0.1:"), first
    host, port = first.removeprefix("listening on ").rsplit(":", 1)
    yield process, host, int(port), report
    if process.poll() is None:
        process.kill()
        process.wait()


def test_the_command_prints_one_line_per_message_and_stops_after_count(tmp_path: Path) -> None:
    report = tmp_path / "report"
    process = _mqcn("listen", "--port", "0", "--report", str(report), "--count", "3")
    assert process.stdout is not None
    first = process.stdout.readline().strip()
    host, port = first.removeprefix("listening on ").rsplit(":", 1)
    envelopes = corpus(3)
    with connect(host, int(port)) as session:
        for envelope in envelopes:
            session.send_and_wait(envelope, 5.0)  # each acknowledged, the last one too
    out, err = process.communicate(timeout=30)
    lines = out.splitlines()
    assert len(lines) == 4, out + err
    verdicts = pq.read_table(report / "verdicts").to_pylist()
    for line, row in zip(lines[:3], verdicts, strict=True):
        assert line.split()[0] == ("conforming" if row["conforming"] else "non-conforming")
        assert row["source"] in line
        assert all(rid in line for rid in row["violations"])
    assert lines[3].startswith("UserMessages received 3 = ")
    summary = json.loads((report / "summary.json").read_text())
    assert summary["mode"] == "listen" and summary["balance"]["rows_in"] == 3
    found = any(not r["conforming"] or r["findings"] for r in verdicts)
    assert process.returncode == (1 if found else 0)


def test_ctrl_c_writes_what_arrived_and_exits_130(
    started: tuple[subprocess.Popen[str], str, int, Path],
) -> None:
    process, host, port, report = started
    with connect(host, port) as session:
        session.send_and_wait(corpus(1)[0], 5.0)
    time.sleep(0.3)  # the line is printed on the loop's next look
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "interrupted" in err
    assert json.loads((report / "summary.json").read_text())["balance"]["rows_in"] == 1
    assert pq.read_table(report / "verdicts").num_rows == 1
    assert out.splitlines()[-1].startswith("UserMessages received 1 = ")


def test_a_port_it_cannot_bind_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = _mqcn("listen", "--port", str(port), "--report", str(tmp_path / "r"))
        out, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert err.strip().count("\n") == 0 and f"cannot listen on 127.0.0.1:{port}" in err
    assert out == "" and not (tmp_path / "r" / "verdicts").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--port", "70000"], "not a TCP port"),
        (["--port", "0", "--count", "0"], "--count 0: must be at least 1"),
        (["--port", "0", "--seconds", "-1"], "--seconds"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(tmp_path: Path, args: list[str], words: str) -> None:
    process = _mqcn("listen", *args, "--report", str(tmp_path / "r"))
    _, err = process.communicate(timeout=30)
    assert process.returncode == 2 and words in err and err.strip().count("\n") == 0


def test_seconds_stops_it_and_nothing_received_is_nothing_judged(tmp_path: Path) -> None:
    report = tmp_path / "r"
    process = _mqcn("listen", "--port", "0", "--report", str(report), "--seconds", "0.5")
    out, err = process.communicate(timeout=30)
    assert process.returncode == 5, err
    assert "received 0 change notifications (0 sessions" in err
    assert "nothing was judged" in err and err.strip().count("\n") == 0
    assert out.splitlines()[-1].startswith("UserMessages received 0 = ")
    assert json.loads((report / "summary.json").read_text())["listen"]["sessions"] == 0


def test_a_report_folder_that_is_not_empty_is_refused(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "old.txt").write_text("x")
    process = _mqcn("listen", "--port", "0", "--report", str(tmp_path / "r"))
    out, err = process.communicate(timeout=30)
    assert process.returncode == 2 and out == "" and err.strip().count("\n") == 0
    assert f"mqcn listen: error: --report: {tmp_path / 'r'} exists" in err


def test_sessions_sending_at_once_lose_no_message(tmp_path: Path) -> None:
    envelopes = corpus(16)
    judged = ListenAudit(tmp_path)
    with Listener(on_message=judged.on_message) as listener:

        def send(part: list[Envelope]) -> None:
            with connect(listener.host, listener.port) as session:
                for envelope in part:
                    session.send_and_wait(envelope, 5.0)

        threads = [threading.Thread(target=send, args=(envelopes[i::2],)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        listener.wait_for_sessions(2, 5.0)
        judged.account_sessions(listener.sessions, all_of_them=True)
    summary = judged.finish("here", time.perf_counter())
    rows = pq.read_table(tmp_path / "verdicts").to_pylist()
    assert sorted(r["message_id"] for r in rows) == sorted(
        e.message_id.to_bytes() for e in envelopes
    )
    assert summary["balance"]["rows_in"] == 16 and summary["balance"]["balanced"]
    assert summary["listen"]["sessions"] == 2


def test_it_judges_what_a_transport_mode_client_sends(tmp_path: Path) -> None:
    """The reference's client in transport mode (``reference:mqqb``), pointed by start_client
    at ``mqcn listen``: the notification it sends over its own MS-MQQB session is judged there,
    conforming, and nothing else is counted."""
    from mqcn_suite.scenarios.fixtures import QUEUE_GUID, existing_queue
    from mqcn_suite.targets.reference_mqqb import MqqbReferenceTarget
    from mqcn_suite.world import World

    report = tmp_path / "report"
    process = _mqcn("listen", "--port", "0", "--report", str(report), "--count", "1")
    assert process.stdout is not None
    host, port = process.stdout.readline().strip().removeprefix("listening on ").rsplit(":", 1)

    class ToListen(MqqbReferenceTarget):
        def start_client(
            self, destination: Any, queue_manager: dict[str, Any] | None = None
        ) -> Any:
            return super().start_client(destination, {"host": host, "port": int(port)})

    target = ToListen()
    try:
        world = World(target=target)
        world.publish_queue(existing_queue())
        world.start_client()
        target.send_change_notification("QueueCreation", QUEUE_GUID, [])
        out, err = process.communicate(timeout=30)
    finally:
        target.close()
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, out + err
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("conforming "), out
    assert lines[1].startswith("UserMessages received 1 = conforming 1 "), out
    (row,) = pq.read_table(report / "verdicts").to_pylist()
    assert row["conforming"] and not row["violations"]
