"""What a Spark task of the pipeline computes, run in any Python: the executors' stand-in.

``tests/test_cluster.py`` runs this script twice: with the driver's interpreter, and with the
bare executor venv whose only access to the project is the shipped zip on ``PYTHONPATH``.
It imports every executor-side module, does a little of each task's work (corpus rows,
audit verdicts with the server's view, fuzz cases against a faulty target) and prints, as
JSON, the results, how many reference vectors it found, where the project's modules came
from and which third-party top-level packages got imported.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys


def main() -> None:
    from mqcn_suite.pipeline import audit, corpus, fuzz, generators
    from mqcn_suite.targets import resolve_target

    if importlib.util.find_spec("mqcn_suite.pipeline.campaign") is not None:
        import mqcn_suite.pipeline.campaign  # noqa: F401  (the codec campaign's tasks)

    rows = corpus.generate_rows(list(range(400)), 5, 0.5)
    digest = hashlib.sha256()
    for column in ("message_id", "body"):
        for value in rows.column(column).to_pylist():
            digest.update(value)
    auditor = audit.Auditor()
    verdicts = [
        [row["conforming"], row["violations"], row["server_outcome"], row["server_reason"]]
        for body in rows.column("body").to_pylist()[:120]
        for row in [auditor.row("probe", body)]
    ]
    target = resolve_target("python:mqcn_suite.targets.zoo:ProcessesUnauthenticated")
    model = fuzz.ReferenceTarget()
    setup = fuzz.fuzz_setup(3)
    cases = []
    for case in range(60):
        found = fuzz.compare_case(model, target, "faulty", setup, 3, case)
        cases.append(None if found is None else [found["divergence"], found["requirements"]])
    loaded = {
        name.split(".")[0]: getattr(module, "__file__", None) or ""
        for name, module in list(sys.modules.items())
    }
    third_party = sorted(
        name for name, path in loaded.items() if "site-packages" in path or ".zip/" in path
    )
    project = sorted(
        module.__file__
        for name, module in list(sys.modules.items())
        if name.startswith(("mqcn_model", "mqcn_suite")) and getattr(module, "__file__", None)
    )
    print(
        json.dumps(
            {
                "results": {"corpus": digest.hexdigest(), "verdicts": verdicts, "cases": cases},
                "vectors": len(generators.reference_vectors()),
                "project_files": project,
                "third_party": third_party,
            }
        )
    )


if __name__ == "__main__":
    main()
