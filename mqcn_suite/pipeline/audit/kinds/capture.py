"""The ``capture`` input kind: packet captures (pcap, pcapng) of MSMQ traffic, judged.

**Detection.**  A file is a capture when its first four bytes are a pcap magic number
(``a1b2c3d4``, ``d4c3b2a1``, ``a1b23c4d``, ``4d3cb2a1``) or the pcapng Section Header Block
type (``0a0d0d0a``), or when its name ends in ``.pcap``, ``.pcapng`` or ``.cap``.  INPUT is a
capture file or a folder holding at least one.  The other files of such a folder are read as
captures too (a stray file is quarantined as ``not-a-capture`` with its bytes: accounted,
not skipped); a folder that mixes captures and Parquet files is refused in one line — audit
them separately, each has its own balance.

**A capture was expected** of a single INPUT file whose name ends in ``.pcap``, ``.pcapng`` or
``.cap``, or whose first bytes are a magic number above, whole or cut short (a file of 2 or 3
bytes that begin one).  Such a file is refused in one line before any work
(:func:`capture_problem`, called by the planner) when it holds no capture file header: its
first four bytes are no magic number (a Network Monitor ``.cap``, a text file named
``.pcap``...) or it ends before the header of its format does (24 bytes for pcap, 28 for a
pcapng Section Header Block).  A header followed by damaged records is a capture: it is
judged, and what cannot be read is quarantined.  (In a folder of captures such a file is
input like any other: quarantined as ``not-a-capture`` with its bytes, not refused.)

**Planning.**  One work unit, hence one Spark task, per capture file (it reads the file in
1 MiB chunks: its memory stays bounded by the reader's, not the file's); many captures
spread over the executors.  On Spark, a capture above the split threshold (``--conf
mqcn.capture.split=BYTES``; 64 MiB by default, 0: never) and above its share of the
cores (the input's bytes over the session's parallelism: with as many files as cores, each
file is one task) is read as byte ranges of that size, one task each, each connection by
one range (:mod:`.capture_split`, docs/capture.md "Splitting a
capture"): the same records, hence the same rows; a file that cannot be split safely is one
task, with a line on stderr saying why.

**The task.**  :func:`mqcn_model.capture.iter_capture` turns the file into records
(:mod:`mqcn_model.capture.records`).  Each :class:`~mqcn_model.capture.Message` (a
UserMessage to a notification queue: the destination alone decides) is judged exactly as a
Parquet row with the same envelope (the :class:`~.judging.Auditor`: verdict and server
view); its verdict row also holds its wire and envelope ``findings`` (the value rules of the
wire catalog it breaks, the 3.3.5.3 sender rules its envelope breaks) and names the
``capture`` file, the ``frames``, the ``stream`` ("src -> dst") and the ``capture_time`` of
the frame that completed it.  Everything else is counted or quarantined, never dropped:

* a UserMessage to another queue is an *other message*; every packet is counted by kind;
* a UserMessage whose structure the wire codec cannot read is quarantined (scope ``capture
  packet``: 1 message, its bytes, the structural wire requirement);
* bytes that are no packet (:class:`~mqcn_model.capture.Quarantine`) and bytes the capture
  does not hold (:class:`~mqcn_model.capture.Lost`: ``gap``, ``snaplen``) are quarantined
  with scope ``capture bytes``: their bytes, their reason, where they were (rows unknown);
* every frame is counted by kind (:class:`~mqcn_model.capture.CaptureEnd`), every stream's
  own accounting (:class:`~mqcn_model.capture.StreamEnd`) is summed.

The summary's ``capture`` block (:func:`capture_summary`, from the counts of every task)
then checks two balances::

    UserMessages found = change notifications (conforming + non-conforming)
                         + other messages + quarantined
    stream bytes (StreamEnd) = packet bytes + quarantined bytes + lost bytes (records)
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import pyarrow as pa

import mqcn_model.capture as capture_model
from mqcn_model.capture.containers import PCAP_MICRO, PCAP_NANO, PCAPNG_SHB
from mqcn_model.errata import Readings
from mqcn_model.wire.acks import FINAL_ACK, ORDER_ACK
from mqcn_model.wire.usermessage import USER_MESSAGE
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.kind import (
    Account,
    InputKind,
    Plan,
    Unit,
    judged_anything,
    register_input_kind,
)
from mqcn_suite.pipeline.audit.kinds import capture_split
from mqcn_suite.pipeline.audit.schema import quarantine_row, spark_schema
from mqcn_suite.pipeline.audit.sink import map_rows
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.audit.tasks import RowBuilder, Task
from mqcn_suite.pipeline.engine import human_bytes
from mqcn_suite.pipeline.session import PipelineError, default_parallelism
from mqcn_suite.wording import plural

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# The first four bytes of a capture file: a pcap magic number (microsecond or nanosecond
# timestamps, either byte order) or the pcapng Section Header Block's type (a palindrome).
PCAP_MAGICS = frozenset(
    magic.to_bytes(4, order) for magic in (PCAP_MICRO, PCAP_NANO) for order in ("big", "little")
)
PCAPNG_MAGIC = PCAPNG_SHB.to_bytes(4, "big")
MAGICS = PCAP_MAGICS | {PCAPNG_MAGIC}
HEADER_BYTES = {"pcap": 24, "pcapng": 28}  # the shortest file header of each format
SUFFIXES = (".pcap", ".pcapng", ".cap")
CHUNK = 1 << 20  # bytes read at a time
BATCH = 5000  # messages judged per output batch
UNIT_SCHEMA = pa.schema([("path", pa.string()), ("bytes", pa.int64())])
UNREADABLE = "unreadable"  # the quarantine reason of capture bytes that could not be read

# The provenance columns: where in a capture a verdict or quarantine row comes from.
CAPTURE_FIELDS = (
    pa.field("capture", pa.string()),  # the capture file
    pa.field("frames", pa.list_(pa.int64())),  # its frame numbers, 1-based as Wireshark's
    pa.field("stream", pa.string()),  # the TCP direction, "src-ip:port -> dst-ip:port"
    pa.field("capture_time", pa.timestamp("us", tz="UTC")),  # capture time of its last frame
)
CAPTURE_COLUMNS: tuple[str, ...] = tuple(f.name for f in CAPTURE_FIELDS)
# The quarantine scopes of captures (the ``scope`` column).
SCOPE_CAPTURE_PACKET = "capture packet"  # a UserMessage framed in a capture, not judged: 1 row
SCOPE_CAPTURE_BYTES = "capture bytes"  # capture bytes that are no packet, or lost: rows unknown


@dataclass(frozen=True)
class CaptureFile(Unit):
    """One work unit: one capture file (a row of :data:`UNIT_SCHEMA`)."""

    path: str  # resolved local path
    bytes: int  # its size when planned (0: it could not be read; the task says why)


# The capture counts of a task's tally (summed into summary.json's "capture" block).
C_FILES = "files"  # captures read to their end (one CaptureEnd each)
C_FILES_UNREADABLE = "files_unreadable"  # captures that could not be opened or read whole
C_FRAMES = "frames"
C_FILE_BYTES = "file_bytes"  # bytes of the capture files read
C_FILE_QUARANTINED = "file_bytes_quarantined"  # of them, in no frame (CaptureEnd)
C_FILE_QUARANTINED_RECORDS = "file_bytes_quarantined_records"  # the same, from the records
C_STREAMS = "streams"  # directions of TCP connections to or from port 1801
C_STREAMS_UNBALANCED = "streams_unbalanced"
C_STREAM_BYTES = "stream_bytes"  # StreamEnd.bytes summed
C_STREAM_PACKET_BYTES = "stream_packet_bytes"  # StreamEnd.packet_bytes summed
C_STREAM_QUARANTINED_BYTES = "stream_quarantined_bytes"
C_STREAM_LOST_BYTES = "stream_lost_bytes"
C_PACKET_BYTES = "packet_bytes"  # sizes of the Message and Packet records summed
C_QUARANTINED_BYTES = "quarantined_bytes"  # sizes of the streams' Quarantine records
C_LOST_BYTES = "lost_bytes"  # sizes of the Lost records
C_RETRANSMITTED = "retransmitted_bytes"
C_OVERLAP = "overlap_bytes"
C_OUT_OF_ORDER = "out_of_order_segments"
C_MID_SESSION = "mid_session_streams"
C_USER_MESSAGES = "user_messages"  # UserMessage Packets framed
C_NOTIFICATIONS = "change_notifications"  # of them, to a notification queue (judged)
C_OTHER = "other_messages"  # of them, to another queue (counted)
# UserMessage Packets (change notifications or not) with wire, envelope or session findings
C_WITH_FINDINGS = "messages_with_findings"
USER_MESSAGE_KINDS = (USER_MESSAGE, ORDER_ACK, FINAL_ACK)  # the kinds of a UserMessage Packet
C_REFUSED = "user_messages_refused"  # of them, refused by the wire codec (quarantined)
P_FORMAT = "format:"  # + pcap / pcapng / unknown: captures
P_FRAMES = "frames:"  # + the kind of frame (tcp-1801, udp, non-ip...; docs/capture.md)
P_PACKETS = "packets:"  # + the packet's kind (EstablishConnection, UserMessage...)
P_REFUSED = "refused:"  # + the wire requirement a refused packet breaks
# + a wire value rule a packet that is no change notification breaks (its own finding: an
# internal packet, an acknowledgment, a UserMessage to another queue)
P_PACKET_FINDINGS = "packet-finding:"


# --- detection and planning -----------------------------------------------------------------


def is_capture(path: Path) -> bool:
    """A capture by its name (``.pcap``, ``.pcapng``, ``.cap``) or by its first four bytes."""
    if path.suffix.lower() in SUFFIXES:
        return True
    try:
        with path.open("rb") as stream:
            return stream.read(4) in MAGICS
    except OSError:
        return False


def _first_bytes(path: Path, count: int = 4) -> bytes | None:
    try:
        with path.open("rb") as stream:
            return stream.read(count)
    except OSError:
        return None


def magic_format(head: bytes | None) -> str | None:
    """``pcap`` or ``pcapng`` by a file's first four bytes (None: no capture magic)."""
    if head is None or len(head) < 4:
        return None
    if head[:4] in PCAP_MAGICS:
        return "pcap"
    return "pcapng" if head[:4] == PCAPNG_MAGIC else None


def capture_problem(path: Path) -> str | None:
    """Why ``path``, given alone where a capture was expected, holds no capture (None: it
    does, or no capture was expected of it: see the module doc)."""
    head = _first_bytes(path)
    if head is None:
        return None  # the planner of its kind says why it cannot be read
    size = path.stat().st_size
    named = path.suffix.lower() in SUFFIXES
    cut = 2 <= len(head) < 4 and any(magic.startswith(head) for magic in MAGICS)
    kind = magic_format(head)
    if kind is not None and size < HEADER_BYTES[kind]:
        return (
            f"a {kind} capture cut short: {size} bytes, fewer than the "
            f"{HEADER_BYTES[kind]}-byte {kind} file header"
        )
    if kind is None and (named or cut):
        why = f"named {path.suffix}" if named else "its first bytes begin a capture magic number"
        shown = head.hex() or "nothing"
        return (
            f"a capture was expected ({why}), but its first bytes ({shown}, {size} bytes in "
            "all) are no pcap or pcapng magic number; save it as pcap or pcapng (editcap -F "
            "pcapng IN OUT, or Wireshark's Save As)"
        )
    return None


def claims_captures(files: list[Path]) -> bool:
    """The capture kind reads an input that holds at least one capture."""
    return any(is_capture(file) for file in files)


def plan_captures(files: list[Path]) -> Plan:
    """One work unit per file; a folder mixing captures and Parquet files is refused.

    The number of messages is known only once the captures are read, so the plan expects
    none: the balance's left side comes from the tasks' counts (:func:`capture_summary`).
    """
    parquet = [f for f in files if f.suffix == ".parquet"]
    if parquet:
        raise PipelineError(
            f"INPUT: {parquet[0].parent} mixes {len(files) - len(parquet)} capture or other "
            f"file(s) with {len(parquet)} Parquet file(s): audit each kind on its own "
            "(each has its own balance)"
        )
    units: list[CaptureFile] = []
    formats: dict[str, int] = {}
    for file in files:  # a file the task cannot open is quarantined there, and counted
        try:
            size = file.stat().st_size
        except OSError:
            size = 0
        units.append(CaptureFile(str(file.resolve()), size))
        found = magic_format(_first_bytes(file))
        formats[found or "other"] = formats.get(found or "other", 0) + 1
    total = sum(u.bytes for u in units)
    return Plan("capture", units, [], 0, total, _describe(formats, total))


def _describe(formats: dict[str, int], size: int) -> str:
    """``2 pcap captures, 108.8 MB``; ``3 captures (2 pcap, 1 pcapng) and 1 file without a
    capture header, ...`` (a file named as a capture, or a stray file, in the folder)."""
    other = formats.pop("other", 0)
    count = sum(formats.values())
    noun = "capture" if count == 1 else "captures"
    parts = []
    if len(formats) == 1:
        parts.append(f"{count} {next(iter(formats))} {noun}")
    elif formats:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(formats.items()))
        parts.append(f"{count} {noun} ({kinds})")
    if other:
        parts.append(f"{other} file{'' if other == 1 else 's'} without a capture header")
    return f"{' and '.join(parts)}, {human_bytes(size)}"


def _unreadable(path: str, why: str, size: int | None, offset: int = 0) -> dict[str, Any]:
    source = f"{path}@{offset}" if offset else path
    return quarantine_row(
        source,
        UNREADABLE,
        None,
        scope=SCOPE_CAPTURE_BYTES,
        size=size,
        detail=why,
        where={"capture": path},
    )


# --- the Spark task --------------------------------------------------------------------------


def capture_frame(spark: SparkSession, plan: Plan, readings: Readings) -> DataFrame | None:
    """The rows of captures: one work unit, one partition, hence one task, per file; a file
    above the split threshold (``--conf mqcn.capture.split``) is read as byte ranges
    (:mod:`.capture_split`), or whole with a line saying why."""
    if not plan.work:
        return None
    threshold = capture_split.split_threshold(spark.conf.get)
    # a file no larger than the input's share of each core already keeps one busy
    share = sum(u.bytes for u in plan.work) // default_parallelism(spark)
    whole: list[CaptureFile] = []
    frames: list[DataFrame] = []
    for unit in plan.work:
        split: DataFrame | str | None = None
        if threshold and unit.bytes > max(threshold, share):
            ranges = capture_split.plan_split(unit.path, threshold)
            split = ranges if isinstance(ranges, str) else None
            if not isinstance(ranges, str):
                split = capture_split.split_frame(
                    spark, ranges, readings, _judge_records, BATCH, P_FRAMES, plan.verdict_sink
                )
            if isinstance(split, str):
                print(f"mqcn audit: {split}", file=sys.stderr)
        if split is None or isinstance(split, str):
            whole.append(unit)
        else:
            frames.append(split)
    if whole:
        units = spark.sparkContext.parallelize(
            [(u.path, u.bytes) for u in whole], numSlices=min(len(whole), 10_000)
        )
        frame = spark.createDataFrame(units, spark_schema(UNIT_SCHEMA))
        frames.append(map_rows(frame, judge_capture_units(readings), plan.verdict_sink))
    return functools.reduce(lambda a, b: a.unionByName(b), frames)


def local_captures(plan: Plan, readings: Readings) -> Iterator[pa.RecordBatch]:
    """The capture task of :func:`capture_frame`, run in this process on the same units."""
    if not plan.work:
        return iter(())
    units = pa.RecordBatch.from_pylist(plan.work, schema=UNIT_SCHEMA)
    return judge_capture_units(readings)(iter([units]))


def judge_capture_units(readings: Readings, batch: int = BATCH, chunk: int = CHUNK) -> Task:
    """The ``mapInArrow`` function of captures: files in, verdict/quarantine/tally rows out."""

    def run(units: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        auditor = Auditor(readings)
        rows = RowBuilder(Tally())
        for unit_batch in units:
            for path in unit_batch.column("path").to_pylist():
                yield from judge_capture(auditor, rows, path, batch, chunk)
        yield rows.tally.batch()

    return run


def judge_capture(
    auditor: Auditor, rows: RowBuilder, path: str, batch: int = BATCH, chunk: int = CHUNK
) -> Iterator[pa.RecordBatch]:
    """The rows of one capture file, read ``chunk`` bytes at a time (see the module doc).

    A file that cannot be opened, or whose reading fails half-way, is no crash: what was
    read stands, and the bytes not read are one ``unreadable`` quarantine entry.
    """
    count = rows.tally.count
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        count(C_FILES_UNREADABLE)
        rows.quarantine(_unreadable(path, f"cannot open it: {exc.strerror or exc}", None))
        yield from rows.batches()
        return
    state: dict[str, Any] = {"read": 0, "error": None}
    with stream:
        records = capture_model.iter_capture(path, _chunks(stream, chunk, state))
        yield from _judge_records(auditor, rows, records, batch)
        if state["error"] is not None:
            count(C_FILES_UNREADABLE)
            read = state["read"]
            try:
                rest: int | None = max(0, os.fstat(stream.fileno()).st_size - read)
            except OSError:
                rest = None
            why = f"reading failed after {read} bytes: {state['error']}"
            rows.quarantine(_unreadable(path, why, rest, read))
            yield from rows.batches()


def _chunks(stream: BinaryIO, chunk: int, state: dict[str, Any]) -> Iterator[bytes]:
    """The file's bytes, ``chunk`` at a time; a read error ends them (``state["error"]``)."""
    while True:
        try:
            data = stream.read(chunk)
        except OSError as exc:
            state["error"] = exc.strerror or str(exc)
            return
        if not data:
            return
        state["read"] += len(data)
        yield data


def _judge_records(
    auditor: Auditor, rows: RowBuilder, records: Iterator[capture_model.Record], batch: int
) -> Iterator[pa.RecordBatch]:
    """Judge, count or quarantine each record of one capture."""
    count = rows.tally.count
    messages: list[capture_model.Message] = []

    def judge_messages() -> None:
        rows.judge(
            auditor,
            [_source(m.where) for m in messages],
            [m.body for m in messages],
            [m.envelope.message_id.to_bytes() for m in messages],
            [m.envelope.sender_identifier_type.name.rstrip("_") for m in messages],
            [m.envelope.authentication_level.name.rstrip("_") for m in messages],
            where=[where_values(m.where) for m in messages],
            findings=[m.findings for m in messages],
        )
        messages.clear()

    for record in records:
        if isinstance(record, capture_model.Message):
            count(C_USER_MESSAGES)
            count(C_NOTIFICATIONS)
            count(P_PACKETS + record.packet.kind)  # UserMessage (or OrderAck by its class)
            count(C_PACKET_BYTES, record.where.size)
            if record.findings:
                count(C_WITH_FINDINGS)
            messages.append(record)
            if len(messages) >= batch:
                judge_messages()
                yield from rows.batches()
        elif isinstance(record, capture_model.Packet):
            _packet(rows, record)
        elif isinstance(record, capture_model.Quarantine):
            where = record.where
            detail = f"{record.detail} ({record.requirement})" if record.requirement else None
            rows.quarantine(_bytes_entry(where, record.reason, detail or record.detail))
            count(C_QUARANTINED_BYTES if where.stream else C_FILE_QUARANTINED_RECORDS, where.size)
        elif isinstance(record, capture_model.Lost):
            detail = (
                "bytes the stream carried and the capture does not hold: the sequence numbers jump"
                if record.reason == "gap"
                else "bytes the stream carried and the capture does not hold: the frame was "
                "captured shorter than it was (snaplen)"
            )
            rows.quarantine(_bytes_entry(record.where, record.reason, detail))
            count(C_LOST_BYTES, record.where.size)
        elif isinstance(record, capture_model.StreamEnd):
            _stream_end(rows, record)
        elif isinstance(record, capture_model.CaptureEnd):
            _capture_end(rows, record)
    if messages:
        judge_messages()
    yield from rows.batches()


def _packet(rows: RowBuilder, record: capture_model.Packet) -> None:
    """Count a packet; a UserMessage the codec refuses is a quarantined message."""
    count = rows.tally.count
    count(P_PACKETS + record.kind)
    count(C_PACKET_BYTES, record.where.size)
    violation = record.violation
    if violation is not None:
        count(P_REFUSED + violation.requirement)
    found = list(record.findings)
    if record.packet is not None:
        found += record.packet.findings
    for requirement in dict.fromkeys(f.requirement for f in found):
        count(P_PACKET_FINDINGS + requirement)
    if record.kind not in USER_MESSAGE_KINDS:
        return
    if found:
        count(C_WITH_FINDINGS)  # wire findings count on every UserMessage, whatever its queue
    if record.kind != USER_MESSAGE:
        return
    count(C_USER_MESSAGES)
    if violation is None:
        count(C_OTHER)  # to another queue (record.note): the destination alone decides
        return
    count(C_REFUSED)
    where = record.where
    rows.quarantine(
        quarantine_row(
            _source(where),
            f"wire: {violation.requirement}",
            1,
            scope=SCOPE_CAPTURE_PACKET,
            size=where.size,
            detail=violation.message,
            where=where_columns(where),
        )
    )


def _stream_end(rows: RowBuilder, end: capture_model.StreamEnd) -> None:
    count = rows.tally.count
    count(C_STREAMS)
    count(C_STREAMS_UNBALANCED, 0 if end.balanced else 1)
    count(C_STREAM_BYTES, end.bytes)
    count(C_STREAM_PACKET_BYTES, end.packet_bytes)
    count(C_STREAM_QUARANTINED_BYTES, end.quarantined_bytes)
    count(C_STREAM_LOST_BYTES, end.lost_bytes)
    count(C_RETRANSMITTED, end.retransmitted_bytes)
    count(C_OVERLAP, end.overlap_bytes)
    count(C_OUT_OF_ORDER, end.out_of_order_segments)
    count(C_MID_SESSION, 1 if end.mid_session else 0)


def _capture_end(rows: RowBuilder, end: capture_model.CaptureEnd) -> None:
    count = rows.tally.count
    count(C_FILES)
    count(P_FORMAT + end.format)
    count(C_FRAMES, end.frames)
    count(C_FILE_BYTES, end.bytes)
    count(C_FILE_QUARANTINED, end.quarantined_bytes)
    for kind, frames in end.counts.items():
        count(P_FRAMES + kind, frames)


def _bytes_entry(where: capture_model.Where, reason: str, detail: str) -> dict[str, Any]:
    """The quarantine entry of capture bytes that are no packet (rows unknown)."""
    return quarantine_row(
        _source(where),
        reason,
        None,
        scope=SCOPE_CAPTURE_BYTES,
        size=where.size,
        detail=detail,
        where=where_columns(where),
    )


def _source(where: capture_model.Where) -> str:
    """``file#frame=N`` or ``file#frames=N-M``; ``file@offset`` for bytes in no frame."""
    frames = where.frames
    if not frames:
        return f"{where.capture}@{where.offset}"
    if frames[0] == frames[-1]:
        return f"{where.capture}#frame={frames[0]}"
    return f"{where.capture}#frames={frames[0]}-{frames[-1]}"


def where_values(where: capture_model.Where) -> tuple[Any, ...]:
    """The values of :data:`CAPTURE_COLUMNS` for ``where`` (the time of its last
    frame, in microseconds since the epoch)."""
    time = where.time_last
    micros = None if time is None else round(time * 1_000_000)
    return (where.capture, list(where.frames), where.stream or None, micros)


def where_columns(where: capture_model.Where) -> dict[str, Any]:
    """:func:`where_values` by column name."""
    return dict(zip(CAPTURE_COLUMNS, where_values(where), strict=True))


# --- the summary -----------------------------------------------------------------------------


def _with_prefix(counters: dict[str, int], prefix: str) -> dict[str, int]:
    found = {k[len(prefix) :]: n for k, n in counters.items() if k.startswith(prefix)}
    return dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))


def capture_summary(counters: dict[str, int]) -> dict[str, Any]:
    """summary.json's ``capture`` block from the merged counts of every task.

    ``bytes_balanced``: the bytes of every stream, as each stream counted them (StreamEnd),
    are the bytes of its packets, quarantined runs and lost bytes, as the records say; every
    stream balanced on its own; the bytes of the files in no frame match their records.
    """
    n = counters.get
    block: dict[str, Any] = {
        "files": n(C_FILES, 0),
        "files_unreadable": n(C_FILES_UNREADABLE, 0),
        "files_split": n(capture_split.C_FILES_SPLIT, 0),  # on Spark, read as byte ranges
        "ranges": n(capture_split.C_RANGES, 0),
        "formats": _with_prefix(counters, P_FORMAT),
        "file_bytes": n(C_FILE_BYTES, 0),
        "file_bytes_quarantined": n(C_FILE_QUARANTINED, 0),
        "frames": n(C_FRAMES, 0),
        "frames_by_kind": _with_prefix(counters, P_FRAMES),
        "streams": n(C_STREAMS, 0),
        "mid_session_streams": n(C_MID_SESSION, 0),
        "user_messages": n(C_USER_MESSAGES, 0),
        "change_notifications": n(C_NOTIFICATIONS, 0),
        "other_messages": n(C_OTHER, 0),
        "messages_with_findings": n(C_WITH_FINDINGS, 0),
        "user_messages_refused": n(C_REFUSED, 0),
        "packets_by_kind": _with_prefix(counters, P_PACKETS),
        "refused_by_requirement": _with_prefix(counters, P_REFUSED),
        "packet_findings_by_requirement": _with_prefix(counters, P_PACKET_FINDINGS),
        "stream_bytes": n(C_STREAM_BYTES, 0),
        "packet_bytes": n(C_PACKET_BYTES, 0),
        "quarantined_bytes": n(C_QUARANTINED_BYTES, 0),
        "lost_bytes": n(C_LOST_BYTES, 0),
        "retransmitted_bytes": n(C_RETRANSMITTED, 0),
        "overlap_bytes": n(C_OVERLAP, 0),
        "out_of_order_segments": n(C_OUT_OF_ORDER, 0),
        "streams_unbalanced": n(C_STREAMS_UNBALANCED, 0),
    }
    block["bytes_balanced"] = (
        block["stream_bytes"]
        == block["packet_bytes"] + block["quarantined_bytes"] + block["lost_bytes"]
        and block["packet_bytes"] == n(C_STREAM_PACKET_BYTES, 0)
        and block["quarantined_bytes"] == n(C_STREAM_QUARANTINED_BYTES, 0)
        and block["lost_bytes"] == n(C_STREAM_LOST_BYTES, 0)
        and block["streams_unbalanced"] == 0
        and block["file_bytes_quarantined"] == n(C_FILE_QUARANTINED_RECORDS, 0)
    )
    return block


def capture_account(counters: dict[str, int], entries: int) -> Account:
    """The capture kind's part of the summary: its block, and the balance's UserMessages
    found (known only from the tasks' counts), other messages and quarantine entries (the
    entries whose rows are unknown, bytes that are no packet, count here)."""
    block = capture_summary(counters)
    return Account(
        block=block,
        rows_in=block["user_messages"],
        counted={"other_messages": block["other_messages"]},
        figures={"quarantine_entries": entries},
        balanced=bool(block["bytes_balanced"]),
    )


def capture_nothing_judged(
    balance: Mapping[str, Any], capture: Mapping[str, Any] | None
) -> str | None:
    """What a capture audit that judged no message and set nothing aside found: its captures
    held no change notification (known only once they are read) and no packet with a wire
    finding (those are judged, whatever queue they go to)."""
    block = capture or {}
    if judged_anything(balance) or block.get("packet_findings_by_requirement"):
        return None
    return (
        f"0 change notifications ({block.get('files', 0)} capture file(s), "
        f"{block.get('frames', 0)} frames, {balance['other_messages']} UserMessage(s) to "
        "other queues)"
    )


def capture_balance_text(balance: Mapping[str, Any], capture: Mapping[str, Any] | None) -> str:
    """The balance line of a capture audit: the messages found, then the stream bytes."""
    if capture is None:
        raise ValueError("a capture audit's balance needs its summary's capture block")
    judged = (
        balance["conforming"]
        + balance["non_conforming"]
        + balance["other_messages"]
        + balance["quarantined"]
    )
    sign = "=" if balance["rows_in"] == judged else "!="
    bytes_sign = "=" if capture["bytes_balanced"] else "!="
    entries = balance["quarantine_entries"]
    return (
        f"UserMessages found {balance['rows_in']} {sign} conforming {balance['conforming']} + "
        f"non-conforming {balance['non_conforming']} + other messages "
        f"{balance['other_messages']} + quarantined {balance['quarantined']}; stream bytes "
        f"{capture['stream_bytes']} {bytes_sign} packets {capture['packet_bytes']} + "
        f"quarantined {capture['quarantined_bytes']} + lost {capture['lost_bytes']} "
        f"({plural(capture['files'], 'capture file')}, "
        f"{capture['frames']} frames, {capture['streams']} streams, "
        f"{plural(entries, 'quarantine entry', 'quarantine entries')}); "
        f"{capture['messages_with_findings']} with wire or envelope findings"
    )


CAPTURE = InputKind(
    "capture",
    claims_captures,
    plan_captures,
    capture_frame,
    local_captures,
    "capture files",
    refuses=capture_problem,
    columns=CAPTURE_FIELDS,
    account=capture_account,
    balance_text=capture_balance_text,
    nothing_judged=capture_nothing_judged,
    rows_label="UserMessages found",
    html_block="summary_capture.html.j2",
    no_findings=("No UserMessage breaks a wire value rule or a 3.3.5.3 sender rule."),
)
register_input_kind(CAPTURE)  # asked first: a folder of captures is no folder of raw bodies
