"""Enclosures and categories through the importer: stored in bulk, updated, fenced, bounded."""

import pytest
from django.db import connection

from djangofeeds.importing.importer import fetch_and_store
from djangofeeds.locking.fence import next_fence
from djangofeeds.models import Category, Enclosure, Feed, Post
from djangofeeds.parsing.media import MAX_CATEGORIES
from localservers.feed_server import numbered_items, rss, with_media
from tests.support.fixtures import fixture
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


def enclosures_of(post):
    return list(post.enclosures.values_list("url", "type", "length"))


def categories_of(post_or_feed):
    return sorted(post_or_feed.categories.values_list("name", "domain"))


def test_json_feed_attachments_and_tags_are_stored_by_the_same_rules(feed_server):
    """JSON Feed attachments become enclosures and its tags categories, as RSS and Atom's do."""
    url = feed_server.serve(
        "/feed.json", fixture("jsonfeed-attachments.json"), content_type="application/feed+json"
    )

    result = import_url(url)

    assert result.run.created == 2
    feed = Feed.objects.get(url=url)
    second, first = feed.posts.get(guid="qc-2"), feed.posts.get(guid="qc-1")
    # The relative attachment resolves against the feed's own (loopback) URL: not a public link.
    assert enclosures_of(second) == [
        ("https://queuecast.example.net/notes/qc-2.pdf", "application/pdf", None)
    ]
    if connection.vendor == "mysql":  # its default collations hold "Celery" and "celery" as one
        folded = [(name.lower(), domain) for name, domain in categories_of(second)]
        assert folded == [("celery", ""), ("reliability", "")]
    else:
        assert categories_of(second) == [("Celery", ""), ("celery", ""), ("reliability", "")]
    assert enclosures_of(first) == [
        ("https://queuecast.example.net/audio/qc-1.mp3", "audio/mpeg", None)
    ]
    assert categories_of(first) == [("Pilot", "")]
    assert "enclosure URLs that are not public http(s) links" in result.run.warning


def test_podcast_import_stores_enclosures_and_categories(feed_server):
    """A podcast import stores the feed's and each post's categories and enclosures."""
    url = feed_server.serve("/podcast.xml", fixture("podcast.xml"))

    result = import_url(url)

    assert result.run.created == 3
    feed = Feed.objects.get(url=url)
    assert categories_of(feed) == [
        ("Programming", ""),
        ("Software How-To", "http://www.itunes.com/"),
        ("Technology", "http://www.itunes.com/"),
    ]
    third = feed.posts.get(guid="dtr-episode-3")
    assert enclosures_of(third) == [
        ("https://cdn.example.com/dtr/episode-3.mp3", "audio/mpeg", 48211456)
    ]
    assert categories_of(third) == [
        ("Brokers", "https://radio.example.com/topics"),
        ("Message queues", ""),
        ("rabbitmq", "http://www.itunes.com/"),
        ("redis", "http://www.itunes.com/"),
    ]
    assert enclosures_of(feed.posts.get(guid="dtr-episode-2")) == [
        ("https://cdn.example.com/dtr/episode-2.mp4", "video/mp4", None),
        ("https://cdn.example.com/dtr/episode-2-notes.pdf", "application/pdf", None),
    ]
    # javascript:, data: and a private address were not stored; the real file was.
    assert enclosures_of(feed.posts.get(guid="dtr-episode-1")) == [
        ("https://cdn.example.com/dtr/episode-1.m4a", "audio/mp4", 12345)
    ]


def test_import_records_what_it_dropped_on_the_run(feed_server):
    """What normalization dropped is counted in the run's warning."""
    url = feed_server.serve("/podcast.xml", fixture("podcast.xml"))

    run = import_url(url).run

    assert "3 enclosure URLs that are not public http(s) links" in run.warning
    assert "2 enclosure lengths that are not a number (stored as unknown)" in run.warning


def test_atom_import_stores_enclosure_links_and_categories(feed_server):
    """An Atom import stores enclosure links and categories, one row per shared category."""
    url = feed_server.serve(
        "/talks.atom", fixture("atom-media.xml"), content_type="application/atom+xml"
    )

    import_url(url)

    feed = Feed.objects.get(url=url)
    assert categories_of(feed) == [("Conferences", "https://talks.example.org/tags")]
    scaling = feed.posts.get(title="Scaling Celery to a million feeds")
    assert enclosures_of(scaling) == [
        ("https://talks.example.org/media/scaling.webm", "video/webm", 734003200),
        ("https://talks.example.org/media/scaling-slides.pdf", "application/pdf", None),
    ]
    assert categories_of(scaling) == [
        ("Celery", "https://talks.example.org/tags"),
        ("python", ""),
        ("scaling", "https://talks.example.org/tags"),
    ]
    # One "python" category serves both posts.
    assert Category.objects.get(name="python").posts.count() == 2


def test_ten_thousand_categories_on_one_item_are_cut_and_the_import_carries_on(feed_server):
    """10,000 categories on one item are cut to the bound; the import goes on and says so."""
    items = numbered_items(3)
    items[1]["categories"] = [(f"tag {n}", "") for n in range(10_000)]
    url = feed_server.serve("/tags.xml", rss(items))

    run = import_url(url).run

    assert run.created == 3
    crowded = Post.objects.get(guid="item-1")
    assert crowded.categories.count() == MAX_CATEGORIES
    assert f"{10_000 - MAX_CATEGORIES:,} categories over {MAX_CATEGORIES} per item" in run.warning


def test_changed_enclosures_and_categories_replace_the_old_ones(feed_server):
    """Changed enclosures and categories replace the old ones of the updated post."""
    items = numbered_items(3)
    items[0]["enclosures"] = [("https://cdn.example.com/old.mp3", "audio/mpeg", 10)]
    items[0]["categories"] = [("Old", "")]
    url = feed_server.serve("/changing.xml", rss(items))
    import_url(url)

    items[0]["enclosures"] = [("https://cdn.example.com/new.ogg", "audio/ogg", 20)]
    items[0]["categories"] = [("New", ""), ("Also new", "")]
    feed_server.serve("/changing.xml", rss(items))
    run = import_url(url).run

    assert (run.created, run.updated) == (0, 1)
    post = Post.objects.get(guid="item-0")
    assert enclosures_of(post) == [("https://cdn.example.com/new.ogg", "audio/ogg", 20)]
    assert categories_of(post) == [("Also new", ""), ("New", "")]
    assert Enclosure.objects.count() == 1


def test_removed_enclosures_count_as_a_change(feed_server):
    """An entry that loses its enclosure updates its post and removes the enclosure."""
    items = numbered_items(2)
    items[0]["enclosures"] = [("https://cdn.example.com/gone.mp3", "audio/mpeg", 10)]
    url = feed_server.serve("/removed.xml", rss(items))
    import_url(url)

    del items[0]["enclosures"]
    feed_server.serve("/removed.xml", rss(items))
    run = import_url(url).run

    assert run.updated == 1
    assert not Enclosure.objects.exists()


def test_unchanged_reimport_rewrites_no_enclosure_or_category(
    feed_server, django_assert_max_num_queries
):
    """Writes only its ImportRun; one query more than a plain feed (its categories' ids)."""
    url = feed_server.serve("/same.xml", rss(with_media(numbered_items(50))))
    import_url(url)

    with django_assert_max_num_queries(9) as captured:
        result = import_url(url)

    assert (result.run.created, result.run.updated) == (0, 0)
    writes = [q["sql"] for q in captured.captured_queries if q["sql"].startswith(("INSERT", "DEL"))]
    assert all("djangofeeds_importrun" in sql for sql in writes), writes


def first_import_queries(feed_server, count, django_assert_max_num_queries):
    url = feed_server.serve(f"/media-{count}.xml", rss(with_media(numbered_items(count))))
    with django_assert_max_num_queries(1000) as captured:
        import_url(url)
    assert Enclosure.objects.filter(post__feed__url=url).count() == count
    return len(captured.captured_queries)


def test_first_import_queries_grow_per_batch_not_per_post(
    feed_server, django_assert_max_num_queries
):
    """Posts, enclosures and categories in bulk: 400 more posts cost a few queries, not 400."""
    small = first_import_queries(feed_server, 100, django_assert_max_num_queries)
    large = first_import_queries(feed_server, 500, django_assert_max_num_queries)

    # A first import is one batch of up to 1,000 (a later one, batches of 100:
    # savepoint, fence claim, known posts, posts, enclosures, category links,
    # release); more posts add INSERTs only on SQLite, by its parameter limit.
    assert large - small <= 4 * 8
    assert small <= 25  # 100 posts, 100 enclosures, 300 category links


def test_stale_fence_writes_no_enclosure_or_category(feed_server):
    """An import with a stale fence writes no post, enclosure or category."""
    url = feed_server.serve("/fenced.xml", rss(with_media(numbered_items(5))))
    holder = next_fence(url)
    next_fence(url)  # a newer holder took over

    result = fetch_and_store(holder, fence=holder.fence)

    assert "newer import" in result.run.error
    assert not Post.objects.exists() and not Enclosure.objects.exists()
    assert not Post.categories.through.objects.exists()
    assert not Feed.categories.through.objects.exists()
