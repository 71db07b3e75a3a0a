"""Content distribution: the callback checks the signature and size; the task stores; poll pace."""

import base64
import hashlib
import hmac
import logging
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from djangofeeds.importing.runner import run_import
from djangofeeds.models import Feed, ImportRun, Post, Subscription
from djangofeeds.tasks import store_push
from localservers.feed_server import numbered_items, rss

pytestmark = pytest.mark.django_db(transaction=True)
State = Subscription.State
SECRET = "the-hub-secret"


@pytest.fixture
def active(settings, database_cache):
    """An active, leased subscription of a feed, push on."""
    settings.DJANGOFEEDS_PUBLIC_URL = "https://reader.example"
    feed = Feed.objects.create(url="https://example.com/feed.xml", title="Pushed")
    return Subscription.objects.create(
        feed=feed,
        hub="https://hub.example/",
        topic=feed.url,
        secret=SECRET,
        state=State.ACTIVE,
        lease_expires_at=timezone.now() + timedelta(days=5),
    )


@pytest.fixture
def queued(monkeypatch):
    """What the callback queues, instead of a broker: ``store_push.delay``'s arguments."""
    calls = []
    monkeypatch.setattr(store_push, "delay", lambda *args: calls.append(args))
    return calls


def push(client, subscription, body, header="sign", method="sha256", **extra):
    if header == "sign":
        header = f"{method}=" + hmac.new(SECRET.encode(), body, method).hexdigest()
    headers = {"HTTP_X_HUB_SIGNATURE": header} if header else {}
    url = reverse("djangofeeds:websub_callback", kwargs={"token": subscription.token})
    return client.post(url, body, content_type="application/rss+xml", **headers, **extra)


BODY = rss([{"guid": "pushed-1", "title": "Pushed post", "link": "https://example.com/1"}])


@pytest.mark.parametrize("method", ["sha1", "sha256", "sha384", "sha512"])
def test_callback_accepts_a_valid_signature_and_queues_the_store(client, active, queued, method):
    """A push signed with the secret under any of the four methods is answered 202 and queued."""
    response = push(client, active, BODY, method=method)
    assert response.status_code == 202
    ((pk, body_b64, content_type),) = queued
    assert base64.b64decode(body_b64) == BODY
    assert pk == active.pk and content_type == "application/rss+xml"


@pytest.mark.parametrize(
    "header",
    [
        None,
        "sha256=" + "0" * 64,
        "sha256=" + hmac.new(b"wrong secret", BODY, "sha256").hexdigest(),
        "sha256=" + hmac.new(SECRET.encode(), BODY, "sha256").hexdigest()[:40],
        "md5=" + hashlib.md5(BODY).hexdigest(),
    ],
    ids=["missing", "wrong", "wrong-secret", "truncated", "unknown-method"],
)
def test_callback_ignores_a_bad_signature_and_logs_it(client, active, queued, header, caplog):
    """A missing or bad signature stores nothing (nothing queued) and is logged (202: no oracle)."""
    with caplog.at_level(logging.WARNING, logger="djangofeeds.views"):
        response = push(client, active, BODY, header=header)
    assert response.status_code == 202
    assert queued == []
    assert "ignored" in caplog.text and active.topic in caplog.text


def test_callback_refuses_a_body_over_the_cap(client, active, queued, settings):
    """A pushed body over DJANGOFEEDS_MAX_BYTES is refused with 413 and not queued."""
    settings.DJANGOFEEDS_MAX_BYTES = 100
    assert len(BODY) > 100
    assert push(client, active, BODY).status_code == 413
    assert queued == []


def test_a_chunked_push_the_server_cannot_read_is_411_not_a_forgery(client, active, queued, caplog):
    """Under a server that does not end a chunked body for the app (Django's own, the test
    client), the push is answered 411 Length Required, so the hub retries, and is not
    logged as a forgery. (Under gunicorn it is read: test_push_workers.)"""
    with caplog.at_level(logging.WARNING, logger="djangofeeds.views"):
        response = push(client, active, BODY, CONTENT_LENGTH="", HTTP_TRANSFER_ENCODING="chunked")
    assert response.status_code == 411
    assert queued == []
    assert "chunked body this server cannot read" in caplog.text
    assert "signature" not in caplog.text


def test_callback_of_unknown_or_inactive_subscription_is_404(client, active, queued):
    """A push to a token we never gave, or to a subscription not active, is 404."""
    Subscription.objects.filter(pk=active.pk).update(state=State.UNSUBSCRIBED)
    assert push(client, active, BODY).status_code == 404
    active.token = "nope"
    assert push(client, active, BODY).status_code == 404
    assert queued == []


def test_callback_answers_503_when_the_broker_fails(client, active, monkeypatch):
    """A push that cannot be queued is not acknowledged: the hub will retry it."""

    def broken(*args):
        raise ConnectionError("broker down")

    monkeypatch.setattr(store_push, "delay", broken)
    assert push(client, active, BODY).status_code == 503


def test_store_push_stores_posts_without_fetching_and_shows_them(client, active):
    """The task parses and stores the pushed document as a pushed ImportRun; /feeds/ shows it."""
    result = store_push.apply(args=(active.pk, base64.b64encode(BODY).decode())).get()
    assert result["status"] == "imported" and result["created"] == 1
    run = ImportRun.objects.get()
    assert run.pushed and run.http_status is None and run.bytes_received == len(BODY)
    assert Post.objects.get().title == "Pushed post"
    assert b"Pushed post" in client.get(reverse("djangofeeds:post_list")).content
    active.refresh_from_db()
    assert active.last_push_at is not None
    feed = Feed.objects.get()
    assert feed.fence == 1  # taken under the feed's lock, with a fencing number
    assert feed.next_check_at > timezone.now() + timedelta(hours=23)  # polling slows down


def test_store_push_of_not_a_feed_records_a_failed_run(active):
    """Junk pushed by a hub fails its run; the feed's health is untouched."""
    result = store_push.apply(args=(active.pk, base64.b64encode(b"junk").decode())).get()
    assert result["status"] == "failed"
    assert Feed.objects.get().error_count == 0


def test_store_push_for_a_deactivated_feed_stores_nothing(active):
    """A push arriving after the feed was deactivated is dropped."""
    Feed.objects.update(is_active=False)
    result = store_push.apply(args=(active.pk, base64.b64encode(BODY).decode())).get()
    assert result["status"] == "skipped" and Post.objects.count() == 0


def poll(url):
    return run_import(url, task_name="djangofeeds.tasks.import_feed")


def test_polling_slows_while_pushes_arrive_and_resumes_when_a_poll_finds_more(
    active, feed_server, settings
):
    """A pushed feed is polled at the maximum interval; a poll with unpushed posts ends that."""
    settings.DJANGOFEEDS_MAX_POLL_INTERVAL = 86400
    url = feed_server.serve("/feed.xml", rss(numbered_items(3)))
    Feed.objects.filter(pk=active.feed_id).update(url=url)
    Subscription.objects.filter(pk=active.pk).update(topic=url, last_push_at=timezone.now())
    poll(url)  # three posts no push brought: push missed them
    active.refresh_from_db()
    assert active.missed_at is not None and not active.pushing()
    normal = Feed.objects.get().next_check_at
    assert normal < timezone.now() + timedelta(hours=2)

    Subscription.objects.filter(pk=active.pk).update(last_push_at=timezone.now())
    poll(url)  # same posts: nothing missed, push trusted again
    slowed = Feed.objects.get().next_check_at
    assert slowed > timezone.now() + timedelta(hours=23)

    feed_server.serve("/feed.xml", rss(numbered_items(4)))
    Feed.objects.update(next_check_at=timezone.now())
    poll(url)  # one post no push brought: back to the feed's own pace
    assert Feed.objects.get().next_check_at < timezone.now() + timedelta(hours=2)
    assert not Subscription.objects.get().pushing()


def test_lapsed_lease_means_normal_polling(active, feed_server):
    """Once the lease has ended, polls keep the feed's own pace."""
    url = feed_server.serve("/feed.xml", rss(numbered_items(3)))
    Feed.objects.filter(pk=active.feed_id).update(url=url)
    Subscription.objects.filter(pk=active.pk).update(
        topic=url, last_push_at=timezone.now(), lease_expires_at=timezone.now()
    )
    poll(url)
    assert Feed.objects.get().next_check_at < timezone.now() + timedelta(hours=2)


def pushed_atom(updated, title):
    return (
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>Pushed</title><id>urn:pushed</id>'
        f"<updated>{updated}</updated><entry><id>urn:pushed:1</id><title>{title}</title>"
        f"<updated>{updated}</updated><content>{title} body</content></entry></feed>"
    ).encode()


def test_a_replayed_older_push_never_rolls_a_post_back(active):
    """The 01:00 push's exact bytes, replayed after the 02:00 push was stored, change
    nothing: title, content and update time stay the 02:00 ones."""
    first = pushed_atom("2026-11-28T01:00:00Z", "One o'clock")
    second = pushed_atom("2026-11-28T02:00:00Z", "Two o'clock")
    for body in (first, second):
        store_push.apply(args=(active.pk, base64.b64encode(body).decode())).get()
    assert Post.objects.get().title == "Two o'clock"

    replay = store_push.apply(args=(active.pk, base64.b64encode(first).decode())).get()

    assert (replay["created"], replay["updated"]) == (0, 0)
    post = Post.objects.get()
    assert (post.title, post.content, post.updated_at.hour) == (
        "Two o'clock",
        "<p>Two o'clock body</p>",
        2,
    )
