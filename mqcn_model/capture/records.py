"""What reading a capture yields: one record per thing found, every byte accounted for.

A capture is read into a flat sequence of records (:func:`mqcn_model.capture.iter_capture`):

* :class:`Message` — a UserMessage Packet sent to a notification queue: the decoded packet,
  the suite's :class:`~mqcn_model.envelope.Envelope` and the body MS-MQCN judges;
* :class:`Packet` — any other MS-MQQB packet framed on a stream (EstablishConnection,
  ConnectionParameters, SessionAck, OrderAck, FinalAck, a UserMessage to another queue), or
  a framed packet the wire codec refuses (``violation`` names the wire requirement);
* :class:`Quarantine` — bytes that are no packet (resynchronisation, non-MSMQ traffic, a
  stream ending inside a packet, a damaged capture file), with the reason and the byte count;
* :class:`Lost` — bytes a TCP stream carried that the capture does not hold (a gap, a
  snaplen-cut frame);
* :class:`StreamEnd` — the accounting of one direction of a TCP connection to/from port 1801;
* :class:`CaptureEnd` — the last record: frames and bytes read, frames counted by kind.

For every :class:`StreamEnd`: ``bytes == packet_bytes + quarantined_bytes + lost_bytes``,
and these are the sums of the ``size`` of the stream's Packet/Message, Quarantine and Lost
records.  Every record has a :class:`Where`, so a verdict row can name the capture file, the
frames, the TCP endpoints and the capture time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mqcn_model.envelope import Envelope
from mqcn_model.errors import Violation
from mqcn_model.frozen import quick_init

if TYPE_CHECKING:
    from mqcn_model.wire import SessionPacket as WirePacket
    from mqcn_model.wire.common import WireReading

# Quarantine reasons (the ``reason`` field); ``detail`` says more in one sentence.
MID_SESSION = "mid-session-start"  # a stream seen from its middle: bytes before the first packet
NO_BASE_HEADER = "no-base-header"  # bytes that start no packet (wrong Signature, 4 GB size...)
NOT_MSMQ = "not-msmq"  # a stream on port 1801 in which no MS-MQQB packet was ever found
ENDS_INSIDE_PACKET = "stream-ends-inside-packet"  # the stream stops before the packet's end
CUT_BY_GAP = "packet-cut-by-gap"  # a packet whose bytes run into missing bytes
CAPTURE_FORMAT = "not-a-capture"  # the file is neither pcap nor pcapng
CAPTURE_TRUNCATED = "capture-truncated"  # the file ends inside a record or block
CAPTURE_CORRUPT = "capture-corrupt"  # a record or block whose lengths cannot be right

QUARANTINE_REASONS = (
    MID_SESSION,
    NO_BASE_HEADER,
    NOT_MSMQ,
    ENDS_INSIDE_PACKET,
    CUT_BY_GAP,
    CAPTURE_FORMAT,
    CAPTURE_TRUNCATED,
    CAPTURE_CORRUPT,
)

# Lost reasons
GAP = "gap"  # sequence numbers jump: the capture missed segments
SNAPLEN = "snaplen"  # a frame was captured shorter than it was (caplen < len)


@quick_init
@dataclass(frozen=True, slots=True)
class Where:
    """Where the bytes of a record were: capture file, TCP endpoints, frames, times.

    ``stream`` is ``"src-ip:port -> dst-ip:port"`` (IPv6 addresses in brackets), empty for
    capture-level records.  ``offset`` is the position of the first byte in the stream (or in
    the capture file for capture-level records) and ``size`` the number of bytes.  ``frames``
    are the frame numbers (1-based, as Wireshark numbers them) the bytes came from, in
    capture order; a quarantined run over many frames keeps only its first and last.
    ``time_first`` and ``time_last`` are the capture times (seconds since the epoch) of the
    first and last of those frames (None where the capture has no time, e.g. a pcapng Simple
    Packet Block): for a packet, ``time_last`` is when it was complete, even when its
    segments came out of order.
    """

    capture: str
    stream: str
    offset: int
    size: int
    frames: tuple[int, ...] = ()
    time_first: float | None = None
    time_last: float | None = None

    @property
    def first_frame(self) -> int | None:
        return self.frames[0] if self.frames else None

    @property
    def last_frame(self) -> int | None:
        return self.frames[-1] if self.frames else None

    def to_json(self) -> dict[str, Any]:
        return {
            "capture": self.capture,
            "stream": self.stream,
            "offset": self.offset,
            "size": self.size,
            "frames": list(self.frames),
            "time_first": self.time_first,
            "time_last": self.time_last,
        }


@quick_init
@dataclass(frozen=True, slots=True)
class Message:
    """A UserMessage Packet to a notification queue, read as MS-MQCN sees it.

    The destination alone makes a Message: whatever values the packet holds, the Envelope
    carries them (:func:`mqcn_model.wire.packet_to_envelope`) and ``findings`` says which
    rules they break.  ``envelope.arrival_time`` is the capture time of the frame that
    completed the packet (the moment its last missing byte was on the wire).
    """

    where: Where
    packet: WirePacket = field(repr=False)
    envelope: Envelope
    body: bytes = field(repr=False)
    # the wire value rules the packet breaks, then what the 3.3.5.3 sender rules say of its
    # envelope (:func:`mqcn_model.wire.judgement.judge_user_message`)
    findings: tuple[Violation, ...] = ()

    @property
    def letter(self) -> tuple[WireReading, ...]:
        """The wire errata read to their letter to decode the packet (W-02, W-06, W-07 of
        docs/errata.md; empty when the suite's reading reads it)."""
        return tuple(getattr(self.packet, "letter", ()))


@quick_init
@dataclass(frozen=True, slots=True)
class Packet:
    """Any other packet framed on a stream.

    ``kind`` is the packet's name (``EstablishConnection``, ``ConnectionParameters``,
    ``SessionAck``, ``UserMessage``, ``OrderAck``, ``FinalAck``).  ``packet`` is None when
    the wire codec refused it; then ``violation`` says which wire requirement it breaks.
    ``note`` says why a UserMessage is not a :class:`Message` (it goes to another queue).
    ``findings``: what the stream says of the packet beyond its own wire findings (which are
    ``packet.findings``): the session finding MQQB-3.1.5.8-1 when it opens its stream.
    """

    where: Where
    kind: str
    packet: WirePacket | None = field(default=None, repr=False)
    violation: Violation | None = None
    note: str = ""
    findings: tuple[Violation, ...] = ()


@quick_init
@dataclass(frozen=True, slots=True)
class Quarantine:
    """Bytes set aside: ``reason`` (one of :data:`QUARANTINE_REASONS`), ``detail`` in one
    sentence, the wire ``requirement`` they break when one does, and ``where.size`` bytes."""

    where: Where
    reason: str
    detail: str
    requirement: str | None = None


@quick_init
@dataclass(frozen=True, slots=True)
class Lost:
    """``where.size`` bytes of a stream that the capture does not hold (``reason``: a
    ``gap`` in the sequence numbers, or a ``snaplen``-cut frame)."""

    where: Where
    reason: str


@quick_init
@dataclass(frozen=True, slots=True)
class StreamEnd:
    """The accounting of one direction of one TCP connection to or from port 1801.

    ``bytes`` is the sequence space the stream covered from its first byte seen (after the SYN
    when the capture holds it) to its highest byte, each byte once.  Retransmitted bytes
    (``retransmitted_bytes``: segments wholly seen before; ``overlap_bytes``: the repeated part
    of a segment that also brought new bytes) are dropped, not counted in ``bytes``.
    ``ended_by`` is ``fin``, ``rst``, ``capture-end`` or ``idle``.
    """

    where: Where
    bytes: int
    packet_bytes: int
    quarantined_bytes: int
    lost_bytes: int
    packets: int
    messages: int
    retransmitted_bytes: int
    overlap_bytes: int
    out_of_order_segments: int
    mid_session: bool
    ended_by: str

    @property
    def balanced(self) -> bool:
        return self.bytes == self.packet_bytes + self.quarantined_bytes + self.lost_bytes


@quick_init
@dataclass(frozen=True, slots=True)
class CaptureEnd:
    """The end of a capture: its ``format`` (``pcap``, ``pcapng`` or ``unknown``), the frames
    and bytes read, the bytes quarantined at capture level, and every frame counted by
    kind (``counts``: e.g. ``tcp-1801``, ``tcp-other``, ``udp``, ``non-ip``, ``ipv4-fragment``,
    ``snaplen-cut``; see docs/capture.md)."""

    where: Where
    format: str
    frames: int
    bytes: int
    quarantined_bytes: int
    counts: dict[str, int]


Record = Message | Packet | Quarantine | Lost | StreamEnd | CaptureEnd
