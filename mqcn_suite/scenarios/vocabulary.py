"""What feature files write, as the codec's values: VT names, values, PROPID pairs, enum names.

A feature file speaks the spec's language (``VT_UI4|VT_VECTOR``, ``0xF1020304``, ``true``,
``PROPID_Q_QUOTA = 0x10``, ``Sig20``); these parsers turn it into the Python values the
codec and the ADM use, and fail loudly on anything they do not know, so a typo in a feature
file is an error, not a silently different scenario.
"""

from __future__ import annotations

import uuid
from typing import Any

from mqcn_model.codec.propvalue import PropertyValue
from mqcn_model.constants import (
    PROPERTIES,
    QM_ATTRIBUTE_OF,
    QUEUE_ATTRIBUTE_OF,
    VT,
    AuthLevel,
    PropId,  # the PROPID names feature files write: steps read PropId from here
    SenderIdType,
    Version,
)
from mqcn_model.json_views import value_to_json
from mqcn_model.profiles import PROFILES

NONE = ("", "(none)")  # how a feature file writes "no bytes" / "no items"
ELEMENT_OF = {VT.UI4_VECTOR: VT.UI4, VT.CLSID_VECTOR: VT.CLSID, VT.LPWSTR_VECTOR: VT.LPWSTR}


# The kinds of client a feature file names, and the Version each sends (3.3.1).
CLIENT_VERSION: dict[str, int] = {
    "directory-service": int(Version.DIRECTORY_SERVICE),
    "queue-manager": int(Version.QUEUE_MANAGER),
}


def propid_named(name: str) -> PropId:
    """A PROPID named in a feature file (checked against the 2.2.2.1 table)."""
    propid = PropId[name]
    assert propid in PROPERTIES
    return propid


def property_value_from_text(propid: str, text: str) -> PropertyValue:
    """The value a feature file writes for the PROPID it names, read as that PROPID's VT."""
    return value_from_text(PROPERTIES[propid_named(propid)].vt, text)


def profile_named(profile: str) -> str:
    """A product-behaviour profile named in a feature file (one of :mod:`mqcn_model.profiles`)."""
    assert profile in PROFILES, f"unknown profile {profile!r} in the feature file"
    return profile


def vt_named(text: str) -> VT:
    """The VT a feature file names, e.g. ``VT_I2`` or ``VT_UI4|VT_VECTOR``.

    >>> vt_named("VT_CLSID | VT_VECTOR") is VT.CLSID_VECTOR
    True
    """
    wanted = text.replace(" ", "").upper()
    for vt in VT:
        if vt.label.replace(" ", "") == wanted:
            return vt
    raise ValueError(f"no PROPVALUE type {text!r}")


def value_from_text(vt: VT, text: str) -> PropertyValue:
    """A value written in a feature file, as the codec's Python value for ``vt``.

    Integers in any base (``0x..``), ``true``/``false``, BLOBs in hex, GUIDs as text, vectors
    as comma-separated items.

    >>> value_from_text(VT.UI4_VECTOR, "1, 0x102")
    (1, 258)
    """
    element = ELEMENT_OF.get(vt)
    if element is not None:
        items = [t.strip() for t in text.split(",")] if text.strip() not in NONE else []
        return tuple(value_from_text(element, item) for item in items)  # type: ignore[return-value]
    if vt is VT.BOOL:
        return {"true": True, "false": False}[text.strip().lower()]
    if vt is VT.LPWSTR:
        return text
    if vt is VT.BLOB:
        return bytes.fromhex(text)
    if vt is VT.CLSID:
        return uuid.UUID(text)
    return int(text, 0)


def pair_from_text(name: str, text: str) -> tuple[PropId, PropertyValue]:
    """A (PROPID, value) pair a feature writes as ``PROPID_... = text``.

    >>> pair_from_text("PROPID_Q_QUOTA", "0x10")
    (<PropId.PROPID_Q_QUOTA: 105>, 16)
    """
    propid = PropId[name]
    return propid, value_from_text(PROPERTIES[propid].vt, text)


def attribute_value_json(attribute: str, text: str, *, of_queue_manager: bool) -> Any:
    """The JSON form of ``text`` written in a feature as a value of the ADM ``attribute``.

    >>> attribute_value_json("BasePriority", "-3", of_queue_manager=False)
    -3
    """
    table = QM_ATTRIBUTE_OF if of_queue_manager else QUEUE_ATTRIBUTE_OF
    propid = next(p for p, name in table.items() if name == attribute)
    return value_to_json(value_from_text(PROPERTIES[propid].vt, text))


def sender_identifier_type_named(text: str) -> SenderIdType:
    """The SenderIdentifierType a feature names ("None", "Sid", "QueueManagerIdentifier").

    >>> sender_identifier_type_named("None") is SenderIdType.None_
    True
    """
    return SenderIdType["None_" if text == "None" else text]


def authentication_level_named(text: str) -> AuthLevel:
    """The AuthenticationLevel a feature names ("None", "Always", "Sig10", ...)."""
    return AuthLevel["None_" if text == "None" else text]
