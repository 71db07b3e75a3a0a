"""Slow clients, and how long /healthz takes to answer while they hold their connections.

``tls``, where taken, is an ``ssl.SSLContext``: the connections speak HTTPS with it.
"""

import http.client
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

CSRF_COOKIE = "a" * 32  # well formed: CSRF goes on to the form's token, in the body


class SlowPost(threading.Thread):
    """A POST whose body arrives one byte every ``interval`` seconds, as a slowloris sends it."""

    def __init__(self, port, path, host, length=1000, interval=2.0, tls=None):
        super().__init__(daemon=True)
        self.port, self.path, self.host, self.tls = port, path, host, tls
        self.length, self.interval = length, interval
        self.sent = 0
        self.stopped = threading.Event()

    def run(self):
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        if self.tls:
            sock = self.tls.wrap_socket(sock)
        with sock:
            head = (
                f"POST {self.path} HTTP/1.1\r\nHost: {self.host}\r\n"
                # As a browser's form over HTTPS: no redirect, Origin or cookie check answers
                # the POST before CSRF reads its body for the token. (Straight to gunicorn
                # the header says so; nginx puts its own, https only over TLS.)
                f"X-Forwarded-Proto: https\r\nOrigin: https://{self.host}\r\n"
                f"Cookie: csrftoken={CSRF_COOKIE}\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n"
                f"Content-Length: {self.length}\r\n\r\n"
            )
            try:
                sock.sendall(head.encode())
                while self.sent < self.length and not self.stopped.wait(self.interval):
                    sock.sendall(b"x")
                    self.sent += 1
            except OSError:  # the server gave up on us: what a server should do, sooner or later
                pass

    def stop(self):
        self.stopped.set()
        self.join(timeout=10)


def healthz_seconds(port, host, timeout=5.0, tls=None):
    """Seconds ``GET /healthz`` takes to answer 200 on ``port``; ``timeout`` when it does not."""
    started = time.perf_counter()
    if tls:
        connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=tls)
    else:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", "/healthz", headers={"Host": host})
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise AssertionError(f"/healthz answered {response.status}")
    except TimeoutError:
        return timeout
    finally:
        connection.close()
    return time.perf_counter() - started


def warm_up(port, host, tls=None, workers=3, rounds=2):
    """Each gunicorn worker answers a first request, the slow one, before anything is timed."""
    with ThreadPoolExecutor(workers) as pool:
        for _ in range(rounds):
            list(pool.map(lambda _: healthz_seconds(port, host, tls=tls), range(workers)))


def healthz_under_slow_posts(port, host, path, clients, probes=4, gap=1.0, tls=None):
    """The /healthz times (seconds) while ``clients`` slow POSTs to ``path`` are under way."""
    warm_up(port, host, tls)
    posts = [SlowPost(port, path, host, tls=tls) for _ in range(clients)]
    for post in posts:
        post.start()
    try:
        time.sleep(1.0)  # every slow POST connected and sent its headers
        times = []
        for _ in range(probes):
            times.append(healthz_seconds(port, host, tls=tls))
            time.sleep(gap)
        return times
    finally:
        for post in posts:
            post.stop()
