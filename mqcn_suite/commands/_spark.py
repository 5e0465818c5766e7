"""What the Spark pipeline commands share: their options, declared once, and their plumbing.

``mqcn corpus generate``, ``mqcn audit``, ``mqcn fuzz target`` and ``mqcn fuzz codec`` all
take ``--master URL`` and repeatable ``--conf KEY=VALUE`` (and all but ``corpus generate``
``--engine auto|in-process|spark``), an ``--out DIR`` and ``--json``; the fuzz commands also
``--cases N``, ``--seed S`` and ``--case I``.  Each option is declared here once, as an
``Annotated`` type a command's parameter names; the session, the engine choice and the
progress steps they run with are here too.

Spark is imported only inside the functions (``mqcn decode`` stays fast, and the base
package runs without the ``[spark]`` extra).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from mqcn_suite.commands._common import UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from mqcn_suite.pipeline.engine import Engine

MasterOption = Annotated[
    str | None,
    typer.Option(
        "--master",
        metavar="URL",
        help="Spark master: local[N], local[*], spark://HOST:PORT, yarn, k8s://URL "
        "(default local[2]; with --engine auto, giving it means Spark).",
        show_default=False,
    ),
]
EngineOption = Annotated[
    str,
    typer.Option(
        "--engine",
        metavar="ENGINE",
        help="auto (in this process when the work is small, else Spark), in-process, or spark.",
    ),
]
ConfOption = Annotated[
    list[str] | None,
    typer.Option(
        "--conf",
        metavar="KEY=VALUE",
        help="A Spark setting (repeatable), e.g. spark.driver.memory=4g.",
    ),
]
OutOption = Annotated[
    str | None,
    typer.Option("--out", metavar="DIR", help="New or empty output directory."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print only a JSON document.")]
CasesOption = Annotated[
    str | None, typer.Option("--cases", metavar="N", help="How many cases to run.")
]
SeedOption = Annotated[
    str, typer.Option("--seed", metavar="S", help="Seed: same seed, same output.")
]
CaseOption = Annotated[
    str | None, typer.Option("--case", metavar="I", help="Replay case I only, without Spark.")
]


def usage_errors() -> tuple[type[Exception], ...]:
    """The pipeline's own usage errors: a bad master or corpus, a target that does not start."""
    from mqcn_suite.pipeline.session import PipelineError
    from mqcn_suite.targets import TargetError

    return (PipelineError, TargetError)


def require_spark_extra(spark: bool = False) -> None:
    """:class:`UsageError` saying how to install the ``[spark]`` extra when a module of it
    is missing -- the first thing every pipeline command checks (pyarrow and pandas, which
    the in-process engine needs), and again before a Spark session (pyspark too)."""
    from mqcn_suite.pipeline.preflight import IN_PROCESS_NEEDS, spark_extra_problem

    problem = spark_extra_problem() if spark else spark_extra_problem(IN_PROCESS_NEEDS)
    if problem is not None:
        raise UsageError(problem)


def spark_explain(exc: BaseException) -> str | None:
    """The one line of a failed Spark job (its whole trace goes to a log file the line names)."""
    from mqcn_suite.pipeline.errors import spark_failure_line

    return spark_failure_line(exc)


@contextmanager
def session(master: str | None, conf: list[str] | None) -> Iterator[SparkSession]:
    """The running session, or a new one on ``master`` stopped when the command ends.

    Before a new session is created, the Java Spark would run is checked (a missing or old
    one is one line, :func:`.preflight.java_problem`), then ``starting Spark (MASTER)…`` goes
    to stderr (and a spinner, on a terminal): the JVM takes seconds to start, and the user
    sees why at once.
    """
    from mqcn_suite.pipeline.preflight import java_problem
    from mqcn_suite.pipeline.progress import starting_spark
    from mqcn_suite.pipeline.session import (
        DEFAULT_MASTER,
        PipelineError,
        active_session,
        check_master,
        check_own,
        gateway_running,
        parse_conf,
        spark_session,
    )

    master = check_master(master or DEFAULT_MASTER)
    settings = parse_conf(conf or [])
    check_own(settings)
    require_spark_extra(spark=True)
    fresh = active_session() is None
    if fresh and not gateway_running():
        # A missing or old Java is the one line, before "starting Spark" promises a start.
        problem = java_problem()
        if problem is not None:
            raise PipelineError(problem)
    with ExitStack() as stack:
        starting = (
            starting_spark(Console(stderr=True, highlight=False), master)
            if fresh
            else nullcontext()
        )
        with starting:
            spark = stack.enter_context(spark_session(master, settings))
        yield spark


@contextmanager
def engine_session(engine: Engine, conf: list[str] | None) -> Iterator[SparkSession | None]:
    """A Spark session for the Spark engine (:func:`session`), None for the in-process one."""
    if not engine.spark:
        yield None
        return
    with session(engine.master, conf) as spark:
        yield spark


def steps(spark: SparkSession | None, console: Console) -> Any:
    """The progress factory of the engine running: Spark's tasks, or in-process steps."""
    from mqcn_suite.pipeline.progress import local_progress, spark_progress

    return local_progress(console) if spark is None else spark_progress(spark, console)


def wall(started: float) -> float:
    """Seconds since the command started (what every printed time is)."""
    return time.perf_counter() - started
