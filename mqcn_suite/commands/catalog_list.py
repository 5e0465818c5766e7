"""``mqcn catalog list``: every requirement of the catalog with the scenarios that check it.

Coverage comes from the feature files (:func:`mqcn_suite.coverage.load_coverage`): a
requirement is covered when at least one scenario is tagged with its ID.

People get the requirements in the order of the HTML report (sections in document order,
:func:`mqcn_suite.report.writers.section_key`): on a terminal a table whose cells wrap and
never end in an ellipsis; anywhere else (``mqcn catalog | less``, ``> file``) tab-separated
lines, a header first, every statement whole.  ``--json`` keeps the catalog's order, like
``traceability.json``.

Exit codes (:class:`~mqcn_suite.commands._common.ExitCode`): 0 — listed; 2 — usage error
(unknown section, a feature file that cannot be parsed or has a tag naming no requirement);
3 — internal error.

The command is the function :func:`catalog_list`; ``mqcn_suite.cli`` registers it under the
``catalog`` group (``mqcn catalog list``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from mqcn_model.catalog import CATALOG, Catalog
from mqcn_suite.commands._common import UsageError, boundary
from mqcn_suite.coverage import Coverage, CoverageError, load_coverage
from mqcn_suite.report.writers import section_key  # the HTML report's order

COMMAND = "catalog list"

LIST_HELP = (
    "List every requirement of the catalog (ID, section, keyword, role, testability, "
    "statement) with the scenarios of the feature files that check it.\n\n"
    "Exit 0: listed. Exit 2: usage error (unknown section, broken feature file)."
)


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


def report_order(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``entries`` in the HTML report's order: sections in document order, and within a
    section the catalog's order (the sort is stable, as the report's grouping is)."""
    return sorted(entries, key=lambda entry: section_key(entry["section"]))


def _scenario_label(scenario: dict[str, Any]) -> str:
    return f"{scenario['name']} ({Path(scenario['feature']).name}:{scenario['line']})"


def entries_table(
    entries: list[dict[str, Any]], coverage: Coverage, catalog: Catalog = CATALOG
) -> Table:
    """The listing for a terminal: one row per requirement; long cells wrap (fold), never cut."""
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
    table.add_column("ID", style="bold", overflow="fold")
    table.add_column("section", overflow="fold")
    table.add_column("keyword", overflow="fold")
    table.add_column("role", overflow="fold")
    table.add_column("statement", ratio=3, overflow="fold")
    table.add_column("scenarios", ratio=2, overflow="fold")
    for entry in report_order(entries):
        if not entry["testable"]:
            scenarios = "[dim]untestable[/dim]"
        elif entry["scenarios"]:
            scenarios = "\n".join(
                f"{escape(s['name'])} [dim]({escape(Path(s['feature']).name)}:{s['line']})[/dim]"
                for s in entry["scenarios"]
            )
        else:
            scenarios = "[red]none[/red]"
        table.add_row(
            entry["id"],
            entry["section"],
            entry["keyword"],
            entry["role"],
            Text(entry["statement"]),
            scenarios,
        )
    return table


TSV_COLUMNS = ("id", "section", "keyword", "role", "testable", "covered", "statement", "scenarios")


def _cell(text: str) -> str:
    """One TSV cell: a tab or a line break inside would split the row, so each is a space."""
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def entries_tsv(entries: list[dict[str, Any]]) -> str:
    """The listing for pipes and files: a header line, then one requirement per line, every
    field whole, tab-separated; scenarios are ``name (file:line)`` joined by ``; ``."""
    lines = ["\t".join(TSV_COLUMNS)]
    for entry in report_order(entries):
        cells = [
            entry["id"],
            entry["section"],
            entry["keyword"],
            entry["role"],
            "yes" if entry["testable"] else "no",
            "yes" if entry["covered"] else "no",
            entry["statement"],
            "; ".join(_scenario_label(s) for s in entry["scenarios"]),
        ]
        lines.append("\t".join(_cell(cell) for cell in cells))
    return "\n".join(lines) + "\n"


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
    with boundary(COMMAND):
        if section is not None and not CATALOG.in_section(section):
            known = sorted({r.section for r in CATALOG.values()}, key=section_key)
            raise UsageError(
                f"--section: no requirement in section {section!r} (sections: {', '.join(known)})"
            )
        if features is not None and not features.is_dir():
            raise UsageError(f"--features: {features} is not a directory")
        try:
            coverage = load_coverage(features)
        except CoverageError as exc:
            head, *problems = str(exc).splitlines()
            raise UsageError(f"{head} {'; '.join(p.strip() for p in problems)}") from None
        entries = catalog_entries(coverage, section=section, uncovered=uncovered)
        if as_json:
            sys.stdout.write(json.dumps(entries, indent=2, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        elif sys.stdout.isatty():
            Console(highlight=False).print(entries_table(entries, coverage))
        else:
            sys.stdout.write(entries_tsv(entries))
            sys.stdout.flush()
