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
from blog.dispatch import (
    SUBMIT_HAM,
    SUBMIT_SPAM,
    dispatch_check,
    dispatch_feedback,
    dispatch_mail,
)
from blog.models import Comment, CommentEvent, SpamServiceStatus
from blog.notices import MODERATORS, REPLY_NOTICE, awaiting_notices
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


def _change_status(comments, new_status, kind, actor, only_from=None, detail=""):
    changed = []
    with transaction.atomic():
        for comment in comments:
            rows = Comment.objects.filter(pk=comment.pk).exclude(status=new_status)
            if only_from:
                rows = rows.filter(status=only_from)
            if rows.update(status=new_status):
                CommentEvent.objects.create(
                    comment_id=comment.pk, kind=kind, actor=actor, detail=detail
                )
                changed.append(comment.pk)
    return changed


def mark_spam(comments, actor=None, detail=""):
    """Moderator says spam: status spam, and Akismet is told (submit-spam)."""
    changed = _change_status(comments, Status.SPAM, Kind.MARKED_SPAM, actor, detail=detail)
    for pk in changed:
        transaction.on_commit(partial(dispatch_feedback, SUBMIT_SPAM, pk), robust=True)
    return len(changed)


def mark_ham(comments, actor=None):
    """Moderator says not spam: published, and Akismet is told (submit-ham)."""
    changed = _change_status(comments, Status.PUBLISHED, Kind.MARKED_HAM, actor)
    for pk in changed:
        transaction.on_commit(partial(dispatch_feedback, SUBMIT_HAM, pk), robust=True)
    announce_replies(changed)
    return len(changed)


def announce_replies(published):
    """After commit, queue the reply notice of each reply among the ``published`` ids whose
    comment answered is published and asked for notices (the task checks again as it runs:
    a self-reply, an unsubscribe meanwhile). No task for the replies nobody asked to hear of."""
    replies = Comment.objects.filter(pk__in=published).filter(awaiting_notices("parent__"))
    for pk in replies.values_list("pk", flat=True):
        transaction.on_commit(partial(dispatch_mail, REPLY_NOTICE, pk), robust=True)


def record_verdict(comment, verdict, backend):
    """A backend's ``Verdict``: status, time and data with a "checked" event naming the
    ``backend``, committed together and only while the comment is pending (a moderator's
    decision made meanwhile wins); with BLOG_HOLD_FOR_MODERATION, ham stays pending for
    a moderator unless its commenter is trusted; then ``comment_judged`` is sent.
    Blatant spam is discarded (``discard``) when BLOG_SPAM_DELETE_BLATANT is on
    (the default). Returns is_spam."""
    if verdict.kind == Verdict.DISCARD and conf.BLOG_SPAM_DELETE_BLATANT:
        return discard(comment, verdict, backend)
    status, label = VERDICTS[verdict.kind]
    if status == Status.PUBLISHED and conf.BLOG_HOLD_FOR_MODERATION:
        if conf.BLOG_TRUST_APPROVED and is_trusted(comment):
            label = "ham (a moderator approved this commenter before)"
        else:
            status, label = Status.PENDING, "ham, held for a moderator"
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
    if status == Status.PENDING:  # held for a moderator
        transaction.on_commit(partial(dispatch_mail, MODERATORS, comment.pk), robust=True)
    elif status == Status.PUBLISHED and comment.parent_id:
        announce_replies([comment.pk])
    return status == Status.SPAM


def discard(comment, verdict, backend):
    """Blatant spam (Akismet's "discard"): deleted while still pending, with no moderation
    entry to wade through, and counted for the admin. Returns is_spam."""
    with transaction.atomic():
        deleted, _ = Comment.objects.pending().filter(pk=comment.pk).delete()
        if deleted:
            SpamServiceStatus.count_discard()
    if not deleted:  # a moderator decided meanwhile: that decision stands
        return Comment.objects.filter(pk=comment.pk, status=Status.SPAM).exists()
    logger.info("comment %s is blatant spam (%s): discarded", comment.pk, backend)
    comment.status, comment.is_blatant = Status.SPAM, True
    send = partial(
        comment_judged.send, sender=Comment, comment=comment, verdict=verdict, backend=backend
    )
    transaction.on_commit(send, robust=True)
    return True


def is_trusted(comment):
    """Whether a moderator published an earlier comment of the same e-mail address.

    Only a moderator's own decisions count (published, or marked not spam): a
    comment the check alone let through proves nothing about its author.
    """
    approved = CommentEvent.objects.filter(
        kind__in=[Kind.PUBLISHED, Kind.MARKED_HAM],
        comment__email_address__iexact=comment.email_address,
        comment__status=Status.PUBLISHED,
    )
    return approved.exclude(comment_id=comment.pk).exists()


def publish(comments, actor=None, detail=""):
    """Publish pending comments without waiting for the check (no feedback sent)."""
    changed = _change_status(
        comments, Status.PUBLISHED, Kind.PUBLISHED, actor, Status.PENDING, detail
    )
    announce_replies(changed)
    return len(changed)


def recheck(comments, actor=None, detail="", reason=""):
    """Send pending comments through the spam check again; ``reason`` is Akismet's
    ``recheck_reason`` ("recheck_queue": a moderator asked; empty for a check that
    never ran)."""
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
        transaction.on_commit(partial(dispatch_check, pk, recheck_reason=reason), robust=True)
    return len(ids)


def stale_pending(older_than_minutes):
    """Unchecked pending comments whose last dispatch is older than the given minutes (or
    never sent); a comment held for a moderator after its check waits for the moderator."""
    cutoff = timezone.now() - timedelta(minutes=older_than_minutes)
    stale = Q(last_dispatched_at__lt=cutoff) | Q(last_dispatched_at__isnull=True)
    unchecked = Comment.objects.pending().filter(spam_checked_at__isnull=True)
    return unchecked.filter(stale).order_by("pk")
