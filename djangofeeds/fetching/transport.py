"""The HTTP client feeds are fetched with, every socket operation cut short at one deadline.

The deadline covers the whole fetch: DNS, every redirect hop, the TLS
handshake, headers and body. httpx's own timeouts apply to each socket
operation, so a server that trickles a byte now and then would never trip
them; here every connect, read and write is also cut short at the deadline.
"""

import contextlib
import contextvars
import http.cookiejar
import os
import threading
import time

import httpcore
import httpx

import djangofeeds
from djangofeeds import conf
from djangofeeds.fetching.addresses import UnreadableURL, read_url
from djangofeeds.fetching.errors import FetchError, TransientFetchError

# A slow server may answer every read within the timeout and still take
# forever: the whole fetch, DNS and redirects included, gets this many timeouts.
DEADLINE_TIMEOUTS = 3
# A process's fetches at once: a batch's (10 per message) and its stragglers'
# (importing.batch_stragglers), each in a fetch thread (importing.batch_fetches) and
# each on a connection of the shared transport's pool.
FETCHES_AT_ONCE = 20
# The monotonic time at which the fetch running in this thread gives up.
_deadline = contextvars.ContextVar("djangofeeds_fetch_deadline", default=None)


@contextlib.contextmanager
def deadline_at(deadline):
    """Socket operations in this block (and thread) end at the monotonic time ``deadline``."""
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def fetch_deadline():
    """Seconds a whole fetch may take with the settings: ``DEADLINE_TIMEOUTS`` timeouts."""
    return DEADLINE_TIMEOUTS * conf.DJANGOFEEDS_FETCH_TIMEOUT


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
        raise too_slow(conf.DJANGOFEEDS_FETCH_TIMEOUT)
    return min(timeout, left)


_clients = {}
_transports = []
# A batch's fetch threads (importing.batch_fetches) start together: without the lock, each
# built a TLS context of its own in a fresh process (about 0.4 s of CPU for ten).
_building = threading.Lock()


def shared_transport():
    """One transport per process: its connection pool and TLS context (~20 ms to build).

    No keep-alive: requests go to a checked IP address, and a pooled connection
    to that address must not serve another host name than the one TLS verified.
    """
    if _transports:
        return _transports[0]
    with _building:
        if not _transports:
            _transports.append(build_transport())
    return _transports[0]


def build_transport():
    """The fetches' transport: httpx's, with httpcore's pool on the deadline-aware backend."""
    transport = httpx.HTTPTransport(trust_env=False)
    # httpx has no argument for httpcore's network backend: the pool is
    # rebuilt with the deadline-aware one (no keep-alive, as said above).
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(trust_env=False),
        max_connections=FETCHES_AT_ONCE,  # a batch's fetches and its stragglers'
        max_keepalive_connections=0,
        network_backend=DeadlineBackend(),
    )
    return transport


def shared_client(timeout):
    """One httpx client per process and timeout, on the shared transport (WebSub's requests).

    It keeps no cookies, as ``send_get``: they would be stored under the
    checked IP address, for every host name on it.
    """
    if timeout not in _clients:
        client = httpx.Client(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,
            transport=shared_transport(),
            event_hooks={"response": [refuse_unreadable_location]},
        )
        client.cookies.jar.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=()))
        _clients[timeout] = client
    return _clients[timeout]


def send_get(url, headers, *, sni_hostname, timeout):
    """GET ``url`` with exactly ``headers``, streamed, straight through the shared transport.

    A feed's fetch needs nothing of ``httpx.Client`` but the request: no
    cookie jar (a cookie stored under a checked IP address would go to the
    next host name on that address), no default headers, no hooks. About a
    third of a fetch's CPU went there (docs/dev/performance.md). As the client's
    hook does, a Location that cannot be read is a ``FetchError`` in words.
    """
    extensions = {"sni_hostname": sni_hostname, "timeout": httpx.Timeout(timeout).as_dict()}
    request = httpx.Request("GET", url, headers=headers, extensions=extensions)
    response = shared_transport().handle_request(request)
    response.request = request
    try:
        refuse_unreadable_location(response)
    except BaseException:
        response.close()
        raise
    return response


def refuse_unreadable_location(response):
    """A redirect whose Location httpx or IDNA cannot read is a lasting FetchError in words.

    Even with ``follow_redirects`` off, httpx builds the next request (reading
    the Location and its host) before ``send`` returns: a host IDNA refuses
    would escape as IDNAError, a malformed URL as a RemoteProtocolError (a
    "network error", retried for nothing). Response hooks run before that.
    """
    if not response.has_redirect_location:
        return
    location = response.headers["location"]
    try:
        read_url(location)
    except UnreadableURL as exc:
        shown = location if len(location) <= 200 else location[:200] + "..."
        raise FetchError(f"redirected to {shown}: {exc}") from exc


def _drop_clients_after_fork():
    # A forked child (a prefork pool process) builds its own clients rather
    # than share the parent's connection pools and their locks.
    global _building
    _clients.clear()
    _transports.clear()
    _building = threading.Lock()  # a parent's thread may have held it at the fork


os.register_at_fork(after_in_child=_drop_clients_after_fork)


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


def user_agent():
    """Our name to every host: ``djangofeeds/<version>``, and ``(+<contact>)`` if one is set."""
    product = f"djangofeeds/{djangofeeds.__version__}"
    contact = conf.DJANGOFEEDS_USER_AGENT_CONTACT
    return f"{product} (+{contact})" if contact else product
