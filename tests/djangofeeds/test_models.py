"""djangofeeds.models: due feeds, subscriptions and fencing numbers (raced on two connections)."""

import os
import threading
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from djangofeeds.locking.fence import next_fence
from djangofeeds.models import Feed, InvalidFeedURL, feed_url_problem

pytestmark = pytest.mark.django_db


def test_due_feeds_are_active_and_never_checked_or_past_their_next_check():
    """due() lists active feeds never scheduled or whose next check has come, nothing else."""
    now = timezone.now()
    never = Feed.objects.create(url="http://a.example/never.xml", next_check_at=None)
    past = Feed.objects.create(url="http://a.example/past.xml", next_check_at=now - timedelta(1))
    Feed.objects.create(url="http://a.example/later.xml", next_check_at=now + timedelta(hours=1))
    Feed.objects.create(url="http://a.example/off.xml", is_active=False)

    assert set(Feed.objects.due(now)) == {never, past}


def test_subscribe_adds_a_feed_once_and_keeps_only_a_web_link():
    """subscribe() creates the feed once, trims the URL, and drops a link that is no web link.

    (Without discovery: the host does not exist. ``test_finder`` covers discovery.)
    """
    feed, created = Feed.objects.subscribe(
        " http://a.example/feed.xml ", title="T" * 600, link="javascript:alert(1)"
    )
    again, created_again = Feed.objects.subscribe("http://a.example/feed.xml")

    assert created and not created_again and again == feed
    assert feed.url == "http://a.example/feed.xml" and len(feed.title) == 500 and feed.link == ""


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("", "no URL"),
        ("ftp://a.example/feed", "http"),
        ("http://a.example:99999/feed", "port"),
        ("http://a.example:0/feed", "port 0"),
        ("http://xn--/", "not a valid URL"),
        ("http://a b.example/feed", "not a valid URL"),
        ("http://a.example/" + "x" * 2000, "longer than"),
    ],
)
def test_a_url_that_can_never_be_a_feed_is_refused_in_words(url, words):
    """Each URL a feed can never have is refused, with a phrase saying why."""
    assert words in feed_url_problem(url)
    with pytest.raises(InvalidFeedURL, match=words):
        Feed.objects.subscribe(url)


def test_next_fence_creates_the_feed_and_gives_each_holder_a_higher_number():
    """next_fence() creates a feed seen for the first time, and each call returns a new fence."""
    first = next_fence("http://a.example/new.xml")
    second = next_fence("http://a.example/new.xml")

    assert second.pk == first.pk and second.fence > first.fence
    assert Feed.objects.get(pk=first.pk).fence == second.fence


def test_apps_need_no_migration_on_a_host_with_32_bit_keys():
    """On a host with Django's default AutoField, the apps have no pending migration."""
    import subprocess
    import sys

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings_apps"}
    command = [sys.executable, "-m", "django", "makemigrations", "--check", "--dry-run"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No changes detected" in done.stdout


@pytest.mark.django_db(transaction=True)
def test_next_fence_gives_holders_racing_on_two_connections_distinct_numbers():
    """Two connections taking fences on one new feed at once: one feed, no number twice."""
    url = "http://a.example/raced.xml"
    barrier = threading.Barrier(2)
    fences = [[], []]

    def take(slot):
        try:
            barrier.wait()
            fences[slot] = [next_fence(url).fence for _ in range(40)]
        finally:
            connections.close_all()  # this thread's own connection

    run_on_two_threads(take)

    assert sorted(fences[0] + fences[1]) == list(range(1, 81))
    assert Feed.objects.get(url=url).fence == 80


@pytest.mark.django_db(transaction=True)
def test_next_fence_waits_for_a_fenced_write_in_progress():
    """A new fence is taken only after a write under the old one commits; then it refuses it."""
    old = next_fence("http://a.example/held.xml")
    written, may_commit = threading.Event(), threading.Event()

    def old_holder_writes(slot):
        if slot:
            return
        try:
            with transaction.atomic():
                assert Feed.objects.filter(pk=old.pk, fence=old.fence).update(title="old")
                written.set()
                may_commit.wait(30)
        finally:
            connections.close_all()

    thread = threading.Thread(target=old_holder_writes, args=(0,))
    thread.start()
    assert written.wait(30)
    threading.Timer(0.5, may_commit.set).start()  # next_fence below must wait for it
    new = next_fence(old.url)
    thread.join(30)

    assert new.title == "old" and new.fence == old.fence + 1
    assert not Feed.objects.filter(pk=old.pk, fence=old.fence).update(title="stale")


def run_on_two_threads(target):
    threads = [threading.Thread(target=target, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)


@pytest.mark.skipif(connection.vendor != "mysql", reason="the index is MariaDB/MySQL's own")
def test_feed_lookup_by_url_uses_an_index_on_mariadb():
    """A feed is found by URL through an index, not a table scan (MariaDB's long unique hash
    serves no lookup: migration 0007 adds a prefix index)."""
    Feed.objects.bulk_create(Feed(url=f"http://a.example/{n}.xml") for n in range(300))

    plan = Feed.objects.filter(url="http://a.example/150.xml").explain()

    assert "feed_url_prefix_idx" in plan
