"""MS-MQQB framing of one direction of a TCP connection: stream bytes in, records out (pure).

A :class:`StreamFramer` is given the bytes of one direction in order (``data``), told where
bytes are missing (``gap``) and where the stream ends (``finish``).  It cuts packets with the
wire codec's :func:`~mqcn_model.wire.framing.next_frame` (BaseHeader.PacketSize, plus the
trailing SessionHeader of a UserMessage, errata W-01) and decodes each one:

* a UserMessage Packet to a notification queue (even one whose class makes it an OrderAck)
  → :class:`~.records.Message`, with the
  findings of :func:`mqcn_model.wire.judgement.judge_user_message` (the value rules of the
  wire catalog it breaks, and what the 3.3.5.3 sender rules say of its envelope): the
  destination alone decides, whatever values the packet holds;
* any other packet → :class:`~.records.Packet` (with the wire ``violation`` when the codec
  refuses its structure);
* a stream seen from its start whose first packet is a UserMessage (no EstablishConnection:
  a tool probing port 1801) → that packet's record carries the session finding
  MQQB-3.1.5.8-1, and the packet is decoded and judged as any other;
* bytes that start no packet → one :class:`~.records.Quarantine` per run of such bytes: the
  framer resynchronises on the next place a BaseHeader could start
  (:func:`~mqcn_model.wire.framing.find_base_header`) whose packet decodes, and the reason
  is the first thing wrong (``mid-session-start`` for a stream seen from its middle,
  ``no-base-header`` with the wire requirement — a wrong Signature, a PacketSize above 4 MB
  — and ``not-msmq`` for a stream in which no packet was ever found);
* a packet cut short by a gap (``packet-cut-by-gap``) or by the end of the stream
  (``stream-ends-inside-packet``) → one quarantine record for its bytes;
* a gap → :class:`~.records.Lost`, then resynchronisation.

It holds the bytes of at most one packet (PacketSize is at most 4 MB, [MS-MQMQ] 2.2.19.1)
plus the 7 bytes a BaseHeader split across segments needs: a stream of anything else is
counted as it passes, never kept.  Which destination is a notification queue:
:func:`~mqcn_model.wire.judgement.is_notification_queue` (NOTIFY_QUEUE_PRIVATE of the queue
manager the packet is addressed to, MS-MQCN 1.9, or a direct name of its path, 3.2.1.2.1).

The capture time of a packet is that of the frame that completed it: the latest-captured
frame among those that carried its bytes (with out-of-order segments, not the one holding
its last bytes).

A stream seen from its start (not ``mid_session``) whose first packet is a UserMessage --
no EstablishConnection and ConnectionParameters first, as tools probing port 1801 send it --
is framed and judged all the same, and its first message carries the session finding
MQQB-3.1.5.8-1 at offset 0 (below: the framer is not told it sees a stream's middle).

>>> import uuid
>>> from mqcn_model.constants import HashAlgorithm, notify_queue_format_name
>>> from mqcn_model.envelope import Envelope, MessageId
>>> from mqcn_model.wire import encode_user_message, envelope_to_packet
>>> qm = uuid.UUID(int=5)
>>> sent = Envelope(b"\x02\x01", MessageId(qm, 1), sender_identifier=qm,
...                 hash_algorithm=HashAlgorithm.SHA256,
...                 destination_format_name=notify_queue_format_name(str(qm)))
>>> wire = encode_user_message(envelope_to_packet(sent))
>>> out = []
>>> framer = StreamFramer("c.pcap", "a -> b", out)
>>> # out of order: the TCP layer held frame 7 (the message's end) until frame 8 came
>>> framer.data(wire[:40], 8, 3.0)
>>> framer.data(wire[40:], 7, 2.0)
>>> (message,) = out
>>> message.where.frames, message.envelope.arrival_time, [f.requirement for f in message.findings]
((7, 8), 3.0, ['MQCN-3.3.5.3-5', 'MQQB-3.1.5.8-1'])
"""

from __future__ import annotations

from collections import deque

from mqcn_model.capture.records import (
    CUT_BY_GAP,
    ENDS_INSIDE_PACKET,
    MID_SESSION,
    NO_BASE_HEADER,
    NOT_MSMQ,
    Lost,
    Message,
    Quarantine,
    Record,
    Where,
)
from mqcn_model.capture.records import Packet as PacketRecord  # "packet" alone: the wire's
from mqcn_model.catalog import req
from mqcn_model.constants import AuthLevel
from mqcn_model.errors import DecodeError, Violation
from mqcn_model.wire.base import (
    BASE_HEADER,
    BASE_HEADER_SIZE,
    IN,
    MAX_PACKET_SIZE,
    PACKET_VERSION,
    SIGNATURE,
    SIGNATURE_BYTES,
    BaseHeader,
)
from mqcn_model.wire.framing import (
    NEED_MORE,
    NOT_BASE_HEADER,
    find_base_header,
    next_frame,
    stream_size,
)
from mqcn_model.wire.internal import decode_internal
from mqcn_model.wire.judgement import judge_user_message
from mqcn_model.wire.packet import decode_packet
from mqcn_model.wire.usermessage import USER_MESSAGE, decode_user_message

__all__ = ["StreamFramer"]

# a stream seen from its start (its SYN captured) whose first packet is a UserMessage: the
# session was never opened (real senders probe port 1801 so)
R_BEFORE_OPEN = req("MQQB-3.1.5.8-1")

# A BaseHeader candidate is VersionNumber + Reserved + Flags + Signature: 8 bytes; keep the
# last 7 of a run with none, the start of one may be there.
_KEEP = len(SIGNATURE_BYTES) + 3
_HEAD = BASE_HEADER


class StreamFramer:
    """Frames one direction of one TCP connection (see the module docstring).

    ``response``: True when this direction comes from the acceptor (port 1801), so its
    EstablishConnection is a response whose Padding the codec checks; None when unknown.
    ``mid_session``: the capture does not hold the stream's start (no SYN), so the first
    bytes are skipped up to the first packet.  ``signed_as``: the AuthenticationLevel a
    signature stands for (the wire does not say which MSMQ signature it is, errata W-05).
    Records go to ``out``, a list the caller owns and empties.
    """

    def __init__(
        self,
        capture: str,
        stream: str,
        out: list[Record],
        *,
        response: bool | None = None,
        mid_session: bool = False,
        signed_as: AuthLevel = AuthLevel.Sig20,
    ) -> None:
        self.capture = capture
        self.signed_as = signed_as
        self.stream = stream
        self.out = out
        self.response = response
        self.packet_bytes = 0
        self.quarantined_bytes = 0
        self.lost_bytes = 0
        self.packets = 0
        self.messages = 0
        self._buf = bytearray()
        self._base = 0  # stream offset of self._buf[0]
        self._end = 0  # stream offset after the last byte given
        self._segments: deque[tuple[int, int, int, float | None]] = deque()  # start, end, frame
        # the current run of skipped bytes (None: not skipping)
        self._run_start: int | None = 0 if mid_session else None
        self._run_reason = MID_SESSION
        self._run_detail = (
            "the capture holds this stream from its middle (no SYN): bytes before its first "
            "whole packet"
        )
        self._run_requirement: str | None = None
        self._run_first: tuple[int, float | None] | None = None
        self._run_last: tuple[int, float | None] | None = None
        self._head = b""  # the stream's first bytes, to name what a non-MSMQ stream carried
        # has the session been seen to open (an EstablishConnection first)?  A stream seen
        # from its middle may have opened before the capture began: nothing to judge there
        self._opened = mid_session

    # --- what the reassembler calls ---------------------------------------------------------

    def data(self, payload: bytes, frame: int, time: float | None) -> None:
        """The next ``payload`` bytes of the stream, from ``frame`` captured at ``time``."""
        if not payload:
            return
        if len(self._head) < 8:
            self._head += payload[: 8 - len(self._head)]
        start = self._end
        self._end += len(payload)
        self._segments.append((start, self._end, frame, time))
        if self._buf:
            self._buf += payload
            self._frame(self._buf)
        else:  # nothing held: frame the payload itself, keep only what it leaves over
            self._frame(payload, frame, time)  # its frame and time: those of its packets

    def gap(self, size: int, reason: str, frame: int | None, time: float | None) -> None:
        """``size`` bytes of the stream are missing here (``reason``: gap or snaplen)."""
        if size <= 0:
            return
        if self._run_start is not None:
            self._skip(len(self._buf))
            self._flush_run(self._base)
        elif self._buf:
            have = len(self._buf)
            self._quarantine_buffer(
                CUT_BY_GAP, f"{have} bytes of a packet, then {size} bytes the capture lacks"
            )
        frames = () if frame is None else (frame,)
        where = Where(self.capture, self.stream, self._end, size, frames, time, time)
        self.out.append(Lost(where, reason))
        self.lost_bytes += size
        self._end += size
        self._base = self._end
        self._start_run(
            self._end,
            NO_BASE_HEADER,
            f"after {size} missing bytes, bytes before the next whole packet",
            None,
        )

    def finish(self) -> None:
        """The stream ended: what is left is a packet it cut short, or skipped bytes."""
        if self._run_start is not None:
            self._skip(len(self._buf))
            # a run still open from offset 0: no packet was framed and no byte lost (either
            # puts the start of any later run past 0)
            if self._run_start == 0:
                self._run_reason = NOT_MSMQ
                self._run_detail = (
                    f"no MS-MQQB packet in the {self._end} bytes of this stream on port 1801 "
                    f"(it starts with {self._head.hex()})"
                )
            self._flush_run(self._base)
        elif self._buf:
            have = len(self._buf)
            wanted = next_frame(self._buf, 0)
            self._quarantine_buffer(
                ENDS_INSIDE_PACKET,
                f"the stream ends after {have} of the {wanted.size} bytes of a packet",
            )

    @property
    def consumed(self) -> int:
        """Stream bytes accounted so far (packets + quarantined + lost)."""
        return self.packet_bytes + self.quarantined_bytes + self.lost_bytes

    # --- framing ------------------------------------------------------------------------------

    def _frame(
        self, buf: bytes | bytearray, number: int | None = None, time: float | None = None
    ) -> None:
        """Cut the packets of ``buf``: the held bytes, or a payload when none were held (its
        packets are then sliced from it, one copy, and only its leftover is held; ``number``
        and ``time`` are the frame and time of the one segment that carried it, so of its
        packets)."""
        pos = 0
        length = len(buf)
        while pos < length:
            if self._run_start is None:
                if length - pos >= BASE_HEADER_SIZE:
                    # the common case, read here once: a valid BaseHeader (the tests of
                    # decode_base_header) handed to the decoder; else next_frame says why
                    version, reserved, flags, signature, size, ttrq = _HEAD.unpack_from(buf, pos)
                    if (
                        version == PACKET_VERSION
                        and signature == SIGNATURE
                        and BASE_HEADER_SIZE <= size <= MAX_PACKET_SIZE
                        and not size & 3
                    ):
                        header = BaseHeader(flags, size, ttrq, version, reserved, signature)
                        size = stream_size(flags, size)
                        if length - pos < size:
                            break  # need more
                        raw = bytes(buf[pos : pos + size])
                        if number is None:
                            self._emit(raw, self._base + pos, header)
                        else:  # what _where finds for bytes of one segment
                            where = Where(
                                self.capture,
                                self.stream,
                                self._base + pos,
                                size,
                                (number,),
                                time,
                                time,
                            )
                            self._emit(raw, self._base + pos, header, where)
                        pos += size
                        continue
                frame = next_frame(buf, pos)
                if frame.status == NEED_MORE:
                    break
                if frame.status == NOT_BASE_HEADER:
                    violation = frame.violation
                    assert violation is not None
                    self._start_run(
                        self._base + pos,
                        NO_BASE_HEADER,
                        f"no BaseHeader where a packet should start: {violation}",
                        violation.requirement,
                    )
                    continue
                self._emit(bytes(buf[pos : pos + frame.size]), self._base + pos, None)
                pos += frame.size
                continue
            # resynchronising: the next candidate whose whole packet decodes
            found = find_base_header(buf, pos)
            waiting = False
            while found >= 0:
                frame = next_frame(buf, found)
                if frame.status == NEED_MORE:
                    waiting = True
                    break
                if frame.status != NOT_BASE_HEADER:
                    raw = bytes(buf[found : found + frame.size])
                    if self._decodes(raw):
                        break
                found = find_base_header(buf, found + 1)
            if found < 0:
                keep = max(pos, len(buf) - _KEEP)
                self._skip_at(pos, keep)
                pos = keep
                break
            self._skip_at(pos, found)
            pos = found
            if waiting:
                break
            self._flush_run(self._base + found)
        if buf is not self._buf:
            if pos < length:
                self._buf += memoryview(buf)[pos:]
        elif pos:
            del buf[:pos]
        if pos:
            self._base += pos
            while self._segments and self._segments[0][1] <= self._base:
                self._segments.popleft()

    def _decodes(self, raw: bytes) -> bool:
        try:
            decode_packet(raw, response=self.response)
        except DecodeError:
            return False
        return True

    def _emit(
        self, raw: bytes, offset: int, base: BaseHeader | None, where: Where | None = None
    ) -> None:
        """Decode the packet ``raw`` found at stream ``offset``; append its record.  ``base``:
        its BaseHeader, when the framer has decoded it already; ``where``: its
        :class:`~.records.Where`, when the framer knows it (one segment carried it)."""
        if where is None:
            where = self._where(offset, len(raw))
        self.packet_bytes += len(raw)
        self.packets += 1
        if raw[2] & IN:  # next_frame has read a valid BaseHeader: dispatch on it
            try:
                internal, _ = decode_internal(raw, response=self.response, base=base)
            except DecodeError as exc:
                self.out.append(PacketRecord(where, "internal packet", None, exc.violation))
                return
            self._opened = True  # an internal packet first: the session's own traffic
            self.out.append(PacketRecord(where, internal.kind, internal))
            return
        session: tuple[Violation, ...] = ()
        if not self._opened:
            self._opened = True  # one finding a stream
            session = (
                Violation(
                    R_BEFORE_OPEN,
                    0,
                    f"the stream opens with a UserMessage Packet at offset {offset}: no "
                    "EstablishConnection and ConnectionParameters exchange opened the session "
                    "([MS-MQQB] 2.1.1)",
                ),
            )
        try:
            packet, _ = decode_user_message(raw, base=base)
        except DecodeError as exc:
            self.out.append(
                PacketRecord(where, USER_MESSAGE, None, exc.violation, findings=session)
            )
            return
        kind = packet.kind
        found = judge_user_message(
            packet,
            signed_as=self.signed_as,
            arrival_time=where.time_last or 0.0,
            judge_body=False,  # the caller judges the body (the audit with the server view)
            only_notifications=True,  # the destination alone decides
        )
        if found.envelope is None:
            note = f"to {found.destination}: not a notification queue"
            self.out.append(
                PacketRecord(
                    where,
                    kind,
                    packet,
                    note=note if kind == USER_MESSAGE else "",
                    findings=session,
                )
            )
            return
        self.messages += 1
        self.out.append(
            Message(where, packet, found.envelope, packet.body, found.findings + session)
        )

    # --- skipped runs -------------------------------------------------------------------------

    def _start_run(self, offset: int, reason: str, detail: str, requirement: str | None) -> None:
        self._run_start = offset
        self._run_reason = reason
        self._run_detail = detail
        self._run_requirement = requirement
        self._run_first = self._run_last = None

    def _skip_at(self, pos: int, until: int) -> None:
        """Bytes ``pos..until`` of the buffer belong to the current skipped run."""
        if until <= pos:
            return
        start, end = self._base + pos, self._base + until
        for seg_start, seg_end, frame, time in self._segments:
            if seg_end <= start:
                continue
            if seg_start >= end:
                break
            if self._run_first is None:
                self._run_first = (frame, time)
            self._run_last = (frame, time)

    def _skip(self, count: int) -> None:
        """The first ``count`` bytes of the buffer join the run and leave the buffer."""
        self._skip_at(0, count)
        del self._buf[:count]
        self._base += count
        while self._segments and self._segments[0][1] <= self._base:
            self._segments.popleft()

    def _flush_run(self, end: int) -> None:
        """Close the current run of skipped bytes at stream offset ``end``: one quarantine
        record (none when the run is empty)."""
        start = self._run_start
        self._run_start = None
        if start is None:
            return
        size = end - start
        if size <= 0:
            return
        first, last = self._run_first, self._run_last
        frames: tuple[int, ...] = ()
        if first is not None and last is not None:
            frames = (first[0],) if first[0] == last[0] else (first[0], last[0])
        where = Where(
            self.capture,
            self.stream,
            start,
            size,
            frames,
            first[1] if first else None,
            last[1] if last else None,
        )
        self.quarantined_bytes += size
        reason, detail = self._run_reason, self._run_detail
        self.out.append(Quarantine(where, reason, detail, self._run_requirement))

    def _quarantine_buffer(self, reason: str, detail: str) -> None:
        where = self._where(self._base, len(self._buf))
        self.quarantined_bytes += len(self._buf)
        self.out.append(Quarantine(where, reason, detail))
        self._base += len(self._buf)
        self._buf.clear()
        self._segments.clear()

    def _where(self, offset: int, size: int) -> Where:
        """Where bytes ``offset..offset+size`` of the stream came from: their frames in
        capture order, the first captured and the last captured, which completed them."""
        end = offset + size
        if len(self._segments) == 1:  # the common case: one segment carried the packet
            seg_start, seg_end, frame, time = self._segments[0]
            if seg_start < end and seg_end > offset:
                return Where(self.capture, self.stream, offset, size, (frame,), time, time)
        times: dict[int, float | None] = {}
        for seg_start, seg_end, frame, time in self._segments:
            if seg_end <= offset:
                continue
            if seg_start >= end:
                break
            times[frame] = time
        frames = tuple(sorted(times))
        if not frames:
            return Where(self.capture, self.stream, offset, size)
        first, last = times[frames[0]], times[frames[-1]]
        return Where(self.capture, self.stream, offset, size, frames, first, last)
