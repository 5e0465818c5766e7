"""``mqcn corpus generate --format pcap``: the synthetic corpus as capture files.

The same messages as the Parquet corpus of a seed (row *r* is
:func:`~mqcn_suite.pipeline.corpus_rows.corpus_message` of ``(seed, r)`` in both formats), each
carried by its own MS-MQQB session on TCP port 1801
(:class:`~mqcn_model.capture.writer.PcapWriter`, ``session="message"``): handshake,
EstablishConnection, ConnectionParameters, the UserMessage Packet, SessionAck, FIN.

Every Spark partition is one task that writes one file, ``part-NNNNN.pcap``, a piece at a time
(a message's frames are appended as soon as they are made: memory does not grow with the
file).  The *executors* write these files themselves — Spark has no pcap data source — so the
output folder must be a local path (or ``file://``) on a filesystem the driver and every
executor share; a Hadoop URI (``hdfs://``, ``s3a://``) is refused before Spark starts.  A task
writes ``.part-NNNNN.pcap.<attempt>.tmp`` and renames it when complete, so a retried task never
leaves half a capture under a name a reader takes.

Times: each message's UserMessage frames carry its arrival time exactly (the Parquet
``arrival_time``, to the microsecond), and its session opens just before.  Two arrivals closer
than a session lasts (under 1.2 ms) make the second session's opening frames a little later
than its message: the capture is then not strictly in time order there.

An Envelope no session can carry (:class:`~mqcn_model.capture.writer.Unwritable`: an XML
digital signature, a destination that is not one queue) is not written; the tasks count such
messages and name the first, and the command says so — none is dropped in silence.  The
generator draws none today; the count is there for the day it does.

>>> import tempfile, pathlib
>>> from mqcn_model.capture.reader import iter_capture
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> part = write_part(str(folder), 0, range(3), seed=1, invalid_share=0.0)
>>> part.messages, part.unwritable, sorted(p.name for p in folder.iterdir())
(3, 0, ['part-00000.pcap'])
>>> data = (folder / "part-00000.pcap").read_bytes()
>>> sum(type(r).__name__ == "Message" for r in iter_capture("part-00000.pcap", [data]))
3
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqcn_model.capture.writer import STEP, PcapWriter, Unwritable
from mqcn_suite.pipeline.session import PipelineError
from mqcn_suite.pipeline.storage import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from mqcn_suite.pipeline.corpus_rows import CorpusResult

__all__ = [
    "FORMATS",
    "PartResult",
    "check_format",
    "generate_pcap",
    "local_out",
    "part_name",
    "write_part",
    "write_parts",
]

FORMATS = ("parquet", "pcap")
WRITTEN_BY_EXECUTORS = (
    "capture files are written by the executors themselves, so --format pcap needs a local "
    "path or a file:// URI on a filesystem the driver and every executor share (docs/capture.md)"
)
# A session opens with 7 frames (SYN, SYN-ACK, ACK, EstablishConnection x2,
# ConnectionParameters x2) 100 us apart: start them this long before the message's arrival.
OPENING = 7 * STEP
WRITE_BUFFER = 1 << 20


def check_format(text: str) -> str:
    """``text`` if it is a corpus format, else :class:`PipelineError` naming the choices."""
    if text not in FORMATS:
        raise PipelineError(f"--format: {text!r} is not one of {', '.join(FORMATS)}")
    return text


def local_out(out: str | Path, option: str = "--out") -> Path:
    """The local folder of ``out`` (a path or ``file://``: :func:`.storage.local_path`); a
    Hadoop URI is refused (:class:`PipelineError`, one line): the executors write the files.

    >>> local_out("hdfs://nn/c")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    mqcn_suite.pipeline.groundwork.PipelineError: --out: hdfs://nn/c: capture files are written...
    """
    return local_path(out, option, WRITTEN_BY_EXECUTORS)


def part_name(index: int) -> str:
    """The file of partition ``index``: ``part-00000.pcap``, ``part-00001.pcap``..."""
    return f"part-{index:05d}.pcap"


@dataclass(frozen=True)
class PartResult:
    """What one task wrote: its file, the messages in it, those the wire cannot carry."""

    index: int
    file: str
    rows: int
    messages: int
    unwritable: int
    first_unwritable: str | None
    bytes: int
    frames: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def write_part(
    directory: str,
    index: int,
    rows: Iterable[int],
    *,
    seed: int,
    invalid_share: float,
    attempt: int = 0,
) -> PartResult:
    """Write the corpus rows ``rows`` as ``directory/part-<index>.pcap`` (a Spark task's work).

    Streams: each message's frames go to the file as they are made.  Raises OSError with a
    line naming the executor's host when ``directory`` is not there (an --out the executors
    do not share with the driver).
    """
    from mqcn_suite.pipeline.corpus_rows import corpus_message  # the generators: when asked

    folder = Path(directory)
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{directory} does not exist on the executor at {socket.gethostname()}: the "
            "--out of --format pcap must be on a filesystem the driver and every executor share"
        )
    final = folder / part_name(index)
    partial = folder / f".{part_name(index)}.{attempt}.tmp"
    writer = PcapWriter(session="message")
    count = unwritable = 0
    first: str | None = None
    try:
        with open(partial, "wb", buffering=WRITE_BUFFER) as stream:
            for row in rows:
                count += 1
                _, env = corpus_message(row, seed, invalid_share)
                # open the session just before the message; never step the clock back
                writer.time = max(writer.time, env.arrival_time - OPENING)
                try:
                    stream.write(writer.write(env))
                except Unwritable as exc:
                    unwritable += 1
                    first = first or f"row {row}: {exc}"
            stream.write(writer.close())
        os.replace(partial, final)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return PartResult(
        index=index,
        file=final.name,
        rows=count,
        messages=writer.messages,
        unwritable=unwritable,
        first_unwritable=first,
        bytes=writer.bytes,
        frames=writer.frames,
    )


def _task(
    directory: str, seed: int, invalid_share: float
) -> Any:  # Callable[[int, Iterator[int]], Iterator[dict]]
    def run(index: int, rows: Iterator[int]) -> Iterator[dict[str, Any]]:
        from pyspark import TaskContext

        context = TaskContext.get()
        attempt = context.attemptNumber() if context is not None else 0
        part = write_part(
            directory, index, rows, seed=seed, invalid_share=invalid_share, attempt=attempt
        )
        yield part.to_json()

    return run


def write_parts(
    spark: SparkSession,
    count: int,
    directory: Path,
    partitions: int,
    *,
    seed: int,
    invalid_share: float,
) -> list[PartResult]:
    """Rows ``0 .. count-1`` in ``partitions`` contiguous slices, each written by one task.

    ``parallelize(range(...))`` hands every task its slice without building the list of rows.
    Checks afterwards that the driver sees every file a task wrote, at the size the task
    wrote: executors that wrote to their own disks give one line, not a partial corpus.
    """
    directory.mkdir(parents=True, exist_ok=True)
    rdd = spark.sparkContext.parallelize(range(count), partitions)
    done = rdd.mapPartitionsWithIndex(_task(str(directory), seed, invalid_share)).collect()
    parts = sorted((PartResult(**p) for p in done), key=lambda p: p.index)
    for part in parts:
        path = directory / part.file
        if not path.is_file() or path.stat().st_size != part.bytes:
            raise PipelineError(
                f"--out: {directory}: the driver does not see {part.file} as its task wrote it: "
                "--format pcap needs a folder the driver and every executor share"
            )
    return parts


def generate_pcap(
    spark: SparkSession,
    count: int,
    out: Path,
    partitions: int,
    seed: int,
    invalid_share: float,
    started: float,
) -> CorpusResult:
    """The pcap branch of :func:`~mqcn_suite.pipeline.corpus.generate` (its result)."""
    from mqcn_suite.pipeline.corpus_rows import CorpusResult

    parts = write_parts(spark, count, out, partitions, seed=seed, invalid_share=invalid_share)
    return CorpusResult(
        path=str(out),
        rows=count,
        partitions=partitions,
        files=len(parts),
        seed=seed,
        invalid_share=invalid_share,
        seconds=round(time.perf_counter() - started, 3),
        format="pcap",
        messages=sum(p.messages for p in parts),
        unwritable=sum(p.unwritable for p in parts),
        first_unwritable=next((p.first_unwritable for p in parts if p.first_unwritable), None),
        bytes=sum(p.bytes for p in parts),
    )
