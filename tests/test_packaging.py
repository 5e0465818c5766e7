"""How the suite is packaged and what it needs from the machine (issue 18, items 6 and 8).

* where the run finds ``features/``, ``steps/`` and ``reference_vectors/``: the checkout
  first, else the copy a wheel carries (:mod:`mqcn_suite.locations`);
* the dependencies: pyspark, pyarrow and pandas only in the ``[spark]`` extra, which ``dev``
  includes; pytest-xdist in the base package; nothing but the pipeline imports Spark's
  modules, and the pipeline commands say in one line how to install them;
* Java, checked before Spark's gateway starts (:mod:`mqcn_suite.pipeline.preflight`).

The wheel itself, built and installed into a fresh venv, is ``tests/test_wheel.py``.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tomllib
from configparser import ConfigParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mqcn_suite
from mqcn_suite import coverage, locations
from mqcn_suite.cli import app
from mqcn_suite.commands import run as run_command
from mqcn_suite.commands import selftest as selftest_command
from mqcn_suite.pipeline import generators, preflight

ROOT = Path(mqcn_suite.__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
SPARK_MODULES = ("pyspark", "pyarrow", "pandas", "py4j")
runner = CliRunner()


def _requirement_names(requirements: list[str]) -> list[str]:
    """``pyspark>=4.0,<4.4`` -> ``pyspark``."""
    names = []
    for requirement in requirements:
        name = requirement
        for stop in "<>=!~[;@ ":
            name = name.split(stop, 1)[0]
        names.append(name.strip().lower())
    return names


def _fake_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundled: bool = True) -> Path:
    """A ``site-packages`` without a checkout around it: ``mqcn_suite/`` there, with the trees
    a wheel carries in ``mqcn_suite/_bundled/`` (or without them), and a stray ``steps/`` and
    ``features/`` of some other distribution beside it.  Returns the bundled root."""
    site = tmp_path / "site-packages"
    package = site / "mqcn_suite"
    package.mkdir(parents=True)
    (site / "steps").mkdir()
    (site / "features").mkdir()
    if bundled:
        for tree in locations.TREES:
            (package / locations.BUNDLED / tree).mkdir(parents=True)
    monkeypatch.setattr(locations, "_PACKAGE", package)
    return package / locations.BUNDLED


# --- where the trees are -----------------------------------------------------------------------


def test_a_checkout_reads_its_own_trees() -> None:
    assert locations.is_checkout(ROOT)
    assert locations.suite_root() == ROOT
    assert locations.features_dir() == ROOT / "features"
    assert locations.steps_dir() == ROOT / "steps"
    assert locations.reference_vectors_dir() == ROOT / "reference_vectors"


def test_an_installed_package_reads_the_bundled_trees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundled = _fake_install(tmp_path, monkeypatch)
    # steps/ and features/ of another distribution in site-packages are no checkout
    assert locations.suite_root() == bundled
    assert coverage.default_features_dir() == bundled / "features"
    assert run_command.steps_dir() == bundled / "steps"


def test_the_run_uses_the_packaged_settings_without_a_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundled = _fake_install(tmp_path, monkeypatch)
    arguments = run_command.pytest_arguments("reference", tmp_path / "out", ["-q"])
    assert arguments[:4] == [
        str(bundled / "steps"),
        f"--rootdir={bundled}",
        "-c",
        str(run_command.INSTALLED_INI),
    ]
    assert run_command.INSTALLED_INI.is_file()
    # in the checkout: its own pyproject.toml
    monkeypatch.undo()
    assert run_command.pytest_arguments("reference", tmp_path / "out", [])[2:4] == [
        "-c",
        str(ROOT / "pyproject.toml"),
    ]


def test_the_packaged_pytest_settings_are_the_projects() -> None:
    """pytest-run.ini holds pyproject.toml's pytest settings, less ``testpaths``."""
    ini = ConfigParser()
    ini.read(run_command.INSTALLED_INI, encoding="utf-8")
    packaged = dict(ini["pytest"])
    project = {
        key: " ".join(value) if isinstance(value, list) else value
        for key, value in PYPROJECT["tool"]["pytest"]["ini_options"].items()
        if key != "testpaths"
    }
    assert packaged == project


def test_the_replay_line_names_the_bundled_scenario_without_a_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mqcn_suite.report.traceability import replay_command

    nodeid = "steps/test_x.py::test_o[a b]"
    assert replay_command(nodeid, "reference") == (
        "pytest 'steps/test_x.py::test_o[a b]' --mqcn-target=reference"
    )
    bundled = _fake_install(tmp_path, monkeypatch)
    assert replay_command(nodeid, "reference") == (
        f"pytest '{bundled}/steps/test_x.py::test_o[a b]' -c {locations.INSTALLED_INI} "
        f"--rootdir={bundled} --mqcn-target=reference"
    )


def test_no_trees_anywhere_is_one_line_naming_both_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_install(tmp_path, monkeypatch, bundled=False)
    with pytest.raises(locations.SuiteTreeMissing, match="pip install mqcn-conformance") as caught:
        locations.suite_root()
    assert str(tmp_path / "site-packages") in str(caught.value)
    assert locations.BUNDLED in str(caught.value)
    result = runner.invoke(app, ["run", "--report", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.stderr.startswith("mqcn run: error: the scenarios' step definitions are not")
    assert len(result.stderr.splitlines()) == 1
    result = runner.invoke(app, ["catalog", "list", "--json"])
    assert result.exit_code == 2 and "pip install mqcn-conformance" in result.stderr


def test_the_generators_draw_the_bundled_vectors_without_a_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout_vectors = generators.reference_vectors()
    assert checkout_vectors
    bundled = _fake_install(tmp_path, monkeypatch)
    for source in sorted((ROOT / "reference_vectors").glob("*_test.json")):
        (bundled / "reference_vectors" / source.name).write_bytes(source.read_bytes())
    fake_module = tmp_path / "site-packages" / "mqcn_suite" / "pipeline" / "generators.py"
    monkeypatch.setattr(generators, "__file__", str(fake_module))
    generators.reference_vectors.cache_clear()
    try:
        assert generators.reference_vectors() == checkout_vectors
    finally:
        generators.reference_vectors.cache_clear()


def test_mutation_testing_from_an_installed_package_asks_for_a_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_install(tmp_path, monkeypatch)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(selftest_command.UsageError, match="needs a checkout"):
        selftest_command.project_root(None)
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    assert selftest_command.project_root(None) == ROOT


def test_the_setup_maps_every_tree_and_its_folders() -> None:
    """setup.py declares each tree (and reference_vectors/samples/) as a bundled package."""
    import runpy
    from unittest import mock

    with mock.patch("setuptools.setup") as setup:
        runpy.run_path(str(ROOT / "setup.py"))
    kwargs = setup.call_args.kwargs
    expected = {f"mqcn_suite._bundled.{tree}": tree for tree in locations.TREES}
    expected["mqcn_suite._bundled.reference_vectors.samples"] = "reference_vectors/samples"
    assert kwargs["package_dir"] == expected
    packages = set(kwargs["packages"])
    assert {"mqcn_model", "mqcn_suite", "mqcn_suite.pipeline.audit", *expected} <= packages
    assert not [p for p in packages if "__pycache__" in p]


# --- dependencies ------------------------------------------------------------------------------


def test_spark_is_an_extra_that_dev_includes_and_xdist_is_a_dependency() -> None:
    project = PYPROJECT["project"]
    base = _requirement_names(project["dependencies"])
    extras = project["optional-dependencies"]
    assert not set(base) & set(preflight.SPARK_EXTRA)
    assert "pytest-xdist" in base  # `mqcn run -- -n 2` in the README
    assert sorted(_requirement_names(extras["spark"])) == sorted(preflight.SPARK_EXTRA)
    assert "mqcn-conformance[spark]" in extras["dev"]


def _without_spark(*code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter in which pyspark, pyarrow, pandas and py4j cannot
    be imported (``sys.modules[name] = None``), with this checkout's packages."""
    block = f"import sys\nfor name in {SPARK_MODULES!r}:\n    sys.modules[name] = None\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-c", block + "\n".join(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
    )


def _mqcn_without_spark(*args: str) -> subprocess.CompletedProcess[str]:
    return _without_spark(
        "from mqcn_suite.cli import main",
        f"sys.argv = ['mqcn', *{list(args)!r}]",
        "main()",
    )


def test_nothing_but_the_pipeline_imports_spark_modules() -> None:
    """Every module of mqcn_model and of mqcn_suite outside the pipeline imports without
    pyspark, pyarrow, pandas; so do the pipeline modules the commands import up front."""
    found = _without_spark(
        "import importlib, pkgutil, mqcn_model, mqcn_suite",
        "names = [m.name for p in (mqcn_model, mqcn_suite)",
        "         for m in pkgutil.walk_packages(p.__path__, p.__name__ + '.')",
        "         if not m.name.startswith('mqcn_suite.pipeline.')]",
        "names += ['mqcn_suite.pipeline.session', 'mqcn_suite.pipeline.preflight',",
        "          'mqcn_suite.pipeline.errors']",
        "for name in names:",
        "    importlib.import_module(name)",
        "print(len(names))",
    )
    assert found.returncode == 0, found.stderr[-3000:]
    assert int(found.stdout) > 50


def test_run_decode_catalog_and_pics_work_without_spark(tmp_path: Path) -> None:
    report = tmp_path / "report"
    ran = _mqcn_without_spark("run", "--report", str(report), "--", "-m", "MQCN-3.2.5.1-4")
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert (report / "traceability.json").is_file()
    sample = ROOT / "reference_vectors" / "samples" / "v1-queue-creation.bin"
    decoded = _mqcn_without_spark("decode", "--file", str(sample), "--json")
    assert decoded.returncode == 0, decoded.stderr
    listed = _mqcn_without_spark("catalog", "list", "--json")
    assert listed.returncode == 0 and '"MQCN-2.2.4-3"' in listed.stdout, listed.stderr
    pics = _mqcn_without_spark("pics", "--out", str(tmp_path / "pics.yaml"))
    assert pics.returncode == 0, pics.stderr
    helped = _mqcn_without_spark("selftest", "mutation", "--help")
    assert helped.returncode == 0 and "mutation" in helped.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["corpus", "generate", "--count", "5", "--out", "{tmp}/corpus"],
        ["audit", "{tmp}", "--out", "{tmp}/audit"],
        ["fuzz", "target", "--target", "reference", "--cases", "5"],
        ["fuzz", "codec", "--cases", "5"],
    ],
    ids=["corpus-generate", "audit", "fuzz", "fuzz-codec"],
)
def test_a_pipeline_command_without_spark_says_how_to_install_it(
    tmp_path: Path, args: list[str]
) -> None:
    done = _mqcn_without_spark(*(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "pyspark, pyarrow, pandas" in lines[0]
    assert "pip install 'mqcn-conformance[spark]'" in lines[0]
    assert "Traceback" not in done.stderr


def test_help_works_without_spark() -> None:
    helped = _mqcn_without_spark("run", "--help")
    assert helped.returncode == 0 and "--max-timeouts" in helped.stdout, helped.stderr
    helped = _mqcn_without_spark("audit", "--help")
    assert helped.returncode == 0 and "--master" in helped.stdout, helped.stderr


# --- Java --------------------------------------------------------------------------------------


def _fake_java(home: Path, version_line: str, code: int = 0) -> Path:
    """A JDK directory whose bin/java prints ``version_line`` on stderr as ``java -version``."""
    java = home / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\nexit {code}\n", encoding="utf-8")
    java.chmod(java.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return home


def test_java_home_without_java_is_named(tmp_path: Path) -> None:
    problem = preflight.java_problem({"JAVA_HOME": str(tmp_path), "PATH": os.defpath})
    assert problem is not None
    assert problem.startswith(f"Java not found: JAVA_HOME={tmp_path} has no bin/java")
    assert "17 or 21" in problem and "set JAVA_HOME" in problem
    assert "\n" not in problem


def test_no_java_on_path_is_named(tmp_path: Path) -> None:
    problem = preflight.java_problem({"PATH": str(tmp_path)})
    assert problem is not None
    assert problem.startswith("Java not found: JAVA_HOME is not set, and no java on PATH")


def test_an_old_java_is_named_with_its_version(tmp_path: Path) -> None:
    home = _fake_java(tmp_path / "jdk11", 'openjdk version "11.0.22" 2024-01-16')
    problem = preflight.java_problem({"JAVA_HOME": str(home), "PATH": os.defpath})
    assert problem is not None
    assert problem.startswith(f"Java 11 found ({home}/bin/java, from JAVA_HOME={home})")
    assert "Spark 4 needs Java 17 or later" in problem
    java8 = _fake_java(tmp_path / "jdk8", 'java version "1.8.0_392"')
    assert "Java 8 found" in str(preflight.java_problem({"JAVA_HOME": str(java8)}))


def test_java_on_path_is_the_one_used_when_java_home_is_unset(tmp_path: Path) -> None:
    old = _fake_java(tmp_path / "jdk11", 'openjdk version "11.0.22" 2024-01-16')
    problem = preflight.java_problem({"PATH": str(old / "bin")})
    assert problem is not None and "from PATH" in problem and "Java 11 found" in problem


def test_a_java_that_does_not_run_is_named(tmp_path: Path) -> None:
    broken = _fake_java(tmp_path / "broken", "Error: could not find libjava.so", code=1)
    problem = preflight.java_problem({"JAVA_HOME": str(broken)})
    assert problem is not None
    assert problem.startswith("Java does not run (")
    assert "exited 1: Error: could not find libjava.so" in problem


@pytest.mark.parametrize(
    "line",
    ['openjdk version "17.0.15" 2025-04-15', 'openjdk version "21" 2023-09-19', "gibberish"],
)
def test_a_usable_or_unreadable_java_passes(tmp_path: Path, line: str) -> None:
    home = _fake_java(tmp_path / "jdk", line)
    assert preflight.java_problem({"JAVA_HOME": str(home)}) is None


def test_a_gateway_to_join_needs_no_java(tmp_path: Path) -> None:
    assert preflight.java_problem({"PYSPARK_GATEWAY_PORT": "4242", "PATH": str(tmp_path)}) is None


@pytest.mark.parametrize("setting", ["empty JAVA_HOME", "no java on PATH"])
def test_a_pipeline_command_without_java_says_so_in_one_line(tmp_path: Path, setting: str) -> None:
    """Before the gateway starts: no [JAVA_GATEWAY_EXITED], one line, exit 2."""
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PYSPARK_GATEWAY_PORT")}
    env.update(PYTHONPATH=str(ROOT), NO_COLOR="1")
    if setting == "empty JAVA_HOME":
        (tmp_path / "jdk").mkdir()
        env["JAVA_HOME"] = str(tmp_path / "jdk")
        expected = f"JAVA_HOME={tmp_path / 'jdk'} has no bin/java"
    else:
        env["PATH"] = str(tmp_path)
        expected = "JAVA_HOME is not set, and no java on PATH"
    out = tmp_path / "corpus"
    done = subprocess.run(
        [sys.executable, "-m", "mqcn_suite", "corpus", "generate", "--count", "5", "--out", out],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("mqcn corpus generate: error: Java not found: ")
    assert expected in lines[0] and "Java 17 or 21" in lines[0]
    assert "JAVA_GATEWAY_EXITED" not in done.stderr
