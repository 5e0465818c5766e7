"""The pytest plugin of every sandboxed run (``-p mqcn_suite.selftest.guard``).

It does nothing unless the mutation tool started the run (``MQCN_MUTATION_ROOT`` is set).
Then it:

* **checks isolation**: after configuration and again after collection, every loaded
  module of ``mqcn_model``, ``mqcn_suite`` and ``steps`` must come from the sandbox
  (``MQCN_MUTATION_ROOT``); otherwise it prints one line and ends the process with
  :data:`ISOLATION_EXIT`, which the tool reports as a broken set-up (never as a kill);
* **selects tests** (``MQCN_MUTATION_SELECT``: a file of node IDs, one a line): every other
  collected test is deselected;
* **records the collected node IDs** in order (``MQCN_MUTATION_COLLECTED``: a file to write);
* **labels coverage per test** (``MQCN_MUTATION_CONTEXTS=1``, when run under ``coverage
  run``): the dynamic context is the test's node ID while the test (its set-up, call and
  teardown) runs, and the empty context otherwise — at import, collection, and inside
  fixtures of a wider scope than a function, whose effects may reach every later test;
* **watches the clock**: it ends the process with :data:`DEADLINE_EXIT` past
  ``MQCN_MUTATION_DEADLINE`` seconds, or as soon as the tool that started it is gone, so an
  endless mutant never outlives a killed tool.

This module must stay importable without the rest of the project (it is imported first).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

GUARD_PLUGIN = "mqcn_suite.selftest.guard"
ROOT_ENV = "MQCN_MUTATION_ROOT"
SELECT_ENV = "MQCN_MUTATION_SELECT"
COLLECTED_ENV = "MQCN_MUTATION_COLLECTED"
CONTEXTS_ENV = "MQCN_MUTATION_CONTEXTS"
DEADLINE_ENV = "MQCN_MUTATION_DEADLINE"
ISOLATION_EXIT = 97
DEADLINE_EXIT = 98
ISOLATION_MARK = "mqcn-mutation-guard: isolation broken:"
PACKAGES = ("mqcn_model", "mqcn_suite", "steps")


def foreign_module(root: str) -> str | None:
    """The first project module loaded from outside ``root``, described; None if none."""
    base = os.path.realpath(root)
    for name, module in list(sys.modules.items()):
        if name.split(".", 1)[0] not in PACKAGES or module is None:
            continue
        files = [getattr(module, "__file__", None), *list(getattr(module, "__path__", []))]
        for file in files:
            if not file or file.startswith("__editable__"):
                continue
            real = os.path.realpath(file)
            if os.path.commonpath([base, real]) != base:
                return f"{name} was imported from {file}, not from the copy {root}"
    return None


def _check_isolation() -> None:
    root = os.environ.get(ROOT_ENV)
    if not root:
        return
    problem = foreign_module(root)
    if problem:
        sys.stderr.write(f"{ISOLATION_MARK} {problem}\n")
        sys.stderr.flush()
        os._exit(ISOLATION_EXIT)


def _watchdog(deadline: float, parent: int) -> None:
    started = time.monotonic()
    while True:
        time.sleep(0.5)
        if os.getppid() != parent or time.monotonic() - started > deadline:
            os._exit(DEADLINE_EXIT)


# --- coverage contexts ----------------------------------------------------------------------
_CONTEXT: list[str] = [""]


def _switch(context: str) -> None:
    if not os.environ.get(CONTEXTS_ENV):
        return
    import coverage

    current = coverage.Coverage.current()
    if current is not None and _CONTEXT[0] != context:
        current.switch_context(context)
    _CONTEXT[0] = context


# --- hooks ------------------------------------------------------------------------------------
@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get(ROOT_ENV):
        return
    _check_isolation()
    deadline = os.environ.get(DEADLINE_ENV)
    if deadline:
        thread = threading.Thread(
            target=_watchdog, args=(float(deadline), os.getppid()), daemon=True
        )
        thread.start()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if not os.environ.get(ROOT_ENV):
        return
    _check_isolation()  # the step modules are loaded now
    selection = os.environ.get(SELECT_ENV)
    if selection:
        wanted = set(Path(selection).read_text(encoding="utf-8").splitlines())
        kept = [item for item in items if item.nodeid in wanted]
        missing = wanted - {item.nodeid for item in kept}
        if missing:
            raise pytest.UsageError(
                f"mqcn-mutation-guard: {len(missing)} selected tests were not collected, "
                f"e.g. {sorted(missing)[0]}"
            )
        deselected = [item for item in items if item.nodeid not in wanted]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
        items[:] = kept
    collected = os.environ.get(COLLECTED_ENV)
    if collected:
        text = "".join(f"{item.nodeid}\n" for item in items)
        Path(collected).write_text(text, encoding="utf-8")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    _switch(item.nodeid)
    try:
        return (yield)
    finally:
        _switch("")


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[object]) -> Iterator[object]:
    if fixturedef.scope == "function":
        return (yield)
    previous = _CONTEXT[0]
    _switch("")
    try:
        return (yield)
    finally:
        _switch(previous)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    # Wider-scoped fixtures are finalised in the teardown of the last test that needs them:
    # when the next test lives elsewhere, that teardown counts as outside any test.
    boundary = nextitem is None or item.listchain()[:-1] != nextitem.listchain()[:-1]
    previous = _CONTEXT[0]
    if boundary:
        _switch("")
    try:
        return (yield)
    finally:
        _switch(previous)
