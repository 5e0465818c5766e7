"""``mqcn catalog list``: every requirement of the catalog with the scenarios that check it.

Coverage comes from the feature files (:func:`mqcn_suite.coverage.load_coverage`): a
requirement is covered when at least one scenario is tagged with its ID.

Exit codes: 0 — listed; 2 — usage error (unknown section, a feature file that cannot be
parsed or has a tag naming no requirement); 3 — internal error.

The command is the function :func:`catalog_list`; ``mqcn_suite.cli`` registers it under the
``catalog`` group (``mqcn catalog list``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from mqcn_model.catalog import CATALOG, Catalog
from mqcn_suite.coverage import Coverage, CoverageError, load_coverage

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERNAL = 3

COMMAND = "mqcn catalog list"

LIST_HELP = (
    "List every requirement of the catalog (ID, section, keyword, role, testability, "
    "statement) with the scenarios of the feature files that check it.\n\n"
    "Exit 0: listed. Exit 2: usage error (unknown section, broken feature file)."
)


class ListProblem(Exception):
    """The command line or the feature files make the listing impossible (one line)."""


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(f"{COMMAND}: {message}", err=True)
    raise typer.Exit(code)


def catalog_entries(
    coverage: Coverage,
    catalog: Catalog = CATALOG,
    *,
    section: str | None = None,
    uncovered: bool = False,
) -> list[dict[str, Any]]:
    """The JSON objects of ``mqcn catalog list --json`` (catalog order)."""
    scenarios = coverage.by_requirement(catalog)
    entries = []
    for rid, requirement in catalog.items():
        if section is not None and requirement.section != section:
            continue
        tagged = scenarios.get(rid, [])
        if uncovered and (tagged or not requirement.testable):
            continue
        entries.append(
            {
                **requirement.summary(),
                "covered": bool(tagged),
                "scenarios": [
                    {"feature": s.feature, "name": s.name, "line": s.line} for s in tagged
                ],
            }
        )
    return entries


def entries_table(
    entries: list[dict[str, Any]], coverage: Coverage, catalog: Catalog = CATALOG
) -> Table:
    """The human listing: one row per requirement."""
    testable = [e for e in entries if e["testable"]]
    covered = [e for e in testable if e["covered"]]
    table = Table(
        title=(
            f"{len(entries)} requirements of {catalog.spec}: {len(testable)} testable, "
            f"{len(covered)} covered ({len(coverage.scenarios)} scenarios in "
            f"{len(coverage.features)} feature files)"
        ),
        title_justify="left",
        show_lines=False,
    )
    table.add_column("ID", no_wrap=True, style="bold")
    table.add_column("keyword", no_wrap=True)
    table.add_column("role", no_wrap=True)
    table.add_column("statement", ratio=3)
    table.add_column("scenarios", ratio=2)
    for entry in entries:
        if not entry["testable"]:
            scenarios = "[dim]untestable[/dim]"
        elif entry["scenarios"]:
            scenarios = "\n".join(
                f"{s['name']} [dim]({Path(s['feature']).name}:{s['line']})[/dim]"
                for s in entry["scenarios"]
            )
        else:
            scenarios = "[red]none[/red]"
        table.add_row(entry["id"], entry["keyword"], entry["role"], entry["statement"], scenarios)
    return table


# The options of ``mqcn catalog list``, shared with ``mqcn catalog`` on its own (mqcn_suite.cli).
JsonOption = Annotated[bool, typer.Option("--json", help="Print only a JSON array on stdout.")]
SectionOption = Annotated[
    str | None,
    typer.Option(
        "--section", metavar="SECTION", help="Only the requirements of this section, e.g. 3.2.5.1."
    ),
]
UncoveredOption = Annotated[
    bool, typer.Option("--uncovered", help="Only testable requirements no scenario is tagged with.")
]
FeaturesOption = Annotated[
    Path | None,
    typer.Option(
        "--features", metavar="DIR", help="The feature files to read (default: the suite's own)."
    ),
]


def catalog_list(
    as_json: JsonOption = False,
    section: SectionOption = None,
    uncovered: UncoveredOption = False,
    features: FeaturesOption = None,
) -> None:
    """``mqcn catalog list`` (see LIST_HELP)."""
    try:
        if section is not None and not CATALOG.in_section(section):
            known = sorted({r.section for r in CATALOG.values()})
            raise ListProblem(
                f"--section: no requirement in section {section!r} (sections: {', '.join(known)})"
            )
        if features is not None and not features.is_dir():
            raise ListProblem(f"--features: {features} is not a directory")
        try:
            coverage = load_coverage(features)
        except CoverageError as exc:
            head, *problems = str(exc).splitlines()
            raise ListProblem(f"{head} {'; '.join(p.strip() for p in problems)}") from None
        entries = catalog_entries(coverage, section=section, uncovered=uncovered)
        if as_json:
            sys.stdout.write(json.dumps(entries, indent=2, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        else:
            Console(highlight=False).print(entries_table(entries, coverage))
    except (typer.Exit, BrokenPipeError):
        raise
    except ListProblem as exc:
        _fail(f"error: {exc}", EXIT_USAGE)
    except Exception as exc:
        _fail(f"internal error: {type(exc).__name__}: {exc}", EXIT_INTERNAL)
