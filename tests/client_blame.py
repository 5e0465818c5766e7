"""Run the client-side scenarios once per client-sendable defect, in one pytest session.

A pytest plugin (``-p client_blame``, with ``tests/`` on ``sys.path``) for
``tests/test_client_blame.py``.  One session per member of the defect catalogue would cost a
start-up and a collection each; this plugin collects the scenarios once, then for every member
puts ``zoo:sends:<member>`` (:class:`~mqcn_suite.targets.zoo.SendsDefect`) behind the session's
target guard and runs again exactly the collected scenarios in which a client of that member's
Version sends a message the member's transformation fits (``defect.apply``), or, for a member
that is only its bytes, raises that member's kind of notification (both learnt from one
reference pass that records what each scenario asked of the client and what it sent).  The
reports of each pass go through the suite's own :class:`~mqcn_suite.report.ResultCollector` and
:func:`~mqcn_suite.report.build_traceability`, so the verdicts are the ones ``mqcn run`` would
give; they are written as JSON to ``--client-blame-out``: for each member, ``verdicts``
(``{requirement: verdict}``, failing, warning and stopped ones only, a stopped one written
``inconclusive (stopped by …)``) and ``notes`` (``{requirement: [message, …]}``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from mqcn_suite.report import ResultCollector, build_traceability
from mqcn_suite.report.results import item_metadata
from mqcn_suite.report.traceability import verdict_label
from mqcn_suite.scenarios.defects import defect_version, sent_by_clients
from mqcn_suite.scenarios.fixtures import IDS
from mqcn_suite.targets import ReferenceTarget
from mqcn_suite.targets.zoo import SendsDefect, _operation_of

SHOWN = ("fail", "claim-fail", "error", "warning")
METADATA: dict[str, dict[str, Any]] = {}  # every collected item's, computed once


class _Recording(ReferenceTarget):
    """The reference, remembering the (client Version, operation) of every notification."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[tuple[int, str]] = set()
        self.bodies: list[tuple[int, bytes]] = []  # (client Version, body) of each message

    def send_change_notification(self, operation: str, object_id: Any, changed: list[str]) -> Any:
        assert self.client is not None
        self.asked.add((int(self.client.version), operation))
        envelopes = super().send_change_notification(operation, object_id, changed)
        self.bodies.extend((int(self.client.version), e.body) for e in envelopes)
        return envelopes


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--client-blame-out", help="where the verdicts per member go (JSON)")
    parser.addoption("--client-blame-only", default=None, help="one member's name (debugging)")


def pytest_configure(config: pytest.Config) -> None:
    """Remember which step definitions match each step of each scenario: pytest-bdd looks
    them up through every fixture name on every run, and the same items run many times."""
    import importlib

    bdd = importlib.import_module("pytest_bdd.scenario")
    find = bdd.find_fixturedefs_for_step
    known: dict[tuple[str, str, str | None], list[Any]] = {}

    def cached(step: Any, fixturemanager: Any, node: pytest.Item) -> list[Any]:
        key = (node.nodeid, step.name, step.type)
        if key not in known:
            known[key] = list(find(step=step, fixturemanager=fixturemanager, node=node))
        return known[key]

    bdd.find_fixturedefs_for_step = cached


def _run(session: pytest.Session, items: list[pytest.Item], name: str) -> dict[str, Any]:
    """Run ``items`` again with the target as it is now; the traceability document."""
    collector = ResultCollector(session.config.rootpath)
    collector.metadata = METADATA
    for item in items:
        item.user_properties = []
        item.funcargs = {}
        item._initrequest()  # type: ignore[attr-defined]  # run the same item again
        for report in runtestprotocol(item, nextitem=None, log=False):
            collector.record_report(report)
    return build_traceability([collector.results[i.nodeid] for i in items], target=name)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool:
    from mqcn_suite.plugin import _TARGET  # the guard every scenario's world talks through

    guard = session.config.stash[_TARGET]
    METADATA.update({i.nodeid: item_metadata(i, session.config.rootpath) for i in session.items})
    recording = _Recording()
    asked: dict[str, set[tuple[int, str]]] = {}
    bodies: dict[str, list[tuple[int, bytes]]] = {}
    for item in session.items:  # the reference pass: what each scenario asks of the client
        recording.asked, recording.bodies = set(), []
        guard.inner = recording
        _run(session, [item], "reference")
        asked[item.nodeid], bodies[item.nodeid] = recording.asked, recording.bodies
    only = session.config.getoption("--client-blame-only")
    out: dict[str, dict[str, str]] = {}
    for member in sent_by_clients():
        if only is not None and member.name != only:
            continue
        version, apply = defect_version(member), member.apply
        if apply is not None:  # the items in which some message it fits is sent
            items = [
                i
                for i in session.items
                if any(v == version and apply(b) is not None for v, b in bodies[i.nodeid])
            ]
        else:  # the items that send its kind of message
            kind = (version, _operation_of(member.build(IDS), IDS).name)
            items = [i for i in session.items if kind in asked[i.nodeid]]
        guard.inner = SendsDefect(member)
        document = _run(session, items, guard.inner.name)
        shown = [r for r in document["requirements"] if r["verdict"] in SHOWN or r["stopped_by"]]
        out[member.name] = {
            "verdicts": {r["id"]: verdict_label(r) for r in shown},
            "notes": {r["id"]: [n["message"] for n in r["notes"]] for r in shown if r["notes"]},
            "judged": sorted(r["id"] for r in document["requirements"] if r["verdict"] == "pass"),
            "readings": {r["errata"]: r["observed"] for r in document["readings"]},
        }
    Path(session.config.getoption("--client-blame-out")).write_text(json.dumps(out, indent=1))
    return True
