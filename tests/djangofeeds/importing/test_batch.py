"""Scheduled imports in batches (DJANGOFEEDS_FEEDS_PER_MESSAGE): several feeds per message,
each imported as ``import_feed`` imports it; what a batch cannot import goes back one by one."""

import base64
import json
import signal
import time

import pytest
import redis
from celery.exceptions import SoftTimeLimitExceeded
from django.core.cache import cache
from django.utils import timezone

from djangofeeds.importing import batch, dispatch, runner
from djangofeeds.importing.dispatch import IMPORT_FEED, IMPORT_FEED_BATCH, enqueue_imports
from djangofeeds.importing.runner import lock_key
from djangofeeds.locking.fence import next_fence
from djangofeeds.locking.hosts import host_slots
from djangofeeds.models import Feed, ImportRun, Outcome, RefreshRun
from djangofeeds.search.indexing import INDEX_POSTS
from djangofeeds.tasks import import_feed_batch, refresh_feeds
from localservers.feed_server import FeedServer, numbered_items, rss
from localservers.waiting import wait_until
from tests.factories import make_feeds
from tests.support.batches import claimed, outcomes
from tests.support.memcached import memcached_writes
from tests.support.queues import redis_list_key
from tests.support.workers import feeds_worker

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def two_hosts():
    """A feed server on two loopback hosts (127.0.0.1 and 127.0.1.1)."""
    server = FeedServer(hosts=2).start()
    yield server
    server.stop()


def queued(broker):
    """``(task, args, kwargs, eta)`` of each import message in the feeds queue, oldest first.

    Not the search indexing an import sends after it commits (PostgreSQL).
    """
    client = redis.Redis.from_url(broker.url)
    found = []
    for raw in reversed(client.lrange(redis_list_key("feeds"), 0, -1)):
        message = json.loads(raw)
        if message["headers"]["task"] == INDEX_POSTS:
            continue
        args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
        found.append((message["headers"]["task"], args, kwargs, message["headers"]["eta"]))
    return found


def test_a_tick_sends_its_feeds_in_batches_and_a_person_one_import_each(private_broker, settings):
    """7 due feeds, 3 per message: 3 batch messages, each feed in one of them, one claim and
    one round for all; "Import now" still sends one ``import_feed`` per feed (its result)."""
    settings.DJANGOFEEDS_FEEDS_PER_MESSAGE = 3
    make_feeds(7)

    tick = refresh_feeds.apply().get()

    messages = queued(private_broker)
    assert [task for task, *_ in messages] == [IMPORT_FEED_BATCH] * 3
    batches = [args[0] for _, args, _, _ in messages]
    assert [len(urls) for urls in batches] == [3, 3, 1]
    assert sorted(url for urls in batches for url in urls) == sorted(
        Feed.objects.values_list("url", flat=True)
    )
    assert {json.dumps(kwargs) for _, _, kwargs, _ in messages} == {
        json.dumps({"claim": messages[0][2]["claim"], "refresh_run": tick["refresh_run"]})
    }

    Feed.objects.update(claimed_at=None)
    enqueue_imports(batches[0][:2])
    assert sorted((task, args) for task, args, _, _ in queued(private_broker)[3:]) == sorted(
        (IMPORT_FEED, [url]) for url in batches[0][:2]
    )


def test_a_batch_imports_each_feed_under_its_lock_and_goes_on_past_a_crash_and_a_skip(
    feed_server, monkeypatch, clean_cache
):
    """Each feed is fetched once under its own lock; a replaced claim skips its feed before
    its fetch, a crash of the importer (after its fetch) is recorded on its feed, and neither
    stops the other feeds. Four feeds of one host, two slots: the fourth waits for a slot of
    the batch's own, in a second round of fetches, rather than going back."""
    urls = [feed_server.serve(f"/b{n}.xml", rss(numbered_items(2))) for n in range(4)]
    claim = claimed(urls)
    Feed.objects.filter(url=urls[1]).update(claimed_at=timezone.now())  # imported since
    real_fetch_and_store = runner.fetch_and_store

    def crash_on_the_third(feed, **options):
        if feed.url == urls[2]:
            raise RuntimeError("the importer broke")
        return real_fetch_and_store(feed, **options)

    monkeypatch.setattr(runner, "fetch_and_store", crash_on_the_third)

    counts = import_feed_batch.apply(args=[urls], kwargs={"claim": claim}).get()

    assert counts == {"imported": 2, "skipped": 1, "failed": 1}
    assert [feed_server.hits(f"/b{n}.xml") for n in range(4)] == [1, 0, 1, 1]
    assert outcomes(urls) == [["imported"], ["skipped"], ["failed"], ["imported"]]
    assert "the importer broke" in Feed.objects.get(url=urls[2]).last_error
    assert all(cache.get(lock_key(IMPORT_FEED, url)) is None for url in urls)


def test_a_batch_takes_its_locks_in_one_round_trip_and_its_fences_in_one_statement(
    feed_server, memcached_cache, monkeypatch, settings
):
    """Five feeds on one host (five slots), one first seen, one locked by another worker: one
    write to memcached takes every lock and a slot for each feed and reads the host's
    Retry-After, one statement fences the known feeds. The first store is slow, so every
    other answer is in when it ends: the four imports give back their slots and locks
    together, in one write, once none is left to store. The locked feed is skipped (its slot
    given back), its lock left to its owner; the new one imported."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from djangofeeds.locking.locks import CacheLock

    settings.DJANGOFEEDS_MAX_PER_HOST = 5
    urls = [feed_server.serve(f"/f{n}.xml", rss(numbered_items(1))) for n in range(5)]
    Feed.objects.bulk_create([Feed(url=url) for url in urls[:4]])
    owner = CacheLock(lock_key(IMPORT_FEED, urls[3]), expire=60)
    assert owner.acquire()
    client = cache._cache._get_client(cache.make_and_validate_key("any"))
    cache.set("connected", 1)  # the client's socket is open: count its writes from here
    writes = memcached_writes(client, monkeypatch)
    real_fetch_and_store, stored = runner.fetch_and_store, []

    def first_one_slow(feed, **options):
        if not stored:
            time.sleep(0.5)  # the other fetches answer meanwhile
        stored.append(feed.url)
        return real_fetch_and_store(feed, **options)

    monkeypatch.setattr(runner, "fetch_and_store", first_one_slow)

    with CaptureQueriesContext(connection) as queries:
        counts = batch.run_batch(urls, task_name=IMPORT_FEED)

    assert counts == {"imported": 4, "skipped": 1}
    assert outcomes(urls) == [["imported"]] * 3 + [["skipped"]] + [["imported"]]
    fences = [
        q["sql"] for q in queries.captured_queries if "fence" in q["sql"].split("SET")[-1][:20]
    ]
    together = [sql for sql in fences if "ANY(" in sql or "json_each" in sql]
    if connection.vendor != "mysql":  # four known feeds together; the new one alone
        assert len(together) == 1 and all(urls[4] in sql for sql in fences if sql not in together)
    locks_and_reads = writes[0].decode()
    assert locks_and_reads.count("ms ") == 10 and locks_and_reads.count("mg ") == 5
    assert not any(b"ms " in write for write in writes[1:])  # no slot asked for apart
    releases = [write for write in writes if write.startswith(b"md ")]
    # The skipped feed's slot as it is skipped, then the four imports' slots and locks.
    assert len(stored) == 4 and [write.count(b"md ") for write in releases] == [1, 8]
    assert owner.held and not CacheLock(lock_key(IMPORT_FEED, urls[3]), expire=60).acquire()
    assert all(cache.get(lock_key(IMPORT_FEED, url)) is None for url in urls[:3] + urls[4:])
    assert all(host_slots(urls[0]).acquire() for _ in range(5))  # every slot came back


def test_the_unchanged_feeds_of_a_batch_are_written_in_one_statement(
    feed_server, monkeypatch, settings, clean_cache
):
    """Four feeds answer 304 and are stored while none is left to fetch: on PostgreSQL their
    four feed updates and runs are one statement. The feed a newer import took over meanwhile
    (its fence bumped) keeps that import's state, and its run fails as refused, as its own
    write would have; the others are not modified, their claims cleared, next checks set."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.DJANGOFEEDS_MAX_PER_HOST = 4
    urls = [
        feed_server.serve(f"/u{n}.xml", rss(numbered_items(1)), etag=f'"u{n}"') for n in range(4)
    ]
    batch.run_batch(urls, task_name=IMPORT_FEED)  # the first imports keep each feed's ETag
    claim = claimed(urls)
    real_fetch_and_store, stored = runner.fetch_and_store, []

    def first_one_slow(feed, **options):
        if not stored:
            time.sleep(0.5)  # the other fetches answer meanwhile
            next_fence(urls[2])  # a newer import takes the third feed over
        stored.append(feed.url)
        return real_fetch_and_store(feed, **options)

    monkeypatch.setattr(runner, "fetch_and_store", first_one_slow)

    with CaptureQueriesContext(connection) as queries:
        counts = batch.run_batch(urls, task_name=IMPORT_FEED, claim=claim)

    assert counts == {"not_modified": 3, "failed": 1}
    assert [feed_server.hits(f"/u{n}.xml") for n in range(4)] == [2] * 4
    assert outcomes(urls) == [["imported", "not_modified"]] * 2 + [
        ["imported", "failed"],
        ["imported", "not_modified"],
    ]
    refused = ImportRun.objects.filter(feed__url=urls[2]).latest("pk")
    assert "newer import" in refused.error
    feeds = {feed.url: feed for feed in Feed.objects.filter(url__in=urls)}
    assert feeds[urls[2]].claimed_at is not None  # the newer import's to clear
    for url in urls[:2] + urls[3:]:
        feed = feeds[url]
        assert feed.claimed_at is None and feed.last_status == Outcome.NOT_MODIFIED
        assert feed.next_check_at > timezone.now() and feed.etag == f'"{url[-6:-4]}"'
    writes = [q["sql"] for q in queries.captured_queries if "importrun" in q["sql"].lower()]
    if connection.vendor == "postgresql":
        assert len([sql for sql in writes if "json_to_recordset(" in sql]) == 1
    assert all(cache.get(lock_key(IMPORT_FEED, url)) is None for url in urls)
    assert all(host_slots(urls[0]).acquire() for _ in range(4))  # every slot came back


def test_unchanged_feeds_whose_write_together_fails_are_recorded_as_crashed(
    feed_server, monkeypatch, settings, clean_cache
):
    """The statement of the batch's 304s fails (the database went away): each of those feeds
    gets a failed run saying so and a backed-off next check, and the batch counts them."""
    from django.db import OperationalError, connection

    if connection.vendor != "postgresql":
        pytest.skip("only PostgreSQL writes a batch's 304s together (the PostgreSQL passes)")
    settings.DJANGOFEEDS_MAX_PER_HOST = 3
    urls = [
        feed_server.serve(f"/x{n}.xml", rss(numbered_items(1)), etag=f'"x{n}"') for n in range(3)
    ]
    batch.run_batch(urls, task_name=IMPORT_FEED)
    claim = claimed(urls)

    def database_gone(writes):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(batch, "write_fenced_together", database_gone)

    counts = batch.run_batch(urls, task_name=IMPORT_FEED, claim=claim)

    assert counts == {"failed": 3}
    assert outcomes(urls) == [["imported", "failed"]] * 3
    for feed in Feed.objects.filter(url__in=urls):
        assert "lost the connection to the database" in feed.last_error
        assert feed.claimed_at is None and feed.error_count == 1
    assert all(cache.get(lock_key(IMPORT_FEED, url)) is None for url in urls)


def test_a_feed_whose_host_is_busy_goes_back_as_an_import_of_its_own(
    two_hosts, private_broker, clean_cache
):
    """The busy host's feed waits in an ``import_feed`` message of its own (same claim and
    round, ``host_waits`` 1, a few seconds later); the other host's feed is imported now."""
    busy = two_hosts.serve("/busy.xml", rss(numbered_items(1)), host="127.0.0.1")
    free = two_hosts.serve("/free.xml", rss(numbered_items(1)), host="127.0.1.1")
    claim = claimed([busy, free])
    round_ = RefreshRun.objects.create(started_at=timezone.now(), feeds=2).pk
    slots = [host_slots(busy) for _ in range(2)]
    assert all(slot.acquire() for slot in slots)

    counts = import_feed_batch.apply(
        args=[[busy, free]], kwargs={"claim": claim, "refresh_run": round_}
    ).get()

    assert counts == {"sent back": 1, "imported": 1}
    assert two_hosts.hits("/busy.xml") == 0 and two_hosts.hits("/free.xml") == 1
    [(task, args, kwargs, eta)] = queued(private_broker)
    assert (task, args) == (IMPORT_FEED, [busy])
    assert kwargs == {"claim": claim, "refresh_run": round_, "host_waits": 1}
    assert eta is not None and eta > timezone.now().isoformat()
    assert outcomes([busy]) == [[]]  # no run: it has not been tried yet
    for slot in slots:
        slot.release()


def run_spans(urls):
    """Each URL's one run, as ``(started_at, finished_at, outcome)``."""
    runs = {run.feed.url: run for run in ImportRun.objects.select_related("feed")}
    return [(runs[url].started_at, runs[url].finished_at, runs[url].outcome) for url in urls]


def test_a_batch_fetches_its_feeds_together_and_stores_each_as_it_answers(settings, clean_cache):
    """A dead server (no answer within the fetch timeout), a slow one and a quick one, on
    three hosts: the three fetches run at once, so the dead one costs the batch one timeout,
    not one on top of the others' time; each feed is stored as its answer comes back."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 1
    server = FeedServer(hosts=3).start()
    try:
        dead = server.serve("/dead.xml", rss(numbered_items(1)), delay=3, host="127.0.0.1")
        slow = server.serve("/slow.xml", rss(numbered_items(1)), delay=0.5, host="127.0.1.1")
        quick = server.serve("/quick.xml", rss(numbered_items(1)), host="127.0.1.2")
        urls = [dead, slow, quick]
        claim = claimed(urls)

        counts = import_feed_batch.apply(args=[urls], kwargs={"claim": claim}).get()
    finally:
        server.stop()

    assert counts == {"failed": 1, "imported": 2}
    (dead_from, dead_to, dead_outcome), slow_run, quick_run = run_spans(urls)
    assert dead_outcome == Outcome.FAILED and "timed out" in Feed.objects.get(url=dead).last_error
    # Fetched together: each run began before any ended. In turn, each would begin after the
    # one before it ended, the quick feed last.
    assert max(dead_from, slow_run[0], quick_run[0]) < min(dead_to, slow_run[1], quick_run[1])
    assert quick_run[1] < slow_run[1] < dead_to  # stored in the order the answers came
    assert all(cache.get(lock_key(IMPORT_FEED, url)) is None for url in urls)
    assert all(host_slots(url).acquire() for url in urls)  # every slot given back


def test_a_batch_holding_every_slot_of_a_host_fetches_its_other_feeds_there_after(
    two_hosts, private_broker, settings, clean_cache
):
    """One slot per host; two feeds of one host and one of another in a batch: the second
    feed of the first host waits for the batch's first round of fetches (its own slot) and
    is fetched in the next, not sent back; the other host's feed is fetched with the first."""
    settings.DJANGOFEEDS_MAX_PER_HOST = 1
    first = two_hosts.serve("/first.xml", rss(numbered_items(1)), delay=0.3, host="127.0.0.1")
    second = two_hosts.serve("/second.xml", rss(numbered_items(1)), host="127.0.0.1")
    other = two_hosts.serve("/other.xml", rss(numbered_items(1)), delay=0.3, host="127.0.1.1")
    urls = [first, second, other]
    claim = claimed(urls)

    counts = import_feed_batch.apply(args=[urls], kwargs={"claim": claim}).get()

    assert counts == {"imported": 3}
    assert queued(private_broker) == []
    first_run, second_run, other_run = run_spans(urls)
    assert other_run[0] < first_run[1]  # the first round: both hosts at once
    assert second_run[0] >= first_run[1]  # the host's one slot: after its first feed


def test_a_batch_near_its_time_limit_sends_the_rest_back(
    feed_server, private_broker, settings, clean_cache
):
    """Once less than two fetch deadlines of its soft time limit are left, a batch starts
    no other round of fetches: the feeds not started go back, one ``import_feed`` each, at
    once. One slot for the feeds' host: the slow feed's round is the batch's first."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 1  # a fetch's deadline: 3 s
    settings.DJANGOFEEDS_MAX_PER_HOST = 1
    slow = feed_server.serve("/slow.xml", rss(numbered_items(1)), delay=0.5)
    rest = [feed_server.serve(f"/r{n}.xml", rss(numbered_items(1))) for n in range(2)]
    claim = claimed([slow, *rest])

    counts = batch.run_batch(
        [slow, *rest], task_name=IMPORT_FEED, claim=claim, time_limit=2 * 3 + 0.3
    )

    assert counts == {"imported": 1, "sent back": 2}
    assert feed_server.hits("/slow.xml") == 1
    assert [feed_server.hits(f"/r{n}.xml") for n in range(2)] == [0, 0]
    assert [(task, args, eta) for task, args, _, eta in queued(private_broker)] == [
        (IMPORT_FEED, [url], None) for url in rest
    ]


def test_a_batch_stopped_by_its_soft_time_limit_frees_the_feeds_it_sends_back_first(
    feed_server, private_broker, settings, clean_cache, monkeypatch
):
    """The soft time limit (raised by a signal, as the pool process's is) stops the batch
    while one feed is fetched and the other waits for the host's one slot: both go back,
    and each one's lock is already free when its ``import_feed`` is sent, or that import
    could run at once on another process, find the lock held, and skip the feed."""
    settings.DJANGOFEEDS_MAX_PER_HOST = 1
    slow = feed_server.serve("/slow-stop.xml", rss(numbered_items(1)), delay=3)
    waiting = feed_server.serve("/waits.xml", rss(numbered_items(1)))
    claim = claimed([slow, waiting])
    held_when_sent = {}
    send_back = dispatch.send_back

    def watched_send_back(urls, *args, **kwargs):
        held_when_sent.update({url: cache.get(lock_key(IMPORT_FEED, url)) for url in urls})
        return send_back(urls, *args, **kwargs)

    def soft_time_limit(*_):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(dispatch, "send_back", watched_send_back)
    previous = signal.signal(signal.SIGALRM, soft_time_limit)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        counts = batch.run_batch([slow, waiting], task_name=IMPORT_FEED, claim=claim)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

    assert counts == {"sent back": 2}
    assert held_when_sent == {slow: None, waiting: None}
    assert [args for _, args, _, _ in queued(private_broker)] == [[slow], [waiting]]


def test_a_batch_without_its_lock_cache_imports_nothing_and_sends_every_feed_back(
    feed_server, memcached_cache, private_broker, caplog
):
    """memcached down: no feed is fetched, the refusal is on record, and every feed of the
    batch goes back as an ``import_feed``, which retries as any import does."""
    urls = [feed_server.serve(f"/m{n}.xml", rss(numbered_items(1))) for n in range(3)]
    claim = claimed(urls)
    memcached_cache.stop()

    counts = import_feed_batch.apply(args=[urls], kwargs={"claim": claim}).get()

    assert counts == {"sent back": 3}
    assert [feed_server.hits(f"/m{n}.xml") for n in range(3)] == [0, 0, 0]
    assert [args for _, args, _, _ in queued(private_broker)] == [[url] for url in urls]
    [run] = ImportRun.objects.all()
    assert run.outcome == Outcome.FAILED and "lock cache is unreachable" in run.error
    assert any("sent back" in record.getMessage() for record in caplog.records)


@pytest.mark.project_wiring
def test_a_round_in_batches_through_real_workers_fetches_each_feed_once(
    feed_server, memcached_cache, worker_factory, settings
):
    """Batches of 3 through a real worker: one fetch and one run per feed, the round counted
    from the runs, every claim released."""
    settings.DJANGOFEEDS_FEEDS_PER_MESSAGE = 3
    feeds_worker(worker_factory, memcached_cache)
    urls = [feed_server.serve(f"/w{n}.xml", rss(numbered_items(2))) for n in range(6)]
    urls.append(feed_server.url("/gone.xml"))  # 404
    Feed.objects.bulk_create(Feed(url=url) for url in urls)

    tick = refresh_feeds.apply().get()
    summary = RefreshRun.objects.get(pk=tick["refresh_run"])
    wait_until(lambda: summary.progress()[0] == 7, 60, "the round never finished")
    wait_until(lambda: not Feed.objects.filter(claimed_at__isnull=False).exists(), 10)

    assert [feed_server.hits(f"/w{n}.xml") for n in range(6)] == [1] * 6
    assert feed_server.hits("/gone.xml") == 1
    assert outcomes(urls) == [["imported"]] * 6 + [["failed"]]
    refresh_feeds.apply()  # the next tick closes the round
    summary.refresh_from_db()
    assert (summary.feeds, summary.imported, summary.failed, summary.unfinished) == (7, 6, 1, 0)


def test_a_batch_stopped_by_its_soft_time_limit_keeps_what_it_stored_and_sends_the_rest_back(
    two_hosts, memcached_cache, worker_factory
):
    """A real worker on a 3 s lease (stopped after 0.7 s), one slot per host: the feed that
    answered is stored; the one still fetching, and the one waiting for its host's slot (so
    the batch waits too: it leaves no straggler), go back as ``import_feed`` messages, the
    stuck one stopped and recorded in its turn; the process is never killed."""
    worker = feeds_worker(
        worker_factory,
        memcached_cache,
        DJANGOFEEDS_LOCK_EXPIRE="3",
        DJANGOFEEDS_MAX_PER_HOST="1",
    )
    stuck = two_hosts.serve("/stuck.xml", rss(numbered_items(2)), delay=5, host="127.0.0.1")
    after = two_hosts.serve("/after.xml", rss(numbered_items(2)), host="127.0.0.1")
    fine = two_hosts.serve("/fine.xml", rss(numbered_items(2)), host="127.0.1.1")
    Feed.objects.bulk_create([Feed(url=url) for url in (stuck, after, fine)])

    import_feed_batch.delay([stuck, after, fine])

    wait_until(lambda: len(outcomes([stuck])[0]) == 1, 30, "the stuck feed's stop never recorded")
    wait_until(lambda: len(outcomes([after])[0]) == 1, 30, "the feed sent back never ran")
    assert outcomes([fine, stuck, after]) == [["imported"], ["failed"], ["imported"]]
    assert ImportRun.objects.get(feed__url=stuck).error == (
        "import took longer than 0.7s and was stopped"
    )
    assert "it reached its time limit; 2 sent back" in worker.output
    assert worker.output.count("Soft time limit (0.7s) exceeded") == 2  # the batch, then the feed
    assert "Hard time limit" not in worker.output and "exited with" not in worker.output
    assert two_hosts.hits("/stuck.xml") == 2 and two_hosts.hits("/fine.xml") == 1
