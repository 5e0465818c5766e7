"""Coverage of the catalog by the feature files, and ``mqcn catalog list``.

The first tests hold the suite to its own rules: every testable MUST / MUST NOT has a scenario,
every tag that looks like a requirement ID is one, every feature file has a scenario.  The
others check the coverage parser (:mod:`mqcn_suite.coverage`) on small feature files written
for the purpose, and the listing command.
"""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest
import typer
from fake_ids import NOT_AN_ID, OTHER_NOT_AN_ID, SHORT_NOT_AN_ID
from rich.console import Console
from typer.testing import CliRunner, Result

from mqcn_model.catalog import CATALOG
from mqcn_suite.commands.catalog_list import (
    LIST_HELP,
    catalog_entries,
    catalog_list,
    entries_table,
)
from mqcn_suite.coverage import CoverageError, default_features_dir, load_coverage

# The command as the lead registers it (``mqcn catalog list``) on a small app of its own.
app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
catalog_app = typer.Typer()
catalog_app.command("list", help=LIST_HELP)(catalog_list)
app.add_typer(catalog_app, name="catalog")
runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def write_feature(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# --- the suite's own feature files -------------------------------------------------------------


@pytest.fixture(scope="module")
def suite_coverage():
    return load_coverage()  # raises CoverageError for a tag naming no requirement


def test_every_tag_that_looks_like_an_id_is_a_catalog_id(suite_coverage) -> None:
    for scenario in suite_coverage.scenarios:
        assert set(scenario.requirements) <= set(CATALOG), scenario


def test_every_testable_must_has_a_scenario(suite_coverage) -> None:
    by_requirement = suite_coverage.by_requirement()
    missing = [
        f"{r.id} [{r.keyword}] {r.statement}"
        for r in CATALOG.values()
        if r.testable and r.is_mandatory and not by_requirement[r.id]
    ]
    assert not missing, f"{len(missing)} testable MUST/MUST NOT without a scenario:\n" + "\n".join(
        missing
    )


def test_every_feature_file_has_a_scenario(suite_coverage) -> None:
    assert suite_coverage.features, f"no feature file in {default_features_dir()}"
    empty = [f.feature for f in suite_coverage.features if f.scenarios == 0]
    assert not empty, f"feature files without a scenario: {empty}"


def test_every_scenario_is_tagged_with_a_requirement(suite_coverage) -> None:
    untagged = [
        f"{s.feature}:{s.line} {s.name}" for s in suite_coverage.scenarios if not s.requirements
    ]
    assert not untagged, "scenarios that check no requirement:\n" + "\n".join(untagged)


# --- the parser ----------------------------------------------------------------------------------


def test_scenario_feature_rule_and_examples_tags_are_collected(tmp_path: Path) -> None:
    write_feature(
        tmp_path / "features",
        "a.feature",
        """\
        @MQCN-2.2.4-3
        Feature: tags at every level
          Own words.

          @MQCN-3.2.5.1-4 @slow
          Scenario: plain
            Given something

          Rule: a rule
            @MQCN-3.2.5.1-13
            Scenario Outline: outline <n>
              Given <n>

              @MQCN-3.2.5.1-12
              Examples: first
                | n |
                | 1 |
                | 2 |

              Examples: second
                | n |
                | 3 |
        """,
    )
    coverage = load_coverage(tmp_path / "features")
    plain, outline = coverage.scenarios
    assert plain.requirements == ("MQCN-2.2.4-3", "MQCN-3.2.5.1-4")
    assert (plain.feature, plain.line, plain.examples) == ("features/a.feature", 6, 0)
    assert outline.name == "outline <n>"
    assert outline.examples == 3
    assert set(outline.requirements) == {"MQCN-2.2.4-3", "MQCN-3.2.5.1-12", "MQCN-3.2.5.1-13"}
    # catalog order, not tag order
    order = list(CATALOG)
    assert list(outline.requirements) == sorted(outline.requirements, key=order.index)
    mapping = coverage.by_requirement()
    assert list(mapping) == list(CATALOG)
    assert [s.name for s in mapping["MQCN-2.2.4-3"]] == ["plain", "outline <n>"]
    assert mapping["MQCN-2.2.2-1"] == []
    assert [(f.feature, f.scenarios) for f in coverage.features] == [("features/a.feature", 2)]


@pytest.mark.parametrize(
    ("tag", "hint"),
    [
        ("@" + NOT_AN_ID, "did you mean @MQCN-3.2.5.1-9"),
        ("@mqcn-3.2.5.1-4", "did you mean @MQCN-3.2.5.1-4"),
        ("@MQCN_3.2.5.1-4", "did you mean @MQCN-3.2.5.1-4"),
        ("@" + OTHER_NOT_AN_ID, "names no requirement"),
    ],
)
def test_a_tag_naming_no_requirement_is_an_error_with_file_and_line(
    tmp_path: Path, tag: str, hint: str
) -> None:
    write_feature(
        tmp_path / "features",
        "bad.feature",
        f"""\
        Feature: bad tag

          {tag}
          Scenario: one
            Given something
        """,
    )
    with pytest.raises(CoverageError) as caught:
        load_coverage(tmp_path / "features")
    message = str(caught.value)
    assert f"features/bad.feature:3: tag {tag}" in message
    assert hint in message


def test_other_tags_are_ignored(tmp_path: Path) -> None:
    write_feature(
        tmp_path / "f", "x.feature", "Feature: x\n  @wip @MQCNish\n  Scenario: s\n    Given g\n"
    )
    assert load_coverage(tmp_path / "f").scenarios[0].requirements == ()


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    directory = tmp_path / "features"
    write_feature(
        directory, "a.feature", f"Feature: a\n  @{SHORT_NOT_AN_ID}\n  Scenario: s\n    Given g\n"
    )
    write_feature(
        directory,
        "b.feature",
        "Feature: b\n  Scenario: s\n    Given g\n  Scenario: s\n    Given h\n",
    )
    write_feature(
        directory, "c.feature", "Feature: c\n  Scenario: s\n    Given g\n  Feature: again\n"
    )
    with pytest.raises(CoverageError) as caught:
        load_coverage(directory)
    message = str(caught.value)
    assert message.startswith("3 problems in the feature files:")
    assert f"features/a.feature:2: tag @{SHORT_NOT_AN_ID}" in message
    assert "features/b.feature:4: scenario 's' has the same name as the one at line 2" in message
    assert "features/c.feature:4: cannot parse" in message


def test_missing_directory_empty_file_and_feature_without_scenario(tmp_path: Path) -> None:
    assert load_coverage(tmp_path / "nothing").scenarios == []
    write_feature(tmp_path / "f", "none.feature", "Feature: nothing yet\n  Own words.\n")
    coverage = load_coverage(tmp_path / "f")
    assert [(f.feature, f.scenarios) for f in coverage.features] == [("f/none.feature", 0)]
    write_feature(tmp_path / "f", "empty.feature", "# only a comment\n")
    with pytest.raises(CoverageError, match=r"f/empty.feature:1: no 'Feature:' in the file"):
        load_coverage(tmp_path / "f")


# --- mqcn catalog list ---------------------------------------------------------------------------


def test_catalog_list_json_has_one_object_per_catalog_entry() -> None:
    result = invoke("catalog", "list", "--json")
    assert result.exit_code == 0, result.stderr
    entries = json.loads(result.stdout)
    assert [e["id"] for e in entries] == list(CATALOG)
    coverage = load_coverage().by_requirement()
    for entry in entries:
        requirement = CATALOG[entry["id"]]
        assert {"id", "section", "keyword", "role", "statement", "testable", "scenarios"} <= set(
            entry
        )
        assert entry["section"] == requirement.section
        assert entry["keyword"] == requirement.keyword
        assert entry["role"] == requirement.role
        assert entry["statement"] == requirement.statement
        assert entry["testable"] is requirement.testable
        assert entry["covered"] is bool(entry["scenarios"])
        assert [s["name"] for s in entry["scenarios"]] == [s.name for s in coverage[entry["id"]]]
        for scenario in entry["scenarios"]:
            assert set(scenario) == {"feature", "name", "line"}
            assert scenario["feature"].endswith(".feature")


def test_catalog_list_filters(tmp_path: Path) -> None:
    write_feature(
        tmp_path / "features",
        "a.feature",
        "Feature: a\n  @MQCN-3.2.5.1-4\n  Scenario: s\n    Given g\n",
    )
    result = invoke(
        "catalog",
        "list",
        "--json",
        "--section",
        "3.2.5.1",
        "--features",
        str(tmp_path / "features"),
    )
    assert result.exit_code == 0, result.stderr
    entries = json.loads(result.stdout)
    assert [e["id"] for e in entries] == [r.id for r in CATALOG.in_section("3.2.5.1")]
    by_id = {e["id"]: e for e in entries}
    assert by_id["MQCN-3.2.5.1-4"]["scenarios"] == [
        {"feature": "features/a.feature", "name": "s", "line": 3}
    ]
    result = invoke(
        "catalog", "list", "--json", "--uncovered", "--features", str(tmp_path / "features")
    )
    uncovered = [e["id"] for e in json.loads(result.stdout)]
    assert "MQCN-3.2.5.1-4" not in uncovered
    assert all(CATALOG[rid].testable for rid in uncovered)
    assert len(uncovered) == sum(r.testable for r in CATALOG.values()) - 1


def test_catalog_list_human_table() -> None:
    coverage = load_coverage()
    out = io.StringIO()  # the table is for terminals; a pipe gets tab-separated lines
    Console(file=out, width=120).print(entries_table(catalog_entries(coverage), coverage))
    assert "requirements of [MS-MQCN]" in out.getvalue()
    assert "MQCN-2.2.4-3" in out.getvalue()
    result = invoke("catalog", "list")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("id\tsection\t")
    assert "\nMQCN-2.2.4-3\t" in result.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--section", "9.9"], "--section: no requirement in section '9.9'"),
        (["--features", "/no/such/dir"], "--features: /no/such/dir is not a directory"),
    ],
)
def test_catalog_list_usage_errors(args: list[str], fragment: str) -> None:
    result = invoke("catalog", "list", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"mqcn catalog list: error: {fragment}")
    assert len(result.stderr.splitlines()) == 1


def test_catalog_list_refuses_a_bad_tag(tmp_path: Path) -> None:
    write_feature(
        tmp_path / "f", "a.feature", f"Feature: a\n  @{NOT_AN_ID}\n  Scenario: s\n    Given g\n"
    )
    result = invoke("catalog", "list", "--features", str(tmp_path / "f"))
    assert result.exit_code == 2
    assert f"f/a.feature:2: tag @{NOT_AN_ID} names no requirement" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_catalog_entries_is_the_json_of_the_command(tmp_path: Path) -> None:
    coverage = load_coverage(tmp_path / "none")
    entries = catalog_entries(coverage)
    assert len(entries) == len(CATALOG)
    assert all(e["scenarios"] == [] and e["covered"] is False for e in entries)
