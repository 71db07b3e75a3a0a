"""The tasks in-process (``apply``): lock, skip, retries, progress, refresh and its summary."""

import logging
import time

import pytest
from django.utils import timezone

from djangofeeds import conf, tasks
from djangofeeds.importing import runner
from djangofeeds.importing.claims import claim_feeds
from djangofeeds.importing.runner import lock_key
from djangofeeds.locking.locks import CacheLock
from djangofeeds.models import Feed, ImportRun, Outcome, Post, RefreshRun
from djangofeeds.schedules import BEAT_SCHEDULE
from djangofeeds.tasks import import_feed, import_feed_batch, refresh_feeds
from localservers.feed_server import numbered_items, rss
from localservers.workers import queue_name
from project.celery import app as celery_app
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("lease", "soft", "hard"), [(600, 480, 540), (20, 16, 18), (10, 7, 9), (3, 0.7, 2.7)]
)
def test_import_feed_task_limits_sit_below_the_lock_expiry(settings, lease, soft, hard):
    """The time limits end before the lock's lease: soft at 80% of it, hard at 90%, and soft
    at least two seconds before hard (Celery looks at them about once a second); acks late."""
    settings.DJANGOFEEDS_LOCK_EXPIRE = lease
    assert (import_feed.soft_time_limit, import_feed.time_limit) == (soft, hard)
    assert (import_feed_batch.soft_time_limit, import_feed_batch.time_limit) == (soft, hard)
    assert import_feed.acks_late and import_feed.reject_on_worker_lost


def test_import_feed_task_returns_a_summary(feed_server):
    """The task returns a summary of the import and takes the feed's first fence."""
    url = feed_server.serve("/t.xml", rss(numbered_items(4)))

    result = import_feed.apply(args=[url]).get()

    assert result == {"status": "imported", "url": url, "created": 4, "updated": 0}
    assert Feed.objects.get(url=url).fence == 1


def test_import_feed_task_skips_when_the_lock_is_held(feed_server):
    """With the feed's lock held elsewhere, the task fetches nothing and records a skip."""
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
    """After the task, the feed's lock is free."""
    url = feed_server.serve("/t.xml", rss(numbered_items(1)))

    import_feed.apply(args=[url]).get()

    assert CacheLock(lock_key(import_feed.name, url), expire=60).acquire()


def test_import_feed_task_memcached_down_retries_and_imports_nothing(
    feed_server, memcached_cache, caplog
):
    """With memcached down, the task retries, gives up, fetches nothing and records every try
    on one run: the outage's (its attempts), not a run per retry."""
    url = feed_server.serve("/t.xml", rss(numbered_items(3)))
    memcached_cache.stop()

    with caplog.at_level(logging.ERROR, logger="djangofeeds.tasks"):
        result = import_feed.apply(args=[url]).get()

    assert result["status"] == "failed" and "memcached" in result["error"]
    retries = [r for r in caplog.records if "lock cache is unreachable" in r.getMessage()]
    assert len(retries) == tasks.MAX_RETRIES + 1
    assert "will retry" in retries[0].getMessage() and "giving up" in retries[-1].getMessage()
    assert feed_server.hits("/t.xml") == 0 and Post.objects.count() == 0
    [run] = ImportRun.objects.all()
    assert (run.outcome, run.attempts) == (Outcome.FAILED, tasks.MAX_RETRIES + 1)
    assert "lock cache is unreachable" in run.error and run.finished_at > run.started_at


def test_each_outage_of_the_lock_cache_is_one_failed_run(feed_server, memcached_cache):
    """Two outages with an import between them: two failed runs, each counting its tries."""
    url = feed_server.serve("/t.xml", rss(numbered_items(1)))
    memcached_cache.stop()
    import_feed.apply(args=[url], task_id="first").get()
    import_feed.apply(args=[url], task_id="second").get()  # the same outage, another task
    memcached_cache.start()
    assert import_feed.apply(args=[url]).get()["status"] == "imported"
    memcached_cache.stop()
    import_feed.apply(args=[url], task_id="third").get()

    runs = ImportRun.objects.order_by("started_at", "pk")
    assert [(run.outcome, run.attempts, run.task_id) for run in runs] == [
        (Outcome.FAILED, 2 * (tasks.MAX_RETRIES + 1), "second"),  # the task trying last
        (Outcome.IMPORTED, 1, runs[1].task_id),
        (Outcome.FAILED, tasks.MAX_RETRIES + 1, "third"),
    ]


def test_import_feed_task_leaves_transient_errors_to_the_schedule(feed_server):
    """A 503 is fetched once: no retry holds the worker, the feed's schedule backs off."""
    url = feed_server.serve("/down.xml", "unavailable", status=503)

    result = import_feed.apply(args=[url]).get()

    assert result["status"] == "failed" and "503" in result["error"]
    assert feed_server.hits("/down.xml") == 1
    feed = Feed.objects.get(url=url)
    assert feed.error_count == 1
    assert (
        timezone.now() + timezone.timedelta(minutes=3)
        < feed.next_check_at
        < timezone.now() + timezone.timedelta(minutes=7)
    )


@pytest.mark.serial  # a timing bound: not beside other tests (xdist)
def test_a_dead_feed_backs_off_through_its_schedule(feed_server, settings):
    """A feed that times out costs one bounded fetch per check, and waits longer after each."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 1
    url = feed_server.serve("/dead.xml", rss(numbered_items(1)), delay=5)
    delays = []
    for _ in range(3):
        started = time.monotonic()
        result = import_feed.apply(args=[url]).get()
        elapsed = time.monotonic() - started
        assert result["status"] == "failed" and "timed out" in result["error"]
        assert elapsed < 3 * conf.DJANGOFEEDS_FETCH_TIMEOUT + 2  # no retry inside the task
        delays.append(Feed.objects.get(url=url).next_check_at - timezone.now())

    assert feed_server.hits("/dead.xml") == 3
    assert Feed.objects.get(url=url).error_count == 3
    # 5, 10, then 20 minutes, each +-20%.
    minutes = [delay.total_seconds() / 60 for delay in delays]
    assert 3.9 < minutes[0] < 6.1 and 7.9 < minutes[1] < 12.1 and 15.9 < minutes[2] < 24.1


def test_import_feed_task_leaves_a_short_retry_after_to_the_schedule(feed_server):
    """A 429 with Retry-After: 120 is fetched once; the next check waits at least 120 s."""
    url = feed_server.serve("/soon.xml", "busy", status=429, headers={"Retry-After": "120"})

    result = import_feed.apply(args=[url]).get()

    assert result["status"] == "failed" and "429" in result["error"]
    assert feed_server.hits("/soon.xml") == 1
    assert Feed.objects.get(url=url).next_check_at >= timezone.now() + timezone.timedelta(
        seconds=115
    )


def test_import_feed_task_leaves_a_long_retry_after_to_the_schedule(feed_server):
    """A long Retry-After is no task retry: the feed's next check is put off instead."""
    url = feed_server.serve("/later.xml", "busy", status=429, headers={"Retry-After": "3600"})

    result = import_feed.apply(args=[url]).get()

    assert result["status"] == "failed" and feed_server.hits("/later.xml") == 1
    assert Feed.objects.get(url=url).next_check_at > timezone.now() + timezone.timedelta(minutes=59)


def test_import_feed_task_does_not_retry_permanent_errors(feed_server):
    """A 404 is fetched once, not retried."""
    url = feed_server.url("/nothing.xml")

    result = import_feed.apply(args=[url]).get()

    assert result["status"] == "failed" and "404" in result["error"]
    assert feed_server.hits("/nothing.xml") == 1


@pytest.mark.project_wiring
def test_import_feed_task_reports_progress(feed_server, monkeypatch):
    """The task reports PROGRESS after each batch."""
    body = rss(numbered_items(150))
    url = feed_server.serve("/p.xml", body)
    import_url(url)  # a first import is one batch of 150: its second has two of 100
    feed_server.serve("/p.xml", body + b"\n")
    states = []
    real_update_state = import_feed.update_state

    def record(*args, **kwargs):
        states.append((kwargs["state"], kwargs["meta"]["current"], kwargs["meta"]["total"]))
        return real_update_state(*args, **kwargs)

    monkeypatch.setattr(import_feed, "update_state", record)

    import_feed.apply(args=[url], task_id="progress-1").get()

    assert states == [("PROGRESS", 100, 150), ("PROGRESS", 150, 150)]


def test_import_feed_task_keeps_the_feed_claimed_until_it_is_done(
    feed_server, monkeypatch, purge_queues
):
    """While an import runs its feed stays claimed: refresh_feeds does not send it again."""
    url = feed_server.serve("/q.xml", rss(numbered_items(150)))
    Feed.objects.create(url=url)
    claim, claimed = claim_feeds(Feed.objects.filter(url=url))  # as a tick does
    assert len(claimed) == 1
    queued_while_running = []
    monkeypatch.setattr("djangofeeds.importing.storage.FIRST_IMPORT_BATCH_SIZE", 100)  # two batches
    monkeypatch.setattr(
        import_feed,
        "update_state",
        lambda **kwargs: queued_while_running.append(refresh_feeds()["queued"]),
    )

    result = import_feed.apply(args=[url], kwargs={"claim": claim}, task_id="q-1").get()

    assert result["status"] == "imported"
    assert queued_while_running == [0, 0]  # one per batch of posts
    feed = Feed.objects.get(url=url)
    assert feed.claimed_at is None  # cleared once it was done
    assert feed.next_check_at > timezone.now()


def test_import_feed_task_whose_claim_was_replaced_fetches_nothing(feed_server, caplog):
    """A message for an old claim (the feed was imported, or claimed again) does nothing."""
    url = feed_server.serve("/twice.xml", rss(numbered_items(2)))
    Feed.objects.create(url=url)
    old_claim, _ = claim_feeds(Feed.objects.filter(url=url))
    Feed.objects.filter(url=url).update(claimed_at=None)  # as a finished import leaves it

    with caplog.at_level(logging.INFO, logger="djangofeeds.tasks"):
        result = import_feed.apply(args=[url], kwargs={"claim": old_claim}).get()

    assert result["status"] == "skipped" and feed_server.hits("/twice.xml") == 0
    assert ImportRun.objects.get().outcome == Outcome.SKIPPED
    assert f"Feed {url}: skipped, already imported since it was queued" in caplog.text


def test_a_skipped_import_is_logged_as_skipped(feed_server, caplog):
    """A skipped import logs one sentence in words."""
    url = feed_server.serve("/held.xml", rss(numbered_items(1)))
    holder = CacheLock(lock_key(import_feed.name, url), expire=60)
    assert holder.acquire()

    with caplog.at_level(logging.INFO, logger="djangofeeds.tasks"):
        import_feed.apply(args=[url]).get()
    holder.release()

    lines = [r.getMessage() for r in caplog.records if r.name == "djangofeeds.tasks"]
    assert f"Feed {url}: skipped, another worker is importing this feed" in lines
    assert not any("Outcome." in line or "{" in line for line in lines)


def test_import_feed_task_logs_what_happened_in_words(feed_server, caplog):
    """The task logs an import and a 304 in words."""
    url = feed_server.serve("/words.xml", rss(numbered_items(3)), etag='"w1"')

    with caplog.at_level(logging.INFO, logger="djangofeeds.tasks"):
        import_feed.apply(args=[url]).get()
        import_feed.apply(args=[url]).get()

    lines = [record.getMessage() for record in caplog.records]
    assert f"Feed {url}: imported, 3 new and 0 changed posts" in lines
    assert f"Feed {url}: not modified since the last import" in lines


def test_import_feed_task_records_unexpected_errors_on_the_feed(feed_server, monkeypatch):
    """An unexpected error is recorded on the feed and its run, and backs the feed off."""
    url = feed_server.serve("/t.xml", rss(numbered_items(1)))

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(runner, "fetch_and_store", broken)

    outcome = import_feed.apply(args=[url])

    assert outcome.failed()
    feed = Feed.objects.get(url=url)
    assert feed.last_error == "RuntimeError: disk on fire" and feed.error_count == 1
    assert ImportRun.objects.get().outcome == Outcome.FAILED
    # Backed off like any failure: a feed that always crashes is not retaken every minute.
    assert feed.next_check_at > timezone.now() + timezone.timedelta(minutes=3)


def test_refresh_feeds_claims_due_active_feeds_once(purge_queues):
    """refresh_feeds claims each due active feed once and opens a round for them."""
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

    assert first["queued"] == 2 and again["queued"] == 0  # already claimed: not sent twice
    claimed = Feed.objects.filter(claimed_at__isnull=False)
    assert {feed.url for feed in claimed} == {"http://a.example/feed", "http://b.example/feed"}
    # The claim's deadline is the feeds' next check: a claim never finished comes due again.
    deadline = timezone.now() + timezone.timedelta(seconds=conf.DJANGOFEEDS_CLAIM_TIMEOUT)
    assert all(abs(feed.next_check_at - deadline).total_seconds() < 5 for feed in claimed)
    summary = RefreshRun.objects.get()
    assert summary.pk == first["refresh_run"]
    assert summary.feeds == 2 and summary.finished_at is None
    assert not ImportRun.objects.exists()


def test_refresh_feeds_claims_at_most_one_batch(settings, purge_queues):
    """One tick claims at most DJANGOFEEDS_TICK_BATCH feeds."""
    settings.DJANGOFEEDS_TICK_BATCH = 3
    Feed.objects.bulk_create(Feed(url=f"http://{n}.example/feed") for n in range(5))

    assert [refresh_feeds.apply().get()["queued"] for _ in range(3)] == [3, 2, 0]


def test_refresh_feeds_adds_nothing_while_the_queue_is_full(settings, purge_queues):
    """Backpressure: no new claims while DJANGOFEEDS_QUEUE_DEPTH claimed feeds are unfinished."""
    settings.DJANGOFEEDS_QUEUE_DEPTH = 4
    Feed.objects.bulk_create(Feed(url=f"http://{n}.example/feed") for n in range(10))

    assert refresh_feeds.apply().get()["queued"] == 4
    assert refresh_feeds.apply().get() == {"queued": 0, "unfinished": 4}
    finished = Feed.objects.filter(claimed_at__isnull=False).first()
    Feed.objects.filter(pk=finished.pk).update(claimed_at=None)  # as its import does
    assert refresh_feeds.apply().get()["queued"] == 1


def test_refresh_feeds_counts_a_round_from_its_import_runs(feed_server, purge_queues):
    """A round is over once every claimed feed has a run; the tick after it writes the counts."""
    ok = feed_server.serve("/ok.xml", rss(numbered_items(2)))
    Feed.objects.create(url=ok)
    Feed.objects.create(url=feed_server.url("/gone.xml"))
    round_id = refresh_feeds.apply().get()["refresh_run"]
    summary = RefreshRun.objects.get(pk=round_id)
    claims = dict(Feed.objects.values_list("url", "claimed_at"))

    import_feed.apply(
        args=[ok], kwargs={"claim": claims[ok].isoformat(), "refresh_run": round_id}
    ).get()
    assert summary.progress() == (1, {**dict.fromkeys(Outcome.values, 0), "imported": 1})
    refresh_feeds.apply().get()
    assert RefreshRun.objects.get(pk=round_id).finished_at is None  # one feed still queued

    gone = feed_server.url("/gone.xml")
    import_feed.apply(
        args=[gone], kwargs={"claim": claims[gone].isoformat(), "refresh_run": round_id}
    ).get()
    refresh_feeds.apply().get()

    summary.refresh_from_db()
    assert summary.finished_at is not None
    assert (summary.imported, summary.failed, summary.not_modified, summary.skipped) == (1, 1, 0, 0)
    assert summary.unfinished == 0
    assert set(ImportRun.objects.values_list("refresh_run", flat=True)) == {round_id}


def test_a_round_whose_claims_ran_out_is_closed_with_the_feeds_never_run(settings, purge_queues):
    """A round whose claims timed out is closed, counting the feeds never run."""
    Feed.objects.create(url="http://lost.example/feed")
    round_id = refresh_feeds.apply().get()["refresh_run"]
    RefreshRun.objects.filter(pk=round_id).update(
        started_at=timezone.now() - timezone.timedelta(seconds=conf.DJANGOFEEDS_CLAIM_TIMEOUT + 1)
    )

    refresh_feeds.apply().get()

    summary = RefreshRun.objects.get(pk=round_id)
    assert summary.finished_at is not None and summary.unfinished == 1


@pytest.mark.project_wiring
def test_the_tick_has_its_own_queue_and_expires_before_the_next_one():
    """Beat's entry ticks every 5 s; a tick waiting longer than 4 s is dropped, never piled up.
    (setup_schedules writes the same entry for django-celery-beat: test_setup_schedules.)"""
    [entry] = [entry for entry in BEAT_SCHEDULE.values() if entry["task"] == refresh_feeds.name]
    interval = entry["schedule"]
    assert interval == 5
    assert entry["options"]["expires"] < interval and refresh_feeds.expires < interval
    route = celery_app.amqp.router.route({}, refresh_feeds.name, (), {})
    assert route["queue"].name == queue_name("scheduler")
    feeds = celery_app.amqp.router.route({}, import_feed.name, (), {})["queue"].name
    assert feeds == queue_name("feeds")
