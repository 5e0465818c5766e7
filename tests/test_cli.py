"""Tests of ``mqcn decode``: exit codes, human and JSON output, usage errors, robustness.

Most tests drive the typer app in-process through ``CliRunner``; the ``subprocess`` ones run
the installed ``mqcn`` console script, as a user would.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import uuid
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

import mqcn_suite.cli as cli
import mqcn_suite.commands.decode as decode_command
from mqcn_model.builders import (
    machine_update,
    queue_creation,
    queue_creation_properties,
    queue_deletion,
    queue_update,
    v1_message,
    v2_notification,
)
from mqcn_model.catalog import CATALOG
from mqcn_model.codec import (
    NotificationBody,
    NotificationUpdate,
    body_buffer,
    decode_message,
    encode_body,
    encode_message,
)
from mqcn_model.constants import Event, PropId

MASTER = uuid.UUID("11111111-2222-3333-4444-555555555555")
QUEUE = uuid.UUID("0a0b0c0d-0e0f-1011-1213-141516171819")
QM = uuid.UUID("99999999-8888-7777-6666-555555555555")
AUTH_NONE = "MQCN-3.2.5.1-4"  # one requirement: a run of a few scenarios

runner = CliRunner()
DECODE_SCHEMA = jsonschema.Draft202012Validator(
    json.loads(
        resources.files("mqcn_suite.report").joinpath("decode.schema.json").read_text("utf-8")
    )
)


# --- helpers ---------------------------------------------------------------------------------


def invoke(*args: str) -> Result:
    """Run ``mqcn <args>`` in-process (exceptions are caught by the runner, never raised)."""
    return runner.invoke(cli.app, list(args))


def decode_json(buf: bytes, *extra: str) -> tuple[int, dict[str, Any]]:
    """``mqcn decode --hex <buf> --json``: the exit code and the parsed document."""
    result = invoke("decode", "--hex", buf.hex(), "--json", *extra)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.stderr == ""
    return result.exit_code, json.loads(result.stdout)


def ids_and_offsets(document: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(v["requirement"], v["offset"]) for v in document["violations"]]


def v1_conforming() -> bytes:
    """A Version 1 message with one update of each kind (without the spare byte)."""
    return encode_message(
        v1_message(
            [
                queue_creation(QUEUE, "host\\orders", master=MASTER, label="Orders"),
                queue_update(QUEUE, QM, {PropId.PROPID_Q_QUOTA: 512}, master=MASTER),
                machine_update(QM, {PropId.PROPID_QM_QUOTA: 1024}, master=MASTER),
                queue_deletion(QUEUE, master=MASTER),
            ]
        )
    )


def v2_conforming() -> bytes:
    """A Version 2 message (without the spare byte)."""
    return encode_message(v2_notification(Event.CHANGE_QUEUE, QUEUE, "dc01.example.com"))


def creation_message(**attributes: object) -> bytes:
    return body_buffer(
        v1_message([queue_creation(QUEUE, "host\\orders", master=MASTER, **attributes)])
    )


def label_update() -> bytes:
    """A queue update that changes PROPID_Q_LABEL: strict breaks 3.3.5.2-18 (errata E-11)."""
    update = queue_update(QUEUE, QM, {PropId.PROPID_Q_LABEL: "renamed"}, master=MASTER)
    return body_buffer(v1_message([update]))


def objectguid_with_space() -> bytes:
    """A Version 2 body closing ObjectGuid as the ABNF spells it, ``</ObjectGuid >`` (E-01)."""
    body = NotificationBody(int(Event.CREATE_QUEUE), QUEUE, "dc01")
    return b"\x02\x01" + encode_body(body, close_with_space=True) + b"\x00"


def assert_usage_error(result: Result, *fragments: str) -> None:
    """Exit 2, nothing on stdout, one line on stderr naming the problem, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mqcn decode: error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)


# --- conforming messages -----------------------------------------------------------------------


@pytest.mark.parametrize("build", [v1_conforming, v2_conforming], ids=["v1", "v2"])
def test_conforming_with_and_without_spare_byte_same_verdict(build: Any) -> None:
    wire = build()
    code_bare, bare = decode_json(wire)
    code_spare, spare = decode_json(wire + b"\x00")
    assert code_bare == code_spare == 0
    assert bare["conforming"] is spare["conforming"] is True
    assert bare["violations"] == spare["violations"] == []
    assert bare["observations"] == spare["observations"]
    assert (bare["size"], spare["size"]) == (len(wire), len(wire) + 1)
    assert bare["message"]["trailing"] == ""
    assert spare["message"]["trailing"] == "00"
    bare["message"].pop("trailing")
    spare["message"].pop("trailing")
    assert bare["message"] == spare["message"]
    assert bare["readings"] == spare["readings"] == "strict"


def test_conforming_v1_json_shows_the_decoded_updates() -> None:
    code, document = decode_json(v1_conforming() + b"\x00")
    assert code == 0
    message = document["message"]
    assert (message["version"], message["number_of_update_notifications"]) == (1, 4)
    assert [u["command"] for u in message["updates"]] == [0, 1, 1, 2]
    creation = message["updates"][0]
    assert creation["path_name"] == "host\\orders"
    assert creation["guid_master_id"] == str(MASTER)
    assert creation["number_of_properties"] == 15
    label = next(p for p in creation["properties"] if p["name"] == "PROPID_Q_LABEL")
    assert label == {"propid": 108, "name": "PROPID_Q_LABEL", "vt": "VT_LPWSTR", "value": "Orders"}


def test_conforming_v1_human_output() -> None:
    result = invoke("decode", "--hex", (v1_conforming() + b"\x00").hex())
    assert result.exit_code == 0
    out = result.stdout
    assert "Version                      0x01 (directory service)" in out
    assert "NumberOfUpdateNotifications  4" in out
    assert "Update 1 of 4 (bytes 2-" in out
    assert "Command 0x00 (create), UseGuid 0x00" in out
    assert '"host\\orders"' in out
    for name, vt in [("PROPID_Q_LABEL", "VT_LPWSTR"), ("PROPID_Q_SECURITY", "VT_BLOB")]:
        line = next(line for line in out.splitlines() if name in line)
        assert vt in line
    assert '"Orders"' in out
    assert "Trailing bytes  00 (the unused byte" in out
    assert "CONFORMING - no MUST or MUST NOT broken" in out
    assert "NOT CONFORMING" not in out
    assert result.stderr == ""


def test_conforming_v2_human_output() -> None:
    result = invoke("decode", "--hex", v2_conforming().hex())
    assert result.exit_code == 0
    out = result.stdout
    assert "0x02 (queue manager)" in out
    assert "Notification Body" in out
    assert "Event             2 (change queue)" in out
    assert f"ObjectGuid        {QUEUE}" in out
    assert "DomainController  dc01.example.com" in out
    assert "Trailing bytes  none" in out


def test_observations_are_notes_not_failures() -> None:
    """A non-zero Reserved is a MAY (MQCN-2.2.6-8): listed, but the message still conforms."""
    update = queue_update(QUEUE, QM, {PropId.PROPID_Q_QUOTA: 1}, master=MASTER)
    buf = body_buffer(v1_message([dataclasses.replace(update, reserved=b"\x07" * 24)]))
    code, document = decode_json(buf)
    assert code == 0
    assert document["conforming"] is True
    assert document["violations"] == []
    assert document["observations"] == [
        {
            "requirement": "MQCN-2.2.6-8",
            # Reserved follows Command, UseGuid, GuidIdentifier and GuidMasterId: 2 + 2 + 16 + 16
            "offset": 36,
            "message": "Reserved is not all zero (allowed; the server ignores it)",
            "severity": "info",
        }
    ]
    human = invoke("decode", "--hex", buf.hex())
    assert human.exit_code == 0
    assert "Notes (SHOULD/MAY; they do not affect conformance):" in human.stdout
    assert "MQCN-2.2.6-8 at byte 36: Reserved is not all zero" in human.stdout
    assert "Reserved            " + "07" * 24 in human.stdout


# --- non-conforming messages -------------------------------------------------------------------


def _security_value_offset(buf: bytes) -> int:
    message = decode_message(buf)
    prop = next(p for p in message.updates[0].properties if p.propid == PropId.PROPID_Q_SECURITY)
    return prop.value_offset


def _without(propid: PropId) -> bytes:
    props = [p for p in queue_creation_properties(QUEUE, "host\\orders") if p[0] != propid]
    return body_buffer(
        v1_message([NotificationUpdate.creation("host\\orders", props, master=MASTER)])
    )


def test_bad_version() -> None:
    code, document = decode_json(b"\x03" + v2_conforming()[1:])
    assert code == 1
    assert document["conforming"] is False
    assert document["message"] is None
    assert ids_and_offsets(document) == [("MQCN-2.2.4-1", 0)]
    assert document["violations"][0]["severity"] == "error"
    assert "0x03" in document["violations"][0]["message"]


def test_v2_count_two() -> None:
    buf = bytearray(body_buffer(v2_notification(Event.CREATE_QUEUE, QUEUE, "dc01")))
    buf[1] = 2
    code, document = decode_json(bytes(buf))
    assert code == 1
    assert ids_and_offsets(document) == [("MQCN-2.2.4-3", 1), ("MQCN-3.3.5.1-7", 1)]
    assert document["message"]["number_of_update_notifications"] == 2
    assert document["message"]["body"]["object_guid"] == str(QUEUE)


def test_truncated_blob() -> None:
    full = creation_message()
    at = _security_value_offset(full)
    code, document = decode_json(full[: at + 4 + 10])  # Size says 20, 10 bytes follow
    assert code == 1
    assert document["message"] is None
    assert ids_and_offsets(document) == [("MQCN-2.2.3.11-3", at)]
    assert "PROPID_Q_SECURITY" in document["violations"][0]["message"]


def test_blob_size_beyond_the_message() -> None:
    buf = bytearray(creation_message())
    at = _security_value_offset(bytes(buf))
    buf[at : at + 4] = b"\xff\xff\xff\xff"
    code, document = decode_json(bytes(buf))
    assert code == 1
    assert ids_and_offsets(document) == [("MQCN-2.2.3.11-3", at)]


def test_creation_lacking_a_propid() -> None:
    code, document = decode_json(_without(PropId.PROPID_Q_LABEL))
    assert code == 1
    assert ids_and_offsets(document) == [("MQCN-3.3.5.2-14", 2)]
    assert "PROPID_Q_LABEL" in document["violations"][0]["message"]
    assert document["message"]["updates"][0]["number_of_properties"] == 14


def test_empty_hex_breaks_the_version_requirement() -> None:
    result = invoke("decode", "--hex", "", "--json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["size"] == 0
    assert ids_and_offsets(document) == [("MQCN-2.2.4-1", 0)]


def test_non_conforming_human_output_names_id_offset_sentence_and_statement() -> None:
    result = invoke("decode", "--hex", _without(PropId.PROPID_Q_LABEL).hex())
    assert result.exit_code == 1
    out = result.stdout
    assert "NOT CONFORMING - 1 requirement broken:" in out
    assert "x MQCN-3.3.5.2-14 at byte 2: queue creation lacks PROPID_Q_LABEL" in out
    requirement = CATALOG["MQCN-3.3.5.2-14"]
    assert f"{requirement.keyword}, 3.3.5.2: {requirement.statement}" in out
    assert "Update 1 of 1" in out  # the structure decoded, so it is shown too
    assert result.stderr == ""


def test_undecodable_human_output() -> None:
    result = invoke("decode", "--hex", "0300")
    assert result.exit_code == 1
    assert "cannot be decoded" in result.stdout
    assert "MQCN-2.2.4-1 at byte 0: Version is 0x03" in result.stdout


def test_rich_markup_in_message_text_is_printed_literally() -> None:
    buf = creation_message(label="[bold red]x[/bold red]")
    result = invoke("decode", "--hex", buf.hex())
    assert result.exit_code == 0
    assert '"[bold red]x[/bold red]"' in result.stdout


# --- strict and lenient ------------------------------------------------------------------------


def _objectguid_expectation(buf: bytes) -> list[tuple[str, int]]:
    close = buf.index("</ObjectGuid ".encode("utf-16-le"))
    return [("MQCN-2.2.5-6", close)]


def _label_expectation(buf: bytes) -> list[tuple[str, int]]:
    update = decode_message(buf).updates[0]
    label = next(p for p in update.properties if p.propid == PropId.PROPID_Q_LABEL)
    return [("MQCN-3.3.5.2-18", label.id_offset)]


@pytest.mark.parametrize(
    ("build", "expectation"),
    [(objectguid_with_space, _objectguid_expectation), (label_update, _label_expectation)],
    ids=["E-01-objectguid-close-with-space", "E-11-queue-update-label"],
)
def test_lenient_flips_an_errata_case(build: Any, expectation: Any) -> None:
    buf = build()
    strict_code, strict = decode_json(buf)
    lenient_code, lenient = decode_json(buf, "--lenient")
    assert (strict_code, lenient_code) == (1, 0)
    assert (strict["readings"], lenient["readings"]) == ("strict", "lenient")
    assert ids_and_offsets(strict) == expectation(buf)
    assert strict["conforming"] is False
    assert lenient["conforming"] is True
    assert lenient["violations"] == []


def test_lenient_human_output_says_lenient() -> None:
    result = invoke("decode", "--hex", objectguid_with_space().hex(), "--lenient")
    assert result.exit_code == 0
    assert "lenient readings" in result.stdout.splitlines()[0]


def test_lone_surrogate_is_escaped_in_both_outputs() -> None:
    """Lenient E-07 lets a lone surrogate through: neither output may choke on it, and the
    JSON keeps the code unit as its escape (never U+FFFD; docs/adapter-protocol.md)."""
    buf = creation_message(label="a\ud800b")
    code, document = decode_json(buf, "--lenient")
    assert code == 0
    label = next(p for p in document["message"]["updates"][0]["properties"] if p["propid"] == 108)
    assert label["value"] == "a\ud800b"
    human = invoke("decode", "--hex", buf.hex(), "--lenient")
    assert human.exit_code == 0
    assert '"a\\ud800b"' in human.stdout
    strict_code, strict = decode_json(buf)
    assert strict_code == 1
    assert [v["requirement"] for v in strict["violations"]] == ["MQCN-2.2.3.10-2"]


# --- input forms -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling",
    [
        lambda h: h.upper(),
        lambda h: "0x" + h,
        lambda h: "  0X" + " ".join(h[i : i + 2] for i in range(0, len(h), 2)) + "\n",
        lambda h: "\n".join(h[i : i + 32] for i in range(0, len(h), 32)),
        lambda h: h[:10] + "\t \r\n" + h[10:],
    ],
    ids=["upper", "0x", "0X-spaced-bytes", "lines", "tabs"],
)
def test_hex_spellings_give_the_same_document(spelling: Any) -> None:
    wire = body_buffer(v2_notification(Event.DELETE_QUEUE, QUEUE, "dc01"))
    plain = invoke("decode", "--hex", wire.hex(), "--json")
    spelled = invoke("decode", "--hex", spelling(wire.hex()), "--json")
    assert plain.exit_code == spelled.exit_code == 0
    assert json.loads(plain.stdout) == json.loads(spelled.stdout)


def test_file_input_is_binary(tmp_path: Path) -> None:
    """Bytes that text mode would mangle (CR LF, 0x1a, high bytes) reach the judge intact."""
    wire = creation_message(label="line\r\nbreak\x1a\u00e9")
    path = tmp_path / "body.bin"
    path.write_bytes(wire)
    from_file = invoke("decode", "--file", str(path), "--json")
    from_hex = invoke("decode", "--hex", wire.hex(), "--json")
    assert from_file.exit_code == from_hex.exit_code
    document = json.loads(from_file.stdout)
    assert document == json.loads(from_hex.stdout)
    assert document["size"] == len(wire)
    label = next(p for p in document["message"]["updates"][0]["properties"] if p["propid"] == 108)
    assert label["value"] == "line\r\nbreak\x1a\u00e9"


def test_file_input_non_conforming(tmp_path: Path) -> None:
    path = tmp_path / "bad.bin"
    path.write_bytes(b"\x01\x02")
    result = invoke("decode", "--file", str(path), "--json")
    assert result.exit_code == 1
    assert ids_and_offsets(json.loads(result.stdout)) == [("MQCN-2.2.4-2", 1)]


# --- usage errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--hex", "020"], ["odd number of hex digits (3)"]),
        (["--hex", "0x0"], ["odd number of hex digits (1)"]),
        (["--hex", "02zz"], ["character 3 ('z')", "not a hexadecimal digit"]),
        (["--hex", "0x02 0x01"], ["character 7 ('x')"]),
        (["--hex", "02\x0101"], ["U+0001"]),
        (["--hex", "-1"], ["'-'"]),
        ([], ["--hex HEX or --file PATH"]),
        (["--json"], ["--hex HEX or --file PATH"]),
        (["--hex", "0201", "--file", "x.bin"], ["either --hex or --file, not both"]),
        (["--hex", "", "--file", ""], ["not both"]),
        (["--file", ""], ["--file: the path is empty"]),
    ],
    ids=[
        "odd",
        "odd-after-0x",
        "non-hex",
        "second-0x",
        "control-char",
        "minus",
        "neither",
        "neither-json",
        "both",
        "both-empty",
        "empty-path",
    ],
)
def test_usage_errors(args: list[str], fragments: list[str]) -> None:
    assert_usage_error(invoke("decode", *args), *fragments)


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.bin"
    assert_usage_error(invoke("decode", "--file", str(missing)), str(missing), "no such file")


def test_directory(tmp_path: Path) -> None:
    assert_usage_error(invoke("decode", "--file", str(tmp_path)), "is a directory")


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "locked.bin"
    path.write_bytes(b"\x01\x00")

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)  # root ignores chmod 000
    assert_usage_error(invoke("decode", "--file", str(path)), "permission denied")


def test_other_os_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Path) -> bytes:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(Path, "read_bytes", broken)
    assert_usage_error(
        invoke("decode", "--file", str(tmp_path / "x")), "cannot read (Input/output error)"
    )


def test_internal_error_is_one_line_exit_3(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(buf: bytes, readings: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(decode_command, "judge", explode)
    result = invoke("decode", "--hex", "0201", "--json")
    assert result.exit_code == 3
    assert result.stdout == ""
    assert result.stderr == "mqcn decode: internal error: RuntimeError: boom\n"


def test_help_lists_decode() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    assert "MS-MQCN" in result.stdout
    assert "decode" in result.stdout
    sub = invoke("decode", "--help")
    assert sub.exit_code == 0
    for option in ("--hex", "--file", "--json", "--lenient"):
        assert option in sub.stdout


# --- robustness --------------------------------------------------------------------------------

_SEEDS = [v1_conforming() + b"\x00", v2_conforming() + b"\x00", creation_message(), label_update()]


def _mutate(seed: bytes, flips: list[tuple[int, int]], cut: int | None) -> bytes:
    """``seed`` with some bytes overwritten and, if ``cut`` is given, truncated."""
    out = bytearray(seed)
    for position, value in flips:
        out[position % len(out)] = value
    return bytes(out if cut is None else out[: cut % (len(out) + 1)])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    buf=st.one_of(
        st.binary(max_size=300),
        st.tuples(st.sampled_from([1, 2]), st.integers(0, 255), st.binary(max_size=200)).map(
            lambda t: bytes(t[:2]) + t[2]
        ),
        st.tuples(
            st.sampled_from(_SEEDS),
            st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=4),
            st.none() | st.integers(0, 10_000),
        ).map(lambda t: _mutate(*t)),
    ),
    json_output=st.booleans(),
    lenient=st.booleans(),
)
def test_any_bytes_give_a_verdict_never_a_traceback(
    buf: bytes, json_output: bool, lenient: bool
) -> None:
    args = ["decode", "--hex", buf.hex()]
    args += ["--json"] if json_output else []
    args += ["--lenient"] if lenient else []
    result = invoke(*args)
    assert result.exit_code in (0, 1), (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr == ""
    assert "Traceback" not in result.output
    if json_output:
        document = json.loads(result.stdout)
        DECODE_SCHEMA.validate(document)
        assert document["conforming"] is (result.exit_code == 0)
        assert document["size"] == len(buf)
        assert bool(document["violations"]) is (result.exit_code == 1)
    else:
        marker = "CONFORMING" if result.exit_code == 0 else "NOT CONFORMING"
        assert marker in result.stdout


# --- the installed console script --------------------------------------------------------------


def _console_script() -> str:
    beside = Path(sys.executable).with_name("mqcn")
    found = str(beside) if beside.exists() else shutil.which("mqcn")
    assert found, "the mqcn console script is not installed (pip install -e .)"
    return found


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [_console_script(), *args], capture_output=True, text=True, timeout=60, env=env
    )


def test_console_script_json_verdicts() -> None:
    good = _run("decode", "--hex", (v2_conforming() + b"\x00").hex(), "--json")
    assert good.returncode == 0, good.stderr
    assert good.stderr == ""
    assert json.loads(good.stdout)["conforming"] is True
    bad = _run("decode", "--hex", _without(PropId.PROPID_Q_LABEL).hex(), "--json")
    assert bad.returncode == 1
    assert ids_and_offsets(json.loads(bad.stdout)) == [("MQCN-3.3.5.2-14", 2)]


def test_console_script_usage_error_and_file(tmp_path: Path) -> None:
    odd = _run("decode", "--hex", "abc")
    assert odd.returncode == 2
    assert odd.stdout == ""
    assert odd.stderr.strip().splitlines() == [
        "mqcn decode: error: --hex: odd number of hex digits (3); every byte needs two digits"
    ]
    path = tmp_path / "v1.bin"
    path.write_bytes(v1_conforming() + b"\x00")
    human = _run("decode", "--file", str(path))
    assert human.returncode == 0, human.stderr
    assert "CONFORMING - no MUST or MUST NOT broken" in human.stdout
    assert "Traceback" not in human.stderr


# --- the other commands, as the installed app registers them ---------------------------------

SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec" / "MS-MQCN.md"


def test_catalog_on_its_own_lists_the_catalog_as_json() -> None:
    result = invoke("catalog", "--json")
    assert result.exit_code == 0, result.output
    entries = json.loads(result.stdout)
    assert len(entries) == len(CATALOG)
    for entry in entries:
        assert {"id", "section", "keyword", "role", "statement", "testable", "scenarios"} <= set(
            entry
        )
        assert entry["id"] in CATALOG
    assert json.loads(invoke("catalog", "list", "--json").stdout) == entries


def test_catalog_section_filter_and_usage_error() -> None:
    result = invoke("catalog", "--section", "2.2.4", "--json")
    assert result.exit_code == 0
    assert {e["section"] for e in json.loads(result.stdout)} == {"2.2.4"}
    bad = invoke("catalog", "--section", "9.9")
    assert bad.exit_code == 2
    assert "no requirement in section '9.9'" in bad.stderr


def test_catalog_verify_maps_every_normative_sentence_of_the_spec() -> None:
    # required, as in tests/test_spec_text.py: shared/ stands beside the repository
    assert SPEC.is_file(), f"the specification text is missing: {SPEC}"
    result = invoke("catalog", "verify", "--spec", str(SPEC), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["unmapped"] == []


def test_catalog_verify_missing_spec_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("catalog", "verify", "--spec", str(tmp_path / "nope.md"))
    assert result.exit_code == 2
    assert "nope.md" in result.stderr


def test_run_with_an_unknown_target_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("run", "--target", "bogus", "--report", str(tmp_path / "r"))
    assert result.exit_code == 2
    assert "unknown target 'bogus'" in result.stderr
    assert not (tmp_path / "r" / "traceability.json").exists()


def test_run_prints_no_pytest_benchmark_banner(tmp_path: Path) -> None:
    """pytest-benchmark (a dev dependency) is installed here, yet its banner stays out of runs."""
    assert importlib.util.find_spec("pytest_benchmark") is not None
    result = invoke("run", "--report", str(tmp_path), "--", "-p", "no:randomly", "-m", AUTH_NONE)
    assert result.exit_code == 0, result.output
    assert "Scenario runs: " in result.stdout
    assert "benchmark:" not in result.output
