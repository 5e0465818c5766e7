"""``docs/mutation-equivalents.yaml``: mutants documented as equivalent or unreachable.

Some mutants cannot be killed by any scenario, and then they say nothing about the suite:

* **equivalent** — the mutated program behaves exactly like the original (for example
  ``x >= 0`` -> ``x > 0`` where ``x`` is never 0);
* **unreachable** — the mutated code cannot run through the protocol at all (a defensive
  branch no message can reach);
* **reading** — the mutant only swaps one errata reading for another (docs/errata.md): a
  target doing what it does is conforming, so no scenario may fail it.  Such an entry names
  the item in ``errata``.  (Such a mutant may instead be killed through the reference's
  reading claim, ``--mqcn-reading-claims=fail``; never by a scenario demanding one reading.)

Each is listed once, by its stable ID, with the reason::

    mutants:
      - id: "batching.py:BatchScheduler.due:CompareSwap:2@414e01"
        kind: equivalent
        reason: "due() is never called with now equal to the deadline"
      - id: "server.py:NotificationServer._v1_delete_queue:CompareSwap:1@000000"
        kind: reading
        errata: E-12
        reason: "honours a deletion naming no object type: the letter of 3.2.5.1"

Listed mutants are not run and are left out of the score.  An ID that no longer names a
generated mutant (its line changed or went away) is reported as *stale*, with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mqcn_model.errata import SWITCH_OF

KINDS = ("equivalent", "unreachable", "reading")


class EquivalentsError(Exception):
    """The equivalents file is unreadable or malformed; the message is one line."""


@dataclass(frozen=True, slots=True)
class Documented:
    """One documented mutant."""

    id: str
    kind: str
    reason: str
    errata: str | None = None  # the errata item (E-nn) of a ``reading`` mutant


def load_equivalents(path: Path) -> dict[str, Documented]:
    """The documented mutants of ``path`` by ID (none when the file does not exist)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise EquivalentsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise EquivalentsError(f"{path}: not valid YAML{where}") from None
    return parse_equivalents(document, str(path))


def parse_equivalents(document: Any, source: str) -> dict[str, Documented]:
    """Validate the parsed YAML ``document`` (``source`` names it in error messages)."""
    if document is None:
        return {}
    if not isinstance(document, dict) or set(document) - {"mutants", "mutmut"}:
        raise EquivalentsError(
            f"{source}: expected a mapping with the keys 'mutants' (and 'mutmut': "
            "mqcn_suite/selftest/mutmut_engine.py)"
        )
    entries = document.get("mutants") or []
    if not isinstance(entries, list):
        raise EquivalentsError(f"{source}: 'mutants' must be a list")
    found: dict[str, Documented] = {}
    for number, entry in enumerate(entries, 1):
        where = f"{source}: entry {number}"
        if not isinstance(entry, dict):
            raise EquivalentsError(f"{where}: expected a mapping with id, kind and reason")
        unknown = set(entry) - {"id", "kind", "reason", "errata"}
        if unknown:
            raise EquivalentsError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        identifier, kind, reason = entry.get("id"), entry.get("kind"), entry.get("reason")
        if not isinstance(identifier, str) or not identifier.strip():
            raise EquivalentsError(f"{where}: 'id' must be a mutant ID (a string)")
        if kind not in KINDS:
            raise EquivalentsError(f"{where} ({identifier}): 'kind' must be one of {KINDS}")
        if not isinstance(reason, str) or not reason.strip():
            raise EquivalentsError(f"{where} ({identifier}): 'reason' must say why")
        errata = entry.get("errata")
        if kind == "reading" and errata not in SWITCH_OF:
            raise EquivalentsError(
                f"{where} ({identifier}): a 'reading' mutant names its errata item, "
                f"a switchable one ({', '.join(SWITCH_OF)}), not {errata!r}"
            )
        if kind != "reading" and errata is not None:
            raise EquivalentsError(f"{where} ({identifier}): 'errata' is for kind 'reading' only")
        if identifier in found:
            raise EquivalentsError(f"{where}: {identifier} is listed twice")
        found[identifier] = Documented(identifier, kind, reason.strip(), errata)
    return found
