"""The mutation report: ``mutation.json`` for tools, ``mutation.md`` for people, one line per
file on the terminal.

Per file it counts the mutants *generated* by the operators, those *in the run* (all of them,
or the sample), and what became of each:

* ``killed`` — some selected scenario failed (or the run broke) on the mutant;
* ``timeout`` — the run exceeded the time limit: an endless loop, counted as killed;
* ``survived`` — every selected scenario passed;
* ``no-coverage`` — no scenario executes the mutated function: a survivor, not run;
* ``equivalent`` / ``unreachable`` / ``reading`` — documented in
  ``docs/mutation-equivalents.yaml`` (``reading``: the mutant only swaps an errata reading,
  which no scenario may fail): not run and left out of the score;
* ``pending`` — not finished (the run was interrupted; run it again to resume).

``score = (killed + timeout) / (in_run - equivalent - unreachable - reading - pending)``; with no
sample and nothing pending, ``in_run`` is ``generated`` and this is the usual mutation score.
Each survivor is listed with its ID, line, operator and the unified diff of the mutation.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mqcn_suite.selftest.equivalents import Documented
from mqcn_suite.selftest.mutants import FileMutants, Mutant, display_name

REPORT_JSON = "mutation.json"
REPORT_MD = "mutation.md"
COUNTS = (
    "generated",
    "in_run",
    "killed",
    "timeout",
    "survived",
    "no_coverage",
    "equivalent",
    "unreachable",
    "reading",
    "pending",
)
DOCUMENTED = ("equivalent", "unreachable", "reading")
SURVIVING = ("survived", "no-coverage")


def status_of(
    mutant: Mutant, records: Mapping[str, dict[str, Any]], documented: Mapping[str, Documented]
) -> str:
    """What became of ``mutant``: a documented kind, its recorded status, or ``pending``."""
    if mutant.id in documented:
        return documented[mutant.id].kind
    record = records.get(mutant.id)
    return record["status"] if record else "pending"


def score(counts: Mapping[str, int]) -> float | None:
    """(killed + timeout) / the mutants that count; None when none count."""
    counted = counts["in_run"] - counts["pending"] - sum(counts[kind] for kind in DOCUMENTED)
    if counted <= 0:
        return None
    return (counts["killed"] + counts["timeout"]) / counted


def build_document(
    plans: Sequence[tuple[FileMutants, Sequence[Mutant]]],
    records: Mapping[str, dict[str, Any]],
    documented: Mapping[str, Documented],
    *,
    stale: Sequence[str] = (),
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``mutation.json`` document (see the module documentation)."""
    files: dict[str, Any] = {}
    total = dict.fromkeys(COUNTS, 0)
    for file_mutants, chosen in plans:
        counts = dict.fromkeys(COUNTS, 0)
        counts["generated"] = len(file_mutants.mutants)
        counts["in_run"] = len(chosen)
        survivors = []
        readings = []
        for mutant in chosen:
            status = status_of(mutant, records, documented)
            counts[status.replace("-", "_")] += 1
            if status == "reading":
                readings.append({"id": mutant.id, "errata": documented[mutant.id].errata})
            if status in SURVIVING:
                survivors.append(_survivor(mutant, file_mutants.source, records[mutant.id]))
        for name in COUNTS:
            total[name] += counts[name]
        files[file_mutants.file] = {
            "name": display_name(file_mutants.file),
            **counts,
            "score": _rounded(score(counts)),
            "survivors": survivors,
            "readings": readings,
            "invalid": list(file_mutants.invalid),
        }
    return {
        "tool": "mqcn selftest mutation",
        "format": 1,
        **dict(meta or {}),
        "files": files,
        "total": {**total, "score": _rounded(score(total))},
        "stale_equivalents": list(stale),
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _survivor(mutant: Mutant, source: str, record: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": mutant.id,
        "line": mutant.line,
        "operator": mutant.operator,
        "description": mutant.description,
        "status": record["status"],
        "tests": record.get("tests", {}),
        "diff": mutant.diff(source),
    }


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def summary_lines(document: Mapping[str, Any]) -> list[str]:
    """One line per file (and a total), for the terminal."""
    rows = [(entry["name"], entry) for entry in document["files"].values()]
    if len(rows) > 1:
        rows.append(("total", document["total"]))
    width = max((len(name) for name, _ in rows), default=5)
    lines = []
    for name, entry in rows:
        sample = f" of {entry['generated']}" if entry["in_run"] != entry["generated"] else ""
        pending = f", {entry['pending']} pending" if entry["pending"] else ""
        documented = sum(entry[kind] for kind in DOCUMENTED)
        readings = f" ({entry['reading']} reading)" if entry["reading"] else ""
        lines.append(
            f"{name.ljust(width)}  {entry['in_run']:4d}{sample} mutants: "
            f"{entry['killed']} killed, {entry['timeout']} timeout, "
            f"{entry['survived']} survived, {entry['no_coverage']} no-coverage, "
            f"{documented} documented{readings}{pending}  score {percent(entry['score'])}"
        )
    return lines


def markdown(document: Mapping[str, Any]) -> str:
    """``mutation.md``: the summary table, then every survivor with its diff."""
    out = ["# Mutation analysis of the reference model", ""]
    interrupted = document.get("interrupted")
    facts = [
        ("targets", ", ".join(document.get("targets", []))),
        ("started", document.get("started")),
        ("duration", _duration(document.get("duration_seconds"))),
        ("jobs", document.get("jobs")),
        ("time limit per mutant", _duration(document.get("timeout_seconds"))),
        ("sample", _sample(document.get("sample"))),
        ("only IDs matching", _patterns(document.get("ids"))),
        ("only operators", ", ".join(document.get("operators") or []) or None),
        ("test selection", document.get("selection")),
        ("interrupted", "yes: run the same command again to resume" if interrupted else None),
    ]
    out += [f"* {name}: {value}" for name, value in facts if value not in (None, "")]
    columns = ["file", *(name.replace("_", " ") for name in COUNTS), "score"]
    out += ["", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    rows = [*document["files"].values(), dict(document["total"], name="**total**")]
    for entry in rows:
        cells = [str(entry[name]) for name in COUNTS]
        out.append(f"| {entry['name']} | " + " | ".join(cells) + f" | {percent(entry['score'])} |")
    out.append("")
    out.append("## Survivors")
    out.append("")
    any_survivor = False
    for entry in document["files"].values():
        if not entry["survivors"]:
            continue
        any_survivor = True
        out += [f"### {entry['name']}", ""]
        for survivor in entry["survivors"]:
            tests = ", ".join(f"{n} on {t}" for t, n in survivor["tests"].items() if n)
            ran = f"; scenarios run: {tests}" if tests else "; no scenario executes it"
            out.append(
                f"* `{survivor['id']}` — line {survivor['line']}, {survivor['operator']} "
                f"({survivor['description']}), **{survivor['status']}**{ran}"
            )
            diff = [f"  {line}" for line in survivor["diff"].splitlines()]
            out += ["", "  ```diff", *diff, "  ```", ""]
    if not any_survivor:
        out += ["None.", ""]
    stale = document.get("stale_equivalents") or []
    if stale:
        out += ["## Stale entries of the equivalents file", ""]
        out += [f"* `{identifier}` names no generated mutant any more" for identifier in stale]
        out.append("")
    invalid = [item for entry in document["files"].values() for item in entry["invalid"]]
    if invalid:
        out += ["## Sites that could not be mutated (not run)", ""]
        out += [f"* {item}" for item in invalid]
        out.append("")
    return "\n".join(out)


def _duration(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def _sample(sample: Mapping[str, Any] | None) -> str | None:
    if not sample:
        return None
    return f"{sample['count']} mutants, seed {sample['seed']}"


def _patterns(patterns: Sequence[str] | None) -> str | None:
    if not patterns:
        return None
    if len(patterns) > 3:
        return f"{len(patterns)} --id patterns"
    return ", ".join(f"`{pattern}`" for pattern in patterns)


def write_reports(directory: Path, document: Mapping[str, Any]) -> None:
    """Write ``mutation.json`` and ``mutation.md`` into ``directory`` (each atomically)."""
    _write(directory / REPORT_JSON, json.dumps(document, indent=2) + "\n")
    _write(directory / REPORT_MD, markdown(document))


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
