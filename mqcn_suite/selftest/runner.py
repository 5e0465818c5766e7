"""Running mutants: one sandbox per worker, in parallel, stoppable at any moment.

:class:`MutantRunner` gives each :class:`Job` (a mutant and the tests it needs per target)
to a free :class:`~mqcn_suite.selftest.sandbox.Sandbox`: the mutated file is written into the
copy, the selected ``--tests`` run first (quick, and for the oracle files the likeliest to
fail), then the selected scenarios under each target in turn (each run stopping at its first
failure: ``pytest -x``), and the original text is written back.  A mutant is *killed* as
soon as one run fails, *timeout* if a run exceeds the limit, *survived* if every run passes.

The workers are threads; the work is done by subprocesses, each in its own session, so the
terminal's Ctrl-C reaches only the tool.  On Ctrl-C (or SIGTERM) :meth:`MutantRunner.run`
kills every running subprocess, drops their unfinished results, waits for the threads and
re-raises :class:`KeyboardInterrupt`; everything finished before is already in the state file.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from mqcn_suite.selftest.guard import (
    DEADLINE_EXIT,
    ISOLATION_EXIT,
    ISOLATION_MARK,
    SELECT_ENV,
)
from mqcn_suite.selftest.mutants import Mutant
from mqcn_suite.selftest.sandbox import ProcessRegistry, RunOutcome, Sandbox
from mqcn_suite.selftest.testmap import Selection, Suite

SELECT_FILE = ".mutation-select.txt"


class IsolationError(Exception):
    """A sandboxed run imported project code from outside its copy: stop everything."""


@dataclass(frozen=True, slots=True)
class Job:
    """One mutant to run: its original file text and the tests it needs per target."""

    mutant: Mutant
    source: str
    file_hash: str
    selections: dict[str, Selection]  # by suite name (the target, or tests:…)
    totals: dict[str, int]  # every test of each suite, for the record


def isolation_problem(outcome: RunOutcome) -> str | None:
    """The guard's one-line complaint if ``outcome`` is a run it stopped, else None."""
    if outcome.code != ISOLATION_EXIT:
        return None
    for line in outcome.output.splitlines():
        if line.startswith(ISOLATION_MARK):
            return line.removeprefix(ISOLATION_MARK).strip()
    return f"a sandboxed run ended with the guard's exit code {ISOLATION_EXIT}"


class MutantRunner:
    """Runs jobs on a fixed set of sandboxes (one worker thread each)."""

    def __init__(
        self,
        sandboxes: Sequence[Sandbox],
        targets: Sequence[str | Suite],
        *,
        timeout: float,
        registry: ProcessRegistry,
    ) -> None:
        self.sandboxes = list(sandboxes)
        self.suites = [Suite.of(target) for target in targets]
        self.targets = [suite.name for suite in self.suites]
        self.timeout = timeout
        self.registry = registry

    def record(self, job: Job, status: str, **extra: Any) -> dict[str, Any]:
        """The state-file record of a finished job."""
        mutant = job.mutant
        return {
            "id": mutant.id,
            "file": mutant.file,
            "file_hash": job.file_hash,
            "targets": self.targets,
            "status": status,
            "line": mutant.line,
            "operator": mutant.operator,
            "tests": {
                target: selection.count(job.totals.get(target, 0))
                for target, selection in job.selections.items()
            },
            **extra,
        }

    def run_one(self, sandbox: Sandbox, job: Job) -> dict[str, Any] | None:
        """Run one job in ``sandbox``; None if it was stopped before it finished."""
        mutant = job.mutant
        started = time.monotonic()
        with sandbox.mutated(mutant.file, mutant.apply(job.source)):
            for suite in sorted(self.suites, key=lambda suite: suite.scenarios):
                target = suite.name
                selection = job.selections[target]
                if selection.empty:
                    continue
                env = {}
                if not selection.everything:
                    select_file = sandbox.root / SELECT_FILE
                    select_file.write_text("\n".join(selection.tests) + "\n", encoding="utf-8")
                    env[SELECT_ENV] = str(select_file)
                outcome = sandbox.pytest(
                    selection.paths(suite.paths),
                    suite.target,
                    timeout=self.timeout,
                    registry=self.registry,
                    env=env,
                )
                if outcome.cancelled:
                    return None
                problem = isolation_problem(outcome)
                if problem:
                    raise IsolationError(problem)
                seconds = round(time.monotonic() - started, 3)
                if outcome.timed_out or outcome.code == DEADLINE_EXIT:
                    return self.record(job, "timeout", target=target, seconds=seconds)
                if outcome.code != 0:
                    return self.record(
                        job,
                        "killed",
                        target=target,
                        exit_code=outcome.code,
                        failure=outcome.first_failure() or outcome.last_line(),
                        seconds=seconds,
                    )
        return self.record(job, "survived", seconds=round(time.monotonic() - started, 3))

    def run(self, jobs: Sequence[Job], done: Callable[[Job, dict[str, Any]], None]) -> None:
        """Run every job; ``done(job, record)`` is called in this thread as each finishes.

        Raises :class:`KeyboardInterrupt` (after stopping the workers) when interrupted, and
        :class:`IsolationError` when a run escaped its sandbox.
        """
        free: queue.Queue[Sandbox] = queue.Queue()
        for sandbox in self.sandboxes:
            free.put(sandbox)

        def work(job: Job) -> dict[str, Any] | None:
            if self.registry.stopping.is_set():
                return None
            sandbox = free.get()
            try:
                return self.run_one(sandbox, job)
            finally:
                free.put(sandbox)

        executor = ThreadPoolExecutor(len(self.sandboxes), thread_name_prefix="mutant")
        pending: dict[Future[dict[str, Any] | None], Job] = {}
        try:
            pending = {executor.submit(work, job): job for job in jobs}
            while pending:
                finished, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
                for future in finished:
                    job = pending.pop(future)
                    record = future.result()
                    if record is not None:
                        done(job, record)
        except BaseException:
            self.registry.stop_all()
            for future in pending:
                future.cancel()
            raise
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
