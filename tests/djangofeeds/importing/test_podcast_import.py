"""Podcast details through the importer: each episode's on its post, the artwork on its feed,
rewritten only when they change."""

from dataclasses import replace

import pytest

from djangofeeds.models import Feed, Post
from djangofeeds.parsing.podcasts import PodcastDetails
from djangofeeds.parsing.readers import parse
from localservers.feed_server import json_feed
from tests.support.fixtures import fixture
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db

PODCAST_FIELDS = [
    *("duration", "image_url", "season", "episode", "explicit"),
    *("transcript_url", "transcript_type", "chapters_url"),
]


def details_of(post):
    return {name: getattr(post, name) for name in PODCAST_FIELDS}


def test_podcast_import_stores_each_episodes_details_and_the_feeds_artwork(feed_server):
    """A podcast's import stores each episode's duration, artwork, season and episode,
    explicit, transcript and chapters, by the parsing rules; the channel's itunes:image is
    the feed's artwork (before its <image>)."""
    url = feed_server.serve("/queues.xml", fixture("podcast-episodes.xml"))

    result = import_url(url)

    assert result.run.created == 3
    feed = Feed.objects.get(url=url)
    assert feed.image_url == "https://cdn.example.com/qs/cover.jpg"
    assert details_of(feed.posts.get(guid="qs-12")) == {
        "duration": 3723,
        "image_url": "https://cdn.example.com/qs/12.jpg",
        "season": 2,
        "episode": 5,
        "explicit": True,
        "transcript_url": "https://cdn.example.com/qs/12.html",  # the readable one of two
        "transcript_type": "text/html",
        "chapters_url": "https://cdn.example.com/qs/12-chapters.json",
    }
    # "two" and "-1" are no numbers, javascript: no artwork (the thumbnail is), a private
    # address no transcript.
    assert details_of(feed.posts.get(guid="qs-11")) == {
        "duration": 1200,
        "image_url": "https://cdn.example.com/qs/11-thumb.jpg",
        "season": None,
        "episode": None,
        "explicit": False,
        "transcript_url": "",
        "transcript_type": "",
        "chapters_url": "",
    }
    assert details_of(feed.posts.get(guid="qs-note-1")) == {
        **dict.fromkeys(PODCAST_FIELDS, ""),
        **dict.fromkeys(["duration", "season", "episode", "explicit"], None),
    }


def test_a_changed_detail_rewrites_its_post_and_nothing_else(feed_server):
    """The details are in the checksum: the same document (new bytes) rewrites nothing; a new
    duration rewrites that post only."""
    body = fixture("podcast-episodes.xml")
    url = feed_server.serve("/queues.xml", body)
    import_url(url)

    feed_server.serve("/queues.xml", body + b"\n")
    assert import_url(url).run.updated == 0

    feed_server.serve("/queues.xml", body.replace(b">20:00<", b">21:30<"))
    run = import_url(url).run

    assert (run.created, run.updated) == (0, 1)
    assert Post.objects.get(guid="qs-11").duration == 1290


def test_posts_stored_before_the_details_get_them_at_the_next_import_once(feed_server):
    """A post stored before this feature (no details, its checksum without them) is rewritten
    once with its details; a post without any keeps its checksum and is not rewritten."""
    body = fixture("podcast-episodes.xml")
    url = feed_server.serve("/queues.xml", body)
    import_url(url)
    for entry in parse(body, url=url).entries:  # as the importer stored them before
        old = replace(entry, podcast=PodcastDetails())
        Post.objects.filter(guid=entry.guid).update(
            checksum=old.checksum, **{name: getattr(old.podcast, name) for name in PODCAST_FIELDS}
        )

    feed_server.serve("/queues.xml", body + b"\n")
    run = import_url(url).run

    assert (run.created, run.updated) == (0, 2)  # the two episodes, not the note
    assert Post.objects.get(guid="qs-12").duration == 3723
    feed_server.serve("/queues.xml", body + b"\n\n")
    assert import_url(url).run.updated == 0


def test_json_feed_image_duration_and_icon_are_stored(feed_server):
    """JSON Feed: an item's image (else banner_image), its attachments' duration_in_seconds,
    the feed's icon; resolved against the feed's (here loopback, so refused) URL otherwise."""
    items = [
        {
            "id": "ep-2",
            "content_text": "Second",
            "image": "https://cdn.example.com/ep-2.jpg",
            "attachments": [
                {"url": "https://cdn.example.com/ep-2.mp3", "duration_in_seconds": 1805.4}
            ],
        },
        {"id": "ep-1", "content_text": "First", "banner_image": "/banners/ep-1.png"},
    ]
    body = json_feed(items, icon="https://cdn.example.com/icon-512.png")
    url = feed_server.serve("/feed.json", body, content_type="application/feed+json")

    import_url(url)

    feed = Feed.objects.get(url=url)
    assert feed.image_url == "https://cdn.example.com/icon-512.png"
    second, first = feed.posts.get(guid="ep-2"), feed.posts.get(guid="ep-1")
    assert (second.duration, second.image_url) == (1805, "https://cdn.example.com/ep-2.jpg")
    assert (first.duration, first.image_url) == (None, "")  # relative to 127.0.0.1: not public
