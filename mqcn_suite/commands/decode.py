"""``mqcn decode``: judge one Change Notification Message from its bytes alone.

The bytes come from ``--hex`` or ``--file``; :func:`mqcn_model.judge.judge` gives the verdict,
printed for people (the decoded structure, then every broken requirement with its byte offset
and statement) or, with ``--json``, as the document :func:`verdict_to_json` builds (its schema:
``mqcn_suite/report/decode.schema.json``).  Exit 0 conforming, 1 not conforming, 2 usage error,
3 internal error (:class:`~mqcn_suite.commands._common.ExitCode`).

With ``--packet`` the bytes are a whole UserMessage Packet ([MS-MQMQ] 2.2.20), as it travels
on an MS-MQQB session: the model's :func:`~mqcn_model.wire.judgement.judge_packet_bytes`
decodes it with the wire codec and judges it (the one UserMessage judge, also the capture
reader's).  A packet is read as far as its bytes allow: one whose structure stops the
codec shows every header read before the stop, then the structural wire ID where it stopped
(``salvage``); bytes that are not even a BaseHeader are refused.  A packet that reads is
shown whole, with every wire value rule it breaks (ID and byte offset) -- the [MS-MQRR]
headers real senders add (SRMPEnvelopeHeader's SOAP envelope and CompoundMessageHeader's
HTTP part shown as text, the extension chain) included.  Only a packet to a notification
queue is judged as MS-MQCN: the Envelope MS-MQCN sees, what the 3.3.5.3 sender rules say of
it and the verdict on its body as above; any other body is shown as text or bytes.  The
human output shows every header; ``--json`` is the document :func:`packet_verdict_to_json`
builds (schema: ``mqcn_suite/report/decode-packet.schema.json``, whose ``body`` is the
document above).  Conforming (exit 0) means no wire finding, and for a notification queue no
envelope finding and a conforming body.

The command is the function :func:`decode`; ``mqcn_suite.cli`` registers it.
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from mqcn_model.catalog import requirement
from mqcn_model.codec.message import ChangeNotificationMessage
from mqcn_model.codec.update import ZERO_RESERVED, NotificationUpdate
from mqcn_model.constants import PROPERTIES, SPARE_BYTE_COUNT, Command, Event, Version
from mqcn_model.envelope import Envelope
from mqcn_model.errata import LENIENT, STRICT, Readings
from mqcn_model.errors import Violation
from mqcn_model.json_views import message_to_json, value_to_json
from mqcn_model.judge import Verdict, judge
from mqcn_model.wire import packet_to_json
from mqcn_model.wire.judgement import BytesVerdict, judge_packet_bytes
from mqcn_model.wire.render import header_to_json
from mqcn_model.wire.usermessage import Salvage
from mqcn_suite.commands._common import (
    ExitCode,
    UsageError,
    boundary,
    parse_hex,
    read_user_file,
)

# Human output shows at most this many bytes of a BLOB value (the JSON output shows all).
HUMAN_BYTES_SHOWN = 32


# --- input -----------------------------------------------------------------------------------


def read_input(hex_text: str | None, file_name: str | None) -> bytes:
    """The message bytes from exactly one of ``--hex`` and ``--file``."""
    if hex_text is not None and file_name is not None:
        raise UsageError("give either --hex or --file, not both")
    if hex_text is not None:
        return parse_hex(hex_text)
    if file_name is not None:
        return read_user_file("--file", file_name)
    raise UsageError("give the message with --hex HEX or --file PATH")


# --- output ----------------------------------------------------------------------------------


def readings_name(readings: Readings) -> str:
    """``strict``, ``lenient``, or ``custom`` for a hand-mixed :class:`Readings`."""
    if readings == STRICT:
        return "strict"
    if readings == LENIENT:
        return "lenient"
    return "custom"


def verdict_to_json(verdict: Verdict, readings: Readings) -> dict[str, Any]:
    """The ``mqcn decode --json`` document for ``verdict``."""
    return {
        "conforming": verdict.conforming,
        "readings": readings_name(readings),
        "size": verdict.size,
        "message": message_to_json(verdict.message) if verdict.message is not None else None,
        "violations": [v.to_json() for v in verdict.violations],
        "observations": [v.to_json() for v in verdict.observations],
    }


_SURROGATE = re.compile("[\ud800-\udfff]")


_CONTROL = re.compile("[\x00-\x1f\x7f]")
_ESCAPES = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _safe(text: str) -> str:
    """``text`` printable on any UTF-8 stream: lone surrogates (lenient E-07) become escapes."""
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _enum_name(enum: type[Command] | type[Event] | type[Version], value: int) -> str:
    try:
        return enum(value).name.lower().replace("_", " ")
    except ValueError:
        return "undefined"


def _human_value(value: object) -> str:
    """A property value for people: strings quoted, bytes as (possibly shortened) hex."""
    if isinstance(value, bytes | bytearray):
        data = bytes(value)
        if len(data) > HUMAN_BYTES_SHOWN:
            return f"{data[:HUMAN_BYTES_SHOWN].hex()}… ({len(data)} bytes)"
        return f"{data.hex()} ({len(data)} bytes)" if data else "(0 bytes)"
    if isinstance(value, str):
        return f'"{_safe(value)}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_human_value(v) for v in value) + "]"
    if isinstance(value, uuid.UUID):
        return str(value)
    return _safe(str(value_to_json(value)))


def _print_fields(console: Console, rows: list[tuple[str, str]], indent: str = "") -> None:
    """Print ``name  value`` rows with the values aligned (no padding after the value)."""
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        line = Text(indent)
        line.append(name.ljust(width), style="bold")
        line.append(f"  {value}")
        console.print(line)


def _print_properties(console: Console, update: NotificationUpdate, indent: str) -> None:
    """The (PropertyId, PropertyValue) pairs of ``update`` as aligned columns."""
    header = ("#", "PROPID", "name", "VT", "value")
    rows = []
    for number, prop in enumerate(update.properties, 1):
        definition = PROPERTIES[prop.propid]  # type: ignore[index]
        rows.append(
            (
                str(number),
                str(prop.propid),
                definition.name,
                definition.vt.label,
                _human_value(prop.value),
            )
        )
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(4)]

    def cells(row: tuple[str, ...]) -> str:
        first = [row[0].rjust(widths[0]), row[1].rjust(widths[1])]
        middle = [row[2].ljust(widths[2]), row[3].ljust(widths[3])]
        return "  ".join([*first, *middle, row[4]])

    console.print(Text(indent + cells(header), style="bold"))
    for row in rows:
        console.print(Text(indent + cells(row)))


def _print_update(console: Console, index: int, total: int, update: NotificationUpdate) -> None:
    end = update.offset + update.size
    console.print(
        Text(
            f"Update {index} of {total} (bytes {update.offset}-{end - 1}): "
            f"Command 0x{update.command:02x} ({_enum_name(Command, update.command)}), "
            f"UseGuid 0x{update.use_guid:02x}",
            style="bold cyan",
        )
    )
    rows: list[tuple[str, str]] = []
    if update.path_name is not None:
        rows.append(("PathName", f'"{_safe(update.path_name)}"'))
    if update.guid_identifier is not None:
        rows.append(("GuidIdentifier", str(update.guid_identifier)))
    rows.append(("GuidMasterId", str(update.guid_master_id)))
    zero = update.reserved == ZERO_RESERVED
    rows.append(("Reserved", "24 zero bytes" if zero else update.reserved.hex()))
    rows.append(("NumberOfProperties", str(len(update.properties))))
    _print_fields(console, rows, "  ")
    if update.properties:
        _print_properties(console, update, "    ")


def _print_message(console: Console, message: ChangeNotificationMessage) -> None:
    version = f"0x{message.version:02x} ({_enum_name(Version, message.version)})"
    _print_fields(
        console,
        [("Version", version), ("NumberOfUpdateNotifications", str(message.count))],
    )
    if message.body is not None:
        body = message.body
        console.print(Text("Notification Body", style="bold cyan"))
        rows = [
            ("Event", f"{body.event} ({_enum_name(Event, body.event)})"),
            ("ObjectGuid", str(body.object_guid)),
            ("DomainController", _safe(body.domain_controller)),
        ]
        _print_fields(console, rows, "  ")
    for index, update in enumerate(message.updates, 1):
        _print_update(console, index, len(message.updates), update)
    if not message.trailing:
        trailing = "none"
    elif len(message.trailing) == SPARE_BYTE_COUNT:
        trailing = f"{message.trailing.hex()} (the unused byte of the MSMQ body, 3.3.5.3)"
    else:
        trailing = _human_value(message.trailing)
    _print_fields(console, [("Trailing bytes", trailing)])


def _print_finding(console: Console, finding: Violation, marker: str, style: str) -> None:
    entry = requirement(finding.requirement)  # an MS-MQCN or a wire requirement
    where = f" at byte {finding.offset}" if finding.offset is not None else ""
    line = Text(f"  {marker} ")
    line.append(finding.requirement, style=style)
    line.append(f"{where}: {_safe(finding.message)}")
    console.print(line)
    context = f"{entry.keyword}, {entry.section}: {entry.statement}"
    console.print(Text(f"      {context}", style="dim"))


def print_verdict(console: Console, verdict: Verdict, readings: Readings) -> None:
    """The human-readable report of ``mqcn decode``."""
    console.print(
        Text(
            f"Change Notification Message: {verdict.size} bytes, "
            f"{readings_name(readings)} readings",
            style="bold",
        )
    )
    if verdict.message is not None:
        _print_message(console, verdict.message)
    else:
        console.print("The bytes cannot be decoded as a Change Notification Message.")
    console.print()
    if verdict.conforming:
        console.print(Text("CONFORMING", style="bold green"), "- no MUST or MUST NOT broken")
    else:
        count = len(verdict.violations)
        noun = "requirement" if count == 1 else "requirements"
        console.print(Text("NOT CONFORMING", style="bold red"), f"- {count} {noun} broken:")
        for violation in verdict.violations:
            _print_finding(console, violation, "x", "bold red")
    if verdict.observations:
        console.print(Text("Notes (SHOULD/MAY; they do not affect conformance):", style="bold"))
        for observation in verdict.observations:
            _print_finding(console, observation, "-", "yellow")


# --- --packet: a whole UserMessage Packet ----------------------------------------------------


def _envelope_json(envelope: Envelope) -> dict[str, Any]:
    """The Envelope as the adapter protocol writes it, without the body (judged apart) and
    the arrival time (not on the wire)."""
    data = envelope.to_json()
    del data["body"], data["arrival_time"]
    return data


def _salvage_json(salvage: Salvage) -> dict[str, Any]:
    return {
        "headers": [
            {"header": read.name, "offset": read.offset, "fields": header_to_json(read.header)}
            for read in salvage.headers
        ],
        "findings": [v.to_json() for v in salvage.findings],
        "stopped": salvage.stopped.to_json(),
    }


def packet_verdict_to_json(verdict: BytesVerdict, readings: Readings) -> dict[str, Any]:
    """The ``mqcn decode --packet --json`` document for ``verdict``."""
    return {
        "conforming": verdict.conforming,
        "readings": readings_name(readings),
        "size": verdict.size,
        "wire": {
            "conforming": not verdict.violations,
            "violations": [v.to_json() for v in verdict.violations],
        },
        "packet": packet_to_json(verdict.packet) if verdict.packet is not None else None,
        "salvage": _salvage_json(verdict.salvage) if verdict.salvage is not None else None,
        "notification_queue": verdict.notification_queue,
        "envelope": _envelope_json(verdict.envelope) if verdict.envelope is not None else None,
        "envelope_findings": [v.to_json() for v in verdict.envelope_findings],
        "body": verdict_to_json(verdict.body, readings) if verdict.body is not None else None,
    }


HEADER_NAMES = {
    "base_header": "BaseHeader",
    "user_header": "UserHeader",
    "transaction_header": "TransactionHeader",
    "security_header": "SecurityHeader",
    "message_properties_header": "MessagePropertiesHeader",
    "debug_header": "DebugHeader",
    "srmp_envelope_header": "SRMPEnvelopeHeader",
    "compound_message_header": "CompoundMessageHeader",
    "soap_header": "SoapHeader",
    "multi_queue_format_header": "MultiQueueFormatHeader",
    "extensions": "extension chain (ExtensionHeader and the headers it flags)",
    "session_header": "SessionHeader",
    "ack_body": "acknowledgment body",
}
_FLAG_FIELDS = ("flags",)
_LONG_HEX = re.compile(f"([0-9a-f]{{2}}){{{HUMAN_BYTES_SHOWN + 1},}}")  # hex shown shortened


def _flatten(data: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Nested JSON as ``(dotted.name, value)`` rows; lists of objects numbered."""
    if isinstance(data, dict):
        rows: list[tuple[str, Any]] = []
        for key, value in data.items():
            name = f"{prefix}.{key}" if prefix else key
            if isinstance(value, dict) or (
                isinstance(value, list) and value and isinstance(value[0], dict)
            ):
                rows += _flatten(value, name)
            else:
                rows.append((name, value))
        return rows
    return [row for n, item in enumerate(data, 1) for row in _flatten(item, f"{prefix}[{n}]")]


def _human_json(name: str, value: Any) -> str:
    """One JSON value for people: flags in hex, long hex shortened, null as a dash."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and name.rsplit(".", 1)[-1] in _FLAG_FIELDS:
        return f"0x{value:x}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) if value else "none"
    if value == "":
        return "(empty)"
    if isinstance(value, str) and _LONG_HEX.fullmatch(value):
        return f"{value[: 2 * HUMAN_BYTES_SHOWN]}… ({len(value) // 2} bytes)"
    if isinstance(value, str):  # an HTTP part or a SOAP envelope: one line, its CR LF shown
        value = _CONTROL.sub(
            lambda match: _ESCAPES.get(match.group(), f"\\x{ord(match.group()):02x}"), value
        )
    return _safe(str(value))


def print_packet_verdict(console: Console, verdict: BytesVerdict, readings: Readings) -> None:
    """The human-readable report of ``mqcn decode --packet``."""
    console.print(Text(f"UserMessage Packet: {verdict.size} bytes", style="bold"))
    if verdict.packet is None and verdict.salvage is not None:
        salvage = verdict.salvage
        console.print(
            f"The bytes are read as far as they allow: {len(salvage.headers)} "
            f"{'header' if len(salvage.headers) == 1 else 'headers'}, then reading stops."
        )
        for read in salvage.headers:
            console.print(Text(f"{read.name} (byte {read.offset})", style="bold cyan"))
            rows = _flatten(header_to_json(read.header))
            _print_fields(console, [(n, _human_json(n, v)) for n, v in rows], "  ")
        for finding in salvage.findings:
            _print_finding(console, finding, "x", "bold red")
        console.print(Text("Reading stopped", style="bold red"), f"- {salvage.stopped}")
    elif verdict.packet is None:
        console.print("The bytes cannot be decoded as a UserMessage Packet.")
    else:
        view = packet_to_json(verdict.packet)
        console.print(f"Kind: {view['kind']}")
        absent = []
        for key, title in HEADER_NAMES.items():
            if view[key] is None:
                absent.append(title)
                continue
            console.print(Text(title, style="bold cyan"))
            _print_fields(console, [(n, _human_json(n, v)) for n, v in _flatten(view[key])], "  ")
        console.print(f"Absent: {', '.join(absent) or 'none'}")
        for reading in verdict.packet.letter:
            console.print(
                Text("Read to the letter", style="bold yellow"),
                f"- {reading} (docs/errata.md {reading.errata}: the suite's reading does not "
                "add up for these bytes)",
            )
        if verdict.envelope is not None:
            console.print(
                Text("Envelope (the Message attributes MS-MQCN reads)", style="bold cyan")
            )
            rows = [(n, _human_json(n, v)) for n, v in _envelope_json(verdict.envelope).items()]
            _print_fields(console, rows, "  ")
        if not verdict.notification_queue:
            body = verdict.packet.body
            console.print(
                Text(
                    f"The destination ({verdict.judgement.destination}) is not a notification "
                    "queue: the body is not an MS-MQCN message and is not judged as one.",
                    style="yellow",
                )
            )
            console.print(f"  body: {len(body)} bytes: {_body_text(body)}")
    console.print()
    if verdict.violations:
        count = len(verdict.violations)
        noun = "requirement" if count == 1 else "requirements"
        console.print(Text("WIRE: NOT CONFORMING", style="bold red"), f"- {count} {noun} broken:")
        for violation in verdict.violations:
            _print_finding(console, violation, "x", "bold red")
    else:
        console.print(Text("WIRE: CONFORMING", style="bold green"), "- no wire MUST broken")
    if verdict.envelope_findings:
        count = len(verdict.envelope_findings)
        noun = "requirement" if count == 1 else "requirements"
        console.print(
            Text("ENVELOPE: NOT CONFORMING", style="bold red"),
            f"- {count} 3.3.5.3 sender {noun} broken:",
        )
        for finding in verdict.envelope_findings:
            _print_finding(console, finding, "x", "bold red")
    elif verdict.envelope is not None:
        console.print(
            Text("ENVELOPE: CONFORMING", style="bold green"), "- the 3.3.5.3 sender rules hold"
        )
    if verdict.body is not None:
        console.print()
        console.print(Text("Body", style="bold"))
        print_verdict(console, verdict.body, readings)
    console.print()
    if verdict.conforming:
        console.print(Text("Packet: CONFORMING", style="bold green"), "- wire, envelope and body")
    else:
        body = len(verdict.body.violations) if verdict.body is not None else "not judged"
        console.print(
            Text("Packet: NOT CONFORMING", style="bold red"),
            f"- wire: {len(verdict.violations)} broken, envelope: "
            f"{len(verdict.envelope_findings)} broken, body: {body}",
        )


def _body_text(body: bytes) -> str:
    """A body shown as text when it reads as UTF-16 or UTF-8 text, else as hex."""
    for encoding in ("utf-16-le", "utf-8"):
        if encoding == "utf-16-le" and (len(body) % 2 or b"\x00" not in body):
            continue
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError:
            continue
        if text.isprintable() or all(c.isprintable() or c in "\r\n\t\x00" for c in text):
            return _safe(text.rstrip("\x00"))
    shown = body[:HUMAN_BYTES_SHOWN].hex()
    return shown + (f"… ({len(body)} bytes)" if len(body) > HUMAN_BYTES_SHOWN else "")


# --- the command --------------------------------------------------------------------------------


DECODE_HELP = (
    "Judge one Change Notification Message (an MSMQ message body; the spare byte of 3.3.5.3 is "
    "optional) against every requirement checkable from its bytes alone.\n\n"
    "Exit 0: conforming (the decoded structure is printed). "
    "Exit 1: not conforming (each broken requirement ID with its byte offset and sentence). "
    "Exit 2: usage error.\n\n"
    "With --packet the bytes are a whole UserMessage Packet as it travels on TCP port 1801: "
    "every header is shown, a broken wire requirement (e.g. MQMQ-2.2.19.1-2) makes it not "
    "conforming, and its body is judged as above."
)


def decode(
    hex_text: Annotated[
        str | None,
        typer.Option(
            "--hex",
            metavar="HEX",
            help="The message as hex digits (whitespace and a leading 0x are ignored).",
            show_default=False,
        ),
    ] = None,
    file_name: Annotated[
        str | None,
        typer.Option(
            "--file",
            metavar="PATH",
            help="A file holding the message bytes (binary, e.g. a captured MSMQ body).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print only a JSON document on stdout.")
    ] = False,
    lenient: Annotated[
        bool,
        typer.Option("--lenient", help="Accept every errata reading an implementation may take."),
    ] = False,
    packet: Annotated[
        bool,
        typer.Option(
            "--packet",
            help=(
                "The bytes are a whole UserMessage Packet ([MS-MQMQ] 2.2.20): show every "
                "header, judge it on the wire and judge its body."
            ),
        ),
    ] = False,
) -> None:
    """``mqcn decode``: read the bytes, judge them, print the verdict (see DECODE_HELP)."""
    with boundary("decode"):
        buf = read_input(hex_text, file_name)
        readings = LENIENT if lenient else STRICT
        if packet:
            found = judge_packet_bytes(buf, readings)
            if as_json:
                document = json.dumps(packet_verdict_to_json(found, readings), indent=2)
                sys.stdout.write(document + "\n")
                sys.stdout.flush()
            else:
                print_packet_verdict(Console(highlight=False, soft_wrap=True), found, readings)
            raise typer.Exit(ExitCode.OK if found.conforming else ExitCode.FOUND)
        verdict = judge(buf, readings)
        if as_json:
            document = json.dumps(verdict_to_json(verdict, readings), indent=2)
            sys.stdout.write(document + "\n")
            sys.stdout.flush()
        else:
            print_verdict(Console(highlight=False, soft_wrap=True), verdict, readings)
        raise typer.Exit(ExitCode.OK if verdict.conforming else ExitCode.FOUND)
