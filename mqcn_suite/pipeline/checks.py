"""What the pipeline commands check before any work: cheap, and before Spark starts.

Only the standard library and :mod:`mqcn_suite.outputs` are imported here, so a command can
refuse a bad ``--out`` or an empty ``--count`` in a fraction of a second, before it imports
pyarrow, the generators or Spark.  The library functions (:func:`~.corpus.generate`,
:func:`~.audit.audit`, :func:`~.fuzz.fuzz`) ask the same again, so they are safe to call
directly.
"""

from __future__ import annotations

import math
from pathlib import Path

from mqcn_suite.outputs import OutputError, check_output_dir
from mqcn_suite.pipeline.session import PipelineError

__all__ = ["check_cases", "check_generate_arguments", "check_out"]


def check_out(out: str | Path, option: str = "--out") -> Path:
    """:class:`PipelineError` unless ``out`` is absent or an empty directory that can be written.

    Every pipeline command that writes a dataset asks this before Spark starts
    (:func:`mqcn_suite.outputs.check_output_dir`: it creates the directory, writes a probe
    file, and removes both again), so an unwritable place is one line, not a JVM stack trace
    after the work.
    """
    try:
        return check_output_dir(out, option, empty=True)
    except OutputError as exc:
        raise PipelineError(str(exc)) from None


def check_generate_arguments(count: int, out: Path, invalid_share: float) -> None:
    """:class:`PipelineError` for no work (``count`` < 1), a share outside [0, 1], a bad OUT."""
    if count < 1:
        raise PipelineError(f"--count: {count}: nothing to generate (give 1 or more messages)")
    if not 0.0 <= invalid_share <= 1.0 or math.isnan(invalid_share):
        raise PipelineError(f"--invalid-share: {invalid_share} is not between 0 and 1")
    check_out(out)


def check_cases(cases: int) -> None:
    """:class:`PipelineError` when there is nothing to fuzz (``cases`` < 1)."""
    if cases < 1:
        raise PipelineError(f"--cases: {cases}: nothing to fuzz (give 1 or more cases)")
