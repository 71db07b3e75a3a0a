"""Politeness: 200 feeds on one host through 16 worker processes, at most 2 fetches there at once.

Real workers (localservers' ``WorkerProcess``: 4 workers x 4 prefork processes)
on a private Redis broker and memcached, PostgreSQL. Every feed lives on one
host, a local server that answers each request after 200 ms and counts the
requests it is answering at once (``localservers.polite_server``). The feeds
are queued the way "Import now" does (claims, one ``import_feed`` each); a feed
whose host is busy is requeued with a countdown. Measured at the server: the
peak of concurrent requests, and each feed's fetches; in this process: the
time from queueing to the last result.

Smaller runs: ``BENCH_POLITENESS_FEEDS``, ``BENCH_POLITENESS_WORKERS``,
``BENCH_POLITENESS_CONCURRENCY`` (e.g. 40, 2, 2).
"""

import os
import re
import time

from bench.harness import bench_environment, start_workers, stop_workers
from bench.report import Report, ratio
from localservers.polite_server import CountingServer

FEEDS = int(os.environ.get("BENCH_POLITENESS_FEEDS", 200))
WORKERS = int(os.environ.get("BENCH_POLITENESS_WORKERS", 4))
CONCURRENCY = int(os.environ.get("BENCH_POLITENESS_CONCURRENCY", 4))
DELAY = 0.2  # seconds the host takes to answer each request
HOST = "127.0.0.1"


def main():
    report = Report("politeness", "Politeness")
    server = CountingServer(delay=DELAY).start()
    try:
        with bench_environment(memcached=True, redis=True):
            from djangofeeds import conf
            from djangofeeds.importing.dispatch import enqueue_imports

            limit = conf.DJANGOFEEDS_MAX_PER_HOST
            urls = [server.url(f"/feed/{n}.xml", host=HOST) for n in range(FEEDS)]
            workers = start_workers(WORKERS, queues=["feeds"], concurrency=CONCURRENCY)
            try:
                started = time.monotonic()
                queued, _ = enqueue_imports(urls)
                results = [result.get(timeout=60 + FEEDS * DELAY * 4) for _, result in queued]
                seconds = time.monotonic() - started
            finally:
                stop_workers(workers)
    finally:
        server.stop()

    peak = server.peak[HOST]
    once = sum(1 for n in range(FEEDS) if server.hits[f"/feed/{n}.xml"] == 1)
    imported = sum(1 for result in results if result["status"] == "imported")
    waits = sum(len(re.findall(r"Feed \S+: waits [\d.]+s", w.output)) for w in workers)
    ideal = FEEDS * DELAY / limit
    processes = WORKERS * CONCURRENCY
    report.raw |= {
        "feeds": FEEDS,
        "workers": WORKERS,
        "concurrency": CONCURRENCY,
        "delay_s": DELAY,
        "max_per_host": limit,
        "peak": peak,
        "fetched_once": once,
        "requests": sum(server.hits.values()),
        "imported": imported,
        "seconds": seconds,
        "requeues": waits,
    }
    report.row(
        f"politeness: peak concurrent fetches at one host, {FEEDS} feeds, {processes} processes",
        f"{peak}",
        f"{min(processes, FEEDS)} (one per process, without the limit)",
        f"{peak}/{limit}",
        f"<= {limit} (DJANGOFEEDS_MAX_PER_HOST)",
        peak <= limit,
    )
    report.row(
        "politeness: feeds fetched exactly once, imported",
        f"{once}/{FEEDS}, {imported}/{FEEDS}",
        goal="all",
        met=once == FEEDS and imported == FEEDS,
    )
    report.row(
        "politeness: time from queueing to the last import",
        f"{seconds:.1f} s",
        f"{ideal:.1f} s (feeds x {DELAY:g} s / {limit})",
        ratio(seconds, ideal),
    )
    report.note(
        f"{WORKERS} workers x {CONCURRENCY} prefork processes, Redis broker, memcached slots "
        f"and locks, PostgreSQL; every feed on one host answering after {DELAY:g} s. "
        f"{waits} requeues: a feed that finds its host's {limit} slots taken is sent again "
        "with a countdown (0.5 s doubling to 10 s, jittered) instead of waiting in its "
        "process. The baseline time is the host's own pace: no schedule can be faster "
        "at this limit; the rest is the requeues' countdowns and the imports' own work."
    )
    report.save()


if __name__ == "__main__":
    main()
