"""Where the store phase of a first import goes, measured in one process.

Not part of ``make bench``: a developer's tool for bench_import's "store phase"
(the same 2,000-item feed, the importer's cut raised to 2,000, PostgreSQL). Each
round empties the tables and imports the feed with ``fetch_and_store`` as the
benchmark does, with the store's steps timed in place: building the Post objects,
the upsert, the media and categories, the feed's updates, the commits, and every
SQL statement by kind (its time is the client's wait, PostgreSQL's work
included). The last round also runs under cProfile, the top functions printed.
Then the same rounds on PostgreSQL without the posts' search column (a generated
tsvector) and its GIN index, to see what they cost an insert::

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/me_bench \
        .venv/bin/python -m bench.profile_store
"""

import cProfile
import os
import pstats
import re
import time
from collections import defaultdict

from bench.harness import bench_environment, feed_document, median
from localservers.feed_server import FeedServer

ITEMS = 2_000
TABLE = re.compile(r'(?:FROM|INTO|UPDATE)\s+"?(\w+)"?', re.IGNORECASE)
ROUNDS = int(os.environ.get("PROFILE_STORE_ROUNDS", 5))


class Clock:
    """Exclusive wall time by label (a label's time less its inner labels'); SQL by kind."""

    def __init__(self):
        self.stack = []
        self.ms = defaultdict(float)
        self.sql = defaultdict(lambda: [0, 0.0])

    def wrap(self, owner, name, label):
        original = getattr(owner, name)
        clock = self

        def timed(*args, **kwargs):
            # A commit is charged to the step that made it.
            inside = clock.stack[-1][0] if clock.stack else "-"
            named = f"{label} [in {inside}]" if label == "COMMIT" else label
            frame = [named, 0.0]  # label, time of inner labels
            clock.stack.append(frame)
            began = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = (time.perf_counter() - began) * 1000
                clock.stack.pop()
                clock.ms[named] += elapsed - frame[1]
                if clock.stack:
                    clock.stack[-1][1] += elapsed

        setattr(owner, name, timed)

    def execute(self, execute, sql, params, many, context):
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            verb = sql.split(None, 1)[0].upper() if sql.strip() else "?"
            table = TABLE.search(sql)
            table = table.group(1) if table else ""
            inside = self.stack[-1][0] if self.stack else "-"
            entry = self.sql[f"{verb} {table} [in {inside}]"]
            entry[0] += 1
            entry[1] += (time.perf_counter() - began) * 1000


def instrument(clock):
    from django.db.backends.base.base import BaseDatabaseWrapper

    from djangofeeds.importing import importer, storage
    from djangofeeds.models import Post

    clock.wrap(importer.Importer, "execute", "rest of the import (fetch, parse, the run)")
    clock.wrap(storage.PostStore, "store", "store_posts (its own Python)")
    clock.wrap(storage.PostStore, "post", "build Post objects")
    clock.wrap(type(Post.objects), "upsert", "upsert (bulk_create ON CONFLICT)")
    clock.wrap(storage, "store_media", "store_media")
    clock.wrap(storage, "category_ids", "category_ids")
    clock.wrap(importer.Importer, "hold_fence", "claim (fenced feed UPDATE)")
    clock.wrap(storage.PostStore, "prune", "prune")
    clock.wrap(importer, "save_fetched", "save_feed")
    clock.wrap(BaseDatabaseWrapper, "commit", "COMMIT")
    clock.wrap(importer, "publishing_rate", "publishing_rate")


def main():
    server = FeedServer().start()
    try:
        with bench_environment():
            profile(server)
    finally:
        server.stop()


def profile(server):
    from django.conf import settings
    from django.db import connection

    from bench.harness import import_url
    from djangofeeds.models import Category, Feed, Post
    from djangofeeds.parsing import entries

    entries.MAX_ENTRIES = ITEMS
    settings.DJANGOFEEDS_KEEP_POSTS = ITEMS
    url = server.serve("/2000.xml", feed_document(ITEMS))
    clock = Clock()
    instrument(clock)

    def measure(label, profiler=None):
        rounds = []
        for number in range(ROUNDS):
            Feed.objects.all().delete()
            Category.objects.all().delete()
            clock.ms.clear()
            clock.sql.clear()
            last = profiler is not None and number == ROUNDS - 1
            with connection.execute_wrapper(clock.execute):
                if last:
                    profiler.enable()
                run = import_url(url).run
                if last:
                    profiler.disable()
            assert Post.objects.count() == ITEMS
            rounds.append(
                {"store_ms": run.store_ms, "parse_ms": run.parse_ms, "fetch_ms": run.fetch_ms}
                | dict(clock.ms)
                | {f"SQL {kind} ({n}x)": ms for kind, (n, ms) in clock.sql.items()}
            )
        keys = list(dict.fromkeys(key for r in rounds for key in r))
        print(f"\n{label}: medians of {ROUNDS} first imports of {ITEMS:,} items")
        print("(labels exclusive; SQL is the client's wait, inside its label)")
        store = median([r["store_ms"] for r in rounds])
        for key in keys:
            value = median([r.get(key, 0) for r in rounds])
            per_item = value * 1000 / ITEMS
            print(f"{key:<70} {value:8.1f} ms {per_item:6.1f} us/item {value / store:6.1%}")

    profiler = cProfile.Profile()
    measure("as deployed", profiler)
    if connection.vendor == "postgresql":
        # What the search column costs an insert: the same rounds without it (this
        # benchmark database only; the next benchmark creates it anew).
        with connection.cursor() as cursor:
            cursor.execute("DROP INDEX IF EXISTS post_search_idx")
            cursor.execute("ALTER TABLE djangofeeds_post DROP COLUMN IF EXISTS search_vector")
        measure("without the search column and its GIN index")
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
