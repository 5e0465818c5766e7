"""The vectors of content_rules_test.json: the content rules of 3.3.5.2 and [MS-MQMQ]
over well-formed Version 0x01 messages.

Part of :mod:`generate` (see its documentation): every verdict here is stated by hand.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
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

CR = ("ContentRule",)  # the flag of every vector here that breaks a content rule
VALUE_RULE = R("3.3.5.2-22")  # a property value outside what [MS-MQMQ] allows


class _ContentRuleKit(vb.Kit):
    """The file, its groups and the helpers its sections share: each builds the Version 0x01
    message of one update and states its verdict."""

    cr = CR

    def __init__(self) -> None:
        super().__init__(
            "content_rules_test.json",
            "Content rules (3.3.5.2 and the [MS-MQMQ] value rules it points to) over well-formed "
            "Version 0x01 messages.",
        )

    def valid(
        self, comment: str, update: Update, reqs: list[str], flags: Sequence[str] = ("Normal",)
    ) -> None:
        """``update`` conforms (strict readings)."""
        m = v1(update)
        self.s.valid(comment, m.data, m.expected, reqs, flags)

    def misshapen(
        self, comment: str, update: Update, violations: list[str], flags: Sequence[str] = CR
    ) -> None:
        """``update`` as a whole breaks ``violations`` (its properties or how it names its
        object): invalid from its first byte."""
        m = v1(update)
        self.s.invalid(comment, m.data, violations, m.lay.start, flags)

    def out_of_range(
        self, comment: str, update: Update, propid: int, violations: list[str] = VALUE_RULE
    ) -> None:
        """The value of ``propid`` is outside its [MS-MQMQ] list: invalid at that value."""
        m = v1(update)
        self.s.invalid(comment, m.data, violations, m.value_at(propid), (*CR, "EnumOutOfRange"))

    def unmodifiable(self, comment: str, update: Update, violations: list[str]) -> None:
        """``update`` carries a property (its last) that its kind may not: acceptable, breaking
        ``violations`` at that PropertyId, valid once errata E-11 allows it (3.3.5.2-29)."""
        m = v1(update)
        at = m.id_at(update.props[-1].propid)
        self.s.acceptable(
            comment, m.data, violations, at, m.expected, [*CR, "E-11"], R("3.3.5.2-29")
        )

    def deep_value(self, comment: str, update: Update, *flags: str) -> None:
        """The value of ``update``'s last property breaks an [MS-MQMQ] value rule (3.3.5.2-22)
        a judge may leave unchecked (errata E-13): acceptable, at that value."""
        m = v1(update)
        at = m.value_at(update.props[-1].propid)
        self.s.acceptable(comment, m.data, VALUE_RULE, at, m.expected, [*flags, *CR, "E-13"])


_sections: vb.Sections[_ContentRuleKit] = vb.Sections()


@_sections.add
def _queue_creation(kit: _ContentRuleKit) -> None:
    """Queue creation."""
    s, cr = kit.s, kit.cr
    kit.valid("creation with the 15 required properties", creation(), R("3.3.5.2-14"))
    kit.valid(
        "creation with the 15 properties in reverse order (any order)",
        creation(props=list(reversed(creation_props()))),
        R("3.3.5.2-14"),
    )
    multicast = Prop(P.PROPID_Q_MULTICAST_ADDRESS, "234.1.1.1:8001")
    kit.valid(
        "creation with PROPID_Q_MULTICAST_ADDRESS as well",
        creation(extra=[multicast]),
        R("3.3.5.2-14", "3.3.5.2-22"),
        ("Multicast",),
    )
    kit.valid(
        "creation whose security descriptor has an (empty) DACL",
        creation(props=creation_props(SECURITY=SD_WITH_DACL)),
        R("3.3.5.2-22"),
        ("SecurityDescriptor",),
    )
    for missing in creation_props():
        props = [p for p in creation_props() if p.propid != missing.propid]
        name = PropId(missing.propid).name
        kit.misshapen(f"creation without {name}", creation(props=props), R("3.3.5.2-14"))
    props = [p for p in creation_props() if p.propid not in (P.PROPID_Q_LABEL, P.PROPID_Q_SECURITY)]
    comment = "creation without PROPID_Q_LABEL and PROPID_Q_SECURITY"
    kit.misshapen(comment, creation(props=props), R("3.3.5.2-14"))
    u = creation(extra=[Prop(P.PROPID_Q_ADS_PATH, LDAP)])
    m = v1(u)
    at = m.id_at(P.PROPID_Q_ADS_PATH)
    s.invalid("creation with PROPID_Q_ADS_PATH", m.data, R("3.3.5.2-15"), at, cr, R("3.3.5.2-16"))
    m = v1(creation(extra=[Prop(P.PROPID_Q_ADS_PATH, "CN=orders,DC=example")]))
    s.invalid(
        "creation with PROPID_Q_ADS_PATH that is not even an LDAP URL",
        m.data,
        R("3.3.5.2-22", "3.3.5.2-15"),
        m.value_at(P.PROPID_Q_ADS_PATH),
        cr,
    )
    for comment, update, violations in (
        (
            "creation whose PropertyId[0] is a machine property (object type 2)",
            creation(props=[Prop(P.PROPID_QM_SITE_ID, SITE), *creation_props()]),
            R("3.3.5.2-2"),
        ),
        ("creation with no properties", creation(props=[]), R("3.3.5.2-2", "3.3.5.2-14")),
        (
            "creation naming the queue by GuidIdentifier (UseGuid 0x01)",
            replace(creation(), use_guid=1, path_name=None, guid_identifier=QUEUE),
            R("3.3.5.2-5"),
        ),
    ):
        kit.misshapen(comment, update, violations)


@_sections.add
def _queue_update(kit: _ContentRuleKit) -> None:
    """Queue update."""
    lenient = kit.lenient
    kit.valid("queue update with PROPID_Q_QMID alone", queue_update(), R("3.3.5.2-17"))
    kit.valid(
        "queue update with PROPID_Q_QMID last",
        queue_update(Prop(P.PROPID_Q_QUOTA, 0), qmid_first=False),
        R("3.3.5.2-17"),
    )
    every = (
        Prop(P.PROPID_Q_JOURNAL, 1),
        Prop(P.PROPID_Q_QUOTA, 0),
        Prop(P.PROPID_Q_BASEPRIORITY, -32768),
        Prop(P.PROPID_Q_JOURNAL_QUOTA, 0xFFFFFFFF),
        Prop(P.PROPID_Q_SECURITY, SD),
        Prop(P.PROPID_Q_AUTHENTICATE, 1),
        Prop(P.PROPID_Q_PRIV_LEVEL, 2),
    )
    kit.valid(
        "queue update changing all seven modifiable properties",
        queue_update(*every),
        R("3.3.5.2-18"),
        ("Boundary",),
    )
    u = queue_update(Prop(P.PROPID_Q_BASEPRIORITY, 32767))
    kit.valid("PROPID_Q_BASEPRIORITY 32767", u, R("3.3.5.2-22"), ("Boundary",))
    u = Update(1, 1, guid_identifier=QUEUE, props=(Prop(P.PROPID_Q_JOURNAL, 1),))
    kit.misshapen("queue update without PROPID_Q_QMID", u, R("3.3.5.2-17"))
    for prop in (
        Prop(P.PROPID_Q_LABEL, "new label"),
        Prop(P.PROPID_Q_PATHNAME, PATH),
        Prop(P.PROPID_Q_TYPE, QTYPE),
        Prop(P.PROPID_Q_TRANSACTION, 1),
        Prop(P.PROPID_Q_MULTICAST_ADDRESS, "234.1.1.1:8001"),
        Prop(P.PROPID_Q_MODIFY_TIME, 1_700_000_000),
    ):
        name = PropId(prop.propid).name
        comment = f"queue update carrying {name}, which is not modifiable"
        kit.unmodifiable(comment, queue_update(prop), R("3.3.5.2-18"))
    m = v1(queue_update(Prop(P.PROPID_Q_LABEL, "new label")))
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
    kit.misshapen("queue update naming the queue by PathName (UseGuid 0x00)", u, R("3.3.5.2-6"))


@_sections.add
def _machine_update(kit: _ContentRuleKit) -> None:
    """Machine update."""
    kit.valid("machine update with MACHINE_ID and FOREIGN alone", machine_update(), R("3.3.5.2-19"))
    foreign_first = (Prop(P.PROPID_QM_FOREIGN, 1), Prop(P.PROPID_QM_MACHINE_ID, QM))
    kit.valid(
        "machine update with FOREIGN first (any order), FOREIGN_MACHINE",
        Update(1, 1, guid_identifier=QM, props=foreign_first),
        R("3.3.5.2-19"),
    )
    changes = (
        Prop(P.PROPID_QM_QUOTA, 0),
        Prop(P.PROPID_QM_JOURNAL_QUOTA, 7),
        Prop(P.PROPID_QM_SECURITY, SD),
    )
    kit.valid(
        "machine update changing the three modifiable properties",
        machine_update(*changes),
        R("3.3.5.2-20"),
    )
    ignored = (
        Prop(P.PROPID_QM_ADDRESS, ta_address(1, bytes((10, 0, 0, 1)))),
        Prop(P.PROPID_QM_CNS, [CN1, CN2]),
        Prop(P.PROPID_QM_MACHINE_TYPE, "Windows Server 2003 - MSMQ 3.0"),
        Prop(P.PROPID_QM_OS, 0x400),
    )
    for prop in ignored:
        comment = f"machine update with the ignored extra {PropId(prop.propid).name}"
        kit.valid(comment, machine_update(prop), R("3.3.5.2-20"))
    kit.valid(
        "machine update with all four ignored extras and a change",
        machine_update(*ignored, Prop(P.PROPID_QM_QUOTA, 5)),
        R("3.3.5.2-20"),
    )
    empties = (
        Prop(P.PROPID_QM_MACHINE_TYPE, ""),
        Prop(P.PROPID_QM_CNS, []),
        Prop(P.PROPID_QM_ADDRESS, b""),
    )
    kit.valid(
        "empty PROPID_QM_MACHINE_TYPE, PROPID_QM_CNS and PROPID_QM_ADDRESS",
        machine_update(*empties),
        R("3.3.5.2-20", "3.3.5.2-22"),
        ("Boundary",),
    )
    two_addresses = ta_address(1, bytes((10, 0, 0, 1))) + ta_address(3, bytes(range(10)))
    kit.valid(
        "PROPID_QM_ADDRESS with an IP and an IPX TA_ADDRESS",
        machine_update(Prop(P.PROPID_QM_ADDRESS, two_addresses)),
        R("3.3.5.2-22"),
    )
    for os_value in (0x000, 0x100, 0x200, 0x300, 0x500):
        u = machine_update(Prop(P.PROPID_QM_OS, os_value))
        kit.valid(f"PROPID_QM_OS 0x{os_value:03X}", u, R("3.3.5.2-22"), ("Boundary",))
    for props, comment in (
        ((Prop(P.PROPID_QM_FOREIGN, 0), Prop(P.PROPID_QM_QUOTA, 1)), "without MACHINE_ID"),
        ((Prop(P.PROPID_QM_MACHINE_ID, QM), Prop(P.PROPID_QM_QUOTA, 1)), "without FOREIGN"),
        ((Prop(P.PROPID_QM_QUOTA, 1),), "without MACHINE_ID and FOREIGN"),
    ):
        u = Update(1, 1, guid_identifier=QM, props=props)
        kit.misshapen(f"machine update {comment}", u, R("3.3.5.2-19"))
    for prop in (Prop(P.PROPID_QM_SITE_ID, SITE), Prop(P.PROPID_QM_MODIFY_TIME, 5)):
        name = PropId(prop.propid).name
        comment = f"machine update carrying {name}, neither modifiable nor ignored"
        kit.unmodifiable(comment, machine_update(prop), R("3.3.5.2-20"))


@_sections.add
def _update_neither_queue_nor_machine(kit: _ContentRuleKit) -> None:
    """Update of neither a queue nor a machine."""
    u = Update(1, 1, guid_identifier=QUEUE, props=deletion().props)
    comment = "update (Command 0x01) whose PropertyId[0] is PROPID_D_SCOPE (object type 4)"
    kit.misshapen(comment, u, R("3.3.5.2-3"))
    u = Update(1, 1, guid_identifier=QUEUE)
    kit.misshapen("update (Command 0x01) with no properties", u, R("3.3.5.2-3"))


@_sections.add
def _deletion(kit: _ContentRuleKit) -> None:
    """Deletion."""
    s, cr = kit.s, kit.cr
    kit.valid(
        "deletion: D_SCOPE = ENTERPRISE, D_OBJTYPE = QUEUE",
        deletion(),
        R("3.3.5.2-21", "3.3.5.2-23"),
    )
    d = deletion()
    for props, comment in (
        ((d.props[1], d.props[0]), "in the wrong order"),
        ((d.props[0],), "with PROPID_D_SCOPE only"),
        ((), "with no properties"),
        ((Prop(P.PROPID_Q_SCOPE, 1), d.props[1]), "with PROPID_Q_SCOPE instead of D_SCOPE"),
    ):
        kit.misshapen(f"deletion {comment}", replace(d, props=props), R("3.3.5.2-21"))
    m = v1(replace(d, props=(*d.props, Prop(P.PROPID_Q_QMID, QM))))
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
    for update, what, propid in (
        (deletion(objtype=9), "D_OBJTYPE 9 (no such object type)", P.PROPID_D_OBJTYPE),
        (deletion(objtype=0), "D_OBJTYPE 0 (no such object type)", P.PROPID_D_OBJTYPE),
        (deletion(scope=2), "D_SCOPE 2 (no such scope)", P.PROPID_D_SCOPE),
    ):
        kit.out_of_range(f"deletion with {what}", update, propid, R("3.3.5.2-22", "3.3.5.2-23"))
    u = replace(d, use_guid=0, path_name=PATH, guid_identifier=None)
    kit.misshapen("deletion naming the queue by PathName (UseGuid 0x00)", u, R("3.3.5.2-6"))


@_sections.add
def _command(kit: _ContentRuleKit) -> None:
    """Command."""
    for command in (0x03, 0xFF):
        u = replace(deletion(), command=command)
        kit.misshapen(f"Command 0x{command:02X}", u, R("2.2.6-1"), (*CR, "Boundary"))


@_sections.add
def _enumerated_values_out_of_range(kit: _ContentRuleKit) -> None:
    """Enumerated values out of range."""
    for propid, value in (
        (P.PROPID_Q_JOURNAL, 2),
        (P.PROPID_Q_JOURNAL, 0xFF),
        (P.PROPID_Q_AUTHENTICATE, 2),
        (P.PROPID_Q_PRIV_LEVEL, 3),
        (P.PROPID_Q_PRIV_LEVEL, 0xFFFFFFFF),
    ):
        kit.out_of_range(
            f"{PropId(propid).name} {value}", queue_update(Prop(propid, value)), propid
        )
    for name, value in (("TRANSACTION", 2), ("SCOPE", 2), ("JOURNAL", 2)):
        u = creation(props=creation_props(**{name: value}))
        propid = PropId[f"PROPID_Q_{name}"]
        kit.out_of_range(f"creation with {propid.name} {value}", u, propid)
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
        kit.out_of_range(f"{PropId(propid).name} 0x{value:X}", u, propid)


@_sections.add
def _label(kit: _ContentRuleKit) -> None:
    """Label."""
    cr = kit.cr
    for label, comment, flags in (
        ("", "empty label", ("Boundary",)),
        ("L" * 124, "124-character label", ("Boundary",)),
        ("\U0001f600" * 62, "label of 62 surrogate pairs (124 code units)", ("Boundary",)),
    ):
        kit.valid(comment, creation(props=creation_props(label=label)), VALUE_RULE, flags)
    m = v1(creation(props=creation_props(label="L" * 125)))
    at = m.value_at(P.PROPID_Q_LABEL)
    for group, comment in (
        (kit.s, "125-character label"),
        (kit.lenient, "125-character label (lenient)"),
    ):
        group.invalid(comment, m.data, VALUE_RULE, at, (*cr, "Boundary"))


@_sections.add
def _path_names(kit: _ContentRuleKit) -> None:
    """Path names (PathName field and PROPID_Q_PATHNAME carry the same text)."""
    s, lenient = kit.s, kit.lenient
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
    both = R("2.2.6-5", "3.3.5.2-22")  # the PathName field's rule and PROPID_Q_PATHNAME's
    for path, comment, flags in good_paths:
        u = creation(path, creation_props(path))
        kit.valid(f"path name: {comment}", u, both, ("PathName", *flags))
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
        m = v1(creation(path, creation_props(path)))
        flags = ["PathName", "ContentRule"]
        if comment == "a backslash in the queue name":
            flags.append("E-10")
        s.invalid(f"path name: {comment}", m.data, both, m.lay.path, flags)
    m = v1(creation("hostorders", creation_props(PATH)))
    comment = "only the PathName field is malformed (PROPID_Q_PATHNAME is fine)"
    s.invalid(comment, m.data, R("2.2.6-5"), m.lay.path, ("PathName", "ContentRule"))
    m = v1(creation(PATH, creation_props("host\\a b")))
    comment = "only PROPID_Q_PATHNAME is malformed (the PathName field is fine)"
    at = m.value_at(P.PROPID_Q_PATHNAME)
    s.invalid(comment, m.data, VALUE_RULE, at, ("PathName", "ContentRule"))
    for path, char in (("host\\a+b", "+"), ("host\\a,b", ","), ('host\\a"b', '"')):
        m = v1(creation(path, creation_props(path)))
        comment = f"path name with '{char}' (MSMQ 1.0 character set)"
        s.acceptable(comment, m.data, both, m.lay.path, m.expected, ["PathName", "E-10"])
    m = v1(creation("host\\a+b", creation_props("host\\a+b")))
    lenient.valid(
        "path name with '+' (lenient)", m.data, m.expected, R("2.2.6-5"), ("PathName", "E-10")
    )
    m = v1(creation("host\\a b", creation_props("host\\a b")))
    comment = "a space in the queue name stays invalid under every reading"
    lenient.invalid(comment, m.data, both, m.lay.path, ("PathName", "E-10"))


@_sections.add
def _multicast_addresses(kit: _ContentRuleKit) -> None:
    """Multicast addresses (in a creation)."""
    for address, flags in (
        ("234.1.1.1:8001", ()),
        ("224.0.0.0:0", ("Boundary",)),
        ("239.255.255.255:65535", ("Boundary",)),
    ):
        u = creation(extra=[Prop(P.PROPID_Q_MULTICAST_ADDRESS, address)])
        kit.valid(f"multicast address {address}", u, VALUE_RULE, ("Multicast", *flags))
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
        kit.deep_value(f"multicast address {address!r}: {comment}", u, "Multicast")


@_sections.add
def _security_descriptors_and_ta_addresses(kit: _ContentRuleKit) -> None:
    """Security descriptors and TA_ADDRESS lists."""
    lenient, cr = kit.lenient, kit.cr
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
        kit.deep_value(f"PROPID_Q_SECURITY: {comment}", u, "SecurityDescriptor")
    u = machine_update(Prop(P.PROPID_QM_SECURITY, security_descriptor(revision=2)))
    kit.deep_value("PROPID_QM_SECURITY: Revision 2", u, "SecurityDescriptor")
    m = v1(u)
    lenient.valid(
        "PROPID_QM_SECURITY: Revision 2 (lenient)",
        m.data,
        m.expected,
        VALUE_RULE,
        ("SecurityDescriptor", "E-13"),
    )
    for blob, comment in (
        (struct.pack("<HH", 8, 1) + bytes(4), "AddressLength 8 runs past the blob"),
        (b"\x04\x00", "a TA_ADDRESS header cut to 2 bytes"),
        (ta_address(1, bytes(4)) + b"\x04\x00\x01", "a second entry cut short"),
    ):
        u = machine_update(Prop(P.PROPID_QM_ADDRESS, blob))
        kit.deep_value(f"PROPID_QM_ADDRESS: {comment}", u)
    m = v1(creation(extra=[Prop(P.PROPID_Q_ADS_PATH, LDAP)]))  # as in the queue creation section
    comment = "creation with PROPID_Q_ADS_PATH stays invalid under every reading"
    lenient.invalid(comment, m.data, R("3.3.5.2-15"), m.id_at(P.PROPID_Q_ADS_PATH), cr)


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
    m = v1(creation(), deletion(objtype=2))
    comment = "a valid creation followed by a deletion with D_OBJTYPE = MACHINE"
    s.invalid(comment, m.data, R("3.3.5.2-23"), m.layouts[1].values[0], cr)
    m = v1(queue_update(Prop(P.PROPID_Q_JOURNAL, 2)), deletion(scope=0))
    comment = "two updates, each breaking a value rule"
    s.invalid(comment, m.data, R("3.3.5.2-22", "3.3.5.2-23"), m.layouts[0].values[1], cr)


def content_rules_file() -> vb.VectorFile:
    """content_rules_test.json, section by section."""
    return _ContentRuleKit().build(_sections)
