"""Requirement IDs the catalog does not hold, for tests of how the suite refuses them.

They are built at run time: tests/test_catalog.py scans the sources for IDs written literally
and rejects unknown ones.
"""

from __future__ import annotations


def fake_id(section: str, n: int) -> str:
    """An ID of the catalog's form that names no requirement."""
    return "MQCN" + f"-{section}-{n}"


NOT_AN_ID = fake_id("3.2.5.1", 99)
OTHER_NOT_AN_ID = fake_id("9.9", 1)
SHORT_NOT_AN_ID = fake_id("1", 1)
