"""Real ``celery -A project worker`` processes bound to the test database and broker."""

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

READY = re.compile(r"(\S+@\S+) ready\.")


def database_url(settings_dict):
    """A DATABASE_URL for the database a connection's settings point at (the test one)."""
    engine, name = settings_dict["ENGINE"], settings_dict["NAME"]
    if engine.endswith("sqlite3"):
        return f"sqlite:///{name}"
    if engine.endswith("postgresql"):
        user = quote(settings_dict.get("USER") or "", safe="")
        password = quote(settings_dict.get("PASSWORD") or "", safe="")
        auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host, port = settings_dict.get("HOST") or "localhost", settings_dict.get("PORT") or 5432
        return f"postgres://{auth}{host}:{port}/{quote(name)}"
    raise ValueError(f"no worker support for database engine {engine}")


class WorkerProcess:
    """A worker subprocess; its output goes to a log file kept for failed tests."""

    def __init__(self, queues=None, concurrency=2, env=None, log_dir=None):
        self.queues = queues or [queue.name for queue in settings.CELERY_TASK_QUEUES]
        self.concurrency = concurrency
        self.extra_env = env or {}
        self.log_path = Path(log_dir or settings.VAR_DIR) / f"worker-{uuid.uuid4().hex[:8]}.log"
        self.hostname = None
        self.process = None
        self._ready = threading.Event()

    def env(self):
        env = dict(os.environ)
        env["DJANGO_SETTINGS_MODULE"] = "tests.settings"
        env["DATABASE_URL"] = database_url(connection.settings_dict)
        env.update(self.extra_env)
        return env

    def argv(self):
        name = f"test-{uuid.uuid4().hex[:8]}@%h"
        return [
            sys.executable, "-m", "celery", "-A", "project", "worker",
            "-Q", ",".join(self.queues), "-c", str(self.concurrency), "-n", name,
            "-l", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat",
        ]  # fmt: skip

    def start(self, timeout=60):
        self.process = subprocess.Popen(
            self.argv(),
            cwd=settings.BASE_DIR,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,  # its pool processes can be killed as a group
        )
        threading.Thread(target=self._read_output, daemon=True).start()
        deadline = time.monotonic() + timeout
        while not self._ready.wait(0.1):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"worker did not start:\n{self.log_tail()}")
        return self

    def _read_output(self):
        with self.log_path.open("w") as log:
            for line in iter(self.process.stdout.readline, ""):
                log.write(line)
                log.flush()
                match = READY.search(line)
                if match and not self._ready.is_set():
                    self.hostname = match.group(1)
                    self._ready.set()

    def log_tail(self, lines=40):
        if not self.log_path.exists():
            return "(no output)"
        return "\n".join(self.log_path.read_text().splitlines()[-lines:])

    def stop(self, timeout=20):
        """Warm shutdown (SIGTERM): finish running tasks, then exit. Returns the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                raise RuntimeError(
                    f"worker ignored SIGTERM for {timeout}s:\n{self.log_tail()}"
                ) from None
        return self.process.returncode

    def kill(self):
        """SIGKILL the worker and its pool processes, as a crash would."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
