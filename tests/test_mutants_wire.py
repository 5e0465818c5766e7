"""Sharper tests of the wire codec (mqcn_model/wire/), written for the mutants of
``mqcn selftest mutation`` that the broader wire tests let survive (issue 19).

Each test states one behaviour of the codec in its own right (a round trip, a size the header
states, a rule's edge); the mutant it was written for is named in its docstring.
"""

from __future__ import annotations

import uuid

from mqcn_model.wire.acks import FinalAckBody, decode_final_ack_body, encode_final_ack_body
from mqcn_model.wire.properties import MessageProperties, encode_properties
from mqcn_model.wire.transaction import CG, TransactionHeader, encode_transaction


def test_a_final_ack_body_round_trips_every_field() -> None:
    """``encode_final_ack_body`` writes all six fields (each one an ArgDelete mutant)."""
    body = FinalAckBody(7, 0x5F5E100, 12, 11, uuid.UUID(int=0x0102030405060708090A0B0C0D0E0F10), 99)
    wire = encode_final_ack_body(body)
    assert len(wire) == 0x24
    assert decode_final_ack_body(wire, 0) == body


def test_the_size_of_a_properties_header_is_its_encoded_length() -> None:
    """``MessageProperties.size`` counts the label, extension, body, slack and padding."""
    for properties in (
        MessageProperties(),
        MessageProperties(label="q", extension=b"\x01\x02", body=b"abc", body_slack=b"\x00"),
        MessageProperties(label="notification", body=bytes(17)),
    ):
        assert properties.size == len(encode_properties(properties))


def test_the_size_of_a_transaction_header_counts_the_connector_guid() -> None:
    """``TransactionHeader.size``: 20 bytes, 36 with Flags.CG and its ConnectorQMGuid."""
    plain = TransactionHeader()
    connected = TransactionHeader(flags=CG, connector_qm=uuid.UUID(int=5))
    assert (plain.size, connected.size) == (20, 36)
    assert plain.size == len(encode_transaction(plain))
    assert connected.size == len(encode_transaction(connected))
