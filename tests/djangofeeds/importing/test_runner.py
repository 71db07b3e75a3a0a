"""importing.runner: one import under its lock, its claim and its host; each skip one run."""

from datetime import timedelta
from hashlib import md5

import pytest
from django.core.cache import caches
from django.utils import timezone

from djangofeeds import conf
from djangofeeds.importing.records import ImportOrigin
from djangofeeds.importing.runner import lock_key, run_import
from djangofeeds.locking.hosts import host_key, host_of
from djangofeeds.locking.locks import CacheLock
from djangofeeds.models import Feed, ImportRun, Outcome
from djangofeeds.tasks import import_feed
from localservers.feed_server import numbered_items, rss

pytestmark = pytest.mark.django_db


def test_lock_key_is_the_cookbooks():
    """The lock key is the Celery cookbook's: task name, "-lock-", md5 of the URL."""
    url = "http://example.com/feed.xml"
    assert lock_key(import_feed.name, url) == (
        f"djangofeeds.tasks.import_feed-lock-{md5(url.encode()).hexdigest()}"
    )


def test_each_skip_is_one_run_and_no_fetch(feed_server):
    """The lock held, the claim replaced, the host deferring: one skipped run each, no fetch."""
    url = feed_server.serve("/skip.xml", rss(numbered_items(1)))
    holder = CacheLock(lock_key(import_feed.name, url), expire=60)
    assert holder.acquire()
    try:
        held = run_import(url, task_name=import_feed.name, origin=ImportOrigin(task_id="t-1"))
    finally:
        holder.release()
    replaced = run_import(url, task_name=import_feed.name, claim=timezone.now().isoformat())

    assert (held.outcome, replaced.outcome) == (Outcome.SKIPPED, Outcome.SKIPPED)
    assert "another worker" in held.run.error and held.run.task_id == "t-1"
    assert "claim was replaced" in replaced.run.error
    assert ImportRun.objects.count() == 2 and feed_server.hits("/skip.xml") == 0


def test_a_deferred_host_skips_and_sends_the_feed_back_due_then(feed_server):
    """A host that asked to wait: the run says until when; the claim goes, due at that time."""
    url = feed_server.serve("/later.xml", rss(numbered_items(1)))
    claimed_at = timezone.now()
    Feed.objects.create(url=url, claimed_at=claimed_at)
    until = timezone.now() + timedelta(hours=1)
    cache, key = caches[conf.DJANGOFEEDS_LOCK_CACHE], host_key(host_of(url), "not-before")
    cache.set(key, until, timeout=3600)
    try:
        result = run_import(url, task_name=import_feed.name, claim=claimed_at.isoformat())
    finally:
        cache.delete(key)  # the loopback host is every later test's too

    assert result.outcome == Outcome.SKIPPED and "(Retry-After)" in result.run.error
    feed = Feed.objects.get(url=url)
    assert feed.claimed_at is None and feed.next_check_at == until
    assert feed_server.hits("/later.xml") == 0
