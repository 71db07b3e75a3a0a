"""Politeness: a few imports per host at once across workers, a host's Retry-After."""

import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from djangofeeds.importing.dispatch import enqueue_imports
from djangofeeds.importing.runner import lock_key, run_import
from djangofeeds.locking.hosts import (
    HostBusy,
    HostDeferred,
    HostVisit,
    host_slots,
    of_host,
)
from djangofeeds.models import Feed, ImportRun, Outcome
from djangofeeds.tasks import import_feed
from localservers.feed_server import numbered_items, rss
from localservers.polite_server import CountingServer
from localservers.processes import WatchedProcess
from localservers.waiting import wait_until
from localservers.workers import WorkerProcess

pytestmark = pytest.mark.django_db(transaction=True)


def take_slot(url, **lease):
    """One of ``url``'s host's slots, held, or None if none is free."""
    slots = host_slots(url, **lease)
    return slots if slots.acquire() else None


@pytest.fixture
def host_cache(lock_cache):
    """Each lock cache, emptied afterwards: the cache table outlives a transactional test,
    and a host's deferral must not reach the next test's loopback feeds."""
    yield lock_cache
    cache.clear()


@pytest.fixture
def slow_server():
    server = CountingServer(delay=0.5).start()
    yield server
    server.stop()


@pytest.fixture
def three_workers(memcached_cache, worker_factory, django_db_blocker):
    """3 workers x 2 processes on the feeds queue, locks on memcached, started side by side."""
    env = {"MEMCACHED_LOCATION": memcached_cache.location, "DJANGOFEEDS_MAX_PER_HOST": "2"}
    with django_db_blocker.unblock():  # the workers' env names the test database
        workers = [WorkerProcess(queues=["feeds"], concurrency=2, env=env) for _ in range(3)]
        with ThreadPoolExecutor(3) as pool:
            list(pool.map(WorkerProcess.start, workers))
    yield workers
    with ThreadPoolExecutor(3) as pool:
        codes = list(pool.map(WorkerProcess.stop, workers))
    assert codes == [0, 0, 0], [worker.log_tail() for worker in workers]


def test_host_slots_limit_concurrent_fetches_across_worker_processes(slow_server, three_workers):
    """3 workers x 2 processes, 12 slow feeds on one host: at most 2 fetches there at once,
    each feed fetched once and imported; the feeds of another host are not held back."""
    busy = [slow_server.url(f"/busy/{n}.xml") for n in range(12)]
    other = [slow_server.url(f"/other/{n}.xml", host="localhost") for n in range(3)]

    queued, waiting = enqueue_imports(busy + other)
    results = [result.get(timeout=60) for _, result in queued]

    assert waiting == [] and len(queued) == 15
    assert {result["status"] for result in results} == {"imported"}
    assert all(slow_server.hits[path] == 1 for path in slow_server.hits)
    assert sum(slow_server.hits.values()) == 15
    assert slow_server.peak["127.0.0.1"] == 2  # reached, never passed
    # The other host's feeds were fetched while the busy host's queue was still long: as
    # many as its own limit lets run at once (its third may wait for its own host's slot).
    first_others = sorted(slow_server.arrivals["localhost"])[:2]
    assert max(first_others) < max(slow_server.arrivals["127.0.0.1"])
    # The feeds over the limit were requeued (no process slept on them), and left no run.
    assert any(re.search(r"Feed \S+: waits [\d.]+s", w.output) for w in three_workers)
    assert not ImportRun.objects.exclude(outcome=Outcome.IMPORTED).exists()


HOLDER = """
import django, sys, time
django.setup()
from djangofeeds.locking.hosts import host_slots
slots = [host_slots(sys.argv[1], lease=int(sys.argv[2])) for _ in range(2)]
print("held" if all([slot.acquire() for slot in slots]) else "refused", flush=True)
time.sleep(120)
"""


@pytest.mark.project_wiring
def test_host_slot_of_a_killed_holder_expires(memcached_cache, settings):
    """A process that holds both slots of a host is SIGKILLed: its slots come back after
    their lease, not before (and not never)."""
    settings.DJANGOFEEDS_MAX_PER_HOST = 2
    url, lease = "https://feeds.example.org/a.xml", 3
    env = WorkerProcess(
        env={"MEMCACHED_LOCATION": memcached_cache.location, "DJANGOFEEDS_MAX_PER_HOST": "2"}
    ).env()
    holder = WatchedProcess(
        [sys.executable, "-c", HOLDER, url, str(lease)], cwd=settings.BASE_DIR, env=env
    )
    holder.wait_for("held", timeout=30)
    held_at = time.monotonic()
    holder.kill()

    assert take_slot(url) is None  # the dead holder's leases still hold
    slot = wait_until(lambda: take_slot(url), lease + 5, "the killed holder's slot never expired")

    assert time.monotonic() - held_at >= lease - 1.5
    assert slot.release()


def test_import_on_a_busy_host_raises_host_busy_without_fetching(feed_server, host_cache):
    """With every slot of its host taken, a worker's import fetches nothing, records no run,
    and releases the feed's lock (the task requeues the feed)."""
    url = feed_server.serve("/waiting.xml", rss(numbered_items(1)))
    slots = [take_slot(url) for _ in range(2)]

    with pytest.raises(HostBusy, match="already has 2 imports running"):
        run_import(url, task_name=import_feed.name, wait_for_host=False)

    assert feed_server.hits("/waiting.xml") == 0 and not ImportRun.objects.exists()
    assert cache.get(lock_key(import_feed.name, url)) is None
    for slot in slots:
        slot.release()
    assert run_import(url, task_name=import_feed.name).outcome == Outcome.IMPORTED


def test_host_visit_holds_a_slot_for_its_block_then_heeds_the_answer(host_cache, settings):
    """A visit holds one of its host's slots while its block runs and gives it back after,
    then heeds what the host answered: after a 429 with Retry-After, the host is deferred."""
    settings.DJANGOFEEDS_MAX_PER_HOST = 1
    url = "https://feeds.example.org/a.xml"
    with HostVisit(url) as visit:
        with pytest.raises(HostBusy, match="already has 1 imports running"), HostVisit(url):
            pass
        visit.answered(429, 120)

    waits = r"feeds\.example\.org asked to wait until"
    with pytest.raises(HostDeferred, match=waits) as deferred, HostVisit(f"{url}?other"):
        pass
    assert deferred.value.until > timezone.now() + timedelta(seconds=110)
    assert take_slot(url).release()  # the first visit's slot came back


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_from_a_host_defers_every_feed_of_that_host_only(
    feed_server, host_cache, status
):
    """A 429/503 with Retry-After on one feed: the host's other feeds are not due and, if
    already queued, are skipped without a fetch until then; another host's feed is imported."""
    limited = feed_server.serve("/limited.xml", status=status, headers={"Retry-After": "120"})
    sibling = feed_server.serve("/sibling.xml", rss(numbered_items(1)))
    queued = feed_server.serve("/queued.xml", rss(numbered_items(1)))
    elsewhere = feed_server.url("/elsewhere.xml").replace("127.0.0.1", "localhost")
    feed_server.serve("/elsewhere.xml", rss(numbered_items(1)))
    for url in (limited, sibling, queued, elsewhere):
        Feed.objects.create(url=url, next_check_at=timezone.now() - timedelta(seconds=1))
    queued_feed = Feed.objects.get(url=queued)
    claimed_at = timezone.now()
    # In a queue already: claimed, and due again only when its claim runs out.
    Feed.objects.filter(pk=queued_feed.pk).update(
        claimed_at=claimed_at, next_check_at=claimed_at + timedelta(seconds=900)
    )

    first = run_import(limited, task_name=import_feed.name)

    assert first.outcome == Outcome.FAILED and first.run.http_status == status
    later = timezone.now() + timedelta(seconds=110)
    assert Feed.objects.get(url=sibling).next_check_at > later
    assert list(Feed.objects.due().values_list("url", flat=True)) == [elsewhere]

    skipped = run_import(queued, task_name=import_feed.name, claim=claimed_at.isoformat())
    assert skipped.outcome == Outcome.SKIPPED and "Retry-After" in skipped.run.error
    assert feed_server.hits("/queued.xml") == 0
    queued_feed.refresh_from_db()
    assert queued_feed.claimed_at is None and queued_feed.next_check_at > later

    assert run_import(elsewhere, task_name=import_feed.name).outcome == Outcome.IMPORTED


def test_retry_after_on_a_plain_error_defers_only_its_own_feed(feed_server):
    """A 500 with Retry-After speaks for its feed alone: the host's other feeds stay due."""
    broken = feed_server.serve("/broken.xml", status=500, headers={"Retry-After": "120"})
    sibling = feed_server.serve("/fine.xml", rss(numbered_items(1)))
    Feed.objects.create(url=sibling, next_check_at=timezone.now() - timedelta(seconds=1))

    assert run_import(broken, task_name=import_feed.name).outcome == Outcome.FAILED

    assert list(Feed.objects.due().values_list("url", flat=True)) == [sibling]


def test_of_host_matches_the_host_and_no_look_alike():
    """The host filter finds the host's feeds on any scheme and port, and no other host's."""
    ours = [
        "http://example.com/feed",
        "https://EXAMPLE.com:8443/atom",
        "http://example.com?rss=1",
        "https://example.com",
    ]
    others = ["http://example.com.evil.org/feed", "http://notexample.com/", "http://a.example.com/"]
    Feed.objects.bulk_create([Feed(url=url) for url in ours + others])

    found = set(Feed.objects.filter(of_host("example.com")).values_list("url", flat=True))

    assert found == set(ours)
