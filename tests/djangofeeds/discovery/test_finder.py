"""djangofeeds.discovery.finder: one fetch tells a feed from a page, and a page gives its feeds."""

import pytest

from djangofeeds.discovery import finder
from djangofeeds.discovery.finder import DiscoveryError, discover
from djangofeeds.fetching import addresses
from djangofeeds.models import Feed, InvalidFeedURL
from localservers.feed_server import json_feed, numbered_items, rss

pytestmark = pytest.mark.django_db

FEED = rss(numbered_items(2))


def html_page(*links, base=""):
    """An HTML page with ``base`` and a <link rel="alternate"> per (href, type, title)."""
    head = f'<base href="{base}">' if base else ""
    head += "".join(
        f'<link rel="alternate" type="{kind}" title="{title}" href="{href}">'
        for href, kind, title in links
    )
    return f"<!doctype html><html><head>{head}</head><body>Hello</body></html>"


def serve_page(server, path, *links, base=""):
    return server.serve(path, html_page(*links, base=base), content_type="text/html")


def test_discover_takes_a_feed_as_given_with_one_get(feed_server):
    """A URL that answers with a feed is the feed: taken as written, fetched once."""
    url = feed_server.serve("/feed.xml", FEED)

    found = discover(url)

    assert [link.url for link in found.feeds] == [url] and found.page == ""
    assert feed_server.hits("/feed.xml") == 1


def test_discover_reads_a_json_feed_as_a_feed(feed_server):
    """A JSON Feed given directly is a feed too."""
    url = feed_server.serve("/feed.json", json_feed([]), content_type="application/feed+json")

    assert discover(url).feeds[0].url == url


def test_discover_finds_the_feed_of_a_page_through_its_base_without_fetching_it(feed_server):
    """A page's relative href resolves against its <base>; the feed itself is not fetched."""
    feed_server.serve("/feeds/all.xml", FEED)
    page = serve_page(
        feed_server, "/blog/", ("all.xml", "application/rss+xml", "All posts"), base="/feeds/"
    )

    found = discover(page)

    assert [(link.url, link.title) for link in found.feeds] == [
        (feed_server.url("/feeds/all.xml"), "All posts")
    ]
    assert found.page == page
    assert feed_server.hits("/blog/") == 1 and feed_server.hits("/feeds/all.xml") == 0


def test_discover_resolves_links_against_the_page_reached_by_redirects(feed_server):
    """After a redirect, relative links are relative to the page where it ended."""
    serve_page(feed_server, "/new/home/", ("feed.xml", "application/atom+xml", "Atom"))
    old = feed_server.redirect("/old", feed_server.url("/new/home/"))

    found = discover(old)

    assert found.page == feed_server.url("/new/home/")
    assert found.feeds[0].url == feed_server.url("/new/home/feed.xml")


def test_discover_lists_every_feed_of_a_page_in_its_order(feed_server):
    """A page with several feeds gives them all, first one first."""
    page = serve_page(
        feed_server,
        "/",
        ("/posts.xml", "application/rss+xml", "Posts"),
        ("/comments.atom", "application/atom+xml", "Comments"),
        ("/feed.json", "application/feed+json", "JSON"),
    )

    found = discover(page)

    assert [link.title for link in found.feeds] == ["Posts", "Comments", "JSON"]


def test_discover_refuses_a_page_without_feeds_naming_it(feed_server):
    """A page that links to no feed is an error that names the page; nothing is guessed."""
    page = serve_page(feed_server, "/plain/")

    with pytest.raises(DiscoveryError, match="is an HTML page that links to no feed") as error:
        discover(page)

    assert str(error.value) == f"{page} is an HTML page that links to no feed"
    assert [path for path, _ in feed_server.requests] == ["/plain/"]  # no /feed, /rss.xml...


def test_discover_drops_feed_links_that_can_never_be_fetched(feed_server, settings, monkeypatch):
    """A page's links to private addresses are not offered; with no other, that is the error."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    monkeypatch.setattr(addresses, "is_public", lambda address: address == "127.0.0.1")
    page = serve_page(
        feed_server,
        "/sly/",
        ("http://10.0.0.1/feed", "application/rss+xml", "inside"),
        ("/outside.xml", "application/rss+xml", "outside"),
    )
    only_inside = serve_page(
        feed_server, "/slier/", ("http://10.0.0.1/feed", "application/rss+xml", "inside")
    )

    assert [link.title for link in discover(page).feeds] == ["outside"]
    with pytest.raises(DiscoveryError, match="links only to feeds that cannot be subscribed"):
        discover(only_inside)


def test_discover_refuses_a_redirect_to_a_private_address(feed_server, settings, monkeypatch):
    """Every hop of the discovery fetch is checked: a redirect inside is refused, unfetched."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    # Stand in for a public server: only 127.0.0.1 counts as public in this test.
    monkeypatch.setattr(addresses, "is_public", lambda address: address == "127.0.0.1")
    url = feed_server.redirect("/hop/", f"http://127.0.0.2:{feed_server.port}/inside/", 302)

    with pytest.raises(DiscoveryError, match=r"non-public address \(127\.0\.0\.2\)"):
        finder.subscribe(url)

    assert [path for path, _ in feed_server.requests] == ["/hop/"]
    assert not Feed.objects.exists()


def test_discover_refuses_what_is_neither_feed_nor_page(feed_server):
    """Plain text, a 404 and a 410 are errors that name the URL."""
    text = feed_server.serve("/notes.txt", "just words", content_type="text/plain")
    missing = feed_server.url("/missing")
    gone = feed_server.serve("/gone", "", status=410)

    with pytest.raises(DiscoveryError, match=f"{text} is not a feed: the document is not"):
        discover(text)
    with pytest.raises(
        DiscoveryError, match=f"{missing} could not be fetched: server answered 404"
    ):
        discover(missing)
    with pytest.raises(DiscoveryError, match=f"{gone} is gone"):
        discover(gone)


def test_discover_takes_the_url_as_given_when_the_server_cannot_answer_now(feed_server):
    """A 429 or a 503 is no verdict: the URL is kept as written, with the reason."""
    url = feed_server.serve("/busy.xml", "", status=429, headers={"Retry-After": "60"})

    found = discover(url)

    assert found.feeds[0].url == url and "429" in found.unchecked


def test_discover_refuses_a_url_that_can_never_be_fetched_before_any_request(feed_server):
    """A URL the importer could never fetch is refused with its reason, nothing is requested."""
    with pytest.raises(InvalidFeedURL, match="only http and https") as error:
        discover("ftp://127.0.0.1/feed")

    assert not isinstance(error.value, DiscoveryError) and feed_server.requests == []


def test_find_takes_a_subscribed_url_without_fetching_it(feed_server):
    """A URL already subscribed needs no fetch."""
    url = feed_server.serve("/known.xml", FEED)
    Feed.objects.create(url=url)

    assert finder.find(url).feeds[0].url == url and feed_server.hits("/known.xml") == 0


def test_subscribe_stores_the_pages_first_feed(feed_server):
    """finder.subscribe(page) stores the first feed the page links to, not the page."""
    page = serve_page(
        feed_server,
        "/site/",
        ("/one.xml", "application/rss+xml", "One"),
        ("/two.xml", "application/rss+xml", "Two"),
    )

    feed, created = finder.subscribe(page, title="My site")

    assert created and (feed.url, feed.title) == (feed_server.url("/one.xml"), "My site")
    assert list(Feed.objects.values_list("url", flat=True)) == [feed_server.url("/one.xml")]


def test_subscribe_without_discovery_makes_no_request(feed_server):
    """Feed.objects.subscribe stores the URL as written: the model makes no request."""
    page = serve_page(feed_server, "/site/", ("/one.xml", "application/rss+xml", "One"))

    feed, _ = Feed.objects.subscribe(page)

    assert feed.url == page and feed_server.requests == []
