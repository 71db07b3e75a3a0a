"""A real ``gunicorn project.wsgi`` on the caller's settings and database, on a free port."""

import sys

from django.conf import settings

from localservers.processes import WatchedProcess
from localservers.services import free_port
from localservers.workers import caller_env


class GunicornProcess:
    """The site as production serves it: gunicorn's own request parsing (chunked bodies,
    ``wsgi.input_terminated``), which the test client and Django's live server lack."""

    def __init__(self, env=None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.extra_env = env or {}
        self.watched = None

    def start(self, timeout=60):
        argv = [
            *(sys.executable, "-m", "gunicorn", "project.wsgi:application"),
            *("--bind", f"127.0.0.1:{self.port}", "--workers", "1"),
        ]
        self.watched = WatchedProcess(argv, cwd=settings.BASE_DIR, env=caller_env(self.extra_env))
        try:
            self.watched.wait_for(r"Booting worker with pid", timeout)
        except RuntimeError:
            self.watched.kill()
            raise
        return self

    def stop(self):
        if self.watched is not None:
            self.watched.kill()
