"""Faults during feed imports (issue 7): memcached stopped, the database connection lost.

Real processes: a worker, a private memcached stopped and started again, and
PostgreSQL's own backend terminated under the worker.
"""

import time

import pytest
from django.db import connection

from djangofeeds.importing.runner import lock_key
from djangofeeds.locking.locks import CacheLock
from djangofeeds.models import ImportRun, Outcome, Post
from djangofeeds.tasks import import_feed
from localservers.feed_server import numbered_items, rss
from localservers.waiting import wait_until
from tests.support.workers import feeds_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_memcached_stopped_during_an_import(feed_server, memcached_cache, worker_factory):
    """Stopped mid-import, the import completes under the lock it holds; stopped before, an
    import does not start (no fetch) and runs once memcached is back. No duplicate post, and
    the lock is free afterwards."""
    worker = feeds_worker(worker_factory, memcached_cache)
    items = numbered_items(11)
    url = feed_server.serve("/slow.xml", rss(items[1:]), delay=2)

    running = import_feed.delay(url)
    wait_until(lambda: feed_server.hits("/slow.xml") == 1, 30, "the import never started")
    memcached_cache.stop()
    assert running.get(timeout=30)["status"] == Outcome.IMPORTED
    assert "could not release lock" in worker.output  # nobody could take it meanwhile

    waiting = import_feed.delay(url)
    wait_until(lambda: "lock cache is unreachable" in worker.output, 30, "no retry was logged")
    assert feed_server.hits("/slow.xml") == 1  # no fetch without a lock
    feed_server.serve("/slow.xml", rss(items), delay=2)  # one new item (new bytes are parsed)
    memcached_cache.start()
    result = waiting.get(timeout=90)  # a retry, once memcached answers again

    assert (result["status"], result["created"], result["updated"]) == (Outcome.IMPORTED, 1, 0)
    assert feed_server.hits("/slow.xml") == 2
    assert Post.objects.count() == 11
    assert ImportRun.objects.filter(outcome=Outcome.IMPORTED).count() == 2
    assert CacheLock(lock_key(import_feed.name, url), expire=60).acquire()


def terminate_other_connections():
    """Terminate every other session on the test database (the worker's), as a failover does."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="SQLite is a file opened in-process: there is no server connection to lose",
)
def test_postgresql_connection_lost_during_an_import(feed_server, worker_factory):
    """The worker's connection is killed while it fetches: the run is recorded as failed on a
    new connection, and the next import succeeds."""
    worker_factory(queues=["feeds"], concurrency=1)
    url = feed_server.serve("/slow.xml", rss(numbered_items(5)), delay=2)

    first = import_feed.delay(url)
    wait_until(lambda: feed_server.hits("/slow.xml") == 1, 30, "the import never started")
    assert terminate_other_connections() >= 1
    first.get(timeout=30, propagate=False)
    # The task's result is stored before its failure handler records the run.
    runs = ImportRun.objects.filter(feed__url=url)
    wait_until(runs.exists, 10, "the failed import was not recorded")

    failed = runs.get()
    assert failed.outcome == Outcome.FAILED and "connection" in failed.error.lower(), failed.error
    second = import_feed.delay(url).get(timeout=30)
    assert (second["status"], second["created"]) == (Outcome.IMPORTED, 5)


def test_redis_broker_restarted_during_an_import(
    feed_server, memcached_cache, private_broker, worker_factory
):
    """Redis stops for a few seconds while the worker fetches (issue 43): the same worker
    process finishes that import and, once Redis is back, consumes the next one."""
    worker = feeds_worker(worker_factory, memcached_cache, CELERY_BROKER_URL=private_broker.url)
    pid = worker.watched.process.pid
    slow = feed_server.serve("/slow.xml", rss(numbered_items(3)), delay=4)
    later = feed_server.serve("/later.xml", rss(numbered_items(2)))

    running = import_feed.delay(slow)
    wait_until(lambda: feed_server.hits("/slow.xml") == 1, 30, "the import never started")
    private_broker.stop()
    time.sleep(3)
    private_broker.start()
    result = import_feed.delay(later).get(timeout=60)

    assert worker.watched.process.poll() is None, worker.log_tail()
    assert worker.watched.process.pid == pid
    assert (result["status"], result["created"]) == (Outcome.IMPORTED, 2)
    assert running.get(timeout=30)["status"] == Outcome.IMPORTED  # the one in flight
    assert Post.objects.filter(feed__url=slow).count() == 3
    assert "Unrecoverable error" not in worker.output
