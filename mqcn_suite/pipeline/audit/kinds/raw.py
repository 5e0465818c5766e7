"""The ``raw`` input kind: a folder of raw message bodies, one message per file.

Anything no other kind claims is read this way, so it is asked last.  On Spark the files
are read by the ``binaryFile`` source (empty files join as literal rows: Spark's file
sources skip them, and an empty body is a message too, MQCN-2.2.4-1 broken); in process
they are read here, a batch at a time.  Each body is judged exactly as ``mqcn decode
--file`` judges it; a raw body carries no envelope, so the server view assumes an
authenticated QueueManagerIdentifier sender.  A file that cannot be read whole is set aside
by the planner (scope ``file``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mqcn_model.errata import Readings
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.kind import (
    InputKind,
    Plan,
    Unit,
    files_bytes,
    register_input_kind,
)
from mqcn_suite.pipeline.audit.schema import SCOPE_FILE, quarantine_row
from mqcn_suite.pipeline.audit.sink import map_rows
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.audit.tasks import RowBuilder, Task
from mqcn_suite.pipeline.engine import human_bytes
from mqcn_suite.wording import plural

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# binaryFile cannot hold a file of 2 GiB or more in one row; MSMQ bodies are at most 4 MB.
MAX_RAW_FILE = (1 << 31) - 1
RAW_BATCH_BYTES = 64 << 20  # the in-process engine reads raw files this many bytes at a time
_RAW_SCHEMA = pa.schema([("path", pa.string()), ("content", pa.binary())])


@dataclass(frozen=True)
class RawFile(Unit):
    """One work unit of raw input: a readable file, one message body."""

    path: str  # resolved local path
    size: int  # its bytes when planned


# --- detection and planning -------------------------------------------------------------------


def plan_raw(files: list[Path]) -> Plan:
    """One message per readable file; a file that cannot be read whole is set aside."""
    quarantined: list[dict[str, Any]] = []
    readable: list[RawFile] = []
    for file in files:
        reason = raw_problem(file)
        if reason:
            quarantined.append(quarantine_row(str(file.resolve()), reason, 1, scope=SCOPE_FILE))
        else:
            readable.append(RawFile(str(file.resolve()), file.stat().st_size))
    size = files_bytes(files)
    read_as = plural(
        len(files), "file read as a raw message body", "files read as raw message bodies"
    )
    described = f"{read_as}, {human_bytes(size)}"
    return Plan("raw", readable, quarantined, len(files), size, described)


def raw_problem(file: Path) -> str | None:
    """Why a raw file cannot be read whole (None if it can)."""
    try:
        size = file.stat().st_size
        with file.open("rb"):
            pass
    except PermissionError:
        return "permission denied"
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if size > MAX_RAW_FILE:
        return f"{size} bytes: larger than a message body can be"
    return None


# --- the task ---------------------------------------------------------------------------------


def judge_raw_files(readings: Readings) -> Task:
    """The ``mapInArrow`` function of raw input: (path, content) rows in, verdicts out."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        auditor, tally = Auditor(readings), Tally()
        rows = RowBuilder(tally)
        for batch in batches:
            paths = [local_path(path) for path in batch.column("path").to_pylist()]
            rows.judge(auditor, paths, batch.column("content").to_pylist())
            yield from rows.batches()
        yield tally.batch()

    return run


def local_path(uri: str) -> str:
    """``file:/a/b`` (how Spark names files) as ``/a/b``; other URIs unchanged.

    >>> local_path("file:///data/m.bin"), local_path("file:/data/m.bin")
    ('/data/m.bin', '/data/m.bin')
    """
    if uri.startswith("file://"):
        return uri[len("file://") :]
    if uri.startswith("file:"):
        return uri[len("file:") :]
    return uri


def raw_frame(spark: SparkSession, plan: Plan, readings: Readings) -> DataFrame | None:
    """The rows of a folder of raw bodies: Spark's ``binaryFile`` source, one file per body."""
    if not plan.work:
        return None
    # Spark's file sources skip empty files; they are messages too (MQCN-2.2.4-1 broken),
    # so they join the binaryFile rows as literal rows.
    sizes = {unit.path: os.path.getsize(unit.path) for unit in plan.work}
    non_empty = [path for path, size in sizes.items() if size]
    empty = [(path, bytearray()) for path, size in sizes.items() if not size]
    parts = []
    if non_empty:
        parts.append(spark.read.format("binaryFile").load(non_empty).select("path", "content"))
    if empty:
        parts.append(spark.createDataFrame(empty, "path string, content binary"))
    files = parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])
    return map_rows(files, judge_raw_files(readings), plan.verdict_sink)


def local_raw(plan: Plan, readings: Readings) -> Iterator[pa.RecordBatch]:
    """The raw task of :func:`raw_frame`, run in this process: the files read here, in
    batches of at most :data:`RAW_BATCH_BYTES` (or 5000 files), instead of by ``binaryFile``."""
    if not plan.work:
        return iter(())

    def batches() -> Iterator[pa.RecordBatch]:
        paths: list[str] = []
        contents: list[bytes] = []
        held = 0
        for unit in plan.work:
            with open(unit.path, "rb") as stream:
                content = stream.read()
            paths.append(unit.path)
            contents.append(content)
            held += len(content)
            if held >= RAW_BATCH_BYTES or len(paths) >= 5000:
                yield _raw_batch(paths, contents)
                paths, contents, held = [], [], 0
        if paths:
            yield _raw_batch(paths, contents)

    return judge_raw_files(readings)(batches())


def _raw_batch(paths: list[str], contents: list[bytes]) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays(
        [pa.array(paths, pa.string()), pa.array(contents, pa.binary())], schema=_RAW_SCHEMA
    )


RAW = InputKind("raw", lambda _files: True, plan_raw, raw_frame, local_raw)
register_input_kind(RAW)  # asked last: the kinds registered after it are asked first
