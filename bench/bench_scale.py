"""Scale: refresh rounds of many feeds through real workers, and a scheduling simulation.

``BENCH_SCALE_FEEDS`` feeds (100,000 by default) answering 304 are refreshed by the
scheduler (``refresh_feeds``, called here every 5 seconds as beat sends it) through
real workers: Redis broker, PostgreSQL, memcached locks, a fast local feed server in
a process of its own (``bench/scale_server.py``). Then a mixed population
(``BENCH_SCALE_MIX_FEEDS``, a fifth of that by default: 60% 304, 20% the same bytes
answered 200, 15% 1-3 new items, 5% errors, resets and timeouts), once to warm it
and once measured. Then ``BENCH_SCALE_SIM_FEEDS`` feeds (1,000,000) in a fresh
database: ticks only, no fetch (claim cost, memory, table sizes).

The baseline of each figure is the issue's measurement before the scheduler
(chord per round, memcached markers), quoted, not re-run: the old code is gone.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.request

from bench.harness import (
    ROOT,
    Stopwatch,
    bench_environment,
    cpu_seconds,
    fresh_database,
    median,
    peak_rss_mib,
    start_workers,
    stop_workers,
    task_times,
)
from bench.report import Report
from djangofeeds.schedules import TICK_SECONDS
from localservers.loopback import loopback_hosts
from localservers.services import free_port, wait_for_port

FEEDS = int(os.environ.get("BENCH_SCALE_FEEDS", 100_000))
# Feeds of many publishers, as a real population: DJANGOFEEDS_MAX_PER_HOST limits
# each host, not the whole round. A prime, so that every host gets the mix's kinds.
HOSTS = 251
MIX_FEEDS = int(os.environ.get("BENCH_SCALE_MIX_FEEDS", max(FEEDS // 5, 100)))
SIM_FEEDS = int(os.environ.get("BENCH_SCALE_SIM_FEEDS", 1_000_000))
WORKERS = 2
# 2 x 8 prefork processes on 2 cores, as docs/celery-and-scaling.md advises for worker-feeds:
# processes waiting on a dead feed's fetch use no CPU, so the others keep the cores.
CONCURRENCY = int(os.environ.get("BENCH_SCALE_CONCURRENCY", 8))
TICK_INTERVAL = TICK_SECONDS  # beat's tick (djangofeeds.schedules; migration 0005 set it)
FETCH_TIMEOUT = 2  # seconds: the dead feeds of the mix time out after this
# Scheduled feeds per message (DJANGOFEEDS_FEEDS_PER_MESSAGE, docs/feeds.md "Feeds per
# message"): the setting a site with this many feeds runs with. A second, smaller 304
# round sends one import_feed per feed (the default) for comparison.
PER_MESSAGE = int(os.environ.get("BENCH_SCALE_FEEDS_PER_MESSAGE", 10))
ONE_PER_MESSAGE_FEEDS = min(FEEDS, 20_000)
SIM_TICKS = 20
ROUND_TIMEOUT = 3600
# The mix, by feed number modulo 100.
MIX = [(60, "304"), (80, "same"), (95, "new"), (97, "err"), (98, "reset"), (100, "slow")]
DEAD = {"err", "reset", "slow"}

os.environ["DJANGOFEEDS_FETCH_TIMEOUT"] = str(FETCH_TIMEOUT)
os.environ["DJANGOFEEDS_FEEDS_PER_MESSAGE"] = str(PER_MESSAGE)


class ScaleServer:
    """``bench/scale_server.py`` in a process of its own, on ``HOSTS`` loopback hosts."""

    def __init__(self):
        self.port = free_port()
        self.hosts = loopback_hosts(HOSTS)
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.scale_server", str(self.port), str(HOSTS)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
        )
        wait_for_port("127.0.0.1", self.port)
        return self

    def url(self, kind, n, prefix=""):
        """Feed ``n`` of ``kind``, at ``/<kind>/<prefix><n>.xml`` on host ``n`` modulo ``HOSTS``."""
        return f"http://{self.hosts[n % HOSTS]}:{self.port}/{kind}/{prefix}{n}.xml"

    def call(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as answer:
            return json.loads(answer.read())

    def cpu_seconds(self):
        return cpu_seconds([self.process.pid])

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


def make_due():
    """Every active feed due now (the warm round scheduled them for later)."""
    from django.utils import timezone

    from djangofeeds.models import Feed

    Feed.objects.filter(is_active=True).update(
        next_check_at=timezone.now() - timezone.timedelta(minutes=1)
    )


def kind_of(n):
    return next(kind for limit, kind in MIX if n % 100 < limit)


def add_feeds(urls, etag=""):
    from django.utils import timezone

    from djangofeeds.models import Feed

    due = timezone.now() - timezone.timedelta(minutes=1)
    for start in range(0, len(urls), 10_000):
        Feed.objects.bulk_create(
            [Feed(url=url, etag=etag, next_check_at=due) for url in urls[start : start + 10_000]]
        )


def broker_bytes(redis_url):
    """One tick into an idle broker: bytes per queued message, then undone (queue and claims)."""
    import redis
    from django.utils import timezone

    from djangofeeds.models import Feed, RefreshRun
    from djangofeeds.tasks import refresh_feeds

    client = redis.Redis.from_url(redis_url)
    before = client.info("memory")["used_memory"]
    queued = refresh_feeds.apply().get()["queued"]
    messages = client.lrange("feeds", 0, -1)
    used = client.info("memory")["used_memory"] - before
    payload = sum(len(message) for message in messages)
    client.delete("feeds")
    Feed.objects.filter(claimed_at__isnull=False).update(
        claimed_at=None, next_check_at=timezone.now() - timezone.timedelta(minutes=1)
    )
    RefreshRun.objects.all().delete()
    return {
        "queued": queued,
        "messages": len(messages),
        "payload_bytes_per_message": payload / len(messages),
        "payload_bytes_per_feed": payload / queued,
        "redis_memory_bytes_per_feed": used / queued,
    }


def publish_cost(redis_url, count=1000):
    """Milliseconds per 1,000 scheduled-import messages published alone (no claim, no worker)."""
    import redis

    from djangofeeds.importing.dispatch import send_imports

    feeds = [(0, f"http://publish.example/{n}.xml") for n in range(count)]
    with Stopwatch() as watch:
        send_imports(feeds, "2026-01-01T00:00:00+00:00", scheduled=True, refresh_run=1)
    redis.Redis.from_url(redis_url).delete("feeds")
    return watch.ms * 1000 / count


def celery_floor(workers, redis_url, count=5000):
    """Celery's own cost per message on these workers: ``count`` no-op tasks, sent as the tick
    sends imports (acks_late, no result), drained from the feeds queue. Feeds/s and worker CPU
    per message that no import can beat."""
    import redis

    from project.tasks import add

    client = redis.Redis.from_url(redis_url)
    pids = [pid for worker in workers for pid in worker.processes()]
    cpu_before, began = cpu_seconds(pids), time.monotonic()
    with add.app.producer_or_acquire() as producer:
        for start in range(0, count, 500):
            with producer.batch(max_size=1000):
                for n in range(start, min(start + 500, count)):
                    add.apply_async(
                        (n, n),
                        queue="feeds",
                        producer=producer,
                        ignore_result=True,
                        acks_late=True,
                        argsrepr="",
                        kwargsrepr="",
                    )
    published = time.monotonic() - began
    while client.llen("feeds") or client.hlen("unacked"):
        time.sleep(0.02)
    seconds = time.monotonic() - began
    return {
        "count": count,
        "seconds": seconds,
        "publish_seconds": published,
        "per_second": count / seconds,
        "worker_cpu_ms": (cpu_seconds(pids) - cpu_before) * 1000 / count,
    }


def refresh_round(expected):
    """Tick every TICK_INTERVAL until ``expected`` feeds were checked; return what it took."""
    from django.db.models import Max, Min
    from django.utils import timezone

    from djangofeeds.models import Feed, ImportRun
    from djangofeeds.tasks import refresh_feeds

    started_at = timezone.now()
    began = time.monotonic()
    ticks = []  # (ms, feeds claimed)
    while True:
        tick_began = time.monotonic()
        with Stopwatch() as watch:
            result = refresh_feeds.apply().get()
        if result["queued"]:
            ticks.append((watch.ms, result["queued"]))
        checked = Feed.objects.filter(last_checked_at__gte=started_at).count()
        if checked >= expected and not Feed.objects.filter(claimed_at__isnull=False).exists():
            break
        if time.monotonic() - began > ROUND_TIMEOUT:
            raise RuntimeError(f"round not done after {ROUND_TIMEOUT}s: {checked} of {expected}")
        time.sleep(max(0.0, TICK_INTERVAL - (time.monotonic() - tick_began)))
    runs = ImportRun.objects.filter(started_at__gte=started_at)
    span = runs.aggregate(first=Min("started_at"), last=Max("finished_at"))
    seconds = (span["last"] - started_at).total_seconds()
    print(f"round of {expected} feeds: {seconds:.1f} s, {len(ticks)} ticks", flush=True)
    return {
        "seconds": seconds,
        "first_run_after_s": (span["first"] - started_at).total_seconds(),
        "ticks": ticks,
        "runs": runs.count(),
        "started_at": started_at,
    }


def batch_ms_per_feed(workers):
    """Milliseconds of worker time per feed of each ``import_feed_batch``, from worker logs:
    the batch's time ("succeeded in 0.052s") over the feeds it counted."""
    succeeded = re.compile(
        r"Task djangofeeds\.tasks\.import_feed_batch\[[^\]]+\] "
        r"succeeded in (?P<seconds>[\d.e-]+)s: (?P<counts>\{.*\})"
    )
    times = []
    for worker in workers:
        for match in succeeded.finditer(worker.output):
            feeds = sum(int(n) for n in re.findall(r": (\d+)", match["counts"]))
            if feeds:
                times.append(float(match["seconds"]) * 1000 / feeds)
    return times


def in_process_304(count=1000):
    """CPU per feed of ``run_batch`` over ``count`` of the 304 feeds, in this one process.

    The import as a batch runs it, claimed as a tick claims, without the
    workers' contention for 2 cores (the first batch, which opens the
    connections, is not timed). The fetch threads' CPU is counted.
    """
    from djangofeeds.importing.batch import run_batch
    from djangofeeds.importing.claims import claim_feeds
    from djangofeeds.models import Feed
    from djangofeeds.tasks import import_feed

    picked = Feed.objects.filter(url__contains="/304/").order_by("pk").values("pk")[:count]
    claim, claimed = claim_feeds(Feed.objects.filter(pk__in=picked))
    urls = sorted(url for _, url in claimed)
    per_message = max(PER_MESSAGE, 1)
    batches = [urls[start : start + per_message] for start in range(0, len(urls), per_message)]
    run_batch(batches[0], task_name=import_feed.name, claim=claim)
    began = time.process_time()
    for batch in batches[1:]:
        run_batch(batch, task_name=import_feed.name, claim=claim)
    return (time.process_time() - began) * 1000 / max(len(urls) - len(batches[0]), 1)


def one_per_message_round(workers, server):
    """The first ONE_PER_MESSAGE_FEEDS feeds refreshed again, one ``import_feed`` each."""
    from django.test import override_settings

    from djangofeeds.models import Feed

    keep = Feed.objects.order_by("pk").values_list("pk", flat=True)[ONE_PER_MESSAGE_FEEDS - 1]
    Feed.objects.filter(pk__gt=keep).update(is_active=False)
    make_due()
    pids = [pid for worker in workers for pid in worker.processes()]
    cpu_before = cpu_seconds(pids)
    with override_settings(DJANGOFEEDS_FEEDS_PER_MESSAGE=1):
        measured = refresh_round(ONE_PER_MESSAGE_FEEDS)
    measured["worker_cpu_ms_per_304"] = (
        (cpu_seconds(pids) - cpu_before) * 1000 / ONE_PER_MESSAGE_FEEDS
    )
    measured["fetches"] = server.call("/__stats")
    measured["started_at"] = measured["started_at"].isoformat()
    server.call("/__reset")
    return measured


def healthy_seconds(round_, urls):
    """Seconds from the round's start until the last of ``urls`` was checked."""
    from django.db.models import Max

    from djangofeeds.models import ImportRun

    last = ImportRun.objects.filter(
        started_at__gte=round_["started_at"], feed__url__in=urls
    ).aggregate(last=Max("finished_at"))["last"]
    return (last - round_["started_at"]).total_seconds()


def per_thousand(ticks):
    """Milliseconds per 1,000 feeds claimed, of the ticks that claimed 1,000 or more: a tick
    that claims a few feeds (a round's tail) is its fixed cost, not a cost per feed."""
    return [ms * 1000 / claimed for ms, claimed in ticks if claimed >= 1000]


def worker_time_by_kind(started_at):
    """Seconds of import (ImportRun start to finish) per kind of feed, in one round."""
    from djangofeeds.models import ImportRun

    seconds = dict.fromkeys({kind for _, kind in MIX}, 0.0)
    for url, began, ended in ImportRun.objects.filter(started_at__gte=started_at).values_list(
        "feed__url", "started_at", "finished_at"
    ):
        seconds[url.split("/")[3]] += (ended - began).total_seconds()
    return seconds


def slow_feeds_by_batch(started_at):
    """``(slow feeds, batches holding them)`` in one round: a batch's message is its task id."""
    from djangofeeds.models import ImportRun

    tasks = ImportRun.objects.filter(started_at__gte=started_at, feed__url__contains="/slow/")
    return tasks.count(), tasks.values("task_id").distinct().count()


def simulate(feeds):
    """A fresh database of ``feeds`` feeds: claim cost, backpressure count, sizes. No fetch."""
    from django.conf import settings
    from django.db import connection
    from django.utils import timezone

    from djangofeeds.importing.claims import claim_feeds, unfinished_claims
    from djangofeeds.models import Feed

    fresh_database()
    values, params = [], []
    for field in Feed._meta.concrete_fields:
        if field.primary_key:
            continue
        if field.name == "url":
            values.append("'http://sim.example/' || g || '.xml'")
        elif field.name == "next_check_at":
            values.append("now() - (g %% 3600) * interval '1 second'")
        elif field.name == "created_at":
            values.append("now()")
        else:
            values.append("%s")
            params.append(field.get_db_prep_save(field.get_default(), connection))
    columns = ", ".join(
        connection.ops.quote_name(f.column) for f in Feed._meta.concrete_fields if not f.primary_key
    )
    with Stopwatch() as insert, connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {Feed._meta.db_table} ({columns}) "
            f"SELECT {', '.join(values)} FROM generate_series(1, %s) AS g",
            [*params, feeds],
        )
        cursor.execute(f"ANALYZE {Feed._meta.db_table}")
    batch = settings.DJANGOFEEDS_TICK_BATCH
    claims, counts = [], []
    outstanding = []
    for _ in range(SIM_TICKS):
        with Stopwatch() as count:
            unfinished_claims()
        counts.append(count.ms)
        with Stopwatch() as watch:
            _, claimed = claim_feeds(Feed.objects.due(), limit=batch)
        if claimed:  # a small simulation runs out of due feeds
            claims.append(watch.ms * 1000 / len(claimed))
        outstanding.append([pk for pk, _ in claimed])
        # The imports finish: the oldest claims are cleared, as an import clears its own.
        if len(outstanding) * batch > settings.DJANGOFEEDS_QUEUE_DEPTH:
            Feed.objects.filter(pk__in=outstanding.pop(0)).update(
                claimed_at=None, next_check_at=timezone.now() + timezone.timedelta(hours=1)
            )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_total_relation_size(%s), pg_relation_size(%s), pg_indexes_size(%s)",
            [Feed._meta.db_table] * 3,
        )
        total, table, indexes = cursor.fetchone()
    return {
        "feeds": feeds,
        "insert_s": insert.ms / 1000,
        "batch": batch,
        "claim_ms_per_1000": claims,
        "unfinished_count_ms": counts,
        "feed_table_mib": table / 2**20,
        "feed_indexes_mib": indexes / 2**20,
        "feed_total_mib": total / 2**20,
        "bench_process_peak_rss_mib": peak_rss_mib(os.getpid()),
    }


def table_bytes(model):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size(%s)", [model._meta.db_table])
        return cursor.fetchone()[0]


def main():
    report = Report("scale", "Scale")
    server = ScaleServer().start()
    raw = report.raw
    try:
        with bench_environment(memcached=True, redis=True) as servers:
            from django.conf import settings

            from djangofeeds.models import Feed, ImportRun

            raw |= {
                "feeds": FEEDS,
                "feeds_per_message": PER_MESSAGE,
                "mix_feeds": MIX_FEEDS,
                "sim_feeds": SIM_FEEDS,
                "batch": settings.DJANGOFEEDS_TICK_BATCH,
                "depth": settings.DJANGOFEEDS_QUEUE_DEPTH,
            }
            add_feeds([server.url("304", n) for n in range(FEEDS)], etag='"v1"')
            raw["broker"] = broker_bytes(servers["redis"].url)
            raw["publish_ms_per_1000"] = publish_cost(servers["redis"].url)
            workers = start_workers(WORKERS, queues=["feeds"], concurrency=CONCURRENCY)
            try:
                raw["celery_floor"] = celery_floor(workers, servers["redis"].url)
                pids = [pid for worker in workers for pid in worker.processes()]
                cpu_before, workers_cpu_before = server.cpu_seconds(), cpu_seconds(pids)
                raw["round_304"] = refresh_round(FEEDS)
                raw["server_cpu_s_304"] = server.cpu_seconds() - cpu_before
                raw["worker_cpu_ms_per_304"] = (
                    (cpu_seconds(pids) - workers_cpu_before) * 1000 / FEEDS
                )
                raw["fetches_304"] = server.call("/__stats")
                raw["cpu_ms_per_304_in_process"] = in_process_304()
                server.call("/__reset")
                times_304 = {"not_modified": batch_ms_per_feed(workers)}
                if PER_MESSAGE == 1:
                    times_304 = task_times(workers, "djangofeeds.tasks.import_feed")
                fetch_304 = ImportRun.objects.filter(outcome="not_modified").values_list(
                    "fetch_ms", flat=True
                )
                raw["fetch_ms_304_median"] = median(list(fetch_304))
                raw["importrun_bytes_per_row"] = table_bytes(ImportRun) / ImportRun.objects.count()
                if PER_MESSAGE > 1:
                    raw["round_one_per_message"] = one_per_message_round(workers, server)

                # The mix: its healthy feeds alone first, then with the 5% dead ones.
                Feed.objects.update(is_active=False)
                urls = {n: server.url(kind_of(n), n, prefix="mix") for n in range(MIX_FEEDS)}
                healthy = [url for n, url in urls.items() if kind_of(n) not in DEAD]
                add_feeds(healthy)
                raw["round_mix_warm"] = refresh_round(len(healthy))
                make_due()
                raw["round_healthy"] = refresh_round(len(healthy))
                add_feeds([url for n, url in urls.items() if kind_of(n) in DEAD])
                make_due()
                server.call("/__reset")
                raw["round_mix"] = refresh_round(MIX_FEEDS)
                raw["fetches_mix"] = server.call("/__stats")
                raw["healthy_seconds_in_mix"] = healthy_seconds(raw["round_mix"], healthy)
                raw["mix_worker_s_by_kind"] = worker_time_by_kind(raw["round_mix"]["started_at"])
                raw["mix_slow_feeds_batches"] = slow_feeds_by_batch(raw["round_mix"]["started_at"])
            finally:
                stop_workers(workers)
            raw["sim"] = simulate(SIM_FEEDS)
    finally:
        server.stop()

    for name in ("round_304", "round_mix_warm", "round_healthy", "round_mix"):
        raw[name]["started_at"] = raw[name]["started_at"].isoformat()
    write(report, raw, times_304)
    report.save()


def write(report, raw, times_304):
    broker = raw["broker"]
    report.row(
        "scale: broker bytes per queued feed (Redis)",
        f"{broker['payload_bytes_per_feed']:.0f} B of message, "
        f"{broker['redis_memory_bytes_per_feed']:.0f} B of Redis memory "
        f"({raw['feeds_per_message']} feeds per message of "
        f"{broker['payload_bytes_per_message']:.0f} B)",
        "59 KB at 10,000 feeds, 690 KB at 100,000 (chord)",
        goal="<= 2 KB",
        met=broker["redis_memory_bytes_per_feed"] <= 2048,
    )
    ticks = per_thousand(raw["round_304"]["ticks"] + raw["round_mix"]["ticks"])
    claim_ms = median(raw["sim"]["claim_ms_per_1000"])
    report.row(
        f"scale: tick time per 1,000 feeds claimed (batch {raw['batch']}, ticks of 1,000+)",
        f"{median(ticks):.0f} ms median, {max(ticks):.0f} ms max, {len(ticks)} ticks",
        "7.3 s (73 s for 10,000)",
        goal="< 1 s (median)",
        met=median(ticks) < 1000,
    )
    round_304 = raw["round_304"]
    fetches = raw["fetches_304"]
    rate = FEEDS / round_304["seconds"]
    once = fetches["fetches"] == FEEDS and fetches["fetched_more_than_once"] == 0
    report.row(
        f"scale: round of {FEEDS:,} feeds answering 304, fetches per feed",
        f"{fetches['fetches'] / FEEDS:.3f} ({fetches['fetched_more_than_once']} feeds twice)",
        "duplicates (marker expiry, races)",
        goal="exactly 1",
        met=once,
    )
    # SPEC §7: both goals are ratios to Celery's own no-op floor, measured in this run.
    floor = raw["celery_floor"]
    per_message = raw["feeds_per_message"]
    report.row(
        f"scale: round of {FEEDS:,} feeds answering 304, {per_message} per message, feeds/s",
        f"{rate:.0f} feeds/s ({round_304['seconds']:.0f} s)",
        f"{floor['per_second']:.0f} no-op tasks/s (same workers)",
        f"{rate / floor['per_second']:.0%}",
        ">= 50% of the no-op rate",
        rate >= 0.5 * floor["per_second"],
    )
    task_304 = median(times_304.get("not_modified", [0]))
    cpu_ratio = raw["worker_cpu_ms_per_304"] / floor["worker_cpu_ms"]
    report.row(
        f"scale: worker CPU of one import answered 304 ({per_message} per message) vs a no-op "
        "message",
        f"{raw['worker_cpu_ms_per_304']:.1f} ms per feed (pool processes and their parent); "
        f"task time {task_304:.1f} ms median per feed (fetch {raw['fetch_ms_304_median']:.1f} "
        "ms)",
        f"{floor['worker_cpu_ms']:.2f} ms per no-op message",
        f"{cpu_ratio:.1f}x",
        "<= 2x",
        cpu_ratio <= 2,
    )
    single = raw.get("round_one_per_message")
    if single:
        single_feeds = single["runs"]
        single_rate = single_feeds / single["seconds"]
        report.row(
            f"scale: the same 304s one message per feed (the default), {single_feeds:,} feeds",
            f"{single_rate:.0f} feeds/s, {single['worker_cpu_ms_per_304']:.1f} ms of worker CPU "
            f"per feed; fetches per feed {single['fetches']['fetches'] / single_feeds:.3f}",
            f"{rate:.0f} feeds/s, {raw['worker_cpu_ms_per_304']:.1f} ms at {per_message} per "
            "message",
            f"{single_rate / rate:.2f}x",
            goal="measure",
        )
    mix = raw["round_mix"]
    mix_rate = MIX_FEEDS / mix["seconds"]
    by_kind = raw["mix_worker_s_by_kind"]
    dead_share = sum(by_kind[kind] for kind in DEAD) / max(sum(by_kind.values()), 1e-9)
    slow_feeds, slow_batches = raw["mix_slow_feeds_batches"]
    report.row(
        f"scale: mix of {MIX_FEEDS:,} (60% 304, 20% same 200, 15% new, 5% dead), feeds/s",
        f"{mix_rate:.0f} feeds/s ({mix['seconds']:.0f} s), "
        f"fetches per feed {raw['fetches_mix']['fetches'] / MIX_FEEDS:.3f}",
        "-",
        goal=">= 100 feeds/s",
        met=mix_rate >= 100,
    )
    # The healthy feeds' throughput with the dead ones among them, against the same
    # healthy feeds refreshed alone, in this run.
    healthy_alone = raw["round_healthy"]["seconds"]
    healthy_in_mix = raw["healthy_seconds_in_mix"]
    drop = 1 - healthy_alone / healthy_in_mix
    report.row(
        "scale: healthy feeds' throughput lost to the 5% dead feeds",
        f"{drop:.0%} (healthy feeds done in {healthy_in_mix:.1f} s among the dead ones)",
        f"{healthy_alone:.1f} s alone",
        f"{healthy_alone / healthy_in_mix:.2f}x",
        "< 10%",
        drop < 0.10,
    )
    report.row(
        "scale: Celery's own floor on these workers, no-op tasks sent as imports are",
        f"{floor['per_second']:.0f} tasks/s, worker CPU {floor['worker_cpu_ms']:.2f} ms per "
        "message",
        goal="measure",
    )
    sim = raw["sim"]
    report.row(
        f"scale: simulation, {sim['feeds']:,} feeds, claim of {sim['batch']} per tick",
        f"{median(sim['claim_ms_per_1000']):.0f} ms per 1,000 median "
        f"({max(sim['claim_ms_per_1000']):.0f} max); backpressure count "
        f"{median(sim['unfinished_count_ms']):.1f} ms",
        goal="measure",
    )
    report.row(
        f"scale: simulation, {sim['feeds']:,} feeds, sizes and memory",
        f"feed table {sim['feed_table_mib']:.0f} MiB + indexes {sim['feed_indexes_mib']:.0f} "
        f"MiB; ImportRun {raw['importrun_bytes_per_row']:.0f} B per import; bench process "
        f"{sim['bench_process_peak_rss_mib']:.0f} MiB",
        goal="measure",
    )
    processes = WORKERS * CONCURRENCY
    report.note(
        f"{WORKERS} workers x {CONCURRENCY} prefork processes on 2 cores ({os.cpu_count()} "
        f"here), Redis, PostgreSQL, memcached locks; the tick runs in the bench process every "
        f"{TICK_INTERVAL} s as beat sends it, claiming up to {raw['batch']} feeds while fewer "
        f"than {raw['depth']} are unfinished. The feed server is a separate asyncio process: "
        f"it used {raw['server_cpu_s_304']:.0f} s of CPU in the {round_304['seconds']:.0f} s "
        "304 round, so it was not the bottleneck. Baselines are the issue's figures for the "
        "old chord scheduler, quoted (the old code is gone). Load average at the end: "
        + " ".join(f"{load:.2f}" for load in os.getloadavg())
    )
    if median(ticks) >= 1000:
        report.note(
            f"Why not < 1 s per 1,000 claimed: the claim itself costs {claim_ms:.0f} ms per "
            f"1,000 (the simulation); publishing costs {raw['publish_ms_per_1000']:.0f} ms per "
            "1,000 messages measured alone against the idle broker (Celery builds each message: "
            "routing, headers, JSON; kombu sends them in pipelines of 500), and more while "
            "the tick shares the 2 cores with the workers it feeds. The tick in the rounds: "
            f"{median(ticks):.0f} ms per 1,000 median."
        )
    busy = task_304 * FEEDS / 1000 / processes
    per_message_note = (
        f"At {per_message} feeds per message Celery's work per message is paid once for "
        f"{per_message} feeds (one per message: see the row above). "
        if per_message > 1
        else ""
    )
    if rate < 0.5 * floor["per_second"]:
        report.note(
            f"Why not 50% of the no-op rate ({0.5 * floor['per_second']:.0f} feeds/s) answering "
            f"304: {per_message_note}A 304 import takes {task_304:.1f} ms of a worker "
            f"process (median; the fetch alone {raw['fetch_ms_304_median']:.1f} ms), so "
            f"{processes} processes need at least {busy:.0f} s for {FEEDS:,} feeds, "
            f"{busy / round_304['seconds']:.0%} of the round: the processes are busy importing, "
            "mostly waiting for a core. The scheduler queues at most "
            f"{raw['batch']} feeds per {TICK_INTERVAL} s tick "
            f"({raw['batch'] / TICK_INTERVAL:.0f}/s): it is not the limit. "
            f"Celery alone on the same workers (no-op tasks, acks_late, no result) ran "
            f"{floor['per_second']:.0f} tasks/s at {floor['worker_cpu_ms']:.1f} ms of worker CPU "
            f"per message; the 304 round used {raw['worker_cpu_ms_per_304']:.1f} ms per feed, "
            f"and 2 cores give {2000 / (0.5 * floor['per_second']):.1f} ms of CPU per feed at "
            f"{0.5 * floor['per_second']:.0f} feeds/s, for everything: the "
            "workers, PostgreSQL, Redis, memcached, the feed server and the tick."
        )
    if cpu_ratio > 2:
        report.note(
            f"Why not 2x a no-op message's CPU per 304: {per_message_note}What is left is the "
            "import itself: the batch's locks and the hosts' Retry-After (one memcached round "
            "trip for the batch), their fences (one statement for the batch), the host's slot "
            "(one round trip), the fetch (a new HTTP connection to the local server: "
            f"{raw['fetch_ms_304_median']:.1f} ms median), the feed's update with its "
            "ImportRun (one statement), and the slot and lock given back (one round trip, "
            "shared by the imports whose answers were in together). Alone in the bench "
            f"process, the same batches took {raw['cpu_ms_per_304_in_process']:.1f} ms of CPU "
            "per feed (run_batch over 1,000 of these feeds after the round, fetch threads "
            "included; bench/profile_batch.py splits it); the workers used "
            f"{raw['worker_cpu_ms_per_304']:.1f} ms per feed with {processes} pool processes "
            "sharing 2 cores with PostgreSQL, Redis and the feed server, Celery's per-message "
            "work in the parents included."
        )
    if drop >= 0.10 or mix_rate < 100:
        report.note(
            f"Dead feeds in the mix ({dead_share:.0%} of the import seconds), import seconds "
            "by kind (each run from its fetch's start to its store's end; a batch's runs "
            "overlap, its fetches run together): "
            + ", ".join(f"{kind} {seconds:.0f} s" for kind, seconds in by_kind.items())
            + f". The {slow_feeds} slow feeds were in {slow_batches} batches. A batch with "
            "nothing left but fetches still out waits 0.25 s (batches.PATIENCE), then leaves "
            "them to its process's stragglers thread (djangofeeds/importing/batch_stragglers.py) "
            "and the pool "
            f"process takes its next message: a timeout ({FETCH_TIMEOUT} s here) holds a fetch "
            "thread, not the process, unless the process already has 10 stragglers. Then the "
            "feed backs off (5 min, doubling): a dead feed costs one timeout per check, never "
            "retries in the task. What is left is the dead feeds' own work (a failed run "
            "recorded, the back-off written) and the stragglers' stores, which share the "
            f"cores with the {processes} processes."
        )
    report.note(
        f"Mixed population: warm round {raw['round_mix_warm']['seconds']:.0f} s (first "
        f"imports), measured round {mix['seconds']:.0f} s. Fetches per feed in the measured "
        f"round: {raw['fetches_mix']['fetches']} for {MIX_FEEDS} feeds "
        f"({raw['fetches_mix']['fetched_more_than_once']} more than once)."
    )
    report.note(
        f"Simulation: {sim['feeds']:,} feeds inserted in {sim['insert_s']:.0f} s; "
        f"{SIM_TICKS} claims of {sim['batch']} in a row, the oldest claims cleared beyond the "
        "depth as imports would; the claim reads the partial index feed_claim_idx in "
        "next_check_at order and stops after one batch, so its cost does not grow with the "
        f"table (medians: {statistics.median(sim['claim_ms_per_1000']):.0f} ms per 1,000). "
        f"The broker holds at most the depth: {raw['depth']} x "
        f"{broker['redis_memory_bytes_per_feed']:.0f} B = "
        f"{raw['depth'] * broker['redis_memory_bytes_per_feed'] / 2**20:.0f} MiB, whatever "
        "the number of feeds."
    )


if __name__ == "__main__":
    main()
