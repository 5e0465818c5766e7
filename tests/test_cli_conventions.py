"""The conventions every ``mqcn`` command keeps (issue 11, items 5 and 6).

``--version``/``-V``, ``-h`` wherever ``--help`` works, ``python -m mqcn_suite``, shell
completion on the root, help (exit 0) for a bare group, booleans shown as flags, the catalog
listing whole when piped and in the report's order, the schema of ``mqcn decode --json``, and
the one table of exit codes the README repeats.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import uuid
from collections.abc import Iterator
from importlib import resources
from importlib.metadata import version
from io import StringIO
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner, Result

import mqcn_suite.cli as cli
from mqcn_model.builders import queue_creation, v1_message, v2_notification
from mqcn_model.catalog import CATALOG
from mqcn_model.codec import body_buffer
from mqcn_model.constants import Event
from mqcn_suite.commands._common import (
    EXIT_MEANINGS,
    ExitCode,
    UsageError,
    boundary,
    parse_int,
    parse_seconds,
    read_user_file,
)
from mqcn_suite.commands.catalog_list import catalog_entries, entries_table
from mqcn_suite.coverage import load_coverage
from mqcn_suite.report import build_traceability
from mqcn_suite.report.writers import group_by_section

ROOT = Path(__file__).resolve().parent.parent
QUEUE = uuid.UUID("0a0b0c0d-0e0f-1011-1213-141516171819")
README = (ROOT / "README.md").read_text("utf-8")
runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(cli.app, list(args))


def command_paths() -> Iterator[list[str]]:
    """Every command and group of the app, as the words that name it (``[]`` is ``mqcn``)."""

    def walk(command: Any, path: list[str]) -> Iterator[list[str]]:
        yield path
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            yield from walk(sub, [*path, name])

    return walk(typer.main.get_command(cli.app), [])


PATHS = list(command_paths())


def test_the_walk_finds_every_command() -> None:
    names = {" ".join(path) for path in PATHS}
    assert {"", "decode", "run", "catalog verify", "corpus generate", "selftest mutation"} <= names
    assert {"fuzz target", "fuzz codec"} <= names
    assert len(PATHS) >= 13


# --- --version, -h, python -m, completion --------------------------------------------------------


@pytest.mark.parametrize("option", ["--version", "-V"])
def test_version_prints_the_distribution_version(option: str) -> None:
    result = invoke(option)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"mqcn {version('mqcn-conformance')}\n"
    assert result.stderr == ""


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "mqcn")
def test_help_shows_flags_as_flags_and_h_is_help(path: list[str]) -> None:
    """No option is shown taking a ``<bool>`` (typer 0.29's rich help does that: pinned out)."""
    long = invoke(*path, "--help")
    short = invoke(*path, "-h")
    assert long.exit_code == short.exit_code == 0, (long.output, short.output)
    assert "Usage: mqcn" in long.stdout
    assert short.stdout == long.stdout
    assert "<bool>" not in long.stdout
    completion = "--install-completion" in long.stdout
    assert completion is (path == []), "completion is offered on the root only"


def test_a_flag_is_listed_without_a_type() -> None:
    line = next(line for line in invoke("decode", "--help").stdout.splitlines() if "--json" in line)
    assert re.search(r"--json\s+Print only a JSON document", line), line


@pytest.mark.parametrize(
    "group", [[], ["corpus"], ["selftest"], ["fuzz"]], ids=["mqcn", "corpus", "selftest", "fuzz"]
)
def test_a_bare_group_prints_its_help_and_exits_0(group: list[str]) -> None:
    result = invoke(*group)
    assert result.exit_code == 0, result.output
    assert result.stdout == invoke(*group, "--help").stdout
    assert "Commands" in result.stdout and result.stderr == ""


def test_the_root_help_says_what_a_bare_mqcn_does() -> None:
    assert "Without a command, this help (exit 0)." in " ".join(invoke("--help").stdout.split())


def test_python_dash_m_runs_the_cli_under_the_name_mqcn() -> None:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    command = [sys.executable, "-m", "mqcn_suite"]
    helped = subprocess.run([*command, "-h"], capture_output=True, text=True, env=env, timeout=60)
    assert helped.returncode == 0, helped.stderr
    assert "Usage: mqcn [OPTIONS] COMMAND" in helped.stdout
    body = body_buffer(v2_notification(Event.CREATE_QUEUE, QUEUE, "dc01"))
    decoded = subprocess.run(
        [*command, "decode", "--hex", body.hex(), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert decoded.returncode == 0, decoded.stderr
    assert json.loads(decoded.stdout)["conforming"] is True
    bad = subprocess.run(
        [*command, "decode", "--hex", "abc"], capture_output=True, text=True, env=env, timeout=60
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("mqcn decode: error: --hex: odd number")


def test_shell_completion_is_offered_and_completes_commands() -> None:
    # Typer finds the shell among this process's ancestors, and pytest may have none (started
    # by a service, or left by the shell that started it): ask from a bash that stays the
    # command's parent (a command after it keeps bash from exec-ing python in its place).
    shown = subprocess.run(
        ["bash", "-c", '"$0" -m mqcn_suite --show-completion; exit $?', sys.executable],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "_MQCN_COMPLETE=complete_bash" in shown.stdout
    env = {**os.environ, "_MQCN_COMPLETE": "complete_bash", "COMP_CWORD": "1"}
    for words, expected in (("mqcn dec", "decode"), ("mqcn catalog v", "verify")):
        env["COMP_WORDS"], env["COMP_CWORD"] = words, str(len(words.split()) - 1)
        completed = subprocess.run(
            [sys.executable, "-m", "mqcn_suite"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert completed.returncode == 0, completed.stderr
        assert completed.stdout.split() == [expected], completed.stdout


# --- mqcn catalog: whole when piped, in the report's order ----------------------------------------


def report_order() -> list[str]:
    """The requirement IDs in the order the HTML report lists them (its own grouping)."""
    document = build_traceability([], target="reference")
    return [r["id"] for s in group_by_section(document["requirements"]) for r in s["requirements"]]


@pytest.mark.parametrize("words", [["catalog"], ["catalog", "list"]])
def test_the_piped_catalog_is_tab_separated_whole_and_in_report_order(words: list[str]) -> None:
    result = invoke(*words)  # CliRunner's stdout is no terminal
    assert result.exit_code == 0, result.output
    header, *rows = result.stdout.splitlines()
    assert header.split("\t") == [
        "id",
        "section",
        "keyword",
        "role",
        "testable",
        "covered",
        "statement",
        "scenarios",
    ]
    cells = [row.split("\t") for row in rows]
    assert all(len(row) == 8 for row in cells)
    assert [row[0] for row in cells] == report_order()
    assert report_order() != list(CATALOG)  # the catalog's own order differs: a real check
    for rid, section, keyword, _, testable, _, statement, _ in cells:
        requirement = CATALOG[rid]
        assert statement == requirement.statement
        assert (section, keyword) == (requirement.section, requirement.keyword)
        assert testable == ("yes" if requirement.testable else "no")
    assert "…" not in result.stdout


def test_the_catalog_in_a_pipe_of_the_real_program_is_not_cut() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "mqcn_suite", "catalog"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "40"},
    )
    assert listed.returncode == 0, listed.stderr
    assert "…" not in listed.stdout
    assert len(listed.stdout.splitlines()) == len(CATALOG) + 1


def _on_a_terminal(args: list[str], columns: int) -> str:
    """What ``python -m mqcn_suite ARGS`` prints on a pseudo-terminal ``columns`` wide."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "xterm"}
    process = subprocess.Popen(
        [sys.executable, "-m", "mqcn_suite", *args], stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                break
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        assert process.wait(timeout=60) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def test_the_catalog_on_a_narrow_terminal_wraps_and_never_cuts() -> None:
    shown = _on_a_terminal(["catalog", "--section", "3.2.5.1"], columns=60)
    assert "┃" in shown and "requirements of [MS-MQCN]" in shown  # the table, not the TSV
    assert "…" not in shown
    coverage = load_coverage()
    for entry in catalog_entries(coverage):  # every statement whole, only folded across lines
        lines = render(entries_table([entry], coverage), width=50).splitlines()
        rows = [line for line in lines if line.startswith("│")]
        bars = [i for i, char in enumerate(rows[0]) if char == "│"]
        column = "".join(row[bars[4] + 1 : bars[5]] for row in rows)
        assert "…" not in column
        assert column.split() == entry["statement"].split() or (
            "".join(column.split()) == "".join(entry["statement"].split())
        ), (column, entry["statement"])


def render(table: Any, width: int) -> str:
    """``table`` rendered by rich ``width`` columns wide, without colour."""
    out = StringIO()
    Console(file=out, width=width, highlight=False, color_system=None).print(table)
    return out.getvalue()


# --- the schema of mqcn decode --json ----------------------------------------------------------


def decode_schema() -> dict[str, Any]:
    text = resources.files("mqcn_suite.report").joinpath("decode.schema.json").read_text("utf-8")
    return json.loads(text)


def validate_decode(document: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(decode_schema()).validate(document)


def test_the_decode_schema_is_a_valid_2020_12_schema() -> None:
    schema = decode_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def _decoded(buf: bytes) -> tuple[int, dict[str, Any]]:
    result = invoke("decode", "--hex", buf.hex(), "--json")
    return result.exit_code, json.loads(result.stdout)


def test_decode_json_of_conforming_nonconforming_and_undecodable_messages_fits_the_schema() -> None:
    update = queue_creation(QUEUE, "host\\orders", master=QUEUE, label="Orders")
    conforming = body_buffer(v1_message([update]))
    non_conforming = body_buffer(v2_notification(Event.CREATE_QUEUE, QUEUE, "dc01"))
    non_conforming = non_conforming[:1] + b"\x02" + non_conforming[2:]  # Version 2, count 2
    undecodable = b"\x03\x01"
    seen = []
    for buf in (conforming, non_conforming, undecodable):
        code, document = _decoded(buf)
        validate_decode(document)
        seen.append((code, document["conforming"], document["message"] is None))
    assert seen == [(0, True, False), (1, False, False), (1, False, True)]


@pytest.mark.parametrize(
    "broken",
    [
        lambda d: d.update(extra=1),
        lambda d: d["message"].update(extra=1),
        lambda d: d["message"]["updates"][0].update(extra=1),
        lambda d: d["message"]["updates"][0]["properties"][0].update(extra=1),
        lambda d: d["message"]["updates"][0]["properties"][0].update(value="not a number"),
        lambda d: d["message"]["updates"][0].update(guid_master_id="NOT-A-GUID"),
        lambda d: d["message"]["updates"][0].update(path_name=None),
        lambda d: d.pop("observations"),
        lambda d: d.update(readings="custom"),
    ],
    ids=[
        "top-extra",
        "message-extra",
        "update-extra",
        "property-extra",
        "property-type",
        "guid-form",
        "use-guid-0-without-path",
        "missing-field",
        "readings",
    ],
)
def test_the_decode_schema_is_closed_and_exact(broken: Any) -> None:
    update = queue_creation(QUEUE, "host\\orders", master=QUEUE)
    code, document = _decoded(body_buffer(v1_message([update])))
    assert code == 0
    assert document["message"]["updates"][0]["properties"][0]["vt"] != "VT_LPWSTR"
    validate_decode(document)
    broken(document)
    with pytest.raises(jsonschema.ValidationError):
        validate_decode(document)


def schema_fields(schema: dict[str, Any]) -> set[str]:
    """Every field path of the schema (``message.updates[].command``...), refs followed."""
    definitions = schema["$defs"]
    paths: set[str] = set()

    def walk(node: dict[str, Any], path: str) -> None:
        if "$ref" in node:
            walk(definitions[node["$ref"].removeprefix("#/$defs/")], path)
        for option in node.get("oneOf", []):
            walk(option, path)
        for name, sub in node.get("properties", {}).items():
            field = f"{path}.{name}" if path else name
            paths.add(field)
            walk(sub, field)
        if isinstance(node.get("items"), dict):
            paths.add(f"{path}[]")
            walk(node["items"], f"{path}[]")

    walk(schema, "")
    return paths - {p for p in paths if not p.endswith("[]") and f"{p}[]" in paths}


def test_the_readme_documents_every_decode_field_and_nothing_more() -> None:
    section = README.split("### `mqcn decode`", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    documented = {name for row in rows for name in re.findall(r"`([^`]+)`", row.split(" | ")[0])}
    assert documented == schema_fields(decode_schema())


# --- exit codes: one table ---------------------------------------------------------------------


def test_the_readme_lists_every_exit_code_once_with_its_meaning() -> None:
    section = README.split("### Conventions of the `mqcn` command line", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \|", section, flags=re.MULTILINE)
    assert [(int(code), meaning.strip()) for code, meaning in rows] == [
        (int(code), meaning) for code, meaning in EXIT_MEANINGS.items()
    ]
    assert set(EXIT_MEANINGS) == set(ExitCode)


def test_the_root_help_lists_every_exit_code() -> None:
    text = " ".join(invoke("--help").stdout.split())
    for code, meaning in EXIT_MEANINGS.items():
        assert f"{int(code)} {' '.join(meaning.split())}" in text


# --- the shared plumbing -------------------------------------------------------------------------


class _Refused(Exception):
    pass


def _through_boundary(error: BaseException, **options: Any) -> tuple[int, str]:
    app = typer.Typer()

    @app.command()
    def raising() -> None:
        with boundary("x", **options):
            raise error

    result = runner.invoke(app, [])
    assert result.stdout == "" and "Traceback" not in result.output
    return result.exit_code, result.stderr


def test_the_boundary_maps_each_failure_to_one_line_and_its_code() -> None:
    assert _through_boundary(UsageError("bad")) == (2, "mqcn x: error: bad\n")
    assert _through_boundary(_Refused("no"), usage_errors=(_Refused,)) == (2, "mqcn x: error: no\n")
    assert _through_boundary(_Refused("a\nb\nc")) == (3, "mqcn x: internal error: _Refused: a\n")
    assert _through_boundary(RuntimeError()) == (3, "mqcn x: internal error: RuntimeError\n")
    assert _through_boundary(KeyboardInterrupt()) == (130, "mqcn x: interrupted\n")
    assert _through_boundary(typer.Exit(4)) == (4, "")


def test_numbers_and_files_of_the_user_are_named_in_one_line(tmp_path: Path) -> None:
    assert parse_int("--count", "1_000") == 1000
    with pytest.raises(UsageError, match=r"^--count 'many': not an integer$"):
        parse_int("--count", "many")
    with pytest.raises(UsageError, match=r"^--count is required$"):
        parse_int("--count", None)
    with pytest.raises(UsageError, match=r"^--timeout 'inf': not a finite number$"):
        parse_seconds("--timeout", "inf")
    with pytest.raises(UsageError, match=r"^--timeout: must be a positive number of seconds"):
        parse_seconds("--timeout", "0")
    with pytest.raises(UsageError, match=r"is a directory, not a file$"):
        read_user_file("--spec", str(tmp_path))
    with pytest.raises(UsageError, match=r": no such file$"):
        read_user_file("--spec", str(tmp_path / "missing"))


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [
        (["run"], "--timeout", "soon"),
        (["run"], "--timeout", "0"),
        (["run"], "--max-timeouts", "three"),
        (["pics"], "--timeout", "nan"),
    ],
)
def test_a_bad_number_for_run_or_pics_is_one_line_naming_the_option(
    command: list[str], option: str, value: str, tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        cli.app,
        [*command, option, value, *(["--report", str(tmp_path)] if command == ["run"] else [])],
    )
    assert result.exit_code == ExitCode.USAGE, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and value in lines[0], result.output


def test_pics_refuses_an_unwritable_out_before_the_target_starts(tmp_path: Path) -> None:
    started = tmp_path / "started"
    target = f"exec:{sys.executable} -c \"open({str(started)!r}, 'w')\""
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    result = CliRunner().invoke(
        cli.app, ["pics", "--target", target, "--out", str(blocked / "pics.yaml")]
    )
    assert result.exit_code == ExitCode.USAGE, result.output
    assert "--out" in result.output and "not a directory" in result.output
    assert not started.exists(), "the target was started although --out could not be written"
