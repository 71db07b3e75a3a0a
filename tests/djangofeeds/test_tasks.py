"""The tasks in-process (``apply``): lock, skip, retries, progress, refresh and its summary."""

import logging
from hashlib import md5

import pytest
from django.conf import settings
from django.utils import timezone

from djangofeeds import tasks
from djangofeeds.locks import CacheLock
from djangofeeds.models import Feed, ImportRun, Outcome, Post, RefreshRun
from djangofeeds.tasks import import_feed, lock_key, refresh_feeds, summarize_refresh
from project.celery import app as celery_app
from tests.support.feed_server import numbered_items, rss

pytestmark = pytest.mark.django_db


@pytest.fixture
def purge_queues():
    """Tasks published here are not for the workers of later tests."""
    yield
    celery_app.control.purge()


def test_lock_key_is_the_cookbooks():
    url = "http://example.com/feed.xml"
    assert lock_key(import_feed.name, url) == (
        f"djangofeeds.tasks.import_feed-lock-{md5(url.encode()).hexdigest()}"
    )


def test_import_feed_task_limits_sit_below_the_lock_expiry():
    assert import_feed.soft_time_limit < import_feed.time_limit < settings.DJANGOFEEDS_LOCK_EXPIRE
    assert import_feed.acks_late and import_feed.reject_on_worker_lost


def test_import_feed_task_returns_a_summary(feed_server):
    url = feed_server.serve("/t.xml", rss(numbered_items(4)))

    result = import_feed.apply(args=[url]).get()

    assert result == {"status": "imported", "url": url, "created": 4, "updated": 0}
    assert Feed.objects.get(url=url).fence == 1


def test_import_feed_task_skips_when_the_lock_is_held(feed_server):
    url = feed_server.serve("/busy.xml", rss(numbered_items(1)))
    holder = CacheLock(lock_key(import_feed.name, url), expire=60)
    assert holder.acquire()

    result = import_feed.apply(args=[url], task_id="skip-1").get()

    assert result["status"] == "skipped"
    assert feed_server.hits("/busy.xml") == 0
    run = ImportRun.objects.get()
    assert (run.outcome, run.task_id) == (Outcome.SKIPPED, "skip-1")
    holder.release()


def test_import_feed_task_releases_its_lock(feed_server):
    url = feed_server.serve("/t.xml", rss(numbered_items(1)))

    import_feed.apply(args=[url]).get()

    assert CacheLock(lock_key(import_feed.name, url), expire=60).acquire()


def test_import_feed_task_memcached_down_retries_and_imports_nothing(
    feed_server, memcached_cache, caplog
):
    url = feed_server.serve("/t.xml", rss(numbered_items(3)))
    memcached_cache.stop()

    with caplog.at_level(logging.ERROR, logger="djangofeeds.tasks"):
        result = import_feed.apply(args=[url]).get()

    assert result["status"] == "failed" and "memcached" in result["error"]
    retries = [r for r in caplog.records if "lock cache is unreachable" in r.getMessage()]
    assert len(retries) == tasks.MAX_RETRIES + 1
    assert "will retry" in retries[0].getMessage() and "giving up" in retries[-1].getMessage()
    assert feed_server.hits("/t.xml") == 0 and Post.objects.count() == 0
    runs = ImportRun.objects.all()
    assert len(runs) == tasks.MAX_RETRIES + 1  # every attempt is on record
    assert {(run.outcome, "lock cache is unreachable" in run.error) for run in runs} == {
        (Outcome.FAILED, True)
    }


def test_import_feed_task_retries_transient_errors(feed_server):
    url = feed_server.serve("/down.xml", "unavailable", status=503)

    result = import_feed.apply(args=[url]).get()

    assert result["status"] == "failed" and "503" in result["error"]
    assert feed_server.hits("/down.xml") == tasks.MAX_RETRIES + 1
    # One outage is one error: the retries do not multiply the feed's backoff.
    feed = Feed.objects.get(url=url)
    assert feed.error_count == 1
    assert feed.next_check_at < timezone.now() + timezone.timedelta(minutes=7)


def test_import_feed_task_retries_after_the_servers_retry_after(feed_server, monkeypatch):
    """A short Retry-After is the retry's countdown (a long one is left to the schedule)."""
    url = feed_server.serve("/soon.xml", "busy", status=429, headers={"Retry-After": "120"})
    countdowns = []
    real_retry = import_feed.retry

    def retry(*args, **kwargs):
        countdowns.append(kwargs.get("countdown"))
        return real_retry(*args, **kwargs)

    monkeypatch.setattr(import_feed, "retry", retry)

    result = import_feed.apply(args=[url]).get()

    assert result["status"] == "failed" and "429" in result["error"]
    assert feed_server.hits("/soon.xml") == tasks.MAX_RETRIES + 1
    assert len(countdowns) == tasks.MAX_RETRIES
    assert all(115 <= countdown <= 120 for countdown in countdowns)


def test_import_feed_task_leaves_a_long_retry_after_to_the_schedule(feed_server):
    url = feed_server.serve("/later.xml", "busy", status=429, headers={"Retry-After": "3600"})

    result = import_feed.apply(args=[url]).get()

    assert result["status"] == "failed" and feed_server.hits("/later.xml") == 1
    assert Feed.objects.get(url=url).next_check_at > timezone.now() + timezone.timedelta(minutes=59)


def test_import_feed_task_does_not_retry_permanent_errors(feed_server):
    url = feed_server.url("/nothing.xml")

    result = import_feed.apply(args=[url]).get()

    assert result["status"] == "failed" and "404" in result["error"]
    assert feed_server.hits("/nothing.xml") == 1


def test_import_feed_task_reports_progress(feed_server, monkeypatch):
    url = feed_server.serve("/p.xml", rss(numbered_items(150)))
    states = []
    real_update_state = import_feed.update_state

    def record(*args, **kwargs):
        states.append((kwargs["state"], kwargs["meta"]["current"], kwargs["meta"]["total"]))
        return real_update_state(*args, **kwargs)

    monkeypatch.setattr(import_feed, "update_state", record)

    import_feed.apply(args=[url], task_id="progress-1").get()

    assert states == [("PROGRESS", 100, 150), ("PROGRESS", 150, 150)]


def test_import_feed_task_keeps_the_feed_marked_queued_until_it_is_done(
    feed_server, monkeypatch, purge_queues
):
    """While an import runs its feed is still "queued": refresh_feeds does not send it again."""
    url = feed_server.serve("/q.xml", rss(numbered_items(150)))
    Feed.objects.create(url=url)
    assert tasks.mark_queued(url)  # as refresh_feeds or "Import now" do
    queued_while_running = []
    monkeypatch.setattr(
        import_feed, "update_state", lambda **kwargs: queued_while_running.append(refresh_feeds())
    )

    import_feed.apply(args=[url], task_id="q-1").get()

    assert queued_while_running == [{"queued": 0}, {"queued": 0}]  # one per batch
    assert tasks.mark_queued(url)  # cleared once it was done


def test_import_feed_task_records_unexpected_errors_on_the_feed(feed_server, monkeypatch):
    url = feed_server.serve("/t.xml", rss(numbered_items(1)))

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(tasks, "run_importer", broken)

    outcome = import_feed.apply(args=[url])

    assert outcome.failed()
    feed = Feed.objects.get(url=url)
    assert feed.last_error == "RuntimeError: disk on fire" and feed.error_count == 1
    assert ImportRun.objects.get().outcome == Outcome.FAILED
    # Backed off like any failure: a feed that always crashes is not retaken every minute.
    assert feed.next_check_at > timezone.now() + timezone.timedelta(minutes=3)


def test_refresh_feeds_queues_due_active_feeds_once(purge_queues):
    Feed.objects.create(url="http://a.example/feed")
    Feed.objects.create(
        url="http://b.example/feed", next_check_at=timezone.now() - timezone.timedelta(minutes=1)
    )
    Feed.objects.create(
        url="http://c.example/feed", next_check_at=timezone.now() + timezone.timedelta(hours=1)
    )
    Feed.objects.create(url="http://d.example/feed", is_active=False)

    first = refresh_feeds.apply().get()
    again = refresh_feeds.apply().get()

    assert first["queued"] == 2 and again == {"queued": 0}  # already queued: not sent twice
    summary = RefreshRun.objects.get()
    assert summary.feeds == 2 and summary.finished_at is None
    assert not ImportRun.objects.exists()


def test_refresh_feeds_summarizes_a_round_whose_import_crashed(monkeypatch):
    """A crashed import stops the chord; its errback still writes the summary from the runs."""
    ok = Feed.objects.create(url="http://ok.example/feed")
    crashed = Feed.objects.create(url="http://crash.example/feed")
    sent = []

    class Sent:  # stands in for the chord: refresh_feeds only calls .delay() on it
        def __init__(self, header, body):
            sent.append(body)

        def delay(self):
            pass

    monkeypatch.setattr(tasks, "chord", Sent)
    refresh_feeds.apply().get()
    summary = RefreshRun.objects.get()
    ImportRun.objects.create(feed=ok, started_at=timezone.now(), outcome=Outcome.IMPORTED)

    # What the result backend does when a header task fails: fail the callback
    # and call its errbacks (Celery's own code path).
    callback = sent[0]
    callback.freeze()
    try:
        raise RuntimeError("worker lost")
    except RuntimeError as exc:  # the backend reads the current traceback
        celery_app.backend.chord_error_from_stack(callback, exc)

    summary.refresh_from_db()
    assert summary.finished_at is not None
    assert (summary.imported, summary.failed) == (1, 1)
    assert crashed.pk in callback.options["link_error"][0]["args"][1]


def test_summarize_refresh_counts_outcomes():
    summary = RefreshRun.objects.create(feeds=5)
    results = [{"status": s} for s in ("imported", "imported", "not_modified", "skipped", "failed")]

    summarize_refresh.apply(args=[results, summary.pk]).get()

    summary.refresh_from_db()
    counts = (summary.imported, summary.not_modified, summary.skipped, summary.failed)
    assert counts == (2, 1, 1, 1) and summary.finished_at is not None
