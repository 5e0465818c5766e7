"""What the audit writes: output directory names, Arrow schemas, row kinds and quarantine scopes.

Everything here is data: the other modules of the package build rows in these schemas, and
``docs/corpus-format.md`` documents the two that users read (verdicts and quarantine).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

VERDICTS_DIR = "verdicts"
QUARANTINE_DIR = "quarantine"
SUMMARY_JSON = "summary.json"
SUMMARY_HTML = "summary.html"
STAGING_DIR = "_rows"  # removed when the audit ends

VERDICT_SCHEMA = pa.schema(
    [
        ("source", pa.string()),  # "file.parquet#row" or the raw file's path
        ("message_id", pa.binary()),
        ("sender", pa.string()),  # the sending computer: GUID of message_id's first 16 bytes
        ("version", pa.int32()),  # the Version byte (null: empty body)
        ("size", pa.int64()),
        ("conforming", pa.bool_()),
        ("violations", pa.list_(pa.string())),  # requirement IDs, in order of first appearance
        ("first_offset", pa.int64()),
        ("first_message", pa.string()),
        ("commands", pa.list_(pa.string())),  # Version 0x01: each update's Command
        ("event", pa.string()),  # Version 0x02: the Event
        ("object_guids", pa.list_(pa.string())),
        ("updates", pa.int32()),  # Version 0x01: number of updates decoded
        ("domain_controller", pa.string()),
        ("server_outcome", pa.string()),  # processed / disregarded
        ("server_reason", pa.string()),  # authentication / object type / malformed / version
        ("server_requirement", pa.string()),
        ("server_detail", pa.string()),
        # Captures: the wire value rules the packet breaks, then the 3.3.5.3 sender rules its
        # envelope breaks (requirement IDs; ``conforming`` is the body's verdict), and each
        # as "ID at byte N: sentence".  Empty for the other input kinds.
        ("findings", pa.list_(pa.string())),
        ("finding_messages", pa.list_(pa.string())),
        # Where a message of a capture was (mode "capture"; null for the other input kinds):
        ("capture", pa.string()),  # the capture file
        ("frames", pa.list_(pa.int64())),  # its frame numbers, 1-based as Wireshark numbers them
        ("stream", pa.string()),  # the TCP direction, "src-ip:port -> dst-ip:port"
        ("capture_time", pa.timestamp("us", tz="UTC")),  # capture time of its last frame
    ]
)
# The verdict and quarantine columns that say where in a capture a row comes from.
CAPTURE_COLUMNS: tuple[str, ...] = ("capture", "frames", "stream", "capture_time")
# What one quarantine entry stands for (the ``scope`` column).
SCOPE_ROW = "row"  # one row that was read but cannot be judged (a null body, ...)
SCOPE_ROW_GROUP = "row group"  # a row group whose data cannot be read: rows from the footer
SCOPE_NO_FOOTER = "file without footer"  # a Parquet file whose footer cannot be read
SCOPE_FILE = "file"  # a raw body that cannot be read, or a stray file in a Parquet corpus
SCOPE_CAPTURE_PACKET = "capture packet"  # a UserMessage framed in a capture, not judged: 1 row
SCOPE_CAPTURE_BYTES = "capture bytes"  # capture bytes that are no packet, or lost: rows unknown
QUARANTINE_SCHEMA = pa.schema(
    [
        ("source", pa.string()),  # the file, "file#rowgroup=N", or "file#row"
        ("message_id", pa.binary()),
        ("scope", pa.string()),  # SCOPE_*
        ("rows", pa.int64()),  # input rows this entry stands for; null: unknown (no footer)
        ("bytes", pa.int64()),  # the file's size without a readable footer; capture bytes
        ("reason", pa.string()),
        ("detail", pa.string()),  # capture entries: what the reason means here, in a sentence
        *(VERDICT_SCHEMA.field(name) for name in CAPTURE_COLUMNS),
    ]
)
VERDICT_COLUMNS: tuple[str, ...] = tuple(VERDICT_SCHEMA.names)
QUARANTINE_COLUMNS: tuple[str, ...] = tuple(QUARANTINE_SCHEMA.names)

# The three kinds of row the Spark job emits (the ``status`` column).
VERDICT = "verdict"  # one judged message: the VERDICT_SCHEMA columns
QUARANTINED = "quarantined"  # input set aside: the QUARANTINE_SCHEMA columns
TALLY = "tally"  # one partial count of the summary (see .summary.Tally): never an output row
# The columns only tally rows fill: which count (``tally``), the requirement it is about, and
# the counts.  Their other keys reuse the verdict and quarantine columns (sender, version,
# server_*, scope, reason) and sums of ``rows`` and ``bytes``.
TALLY_FIELDS = [
    pa.field("tally", pa.string()),
    pa.field("requirement", pa.string()),
    pa.field("n", pa.int64()),  # messages, or quarantine entries
    pa.field("bad", pa.int64()),  # of them, non-conforming
    pa.field("counter", pa.string()),  # the name of a capture count (.capture)
]
# What the Spark job emits: the three kinds of row in one schema, told apart by ``status``.
ROW_SCHEMA = pa.schema(
    [pa.field("status", pa.string())]
    + [VERDICT_SCHEMA.field(n) for n in VERDICT_COLUMNS]
    + [QUARANTINE_SCHEMA.field(n) for n in ("scope", "rows", "bytes", "reason", "detail")]
    + TALLY_FIELDS
)
ROW_COLUMNS: tuple[str, ...] = tuple(ROW_SCHEMA.names)


def quarantine_row(
    source: str,
    reason: str,
    rows: int | None,
    message_id: bytes | None = None,
    *,
    scope: str = SCOPE_ROW,
    size: int | None = None,
    detail: str | None = None,
    where: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A quarantine entry as a dict of :data:`QUARANTINE_COLUMNS`: ``rows`` rows set aside, and why.

    ``rows`` is None for input whose rows nobody can count -- a file without a readable
    footer, capture bytes that are no packet: ``size`` (its bytes) then says how much input
    it is.  ``where``: the :data:`CAPTURE_COLUMNS` of an entry from a capture.
    """
    entry = {
        "source": source,
        "message_id": message_id,
        "scope": scope,
        "rows": rows,
        "bytes": size,
        "reason": reason,
        "detail": detail,
        "capture": None,
        "frames": None,
        "stream": None,
        "capture_time": None,
    }
    if where:
        entry.update(where)
    return entry


def spark_schema(schema: pa.Schema) -> Any:
    """``schema`` as a Spark StructType (Spark is imported only when this is called)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)
