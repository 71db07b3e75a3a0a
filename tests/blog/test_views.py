"""The blog's pages: only published entries and comments are shown, and shown escaped."""

import base64
import json
import re
from datetime import timedelta
from xml.etree import ElementTree

import pytest
import redis
from django.contrib import messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.contrib.staticfiles import finders
from django.core.signals import request_finished
from django.db import close_old_connections
from django.urls import reverse
from django.utils import timezone

from blog import views
from blog.models import Comment
from tests.blog.helpers import fresh_ip
from tests.factories import CommentFactory, EntryFactory
from tests.support.comments import VALID, post_comment
from tests.support.queues import redis_list_key

pytestmark = pytest.mark.django_db


def test_entry_list_shows_published_entries_newest_first(client):
    """/ lists published entries, newest first, linking to each."""
    older = EntryFactory(title="Older", pub_date=timezone.now() - timedelta(days=2))
    newer = EntryFactory(title="Newer", pub_date=timezone.now() - timedelta(days=1))
    response = client.get(reverse("blog:entry_list"))
    assert response.status_code == 200
    text = response.content.decode()
    assert text.index("Newer") < text.index("Older")
    assert newer.get_absolute_url() in text and older.get_absolute_url() in text


def test_entry_list_hides_drafts_and_future_entries(client):
    """Unpublished entries and entries dated in the future are not listed."""
    EntryFactory(title="Draft entry", is_published=False)
    EntryFactory(title="Tomorrow's entry", pub_date=timezone.now() + timedelta(days=1))
    text = client.get(reverse("blog:entry_list")).content.decode()
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
    for url in (reverse("blog:entry_list"), entry.get_absolute_url()):
        text = client.get(url).content.decode()
        assert "<script>alert(1)" not in text and "&lt;script&gt;alert(1)" in text
        assert "<img src=x" not in text


# --- comments ----------------------------------------------------------------


def test_add_comment_stores_a_pending_comment_and_redirects(
    client, django_capture_on_commit_callbacks
):
    """A valid POST stores the comment pending, with IP, agent and referrer, and answers 303."""
    entry = EntryFactory()
    with django_capture_on_commit_callbacks() as callbacks:
        response = post_comment(
            client,
            entry,
            REMOTE_ADDR="203.0.113.7",
            HTTP_USER_AGENT="TestBrowser/1.0",
            HTTP_REFERER="https://example.org/from",
        )
    assert response.status_code == 303
    assert response["Location"] == entry.get_absolute_url()
    comment = Comment.objects.get()
    assert (comment.entry, comment.name, comment.status) == (entry, "Ada", "pending")
    assert comment.user_ip == "203.0.113.7"
    assert comment.user_agent == "TestBrowser/1.0"
    assert comment.referrer == "https://example.org/from"
    assert comment.last_dispatched_at is not None
    assert len(callbacks) == 1
    page = client.get(response["Location"]).content.decode()
    assert "awaiting moderation" in page
    assert "Lovely post about queues." not in page  # pending: not shown


def test_add_comment_dispatches_only_after_commit(
    client, private_broker, django_capture_on_commit_callbacks
):
    """Nothing reaches the broker before the commit; then one spam_filter message with the id."""
    broker = redis.Redis.from_url(private_broker.url)
    queue = redis_list_key("spam")
    entry = EntryFactory()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        post_comment(client, entry, REMOTE_ADDR="203.0.113.8")
    assert broker.llen(queue) == 0
    for callback in callbacks:
        callback()
    message = json.loads(broker.lpop(queue))
    assert message["headers"]["task"] == "blog.tasks.spam_filter"
    args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
    assert (args, kwargs) == (
        [],
        {"comment_id": Comment.objects.get().pk, "remote_addr": "203.0.113.8"},
    )


def test_add_comment_dispatches_only_once_the_response_is_sent(
    rf, private_broker, django_capture_on_commit_callbacks
):
    """The visitor never waits on the broker: the check is sent when the server closes the
    written response, after the commit."""
    broker = redis.Redis.from_url(private_broker.url)
    queue = redis_list_key("spam")
    entry = EntryFactory()
    request = rf.post(f"/blog/{entry.slug}/comment/", VALID, REMOTE_ADDR="203.0.113.9")
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = views.add_comment(request, entry.slug)
    assert (response.status_code, len(callbacks)) == (303, 1)
    assert broker.llen(queue) == 0
    # What the server does once it has written the response (kept from closing the
    # test's database connection, as Django's test client does).
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)
    message = json.loads(broker.lpop(queue))
    assert message["headers"]["task"] == "blog.tasks.spam_filter"
    assert json.loads(base64.b64decode(message["body"]))[1] == {
        "comment_id": Comment.objects.get().pk,
        "remote_addr": "203.0.113.9",
    }


def test_comments_posted_before_a_page_is_seen_get_one_thank_you(client):
    """Two POSTs without following the redirect: the next page shows one thank-you."""
    entry = EntryFactory()
    assert post_comment(client, entry).status_code == 303
    assert post_comment(client, entry, VALID | {"comment": "And another."}).status_code == 303
    page = client.get(entry.get_absolute_url()).content.decode()
    assert page.count("awaiting moderation") == 1
    assert Comment.objects.count() == 2


def test_thank_you_keeps_the_messages_already_pending(rf):
    """Looking for a queued thank-you neither drops nor repeats the other pending messages."""
    request = rf.post("/")
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    messages.info(request, "Earlier news.")
    views.thank(request)
    views.thank(request)
    assert [m.message for m in messages.get_messages(request)] == ["Earlier news.", views.THANKS]


def test_add_comment_invalid_form_is_400_with_an_error_per_field(client):
    """Missing name, bad email, bad URL and an empty comment each get their own message."""
    entry = EntryFactory()
    data = {"name": "", "email_address": "nope", "homepage": "not a url", "comment": ""}
    response = post_comment(client, entry, data)
    assert response.status_code == 400
    text = response.content.decode()
    for message in (
        "Please give your name.",
        "Please give a valid email address.",
        "Please give a full URL",
        "Please write a comment.",
    ):
        assert message in text
    assert not Comment.objects.exists()


def test_add_comment_too_long_is_400(client):
    """Length limits hold: a 5001-character comment and a 65-character name are refused."""
    entry = EntryFactory()
    response = post_comment(client, entry, VALID | {"comment": "x" * 5001, "name": "n" * 65})
    assert response.status_code == 400
    text = response.content.decode()
    assert "under 5000 characters" in text
    assert "64 characters" in text
    assert not Comment.objects.exists()


def test_add_comment_with_honeypot_filled_is_400_and_stores_nothing(
    client, django_capture_on_commit_callbacks
):
    """A bot that fills the hidden field gets 400; nothing is stored or dispatched."""
    entry = EntryFactory()
    with django_capture_on_commit_callbacks() as callbacks:
        response = post_comment(client, entry, VALID | {"website": "http://spam.example/"})
    assert response.status_code == 400
    assert not Comment.objects.exists()
    assert callbacks == []


def test_add_comment_is_rate_limited_per_ip(client, settings, monkeypatch):
    """Past the per-minute limit an IP gets 429 with a message; another IP still posts."""
    settings.BLOG_COMMENTS_PER_MINUTE = 2
    entry = EntryFactory()
    moment = timezone.now()  # one clock minute for the whole test: no rollover mid-way
    monkeypatch.setattr(timezone, "now", lambda: moment)
    ip = fresh_ip()
    other_ip = fresh_ip()
    assert post_comment(client, entry, REMOTE_ADDR=ip).status_code == 303
    assert post_comment(client, entry, REMOTE_ADDR=ip).status_code == 303
    response = post_comment(client, entry, REMOTE_ADDR=ip)
    assert response.status_code == 429
    assert "commenting too fast" in response.content.decode()
    assert post_comment(client, entry, REMOTE_ADDR=other_ip).status_code == 303
    assert Comment.objects.count() == 3


def test_add_comment_rate_limit_lets_visitors_through_when_memcached_is_down(
    client, settings, memcached_cache
):
    """A cache that cannot count must not refuse comments (pymemcache answers add with False)."""
    settings.BLOG_COMMENTS_PER_MINUTE = 2
    entry = EntryFactory()
    memcached_cache.stop()

    codes = [post_comment(client, entry, REMOTE_ADDR="198.51.100.7").status_code for _ in range(6)]

    assert codes == [303] * 6
    assert Comment.objects.count() == 6


def test_add_comment_counts_accepted_comments_not_typos(client, settings, monkeypatch):
    """Five invalid forms in a minute are not counted: the visitor still gets in; past the
    limit of accepted comments the next one gets 429."""
    settings.BLOG_COMMENTS_PER_MINUTE = 2
    entry = EntryFactory()
    moment = timezone.now()  # one clock minute for the whole test
    monkeypatch.setattr(timezone, "now", lambda: moment)
    ip = fresh_ip()
    typo = VALID | {"email_address": "ada@"}

    typos = [post_comment(client, entry, typo, REMOTE_ADDR=ip).status_code for _ in range(5)]
    accepted = [post_comment(client, entry, REMOTE_ADDR=ip).status_code for _ in range(3)]

    assert typos == [400] * 5
    assert accepted == [303, 303, 429]
    assert Comment.objects.count() == 2


PROXIES = ["10.0.0.0/8", "192.0.2.1"]


def test_forged_x_forwarded_for_from_an_untrusted_client_is_ignored(client, settings, monkeypatch):
    """A client that reaches web directly cannot pick its IP: each POST names another one,
    yet the real address is stored and the rate limit fires."""
    settings.BLOG_TRUSTED_PROXIES = PROXIES
    settings.BLOG_COMMENTS_PER_MINUTE = 2
    entry, real = EntryFactory(), fresh_ip()
    moment = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: moment)

    codes = [
        post_comment(client, entry, REMOTE_ADDR=real, HTTP_X_FORWARDED_FOR=fresh_ip()).status_code
        for _ in range(4)
    ]

    assert codes == [303, 303, 429, 429]
    assert set(Comment.objects.values_list("user_ip", flat=True)) == {real}


def test_x_forwarded_for_is_honoured_from_a_trusted_proxy(client, settings, monkeypatch):
    """From a trusted proxy the visitor is the right-most entry that is not a trusted proxy;
    what the client wrote to its left is ignored, and two visitors behind one proxy are
    limited apart."""
    settings.BLOG_TRUSTED_PROXIES = PROXIES
    settings.BLOG_COMMENTS_PER_MINUTE = 1
    entry, visitor, other = EntryFactory(), fresh_ip(), fresh_ip()
    moment = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: moment)

    codes = [
        # The client forged 198.51.100.1; the outer proxy 192.0.2.1 saw the visitor.
        post_comment(
            client,
            entry,
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR=f"198.51.100.1, {visitor}, 192.0.2.1",
        ).status_code,
        post_comment(
            client, entry, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=visitor
        ).status_code,
        post_comment(client, entry, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=other).status_code,
    ]

    assert codes == [303, 429, 303]
    assert list(Comment.objects.order_by("pk").values_list("user_ip", flat=True)) == [
        visitor,
        other,
    ]


@pytest.mark.parametrize(
    "bad_entry", ["unknown", "1.2.3.4:80", "<script>", "999.1.1.1", "", "::%", "1.2.3.4%eth0"]
)
def test_add_comment_ignores_a_malformed_x_forwarded_for(client, settings, bad_entry):
    """A trusted proxy's header with garbage falls back to the last address known to be true
    (here the proxy's) instead of failing the POST. A zone is IPv6's alone, and never empty."""
    settings.BLOG_TRUSTED_PROXIES = PROXIES
    response = post_comment(
        client, EntryFactory(), REMOTE_ADDR="10.0.0.3", HTTP_X_FORWARDED_FOR=f"1.2.3.4, {bad_entry}"
    )
    assert response.status_code == 303
    assert Comment.objects.get().user_ip == "10.0.0.3"


def test_add_comment_keeps_an_ipv6_address_without_its_zone(client, settings):
    """A link-local visitor's zone ("%eth0") means nothing off the proxy's host: dropped."""
    settings.BLOG_TRUSTED_PROXIES = PROXIES
    response = post_comment(
        client, EntryFactory(), REMOTE_ADDR="10.0.0.3", HTTP_X_FORWARDED_FOR="fe80::1%eth0"
    )
    assert response.status_code == 303
    assert Comment.objects.get().user_ip == "fe80::1"


def test_add_comment_needs_post_and_a_published_entry(client):
    """GET on the comment URL is 405; commenting on a draft is 404."""
    entry = EntryFactory()
    assert client.get(f"/blog/{entry.slug}/comment/").status_code == 405
    draft = EntryFactory(is_published=False)
    assert post_comment(client, draft).status_code == 404


def test_only_published_comments_are_shown(client):
    """Published comments appear on the entry; pending and spam ones never do."""
    entry = EntryFactory()
    CommentFactory(entry=entry, comment="Visible remark", status="published")
    CommentFactory(entry=entry, comment="Waiting remark", status="pending")
    CommentFactory(entry=entry, comment="Buy pills", status="spam")
    text = client.get(entry.get_absolute_url()).content.decode()
    assert "Visible remark" in text
    assert "Waiting remark" not in text
    assert "Buy pills" not in text


XSS = '<script>alert("x")</script>'


def test_comment_fields_are_escaped_on_the_page(client):
    """Markup in every field a visitor controls is shown as text, never run."""
    entry = EntryFactory()
    response = post_comment(
        client, entry, {"name": XSS, "email_address": "x@example.com", "comment": XSS + "<b>hi"}
    )
    assert response.status_code == 303
    Comment.objects.update(status="published")
    CommentFactory(
        entry=entry,
        name="Homer",
        homepage='https://example.com/"><script>alert(2)</script>',
        status="published",
    )
    text = client.get(entry.get_absolute_url()).content.decode()
    assert "<script>alert" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert "&lt;b&gt;hi" in text
    assert 'href="https://example.com/&quot;&gt;&lt;script&gt;' in text


def test_invalid_form_redisplays_input_escaped(client):
    """A refused form shows the visitor's input back escaped."""
    entry = EntryFactory()
    response = post_comment(client, entry, {"name": XSS, "email_address": "bad", "comment": XSS})
    assert response.status_code == 400
    text = response.content.decode()
    assert "<script>alert" not in text
    assert text.count("&lt;script&gt;alert") == 2  # both fields shown back, escaped


def test_feed_lists_published_entries_escaped(client):
    """/blog/feed/ is RSS of the published entries, newest first, with markup escaped."""
    EntryFactory(title="Draft", is_published=False)
    EntryFactory(title="Old one", pub_date=timezone.now() - timedelta(days=2))
    EntryFactory(title="<b>New</b> one", pub_date=timezone.now() - timedelta(days=1))
    response = client.get("/blog/feed/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/rss+xml")
    root = ElementTree.fromstring(response.content)
    titles = [item.findtext("title") for item in root.iter("item")]
    assert titles == ["<b>New</b> one", "Old one"]
    links = [item.findtext("link") for item in root.iter("item")]
    assert all(link.startswith("http://testserver/blog/") for link in links)


def test_entry_list_is_paginated(client):
    """Ten entries to a page, with links between the pages."""
    for days in range(12):
        EntryFactory(pub_date=timezone.now() - timedelta(days=days + 1))
    first, second = (
        client.get(reverse("blog:entry_list")),
        client.get(reverse("blog:entry_list"), {"page": 2}),
    )
    assert len(first.context["entries"]) == 10 and len(second.context["entries"]) == 2
    assert 'rel="next"' in first.content.decode() and 'rel="prev"' in second.content.decode()


@pytest.mark.project_wiring
def test_pages_link_the_stylesheet_and_the_blog_feed(client):
    """Each page loads the one stylesheet and names the blog's RSS feed (for browsers, people)."""
    entry = EntryFactory()
    for url in ("/", entry.get_absolute_url(), "/feeds/"):
        text = client.get(url).content.decode()
        assert '<link rel="stylesheet" href="/static/site/site.css">' in text
        assert 'type="application/rss+xml"' in text and 'href="/blog/feed/"' in text
    assert finders.find("site/site.css")  # collected by collectstatic, served by whitenoise


def test_invalid_form_errors_are_tied_to_their_fields(client):
    """A refused form says what is wrong at the top (role=alert) and next to each field,
    which carries aria-invalid and names its error in aria-describedby."""
    entry = EntryFactory()
    response = post_comment(client, entry, VALID | {"email_address": "nope"})
    text = response.content.decode()
    assert 'role="alert"' in text and '<a href="#id_email_address">' in text
    assert 'id="id_email_address_error"' in text
    field = re.search(r"<input[^>]*name=\"email_address\"[^>]*>", text).group(0)
    assert 'aria-invalid="true"' in field
    assert 'aria-describedby="id_email_address_helptext id_email_address_error"' in field
    assert "aria-invalid" not in re.search(r"<input[^>]*name=\"name\"[^>]*>", text).group(0)
