"""TCP reassembly of one direction of a connection to or from port 1801 (pure, no I/O).

A :class:`Direction` receives that direction's segments in capture order and hands its
:class:`~mqcn_model.capture.stream.StreamFramer` the stream bytes in sequence order, each
byte once:

* the SYN gives the initial sequence number; a stream the capture joins in its middle starts
  at its first data segment (and the framer resynchronises on the first packet);
* a segment ahead of the next expected byte is kept until the bytes before it arrive, up to
  ``max_pending`` bytes per direction; beyond that (or when the stream ends) the missing
  bytes are a **gap**: the framer is told, the bytes are counted as lost, and the kept
  segments follow;
* a segment wholly before the next expected byte is a retransmission: dropped and counted
  (``retransmitted_bytes``); one that overlaps it and brings new bytes is trimmed
  (``overlap_bytes``);
* a frame captured shorter than its segment (snaplen) gives the bytes it holds, and the rest
  is lost at once (its bytes cannot come later: that frame was their only copy here);
* FIN ends the stream once every byte before it has arrived; RST ends it at once.

Sequence numbers are 32-bit and wrap: each is placed relative to the next expected byte, so
streams longer than 4 GB and an initial number near 2**32 read the same.
"""

from __future__ import annotations

from mqcn_model.capture.records import GAP, SNAPLEN, Record, StreamEnd, Where
from mqcn_model.capture.stream import StreamFramer
from mqcn_model.constants import AuthLevel

MASK = 0xFFFFFFFF
HALF = 1 << 31
DEFAULT_MAX_PENDING = 1 << 20  # bytes kept out of order per direction before a gap is declared


class Direction:
    """One direction of one TCP connection (see the module docstring)."""

    def __init__(
        self,
        capture: str,
        stream: str,
        out: list[Record],
        *,
        response: bool | None,
        max_pending: int = DEFAULT_MAX_PENDING,
        signed_as: AuthLevel = AuthLevel.Sig20,
    ) -> None:
        self.capture = capture
        self.signed_as = signed_as
        self.stream = stream
        self.out = out
        self.response = response
        self.max_pending = max_pending
        self.framer: StreamFramer | None = None
        self.isn: int | None = None  # sequence number of stream offset 0
        self.next = 0  # stream offset of the next expected byte
        self.fin_at: int | None = None  # stream offset of the FIN
        self.pending: dict[int, tuple[bytes, int, int, float | None]] = {}
        self.pending_bytes = 0
        self.retransmitted_bytes = 0
        self.overlap_bytes = 0
        self.out_of_order = 0
        self.mid_session = False
        self.last_time: float | None = None
        self.finished = False
        self.first: tuple[int, float | None] | None = None

    # --- segments ---------------------------------------------------------------------------

    def syn(self, seq: int, frame: int, time: float | None) -> None:
        """A SYN (or SYN-ACK): the stream starts after ``seq``."""
        self.last_time = time
        if self.isn is None:
            self.isn = (seq + 1) & MASK
            self._start(mid_session=False, frame=frame, time=time)

    def segment(
        self, seq: int, payload: bytes, missing: int, frame: int, time: float | None
    ) -> None:
        """Data of this direction: ``payload`` at ``seq``, then ``missing`` bytes not captured."""
        self.last_time = time
        if not payload and not missing:
            return
        if self.isn is None:
            self.isn = seq
            self._start(mid_session=True, frame=frame, time=time)
        if not missing and not self.pending and not (seq - self.isn - self.next) & MASK:
            # the common case, in order (its _offset is next) with nothing held: straight
            # to the framer
            assert self.framer is not None
            self.framer.data(payload, frame, time)
            self.next += len(payload)
            return
        offset = self._offset(seq)
        self._place(offset, payload, missing, frame, time)
        self._drain()

    def fin(self, seq: int, payload_size: int) -> None:
        """A FIN at ``seq`` (after ``payload_size`` bytes of that segment)."""
        if self.isn is None:
            return  # a FIN of a stream that carried nothing seen: nothing to account
        if self.fin_at is None:
            self.fin_at = self._offset(seq) + payload_size

    @property
    def complete(self) -> bool:
        """Every byte up to the FIN has arrived: the stream can end."""
        return self.fin_at is not None and self.next >= self.fin_at

    def finish(self, ended_by: str) -> None:
        """End the stream: kept segments after a hole follow it as a gap; one StreamEnd."""
        if self.finished:
            return
        self.finished = True
        while self.pending:
            first = min(self.pending)
            if first > self.next:
                self._gap(first - self.next, GAP, None, self.last_time)
            self._drain()
        framer = self.framer
        if framer is None:
            return
        framer.finish()
        first_frame, first_time = self.first or (None, None)
        frames = () if first_frame is None else (first_frame,)
        where = Where(self.capture, self.stream, 0, self.next, frames, first_time, self.last_time)
        self.out.append(
            StreamEnd(
                where,
                bytes=self.next,
                packet_bytes=framer.packet_bytes,
                quarantined_bytes=framer.quarantined_bytes,
                lost_bytes=framer.lost_bytes,
                packets=framer.packets,
                messages=framer.messages,
                retransmitted_bytes=self.retransmitted_bytes,
                overlap_bytes=self.overlap_bytes,
                out_of_order_segments=self.out_of_order,
                mid_session=self.mid_session,
                ended_by=ended_by,
            )
        )

    # --- inside ----------------------------------------------------------------------------

    def _start(self, *, mid_session: bool, frame: int, time: float | None) -> None:
        self.mid_session = mid_session
        self.first = (frame, time)
        self.framer = StreamFramer(
            self.capture,
            self.stream,
            self.out,
            response=self.response,
            mid_session=mid_session,
            signed_as=self.signed_as,
        )

    def _offset(self, seq: int) -> int:
        """The stream offset of ``seq``: the one nearest the next expected byte."""
        assert self.isn is not None
        delta = (seq - self.isn - self.next) & MASK
        if delta >= HALF:
            delta -= 1 << 32
        return self.next + delta

    def _place(
        self, offset: int, payload: bytes, missing: int, frame: int, time: float | None
    ) -> None:
        size = len(payload) + missing
        if offset + size <= self.next:
            self.retransmitted_bytes += size
            return
        if offset < self.next:
            cut = self.next - offset
            self.overlap_bytes += cut
            if cut >= len(payload):
                missing -= cut - len(payload)
                payload = b""
            else:
                payload = payload[cut:]
            offset = self.next
        if offset > self.next:
            self._keep(offset, payload, missing, frame, time)
            return
        self._deliver(payload, missing, frame, time)

    def _deliver(self, payload: bytes, missing: int, frame: int, time: float | None) -> None:
        assert self.framer is not None
        self.framer.data(payload, frame, time)
        self.next += len(payload)
        if missing:
            self._gap(missing, SNAPLEN, frame, time)

    def _gap(self, size: int, reason: str, frame: int | None, time: float | None) -> None:
        assert self.framer is not None
        self.framer.gap(size, reason, frame, time)
        self.next += size

    def _keep(
        self, offset: int, payload: bytes, missing: int, frame: int, time: float | None
    ) -> None:
        self.out_of_order += 1
        held = self.pending.get(offset)
        if held is not None:
            if len(held[0]) + held[1] >= len(payload) + missing:
                self.retransmitted_bytes += len(payload) + missing
                return
            self.pending_bytes -= len(held[0])
        self.pending[offset] = (payload, missing, frame, time)
        self.pending_bytes += len(payload)
        while self.pending_bytes > self.max_pending:
            first = min(self.pending)
            self._gap(first - self.next, GAP, None, time)
            self._drain()

    def _drain(self) -> None:
        """Deliver kept segments that the stream has now reached."""
        while self.pending:
            first = min(self.pending)
            if first > self.next:
                return
            payload, missing, frame, time = self.pending.pop(first)
            self.pending_bytes -= len(payload)
            self._place(first, payload, missing, frame, time)
