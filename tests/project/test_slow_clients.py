"""Slow clients cannot take the site down: the production stack, real processes (issue 43).

gunicorn as docker-compose.yml's web runs it, behind nginx on the shipped templates, as
its proxy service runs it (HTTPS on). Slow POSTs send their body one byte every 2 s on
several HTTPS connections, as a form over HTTPS does, while /healthz is asked through
the proxy.
"""

import socket
import time

import pytest

from localservers.services import Memcached
from tests.support.slow_clients import healthz_under_slow_posts
from tests.support.web_stack import HOST, make_certificate, start_proxy, start_web, trusting

pytestmark = pytest.mark.serial  # a timing bound: not beside other tests (xdist)

SLOW_CLIENTS = 6
COMMENT_PATH = "/blog/an-entry/comment/"


@pytest.fixture
def stack(tmp_path):
    memcached = Memcached().start()
    web, web_port = start_web(tmp_path, memcached.location)
    tls = trusting(make_certificate(tmp_path))
    proxy, http_port, https_port = start_proxy(tmp_path, web_port, tls="on")
    yield {"http": http_port, "https": https_port, "tls": tls}
    proxy.kill()
    web.kill()
    memcached.stop()


def test_healthz_answers_within_a_second_while_slow_posts_trickle(stack):
    """Six POSTs whose bodies arrive at one byte every 2 s leave /healthz answering in < 1 s."""
    port, tls = stack["https"], stack["tls"]
    times = healthz_under_slow_posts(port, HOST, COMMENT_PATH, SLOW_CLIENTS, tls=tls)

    assert max(times) < 1.0, [f"{seconds:.2f}" for seconds in times]


def test_a_client_that_stops_sending_its_body_is_dropped(stack):
    """A body that stalls longer than client_body_timeout (10 s) is given up by nginx."""
    head = f"POST {COMMENT_PATH} HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: 100\r\n\r\nx"
    with socket.create_connection(("127.0.0.1", stack["http"]), timeout=20) as sock:
        sock.sendall(head.encode())
        started = time.monotonic()
        answer = sock.recv(1024)  # then nothing more is sent

        assert answer == b""  # closed, unanswered: nginx never passed the request on
        assert 9 < time.monotonic() - started < 15
