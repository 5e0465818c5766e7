"""Copies of the project tree where mutants are written and their scenarios run.

A mutant is never written into the work tree.  Each worker owns a :class:`Sandbox`: a
temporary directory holding a copy of ``mqcn_model/``, ``mqcn_suite/``, ``steps/``,
``features/``, ``tests/``, ``reference_vectors/``, ``docs/``, ``conftest.py`` and
``pyproject.toml``.
The mutated file is written into the copy, pytest runs in a subprocess whose working
directory is the copy, and the original text is written back afterwards.

**Making the copy's code the code that runs.**  The project is installed editable: a
setuptools finder on ``sys.meta_path`` maps ``mqcn_model`` and ``mqcn_suite`` to the work
tree.  That finder is *appended* to ``sys.meta_path``, after the ordinary path finder, so a
module found on ``sys.path`` wins.  The subprocess is started as ``python -m pytest`` with
its working directory and ``PYTHONPATH`` both set to the copy, so ``sys.path`` starts with
the copy and every ``mqcn_model``/``mqcn_suite``/``steps`` import resolves there (the
``pytest11`` entry point of the installed distribution imports ``mqcn_suite.plugin`` by
name, so it too comes from the copy).  This is not taken on trust: every run loads
:mod:`mqcn_suite.selftest.guard`, which checks the file of every such module and ends the
run with :data:`~mqcn_suite.selftest.guard.ISOLATION_EXIT` if one came from elsewhere, and
:mod:`mqcn_suite.selftest.mutation` runs a fatal *canary* mutant before anything else.

**Bytecode.**  The copy is compiled once with *checked-hash* ``.pyc`` files (validated
against the source's hash, not its modification time), and the subprocesses never write
bytecode (``PYTHONDONTWRITEBYTECODE``): a mutant of the same size written within the same
second as the original can never be run from a stale ``.pyc``.
"""

from __future__ import annotations

import compileall
import os
import py_compile
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from mqcn_suite.selftest.guard import (
    DEADLINE_ENV,
    GUARD_PLUGIN,
    ROOT_ENV,
)

COPIED = (
    "mqcn_model",
    "mqcn_suite",
    "steps",
    "features",
    "tests",
    "reference_vectors",
    "docs",  # unit tests read docs/errata.md (--tests)
    "conftest.py",
    "pyproject.toml",
)
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache")
_COMPILED = ("mqcn_model", "mqcn_suite")
TEMP_PREFIX = "mqcn-mutation-"
# Environment variables of the parent that must not reach a sandboxed run.
_DROPPED_ENV = ("PYTHONPATH", "PYTHONSAFEPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")
_DROPPED_PREFIXES = ("COV_CORE_", "COVERAGE_")
OUTPUT_KEPT = 4000  # characters of a run's output kept (its end)


def pytest_arguments(target: str) -> list[str]:
    """The options of every sandboxed scenario run, for one ``--mqcn-target``."""
    return [
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-p",
        GUARD_PLUGIN,
        "--tb=short",
        "-rfE",
        f"--mqcn-target={target}",
        # The reference targets claim exactly the errata readings they follow: a mutant that
        # follows the other one is a fault, not an allowed reading.
        "--mqcn-reading-claims=fail",
    ]


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How one subprocess ended."""

    code: int | None  # None: it timed out, or was stopped
    seconds: float
    output: str  # the end of its combined stdout/stderr
    timed_out: bool = False
    cancelled: bool = False

    def first_failure(self) -> str | None:
        """The first ``FAILED``/``ERROR`` line of pytest's short summary, if any."""
        for line in self.output.splitlines():
            if line.startswith(("FAILED ", "ERROR ")):
                return line
        return None

    def last_line(self) -> str:
        lines = [line for line in self.output.splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""


class ProcessRegistry:
    """The subprocesses running now, so that Ctrl-C can stop every one of them.

    Each subprocess is started in its own session (so the terminal's Ctrl-C reaches only
    the tool) and stopped here by its process group id.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self.stopping = threading.Event()

    def start(self, argv: Sequence[str], **kwargs: object) -> subprocess.Popen[bytes] | None:
        with self._lock:
            if self.stopping.is_set():
                return None
            process = subprocess.Popen(argv, start_new_session=True, **kwargs)  # type: ignore[call-overload]
            self._running.add(process)
            return process

    def finished(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.discard(process)

    def stop_all(self) -> None:
        """Refuse new subprocesses and kill the running ones (their whole process group)."""
        with self._lock:
            self.stopping.set()
            for process in self._running:
                kill_group(process)


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL ``process`` and everything it started (it leads its own process group)."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


class Sandbox:
    """A private copy of the project tree (see the module documentation)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._originals: dict[str, str] = {}

    # --- making and removing ------------------------------------------------------------------
    @classmethod
    def create(cls, project: Path, temp_dir: Path | None = None) -> Sandbox:
        """Copy ``project``'s tree into a new temporary directory and compile it."""
        root = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=temp_dir)).resolve()
        sandbox = cls(root)
        try:
            for name in COPIED:
                source = project / name
                if source.is_dir():
                    shutil.copytree(source, root / name, ignore=_IGNORED)
                elif source.is_file():
                    shutil.copy2(source, root / name)
            sandbox.compile()
        except BaseException:
            sandbox.remove()
            raise
        return sandbox

    def clone(self, temp_dir: Path | None = None) -> Sandbox:
        """Another sandbox with exactly this one's files (the same snapshot of the tree)."""
        return Sandbox.create(self.root, temp_dir)

    def compile(self) -> None:
        """Checked-hash ``.pyc`` files for the packages (see the module documentation)."""
        for name in _COMPILED:
            if (self.root / name).is_dir():
                compileall.compile_dir(
                    self.root / name,
                    quiet=2,
                    invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
                )

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # --- files ----------------------------------------------------------------------------------
    def path(self, file: str) -> Path:
        return self.root / file

    def read(self, file: str) -> str:
        return self.path(file).read_text(encoding="utf-8")

    @contextmanager
    def mutated(self, file: str, text: str) -> Iterator[None]:
        """``file`` holds ``text`` inside the block and its original text after it."""
        original = self._originals.setdefault(file, self.read(file))
        self.path(file).write_text(text, encoding="utf-8")
        try:
            yield
        finally:
            self.path(file).write_text(original, encoding="utf-8")

    # --- running ----------------------------------------------------------------------------------
    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment of a sandboxed run: the copy first on ``sys.path``, no bytecode."""
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in _DROPPED_ENV and not key.startswith(_DROPPED_PREFIXES)
        }
        env.update(
            {
                "PYTHONPATH": str(self.root),
                "PYTHONDONTWRITEBYTECODE": "1",
                "PYTHONHASHSEED": "0",
                ROOT_ENV: str(self.root),
            }
        )
        env.update(extra or {})
        return env

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        registry: ProcessRegistry,
        env: Mapping[str, str] | None = None,
    ) -> RunOutcome:
        """Run ``argv`` in the copy; kill it (and its children) after ``timeout`` seconds."""
        started = time.monotonic()
        extra = {DEADLINE_ENV: f"{timeout + 15:.0f}", **(env or {})}
        process = registry.start(
            list(argv),
            cwd=self.root,
            env=self.environment(extra),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        if process is None:
            return RunOutcome(None, 0.0, "", cancelled=True)
        try:
            output, _ = process.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            kill_group(process)
            output, _ = process.communicate()
            timed_out = True
        finally:
            registry.finished(process)
        text = output.decode("utf-8", errors="replace")[-OUTPUT_KEPT:]
        seconds = time.monotonic() - started
        if registry.stopping.is_set():
            return RunOutcome(None, seconds, text, cancelled=True)
        code = None if timed_out else process.returncode
        return RunOutcome(code, seconds, text, timed_out=timed_out)

    def pytest(
        self,
        paths: Sequence[str],
        target: str,
        *,
        timeout: float,
        registry: ProcessRegistry,
        env: Mapping[str, str] | None = None,
        prefix: Sequence[str] = (),
    ) -> RunOutcome:
        """``python -m pytest PATHS -x -q ... --mqcn-target=TARGET`` in the copy.

        ``prefix`` goes between the interpreter and ``-m pytest`` (e.g. ``-m coverage run``
        options, which then run pytest as their module).
        """
        argv = [sys.executable, *prefix, "-m", "pytest", *paths, *pytest_arguments(target)]
        return self.run(argv, timeout=timeout, registry=registry, env=env)
