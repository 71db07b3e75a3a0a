"""Pools: one feed per message on Celery's own pools against the batch path, in one run.

``DJANGOFEEDS_FEEDS_PER_MESSAGE`` above 1 turns the batch path on
(``djangofeeds/importing/batch*.py``: ``import_feed_batch`` imports several feeds per
message, fetching in threads inside prefork processes). It is kept only if it beats the
best of Celery's own pools at one feed per message (one ``import_feed`` per feed, the
default) by 1.5x, on feeds/s or on worker CPU per feed, in the round it exists for: a
large population of feeds answering 304 (SPEC's scale targets). The mix is measured
and reported beside it: there the feeds' own work dilutes what a message costs.

On one feed population, with bench_scale's machinery (its feed server, its ticks as
beat sends them, Redis, PostgreSQL, memcached locks), each configuration runs:

- prefork, 1 per message: 2 workers x ``BENCH_SCALE_CONCURRENCY`` (8) processes;
- threads, 1 per message: 2 workers x each of ``BENCH_POOLS_THREADS`` (8,32) threads;
- the batch path: prefork as above, ``BENCH_POOLS_PER_MESSAGE`` (10) feeds per message.

gevent and eventlet are not installed: not measured.

Each configuration gets workers of its own (started, warmed on ``WARM_FEEDS`` feeds,
stopped after), then a 304 round of ``BENCH_POOLS_FEEDS`` feeds (10,000) and a mix
round of ``BENCH_POOLS_MIX_FEEDS`` (5,000: 60% 304, 20% the same bytes answered 200,
15% 1-3 new items, 5% errors, resets and timeouts). The configurations interleave,
in reverse order every other repeat (A B C D, D C B A, ...), ``BENCH_POOLS_REPEATS``
(2) times; the tables give the medians, and every repeat's figures.
"""

import collections
import os
import re
import time
from dataclasses import dataclass

from bench.bench_scale import CONCURRENCY as PREFORK_PROCESSES
from bench.bench_scale import (
    DEAD,
    FETCH_TIMEOUT,
    HOSTS,
    MIX,
    WORKERS,
    ScaleServer,
    add_feeds,
    celery_floor,
    kind_of,
    make_due,
    refresh_round,
)
from bench.harness import (
    bench_environment,
    cpu_by_kind,
    cpu_seconds,
    median,
    start_workers,
    stop_workers,
)
from bench.report import Report, ratio
from djangofeeds.schedules import TICK_SECONDS

FEEDS = int(os.environ.get("BENCH_POOLS_FEEDS", 10_000))
MIX_FEEDS = int(os.environ.get("BENCH_POOLS_MIX_FEEDS", 5_000))
REPEATS = int(os.environ.get("BENCH_POOLS_REPEATS", 2))
THREADS = [int(n) for n in os.environ.get("BENCH_POOLS_THREADS", "8,32").split(",") if n]
PER_MESSAGE = int(os.environ.get("BENCH_POOLS_PER_MESSAGE", 10))
# No-op tasks per configuration for Celery's own floor on its pool (0: not measured).
FLOOR_TASKS = int(os.environ.get("BENCH_POOLS_FLOOR_TASKS", 3000))
# 304 feeds of their own that each configuration's new workers import before the measured
# rounds: their first connections (PostgreSQL, memcached, HTTP) are not measured.
WARM_FEEDS = 500
# The rule of the issue: the batch path stays if it beats the best pool by this much.
GOAL = 1.5
# Feeds a tick claims (DJANGOFEEDS_TICK_BATCH; unset: the settings', 5,000 per 5 s tick, so
# at most 1,000 feeds/s): more lets the scheduler keep up with faster imports.
TICK_BATCH = int(os.environ.get("BENCH_POOLS_TICK_BATCH", 0))
# Which feeds a round refreshes, by URL.
POPULATIONS = {"304": "/304/p", "mix": "/mix", "warm": "/304/warm"}

# bench_scale's import set the per-message setting for its own rounds; here the default
# (one import_feed per feed), and each configuration's own around its rounds.
os.environ["DJANGOFEEDS_FEEDS_PER_MESSAGE"] = "1"


@dataclass(frozen=True)
class Config:
    name: str
    pool: str
    concurrency: int
    per_message: int

    @property
    def label(self):
        kind = "batch path" if self.per_message > 1 else self.pool
        return f"{kind}, {WORKERS}x{self.concurrency} {self.pool}, {self.per_message} per message"


POOLS = [
    Config("prefork", "prefork", PREFORK_PROCESSES, 1),
    *[Config(f"threads{n}", "threads", n, 1) for n in THREADS],
]
BATCH = Config("batch", "prefork", PREFORK_PROCESSES, PER_MESSAGE)
CONFIGS = [*POOLS, BATCH]


def activate(population):
    """Only ``population``'s feeds active, and all of them due now."""
    from djangofeeds.models import Feed

    Feed.objects.update(is_active=False)
    Feed.objects.filter(url__contains=POPULATIONS[population]).update(is_active=True)
    make_due()


def refresh(population, expected, per_message):
    """One refresh round of ``population`` at ``per_message`` feeds per message."""
    from django.test import override_settings

    activate(population)
    tick = {"DJANGOFEEDS_TICK_BATCH": TICK_BATCH} if TICK_BATCH else {}
    with override_settings(DJANGOFEEDS_FEEDS_PER_MESSAGE=per_message, **tick):
        return refresh_round(expected)


def measured_round(population, expected, config, workers, server):
    """A round with what it took: seconds, worker CPU, CPU by process kind, fetches, outcomes."""
    pids = [pid for worker in workers for pid in worker.processes()]
    server.call("/__reset")
    by_kind, server_cpu, worker_cpu = cpu_by_kind(workers), server.cpu_seconds(), cpu_seconds(pids)
    measured = refresh(population, expected, config.per_message)
    worker_cpu = cpu_seconds(pids) - worker_cpu
    by_kind = cpu_by_kind(workers) - by_kind
    by_kind["feed server"] = server.cpu_seconds() - server_cpu
    fetches = server.call("/__stats")
    return {
        "feeds": expected,
        "seconds": measured["seconds"],
        "feeds_per_s": expected / measured["seconds"],
        "worker_cpu_ms_per_feed": worker_cpu * 1000 / expected,
        "cpu_ms_per_feed_by_kind": {kind: s * 1000 / expected for kind, s in by_kind.items()},
        "ticks": len(measured["ticks"]),
        "runs": measured["runs"],
        "fetches": fetches,
        "outcomes": outcomes(measured["started_at"]),
    }


def outcomes(started_at):
    """The round's runs by kind of feed and outcome, posts created, and unexpected failures."""
    from djangofeeds.models import ImportRun

    counts = collections.Counter()
    created = updated = 0
    unexpected = []
    runs = ImportRun.objects.filter(started_at__gte=started_at)
    for url, outcome, new, rewritten, error in runs.values_list(
        "feed__url", "outcome", "created", "updated", "error"
    ):
        kind = url.split("/")[3]
        counts[f"{kind} {outcome}"] += 1
        created, updated = created + new, updated + rewritten
        if (outcome == "failed") != (kind in DEAD) and len(unexpected) < 5:
            unexpected.append(f"{url}: {outcome} {error}")
    return {
        "counts": dict(counts),
        "created": created,
        "updated": updated,
        "unexpected": unexpected,
    }


def problems(workers):
    """Tracebacks and ERROR/CRITICAL lines in the workers' logs (the first few, whole)."""
    found = []
    for worker in workers:
        lines = worker.watched.lines
        for n, line in enumerate(lines):
            if "Traceback" in line or re.search(r"\b(ERROR|CRITICAL)/", line):
                found.append("".join(lines[max(n - 1, 0) : n + 25]))
                if len(found) >= 3:
                    return found
    return found


def block(config, server, redis_url, with_floor):
    """One configuration's workers, warmed, then its 304 round and its mix round."""
    print(f"-- {config.label}", flush=True)
    workers = start_workers(
        WORKERS, queues=["feeds"], concurrency=config.concurrency, pool=config.pool
    )
    measured = {"config": config.name}
    try:
        if with_floor and FLOOR_TASKS:
            measured["floor"] = celery_floor(workers, redis_url, FLOOR_TASKS)
        refresh("warm", WARM_FEEDS, config.per_message)
        measured["304"] = measured_round("304", FEEDS, config, workers, server)
        measured["mix"] = measured_round("mix", MIX_FEEDS, config, workers, server)
    finally:
        measured["problems"] = problems(workers)
        stop_workers(workers)
    for text in measured["problems"]:
        print(f"!! in the workers' logs ({config.name}):\n{text}", flush=True)
    for name in ("304", "mix"):
        round_ = measured[name]
        print(
            f"   {name}: {round_['feeds_per_s']:.0f} feeds/s, "
            f"{round_['worker_cpu_ms_per_feed']:.2f} ms worker CPU per feed, "
            f"fetches {round_['fetches']['fetches']} ({round_['fetches']['fetched_more_than_once']}"
            f" twice), {round_['outcomes']}",
            flush=True,
        )
    return measured


def prepare(server, redis_url):
    """The population, its first imports (the mix's posts) and one 304 round, unmeasured."""
    add_feeds([server.url("304", n, prefix="p") for n in range(FEEDS)], etag='"v1"')
    add_feeds([server.url("304", n, prefix="warm") for n in range(WARM_FEEDS)], etag='"v1"')
    add_feeds([server.url(kind_of(n), n, prefix="mix") for n in range(MIX_FEEDS)])
    workers = start_workers(WORKERS, queues=["feeds"], concurrency=BATCH.concurrency)
    try:
        began = time.monotonic()
        refresh("mix", MIX_FEEDS, BATCH.per_message)
        refresh("304", FEEDS, BATCH.per_message)
        return time.monotonic() - began
    finally:
        stop_workers(workers)


def main():
    from django.conf import settings

    report = Report("pools", "Pools: one feed per message vs the batch path")
    raw = report.raw
    raw |= {
        "feeds": FEEDS,
        "mix_feeds": MIX_FEEDS,
        "repeats": REPEATS,
        "configs": {c.name: c.label for c in CONFIGS},
        "blocks": [],
    }
    server = ScaleServer().start()
    began = time.monotonic()
    try:
        with bench_environment(memcached=True, redis=True) as servers:
            redis_url = servers["redis"].url
            raw["tick_batch"] = TICK_BATCH or settings.DJANGOFEEDS_TICK_BATCH
            raw["prepare_s"] = prepare(server, redis_url)
            for repeat in range(REPEATS):
                for config in CONFIGS if repeat % 2 == 0 else CONFIGS[::-1]:
                    measured = block(config, server, redis_url, with_floor=repeat == 0)
                    raw["blocks"].append(measured | {"repeat": repeat})
    finally:
        server.stop()
    raw["seconds"] = time.monotonic() - began
    write(report, raw)
    report.save()


def figures(raw, config, round_name):
    """A configuration's rounds of one kind, in the order they ran."""
    return [b[round_name] for b in raw["blocks"] if b["config"] == config.name]


def summary(raw, config, round_name):
    rounds = figures(raw, config, round_name)
    return {
        "feeds_per_s": median([r["feeds_per_s"] for r in rounds]),
        "cpu": median([r["worker_cpu_ms_per_feed"] for r in rounds]),
        "each_rate": [r["feeds_per_s"] for r in rounds],
        "each_cpu": [r["worker_cpu_ms_per_feed"] for r in rounds],
    }


def described(figure):
    rates = " / ".join(f"{r:.0f}" for r in figure["each_rate"])
    cpus = " / ".join(f"{c:.2f}" for c in figure["each_cpu"])
    return (
        f"{figure['feeds_per_s']:.0f} feeds/s, {figure['cpu']:.2f} ms worker CPU per feed "
        f"(each run: {rates} feeds/s; {cpus} ms)"
    )


def write(report, raw):
    rounds = {
        "304": f"304 round of {FEEDS:,} feeds",
        "mix": f"mix of {MIX_FEEDS:,} (60% 304, 20% same 200, 15% new, 5% dead)",
    }
    verdicts = {}
    for round_name, title in rounds.items():
        pools = {config: summary(raw, config, round_name) for config in POOLS}
        for config, figure in pools.items():
            report.row(f"pools: {title}, {config.label}", described(figure), goal="measure")
        batch = summary(raw, BATCH, round_name)
        fastest = max(pools, key=lambda config: pools[config]["feeds_per_s"])
        cheapest = min(pools, key=lambda config: pools[config]["cpu"])
        rate_gain = batch["feeds_per_s"] / pools[fastest]["feeds_per_s"]
        cpu_gain = pools[cheapest]["cpu"] / batch["cpu"]
        beats = rate_gain >= GOAL or cpu_gain >= GOAL
        verdicts[round_name] = (rate_gain, cpu_gain, beats)
        judged = round_name == "304"  # the round the batch path exists for; the mix: measured
        report.row(
            f"pools: {title}, {BATCH.label}: feeds/s vs the fastest pool",
            described(batch),
            f"{pools[fastest]['feeds_per_s']:.0f} feeds/s ({fastest.label})",
            ratio(batch["feeds_per_s"], pools[fastest]["feeds_per_s"]),
            f">= {GOAL}x, or CPU below" if judged else "measure",
            beats if judged else None,
        )
        report.row(
            f"pools: {title}, {BATCH.label}: worker CPU per feed vs the cheapest pool",
            f"{batch['cpu']:.2f} ms per feed",
            f"{pools[cheapest]['cpu']:.2f} ms ({cheapest.label})",
            f"{cpu_gain:.2f}x less",
            f">= {GOAL}x less, or feeds/s above" if judged else "measure",
            beats if judged else None,
        )
        fetches = [
            r["fetches"]["fetches"] / r["feeds"]
            for config in CONFIGS
            for r in figures(raw, config, round_name)
        ]
        twice = sum(
            r["fetches"]["fetched_more_than_once"]
            for config in CONFIGS
            for r in figures(raw, config, round_name)
        )
        report.row(
            f"pools: {title}, fetches per feed, every configuration and repeat",
            f"{min(fetches):.3f} to {max(fetches):.3f} ({twice} feeds fetched twice)",
            goal="exactly 1",
            met=all(f == 1 for f in fetches) and twice == 0,
        )
    rate, cpu, keep = verdicts["304"]
    report.row(
        f"pools: keep the batch path ({GOAL}x the best pool on feeds/s or CPU, 304 round)",
        "keep" if keep else "drop",
        f"304: {rate:.2f}x feeds/s, {cpu:.2f}x less CPU",
        goal=f">= {GOAL}x",
        met=keep,
    )
    rate, cpu, _ = verdicts["mix"]
    report.row(
        "pools: the batch path against the best pool in the mix",
        f"{rate:.2f}x feeds/s, {cpu:.2f}x less CPU",
        goal="measure",
    )
    floors = [(b["config"], b["floor"]) for b in raw["blocks"] if "floor" in b]
    if floors:
        labels = {c.name: c.label for c in CONFIGS}
        report.row(
            "pools: Celery's own floor per configuration, no-op tasks sent as imports are",
            "; ".join(
                f"{labels[name]}: {floor['per_second']:.0f} tasks/s, "
                f"{floor['worker_cpu_ms']:.2f} ms worker CPU per message"
                for name, floor in floors
            ),
            goal="measure",
        )
    report.note(
        f"{WORKERS} workers per configuration on {os.cpu_count()} cores, started anew for each "
        f"configuration's turn and warmed on {WARM_FEEDS} feeds of their own; Redis, "
        f"PostgreSQL, memcached locks; the tick runs in the bench process as beat sends it, "
        f"claiming up to {raw['tick_batch']} feeds every {TICK_SECONDS} s. "
        f"Feeds on {HOSTS} loopback hosts of one asyncio feed server (bench/scale_server.py); "
        f"fetch timeout {FETCH_TIMEOUT} s. The configurations took turns, in reverse order "
        f"every other repeat, {REPEATS} times; figures are medians. Worker CPU: the worker "
        "processes and their pool processes (a threads worker is one process). gevent and "
        f"eventlet are not installed: not measured. Whole run {raw['seconds']:.0f} s "
        f"(population's first imports {raw['prepare_s']:.0f} s)."
    )
    for round_name, title in rounds.items():
        parts = []
        for config in CONFIGS:
            kinds = collections.defaultdict(list)
            for r in figures(raw, config, round_name):
                for kind, ms in r["cpu_ms_per_feed_by_kind"].items():
                    kinds[kind].append(ms)
            parts.append(
                f"{config.name}: "
                + ", ".join(f"{kind} {median(ms):.2f}" for kind, ms in sorted(kinds.items()))
            )
        report.note(
            f"CPU ms per feed by process, {title} (PostgreSQL's backends only while they "
            "live: one closed during the round, at CONN_MAX_AGE, takes its CPU with it): "
            + "; ".join(parts)
            + "."
        )
    mix_runs = [(b["config"], b["mix"]["outcomes"]) for b in raw["blocks"]]
    report.note(
        "Mix outcomes (posts created / rewritten per round): "
        + "; ".join(f"{name} {o['created']}/{o['updated']}" for name, o in mix_runs)
        + f". The mix by kind: {', '.join(kind for _, kind in MIX)}."
    )
    unexpected = [u for _, o in mix_runs for u in o["unexpected"]]
    unexpected += [u for b in raw["blocks"] for u in b["304"]["outcomes"]["unexpected"]]
    if unexpected:
        report.note(
            "Unexpected outcomes (healthy feeds failed, dead ones not): "
            + "; ".join(unexpected[:5])
        )
    troubled = [b["config"] for b in raw["blocks"] if b["problems"]]
    if troubled:
        report.note(
            "Tracebacks or ERROR lines in the workers' logs of: " + ", ".join(troubled) + " "
            "(bench/results/pools.json, blocks[].problems)."
        )


if __name__ == "__main__":
    main()
