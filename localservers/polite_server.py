"""A slow feed server on loopback that counts the requests it answers at once, per host name.

Every path answers a small RSS document of its own after ``delay`` seconds.
The server records, for each ``Host`` header (without the port), how many
requests were in flight at the peak, and when each request arrived, so a
test or a benchmark can check the per-host limit where it matters: at the host.
"""

import collections
import threading
import time
from http.server import BaseHTTPRequestHandler

from localservers.feed_server import numbered_items, rss
from localservers.loopback import LoopbackServer


class CountingServer(LoopbackServer):
    """``url(path, host=...)``; then ``peak[host]``, ``hits[path]``, ``arrivals[host]``."""

    def __init__(self, delay=0.2, hosts=1):
        self.delay = delay
        self.in_flight = collections.Counter()
        self.peak = collections.Counter()
        self.hits = collections.Counter()
        self.arrivals = collections.defaultdict(list)  # host -> monotonic times
        self._lock = threading.Lock()
        super().__init__(self._handler(), hosts=hosts)

    def url(self, path, host="127.0.0.1"):
        return f"http://{host}:{self.port}{path}"

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                host = self.headers.get("Host", "").rsplit(":", 1)[0]
                with server._lock:
                    server.hits[self.path] += 1
                    server.arrivals[host].append(time.monotonic())
                    server.in_flight[host] += 1
                    server.peak[host] = max(server.peak[host], server.in_flight[host])
                time.sleep(server.delay)
                body = rss(numbered_items(2, prefix=self.path.strip("/").replace("/", "-")))
                self.send_response(200)
                self.send_header("Content-Type", "application/rss+xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                # Over before the body leaves: a client cannot have its answer
                # (and start its next request) while this one still counts.
                with server._lock:
                    server.in_flight[host] -= 1
                self.wfile.write(body)

            def log_message(self, format, *args):
                pass

        return Handler
