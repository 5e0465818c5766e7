"""What the pipeline commands check before any work: cheap, and before Spark starts.

Only the standard library, :mod:`mqcn_suite.outputs` and :mod:`.storage` are imported here,
so a command can refuse a bad ``--out`` or an empty ``--count`` in a fraction of a second,
before it imports pyarrow, the generators or Spark.  The library functions
(:func:`~.corpus.generate`, :func:`~.audit.audit`, :func:`~.fuzz.fuzz`) ask the same again,
so they are safe to call directly.
"""

from __future__ import annotations

import math
from pathlib import Path

from mqcn_suite.outputs import OutputError, check_output_dir
from mqcn_suite.pipeline.session import PipelineError
from mqcn_suite.pipeline.storage import Location, checkable, is_uri, local_input

__all__ = ["check_cases", "check_generate_arguments", "check_out"]


def check_out(out: str | Path | Location, option: str = "--out") -> None:
    """:class:`PipelineError` unless ``out`` is absent or an empty directory that can be written.

    Every pipeline command that writes a dataset asks this before Spark starts
    (:func:`mqcn_suite.outputs.check_output_dir`: it creates the directory, writes a probe
    file, and removes both again), so an unwritable place is one line, not a JVM stack trace
    after the work.  A Hadoop filesystem URI (``hdfs://``, ``s3a://``) can only be looked at
    through the running JVM (:mod:`.storage`): it is checked for being new or empty once Spark
    runs, and Spark itself says when it cannot write there.
    """
    text = str(out)
    if not is_uri(text) or text.startswith("file:"):
        local = local_input(text, option)
        try:
            check_output_dir(local, option, empty=True)
        except OutputError as exc:
            raise PipelineError(str(exc)) from None
        return
    location = out if isinstance(out, Location) else Location(text)
    if (
        checkable(location)
        and location.exists()
        and (not location.is_dir() or any(location.iterdir()))
    ):
        raise PipelineError(f"{option}: {location} exists and is not an empty directory")


def check_generate_arguments(count: int, out: str | Path | Location, invalid_share: float) -> None:
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
