"""Akismet to its full API, through the stand-in: the exact fields of each check (a comment,
a reply, a re-check), the discard verdict, alert headers and the key's usage in the admin."""

import logging

import pytest

from blog import tasks
from blog.models import Comment, SpamServiceStatus
from localservers.akismet_server import DISCARD_AUTHOR
from localservers.waiting import wait_until
from tests.blog.helpers import KEY
from tests.factories import CommentFactory, EntryFactory
from tests.support.comments import kinds, post, settled

CHANGELIST = "/admin/blog/comment/"


def expected_fields(comment, comment_type):
    entry = comment.entry
    return {
        "api_key": KEY,
        "blog": "http://localhost:8000/",
        "user_ip": comment.user_ip,
        "user_agent": comment.user_agent,
        "referrer": comment.referrer,
        "permalink": "http://localhost:8000" + entry.get_absolute_url(),
        "comment_type": comment_type,
        "comment_author": comment.name,
        "comment_author_email": comment.email_address,
        "comment_author_url": comment.homepage,
        "comment_content": comment.comment,
        "comment_date_gmt": comment.pub_date.isoformat(),
        "comment_post_modified_gmt": entry.pub_date.isoformat(),
        "blog_lang": "en",
        "blog_charset": "utf-8",
        "user_role": "guest",
        "honeypot_field_name": "website",
        "website": "",
    }


@pytest.mark.django_db
def test_comment_check_sends_exactly_what_akismet_reads(akismet_settings, akismet):
    """A top-level comment and a reply: every field, exactly, and nothing else."""
    parent = CommentFactory(status="published", user_ip="192.0.2.7", referrer="https://a.example/")
    reply = CommentFactory(entry=parent.entry, parent=parent, user_ip="192.0.2.8")
    Comment.objects.filter(pk=parent.pk).update(status="pending")
    for comment in (parent, reply):
        assert tasks.spam_filter.apply(args=[comment.pk]).get() is False
    first, second = (call.form for call in akismet.calls("comment-check"))
    assert first == expected_fields(parent, "comment")
    assert second == expected_fields(reply, "reply")


@pytest.mark.django_db(transaction=True)
def test_recheck_from_the_admin_sends_its_reason_through_the_worker(
    admin_client, spam_worker, akismet
):
    """The moderators' "re-check" reaches Akismet with recheck_reason=recheck_queue, and the
    stored payload (what submit-spam/ham send) is that of the re-check."""
    comment = CommentFactory()
    admin_client.post(CHANGELIST, {"action": "recheck", "_selected_action": [comment.pk]})
    settled(comment)
    (call,) = akismet.calls("comment-check")
    assert call.form["recheck_reason"] == "recheck_queue"
    assert comment.akismet_payload["recheck_reason"] == "recheck_queue"


@pytest.mark.django_db(transaction=True)
def test_discard_deletes_without_a_moderation_entry_and_is_counted(
    client, admin_client, spam_worker, akismet
):
    """Akismet's "discard": no comment row left (nothing to moderate), one more discard
    counted, and the count is on the comments' admin page."""
    entry = EntryFactory()
    before = SpamServiceStatus.current().discarded
    comment = post(client, entry, name=DISCARD_AUTHOR)
    akismet.discard = True  # any author: the stand-in's switch
    other = post(client, entry, name="Bea")
    wait_until(lambda: not Comment.objects.filter(pk__in=[comment.pk, other.pk]).exists())
    assert SpamServiceStatus.current().discarded == before + 2
    page = admin_client.get(CHANGELIST).content.decode()
    assert f"{before + 2} blatant spam comments discarded" in page


@pytest.mark.django_db
def test_discard_kept_as_blatant_spam_when_deleting_is_off(akismet_settings, akismet):
    """BLOG_SPAM_DELETE_BLATANT = False keeps the old behaviour: spam, flagged blatant."""
    akismet_settings.BLOG_SPAM_DELETE_BLATANT = False
    comment = CommentFactory(name=DISCARD_AUTHOR)
    assert tasks.spam_filter.apply(args=[comment.pk]).get() is True
    comment.refresh_from_db()
    assert (comment.status, comment.is_blatant, kinds(comment)) == ("spam", True, ["checked"])
    assert SpamServiceStatus.current().discarded == 0


@pytest.mark.django_db
def test_alert_headers_are_logged_and_shown_in_the_admin(
    akismet_settings, akismet, admin_client, caplog
):
    """X-akismet-alert-code/-msg on an answer: one WARNING line, and the admin's banner."""
    akismet.alert = ("10003", "Your subscription has lapsed.")
    with caplog.at_level(logging.WARNING, logger="blog.akismet_client"):
        tasks.spam_filter.apply(args=[CommentFactory().pk]).get()
    alerts = [r.getMessage() for r in caplog.records if "alert" in r.getMessage()]
    assert alerts[0] == "Akismet alert 10003: Your subscription has lapsed."
    status = SpamServiceStatus.current()
    assert (status.alert_code, status.alert_message) == ("10003", "Your subscription has lapsed.")
    assert status.alert_at is not None
    page = admin_client.get(CHANGELIST).content.decode()
    assert "Akismet alert 10003" in page and "Your subscription has lapsed." in page


@pytest.mark.django_db
def test_usage_and_throttling_are_shown_in_the_admin(akismet_settings, akismet, admin_client):
    """usage-limit is asked when the page opens, kept a while, and shown with throttling."""
    akismet_settings.BLOG_AKISMET_USAGE_CACHE_SECONDS = 300  # long: CI under load is slow
    akismet_settings.AKISMET_BLOG_URL = f"http://usage-{id(akismet)}.example/"  # a fresh cache key
    akismet.usage = {"limit": 1000, "usage": 1200, "percentage": "120.00", "throttled": True}
    page = admin_client.get(CHANGELIST).content.decode()
    assert "Akismet usage this month: 1200 of 1000 calls (120.00%)." in page
    assert "Akismet is throttling this key" in page
    admin_client.get(CHANGELIST)
    assert len(akismet.calls("usage-limit")) == 1  # the second page read the cache
    (call,) = akismet.calls("usage-limit")
    assert (call.method, call.form) == ("GET", {"api_key": KEY})


@pytest.mark.django_db
def test_usage_failure_is_shown_not_raised(akismet_settings, akismet, admin_client):
    """An Akismet that cannot answer usage-limit leaves the page working, saying so."""
    akismet_settings.AKISMET_BLOG_URL = f"http://usage-fail-{id(akismet)}.example/"
    akismet.fail_next(10, 503)
    response = admin_client.get(CHANGELIST)
    assert response.status_code == 200
    assert "Akismet usage unavailable" in response.content.decode()
