"""A TCP forwarder on a free loopback port that a test can cut: a server gone for its clients.

The real server (a shared database, say) keeps running for everyone else; only
the connections through this proxy break, and new ones are refused.
"""

import contextlib
import socket
import threading


class TcpProxy:
    """Forwards 127.0.0.1:``port`` to ``target``; ``cut()`` drops it all and stops listening."""

    def __init__(self, target_host, target_port):
        self.target = (target_host, int(target_port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.host, self.port = self.listener.getsockname()
        self.sockets = []
        self.lock = threading.Lock()

    def start(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # cut
                return
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self.lock:
                self.sockets += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source, sink):
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def cut(self):
        """Refuse new connections and reset the open ones, as a database host gone would."""
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept (close alone does not)
        self.listener.close()
        with self.lock:
            for sock in self.sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self.sockets = []
