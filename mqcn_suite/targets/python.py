"""``python:package.module:factory``: an in-process adapter written in Python.

``factory()`` is called once and must return an object with the methods of
:class:`~mqcn_suite.targets.base.Target`; an optional ``pics()`` method states its claims
(docs/adapter-protocol.md, PICS).  A class is a factory too.

>>> load_python_target("mqcn_suite.targets.reference:ReferenceTarget").name
'reference'
"""

from __future__ import annotations

import importlib

from mqcn_suite.targets.base import Target, TargetError

REQUIRED_METHODS = (
    "reset",
    "start_server",
    "deliver",
    "advance_clock",
    "state",
    "directory_reads",
    "start_client",
    "send_change_notification",
    "close",
)


def load_python_target(spec: str) -> Target:
    """Import ``module:factory`` and build the target; :class:`TargetError` says what failed."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise TargetError(f"python:{spec}: expected python:package.module:factory")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise TargetError(f"python:{spec}: cannot import {module_name!r}: {exc}") from None
    factory = getattr(module, attribute, None)
    if factory is None or not callable(factory):
        raise TargetError(f"python:{spec}: {module_name} has no callable {attribute!r}")
    try:
        target = factory()
    except Exception as exc:
        raise TargetError(f"python:{spec}: {attribute}() failed: {exc}") from None
    missing = [name for name in REQUIRED_METHODS if not callable(getattr(target, name, None))]
    if missing:
        raise TargetError(f"python:{spec}: the target lacks {', '.join(missing)}")
    if not getattr(target, "name", None):
        target.name = f"python:{spec}"  # type: ignore[attr-defined]
    return target
