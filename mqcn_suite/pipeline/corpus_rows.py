"""A corpus row: the one draw of row *r* of seed *s*, and what ``corpus generate`` wrote.

Both formats of the synthetic corpus hold the same messages for a seed: the Parquet rows
(:mod:`.corpus`) and the capture files (:mod:`.capture_corpus`) both take row *r* from
:func:`corpus_message`.  This module sits below both (it needs neither pyarrow nor Spark),
so neither imports the other to reach it.

>>> arrival, env = corpus_message(3, 7, 0.0)
>>> arrival == corpus_message(3, 7, 0.0)[0], env.arrival_time == arrival / 1_000_000
(True, True)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from mqcn_model.codec import body_buffer
from mqcn_model.envelope import Envelope
from mqcn_suite.pipeline.generators import (
    Population,
    envelope,
    malformed_message,
    row_rng,
    valid_message,
)

__all__ = ["ARRIVAL_EPOCH_US", "ARRIVAL_STEP_US", "CorpusResult", "corpus_message"]

# 2026-01-01T00:00:00Z in microseconds: synthetic arrivals start here, four a second.
ARRIVAL_EPOCH_US = 1_767_225_600_000_000
ARRIVAL_STEP_US = 250_000


@lru_cache(maxsize=8)
def _population(seed: int) -> Population:
    return Population.from_seed(seed)


def corpus_message(row: int, seed: int, invalid_share: float) -> tuple[int, Envelope]:
    """Row ``row`` of the corpus of ``seed``: its arrival (microseconds since the Unix epoch,
    UTC) and its Envelope, whose ``arrival_time`` is that arrival in seconds.

    The one draw of a row, shared by the Parquet rows (:func:`.corpus.generate_rows`) and
    the capture files (:mod:`.capture_corpus`): both formats hold the same messages.
    """
    population = _population(seed)
    rng = row_rng(seed, row)
    if rng.random() < invalid_share:
        _, body = malformed_message(rng, population)
    else:
        _, message = valid_message(rng, population)
        body = body_buffer(message, 0 if rng.random() < 0.9 else rng.randrange(256))
    arrival = ARRIVAL_EPOCH_US + row * ARRIVAL_STEP_US + rng.randrange(ARRIVAL_STEP_US)
    return arrival, envelope(rng, population, body, row, arrival / 1_000_000)


@dataclass(frozen=True)
class CorpusResult:
    """What :func:`.corpus.generate` wrote.

    ``rows`` messages were drawn; ``messages`` of them were written (all of them in Parquet;
    in pcap those the wire can carry: ``unwritable`` others are counted, ``first_unwritable``
    names one).  ``bytes`` is the size of the capture files (null for Parquet).
    """

    path: str
    rows: int
    partitions: int
    files: int
    seed: int
    invalid_share: float
    seconds: float
    format: str = "parquet"
    messages: int = 0
    unwritable: int = 0
    first_unwritable: str | None = None
    bytes: int | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
