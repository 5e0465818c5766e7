"""The readings this suite takes where MS-MQCN is inconsistent or silent (docs/errata.md).

Each switchable item is a field of :class:`Readings`.  ``STRICT`` is the default everywhere;
``LENIENT`` accepts every reading an implementation may reasonably take.  A caller can also
flip single items: ``dataclasses.replace(STRICT, trailing_data=True)``.

>>> LENIENT.objectguid_close_with_space, STRICT.objectguid_close_with_space
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, fields


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

# Errata IDs and the Readings field that switches each (None: a fixed reading, no switch).
ERRATA_SWITCHES: dict[str, str | None] = {
    "E-01": "objectguid_close_with_space",
    "E-02": None,
    "E-03": None,
    "E-04": None,
    "E-05": "trailing_data",
    "E-06": None,
    "E-07": "lone_surrogates",
    "E-08": None,
    "E-09": None,
    "E-10": "pathname_msmq10_charset",
    "E-11": "extra_update_propids",
    "E-12": None,
    "E-13": "shallow_value_checks",
    "E-14": "disregard_whole_message",
    "E-15": None,
    "E-16": None,
    "E-17": None,
    "E-18": None,
    "E-19": None,
    "E-20": None,
    "E-21": None,
    "E-22": None,
    "E-23": None,
    "E-24": None,
}
