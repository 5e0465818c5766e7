"""The input-kind interface: what one kind of audit input owns, and the registry of kinds.

An :class:`InputKind` is everything the audit knows about one kind of input, in one place:

* **detection** -- :attr:`~InputKind.claims` (does it read these files?) and
  :attr:`~InputKind.refuses` (why a single INPUT file it expected cannot be read at all);
* **planning** -- :attr:`~InputKind.plan`: the typed work units (:class:`Unit`), what is set
  aside at once, the rows known to be there, the words of the audit's first line;
* **its task** -- :attr:`~InputKind.frame` (the Spark DataFrame of its work, mapped by its
  task) and :attr:`~InputKind.local` (the very same task fed in this process);
* **provenance columns** -- :attr:`~InputKind.columns`, ending the verdict and quarantine
  schemas (:mod:`.schema`);
* **its per-task tally** -- the named counts its task adds to the generic
  :class:`~.summary.Tally` (``rows.tally.count(name, n)``), summed over all tasks and handed
  to :attr:`~InputKind.account`, which makes of them its **summary block**
  (``summary.json[mode]``) and its terms of the **balance** (:class:`Account`);
* **balance text** -- :attr:`~InputKind.balance_text`, the balance as one line;
* **its part of summary.html** -- :attr:`~InputKind.rows_label` (what the first balance card
  counts), :attr:`~InputKind.html_block` (the template that shows its block; without one the
  page lists the block's figures as a table) and :attr:`~InputKind.no_findings` (the words
  where no message has a wire or envelope finding);
* **its "nothing judged" rule** -- :attr:`~InputKind.messages` (what an input without any
  work is short of, refused before the job) and :attr:`~InputKind.nothing_judged` (what an
  audit found when its job judged nothing, known only afterwards).

Every hook but the first five has a default that suits a kind whose rows are known before
the job.  :func:`register_input_kind` adds a kind; the built-in ones (:mod:`.kinds`) each
register themselves from their own module, and the rest of the package asks the registry
(:func:`input_kind`) and never names a kind.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mqcn_suite.pipeline.audit.schema import add_provenance_columns
from mqcn_suite.wording import plural

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from mqcn_model.errata import Readings
    from mqcn_suite.pipeline.audit.sink import VerdictSink


class Unit(Mapping[str, Any]):
    """Base of a kind's typed work unit (a frozen dataclass): also a read-only mapping of its
    fields, so a list of units is the rows of the unit schema of its task
    (``pa.RecordBatch.from_pylist(plan.work, schema=...)``)."""

    def __getitem__(self, name: str) -> Any:
        if name not in self._names():
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def _names(self) -> tuple[str, ...]:
        return tuple(f.name for f in fields(self))  # type: ignore[arg-type]


@dataclass
class Plan:
    """What the driver found before the job: the work, and what it already set aside."""

    mode: str  # the InputKind's name: "parquet", "raw", ...
    work: list[Any]  # the kind's work units (its Unit dataclass), judged by its task
    quarantined: list[dict[str, Any]]  # quarantine entries (schema.quarantine_row)
    rows_expected: int  # rows known to be in the input (footers, raw files, stray files)
    bytes: int = 0  # bytes of the input's files (what the engine choice weighs, with the rows)
    description: str = ""  # what was found, in words: the audit's first line
    # On Spark, where the tasks write their verdicts themselves (None: as rows, to Spark);
    # a kind's frame maps its task with :func:`~.sink.map_rows`, which honours it.
    verdict_sink: VerdictSink | None = None

    @property
    def empty(self) -> bool:
        """Nothing to judge and nothing to set aside (a kind whose messages are known only
        once read, such as a capture, has its files as work)."""
        return self.rows_expected == 0 and not self.quarantined and not self.work


@dataclass(frozen=True)
class Account:
    """What a kind adds to the summary from the counts of all its tasks (:attr:`InputKind.account`).

    ``block`` becomes ``summary.json[mode]``.  ``rows_in`` (None: the plan's
    ``rows_expected``) is the balance's left side when only the tasks know it.  ``counted``:
    balance terms of messages found and counted, not judged (they join the right side);
    ``figures``: other balance figures (not summed).  ``balanced``: the kind's own balance
    (bytes, ...) besides the rows.
    """

    block: dict[str, Any]
    rows_in: int | None = None
    counted: dict[str, int] = field(default_factory=dict)
    figures: dict[str, int] = field(default_factory=dict)
    balanced: bool = True


def files_bytes(files: list[Path]) -> int:
    """The bytes of ``files`` (a file that cannot be read counts 0: its planner says why)."""
    total = 0
    for file in files:
        with contextlib.suppress(OSError):
            total += file.stat().st_size
    return total


def _refuses_nothing(_path: Path) -> str | None:
    return None


def _no_account(_counts: dict[str, int], _entries: int) -> Account | None:
    return None


def _judged_something(_balance: Mapping[str, Any], _block: Mapping[str, Any] | None) -> None:
    return None


def judged_anything(balance: Mapping[str, Any]) -> bool:
    """Did a finished audit judge a message or set anything aside?  (The question every
    kind's "nothing judged" rule asks first.)"""
    return bool(balance["conforming"] or balance["non_conforming"] or balance["quarantine_entries"])


def rows_balance_text(balance: Mapping[str, Any], _block: Mapping[str, Any] | None = None) -> str:
    """The balance of rows known before the job, as one line: rows in, then what could not
    be counted (files without a readable footer)."""
    sign = "=" if balance["balanced"] else "!="
    known = " (known)" if balance["files_without_footer"] else ""
    files = balance["files_without_footer"]
    return (
        f"rows in{known} {balance['rows_in']} {sign} conforming {balance['conforming']} + "
        f"non-conforming {balance['non_conforming']} + quarantined {balance['quarantined']} "
        f"({balance['rows_in_unreadable_row_groups']} rows in unreadable row groups); "
        f"{balance['bytes_without_footer']} bytes in files without a readable footer "
        f"({plural(files, 'file')}, rows unknown)"
    )


@dataclass(frozen=True)
class InputKind:
    """One kind of audit input: detection, planning, its task, its summary (module doc)."""

    mode: str  # the name in Plan.mode, AuditResult.mode and summary.json's "mode"
    claims: Callable[[list[Path]], bool]  # does this kind read these (visible) files?
    plan: Callable[[list[Path]], Plan]
    # The DataFrame (schema.ROW_SCHEMA) of the plan's work, or None when there is none.
    frame: Callable[[SparkSession, Plan, Readings], DataFrame | None]
    # The same task run in this process on the same work: its ROW_SCHEMA batches.
    local: Callable[[Plan, Readings], Iterator[pa.RecordBatch]]
    messages: str = "files"  # what an input of this kind without any work is short of
    # Why a single INPUT file this kind expected holds nothing it can read (None: fine).
    refuses: Callable[[Path], str | None] = _refuses_nothing
    columns: tuple[pa.Field, ...] = ()  # its provenance columns (null for other kinds' rows)
    # Its summary block and balance terms from the merged counts of its tasks and the
    # number of quarantine entries (None: no block, the rows known before the job).
    account: Callable[[dict[str, int], int], Account | None] = _no_account
    # The balance (summary.json's, and its block) as one line: the CLI, summary.html.
    balance_text: Callable[[Mapping[str, Any], Mapping[str, Any] | None], str] = rows_balance_text
    # What a finished audit found when it judged and set aside nothing (None: it did judge),
    # e.g. "0 change notifications (...)"; given the balance figures and its block.
    nothing_judged: Callable[[Mapping[str, Any], Mapping[str, Any] | None], str | None] = (
        _judged_something
    )
    rows_label: str = "Rows in"  # summary.html's first balance card
    # A template of mqcn_suite/pipeline/templates showing the block (as ``block``); None:
    # summary.html shows the block's figures in a table of its own.
    html_block: str | None = None
    # summary.html's words where no message has a wire or envelope finding.
    no_findings: str = "Judged from captures only: a corpus row holds no packet."


INPUT_KINDS: list[InputKind] = []


def register_input_kind(kind: InputKind, *, first: bool = True) -> None:
    """Add ``kind``; it is asked before those already there (``first=False``: after them).

    Its provenance columns join the schemas, which must not have been used yet.
    """
    if any(known.mode == kind.mode for known in INPUT_KINDS):
        raise ValueError(f"an input kind named {kind.mode!r} is already registered")
    add_provenance_columns(kind.columns)
    INPUT_KINDS.insert(0 if first else len(INPUT_KINDS), kind)


def input_kind(mode: str) -> InputKind:
    """The registered kind named ``mode``."""
    for kind in INPUT_KINDS:
        if kind.mode == mode:
            return kind
    raise KeyError(f"no input kind named {mode!r}")
