"""djangofeeds.discovery.row_checks: an OPML file's rows checked side by side, in their order."""

import threading
import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from djangofeeds.discovery.row_checks import check_rows, record_unchecked
from djangofeeds.fetching.errors import TransientFetchError
from djangofeeds.locking.hosts import deferral_key, host_slots
from djangofeeds.models import Feed, ImportRun, Outcome
from localservers.feed_server import numbered_items, rss

pytestmark = pytest.mark.django_db

FEED = rss(numbered_items(2))


def test_check_rows_answers_in_the_rows_order_feeds_and_refusals(feed_server, memcached_cache):
    """A slow first row does not reorder the answers: each row gets its own, in file order."""
    slow = feed_server.serve("/slow.xml", FEED, delay=0.5)
    quick = feed_server.serve("/quick.xml", FEED)
    missing = feed_server.serve("/missing.xml", "no", status=404)

    checks = list(check_rows([slow, "ftp://x.example/feed", quick, missing]))

    assert [check.found.url if check.found else None for check in checks] == [
        slow,
        None,
        quick,
        None,
    ]
    assert "only http and https" in checks[1].refused and "404" in checks[3].refused
    assert not checks[0].found.unchecked and not checks[2].found.unchecked


def test_check_rows_waits_for_the_host_slot_a_worker_holds(feed_server, memcached_cache, settings):
    """The host's one slot is a worker's: the row is fetched once it is given back."""
    settings.DJANGOFEEDS_MAX_PER_HOST = 1
    url = feed_server.serve("/feed.xml", FEED)
    workers_slot = host_slots(url)
    assert workers_slot.acquire()
    threading.Timer(0.5, workers_slot.release).start()
    started = time.monotonic()

    [check] = check_rows([url])

    assert time.monotonic() - started >= 0.5
    assert check.found.url == url and feed_server.hits("/feed.xml") == 1


def test_check_rows_fetches_without_the_lock_cache_this_process_keeping_the_limit(
    feed_server, memcached_cache
):
    """With the lock cache down, the rows are still fetched (no host slot to take)."""
    url = feed_server.serve("/feed.xml", FEED)
    memcached_cache.stop()

    [check] = check_rows([url])

    assert check.found.url == url and not check.found.unchecked
    assert feed_server.hits("/feed.xml") == 1


def test_check_rows_does_not_fetch_a_host_that_asked_to_wait(feed_server, memcached_cache):
    """A host's Retry-After in the lock cache: its rows are kept unchecked, with the time."""
    url = feed_server.serve("/feed.xml", FEED)
    cache.set(deferral_key(url), timezone.now() + timedelta(minutes=5), timeout=300)

    [check] = check_rows([url])

    assert "asked to wait until" in check.found.unchecked
    assert 290 <= check.found.unchecked_error.retry_after <= 300
    assert feed_server.hits("/feed.xml") == 0


def test_record_unchecked_writes_a_failed_run_and_keeps_the_feed_due_after_retry_after():
    """The error goes where a failed import writes it; a Retry-After puts the check after it."""
    feed = Feed.objects.create(url="http://busy.example/feed")
    error = TransientFetchError("server answered 503", status=503, retry_after=120)

    record_unchecked(feed, error)

    feed.refresh_from_db()
    assert (feed.last_status, feed.last_http_status, feed.error_count) == (Outcome.FAILED, 503, 1)
    assert feed.is_active and feed.last_error == "server answered 503"
    assert timedelta(seconds=110) < feed.next_check_at - timezone.now() <= timedelta(seconds=120)
    assert ImportRun.objects.get(feed=feed).http_status == 503
