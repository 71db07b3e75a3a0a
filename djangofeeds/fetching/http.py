"""Fetch a feed over HTTP the careful way: one deadline, a size cap, no private addresses.

feedparser can fetch URLs itself, but without a size cap, an overall deadline
or address checks; here httpx fetches and feedparser only parses bytes. Which
addresses may be fetched is ``djangofeeds.fetching.addresses``' business; the client and
its deadline are ``djangofeeds.fetching.transport``'s.
"""

import ssl
import time
import zlib
from dataclasses import dataclass, field

import httpx

from djangofeeds import conf
from djangofeeds.fetching.addresses import check_url, host_header, pinned
from djangofeeds.fetching.errors import FeedGone, FetchError, TransientFetchError
from djangofeeds.fetching.server_waits import max_age, retry_after
from djangofeeds.fetching.transport import (
    DEADLINE_TIMEOUTS,
    deadline_at,
    send_get,
    time_left,
    too_slow,
    user_agent,
)

# What the importer and the tests import from here.
__all__ = ["FeedGone", "FetchError", "Fetched", "TransientFetchError", "fetch"]

ACCEPT = (
    "application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml, "
    "application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.9, */*;q=0.1"
)
MAX_REDIRECTS = 10
PERMANENT_REDIRECTS = {301, 308}
REDIRECTS = {301, 302, 303, 307, 308}


@dataclass
class Fetched:
    """What a fetch brought back."""

    url: str  # the URL finally fetched, after redirects
    status: int
    body: bytes = b""
    headers: httpx.Headers = field(default_factory=httpx.Headers)
    permanent_url: str | None = None  # set when every redirect on the way was permanent
    max_age: int | None = None  # seconds, from Cache-Control

    @property
    def not_modified(self):
        return self.status == 304


def fetch(url, *, etag="", last_modified=""):
    """GET ``url`` (conditionally, when validators are given) and return a ``Fetched``."""
    timeout = conf.DJANGOFEEDS_FETCH_TIMEOUT
    deadline = time.monotonic() + timeout * DEADLINE_TIMEOUTS
    headers = {"User-Agent": user_agent(), "Accept": ACCEPT, "Accept-Encoding": "gzip, deflate"}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    try:
        url = httpx.URL(url)
    except (httpx.InvalidURL, ValueError) as exc:
        raise FetchError(f"not a valid URL: {exc}") from exc
    try:
        with deadline_at(deadline):
            return follow(url, headers, deadline)
    except httpx.TimeoutException as exc:
        if time.monotonic() >= deadline:
            raise too_slow(timeout) from exc
        raise TransientFetchError(f"timed out after {timeout}s ({type(exc).__name__})") from exc
    except httpx.TransportError as exc:
        raise TransientFetchError(f"network error: {describe(exc)}") from exc
    except httpx.InvalidURL as exc:
        raise FetchError(f"not a valid URL: {exc}") from exc


def follow(url, headers, deadline):
    """GET, following up to MAX_REDIRECTS redirects, each hop checked before it is fetched."""
    timeout = conf.DJANGOFEEDS_FETCH_TIMEOUT
    all_permanent = True
    seen = set()
    for hops in range(MAX_REDIRECTS + 1):
        if str(url) in seen:
            raise FetchError(f"redirect loop: {shorten(url)} was already visited")
        seen.add(str(url))
        dns_timeout = time_left(deadline, timeout)
        try:
            address = check_url(url, dns_timeout)
        except FetchError as exc:
            if not hops:
                raise
            raise type(exc)(f"redirected to {shorten(url)}: {exc}", status=exc.status) from exc
        host = url.raw_host.decode("ascii")
        try:
            response = send_get(
                pinned(url, address),
                {**headers, "Host": host_header(url)},
                sni_hostname=host,  # TLS still checks the real host name
                timeout=timeout,
            )
        except httpx.ConnectError as exc:
            if caused_by(exc, ssl.SSLError):
                # A certificate or protocol problem: trying again in a minute will not fix it.
                raise FetchError(f"TLS with {host} failed: {describe(exc)}") from exc
            raise
        try:
            status = response.status_code
            if status in REDIRECTS and "location" in response.headers:
                all_permanent = all_permanent and status in PERMANENT_REDIRECTS
                url = redirect_target(url, response.headers["location"])
                continue
            permanent_url = str(url) if all_permanent and hops else None
            return answer(response, str(url), permanent_url)
        finally:
            response.close()
    raise FetchError(f"more than {MAX_REDIRECTS} redirects (the last to {shorten(url)})")


def redirect_target(url, location):
    """The URL a Location header points to, or a FetchError saying why it is none."""
    try:
        return url.join(location)
    except (httpx.InvalidURL, ValueError) as exc:
        raise FetchError(f"redirected to {shorten(location)}: not a valid URL: {exc}") from exc


def caused_by(exc, kind):
    """Whether ``kind`` is in the chain of causes of ``exc`` (httpx wraps httpcore wraps ssl)."""
    while exc is not None:
        if isinstance(exc, kind):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def shorten(url, limit=200):
    text = str(url)
    return text if len(text) <= limit else text[:limit] + "..."


def answer(response, url, permanent_url):
    """A ``Fetched`` for a final (non-redirect) response, or the matching ``FetchError``."""
    status = response.status_code
    if status == 304:
        return Fetched(
            url,
            status,
            headers=response.headers,
            permanent_url=permanent_url,
            max_age=max_age(response),
        )
    if status == 410:
        raise FeedGone("410 Gone: the feed was removed; deactivated", status=status)
    error = f"server answered {status} {response.reason_phrase}".strip()
    if status == 429 or status >= 500:
        wait = retry_after(response.headers.get("retry-after"))
        raise TransientFetchError(error, status=status, retry_after=wait)
    if status != 200:
        raise FetchError(error, status=status)
    return Fetched(
        url,
        status,
        body=read_body(response),
        headers=response.headers,
        permanent_url=permanent_url,
        max_age=max_age(response),
    )


def read_body(response):
    """Read and decompress the body, stopping at the size cap."""
    cap = conf.DJANGOFEEDS_MAX_BYTES
    length = response.headers.get("content-length", "")
    if length.isascii() and length.isdigit() and int(length) > cap:
        raise FetchError(f"the feed is larger than {cap} bytes (Content-Length {length})")
    decoder = Decoder(response.headers.get("content-encoding", ""))
    body = bytearray()
    # The fetch's deadline needs no check here: DeadlineStream cuts every socket read at it.
    for chunk in response.iter_raw():
        body += decoder.decode(chunk, cap + 1 - len(body))
        if len(body) > cap:
            raise FetchError(f"the feed is larger than {cap} bytes")
    return bytes(body)


class Decoder:
    """gzip/deflate decoding that never inflates more than asked for (no gzip bombs)."""

    def __init__(self, encoding):
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            self.inflater = None
        elif encoding in ("gzip", "x-gzip"):
            self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self.inflater = zlib.decompressobj()
        else:
            raise FetchError(f"unsupported Content-Encoding {encoding!r}")

    def decode(self, chunk, limit):
        if self.inflater is None:
            return chunk
        try:
            out = self.inflater.decompress(chunk, limit)
        except zlib.error as exc:
            raise FetchError(f"the compressed body is corrupt: {exc}") from exc
        # Anything left unconsumed means the limit was reached; the caller stops.
        return out


def describe(exc):
    """An httpx error as a short readable phrase (they often have an empty message)."""
    text = str(exc) or type(exc).__name__
    return text if len(text) < 300 else text[:300] + "..."
