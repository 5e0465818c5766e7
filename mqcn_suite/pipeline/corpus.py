"""The corpus: captured (or synthetic) MSMQ messages as a Parquet dataset.

:data:`SCHEMA` is the one truth about the format (``docs/corpus-format.md`` explains it
column by column); the Spark schema, the generator and the audit's reader all derive from
it.  One row is one MSMQ message as it reached a notification queue:

=========================  ================  ==============================================
column                     type              meaning
=========================  ================  ==============================================
message_id                 binary (20)       PROPID_M_MSGID: sender GUID (LE) + 4-byte LE seq
sender_identifier          string / null     Message.SenderIdentifier as GUID text
sender_identifier_type     string            SenderIdType name: None, Sid, QueueManagerIdentifier
authentication_level       string            AuthLevel name: None, Always, Sig10, Sig20, ...
arrival_time               timestamp (UTC)   when the message reached the queue
destination_format_name    string            the notification queue's format name
body                       binary            the message body (2.2.4 + the 3.3.5.3 spare byte)
=========================  ================  ==============================================

:func:`generate` builds a synthetic corpus **on Spark**: ``spark.range(count)`` split into
partitions, each turned into Arrow batches by ``mapInArrow``.  Every row is drawn from a
generator seeded by ``(seed, row)`` (:func:`~mqcn_suite.pipeline.generators.row_rng`), so
each partition is seeded deterministically and the rows do not depend on how many partitions
or workers there are: the same seed gives byte-identical rows.

>>> [f.name for f in SCHEMA]  # doctest: +NORMALIZE_WHITESPACE
['message_id', 'sender_identifier', 'sender_identifier_type', 'authentication_level',
 'arrival_time', 'destination_format_name', 'body']
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mqcn_suite.pipeline.capture_corpus import check_format, generate_pcap, local_out
from mqcn_suite.pipeline.checks import check_generate_arguments
from mqcn_suite.pipeline.corpus_rows import CorpusResult, corpus_message
from mqcn_suite.pipeline.errors import locate_failure
from mqcn_suite.pipeline.session import default_parallelism
from mqcn_suite.pipeline.storage import Location

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

FORMAT_VERSION = 1
MANIFEST = "_mqcn_corpus.json"
BODY = "body"
ROWS_PER_PARTITION = 100_000

SCHEMA = pa.schema(
    [
        pa.field(
            "message_id",
            pa.binary(),
            metadata={"doc": "PROPID_M_MSGID, 20 bytes: sender GUID (bytes_le) + LE uint32"},
        ),
        pa.field(
            "sender_identifier",
            pa.string(),
            metadata={"doc": "Message.SenderIdentifier as GUID text; null when not sent"},
        ),
        pa.field(
            "sender_identifier_type",
            pa.string(),
            metadata={"doc": "SenderIdType name: None, Sid, QueueManagerIdentifier"},
        ),
        pa.field(
            "authentication_level",
            pa.string(),
            metadata={"doc": "AuthLevel name: None, Always, Sig10, Sig20, Sig30, XMLDSig"},
        ),
        pa.field(
            "arrival_time",
            pa.timestamp("us", tz="UTC"),
            metadata={"doc": "when the message reached the notification queue (UTC)"},
        ),
        pa.field(
            "destination_format_name",
            pa.string(),
            metadata={"doc": "format name of the notification queue (MS-MQCN 1.9)"},
        ),
        pa.field(
            BODY,
            pa.binary(),
            metadata={"doc": "the MSMQ message body: a 2.2.4 message, spare byte optional"},
        ),
    ],
    metadata={"format": "mqcn-corpus", "version": str(FORMAT_VERSION)},
)
COLUMNS: tuple[str, ...] = tuple(SCHEMA.names)


def spark_schema() -> StructType:
    """:data:`SCHEMA` as a Spark StructType (derived, never written by hand)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(SCHEMA)


def generate_rows(ids: list[int], seed: int, invalid_share: float) -> pa.RecordBatch:
    """The corpus rows with the given row numbers, as one Arrow batch of :data:`SCHEMA`.

    Pure function of its arguments: this is what every Spark task runs on its slice of
    ``spark.range``, and what a test can call directly.
    """
    columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    arrivals: list[int] = []
    for row in ids:
        arrival, env = corpus_message(row, seed, invalid_share)
        columns["message_id"].append(env.message_id.to_bytes())
        sender = env.sender_identifier
        columns["sender_identifier"].append(str(sender) if sender is not None else None)
        columns["sender_identifier_type"].append(env.sender_identifier_type.name.rstrip("_"))
        columns["authentication_level"].append(env.authentication_level.name.rstrip("_"))
        arrivals.append(arrival)
        columns["destination_format_name"].append(env.destination_format_name)
        columns[BODY].append(env.body)
    arrays = []
    for field in SCHEMA:
        if field.name == "arrival_time":
            arrays.append(pa.array(arrivals, pa.int64()).cast(field.type))
        else:
            arrays.append(pa.array(columns[field.name], field.type))
    return pa.RecordBatch.from_arrays(arrays, schema=SCHEMA)


def generate(
    spark: SparkSession,
    count: int,
    out: str | Path,
    invalid_share: float = 0.1,
    seed: int = 0,
    format: str = "parquet",
) -> CorpusResult:
    """Write a synthetic corpus of ``count`` messages to the directory ``out``.

    About ``invalid_share`` of the rows are malformed or non-conforming bodies (mutations,
    members of the catalogue of named defects, invalid reference vectors); the rest are
    conforming messages of both versions, of all four events and all three commands, from
    many senders; a few percent of the conforming Version 0x01 messages carry an envelope a
    server must disregard (SenderIdentifierType or AuthenticationLevel).  ``format``:
    ``parquet`` (:data:`SCHEMA`) or ``pcap`` (one capture file per partition, the same
    messages as MS-MQQB sessions: :mod:`.capture_corpus`).  A manifest
    (``_mqcn_corpus.json``, ignored by Parquet and capture readers) records the parameters.
    """
    pcap = check_format(format) == "pcap"
    # a local path or a Hadoop filesystem URI; captures, written by the executors: local only
    out = Location(local_out(out) if pcap else out)
    check_generate_arguments(count, out, invalid_share)
    started = time.perf_counter()
    wanted = max(default_parallelism(spark), math.ceil(count / ROWS_PER_PARTITION))
    partitions = max(1, min(wanted, count))
    if pcap:
        result = generate_pcap(spark, count, out.path, partitions, seed, invalid_share, started)
        write_manifest(out, result)
        return result

    def batches(iterator: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in iterator:
            ids = batch.column(0).to_pylist()
            if ids:
                try:
                    rows = generate_rows(ids, seed, invalid_share)
                except Exception:  # name the row that fails (TaskFailure), then fail anyway
                    where = f"row {{item}} of seed {seed}"
                    locate_failure(ids, lambda i: generate_rows([i], seed, invalid_share), where)
                    raise
                yield rows

    # INT96 (Spark's default) would come back as a zone-less nanosecond timestamp.
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    frame = spark.range(0, count, 1, partitions).mapInArrow(batches, spark_schema())
    if out.is_dir():
        out.rmdir()  # an empty directory: Spark's errorifexists mode wants it absent
    frame.write.mode("errorifexists").parquet(str(out))
    files = sorted(p for p in out.glob("*.parquet"))
    result = CorpusResult(
        path=str(out),
        rows=count,
        partitions=partitions,
        files=len(files),
        seed=seed,
        invalid_share=invalid_share,
        seconds=round(time.perf_counter() - started, 3),
        messages=count,
    )
    write_manifest(out, result)
    return result


def write_manifest(out: Location, result: CorpusResult) -> None:
    """``_mqcn_corpus.json``: what :func:`generate` wrote (``format``: parquet or pcap)."""
    manifest = {"manifest": "mqcn-corpus", "version": FORMAT_VERSION, **result.to_json()}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")


def read_corpus(path: str | Path) -> pa.Table:
    """The whole corpus at ``path`` as one Arrow table (for tests and small corpora)."""
    import pyarrow.dataset as ds

    return ds.dataset(str(path), format="parquet", ignore_prefixes=[".", "_"]).to_table()
