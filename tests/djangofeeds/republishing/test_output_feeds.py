"""The site's own feeds (SPEC §4 "Republishing"): RSS, Atom and JSON Feed of every active
feed, one feed or one category, read back by feedparser and by our own importer; 304s; the
pages' alternate links; the public OPML blogroll."""

import json

import feedparser
import pytest
from django.urls import reverse

from djangofeeds.discovery.opml import parse_opml
from djangofeeds.models import Category, Feed, Post
from djangofeeds.parsing import readers
from localservers.feed_server import numbered_items, rss, with_media
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db

EPISODE = """<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
     xmlns:podcast="https://podcastindex.org/namespace/1.0">
<channel><title>Queue Cast</title><link>https://queuecast.example.net/</link>
<description>A show about queues.</description>
<itunes:image href="https://queuecast.example.net/cover.jpg"/>
<item><title>Episode 7: Backoff</title><guid isPermaLink="false">qc-7</guid>
<link>https://queuecast.example.net/7</link>
<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate>
<description>&lt;p&gt;Notes.&lt;/p&gt;</description>
<enclosure url="https://cdn.example.net/qc-7.mp3" type="audio/mpeg" length="1234567"/>
<itunes:duration>00:20:00</itunes:duration>
<itunes:image href="https://queuecast.example.net/7.jpg"/>
<itunes:season>2</itunes:season><itunes:episode>7</itunes:episode>
<itunes:explicit>false</itunes:explicit>
<podcast:transcript url="https://queuecast.example.net/7.vtt" type="text/vtt"/>
<podcast:chapters url="https://queuecast.example.net/7.json" type="application/json+chapters"/>
</item></channel></rss>"""

PODCAST_FIELDS = (
    "title", "link", "guid", "published_at", "duration", "image_url", "season", "episode",
    "explicit", "transcript_url", "transcript_type", "chapters_url",
)  # fmt: skip


def two_feeds(feed_server):
    """Two imported feeds (the first with an enclosure and categories on each item)."""
    urls = [
        feed_server.serve("/a.xml", rss(with_media(numbered_items(3, prefix="a")), title="A")),
        feed_server.serve("/b.xml", rss(numbered_items(2, prefix="b"), title="B")),
    ]
    for url in urls:
        import_url(url)
    return [Feed.objects.get(url=url) for url in urls]


@pytest.mark.parametrize("fmt", ["rss", "atom"])
def test_every_item_names_its_source_and_keeps_its_link_author_and_enclosures(
    client, feed_server, fmt
):
    """Read back by feedparser, item by item in the order of the posts: the source
    feed (title and URL), the original link and guid, the enclosure, the categories."""
    feeds = two_feeds(feed_server)
    Post.objects.filter(feed=feeds[1]).update(author="Ada")

    response = client.get(reverse(f"djangofeeds:posts_{fmt}"))

    assert response.status_code == 200
    parsed = feedparser.parse(response.content)
    assert not parsed.bozo, parsed.get("bozo_exception")
    posts = list(Post.objects.select_related("feed").with_media())
    assert len(parsed.entries) == len(posts) == 5
    for entry, post in zip(parsed.entries, posts, strict=True):
        assert entry.title == post.title and entry.link == post.link
        # An Atom id is an IRI: a guid that is not one ("a-0") gives way to the post's page.
        page = f"http://testserver{post.get_page_url()}"
        assert entry.id == (post.guid if fmt == "rss" else page)
        assert entry.source.title == post.feed.title
        source_url = entry.source.href if fmt == "rss" else entry.source.id
        assert source_url == post.feed.url
        assert entry.get("author", "") == post.author
        enclosures = [(e.href, e.type, int(e.length)) for e in entry.get("enclosures", [])]
        assert enclosures == [(e.url, e.type, e.length) for e in post.enclosures.all()]
        assert sorted(tag.term for tag in entry.get("tags", [])) == sorted(
            category.name for category in post.categories.all()
        )


@pytest.mark.parametrize("fmt", ["rss", "atom"])
def test_a_republished_podcast_episode_imports_back_with_all_its_details(client, feed_server, fmt):
    """A podcast network republishes its shows: our own importer, reading the output
    feed, stores the same episode (duration, artwork, season, episode, explicit,
    transcript, chapters, enclosure)."""
    import_url(feed_server.serve("/show.xml", EPISODE))
    show = Feed.objects.get()
    output = client.get(reverse(f"djangofeeds:feed_{fmt}", kwargs={"pk": show.pk}))
    content_type = "application/atom+xml" if fmt == "atom" else "application/rss+xml"
    again = feed_server.serve(f"/again.{fmt}", output.content, content_type=content_type)

    import_url(again)

    [original] = show.posts.all()
    [copy] = Post.objects.filter(feed__url=again)
    if fmt == "atom":  # an Atom id is an IRI: the guid "qc-7" gave way to the post's page
        assert copy.guid == f"http://testserver{original.get_page_url()}"
        copy.guid = original.guid
    assert [getattr(copy, name) for name in PODCAST_FIELDS] == [
        getattr(original, name) for name in PODCAST_FIELDS
    ]
    assert copy.duration == 1200 and copy.transcript_type == "text/vtt"
    assert list(copy.enclosures.values_list("url", "type", "length")) == list(
        original.enclosures.values_list("url", "type", "length")
    )
    assert Feed.objects.get(url=again).image_url == show.image_url


def test_the_json_feed_names_sources_and_carries_attachments_and_podcast_details(
    client, feed_server
):
    import_url(feed_server.serve("/show.xml", EPISODE))
    show = Feed.objects.get()

    response = client.get(reverse("djangofeeds:feed_json", kwargs={"pk": show.pk}))

    assert response["Content-Type"].startswith("application/feed+json")
    document = json.loads(response.content)
    assert document["version"] == "https://jsonfeed.org/version/1.1"
    [item] = document["items"]
    assert item["id"] == "qc-7" and item["url"] == "https://queuecast.example.net/7"
    assert item["_source"] == {
        "title": "Queue Cast",
        "feed_url": show.url,
        "home_page_url": "https://queuecast.example.net/",
    }
    assert item["attachments"] == [
        {
            "url": "https://cdn.example.net/qc-7.mp3",
            "mime_type": "audio/mpeg",
            "size_in_bytes": 1234567,
            "duration_in_seconds": 1200,
        }
    ]
    assert item["_podcast"] == {
        "season": 2,
        "episode": 7,
        "explicit": False,
        "transcript": {"url": "https://queuecast.example.net/7.vtt", "type": "text/vtt"},
        "chapters": "https://queuecast.example.net/7.json",
    }
    # Our own JSON Feed reader takes it, as any reader would.
    [entry] = readers.parse(
        response.content, url="http://testserver/", content_type="application/feed+json"
    ).entries
    assert (entry.guid, entry.title) == ("qc-7", "Episode 7: Backoff")


def test_a_feed_or_a_category_holds_only_its_posts_and_a_deactivated_feed_none(client, feed_server):
    feeds = two_feeds(feed_server)
    topic = Category.objects.get(name="Topic 0")

    def guids(name, **kwargs):
        response = client.get(reverse(f"djangofeeds:{name}", kwargs=kwargs))
        return [entry.id for entry in feedparser.parse(response.content).entries]

    assert guids("feed_rss", pk=feeds[1].pk) == ["b-0", "b-1"]
    assert guids("category_rss", pk=topic.pk) == list(
        Post.objects.filter(categories=topic).values_list("guid", flat=True)
    ) == ["a-0"]  # fmt: skip
    feeds[1].is_active = False
    feeds[1].save()
    assert guids("posts_rss") == ["a-0", "a-1", "a-2"]
    assert (
        client.get(reverse("djangofeeds:feed_rss", kwargs={"pk": feeds[1].pk})).status_code == 404
    )
    assert client.get(reverse("djangofeeds:category_json", kwargs={"pk": 999})).status_code == 404


@pytest.mark.parametrize("fmt", ["rss", "atom", "json"])
def test_an_unchanged_output_feed_answers_304_and_a_changed_one_200(
    client, feed_server, fmt, django_assert_num_queries
):
    """ETag and Last-Modified: 304 on either while nothing changed (two queries, no
    content read: the posts listed, and the other feeds' copies of their stories, which
    the items name); a post rewritten by its next import changes the ETag."""
    url = feed_server.serve("/c.xml", rss(numbered_items(3, prefix="c")))
    import_url(url)
    path = reverse(f"djangofeeds:posts_{fmt}")
    first = client.get(path)
    etag, modified = first["ETag"], first["Last-Modified"]

    with django_assert_num_queries(2):
        assert client.get(path, headers={"if-none-match": etag}).status_code == 304
    assert client.get(path, headers={"if-modified-since": modified}).status_code == 304

    items = numbered_items(3, prefix="c")
    items[1]["title"] = "C 1, corrected"
    feed_server.serve("/c.xml", rss(items))
    import_url(url)
    again = client.get(path, headers={"if-none-match": etag})
    assert again.status_code == 200 and again["ETag"] != etag
    assert b"C 1, corrected" in again.content


def test_pages_link_to_their_output_feeds(client, feed_server):
    feeds = two_feeds(feed_server)

    home = client.get(reverse("djangofeeds:post_list")).content.decode()
    page = client.get(feeds[0].get_absolute_url()).content.decode()

    posts_rss = reverse("djangofeeds:posts_rss")
    title = "Latest from the feeds (RSS)"
    link = f'<link rel="alternate" type="application/rss+xml" title="{title}" href="{posts_rss}">'
    assert link in home
    assert reverse("djangofeeds:blogroll") in home
    feed_atom = reverse("djangofeeds:feed_atom", kwargs={"pk": feeds[0].pk})
    assert f'type="application/atom+xml" title="A (Atom)" href="{feed_atom}"' in page
    assert f'href="{feed_atom}" type="application/atom+xml"' in page  # and a visible link


def test_the_blogroll_lists_the_active_feeds_without_their_secrets(client):
    Feed.objects.create(
        url="https://user:secret@example.org/private.xml?key=token", title="Private"
    )
    Feed.objects.create(
        url="https://example.com/feed/", title="Public", link="https://example.com/"
    )
    Feed.objects.create(url="https://example.net/old.xml", title="Old", is_active=False)

    response = client.get(reverse("djangofeeds:blogroll"))

    assert response["Content-Type"].startswith("text/x-opml")
    assert b"secret" not in response.content and b"token" not in response.content
    outlines = parse_opml(response.content)
    assert [(o.title, o.url) for o in outlines] == [
        ("Private", "https://example.org/private.xml"),
        ("Public", "https://example.com/feed/"),
    ]
    unchanged = client.get(
        reverse("djangofeeds:blogroll"), headers={"if-none-match": response["ETag"]}
    )
    assert unchanged.status_code == 304


def test_an_untitled_private_feed_is_named_by_its_public_url_in_every_output(client):
    """A feed's name falls back to its URL: the public one, never its password or token."""
    feed = Feed.objects.create(url="https://ann:pw@example.org/private.xml?key=token")
    Post.objects.create(feed=feed, guid="p-1", guid_hash="1" * 64, title="Private post")

    for name, kwargs in [("posts_rss", {}), ("posts_atom", {}), ("feed_json", {"pk": feed.pk})]:
        content = client.get(reverse(f"djangofeeds:{name}", kwargs=kwargs)).content
        assert b"Private post" in content and b"https://example.org/private.xml" in content
        assert b"token" not in content and b"pw" not in content, name
