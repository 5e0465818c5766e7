"""Version 0x01 structure defects (2.2.2, 2.2.4, 2.2.6): lying headers and updates.

Each is the malformed twin of a conforming carrier, one Quota change of the owned queue
(:func:`good`): the same message with one defect, so that a target which applied what it
could parse would set the Quota to SENTINEL_QUOTA (or create the new queue), and a scenario
that sees the state unchanged knows the message was disregarded, not harmless.  Fields whose
value decides the layout (UseGuid) are changed as raw bytes; the others through the scapy
layers (:mod:`mqcn_model.message_layers`), which rebuild what follows.
"""

from __future__ import annotations

from typing import Any

from mqcn_model import message_layers as layers
from mqcn_model.builders import queue_creation
from mqcn_model.catalog import req
from mqcn_model.codec.message import body_buffer, decode_message, v1_message
from mqcn_model.codec.update import encode_update
from mqcn_model.constants import VT, PropId
from mqcn_suite.scenarios.defects import twists
from mqcn_suite.scenarios.defects.catalogue import Build, Defect, Twisted
from mqcn_suite.scenarios.fixtures import SENTINEL_QUOTA, ScenarioIds
from mqcn_suite.scenarios.messages import quota_change, v1_body

COUNT = req("MQCN-2.2.4-2")  # NumberOfUpdateNotifications equals the updates in Data
COUNT_SENT = (req("MQCN-3.3.5.2-25"),)  # the directory service's restatement of it


def good(ids: ScenarioIds) -> bytes:
    """The conforming carrier: one Quota change of the owned queue (spare byte included)."""
    return v1_body(quota_change(ids))


def good_layer(ids: ScenarioIds, updates: int = 1) -> layers.ChangeNotificationMessage:
    """The scapy twin of ``updates`` Quota changes (spare byte included), ready to be broken."""
    message = v1_message([quota_change(ids, SENTINEL_QUOTA + n) for n in range(updates)])
    return layers.to_layer(decode_message(body_buffer(message)), trailing=True)


def with_field(name: str, value: int) -> Build:
    """The carrier with header field (Version) or first-update field (Command) ``name`` lying."""

    def build(ids: ScenarioIds) -> bytes:
        packet = good_layer(ids)
        target = packet if name in ("Version", "NumberOfUpdateNotifications") else packet.Data[0]
        setattr(target, name, value)
        return bytes(packet)

    return build


def with_byte(index: int, value: int) -> Build:
    """The carrier with byte ``index`` set to ``value`` (nothing after it moves)."""

    def build(ids: ScenarioIds) -> bytes:
        buf = bytearray(good(ids))
        buf[index] = value
        return bytes(buf)

    return build


def count_with_updates(count: int, updates: int) -> Build:
    """``updates`` Quota changes under a NumberOfUpdateNotifications that says ``count``."""

    def build(ids: ScenarioIds) -> bytes:
        packet = good_layer(ids, updates)
        packet.NumberOfUpdateNotifications = count
        return bytes(packet)

    return build


def _path_bytes(path: str) -> bytes:
    return path.encode("utf-16-le", "surrogatepass")


def _update_fields(ids: ScenarioIds) -> tuple[bytes, bytes, bytes]:
    """(Command+UseGuid, GuidIdentifier, everything after it) of quota_change, no header."""
    wire = encode_update(quota_change(ids))
    return wire[:2], wire[2:18], wire[18:]


def useguid_one_with_pathname(ids: ScenarioIds) -> bytes:
    head, guid, rest = _update_fields(ids)
    path = _path_bytes(f"{ids.computer}\\orders") + b"\x00\x00"
    return b"\x01\x01" + head + path + guid + rest + b"\x00"


def guid_cut(ids: ScenarioIds) -> bytes:
    head, guid, _rest = _update_fields(ids)
    return b"\x01\x01" + head + guid[:8]


def count_beyond_ids(ids: ScenarioIds) -> bytes:
    packet = good_layer(ids)
    update = packet.Data[0]
    update.NumberOfProperties = 3
    update.PropertyValue = []
    packet.Trailing = b""
    return bytes(packet)


def values_short(ids: ScenarioIds) -> bytes:
    packet = good_layer(ids)
    packet.Data[0].PropertyValue = packet.Data[0].PropertyValue[:1]
    packet.Trailing = b""
    return bytes(packet)


def unknown_propid(propid: int) -> Build:
    """The carrier with PROPID_Q_QUOTA's PropertyId replaced by ``propid``."""

    def build(ids: ScenarioIds) -> bytes:
        packet = good_layer(ids)
        update = packet.Data[0]
        update.PropertyId = [propid if p == PropId.PROPID_Q_QUOTA else p for p in update.PropertyId]
        return bytes(packet)

    return build


def pathname_unterminated(ids: ScenarioIds) -> bytes:
    return b"\x01\x01\x00\x00" + _path_bytes(ids.new_path)


def new_queue_creation(ids: ScenarioIds) -> bytes:
    """The conforming creation of the new queue (its PathName named by path)."""
    return v1_body(queue_creation(ids.new_queue, ids.new_path, master=ids.master))


def one_update(body: bytes) -> bool:
    return body[:2] == b"\x01\x01"


def command(value: int) -> Twisted:
    """The carrier with its update's Command 0x01 set to ``value`` (any update message)."""
    return Twisted(good, twists.set_byte(2, value, when=twists.command_is(1)))


def _v1(name: str, requirement: str, description: str, build: Build, **more: Any) -> Defect:
    return Defect(name, "version-0x01", req(requirement), description, build, **more)


MEMBERS: tuple[Defect, ...] = (
    _v1("Version 0x00", "MQCN-2.2.4-1", "Version 0x00", with_field("Version", 0x00)),
    _v1("Version 0x03", "MQCN-2.2.4-1", "Version 0x03", with_field("Version", 0x03)),
    _v1("Version 0xFF", "MQCN-2.2.4-1", "Version 0xFF", with_field("Version", 0xFF)),
    _v1(
        "NumberOfUpdateNotifications 2 with one update",
        COUNT,
        "the header announces two updates, Data holds one",
        count_with_updates(2, 1),
    ),
    _v1(
        "NumberOfUpdateNotifications 3 with two updates",
        COUNT,
        "the header announces three updates, Data holds two",
        count_with_updates(3, 2),
    ),
    _v1(
        "NumberOfUpdateNotifications 0 with one update",
        COUNT,
        "the header announces no update, Data holds one",
        Twisted(good, twists.set_byte(1, 0, when=one_update)),
        errata="E-05",  # read as no update, then trailing bytes
        collateral=COUNT_SENT,
        # read so, the message carries no update at all: broken under every reading
        sender_collateral=(req("MQCN-3.3.5.2-1"),),
    ),
    *(
        _v1(
            f"Command 0x{value:02X}",
            "MQCN-2.2.6-1",
            f"Command 0x{value:02X} (0x00-0x02 exist)",
            command(value),
            # an update whose Command is not 0x01: the sender's rule for updates broken too
            sender_collateral=(req("MQCN-3.3.5.2-3"),),
        )
        for value in (0x03, 0xFF)
    ),
    _v1("UseGuid 0x02", "MQCN-2.2.6-3", "UseGuid 0x02 (0x00 and 0x01 exist)", with_byte(3, 0x02)),
    _v1("UseGuid 0xFF", "MQCN-2.2.6-3", "UseGuid 0xFF (0x00 and 0x01 exist)", with_byte(3, 0xFF)),
    _v1(
        "UseGuid 0x00 before a GuidIdentifier",
        "MQCN-2.2.6-10",
        "UseGuid says PathName, a GuidIdentifier follows: read as text, the rest misaligns",
        with_byte(3, 0x00),
        misaligned=True,
    ),
    _v1(
        "UseGuid 0x01 with a PathName",
        COUNT,
        "UseGuid says GuidIdentifier, a PathName comes first: the rest misaligns",
        useguid_one_with_pathname,
        errata="E-05",  # the misread update is followed by bytes read as trailing data
        collateral=(req("MQCN-3.3.5.2-3"), *COUNT_SENT),
        under_errata=(req("MQCN-3.3.5.2-3"),),  # read so: no queue or machine update
        misaligned=True,
        # read so, the GuidIdentifier is the PathName's first bytes: another object
        sender_collateral=(req("MQCN-3.3.4.1-1"),),
    ),
    _v1(
        "GuidIdentifier cut short",
        "MQCN-2.2.6-7",
        "the message ends 8 bytes into the GuidIdentifier",
        guid_cut,
    ),
    _v1(
        "PathName without terminator",
        "MQCN-2.2.6-4",
        "a creation whose PathName runs to the end of the message without its U+0000",
        pathname_unterminated,
    ),
    _v1(
        "PathName with a lone surrogate",
        "MQCN-2.2.6-4",
        "a creation whose PathName ends with U+D800",
        Twisted(new_queue_creation, twists.path_lone_surrogate),
        errata="E-07",
        under_errata=(req("MQCN-2.2.6-5"),),
        # read so, the PathName is not the queue's path name
        sender_collateral=(req("MQCN-3.3.5.2-7"),),
    ),
    _v1(
        "NumberOfProperties beyond the PropertyIds",
        "MQCN-2.2.6-10",
        "NumberOfProperties 3 over two PropertyIds and no values",
        count_beyond_ids,
    ),
    _v1(
        "fewer PropertyValues than NumberOfProperties",
        "MQCN-2.2.3.7-1",
        "two PropertyIds, one PropertyValue: the VT_UI4 of PROPID_Q_QUOTA runs out of bytes",
        values_short,
    ),
    _v1("unknown PropertyId 999", "MQCN-2.2.2-1", "999 for PROPID_Q_QUOTA", unknown_propid(999)),
    _v1("PropertyId 0", "MQCN-2.2.2-1", "0 for PROPID_Q_QUOTA", unknown_propid(0)),
    _v1(
        "a VT_LPWSTR value for PROPID_Q_QUOTA",
        COUNT,
        "PROPID_Q_QUOTA's value written as text: 4 bytes read as the Quota, the rest trails",
        Twisted(good, twists.value_written_as(PropId.PROPID_Q_QUOTA, VT.LPWSTR, "orders")),
        errata="E-05",
        collateral=COUNT_SENT,
        # read so, the Quota is the text's first four bytes: not the directory's Quota
        sender_collateral=(req("MQCN-3.3.5.2-22"),),
    ),
    _v1(
        "bytes after the spare byte",
        COUNT,
        "a Quota change, its spare byte, then 4 more bytes",
        Twisted(good, twists.appended(b"\x00\x01\x02\x03")),
        errata="E-05",
        collateral=COUNT_SENT,
    ),
)
