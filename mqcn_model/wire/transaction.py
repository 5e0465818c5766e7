"""TransactionHeader ([MS-MQMQ] 2.2.20.5): where a transactional message sits in its sequence.

Layout::

    Flags(4) TxSequenceID(8: Ordinal, TimeStamp) TxSequenceNumber(4)
    PreviousTxSequenceNumber(4) [ConnectorQMGuid(16) when Flags.CG]

Flags, bit 0 least significant: CG 0 (ConnectorQMGuid present), FA 1 (FinalAck wanted),
FM 2 (first in the transaction), LM 3 (last), ID bits 4-23 (transaction identifier).

>>> t = TransactionHeader(flags=FM | LM, sequence_number=1)
>>> wire = encode_transaction(t)
>>> len(wire), decode_transaction(wire, 0, len(wire))[0] == t
(20, True)
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.wire.common import GUID_SIZE, Findings, breach, guid_at, need
from mqcn_model.wire.declared import layout, pack, part, wire

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_SEQUENCE = req("MQMQ-2.2.20.5-1")
R_PREVIOUS = req("MQMQ-2.2.20.5-2")

TRANSACTION_FIXED_SIZE = 20
CG, FA, FM, LM = 1 << 0, 1 << 1, 1 << 2, 1 << 3
ID_SHIFT, ID_MASK = 4, 0xFFFFF << 4
FLAG_NAMES = {CG: "CG", FA: "FA", FM: "FM", LM: "LM"}


@dataclass(slots=True)
class TransactionHeader:
    """A decoded (or to-be-built) TransactionHeader; TxSequenceID is (ordinal, timestamp).
    Declared once (:mod:`mqcn_model.wire.declared`)."""

    flags: int = wire(
        "Flags", "I", groups=(("X", 8), ("ID", 20), ("LM", 1), ("FM", 1), ("FA", 1), ("CG", 1))
    )
    sequence_ordinal: int = wire("TxSequenceOrdinal", "I")
    sequence_timestamp: int = wire("TxSequenceTimeStamp", "I")
    sequence_number: int = wire("TxSequenceNumber", "I", default=1, requirement=R_SEQUENCE)
    previous_number: int = wire("PreviousTxSequenceNumber", "I", requirement=R_PREVIOUS)
    connector_qm: uuid.UUID | None = part("ConnectorQMGuid", default=None, when="CG")

    @property
    def transaction_id(self) -> int:
        return (self.flags & ID_MASK) >> ID_SHIFT

    @property
    def size(self) -> int:
        return TRANSACTION_FIXED_SIZE + (GUID_SIZE if self.flags & CG else 0)


_FIXED = layout(TransactionHeader).struct


def decode_transaction(
    buf: bytes, offset: int, end: int, findings: Findings = None
) -> tuple[TransactionHeader, int]:
    need(offset, TRANSACTION_FIXED_SIZE, end, R_PACKET_SIZE, "a TransactionHeader")
    flags, ordinal, stamp, number, previous = _FIXED.unpack_from(buf, offset)
    if number < 1:
        breach(findings, R_SEQUENCE, offset + 12, "TxSequenceNumber is 0")
    if previous > 0xFFFFFFFE or previous >= number:
        breach(
            findings,
            R_PREVIOUS,
            offset + 16,
            f"PreviousTxSequenceNumber {previous} does not precede TxSequenceNumber {number}",
        )
    header = TransactionHeader(flags, ordinal, stamp, number, previous)
    offset += TRANSACTION_FIXED_SIZE
    if flags & CG:
        need(offset, GUID_SIZE, end, R_PACKET_SIZE, "the ConnectorQMGuid")
        header.connector_qm = guid_at(buf, offset)
        offset += GUID_SIZE
    return header, offset


def encode_transaction(header: TransactionHeader) -> bytes:
    if bool(header.flags & CG) != (header.connector_qm is not None):
        raise ValueError("Flags.CG and the ConnectorQMGuid field disagree")
    return pack(header) + (header.connector_qm.bytes_le if header.connector_qm else b"")
