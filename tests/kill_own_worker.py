"""A PySpark worker module that kills its own Spark worker once: a worker lost mid-job, on cue.

Given to a job as ``spark.python.worker.module`` (with its folder on the executors'
``PYTHONPATH``; pyspark's daemon loads a worker module only if its name starts with
``pyspark``, so the test copies this file as ``pyspark_kill_own_worker.py``), it runs in
every Python worker an executor forks.  The first one to create the marker file
``$MQCN_KILL_MARKER`` (``O_EXCL``: one process wins, across all executors) finds the
standalone Worker JVM among its ancestors and SIGKILLs it -- the executor under it loses
its worker and exits, its running task is lost -- then waits to be killed with it.
Every other Python worker is pyspark's own.  So the loss happens during the first Python
task of the job, every time: no sleeping and hoping that a kill from outside lands mid-job.
"""

from __future__ import annotations

import os
import signal
import time
from typing import IO

from pyspark import worker as pyspark_worker

WORKER_CLASS = b"org.apache.spark.deploy.worker.Worker"


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def worker_jvm() -> int | None:
    """The pid of the Worker JVM this process runs under (None when there is none)."""
    pid = os.getpid()
    while pid > 1:
        pid = _parent(pid)
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if WORKER_CLASS in cmdline.read():
                return pid
    return None


def main(infile: IO[bytes], outfile: IO[bytes]) -> None:
    marker = os.environ.get("MQCN_KILL_MARKER")
    if marker:
        try:
            handle = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            victim = worker_jvm()
            os.write(handle, f"{victim}\n".encode())
            os.close(handle)
            if victim is not None:
                os.kill(victim, signal.SIGKILL)
                time.sleep(120)  # the executor exits without its worker; this task goes too
    pyspark_worker.main(infile, outfile)
