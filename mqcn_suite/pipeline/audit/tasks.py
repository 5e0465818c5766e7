"""What every input kind's task is made of: :class:`RowBuilder` and the :data:`Task` type.

Each input kind (:mod:`.kind`, :mod:`.kinds`) has a task function, run by the executors on
batches of its work units (Parquet row groups, raw files, captures), and a frame function,
run by the driver, that makes the Spark DataFrame of that work and maps the task over it;
its ``local`` function feeds the very same task the same work in this process (the
in-process engine, :mod:`mqcn_suite.pipeline.engine`).  A task judges every message with
one :class:`~.judging.Auditor`, builds its output columns in Arrow (:class:`RowBuilder`),
keeps a :class:`~.summary.Tally` of what it emitted and emits the tally last.  Nothing a
task reads is ever dropped: a row, row group or file it cannot judge becomes a quarantine
entry that says how many input rows it stands for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pyarrow as pa

import mqcn_suite.pipeline.audit.schema as schema
from mqcn_model.errors import Violation
from mqcn_suite.pipeline.audit.judging import Auditor
from mqcn_suite.pipeline.audit.schema import QUARANTINED, VERDICT, quarantine_row
from mqcn_suite.pipeline.audit.summary import Tally
from mqcn_suite.pipeline.corpus import BODY

# A kind's task: batches of its work units in, ROW_SCHEMA batches out (``mapInArrow``).
Task = Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]
# The values of the provenance columns of one message (schema.PROVENANCE_COLUMNS).
Where = tuple[Any, ...]


class RowBuilder:
    """The rows of one output batch, gathered per message and turned into Arrow columns.

    A verdict is kept as its tuple of values; :meth:`batches` converts the tuples into Arrow
    columns in one call (no dict per row, no ``from_pylist``) and counts every row it emits in
    ``tally`` -- rows dropped by :meth:`discard` are never counted.
    """

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        row_schema = schema.ROW_SCHEMA
        verdict_names = set(schema.VERDICT_COLUMNS)
        self._row_schema = row_schema
        self._verdict_struct = pa.struct(list(schema.VERDICT_SCHEMA))  # one verdict's values
        self._other_fields = [
            f for f in row_schema if f.name != "status" and f.name not in verdict_names
        ]
        self._verdicts: list[tuple[Any, ...]] = []
        self._quarantine: list[dict[str, Any]] = []

    def quarantine(self, entry: dict[str, Any]) -> None:
        """One quarantine entry (:func:`~.schema.quarantine_row`)."""
        self._quarantine.append(entry)

    def judge(
        self,
        auditor: Auditor,
        sources: Sequence[str],
        bodies: Sequence[Any],
        message_ids: Sequence[bytes | None] | None = None,
        sender_types: Sequence[str | None] | None = None,
        auth_levels: Sequence[str | None] | None = None,
        where: Sequence[Where] | None = None,
        findings: Sequence[Sequence[Violation]] | None = None,
    ) -> None:
        """Judge each message of a batch, or quarantine the ones that cannot be judged at all.

        The arguments are columns, one value per message.  An envelope column not given holds
        what a corpus without it is taken to hold: no message id, an authenticated
        (``Sig20``) ``QueueManagerIdentifier`` sender.  ``where``: the values of the provenance
        columns of each message (:data:`~.schema.PROVENANCE_COLUMNS`), for a kind that says
        where its messages were (a capture); ``findings``: findings beyond the body's verdict
        (a captured message's wire and envelope findings).
        """
        values, verdicts, quarantine = auditor.values, self._verdicts, self._quarantine
        count = len(bodies)
        envelopes = zip(
            [None] * count if message_ids is None else message_ids,
            ["QueueManagerIdentifier"] * count if sender_types is None else sender_types,
            ["Sig20"] * count if auth_levels is None else auth_levels,
            [None] * count if where is None else where,
            [()] * count if findings is None else findings,
            strict=True,
        )
        for source, body, (message_id, kind, level, place, found) in zip(
            sources, bodies, envelopes, strict=True
        ):
            if body is None:
                entry = quarantine_row(source, f"{BODY} is null", 1, message_id)
                quarantine.append(_placed(entry, place))
                continue
            try:
                verdicts.append(values(source, bytes(body), message_id, kind, level, place, found))
            except Exception as exc:  # a bug in the model must not lose the row
                reason = f"internal error: {type(exc).__name__}: {exc}"
                quarantine.append(_placed(quarantine_row(source, reason, 1, message_id), place))

    def discard(self) -> None:
        """Forget the rows added since the last :meth:`batches` (their input is set aside)."""
        self._verdicts, self._quarantine = [], []

    def batches(self) -> list[pa.RecordBatch]:
        """The rows added since the last call, as :data:`ROW_SCHEMA` batches; now counted."""
        verdicts, self._verdicts = self._verdicts, []
        quarantine, self._quarantine = self._quarantine, []
        out = []
        if verdicts:
            struct = pa.array(verdicts, self._verdict_struct)
            judged = pa.RecordBatch.from_struct_array(struct)
            count = len(verdicts)
            arrays = [pa.repeat(pa.scalar(VERDICT), count), *judged.columns]
            arrays += [pa.nulls(count, field.type) for field in self._other_fields]
            out.append(pa.RecordBatch.from_arrays(arrays, schema=self._row_schema))
        if quarantine:
            rows = [{"status": QUARANTINED, **entry} for entry in quarantine]
            out.append(pa.RecordBatch.from_pylist(rows, schema=self._row_schema))
        # Counted once built: rows whose batch cannot be built are not emitted (the caller
        # quarantines their input), so they must not be counted either.
        if verdicts:
            self.tally.add_verdicts(out[0])
        for entry in quarantine:
            scope, reason = entry["scope"], entry["reason"]
            self.tally.add_quarantine(scope, reason, entry["rows"], entry["bytes"])
        return out


def _placed(entry: dict[str, Any], where: Where | None) -> dict[str, Any]:
    """``entry`` with the provenance columns ``where`` (unchanged when None)."""
    if where is None:
        return entry
    return {**entry, **dict(zip(schema.PROVENANCE_COLUMNS, where, strict=True))}
