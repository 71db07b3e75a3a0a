"""Background work on comments: the spam check, feedback to Akismet, the sweeper and the purge."""

import logging
from datetime import timedelta

import akismet
from akismet import CheckResponse
from celery import shared_task
from celery.signals import worker_process_init
from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from blog import moderation, spam
from blog.models import Comment, CommentEvent
from blog.redact import hide_secrets

logger = logging.getLogger(__name__)
Status, Kind = Comment.Status, CommentEvent.Kind

# Worth trying again later: network errors, timeouts, 5xx (RequestError) and
# answers that are not Akismet's (ProtocolError: a proxy's error page, say).
TRANSIENT = (akismet.RequestError, akismet.ProtocolError)
VERDICTS = {
    CheckResponse.HAM: (Status.PUBLISHED, "ham"),
    CheckResponse.SPAM: (Status.SPAM, "spam"),
    CheckResponse.DISCARD: (Status.SPAM, "blatant spam (discard)"),
}


@worker_process_init.connect
def forget_inherited_client(**kwargs):
    # Sent by each forked pool process: verify the key in the child, not share
    # the parent's HTTP connections.
    spam.reset_client()


# No answer: the key or blog URL was refused (recorded, not retried).
REFUSED = object()


def ask_spam_service(task, comment_id, call, kind, label):
    """Run ``call()`` against the spam service and return its answer.

    A refused key or blog URL is recorded as a ``kind`` event and answers
    ``REFUSED``, without a retry: only an operator can fix it (spam.py logged it
    and flagged it for /healthz; the sweeper sends pending comments again
    later). Transient errors are retried (``retry_or_give_up``).
    """
    try:
        return call()
    except akismet.ConfigurationError as exc:
        CommentEvent.objects.create(
            comment_id=comment_id,
            kind=kind,
            detail=f"{label}Akismet refused the key or blog URL ({type(exc).__name__})",
        )
        return REFUSED
    except TRANSIENT as exc:
        retry_or_give_up(task, comment_id, exc, kind)


def retry_or_give_up(task, comment_id, exc, kind):
    """Retry with exponential backoff and full jitter; after the last try, record and raise."""
    retries = task.request.retries
    if retries < settings.BLOG_SPAM_MAX_RETRIES:
        countdown = get_exponential_backoff_interval(
            settings.BLOG_SPAM_RETRY_BACKOFF,
            retries,
            settings.BLOG_SPAM_RETRY_BACKOFF_MAX,
            full_jitter=True,
        )
        logger.warning(
            "comment %s: %s (%s); retry in %ss",
            comment_id,
            kind.label,
            hide_secrets(exc),
            countdown,
        )
        raise task.retry(exc=exc, countdown=countdown, max_retries=settings.BLOG_SPAM_MAX_RETRIES)
    CommentEvent.objects.create(
        comment_id=comment_id,
        kind=kind,
        detail=f"{type(exc).__name__}: {hide_secrets(exc)} (after {retries} retries)",
    )
    raise exc


@shared_task(bind=True, acks_late=True)
def spam_filter(self, comment_id, remote_addr=None):
    """Check a pending comment; publish ham, keep spam apart. Returns is_spam (None: unchecked)."""
    try:
        comment = Comment.objects.select_related("entry").get(pk=comment_id)
    except Comment.DoesNotExist:
        logger.info("comment %s is gone; nothing to check", comment_id)
        return None
    if comment.status != Status.PENDING:
        # Already checked (a duplicate dispatch) or decided by a moderator.
        return comment.status == Status.SPAM
    payload = spam.build_payload(comment, remote_addr)
    backend = spam.backend_name()
    answer = ask_spam_service(
        self, comment.pk, lambda: spam.judge(payload, comment_id=comment.pk), Kind.CHECK_FAILED, ""
    )
    if answer is REFUSED:
        return None
    verdict, reasons = answer
    status, label = VERDICTS[verdict]
    detail = f"{backend}: {label}" + (f" ({reasons})" if reasons else "")
    # The verdict and its history line commit together, or not at all.
    with transaction.atomic():
        updated = (
            Comment.objects.pending()
            .filter(pk=comment.pk)
            .update(
                status=status,
                is_blatant=verdict == CheckResponse.DISCARD,
                spam_checked_at=timezone.now(),
                akismet_payload=payload,
            )
        )
        if updated:
            CommentEvent.objects.create(comment_id=comment.pk, kind=Kind.CHECKED, detail=detail)
    if not updated:
        return Comment.objects.filter(pk=comment.pk, status=Status.SPAM).exists()
    if verdict == CheckResponse.DISCARD and settings.BLOG_SPAM_DELETE_BLATANT:
        logger.info("comment %s is blatant spam: deleted", comment.pk)
        Comment.objects.filter(pk=comment.pk).delete()
    return status == Status.SPAM


def _send_feedback(task, comment_id, submit, name):
    try:
        comment = Comment.objects.select_related("entry").get(pk=comment_id)
    except Comment.DoesNotExist:
        return False
    # The data the check was made with; a comment never checked gets it built now.
    payload = comment.akismet_payload or spam.build_payload(comment)
    sent = ask_spam_service(
        task, comment.pk, lambda: submit(payload), Kind.FEEDBACK_FAILED, f"{name}: "
    )
    if sent is REFUSED:
        return False
    if sent:
        CommentEvent.objects.create(comment_id=comment.pk, kind=Kind.FEEDBACK_SENT, detail=name)
    return sent


@shared_task(bind=True, acks_late=True)
def submit_spam(self, comment_id):
    """Tell Akismet a moderator found this comment to be spam."""
    return _send_feedback(self, comment_id, spam.submit_spam, "submit-spam")


@shared_task(bind=True, acks_late=True)
def submit_ham(self, comment_id):
    """Tell Akismet a moderator found this comment not to be spam."""
    return _send_feedback(self, comment_id, spam.submit_ham, "submit-ham")


@shared_task
def recheck_pending_comments():
    """Re-dispatch comments pending too long (broker down at POST time, lost tasks)."""
    minutes = settings.BLOG_SPAM_RECHECK_AFTER_MINUTES
    stale = moderation.stale_pending(minutes)
    if spam.is_misconfigured():
        # Every check would fail the same way: send one as a probe, which
        # clears the flag once the key is accepted again (subscription renewed).
        stale = stale[:1]
    count = moderation.recheck(stale, detail=f"pending for more than {minutes} minutes")
    if count:
        logger.info("re-dispatched %s pending comments", count)
    return count


@shared_task
def purge_spam():
    """Delete spam older than BLOG_SPAM_PURGE_AFTER_DAYS; returns how many."""
    cutoff = timezone.now() - timedelta(days=settings.BLOG_SPAM_PURGE_AFTER_DAYS)
    _, deleted = Comment.objects.spam().filter(pub_date__lt=cutoff).delete()
    return deleted.get("blog.Comment", 0)
