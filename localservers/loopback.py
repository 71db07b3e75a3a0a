"""An HTTP server on loopback, served from a daemon thread: the base of the feed servers.

It may listen on several loopback addresses (``hosts``), all on one port: feeds
served from 127.0.0.1, 127.0.1.1, 127.0.1.2, ... are feeds of different hosts,
as a real population of feeds is, so politeness (``DJANGOFEEDS_MAX_PER_HOST``)
limits each host and not the whole benchmark.
"""

import selectors
import threading
from http.server import ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # a burst of clients must not be refused


def loopback_hosts(count):
    """``count`` loopback addresses: 127.0.0.1 first, then 127.0.1.1, 127.0.1.2, ..."""
    extra = [f"127.0.{1 + i // 250}.{1 + i % 250}" for i in range(count - 1)]
    return ["127.0.0.1", *extra]


class LoopbackServer:
    """A threading HTTP server for ``handler`` on a free loopback port; ``start()`` serves it."""

    def __init__(self, handler, hosts=1):
        self.httpd = _Server(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        self.hosts = loopback_hosts(hosts)
        self.servers = [self.httpd]
        self.servers += [_Server((host, self.port), handler) for host in self.hosts[1:]]
        self._stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def host(self, n):
        """The address of the ``n``-th host (modulo their number)."""
        return self.hosts[n % len(self.hosts)]

    def _serve(self):
        # One thread waits on every address; each request is handled in a thread of its own.
        with selectors.DefaultSelector() as selector:
            for server in self.servers:
                selector.register(server, selectors.EVENT_READ)
            while not self._stopped.is_set():
                for key, _ in selector.select(0.05):
                    key.fileobj._handle_request_noblock()

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self._stopped.set()
        self.thread.join()
        for server in self.servers:
            server.server_close()
