"""djangofeeds/urls.py: no prefix of its own; every page reversed, so it works at any mount."""

import pytest

from djangofeeds.models import Category
from tests.factories import FeedFactory, PostFactory
from tests.support.pages import links

pytestmark = pytest.mark.django_db


def test_feed_pages_work_mounted_at_reader(bare_host, client):
    """Mounted at reader/: the post list, a category, a feed, a post, and every link the
    pages carry to one another stay under reader/."""
    feed = FeedFactory(title="Worker Notes")
    post = PostFactory(feed=feed, link="https://example.com/a")
    category = Category.objects.create(name="Podcasts")
    post.categories.add(category)
    assert feed.get_absolute_url() == f"/reader/{feed.pk}/"
    assert post.get_page_url() == f"/reader/posts/{post.pk}/"
    assert category.get_absolute_url() == f"/reader/?category={category.pk}"

    pages = {}
    for url in (
        "/reader/",
        category.get_absolute_url(),
        feed.get_absolute_url(),
        post.get_page_url(),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        pages[url] = response.text
    everywhere = set().union(*(links(html) for html in pages.values()))
    assert {feed.get_absolute_url(), post.get_page_url(), category.get_absolute_url()} <= everywhere
    assert "/reader/" in links(pages[category.get_absolute_url()])  # "All posts"
    internal = [url for url in everywhere if url.startswith("/")]
    assert all(url.startswith("/reader/") for url in internal), internal
    assert client.get(f"/feeds/{feed.pk}/").status_code == 404
