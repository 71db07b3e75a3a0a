"""Where a comment POST's time goes, measured inside gunicorn during bench_comments' run.

Not part of ``make bench``: a developer's tool for bench_comments' p99. The same
scenario (2 gunicorn sync workers, 2 clients, 500 POSTs, the spam worker with 50
threads, Akismet stand-in delayed 2 s), but gunicorn serves this module's
``application``: the project's, with each POST split into phases timed in the
worker (middleware and view, the SQL statements, the broker publish, garbage
collection, the request's CPU time). Each POST's client-side time is matched to
its server phases by the comment's number, so the slowest 1% can be read apart
from the median. ``PROFILE_COMMENTS_CPROFILE=1`` (wall time) or ``cpu`` (CPU time) also runs
cProfile over every POST in the gunicorn workers and prints the top functions;
``PROFILE_COMMENTS_WORKER=0`` leaves the spam worker off (the checks wait in
Redis), to see what the worker's CPU costs the POSTs::

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/me_bench \
        .venv/bin/python -m bench.profile_comments
"""

import gc
import glob
import json
import os
import pstats
import tempfile
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

OUT = os.environ.get("PROFILE_COMMENTS_OUT", "")
# "1": cProfile in wall time; "cpu": in the thread's CPU time (what a request computes).
CPROFILE = os.environ.get("PROFILE_COMMENTS_CPROFILE", "")


# --- inside each gunicorn worker ----------------------------------------------------------------


class Closing(list):
    """A WSGI body whose close() the server calls after writing it."""

    def __init__(self, items, close):
        super().__init__(items)
        self.close = close


class Phases(threading.local):
    """The current request's timings, per thread (gunicorn's sync worker has one)."""

    def reset(self):
        self.sql = defaultdict(float)
        self.sql_count = 0
        self.publish = 0.0
        self.gc = 0.0
        self.gc_began = None


PHASES = Phases()


def sql_kind(sql):
    words = sql.split()
    verb = words[0].upper() if words else "?"
    table = next((w.strip('"') for w in words if w.strip('"').startswith(("blog_", "django_"))), "")
    return f"{verb} {table}".strip()


def timed_sql(execute, sql, params, many, context):
    began = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    finally:
        PHASES.sql[sql_kind(sql)] += time.perf_counter() - began
        PHASES.sql_count += 1


def on_gc(phase, info):
    if phase == "start":
        PHASES.gc_began = time.perf_counter()
    elif getattr(PHASES, "gc_began", None) is not None:
        PHASES.gc += time.perf_counter() - PHASES.gc_began
        PHASES.gc_began = None


def build_application():
    """The project's WSGI application, instrumented."""
    import cProfile

    from django.core.handlers.base import BaseHandler
    from django.db import connection

    out = open(f"{OUT}.{os.getpid()}.jsonl", "a", buffering=1)  # noqa: SIM115
    timer = {"1": time.perf_counter, "cpu": time.thread_time}.get(CPROFILE)
    profiler = cProfile.Profile(timer) if timer else None
    posts = [0]

    get_response = BaseHandler._get_response
    seen = {}

    def timed_get_response(self, request):
        began = time.perf_counter()
        try:
            return get_response(self, request)
        finally:
            seen["view"] = time.perf_counter() - began
            seen["name"] = request.POST.get("name", "") if request.method == "POST" else ""

    BaseHandler._get_response = timed_get_response  # before the handler binds it
    from project.wsgi import application

    gc.callbacks.append(on_gc)
    import blog.views  # after the setup: it imports models

    dispatch_check = blog.views.dispatch_check

    def timed_dispatch(*args, **kwargs):
        began = time.perf_counter()
        try:
            return dispatch_check(*args, **kwargs)
        finally:
            PHASES.publish += time.perf_counter() - began

    blog.views.dispatch_check = timed_dispatch

    def instrumented(environ, start_response):
        post = environ["REQUEST_METHOD"] == "POST"
        PHASES.reset()
        seen.clear()
        cpu = time.thread_time()
        began = time.perf_counter()
        wrapper = connection.execute_wrapper(timed_sql)
        wrapper.__enter__()
        if post and profiler:
            profiler.enable()
        response = application(environ, start_response)
        wall = time.perf_counter() - began
        before_close = (PHASES.publish, sum(PHASES.sql.values()))
        body = b"".join(response)

        def close():
            # gunicorn calls this once the response is written: what runs here is after it.
            closing = time.perf_counter()
            try:
                response.close()
            finally:
                wrapper.__exit__(None, None, None)
                if post and profiler:
                    profiler.disable()
            if post:
                write(wall, time.perf_counter() - closing, cpu, before_close)

        return Closing([body], close)

    def write(wall, after, cpu, before_close):
        publish, sql = before_close
        record = {
            "name": seen.get("name", ""),
            "server_ms": wall * 1000,
            "after_response_ms": after * 1000,
            "publish_after_response_ms": (PHASES.publish - publish) * 1000,
            "cpu_ms": (time.thread_time() - cpu) * 1000,
            "view_ms": seen.get("view", 0) * 1000,
            "sql_ms": {kind: s * 1000 for kind, s in PHASES.sql.items()},
            "sql_after_response_ms": (sum(PHASES.sql.values()) - sql) * 1000,
            "sql_count": PHASES.sql_count,
            "publish_ms": publish * 1000,
            "gc_ms": PHASES.gc * 1000,
            "first": posts[0] == 0,
        }
        out.write(json.dumps(record) + "\n")
        posts[0] += 1
        if profiler and posts[0] % 25 == 0:
            profiler.dump_stats(f"{OUT}.{os.getpid()}.pstats")

    return instrumented


if OUT and os.environ.get("DJANGO_SETTINGS_MODULE"):
    application = build_application()


# --- the bench process ------------------------------------------------------------------------


def run(out):
    """bench_comments' scenario against this module's application; client times by number."""
    import httpx

    from bench import bench_comments as bc
    from bench.harness import bench_environment
    from localservers.akismet_server import AkismetStandIn
    from localservers.services import free_port
    from localservers.waiting import wait_until

    akismet = AkismetStandIn(keys=[bc.KEY]).start()
    akismet.delay = bc.AKISMET_DELAY
    os.environ.update(AKISMET_API_KEY=bc.KEY, AKISMET_API_URL=akismet.url)
    os.environ.update(PROFILE_COMMENTS_OUT=out)
    try:
        with bench_environment(memcached=True, redis=True):
            from blog.models import Comment

            entry_url = bc.published_entry().get_absolute_url()
            port = free_port()
            web = bc.start_gunicorn(port, app="bench.profile_comments:application")
            workers = []
            try:
                if os.environ.get("PROFILE_COMMENTS_WORKER", "1") == "1":
                    workers = bc.start_workers(
                        1, queues=["spam"], concurrency=bc.CHECK_THREADS, pool="threads"
                    )
                for _ in range(4):
                    httpx.get(f"http://127.0.0.1:{port}{entry_url}").raise_for_status()
                share = bc.POSTS // bc.CLIENTS
                with ThreadPoolExecutor(bc.CLIENTS) as pool:
                    starts = range(0, bc.POSTS, share)
                    batches = pool.map(
                        lambda n: bc.post_comments(f"http://127.0.0.1:{port}", entry_url, share, n),
                        starts,
                    )
                    client = {}
                    for first, batch in zip(starts, batches, strict=True):
                        client |= {f"Reader {first + i}": ms for i, ms in enumerate(batch)}
                if workers:
                    wait_until(
                        lambda: not Comment.objects.pending().exists(),
                        timeout=300,
                        message="every comment checked",
                    )
            finally:
                bc.stop_workers(workers)
                web.process.terminate()
                web.process.wait(timeout=30)
    finally:
        akismet.stop()
    return client


def report(client, out):
    from bench.harness import median, percentile

    server = {}
    for path in glob.glob(f"{out}.*.jsonl"):
        with open(path) as lines:
            for line in lines:
                record = json.loads(line)
                server[record["name"]] = record
    rows = []
    for name, ms in client.items():
        record = server[name]
        sql = sum(record["sql_ms"].values())
        rows.append(
            {
                "client": ms,
                "outside server (client, network, gunicorn)": ms - record["server_ms"],
                "server": record["server_ms"],
                "server CPU (and after the response)": record["cpu_ms"],
                "after the response (close: request_finished)": record["after_response_ms"],
                "middleware outside the view": record["server_ms"] - record["view_ms"],
                "view (CSRF check included)": record["view_ms"],
                "SQL before the response": sql - record["sql_after_response_ms"],
                "broker publish before the response": record["publish_ms"],
                "broker publish after the response": record["publish_after_response_ms"],
                "view less SQL and publish": record["view_ms"]
                - (sql - record["sql_after_response_ms"])
                - record["publish_ms"],
                "garbage collection": record["gc_ms"],
                "SQL statements": record["sql_count"],
                **{f"SQL: {kind}": s for kind, s in record["sql_ms"].items()},
            }
        )
    rows.sort(key=lambda row: row["client"])
    firsts = [name for name, record in server.items() if record["first"]]
    print(
        "each gunicorn worker's first POST: "
        + ", ".join(f"{client[name]:.0f} ms" for name in firsts)
        + f" (ranks {[sorted(client.values()).index(client[n]) + 1 for n in firsts]} "
        f"of {len(client)})"
    )
    for name in firsts:
        record = server[name]
        print(
            f"  {name}: server {record['server_ms']:.1f} ms, view {record['view_ms']:.1f}, "
            f"SQL {sum(record['sql_ms'].values()):.1f}, publish after the response "
            f"{record['publish_after_response_ms']:.1f}, CPU {record['cpu_ms']:.1f}"
        )
    slowest = rows[-max(1, len(rows) // 100) :]
    keys = list(dict.fromkeys(key for row in rows for key in row))
    print(f"\n{len(rows)} POSTs; medians, and the mean over the slowest 1% ({len(slowest)})")
    print(f"{'':<48} {'p50 (ms)':>9} {'slowest 1%':>11} {'p99 (ms)':>9}")
    for key in keys:
        values = [row.get(key, 0) for row in rows]
        slow = sum(row.get(key, 0) for row in slowest) / len(slowest)
        print(f"{key:<48} {median(values):9.2f} {slow:11.2f} {percentile(values, 99):9.2f}")


def print_profile(out, top=30):
    files = glob.glob(f"{out}.*.pstats")
    if not files:
        return
    stats = pstats.Stats(*files)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def main():
    out = os.path.join(tempfile.mkdtemp(prefix="profile-comments-"), "posts")
    client = run(out)
    report(client, out)
    if CPROFILE:
        print_profile(out)


if __name__ == "__main__":
    main()
