"""The catalogue of named defects is honest (mqcn_suite.scenarios.defects).

Every member, built, is judged by the model to break exactly what it says (its requirement and
the collateral it declares); a member with an errata item is read under the other reading of
that item, and one without is refused by every single reading; the acceptable forms conform;
names are unique; and every defect a feature file names exists, and breaks what the catalogue
says in the carrier that feature file gives it.  The hypothesis strategy and the Spark
generator that draw from the catalogue keep those promises with other identities.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from mqcn_model.catalog import CATALOG
from mqcn_model.constants import PROPERTIES, PropId
from mqcn_model.errata import SWITCHES, following
from mqcn_model.judge import errata_admitting, judge
from mqcn_suite.pipeline.generators import (
    DEFECTS_BY_FAMILY,
    Population,
    defective_message,
    malformed_message,
    row_rng,
)
from mqcn_suite.scenarios.defects import (
    ACCEPTABLE_FORMS,
    DEFECTS,
    FAMILIES,
    VALUE_CARRIERS,
    VALUE_DEFECTS,
    AcceptableForm,
    Defect,
    UnknownDefectError,
    every_defect,
    version_0x02_body,
)
from mqcn_suite.scenarios.fixtures import IDS
from mqcn_suite.scenarios.messages import v2_body
from mqcn_suite.scenarios.vocabulary import value_from_text
from mqcn_suite.strategies import defective_messages

ROOT = Path(__file__).resolve().parents[1]
MEMBERS = every_defect()


# --- every member breaks what it says ------------------------------------------------------


@pytest.mark.parametrize("defect", MEMBERS, ids=lambda d: d.name)
def test_a_member_breaks_exactly_what_it_says(defect: Defect) -> None:
    body = defect.build(IDS)
    verdict = judge(body)
    assert not verdict.conforming
    assert set(verdict.requirements) == defect.breaks
    assert all(CATALOG[r].is_mandatory for r in defect.breaks)


@pytest.mark.parametrize("defect", [d for d in MEMBERS if d.errata], ids=lambda d: d.name)
def test_a_member_with_an_errata_item_is_read_under_its_other_reading(defect: Defect) -> None:
    assert defect.errata is not None
    body = defect.build(IDS)
    other = judge(body, following(defect.errata))
    assert other.message is not None and set(other.requirements) == set(defect.under_errata)
    if judge(body).message is None:  # unreadable strictly: the scenarios name the item
        assert [s.errata for s in errata_admitting(body)] == [defect.errata]


@pytest.mark.parametrize("defect", [d for d in MEMBERS if not d.errata], ids=lambda d: d.name)
def test_a_member_without_an_errata_item_is_refused_by_every_reading(defect: Defect) -> None:
    body = defect.build(IDS)
    assert errata_admitting(body) == ()
    admitting = [s.errata for s in SWITCHES if judge(body, s.flipped).conforming]
    assert admitting == []


@pytest.mark.parametrize("defect", [d for d in MEMBERS if d.apply], ids=lambda d: d.name)
def test_a_twisted_member_is_its_transformation_of_a_conforming_twin(defect: Defect) -> None:
    """One definition: the bytes are ``apply`` of the conforming twin, and ``apply`` fits
    no Version 0x02 message (the zoo client leaves what it does not fit alone)."""
    assert defect.apply is not None
    twin = defect.twin(IDS)
    assert judge(twin).conforming
    assert defect.apply(twin) == defect.build(IDS)
    assert defect.apply(v2_body(2)) is None


@pytest.mark.parametrize("form", ACCEPTABLE_FORMS.values(), ids=lambda f: f.name)
def test_an_acceptable_form_conforms(form: AcceptableForm) -> None:
    verdict = judge(form.build(IDS))
    assert verdict.conforming and verdict.message is not None
    errata_items = set(re.findall(r"^### (E-\d\d)", (ROOT / "docs/errata.md").read_text(), re.M))
    assert form.errata in errata_items


def test_value_defects_refuse_the_types_they_do_not_apply_to() -> None:
    for defect in VALUE_DEFECTS.values():
        for vt, (propid, value) in VALUE_CARRIERS.items():
            if vt not in defect.applies_to:
                with pytest.raises(UnknownDefectError, match="does not apply"):
                    defect.message(propid, value, IDS)


# --- names -----------------------------------------------------------------------------------


def test_names_are_unique_across_the_tables() -> None:
    names = [d.name for d in MEMBERS] + list(VALUE_DEFECTS) + list(ACCEPTABLE_FORMS)
    assert len(names) == len(set(names))
    assert {d.family for d in MEMBERS} == set(FAMILIES)


def test_an_unknown_name_is_an_error_naming_the_known_ones() -> None:
    with pytest.raises(UnknownDefectError, match="'an empty body'") as raised:
        DEFECTS.named("an emty body", "body")
    assert "'Version 0x00'" not in str(raised.value)  # only the family asked for
    with pytest.raises(UnknownDefectError, match="'Command 0x03'"):
        DEFECTS.named("Event 0", "version-0x01")  # a name of another family
    with pytest.raises(UnknownDefectError, match="'lower-case tags'"):
        version_0x02_body("mixed-case tags", IDS)
    with pytest.raises(KeyError, match="one byte short"):
        VALUE_DEFECTS["two bytes short"]


# The Gherkin steps that name a catalogue member, as the step definitions write them.
_V1 = "a Version 0x01 message with {defect}"
_V2 = "a Version 0x02 message about the queue orders with {defect}"
_VALUE = "a Version 0x01 message carrying {value} as {propid} with {defect}"
_BODY = "a malformed body: {body}"


def _pattern(step: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+)", re.escape(step)) + "$")


def _step_definitions(feature: str) -> str:
    """The source of the step module that runs ``feature`` and of the shared modules it
    star-imports (two step texts may overlap across modules, never within one)."""
    for module in sorted((ROOT / "steps").glob("test_*.py")):
        source = module.read_text(encoding="utf-8")
        if f'scenarios("{feature}")' in source:
            shared = re.findall(r"^from steps\.(_\w+) import \*", source, re.M)
            return "".join([source, *((ROOT / f"steps/{m}.py").read_text() for m in shared)])
    raise AssertionError(f"no step module runs {feature}")


def _feature_steps() -> Iterator[tuple[str, str, str]]:
    """(where, step text, step definitions) of every step of every feature file, outlines
    expanded row by row."""
    from pytest_bdd.gherkin_parser import get_gherkin_document

    for path in sorted((ROOT / "features").glob("*.feature")):
        definitions = _step_definitions(path.name)
        document = get_gherkin_document(str(path))
        for child in document.feature.children:
            scenario = child.scenario
            if scenario is None:
                continue
            rows: list[dict[str, str]] = [{}]
            tables = [t for t in scenario.examples if t.table_header is not None]
            if tables:
                rows = [
                    {
                        h.value: c.value
                        for h, c in zip(t.table_header.cells, row.cells, strict=True)  # type: ignore[union-attr]
                    }
                    for t in tables
                    for row in t.table_body or []
                ]
            for row in rows:
                for step in scenario.steps:
                    text = step.text
                    for column, value in row.items():
                        text = text.replace(f"<{column}>", value)
                    yield f"{path.name}:{step.location.line}", text, definitions


def _naming(step: str, text: str, definitions: str) -> re.Match[str] | None:
    return _pattern(step).match(text) if f'"{step}"' in definitions else None


def test_every_defect_a_feature_file_names_exists_and_breaks_what_it_says() -> None:
    used: set[str] = set()
    for where, text, definitions in _feature_steps():
        if match := _naming(_V1, text, definitions):
            used.add(DEFECTS.named(match["defect"], "version-0x01").name)
        elif match := _naming(_V2, text, definitions):
            version_0x02_body(match["defect"], IDS)
            used.add(match["defect"])
        elif match := _naming(_BODY, text, definitions):
            used.add(DEFECTS.named(match["body"], "body").name)
        elif match := _naming(_VALUE, text, definitions):
            value_defect = VALUE_DEFECTS[match["defect"]]
            propid = PropId[match["propid"]]
            value = value_from_text(PROPERTIES[propid].vt, match["value"])
            body = value_defect.message(propid, value, IDS)
            wanted = value_defect.requirement_for(PROPERTIES[propid].vt)
            assert judge(body).requirements == (wanted,), where
            used.add(value_defect.name)
    # the patterns above still match the feature files (a reworded step would empty this)
    assert len(used) > 50, sorted(used)
    assert set(VALUE_DEFECTS) <= used and set(ACCEPTABLE_FORMS) <= used


# --- what draws from the catalogue keeps its promises ----------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(defective_messages())
def test_drawn_identities_break_the_same_requirements(pair: tuple[Defect, bytes]) -> None:
    defect, body = pair
    verdict = judge(body)
    assert not verdict.conforming
    if not defect.misaligned:
        assert set(verdict.requirements) == defect.breaks


def test_the_strategy_draws_from_the_families_asked_for() -> None:
    seen: set[str] = set()

    @settings(max_examples=40, derandomize=True, database=None)
    @given(defective_messages(["body", "content"]))
    def draw(pair: tuple[Defect, bytes]) -> None:
        seen.add(pair[0].family)

    draw()
    assert seen == {"body", "content"}
    with pytest.raises(ValueError, match="no defect"):
        defective_messages(["no-such-family"])


def test_the_generator_draws_every_family_deterministically_by_seed() -> None:
    population = Population.from_seed(4)
    assert set(DEFECTS_BY_FAMILY) == set(FAMILIES)
    drawn = [defective_message(row_rng(4, row), population) for row in range(300)]
    assert drawn == [defective_message(row_rng(4, row), population) for row in range(300)]
    assert {defect.family for defect, _ in drawn} == set(FAMILIES)
    for defect, body in drawn:
        verdict = judge(body)
        assert not verdict.conforming
        assert defect.misaligned or set(verdict.requirements) == defect.breaks
    families = {
        malformed_message(row_rng(4, row), population)[0].split(":")[0] for row in range(200)
    }
    assert {"mutation", "defect", "vector"} <= families


# --- the scenario modules teach by example, and stay out of the model ------------------------


def test_the_model_does_not_import_the_suite() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "mqcn_model").rglob("*.py")
        if "mqcn_suite" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
