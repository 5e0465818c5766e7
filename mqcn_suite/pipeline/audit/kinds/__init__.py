"""The built-in input kinds, each one module that registers itself (:mod:`..kind`).

Imported in this order, each asked before those imported earlier: :mod:`.raw` (anything;
asked last), :mod:`.parquet` (an input holding a ``*.parquet`` file), :mod:`.capture` (an
input holding a pcap or pcapng file; asked first).  A new kind is a module like these,
imported once before the first audit (here, or by its user).
"""

from mqcn_suite.pipeline.audit.kinds import raw  # noqa: I001 - the order is the asking order
from mqcn_suite.pipeline.audit.kinds import parquet
from mqcn_suite.pipeline.audit.kinds import capture

__all__ = ["capture", "parquet", "raw"]
