"""Real ``celery -A project worker`` processes on the caller's settings, database and broker."""

import os
import signal
import subprocess
import sys
import uuid
from urllib.parse import quote

from django.conf import settings
from django.db import connection

from localservers.processes import WatchedProcess


def queue_name(name):
    """The real name of the queue the settings call ``name`` ("feeds", "spam", ...): with the
    test suite's per-run suffix (``TEST_QUEUE_SUFFIX``, tests/settings.py), if it has one."""
    return name + getattr(settings, "TEST_QUEUE_SUFFIX", "")


def database_url(settings_dict):
    """A DATABASE_URL for the database a connection's settings point at (the test or bench one)."""
    engine, name = settings_dict["ENGINE"], settings_dict["NAME"]
    if engine.endswith("sqlite3"):
        return f"sqlite:///{name}"
    if engine.endswith("postgresql"):
        host, port = settings_dict.get("HOST") or "localhost", settings_dict.get("PORT") or 5432
        return f"postgres://{credentials(settings_dict)}{host}:{port}/{quote(name)}"
    if engine.endswith("mysql"):
        host, port = settings_dict.get("HOST") or "localhost", settings_dict.get("PORT") or 3306
        return f"mysql://{credentials(settings_dict)}{host}:{port}/{quote(name)}"
    raise ValueError(f"no worker support for database engine {engine}")


def credentials(settings_dict):
    """``user:password@``, ``user@`` or nothing, quoted for a URL."""
    user = quote(settings_dict.get("USER") or "", safe="")
    password = quote(settings_dict.get("PASSWORD") or "", safe="")
    return f"{user}:{password}@" if password else (f"{user}@" if user else "")


def caller_env(extra=None):
    """A subprocess's environment on the caller's settings and database, plus ``extra``."""
    # DJANGO_SETTINGS_MODULE comes with the environment: the caller's own settings.
    return {**os.environ, "DATABASE_URL": database_url(connection.settings_dict), **(extra or {})}


class WorkerProcess:
    """A worker subprocess on the given queues (all of them by default)."""

    def __init__(self, queues=None, concurrency=2, env=None):
        if queues:
            self.queues = [queue_name(name) for name in queues]
        else:
            self.queues = [queue.name for queue in settings.CELERY_TASK_QUEUES]
        self.concurrency = concurrency
        self.extra_env = env or {}
        self.hostname = None
        self.watched = None
        self.killed = False

    def env(self):
        return caller_env(self.extra_env)

    def argv(self):
        name = f"test-{uuid.uuid4().hex[:8]}@%h"
        return [
            *(sys.executable, "-m", "celery", "-A", "project", "worker"),
            *("-Q", ",".join(self.queues), "-c", str(self.concurrency), "-n", name),
            *["-l", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        ]

    def launch(self):
        """Start the process without waiting for it to say "ready" (``start`` waits)."""
        self.watched = WatchedProcess(self.argv(), cwd=settings.BASE_DIR, env=self.env())
        return self

    def start(self, timeout=60):
        self.launch()
        try:
            self.hostname = self.watched.wait_for(r"(\S+@\S+) ready\.", timeout).group(1)
        except RuntimeError:
            self.watched.kill()
            raise
        return self

    @property
    def output(self):
        return self.watched.output

    def log_tail(self, count=40):
        return self.watched.tail(count)

    def stop(self, timeout=20):
        """Warm shutdown (SIGTERM): finish running tasks, then exit. Returns the exit code."""
        process = self.watched.process
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.watched.kill()
                raise RuntimeError(
                    f"worker ignored SIGTERM for {timeout}s:\n{self.log_tail()}"
                ) from None
        return process.returncode

    def kill(self):
        """SIGKILL the worker and its pool processes, as a crash would."""
        self.killed = True
        self.watched.kill()
