"""mqcn_suite.step_lookup: pytest-bdd's step lookup, each question asked once per session."""

from __future__ import annotations

import importlib

from mqcn_suite import step_lookup

scenario_module = importlib.import_module("pytest_bdd.scenario")


def test_the_plugin_installs_the_memoized_lookup_in_pytest_bdd() -> None:
    assert step_lookup.install()  # also done by the plugin's pytest_configure
    assert getattr(scenario_module.find_fixturedefs_for_step, "_mqcn_memoized", False)
    assert step_lookup.install()  # a second time: not wrapped twice
    wrapped = scenario_module.find_fixturedefs_for_step
    assert step_lookup.install() and scenario_module.find_fixturedefs_for_step is wrapped


def test_answers_are_kept_apart_per_module_and_per_session() -> None:
    asked: list[tuple[str, str]] = []

    def find(step: object, fixturemanager: object, node: object) -> list[str]:
        asked.append((node.nodeid, step.name))  # type: ignore[attr-defined]
        return [f"{node.nodeid.split('::')[0]}:{step.name}"]  # type: ignore[attr-defined]

    class Step:
        type, name = "when", "the queue manager starts"

    class Node:
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid

    class Manager:
        pass

    fast = step_lookup.memoized(find)
    first, second = Manager(), Manager()
    a1, a2, b1 = Node("steps/a.py::t1"), Node("steps/a.py::t2"), Node("steps/b.py::t1")
    assert list(fast(step=Step(), fixturemanager=first, node=a1)) == ["steps/a.py:" + Step.name]
    assert list(fast(step=Step(), fixturemanager=first, node=a2)) == ["steps/a.py:" + Step.name]
    assert list(fast(step=Step(), fixturemanager=first, node=b1)) == ["steps/b.py:" + Step.name]
    assert list(fast(step=Step(), fixturemanager=second, node=a1)) == ["steps/a.py:" + Step.name]
    # asked once per module and session: a2 was answered from a1's question
    # (the second session asks again: its fixtures are its own)
    a, b = ("steps/a.py::t1", Step.name), ("steps/b.py::t1", Step.name)
    assert asked == [a, b, a]
