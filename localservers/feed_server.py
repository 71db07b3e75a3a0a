"""A real HTTP server on loopback that serves feeds the way publishers do (and misbehave).

Routes are set by the test: a body with its status and headers, validators for
conditional GET (answered with 304), redirects, a delay before answering, an
answer trickled out one byte at a time.
Every request is recorded, so a test can count fetches, also those made by
worker subprocesses.
"""

import contextlib
import gzip
import json
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler

from localservers.loopback import LoopbackServer

RSS = "application/rss+xml"


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    headers: dict = field(default_factory=dict)
    etag: str = ""
    last_modified: str = ""
    delay: float = 0.0
    gzip: bool = False
    send_length: bool = True
    trickle: float = 0.0  # seconds between two bytes of the answer
    trickle_head: bool = True  # the status line and headers too, or only the body


class FeedServer(LoopbackServer):
    """``serve()`` a path, read ``url(path)``, count ``hits(path)``."""

    def __init__(self, hosts=1):
        self.routes = {}
        self.requests = []  # (path, headers) in arrival order
        self._lock = threading.Lock()
        super().__init__(self._handler(), hosts=hosts)

    def url(self, path, host="127.0.0.1"):
        return f"http://{host}:{self.port}{path}"

    def serve(self, path, body=b"", *, status=200, content_type=RSS, host=None, **options):
        """Answer ``path`` (on every host); its URL, on ``host`` (one of ``hosts``) if given."""
        headers = {"Content-Type": content_type, **options.pop("headers", {})}
        body = body.encode() if isinstance(body, str) else body
        self.routes[path] = Route(body=body, status=status, headers=headers, **options)
        return self.url(path, host or "127.0.0.1")

    def redirect(self, path, to, status=301, delay=0.0):
        self.routes[path] = Route(status=status, headers={"Location": to}, delay=delay)
        return self.url(path)

    def hits(self, path):
        with self._lock:
            return sum(1 for seen, _ in self.requests if seen == path)

    def last_headers(self, path):
        with self._lock:
            return next(headers for seen, headers in reversed(self.requests) if seen == path)

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                with server._lock:
                    server.requests.append((self.path, dict(self.headers)))
                route = server.routes.get(self.path)
                if route is None:
                    return self.answer(404, b"not found", {"Content-Type": "text/plain"})
                if route.delay:
                    time.sleep(route.delay)
                validators = validators_of(route)
                if unchanged_for(route, self.headers):
                    return self.answer(304, b"", validators)
                body, headers = route.body, {**route.headers, **validators}
                if route.gzip:
                    body = gzip.compress(body)
                    headers["Content-Encoding"] = "gzip"
                if route.trickle:
                    return self.trickle(route, body, headers)
                self.answer(route.status, body, headers, send_length=route.send_length)

            def trickle(self, route, body, headers):
                head = f"HTTP/1.1 {route.status} OK\r\nContent-Length: {len(body)}\r\n"
                head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
                head = (head + "\r\n").encode()
                self.close_connection = True
                # Until the client gives up and hangs up.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    if not route.trickle_head:
                        self.wfile.write(head)
                        head = b""
                    for byte in head + body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(route.trickle)

            def answer(self, status, body, headers, send_length=True):
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if send_length:
                    self.send_header("Content-Length", str(len(body)))
                else:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                # The client may stop reading (size caps do that).
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

            def log_message(self, format, *args):
                pass

        return Handler


def http_date(seconds_ago=0):
    return formatdate(time.time() - seconds_ago, usegmt=True)


def rss(items, *, title="Test feed", ttl=None):
    """An RSS 2.0 document; each item is a dict of guid/title/link/description/pubDate."""
    parts = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<rss version="2.0"><channel>',
        f"<title>{title}</title><link>http://example.com/</link>",
        f"<description>About {title}</description>",
    ]
    if ttl:
        parts.append(f"<ttl>{ttl}</ttl>")
    for item in items:
        parts.append("<item>")
        for name in ("title", "link", "description", "pubDate", "author"):
            if name in item:
                parts.append(f"<{name}>{item[name]}</{name}>")
        if "guid" in item:
            parts.append(f'<guid isPermaLink="false">{item["guid"]}</guid>')
        for url, kind, length in item.get("enclosures", []):
            parts.append(f'<enclosure url="{url}" type="{kind}" length="{length}"/>')
        for name, domain in item.get("categories", []):
            parts.append(f'<category domain="{domain}">{name}</category>')
        parts.append("</item>")
    parts.append("</channel></rss>")
    return "\n".join(parts).encode()


def with_media(items, *, categories=3, pool=20):
    """``items`` with one MP3 enclosure each and ``categories`` categories from a pool.

    Items are dicts for ``rss``: ``enclosures`` holds (url, type, length)
    triples, ``categories`` (name, domain) pairs.
    """
    for number, item in enumerate(items):
        item["enclosures"] = [(f"https://cdn.example.com/{item['guid']}.mp3", "audio/mpeg", 1000)]
        item["categories"] = [
            (f"Topic {(number + k) % pool}", "https://example.com/topics")
            for k in range(categories)
        ]
    return items


def numbered_items(count, *, prefix="item", start=0):
    """``count`` distinct RSS items, newest first, with dates one minute apart."""
    now = time.time()
    return [
        {
            "guid": f"{prefix}-{n}",
            "title": f"{prefix.title()} {n}",
            "link": f"http://example.com/{prefix}/{n}",
            "description": f"&lt;p&gt;Body of {prefix} {n}&lt;/p&gt;",
            "pubDate": formatdate(now - 60 * (n - start) - 3600, usegmt=True),
        }
        for n in range(start, start + count)
    ]


def json_feed(items, *, version="1.1", **fields):
    """A JSON Feed document (bytes): ``items`` are item objects, ``fields`` top-level ones."""
    document = {
        "version": f"https://jsonfeed.org/version/{version}",
        "title": "Test JSON feed",
        "home_page_url": "http://example.com/",
        **fields,
        "items": items,
    }
    return json.dumps(document).encode()


def validators_of(route):
    """The ETag and Last-Modified headers a route answers with, those it has."""
    named = {"ETag": route.etag, "Last-Modified": route.last_modified}
    return {name: value for name, value in named.items() if value}


def unchanged_for(route, headers):
    """Whether the request's conditional headers match the route's validators (a 304)."""
    return bool(
        (route.etag and headers.get("If-None-Match") == route.etag)
        or (route.last_modified and headers.get("If-Modified-Since") == route.last_modified)
    )
