"""blog/signals.py: comment_will_be_posted (its receivers may veto) and comment_judged."""

import pytest

from blog import moderation
from blog.models import Comment
from blog.signals import comment_judged, comment_will_be_posted
from blog.spam_backends import Verdict
from blog.tasks import spam_filter
from tests.factories import CommentFactory, EntryFactory
from tests.support.comments import VALID, post_comment

pytestmark = pytest.mark.django_db


def test_comment_will_be_posted_gets_the_unsaved_comment_and_the_request(
    client, django_capture_on_commit_callbacks
):
    """A receiver that answers nothing lets the comment through: it sees it unsaved, pending,
    with the poster's IP, and the request."""
    seen = []

    def receiver(sender, comment, request, **kwargs):
        seen.append((sender, comment.pk, comment.status, comment.user_ip, request.path))

    entry = EntryFactory()
    comment_will_be_posted.connect(receiver)
    try:
        with django_capture_on_commit_callbacks() as callbacks:
            response = post_comment(client, entry, REMOTE_ADDR="203.0.113.7")
    finally:
        comment_will_be_posted.disconnect(receiver)
    assert response.status_code == 303 and len(callbacks) == 1  # saved, check dispatched
    path = f"/blog/{entry.slug}/comment/"
    assert seen == [(Comment, None, "pending", "203.0.113.7", path)]
    assert Comment.objects.get().comment == VALID["comment"]


def test_comment_will_be_posted_veto_stores_nothing_and_answers_400(
    client, receive, django_capture_on_commit_callbacks
):
    """One receiver returning False vetoes: no comment row, no spam check sent, the form back
    (the visitor's text kept) with 400 and a message."""
    receive(comment_will_be_posted)  # answers None: no veto
    receive(comment_will_be_posted, answer=False)
    with django_capture_on_commit_callbacks() as callbacks:
        response = post_comment(client, EntryFactory())
    assert response.status_code == 400
    text = response.content.decode()
    assert "Your comment was not accepted." in text and VALID["comment"] in text
    assert not Comment.objects.exists() and callbacks == []


def test_comment_judged_is_sent_after_the_verdict_is_committed(
    local_rules, receive, django_capture_on_commit_callbacks
):
    """The spam check sends comment_judged once its verdict is committed: the comment with its
    new status, the backend's Verdict and the backend's name."""
    calls = receive(comment_judged)
    comment = CommentFactory(comment="cheap viagra here")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert spam_filter.apply(kwargs={"comment_id": comment.pk}).get() is True
    assert calls == []
    for callback in callbacks:
        callback()
    [call] = calls
    assert (call["sender"], call["comment"].pk, call["comment"].status) == (
        Comment,
        comment.pk,
        "spam",
    )
    assert (call["verdict"].kind, call["verdict"].reason, call["backend"]) == (
        Verdict.SPAM,
        "blocked word 'viagra'",
        "local",
    )


def test_comment_judged_is_not_sent_when_a_moderator_decided_first(
    local_rules, receive, django_capture_on_commit_callbacks
):
    """A verdict that loses to a moderator's decision is not recorded, and not announced."""
    calls = receive(comment_judged)
    comment = CommentFactory()
    Comment.objects.filter(pk=comment.pk).update(status="published")
    with django_capture_on_commit_callbacks(execute=True):
        assert moderation.record_verdict(comment, Verdict(Verdict.SPAM), "local") is False
    assert calls == []
