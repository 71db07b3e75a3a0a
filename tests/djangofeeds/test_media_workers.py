"""A podcast through real worker processes: enclosures stored, history bounded, cleanup run."""

import pytest

from djangofeeds.models import Enclosure, Feed, ImportRun, Post
from djangofeeds.tasks import cleanup, import_feed
from tests.support.fixtures import fixture
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db(transaction=True)


def test_podcast_through_a_worker_keeps_its_newest_episodes_with_their_audio(
    feed_server, memcached, worker_factory
):
    """KEEP_POSTS=2 on a 3-episode podcast: 2 kept with enclosures; a re-import adds nothing."""
    worker_factory(
        queues=["feeds"],
        env={"MEMCACHED_LOCATION": memcached.location, "DJANGOFEEDS_KEEP_POSTS": "2"},
    )
    body = fixture("podcast.xml")
    url = feed_server.serve("/podcast.xml", body)

    first = import_feed.delay(url).get(timeout=60)
    # Other bytes, the same episodes: parsed again (the very same bytes stop before parsing).
    feed_server.serve("/podcast.xml", body + b"\n")
    second = import_feed.delay(url).get(timeout=60)

    assert (first["status"], first["created"]) == ("imported", 3)
    assert (second["status"], second["created"], second["updated"]) == ("imported", 0, 0)
    feed = Feed.objects.get(url=url)
    assert sorted(feed.posts.values_list("guid", flat=True)) == ["dtr-episode-2", "dtr-episode-3"]
    assert list(
        Enclosure.objects.filter(post__guid="dtr-episode-3").values_list("url", "type")
    ) == [("https://cdn.example.com/dtr/episode-3.mp3", "audio/mpeg")]
    assert feed.categories.filter(name="Technology").exists()
    warning = ImportRun.objects.filter(created=3).get().warning
    assert "1 older posts pruned" in warning and "enclosure URLs" in warning


def test_cleanup_task_runs_on_a_worker(feed_server, memcached, worker_factory, settings):
    """The cleanup task runs on a worker and keeps its DJANGOFEEDS_KEEP_POSTS newest posts."""
    worker_factory(
        queues=["feeds"],
        env={"MEMCACHED_LOCATION": memcached.location, "DJANGOFEEDS_KEEP_POSTS": "1"},
    )
    url = feed_server.serve("/podcast.xml", fixture("podcast.xml"))
    settings.DJANGOFEEDS_KEEP_POSTS = 5  # this process imports all three
    import_url(url)

    summary = cleanup.delay().get(timeout=60)

    assert summary["posts"] == 2
    assert list(Post.objects.values_list("guid", flat=True)) == ["dtr-episode-3"]
