"""djangofeeds.models: due feeds, subscriptions and fencing numbers."""

import os
from datetime import timedelta

import pytest
from django.utils import timezone

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
        " http://a.example/feed.xml ", title="T" * 600, link="javascript:alert(1)", discover=False
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
    first = Feed.objects.next_fence("http://a.example/new.xml")
    second = Feed.objects.next_fence("http://a.example/new.xml")

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
