"""The byte mutations of message bodies: one set of operators for every negative generator.

The synthetic corpus (:func:`.generators.malformed_message`), the codec campaign
(:mod:`.hostile`, ``mqcn fuzz codec``) and the hypothesis fuzz tests (``tests/test_fuzz.py``)
all damage valid bodies with :func:`mutate_once`: flip a bit, set a byte to one of
:data:`HOSTILE_BYTES`, truncate, insert or delete a few bytes, write a hostile value into a
count or size field (``field``), or lie in the message's Count of 2.2.4 (``count``).  Each
caller names the operators it draws from (:data:`OPERATORS`, :data:`CORPUS_OPERATORS`), and
the choices come from a :class:`Draw`: hypothesis's ``st.data()`` in the tests (failures
shrink), a seeded :class:`random.Random` elsewhere (a case replays from two integers).

Standard library only (the executors import it).

>>> import random
>>> buf = bytearray(b"\\x01\\x02" + bytes(10))
>>> mutate_once(buf, RandomDraw(random.Random(1))) in OPERATORS
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")

HOSTILE_BYTES = (0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF)
# Values a four-byte size or count field is most dangerous at: zero, one, byte and word
# boundaries, the sign bit, and the top of the range (2**32 - 1 elements or bytes).
HOSTILE_U32 = (0, 1, 0xFF, 0x100, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF)
OPERATORS = ("flip", "set", "truncate", "insert", "delete", "field")  # the codec campaign's
CORPUS_OPERATORS = ("flip", "set", "truncate", "insert", "delete", "count")  # the corpus's


class Draw(Protocol):
    """Where a mutation takes its choices from (a seeded Random, or hypothesis's data)."""

    def integer(self, low: int, high: int) -> int:
        """An integer in ``[low, high]``."""
        ...

    def choice(self, options: Sequence[T]) -> T:
        """One of ``options``."""
        ...

    def binary(self, low: int, high: int) -> bytes:
        """Between ``low`` and ``high`` arbitrary bytes."""
        ...


class RandomDraw:
    """A :class:`Draw` from a :class:`random.Random`: same state, same choices."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def choice(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def binary(self, low: int, high: int) -> bytes:
        return self.rng.randbytes(self.rng.randint(low, high))


class BytewiseDraw(RandomDraw):
    """A :class:`RandomDraw` whose arbitrary bytes are drawn one at a time: the draws the
    synthetic corpus was generated with, so a seed keeps giving byte-identical rows."""

    def binary(self, low: int, high: int) -> bytes:
        return bytes(self.rng.randrange(256) for _ in range(self.rng.randint(low, high)))


def mutate_once(
    buf: bytearray,
    draw: Draw,
    operators: Sequence[str] = OPERATORS,
    fields: Sequence[tuple[int, int]] = (),
) -> str:
    """Apply one of ``operators`` to ``buf`` in place; return its name.

    ``field`` writes one of :data:`HOSTILE_U32` into one of ``fields`` (offset, width in
    bytes: the count and size fields of the seed ``buf`` came from), if the buffer still
    reaches it: the decoder must refuse a count or size the bytes cannot back without
    allocating what the field claims.  ``count`` sets the message's Count (byte 1).
    """
    op = draw.choice(operators)
    position = draw.integer(0, max(0, len(buf) - 1))
    if op == "flip" and buf:
        buf[position] ^= 1 << draw.integer(0, 7)
    elif op == "set" and buf:
        buf[position] = draw.choice(HOSTILE_BYTES)
    elif op == "truncate":
        del buf[position:]
    elif op == "insert":
        buf[position:position] = draw.binary(1, 8)
    elif op == "delete":
        del buf[position : position + draw.integer(1, 8)]
    elif op == "field" and fields:
        offset, width = draw.choice(fields)
        if offset + width <= len(buf):
            value = draw.choice(HOSTILE_U32) & ((1 << (8 * width)) - 1)
            buf[offset : offset + width] = value.to_bytes(width, "little")
    elif op == "count" and len(buf) > 1:
        buf[1] = draw.choice((0, 2, 3, 0xFF, buf[1] + 1 & 0xFF))
    return op


__all__ = [
    "CORPUS_OPERATORS",
    "HOSTILE_BYTES",
    "HOSTILE_U32",
    "OPERATORS",
    "BytewiseDraw",
    "Draw",
    "RandomDraw",
    "mutate_once",
]
