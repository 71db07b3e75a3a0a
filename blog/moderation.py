"""What moderators, the sweeper and the command do to comments; the admin calls these too.

Each function changes status with a conditional update (a decision made in the
meantime is not overwritten), writes the history, and dispatches any task
after the transaction commits. Each returns the number of comments it changed.
"""

import logging
from datetime import timedelta
from functools import partial

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from blog.models import Comment, CommentEvent

logger = logging.getLogger(__name__)
Status, Kind = Comment.Status, CommentEvent.Kind


def dispatch_check(comment_id, remote_addr=None):
    """Send one spam check to the broker; a broker that is down only leaves it pending."""
    from blog.tasks import spam_filter

    try:
        spam_filter.delay(comment_id=comment_id, remote_addr=remote_addr)
    except Exception as exc:
        logger.warning(
            "could not dispatch the spam check of comment %s (%r): it stays pending "
            "until recheck_pending_comments sends it again",
            comment_id,
            exc,
        )
        return False
    return True


def dispatch_feedback(task, comment_id):
    """Queue a moderator's feedback to Akismet; when the broker is down, say so in the history."""
    try:
        task.delay(comment_id)
    except Exception as exc:
        logger.warning("could not queue %s for comment %s: %r", task.name, comment_id, exc)
        CommentEvent.objects.create(
            comment_id=comment_id,
            kind=Kind.FEEDBACK_FAILED,
            detail=f"{task.name} not queued ({type(exc).__name__}): mark the comment again",
        )
        return False
    return True


def _change_status(comments, new_status, kind, actor, only_from=None):
    changed = []
    with transaction.atomic():
        for comment in comments:
            rows = Comment.objects.filter(pk=comment.pk).exclude(status=new_status)
            if only_from:
                rows = rows.filter(status=only_from)
            if rows.update(status=new_status):
                CommentEvent.objects.create(comment_id=comment.pk, kind=kind, actor=actor)
                changed.append(comment.pk)
    return changed


def mark_spam(comments, actor=None):
    """Moderator says spam: status spam, and Akismet is told (submit-spam)."""
    from blog.tasks import submit_spam

    changed = _change_status(comments, Status.SPAM, Kind.MARKED_SPAM, actor)
    for pk in changed:
        transaction.on_commit(partial(dispatch_feedback, submit_spam, pk), robust=True)
    return len(changed)


def mark_ham(comments, actor=None):
    """Moderator says not spam: published, and Akismet is told (submit-ham)."""
    from blog.tasks import submit_ham

    changed = _change_status(comments, Status.PUBLISHED, Kind.MARKED_HAM, actor)
    for pk in changed:
        transaction.on_commit(partial(dispatch_feedback, submit_ham, pk), robust=True)
    return len(changed)


def publish(comments, actor=None):
    """Publish pending comments without waiting for the check (no feedback sent)."""
    changed = _change_status(comments, Status.PUBLISHED, Kind.PUBLISHED, actor, Status.PENDING)
    return len(changed)


def recheck(comments, actor=None, detail=""):
    """Send pending comments through the spam check again."""
    now = timezone.now()
    ids = []
    with transaction.atomic():
        for comment in comments:
            if Comment.objects.pending().filter(pk=comment.pk).update(last_dispatched_at=now):
                CommentEvent.objects.create(
                    comment_id=comment.pk, kind=Kind.RECHECKED, actor=actor, detail=detail
                )
                ids.append(comment.pk)
    for pk in ids:
        transaction.on_commit(partial(dispatch_check, pk), robust=True)
    return len(ids)


def stale_pending(older_than_minutes):
    """Pending comments whose last dispatch is older than the given minutes (or never sent)."""
    cutoff = timezone.now() - timedelta(minutes=older_than_minutes)
    stale = Q(last_dispatched_at__lt=cutoff) | Q(last_dispatched_at__isnull=True)
    return Comment.objects.pending().filter(stale).order_by("pk")
