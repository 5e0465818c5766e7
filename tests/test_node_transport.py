"""The Node example in transport mode (adapter protocol version 2) against the suite's own
MS-MQQB driver (``mqcn_suite.transport``) and wire codec.

The target runs as ``exec:`` runs it (``node examples/node-target/target.js``, JSON lines on
stdin/stdout).  Offered ``[1, 2]`` it answers version 2 with ``transport.mqqb``; the suite's
``connect`` delivers UserMessages there and ``state`` shows what they did; with a suite
``Listener`` as the queue manager of ``start_client`` its client's messages arrive as
packets the suite's judge reads.  ``--adapter-mode`` keeps it at version 1.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqcn_model.builders import queue_creation
from mqcn_model.codec.message import body_buffer, v1_message
from mqcn_model.constants import AuthLevel, SenderIdType
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.wire.judgement import judge_packet_bytes
from mqcn_suite.transport import connect
from mqcn_suite.transport.listener import Listener

NODE = shutil.which("node")
TARGET = Path(__file__).resolve().parent.parent / "examples" / "node-target" / "target.js"
QM = uuid.UUID("6f1c3a9e-2b4d-4c5e-8f70-1a2b3c4d5e6f")  # the target's queue manager
SUITE = uuid.UUID("11111111-2222-4333-8444-555555555555")  # the suite's side
CLIENT = uuid.UUID("22222222-3333-4444-8555-666666666666")  # the target's client
Q = uuid.UUID("00000101-0000-4000-8000-000000000101")
NEW = uuid.UUID(int=7)
TIMEOUT = 10.0
SETUP = {
    "qm_guid": str(QM),
    "computer": "qm1",
    "profile": "spec",
    "readings": "strict",
    "workgroup": False,
    "qm_attributes": {},
    "queues": [],
    "directory": {
        "queues": [{"owner": str(QM), "queue": {"Identifier": str(Q), "Quota": 7}}],
        "queue_managers": [],
    },
    "client": {"identifier": str(CLIENT), "version": 1, "server_name": "dc1.example.com"},
}


class Adapter:
    """The target process, spoken to in JSON lines (a request, then its one answer)."""

    def __init__(self, *args: str, stats: Path | None = None) -> None:
        assert NODE is not None, "Node.js (20+) is needed to run examples/node-target"
        env = dict(os.environ, MQCN_NODE_STATS=str(stats)) if stats else None
        self.process = subprocess.Popen(
            [NODE, str(TARGET), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.selector = selectors.DefaultSelector()
        assert self.process.stdout is not None
        self.selector.register(self.process.stdout, selectors.EVENT_READ)
        self.next_id = 0

    def call(self, method: str, **params: Any) -> Any:
        """The result of ``method``; an error answer fails the test with its message."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        request = {"id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        assert self.selector.select(TIMEOUT), f"{method}: no answer within {TIMEOUT} s"
        answer = json.loads(self.process.stdout.readline())
        assert answer["id"] == self.next_id
        assert "error" not in answer, f"{method}: {answer.get('error')}"
        return answer["result"]

    def close(self) -> str:
        """Shut the target down; its stderr."""
        self.call("shutdown")
        _, stderr = self.process.communicate(timeout=TIMEOUT)
        assert self.process.returncode == 0, stderr
        return stderr


@pytest.fixture
def stats(tmp_path: Path) -> Path:
    """Where the target appends its line of counts at shutdown (MQCN_NODE_STATS)."""
    return tmp_path / "stats.jsonl"


def counted(stats: Path) -> list[dict[str, int]]:
    return [json.loads(line) for line in stats.read_text().splitlines()]


@pytest.fixture
def target(stats: Path) -> Iterator[Adapter]:
    adapter = Adapter(stats=stats)
    yield adapter
    if adapter.process.poll() is None:
        adapter.process.kill()
        adapter.process.communicate()


def creation(level: AuthLevel, ordinal: int) -> Envelope:
    """A Version 0x01 creation of the queue NEW, from the suite's queue manager."""
    body = body_buffer(v1_message([queue_creation(NEW, "qm1\\orders", master=SUITE)]))
    return Envelope(
        body,
        MessageId(SUITE, ordinal),
        sender_identifier=SUITE,
        sender_identifier_type=SenderIdType.QueueManagerIdentifier,
        authentication_level=level,
        destination_format_name=f"PRIVATE={QM}\\3",
    )


def test_hello_offers_a_transport_whose_port_takes_a_session(target: Adapter, stats: Path) -> None:
    hello = target.call("hello", suite="test", protocol_versions=[1, 2])
    assert hello["protocol_version"] == 2
    door = hello["transport"]["mqqb"]
    assert door["host"] == "127.0.0.1" and door["port"] > 0
    target.call("reset", setup=SETUP)
    target.call("start_server")
    with connect(door["host"], door["port"], qm_guid=SUITE, timeout=TIMEOUT) as session:
        # unauthenticated: disregarded whole (MQCN-3.2.5.1-4), yet acknowledged
        session.send_and_wait(creation(AuthLevel.None_, 1), TIMEOUT)
        assert str(NEW) not in target.call("state")["queues"]
        # an MQFSignatureHeader signature (Sig30, errata W-05): processed
        session.send_and_wait(creation(AuthLevel.Sig30, 2), TIMEOUT)
        assert str(NEW) in target.call("state")["queues"]
    assert "transport:" not in target.close()
    assert counted(stats) == [{"protocol_version": 2, "received": 2, "sent": 0, "failed": 0}]


def wait_for_one(received: list[Any], where: str) -> None:
    """Until one UserMessage has arrived (at most TIMEOUT seconds); exactly one must."""
    deadline = time.monotonic() + TIMEOUT
    while not received and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(received) == 1, f"no UserMessage arrived at {where}"


def test_client_sends_over_the_session_and_answers_null(target: Adapter, stats: Path) -> None:
    received = []
    with Listener(on_message=lambda session, message: received.append(message)) as qm:
        assert target.call("hello", suite="test", protocol_versions=[1, 2])["protocol_version"] == 2
        target.call("reset", setup=SETUP)
        address = {"host": qm.host, "port": qm.port}
        target.call("start_client", destination=str(QM), queue_manager=address)
        answer = target.call(
            "send_change_notification", operation="QueueUpdate", object=str(Q), changed=["Quota"]
        )
        assert answer is None
        wait_for_one(received, "the suite's queue manager")
        verdict = judge_packet_bytes(received[0].data)
        assert verdict.refused is None and verdict.violations == ()
        judgement = verdict.judgement
        assert judgement is not None and judgement.envelope_findings == ()
        envelope = judgement.envelope
        assert envelope.message_id == MessageId(CLIENT, 1)
        assert envelope.sender_identifier_type is SenderIdType.QueueManagerIdentifier
        assert envelope.sender_identifier == QM  # the queue's owner (3.3.5.3, errata E-21)
        assert envelope.authentication_level is AuthLevel.Sig20
        assert envelope.destination_format_name == f"PRIVATE={QM}\\3"
        assert judgement.body is not None and judgement.body.conforming
        target.close()
    assert counted(stats) == [{"protocol_version": 2, "received": 0, "sent": 1, "failed": 0}]


def test_client_sends_to_the_address_of_reset_without_start_client(
    target: Adapter, stats: Path
) -> None:
    """A client the scenario never initialised sends to the queue manager ``reset`` named."""
    received = []
    with Listener(on_message=lambda session, message: received.append(message)) as qm:
        assert target.call("hello", suite="test", protocol_versions=[1, 2])["protocol_version"] == 2
        target.call("reset", setup=SETUP, queue_manager={"host": qm.host, "port": qm.port})
        answer = target.call(
            "send_change_notification", operation="QueueUpdate", object=str(Q), changed=["Quota"]
        )
        assert answer is None
        wait_for_one(received, "the queue manager of reset")
        target.close()
    assert counted(stats) == [{"protocol_version": 2, "received": 0, "sent": 1, "failed": 0}]


def test_adapter_mode_and_an_offer_of_1_stay_at_version_1(target: Adapter, stats: Path) -> None:
    hello = target.call("hello", suite="test", protocol_versions=[1])
    assert hello["protocol_version"] == 1 and "transport" not in hello
    target.close()
    adapter = Adapter("--adapter-mode", stats=stats)
    hello = adapter.call("hello", suite="test", protocol_versions=[1, 2])
    assert hello["protocol_version"] == 1 and "transport" not in hello
    adapter.close()
    assert [line["protocol_version"] for line in counted(stats)] == [1, 1]


def test_transport_mode_gives_the_verdicts_of_adapter_mode(tmp_path: Path) -> None:
    """(b) The whole suite against the Node example in transport mode and in adapter mode:
    the same verdict for every requirement, and the transport really carried the messages
    (MQCN_NODE_STATS: every target process agreed version 2, messages went both ways)."""
    assert NODE is not None, "Node.js (20+) is needed to run examples/node-target"
    found = {}
    written: dict[str, tuple[int, int]] = {}
    for mode, extra in (("transport", ""), ("adapter", " --adapter-mode")):
        stats = tmp_path / f"{mode}.jsonl"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "mqcn_suite",
                "run",
                "--target",
                f"exec:{NODE} {TARGET}{extra}",
                "--report",
                str(tmp_path / mode),
                "--pcap",
                str(tmp_path / f"{mode}.pcap"),
            ],
            env=dict(os.environ, MQCN_NODE_STATS=str(stats)),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
        document = json.loads((tmp_path / mode / "traceability.json").read_text())
        found[mode] = {r["id"]: r["verdict"] for r in document["requirements"]}
        written[mode] = pcap_counts(done.stdout)
        lines = counted(stats)
        versions = {line["protocol_version"] for line in lines}
        assert versions == ({2} if mode == "transport" else {1}), (mode, lines)
        if mode == "transport":
            assert sum(line["received"] for line in lines) > 0
            assert sum(line["sent"] for line in lines) > 0
            assert sum(line["failed"] for line in lines) == 0
    differ = {
        rid: (found["transport"].get(rid), verdict)
        for rid, verdict in found["adapter"].items()
        if found["transport"].get(rid) != verdict
    }
    assert found["transport"].keys() == found["adapter"].keys()
    assert differ == {}, f"requirement: (transport, adapter) verdicts differ: {differ}"
    assert "fail" not in found["transport"].values()
    # every message the client sent went over the wire, also in scenarios without start_client
    assert written["transport"][1] == written["adapter"][1] > 0, written


def pcap_counts(output: str) -> tuple[int, int]:
    """(delivered to the target, sent by its client) from the run's ``mqcn pcap:`` line."""
    found = re.search(r"\((\d+) delivered to the target, (\d+) sent by its client\)", output)
    assert found is not None, output[-3000:]
    return int(found[1]), int(found[2])
