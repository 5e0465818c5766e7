"""A value of the adapter protocol's JSON as the report shows it (never a Python repr).

The values the report shows -- an envelope's attributes, the queue-manager state a diff
compares -- are those of the adapter protocol (docs/adapter-protocol.md, "Values"): GUIDs and
bytes as lower-case text, enumerations by name, integers, texts, queues as objects of their
3.1.1.3 attributes.  :func:`value_text` writes one as a reader expects to see it: a text as
it is (``qm1\\orders`` with one backslash, ``""`` when empty, a lone surrogate as its JSON
escape ``\\ud800``), numbers and ``true`` / ``false`` as JSON writes them, an object as
``{Name: value, …}`` in its own order, a list as ``[a, b]``, and no value as ``(absent)``.
"""

from __future__ import annotations

import json
from typing import Any

ABSENT = "(absent)"


def text_value(text: str) -> str:
    """A JSON text as it reads: the characters themselves, a lone surrogate as its escape.

    >>> text_value("qm1\\\\orders")
    'qm1\\\\orders'
    >>> text_value("a\\ud800")
    'a\\\\ud800'
    >>> text_value("")
    '""'
    """
    if not text:
        return '""'
    return "".join(f"\\u{ord(char):04x}" if "\ud800" <= char <= "\udfff" else char for char in text)


def value_text(value: Any) -> str:
    """``value`` (decoded from the adapter protocol's JSON) as one line of text.

    >>> value_text({"Pathname": "qm1\\\\orders", "Quota": 1000, "Label": ""})
    '{Pathname: qm1\\\\orders, Quota: 1000, Label: ""}'
    >>> value_text(None), value_text(True), value_text([1, "a"])
    ('(absent)', 'true', '[1, a]')
    """
    if value is None:
        return ABSENT
    if isinstance(value, str):
        return text_value(value)
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {value_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return text_value(str(value))
