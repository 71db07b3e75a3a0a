"""A worker says "ready" only once its database and its lock cache answer (issue 43.5).

Real worker processes: one on a private memcached stopped, then started again;
one on a database address where nothing listens.
"""

import time

import pytest

from localservers.services import free_port
from localservers.workers import WorkerProcess

pytestmark = pytest.mark.django_db(transaction=True)

NOT_READY = "Worker not ready: "


def launched(env):
    """A feeds worker started, not waited for; killed if the test fails before its end."""
    return WorkerProcess(queues=["feeds"], concurrency=1, env=env).launch()


def test_a_worker_waits_for_its_lock_cache_says_so_once_then_is_ready(memcached_cache):
    """memcached stopped: one line names the lock cache, no "ready" through two retries;
    started again: the worker says so and is ready."""
    memcached_cache.stop()
    worker = launched({"MEMCACHED_LOCATION": memcached_cache.location})
    try:
        worker.watched.wait_for(
            NOT_READY + r"lock cache unreachable \(LockUnavailable: memcached: ", 60
        )
        time.sleep(12)  # two more checks (every 5 s)

        assert "ready." not in worker.output
        not_ready = [line for line in worker.output.splitlines() if NOT_READY in line]
        assert len(not_ready) == 1, worker.output  # said once per outage
        assert "database" not in not_ready[0] and "Traceback" not in worker.output
        memcached_cache.start()
        worker.watched.wait_for(r"\S+@\S+ ready\.", 60)
        assert "Worker ready to start: lock cache answer again" in worker.output
    finally:
        worker.kill()


def test_a_worker_whose_database_is_unreachable_does_not_say_ready(memcached_cache):
    """A database address where nothing listens: one line names the database, no traceback."""
    nowhere = f"postgres://postgres@127.0.0.1:{free_port()}/nowhere"
    worker = launched({"MEMCACHED_LOCATION": memcached_cache.location, "DATABASE_URL": nowhere})
    try:
        line = worker.watched.wait_for(NOT_READY + r"database unreachable \(.*", 60).group(0)
        time.sleep(6)

        assert "OperationalError" in line and "lock cache" not in line
        assert "ready." not in worker.output and "Traceback" not in worker.output
        assert worker.watched.process.poll() is None  # it waits, as for its broker
    finally:
        worker.kill()
