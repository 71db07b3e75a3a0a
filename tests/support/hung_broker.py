"""Brokers that hang, as real TCP servers on loopback.

``SilentServer`` accepts connections and never answers: a broker whose process
is stuck (or a firewall that lets the handshake through). ``StallingProxy``
forwards to a real broker until ``stall()``: then it holds every connection,
old and new, and forwards nothing, so a client that connected while all was
well finds its connection hung.
"""

import contextlib
import socket
import threading
from urllib.parse import urlsplit, urlunsplit


class _Listener:
    def __init__(self):
        self.host = "127.0.0.1"
        self._listener = None
        self._sockets = []
        self._lock = threading.Lock()
        self.port = None
        self.connections = 0  # client connections accepted

    def start(self):
        self._listener = socket.create_server((self.host, 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept_loop, daemon=True).start()
        return self

    def _keep(self, sock):
        with self._lock:
            self._sockets.append(sock)

    def _accept_loop(self):
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # closed by stop()
                return
            self._keep(client)
            self.connections += 1
            self.accepted(client)

    def accepted(self, client):
        raise NotImplementedError

    def url(self, like):
        """``like``, a broker URL, pointed at this server instead (credentials and vhost kept)."""
        parts = urlsplit(like)
        credentials = parts.netloc.rpartition("@")[0]
        netloc = f"{credentials}@" if credentials else ""
        return urlunsplit(parts._replace(netloc=f"{netloc}{self.host}:{self.port}"))

    def stop(self):
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()


class SilentServer(_Listener):
    """Accepts every connection, then neither reads nor writes a byte."""

    def accepted(self, client):
        pass


class StallingProxy(_Listener):
    """A TCP proxy to ``upstream`` (host, port) that stops forwarding on ``stall()``."""

    def __init__(self, upstream):
        super().__init__()
        self.upstream = upstream
        self.flowing = threading.Event()
        self.flowing.set()

    def stall(self):
        self.flowing.clear()

    def accepted(self, client):
        if not self.flowing.is_set():
            return  # held open, never answered
        server = socket.create_connection(self.upstream, timeout=5)
        server.settimeout(None)
        self._keep(server)
        for source, target in ((client, server), (server, client)):
            threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source, target):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if not self.flowing.is_set():
                    return  # stalled: what arrives now is swallowed, and nothing more is read
                target.sendall(data)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)
