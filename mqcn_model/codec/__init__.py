"""The fast codec: pure ``struct``-based parse/build of every MS-MQCN structure.

One module per structure, each with a symmetric ``decode_*``/``encode_*`` pair:

* :mod:`.guid`      — GUID, binary ([MS-DTYP] 2.3.4.2) and the 2.2.5 text form
* :mod:`.propvalue` — the 15 PROPVALUE wire forms of 2.2.3
* :mod:`.update`    — Notification Update (2.2.6)
* :mod:`.body`      — Notification Body (2.2.5)
* :mod:`.message`   — Change Notification Message (2.2.4) and the 3.3.5.3 body buffer

Decoded structures are slotted dataclasses compared by value.  They are not ``frozen``: a
frozen dataclass costs three times as much to build, and building them is most of the decode
time, so treat them as values and use ``dataclasses.replace`` to derive new ones.

Bad input raises :class:`mqcn_model.errors.DecodeError` and nothing else; no length or count
field makes the codec allocate more than the input holds.
"""

from mqcn_model.codec.body import NotificationBody, decode_body, encode_body
from mqcn_model.codec.guid import decode_guid, encode_guid, guid_from_text, guid_to_text
from mqcn_model.codec.message import (
    ChangeNotificationMessage,
    body_buffer,
    decode_message,
    encode_message,
    v1_message,
    v2_message,
)
from mqcn_model.codec.propvalue import PropertyValue, decode_value, encode_value
from mqcn_model.codec.update import NotificationUpdate, Property, decode_update, encode_update

__all__ = [
    "ChangeNotificationMessage",
    "NotificationBody",
    "NotificationUpdate",
    "Property",
    "PropertyValue",
    "body_buffer",
    "decode_body",
    "decode_guid",
    "decode_message",
    "decode_update",
    "decode_value",
    "encode_body",
    "encode_guid",
    "encode_message",
    "encode_update",
    "encode_value",
    "guid_from_text",
    "guid_to_text",
    "v1_message",
    "v2_message",
]
