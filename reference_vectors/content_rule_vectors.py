"""The vectors of content_rules_test.json: the content rules of 3.3.5.2 and [MS-MQMQ]
over well-formed Version 0x01 messages.

Part of :mod:`generate` (see its documentation): every verdict here is stated by hand.
"""

from __future__ import annotations

import struct
from dataclasses import replace

from mqcn_model.constants import PropId
from reference_vectors import vector_building as vb
from reference_vectors.vector_building import (
    CN1,
    CN2,
    LDAP,
    PATH,
    QM,
    QTYPE,
    QUEUE,
    SD,
    SD_WITH_DACL,
    SITE,
    Built,
    P,
    Prop,
    R,
    Update,
    creation,
    creation_props,
    deletion,
    machine_update,
    queue_update,
    security_descriptor,
    ta_address,
    v1,
)


class _ContentRuleKit(vb.Kit):
    """The file, its groups and the helpers its sections share."""

    cr = ("ContentRule",)

    def __init__(self) -> None:
        super().__init__(
            "content_rules_test.json",
            "Content rules (3.3.5.2 and the [MS-MQMQ] value rules it points to) over well-formed "
            "Version 0x01 messages.",
        )

    @staticmethod
    def value_at(built: Built, update: Update, propid: int) -> int:
        """Offset, in the message ``built`` of ``update``, of the value of ``propid``."""
        return built.lay.values[update.index(propid)]

    @staticmethod
    def id_at(built: Built, update: Update, propid: int) -> int:
        """Offset, in the message ``built`` of ``update``, of the PropertyId ``propid``."""
        return built.lay.ids[update.index(propid)]


_sections: vb.Sections[_ContentRuleKit] = vb.Sections()


@_sections.add
def _queue_creation(kit: _ContentRuleKit) -> None:
    """Queue creation."""
    s, cr, value_at, id_at = kit.s, kit.cr, kit.value_at, kit.id_at
    u = creation()
    m = v1(u)
    s.valid("creation with the 15 required properties", m.data, m.expected, R("3.3.5.2-14"))
    u = creation(props=list(reversed(creation_props())))
    m = v1(u)
    s.valid(
        "creation with the 15 properties in reverse order (any order)",
        m.data,
        m.expected,
        R("3.3.5.2-14"),
    )
    u = creation(extra=[Prop(P.PROPID_Q_MULTICAST_ADDRESS, "234.1.1.1:8001")])
    m = v1(u)
    s.valid(
        "creation with PROPID_Q_MULTICAST_ADDRESS as well",
        m.data,
        m.expected,
        R("3.3.5.2-14", "3.3.5.2-22"),
        ("Multicast",),
    )
    u = creation(props=creation_props(SECURITY=SD_WITH_DACL))
    m = v1(u)
    s.valid(
        "creation whose security descriptor has an (empty) DACL",
        m.data,
        m.expected,
        R("3.3.5.2-22"),
        ("SecurityDescriptor",),
    )
    for missing in creation_props():
        props = [p for p in creation_props() if p.propid != missing.propid]
        m = v1(creation(props=props))
        s.invalid(
            f"creation without {PropId(missing.propid).name}",
            m.data,
            R("3.3.5.2-14"),
            m.lay.start,
            cr,
        )
    props = [p for p in creation_props() if p.propid not in (P.PROPID_Q_LABEL, P.PROPID_Q_SECURITY)]
    m = v1(creation(props=props))
    s.invalid(
        "creation without PROPID_Q_LABEL and PROPID_Q_SECURITY",
        m.data,
        R("3.3.5.2-14"),
        m.lay.start,
        cr,
    )
    u = creation(extra=[Prop(P.PROPID_Q_ADS_PATH, LDAP)])
    m = v1(u)
    s.invalid(
        "creation with PROPID_Q_ADS_PATH",
        m.data,
        R("3.3.5.2-15"),
        id_at(m, u, P.PROPID_Q_ADS_PATH),
        cr,
        R("3.3.5.2-16"),
    )
    u = creation(extra=[Prop(P.PROPID_Q_ADS_PATH, "CN=orders,DC=example")])
    m = v1(u)
    s.invalid(
        "creation with PROPID_Q_ADS_PATH that is not even an LDAP URL",
        m.data,
        R("3.3.5.2-22", "3.3.5.2-15"),
        value_at(m, u, P.PROPID_Q_ADS_PATH),
        cr,
    )
    u = creation(props=[Prop(P.PROPID_QM_SITE_ID, SITE), *creation_props()])
    m = v1(u)
    s.invalid(
        "creation whose PropertyId[0] is a machine property (object type 2)",
        m.data,
        R("3.3.5.2-2"),
        m.lay.start,
        cr,
    )
    m = v1(creation(props=[]))
    s.invalid("creation with no properties", m.data, R("3.3.5.2-2", "3.3.5.2-14"), m.lay.start, cr)
    u = replace(creation(), use_guid=1, path_name=None, guid_identifier=QUEUE)
    m = v1(u)
    s.invalid(
        "creation naming the queue by GuidIdentifier (UseGuid 0x01)",
        m.data,
        R("3.3.5.2-5"),
        m.lay.start,
        cr,
    )


@_sections.add
def _queue_update(kit: _ContentRuleKit) -> None:
    """Queue update."""
    s, lenient, cr, id_at = kit.s, kit.lenient, kit.cr, kit.id_at
    m = v1(queue_update())
    s.valid("queue update with PROPID_Q_QMID alone", m.data, m.expected, R("3.3.5.2-17"))
    m = v1(queue_update(Prop(P.PROPID_Q_QUOTA, 0), qmid_first=False))
    s.valid("queue update with PROPID_Q_QMID last", m.data, m.expected, R("3.3.5.2-17"))
    every = (
        Prop(P.PROPID_Q_JOURNAL, 1),
        Prop(P.PROPID_Q_QUOTA, 0),
        Prop(P.PROPID_Q_BASEPRIORITY, -32768),
        Prop(P.PROPID_Q_JOURNAL_QUOTA, 0xFFFFFFFF),
        Prop(P.PROPID_Q_SECURITY, SD),
        Prop(P.PROPID_Q_AUTHENTICATE, 1),
        Prop(P.PROPID_Q_PRIV_LEVEL, 2),
    )
    m = v1(queue_update(*every))
    s.valid(
        "queue update changing all seven modifiable properties",
        m.data,
        m.expected,
        R("3.3.5.2-18"),
        ("Boundary",),
    )
    m = v1(queue_update(Prop(P.PROPID_Q_BASEPRIORITY, 32767)))
    s.valid("PROPID_Q_BASEPRIORITY 32767", m.data, m.expected, R("3.3.5.2-22"), ("Boundary",))
    m = v1(Update(1, 1, guid_identifier=QUEUE, props=(Prop(P.PROPID_Q_JOURNAL, 1),)))
    s.invalid("queue update without PROPID_Q_QMID", m.data, R("3.3.5.2-17"), m.lay.start, cr)
    for prop in (
        Prop(P.PROPID_Q_LABEL, "new label"),
        Prop(P.PROPID_Q_PATHNAME, PATH),
        Prop(P.PROPID_Q_TYPE, QTYPE),
        Prop(P.PROPID_Q_TRANSACTION, 1),
        Prop(P.PROPID_Q_MULTICAST_ADDRESS, "234.1.1.1:8001"),
        Prop(P.PROPID_Q_MODIFY_TIME, 1_700_000_000),
    ):
        u = queue_update(prop)
        m = v1(u)
        s.acceptable(
            f"queue update carrying {PropId(prop.propid).name}, which is not modifiable",
            m.data,
            R("3.3.5.2-18"),
            id_at(m, u, prop.propid),
            m.expected,
            ["ContentRule", "E-11"],
            R("3.3.5.2-29"),
        )
    u = queue_update(Prop(P.PROPID_Q_LABEL, "new label"))
    m = v1(u)
    lenient.valid(
        "queue update carrying PROPID_Q_LABEL (lenient)",
        m.data,
        m.expected,
        R("3.3.5.2-18", "3.3.5.2-29"),
        ("ContentRule", "E-11"),
    )
    u = replace(
        queue_update(Prop(P.PROPID_Q_JOURNAL, 1)), use_guid=0, path_name=PATH, guid_identifier=None
    )
    m = v1(u)
    s.invalid(
        "queue update naming the queue by PathName (UseGuid 0x00)",
        m.data,
        R("3.3.5.2-6"),
        m.lay.start,
        cr,
    )


@_sections.add
def _machine_update(kit: _ContentRuleKit) -> None:
    """Machine update."""
    s, cr, id_at = kit.s, kit.cr, kit.id_at
    m = v1(machine_update())
    s.valid("machine update with MACHINE_ID and FOREIGN alone", m.data, m.expected, R("3.3.5.2-19"))
    u = Update(
        1,
        1,
        guid_identifier=QM,
        props=(Prop(P.PROPID_QM_FOREIGN, 1), Prop(P.PROPID_QM_MACHINE_ID, QM)),
    )
    m = v1(u)
    s.valid(
        "machine update with FOREIGN first (any order), FOREIGN_MACHINE",
        m.data,
        m.expected,
        R("3.3.5.2-19"),
    )
    m = v1(
        machine_update(
            Prop(P.PROPID_QM_QUOTA, 0),
            Prop(P.PROPID_QM_JOURNAL_QUOTA, 7),
            Prop(P.PROPID_QM_SECURITY, SD),
        )
    )
    s.valid(
        "machine update changing the three modifiable properties",
        m.data,
        m.expected,
        R("3.3.5.2-20"),
    )
    ignored = (
        Prop(P.PROPID_QM_ADDRESS, ta_address(1, bytes((10, 0, 0, 1)))),
        Prop(P.PROPID_QM_CNS, [CN1, CN2]),
        Prop(P.PROPID_QM_MACHINE_TYPE, "Windows Server 2003 - MSMQ 3.0"),
        Prop(P.PROPID_QM_OS, 0x400),
    )
    for prop in ignored:
        m = v1(machine_update(prop))
        s.valid(
            f"machine update with the ignored extra {PropId(prop.propid).name}",
            m.data,
            m.expected,
            R("3.3.5.2-20"),
        )
    m = v1(machine_update(*ignored, Prop(P.PROPID_QM_QUOTA, 5)))
    s.valid(
        "machine update with all four ignored extras and a change",
        m.data,
        m.expected,
        R("3.3.5.2-20"),
    )
    m = v1(
        machine_update(
            Prop(P.PROPID_QM_MACHINE_TYPE, ""),
            Prop(P.PROPID_QM_CNS, []),
            Prop(P.PROPID_QM_ADDRESS, b""),
        )
    )
    s.valid(
        "empty PROPID_QM_MACHINE_TYPE, PROPID_QM_CNS and PROPID_QM_ADDRESS",
        m.data,
        m.expected,
        R("3.3.5.2-20", "3.3.5.2-22"),
        ("Boundary",),
    )
    two_addresses = ta_address(1, bytes((10, 0, 0, 1))) + ta_address(3, bytes(range(10)))
    m = v1(machine_update(Prop(P.PROPID_QM_ADDRESS, two_addresses)))
    s.valid(
        "PROPID_QM_ADDRESS with an IP and an IPX TA_ADDRESS", m.data, m.expected, R("3.3.5.2-22")
    )
    for os_value in (0x000, 0x100, 0x200, 0x300, 0x500):
        m = v1(machine_update(Prop(P.PROPID_QM_OS, os_value)))
        s.valid(
            f"PROPID_QM_OS 0x{os_value:03X}", m.data, m.expected, R("3.3.5.2-22"), ("Boundary",)
        )
    for props, comment in (
        ((Prop(P.PROPID_QM_FOREIGN, 0), Prop(P.PROPID_QM_QUOTA, 1)), "without MACHINE_ID"),
        ((Prop(P.PROPID_QM_MACHINE_ID, QM), Prop(P.PROPID_QM_QUOTA, 1)), "without FOREIGN"),
        ((Prop(P.PROPID_QM_QUOTA, 1),), "without MACHINE_ID and FOREIGN"),
    ):
        m = v1(Update(1, 1, guid_identifier=QM, props=props))
        s.invalid(f"machine update {comment}", m.data, R("3.3.5.2-19"), m.lay.start, cr)
    for prop in (Prop(P.PROPID_QM_SITE_ID, SITE), Prop(P.PROPID_QM_MODIFY_TIME, 5)):
        u = machine_update(prop)
        m = v1(u)
        s.acceptable(
            f"machine update carrying {PropId(prop.propid).name}, neither modifiable nor ignored",
            m.data,
            R("3.3.5.2-20"),
            id_at(m, u, prop.propid),
            m.expected,
            ["ContentRule", "E-11"],
            R("3.3.5.2-29"),
        )


@_sections.add
def _update_neither_queue_nor_machine(kit: _ContentRuleKit) -> None:
    """Update of neither a queue nor a machine."""
    s, cr = kit.s, kit.cr
    m = v1(Update(1, 1, guid_identifier=QUEUE, props=deletion().props))
    s.invalid(
        "update (Command 0x01) whose PropertyId[0] is PROPID_D_SCOPE (object type 4)",
        m.data,
        R("3.3.5.2-3"),
        m.lay.start,
        cr,
    )
    m = v1(Update(1, 1, guid_identifier=QUEUE))
    s.invalid("update (Command 0x01) with no properties", m.data, R("3.3.5.2-3"), m.lay.start, cr)


@_sections.add
def _deletion(kit: _ContentRuleKit) -> None:
    """Deletion."""
    s, cr = kit.s, kit.cr
    m = v1(deletion())
    s.valid(
        "deletion: D_SCOPE = ENTERPRISE, D_OBJTYPE = QUEUE",
        m.data,
        m.expected,
        R("3.3.5.2-21", "3.3.5.2-23"),
    )
    d = deletion()
    for props, comment in (
        ((d.props[1], d.props[0]), "in the wrong order"),
        ((d.props[0],), "with PROPID_D_SCOPE only"),
        ((), "with no properties"),
        ((Prop(P.PROPID_Q_SCOPE, 1), d.props[1]), "with PROPID_Q_SCOPE instead of D_SCOPE"),
    ):
        m = v1(replace(d, props=props))
        s.invalid(f"deletion {comment}", m.data, R("3.3.5.2-21"), m.lay.start, cr)
    u = replace(d, props=(*d.props, Prop(P.PROPID_Q_QMID, QM)))
    m = v1(u)
    s.acceptable(
        "deletion with a third property",
        m.data,
        R("3.3.5.2-21"),
        m.lay.start,
        m.expected,
        ["ContentRule", "E-11", "E-12"],
    )
    m = v1(deletion(scope=0))
    s.invalid("deletion with D_SCOPE = SITESCOPE", m.data, R("3.3.5.2-23"), m.lay.values[0], cr)
    m = v1(deletion(objtype=2))
    s.invalid("deletion with D_OBJTYPE = MACHINE", m.data, R("3.3.5.2-23"), m.lay.values[0], cr)
    m = v1(deletion(objtype=9))
    s.invalid(
        "deletion with D_OBJTYPE 9 (no such object type)",
        m.data,
        R("3.3.5.2-22", "3.3.5.2-23"),
        m.lay.values[1],
        (*cr, "EnumOutOfRange"),
    )
    m = v1(deletion(objtype=0))
    s.invalid(
        "deletion with D_OBJTYPE 0 (no such object type)",
        m.data,
        R("3.3.5.2-22", "3.3.5.2-23"),
        m.lay.values[1],
        (*cr, "EnumOutOfRange"),
    )
    m = v1(deletion(scope=2))
    s.invalid(
        "deletion with D_SCOPE 2 (no such scope)",
        m.data,
        R("3.3.5.2-22", "3.3.5.2-23"),
        m.lay.values[0],
        (*cr, "EnumOutOfRange"),
    )
    m = v1(replace(d, use_guid=0, path_name=PATH, guid_identifier=None))
    s.invalid(
        "deletion naming the queue by PathName (UseGuid 0x00)",
        m.data,
        R("3.3.5.2-6"),
        m.lay.start,
        cr,
    )


@_sections.add
def _command(kit: _ContentRuleKit) -> None:
    """Command."""
    s, cr = kit.s, kit.cr
    d = deletion()
    for command in (0x03, 0xFF):
        m = v1(replace(d, command=command))
        s.invalid(f"Command 0x{command:02X}", m.data, R("2.2.6-1"), m.lay.start, (*cr, "Boundary"))


@_sections.add
def _enumerated_values_out_of_range(kit: _ContentRuleKit) -> None:
    """Enumerated values out of range."""
    s, cr, value_at = kit.s, kit.cr, kit.value_at
    q_cases = (
        (P.PROPID_Q_JOURNAL, 2),
        (P.PROPID_Q_JOURNAL, 0xFF),
        (P.PROPID_Q_AUTHENTICATE, 2),
        (P.PROPID_Q_PRIV_LEVEL, 3),
        (P.PROPID_Q_PRIV_LEVEL, 0xFFFFFFFF),
    )
    for propid, value in q_cases:
        u = queue_update(Prop(propid, value))
        m = v1(u)
        s.invalid(
            f"{PropId(propid).name} {value}",
            m.data,
            R("3.3.5.2-22"),
            value_at(m, u, propid),
            (*cr, "EnumOutOfRange"),
        )
    for name, value in (("TRANSACTION", 2), ("SCOPE", 2), ("JOURNAL", 2)):
        u = creation(props=creation_props(**{name: value}))
        m = v1(u)
        propid = PropId[f"PROPID_Q_{name}"]
        s.invalid(
            f"creation with {propid.name} {value}",
            m.data,
            R("3.3.5.2-22"),
            value_at(m, u, propid),
            (*cr, "EnumOutOfRange"),
        )
    for propid, value in (
        (P.PROPID_QM_FOREIGN, 2),
        (P.PROPID_QM_OS, 0x600),
        (P.PROPID_QM_OS, 0x101),
        (P.PROPID_QM_OS, 0xFFFFFFFF),
    ):
        if propid == P.PROPID_QM_FOREIGN:
            u = machine_update(foreign=value)
        else:
            u = machine_update(Prop(propid, value))
        m = v1(u)
        s.invalid(
            f"{PropId(propid).name} 0x{value:X}",
            m.data,
            R("3.3.5.2-22"),
            value_at(m, u, propid),
            (*cr, "EnumOutOfRange"),
        )


@_sections.add
def _label(kit: _ContentRuleKit) -> None:
    """Label."""
    s, lenient, cr, value_at = kit.s, kit.lenient, kit.cr, kit.value_at
    for label, comment, flags in (
        ("", "empty label", ("Boundary",)),
        ("L" * 124, "124-character label", ("Boundary",)),
        ("\U0001f600" * 62, "label of 62 surrogate pairs (124 code units)", ("Boundary",)),
    ):
        m = v1(creation(props=creation_props(label=label)))
        s.valid(comment, m.data, m.expected, R("3.3.5.2-22"), flags)
    u = creation(props=creation_props(label="L" * 125))
    m = v1(u)
    s.invalid(
        "125-character label",
        m.data,
        R("3.3.5.2-22"),
        value_at(m, u, P.PROPID_Q_LABEL),
        (*cr, "Boundary"),
    )
    lenient.invalid(
        "125-character label (lenient)",
        m.data,
        R("3.3.5.2-22"),
        value_at(m, u, P.PROPID_Q_LABEL),
        (*cr, "Boundary"),
    )


@_sections.add
def _path_names(kit: _ContentRuleKit) -> None:
    """Path names (PathName field and PROPID_Q_PATHNAME carry the same text)."""
    s, lenient, value_at = kit.s, kit.lenient, kit.value_at
    good_paths = (
        ("host\\orders", "public queue", ()),
        ("host\\private$\\orders", "private$ prefix", ()),
        ("HOST\\PRIVATE$\\orders", "PRIVATE$ prefix in upper case", ("CaseInsensitive",)),
        ("host\\system$;journal", "system$; prefix", ()),
        ("host.example.com\\orders", "FQDN computer name", ()),
        ("host\\orders;sub", "a subqueue (MSMQ 4.0+)", ()),
        ("d" * 256 + "\\q", "256-character computer name", ("Boundary",)),
        ("host\\" + "q" * 124, "124-character queue name", ("Boundary",)),
        ("host\\q;" + "s" * 32, "32-character subqueue name", ("Boundary",)),
        ("host\\q\x7f", "DEL (0x7F) in the queue name (%x5D-7F)", ("Boundary",)),
        (
            "h\\!#$%&'()*-./0:<=>?@[]^_`{|}~",
            "every punctuation the queue name allows",
            ("Boundary",),
        ),
    )
    for path, comment, flags in good_paths:
        m = v1(creation(path, creation_props(path)))
        s.valid(
            f"path name: {comment}",
            m.data,
            m.expected,
            R("2.2.6-5", "3.3.5.2-22"),
            ("PathName", *flags),
        )
    bad_paths = (
        ("hostorders", "no backslash"),
        ("\\orders", "empty computer name"),
        ("host\\", "empty queue name"),
        ("d" * 257 + "\\q", "257-character computer name"),
        ("host\\" + "q" * 125, "125-character queue name"),
        ("host\\or ders", "a space in the queue name"),
        ("ho st\\orders", "a space in the computer name"),
        ("host\\a\\b", "a backslash in the queue name"),
        ("host\\caf\u00e9", "a non-ASCII character in the queue name"),
        ("host\\q;", "empty subqueue name"),
        ("host\\q;" + "s" * 33, "33-character subqueue name"),
        ("host\\q;s;t", "a semicolon in the subqueue name"),
    )
    for path, comment in bad_paths:
        u = creation(path, creation_props(path))
        m = v1(u)
        flags = ["PathName", "ContentRule"]
        if comment == "a backslash in the queue name":
            flags.append("E-10")
        s.invalid(f"path name: {comment}", m.data, R("2.2.6-5", "3.3.5.2-22"), m.lay.path, flags)
    u = creation("hostorders", creation_props(PATH))
    m = v1(u)
    s.invalid(
        "only the PathName field is malformed (PROPID_Q_PATHNAME is fine)",
        m.data,
        R("2.2.6-5"),
        m.lay.path,
        ("PathName", "ContentRule"),
    )
    u = creation(PATH, creation_props("host\\a b"))
    m = v1(u)
    s.invalid(
        "only PROPID_Q_PATHNAME is malformed (the PathName field is fine)",
        m.data,
        R("3.3.5.2-22"),
        value_at(m, u, P.PROPID_Q_PATHNAME),
        ("PathName", "ContentRule"),
    )
    for path, char in (("host\\a+b", "+"), ("host\\a,b", ","), ('host\\a"b', '"')):
        u = creation(path, creation_props(path))
        m = v1(u)
        s.acceptable(
            f"path name with '{char}' (MSMQ 1.0 character set)",
            m.data,
            R("2.2.6-5", "3.3.5.2-22"),
            m.lay.path,
            m.expected,
            ["PathName", "E-10"],
        )
    u = creation("host\\a+b", creation_props("host\\a+b"))
    m = v1(u)
    lenient.valid(
        "path name with '+' (lenient)", m.data, m.expected, R("2.2.6-5"), ("PathName", "E-10")
    )
    u = creation("host\\a b", creation_props("host\\a b"))
    m = v1(u)
    lenient.invalid(
        "a space in the queue name stays invalid under every reading",
        m.data,
        R("2.2.6-5", "3.3.5.2-22"),
        m.lay.path,
        ("PathName", "E-10"),
    )


@_sections.add
def _multicast_addresses(kit: _ContentRuleKit) -> None:
    """Multicast addresses (in a creation)."""
    s, value_at = kit.s, kit.value_at
    for address, flags in (
        ("234.1.1.1:8001", ()),
        ("224.0.0.0:0", ("Boundary",)),
        ("239.255.255.255:65535", ("Boundary",)),
    ):
        m = v1(creation(extra=[Prop(P.PROPID_Q_MULTICAST_ADDRESS, address)]))
        s.valid(
            f"multicast address {address}",
            m.data,
            m.expected,
            R("3.3.5.2-22"),
            ("Multicast", *flags),
        )
    for address, comment in (
        ("192.168.1.1:80", "not class D"),
        ("240.0.0.1:80", "above class D"),
        ("223.255.255.255:80", "just below class D"),
        ("234.1.1.1", "no port"),
        ("234.1.1.1:65536", "port above 65535"),
        ("234.1.1.256:80", "octet above 255"),
        ("234.01.1.1:80", "octet with a leading zero"),
        ("234.1.1.1:080", "port with a leading zero"),
        ("", "empty"),
        ("234.1.1:80", "three octets"),
    ):
        u = creation(extra=[Prop(P.PROPID_Q_MULTICAST_ADDRESS, address)])
        m = v1(u)
        s.acceptable(
            f"multicast address {address!r}: {comment}",
            m.data,
            R("3.3.5.2-22"),
            value_at(m, u, P.PROPID_Q_MULTICAST_ADDRESS),
            m.expected,
            ["Multicast", "ContentRule", "E-13"],
        )


@_sections.add
def _security_descriptors_and_ta_addresses(kit: _ContentRuleKit) -> None:
    """Security descriptors and TA_ADDRESS lists."""
    s, lenient, cr, value_at, id_at = kit.s, kit.lenient, kit.cr, kit.value_at, kit.id_at
    for blob, comment in (
        (security_descriptor(revision=2), "Revision 2"),
        (security_descriptor(revision=0), "Revision 0"),
        (security_descriptor(control=0x0004), "not self-relative (no SE_SELF_RELATIVE)"),
        (SD[:19], "19 bytes, shorter than the header"),
        (b"", "empty"),
        (security_descriptor(offsets=(20, 0, 0, 0)), "OffsetOwner at the end of the blob"),
        (security_descriptor(offsets=(0, 0, 0, 8)), "OffsetDacl inside the header"),
    ):
        u = queue_update(Prop(P.PROPID_Q_SECURITY, blob))
        m = v1(u)
        s.acceptable(
            f"PROPID_Q_SECURITY: {comment}",
            m.data,
            R("3.3.5.2-22"),
            value_at(m, u, P.PROPID_Q_SECURITY),
            m.expected,
            ["SecurityDescriptor", "ContentRule", "E-13"],
        )
    u = machine_update(Prop(P.PROPID_QM_SECURITY, security_descriptor(revision=2)))
    m = v1(u)
    s.acceptable(
        "PROPID_QM_SECURITY: Revision 2",
        m.data,
        R("3.3.5.2-22"),
        value_at(m, u, P.PROPID_QM_SECURITY),
        m.expected,
        ["SecurityDescriptor", "ContentRule", "E-13"],
    )
    lenient.valid(
        "PROPID_QM_SECURITY: Revision 2 (lenient)",
        m.data,
        m.expected,
        R("3.3.5.2-22"),
        ("SecurityDescriptor", "E-13"),
    )
    for blob, comment in (
        (struct.pack("<HH", 8, 1) + bytes(4), "AddressLength 8 runs past the blob"),
        (b"\x04\x00", "a TA_ADDRESS header cut to 2 bytes"),
        (ta_address(1, bytes(4)) + b"\x04\x00\x01", "a second entry cut short"),
    ):
        u = machine_update(Prop(P.PROPID_QM_ADDRESS, blob))
        m = v1(u)
        s.acceptable(
            f"PROPID_QM_ADDRESS: {comment}",
            m.data,
            R("3.3.5.2-22"),
            value_at(m, u, P.PROPID_QM_ADDRESS),
            m.expected,
            ["ContentRule", "E-13"],
        )
    u = creation(extra=[Prop(P.PROPID_Q_ADS_PATH, LDAP)])  # as in the queue creation section
    m = v1(u)
    lenient.invalid(
        "creation with PROPID_Q_ADS_PATH stays invalid under every reading",
        m.data,
        R("3.3.5.2-15"),
        id_at(m, u, P.PROPID_Q_ADS_PATH),
        cr,
    )


@_sections.add
def _reserved(kit: _ContentRuleKit) -> None:
    """Reserved."""
    s = kit.s
    for reserved, comment in ((b"\x01" + bytes(23), "first byte 0x01"), (b"\xff" * 24, "all 0xFF")):
        m = v1(replace(deletion(), reserved=reserved))
        s.valid(
            f"Reserved not zero ({comment}): allowed, reported as an observation",
            m.data,
            m.expected,
            R("2.2.6-8", "2.2.6-9"),
            ("Observation",),
            observations=R("2.2.6-8"),
        )


@_sections.add
def _violation_in_second_update(kit: _ContentRuleKit) -> None:
    """Several updates: the violation is in the second one."""
    s, cr = kit.s, kit.cr
    second = deletion(objtype=2)
    m = v1(creation(), second)
    s.invalid(
        "a valid creation followed by a deletion with D_OBJTYPE = MACHINE",
        m.data,
        R("3.3.5.2-23"),
        m.layouts[1].values[0],
        cr,
    )
    m = v1(queue_update(Prop(P.PROPID_Q_JOURNAL, 2)), deletion(scope=0))
    s.invalid(
        "two updates, each breaking a value rule",
        m.data,
        R("3.3.5.2-22", "3.3.5.2-23"),
        m.layouts[0].values[1],
        cr,
    )


def content_rules_file() -> vb.VectorFile:
    """content_rules_test.json, section by section."""
    return _ContentRuleKit().build(_sections)
