"""Every change of a comment's status: the spam check's verdict, and what moderators, the
sweeper and the command do (the admin calls these too).

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

from blog import conf
from blog.dispatch import SUBMIT_HAM, SUBMIT_SPAM, dispatch_check, dispatch_feedback
from blog.models import Comment, CommentEvent
from blog.signals import comment_judged
from blog.spam_backends import Verdict

logger = logging.getLogger(__name__)
Status, Kind = Comment.Status, CommentEvent.Kind
# The spam check's verdicts: the status each gives and the history's word for it.
VERDICTS = {
    Verdict.HAM: (Status.PUBLISHED, "ham"),
    Verdict.SPAM: (Status.SPAM, "spam"),
    Verdict.DISCARD: (Status.SPAM, "blatant spam (discard)"),
}


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
    changed = _change_status(comments, Status.SPAM, Kind.MARKED_SPAM, actor)
    for pk in changed:
        transaction.on_commit(partial(dispatch_feedback, SUBMIT_SPAM, pk), robust=True)
    return len(changed)


def mark_ham(comments, actor=None):
    """Moderator says not spam: published, and Akismet is told (submit-ham)."""
    changed = _change_status(comments, Status.PUBLISHED, Kind.MARKED_HAM, actor)
    for pk in changed:
        transaction.on_commit(partial(dispatch_feedback, SUBMIT_HAM, pk), robust=True)
    return len(changed)


def record_verdict(comment, verdict, backend):
    """A backend's ``Verdict``: status, time and data with a "checked" event naming the
    ``backend``, committed together and only while the comment is pending (a moderator's
    decision made meanwhile wins); then ``comment_judged`` is sent, and blatant spam is
    deleted when BLOG_SPAM_DELETE_BLATANT is on. Returns is_spam."""
    status, label = VERDICTS[verdict.kind]
    detail = f"{backend}: {label}" + (f" ({verdict.reason})" if verdict.reason else "")
    changes = {
        "status": status,
        "is_blatant": verdict.kind == Verdict.DISCARD,
        "spam_checked_at": timezone.now(),
        "akismet_payload": verdict.data,
    }
    with transaction.atomic():
        updated = Comment.objects.pending().filter(pk=comment.pk).update(**changes)
        if updated:
            CommentEvent.objects.create(comment_id=comment.pk, kind=Kind.CHECKED, detail=detail)
    if not updated:
        return Comment.objects.filter(pk=comment.pk, status=Status.SPAM).exists()
    for name, value in changes.items():
        setattr(comment, name, value)
    send = partial(
        comment_judged.send, sender=Comment, comment=comment, verdict=verdict, backend=backend
    )
    # Robust: a failing receiver is logged, and the verdict (committed) stands.
    transaction.on_commit(send, robust=True)
    if verdict.kind == Verdict.DISCARD and conf.BLOG_SPAM_DELETE_BLATANT:
        logger.info("comment %s is blatant spam: deleted", comment.pk)
        Comment.objects.filter(pk=comment.pk).delete()
    return status == Status.SPAM


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
