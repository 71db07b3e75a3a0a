"""blog/urls.py: no prefix of its own; every page reversed, so it works at any mount."""

from xml.etree import ElementTree

import pytest
from django.core.exceptions import ValidationError
from django.urls import resolve, reverse

from blog import urls
from blog.models import RESERVED_SLUGS, Entry
from tests.factories import EntryFactory
from tests.support.comments import VALID, post_comment
from tests.support.pages import links

pytestmark = pytest.mark.django_db


def test_blog_urls_work_mounted_at_journal(bare_host, client):
    """Mounted at journal/: the list, the entry, the comment POST (303 to the entry there),
    the feed, and every link the pages carry stay under journal/."""
    entry = EntryFactory(slug="queues")
    assert entry.get_absolute_url() == "/journal/queues/"

    listing = client.get("/journal/")
    assert listing.status_code == 200
    assert "/journal/queues/" in links(listing.text)
    page = client.get("/journal/queues/")
    assert page.status_code == 200
    assert "/journal/queues/comment/#comment-form" in links(page.text)

    response = client.post("/journal/queues/comment/", VALID)
    assert response.status_code == 303
    assert response["Location"] == "/journal/queues/"
    after = client.get(response["Location"])
    assert "awaiting moderation" in after.text

    rss = client.get("/journal/feed/")
    assert rss.status_code == 200
    channel = ElementTree.fromstring(rss.content).find("channel")
    assert channel.findtext("link") == "http://testserver/journal/"
    assert [item.findtext("link") for item in channel.iter("item")] == [
        "http://testserver/journal/queues/"
    ]

    for html in (listing.text, page.text, after.text):
        internal = [url for url in links(html) if url.startswith("/")]
        assert internal and all(url.startswith("/journal/") for url in internal), internal
    assert client.get("/blog/queues/").status_code == 404


def test_entry_slug_feed_is_refused(admin_client):
    """An entry cannot take the slug "feed" (the admin says so at the field): /<mount>/feed/
    is the RSS, and the entry would never be reached. "feeds", "comment" or "Feed" are fine."""
    with pytest.raises(ValidationError) as refused:
        Entry(title="Feed", slug="feed", body="x").full_clean()
    assert list(refused.value.message_dict) == ["slug"]
    form = {"title": "Feed", "slug": "feed", "body": "x", "pub_date_0": "2026-01-02"}
    response = admin_client.post("/admin/blog/entry/add/", form | {"pub_date_1": "10:00"})
    assert response.status_code == 200
    assert list(response.context["adminform"].form.errors) == ["slug"]
    assert not Entry.objects.exists()
    for slug in ("feeds", "comment", "Feed"):
        Entry(title="Fine", slug=slug, body="x").full_clean()
    assert resolve(reverse("blog:feed")).url_name == "feed"


def test_reserved_slugs_cover_every_path_beside_the_entries():
    """Each fixed first segment of blog/urls.py is a reserved slug, or <slug>/ would shadow
    it (or it an entry): a new page of the app must be added to RESERVED_SLUGS."""
    fixed = {
        str(pattern.pattern).split("/")[0]
        for pattern in urls.urlpatterns
        if str(pattern.pattern) and not str(pattern.pattern).startswith("<")
    }
    assert fixed == RESERVED_SLUGS


@pytest.mark.project_wiring
def test_project_keeps_the_front_page_and_every_blog_url(client):
    """The project mounts the blog at blog/ and keeps the entry list at /: /, /blog/,
    /blog/<slug>/, its comment POST and /blog/feed/ all answer as before."""
    entry = EntryFactory(slug="queues")
    assert reverse("home") == "/" and reverse("blog:entry_list") == "/blog/"
    assert entry.get_absolute_url() == "/blog/queues/"
    for url in ("/", "/blog/", "/blog/queues/", "/blog/feed/"):
        assert client.get(url).status_code == 200, url
    assert "/blog/queues/" in links(client.get("/").text)
    assert post_comment(client, entry)["Location"] == "/blog/queues/"
