"""Build-time only: which packages the wheel holds, and where the suite's trees go in it.

Everything else (metadata, dependencies, package data) is in ``pyproject.toml``.  This file
exists for what ``pyproject.toml`` cannot say beside ``packages.find``: the
repository keeps ``features/``, ``steps/`` and ``reference_vectors/`` at its top level, and a
wheel has no top level, so each is declared as a package of its own under
``mqcn_suite/_bundled/`` whose directory is the top-level one (setuptools' ``package_dir``:
no copy, no hook; an sdist carries them the same way).  ``mqcn_suite.locations`` finds the
checkout's trees first and the bundled copy when there is no checkout.
"""

from __future__ import annotations

import runpy
from pathlib import Path

from setuptools import find_namespace_packages, setup

HERE = Path(__file__).resolve().parent
_LOCATIONS = runpy.run_path(str(HERE / "mqcn_suite" / "locations.py"))
_NOT_PACKAGES = ["*__pycache__*"]


def bundled() -> dict[str, str]:
    """Each top-level tree and each folder in it, as the package ``mqcn_suite._bundled.*``
    whose directory it is (``reference_vectors/samples`` too: a folder of data files)."""
    mapping: dict[str, str] = {}
    for tree in _LOCATIONS["TREES"]:
        package = f"mqcn_suite.{_LOCATIONS['BUNDLED']}.{tree}"
        mapping[package] = tree
        for sub in find_namespace_packages(where=str(HERE / tree), exclude=_NOT_PACKAGES):
            mapping[f"{package}.{sub}"] = f"{tree}/{sub.replace('.', '/')}"
    return mapping


BUNDLED = bundled()

setup(
    packages=[
        *find_namespace_packages(
            where=str(HERE), include=["mqcn_model*", "mqcn_suite*"], exclude=_NOT_PACKAGES
        ),
        *BUNDLED,
    ],
    package_dir=BUNDLED,
)
