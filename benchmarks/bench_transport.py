"""MS-MQQB driver throughput on loopback: sessions per second, messages per second.

On demand, never part of the tests::

    python benchmarks/bench_transport.py                  # 2000 sessions, 20000 messages
    python benchmarks/bench_transport.py --sessions 200 --messages 2000

Three figures, each against one :class:`mqcn_suite.transport.Listener` on 127.0.0.1 (port 0),
wall time and the CPU time of this process (both ends run here, so CPU counts both):

* **sessions/s**: ``connect`` (TCP, EstablishConnection and ConnectionParameters both ways)
  then ``close``, one after another;
* **messages/s, one at a time**: in one session, ``send_and_wait`` for each message (the
  way a scenario waits for its acknowledgment before asking ``state``);
* **messages/s, pipelined**: in one session, ``send`` every message, then wait for the last
  acknowledgment (the window, 64, keeps the sender honest).
"""

from __future__ import annotations

import argparse
import time
import uuid

from mqcn_model.envelope import Envelope, MessageId
from mqcn_suite.transport import Listener, connect

HOST = "127.0.0.1"


def _envelope(sender: uuid.UUID, n: int, receiver: uuid.UUID) -> Envelope:
    return Envelope(
        b"\x02\x01" * 64,
        MessageId(sender, n),
        sender_identifier=sender,
        destination_format_name=f"PRIVATE={receiver}\\3",
    )


def _measure(label: str, count: int, unit: str, run: object) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    run()  # type: ignore[operator]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"{label:32s} {count:7d} {unit:9s} {wall:7.2f} s wall  {count / wall:9.0f}/s wall  "
        f"{count / max(cpu, 1e-9):9.0f}/s CPU"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=20000)
    args = parser.parse_args(argv)
    sender = uuid.uuid4()
    with Listener(HOST, 0) as qm:
        messages = [_envelope(sender, n, qm.qm_guid) for n in range(1, args.messages + 1)]

        def sessions() -> None:
            for _ in range(args.sessions):
                connect(HOST, qm.port, qm_guid=sender, timeout=5).close()

        def one_at_a_time() -> None:
            with connect(HOST, qm.port, qm_guid=sender, timeout=5) as session:
                for message in messages:
                    session.send_and_wait(message, timeout=5)

        def pipelined() -> None:
            with connect(HOST, qm.port, qm_guid=sender, timeout=5) as session:
                last = 0
                for message in messages:
                    last = session.send(message)
                session.wait_acknowledged(last, timeout=60)

        _measure("sessions (connect + close)", args.sessions, "sessions", sessions)
        _measure("messages, send_and_wait each", args.messages, "messages", one_at_a_time)
        _measure("messages, pipelined", args.messages, "messages", pipelined)


if __name__ == "__main__":
    main()
