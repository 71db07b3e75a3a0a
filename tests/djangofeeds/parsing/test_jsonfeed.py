"""JSON Feed 1.0 and 1.1 through the real fetch and import path: the same rules as RSS and Atom."""

import io
import json
import re
from datetime import UTC, datetime

import pytest
from django.core.management import call_command

from djangofeeds.models import Feed, Outcome, Post
from djangofeeds.parsing.jsonfeed import MAX_DEPTH
from djangofeeds.parsing.readers import parse
from djangofeeds.tasks import import_feed as import_feed_task
from localservers.feed_server import json_feed, numbered_items, rss
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db

ITEMS = [
    {
        "id": "https://example.com/posts/1",
        "url": "/posts/1",
        "title": "Caf<b>é</b> &amp; more",
        "content_html": (
            '<p>Hello <a href="/about">about</a><script>alert("xss")</script>'
            '<img src="pic.png" onerror="alert(1)"></p>'
        ),
        "date_published": "2026-11-01T10:00:00+02:00",
        "date_modified": "2026-11-02T08:30:00Z",
        "authors": [{"name": "Ann"}, {"name": "Bob"}],
        "tags": ["news"],
        "attachments": [{"url": "/a.mp3", "mime_type": "audio/mpeg"}],
    },
    {
        "id": 2,  # JSON Feed 1.0 allowed numbers
        "url": "https://example.com/posts/2",
        "content_text": "1 < 2 & <b>plain</b>\n\nSecond paragraph",
        "date_published": "2026-10-30T09:00:00Z",
    },
]


def test_json_feed_1_1_is_imported_like_rss(feed_server):
    """content_html sanitized with absolute links, content_text escaped, dates parsed,
    authors inherited from the feed, guid from id, plain-text titles."""
    body = json_feed(ITEMS, description="<b>desc</b> &amp; more", authors=[{"name": "The Team"}])
    url = feed_server.serve("/feed.json", body, content_type="application/feed+json")

    result = import_url(url)

    assert (result.outcome, result.run.created, result.run.updated) == ("imported", 2, 0)
    assert "application/feed+json" in feed_server.last_headers("/feed.json")["Accept"]
    feed = Feed.objects.get(url=url)
    assert (feed.title, feed.link, feed.description) == (
        "Test JSON feed",
        "http://example.com/",
        "desc & more",
    )
    first = feed.posts.get(guid="https://example.com/posts/1")
    assert (first.title, first.author) == ("Café & more", "Ann, Bob")
    assert first.link == feed_server.url("/posts/1")
    assert f'<a href="{feed_server.url("/about")}"' in first.content
    image = re.search(r"<img [^>]*>", first.content)[0]
    # nh3 writes the attributes in no fixed order.
    assert sorted(image.removeprefix("<img ").removesuffix(">").split()) == [
        'loading="lazy"',
        'referrerpolicy="no-referrer"',
        f'src="{feed_server.url("/pic.png")}"',
    ]
    for unsafe in ("<script", "alert", "onerror"):
        assert unsafe not in first.content
    assert first.published_at == datetime(2026, 11, 1, 8, 0, tzinfo=UTC)
    assert first.updated_at == datetime(2026, 11, 2, 8, 30, tzinfo=UTC)
    second = feed.posts.get(guid="2")
    assert second.author == "The Team" and second.title == ""
    assert second.content == (
        "<p>1 &lt; 2 &amp; &lt;b&gt;plain&lt;/b&gt;</p>\n\n<p>Second paragraph</p>"
    )


def test_json_feed_1_0_is_found_by_its_version_url_whatever_the_content_type(feed_server):
    """A JSON Feed 1.0 served as text/plain, with 1.0's single author: read, not refused."""
    items = [{"id": "a", "url": "https://example.com/a", "summary": "Short", "title": "A"}]
    body = json_feed(items, version="1", author={"name": "Solo"})
    url = feed_server.serve("/feed", body, content_type="text/plain; charset=utf-8")

    result = import_url(url)

    assert result.outcome == Outcome.IMPORTED
    post = Post.objects.get()
    assert (post.title, post.author, post.content) == ("A", "Solo", "<p>Short</p>")


def test_json_feed_keeps_the_newest_500_items(feed_server):
    """Of 600 JSON Feed items, the newest 500 are stored."""
    items = [
        {"id": f"i{n}", "title": f"Item {n}", "date_published": f"2026-01-01T00:00:{n % 60:02}Z"}
        for n in range(600)
    ]
    items[0]["date_published"] = "2026-06-01T00:00:00Z"
    url = feed_server.serve("/many.json", json_feed(items), content_type="application/json")

    result = import_url(url)

    assert result.run.created == 500
    assert Post.objects.filter(guid="i0").exists()


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b'{"version": "https://jsonfeed.org/version/1.1", "items": [', "not valid JSON"),
        (b"{'version': 1}", "not valid JSON: Expecting property name enclosed in double quotes"),
        (b'{"version": "1.1", "items": []}', "JSON but not a JSON Feed"),
        (b'["https://jsonfeed.org/version/1.1"]', "JSON but not a JSON Feed"),
        (b'{"version": "https://jsonfeed.org/version/1.1", "items": {}}', "no list of items"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, f"nests deeper than {MAX_DEPTH} levels"),
        (b'{"items": [{"id": ' + b"9" * 5000 + b"}]}", "not valid JSON: Exceeds the limit"),
    ],
    ids=[
        "truncated",
        "single-quotes",
        "no-version",
        "an-array",
        "items-not-a-list",
        "bytes",
        "deep",
        "huge-number",
    ],
)
def test_bad_json_is_recorded_on_the_feed_with_a_readable_error(feed_server, body, error):
    """Bad JSON or no JSON Feed fails for good with a short one-line error."""
    url = feed_server.serve("/bad.json", body, content_type="application/feed+json")

    result = import_url(url)

    assert result.outcome == Outcome.FAILED and not result.transient
    feed = Feed.objects.get(url=url)
    assert error in feed.last_error and feed.error_count == 1
    assert "\n" not in feed.last_error and len(feed.last_error) < 200
    assert Post.objects.count() == 0


def test_json_nesting_within_the_bound_is_read(feed_server):
    """Extensions may nest; up to the bound they are no reason to refuse the feed."""
    deep = json.loads("[" * (MAX_DEPTH - 3) + "1" + "]" * (MAX_DEPTH - 3))
    body = json_feed([{"id": "x", "title": "Deep", "_ext": deep, "content_text": "[[[{{"}])
    url = feed_server.serve("/deep.json", body, content_type="application/feed+json")

    assert import_url(url).run.created == 1


def test_json_feed_over_the_size_cap_is_refused(feed_server, settings):
    """A JSON Feed over the size cap is refused and stores nothing."""
    settings.DJANGOFEEDS_MAX_BYTES = 10_000
    items = [{"id": str(n), "content_text": "x" * 100} for n in range(200)]
    url = feed_server.serve("/big.json", json_feed(items), content_type="application/feed+json")

    result = import_url(url)

    assert "larger than 10000 bytes" in result.run.error and Post.objects.count() == 0


def test_addfeed_import_takes_a_json_feed(feed_server):
    """addfeed --import imports a JSON Feed."""
    url = feed_server.serve("/cmd.json", json_feed(ITEMS), content_type="application/feed+json")
    out = io.StringIO()

    call_command("addfeed", url, "--import", stdout=out)

    assert "imported" in out.getvalue() and Post.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_json_feed_through_a_worker(feed_server, worker_factory):
    """The task imports a JSON Feed like any other; a malformed one fails and the worker goes on."""
    worker_factory(queues=["feeds"], concurrency=1)
    good = feed_server.serve("/w.json", json_feed(ITEMS), content_type="application/feed+json")
    bad = feed_server.serve("/w-bad.json", b'{"items": [', content_type="application/feed+json")

    assert import_feed_task.delay(bad).get(timeout=60)["status"] == "failed"
    result = import_feed_task.delay(good).get(timeout=60)

    assert result == {"status": "imported", "url": good, "created": 2, "updated": 0}
    assert "not valid JSON" in Feed.objects.get(url=bad).last_error
    assert Post.objects.get(guid="2").feed.url == good


def test_rss_served_as_json_is_still_read_as_rss(feed_server):
    """A misconfigured server's content type does not turn an RSS document into bad JSON."""
    url = feed_server.serve("/rss-as-json", rss(numbered_items(2)), content_type="application/json")

    assert import_url(url).run.created == 2


def test_json_feed_with_an_unparsable_link_in_its_html_drops_the_link(feed_server):
    """An unparsable link or image source in JSON Feed HTML is dropped, the post kept."""
    items = [{"id": "x", "content_html": '<a href="http://[oops/">x</a><img src="//[::1">'}]
    url = feed_server.serve("/odd.json", json_feed(items), content_type="application/feed+json")

    assert import_url(url).run.created == 1
    link = '<a rel="noopener noreferrer nofollow">x</a>'
    assert Post.objects.get().content in (
        link + '<img loading="lazy" referrerpolicy="no-referrer">',
        link + '<img referrerpolicy="no-referrer" loading="lazy">',
    )


def test_json_feed_podcast_details_follow_the_rss_rules():
    """An item's image, else its banner_image; the first attachment's duration_in_seconds that
    is a duration (not a boolean, not negative); the feed's icon, else its favicon."""
    items = [
        {
            "id": "a",
            "content_text": "A",
            "image": "data:image/png;base64,AAAA",
            "banner_image": "banners/a.png",
            "attachments": [
                {"url": "https://cdn.example.com/a.mp3", "duration_in_seconds": True},
                {"url": "https://cdn.example.com/a.m4a", "duration_in_seconds": -3},
                {"url": "https://cdn.example.com/a.ogg", "duration_in_seconds": 61.9},
            ],
        },
        {"id": "b", "content_text": "B", "attachments": "not a list"},
    ]
    body = json_feed(items, favicon="/favicon.ico")

    feed = parse(body, url="https://radio.example.com/feed.json")

    assert feed.image_url == "https://radio.example.com/favicon.ico"
    first, second = sorted(feed.entries, key=lambda entry: entry.guid)
    assert (first.podcast.image_url, first.podcast.duration) == (
        "https://radio.example.com/banners/a.png",
        61,
    )
    assert not second.podcast
