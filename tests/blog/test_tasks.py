"""blog/tasks.py in this process: the local rules, the sweeper, the purge and the beat schedule."""

from datetime import timedelta

import pytest
from akismet import APIKeyError
from django.core.management import call_command
from django.utils import timezone

from blog import akismet_client
from blog.models import Comment
from blog.tasks import purge_spam, recheck_pending_comments, spam_filter
from tests.factories import CommentFactory

pytestmark = pytest.mark.django_db


def kinds(comment):
    return list(comment.events.values_list("kind", flat=True))


def test_spam_filter_publishes_ham_with_local_rules(local_rules):
    """A clean comment is published, with a "checked" event and the payload it was checked with."""
    comment = CommentFactory()
    assert spam_filter.apply(kwargs={"comment_id": comment.pk}).get() is False
    comment.refresh_from_db()
    assert comment.status == "published"
    assert comment.spam_checked_at is not None
    assert comment.akismet_payload["comment_content"] == comment.comment
    assert comment.events.get().detail == "local: ham"


def test_spam_filter_keeps_spam_apart_with_reasons(local_rules):
    """A comment breaking a rule becomes spam; the history says which rule."""
    comment = CommentFactory(comment="cheap viagra here")
    assert spam_filter.apply(kwargs={"comment_id": comment.pk}).get() is True
    comment.refresh_from_db()
    assert comment.status == "spam"
    assert comment.events.get().detail == "local: spam (blocked word 'viagra')"


def test_spam_filter_leaves_decided_and_deleted_comments_alone(local_rules):
    """A comment a moderator already decided is not re-checked; a deleted one is no error."""
    comment = CommentFactory(status="spam", comment="An innocent remark")
    assert spam_filter.apply(kwargs={"comment_id": comment.pk}).get() is True
    assert kinds(comment) == []
    assert spam_filter.apply(kwargs={"comment_id": 999_999}).get() is None


def test_recheck_pending_comments_redispatches_only_stale_ones(
    local_rules, django_capture_on_commit_callbacks
):
    """Comments pending longer than the setting are sent again and the history says so."""
    local_rules.BLOG_SPAM_RECHECK_AFTER_MINUTES = 30
    old = timezone.now() - timedelta(minutes=31)
    stale = CommentFactory(last_dispatched_at=old)
    never_sent = CommentFactory(last_dispatched_at=None)
    fresh = CommentFactory(last_dispatched_at=timezone.now())
    decided = CommentFactory(last_dispatched_at=old, status="published")
    with django_capture_on_commit_callbacks() as callbacks:
        assert recheck_pending_comments() == 2
    assert len(callbacks) == 2
    assert kinds(stale) == kinds(never_sent) == ["rechecked"]
    assert kinds(fresh) == kinds(decided) == []
    stale.refresh_from_db()
    assert stale.last_dispatched_at > old
    assert "pending for more than 30 minutes" in stale.events.get().detail


def test_recheck_pending_comments_sends_one_probe_while_akismet_refuses_the_key(
    settings, django_capture_on_commit_callbacks
):
    """While a worker has recorded a refused key, the sweeper sends one comment, not all."""
    settings.AKISMET_API_KEY = "refused-key"
    old = timezone.now() - timedelta(hours=1)
    first, second = CommentFactory(last_dispatched_at=old), CommentFactory(last_dispatched_at=old)
    akismet_client.record_misconfigured(APIKeyError("refused"))
    with django_capture_on_commit_callbacks() as callbacks:
        assert recheck_pending_comments() == 1
    assert len(callbacks) == 1
    assert kinds(first) == ["rechecked"] and kinds(second) == []


def test_purge_spam_deletes_only_old_spam(local_rules):
    """Spam older than BLOG_SPAM_PURGE_AFTER_DAYS goes; newer spam and other comments stay."""
    long_ago = timezone.now() - timedelta(days=16)
    old_spam = CommentFactory(status="spam", pub_date=long_ago)
    CommentFactory(status="spam", pub_date=timezone.now() - timedelta(days=14))
    CommentFactory(status="published", pub_date=long_ago)
    CommentFactory(status="pending", pub_date=long_ago)
    assert purge_spam() == 1
    assert not Comment.objects.filter(pk=old_spam.pk).exists()
    assert Comment.objects.count() == 3


@pytest.mark.project_wiring
@pytest.mark.beat
def test_beat_schedules_are_installed_by_setup_schedules():
    """django-celery-beat runs the sweeper every 10 minutes and the purge daily."""
    from django_celery_beat.models import PeriodicTask

    call_command("setup_schedules", verbosity=0)
    sweeper = PeriodicTask.objects.get(task="blog.tasks.recheck_pending_comments")
    assert (sweeper.interval.every, sweeper.interval.period, sweeper.enabled) == (
        10,
        "minutes",
        True,
    )
    purge = PeriodicTask.objects.get(task="blog.tasks.purge_spam")
    assert (purge.interval.every, purge.interval.period, purge.enabled) == (1, "days", True)
