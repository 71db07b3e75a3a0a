"""importing.answers: what a fetch tells about its feed (a permanent move, validators)."""

import pytest

from djangofeeds.models import Feed, Outcome
from localservers.feed_server import http_date, numbered_items, rss
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


def test_import_feed_permanent_redirect_updates_url(feed_server):
    """A chain of permanent redirects (301, 308) moves the feed to its new URL."""
    target = feed_server.serve("/new.xml", rss(numbered_items(1)))
    old = feed_server.redirect("/old.xml", "/moved.xml", status=301)
    feed_server.redirect("/moved.xml", target, status=308)

    import_url(old)

    assert Feed.objects.get().url == target


def test_import_feed_old_url_of_a_moved_feed_makes_no_duplicate(feed_server):
    """A late import of a moved feed's old URL stores nothing and deactivates the copy it made."""
    target = feed_server.serve("/new.xml", rss(numbered_items(2)))
    old = feed_server.redirect("/old.xml", target, status=301)
    import_url(old)
    moved = Feed.objects.get()
    assert moved.url == target

    result = import_url(old)  # a stale task, a script, an OPML file still naming it

    assert result.outcome == Outcome.FAILED and not result.transient
    copy = Feed.objects.get(url=old)
    assert not copy.is_active and f"which is already feed #{moved.pk}" in copy.last_error
    assert copy.posts.count() == 0 and moved.posts.count() == 2


def test_import_feed_permanent_redirect_then_304_updates_url(feed_server):
    """A feed that moved while unchanged still gets its new URL."""
    target = feed_server.serve("/stable.xml", rss(numbered_items(2)), etag='"v1"')
    feed = Feed.objects.create(url=target)
    import_url(target)
    old = feed_server.redirect("/was.xml", target, status=308)
    Feed.objects.filter(pk=feed.pk).update(url=old)

    result = import_url(old)

    assert result.outcome == Outcome.NOT_MODIFIED
    assert Feed.objects.get(pk=feed.pk).url == target


def test_import_feed_permanent_redirect_to_an_overlong_url_keeps_the_old_one(feed_server):
    """A new URL longer than the column holds is followed, not stored."""
    long_path = "/" + "x" * 2100 + ".xml"
    feed_server.serve(long_path, rss(numbered_items(1)))
    old = feed_server.redirect("/short.xml", long_path, status=301)

    result = import_url(old)

    assert result.outcome == Outcome.IMPORTED
    assert Feed.objects.get().url == old


def test_import_feed_200_without_validators_forgets_the_old_ones(feed_server):
    """A server that stopped sending ETag/Last-Modified is no longer asked with them."""
    url = feed_server.serve("/v.xml", rss(numbered_items(1)))
    Feed.objects.create(url=url, etag='"old"', last_modified=http_date(7200))

    import_url(url)

    feed = Feed.objects.get(url=url)
    assert (feed.etag, feed.last_modified) == ("", "")
