"""A faster way for pytest-bdd to find the definition of a step: each lookup made once.

pytest-bdd (9.x) finds the definition of every step of every scenario by asking pytest, for
*each* fixture name of the session, which of its definitions the scenario sees, and then
trying the step's text against each step definition among them
(``pytest_bdd.scenario.find_fixturedefs_for_step``).  With this suite's few hundred step
definitions that is about half a million fixture lookups per ``mqcn run`` -- some 40 % of its
time -- repeated for the same step text in scenario after scenario.

The answer depends only on the step (its type and text), on the fixture manager of the
session and on where the scenario lives (the definitions a test function sees are those of
its module and the conftests above it; pytest-bdd scenarios are module-level functions).
:func:`install` wraps the function so that each such question is asked once per session;
the definitions found are pytest-bdd's own, in pytest-bdd's order, so which step definition
runs never changes.  Without that function (another pytest-bdd) nothing is installed.
"""

from __future__ import annotations

import importlib
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

FindFixtureDefs = Callable[..., Iterable[Any]]
_INSTALLED = "_mqcn_memoized"


def memoized(find: FindFixtureDefs) -> FindFixtureDefs:
    """``find`` (pytest-bdd's ``find_fixturedefs_for_step``) with its answers kept per
    fixture manager, step type, step text and the scenario's module.

    >>> calls = []
    >>> def find(step, fixturemanager, node):
    ...     calls.append(step.name)
    ...     return iter([step.name.upper()])
    >>> class Step: type, name = "given", "a queue"
    >>> class Node: nodeid = "steps/test_a.py::test_one"
    >>> class Manager: pass
    >>> fast, manager = memoized(find), Manager()
    >>> list(fast(step=Step(), fixturemanager=manager, node=Node()))
    ['A QUEUE']
    >>> list(fast(step=Step(), fixturemanager=manager, node=Node()))  # asked once
    ['A QUEUE']
    >>> calls
    ['a queue']
    """
    answers: weakref.WeakKeyDictionary[Any, dict[tuple[str, str, str], tuple[Any, ...]]]
    answers = weakref.WeakKeyDictionary()

    def find_once(step: Any, fixturemanager: Any, node: Any) -> Iterator[Any]:
        module = node.nodeid.split("::", 1)[0]
        known = answers.setdefault(fixturemanager, {})
        key = (str(step.type), step.name, module)
        found = known.get(key)
        if found is None:
            found = known[key] = tuple(find(step=step, fixturemanager=fixturemanager, node=node))
        return iter(found)

    setattr(find_once, _INSTALLED, True)
    return find_once


def install() -> bool:
    """Put :func:`memoized` in place of pytest-bdd's lookup (once); True when it is there."""
    try:  # the module: ``pytest_bdd.scenario`` the attribute is the function of that name
        scenario = importlib.import_module("pytest_bdd.scenario")
    except ImportError:  # pragma: no cover - pytest-bdd is a dependency
        return False
    find = getattr(scenario, "find_fixturedefs_for_step", None)
    if find is None:
        return False
    if not getattr(find, _INSTALLED, False):
        scenario.find_fixturedefs_for_step = memoized(find)
    return True
