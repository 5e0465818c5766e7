"""What can go wrong with the suite's LDAP directory (:mod:`mqcn_suite.directory.slapd`):
one class per failure, each message one line."""

from __future__ import annotations


class DirectoryFixtureError(Exception):
    """The directory fixture could not do what was asked; the message is one line."""


class SlapdNotInstalledError(DirectoryFixtureError):
    """No slapd program where it was looked for."""


class PortInUseError(DirectoryFixtureError):
    """A port the fixture was told to listen on is taken."""


class SchemaRefusedError(DirectoryFixtureError):
    """slapd refuses the schema file (slaptest's reason in the message)."""


class SlapdExitedError(DirectoryFixtureError):
    """slapd ended (or never answered) while starting; its last log lines are in the message."""


class DirectoryValueError(DirectoryFixtureError):
    """The server refused an entry of the scenario data (DN, attribute, server's message)."""


class DirectoryTimeoutError(DirectoryFixtureError):
    """The server did not answer within the time allowed (paused, down, or overloaded)."""


class NotAttachableError(DirectoryFixtureError):
    """A URL that names no server ``mqcn directory serve`` runs on this machine (or one that
    another run is attached to already)."""
