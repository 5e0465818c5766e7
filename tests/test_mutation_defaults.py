"""What ``mqcn selftest mutation`` covers when no ``--file`` or ``--tests`` is given: the
capture reader and the wire codec too, each measured by its own unit tests (issue 19)."""

from __future__ import annotations

from pathlib import Path

from mqcn_suite.selftest.mutation import (
    DEFAULT_TESTS,
    default_tests,
    resolve_files,
    resolve_tests,
)

ROOT = Path(__file__).resolve().parent.parent


def test_the_default_files_include_the_capture_reader_and_the_wire_codec() -> None:
    files = resolve_files(ROOT, [])
    for wanted in (
        "mqcn_model/server.py",
        "mqcn_model/capture/reader.py",
        "mqcn_model/capture/tcp.py",
        "mqcn_model/wire/usermessage.py",
        "mqcn_model/wire/queues.py",
        "mqcn_model/scapy_base.py",
        "mqcn_model/mqqb/machine.py",
    ):
        assert wanted in files
    assert not [file for file in files if file.endswith("__init__.py")]


def test_wire_and_capture_files_bring_their_unit_tests_along() -> None:
    tests = default_tests(["mqcn_model/capture/tcp.py", "mqcn_model/wire/acks.py"])
    assert "tests/test_capture.py" in tests
    assert "tests/test_wire_codec.py" in tests
    assert len(tests) == len(set(tests))  # each once, though both patterns name it
    assert resolve_tests(ROOT, tests) == tests  # every one exists in the tree


def test_the_scapy_base_brings_its_own_tests_and_both_layer_modules_tests() -> None:
    tests = default_tests(["mqcn_model/scapy_base.py"])
    assert tests[:2] == ["tests/test_scapy_base.py", "tests/test_layers.py"]
    assert "tests/test_wire_layers.py" in tests and len(tests) == len(set(tests))


def test_the_session_machine_brings_its_own_tests() -> None:
    assert default_tests(["mqcn_model/mqqb/machine.py"]) == [
        "tests/test_mqqb_session.py",
        "tests/test_transport.py",
    ]


def test_model_files_elsewhere_bring_no_tests() -> None:
    assert default_tests(["mqcn_model/codec/update.py", "mqcn_model/rules.py"]) == []


def test_the_server_brings_the_failed_reads_test_that_dict_mode_scenarios_never_make() -> None:
    assert default_tests(["mqcn_model/server.py"]) == ["tests/test_directory_failures.py"]


def test_the_directory_mapping_and_read_judge_bring_their_own_tests() -> None:
    expected = ["tests/test_dssm.py", "tests/test_dssm_vectors.py", "tests/test_ldap_reads.py"]
    assert default_tests(["mqcn_model/dssm.py"]) == expected
    assert default_tests(["mqcn_model/ldap_reads.py", "mqcn_model/dssm.py"]) == expected


def test_every_default_test_path_exists() -> None:
    for paths in DEFAULT_TESTS.values():
        for path in paths:
            assert (ROOT / path).is_file(), path
