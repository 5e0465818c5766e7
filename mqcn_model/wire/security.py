"""SecurityHeader ([MS-MQMQ] 2.2.20.6): sender identity, signature, key and certificate.

Layout::

    Flags(2) SenderIdSize(2) EncryptionKeySize(2) SignatureSize(2) SenderCertSize(4)
    ProviderInfoSize(4) SecurityData: SecurityID EncryptionKey Signature SenderCert
    ProviderInfo, each item padded to a 4-byte boundary (an empty item takes no room)

Flags, bit 0 least significant: ST bits 0-3 (sender ID type: 0 none, 1 SID, 2 queue manager
GUID), AU bit 4, EB bit 5 (encrypted body), DE bit 6 (default provider), AI bit 7, AS bits
8-11; bits 12-15 unused.  AU and AS are 0 on the wire: the receiver records there which
signature it verified (errata W-05), so the wire says *whether* a message is signed (a
Signature is present), not with which MSMQ signature.

The suite's model stands for a user SID by a GUID (the Envelope's SenderIdentifier is a
GUID); :func:`sid_for_guid` writes it as the domain-shaped SID S-1-5-21-a-b-c-d whose four
sub-authorities are the GUID's four little-endian 32-bit words, and :func:`guid_for_sid`
reads any SID of exactly that shape back (lossless: the fixed parts carry nothing else).

>>> import uuid
>>> sid = sid_for_guid(uuid.UUID(int=1))
>>> sid_text(sid), guid_for_sid(sid)
('S-1-5-21-0-0-0-16777216', UUID('00000000-0000-0000-0000-000000000001'))
>>> h = SecurityHeader(ST_QM_GUID, sender_id=uuid.UUID(int=2).bytes_le, signature=b"s" * 128)
>>> wire = encode_security(h)
>>> len(wire), decode_security(wire, 0, len(wire))[0] == h
(160, True)
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.errors import fail
from mqcn_model.wire.common import GUID_SIZE, U32, Findings, align4, breach, need
from mqcn_model.wire.declared import layout, pack, part, wire

R_PACKET_SIZE = req("MQMQ-2.2.19.1-3")
R_ST = req("MQMQ-2.2.20.6-1")
R_SENDER_ID = req("MQMQ-2.2.20.6-2")
R_AU = req("MQMQ-2.2.20.6-3")
R_AS = req("MQMQ-2.2.20.6-4")
R_NOT_EMPTY = req("MQMQ-2.2.20.6-5")
R_FITS = req("MQMQ-2.2.20.6-6")

SECURITY_FIXED_SIZE = 16
ST_MASK = 0x000F
ST_NONE, ST_SID, ST_QM_GUID = 0, 1, 2
ST_NAMES = {ST_NONE: "None", ST_SID: "Sid", ST_QM_GUID: "QueueManagerIdentifier"}
AU = 1 << 4
EB = 1 << 5
DE = 1 << 6
AI = 1 << 7
AS_SHIFT, AS_MASK = 8, 0xF << 8
FLAG_NAMES = {AU: "AU", EB: "EB", DE: "DE", AI: "AI"}
MAX_SENDER_CERT = 0xFFFF

_FLAGS = (("X", 4), ("AS", 4), ("AI", 1), ("DE", 1), ("EB", 1), ("AU", 1), ("ST", 4, ST_NAMES))


@dataclass(slots=True)
class SecurityHeader:
    """A decoded (or to-be-built) SecurityHeader: raw ``flags`` and the five data items.
    Declared once (:mod:`mqcn_model.wire.declared`); the five sizes are computed from the
    items."""

    flags: int = wire("Flags", "H", groups=_FLAGS, requirement=R_ST)
    sender_id: bytes = part("SecurityID", default=b"")
    encryption_key: bytes = part("EncryptionKey", default=b"")
    signature: bytes = part("Signature", default=b"")
    sender_cert: bytes = part("SenderCert", default=b"")
    provider_info: bytes = part("ProviderInfo", default=b"")
    sender_id_size: int | None = wire("SenderIdSize", "H", length_of="SecurityID", at=2)
    encryption_key_size: int | None = wire(
        "EncryptionKeySize", "H", length_of="EncryptionKey", at=4
    )
    signature_size: int | None = wire("SignatureSize", "H", length_of="Signature", at=6)
    sender_cert_size: int | None = wire(
        "SenderCertSize", "I", length_of="SenderCert", at=8, requirement=R_FITS
    )
    provider_info_size: int | None = wire("ProviderInfoSize", "I", length_of="ProviderInfo", at=12)

    @property
    def sender_id_type(self) -> int:
        return self.flags & ST_MASK

    @property
    def encrypted(self) -> bool:
        return bool(self.flags & EB)

    @property
    def authentication_signature(self) -> int:
        """Flags.AS: the signature type a receiver verified (0 on the wire)."""
        return (self.flags & AS_MASK) >> AS_SHIFT

    @property
    def provider(self) -> tuple[int, str] | None:
        """(ProviderType, ProviderName) when ProviderInfo holds them, else None."""
        raw = self.provider_info
        if len(raw) < 6:
            return None
        text = raw[4:]
        for position in range(0, len(text) - 1, 2):
            if text[position : position + 2] == b"\x00\x00":
                name = text[:position].decode("utf-16-le", "surrogatepass")
                return U32.unpack_from(raw, 0)[0], name
        return None

    @property
    def size(self) -> int:
        return SECURITY_FIXED_SIZE + sum(align4(len(item)) for item in self.items)

    @property
    def items(self) -> tuple[bytes, bytes, bytes, bytes, bytes]:
        return (
            self.sender_id,
            self.encryption_key,
            self.signature,
            self.sender_cert,
            self.provider_info,
        )


_FIXED = layout(SecurityHeader).struct
_SIZE_NAMES = tuple(f.name for f in layout(SecurityHeader).fields if f.length_of)


def decode_security(
    buf: bytes, offset: int, end: int, findings: Findings = None
) -> tuple[SecurityHeader, int]:
    """Read a SecurityHeader at ``offset``; return it and the offset after its data."""
    start = offset
    need(offset, SECURITY_FIXED_SIZE, end, R_PACKET_SIZE, "a SecurityHeader")
    flags, id_size, key_size, sig_size, cert_size, prov_size = _FIXED.unpack_from(buf, offset)
    sender_type = flags & ST_MASK
    if sender_type not in ST_NAMES:
        breach(findings, R_ST, offset, f"Flags.ST is {sender_type}, not 0, 1 or 2")
    if flags & AU:
        breach(findings, R_AU, offset, "Flags.AU is set on the wire")
    if flags & AS_MASK:
        breach(findings, R_AS, offset + 1, f"Flags.AS is {(flags & AS_MASK) >> AS_SHIFT}, not 0")
    sizes = (id_size, key_size, sig_size, cert_size, prov_size)
    if not any(sizes):
        breach(findings, R_NOT_EMPTY, offset + 2, "every SecurityData size is zero")
    if cert_size > MAX_SENDER_CERT:
        raise fail(R_FITS, offset + 8, f"SenderCertSize is {cert_size}, above 0xFFFF")
    offset += SECURITY_FIXED_SIZE
    # each item's room: its size rounded up to 4 (align4, written out: five items a header)
    rooms = ((id_size + 3) & ~3, (key_size + 3) & ~3, (sig_size + 3) & ~3)
    rooms += ((cert_size + 3) & ~3, (prov_size + 3) & ~3)
    room = rooms[0] + rooms[1] + rooms[2] + rooms[3] + rooms[4]
    if offset + room > end:
        raise fail(
            R_FITS,
            start + 2,
            f"the SecurityData items need {room} bytes, {max(0, end - offset)} left",
        )
    items = []
    for size, taken in zip(sizes, rooms, strict=True):
        items.append(bytes(buf[offset : offset + size]))
        offset += taken
    sender_id = items[0]
    _check_sender_id(sender_type, sender_id, start + SECURITY_FIXED_SIZE, findings)
    return SecurityHeader(flags, *items), offset


def _check_sender_id(sender_type: int, sender_id: bytes, at: int, findings: Findings) -> None:
    if sender_type == ST_NONE and sender_id:
        breach(findings, R_SENDER_ID, at, f"ST is 0 but SenderIdSize is {len(sender_id)}")
    if sender_type == ST_QM_GUID and len(sender_id) != GUID_SIZE:
        breach(findings, R_SENDER_ID, at, f"ST is 2 but the SecurityID is {len(sender_id)} bytes")
    if sender_type == ST_SID:
        problem = sid_problem(sender_id)
        if problem:
            breach(findings, R_SENDER_ID, at, f"ST is 1 but the SecurityID {problem}")


def encode_security(header: SecurityHeader) -> bytes:
    """The wire bytes of ``header`` (each item zero-padded to 4 bytes)."""
    sizes = [len(item) for item in header.items]
    if max(sizes[:3]) > 0xFFFF or max(sizes[3:]) > 0xFFFFFFFF:
        raise ValueError("a SecurityData item is too large for its size field")
    parts = [pack(header, **dict(zip(_SIZE_NAMES, sizes, strict=True)))]
    for item in header.items:
        parts.append(item + bytes(align4(len(item)) - len(item)))
    return b"".join(parts)


# --- SIDs ([MS-DTYP] 2.4.2.2) --------------------------------------------------------------

_DOMAIN_AUTHORITY = 5  # SECURITY_NT_AUTHORITY
_DOMAIN_RID = 21  # SECURITY_NT_NON_UNIQUE: S-1-5-21-... domain account SIDs


def sid_problem(raw: bytes) -> str:
    """'' when ``raw`` is a binary SID, else what is wrong with it."""
    if len(raw) < 8:
        return f"is {len(raw)} bytes, shorter than a SID"
    if raw[0] != 1:
        return f"has Revision {raw[0]}, not 1"
    count = raw[1]
    if len(raw) != 8 + 4 * count:
        return f"is {len(raw)} bytes but SubAuthorityCount {count} needs {8 + 4 * count}"
    return ""


def sid_text(raw: bytes) -> str:
    """The S-R-I-S-S... text of a binary SID (raises ValueError if ``raw`` is not one)."""
    problem = sid_problem(raw)
    if problem:
        raise ValueError(f"not a SID: it {problem}")
    authority = int.from_bytes(raw[2:8], "big")
    subs = struct.unpack_from(f"<{raw[1]}I", raw, 8)
    return "-".join(["S", str(raw[0]), str(authority), *map(str, subs)])


def sid_for_guid(value: uuid.UUID) -> bytes:
    """The domain-shaped SID S-1-5-21-a-b-c-d standing for the model's GUID ``value``."""
    words = struct.unpack("<4I", value.bytes_le)
    return (
        bytes((1, 5))
        + _DOMAIN_AUTHORITY.to_bytes(6, "big")
        + struct.pack("<5I", _DOMAIN_RID, *words)
    )


def guid_for_sid(raw: bytes) -> uuid.UUID | None:
    """The GUID a SID of the :func:`sid_for_guid` shape stands for; None for other SIDs."""
    if len(raw) != 28 or raw[:8] != bytes((1, 5)) + _DOMAIN_AUTHORITY.to_bytes(6, "big"):
        return None
    if U32.unpack_from(raw, 8)[0] != _DOMAIN_RID:
        return None
    return uuid.UUID(bytes_le=raw[12:28])
