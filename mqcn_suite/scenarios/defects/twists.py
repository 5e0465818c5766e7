"""Defects as transformations of a conforming Version 0x01 body (``Apply``: bytes -> bytes).

A defect a sender can commit on *any* message of its kind (a Command out of range, a
PathName with a lone surrogate, a creation without PROPID_Q_LABEL) is written once, as what
it does to the conforming body buffer: the catalogue builds its member by applying it to the
member's conforming twin (:class:`~.catalogue.Twisted`), and the faulty client
(``zoo:sends:<member>``) applies the same function to the message it was about to send, so
that only what the defect breaks differs from a conforming client.  An ``Apply`` returns
None for a message it does not fit (a creation-only defect on an update, say).

>>> from mqcn_suite.scenarios.fixtures import IDS
>>> from mqcn_suite.scenarios.messages import quota_change, v1_body
>>> good = v1_body(quota_change(IDS))
>>> set_byte(2, 0x03, when=command_is(1))(good)[2], set_byte(2, 3, when=command_is(0))(good)
(3, None)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from mqcn_model.codec.message import ChangeNotificationMessage, decode_message, encode_message
from mqcn_model.codec.propvalue import PropertyValue, encode_value
from mqcn_model.codec.update import NotificationUpdate, Property
from mqcn_model.constants import PROPERTIES, VT, PropId
from mqcn_model.errors import DecodeError

Apply = Callable[[bytes], bytes | None]  # a conforming body -> the broken one (None: no fit)
When = Callable[[bytes], bool]


def always(body: bytes) -> bool:
    return True


def command_is(command: int) -> When:
    """A Version 0x01 body whose first update has ``command`` (0 create, 1 update, 2 delete)."""
    return lambda body: body[:1] == b"\x01" and len(body) > 2 and body[2] == command


def set_byte(index: int, value: int, when: When = always) -> Apply:
    """Byte ``index`` set to ``value`` (nothing after it moves)."""

    def apply(body: bytes) -> bytes | None:
        if not when(body) or len(body) <= index:
            return None
        return body[:index] + bytes((value,)) + body[index + 1 :]

    return apply


def appended(extra: bytes) -> Apply:
    """``extra`` after the body buffer (after its spare byte) of a Version 0x01 message."""
    return lambda body: body + extra if body[:1] == b"\x01" else None


def _decoded(body: bytes) -> ChangeNotificationMessage | None:
    if body[:1] != b"\x01":
        return None
    try:
        return decode_message(body)
    except DecodeError:
        return None


def _rebuilt(message: ChangeNotificationMessage, updates: list[NotificationUpdate]) -> bytes:
    """``message`` with ``updates`` (its count kept) and its trailing bytes (the spare byte)."""
    return encode_message(dataclasses.replace(message, updates=tuple(updates))) + message.trailing


def updates_changed(
    change: Callable[[NotificationUpdate], NotificationUpdate | None], when: When = always
) -> Apply:
    """Every update ``change`` fits (returns non-None) changed, re-encoded; None if none fits."""

    def apply(body: bytes) -> bytes | None:
        message = _decoded(body) if when(body) else None
        if message is None:
            return None
        changed = [change(u) for u in message.updates]
        if all(c is None for c in changed):
            return None
        updates = [u if c is None else c for u, c in zip(message.updates, changed, strict=True)]
        return _rebuilt(message, updates)

    return apply


def property_set(propid: PropId, value: PropertyValue, when: When = always) -> Apply:
    """``propid``'s value replaced by ``value`` where an update carries it; added at the end
    of a creation that does not."""

    def change(update: NotificationUpdate) -> NotificationUpdate | None:
        if propid in update.propids:
            props = [
                Property(p.propid, value if p.propid == propid else p.value)
                for p in update.properties
            ]
        elif update.command == 0:
            props = [*update.properties, Property(int(propid), value)]
        else:
            return None
        return dataclasses.replace(update, properties=tuple(props))

    return updates_changed(change, when)


def property_dropped(propid: PropId, when: When = always) -> Apply:
    """``propid`` left out of every update that carries it."""

    def change(update: NotificationUpdate) -> NotificationUpdate | None:
        if propid not in update.propids:
            return None
        props = tuple(p for p in update.properties if p.propid != propid)
        return dataclasses.replace(update, properties=props)

    return updates_changed(change, when)


def path_changed(rename: Callable[[str], str], when: When = always) -> Apply:
    """The PathName of every update that names its object by path, renamed, and its
    PROPID_Q_PATHNAME with it (a creation carries the path twice)."""

    def change(update: NotificationUpdate) -> NotificationUpdate | None:
        if update.path_name is None:
            return None
        props = tuple(
            Property(
                p.propid, rename(str(p.value)) if p.propid == PropId.PROPID_Q_PATHNAME else p.value
            )
            for p in update.properties
        )
        return dataclasses.replace(update, path_name=rename(update.path_name), properties=props)

    return updates_changed(change, when)


def path_lone_surrogate(body: bytes) -> bytes | None:
    """U+D800 just before the terminator of the first update's PathName (bytes after it
    move by two, but are read where the terminator puts them)."""
    if body[:1] != b"\x01" or len(body) < 4 or body[3] != 0:
        return None
    for at in range(4, len(body) - 1, 2):
        if body[at : at + 2] == b"\x00\x00":
            return body[:at] + b"\x00\xd8" + body[at:]
    return None


def value_bytes_replaced(
    propid: PropId,
    transform: Callable[[bytes], bytes | None],
    last_only: bool = False,
    when: When = always,
) -> Apply:
    """The wire form of ``propid``'s value (in the first update carrying it) replaced by
    ``transform(its bytes)``; ``last_only``: only where that value is the last of the
    message, so that nothing after it moves."""

    def apply(body: bytes) -> bytes | None:
        message = _decoded(body) if when(body) else None
        if message is None:
            return None
        for update in message.updates:
            for prop in update.properties:
                if prop.propid != propid or prop.value_offset < 0:
                    continue
                start = prop.value_offset
                end = start + len(encode_value(PROPERTIES[propid].vt, prop.value))
                if last_only and end != len(body) - len(message.trailing):
                    return None
                new = transform(body[start:end])
                return None if new is None else body[:start] + new + body[end:]
        return None

    return apply


def value_written_as(propid: PropId, vt: VT, value: PropertyValue) -> Apply:
    """``propid``'s value (the last of the message) written as a ``vt`` holding ``value``."""
    return value_bytes_replaced(propid, lambda old: encode_value(vt, value), last_only=True)
