"""The scheduler's claims in the database: disjoint ticks, stale claims, broker faults, crashes."""

import base64
import contextlib
import json
from datetime import timedelta

import pytest
import redis
from django.core.cache import cache
from django.db import OperationalError, connection, connections
from django.utils import timezone

from djangofeeds import conf
from djangofeeds.importing import dispatch, runner
from djangofeeds.importing.dispatch import enqueue_imports
from djangofeeds.importing.runner import lock_key
from djangofeeds.locking.fence import next_fence
from djangofeeds.models import Feed, ImportRun, Outcome, RefreshRun
from djangofeeds.tasks import import_feed, refresh_feeds
from localservers.feed_server import numbered_items, rss
from localservers.waiting import wait_until
from tests.factories import make_feeds
from tests.support.queues import redis_list_key
from tests.support.workers import feeds_worker

pytestmark = pytest.mark.django_db(transaction=True)

# The refresh tick's queue and the imports'.
SCHEDULER_QUEUES = ("feeds", "scheduler")


def test_a_stale_claim_is_claimed_again_and_its_old_message_does_nothing(
    feed_server, settings, purge_queues
):
    """A claim never finished is due after the timeout; the lost message, if it comes, is void."""
    url = feed_server.serve("/stale.xml", rss(numbered_items(2)))
    Feed.objects.create(url=url)
    first = refresh_feeds.apply().get()
    assert first["queued"] == 1 and refresh_feeds.apply().get()["queued"] == 0
    old_claim = Feed.objects.get().claimed_at

    # The claim's time runs out (as if its message was lost or its worker died).
    past = timedelta(seconds=conf.DJANGOFEEDS_CLAIM_TIMEOUT + 1)
    Feed.objects.update(claimed_at=old_claim - past, next_check_at=timezone.now() - timedelta(1))
    again = refresh_feeds.apply().get()

    assert again["queued"] == 1 and again["refresh_run"] != first["refresh_run"]
    new_claim = Feed.objects.get().claimed_at
    assert new_claim > old_claim
    late = import_feed.apply(args=[url], kwargs={"claim": (old_claim - past).isoformat()}).get()
    assert late["status"] == "skipped" and feed_server.hits("/stale.xml") == 0
    result = import_feed.apply(args=[url], kwargs={"claim": new_claim.isoformat()}).get()
    assert result["status"] == "imported" and feed_server.hits("/stale.xml") == 1
    assert Feed.objects.get().claimed_at is None


def test_a_broker_failure_mid_tick_leaves_no_stuck_claim_and_sends_nothing_twice(
    private_broker, monkeypatch
):
    """Redis dies after 3 of 10 messages: those 3 stay claimed, the 7 others are due at once."""
    monkeypatch.setattr(dispatch, "PUBLISH_CHUNK", 3)  # 3 messages per pipeline
    make_feeds(10)
    client = redis.Redis.from_url(private_broker.url)
    queue = redis_list_key("feeds")
    real_apply_async = import_feed.apply_async
    calls = []

    def die_before_the_second_chunk(*args, **kwargs):
        calls.append(args[0][0])
        if len(calls) == 4:
            assert client.llen(queue) == 3  # the first chunk is in Redis
            private_broker.stop()  # the broker dies in the middle of the tick
        return real_apply_async(*args, **kwargs)

    monkeypatch.setattr(import_feed, "apply_async", die_before_the_second_chunk)

    broken = refresh_feeds.apply().get()

    assert broken["queued"] == 3 and "error" in broken
    assert RefreshRun.objects.get(pk=broken["refresh_run"]).feeds == 3
    claimed = set(Feed.objects.filter(claimed_at__isnull=False).values_list("url", flat=True))
    assert claimed == set(calls[:3])  # the 3 sent keep their claims...
    due = Feed.objects.due().filter(claimed_at__isnull=True)
    assert due.count() == 7  # ...the 7 not sent are due again at once

    private_broker.start()  # same port, empty: the 3 messages sent before died with it
    healed = refresh_feeds.apply().get()

    assert healed["queued"] == 7
    sent_again = {queued_url(message) for message in client.lrange(queue, 0, -1)}
    assert sent_again == set(Feed.objects.values_list("url", flat=True)) - claimed
    assert client.llen(queue) == 7  # each feed once: none of the 3 claimed is sent again


def queued_url(message):
    """The feed URL in a Celery message as the Redis transport stores it."""
    body = json.loads(base64.b64decode(json.loads(message)["body"]))
    return body[0][0]


def test_a_lost_database_connection_is_recorded_in_words(feed_server, monkeypatch):
    """The connection dies mid-import: the feed and its run say so, readably, and so does the
    task's reply (a failed import, not a raised error: one log line, no traceback)."""
    if connection.vendor not in ("postgresql", "mysql"):
        pytest.skip("kills its own PostgreSQL or MariaDB/MySQL connection (SQLite has none)")
    url = feed_server.serve("/db.xml", rss(numbered_items(1)))
    real_importer = runner.fetch_and_store

    def lose_the_connection(*args, **kwargs):
        with connections["default"].cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
            else:
                cursor.execute("SELECT CONNECTION_ID()")
                with contextlib.suppress(OperationalError):  # "connection was killed"
                    cursor.execute(f"KILL CONNECTION {cursor.fetchone()[0]:d}")
        return real_importer(*args, **kwargs)

    monkeypatch.setattr(runner, "fetch_and_store", lose_the_connection)

    outcome = import_feed.apply(args=[url])

    assert outcome.successful() and outcome.result["status"] == "failed"
    feed = Feed.objects.get(url=url)
    assert feed.last_error.startswith("lost the connection to the database during the import")
    assert outcome.result["error"] == feed.last_error
    assert feed.error_count == 1 and feed.claimed_at is None
    assert ImportRun.objects.get().error == feed.last_error


def test_a_crash_record_never_overwrites_a_newer_import(feed_server, monkeypatch):
    """An import that crashes after a newer one took over leaves the newer one's status."""
    url = feed_server.serve("/fenced.xml", rss(numbered_items(2)))
    real_importer = runner.fetch_and_store

    def newer_import_then_crash(feed, *args, **kwargs):
        newer = next_fence(feed.url)  # a newer lock holder (the old lease ran out)
        real_importer(newer, fence=newer.fence)
        raise RuntimeError("stalled worker woke up and crashed")

    monkeypatch.setattr(runner, "fetch_and_store", newer_import_then_crash)

    outcome = import_feed.apply(args=[url])

    assert outcome.failed()
    feed = Feed.objects.get(url=url)
    assert (feed.last_status, feed.error_count, feed.last_error) == (Outcome.IMPORTED, 0, "")
    assert feed.posts.count() == 2
    runs = dict(ImportRun.objects.values_list("outcome", "error"))
    assert runs == {
        Outcome.IMPORTED: "",
        Outcome.FAILED: "RuntimeError: stalled worker woke up and crashed",
    }


# --- through real workers -----------------------------------------------------------------


@pytest.mark.project_wiring
def test_a_round_through_real_workers_fetches_each_feed_once_and_writes_no_task_result(
    feed_server, memcached_cache, worker_factory
):
    """Scheduled imports: one fetch each, an ImportRun each, no TaskResult; the round is counted."""
    from django_celery_results.models import TaskResult

    feeds_worker(worker_factory, memcached_cache, queues=SCHEDULER_QUEUES)
    urls = [feed_server.serve(f"/r{n}.xml", rss(numbered_items(2))) for n in range(6)]
    urls.append(feed_server.url("/gone.xml"))  # 404
    Feed.objects.bulk_create(Feed(url=url) for url in urls)

    refresh_feeds.delay()  # through the scheduler queue, as beat sends it
    wait_until(lambda: RefreshRun.objects.exists(), 30, "the tick never ran")
    summary = RefreshRun.objects.get()
    wait_until(lambda: summary.progress()[0] == 7, 60, "the round never finished")
    wait_until(lambda: not Feed.objects.filter(claimed_at__isnull=False).exists(), 10)

    assert all(feed_server.hits(f"/r{n}.xml") == 1 for n in range(6))
    assert feed_server.hits("/gone.xml") == 1
    assert not TaskResult.objects.exists()  # neither the tick nor its imports
    refresh_feeds.apply()  # the next tick closes the round
    summary.refresh_from_db()
    assert summary.finished_at is not None
    assert (summary.feeds, summary.imported, summary.failed, summary.unfinished) == (7, 6, 1, 0)


@pytest.mark.project_wiring
def test_an_import_a_person_started_keeps_its_result(feed_server, memcached_cache, worker_factory):
    """An import a person queued keeps its result in the result backend."""
    from django_celery_results.models import TaskResult

    feeds_worker(worker_factory, memcached_cache, queues=SCHEDULER_QUEUES)
    url = feed_server.serve("/mine.xml", rss(numbered_items(2)))

    [(_, result)], _ = enqueue_imports([url])

    assert result.get(timeout=60)["status"] == "imported"
    assert TaskResult.objects.get(task_id=result.id).status == "SUCCESS"


def test_a_worker_killed_mid_import_is_claimed_again_after_the_timeout(
    feed_server, memcached_cache, worker_factory, settings
):
    """SIGKILL mid-import: the claim holds until it times out, then a tick queues the feed again."""
    settings.DJANGOFEEDS_CLAIM_TIMEOUT = 15  # the ticks run here: this process's setting counts
    lock_expire = "6"  # the dead worker's lock runs out before its claim does
    url = feed_server.serve("/killed.xml", rss(numbered_items(5)), delay=2)
    Feed.objects.create(url=url)
    doomed = feeds_worker(
        worker_factory,
        memcached_cache,
        queues=SCHEDULER_QUEUES,
        DJANGOFEEDS_LOCK_EXPIRE=lock_expire,
    )
    assert refresh_feeds.apply().get()["queued"] == 1
    wait_until(lambda: feed_server.hits("/killed.xml") == 1, 30, "the import never started")
    claimed_at = Feed.objects.get().claimed_at
    doomed.kill()

    feeds_worker(
        worker_factory,
        memcached_cache,
        queues=SCHEDULER_QUEUES,
        DJANGOFEEDS_LOCK_EXPIRE=lock_expire,
    )
    assert refresh_feeds.apply().get()["queued"] == 0  # still claimed: not sent twice
    key = lock_key(import_feed.name, url)
    wait_until(lambda: cache.get(key) is None, 20, "the dead worker's lock never expired")
    stale = claimed_at + timedelta(seconds=conf.DJANGOFEEDS_CLAIM_TIMEOUT)
    wait_until(lambda: timezone.now() > stale, 20)
    assert refresh_feeds.apply().get()["queued"] == 1

    wait_until(
        lambda: ImportRun.objects.filter(outcome=Outcome.IMPORTED).exists(),
        60,
        "the feed was never imported again",
    )
    feed = Feed.objects.get()
    assert feed.claimed_at is None and feed.posts.count() == 5
    assert feed_server.hits("/killed.xml") == 2
