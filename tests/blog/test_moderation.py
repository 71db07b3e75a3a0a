"""blog/moderation.py: conditional status changes, their history, and tasks sent after commit."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from blog import moderation
from blog.models import Comment
from blog.spam_backends import Verdict
from tests.factories import CommentFactory
from tests.support.comments import kinds

pytestmark = pytest.mark.django_db


@pytest.fixture
def moderator():
    return User.objects.create_user("moderator")


def test_mark_spam_changes_only_what_is_not_spam_and_records_the_moderator(
    moderator, django_capture_on_commit_callbacks
):
    """Only the published comment changes; its event names the moderator; one feedback is
    queued, after the commit."""
    published, already = CommentFactory(status="published"), CommentFactory(status="spam")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert moderation.mark_spam([published, already], actor=moderator) == 1
    published.refresh_from_db()
    assert published.status == "spam"
    assert published.events.get().actor == moderator
    assert kinds(already) == []
    assert len(callbacks) == 1


def test_mark_ham_publishes_and_queues_feedback(django_capture_on_commit_callbacks):
    """Spam and pending comments become published ("marked_ham"), each with its feedback."""
    comments = [CommentFactory(status="spam"), CommentFactory(status="pending")]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert moderation.mark_ham(comments) == 2
    assert set(Comment.objects.values_list("status", flat=True)) == {"published"}
    assert [kinds(comment) for comment in comments] == [["marked_ham"]] * 2
    assert len(callbacks) == 2


def test_a_decision_made_meanwhile_is_not_overwritten():
    """publish() changes only pending comments: a comment the check made spam in the
    meantime (the object in hand is stale) stays spam, with no event."""
    comment = CommentFactory(status="pending")
    Comment.objects.filter(pk=comment.pk).update(status="spam")  # the check, meanwhile
    assert moderation.publish([comment]) == 0
    comment.refresh_from_db()
    assert comment.status == "spam" and kinds(comment) == []


def test_publish_sends_no_feedback(django_capture_on_commit_callbacks):
    """Publishing a pending comment skips the check: no task is queued."""
    comment = CommentFactory(status="pending")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert moderation.publish([comment]) == 1
    assert callbacks == []
    assert kinds(comment) == ["published"]


def test_recheck_sends_only_pending_comments_and_stamps_the_dispatch(
    django_capture_on_commit_callbacks,
):
    """A pending comment is stamped, gets a "rechecked" event with the detail and one check
    after commit; a published one is left alone."""
    before = timezone.now() - timedelta(hours=1)
    pending = CommentFactory(status="pending", last_dispatched_at=before)
    published = CommentFactory(status="published", last_dispatched_at=before)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert moderation.recheck([pending, published], detail="why") == 1
    pending.refresh_from_db()
    published.refresh_from_db()
    assert pending.last_dispatched_at > before and published.last_dispatched_at == before
    assert pending.events.get().detail == "why"
    assert len(callbacks) == 1


def test_stale_pending_includes_never_sent_and_excludes_recent_and_decided():
    """Pending comments last sent before the cut-off, or never sent, in id order."""
    old = timezone.now() - timedelta(minutes=45)
    never = CommentFactory(last_dispatched_at=None)
    stale = CommentFactory(last_dispatched_at=old)
    CommentFactory(last_dispatched_at=timezone.now())
    CommentFactory(last_dispatched_at=old, status="spam")
    assert list(moderation.stale_pending(30)) == [never, stale]


def test_record_verdict_stores_status_payload_and_event_together(settings):
    """Ham publishes the pending comment with its payload, time and a "checked" event that
    names the backend; the answer is is_spam."""
    settings.AKISMET_API_KEY = ""
    comment = CommentFactory()
    payload = {"comment_content": comment.comment}
    assert moderation.record_verdict(comment, Verdict(Verdict.HAM, "", payload), "local") is False
    comment.refresh_from_db()
    assert (comment.status, comment.akismet_payload) == ("published", payload)
    assert comment.spam_checked_at is not None
    assert comment.events.get().detail == "local: ham"


def test_record_verdict_loses_to_a_moderators_decision_made_meanwhile():
    """A comment published by a moderator while the check ran stays published, no event."""
    comment = CommentFactory()
    Comment.objects.filter(pk=comment.pk).update(status="published")
    assert moderation.record_verdict(comment, Verdict(Verdict.SPAM), "local") is False
    comment.refresh_from_db()
    assert comment.status == "published" and kinds(comment) == []


@pytest.mark.parametrize("delete_blatant", [False, True])
def test_record_verdict_of_blatant_spam_flags_or_deletes(settings, delete_blatant):
    """Discard is spam flagged blatant, and is deleted only with BLOG_SPAM_DELETE_BLATANT."""
    settings.BLOG_SPAM_DELETE_BLATANT = delete_blatant
    comment = CommentFactory()
    assert moderation.record_verdict(comment, Verdict(Verdict.DISCARD), "akismet") is True
    kept = Comment.objects.filter(pk=comment.pk, status="spam", is_blatant=True).exists()
    assert kept is not delete_blatant


def queued_notices(callbacks):
    """The reply notices among on-commit callbacks: ``partial(dispatch_mail, mail, pk)``."""
    return [
        callback.args[1]
        for callback in callbacks
        if getattr(callback, "func", None) is moderation.dispatch_mail
        and callback.args[0] == moderation.REPLY_NOTICE
    ]


@pytest.mark.parametrize("decide", ["verdict", "mark_ham"])
def test_a_reply_notice_is_queued_only_for_a_comment_that_awaits_one(
    decide, django_capture_on_commit_callbacks
):
    """A published reply queues its notice task when the comment it answers is published
    and asked for notices: no task for the replies nobody asked to hear of."""
    asked = CommentFactory(status="published", notify_replies=True)
    replies = {
        "asked": CommentFactory(status="pending", parent=asked, entry=asked.entry),
        "not asked": CommentFactory(
            status="pending", entry=asked.entry,
            parent=CommentFactory(status="published", notify_replies=False, entry=asked.entry),
        ),
        "held parent": CommentFactory(
            status="pending", entry=asked.entry,
            parent=CommentFactory(status="pending", notify_replies=True, entry=asked.entry),
        ),
        "top level": CommentFactory(status="pending", entry=asked.entry),
    }  # fmt: skip
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        if decide == "mark_ham":
            moderation.mark_ham(list(replies.values()))
        else:
            for reply in replies.values():
                moderation.record_verdict(reply, Verdict(Verdict.HAM), "local")

    assert set(
        Comment.objects.filter(pk__in=[r.pk for r in replies.values()]).values_list(
            "status", flat=True
        )
    ) == {"published"}
    assert queued_notices(callbacks) == [replies["asked"].pk]
