"""What the driver decides before any Spark job: the kind of input, its work, its rows.

:func:`plan_input` lists the input's files and hands them to the first registered
:class:`InputKind` that claims them.  The kind's planner reads what it can cheaply (Parquet
footers, file sizes), returns the work for the executors, the input it already sets aside
(a file without a readable footer, a stray file, an unreadable raw file) and the number of
rows the input is known to hold -- the left side of the audit's balance.

Three kinds are built in, asked in this order: ``capture`` (an input holding a pcap or
pcapng file; :mod:`.capture`), ``parquet`` (any ``*.parquet`` file in the input;
docs/corpus-format.md) and ``raw`` (anything else: one message body per file).  A new kind
is one :func:`register_input_kind` call with its planner, the frame function of its Spark
task and the same task fed in this process (:mod:`.tasks`); nothing else changes.

Each planner also says what it found in words (:attr:`Plan.description`: ``2 pcap captures,
108.8 MB``, ``a Parquet corpus of 1000 rows in 2 files, 165.9 kB``, ``1 file read as a raw
message body, 612 bytes``), the first line ``mqcn audit`` prints, and how many bytes the
input holds (:attr:`Plan.bytes`), which with :attr:`Plan.rows_expected` decides the engine
(:mod:`mqcn_suite.pipeline.engine`).

A single INPUT file that cannot be read at all is refused here, in one line, before any
engine starts (:func:`check_single_file`): an empty file (0 bytes: no capture, no corpus, no
message), and a file where a capture was expected that holds no capture file header
(:func:`~.capture.capture_problem`).  Any other single file that is no capture and no
Parquet file is judged as one raw message body, and its description says so.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mqcn_suite.pipeline.audit.capture import (
    capture_frame,
    capture_problem,
    claims_captures,
    local_captures,
    plan_captures,
)
from mqcn_suite.pipeline.audit.schema import SCOPE_FILE, SCOPE_NO_FOOTER, quarantine_row
from mqcn_suite.pipeline.audit.tasks import local_parquet, local_raw, parquet_frame, raw_frame
from mqcn_suite.pipeline.corpus import BODY
from mqcn_suite.pipeline.engine import human_bytes
from mqcn_suite.pipeline.session import PipelineError
from mqcn_suite.pipeline.storage import local_input

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from mqcn_model.errata import Readings

# binaryFile cannot hold a file of 2 GiB or more in one row; MSMQ bodies are at most 4 MB.
MAX_RAW_FILE = (1 << 31) - 1


class NothingToJudge(Exception):
    """The input holds no message at all: an audit would judge nothing.

    Not a usage error -- the input exists and is readable -- but no work either: the
    commands exit 5 with one line, as ``mqcn run`` does when no scenario ran, so that an
    empty capture never passes as a clean one.
    """


@dataclass
class Plan:
    """What the driver found before the job: the work, and what it already set aside."""

    mode: str  # the InputKind's name: "parquet", "raw"
    work: list[Any]  # what the kind's tasks judge: row-group units, raw file paths, ...
    quarantined: list[dict[str, Any]]  # quarantine entries (schema.quarantine_row)
    rows_expected: int  # rows known to be in the input (footers, raw files, stray files)
    bytes: int = 0  # bytes of the input's files (what the engine choice weighs, with the rows)
    description: str = ""  # what was found, in words: the audit's first line

    @property
    def empty(self) -> bool:
        """Nothing to judge and nothing to set aside (a capture's messages are known only
        once it is read: a capture file is work)."""
        return self.rows_expected == 0 and not self.quarantined and not self.work


@dataclass(frozen=True)
class InputKind:
    """One kind of audit input: how the driver recognises and plans it, how Spark judges it."""

    mode: str  # the name in Plan.mode, AuditResult.mode and summary.json's "mode"
    claims: Callable[[list[Path]], bool]  # does this kind read these (visible) files?
    plan: Callable[[list[Path]], Plan]
    # The DataFrame (schema.ROW_SCHEMA) of the plan's work, or None when there is none.
    frame: Callable[[SparkSession, Plan, Readings], DataFrame | None]
    # The same task run in this process on the same work: its ROW_SCHEMA batches.
    local: Callable[[Plan, Readings], Iterator[pa.RecordBatch]]
    messages: str = field(default="files")  # what an input of this kind without any is short of


INPUT_KINDS: list[InputKind] = []


def register_input_kind(kind: InputKind, *, first: bool = True) -> None:
    """Add ``kind``; it is asked before those already there (``first=False``: after them)."""
    if any(known.mode == kind.mode for known in INPUT_KINDS):
        raise ValueError(f"an input kind named {kind.mode!r} is already registered")
    INPUT_KINDS.insert(0 if first else len(INPUT_KINDS), kind)


def input_kind(mode: str) -> InputKind:
    """The registered kind named ``mode``."""
    for kind in INPUT_KINDS:
        if kind.mode == mode:
            return kind
    raise KeyError(f"no input kind named {mode!r}")


def check_work(plan: Plan, input_path: str | Path) -> None:
    """:class:`NothingToJudge` when ``plan`` holds no message (asked before Spark starts)."""
    if plan.empty:
        what = input_kind(plan.mode).messages
        raise NothingToJudge(f"INPUT: {input_path} held 0 messages (no {what}): nothing was judged")


def visible_files(root: Path) -> list[Path]:
    """Regular files under ``root``, skipping hidden and ``_``-prefixed files and folders."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for name in sorted(files):
            if not name.startswith((".", "_")):
                found.append(Path(folder) / name)
    return found


def plan_input(input_path: str | Path) -> Plan:
    """Look at ``input_path`` and decide the kind, the work units and the early quarantine.

    Raises :class:`PipelineError` when the input is missing or unreadable, or (from the
    kind's planner) when a file of the kind cannot be audited at all, such as a readable
    Parquet file without a binary ``body`` column.  An input without any message is a plan
    with nothing in it (:attr:`Plan.empty`, :func:`check_work`).
    """
    path = local_input(input_path)  # a local path or file:// (docs/spark.md)
    if not path.exists():
        raise PipelineError(f"INPUT: {input_path}: no such file or directory")
    if not os.access(path, os.R_OK) or (path.is_dir() and not os.access(path, os.X_OK)):
        raise PipelineError(f"INPUT: {input_path}: permission denied")
    if path.is_file():
        check_single_file(path, input_path)
        files = [path]
    elif path.is_dir():
        files = visible_files(path)
    else:
        raise PipelineError(f"INPUT: {input_path} is neither a file nor a directory")
    for kind in INPUT_KINDS:
        if kind.claims(files):
            return kind.plan(files)
    raise PipelineError(f"INPUT: {input_path}: no input kind reads these files")  # pragma: no cover


def check_single_file(path: Path, input_path: str | Path) -> None:
    """:class:`PipelineError` for a single INPUT file nothing can be judged in: an empty file,
    or a file where a capture was expected that holds no capture (see the module doc)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise PipelineError(f"INPUT: {input_path}: cannot read: {exc.strerror or exc}") from None
    if size == 0:
        raise PipelineError(
            f"INPUT: {input_path} is an empty file (0 bytes): no capture, no Parquet corpus, "
            "no message body to judge"
        )
    problem = capture_problem(path)
    if problem:
        raise PipelineError(f"INPUT: {input_path}: {problem}")


def _files_bytes(files: list[Path]) -> int:
    total = 0
    for file in files:
        with contextlib.suppress(OSError):  # the kind's planner says why it cannot be read
            total += file.stat().st_size
    return total


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


# --- Parquet corpus ---------------------------------------------------------------------------


def _has_parquet(files: list[Path]) -> bool:
    return any(f.suffix == ".parquet" for f in files)


def plan_parquet(files: list[Path]) -> Plan:
    """One unit per non-empty row group (from the footers); stray and footer-less files aside."""
    import pyarrow.parquet as pq

    quarantined: list[dict[str, Any]] = []
    units: list[dict[str, Any]] = []
    expected = 0
    for file in files:  # a stray file in a Parquet corpus is input too: account for it
        if file.suffix != ".parquet":
            reason = "not a Parquet file (*.parquet)"
            quarantined.append(quarantine_row(str(file.resolve()), reason, 1, scope=SCOPE_FILE))
            expected += 1
    for file in files:
        if file.suffix != ".parquet":
            continue
        try:
            meta = pq.ParquetFile(file)
            schema = meta.schema_arrow
        except Exception as exc:
            # Without a footer nobody can count the file's rows: it is set aside with its
            # size, and the balance states those bytes apart from the rows it can count.
            size = file.stat().st_size
            text = (str(exc).strip().splitlines() or [""])[0]
            reason = (
                f"unreadable Parquet file, no readable footer ({size} bytes, rows unknown): "
                f"{type(exc).__name__}: {text}"
            )
            quarantined.append(
                quarantine_row(str(file.resolve()), reason, None, scope=SCOPE_NO_FOOTER, size=size)
            )
            continue
        if BODY not in schema.names:
            raise PipelineError(
                f"INPUT: {file} has no '{BODY}' column (columns: {', '.join(schema.names)}); "
                "a corpus needs the message bodies (docs/corpus-format.md)"
            )
        body_type = schema.field(BODY).type
        if not (pa.types.is_binary(body_type) or pa.types.is_large_binary(body_type)):
            raise PipelineError(f"INPUT: {file}: column '{BODY}' is {body_type}, not binary")
        base = 0
        for group in range(meta.metadata.num_row_groups):
            rows = meta.metadata.row_group(group).num_rows
            if rows:
                units.append(
                    {
                        "path": str(file.resolve()),
                        "row_group": group,
                        "rows": rows,
                        "row_base": base,
                    }
                )
            base += rows
            expected += rows
    size = _files_bytes(files)
    parquet = sum(1 for f in files if f.suffix == ".parquet")
    no_footer = sum(1 for q in quarantined if q["scope"] == SCOPE_NO_FOOTER)
    aside = [
        _plural(n, word, many)
        for n, word, many in (
            (no_footer, "file without a readable footer", "files without a readable footer"),
            (len(files) - parquet, "other file", "other files"),
        )
        if n
    ]
    described = (
        f"a Parquet corpus of {_plural(expected, 'row')} in {_plural(parquet, 'file')}"
        + (f" ({', '.join(aside)})" if aside else "")
        + f", {human_bytes(size)}"
    )
    return Plan("parquet", units, quarantined, expected, size, described)


# --- a folder of raw bodies -------------------------------------------------------------------


def plan_raw(files: list[Path]) -> Plan:
    """One message per readable file; a file that cannot be read whole is set aside."""
    quarantined: list[dict[str, Any]] = []
    readable = []
    for file in files:
        reason = raw_problem(file)
        if reason:
            quarantined.append(quarantine_row(str(file.resolve()), reason, 1, scope=SCOPE_FILE))
        else:
            readable.append(str(file.resolve()))
    size = _files_bytes(files)
    read_as = _plural(
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


register_input_kind(InputKind("raw", lambda _files: True, plan_raw, raw_frame, local_raw))
register_input_kind(
    InputKind("parquet", _has_parquet, plan_parquet, parquet_frame, local_parquet, "Parquet rows")
)
register_input_kind(  # asked first: a folder of captures is no folder of raw bodies
    InputKind(
        "capture", claims_captures, plan_captures, capture_frame, local_captures, "capture files"
    )
)
