"""WebSub subscriptions against a hub stand-in and a live server: subscribe, verify, renew, drop."""

from datetime import timedelta

import httpx
import pytest
from django.utils import timezone

from djangofeeds.importing import records
from djangofeeds.models import Feed, Subscription
from djangofeeds.push import subscriber
from djangofeeds.tasks import import_feed, renew_subscriptions, subscribe_feed
from localservers.feed_server import numbered_items, rss
from localservers.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)
State = Subscription.State


def hub_links(hub, topic):
    return {"Link": f'<{hub.url}>; rel="hub", <{topic}>; rel="self"'}


def subscription_for(hub, url="https://example.com/feed.xml", topic=None):
    """A feed and its pending subscription at ``hub``, as an import that found the hub leaves it."""
    feed = Feed.objects.create(url=url)
    headers = httpx.Headers(hub_links(hub, topic or url))
    pk = subscriber.found_hub(feed, headers, b"", url)
    return Subscription.objects.get(pk=pk)


def test_subscribe_feed_posts_the_request_and_the_hub_verification_activates(hub, push_on):
    """The hub gets callback, mode, topic, lease and secret; its challenge is echoed; active."""
    subscription = subscription_for(hub)
    subscribe_feed.apply(args=(subscription.pk,)).get()

    (form,) = hub.received()
    assert form["hub.mode"] == "subscribe"
    assert form["hub.topic"] == "https://example.com/feed.xml"
    assert form["hub.callback"] == f"{push_on.url}/feeds/websub/{subscription.token}/"
    assert form["hub.secret"] == subscription.secret and len(subscription.secret) >= 32
    assert form["hub.lease_seconds"] == "864000"
    assert hub.wait_verified().confirmed
    subscription.refresh_from_db()
    assert subscription.state == State.ACTIVE
    lease = subscription.lease_expires_at - timezone.now()
    assert timedelta(days=9, hours=23) < lease <= timedelta(days=10)


def test_callback_tokens_are_unique_and_unguessable(hub, push_on):
    """Each subscription gets its own 43-character random token and secret."""
    one = subscription_for(hub, "https://a.example/feed")
    two = subscription_for(hub, "https://b.example/feed")
    assert one.token != two.token and one.secret != two.secret
    assert len(one.token) == 43


def test_verification_for_an_unknown_topic_or_token_is_404(hub, push_on):
    """A verification that matches no subscription we asked for gets 404, no challenge."""
    subscription = subscription_for(hub)
    form = {
        "hub.mode": "subscribe",
        "hub.topic": "https://evil.example/other",
        "hub.callback": subscriber.callback_url(subscription),
    }
    assert hub.verify_intent(form).status == 404
    form["hub.topic"], form["hub.callback"] = subscription.topic, form["hub.callback"][:-3] + "xx/"
    assert hub.verify_intent(form).status == 404
    subscription.refresh_from_db()
    assert subscription.state == State.PENDING


def test_unsubscribe_verification_only_after_we_unsubscribed(hub, push_on):
    """mode=unsubscribe is confirmed only for a subscription we are leaving."""
    subscription = subscription_for(hub)
    form = {
        "hub.mode": "unsubscribe",
        "hub.topic": subscription.topic,
        "hub.callback": subscriber.callback_url(subscription),
    }
    assert hub.verify_intent(form).status == 404
    Subscription.objects.filter(pk=subscription.pk).update(state=State.UNSUBSCRIBED)
    assert hub.verify_intent(form).confirmed


def test_denied_is_recorded(hub, push_on):
    """hub.mode=denied marks the subscription denied with the hub's reason."""
    subscription = subscription_for(hub)
    form = {"hub.topic": subscription.topic, "hub.callback": subscriber.callback_url(subscription)}
    assert hub.deny(form, reason="no thanks") == 200
    subscription.refresh_from_db()
    assert subscription.state == State.DENIED
    assert "no thanks" in subscription.last_error


@pytest.mark.parametrize("status", [307, 308])
def test_subscribe_follows_307_and_308(hub, push_on, status):
    """A hub that redirects the subscription POST with 307/308 gets it again, at the new place."""
    hub.redirect("/hub", hub.url_for("/real-hub"), status=status)
    subscription = subscription_for(hub)
    subscribe_feed.apply(args=(subscription.pk,)).get()
    assert len(hub.received("/hub")) == 1
    (form,) = hub.received("/real-hub")
    assert form["hub.secret"] == subscription.secret
    assert hub.wait_verified().confirmed


def test_subscribe_to_a_private_hub_is_refused_like_a_fetch(hub, push_on, settings):
    """The hub POST obeys the fetch rules: no private address unless allowed; the error is kept."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    subscription = subscription_for(hub)
    with pytest.raises(subscriber.HubError, match="non-public"):
        subscriber.request(subscription, "subscribe")
    assert hub.received() == []
    subscription.refresh_from_db()
    assert "non-public" in subscription.last_error


def test_import_that_finds_a_hub_subscribes_at_once(
    hub, push_on, feed_server, eager, database_cache
):
    """An import of a feed with a hub sends the subscription task right away; the hub verifies."""
    url = feed_server.url("/feed.xml")
    feed_server.serve("/feed.xml", rss(numbered_items(2)), headers=hub_links(hub, url))
    import_feed.apply(args=(url,)).get()
    assert hub.wait_verified().confirmed
    subscription = Subscription.objects.get(feed__url=url)
    assert (subscription.hub, subscription.topic) == (hub.url, url)
    wait_until(lambda: Subscription.objects.get().state == State.ACTIVE, 10, "active")
    import_feed.apply(args=(url,)).get()  # already subscribed: no second request
    assert len(hub.received()) == 1


def test_renew_resubscribes_leases_near_their_end(hub, push_on, eager):
    """The beat task asks the hub again for leases ending soon, not for the others."""
    ending = subscription_for(hub, "https://a.example/feed")
    later = subscription_for(hub, "https://b.example/feed")
    now = timezone.now()
    Subscription.objects.filter(pk=ending.pk).update(
        state=State.ACTIVE, lease_expires_at=now + timedelta(hours=1)
    )
    Subscription.objects.filter(pk=later.pk).update(
        state=State.ACTIVE, lease_expires_at=now + timedelta(days=5)
    )
    assert renew_subscriptions.apply().get() == {"renewed": 1, "unsubscribed": 0}
    (form,) = hub.received()
    assert form["hub.topic"] == ending.topic and form["hub.mode"] == "subscribe"
    hub.wait_verified()
    wait_until(
        lambda: Subscription.objects.get(pk=ending.pk).lease_expires_at > now + timedelta(days=9),
        10,
        "renewed lease",
    )


def test_deactivated_feed_is_unsubscribed(hub, push_on, eager):
    """Deactivating a feed tells its hub at once (mode=unsubscribe), and the hub's check passes."""
    subscription = subscription_for(hub)
    Subscription.objects.filter(pk=subscription.pk).update(state=State.ACTIVE)
    records.deactivate(Feed.objects.filter(pk=subscription.feed_id))
    (form,) = hub.received()
    assert form["hub.mode"] == "unsubscribe" and "hub.secret" not in form
    assert hub.wait_verified().confirmed
    assert Subscription.objects.get().state == State.UNSUBSCRIBED


def test_deleted_feed_is_unsubscribed_by_the_renewal(hub, push_on, eager, settings):
    """A feed deleted while push was off is unsubscribed by the next renewal tick."""
    subscription = subscription_for(hub)
    Subscription.objects.filter(pk=subscription.pk).update(state=State.ACTIVE)
    settings.DJANGOFEEDS_PUBLIC_URL = None
    Feed.objects.all().delete()
    assert hub.received() == []
    settings.DJANGOFEEDS_PUBLIC_URL = push_on.url
    assert renew_subscriptions.apply().get() == {"renewed": 0, "unsubscribed": 1}
    assert [form["hub.mode"] for form in hub.received()] == ["unsubscribe"]
    assert Subscription.objects.get().feed is None


def test_lapsed_lease_polls_the_feed_now_and_subscribes_again(hub, push_on, eager):
    """A lease that ended makes its feed due at once (no more pushes) and is asked for anew."""
    subscription = subscription_for(hub)
    now = timezone.now()
    Subscription.objects.filter(pk=subscription.pk).update(
        state=State.ACTIVE, lease_expires_at=now - timedelta(minutes=1), last_push_at=now
    )
    Feed.objects.update(next_check_at=now + timedelta(days=1))  # slowed down by pushes
    assert renew_subscriptions.apply().get() == {"renewed": 1, "unsubscribed": 0}
    assert Feed.objects.get().next_check_at <= timezone.now()
    assert [form["hub.mode"] for form in hub.received()] == ["subscribe"]
    assert hub.wait_verified().confirmed


@pytest.mark.parametrize("lease", ["²", "①", "-5", "1e9", "9" * 50, ""])
def test_verification_with_a_malformed_lease_takes_the_default_lease(client, hub, push_on, lease):
    """A hub's hub.lease_seconds that is no ASCII number ("²" passes str.isdigit) is
    answered with the challenge and the default lease, never a 500."""
    subscription = subscription_for(hub)
    params = {
        "hub.mode": "subscribe",
        "hub.topic": subscription.topic,
        "hub.challenge": "c-123",
        "hub.lease_seconds": lease,
    }

    response = client.get(f"/feeds/websub/{subscription.token}/", params)

    assert (response.status_code, response.content) == (200, b"c-123")
    subscription.refresh_from_db()
    left = subscription.lease_expires_at - timezone.now()
    assert timedelta(days=9, hours=23) < left <= timedelta(days=10)
