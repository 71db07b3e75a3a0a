"""import_feed through real worker processes sharing a real memcached: one fetch, crashes."""

import collections
import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from celery import group
from django.conf import settings
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Sum

from djangofeeds.importing.records import ImportOrigin
from djangofeeds.importing.runner import lock_key, run_import
from djangofeeds.models import Feed, ImportRun, Outcome, Post
from djangofeeds.parsing.entries import sha256
from djangofeeds.tasks import import_feed
from localservers.feed_server import numbered_items, rss
from localservers.waiting import wait_until
from localservers.workers import WorkerProcess
from tests.support.workers import feeds_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_concurrent_imports_of_one_feed_fetch_it_once(feed_server, memcached_cache, worker_factory):
    """20 tasks for one slow feed on 2 workers x 2 processes: one fetch, 19 skips."""
    feeds_worker(worker_factory, memcached_cache)
    feeds_worker(worker_factory, memcached_cache)
    url = feed_server.serve("/slow.xml", rss(numbered_items(10)), delay=6)

    results = group(import_feed.s(url) for _ in range(20)).apply_async().get(timeout=90)

    assert feed_server.hits("/slow.xml") == 1
    statuses = collections.Counter(result["status"] for result in results)
    assert statuses == {"imported": 1, "skipped": 19}
    runs = collections.Counter(ImportRun.objects.values_list("outcome", flat=True))
    assert runs == {Outcome.IMPORTED: 1, Outcome.SKIPPED: 19}
    assert len({run.worker for run in ImportRun.objects.all()}) == 2  # both workers took part
    assert Post.objects.count() == 10


def test_an_import_past_its_soft_time_limit_is_recorded_and_its_worker_goes_on(
    feed_server, memcached_cache, worker_factory
):
    """A fetch still running at the soft time limit of the worker's own lease (3 s: stopped
    after 0.7 s, killed at 2.7 s; the sender's 600 s are not in the message): the stop is
    recorded and returned, the lock given back, and the worker imports the next feed."""
    worker = feeds_worker(worker_factory, memcached_cache, DJANGOFEEDS_LOCK_EXPIRE="3")
    stuck = feed_server.serve("/stuck.xml", rss(numbered_items(3)), delay=5)
    fine = feed_server.serve("/fine.xml", rss(numbered_items(2)))

    result = import_feed.delay(stuck).get(timeout=30)

    stopped = "import took longer than 0.7s and was stopped"
    assert result == {"status": "failed", "url": stuck, "created": 0, "updated": 0} | {
        "error": stopped
    }
    run = ImportRun.objects.get(feed__url=stuck)
    assert (run.outcome, run.error, run.worker) == (Outcome.FAILED, stopped, worker.hostname)
    assert Feed.objects.get(url=stuck).last_error == stopped  # written under its fence
    assert cache.get(lock_key(import_feed.name, stuck)) is None
    assert import_feed.delay(fine).get(timeout=30)["status"] == "imported"
    # Limits given by the caller are sent, and the stop says which one it met.
    given = import_feed.apply_async((stuck,), soft_time_limit=1, time_limit=2.7)
    assert given.get(timeout=30)["error"] == "import took longer than 1s and was stopped"
    assert "Soft time limit (0.7s) exceeded" in worker.output
    assert "Soft time limit (1s) exceeded" in worker.output
    assert "Hard time limit" not in worker.output and "exited with" not in worker.output


@pytest.mark.serial  # a timing bound: not beside other tests (xdist)
def test_worker_killed_mid_import_then_next_import_succeeds(
    feed_server, memcached_cache, worker_factory
):
    """SIGKILL during an import: the lock outlives the worker until it expires, then all is well."""
    expire = 12  # room for the second worker to start and skip while the dead one's lease holds
    url = feed_server.serve("/crash.xml", rss(numbered_items(20)), delay=2)
    doomed = feeds_worker(worker_factory, memcached_cache, DJANGOFEEDS_LOCK_EXPIRE=str(expire))
    import_feed.delay(url)
    wait_until(lambda: feed_server.hits("/crash.xml") == 1, 30, "the import never started")
    locked_at = time.monotonic()
    doomed.kill()

    survivor = feeds_worker(worker_factory, memcached_cache, DJANGOFEEDS_LOCK_EXPIRE=str(expire))
    assert (
        import_feed.delay(url).get(timeout=30)["status"] == "skipped"
    )  # the dead owner's lease holds
    assert time.monotonic() - locked_at < expire

    key = lock_key(import_feed.name, url)
    wait_until(lambda: cache.get(key) is None, expire + 5, "the dead worker's lock never expired")
    result = import_feed.delay(url).get(timeout=30)

    assert result == {"status": "imported", "url": url, "created": 20, "updated": 0}
    assert feed_server.hits("/crash.xml") == 2
    assert Post.objects.count() == 20
    assert survivor.hostname in ImportRun.objects.filter(outcome=Outcome.IMPORTED).get().worker


@pytest.mark.skipif(
    connection.vendor not in ("postgresql", "mysql"),
    reason="holds a row lock to stop the worker mid-store: SQLite has no row locks",
)
def test_worker_killed_mid_store_then_next_import_adds_only_the_rest(
    feed_server, memcached_cache, worker_factory
):
    """SIGKILL after the first batch of posts is stored: the rerun adds the rest, no duplicate.

    A post of the second batch is locked by this test (SELECT ... FOR UPDATE),
    so the worker is stopped deterministically inside its second upsert.
    """
    expire = 8
    url = feed_server.serve("/half.xml", rss(numbered_items(300)))
    feed = Feed.objects.create(url=url)
    seeded = Post.objects.create(
        feed=feed, guid="item-150", guid_hash=sha256("item-150"), checksum="stale"
    )
    with row_locked("djangofeeds_post", seeded.pk) as blocker:
        doomed = feeds_worker(worker_factory, memcached_cache, DJANGOFEEDS_LOCK_EXPIRE=str(expire))
        import_feed.delay(url)
        wait_until(lambda: Post.objects.count() == 101, 30, "the first batch was never stored")
        time.sleep(0.5)
        assert Post.objects.count() == 101  # stuck behind the row lock, mid-store
        doomed.kill()
        blocker.rollback()

    survivor = feeds_worker(worker_factory, memcached_cache, DJANGOFEEDS_LOCK_EXPIRE=str(expire))
    key = lock_key(import_feed.name, url)
    wait_until(lambda: cache.get(key) is None, expire + 5, "the dead worker's lock never expired")
    import_feed.delay(url).get(timeout=30)
    # RabbitMQ delivers the killed worker's unacknowledged message again at once
    # (acks_late): that copy or this task adds the rest, and the other adds nothing.
    wait_until(lambda: cache.get(key) is None, 30, "the rerun never finished")

    imported = ImportRun.objects.filter(outcome=Outcome.IMPORTED)
    assert imported.aggregate(created=Sum("created"), updated=Sum("updated")) == {
        "created": 199,
        "updated": 1,
    }
    assert Post.objects.count() == 300
    assert Post.objects.values("guid_hash").distinct().count() == 300
    assert all(survivor.hostname in run.worker for run in imported)


@contextlib.contextmanager
def row_locked(table, pk):
    """A row held by ``SELECT … FOR UPDATE`` on a connection of its own; yields it."""
    blocker = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        blocker.set_autocommit(False)
        with blocker.cursor() as cursor:
            cursor.execute(f"SELECT id FROM {table} WHERE id = %s FOR UPDATE", [pk])
        yield blocker
    finally:
        blocker.close()


def test_import_feeds_wait_shows_progress_a_table_and_fails_on_a_failure(
    feed_server, memcached_cache, worker_factory
):
    """--wait queues for real workers, waits for each, prints the table, exits non-zero."""
    feeds_worker(worker_factory, memcached_cache)
    good = feed_server.serve("/good.xml", rss(numbered_items(2)))
    missing = feed_server.url("/missing.xml")
    out = io.StringIO()

    with pytest.raises(CommandError, match="1 of 2 imports failed"):
        call_command("import_feeds", good, missing, "--wait", "--timeout", "60", stdout=out)

    lines = out.getvalue().splitlines()
    assert sum("/2 " in line for line in lines) == 2  # one progress line per finished import
    assert "[####################] 2/2" in out.getvalue()
    table = table_of(out)
    assert table[good].split()[1:4] == ["imported", "2", "0"]
    assert "failed" in table[missing] and "404" in table[missing]
    assert {run.worker for run in ImportRun.objects.all()} != {"manage.py"}  # the workers did it


def table_of(out):
    """import_feeds' table, ``{url: its line}``."""
    lines = out.getvalue().splitlines()
    return {line.split()[0]: line for line in lines if line.startswith("http")}


@pytest.fixture
def no_result_backend():
    """This process and its workers without a result backend, as a host wired as the README
    shows it (no django-celery-results): AsyncResult can tell nothing."""
    app = import_feed.app
    kept = app.conf.result_backend
    app.conf.result_backend = "disabled"
    vars(app._local).pop("backend", None)  # the app makes its backend anew from the setting
    try:
        yield {"CELERY_RESULT_BACKEND": "disabled"}
    finally:
        app.conf.result_backend = kept
        vars(app._local).pop("backend", None)


def test_import_feeds_wait_without_a_result_backend_follows_the_import_runs(
    feed_server, memcached_cache, worker_factory, no_result_backend
):
    """With no result backend, --wait follows each import through its ImportRun: the
    table, the progress and the exit status are those of the imports themselves."""
    from celery.backends.base import DisabledBackend

    assert isinstance(import_feed.app.backend, DisabledBackend)
    feeds_worker(worker_factory, memcached_cache, **no_result_backend)
    good = feed_server.serve("/good.xml", rss(numbered_items(3)))
    missing = feed_server.url("/missing.xml")
    out = io.StringIO()

    with pytest.raises(CommandError, match="1 of 2 imports failed"):
        call_command("import_feeds", good, missing, "--wait", "--timeout", "60", stdout=out)

    assert "[####################] 2/2" in out.getvalue()
    table = {
        line.split()[0]: line for line in out.getvalue().splitlines() if line.startswith("http")
    }
    assert table[good].split()[1:4] == ["imported", "3", "0"]
    assert "failed" in table[missing] and "404" in table[missing]
    assert Post.objects.filter(feed__url=good).count() == 3
    assert {run.worker for run in ImportRun.objects.all()} != {"manage.py"}  # the workers did it


def test_import_feeds_wait_without_a_result_backend_tells_a_retry(
    feed_server, memcached_cache, worker_factory, no_result_backend
):
    """A retried import (the lock cache down) is told from its failed run, still claimed, and
    waited for until the retry imports the feed; its retries updated that one run."""
    feeds_worker(worker_factory, memcached_cache, **no_result_backend)
    url = feed_server.serve("/locked-out.xml", rss(numbered_items(1)))
    memcached_cache.stop()
    out = io.StringIO()

    def restart_once_refused():
        # After the first attempt's failure is recorded, not after a set time: on a busy
        # machine the worker may reach the feed later than any fixed delay.
        try:
            failed = ImportRun.objects.filter(feed__url=url, outcome=Outcome.FAILED)
            wait_until(failed.exists, 60, "the import without its lock cache was not recorded")
        finally:
            connections.close_all()  # this thread's own connection
            memcached_cache.start()

    restart = threading.Thread(target=restart_once_refused)
    restart.start()
    try:
        call_command("import_feeds", url, "--wait", "--timeout", "90", stdout=out)
    finally:
        restart.join()

    retries = [line for line in out.getvalue().splitlines() if "will be retried" in line]
    assert retries and retries[0].startswith(f"{url} will be retried: not imported: the lock")
    table = {
        line.split()[0]: line for line in out.getvalue().splitlines() if line.startswith("http")
    }
    assert table[url].split()[1:3] == ["imported", "1"]
    assert feed_server.hits("/locked-out.xml") == 1
    runs = ImportRun.objects.filter(feed__url=url).order_by("started_at")
    assert [run.outcome for run in runs] == [Outcome.FAILED, Outcome.IMPORTED]


@pytest.mark.project_wiring
def test_stale_lock_holder_frozen_past_its_lease_cannot_overwrite_newer_data(
    feed_server, memcached_cache
):
    """A holder stopped (SIGSTOP) longer than its lease on real memcached: a second import
    takes the lock and stores newer posts; the first, resumed, is refused by fencing."""
    expire = 3
    url = feed_server.serve("/stale.xml", rss(numbered_items(3, prefix="old")), delay=2)
    env = WorkerProcess(
        env={"MEMCACHED_LOCATION": memcached_cache.location, "DJANGOFEEDS_LOCK_EXPIRE": str(expire)}
    ).env()
    # `import_feeds --sync`: the task's locked path, without Celery's time limits. A lease
    # this short fails the system check djangofeeds.E003 (on purpose here): skip the checks.
    stale = subprocess.Popen(
        [sys.executable, "manage.py", "import_feeds", url, "--sync", "--skip-checks"],
        cwd=settings.BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        wait_until(lambda: feed_server.hits("/stale.xml") == 1, 30, "the first import never began")
        os.kill(stale.pid, signal.SIGSTOP)  # frozen mid-fetch, its renewal thread too
        key = lock_key(import_feed.name, url)
        wait_until(lambda: cache.get(key) is None, expire + 5, "the frozen holder's lease held")

        feed_server.serve("/stale.xml", rss(numbered_items(3, prefix="new")))
        newer = run_import(url, task_name=import_feed.name, origin=ImportOrigin(worker="newer"))
        assert (newer.outcome, newer.run.created) == (Outcome.IMPORTED, 3)
    finally:
        os.kill(stale.pid, signal.SIGCONT)
    output, _ = stale.communicate(timeout=60)

    assert stale.returncode == 1, output  # "1 of 1 import failed"
    refused = ImportRun.objects.get(worker="manage.py")
    assert refused.outcome == Outcome.FAILED and "newer import" in refused.error
    assert sorted(Post.objects.values_list("guid", flat=True)) == ["new-0", "new-1", "new-2"]
    feed = Feed.objects.get(url=url)
    assert (feed.fence, feed.last_status) == (2, Outcome.IMPORTED)


def test_import_feeds_wait_names_the_imports_still_running(
    feed_server, memcached_cache, worker_factory
):
    """At its timeout --wait names the URL still running (the finished one is not named)."""
    feeds_worker(worker_factory, memcached_cache)
    good = feed_server.serve("/fine.xml", rss(numbered_items(1)))
    slow = feed_server.serve("/slow.xml", rss(numbered_items(1)), delay=12)
    out = io.StringIO()

    with pytest.raises(CommandError) as refused:
        call_command("import_feeds", good, slow, "--wait", "--timeout", "8", stdout=out)
    # Let the slow import end, so that nothing of this test's is left for another's worker.
    wait_until(
        lambda: ImportRun.objects.filter(feed__url=slow).exists(), 90, "the slow import never ended"
    )

    assert str(refused.value).splitlines() == [
        "1 import still running after 8s:",
        f"  {slow}",
    ]


def test_import_feeds_wait_shows_a_retry_and_its_reason(
    feed_server, memcached_cache, worker_factory
):
    """A failed fetch is left to the schedule; the lock cache down is retried: --wait says so,
    once, and the outage is one failed run counting its tries (not one run per retry)."""
    feeds_worker(worker_factory, memcached_cache)
    url = feed_server.serve("/locked-out.xml", rss(numbered_items(1)))
    memcached_cache.stop()
    out = io.StringIO()

    with pytest.raises(CommandError, match="1 import still running after 8s"):
        call_command("import_feeds", url, "--wait", "--timeout", "8", stdout=out)
    memcached_cache.start()  # the retries end with an import
    wait_until(
        lambda: Feed.objects.filter(url=url, last_status=Outcome.IMPORTED).exists(),
        90,
        "the retried import never succeeded",
    )

    retries = [line for line in out.getvalue().splitlines() if "will be retried" in line]
    assert retries and all(line.startswith(f"{url} will be retried: ") for line in retries)
    assert "memcached" in retries[0] or "lock" in retries[0]
    assert len(retries) == 1  # each retry updates the outage's run: told once
    assert feed_server.hits("/locked-out.xml") == 1  # nothing fetched without a lock
    # Down 8 s: the retries after 0 s and 2.5-5 s at least, on one run.
    [outage] = ImportRun.objects.filter(feed__url=url, outcome=Outcome.FAILED)
    assert outage.attempts >= 2
