"""``audit``: judge every message of a corpus on Spark and account for every input row.

Two kinds of input:

* a **Parquet corpus** (a directory of ``*.parquet`` files, or one file) in the format of
  :mod:`mqcn_suite.pipeline.corpus`.  The driver reads only the footers; each row group
  becomes a work unit, and each Spark task reads its unit with pyarrow *defensively*, a
  batch at a time: a row group that does not decode is quarantined as one entry with the
  number of rows its footer declares (less those already judged), while the good row groups
  and files around it are judged.  A file whose footer cannot be read (a truncated tail)
  holds rows nobody can count: it is quarantined as one entry with its size in bytes.
  (Spark's own Parquet source would either fail the whole job on the first corrupt file or,
  with ``ignoreCorruptFiles``, drop it silently -- neither accounts for the rows.)
* a **folder of raw message bodies** (anything else): Spark's ``binaryFile`` source, one
  message per file, judged exactly as ``mqcn decode --file`` judges it.

Every message goes through :func:`mqcn_model.judge.judge` (the fast codec and the content
rules) inside ``mapInArrow``, a batch of Arrow rows at a time, and through the reference
queue manager (:class:`mqcn_model.server.NotificationServer`) to say what a conforming
server would do with it: ``processed``, or ``disregarded`` with the reason
(``authentication``: a Version 0x01 message whose SenderIdentifierType is not
QueueManagerIdentifier or whose AuthenticationLevel is None, 3.2.5.1; ``object type``: an
object type the server cannot handle, 3.2.5.1; ``malformed``: bytes it cannot decode,
errata E-08; ``version``: a version its product profile ignores).  Raw files carry no
envelope: the server view assumes an authenticated QueueManagerIdentifier sender.

The output directory holds ``verdicts/`` (Parquet, :data:`VERDICT_COLUMNS`), ``quarantine/``
(Parquet, :data:`QUARANTINE_COLUMNS`), ``summary.json`` and ``summary.html``.  The balance

    rows in (known) = conforming + non-conforming + quarantined

is checked against what the driver counted before the job (footers, file listing); a
difference is a bug and fails the audit.  Beside it, the balance states the quarantined rows
that were in unreadable row groups and the bytes of files without a readable footer.  An
input without any message is refused before Spark starts (:class:`NothingToJudge`).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mqcn_model import server as server_module
from mqcn_model.catalog import CATALOG, req
from mqcn_model.codec import ChangeNotificationMessage
from mqcn_model.constants import AuthLevel, Command, Event, PropId, SenderIdType
from mqcn_model.directory import InMemoryDirectory
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import LENIENT, STRICT, Readings
from mqcn_model.errors import DecodeError
from mqcn_model.judge import Verdict, judge
from mqcn_model.server import NotificationServer, ProcessingRecord, QueueManager
from mqcn_suite.pipeline.checks import check_out as check_dataset_out
from mqcn_suite.pipeline.corpus import BODY
from mqcn_suite.pipeline.session import PipelineError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

VERDICTS_DIR = "verdicts"
QUARANTINE_DIR = "quarantine"
SUMMARY_JSON = "summary.json"
SUMMARY_HTML = "summary.html"
STAGING_DIR = "_rows"  # removed when the audit ends
# binaryFile cannot hold a file of 2 GiB or more in one row; MSMQ bodies are at most 4 MB.
MAX_RAW_FILE = (1 << 31) - 1
TOP_SENDERS = 50
TOP_REASONS = 50

# --- server-side reasons ----------------------------------------------------------------------

R_SENDER_TYPE = req("MQCN-3.2.5.1-3")
R_AUTH_NONE = req("MQCN-3.2.5.1-4")
R_OBJECT_TYPE = req("MQCN-3.2.5.1-8")
R_DELETE_TYPE = req("MQCN-3.2.5.1-16")
R_DELETE_NOT_QUEUE = req("MQCN-3.2.5.1-17")
R_VERSIONS = req("MQCN-1.7-1")
REASON_OF: dict[str, str] = {
    R_SENDER_TYPE: "authentication",
    R_AUTH_NONE: "authentication",
    R_OBJECT_TYPE: "object type",
    R_DELETE_TYPE: "object type",
    R_DELETE_NOT_QUEUE: "object type",
    R_VERSIONS: "version",
}

# --- output schemas ---------------------------------------------------------------------------

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
    ]
)
# What one quarantine entry stands for (the ``scope`` column).
SCOPE_ROW = "row"  # one row that was read but cannot be judged (a null body, ...)
SCOPE_ROW_GROUP = "row group"  # a row group whose data cannot be read: rows from the footer
SCOPE_NO_FOOTER = "file without footer"  # a Parquet file whose footer cannot be read
SCOPE_FILE = "file"  # a raw body that cannot be read, or a stray file in a Parquet corpus
QUARANTINE_SCHEMA = pa.schema(
    [
        ("source", pa.string()),  # the file, "file#rowgroup=N", or "file#row"
        ("message_id", pa.binary()),
        ("scope", pa.string()),  # SCOPE_*
        ("rows", pa.int64()),  # input rows this entry stands for; null: unknown (no footer)
        ("bytes", pa.int64()),  # the file's size, for a file without a readable footer
        ("reason", pa.string()),
    ]
)
VERDICT_COLUMNS: tuple[str, ...] = tuple(VERDICT_SCHEMA.names)
QUARANTINE_COLUMNS: tuple[str, ...] = tuple(QUARANTINE_SCHEMA.names)
# What the Spark job emits: both kinds of row in one schema, told apart by ``status``.
ROW_SCHEMA = pa.schema(
    [("status", pa.string())]
    + [VERDICT_SCHEMA.field(n) for n in VERDICT_COLUMNS]
    + [QUARANTINE_SCHEMA.field(n) for n in ("scope", "rows", "bytes", "reason")]
)
# One work unit is one row group: the footer's row count and the file row of its first row.
UNIT_SCHEMA = pa.schema(
    [
        ("path", pa.string()),
        ("row_group", pa.int32()),
        ("rows", pa.int64()),
        ("row_base", pa.int64()),
    ]
)
_ENVELOPE_COLUMNS = ("message_id", "sender_identifier_type", "authentication_level")


def _spark_schema(schema: pa.Schema) -> Any:
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


# --- one message ------------------------------------------------------------------------------


def _enum(kind: Any, name: str | None, column: str) -> tuple[Any, str | None]:
    """(member, None) for a known name (``None`` matches ``None_``), else (None, problem)."""
    if name is None:
        return None, f"{column} is null"
    member = kind.__members__.get(name) or kind.__members__.get(f"{name}_")
    if member is None:
        return None, f"{column} {name!r} is not one of {[m.rstrip('_') for m in kind.__members__]}"
    return member, None


def _command_name(value: int) -> str:
    try:
        return Command(value).name.lower()
    except ValueError:
        return f"0x{value:02x}"


def _event_name(value: int) -> str:
    try:
        return Event(value).name.lower()
    except ValueError:
        return str(value)


@contextmanager
def _reuse_decode(body: bytes, verdict: Verdict | None) -> Iterator[None]:
    """Let the reference server take the judge's decode of ``body`` instead of decoding again.

    ``NotificationServer`` decodes every delivered body itself (``decode_message`` of
    :mod:`mqcn_model.server`).  For the one call inside this block that name answers the
    very same ``body`` object with the judge's result -- the decoded message, or the
    DecodeError whose violation the verdict holds -- so the outcome is exactly what a second
    decode would give.  Any other input goes to the real decoder.  The swap is undone on
    exit; Spark's Python workers run one task per process, so nothing else sees it.  (A
    ``deliver(envelope, decoded=...)`` parameter on the server would make this unnecessary.)
    """
    if verdict is None:
        yield
        return
    original = server_module.decode_message

    def decoded(buf: bytes, readings: Readings = STRICT) -> ChangeNotificationMessage:
        if buf is not body:
            return original(buf, readings)
        if verdict.message is None:
            raise DecodeError(verdict.violations[0])
        return verdict.message

    server_module.decode_message = decoded  # type: ignore[assignment]
    try:
        yield
    finally:
        server_module.decode_message = original  # type: ignore[assignment]


class Auditor:
    """Judges messages and asks the reference server what it would do with each.

    One per Spark task (or per process): it holds a :class:`NotificationServer` whose state
    is cleared after every message, so every verdict is independent of the others.
    """

    def __init__(self, readings: Readings = STRICT) -> None:
        self.readings = readings
        self.server = NotificationServer(
            QueueManager(uuid.UUID(int=0)), InMemoryDirectory(), computer="audit", readings=readings
        )
        self.server.initialize()

    def server_view(
        self, envelope: Envelope, verdict: Verdict | None = None
    ) -> tuple[str, str | None, str | None, str | None]:
        """(outcome, reason, requirement, detail) of delivering ``envelope`` to the server.

        ``verdict`` (the judge's verdict on ``envelope.body`` with the same readings) lets
        the server reuse the decode instead of repeating it (half of the per-message time):
        see :func:`_reuse_decode`.
        """
        with _reuse_decode(envelope.body, verdict):
            record: ProcessingRecord = self.server.deliver(envelope)
        self.server.records.clear()
        self.server.qm.QueueCollection.clear()
        self.server.directory.reads.clear()  # type: ignore[attr-defined]
        if record.outcome != "disregarded":
            return record.outcome, None, None, None
        requirement = record.disregarded_by
        if record.reason.startswith("undecodable"):
            reason = "malformed"
        else:
            reason = REASON_OF.get(requirement or "", "malformed")
        return record.outcome, reason, requirement, record.reason

    def row(
        self,
        source: str,
        body: bytes,
        message_id: bytes | None = None,
        sender_type: str | None = "QueueManagerIdentifier",
        auth_level: str | None = "Sig20",
    ) -> dict[str, Any]:
        """The verdict row (:data:`VERDICT_SCHEMA`) of one message."""
        verdict: Verdict = judge(body, self.readings)
        out: dict[str, Any] = {
            "status": "verdict",
            "source": source,
            "message_id": message_id,
            "sender": None,
            "version": body[0] if body else None,
            "size": len(body),
            "conforming": verdict.conforming,
            "violations": list(verdict.requirements),
            "first_offset": verdict.violations[0].offset if verdict.violations else None,
            "first_message": verdict.violations[0].message if verdict.violations else None,
            "commands": [],
            "event": None,
            "object_guids": [],
            "updates": None,
            "domain_controller": None,
            "rows": None,
            "reason": None,
        }
        msg_id = MessageId(uuid.UUID(int=0), 0)
        if message_id is not None and len(message_id) == 20:
            msg_id = MessageId.from_bytes(message_id)
            out["sender"] = str(msg_id.sender)
        message = verdict.message
        if message is not None:
            if message.body is not None:
                out["event"] = _event_name(message.body.event)
                out["object_guids"] = [str(message.body.object_guid)]
                out["domain_controller"] = message.body.domain_controller
            else:
                out["updates"] = len(message.updates)
                out["commands"] = [_command_name(u.command) for u in message.updates]
                guids = []
                for update in message.updates:
                    guid = update.guid_identifier or update.value_of(PropId.PROPID_Q_INSTANCE)
                    if isinstance(guid, uuid.UUID):
                        guids.append(str(guid))
                out["object_guids"] = guids
        kind, problem = _enum(SenderIdType, sender_type, "sender_identifier_type")
        level, problem2 = _enum(AuthLevel, auth_level, "authentication_level")
        if problem or problem2:
            view: tuple[str, str | None, str | None, str | None] = (
                "unknown",
                "envelope",
                None,
                problem or problem2,
            )
        else:
            envelope = Envelope(
                body, msg_id, sender_identifier_type=kind, authentication_level=level
            )
            view = self.server_view(envelope, verdict)
        out["server_outcome"], out["server_reason"] = view[0], view[1]
        out["server_requirement"], out["server_detail"] = view[2], view[3]
        return out


def quarantine_row(
    source: str,
    reason: str,
    rows: int | None,
    message_id: bytes | None = None,
    *,
    scope: str = SCOPE_ROW,
    size: int | None = None,
) -> dict[str, Any]:
    """A quarantine row (in :data:`ROW_SCHEMA`): ``rows`` input rows set aside, and why.

    ``rows`` is None only for a file without a readable footer, whose rows nobody can count:
    ``size`` (its bytes) then says how much input it is.
    """
    row: dict[str, Any] = {name: None for name in ROW_SCHEMA.names}
    row.update(status="quarantined", source=source, message_id=message_id, rows=rows, reason=reason)
    row.update(scope=scope, bytes=size, violations=[], commands=[], object_guids=[])
    return row


def _batch(rows: list[dict[str, Any]]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist(rows, schema=ROW_SCHEMA)


def _safe_row(auditor: Auditor, source: str, body: Any, *envelope: Any) -> dict[str, Any]:
    """:meth:`Auditor.row`, or a quarantine row when the row cannot be judged at all."""
    message_id = envelope[0] if envelope else None
    if body is None:
        return quarantine_row(source, f"{BODY} is null", 1, message_id)
    try:
        return auditor.row(source, bytes(body), *envelope)
    except Exception as exc:  # a bug in the model must not lose the row
        return quarantine_row(source, f"internal error: {type(exc).__name__}: {exc}", 1, message_id)


# --- the tasks ---------------------------------------------------------------------------------


def judge_parquet_units(
    readings: Readings, batch_rows: int = 5000
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function of Parquet input: units in, verdict/quarantine rows out."""

    def run(units: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        auditor = Auditor(readings)
        for unit_batch in units:
            for unit in unit_batch.to_pylist():
                yield from _judge_row_group(auditor, unit, batch_rows)

    return run


def _judge_row_group(
    auditor: Auditor, unit: dict[str, Any], batch_rows: int
) -> Iterator[pa.RecordBatch]:
    """Verdicts of one row group, read a batch at a time; what cannot be read is quarantined.

    The footer said how many rows the group holds.  When reading fails (a damaged page, a
    short file), the rows not yet judged -- all of them, or the tail after the last good
    batch -- become one quarantine entry for the row group, so the balance still adds up.
    Page checksums are verified where the writer stored them (Spark's writer does), so
    damaged data is found rather than judged as if it were what was sent.
    """
    import pyarrow.parquet as pq

    path, group = unit["path"], unit["row_group"]
    rows, base = unit["rows"], unit["row_base"]
    done = 0
    try:
        parquet = pq.ParquetFile(path, page_checksum_verification=True)
        names = set(parquet.schema_arrow.names)
        columns = [BODY, *(c for c in _ENVELOPE_COLUMNS if c in names)]
        for chunk in parquet.iter_batches(
            batch_size=batch_rows, row_groups=[group], columns=columns, use_threads=False
        ):
            if done + chunk.num_rows > rows:
                raise ValueError(f"it holds more rows than the {rows} its footer declares")
            yield _batch(_judge_chunk(auditor, path, base + done, chunk))
            done += chunk.num_rows
        if done != rows:
            raise ValueError(f"it ends after {done} rows")
    except Exception as exc:
        text = (str(exc).strip().splitlines() or [""])[0]
        judged = f"; its first {done} rows were judged" if done else ""
        reason = (
            f"unreadable row group {group} ({rows} rows per the footer{judged}): "
            f"{type(exc).__name__}: {text}"
        )
        source = f"{path}#rowgroup={group}"
        yield _batch([quarantine_row(source, reason, rows - done, scope=SCOPE_ROW_GROUP)])


def _judge_chunk(
    auditor: Auditor, path: str, first: int, chunk: pa.RecordBatch
) -> list[dict[str, Any]]:
    """The verdict rows of one Arrow batch of a corpus file; row ``first`` is its first."""
    bodies = chunk.column(BODY).to_pylist()
    extra = [
        chunk.column(c).to_pylist() if c in chunk.schema.names else [None] * len(bodies)
        for c in _ENVELOPE_COLUMNS
    ]
    if "sender_identifier_type" not in chunk.schema.names:
        extra[1] = ["QueueManagerIdentifier"] * len(bodies)
    if "authentication_level" not in chunk.schema.names:
        extra[2] = ["Sig20"] * len(bodies)
    return [
        _safe_row(auditor, f"{path}#{first + i}", body, mid, kind, level)
        for i, (body, mid, kind, level) in enumerate(zip(bodies, *extra, strict=True))
    ]


def judge_raw_files(
    readings: Readings,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function of raw input: (path, content) rows in, verdicts out."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        auditor = Auditor(readings)
        for batch in batches:
            paths = batch.column("path").to_pylist()
            contents = batch.column("content").to_pylist()
            yield _batch(
                [
                    _safe_row(auditor, _local_path(path), content)
                    for path, content in zip(paths, contents, strict=True)
                ]
            )

    return run


def _local_path(uri: str) -> str:
    """``file:/a/b`` (how Spark names files) as ``/a/b``; other URIs unchanged."""
    if uri.startswith("file://"):
        return uri[len("file://") :]
    if uri.startswith("file:"):
        return uri[len("file:") :]
    return uri


# --- planning in the driver -------------------------------------------------------------------


class NothingToJudge(Exception):
    """The input holds no message at all: an audit would judge nothing.

    Not a usage error -- the input exists and is readable -- but no work either: the
    commands exit 5 with one line, as ``mqcn run`` does when no scenario ran, so that an
    empty capture never passes as a clean one.
    """


@dataclass
class Plan:
    """What the driver found before the job: the work, and what it already set aside."""

    mode: str  # "parquet" or "raw"
    units: list[dict[str, Any]]
    raw_files: list[str]
    quarantined: list[dict[str, Any]]
    rows_expected: int  # rows known to be in the input (footers, raw files, stray files)

    @property
    def empty(self) -> bool:
        """Nothing to judge and nothing to set aside."""
        return self.rows_expected == 0 and not self.quarantined


def check_work(plan: Plan, input_path: str | Path) -> None:
    """:class:`NothingToJudge` when ``plan`` holds no message (asked before Spark starts)."""
    if plan.empty:
        what = "Parquet rows" if plan.mode == "parquet" else "files"
        raise NothingToJudge(f"INPUT: {input_path} held 0 messages (no {what}): nothing was judged")


def _visible_files(root: Path) -> list[Path]:
    """Regular files under ``root``, skipping hidden and ``_``-prefixed files and folders."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for name in sorted(files):
            if not name.startswith((".", "_")):
                found.append(Path(folder) / name)
    return found


def plan_input(input_path: str | Path) -> Plan:
    """Look at ``input_path`` and decide the mode, the work units and the early quarantine.

    Raises :class:`PipelineError` when the input is missing or unreadable, or a readable
    Parquet file has no ``body`` column (or one that is not binary).  An input without any
    message is a plan with nothing in it (:attr:`Plan.empty`, :func:`check_work`).
    """
    import pyarrow.parquet as pq

    path = Path(input_path)
    if not path.exists():
        raise PipelineError(f"INPUT: {input_path}: no such file or directory")
    if not os.access(path, os.R_OK) or (path.is_dir() and not os.access(path, os.X_OK)):
        raise PipelineError(f"INPUT: {input_path}: permission denied")
    if path.is_file():
        files = [path]
    elif path.is_dir():
        files = _visible_files(path)
    else:
        raise PipelineError(f"INPUT: {input_path} is neither a file nor a directory")
    parquet = [f for f in files if f.suffix == ".parquet"]
    quarantined: list[dict[str, Any]] = []
    if not parquet:
        readable = []
        for file in files:
            reason = _raw_problem(file)
            if reason:
                quarantined.append(quarantine_row(str(file.resolve()), reason, 1, scope=SCOPE_FILE))
            else:
                readable.append(str(file.resolve()))
        return Plan("raw", [], readable, quarantined, len(files))
    units: list[dict[str, Any]] = []
    expected = 0
    for file in files:  # a stray file in a Parquet corpus is input too: account for it
        if file.suffix != ".parquet":
            reason = "not a Parquet file (*.parquet)"
            quarantined.append(quarantine_row(str(file.resolve()), reason, 1, scope=SCOPE_FILE))
            expected += 1
    for file in parquet:
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
    return Plan("parquet", units, [], quarantined, expected)


def _raw_problem(file: Path) -> str | None:
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


# --- the job ------------------------------------------------------------------------------------


@dataclass
class AuditResult:
    """The balance and where the outputs are.

    ``rows_in`` counts the rows known to be in the input (footers, raw files, stray files);
    ``quarantined`` includes ``rows_in_unreadable_row_groups``.  A Parquet file without a
    readable footer holds rows nobody can count: it is in ``files_without_footer`` and
    ``bytes_without_footer``, outside the row balance.
    """

    out: str
    mode: str
    rows_in: int
    conforming: int
    non_conforming: int
    quarantined: int
    summary: dict[str, Any]
    seconds: float
    rows_in_unreadable_row_groups: int = 0
    files_without_footer: int = 0
    bytes_without_footer: int = 0

    @property
    def balanced(self) -> bool:
        return self.rows_in == self.conforming + self.non_conforming + self.quarantined

    @property
    def clean(self) -> bool:
        """Every input row read and conforming: nothing non-conforming, nothing set aside."""
        return not (self.non_conforming or self.quarantined or self.files_without_footer)

    def balance_line(self) -> str:
        return balance_text(self.summary["balance"])


def balance_text(balance: dict[str, Any]) -> str:
    """The balance as one line (the CLI, summary.html): rows, then what could not be counted."""
    sign = "=" if balance["balanced"] else "!="
    known = " (known)" if balance["files_without_footer"] else ""
    files = balance["files_without_footer"]
    return (
        f"rows in{known} {balance['rows_in']} {sign} conforming {balance['conforming']} + "
        f"non-conforming {balance['non_conforming']} + quarantined {balance['quarantined']} "
        f"({balance['rows_in_unreadable_row_groups']} rows in unreadable row groups); "
        f"{balance['bytes_without_footer']} bytes in files without a readable footer "
        f"({files} file{'' if files == 1 else 's'}, rows unknown)"
    )


def check_out(out: str | Path) -> None:
    """:class:`PipelineError` unless ``out`` is absent or an empty directory that can be written."""
    check_dataset_out(out)


def _prepare_out(out: Path) -> None:
    check_out(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PipelineError(f"--out: cannot create {out}: {exc.strerror or exc}") from None


def build_frame(spark: SparkSession, plan: Plan, readings: Readings) -> DataFrame:
    """The DataFrame of :data:`ROW_SCHEMA` rows for ``plan`` (lazy: nothing runs yet)."""
    row_schema = _spark_schema(ROW_SCHEMA)
    frames = []
    if plan.mode == "parquet" and plan.units:
        unit_schema = _spark_schema(UNIT_SCHEMA)
        rdd = spark.sparkContext.parallelize(
            [tuple(u[n] for n in UNIT_SCHEMA.names) for u in plan.units],
            numSlices=min(len(plan.units), 10_000),
        )
        units = spark.createDataFrame(rdd, unit_schema)
        frames.append(units.mapInArrow(judge_parquet_units(readings), row_schema))
    if plan.mode == "raw" and plan.raw_files:
        # Spark's file sources skip empty files; they are messages too (MQCN-2.2.4-1 broken),
        # so they join the binaryFile rows as literal rows.
        sizes = {path: os.path.getsize(path) for path in plan.raw_files}
        non_empty = [path for path, size in sizes.items() if size]
        empty = [(path, bytearray()) for path, size in sizes.items() if not size]
        parts = []
        if non_empty:
            parts.append(spark.read.format("binaryFile").load(non_empty).select("path", "content"))
        if empty:
            parts.append(spark.createDataFrame(empty, "path string, content binary"))
        files = parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])
        frames.append(files.mapInArrow(judge_raw_files(readings), row_schema))
    if plan.quarantined:
        rows = [tuple(r[n] for n in ROW_SCHEMA.names) for r in plan.quarantined]
        frames.append(spark.createDataFrame(rows, row_schema))
    if not frames:
        return spark.createDataFrame([], row_schema)
    frame = frames[0]
    for other in frames[1:]:
        frame = frame.unionByName(other)
    return frame


def audit(
    spark: SparkSession,
    input_path: str | Path,
    out: str | Path,
    readings: Readings = STRICT,
    *,
    progress: Callable[[str], Any] | None = None,
) -> AuditResult:
    """Judge every message of ``input_path``; write verdicts, quarantine and summaries to ``out``.

    ``progress`` (optional) is a context-manager factory taking a description, used around
    each Spark action (the CLI passes a rich progress bar).
    """
    from pyspark.sql import functions as F

    started = time.perf_counter()
    out = Path(out)
    plan = plan_input(input_path)
    check_work(plan, input_path)
    _prepare_out(out)
    step = progress or (lambda _description: _null_context())
    # The judging runs exactly once, into a staging dataset that the outputs and the summary
    # then read column by column.  (Caching the rows in Spark instead ran the 1 GiB driver
    # heap out of memory at 4 M messages.)
    staging = out / STAGING_DIR
    try:
        with step("judging"):
            build_frame(spark, plan, readings).write.parquet(str(staging))
        rows = spark.read.parquet(str(staging))
        with step("writing verdicts"):
            rows.filter(F.col("status") == "verdict").select(*VERDICT_COLUMNS).write.parquet(
                str(out / VERDICTS_DIR)
            )
            rows.filter(F.col("status") == "quarantined").select(*QUARANTINE_COLUMNS).write.parquet(
                str(out / QUARANTINE_DIR)
            )
        with step("summary"):
            summary = summarize(rows, plan, input_path, readings)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    summary["seconds"] = round(time.perf_counter() - started, 3)
    balance = summary["balance"]
    result = AuditResult(
        out=str(out),
        mode=plan.mode,
        rows_in=balance["rows_in"],
        conforming=balance["conforming"],
        non_conforming=balance["non_conforming"],
        quarantined=balance["quarantined"],
        summary=summary,
        seconds=summary["seconds"],
        rows_in_unreadable_row_groups=balance["rows_in_unreadable_row_groups"],
        files_without_footer=balance["files_without_footer"],
        bytes_without_footer=balance["bytes_without_footer"],
    )
    (out / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    (out / SUMMARY_HTML).write_text(render_html(summary), "utf-8")
    return result


class _null_context:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def summarize(
    frame: DataFrame, plan: Plan, input_path: str | Path, readings: Readings
) -> dict[str, Any]:
    """The ``summary.json`` document: balance and counts by requirement, sender, version."""
    from pyspark.sql import functions as F

    verdicts = frame.filter(F.col("status") == "verdict")
    quarantine = frame.filter(F.col("status") == "quarantined")
    totals = {
        (r["status"], r["conforming"]): r["n"]
        for r in frame.groupBy("status", "conforming").agg(F.count(F.lit(1)).alias("n")).collect()
    }
    conforming = totals.get(("verdict", True), 0)
    non_conforming = totals.get(("verdict", False), 0)
    by_scope = {
        r["scope"]: r
        for r in quarantine.groupBy("scope")
        .agg(
            F.count(F.lit(1)).alias("entries"),
            F.sum("rows").alias("rows"),
            F.sum("bytes").alias("bytes"),
        )
        .collect()
    }
    quarantined_rows = sum(int(r["rows"] or 0) for r in by_scope.values())
    no_footer = by_scope.get(SCOPE_NO_FOOTER)
    row_groups = by_scope.get(SCOPE_ROW_GROUP)
    by_requirement = [
        {
            "requirement": r["requirement"],
            "messages": r["n"],
            "section": CATALOG[r["requirement"]].section if r["requirement"] in CATALOG else None,
            "keyword": CATALOG[r["requirement"]].keyword if r["requirement"] in CATALOG else None,
            "statement": CATALOG[r["requirement"]].statement
            if r["requirement"] in CATALOG
            else None,
        }
        for r in verdicts.select(F.explode("violations").alias("requirement"))
        .groupBy("requirement")
        .agg(F.count(F.lit(1)).alias("n"))
        .orderBy(F.desc("n"), "requirement")
        .collect()
    ]
    nonconf = F.sum(F.when(~F.col("conforming"), 1).otherwise(0))
    senders = verdicts.groupBy("sender").agg(F.count(F.lit(1)).alias("n"), nonconf.alias("bad"))
    distinct_senders = senders.count()
    by_sender = [
        {"sender": r["sender"], "messages": r["n"], "non_conforming": r["bad"]}
        for r in senders.orderBy(F.desc("n"), "sender").limit(TOP_SENDERS).collect()
    ]
    by_version = [
        {
            "version": r["version"],
            "label": {1: "0x01 (directory service)", 2: "0x02 (queue manager)"}.get(
                r["version"],
                "empty" if r["version"] is None else f"0x{r['version']:02x} (undefined)",
            ),
            "messages": r["n"],
            "non_conforming": r["bad"],
        }
        for r in verdicts.groupBy("version")
        .agg(F.count(F.lit(1)).alias("n"), nonconf.alias("bad"))
        .orderBy("version")
        .collect()
    ]
    by_server = [
        {
            "outcome": r["server_outcome"],
            "reason": r["server_reason"],
            "requirement": r["server_requirement"],
            "messages": r["n"],
        }
        for r in verdicts.groupBy("server_outcome", "server_reason", "server_requirement")
        .agg(F.count(F.lit(1)).alias("n"))
        .orderBy(F.desc("n"))
        .collect()
    ]
    quarantine_reasons = [
        {"reason": r["reason"], "entries": r["entries"], "rows": r["rows"], "bytes": r["bytes"]}
        for r in quarantine.groupBy("reason")
        .agg(
            F.count(F.lit(1)).alias("entries"),
            F.sum("rows").alias("rows"),
            F.sum("bytes").alias("bytes"),
        )
        .orderBy(F.desc("rows"), F.desc("bytes"))
        .limit(TOP_REASONS)
        .collect()
    ]
    quarantine_sources = [
        {
            "source": r["source"],
            "scope": r["scope"],
            "rows": r["rows"],
            "bytes": r["bytes"],
            "reason": r["reason"],
        }
        for r in quarantine.orderBy("source").limit(TOP_REASONS).collect()
    ]
    balance = {
        "rows_in": plan.rows_expected,
        "conforming": conforming,
        "non_conforming": non_conforming,
        "quarantined": quarantined_rows,
        "rows_in_unreadable_row_groups": int(row_groups["rows"] or 0) if row_groups else 0,
        "files_without_footer": int(no_footer["entries"]) if no_footer else 0,
        "bytes_without_footer": int(no_footer["bytes"] or 0) if no_footer else 0,
    }
    balance["balanced"] = balance["rows_in"] == conforming + non_conforming + quarantined_rows
    return {
        "input": str(input_path),
        "mode": plan.mode,
        "readings": "strict"
        if readings == STRICT
        else "lenient"
        if readings == LENIENT
        else "custom",
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "balance": balance,
        "by_requirement": by_requirement,
        "by_sender": by_sender,
        "distinct_senders": distinct_senders,
        "by_version": by_version,
        "by_server_outcome": by_server,
        "quarantine": {"by_reason": quarantine_reasons, "entries": quarantine_sources},
    }


def render_html(summary: dict[str, Any]) -> str:
    """``summary.html``: the summary as one self-contained page (no external assets)."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(
        loader=PackageLoader("mqcn_suite.pipeline", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("summary.html.j2").render(
        s=summary, balance_line=balance_text(summary["balance"])
    )
