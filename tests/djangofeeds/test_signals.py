"""djangofeeds/signals.py: posts_stored, feed_failing and feed_deactivated, sent after commit."""

import pytest

from djangofeeds.importing import records
from djangofeeds.importing.records import record_crash
from djangofeeds.locking.fence import next_fence
from djangofeeds.models import Feed
from djangofeeds.signals import feed_deactivated, feed_failing, posts_stored
from localservers.feed_server import numbered_items, rss
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


def committed(capture, action):
    """Run ``action`` in the test's transaction; return the on-commit callbacks it left, unrun."""
    with capture(execute=False) as callbacks:
        action()
    return callbacks


def test_posts_stored_is_sent_after_commit_with_the_new_posts(
    feed_server, receive, django_capture_on_commit_callbacks
):
    """A first import sends posts_stored once its transaction commits, not before: sender Feed,
    the feed, the run, and every post as created."""
    calls = receive(posts_stored)
    url = feed_server.serve("/new.xml", rss(numbered_items(3)))

    callbacks = committed(django_capture_on_commit_callbacks, lambda: import_url(url))

    assert calls == []  # nothing before the commit
    for callback in callbacks:
        callback()
    [call] = calls
    feed = Feed.objects.get(url=url)
    assert (call["sender"], call["feed"], call["run"].created) == (Feed, feed, 3)
    assert sorted(call["created"].values_list("guid", flat=True)) == ["item-0", "item-1", "item-2"]
    assert list(call["updated"]) == []


def test_posts_stored_lists_new_and_changed_posts_apart(
    feed_server, receive, django_capture_on_commit_callbacks
):
    """A re-import with one new and one edited entry: created holds the new post, updated the
    edited one; the unchanged posts are in neither."""
    items = numbered_items(3)
    url = feed_server.serve("/edit.xml", rss(items))
    import_url(url)
    calls = receive(posts_stored)
    items[1]["title"] = "Corrected title"
    feed_server.serve("/edit.xml", rss([*numbered_items(1, prefix="new"), *items]))

    with django_capture_on_commit_callbacks(execute=True):
        import_url(url)

    [call] = calls
    assert list(call["created"].values_list("guid", flat=True)) == ["new-0"]
    assert list(call["updated"].values_list("guid", "title")) == [("item-1", "Corrected title")]


def test_posts_stored_is_not_sent_when_nothing_was_stored(
    feed_server, receive, django_capture_on_commit_callbacks
):
    """A 304, the same bytes again, and other bytes with the same entries send nothing."""
    body = rss(numbered_items(3))
    url = feed_server.serve("/same.xml", body, etag='"v1"')
    import_url(url)
    calls = receive(posts_stored)

    with django_capture_on_commit_callbacks(execute=True):
        assert import_url(url).outcome == "not_modified"  # 304
        feed_server.serve("/same.xml", body)
        assert import_url(url).outcome == "not_modified"  # the same bytes
        feed_server.serve("/same.xml", body + b"\n")
        assert import_url(url).outcome == "imported"  # parsed, nothing changed

    assert calls == []


def test_feed_failing_is_sent_when_a_healthy_feed_first_fails(
    feed_server, receive, django_capture_on_commit_callbacks
):
    """The first failure after a success sends feed_failing with the run and its error; the
    second does not; a recovery arms it again."""
    calls = receive(feed_failing)
    url = feed_server.serve("/flaky.xml", rss(numbered_items(1)))
    import_url(url)

    with django_capture_on_commit_callbacks(execute=True):
        feed_server.serve("/flaky.xml", "missing", status=404)
        first = import_url(url)
        import_url(url)
    [call] = calls
    assert (call["sender"], call["feed"].url, call["run"]) == (Feed, url, first.run)
    assert "404" in call["error"] and call["feed"].error_count == 1

    with django_capture_on_commit_callbacks(execute=True):
        feed_server.serve("/flaky.xml", rss(numbered_items(2)))
        import_url(url)
        feed_server.serve("/flaky.xml", "missing", status=404)
        import_url(url)
    assert len(calls) == 2


def test_feed_failing_is_sent_for_a_crash_that_fails_a_healthy_feed(
    receive, django_capture_on_commit_callbacks
):
    """An import that crashed under the newest fence counts as the feed's first failure."""
    calls = receive(feed_failing)
    feed = next_fence("http://a.example/feed.xml")

    with django_capture_on_commit_callbacks(execute=True):
        result = record_crash(feed.url, "RuntimeError: boom", fence=feed.fence)

    [call] = calls
    assert (call["feed"].pk, call["run"], call["error"]) == (
        feed.pk,
        result.run,
        "RuntimeError: boom",
    )


def test_feed_deactivated_is_sent_by_a_410_with_the_run(
    feed_server, receive, django_capture_on_commit_callbacks
):
    """410 Gone deactivates the feed: feed_deactivated (and, as its first failure, feed_failing)."""
    deactivated, failing = receive(feed_deactivated), receive(feed_failing)
    url = feed_server.serve("/gone.xml", "gone", status=410)

    with django_capture_on_commit_callbacks(execute=True):
        result = import_url(url)

    [call] = deactivated
    assert (call["sender"], call["run"], call["feed"].is_active) == (Feed, result.run, False)
    assert "410" in call["reason"]
    assert len(failing) == 1


def test_feed_deactivated_is_sent_by_deactivate_for_active_feeds_only(
    receive, django_capture_on_commit_callbacks
):
    """records.deactivate() (the admin's action) sends it once per feed that was active,
    after commit, with no run."""
    calls = receive(feed_deactivated)
    active = Feed.objects.create(url="http://a.example/one.xml")
    Feed.objects.create(url="http://a.example/two.xml", is_active=False)

    callbacks = committed(
        django_capture_on_commit_callbacks, lambda: records.deactivate(Feed.objects.all(), "test")
    )

    assert calls == [] and not Feed.objects.filter(is_active=True).exists()
    for callback in callbacks:
        callback()
    assert [(call["feed"].pk, call["run"], call["reason"]) for call in calls] == [
        (active.pk, None, "test")
    ]
