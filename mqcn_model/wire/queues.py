"""Queue names on the wire: the UserHeader queue formats and the MQFFormatNameElement.

UserHeader.DestinationQueue, AdminQueue and ResponseQueue ([MS-MQMQ] 2.2.19.2) are typed by
the 3-bit DQ, AQ and RQ codes of UserHeader.Flags.  The code picks one of five layouts:

========  ===============================================  =======================
layout    codes                                            bytes
========  ===============================================  =======================
none      0 (and RQ 1: "same as the administration queue")  nothing
private   DQ 3, AQ 2/3, RQ 2/3/4 (PrivateQueueFormatNameId)  4: the queue number
public    5 (PublicQueueFormatName)                        16: the queue GUID
private   AQ/RQ 6 (PrivateQueueFormatName)                 16 host GUID + 4 number
direct    7 (DirectQueueFormatName)                        Count(2) + UTF-16LE name,
                                                           padded to 4 bytes
========  ===============================================  =======================

A PrivateQueueFormatNameId carries only the queue number; its host is the source queue
manager (code 2), the destination (3) or the administration queue's host (RQ 4).  The
MQFFormatNameElement (2.2.18.1.4) of the MultiQueueFormatHeader is self-typed instead
(FormatType 1 public, 2 private, 3 direct, 6 distribution list); its GUIDs start on a 4-byte
boundary of the header (errata W-07's reading).  W-07's letter, read when a packet adds up
only so, puts a public element's GUID right after its FormatType.

Text forms are the [MS-MQMQ] 2.1 format names the suite uses (``PRIVATE=<guid>\\<hex>``,
``PUBLIC=<guid>``, ``DIRECT=<name>``, ``DL=<guid>``); the queue number is written in hex
without leading zeros, so the notification queue is ``PRIVATE=<guid>\\3`` as in MS-MQCN 1.9.

>>> q = QueueFormat.direct_name("TCP:10.0.0.1\\\\private$\\\\orders")
>>> wire = encode_queue(q)
>>> len(wire) % 4, decode_queue(wire, 0, len(wire), 7, 0)[0] == q
(0, True)
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.errors import fail
from mqcn_model.wire.common import GUID_SIZE, READING, U16, U32, Letter, align4, guid_at, need

R_DIRECT = req("MQMQ-2.2.18.1.5.2-1")
R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_MQF_TYPE = req("MQMQ-2.2.18.1.4-1")
R_MQF_DIRECT = req("MQMQ-2.2.18.1.4.1-1")
R_MQF_FITS = req("MQMQ-2.2.20.2-1")

NONE = "none"
SAME_AS_ADMIN = "same-as-admin"
PRIVATE_ID = "private-id"
PUBLIC = "public"
PRIVATE = "private"
DIRECT = "direct"

# layout of each 3-bit queue type code (the same table serves DQ, AQ and RQ; W-06 for RQ 1/4)
LAYOUT: dict[int, str] = {
    0: NONE,
    1: SAME_AS_ADMIN,
    2: PRIVATE_ID,
    3: PRIVATE_ID,
    4: PRIVATE_ID,
    5: PUBLIC,
    6: PRIVATE,
    7: DIRECT,
}
DQ_CODES = frozenset({0, 3, 5, 7})
AQ_CODES = frozenset({0, 2, 3, 5, 6, 7})
RQ_CODES = frozenset(range(8))

# the [MS-MQDMPR] 3.1.1.12 names of the codes (DestinationQueueType, AdministrationQueueType,
# ResponseQueueType)
CODE_NAMES: dict[int, str] = {
    0: "None",
    1: "SameAsAdministrationQueue",
    2: "PrivateQueueOnSource",
    3: "PrivateQueueOnDestination",
    4: "PrivateQueueOnAdmin",
    5: "PublicQueue",
    6: "PrivateQueueOnOther",
    7: "DirectQueue",
}


@dataclass(slots=True)
class QueueFormat:
    """One UserHeader queue field: its type ``code`` and the values its layout carries."""

    code: int
    private_id: int | None = None
    guid: uuid.UUID | None = None
    direct: str | None = None

    @property
    def layout(self) -> str:
        return LAYOUT[self.code]

    @classmethod
    def private_number(cls, code: int, number: int) -> QueueFormat:
        """A PrivateQueueFormatNameId under ``code`` (2, 3 or 4)."""
        return cls(code, private_id=number)

    @classmethod
    def public(cls, guid: uuid.UUID) -> QueueFormat:
        return cls(5, guid=guid)

    @classmethod
    def private_on(cls, host: uuid.UUID, number: int) -> QueueFormat:
        """A PrivateQueueFormatName (code 6): host queue manager GUID and queue number."""
        return cls(6, private_id=number, guid=host)

    @classmethod
    def direct_name(cls, name: str) -> QueueFormat:
        """A DirectQueueFormatName; ``name`` is what follows ``DIRECT=`` in the format name."""
        return cls(7, direct=name)


def decode_queue(
    buf: bytes, offset: int, end: int, code: int, header_start: int, *, what: str = "queue"
) -> tuple[QueueFormat | None, int]:
    """Read the queue field typed by ``code`` at ``offset``; None for codes 0 and 1.

    ``header_start`` is where the UserHeader began: a direct name is padded to 4 bytes
    relative to it.  ``end`` bounds the packet (a field past it breaks PacketSize, which the
    caller's requirement names through :func:`need`).
    """
    layout = LAYOUT[code]
    if layout in (NONE, SAME_AS_ADMIN):
        return None, offset
    if layout == PRIVATE_ID:
        need(offset, 4, end, R_PACKET_SIZE, f"the {what} queue number")
        return QueueFormat(code, private_id=U32.unpack_from(buf, offset)[0]), offset + 4
    if layout == PUBLIC:
        need(offset, GUID_SIZE, end, R_PACKET_SIZE, f"the {what} queue GUID")
        return QueueFormat(code, guid=guid_at(buf, offset)), offset + GUID_SIZE
    if layout == PRIVATE:
        need(offset, GUID_SIZE + 4, end, R_PACKET_SIZE, f"the {what} private queue")
        number = U32.unpack_from(buf, offset + GUID_SIZE)[0]
        return QueueFormat(code, private_id=number, guid=guid_at(buf, offset)), offset + 20
    need(offset, 2, end, R_PACKET_SIZE, f"the {what} direct name Count")
    count = U16.unpack_from(buf, offset)[0]
    start = offset + 2
    if count < 2 or count % 2:
        raise fail(R_DIRECT, offset, f"{what} direct name Count is {count}, not an even >= 2")
    if start + count > end:
        raise fail(R_DIRECT, offset, f"{what} direct name Count {count} runs past the packet")
    raw = bytes(buf[start : start + count])
    if raw[-2:] != b"\x00\x00":
        raise fail(R_DIRECT, start + count - 2, f"{what} direct name does not end in 0x0000")
    name = raw[:-2].decode("utf-16-le", "surrogatepass")
    after = header_start + align4(start + count - header_start)
    need(after, 0, end, R_PACKET_SIZE, f"the {what} direct name padding")
    return QueueFormat(code, direct=name), after


def encode_queue(queue: QueueFormat | None) -> bytes:
    """The wire bytes of ``queue`` (nothing for None); a direct name is padded to 4 bytes.

    Raises ValueError when the values do not fit the layout of ``queue.code``.
    """
    if queue is None:
        return b""
    layout = queue.layout
    if layout in (NONE, SAME_AS_ADMIN):
        return b""
    if layout == PRIVATE_ID:
        if queue.private_id is None:
            raise ValueError(f"queue type {queue.code} needs a private queue number")
        return U32.pack(queue.private_id)
    if layout == PUBLIC:
        if queue.guid is None:
            raise ValueError("a public queue needs its GUID")
        return queue.guid.bytes_le
    if layout == PRIVATE:
        if queue.guid is None or queue.private_id is None:
            raise ValueError("a PrivateQueueFormatName needs a host GUID and a queue number")
        return queue.guid.bytes_le + U32.pack(queue.private_id)
    if queue.direct is None:
        raise ValueError("a direct queue needs its name")
    name = queue.direct.encode("utf-16-le", "surrogatepass") + b"\x00\x00"
    if len(name) > 0xFFFF:
        raise ValueError("a direct name's Count is 16 bits")
    body = U16.pack(len(name)) + name
    return body + bytes(align4(len(body)) - len(body))


# --- MQFFormatNameElement (2.2.18.1.4) -------------------------------------------------------

MQF_PUBLIC, MQF_PRIVATE, MQF_DIRECT, MQF_DL = 1, 2, 3, 6
MQF_TYPE_NAMES = {MQF_PUBLIC: "public", MQF_PRIVATE: "private", MQF_DIRECT: "direct", MQF_DL: "dl"}


@dataclass(slots=True)
class MQFElement:
    """One MQFFormatNameElement: FormatType and what its FormatName carries."""

    format_type: int
    guid: uuid.UUID | None = None
    private_id: int | None = None
    direct: str | None = None


def _utf16z_scan(buf: bytes, offset: int, end: int) -> int:
    """Offset of the first 0x0000 code unit at or after ``offset`` (2-aligned), or -1."""
    position = offset
    while position + 2 <= end:
        if buf[position] == 0 and buf[position + 1] == 0:
            return position
        position += 2
    return -1


def decode_mqf_element(
    buf: bytes, offset: int, end: int, header_start: int, letter: Letter = READING
) -> tuple[MQFElement, int]:
    """Read one MQFFormatNameElement at ``offset`` (``end``: the MQFAddressHeader's end).

    With ``letter`` following W-07, a public element's GUID follows its FormatType unpadded
    (the spec asks alignment only of private and distribution list GUIDs)."""
    need(offset, 2, end, R_MQF_FITS, "a FormatType")
    kind = U16.unpack_from(buf, offset)[0]
    offset += 2
    if kind in (MQF_PUBLIC, MQF_PRIVATE, MQF_DL):
        aligned = header_start + align4(offset - header_start)  # errata W-07's reading
        if kind == MQF_PUBLIC and aligned != offset and letter.follows("W-07"):
            letter.read(
                "W-07",
                offset,
                "the public FormatName's GUID follows its FormatType unpadded "
                f"(not at the 4-byte boundary {aligned})",
            )
        else:
            offset = aligned
        size = GUID_SIZE + (4 if kind == MQF_PRIVATE else 0)
        need(offset, size, end, R_MQF_FITS, "a format name element")
        element = MQFElement(kind, guid=guid_at(buf, offset))
        if kind == MQF_PRIVATE:
            element.private_id = U32.unpack_from(buf, offset + GUID_SIZE)[0]
        return element, offset + size
    if kind == MQF_DIRECT:
        stop = _utf16z_scan(buf, offset, end)
        if stop < 0:
            raise fail(R_MQF_DIRECT, offset, "the direct format name has no 0x0000 terminator")
        name = bytes(buf[offset:stop]).decode("utf-16-le", "surrogatepass")
        return MQFElement(kind, direct=name), stop + 2
    raise fail(R_MQF_TYPE, offset - 2, f"FormatType is 0x{kind:04x}, not 1, 2, 3 or 6")


def encode_mqf_element(element: MQFElement, position: int, *, letter: bool = False) -> bytes:
    """The bytes of ``element`` when it starts ``position`` bytes into its header
    (``letter``: a public GUID unpadded, as W-07's letter lays it out)."""
    head = U16.pack(element.format_type)
    if element.format_type in (MQF_PUBLIC, MQF_PRIVATE, MQF_DL):
        if element.guid is None:
            raise ValueError("a public, private or distribution list element needs a GUID")
        pad = bytes(align4(position + 2) - position - 2)
        if letter and element.format_type == MQF_PUBLIC:
            pad = b""
        tail = b""
        if element.format_type == MQF_PRIVATE:
            if element.private_id is None:
                raise ValueError("a private element needs a queue number")
            tail = U32.pack(element.private_id)
        return head + pad + element.guid.bytes_le + tail
    if element.format_type == MQF_DIRECT:
        if element.direct is None:
            raise ValueError("a direct element needs a name")
        return head + element.direct.encode("utf-16-le", "surrogatepass") + b"\x00\x00"
    raise ValueError(f"FormatType {element.format_type} has no layout")


def mqf_element_name(element: MQFElement) -> str:
    """The format name text of an MQF element."""
    if element.format_type == MQF_PUBLIC:
        return f"PUBLIC={element.guid}"
    if element.format_type == MQF_PRIVATE:
        return f"PRIVATE={element.guid}\\{element.private_id:x}"
    if element.format_type == MQF_DL:
        return f"DL={element.guid}"
    return f"DIRECT={element.direct}"


# --- format name text ------------------------------------------------------------------------

_GUID_TEXT = r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
_PRIVATE_TEXT = re.compile(rf"PRIVATE={_GUID_TEXT}\\([0-9a-f]{{1,8}})", re.IGNORECASE | re.ASCII)
_PUBLIC_TEXT = re.compile(rf"PUBLIC={_GUID_TEXT}", re.IGNORECASE | re.ASCII)
_DIRECT_TEXT = re.compile(r"DIRECT=(.+)", re.IGNORECASE | re.DOTALL)


def format_name(
    queue: QueueFormat | None,
    *,
    source: uuid.UUID,
    destination: uuid.UUID,
    admin: QueueFormat | None = None,
) -> str:
    """The [MS-MQMQ] 2.1 format name of a UserHeader queue field ("" for none).

    ``source`` and ``destination`` are UserHeader.SourceQueueManager and QueueManagerAddress
    (the hosts of codes 2 and 3); ``admin`` is the administration queue, which names the
    host of a response queue of code 4 and is the response queue of code 1.
    """
    if queue is None:
        return ""
    code = queue.code
    layout = LAYOUT[code]
    if layout == PRIVATE_ID:
        host: uuid.UUID | None  # code 2: the source's, 3: the destination's, 4: the admin's
        if code == 4:
            host = _host_of(admin, source, destination)
        else:
            host = destination if code == 3 else source
        if host is None:
            return f"PRIVATE=?\\{queue.private_id:x}"  # RQ 4 without a private admin queue
        return f"PRIVATE={host}\\{queue.private_id:x}"
    if layout == PUBLIC:
        return f"PUBLIC={queue.guid}"
    if layout == PRIVATE:
        return f"PRIVATE={queue.guid}\\{queue.private_id:x}"
    if layout == DIRECT:
        return f"DIRECT={queue.direct}"
    return ""


def _host_of(
    admin: QueueFormat | None, source: uuid.UUID, destination: uuid.UUID
) -> uuid.UUID | None:
    if admin is None:
        return None
    return {2: source, 3: destination, 6: admin.guid}.get(admin.code)


def parse_format_name(text: str, code_for_private: int = 3) -> tuple[QueueFormat, uuid.UUID | None]:
    """A format name as a queue field and the queue manager that hosts it (if the name says).

    ``PRIVATE=<guid>\\<hex>`` gives a PrivateQueueFormatNameId under ``code_for_private``
    and the GUID as host; ``PUBLIC=<guid>`` a public queue and ``DIRECT=<name>`` a direct
    queue (host None for both).  Prefixes and hex digits match in any case ([MS-MQMQ] 2.1).
    Raises ValueError for anything else.

    >>> parse_format_name("private=00000000-0000-0000-0000-000000000001\\\\3")[0].private_id
    3
    """
    match = _PRIVATE_TEXT.fullmatch(text)
    if match:
        return QueueFormat(code_for_private, private_id=int(match[2], 16)), uuid.UUID(match[1])
    match = _PUBLIC_TEXT.fullmatch(text)
    if match:
        return QueueFormat(5, guid=uuid.UUID(match[1])), None
    match = _DIRECT_TEXT.fullmatch(text)
    if match:
        return QueueFormat(7, direct=match[1]), None
    raise ValueError(f"not a PRIVATE=, PUBLIC= or DIRECT= format name: {text!r}")
