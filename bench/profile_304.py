"""Where a scheduled 304 import's worker time goes, measured in one process.

Not part of ``make bench``: a developer's tool for bench_scale's "worker time of one
import answered 304". ``PROFILE_304_FEEDS`` feeds (300 by default) answering 304
(``bench/scale_server.py``) on PostgreSQL and memcached, each step timed alone in a
loop, then the whole task through Celery's own tracer as a prefork worker runs it
(not eager: the task_prerun/postrun handlers run), scheduled (ignore_result). With
``PROFILE_304_PYINSTRUMENT=1`` the traced loop is also profiled with pyinstrument::

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/me_bench \
        .venv/bin/python -m bench.profile_304
"""

import logging
import os
import statistics
import time
import uuid

from bench.bench_scale import ScaleServer
from bench.harness import bench_environment

FEEDS = int(os.environ.get("PROFILE_304_FEEDS", 300))


def timed(label, count, step, results):
    """Run ``step(n)`` for n in range(count); record the median and mean milliseconds."""
    times = []
    cpu_began = time.process_time()
    for n in range(count):
        began = time.perf_counter()
        step(n)
        times.append((time.perf_counter() - began) * 1000)
    cpu = (time.process_time() - cpu_began) * 1000 / count
    results[label] = (statistics.median(times), statistics.fmean(times), cpu)
    print(
        f"{label:<50} {results[label][0]:6.2f} ms median {results[label][1]:6.2f} ms mean "
        f"{cpu:6.2f} ms CPU",
        flush=True,
    )


def main(profile_with=None):
    """Run ``profile_with(server)`` (this module's ``profile`` by default) against a
    server answering 304, on the bench's own PostgreSQL, memcached and Redis."""
    server = ScaleServer().start()
    try:
        with bench_environment(memcached=True, redis=True):
            (profile_with or profile)(server)
    finally:
        server.stop()


def scheduled_request():
    """A new task id and the request of a scheduled import as a feeds worker receives it."""
    task_id = str(uuid.uuid4())
    request = {
        "id": task_id,
        "ignore_result": True,
        "hostname": "profile@here",
        "delivery_info": {"routing_key": "feeds"},
    }
    return task_id, request


def feeds_answering_304(server, count):
    """``count`` feeds of ``server`` answering 304, due now; their URLs. Logging as a worker
    at --loglevel INFO has it (its lines go nowhere here)."""
    from django.utils import timezone

    from djangofeeds.models import Feed

    logging.basicConfig(level=logging.INFO, handlers=[logging.FileHandler(os.devnull)])
    urls = [server.url("304", n) for n in range(count)]
    Feed.objects.bulk_create(
        [Feed(url=url, etag='"v1"', next_check_at=timezone.now()) for url in urls]
    )
    return urls


def profile(server):
    from celery.app.trace import build_tracer
    from celery.fixups.django import DjangoWorkerFixup
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from djangofeeds.fetching.http import fetch
    from djangofeeds.importing.claims import claim_feeds
    from djangofeeds.importing.importer import Importer
    from djangofeeds.importing.records import ImportOrigin, finish_run, start_run
    from djangofeeds.importing.runner import lock_key, run_import
    from djangofeeds.locking.fence import next_fence
    from djangofeeds.locking.locks import CacheLock
    from djangofeeds.models import Feed, Outcome
    from djangofeeds.tasks import import_feed
    from project.celery import app

    urls = feeds_answering_304(server, FEEDS)
    feeds = {feed.url: feed for feed in Feed.objects.all()}
    results = {}
    name = import_feed.name

    def claim_all():
        Feed.objects.update(claimed_at=None, next_check_at=timezone.now())
        return claim_feeds(Feed.objects.all())[0]

    def lock_cycle(n):
        lock = CacheLock(lock_key(name, urls[n]), expire=600, using=settings.DJANGOFEEDS_LOCK_CACHE)
        lock.acquire()
        lock.release()

    def keep_alive(n):
        lock = CacheLock(lock_key(name, urls[n]), expire=600, using=settings.DJANGOFEEDS_LOCK_CACHE)
        lock.acquire()
        with lock.keep_alive():
            pass
        lock.release()

    timed("lock acquire + release (memcached meta)", FEEDS, lock_cycle, results)
    timed("lock acquire + keep_alive enter/exit + release", FEEDS, keep_alive, results)
    timed(
        "next_fence (UPDATE ... RETURNING)",
        FEEDS,
        lambda n: next_fence(urls[n]),
        results,
    )
    timed("fetch (httpx, answered 304)", FEEDS, lambda n: fetch(urls[n], etag='"v1"'), results)

    def save_feed(n):
        feed = feeds[urls[n]]
        importer = Importer(feed, start_run(feed), None, None)
        importer.write(claimed_at=None, last_checked_at=importer.now, last_status="not_modified")

    timed("feed UPDATE (Importer.write)", FEEDS, save_feed, results)
    timed(
        "ImportRun INSERT (finish_run)",
        FEEDS,
        lambda n: finish_run(
            feeds[urls[n]],
            start_run(feeds[urls[n]], ImportOrigin(task_id="x", worker="w")),
            Outcome.NOT_MODIFIED,
        ),
        results,
    )
    timed(
        "close_old_connections",
        FEEDS,
        lambda n: __import__("django.db").db.close_old_connections(),
        results,
    )

    claim = claim_all()
    with CaptureQueriesContext(connection) as queries:
        run_import(urls[0], task_name=name, claim=claim)
    print(f"queries of one scheduled 304 run_import: {len(queries)}")
    for query in queries.captured_queries:
        print("   ", query["sql"][:110])

    claim = claim_all()
    timed(
        "run_import (lock, fence, import, release)",
        FEEDS,
        lambda n: run_import(urls[n], task_name=name, claim=claim),
        results,
    )

    DjangoWorkerFixup(app).install()  # the worker's prerun/postrun connection handling
    tracer = build_tracer(name, import_feed, app=app, hostname="profile@here", eager=False)
    runtimes = []

    def traced(n):
        task_id, request = scheduled_request()
        outcome = tracer(task_id, (urls[n],), {"claim": claim, "refresh_run": None}, request)
        runtimes.append(outcome.runtime * 1000)

    for round_ in range(2):
        claim = claim_all()
        if round_ and os.environ.get("PROFILE_304_PYINSTRUMENT"):
            from pyinstrument import Profiler

            with Profiler(interval=0.0005) as profiler:
                timed("whole task through Celery's tracer (+ postrun)", FEEDS, traced, results)
            print(profiler.output_text(unicode=True, color=False, show_all=False))
        else:
            runtimes.clear()
            timed("whole task through Celery's tracer (+ postrun)", FEEDS, traced, results)
    print(
        f"{'  of which Celery runtime (the worker log figure)':<58} "
        f"{statistics.median(runtimes):7.2f} ms median"
    )
    assert Feed.objects.filter(last_status="not_modified").count() == FEEDS


if __name__ == "__main__":
    main()
