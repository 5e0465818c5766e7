"""UserHeader ([MS-MQMQ] 2.2.19.2): who sent the message, where it goes, which headers follow.

Layout::

    SourceQueueManager(16) QueueManagerAddress(16) TimeToBeReceived(4) SentTime(4)
    MessageID(4) Flags(4) DestinationQueue AdminQueue ResponseQueue [ConnectorType(16)]

Flags, bit 0 least significant: RC 0-4 (hop count), DM 5-6 (delivery), JN 8, JP 9 (source
journaling), DQ 10-12, AQ 13-15, RQ 16-18 (queue types, :mod:`.queues`), SH 19 (a
SecurityHeader follows), TH 20 (TransactionHeader), MP 21 (MessagePropertiesHeader), CQ 22
(ConnectorType), MQ 23 (MultiQueueFormatHeader), AH 25 (received over HTTP), HH 28
(SoapHeader); bits 7, 24, 26-27 and 29-31 are reserved.

>>> import uuid
>>> h = UserHeader(uuid.UUID(int=1), uuid.UUID(int=2), 0xFFFFFFFF, 0, 7,
...                compose_user_flags(dq=3), QueueFormat.private_number(3, 3))
>>> wire = encode_user_header(h)
>>> len(wire), decode_user_header(wire, 0, len(wire))[0] == h
(52, True)
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.errors import fail
from mqcn_model.wire.base import INFINITE
from mqcn_model.wire.common import (
    GUID_SIZE,
    NIL,
    READING,
    Findings,
    Letter,
    breach,
    guid_at,
    need,
)
from mqcn_model.wire.declared import layout, pack, part, wire
from mqcn_model.wire.queues import (
    AQ_CODES,
    CODE_NAMES,
    DQ_CODES,
    QueueFormat,
    decode_queue,
    encode_queue,
    format_name,
)

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_HOP_COUNT = req("MQMQ-2.2.19.2-1")
R_DELIVERY = req("MQMQ-2.2.19.2-2")
R_DQ = req("MQMQ-2.2.19.2-3")
R_AQ = req("MQMQ-2.2.19.2-4")
R_TRANSACTIONAL_EXPRESS = req("MQMQ-2.2.19.2-5")
R_MP = req("MQMQ-2.2.19.2-6")
R_AH = req("MQMQ-2.2.19.2-7")
R_DIRECT_NULL_QM = req("MQMQ-2.2.19.2-8")

USER_FIXED_SIZE = 48
MAX_HOP_COUNT = 0x1D
RC_MASK = 0x1F
DM_SHIFT, DM_MASK = 5, 0x3 << 5
JN = 1 << 8
JP = 1 << 9
DQ_SHIFT = 10
AQ_SHIFT = 13
RQ_SHIFT = 16
SH = 1 << 19
TH = 1 << 20
MP = 1 << 21
CQ = 1 << 22
MQ = 1 << 23
AH = 1 << 25
HH = 1 << 28
QUEUE_CODE_MASK = (0x7 << DQ_SHIFT) | (0x7 << AQ_SHIFT) | (0x7 << RQ_SHIFT)
# bits that say which other headers the packet holds (set by the packet builder)
PRESENCE_MASK = SH | TH | MP | CQ | MQ | HH
FLAG_NAMES = {
    JN: "JN",
    JP: "JP",
    SH: "SH",
    TH: "TH",
    MP: "MP",
    CQ: "CQ",
    MQ: "MQ",
    AH: "AH",
    HH: "HH",
}

# the Flags bit groups, most significant first (X4: bits 31-29)
FLAG_GROUPS = (
    ("X4", 3), ("HH", 1), ("X3", 2), ("AH", 1), ("X2", 1), ("MQ", 1), ("CQ", 1), ("MP", 1),
    ("TH", 1), ("SH", 1), ("RQ", 3, CODE_NAMES), ("AQ", 3, CODE_NAMES), ("DQ", 3, CODE_NAMES),
    ("JP", 1), ("JN", 1), ("X1", 1), ("DM", 2, {0: "Express", 1: "Recoverable"}), ("RC", 5),
)  # fmt: skip


def compose_user_flags(
    *,
    hop_count: int = 0,
    delivery: int = 0,
    journal_negative: bool = False,
    journal_positive: bool = False,
    dq: int = 0,
    aq: int = 0,
    rq: int = 0,
    security: bool = False,
    transaction: bool = False,
    properties: bool = True,
    connector: bool = False,
    mqf: bool = False,
    http: bool = False,
    soap: bool = False,
    reserved: int = 0,
) -> int:
    """UserHeader.Flags from its parts (``reserved``: raw bits OR-ed in as they are).

    >>> hex(compose_user_flags(delivery=1, dq=3))
    '0x200c20'
    """
    return (
        (hop_count & RC_MASK)
        | ((delivery & 0x3) << DM_SHIFT)
        | (JN if journal_negative else 0)
        | (JP if journal_positive else 0)
        | ((dq & 7) << DQ_SHIFT)
        | ((aq & 7) << AQ_SHIFT)
        | ((rq & 7) << RQ_SHIFT)
        | (SH if security else 0)
        | (TH if transaction else 0)
        | (MP if properties else 0)
        | (CQ if connector else 0)
        | (MQ if mqf else 0)
        | (AH if http else 0)
        | (HH if soap else 0)
        | reserved
    )


@dataclass(slots=True)
class UserHeader:
    """A decoded (or to-be-built) UserHeader; ``flags`` is the raw 32-bit Flags field and
    ``destination_qm`` is QueueManagerAddress."""

    source_qm: uuid.UUID = wire("SourceQueueManager", "16s", kind="guid", default=NIL)
    destination_qm: uuid.UUID = wire("QueueManagerAddress", "16s", kind="guid", default=NIL)
    time_to_be_received: int = wire("TimeToBeReceived", "I", default=INFINITE, kind="hex")
    sent_time: int = wire("SentTime", "I")
    message_id: int = wire("MessageID", "I", default=1)
    flags: int = wire("Flags", "I", default=MP | 3 << DQ_SHIFT, groups=FLAG_GROUPS)
    destination: QueueFormat | None = part("DestinationQueue", default=None, when="DQ")
    admin: QueueFormat | None = part("AdminQueue", default=None, when="AQ")
    response: QueueFormat | None = part("ResponseQueue", default=None, when="RQ")
    connector_type: uuid.UUID | None = part("ConnectorType", default=None, when="CQ")

    @property
    def hop_count(self) -> int:
        return self.flags & RC_MASK

    @property
    def delivery(self) -> int:
        return (self.flags & DM_MASK) >> DM_SHIFT

    @property
    def dq(self) -> int:
        return (self.flags >> DQ_SHIFT) & 7

    @property
    def aq(self) -> int:
        return (self.flags >> AQ_SHIFT) & 7

    @property
    def rq(self) -> int:
        return (self.flags >> RQ_SHIFT) & 7

    def has(self, bit: int) -> bool:
        """Whether flag ``bit`` (one of SH, TH, MP, CQ, MQ, AH, HH, JN, JP) is set."""
        return bool(self.flags & bit)


_FIXED = layout(UserHeader).struct


def decode_user_header(
    buf: bytes, offset: int, end: int, findings: Findings = None, letter: Letter = READING
) -> tuple[UserHeader, int]:
    """Read a UserHeader at ``offset``; ``end`` is where the packet ends (PacketSize).

    With ``letter`` following W-06, RQ 0x4 has no ResponseQueue field and RQ 0x1 has one,
    laid out as the administration queue (whose copy it is); ``response`` stays None for
    both, as the field names no other queue than the 2.2.19.2 text gives."""
    start = offset
    need(offset, USER_FIXED_SIZE, end, R_PACKET_SIZE, "a UserHeader")
    _, _, ttbr, sent, message_id, flags = _FIXED.unpack_from(buf, offset)
    flags_at = offset + 44
    header = UserHeader(
        guid_at(buf, offset), guid_at(buf, offset + 16), ttbr, sent, message_id, flags
    )
    # the properties of the same names, from the flags at hand
    hop_count, delivery = flags & RC_MASK, (flags & DM_MASK) >> DM_SHIFT
    dq, aq = (flags >> DQ_SHIFT) & 7, (flags >> AQ_SHIFT) & 7
    if hop_count > MAX_HOP_COUNT:
        breach(findings, R_HOP_COUNT, flags_at, f"Flags.RC is {hop_count}, above 0x1D")
    if delivery > 1:
        breach(findings, R_DELIVERY, flags_at, f"Flags.DM is {delivery}, not 0 or 1")
    if dq not in DQ_CODES:
        raise fail(R_DQ, flags_at + 1, f"Flags.DQ is {dq}, not 0, 3, 5 or 7")
    if aq not in AQ_CODES:
        raise fail(R_AQ, flags_at + 1, f"Flags.AQ is {aq}, not 0, 2, 3, 5, 6 or 7")
    if flags & TH and delivery == 0:
        breach(
            findings, R_TRANSACTIONAL_EXPRESS, flags_at, "Flags.TH is set but Flags.DM is express"
        )
    if not flags & MP:
        raise fail(R_MP, flags_at + 2, "Flags.MP is clear: no MessagePropertiesHeader")
    if flags & AH:
        breach(findings, R_AH, flags_at + 3, "Flags.AH is set in a packet on the wire")
    if dq == 7 and header.destination_qm != NIL:
        breach(
            findings,
            R_DIRECT_NULL_QM,
            offset + 16,
            f"the destination is direct but QueueManagerAddress is {header.destination_qm}",
        )
    offset += USER_FIXED_SIZE
    header.destination, offset = decode_queue(buf, offset, end, dq, start, what="destination")
    header.admin, offset = decode_queue(buf, offset, end, aq, start, what="admin")
    if letter.items and letter.follows("W-06") and header.rq in (1, 4):
        offset = _letter_response(buf, offset, end, header, start, letter)
    else:
        header.response, offset = decode_queue(buf, offset, end, header.rq, start, what="response")
    if flags & CQ:
        need(offset, GUID_SIZE, end, R_PACKET_SIZE, "the ConnectorType")
        header.connector_type = guid_at(buf, offset)
        offset += GUID_SIZE
    return header, offset


def _letter_response(
    buf: bytes, offset: int, end: int, header: UserHeader, start: int, letter: Letter
) -> int:
    """W-06's letter of the ResponseQueue for RQ 0x1 and 0x4; the offset after it."""
    if header.rq == 4:
        letter.read(
            "W-06",
            offset,
            "RQ 0x4 carries no ResponseQueue field (the response queue is a private queue "
            "on the administration queue's host, its number not given)",
        )
        return offset
    if header.admin is None:  # AQ 0: no layout to copy, both readings read nothing
        return offset
    copy, after = decode_queue(buf, offset, end, header.aq, start, what="response")
    same = "the same as" if copy == header.admin else "NOT the same as"
    name = format_name(copy, source=header.source_qm, destination=header.destination_qm)
    letter.read(
        "W-06",
        offset,
        f"RQ 0x1 carries a ResponseQueue field ({after - offset} bytes, laid out as AQ "
        f"0x{header.aq:x}: {name}), {same} the AdminQueue",
    )
    return after


def _check_queue(label: str, code: int, queue: QueueFormat | None) -> None:
    have = 0 if queue is None else queue.code
    if code in (0, 1) and queue is None:
        return
    if have != code:
        raise ValueError(f"Flags say {label} type {code} but the {label} queue has type {have}")


def encode_user_header(header: UserHeader) -> bytes:
    """The wire bytes of ``header``; its Flags are written as they are.

    Raises ValueError when the Flags and the queue fields or ConnectorType disagree (the
    fast codec writes only what it can read back; build malformed headers with
    :mod:`mqcn_model.wire.packet_layers`).
    """
    _check_queue("DQ", header.dq, header.destination)
    _check_queue("AQ", header.aq, header.admin)
    _check_queue("RQ", header.rq, header.response)
    if bool(header.flags & CQ) != (header.connector_type is not None):
        raise ValueError("Flags.CQ and the ConnectorType field disagree")
    parts = [
        pack(header),
        encode_queue(header.destination),
        encode_queue(header.admin),
        encode_queue(header.response),
    ]
    if header.connector_type is not None:
        parts.append(header.connector_type.bytes_le)
    return b"".join(parts)
