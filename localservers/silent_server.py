"""Hosts that accept connections and never answer, on loopback: every fetch there times out.

One port on each of ``hosts`` loopback addresses (``loopback.loopback_hosts``'
scheme, from an offset so they do not collide with a feed server's): a
publisher whose machine is up and whose server hangs.
"""

import selectors
import socket
import threading

from localservers.loopback import loopback_hosts


class SilentHosts:
    """``url(path, n)`` on the ``n``-th silent host; ``connections`` counts those accepted."""

    def __init__(self, hosts=1, first=0):
        self.hosts = loopback_hosts(first + hosts)[first:]
        self.listeners = [socket.create_server((self.hosts[0], 0))]
        self.port = self.listeners[0].getsockname()[1]
        self.listeners += [socket.create_server((host, self.port)) for host in self.hosts[1:]]
        self.held = []  # accepted connections, kept open and never read
        self.connections = 0
        self._stopped = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def url(self, path, n=0):
        return f"http://{self.hosts[n % len(self.hosts)]}:{self.port}{path}"

    def _accept(self):
        with selectors.DefaultSelector() as selector:
            for listener in self.listeners:
                selector.register(listener, selectors.EVENT_READ)
            while not self._stopped.is_set():
                for key, _ in selector.select(0.05):
                    client, _ = key.fileobj.accept()
                    self.held.append(client)
                    self.connections += 1

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self._stopped.set()
        self.thread.join()
        for sock in [*self.held, *self.listeners]:
            sock.close()
