"""importing.answers: what a fetch tells about its feed (a confirmed permanent move, validators)."""

import pytest

from djangofeeds.models import Feed, Health, HealthChange, Outcome
from localservers.feed_server import http_date, numbered_items, rss
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


def test_a_permanent_redirect_moves_the_feed_once_confirmed_over_a_day(feed_server, clock):
    """A chain of permanent redirects (301, 308) is followed at once, but the stored URL
    changes only after DJANGOFEEDS_MOVE_AFTER (3) fetches in a row over at least 24 hours."""
    target = feed_server.serve("/new.xml", rss(numbered_items(1)))
    old = feed_server.redirect("/old.xml", "/moved.xml", status=301)
    feed_server.redirect("/moved.xml", target, status=308)

    for _ in range(3):
        assert import_url(old).outcome in (Outcome.IMPORTED, Outcome.NOT_MODIFIED)
        clock.advance(hours=1)
    feed = Feed.objects.get()
    assert (feed.url, feed.redirect_url, feed.redirect_count) == (old, target, 3)
    assert feed.health == Health.OK and feed.posts.count() == 1

    clock.advance(hours=21)
    import_url(old)

    feed = Feed.objects.get()
    assert (feed.url, feed.redirect_url, feed.redirect_count) == (target, "", 0)
    assert feed.health == Health.MOVED
    change = HealthChange.objects.get(feed=feed)
    assert (change.old, change.new, change.reason) == (
        "ok",
        "moved",
        f"moved permanently to {target}",
    )


def test_a_redirect_that_changes_target_or_stops_is_counted_again(feed_server, clock, settings):
    """Only identical redirects in a row count: a new target starts over, a plain answer forgets."""
    settings.DJANGOFEEDS_MOVE_AFTER = 2
    first = feed_server.serve("/a.xml", rss(numbered_items(1)))
    second = feed_server.serve("/b.xml", rss(numbered_items(1)))
    old = feed_server.redirect("/old.xml", first, status=301)
    import_url(old)
    clock.advance(days=2)
    feed_server.redirect("/old.xml", second, status=301)

    import_url(old)

    feed = Feed.objects.get()
    assert (feed.url, feed.redirect_url, feed.redirect_count) == (old, second, 1)
    feed_server.serve("/old.xml", rss(numbered_items(1)))
    clock.advance(days=2)
    import_url(old)
    feed = Feed.objects.get()
    assert (feed.url, feed.redirect_url, feed.redirect_count) == (old, "", 0)


def test_import_feed_old_url_of_a_moved_feed_makes_no_duplicate(feed_server):
    """A late import of a moved feed's old URL stores nothing and deactivates the copy it made."""
    target = feed_server.serve("/new.xml", rss(numbered_items(2)))
    old = feed_server.redirect("/old.xml", target, status=301)
    moved = Feed.objects.create(url=target)
    import_url(target)

    result = import_url(old)  # a stale task, a script, an OPML file still naming it

    assert result.outcome == Outcome.FAILED and not result.transient
    copy = Feed.objects.get(url=old)
    assert not copy.is_active and f"which is already feed #{moved.pk}" in copy.last_error
    assert copy.health == Health.MOVED
    assert copy.posts.count() == 0 and moved.posts.count() == 2


def test_import_feed_permanent_redirect_then_304_updates_url(feed_server, clock, settings):
    """A feed that moved while unchanged still gets its new URL."""
    settings.DJANGOFEEDS_MOVE_AFTER = 1
    target = feed_server.serve("/stable.xml", rss(numbered_items(2)), etag='"v1"')
    feed = Feed.objects.create(url=target)
    import_url(target)
    old = feed_server.redirect("/was.xml", target, status=308)
    Feed.objects.filter(pk=feed.pk).update(url=old)
    import_url(old)
    clock.advance(hours=24)

    result = import_url(old)

    assert result.outcome == Outcome.NOT_MODIFIED
    assert Feed.objects.get(pk=feed.pk).url == target


def test_import_feed_permanent_redirect_to_an_overlong_url_keeps_the_old_one(feed_server, clock):
    """A new URL longer than the column holds is followed, not stored nor counted."""
    long_path = "/" + "x" * 2100 + ".xml"
    feed_server.serve(long_path, rss(numbered_items(1)))
    old = feed_server.redirect("/short.xml", long_path, status=301)

    for _ in range(4):
        result = import_url(old)
        clock.advance(days=1)

    assert result.outcome in (Outcome.IMPORTED, Outcome.NOT_MODIFIED)
    assert Feed.objects.get().url == old and Feed.objects.get().redirect_count == 0


def test_import_feed_200_without_validators_forgets_the_old_ones(feed_server):
    """A server that stopped sending ETag/Last-Modified is no longer asked with them."""
    url = feed_server.serve("/v.xml", rss(numbered_items(1)))
    Feed.objects.create(url=url, etag='"old"', last_modified=http_date(7200))

    import_url(url)

    feed = Feed.objects.get(url=url)
    assert (feed.etag, feed.last_modified) == ("", "")
