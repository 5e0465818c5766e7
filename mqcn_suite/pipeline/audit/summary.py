"""The summary: counts each task makes of its own rows, merged once into ``summary.json``.

Every task keeps a :class:`Tally` of the rows it emits -- verdicts by conformance, by broken
requirement, by wire or envelope finding (captures), by sender, by version and by server
outcome (counted a batch at a time with
Arrow group-bys); quarantine entries by scope and by reason -- and emits it at its end as a
few rows of status ``tally`` beside its verdicts.  :func:`summarize` merges all tallies in
one Spark job (sums per key; the senders and the quarantine reasons, whose numbers have no
bound, are cut to the top ones inside Spark) and lists the first quarantine entries in
another: no verdict column is read again for the summary.  The counts are those a group-by
over the verdict and quarantine rows gives: a sum over no known value (``rows`` of files
without a footer) stays null, as in SQL.  :func:`summarize_local` does the same in this
process for the in-process engine -- the same merge, cut and order -- so both engines write
the same ``summary.json`` (apart from ``engine`` and the times).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

import mqcn_suite.pipeline.audit.schema as schema
from mqcn_model.catalog import CATALOG, WIRE_CATALOG
from mqcn_model.catalog import requirement as catalog_entry
from mqcn_model.errata import LENIENT, STRICT, Readings
from mqcn_suite.pipeline.audit.kind import Account, InputKind, Plan, input_kind
from mqcn_suite.pipeline.audit.schema import SCOPE_NO_FOOTER, SCOPE_ROW_GROUP, TALLY

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

TOP_SENDERS = 50
TOP_REASONS = 50

# The counts of a tally (the ``tally`` column of its rows) and the columns that key them.
T_VERDICTS = "verdicts"  # conforming
T_REQUIREMENT = "requirement"  # requirement
T_FINDING = "finding"  # requirement: a wire or envelope finding (captures)
T_SENDER = "sender"  # sender
T_VERSION = "version"  # version
T_SERVER = "server"  # server_outcome, server_reason, server_requirement
T_SCOPE = "scope"  # scope
T_REASON = "reason"  # reason
T_COUNTER = "counter"  # counter: one of the input kind's own counts, e.g. a capture's "frames"
_KEYS = {
    T_VERDICTS: ("conforming",),
    T_REQUIREMENT: ("requirement",),
    T_FINDING: ("requirement",),
    T_SENDER: ("sender",),
    T_VERSION: ("version",),
    T_SERVER: ("server_outcome", "server_reason", "server_requirement"),
    T_SCOPE: ("scope",),
    T_REASON: ("reason",),
    T_COUNTER: ("counter",),
}
_KEY_COLUMNS = tuple(dict.fromkeys(c for keys in _KEYS.values() for c in keys))
_COUNT_COLUMNS = ("n", "bad", "rows", "bytes")
_SERVER_KEYS = _KEYS[T_SERVER]
# the verdict columns a tally reads
_TALLIED = ("conforming", "violations", "findings", "sender", "version", *_SERVER_KEYS)


def _add(total: int | None, value: int | None) -> int | None:
    """SQL's SUM of two partial sums: null only while no value was known."""
    if value is None:
        return total
    return value if total is None else total + value


class Tally:
    """The partial counts of the rows one task emitted (merged by :func:`summarize`)."""

    def __init__(self) -> None:
        self.verdicts: dict[bool, int] = {}
        self.requirements: dict[str, int] = {}
        self.findings: dict[str, int] = {}  # messages per wire or envelope finding
        self.senders: dict[str | None, list[int]] = {}  # [messages, non-conforming]
        self.versions: dict[int | None, list[int]] = {}
        self.server: dict[tuple[Any, ...], int] = {}
        self.scopes: dict[str, list[Any]] = {}  # [entries, rows, bytes]
        self.reasons: dict[str, list[Any]] = {}
        # The input kind's own counts by name (a capture's frames, bytes, packets by kind...):
        # summed over every task and handed to the kind (InputKind.account).
        self.counters: dict[str, int] = {}

    def count(self, counter: str, n: int = 1) -> None:
        """Add ``n`` to the input kind's count named ``counter``."""
        self.counters[counter] = self.counters.get(counter, 0) + n

    def add_verdicts(self, batch: pa.RecordBatch) -> None:
        """Count the verdict rows of ``batch`` (their :data:`VERDICT_COLUMNS`), vectorized."""
        table = pa.Table.from_batches([batch]).select(list(_TALLIED))
        bad = pc.cast(pc.invert(table.column("conforming")), pa.int64())
        table = table.append_column("non_conforming", bad)
        for row in pc.value_counts(table.column("conforming")).to_pylist():
            self.verdicts[row["values"]] = self.verdicts.get(row["values"], 0) + row["counts"]
        for column, counts in (("violations", self.requirements), ("findings", self.findings)):
            for row in pc.value_counts(pc.list_flatten(table.column(column))).to_pylist():
                key = row["values"]
                counts[key] = counts.get(key, 0) + row["counts"]
        with_bad = [([], "count_all"), ("non_conforming", "sum")]
        for counts, name in ((self.senders, "sender"), (self.versions, "version")):
            for row in table.group_by(name, use_threads=False).aggregate(with_bad).to_pylist():
                found = counts.setdefault(row[name], [0, 0])
                found[0] += row["count_all"]
                found[1] += row["non_conforming_sum"]
        server = table.group_by(list(_SERVER_KEYS), use_threads=False)
        for row in server.aggregate([([], "count_all")]).to_pylist():
            key = tuple(row[k] for k in _SERVER_KEYS)
            self.server[key] = self.server.get(key, 0) + row["count_all"]

    def add_quarantine(self, scope: str, reason: str, rows: int | None, size: int | None) -> None:
        """Count one quarantine entry."""
        for counts, key in ((self.scopes, scope), (self.reasons, reason)):
            found = counts.get(key)
            if found is None:
                counts[key] = [1, rows, size]
            else:
                found[0] += 1
                found[1] = _add(found[1], rows)
                found[2] = _add(found[2], size)

    def batch(self) -> pa.RecordBatch:
        """The tally as rows of status ``tally`` in :data:`ROW_SCHEMA`."""
        rows: list[dict[str, Any]] = []
        for conforming, n in self.verdicts.items():
            rows.append({"tally": T_VERDICTS, "conforming": conforming, "n": n})
        for tally, counts in ((T_REQUIREMENT, self.requirements), (T_FINDING, self.findings)):
            for requirement, n in counts.items():
                rows.append({"tally": tally, "requirement": requirement, "n": n})
        for sender, (n, bad) in self.senders.items():
            rows.append({"tally": T_SENDER, "sender": sender, "n": n, "bad": bad})
        for version, (n, bad) in self.versions.items():
            rows.append({"tally": T_VERSION, "version": version, "n": n, "bad": bad})
        for (outcome, reason, requirement), n in self.server.items():
            rows.append(
                {
                    "tally": T_SERVER,
                    "server_outcome": outcome,
                    "server_reason": reason,
                    "server_requirement": requirement,
                    "n": n,
                }
            )
        for tally, counts in ((T_SCOPE, self.scopes), (T_REASON, self.reasons)):
            for key, (n, rows_, size) in counts.items():
                rows.append({"tally": tally, tally: key, "n": n, "rows": rows_, "bytes": size})
        for counter, n in self.counters.items():
            rows.append({"tally": T_COUNTER, "counter": counter, "n": n})
        for row in rows:
            row["status"] = TALLY
        return pa.RecordBatch.from_pylist(rows, schema=schema.ROW_SCHEMA)


def summarize(
    frame: DataFrame, plan: Plan, input_path: str | Path, readings: Readings
) -> dict[str, Any]:
    """The ``summary.json`` document from the tally rows of ``frame`` (:data:`ROW_SCHEMA`).

    The quarantine entries listed by name are read from ``frame``'s quarantine rows; each
    other figure comes from the tallies, in one Spark job.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    merged = (
        frame.filter(F.col("status") == TALLY)
        .groupBy("tally", *_KEY_COLUMNS)
        .agg(*(F.sum(c).alias(c) for c in _COUNT_COLUMNS))
    )
    # The senders and the quarantine reasons are cut to their top ones here, in Spark (there
    # may be as many as messages); every other count has few keys and comes back whole.
    order = [
        F.when(F.col("tally") == T_SENDER, F.col("n")).otherwise(F.col("rows")).desc_nulls_last(),
        F.col("bytes").desc_nulls_last(),
        F.col("sender").asc_nulls_first(),
        F.col("reason").asc_nulls_first(),
    ]
    per_tally = Window.partitionBy("tally")
    ranked = merged.select(
        "*",
        F.row_number().over(per_tally.orderBy(*order)).alias("rank"),
        F.count(F.lit(1)).over(per_tally).alias("keys"),
    )
    top = F.when(F.col("tally") == T_SENDER, TOP_SENDERS).when(
        F.col("tally") == T_REASON, TOP_REASONS
    )
    found = ranked.filter(top.isNull() | (F.col("rank") <= top)).collect()
    groups: dict[str, list[Any]] = {name: [] for name in _KEYS}
    distinct: dict[str, int] = {}
    for row in found:
        groups[row["tally"]].append(row)
        distinct[row["tally"]] = row["keys"]
    # timestamps as microseconds: Spark would hand a zone-less local datetime to Python
    columns = [
        F.unix_micros(f.name).alias(f.name) if pa.types.is_timestamp(f.type) else F.col(f.name)
        for f in schema.QUARANTINE_SCHEMA
    ]
    quarantine = frame.filter(F.col("status") == "quarantined").select(*columns)
    entries = quarantine.orderBy("source").limit(TOP_REASONS).collect()
    return document(groups, distinct, entries, plan, input_path, readings)


def _rank(row: dict[str, Any]) -> tuple[Any, ...]:
    """The order :func:`summarize` ranks a tally's keys in (senders by messages, reasons by
    rows, then bytes, sender, reason), as a sort key."""
    primary = row["n"] if row["tally"] == T_SENDER else row["rows"]
    return (
        _nulls_last_desc(primary),
        _nulls_last_desc(row["bytes"]),
        _nulls_first(row["sender"]),
        _nulls_first(row["reason"]),
    )


def summarize_local(
    tallies: list[pa.RecordBatch],
    quarantine: list[dict[str, Any]],
    plan: Plan,
    input_path: str | Path,
    readings: Readings,
) -> dict[str, Any]:
    """:func:`summarize` in this process: ``tallies`` (the tasks' tally batches) merged per
    key, ``quarantine`` the quarantine rows (:data:`QUARANTINE_COLUMNS`, timestamps in
    microseconds)."""
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for batch in tallies:
        for row in batch.to_pylist():
            key = (row["tally"], *(row[c] for c in _KEY_COLUMNS))
            found = merged.get(key)
            if found is None:
                merged[key] = {
                    "tally": row["tally"],
                    **{c: row[c] for c in _KEY_COLUMNS},
                    **{c: row[c] for c in _COUNT_COLUMNS},
                }
            else:
                for c in _COUNT_COLUMNS:
                    found[c] = _add(found[c], row[c])
    groups: dict[str, list[Any]] = {name: [] for name in _KEYS}
    for row in merged.values():
        groups[row["tally"]].append(row)
    distinct = {name: len(rows) for name, rows in groups.items() if rows}
    for name, top in ((T_SENDER, TOP_SENDERS), (T_REASON, TOP_REASONS)):
        groups[name] = sorted(groups[name], key=_rank)[:top]
    entries = sorted(quarantine, key=lambda r: _nulls_first(r["source"]))[:TOP_REASONS]
    return document(groups, distinct, entries, plan, input_path, readings)


def _iso(micros: int | None) -> str | None:
    """Microseconds since the epoch as ISO 8601 UTC text for summary.json (None stays None).

    >>> _iso(1_767_225_600_250_000)
    '2026-01-01T00:00:00.250000+00:00'
    """
    if micros is None:
        return None
    return (
        datetime.fromtimestamp(micros // 1_000_000, UTC)
        .replace(microsecond=micros % 1_000_000)
        .isoformat()
    )


def _nulls_first(value: Any) -> tuple[bool, Any]:
    return (value is not None, value if value is not None else 0)


def _nulls_last_desc(value: Any) -> tuple[bool, Any]:
    return (value is None, -value if value is not None else 0)


def document(
    groups: dict[str, list[Any]],
    distinct: dict[str, int],
    entries: list[Any],
    plan: Plan,
    input_path: str | Path,
    readings: Readings,
) -> dict[str, Any]:
    """``summary.json`` from the merged tallies (rows by tally name) and the first entries."""
    kind = input_kind(plan.mode)
    balance, account = _balance(groups, plan, kind)
    return {
        "input": str(input_path),
        "mode": plan.mode,
        "readings": _readings_name(readings),
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "balance": balance,
        "by_requirement": _by_requirement(groups[T_REQUIREMENT]),
        "findings_by_requirement": _by_finding(groups[T_FINDING]),
        "by_sender": _by_sender(groups[T_SENDER]),
        "distinct_senders": distinct.get(T_SENDER, 0),
        "by_version": _by_version(groups[T_VERSION]),
        "by_server_outcome": _by_server(groups[T_SERVER]),
        "quarantine": {
            "by_reason": _quarantine_reasons(groups[T_REASON]),
            "entries": _quarantine_entries(entries),
        },
        **({plan.mode: account.block} if account is not None else {}),
    }


def _balance(
    groups: dict[str, list[Any]], plan: Plan, kind: InputKind
) -> tuple[dict[str, Any], Account | None]:
    """summary.json's ``balance``: rows in = conforming + non-conforming + quarantined (+ the
    kind's counted terms), with what the kind adds from its tasks' counts (:class:`Account`)."""
    totals = {r["conforming"]: r["n"] for r in groups[T_VERDICTS]}
    conforming, non_conforming = totals.get(True, 0), totals.get(False, 0)
    by_scope = {r["scope"]: r for r in groups[T_SCOPE]}
    quarantined = sum(int(r["rows"] or 0) for r in by_scope.values())
    no_footer = by_scope.get(SCOPE_NO_FOOTER)
    row_groups = by_scope.get(SCOPE_ROW_GROUP)
    counters = {r["counter"]: int(r["n"]) for r in groups[T_COUNTER]}
    entries = sum(int(r["n"]) for r in by_scope.values())
    account = kind.account(counters, entries)  # what only the tasks know, such as the rows in
    rows_in = plan.rows_expected
    if account is not None and account.rows_in is not None:
        rows_in = account.rows_in
    balance: dict[str, Any] = {
        "rows_in": rows_in,
        "conforming": conforming,
        "non_conforming": non_conforming,
        "quarantined": quarantined,
        "rows_in_unreadable_row_groups": int(row_groups["rows"] or 0) if row_groups else 0,
        "files_without_footer": int(no_footer["n"]) if no_footer else 0,
        "bytes_without_footer": int(no_footer["bytes"] or 0) if no_footer else 0,
    }
    counted = 0
    if account is not None:
        balance.update(account.counted)
        balance.update(account.figures)
        counted = sum(account.counted.values())
    balance["balanced"] = rows_in == conforming + non_conforming + counted + quarantined and (
        account is None or account.balanced
    )
    return balance, account


def _readings_name(readings: Readings) -> str:
    if readings == STRICT:
        return "strict"
    return "lenient" if readings == LENIENT else "custom"


def _by_requirement(rows: list[Any]) -> list[dict[str, Any]]:
    """The content requirements broken, most messages first, with their catalog text."""
    listed = []
    for r in sorted(rows, key=lambda r: (-r["n"], r["requirement"])):
        entry = CATALOG.get(r["requirement"])
        listed.append(
            {
                "requirement": r["requirement"],
                "messages": r["n"],
                "section": entry.section if entry is not None else None,
                "keyword": entry.keyword if entry is not None else None,
                "statement": entry.statement if entry is not None else None,
            }
        )
    return listed


def _by_finding(rows: list[Any]) -> list[dict[str, Any]]:
    """The wire and envelope findings, most messages first, with their catalog text."""
    listed = []
    for r in sorted(rows, key=lambda r: (-r["n"], r["requirement"])):
        requirement = r["requirement"]
        entry = catalog_entry(requirement)
        wire = WIRE_CATALOG.get(requirement)
        listed.append(
            {
                "requirement": requirement,
                "kind": "envelope" if requirement in CATALOG else "wire",
                "rule": wire.rule if wire is not None else None,
                "messages": r["n"],
                "section": entry.section,
                "keyword": entry.keyword,
                "statement": entry.statement,
            }
        )
    return listed


def _by_sender(rows: list[Any]) -> list[dict[str, Any]]:
    return [
        {"sender": r["sender"], "messages": r["n"], "non_conforming": r["bad"]}
        for r in sorted(rows, key=lambda r: (-r["n"], _nulls_first(r["sender"])))
    ]


def _version_label(version: int | None) -> str:
    """``0x01 (directory service)``, ``0x02 (queue manager)``, ``empty``, ``0x07 (undefined)``.

    >>> _version_label(None), _version_label(7)
    ('empty', '0x07 (undefined)')
    """
    known = {1: "0x01 (directory service)", 2: "0x02 (queue manager)"}.get(version or 0)
    if known is not None:
        return known
    return "empty" if version is None else f"0x{version:02x} (undefined)"


def _by_version(rows: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "version": r["version"],
            "label": _version_label(r["version"]),
            "messages": r["n"],
            "non_conforming": r["bad"],
        }
        for r in sorted(rows, key=lambda r: _nulls_first(r["version"]))
    ]


def _by_server(rows: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "outcome": r["server_outcome"],
            "reason": r["server_reason"],
            "requirement": r["server_requirement"],
            "messages": r["n"],
        }
        for r in sorted(rows, key=lambda r: (-r["n"], *(_nulls_first(r[k]) for k in _SERVER_KEYS)))
    ]


def _quarantine_reasons(rows: list[Any]) -> list[dict[str, Any]]:
    return [
        {"reason": r["reason"], "entries": r["n"], "rows": r["rows"], "bytes": r["bytes"]}
        for r in sorted(
            rows,
            key=lambda r: (_nulls_last_desc(r["rows"]), _nulls_last_desc(r["bytes"]), r["reason"]),
        )
    ]


def _quarantine_entries(entries: list[Any]) -> list[dict[str, Any]]:
    """The first quarantine entries by source: the core columns, then each kind's provenance
    columns (a list column as a list, a timestamp, held in microseconds, as ISO 8601 text)."""
    provenance = schema.QUARANTINE_SCHEMA
    listed = []
    for r in entries:
        entry = {k: r[k] for k in ("source", "scope", "rows", "bytes", "reason", "detail")}
        for name in schema.PROVENANCE_COLUMNS:
            entry[name] = _json_value(provenance.field(name).type, r[name])
        listed.append(entry)
    return listed


def _json_value(kind: pa.DataType, value: Any) -> Any:
    """A provenance value as summary.json holds it."""
    if value is None:
        return None
    if pa.types.is_timestamp(kind):
        return _iso(value)
    if pa.types.is_list(kind):
        return list(value)
    return value


def balance_text(summary: dict[str, Any]) -> str:
    """The balance of ``summary`` (summary.json) as one line, in the words of its input kind
    (the CLI, summary.html)."""
    mode = summary["mode"]
    return input_kind(mode).balance_text(summary["balance"], summary.get(mode))


def render_html(summary: dict[str, Any]) -> str:
    """``summary.html``: the summary as one self-contained page (no external assets)."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(
        loader=PackageLoader("mqcn_suite.pipeline", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    kind = input_kind(summary["mode"])
    return env.get_template("summary.html.j2").render(
        s=summary, kind=kind, block=summary.get(kind.mode), balance_line=balance_text(summary)
    )
