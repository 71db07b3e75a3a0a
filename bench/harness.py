"""What the benchmarks share: private services, Django on the bench database, workers, counters.

The servers and worker processes are the ones the test suite starts too
(``localservers``): a benchmark runs the product the way its tests do, only
with more load.
"""

import collections
import contextlib
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import django
import psycopg
from django.core.management import call_command
from django.db import connection, connections
from psycopg import sql as pg_sql

from localservers.feed_server import numbered_items, rss
from localservers.services import Memcached, Redis
from localservers.workers import WorkerProcess

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = "bench.settings"


@contextlib.contextmanager
def bench_environment(*, memcached=False, redis=False, database=True):
    """Start the private servers asked for, set Django up on them, give a fresh database.

    Yields a dict with the started servers (``memcached``, ``redis``); stops them after.
    """
    var_dir = tempfile.mkdtemp(prefix="project-bench-")
    os.environ["DJANGO_VAR_DIR"] = var_dir
    os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS
    servers = {}
    try:
        if memcached:
            servers["memcached"] = Memcached().start()
            os.environ["MEMCACHED_LOCATION"] = servers["memcached"].location
        if redis:
            servers["redis"] = Redis().start()
            os.environ["CELERY_BROKER_URL"] = servers["redis"].url
        django.setup()
        if database:
            fresh_database()
        yield servers
    finally:
        with contextlib.suppress(Exception):
            connections.close_all()
        for server in servers.values():
            server.stop()
        shutil.rmtree(var_dir, ignore_errors=True)


def fresh_database():
    """Drop and create the bench database, then migrate it (PostgreSQL only)."""
    params = connection.settings_dict
    name = params["NAME"]
    if not params["ENGINE"].endswith("postgresql"):
        sys.exit(f"BENCH_DATABASE_URL must name a PostgreSQL database, not {params['ENGINE']}")
    if "bench" not in name:
        sys.exit(f"refusing to drop {name!r}: the bench database's name must contain 'bench'")
    connection.close()
    admin = {
        "host": params.get("HOST") or "127.0.0.1",
        "port": params.get("PORT") or 5432,
        "user": params.get("USER") or "postgres",
        "password": params.get("PASSWORD") or None,
        "dbname": "postgres",
        "autocommit": True,
    }
    try:
        with psycopg.connect(**admin) as pg:
            quoted = pg_sql.Identifier(name)
            pg.execute(pg_sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(quoted))
            pg.execute(pg_sql.SQL("CREATE DATABASE {}").format(quoted))
    except psycopg.OperationalError as exc:
        sys.exit(f"PostgreSQL is needed at {admin['host']}:{admin['port']}: {exc}")
    call_command("migrate", verbosity=0, interactive=False)


def start_workers(count, **options):
    """``count`` worker processes on the bench settings, started side by side."""
    workers = [BenchWorker(**options) for _ in range(count)]
    with ThreadPoolExecutor(count) as pool:
        futures = [pool.submit(worker.start) for worker in workers]
    if any(future.exception() for future in futures):
        for worker in workers:
            if worker.watched is not None:
                worker.kill()
        raise next(future.exception() for future in futures if future.exception())
    return workers


def stop_workers(workers):
    for worker in workers:
        if worker.stop() != 0:
            print(worker.log_tail(), file=sys.stderr)


class BenchWorker(WorkerProcess):
    """A worker process, on the bench settings, with a choice of pool."""

    def __init__(self, *, pool=None, **kwargs):
        super().__init__(**kwargs)
        self.pool = pool

    def env(self):
        env = super().env()
        # INFO: the benchmarks read the worker's "succeeded in" lines.
        env.update(DJANGO_SETTINGS_MODULE=SETTINGS, DJANGO_LOG_LEVEL="INFO")
        return env

    def argv(self):
        return super().argv() + (["--pool", self.pool] if self.pool else [])

    def processes(self):
        """Process ids of the worker and of its pool's children."""
        pid = self.watched.process.pid
        return [pid, *children(pid)]


def task_times(workers, task_name, url=None):
    """Milliseconds each ``task_name`` task ran, by the "status" it returned, from worker logs.

    The time is the worker's own ("Task ... succeeded in 0.012s"): the task and the
    writes of its STARTED state and result. With ``url``, only the tasks whose
    result names that URL.
    """
    succeeded = re.compile(
        rf"Task {re.escape(task_name)}\[[^\]]+\] "
        r"succeeded in (?P<seconds>[\d.e-]+)s: (?P<result>.*)"
    )
    times = collections.defaultdict(list)
    for worker in workers:
        for match in succeeded.finditer(worker.output):
            if url is not None and f"'url': '{url}'" not in match["result"]:
                continue
            status = re.search(r"'status': '(\w+)'", match["result"])
            times[status.group(1) if status else "?"].append(float(match["seconds"]) * 1000)
    return times


def children(pid):
    """Ids of a process's direct children (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def cpu_seconds(pids):
    """CPU seconds (user and system) the processes used so far (Linux /proc)."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def cpu_by_kind(workers):
    """CPU seconds used so far by kind of process: the workers' pools and parents, PostgreSQL, ...

    PostgreSQL's server processes are counted while they live (a backend that
    exits between two readings is lost: read around a stretch where the
    connections stay open). The bench process holds the feed server's threads.
    """
    parents = {worker.watched.process.pid for worker in workers}
    pool = {pid for worker in workers for pid in worker.processes()} - parents
    kinds = {"postgres": "PostgreSQL", "redis-server": "Redis", "memcached": "memcached"}
    totals = collections.Counter()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (entry / "stat").read_text()
            command = stat.split("(", 1)[1].rsplit(")", 1)[0]
            if pid in pool:
                kind = "pool processes"
            elif pid in parents:
                kind = "worker parents"
            elif pid == os.getpid():
                kind = "bench process"
            else:
                kind = kinds.get(command)
            if kind:
                totals[kind] += cpu_seconds([pid])
    return totals


def peak_rss_mib(pid):
    """The resident-memory high-water mark of a live process (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


class QueryCounter:
    """Counts the SQL statements run on a connection, and those that write posts."""

    def __init__(self, using=None):
        self.connection = connections[using] if using else connection
        self.queries = 0
        self.post_writes = 0
        self._context = None

    def __call__(self, execute, sql, params, many, context):
        self.queries += 1
        head = sql.lstrip()[:6].upper()
        if head in ("INSERT", "UPDATE", "DELETE") and '"djangofeeds_post"' in sql[:200]:
            self.post_writes += 1
        return execute(sql, params, many, context)

    def __enter__(self):
        self._context = self.connection.execute_wrapper(self)
        self._context.__enter__()
        return self

    def __exit__(self, *exc_info):
        self._context.__exit__(*exc_info)


class Stopwatch:
    """``with Stopwatch() as watch: ...`` then ``watch.ms``."""

    def __enter__(self):
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc_info):
        self.ms = (time.perf_counter() - self.started) * 1000


class TimeIn:
    """Seconds spent in ``owner.name`` (a function or method, replaced by a timed one) since
    ``spent`` was last set: ``TimeIn(storage, "leads")``."""

    def __init__(self, owner, name):
        self.spent, original = 0.0, getattr(owner, name)

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.spent += time.perf_counter() - started

        setattr(owner, name, timed)


def median(values):
    return statistics.median(values)


def percentile(values, pct):
    """The pct-th percentile (inclusive method: stays within the data for small samples)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]


def import_url(url):
    """The importer alone on the feed at ``url`` (no task, lock or fence); its ``ImportResult``."""
    from djangofeeds.importing.importer import fetch_and_store
    from djangofeeds.models import Feed

    feed, _ = Feed.objects.get_or_create(url=url)
    return fetch_and_store(feed)


def feed_document(count, prefix="item"):
    """An RSS 2.0 document of ``count`` items, as the tests build them."""
    return rss(numbered_items(count, prefix=prefix), title=f"{count} items")
