"""Which errata readings explain what a queue manager did: the one comparison, shared.

A server's outcome is judged against the reference model's outcome *under some reading* of
the errata items involved, never under the suite's reading alone (docs/errata.md: every
reading passes).  Two pieces live here, used by the scenarios (``World``) and by the
differential fuzzer (``mqcn fuzz``) alike:

* :func:`state_fits` -- is an observed queue-manager state the one the reference reached, up
  to the defaults of a queue it creates (errata E-19)?
* :func:`search_readings` -- which combinations of readings of the behavioural switches give
  an outcome that fits?  It varies only the switches that change the reference's outcome for
  the case at hand, so it costs a few reference runs, not one per combination of every
  switch.

Sans-IO: the caller hands in how to reach an outcome under given readings (a callback that
runs its reference) and how to compare it with what it observed.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from mqcn_model.adm import Queue
from mqcn_model.errata import READING_SEPARATOR, STRICT, SWITCHES, Readings, Switch


def state_fits(observed: dict[str, Any], expected: dict[str, Any], before: dict[str, Any]) -> bool:
    """Is ``observed`` the queue manager state ``expected`` (what the reference reaches),
    up to the defaults Set Queue Defaults gives (errata E-19)?

    In a queue the reference created or changed, an attribute holding the suite's default
    may hold any value: the defaults are not MS-MQCN's to say — except the queue's earlier
    value where that was no default (a queue made afresh from defaults does not keep it; that
    is what tells replacing a queue from merging into it, E-24).  Every other attribute,
    every queue and the queue manager must match.

    >>> default = Queue.with_defaults(uuid.UUID(int=1)).to_json()
    >>> made = {"queue_manager": {}, "queues": {"q": default | {"Label": "x"}}}
    >>> other = {"queue_manager": {}, "queues": {"q": default | {"Label": "x", "Quota": 0}}}
    >>> kept = {"queue_manager": {}, "queues": {"q": default | {"Label": "x", "Quota": 9}}}
    >>> empty = {"queue_manager": {}, "queues": {}}
    >>> state_fits(other, made, empty), state_fits(other, made, made), state_fits(kept, made, kept)
    (True, False, False)
    """
    if observed.get("queue_manager") != expected.get("queue_manager"):
        return False
    queues, wanted = observed.get("queues", {}), expected.get("queues", {})
    if queues.keys() != wanted.keys():
        return False
    default = Queue.with_defaults(uuid.UUID(int=0)).to_json()
    for guid, queue in wanted.items():
        earlier = before.get("queues", {}).get(guid)
        made = earlier != queue
        for name, value in queue.items():
            got = queues[guid].get(name)
            if got == value:
                continue
            kept = earlier is not None and got == earlier.get(name) != default.get(name)
            if not (made and name != "Identifier" and value == default.get(name) and not kept):
                return False
    return True


BEHAVIOURAL: tuple[Switch, ...] = tuple(s for s in SWITCHES if not s.judging_only)
"""The switches an implementation chooses between (the others change only how bytes are
judged): the ones a differential comparison varies."""


def combinations(switches: Sequence[Switch], base: Readings = STRICT) -> list[Readings]:
    """Every combination of the readings of ``switches``, the rest as in ``base``; ``base``'s
    own choice first (so the suite's readings come first from ``STRICT``).

    >>> from mqcn_model.errata import SWITCH_OF
    >>> [r.reading_of("E-24") for r in combinations([SWITCH_OF["E-24"]])]
    ['keep', 'replace', 'merge', 'disregard']
    >>> len(combinations([SWITCH_OF["E-12"], SWITCH_OF["E-24"]]))
    8
    """
    per_switch = [
        sorted(s.names, key=lambda name, s=s: name != base.reading_of(s.errata)) for s in switches
    ]
    found = []
    for names in itertools.product(*per_switch):
        readings = base
        for switch, name in zip(switches, names, strict=True):
            readings = readings.with_reading(switch.errata, name)
        found.append(readings)
    return found


@dataclass(frozen=True)
class Fit:
    """What :func:`search_readings` found: the combinations of readings whose outcome fits,
    and the switches that changed the reference's outcome (the ones involved in the case)."""

    fitting: tuple[Readings, ...]
    involved: tuple[Switch, ...]

    def followed(self) -> dict[str, str]:
        """Per involved switch whose readings the outcome tells apart, the readings that fit
        (several joined by ``|``, as a scenario's check records them): ``{"E-24": "replace"}``.
        A switch whose every reading fits, or none does, names nothing."""
        seen: dict[str, str] = {}
        for switch in self.involved:
            names = {r.reading_of(switch.errata) for r in self.fitting}
            if names and len(names) < len(switch.names):
                seen[switch.errata] = READING_SEPARATOR.join(n for n in switch.names if n in names)
        return seen


def search_readings(
    outcome: Callable[[Readings], Hashable],
    fits: Callable[[Readings], bool],
    switches: Sequence[Switch] = BEHAVIOURAL,
    base: Readings = STRICT,
) -> Fit:
    """The combinations of readings of ``switches`` under which the reference's outcome fits.

    ``outcome(readings)`` is the reference's outcome following ``readings`` (anything
    comparable: two equal outcomes cannot be told apart); ``fits(readings)`` says whether the
    observed outcome fits the reference's under ``readings``.  Both may be called several
    times with the same readings: cache in the caller where runs are dear.

    A switch is involved when flipping it, from ``base`` or from a combination of the
    switches already involved, changes the reference's outcome; only the combinations of the
    involved switches are compared (a switch the case never consults changes nothing).  The
    search widens until no further switch changes anything, so two switches that matter only
    together (E-14 under a disregarding E-24 reading) are both found.
    """
    involved: list[Switch] = []
    combos = [base]
    while not (fitting := [c for c in combos if fits(c)]):
        more = [
            switch
            for switch in switches
            if switch not in involved
            and any(
                outcome(combo.with_reading(switch.errata, name)) != outcome(combo)
                for combo in combos
                for name in switch.names
                if name != combo.reading_of(switch.errata)
            )
        ]
        if not more:
            break
        involved += more
        combos = combinations(involved, base)
    return Fit(tuple(fitting), tuple(s for s in switches if s in involved))
