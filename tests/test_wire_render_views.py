"""The JSON views of the [MS-MQRR] 2.2.5 headers and of each header record (issue 35).

``mqcn decode --packet --json`` prints :func:`packet_to_json`; a salvaged packet's headers
are printed one by one with :func:`header_to_json`.  Each test states one rule a reader of
that JSON relies on, with the whole expected view written out: every key and value, bytes
as hex, text as text, Flags fields with their named bits.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace

from test_wire_real_senders import ENVELOPE_TEXT, HTTP, probe, srmp

from mqcn_model.wire.base import BaseHeader
from mqcn_model.wire.debug import DebugHeader
from mqcn_model.wire.extensions import (
    CompoundMessageHeader,
    ExtendedAddressHeader,
    ExtensionHeader,
    Extensions,
    SubqueueHeader,
    compound_message,
    extensions,
    srmp_envelope,
)
from mqcn_model.wire.mqf import MultiQueueFormat
from mqcn_model.wire.properties import MessageProperties
from mqcn_model.wire.queues import MQFElement
from mqcn_model.wire.render import (
    base_to_json,
    compound_to_json,
    debug_to_json,
    extensions_to_json,
    header_to_json,
    mqf_to_json,
    packet_to_json,
    properties_to_json,
    security_to_json,
    session_to_json,
    soap_to_json,
    srmp_envelope_to_json,
    transaction_to_json,
    user_to_json,
)
from mqcn_model.wire.security import ST_QM_GUID, SecurityHeader
from mqcn_model.wire.session import SessionHeader
from mqcn_model.wire.soap import SoapHeader
from mqcn_model.wire.transaction import TransactionHeader
from mqcn_model.wire.usermessage import decode_user_message, encode_user_message

G1 = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")
HTTP_SHORT = b"POST / HTTP/1.1\r\n\r\n"
DEAD = "DIRECT=OS:victim\\private$\\dead"


def name_field(text: str) -> bytes:
    """A 64-byte SubqueueName field: ``text`` in UTF-16, its terminator, zeros."""
    raw = text.encode("utf-16-le")
    return raw + bytes(64 - len(raw))


def full_chain() -> Extensions:
    """An extension chain with every header it can flag, each field a distinct value."""
    return extensions(
        subqueue=SubqueueHeader(
            word=(5 << 1) | 1,  # TM set, AcknowledgementClass 5
            abort_counter=2,
            move_counter=3,
            last_move_time=4,
            subqueue_name=name_field("poison"),
            target_subqueue_name=name_field("retry"),
        ),
        dead_letter=DEAD,
        extended_address=ExtendedAddressHeader(
            address_length=4,
            address_type=1,
            address_scope=0,
            address=bytes([10, 0, 0, 7]) + bytes(12),
        ),
    )


# --- SRMPEnvelopeHeader --------------------------------------------------------------------


def test_the_srmp_envelope_view_gives_the_fixed_fields_and_the_envelope_as_text() -> None:
    """A reader finds the SOAP envelope as text under ``envelope`` (not its UTF-16 bytes),
    after the fixed fields, and ``unit`` saying how DataLength counted it."""
    header = srmp_envelope("<se:Envelope/>")
    expected = {
        "header_id": 0,
        "reserved": 0,
        "data_length": 15,
        "envelope": "<se:Envelope/>",
        "unit": "WCHAR",
    }
    assert srmp_envelope_to_json(header) == expected
    assert list(srmp_envelope_to_json(header)) == list(expected)
    assert header_to_json(header) == expected


def test_an_envelope_with_a_lone_surrogate_is_valid_json_text() -> None:
    header = srmp_envelope("<e>\ud800</e>", unit="byte")
    view = srmp_envelope_to_json(header)
    assert view == {
        "header_id": 0,
        "reserved": 0,
        "data_length": 18,
        "envelope": "<e>\ufffd</e>",
        "unit": "byte",
    }
    json.dumps(view).encode("utf-8")


# --- CompoundMessageHeader -----------------------------------------------------------------


def test_the_compound_view_splits_data_into_the_http_text_and_the_body_in_hex() -> None:
    """Data itself is not shown: the HTTP part as text, the message body as hex, and the
    size of Data -- every fixed field as on the wire."""
    header = compound_message(HTTP_SHORT, b"xy")
    expected = {
        "header_id": 0,
        "reserved": 0,
        "http_body_size": 21,
        "msg_body_size": 2,
        "msg_body_offset": 19,
        "http": "POST / HTTP/1.1\r\n\r\n",
        "message_body": "7879",
        "after_body": "",
        "data_size": 21,
    }
    assert compound_to_json(header) == expected
    assert list(compound_to_json(header)) == list(expected)
    assert header_to_json(header) == expected


def test_a_byte_of_the_http_part_that_is_not_utf8_is_shown_as_a_replacement_character() -> None:
    """The view never refuses a packet's HTTP part: a byte that is not UTF-8 is U+FFFD."""
    header = compound_message(b"X-A: \xff\xfe\r\n\r\n", b"")
    assert compound_to_json(header) == {
        "header_id": 0,
        "reserved": 0,
        "http_body_size": 11,
        "msg_body_size": 0,
        "msg_body_offset": 11,
        "http": "X-A: \ufffd\ufffd\r\n\r\n",
        "message_body": "",
        "after_body": "",
        "data_size": 11,
    }


def test_data_size_counts_all_of_data_not_only_the_http_part() -> None:
    """A body short of Data's end: ``data_size`` is Data's length, ``http`` stops at the
    body, and the bytes after the body are ``after_body`` (never dropped)."""
    header = CompoundMessageHeader(0, 0, 6, 1, 1, b"ABcdef")
    view = compound_to_json(header)
    assert (view["http"], view["message_body"], view["data_size"]) == ("A", "42", 6)
    assert view["after_body"] == "636465 66".replace(" ", "")


# --- the extension chain -------------------------------------------------------------------


def test_the_extension_chain_view_shows_each_header_it_carries() -> None:
    """Each header of the chain under its own key; the SubqueueHeader's word taken apart
    into TM and AcknowledgementClass and its names as text; the dead-letter path as text;
    the address type by name."""
    assert extensions_to_json(full_chain()) == {
        "extension_header": {
            "header_size": 12,
            "remaining_headers_size": 148 + 68 + 28,
            "flags": 0x13,
            "flags_bits": ["DL", "SQ", "EA"],
            "reserved": "000000",
        },
        "subqueue_header": {
            "header_size": 148,
            "word": 11,
            "word_bits": ["TM"],
            "abort_counter": 2,
            "move_counter": 3,
            "last_move_time": 4,
            "subqueue_name": "poison",
            "target_subqueue_name": "retry",
            "tm": 1,
            "acknowledgement_class": 5,
        },
        "dead_letter_header": {"header_size": 68, "path": DEAD},
        "extended_address_header": {
            "header_size": 28,
            "address_length": 4,
            "address_type": 1,
            "address_scope": 0,
            "address": "0a000007" + "00" * 12,
            "address_type_name": "IPv4",
        },
    }


def test_tm_is_bit_0_of_the_word_alone() -> None:
    """``tm`` is 0 or 1: bit 0 of the word, whatever the class above it."""
    for word, tm, ack_class in ((0, 0, 0), (2, 0, 1), (3, 1, 1), (0xFFFE, 0, 0x7FFF)):
        view = extensions_to_json(extensions(subqueue=SubqueueHeader(word=word)))
        sub = view["subqueue_header"]
        assert (sub["tm"], sub["acknowledgement_class"]) == (tm, ack_class), word


def test_a_chain_without_its_headers_shows_null_for_each() -> None:
    """An ExtensionHeader alone: each header it does not flag is null, not absent."""
    assert extensions_to_json(Extensions(ExtensionHeader(12, 0, 0))) == {
        "extension_header": {
            "header_size": 12,
            "remaining_headers_size": 0,
            "flags": 0,
            "flags_bits": [],
            "reserved": "000000",
        },
        "subqueue_header": None,
        "dead_letter_header": None,
        "extended_address_header": None,
    }


def test_an_unknown_address_type_has_no_invented_name() -> None:
    chain = extensions(extended_address=ExtendedAddressHeader(address_type=0x0006))
    assert extensions_to_json(chain)["extended_address_header"]["address_type_name"] == "IPv6"
    chain = extensions(extended_address=ExtendedAddressHeader(address_type=0x0002))
    assert extensions_to_json(chain)["extended_address_header"]["address_type_name"] is None


# --- the other header records --------------------------------------------------------------


def test_the_debug_view_gives_the_queue_type_and_identifier() -> None:
    header = DebugHeader(flags=1, reserved=6, queue=G1)
    expected = {"flags": 1, "queue_type": 1, "reserved": 6, "queue_identifier": str(G1)}
    assert debug_to_json(header) == expected and header_to_json(header) == expected
    assert debug_to_json(DebugHeader()) == {
        "flags": 0,
        "queue_type": 0,
        "reserved": 0,
        "queue_identifier": None,
    }


def test_the_soap_view_gives_header_and_body_as_text() -> None:
    header = SoapHeader("<h/>", "<b>\ud800</b>")
    expected = {"header": "<h/>", "body": "<b>\ufffd</b>"}
    assert soap_to_json(header) == expected and header_to_json(header) == expected


def test_header_to_json_gives_each_header_record_its_own_view() -> None:
    """A salvaged packet's headers are shown one by one: each record with the same view it
    has inside :func:`packet_to_json`."""
    message = probe()
    records = [
        (BaseHeader(flags=0x100), base_to_json),
        (message.user, user_to_json),
        (TransactionHeader(1, 2, 3, 4, 3, connector_qm=G1), transaction_to_json),
        (SecurityHeader(ST_QM_GUID, sender_id=G1.bytes_le), security_to_json),
        (MessageProperties(label="L", body=b"x"), properties_to_json),
        (DebugHeader(flags=1, queue=G1), debug_to_json),
        (srmp_envelope("<e/>"), srmp_envelope_to_json),
        (compound_message(HTTP_SHORT, b"xy"), compound_to_json),
        (SoapHeader("h", "b"), soap_to_json),
        (MultiQueueFormat([MQFElement(1, guid=G1)], [], []), mqf_to_json),
        (full_chain(), extensions_to_json),
        (SessionHeader(1, 2, 3, 4, 5, 64, 7), session_to_json),
    ]
    for record, view in records:
        assert header_to_json(record) == view(record), type(record).__name__


# --- packet_to_json ------------------------------------------------------------------------


PACKET_KEYS = [
    "kind",
    "base_header",
    "user_header",
    "transaction_header",
    "security_header",
    "message_properties_header",
    "debug_header",
    "srmp_envelope_header",
    "compound_message_header",
    "soap_header",
    "multi_queue_format_header",
    "extensions",
    "session_header",
    "ack_body",
    "letter",
]


def test_an_srmp_message_shows_its_mqrr_headers_in_wire_order() -> None:
    """The SRMP pair after the DebugHeader's place and the extension chain after the
    MultiQueueFormatHeader's, as on the wire; each with its own view."""
    packet = decode_user_message(srmp(body_size=3))[0]
    view = packet_to_json(packet)
    assert list(view) == PACKET_KEYS
    assert view["srmp_envelope_header"] == {
        "header_id": 0,
        "reserved": 0,
        "data_length": len(ENVELOPE_TEXT) + 1,
        "envelope": ENVELOPE_TEXT,
        "unit": "WCHAR",
    }
    assert view["compound_message_header"] == {
        "header_id": 0,
        "reserved": 0,
        "http_body_size": len(HTTP) + 3,
        "msg_body_size": 3,
        "msg_body_offset": len(HTTP),
        "http": HTTP.decode("ascii"),
        "message_body": "424242",
        "after_body": "",
        "data_size": len(HTTP) + 3,
    }
    assert view["extensions"] == {
        "extension_header": {
            "header_size": 12,
            "remaining_headers_size": 0,
            "flags": 0,
            "flags_bits": [],
            "reserved": "000000",
        },
        "subqueue_header": None,
        "dead_letter_header": None,
        "extended_address_header": None,
    }
    assert json.loads(json.dumps(view)) == view


def test_a_packet_with_a_full_chain_shows_it_as_extensions_to_json_does() -> None:
    packet = decode_user_message(srmp(body_size=0))[0]
    chain = full_chain()
    wire = encode_user_message(replace(packet, extensions=chain))
    decoded = decode_user_message(wire)[0]
    assert packet_to_json(decoded)["extensions"] == extensions_to_json(chain)


def test_a_message_without_the_mqrr_headers_has_null_for_each() -> None:
    view = packet_to_json(decode_user_message(encode_user_message(probe()))[0])
    assert list(view) == PACKET_KEYS
    absent = ("srmp_envelope_header", "compound_message_header", "extensions")
    assert {key: view[key] for key in absent} == dict.fromkeys(absent)
