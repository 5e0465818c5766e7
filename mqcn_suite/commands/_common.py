"""The plumbing every ``mqcn`` command shares: exit codes, the usage error, the error boundary,
reading the user's files and parsing the user's numbers.

A command body runs inside :func:`boundary`, raises :class:`UsageError` for anything the user
got wrong, and ends with ``raise typer.Exit(ExitCode....)``; the boundary turns every other
exception into one line on stderr, so no traceback ever reaches the terminal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import typer

# Re-exported: the commands take all their plumbing from this module.
from mqcn_suite.exit_codes import EXIT_MEANINGS as EXIT_MEANINGS
from mqcn_suite.exit_codes import ExitCode as ExitCode

PROG = "mqcn"


# Every typer app and group of ``mqcn``: ``-h`` is ``--help``.
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def print_help(ctx: typer.Context) -> NoReturn:
    """Print ``ctx``'s help on stdout and exit 0: what a group does when given no command."""
    typer.echo(ctx.get_help(), color=ctx.color)  # what --help itself does
    raise typer.Exit(int(ExitCode.OK))


def command_group(name: str, help: str) -> typer.Typer:
    """A group of subcommands (``mqcn corpus``, ``mqcn selftest``) with the CLI's conventions:
    ``-h``, and on its own (no subcommand) it prints its help and exits 0."""
    group = typer.Typer(
        name=name,
        help=help,
        context_settings=CONTEXT_SETTINGS,
        invoke_without_command=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )

    @group.callback()
    def _bare(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:
            print_help(ctx)

    return group


def exit_codes_help() -> str:
    """``Exit codes: 0 ..., 1 ..., ...`` in one sentence, for help texts."""
    return "Exit codes: " + "; ".join(f"{int(c)} {m}" for c, m in EXIT_MEANINGS.items()) + "."


class UsageError(Exception):
    """The user asked for something impossible; the message is one line for stderr (exit 2)."""


def fail(command: str, message: str, code: int) -> NoReturn:
    """Print ``mqcn <command>: <message>`` on stderr and exit with ``code``."""
    typer.echo(f"{PROG} {command}: {message}", err=True)
    raise typer.Exit(int(code))


def first_line(exc: BaseException) -> str:
    """The first non-blank line of ``exc``'s message ('' if it has none)."""
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), "")


@contextmanager
def boundary(
    command: str,
    *,
    usage_errors: tuple[type[BaseException], ...] = (),
    interrupted: str = "interrupted",
    explain: Callable[[BaseException], str | None] | None = None,
) -> Iterator[None]:
    """Turn every failure inside ``command`` into one line on stderr and an exit code.

    :class:`UsageError` and the types in ``usage_errors`` (e.g. ``TargetError`` of a target
    that does not start) exit 2 with ``mqcn <command>: error: ...``; Ctrl-C exits 130 with
    ``interrupted``; any other exception is a bug of the suite and exits 3 with
    ``mqcn <command>: internal error: <type>: <first line>``.  ``typer.Exit`` (a command's own
    exit code) and ``BrokenPipeError`` (``mqcn ... | head``: typer's business) pass through.
    ``explain`` may name a failure the suite knows how to tell in one line (a failed Spark job:
    its message and row, the trace in a log file): it exits 3 with ``error: <that line>``.
    """
    try:
        yield
    except (typer.Exit, BrokenPipeError):
        raise
    except (UsageError, *usage_errors) as exc:
        fail(command, f"error: {exc}", ExitCode.USAGE)
    except KeyboardInterrupt:
        fail(command, interrupted, ExitCode.INTERRUPTED)
    except Exception as exc:
        line = explain(exc) if explain is not None else None
        if line is not None:
            fail(command, f"error: {line}", ExitCode.INTERNAL)
        text = first_line(exc)
        detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        fail(command, f"internal error: {detail}", ExitCode.INTERNAL)


# --- the user's input ------------------------------------------------------------------------


def read_user_file(option: str, name: str) -> bytes:
    """The whole content of the file ``name`` given with ``option``.

    Raises :class:`UsageError` naming the option, the path and the reason (empty path, a
    directory, missing, permission denied, any other OS error).
    """
    if not name:
        raise UsageError(f"{option}: the path is empty")
    path = Path(name)
    try:
        if path.is_dir():
            raise UsageError(f"{option}: {name} is a directory, not a file")
        return path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{option}: {name}: no such file") from None
    except PermissionError:
        raise UsageError(f"{option}: {name}: permission denied") from None
    except OSError as exc:
        raise UsageError(f"{option}: {name}: cannot read ({exc.strerror or exc})") from None


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def parse_hex(text: str, option: str = "--hex") -> bytes:
    """Bytes from hex text: whitespace anywhere and one leading ``0x``/``0X`` are allowed.

    Raises :class:`UsageError` naming the first bad character or the odd digit count.

    >>> parse_hex("0x02 01\\n3C00")
    b'\\x02\\x01<\\x00'
    >>> parse_hex("")
    b''
    """
    start = len(text) - len(text.lstrip())
    if text[start : start + 2] in ("0x", "0X"):
        start += 2
    chars = [(index, char) for index, char in enumerate(text) if index >= start]
    chars = [(index, char) for index, char in chars if not char.isspace()]
    for index, char in chars:
        if char not in _HEX_DIGITS:
            shown = repr(char) if char.isprintable() else f"U+{ord(char):04X}"
            raise UsageError(
                f"{option}: character {index + 1} ({shown}) is not a hexadecimal digit "
                "(allowed: 0-9 a-f A-F, whitespace, one leading 0x)"
            )
    digits = "".join(char for _, char in chars)
    if len(digits) % 2:
        raise UsageError(
            f"{option}: odd number of hex digits ({len(digits)}); every byte needs two digits"
        )
    return bytes.fromhex(digits)


# Numeric options are declared as text and parsed here, so that a typo is one line naming the
# option (typer's own conversion prints a usage block).


def _number(option: str, text: str | None, kind: type[int] | type[float]) -> int | float:
    if text is None:
        raise UsageError(f"{option} is required")
    try:
        value = kind(text.replace("_", ""))
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise UsageError(f"{option} {text!r}: not {noun}") from None
    if not math.isfinite(value):
        raise UsageError(f"{option} {text!r}: not a finite number")
    return value


def parse_int(option: str, text: str | None) -> int:
    """``text`` (``_`` separators allowed) as an int; :class:`UsageError` if it is not one."""
    return int(_number(option, text, int))


def parse_float(option: str, text: str | None) -> float:
    """``text`` as a finite float; :class:`UsageError` if it is not one."""
    return float(_number(option, text, float))


def parse_seconds(option: str, text: str | None) -> float:
    """A time limit: a finite number of seconds above 0."""
    seconds = parse_float(option, text)
    if seconds <= 0:
        raise UsageError(f"{option}: must be a positive number of seconds, not {text}")
    return seconds
