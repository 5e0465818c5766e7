"""Real MSMQ traffic as real senders send it ([MS-MQRR] 2.2.5, issue 35).

Public tools that talk to port 1801 (a service detector, the scanner for CVE-2023-21554)
build their UserMessage Packets by hand and send them with no MS-MQQB handshake.  The three
shapes of those tools are built here from their field-by-field descriptions (never copied
bytes): a packet whose PacketSize counts one stray byte after its 4-aligned headers, an SRMP
message (UserHeader.Flags.AH, SRMPEnvelopeHeader, CompoundMessageHeader, ExtensionHeader) and
its twin with SRMPEnvelopeHeader.DataLength + 0x80000000.  Each is decoded whole with its
findings -- by the codec, `mqcn decode --packet`, the capture reader and the audit -- and
never refused.  Then: each new header cut at every field, every length field wrapped, the
salvaging read of a packet that stops, a stream that opens with a UserMessage.
"""

from __future__ import annotations

import json
import struct
import uuid
from dataclasses import replace

import pytest
from capture_helpers import balanced, envelope, frames, messages, pcap, read, segments, user_message
from cli_helpers import invoke as invoke_app
from cli_helpers import runner
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_strategies import length_values, set_length

import mqcn_suite.cli as cli
from mqcn_model.capture import Packet, PcapWriter, Quarantine, iter_capture
from mqcn_model.capture.dissect import TCP_ACK, TCP_PSH
from mqcn_model.capture.writer import address_of
from mqcn_model.catalog import WIRE_CATALOG
from mqcn_model.errors import DecodeError
from mqcn_model.wire.base import BaseHeader
from mqcn_model.wire.common import NIL
from mqcn_model.wire.declared import layout, pack, scapy_fields, to_json, unpack
from mqcn_model.wire.extensions import (
    COMPOUND_FIXED,
    EA,
    LENGTH_FIELDS,
    SQ,
    SRMP_FIXED,
    CompoundMessageHeader,
    DeadLetterHeader,
    ExtendedAddressHeader,
    ExtensionHeader,
    Extensions,
    SrmpEnvelopeHeader,
    SubqueueHeader,
    compound_message,
    encode_compound,
    encode_extensions,
    encode_srmp_envelope,
    extensions,
    srmp_envelope,
)
from mqcn_model.wire.judgement import judge_packet_bytes
from mqcn_model.wire.properties import MessageProperties
from mqcn_model.wire.queues import QueueFormat
from mqcn_model.wire.user import UserHeader
from mqcn_model.wire.usermessage import (
    UserMessage,
    decode_user_message,
    encode_user_message,
    finalize,
    salvage_user_message,
)

SENDER = uuid.UUID("7d1c0e55-0b1e-4c38-9d0f-0123456789ab")
TARGET = "OS:victim\\private$\\queuejumper"
ENVELOPE_TEXT = (
    '<se:Envelope xmlns:se="http://schemas.xmlsoap.org/soap/envelope/" '
    'xmlns="http://schemas.xmlsoap.org/srmp/"><se:Header><path><action>MSMQ:probe</action>'
    "<to>http://victim/msmq/private$/queuejumper</to></path></se:Header><se:Body/></se:Envelope>"
)
HTTP = (
    b"POST /msmq/private$/queuejumper HTTP/1.1\r\nHost: victim\r\n"
    b'Content-Type: multipart/related; boundary="MSMQ - SOAP boundary"\r\n\r\n'
)


def probe(**changes: object) -> UserMessage:
    """A UserMessage to a direct queue, as a probing tool fills it in."""
    message = UserMessage(
        BaseHeader(time_to_reach_queue=0xFFFFFFFF),
        UserHeader(SENDER, NIL, 0xFFFFFFFF, 0, 1, 0, destination=QueueFormat.direct_name(TARGET)),
        MessageProperties(label="probe", body=b"hello"),
    )
    return finalize(replace(message, **changes))


def stray_byte() -> bytes:
    """Shape 1: PacketSize counts one stray byte after the 4-aligned headers."""
    wire = bytearray(encode_user_message(probe()) + b"\x00")
    wire[8:12] = len(wire).to_bytes(4, "little")
    return bytes(wire)


def srmp(*, wrapped: bool = False, body_size: int = 2000) -> bytes:
    """Shape 2 (and 3, ``wrapped``): a message first sent over HTTP, as Windows stores it."""
    envelope = srmp_envelope(ENVELOPE_TEXT)
    if wrapped:  # the CVE's trigger: the length's top bit set
        envelope = replace(envelope, data_length=envelope.data_length + 0x80000000)
    return encode_user_message(
        probe(
            srmp_envelope=envelope,
            compound=compound_message(HTTP, b"B" * body_size),
            extensions=Extensions(ExtensionHeader(12, 0, 0)),
        )
    )


def requirements(packet: UserMessage) -> list[str]:
    return [f.requirement for f in packet.findings]


# --- the three shapes through the codec ------------------------------------------------------


def test_a_stray_byte_after_the_headers_is_two_findings_not_a_refusal() -> None:
    wire = stray_byte()
    packet, end = decode_user_message(wire)
    assert end == len(wire) and packet.kind == "UserMessage" and packet.body == b"hello"
    assert [(f.requirement, f.offset) for f in packet.findings] == [
        ("MQMQ-2.2.19.1-3", 8),  # PacketSize off the 4-byte grid
        ("MQMQ-2.2.19.1-3", len(wire) - 1),  # the byte no announced header covers
    ]
    assert str(packet.findings[0]).endswith(
        f"PacketSize is {len(wire)}: "
        + ("a packet is at least its 16-byte BaseHeader and its headers are 4-byte aligned")
    )


def test_an_srmp_message_decodes_with_every_header() -> None:
    wire = srmp()
    packet, end = decode_user_message(wire)
    assert end == len(wire)
    assert packet.srmp_envelope is not None and packet.srmp_envelope.envelope == ENVELOPE_TEXT
    assert packet.srmp_envelope.unit == "WCHAR"
    assert packet.compound is not None and packet.compound.http == HTTP
    assert packet.compound.message_body == b"B" * 2000
    assert packet.extensions == Extensions(ExtensionHeader(12, 0, 0))
    assert requirements(packet) == [
        "MQMQ-2.2.19.2-7",  # Flags.AH, which a sender never sets
        "MQQB-2.2-1",  # SRMPEnvelopeHeader: a header [MS-MQQB] does not use
        "MQQB-2.2-1",  # CompoundMessageHeader
        "MQQB-2.2-1",  # ExtensionHeader
        "MQRR-2.2.5.2-3",  # Flags.SQ clear
        "MQRR-2.2.5.2-3",  # Flags.EA clear
    ]
    assert decode_user_message(encode_user_message(packet))[0] == packet  # both ways


def test_the_wrapped_data_length_is_a_finding_and_the_twins_differ() -> None:
    normal, twin = decode_user_message(srmp())[0], decode_user_message(srmp(wrapped=True))[0]
    extra = [f for f in twin.findings if f not in normal.findings]
    assert [(f.requirement, f.offset) for f in extra] == [
        ("MQRR-2.2.5.1.2.1-1", normal.findings[1].offset + 4)
    ]
    assert "(its top bit is set: a wrapped length)" in extra[0].message
    assert twin.srmp_envelope is not None and twin.srmp_envelope.unit is None
    assert twin.srmp_envelope.envelope == ENVELOPE_TEXT  # read to its terminator, no further
    assert twin.compound == normal.compound and twin.extensions == normal.extensions


def test_data_length_in_bytes_is_the_other_reading_and_passes() -> None:
    """W-13: DataLength may count Data in WCHARs or in bytes; either passes, the header says
    which."""
    packet = probe(
        srmp_envelope=srmp_envelope("<e/>", unit="byte"), compound=compound_message(b"", b"")
    )
    decoded = decode_user_message(encode_user_message(packet))[0]
    assert decoded.srmp_envelope == SrmpEnvelopeHeader(0, 0, 10, "<e/>", "byte")
    assert "MQRR-2.2.5.1.2.1-1" not in requirements(decoded)


def test_the_three_shapes_through_decode_packet() -> None:
    for wire in (stray_byte(), srmp(), srmp(wrapped=True)):
        result = runner.invoke(cli.app, ["decode", "--packet", "--hex", wire.hex(), "--json"])
        document = json.loads(result.stdout)
        assert result.exit_code == 1, result.stdout  # wire findings
        assert document["packet"] is not None and document["salvage"] is None
        assert document["notification_queue"] is False
        assert document["envelope"] is None and document["body"] is None  # not MS-MQCN's
    text = runner.invoke(cli.app, ["decode", "--packet", "--hex", srmp(wrapped=True).hex()])
    out = text.stdout
    for shown in ("SRMPEnvelopeHeader", "CompoundMessageHeader", "extension chain"):
        assert shown in out
    assert "<se:Envelope xmlns:se=" in out and "POST /msmq/private$/queuejumper" in out
    assert "MQRR-2.2.5.1.2.1-1 at byte" in out and "is not a notification queue" in out
    assert "body: 5 bytes: hello" in out
    http_line = next(line for line in out.splitlines() if "POST /msmq" in line)
    assert "\\r\\nHost: " in http_line  # the HTTP part on one line, its CR LF shown
    assert "\r" not in out


def test_decode_packet_judges_mqcn_only_for_a_notification_queue() -> None:
    """An XML body to an ordinary queue is no change notification: no MQCN-2.2.4 finding."""
    packet = probe(properties=MessageProperties(body=b"<order id='1'/>"))
    found = judge_packet_bytes(encode_user_message(packet))
    assert found.conforming and found.body is None and found.envelope is None
    assert not [v for v in found.violations if v.requirement.startswith("MQCN")]
    result = runner.invoke(
        cli.app, ["decode", "--packet", "--hex", encode_user_message(packet).hex()]
    )
    assert result.exit_code == 0 and "body: 15 bytes: <order id='1'/>" in result.stdout


# --- reading as far as the bytes allow -----------------------------------------------------------


def test_a_packet_that_stops_shows_every_header_read_before_the_stop() -> None:
    wire = bytearray(srmp())
    cut = len(encode_user_message(probe())) + SRMP_FIXED + 20  # inside the envelope's Data
    wire = wire[:cut]
    wire[8:12] = len(wire).to_bytes(4, "little")
    with pytest.raises(DecodeError) as refused:
        decode_user_message(bytes(wire))
    salvage = salvage_user_message(bytes(wire))
    assert [h.name for h in salvage.headers] == [
        "BaseHeader",
        "UserHeader",
        "MessagePropertiesHeader",
    ]
    assert salvage.stopped == refused.value.violation
    assert salvage.stopped.requirement == "MQRR-2.2.5.1.2.1-2"
    assert "MQMQ-2.2.19.2-7" in [f.requirement for f in salvage.findings]
    document = json.loads(
        runner.invoke(cli.app, ["decode", "--packet", "--hex", bytes(wire).hex(), "--json"]).stdout
    )
    assert document["packet"] is None
    assert [h["header"] for h in document["salvage"]["headers"]][-1] == "MessagePropertiesHeader"
    assert document["salvage"]["headers"][2]["fields"]["label"] == "probe"
    assert document["salvage"]["stopped"]["requirement"] == "MQRR-2.2.5.1.2.1-2"
    text = runner.invoke(cli.app, ["decode", "--packet", "--hex", bytes(wire).hex()]).stdout
    assert "3 headers, then reading stops" in text and "Reading stopped" in text
    with pytest.raises(ValueError, match="reads whole"):
        salvage_user_message(srmp())


def test_bytes_that_are_not_even_a_base_header_have_nothing_to_salvage() -> None:
    found = judge_packet_bytes(b"GET / HTTP/1.1\r\n\r\n")
    assert found.refused is not None and found.salvage is None
    assert found.refused.requirement == "MQMQ-2.2.19.1-1"


def test_an_unknown_header_after_the_announced_ones_is_a_finding_at_its_offset() -> None:
    announced = len(encode_user_message(probe()))
    wire = bytearray(encode_user_message(probe()) + b"UNKNOWN!")
    wire[8:12] = len(wire).to_bytes(4, "little")
    packet, end = decode_user_message(bytes(wire))
    assert end == len(wire) and packet.extensions is None
    (finding,) = packet.findings
    assert (finding.requirement, finding.offset) == ("MQMQ-2.2.19.1-3", announced)
    assert finding.message.startswith(f"8 bytes at offset {announced} that no announced header")


def _headers_region() -> tuple[bytes, int]:
    """An SRMP packet with a full extension chain, and where its MQRR headers start."""
    chain = extensions(
        subqueue=SubqueueHeader(subqueue_name="poison".encode("utf-16-le")),
        dead_letter="DIRECT=OS:victim\\private$\\dead",
        extended_address=ExtendedAddressHeader(address_length=4, address_type=1, address=bytes(16)),
    )
    packet = probe(
        srmp_envelope=srmp_envelope("<e/>"),
        compound=compound_message(b"POST / HTTP/1.1\r\n\r\n", b"xy"),
        extensions=chain,
    )
    return encode_user_message(packet), len(encode_user_message(probe()))


def test_every_new_header_cut_at_every_field_is_read_as_far_as_it_goes() -> None:
    """PacketSize ending at each 4-byte step inside the [MS-MQRR] headers: never an exception
    other than the codec's refusal (a wire ID with its offset inside the packet), and a
    refused packet salvages the headers before the cut."""
    wire, start = _headers_region()
    for cut in range(start, len(wire), 4):
        data = bytearray(wire[:cut])
        data[8:12] = cut.to_bytes(4, "little")
        try:
            packet, end = decode_user_message(bytes(data))
        except DecodeError as exc:
            assert exc.requirement in WIRE_CATALOG and 0 <= exc.offset <= cut
            salvage = salvage_user_message(bytes(data))
            assert [h.name for h in salvage.headers][:3] == [
                "BaseHeader",
                "UserHeader",
                "MessagePropertiesHeader",
            ]
            continue
        assert end == cut
        assert all(f.requirement in WIRE_CATALOG and 0 <= f.offset < cut for f in packet.findings)


def _length_fields() -> list[tuple[str, str, int]]:
    """(header, field, absolute offset) of every length field in :func:`_headers_region`."""
    wire, start = _headers_region()
    packet = decode_user_message(wire)[0]
    assert packet.srmp_envelope and packet.compound and packet.extensions
    at = {"SRMPEnvelopeHeader": start}
    at["CompoundMessageHeader"] = start + len(encode_srmp_envelope(packet.srmp_envelope))
    chain = at["CompoundMessageHeader"] + len(encode_compound(packet.compound))
    at["ExtensionHeader"] = chain
    at["SubqueueHeader"] = chain + 12
    at["DeadLetterHeader"] = chain + 12 + 148
    dead = packet.extensions.dead_letter
    assert dead is not None
    at["ExtendedAddressHeader"] = at["DeadLetterHeader"] + dead.header_size
    records = {
        "SRMPEnvelopeHeader": SrmpEnvelopeHeader,
        "CompoundMessageHeader": CompoundMessageHeader,
        "ExtensionHeader": ExtensionHeader,
        "SubqueueHeader": SubqueueHeader,
        "DeadLetterHeader": DeadLetterHeader,
        "ExtendedAddressHeader": ExtendedAddressHeader,
    }
    return [
        (header, name, at[header] + layout(records[header]).offset(name))
        for header, names in LENGTH_FIELDS.items()
        for name in names
    ]


LENGTHS = _length_fields()


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(LENGTHS),
    length_values(4096),
)
def test_every_length_field_of_every_new_header_is_held_to_the_packet(
    where: tuple[str, str, int], value: int
) -> None:
    """Any value in any length field: the codec decodes (findings inside the packet) or
    refuses with a wire ID -- never an over-read, never another exception; a value other
    than the true one is read, and one past the packet or wrapped is a finding."""
    header, name, offset = where
    wire, _ = _headers_region()
    size = 2 if name == "AddressLength" else 4
    data, true = set_length(wire, offset, size, value)
    value &= (1 << (8 * size)) - 1
    try:
        packet, end = decode_user_message(bytes(data))
    except DecodeError as exc:
        assert exc.requirement in WIRE_CATALOG and 0 <= exc.offset <= len(data)
        return
    assert end == len(data)
    assert all(0 <= f.offset < len(data) for f in packet.findings)
    original = decode_user_message(wire)[0]
    if value != true:
        assert packet != original, (header, name, value)  # the field is read, not skipped
    if value > len(data) or value >= 0x80000000:  # past the packet, or wrapped
        assert packet.findings != original.findings, (header, name, value)


# --- one declaration per header ------------------------------------------------------------


def test_each_new_header_is_declared_once_and_its_views_follow() -> None:
    """The fixed part of each header is declared on its record: the struct, the offsets, the
    JSON view and the scapy fields all come from it, and agree with [MS-MQRR]'s sizes."""
    sizes = {
        SrmpEnvelopeHeader: 8,
        CompoundMessageHeader: 16,
        ExtensionHeader: 12,
        SubqueueHeader: 148,
        DeadLetterHeader: 4,
        ExtendedAddressHeader: 28,
    }
    for record, size in sizes.items():
        spec = layout(record)
        assert spec.size == size and spec.header == record.__name__
        assert [f.name for f in scapy_fields(record)] == [f.name for f in spec.fields]
        default = record()
        assert unpack(record, pack(default), 0) == default
        assert set(to_json(default)) >= {f.attribute for f in spec.fields}
    assert layout(ExtendedAddressHeader).offset("Address") == 12
    assert layout(SubqueueHeader).offset("TargetSubqueueName") == 84
    assert layout(CompoundMessageHeader).offset("MsgBodyOffset") == 12
    assert to_json(ExtensionHeader())["flags_bits"] == ["SQ", "EA"]
    assert ExtensionHeader().flags == SQ | EA and COMPOUND_FIXED == 16
    with pytest.raises(KeyError, match="ExtensionHeader has no field Data"):
        layout(ExtensionHeader).offset("Data")


def test_an_extension_chain_round_trips_and_reads_each_header() -> None:
    wire, _ = _headers_region()
    packet = decode_user_message(wire)[0]
    chain = packet.extensions
    assert chain is not None and chain.dead_letter is not None and chain.subqueue is not None
    assert chain.dead_letter.path == "DIRECT=OS:victim\\private$\\dead"
    assert chain.extension.remaining_headers_size == 148 + chain.dead_letter.header_size + 28
    assert encode_extensions(chain) == wire[len(wire) - len(encode_extensions(chain)) :]
    assert requirements(packet).count("MQQB-2.2-1") == 3
    assert not [r for r in requirements(packet) if r.startswith("MQRR-2.2.5.")]


# --- streams as real senders open them ---------------------------------------------------------


def _capture(*packets: bytes, handshake: bool = False) -> bytes:
    writer = PcapWriter()
    data = [writer.header()]
    for n, wire in enumerate(packets):
        data.append(
            writer.write_packet(
                wire, sender=uuid.UUID(int=n + 1), acceptor="victim", handshake=handshake
            )
        )
    return b"".join(data) + writer.close()


def test_a_stream_that_opens_with_a_user_message_is_framed_decoded_and_judged() -> None:
    records = read(_capture(stray_byte(), srmp(), srmp(wrapped=True)))
    packets = [r for r in records if isinstance(r, Packet) and r.kind == "UserMessage"]
    assert len(packets) == 3 and balanced(records)
    assert not [q for q in records if isinstance(q, Quarantine)]  # no not-msmq, nothing set aside
    for record in packets:
        assert record.packet is not None and record.violation is None
        (session,) = record.findings
        assert (session.requirement, session.offset) == ("MQQB-3.1.5.8-1", 0)
        assert session.message.startswith("the stream opens with a UserMessage Packet at offset 0")
    assert "MQRR-2.2.5.1.2.1-1" in requirements(packets[2].packet)  # type: ignore[arg-type]


def test_a_session_that_opens_properly_has_no_session_finding() -> None:
    records = read(_capture(srmp(), handshake=True))
    (record,) = [r for r in records if isinstance(r, Packet) and r.kind == "UserMessage"]
    assert record.findings == () and record.packet is not None


def test_a_notification_without_a_handshake_is_judged_with_the_session_finding() -> None:
    """A change notification sent straight to the notification queue, no handshake first: it
    is judged as MS-MQCN (a Message) and carries the missing handshake as a finding."""
    records = read(pcap(frames(segments(user_message(envelope(1))))))
    (message,) = messages(records)
    assert [f.requirement for f in message.findings] == ["MQQB-3.1.5.8-1"]
    assert message.findings[0].offset == 0


def test_a_stream_seen_from_its_middle_gets_no_session_finding() -> None:
    stream = encode_user_message(probe())
    records = read(pcap(frames(segments(stream, syn=False))))
    (record,) = [r for r in records if isinstance(r, Packet) and r.kind == "UserMessage"]
    assert record.findings == ()


def test_a_stream_that_starts_mid_packet_resynchronises_on_the_next_one() -> None:
    tail = srmp()[37:]
    records = read(pcap(frames(segments(tail + srmp(), syn=False))))
    (record,) = [r for r in records if isinstance(r, Packet) and r.kind == "UserMessage"]
    assert record.packet is not None and record.packet.srmp_envelope is not None
    (skipped,) = [q for q in records if isinstance(q, Quarantine)]
    assert skipped.reason == "mid-session-start" and skipped.where.size == len(tail)


def test_the_capture_reader_counts_the_shapes_iter_capture(tmp_path) -> None:
    path = tmp_path / "probes.pcap"
    path.write_bytes(_capture(stray_byte(), srmp(), srmp(wrapped=True)))
    with path.open("rb") as file:
        records = list(iter_capture(path.name, iter(lambda: file.read(4096), b"")))
    assert sum(isinstance(r, Packet) and r.kind == "UserMessage" for r in records) == 3


@pytest.mark.spark
def test_the_audit_counts_the_three_shapes_as_user_messages_with_findings(
    app, spark, tmp_path
) -> None:
    """Wire findings count on every UserMessage: the audit of three probes to an ordinary
    queue finds 3 UserMessages with findings and exits 1 (findings), not 5 (nothing judged)."""
    folder = tmp_path / "captures"
    folder.mkdir()
    (folder / "probes.pcap").write_bytes(_capture(stray_byte(), srmp(), srmp(wrapped=True)))
    out = tmp_path / "audit"
    result = invoke_app(app, "audit", str(folder), "--out", str(out))
    assert result.exit_code == 1, (result.stdout, result.stderr)
    summary = json.loads((out / "summary.json").read_text())
    block = summary["capture"]
    assert block["user_messages"] == 3 and block["other_messages"] == 3
    assert block["messages_with_findings"] == 3 and block["user_messages_refused"] == 0
    found = block["packet_findings_by_requirement"]
    assert found["MQQB-3.1.5.8-1"] == 3 and found["MQRR-2.2.5.1.2.1-1"] == 1
    assert found["MQQB-2.2-1"] == 2 and block["quarantined_bytes"] == 0
    assert "3 with wire or envelope findings" in result.stdout


def test_an_unaligned_packet_size_is_a_finding_and_the_header_reads_whole() -> None:
    """[MS-MQMQ] 2.2.19.1 (MQMQ-2.2.19.1-3): with a findings list, a PacketSize of 17 or 241
    (not 4-aligned) is a finding at byte 8 and every field is read; below 16 it is refused
    whatever the list; without a list an unaligned size is refused."""
    from mqcn_model.errors import DecodeError
    from mqcn_model.wire.base import BaseHeader, decode_base_header, encode_base_header

    for size in (17, 241):
        raw = b"--" + encode_base_header(BaseHeader(flags=0x0103, time_to_reach_queue=9), size)
        found: list = []
        header, end = decode_base_header(raw, 2, found)
        assert (header.flags, header.packet_size, header.time_to_reach_queue) == (0x0103, size, 9)
        assert (header.version, header.reserved, header.signature) == (0x10, 0, 0x524F494C)
        assert end == 18
        assert [(f.requirement, f.offset) for f in found] == [("MQMQ-2.2.19.1-3", 10)]
        with pytest.raises(DecodeError, match=f"PacketSize is {size}: a packet is at least"):
            decode_base_header(raw, 2)
    small = encode_base_header(BaseHeader(), 12)
    with pytest.raises(DecodeError, match="PacketSize is 12"):
        decode_base_header(small, 0, [])


# --- the writer's own packets: one connection each, as tools open them -------------------------


def _frames_of(capture: bytes) -> list[tuple[float, int, int, int, bytes]]:
    """(time, source port, destination port, TCP flags, payload) of each pcap record."""
    out, at = [], 0
    while at + 16 <= len(capture):
        seconds, micros, size, _ = struct.unpack_from("<IIII", capture, at)
        frame = capture[at + 16 : at + 16 + size]
        ip = 14
        tcp = ip + (frame[ip] & 0x0F) * 4
        sport, dport = struct.unpack_from(">HH", frame, tcp)
        payload = frame[tcp + (frame[tcp + 12] >> 4) * 4 :]
        out.append((seconds + micros / 1e6, sport, dport, frame[tcp + 13], payload))
        at += 16 + size
    return out


def test_write_packet_sends_a_tool_s_bytes_on_a_connection_of_their_own() -> None:
    """PcapWriter.write_packet: the TCP handshake (and, by default, the MS-MQQB one), then the
    bytes from the sender to port 1801 in segments of 1460 with PSH on the last only, all at one
    instant, the connection closed one step (100 us) later; the acceptor named in any case."""
    data = bytes(range(256)) * 11 + b"end"  # 2819 bytes: 1460 + 1359
    sender = uuid.UUID(int=7)
    writer = PcapWriter()
    first = writer.write_packet(data, sender=sender, acceptor="Victim", handshake=False)
    frames = _frames_of(first[24:])
    carrying = [f for f in frames if f[4]]
    assert [len(f[4]) for f in carrying] == [1460, 1359]
    assert b"".join(f[4] for f in carrying) == data
    assert [f[3] for f in carrying] == [TCP_ACK, TCP_ACK | TCP_PSH]
    assert all(f[2] == 1801 and f[1] != 1801 for f in carrying)  # from the sender
    assert carrying[0][0] == carrying[1][0]
    after = frames[frames.index(carrying[-1]) + 1]
    assert round((after[0] - carrying[-1][0]) * 1e6) == 100
    assert (writer.messages, writer.bytes) == (1, len(first))  # the global header counted
    second = writer.write_packet(data, sender=sender, acceptor="victim", handshake=False)
    assert (writer.messages, writer.bytes) == (2, len(first) + len(second))

    def one(**options: object) -> bytes:
        return PcapWriter().write_packet(data, sender=sender, **options)  # type: ignore[arg-type]

    assert one(acceptor="VICTIM", handshake=False) == one(acceptor="victim", handshake=False)
    frame = PcapWriter().write_packet(data, sender=sender, acceptor="VICTIM")[24 + 16 :]
    assert frame[30:34] == address_of("victim")  # the acceptor's address, by its name in lower case
    shaken = PcapWriter().write_packet(data, sender=sender, acceptor="VICTIM")
    assert uuid.uuid5(uuid.NAMESPACE_URL, "victim").bytes_le in shaken  # its queue manager too
    assert uuid.uuid5(uuid.NAMESPACE_URL, "VICTIM").bytes_le not in shaken
    exact = bytes(2 * 1460)  # the last segment ends at the end of the bytes: PSH there
    sent = [
        f
        for f in _frames_of(
            PcapWriter().write_packet(exact, sender=sender, acceptor="v", handshake=False)[24:]
        )
        if f[4]
    ]
    assert [f[3] for f in sent] == [TCP_ACK, TCP_ACK | TCP_PSH]
    assert one(acceptor="victim") == one(acceptor="victim", handshake=True)
    assert one(acceptor="victim") != one(acceptor="victim", handshake=False)
    handshaken = [f for f in _frames_of(one(acceptor="victim")[24:]) if f[4]]
    assert handshaken[0][4][4:8] == b"LIOR" and handshaken[-1][4] == data[-1359:]


def test_the_missing_handshake_is_one_finding_a_stream_with_its_words() -> None:
    """MQQB-3.1.5.8-1 once a stream, on its first packet: a second UserMessage on the same
    stream carries none; a first UserMessage refused carries it beside its refusal."""
    records = read(pcap(frames(segments(stray_byte() + stray_byte()[:-1] + b"\x00"))))
    packets = [r for r in records if isinstance(r, Packet) and r.kind == "UserMessage"]
    assert [len(p.findings) for p in packets] == [1, 0]
    assert packets[0].findings[0].message == (
        "the stream opens with a UserMessage Packet at offset 0: no EstablishConnection and "
        "ConnectionParameters exchange opened the session ([MS-MQQB] 2.1.1)"
    )
    broken = bytearray(stray_byte())
    from mqcn_model.wire import user as U

    flags = int.from_bytes(broken[60:64], "little") & ~(7 << U.DQ_SHIFT) | (6 << U.DQ_SHIFT)
    broken[60:64] = flags.to_bytes(4, "little")  # Flags.DQ 6: the packet is refused
    (refused,) = [
        r
        for r in read(pcap(frames(segments(bytes(broken)))))
        if isinstance(r, Packet) and r.kind == "UserMessage"
    ]
    assert refused.violation is not None
    assert [f.requirement for f in refused.findings] == ["MQQB-3.1.5.8-1"]
