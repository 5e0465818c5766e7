"""The OpenLDAP directory fixture: start/stop, the AD layout, reads observed in the log, and
every way it can go wrong (mqcn_suite/directory, docs/directory.md)."""

from __future__ import annotations

import os
import socket
import time
import uuid
from pathlib import Path

import ldap3
import pytest
from ldap3.core.exceptions import LDAPException

from mqcn_model.ldap_records import LdapEntry
from mqcn_suite.directory import slapd as slapd_module
from mqcn_suite.directory.fixture_errors import (
    DirectoryTimeoutError,
    DirectoryValueError,
    PortInUseError,
    SchemaRefusedError,
    SlapdExitedError,
    SlapdNotInstalledError,
)
from mqcn_suite.directory.slapd import DirectoryCredentials, SlapdDirectory, dn_key, find_slapd
from mqcn_suite.directory.statslog import (
    UNLOGGED_SCOPE,
    StatsLog,
    parse_searches,
    unescape_value,
)

pytest_plugins = ["ldap_fixture"]  # the slapd_directory fixture, the ldap xdist group

ROOT = "DC=mqcn,DC=example"
COMPUTER = f"CN=host1,CN=Computers,{ROOT}"
MSMQ = f"CN=msmq,{COMPUTER}"
QUEUE = f"CN=orders,{MSMQ}"
QUEUE_GUID = uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff")
QM_GUID = uuid.UUID("0a1b2c3d-4e5f-4061-8273-8495a6b7c8d9")
SECURITY = b"\x01\x00\x04\x80" + bytes(16)


def tiny_tree() -> list[LdapEntry]:
    """A computer, its queue manager and one queue, children first (load sorts them)."""
    return [
        LdapEntry(
            QUEUE,
            {
                "objectClass": ["mSMQQueue"],
                "objectGUID": [QUEUE_GUID.bytes_le],
                "mSMQLabelEx": ["Orders"],
                "mSMQQueueType": [bytes(16)],
                "mSMQJournal": ["TRUE"],
                "mSMQQueueQuota": ["-1"],  # 0xFFFFFFFF as a signed 32-bit Integer
                "mSMQPrivacyLevel": ["1"],
                "whenCreated": ["19691231235959.0Z"],  # before 1970
                "whenChanged": ["20240102030405.0Z"],
                "nTSecurityDescriptor": [SECURITY],
            },
        ),
        LdapEntry(
            MSMQ,
            {
                "objectClass": ["mSMQConfiguration"],
                "objectGUID": [QM_GUID.bytes_le],
                "mSMQQuota": ["1048576"],
                "mSMQForeign": ["FALSE"],
                "whenCreated": ["20240101000000.0Z"],
            },
        ),
        LdapEntry(
            COMPUTER,
            {
                "objectClass": ["computer"],
                "dNSHostName": ["host1.mqcn.example"],
                "servicePrincipalName": ["HOST/host1", "HOST/host1.mqcn.example"],
            },
        ),
    ]


def connect(credentials: DirectoryCredentials, url: str | None = None) -> ldap3.Connection:
    server = ldap3.Server(url or credentials.url, get_info=ldap3.NONE, connect_timeout=2)
    return ldap3.Connection(
        server,
        credentials.bind_dn,
        credentials.password,
        auto_bind=True,
        receive_timeout=2,
    )


def search(
    credentials: DirectoryCredentials, filter_text: str, base: str = "", url: str | None = None
) -> list[dict[str, object]]:
    """The entries of a subtree search (raw values), as a target would make it."""
    connection = connect(credentials, url)
    connection.search(base, filter_text, ldap3.SUBTREE, attributes=["*"])
    found = [e for e in connection.response or [] if e["type"] == "searchResEntry"]
    connection.unbind()
    return found


@pytest.fixture
def loaded(slapd_directory: SlapdDirectory) -> SlapdDirectory:
    slapd_directory.load(tiny_tree())
    return slapd_directory


# --- start and stop ------------------------------------------------------------------------------


def test_start_and_stop_leave_no_process_and_no_folder(slapd_installed: Path) -> None:
    directory = SlapdDirectory(server_names=["dc1.example.com", "dc2.example.com"])
    with directory:
        pid, folder = directory.pid, directory.folder
        assert pid is not None and folder is not None
        assert set(directory.urls) == {"", "dc1.example.com", "dc2.example.com"}
        assert sorted(directory.listeners.values()) == sorted(directory.urls)
        assert directory.start_seconds is not None and 0 < directory.start_seconds < 20
        os.killpg(pid, 0)  # its own process group, alive
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)
    assert not folder.exists()
    directory.stop()  # twice is fine


def test_the_rootdse_names_the_naming_contexts(slapd_directory: SlapdDirectory) -> None:
    connection = connect(slapd_directory.target_credentials)
    connection.search(
        "",
        "(objectClass=*)",
        ldap3.BASE,
        attributes=[
            "configurationNamingContext",
            "rootDomainNamingContext",
            "defaultNamingContext",
        ],
    )
    values = connection.response[0]["raw_attributes"]
    connection.unbind()
    assert values["configurationNamingContext"] == [f"CN=Configuration,{ROOT}".encode()]
    assert values["rootDomainNamingContext"] == [ROOT.encode()]
    assert values["defaultNamingContext"] == [ROOT.encode()]


def test_the_reset_params_name_the_target_account_and_every_server(
    slapd_directory: SlapdDirectory,
) -> None:
    params = slapd_directory.reset_ldap_params()
    assert params == {
        "url": slapd_directory.url,
        "bind_dn": f"CN=mqcn-target,CN=Users,{ROOT}",
        "password": slapd_directory.target_credentials.password,
        "naming_context": ROOT,
        "servers": {"dc1.example.com": slapd_directory.urls["dc1.example.com"]},
    }
    for url in [params["url"], *params["servers"].values()]:  # each one answers the target
        assert search(slapd_directory.target_credentials, "(cn=Users)", url=url)


def test_load_then_read_back_with_the_target_account(loaded: SlapdDirectory) -> None:
    [queue] = search(loaded.target_credentials, "(objectClass=mSMQQueue)", base=ROOT)
    raw = queue["raw_attributes"]
    assert dn_key(queue["dn"]) == dn_key(QUEUE)
    assert raw["objectGUID"] == [QUEUE_GUID.bytes_le]
    assert raw["mSMQJournal"] == [b"TRUE"]
    assert raw["mSMQQueueQuota"] == [b"-1"]
    assert raw["whenCreated"] == [b"19691231235959.0Z"]
    assert raw["nTSecurityDescriptor"] == [SECURITY]
    # as AD keeps it on every object (slapd spells attribute types its own way: cn=, dc=)
    assert [dn_key(value.decode()) for value in raw["distinguishedName"]] == [dn_key(QUEUE)]
    assert len(search(loaded.target_credentials, "(objectClass=*)", base=loaded.computers_dn)) == 4


def test_load_replaces_what_was_below_computers(loaded: SlapdDirectory) -> None:
    loaded.load([entry for entry in tiny_tree() if entry.dn != QUEUE])
    assert search(loaded.target_credentials, "(objectClass=mSMQQueue)", base=ROOT) == []
    assert len(search(loaded.target_credentials, "(objectClass=mSMQConfiguration)")) == 1


def test_the_target_account_cannot_write(loaded: SlapdDirectory) -> None:
    connection = connect(loaded.target_credentials)
    assert not connection.modify(QUEUE, {"mSMQLabelEx": [(ldap3.MODIFY_REPLACE, ["x"])]})
    assert connection.result["result"] == 50  # insufficientAccessRights
    assert not connection.add(f"CN=new,{MSMQ}", ["mSMQQueue"])
    assert not connection.delete(QUEUE)
    connection.unbind()
    [queue] = search(loaded.target_credentials, "(objectClass=mSMQQueue)")
    assert queue["raw_attributes"]["mSMQLabelEx"] == [b"Orders"]


def test_anonymous_reads_only_the_rootdse(loaded: SlapdDirectory) -> None:
    connection = ldap3.Connection(ldap3.Server(loaded.url, get_info=ldap3.NONE), auto_bind=True)
    connection.search(ROOT, "(objectClass=mSMQQueue)", ldap3.SUBTREE)
    assert connection.entries == []
    connection.unbind()


# --- finding an object by its GUID (MS-MQDSSM 3.1.6.19 and the contract's errata) ---------------

COMPACT = "6F9619FF8B86D011B42D00C04FC964FF"  # the braced string's hex digits, in string order
ESCAPED = "".join(f"\\{byte:02x}" for byte in QUEUE_GUID.bytes_le)  # the 16 bytes, DTYP order


@pytest.mark.parametrize(
    "filter_text",
    [
        f"(objectGuid={COMPACT})",
        f"(objectGuid={COMPACT.lower()})",
        f"(OBJECTGUID={COMPACT})",
        f"(objectGUID={ESCAPED})",
        f"(objectGUID={ESCAPED.upper()})",
        f"(&(objectClass=mSMQQueue)(objectGuid={COMPACT}))",
        f"(&(objectGuid={COMPACT.lower()})(objectClass=*))",
        f"(|(cn=nothing)(objectGUID={ESCAPED}))",
    ],
)
def test_every_guid_filter_form_finds_the_queue(loaded: SlapdDirectory, filter_text: str) -> None:
    assert str(QUEUE_GUID).replace("-", "").upper() == COMPACT
    [found] = search(loaded.target_credentials, filter_text)  # from base "" (defaultsearchbase)
    assert dn_key(found["dn"]) == dn_key(QUEUE)


def test_the_queue_manager_is_found_by_its_guid_through_another_listener(
    loaded: SlapdDirectory,
) -> None:
    compact = str(QM_GUID).replace("-", "")
    url = loaded.urls["dc1.example.com"]
    [found] = search(loaded.target_credentials, f"(objectGuid={compact})", url=url)
    assert dn_key(found["dn"]) == dn_key(MSMQ)


@pytest.mark.parametrize(
    "filter_text",
    [
        "(objectGuid=00000000000000000000000000000000)",
        f"(objectGuid={COMPACT[:-2]}00)",
        "(objectGUID=" + "".join(f"\\{b:02x}" for b in QUEUE_GUID.bytes) + ")",  # RFC 4122 order
    ],
)
def test_an_unknown_guid_finds_nothing(loaded: SlapdDirectory, filter_text: str) -> None:
    assert search(loaded.target_credentials, filter_text) == []


# --- reads observed at the server ---------------------------------------------------------------


def test_searches_are_read_from_the_log_with_listener_identity_and_result(
    loaded: SlapdDirectory,
) -> None:
    since = loaded.mark()
    connection = connect(loaded.target_credentials, loaded.urls["dc1.example.com"])
    connection.search("", f"(objectGuid={COMPACT})", ldap3.SUBTREE, attributes=["mSMQLabelEx"])
    connection.search(
        "", "(objectGuid=00000000000000000000000000000000)", ldap3.SUBTREE, attributes=["*"]
    )
    connection.search(QUEUE, "(objectClass=*)", ldap3.BASE, attributes=["objectGUID", "cn"])
    connection.search(f"CN=gone,{MSMQ}", "(objectClass=*)", ldap3.BASE)
    connection.search(f"<GUID={QUEUE_GUID}>", "(objectClass=*)", ldap3.BASE)
    connection.search("", "(&(objectClass=mSMQQueue)(cn=Orders)(objectGuidX=1))", ldap3.SUBTREE)
    connection.unbind()
    loaded.sync()
    seen = [s for s in loaded.searches(since) if "mqcn-sync-" not in s.filter]
    # slapd prints the filter as parsed: the attribute in its schema spelling, the value as sent
    assert [
        (dn_key(s.base), s.scope, s.filter, s.attributes, s.result, s.entries) for s in seen
    ] == [
        ("", 2, f"(objectGUID={COMPACT})", ("mSMQLabelEx",), 0, 1),
        ("", 2, "(objectGUID=00000000000000000000000000000000)", ("*",), 0, 0),
        (dn_key(QUEUE), 0, "(objectClass=*)", ("objectGUID", "cn"), 0, 1),
        (dn_key(f"CN=gone,{MSMQ}"), 0, "(objectClass=*)", ("1.1",), 32, 0),
        # AD's <GUID=...> form: refused (invalidDNSyntax) before slapd logs scope and filter
        (dn_key(f"<GUID={QUEUE_GUID}>"), UNLOGGED_SCOPE, "", (), 34, 0),
        # values of caseIgnore attributes logged normalized; an unknown attribute gets a '?'
        ("", 2, "(&(objectClass=mSMQQueue)(cn=orders)(?objectGuidX=1))", ("1.1",), 0, 0),
    ]
    assert {loaded.listeners[s.listener] for s in seen} == {"dc1.example.com"}
    assert {dn_key(s.bind_dn) for s in seen} == {dn_key(loaded.target_dn)}
    assert len({s.connection for s in seen}) == 1


def test_an_escaped_filter_is_logged_so_its_bytes_can_be_recovered(loaded: SlapdDirectory) -> None:
    since = loaded.mark()
    search(loaded.target_credentials, f"(objectGUID={ESCAPED})")
    loaded.sync()
    [seen] = [s for s in loaded.searches(since) if "objectGUID" in s.filter]
    assert unescape_value(seen.filter[len("(objectGUID=") : -1]) == QUEUE_GUID.bytes_le


def test_sync_waits_for_every_earlier_search(loaded: SlapdDirectory) -> None:
    since = loaded.mark()
    for _ in range(5):
        search(loaded.target_credentials, "(objectClass=mSMQQueue)")
    loaded.sync()
    seen = [s for s in loaded.searches(since) if s.filter == "(objectClass=mSMQQueue)"]
    assert len(seen) == 5 and all(s.result == 0 and s.entries == 1 for s in seen)


def test_a_wrong_password_is_seen_in_the_binds(loaded: SlapdDirectory) -> None:
    since = loaded.mark()
    wrong = ldap3.Connection(
        ldap3.Server(loaded.url, get_info=ldap3.NONE), loaded.target_dn, "not-the-password"
    )
    assert not wrong.bind()
    wrong.unbind()
    loaded.sync()
    binds = [b for b in loaded.binds(since) if dn_key(b.dn) == dn_key(loaded.target_dn)]
    assert [(b.result, loaded.listeners[b.listener]) for b in binds] == [(49, "")]


# --- the stats-log reader on hand-written lines -------------------------------------------------

PREFIX = "6b07b809.187f6451 0x7fce377fd6c0 "
LINES = [
    "6b07b808.11440976 0x7fce3ab08200 @(#) $OpenLDAP: slapd 2.5.13+dfsg-5 (Feb  8 2023) $",
    "6b07b808.11f6a12d 0x7fce3ab08200 slapd starting",
    "conn=1000 fd=12 ACCEPT from IP=127.0.0.1:55278 (IP=127.0.0.1:38902)",
    'conn=1000 op=0 BIND dn="cn=mqcn-target,cn=users,dc=mqcn,dc=example" method=128',
    'conn=1000 op=0 BIND dn="cn=mqcn-target,cn=users,dc=mqcn,dc=example" mech=SIMPLE ssf=0',
    "conn=1000 op=0 RESULT tag=97 err=0 qtime=0.000013 etime=0.000080 text=",
    r'conn=1000 op=1 SRCH base="" scope=2 deref=0 filter="(objectGUID=\FF\19\96o\86)"',
    "conn=1000 op=1 SRCH attr=mSMQLabelEx objectGUID",
    "conn=1001 fd=13 ACCEPT from IP=127.0.0.1:55280 (IP=127.0.0.1:38903)",
    'conn=1001 op=0 BIND dn="cn=mqcn-target,cn=users,dc=mqcn,dc=example" method=128',
    "conn=1001 op=0 RESULT tag=97 err=49 qtime=0.000013 etime=0.000080 text=",
    'conn=1001 op=1 SRCH base="dc=mqcn,dc=example" scope=1 deref=0 filter="(cn=a"b)"',
    "conn=1001 op=1 SEARCH RESULT tag=101 err=0 qtime=0 etime=0 nentries=0 text=",
    "conn=1000 op=1 SEARCH RESULT tag=101 err=0 qtime=0.000011 etime=0.000127 nentries=1 text=",
    'conn=1000 op=2 SRCH base="" scope=2 deref=0 filter="(objectClass=*)"',
    "conn=1000 op=3 ABANDON msg=2",
    'conn=1000 op=4 SRCH base="" scope=2 deref=0 filter="(cn=never)"',
    'conn=1000 op=5 do_search: invalid dn: "<GUID=6f9619ff-8b86-d011-b42d-00c04fc964ff>"',
    "conn=1000 op=5 SEARCH RESULT tag=101 err=34 qtime=0 etime=0 nentries=0 text=invalid DN",
    "conn=1000 fd=12 closed",
]


def hand_log() -> StatsLog:
    log = StatsLog()
    log.feed("".join(f"{PREFIX}{line}\n" for line in LINES).encode())
    return log


def test_the_parser_joins_accept_bind_srch_attr_and_result() -> None:
    searches = hand_log().searches()
    first, anonymous, abandoned, cut, by_guid = searches
    assert (first.listener, first.bind_dn, first.base, first.scope) == (
        "127.0.0.1:38902",
        "cn=mqcn-target,cn=users,dc=mqcn,dc=example",
        "",
        2,
    )
    assert first.filter == r"(objectGUID=\FF\19\96o\86)"
    assert first.attributes == ("mSMQLabelEx", "objectGUID")
    assert (first.result, first.entries) == (0, 1)
    # a failed bind leaves the connection anonymous; a quote inside a filter is kept
    assert (anonymous.bind_dn, anonymous.filter, anonymous.listener) == (
        "",
        '(cn=a"b)',
        "127.0.0.1:38903",
    )
    assert (anonymous.scope, anonymous.result, anonymous.entries) == (1, 0, 0)
    # abandoned, and cut by the connection's end: no result, but settled
    assert (abandoned.result, cut.result) == (None, None)
    # AD's <GUID=...> base: slapd refuses it before logging the scope and the filter
    assert (by_guid.base, by_guid.scope, by_guid.filter, by_guid.result) == (
        "<GUID=6f9619ff-8b86-d011-b42d-00c04fc964ff>",
        UNLOGGED_SCOPE,
        "",
        34,
    )


def test_the_parser_reports_binds_with_their_result() -> None:
    binds = hand_log().binds()
    assert [(b.connection, b.listener, b.result) for b in binds] == [
        (1000, "127.0.0.1:38902", 0),
        (1001, "127.0.0.1:38903", 49),
    ]


def test_the_parser_settles_searches_on_result_abandon_and_close() -> None:
    log = StatsLog()
    text = "".join(f"{PREFIX}{line}\n" for line in LINES[:15]).encode()
    log.feed(text)
    assert [s.filter for s in log.unsettled()] == ["(objectClass=*)"]
    log.feed("".join(f"{PREFIX}{line}\n" for line in LINES[15:]).encode())
    assert log.unsettled() == []


def test_the_parser_keeps_searches_logged_before_their_binds_result() -> None:
    """slapd logs from several threads: a bind's RESULT may come after the next SRCH."""
    for err, bound in [(0, "cn=a,dc=x"), (49, "")]:
        log = StatsLog()
        log.feed(
            "".join(
                f"{PREFIX}{line}\n"
                for line in [
                    "conn=1000 fd=12 ACCEPT from IP=127.0.0.1:5 (IP=127.0.0.1:389)",
                    'conn=1000 op=0 BIND dn="cn=a,dc=x" method=128',
                    'conn=1000 op=1 SRCH base="" scope=2 deref=0 filter="(cn=q)"',
                    f"conn=1000 op=0 RESULT tag=97 err={err} qtime=0 etime=0 text=",
                    'conn=1000 op=2 SRCH base="" scope=2 deref=0 filter="(cn=r)"',
                ]
            ).encode()
        )
        assert [s.bind_dn for s in log.searches()] == [bound, bound]


def test_the_parser_gives_the_listener_of_an_accept_logged_late() -> None:
    log = StatsLog()
    log.feed(
        "".join(
            f"{PREFIX}{line}\n"
            for line in [
                'conn=1000 op=0 BIND dn="cn=a,dc=x" method=128',
                "conn=1000 op=0 RESULT tag=97 err=0 qtime=0 etime=0 text=",
                'conn=1000 op=1 SRCH base="" scope=2 deref=0 filter="(cn=q)"',
                "conn=1000 fd=12 ACCEPT from IP=127.0.0.1:5 (IP=127.0.0.1:389)",
            ]
        ).encode()
    )
    [search], [bind] = log.searches(), log.binds()
    assert (search.listener, search.bind_dn, bind.listener) == (
        "127.0.0.1:389",
        "cn=a,dc=x",
        "127.0.0.1:389",
    )


def test_the_parser_takes_a_result_logged_after_the_close() -> None:
    log = StatsLog()
    log.feed(
        "".join(
            f"{PREFIX}{line}\n"
            for line in [
                "conn=1000 fd=12 ACCEPT from IP=127.0.0.1:5 (IP=127.0.0.1:389)",
                'conn=1000 op=1 SRCH base="" scope=2 deref=0 filter="(cn=q)"',
                "conn=1000 fd=12 closed",
            ]
        ).encode()
    )
    assert log.unsettled() == [] and len(log.unanswered()) == 1  # gone, maybe answered late
    log.feed(f"{PREFIX}conn=1000 op=1 SEARCH RESULT tag=101 err=0 nentries=3 text=\n".encode())
    [search] = log.searches()
    assert (search.result, search.entries, log.unanswered()) == (0, 3, [])


def test_the_parser_takes_the_log_in_any_chunks() -> None:
    data = "".join(f"{PREFIX}{line}\n" for line in LINES).encode()
    whole = hand_log()
    pieces = StatsLog()
    for start in range(0, len(data), 7):
        pieces.feed(data[start : start + 7])
    assert pieces.searches() == whole.searches()
    assert pieces.offset == len(data)
    since = data.index(b"conn=1001 op=1 SRCH") - len(PREFIX)
    assert [s.connection for s in pieces.searches(since)] == [1001, 1000, 1000, 1000]


def test_a_restart_ends_the_connections_of_the_last_start() -> None:
    log = StatsLog()
    log.feed(
        "".join(
            f"{PREFIX}{line}\n"
            for line in [
                *LINES[:7],
                LINES[0],
                LINES[1],
                LINES[2],
                'conn=1000 op=0 SRCH base="" scope=0 deref=0 filter="(objectClass=*)"',
            ]
        ).encode()
    )
    before, after = log.searches()
    assert before.result is None and before.bind_dn.startswith("cn=mqcn-target")
    assert after.bind_dn == ""  # the new connection 1000 never bound
    assert [s.filter for s in log.unsettled()] == ["(objectClass=*)"]


def test_parse_searches_reads_a_whole_text() -> None:
    text = "\n".join(PREFIX + line for line in LINES)  # no final newline
    assert len(parse_searches(text)) == 5


def test_unescape_value_reads_slapds_escapes() -> None:
    assert unescape_value(r"\FF\19\96o\86\8B\11\D0\B4-\00\C0O\C9d\FF") == bytes.fromhex(
        "ff19966f868b11d0b42d00c04fc964ff"
    )
    assert unescape_value("plain") == b"plain"


# --- bad input -----------------------------------------------------------------------------------


def test_slapd_not_on_the_path_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(SlapdNotInstalledError, match="apt-get install slapd ldap-utils"):
        SlapdDirectory(tmp_path, search_path=str(tmp_path)).start()
    with pytest.raises(SlapdNotInstalledError, match="/nowhere/slapd not found"):
        find_slapd("/nowhere/slapd")
    assert not (tmp_path / "slapd.conf").exists()


def test_a_missing_slapd_fails_with_the_install_line_never_skips(
    monkeypatch: pytest.MonkeyPatch, pytestconfig: pytest.Config
) -> None:
    """In CI or not, with --mqcn-directory=ldap or not: a failure saying how to install it."""
    ldap_fixture = pytestconfig.pluginmanager.get_plugin("ldap_fixture")

    def missing(*_: object) -> None:
        raise SlapdNotInstalledError(f"slapd not found: {slapd_module.INSTALL_HINT}")

    monkeypatch.setattr(ldap_fixture, "find_slapd", missing)
    for ci in (None, "true"):
        if ci is None:
            monkeypatch.delenv("CI", raising=False)
        else:
            monkeypatch.setenv("CI", ci)
        with pytest.raises(pytest.fail.Exception, match=r"^slapd not found: apt-get install slapd"):
            ldap_fixture.slapd_or_fail()


def test_a_port_in_use_is_named(slapd_installed: Path, tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        directory = SlapdDirectory(
            tmp_path, server_names=["dc1.example.com"], ports={"dc1.example.com": port}
        )
        with pytest.raises(PortInUseError, match=rf"127\.0\.0\.1:{port} .*'dc1\.example\.com'"):
            directory.start()
    assert directory.pid is None


def test_a_port_taken_between_the_check_and_the_start_is_named_from_the_log(
    slapd_installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(slapd_module, "port_is_free", lambda port: True)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        directory = SlapdDirectory(tmp_path, ports={"": port})
        with pytest.raises(PortInUseError, match=rf"127\.0\.0\.1:{port} \(the default listener\)"):
            directory.start()
    assert directory.pid is None


def test_a_schema_the_server_refuses_gives_slaptests_reason(
    slapd_installed: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.schema"
    broken.write_text(
        "attributetype ( 1.2.840.113556.1.4.918 NAME 'mSMQJournal'\n"
        "    EQUALITY noSuchMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.7 )\n"
    )
    directory = SlapdDirectory(schema=broken)  # in a folder of its own: removed on failure
    with pytest.raises(SchemaRefusedError) as refused:
        directory.start()
    assert directory.folder is None and directory.pid is None
    message = str(refused.value)
    assert "\n" not in message
    assert str(broken) in message and 'MatchingRule not found: "noSuchMatch"' in message


def test_slapd_that_exits_at_start_shows_its_last_log_lines(
    slapd_installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.schema"
    broken.write_text("attributetype ( 1.2.3.4 NAME 'x' SYNTAX 9.9.9 )\n")
    directory = SlapdDirectory(tmp_path / "dir", schema=broken)
    monkeypatch.setattr(directory, "_check_config", lambda: None)  # slaptest would say it first
    with pytest.raises(SlapdExitedError) as exited:
        directory.start()
    message = str(exited.value)
    assert message.startswith("slapd exited at start (status 1): ")
    assert 'Syntax not found: "9.9.9"' in message and "\n" not in message
    assert directory.pid is None


def test_a_folder_used_again_starts_a_new_directory(slapd_installed: Path, tmp_path: Path) -> None:
    with SlapdDirectory(tmp_path) as first:
        first.load(tiny_tree())
        search(first.target_credentials, "(objectClass=mSMQQueue)")
        first.sync()
        assert first.searches()
    with SlapdDirectory(tmp_path) as second:
        assert search(second.target_credentials, "(objectClass=mSMQQueue)") == []
        second.sync()
        assert [s.filter for s in second.searches() if "mqcn-sync" not in s.filter] == [
            "(objectClass=mSMQQueue)"
        ]


def test_bad_arguments_are_refused_at_once() -> None:
    with pytest.raises(ValueError, match="must start with DC="):
        SlapdDirectory(root="CN=x,DC=example")
    with pytest.raises(ValueError, match=r"listeners that do not exist: \['dc9'\]"):
        SlapdDirectory(ports={"dc9": 389})


@pytest.mark.parametrize(
    ("attribute", "value", "said"),
    [
        ("mSMQJournal", "7", "invalid per syntax"),  # Boolean is TRUE or FALSE
        ("mSMQQueueQuota", "lots", "invalid per syntax"),  # Integer
        ("whenCreated", "2024-01-01", "invalid per syntax"),  # Generalized-Time
        ("mSMQQuota", "1", "not allowed"),  # an mSMQConfiguration attribute on a queue
    ],
)
def test_a_value_of_the_wrong_syntax_is_refused_at_load(
    slapd_directory: SlapdDirectory, attribute: str, value: str, said: str
) -> None:
    tree = tiny_tree()
    queue = tree[0]
    tree[0] = LdapEntry(queue.dn, {**queue.attributes, attribute: [value]})
    with pytest.raises(DirectoryValueError) as refused:
        slapd_directory.load(tree)
    message = str(refused.value)
    assert message.startswith(f"the directory refused {QUEUE}: attribute {attribute}: ")
    assert said in message and "\n" not in message


def test_an_entry_outside_computers_is_refused_at_load(slapd_directory: SlapdDirectory) -> None:
    stray = LdapEntry(f"CN=stray,CN=Users,{ROOT}", {"objectClass": ["container"]})
    with pytest.raises(DirectoryValueError, match=r"only below CN=Computers,DC=mqcn"):
        slapd_directory.load([stray])


def test_an_entry_without_its_parent_is_refused_at_load(slapd_directory: SlapdDirectory) -> None:
    with pytest.raises(DirectoryValueError, match=r"refused CN=orders.*noSuchObject"):
        slapd_directory.load(tiny_tree()[:1])


def test_entries_of_the_base_tree_are_taken_as_there(slapd_directory: SlapdDirectory) -> None:
    base = [
        LdapEntry(ROOT, {"objectClass": ["domainDNS"], "dc": ["mqcn"]}),
        LdapEntry(f"CN=Computers, {ROOT}", {"objectClass": ["container"]}),
    ]
    slapd_directory.load(base + tiny_tree())
    assert len(search(slapd_directory.target_credentials, "(objectClass=mSMQQueue)")) == 1


# --- the server down, hung, slow ----------------------------------------------------------------


def test_the_server_down_refuses_then_comes_back_with_its_data(
    slapd_installed: Path, tmp_path: Path
) -> None:
    with SlapdDirectory(tmp_path) as directory:
        directory.load(tiny_tree())
        url = directory.url
        directory.stop_listening()
        with pytest.raises(LDAPException):
            connect(directory.target_credentials)
        directory.start_listening()
        assert directory.url == url
        since = directory.mark()
        assert len(search(directory.target_credentials, f"(objectGuid={COMPACT})")) == 1
        directory.sync()
        [seen] = [s for s in directory.searches(since) if "objectGUID" in s.filter]
        assert (dn_key(seen.bind_dn), seen.result, seen.entries) == (
            dn_key(directory.target_dn),
            0,
            1,
        )


def test_a_paused_server_accepts_but_does_not_answer_until_it_resumes(
    slapd_installed: Path, tmp_path: Path
) -> None:
    with SlapdDirectory(tmp_path) as directory:
        directory.pause(30)
        began = time.monotonic()
        with pytest.raises(LDAPException):
            connect(directory.target_credentials)  # receive_timeout 2 s
        assert time.monotonic() - began >= 1.5
        with pytest.raises(DirectoryTimeoutError, match="did not answer"):
            directory.sync(timeout=1)
        directory.resume()
        assert search(directory.target_credentials, "(objectClass=container)", base=ROOT)
        directory.pause(0.5)  # resumes by itself
        time.sleep(0.8)
        directory.sync()


def test_a_slow_server_answers_each_request_late(loaded: SlapdDirectory) -> None:
    slow = loaded.slow_url("dc1.example.com", delay=0.4)
    since = loaded.mark()
    began = time.monotonic()
    [found] = search(loaded.target_credentials, f"(objectGuid={COMPACT})", url=slow)
    took = time.monotonic() - began
    assert dn_key(found["dn"]) == dn_key(QUEUE)
    assert took >= 0.8  # the bind and the search, each held 0.4 s
    loaded.sync()
    [seen] = [s for s in loaded.searches(since) if "objectGUID" in s.filter]
    assert loaded.listeners[seen.listener] == "dc1.example.com"


def test_a_slow_copy_of_an_unknown_listener_is_refused(slapd_directory: SlapdDirectory) -> None:
    with pytest.raises(KeyError, match="no listener named 'nowhere'"):
        slapd_directory.slow_url("nowhere")
