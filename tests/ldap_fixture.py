"""The ``slapd_directory`` fixture: one OpenLDAP directory for the tests that ask for it.

A test module opts in with ``pytest_plugins = ["ldap_fixture"]`` (this file is a plugin, not
part of tests/conftest.py, so the tests that never touch LDAP never load it); a test that
starts a directory of its own asks for ``slapd_installed`` instead.  The directory
is session-scoped: one slapd per test process (mqcn_suite.directory.slapd), with a default
listener and one for ``dc1.example.com``.  Every test that uses either fixture joins the
``ldap`` xdist group, so under ``pytest -n`` one worker runs them all against one slapd.

A missing slapd fails the test with the one-line install hint (``apt-get install slapd
ldap-utils``; .ci/run installs it, the README's set-up names it): nothing is skipped.  Every
other failure to start fails the test too.  A test that changes the tree calls
``slapd_directory.load(...)`` itself: nothing is assumed about the tree another test left.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mqcn_suite.directory.fixture_errors import SlapdNotInstalledError
from mqcn_suite.directory.slapd import SlapdDirectory, find_slapd

LDAP_GROUP = "ldap"
SERVER_NAMES = ("dc1.example.com",)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (it names items by them)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that uses a directory goes to the one worker of :data:`LDAP_GROUP`."""
    for item in items:
        if {"slapd_directory", "slapd_installed"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group(LDAP_GROUP))


def slapd_or_fail() -> Path:
    """The slapd program; when it is not installed, a failure with the install hint (one
    line)."""
    try:
        return find_slapd()
    except SlapdNotInstalledError as missing:
        pytest.fail(str(missing), pytrace=False)


@pytest.fixture
def slapd_installed(pytestconfig: pytest.Config) -> Path:
    """For a test that starts a directory of its own: slapd's path (or the failure above)."""
    return slapd_or_fail()


@pytest.fixture(scope="session")
def slapd_directory(
    tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config
) -> Iterator[SlapdDirectory]:
    """A started slapd laid out as Active Directory (stopped when the session ends)."""
    slapd_or_fail()
    with SlapdDirectory(tmp_path_factory.mktemp("slapd"), server_names=SERVER_NAMES) as directory:
        yield directory
