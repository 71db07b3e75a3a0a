"""The feed pages: latest posts of active feeds, one feed, pagination, safe rendering."""

from html import escape
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from localservers.feed_server import rss
from tests.factories import FeedFactory, PostFactory
from tests.support.fixtures import fixture
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


def test_post_list_shows_posts_of_active_feeds_only(client):
    """The post list shows posts of active feeds only."""
    PostFactory(title="Visible post", feed=FeedFactory(title="Live feed"))
    PostFactory(title="Hidden post", feed=FeedFactory(is_active=False))

    response = client.get("/feeds/")

    assert response.status_code == 200
    assert "Visible post" in response.text and "Live feed" in response.text
    assert "Hidden post" not in response.text


def test_post_list_puts_undated_posts_last(client):
    """A feed without dates cannot hold the top of the page (PostgreSQL sorts NULL first)."""
    feed = FeedFactory()
    PostFactory(feed=feed, title="Undated post", published_at=None)
    PostFactory(feed=feed, title="Dated post")

    titles = [post.title for post in client.get("/feeds/").context["page"]]

    assert titles == ["Dated post", "Undated post"]


def test_post_list_is_paginated(client):
    """The post list shows 25 posts a page; a junk page number shows the first."""
    feed = FeedFactory()
    PostFactory.create_batch(30, feed=feed)

    first = client.get("/feeds/")
    second = client.get("/feeds/", {"page": 2})

    assert len(first.context["page"]) == 25 and len(second.context["page"]) == 5
    assert 'rel="next"' in first.text and 'rel="prev"' in second.text
    assert client.get("/feeds/", {"page": "junk"}).status_code == 200  # first page, not an error


def test_feed_detail_shows_the_feed_and_its_posts(client):
    """A feed's page shows the feed and its own posts only."""
    feed = FeedFactory(title="Celery News", description="News about Celery")
    PostFactory(feed=feed, title="Release notes")
    PostFactory(title="Someone else's post")

    response = client.get(feed.get_absolute_url())

    assert response.status_code == 200
    assert "Celery News" in response.text and "Release notes" in response.text
    assert "Someone else" not in response.text


def test_feed_detail_of_unknown_feed_is_404(client):
    """The page of a feed that does not exist is a 404."""
    assert client.get(reverse("djangofeeds:feed_detail", args=[999])).status_code == 404


def test_feed_pages_escape_titles_and_authors(client):
    """Feed and post titles and authors are shown escaped."""
    feed = FeedFactory(title="<script>alert('feed')</script>")
    PostFactory(feed=feed, title="<img src=x onerror=alert(1)>", author="<b>me</b>")

    for url in ("/feeds/", feed.get_absolute_url()):
        text = client.get(url).text
        assert "<script>alert" not in text and "<img src=x" not in text and "<b>me</b>" not in text
        assert "&lt;img src=x onerror=alert(1)&gt;" in text


def test_imported_content_is_shown_sanitized(client, feed_server):
    """Imported post bodies are shown with their markup, without scripts or handlers."""
    url = feed_server.serve("/news.xml", fixture("rss20.xml"))
    feed = import_url(url).feed

    text = client.get(feed.get_absolute_url()).text

    assert "<b>release</b>" in text  # HTML kept
    assert "alert(1)" not in text and "onerror" not in text and "javascript:" not in text


def test_feed_page_links_the_feed_without_its_private_parts(client):
    """The public page links the feed's URL without user:password, query string or fragment,
    where private feeds keep their tokens."""
    feed = FeedFactory(url="https://alice:pw@private.example/feed.xml?key=s3cret-token#part")

    text = client.get(feed.get_absolute_url()).text

    assert 'href="https://private.example/feed.xml"' in text
    assert "s3cret-token" not in text and "alice" not in text and "#part" not in text


def test_deactivated_feed_page_is_404(client):
    """A feed that is no longer followed is not shown, on its own page as on /feeds/."""
    feed = FeedFactory(is_active=False)
    PostFactory(feed=feed, title="Old post")

    assert client.get(feed.get_absolute_url()).status_code == 404


class Tags(HTMLParser):
    """The attributes of every ``tag`` inside the posts' content."""

    def __init__(self, tag):
        super().__init__()
        self.tag, self.found, self.depth = tag, [], 0

    def handle_starttag(self, tag, attrs):
        if tag == "div" and (self.depth or ("class", "content") in attrs):
            self.depth += 1
        if tag == self.tag and self.depth:
            self.found.append(dict(attrs))

    def handle_endtag(self, tag):
        if tag == "div" and self.depth:
            self.depth -= 1


def tags_in_content(text, tag):
    parser = Tags(tag)
    parser.feed(text)
    return parser.found


STORED_BEFORE_THE_FIX = (
    '<p>Look <img src="https://tracker.example/pixel.gif" alt="a"> and '
    '<a href="https://elsewhere.example/">there</a>.</p>'
    '<p><img src="https://tracker.example/second.gif"></p>'
)


def test_images_in_posts_send_no_referrer_and_load_lazily(client):
    """Every image readers see, also in posts stored before the rule, loads lazily and sends
    no referrer; links in content are noopener noreferrer nofollow; the page's policy is
    same-origin."""
    feed = FeedFactory()
    PostFactory(feed=feed, content=STORED_BEFORE_THE_FIX)

    for url in ("/feeds/", feed.get_absolute_url()):
        response = client.get(url)
        images = tags_in_content(response.text, "img")
        links = tags_in_content(response.text, "a")

        assert len(images) == 2 and len(links) == 1
        for image in images:
            assert (image["referrerpolicy"], image["loading"]) == ("no-referrer", "lazy")
        assert links[0]["rel"] == "noopener noreferrer nofollow"
        assert response["Referrer-Policy"] == "same-origin"


def test_imported_images_are_stored_without_referrer(feed_server):
    """The importer stores images with the same attributes (feeds read elsewhere, the admin)."""
    item = {"guid": "1", "title": "t", "description": escape(STORED_BEFORE_THE_FIX)}
    feed = import_url(feed_server.serve("/img.xml", rss([item]))).feed

    content = feed.posts.get().content

    assert content.count('referrerpolicy="no-referrer"') == 2
    assert content.count('loading="lazy"') == 2


def test_an_untitled_private_feed_is_named_by_its_public_url_on_every_page(client):
    """A feed without a title is named by its URL: the public one, without password or token."""
    feed = FeedFactory(title="", url="https://ann:pw@example.org/private.xml?key=token")
    post = PostFactory(feed=feed, title="Private post")

    for url in ("/feeds/", feed.get_absolute_url(), post.get_page_url()):
        page = client.get(url).text
        assert "https://example.org/private.xml" in page, url
        assert "token" not in page and "ann:pw" not in page, url


def test_post_list_pages_through_the_newest_listed_posts_only(client, monkeypatch):
    """Counting every post for "Page x of y" cost 0.7 s at a million posts: the list stops at
    LISTED_POSTS (a feed's own page goes further back)."""
    from djangofeeds import views

    monkeypatch.setattr(views, "LISTED_POSTS", 30)
    feed = FeedFactory()
    PostFactory.create_batch(40, feed=feed)

    response = client.get("/feeds/")

    assert response.context["page"].paginator.count == 30
    assert "Page 1 of 2" in response.text
    assert client.get(f"/feeds/{feed.pk}/").context["page"].paginator.count == 40
