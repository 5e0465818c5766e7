"""What the Spark pipeline needs from the machine, checked before anything of Spark starts.

Two things, each told in one line that says what was looked for and how to fix it:

* **the ``[spark]`` extra** (:func:`spark_extra_problem`): pyspark, pyarrow and pandas are
  not dependencies of the base package (``mqcn run`` and the other commands never import
  them); ``mqcn corpus generate``, ``mqcn audit`` and ``mqcn fuzz`` check them first;
* **Java** (:func:`java_problem`): PySpark starts its driver JVM the way Spark's
  ``bin/spark-class`` finds one -- ``$JAVA_HOME/bin/java`` when ``JAVA_HOME`` is set (even
  if another ``java`` is on ``PATH``), else ``java`` on ``PATH`` -- and when that fails the
  user sees only ``[JAVA_GATEWAY_EXITED]``, the cause buried in a log.  Spark 4 needs
  Java 17 or later (17 and 21 are the versions it is built and tested for; a newer one is
  let through: Spark may run on it).  ``mqcn_suite.pipeline.session`` asks this before it
  launches the gateway.

Both return the problem as a line (None: all is well) and leave raising to the caller, so
that this module imports nothing of the pipeline:

>>> parse_java_version('openjdk version "17.0.15" 2025-04-15'), parse_java_version(
...     'java version "1.8.0_392"'), parse_java_version('openjdk version "21-ea"')
(17, 8, 21)
>>> parse_java_version("no version here") is None
True
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

# The distributions of the ``[spark]`` extra (pyproject.toml), by the module each provides.
SPARK_EXTRA = ("pyspark", "pyarrow", "pandas")
# What the in-process engine (small work, no JVM) imports of it; Spark needs all of it.
IN_PROCESS_NEEDS = ("pyarrow", "pandas")
INSTALL_SPARK = "pip install 'mqcn-conformance[spark]'"
MIN_JAVA = 17
TESTED_JAVA = (17, 21)
JAVA_VERSION_TIMEOUT = 20.0  # seconds for ``java -version`` (it takes a few tens of ms)
HOW_TO_SET = (
    f"install Java {' or '.join(map(str, TESTED_JAVA))} (e.g. apt-get install "
    f"openjdk-{TESTED_JAVA[0]}-jre-headless) and set JAVA_HOME to its directory "
    f"(e.g. JAVA_HOME=/usr/lib/jvm/java-{TESTED_JAVA[0]}-openjdk-amd64) or put its bin/ on PATH"
)

_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?[^"]*"')


def spark_extra_problem(required: tuple[str, ...] = SPARK_EXTRA) -> str | None:
    """How to install the ``[spark]`` extra when a module of ``required`` is missing (None:
    all of them are there); the line names every missing module of the extra.  Looks only
    (``importlib.util.find_spec``): nothing is imported.

    The in-process engine needs only :data:`IN_PROCESS_NEEDS`; a Spark session needs all.
    """
    if all(_installed(name) for name in required):
        return None
    missing = [name for name in SPARK_EXTRA if not _installed(name)]
    return (
        f"the Spark pipeline is not installed (missing: {', '.join(missing)}): {INSTALL_SPARK} "
        f"(Spark also needs Java {' or '.join(map(str, TESTED_JAVA))})"
    )


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:  # in sys.modules as None: importing it fails
        return False


def parse_java_version(text: str) -> int | None:
    """The feature release (17, 21, ...; 8 for ``1.8.0_x``) that ``java -version`` printed."""
    found = _VERSION.search(text)
    if found is None:
        return None
    major = int(found.group(1))
    if major == 1 and found.group(2) is not None:  # 1.8.0_392: Java 8 and older
        return int(found.group(2))
    return major


def find_java(environ: Mapping[str, str] | None = None) -> tuple[Path | None, str]:
    """(the ``java`` Spark would run, where it came from), as ``bin/spark-class`` finds it:
    ``$JAVA_HOME/bin/java`` if ``JAVA_HOME`` is set (None if that file is missing), else
    ``java`` on ``PATH`` (None if there is none)."""
    environ = os.environ if environ is None else environ
    home = environ.get("JAVA_HOME")
    if home:
        java = Path(home) / "bin" / "java"
        found = java.is_file() and os.access(java, os.X_OK)
        return (java if found else None), f"JAVA_HOME={home}"
    on_path = shutil.which("java", path=environ.get("PATH", os.defpath))
    return (Path(on_path) if on_path else None), "PATH"


def java_problem(environ: Mapping[str, str] | None = None) -> str | None:
    """What keeps Spark from starting its driver JVM, in one line (None: a usable Java).

    Missing (``JAVA_HOME`` naming a directory without ``bin/java``, or no ``java`` on
    ``PATH``), failing to run, or older than :data:`MIN_JAVA`.  A gateway Spark was told to
    join (``PYSPARK_GATEWAY_PORT``) needs no Java here.
    """
    environ = os.environ if environ is None else environ
    if environ.get("PYSPARK_GATEWAY_PORT"):
        return None
    java, source = find_java(environ)
    if java is None:
        if source == "PATH":
            return f"Java not found: JAVA_HOME is not set, and no java on PATH; {HOW_TO_SET}"
        return (
            f"Java not found: {source} has no bin/java (Spark runs $JAVA_HOME/bin/java when "
            f"JAVA_HOME is set); {HOW_TO_SET}"
        )
    where = f"{java}, from {source}"
    try:
        shown = subprocess.run(
            [str(java), "-version"],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=JAVA_VERSION_TIMEOUT,
            env=dict(environ),
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        return f"Java does not run ({where}: {reason}); {HOW_TO_SET}"
    text = f"{shown.stderr}\n{shown.stdout}"
    version = parse_java_version(text)
    if shown.returncode != 0:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "no output")
        return (
            f"Java does not run ({where}: `java -version` exited {shown.returncode}: {first}); "
            f"{HOW_TO_SET}"
        )
    if version is not None and version < MIN_JAVA:
        return (
            f"Java {version} found ({where}), but Spark 4 needs Java {MIN_JAVA} or later "
            f"(tested on {' and '.join(map(str, TESTED_JAVA))}); {HOW_TO_SET}"
        )
    return None  # a version it cannot read is let through: Spark itself will tell
