"""Per-requirement verdicts over the whole catalog, and the traceability document.

Every catalog entry gets exactly one verdict:

``untestable``      the catalog says no black-box test can judge it;
``error``           a scenario tagged with it could not run because the target broke
                    (the test failed with :class:`~mqcn_suite.targets.TargetError`);
``fail``            a world check for it failed, or a scenario tagged with it failed without
                    the failure being attributed to another requirement;
``claim-fail``      a product-behaviour note broken in a product profile the target claims
                    (its PICS), or a scenario of a part the target claims in which a call
                    that part needs answered ``not-implemented`` (claimed but not
                    implemented): shown apart from the MUSTs, counted in the exit code;
``warning``         a SHOULD / SHOULD NOT was not met;
``info``            a MAY / product-behaviour note: the target behaves otherwise (informational);
``pass``            every scenario tagged with it that ran passed, and in at least one of
                    them the target acted (a message processed, an initialisation, a client's
                    send): a scenario that judged only the suite's own codec or model is
                    credited to nobody (``suite_own`` in the document);
``not applicable``  its scenarios were skipped as not applicable to the target (PICS);
``inconclusive``    testable, but nothing judged it: none of its scenarios ran (deselected,
                    skipped, no scenario), or every one that ran was *stopped* by another
                    requirement -- the scenario stopped on that requirement's failure before
                    judging it, or the message it needed could not be read because that
                    requirement was broken.  Then ``stopped_by`` names those requirements and
                    the report shows ``inconclusive (stopped by MQCN-…)``; or the only
                    scenarios that passed were ones in which the target did nothing.

The first that applies wins, in that order (after ``untestable``): a requirement's verdict
is the worst real judgement any scenario made of it, so one that passed in a scenario and was
stopped in another passes (the stop is no evidence against it), and ``stopped`` shows only
where nothing judged it.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import Any

from mqcn_model.catalog import CATALOG, KEYWORDS, Requirement
from mqcn_model.catalog import requirement as catalog_entry
from mqcn_model.errata import READING_SEPARATOR, SWITCHES, Switch
from mqcn_model.judge import judge
from mqcn_suite.coverage import Coverage, ScenarioRef
from mqcn_suite.locations import replay_arguments
from mqcn_suite.report.results import ItemResult

SCHEMA_ID = "mqcn-traceability/1"
VERDICTS = (
    "pass",
    "fail",
    "claim-fail",
    "warning",
    "info",
    "inconclusive",
    "not applicable",
    "error",
    "untestable",
)
# Precedence when a requirement collected several contributions (first wins).
_PRECEDENCE = (
    "error",
    "fail",
    "claim-fail",
    "warning",
    "info",
    "pass",
    "stopped",
    "not applicable",
    "suite-own",  # passed without the target doing anything: no evidence about the target
)
NOT_APPLICABLE_PREFIX = "not applicable"
_RAN = ("passed", "failed", "error")
# Summary keys of the verdicts (JSON-friendly spelling).
SUMMARY_KEY = {
    "pass": "passed",
    "fail": "failed",
    "claim-fail": "claim_failed",
    "warning": "warning",
    "info": "info",
    "inconclusive": "inconclusive",
    "not applicable": "not_applicable",
    "error": "error",
    "untestable": "untestable",
}


# The [MS-MQDMPR] 3.1.1.12 names of the envelope's attributes, in the report's order.
ENVELOPE_FIELDS = {
    "message_id": "Identifier (PROPID_M_MSGID)",
    "sender_identifier": "SenderIdentifier",
    "sender_identifier_type": "SenderIdentifierType",
    "authentication_level": "AuthenticationLevel",
    "hash_algorithm": "HashAlgorithm",
    "time_to_reach_queue": "TimeToReachQueue",
    "delivery_guarantee": "DeliveryGuarantee",
    "message_class": "Class",
    "destination_format_name": "DestinationQueueFormatName",
    "arrival_time": "ArrivalTime",
}


def replay_command(nodeid: str, target: str, options: Mapping[str, str] | None = None) -> str:
    """One shell line that re-runs exactly this scenario (from the repository root, or from
    anywhere for an installed wheel: :func:`~mqcn_suite.locations.replay_arguments`), with
    every option that shaped the run (time limit, PICS, claims)."""
    where = " ".join(map(shlex.quote, replay_arguments(nodeid)))
    parts = [f"pytest {where} --mqcn-target={shlex.quote(target)}"]
    parts += [f"{name}={shlex.quote(value)}" for name, value in (options or {}).items()]
    return " ".join(parts)


def decode_command(message_hex: str) -> str | None:
    """One shell line that judges the message under test on its own, if there is one."""
    return f"mqcn decode --hex {message_hex}" if message_hex else None


@cache
def _judge_sees(message_hex: str) -> frozenset[str]:
    """The requirements the judge finds broken in the bytes alone."""
    try:
        return frozenset(judge(bytes.fromhex(message_hex)).requirements)
    except ValueError:
        return frozenset()


def envelope_fields(envelope: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Every attribute of a delivered envelope, by its [MS-MQDMPR] name (the body apart)."""
    if not envelope:
        return []
    return [
        {"name": name, "value": envelope.get(key)}
        for key, name in ENVELOPE_FIELDS.items()
        if key in envelope
    ]


def _delivered(item: ItemResult) -> dict[str, Any] | None:
    """The envelope that carried the message under test (the last one with its body)."""
    sent = item.world.get("sent", [])
    for envelope in reversed(sent):
        if envelope.get("body") == item.message_hex:
            return envelope
    return sent[-1] if sent else None


@dataclass
class _Evidence:
    """What the items said about one requirement."""

    contributions: list[str] = field(default_factory=list)
    items: list[ItemResult] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    stopped_by: list[str] = field(default_factory=list)  # the requirements that stopped it

    def stop(self, by: Iterable[str]) -> None:
        """A scenario could not judge this requirement because ``by`` broke."""
        self.contributions.append("stopped")
        self.stopped_by.extend(rid for rid in by if rid not in self.stopped_by)

    def add_failure(self, failure: dict[str, Any]) -> None:
        """Record a failure once (hypothesis replays a failing example several times)."""
        key = (failure["nodeid"], failure["kind"], failure["message"])
        if all((f["nodeid"], f["kind"], f["message"]) != key for f in self.failures):
            self.failures.append(failure)


def _failure(
    item: ItemResult,
    message: str,
    target: str,
    kind: str,
    *,
    requirement: str | None = None,
    check: Mapping[str, Any] | None = None,
    options: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """One failing scenario of a requirement, with what explains it: the envelope delivered
    (every attribute), the attribute-by-attribute diff the check recorded, the replay
    command; and the judge-alone command only where the bytes are what failed."""
    bytes_failed = (
        kind in ("check", "claim", "scenario")
        and requirement is not None
        and bool(item.message_hex)
        and requirement in _judge_sees(item.message_hex)
    )
    envelope = _delivered(item) if kind != "target-error" else None
    return {
        "scenario": item.scenario or item.name,
        "nodeid": item.nodeid,
        "kind": kind,
        "message": message,
        "message_hex": item.message_hex,
        "envelope": envelope_fields(envelope),
        "diff": list((check or {}).get("diff", [])),
        "replay": replay_command(item.nodeid, target, options),
        "decode": decode_command(item.message_hex) if bytes_failed else None,
    }


def _gather(
    results: Iterable[ItemResult], target: str, options: Mapping[str, str] | None = None
) -> dict[str, _Evidence]:
    """Fold every item's outcome and world checks into per-requirement evidence."""
    evidence: dict[str, _Evidence] = {}

    def of(rid: str) -> _Evidence:
        return evidence.setdefault(rid, _Evidence())

    for item in results:
        checks = [c for c in item.checks if c.get("requirement") in CATALOG]
        attributed = any(c.get("verdict") in ("fail", "claim-fail") for c in checks)
        acted = item.target_acted
        involved = list(dict.fromkeys([*item.requirements, *(c["requirement"] for c in checks)]))
        for rid in involved:
            ev = of(rid)
            ev.items.append(item)
            if item.outcome == "skipped":
                na = item.failure.lower().startswith(NOT_APPLICABLE_PREFIX)
                ev.contributions.append("not applicable" if na else "skipped")
                continue
            own = [c for c in checks if c["requirement"] == rid]
            seen_notes = set()
            for check in own:
                verdict = check.get("verdict")
                if verdict in ("fail", "claim-fail"):
                    ev.contributions.append(verdict)
                    kind = "check" if verdict == "fail" else "claim"
                    ev.add_failure(
                        _failure(
                            item,
                            f"{rid}: {check.get('message', '')}",
                            target,
                            kind,
                            requirement=rid,
                            check=check,
                            options=options,
                        )
                    )
                elif verdict in ("warning", "info"):
                    ev.contributions.append(verdict)
                    key = (verdict, check.get("message", ""))
                    if key not in seen_notes:  # hypothesis may repeat a check many times
                        seen_notes.add(key)
                        ev.notes.append(
                            {
                                "scenario": item.scenario or item.name,
                                "nodeid": item.nodeid,
                                "verdict": verdict,
                                "message": check.get("message", ""),
                            }
                        )
                elif verdict == "pass":
                    credited = acted and check.get("target_acted", True)
                    ev.contributions.append("pass" if credited else "suite-own")
                elif verdict == "stopped":
                    ev.stop(check.get("stopped_by", []))
            if rid not in item.requirements:
                continue  # checked in passing by a scenario not tagged with it
            if item.outcome == "passed":
                ev.contributions.append("pass" if acted else "suite-own")
            elif item.claim_missing:
                ev.contributions.append("claim-fail")
                ev.add_failure(
                    _failure(item, f"{rid}: {item.failure}", target, "claim", options=options)
                )
            elif item.target_error:
                ev.contributions.append("error")
                ev.add_failure(
                    _failure(item, item.failure, target, "target-error", options=options)
                )
            elif not attributed:
                ev.contributions.append("fail")
                ev.add_failure(
                    _failure(
                        item, item.failure, target, "scenario", requirement=rid, options=options
                    )
                )
            elif not any(c.get("verdict") in ("pass", "stopped") for c in own):
                # the scenario stopped on another requirement's failure before it judged this
                # one: it is no evidence that this one passed
                ev.stop(_failed_in(item, rid))
    return evidence


def _failed_in(item: ItemResult, rid: str) -> list[str]:
    """The requirements other than ``rid`` that failed in ``item`` (what stopped it there)."""
    return sorted(
        {
            c["requirement"]
            for c in item.checks
            if c.get("verdict") in ("fail", "claim-fail") and c.get("requirement") != rid
        }
    )


def stopped_by_of(requirement: Requirement, evidence: _Evidence | None) -> list[str]:
    """The requirements that stopped ``requirement`` where its verdict is inconclusive because
    every scenario that ran was stopped (empty otherwise)."""
    if evidence is None or verdict_of(requirement, evidence) != "inconclusive":
        return []
    if "stopped" not in evidence.contributions:
        return []
    return sorted(evidence.stopped_by)


def verdict_label(entry: Mapping[str, Any]) -> str:
    """A requirement's verdict as the report, JUnit, cucumber and the terminal show it:
    ``inconclusive (stopped by MQCN-2.2.5-7)`` where another requirement stopped it.

    >>> verdict_label({"verdict": "inconclusive", "stopped_by": ["MQCN-2.2.5-7"]})
    'inconclusive (stopped by MQCN-2.2.5-7)'
    >>> verdict_label({"verdict": "pass", "stopped_by": []})
    'pass'
    """
    stoppers = entry.get("stopped_by") or []
    if entry["verdict"] == "inconclusive" and stoppers:
        return f"inconclusive (stopped by {', '.join(stoppers)})"
    return str(entry["verdict"])


def inconclusive_cause(entry: Mapping[str, Any]) -> str:
    """Why nothing judged an ``inconclusive`` requirement of the document, in a few words:
    ``stopped by MQCN-…`` (another requirement broke first), ``no scenario`` (none is tagged
    with it), ``its scenarios were not selected`` (none of them ran: deselected, or not
    collected), ``its scenarios were skipped``, or ``none of its scenarios judged it``.

    >>> inconclusive_cause({"stopped_by": [], "scenarios": []})
    'no scenario'
    >>> not_run = {"tagged": True, "outcome": "not run"}
    >>> inconclusive_cause({"stopped_by": [], "scenarios": [not_run]})
    'its scenarios were not selected'
    """
    if entry.get("stopped_by"):
        return f"stopped by {', '.join(entry['stopped_by'])}"
    outcomes = {s["outcome"] for s in entry.get("scenarios", []) if s.get("tagged")}
    if not outcomes:
        return "no scenario"
    if outcomes == {"not run"}:
        return "its scenarios were not selected"
    if outcomes <= {"skipped", "not run"}:
        return "its scenarios were skipped"
    if entry.get("scenarios") and not any(
        s.get("target_acted") for s in entry["scenarios"] if s["outcome"] == "passed"
    ):
        return "the target did nothing in its scenarios (only the suite's own checks ran)"
    return "none of its scenarios judged it"


def verdict_of(requirement: Requirement, evidence: _Evidence | None) -> str:
    """The one verdict of ``requirement`` given what the items said about it."""
    if not requirement.testable:
        return "untestable"
    contributions = set(evidence.contributions) if evidence else set()
    for verdict in _PRECEDENCE:
        if verdict in contributions:
            return "inconclusive" if verdict in ("stopped", "suite-own") else verdict
    return "inconclusive"


def _read_sources(world: dict[str, Any]) -> dict[str, list[str]]:
    """``{"read_sources": [...]}``: where the scenario's Read Directory events were learnt
    (``ldap``: at the suite's LDAP server; ``target``: from the target), if it judged any."""
    sources = sorted({str(r.get("source", "target")) for r in world.get("directory_reads", [])})
    return {"read_sources": sources} if sources else {}


def published_directories(results: Iterable[ItemResult]) -> dict[str, dict[str, Any]]:
    """Node id -> what the scenario published in the directory (its ``setup.directory``
    without credentials), for ``mqcn directory serve --report``; one entry per scenario
    that published something, however many requirements list it."""
    return {
        item.nodeid: item.world["directory"]
        for item in results
        if item.world.get("directory") and item.nodeid
    }


def _scenario_entries(
    rid: str, static: list[ScenarioRef], evidence: _Evidence | None
) -> list[dict[str, Any]]:
    """The scenarios of one requirement: every item that ran, then static ones that did not."""
    entries: list[dict[str, Any]] = []
    ran: set[tuple[str | None, str | None]] = set()
    for item in evidence.items if evidence else []:
        ran.add((item.feature_path, item.template))
        stopped_by = _failed_in(item, rid)
        entries.append(
            {
                "name": item.scenario or item.name,
                "template": item.template or item.scenario or item.name,
                "feature": item.feature,
                "line": item.line,
                "outcome": item.outcome,
                "nodeid": item.nodeid,
                "tagged": rid in item.requirements,
                "duration": round(item.duration, 6),
                "stopped_by": stopped_by if item.outcome in ("failed", "error") else [],
                "target_acted": item.target_acted,
                **_read_sources(item.world),
            }
        )
    for scenario in static:
        if (scenario.path, scenario.name) not in ran:
            entries.append(
                {
                    "name": scenario.name,
                    "template": scenario.name,
                    "feature": scenario.feature,
                    "line": scenario.line,
                    "outcome": "not run",
                    "nodeid": None,
                    "tagged": True,
                    "duration": 0.0,
                    "stopped_by": [],
                }
            )
    return entries


def claimed_not_implemented(results: Iterable[ItemResult]) -> list[dict[str, Any]]:
    """Each (claim, call) a claimed part needed that the target answered ``not-implemented``,
    with the scenarios it broke and the requirements they judge, in the order first seen.

    >>> item = ItemResult("n", "n", ["MQCN-3.2.3-1"], outcome="failed",
    ...                   claim_missing={"claim": "server.v1", "call": "start_server"})
    >>> claimed_not_implemented([item])[0]["requirements"]
    ['MQCN-3.2.3-1']
    """
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for item in results:
        if not item.claim_missing:
            continue
        key = (item.claim_missing["claim"], item.claim_missing["call"])
        entry = found.setdefault(
            key, {"claim": key[0], "call": key[1], "scenarios": 0, "requirements": []}
        )
        entry["scenarios"] += 1
        entry["requirements"] += [r for r in item.requirements if r not in entry["requirements"]]
    return list(found.values())


def suite_own(results: Iterable[ItemResult]) -> list[dict[str, Any]]:
    """The scenarios that ran and in which the target did nothing: they judged only the
    suite's own codec or model, and no requirement's verdict counts them."""
    return [
        {
            "scenario": item.scenario or item.name,
            "nodeid": item.nodeid,
            "outcome": item.outcome,
            "requirements": item.requirements,
        }
        for item in results
        if item.outcome in ("passed", "failed") and not item.target_acted and not item.claim_missing
    ]


TRANSPORT_EXAMPLES = 3  # the scenarios shown, with their transcripts, for each rule


def transport_findings(results: Iterable[ItemResult]) -> list[dict[str, Any]]:
    """Each [MS-MQMQ] / [MS-MQQB] rule the target broke on its sessions in transport mode,
    in the order first seen: the rule, how often, in how many scenarios, on which sides,
    whether sessions were closed for it, and the first scenarios' findings with their
    transcripts.  Warnings: the MS-MQCN verdicts are what they are without them.

    >>> item = ItemResult("n", "n", [], scenario="s", world={"transport_findings": [
    ...     {"requirement": "MQMQ-2.2.20.4-2", "what": "AckSequenceNumber is 2", "side": "server",
    ...      "closed": False, "transcript": ["MS-MQQB session …"]}]})
    >>> [(f["requirement"], f["findings"], f["sides"]) for f in transport_findings([item])]
    [('MQMQ-2.2.20.4-2', 1, ['server'])]
    """
    found: dict[str, dict[str, Any]] = {}
    for item in results:
        seen_here: set[str] = set()
        for finding in item.world.get("transport_findings", []):
            rid = finding["requirement"]
            rule = catalog_entry(rid)
            entry = found.setdefault(
                rid,
                {
                    "requirement": rid,
                    "section": rule.section,
                    "keyword": rule.keyword,
                    "statement": rule.statement,
                    "findings": 0,
                    "scenarios": 0,
                    "sides": [],
                    "closed": 0,
                    "examples": [],
                },
            )
            entry["findings"] += 1
            entry["closed"] += bool(finding.get("closed"))
            if finding["side"] not in entry["sides"]:
                entry["sides"].append(finding["side"])
            if rid in seen_here:
                continue
            seen_here.add(rid)
            entry["scenarios"] += 1
            if len(entry["examples"]) < TRANSPORT_EXAMPLES:
                entry["examples"].append(
                    {
                        "scenario": item.scenario or item.name,
                        "nodeid": item.nodeid,
                        "what": finding["what"],
                        "side": finding["side"],
                        "transcript": finding.get("transcript", []),
                    }
                )
    return list(found.values())


def _count(verdicts: Iterable[str]) -> dict[str, int]:
    counts = dict.fromkeys(SUMMARY_KEY.values(), 0)
    for verdict in verdicts:
        counts[SUMMARY_KEY[verdict]] += 1
    return counts


def summarise(requirements: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals over the requirement objects of a traceability document."""

    def block(entries: list[dict[str, Any]]) -> dict[str, Any]:
        testable = [r for r in entries if r["testable"]]
        covered = [r for r in testable if any(s["tagged"] for s in r["scenarios"])]
        ran = [r for r in testable if any(s["outcome"] in _RAN for s in r["scenarios"])]
        not_applicable = sum(r["verdict"] == "not applicable" for r in testable)
        return {
            "total": len(entries),
            "testable": len(testable),
            "applicable": len(testable) - not_applicable,
            "covered": len(covered),
            "uncovered": len(testable) - len(covered),
            "ran": len(ran),
            **_count(r["verdict"] for r in entries),
        }

    summary = block(requirements)
    summary["by_keyword"] = {
        keyword: block([r for r in requirements if r["keyword"] == keyword]) for keyword in KEYWORDS
    }
    mandatory = [r for r in requirements if r["keyword"] in ("MUST", "MUST NOT")]
    summary["mandatory"] = block(mandatory)
    return summary


def readings_followed(
    results: Iterable[ItemResult], claimed: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """For every errata switch: the reading the target was seen to follow, and where.

    Each check that saw a reading names the readings its outcome fits (one, or several a
    scenario cannot tell apart: ``keep|disregard``).  ``observed`` is the one reading every
    such check fits (``keep or disregard`` where several still fit them all), ``mixed`` when
    no reading fits them all (e.g. lenient for PathName, strict for VT_LPWSTR), ``not
    observed`` when no scenario could tell.  ``claimed`` is the PICS claim (None: no claim); a
    claim that some check does not fit gives ``verdict: warning``.
    """
    seen: dict[str, dict[str, list[dict[str, str]]]] = {
        s.errata: {name: [] for name in s.names} for s in SWITCHES
    }
    fits: dict[str, list[set[str]]] = {s.errata: [] for s in SWITCHES}
    for item in results:
        for check in item.checks:
            errata, reading = check.get("errata"), check.get("reading")
            if errata not in seen or not reading:
                continue
            names = {n for n in reading.split(READING_SEPARATOR) if n in seen[errata]}
            if not names:
                continue
            fits[errata].append(names)
            where = {
                "scenario": item.scenario or item.name,
                "nodeid": item.nodeid,
                "requirement": check["requirement"],
            }
            for name in names:
                if where not in seen[errata][name]:
                    seen[errata][name].append(where)
    entries = []
    for switch in SWITCHES:
        common = [n for n in switch.names if all(n in f for f in fits[switch.errata])]
        if not fits[switch.errata]:
            observed = "not observed"
        elif not common:
            observed = "mixed"
        else:
            observed = " or ".join(common)
        claim = (claimed or {}).get(switch.errata)
        contradicted = claim is not None and any(claim not in f for f in fits[switch.errata])
        entries.append(
            {
                "errata": switch.errata,
                "topic": switch.topic,
                "readings": dict(switch.readings),
                "suite": switch.suite,
                "letter": switch.letter,
                "judging_only": switch.judging_only,
                "observed": observed,
                "followed": _followed(switch, common if fits[switch.errata] else None),
                "claimed": claim,
                "verdict": "warning" if contradicted else "pass",
                "scenarios": seen[switch.errata],
            }
        )
    return entries


def _followed(switch: Switch, common: list[str] | None) -> str | None:
    """What the readings seen for ``switch`` say of the target: ``suite`` (only the suite's
    reading fits), ``letter`` (only the letter fits), ``mixed`` (neither: another reading,
    or none fits every check); None where nothing was seen or both still fit."""
    if common is None:
        return None
    suite, letter = switch.suite in common, switch.letter in common
    if suite and letter:
        return None
    return "suite" if suite else "letter" if letter else "mixed"


def readings_overall(entries: list[dict[str, Any]]) -> str:
    """One word for every switch together: ``suite`` (the target was seen following the
    suite's readings), ``letter`` (the letter), ``mixed`` (the letter somewhere and the
    suite's reading elsewhere, or another reading), ``not observed``."""
    kinds = {e["followed"] for e in entries if e["followed"] is not None}
    if not kinds:
        return "not observed"
    return kinds.pop() if len(kinds) == 1 else "mixed"


def build_traceability(
    results: Iterable[ItemResult],
    *,
    target: str,
    coverage: Coverage | None = None,
    catalog: Mapping[str, Requirement] = CATALOG,
    deselected: int = 0,
    duration: float | None = None,
    generated_at: datetime | None = None,
    claimed_readings: Mapping[str, str] | None = None,
    options: Mapping[str, str] | None = None,
    stopped: str | None = None,
) -> dict[str, Any]:
    """The traceability document (see ``traceability.schema.json``).

    ``options``: the options that shaped the run (``--mqcn-timeout``…), repeated in every
    replay command; ``stopped``: why the run stopped early (the target kept timing out).
    """
    results = list(results)
    readings = readings_followed(results, claimed_readings)
    evidence = _gather(results, target, options)
    static = coverage.by_requirement(catalog) if coverage is not None else {}
    requirements = []
    for rid, requirement in catalog.items():
        ev = evidence.get(rid)
        requirements.append(
            {
                **requirement.summary(),
                "verdict": verdict_of(requirement, ev),
                "stopped_by": stopped_by_of(requirement, ev),
                "scenarios": _scenario_entries(rid, static.get(rid, []), ev),
                "failures": ev.failures if ev else [],
                "notes": ev.notes if ev else [],
            }
        )
    outcomes = {"passed": 0, "failed": 0, "skipped": 0, "error": 0, "not run": 0}
    for item in results:
        outcomes[item.outcome] += 1
    not_run = outcomes.pop("not run")
    acted = sum(1 for item in results if item.outcome in _RAN and item.target_acted)
    when = generated_at or datetime.now(UTC)
    return {
        "schema": SCHEMA_ID,
        "generated_at": when.isoformat(timespec="seconds"),
        "target": target,
        "spec": getattr(catalog, "spec", ""),
        "run": {
            "items": len(results) - not_run,
            **outcomes,
            "not_run": not_run,
            "target_acted": acted,
            "deselected": deselected,
            "stopped": stopped,
            "options": dict(options or {}),
            "duration": round(
                duration if duration is not None else sum(r.duration for r in results), 3
            ),
        },
        "summary": summarise(requirements),
        "claimed_not_implemented": claimed_not_implemented(results),
        "suite_own": suite_own(results),
        "transport_findings": transport_findings(results),
        "requirements": requirements,
        "readings": readings,
        "readings_overall": readings_overall(readings),
        "features": [
            {"feature": f.feature, "name": f.name, "scenarios": f.scenarios}
            for f in (coverage.features if coverage is not None else [])
        ],
        "directories": published_directories(results),
    }
