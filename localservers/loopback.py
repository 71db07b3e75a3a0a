"""An HTTP server on loopback, served from a daemon thread: the base of the feed servers."""

import threading
from http.server import ThreadingHTTPServer


class LoopbackServer:
    """A threading HTTP server for ``handler`` on a free loopback port; ``start()`` serves it."""

    def __init__(self, handler):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
