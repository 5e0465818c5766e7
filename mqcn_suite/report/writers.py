"""Writing the report directory: ``traceability.json`` (schema-checked) and ``report.html``.

``junit.xml`` and ``cucumber.json`` are written by pytest's own ``--junitxml`` and
pytest-bdd's ``--cucumberjson``, which the plugin points into the same directory, then
rewritten from the report (:mod:`mqcn_suite.report.ci`).
"""

from __future__ import annotations

import json
import os
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import jsonschema

from mqcn_suite.outputs import OutputError, check_output_dir
from mqcn_suite.report.traceability import SUMMARY_KEY, VERDICTS
from mqcn_suite.report.values import value_text

TRACEABILITY_JSON = "traceability.json"
REPORT_HTML = "report.html"
JUNIT_XML = "junit.xml"
CUCUMBER_JSON = "cucumber.json"
REPORT_FILES = (TRACEABILITY_JSON, REPORT_HTML, JUNIT_XML, CUCUMBER_JSON)

# Headings of the MS-MQCN sections that carry requirements (for grouping the HTML page).
SECTION_TITLES = {
    "1.5": "Prerequisites/Preconditions",
    "1.6": "Applicability Statement",
    "1.7": "Versioning and Capability Negotiation",
    "1.8": "Vendor-Extensible Fields",
    "1.9": "Standards Assignments",
    "2.1": "Transport",
    "2.2": "Message Syntax",
    "2.2.1": "GUID",
    "2.2.2": "PROPID",
    "2.2.2.1": "PROPID Constants",
    "2.2.3": "PROPVALUE",
    "2.2.3.1": "VT_I2",
    "2.2.3.2": "VT_I4",
    "2.2.3.3": "VT_BOOL",
    "2.2.3.4": "VT_I1",
    "2.2.3.5": "VT_UI1",
    "2.2.3.6": "VT_UI2",
    "2.2.3.7": "VT_UI4",
    "2.2.3.8": "VT_I8",
    "2.2.3.9": "VT_UI8",
    "2.2.3.10": "VT_LPWSTR",
    "2.2.3.11": "VT_BLOB",
    "2.2.3.12": "VT_CLSID",
    "2.2.3.13": "VT_UI4 | VT_VECTOR",
    "2.2.3.14": "VT_CLSID | VT_VECTOR",
    "2.2.3.15": "VT_LPWSTR | VT_VECTOR",
    "2.2.4": "Change Notification Message",
    "2.2.5": "Notification Body",
    "2.2.6": "Notification Update",
    "2.3": "Directory Service Schema Elements",
    "3.1.1": "Abstract Data Model",
    "3.1.1.1": "Shared Data Elements",
    "3.1.1.2": "Data Elements Mapping",
    "3.1.1.2.1": "Queue Manager Attributes Mapping",
    "3.1.1.3": "Queue Attributes Mapping",
    "3.2.1.2.1": "Change Notification Queue",
    "3.2.3": "Server Initialization",
    "3.2.5": "Server Processing Events and Sequencing Rules",
    "3.2.5.1": "Processing a Change Notification Message Version 0x01",
    "3.2.5.2": "Processing a Change Notification Message Version 0x02",
    "3.3.1.1": "Client Shared Data Elements",
    "3.3.3": "Client Initialization",
    "3.3.4.1": "Send Change Notification",
    "3.3.5.1": "Preparing a Change Notification Message Version 0x02",
    "3.3.5.2": "Preparing a Change Notification Message Version 0x01",
    "3.3.5.3": "Sending a Change Notification Message",
    "5.1": "Security Considerations for Implementers",
    "6": "Appendix A: Product Behavior",
}


class ReportError(RuntimeError):
    """The report directory cannot be written, or a document does not match its schema."""


def prepare_report_dir(
    directory: Path | str, files: tuple[str, ...] = REPORT_FILES, *, create: bool = True
) -> Path:
    """Create ``directory`` if needed and make sure the report can be written in it.

    Checked before any scenario runs (:func:`mqcn_suite.outputs.check_output_dir`): the
    directory can be created and written, and each of ``files`` (the report's files) that an
    earlier run left there can be replaced -- a read-only ``junit.xml``, or a directory named
    ``report.html``, is found now rather than after the whole run.  ``create=False`` only
    checks, leaving nothing behind.  Raises :class:`ReportError` with the reason, naming the
    path at fault.
    """
    try:
        return check_output_dir(directory, "", files=files, keep=create)
    except OutputError as exc:
        raise ReportError(str(exc)) from None


@cache
def traceability_schema() -> dict[str, Any]:
    """The JSON schema of ``traceability.json`` (packaged beside this module)."""
    text = resources.files(__package__).joinpath("traceability.schema.json").read_text("utf-8")
    return json.loads(text)


def validate_traceability(document: dict[str, Any]) -> None:
    """Raise :class:`ReportError` naming the first place ``document`` breaks the schema."""
    validator = jsonschema.Draft202012Validator(traceability_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise ReportError(
            f"traceability document does not match its schema at {where}: {error.message}"
        )


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def json_text(document: Any) -> str:
    """``document`` as indented JSON text, non-ASCII characters as they are, and a lone
    surrogate (errata E-07, lenient) as its ``\\udXXX`` escape: UTF-8 cannot hold it."""
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file, so readers never see half a file."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        # a lone surrogate in a message (errata E-07) is written as its escape
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as stream:
            stream.write(text)
        os.chmod(temporary, 0o666 & ~_umask())  # as a plain open() would have made it
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def section_key(section: str) -> tuple[int, ...]:
    return tuple(int(part) for part in section.split("."))


_WORST = ("error", "failed", "passed", "skipped", "not run")


def group_scenarios(scenarios: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per scenario of a feature file: an outline's rows are counted together."""
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for scenario in scenarios:
        key = (scenario["feature"], scenario["line"], scenario["template"])
        group = groups.setdefault(
            key,
            {
                "name": scenario["name"],
                "feature": scenario["feature"],
                "line": scenario["line"],
                "runs": 0,
                "outcomes": {},
                "stopped_by": [],
                "read_sources": [],
            },
        )
        for source in scenario.get("read_sources", []):
            if source not in group["read_sources"]:
                group["read_sources"].append(source)
        for rid in scenario.get("stopped_by", []):
            if rid not in group["stopped_by"]:
                group["stopped_by"].append(rid)
        group["runs"] += 1
        if group["runs"] > 1:
            group["name"] = scenario["template"]
        outcomes = group["outcomes"]
        outcomes[scenario["outcome"]] = outcomes.get(scenario["outcome"], 0) + 1
    for group in groups.values():
        group["outcome"] = next(o for o in _WORST if o in group["outcomes"])
    return list(groups.values())


def group_by_section(requirements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Requirement objects grouped by section, sections in document order."""
    sections: dict[str, list[dict[str, Any]]] = {}
    for requirement in requirements:
        sections.setdefault(requirement["section"], []).append(requirement)
    grouped = []
    for section in sorted(sections, key=section_key):
        entries = [
            dict(r, scenario_groups=group_scenarios(r["scenarios"])) for r in sections[section]
        ]
        counts = {verdict: sum(r["verdict"] == verdict for r in entries) for verdict in VERDICTS}
        grouped.append(
            {
                "section": section,
                "title": SECTION_TITLES.get(section, ""),
                "requirements": entries,
                "counts": {verdict: n for verdict, n in counts.items() if n},
            }
        )
    return grouped


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("mqcn_suite.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_html(document: dict[str, Any]) -> str:
    """The one self-contained HTML page of the report (inline CSS, no external asset)."""
    summary = document["summary"]

    def percent(part: int, whole: int) -> str:
        return f"{100 * part / whole:.0f}%" if whole else "–"

    failing = [
        r for r in document["requirements"] if r["verdict"] in ("fail", "claim-fail", "error")
    ]
    counts = {v: sum(r["verdict"] == v for r in failing) for v in ("fail", "claim-fail", "error")}
    template = _environment().get_template("report.html.j2")
    return template.render(
        failing_counts=", ".join(f"{n} {verdict}" for verdict, n in counts.items() if n),
        doc=document,
        summary=summary,
        sections=group_by_section(document["requirements"]),
        verdicts=VERDICTS,
        verdict_key=SUMMARY_KEY,
        percent=percent,
        failing=failing,
        readings=document.get("readings", []),
        readings_overall=document.get("readings_overall", "not observed"),
        value_text=value_text,
    )


def write_report(directory: Path, document: dict[str, Any]) -> dict[str, Path]:
    """Validate ``document``; write ``traceability.json`` and ``report.html`` into ``directory``."""
    validate_traceability(document)
    paths = {TRACEABILITY_JSON: directory / TRACEABILITY_JSON, REPORT_HTML: directory / REPORT_HTML}
    try:
        _atomic_write(paths[TRACEABILITY_JSON], json_text(document))
        _atomic_write(paths[REPORT_HTML], render_html(document))
    except OSError as exc:
        raise ReportError(
            f"cannot write the report into {directory}: {exc.strerror or exc}"
        ) from None
    return paths
