"""The blog's templates: its own plain base and includes, which a host overrides in one file."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

import blog
from tests.factories import EntryFactory
from tests.support.comments import VALID
from tests.support.pages import (
    PROJECT_TEMPLATES,
    attribute,
    elements,
    parent_of,
    template_origins,
)

pytestmark = pytest.mark.django_db

APP_TEMPLATES = Path(blog.__file__).parent / "templates"


def assert_complete_page(html, title):
    """A page that stands alone: doctype, language, charset, viewport, title."""
    assert html.lstrip().lower().startswith("<!doctype html>")
    assert attribute(elements(html, "html")[0], "lang") == "en-us"
    assert elements(html, "meta", charset="utf-8")
    assert elements(html, "meta", name="viewport")
    assert f"<title>{title}</title>" in html


def test_blog_pages_render_with_the_apps_own_base_and_includes(bare_host, client):
    """Without any template of the host's, each page is the app's own complete page, with
    its pagination, its messages and its RSS link, and no stylesheet."""
    now = timezone.now()
    for n in range(11):
        EntryFactory(slug=f"entry-{n}", title=f"Entry {n}", pub_date=now - timedelta(days=n))
    listing = client.get("/journal/")
    invalid = client.post("/journal/entry-0/comment/", VALID | {"email_address": "bad"})
    posted = client.post("/journal/entry-0/comment/", VALID, follow=True)
    assert (listing.status_code, invalid.status_code, posted.status_code) == (200, 400, 200)

    for response in (listing, invalid, posted):
        origins = template_origins(response)
        assert origins["blog/base.html"] == APP_TEMPLATES / "blog" / "base.html"
        assert origins["blog/includes/messages.html"].is_relative_to(APP_TEMPLATES)
        assert not any(path.is_relative_to(PROJECT_TEMPLATES) for path in origins.values())
        assert not elements(response.text, "link", rel="stylesheet")
        assert elements(response.text, "link", type="application/rss+xml", href="/journal/feed/")
    assert_complete_page(listing.text, "Blog")
    assert_complete_page(posted.text, "Entry 0 · Blog")
    assert template_origins(listing)["blog/includes/pagination.html"].is_relative_to(APP_TEMPLATES)
    assert elements(listing.text, "a", rel="next", href="?page=2")
    status = elements(posted.text, role="status")
    assert len(status) == 1 and "awaiting moderation" in str(status[0])


@pytest.mark.parametrize("host", ["bare_host", "project"])
def test_honeypot_is_hidden_by_its_own_markup(request, client, host):
    """The honeypot's wrapper carries the hidden attribute (no stylesheet needed), its input
    is out of the tab order and of autofill, and is still in the form for bots to fill;
    the visitor's fields are not hidden."""
    if host == "bare_host":
        request.getfixturevalue("bare_host")
    entry = EntryFactory()
    html = client.get(entry.get_absolute_url()).text

    (honeypot,) = elements(html, "input", name="website")
    assert attribute(honeypot, "tabindex") == "-1"
    assert attribute(honeypot, "autocomplete") == "off"
    assert attribute(honeypot, "value") == ""
    wrapper = parent_of(html, "input", name="website")
    assert ("hidden", None) in wrapper.attributes
    assert parent_of(html, "div", **{"class": "honeypot"}).name == "form"
    for name in ("name", "email_address", "homepage", "comment"):
        assert ("hidden", None) not in parent_of(html, name=name).attributes, name


@pytest.mark.project_wiring
def test_project_puts_the_blog_pages_in_its_own_layout(client):
    """The project overrides blog/base.html only: the pages get its base.html, stylesheet
    and navigation, and keep their titles."""
    entry = EntryFactory(title="Queues")
    response = client.get(entry.get_absolute_url())
    origins = template_origins(response)
    assert origins["blog/base.html"] == PROJECT_TEMPLATES / "blog" / "base.html"
    assert origins["base.html"] == PROJECT_TEMPLATES / "base.html"
    assert elements(response.text, "link", rel="stylesheet", href="/static/site/site.css")
    assert elements(response.text, "nav", **{"aria-label": "Site"})
    assert "<title>Queues · Blog</title>" in response.text
