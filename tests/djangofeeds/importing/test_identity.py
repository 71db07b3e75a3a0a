"""What identifies a post across imports: edited episodes stay one post, and an upgrade of
the rules moves stored posts to their new guid instead of storing them twice."""

import hashlib

import pytest

from djangofeeds.models import Feed, Post, PrunedPost
from tests.support.importing import import_url
from tests.support.real_corpus import REAL

pytestmark = pytest.mark.django_db

# podcastparser's simple.rss: one episode with a title and an enclosure, no guid, no link.
EPISODE = (REAL / "podcastparser/simple.rss").read_bytes()
ENCLOSURE = "http://example.org/example.mp3"


def edited(body, *, notes=None, title=None):
    """The episode as its publisher edits it: notes added, then the title changed."""
    if notes is not None:
        body = body.replace(
            b"<title>Episode</title>",
            f"<title>Episode</title><description>{notes}</description>".encode(),
        )
    if title is not None:
        body = body.replace(b"<title>Episode</title>", f"<title>{title}</title>".encode())
    return body


def hashed_guid(title, content=""):
    """The guid earlier releases gave an entry without id or link: its title and body hashed."""
    return "sha256:" + hashlib.sha256(f"{title}\x1f{content}".encode()).hexdigest()


def test_an_episode_edited_twice_stays_one_post(feed_server):
    """Notes edited, then the title: one post, updated each time (it became 3 posts)."""
    url = feed_server.serve("/podcast.rss", EPISODE)
    import_url(url)
    feed_server.serve("/podcast.rss", edited(EPISODE, notes="Show notes"))
    import_url(url)
    feed_server.serve("/podcast.rss", edited(EPISODE, notes="Show notes", title="Episode 1: Pilot"))

    result = import_url(url)

    assert (result.run.created, result.run.updated) == (0, 1)
    (post,) = Post.objects.filter(feed__url=url)
    assert (post.guid, post.title) == (ENCLOSURE, "Episode 1: Pilot")
    assert "Show notes" in post.content


def stored_by_an_earlier_release(url):
    """Import, then give the post the guid an earlier release gave it, and forget the
    document (an upgrade reads every feed again: its reader revision changed)."""
    import_url(url)
    post = Post.objects.get(feed__url=url)
    former = hashed_guid("Episode")
    post.guid, post.guid_hash = former, hashlib.sha256(former.encode()).hexdigest()
    post.save()
    Feed.objects.filter(url=url).update(body_hash="")
    return post


def test_a_post_stored_under_its_former_guid_moves_to_the_new_one(feed_server):
    url = feed_server.serve("/podcast.rss", EPISODE)
    before = stored_by_an_earlier_release(url)

    result = import_url(url)

    assert result.run.created == 0
    (post,) = Post.objects.filter(feed__url=url)
    assert (post.pk, post.guid) == (before.pk, ENCLOSURE)
    assert post.guid_hash == hashlib.sha256(ENCLOSURE.encode()).hexdigest()


def test_a_pruned_post_under_its_former_guid_stays_pruned(feed_server):
    """Its tombstone moves too: the episode does not come back as new."""
    url = feed_server.serve("/podcast.rss", EPISODE)
    post = stored_by_an_earlier_release(url)
    PrunedPost.objects.create(feed=post.feed, guid_hash=post.guid_hash)
    post.delete()

    result = import_url(url)

    assert result.run.created == 0
    assert not Post.objects.filter(feed__url=url).exists()
    tombstone = PrunedPost.objects.get(feed__url=url)
    assert tombstone.guid_hash == hashlib.sha256(ENCLOSURE.encode()).hexdigest()


def test_a_json_feed_number_id_moves_a_post_stored_under_a_hash(feed_server):
    """reader's invalid.json: the item with id 3.1415 had a hashed guid; now "3.1415"."""
    body = (REAL / "reader/invalid.json").read_bytes()
    url = feed_server.serve("/feed.json", body, content_type="application/feed+json")
    import_url(url)
    post = Post.objects.get(feed__url=url, guid="3.1415")
    former = hashed_guid("float id")
    Post.objects.filter(pk=post.pk).update(
        guid=former, guid_hash=hashlib.sha256(former.encode()).hexdigest()
    )
    Feed.objects.filter(url=url).update(body_hash="")

    result = import_url(url)

    assert result.run.created == 0
    assert Post.objects.get(pk=post.pk).guid == "3.1415"
