"""The ``mqcn`` command line: the suite's tools behind one multi-command typer app.

This module only builds the app: every command lives in :mod:`mqcn_suite.commands` (its
options, its help, its body) and is registered here; the plumbing they share — the usage
error, the boundary that turns exceptions into one line — is
:mod:`mqcn_suite.commands._common`, and the exit codes are :mod:`mqcn_suite.exit_codes`.
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer

from mqcn_suite.commands._common import (
    CONTEXT_SETTINGS,
    PROG,
    exit_codes_help,
    fail,
    first_line,
    print_help,
)
from mqcn_suite.commands.catalog_list import (
    LIST_HELP,
    FeaturesOption,
    JsonOption,
    SectionOption,
    UncoveredOption,
    catalog_list,
)
from mqcn_suite.commands.catalog_verify import VERIFY_HELP, verify
from mqcn_suite.commands.decode import DECODE_HELP, decode
from mqcn_suite.commands.directory_serve import register as register_directory
from mqcn_suite.commands.listen import LISTEN_HELP, listen
from mqcn_suite.commands.pics_query import PICS_HELP, pics
from mqcn_suite.commands.pipeline import register as register_pipeline
from mqcn_suite.commands.run import RUN_HELP, run
from mqcn_suite.commands.selftest import register as register_selftest
from mqcn_suite.exit_codes import ExitCode

DISTRIBUTION = "mqcn-conformance"

app = typer.Typer(
    name=PROG,
    help=(
        "Conformance tools for [MS-MQCN], the MSMQ Directory Service Change Notification "
        "Protocol. Every finding names a requirement ID (MQCN-<section>-<n>) of the catalog. "
        "Without a command, this help (exit 0). " + exit_codes_help()
    ),
    context_settings=CONTEXT_SETTINGS,
    add_completion=True,  # --install-completion / --show-completion, on the root only
    pretty_exceptions_enable=False,
)


def distribution_version() -> str:
    """The installed version of the ``mqcn-conformance`` distribution."""
    return version(DISTRIBUTION)


def _print_version(wanted: bool) -> None:
    if not wanted:
        return
    try:
        typer.echo(f"{PROG} {distribution_version()}")
    except PackageNotFoundError:
        fail("--version", f"internal error: {DISTRIBUTION} is not installed", ExitCode.INTERNAL)
    raise typer.Exit(int(ExitCode.OK))


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_print_version,
            is_eager=True,
            help="Print the version (mqcn X.Y.Z) and exit.",
        ),
    ] = False,
) -> None:
    """Conformance tools for [MS-MQCN] (run ``mqcn COMMAND --help`` for each command)."""
    if ctx.invoked_subcommand is None:
        print_help(ctx)


app.command("decode", help=DECODE_HELP)(decode)
app.command("run", help=RUN_HELP)(run)
app.command("pics", help=PICS_HELP)(pics)
app.command("listen", help=LISTEN_HELP)(listen)
register_pipeline(app)  # corpus generate, audit, fuzz (Spark is imported only when they run)
register_selftest(app)  # selftest mutation (its modules are imported only when it runs)
register_directory(app)  # directory serve (the LDAP fixture is imported only when it runs)

catalog_app = typer.Typer(
    name="catalog",
    help=(
        "The requirements catalog: without a subcommand, every requirement with the scenarios "
        "that cover it (same options as `catalog list`). " + LIST_HELP
    ),
    context_settings=CONTEXT_SETTINGS,
    add_completion=False,
    pretty_exceptions_enable=False,
)
catalog_app.command("list", help=LIST_HELP)(catalog_list)
catalog_app.command("verify", help=VERIFY_HELP)(verify)


@catalog_app.callback(invoke_without_command=True)
def _catalog_default(
    ctx: typer.Context,
    as_json: JsonOption = False,
    section: SectionOption = None,
    uncovered: UncoveredOption = False,
    features: FeaturesOption = None,
) -> None:
    """``mqcn catalog`` on its own lists the catalog, exactly as ``mqcn catalog list``."""
    if ctx.invoked_subcommand is None:
        catalog_list(as_json, section, uncovered, features)


app.add_typer(catalog_app)


def main() -> None:
    """Console-script entry point: run :data:`app`; nothing escapes as a traceback."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    try:
        app(prog_name=PROG)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        sys.exit(int(ExitCode.INTERRUPTED))
    except Exception as exc:
        sys.stderr.write(f"{PROG}: internal error: {type(exc).__name__}: {first_line(exc)}\n")
        sys.exit(int(ExitCode.INTERNAL))


if __name__ == "__main__":
    main()
