"""Notification Body (MS-MQCN 2.2.5): the UTF-16LE mark-up a queue manager sends (Version 2).

    <Notification><Event>E</Event><ObjectGuid>G</ObjectGuid>
    <DomainController>DC</DomainController></Notification>

with E in 1..4, G an 8-4-4-4-12 GUID and DC 1..256 characters of %x21-7E.  Tag names match
in any case (RFC 5234 quoted strings).  Readings (docs/errata.md): a single trailing U+0000
terminator is accepted (E-03); ``</ObjectGuid >``, as the ABNF spells it, only when
``readings.objectguid_close_with_space`` (E-01).

>>> import uuid
>>> b = NotificationBody(1, uuid.UUID(int=5), "dc1.example.com")
>>> wire = encode_body(b)
>>> wire[:14].decode("utf-16-le")
'<Notifi'
>>> decode_body(wire, 0) == b
True
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from mqcn_model.catalog import req
from mqcn_model.codec.guid import GUID_TEXT, guid_from_checked_text
from mqcn_model.errata import STRICT, Readings
from mqcn_model.errors import fail

R_READ_FROM_DS = req("MQCN-2.2.5-1")
R_EVENT = req("MQCN-2.2.5-2")
R_UNICODE = req("MQCN-2.2.5-5")
R_ABNF = req("MQCN-2.2.5-6")
R_GUID_FORM = req("MQCN-2.2.5-7")
R_SERVER_NAME = req("MQCN-2.2.5-8")

MAX_SERVER_NAME = 256
EVENT_TOKENS = ("1", "2", "3", "4")
_EVENT_VALUE = {token: int(token) for token in EVENT_TOKENS}
_BOM = "\ufeff"
# Exactly what NotificationBody.text() writes (tags in their canonical case, at most one
# trailing U+0000): read in one match.  Any other text takes the step-by-step reader below,
# which accepts the same language and names what is wrong.
_CANONICAL = re.compile(
    rf"<Notification><Event>([1-4])</Event><ObjectGuid>({GUID_TEXT.pattern})</ObjectGuid>"
    rf"<DomainController>([\x21-\x7e]{{1,{MAX_SERVER_NAME}}})</DomainController>"
    r"</Notification>\x00?"
)


@dataclass(slots=True)
class NotificationBody:
    """A decoded (or to-be-built) Notification Body."""

    event: int
    object_guid: uuid.UUID
    domain_controller: str

    def text(self, *, close_with_space: bool = False, upper_guid: bool = False) -> str:
        """The body as a string; the ``close_with_space`` form is the ABNF's (errata E-01)."""
        guid = str(self.object_guid).upper() if upper_guid else str(self.object_guid)
        close = "</ObjectGuid >" if close_with_space else "</ObjectGuid>"
        return (
            f"<Notification><Event>{self.event}</Event><ObjectGuid>{guid}{close}"
            f"<DomainController>{self.domain_controller}</DomainController></Notification>"
        )


def encode_body(
    body: NotificationBody,
    *,
    terminator: bool = False,
    close_with_space: bool = False,
    upper_guid: bool = False,
) -> bytes:
    """UTF-16LE bytes of ``body`` (no BOM); ``terminator`` appends U+0000 (errata E-03)."""
    text = body.text(close_with_space=close_with_space, upper_guid=upper_guid)
    return (text + ("\x00" if terminator else "")).encode("utf-16-le", "surrogatepass")


class _Cursor:
    """Walks the decoded text and turns character positions into byte offsets."""

    __slots__ = ("base", "pos", "text")

    def __init__(self, text: str, base: int) -> None:
        self.text, self.base, self.pos = text, base, 0

    def at(self, char_index: int) -> int:
        # A character outside the BMP is two code units (4 bytes): count units, not characters.
        return self.base + len(self.text[:char_index].encode("utf-16-le", "surrogatepass"))

    def expect(self, literal: str) -> None:
        end = self.pos + len(literal)
        if self.text[self.pos : end].lower() != literal.lower():
            found = self.text[self.pos : end]
            raise fail(R_ABNF, self.at(self.pos), f"expected {literal!r}, found {found!r}")
        self.pos = end

    def until(self, stop: str) -> str:
        hit = self.text.find(stop, self.pos)
        if hit < 0:
            raise fail(R_ABNF, self.at(self.pos), f"no {stop!r} after byte {self.at(self.pos)}")
        token, self.pos = self.text[self.pos : hit], hit
        return token


def decode_body(
    buf: bytes, offset: int, end: int | None = None, readings: Readings = STRICT
) -> NotificationBody:
    """Decode the Notification Body occupying ``buf[offset:end]`` exactly."""
    end = len(buf) if end is None else end
    if (end - offset) & 1:
        raise fail(R_UNICODE, end - 1, "a UTF-16LE body has an even number of bytes")
    try:
        text = buf[offset:end].decode("utf-16-le")
    except UnicodeDecodeError as exc:
        raise fail(R_UNICODE, offset + exc.start, "the body is not valid UTF-16LE") from None
    canonical = _CANONICAL.fullmatch(text)
    if canonical is not None:  # the common case, read in one match (same result as below)
        event, guid, server = canonical.groups()
        return NotificationBody(_EVENT_VALUE[event], guid_from_checked_text(guid), server)
    if text.startswith(_BOM):
        raise fail(R_UNICODE, offset, "the body starts with a byte-order mark")
    if text.endswith("\x00"):  # errata E-03: one terminator is tolerated
        text = text[:-1]
    cur = _Cursor(text, offset)
    cur.expect("<Notification>")
    cur.expect("<Event>")
    event_at = cur.pos
    event = cur.until("<")
    if event not in EVENT_TOKENS:
        raise fail(R_EVENT, cur.at(event_at), f"Event token {event!r} is not 1, 2, 3 or 4")
    cur.expect("</Event>")
    cur.expect("<ObjectGuid>")
    guid_at = cur.pos
    guid_text = cur.until("<")
    if not GUID_TEXT.fullmatch(guid_text):
        raise fail(R_GUID_FORM, cur.at(guid_at), f"ObjectGuid {guid_text!r} is not 8-4-4-4-12 hex")
    if (
        readings.objectguid_close_with_space
        and text[cur.pos : cur.pos + 14].lower() == "</objectguid >"
    ):
        cur.pos += 14
    else:
        cur.expect("</ObjectGuid>")
    cur.expect("<DomainController>")
    suffix = "</DomainController></Notification>"
    if not text.lower().endswith(suffix.lower()) or len(text) - len(suffix) < cur.pos:
        tail_at = max(cur.pos, len(text) - len(suffix))
        raise fail(R_ABNF, cur.at(tail_at), f"the body does not end with {suffix!r}")
    server = text[cur.pos : len(text) - len(suffix)]
    if not 1 <= len(server) <= MAX_SERVER_NAME:
        raise fail(
            R_SERVER_NAME,
            cur.at(cur.pos),
            f"DirectoryServiceServer has {len(server)} characters (1..256)",
        )
    for index, char in enumerate(server):
        if not "\x21" <= char <= "\x7e":
            raise fail(
                R_SERVER_NAME,
                cur.at(cur.pos + index),
                f"DirectoryServiceServer holds U+{ord(char):04X}, not %x21-7E",
            )
    return NotificationBody(int(event), uuid.UUID(guid_text), server)
