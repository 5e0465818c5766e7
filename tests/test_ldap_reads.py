"""The read judge's input (mqcn_model/ldap_reads.py): hand-made runs of LDAP searches, one test
per rule of how searches fold into Read Directory events."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqcn_model.constants import V2_QM_READ_ATTRIBUTES, V2_QUEUE_READ_ATTRIBUTES
from mqcn_model.dssm import escaped_guid, guid_filter, ldap_attributes_for
from mqcn_model.ldap_reads import asks_all, names_asked, reads_from_searches
from mqcn_model.ldap_records import LdapSearch

Q = uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff")
QM = uuid.UUID("11111111-2222-3333-4444-555555555555")
UNKNOWN = uuid.UUID(int=99)
QDN = "CN=orders,CN=msmq,CN=qm1,CN=Computers,DC=mqcn,DC=example"
QMDN = "CN=msmq,CN=qm1,CN=Computers,DC=mqcn,DC=example"
OBJECTS = [(QDN, Q, "Queue"), (QMDN, QM, "QueueManager")]
DEFAULT = "127.0.0.1:3890"
DC1 = "127.0.0.1:3891"
SERVERS = {DEFAULT: "", DC1: "dc1.example.com"}
TARGET = "CN=mqcn-target,CN=Users,DC=mqcn,DC=example"
SUITE = "CN=mqcn-suite,DC=mqcn,DC=example"


def search(
    filter_: str,
    *,
    base: str = "",
    scope: int = 2,
    attributes: tuple[str, ...] = (),
    result: int | None = 0,
    entries: int | None = 1,
    connection: int = 1,
    operation: int = 1,
    listener: str = DEFAULT,
    bind_dn: str = TARGET,
) -> LdapSearch:
    return LdapSearch(
        connection, operation, listener, bind_dn, base, scope, filter_, attributes, result, entries
    )


def find(guid: uuid.UUID, form: str = "compact", **kw: Any) -> LdapSearch:
    """Find Object By GUID (3.1.6.19): subtree from "", asking for distinguishedName."""
    kw.setdefault("attributes", ("distinguishedName",))
    return search(guid_filter(guid, form), **kw)


def properties(dn: str, **kw: Any) -> LdapSearch:
    """Get Object Properties (3.1.6.14): base scope at the DN, all attributes."""
    return search("(objectClass=*)", base=dn, scope=0, **kw)


def reads(searches: list[LdapSearch], ignore: set[str] | None = None) -> list[dict[str, Any]]:
    return reads_from_searches(searches, OBJECTS, SERVERS, {SUITE} if ignore is None else ignore)


def test_the_letter_find_then_properties_is_one_read_of_every_attribute() -> None:
    [read] = reads([find(Q, operation=1), properties(QDN, operation=2)])
    assert read["object_type"] == "Queue" and read["identifier"] == str(Q)
    assert read["attributes"] == list(V2_QUEUE_READ_ATTRIBUTES)
    assert read["ldap_attributes"] == ["*"]
    assert read["status"] == "Success" and read["source"] == "ldap" and read["server"] == ""
    assert [s["scope"] for s in read["searches"]] == [2, 0]
    assert read["searches"][0]["attributes"] == ["distinguishedName"]


@pytest.mark.parametrize("form", ["compact", "escaped"])
def test_either_guid_form_names_the_object(form: str) -> None:
    [read] = reads([find(QM, form)])
    assert (read["object_type"], read["identifier"]) == ("QueueManager", str(QM))


def test_a_filter_as_slapd_prints_escaped_octets_names_the_object() -> None:
    printed = r"(objectGUID=\FF\19\96o\86\8B\11\D0\B4-\00\C0O\C9d\FF)"
    assert reads([search(printed)])[0]["identifier"] == str(Q)


def test_a_guid_nested_in_an_and_names_the_object() -> None:
    text = f"(&(objectClass=mSMQQueue)(objectGUID={escaped_guid(Q)}))"
    assert reads([search(text)])[0]["identifier"] == str(Q)


def test_a_base_search_at_the_dn_is_a_read_whatever_the_case_and_spaces() -> None:
    dn = "cn=ORDERS, cn=msmq, CN=QM1, cn=computers, dc=MQCN, dc=example"
    [read] = reads([properties(dn, attributes=ldap_attributes_for("Queue", ("Label",)))])
    assert read["identifier"] == str(Q) and read["attributes"] == ["Label"]


@pytest.mark.parametrize("form", [str(QM), QM.bytes_le.hex()])
def test_a_base_search_at_a_guid_dn_is_a_read(form: str) -> None:
    [read] = reads([properties(f"<GUID={form}>")])
    assert read["object_type"] == "QueueManager" and read["identifier"] == str(QM)


def test_attributes_are_the_names_whose_ldap_attributes_were_all_asked() -> None:
    asked = ldap_attributes_for("QueueManager", V2_QM_READ_ATTRIBUTES)
    [read] = reads([find(QM, attributes=asked)])
    assert read["attributes"] == list(V2_QM_READ_ATTRIBUTES)
    assert read["ldap_attributes"] == list(asked)
    # Pathname needs distinguishedName and mSMQQueueNameExt: one of them is not enough
    [read] = reads([find(Q, attributes=("distinguishedName",))])
    assert read["attributes"] == ["DirectoryPath"]
    [read] = reads([find(Q, attributes=("DISTINGUISHEDNAME", "msmqqueuenameext"))])
    assert read["attributes"] == ["Pathname", "DirectoryPath"]


@pytest.mark.parametrize("attributes", [(), ("*",), ("*", "nTSecurityDescriptor")])
def test_all_attributes_asked(attributes: tuple[str, ...]) -> None:
    assert asks_all(attributes)
    [read] = reads([find(QM, attributes=attributes)])
    assert read["attributes"] == list(V2_QM_READ_ATTRIBUTES) and read["ldap_attributes"] == ["*"]


def test_operational_only_or_no_attributes_is_not_all() -> None:
    assert not asks_all(("+",)) and not asks_all(("1.1",))
    assert names_asked("Queue", ("1.1",)) == []


def test_an_unknown_guid_is_a_read_of_that_guid_with_no_type() -> None:
    [read] = reads([find(UNKNOWN, entries=0)])
    assert read["identifier"] == str(UNKNOWN) and read["object_type"] is None
    assert read["status"] == "ObjectNotFound"


def test_a_read_of_no_known_type_lists_names_of_either_list() -> None:
    assert names_asked(None, ("mSMQQuota",)) == ["QueueManagerQuota"]
    every = names_asked(None, ())
    assert every[: len(V2_QUEUE_READ_ATTRIBUTES)] == list(V2_QUEUE_READ_ATTRIBUTES)
    assert "QueueManagerQuota" in every and len(every) == len(set(every))


def test_a_search_naming_no_object_is_a_read_of_no_identifier_with_its_filter() -> None:
    [read] = reads([search("(cn=orders)", entries=1)])
    assert read["identifier"] is None and read["object_type"] is None
    assert read["filter"] == "(cn=orders)" and read["status"] == "Success"


def test_a_filter_on_the_wrong_attribute_names_no_object() -> None:
    [read] = reads([search(f"(objectSid={Q.hex})", entries=0)])
    assert read["identifier"] is None and read["status"] == "ObjectNotFound"


def test_a_base_search_at_a_dn_of_no_object_names_no_object() -> None:
    [read] = reads([properties("CN=qm1,CN=Computers,DC=mqcn,DC=example")])
    assert read["identifier"] is None
    assert read["searches"][0]["base"] == "CN=qm1,CN=Computers,DC=mqcn,DC=example"


def test_root_dse_subschema_and_the_suites_own_searches_are_not_reads() -> None:
    assert not reads(
        [
            properties("", attributes=("configurationNamingContext",)),
            properties("cn=Subschema", attributes=("objectClasses",)),
            find(Q, bind_dn="cn=MQCN-SUITE, dc=mqcn,dc=example"),
        ]
    )


def test_the_suites_searches_count_when_not_ignored() -> None:
    assert len(reads([find(Q, bind_dn=SUITE)], ignore=set())) == 1


def test_a_subtree_search_from_the_empty_base_is_a_read() -> None:
    assert len(reads([search("(objectClass=*)", base="", scope=2)])) == 1


def test_two_reads_of_one_object_on_a_cached_connection_are_two_reads() -> None:
    run = [find(Q), properties(QDN), find(Q), properties(QDN)]
    assert [len(r["searches"]) for r in reads(run)] == [2, 2]


def test_two_finds_of_one_object_on_one_connection_are_two_reads() -> None:
    """Only a base-scope search at the object found is the Get Object Properties (3.1.6.14)
    that ends a find; a second search by GUID, even of the same object on the same
    connection, is another Read Directory."""
    assert [len(r["searches"]) for r in reads([find(Q), find(Q)])] == [1, 1]
    run = [find(Q, "escaped", attributes=()), find(Q, "escaped", attributes=())]
    assert [len(r["searches"]) for r in reads(run)] == [1, 1]


@pytest.mark.parametrize(
    "filter_", ["(objectClass=*)", guid_filter(Q), guid_filter(Q, "escaped"), "(cn=orders)"]
)
def test_a_properties_search_ends_the_find_whatever_its_filter(filter_: str) -> None:
    """3.1.6.14 filters on (objectClass=*); a client that repeats the GUID (or any filter) in
    its base-scope search at the DN found still makes one read of every attribute, which the
    judge must not split into a find that asked for distinguishedName alone."""
    [read] = reads([find(Q), search(filter_, base=QDN, scope=0)])
    assert read["identifier"] == str(Q) and len(read["searches"]) == 2
    assert read["attributes"] == list(V2_QUEUE_READ_ATTRIBUTES)


def test_a_base_search_elsewhere_naming_the_object_is_its_own_read() -> None:
    """A base-scope search at another object's DN does not end the find, whatever its filter
    names: it is a read of the GUID its filter names."""
    found = reads([find(Q), search(guid_filter(Q), base=QMDN, scope=0)])
    assert [(r["identifier"], len(r["searches"])) for r in found] == [(str(Q), 1), (str(Q), 1)]


def test_two_base_searches_at_one_dn_are_two_reads() -> None:
    assert len(reads([properties(QDN), properties(QDN)])) == 2


def test_a_properties_search_on_another_connection_is_its_own_read() -> None:
    run = [find(Q, connection=1), properties(QDN, connection=2)]
    assert [len(r["searches"]) for r in reads(run)] == [1, 1]


def test_a_properties_search_of_another_object_is_its_own_read() -> None:
    found = reads([find(Q), properties(QMDN)])
    assert [r["identifier"] for r in found] == [str(Q), str(QM)]


def test_interleaved_connections_fold_each_their_own_pair_in_order() -> None:
    run = [
        find(Q, connection=1),
        find(QM, connection=2, listener=DC1),
        properties(QMDN, connection=2, listener=DC1),
        properties(QDN, connection=1),
    ]
    found = reads(run)
    assert [(r["identifier"], len(r["searches"])) for r in found] == [(str(Q), 2), (str(QM), 2)]
    assert [r["server"] for r in found] == ["", "dc1.example.com"]


def test_an_unknown_listener_is_the_default_server() -> None:
    assert reads([find(Q, listener="127.0.0.1:1")])[0]["server"] == ""


@pytest.mark.parametrize(
    ("run", "status"),
    [
        ([find(Q, entries=0)], "ObjectNotFound"),
        ([find(Q), properties(QDN, result=32, entries=0)], "ObjectNotFound"),
        ([find(Q), properties(QDN, result=16, entries=0)], "AttributeNotFound"),
        ([find(Q, result=50, entries=0)], "GenericError"),
        ([find(Q, result=3, entries=0)], "GenericError"),
        ([find(Q, result=None, entries=None)], None),
        ([find(Q), properties(QDN)], "Success"),
    ],
)
def test_status(run: list[LdapSearch], status: str | None) -> None:
    assert reads(run)[0]["status"] == status


def test_reads_keep_the_order_of_their_first_search() -> None:
    run = [find(QM, connection=3), find(Q, connection=4), search("(cn=x)", connection=5)]
    assert [r["identifier"] for r in reads(run)] == [str(QM), str(Q), None]


def test_each_read_is_json_like_a_directory_read_plus_the_ldap_fields() -> None:
    [read] = reads([find(Q)])
    assert set(read) >= {"object_type", "identifier", "attributes"}
    assert set(read) >= {"server", "source", "ldap_attributes", "status", "searches", "filter"}
    assert set(read["searches"][0]) == {
        "base",
        "scope",
        "filter",
        "attributes",
        "result",
        "entries",
    }


_TEXT = st.text(
    st.sampled_from(list("()=\\*&|!<>objectGUID0123456789abcdef:, cnCN\ud800")), max_size=50
)


@given(_TEXT, _TEXT, st.sampled_from([0, 1, 2]))
def test_any_search_is_turned_into_a_read_without_raising(base: str, text: str, scope: int) -> None:
    """Real traffic is never refused: whatever base and filter a search had, it is judged."""
    found = reads([search(text, base=base, scope=scope), search(text, base=text, scope=0)])
    assert all(r["source"] == "ldap" for r in found)
    assert len(found) <= 2


def test_a_guid_base_refused_before_its_scope_was_logged_is_a_read_of_that_object() -> None:
    """slapd answers 34 to a ``<GUID=...>`` base and logs no scope (-1): still a read."""
    guid = uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff")
    search = LdapSearch(
        connection=7,
        operation=1,
        listener="127.0.0.1:1",
        bind_dn="cn=t",
        base=f"<GUID={guid}>",
        scope=-1,
        filter="",
        result=34,
        entries=0,
    )
    (read,) = reads_from_searches([search], [], {}, [])
    assert read["identifier"] == str(guid)


# --- what the whole-file mutation run found (issue 34) -------------------------------------------


def test_a_schema_search_in_any_case_is_no_read_and_the_reads_after_it_count() -> None:
    """ldap3 reads the subschema (``CN=Subschema``, any case) and the root DSE on bind: how to
    talk to the server, not a Read Directory; the suite's own searches neither -- and the
    reads that follow them still count."""
    found = reads(
        [
            search("(objectClass=*)", base="CN=Subschema", scope=0, connection=1),
            search("(objectClass=*)", base="", scope=0, connection=1),
            find(Q, connection=1, bind_dn=SUITE),
            find(Q, connection=2),
        ],
        ignore={SUITE},
    )
    assert [(r["identifier"], r["connection"]) for r in found] == [(str(Q), 2)]


def test_an_attribute_asked_twice_in_other_cases_is_listed_once() -> None:
    (read,) = reads(
        [
            find(Q, attributes=("distinguishedName",)),
            properties(QDN, attributes=("mSMQLabelEx", "msmqlabelex", "DistinguishedName")),
        ]
    )
    assert read["ldap_attributes"] == ["distinguishedName", "mSMQLabelEx"]
