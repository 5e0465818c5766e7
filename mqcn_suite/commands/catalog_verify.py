"""``mqcn catalog verify --spec PATH``: is the requirements catalog complete against the spec?

Reads the specification (markdown as converted from the PDF, or plain text), extracts every
normative sentence (:func:`mqcn_model.spec_text.normative_sentences`) and matches them with
the ``fingerprints:`` of the catalog (:func:`mqcn_model.spec_text.check_coverage`).

Exit codes (those of every ``mqcn`` command, :class:`~mqcn_suite.commands._common.ExitCode`):

* 0 — every normative sentence is mapped by a catalog entry (one summary line);
* 1 — some sentence is not mapped (each is listed: section, line, keywords, its start and its
  fingerprint); with ``--strict``, also when a catalog fingerprint matches no sentence (stale
  fingerprints are otherwise only a warning);
* 2 — the spec path is missing, unreadable, not text, empty, or holds no normative sentence
  (one line on stderr);
* 3 — internal error of the suite (one line on stderr).

The command is the function :func:`verify`; ``mqcn_suite.cli`` registers it under the
``catalog`` group.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from mqcn_model.catalog import CATALOG, Catalog
from mqcn_model.spec_text import Coverage, check_coverage, normative_sentences
from mqcn_suite.commands._common import ExitCode, UsageError, boundary, read_user_file

COMMAND = "catalog verify"
EXCERPT = 100  # characters of a sentence shown in the human report

VERIFY_HELP = (
    "Check that the requirements catalog covers every normative sentence of the "
    "specification: each MUST/MUST NOT/SHOULD/SHOULD NOT/MAY sentence of sections 1.5, 1.8, "
    "1.9, 2, 3 and 5.1 and each product-behaviour note of section 6 must be named by the "
    "fingerprints of a catalog entry of its section (or note).\n\n"
    "Exit 0: complete. Exit 1: some sentence is not mapped (or, with --strict, some catalog "
    "fingerprint matches no sentence). Exit 2: the spec cannot be read."
)


def read_spec(path: Path) -> str:
    """The text of the spec at ``path``; raises :class:`UsageError` saying why not.

    UTF-8 (with or without a byte-order mark) and UTF-16 with a byte-order mark are read.
    """
    shown = str(path)
    data = read_user_file("--spec", shown)
    encoding = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    label = "UTF-16" if encoding == "utf-16" else "UTF-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"--spec: {shown}: not a text file (byte {exc.start} is not {label})"
        ) from None
    if not text.strip():
        raise UsageError(f"--spec: {shown} is empty")
    return text


def coverage_of(spec_text: str, catalog: Catalog = CATALOG, name: str = "the text") -> Coverage:
    """The coverage of ``spec_text`` by ``catalog``; raises :class:`UsageError` if the text
    holds no normative sentence at all (it is not the specification)."""
    sentences = normative_sentences(spec_text)
    if not sentences:
        raise UsageError(
            f"--spec: {name}: no normative sentence found (expected [MS-MQCN] with numbered "
            "section headings, as markdown or plain text)"
        )
    return check_coverage(sentences, catalog.values())


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{key} {value}" for key, value in counts.items())


def coverage_to_json(spec: Path, coverage: Coverage, strict: bool) -> dict[str, Any]:
    """The ``--json`` document."""
    return {
        "spec": str(spec),
        "complete": coverage.complete,
        "strict": strict,
        "ok": exit_code(coverage, strict) == ExitCode.OK,
        "sentences": len(coverage.sentences),
        "entries": coverage.entries,
        "by_keyword": coverage.by_keyword(),
        "by_section": coverage.by_section(),
        "unmapped": [sentence.to_json() for sentence in coverage.unmapped],
        "stale": [{"id": rid, "fingerprint": fp} for rid, fp in coverage.stale],
    }


def exit_code(coverage: Coverage, strict: bool) -> int:
    if not coverage.complete or (strict and coverage.stale):
        return ExitCode.FOUND
    return ExitCode.OK


def _excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1].rstrip() + "…"


def print_coverage(console: Console, coverage: Coverage, strict: bool) -> None:
    """The human report: unmapped sentences, stale fingerprints, one summary line."""
    total = len(coverage.sentences)
    if coverage.unmapped:
        count = len(coverage.unmapped)
        noun = "sentence is" if count == 1 else "sentences are"
        console.print(
            Text(f"{count} normative {noun} not mapped by any catalog entry:", style="bold red")
        )
        for sentence in coverage.unmapped:
            where = f"note <{sentence.note}>" if sentence.note is not None else sentence.section
            line = Text("  x ")
            line.append(f"{where}, line {sentence.line}", style="bold")
            line.append(f" [{'/'.join(sentence.keywords)}] ")
            line.append(sentence.fingerprint, style="cyan")
            console.print(line)
            console.print(Text(f"      {_excerpt(sentence.text)}"))
    if coverage.stale:
        style = "bold red" if strict else "yellow"
        label = "error" if strict else "warning"
        console.print(
            Text(
                f"{label}: {len(coverage.stale)} catalog fingerprint(s) match no sentence of "
                "the entry's section or note (stale):",
                style=style,
            )
        )
        for rid, fingerprint in coverage.stale:
            line = Text("  - ")
            line.append(rid, style="bold")
            line.append(f" {fingerprint}")
            console.print(line)
    keywords = _counts(coverage.by_keyword())
    if coverage.complete:
        summary = Text("complete", style="bold green")
        summary.append(
            f": {total} normative sentences ({keywords}), {coverage.entries} catalog entries, "
            "all mapped"
        )
        if coverage.stale:
            summary.append(f"; {len(coverage.stale)} stale fingerprint(s)")
    else:
        summary = Text("incomplete", style="bold red")
        summary.append(
            f": {len(coverage.unmapped)} of {total} normative sentences not mapped "
            f"by the {coverage.entries} catalog entries"
        )
    console.print(summary)


def verify(
    spec: Annotated[
        Path,
        typer.Option(
            "--spec",
            metavar="PATH",
            help="The [MS-MQCN] text: markdown converted from the PDF, or plain text.",
            show_default=False,
        ),
    ],
    strict: Annotated[
        bool,
        typer.Option("--strict", help="Stale catalog fingerprints are an error (exit 1)."),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print only a JSON document on stdout.")
    ] = False,
) -> None:
    """``mqcn catalog verify``: every normative sentence of the spec is in the catalog."""
    with boundary(COMMAND):
        coverage = coverage_of(read_spec(spec), name=str(spec))
        if as_json:
            sys.stdout.write(json.dumps(coverage_to_json(spec, coverage, strict), indent=2))
            sys.stdout.write("\n")
            sys.stdout.flush()
        else:
            print_coverage(Console(highlight=False, soft_wrap=True), coverage, strict)
        raise typer.Exit(exit_code(coverage, strict))
