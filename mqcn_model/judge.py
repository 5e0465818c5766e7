"""Judge one message body against every requirement checkable from its bytes alone.

This is what ``mqcn decode``, the reference vectors and the Spark audit all call.

>>> verdict = judge(bytes.fromhex("0300"))
>>> verdict.conforming, [v.requirement for v in verdict.violations]
(False, ['MQCN-2.2.4-1'])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mqcn_model.codec.message import ChangeNotificationMessage, decode_message
from mqcn_model.errata import STRICT, SWITCHES, Readings, Switch
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
    def decoded(self) -> ChangeNotificationMessage | DecodeError:
        """What ``decode_message`` gave for the same bytes and readings: the message or its error.

        Hand it to :meth:`mqcn_model.server.NotificationServer.deliver` so that the server does
        not decode the body a second time.
        """
        if self.message is not None:
            return self.message
        return DecodeError(self.violations[0])

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


def errata_admitting(buf: bytes) -> tuple[Switch, ...]:
    """The errata switches that alone make ``buf`` decodable where the strict readings do not.

    A receiver following such a reading processes the message; one following the strict
    reading disregards it.  Both are correct (docs/errata.md), so a scenario that delivers
    ``buf`` accepts either outcome and records which reading the target followed.

    >>> from mqcn_model.builders import v2_notification
    >>> from mqcn_model.codec.message import body_buffer
    >>> import uuid
    >>> good = body_buffer(v2_notification(2, uuid.UUID(int=1), "dc"))
    >>> errata_admitting(good)
    ()
    >>> tag, abnf = "</ObjectGuid>".encode("utf-16-le"), "</ObjectGuid >".encode("utf-16-le")
    >>> spaced = good.replace(tag, abnf)
    >>> [s.errata for s in errata_admitting(spaced)]
    ['E-01']
    """
    try:
        decode_message(buf, STRICT)
        return ()
    except DecodeError:
        pass
    admitting = []
    for switch in SWITCHES:
        try:
            decode_message(buf, switch.flipped)
        except DecodeError:
            continue
        admitting.append(switch)
    return tuple(admitting)


def explain_by_errata(
    violations_under: Callable[[Readings], list[Violation]], base: Readings = STRICT
) -> tuple[list[Violation], Switch | None]:
    """Split what a sender broke into what the strict readings find and the switch excusing it.

    ``violations_under(readings)`` judges the same bytes under ``readings``.  Returns the
    violations found under ``base`` (the strict readings, or those already needed to read the
    bytes at all) and the one further errata switch under whose other reading none remain
    (None when the violations stand under every single reading, or when there are none).  A
    sender whose message only one reading admits gets a warning naming that errata item,
    never a failure (docs/errata.md).
    """
    strict = violations_under(base)
    if not strict:
        return strict, None
    for switch in SWITCHES:
        if base.reading_of(switch.errata) != switch.suite:
            continue
        for name in switch.others:
            if not violations_under(base.with_reading(switch.errata, name)):
                return strict, switch
    return strict, None
