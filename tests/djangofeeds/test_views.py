"""The feed pages: latest posts of active feeds, one feed, pagination, safe rendering."""

from pathlib import Path

import pytest
from django.urls import reverse

from djangofeeds.importer import import_feed
from tests.factories import FeedFactory, PostFactory

pytestmark = pytest.mark.django_db


def test_post_list_shows_posts_of_active_feeds_only(client):
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
    feed = FeedFactory()
    PostFactory.create_batch(30, feed=feed)

    first = client.get("/feeds/")
    second = client.get("/feeds/", {"page": 2})

    assert len(first.context["page"]) == 25 and len(second.context["page"]) == 5
    assert 'rel="next"' in first.text and 'rel="prev"' in second.text
    assert client.get("/feeds/", {"page": "junk"}).status_code == 200  # first page, not an error


def test_feed_detail_shows_the_feed_and_its_posts(client):
    feed = FeedFactory(title="Celery News", description="News about Celery")
    PostFactory(feed=feed, title="Release notes")
    PostFactory(title="Someone else's post")

    response = client.get(feed.get_absolute_url())

    assert response.status_code == 200
    assert "Celery News" in response.text and "Release notes" in response.text
    assert "Someone else" not in response.text


def test_feed_detail_of_unknown_feed_is_404(client):
    assert client.get(reverse("djangofeeds:feed_detail", args=[999])).status_code == 404


def test_feed_pages_escape_titles_and_authors(client):
    feed = FeedFactory(title="<script>alert('feed')</script>")
    PostFactory(feed=feed, title="<img src=x onerror=alert(1)>", author="<b>me</b>")

    for url in ("/feeds/", feed.get_absolute_url()):
        text = client.get(url).text
        assert "<script>alert" not in text and "<img src=x" not in text and "<b>me</b>" not in text
        assert "&lt;img src=x onerror=alert(1)&gt;" in text


def test_imported_content_is_shown_sanitized(client, feed_server):
    url = feed_server.serve(
        "/news.xml", (Path(__file__).parent / "fixtures" / "rss20.xml").read_bytes()
    )
    feed = import_feed(url).feed

    text = client.get(feed.get_absolute_url()).text

    assert "<b>release</b>" in text  # HTML kept
    assert "alert(1)" not in text and "onerror" not in text and "javascript:" not in text
