"""Where the pipeline reads and writes: local paths, and Hadoop filesystem URIs.

Spark reads and writes datasets wherever its Hadoop filesystems reach: ``file://``,
``hdfs://``, ``s3a://`` (with the cluster's jars and credentials)...  The commands give it the
``--out`` text untouched (``pathlib`` would fold ``hdfs://nn/x`` into ``hdfs:/nn/x``).  The
few small files the *driver* writes next to Spark's output -- ``summary.json``,
``summary.html``, the corpus manifest, ``divergences.jsonl`` -- and the checks it makes
(is ``--out`` new or empty?) go through :class:`Location`:

* a plain path is a path of the driver's machine (``pathlib``; no JVM needed).  Spark's
  executors write there too, so on a cluster it must be a filesystem they all share
  (NFS...), exactly as ``file://`` is;
* a URI goes through the driver JVM's Hadoop ``FileSystem`` -- the very filesystem Spark
  writes with, so nothing assumes the driver and the executors share a disk.

What the driver itself *reads* is another matter: ``mqcn audit`` plans its work from the
input's Parquet footers or file list on the driver, and its executors read the row groups
with pyarrow, so the audit's INPUT is a local path or a ``file://`` URI on a filesystem the
driver and the executors share (:func:`local_input`; docs/spark.md).

>>> is_uri("hdfs://nn:8020/corpus"), is_uri("/data/corpus"), is_uri("C:/data")
(True, False, False)
>>> str(Location("s3a://bucket/audit") / "verdicts")
's3a://bucket/audit/verdicts'
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from mqcn_suite.pipeline.session import PipelineError

if TYPE_CHECKING:
    from collections.abc import Iterator

SUMMARY_JSON = "summary.json"  # what fuzz and the codec campaign write beside their rows
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:/")


def is_uri(text: str | Path) -> bool:
    """Whether ``text`` names a filesystem by scheme (``file:/``, ``hdfs://``, ``s3a://``...)."""
    return isinstance(text, str) and bool(_URI.match(text))


def local_path(text: str | Path, option: str, why: str) -> Path:
    """The local path of ``text`` (a plain path or a ``file://`` URI); any other URI is a
    :class:`PipelineError` naming ``option``, ``text`` and ``why`` only a local path will do.

    >>> str(local_path("file:///data/c", "--out", "")), str(local_path("/data/c", "--out", ""))
    ('/data/c', '/data/c')
    >>> local_path("hdfs://nn/c", "--out", "give a local path")
    Traceback (most recent call last):
    mqcn_suite.pipeline.groundwork.PipelineError: --out: hdfs://nn/c: give a local path
    """
    if not is_uri(text):
        return Path(text)
    parsed = urlparse(str(text))
    if parsed.scheme == "file" and parsed.netloc in ("", "localhost"):
        return Path(unquote(parsed.path))
    raise PipelineError(f"{option}: {text}: {why}")


def local_input(text: str | Path, option: str = "INPUT") -> Path:
    """The local path of an input the driver reads itself (a plain path or ``file://``)."""
    return local_path(
        text,
        option,
        "the audit plans its work from the input on the driver and its executors read it "
        "with pyarrow: give a local path or a file:// URI on a filesystem they share (copy "
        "it there first, e.g. hdfs dfs -get; docs/spark.md)",
    )


def checkable(location: Location) -> bool:
    """Whether the driver can look at ``location`` now (a URI needs the running JVM)."""
    if not location.uri:
        return True  # (without importing pyspark: the in-process engine runs without it)
    from pyspark import SparkContext

    return SparkContext._active_spark_context is not None


def in_process_location(out: str | Path, option: str = "--out") -> Location:
    """``out`` as the local :class:`Location` the in-process engine writes to: a ``file:``
    URI becomes its path; any other URI is a :class:`PipelineError` (only Spark's Hadoop
    filesystems write there)."""
    if not is_uri(out):
        return Location(out)  # (kept as given: a relative path stays relative)
    why = "only Spark writes to a filesystem URI; give a local path, or --engine spark"
    return Location(local_path(out, option, why))


def _hadoop() -> tuple[Any, Any]:
    """(the JVM, the Hadoop configuration) of the running SparkContext."""
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    if context is None or context._jvm is None:
        raise PipelineError("a filesystem URI needs a running Spark session")
    return context._jvm, context._jsc.hadoopConfiguration()  # type: ignore[union-attr]


class Location:
    """A file or folder given as a local path or a URI, with the few ``Path`` methods the
    pipeline's driver uses (``/``, ``exists``, ``is_dir``, ``iterdir``, ``glob``, ``mkdir``,
    ``rmdir``, ``write_text``, :meth:`remove_tree`).  ``str()`` is what Spark is given."""

    def __init__(self, text: str | Path) -> None:
        self._text = str(text).rstrip("/") if is_uri(text) else str(Path(text))
        self.uri = is_uri(text)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Location({self._text!r})"

    def __lt__(self, other: Location) -> bool:
        return self._text < other._text

    def __truediv__(self, name: str) -> Location:
        return Location(f"{self._text}/{name}" if self.uri else Path(self._text) / name)

    @property
    def name(self) -> str:
        return self._text.rsplit("/", 1)[-1]

    @property
    def path(self) -> Path:
        """The local path (only for a location that is not a URI)."""
        if self.uri:
            raise ValueError(f"{self._text} is not a local path")
        return Path(self._text)

    # -- through the Hadoop FileSystem for URIs -------------------------------------------------

    def _fs(self) -> tuple[Any, Any]:
        jvm, conf = _hadoop()
        hadoop_path = jvm.org.apache.hadoop.fs.Path(self._text)
        try:
            return hadoop_path.getFileSystem(conf), hadoop_path
        except Exception as exc:  # an unknown scheme, a missing connector: one line
            java = getattr(exc, "java_exception", None)
            text = str(java.getMessage()) if java is not None else str(exc)
            first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
            raise PipelineError(f"{self._text}: no filesystem for it: {first}") from None

    def exists(self) -> bool:
        if not self.uri:
            return self.path.exists()
        fs, path = self._fs()
        return bool(fs.exists(path))

    def is_dir(self) -> bool:
        if not self.uri:
            return self.path.is_dir()
        fs, path = self._fs()
        return bool(fs.exists(path)) and bool(fs.getFileStatus(path).isDirectory())

    def iterdir(self) -> Iterator[Location]:
        if not self.uri:
            for child in self.path.iterdir():
                yield Location(child)
            return
        fs, path = self._fs()
        for status in fs.listStatus(path):
            yield self / status.getPath().getName()

    def glob(self, pattern: str) -> list[Location]:
        """Children whose name matches ``pattern`` (one level, like ``Path.glob("*.x")``)."""
        return sorted(
            (c for c in self.iterdir() if fnmatch.fnmatch(c.name, pattern)), key=lambda c: c.name
        )

    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        if not self.uri:
            self.path.mkdir(parents=parents, exist_ok=exist_ok)
            return
        fs, path = self._fs()
        if fs.exists(path) and not exist_ok:
            raise FileExistsError(self._text)
        fs.mkdirs(path)

    def rmdir(self) -> None:
        if not self.uri:
            self.path.rmdir()
            return
        fs, path = self._fs()
        fs.delete(path, False)

    def remove_tree(self) -> None:
        """Delete the folder and all in it (no error when it is absent)."""
        if not self.uri:
            import shutil

            shutil.rmtree(self.path, ignore_errors=True)
            return
        fs, path = self._fs()
        fs.delete(path, True)

    def write_text(self, text: str, encoding: str = "utf-8") -> None:
        if not self.uri:
            self.path.write_text(text, encoding)
            return
        fs, path = self._fs()
        stream = fs.create(path, True)
        try:
            stream.write(bytearray(text.encode(encoding)))
        finally:
            stream.close()

    def read_text(self, encoding: str = "utf-8") -> str:
        if not self.uri:
            return self.path.read_text(encoding)
        jvm, _ = _hadoop()
        fs, path = self._fs()
        stream = fs.open(path)
        try:
            data = jvm.org.apache.commons.io.IOUtils.toByteArray(stream)
        finally:
            stream.close()
        return bytes(data).decode(encoding)
