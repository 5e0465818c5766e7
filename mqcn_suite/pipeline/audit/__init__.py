"""``audit``: judge every message of a corpus on Spark and account for every input row.

Three kinds of input, each one module of :mod:`.kinds` that registers itself
(:class:`~.kind.InputKind`; a new kind is one more such module):

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
  message per file, judged exactly as ``mqcn decode --file`` judges it;
* **packet captures** (pcap, pcapng; a file or a folder of them; :mod:`.capture`): one task
  per capture file (on Spark, byte ranges then connections above a threshold:
  :mod:`.kinds.capture_split`) reassembles TCP, frames MS-MQQB packets and judges every
  UserMessage sent to a notification queue as a Parquet row with the same envelope; its
  verdict row also
  says where it was (capture, frames, stream, capture time).  Other packets are counted,
  bytes that are no packet or were not captured are quarantined, and the balance counts
  UserMessages and stream bytes.

Every message goes through :func:`mqcn_model.judge.judge` (the fast codec and the content
rules) inside ``mapInArrow``, a batch of Arrow rows at a time, and through the reference
queue manager (:class:`mqcn_model.server.NotificationServer`), handed the judge's decode, to
say what a conforming server would do with it: ``processed``, or ``disregarded`` with the
reason (``authentication``: a Version 0x01 message whose SenderIdentifierType is not
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

The modules, each doing one thing:

* :mod:`.schema`  -- output directory names, Arrow schemas (the core columns, then each
  kind's provenance columns), row kinds, the generic quarantine scopes
* :mod:`.kind`    -- the :class:`InputKind` interface, :class:`Plan`, the registry
* :mod:`.kinds`   -- the built-in kinds: ``raw``, ``parquet``, ``capture`` (one module each)
* :mod:`.judging` -- :class:`Auditor`: one message in, one verdict row's values out
* :mod:`.tasks`   -- :class:`RowBuilder`, what every kind's task builds its Arrow rows with
* :mod:`.plan`    -- :func:`plan_input` (the first kind that claims the input plans it),
  :func:`check_work`
* :mod:`.job`     -- :func:`audit`: the Spark actions or the in-process run, the outputs
* :mod:`.summary` -- the per-task tallies, ``summary.json`` (with the kind's block) and
  ``summary.html``

Imports go one way (no circle): schema <- kind <- summary <- tasks (with judging) <-
kinds/*, and kind <- plan <- job; only this ``__init__`` imports the kinds.
"""

# The built-in kinds register first: their provenance columns join the schemas before use.
from mqcn_suite.pipeline.audit import kinds
from mqcn_suite.pipeline.audit.job import AuditResult, audit, build_frame, check_out
from mqcn_suite.pipeline.audit.judging import REASON_OF, Auditor
from mqcn_suite.pipeline.audit.kind import (
    INPUT_KINDS,
    Account,
    InputKind,
    Plan,
    Unit,
    input_kind,
    register_input_kind,
)
from mqcn_suite.pipeline.audit.kinds.parquet import judge_parquet_units
from mqcn_suite.pipeline.audit.kinds.raw import judge_raw_files
from mqcn_suite.pipeline.audit.plan import NothingToJudge, check_work, plan_input
from mqcn_suite.pipeline.audit.schema import (
    PROVENANCE_COLUMNS,
    QUARANTINE_COLUMNS,
    QUARANTINE_DIR,
    QUARANTINE_SCHEMA,
    ROW_SCHEMA,
    SCOPE_FILE,
    SCOPE_NO_FOOTER,
    SCOPE_ROW,
    SCOPE_ROW_GROUP,
    SUMMARY_HTML,
    SUMMARY_JSON,
    VERDICT_COLUMNS,
    VERDICT_SCHEMA,
    VERDICTS_DIR,
    quarantine_row,
)
from mqcn_suite.pipeline.audit.summary import Tally, balance_text, render_html, summarize
from mqcn_suite.pipeline.audit.tasks import RowBuilder

__all__ = [
    "INPUT_KINDS",
    "PROVENANCE_COLUMNS",
    "QUARANTINE_COLUMNS",
    "QUARANTINE_DIR",
    "QUARANTINE_SCHEMA",
    "REASON_OF",
    "ROW_SCHEMA",
    "SCOPE_FILE",
    "SCOPE_NO_FOOTER",
    "SCOPE_ROW",
    "SCOPE_ROW_GROUP",
    "SUMMARY_HTML",
    "SUMMARY_JSON",
    "VERDICTS_DIR",
    "VERDICT_COLUMNS",
    "VERDICT_SCHEMA",
    "Account",
    "AuditResult",
    "Auditor",
    "InputKind",
    "NothingToJudge",
    "Plan",
    "RowBuilder",
    "Tally",
    "Unit",
    "audit",
    "balance_text",
    "build_frame",
    "check_out",
    "check_work",
    "input_kind",
    "judge_parquet_units",
    "judge_raw_files",
    "kinds",
    "plan_input",
    "quarantine_row",
    "register_input_kind",
    "render_html",
    "summarize",
]
