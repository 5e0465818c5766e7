"""The slow server of the failure scenarios: a delaying TCP proxy in front of a listener."""

from __future__ import annotations

import contextlib
import socket
import threading

HOST = "127.0.0.1"


class SlowProxy:
    """A TCP proxy on a free 127.0.0.1 port that holds each request ``delay`` s, then passes it.

    Every chunk a client sends waits ``delay`` seconds before it goes to the server; answers
    come back at once.  A bind then a search take two delays.  The server sees the proxy's
    connection on the listener it forwards to, so its log names that listener as usual.
    """

    def __init__(self, target_port: int, delay: float) -> None:
        self.target_port = target_port
        self.delay = delay
        self._listener = socket.create_server((HOST, 0))
        self.port = int(self._listener.getsockname()[1])
        self._sockets: list[socket.socket] = []
        self._closed = threading.Event()
        threading.Thread(target=self._accept, name="slow-proxy", daemon=True).start()

    @property
    def url(self) -> str:
        return f"ldap://{HOST}:{self.port}"

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._closed.is_set():
                client.close()
                return
            try:
                server = socket.create_connection((HOST, self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            self._sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, held: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if held and self._closed.wait(self.delay):
                    return
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        """Stop accepting (connections to the port are refused from now on) and drop every
        connection."""
        self._closed.set()
        with contextlib.suppress(OSError):  # wakes the accept(): close() alone would not
            self._listener.shutdown(socket.SHUT_RDWR)
        for sock in [self._listener, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.close()
