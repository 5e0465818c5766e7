"""MessagePropertiesHeader ([MS-MQMQ] 2.2.19.3): the message's properties and its body.

Layout::

    Flags(1) LabelLength(1) MessageClass(2) CorrelationID(20) BodyType(4) ApplicationTag(4)
    MessageSize(4) AllocationBodySize(4) PrivacyLevel(4) HashAlgorithm(4)
    EncryptionAlgorithm(4) ExtensionSize(4) Label(2*LabelLength) ExtensionData(ExtensionSize)
    MessageBody ... padding to a multiple of 4

The body occupies AllocationBodySize bytes, of which the first MessageSize are the body
(errata W-02's reading: the Windows sources skip AllocationBodySize bytes, and an encrypted
body may need the extra room).  The extra room is kept in ``body_slack``; the final padding
bytes may hold anything and are not kept.  W-02's letter (MessageBody is MessageSize bytes;
AllocationBodySize only states a size and moves no reader) is read when the packet's
structure adds up only so (``Letter``): the body is then MessageSize bytes, no slack, and
``declared_allocation`` keeps the AllocationBodySize the header states.

Flags bits 0-3 request administration acknowledgments: PA, PR, NA, NR.

>>> p = MessageProperties(label="hi", body=b"\\x02\\x01xyz")
>>> wire = encode_properties(p)
>>> len(wire), decode_properties(wire, 0, len(wire))[0] == p
(68, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqcn_model.catalog import req
from mqcn_model.constants import HashAlgorithm, MessageClass
from mqcn_model.errors import fail
from mqcn_model.wire.common import READING, Findings, Letter, align4, breach, need
from mqcn_model.wire.declared import layout, pack, part, wire

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_LABEL_LENGTH = req("MQMQ-2.2.19.3-1")
R_LABEL = req("MQMQ-2.2.19.3-2")
R_CLASS = req("MQMQ-2.2.19.3-3")
R_PRIVACY = req("MQMQ-2.2.19.3-4")
R_ENCRYPTION = req("MQMQ-2.2.19.3-5")
R_BODY_ROOM = req("MQMQ-2.2.19.3-6")
R_FITS = req("MQMQ-2.2.19.3-7")

PROPERTIES_FIXED_SIZE = 56
CORRELATION_ID_SIZE = 20
MAX_LABEL_LENGTH = 0xFA
ACK_PA, ACK_PR, ACK_NA, ACK_NR = 0x01, 0x02, 0x04, 0x08
ACK_NAMES = {ACK_PA: "PA", ACK_PR: "PR", ACK_NA: "NA", ACK_NR: "NR"}
CUSTOM_CLASS_MASK = 0xE1FF  # 2.2.18.1.6: a custom class sets only these bits (errata W-04)

# 2.2.18.1.6 MESSAGE_CLASS_VALUES with the [MS-MQDMPR] 3.1.1.12 Class names, and the 2.2.19.3
# HashAlgorithm values: derived from the Envelope's enums (one truth, mqcn_model.constants)
MESSAGE_CLASSES: dict[int, str] = {int(c): c.name for c in MessageClass}
PRIVACY_LEVELS = {0: "None", 1: "Base", 3: "Enhanced", 5: "Advanced"}
HASH_ALGORITHMS: dict[int, str] = {int(h): h.name for h in HashAlgorithm}
ENCRYPTION_ALGORITHMS = {
    0x6602: "RC2",
    0x6801: "RC4",
    0x6610: "AES256",
    0x660E: "AES128",
    0x660F: "AES192",
}
ALLOWED_ENCRYPTION = {
    1: frozenset({0x6602, 0x6801}),
    3: frozenset({0x6602, 0x6801}),
    5: frozenset({0x660E, 0x660F, 0x6610}),
}


@dataclass(slots=True)
class MessageProperties:
    """A decoded (or to-be-built) MessagePropertiesHeader.

    ``label`` is None when LabelLength is 0, else the text before its 0x0000 terminator;
    AllocationBodySize is ``len(body) + len(body_slack)``, unless ``declared_allocation``
    states it (a header written to W-02's letter: the body room on the wire is MessageSize
    bytes whatever AllocationBodySize says).  Declared once (:mod:`mqcn_model.wire.declared`).
    """

    flags: int = wire(
        "Flags", "B", at=0, groups=(("X", 4), ("NR", 1), ("NA", 1), ("PR", 1), ("PA", 1))
    )
    message_class: int = wire("MessageClass", "H", at=2, enum=MESSAGE_CLASSES, requirement=R_CLASS)
    correlation_id: bytes = wire("CorrelationID", "20s", at=4, kind="hex")
    body_type: int = wire("BodyType", "I", at=24)
    application_tag: int = wire("ApplicationTag", "I", at=28)
    privacy_level: int = wire(
        "PrivacyLevel", "I", at=40, enum=PRIVACY_LEVELS, requirement=R_PRIVACY
    )
    hash_algorithm: int = wire("HashAlgorithm", "I", at=44, enum=HASH_ALGORITHMS)
    encryption_algorithm: int = wire(
        "EncryptionAlgorithm", "I", at=48, enum=ENCRYPTION_ALGORITHMS, requirement=R_ENCRYPTION
    )
    label: str | None = part("Label", default=None)
    extension: bytes = part("ExtensionData", default=b"")
    body: bytes = part("MessageBody", default=b"")
    body_slack: bytes = part("BodySlack", default=b"")
    offset: int = field(default=-1, compare=False)
    declared_allocation: int | None = wire(
        "AllocationBodySize", "I", at=36, default=None, requirement=R_BODY_ROOM
    )
    label_length_field: int | None = wire(
        "LabelLength", "B", at=1, length_of="Label", unit=2, requirement=R_LABEL_LENGTH
    )
    message_size: int | None = wire("MessageSize", "I", at=32, length_of="MessageBody")
    extension_size: int | None = wire(
        "ExtensionSize", "I", at=52, length_of="ExtensionData", requirement=R_FITS
    )

    @property
    def label_length(self) -> int:
        """LabelLength: UTF-16 code units of the label with its terminator (0: no label)."""
        if self.label is None:
            return 0
        return len(self.label.encode("utf-16-le", "surrogatepass")) // 2 + 1

    @property
    def allocation_body_size(self) -> int:
        """AllocationBodySize as the header states it."""
        if self.declared_allocation is not None:
            return self.declared_allocation
        return len(self.body) + len(self.body_slack)

    @property
    def size(self) -> int:
        """Bytes the header occupies on the wire, padding included."""
        return align4(
            PROPERTIES_FIXED_SIZE
            + 2 * self.label_length
            + len(self.extension)
            + len(self.body)
            + len(self.body_slack)
        )


_FIXED = layout(MessageProperties).struct


def decode_properties(
    buf: bytes, offset: int, end: int, findings: Findings = None, letter: Letter = READING
) -> tuple[MessageProperties, int]:
    """Read a MessagePropertiesHeader at ``offset``; return it and the padded end.

    A Label that breaks MQMQ-2.2.19.3-2 is kept: its code units before the last one when
    that one is 0x0000, else all of them.  With ``letter`` following W-02, the body room is
    MessageSize bytes."""
    start = offset
    need(offset, PROPERTIES_FIXED_SIZE, end, R_PACKET_SIZE, "a MessagePropertiesHeader")
    (
        flags,
        label_length,
        cls,
        correlation,
        body_type,
        tag,
        size,
        allocation,
        privacy,
        hash_alg,
        encryption,
        extension_size,
    ) = _FIXED.unpack_from(buf, offset)
    if label_length > MAX_LABEL_LENGTH:
        breach(findings, R_LABEL_LENGTH, offset + 1, f"LabelLength is {label_length}, above 0xFA")
    if cls & ~CUSTOM_CLASS_MASK and cls not in MESSAGE_CLASSES:
        breach(
            findings, R_CLASS, offset + 2, f"MessageClass 0x{cls:04x} is neither listed nor custom"
        )
    if privacy not in PRIVACY_LEVELS:
        breach(findings, R_PRIVACY, offset + 40, f"PrivacyLevel is {privacy}, not 0, 1, 3 or 5")
    elif privacy and encryption not in ALLOWED_ENCRYPTION[privacy]:
        breach(
            findings,
            R_ENCRYPTION,
            offset + 48,
            f"EncryptionAlgorithm 0x{encryption:x} is not allowed at PrivacyLevel {privacy}",
        )
    if size > allocation:
        raise fail(
            R_BODY_ROOM, offset + 32, f"MessageSize {size} exceeds AllocationBodySize {allocation}"
        )
    offset += PROPERTIES_FIXED_SIZE
    room = allocation
    declared = None
    if letter.follows("W-02") and allocation > size:
        room, declared = size, allocation
        letter.read(
            "W-02",
            start + 36,
            f"the body room is MessageSize ({size} bytes), not AllocationBodySize "
            f"({allocation}): the next header follows the body",
        )
    variable = 2 * label_length + extension_size + room
    if offset + variable > end:
        raise fail(
            R_FITS,
            start + 52,
            f"Label ({2 * label_length}), ExtensionData ({extension_size}) and the body room "
            f"({room}) need {variable} bytes, {max(0, end - offset)} left in the packet",
        )
    label = None
    if label_length:
        raw = bytes(buf[offset : offset + 2 * label_length])
        zero = _first_zero_unit(raw)
        if zero != len(raw) - 2:
            where = "has no 0x0000 terminator" if zero < 0 else "has a 0x0000 before its end"
            breach(findings, R_LABEL, offset + max(zero, 0), f"the Label {where}")
        text = raw[:-2] if raw[-2:] == b"\x00\x00" else raw
        label = text.decode("utf-16-le", "surrogatepass")
        offset += 2 * label_length
    extension = bytes(buf[offset : offset + extension_size])
    offset += extension_size
    body = bytes(buf[offset : offset + size])
    slack = bytes(buf[offset + size : offset + room])
    offset += room
    after = start + align4(offset - start)
    need(after, 0, end, R_PACKET_SIZE, "the MessagePropertiesHeader padding")
    properties = MessageProperties(
        flags,
        cls,
        bytes(correlation),
        body_type,
        tag,
        privacy,
        hash_alg,
        encryption,
        label,
        extension,
        body,
        slack,
        start,
        declared,
    )
    return properties, after


def _first_zero_unit(raw: bytes) -> int:
    for position in range(0, len(raw) - 1, 2):
        if raw[position] == 0 and raw[position + 1] == 0:
            return position
    return -1


def encode_properties(properties: MessageProperties) -> bytes:
    """The wire bytes of ``properties`` with zero padding to a multiple of 4.

    Raises ValueError for values the header cannot carry (a label over 249 characters, a
    CorrelationID that is not 20 bytes, a field over 32 bits).
    """
    if len(properties.correlation_id) != CORRELATION_ID_SIZE:
        raise ValueError("CorrelationID is exactly 20 bytes")
    label_length = properties.label_length
    if label_length > 0xFF:
        raise ValueError("LabelLength is one byte")
    label = b""
    if properties.label is not None:
        label = properties.label.encode("utf-16-le", "surrogatepass") + b"\x00\x00"
    head = pack(
        properties,
        LabelLength=label_length,
        MessageSize=len(properties.body),
        AllocationBodySize=properties.allocation_body_size,
        ExtensionSize=len(properties.extension),
    )
    out = b"".join((head, label, properties.extension, properties.body, properties.body_slack))
    return out + bytes(align4(len(out)) - len(out))
