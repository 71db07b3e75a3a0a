"""Where a scheduled batch of 304 imports spends its CPU, in one process.

Not part of ``make bench``: a developer's tool for bench_scale's "worker CPU of one
import answered 304 (10 per message)". ``PROFILE_BATCH_FEEDS`` feeds (1,000 by
default) answering 304 (``bench/scale_server.py``) on PostgreSQL and memcached, run
as ``import_feed_batch`` messages of ``DJANGOFEEDS_FEEDS_PER_MESSAGE`` feeds through
Celery's own tracer, as a prefork pool process runs them. Prints the process's CPU
per feed, the round trips per feed, and with ``PROFILE_BATCH_CPROFILE=1`` the
functions that took the most CPU::

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/me_bench \\
        .venv/bin/python -m bench.profile_batch
"""

import os
import time

from bench import profile_304

FEEDS = int(os.environ.get("PROFILE_BATCH_FEEDS", 1000))
ROUNDS = int(os.environ.get("PROFILE_BATCH_ROUNDS", 3))


def main():
    profile_304.main(profile_with=profile)


def profile(server):
    from celery.app.trace import build_tracer
    from celery.fixups.django import DjangoWorkerFixup
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from djangofeeds import conf
    from djangofeeds.importing.claims import claim_feeds
    from djangofeeds.models import Feed
    from djangofeeds.tasks import import_feed_batch
    from project.celery import app

    per_message = max(conf.DJANGOFEEDS_FEEDS_PER_MESSAGE, 10)
    urls = profile_304.feeds_answering_304(server, FEEDS)
    DjangoWorkerFixup(app).install()  # the worker's prerun/postrun connection handling
    name = import_feed_batch.name
    tracer = build_tracer(name, import_feed_batch, app=app, hostname="profile@here", eager=False)

    def claim_all():
        Feed.objects.update(claimed_at=None, next_check_at=timezone.now())
        return claim_feeds(Feed.objects.all())[0]

    def one_round():
        claim = claim_all()
        for start in range(0, FEEDS, per_message):
            task_id, request = profile_304.scheduled_request()
            kwargs = {"claim": claim, "refresh_run": None}
            tracer(task_id, (urls[start : start + per_message],), kwargs, request)

    for round_ in range(ROUNDS):
        cpu, wall = time.process_time(), time.perf_counter()
        if round_ == ROUNDS - 1 and os.environ.get("PROFILE_BATCH_CPROFILE"):
            import cProfile
            import pstats

            profiler = cProfile.Profile(time.process_time)  # CPU, not waits
            profiler.runcall(one_round)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(45)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)
        else:
            one_round()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(
            f"round {round_}: {cpu / FEEDS * 1000:.2f} ms CPU, {wall / FEEDS * 1000:.2f} ms wall "
            f"per feed ({per_message} per message)",
            flush=True,
        )
    claim = claim_all()
    with CaptureQueriesContext(connection) as queries:
        tracer("x", (urls[:per_message],), {"claim": claim}, {"id": "x", "ignore_result": True})
    print(f"queries of one batch of {per_message}: {len(queries)}")
    for query in queries.captured_queries[:8]:
        print("   ", query["sql"][:120])
    assert Feed.objects.filter(last_status="not_modified").count() == FEEDS


if __name__ == "__main__":
    main()
