"""The vectors of change_notification_message_test.json: the Change Notification Message
(2.2.4) header, its Data and the spare byte of 3.3.5.3.

Part of :mod:`generate` (see its documentation): every verdict here is stated by hand.
"""

from __future__ import annotations

from dataclasses import replace

from reference_vectors import vector_building as vb
from reference_vectors.vector_building import (
    NO_SPARE,
    SPARE,
    P,
    Prop,
    R,
    body_text,
    creation,
    deletion,
    guid,
    machine_update,
    queue_update,
    v1,
    v2_bytes,
    v2_expected,
)


class _MessageKit(vb.Kit):
    """The file, its groups and the spare-byte variants its sections repeat a vector in."""

    spares = ((SPARE, ()), (NO_SPARE, ("NoSpareByte",)))

    def __init__(self) -> None:
        super().__init__(
            "change_notification_message_test.json",
            "Change Notification Message (2.2.4): Version, NumberOfUpdateNotifications, Data, "
            "and the spare byte of 3.3.5.3.",
        )


_sections: vb.Sections[_MessageKit] = vb.Sections()


@_sections.add
def _header(kit: _MessageKit) -> None:
    """Header."""
    s = kit.s
    s.invalid("empty input", b"", R("2.2.4-1"), 0, ("Truncated",))
    s.invalid("one byte: Version 0x01 alone", b"\x01", R("2.2.4-2"), 1, ("Truncated",))
    s.invalid("one byte: Version 0x02 alone", b"\x02", R("2.2.4-2"), 1, ("Truncated",))
    good = v1(deletion()).data
    for version in (0x00, 0x03, 0x10, 0xFF):
        s.invalid(
            f"Version 0x{version:02X} before a well-formed update",
            bytes((version,)) + good[1:],
            R("2.2.4-1"),
            0,
            ("Boundary",),
        )
    s.invalid("Version 0x00 alone", b"\x00", R("2.2.4-1"), 0, ("Boundary", "Truncated"))


@_sections.add
def _version_0x01(kit: _MessageKit) -> None:
    """Version 0x01."""
    s, lenient, spares = kit.s, kit.lenient, kit.spares
    for spare, extra in spares:
        m = v1(spare=spare)
        s.valid(
            "Version 0x01 with no updates",
            m.data,
            m.expected,
            R("2.2.4-2"),
            ("Boundary", "E-18", *extra),
        )
        m = v1(creation(), spare=spare)
        s.valid(
            "Version 0x01 with one update",
            m.data,
            m.expected,
            R("2.2.4-1", "2.2.4-2", "3.3.5.2-24", "3.3.5.2-25", "3.3.5.3-8"),
            ("Normal", *extra),
        )
    m = v1(creation(), spare=b"\xab")
    s.valid(
        "Version 0x01, spare byte 0xAB", m.data, m.expected, R("3.3.5.3-8"), ("SpareByteValue",)
    )
    several = (
        creation(),
        queue_update(Prop(P.PROPID_Q_JOURNAL, 1), Prop(P.PROPID_Q_QUOTA, 4096)),
        machine_update(Prop(P.PROPID_QM_QUOTA, 1 << 20)),
        deletion(),
    )
    m = v1(*several)
    s.valid(
        "Version 0x01 with four updates of every kind, back to back",
        m.data,
        m.expected,
        R("2.2.4-2", "3.3.5.2-25", "3.3.5.2-26"),
    )
    m = v1(*[replace(deletion(), guid_identifier=guid(0x1000 + i)) for i in range(255)])
    s.valid(
        "Version 0x01 with 255 updates (the largest NumberOfUpdateNotifications)",
        m.data,
        m.expected,
        R("2.2.4-2"),
        ("Boundary",),
    )
    quotas = [Prop(P.PROPID_QM_QUOTA, 1000 + i) for i in range(253)]
    m = v1(machine_update(*quotas))
    s.valid(
        "an update with 255 properties (the largest NumberOfProperties)",
        m.data,
        m.expected,
        R("2.2.6-10", "2.2.6-11", "3.3.5.2-11"),
        ("Boundary", "DuplicatePropId"),
    )

    # NumberOfUpdateNotifications too high: the spare byte changes nothing.
    for spare, extra in spares:
        m = v1(deletion(), count=2, spare=spare)
        s.invalid(
            "NumberOfUpdateNotifications 2, one update",
            m.data,
            R("2.2.4-2"),
            1,
            ("CountMismatch", *extra),
            R("3.3.5.3-8"),
        )
        m = v1(count=1, spare=spare)
        s.invalid(
            "NumberOfUpdateNotifications 1, no update",
            m.data,
            R("2.2.4-2"),
            1,
            ("CountMismatch", *extra),
            R("3.3.5.3-8"),
        )
    m = v1(deletion(), count=0xFF)
    s.invalid(
        "NumberOfUpdateNotifications 255, one update",
        m.data,
        R("2.2.4-2"),
        1,
        ("CountMismatch", "Boundary"),
    )
    # NumberOfUpdateNotifications too low: data after the announced updates.
    for spare, extra in spares:
        m = v1(deletion(), deletion(), count=1, spare=spare)
        s.invalid(
            "NumberOfUpdateNotifications 1, two updates",
            m.data,
            R("2.2.4-2", "3.3.5.2-25"),
            m.layouts[1].start,
            ("CountMismatch", *extra),
            R("3.3.5.3-8"),
        )
    m = v1(deletion(), count=0)
    s.invalid(
        "NumberOfUpdateNotifications 0, one update",
        m.data,
        R("2.2.4-2", "3.3.5.2-25"),
        2,
        ("CountMismatch",),
    )
    # Trailing bytes beyond the spare byte (E-05).
    for tail in (b"\x00", b"\xab\xcd", b"\x00" * 16):
        m = v1(deletion(), tail=tail)
        s.acceptable(
            f"{len(tail) + 1} bytes after the last update (one more than the spare byte)",
            m.data,
            R("2.2.4-2", "3.3.5.2-25"),
            m.lay.end,
            m.expected,
            ["CountMismatch", "E-05"],
        )
    m = v1(deletion(), tail=b"\xab\xcd")
    lenient.valid(
        "3 bytes after the last update (lenient)",
        m.data,
        m.expected,
        R("2.2.4-2"),
        ("CountMismatch", "E-05"),
    )
    m = v1(deletion(), count=2)
    lenient.invalid(
        "a count too high stays invalid under every reading",
        m.data,
        R("2.2.4-2"),
        1,
        ("CountMismatch",),
    )


@_sections.add
def _version_0x02(kit: _MessageKit) -> None:
    """Version 0x02."""
    s, lenient, spares = kit.s, kit.lenient, kit.spares
    text = body_text(event="2")
    wire = text.encode("utf-16-le")
    for spare, extra in spares:
        s.valid(
            "Version 0x02 with NumberOfUpdateNotifications 1",
            v2_bytes(wire, spare=spare),
            v2_expected(2, spare=spare),
            R("2.2.4-1", "2.2.4-3", "3.3.5.1-6", "3.3.5.1-7"),
            ("Normal", *extra),
        )
    for count in (0, 2, 0xFF):
        for spare, extra in spares:
            s.invalid(
                f"Version 0x02 with NumberOfUpdateNotifications {count}",
                v2_bytes(wire, count, spare),
                R("2.2.4-3", "3.3.5.1-7"),
                1,
                ("CountMismatch", *extra),
            )
    lenient.invalid(
        "Version 0x02 with NumberOfUpdateNotifications 0 (lenient)",
        v2_bytes(wire, 0),
        R("2.2.4-3", "3.3.5.1-7"),
        1,
        ("CountMismatch",),
    )


@_sections.add
def _data_of_the_other_version(kit: _MessageKit) -> None:
    """Data of the other version."""
    s = kit.s
    update_bytes, _ = deletion().encode(2)
    s.invalid(
        "Version 0x02 carrying a Notification Update",
        v2_bytes(update_bytes),
        R("2.2.5-6"),
        2,
        requirements=R("3.3.5.1-9"),
    )
    body = body_text().encode("utf-16-le")
    s.invalid(
        "Version 0x01 carrying a Notification Body: Command '<', UseGuid 0x00, and the "
        "PathName that follows never ends",
        bytes((1, 1)) + body + SPARE,
        R("2.2.6-4"),
        4,
        requirements=R("3.3.5.2-26"),
    )


def change_notification_message_file() -> vb.VectorFile:
    """change_notification_message_test.json, section by section."""
    return _MessageKit().build(_sections)
