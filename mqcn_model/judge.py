"""Judge one message body against every requirement checkable from its bytes alone.

This is what ``mqcn decode``, the reference vectors and the Spark audit all call.

>>> verdict = judge(bytes.fromhex("0300"))
>>> verdict.conforming, [v.requirement for v in verdict.violations]
(False, ['MQCN-2.2.4-1'])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqcn_model.codec.message import ChangeNotificationMessage, decode_message
from mqcn_model.errata import STRICT, Readings
from mqcn_model.errors import DecodeError, Violation
from mqcn_model.rules import check_message


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome for one message.

    ``violations`` holds every MUST/MUST NOT broken; ``observations`` the SHOULD/MAY notes
    (they never make a message non-conforming).  ``message`` is None when decoding failed.
    """

    conforming: bool
    message: ChangeNotificationMessage | None
    violations: tuple[Violation, ...] = ()
    observations: tuple[Violation, ...] = ()
    size: int = field(default=0)

    @property
    def requirements(self) -> tuple[str, ...]:
        """The IDs broken, deduplicated, in order of first appearance."""
        return tuple(dict.fromkeys(v.requirement for v in self.violations))


def judge(buf: bytes, readings: Readings = STRICT) -> Verdict:
    """Decode ``buf`` (a message body, spare byte optional) and apply the content rules."""
    try:
        message = decode_message(buf, readings)
    except DecodeError as exc:
        return Verdict(False, None, (exc.violation,), (), len(buf))
    findings = check_message(message, readings)
    violations = tuple(v for v in findings if v.severity == "error")
    observations = tuple(v for v in findings if v.severity != "error")
    return Verdict(not violations, message, violations, observations, len(buf))
