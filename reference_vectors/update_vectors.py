"""The vectors of notification_update_test.json: the Notification Update (2.2.6)
structure, inside Version 0x01 messages.

Part of :mod:`generate` (see its documentation): every verdict here is stated by hand.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

from mqcn_model.constants import PROPERTIES, PropId
from reference_vectors import vector_building as vb
from reference_vectors.vector_building import (
    CN1,
    CN2,
    NO_SPARE,
    QM,
    SD,
    SPARE,
    P,
    Prop,
    R,
    u32,
    v1,
)


class _UpdateKit(vb.Kit):
    """The file and its groups."""

    def __init__(self) -> None:
        super().__init__(
            "notification_update_test.json",
            "Notification Update (2.2.6) structure, inside Version 0x01 messages.",
        )


def _update_ending_in(prop: Prop) -> vb.Update:
    """The smallest update whose last property is ``prop``: a machine update for a machine
    property, else a queue update (``PROPID_Q_QMID`` alone when ``prop`` is its own QMID)."""
    if PropId(prop.propid).name.startswith("PROPID_QM_"):
        return vb.machine_update(prop)
    return vb.queue_update() if prop == vb.queue_update().props[0] else vb.queue_update(prop)


_sections: vb.Sections[_UpdateKit] = vb.Sections()


@_sections.add
def _well_formed_updates(kit: _UpdateKit) -> None:
    """Well-formed updates of each kind."""
    s = kit.s
    m = v1(vb.creation())
    s.valid(
        "queue creation: PathName and the 15 creation properties",
        m.data,
        m.expected,
        R(
            "2.2.6-1",
            "2.2.6-3",
            "2.2.6-4",
            "2.2.6-5",
            "2.2.6-10",
            "2.2.6-11",
            "3.3.5.2-5",
            "3.3.5.2-7",
        ),
    )
    m = v1(vb.creation("host\\private$\\orders", vb.creation_props("host\\private$\\orders")))
    s.valid("queue creation with a private$ path name", m.data, m.expected, R("2.2.6-4", "2.2.6-5"))
    m = v1(vb.queue_update(Prop(P.PROPID_Q_JOURNAL, 1)))
    s.valid(
        "queue update: GuidIdentifier, no PathName",
        m.data,
        m.expected,
        R("2.2.6-2", "2.2.6-6", "2.2.6-7", "3.3.5.2-6", "3.3.5.2-8", "3.3.5.2-9"),
    )
    m = v1(vb.machine_update(Prop(P.PROPID_QM_QUOTA, 1024)))
    s.valid("machine update", m.data, m.expected, R("2.2.6-2", "2.2.6-7", "3.3.5.2-3"))
    m = v1(vb.deletion())
    s.valid("queue deletion", m.data, m.expected, R("2.2.6-2", "3.3.5.2-4"))
    m = v1(replace(vb.deletion(), guid_identifier=uuid.UUID(int=0), master=uuid.UUID(int=0)))
    s.valid(
        "GuidIdentifier and GuidMasterId GUID_NULL",
        m.data,
        m.expected,
        R("2.2.6-7", "3.3.5.2-10"),
        ("Boundary",),
    )
    m = v1(vb.creation(props=vb.creation_props(label="\u0100\u0001")))
    s.valid(
        "a label whose code units put 0x00 0x00 at an odd offset",
        m.data,
        m.expected,
        R("2.2.3.10-3", "2.2.6-11"),
        ("Boundary",),
    )
    m = v1(vb.queue_update(Prop(P.PROPID_Q_JOURNAL, 1)), spare=b"\xff")
    s.valid(
        "spare byte 0xFF after the update", m.data, m.expected, R("3.3.5.3-8"), ("SpareByteValue",)
    )


@_sections.add
def _command_useguid_pathname_guid(kit: _UpdateKit) -> None:
    """Command / UseGuid / PathName / GuidIdentifier."""
    s = kit.s
    for use_guid in (0x02, 0xFF):
        m = v1(replace(vb.queue_update(Prop(P.PROPID_Q_JOURNAL, 1)), use_guid=use_guid))
        s.invalid(f"UseGuid 0x{use_guid:02X}", m.data, R("2.2.6-3"), m.lay.start + 1, ("Boundary",))
    head = bytes((1, 1, 0, 0))
    for spare, extra in ((SPARE, ()), (NO_SPARE, ("NoSpareByte",))):
        data = head + "host\\or".encode("utf-16-le") + spare
        s.invalid(
            "PathName without a terminator: the message ends inside it",
            data,
            R("2.2.6-4"),
            4,
            ("Truncated", *extra),
        )
    m = v1(vb.creation("host\\q\ud800", vb.creation_props("host\\qq")))
    s.invalid(
        "PathName holds a lone surrogate",
        m.data,
        R("2.2.6-4"),
        m.lay.path + len("host\\q") * 2,
        ("LoneSurrogate", "E-07"),
    )
    m = v1(vb.deletion())
    data = m.data[: m.lay.guid + 10] + SPARE
    s.invalid(
        "GuidIdentifier cut after 10 of its 16 bytes",
        data,
        R("2.2.6-7"),
        m.lay.guid,
        ("Truncated",),
    )
    # Fixed tail: GuidMasterId, Reserved, NumberOfProperties (judged as 2.2.6-11).
    for cut, comment, extra in (
        (m.lay.master + 8, "GuidMasterId cut after 8 bytes", ()),
        (m.lay.reserved + 10, "Reserved cut after 10 of its 24 bytes", ()),
        (m.lay.count, "the update ends before NumberOfProperties", ("NoSpareByte",)),
    ):
        spare = NO_SPARE if extra else SPARE
        s.invalid(comment, m.data[:cut] + spare, R("2.2.6-11"), m.lay.master, ("Truncated", *extra))


@_sections.add
def _property_count_and_ids(kit: _UpdateKit) -> None:
    """NumberOfProperties / PropertyId array."""
    s = kit.s
    m = v1(vb.queue_update(Prop(P.PROPID_Q_JOURNAL, 1)))
    s.invalid(
        "NumberOfProperties 2 but the update ends after one PropertyId",
        m.data[: m.lay.ids[1]] + SPARE,
        R("2.2.6-10"),
        m.lay.ids[0],
        ("Truncated", "CountMismatch"),
    )
    m = v1(replace(vb.queue_update(Prop(P.PROPID_Q_JOURNAL, 1)), count=0xFF))
    s.invalid(
        "NumberOfProperties 255 with two properties present",
        m.data,
        R("2.2.6-10"),
        m.lay.ids[0],
        ("CountMismatch", "Boundary"),
    )
    m = v1(replace(vb.queue_update(Prop(P.PROPID_Q_JOURNAL, 1)), count=3))
    s.invalid(
        "NumberOfProperties 3 with two properties: the first value's bytes are read as a "
        "third PropertyId (0x00000202), which is no PROPID",
        m.data,
        R("2.2.2-1"),
        m.lay.ids[1] + 4,
        ("CountMismatch", "UnknownPropId"),
    )
    m = v1(replace(vb.queue_update(Prop(P.PROPID_Q_JOURNAL, 1)), count=1))
    end = m.lay.count + 1 + 4 + 16  # one PropertyId, then 16 bytes taken as the QMID value
    s.invalid(
        "NumberOfProperties 1 with two properties: the update ends early and the rest is "
        "data after the announced updates",
        m.data,
        R("2.2.4-2", "3.3.5.2-25"),
        end,
        ("CountMismatch",),
    )
    for propid, comment, extra in (
        (0, "PropertyId 0", ()),
        (100, "PropertyId 100", ()),
        (116, "PROPID_Q_PARTITIONID (116): [MS-MQMQ] defines it, 2.2.2.1 does not", ("E-09",)),
        (124, "PROPID_Q_PATHNAME_DNS (124): [MS-MQMQ] defines it, 2.2.2.1 does not", ("E-09",)),
        (
            237,
            "PROPID_QM_SECURITY_INFORMATION (237), the section 2.2.2.1 cites by mistake",
            ("E-09",),
        ),
        (0xFFFFFFFF, "PropertyId 0xFFFFFFFF", ("Boundary",)),
    ):
        m = v1(vb.queue_update(Prop(propid, wire=u32(0))))
        s.invalid(comment, m.data, R("2.2.2-1"), m.lay.ids[1], ("UnknownPropId", *extra))


@_sections.add
def _property_values_cut_short(kit: _UpdateKit) -> None:
    """Property values cut short, one per wire type a PROPID uses."""
    s = kit.s

    for prop, keep, req, what, spare in (
        (Prop(P.PROPID_Q_BASEPRIORITY, 5), 1, "2.2.3.1-1", "one byte of two", NO_SPARE),
        (Prop(P.PROPID_Q_MODIFY_TIME, 5), 2, "2.2.3.2-1", "two bytes of four", SPARE),
        (Prop(P.PROPID_Q_JOURNAL, 1), 0, "2.2.3.5-1", "the message ends before it", NO_SPARE),
        (Prop(P.PROPID_Q_QUOTA, 5), 2, "2.2.3.7-1", "two bytes of four", SPARE),
        (Prop(P.PROPID_Q_QMID, QM), 8, "2.2.3.12-1", "eight bytes of sixteen", SPARE),
        (Prop(P.PROPID_QM_MACHINE_TYPE, "Windows"), 14, "2.2.3.10-1", "no terminator", SPARE),
        (Prop(P.PROPID_Q_SECURITY, SD), 2, "2.2.3.11-2", "Size cut to two bytes", SPARE),
        (Prop(P.PROPID_Q_SECURITY, SD), 12, "2.2.3.11-3", "Size 20, only 8 bytes follow", SPARE),
        (Prop(P.PROPID_QM_CNS, [CN1, CN2]), 2, "2.2.3.14-2", "Size cut to two bytes", SPARE),
        (Prop(P.PROPID_QM_CNS, [CN1, CN2]), 20, "2.2.3.14-4", "Size 2, one GUID follows", SPARE),
    ):
        # the value of ``prop``, the update's last property, cut after ``keep`` bytes
        built = v1(_update_ending_in(prop), spare=NO_SPARE)
        at = built.lay.values[-1]
        flags = ("Truncated",) if spare else ("Truncated", "NoSpareByte")
        definition = PROPERTIES[PropId(prop.propid)]
        comment = f"{definition.vt.label.replace(' ', '')} {definition.name}: {what}"
        s.invalid(comment, built.data[: at + keep] + spare, R(req), at, flags)
    m = v1(vb.queue_update(Prop(P.PROPID_Q_SECURITY, wire=u32(0xFFFFFFFF) + SD)))
    s.invalid(
        "VT_BLOB PROPID_Q_SECURITY with Size 0xFFFFFFFF",
        m.data,
        R("2.2.3.11-3"),
        m.lay.values[1],
        ("CountMismatch", "Boundary"),
    )
    m = v1(vb.machine_update(Prop(P.PROPID_QM_CNS, wire=u32(0xFFFFFFFF) + CN1.bytes_le)))
    s.invalid(
        "VT_CLSID|VT_VECTOR PROPID_QM_CNS with Size 0xFFFFFFFF",
        m.data,
        R("2.2.3.14-4"),
        m.lay.values[2],
        ("CountMismatch", "Boundary"),
    )
    # a value of the wrong width: PROPID_Q_JOURNAL written as 4 bytes
    m = v1(vb.queue_update(Prop(P.PROPID_Q_JOURNAL, wire=u32(1))))
    s.invalid(
        "PROPID_Q_JOURNAL written as 4 bytes: VT_UI1 takes one, three bytes are left over",
        m.data,
        R("2.2.4-2", "3.3.5.2-25"),
        m.lay.values[1] + 1,
        ("CountMismatch",),
    )
    # lone surrogate in a property value
    label = "Or\ud800ders"
    m = v1(vb.creation(props=vb.creation_props(label=label)))
    at = m.lay.values[vb.creation().index(P.PROPID_Q_LABEL)]
    s.acceptable(
        "PROPID_Q_LABEL holds a lone surrogate",
        m.data,
        R("2.2.3.10-2"),
        at + 4,
        m.expected,
        ("LoneSurrogate", "E-07"),
    )


@_sections.add
def _lenient_readings(kit: _UpdateKit) -> None:
    """The same under the lenient readings."""
    lenient = kit.lenient
    m = v1(vb.creation("host\\q\ud800", vb.creation_props("host\\qq")))  # as in the strict section
    lenient.invalid(
        "PathName with a lone surrogate (lenient): it decodes, but QueuePathName is ASCII",
        m.data,
        R("2.2.6-5"),
        m.lay.path,
        ("LoneSurrogate", "E-07", "E-10"),
    )
    label = "Or\ud800ders"
    m = v1(vb.creation(props=vb.creation_props(label=label)))
    lenient.valid(
        "PROPID_Q_LABEL with a lone surrogate (lenient)",
        m.data,
        m.expected,
        R("2.2.3.10-2"),
        ("LoneSurrogate", "E-07"),
    )
    m = v1(vb.queue_update(Prop(124, wire=u32(0))))
    lenient.invalid(
        "an unknown PROPID stays undecodable under every reading",
        m.data,
        R("2.2.2-1"),
        m.lay.ids[1],
        ("UnknownPropId", "E-09"),
    )
    built = v1(vb.queue_update(Prop(P.PROPID_Q_QUOTA, 5)), spare=NO_SPARE)
    lenient.invalid(
        "a VT_UI4 cut short stays malformed",
        built.data[: built.lay.values[1] + 2] + SPARE,
        R("2.2.3.7-1"),
        built.lay.values[1],
        ("Truncated",),
    )


def notification_update_file() -> vb.VectorFile:
    """notification_update_test.json, section by section."""
    return _UpdateKit().build(_sections)
