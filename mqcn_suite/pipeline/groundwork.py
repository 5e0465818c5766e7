"""The groundwork :mod:`.session` and :mod:`.shipping` both stand on, below both of them.

:class:`PipelineError` (a usage error of the pipeline commands), which masters run their
executors on this machine, and the folder the pipeline keeps its files in.  Standard library
only: the session imports the shipping (to ship the code), so neither may be where the
other finds these.

>>> is_local_master("local[4]"), is_local_master("spark://head:7077")
(True, False)
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

__all__ = ["PipelineError", "cache_dir", "is_local_master"]

_LOCAL = re.compile(r"local(\[.*\])?|local-cluster\[.*\]")


class PipelineError(Exception):
    """The user asked for something impossible (a bad master, a missing input, a bad column).

    The commands turn it into one line on stderr and exit code 2; it never shows a traceback.
    """


def is_local_master(master: str) -> bool:
    """Whether the executors of ``master`` run on this machine (``local``, ``local-cluster``)."""
    return bool(_LOCAL.fullmatch(master.strip()))


def cache_dir() -> Path:
    """The pipeline's files on this machine (per user, under the temporary directory):
    the log4j2 set-up, the driver logs, the shipped zips, the error logs."""
    path = Path(tempfile.gettempdir()) / f"mqcn-spark-{os.getuid()}"
    path.mkdir(mode=0o700, exist_ok=True)
    return path
