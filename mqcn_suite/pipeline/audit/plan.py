"""What the driver decides before any Spark job: the kind of input, its work, its rows.

:func:`plan_input` lists the input's files and hands them to the first registered
:class:`InputKind` that claims them.  The kind's planner reads what it can cheaply (Parquet
footers, file sizes), returns the work for the executors, the input it already sets aside
(a file without a readable footer, a stray file, an unreadable raw file) and the number of
rows the input is known to hold -- the left side of the audit's balance.

Three kinds are built in (:mod:`.kinds`), asked in this order: ``capture`` (an input
holding a pcap or pcapng file), ``parquet`` (any ``*.parquet`` file in the input;
docs/corpus-format.md) and ``raw`` (anything else: one message body per file).  A new kind
is one module that calls :func:`~.kind.register_input_kind` with its
:class:`~.kind.InputKind`; nothing else changes.

Each planner also says what it found in words (:attr:`Plan.description`: ``2 pcap captures,
108.8 MB``, ``a Parquet corpus of 1000 rows in 2 files, 165.9 kB``, ``1 file read as a raw
message body, 612 bytes``), the first line ``mqcn audit`` prints, and how many bytes the
input holds (:attr:`Plan.bytes`), which with :attr:`Plan.rows_expected` decides the engine
(:mod:`mqcn_suite.pipeline.engine`).

A single INPUT file that cannot be read at all is refused here, in one line, before any
engine starts (:func:`check_single_file`): an empty file (0 bytes: no capture, no corpus, no
message), and a file a kind expected that holds nothing it can read
(:attr:`~.kind.InputKind.refuses`: a file named ``.pcap`` without a capture header...).
Any other single file that no kind claims first is judged as one raw message body, and its
description says so.
"""

from __future__ import annotations

import os
from pathlib import Path

from mqcn_suite.pipeline.audit.kind import INPUT_KINDS, Plan, input_kind
from mqcn_suite.pipeline.session import PipelineError
from mqcn_suite.pipeline.storage import local_input


class NothingToJudge(Exception):
    """The input holds no message at all: an audit would judge nothing.

    Not a usage error -- the input exists and is readable -- but no work either: the
    commands exit 5 with one line, as ``mqcn run`` does when no scenario ran, so that an
    empty capture never passes as a clean one.
    """


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
    or a file a kind expected that holds nothing it can read (see the module doc)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise PipelineError(f"INPUT: {input_path}: cannot read: {exc.strerror or exc}") from None
    if size == 0:
        raise PipelineError(
            f"INPUT: {input_path} is an empty file (0 bytes): no capture, no Parquet corpus, "
            "no message body to judge"
        )
    for kind in INPUT_KINDS:
        problem = kind.refuses(path)
        if problem:
            raise PipelineError(f"INPUT: {input_path}: {problem}")
