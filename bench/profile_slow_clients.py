"""Issue 43's slow clients, measured (not part of ``make bench``): docs/operations.md's table.

/healthz latency while 3, 6, 12 and 50 POSTs send their body one byte every 2 s, against
gunicorn alone (the former compose command: 3 sync workers; and 3 gthread workers
of 4 threads) and behind nginx on deploy/nginx/templates with HTTPS on (gunicorn as
compose runs it now; over plain HTTP, Django would redirect the POSTs unread). A probe
that gets no answer in 5 s counts as 5 s::

    DJANGO_SETTINGS_MODULE=tests.settings DJANGO_DEBUG=1 \\
        .venv/bin/python -m bench.profile_slow_clients
"""

import tempfile
from pathlib import Path

import django

django.setup()

from localservers.services import Memcached  # noqa: E402
from tests.support.slow_clients import healthz_under_slow_posts  # noqa: E402
from tests.support.web_stack import (  # noqa: E402
    HOST,
    make_certificate,
    start_proxy,
    start_web,
    trusting,
)

PATH = "/blog/an-entry/comment/"
CLIENTS = (3, 6, 12, 50)  # 12: as many as gthread's threads
SYNC = ["gunicorn", "project.wsgi:application", "--workers", "3"]
GTHREAD = [*SYNC, "--worker-class", "gthread", "--threads", "4"]


def measure(name, command, behind_proxy):
    folder = Path(tempfile.mkdtemp(prefix="slow-clients-"))
    memcached = Memcached().start()
    web, port = start_web(folder, memcached.location, command=command)
    proxy = tls = None
    if behind_proxy:
        tls = trusting(make_certificate(folder))
        proxy, _, port = start_proxy(folder, port, tls="on")
    try:
        for clients in CLIENTS:
            times = healthz_under_slow_posts(port, HOST, PATH, clients, probes=5, tls=tls)
            shown = " ".join(f"{seconds:.2f}" for seconds in times)
            print(f"{name:28} {clients:2} slow POSTs: max {max(times):.2f} s ({shown})", flush=True)
    finally:
        if proxy:
            proxy.kill()
        web.kill()
        memcached.stop()


if __name__ == "__main__":
    measure("gunicorn alone, sync x3", SYNC, behind_proxy=False)
    measure("gunicorn alone, gthread 3x4", GTHREAD, behind_proxy=False)
    measure("nginx + gunicorn, sync x3", None, behind_proxy=True)
