"""Ship the code the executors run: one zip of pure-Python packages, added to the SparkContext.

A Spark task of the pipeline is a function of :mod:`mqcn_suite.pipeline` (``mapInArrow``);
cloudpickle sends it *by reference*, so every executor must be able to import
``mqcn_suite.pipeline.*`` and all that it imports.  On ``local[N]`` the executors are this
very interpreter; on a cluster they are a plain Python with pyspark's own Arrow requirements
(pyarrow, pandas, numpy) and nothing else.  So for a cluster the command builds a zip of

* the project's packages :data:`PROJECT_PACKAGES` (with their data: the catalog YAML, JSON
  schemas, templates) and the reference vectors the generators draw from
  (``reference_vectors/*_test.json`` of the checkout or of the installed wheel -- exactly
  what the driver itself would draw from, so the rows do not depend on where they are generated);
* the pure-Python dependencies that the executor-side modules import,
  :data:`DEPENDENCY_PACKAGES`, found by running the tasks on executors that have nothing else
  (``tests/test_cluster.py`` checks the list is complete): PyYAML (the catalog; its optional C
  extension is left out, PyYAML falls back to pure Python) and scapy (the layers behind the
  named-defect generators).  Not pytest: a target's ``NotApplicable`` is its own exception
  (the plugin makes it a skip), so no executor-side module imports pytest, pluggy,
  iniconfig or pygments (:data:`NOT_SHIPPED`; ``tests/test_spark_plumbing.py`` checks);

and adds it with ``SparkContext.addPyFile``: each executor fetches it once and puts it on
``sys.path``.  Compiled files (``*.so``) cannot be imported from a zip and are never put in.

The zip is cached by the hash of its content under the temporary directory, so a second run
with the same code reuses it.  ``--conf mqcn.ship=none`` turns shipping off (executors that
already have the project, e.g. a packed environment given with ``spark.archives``);
``mqcn.ship=zip`` ships even to ``local`` masters (whose executors do not need it).

>>> ship_mode("local[2]", {}), ship_mode("spark://h:7077", {}), ship_mode("yarn", {SHIP: "none"})
('none', 'zip', 'none')
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mqcn_suite.pipeline.groundwork import PipelineError, cache_dir, is_local_master

if TYPE_CHECKING:
    from pyspark import SparkContext

SHIP = "mqcn.ship"  # --conf key: auto (default), zip, none
SHIP_MODES = ("auto", "zip", "none")
PROJECT_PACKAGES = ("mqcn_model", "mqcn_suite")
DEPENDENCY_PACKAGES = ("yaml", "scapy")
# What the executors never import (targets raise their own NotApplicable): never shipped.
NOT_SHIPPED = ("pytest", "_pytest", "pluggy", "iniconfig", "py", "pygments", "hypothesis")
# What the executors bring themselves: pyspark (SPARK_HOME/python/lib) and its Arrow needs.
EXECUTOR_PROVIDED = ("pyspark", "py4j", "pyarrow", "pandas", "numpy")
VECTOR_GLOB = "*_test.json"
_COMPILED = (".so", ".pyd", ".dylib", ".dll", ".pyc", ".pyo")  # bytecode is made afresh
_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed zip timestamps: the same files give the same bytes


def ship_mode(master: str, conf: dict[str, str]) -> str:
    """``zip`` or ``none``: whether this session ships the code (see the module docstring)."""
    mode = conf.get(SHIP, "auto").strip().lower()
    if mode not in SHIP_MODES:
        raise PipelineError(f"--conf {SHIP}={mode!r}: expected one of {', '.join(SHIP_MODES)}")
    if mode == "auto":
        return "none" if is_local_master(master) else "zip"
    return mode


@dataclass(frozen=True)
class Bundle:
    """The zip to ship: where it is, its content hash, and the top-level names it holds."""

    path: Path
    digest: str
    names: tuple[str, ...]


def _package_files(name: str) -> list[tuple[str, Path]]:
    """(name inside the zip, file) for every non-compiled file of the top-level module ``name``."""
    spec = importlib.util.find_spec(name)
    if spec is None:
        raise PipelineError(f"cannot ship {name!r} to the executors: it is not installed here")
    locations = list(spec.submodule_search_locations or [])
    if not locations:  # a one-file module such as py.py
        if spec.origin is None:
            raise PipelineError(f"cannot ship {name!r}: no source file")
        origin = Path(spec.origin)
        return [(origin.name, origin)]
    files: list[tuple[str, Path]] = []
    for location in locations:
        root = Path(location)
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for file in sorted(names):
                if file.endswith(_COMPILED):
                    continue
                path = Path(folder) / file
                files.append((f"{name}/{path.relative_to(root).as_posix()}", path))
    return files


def reference_vector_files() -> list[tuple[str, Path]]:
    """The reference vector files the generators read on the driver (``reference_vectors/``
    of the checkout, or of the installed wheel: :mod:`mqcn_suite.locations`)."""
    from mqcn_suite.locations import SuiteTreeMissing, reference_vectors_dir

    try:
        root = reference_vectors_dir()
    except SuiteTreeMissing:
        return []  # nothing to read on the driver either: the generators use none
    return [(f"reference_vectors/{p.name}", p) for p in sorted(root.glob(VECTOR_GLOB))]


def bundle_files(
    names: Iterable[str] = PROJECT_PACKAGES + DEPENDENCY_PACKAGES,
) -> list[tuple[str, Path]]:
    """Every file of the zip, sorted by its name inside the zip."""
    files = [entry for name in names for entry in _package_files(name)]
    files += reference_vector_files()
    return sorted(files)


def _bytecode(source: bytes, inside: str) -> bytes | None:
    """``source`` compiled for this Python, as an unchecked-hash ``.pyc`` (None: no bytecode).

    zipimport prefers ``mod.pyc`` next to ``mod.py`` in a zip, and takes an unchecked-hash
    pyc as it is; a Python of another version sees a foreign magic number and compiles the
    source instead.  Executors run the driver's Python version (PySpark insists), so every
    Python worker is spared compiling scapy and the rest from source.
    """
    try:
        code = compile(source, inside, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):  # e.g. a file only a newer Python can read
        return None
    flags = 0b01  # hash-based, unchecked (PEP 552)
    header = importlib.util.MAGIC_NUMBER + flags.to_bytes(4, "little")
    return header + importlib.util.source_hash(source) + marshal.dumps(code)


def build_bundle(names: Iterable[str] = PROJECT_PACKAGES + DEPENDENCY_PACKAGES) -> Bundle:
    """The zip of ``names`` (built once per content: cached under :func:`cache_dir`).

    The cache key is the hash of every file's name and bytes and of this Python's bytecode
    version; the zip holds the files and, for each ``.py``, its ``.pyc``.
    """
    names = tuple(names)
    files = bundle_files(names)
    contents = [(inside, path.read_bytes()) for inside, path in files]
    digest = hashlib.sha256(importlib.util.MAGIC_NUMBER)
    for inside, data in contents:
        digest.update(inside.encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    key = digest.hexdigest()[:20]
    folder = cache_dir() / "pyfiles"
    folder.mkdir(exist_ok=True)
    target = folder / f"mqcn-{key}.zip"
    if not target.is_file():
        partial = folder / f".mqcn-{key}.{os.getpid()}.zip"
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
            for inside, data in contents:
                _add(archive, inside, data)
                if inside.endswith(".py") and (code := _bytecode(data, inside)) is not None:
                    _add(archive, inside + "c", code)
        os.replace(partial, target)  # atomic: a concurrent run sees the whole zip or none
    return Bundle(target, key, names)


def _add(archive: zipfile.ZipFile, inside: str, data: bytes) -> None:
    info = zipfile.ZipInfo(inside, date_time=_EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def ship(sc: SparkContext, bundle: Bundle | None = None) -> Bundle:
    """Build (or reuse) the bundle and add it to ``sc`` for every executor.

    ``addPyFile`` also puts the zip on the driver's own ``sys.path`` (for local tests); the
    driver has the packages installed, so that entry is taken out again: the driver keeps
    importing what it imported before (PyYAML with its C extension, for one).
    """
    import sys

    bundle = bundle or build_bundle()
    before = list(sys.path)
    sc.addPyFile(str(bundle.path))
    sys.path[:] = [entry for entry in sys.path if entry in before]
    return bundle
