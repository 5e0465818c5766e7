"""Plain-JSON views of decoded structures: what ``mqcn decode --json``, the reference vectors
and the audit output show.  GUIDs are lower-case 8-4-4-4-12 text, bytes are hex.

>>> import uuid
>>> from mqcn_model.builders import v2_notification
>>> message_to_json(v2_notification(3, uuid.UUID(int=1), "dc"))["body"]["event"]
3
"""

from __future__ import annotations

import uuid
from typing import Any

from mqcn_model.codec.message import ChangeNotificationMessage
from mqcn_model.codec.update import NotificationUpdate, Property
from mqcn_model.constants import PROPERTIES


def value_to_json(value: object) -> Any:
    """A property value as JSON: int/bool/str as they are, bytes as hex, GUIDs as text.

    A lone surrogate (the lenient reading of errata E-07) stays the code unit it is: JSON
    carries it as the escape ``"\\ud800"`` (``json.dumps`` writes one; docs/adapter-protocol.md).
    """
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    if isinstance(value, tuple):
        return [value_to_json(v) for v in value]
    return value


def property_to_json(prop: Property) -> dict[str, Any]:
    definition = PROPERTIES[prop.propid]  # type: ignore[index]
    return {
        "propid": prop.propid,
        "name": definition.name,
        "vt": definition.vt.label,
        "value": value_to_json(prop.value),
    }


def update_to_json(update: NotificationUpdate) -> dict[str, Any]:
    return {
        "command": update.command,
        "use_guid": update.use_guid,
        "path_name": value_to_json(update.path_name),
        "guid_identifier": str(update.guid_identifier) if update.guid_identifier else None,
        "guid_master_id": str(update.guid_master_id),
        "reserved": update.reserved.hex(),
        "number_of_properties": len(update.properties),
        "properties": [property_to_json(p) for p in update.properties],
    }


def message_to_json(message: ChangeNotificationMessage) -> dict[str, Any]:
    """The decoded message as a JSON-ready dict."""
    out: dict[str, Any] = {
        "version": message.version,
        "number_of_update_notifications": message.count,
    }
    if message.body is not None:
        out["body"] = {
            "event": message.body.event,
            "object_guid": str(message.body.object_guid),
            "domain_controller": message.body.domain_controller,
        }
    else:
        out["updates"] = [update_to_json(u) for u in message.updates]
    out["trailing"] = message.trailing.hex()
    return out
