"""djangofeeds.importing.storage: posts stored in batches, in place, bounded, with few queries."""

import logging
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


def post_selects(captured, stories=False):
    """The SELECTs of posts: those looking up known posts, or (``stories``) those finding
    the posts of other feeds that new ones repeat (stories.grouping.leads)."""
    table = connection.ops.quote_name("djangofeeds_post")  # "…" or `…` (MariaDB/MySQL)
    story_key = connection.ops.quote_name("story_key")
    return [
        query["sql"]
        for query in captured.captured_queries
        # PostgreSQL wraps each side of the known-posts UNION in parentheses.
        if query["sql"].lstrip("(").startswith("SELECT")
        and table in query["sql"]
        and (f"{story_key} IN" in query["sql"]) == stories
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
    assert len(post_selects(first, stories=True)) == 1  # one batch of new posts: one lookup
    assert (result.run.created, result.run.updated) == (0, 0)
    assert len(post_selects(second)) == 3
    assert post_selects(second, stories=True) == []  # nothing new, nothing to group


def atom_entry(updated, title, content):
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>Edited</title>'
        "<id>urn:feed</id><updated>2026-11-28T03:00:00Z</updated>"
        f"<entry><id>urn:entry:1</id><title>{title}</title>"
        f'<updated>{updated}</updated><content type="html">{content}</content></entry></feed>'
    ).encode()


def test_a_poll_of_an_older_copy_never_rolls_a_post_back(feed_server, caplog):
    """A stale copy (a CDN's, a mirror's) dated before the stored post leaves it as it is,
    and the log says so; a newer one still replaces it."""
    url = feed_server.serve("/edited.xml", atom_entry("2026-11-28T02:00:00Z", "Second", "Two"))
    import_url(url)
    feed_server.serve("/edited.xml", atom_entry("2026-11-28T01:00:00Z", "First", "One"))

    with caplog.at_level(logging.INFO, logger="djangofeeds.importing.storage"):
        result = import_url(url)

    assert f"Feed {url}: post urn:entry:1 kept, the entry is older" in caplog.messages

    post = Post.objects.get()
    assert (post.title, post.content, post.updated_at.hour) == ("Second", "Two", 2)
    assert (result.run.created, result.run.updated) == (0, 0)
    feed_server.serve("/edited.xml", atom_entry("2026-11-28T03:00:00Z", "Third", "Three"))
    assert import_url(url).run.updated == 1
    assert Post.objects.get().title == "Third"


def test_an_undated_version_seen_before_never_replaces_the_post(feed_server):
    """Without dates, an entry holding a version its post had before is an older copy: the
    post keeps its newest; a version never seen replaces it. Only the last 8 are kept."""
    items = [{"guid": "undated", "title": "A", "description": "First"}]
    url = feed_server.serve("/undated.xml", rss(items))
    import_url(url)
    for title in ("B", "A"):  # B, then A replayed
        feed_server.serve("/undated.xml", rss([items[0] | {"title": title}]))
        import_url(url)
    assert Post.objects.get().title == "B"

    for title in ("C", "D", "E", "F", "G", "H", "I", "J", "K", "A"):
        feed_server.serve("/undated.xml", rss([items[0] | {"title": title}]))
        import_url(url)
    # A was 10 versions ago: forgotten, so taken as new.
    post = Post.objects.get()
    assert post.title == "A"
    assert len(post.earlier_checksums.split()) == 8
