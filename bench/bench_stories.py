"""Stories at 1,000,000 posts (PostgreSQL): the grouping's cost in an import, the pages' cost.

1,000 feeds and 1,000,000 posts are written by one ``INSERT … SELECT`` from
``generate_series`` (the search trigger off while loading, as a restore does), each
post with the story key the importer gives its link (PostgreSQL's sha256 of the
canonical link), one in ten repeating the post of another feed before it. Then a
feed of 50 new items, half of them other feeds' articles with tracking parameters,
is imported afresh in each round: the time the grouping takes (``grouping.leads``,
one query per batch) against the whole import's. Then the combined Atom feed (and its
304) and ``/feeds/`` over those posts, each story once with "also in". Last, the
upgrade's ``manage.py group_stories``: ``BACKFILLED`` posts as migration 0020 found
them (no key, no story), grouped again.
"""

import os

from bench.harness import Stopwatch, TimeIn, bench_environment, median
from bench.report import Report
from localservers.feed_server import FeedServer, rss

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/djangofeeds_bench"
POSTS = int(os.environ.get("BENCH_STORIES_POSTS", "1000000"))
FEEDS = 1_000
ITEMS = 50
ROUNDS = 7
GETS = 10
NOT_MODIFIED_GETS = 100  # a 304 costs milliseconds: enough of them for a steady median
BACKFILLED = min(100_000, POSTS)


def load_posts():
    """The feeds and ``POSTS`` posts, in SQL; the seconds it took."""
    from django.db import connection

    from djangofeeds.models import Feed

    Feed.objects.bulk_create(
        Feed(url=f"https://feeds.example.com/{n}.xml", title=f"Feed {n}") for n in range(FEEDS)
    )
    first_feed = Feed.objects.order_by("pk").values_list("pk", flat=True)[0]
    # Post n links article n, except every tenth, which repeats article n - 1 (another feed's).
    article = "(CASE WHEN g %% 10 = 0 THEN g - 1 ELSE g END)"  # %%: psycopg's parameters
    canonical = f"'site' || ({article} %% 97) || '.example/articles/' || {article}"
    with Stopwatch() as watch, connection.cursor() as cursor:
        cursor.execute("ALTER TABLE djangofeeds_post DISABLE TRIGGER ALL")
        cursor.execute(
            "INSERT INTO djangofeeds_post (feed_id, guid, guid_hash, title, link, author, "
            "content, published_at, checksum, imported_at, earlier_checksums, image_url, "
            "transcript_url, transcript_type, chapters_url, is_blocked, story_key, "
            "duplicate_of_id) "
            f"SELECT {first_feed} + g %% {FEEDS}, 'post-' || g, md5('post-' || g), "
            "'Article ' || g, 'https://' || " + canonical + ", '', '<p>Body of article ' || g "
            "|| '</p>', now() - g * interval '1 minute', md5(g::text), now(), '', '', '', '', '', "
            "false, substr(encode(sha256(convert_to(" + canonical + ", 'UTF8')), 'hex'), 1, 40), "
            "NULL FROM generate_series(1, %s) AS g",
            [POSTS],
        )
        # The repeats point at the post they repeat (ids follow g: one INSERT, in order).
        cursor.execute(
            "UPDATE djangofeeds_post AS p SET duplicate_of_id = l.id FROM djangofeeds_post AS l "
            "WHERE p.guid LIKE 'post-%%0' AND l.guid = 'post-' || "
            "(substr(p.guid, 6)::bigint - 1)::text"
        )
        cursor.execute("ALTER TABLE djangofeeds_post ENABLE TRIGGER ALL")
        cursor.execute("ANALYZE djangofeeds_post")
        cursor.execute("ANALYZE djangofeeds_feed")
    return watch.ms / 1000


def backfill():
    """The oldest ``BACKFILLED`` posts as migration 0020 found them, then ``group_stored``:
    ``(seconds, posts grouped, posts that were grouped before)``."""
    from djangofeeds.models import Post
    from djangofeeds.stories.grouping import group_stored

    oldest = Post.objects.order_by("pk").values("pk")[:BACKFILLED]
    before = Post.objects.filter(pk__in=oldest, duplicate_of__isnull=False).count()
    Post.objects.filter(pk__in=list(oldest.values_list("pk", flat=True))).update(
        story_key="", duplicate_of=None
    )
    with Stopwatch() as watch:
        keyed, grouped = group_stored()
    assert keyed == BACKFILLED, keyed
    return watch.ms / 1000, grouped, before


def document(round_number):
    """50 new items: even ones repeat stored articles (with tracking), odd ones are new."""
    items = []
    for n in range(ITEMS):
        stored = 1 + (round_number * ITEMS + n) * 7919 % POSTS
        if n % 2 == 0 and stored % 10:
            link = f"https://www.site{stored % 97}.example/articles/{stored}?utm_source=bench"
        else:
            link = f"https://news.example.org/{round_number}/{n}"
        items.append(
            {
                "guid": f"r{round_number}-{n}",
                "title": f"Item {n}",
                "link": link,
                "description": f"<p>Item {n} of round {round_number}</p>",
            }
        )
    return rss(items, title="Bench planet")


def main():
    base = os.environ.get("BENCH_DATABASE_URL") or DEFAULT_DATABASE_URL
    os.environ["BENCH_DATABASE_URL"] = base + "_stories"  # a scratch database of its own
    report = Report("stories", "Stories")
    server = FeedServer().start()
    try:
        with bench_environment():
            from django.test import Client

            from djangofeeds.importing.importer import fetch_and_store
            from djangofeeds.models import Feed, Post
            from djangofeeds.republishing import scopes

            load_seconds = load_posts()
            from djangofeeds.importing import storage

            clock = TimeIn(storage, "leads")  # finding the posts new posts repeat
            imports, grouping, repeats = [], [], []
            for round_number in range(ROUNDS):
                url = server.serve(f"/planet-{round_number}.xml", document(round_number))
                feed = Feed.objects.create(url=url)
                clock.spent = 0.0
                with Stopwatch() as watch:
                    result = fetch_and_store(feed)
                assert result.run.created == ITEMS, result.run.error
                imports.append(watch.ms)
                grouping.append(clock.spent * 1000)
                repeats.append(feed.posts.filter(duplicate_of__isnull=False).count())
            client = Client(HTTP_HOST="localhost")

            def median_get(path):
                client.get(path)  # warm, as a page served all day is
                times = []
                for _ in range(GETS):
                    with Stopwatch() as watch:
                        response = client.get(path)
                    assert response.status_code == 200
                    times.append(watch.ms)
                return median(times)

            pages = {path: median_get(path) for path in ("/feeds/atom/", "/feeds/")}
            etag = client.get("/feeds/atom/")["ETag"]
            not_modified = []
            for _ in range(NOT_MODIFIED_GETS):
                with Stopwatch() as watch:
                    response = client.get("/feeds/atom/", HTTP_IF_NONE_MATCH=etag)
                assert response.status_code == 304
                not_modified.append(watch.ms)
            # The same feed with every post of the active feeds, repeats too (before stories).
            stories_queryset = scopes.stories_queryset
            scopes.stories_queryset = Post.objects.of_active_feeds
            plain_atom = median_get("/feeds/atom/")
            scopes.stories_queryset = stories_queryset
            shown = Post.objects.stories().count()
            backfill_seconds, backfilled, grouped_before = backfill()
    finally:
        server.stop()

    share = median(grouping) / median(imports)
    report.row(
        f"stories: grouping in a first import of {ITEMS} new posts at {POSTS:,} posts "
        "(PostgreSQL, median)",
        f"{median(grouping):.2f} ms (whole import {median(imports):.1f} ms)",
        f"{median(imports):.1f} ms: the import",
        f"{share:.1%}",
        "< 10% of the import's time",
        share < 0.10,
    )
    report.row(
        f"stories: posts_atom, each story once, at {POSTS:,} posts (median)",
        f"{pages['/feeds/atom/']:.1f} ms",
        f"{plain_atom:.1f} ms: every post, repeats too",
        f"{pages['/feeds/atom/'] / plain_atom:.2f}x",
        "median < 50 ms",
        pages["/feeds/atom/"] < 50,
    )
    report.row(
        f"stories: posts_atom unchanged, a 304 (two queries: the posts, their copies), at "
        f"{POSTS:,} posts (median)",
        f"{median(not_modified):.2f} ms",
        goal="< 5 ms",
        met=median(not_modified) < 5,
    )
    report.row(
        f"stories: /feeds/ with 'also in', at {POSTS:,} posts (median)",
        f"{pages['/feeds/']:.1f} ms",
    )
    report.row(
        f"stories: group_stories after the upgrade, {BACKFILLED:,} posts without a key",
        f"{backfill_seconds:.1f} s ({BACKFILLED / backfill_seconds:,.0f} posts/s, "
        f"{backfilled:,} grouped)",
        f"{grouped_before:,} were grouped by their imports",
    )
    report.raw |= {
        "posts": POSTS,
        "load_seconds": load_seconds,
        "imports_ms": imports,
        "grouping_ms": grouping,
        "repeats_found": repeats,
        "pages_ms": pages,
        "posts_atom_without_stories_ms": plain_atom,
        "stories_shown": shown,
        "posts_atom_304_ms": not_modified,
        "backfill_seconds": backfill_seconds,
        "backfill_grouped": backfilled,
        "backfill_grouped_before": grouped_before,
    }
    report.note(
        f"{POSTS:,} posts loaded in {load_seconds:.0f} s, one in ten repeating another feed's; "
        f"each round's feed repeated {min(repeats)}-{max(repeats)} stored articles (found by "
        "their story key, tracking parameters and www. dropped). The grouping is one indexed "
        "query per batch of new posts (story_key IN …), whatever the table's size."
    )
    report.save()


if __name__ == "__main__":
    main()
