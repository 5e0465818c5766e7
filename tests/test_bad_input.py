"""Bad or empty input is named before work starts (issue 11, item 4).

* every command that writes checks its output place first -- ``corpus generate --out``,
  ``audit --out``, ``fuzz --out``, ``run --report`` -- with one shared check
  (:func:`mqcn_suite.outputs.check_output_dir`): one line, exit 2, and Spark, pytest or the
  target never start;
* report files an earlier run left that cannot be replaced are refused before any scenario;
* empty work is refused: ``--count 0``, ``--cases 0`` (exit 2), an input without any
  message (exit 5, the "no work" code of ``mqcn run``).

The tests run as root in CI, where permission bits stop nothing: there, an unwritable place
is a path through a regular file, and a report file that cannot be replaced is a directory
in its place -- both fail the same way for any user.  Run as a user, the tests use the
permission bits themselves.  No Spark starts in this file: the guard below fails any test
that would start it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_helpers import one_line_error
from typer.testing import CliRunner, Result

from mqcn_suite.cli import app
from mqcn_suite.outputs import OutputError, check_output_dir, check_output_file
from mqcn_suite.pipeline import session
from mqcn_suite.pipeline.corpus import SCHEMA, generate_rows
from mqcn_suite.report import REPORT_FILES, ReportError, prepare_report_dir

runner = CliRunner()
ROOT = os.geteuid() == 0
EXIT_USAGE = 2
EXIT_NO_WORK = 5  # mqcn run's EXIT_NO_SCENARIO: nothing was judged


@pytest.fixture(autouse=True)
def no_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every refusal here must come before Spark: starting it fails the test."""

    def refuse(*_args: object, **_kwargs: object) -> Iterator[None]:
        raise AssertionError("Spark was started")

    monkeypatch.setattr(session, "spark_session", refuse)
    monkeypatch.setattr(session, "create_session", refuse)


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def one_line(result: Result, code: int = EXIT_USAGE) -> str:
    line = one_line_error(result, code)
    assert "Spark was started" not in result.output
    return line


def unwritable_dir(tmp_path: Path) -> tuple[Path, str]:
    """(a directory the command cannot create, the reason it will be given)."""
    if ROOT:  # root writes through permission bits: a regular file in the path stops anyone
        (tmp_path / "plain-file").write_text("not a directory")
        return tmp_path / "plain-file" / "out", "is a file, not a directory"
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    return locked / "out", "permission denied"


def unreplaceable(directory: Path, name: str) -> str:
    """Make ``directory/name`` a report file that cannot be replaced; the reason given."""
    if ROOT:  # a directory where a file must go stops root as well
        (directory / name).mkdir()
        (directory / name / "old").write_text("kept")
        return "it is a directory, not a file"
    (directory / name).write_text("old report")
    (directory / name).chmod(0o444)
    return "permission denied"


def small_corpus(folder: Path, rows: int = 20) -> Path:
    """A corpus file written without Spark (the generator's pure row function)."""
    folder.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_batches([generate_rows(list(range(rows)), 5, 0.2)])
    pq.write_table(table, folder / "part-0.parquet")
    return folder


# --- the shared check ----------------------------------------------------------------------------


def test_the_check_names_what_stops_the_writing(tmp_path: Path) -> None:
    place, why = unwritable_dir(tmp_path)
    with pytest.raises(OutputError, match=why) as caught:
        check_output_dir(place, "--out")
    assert str(caught.value).startswith("--out: cannot write to ") and str(place) in str(
        caught.value
    )
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="exists and is not a directory"):
        check_output_dir(tmp_path / "file", "--out")
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "x").write_text("x")
    with pytest.raises(OutputError, match="not an empty directory"):
        check_output_dir(tmp_path / "used", "--out", empty=True)
    assert check_output_dir(tmp_path / "used", "--out") == (tmp_path / "used").resolve()


def test_the_check_leaves_no_trace_unless_asked(tmp_path: Path) -> None:
    fresh = tmp_path / "a" / "b" / "c"
    assert check_output_dir(fresh, "--out", empty=True) == fresh.resolve()
    assert not (tmp_path / "a").exists()  # created to probe, removed again
    assert check_output_dir(fresh, "--out", keep=True) == fresh.resolve()
    assert fresh.is_dir() and list(fresh.iterdir()) == []  # no probe file left behind
    (fresh / "report.html").write_text("old")
    check_output_dir(fresh, "--report", files=REPORT_FILES)
    assert (fresh / "report.html").read_text() == "old"  # the probe changes nothing


def test_the_check_of_one_output_file(tmp_path: Path) -> None:
    why = unreplaceable(tmp_path, "target.pics.yaml")
    with pytest.raises(OutputError, match=f"cannot replace {tmp_path / 'target.pics.yaml'}: {why}"):
        check_output_file(tmp_path / "target.pics.yaml", "--out")
    with pytest.raises(OutputError, match="is not a directory"):
        check_output_file(tmp_path / "missing" / "x.yaml", "--out")
    assert check_output_file(tmp_path / "x.yaml", "--out") == (tmp_path / "x.yaml").resolve()
    assert not (tmp_path / "x.yaml").exists()


@pytest.mark.parametrize("name", REPORT_FILES)
def test_report_files_that_cannot_be_replaced_are_named(tmp_path: Path, name: str) -> None:
    why = unreplaceable(tmp_path, name)
    with pytest.raises(ReportError, match=f"cannot replace {tmp_path / name}: {why}"):
        prepare_report_dir(tmp_path)


# --- mqcn run --report ---------------------------------------------------------------------------


def _run(report: Path) -> Result:
    # A selection, so that a run the check fails to stop stays short (and fails the asserts).
    return invoke("run", "--report", str(report), "--", "-q", "-p", "no:randomly", "-m", "x-none")


@pytest.mark.parametrize("name", REPORT_FILES)
def test_run_refuses_old_report_files_it_cannot_replace(tmp_path: Path, name: str) -> None:
    report = tmp_path / "report"
    report.mkdir()
    why = unreplaceable(report, name)
    line = one_line(_run(report))
    assert line == f"mqcn run: error: --report: cannot replace {report / name}: {why}"
    others = [n for n in REPORT_FILES if n != name]
    assert not any((report / n).exists() for n in others)  # nothing ran, nothing written


def test_run_refuses_a_report_directory_it_cannot_write(tmp_path: Path) -> None:
    place, why = unwritable_dir(tmp_path)
    line = one_line(_run(place))
    assert line.startswith("mqcn run: error: --report: cannot write to ") and why in line


# --- the pipeline commands ----------------------------------------------------------------------


def test_corpus_generate_into_an_unwritable_place_is_refused_before_spark(tmp_path: Path) -> None:
    place, why = unwritable_dir(tmp_path)
    line = one_line(invoke("corpus", "generate", "--count", "5", "--out", str(place)))
    assert line.startswith("mqcn corpus generate: error: --out: cannot write to ")
    assert str(place) in line and why in line


@pytest.mark.parametrize("count", ["0", "-3"])
def test_corpus_generate_of_nothing_is_refused(tmp_path: Path, count: str) -> None:
    line = one_line(invoke("corpus", "generate", f"--count={count}", "--out", str(tmp_path / "c")))
    assert f"--count: {count}: nothing to generate" in line
    assert not (tmp_path / "c").exists()


def test_audit_into_an_unwritable_place_is_refused_before_spark(tmp_path: Path) -> None:
    corpus = small_corpus(tmp_path / "c")
    place, why = unwritable_dir(tmp_path)
    line = one_line(invoke("audit", str(corpus), "--out", str(place)))
    assert line.startswith("mqcn audit: error: --out: cannot write to ") and why in line


def test_fuzz_into_an_unwritable_place_is_refused_before_spark(tmp_path: Path) -> None:
    place, why = unwritable_dir(tmp_path)
    line = one_line(
        invoke("fuzz", "target", "--target", "reference", "--cases", "5", "--out", str(place))
    )
    assert line.startswith("mqcn fuzz: error: --out: cannot write to ") and why in line


def test_fuzz_of_no_cases_is_refused_before_spark(tmp_path: Path) -> None:
    line = one_line(invoke("fuzz", "target", "--target", "reference", "--cases", "0"))
    assert "--cases: 0: nothing to fuzz" in line


def test_fuzz_of_a_transport_only_target_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "f"
    line = one_line(
        invoke("fuzz", "target", "--target", "reference:mqqb", "--cases", "5", "--out", str(out))
    )
    assert "--target reference:mqqb: the fuzzer hands each case to deliver" in line
    assert not out.exists()


def test_a_refused_fuzz_leaves_no_output_directory(tmp_path: Path) -> None:
    out = tmp_path / "f"
    line = one_line(
        invoke("fuzz", "target", "--target", "no-such", "--cases", "5", "--out", str(out))
    )
    assert "unknown target" in line
    assert not out.exists()


def test_an_audit_of_an_empty_folder_judges_nothing_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "captured").mkdir()
    (tmp_path / "captured" / ".hidden").write_text("not input")
    line = one_line(
        invoke("audit", str(tmp_path / "captured"), "--out", str(tmp_path / "o")), EXIT_NO_WORK
    )
    assert line == f"mqcn audit: INPUT: {tmp_path / 'captured'} held 0 messages (no files): " + (
        "nothing was judged"
    )
    assert not (tmp_path / "o").exists()


def test_an_audit_of_a_corpus_of_zero_rows_judges_nothing_and_says_so(tmp_path: Path) -> None:
    pq.write_table(SCHEMA.empty_table(), tmp_path / "empty.parquet")
    line = one_line(invoke("audit", str(tmp_path), "--out", str(tmp_path / "o")), EXIT_NO_WORK)
    assert "held 0 messages (no Parquet rows)" in line
