"""One capture read as many byte ranges gives the records, verdicts, quarantine and balances
of the one-task read (mqcn_model.capture.split, docs/capture.md "Splitting a capture")."""

from __future__ import annotations

import itertools
import json
import math
import struct
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from capture_helpers import (
    T0,
    Frame,
    Seg,
    busy_frames,
    capture_end,
    client_session,
    envelope,
    epb,
    ethernet,
    frames,
    idb,
    ip_of,
    ipv6_of,
    null_loopback,
    obsolete_pb,
    pcap,
    session_packets,
    shb,
    sll,
    sll2,
    spb,
    vlan,
    with_ipv4_options,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from mqcn_model.capture import Record, iter_capture
from mqcn_model.capture import split as model
from mqcn_model.capture.containers import MAX_BLOCK_BYTES
from mqcn_model.capture.dissect import (
    TCP_SYN,
    dissect,
    format_endpoint,
)
from mqcn_suite.pipeline.audit import audit
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.kinds.capture import _judge_records
from mqcn_suite.pipeline.audit.kinds.capture_split import (
    DEFAULT_SPLIT_BYTES,
    SPLIT_CONF,
    SplitReads,
    plan_split,
    read_owned,
    scan_range,
    split_records,
    split_threshold,
)
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.audit.tasks import RowBuilder
from mqcn_suite.pipeline.session import PipelineError


def _signature(records: list[Record]) -> list[str]:
    """The records as a sorted list (the split read gives them flow by flow)."""
    return sorted(repr(r) for r in records)


def _write(tmp_path: Path, capture: bytes) -> str:
    path = tmp_path / "c.pcap"
    path.write_bytes(capture)
    return str(path)


def _split(tmp_path: Path, capture: bytes, threshold: int, **options: Any) -> list[Record]:
    found = split_records(_write(tmp_path, capture), threshold, chunk=4096, window=65536, **options)
    assert not isinstance(found, str), found
    return found


def _one_task(tmp_path: Path, capture: bytes, **options: Any) -> list[Record]:
    pieces = [capture[i : i + 4096] for i in range(0, len(capture), 4096)]
    return list(iter_capture(str(tmp_path / "c.pcap"), pieces, **options))


@pytest.mark.parametrize("ranges", [2, 5, 13])
def test_a_split_read_gives_the_records_of_the_one_task_read(tmp_path: Path, ranges: int) -> None:
    capture = pcap(busy_frames())
    threshold = len(capture) // ranges + 1
    plan = plan_split(_write(tmp_path, capture), threshold, window=65536)
    assert not isinstance(plan, str) and len(plan.starts) == ranges
    assert _signature(_split(tmp_path, capture, threshold)) == _signature(
        _one_task(tmp_path, capture)
    )


def test_ranges_shorter_than_a_record_still_start_at_records(tmp_path: Path) -> None:
    capture = pcap(busy_frames(4))
    plan = plan_split(_write(tmp_path, capture), 97, window=4096)
    assert not isinstance(plan, str)
    assert list(plan.starts) == sorted(set(plan.starts)) and len(plan.starts) > 20
    assert _signature(_split(tmp_path, capture, 97)) == _signature(_one_task(tmp_path, capture))


def _audit(records: list[Record]) -> tuple[list[str], list[str], dict[str, int]]:
    """The verdict rows, the quarantine rows and the tally of judging ``records``."""
    rows = RowBuilder(Tally())
    batches = list(_judge_records(Auditor(), rows, iter(records), 7))
    table = pa.Table.from_batches([*batches, rows.tally.batch()])
    by_status: dict[str, list[str]] = {}
    tally: dict[str, int] = {}
    for row in table.to_pylist():
        if row["status"] == "tally":
            key = repr({k: v for k, v in row.items() if k not in ("count",)})
            tally[key] = tally.get(key, 0) + (row.get("count") or 0)
        else:
            by_status.setdefault(row["status"], []).append(repr(sorted(row.items())))
    verdicts = sorted(by_status.pop("verdict", []))
    quarantine = sorted(by_status.pop("quarantined", []))
    assert not by_status, sorted(by_status)
    return verdicts, quarantine, tally


def test_the_verdicts_quarantine_and_balances_of_a_split_read_are_the_one_task_ones(
    tmp_path: Path,
) -> None:
    capture = pcap(busy_frames())
    split = _audit(_split(tmp_path, capture, len(capture) // 6))
    whole = _audit(_one_task(tmp_path, capture))
    assert split == whole
    verdicts, quarantine, _ = whole
    # 72 notifications, less those of session 2 before its first whole packet and of session
    # 3 after its reset; the mid-session start and the non-MSMQ reply are quarantined
    assert 60 <= len(verdicts) < 72 and len(quarantine) >= 2


@pytest.mark.parametrize(("idle", "pause"), [(60, 90), (2, 90), (2, -300)])
def test_idle_streams_end_at_the_same_frames_in_a_split_read(
    tmp_path: Path, idle: int, pause: int
) -> None:
    """A silence of 1000 s after frame ``pause`` (from the end when negative: in the last
    range); an idle timeout of 2 s looks every second, not every idle timeout / 4."""
    items = busy_frames(pause_after=pause % len(busy_frames()))
    capture = pcap(items)
    split = _split(tmp_path, capture, len(capture) // 5, idle_timeout=idle)
    whole = _one_task(tmp_path, capture, idle_timeout=idle)
    assert "ended_by='idle'" in "".join(_signature(whole))
    assert _signature(split) == _signature(whole)


def test_idle_streams_of_a_later_ranges_own_connections_end_as_in_one_task(
    tmp_path: Path,
) -> None:
    """Connections that begin and end inside a later range, silent for a while: that range
    looks for idle streams from the highest look of the ranges before it."""
    early = busy_frames(2)
    late = [frames(client_session(n, size=400)) for n in range(10, 14)]
    mixed = [item for group in itertools.zip_longest(*late) for item in group if item]
    half = len(mixed) // 2
    timed = [replace(f, time=T0 + i * 0.01) for i, f in enumerate(early)]
    start = T0 + len(early) * 0.01 + 50
    timed += [
        replace(f, time=start + i * 0.01 + (30 if i >= half else 0)) for i, f in enumerate(mixed)
    ]
    capture = pcap(timed)
    split = _split(tmp_path, capture, len(capture) // 6, idle_timeout=2)
    whole = _one_task(tmp_path, capture, idle_timeout=2)
    assert "ended_by='idle'" in "".join(_signature(whole))
    assert _signature(split) == _signature(whole)


def test_frames_of_every_kind_are_counted_once_in_a_split_read(tmp_path: Path) -> None:
    """Each range counts the frames of its own bytes by kind, whoever reads them."""
    others = frames([Seg(1, b"x" * 40, sport=5000, dport=80), Seg(9, b"cut" * 30, cut=50)])
    arp = Frame(T0, bytes(12) + b"\x08\x06" + bytes(28), 42)
    items = busy_frames()
    mixed = [f for i, f in enumerate(items) for f in ([f, others[i % 2]] if i % 7 else [f, arp])]
    capture = pcap([replace(f, time=T0 + i * 0.01) for i, f in enumerate(mixed)])
    split, whole = _split(tmp_path, capture, len(capture) // 5), _one_task(tmp_path, capture)
    counts = capture_end(whole).counts
    assert counts["tcp-other"] and counts["non-ip"] and counts["snaplen-cut"]
    assert _signature(split) == _signature(whole)


def test_a_range_stops_after_the_last_record_it_reads(tmp_path: Path) -> None:
    capture = pcap(busy_frames())
    path = _write(tmp_path, capture)
    plan = plan_split(path, len(capture) // 4, window=65536)
    assert not isinstance(plan, str)
    scans = [scan_range(plan, index, chunk=4096) for index in range(len(plan.starts))]
    reads = SplitReads.of([s for _, s in scans], model.shared([seen for seen, _ in scans]))
    reader = model.OwnedRangeReader(
        path, plan.shape, 1, plan.starts[1], plan.ends[1], reads.ownership,
        frame_offset=reads.offsets[1], swept=reads.swept[1],
    )  # fmt: skip
    reader.feed(capture[plan.starts[1] :])
    assert reader.done and reader.feed(capture[-100:]) == []
    assert reader.last <= reads.offsets[2] + scans[2][1].frames  # not to the file's end


def test_a_scan_keeps_each_connections_first_and_last_frame_and_latest_time() -> None:
    segs = [Seg(1, b"", TCP_SYN), Seg(2, b"ab"), Seg(4, b"cd"), Seg(6, b"ef")]
    times = [T0, T0 + 5, T0 + 3, T0 + 4]
    items = [replace(f, time=t) for f, t in zip(frames(segs), times, strict=True)]
    capture = pcap(items)
    shape = model.layout(capture)
    assert isinstance(shape, model.Layout)
    reader = model.RangeReader("c.pcap", shape, 0, shape.data_start, None)
    reader.feed(capture[shape.data_start :])
    ((_, trace),) = reader.traces().items()
    assert (trace.first_frame, trace.first_time, trace.first_syn) == (1, T0, True)
    assert (trace.last_frame, trace.latest) == (4, T0 + 5)  # the latest, not the last
    assert trace.last_offset == len(capture) - 16 - len(items[-1].data)
    # a timed frame, then an untimed one (a pcapng Simple Packet Block): no latest time
    mixed = shb() + idb(1) + epb(items[0]) + spb(items[1])
    shape = model.layout(mixed)
    assert isinstance(shape, model.Layout)
    reader = model.RangeReader("c.pcapng", shape, 0, shape.data_start, None)
    reader.feed(mixed[shape.data_start :])
    ((_, trace),) = reader.traces().items()
    assert (trace.first_time, trace.latest) == (T0, None)


# --- bad input ----------------------------------------------------------------------------------


def test_a_forged_record_header_at_a_split_point_makes_the_file_one_task(tmp_path: Path) -> None:
    forged = struct.pack("<IIII", int(T0), 0, 4, 60) + b"\x00" * 4
    items = busy_frames(3)
    body = bytes([2, 1]) + forged * 3 + bytes(40)
    data = b"".join(session_packets([envelope(7, body=body)]))
    trap = frames([Seg(1, b"", TCP_SYN, sport=45000), Seg(2, data, sport=45000)])
    capture = pcap(items[:40] + trap + items[40:])
    at = capture.find(forged)
    shape = model.layout(capture)
    assert not isinstance(shape, str)
    # the guess is fooled: the forged header is where the boundary search starts
    assert model.find_boundary(shape, capture[at:], at, len(capture)) == at
    found = split_records(_write(tmp_path, capture), at, chunk=4096)
    assert isinstance(found, str)
    assert "read as one task: range 0 read records up to offset" in found
    assert f"guessed at {at}" in found


def test_a_truncated_last_record_is_quarantined_as_in_the_one_task_read(tmp_path: Path) -> None:
    capture = pcap(busy_frames())[:-10]
    split = _split(tmp_path, capture, len(capture) // 4)
    whole = _one_task(tmp_path, capture)
    assert "capture-truncated" in "".join(_signature(whole))
    assert _signature(split) == _signature(whole)


def test_a_damaged_record_inside_a_range_makes_the_file_one_task(tmp_path: Path) -> None:
    capture = bytearray(pcap(busy_frames()))
    shape = model.layout(bytes(capture))
    assert not isinstance(shape, str)
    at = model.find_boundary(shape, bytes(capture[len(capture) // 2 :]), len(capture) // 2, 0)
    assert at is not None
    struct.pack_into("<I", capture, at + 8, 1 << 30)  # a captured length no frame has
    found = split_records(_write(tmp_path, bytes(capture)), len(capture) // 3, chunk=4096)
    assert isinstance(found, str) and "read as one task" in found
    assert "claims 1073741824 captured bytes" in found


def _pcapng_two_links(items: list[Frame]) -> bytes:
    """Frames alternately on an Ethernet interface and a Linux cooked (SLL) one."""
    blocks = [shb(), idb(1), idb(113)]
    for i, frame in enumerate(items):
        if i % 2:
            frame = replace(frame, data=sll(frame.data), length=frame.length + 2, interface=1)
        blocks.append(epb(frame))
    return b"".join(blocks)


def test_a_pcapng_with_interfaces_of_different_link_types_is_split(tmp_path: Path) -> None:
    capture = _pcapng_two_links(busy_frames())
    plan = plan_split(_write(tmp_path, capture), len(capture) // 5, window=65536)
    assert not isinstance(plan, str) and len(plan.starts) == 5
    split = _split(tmp_path, capture, len(capture) // 5)
    whole = _one_task(tmp_path, capture)
    assert "'link-unknown'" not in "".join(_signature(whole))
    assert _signature(split) == _signature(whole)


def test_a_pcapng_interface_described_after_the_first_packet_makes_it_one_task(
    tmp_path: Path,
) -> None:
    items = busy_frames()
    half = len(items) // 2
    late = replace(items[half], data=ip_of(items[half].data), length=items[half].length - 14)
    capture = (
        shb()
        + idb(1)
        + b"".join(epb(f) for f in items[:half])
        + idb(101)
        + epb(replace(late, interface=1))
        + b"".join(epb(f) for f in items[half + 1 :])
    )
    found = split_records(_write(tmp_path, capture), len(capture) // 4, chunk=4096)
    assert isinstance(found, str)
    assert "a pcapng interface description block at offset" in found


def test_a_flow_through_every_range_is_read_by_its_first_range_streamed(tmp_path: Path) -> None:
    data = b"".join(session_packets(envelope(i) for i in range(200)))
    segs = [Seg(1, b"", TCP_SYN)] + [
        Seg(2 + start, data[start : start + 500]) for start in range(0, len(data), 500)
    ]
    capture = pcap(frames(segs))
    path = _write(tmp_path, capture)
    plan = plan_split(path, len(capture) // 4, window=65536)
    assert not isinstance(plan, str) and len(plan.starts) == 4
    scans = [scan_range(plan, index, chunk=4096) for index in range(4)]
    (conn, traces), *others = model.shared([seen for seen, _ in scans])
    assert not others and [t.range for t in traces] == [0, 1, 2, 3]
    assert format_endpoint(*conn[:2]) == "10.1.1.1:49152"
    reads = SplitReads.of([summary for _, summary in scans], [(conn, traces)])
    assert reads.ownership.owners == {conn: [(1, 0)]}
    assert reads.ownership.reach == {0: traces[-1].last_offset}
    # the ranges after the first read nothing of it: no record, however many bytes it has
    for index in (1, 2, 3):
        assert [type(r).__name__ for r in read_owned(plan, index, reads, chunk=4096)] == []
    assert _signature(_split(tmp_path, capture, len(capture) // 4)) == _signature(
        _one_task(tmp_path, capture)
    )


def _trace(index: int, first: int, last: int, *, syn: bool = True, latest: float | None = None):
    """A Trace of frames ``first`` to ``last`` (numbers in the file: offsets of 0)."""
    time = float(last) if latest is None else latest
    return model.Trace(index, first, float(first), syn, last, last * 100, time)


def test_a_connection_in_several_ranges_is_read_by_the_first_to_the_last_record() -> None:
    one = (bytes([10, 0, 0, 1]), 49152, bytes([10, 0, 1, 1]), 1801)
    two = (bytes([10, 0, 0, 2]), 49152, bytes([10, 0, 1, 1]), 1801)
    found = [(one, [_trace(0, 5, 9), _trace(2, 30, 31)]), (two, [_trace(1, 15, 17)])]
    owned = model.Ownership.of(found, [0, 0, 0], [])
    assert owned.owners == {one: [(5, 0)]}  # one range alone: read there, not listed
    assert owned.reach == {0: 3100}


def test_addresses_used_again_after_an_idle_look_begin_an_episode_of_their_own() -> None:
    """Ports come back in long captures: the first range must not read on to the end."""
    conn = (bytes([10, 0, 0, 1]), 49152, bytes([10, 0, 1, 1]), 1801)
    before, after = _trace(0, 1, 10, latest=100.0), _trace(3, 50, 60)
    sweep = [(40, 100.0 + 600.5)]  # a look between them, past the idle timeout: ended

    def owned(*traces: model.Trace, sweeps: list[tuple[int, float]] = sweep) -> model.Ownership:
        return model.Ownership.of([(conn, list(traces))], [0, 0, 0, 0], sweeps, 600.0)

    # each episode in one range: each range reads its own, as if the addresses were new
    assert owned(before, after).owners == {} and owned(before, after).reach == {}
    # the first episode runs into range 1: listed, episode by episode
    middle = _trace(1, 12, 14, syn=False, latest=100.0)
    assert owned(before, middle, after).owners == {conn: [(1, 0), (50, 3)]}
    assert owned(before, middle, after).reach == {0: 1400}
    # no SYN, no look, a look too early, a look before the last frame or after the first,
    # an untimed frame: the same episode, read on by the first range
    for later, sweeps, first in [
        (_trace(3, 50, 60, syn=False), sweep, before),
        (after, [], before),
        (after, [(40, 100.0 + 600.0)], before),
        (after, [(10, 800.0)], before),
        (after, [(50, 800.0)], before),
        (after, sweep, before._replace(latest=None)),
    ]:
        found = owned(first, later, sweeps=sweeps)
        assert found.owners == {conn: [(1, 0)]} and found.reach == {0: 6000}


def test_each_range_goes_on_sweeping_from_the_highest_interval_before_it() -> None:
    def summary(index: int, intervals: list[int]) -> model.RangeSummary:
        found = model.RangeSummary(index, 0, 0)
        found.sweeps = [(n + 1, 150.0 * i, i) for n, i in enumerate(intervals)]
        return found

    ranges = [summary(0, [3, 4]), summary(1, []), summary(2, [2, 7]), summary(3, [1])]
    assert model.swept_before(ranges) == [-math.inf, 4, 4, 7]


# --- on Spark -------------------------------------------------------------------------------------


def _outputs(out: Path) -> tuple[list[str], list[str], dict[str, Any]]:
    def rows(folder: str) -> list[str]:
        table = ds.dataset(str(out / folder), format="parquet", ignore_prefixes=[".", "_"])
        return sorted(repr(sorted(r.items())) for r in table.to_table().to_pylist())

    summary = json.loads((out / "summary.json").read_text())
    for key in ("engine", "seconds", "generated"):
        summary.pop(key)
    return rows("verdicts"), rows("quarantine"), summary


@pytest.mark.spark
def test_a_capture_split_on_spark_audits_as_the_one_task_read(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    busy = tmp_path / "busy.pcap"
    busy.write_bytes(pcap(busy_frames())[:-10])  # and a truncated last record
    forged = struct.pack("<IIII", int(T0), 0, 4, 60) + b"\x00" * 4
    data = b"".join(session_packets([envelope(7, body=bytes([2, 1]) + forged * 3)]))
    trap = frames([Seg(1, b"", TCP_SYN, sport=45000), Seg(2, data, sport=45000)])
    items = busy_frames(3)
    fooled = tmp_path / "fooled.pcap"
    fooled.write_bytes(pcap(items[:40] + trap + items[40:]))
    at = fooled.read_bytes().find(forged)
    for path, threshold in ((busy, busy.stat().st_size // 5), (fooled, at)):
        spark.conf.set(SPLIT_CONF, str(threshold))
        try:
            audit(spark, path, tmp_path / f"{path.stem}-split")
        finally:
            spark.conf.unset(SPLIT_CONF)
        audit(None, path, tmp_path / f"{path.stem}-whole")
        split = _outputs(tmp_path / f"{path.stem}-split")
        whole = _outputs(tmp_path / f"{path.stem}-whole")
        read_as = [split[2]["capture"].pop(key) for key in ("files_split", "ranges")]
        assert read_as == ([1, 5] if path == busy else [0, 0])  # the fooled one: one task
        assert [whole[2]["capture"].pop(key) for key in ("files_split", "ranges")] == [0, 0]
        assert split == whole
        assert split[2]["balance"]["balanced"] and split[2]["capture"]["bytes_balanced"]
    lines = capsys.readouterr().err.splitlines()
    (line,) = [line for line in lines if "read as one task" in line]
    assert line.startswith(f"mqcn audit: {fooled.resolve()}: read as one task: range 0 read")
    assert f"guessed at {at} (a record header inside a packet's bytes?)" in line


@pytest.mark.spark
def test_files_as_many_as_the_cores_are_read_whole(spark: Any, tmp_path: Path) -> None:
    """A file is split only when it is above its share of the cores: with a file per core,
    each file is one task already (the split's scan would cost, not help)."""
    folder = tmp_path / "two"
    folder.mkdir()
    capture = pcap(busy_frames())
    for name in ("a.pcap", "b.pcap"):
        (folder / name).write_bytes(capture)
    spark.conf.set(SPLIT_CONF, "4096")
    try:
        assert spark.sparkContext.defaultParallelism == 2
        both = audit(spark, folder, tmp_path / "both").summary["capture"]
        alone = audit(spark, folder / "a.pcap", tmp_path / "alone").summary["capture"]
    finally:
        spark.conf.unset(SPLIT_CONF)
    assert (both["files"], both["files_split"]) == (2, 0)
    assert (alone["files"], alone["files_split"]) == (1, 1) and alone["ranges"] > 2


def test_the_split_threshold_is_a_number_of_bytes_or_a_one_line_error() -> None:
    assert split_threshold(lambda _key, _default: " 1048576 ") == 1 << 20
    assert split_threshold(lambda _key, default: default) == DEFAULT_SPLIT_BYTES
    assert split_threshold(lambda _key, _default: "0") == 0
    with pytest.raises(PipelineError, match=r"mqcn\.capture\.split='64M': expected a number"):
        split_threshold(lambda _key, _default: "64M")


@pytest.mark.spark
def test_the_pipelines_own_settings_reach_the_session(spark: Any) -> None:
    from mqcn_suite.pipeline.session import create_session

    try:
        session = create_session("local[2]", {SPLIT_CONF: "4096"})
        assert split_threshold(session.conf.get) == 4096
    finally:
        spark.conf.unset(SPLIT_CONF)


@pytest.mark.spark
def test_a_lent_session_takes_the_commands_own_settings_for_the_loan_only(spark: Any) -> None:
    """A command run in a session already running (tests/run_commands.py, the cluster test)
    reads its own ``--conf mqcn.*``; the next command does not inherit it."""
    from mqcn_suite.pipeline.session import spark_session

    spark.conf.set(SPLIT_CONF, "999")
    try:
        with spark_session("local[2]", {SPLIT_CONF: "4096", "spark.x": "y"}) as lent:
            assert lent is spark and split_threshold(lent.conf.get) == 4096
        assert spark.conf.get(SPLIT_CONF) == "999"
    finally:
        spark.conf.unset(SPLIT_CONF)
    with spark_session("local[2]", {SPLIT_CONF: "4096"}):
        pass
    assert split_threshold(spark.conf.get) == DEFAULT_SPLIT_BYTES


# --- the split rules, stated one by one (docs/capture.md, "Splitting a capture") ---------------

_YEAR = 366 * 86400  # written out: the rule's own figure, not the module's constant


def _pcap_shape(first_seconds: int | None = 1_000) -> model.Layout:
    return model.Layout("pcap", bytes(24), "<", 1_000_000, 65535, first_seconds)


def _pcapng_shape(interfaces: int = 1) -> model.Layout:
    return model.Layout("pcapng", shb() + idb(1) * interfaces, "<", interfaces=interfaces)


def test_a_layout_names_why_a_file_cannot_be_split() -> None:
    assert model.layout(b"\xd4\xc3") == "the file is too short to be split"
    # four bytes are enough to know the format: the line then says the header is cut
    assert model.layout(struct.pack("<I", 0xA1B2C3D4)) == "the file ends inside its pcap header"
    assert model.layout(b"not a capture at all") == "the file is neither pcap nor pcapng"


def test_a_pcapng_layout_counts_the_interfaces_described_before_the_first_packet() -> None:
    packet = epb(Frame(T0, b"x" * 60, 60))
    for described in (1, 2):
        found = model.layout(shb() + idb(1) * described + packet)
        assert isinstance(found, model.Layout)
        assert found.interfaces == described
        assert found.data_start == len(shb()) + len(idb(1)) * described


def test_a_pcap_record_time_more_than_a_year_from_the_first_is_no_boundary() -> None:
    shape = _pcap_shape(first_seconds=1_000)
    for seconds, plausible in ((1_000 + _YEAR, True), (1_000 + _YEAR + 1, False)):
        window = struct.pack("<IIII", seconds, 0, 4, 4) + b"abcd"
        assert (model._pcap_candidate(shape, window, 0) is not None) is plausible


def test_a_pcap_record_header_ending_the_window_is_a_candidate() -> None:
    # an empty record (captured length 0) whose 16 header bytes are the window's last
    window = struct.pack("<IIII", 1_000, 0, 0, 60)
    assert model._pcap_candidate(_pcap_shape(), window, 0) == 16
    assert model._pcap_candidate(_pcap_shape(), window[:15], 0) is None


def test_a_pcapng_block_of_the_largest_length_allowed_is_a_candidate() -> None:
    def block(length: int) -> bytearray:
        window = bytearray(length)
        struct.pack_into("<IIIIII", window, 0, 6, length, 0, 0, 0, 64)
        struct.pack_into("<I", window, length - 4, length)
        return window

    assert model._pcapng_candidate(_pcapng_shape(), block(MAX_BLOCK_BYTES), 0) == MAX_BLOCK_BYTES
    assert model._pcapng_candidate(_pcapng_shape(), block(MAX_BLOCK_BYTES + 4), 0) is None


def test_obsolete_and_simple_pcapng_packet_blocks_are_candidates() -> None:
    frame = Frame(T0, b"y" * 40, 40)
    for block in (obsolete_pb(frame), spb(frame), spb(Frame(None, b"", 0))):
        assert model._pcapng_candidate(_pcapng_shape(), block, 0) == len(block)
    # a simple packet block needs an interface to belong to
    assert model._pcapng_candidate(_pcapng_shape(0), spb(frame), 0) is None


def test_an_obsolete_packet_block_on_an_undescribed_interface_is_no_candidate() -> None:
    # the interface field is the block's own (after its type and length), not earlier bytes
    frame = Frame(T0, b"y" * 40, 40, interface=1)
    window = bytes(8) + obsolete_pb(frame)
    assert model._pcapng_candidate(_pcapng_shape(1), window, 8) is None
    assert model._pcapng_candidate(_pcapng_shape(2), window, 8) == len(window)


def test_a_range_of_simple_packet_blocks_has_no_times_to_sweep_at() -> None:
    timeless = [replace(f, time=None) for f in frames(client_session(0, size=300))[:5]]
    capture = shb() + idb(1) + b"".join(spb(f) for f in timeless)
    shape = model.layout(capture)
    assert isinstance(shape, model.Layout)
    reader = model.RangeReader("c.pcapng", shape, 0, shape.data_start, None)
    reader.feed(capture[shape.data_start :])
    summary = reader.close()
    assert summary.frames == 5 and len(reader.seen) == 1
    assert summary.sweeps == [] and summary.problem is None
    ((_, trace),) = reader.traces().items()
    assert trace.first_time is None and trace.latest is None  # untimed: never cut


# --- the scan's cheap look at a frame -------------------------------------------------------------


def _frame_variants(seg: Seg) -> list[tuple[int, bytes]]:
    frame = ethernet(seg)
    return [
        (1, frame),
        (1, vlan(frame)),
        (1, with_ipv4_options(frame)),
        (113, sll(frame)),
        (276, sll2(frame)),
        (101, ip_of(frame)),
        (101, ipv6_of(frame)),
        (0, null_loopback(ip_of(frame))),
    ]


@settings(max_examples=300, deadline=None)
@given(
    sport=st.sampled_from([1801, 49152, 80]),
    dport=st.sampled_from([1801, 5000, 443]),
    payload=st.binary(max_size=40),
    variant=st.integers(0, 7),
    cut=st.integers(0, 80),
    flip=st.tuples(st.integers(0, 200), st.integers(0, 255)),
)
def test_the_scan_names_the_connection_of_every_segment_dissect_finds(
    sport: int, dport: int, payload: bytes, variant: int, cut: int, flip: tuple[int, int]
) -> None:
    link, frame = _frame_variants(Seg(7, payload, sport=sport, dport=dport))[variant]
    data = bytearray(frame[: max(0, len(frame) - cut)])
    if flip[0] < len(data):
        data[flip[0]] ^= flip[1]  # damage anywhere: the header fields the fast look skips
    found = dissect(link, bytes(data), len(frame))
    named = model.frame_connection(link, bytes(data), len(frame))
    if not isinstance(found, str):
        assert named == (model.connection(found), bool(found.flags & TCP_SYN))
    elif 1801 not in (sport, dport) and variant == 0 and not flip[1]:
        assert named is None  # the common frame of another port costs nothing more
