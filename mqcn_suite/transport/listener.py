"""A queue manager's front door for tests: accept MS-MQQB sessions on a TCP port.

:class:`Listener` binds ``host:port`` (port 0: the kernel chooses; ``listener.port`` says
which), accepts every connection as the acceptor of an MS-MQQB session, hands each received
UserMessage to ``on_message(session, received)`` and acknowledges as a queue manager does
(a SessionAck at half its window, or when its ack send timer expires: by default at once
after each burst of bytes, so a sender waiting for its acknowledgment waits little).
Sessions that end badly keep their TransportError in ``session.error``; nothing is raised
in the accepting thread.  ``on_message`` runs in the session's reader thread, under its lock:
keep it short (it may call ``session.send``).
"""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
import uuid

from mqcn_model.mqqb import Role, SessionConfig
from mqcn_suite.transport.connection import TICK, MessageCallback, Session
from mqcn_suite.transport.failures import BindFailed
from mqcn_suite.transport.transcript import Transcript


class Listener:
    """Accepts MS-MQQB sessions until :meth:`close` (also a context manager)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        on_message: MessageCallback | None = None,
        qm_guid: uuid.UUID | None = None,
        config: SessionConfig | None = None,
    ) -> None:
        self.config = config or SessionConfig(qm_guid or uuid.uuid4(), ack_send_delay=0.0)
        self.qm_guid = self.config.qm_guid
        self.on_message = on_message
        self.sessions: list[Session] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((host, port))
            sock.listen(64)
        except OSError as exc:
            sock.close()
            raise BindFailed(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                Transcript((host, port), None),
            ) from None
        sock.settimeout(TICK)
        self._sock = sock
        self.host, self.port = sock.getsockname()[:2]
        self._thread = threading.Thread(target=self._accept, name="mqqb-listener", daemon=True)
        self._thread.start()

    def answer_as(
        self, queue_managers: frozenset[uuid.UUID], *, letter_session_ack: bool | None = None
    ) -> None:
        """From the next session on, accept an EstablishConnection naming any of
        ``queue_managers`` too, answering as the one named ([MS-MQQB] 3.1.5.3.1); one naming
        none of them (nor this listener's own GUID, nor GUID_NULL) is refused (Flags.CS).
        ``letter_session_ack``: write SessionAcks to the letter of W-01 (None: unchanged)."""
        letter = (
            self.config.letter_session_ack if letter_session_ack is None else letter_session_ack
        )
        self.config = dataclasses.replace(
            self.config, answers_as=frozenset(queue_managers), letter_session_ack=letter
        )

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # under the lock: the session answers from its own thread at once, and whoever
            # heard that answer must find the session here (see :meth:`sessions_from`)
            with self._lock:
                session = Session(conn, Role.ACCEPTOR, self.config, on_message=self.on_message)
                self.sessions.append(session)

    def sessions_from(self, start: int) -> list[Session]:
        """The sessions accepted since the ``start``-th: every one whose peer has heard from it."""
        with self._lock:
            return list(self.sessions[start:])

    def wait_for_sessions(self, count: int, timeout: float) -> list[Session]:
        """The first ``count`` sessions once each has closed (or all there are at timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                found = list(self.sessions[:count])
            if len(found) == count and all(s.wait_closed(TICK) for s in found):
                return found
            time.sleep(TICK)
        with self._lock:
            return list(self.sessions[:count])

    def close(self) -> None:
        """Stop accepting and close every session."""
        self._stop.set()
        self._sock.close()
        self._thread.join(2.0)
        with self._lock:
            sessions = list(self.sessions)
        for session in sessions:
            session.close()

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
