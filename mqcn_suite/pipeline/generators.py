"""Deterministic message generators shared by ``corpus generate`` and ``fuzz``.

Everything here is plain Python driven by one :class:`random.Random`, so a (seed, row) pair
always yields the same bytes, whichever Spark partition, machine or Python process draws it.
Hypothesis strategies (:mod:`mqcn_suite.strategies`) are the right tool inside tests, but they
cannot be replayed from a bare integer, so the pipeline uses these twins instead:

* **valid** messages come from :mod:`mqcn_model.builders` (the same conforming builders the
  tests, the vectors and the client model use): the four Version 0x01 update kinds of 3.3.5.2
  (queue creation, queue update, machine update, queue deletion) and the four Version 0x02
  events of 2.2.5, with every PROPID the spec's property lists allow; together they carry
  every PROPVALUE type a PROPID can have on the wire (I2, I4, UI1, UI4, LPWSTR, BLOB, CLSID,
  CLSID|VECTOR -- the other seven VTs of 2.2.3 belong to no PROPID of 2.2.2.1);
* **malformed or non-conforming** messages come from the generators the negative tests use:
  byte mutations of valid messages (the operators of ``tests/test_fuzz.py``), lying scapy
  layers (:mod:`mqcn_model.layers`: counts, VTs, Versions, body tokens), builder-made content
  violations (bad path names, long labels, missing properties) and the invalid reference
  vectors, themselves sometimes mutated.

Nothing here judges anything: the audit and the fuzzer do that with :func:`mqcn_model.judge`.

>>> rng = random.Random("doc")
>>> world = World.from_seed(1)
>>> kind, message = valid_message(rng, world)
>>> from mqcn_model.judge import judge
>>> judge(body_buffer(message)).conforming
True
"""

from __future__ import annotations

import json
import random
import struct
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mqcn_model import builders, layers
from mqcn_model.codec import ChangeNotificationMessage, NotificationUpdate, body_buffer
from mqcn_model.constants import (
    MACHINE_UPDATE_IGNORED,
    MACHINE_UPDATE_MODIFIABLE,
    MAX_LABEL_CHARS,
    PROPERTIES,
    QUEUE_UPDATE_MODIFIABLE,
    SCOPES,
    VT,
    AuthLevel,
    Event,
    PropId,
    SenderIdType,
    Version,
    notify_queue_format_name,
)
from mqcn_model.envelope import Envelope, MessageId

P = PropId
_UINT32 = (1 << 32) - 1

# --- the world the messages talk about ---------------------------------------------------------


def random_guid(rng: random.Random) -> uuid.UUID:
    """A GUID of 128 random bits (not necessarily RFC 4122 version 4, as on the wire)."""
    return uuid.UUID(int=rng.getrandbits(128))


@dataclass(frozen=True)
class World:
    """The machines and queues a corpus (or a fuzz run) talks about.

    ``directory_services`` send Version 0x01 messages, ``queue_managers`` send Version 0x02
    ones and receive both; ``queues`` are the objects changed; ``domain_controllers`` appear
    in Version 0x02 bodies.  A small fixed world makes the corpus look like a real enterprise
    (the same few senders again and again) and lets the fuzzer aim at objects its target knows.
    """

    directory_services: tuple[uuid.UUID, ...]
    queue_managers: tuple[uuid.UUID, ...]
    queues: tuple[uuid.UUID, ...]
    domain_controllers: tuple[str, ...]
    computers: tuple[str, ...]

    @classmethod
    def from_seed(
        cls, seed: int, *, services: int = 16, managers: int = 200, queues: int = 2000
    ) -> World:
        """The world of ``seed`` (string-seeded, so independent of PYTHONHASHSEED)."""
        rng = random.Random(f"mqcn-world:{seed}")
        return cls(
            directory_services=tuple(random_guid(rng) for _ in range(services)),
            queue_managers=tuple(random_guid(rng) for _ in range(managers)),
            queues=tuple(random_guid(rng) for _ in range(queues)),
            domain_controllers=tuple(f"dc{i:02d}.corp{seed % 7}.example.com" for i in range(8)),
            computers=tuple(f"host{i:03d}" for i in range(managers)),
        )


# --- conforming values -------------------------------------------------------------------------

_QUEUE_CHARS = "".join(chr(c) for c in range(0x21, 0x80) if chr(c) not in '\\;+,"')
_LABEL_CHARS = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.éüß日本語"


def _text(rng: random.Random, alphabet: str, low: int, high: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


def pathname(rng: random.Random, world: World) -> str:
    """A QueuePathName of [MS-MQMQ] 2.1.1 (public or private) on one of the world's hosts."""
    computer = rng.choice(world.computers)
    queue = _text(rng, _QUEUE_CHARS, 1, 24)
    return f"{computer}\\private$\\{queue}" if rng.random() < 0.3 else f"{computer}\\{queue}"


def label(rng: random.Random) -> str:
    return _text(rng, _LABEL_CHARS, 0, 40)


def multicast(rng: random.Random) -> str:
    octets = [rng.randint(224, 239), rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)]
    return ".".join(map(str, octets)) + f":{rng.randint(0, 65535)}"


def security_descriptor(rng: random.Random) -> bytes:
    return builders.minimal_security_descriptor(rng.choice((0x0004, 0x0000, 0x0010, 0x1004)))


def ta_addresses(rng: random.Random) -> bytes:
    """A packed TA_ADDRESS array: one to three IPv4 (type 1, port + address) entries."""
    out = b""
    for _ in range(rng.randint(1, 3)):
        address = struct.pack(">H", rng.randint(1, 65535)) + bytes(
            rng.randrange(256) for _ in "1234"
        )
        out += struct.pack("<HH", len(address), 1) + address
    return out


def conforming_value(rng: random.Random, pid: PropId, world: World) -> object:
    """A value both the wire type and the [MS-MQMQ] rule of ``pid`` allow."""
    definition = PROPERTIES[pid]
    if definition.allowed:
        return rng.choice(definition.allowed)
    if pid in (P.PROPID_Q_SECURITY, P.PROPID_QM_SECURITY):
        return security_descriptor(rng)
    if pid == P.PROPID_QM_ADDRESS:
        return ta_addresses(rng)
    if pid == P.PROPID_QM_CNS:
        return tuple(random_guid(rng) for _ in range(rng.randint(0, 3)))
    if pid == P.PROPID_QM_MACHINE_TYPE:
        return rng.choice(("Windows Server 2019", "Windows 10", "MSMQ 6.3", ""))
    vt = definition.vt
    if vt is VT.I2:
        return rng.randint(-(1 << 15), (1 << 15) - 1)
    if vt is VT.I4:
        return rng.randint(1_500_000_000, 1_800_000_000)
    if vt is VT.UI4:
        return rng.choice((_UINT32, rng.randint(0, _UINT32), rng.randint(0, 1 << 20)))
    if vt is VT.CLSID:
        return random_guid(rng)
    raise ValueError(f"no conforming generator for {pid.name}")  # pragma: no cover


# --- conforming updates and messages -------------------------------------------------------------


def queue_creation(rng: random.Random, world: World) -> NotificationUpdate:
    """A conforming queue creation (15 properties, sometimes a multicast address too)."""
    extra = [(P.PROPID_Q_MULTICAST_ADDRESS, multicast(rng))] if rng.random() < 0.2 else []
    return builders.queue_creation(
        rng.choice(world.queues),
        pathname(rng, world),
        master=rng.choice(world.directory_services),
        extra=extra,
        label=label(rng),
        queue_type=random_guid(rng) if rng.random() < 0.5 else None,
        base_priority=rng.randint(-(1 << 15), (1 << 15) - 1),
        journal=rng.choice(PROPERTIES[P.PROPID_Q_JOURNAL].allowed),
        quota=rng.choice((_UINT32, rng.randint(0, _UINT32))),
        journal_quota=rng.choice((_UINT32, rng.randint(0, _UINT32))),
        create_time=rng.randint(1_500_000_000, 1_800_000_000),
        modify_time=rng.randint(1_500_000_000, 1_800_000_000),
        scope=rng.choice(SCOPES),
        security=security_descriptor(rng),
        authenticate=rng.choice(PROPERTIES[P.PROPID_Q_AUTHENTICATE].allowed),
        priv_level=rng.choice(PROPERTIES[P.PROPID_Q_PRIV_LEVEL].allowed),
        transaction=rng.choice(PROPERTIES[P.PROPID_Q_TRANSACTION].allowed),
    )


def _changes(
    rng: random.Random, allowed: Sequence[PropId], world: World
) -> list[tuple[int, object]]:
    chosen = rng.sample(list(allowed), rng.randint(1, len(allowed)))
    return [(pid, conforming_value(rng, pid, world)) for pid in chosen]


def queue_update(rng: random.Random, world: World) -> NotificationUpdate:
    """A conforming queue update: PROPID_Q_QMID, then some modifiable properties."""
    return builders.queue_update(
        rng.choice(world.queues),
        rng.choice(world.queue_managers),
        _changes(rng, QUEUE_UPDATE_MODIFIABLE, world),  # type: ignore[arg-type]
        master=rng.choice(world.directory_services),
    )


def machine_update(rng: random.Random, world: World) -> NotificationUpdate:
    """A conforming machine update: MACHINE_ID, FOREIGN, then modifiable/ignored properties."""
    return builders.machine_update(
        rng.choice(world.queue_managers),
        _changes(rng, MACHINE_UPDATE_MODIFIABLE + MACHINE_UPDATE_IGNORED, world),  # type: ignore[arg-type]
        master=rng.choice(world.directory_services),
        foreign=rng.choice(PROPERTIES[P.PROPID_QM_FOREIGN].allowed),
    )


def queue_deletion(rng: random.Random, world: World) -> NotificationUpdate:
    return builders.queue_deletion(
        rng.choice(world.queues), master=rng.choice(world.directory_services)
    )


UPDATE_KINDS: dict[str, Callable[[random.Random, World], NotificationUpdate]] = {
    "queue-creation": queue_creation,
    "queue-update": queue_update,
    "machine-update": machine_update,
    "queue-deletion": queue_deletion,
}


def valid_message(rng: random.Random, world: World) -> tuple[str, ChangeNotificationMessage]:
    """A conforming message of either version; the first item names its kind."""
    if rng.random() < 0.5:
        kinds = [rng.choice(list(UPDATE_KINDS)) for _ in range(rng.choice((1, 1, 1, 2, 3, 4)))]
        updates = [UPDATE_KINDS[k](rng, world) for k in kinds]
        return "v1:" + "+".join(dict.fromkeys(kinds)), builders.v1_message(updates)
    event = rng.choice(list(Event))
    target = world.queue_managers if event is Event.CHANGE_MACHINE else world.queues
    message = builders.v2_notification(
        event, rng.choice(target), rng.choice(world.domain_controllers)
    )
    return f"v2:{event.name.lower().replace('_', '-')}", message


# --- malformed and non-conforming messages -------------------------------------------------------

MUTATIONS = ("flip", "set", "truncate", "insert", "delete", "count")
HOSTILE_BYTES = (0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF)


def mutate(rng: random.Random, buf: bytes, rounds: int | None = None) -> bytes:
    """Apply 1-4 of the byte mutations of ``tests/test_fuzz.py`` to ``buf``."""
    data = bytearray(buf)
    for _ in range(rounds if rounds is not None else rng.randint(1, 4)):
        op = rng.choice(MUTATIONS)
        position = rng.randint(0, max(0, len(data) - 1))
        if op == "flip" and data:
            data[position] ^= 1 << rng.randint(0, 7)
        elif op == "set" and data:
            data[position] = rng.choice(HOSTILE_BYTES)
        elif op == "truncate":
            del data[position:]
        elif op == "insert":
            data[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == "delete":
            del data[position : position + rng.randint(1, 8)]
        elif op == "count" and len(data) > 1:
            data[1] = rng.choice((0, 2, 3, 0xFF, data[1] + 1 & 0xFF))
    return bytes(data)


def _layer_recipes(rng: random.Random, world: World) -> bytes:
    """One lying scapy message: the structures as the spec draws them, with one field wrong."""
    recipe = rng.randrange(9)
    update = layers.to_layer(
        builders.v1_message([rng.choice(list(UPDATE_KINDS.values()))(rng, world)])
    )
    if recipe == 0:  # NumberOfUpdateNotifications larger than the updates present (2.2.4)
        update.NumberOfUpdateNotifications = rng.randint(2, 5)
        return bytes(update) + b"\x00"
    if recipe == 1:  # a Version 0x02 message that claims more than one body (2.2.4)
        body = layers.NotificationBody(
            Event=rng.randint(1, 4),
            ObjectGuid=rng.choice(world.queues),
            DomainController=rng.choice(world.domain_controllers),
        )
        count = rng.choice((0, 2, 3))
        return (
            bytes(
                layers.ChangeNotificationMessage(
                    Version=2, NumberOfUpdateNotifications=count, Data=[body]
                )
            )
            + b"\x00"
        )
    if recipe == 2:  # a Version that does not exist
        update.Version = rng.choice((0, 3, 4, 0x10, 0xFF))
        return bytes(update) + b"\x00"
    if recipe == 3:  # NumberOfProperties that lies about the lists that follow (2.2.6)
        inner = update.Data[0]
        inner.NumberOfProperties = len(inner.PropertyId) + rng.choice((-1, 1, 2))
        return bytes(update) + b"\x00"
    if recipe == 4:  # a value of the wrong VT for its PROPID (2.2.3)
        inner = update.Data[0]
        index = rng.randrange(len(inner.PropertyValue))
        wrong = rng.choice(
            [
                vt
                for vt in (VT.UI1, VT.I4, VT.LPWSTR, VT.CLSID)
                if vt is not inner.PropertyValue[index].vt
            ]
        )
        values = list(inner.PropertyValue)
        values[index] = layers.prop_value(wrong)
        inner.PropertyValue = values
        return bytes(update) + b"\x00"
    if recipe == 5:  # an Event token outside 1-4, or not a number (2.2.5)
        body = layers.NotificationBody(
            Event=rng.choice(("0", "5", "9", "x", "")),
            ObjectGuid=rng.choice(world.queues),
            DomainController=rng.choice(world.domain_controllers),
        )
        return bytes(layers.ChangeNotificationMessage(Version=2, Data=[body])) + b"\x00"
    if recipe == 6:  # a server name with a space or too long, a GUID that is not one (2.2.5)
        body = layers.NotificationBody(
            Event=rng.randint(1, 4),
            ObjectGuid=rng.choice(
                (
                    str(rng.choice(world.queues)),
                    "not-a-guid",
                    "{" + str(rng.choice(world.queues)) + "}",
                )
            ),
            DomainController=rng.choice(("dc 01", "x" * 257, "", "dc01.example.com")),
        )
        return bytes(layers.ChangeNotificationMessage(Version=2, Data=[body])) + b"\x00"
    if recipe == 7:  # UseGuid other than 0/1, or a Command other than 0-2 (2.2.6)
        inner = update.Data[0]
        if rng.random() < 0.5:
            inner.UseGuid = rng.choice((2, 0xFF))
        else:
            inner.Command = rng.choice((3, 7, 0xFF))
        return bytes(update) + b"\x00"
    # recipe 8: data after the structure beyond the spare byte (errata E-05)
    return bytes(update) + bytes(rng.randrange(256) for _ in range(rng.randint(2, 9)))


def _content_recipes(rng: random.Random, world: World) -> bytes:
    """A well-formed message that breaks a content rule (3.3.5.2 / [MS-MQMQ] values)."""
    recipe = rng.randrange(7)
    queue, master = rng.choice(world.queues), rng.choice(world.directory_services)
    if recipe == 0:  # a path name without a computer part
        update = builders.queue_creation(queue, _text(rng, _QUEUE_CHARS, 1, 12), master=master)
    elif recipe == 1:  # a label longer than 124 characters
        long_label = "L" * rng.randint(MAX_LABEL_CHARS + 1, 200)
        update = builders.queue_creation(
            queue, pathname(rng, world), master=master, label=long_label
        )
    elif recipe == 2:  # a creation missing one of its 15 properties
        full = builders.queue_creation(queue, pathname(rng, world), master=master)
        props = list(full.properties)
        del props[rng.randrange(len(props))]
        update = NotificationUpdate.creation(
            full.path_name or "", [(p.propid, p.value) for p in props], master=master
        )
    elif recipe == 3:  # an enumerated value out of range
        update = builders.queue_creation(
            queue, pathname(rng, world), master=master, journal=rng.choice((2, 7, 0xFF))
        )
    elif recipe == 4:  # a deletion whose object type is not a queue (server disregards it)
        update = NotificationUpdate.deletion(queue, master=master)
        props = [(P.PROPID_D_SCOPE, 1), (P.PROPID_D_OBJTYPE, rng.choice((2, 3, 4)))]
        update = NotificationUpdate(
            update.command, update.use_guid, None, queue, master, NotificationUpdate.props(props)
        )
    elif recipe == 5:  # a queue update whose first property is not PROPID_Q_QMID
        update = NotificationUpdate.change(
            queue, [(P.PROPID_Q_QUOTA, rng.randint(0, _UINT32))], master=master
        )
    else:  # a multicast address outside class D
        update = builders.queue_creation(
            queue,
            pathname(rng, world),
            master=master,
            extra=[(P.PROPID_Q_MULTICAST_ADDRESS, f"10.0.0.{rng.randint(0, 255)}:80")],
        )
    return body_buffer(builders.v1_message([update]))


@lru_cache(maxsize=1)
def reference_vectors() -> tuple[tuple[bytes, str], ...]:
    """Every ChangeNotificationMessageTest ``msg`` of ``reference_vectors/`` with its result.

    Read once per process from the checkout (an installed copy without the vectors yields
    an empty tuple, and the generators fall back to the other families).
    """
    root = Path(__file__).resolve().parents[2] / "reference_vectors"
    found: list[tuple[bytes, str]] = []
    for path in sorted(root.glob("*_test.json")):
        try:
            document = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        for group in document.get("testGroups", []):
            if group.get("type") != "ChangeNotificationMessageTest":
                continue
            for test in group.get("tests", []):
                found.append((bytes.fromhex(test["msg"]), str(test["result"])))
    return tuple(found)


MALFORMED_FAMILIES = ("mutation", "layers", "content", "vector")


def malformed_message(rng: random.Random, world: World) -> tuple[str, bytes]:
    """A malformed or non-conforming message body; the first item names the family.

    Mutations can (rarely) land on a conforming message: the audit judges, it does not trust
    the label.
    """
    family = rng.choice(MALFORMED_FAMILIES)
    vectors = reference_vectors()
    if family == "vector" and vectors:
        buf, result = rng.choice(vectors)
        if result == "valid" or rng.random() < 0.3:
            return "vector-mutation", mutate(rng, buf)
        return "vector", buf
    if family == "layers":
        return "layers", _layer_recipes(rng, world)
    if family == "content":
        return "content", _content_recipes(rng, world)
    _, message = valid_message(rng, world)
    return "mutation", mutate(rng, body_buffer(message, rng.randrange(256)))


# --- envelopes ------------------------------------------------------------------------------------


def envelope(
    rng: random.Random,
    world: World,
    body: bytes,
    sequence: int,
    arrival: float,
    *,
    anomalies: float = 0.06,
) -> Envelope:
    """The MSMQ message around ``body``: sender, authentication, destination, arrival.

    Version 0x01 messages come from a directory service, everything else from a queue manager.
    A share ``anomalies`` of the envelopes carries what makes a conforming server disregard a
    Version 0x01 message (3.2.5.1): a sender type other than QueueManagerIdentifier, or an
    AuthenticationLevel of None.
    """
    v1 = bool(body) and body[0] == Version.DIRECTORY_SERVICE
    sender = rng.choice(world.directory_services if v1 else world.queue_managers)
    sender_type = SenderIdType.QueueManagerIdentifier
    auth = rng.choice((AuthLevel.Sig20, AuthLevel.Sig20, AuthLevel.Sig30, AuthLevel.Always))
    draw = rng.random()
    if draw < anomalies / 2:
        auth = AuthLevel.None_
    elif draw < anomalies:
        sender_type = rng.choice((SenderIdType.Sid, SenderIdType.None_))
    destination = rng.choice(world.queue_managers)
    return Envelope(
        body=body,
        message_id=MessageId(sender, sequence & _UINT32),
        sender_identifier=None if sender_type is SenderIdType.None_ else sender,
        sender_identifier_type=sender_type,
        authentication_level=auth,
        destination_format_name=notify_queue_format_name(str(destination)),
        arrival_time=arrival,
    )


def row_rng(seed: int, row: int) -> random.Random:
    """The generator of one row: depends on (seed, row) only, never on the partitioning."""
    return random.Random(f"mqcn:{seed}:{row}")


__all__ = [
    "MALFORMED_FAMILIES",
    "UPDATE_KINDS",
    "World",
    "envelope",
    "malformed_message",
    "mutate",
    "reference_vectors",
    "row_rng",
    "valid_message",
]
