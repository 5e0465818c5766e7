"""``mqcn selftest mutmut``: whole files under mutmut, scored whole, equivalents by their change."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mqcn_suite.cli import app
from mqcn_suite.selftest import mutmut_engine as M
from mqcn_suite.selftest.equivalents import EquivalentsError, load_equivalents

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "docs" / "mutation-equivalents.yaml"

RESULTS = """\
    mqcn_model.mqqb.events.xǁProtocolErrorǁ__str____mutmut_1: killed
    mqcn_model.mqqb.machine.x__summary__mutmut_3: survived
    mqcn_model.mqqb.machine.xǁSessionMachineǁ_flush__mutmut_14: timeout
not a result line
"""

SHOW = """\
# mqcn_model.mqqb.machine.xǁSessionMachineǁ_flush__mutmut_14: survived
--- mqcn_model/mqqb/machine.py
+++ mqcn_model/mqqb/machine.py
@@ -1,4 +1,4 @@
             try:
                 recoverable = decode_user_message(data)[0].user.delivery == RECOVERABLE
             except DecodeError:
-                recoverable = False  # the user may send broken packets on purpose
+                recoverable = None  # the user may send broken packets on purpose
"""


def test_results_and_diffs_are_read_as_mutmut_prints_them() -> None:
    assert M.parse_results(RESULTS) == {
        "mqcn_model.mqqb.events.xǁProtocolErrorǁ__str____mutmut_1": "killed",
        "mqcn_model.mqqb.machine.x__summary__mutmut_3": "survived",
        "mqcn_model.mqqb.machine.xǁSessionMachineǁ_flush__mutmut_14": "timeout",
    }
    assert M.parse_diff(SHOW) == (
        "recoverable = False # the user may send broken packets on purpose",
        "recoverable = None # the user may send broken packets on purpose",
    )
    with pytest.raises(M.MutmutError, match="cannot read the mutant name"):
        M.function_of("mqcn_model.mqqb.machine.flush")


def _mutant(status: str, changed: str = "a = 0", to: str = "a = 1") -> M.MutmutMutant:
    return M.MutmutMutant("m", "mqcn_model/x.py", "f", status, changed, to)


def test_a_file_is_scored_whole_without_its_documented_equivalents() -> None:
    score = M.FileScore("mqcn_model/x.py", ["tests/test_x.py"])
    score.mutants = [
        _mutant("killed"),
        _mutant("timeout"),
        _mutant("survived"),
        _mutant("no tests"),
    ]
    entry = M.MutmutEquivalent("mqcn_model/x.py", "f", "a = 0", "a = 1", "equivalent", "why")
    other = M.MutmutEquivalent("mqcn_model/x.py", "g", "b = 0", "b = 1", "equivalent", "why")
    stale = M.document(score.mutants, [entry, other])
    # both survivors make the documented change: both are left out, the other entry is stale
    assert [m.documented for m in score.mutants] == [None, None, "equivalent", "equivalent"]
    assert stale == ["mqcn_model/x.py g: 'b = 0' -> 'b = 1'"]
    summary = score.summary()
    assert (summary["mutants"], summary["killed"], summary["timeout"]) == (4, 1, 1)
    assert (summary["equivalent"], summary["survived"], summary["score"]) == (2, 0, 1.0)
    score.mutants.append(_mutant("survived", "c = 0", "c = 2"))
    assert score.summary()["survived"] == 1 and score.score == pytest.approx(2 / 3)
    assert M.FileScore("mqcn_model/y.py", []).score is None  # nothing to judge: no score


def test_the_sandbox_config_mutates_the_file_alone_with_its_tests() -> None:
    text = M.setup_cfg("mqcn_model/mqqb/machine.py", ["tests/test_mqqb_session.py"])
    assert "only_mutate = mqcn_model/mqqb/machine.py" in text
    assert "pytest_add_cli_args_test_selection =\n    tests/test_mqqb_session.py\n" in text
    assert "    no:randomly" in text and "    README.md" in text
    assert "    -m\n    not spark and not cluster\n" in text  # no JVM a survivor


def test_the_projects_mutmut_equivalents_are_well_formed_and_not_stale() -> None:
    """Every entry names a function of its file and a line that is still there (an edit
    that changes the line makes the entry stale: re-check the new mutant)."""
    entries = M.load_mutmut_equivalents(EQUIVALENTS)
    assert entries, "docs/mutation-equivalents.yaml documents mutmut's equivalents"
    load_equivalents(EQUIVALENTS)  # the project's own engine still reads the file
    for entry in entries:
        source = " ".join((ROOT / entry.file).read_text("utf-8").split())
        name = entry.function.split(".")[-1]
        assert re.search(rf"def {re.escape(name)}\(", source), entry
        assert entry.case_only or all(line in source for line in entry.changed.split(" / ")), entry


def test_a_case_only_entry_covers_name_case_changes_never_messages() -> None:
    entry = M.MutmutEquivalent("mqcn_model/x.py", "f", "", "", "equivalent", "why", case_only=True)
    name = M.MutmutMutant(
        "m", "mqcn_model/x.py", "f", "survived", 'v.text("mSMQLabelEx")', 'v.text("msmqlabelex")'
    )
    said = M.MutmutMutant(
        "m",
        "mqcn_model/x.py",
        "f",
        "survived",
        'raise E("no such name")',
        'raise E("NO SUCH NAME")',
    )
    elsewhere = M.MutmutMutant("m", "mqcn_model/x.py", "g", "survived", name.changed, name.to)
    assert [entry.matches(m) for m in (name, said, elsewhere)] == [True, False, False]


@pytest.mark.parametrize(
    ("yaml_text", "said"),
    [
        ("mutmut: {file: f}", "'mutmut' must be a list"),
        ("mutmut:\n  - file: f\n    kind: equivalent\n", "expected exactly file, function"),
        (
            "mutmut:\n  - {file: f, function: g, changed: a, to: b, kind: reading, reason: r}\n",
            "'kind' is 'equivalent' or 'unreachable'",
        ),
        (
            "mutmut:\n  - {file: f, function: g, changed: a, to: b, kind: equivalent,"
            " reason: ''}\n",
            "every field is a non-empty string",
        ),
        (
            "mutmut:\n  - {file: f, function: g, changed: a, to: 3, kind: equivalent, reason: r}\n",
            "to: a string, empty when the mutant deletes the line",
        ),
    ],
)
def test_a_malformed_mutmut_entry_is_refused_in_one_line(
    tmp_path: Path, yaml_text: str, said: str
) -> None:
    path = tmp_path / "eq.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    with pytest.raises(EquivalentsError, match=re.escape(said)):
        M.load_mutmut_equivalents(path)


def test_bad_input_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    outside = runner.invoke(app, ["selftest", "mutmut", "--file", "mqcn_suite/cli.py"])
    assert outside.exit_code == 2 and "a module under mqcn_model/" in outside.output
    missing = runner.invoke(app, ["selftest", "mutmut", "--file", "mqcn_model/nope.py"])
    assert missing.exit_code == 2 and "no such file" in missing.output
    monkeypatch.setitem(sys.modules, "mutmut", None)  # as if not installed
    absent = runner.invoke(app, ["selftest", "mutmut", "--file", "mqcn_model/mqqb/events.py"])
    assert absent.exit_code == 2 and "pip install 'mutmut==3.8.1'" in absent.output


def test_a_whole_file_runs_under_mutmut_and_its_report_is_written(tmp_path: Path) -> None:
    """mqqb/events.py (its two __str__ methods): every mutant killed by the session tests;
    given tests that never run them, each is a survivor, none left out."""
    runner = CliRunner()
    out = tmp_path / "report"
    result = runner.invoke(
        app,
        [
            "selftest",
            "mutmut",
            "--file",
            "mqcn_model/mqqb/events.py",
            "--out",
            str(out),
            "--tests",
            "tests/test_mqqb_session.py",
            "--min-score",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "4 mutants, 4 killed, 0 timeout, 0 equivalent, 0 survived: 100.0 %" in result.output
    assert (
        "| mqcn_model/mqqb/events.py | 4 | 4 | 0 | 0 | 0 | 100.0 % |"
        in (out / M.REPORT_MD).read_text()
    )
    blind = runner.invoke(
        app,
        [
            "selftest",
            "mutmut",
            "--file",
            "mqcn_model/mqqb/events.py",
            "--out",
            str(out),
            "--tests",
            "tests/test_wire_catalog.py",
            "--min-score",
            "0.99",
        ],
    )
    assert blind.exit_code == 1, blind.output
    assert "4 survived: 0.0 %" in blind.output and "below --min-score 0.99" in blind.output


def test_without_a_file_every_whole_file_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """`mqcn selftest mutmut` alone runs every file whose whole-file score docs/mutation.md
    publishes: the session machine, the wire codec, the capture reader, the directory
    mapping and the read judge (no package __init__, which has no mutant)."""
    ran: list[list[str]] = []

    def fake(root: Path, files: list[str], *rest: object) -> tuple[list[object], list[str]]:
        ran.append(list(files))
        return [], []

    monkeypatch.setattr(M, "run_mutmut", fake)
    result = CliRunner().invoke(app, ["selftest", "mutmut"])
    assert result.exit_code == 0, result.output
    (files,) = ran
    assert files == M.whole_files(ROOT)
    assert {"mqcn_model/mqqb/machine.py", "mqcn_model/dssm.py", "mqcn_model/ldap_reads.py"} <= set(
        files
    )
    for folder in ("mqqb", "wire", "capture"):
        modules = {
            p.relative_to(ROOT).as_posix() for p in (ROOT / "mqcn_model" / folder).glob("*.py")
        }
        assert modules - set(files) == {f"mqcn_model/{folder}/__init__.py"}


def test_docs_publish_a_whole_file_score_for_every_whole_file() -> None:
    """docs/mutation.md's issue-34 table has a row for every file `selftest mutmut` runs
    by default: none left to a sample."""
    text = (ROOT / "docs" / "mutation.md").read_text()
    table = text[text.index("### Issue 34: whole files under mutmut") :]
    rows = {m.group(1) for m in re.finditer(r"^\| ([a-z_/]+\.py) \|", table, re.MULTILINE)}
    expected = {f.removeprefix("mqcn_model/") for f in M.whole_files(ROOT)}
    assert expected <= rows, sorted(expected - rows)


def test_a_mutmut_entry_for_a_deleted_line_has_an_empty_to(tmp_path: Path) -> None:
    """mutmut deletes a keyword-argument line: its ``to`` is empty, and it matches only the
    survivor that deleted that line."""
    path = tmp_path / "eq.yaml"
    path.write_text(
        "mutmut:\n  - {file: f.py, function: g, changed: 'judge_body=False,', to: '',"
        " kind: equivalent, reason: r}\n",
        encoding="utf-8",
    )
    (entry,) = M.load_mutmut_equivalents(path)
    deleted = M.MutmutMutant("m", "f.py", "g", "survived", "judge_body=False,", "")
    flipped = M.MutmutMutant("m", "f.py", "g", "survived", "judge_body=False,", "judge_body=True,")
    assert [entry.matches(m) for m in (deleted, flipped)] == [True, False]
