"""Issue 24's cuts to the import path, measured in one process (not part of ``make bench``).

Each part runs the code as it is, so the same script run on two checkouts
compares them: a skipped ``import_feed`` with a kept result, through Celery's
worker tracer and the django-db result backend (the feed's lock held); a 304
and a 50-item first import as scheduled imports (``ignore_result``), through
the tracer too; and the store phase of a 2,000-item first import. Each gives
medians, the SQL statements and the commits (a transaction's, or a write's
own in autocommit) per task. PostgreSQL and memcached, as the benchmarks::

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/me_bench \\
        .venv/bin/python -m bench.profile_cuts
"""

import logging
import os
import statistics
import time
import uuid

from bench.harness import bench_environment, feed_document
from localservers.feed_server import FeedServer

TASKS = int(os.environ.get("PROFILE_CUTS_TASKS", 200))
ROUNDS = int(os.environ.get("PROFILE_CUTS_ROUNDS", 5))
STORE_ITEMS = 2_000


class Counter:
    """SQL statements and commits, counted while installed."""

    def __init__(self, connection):
        self.connection, self.statements, self.commits = connection, 0, 0
        self.real_commit = connection.commit

    def commit(self):
        self.commits += 1
        return self.real_commit()

    def __call__(self, execute, sql, params, many, context):
        verb = sql.lstrip("(").split(None, 1)[0].upper()
        self.statements += 1
        if not self.connection.in_atomic_block and verb not in ("SELECT", "BEGIN"):
            self.commits += 1  # autocommitted on its own
        return execute(sql, params, many, context)

    def reset(self):
        self.statements = self.commits = 0


def main():
    server = FeedServer().start()
    try:
        with bench_environment(memcached=True, redis=True):
            profile(server)
    finally:
        server.stop()


def profile(server):
    from celery.app.trace import build_tracer
    from celery.fixups.django import DjangoWorkerFixup
    from django.db import connection

    from djangofeeds.tasks import import_feed
    from project.celery import app

    logging.basicConfig(level=logging.INFO, handlers=[logging.FileHandler(os.devnull)])
    DjangoWorkerFixup(app).install()
    tracer = build_tracer(import_feed.name, import_feed, app=app, hostname="p@here", eager=False)
    counter = Counter(connection)
    connection.commit = counter.commit

    def task(url, ignore_result, expected):
        task_id = str(uuid.uuid4())
        request = {
            "id": task_id,
            "ignore_result": ignore_result,
            "hostname": "p@here",
            "delivery_info": {"routing_key": "feeds", "exchange": ""},
            "argsrepr": repr((url,)),
            "kwargsrepr": "{}",
        }
        cpu = time.process_time()
        outcome = tracer(task_id, (url,), {}, request)
        assert outcome.retval["status"] == expected, outcome.retval
        return outcome.runtime * 1000, (time.process_time() - cpu) * 1000

    def tasks(label, urls, ignore_result, expected, warm=True):
        if warm:
            task(urls[0], ignore_result, expected)
        counter.reset()
        with connection.execute_wrapper(counter):
            measured = [task(url, ignore_result, expected) for url in urls]
        runtimes, cpus = zip(*measured, strict=True)
        print(f"\n{label}: {len(urls)} tasks through the tracer")
        show("runtime (the worker log figure), median", statistics.median(runtimes))
        show("CPU of this process, median", statistics.median(cpus))
        per_task(counter, len(urls))
        return runtimes

    skip(server, tasks)
    not_modified(server, tasks)
    first_imports(server, tasks)
    store(server, counter)


def skip(server, tasks):
    from django.conf import settings

    from djangofeeds.importing.runner import lock_key
    from djangofeeds.locking.locks import CacheLock
    from djangofeeds.tasks import import_feed

    url = server.serve("/contended.xml", feed_document(1))
    key = lock_key(import_feed.name, url)
    holder = CacheLock(key, expire=600, using=settings.DJANGOFEEDS_LOCK_CACHE)
    assert holder.acquire()
    try:
        tasks("A skipped import_feed, its result kept", [url] * TASKS, False, "skipped")
    finally:
        holder.release()


def not_modified(server, tasks):
    from djangofeeds.tasks import import_feed

    urls = [
        server.serve(f"/304/{n}.xml", feed_document(5, prefix=f"e{n}-"), etag=f'"v{n}"')
        for n in range(TASKS)
    ]
    for url in urls:
        import_feed.apply(args=[url]).get()  # the first import, which keeps the ETag
    tasks("A 304, a scheduled import", urls, True, "not_modified")


def first_imports(server, tasks):
    from djangofeeds.models import Feed, ImportRun

    urls = [server.serve(f"/e2e/{n}.xml", feed_document(50, prefix=f"f{n}-")) for n in range(TASKS)]
    tasks("warm", urls[:5], True, "imported", warm=False)
    Feed.objects.all().delete()
    label = "A first import of 50 items, a scheduled import"
    runtimes = tasks(label, urls, True, "imported", warm=False)
    runs = ImportRun.objects.filter(outcome="imported")
    phases = [sum(r) for r in runs.values_list("fetch_ms", "parse_ms", "store_ms")]
    show("ImportRun fetch + parse + store, mean", statistics.fmean(phases))
    show(
        "the rest (runtime less the phases), mean",
        statistics.fmean(runtimes) - statistics.fmean(phases),
    )


def store(server, counter):
    from django.conf import settings
    from django.db import connection

    from djangofeeds.models import Category, Feed, Post
    from djangofeeds.parsing import entries
    from tests.support.importing import import_url

    entries.MAX_ENTRIES = STORE_ITEMS
    settings.DJANGOFEEDS_KEEP_POSTS = STORE_ITEMS
    url = server.serve("/2000.xml", feed_document(STORE_ITEMS))
    stores, walls, statements, commits = [], [], [], []
    for _ in range(ROUNDS + 1):  # the first one warms
        Feed.objects.all().delete()
        Category.objects.all().delete()
        counter.reset()
        began = time.perf_counter()
        with connection.execute_wrapper(counter):
            run = import_url(url).run
        walls.append((time.perf_counter() - began) * 1000)
        assert Post.objects.count() == STORE_ITEMS
        stores.append(run.store_ms)
        statements.append(counter.statements)
        commits.append(counter.commits)
    print(f"\nA first import of {STORE_ITEMS:,} items (fetch_and_store): medians of {ROUNDS}")
    show("store phase (ImportRun.store_ms)", statistics.median(stores[1:]))
    show("whole import", statistics.median(walls[1:]))
    count(statistics.median(statements[1:]), statistics.median(commits[1:]))


def per_task(counter, tasks):
    count(counter.statements / tasks, counter.commits / tasks, "per task")


def count(statements, commits, unit=""):
    print(f"  SQL statements {unit} {statements:.2f}, commits {unit} {commits:.2f}")


def show(label, ms):
    print(f"  {label:<62} {ms:7.2f} ms")


if __name__ == "__main__":
    main()
