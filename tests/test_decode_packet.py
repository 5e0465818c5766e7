"""``mqcn decode --packet``: a whole UserMessage Packet, every header, wire and body verdicts.

Exit codes as ``mqcn decode`` (0 conforming, 1 not — a broken wire requirement too, named by
its wire ID — 2 usage); ``--json`` fits ``mqcn_suite/report/decode-packet.schema.json``,
which is closed and exact, and docs/capture.md documents every field of it.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from capture_helpers import QM, envelope, user_message
from hypothesis import HealthCheck, given, settings
from referencing import Registry, Resource
from test_wire_codec import final_ack, order_ack
from typer.testing import CliRunner, Result
from wire_strategies import user_messages

import mqcn_suite.cli as cli
from mqcn_model.builders import queue_creation, v1_message, v2_notification
from mqcn_model.codec import body_buffer
from mqcn_model.constants import Event
from mqcn_model.errata import STRICT
from mqcn_model.wire import encode_internal, encode_user_message, envelope_to_packet, finalize
from mqcn_model.wire.internal import connection_parameters
from mqcn_model.wire.judgement import judge_packet_bytes
from mqcn_model.wire.mqf import MultiQueueFormat
from mqcn_model.wire.queues import MQFElement
from mqcn_model.wire.session import SessionHeader
from mqcn_suite.commands.decode import packet_verdict_to_json

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
QUEUE = uuid.UUID("0a0b0c0d-0e0f-1011-1213-141516171819")
V2_BODY = body_buffer(v2_notification(Event.CREATE_QUEUE, QUEUE, "dc01"))
V1_BODY = body_buffer(v1_message([queue_creation(QUEUE, "host\\orders", master=QUEUE)]))
GOOD = user_message(envelope(1, V2_BODY))


def invoke(*args: str) -> Result:
    return runner.invoke(cli.app, ["decode", "--packet", *args])


def decoded(packet: bytes, *options: str) -> tuple[int, dict[str, Any]]:
    result = invoke("--hex", packet.hex(), "--json", *options)
    return result.exit_code, json.loads(result.stdout)


def broken_body() -> bytes:
    body = bytearray(V2_BODY)
    body[1] = 2  # Version 0x02 with NumberOfUpdateNotifications 2: MQCN-2.2.4-3
    return bytes(body)


# --- exit codes and what is printed -------------------------------------------------------------


def test_a_conforming_packet_shows_every_header_and_exits_0() -> None:
    result = invoke("--hex", GOOD.hex())
    assert result.exit_code == 0, result.output
    for title in ("BaseHeader", "UserHeader", "SecurityHeader", "MessagePropertiesHeader"):
        assert re.search(rf"^{title}$", result.stdout, re.MULTILINE), title
    assert (
        "Absent: TransactionHeader, DebugHeader, SRMPEnvelopeHeader, CompoundMessageHeader, "
        "SoapHeader" in result.stdout
    )
    assert f"destination_queue.format_name  PRIVATE={QM}\\3" in result.stdout
    assert "sender_identifier_type   QueueManagerIdentifier" in result.stdout
    assert "WIRE: CONFORMING" in result.stdout and "Event             1 (create queue)" in (
        result.stdout
    )
    assert "ENVELOPE: CONFORMING" in result.stdout
    assert result.stdout.rstrip().endswith("Packet: CONFORMING - wire, envelope and body")


def test_a_body_breaking_mqcn_exits_1_naming_its_requirement() -> None:
    result = invoke("--hex", user_message(envelope(1, broken_body())).hex())
    assert result.exit_code == 1
    assert "WIRE: CONFORMING" in result.stdout and "x MQCN-2.2.4-3 at byte 1" in result.stdout
    assert "Packet: NOT CONFORMING - wire: 0 broken, envelope: 0 broken, body: 2" in (result.stdout)


def test_a_broken_wire_requirement_exits_1_naming_the_wire_id() -> None:
    bad = bytearray(GOOD)
    bad[4:8] = b"MIOR"
    result = invoke("--hex", bytes(bad).hex())
    assert result.exit_code == 1
    assert "cannot be decoded as a UserMessage Packet" in result.stdout
    assert "x MQMQ-2.2.19.1-2 at byte 4: Signature is 0x524f494d" in result.stdout
    assert "MUST, 2.2.19.1:" in result.stdout  # the wire statement under it


def test_bytes_after_the_packet_break_packet_size() -> None:
    code, document = decoded(GOOD + b"\x00\x00")
    assert code == 1 and document["body"]["conforming"] is True
    (violation,) = document["wire"]["violations"]
    assert violation["requirement"] == "MQMQ-2.2.19.1-3" and violation["offset"] == len(GOOD)
    assert "2 bytes follow the packet" in violation["message"]


def test_an_internal_packet_is_not_a_user_message() -> None:
    code, document = decoded(encode_internal(connection_parameters(500, 20000, 64)))
    assert code == 1 and document["packet"] is None and document["body"] is None
    assert [v["requirement"] for v in document["wire"]["violations"]] == ["MQMQ-2.2.20-1"]


def test_a_cut_packet_names_packet_size() -> None:
    code, document = decoded(GOOD[:100])
    assert code == 1
    assert document["wire"]["violations"][0]["requirement"] == "MQMQ-2.2.19.1-3"


def test_a_packet_to_another_queue_is_judged_and_says_so() -> None:
    other = user_message(envelope(1, V1_BODY, destination_format_name=f"PRIVATE={QM}\\1a"))
    result = invoke("--hex", other.hex())
    assert result.exit_code == 0 and "not a notification queue" in result.stdout
    assert decoded(other)[1]["notification_queue"] is False
    assert decoded(GOOD)[1]["notification_queue"] is True


def windows_ack_without_admin_queue() -> bytes:
    """What a Windows sender was captured sending: acknowledgment bits (PA, NA) in
    MessagePropertiesHeader.Flags but no administration queue, against MQMQ-2.2.19.2-9."""
    packet = envelope_to_packet(envelope(1, V2_BODY))
    return encode_user_message(replace(packet, properties=replace(packet.properties, flags=0x5)))


def test_acknowledgments_without_an_administration_queue_show_every_header_and_the_finding() -> (
    None
):
    wire = windows_ack_without_admin_queue()
    code, document = decoded(wire)
    assert code == 1 and document["packet"] is not None
    assert document["packet"]["message_properties_header"]["acknowledgments"]
    assert document["packet"]["user_header"]["admin_queue"] is None
    (finding,) = document["wire"]["violations"]
    assert finding["requirement"] == "MQMQ-2.2.19.2-9"
    assert wire[finding["offset"]] == 0x5  # MessagePropertiesHeader.Flags, where it starts
    assert document["body"]["conforming"] is True and document["envelope"] is not None
    assert document["notification_queue"] is True and document["envelope_findings"] == []
    result = invoke("--hex", wire.hex())
    assert re.search(r"^UserHeader$", result.stdout, re.MULTILINE)
    assert "x MQMQ-2.2.19.2-9 at byte" in result.stdout


@pytest.mark.parametrize(
    ("hash_algorithm", "name", "findings"),
    [(0x8002, "MD4", ["MQCN-3.3.5.3-5"]), (0x800C, "SHA256", ["MQCN-3.3.5.3-5"])],
)
def test_a_hash_no_sender_uses_is_carried_and_judged(
    hash_algorithm: int, name: str, findings: list[str]
) -> None:
    """A legal [MS-MQMQ] 2.2.19.3 HashAlgorithm that the 3.3.5.3 sender rules ask of no MSMQ
    version: the Envelope carries it, the wire has no finding, the envelope has one."""
    packet = envelope_to_packet(envelope(1, V2_BODY))
    packet = replace(packet, properties=replace(packet.properties, hash_algorithm=hash_algorithm))
    code, document = decoded(encode_user_message(packet))
    assert code == 1 and document["envelope"]["hash_algorithm"] == name
    assert document["wire"]["violations"] == [] and document["body"]["conforming"] is True
    assert [f["requirement"] for f in document["envelope_findings"]] == findings
    result = invoke("--hex", encode_user_message(packet).hex())
    assert "ENVELOPE: NOT CONFORMING" in result.stdout and "x MQCN-3.3.5.3-5" in result.stdout


def test_lenient_readings_reach_the_body() -> None:
    assert decoded(GOOD, "--lenient")[1]["readings"] == "lenient"
    assert decoded(GOOD, "--lenient")[1]["body"]["readings"] == "lenient"


def test_the_packet_can_come_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "packet.bin"
    path.write_bytes(GOOD)
    result = invoke("--file", str(path))
    assert result.exit_code == 0 and "Packet: CONFORMING" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--hex", "zz"], "hex"),
        (["--file", "/nonexistent/packet.bin"], "/nonexistent/packet.bin"),
        (["--hex", "00", "--file", "x"], "not both"),
        ([], "--hex HEX or --file PATH"),
    ],
)
def test_usage_errors_exit_2_with_one_line(arguments: list[str], message: str) -> None:
    result = invoke(*arguments)
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_acknowledgment_packets_show_their_bodies() -> None:
    for packet, kind in ((order_ack(), "OrderAck"), (final_ack(), "FinalAck")):
        result = invoke("--hex", encode_user_message(packet).hex())
        assert f"Kind: {kind}" in result.stdout and "acknowledgment body" in result.stdout
        # to the order queue, not a notification queue: its body is not judged as MS-MQCN
        assert "is not a notification queue" in result.stdout
        assert result.exit_code == 0, result.stdout


def test_every_optional_header_is_shown_when_present() -> None:
    packet = envelope_to_packet(envelope(1, V2_BODY))
    mqf = MultiQueueFormat(destination=[MQFElement(2, guid=QM, private_id=3)], signature=b"s")
    packet = finalize(replace(packet, mqf=mqf, session=SessionHeader(window_size=64)))
    result = invoke("--hex", encode_user_message(packet).hex())
    assert result.exit_code == 0, result.output
    for title in ("MultiQueueFormatHeader", "SessionHeader"):
        assert re.search(rf"^{title}$", result.stdout, re.MULTILINE)
    assert re.search(rf"destination\[1\]\.format_name +PRIVATE={QM}\\3", result.stdout)


# --- the JSON document and its schema ------------------------------------------------------------


def _schema(name: str) -> dict[str, Any]:
    return json.loads(resources.files("mqcn_suite.report").joinpath(name).read_text("utf-8"))


PACKET_SCHEMA = _schema("decode-packet.schema.json")
BODY_SCHEMA = _schema("decode.schema.json")
REGISTRY = Registry().with_resource(BODY_SCHEMA["$id"], Resource.from_contents(BODY_SCHEMA))


def validate(document: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(PACKET_SCHEMA, registry=REGISTRY).validate(document)


def test_the_packet_schema_is_a_valid_2020_12_schema_that_refers_to_the_body_schema() -> None:
    assert PACKET_SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(PACKET_SCHEMA)
    assert BODY_SCHEMA["$id"] in json.dumps(PACKET_SCHEMA["properties"]["body"])


def test_conforming_nonconforming_and_undecodable_packets_fit_the_schema() -> None:
    bad = bytearray(GOOD)
    bad[4:8] = b"MIOR"
    cases = [
        GOOD,
        user_message(envelope(1, broken_body())),
        bytes(bad),
        GOOD + b"\x00",
        b"\x10",
        encode_user_message(order_ack()),
        encode_user_message(final_ack()),
    ]
    seen = []
    for packet in cases:
        code, document = decoded(packet)
        validate(document)
        seen.append((code, document["conforming"], document["packet"] is None))
    assert seen == [
        (0, True, False),
        (1, False, False),
        (1, False, True),
        (1, False, False),
        (1, False, True),
        (0, True, False),  # the acknowledgments: sound packets to the order queue
        (0, True, False),
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(user_messages())
def test_every_packet_the_codec_reads_fits_the_schema(packet: Any) -> None:
    verdict = judge_packet_bytes(encode_user_message(packet))
    assert verdict.packet is not None
    validate(packet_verdict_to_json(verdict, STRICT))


@pytest.mark.parametrize(
    "broken",
    [
        lambda d: d.update(extra=1),
        lambda d: d["wire"].update(extra=1),
        lambda d: d["packet"].update(extra=1),
        lambda d: d["packet"]["base_header"].update(extra=1),
        lambda d: d["packet"]["user_header"]["destination_queue"].update(extra=1),
        lambda d: d["packet"]["security_header"].update(extra=1),
        lambda d: d["packet"]["message_properties_header"].update(body="not hex"),
        lambda d: d["envelope"].update(body="00"),
        lambda d: d["envelope"].update(message_id="AB" * 20),
        lambda d: d["body"].update(extra=1),
        lambda d: d["wire"]["violations"].append(
            {"requirement": "MQCN-2.2.4-3", "offset": 1, "message": "x", "severity": "error"}
        ),
        lambda d: d.pop("envelope_findings"),
        lambda d: d["envelope_findings"].append(
            {"requirement": "MQMQ-2.2.19.2-9", "offset": None, "message": "x", "severity": "error"}
        ),
    ],
    ids=[
        "top-extra",
        "wire-extra",
        "packet-extra",
        "base-extra",
        "queue-extra",
        "security-extra",
        "body-hex",
        "envelope-body",
        "message-id-case",
        "body-document-extra",
        "wire-id-form",
        "missing-field",
        "envelope-id-form",
    ],
)
def test_the_packet_schema_is_closed_and_exact(broken: Any) -> None:
    code, document = decoded(GOOD)
    assert code == 0
    validate(document)
    broken(document)
    with pytest.raises(jsonschema.ValidationError):
        validate(document)


def schema_fields(schema: dict[str, Any]) -> set[str]:
    """Every field path of the packet schema, local refs followed; ``body`` (the document of
    ``mqcn decode --json``, documented with that command) is one field."""
    definitions = schema["$defs"]
    paths: set[str] = set()

    def walk(node: dict[str, Any], path: str) -> None:
        ref = node.get("$ref", "")
        if ref.startswith("#/$defs/"):
            walk(definitions[ref.removeprefix("#/$defs/")], path)
        for option in node.get("oneOf", []):
            walk(option, path)
        for name, sub in node.get("properties", {}).items():
            field = f"{path}.{name}" if path else name
            paths.add(field)
            walk(sub, field)
        if isinstance(node.get("items"), dict):
            walk(node["items"], f"{path}[]")

    walk(schema, "")
    return paths


def documented_fields() -> set[str]:
    """Fields named by the table of docs/capture.md: the first backticked name of a row is a
    path; more names in the same cell are fields under it."""
    text = (ROOT / "docs" / "capture.md").read_text("utf-8")
    section = text.split("## `mqcn decode --packet --json`", 1)[1].split("\n## ", 1)[0]
    fields: set[str] = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        names = re.findall(r"`([^`]+)`", line.split(" | ")[0])
        if not names[0].endswith("[]"):  # the items of a list are no field of their own
            fields.add(names[0])
        fields.update(f"{names[0]}.{name}" for name in names[1:])
    return fields


def test_docs_capture_documents_every_field_of_the_packet_document_and_nothing_more() -> None:
    assert documented_fields() == schema_fields(PACKET_SCHEMA)


def test_the_readme_shows_decode_packet() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("### `mqcn decode`", 1)[1].split("\n### ", 1)[0]
    assert "mqcn decode --packet" in section and "docs/capture.md" in section
