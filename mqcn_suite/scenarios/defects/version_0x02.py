"""Version 0x02 body defects (2.2.4, 2.2.5), and the unusual forms a reader must accept.

Every body is about a change of the owned queue (Event 2, ``ids.queue``, ``ids.server``);
a defect changes one token (:func:`tokens`) or the mark-up text, its encoding or its count
(:func:`text`).  :data:`FORMS` holds bodies that look odd but conform (errata E-02: literals
match in any case; E-03: one terminator is allowed), so a strict reader must act on them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mqcn_model.catalog import req
from mqcn_suite.scenarios.defects.catalogue import AcceptableForm, Build, Defect
from mqcn_suite.scenarios.fixtures import ScenarioIds
from mqcn_suite.scenarios.messages import notification_text, v2_text_message

Token = Callable[[str], str]
COUNT = req("MQCN-2.2.4-3")  # a Version 0x02 message has NumberOfUpdateNotifications 0x01
COUNT_SENT = (req("MQCN-3.3.5.1-7"),)  # the queue manager's restatement of it
# what a client sending it breaks besides: the count is not what Data carries (one body)
COUNT_SENDER = (req("MQCN-2.2.4-2"),)
EVENT, GUID, ENCODING = req("MQCN-2.2.5-2"), req("MQCN-2.2.5-7"), req("MQCN-2.2.5-5")
STRUCTURE, SERVER = req("MQCN-2.2.5-6"), req("MQCN-2.2.5-8")


def tokens(
    event: str | None = None, guid: Token | None = None, server: Token | None = None
) -> Build:
    """A change-queue body with the Event token ``event`` and the ObjectGuid / server name
    tokens transformed by ``guid`` / ``server`` (None: as a conforming body has them)."""

    def build(ids: ScenarioIds) -> bytes:
        text = notification_text(
            "2" if event is None else event,
            str(ids.queue) if guid is None else guid(str(ids.queue)),
            ids.server if server is None else server(ids.server),
        )
        return v2_text_message(text)

    return build


def text(transform: Token, *, encoding: str = "utf-16-le", count: int = 1) -> Build:
    """A change-queue body whose mark-up is ``transform``-ed, written in ``encoding`` under
    NumberOfUpdateNotifications ``count``."""

    def build(ids: ScenarioIds) -> bytes:
        markup = notification_text("2", str(ids.queue), ids.server)
        return v2_text_message(transform(markup), encoding=encoding, count=count)

    return build


def same(markup: str) -> str:
    return markup


def tags_in(case: Token) -> Token:
    """Every tag of the mark-up (``<Event>``, ``</Notification>``…) in ``case``."""
    return lambda markup: re.sub(r"</?[A-Za-z]+>", lambda m: case(m.group(0)), markup)


def event_after_guid(markup: str) -> str:
    moved = markup.replace("<Event>2</Event>", "")
    return moved.replace("</ObjectGuid>", "</ObjectGuid><Event>2</Event>")


def _v2(name: str, requirement: str, description: str, build: Build, **more: Any) -> Defect:
    return Defect(name, "version-0x02", req(requirement), description, build, **more)


MEMBERS: tuple[Defect, ...] = (
    _v2("Event 0", EVENT, "Event token 0", tokens(event="0")),
    _v2("Event 5", EVENT, "Event token 5", tokens(event="5")),
    _v2("Event 12", EVENT, "Event token 12", tokens(event="12")),
    _v2("an empty Event", EVENT, "<Event></Event>", tokens(event="")),
    _v2("a non-numeric Event", EVENT, "Event token x", tokens(event="x")),
    _v2("a GUID in braces", GUID, "{ObjectGuid}", tokens(guid=lambda g: "{" + g + "}")),
    _v2("a 13-digit last GUID group", GUID, "a 0 after the GUID", tokens(guid=lambda g: g + "0")),
    _v2("a GUID without hyphens", GUID, "32 hex digits", tokens(guid=lambda g: g.replace("-", ""))),
    _v2("a GUID with a non-hex digit", GUID, "g first", tokens(guid=lambda g: "g" + g[1:])),
    _v2(
        "an ObjectGuid that is not a GUID", GUID, "not-a-guid", tokens(guid=lambda g: "not-a-guid")
    ),
    _v2("a 257-character server name", SERVER, "257 times d", tokens(server=lambda s: "d" * 257)),
    _v2("an empty server name", SERVER, "no DirectoryServiceServer", tokens(server=lambda s: "")),
    _v2(
        "a server name with a space",
        SERVER,
        "the first dot of the server name a space",
        tokens(server=lambda s: s.replace(".", " ", 1)),
    ),
    _v2(
        "a server name with a non-ASCII letter",
        SERVER,
        "U+00E9 before the server name",
        tokens(server=lambda s: "\u00e9" + s),
    ),
    _v2("byte-order mark", ENCODING, "U+FEFF before the mark-up", text(lambda t: "\ufeff" + t)),
    _v2(
        "UTF-16BE text",
        STRUCTURE,
        "the mark-up in UTF-16BE: read as UTF-16LE, no tag is left",
        text(same, encoding="utf-16-be"),
    ),
    _v2(
        "UTF-8 text",
        STRUCTURE,
        "the mark-up in UTF-8: read as UTF-16LE, no tag is left",
        text(same, encoding="utf-8"),
    ),
    _v2(
        "a misspelt root element",
        STRUCTURE,
        "<Notify> for <Notification>",
        text(lambda t: t.replace("Notification>", "Notify>")),
    ),
    _v2(
        "no </Event> tag", STRUCTURE, "</Event> left out", text(lambda t: t.replace("</Event>", ""))
    ),
    _v2("elements out of order", STRUCTURE, "Event after ObjectGuid", text(event_after_guid)),
    _v2(
        "an extra element",
        STRUCTURE,
        "<Extra>1</Extra> before </Notification>",
        text(lambda t: t.replace("</Notification>", "<Extra>1</Extra></Notification>")),
    ),
    _v2(
        "the ABNF's </ObjectGuid > closing tag",
        STRUCTURE,
        "</ObjectGuid > as the ABNF spells it",
        text(lambda t: t.replace("</ObjectGuid>", "</ObjectGuid >")),
        errata="E-01",
    ),
    _v2("two U+0000 after the body", STRUCTURE, "two terminators", text(lambda t: t + "\x00\x00")),
    _v2(
        "NumberOfUpdateNotifications 0",
        COUNT,
        "a body under count 0",
        text(same, count=0),
        collateral=COUNT_SENT,
        sender_collateral=COUNT_SENDER,
    ),
    _v2(
        "NumberOfUpdateNotifications 2",
        COUNT,
        "a body under count 2",
        text(same, count=2),
        collateral=COUNT_SENT,
        sender_collateral=COUNT_SENDER,
    ),
    _v2(
        "NumberOfUpdateNotifications 255",
        COUNT,
        "a body under count 255",
        text(same, count=255),
        collateral=COUNT_SENT,
        sender_collateral=COUNT_SENDER,
    ),
)

FORMS: tuple[AcceptableForm, ...] = (
    AcceptableForm("lower-case tags", "E-02", "every tag in lower case", text(tags_in(str.lower))),
    AcceptableForm("upper-case tags", "E-02", "every tag in upper case", text(tags_in(str.upper))),
    AcceptableForm("an upper-case ObjectGuid", "E-02", "upper-case hex", tokens(guid=str.upper)),
    AcceptableForm(
        "one U+0000 after the body", "E-03", "one terminator", text(lambda t: t + "\x00")
    ),
)
