"""Progress on the terminal: Spark's start, its tasks, or the in-process engine's steps.

``spark_progress(spark, console)`` returns a factory: ``with step("judging"): action()``
shows a bar whose total is the number of tasks of the stages running, polled a few times a
second from ``SparkContext.statusTracker()`` on a daemon thread.  ``local_progress(console)``
is the in-process engine's: a spinner with the step's name and its time.  When ``console``
is not a terminal (a pipe, a file, a test runner) both factories do nothing at all.

``starting_spark(console, master)`` is said *before* a session is created -- ``starting
Spark (local[2])…`` on stderr, terminal or not, then a spinner with the seconds while the
JVM starts (on a terminal) -- so a Spark run shows progress from its first second.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

POLL_SECONDS = 0.25

StepFactory = Callable[[str], AbstractContextManager[None]]


def _tasks(spark: SparkSession) -> tuple[int, int]:
    """(completed, total) tasks of the stages running now."""
    tracker = spark.sparkContext.statusTracker()
    done = total = 0
    for stage_id in tracker.getActiveStageIds():
        info = tracker.getStageInfo(stage_id)
        if info is not None:
            done += info.numCompletedTasks
            total += info.numTasks
    return done, total


def local_progress(console: Console) -> StepFactory:
    """A ``step(description)`` factory for the in-process engine: a spinner and the time."""
    if not console.is_terminal:
        return lambda _description: nullcontext()

    @contextmanager
    def step(description: str) -> Iterator[None]:
        columns = (SpinnerColumn(), TextColumn("[bold]{task.description}"), TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            bar.add_task(description, total=None)
            yield

    return step


def starting_spark(console: Console, master: str) -> AbstractContextManager[None]:
    """Say that Spark is starting on ``master`` (one line), then show a spinner while it does."""
    console.print(f"starting Spark ({master})…", markup=False, highlight=False)
    return local_progress(console)(f"starting Spark ({master})")


def spark_progress(spark: SparkSession, console: Console) -> StepFactory:
    """A ``step(description)`` context-manager factory showing Spark task progress."""
    if not console.is_terminal:
        return lambda _description: nullcontext()

    @contextmanager
    def step(description: str) -> Iterator[None]:
        columns = (
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("tasks"),
            TimeElapsedColumn(),
        )
        stop = threading.Event()
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task(description, total=None)

            def poll() -> None:
                while not stop.wait(POLL_SECONDS):
                    try:
                        done, total = _tasks(spark)
                    except Exception:  # the context is shutting down
                        return
                    if total:
                        bar.update(task, completed=done, total=total)

            thread = threading.Thread(target=poll, name="mqcn-progress", daemon=True)
            thread.start()
            try:
                yield
            finally:
                stop.set()
                thread.join(timeout=1)

    return step
