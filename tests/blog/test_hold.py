"""BLOG_HOLD_FOR_MODERATION and BLOG_TRUST_APPROVED: ham waits for a moderator, but a
commenter a moderator approved before is published at once."""

from datetime import timedelta

import pytest
from django.utils import timezone

from blog import moderation
from blog.models import Comment
from blog.spam_backends import Verdict
from tests.factories import CommentFactory

pytestmark = pytest.mark.django_db
HAM, SPAM = Verdict(Verdict.HAM), Verdict(Verdict.SPAM)


@pytest.fixture(autouse=True)
def hold(settings):
    settings.BLOG_HOLD_FOR_MODERATION = True


def judged(comment, verdict=HAM):
    moderation.record_verdict(comment, verdict, "local")
    comment.refresh_from_db()
    return comment


def approved_earlier(address, decide=moderation.publish):
    """An earlier comment of ``address`` that a moderator published (``decide``)."""
    earlier = CommentFactory(email_address=address, status="pending")
    assert decide([earlier]) == 1
    return earlier


def test_ham_is_held_for_a_moderator_and_not_swept_again():
    """Ham stays pending, checked, with the reason in its history; the sweeper leaves it."""
    comment = judged(CommentFactory(last_dispatched_at=timezone.now() - timedelta(hours=2)))
    assert comment.status == "pending" and comment.is_held
    assert comment.events.get().detail == "local: ham, held for a moderator"
    assert list(moderation.stale_pending(30)) == []


@pytest.mark.parametrize("decide", [moderation.publish, moderation.mark_ham])
def test_a_commenter_a_moderator_approved_is_published_at_once(decide):
    """Same address in another case, approved by either moderator action: published."""
    approved_earlier("Ada@Example.com", decide)
    comment = judged(CommentFactory(email_address="ada@example.com"))
    assert comment.status == "published" and not comment.is_held
    assert "approved this commenter before" in comment.events.get().detail


def test_trust_needs_a_moderators_decision_not_the_checks():
    """An earlier comment the check published (no moderator) earns no trust."""
    earlier = judged(CommentFactory(email_address="bob@example.com"), HAM)
    Comment.objects.filter(pk=earlier.pk).update(status="published")  # as without the hold
    assert judged(CommentFactory(email_address="bob@example.com")).is_held


def test_trust_is_lost_when_the_approved_comment_is_later_marked_spam():
    """A moderator who took the approval back (the comment is spam now) grants no trust."""
    earlier = approved_earlier("eve@example.com")
    moderation.mark_spam([earlier])
    assert judged(CommentFactory(email_address="eve@example.com")).is_held


def test_trusted_commenters_spam_is_still_spam():
    approved_earlier("mallory@example.com")
    comment = judged(CommentFactory(email_address="mallory@example.com"), SPAM)
    assert comment.status == "spam"


def test_without_trust_every_ham_is_held(settings):
    settings.BLOG_TRUST_APPROVED = False
    approved_earlier("ada@example.com")
    assert judged(CommentFactory(email_address="ada@example.com")).is_held


def test_without_the_hold_ham_is_published(settings):
    """The default: the spam check alone decides, as in Celery's guide."""
    settings.BLOG_HOLD_FOR_MODERATION = False
    comment = judged(CommentFactory())
    assert comment.status == "published" and not comment.is_held
