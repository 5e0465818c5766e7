"""Spark's failures, told in one line; the whole Java and Python trace kept in a log file.

A job that fails on the executors reaches the driver as a Py4J or PySpark exception whose
text is a Java stack trace with the Python traceback of the task inside it -- a hundred
lines that name the problem once, somewhere in the middle.  :func:`spark_failure_line`
finds that one problem and returns one line for the terminal:

* a Python exception raised while a task worked on a row carries the row: the task raises
  :class:`TaskFailure` ("at case 17 of seed 3 ...: ValueError: ..."), and the line says it;
* any other Python exception on an executor (an import that fails there, say) is named
  with its type and message;
* a job Spark gave up on for another reason (executors lost more often than
  ``spark.task.maxFailures``, the application stopped) is named by Spark's own reason.

The whole text goes to a new file under the pipeline's log folder, and the line ends with
its path.  ``mqcn`` commands print the line and exit 3 (``commands/pipeline.py``).

The in-process engine runs the same tasks in the command's own process: a
:class:`TaskFailure` reaches the command as itself, and :func:`task_failure_line` tells it
the same way, without a Spark trace to keep (``a task failed at case 17 of seed 3: ...``).

>>> print(TaskFailure("case 7 of seed 1", KeyError("x"), "mqcn fuzz target --seed 1 --case 7"))
[mqcn-task-failure] at case 7 of seed 1
KeyError: 'x'
replay: mqcn fuzz target --seed 1 --case 7
>>> one_problem("Traceback (most recent call last):\\n  File ...\\nValueError: bad\\n")
'ValueError: bad'
"""

from __future__ import annotations

import os
import re
import traceback
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from mqcn_suite.pipeline.groundwork import cache_dir
from mqcn_suite.pipeline.session import LOGS_KEPT, driver_log

MARK = "[mqcn-task-failure]"
LINE_LIMIT = 400  # characters of a message shown on the terminal line

T = TypeVar("T")


class TaskFailure(RuntimeError):
    """Raised inside a Spark task: where it was (the row), what went wrong, how to replay it.

    One short line each: on its way from an executor to the driver Spark cuts every line of
    a Python traceback at 200 characters.
    """

    def __init__(self, where: str, error: BaseException, replay: str | None = None) -> None:
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        detail = f"{type(error).__name__}: {first}" if first else type(error).__name__
        lines = [f"{MARK} at {where}", detail] + ([f"replay: {replay}"] if replay else [])
        super().__init__("\n".join(lines))


def locate_failure(items: Sequence[T], run_one: Callable[[T], object], where: str) -> None:
    """Raise :class:`TaskFailure` naming the first item of ``items`` that ``run_one`` fails on.

    For pure per-row functions (the corpus generator): after a batch failed, running its rows
    one at a time finds the row -- costing nothing while nothing fails.  ``where`` is a
    format string with ``{item}``.  Returns quietly when every row passes alone.
    """
    for item in items:
        try:
            run_one(item)
        except Exception as exc:
            raise TaskFailure(where.format(item=item), exc) from exc


# --- on the driver ------------------------------------------------------------------------------

_TRACEBACK = "Traceback (most recent call last):"


def one_problem(text: str) -> str | None:
    """The ``Type: message`` line that ends the last Python traceback in ``text``."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == _TRACEBACK]
    if not starts:
        return None
    for line in lines[starts[-1] + 1 :]:
        if line and not line[0].isspace() and not line.startswith("^"):
            return line.strip()
    return None


def is_spark_failure(exc: BaseException) -> bool:
    """Whether ``exc`` came out of Spark (PySpark's or Py4J's exceptions)."""
    return any(
        (kind.__module__ or "").startswith(("pyspark", "py4j")) for kind in type(exc).__mro__
    )


def _full_text(exc: BaseException) -> str:
    parts = ["".join(traceback.format_exception(exc))]
    for name in ("getJavaStackTrace", "_stackTrace"):
        extra = getattr(exc, name, None)
        text = extra() if callable(extra) else extra
        if isinstance(text, str) and text and text not in parts[0]:
            parts.append(f"JVM stack trace:\n{text}")
    return "\n".join(parts)


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LINE_LIMIT else text[: LINE_LIMIT - 1] + "…"


def describe(text: str) -> str:
    """The one-line description of a failed job whose exception reads ``text``."""
    attempts = re.search(r"failed (\d+) times", text)
    tried = f" (tried {attempts.group(1)} times)" if attempts else ""
    marked = re.search(re.escape(MARK) + r" (.*)\n(.*)(?:\nreplay: (.*))?", text)
    if marked:
        where, detail, replay = marked.groups()
        again = f" (replay: {replay.strip()})" if replay else ""
        return _shorten(f"a Spark task failed{tried} {where.strip()}: {detail.strip()}{again}")
    problem = one_problem(text)
    if problem:
        return _shorten(f"a Spark task failed on an executor{tried}: {problem}")
    lost = re.search(r"most recent failure: ([^\n]*)", text)
    if lost:
        return _shorten(f"Spark gave up on the job{tried}: {lost.group(1)}")
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if "SparkContext" in text and ("shut down" in text or "stopped" in text):
        return _shorten(f"Spark stopped the application: {first}")
    return _shorten(f"the Spark job failed: {first}")


def write_error_log(text: str) -> Path:
    """A new file holding ``text`` (the whole failure) and where the driver log is."""
    folder = cache_dir() / "logs"
    folder.mkdir(exist_ok=True)
    old = sorted(folder.glob("spark-error-*.log"), key=lambda p: p.stat().st_mtime)
    for stale in old[: max(0, len(old) - LOGS_KEPT + 1)]:  # the newest ones are kept
        stale.unlink(missing_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = folder / f"spark-error-{stamp}-{os.getpid()}.log"
    log = driver_log()
    header = f"driver log (Spark's own messages): {log}\n\n" if log else ""
    path.write_text(header + text, "utf-8")
    return path


def task_failure_line(exc: BaseException) -> str | None:
    """One line for a :class:`TaskFailure` raised in this process (the in-process engine):
    where, what, and the replay command; None for any other exception."""
    if not isinstance(exc, TaskFailure):
        return None
    where, detail, *rest = str(exc).splitlines()
    replay = f" ({rest[0]})" if rest else ""
    return _shorten(f"a task failed {where.removeprefix(MARK).strip()}: {detail}{replay}")


def spark_failure_line(exc: BaseException) -> str | None:
    """One line for a failure that came out of Spark, or for a task's own failure in process
    (:func:`task_failure_line`); None for any other exception."""
    if isinstance(exc, TaskFailure):
        return task_failure_line(exc)
    if not is_spark_failure(exc):
        return None
    try:
        text = _full_text(exc)
    except Exception:  # the JVM may be gone already: what Python has must do
        text = "".join(traceback.format_exception_only(exc))
    try:
        where = f"; full trace in {write_error_log(text)}"
    except OSError as problem:
        where = f"; (the trace could not be written: {problem})"
    return describe(text) + where
