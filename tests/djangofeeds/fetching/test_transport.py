"""fetching.transport: the shared HTTP client and the deadline on every socket operation."""

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpcore
import httpx
import pytest

import djangofeeds
from djangofeeds.fetching import transport
from djangofeeds.fetching.errors import TransientFetchError
from djangofeeds.fetching.http import fetch
from djangofeeds.fetching.transport import (
    DeadlineBackend,
    deadline_at,
    op_timeout,
    shared_client,
    time_left,
    user_agent,
)
from localservers.feed_server import numbered_items, rss


def test_shared_client_is_built_once_per_timeout():
    """The same timeout gets the same client; another timeout gets its own."""
    assert shared_client(7) is shared_client(7)
    assert shared_client(7) is not shared_client(8)


def test_threads_starting_together_build_the_transport_once(monkeypatch):
    """A batch's fetch threads start at once in a fresh process: one transport (and TLS
    context, ~20 ms of CPU) is built for all of them, not one each."""
    monkeypatch.setattr(transport, "_transports", [])
    built = []
    real_build = transport.build_transport

    def slow_build():
        time.sleep(0.05)  # the TLS context takes a while: every thread arrives meanwhile
        built.append(real_build())
        return built[-1]

    monkeypatch.setattr(transport, "build_transport", slow_build)
    start = threading.Barrier(10)

    def fetch_thread():
        start.wait()
        return transport.shared_transport()

    with ThreadPoolExecutor(10) as threads:
        got = list(threads.map(lambda _: fetch_thread(), range(10)))

    assert len(built) == 1
    assert all(one is built[0] for one in got)


def test_a_forked_child_builds_its_own_client(feed_server):
    """A child process starts without the parent's clients and fetches with a new one."""
    url = feed_server.serve("/child.xml", rss(numbered_items(1)))
    shared_client(5)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then leave without running pytest's cleanup
        signal.alarm(20)  # a child stuck on a lock copied from the parent dies, failing the test
        try:
            inherited = len(transport._clients)
            status = shared_client(5).get(url).status_code
            os.write(write, f"{inherited} {status}".encode())
        finally:
            os._exit(0)
    os.close(write)
    report = os.read(read, 100).decode()
    os.waitpid(pid, 0)

    assert report == "0 200"
    assert 5 in transport._clients  # the parent keeps its own


@pytest.mark.serial  # a timing bound: not beside other tests (xdist)
def test_a_trickling_answer_is_cut_at_the_deadline(feed_server):
    """Every byte comes within the 5 s timeout, yet the read ends at the 1 s deadline."""
    url = feed_server.serve("/drip.xml", rss(numbered_items(2)), trickle=0.2)
    started = time.monotonic()

    with pytest.raises(httpx.TimeoutException), deadline_at(started + 1):
        shared_client(5).get(url)

    assert time.monotonic() - started < 4  # the whole answer would take minutes


def test_op_timeout_is_the_timeout_outside_a_fetch():
    """Without a deadline set, a socket operation keeps its own timeout."""
    assert op_timeout(5, httpcore.ReadTimeout) == 5
    assert op_timeout(None, httpcore.ReadTimeout) is None


def test_op_timeout_is_cut_to_the_deadline_and_refused_after_it():
    """Inside a fetch, an operation gets what is left of the deadline, and nothing once past."""
    with deadline_at(time.monotonic() + 2):
        assert 0 < op_timeout(30, httpcore.ReadTimeout) <= 2
        assert 0 < op_timeout(None, httpcore.ReadTimeout) <= 2
    with deadline_at(time.monotonic() - 1), pytest.raises(httpcore.WriteTimeout):
        op_timeout(30, httpcore.WriteTimeout)


def test_time_left_gives_up_once_the_deadline_has_passed(settings):
    """The next step gets the timeout or what is left; past the deadline the fetch is too slow."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 2
    assert time_left(time.monotonic() + 60, 2) == 2
    assert 0 < time_left(time.monotonic() + 1, 2) <= 1
    with pytest.raises(TransientFetchError, match="gave up after 6s: the server is too slow"):
        time_left(time.monotonic() - 1, 2)


def test_the_backend_refuses_unix_sockets():
    """Feeds are fetched over TCP only."""
    with pytest.raises(httpcore.UnsupportedProtocol):
        DeadlineBackend().connect_unix_socket("/var/run/docker.sock")


def test_user_agent_names_the_product_its_version_and_the_contact(feed_server, settings):
    """Fetches send ``djangofeeds/<version>``, plus ``(+contact)`` once a contact is set."""
    url = feed_server.serve("/ua.xml", rss(numbered_items(1)))
    fetch(url)
    assert feed_server.last_headers("/ua.xml")["User-Agent"] == (
        f"djangofeeds/{djangofeeds.__version__}"
    )

    settings.DJANGOFEEDS_USER_AGENT_CONTACT = "https://example.org/contact"
    fetch(url)

    assert user_agent() == f"djangofeeds/{djangofeeds.__version__} (+https://example.org/contact)"
    assert feed_server.last_headers("/ua.xml")["User-Agent"] == user_agent()


def test_the_shared_client_keeps_no_cookie(feed_server):
    """WebSub's client, like a fetch, never sends back a cookie a server set."""
    url = feed_server.serve("/hub", b"ok", headers={"Set-Cookie": "hub=s3cret; Path=/"})

    shared_client(5).get(url)
    shared_client(5).get(url)

    sent = {name.lower() for name in feed_server.last_headers("/hub")}
    assert "cookie" not in sent and feed_server.hits("/hub") == 2
