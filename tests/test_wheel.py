"""The wheel, as a user installs it: built from the sources, installed into a fresh venv without
the ``[spark]`` extra, and run from a directory that is no checkout.

Slow (about 25 s: the build, an install of the dependencies from pip's cache, the runs), so
it is marked ``slow`` -- and still runs in plain ``pytest`` and in CI: a wheel that cannot run
is exactly what the suite's own tests never saw before (issue 18).

* the build reads a copy of the files a build needs (:data:`BUILD_INPUTS`), so nothing of
  the checkout's ``build/`` or ``*.egg-info`` can leak into the wheel and the checkout is left
  as it was;
* the venv is created without ``--system-site-packages`` (a dependency missing from the base
  package must show), without pip (this interpreter's pip installs into it, ``--python``),
  and its dependencies are pinned to the versions installed here, so they come from pip's
  cache, as offline as pip allows;
* the runs go from a temporary directory under a ``pyproject.toml`` whose pytest settings
  would break any run that took them up: the installed ``mqcn run`` must use its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

import mqcn_suite

pytestmark = pytest.mark.slow

ROOT = Path(mqcn_suite.__file__).resolve().parent.parent
DISTRIBUTION = "mqcn-conformance"
# What the build reads: pyproject.toml, setup.py, the readme and the trees they name.
BUILD_INPUTS = (
    "pyproject.toml",
    "setup.py",
    "README.md",
    "mqcn_model",
    "mqcn_suite",
    "features",
    "steps",
    "reference_vectors",
)
PIP_TIMEOUT = 600  # seconds: generous, for a cold cache
SPARK_MODULES = ("pyspark", "pyarrow", "pandas")


@dataclass(frozen=True)
class Installed:
    """The fresh venv holding the wheel, and a directory to run from that is no checkout."""

    python: Path
    mqcn: Path
    workdir: Path
    seconds: dict[str, float]

    def env(self) -> dict[str, str]:
        """This environment less what would put the checkout on the path."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
        env["NO_COLOR"] = "1"
        return env

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """``mqcn ARGS`` of the venv, from :attr:`workdir`."""
        return subprocess.run(
            [str(self.mqcn), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=self.env(),
            cwd=self.workdir,
        )

    def python_says(self, code: str) -> str:
        """What ``code`` prints, run by the venv's Python from :attr:`workdir`."""
        done = subprocess.run(
            [str(self.python), "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            env=self.env(),
            cwd=self.workdir,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.strip()


def _pip(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args],
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT,
    )
    output = f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"pip {' '.join(args[:3])} failed:\n{output}"


def _pins(path: Path) -> Path:
    """A constraints file: every distribution installed here at its installed version (the
    dependencies the wheel needs are then those pip's cache holds)."""
    pins = set()
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.lower() != DISTRIBUTION:
            pins.add(f"{name}=={dist.version}")
    path.write_text("\n".join(sorted(pins)) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("wheel")
    # pytest settings that break any run taking them up: the installed run must not
    (base / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\naddopts = "--no-such-option-here"\n', encoding="utf-8"
    )
    source = base / "source"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in BUILD_INPUTS:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=ignore)
        else:
            shutil.copy2(path, source / name)
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    _pip("wheel", "--no-deps", "--wheel-dir", str(base / "dist"), str(source))
    seconds["build"] = time.perf_counter() - started
    (wheel,) = (base / "dist").glob("mqcn_conformance-*.whl")
    started = time.perf_counter()
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    _pip("--python", str(python), "install", "-c", str(_pins(base / "pins.txt")), str(wheel))
    seconds["install"] = time.perf_counter() - started
    workdir = base / "elsewhere"
    workdir.mkdir()
    yield Installed(python, venv / "bin" / "mqcn", workdir, seconds)


def test_the_wheel_runs_the_conformance_scenarios_from_any_directory(installed: Installed) -> None:
    where = installed.python_says("import mqcn_suite; print(mqcn_suite.__file__)")
    assert "site-packages" in where, where  # the installed copy, not this checkout
    started = time.perf_counter()
    done = installed.run("run", "--report", "report", "--", "-n", "2")  # xdist: a dependency
    installed.seconds["run"] = time.perf_counter() - started
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    report = installed.workdir / "report"
    document = json.loads((report / "traceability.json").read_text("utf-8"))
    assert document["run"]["passed"] > 380 and document["run"]["failed"] == 0
    assert document["run"]["target_acted"] == document["run"]["passed"]
    assert document["summary"]["failed"] == 0
    for name in ("report.html", "junit.xml", "cucumber.json"):
        assert (report / name).is_file(), name
    print(f"wheel: {', '.join(f'{k} {v:.1f} s' for k, v in installed.seconds.items())}")


def test_the_wheel_has_no_spark_and_its_pipeline_says_how_to_get_it(installed: Installed) -> None:
    probe = f"import importlib.util as u; print([m for m in {SPARK_MODULES!r} if u.find_spec(m)])"
    assert installed.python_says(probe) == "[]"
    done = installed.run("audit", str(installed.workdir), "--out", "audit")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "mqcn audit: error: the Spark pipeline is not installed (missing: pyspark, pyarrow, "
        "pandas): pip install 'mqcn-conformance[spark]' (Spark also needs Java 17 or 21)"
    ]


def test_the_wheel_carries_the_features_and_the_samples(installed: Installed) -> None:
    listed = installed.run("catalog", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    covered = [entry for entry in json.loads(listed.stdout) if entry["scenarios"]]
    assert len(covered) > 150
    sample = installed.python_says(
        "from mqcn_suite.locations import reference_vectors_dir as d; "
        "print(d() / 'samples' / 'v1-queue-creation.bin')"
    )
    assert "_bundled" in sample
    decoded = installed.run("decode", "--file", sample, "--json")
    assert decoded.returncode == 0, decoded.stderr
    assert json.loads(decoded.stdout)["conforming"] is True


def test_the_replay_line_of_an_installed_run_works_from_anywhere(installed: Installed) -> None:
    """The report's replay command re-runs the failing scenario from another directory."""
    failed = installed.run(
        "run",
        "--target",
        "zoo:AppliesLabelOnQueueUpdate",
        "--report",
        "zoo-report",
        "--",
        "-m",
        "MQCN-3.2.5.1-13",
    )
    assert failed.returncode == 1, failed.stderr[-3000:]
    document = json.loads((installed.workdir / "zoo-report" / "traceability.json").read_text())
    (requirement,) = [r for r in document["requirements"] if r["verdict"] == "fail"]
    replay = requirement["failures"][0]["replay"]
    assert replay.startswith("pytest /") and "_bundled/steps/" in replay
    elsewhere = installed.workdir / "another"
    elsewhere.mkdir()
    env = installed.env()
    env["PATH"] = f"{installed.python.parent}{os.pathsep}{env.get('PATH', '')}"
    again = subprocess.run(
        ["sh", "-c", f"{replay} -q -p no:randomly"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=elsewhere,
    )
    assert again.returncode == 1, f"{again.stdout[-3000:]}\n{again.stderr[-2000:]}"
    assert "1 failed" in again.stdout
