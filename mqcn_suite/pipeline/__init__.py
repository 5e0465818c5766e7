"""The data pipeline on Spark: synthetic corpora, corpus audits and differential fuzzing.

* :mod:`.engine`     — in process or on Spark: which engine runs a command's tasks
* :mod:`.session`    — the SparkSession (``local[2]`` by default, quiet, Arrow on; any master)
* :mod:`.checks`     — what the commands refuse before Spark starts (``--out``, empty work)
* :mod:`.shipping`   — the zip of the code the executors run (docs/spark.md)
* :mod:`.storage`    — local paths and Hadoop filesystem URIs for what the driver writes
* :mod:`.errors`     — a failed Spark job in one line, its whole trace in a log file
* :mod:`.corpus`     — the corpus format (:data:`.corpus.SCHEMA`) and ``generate``
* :mod:`.generators` — deterministic valid / malformed message generators
* :mod:`.audit`      — judge every message with ``mqcn_model.judge`` via ``mapInArrow``
* :mod:`.fuzz`       — target vs reference model, spread over Spark partitions
* :mod:`.hostile`    — hostile bodies: valid seeds, their size/count fields, mutations
* :mod:`.campaign`   — ``fuzz codec``: hostile bodies vs judge and server view, measured
* :mod:`.progress`   — progress: Spark's start and tasks, the in-process engine's steps

Spark itself is imported only inside the functions that need it, so importing this package
(or ``mqcn_suite.commands.pipeline``) costs no JVM, and the in-process engine runs the same
tasks without pyspark installed.  ``mqcn_model`` never imports any of it.
"""

from mqcn_suite.pipeline.session import PipelineError

__all__ = ["PipelineError"]
