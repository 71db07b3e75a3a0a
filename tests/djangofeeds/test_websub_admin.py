"""The admin shows each feed's push state: hub, lease end, last push; never the secret."""

from datetime import UTC, datetime

import pytest
from django.urls import reverse

from djangofeeds.models import Feed, Subscription

pytestmark = pytest.mark.django_db


@pytest.fixture
def pushed_feed():
    feed = Feed.objects.create(url="https://example.com/feed.xml", title="Pushed")
    Subscription.objects.create(
        feed=feed,
        hub="https://hub.example/",
        topic=feed.url,
        state=Subscription.State.ACTIVE,
        lease_expires_at=datetime(2030, 1, 2, 3, 4, tzinfo=UTC),
        last_push_at=datetime(2029, 12, 31, 23, 59, tzinfo=UTC),
        secret="never-shown-secret",
    )
    Feed.objects.create(url="https://example.com/polled.xml", title="Polled")
    return feed


def test_feed_list_shows_the_push_state(admin_client, pushed_feed):
    """The feed list has a push column: "active until <lease end>" for a pushed feed."""
    page = admin_client.get(reverse("admin:djangofeeds_feed_changelist")).content.decode()
    assert "active until 2030-01-02 03:04" in page
    assert "Push (WebSub)" in page


def test_feed_page_shows_hub_lease_and_last_push_not_the_secret(admin_client, pushed_feed):
    """A feed's page shows its subscription's hub, lease end and last push, not its secret."""
    url = reverse("admin:djangofeeds_feed_change", args=[pushed_feed.pk])
    page = admin_client.get(url).content.decode()
    assert "https://hub.example/" in page
    assert "2030" in page and "2029" in page
    assert "never-shown-secret" not in page
    subscription = Subscription.objects.get()
    assert subscription.token not in page
