"""djangofeeds.importing.storage: posts stored in batches, in place, bounded, with few queries."""

import random

import pytest
from django.db import connection

from djangofeeds.models import Post
from localservers.feed_server import numbered_items, rss
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


def test_import_feed_updates_changed_posts_in_place(feed_server):
    """A changed entry updates its post in place; no post is created."""
    items = numbered_items(3)
    url = feed_server.serve("/edit.xml", rss(items))
    import_url(url)
    before = dict(Post.objects.values_list("guid", "pk"))

    items[1]["title"] = "Corrected title"
    feed_server.serve("/edit.xml", rss(items))
    result = import_url(url)

    assert (result.run.created, result.run.updated) == (0, 1)
    assert dict(Post.objects.values_list("guid", "pk")) == before
    assert Post.objects.get(guid="item-1").title == "Corrected title"


def test_import_feed_stores_in_bulk_not_per_entry(feed_server, django_assert_max_num_queries):
    """300 entries, a first import, are stored in one batch with at most 20 queries in all."""
    url = feed_server.serve("/bulk.xml", rss(numbered_items(300)))

    # One batch (of up to 1,000: a first import): savepoint, fence check, bulk
    # upsert (a few INSERTs on SQLite, by its parameter limit), the feed's
    # categories, the feed's update and the run, release; plus creating the feed.
    with django_assert_max_num_queries(20):
        result = import_url(url)

    assert result.run.created == 300 and Post.objects.count() == 300


def test_import_feed_keeps_the_newest_500_entries(feed_server):
    """By date, not by position: the feed lists its items in no particular order."""
    items = numbered_items(600)
    random.Random(7).shuffle(items)
    url = feed_server.serve("/long.xml", rss(items))

    result = import_url(url)

    assert result.run.created == 500
    assert Post.objects.filter(guid="item-0").exists()  # the newest
    assert not Post.objects.filter(guid="item-599").exists()  # the oldest


def post_selects(captured):
    table = connection.ops.quote_name("djangofeeds_post")  # "…" or `…` (MariaDB/MySQL)
    return [
        query["sql"]
        for query in captured.captured_queries
        # PostgreSQL wraps each side of the known-posts UNION in parentheses.
        if query["sql"].lstrip("(").startswith("SELECT") and table in query["sql"]
    ]


def test_import_feed_first_import_looks_up_known_posts_once(
    feed_server, django_assert_max_num_queries
):
    """A feed never imported has no posts to compare with: one query says so, instead of one
    SELECT per batch of 100; later imports compare each batch."""
    body = rss(numbered_items(300))
    url = feed_server.serve("/first.xml", body)

    with django_assert_max_num_queries(30) as first:
        assert import_url(url).run.created == 300
    feed_server.serve("/first.xml", body + b"\n")
    with django_assert_max_num_queries(30) as second:
        result = import_url(url)

    assert len(post_selects(first)) == 1 and "LIMIT 1" in post_selects(first)[0]
    assert (result.run.created, result.run.updated) == (0, 0)
    assert len(post_selects(second)) == 3
