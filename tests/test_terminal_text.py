"""What the terminal says (issue 18): inconclusive requirements named with their cause, text
wrapped at word boundaries (never a statement cut in a word), counts and nouns agreeing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from mqcn_model.catalog import CATALOG
from mqcn_suite.cli import app
from mqcn_suite.commands._common import ExitCode
from mqcn_suite.commands.pipeline import _print_audit
from mqcn_suite.pipeline.audit import AuditResult
from mqcn_suite.wording import hanging, plural

runner = CliRunner()


def run_quietly(report: Path, *pytest_args: str, target: str = "reference") -> Result:
    """``mqcn run`` on ``target`` into ``report``, quiet and in file order, with
    ``pytest_args`` after ``--``."""
    command = ["run", "--target", target, "--report", str(report), "--", "-q", "-p", "no:randomly"]
    return runner.invoke(app, [*command, *pytest_args])


WIDTH = 80  # what rich gives a terminal it cannot measure (CliRunner's)
# the one scenario tagged with MQCN-2.2.6-8: deselected, it leaves that requirement unjudged
ONLY_SCENARIO_OF_2_2_6_8 = "test_a_directoryservice_client_may_fill_reserved_with_zeros"


def words(text: str) -> list[str]:
    return text.split()


def test_plural_agrees_with_the_count() -> None:
    assert [plural(n, "message") for n in (0, 1, 2)] == ["0 messages", "1 message", "2 messages"]
    assert plural(1, "UserMessage to another queue", "UserMessages to other queues") == (
        "1 UserMessage to another queue"
    )


def test_hanging_wraps_at_words_and_keeps_every_word() -> None:
    statement = CATALOG["MQCN-3.2.5.1-4"].statement * 3
    text = hanging("  MQCN-3.2.5.1-4 fail [MUST] ", statement, 60, indent=4).plain
    lines = text.splitlines()
    assert len(lines) > 2 and all(len(line) <= 60 for line in lines)
    assert all(line.startswith("    ") for line in lines[1:])
    assert words(text)[3:] == words(statement)  # every word whole, in order


def test_an_inconclusive_requirement_is_named_with_its_cause(tmp_path: Path) -> None:
    result = run_quietly(tmp_path, "-k", f"not {ONLY_SCENARIO_OF_2_2_6_8}")
    assert result.exit_code == ExitCode.OK, result.output
    document = json.loads((tmp_path / "traceability.json").read_text("utf-8"))
    inconclusive = [r["id"] for r in document["requirements"] if r["verdict"] == "inconclusive"]
    assert inconclusive == ["MQCN-2.2.6-8"]
    assert "Inconclusive (1 requirement, nothing judged them; they do not fail):" in result.stdout
    assert "  its scenarios were not selected (1): MQCN-2.2.6-8\n" in result.stdout
    # the 25 scenarios of features/3.2.5.2-directory-ldap.feature: not applicable in dict mode
    assert "Scenario runs: 412 (387 passed, 0 failed, 0 errors, 25 skipped," in result.stdout
    assert "; the target acted in 387 of them." in result.stdout


def test_failing_statements_wrap_at_words(tmp_path: Path) -> None:
    result = run_quietly(tmp_path, "-m", "MQCN-3.2.5.1-4", target="zoo:ProcessesUnauthenticated")
    assert result.exit_code == ExitCode.FOUND, result.output
    summary = result.stdout.split("Failing requirements (1: 1 fail):\n", 1)[1]
    block = summary.split("      replay: ", 1)[0]
    assert all(len(line) <= WIDTH for line in block.splitlines()), block
    statement = CATALOG["MQCN-3.2.5.1-4"].statement
    assert " ".join(words(block)).startswith(f"MQCN-3.2.5.1-4 fail [MUST] {statement}")
    assert "  MQCN-3.2.5.1-2 inconclusive (stopped by MQCN-3.2.5.1-4)\n" in result.stdout


@pytest.mark.parametrize(("count", "said"), [(1, "1 message."), (3, "3 messages.")])
def test_the_audit_wraps_statements_and_counts_its_messages(count: int, said: str) -> None:
    statement = CATALOG["MQCN-3.2.5.1-4"].statement + " " + CATALOG["MQCN-2.2.4-1"].statement
    balance = {
        "balanced": True,
        "files_without_footer": 0,
        "rows_in": count,
        "conforming": 0,
        "non_conforming": count,
        "quarantined": 0,
        "rows_in_unreadable_row_groups": 0,
        "bytes_without_footer": 0,
    }
    summary = {
        "by_requirement": [
            {"messages": count, "requirement": "MQCN-3.2.5.1-4", "statement": statement}
        ],
        "by_server_outcome": [{"outcome": "disregarded", "messages": count}],
        "balance": balance,
    }
    result = AuditResult(
        out="/tmp/out", mode="parquet", rows_in=count, conforming=0, non_conforming=count,
        quarantined=0, summary=summary, seconds=1.0,
    )  # fmt: skip
    stream = io.StringIO()
    console = Console(file=stream, width=WIDTH, highlight=False, soft_wrap=True)
    _print_audit(console, result, seconds=1.5)  # the wall time, printed beside the engine
    text = stream.getvalue()
    assert f"A conforming queue manager would disregard {said}" in text
    assert "(in-process, 1.5 s)" in text  # the engine that ran and the command's wall time
    listed = text.split("Most broken requirements:\n", 1)[1].split("A conforming", 1)[0]
    assert all(len(line) <= WIDTH for line in listed.splitlines()), listed
    assert words(listed) == [str(count), "MQCN-3.2.5.1-4", *words(statement)]


def test_the_pipeline_summaries_count_in_agreement(tmp_path: Path) -> None:
    """One fuzz case, one Parquet file, one hostile body, one finding: each noun singular."""
    from types import SimpleNamespace

    from mqcn_suite.commands.fuzz_codec import _summary_line
    from mqcn_suite.commands.pipeline import _generate_line

    ran = runner.invoke(
        app,
        ["fuzz", "target", "--target", "reference", "--cases", "1", "--out", str(tmp_path / "f")],
    )
    assert ran.exit_code == 0, ran.output
    assert ran.stdout.startswith("1 case against reference;"), ran.stdout
    assert "1 case against reference (seed " in ran.stdout  # the summary line, too
    corpus = SimpleNamespace(
        invalid_share=0.0, seed=1, format="parquet", rows=1, files=1, path="out/", messages=1
    )
    assert _generate_line(corpus, 1.0).startswith("wrote 1 message (0% drawn")
    assert "in 1 Parquet file to out/" in _generate_line(corpus, 1.0)
    campaign = SimpleNamespace(
        by_category={"crash": 1}, cases=1, seconds=1.0, out=None, seed=3, findings=1, traced=0,
        balance_line=lambda: "balanced", engine="in-process",
    )  # fmt: skip
    line = _summary_line(campaign, 1.0)
    assert line.startswith("1 hostile body (seed 3) through judge and server view: 1 finding (")
