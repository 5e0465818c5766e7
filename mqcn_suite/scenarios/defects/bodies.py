"""Whole bodies a queue manager meets on its notification queue (3.2.5): empty, cut, garbage.

Not twins of one carrier but what a broken sender or a damaged queue delivers; a queue
manager disregards each and goes on serving (MQCN-3.2.5-5).
"""

from __future__ import annotations

from mqcn_model.catalog import req
from mqcn_suite.scenarios.defects.catalogue import Build, Defect
from mqcn_suite.scenarios.fixtures import ScenarioIds
from mqcn_suite.scenarios.messages import quota_change, v1_body


def constant(body: bytes) -> Build:
    """The same bytes whatever the identities."""
    return lambda ids: body


def quota_change_cut_in_half(ids: ScenarioIds) -> bytes:
    body = v1_body(quota_change(ids))
    return body[: len(body) // 2]


def _body(name: str, requirement: str, description: str, build: Build) -> Defect:
    return Defect(name, "body", req(requirement), description, build)


MEMBERS: tuple[Defect, ...] = (
    _body("an empty body", "MQCN-2.2.4-1", "no bytes at all", constant(b"")),
    _body("a lone Version byte 0x01", "MQCN-2.2.4-2", "01 and nothing else", constant(b"\x01")),
    _body(
        "a Version 0x01 header announcing an update that is missing",
        "MQCN-2.2.4-2",
        "01 01 and no Data",
        constant(b"\x01\x01"),
    ),
    _body(
        "a Quota change cut in half",
        "MQCN-2.2.6-11",
        "the first half of a Quota change",
        quota_change_cut_in_half,
    ),
    _body(
        "a Version 0x02 header without a Notification Body",
        "MQCN-2.2.5-6",
        "02 01 and no Data",
        constant(b"\x02\x01"),
    ),
    _body(
        "a Version 0x02 body that is not UTF-16 text",
        "MQCN-2.2.5-5",
        "02 01 FF FE FF",
        constant(b"\x02\x01\xff\xfe\xff"),
    ),
    _body("4 KiB of 0xFF", "MQCN-2.2.4-1", "4096 bytes 0xFF", constant(b"\xff" * 4096)),
)
