"""Where a skipped import_feed task's worker time goes, measured in one process.

Not part of ``make bench``: a developer's tool for bench_contention's "skipped task
in the worker". The feed's lock is held, so every task takes the skip path; each
task runs through Celery's own tracer as a prefork worker runs it (not eager: the
worker's Django fixup, the STARTED state, the result in the django-db backend),
with a request like the benchmark's group sends (a result kept). The runtime is
the worker log's "succeeded in"; its parts are timed in place, with every SQL
statement by kind. Then the same tasks without the STARTED state
(``task_track_started`` off) and with ``ignore_result`` (no state, no result),
the options a skip could run with. Memcached and PostgreSQL as in the benchmark::

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/me_bench \
        .venv/bin/python -m bench.profile_skip
"""

import logging
import os
import statistics
import time
import uuid

from bench.harness import bench_environment
from bench.profile_store import Clock

TASKS = int(os.environ.get("PROFILE_SKIP_TASKS", 200))
VARIANTS = {
    "as configured (STARTED state + result)": {"track_started": True, "ignore_result": False},
    "task_track_started off (result only)": {"track_started": False, "ignore_result": False},
    "ignore_result (no state, no result)": {"track_started": True, "ignore_result": True},
}


def show(label, ms):
    print(f"  {label:<66} {ms:7.2f} ms")


def main():
    with bench_environment(memcached=True, redis=True):
        profile()


def profile():
    from celery.app.trace import build_tracer
    from celery.fixups.django import DjangoWorkerFixup
    from django.conf import settings
    from django.db import connection

    from djangofeeds.importing import runner
    from djangofeeds.importing.runner import lock_key
    from djangofeeds.locking.locks import CacheLock
    from djangofeeds.tasks import import_feed
    from project.celery import app

    logging.basicConfig(level=logging.INFO, handlers=[logging.FileHandler(os.devnull)])
    url = "http://127.0.0.1:9/contended.xml"  # never fetched: its lock is held
    holder = CacheLock(
        lock_key(import_feed.name, url), expire=600, using=settings.DJANGOFEEDS_LOCK_CACHE
    )
    assert holder.acquire()
    DjangoWorkerFixup(app).install()
    tracer = build_tracer(import_feed.name, import_feed, app=app, hostname="p@here", eager=False)
    clock = Clock()
    backend = import_feed.backend
    clock.wrap(backend, "store_result", "backend.store_result (STARTED, and the result)")
    clock.wrap(backend, "mark_as_done", "backend.mark_as_done (its own Python)")
    clock.wrap(runner, "run_import", "run_import (the skip path)")
    configured = import_feed.track_started
    group = str(uuid.uuid4())

    def one(ignore_result):
        task_id = str(uuid.uuid4())
        request = {
            "id": task_id,
            "group": group,
            "ignore_result": ignore_result,
            "hostname": "p@here",
            "delivery_info": {"routing_key": "feeds", "exchange": ""},
            "argsrepr": repr((url,)),
            "kwargsrepr": "{}",
        }
        cpu = time.process_time()
        began = time.perf_counter()
        outcome = tracer(task_id, (url,), {}, request)
        wall = (time.perf_counter() - began) * 1000
        assert outcome.retval["status"] == "skipped", outcome.retval
        return wall, outcome.runtime * 1000, (time.process_time() - cpu) * 1000

    try:
        for label, options in VARIANTS.items():
            import_feed.track_started = options["track_started"]
            one(options["ignore_result"])  # warm
            clock.ms.clear()
            clock.sql.clear()
            measured = []
            with connection.execute_wrapper(clock.execute):
                for _ in range(TASKS):
                    measured.append(one(options["ignore_result"]))
            walls, runtimes, cpus = zip(*measured, strict=True)
            print(f"\n{label}: {TASKS} skipped tasks through the tracer")
            show("runtime (the log figure), median", statistics.median(runtimes))
            show("whole trace incl. postrun and log, median", statistics.median(walls))
            show("CPU of this process per task, median", statistics.median(cpus))
            labelled = 0.0
            for name, total in clock.ms.items():
                labelled += total
                show(f"{name} (mean, exclusive)", total / TASKS)
            show("the rest of the trace (mean)", statistics.fmean(walls) - labelled / TASKS)
            for kind, (count, total) in sorted(clock.sql.items()):
                print(f"    SQL {kind:<60} {count / TASKS:4.1f}x {total / TASKS:6.2f} ms per task")
    finally:
        import_feed.track_started = configured
        holder.release()


if __name__ == "__main__":
    main()
