"""Can the command write where it was told to?  Asked once, before any work starts.

Every ``mqcn`` command that writes (``run --report``, ``corpus generate --out``, ``audit
--out``, ``fuzz --out``, ...) calls :func:`check_output_dir` before it starts Spark, a
target or pytest, so that an unwritable place costs one line and exit 2 in well under a
second instead of a stack trace after the work is done.  The check does what the writing
will do, on a small scale: it creates the directory (and its parents), writes and removes a
probe file in it, and opens for appending each file the command will later replace -- so
the operating system itself says why it cannot (permission denied, read-only file system,
a path through a regular file, a directory where a file must go).  Opening for appending
changes nothing in an old file, and everything the check created is removed again unless
the caller keeps it.

Running as root, permission bits stop nothing; the other reasons still apply, and the
check finds them the same way.
"""

from __future__ import annotations

import errno
import tempfile
from collections.abc import Iterable
from pathlib import Path

PROBE_PREFIX = ".mqcn-probe-"


class OutputError(Exception):
    """An output place the command cannot write; the message is one line for the user."""


def _says(option: str, text: str) -> str:
    return f"{option}: {text}" if option else text


def _blocking_file(path: Path) -> Path | None:
    """The nearest ancestor of ``path`` that exists and is not a directory (if any)."""
    for parent in path.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


def _why(exc: OSError) -> str:
    if exc.errno == errno.EROFS:
        return "read-only file system"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return (exc.strerror or str(exc)).lower()


def _missing_ancestors(path: Path) -> list[Path]:
    """``path`` and its parents that do not exist yet, deepest first."""
    missing = []
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    return missing


def check_output_dir(
    directory: str | Path,
    option: str,
    *,
    empty: bool = False,
    files: Iterable[str] = (),
    keep: bool = False,
) -> Path:
    """Make sure ``directory`` can be created and written; return it, resolved.

    ``empty``: the directory must be absent or empty (a command that writes a dataset there).
    ``files``: names the command will replace inside the directory; each one that exists must
    be a file that can be written.  ``keep``: leave the directory created (otherwise what the
    check created is removed again, so a command refused later leaves no trace).  Raises
    :class:`OutputError` (``"<option>: <why>"``, or only the why when ``option`` is empty)
    naming the path at fault.
    """
    path = Path(directory).expanduser()
    try:
        return _check(path, option, empty, tuple(files), keep)
    except OutputError:
        raise
    except OSError as exc:  # e.g. a parent directory that may not be searched
        raise OutputError(_says(option, f"cannot write to {path}: {_why(exc)}")) from None


def _check(path: Path, option: str, empty: bool, files: tuple[str, ...], keep: bool) -> Path:
    if path.exists() and not path.is_dir():
        raise OutputError(_says(option, f"{path} exists and is not a directory"))
    if empty and path.is_dir() and any(path.iterdir()):
        raise OutputError(_says(option, f"{path} exists and is not an empty directory"))
    blocker = _blocking_file(path)
    if blocker is not None:
        raise OutputError(
            _says(option, f"cannot write to {path}: {blocker} is a file, not a directory")
        )
    created = _missing_ancestors(path)
    try:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(_says(option, f"cannot write to {path}: {_why(exc)}")) from None
        try:
            with tempfile.NamedTemporaryFile(dir=path, prefix=PROBE_PREFIX):
                pass
        except OSError as exc:
            raise OutputError(_says(option, f"cannot write to {path}: {_why(exc)}")) from None
        for name in files:
            _check_replaceable(path / name, option)
    except OutputError:
        _remove(created)
        raise
    if not keep:
        _remove(created)
    return path.resolve()


def _check_replaceable(file: Path, option: str) -> None:
    """:class:`OutputError` unless ``file`` is absent or a file that can be written."""
    if not file.exists():
        return
    if file.is_dir():
        raise OutputError(_says(option, f"cannot replace {file}: it is a directory, not a file"))
    try:
        with open(file, "ab"):  # appending nothing: the old file stays exactly as it was
            pass
    except OSError as exc:
        raise OutputError(_says(option, f"cannot replace {file}: {_why(exc)}")) from None


def _remove(created: list[Path]) -> None:
    """Remove the directories the check created (deepest first; only if still empty)."""
    for directory in created:
        try:
            directory.rmdir()
        except OSError:
            break


def check_output_file(file: str | Path, option: str) -> Path:
    """Make sure ``file`` can be written (its directory exists and takes files, and an old
    ``file`` can be replaced); return it, resolved.  For a command that writes one file
    (``mqcn pics --out FILE``): the check creates nothing."""
    path = Path(file).expanduser()
    try:
        parent_is_dir = path.parent.is_dir()
    except OSError as exc:
        raise OutputError(_says(option, f"cannot write {path}: {_why(exc)}")) from None
    if not parent_is_dir:
        raise OutputError(_says(option, f"cannot write {path}: {path.parent} is not a directory"))
    check_output_dir(path.parent, option, files=(path.name,))
    return path.resolve()
