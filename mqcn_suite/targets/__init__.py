"""Targets: the implementations the suite judges.  ``resolve_target`` turns a --target value
into a :class:`~mqcn_suite.targets.base.Target` (docs/adapter-protocol.md):

* ``reference:mqqb`` — the same behind a real MS-MQQB socket (adapter protocol version 2,
  transport mode: :mod:`mqcn_suite.targets.transport_mode`);
* ``reference`` — the embedded sans-IO model (``reference:E-07,E-14``: following the other
  reading of those errata items; ``reference:E-24=merge``: the reading named;
  ``reference:letter``: the letter of every item);
* ``python:package.module:factory`` — an in-process adapter;
* ``exec:COMMAND ARGS…`` — any program speaking the adapter protocol as JSON lines;
* ``zoo:NAME`` — a faulty variant of the reference (:mod:`mqcn_suite.targets.zoo`), e.g.
  ``zoo:SendsNoSpareByte`` or ``zoo:sends:a GUID in braces`` (a client sending that member of
  the defect catalogue).
"""

from __future__ import annotations

from mqcn_suite.targets.base import (
    ClaimNotImplemented,
    NotApplicable,
    Setup,
    Target,
    TargetBroken,
    TargetError,
    TargetTimeout,
    Unimplemented,
)
from mqcn_suite.targets.exec import DEFAULT_HELLO_TIMEOUT, DEFAULT_TIMEOUT, ExecTarget
from mqcn_suite.targets.pics import ClaimsGuard, Pics, PicsError, load_pics, pics_of
from mqcn_suite.targets.python import load_python_target
from mqcn_suite.targets.reference import ReferenceTarget, reference_following

__all__ = [
    "DEFAULT_HELLO_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "ClaimNotImplemented",
    "ClaimsGuard",
    "ExecTarget",
    "NotApplicable",
    "Pics",
    "PicsError",
    "ReferenceTarget",
    "Setup",
    "Target",
    "TargetBroken",
    "TargetError",
    "TargetTimeout",
    "Unimplemented",
    "load_pics",
    "pics_of",
    "resolve_target",
]

TARGET_FORMS = (
    "'reference', 'reference:mqqb', 'reference:mqqb-letter', 'reference:E-nn,…',"
    " 'reference:letter',"
    " 'python:package.module:factory', 'exec:COMMAND ARGS…' or 'zoo:NAME'"
)


def resolve_target(
    spec: str, timeout: float = DEFAULT_TIMEOUT, hello_timeout: float = DEFAULT_HELLO_TIMEOUT
) -> Target:
    """The target a --target value names; :class:`TargetError` (a usage error) otherwise.
    ``timeout`` bounds each call to an ``exec:`` target, ``hello_timeout`` its ``hello``."""
    if spec == "reference":
        return ReferenceTarget()
    if spec == "reference:mqqb":
        from mqcn_suite.targets.reference_mqqb import MqqbReferenceTarget  # opens a socket

        return MqqbReferenceTarget()
    if spec == "reference:mqqb-letter":
        from mqcn_suite.targets.reference_mqqb import LetterMqqbTarget

        return LetterMqqbTarget()
    if spec.startswith("reference:"):
        return reference_following(spec.removeprefix("reference:"))
    if spec.startswith("python:"):
        return load_python_target(spec.removeprefix("python:"))
    if spec.startswith("exec:"):
        return ExecTarget(spec.removeprefix("exec:"), timeout=timeout, hello_timeout=hello_timeout)
    if spec.startswith("zoo:"):
        from mqcn_suite.targets.zoo import zoo_target  # the zoo builds on the reference

        try:
            return zoo_target(spec.removeprefix("zoo:"))
        except KeyError as exc:
            raise TargetError(f"{spec}: {exc.args[0]}") from None
    raise TargetError(f"unknown target {spec!r}: expected {TARGET_FORMS}")
