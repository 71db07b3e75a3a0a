"""The pages the mails' links open: a GET only shows what a POST will do; expired, forged and
used links say so; one-click unsubscribe takes a mail provider's POST without a CSRF token."""

import time
from datetime import timedelta
from unittest import mock
from urllib.parse import urlsplit

import pytest
from django.test import Client

from blog.mail_links import moderation_url, unsubscribe_url
from blog.models import Comment, CommentEvent
from tests.factories import CommentFactory

pytestmark = pytest.mark.django_db
Kind = CommentEvent.Kind


def path_of(url):
    return urlsplit(url).path


def held():
    return CommentFactory(status="pending", spam_checked_at="2026-11-28T10:00Z", name="Eve")


@pytest.fixture
def csrf_client():
    """A client that needs the CSRF token, as a browser's POST has to."""
    return Client(enforce_csrf_checks=True)


def confirm(client, url):
    """GET the page, then POST its form with the page's CSRF token."""
    page = client.get(path_of(url))
    assert page.status_code == 200
    token = page.context["csrf_token"]
    return page, client.post(path_of(url), {"csrfmiddlewaretoken": str(token)})


@pytest.mark.parametrize(
    ("action", "status", "kind"),
    [("publish", "published", Kind.PUBLISHED), ("spam", "spam", Kind.MARKED_SPAM)],
)
def test_a_moderation_link_asks_then_decides(csrf_client, action, status, kind):
    comment = held()
    page, done = confirm(csrf_client, moderation_url(comment.pk, action))
    assert "Moderate a comment" in page.text and comment.comment in page.text
    assert done.status_code == 200
    comment.refresh_from_db()
    assert comment.status == status
    assert comment.events.get(kind=kind).detail == "from the moderators' mail"
    # The same link again: nothing to do, and the page says what was decided.
    again = csrf_client.post(path_of(moderation_url(comment.pk, "publish")))
    assert again.status_code == 403  # no token: the CSRF check holds for moderation


def test_opening_a_moderation_link_changes_nothing(client):
    comment = held()
    page = client.get(path_of(moderation_url(comment.pk, "spam")))
    assert "Mark this comment as spam" in page.text
    comment.refresh_from_db()
    assert comment.status == "pending" and not comment.events.exists()


def test_a_comment_decided_meanwhile_is_left_as_it_is(client):
    comment = CommentFactory(status="published")
    response = client.post(path_of(moderation_url(comment.pk, "spam")))
    assert "Nothing to do: the comment is already published." in response.text
    comment.refresh_from_db()
    assert comment.status == "published"


def test_a_moderation_link_expires_after_the_set_days(client, settings):
    settings.BLOG_MODERATION_LINK_DAYS = 7
    comment = held()
    eight_days_ago = time.time() - timedelta(days=8).total_seconds()
    with mock.patch("time.time", return_value=eight_days_ago):  # the link was mailed then
        old = moderation_url(comment.pk, "publish")
    fresh_enough = time.time() - timedelta(days=6).total_seconds()
    with mock.patch("time.time", return_value=fresh_enough):
        recent = moderation_url(comment.pk, "publish")
    response = client.post(path_of(old))
    assert response.status_code == 410
    assert "moderation links work for 7 days" in response.text
    assert Comment.objects.get(pk=comment.pk).status == "pending"
    assert client.post(path_of(recent)).status_code == 200
    assert Comment.objects.get(pk=comment.pk).status == "published"


@pytest.mark.parametrize("which", ["moderation", "unsubscribe"])
def test_a_forged_or_cut_link_is_refused(client, which):
    comment = held()
    url = (
        moderation_url(comment.pk, "publish")
        if which == "moderation"
        else (unsubscribe_url(comment.pk))
    )
    folder, token, _ = path_of(url).rsplit("/", 2)
    changed = ("A" if token[0] != "A" else "B") + token[1:]
    for broken in (token[:-6], changed, f"{comment.pk}"):
        response = client.post(f"{folder}/{broken}/")
        assert response.status_code == 400, broken
        assert "This link is not valid" in response.text
    comment.refresh_from_db()
    assert comment.status == "pending" and not comment.events.exists()


def test_a_moderation_token_is_no_unsubscribe_token(client):
    comment = held()
    token = path_of(moderation_url(comment.pk, "publish")).split("/")[-2]
    assert client.post(f"/blog/comments/unsubscribe/{token}/").status_code == 400


def test_one_click_unsubscribe_is_a_post_without_csrf_token(csrf_client):
    """RFC 8058: the mail provider POSTs ``List-Unsubscribe=One-Click`` to the header's URL."""
    comment = CommentFactory(status="published", notify_replies=True)
    url = unsubscribe_url(comment.pk)
    page = csrf_client.get(path_of(url))
    assert "Stop reply notices" in page.text
    assert Comment.objects.get(pk=comment.pk).notify_replies  # opening changed nothing
    response = csrf_client.post(path_of(url), {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert "You will get no more mail about replies" in response.text
    assert not Comment.objects.get(pk=comment.pk).notify_replies
    assert csrf_client.post(path_of(url)).status_code == 200  # again: harmless
