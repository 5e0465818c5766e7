"""The vectors of notification_body_test.json: the Notification Body (2.2.5) in
Version 0x02 messages.

Part of :mod:`generate` (see its documentation): every verdict here is stated by hand.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from reference_vectors import vector_building as vb
from reference_vectors.vector_building import (
    BODY_GUID,
    DC,
    DEFAULT_TAGS,
    MSG,
    NO_SPARE,
    SPARE,
    Group,
    R,
    body_text,
    char_at,
    closing_index,
    find,
    guid_index,
    server_index,
    v2_bytes,
    v2_expected,
)

VCHARS = "".join(chr(c) for c in range(0x21, 0x7F))  # the visible ASCII characters


class _BodyKit(vb.Kit):
    """The file, its groups and the helpers its sections share."""

    abnf = ("2.2.5-5", "2.2.5-6")

    def __init__(self) -> None:
        super().__init__(
            "notification_body_test.json",
            "Notification Body (2.2.5), inside Version 0x02 messages.",
        )

    def ok(
        self,
        comment: str,
        text: str,
        event: int,
        object_guid: str,
        server: str,
        reqs: list[str],
        flags: Sequence[str] = ("Normal",),
        spare: bytes = SPARE,
    ) -> None:
        """A valid (strict) vector: ``text`` as a Version 0x02 message, and what it decodes to."""
        data = v2_bytes(text.encode("utf-16-le"), spare=spare)
        expected = v2_expected(event, object_guid, server, spare=spare)
        self.s.valid(comment, data, expected, reqs, flags)

    def bad(
        self,
        comment: str,
        text: str,
        req: str,
        index: int,
        flags: Sequence[str] = (),
        group: Group | None = None,
        encoded: bytes | None = None,
    ) -> None:
        """An invalid vector (strict unless ``group``) breaking ``req`` at ``text[index]``;
        ``encoded`` replaces the UTF-16LE bytes of ``text``."""
        data = encoded if encoded is not None else text.encode("utf-16-le", "surrogatepass")
        group = self.s if group is None else group
        group.invalid(comment, v2_bytes(data), [req], char_at(text, index), flags)


_sections: vb.Sections[_BodyKit] = vb.Sections()


@_sections.add
def _valid_bodies(kit: _BodyKit) -> None:
    """Conforming bodies: each Event, GUID spellings, tag cases, servers, spare bytes."""
    abnf, ok = kit.abnf, kit.ok
    for event in (1, 2, 3, 4):
        ok(
            f"Event {event}",
            body_text(str(event)),
            event,
            BODY_GUID,
            DC,
            R("2.2.5-2", "3.3.5.1-3", *abnf),
        )
    upper = BODY_GUID.upper()
    ok(
        "upper-case GUID",
        body_text(object_guid=upper),
        1,
        upper,
        DC,
        R("2.2.5-7"),
        ("CaseInsensitive",),
    )
    mixed = "F81d4FAE-7dec-11D0-a765-00A0c91e6BF6"
    ok(
        "mixed-case GUID",
        body_text(object_guid=mixed),
        1,
        mixed,
        DC,
        R("2.2.5-7"),
        ("CaseInsensitive",),
    )
    ok(
        "GUID_NULL",
        body_text(object_guid=str(uuid.UUID(int=0))),
        1,
        str(uuid.UUID(int=0)),
        DC,
        R("2.2.5-7"),
        ("Boundary",),
    )
    ok(
        "tags in upper case",
        body_text(tags=[t.upper() for t in DEFAULT_TAGS]),
        1,
        BODY_GUID,
        DC,
        R("2.2.5-6"),
        ("CaseInsensitive",),
    )
    ok(
        "tags in lower case",
        body_text(tags=[t.lower() for t in DEFAULT_TAGS]),
        1,
        BODY_GUID,
        DC,
        R("2.2.5-6"),
        ("CaseInsensitive",),
    )
    swapped = [t.swapcase() for t in DEFAULT_TAGS]
    ok(
        "tags in swapped case",
        body_text(tags=swapped),
        1,
        BODY_GUID,
        DC,
        R("2.2.5-6"),
        ("CaseInsensitive",),
    )
    ok(
        "one-character server name",
        body_text(server="d"),
        1,
        BODY_GUID,
        "d",
        R("2.2.5-8"),
        ("Boundary",),
    )
    ok(
        "256-character server name",
        body_text(server="d" * 256),
        1,
        BODY_GUID,
        "d" * 256,
        R("2.2.5-8"),
        ("Boundary",),
    )
    ok(
        "server name of every VCHAR %x21-7E (including '<' and '>')",
        body_text(server=VCHARS),
        1,
        BODY_GUID,
        VCHARS,
        R("2.2.5-8"),
        ("Boundary",),
    )
    ok(
        "no spare byte",
        body_text(),
        1,
        BODY_GUID,
        DC,
        R("3.3.5.3-8"),
        ("NoSpareByte",),
        NO_SPARE,
    )
    ok(
        "spare byte 0xFF",
        body_text(),
        1,
        BODY_GUID,
        DC,
        R("3.3.5.3-8"),
        ("SpareByteValue",),
        b"\xff",
    )
    ok(
        "one U+0000 after the body",
        body_text() + "\x00",
        1,
        BODY_GUID,
        DC,
        R("2.2.5-5"),
        ("E-03",),
    )
    ok(
        "one U+0000 after the body, no spare byte",
        body_text() + "\x00",
        1,
        BODY_GUID,
        DC,
        R("2.2.5-5"),
        ("E-03", "NoSpareByte"),
        NO_SPARE,
    )


@_sections.add
def _event(kit: _BodyKit) -> None:
    """Event."""
    bad = kit.bad
    for token, comment in (
        ("0", "Event 0"),
        ("5", "Event 5"),
        ("", "empty Event"),
        ("01", "Event '01'"),
        ("12", "Event '12'"),
        (" 1", "Event ' 1'"),
        ("a", "Event 'a'"),
        ("+1", "Event '+1'"),
        ("\uff11", "Event U+FF11 (fullwidth digit one)"),
    ):
        text = body_text(event=token)
        bad(comment, text, "MQCN-2.2.5-2", len("<Notification><Event>"), ("Boundary",))


@_sections.add
def _object_guid(kit: _BodyKit) -> None:
    """ObjectGuid."""
    bad = kit.bad
    for token, comment, extra in (
        ("{" + BODY_GUID + "}", "GUID in braces", ()),
        (BODY_GUID + "0", "13 digits in the last group, as the ABNF comment shows", ("E-04",)),
        (BODY_GUID[:-1], "11 digits in the last group", ()),
        (BODY_GUID.replace("-", ""), "32 hex digits without hyphens", ()),
        ("g" + BODY_GUID[1:], "non-hex digit 'g'", ()),
        ("", "empty ObjectGuid", ()),
        ("urn:uuid:" + BODY_GUID, "urn:uuid: prefix", ()),
        (" " + BODY_GUID, "leading space", ()),
    ):
        text = body_text(object_guid=token)
        bad(comment, text, "MQCN-2.2.5-7", guid_index(text), extra)


@_sections.add
def _e01_closing_tag_as_abnf_spells_it(kit: _BodyKit) -> None:
    """E-01: the ABNF's own closing tag."""
    s, lenient = kit.s, kit.lenient
    for close in ("</ObjectGuid >", "</OBJECTGUID >"):
        tags = list(DEFAULT_TAGS)
        tags[4] = close
        text = body_text(tags=tags)
        s.acceptable(
            f"'{close}' as the ABNF spells it",
            v2_bytes(text.encode("utf-16-le")),
            R("2.2.5-6"),
            char_at(text, find(text, close)),
            v2_expected(),
            ["E-01"],
        )
        lenient.valid(
            f"'{close}' (lenient)",
            v2_bytes(text.encode("utf-16-le")),
            v2_expected(),
            R("2.2.5-6"),
            ["E-01"],
        )


@_sections.add
def _directory_service_server(kit: _BodyKit) -> None:
    """DirectoryServiceServer."""
    bad = kit.bad
    text = body_text(server="d" * 257)
    bad("257-character server name", text, "MQCN-2.2.5-8", server_index(text), ("Boundary",))
    text = body_text(server="")
    bad("empty server name", text, "MQCN-2.2.5-8", server_index(text), ("Boundary",))
    for server, char_index, comment in (
        ("dc 1", 2, "a space in the server name"),
        ("dc\t1", 2, "a tab in the server name"),
        ("dc\x7f", 2, "DEL (0x7F) in the server name"),
        ("caf\u00e9", 3, "a non-ASCII character in the server name"),
        ("dc\x001", 2, "U+0000 inside the server name"),
    ):
        text = body_text(server=server)
        bad(comment, text, "MQCN-2.2.5-8", server_index(text) + char_index, ("Boundary",))


@_sections.add
def _unicode_encoding(kit: _BodyKit) -> None:
    """Unicode encoding."""
    bad = kit.bad
    text = "\ufeff" + body_text()
    bad("UTF-16LE byte-order mark before the body", text, "MQCN-2.2.5-5", 0, ("Encoding", "E-03"))
    text = body_text()
    bad(
        "the body in UTF-16BE",
        text,
        "MQCN-2.2.5-6",
        0,
        ("Encoding",),
        encoded=text.encode("utf-16-be"),
    )
    bad("the body in UTF-8", text, "MQCN-2.2.5-6", 0, ("Encoding",), encoded=text.encode("utf-8"))
    text = body_text(server="dc\ud8001")
    bad(
        "a lone surrogate in the server name",
        text,
        "MQCN-2.2.5-5",
        server_index(text) + 2,
        ("Encoding", "LoneSurrogate"),
    )


@_sections.add
def _element_structure(kit: _BodyKit) -> None:
    """Element structure (ABNF)."""
    bad = kit.bad
    pretty = body_text().replace("><", ">\r\n<")
    bad(
        "line breaks between the elements, as the spec lays the template out",
        pretty,
        "MQCN-2.2.5-6",
        len("<Notification>"),
    )
    text = body_text()[: -len("</Notification>")]
    bad("no </Notification>", text, "MQCN-2.2.5-6", closing_index(text))
    text = body_text() + "x"
    bad("a character after </Notification>", text, "MQCN-2.2.5-6", closing_index(text))
    text = body_text() + "\x00\x00"
    bad("two U+0000 after the body", text, "MQCN-2.2.5-6", closing_index(text[:-1]), ("E-03",))
    text = body_text().replace(
        "<Event>1</Event><ObjectGuid>" + BODY_GUID + "</ObjectGuid>",
        "<ObjectGuid>" + BODY_GUID + "</ObjectGuid><Event>1</Event>",
    )
    bad("ObjectGuid before Event", text, "MQCN-2.2.5-6", len("<Notification>"))
    text = body_text().replace("<Event>1</Event>", "")
    bad("no Event element", text, "MQCN-2.2.5-6", len("<Notification>"))
    text = body_text().replace("<Event>", '<Event x="1">')
    bad("an attribute in <Event>", text, "MQCN-2.2.5-6", len("<Notification>"))
    text = '<?xml version="1.0"?>' + body_text()
    bad("an XML declaration before the body", text, "MQCN-2.2.5-6", 0)
    text = body_text()[:60]
    bad("the body cut in the middle of the ObjectGuid", text, "MQCN-2.2.5-6", guid_index(text))
    text = body_text().replace("<Event>1</Event>", "<Event>1</Event >")
    bad(
        "'</Event >' (only ObjectGuid has E-01's reading)",
        text,
        "MQCN-2.2.5-6",
        find(text, "</Event >"),
    )
    bad("empty body", "", "MQCN-2.2.5-6", 0, ("Boundary",))


@_sections.add
def _lenient(kit: _BodyKit) -> None:
    """Lenient."""
    lenient, bad = kit.lenient, kit.bad
    text = body_text(event="5")
    bad(
        "Event 5 stays invalid under every reading",
        text,
        "MQCN-2.2.5-2",
        len("<Notification><Event>"),
        group=lenient,
    )
    text = "\ufeff" + body_text()
    bad(
        "a byte-order mark stays invalid under every reading",
        text,
        "MQCN-2.2.5-5",
        0,
        ("Encoding", "E-03"),
        group=lenient,
    )
    text = body_text(object_guid="{" + BODY_GUID + "}")
    bad(
        "a GUID in braces stays invalid under every reading",
        text,
        "MQCN-2.2.5-7",
        guid_index(text),
        group=lenient,
    )


@_sections.add
def _server_boundaries_with_tags_recased(kit: _BodyKit) -> None:
    """The DirectoryServiceServer boundaries again, with tags in another case."""
    f, bad = kit.f, kit.bad
    # A judge may read the canonical spelling by a faster path than any other spelling
    # (this one does); the rules are the same, so the boundaries are checked on both.
    spelled = f.group(MSG, "strict")
    lower = [t.lower() for t in DEFAULT_TAGS]
    for server, comment in (
        ("d", "one-character server name"),
        ("d" * 256, "256-character server name"),
        (VCHARS, "server name of every VCHAR %x21-7E"),
    ):
        spelled.valid(
            f"{comment}, tags in lower case",
            v2_bytes(body_text(server=server, tags=lower).encode("utf-16-le")),
            v2_expected(server=server),
            R("2.2.5-8", "2.2.5-6"),
            ("Boundary", "CaseInsensitive"),
        )
    for server, char_index, comment in (
        ("d" * 257, 0, "257-character server name"),
        ("", 0, "empty server name"),
        ("dc 1", 2, "a space (0x20) in the server name"),
        ("dc\x7f", 2, "DEL (0x7F) in the server name"),
    ):
        text = body_text(server=server, tags=lower)
        bad(
            f"{comment}, tags in lower case",
            text,
            "MQCN-2.2.5-8",
            server_index(text) + char_index,
            ("Boundary", "CaseInsensitive"),
            group=spelled,
        )


def notification_body_file() -> vb.VectorFile:
    """notification_body_test.json, section by section."""
    return _BodyKit().build(_sections)
