"""``mqcn listen``'s judging: the UserMessages a live queue manager receives, audited.

:class:`ListenAudit` is handed every UserMessage a :class:`mqcn_suite.transport.Listener`
receives (``on_message``) and judges it exactly as ``mqcn audit`` judges a captured one: the
one UserMessage judge (:func:`mqcn_model.wire.judgement.judge_user_message`, destination,
wire and envelope findings, with ``only_notifications``) and then the audit's
:class:`~mqcn_suite.pipeline.audit.Auditor` through its :class:`~.audit.RowBuilder` (the
body's verdict and the reference server's view).  So a message gives the same verdict row
over a socket as in a capture, apart from where it was: ``source`` is
``mqqb://PEER#session=S&seq=N``, ``stream`` is ``PEER -> LOCAL`` and ``capture_time`` is its
arrival (``capture`` and ``frames`` stay null: no capture file holds it).

Nothing is dropped: a UserMessage to another queue is counted as an *other message*; a
session that ends badly (bytes that are no MS-MQQB, a packet cut in the middle, a wire rule
broken by the session's own packets) is one quarantine entry of scope ``session`` with the
bytes it received and its transcript (rows unknown: what it held never became a message).
The listener goes on.  The balance, that of the ``listen`` input kind::

    UserMessages received = conforming + non-conforming + other messages + quarantined

The outputs are the audit's: ``verdicts/`` and ``quarantine/`` (Parquet, the same schemas as
``mqcn audit --out``; written as messages arrive), ``summary.json`` and ``summary.html``
(written by :meth:`ListenAudit.finish`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import mqcn_suite.pipeline.audit.schema as schema
from mqcn_model.errata import STRICT, Readings
from mqcn_model.wire.judgement import judge_user_message
from mqcn_suite.pipeline.audit import Auditor, RowBuilder, Tally, render_html
from mqcn_suite.pipeline.audit.job import LOCAL_PART, SUCCESS
from mqcn_suite.pipeline.audit.job import _micros as micros
from mqcn_suite.pipeline.audit.kind import (
    Account,
    InputKind,
    Plan,
    judged_anything,
    register_input_kind,
)
from mqcn_suite.pipeline.audit.schema import (
    QUARANTINE_DIR,
    SUMMARY_HTML,
    SUMMARY_JSON,
    VERDICT,
    VERDICTS_DIR,
    quarantine_row,
)
from mqcn_suite.pipeline.audit.summary import summarize_local
from mqcn_suite.pipeline.checks import check_out
from mqcn_suite.pipeline.engine import IN_PROCESS
from mqcn_suite.pipeline.session import PipelineError
from mqcn_suite.transport.transcript import IN
from mqcn_suite.wording import plural

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from mqcn_model.mqqb.events import UserMessageReceived
    from mqcn_suite.transport import Session

MODE = "listen"
SCOPE_SESSION = "session"  # a session that ended badly: its bytes, rows unknown
L_SESSIONS = "sessions"
L_SESSIONS_FAILED = "sessions_failed"
L_BYTES = "bytes_received"
L_USER_MESSAGES = "user_messages"
L_NOTIFICATIONS = "change_notifications"
L_OTHER = "other_messages"
L_WITH_FINDINGS = "messages_with_findings"


# --- the listen input kind: the summary of what arrived on a socket ---------------------------


def _claims_nothing(_files: list[Path]) -> bool:
    """``mqcn audit`` never reads files as ``listen`` input: it comes from a socket."""
    return False


def _plan_files(_files: list[Path]) -> Plan:
    raise PipelineError("listen input arrives on MS-MQQB sessions (mqcn listen), not in files")


def _no_frame(_spark: SparkSession, _plan: Plan, _readings: Readings) -> DataFrame | None:
    return None  # a listen plan has no work: its messages are judged as they arrive


def _no_rows(_plan: Plan, _readings: Readings) -> Iterator[pa.RecordBatch]:
    return iter(())


def listen_account(counters: dict[str, int], entries: int) -> Account:
    """The ``listen`` block of summary.json and its balance terms (UserMessages received,
    other messages, quarantine entries: the failed sessions)."""
    n = counters.get
    block = {
        name: n(name, 0)
        for name in (
            L_SESSIONS,
            L_SESSIONS_FAILED,
            L_BYTES,
            L_USER_MESSAGES,
            L_NOTIFICATIONS,
            L_OTHER,
            L_WITH_FINDINGS,
        )
    }
    return Account(
        block=block,
        rows_in=block[L_USER_MESSAGES],
        counted={"other_messages": block[L_OTHER]},
        figures={"quarantine_entries": entries},
    )


def listen_balance_text(balance: Mapping[str, Any], block: Mapping[str, Any] | None) -> str:
    """The balance of a listen run as one line."""
    block = block or {}
    judged = (
        balance["conforming"]
        + balance["non_conforming"]
        + balance.get("other_messages", 0)
        + balance["quarantined"]
    )
    sign = "=" if balance["rows_in"] == judged else "!="
    entries = balance.get("quarantine_entries", 0)
    return (
        f"UserMessages received {balance['rows_in']} {sign} conforming {balance['conforming']} "
        f"+ non-conforming {balance['non_conforming']} + other messages "
        f"{balance.get('other_messages', 0)} + quarantined {balance['quarantined']} "
        f"({plural(block.get(L_SESSIONS, 0), 'session')}, {block.get(L_BYTES, 0)} bytes "
        f"received, {plural(entries, 'quarantine entry', 'quarantine entries')}); "
        f"{block.get(L_WITH_FINDINGS, 0)} with wire or envelope findings"
    )


def listen_nothing_judged(
    balance: Mapping[str, Any], block: Mapping[str, Any] | None
) -> str | None:
    """What a listen run that judged and set aside nothing received."""
    if judged_anything(balance):
        return None
    block = block or {}
    return (
        f"0 change notifications ({plural(block.get(L_SESSIONS, 0), 'session')}, "
        f"{balance.get('other_messages', 0)} UserMessage(s) to other queues)"
    )


LISTEN = InputKind(
    MODE,
    _claims_nothing,
    _plan_files,
    _no_frame,
    _no_rows,
    "UserMessages",
    account=listen_account,
    balance_text=listen_balance_text,
    nothing_judged=listen_nothing_judged,
    rows_label="UserMessages received",
    no_findings="No change notification breaks a wire value rule or a 3.3.5.3 sender rule.",
)
register_input_kind(LISTEN, first=False)  # asked last, and it claims no files


# --- the judging ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """What one arrival came to, for the command's one line per message."""

    outcome: str  # conforming / non-conforming / other / quarantined
    source: str
    requirements: tuple[str, ...] = ()
    note: str = ""

    def text(self) -> str:
        ids = ", ".join(self.requirements) or "-"
        tail = f" ({self.note})" if self.note else ""
        return f"{self.outcome:<14} {self.source}  {ids}{tail}"


def _address(address: tuple[str, int] | None) -> str:
    return f"{address[0]}:{address[1]}" if address else "?"


class ListenAudit:
    """Judges what a listener receives and writes the audit's outputs into ``out``.

    :meth:`on_message` is the listener's callback (it runs in a session's thread; a lock
    keeps the rows in order); :meth:`account_sessions` quarantines the sessions that ended
    badly; :meth:`finish` writes the summaries.  ``lines`` holds one :class:`Line` per
    arrival until the caller :meth:`take_lines`.
    """

    def __init__(self, out: str | Path, readings: Readings = STRICT) -> None:
        check_out(out, "--report")  # absent or an empty folder, writable: asked up front
        self.out = Path(out)
        self.readings = readings
        self.auditor = Auditor(readings)
        self.rows = RowBuilder(Tally())
        self.received = 0  # UserMessages received, to any queue
        self._lines: list[Line] = []
        self._quarantine: list[dict[str, Any]] = []
        self._sessions: dict[int, int] = {}  # id(session) -> its number
        self._accounted: set[int] = set()
        self._lock = threading.Lock()
        self._verdicts: pq.ParquetWriter | None = None  # opened with the first row (_open)
        self._aside: pq.ParquetWriter | None = None

    def _open(self) -> tuple[pq.ParquetWriter, pq.ParquetWriter]:
        """The two Parquet writers, the folders made on first use (so a listener that never
        starts, e.g. a port it cannot bind, leaves ``out`` untouched).  Lock held."""
        if self._verdicts is None or self._aside is None:
            try:
                for folder in (VERDICTS_DIR, QUARANTINE_DIR):
                    (self.out / folder).mkdir(parents=True)
            except OSError as exc:
                raise PipelineError(f"cannot create {self.out}: {exc.strerror or exc}") from None
            self._verdicts = pq.ParquetWriter(
                self.out / VERDICTS_DIR / LOCAL_PART, schema.VERDICT_SCHEMA
            )
            self._aside = pq.ParquetWriter(
                self.out / QUARANTINE_DIR / LOCAL_PART, schema.QUARANTINE_SCHEMA
            )
        return self._verdicts, self._aside

    # --- arrivals ----------------------------------------------------------------------------

    def _number(self, session: Session) -> int:
        return self._sessions.setdefault(id(session), len(self._sessions) + 1)

    def _where(self, session: Session, when: float) -> tuple[Any, ...]:
        transcript = session.transcript
        place = {
            "stream": f"{_address(transcript.peer)} -> {_address(transcript.local)}",
            "capture_time": round(when * 1_000_000),
        }
        return tuple(place.get(name) for name in schema.PROVENANCE_COLUMNS)

    def on_message(self, session: Session, received: UserMessageReceived) -> None:
        """Judge one received UserMessage (the listener's ``on_message``)."""
        now = time.time()
        with self._lock:
            count = self.rows.tally.count
            self.received += 1
            count(L_USER_MESSAGES)
            source = (
                f"mqqb://{_address(session.transcript.peer)}"
                f"#session={self._number(session)}&seq={received.sequence}"
            )
            found = judge_user_message(
                received.packet,
                self.readings,
                arrival_time=now,
                judge_body=False,  # the Auditor judges the body, with the server's view
                only_notifications=True,  # the destination alone decides
            )
            if found.envelope is None:
                count(L_OTHER)
                self._lines.append(Line("other", source, note=f"to {found.destination}"))
                return
            count(L_NOTIFICATIONS)
            if found.findings:
                count(L_WITH_FINDINGS)
            envelope = found.envelope
            self.rows.judge(
                self.auditor,
                [source],
                [received.packet.body],
                [envelope.message_id.to_bytes()],
                [envelope.sender_identifier_type.name.rstrip("_")],
                [envelope.authentication_level.name.rstrip("_")],
                where=[self._where(session, now)],
                findings=[found.findings],
            )
            self._write(self.rows.batches(), source)

    def _write(self, batches: list[pa.RecordBatch], source: str) -> None:
        verdicts, aside = self._open()
        for batch in batches:
            status = batch.column("status")
            judged = batch.filter(pc.equal(status, VERDICT))
            if judged.num_rows:
                rows = judged.select(list(schema.VERDICT_COLUMNS))
                verdicts.write_batch(rows)
                for row in rows.to_pylist():
                    verdict = "conforming" if row["conforming"] else "non-conforming"
                    note = f"server {row['server_outcome']}"
                    if row["server_reason"]:
                        note = f"{note}: {row['server_reason']}"
                    if row["findings"]:
                        note = f"findings {', '.join(row['findings'])}; {note}"
                    self._lines.append(Line(verdict, source, tuple(row["violations"]), note))
            held = batch.filter(pc.not_equal(status, VERDICT))
            if held.num_rows:
                rows = held.select(list(schema.QUARANTINE_COLUMNS))
                aside.write_batch(rows)
                for row in micros(rows).to_pylist():
                    self._quarantine.append(row)
                    self._lines.append(Line("quarantined", row["source"], note=row["reason"]))

    # --- sessions ----------------------------------------------------------------------------

    def account_sessions(self, sessions: list[Session], *, all_of_them: bool = False) -> None:
        """Count each closed session once; quarantine those that ended badly (``all_of_them``:
        the listener is closed, every session is over)."""
        with self._lock:
            for session in sessions:
                key = id(session)
                if key in self._accounted or not (all_of_them or session.closed):
                    continue
                self._accounted.add(key)
                count = self.rows.tally.count
                count(L_SESSIONS)
                received = len(session.transcript.bytes_of(IN))
                count(L_BYTES, received)
                error = session.error
                if error is None:
                    continue
                count(L_SESSIONS_FAILED)
                transcript = session.transcript
                peer = _address(transcript.peer)
                source = f"mqqb://{peer}#session={self._number(session)}"
                entry = quarantine_row(
                    source,
                    f"session: {type(error).__name__}",
                    None,
                    scope=SCOPE_SESSION,
                    size=received,
                    detail=f"{error}\n{transcript.render()}",
                    where={
                        "stream": f"{peer} -> {_address(transcript.local)}",
                        "capture_time": round(
                            (transcript.entries[-1].time if transcript.entries else time.time())
                            * 1_000_000
                        ),
                    },
                )
                self.rows.quarantine(entry)
                self._write(self.rows.batches(), source)

    def take_lines(self) -> list[Line]:
        """The lines of the arrivals since the last call."""
        with self._lock:
            lines, self._lines = self._lines, []
        return lines

    # --- the end -----------------------------------------------------------------------------

    def finish(self, address: str, started: float) -> dict[str, Any]:
        """Close the Parquet files; write and return summary.json (and summary.html)."""
        import json

        with self._lock:
            verdicts, aside = self._open()
            verdicts.close()
            aside.close()
            for folder in (VERDICTS_DIR, QUARANTINE_DIR):
                (self.out / folder / SUCCESS).write_bytes(b"")
            tally = self.rows.tally.batch()
            description = f"MS-MQQB sessions accepted on {address}"
            plan = Plan(MODE, [], [], 0, 0, description)
            summary = summarize_local(
                [tally], list(self._quarantine), plan, f"mqqb://{address}", self.readings
            )
        summary["engine"] = IN_PROCESS
        summary["detected"] = description
        summary["seconds"] = round(time.perf_counter() - started, 3)
        (self.out / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
        (self.out / SUMMARY_HTML).write_text(render_html(summary), "utf-8")
        return summary
