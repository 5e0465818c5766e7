"""Which scenarios check which requirement: the static coverage of the catalog by features/.

Every ``features/*.feature`` file is read with pytest-bdd's own Gherkin parser (so the suite
sees exactly what pytest-bdd binds), and each scenario is mapped to the requirement IDs it is
tagged with: its own tags, its feature's and rule's tags, and the tags of its Examples tables
(a Scenario Outline's rows).  A tag that looks like a requirement ID (``@MQCN-...``, any case)
but names no catalog entry is an error, reported with its file and line before anything runs.

>>> coverage = load_coverage(Path(__file__).resolve().parent / "no-such-dir")
>>> len(coverage.scenarios), coverage.by_requirement()["MQCN-2.2.4-3"]
(0, [])
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqcn_model.catalog import CATALOG, Requirement
from mqcn_suite.locations import SuiteTreeMissing, features_dir

if TYPE_CHECKING:
    from pytest_bdd.gherkin_parser import Scenario as GherkinScenario
    from pytest_bdd.gherkin_parser import Tag

# A tag that claims to be a requirement ID: it must then be one, exactly.
LOOKS_LIKE_ID = re.compile(r"^mqcn[-_]", re.IGNORECASE)


class CoverageError(ValueError):
    """A feature file cannot be parsed, or a tag names no requirement of the catalog."""


@dataclass(frozen=True, slots=True)
class ScenarioRef:
    """One scenario (or Scenario Outline) of a feature file and the requirements it checks."""

    feature: str  # path relative to the features directory's parent, e.g. features/x.feature
    feature_name: str
    name: str  # the scenario's name as written (an outline's template name)
    line: int
    requirements: tuple[str, ...]  # catalog IDs, in catalog order
    examples: int = 0  # number of Examples rows (0 for a plain scenario)
    path: str = ""  # absolute path of the feature file

    def to_json(self) -> dict[str, Any]:
        return {
            "feature": self.feature,
            "feature_name": self.feature_name,
            "name": self.name,
            "line": self.line,
            "requirements": list(self.requirements),
            "examples": self.examples,
        }


@dataclass(frozen=True, slots=True)
class FeatureRef:
    """One feature file."""

    feature: str
    name: str
    path: str
    scenarios: int


@dataclass
class Coverage:
    """The scenarios of every feature file, and the requirements they are tagged with."""

    features_dir: Path
    features: list[FeatureRef] = field(default_factory=list)
    scenarios: list[ScenarioRef] = field(default_factory=list)

    def by_requirement(
        self, catalog: Mapping[str, Requirement] = CATALOG
    ) -> dict[str, list[ScenarioRef]]:
        """Every catalog ID (in catalog order) -> the scenarios tagged with it (maybe none)."""
        mapping: dict[str, list[ScenarioRef]] = {rid: [] for rid in catalog}
        for scenario in self.scenarios:
            for rid in scenario.requirements:
                mapping.setdefault(rid, []).append(scenario)
        return mapping

    def find(self, path: str, name: str) -> ScenarioRef | None:
        """The scenario called ``name`` of the feature file at absolute ``path``."""
        for scenario in self.scenarios:
            if scenario.path == path and scenario.name == name:
                return scenario
        return None


def default_features_dir() -> Path:
    """``features/`` of the checkout the suite runs from, or the copy an installed wheel
    carries (:mod:`mqcn_suite.locations`)."""
    try:
        return features_dir()
    except SuiteTreeMissing as exc:
        raise CoverageError(str(exc)) from None


def _tag_ids(
    tags: Iterable[Tag], where: str, catalog: Mapping[str, Requirement], errors: list[str]
) -> set[str]:
    found = set()
    for tag in tags:
        name = tag.name.lstrip("@")
        if name in catalog:
            found.add(name)
        elif LOOKS_LIKE_ID.match(name):
            close = difflib.get_close_matches(name.upper().replace("_", "-"), list(catalog), n=1)
            hint = f" (did you mean @{close[0]}?)" if close else ""
            errors.append(
                f"{where}:{tag.location.line}: tag @{name} names no requirement of the "
                f"catalog{hint}"
            )
    return found


def _scenario_children(children: Iterable[Any]) -> Iterable[tuple[GherkinScenario, list[Tag]]]:
    """Every scenario of a feature's children, with the tags of the Rule it sits in."""
    for child in children:
        if child.scenario is not None:
            yield child.scenario, []
        elif child.rule is not None:
            for rule_child in child.rule.children:
                if rule_child.scenario is not None:
                    yield rule_child.scenario, list(child.rule.tags)


def parse_feature(
    path: Path, relative: str, catalog: Mapping[str, Requirement], errors: list[str]
) -> tuple[FeatureRef | None, list[ScenarioRef]]:
    """The scenarios of one feature file; problems are appended to ``errors``."""
    # Imported here, not at the top: ``mqcn run`` imports this module before pytest starts,
    # and pytest wants to import pytest-bdd itself (to rewrite its assertions).
    from pytest_bdd.exceptions import GherkinParseError
    from pytest_bdd.gherkin_parser import get_gherkin_document

    try:
        document = get_gherkin_document(str(path))
    except GherkinParseError as exc:
        errors.append(f"{relative}:{exc.line}: cannot parse: {exc.message}")
        return None, []
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(f"{relative}: cannot read: {exc}")
        return None, []
    except KeyError:  # pytest-bdd's own reader fails the same way on a file with no Feature
        errors.append(f"{relative}:1: no 'Feature:' in the file (pytest-bdd cannot read it)")
        return None, []
    feature = document.feature
    feature_ids = _tag_ids(feature.tags, relative, catalog, errors)
    order = {rid: index for index, rid in enumerate(catalog)}
    scenarios: list[ScenarioRef] = []
    seen: dict[str, int] = {}
    for scenario, rule_tags in _scenario_children(feature.children):
        line = scenario.location.line
        if scenario.name in seen:
            errors.append(
                f"{relative}:{line}: scenario {scenario.name!r} has the same name as the one at "
                f"line {seen[scenario.name]}; pytest-bdd would silently run only one of them"
            )
        seen[scenario.name] = line
        ids = set(feature_ids)
        ids |= _tag_ids(rule_tags, relative, catalog, errors)
        ids |= _tag_ids(scenario.tags, relative, catalog, errors)
        rows = 0
        for table in scenario.examples:
            ids |= _tag_ids(table.tags, relative, catalog, errors)
            rows += len(table.table_body or [])
        scenarios.append(
            ScenarioRef(
                feature=relative,
                feature_name=feature.name,
                name=scenario.name,
                line=line,
                requirements=tuple(sorted(ids, key=lambda rid: order.get(rid, len(order)))),
                examples=rows,
                path=str(path),
            )
        )
    return FeatureRef(relative, feature.name, str(path), len(scenarios)), scenarios


def load_coverage(
    features_dir: Path | None = None, catalog: Mapping[str, Requirement] = CATALOG
) -> Coverage:
    """Parse every ``*.feature`` under ``features_dir`` (recursively, sorted by path).

    Raises :class:`CoverageError` listing every unparsable file and every tag that looks like
    a requirement ID but is not one.  A missing directory gives an empty coverage.
    """
    root = (features_dir or default_features_dir()).resolve()
    coverage = Coverage(features_dir=root)
    if not root.is_dir():
        return coverage
    errors: list[str] = []
    for path in sorted(root.rglob("*.feature")):
        relative = f"{root.name}/{path.relative_to(root).as_posix()}"
        feature, scenarios = parse_feature(path, relative, catalog, errors)
        if feature is not None:
            coverage.features.append(feature)
        coverage.scenarios.extend(scenarios)
    if errors:
        count = len(errors)
        raise CoverageError(
            f"{count} problem{'s' if count > 1 else ''} in the feature files:\n  "
            + "\n  ".join(errors)
        )
    return coverage
