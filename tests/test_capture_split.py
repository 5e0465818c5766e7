"""One capture read as many byte ranges gives the records, verdicts, quarantine and balances
of the one-task read (mqcn_model.capture.split, docs/capture.md "Splitting a capture")."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from capture_helpers import (
    IP_A,
    IP_B,
    T0,
    Frame,
    Seg,
    envelope,
    epb,
    frames,
    idb,
    ip_of,
    pcap,
    read,
    session_packets,
    shb,
    sll,
)
from mqcn_model.capture import Record, iter_capture
from mqcn_model.capture import split as model
from mqcn_model.capture.dissect import TCP_ACK, TCP_FIN, TCP_RST, TCP_SYN
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.kinds.capture import _judge_records
from mqcn_suite.pipeline.audit.kinds.capture_split import plan_split, split_records
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.audit.tasks import RowBuilder


def _session(n: int, *, size: int, mid_session: bool = False) -> list[Seg]:
    """Session ``n`` (its own client port), initiator side, with a retransmission and two
    segments swapped; ``mid_session``: its first segments are not in the capture."""
    data = b"".join(session_packets(envelope(100 * n + i) for i in range(12)))
    sport = 40000 + n
    seq = 5000 * n
    out = [] if mid_session else [Seg(seq, b"", TCP_SYN, sport=sport)]
    seq += 1
    for start in range(0, len(data), size):
        piece = data[start : start + size]
        out.append(Seg(seq & 0xFFFFFFFF, piece, sport=sport))
        seq += len(piece)
    out.append(Seg(seq & 0xFFFFFFFF, b"", TCP_FIN | TCP_ACK, sport=sport))
    if mid_session:
        out = out[3:]
    out.insert(5, out[3])  # a retransmission
    out[6], out[7] = out[7], out[6]  # out of order
    return out


def busy_frames(sessions: int = 6, *, pause_after: int | None = None) -> list[Frame]:
    """Sessions interleaved frame by frame so that each runs across the whole file (hence
    across every split point); one starts mid-session, one is reset, and the acceptor
    answers one with data.  ``pause_after``: a 1000 s silence after that many frames."""
    per = [frames(_session(n, size=150 + 37 * n, mid_session=n == 2)) for n in range(sessions)]
    reply = [Seg(9000, b"", TCP_SYN, sport=1801, dport=40001)]
    reply += [Seg(9001, b"not an msmq packet, sent back", sport=1801, dport=40001)]
    per.append(frames(reply, src=IP_B, dst=IP_A))
    reset = Seg(777, b"", TCP_RST, sport=40003)
    per[3] = per[3][:-4] + frames([reset])
    out: list[Frame] = []
    while any(per):
        for items in per:
            if items:
                out.append(items.pop(0))
    timed = []
    for i, frame in enumerate(out):
        late = 1000.0 if pause_after is not None and i >= pause_after else 0.0
        timed.append(replace(frame, time=T0 + i * 0.01 + late))
    return timed


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
