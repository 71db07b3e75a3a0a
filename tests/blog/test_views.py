"""The blog's pages: only published entries are shown, and shown escaped."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import EntryFactory

pytestmark = pytest.mark.django_db


def test_entry_list_shows_published_entries_newest_first(client):
    """/ lists published entries, newest first, linking to each."""
    older = EntryFactory(title="Older", pub_date=timezone.now() - timedelta(days=2))
    newer = EntryFactory(title="Newer", pub_date=timezone.now() - timedelta(days=1))
    response = client.get("/")
    assert response.status_code == 200
    text = response.content.decode()
    assert text.index("Newer") < text.index("Older")
    assert newer.get_absolute_url() in text and older.get_absolute_url() in text


def test_entry_list_hides_drafts_and_future_entries(client):
    """Unpublished entries and entries dated in the future are not listed."""
    EntryFactory(title="Draft entry", is_published=False)
    EntryFactory(title="Tomorrow's entry", pub_date=timezone.now() + timedelta(days=1))
    text = client.get("/").content.decode()
    assert "Draft entry" not in text
    assert "Tomorrow" not in text
    assert "Nothing published yet." in text


def test_entry_detail_shows_the_entry(client):
    """/blog/<slug>/ shows the title and the body's paragraphs."""
    entry = EntryFactory(title="Hello", body="First.\n\nSecond.")
    response = client.get(f"/blog/{entry.slug}/")
    assert response.status_code == 200
    assert "<h1>Hello</h1>" in response.content.decode()
    assert "<p>Second.</p>" in response.content.decode()


@pytest.mark.parametrize(
    "fields", [{"is_published": False}, {"pub_date": timezone.now() + timedelta(days=1)}]
)
def test_entry_detail_of_unpublished_entry_is_404(client, fields):
    """A draft or future entry cannot be read by guessing its URL."""
    entry = EntryFactory(**fields)
    assert client.get(f"/blog/{entry.slug}/").status_code == 404


def test_entry_text_is_escaped(client):
    """Markup in a title or body is shown as text, never run."""
    entry = EntryFactory(title="<script>alert(1)</script>", body="<img src=x onerror=alert(2)>")
    for url in ("/", entry.get_absolute_url()):
        text = client.get(url).content.decode()
        assert "<script>alert(1)" not in text and "&lt;script&gt;alert(1)" in text
        assert "<img src=x" not in text
