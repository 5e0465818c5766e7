"""The MS-MQDSSM mapping (mqcn_model/dssm.py): DN layout (2.2.1), value encodings, the read
conversions of 3.1.6.11 with each default and each error row, 2.2.6, the GUID filter forms of
3.1.6.19 and the published view (decode of encode)."""

from __future__ import annotations

import dataclasses
import re
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqcn_model.adm import Queue, QueueManager
from mqcn_model.constants import MSMQ_OS_VALUES, V2_QM_READ_ATTRIBUTES, V2_QUEUE_READ_ATTRIBUTES
from mqcn_model.directory import DirectoryOperationResult as R
from mqcn_model.dssm import (
    COMPUTER_CLASSES,
    CONTAINER_CLASSES,
    DEFAULT_ROOT,
    DOMAIN_CLASSES,
    QUEUE_LDAP_ATTRIBUTES,
    QUEUE_MANAGER_LDAP_ATTRIBUTES,
    LdapReadFailure,
    compact_guid,
    computer_dn,
    configuration_dn,
    configuration_naming_context,
    directory_entries,
    directory_objects,
    entry_values,
    epoch_seconds,
    escape_rdn_value,
    escaped_guid,
    generalized_time,
    guid_filter,
    guid_of_dn,
    guids_named,
    ldap_attributes_for,
    normal_dn,
    object_from_ldap,
    pathname_parts,
    pretty_dn,
    published_view,
    queue_attributes,
    queue_dn,
    queue_from_ldap,
    queue_manager_attributes,
    queue_manager_from_ldap,
    result_of_ldap_code,
    same_dn,
    split_dn,
    target_bind_dn,
)
from mqcn_model.errors import DirectoryValueError
from mqcn_model.ldap_records import LdapEntry

GUID = uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff")
QM = uuid.UUID("11111111-2222-3333-4444-555555555555")
QDN = "CN=orders,CN=msmq,CN=qm1,CN=Computers,DC=mqcn,DC=example"
QMDN = "CN=msmq,CN=qm1,CN=Computers,DC=mqcn,DC=example"
ALL_QUEUE = V2_QUEUE_READ_ATTRIBUTES


def queue(**changes: Any) -> Queue:
    base: dict[str, Any] = {
        "Identifier": GUID,
        "Pathname": "qm1\\orders",
        "Security": b"\x01\x00\x04\x80",
        "CreateTime": 1_700_000_000,
        "ModifyTime": 1_700_000_001,
    }
    base.update(changes)
    return Queue(**base)


def entries_by_dn(*args: Any, **kwargs: Any) -> dict[str, Any]:
    return {e.dn: e for e in directory_entries(*args, **kwargs)}


def minimal_queue_values(**extra: Any) -> dict[str, Any]:
    """The values a queue entry must have: objectGUID, the times, Security (and its DN)."""
    values: dict[str, Any] = {
        "objectGUID": [GUID.bytes_le],
        "whenCreated": ["20231114221320.0Z"],
        "whenChanged": ["20231114221321.0Z"],
        "nTSecurityDescriptor": [b"\x01"],
        "distinguishedName": [QDN],
    }
    values.update(extra)
    return {k: v for k, v in values.items() if v is not None}


# --- distinguished names (2.2.1) --------------------------------------------------------------


def test_dn_layout() -> None:
    assert configuration_naming_context() == "CN=Configuration,DC=mqcn,DC=example"
    assert computer_dn("qm1.example.com") == "CN=qm1,CN=Computers,DC=mqcn,DC=example"
    assert configuration_dn("qm1", "DC=x") == "CN=msmq,CN=qm1,CN=Computers,DC=x"
    assert queue_dn("QM1\\Orders") == "CN=Orders,CN=msmq,CN=QM1,CN=Computers," + DEFAULT_ROOT


def test_dn_special_characters_are_escaped_and_read_back() -> None:
    dn = queue_dn("qm1\\a,b+c")
    assert dn.startswith("CN=a\\,b\\+c,")
    assert split_dn(dn)[0] == ("CN", "a,b+c")
    assert normal_dn("CN=A\\2cB, DC=X") == normal_dn("cn=a\\,b,dc=x")


@pytest.mark.parametrize(
    ("pathname", "why"),
    [
        ("orders", "computer\\\\queuename"),
        ("\\orders", "computer\\\\queuename"),
        ("qm1\\", "computer\\\\queuename"),
        ("qm1\\private$\\q", "backslash"),
        ("qm1\\" + "q" * 64, "2.2.5 hash"),
        ("c" * 65 + "\\q", "cn's range"),
    ],
)
def test_queue_pathnames_without_a_layout_are_refused(pathname: str, why: str) -> None:
    with pytest.raises(DirectoryValueError, match=why) as info:
        directory_entries([(queue(Pathname=pathname), None)], [])
    assert f"queue {GUID}" in str(info.value) and "Pathname (distinguishedName)" in str(info.value)


def test_edge_spaces_of_a_name_are_escaped_and_read_back() -> None:
    """RFC 4514 2.4: a leading or trailing space of an RDN value takes a backslash; split_dn
    keeps escaped spaces (written ``\\ `` or ``\\20``) and drops the unescaped ones around
    an RDN value, as a DN written with spaces after its commas and around ``=`` has them."""
    assert escape_rdn_value(" a ") == "\\ a\\ "
    assert split_dn(queue_dn("qm1\\ orders "))[0] == ("CN", " orders ")
    assert split_dn("CN=\\ a\\20 ,DC=x")[0] == ("CN", " a ")
    assert split_dn("CN=  orders  , DC = x") == [("CN", "orders"), ("DC", "x")]
    assert split_dn("CN= a b ,DC=x")[0] == ("CN", "a b")
    assert same_dn("CN= Orders ,CN=msmq, CN = QM1", "cn=orders,cn=msmq,cn=qm1")
    assert not same_dn("CN=orders\\ ,DC=x", "CN=orders,DC=x")


def test_hex_escaped_bytes_then_an_escaped_character_keep_their_order() -> None:
    """RFC 4514 2.4: ``\\XX`` pairs are UTF-8 bytes and ``\\,`` a character, read in the order
    written (``\\C3\\A9`` is é)."""
    assert split_dn("CN=\\C3\\A9\\,x\\41\\+b,DC=y")[0] == ("CN", "é,xA+b")


def test_dns_in_the_servers_form_name_the_same_entries() -> None:
    """slapd returns DNs with lowercase types and hex escapes (checked against slapd 2.5)."""
    dn = queue_dn('qm1\\ a,b+c"d<e>f;g=h#')
    pretty = pretty_dn(dn)
    assert pretty == (
        "cn=\\20a\\2Cb\\2Bc\\22d\\3Ce\\3Ef\\3Bg\\3Dh#,cn=msmq,cn=qm1,cn=Computers,dc=mqcn,dc=example"
    )
    assert same_dn(pretty, dn) and same_dn(dn.upper(), dn)
    assert not same_dn(pretty, queue_dn("qm1\\other"))
    assert [v for _, v in split_dn(pretty)] == [v for _, v in split_dn(dn)]


def test_a_queue_name_of_63_characters_is_laid_out() -> None:
    assert queue_dn("qm1\\" + "q" * 63).startswith("CN=" + "q" * 63 + ",")


def test_entries_parents_first_and_plain_msmq_container_without_queue_manager() -> None:
    entries = directory_entries(
        [(queue(), None), (queue(Identifier=uuid.UUID(int=2), Pathname="qm2\\x"), "qm2")],
        [(QueueManager(QM, Security=b"\x01"), "qm1.example.com")],
    )
    dns = [e.dn for e in entries]
    for i, dn in enumerate(dns):
        parent = dn.split(",", 1)[1] if dn != DEFAULT_ROOT else None
        assert parent is None or parent in dns[:i], f"{dn} before its parent"
    by_dn = {e.dn: e for e in entries}
    plain = by_dn["CN=msmq,CN=qm2,CN=Computers," + DEFAULT_ROOT]
    assert plain.attributes["objectClass"] == ["top", "container"]
    assert "objectGUID" not in plain.attributes
    assert by_dn[QMDN].attributes["objectClass"] == ["top", "mSMQConfiguration"]
    assert by_dn["CN=qm1,CN=Computers," + DEFAULT_ROOT].attributes["dNSHostName"] == [
        "qm1.example.com"
    ]
    assert by_dn[QDN].attributes["distinguishedName"] == [QDN]
    assert len(dns) == len(set(dns))


def test_directory_objects_are_the_queues_and_queue_managers() -> None:
    entries = directory_entries(
        [(queue(), None), (queue(Identifier=uuid.UUID(int=2), Pathname="qm2\\x"), None)],
        [(QueueManager(QM, Security=b"\x01"), "qm1")],
    )
    assert directory_objects(entries) == [
        (QMDN, QM, "QueueManager"),
        (QDN, GUID, "Queue"),
        ("CN=x,CN=msmq,CN=qm2,CN=Computers," + DEFAULT_ROOT, uuid.UUID(int=2), "Queue"),
    ]


def test_entries_without_a_16_byte_objectguid_are_not_objects() -> None:
    """Only an entry whose objectGUID is 16 bytes ([MS-ADA3] 2.44) can be named by its GUID
    (3.1.6.19); any other queue or queue manager entry is left out of the objects, never an
    error (real traffic is judged whatever the directory holds)."""
    queue_classes = ["top", "mSMQQueue"]
    entries = [
        LdapEntry("CN=a," + QMDN, {"objectClass": queue_classes}),
        LdapEntry("CN=b," + QMDN, {"objectClass": queue_classes, "objectGUID": []}),
        LdapEntry("CN=c," + QMDN, {"objectClass": queue_classes, "objectGUID": [GUID.hex]}),
        LdapEntry(QMDN, {"objectClass": ["top", "mSMQConfiguration"], "objectGUID": [b"\x01"]}),
        LdapEntry(QDN, {"objectClass": queue_classes, "objectGUID": [GUID.bytes_le]}),
    ]
    assert directory_objects(entries) == [(QDN, GUID, "Queue")]


def test_entries_without_distinguished_names() -> None:
    by_dn = entries_by_dn([(queue(), None)], [], distinguished_names=False)
    assert all("distinguishedName" not in e.attributes for e in by_dn.values())


def test_a_root_that_is_not_a_domain_is_refused() -> None:
    with pytest.raises(ValueError, match="DC="):
        directory_entries([], [], root="O=example")


def test_a_root_that_is_not_a_dn_is_refused_naming_the_root() -> None:
    """The root is checked before any DN is made under it, so the one-line error names the
    root the caller gave, not a computer's DN built on it."""
    with pytest.raises(ValueError, match=r"^'DC=x,junk' is not a distinguished name"):
        directory_entries([(queue(), None)], [(QueueManager(QM), "qm1")], root="DC=x,junk")


def test_every_entry_lies_under_the_root_given() -> None:
    """2.2.1 puts every object under <root>: the Configuration, Computers and Users containers
    (the target's account is CN=mqcn-target,CN=Users,<root>) and the MSMQ objects alike."""
    root = "DC=corp,DC=test"
    entries = directory_entries(
        [(queue(), None)], [(QueueManager(QM, Security=b"\x01"), "qm1")], root=root
    )
    dns = [e.dn for e in entries]
    assert all(dn == root or dn.endswith("," + root) for dn in dns), dns
    for container in ("Configuration", "Computers", "Users"):
        assert f"CN={container},{root}" in dns
    assert f"CN=orders,CN=msmq,CN=qm1,CN=Computers,{root}" in dns


def test_a_queue_under_another_computer_than_its_owner_is_refused() -> None:
    with pytest.raises(DirectoryValueError, match=r"owner is on computer 'qm2\.example\.com'"):
        directory_entries([(queue(), "qm2.example.com")], [])
    assert directory_entries([(queue(), "QM1.example.com")], [])  # case and domain do not matter


def test_two_objects_with_one_guid_or_one_dn_are_refused() -> None:
    with pytest.raises(DirectoryValueError, match="has it too"):
        directory_entries([(queue(), None)], [(QueueManager(GUID), "qm9")])
    other = queue(Identifier=uuid.UUID(int=3), Pathname="QM1\\Orders")
    with pytest.raises(DirectoryValueError, match="has it"):
        directory_entries([(queue(), None), (other, None)], [])
    with pytest.raises(DirectoryValueError, match="two queue managers"):
        directory_entries([], [(QueueManager(QM), "qm1"), (QueueManager(GUID), "QM1")])


# --- value encodings ----------------------------------------------------------------------------


def test_queue_values_in_ad_syntaxes() -> None:
    q = queue(
        Journaling=1, Quota=0xFFFFFFFF, JournalQuota=2**31, BasePriority=-7, Label="étiquette"
    )
    attrs = entries_by_dn([(q, None)], [])[QDN].attributes
    assert attrs["objectGUID"] == [GUID.bytes_le]
    assert attrs["mSMQQueueType"] == [bytes(16)]
    assert attrs["mSMQJournal"] == ["TRUE"] and attrs["mSMQAuthenticate"] == ["FALSE"]
    assert attrs["mSMQQueueQuota"] == ["-1"]
    assert attrs["mSMQQueueJournalQuota"] == [str(-(2**31))]
    assert attrs["mSMQBasePriority"] == ["-7"]
    assert attrs["mSMQPrivacyLevel"] == ["1"]
    assert attrs["whenCreated"] == ["20231114221320.0Z"]
    assert attrs["mSMQLabelEx"] == ["étiquette"]
    assert attrs["nTSecurityDescriptor"] == [b"\x01\x00\x04\x80"]
    assert "MSMQ-MulticastAddress" not in attrs  # "" has no LDAP value: the default gives it


def test_queue_manager_values_in_ad_syntaxes() -> None:
    qm = QueueManager(
        QM, QueueManagerQuota=5, ForeignSystem=1, QueueManagerVersion="v", Security=b"s"
    )
    attrs = entries_by_dn([], [(qm, "qm1")])[QMDN].attributes
    assert attrs["objectGUID"] == [QM.bytes_le]
    assert attrs["mSMQQuota"] == ["5"] and attrs["mSMQJournalQuota"] == ["-1"]
    assert attrs["mSMQForeign"] == ["TRUE"] and attrs["mSMQComputerTypeEx"] == ["v"]
    assert attrs["whenCreated"] == ["19700101000000.0Z"]


def test_empty_queue_manager_values_are_not_written() -> None:
    """LDAP has no empty value (errata D-15): an empty Security or QueueManagerVersion is left
    out of the entry, and a read of that Security is the error row of 3.1.6.11.1."""
    attrs = entries_by_dn([], [(QueueManager(QM, Security=b""), "qm1")])[QMDN].attributes
    assert "nTSecurityDescriptor" not in attrs and "mSMQComputerTypeEx" not in attrs
    assert all(values and all(v != b"" and v != "" for v in values) for values in attrs.values())


@pytest.mark.parametrize(
    ("changes", "adm", "ldap"),
    [
        ({"Journaling": 7}, "Journaling", "mSMQJournal"),
        ({"Authentication": 2}, "Authentication", "mSMQAuthenticate"),
        ({"Transactional": -1}, "Transactional", "mSMQTransactional"),
        ({"Quota": 2**32}, "Quota", "mSMQQueueQuota"),
        ({"JournalQuota": -1}, "JournalQuota", "mSMQQueueJournalQuota"),
        ({"BasePriority": 2**31}, "BasePriority", "mSMQBasePriority"),
        ({"PrivacyLevel": -1}, "PrivacyLevel", "mSMQPrivacyLevel"),
        ({"PrivacyLevel": 3}, "PrivacyLevel", "mSMQPrivacyLevel"),
        ({"Label": "bad \ud800"}, "Label", "mSMQLabelEx"),
        ({"MulticastAddress": "\udfff"}, "MulticastAddress", "MSMQ-MulticastAddress"),
        ({"CreateTime": 10**12}, "CreateTime", "whenCreated"),
        ({"ModifyTime": "now"}, "ModifyTime", "whenChanged"),
        ({"Security": "0100"}, "Security", "nTSecurityDescriptor"),
        ({"Type": "not a guid"}, "Type", "mSMQQueueType"),
    ],
)
def test_queue_values_without_an_ldap_form_are_refused(
    changes: dict[str, Any], adm: str, ldap: str
) -> None:
    with pytest.raises(DirectoryValueError) as info:
        directory_entries([(queue(**changes), None)], [])
    err = info.value
    assert (err.subject, err.adm, err.ldap) == (f"queue {GUID}", adm, ldap)
    assert repr(next(iter(changes.values()))) in str(err) and err.why in str(err)


@pytest.mark.parametrize(
    ("changes", "adm"),
    [
        ({"QueueManagerQuota": 2**32}, "QueueManagerQuota"),
        ({"JournalQuota": -5}, "JournalQuota"),
        ({"ForeignSystem": 2}, "ForeignSystem"),
        ({"OperatingSystemType": 7}, "OperatingSystemType"),
        ({"QueueManagerVersion": "\ud800"}, "QueueManagerVersion"),
        ({"ConnectedNetworkIdentifierList": (QM,)}, "ConnectedNetworkIdentifierList"),
    ],
)
def test_queue_manager_values_without_an_ldap_form_are_refused(
    changes: dict[str, Any], adm: str
) -> None:
    with pytest.raises(DirectoryValueError) as info:
        directory_entries([], [(QueueManager(QM, **changes), "qm1")])
    assert info.value.adm == adm and f"queue manager {QM}" in str(info.value)


def test_generalized_time_round_trip_and_forms() -> None:
    assert generalized_time(0) == "19700101000000.0Z"
    assert generalized_time(-1) == "19691231235959.0Z"
    assert epoch_seconds("19700101000000Z") == 0
    assert epoch_seconds("197001010100+0100") == 0
    assert epoch_seconds("19700101000001.9Z") == 1
    with pytest.raises(ValueError, match="not a GeneralizedTime"):
        epoch_seconds("2023-11-14")


@pytest.mark.parametrize(
    "text", ["19700101013000+0130", "19691231223000-0130", "19700101004500.5+0045"]
)
def test_a_time_offset_counts_its_hours_and_minutes(text: str) -> None:
    """RFC 4517 3.3.13: an offset is hours and minutes, both applied (errata D-20): each of
    these names the epoch."""
    assert epoch_seconds(text) == 0


@given(st.integers(min_value=-62_135_596_800, max_value=253_402_300_799))
def test_generalized_time_is_inverse_of_epoch_seconds(seconds: int) -> None:
    assert epoch_seconds(generalized_time(seconds)) == seconds


# --- Create LDAP Attribute List (3.1.6.10) and 2.2.6 ------------------------------------------


def test_ldap_attribute_lists() -> None:
    names = ldap_attributes_for("Queue", ALL_QUEUE)
    assert names[:4] == ("mSMQQueueType", "objectGUID", "mSMQBasePriority", "mSMQJournal")
    assert "distinguishedName" in names and "mSMQQueueNameExt" in names
    assert len(names) == len(set(names))
    assert ldap_attributes_for("Queue", ("Scope", "Label")) == ("mSMQLabelEx",)
    assert ldap_attributes_for("QueueManager", V2_QM_READ_ATTRIBUTES) == (
        "mSMQQuota",
        "mSMQJournalQuota",
        "nTSecurityDescriptor",
    )
    with pytest.raises(ValueError, match="unknown directory object type"):
        ldap_attributes_for("Site", ())


@pytest.mark.parametrize(
    ("code", "result"),
    [
        (0, R.Success),
        (32, R.ObjectNotFound),
        (16, R.AttributeNotFound),
        (68, R.ObjectAlreadyExists),
        (49, R.GenericError),
        (50, R.GenericError),
        (1, R.GenericError),
    ],
)
def test_result_codes(code: int, result: R) -> None:
    assert result_of_ldap_code(code) is result


# --- Create ADM Element From LDAP Values (3.1.6.11.2): defaults and errors ---------------------


@pytest.mark.parametrize(
    ("name", "default"),
    [
        ("Label", ""),
        ("Type", uuid.UUID(int=0)),
        ("Journal", 0),
        ("Quota", 0xFFFFFFFF),
        ("JournalQuota", 0xFFFFFFFF),
        ("Authentication", 0),
        ("PrivacyLevel", 1),
        ("Transactional", 0),
        ("MulticastAddress", ""),
        ("BasePriority", 0),
    ],
)
def test_queue_defaults(name: str, default: Any) -> None:
    assert queue_from_ldap(minimal_queue_values(), (name,)) == {name: default}


@pytest.mark.parametrize(
    ("missing", "asked"),
    [
        ("objectGUID", "Identifier"),
        ("whenCreated", "CreateTime"),
        ("whenChanged", "ModifyTime"),
        ("nTSecurityDescriptor", "Security"),
        ("distinguishedName", "Pathname"),
        ("distinguishedName", "DirectoryPath"),
        ("distinguishedName", "FullPath"),
    ],
)
def test_queue_error_rows(missing: str, asked: str) -> None:
    values = minimal_queue_values(**{missing: None})
    assert queue_from_ldap(values, (asked,)) is R.GenericError
    failure = object_from_ldap("Queue", values, (asked,))
    assert isinstance(failure, LdapReadFailure) and missing in failure.reason
    # an attribute not asked for is not computed, so its absence is no error
    assert queue_from_ldap(values, ("Label",)) == {"Label": ""}


@pytest.mark.parametrize(
    ("values", "why"),
    [
        ({"mSMQJournal": ["YES"]}, "neither TRUE"),
        ({"mSMQPrivacyLevel": ["3"]}, "not 0, 1 or 2"),
        ({"mSMQQueueQuota": ["12x"]}, "not an Integer"),
        ({"mSMQQueueQuota": [str(2**32)]}, "outside a 32-bit"),
        ({"objectGUID": [b"short"]}, "not 16"),
        ({"mSMQQueueType": [b"\x01" * 15]}, "not 16"),
        ({"mSMQQueueType": [bytes(17)]}, "not 16"),
        ({"objectGUID": [GUID.hex]}, "octet string"),
        ({"whenCreated": ["yesterday"]}, "not a GeneralizedTime"),
        ({"mSMQLabelEx": ["a", "b"]}, "single-valued"),
        ({"mSMQLabelEx": [b"\xff"]}, "not UTF-8"),
    ],
)
def test_queue_values_of_the_wrong_syntax_fail_the_read(values: dict[str, Any], why: str) -> None:
    failure = object_from_ldap("Queue", minimal_queue_values(**values), ALL_QUEUE)
    assert isinstance(failure, LdapReadFailure) and why in failure.reason
    assert failure.result is R.GenericError


def test_queue_read_conversions() -> None:
    values = minimal_queue_values(
        mSMQJournal=["TRUE"],
        msmqauthenticate=["1"],  # names in any case; 1/0 as MS-MQDSSM writes Booleans
        mSMQQueueQuota=["-1"],
        mSMQBasePriority=["-7"],
        mSMQPrivacyLevel=["2"],
        mSMQLabelEx=[b"\xc3\xa9"],
        distinguishedName=["CN=Orders, CN=msmq, CN=QM1, CN=Computers, DC=mqcn, DC=example"],
    )
    read = queue_from_ldap(values, ALL_QUEUE)
    assert isinstance(read, dict)
    assert read["Journal"] == 1 and read["Authentication"] == 1
    assert read["Quota"] == 0xFFFFFFFF and read["BasePriority"] == -7
    assert read["PrivacyLevel"] == 2 and read["Label"] == "é"
    assert read["Pathname"] == "qm1\\orders"
    assert read["DirectoryPath"].startswith("LDAP://CN=Orders, CN=msmq")
    assert read["CreateTime"] == 1_700_000_000 and read["Identifier"] == GUID
    assert list(read) == list(ALL_QUEUE)


@pytest.mark.parametrize(
    ("text", "quota"),
    [
        ("-2147483648", 0x80000000),
        ("-1", 0xFFFFFFFF),
        ("2147483647", 0x7FFFFFFF),
        ("4294967295", 0xFFFFFFFF),
        ("0", 0),
    ],
)
def test_integers_at_the_ends_of_the_range_are_read(text: str, quota: int) -> None:
    """Errata D-05: every value of -2^31..2^32-1 is read, signed as AD stores it or unsigned,
    and masked to 32 bits; BasePriority stays signed."""
    values = minimal_queue_values(mSMQQueueQuota=[text], mSMQBasePriority=[text])
    read = queue_from_ldap(values, ("Quota",))
    assert read == {"Quota": quota}
    if int(text) <= 2**31 - 1:
        assert queue_from_ldap(values, ("BasePriority",)) == {"BasePriority": int(text)}


@pytest.mark.parametrize("text", ["-2147483649", "4294967296"])
def test_integers_just_outside_the_range_fail_the_read(text: str) -> None:
    failure = object_from_ldap("Queue", minimal_queue_values(mSMQQueueQuota=[text]), ("Quota",))
    assert isinstance(failure, LdapReadFailure) and "outside a 32-bit" in failure.reason


def test_pathname_of_a_dn_with_nothing_above_the_computer() -> None:
    """3.1.6.11.2.1 reads the queue name and the computer from the first and third RDNs of
    the 2.2.1 DN; what lies above the computer is not read (a real directory may keep its
    computers elsewhere than CN=Computers)."""
    dn = "CN=Orders,CN=msmq,CN=QM1"
    assert queue_from_ldap({}, ("Pathname",), dn=dn) == {"Pathname": "qm1\\orders"}
    dn = "CN=Orders,CN=msmq,CN=QM1,OU=Servers,DC=corp"
    assert queue_from_ldap({}, ("Pathname",), dn=dn) == {"Pathname": "qm1\\orders"}
    assert queue_from_ldap({}, ("Pathname",), dn="CN=Orders,CN=msmq") is R.GenericError


def test_pathname_of_a_hashed_name_takes_the_extension() -> None:
    name = "q" * 55 + "#12345678"  # 64 characters: 55 of the name, the 9 of the 2.2.5 hash
    dn = f"CN={name},CN=msmq,CN=QM1,CN=Computers,DC=x"
    read = queue_from_ldap({"mSMQQueueNameExt": ["Tail"]}, ("Pathname",), dn=dn)
    assert read == {"Pathname": "qm1\\" + "q" * 55 + "tail"}


def test_dn_given_apart_from_the_values() -> None:
    assert queue_from_ldap({}, ("DirectoryPath",), dn=QDN) == {"DirectoryPath": "LDAP://" + QDN}


# --- 3.1.6.11.1 QueueManager ------------------------------------------------------------------


def qm_values(**extra: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "objectGUID": [QM.bytes_le],
        "nTSecurityDescriptor": [b"\x01"],
        "whenCreated": ["19700101000000.0Z"],
        "whenChanged": ["19700101000000.0Z"],
        "distinguishedName": [QMDN],
    }
    values.update(extra)
    return {k: v for k, v in values.items() if v is not None}


@pytest.mark.parametrize(
    ("name", "default"),
    [
        ("QueueManagerQuota", 0x00100000),
        ("JournalQuota", 0xFFFFFFFF),
        ("ForeignSystem", 0),
        ("QueueManagerVersion", ""),
        ("OperatingSystemType", 0),
        ("RoutingServer", 0),
        ("DirectoryServer", 0),
        ("SupportingServer", 0),
        ("RemoteAccessServer", 0),
        ("SiteIdentifierList", ()),
        ("PublicEncryptionKeyList", b""),
    ],
)
def test_queue_manager_defaults(name: str, default: Any) -> None:
    assert queue_manager_from_ldap(qm_values(), (name,)) == {name: default}


@pytest.mark.parametrize(
    ("missing", "asked"),
    [
        ("objectGUID", "Identifier"),
        ("nTSecurityDescriptor", "Security"),
        ("whenCreated", "CreateTime"),
        ("whenChanged", "ModifyTime"),
        ("distinguishedName", "ComputerName"),
        ("distinguishedName", "FullPath"),
    ],
)
def test_queue_manager_error_rows(missing: str, asked: str) -> None:
    assert queue_manager_from_ldap(qm_values(**{missing: None}), (asked,)) is R.GenericError


def test_queue_manager_conversions_and_unsupported_attribute() -> None:
    values = qm_values(mSMQQuota=["-2"], mSMQServiceType=["18"], mSMQOSType=["1024"])
    read = queue_manager_from_ldap(
        values,
        ("QueueManagerQuota", "RemoteAccessServer", "OperatingSystemType", "ComputerName"),
    )
    assert read == {
        "QueueManagerQuota": 0xFFFFFFFE,
        "RemoteAccessServer": 1,
        "OperatingSystemType": 0x400,
        "ComputerName": "qm1",
    }
    assert queue_manager_from_ldap(qm_values(mSMQOSType=["7"]), ("OperatingSystemType",)) is (
        R.GenericError
    )
    assert queue_manager_from_ldap(values, ("ConnectedNetworkIdentifierList",)) is R.GenericError
    with pytest.raises(ValueError, match="unknown directory object type"):
        object_from_ldap("Site", values, ())


@pytest.mark.parametrize(
    ("dn", "computer"),
    [
        (QMDN, "qm1"),
        ("CN=msmq,CN=QM2,OU=Servers,DC=corp,DC=test", "QM2"),
        ("CN=msmq,CN=qm3", "qm3"),
    ],
)
def test_computer_name_is_the_rdn_above_msmq(dn: str, computer: str) -> None:
    """3.1.6.11.1.1: ComputerName is the <computer name> of the 2.2.1 DN, the RDN just above
    CN=msmq, as written; what lies above the computer is not read (a real directory may keep
    its computers elsewhere than CN=Computers), so a DN that ends at the computer has one."""
    read = queue_manager_from_ldap(qm_values(distinguishedName=[dn]), ("ComputerName",))
    assert read == {"ComputerName": computer}


def test_a_dn_with_nothing_above_msmq_has_no_computer_name() -> None:
    values = qm_values(distinguishedName=["CN=msmq"])
    assert queue_manager_from_ldap(values, ("ComputerName",)) is R.GenericError


def test_site_identifiers_are_read_as_guids() -> None:
    """3.1.6.11.1: SiteIdentifierList is the GUIDs of mSMQSites, each 16 bytes in [MS-DTYP]
    2.3.4.2 order; a value of another size fails the read (errata D-20)."""
    sites = [uuid.UUID(int=5), GUID]
    read = queue_manager_from_ldap(
        qm_values(mSMQSites=[s.bytes_le for s in sites]), ("SiteIdentifierList",)
    )
    assert isinstance(read, dict) and sorted(read["SiteIdentifierList"]) == sorted(sites)
    for bad in ([GUID.bytes_le, b"\x01" * 15], [GUID.bytes_le + b"\x00"], [GUID.hex]):
        failure = object_from_ldap(
            "QueueManager", qm_values(mSMQSites=bad), ("SiteIdentifierList",)
        )
        assert isinstance(failure, LdapReadFailure) and "mSMQSites" in failure.reason


def test_queue_manager_dn_given_apart_from_the_values() -> None:
    read = queue_manager_from_ldap({}, ("FullPath", "ComputerName"), dn=QMDN)
    assert read == {"FullPath": QMDN, "ComputerName": "qm1"}


# --- GUID filters (3.1.6.19, errata) ----------------------------------------------------------


def test_guid_forms() -> None:
    assert compact_guid(GUID) == "6F9619FF8B86D011B42D00C04FC964FF"
    assert escaped_guid(GUID).startswith("\\ff\\19\\96\\6f\\86\\8b\\11\\d0")
    assert guid_filter(GUID) == "(objectGuid=6F9619FF8B86D011B42D00C04FC964FF)"
    with pytest.raises(ValueError, match="unknown GUID filter form"):
        guid_filter(GUID, "braced")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(objectGuid=6F9619FF8B86D011B42D00C04FC964FF)", [(GUID, "compact")]),
        ("(OBJECTGUID=6f9619ff8b86d011b42d00c04fc964ff)", [(GUID, "compact")]),
        (guid_filter(GUID, "escaped"), [(GUID, "escaped")]),
        # as slapd prints an escaped value: printable octets as themselves
        (r"(objectGUID=\FF\19\96o\86\8B\11\D0\B4-\00\C0O\C9d\FF)", [(GUID, "escaped")]),
        (f"(&(objectClass=*)(objectGUID={GUID.hex}))", [(GUID, "compact")]),
        (
            f"(|(objectGUID={QM.hex})(!(objectGUID={escaped_guid(GUID)})))",
            [(QM, "compact"), (GUID, "escaped")],
        ),
        ("(cn=orders)", []),
        ("(objectGUID=*)", []),
        ("(objectGUID=6F96*)", []),
        ("(objectSid=6F9619FF8B86D011B42D00C04FC964FF)", []),
        ("(objectGUID>=6F9619FF8B86D011B42D00C04FC964FF)", []),
        ("(objectGUID=6F9619FF)", []),
    ],
)
def test_guids_named(text: str, expected: list[tuple[uuid.UUID, str]]) -> None:
    assert guids_named(text) == expected


@given(st.uuids(), st.sampled_from(["compact", "escaped"]))
def test_guid_filter_names_its_guid(guid: uuid.UUID, form: str) -> None:
    assert guids_named(guid_filter(guid, form)) == [(guid, form)]


def test_guid_dns() -> None:
    assert guid_of_dn(f"<GUID={GUID}>") == GUID
    assert guid_of_dn(f"<guid={GUID.bytes_le.hex()}>") == GUID  # the binary-order hex form
    assert guid_of_dn("<GUID=nonsense>") is None
    assert guid_of_dn(QDN) is None


# --- round trip: encode -> decode is the published view ----------------------------------------

_u32 = st.integers(min_value=0, max_value=0xFFFFFFFF)
_time = st.integers(min_value=-(2**31), max_value=2**31 - 1)
_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
_name = st.text(
    st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_characters="\\"),
    min_size=1,
    max_size=63,
)
_computer = st.text(
    st.characters(min_codepoint=48, max_codepoint=122, exclude_characters="\\.:;<=>?@[]^_`"),
    min_size=1,
    max_size=15,
)


@st.composite
def queues(draw: st.DrawFn) -> Queue:
    return Queue(
        Identifier=draw(st.uuids()),
        Type=draw(st.uuids()),
        BasePriority=draw(st.integers(min_value=-(2**31), max_value=2**31 - 1)),
        Journaling=draw(st.sampled_from([0, 1])),
        Quota=draw(_u32),
        JournalQuota=draw(_u32),
        CreateTime=draw(_time),
        ModifyTime=draw(_time),
        Security=draw(st.binary(max_size=24)),
        Pathname=draw(_computer) + "\\" + draw(_name),
        Label=draw(_text),
        Authentication=draw(st.sampled_from([0, 1])),
        PrivacyLevel=draw(st.sampled_from([0, 1, 2])),
        Transactional=draw(st.sampled_from([0, 1])),
        MulticastAddress=draw(_text),
    )


@st.composite
def queue_managers(draw: st.DrawFn) -> QueueManager:
    return QueueManager(
        Identifier=draw(st.uuids()),
        ForeignSystem=draw(st.sampled_from([0, 1])),
        QueueManagerQuota=draw(_u32),
        JournalQuota=draw(_u32),
        Security=draw(st.binary(max_size=24)),
        QueueManagerVersion=draw(_text),
        OperatingSystemType=draw(st.sampled_from(MSMQ_OS_VALUES)),
    )


@given(queues(), queue_managers(), _computer)
def test_encode_then_decode_is_the_published_view(q: Queue, qm: QueueManager, host: str) -> None:
    if q.Identifier == qm.Identifier:
        return
    view = published_view([(q, None)], [(qm, host)])
    got = view["queues"][str(q.Identifier)]
    if not q.Security:
        assert got == "GenericError"  # no Security: a read error (3.1.6.11.2)
    else:
        expected = q.to_json()
        expected["Pathname"] = q.Pathname.lower()
        expected["DirectoryPath"] = "LDAP://" + pretty_dn(queue_dn(q.Pathname))
        del expected["Scope"]
        assert got == expected
    qm_got = view["queue_managers"][str(qm.Identifier)]
    if not qm.Security:
        assert qm_got == "GenericError"
    else:
        assert qm_got == {
            k: v
            for k, v in qm.attributes_json().items()
            if k in ("Identifier", *V2_QM_READ_ATTRIBUTES)
        }


@given(queues())
def test_published_view_is_a_fixed_point(q: Queue) -> None:
    """Writing what was read back and reading it again changes nothing (idempotence); the
    DirectoryPath of the lowercase Pathname is the same DN in another case."""
    view = published_view([(q, None)], [])["queues"][str(q.Identifier)]
    if isinstance(view, str):
        return
    again = Queue.from_json({k: v for k, v in view.items() if k != "DirectoryPath"})
    second = published_view([(again, None)], [])["queues"][str(q.Identifier)]
    assert normal_dn(second.pop("DirectoryPath")[7:]) == normal_dn(view.pop("DirectoryPath")[7:])
    assert second == view


@given(queues())
def test_every_queue_entry_reads_back_with_all_attributes(q: Queue) -> None:
    entry = next(e for e in directory_entries([(q, None)], []) if "objectGUID" in e.attributes)
    read = object_from_ldap("Queue", entry_values(entry), ALL_QUEUE)
    assert isinstance(read, dict) or read.reason.startswith("nTSecurityDescriptor")


_FILTER_TEXT = st.text(
    st.sampled_from(list("()=\\*&|!objectGUID0123456789abcdefABCDEF<>~: ,cnCN\ud800é")),
    max_size=60,
)


@given(_FILTER_TEXT)
def test_any_filter_text_names_guids_without_raising(text: str) -> None:
    """A filter as a server printed it is judged whatever it holds (a lone surrogate too)."""
    found = guids_named(text)
    assert all(form in ("compact", "escaped") for _, form in found)
    assert guids_named(f"(objectGUID={text})") is not None


def test_a_lone_surrogate_in_a_filter_names_nothing() -> None:
    assert guids_named("(objectGUID=\ud800)") == []


# --- what a refused directory says (the one line a scenario's author reads) --------------------

_OTHER = uuid.UUID(int=3)


@pytest.mark.parametrize(
    ("queues", "queue_managers", "said"),
    [
        (
            [(queue(), None)],
            [(QueueManager(GUID), "qm9")],
            f"queue {GUID}: Identifier (objectGUID) = '{GUID}' cannot be written: "
            f"queue manager {GUID} has it too",
        ),
        (
            [(queue(), None), (queue(Identifier=_OTHER, Pathname="QM1\\Orders"), None)],
            [],
            f"queue {_OTHER}: Pathname (distinguishedName) = 'QM1\\\\Orders' cannot be "
            f"written: queue {GUID} has it",
        ),
        (
            [],
            [(QueueManager(QM), "qm1"), (QueueManager(GUID), "QM1")],
            f"queue manager {GUID}: (computer) (cn) = 'QM1' cannot be written: "
            "has two queue managers",
        ),
        (
            [],
            [(QueueManager(QM), "")],
            f"queue manager {QM}: (computer) (cn) = '' cannot be written: no usable computer name",
        ),
        (
            [],
            [(QueueManager(QM), "c" * 65)],
            f"queue manager {QM}: (computer) (cn) = '{'c' * 65}' cannot be written: "
            "no usable computer name",
        ),
        (
            [(queue(), "qm2.example.com")],
            [],
            f"queue {GUID}: Pathname (distinguishedName) = 'qm1\\\\orders' cannot be written: "
            "its owner is on computer 'qm2.example.com', the Pathname names 'qm1'",
        ),
    ],
    ids=["guid-twice", "dn-twice", "two-qms", "no-computer", "long-computer", "owner"],
)
def test_a_refused_directory_says_which_object_which_attribute_and_why(
    queues: list, queue_managers: list, said: str
) -> None:
    with pytest.raises(DirectoryValueError) as info:
        directory_entries(queues, queue_managers)
    assert str(info.value) == said


def test_a_computer_name_of_the_longest_cn_is_usable() -> None:
    assert directory_entries([], [(QueueManager(QM), "c" * 64)])
    assert directory_entries([], [(QueueManager(QM), "c" * 64 + ".example.com")])


_WRONG = object()  # a value of no ADM type: every writer refuses it
_QUEUE_WRITTEN = (
    "Identifier",
    "Type",
    "CreateTime",
    "ModifyTime",
    "Journaling",
    "Quota",
    "JournalQuota",
    "Authentication",
    "Transactional",
    "BasePriority",
    "PrivacyLevel",
    "Label",
    "MulticastAddress",
    "Security",
)
_QM_WRITTEN = (
    "Identifier",
    "QueueManagerQuota",
    "JournalQuota",
    "ForeignSystem",
    "OperatingSystemType",
    "QueueManagerVersion",
    "Security",
)


# why a value of no ADM type is refused, by the LDAP syntax its attribute has
_WHY = {
    "Identifier": "not a GUID",
    "Type": "not a GUID",
    "CreateTime": "not an integer",
    "ModifyTime": "not an integer",
    "Journaling": "a Boolean is 0 or 1",
    "Authentication": "a Boolean is 0 or 1",
    "Transactional": "a Boolean is 0 or 1",
    "ForeignSystem": "a Boolean is 0 or 1",
    "Quota": "not an unsigned 32-bit integer",
    "JournalQuota": "not an unsigned 32-bit integer",
    "QueueManagerQuota": "not an unsigned 32-bit integer",
    "BasePriority": "not an integer",
    "PrivacyLevel": "not 0, 1 or 2",
    "OperatingSystemType": "not a value of the 3.1.6.11.1.2 table",
    "Label": "not a string",
    "MulticastAddress": "not a string",
    "QueueManagerVersion": "not a string",
    "Security": "not bytes",
}


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("BasePriority", -(2**31) - 1, "outside AD's 32-bit Integer"),
        ("BasePriority", 2**31, "outside AD's 32-bit Integer"),
        ("Label", "a\ud800", "a lone surrogate has no UTF-8 form (String(Unicode))"),
        ("CreateTime", 10**12, "outside GeneralizedTime's years 0001-9999"),
        ("Quota", -1, "not an unsigned 32-bit integer"),
        ("Journaling", 2, "a Boolean is 0 or 1"),
    ],
)
def test_a_value_outside_its_ldap_syntax_is_refused_saying_why(
    name: str, value: object, why: str
) -> None:
    bad = dataclasses.replace(queue(), **{name: value})
    with pytest.raises(DirectoryValueError) as info:
        queue_attributes(bad, queue_dn(bad.Pathname))
    assert (info.value.adm, info.value.why) == (name, why)


def test_the_ends_of_ldap_syntaxes_are_written() -> None:
    for value in (-(2**31), 2**31 - 1):
        attributes = queue_attributes(queue(BasePriority=value), queue_dn(queue().Pathname))
        assert attributes["mSMQBasePriority"] == [str(value)]


def test_every_entry_lies_under_the_root_it_is_given() -> None:
    root = "DC=other,DC=test"
    entries = directory_entries([(queue(), None)], [(QueueManager(QM), "qm1")], root)
    assert all(e.dn == root or e.dn.endswith("," + root) for e in entries), [e.dn for e in entries]
    assert f"CN=msmq,CN=qm1,CN=Computers,{root}" in [e.dn for e in entries]


@pytest.mark.parametrize("name", _QUEUE_WRITTEN)
def test_a_queue_value_with_no_ldap_form_names_its_adm_and_ldap_attribute(name: str) -> None:
    """The refusal names the object, the ADM attribute and the LDAP attribute the
    3.1.6.10.2 table pairs it with (QUEUE_LDAP_ATTRIBUTES), the value, and why."""
    bad = dataclasses.replace(queue(), **{name: _WRONG})
    with pytest.raises(DirectoryValueError) as info:
        queue_attributes(bad, queue_dn(bad.Pathname))
    error = info.value
    subject = f"queue {_WRONG if name == 'Identifier' else GUID}"
    assert (error.subject, error.adm, error.ldap, error.value) == (
        subject,
        name,
        QUEUE_LDAP_ATTRIBUTES[name][0],
        _WRONG,
    )
    assert (
        str(error)
        == f"{subject}: {name} ({error.ldap}) = {_WRONG!r} cannot be written: {error.why}"
    )
    assert error.why == _WHY[name]


@pytest.mark.parametrize("name", _QM_WRITTEN)
def test_a_queue_manager_value_with_no_ldap_form_names_its_adm_and_ldap_attribute(
    name: str,
) -> None:
    bad = dataclasses.replace(QueueManager(QM), **{name: _WRONG})
    with pytest.raises(DirectoryValueError) as info:
        queue_manager_attributes(bad, "qm1")
    error = info.value
    subject = f"queue manager {_WRONG if name == 'Identifier' else QM}"
    assert (error.subject, error.adm, error.ldap, error.value) == (
        subject,
        name,
        QUEUE_MANAGER_LDAP_ATTRIBUTES[name][0],
        _WRONG,
    )
    assert error.why == _WHY[name]


def test_connected_networks_are_refused_as_active_directory_does_not_store_them() -> None:
    network = uuid.UUID(int=9)
    bad = QueueManager(QM, ConnectedNetworkIdentifierList=[network])
    with pytest.raises(DirectoryValueError) as info:
        queue_manager_attributes(bad, "qm1")
    assert str(info.value) == (
        f"queue manager {QM}: ConnectedNetworkIdentifierList ((none)) = ['{network}'] cannot be "
        "written: not stored in an Active Directory environment (MS-MQDSSM 3.1.6.20.1)"
    )
    with pytest.raises(DirectoryValueError) as info:
        queue_manager_attributes(QueueManager(QM, OperatingSystemType=0x7777), "qm1")
    assert str(info.value) == (
        f"queue manager {QM}: OperatingSystemType (mSMQOSType) = 30583 cannot be written: "
        "not a value of the 3.1.6.11.1.2 table"
    )


@pytest.mark.parametrize(
    ("attribute", "value", "asked", "reason"),
    [
        (
            "objectGUID",
            None,
            "Identifier",
            "objectGUID is not set (an error in the 3.1.6.11 table)",
        ),
        ("objectGUID", [b"\x01" * 15], "Identifier", "objectGUID has 15 bytes, not 16"),
        (
            "nTSecurityDescriptor",
            None,
            "Security",
            "nTSecurityDescriptor is not set (an error in the 3.1.6.11 table)",
        ),
        (
            "whenCreated",
            None,
            "CreateTime",
            "whenCreated is not set (an error in the 3.1.6.11 table)",
        ),
        (
            "whenChanged",
            None,
            "ModifyTime",
            "whenChanged is not set (an error in the 3.1.6.11 table)",
        ),
        (
            "distinguishedName",
            ["DC=x"],
            "ComputerName",
            "distinguishedName 'DC=x' is not a queue manager's (2.2.1)",
        ),
        (
            "mSMQOSType",
            ["7"],
            "OperatingSystemType",
            "mSMQOSType = 0x7 is not in the 3.1.6.11.1.2 table",
        ),
        (
            "mSMQSites",
            [b"\x01" * 15],
            "SiteIdentifierList",
            "mSMQSites holds a value that is not 16 bytes",
        ),
    ],
)
def test_a_queue_manager_that_cannot_be_read_says_which_attribute_and_why(
    attribute: str, value: Any, asked: str, reason: str
) -> None:
    failure = object_from_ldap("QueueManager", qm_values(**{attribute: value}), (asked,))
    assert isinstance(failure, LdapReadFailure)
    assert (failure.result, failure.reason) == (R.GenericError, reason)


def test_a_queue_managers_present_values_are_read() -> None:
    values = qm_values(
        mSMQComputerTypeEx=["Windows"],
        mSMQEncryptKey=[b"k"],
        mSMQForeign=["TRUE"],
        mSMQRoutingServices=["TRUE"],
        mSMQSites=[b"\x02" * 16],
        whenCreated=["20240102030405.0Z"],
        whenChanged=["20240102030406.0Z"],
        mSMQServiceType=["16"],
    )
    read = queue_manager_from_ldap(
        values,
        (
            "QueueManagerVersion",
            "PublicEncryptionKeyList",
            "ForeignSystem",
            "RoutingServer",
            "SiteIdentifierList",
            "CreateTime",
            "ModifyTime",
            "RemoteAccessServer",
            "Identifier",
            "Security",
        ),
    )
    assert read == {
        "QueueManagerVersion": "Windows",
        "PublicEncryptionKeyList": b"k",
        "ForeignSystem": 1,
        "RoutingServer": 1,
        "SiteIdentifierList": (uuid.UUID(bytes_le=b"\x02" * 16),),
        "CreateTime": epoch_seconds("20240102030405.0Z"),
        "ModifyTime": epoch_seconds("20240102030406.0Z"),
        "RemoteAccessServer": 1,
        "Identifier": QM,
        "Security": b"\x01",
    }


def test_a_directory_holds_exactly_these_entries() -> None:
    """The whole published tree of one queue manager (its computer qm1.example.com) and one
    queue on another computer with no queue manager (qm2): the domain and its three
    containers, each computer (cn, dNSHostName when dotted, distinguishedName), its msmq
    object (the queue manager's configuration, or a plain container), the queue."""
    root = "DC=other,DC=test"
    other = queue(Pathname="qm2\\orders")
    entries = directory_entries([(other, None)], [(QueueManager(QM), "qm1.example.com")], root)
    by_dn = {e.dn: e.attributes for e in entries}
    assert by_dn[root] == {"objectClass": list(DOMAIN_CLASSES), "dc": ["other"], "o": ["other"]}
    for name, dn in (
        ("Configuration", f"CN=Configuration,{root}"),
        ("Computers", f"CN=Computers,{root}"),
        ("Users", f"CN=Users,{root}"),
    ):
        assert by_dn[dn] == {"objectClass": list(CONTAINER_CLASSES), "cn": [name]}
    qm1 = f"CN=qm1,CN=Computers,{root}"
    assert by_dn[qm1] == {
        "objectClass": list(COMPUTER_CLASSES),
        "cn": ["qm1"],
        "dNSHostName": ["qm1.example.com"],
        "distinguishedName": [qm1],
    }
    assert by_dn[f"CN=msmq,{qm1}"]["objectGUID"] == [QM.bytes_le]  # the configuration
    qm2 = f"CN=qm2,CN=Computers,{root}"
    assert by_dn[qm2] == {
        "objectClass": list(COMPUTER_CLASSES),
        "cn": ["qm2"],
        "distinguishedName": [qm2],
    }
    assert by_dn[f"CN=msmq,{qm2}"] == {"objectClass": list(CONTAINER_CLASSES), "cn": ["msmq"]}
    assert by_dn[f"CN=orders,CN=msmq,{qm2}"]["objectGUID"] == [GUID.bytes_le]


# --- names and times, exactly (the whole-file mutation run, issue 34) ----------------------------


@pytest.mark.parametrize(
    ("pathname", "why"),
    [
        ("orders", "a public queue's Pathname is 'computer\\queuename' (MS-MQMQ 2.1.1)"),
        (
            "qm1\\private$\\q",
            "the queue name holds a backslash (a private queue is not in the directory)",
        ),
        (
            "qm1\\" + "q" * 64,
            "the queue name has 64 characters; names over 63 take the "
            "MS-MQDSSM 2.2.5 hash, which the fixture does not support",
        ),
        ("c" * 65 + "\\q", "the computer name is longer than 64 characters (cn's range)"),
    ],
)
def test_a_pathname_with_no_directory_layout_says_why(pathname: str, why: str) -> None:
    with pytest.raises(DirectoryValueError) as info:
        pathname_parts(pathname)
    assert str(info.value) == (
        f"queue: Pathname (distinguishedName) = {pathname!r} cannot be written: {why}"
    )
    assert pathname_parts("c" * 64 + "\\q") == ("c" * 64, "q")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("2024010203Z", 1704164400),  # 2024-01-02 03:00:00 UTC: minutes and seconds left out
        ("202401020304Z", 1704164640),
        ("20240102030460Z", 1704164699),  # a leap second is read as :59
        ("20240102030405+0130", 1704159245),  # 01:34:05 UTC
        ("20240102030405-05", 1704182645),  # 08:04:05 UTC
    ],
)
def test_generalized_times_in_every_form_are_read(text: str, seconds: int) -> None:
    assert epoch_seconds(text) == seconds


def test_a_guid_base_is_read_in_either_form_and_any_case() -> None:
    compact = "6F9619FF8B86D011B42D00C04FC964FF"
    as_stored = uuid.UUID(bytes_le=bytes.fromhex(compact))  # objectGUID's bytes, in order
    assert guid_of_dn(f"<GUID={compact}>") == guid_of_dn(f"<GUID={{{compact}}}>") == as_stored
    assert guid_of_dn(f"<guid={compact.lower()}>") == as_stored
    assert guid_of_dn(f" <GUID={GUID}> ") == GUID
    assert guid_of_dn("CN=x,DC=y") is None


def test_names_compare_and_print_as_ldap_says() -> None:
    assert same_dn("CN=A,DC=x", "cn=a, dc=X") and not same_dn("CN=A,DC=x", "CN=B,DC=x")
    assert target_bind_dn("DC=other,DC=test") == "CN=mqcn-target,CN=Users,DC=other,DC=test"
    assert pretty_dn("CN=\\ a\\ ,DC=x") == "cn=\\20a\\20,dc=x"
    assert pretty_dn("CN=\\#a#,DC=x") == "cn=\\23a#,dc=x"
    assert split_dn("CN=a\\ff,DC=x") == [("CN", "a\ufffd"), ("DC", "x")]
    assert split_dn("CN=ab\\2cc,DC=x") == [("CN", "ab,c"), ("DC", "x")]


def test_what_a_queue_manager_read_says_and_which_dn_it_takes() -> None:
    unsupported = object_from_ldap("QueueManager", qm_values(), ("ConnectedNetworkIdentifierList",))
    assert isinstance(unsupported, LdapReadFailure)
    assert (
        unsupported.reason == "ConnectedNetworkIdentifierList is not supported in AD (3.1.6.3.2.1)"
    )
    nameless = object_from_ldap("QueueManager", qm_values(distinguishedName=None), ("FullPath",))
    assert isinstance(nameless, LdapReadFailure)
    assert nameless.reason == "no distinguishedName (the entry's DN)"
    given = "CN=msmq,CN=qm7,DC=x"
    assert object_from_ldap(
        "QueueManager", qm_values(distinguishedName=None), ("FullPath",), dn=given
    ) == {"FullPath": given}  # the entry's DN when the values hold none
    assert object_from_ldap("QueueManager", qm_values(), ("FullPath",), dn=given) == {
        "FullPath": QMDN
    }  # the distinguishedName value when there is one
    read = object_from_ldap(
        "QueueManager",
        qm_values(mSMQForeign=["0"], mSMQServiceType=["1"]),
        ("ForeignSystem", "RemoteAccessServer"),
    )
    assert read == {"ForeignSystem": 0, "RemoteAccessServer": 0}  # only bit 0x10 is RAS


# --- whole-file mutation (issue 34): the corners each survivor showed ----------------------------


@pytest.mark.parametrize("value", ["X", "Xa X", "a#b", "x y", "XX"])
def test_characters_rfc_4514_does_not_name_are_never_escaped(value: str) -> None:
    """RFC 4514 2.4: only ``,+"\\<>;=``, a leading ``#`` or space and a trailing space are
    escaped; every other character stays as it is, in both forms."""
    assert escape_rdn_value(value) == value
    assert pretty_dn(f"CN={value},DC=x") == f"cn={value},dc=x"


@pytest.mark.parametrize(
    ("dn", "rdns"),
    [
        ("CN=a\\,", [("CN", "a,")]),  # an escape as the DN's last pair
        ("CN=a\\", [("CN", "a\\")]),  # a backslash with nothing after it is itself
        ("CN=a\\\\", [("CN", "a\\")]),
    ],
)
def test_an_escape_at_the_end_of_a_dn(dn: str, rdns: list[tuple[str, str]]) -> None:
    assert split_dn(dn) == rdns


@pytest.mark.parametrize(
    ("dn", "words"),
    [("CN=a,bc", "'bc' has no '='"), ("CN=a,", "'' has no '='"), ("CN=a,,DC=x", "'' has no")],
)
def test_a_dn_with_an_rdn_without_a_type_is_refused_naming_it(dn: str, words: str) -> None:
    """An RDN is ``type=value``; a trailing or empty RDN is no DN, and the error names it."""
    with pytest.raises(ValueError, match=re.escape(words)):
        split_dn(dn)


def test_normal_dn_joins_the_rdns_with_commas() -> None:
    assert normal_dn("CN=A, DC=X") == "cn=a,dc=x"


def test_dns_that_cannot_be_read_are_the_same_only_when_equal() -> None:
    assert same_dn("not a dn", "not a dn")
    assert not same_dn("not a dn", "also not a dn")
    assert not same_dn("CN=a", "not a dn")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("197001011030+1030", 0), ("197001010000-1030", 37800), ("1970010112+12", 0)],
)
def test_a_generalized_time_zone_of_two_digit_hours(text: str, seconds: int) -> None:
    """RFC 4517 3.3.13: the differential is ``+HH`` or ``+HHMM``; hours of two digits."""
    assert epoch_seconds(text) == seconds


def test_a_queue_read_names_what_is_missing() -> None:
    """3.1.6.11.2: a Read Directory that fails says which attribute was not set, and a DN
    that is not a queue's says so (the words a vendor reads in the report)."""
    for asked, ldap in (("Identifier", "objectGUID"), ("CreateTime", "whenCreated")):
        failed = object_from_ldap("Queue", {}, (asked,), dn=QDN)
        assert isinstance(failed, LdapReadFailure)
        assert failed.reason.startswith(f"{ldap} is not set"), failed.reason
    failed = object_from_ldap("Queue", {}, ("ModifyTime",), dn=QDN)
    assert isinstance(failed, LdapReadFailure) and failed.reason.startswith("whenChanged is")
    failed = object_from_ldap("Queue", {}, ("Pathname",), dn="CN=Orders,CN=msmq")
    assert isinstance(failed, LdapReadFailure)
    assert failed.reason == "distinguishedName 'CN=Orders,CN=msmq' is not a queue's (2.2.1)"


def test_pathname_of_a_hashed_name_without_its_extension() -> None:
    """2.2.5 / 3.1.6.11.2.1: a 64-character CN is the name's first 55 characters and a hash;
    without mSMQQueueNameExt the Pathname is those 55 characters alone."""
    name = "q" * 55 + "#12345678"
    dn = f"CN={name},CN=msmq,CN=QM1,CN=Computers,DC=x"
    assert queue_from_ldap({}, ("Pathname",), dn=dn) == {"Pathname": "qm1\\" + "q" * 55}


def test_pathname_drops_backslashes_of_the_queue_cn() -> None:
    """3.1.6.11.2.1: the queue name of the Pathname is the CN without its backslashes."""
    dn = "CN=a\\5Cb\\\\c,CN=msmq,CN=QM1,CN=Computers,DC=x"
    assert queue_from_ldap({}, ("Pathname",), dn=dn) == {"Pathname": "qm1\\abc"}


def test_an_objectguid_assertion_holding_a_wildcard_names_no_guid() -> None:
    """A substring assertion (``*``) names no object, even with 16 octets besides."""
    value = "".join(f"\\{n:02x}" for n in range(15)) + "*"
    assert guids_named(f"(objectGUID={value})") == []


def test_an_objectguid_assertion_of_plain_characters_is_its_octets() -> None:
    """A server prints octets that are printable as themselves: 16 plain characters are
    16 octets, read as is (hex digits in them are not escapes without a backslash)."""
    octets = b"0123456789abcdef"
    assert guids_named("(objectGUID=0123456789abcdef)") == [(uuid.UUID(bytes_le=octets), "escaped")]


def test_a_guid_dn_with_anything_around_the_guid_is_no_guid_dn() -> None:
    assert guid_of_dn(f"<GUID={GUID}>") == GUID
    assert guid_of_dn(f"<GUID={{{GUID}}}>") == GUID
    assert guid_of_dn(f"<GUID=X{GUID}X>") is None


def test_an_entry_without_object_class_is_no_directory_object() -> None:
    entry = LdapEntry(QDN, {"objectGUID": [GUID.bytes_le]})
    assert directory_objects([entry]) == []
