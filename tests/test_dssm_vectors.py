"""The directory mapping's reference vectors (reference_vectors/dssm_mapping.json) against
mqcn_model/dssm.py: every stated entry, read, filter and result code, and the file against
its schema (dssm_schema.json)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mqcn_model.adm import Queue, QueueManager
from mqcn_model.dssm import (
    directory_entries,
    guid_filter,
    guids_named,
    object_from_ldap,
    result_of_ldap_code,
)
from mqcn_model.errors import DirectoryValueError
from mqcn_model.json_views import value_to_json
from mqcn_model.ldap_records import LdapValue

VECTOR_DIR = Path(__file__).resolve().parent.parent / "reference_vectors"
DATA = json.loads((VECTOR_DIR / "dssm_mapping.json").read_text(encoding="utf-8"))
SCHEMA = json.loads((VECTOR_DIR / "dssm_schema.json").read_text(encoding="utf-8"))


def _tests(kind: str) -> list[Any]:
    return [
        pytest.param(test, id=f"{kind}-{test['tcId']}")
        for group in DATA["testGroups"]
        if group["type"] == kind
        for test in group["tests"]
    ]


def ldap_values(stated: dict[str, list[Any]]) -> dict[str, list[LdapValue]]:
    """A vector's LDAP values as the mapping takes them: text, or bytes for ``{"hex": ...}``."""
    return {
        name: [bytes.fromhex(v["hex"]) if isinstance(v, dict) else v for v in values]
        for name, values in stated.items()
    }


def test_the_file_matches_its_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(DATA)
    tests = [t for g in DATA["testGroups"] for t in g["tests"]]
    assert DATA["numberOfTests"] == len(tests) == len({t["tcId"] for t in tests})
    assert {f for t in tests for f in t["flags"]} <= set(DATA["notes"])
    assert len(tests) >= 50


@pytest.mark.parametrize("test", _tests("DirectoryEntryTest"))
def test_entry(test: dict[str, Any]) -> None:
    stated = test["object"]
    if stated["type"] == "Queue":
        queues, managers = [(Queue.from_json(stated["adm"]), stated["computer"])], []
    else:
        queues, managers = [], [(QueueManager.from_json(stated["adm"]), stated["computer"])]
    if test["result"] == "invalid":
        with pytest.raises(DirectoryValueError) as info:
            directory_entries(queues, managers)
        assert (info.value.adm, info.value.ldap) == (test["error"]["adm"], test["error"]["ldap"])
        return
    entries = {e.dn: e for e in directory_entries(queues, managers)}
    assert test["dn"] in entries, sorted(entries)
    assert entries[test["dn"]].attributes == ldap_values(test["ldap"])


@pytest.mark.parametrize("test", _tests("LdapValuesTest"))
def test_values(test: dict[str, Any]) -> None:
    read = object_from_ldap(
        test["objectType"], ldap_values(test["ldap"]), test["attributes"], dn=test["dn"]
    )
    if test["result"] == "invalid":
        assert not isinstance(read, dict), f"read {read}"
        assert read.result.value == test["status"]
        return
    assert isinstance(read, dict), read.reason
    assert {k: value_to_json(v) for k, v in read.items()} == test["expected"]


@pytest.mark.parametrize("test", _tests("GuidFilterTest"))
def test_guid_filter(test: dict[str, Any]) -> None:
    guid = uuid.UUID(test["guid"])
    assert guid_filter(guid, "compact") == test["compact"]
    assert guid_filter(guid, "escaped") == test["escaped"]


@pytest.mark.parametrize("test", _tests("FilterGuidsTest"))
def test_filter_guids(test: dict[str, Any]) -> None:
    found = [{"guid": str(g), "form": form} for g, form in guids_named(test["filter"])]
    assert found == test["named"]


@pytest.mark.parametrize("test", _tests("ResultCodeTest"))
def test_result_code(test: dict[str, Any]) -> None:
    assert result_of_ldap_code(test["code"]).value == test["status"]
