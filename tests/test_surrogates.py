"""Errata E-07, lenient reading: a lone surrogate is a character and stays the code unit it
is — through the model, the adapter protocol's JSON (``"\\ud800"``) and the report — so a
target that keeps it, attached with ``exec:``, is seen following the lenient reading and
never fails (issue 17: the lenient expectation used to turn it into U+FFFD)."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from mqcn_model.adm import Queue
from mqcn_model.errata import following
from mqcn_suite.cli import app
from mqcn_suite.report.writers import json_text
from mqcn_suite.targets.reference import ReferenceTarget

runner = CliRunner()
LONE = "\ud800"


class KeepingCodeUnits(ReferenceTarget):
    """The reference following the lenient reading of E-07, reporting every queue's text
    attributes as the raw code units it holds, as an implementation written from the
    glossary does (served through ``mqcn_suite.targets.serve``, so over JSON)."""

    name = "keeps-code-units"

    def __init__(self) -> None:
        super().__init__(following("E-07"))

    def state(self) -> dict[str, Any]:
        state = super().state()
        for guid, queue in self._server().qm.QueueCollection.items():
            for name in ("Label", "Pathname"):
                state["queues"][str(guid)][name] = getattr(queue, name)
        return state


def test_the_model_keeps_a_lone_surrogate_and_json_escapes_it() -> None:
    queue = Queue.with_defaults(uuid.UUID(int=7))
    queue.Label = f"a{LONE}b"
    data = queue.to_json()
    assert data["Label"] == f"a{LONE}b"
    wire = json.dumps(data)
    assert '"a\\ud800b"' in wire
    assert json.loads(wire)["Label"] == f"a{LONE}b"
    assert Queue.from_json(json.loads(wire)).Label == f"a{LONE}b"
    assert '"a\\ud800b"' in json_text(data)
    json_text(data).encode("utf-8")  # the report file can hold it


def test_an_exec_target_keeping_the_code_unit_follows_the_lenient_reading(
    tmp_path: Path,
) -> None:
    served = "python:tests.test_surrogates:KeepingCodeUnits"
    serve = f"{sys.executable} -m mqcn_suite.targets.serve {served}"
    result = runner.invoke(
        app,
        [
            "run",
            "--target",
            f"exec:{serve}",
            "--report",
            str(tmp_path),
            "--",
            "-q",
            "-m",
            "MQCN-2.2.3.10-2 or MQCN-2.2.6-4",
        ],
    )
    document = json.loads((tmp_path / "traceability.json").read_text("utf-8"))
    failing = [r["id"] for r in document["requirements"] if r["verdict"] in ("fail", "error")]
    assert failing == [], result.output
    assert result.exit_code == 0, result.output
    entry = next(r for r in document["readings"] if r["errata"] == "E-07")
    assert entry["observed"] == "lenient", entry
    seen = {o["requirement"] for o in entry["scenarios"]["lenient"]}
    assert {"MQCN-2.2.3.10-2", "MQCN-2.2.6-4"} <= seen
