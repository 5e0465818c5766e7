"""Decode throughput: the fast struct codec against the scapy layers, on the same bytes.

Two messages, both conforming and built by :mod:`mqcn_model.builders`:

* ``v1-queue-creation``: Version 0x01 carrying one full 15-property queue creation;
* ``v2-body``: Version 0x02 carrying one Notification Body.

Each decoder runs for ``--seconds`` per message on one core (a plain loop, no threads).
Scapy dissects eagerly, but the loop still reads every decoded field so that neither side
can skip work.  The goal is fast codec >= 20x scapy.

    python benchmarks/bench_codec.py [--seconds 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
import uuid
from collections.abc import Callable

from mqcn_model import builders
from mqcn_model.codec import body_buffer, decode_message
from mqcn_model.codec.message import ChangeNotificationMessage as FastMessage
from mqcn_model.constants import Event
from mqcn_model.message_layers import ChangeNotificationMessage, from_layer

GOAL = 20.0


def sample_messages() -> dict[str, bytes]:
    """The message bodies (with the 3.3.5.3 spare byte) the benchmark decodes."""
    master = uuid.UUID("0f2c1e3a-1111-4222-8333-444455556666")
    queue = uuid.UUID("9a8b7c6d-1234-4567-89ab-cdef01234567")
    creation = builders.queue_creation(
        queue, "mqhost.example.com\\orders", master=master, label="Orders to ship"
    )
    return {
        "v1-queue-creation": body_buffer(builders.v1_message([creation])),
        "v2-body": body_buffer(
            builders.v2_notification(Event.CHANGE_QUEUE, queue, "dc01.example.com")
        ),
    }


def touch_fast(message: FastMessage) -> int:
    """Read every decoded field of a fast-codec message."""
    seen = message.version + message.count
    if message.body is not None:
        body = message.body
        return seen + body.event + len(body.domain_controller) + body.object_guid.int % 2
    for update in message.updates:
        seen += update.command + update.use_guid + len(update.reserved)
        seen += update.guid_master_id.int % 2 + len(update.path_name or "")
        for prop in update.properties:
            seen += prop.propid + (prop.value is not None)
    return seen


def touch_scapy(layer: ChangeNotificationMessage) -> int:
    """Read every dissected field of a scapy message layer."""
    seen = layer.Version + layer.NumberOfUpdateNotifications + len(layer.Trailing)
    for item in layer.Data:
        if layer.Version == 2:
            # The body layer dissects its tokens as text; the fast codec hands out typed values
            # (an int Event, a GUID object).  Convert, so both sides deliver the same values.
            event, guid = int(item.Event), uuid.UUID(item.ObjectGuid)
            seen += event + len(item.DomainController) + guid.int % 2
            continue
        seen += item.Command + item.UseGuid + len(item.Reserved) + item.GuidMasterId.int % 2
        seen += len(item.PathName or "") + item.NumberOfProperties
        for propid, value in zip(item.PropertyId, item.PropertyValue, strict=True):
            seen += propid + (value.Value is not None)
    return seen


def decode_fast(data: bytes) -> int:
    return touch_fast(decode_message(data))


def decode_scapy(data: bytes) -> int:
    return touch_scapy(ChangeNotificationMessage(data))


def rate(decode: Callable[[bytes], int], data: bytes, seconds: float) -> float:
    """Messages per second of ``decode`` over about ``seconds`` (batches of 64 calls)."""
    done, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(64):
            decode(data)
        done += 64
        now = time.perf_counter()
        if now >= deadline:
            return done / (now - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per decoder per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per decoder (best is kept)")
    args = parser.parse_args(argv)

    rows = []
    for name, data in sample_messages().items():
        # Same answer from both before timing anything.
        assert from_layer(ChangeNotificationMessage(data)) == decode_message(data), name
        fast = scapy = 0.0
        for _ in range(args.repeat):  # interleaved, so a busy neighbour slows both alike
            fast = max(fast, rate(decode_fast, data, args.seconds))
            scapy = max(scapy, rate(decode_scapy, data, args.seconds))
        rows.append((name, len(data), fast, scapy, fast / scapy))

    print(f"{'message':<20} {'bytes':>6} {'fast msg/s':>12} {'scapy msg/s':>12} {'speed-up':>9}")
    for name, size, fast, scapy, ratio in rows:
        print(f"{name:<20} {size:>6} {fast:>12,.0f} {scapy:>12,.0f} {ratio:>8.1f}x")
    worst = min(row[4] for row in rows)
    verdict = "met" if worst >= GOAL else "NOT met"
    print(f"goal fast >= {GOAL:.0f}x scapy: {verdict} (lowest speed-up {worst:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
