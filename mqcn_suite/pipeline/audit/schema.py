"""What the audit writes: output directory names, Arrow schemas, row kinds and quarantine scopes.

Everything here is data: the other modules of the package build rows in these schemas, and
``docs/corpus-format.md`` documents the two that users read (verdicts and quarantine).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

VERDICTS_DIR = "verdicts"
QUARANTINE_DIR = "quarantine"
SUMMARY_JSON = "summary.json"
SUMMARY_HTML = "summary.html"
STAGING_DIR = "_rows"  # removed when the audit ends

# The verdict columns every input kind fills: what the judge and the reference server say.
CORE_VERDICT_FIELDS: tuple[pa.Field, ...] = (
    pa.field("source", pa.string()),  # "file.parquet#row", the raw file's path, ...
    pa.field("message_id", pa.binary()),
    pa.field("sender", pa.string()),  # the sending computer: GUID of message_id's first 16 bytes
    pa.field("version", pa.int32()),  # the Version byte (null: empty body)
    pa.field("size", pa.int64()),
    pa.field("conforming", pa.bool_()),
    pa.field("violations", pa.list_(pa.string())),  # requirement IDs, by first appearance
    pa.field("first_offset", pa.int64()),
    pa.field("first_message", pa.string()),
    pa.field("commands", pa.list_(pa.string())),  # Version 0x01: each update's Command
    pa.field("event", pa.string()),  # Version 0x02: the Event
    pa.field("object_guids", pa.list_(pa.string())),
    pa.field("updates", pa.int32()),  # Version 0x01: number of updates decoded
    pa.field("domain_controller", pa.string()),
    pa.field("server_outcome", pa.string()),  # processed / disregarded
    pa.field("server_reason", pa.string()),  # authentication / object type / malformed / version
    pa.field("server_requirement", pa.string()),
    pa.field("server_detail", pa.string()),
    # The findings outside the body's verdict (``conforming`` is the body's): requirement IDs,
    # and each as "ID at byte N: sentence".  Empty where the input carries no packet.
    pa.field("findings", pa.list_(pa.string())),
    pa.field("finding_messages", pa.list_(pa.string())),
)
# What one quarantine entry stands for (the ``scope`` column); a kind may add its own.
SCOPE_ROW = "row"  # one row that was read but cannot be judged (a null body, ...)
SCOPE_ROW_GROUP = "row group"  # a row group whose data cannot be read: rows from the footer
SCOPE_NO_FOOTER = "file without footer"  # a Parquet file whose footer cannot be read
SCOPE_FILE = "file"  # a raw body that cannot be read, or a stray file in a Parquet corpus
CORE_QUARANTINE_FIELDS: tuple[pa.Field, ...] = (
    pa.field("source", pa.string()),  # the file, "file#rowgroup=N", or "file#row"
    pa.field("message_id", pa.binary()),
    pa.field("scope", pa.string()),  # SCOPE_*
    pa.field("rows", pa.int64()),  # input rows this entry stands for; null: unknown (no footer)
    pa.field("bytes", pa.int64()),  # the size of input whose rows are unknown
    pa.field("reason", pa.string()),
    pa.field("detail", pa.string()),  # what the reason means here, in a sentence
)

# The three kinds of row the Spark job emits (the ``status`` column).
VERDICT = "verdict"  # one judged message: the verdict columns
QUARANTINED = "quarantined"  # input set aside: the quarantine columns
TALLY = "tally"  # one partial count of the summary (see .summary.Tally): never an output row
# The columns only tally rows fill: which count (``tally``), the requirement it is about, and
# the counts.  Their other keys reuse the verdict and quarantine columns (sender, version,
# server_*, scope, reason) and sums of ``rows`` and ``bytes``.
TALLY_FIELDS = (
    pa.field("tally", pa.string()),
    pa.field("requirement", pa.string()),
    pa.field("n", pa.int64()),  # messages, or quarantine entries
    pa.field("bad", pa.int64()),  # of them, non-conforming
    pa.field("counter", pa.string()),  # the name of one of the input kind's own counts
)

# --- the provenance columns of the input kinds -----------------------------------------------
#
# An input kind may say where each of its rows was with columns of its own (a capture: the
# capture file, its frames, stream and time).  They end both the verdict and the quarantine
# schema, for every kind (null where a row is from another kind), so the output format is one.
# A kind declares them when it registers (.kind.register_input_kind); the schemas are built
# the first time one is asked for, and then no more columns can join.

_PROVENANCE: list[pa.Field] = []
_BUILT: dict[str, Any] = {}


def add_provenance_columns(fields: tuple[pa.Field, ...]) -> None:
    """Append an input kind's provenance ``fields`` to the verdict and quarantine schemas."""
    if not fields:
        return
    if _BUILT:
        raise RuntimeError(
            "provenance columns must be declared before the audit's schemas are first used: "
            f"{', '.join(f.name for f in fields)} came too late"
        )
    taken = {f.name for f in (*CORE_VERDICT_FIELDS, *CORE_QUARANTINE_FIELDS, *_PROVENANCE)}
    clash = [f.name for f in fields if f.name in taken]
    if clash:
        raise ValueError(f"provenance column(s) {', '.join(clash)} already exist")
    _PROVENANCE.extend(fields)


def _build() -> dict[str, Any]:
    verdict = pa.schema([*CORE_VERDICT_FIELDS, *_PROVENANCE])
    quarantine = pa.schema([*CORE_QUARANTINE_FIELDS, *_PROVENANCE])
    row = pa.schema(
        [pa.field("status", pa.string())]
        + list(verdict)
        + [quarantine.field(n) for n in ("scope", "rows", "bytes", "reason", "detail")]
        + list(TALLY_FIELDS)
    )
    return {
        "VERDICT_SCHEMA": verdict,
        "QUARANTINE_SCHEMA": quarantine,
        "ROW_SCHEMA": row,
        "VERDICT_COLUMNS": tuple(verdict.names),
        "QUARANTINE_COLUMNS": tuple(quarantine.names),
        "ROW_COLUMNS": tuple(row.names),
        "PROVENANCE_COLUMNS": tuple(f.name for f in _PROVENANCE),
    }


if TYPE_CHECKING:  # built on first use by __getattr__ below
    VERDICT_SCHEMA: pa.Schema
    QUARANTINE_SCHEMA: pa.Schema
    ROW_SCHEMA: pa.Schema  # what the Spark job emits: the three kinds of row, by ``status``
    VERDICT_COLUMNS: tuple[str, ...]
    QUARANTINE_COLUMNS: tuple[str, ...]
    ROW_COLUMNS: tuple[str, ...]
    PROVENANCE_COLUMNS: tuple[str, ...]  # every kind's provenance columns, in order


def __getattr__(name: str) -> Any:
    """The schemas and their column names, built once every built-in kind has registered."""
    if name in _LAZY:
        if not _BUILT:
            _BUILT.update(_build())
        return _BUILT[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_LAZY = frozenset(
    (
        "VERDICT_SCHEMA",
        "QUARANTINE_SCHEMA",
        "ROW_SCHEMA",
        "VERDICT_COLUMNS",
        "QUARANTINE_COLUMNS",
        "ROW_COLUMNS",
        "PROVENANCE_COLUMNS",
    )
)


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
    it is.  ``where``: the values of the kind's provenance columns (the others stay null).
    """
    entry: dict[str, Any] = {
        "source": source,
        "message_id": message_id,
        "scope": scope,
        "rows": rows,
        "bytes": size,
        "reason": reason,
        "detail": detail,
        **dict.fromkeys(__getattr__("PROVENANCE_COLUMNS")),
    }
    if where:
        entry.update(where)
    return entry


def spark_schema(schema: pa.Schema) -> Any:
    """``schema`` as a Spark StructType (Spark is imported only when this is called)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)
