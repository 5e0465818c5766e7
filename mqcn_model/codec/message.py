"""Change Notification Message (MS-MQCN 2.2.4) and the body buffer of 3.3.5.3.

    Version(1) NumberOfUpdateNotifications(1) Data

Version 0x01: Data is NumberOfUpdateNotifications Notification Updates back to back.
Version 0x02: Data is one Notification Body (and NumberOfUpdateNotifications must be 1).

The input of :func:`decode_message` is a message *as it sits in an MSMQ message body*: it may
end with the one unused byte of 3.3.5.3, which never changes the result.  Whatever follows the
structure is kept in ``trailing`` for the content rules to judge (errata E-05).

>>> import uuid
>>> from mqcn_model.codec.body import NotificationBody
>>> m = v2_message(NotificationBody(4, uuid.UUID(int=9), "dc"))
>>> buf = body_buffer(m)
>>> len(buf) == len(encode_message(m)) + 1
True
>>> decode_message(buf) == m
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqcn_model.catalog import req
from mqcn_model.codec.body import NotificationBody, decode_body, encode_body
from mqcn_model.codec.update import NotificationUpdate, decode_update, encode_update
from mqcn_model.constants import MAX_UPDATES, MESSAGE_HEADER_SIZE, SPARE_BYTE_COUNT, Version
from mqcn_model.errata import STRICT, Readings
from mqcn_model.errors import fail

R_VERSION = req("MQCN-2.2.4-1")
R_COUNT = req("MQCN-2.2.4-2")
_V1, _V2 = int(Version.DIRECTORY_SERVICE), int(Version.QUEUE_MANAGER)


@dataclass(slots=True)
class ChangeNotificationMessage:
    """A decoded (or to-be-built) Change Notification Message.

    ``count`` is NumberOfUpdateNotifications as it stands on the wire; ``trailing`` holds the
    bytes after the structure (the 3.3.5.3 spare byte, or more) and is not part of equality.
    """

    version: int
    count: int
    updates: tuple[NotificationUpdate, ...] = ()
    body: NotificationBody | None = None
    trailing: bytes = field(default=b"", compare=False)

    @property
    def is_v1(self) -> bool:
        return self.version == Version.DIRECTORY_SERVICE


def v1_message(
    updates: list[NotificationUpdate] | tuple[NotificationUpdate, ...],
) -> ChangeNotificationMessage:
    """A Version 0x01 message carrying ``updates`` (count computed)."""
    updates = tuple(updates)
    return ChangeNotificationMessage(Version.DIRECTORY_SERVICE, len(updates), updates=updates)


def v2_message(body: NotificationBody) -> ChangeNotificationMessage:
    """A Version 0x02 message carrying ``body`` (NumberOfUpdateNotifications = 1)."""
    return ChangeNotificationMessage(Version.QUEUE_MANAGER, 1, body=body)


def decode_message(buf: bytes, readings: Readings = STRICT) -> ChangeNotificationMessage:
    """Decode a Change Notification Message from a message body (spare byte optional)."""
    if type(buf) is not bytes:
        buf = bytes(buf)
    size = len(buf)
    if not size:
        raise fail(R_VERSION, 0, "the message is empty: no Version byte")
    version = buf[0]
    if version != _V1 and version != _V2:
        raise fail(R_VERSION, 0, f"Version is 0x{version:02x}; only 0x01 and 0x02 exist")
    if size < MESSAGE_HEADER_SIZE:
        raise fail(R_COUNT, 1, "the message ends before NumberOfUpdateNotifications")
    count = buf[1]
    if version == _V2:
        end = size - (
            (size - MESSAGE_HEADER_SIZE) & 1
        )  # UTF-16 is even: an odd tail is the spare byte
        body = decode_body(buf, MESSAGE_HEADER_SIZE, end, readings)
        return ChangeNotificationMessage(version, count, (), body, buf[end:])
    offset = MESSAGE_HEADER_SIZE
    updates = []
    for _ in range(count):
        if size - offset <= SPARE_BYTE_COUNT:  # nothing left but (at most) the spare byte
            raise fail(
                R_COUNT,
                1,
                f"NumberOfUpdateNotifications is {count} "
                f"but Data ends after {len(updates)} updates",
            )
        update, offset = decode_update(buf, offset, size, readings)
        updates.append(update)
    return ChangeNotificationMessage(version, count, tuple(updates), None, buf[offset:])


def encode_message(message: ChangeNotificationMessage) -> bytes:
    """Wire bytes of ``message`` (without the spare byte; see :func:`body_buffer`).

    ``message.count`` is written as it is, so a count that disagrees with the content can be
    built on purpose; ``trailing`` is not written.
    """
    if not 0 <= message.count <= MAX_UPDATES:
        raise ValueError("NumberOfUpdateNotifications is one byte")
    head = bytes((message.version, message.count))
    if message.body is not None:
        return head + encode_body(message.body)
    return head + b"".join(encode_update(u) for u in message.updates)


def body_buffer(message: ChangeNotificationMessage, spare: int = 0) -> bytes:
    """The 3.3.5.3 MSMQ body: the message followed by one unused byte (value ``spare``)."""
    return encode_message(message) + bytes((spare,))
