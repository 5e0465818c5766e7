"""Targets: the adapter protocol, ``python:`` and ``exec:`` targets, PICS, and the zoo.

* ``exec:`` is tested against ``python -m mqcn_suite.targets.serve`` — the reference model
  behind the JSON-lines protocol — and its broken modes (hang, exit, garbage, wrong version);
* the PICS guard turns unclaimed scenarios into ``not applicable``, never into silence;
* every member of the zoo (faulty variants of the reference) fails exactly its requirement.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from mqcn_model.constants import AuthLevel, DeliveryGuarantee, HashAlgorithm, SenderIdType
from mqcn_model.envelope import Envelope, MessageId
from mqcn_suite.cli import app
from mqcn_suite.report import VERDICTS
from mqcn_suite.targets import (
    ClaimsGuard,
    ExecTarget,
    NotApplicable,
    Pics,
    PicsError,
    ReferenceTarget,
    Setup,
    TargetBroken,
    TargetError,
    load_pics,
    resolve_target,
)
from mqcn_suite.targets.pics import schema_problem
from mqcn_suite.targets.zoo import ZOO, ZooTarget

runner = CliRunner()
SERVE = f"exec:{sys.executable} -m mqcn_suite.targets.serve"
V1_ONLY = {
    "server": {"v1": True, "v2": False},
    "client": {"v1": False, "v2": False},
    "profiles": ["spec"],
    "readings": ["strict"],
    "workgroup": False,
}


def mqcn(*args: str) -> Result:
    return runner.invoke(app, list(args))


def run_suite(report: Path, target: str, *pytest_args: str, **options: str) -> Result:
    args = ["run", "--target", target, "--report", str(report)]
    for name, value in options.items():
        args += [f"--{name}", value]
    return mqcn(*args, "--", "-q", *pytest_args)


def document(report: Path) -> dict[str, Any]:
    return json.loads((report / "traceability.json").read_text("utf-8"))


def verdicts(report: Path, *wanted: str) -> dict[str, str]:
    return {
        r["id"]: r["verdict"] for r in document(report)["requirements"] if r["verdict"] in wanted
    }


# --- the protocol's values ------------------------------------------------------------------

envelopes = st.builds(
    Envelope,
    body=st.binary(max_size=64),
    message_id=st.builds(MessageId, st.uuids(), st.integers(0, 2**32 - 1)),
    sender_identifier=st.none() | st.uuids(),
    sender_identifier_type=st.sampled_from(SenderIdType),
    authentication_level=st.sampled_from(AuthLevel),
    time_to_reach_queue=st.integers(0, 2**32 - 1),
    delivery_guarantee=st.sampled_from(DeliveryGuarantee),
    hash_algorithm=st.none() | st.sampled_from(HashAlgorithm),
    destination_format_name=st.text(max_size=40),
)


@given(envelopes)
def test_an_envelope_survives_its_json_form_and_fits_the_schema(envelope: Envelope) -> None:
    """Members of value 0 (Express, None) included: they once failed to round-trip."""
    as_json = envelope.to_json()
    assert schema_problem("envelope", as_json) is None
    assert Envelope.from_json(json.loads(json.dumps(as_json))) == envelope


def test_a_setup_survives_its_json_form_and_fits_the_schema() -> None:
    setup = Setup(
        qm_attributes={"QueueManagerQuota": 5},
        queues=[{"Identifier": str(uuid.UUID(int=1)), "Quota": 7}],
        directory_queues=[{"owner": str(uuid.UUID(int=2)), "queue": {"Label": "x"}}],
        client_version=1,
    )
    assert schema_problem("setup", setup.to_json()) is None
    assert Setup.from_json(json.loads(json.dumps(setup.to_json()))) == setup


# --- resolving targets -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("bogus", "unknown target 'bogus'"),
        ("python:nomodule", "expected python:package.module:factory"),
        ("python:no_such_module_xyz:make", "cannot import 'no_such_module_xyz'"),
        ("python:mqcn_suite.targets.zoo:Nothing", "has no callable 'Nothing'"),
        ("python:uuid:uuid4", "the target lacks reset"),
        ("exec:", "needs a command"),
        ("exec:definitely-not-a-program-mqcn", "cannot start 'definitely-not-a-program-mqcn'"),
        (f"{SERVE} --protocol-version 9", "protocol version mismatch"),
        (f"{SERVE} --exit-on hello", "did not complete hello"),
    ],
)
def test_a_bad_target_is_a_clear_error(spec: str, fragment: str) -> None:
    with pytest.raises(TargetError) as caught:
        resolve_target(spec, timeout=5).close()
    assert fragment in str(caught.value)


@pytest.mark.parametrize(
    "spec", ["bogus", "exec:definitely-not-a-program-mqcn", f"{SERVE} --protocol-version 9"]
)
def test_run_refuses_a_bad_target_with_exit_2_before_anything_runs(
    tmp_path: Path, spec: str
) -> None:
    result = run_suite(tmp_path / "r", spec)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("mqcn run: error: --target:")
    assert not (tmp_path / "r" / "traceability.json").exists()


def test_a_python_target_is_built_by_its_factory() -> None:
    target = resolve_target("python:mqcn_suite.targets.zoo:SendsNoSpareByte")
    assert isinstance(target, ZooTarget)
    assert target.name == "zoo:SendsNoSpareByte"


# --- exec: over a pipe --------------------------------------------------------------------------


def test_exec_speaks_the_protocol_like_the_reference_answers_in_process() -> None:
    piped = ExecTarget(SERVE.removeprefix("exec:"))
    local = ReferenceTarget()
    try:
        assert piped.pics() == ReferenceTarget().pics()
        setup = Setup(queues=[{"Identifier": str(uuid.UUID(int=5)), "Quota": 3}])
        for target in (piped, local):
            target.reset(setup)
        assert piped.start_server() == local.start_server()
        assert piped.state() == local.state()
        sent = piped.send_change_notification  # client side needs a directory object
        with pytest.raises(TargetBroken, match="bad-request"):
            sent("QueueUpdate", uuid.UUID(int=99), [])
        assert piped.restarts == 0  # a broken call kills the program ...
        piped.reset(setup)  # ... and the next call starts it again
        assert piped.restarts == 1
        assert piped.state() == local.state()
    finally:
        piped.close()
        local.close()


@pytest.mark.parametrize(
    ("mode", "fragment"),
    [
        ("--hang-on state", "state: no answer within 0.5 s"),
        ("--exit-on state", "state: the program exited (status 3) without answering"),
        ("--garbage-on state", "state: the answer is not a JSON line"),
    ],
)
def test_a_broken_exec_target_raises_with_its_stderr_and_the_exchange(
    mode: str, fragment: str
) -> None:
    target = ExecTarget(f"{SERVE.removeprefix('exec:')} {mode}", timeout=0.5)
    try:
        target.reset(Setup())
        with pytest.raises(TargetBroken) as caught:
            target.state()
        text = str(caught.value)
        assert fragment in text
        assert 'exchange (last lines):\n  > {"id": 1, "method": "hello"' in text
        if "exit" in mode:
            assert "stderr (last lines):\n  serve: exiting on state as asked" in text
        target.reset(Setup())  # restarted: the run goes on
        assert target.restarts == 1
    finally:
        target.close()


def test_a_hung_target_is_cut_and_reported_as_error_and_the_run_goes_on(tmp_path: Path) -> None:
    result = run_suite(
        tmp_path,
        f"{SERVE} --hang-on deliver",
        "-m",
        "MQCN-3.2.5.1-4 or MQCN-3.2.3-2",
        timeout="0.5",
    )
    assert result.exit_code == 4, result.output  # the target broke; nothing failed
    found = verdicts(tmp_path, "error", "pass", "fail")
    assert found["MQCN-3.2.5.1-4"] == "error"
    assert found["MQCN-3.2.3-2"] == "pass"  # a scenario after the hang still ran and passed
    entry = next(r for r in document(tmp_path)["requirements"] if r["id"] == "MQCN-3.2.5.1-4")
    message = entry["failures"][0]["message"]
    assert "deliver: no answer within 0.5 s" in message
    assert '"method": "deliver"' in message


def test_the_full_suite_through_a_pipe_gives_the_reference_verdicts(tmp_path: Path) -> None:
    piped, local = tmp_path / "piped", tmp_path / "local"
    assert run_suite(piped, SERVE).exit_code == 0
    assert run_suite(local, "reference").exit_code == 0
    assert verdicts(piped, *VERDICTS) == verdicts(local, *VERDICTS)


# --- PICS ---------------------------------------------------------------------------------------


def test_pics_files_load_and_unknown_capabilities_are_refused(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(Pics.from_json(V1_ONLY).to_yaml(), encoding="utf-8")
    assert load_pics(good).to_json() == V1_ONLY
    (tmp_path / "bad.yaml").write_text("server: {v1: true, v2: true}\ncolour: blue\n")
    with pytest.raises(PicsError, match="unknown capability 'colour'"):
        load_pics(tmp_path / "bad.yaml")
    (tmp_path / "worse.json").write_text('{"server": {"v3": true}}')
    with pytest.raises(PicsError, match=r"worse\.json"):
        load_pics(tmp_path / "worse.json")
    with pytest.raises(PicsError, match="cannot read"):
        load_pics(tmp_path / "missing.yaml")


def test_run_refuses_a_bad_pics_file_with_exit_2(tmp_path: Path) -> None:
    pics = tmp_path / "p.yaml"
    pics.write_text("server: {v1: true, v2: true}\nclient: {v1: true, v2: true}\nplugins: []\n")
    result = run_suite(tmp_path / "r", "reference", pics=str(pics))
    assert result.exit_code == 2
    assert "unknown capability 'plugins'" in result.stderr


def test_the_guard_refuses_only_what_is_not_claimed() -> None:
    guard = ClaimsGuard(ReferenceTarget(), Pics.from_json(V1_ONLY))
    with pytest.raises(NotApplicable, match="product profile 'windows-2000'"):
        guard.reset(Setup(profile="windows-2000"))
    guard.reset(Setup(readings="lenient"))  # readings are observed, never a reason for N/A
    guard.reset(Setup())
    guard.start_server()
    guard.deliver(Envelope(body=b"\x01\x00\x00"))  # processed version 1: claimed
    guard.deliver(Envelope(body=b"\x07\x00"))  # no version: any server side will do
    with pytest.raises(NotApplicable, match="server side version 2"):
        guard.deliver(Envelope(body=b"\x02\x01"))
    with pytest.raises(NotApplicable, match="client side version 2"):
        guard.start_client(uuid.UUID(int=1))


def test_scenarios_outside_the_claims_are_not_applicable_never_absent(tmp_path: Path) -> None:
    pics = tmp_path / "v1.yaml"
    pics.write_text(Pics.from_json(V1_ONLY).to_yaml(), encoding="utf-8")
    result = run_suite(tmp_path / "r", "reference", pics=str(pics))
    assert result.exit_code == 0, result.output
    found = verdicts(tmp_path / "r", *VERDICTS)
    assert len(found) == len(document(tmp_path / "r")["requirements"])
    assert found["MQCN-3.2.5.2-4"] == "not applicable"  # version 2 processing
    assert found["MQCN-3.3.5.3-2"] == "not applicable"  # client side
    assert found["MQCN-3.2.5.1-4"] == "pass"  # version 1 processing
    assert "inconclusive" not in found.values()


def test_mqcn_pics_asks_the_target_and_writes_the_file(tmp_path: Path) -> None:
    out = tmp_path / "reference.pics.yaml"
    result = mqcn("pics", "--target", SERVE, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert load_pics(out) == ReferenceTarget().pics()
    printed = mqcn("pics")
    assert printed.exit_code == 0
    assert printed.stdout.startswith("# PICS for mqcn-conformance")
    refused = mqcn("pics", "--target", "exec:definitely-not-a-program-mqcn")
    assert refused.exit_code == 2
    assert "cannot start" in refused.stderr


# --- the zoo ------------------------------------------------------------------------------------


@pytest.mark.parametrize("faulty", ZOO, ids=[z.__name__ for z in ZOO])
def test_each_faulty_target_fails_exactly_its_requirement(
    tmp_path: Path, faulty: type[ZooTarget]
) -> None:
    only = ["-k", faulty.SCENARIOS] if faulty.SCENARIOS else []
    result = run_suite(tmp_path, f"python:mqcn_suite.targets.zoo:{faulty.__name__}", *only)
    assert result.exit_code == 1, result.output
    failing = verdicts(tmp_path, "fail", "claim-fail", "error")
    assert failing.get(faulty.BREAKS) == faulty.VERDICT, failing
    assert set(failing) - {faulty.BREAKS} <= faulty.ALSO_BREAKS, failing
    assert faulty.SUMMARIES <= faulty.ALSO_BREAKS
    assert all(failing.get(summary) == "fail" for summary in faulty.SUMMARIES), failing


def test_a_broken_claim_is_information_again_with_claims_info(tmp_path: Path) -> None:
    """--claims info turns a claimed profile's product note back into information."""
    result = run_suite(
        tmp_path, "python:mqcn_suite.targets.zoo:SignsSig20InItsNt4Profile", claims="info"
    )
    assert result.exit_code == 0, result.output
    assert verdicts(tmp_path, "info") == {"MQCN-3.3.5.3-15": "info"}


# --- the example third-party target (examples/node-target, JavaScript) -------------------------

NODE = shutil.which("node")
NODE_TARGET = Path(__file__).resolve().parent.parent / "examples" / "node-target"


@pytest.fixture
def node() -> str:
    """Node.js, which the project's machines have; its absence fails, it is not skipped."""
    assert NODE is not None, "Node.js (20+) is needed to run examples/node-target"
    return NODE


def test_the_node_example_target_passes_every_requirement_it_claims(
    tmp_path: Path, node: str
) -> None:
    result = run_suite(tmp_path, f"exec:{node} {NODE_TARGET / 'target.js'}")
    assert result.exit_code == 0, result.output
    found = verdicts(tmp_path, *VERDICTS)
    assert not {rid for rid, v in found.items() if v in ("fail", "error", "inconclusive")}
    mandatory = [
        r for r in document(tmp_path)["requirements"] if r["keyword"] in ("MUST", "MUST NOT")
    ]
    assert all(r["verdict"] in ("pass", "untestable") for r in mandatory)
    assert "not applicable" in found.values()  # it claims only the spec profile


def test_the_node_example_targets_own_tests_pass(node: str) -> None:
    done = subprocess.run(
        [node, "--test", str(NODE_TARGET / "test")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


# --- hello has its own time limit --------------------------------------------------------------

SLOW_START = f"{sys.executable} {Path(__file__).resolve().parent / 'hang_before_hello.py'}"
HELLO_TIMED_OUT = (
    "exec: the target did not answer hello within 2 s (--hello-timeout; pytest: "
    "--mqcn-hello-timeout); its last line on stderr: loading the queue manager..."
)


def test_a_target_that_never_answers_hello_costs_the_hello_timeout_and_one_line(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    result = mqcn(
        "run", "--target", f"exec:{SLOW_START}", "--timeout", "2", "--hello-timeout", "2",
        "--report", str(tmp_path / "r"),
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"mqcn run: error: --target: {HELLO_TIMED_OUT}"]
    assert 2 <= elapsed < 6
    assert not (tmp_path / "r" / "traceability.json").exists()


def test_the_pytest_option_bounds_hello_too(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "--co", str(tmp_path),
         f"--mqcn-target=exec:{SLOW_START}", "--mqcn-hello-timeout=2", f"--rootdir={tmp_path}"],
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: --mqcn-target: {HELLO_TIMED_OUT}" in done.stderr.splitlines()


def test_a_slow_start_is_not_cut_by_the_time_limit_of_the_other_calls() -> None:
    """--timeout bounds each call after hello; hello waits for --hello-timeout (default 30 s)."""
    target = ExecTarget(f"{SLOW_START} 1.5", timeout=0.5)
    try:
        assert target.hello_timeout == 30.0 and target.target_name == "slow to start"
        with pytest.raises(TargetBroken, match=r"state: no answer within 0\.5 s"):
            target.state()
    finally:
        target.close()


def test_hello_timeout_is_shown_in_help_and_checked() -> None:
    for command in ("run", "pics"):
        shown = " ".join(mqcn(command, "--help").stdout.replace("│", " ").split())
        assert "--hello-timeout SECONDS Time limit of an exec: target's hello, which includes" in (
            shown
        )
        assert "the program's start" in shown and "[default: 30.0]" in shown
    result = mqcn("run", "--hello-timeout", "0")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "mqcn run: error: --hello-timeout: must be a positive number of seconds, not 0"
    ]
