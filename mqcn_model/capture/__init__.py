"""Network captures of MSMQ traffic: read pcap/pcapng into records, write MS-MQQB sessions.

Pure like the rest of :mod:`mqcn_model`: bytes in, records (or bytes) out; the caller reads
and writes the files.

* :func:`iter_capture` / :class:`CaptureReader` — a capture's bytes, in chunks, to
  :mod:`records <mqcn_model.capture.records>`: every UserMessage to a notification queue as
  (Envelope, body) with where it was found, every other packet, and every byte that is not a
  packet quarantined or counted as lost, stream by stream (docs/capture.md);
* :class:`PcapWriter` — Envelopes to a pcap of plausible MS-MQQB sessions, piece by piece.

Layers, bottom up: :mod:`.containers` (pcap, pcapng), :mod:`.dissect` (link, IP, TCP),
:mod:`.tcp` (reassembly per direction), :mod:`.stream` (MS-MQQB framing), :mod:`.reader`;
:mod:`.inet` and :mod:`.writer` for the way out.
"""

from mqcn_model.capture.reader import CaptureReader, iter_capture
from mqcn_model.capture.records import (
    CaptureEnd,
    Lost,
    Message,
    Packet,
    Quarantine,
    Record,
    StreamEnd,
    Where,
)
from mqcn_model.capture.writer import PcapWriter, Unwritable

__all__ = [
    "CaptureEnd",
    "CaptureReader",
    "Lost",
    "Message",
    "Packet",
    "PcapWriter",
    "Quarantine",
    "Record",
    "StreamEnd",
    "Unwritable",
    "Where",
    "iter_capture",
]
