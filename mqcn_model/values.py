"""What [MS-MQMQ] allows for each PROPID's value, beyond its wire type (MQCN-3.3.5.2-22).

Each checker returns ``None`` for an allowed value or a sentence saying what is wrong.

>>> check_pathname("host\\\\orders")
>>> check_pathname("host\\\\a+b")
"QueueName holds '+', which MSMQ 2.0 and later exclude"
>>> check_pathname("host\\\\a+b", LENIENT)
"""

from __future__ import annotations

import re
import struct

from mqcn_model.constants import MAX_LABEL_CHARS, PropertyDef, ValueKind
from mqcn_model.errata import LENIENT, STRICT, Readings

__all__ = ["LENIENT", "check_pathname", "check_property_value"]

MAX_COMPUTER_CHARS = 256
MAX_QUEUE_NAME_CHARS = 124
MAX_SUBQUEUE_CHARS = 32
_QUEUE_PREFIXES = (("\\private$\\", "private"), ("\\system$;", "system"), ("\\", "public"))
_EXCLUDED_MSMQ20 = frozenset('+,"')  # MSMQ 2.0+ also excludes these (E-10)
# [MS-MQMQ] 2.1.6 dec-octet and Port: decimal numbers without leading zeros.
_DEC = r"(0|[1-9]\d{0,2})"
_MULTICAST = re.compile(rf"{_DEC}\.{_DEC}\.{_DEC}\.{_DEC}:(0|[1-9]\d{{0,4}})", re.ASCII)
_LDAP_URL = re.compile(r"ldap://[\x21-\x7e]*", re.ASCII | re.IGNORECASE)
_SD_HEADER = struct.Struct("<BBHIIII")
SE_SELF_RELATIVE = 0x8000


def _name_chars_problem(name: str, what: str, readings: Readings) -> str | None:
    for char in name:
        if not "\x21" <= char <= "\x7f" or char in "\\;":
            return f"{what} holds {char!r}, outside its ABNF character set"
        if char in _EXCLUDED_MSMQ20 and not readings.pathname_msmq10_charset:
            return f"{what} holds {char!r}, which MSMQ 2.0 and later exclude"
    return None


def check_pathname(text: str, readings: Readings = STRICT) -> str | None:
    """[MS-MQMQ] 2.1.1 QueuePathName; Computer never holds a backslash (errata E-10)."""
    split = text.find("\\")
    if split < 0:
        return "a queue path name is Computer '\\' QueueName; no backslash found"
    computer, rest = text[:split], text[split:]
    if not 1 <= len(computer) <= MAX_COMPUTER_CHARS:
        return f"Computer has {len(computer)} characters (1..256)"
    if any(not "\x21" <= c <= "\x7e" for c in computer):
        return "Computer holds a character outside %x21-7E"
    for prefix, _kind in _QUEUE_PREFIXES:
        if rest[: len(prefix)].lower() == prefix:
            queue = rest[len(prefix) :]
            break
    queue_name, _, subqueue = queue.partition(";")
    if not 1 <= len(queue_name) <= MAX_QUEUE_NAME_CHARS:
        return f"QueueName has {len(queue_name)} characters (1..124)"
    problem = _name_chars_problem(queue_name, "QueueName", readings)
    if problem:
        return problem
    if ";" in queue:
        if not 1 <= len(subqueue) <= MAX_SUBQUEUE_CHARS:
            return f"Subqueue has {len(subqueue)} characters (1..32)"
        return _name_chars_problem(subqueue, "Subqueue", readings)
    return None


def check_label(text: str) -> str | None:
    units = len(text.encode("utf-16-le", "surrogatepass")) // 2
    return None if units <= MAX_LABEL_CHARS else f"label has {units} characters (at most 124)"


def check_multicast(text: str) -> str | None:
    match = _MULTICAST.fullmatch(text)
    if not match:
        return "a multicast address is Address ':' Port, e.g. 234.1.1.1:8001"
    octets = [int(match.group(i)) for i in range(1, 5)]
    if not 224 <= octets[0] <= 239 or any(o > 255 for o in octets):
        return f"{text.split(':')[0]} is not a class D address (224.0.0.0-239.255.255.255)"
    if int(match.group(5)) > 65535:
        return f"port {match.group(5)} is above 65535"
    return None


def check_ldap_url(text: str) -> str | None:
    return None if _LDAP_URL.fullmatch(text) else "not an LDAP URL (RFC 4516: ldap://...)"


def check_security_descriptor(blob: bytes) -> str | None:
    """Self-relative SECURITY_DESCRIPTOR header ([MS-DTYP] 2.4.6)."""
    if len(blob) < _SD_HEADER.size:
        return f"a SECURITY_DESCRIPTOR needs at least 20 bytes, has {len(blob)}"
    revision, _sbz1, control, *offsets = _SD_HEADER.unpack_from(blob)
    if revision != 1:
        return f"SECURITY_DESCRIPTOR Revision is {revision}, not 1"
    if not control & SE_SELF_RELATIVE:
        return "SECURITY_DESCRIPTOR is not self-relative (Control lacks SR, 0x8000)"
    for name, value in zip(("Owner", "Group", "Sacl", "Dacl"), offsets, strict=True):
        if value and not _SD_HEADER.size <= value < len(blob):
            return f"SECURITY_DESCRIPTOR Offset{name} {value} points outside the descriptor"
    return None


def check_ta_address_list(blob: bytes) -> str | None:
    """Packed TA_ADDRESS entries: AddressLength(2) AddressType(2) Address[AddressLength]."""
    position = 0
    while position < len(blob):
        if position + 4 > len(blob):
            return f"TA_ADDRESS header cut short at byte {position}"
        length = int.from_bytes(blob[position : position + 2], "little")
        position += 4 + length
        if position > len(blob):
            return f"TA_ADDRESS AddressLength {length} runs past the end of the blob"
    return None


def check_property_value(
    definition: PropertyDef, value: object, readings: Readings = STRICT
) -> str | None:
    """Is ``value`` allowed for ``definition``'s PROPID?  ``None`` if so, else why not."""
    kind = definition.kind
    if kind is ValueKind.ENUM:
        allowed = definition.allowed
        return None if value in allowed else f"value {value!r} is not one of {list(allowed)}"
    if kind is ValueKind.PATHNAME:
        return check_pathname(value, readings)  # type: ignore[arg-type]
    if kind is ValueKind.LABEL:
        return check_label(value)  # type: ignore[arg-type]
    if readings.shallow_value_checks:
        return None
    if kind is ValueKind.MULTICAST:
        return check_multicast(value)  # type: ignore[arg-type]
    if kind is ValueKind.LDAP_URL:
        return check_ldap_url(value)  # type: ignore[arg-type]
    if kind is ValueKind.SECURITY_DESCRIPTOR:
        return check_security_descriptor(value)  # type: ignore[arg-type]
    if kind is ValueKind.TA_ADDRESS_LIST:
        return check_ta_address_list(value)  # type: ignore[arg-type]
    return None
