"""A stand-in for Akismet's REST API on loopback, speaking the protocol as the akismet library does.

Endpoints: ``POST /1.1/verify-key`` (``key`` or ``api_key``), ``POST /1.1/comment-check``,
``POST /1.1/submit-spam``, ``POST /1.1/submit-ham``, ``GET /1.2/usage-limit``.
comment-check answers ``true``/``false`` with Akismet's documented forcing values:
``comment_author=akismet-guaranteed-spam`` (or that address as email) is spam,
``user_role=administrator`` is ham; ``comment_author=akismet-blatant-spam`` is
spam with ``X-akismet-pro-tip: discard``. A wrong key gets ``invalid`` with an
``X-akismet-debug-help`` header. Unknown fields are ignored; every request is
recorded with its exact fields (``calls(endpoint)[i].form``). Tests can switch on
a delay, failures (500/503), a hang longer than the client's timeout, an
off-protocol body, the discard verdict for every check (``discard``), alert
headers on every answer (``alert = (code, message)``) and usage-limit's answer
(``usage``: e.g. ``{"limit": 1000, "usage": 1200, "percentage": "120.00",
"throttled": True}``).

From the command line, for trying the product by hand::

    python -m localservers.akismet_server --port 8765 [--key test-key] [--delay 2]
"""

import argparse
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

THANKS = "Thanks for making the web a better place."
SPAM_AUTHOR = "akismet-guaranteed-spam"
SPAM_EMAIL = "akismet-guaranteed-spam@example.com"
DISCARD_AUTHOR = "akismet-blatant-spam"


@dataclass
class Recorded:
    method: str
    path: str
    form: dict
    headers: dict = field(repr=False)
    answer: str = ""
    peer: tuple = field(default=(), repr=False)  # the client's (address, port): its connection


class Handler(BaseHTTPRequestHandler):
    # HTTP/1.0 (the default): one request per connection, so after stop() no
    # kept-alive socket goes on answering.
    server_version = "AkismetStandIn/1.0"

    def log_message(self, format, *args):  # quiet in tests; the CLI prints requests itself
        if self.server.stand_in.verbose:
            super().log_message(format, *args)

    def do_GET(self):
        self.handle_any("GET", parse_qs(urlsplit(self.path).query, keep_blank_values=True))

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        self.handle_any("POST", parse_qs(body, keep_blank_values=True))

    def handle_any(self, method, query):
        stand_in = self.server.stand_in
        form = {key: values[-1] for key, values in query.items()}
        path = urlsplit(self.path).path
        record = Recorded(method, path, form, dict(self.headers), peer=self.client_address)
        stand_in.record(record)
        status, body, headers = stand_in.answer(record)
        record.answer = body
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body.encode())))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body.encode())


class KeepAliveHandler(Handler):
    """HTTP/1.1, as Akismet speaks it: a connection serves request after request."""

    protocol_version = "HTTP/1.1"


class StandInServer(ThreadingHTTPServer):
    # socketserver's backlog of 5 drops connections beyond it when a burst of checks
    # arrives at once (retried by the client's kernel after a second); Akismet's does not.
    request_queue_size = 128
    daemon_threads = True


class AkismetStandIn:
    """The server; ``start()`` serves it from a thread, ``stop()``/``start()`` keep the port."""

    def __init__(
        self, host="127.0.0.1", port=0, keys=("test-key",), verbose=False, keep_alive=False
    ):
        self.host, self.port = host, port
        self.keep_alive = keep_alive  # HTTP/1.1: kept-alive sockets outlive stop()
        self.initial_keys = set(keys)
        self.keys = set(keys)
        self.verbose = verbose
        self.requests = []
        self.delay = 0.0
        self.hang = False  # answer only after hang_seconds: longer than any client timeout
        self.hang_seconds = 30.0
        self.garbage = False  # answer 200 with a body that is not Akismet's
        self.gather = None  # a threading.Barrier: answer once that many requests are in
        self.discard = False  # every comment-check: spam with X-akismet-pro-tip: discard
        self.alert = None  # (code, message): X-akismet-alert-* headers on every answer
        self.usage = None  # usage-limit's answer (dict); None: counted comment-checks
        self._failures = []  # statuses to answer with, one per coming request
        self._lock = threading.Lock()
        self._server = None

    @property
    def url(self):
        return f"http://{self.host}:{self.port}"

    def start(self):
        handler = KeepAliveHandler if self.keep_alive else Handler
        self._server = StandInServer((self.host, self.port), handler)
        self._server.stand_in = self
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def reset(self):
        """Forget recorded requests, switch every fault off, accept the initial keys again."""
        with self._lock:
            self.requests.clear()
            self._failures.clear()
            self.keys = set(self.initial_keys)
        self.delay, self.hang, self.garbage, self.gather = 0.0, False, False, None
        self.discard, self.alert, self.usage = False, None, None

    def fail_next(self, count, status=503):
        """Answer the next ``count`` requests with ``status``."""
        with self._lock:
            self._failures.extend([status] * count)

    def record(self, record):
        with self._lock:
            self.requests.append(record)

    def calls(self, endpoint):
        """Recorded requests whose path ends with ``endpoint`` (e.g. ``"comment-check"``)."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/" + endpoint)]

    def answer(self, record):
        """(status, body, headers) for a request, after any delay or fault switched on."""
        if self.gather is not None:
            self.gather.wait(timeout=30)
        if self.delay:
            time.sleep(self.delay)
        with self._lock:
            failure = self._failures.pop(0) if self._failures else None
        if failure:
            return failure, "Service unavailable", {}
        if self.hang:
            time.sleep(self.hang_seconds)
        if self.garbage:
            return 200, "<html><body>Gateway says hello</body></html>", {}
        status, body, headers = self.protocol_answer(record)
        if self.alert:
            code, message = self.alert
            headers = headers | {"X-akismet-alert-code": code, "X-akismet-alert-msg": message}
        return status, body, headers

    def protocol_answer(self, record):
        form, path = record.form, record.path
        if path == "/1.1/verify-key" and record.method == "POST":
            if (form.get("key") or form.get("api_key")) in self.keys:
                return 200, "valid", {}
            return 200, "invalid", {"X-akismet-debug-help": "We were unable to verify your key."}
        if path == "/1.2/usage-limit" and record.method == "GET":
            if form.get("api_key") not in self.keys:
                return 200, "invalid", {"X-akismet-debug-help": "Invalid API key."}
            usage = self.usage
            if usage is None:
                count = len(self.calls("comment-check"))
                usage = {"limit": "none", "usage": count, "percentage": "0.00", "throttled": False}
            return 200, json.dumps(usage), {}
        if path not in {"/1.1/comment-check", "/1.1/submit-spam", "/1.1/submit-ham"}:
            return 404, "Not found", {}
        if form.get("api_key") not in self.keys:
            return 200, "invalid", {"X-akismet-debug-help": "Invalid API key."}
        if path != "/1.1/comment-check":
            return 200, THANKS, {}
        author = form.get("comment_author", "")
        if form.get("user_role") == "administrator":
            return 200, "false", {}
        if author == DISCARD_AUTHOR or self.discard:
            return 200, "true", {"X-akismet-pro-tip": "discard"}
        if author == SPAM_AUTHOR or form.get("comment_author_email") == SPAM_EMAIL:
            return 200, "true", {}
        return 200, "false", {}


def main(argv=None):
    parser = argparse.ArgumentParser(description="Serve the Akismet stand-in on loopback.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--key", action="append", help="a valid API key (default: test-key)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    args = parser.parse_args(argv)
    stand_in = AkismetStandIn(args.host, args.port, args.key or ["test-key"], verbose=True)
    stand_in.delay = args.delay
    stand_in.start()
    print(f"Akismet stand-in on {stand_in.url} (keys: {', '.join(sorted(stand_in.keys))})")
    print(f"Run the site with AKISMET_API_URL={stand_in.url} AKISMET_API_KEY={min(stand_in.keys)}")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        stand_in.stop()


if __name__ == "__main__":
    main()
