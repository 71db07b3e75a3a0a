"""A WebSub hub stand-in on loopback: takes subscriptions, verifies intent, pushes signed content.

As a real hub does (W3C WebSub 5-7): a subscription request (form POST) is
answered 202, then the hub GETs the callback with ``hub.challenge`` and keeps
the subscription only if the challenge comes back as the body. ``push`` POSTs
content to the callbacks of a topic with ``X-Hub-Signature`` made from their
``hub.secret``.
"""

import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

import httpx


@dataclass
class Verified:
    """One verification of intent the hub made, and how the subscriber answered."""

    mode: str
    topic: str
    callback: str
    status: int
    confirmed: bool


@dataclass
class HubSubscription:
    callback: str
    topic: str
    secret: str
    lease_seconds: int


@dataclass
class Hub:
    requests: list = field(default_factory=list)  # form dicts of every (un)subscribe POST
    published: list = field(default_factory=list)  # (path, [hub.url, ...]) of each publish ping
    failing: set = field(default_factory=set)  # paths that answer 503 (a hub down)
    verifications: list = field(default_factory=list)
    subscriptions: dict = field(default_factory=dict)  # callback -> HubSubscription
    redirects: dict = field(default_factory=dict)  # path -> (status, location)
    lease_seconds: int | None = None  # None: grant what is asked
    verify: bool = True  # False: take requests, never verify (the test does it)


class WebSubHub:
    """The stand-in: ``url`` is the hub's URL, ``url_for(path)`` any other path on it."""

    def __init__(self):
        self.state = Hub()
        self.lock = threading.Lock()
        self._server = None

    def start(self):
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self):
        return self.url_for("/hub")

    def url_for(self, path):
        return f"http://127.0.0.1:{self._server.server_address[1]}{path}"

    def redirect(self, path, to, status=307):
        """Answer POSTs to ``path`` with a redirect to ``to`` (another path on the hub)."""
        self.state.redirects[path] = (status, to)

    def publishes(self, path="/hub"):
        """The ``hub.url`` lists of the publish pings that reached ``path``, in order."""
        return [urls for seen, urls in self.state.published if seen == path]

    def received(self, path="/hub"):
        """The (un)subscription requests that reached ``path``, as form dicts."""
        return [form for seen, form in self.state.requests if seen == path]

    def verify_intent(self, form, mode=None):
        """GET the callback with a challenge, as the hub does after a request; a ``Verified``."""
        challenge = secrets.token_urlsafe(16)
        params = {
            "hub.mode": mode or form["hub.mode"],
            "hub.topic": form["hub.topic"],
            "hub.challenge": challenge,
        }
        lease = self.state.lease_seconds or int(form.get("hub.lease_seconds") or 3600)
        if params["hub.mode"] == "subscribe":
            params["hub.lease_seconds"] = str(lease)
        response = httpx.get(form["hub.callback"], params=params, timeout=10)
        confirmed = response.status_code // 100 == 2 and response.text == challenge
        result = Verified(
            params["hub.mode"],
            form["hub.topic"],
            form["hub.callback"],
            response.status_code,
            confirmed,
        )
        with self.lock:
            self.state.verifications.append(result)
            if confirmed and params["hub.mode"] == "subscribe":
                self.state.subscriptions[form["hub.callback"]] = HubSubscription(
                    form["hub.callback"], form["hub.topic"], form.get("hub.secret", ""), lease
                )
            elif confirmed:
                self.state.subscriptions.pop(form["hub.callback"], None)
        return result

    def deny(self, form, reason="not allowed"):
        """Tell the callback the subscription is denied (``hub.mode=denied``); the status."""
        params = {"hub.mode": "denied", "hub.topic": form["hub.topic"], "hub.reason": reason}
        return httpx.get(form["hub.callback"], params=params, timeout=10).status_code

    def wait_verified(self, count=1, timeout=15):
        deadline = time.monotonic() + timeout
        while len(self.state.verifications) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"the hub made no {count} verifications in {timeout}s")
            time.sleep(0.02)
        return self.state.verifications[count - 1]

    def push(
        self,
        topic,
        body,
        *,
        content_type="application/atom+xml",
        method="sha256",
        signature=None,
        secret=None,
    ):
        """POST ``body`` to every verified callback of ``topic``; their status codes.

        The signature is ``method=HMAC(secret, body)`` with the subscription's
        secret unless ``secret`` or a literal ``signature`` (None header: "") is given.
        """
        statuses = []
        for subscription in list(self.state.subscriptions.values()):
            if subscription.topic != topic:
                continue
            headers = {"Content-Type": content_type}
            if signature is None:
                key = (secret or subscription.secret).encode()
                digest = hmac.new(key, body, getattr(hashlib, method)).hexdigest()
                headers["X-Hub-Signature"] = f"{method}={digest}"
            elif signature:
                headers["X-Hub-Signature"] = signature
            response = httpx.post(subscription.callback, content=body, headers=headers, timeout=10)
            statuses.append(response.status_code)
        return statuses

    def _handler(self):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                pairs = parse_qsl(self.rfile.read(length).decode())
                form = dict(pairs)
                with hub.lock:
                    hub.state.requests.append((self.path, form))
                    if form.get("hub.mode") == "publish":  # hub.url may be repeated
                        urls = [value for name, value in pairs if name == "hub.url"]
                        hub.state.published.append((self.path, urls))
                if self.path in hub.state.failing:
                    self.send_response(503)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if self.path in hub.state.redirects:
                    status, to = hub.state.redirects[self.path]
                    self.send_response(status)
                    self.send_header("Location", to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                if hub.state.verify and {"hub.callback", "hub.topic"} <= form.keys():
                    # After the answer, as real hubs do: verification is asynchronous.
                    threading.Thread(target=hub.verify_intent, args=(form,), daemon=True).start()

            def log_message(self, format, *args):
                pass

        return Handler
