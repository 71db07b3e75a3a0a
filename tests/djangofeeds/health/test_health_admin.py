"""The admin's feed health page: counts per state, the feeds in each, the week's changes."""

import pytest
from django.urls import reverse
from django.utils import timezone

from djangofeeds.models import Feed, Health, HealthChange

pytestmark = pytest.mark.django_db

PAGE = "/admin/djangofeeds/feed/health/"


@pytest.fixture
def feeds():
    for n in range(3):
        Feed.objects.create(url=f"https://ok.example/{n}")
    dead = Feed.objects.create(url="https://dead.example/feed", title="Dead blog")
    Feed.objects.filter(pk=dead.pk).update(
        health=Health.DEAD, last_error="HTTP 503", health_changed_at=timezone.now()
    )
    Feed.objects.create(url="https://quiet.example/feed", health=Health.SILENT)
    HealthChange.objects.create(
        feed=dead, changed_at=timezone.now(), old="failing", new="dead", reason="11 failures"
    )
    return dead


def test_the_health_page_counts_each_state_and_lists_the_feeds_that_need_a_look(
    admin_client, feeds
):
    assert reverse("admin:djangofeeds_feed_health") == PAGE
    response = admin_client.get(PAGE)

    assert response.status_code == 200
    counts = {row["state"]: row["count"] for row in response.context["states"]}
    assert counts == {"ok": 3, "failing": 0, "dead": 1, "moved": 0, "gone": 0, "silent": 1}
    page = response.content.decode()
    assert f'href="/admin/djangofeeds/feed/{feeds.pk}/change/">Dead blog</a>' in page
    assert "HTTP 503" in page and "11 failures" in page
    assert 'href="/admin/djangofeeds/feed/?health__exact=dead"' in page
    assert "ok.example" not in page  # healthy feeds are counted, not listed


def test_the_feed_list_links_the_health_page_and_filters_by_state(admin_client, feeds):
    page = admin_client.get("/admin/djangofeeds/feed/").content.decode()
    assert f'<a href="{PAGE}">Feed health</a>' in page

    filtered = admin_client.get("/admin/djangofeeds/feed/?health__exact=dead")
    assert list(filtered.context["cl"].result_list) == [feeds]


def test_health_changes_are_read_only_in_the_admin(admin_client, feeds):
    change = HealthChange.objects.get()
    assert admin_client.get("/admin/djangofeeds/healthchange/").status_code == 200
    assert admin_client.get("/admin/djangofeeds/healthchange/add/").status_code == 403
    response = admin_client.post(
        f"/admin/djangofeeds/healthchange/{change.pk}/change/", {"reason": "edited"}
    )
    assert response.status_code == 403
    assert HealthChange.objects.get().reason == "11 failures"


def test_the_health_page_needs_the_permission_to_view_feeds(client, django_user_model):
    staff = django_user_model.objects.create_user("clerk", password="x", is_staff=True)
    client.force_login(staff)
    assert client.get(PAGE).status_code == 403
    client.logout()
    assert client.get(PAGE).status_code == 302  # to the login page
