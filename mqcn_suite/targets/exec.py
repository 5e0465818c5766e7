"""``exec:COMMAND``: a target in any language, spoken to as JSON lines over stdin/stdout.

The suite starts the program, says ``hello`` (protocol version negotiation, PICS) and waits
at most ``hello_timeout`` seconds for its answer (a start may be slow: a JVM, a loaded
machine), then sends one request line per call and waits — at most ``timeout`` seconds — for
the one answer line.
Every answer is checked against the protocol's JSON schema.  A program that crashes, hangs or
answers nonsense raises :class:`~mqcn_suite.targets.base.TargetBroken` (the scenario's verdict
becomes ``error``) carrying its last stderr lines and the last lines exchanged; the program
is killed and started afresh on the next call, so the run goes on.  See
docs/adapter-protocol.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import subprocess
import threading
import time
import uuid
from collections import deque
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mqcn_model.envelope import Envelope
from mqcn_suite.targets.base import (
    Setup,
    TargetBroken,
    TargetError,
    TargetTimeout,
    Unimplemented,
)
from mqcn_suite.targets.pics import Pics, PicsError, out_of_range_only, schema_problem
from mqcn_suite.targets.transport_mode import mqqb_address

PROTOCOL_VERSIONS = (1, 2)  # 2: version 1 + an optional transport (transport mode)
# Calls whose answers hold the state under judgement: an integer outside its type's range there
# is a value the checks judge against its requirement (a sign lost in a mapping), not a break
VALUES_JUDGED = frozenset({"state"})
DEFAULT_TIMEOUT = 10.0
DEFAULT_HELLO_TIMEOUT = 30.0  # hello may wait for a slow start (a JVM, a loaded machine)
SHUTDOWN_GRACE = 5.0
STDERR_KEPT = 20  # stderr lines kept for error reports
EXCHANGE_KEPT = 8  # request/answer lines kept for error reports
LINE_SHOWN = 240  # characters of one exchanged line shown in an error


def _suite_name() -> str:
    try:
        return f"mqcn-conformance {version('mqcn-conformance')}"
    except PackageNotFoundError:
        return "mqcn-conformance"


def _clip(line: str) -> str:
    return line if len(line) <= LINE_SHOWN else line[: LINE_SHOWN - 1] + "…"


class ExecTarget:
    """A target program spoken to over a pipe (``exec:COMMAND``)."""

    def __init__(
        self,
        command: str,
        timeout: float = DEFAULT_TIMEOUT,
        hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
    ) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise TargetError(f"exec: cannot split the command {command!r}: {exc}") from None
        if not self.argv:
            raise TargetError("exec: needs a command after 'exec:'")
        self.command = command
        self.timeout = timeout
        self.hello_timeout = hello_timeout
        self.name = f"exec:{command}"
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=STDERR_KEPT)
        self._exchange: deque[str] = deque(maxlen=EXCHANGE_KEPT)
        self._next_id = 1
        self._pics: Pics | None = None
        self._transport: dict[str, Any] | None = None  # hello's transport member (version 2)
        self._directory_modes: tuple[str, ...] = ()  # hello's directory member ("ldap")
        self.target_name = ""
        self.restarts = 0
        self.start()  # fail early: a command that does not start is a usage error

    # --- process life ---------------------------------------------------------------------
    def start(self) -> None:
        """Start the program and negotiate the protocol (``hello``)."""
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as exc:
            raise TargetError(
                f"exec: cannot start {self.argv[0]!r}: {exc.strerror or exc}"
            ) from None
        self._process = process
        self._lines = queue.Queue()
        self._stderr.clear()
        self._exchange.clear()
        threading.Thread(target=self._pump_stdout, args=(process, self._lines), daemon=True).start()
        threading.Thread(target=self._pump_stderr, args=(process,), daemon=True).start()
        try:
            answer = self._call(
                "hello",
                {"suite": _suite_name(), "protocol_versions": list(PROTOCOL_VERSIONS)},
                timeout=self.hello_timeout,
            )
        except TargetTimeout:  # one line: a program stuck in its start has said nothing
            last = f"; its last line on stderr: {_clip(self._stderr[-1])}" if self._stderr else ""
            raise TargetTimeout(
                f"exec: the target did not answer hello within {self.hello_timeout:g} s "
                f"(--hello-timeout; pytest: --mqcn-hello-timeout){last}"
            ) from None
        except TargetBroken as exc:  # a TargetError: a usage error at the first start
            self._kill()
            raise type(exc)(f"exec: the target did not complete hello: {exc}") from None
        except Unimplemented:
            self._kill()
            raise TargetError("exec: the target does not implement hello") from None
        if answer["protocol_version"] not in PROTOCOL_VERSIONS:
            self._kill()
            raise TargetError(
                f"exec: protocol version mismatch: the target chose "
                f"{answer['protocol_version']}, the suite speaks {list(PROTOCOL_VERSIONS)}"
            )
        try:
            self._pics = Pics.from_json(answer["pics"])
        except PicsError as exc:  # the schema already checked it; keep the message exact
            self._kill()
            raise TargetError(f"exec: the target's hello: {exc}") from None
        try:  # version 2 may declare a transport (docs/adapter-protocol.md, transport mode)
            if answer["protocol_version"] >= 2:
                mqqb_address(answer)
                self._transport = answer.get("transport")
            elif "transport" in answer:
                raise TargetError("transport: a version 1 answer cannot declare a transport")
        except TargetError as exc:
            self._kill()
            raise TargetError(f"exec: the target's hello: {exc}") from None
        self._directory_modes = tuple(answer.get("directory", ()))
        self.target_name = answer["name"]

    @staticmethod
    def _pump_stdout(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)  # end of output: the program exited or closed stdout

    def _pump_stderr(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self._stderr.append(line.rstrip("\n"))

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=SHUTDOWN_GRACE)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def _alive(self) -> subprocess.Popen[str]:
        """The running program; restarted (with a new hello) after it broke."""
        if self._process is None or self._process.poll() is not None:
            self._kill()
            self.restarts += 1
            self.start()
        assert self._process is not None
        return self._process

    # --- one call ---------------------------------------------------------------------------
    def _broken(self, problem: str, kind: type[TargetBroken] = TargetBroken) -> TargetBroken:
        """The error for a broken exchange: the problem, stderr tail, lines exchanged."""
        time.sleep(0.05)  # let the stderr pump catch the program's last words
        parts = [f"target {self.name} broke: {problem}"]
        if self._stderr:
            parts.append("stderr (last lines):\n  " + "\n  ".join(self._stderr))
        if self._exchange:
            parts.append("exchange (last lines):\n  " + "\n  ".join(self._exchange))
        self._kill()
        return kind("\n".join(parts))

    def _call(self, method: str, params: dict[str, Any], timeout: float | None = None) -> Any:
        process = self._process
        if process is None or process.stdin is None:
            raise self._broken("the program is not running")
        request_id = self._next_id
        self._next_id += 1
        line = json.dumps({"id": request_id, "method": method, "params": params})
        self._exchange.append(_clip(f"> {line}"))
        try:
            process.stdin.write(line + "\n")
            process.stdin.flush()
        except (OSError, ValueError):
            raise self._broken(f"{method}: cannot write to the program (it exited)") from None
        limit = self.timeout if timeout is None else timeout
        try:
            answer_line = self._lines.get(timeout=limit)
        except queue.Empty:
            raise self._broken(f"{method}: no answer within {limit:g} s", TargetTimeout) from None
        if answer_line is None:
            try:  # its stdout closed: it is exiting; give the exit status a moment to arrive
                code: int | None = process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = None
            raise self._broken(f"{method}: the program exited (status {code}) without answering")
        self._exchange.append(_clip(f"< {answer_line.rstrip()}"))
        try:
            answer = json.loads(answer_line)
        except ValueError:
            raise self._broken(f"{method}: the answer is not a JSON line") from None
        problem = schema_problem("response", answer)
        if problem is not None:
            raise self._broken(f"{method}: the answer breaks the protocol: {problem}")
        if answer["id"] != request_id:
            raise self._broken(f"{method}: answer id {answer['id']}, expected {request_id}")
        if "error" in answer:
            error = answer["error"]
            if error["code"] == "not-implemented":
                raise Unimplemented(method, error["message"])
            raise self._broken(f"{method}: the target answered {error['code']}: {error['message']}")
        problem = schema_problem(f"result/{method}", answer["result"])
        if problem is not None and not (
            method in VALUES_JUDGED and out_of_range_only(f"result/{method}", answer["result"])
        ):
            raise self._broken(f"{method}: the result breaks the protocol: {problem}")
        return answer["result"]

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """One request on a running (or restarted) program; the schema-checked result."""
        self._alive()
        return self._call(method, params)

    # --- the Target interface -----------------------------------------------------------------
    def pics(self) -> Pics:
        assert self._pics is not None
        return self._pics

    def reset(self, setup: Setup, queue_manager: dict[str, Any] | None = None) -> None:
        params: dict[str, Any] = {"setup": setup.to_json()}
        if queue_manager is not None:  # transport mode: where the target's client sends
            params["queue_manager"] = queue_manager
        self.call("reset", params)

    def start_server(self) -> dict[str, Any] | None:
        return self.call("start_server", {})

    def deliver(self, envelope: Envelope) -> None:
        self.call("deliver", {"envelope": envelope.to_json()})

    def advance_clock(self, seconds: float) -> None:
        self.call("advance_clock", {"seconds": seconds})

    def state(self) -> dict[str, Any]:
        return self.call("state", {})

    def directory_reads(self) -> list[dict[str, Any]]:
        return self.call("directory_reads", {})

    def directory_modes(self) -> tuple[str, ...]:
        """The directories the target can read besides the one in ``reset`` (hello's
        ``directory`` member: ``("ldap",)`` or nothing)."""
        return self._directory_modes

    def transport(self) -> dict[str, Any] | None:
        """The ``transport`` member of the target's hello (None: adapter mode)."""
        return self._transport

    def start_client(
        self, destination: uuid.UUID, queue_manager: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        params: dict[str, Any] = {"destination": str(destination)}
        if queue_manager is not None:  # transport mode: the suite's queue manager
            params["queue_manager"] = queue_manager
        return self.call("start_client", params)

    def send_change_notification(
        self, operation: str, object_id: uuid.UUID, changed: list[str]
    ) -> list[Envelope]:
        sent = self.call(
            "send_change_notification",
            {"operation": operation, "object": str(object_id), "changed": list(changed)},
        )
        if sent is None:  # version 2: "sent over the transport"
            return []
        try:
            return [Envelope.from_json(e) for e in sent]
        except (KeyError, ValueError) as exc:
            raise self._broken(f"send_change_notification: an envelope: {exc}") from None

    def close(self) -> None:
        """``shutdown``, then close stdin and wait; kill what does not exit in time."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(TargetBroken, Unimplemented):
                self._call("shutdown", {})
        process = self._process
        if process is not None and process.stdin is not None:
            try:
                process.stdin.close()
                process.wait(timeout=SHUTDOWN_GRACE)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self._kill()
