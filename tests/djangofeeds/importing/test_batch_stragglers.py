"""A batch's stragglers: fetches still out when the rest of the batch is done are finished by
a thread of the process, and the batch's pool process goes on to its next message."""

import time

import pytest
from django.core.cache import cache

from djangofeeds.importing import batch
from djangofeeds.importing.batch_stragglers import stragglers
from djangofeeds.importing.dispatch import IMPORT_FEED
from djangofeeds.importing.runner import lock_key
from djangofeeds.locking.hosts import host_slots
from djangofeeds.models import Feed, ImportRun
from djangofeeds.tasks import import_feed_batch
from localservers.feed_server import numbered_items, rss
from localservers.waiting import wait_until
from tests.support.batches import claimed, outcomes

pytestmark = pytest.mark.django_db(transaction=True)


def run_of(url):
    """``url``'s last run, or None."""
    return ImportRun.objects.filter(feed__url=url).order_by("pk").last()


def finished(url):
    """Whether ``url``'s last run has finished."""
    run = run_of(url)
    return run is not None and run.finished_at is not None


def test_a_batch_leaves_a_slow_fetch_to_the_process_and_returns(
    feed_server, settings, clean_cache, monkeypatch
):
    """A quick feed and one answering after 2.5 s: the batch stores the quick one and returns
    after its patience, the slow one still holding its lock and its host's slot; the process's
    straggler thread stores it when it answers, then gives both back."""
    monkeypatch.setattr(batch, "PATIENCE", 0.8)  # the quick answer's margin on a busy machine
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 5
    settings.DJANGOFEEDS_MAX_PER_HOST = 4
    slow = feed_server.serve("/slow.xml", rss(numbered_items(3)), delay=2.5)
    quick = feed_server.serve("/quick.xml", rss(numbered_items(2)))
    claim = claimed([slow, quick])

    began = time.monotonic()
    counts = batch.run_batch(
        [slow, quick], task_name=IMPORT_FEED, claim=claim, leave_stragglers=True
    )
    returned_after = time.monotonic() - began

    assert counts == {"imported": 1, "left to finish": 1}
    assert returned_after < 2.2  # not held for the slow answer (2.5 s)
    assert outcomes([quick]) == [["imported"]]
    assert run_of(slow) is None  # not stored yet
    assert cache.get(lock_key(IMPORT_FEED, slow)) is not None
    assert cache.get(lock_key(IMPORT_FEED, quick)) is None

    assert stragglers().drain(10)
    assert outcomes([slow]) == [["imported"]]
    assert Feed.objects.get(url=slow).posts.count() == 3
    assert feed_server.hits("/slow.xml") == 1
    assert cache.get(lock_key(IMPORT_FEED, slow)) is None
    slots = [host_slots(slow) for _ in range(4)]
    assert all(slot.acquire() for slot in slots)  # every slot of the host given back


def test_without_leave_stragglers_a_batch_waits_for_its_slowest_fetch(
    feed_server, settings, clean_cache
):
    """``import_feed_batch`` called eagerly (``import_feeds --sync``, a test): the batch
    returns with every feed finished, however slow."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 5
    slow = feed_server.serve("/slow.xml", rss(numbered_items(1)), delay=0.8)
    quick = feed_server.serve("/quick.xml", rss(numbered_items(1)))
    claim = claimed([slow, quick])

    counts = import_feed_batch.apply(args=[[slow, quick]], kwargs={"claim": claim}).get()

    assert counts == {"imported": 2}
    assert outcomes([slow, quick]) == [["imported"], ["imported"]]


def test_a_process_with_too_many_stragglers_waits_for_its_batch(
    feed_server, settings, clean_cache, monkeypatch
):
    """The process takes at most ``AT_ONCE`` stragglers (each holds a fetch thread and a
    connection): with one allowed and one taken, the next batch waits for its slow feed."""
    monkeypatch.setattr("djangofeeds.importing.batch_stragglers.AT_ONCE", 1)
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 5
    first = feed_server.serve("/first.xml", rss(numbered_items(1)), delay=2)
    second = feed_server.serve("/second.xml", rss(numbered_items(1)), delay=1.0)
    claim = claimed([first, second])

    assert batch.run_batch([first], task_name=IMPORT_FEED, claim=claim, leave_stragglers=True) == {
        "left to finish": 1
    }
    counts = batch.run_batch([second], task_name=IMPORT_FEED, claim=claim, leave_stragglers=True)

    assert counts == {"imported": 1}
    assert stragglers().drain(10)
    assert outcomes([first, second]) == [["imported"], ["imported"]]


@pytest.mark.project_wiring
def test_a_dead_feed_does_not_hold_the_workers_one_process(
    feed_server, memcached_cache, worker_factory
):
    """A worker of one pool process; a batch with a dead feed (no answer within its 1 s
    timeout) and a quick one, then another batch: the second batch is done before the dead
    feed's timeout is recorded, which it is, the lock then given back."""
    worker = worker_factory(
        queues=["feeds"],
        concurrency=1,
        env={"MEMCACHED_LOCATION": memcached_cache.location, "DJANGOFEEDS_FETCH_TIMEOUT": "1"},
    )
    dead = feed_server.serve("/dead.xml", rss(numbered_items(1)), delay=4)
    quick = feed_server.serve("/quick.xml", rss(numbered_items(1)))
    later = feed_server.serve("/later.xml", rss(numbered_items(1)))
    Feed.objects.bulk_create([Feed(url=url) for url in (dead, quick, later)])

    import_feed_batch.delay([dead, quick])
    import_feed_batch.delay([later])

    wait_until(lambda: finished(dead), 30, "the dead feed's timeout was never recorded")
    assert outcomes([dead, quick, later]) == [["failed"], ["imported"], ["imported"]]
    assert "timed out" in run_of(dead).error
    assert run_of(later).finished_at < run_of(dead).finished_at
    assert cache.get(lock_key(IMPORT_FEED, dead)) is None
    assert "could not be finished" not in worker.output


@pytest.mark.project_wiring
def test_a_worker_stopping_finishes_its_stragglers_first(
    feed_server, memcached_cache, worker_factory
):
    """A warm shutdown right after a batch left its slow feed (8 s) to the process: the pool
    process waits for the answer and stores it before it exits (Celery's warm shutdown
    takes a few seconds to reach the pool processes)."""
    worker = worker_factory(
        queues=["feeds"], concurrency=1, env={"MEMCACHED_LOCATION": memcached_cache.location}
    )
    slow = feed_server.serve("/slow.xml", rss(numbered_items(2)), delay=8)
    quick = feed_server.serve("/quick.xml", rss(numbered_items(1)))
    Feed.objects.bulk_create([Feed(url=url) for url in (slow, quick)])

    import_feed_batch.delay([slow, quick])
    wait_until(lambda: finished(quick), 20, "the quick feed was never imported")
    time.sleep(0.5)  # the batch's patience (0.25 s) has passed: it has returned
    assert run_of(slow) is None  # not stored yet

    assert worker.stop() == 0

    assert outcomes([slow, quick]) == [["imported"], ["imported"]]
    assert Feed.objects.get(url=slow).posts.count() == 2
    assert "Waiting for 1 feeds whose fetch is still out before exiting" in worker.output
