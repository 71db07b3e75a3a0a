"""``python -m project.workercheck``: the worker containers' healthcheck (issue 43.5).

A real worker on a private memcached; the check runs as compose runs it, a
process of its own with the worker's environment.
"""

import subprocess
import sys

import pytest
from django.conf import settings

from localservers.workers import WorkerProcess
from tests.support.workers import feeds_worker

pytestmark = pytest.mark.django_db(transaction=True)


def workercheck(destination, memcached):
    """The healthcheck's exit code and its output, in the worker's environment."""
    env = WorkerProcess(env={"MEMCACHED_LOCATION": memcached.location}).env()
    done = subprocess.run(
        [sys.executable, "-m", "project.workercheck", destination, "--timeout", "3"],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return done.returncode, (done.stdout + done.stderr).strip()


def test_workercheck_is_healthy_only_while_the_worker_and_its_parts_answer(
    memcached_cache, worker_factory
):
    """A ready worker: 0. Its lock cache stopped: 1, one line naming it. A worker that is not
    running (as one still waiting at its start): 1, one line naming it."""
    worker = feeds_worker(worker_factory, memcached_cache)

    assert workercheck(worker.hostname, memcached_cache) == (
        0,
        f"healthy: {worker.hostname} answers, and so do its database and lock cache",
    )
    absent = "celery@nowhere.invalid"
    code, output = workercheck(absent, memcached_cache)
    assert (code, output) == (1, f"unhealthy: {absent} did not answer a ping within 3s (not ready)")
    memcached_cache.stop()
    code, output = workercheck(worker.hostname, memcached_cache)
    memcached_cache.start()

    assert code == 1 and len(output.splitlines()) == 1, output
    assert output.startswith("unhealthy: lock cache unreachable (LockUnavailable: memcached: ")
