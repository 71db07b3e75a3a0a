"""nginx in front of gunicorn, as docker-compose.yml runs them: real processes.

HTTPS with a certificate where compose mounts deploy/tls/, static files, the body cap,
and WebSub callback tokens kept out of both access logs (issue 8).
"""

import http.client
import re
import secrets
import socket
from pathlib import Path

import pytest
from django.conf import settings

from localservers.services import Memcached
from localservers.waiting import wait_until
from tests.support.web_stack import HOST, make_certificate, start_proxy, start_web, trusting


def callback():
    """A fresh token, and the path of a hub's GET on its callback."""
    token = secrets.token_urlsafe(32)
    query = "hub.mode=subscribe&hub.topic=https%3A%2F%2Fexample.com%2F"
    return token, f"/feeds/websub/{token}/?{query}"


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """gunicorn as compose's web runs it (migrated: the callback looks its token up; static
    files collected, as the image is built), behind nginx with HTTPS on."""
    folder = tmp_path_factory.mktemp("stack")
    memcached = Memcached().start()
    web, web_port = start_web(folder, memcached.location, manage=("migrate", "collectstatic"))
    certificate = make_certificate(folder)
    proxy, http_port, https_port = start_proxy(folder, web_port, tls="on")
    yield {
        "web": (web, web_port),
        "proxy": (proxy, http_port, https_port),
        "certificate": certificate,
        "folder": folder,
    }
    proxy.kill()
    web.kill()
    memcached.stop()


def get(port, path, certificate=None, answer=False):
    """The status of GET ``path`` (and the response, read, with ``answer``): over HTTPS
    trusting ``certificate`` when one is given."""
    if certificate:
        context = trusting(certificate)
        connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=context)
    else:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        # Straight to gunicorn it stands for nginx's header; nginx replaces it with its own.
        connection.request("GET", path, headers={"Host": HOST, "X-Forwarded-Proto": "https"})
        response = connection.getresponse()
        return (response.status, response, response.read()) if answer else response.status
    finally:
        connection.close()


def access_lines(process, since, count=1, path="/feeds/websub/"):
    """The access log lines of GETs of ``path`` (callbacks) after line ``since``, once
    ``count`` are."""

    def found():
        return [line for line in process.lines[since:] if f"GET {path}" in line]

    wait_until(lambda: len(found()) >= count, timeout=10)
    return found()


def test_gunicorn_access_log_hides_the_callback_token(stack):
    """A hub's GET on a callback is logged as websub/[hidden]/, query and status kept; Django's
    own line about it ("Not Found: ...") hides it too."""
    process, port = stack["web"]
    token, path = callback()
    since = len(process.lines)

    assert get(port, path) == 404  # no such subscription: the request is logged all the same

    [line] = access_lines(process, since)
    assert token not in process.output
    assert "/feeds/websub/[hidden]/?hub.mode=subscribe" in line
    assert '" 404 ' in line


def test_nginx_access_log_hides_the_callback_token(stack):
    """Through the proxy, over HTTPS (answered) and HTTP (redirected to HTTPS), nginx's lines
    show websub/[hidden]/ with the query; the nginx image's own access log (http level) is
    replaced, not written beside it."""
    process, http_port, https_port = stack["proxy"]
    token, path = callback()
    since = len(process.lines)

    assert get(https_port, path, certificate=stack["certificate"]) == 404
    assert get(http_port, path) == 301

    lines = access_lines(process, since, count=2)
    assert token not in process.output
    assert all("/feeds/websub/[hidden]/?hub.mode=subscribe" in line for line in lines)
    assert sorted(re.search(r'" (\d{3}) ', line)[1] for line in lines) == ["301", "404"]
    assert token not in (stack["folder"] / "image-access.log").read_text()


def test_nginx_access_log_hides_the_blogs_mailed_link_tokens(stack):
    """A moderator's one-click link (blog.mail_links) is a secret too: nginx logs its path
    as comments/moderate/[hidden]/, as the redacting filter does for gunicorn's lines."""
    process, _, https_port = stack["proxy"]
    token = f"WzEsInB1Ymxpc2giXQ:{secrets.token_urlsafe(8)}"
    since = len(process.lines)

    get(https_port, f"/blog/comments/moderate/{token}/", certificate=stack["certificate"])

    [line] = access_lines(process, since, path="/blog/comments/moderate/")
    assert token not in process.output
    assert "/blog/comments/moderate/[hidden]/" in line


def test_https_answers_with_the_mounted_certificate(stack):
    """With PROXY_TLS=on, port 443's stand-in answers /healthz over TLS with the certificate
    from tls/; plain HTTP still answers /healthz (exempt from the HTTPS redirect)."""
    _, http_port, https_port = stack["proxy"]

    assert get(https_port, "/healthz", certificate=stack["certificate"]) == 200
    assert get(http_port, "/healthz") == 200


def test_static_files_are_served_through_the_proxy(stack):
    """whitenoise's files come through nginx whole, with their type and cache header."""
    _, _, https_port = stack["proxy"]
    stylesheet = Path(settings.BASE_DIR) / "project" / "static" / "site" / "site.css"

    status, response, body = get(
        https_port, "/static/site/site.css", certificate=stack["certificate"], answer=True
    )

    assert status == 200
    assert body == stylesheet.read_bytes()
    assert response.getheader("Content-Type").startswith("text/css")
    assert "max-age" in response.getheader("Cache-Control")


def test_a_body_over_the_cap_is_refused_before_it_is_read(stack):
    """A push announcing more than client_max_body_size (10 MiB) gets nginx's 413 at once;
    gunicorn never hears of it, and nginx's lines about it (access and error) hide the token."""
    proxy, http_port, _ = stack["proxy"]
    web, _ = stack["web"]
    token = secrets.token_urlsafe(32)
    head = f"POST /feeds/websub/{token}/ HTTP/1.1\r\nHost: {HOST}\r\n"
    with socket.create_connection(("127.0.0.1", http_port), timeout=5) as sock:
        sock.sendall(f"{head}Content-Length: {11 << 20}\r\n\r\n".encode())
        answer = sock.recv(1024)

    assert answer.startswith(b"HTTP/1.1 413 ")
    wait_until(lambda: '"POST /feeds/websub/[hidden]/ HTTP/1.1" 413 ' in proxy.output, timeout=5)
    assert token not in proxy.output
    assert "POST /feeds/websub/" not in web.output
