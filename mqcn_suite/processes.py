"""Ending a server the suite started in a process group of its own (slapd, a Spark cluster).

>>> import subprocess, sys
>>> p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
...                      start_new_session=True)
>>> stop_group(p, grace=5)
>>> p.poll() is not None
True
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

GRACE = 10.0  # seconds between SIGTERM and SIGKILL


def stop_group(process: subprocess.Popen[bytes], grace: float = GRACE) -> None:
    """End ``process`` and its process group: SIGCONT (a stopped group cannot act on
    SIGTERM), SIGTERM, then SIGKILL after ``grace`` s; a group whose leader already ended
    gets SIGKILL at once (children that outlived it)."""
    if process.poll() is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGCONT)
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(grace)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(grace)
