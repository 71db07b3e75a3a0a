"""Fetch a feed over HTTP the careful way: one deadline, a size cap, no private addresses.

feedparser can fetch URLs itself, but without a size cap, an overall deadline
or address checks; here httpx fetches and feedparser only parses bytes.

The deadline covers the whole fetch: DNS, every redirect hop, the TLS
handshake, headers and body. httpx's own timeouts apply to each socket
operation, so a server that trickles a byte now and then would never trip
them; here every connect, read and write is also cut short at the deadline.
"""

import contextvars
import email.utils
import ipaddress
import os
import re
import socket
import ssl
import threading
import time
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpcore
import httpx
from django.conf import settings

USER_AGENT = "djangofeeds/1.0 (feed importer; Django + Celery; +https://docs.celeryq.dev/)"
ACCEPT = (
    "application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml, "
    "application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.9, */*;q=0.1"
)
MAX_REDIRECTS = 10
PERMANENT_REDIRECTS = {301, 308}
REDIRECTS = {301, 302, 303, 307, 308}
# A slow server may answer every read within the timeout and still take
# forever: the whole fetch, DNS and redirects included, gets this many timeouts.
DEADLINE_TIMEOUTS = 3
# The longest wait a server's Retry-After or max-age can ask for: a larger
# one would overflow the next check's datetime (and is no schedule anyway).
MAX_WAIT_SECONDS = 7 * 24 * 3600
# The monotonic time at which the fetch running in this thread gives up.
_deadline = contextvars.ContextVar("djangofeeds_fetch_deadline", default=None)


class FetchError(Exception):
    """The feed could not be fetched. ``transient`` errors may succeed if tried again."""

    transient = False

    def __init__(self, message, *, status=None, retry_after=None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after  # seconds, from a Retry-After header


class TransientFetchError(FetchError):
    transient = True


class FeedGone(FetchError):
    """410 Gone: the publisher removed the feed for good."""


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
    timeout = settings.DJANGOFEEDS_FETCH_TIMEOUT
    deadline = time.monotonic() + timeout * DEADLINE_TIMEOUTS
    headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT, "Accept-Encoding": "gzip, deflate"}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    token = _deadline.set(deadline)
    try:
        return follow(shared_client(timeout), httpx.URL(url), headers, deadline)
    except httpx.TimeoutException as exc:
        if time.monotonic() >= deadline:
            raise too_slow(timeout) from exc
        raise TransientFetchError(f"timed out after {timeout}s ({type(exc).__name__})") from exc
    except httpx.TransportError as exc:
        raise TransientFetchError(f"network error: {describe(exc)}") from exc
    except httpx.InvalidURL as exc:
        raise FetchError(f"not a valid URL: {exc}") from exc
    finally:
        _deadline.reset(token)


def too_slow(timeout):
    """The error of a fetch that ran out of time as a whole."""
    return TransientFetchError(
        f"gave up after {timeout * DEADLINE_TIMEOUTS}s: the server is too slow "
        f"(a whole fetch may take {DEADLINE_TIMEOUTS} x DJANGOFEEDS_FETCH_TIMEOUT)"
    )


def time_left(deadline, timeout):
    """Seconds the next step may take: the timeout, or less when the deadline is nearer."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise too_slow(settings.DJANGOFEEDS_FETCH_TIMEOUT)
    return min(timeout, left)


_clients = {}


def shared_client(timeout):
    """One httpx client per process and timeout: building one (its TLS context) costs ~20 ms.

    No keep-alive: requests go to a checked IP address, and a pooled connection
    to that address must not serve another host name than the one TLS verified.
    """
    key = (os.getpid(), timeout)  # a forked worker process builds its own
    if key not in _clients:
        transport = httpx.HTTPTransport(trust_env=False)
        # httpx has no argument for httpcore's network backend: the pool is
        # rebuilt with the deadline-aware one (no keep-alive, as said above).
        transport._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_keepalive_connections=0,
            network_backend=DeadlineBackend(),
        )
        _clients[key] = httpx.Client(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,
            transport=transport,
        )
    return _clients[key]


def op_timeout(timeout, error):
    """A socket operation's timeout, cut to what is left of this thread's fetch deadline."""
    deadline = _deadline.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("the fetch's deadline has passed")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore.NetworkStream):
    """httpcore's socket stream, each operation bounded by the fetch deadline.

    A TLS handshake is one operation: Python's ssl module applies the socket
    timeout to the handshake as a whole.
    """

    def __init__(self, stream):
        self.stream = stream

    def read(self, max_bytes, timeout=None):
        return self.stream.read(max_bytes, op_timeout(timeout, httpcore.ReadTimeout))

    def write(self, buffer, timeout=None):
        self.stream.write(buffer, op_timeout(timeout, httpcore.WriteTimeout))

    def close(self):
        self.stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        timeout = op_timeout(timeout, httpcore.ConnectTimeout)
        return DeadlineStream(self.stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info):
        return self.stream.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's sync backend, handing out ``DeadlineStream`` connections."""

    def __init__(self):
        self.backend = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        timeout = op_timeout(timeout, httpcore.ConnectTimeout)
        return DeadlineStream(
            self.backend.connect_tcp(host, port, timeout, local_address, socket_options)
        )

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise httpcore.UnsupportedProtocol("feeds are not fetched over Unix sockets")

    def sleep(self, seconds):
        self.backend.sleep(seconds)


def follow(client, url, headers, deadline):
    """GET, following up to MAX_REDIRECTS redirects, each hop checked before it is fetched."""
    timeout = settings.DJANGOFEEDS_FETCH_TIMEOUT
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
        request = client.build_request(
            "GET",
            pinned(url, address),
            headers={**headers, "Host": host_header(url)},
            extensions={"sni_hostname": host},  # TLS still checks the real host name
        )
        try:
            response = client.send(request, stream=True)
        except httpx.ConnectError as exc:
            if caused_by(exc, ssl.SSLError):
                # A certificate or protocol problem: trying again in a minute will not fix it.
                raise FetchError(f"TLS with {host} failed: {describe(exc)}") from exc
            raise
        try:
            status = response.status_code
            if status in REDIRECTS and "location" in response.headers:
                all_permanent = all_permanent and status in PERMANENT_REDIRECTS
                url = url.join(response.headers["location"])
                continue
            permanent_url = str(url) if all_permanent and hops else None
            return answer(response, str(url), permanent_url)
        finally:
            response.close()
    raise FetchError(f"more than {MAX_REDIRECTS} redirects (the last to {shorten(url)})")


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


def url_problem(url):
    """Why ``url`` can never be fetched (scheme, credentials, a private IP literal), or None.

    Checks what the URL itself says, without DNS; used to vet URLs as they are
    added (admin, commands, OPML). ``check_url`` repeats it at fetch time and
    also checks every address the host resolves to.
    """
    try:
        url = httpx.URL(url) if isinstance(url, str) else url
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        return f"not a valid URL: {exc}"
    if url.scheme not in ("http", "https"):
        return f"only http and https URLs can be fetched, not {url.scheme or 'none'!r}"
    if url.userinfo:
        return "URLs with a user name or password are not fetched"
    if not url.host:
        return "the URL has no host"
    if not settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS:
        literal = ip_literal(url.host)
        if literal is not None and not is_public(str(literal)):
            return f"{url.host} is a non-public address ({literal}): refused"
    return None


def ip_literal(host):
    """The IP address a host name spells, also in the old forms 127.1, 0x7f.0.0.1, 2130706433."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if re.fullmatch(r"[0-9a-fA-FxX.]+", host) and re.match(r"[0-9]", host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def check_url(url, timeout):
    """Refuse what must not be fetched; return the address to connect to."""
    problem = url_problem(url)
    if problem:
        raise FetchError(problem)
    host = url.raw_host.decode("ascii")
    port = url.port or (443 if url.scheme == "https" else 80)
    addresses = resolve(host, port, timeout)
    if not settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS:
        for address in addresses:
            if not is_public(address):
                raise FetchError(
                    f"{url.host} resolves to a non-public address ({address}): refused"
                )
    return addresses[0]


def resolve(host, port, timeout):
    """The addresses of ``host``; DNS gets ``timeout`` seconds (getaddrinfo has no limit)."""
    try:
        return [str(ipaddress.ip_address(host.strip("[]")))]
    except ValueError:
        pass
    outcome = {}

    def lookup():
        try:
            outcome["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            outcome["error"] = exc

    # A lookup that hangs is left to finish on its own in this daemon thread.
    thread = threading.Thread(target=lookup, name=f"resolve {host}", daemon=True)
    thread.start()
    thread.join(timeout)
    if "infos" in outcome:
        return [info[4][0] for info in outcome["infos"]]
    error = outcome.get("error")
    if error is None:
        raise TransientFetchError(f"resolving {host} took longer than {timeout:.3g}s")
    if getattr(error, "errno", None) == socket.EAI_NONAME:
        raise FetchError(f"cannot resolve {host}: no such host")
    raise TransientFetchError(f"cannot resolve {host}: {error}")


# IPv6 prefixes whose last 32 bits are an IPv4 address the packets end up at:
# IPv4-compatible (deprecated, still routed by some stacks) and NAT64.
IPV4_IN_LAST_32_BITS = [ipaddress.ip_network("::/96"), ipaddress.ip_network("64:ff9b::/96")]
# Local-use NAT64 (RFC 8215): translated by the site's own gateway, never public.
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")


def is_public(address):
    """Whether ``address`` is a global unicast one, judging an IPv6 address by the IPv4 it carries.

    Python's ``is_global`` takes ``::7f00:1`` (IPv4-compatible), ``2002:7f00:1::``
    (6to4), ``64:ff9b::a00:1`` (NAT64) and ``fec0::`` (site-local) for public.
    """
    ip = ipaddress.ip_address(address.split("%")[0])
    if ip.version == 6:
        if ip.is_site_local or ip in LOCAL_NAT64:
            return False
        if ip.ipv4_mapped or ip.sixtofour:
            ip = ip.ipv4_mapped or ip.sixtofour
        elif any(ip in network for network in IPV4_IN_LAST_32_BITS):
            ip = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip.is_global and not ip.is_multicast


def pinned(url, address):
    """The URL with its host replaced by the checked address, so DNS cannot change under us."""
    return url.copy_with(host=address)


def host_header(url):
    host = url.raw_host.decode("ascii")
    if ":" in host:
        host = f"[{host}]"
    return host if url.port is None else f"{host}:{url.port}"


def read_body(response):
    """Read and decompress the body, stopping at the size cap."""
    cap = settings.DJANGOFEEDS_MAX_BYTES
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > cap:
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


def retry_after(value):
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    # Not str.isdigit(): it accepts "²", which int() refuses. More than ten
    # digits is no delay a server means.
    if re.fullmatch(r"[0-9]{1,10}", value):
        return min(int(value), MAX_WAIT_SECONDS)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return min(max(0, int((moment - datetime.now(UTC)).total_seconds())), MAX_WAIT_SECONDS)


def max_age(response):
    """Seconds from Cache-Control's max-age, at most MAX_WAIT_SECONDS; None if it has none."""
    cache_control = response.headers.get("cache-control", "")
    match = re.search(r"max-age\s*=\s*\"?([^\s,;\"]*)", cache_control, re.IGNORECASE)
    if not match or not re.fullmatch(r"[0-9]+", match[1]):
        return None
    # RFC 9111 1.2.2: a delta too large to represent counts as the largest one
    # we take (int() would refuse more than 4300 digits).
    digits = match[1].lstrip("0") or "0"
    return MAX_WAIT_SECONDS if len(digits) > 10 else min(int(digits), MAX_WAIT_SECONDS)


def describe(exc):
    """An httpx error as a short readable phrase (they often have an empty message)."""
    text = str(exc) or type(exc).__name__
    return text if len(text) < 300 else text[:300] + "..."
