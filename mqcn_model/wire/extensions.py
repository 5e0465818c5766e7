"""The headers of a UserMessage that [MS-MQMQ] 2.2.20 does not list, as Windows parses them
([MS-MQRR] 2.2.5): the SRMP pair and the extension chain.

* **SRMPEnvelopeHeader** and **CompoundMessageHeader** ([MS-MQRR] 2.2.5.1.2.1-2), after the
  DebugHeader when UserHeader.Flags.AH is set (a message that first travelled over HTTP):
  the SOAP envelope as UTF-16 text, then the whole HTTP POST that carried it with the
  message body's place inside it.
* **The extension chain** ([MS-MQRR] 2.2.5.2-5) after the last announced header:
  ExtensionHeader (12 bytes: its size, the size of the headers after it, which follow), then
  SubqueueHeader (148), DeadLetterHeader (variable) and ExtendedAddressHeader (28) as its
  Flags say.  Nothing in the UserHeader announces the chain: it is recognised by its bytes
  (an ExtensionHeader whose HeaderSize is 12, or whose two sizes cover exactly the bytes
  left in the packet); bytes left that are not one are a finding of the packet, not a chain.

Each fixed part is declared once, on its record (:mod:`mqcn_model.wire.declared`): the
codec, the JSON view and the scapy layer come from that declaration.  Every length is held
against the bytes the packet has: a length that runs past the packet or has its top bit set
(the shape of CVE-2023-21554's trigger) is a finding with the field's requirement, read no
further than the packet, never an over-read.

>>> envelope = srmp_envelope("<se:Envelope/>")
>>> compound = compound_message(b"POST /msmq HTTP/1.1\\r\\n\\r\\n", b"body")
>>> wire = encode_srmp_envelope(envelope) + encode_compound(compound)
>>> e, at = decode_srmp_envelope(wire, 0, len(wire), [])
>>> c, end = decode_compound(wire, at, len(wire), [])
>>> e.envelope, c.message_body, end == len(wire)
('<se:Envelope/>', b'body', True)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mqcn_model.catalog import req
from mqcn_model.errors import fail
from mqcn_model.wire.common import U32, Findings, align4, breach, need
from mqcn_model.wire.declared import layout, pack, part, unpack, wire

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_SRMP_PRESENT = req("MQRR-2.2.5.1.2-1")
R_DATA_LENGTH = req("MQRR-2.2.5.1.2.1-1")
R_ENVELOPE_TEXT = req("MQRR-2.2.5.1.2.1-2")
R_HTTP_BODY = req("MQRR-2.2.5.1.2.2-1")
R_MSG_BODY = req("MQRR-2.2.5.1.2.2-2")
R_EXTENSION_SIZE = req("MQRR-2.2.5.2-1")
R_REMAINING = req("MQRR-2.2.5.2-2")
R_EXTENSION_FLAGS = req("MQRR-2.2.5.2-3")
R_SUBQUEUE = req("MQRR-2.2.5.3-1")
R_SUBQUEUE_NAMES = req("MQRR-2.2.5.3-2")
R_DEAD_LETTER = req("MQRR-2.2.5.4-1")
R_DEAD_LETTER_PADDING = req("MQRR-2.2.5.4-2")
R_EXTENDED_ADDRESS = req("MQRR-2.2.5.5-1")

TOP_BIT = 0x80000000
WCHAR, BYTE = "WCHAR", "byte"  # how DataLength counts Data (docs/errata.md W-13)

# ExtensionHeader.Flags ([MS-MQRR] 2.2.5.2; bit 0 the least significant, as in every
# MSMQ Flags field the suite reads)
DL, SQ, X2, DI, EA = 0x01, 0x02, 0x04, 0x08, 0x10
EXTENSION_FLAG_NAMES = {DL: "DL", SQ: "SQ", X2: "X2", DI: "DI", EA: "EA"}
# SubqueueHeader's second 32-bit word: TM bit 0, AcknowledgementClass bits 1-16
TM = 0x1
ACK_CLASS_SHIFT = 1
SUBQUEUE_NAME_SIZE = 64
ADDRESS_TYPES = {0x0000: "ignored", 0x0001: "IPv4", 0x0006: "IPv6"}


# --- the declarations --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SrmpEnvelopeHeader:
    """[MS-MQRR] 2.2.5.1.2.1; ``envelope`` is Data without its terminator, ``unit`` how
    DataLength counted it (``WCHAR`` or ``byte``; ``None`` when it counts neither)."""

    header_id: int = wire("HeaderId", "H")
    reserved: int = wire("Reserved", "H")
    data_length: int = wire("DataLength", "I", requirement=R_DATA_LENGTH)
    envelope: str = part("Data", default="")
    unit: str | None = WCHAR


@dataclass(frozen=True, slots=True)
class CompoundMessageHeader:
    """[MS-MQRR] 2.2.5.1.2.2; ``data`` the HTTP POST that carried the SRMP message."""

    header_id: int = wire("HeaderId", "H")
    reserved: int = wire("Reserved", "H")
    http_body_size: int = wire("HTTPBodySize", "I", requirement=R_HTTP_BODY)
    msg_body_size: int = wire("MsgBodySize", "I", requirement=R_MSG_BODY)
    msg_body_offset: int = wire("MsgBodyOffset", "I", requirement=R_MSG_BODY)
    data: bytes = part("Data", default=b"")

    @property
    def http(self) -> bytes:
        """The HTTP part: Data up to the message body."""
        return self.data[: self.msg_body_offset]

    @property
    def message_body(self) -> bytes:
        return self.data[self.msg_body_offset : self.msg_body_offset + self.msg_body_size]


@dataclass(frozen=True, slots=True)
class ExtensionHeader:
    """[MS-MQRR] 2.2.5.2."""

    header_size: int = wire("HeaderSize", "I", default=12, requirement=R_EXTENSION_SIZE)
    remaining_headers_size: int = wire("RemainingHeadersSize", "I", requirement=R_REMAINING)
    flags: int = wire(
        "Flags", "B", default=SQ | EA, requirement=R_EXTENSION_FLAGS, bits=EXTENSION_FLAG_NAMES
    )
    reserved: bytes = wire("Reserved", "3s")


@dataclass(frozen=True, slots=True)
class SubqueueHeader:
    """[MS-MQRR] 2.2.5.3; ``word``: TM (bit 0), AcknowledgementClass (bits 1-16), Reserved."""

    header_size: int = wire("HeaderSize", "I", default=148, requirement=R_SUBQUEUE)
    word: int = wire("TMAcknowledgementClass", "I", bits={TM: "TM"})  # TM, the class, Reserved
    abort_counter: int = wire("AbortCounter", "I")
    move_counter: int = wire("MoveCounter", "I")
    last_move_time: int = wire("LastMoveTime", "I")
    subqueue_name: bytes = wire("SubqueueName", "64s", requirement=R_SUBQUEUE_NAMES)
    target_subqueue_name: bytes = wire("TargetSubqueueName", "64s", requirement=R_SUBQUEUE_NAMES)

    @property
    def acknowledgement_class(self) -> int:
        return (self.word >> ACK_CLASS_SHIFT) & 0xFFFF


@dataclass(frozen=True, slots=True)
class DeadLetterHeader:
    """[MS-MQRR] 2.2.5.4; ``path`` the dead-letter queue without its terminator."""

    header_size: int = wire("HeaderSize", "I", requirement=R_DEAD_LETTER)
    path: str = part("DeadLetterPathName", default="")


@dataclass(frozen=True, slots=True)
class ExtendedAddressHeader:
    """[MS-MQRR] 2.2.5.5."""

    header_size: int = wire("HeaderSize", "I", default=28, requirement=R_EXTENDED_ADDRESS)
    address_length: int = wire("AddressLength", "H", requirement=R_EXTENDED_ADDRESS)
    address_type: int = wire("AddressType", "H", requirement=R_EXTENDED_ADDRESS)
    address_scope: int = wire("AddressScope", "I", requirement=R_EXTENDED_ADDRESS)
    address: bytes = wire("Address", "16s")


@dataclass(frozen=True, slots=True)
class Extensions:
    """The extension chain of one packet: the ExtensionHeader and the headers it flags."""

    extension: ExtensionHeader
    subqueue: SubqueueHeader | None = None
    dead_letter: DeadLetterHeader | None = None
    extended_address: ExtendedAddressHeader | None = None


SRMP_FIXED = layout(SrmpEnvelopeHeader).size  # 8
COMPOUND_FIXED = layout(CompoundMessageHeader).size  # 16
EXTENSION_SIZE = layout(ExtensionHeader).size  # 12
SUBQUEUE_SIZE = layout(SubqueueHeader).size  # 148
DEAD_LETTER_FIXED = layout(DeadLetterHeader).size  # 4
EXTENDED_ADDRESS_SIZE = layout(ExtendedAddressHeader).size  # 28

# every length field of these headers, by header: what the property tests wrap
LENGTH_FIELDS = {
    "SRMPEnvelopeHeader": ("DataLength",),
    "CompoundMessageHeader": ("HTTPBodySize", "MsgBodySize", "MsgBodyOffset"),
    "ExtensionHeader": ("HeaderSize", "RemainingHeadersSize"),
    "SubqueueHeader": ("HeaderSize",),
    "DeadLetterHeader": ("HeaderSize",),
    "ExtendedAddressHeader": ("HeaderSize", "AddressLength"),
}


def _wrapped(value: int) -> str:
    return " (its top bit is set: a wrapped length)" if value & TOP_BIT else ""


# --- builders ------------------------------------------------------------------------------------


def srmp_envelope(envelope: str, *, unit: str = WCHAR, header_id: int = 0) -> SrmpEnvelopeHeader:
    """An SRMPEnvelopeHeader whose DataLength counts ``envelope`` and its terminator."""
    count = len(envelope.encode("utf-16-le", "surrogatepass")) // 2 + 1
    return SrmpEnvelopeHeader(header_id, 0, count if unit == WCHAR else 2 * count, envelope, unit)


def compound_message(http: bytes, body: bytes, *, header_id: int = 0) -> CompoundMessageHeader:
    """A CompoundMessageHeader carrying ``http`` then the message ``body``."""
    data = http + body
    return CompoundMessageHeader(header_id, 0, len(data), len(body), len(http), data)


def extensions(
    *,
    subqueue: SubqueueHeader | None = None,
    dead_letter: str | None = None,
    extended_address: ExtendedAddressHeader | None = None,
    invalid_dead_letter: bool = False,
) -> Extensions:
    """An extension chain with its sizes and Flags computed from the headers given."""
    dead = None
    if dead_letter is not None:
        raw = dead_letter.encode("utf-16-le", "surrogatepass") + b"\x00\x00"
        dead = DeadLetterHeader(align4(DEAD_LETTER_FIXED + len(raw)), dead_letter)
    flags = (
        (SQ if subqueue is not None else 0)
        | (DL if dead is not None else 0)
        | (EA if extended_address is not None else 0)
        | (DI if invalid_dead_letter else 0)
    )
    remaining = (
        (subqueue.header_size if subqueue is not None else 0)
        + (dead.header_size if dead is not None else 0)
        + (extended_address.header_size if extended_address is not None else 0)
    )
    return Extensions(
        ExtensionHeader(EXTENSION_SIZE, remaining, flags), subqueue, dead, extended_address
    )


# --- the SRMP pair -------------------------------------------------------------------------------


def _terminator(buf: bytes, start: int, end: int) -> int:
    """The offset just past the first 0x0000 code unit from ``start`` before ``end``, or -1."""
    at = start
    while at + 2 <= end:
        if buf[at] == 0 and buf[at + 1] == 0:
            return at + 2
        at += 2
    return -1


def unit_of(data_length: int, size: int) -> str | None:
    """How DataLength counts ``size`` bytes of Data (its terminator with it): in WCHARs, in
    bytes (W-13), or neither (``None``)."""
    return WCHAR if data_length * 2 == size else BYTE if data_length == size else None


def decode_srmp_envelope(
    buf: bytes, offset: int, end: int, findings: Findings
) -> tuple[SrmpEnvelopeHeader, int]:
    """Read an SRMPEnvelopeHeader at ``offset``.  Data is the UTF-16 text up to and with its
    terminator; DataLength may count it in WCHARs or in bytes (W-13); a DataLength that
    counts neither -- past the packet, wrapped -- is a finding, and Data is read to its
    terminator all the same.  No terminator before ``end`` stops the reading."""
    need(offset, SRMP_FIXED, end, R_PACKET_SIZE, "an SRMPEnvelopeHeader")
    header = unpack(SrmpEnvelopeHeader, buf, offset)
    start = offset + SRMP_FIXED
    stop = _terminator(buf, start, end)
    if stop < 0:
        raise fail(
            R_ENVELOPE_TEXT,
            start,
            "SRMPEnvelopeHeader.Data has no 0x0000 terminator before the packet ends at byte "
            f"{end}",
        )
    size = stop - start
    length = header.data_length
    unit = unit_of(length, size)
    if unit is None:
        breach(
            findings,
            R_DATA_LENGTH,
            offset + 4,
            f"SRMPEnvelopeHeader.DataLength is {length} (0x{length:08x}){_wrapped(length)} but "
            f"Data is {size // 2} WCHARs ({size} bytes) to its terminator",
        )
    text = bytes(buf[start : stop - 2]).decode("utf-16-le", "surrogatepass")
    after = min(align4(stop - offset) + offset, end)
    return replace(header, envelope=text, unit=unit), after


def encode_srmp_envelope(header: SrmpEnvelopeHeader) -> bytes:
    data = header.envelope.encode("utf-16-le", "surrogatepass") + b"\x00\x00"
    raw = pack(header) + data
    return raw + bytes(-len(raw) % 4)


def decode_compound(
    buf: bytes, offset: int, end: int, findings: Findings
) -> tuple[CompoundMessageHeader, int]:
    """Read a CompoundMessageHeader at ``offset``: HTTPBodySize bytes of Data must fit the
    packet (else reading stops there); the message body must lie inside Data."""
    need(offset, COMPOUND_FIXED, end, R_PACKET_SIZE, "a CompoundMessageHeader")
    header = unpack(CompoundMessageHeader, buf, offset)
    start = offset + COMPOUND_FIXED
    size = header.http_body_size
    if size > end - start:
        raise fail(
            R_HTTP_BODY,
            offset + 4,
            f"CompoundMessageHeader.HTTPBodySize is {size} (0x{size:08x}){_wrapped(size)} but "
            f"{end - start} bytes are left in the packet",
        )
    body_offset, body_size = header.msg_body_offset, header.msg_body_size
    if body_offset + body_size > size:
        breach(
            findings,
            R_MSG_BODY,
            offset + 8,
            f"MsgBodyOffset {body_offset} (0x{body_offset:08x}) + MsgBodySize {body_size} "
            f"(0x{body_size:08x}) run past Data's {size} bytes"
            f"{_wrapped(body_offset | body_size)}",
        )
    after = min(offset + align4(COMPOUND_FIXED + size), end)
    return replace(header, data=bytes(buf[start : start + size])), after


def encode_compound(header: CompoundMessageHeader) -> bytes:
    raw = pack(header) + header.data
    return raw + bytes(-len(raw) % 4)


# --- the extension chain -------------------------------------------------------------------------


def is_extension_chain(buf: bytes, offset: int, end: int) -> bool:
    """Do the ``end - offset`` bytes left in a packet start with an ExtensionHeader?  Its
    HeaderSize is 12, or its two sizes cover exactly the bytes left."""
    left = end - offset
    if left < EXTENSION_SIZE:
        return False
    size = U32.unpack_from(buf, offset)[0]
    remaining = U32.unpack_from(buf, offset + 4)[0]
    return size == EXTENSION_SIZE or (size >= EXTENSION_SIZE and size + remaining == left)


def decode_extensions(
    buf: bytes, offset: int, end: int, findings: Findings
) -> tuple[Extensions, int]:
    """Read the extension chain at ``offset`` (see :func:`is_extension_chain`)."""
    need(offset, EXTENSION_SIZE, end, R_PACKET_SIZE, "an ExtensionHeader")
    extension = unpack(ExtensionHeader, buf, offset)
    if extension.header_size < EXTENSION_SIZE or extension.header_size > end - offset:
        raise fail(  # the structure first: a strict reader refuses it for what it is
            R_PACKET_SIZE,
            offset,
            f"ExtensionHeader.HeaderSize is {extension.header_size} "
            f"(0x{extension.header_size:08x}){_wrapped(extension.header_size)}: "
            f"{end - offset} bytes are left in the packet",
        )
    if extension.header_size != EXTENSION_SIZE:
        breach(
            findings,
            R_EXTENSION_SIZE,
            offset,
            f"ExtensionHeader.HeaderSize is {extension.header_size}, not 12",
        )
    at = offset + extension.header_size
    remaining = extension.remaining_headers_size
    if remaining > end - at:
        raise fail(
            R_PACKET_SIZE,
            offset + 4,
            f"ExtensionHeader.RemainingHeadersSize is {remaining} (0x{remaining:08x})"
            f"{_wrapped(remaining)} but {end - at} bytes are left in the packet",
        )
    chain_end = at + remaining
    flags = extension.flags
    for bit, name in ((SQ, "SQ"), (EA, "EA")):
        if not flags & bit:
            breach(
                findings,
                R_EXTENSION_FLAGS,
                offset + 8,
                f"ExtensionHeader.Flags.{name} is clear: the chain always carries the "
                f"{'SubqueueHeader' if bit == SQ else 'ExtendedAddressHeader'}",
            )
    subqueue = dead_letter = address = None
    if flags & SQ:
        subqueue, at = _subqueue(buf, at, chain_end, findings)
    if flags & DL:
        dead_letter, at = _dead_letter(buf, at, chain_end, findings)
    if flags & EA:
        address, at = _extended_address(buf, at, chain_end, findings)
    if at != chain_end:
        breach(
            findings,
            R_REMAINING,
            offset + 4,
            f"ExtensionHeader.RemainingHeadersSize is {remaining} but the headers its Flags "
            f"announce take {at - offset - extension.header_size}",
        )
    return Extensions(extension, subqueue, dead_letter, address), chain_end


def _subqueue(buf: bytes, at: int, end: int, findings: Findings) -> tuple[SubqueueHeader, int]:
    need(at, SUBQUEUE_SIZE, end, R_PACKET_SIZE, "a SubqueueHeader")
    header = unpack(SubqueueHeader, buf, at)
    if header.header_size != SUBQUEUE_SIZE:
        breach(
            findings, R_SUBQUEUE, at, f"SubqueueHeader.HeaderSize is {header.header_size}, not 148"
        )
    if header.word & TM:
        breach(findings, R_SUBQUEUE, at + 4, "SubqueueHeader.TM is set")
    base = layout(SubqueueHeader)
    for name, raw in (
        ("SubqueueName", header.subqueue_name),
        ("TargetSubqueueName", header.target_subqueue_name),
    ):
        problem = _name_problem(raw)
        if problem:
            breach(
                findings,
                R_SUBQUEUE_NAMES,
                at + base.offset(name),
                f"SubqueueHeader.{name} {problem}",
            )
    return header, at + SUBQUEUE_SIZE


def _name_problem(raw: bytes) -> str:
    """Why a 64-byte subqueue name field is not a terminated UTF-16 string zero-filled."""
    stop = _terminator(raw, 0, len(raw))
    if stop < 0:
        return "has no 0x0000 terminator in its 64 bytes"
    if any(raw[stop:]):
        return "has bytes other than 0x00 after its terminator"
    return ""


def subqueue_name(raw: bytes) -> str:
    stop = _terminator(raw, 0, len(raw))
    return raw[: (stop - 2 if stop >= 0 else len(raw) & ~1)].decode("utf-16-le", "replace")


def _dead_letter(buf: bytes, at: int, end: int, findings: Findings) -> tuple[DeadLetterHeader, int]:
    need(at, DEAD_LETTER_FIXED, end, R_PACKET_SIZE, "a DeadLetterHeader")
    header = unpack(DeadLetterHeader, buf, at)
    size = header.header_size
    if size < DEAD_LETTER_FIXED + 2 or size > end - at:
        raise fail(
            R_DEAD_LETTER,
            at,
            f"DeadLetterHeader.HeaderSize is {size} (0x{size:08x}){_wrapped(size)}: the chain "
            f"has {end - at} bytes left for it",
        )
    start = at + DEAD_LETTER_FIXED
    stop = _terminator(buf, start, at + size)
    if stop < 0:
        raise fail(
            R_DEAD_LETTER,
            start,
            f"DeadLetterHeader.DeadLetterPathName has no 0x0000 terminator in its {size - 4} bytes",
        )
    if size % 4 or any(buf[stop : at + size]):
        breach(
            findings,
            R_DEAD_LETTER_PADDING,
            stop,
            f"DeadLetterHeader is {size} bytes: the path is not padded with zeros to a 4-byte "
            "boundary",
        )
    path = bytes(buf[start : stop - 2]).decode("utf-16-le", "surrogatepass")
    return replace(header, path=path), at + size


def _extended_address(
    buf: bytes, at: int, end: int, findings: Findings
) -> tuple[ExtendedAddressHeader, int]:
    need(at, EXTENDED_ADDRESS_SIZE, end, R_PACKET_SIZE, "an ExtendedAddressHeader")
    header = unpack(ExtendedAddressHeader, buf, at)
    base = layout(ExtendedAddressHeader)
    problems = []
    if header.header_size != EXTENDED_ADDRESS_SIZE:
        problems.append((base.offset("HeaderSize"), f"HeaderSize is {header.header_size}, not 28"))
    if header.address_type not in ADDRESS_TYPES:
        problems.append(
            (
                base.offset("AddressType"),
                f"AddressType is 0x{header.address_type:04x}, not 0x0000, 0x0001 or 0x0006",
            )
        )
    if header.address_length > 16:
        problems.append(
            (
                base.offset("AddressLength"),
                f"AddressLength is {header.address_length}: the Address field holds 16 bytes",
            )
        )
    if header.address_scope and header.address_type != 0x0006:
        problems.append(
            (
                base.offset("AddressScope"),
                f"AddressScope is {header.address_scope} for an address that is not IPv6",
            )
        )
    for where, text in sorted(problems):  # in field order
        breach(findings, R_EXTENDED_ADDRESS, at + where, f"ExtendedAddressHeader.{text}")
    return header, at + EXTENDED_ADDRESS_SIZE


def encode_extensions(chain: Extensions) -> bytes:
    parts = [pack(chain.extension)]
    if chain.subqueue is not None:
        parts.append(pack(chain.subqueue))
    if chain.dead_letter is not None:
        raw = pack(chain.dead_letter) + chain.dead_letter.path.encode("utf-16-le", "surrogatepass")
        raw += b"\x00\x00"
        parts.append(raw + bytes(max(0, chain.dead_letter.header_size - len(raw))))
    if chain.extended_address is not None:
        parts.append(pack(chain.extended_address))
    return b"".join(parts)
