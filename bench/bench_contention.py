"""Contention: 50 concurrent import_feed tasks for one URL on 2 worker processes x 4.

Real workers (localservers' ``WorkerProcess``) on a private Redis broker and
memcached, PostgreSQL. The feed answers after a delay, so every task arrives
while the first one holds the lock. The feed server counts the fetches; each
task's run time is the worker's own ("Task ... succeeded in Ns"), from its log.
"""

import collections

from bench.harness import (
    Stopwatch,
    bench_environment,
    feed_document,
    median,
    percentile,
    start_workers,
    stop_workers,
    task_times,
)
from bench.report import Report
from localservers.feed_server import FeedServer

TASKS = 50
WORKERS = 2
CONCURRENCY = 4
FEED_DELAY = 3.0  # seconds the server waits before answering: the lock is held that long
# Imports of other feeds first, so that every pool process has run one, as in a
# worker that has been running: a fresh process's first task opens its connections.
WARM_UP_FEEDS = 4 * WORKERS * CONCURRENCY


def skip_path_ms(url, rounds=50):
    """The skip path alone, in this process: lock attempt, ImportRun row; no Celery."""
    from djangofeeds.importing.runner import lock_key, run_import
    from djangofeeds.locking.locks import CacheLock
    from djangofeeds.tasks import import_feed

    holder = CacheLock(lock_key(import_feed.name, url), expire=60)
    if not holder.acquire():
        raise AssertionError("the lock of the contended feed is still held")
    times = []
    try:
        for _ in range(rounds):
            with Stopwatch() as watch:
                result = run_import(url, task_name=import_feed.name)
            if result.outcome != "skipped":
                raise AssertionError(f"expected a skip, got {result.outcome}")
            times.append(watch.ms)
    finally:
        holder.release()
    return times


def celery_burst(server):
    """Celery's own floor for the burst: the same workers, one import holding a process for
    FEED_DELAY (another feed's), and TASKS - 1 no-op tasks (``add``, results kept) at once."""
    from celery import group

    from djangofeeds.tasks import import_feed
    from project.tasks import add

    slow = server.serve("/slow.xml", feed_document(50), delay=FEED_DELAY)
    tasks = [import_feed.s(slow)] + [add.s(n, n).set(queue="feeds") for n in range(TASKS - 1)]
    group(tasks).apply_async().get(timeout=120)


def main():
    report = Report("contention", "Contention")
    server = FeedServer(hosts=1 + WARM_UP_FEEDS).start()  # a host each: no politeness wait
    try:
        with bench_environment(memcached=True, redis=True):
            from celery import group

            from djangofeeds.tasks import import_feed

            url = server.serve("/contended.xml", feed_document(50), delay=FEED_DELAY)
            warm = [
                server.serve(f"/w/{n}.xml", feed_document(5), host=server.host(1 + n))
                for n in range(WARM_UP_FEEDS)
            ]
            workers = start_workers(WORKERS, queues=["feeds"], concurrency=CONCURRENCY)
            try:
                group(import_feed.s(u) for u in warm).apply_async().get(timeout=120)
                results = group(import_feed.s(url) for _ in range(TASKS)).apply_async()
                statuses = collections.Counter(r["status"] for r in results.get(timeout=120))
                celery_burst(server)
            finally:
                stop_workers(workers)
            times = task_times(workers, "djangofeeds.tasks.import_feed", url=url)
            floor = task_times(workers, "project.tasks.add")["?"]
            alone = skip_path_ms(url)
            hosts = {worker.hostname for worker in workers}
    finally:
        server.stop()

    fetches = server.hits("/contended.xml")
    skipped = times.get("skipped", [])
    imported = times.get("imported", [])
    if len(skipped) + len(imported) != TASKS:
        raise AssertionError(f"found {dict(times)} task times in the logs for {TASKS} tasks")
    if len(floor) != TASKS - 1:
        raise AssertionError(f"found {len(floor)} no-op task times for {TASKS - 1}")
    skip_median, skip_p99 = median(skipped), percentile(skipped, 99)
    report.raw |= {
        "tasks": TASKS,
        "workers": WORKERS,
        "concurrency": CONCURRENCY,
        "feed_delay_s": FEED_DELAY,
        "fetches": fetches,
        "statuses": dict(statuses),
        "task_ms": dict(times),
        "skip_path_ms": alone,
        "noop_burst_ms": floor,
        "workers_seen": sorted(hosts),
    }
    report.row(
        f"contention: {TASKS} concurrent import_feed of one URL, fetches",
        f"{fetches}",
        f"{TASKS} (one per task, without the lock)",
        f"{fetches}/{TASKS}",
        "exactly 1",
        fetches == 1,
    )
    report.row(
        "contention: skipped task in the worker, median / p99",
        f"{skip_median:.1f} / {skip_p99:.1f} ms",
        f"{median(imported):.0f} ms (the import)",
        f"{skip_median / median(imported):.3f}x",
        "median < 10 ms",
        skip_median < 10,
    )
    report.row(
        "contention: skip path alone (lock attempt + ImportRun row), median / p99",
        f"{median(alone):.1f} / {percentile(alone, 99):.1f} ms",
    )
    report.row(
        f"contention: Celery's floor, {TASKS - 1} no-op tasks (results kept) in the same burst, "
        "median / p99",
        f"{median(floor):.1f} / {percentile(floor, 99):.1f} ms",
        f"{skip_median:.1f} ms (a skip's median)",
        f"a skip: {skip_median / median(floor):.2f}x",
    )
    report.note(
        f"{WORKERS} worker processes x {CONCURRENCY} (prefork), Redis broker, memcached "
        f"locks, PostgreSQL; the feed answered after {FEED_DELAY:.0f} s. Outcomes: "
        + ", ".join(f"{count} {status}" for status, count in sorted(statuses.items()))
        + f". Before the burst the workers imported {WARM_UP_FEEDS} other feeds (each on a "
        "host of its own), as a running worker has: a fresh pool process's first task "
        "opens its connections. A skipped task's time is the worker's own (\"succeeded "
        'in"): the lock attempt, its ImportRun row (one INSERT ... SELECT by URL) and its '
        "result (one upsert into the database's result table, project/results.py; a skip "
        "writes no STARTED state); the skip path alone is timed in the bench process "
        "against the same memcached and database."
    )
    report.note(
        f"Celery's floor: after the skips, the same workers ran {TASKS - 1} of Celery's no-op "
        "task (project.tasks.add, on the feeds queue, each result written by the same "
        "backend) at once, beside one import of another slow feed holding a process: "
        f"median {median(floor):.1f} ms. No task of this burst, whatever it does, is "
        "faster than that; a skip adds its lock attempt and its ImportRun row."
    )
    if skip_median >= 10:
        report.note(
            f"Why not < 10 ms: the skip path itself takes {median(alone):.1f} ms, and a skip "
            "with its result about 2 ms of a process (bench/profile_skip.py). In the run, "
            f"{TASKS - 1} skips arrive at once on {WORKERS * CONCURRENCY} pool processes and "
            f"their {WORKERS} parents sharing 2 cores with PostgreSQL and memcached: after "
            "each blocking call (memcached, the run's INSERT, the result) a skip waits in the "
            "run queue behind the others, several times its own work "
            f"(p99 {skip_p99:.0f} ms). Celery's own no-op task took {median(floor):.1f} ms "
            f"(median) in the same burst: the skip is {skip_median / median(floor):.1f}x "
            "Celery's floor here. See docs/dev/performance.md for the split."
        )
    report.save()


if __name__ == "__main__":
    main()
