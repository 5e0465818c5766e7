"""LDAP mode proven (issue 21): the suite's verdicts do not depend on where the directory lives.

* The whole suite in LDAP mode (``mqcn run --directory ldap``) against the reference and the
  Node example gives the requirement verdicts of dict mode, and the reads it judged were seen
  at the LDAP server (``read_sources`` ``["ldap"]``).
* The zoo's LDAP readers (mqcn_suite/targets/zoo.py ``LDAP_ZOO``) fail the Read Directory
  requirements with a message that says what went wrong; the other accepted reading of Find
  Object By GUID (the escaped bytes) passes.
* Bad input: no slapd, a target that cannot read LDAP, an unknown ``--directory``, the suite's
  own directory dying mid-run, a scenario value LDAP cannot hold -- one line each, ``error``
  (never ``fail``) inside a run.
* The Node example's own LDAP end-to-end test, against the fixture's slapd.

Every test here shares the ``ldap`` xdist worker; only a missing slapd skips (the tests that
make slapd unfindable on purpose run everywhere).  Whole runs are few (one per target and
mode); the rest select scenarios with ``-m`` / ``-k``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from mqcn_suite.cli import app
from mqcn_suite.directory import slapd as slapd_module
from mqcn_suite.directory.slapd import SlapdDirectory
from mqcn_suite.report import VERDICTS
from mqcn_suite.scenarios.expectations import missed_read_problem, read_problems
from mqcn_suite.targets.ldap_mode import LdapMode
from mqcn_suite.targets.ldap_reader import LdapDirectory
from mqcn_suite.targets.zoo import (
    LDAP_VALUE_ZOO,
    LDAP_ZOO,
    BindsWithAWrongPassword,
    FiltersOnTheWrongAttribute,
    LdapZooTarget,
    ReadsByEscapedGuid,
    WritesTheGuidInRfc4122Order,
    ZooTarget,
)

pytest_plugins = ["ldap_fixture"]  # the slapd_directory fixture, the ldap xdist group
pytestmark = pytest.mark.xdist_group("ldap")

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
NODE_TARGET = ROOT / "examples" / "node-target"
# the scenarios that judge a Read Directory's object and attribute list (3.2.5.2)
READ_REQUIREMENTS = "MQCN-3.2.5.2-3 or MQCN-3.2.5.2-5 or MQCN-3.2.5.2-8"
# ... less the slow-server scenario (its 0.5 s per request are the whole run's time again)
READ_SCENARIOS = ("-m", READ_REQUIREMENTS, "-k", "not answers_each_request_after")
INSTALL_HINT = "apt-get install slapd ldap-utils"

runner = CliRunner()


def mqcn(*args: str) -> Result:
    return runner.invoke(app, list(args))


def run_suite(report: Path, target: str, directory: str, *pytest_args: str) -> Result:
    """``mqcn run`` in this process (``directory``: ``dict`` or ``ldap``)."""
    args = ["run", "--target", target, "--report", str(report), "--directory", directory]
    return mqcn(*args, "--", "-q", "-p", "no:cacheprovider", *pytest_args)


def document(report: Path) -> dict[str, Any]:
    return json.loads((report / "traceability.json").read_text("utf-8"))


def verdicts(report: Path, *wanted: str) -> dict[str, str]:
    return {
        r["id"]: r["verdict"]
        for r in document(report)["requirements"]
        if not wanted or r["verdict"] in wanted
    }


def scenarios(report: Path) -> dict[str, dict[str, Any]]:
    """Every scenario that ran, by node id (one entry per scenario, whatever it judged)."""
    found: dict[str, dict[str, Any]] = {}
    for requirement in document(report)["requirements"]:
        for scenario in requirement["scenarios"]:
            if scenario.get("nodeid"):
                found.setdefault(scenario["nodeid"], scenario)
    return found


def failure_messages(report: Path) -> dict[str, list[str]]:
    """The messages of each requirement that did not pass, by requirement ID."""
    return {
        r["id"]: [f["message"] for f in r["failures"]]
        for r in document(report)["requirements"]
        if r["failures"]
    }


@pytest.fixture
def node() -> str:
    """Node.js, which the project's machines have, with the example's LDAP client (ldapts,
    installed here by ``npm ci`` when missing, as .ci/run does); their absence fails, it is
    not skipped."""
    assert NODE is not None, "Node.js (20+) is needed to run examples/node-target"
    if not (NODE_TARGET / "node_modules" / "ldapts").is_dir():
        command = ["npm", "ci", "--prefix", str(NODE_TARGET), "--no-audit", "--no-fund"]
        why = "npm not found"
        if shutil.which("npm"):
            done = subprocess.run(command, capture_output=True, text=True, timeout=300)
            why = "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["?"])[-1]
        assert not why, f"the Node example's LDAP client is missing; `{' '.join(command)}`: {why}"
    return NODE


# --- 1. equal verdicts, reads observed at the server -------------------------------------------


@pytest.mark.parametrize("target", ["reference", "node"])
def test_ldap_mode_gives_the_verdicts_of_dict_mode_with_reads_seen_at_the_server(
    slapd_installed: Path, tmp_path: Path, target: str, request: pytest.FixtureRequest
) -> None:
    """The whole suite both ways: each requirement's verdict is the same.  The LDAP-only
    scenarios (features/3.2.5.2-directory-ldap.feature) are not applicable in dict mode, so
    scenario counts differ; verdicts may not.  Every scenario that judged reads in LDAP mode
    learnt them at the server, and so did every one that judged reads in dict mode."""
    if target == "node":
        target = f"exec:{request.getfixturevalue('node')} {NODE_TARGET / 'target.js'}"
    ldap, plain = tmp_path / "ldap", tmp_path / "dict"
    ran = run_suite(ldap, target, "ldap")
    assert ran.exit_code == 0, ran.output[-3000:]
    assert run_suite(plain, target, "dict").exit_code == 0
    assert verdicts(ldap) == verdicts(plain)
    assert not verdicts(ldap, "fail", "error", "inconclusive", "claim-fail")
    assert document(ldap)["run"]["options"] == {"--mqcn-directory": "ldap"}
    seen = {n: s["read_sources"] for n, s in scenarios(ldap).items() if "read_sources" in s}
    assert seen and all(sources == ["ldap"] for sources in seen.values()), seen
    told = {n for n, s in scenarios(plain).items() if s.get("read_sources") == ["target"]}
    assert told and told <= set(seen), told - set(seen)
    assert any("test_directory_ldap.py" in n for n in seen)  # the LDAP-only scenarios judged reads


# --- 2. the zoo's LDAP readers ------------------------------------------------------------------


@pytest.mark.parametrize("faulty", LDAP_ZOO, ids=[z.__name__ for z in LDAP_ZOO])
def test_each_faulty_ldap_reader_fails_the_read_requirements_and_says_why(
    slapd_installed: Path, tmp_path: Path, faulty: type[LdapZooTarget]
) -> None:
    result = run_suite(tmp_path, f"zoo:{faulty.__name__}", "ldap", *READ_SCENARIOS)
    assert result.exit_code == 1, result.output[-3000:]
    failing = verdicts(tmp_path, "fail", "claim-fail", "error")
    assert {rid for rid, v in failing.items() if v == "fail"} >= faulty.READS, failing
    assert set(failing) <= {faulty.BREAKS} | faulty.ALSO_BREAKS, failing
    assert "error" not in failing.values(), failing
    messages = failure_messages(tmp_path)
    for rid in faulty.READS:
        assert messages[rid], rid
        for message in messages[rid]:
            assert message.startswith(f"{rid}: no Read Directory of "), message
            assert faulty.SAYS in message, message
            assert "\n" not in message


@pytest.mark.parametrize("faulty", LDAP_VALUE_ZOO, ids=[z.__name__ for z in LDAP_VALUE_ZOO])
def test_each_ldap_reader_that_reads_wrong_values_fails_its_requirement(
    slapd_installed: Path, tmp_path: Path, faulty: type[ZooTarget]
) -> None:
    """A Pathname kept in the directory's case, a change answered from the first read: the
    scenarios that publish mixed-case names and change the directory between two
    notifications catch each on its requirement, saying what was wrong."""
    selection = ("-m", " or ".join(sorted({faulty.BREAKS} | faulty.ALSO_BREAKS)))
    result = run_suite(tmp_path, f"zoo:{faulty.__name__}", "ldap", *selection)
    assert result.exit_code == 1, result.output[-3000:]
    failing = verdicts(tmp_path, "fail", "claim-fail", "error")
    assert failing.get(faulty.BREAKS) == "fail", failing
    assert set(failing) <= {faulty.BREAKS} | faulty.ALSO_BREAKS, failing
    messages = failure_messages(tmp_path)[faulty.BREAKS]
    assert messages and all(faulty.SAYS in m for m in messages), messages


def test_the_readings_of_find_object_by_guid_both_pass(
    slapd_installed: Path, tmp_path: Path
) -> None:
    """The escaped objectGUID bytes (Active Directory clients' form) pass as the letter's
    CompactGuid does (the reference; the whole-run test above): docs/directory.md, decision 4."""
    name = ReadsByEscapedGuid.__name__
    result = run_suite(tmp_path, f"zoo:{name}", "ldap", *READ_SCENARIOS)
    assert result.exit_code == 0, result.output[-3000:]
    judged = verdicts(tmp_path, *VERDICTS)
    for rid in READ_REQUIREMENTS.split(" or "):
        assert judged[rid] == "pass", (rid, judged[rid])
    assert not verdicts(tmp_path, "fail", "error", "claim-fail")


def test_the_ldap_zoo_is_the_reference_in_dict_mode(tmp_path: Path) -> None:
    """Their faults are in the LDAP reader alone: with the dict directory every read passes."""
    for member in (*LDAP_ZOO, *LDAP_VALUE_ZOO, ReadsByEscapedGuid):
        report = tmp_path / member.__name__
        result = run_suite(report, f"zoo:{member.__name__}", "dict", *READ_SCENARIOS)
        assert result.exit_code == 0, (member, result.output[-2000:])
        assert not verdicts(report, "fail", "error"), member


# --- 3. bad input ---------------------------------------------------------------------------------


@pytest.fixture
def no_slapd(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """slapd unfindable: an empty PATH and no sbin folders to look in."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(slapd_module, "SBIN", ())


def test_mqcn_run_without_slapd_says_how_to_install_it_in_one_line(
    no_slapd: None, tmp_path: Path
) -> None:
    result = run_suite(tmp_path / "report", "reference", "ldap")
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mqcn run: error: --directory: OpenLDAP's slapd is not installed")
    assert lines[0].endswith(INSTALL_HINT)
    assert "Traceback" not in result.output
    assert not (tmp_path / "report" / "traceability.json").exists()  # nothing ran


def test_the_pytest_option_without_slapd_is_one_usage_error_line(tmp_path: Path) -> None:
    """``pytest --mqcn-directory=ldap`` (a process of its own: slapd is made unfindable in it
    before pytest starts)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    code = (
        "import sys, pytest\n"
        "import mqcn_suite.directory.slapd as s\n"
        "s.SBIN = ()\n"
        "sys.exit(pytest.main(sys.argv[1:]))\n"
    )
    pytest_args = [str(ROOT / "steps"), "--mqcn-directory=ldap", "-q", "-p", "no:cacheprovider"]
    pytest_args += [f"--rootdir={ROOT}", "-c", str(ROOT / "pyproject.toml")]
    done = subprocess.run(
        [sys.executable, "-c", code, *pytest_args],
        cwd=tmp_path,
        env={**os.environ, "PATH": str(empty)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("ERROR: --mqcn-directory: OpenLDAP's slapd is not installed")
    assert lines[0].endswith(INSTALL_HINT)


def test_a_target_without_the_ldap_capability_is_one_line(tmp_path: Path) -> None:
    """A version 1 exec target (no ``directory`` in hello) cannot run in LDAP mode."""
    serve = f"exec:{sys.executable} -m mqcn_suite.targets.serve"
    result = run_suite(tmp_path / "report", serve, "ldap")
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mqcn run: error: --directory: the target 'exec:")
    assert 'names no "directory": ["ldap"]' in lines[0]


@pytest.mark.parametrize("value", ["ldpa", "LDAP", "http://127.0.0.1:389", ""])
def test_an_unknown_directory_value_is_one_line(tmp_path: Path, value: str) -> None:
    result = run_suite(tmp_path / "report", "reference", value)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert lines == [
        f"mqcn run: error: --directory: expected 'dict', 'ldap' or an ldap:// URL, not {value!r}"
    ], result.stderr


def _kill(directory: SlapdDirectory, lose_database: bool) -> None:
    """SIGKILL slapd's process group and wait for it; with ``lose_database`` its database
    folder goes too, so that it cannot be started again."""
    pid = directory.pid
    assert pid is not None
    os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while directory.running:  # polls the process: reaps it once it is gone
        assert time.monotonic() < deadline, "slapd outlived SIGKILL"
        time.sleep(0.01)
    if lose_database:
        assert directory.folder is not None
        shutil.rmtree(directory.folder / "db")


@pytest.mark.parametrize("lose_database", [True, False], ids=["for-good", "restartable"])
def test_the_suites_directory_dying_mid_run_is_error_never_fail(
    slapd_installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lose_database: bool
) -> None:
    """slapd killed after the second scenario.  The next reset starts it again; when that
    cannot work (its database is gone) every later scenario is ``error`` with one line naming
    the suite's directory, no requirement fails, and the run exits 4 (the target -- here the
    run's own directory -- broke).  When it can, the rest of the run passes."""
    ended: list[int] = []
    end_scenario = LdapMode.end_scenario

    def then_die(self: LdapMode) -> None:
        end_scenario(self)
        ended.append(1)
        if len(ended) == 2:
            _kill(self.session.directory, lose_database)

    monkeypatch.setattr(LdapMode, "end_scenario", then_die)
    result = run_suite(tmp_path, "reference", "ldap", "-k", "test_processing_v2")
    ran = scenarios(tmp_path)
    outcomes = [s["outcome"] for s in ran.values()]
    assert len(ran) > 4 and "failed" not in outcomes
    assert not verdicts(tmp_path, "fail", "claim-fail")
    if not lose_database:
        assert result.exit_code == 0, result.output[-3000:]
        assert set(outcomes) == {"passed"}
        return
    assert result.exit_code == 4, result.output[-3000:]
    assert outcomes.count("passed") == 2 and outcomes.count("error") == len(ran) - 2, outcomes
    errors = [m for ms in failure_messages(tmp_path).values() for m in ms]
    assert errors
    for message in errors:
        assert "\n" not in message
        assert "the suite's LDAP directory: slapd exited at start" in message, message


def test_a_scenario_value_ldap_cannot_hold_is_error_naming_the_attribute(
    slapd_installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Setup whose published queue has Journaling 7 (a Boolean is 0 or 1): the suite cannot
    write it, so the scenario is ``error`` saying which queue, attribute and value; no
    requirement fails."""
    reset = LdapMode.reset

    def journaling_7(self: LdapMode, setup: Any, **options: Any) -> None:
        for entry in setup.directory_queues:
            entry["queue"] = {**entry["queue"], "Journaling": 7}
        reset(self, setup, **options)

    monkeypatch.setattr(LdapMode, "reset", journaling_7)
    selection = "event_2_reads_the_queue_with_the_16 or event_1_reads_the_new_queue_with"
    result = run_suite(tmp_path, "reference", "ldap", "-k", selection)
    assert result.exit_code == 4, result.output[-3000:]
    outcomes = {n: s["outcome"] for n, s in scenarios(tmp_path).items()}
    assert len(outcomes) == 2 and set(outcomes.values()) == {"error"}, outcomes
    assert not verdicts(tmp_path, "fail", "claim-fail")
    errors = {m for ms in failure_messages(tmp_path).values() for m in ms}
    assert errors
    for message in errors:
        assert "\n" not in message
        assert "Journaling (mSMQJournal) = 7 cannot be written" in message, message
        assert "the suite's LDAP directory" in message


# --- 4. the Node example's own LDAP end-to-end test --------------------------------------------


def test_the_node_example_reads_the_fixtures_directory_end_to_end(
    slapd_directory: SlapdDirectory, node: str
) -> None:
    """examples/node-target/test/ldap-e2e.js against the fixture's slapd (it writes its own
    objects under CN=Computers with the suite's account, reads as the target's, then deletes
    them); it skips without a directory, so it must report no skip here."""
    suite, target = slapd_directory.suite_credentials, slapd_directory.target_credentials
    env = {
        **os.environ,
        "MQCN_TEST_LDAP_URL": target.url,
        "MQCN_TEST_LDAP_WRITE_DN": suite.bind_dn,
        "MQCN_TEST_LDAP_WRITE_PASSWORD": suite.password,
        "MQCN_TEST_LDAP_BIND_DN": target.bind_dn,
        "MQCN_TEST_LDAP_PASSWORD": target.password,
        "MQCN_TEST_LDAP_NAMING_CONTEXT": target.naming_context,
        "MQCN_TEST_LDAP_SERVERS": json.dumps(
            {"dc1.example.com": slapd_directory.urls["dc1.example.com"]}
        ),
    }
    done = subprocess.run(
        [node, "--test", str(NODE_TARGET / "test" / "ldap-e2e.js")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert "# skipped 0" in done.stdout and "# pass 0" not in done.stdout, out[-4000:]


def test_the_ldap_zoo_readers_do_what_their_names_say() -> None:
    """The filter or password each reader uses (the letter's filter is the reference's)."""
    guid = uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff")
    ldap = {"url": "ldap://127.0.0.1:1", "bind_dn": "cn=x", "password": "p"}
    letter = LdapDirectory.from_setup(ldap)
    assert letter.guid_filter(guid) == "(objectGuid=6F9619FF8B86D011B42D00C04FC964FF)"
    escaped = ReadsByEscapedGuid.reader_class.from_setup(ldap).guid_filter(guid)
    assert escaped == "(objectGUID=\\ff\\19\\96\\6f\\86\\8b\\11\\d0" + (
        "\\b4\\2d\\00\\c0\\4f\\c9\\64\\ff)"
    )
    wrong_name = FiltersOnTheWrongAttribute.reader_class.from_setup(ldap)
    assert wrong_name.guid_filter(guid) == f"(cn={guid})"
    rfc = WritesTheGuidInRfc4122Order.reader_class.from_setup(ldap).guid_filter(guid)
    assert rfc == "(objectGUID=\\6f\\96\\19\\ff\\8b\\86\\d0\\11" + (
        "\\b4\\2d\\00\\c0\\4f\\c9\\64\\ff)"
    )
    wrong_password = BindsWithAWrongPassword.reader_class.from_setup(ldap)
    assert wrong_password.password != "p"
    assert wrong_password.guid_filter(guid) == letter.guid_filter(guid)


def test_a_missed_read_says_what_was_read_instead() -> None:
    """Each way a read can miss its object, in words (mqcn_suite/scenarios/expectations.py)."""
    guid = uuid.UUID("a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d")
    swapped = uuid.UUID(bytes_le=guid.bytes)  # what DTYP order makes of RFC 4122 bytes
    other = uuid.UUID(int=5)
    assert missed_read_problem([], guid) == "no Read Directory was made"
    assert missed_read_problem([{"identifier": str(guid)}], guid) == "no Read Directory was made"
    refused = {"identifier": None, "bind": {"dn": "cn=t", "result": 49}, "source": "ldap"}
    wrong_filter = {"identifier": None, "filter": "(cn=orders)", "source": "ldap"}
    rfc = {"identifier": str(swapped), "object_type": None, "source": "ldap"}
    held = {"identifier": str(other), "object_type": "Queue", "source": "ldap"}
    said = missed_read_problem([refused, refused, wrong_filter, rfc, held], guid)
    assert said.startswith(f"no Read Directory of {guid} was made: ")
    assert said.count("refused the bind of 'cn=t' (LDAP result 49 invalidCredentials)") == 1
    assert "the search (cn=orders) names no object by its Identifier" in said
    assert (
        f"it read the object {swapped} (the Identifier's bytes in RFC 4122 order, not "
        "[MS-DTYP] 2.3.4.2's), which the directory does not hold"
    ) in said
    assert said.endswith(f"it read the object {other}")
    message = read_problems(None, "Queue", guid, None, [wrong_filter])
    assert message == [f"no Read Directory of {guid} was made: {said.split('; ')[1]}"]
