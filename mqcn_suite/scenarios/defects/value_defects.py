"""Defects of one property value's wire form (2.2.3), and a carrier for each VT.

A value defect transforms the conforming bytes of the LAST value of a carrier
(:func:`~mqcn_suite.scenarios.messages.carrier_update`), so that nothing after it moves: a
short value leaves the message short, a Size that promises more than follows runs off its end.
What it breaks depends on the type (a VT_I2 one byte short breaks MQCN-2.2.3.1-1, a VT_UI4
MQCN-2.2.3.7-1), hence a requirement per VT.
"""

from __future__ import annotations

import struct
import uuid

from mqcn_model.catalog import req
from mqcn_model.codec.propvalue import PropertyValue
from mqcn_model.constants import VT, PropId
from mqcn_suite.scenarios.defects.catalogue import Defect, ValueDefect
from mqcn_suite.scenarios.fixtures import OTHER_SECURITY


def one_byte_short(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    return tail[:-1], False


def no_terminator(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    if not tail.endswith(b"\x00\x00"):
        raise ValueError(f"{vt.label} has no terminator to drop")
    return tail[:-2], False


def other_terminator(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    return tail[:-2] + b"\x01\x00", False  # ends with U+0001 where U+0000 belongs


def lone_surrogate(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    return tail[:-2] + b"\x00\xd8" + tail[-2:], True  # U+D800 just before the terminator


def size_beyond(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    size = struct.unpack_from("<I", tail)[0]
    return struct.pack("<I", size + 3 if vt is not VT.BLOB else size + 16) + tail[4:], True


def size_cut(tail: bytes, vt: VT) -> tuple[bytes, bool]:
    return tail[:2], False


MEMBERS: tuple[ValueDefect, ...] = (
    ValueDefect(
        "one byte short",
        {
            VT.I2: req("MQCN-2.2.3.1-1"),
            VT.I4: req("MQCN-2.2.3.2-1"),
            VT.UI1: req("MQCN-2.2.3.5-1"),
            VT.UI4: req("MQCN-2.2.3.7-1"),
            VT.BLOB: req("MQCN-2.2.3.11-3"),
            VT.CLSID: req("MQCN-2.2.3.12-1"),
            VT.CLSID_VECTOR: req("MQCN-2.2.3.14-4"),
        },
        "the value's last byte missing, and no spare byte",
        one_byte_short,
    ),
    ValueDefect(
        "no terminator",
        {VT.LPWSTR: req("MQCN-2.2.3.10-1")},
        "the string's U+0000 dropped",
        no_terminator,
    ),
    ValueDefect(
        "U+0001 as terminator",
        {VT.LPWSTR: req("MQCN-2.2.3.10-1")},
        "the string ends with U+0001 where U+0000 belongs",
        other_terminator,
    ),
    ValueDefect(
        "a lone surrogate",
        {VT.LPWSTR: req("MQCN-2.2.3.10-2")},
        "U+D800 just before the terminator",
        lone_surrogate,
        errata="E-07",
        keeps_layout=True,
        # read so, the text is not the directory's (a lone surrogate is no character of it)
        sender_collateral=(req("MQCN-3.3.5.2-22"),),
    ),
    ValueDefect(
        "Size beyond the data",
        {VT.BLOB: req("MQCN-2.2.3.11-3"), VT.CLSID_VECTOR: req("MQCN-2.2.3.14-4")},
        "a Size (or element count) larger than what follows",
        size_beyond,
    ),
    ValueDefect(
        "Size cut to 2 bytes",
        {VT.BLOB: req("MQCN-2.2.3.11-2"), VT.CLSID_VECTOR: req("MQCN-2.2.3.14-2")},
        "the message ends 2 bytes into the 4-byte Size",
        size_cut,
    ),
)

# A carrier for each VT some PROPID has: (PROPID, value), as the feature files write them.
CARRIERS: dict[VT, tuple[PropId, PropertyValue]] = {
    VT.I2: (PropId.PROPID_Q_BASEPRIORITY, -255),
    VT.I4: (PropId.PROPID_Q_CREATE_TIME, -16909060),
    VT.UI1: (PropId.PROPID_Q_JOURNAL, 1),
    VT.UI4: (PropId.PROPID_Q_QUOTA, 0xF1020304),
    VT.LPWSTR: (PropId.PROPID_Q_LABEL, "orders"),
    VT.BLOB: (PropId.PROPID_Q_SECURITY, OTHER_SECURITY),
    VT.CLSID: (PropId.PROPID_Q_TYPE, uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")),
    VT.CLSID_VECTOR: (
        PropId.PROPID_QM_CNS,
        (
            uuid.UUID("00112233-4455-6677-8899-aabbccddeeff"),
            uuid.UUID("0f0e0d0c-0b0a-0908-0706-050403020100"),
        ),
    ),
}


def carried(members: tuple[ValueDefect, ...] = MEMBERS) -> tuple[Defect, ...]:
    """Every value defect on the carrier (:data:`CARRIERS`) of every VT it applies to."""
    return tuple(
        defect.carried(*CARRIERS[vt])
        for defect in members
        for vt in CARRIERS
        if vt in defect.breaks
    )
