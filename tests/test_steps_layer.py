"""steps/ is thin: a step reads its Gherkin text and calls the world or the scenarios.

What "thin" means here (README, "Architecture"): a step definition acts and judges through
:class:`mqcn_suite.world.World`, and takes the scenario's fixed vocabulary -- identities,
messages, named defects, readers and checks -- from :mod:`mqcn_suite.scenarios`.  It never
imports the model (``mqcn_model``) nor any other part of the suite: what a step would need
from them is a function of the scenarios or a method of the world, where it is tested once.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STEP_FILES = sorted((ROOT / "steps").glob("*.py"))
FIRST_PARTY = ("mqcn_model", "mqcn_suite")
ALLOWED = ("mqcn_suite.world", "mqcn_suite.scenarios")


def first_party_imports(path: Path) -> list[str]:
    """The ``mqcn_model`` / ``mqcn_suite`` modules ``path`` imports (lazy ones too)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module)
    return [name for name in found if name.split(".")[0] in FIRST_PARTY]


def allowed(module: str) -> bool:
    """The world, or the scenarios package and its modules."""
    return any(module == base or module.startswith(base + ".") for base in ALLOWED)


def test_there_are_step_files() -> None:
    """The walk below sees the step modules (a guard against an empty glob)."""
    assert len(STEP_FILES) > 10
    assert "mqcn_suite.world" in first_party_imports(ROOT / "steps" / "conftest.py")


@pytest.mark.parametrize("path", STEP_FILES, ids=lambda p: p.name)
def test_steps_call_only_the_world_and_the_scenarios(path: Path) -> None:
    """No step module imports mqcn_model or a suite module other than world and scenarios."""
    wrong = [name for name in first_party_imports(path) if not allowed(name)]
    assert not wrong, f"steps/{path.name} imports {wrong}: go through World or scenarios"


# --- what moved out of steps/ into the scenarios, checked against the model it wraps ---------


def test_the_vocabulary_names_propids_profiles_and_client_versions() -> None:
    """PROPIDs, product profiles and client kinds as the feature files write them."""
    from mqcn_model.constants import PropId, Version
    from mqcn_model.profiles import PROFILES
    from mqcn_suite.scenarios.vocabulary import (
        CLIENT_VERSION,
        profile_named,
        property_value_from_text,
        propid_named,
    )

    assert propid_named("PROPID_Q_QUOTA") is PropId.PROPID_Q_QUOTA
    with pytest.raises(KeyError):
        propid_named("PROPID_Q_NOSUCH")
    assert property_value_from_text("PROPID_Q_QUOTA", "42") == 42
    profile = next(iter(PROFILES))
    assert profile_named(profile) == profile
    with pytest.raises(AssertionError, match="unknown profile 'nosuch'"):
        profile_named("nosuch")
    assert {
        "directory-service": int(Version.DIRECTORY_SERVICE),
        "queue-manager": int(Version.QUEUE_MANAGER),
    } == CLIENT_VERSION


def test_the_messages_and_checks_steps_use_are_the_models() -> None:
    """The deletion, creation and format-name helpers give what the model's own do."""
    from mqcn_model.builders import queue_creation, queue_deletion
    from mqcn_model.constants import notify_queue_format_name
    from mqcn_suite.scenarios.expectations import (
        format_name_is,
        notification_queue_open_problems,
        open_queue_problems,
    )
    from mqcn_suite.scenarios.fixtures import DS_GUID, QM_GUID, QUEUE_GUID
    from mqcn_suite.scenarios.messages import deletion_of, queue_creation_at

    assert deletion_of(QUEUE_GUID) == queue_deletion(QUEUE_GUID, master=DS_GUID)
    created = queue_creation_at(QUEUE_GUID, "host\\q")
    assert created == queue_creation(QUEUE_GUID, "host\\q", master=DS_GUID)
    assert format_name_is("PRIVATE=AB\\3", "private=ab\\3")
    assert not format_name_is(None, "private=ab\\3")
    opened = {"format_name": "PRIVATE=00000000-0000-0000-0000-000000000000\\3"}
    wanted = notify_queue_format_name(str(QM_GUID))
    assert notification_queue_open_problems(opened, QM_GUID) == open_queue_problems(opened, wanted)
    assert notification_queue_open_problems(opened, QM_GUID)
