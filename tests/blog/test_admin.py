"""Entries in the admin."""

import html
import json
import re

import pytest

from tests.factories import EntryFactory

pytestmark = pytest.mark.django_db


def test_entry_changelist_filters_and_searches(admin_client):
    """The entries list answers with its filters and a search."""
    EntryFactory(title="Celery tips")
    EntryFactory(title="Other news", is_published=False)
    response = admin_client.get("/admin/blog/entry/", {"q": "celery"})
    assert response.status_code == 200
    assert "Celery tips" in response.content.decode()
    assert "Other news" not in response.content.decode()
    drafts = admin_client.get("/admin/blog/entry/", {"is_published__exact": "0"})
    assert "Other news" in drafts.content.decode()
    assert "Celery tips" not in drafts.content.decode()


def test_entry_add_form_prepopulates_slug(admin_client):
    """The add form fills the slug from the title."""
    response = admin_client.get("/admin/blog/entry/add/")
    assert response.status_code == 200
    match = re.search(r'data-prepopulated-fields="([^"]*)"', response.content.decode())
    fields = json.loads(html.unescape(match.group(1)))
    assert {"id": "#id_slug", "dependency_ids": ["#id_title"]}.items() <= fields[0].items()
