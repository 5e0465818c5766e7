"""The readings this suite takes where MS-MQCN is inconsistent or silent (docs/errata.md).

Each switchable item is a field of :class:`Readings`.  ``STRICT`` is the default everywhere;
``LENIENT`` accepts every reading an implementation may reasonably take.  A caller can also
flip single items: ``dataclasses.replace(STRICT, trailing_data=True)``.

>>> LENIENT.objectguid_close_with_space, STRICT.objectguid_close_with_space
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True, slots=True)
class Readings:
    """Which errata readings are accepted (True = the lenient reading is accepted)."""

    objectguid_close_with_space: bool = False  # E-01: "</ObjectGuid >" as the ABNF spells it
    trailing_data: bool = False  # E-05: bytes after the last update beyond the spare byte
    lone_surrogates: bool = False  # E-07: unpaired UTF-16 surrogates in VT_LPWSTR / PathName
    pathname_msmq10_charset: bool = False  # E-10: MSMQ 1.0 QueueName characters (+ , ")
    extra_update_propids: bool = False  # E-11: PROPIDs beyond the lists of 3.3.5.2
    shallow_value_checks: bool = False  # E-13: only the wire type of BLOB/URL/address values
    disregard_whole_message: bool = False  # E-14: a v1 disregard also undoes earlier updates

    @property
    def is_strict(self) -> bool:
        return self == STRICT

    def describe(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


STRICT = Readings()
LENIENT = Readings(**{f.name: True for f in fields(Readings)})


@dataclass(frozen=True, slots=True)
class Switch:
    """One errata item where implementations may reasonably differ (docs/errata.md).

    ``strict`` and ``lenient`` say in a phrase what an implementation following each reading
    does; the report names the one a target was seen to follow.  ``judging_only`` switches
    change only how the suite judges bytes a sender took from its directory: no conforming
    implementation chooses between them, so no scenario can observe which one it follows
    (docs/errata.md says why for each).
    """

    errata: str
    field: str
    topic: str
    strict: str
    lenient: str
    judging_only: bool = False

    @property
    def readings(self) -> Readings:
        """The strict readings with this one item flipped."""
        return following(self.errata)


SWITCHES: tuple[Switch, ...] = (
    Switch(
        "E-01",
        "objectguid_close_with_space",
        "</ObjectGuid > in the ABNF vs </ObjectGuid> in the template (2.2.5)",
        "only </ObjectGuid> closes the GUID element",
        "</ObjectGuid > as the ABNF spells it is accepted (and may be sent)",
    ),
    Switch(
        "E-05",
        "trailing_data",
        "bytes after the announced updates beyond the spare byte (2.2.4, 3.3.5.3)",
        "at most the one spare byte follows the structure",
        "more bytes after the announced updates are ignored (and may be sent)",
    ),
    Switch(
        "E-07",
        "lone_surrogates",
        "unpaired UTF-16 surrogates in VT_LPWSTR and PathName (2.2.3.10, 2.2.6)",
        "a lone surrogate makes the string malformed",
        "any 16-bit unit is a character, as the glossary says",
    ),
    Switch(
        "E-10",
        "pathname_msmq10_charset",
        'QueueName character set of MSMQ 1.0 (+ , ") in path names (2.2.6, [MS-MQMQ] 2.1.1)',
        "QueueName uses the MSMQ 2.0 and later set",
        'the MSMQ 1.0 set (with + , ") is accepted',
        judging_only=True,
    ),
    Switch(
        "E-11",
        "extra_update_propids",
        "properties beyond the lists of 3.3.5.2 (note <11>)",
        "an update carries only the listed PROPIDs",
        "other known PROPIDs may ride along (the server ignores them)",
    ),
    Switch(
        "E-13",
        "shallow_value_checks",
        "depth of [MS-MQMQ] checks of descriptors, addresses, URLs (3.3.5.2)",
        "the outer structure of each value is checked",
        "only the wire type of those values is checked",
        judging_only=True,
    ),
    Switch(
        "E-14",
        "disregard_whole_message",
        "what disregarding a Version 0x01 message undoes (3.2.5.1)",
        "updates before the disregarded one stay applied",
        "none of the message's updates stays applied (all or nothing)",
    ),
)
SWITCH_OF: dict[str, Switch] = {s.errata: s for s in SWITCHES}
READING_NAMES = ("strict", "lenient")


def following(*errata: str) -> Readings:
    """The strict readings with the named errata items flipped to their other reading.

    >>> following("E-07").lone_surrogates, following("E-07").trailing_data
    (True, False)
    """
    flips = {}
    for errata_id in errata:
        if errata_id not in SWITCH_OF:
            raise ValueError(
                f"{errata_id!r} is not a switchable errata item; one of {', '.join(SWITCH_OF)}"
            )
        flips[SWITCH_OF[errata_id].field] = True
    return replace(STRICT, **flips)


def followed(readings: Readings) -> dict[str, str]:
    """Which reading ``readings`` takes for every switch: ``{"E-01": "strict", ...}``."""
    return {s.errata: "lenient" if getattr(readings, s.field) else "strict" for s in SWITCHES}


# Errata IDs and the Readings field that switches each (None: a fixed reading, no switch).
ERRATA_SWITCHES: dict[str, str | None] = {
    **{f"E-{n:02d}": None for n in range(1, 25)},
    **{s.errata: s.field for s in SWITCHES},
}
