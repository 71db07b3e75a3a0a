"""Where a scheduled import task's time goes outside fetch, parse and store, in one process.

Not part of ``make bench``: a developer's tool for bench_end_to_end's "rest of the
task" (the worker's time less the ImportRun's fetch, parse and store). Feeds of 50
items on the tests' feed server, PostgreSQL, memcached locks, claimed as the
scheduler claims them; each first import runs through Celery's own tracer as a
prefork worker runs it (the worker's Django fixup, ``ignore_result`` as the
scheduler sends it), every step timed in place (exclusive times: a step's own,
its inner steps apart) with its SQL statements by kind; ``PROFILE_TASK_CPROFILE=30``
adds a round under cProfile (CPU time) and prints its 30 costliest functions
(``PROFILE_TASK_DUMP=<file>`` also keeps the profile for ``pstats``)::

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/me_bench \
        .venv/bin/python -m bench.profile_import_task
"""

import cProfile
import logging
import os
import pstats
import statistics
import time
import uuid

from bench.harness import bench_environment, feed_document
from bench.profile_store import Clock
from localservers.feed_server import FeedServer

FEEDS = int(os.environ.get("PROFILE_TASK_FEEDS", 200))
CPROFILE = int(os.environ.get("PROFILE_TASK_CPROFILE", 0))  # how many functions to print
ITEMS = 50
PHASES = {"fetch_ms", "parse_ms", "store_ms"}


def main():
    server = FeedServer().start()
    try:
        with bench_environment(memcached=True, redis=True):
            profile(server)
    finally:
        server.stop()


def instrument(clock):
    from django.db.backends.base.base import BaseDatabaseWrapper

    from djangofeeds.importing import importer, records, runner, storage
    from djangofeeds.locking import hosts, locks
    from djangofeeds.push import subscriber

    wrap = clock.wrap
    wrap(runner, "import_under_lock", "import_under_lock (its own Python)")
    wrap(locks.CacheLock, "acquire", "feed lock: acquire (memcached)")
    wrap(locks.CacheLock, "release", "locks: release, feed and host slot (memcached)")
    wrap(runner, "next_fence", "next_fence (UPDATE ... RETURNING)")
    wrap(locks.CacheSemaphore, "acquire", "host slot: take (memcached)")
    wrap(hosts, "deferred_until", "deferred_until (memcached get)")
    wrap(hosts, "heed", "heed (Retry-After)")
    wrap(subscriber, "after_poll", "subscriber.after_poll")
    wrap(importer, "start_run", "new_run (ImportRun object)")
    wrap(importer, "fetch", "fetch")
    wrap(importer, "parse", "parse")
    wrap(storage.PostStore, "store", "store: store_posts")
    wrap(storage.PostStore, "prune", "store: prune")
    wrap(importer, "save_fetched", "store: save_feed")
    wrap(importer, "finish_run", "finish (ImportRun INSERT, feed state)")
    wrap(importer.Importer, "imported", "imported (posts_stored on commit)")
    wrap(importer.Importer, "execute", "Importer.execute (its own Python)")
    wrap(BaseDatabaseWrapper, "commit", "COMMIT")
    wrap(records, "reply", "reply + describe")
    wrap(records, "describe", "reply + describe")


def profile(server):
    from celery.app.trace import build_tracer
    from celery.fixups.django import DjangoWorkerFixup
    from django.db import connection
    from django.utils import timezone

    from djangofeeds.importing.claims import claim_feeds
    from djangofeeds.models import Feed, ImportRun
    from djangofeeds.tasks import import_feed
    from project.celery import app

    logging.basicConfig(level=logging.INFO, handlers=[logging.FileHandler(os.devnull)])
    urls = [
        server.serve(f"/e2e/{n}.xml", feed_document(ITEMS, prefix=f"f{n}-")) for n in range(FEEDS)
    ]
    DjangoWorkerFixup(app).install()
    tracer = build_tracer(import_feed.name, import_feed, app=app, hostname="p@here", eager=False)
    clock = Clock()
    instrument(clock)

    def one_round():
        Feed.objects.all().delete()
        Feed.objects.bulk_create([Feed(url=url, next_check_at=timezone.now()) for url in urls])
        claim = claim_feeds(Feed.objects.all())[0]
        clock.ms.clear()
        clock.sql.clear()
        measured = []
        with connection.execute_wrapper(clock.execute):
            for url in urls:
                measured.append(one(url, claim))
        return measured

    def one(url, claim):
        task_id = str(uuid.uuid4())
        request = {
            "id": task_id,
            "ignore_result": True,
            "hostname": "p@here",
            "delivery_info": {"routing_key": "feeds", "exchange": ""},
            "argsrepr": "",
            "kwargsrepr": "",
        }
        cpu = time.process_time()
        began = time.perf_counter()
        outcome = tracer(task_id, (url,), {"claim": claim, "refresh_run": None}, request)
        wall = (time.perf_counter() - began) * 1000
        assert outcome.retval["status"] == "imported", outcome.retval
        return wall, outcome.runtime * 1000, (time.process_time() - cpu) * 1000

    one_round()  # warm: imports, connections, the server's documents
    measured = one_round()
    runs = ImportRun.objects.filter(outcome="imported")
    phases = {name: statistics.fmean(runs.values_list(name, flat=True)) for name in PHASES}
    walls, runtimes, cpus = zip(*measured, strict=True)
    runtime = statistics.fmean(runtimes)
    print(f"\n{FEEDS} first imports of {ITEMS} items through the tracer (means per task)")
    show("runtime (the worker log figure)", runtime)
    show("whole trace incl. postrun and log", statistics.fmean(walls))
    show("CPU of this process", statistics.fmean(cpus))
    show("ImportRun fetch / parse / store", *[phases[n] for n in sorted(PHASES)])
    show('"rest of the task" as bench_end_to_end counts it', runtime - sum(phases.values()))
    labelled = 0.0
    for name, total in sorted(clock.ms.items(), key=lambda item: -item[1]):
        labelled += total
        show(f"  {name}", total / FEEDS)
    show(
        "  the trace outside these (Celery, the fixup, signals)",
        statistics.fmean(walls) - labelled / FEEDS,
    )
    for kind, (count, total) in sorted(clock.sql.items(), key=lambda item: -item[1][1]):
        print(f"    SQL {kind:<72} {count / FEEDS:4.1f}x {total / FEEDS:6.2f} ms")
    # A third round under cProfile (CPU time), after the figures above: its runs and
    # timings would replace the measured round's (the profiler slows every step).
    if CPROFILE:
        profiler = cProfile.Profile(time.process_time)
        profiler.runcall(one_round)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(CPROFILE)
        if os.environ.get("PROFILE_TASK_DUMP"):  # a file for pstats (callers, callees)
            profiler.dump_stats(os.environ["PROFILE_TASK_DUMP"])


def show(label, *values):
    print(f"  {label:<66} " + " / ".join(f"{ms:6.2f}" for ms in values) + " ms")


if __name__ == "__main__":
    main()
