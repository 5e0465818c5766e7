"""``mqcn run --pcap FILE`` (plugin option ``--mqcn-pcap``): the run's messages as a capture.

Every message a scenario delivers to the target and every message the target's client sends
is written as an MS-MQQB session; the capture reader gives back exactly those messages —
the ones the world recorded for the report (junit.xml carries them), in order — with nothing
quarantined.  An Envelope no MS-MQQB session can carry (an XML digital signature) is counted
and named, not written.  Under pytest-xdist the workers' parts are joined into FILE.
"""

from __future__ import annotations

import itertools
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from capture_helpers import balanced, capture_end, envelope, messages, quarantined
from typer.testing import CliRunner, Result

import mqcn_suite.cli as cli
from mqcn_model.capture import PcapWriter, Unwritable, iter_capture
from mqcn_model.capture.containers import ContainerReader
from mqcn_model.capture.writer import DEFAULT_START_TIME
from mqcn_model.constants import AuthLevel, SenderIdType
from mqcn_model.envelope import Envelope
from mqcn_suite.plugin import PcapRecorder, _PcapMerger
from mqcn_suite.report.results import REPORT_PROPERTY

runner = CliRunner()
# deliveries at every AuthenticationLevel (XMLDSig included) and client sends
SELECTED = "MQCN-3.2.5.1-2 or MQCN-3.3.5.3-13"


def run(tmp_path: Path, *extra: str, pcap: str = "run.pcap") -> tuple[Result, Path, Path]:
    capture, report = tmp_path / pcap, tmp_path / "report"
    result = runner.invoke(
        cli.app,
        ["run", "--pcap", str(capture), "--report", str(report), "--", "-q", "-p",
         "no:randomly", "-m", SELECTED, *extra],
    )  # fmt: skip
    return result, capture, report


def recorded(report: Path) -> list[tuple[str, Envelope]]:
    """Every envelope the world recorded for the report, scenario by scenario: what it
    delivered, then what the target's client emitted."""
    envelopes = []
    for prop in ET.parse(report / "junit.xml").iter("property"):
        if prop.get("name") == REPORT_PROPERTY:
            world = json.loads(prop.get("value") or "{}")
            envelopes += [("delivered", Envelope.from_json(e)) for e in world["sent"]]
            envelopes += [("sent", Envelope.from_json(e)) for e in world["emitted"]]
    return envelopes


def carried(envelope: Envelope) -> bool:
    try:
        PcapWriter().write(envelope)
    except Unwritable:
        return False
    return True


def on_the_wire(envelope: Envelope) -> Envelope:
    """What of ``envelope`` a UserMessage Packet carries (docs/capture.md): a signature, not
    which one (Always and Sig10 read back as Sig20, errata W-05); no sender identifier under
    SenderIdentifierType None; no arrival time (the capture time stands for it)."""
    if envelope.authentication_level in (AuthLevel.Always, AuthLevel.Sig10):
        envelope = envelope.with_(authentication_level=AuthLevel.Sig20)
    if envelope.sender_identifier_type is SenderIdType.None_:
        envelope = envelope.with_(sender_identifier=None)
    return envelope.with_(arrival_time=0.0)


def read_back(capture: Path) -> list:
    with capture.open("rb") as stream:
        return list(iter_capture(capture.name, iter(lambda: stream.read(1 << 16), b"")))


def test_run_pcap_writes_every_delivered_and_sent_message(tmp_path: Path) -> None:
    result, capture, report = run(tmp_path)
    assert result.exit_code == 0, result.output
    envelopes = recorded(report)
    written = [e for _, e in envelopes if carried(e)]
    refused = len(envelopes) - len(written)
    assert refused == 1 and len(written) > 20  # the XMLDSig delivery
    records = read_back(capture)
    assert quarantined(records) == [] and balanced(records)
    found = [(m.envelope.with_(arrival_time=0.0), m.body) for m in messages(records)]
    assert found == [(on_the_wire(e), e.body) for e in written]
    delivered = sum(kind == "delivered" and carried(e) for kind, e in envelopes)
    sent = sum(kind == "sent" for kind, _ in envelopes)
    assert delivered and sent
    assert (
        f"mqcn pcap: {capture}: {len(written)} messages as MS-MQQB sessions ({delivered} "
        f"delivered to the target, {sent} sent by its client); 1 not written"
    ) in " ".join(result.stdout.split())
    assert "XML digital signature" in result.stdout and f"Capture:\n  {capture}" in result.stdout
    assert capture_end(records).counts == {"tcp-1801": capture_end(records).frames}


def test_run_pcap_under_xdist_joins_the_workers_parts(tmp_path: Path) -> None:
    result, capture, report = run(tmp_path, "-n", "2")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "run.pcap"]
    written = [e for _, e in recorded(report) if carried(e)]
    records = read_back(capture)
    assert quarantined(records) == [] and balanced(records)
    found = sorted((m.envelope.message_id.to_bytes(), m.body) for m in messages(records))
    assert found == sorted((e.message_id.to_bytes(), e.body) for e in written)
    times = [r.where.time_last for r in messages(records)]
    assert len(times) == len(written) and times == sorted(times)  # the parts retimed in turn
    assert len({r.where.stream for r in messages(records)}) == len(written)  # own 4-tuples


def _frame_times(capture: Path) -> list[float]:
    reader = ContainerReader(capture.name)
    frames = list(reader.feed(capture.read_bytes()))
    assert reader.close() == []
    return [f.time for f in frames]  # type: ignore[union-attr]


def test_joined_parts_never_go_back_in_time(tmp_path: Path) -> None:
    """Workers' clocks all start at the same instant (and a worker may write for long): the
    join moves each part to begin a second after the previous one ends."""
    final = tmp_path / "run.pcap"
    merger = _PcapMerger(final)
    for index, count in ((1, 3), (0, 5)):  # reported out of order, as workers finish
        recorder = PcapRecorder(final.with_name(f"run.pcap.gw{index}.part"), index, 2)
        for n in range(count):
            recorder.record(envelope(n + 10 * index), "delivered")
        recorder.close()
        merger.parts.append(recorder.path)
    merger.merge()
    times = _frame_times(final)
    assert len(times) == 8 * 12 and all(a < b for a, b in itertools.pairwise(times))
    assert times[0] == DEFAULT_START_TIME and 1.0 <= times[60] - times[59] < 1.001
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.pcap"]
    found = [m.envelope.message_id.sequence for m in messages(read_back(final))]
    assert found == [0, 1, 2, 3, 4, 10, 11, 12]  # worker order: gw0's part, then gw1's


def test_a_run_capture_keeps_its_own_clock_whatever_arrival_time_a_message_carries(
    tmp_path: Path,
) -> None:
    """A target's client may put an arrival time on what it sends; it is not on the wire, and
    following it would step the capture's clock back."""
    recorder = PcapRecorder(tmp_path / "run.pcap")
    for n, arrival in enumerate((DEFAULT_START_TIME + 100, DEFAULT_START_TIME - 100, 5.0)):
        recorder.record(envelope(n, arrival_time=arrival), "sent")
    recorder.close()
    times = _frame_times(recorder.path)
    assert len(times) == 36 and all(a < b for a, b in itertools.pairwise(times))


@pytest.mark.parametrize(
    ("where", "message"),
    [
        (lambda d: d, "is a directory"),
        (lambda d: d / "missing" / "run.pcap", "is not a directory"),
    ],
    ids=["directory", "no-parent"],
)
def test_an_unwritable_pcap_is_a_usage_error_before_anything_runs(
    tmp_path: Path, where: object, message: str
) -> None:
    target = where(tmp_path)  # type: ignore[operator]
    result = runner.invoke(cli.app, ["run", "--pcap", str(target), "--report", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"mqcn run: error: --pcap: {target if message == 'is a directory' else target.parent} "
        f"{message}"
    ]
    assert not (tmp_path / "r" / "traceability.json").exists()
