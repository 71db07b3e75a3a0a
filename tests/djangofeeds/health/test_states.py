"""Feed health (SPEC "Feed health"): the states a local server's answers drive a feed into,
on a clock the test moves (days pass without a sleep), with a record and a signal each."""

from datetime import timedelta
from email.utils import formatdate

import pytest

from djangofeeds import conf
from djangofeeds.health import states
from djangofeeds.models import Feed, Health, HealthChange, Outcome
from djangofeeds.signals import feed_health_changed
from localservers.feed_server import numbered_items, rss
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


def changes(feed):
    """The feed's recorded changes, oldest first, as ``old>new``."""
    return [f"{old}>{new}" for old, new in feed.health_changes.reverse().values_list("old", "new")]


def dated_items(clock, *days_ago, prefix="item"):
    """RSS items published ``days_ago`` days before the test's clock."""
    return [
        {
            "guid": f"{prefix}-{days}",
            "title": f"{prefix} {days}",
            "link": f"http://example.com/{prefix}/{days}",
            "pubDate": formatdate((clock.now - timedelta(days=days)).timestamp(), usegmt=True),
        }
        for days in days_ago
    ]


def test_a_410_makes_the_feed_gone_deactivated_recorded_and_announced(
    feed_server, receive, django_capture_on_commit_callbacks
):
    calls = receive(feed_health_changed)
    url = feed_server.serve("/gone.xml", status=410)

    with django_capture_on_commit_callbacks(execute=True):
        result = import_url(url)

    feed = Feed.objects.get(url=url)
    assert result.outcome == Outcome.FAILED
    assert (feed.health, feed.is_active) == (Health.GONE, False)
    assert changes(feed) == ["ok>gone"]
    assert "410" in feed.health_changes.get().reason
    [call] = calls
    assert (call["sender"], call["feed"], call["old"], call["new"]) == (Feed, feed, "ok", "gone")


def test_server_errors_make_a_feed_failing_then_dead_over_a_week_then_ok_again(
    feed_server, clock, receive, django_capture_on_commit_callbacks
):
    """Failing from the first 5xx; dead at DJANGOFEEDS_DEAD_AFTER (10) failures in a row only
    once they span 7 days, then checked at the longest poll interval; ok when it answers."""
    calls = receive(feed_health_changed)
    url = feed_server.serve("/down.xml", status=503)
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(10):  # ten failures in 6.75 days: not yet dead
            import_url(url)
            clock.advance(hours=18)
        feed = Feed.objects.get(url=url)
        assert (feed.health, feed.error_count) == (Health.FAILING, 10)

        import_url(url)  # 11 failures over 7.5 days
        feed = Feed.objects.get(url=url)
        assert feed.health == Health.DEAD and feed.is_active
        longest = timedelta(seconds=conf.DJANGOFEEDS_MAX_POLL_INTERVAL)
        assert feed.next_check_at >= clock.now + longest
        assert "11 failures in a row since" in feed.health_changes.first().reason

        feed_server.serve("/down.xml", rss(numbered_items(2)))
        clock.advance(days=1)
        import_url(url)

    feed = Feed.objects.get(url=url)
    assert (feed.health, feed.error_count, feed.failing_since) == (Health.OK, 0, None)
    assert changes(feed) == ["ok>failing", "failing>dead", "dead>ok"]
    assert [(call["old"], call["new"]) for call in calls] == [
        ("ok", "failing"),
        ("failing", "dead"),
        ("dead", "ok"),
    ]


def test_a_success_between_failures_starts_the_count_again(feed_server, clock, settings):
    """Dead needs failures in a row: one answer in between and the week starts over."""
    settings.DJANGOFEEDS_DEAD_AFTER = 2
    url = feed_server.serve("/flaky.xml", status=500)
    import_url(url)
    clock.advance(days=8)
    feed_server.serve("/flaky.xml", rss(numbered_items(1)))
    import_url(url)
    feed_server.serve("/flaky.xml", status=500)
    clock.advance(days=1)

    import_url(url)
    import_url(url)

    feed = Feed.objects.get(url=url)
    assert (feed.health, feed.error_count) == (Health.FAILING, 2)
    assert changes(feed) == ["ok>failing", "failing>ok", "ok>failing"]


def test_a_feed_with_no_new_entry_for_a_month_turns_silent_then_ok_with_a_new_one(
    feed_server, clock
):
    """Silent: no entry for 4 usual intervals and 30 days, measured on 304s too."""
    url = feed_server.serve("/quiet.xml", rss(dated_items(clock, 20, 21, 22)), etag='"v1"')
    import_url(url)
    feed = Feed.objects.get(url=url)
    assert (feed.health, feed.entry_interval) == (Health.OK, 86400)

    clock.advance(days=10)  # the newest entry is 30 days old; the server answers 304
    result = import_url(url)

    feed = Feed.objects.get(url=url)
    assert result.outcome == Outcome.NOT_MODIFIED
    assert feed.health == Health.SILENT
    assert feed.health_changes.get().reason.startswith("no new entry since ")

    feed_server.serve("/quiet.xml", rss(dated_items(clock, 0, 30, 31)), etag='"v2"')
    import_url(url)

    feed = Feed.objects.get(url=url)
    assert (feed.health, feed.newest_entry_at) == (Health.OK, clock.now.replace(microsecond=0))


def test_silence_is_measured_by_the_feeds_own_pace_and_never_under_30_days(clock):
    now = clock.now
    day = 86400
    assert not states.is_silent(now - timedelta(days=29), day, now=now)
    assert states.is_silent(now - timedelta(days=30), day, now=now)
    # A monthly publisher is silent only after four months.
    assert not states.is_silent(now - timedelta(days=100), 30 * day, now=now)
    assert states.is_silent(now - timedelta(days=120), 30 * day, now=now)
    assert not states.is_silent(None, None, now=now)  # undated entries tell nothing


def test_a_moved_feed_shows_moved_for_a_week_then_ok(feed_server, clock, settings):
    settings.DJANGOFEEDS_MOVE_AFTER = 1
    target = feed_server.serve("/new.xml", rss(numbered_items(1)))
    old = feed_server.redirect("/old.xml", target, status=301)
    import_url(old)
    clock.advance(days=1)
    import_url(old)
    feed = Feed.objects.get()
    assert (feed.url, feed.health) == (target, Health.MOVED)

    clock.advance(days=6)
    import_url(target)
    assert Feed.objects.get().health == Health.MOVED
    clock.advance(days=1)
    import_url(target)

    assert Feed.objects.get().health == Health.OK
    assert changes(Feed.objects.get()) == ["ok>moved", "moved>ok"]


def test_a_health_change_is_written_under_the_fence_with_its_record(feed_server):
    """A stale import's failure changes nothing: neither the state nor the record."""
    from djangofeeds.importing.importer import fetch_and_store
    from djangofeeds.locking.fence import next_fence

    url = feed_server.serve("/stale.xml", status=410)
    feed = Feed.objects.create(url=url)
    stale = next_fence(url).fence
    next_fence(url)  # a newer import took the feed over

    result = fetch_and_store(feed, fence=stale)

    assert result.outcome == Outcome.FAILED and "newer import" in result.run.error
    assert Feed.objects.get(url=url).health == Health.OK
    assert not HealthChange.objects.exists()
