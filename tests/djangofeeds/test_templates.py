"""The feeds' templates: their own plain base and includes, which a host overrides in one file."""

from pathlib import Path

import pytest

import djangofeeds
from djangofeeds.models import Category
from djangofeeds.views import POSTS_PER_PAGE
from tests.factories import FeedFactory, PostFactory
from tests.support.pages import PROJECT_TEMPLATES, attribute, elements, template_origins

pytestmark = pytest.mark.django_db

APP_TEMPLATES = Path(djangofeeds.__file__).parent / "templates"


def test_feed_pages_render_with_the_apps_own_base_and_includes(bare_host, client):
    """Without any template of the host's, each page is the app's own complete page
    (doctype, language, charset, viewport, title), with its pagination and messages area,
    no stylesheet, and titles that name the page, not a site."""
    feed = FeedFactory(title="Worker Notes")
    posts = [PostFactory(feed=feed, title=f"Post {n}") for n in range(POSTS_PER_PAGE + 1)]
    category = Category.objects.create(name="Podcasts")
    posts[0].categories.add(category)
    titles = {
        "/reader/": "Feeds",
        category.get_absolute_url(): "Feeds",
        feed.get_absolute_url(): "Worker Notes",
        posts[0].get_page_url(): "Post 0 · Worker Notes",
    }
    for url, title in titles.items():
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.text
        origins = template_origins(response)
        assert origins["djangofeeds/base.html"] == APP_TEMPLATES / "djangofeeds" / "base.html"
        assert origins["djangofeeds/includes/messages.html"].is_relative_to(APP_TEMPLATES)
        assert not any(path.is_relative_to(PROJECT_TEMPLATES) for path in origins.values())
        assert html.lstrip().lower().startswith("<!doctype html>")
        assert attribute(elements(html, "html")[0], "lang") == "en-us"
        assert elements(html, "meta", charset="utf-8") and elements(html, "meta", name="viewport")
        assert f"<title>{title}</title>" in html
        assert not elements(html, "link", rel="stylesheet")

    listing = client.get(feed.get_absolute_url())
    pagination = template_origins(listing)["djangofeeds/includes/pagination.html"]
    assert pagination.is_relative_to(APP_TEMPLATES)
    assert elements(listing.text, "a", rel="next", href="?page=2")


@pytest.mark.project_wiring
def test_project_puts_the_feed_pages_in_its_own_layout(client):
    """The project overrides djangofeeds/base.html only: the pages get its base.html and
    stylesheet, and their titles the site's name."""
    feed = FeedFactory(title="Worker Notes")
    response = client.get(feed.get_absolute_url())
    origins = template_origins(response)
    assert origins["djangofeeds/base.html"] == PROJECT_TEMPLATES / "djangofeeds" / "base.html"
    assert origins["base.html"] == PROJECT_TEMPLATES / "base.html"
    assert elements(response.text, "link", rel="stylesheet", href="/static/site/site.css")
    assert "<title>Worker Notes · Blog</title>" in response.text
    assert "<title>Feeds · Blog</title>" in client.get("/feeds/").text
