"""Hostile message bodies: valid seeds, where their dangerous fields are, and how to break them.

Shared by the hypothesis fuzz tests (``tests/test_fuzz.py``) and the codec campaign
(:mod:`mqcn_suite.pipeline.campaign`, ``mqcn fuzz codec``), so that both push the same
kinds of damage through the codec:

* a :class:`Seed` is a valid body buffer (message + the spare byte of 3.3.5.3) together with
  the offsets of its one-byte **count** fields (the message's Count of 2.2.4, each update's
  property count), its four-byte **size** fields (BLOB sizes, vector element counts) and its
  UTF-16 **strings** (with the requirement a lone surrogate there breaks);
* :func:`~.byte_mutations.mutate_once` applies one of the test suite's byte operators (flip,
  set, truncate, insert, delete, a hostile value in a size or count field: the seed's
  :attr:`Seed.fields`), drawing its choices from a :class:`~.byte_mutations.Draw` --
  hypothesis's ``st.data()`` in the tests (so failures shrink), a seeded
  :class:`random.Random` in the campaign (so a case replays from two integers);
* :func:`hostile_case` is case ``n`` of campaign seed ``s``: one of :data:`KINDS` of damage
  applied to a seed of the pool (:func:`seed_pool`: the fixed :data:`SEEDS` plus valid
  messages of every kind generated from ``s``), or plain random bytes.

Nothing here imports hypothesis or Spark (executors import this module), and nothing judges:
the campaign and the tests do that.

>>> case = hostile_case(7, 123)
>>> case == hostile_case(7, 123), case.kind in KINDS
(True, True)
"""

from __future__ import annotations

import random
import struct
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from mqcn_model.builders import (
    machine_update,
    minimal_security_descriptor,
    queue_creation,
    queue_deletion,
    queue_update,
    v2_notification,
)
from mqcn_model.codec import ChangeNotificationMessage, body_buffer, decode_message, encode_body
from mqcn_model.codec import v1_message as plain_v1_message
from mqcn_model.constants import PROPERTIES, VT, Event, PropId
from mqcn_suite.pipeline.byte_mutations import HOSTILE_U32, RandomDraw, mutate_once
from mqcn_suite.pipeline.generators import Population, valid_message

T = TypeVar("T")
P = PropId

QUEUE = uuid.UUID("6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f0")
QM = uuid.UUID("0f2c1e3a-0000-4000-8000-000000000001")
MASTER = uuid.UUID("11111111-2222-4333-8444-555555555555")

_VECTOR_TYPES = (VT.BLOB, VT.UI4_VECTOR, VT.CLSID_VECTOR, VT.LPWSTR_VECTOR)


# --- seeds: valid messages and where their hostile fields are ----------------------------------


@dataclass(frozen=True)
class Seed:
    """A valid body buffer and the offsets of the fields an attacker would aim at."""

    name: str
    buffer: bytes  # the body buffer: message + spare byte
    counts: tuple[int, ...]  # one-byte count fields
    sizes: tuple[tuple[int, VT], ...]  # four-byte Size fields and the type they belong to
    strings: tuple[tuple[int, int, str], ...]  # (start, UTF-16 units, lone-surrogate requirement)

    @property
    def fields(self) -> tuple[tuple[int, int], ...]:
        """Every count and size field as (offset, width in bytes)."""
        return tuple((o, 1) for o in self.counts) + tuple((o, 4) for o, _ in self.sizes)


def make_seed(name: str, message: ChangeNotificationMessage, spare: int = 0xA5) -> Seed:
    """The :class:`Seed` of a valid ``message``: its buffer, found fields and strings."""
    buffer = body_buffer(message, spare)
    decoded = decode_message(buffer)
    counts: list[int] = [1]
    sizes: list[tuple[int, VT]] = []
    strings: list[tuple[int, int, str]] = []
    if decoded.is_v1:
        for update in decoded.updates:
            name_size = 16
            if update.path_name is not None:
                strings.append((update.offset + 2, len(update.path_name), "MQCN-2.2.6-4"))
                name_size = 2 * len(update.path_name) + 2
            counts.append(update.offset + 2 + name_size + 16 + 24)
            for prop in update.properties:
                vt = PROPERTIES[prop.propid].vt  # type: ignore[index]
                if vt in _VECTOR_TYPES:
                    sizes.append((prop.value_offset, vt))
                elif vt is VT.LPWSTR and prop.value:
                    strings.append((prop.value_offset, len(prop.value), "MQCN-2.2.3.10-2"))  # type: ignore[arg-type]
    else:
        assert decoded.body is not None
        server = decoded.body.domain_controller
        if server:
            text = buffer[2:-1].decode("utf-16-le")
            strings.append((2 + 2 * text.index(server), len(server), "MQCN-2.2.5-5"))
    return Seed(name, buffer, tuple(counts), tuple(sizes), tuple(strings))


def _address() -> bytes:
    return struct.pack("<HH", 6, 1) + b"\x1f\x90\xc0\xa8\x00\x01"


def _fixed_seeds() -> dict[str, Seed]:
    updates = {
        "creation": queue_creation(
            QUEUE,
            "host\\orders",
            master=MASTER,
            label="Orders",
            extra=[(P.PROPID_Q_MULTICAST_ADDRESS, "234.1.1.1:8001")],
        ),
        "queue-update": queue_update(
            QUEUE,
            QM,
            {P.PROPID_Q_SECURITY: minimal_security_descriptor(), P.PROPID_Q_QUOTA: 5},
            master=MASTER,
        ),
        "machine-update": machine_update(
            QM,
            {
                P.PROPID_QM_ADDRESS: _address(),
                P.PROPID_QM_CNS: (QUEUE, QM),
                P.PROPID_QM_MACHINE_TYPE: "Windows",
                P.PROPID_QM_OS: 0x400,
                P.PROPID_QM_SECURITY: minimal_security_descriptor(),
            },
            master=MASTER,
        ),
        "deletion": queue_deletion(QUEUE, master=MASTER),
    }
    seeds = {name: make_seed(name, plain_v1_message([u])) for name, u in updates.items()}
    seeds["v1-all"] = make_seed("v1-all", plain_v1_message(list(updates.values())))
    seeds["v1-empty"] = make_seed("v1-empty", plain_v1_message([]))
    seeds["v2"] = make_seed("v2", v2_notification(Event.CREATE_QUEUE, QUEUE, "dc1.example.com"))
    body = v2_notification(4, QM, "dc").body
    assert body is not None
    seeds["v2-terminated"] = Seed(
        "v2-terminated",
        b"\x02\x01" + encode_body(body, terminator=True) + b"\x00",
        (1,),
        (),
        (),
    )
    return dict(sorted(seeds.items()))


# The fixed seeds of the tests: every Version 0x01 update kind alone and together, an empty
# Version 0x01 message, and a Version 0x02 body with and without its NUL terminator.
SEEDS: dict[str, Seed] = _fixed_seeds()
SEED_NAMES = tuple(SEEDS)
GENERATED_SEEDS = 48  # valid messages per campaign seed, on top of SEEDS and one per Event


@lru_cache(maxsize=4)
def seed_pool(seed: int) -> tuple[Seed, ...]:
    """The valid messages the campaign of ``seed`` damages: :data:`SEEDS`, one Version 0x02
    message of every Event, and :data:`GENERATED_SEEDS` conforming messages of both versions
    drawn by :func:`mqcn_suite.pipeline.generators.valid_message` (all update kinds, every
    PROPVALUE type a PROPID carries). A pure function of ``seed``; built once per process."""
    pool = list(SEEDS.values())
    for event in Event:
        message = v2_notification(event, QUEUE, f"dc{int(event)}.example.com")
        pool.append(make_seed(f"v2:{event.name.lower()}", message))
    rng = random.Random(f"mqcn-codec-pool:{seed}")
    population = Population.from_seed(seed, services=4, managers=8, queues=32)
    for index in range(GENERATED_SEEDS):
        family, message = valid_message(rng, population)
        pool.append(make_seed(f"{family}#{index}", message, rng.randrange(256)))
    return tuple(pool)


# --- mutations ----------------------------------------------------------------------------------


# --- the campaign's cases ----------------------------------------------------------------------


@dataclass(frozen=True)
class HostileCase:
    """Case ``case`` of campaign ``seed``: the body, the kind of damage and what it started from."""

    seed: int
    case: int
    kind: str
    origin: str  # the seed message(s) damaged, or "random"
    body: bytes
    envelope_bits: int  # 32 more bits of the same generator: the campaign draws an envelope


def _bit_flips(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    buf = bytearray(seed.buffer)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 8))):
        buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
    return seed.name, bytes(buf)


def _byte_insert(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    buf = bytearray(seed.buffer)
    at = rng.randint(0, len(buf))
    filler = rng.choice((b"\x00", b"\xff", b"\x00\x00", b"\xff\xff\xff\xff"))
    buf[at:at] = rng.randbytes(rng.randint(1, 16)) if rng.random() < 0.6 else filler
    return seed.name, bytes(buf)


def _byte_delete(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    buf = bytearray(seed.buffer)
    at = rng.randrange(len(buf))
    del buf[at : at + rng.choice((1, 1, 2, 4, 16))]
    return seed.name, bytes(buf)


def _size_field(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    if not seed.sizes:  # a seed without vectors: its count fields stand in
        return _count_field(rng, seed)
    buf = bytearray(seed.buffer)
    offset, _ = rng.choice(seed.sizes)
    value = rng.choice(HOSTILE_U32) if rng.random() < 0.7 else rng.getrandbits(32)
    buf[offset : offset + 4] = struct.pack("<I", value)
    return seed.name, bytes(buf)


def _count_field(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    buf = bytearray(seed.buffer)
    buf[rng.choice(seed.counts)] = rng.randrange(256)
    return seed.name, bytes(buf)


def _string(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    if not seed.strings:
        return _bit_flips(rng, seed)
    start, units, _ = rng.choice(seed.strings)
    buf = bytearray(seed.buffer)
    if rng.random() < 0.5:  # one lone surrogate
        at = start + 2 * rng.randrange(units)
        buf[at : at + 2] = struct.pack("<H", rng.randint(0xD800, 0xDFFF))
    else:  # any code units, NUL included, of any length
        raw = rng.randbytes(2 * rng.randint(0, 80))
        buf[start : start + 2 * units] = raw
    return seed.name, bytes(buf)


def _truncation(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    return seed.name, seed.buffer[: rng.randrange(len(seed.buffer))]


def _stacked(rng: random.Random, seed: Seed) -> tuple[str, bytes]:
    buf = bytearray(seed.buffer)
    draw = RandomDraw(rng)
    for _ in range(rng.randint(2, 4)):
        mutate_once(buf, draw, fields=seed.fields)
    return seed.name, bytes(buf)


def _splice(rng: random.Random, pool: Sequence[Seed]) -> tuple[str, bytes]:
    first, second = rng.choice(pool), rng.choice(pool)
    head = first.buffer[: rng.randint(0, len(first.buffer))]
    tail = second.buffer[rng.randint(0, len(second.buffer)) :]
    return f"{first.name}|{second.name}", head + tail


def _random_bytes(rng: random.Random) -> tuple[str, bytes]:
    size = rng.choice((0, 1, 2, 3, 8, 40, 200, 600, rng.randint(0, 2000)))
    data = rng.randbytes(size)
    if size >= 2 and rng.random() < 0.5:  # a plausible header, so the decoder goes deeper
        data = bytes((rng.choice((1, 2)), rng.randrange(256))) + data[2:]
    return "random", data


# The kinds of damage and how often each is drawn (weights): single-operator kinds first, so
# a finding says which operator caused it; "stacked" applies 2-4 of the tests' operators.
KINDS: dict[str, int] = {
    "bit-flip": 3,
    "byte-insert": 2,
    "byte-delete": 2,
    "size-field": 2,
    "count-field": 2,
    "string": 1,
    "truncation": 1,
    "splice": 2,
    "stacked": 3,
    "random": 2,
}
_KIND_NAMES = tuple(KINDS)
_KIND_WEIGHTS = tuple(KINDS.values())
_ON_A_SEED = {
    "bit-flip": _bit_flips,
    "byte-insert": _byte_insert,
    "byte-delete": _byte_delete,
    "size-field": _size_field,
    "count-field": _count_field,
    "string": _string,
    "truncation": _truncation,
    "stacked": _stacked,
}


def case_rng(seed: int, case: int) -> random.Random:
    """The generator of one case: depends on (seed, case) only, never on the partitioning."""
    return random.Random(f"mqcn-codec:{seed}:{case}")


def hostile_case(seed: int, case: int) -> HostileCase:
    """Case ``case`` of campaign ``seed``: a pure function of the two integers."""
    rng = case_rng(seed, case)
    kind = rng.choices(_KIND_NAMES, _KIND_WEIGHTS)[0]
    pool = seed_pool(seed)
    if kind == "random":
        origin, body = _random_bytes(rng)
    elif kind == "splice":
        origin, body = _splice(rng, pool)
    else:
        origin, body = _ON_A_SEED[kind](rng, rng.choice(pool))
    return HostileCase(seed, case, kind, origin, body, rng.getrandbits(32))


__all__ = [
    "KINDS",
    "SEEDS",
    "SEED_NAMES",
    "HostileCase",
    "Seed",
    "case_rng",
    "hostile_case",
    "make_seed",
    "seed_pool",
]
