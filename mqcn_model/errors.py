"""Typed verdicts: every failure names the requirement it breaks, where, and why.

>>> v = Violation("MQCN-2.2.4-3", 1, "Version 0x02 message has NumberOfUpdateNotifications 2")
>>> v.severity
'error'
>>> str(v)
'MQCN-2.2.4-3 at byte 1: Version 0x02 message has NumberOfUpdateNotifications 2'
"""

from __future__ import annotations

from dataclasses import dataclass

from mqcn_model.catalog import req, requirement


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken requirement: its catalog ID, the byte offset (None if not positional), why."""

    requirement: str
    offset: int | None
    message: str

    def __post_init__(self) -> None:
        req(self.requirement)  # an ID outside the catalog is a bug in the suite

    @property
    def severity(self) -> str:
        """``error`` for MUST/MUST NOT, ``warning`` for SHOULD, ``info`` for MAY/PRODUCT."""
        return requirement(self.requirement).severity

    def to_json(self) -> dict[str, object]:
        return {
            "requirement": self.requirement,
            "offset": self.offset,
            "message": self.message,
            "severity": self.severity,
        }

    def __str__(self) -> str:
        where = f" at byte {self.offset}" if self.offset is not None else ""
        return f"{self.requirement}{where}: {self.message}"


class DecodeError(ValueError):
    """The bytes cannot be read as the structure asked for; carries the Violation that stops it.

    It is the only exception the codec raises for bad input.
    """

    def __init__(self, violation: Violation) -> None:
        super().__init__(str(violation))
        self.violation = violation

    @property
    def requirement(self) -> str:
        return self.violation.requirement

    @property
    def offset(self) -> int | None:
        return self.violation.offset


def fail(requirement: str, offset: int | None, message: str) -> DecodeError:
    """Build the DecodeError for ``requirement`` (callers ``raise fail(...)``)."""
    return DecodeError(Violation(requirement, offset, message))


class DirectoryValueError(ValueError):
    """A scenario's directory value cannot be written as the LDAP syntax Active Directory gives
    its attribute ([MS-MQDSSM] 3.1.6.10, the AD schema): names the object, the ADM attribute,
    the LDAP attribute, the value and why, in one line.
    """

    def __init__(self, subject: str, adm: str, ldap: str, value: object, why: str) -> None:
        super().__init__(f"{subject}: {adm} ({ldap}) = {value!r} cannot be written: {why}")
        self.subject = subject
        self.adm = adm
        self.ldap = ldap
        self.value = value
        self.why = why
