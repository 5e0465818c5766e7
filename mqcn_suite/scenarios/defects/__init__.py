"""The one catalogue of named defects: every way this suite breaks a message on purpose.

The feature files name defects ("a Version 0x01 message with Command 0xFF"), the hypothesis
strategies (:func:`mqcn_suite.strategies.defective_messages`) and the Spark generators
(:func:`mqcn_suite.pipeline.generators.defective_message`) draw them: all from here.  Each
member says what it breaks, and ``tests/test_defects.py`` holds it to that: built, every
member is judged by :func:`mqcn_model.judge.judge` to break exactly its requirement (and the
``collateral`` it declares); a member with an ``errata`` item is admitted by the other reading
of that item, and one without is refused by every single reading.

Three tables (types in :mod:`.catalogue`, members by family in the other modules):

* :data:`DEFECTS` -- :class:`Defect`, ``build(ids) -> bytes``, in the families
  ``version-0x01`` (structure, 2.2.2 / 2.2.4 / 2.2.6: :mod:`.version_0x01`),
  ``version-0x02`` (2.2.4 / 2.2.5: :mod:`.version_0x02`), ``body`` (what a queue manager
  meets on its queue, 3.2.5: :mod:`.bodies`) and ``content`` (well-formed Version 0x01
  messages breaking a content rule of 3.3.5.2: :mod:`.content`);
* :data:`VALUE_DEFECTS` -- :class:`ValueDefect` (2.2.3: :mod:`.value_defects`), applied to the
  carrier of any PROPID whose type it applies to; :func:`every_defect` adds each on the
  sample carrier of each such type, as a ``value`` Defect;
* :data:`ACCEPTABLE_FORMS` -- :class:`AcceptableForm`: odd but conforming Version 0x02 bodies
  a strict reader must still act on (errata E-02, E-03).

A member a sender can commit on any message of its kind is written once, as a
transformation of the conforming body (:class:`Twisted`, :mod:`.twists`; ``Defect.apply``):
its ``build`` applies it to the member's conforming twin, and the faulty client
``zoo:sends:<member>`` applies it to the message it was asked to send, so that a scenario
sees only that defect.  ``sender_collateral`` names what the sending side's rules see besides
(a Command 0x03 update is no Command 0x01 update; a path without its computer is not the
queue's path); for an errata member, what breaks under every reading.

An unknown name is an :class:`UnknownDefectError` naming the known ones:

>>> DEFECTS.named("Command 0x03", "version-0x01").requirement
'MQCN-2.2.6-1'
>>> try:
...     DEFECTS.named("Comand 0x03", "version-0x01")
... except UnknownDefectError as exc:
...     print(str(exc)[:53])
no version-0x01 defect 'Comand 0x03' (known: 'Version
"""

from __future__ import annotations

from mqcn_suite.scenarios.defects import (
    bodies,
    content,
    value_defects,
    version_0x01,
    version_0x02,
)
from mqcn_suite.scenarios.defects.catalogue import (
    FAMILIES,
    AcceptableForm,
    Catalogue,
    Defect,
    Family,
    Twisted,
    UnknownDefectError,
    ValueDefect,
)
from mqcn_suite.scenarios.fixtures import SENTINEL_QUOTA, ScenarioIds
from mqcn_suite.scenarios.messages import quota_change, v1_body

__all__ = [
    "ACCEPTABLE_FORMS",
    "DEFECTS",
    "FAMILIES",
    "VALUE_CARRIERS",
    "VALUE_DEFECTS",
    "AcceptableForm",
    "Catalogue",
    "Defect",
    "Family",
    "Twisted",
    "UnknownDefectError",
    "ValueDefect",
    "alternating_stream",
    "defect_version",
    "every_defect",
    "sent_by_clients",
    "version_0x02_body",
]

DEFECTS: Catalogue[Defect] = Catalogue(
    "defect", [*version_0x01.MEMBERS, *version_0x02.MEMBERS, *bodies.MEMBERS, *content.MEMBERS]
)
VALUE_DEFECTS: Catalogue[ValueDefect] = Catalogue("value defect", value_defects.MEMBERS)
VALUE_CARRIERS = value_defects.CARRIERS
ACCEPTABLE_FORMS: Catalogue[AcceptableForm] = Catalogue("acceptable form", version_0x02.FORMS)


def every_defect() -> tuple[Defect, ...]:
    """The whole catalogue as Defects: :data:`DEFECTS`, then every value defect on the
    sample carrier of every VT it applies to (named e.g. "PROPID_Q_QUOTA with one byte short").

    >>> len(every_defect()) == len(DEFECTS) + sum(len(d.breaks) for d in VALUE_DEFECTS.values())
    True
    """
    return (*DEFECTS.values(), *value_defects.carried(tuple(VALUE_DEFECTS.values())))


# The families whose members are whole messages a client emits, by the Version of the client
# that sends that kind of message (a directory service 0x01, a queue manager 0x02).  The
# ``body`` family is what a damaged queue holds, no message a client prepares.
CLIENT_FAMILIES: dict[str, int] = {"version-0x01": 1, "content": 1, "value": 1, "version-0x02": 2}


def defect_version(defect: Defect) -> int | None:
    """The Version of the client whose message ``defect`` is a broken twin of (None: no
    client sends that kind of message).

    >>> defect_version(DEFECTS["a GUID in braces"]), defect_version(DEFECTS["an empty body"])
    (2, None)
    """
    return CLIENT_FAMILIES.get(defect.family)


def sent_by_clients() -> tuple[Defect, ...]:
    """Every member a client can send in place of a conforming message (:data:`CLIENT_FAMILIES`)."""
    return tuple(d for d in every_defect() if d.family in CLIENT_FAMILIES)


def version_0x02_body(name: str, ids: ScenarioIds) -> bytes:
    """The Version 0x02 body a feature names: a ``version-0x02`` defect or an acceptable form."""
    if name in ACCEPTABLE_FORMS:
        return ACCEPTABLE_FORMS[name].build(ids)
    if name in DEFECTS and DEFECTS[name].family == "version-0x02":
        return DEFECTS[name].build(ids)
    forms = "; ".join(repr(n) for n in ACCEPTABLE_FORMS)
    message = DEFECTS.unknown(name, "version-0x02")
    raise UnknownDefectError(f"{message}, nor an acceptable form (known: {forms})")


def alternating_stream(ids: ScenarioIds, count: int) -> list[tuple[bytes, int | None]]:
    """``count`` bodies alternating a Quota change (the n-th to SENTINEL_QUOTA + n) and a
    ``body`` defect, with the Quota each should leave (None: the message is disregarded)."""
    malformed = DEFECTS.of("body")
    stream: list[tuple[bytes, int | None]] = []
    for n in range(count):
        if n % 2:
            stream.append((malformed[(n // 2) % len(malformed)].build(ids), None))
        else:
            stream.append((v1_body(quota_change(ids, SENTINEL_QUOTA + n)), SENTINEL_QUOTA + n))
    return stream
