"""``DIR/state.jsonl``: one line per finished mutant, so an interrupted run can resume.

Each line is a JSON object written (and flushed to disk) the moment its mutant finishes::

    {"id": "server.py:NotificationServer.deliver:IfTrue:1@1a2b3c", "file": "mqcn_model/server.py",
     "file_hash": "…", "targets": ["reference"], "status": "killed", "line": 181, …}

On ``--resume`` (the default) a mutant is skipped when the file holds a line with its ID,
the same hash of its file's source and the same targets: nothing that decides its outcome
has changed.  A line cut short by a kill is ignored (that mutant simply runs again); when an
ID appears twice the last line wins.  ``--restart`` empties the file first.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

STATE_FILE = "state.jsonl"
STATUSES = ("killed", "timeout", "survived", "no-coverage")


class StateFile:
    """Append-only results of one output directory (safe to call from several threads)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / STATE_FILE
        self._lock = threading.Lock()

    def reset(self) -> None:
        """Forget every result (``--restart``)."""
        self.path.write_text("", encoding="utf-8")

    def repair(self) -> None:
        """End a line cut short by a kill, so the next record starts on a line of its own."""
        try:
            with self.path.open("rb") as stream:
                stream.seek(0, os.SEEK_END)
                if stream.tell() == 0:
                    return
                stream.seek(-1, os.SEEK_END)
                complete = stream.read(1) == b"\n"
        except FileNotFoundError:
            return
        if not complete:
            with self.path.open("a", encoding="utf-8") as stream:
                stream.write("\n")

    def load(self) -> dict[str, dict[str, Any]]:
        """The last complete record of every mutant ID in the file."""
        records: dict[str, dict[str, Any]] = {}
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return records
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut short when the run was killed
            if isinstance(record, dict) and record.get("status") in STATUSES and "id" in record:
                records[record["id"]] = record
        return records

    def append(self, record: dict[str, Any]) -> None:
        """Write one finished mutant's record and make sure it reached the disk."""
        line = json.dumps(record, sort_keys=True) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as stream:
            stream.write(line)
            stream.flush()
            os.fsync(stream.fileno())


def reusable(
    record: dict[str, Any] | None, file_hash: str, targets: Iterable[str]
) -> dict[str, Any] | None:
    """``record`` if it still describes the mutant (same file source, same targets)."""
    if record is None:
        return None
    if record.get("file_hash") != file_hash or record.get("targets") != list(targets):
        return None
    return record
