"""LDAP mode: the scenario's directory lives on an LDAP server, and the suite watches it.

``--directory ldap`` (pytest ``--mqcn-directory=ldap``) puts a :class:`LdapMode` in front of
the target.  Before each ``reset`` it writes the scenario's directory objects to the server
as Active Directory would hold them ([MS-MQDSSM]: :mod:`mqcn_model.dssm`), replaces them in
the set-up with what a Read Directory returns for them (so every expectation compares with
what the directory really says), and hands the target the server's URL and an account
(``setup.ldap``, adapter protocol: docs/adapter-protocol.md).  ``directory_reads`` then
answers from the server's own log of the searches the target made, not from the target's
account of itself: each read says ``"source": "ldap"``.

A directory the suite cannot start or reach is a :class:`~mqcn_suite.targets.base.TargetError`
before anything runs, and a :class:`DirectoryUnavailable` (verdict ``error``) inside a
scenario: it never makes a requirement fail.
"""

from __future__ import annotations

from typing import Any

from mqcn_suite.targets.base import (
    NotApplicable,
    Setup,
    Target,
    TargetBroken,
    TargetError,
    TargetWrapper,
    layer_of,
)

DIRECTORY_MODES = ("dict", "ldap")


class DirectoryUnavailable(TargetBroken):
    """The suite's own directory failed inside a scenario (the scenario's verdict: error)."""


def directory_modes_of(target: Target) -> tuple[str, ...]:
    """The directories ``target`` can read besides the one ``reset`` hands it: its
    ``directory_modes()`` (an exec: target's hello member ``directory``) or attribute."""
    declared = getattr(target, "directory_modes", ())
    modes = declared() if callable(declared) else declared
    return tuple(modes or ())


def check_directory(target: Target, spec: str) -> None:
    """A one-line :class:`TargetError` when ``--directory spec`` cannot serve ``target``: an
    unknown value, a target without the ``ldap`` capability, no slapd installed for
    ``ldap``.  Starts nothing (``mqcn run`` checks this before the run begins)."""
    if spec == "dict":
        return
    if spec != "ldap" and not spec.startswith(("ldap://", "ldaps://")):
        raise TargetError(f"expected 'dict', 'ldap' or an ldap:// URL, not {spec!r}")
    if "ldap" not in directory_modes_of(target):
        raise TargetError(
            f"the target {target.name!r} does not read an LDAP directory (its hello names "
            'no "directory": ["ldap"]; docs/adapter-protocol.md)'
        )
    if spec == "ldap":
        from mqcn_suite.directory.fixture_errors import SlapdNotInstalledError
        from mqcn_suite.directory.slapd import find_slapd

        try:
            find_slapd()
        except SlapdNotInstalledError as exc:
            raise TargetError(str(exc)) from None


def with_directory(target: Target, spec: str) -> Target:
    """``target`` as ``--directory spec`` asks: unchanged for ``dict``; in front of a
    directory the suite starts (``ldap``) or one ``mqcn directory serve`` runs (its URL)."""
    check_directory(target, spec)
    if spec == "dict":
        return target
    from mqcn_suite.directory.ldap_session import DirectorySession  # the LDAP client, only here

    return LdapMode(target, DirectorySession.open(spec))


def ldap_mode_of(target: Target) -> LdapMode | None:
    """The LdapMode under ``target`` (behind its PICS guard), if the run has one."""
    return layer_of(target, LdapMode)


class LdapMode(TargetWrapper):
    """``inner`` reading the scenario's directory from an LDAP server (module docstring)."""

    def __init__(self, inner: Target, session: Any) -> None:
        super().__init__(inner)
        self.session = session

    def __getattr__(self, name: str) -> Any:  # pics(), transport() and the rest of inner's
        return getattr(self.inner, name)

    def reset(self, setup: Setup, **options: Any) -> None:
        """Write the scenario's directory, then reset the target with where to read it."""
        try:
            setup.ldap = self.session.publish(setup)
        except (TargetError, NotApplicable):
            raise
        except Exception as exc:  # the suite's directory, not the target, is at fault
            raise DirectoryUnavailable(f"the suite's LDAP directory: {exc}") from exc
        self.inner.reset(setup, **options)

    def change_directory(self, setup: Setup) -> None:
        """The scenario changed its directory after ``reset``: write it to the server now
        (the target is not reset; its reads so far are kept)."""
        try:
            self.session.change(setup)
        except (TargetError, NotApplicable):
            raise
        except Exception as exc:  # the suite's directory, not the target, is at fault
            raise DirectoryUnavailable(f"the suite's LDAP directory: {exc}") from exc

    def start_server(self) -> dict[str, Any] | None:
        return self.inner.start_server()

    def deliver(self, envelope: Any) -> None:
        self.inner.deliver(envelope)

    def start_client(self, destination: Any) -> dict[str, Any] | None:
        return self.inner.start_client(destination)

    def send_change_notification(self, operation: str, object_id: Any, changed: list[str]) -> Any:
        return self.inner.send_change_notification(operation, object_id, changed)

    def directory_reads(self) -> list[dict[str, Any]]:
        """The reads the LDAP server saw since the last reset (``source``: ``ldap``); the
        target's own ``directory_reads`` is not asked."""
        try:
            return self.session.reads()
        except Exception as exc:
            raise DirectoryUnavailable(f"the suite's LDAP directory: {exc}") from exc

    def end_scenario(self) -> None:
        end = getattr(self.inner, "end_scenario", None)
        if callable(end):
            end()

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            self.session.close()
