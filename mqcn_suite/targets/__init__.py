"""Targets: the implementations the suite judges.  ``resolve_target`` turns a --target value
into a :class:`~mqcn_suite.targets.base.Target`."""

from __future__ import annotations

from mqcn_suite.targets.base import Setup, Target, TargetError
from mqcn_suite.targets.reference import ReferenceTarget

__all__ = ["ReferenceTarget", "Setup", "Target", "TargetError", "resolve_target"]


def resolve_target(spec: str) -> Target:
    """``reference`` (the embedded model). Anything else is a clear TargetError."""
    if spec == "reference":
        return ReferenceTarget()
    raise TargetError(f"unknown target {spec!r}: expected 'reference'")
