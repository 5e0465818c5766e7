"""The traceability report: per-requirement verdicts over the whole catalog.

* :mod:`~mqcn_suite.report.results`      — one :class:`ItemResult` per test item (pytest hooks);
* :mod:`~mqcn_suite.report.traceability` — verdicts and the ``traceability.json`` document;
* :mod:`~mqcn_suite.report.writers`      — the report directory: JSON (schema-checked) and HTML;
* :mod:`~mqcn_suite.report.ci`           — junit.xml and cucumber.json rewritten from the report;
* :mod:`~mqcn_suite.report.values`       — a value of the adapter protocol's JSON as text.
"""

from __future__ import annotations

from mqcn_suite.report.results import ItemResult, ResultCollector
from mqcn_suite.report.traceability import VERDICTS, build_traceability, summarise
from mqcn_suite.report.writers import (
    CUCUMBER_JSON,
    JUNIT_XML,
    REPORT_FILES,
    REPORT_HTML,
    TRACEABILITY_JSON,
    ReportError,
    prepare_report_dir,
    render_html,
    traceability_schema,
    validate_traceability,
    write_report,
)

__all__ = [
    "CUCUMBER_JSON",
    "JUNIT_XML",
    "REPORT_FILES",
    "REPORT_HTML",
    "TRACEABILITY_JSON",
    "VERDICTS",
    "ItemResult",
    "ReportError",
    "ResultCollector",
    "build_traceability",
    "prepare_report_dir",
    "render_html",
    "summarise",
    "traceability_schema",
    "validate_traceability",
    "write_report",
]
