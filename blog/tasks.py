"""The blog's Celery tasks: thin wrappers over blog.spam, blog.moderation and blog.notices.

The spam service's tasks share one retry idiom (``SpamServiceTask``): what the
backend says may succeed later (``TemporaryFailure``: network errors, timeouts,
5xx, answers that are not the service's) is retried by Celery with exponential
backoff and full jitter; after the last retry the failure is recorded and the
comment stays pending for the sweeper. A refused configuration (``Refused``: a
key or blog URL) is recorded and not retried: only an operator can fix it.
"""

import logging
import smtplib
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from celery import Task, shared_task
from celery.exceptions import Retry
from django.utils import timezone

from blog import conf, moderation, notices, spam
from blog.dispatch import dispatch_mail
from blog.models import Comment, CommentEvent
from blog.spam_backends import Refused, TemporaryFailure

if TYPE_CHECKING:
    from billiard.einfo import ExceptionInfo

logger = logging.getLogger(__name__)
Status, Kind = Comment.Status, CommentEvent.Kind

# Worth trying again later, as the backend tells (Akismet: network errors,
# timeouts, 5xx, and answers that are not Akismet's, a proxy's error page say).
TRANSIENT = (TemporaryFailure,)


def comment_id_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    return kwargs["comment_id"] if "comment_id" in kwargs else args[0]


def describe(exc: BaseException) -> str:
    """The failure as the history says it: the service library's error, and its message."""
    return f"{type(exc.__cause__ or exc).__name__}: {exc}"


class RetriedBySettings(Task):
    """A blog task about ``comment_id``, retried as the settings ``<retry_settings>_RETRY_BACKOFF``,
    ``_RETRY_BACKOFF_MAX`` and ``_MAX_RETRIES`` say; acknowledged once done."""

    retry_settings = ""
    acks_late = True
    # No STARTED row (CELERY_TASK_TRACK_STARTED is for imports an operator waits on):
    # nobody watches a check run, and that upsert was the largest part of the worker's
    # CPU while a burst of comments arrived, next to the form's POSTs (docs/dev/performance.md).
    track_started = False

    # Read from the settings when Celery builds the task (the retry wrapper
    # keeps the backoff), and at every retry (the limit).
    @property
    def retry_backoff(self) -> int:
        return getattr(conf, f"{self.retry_settings}_RETRY_BACKOFF")

    @property
    def retry_backoff_max(self) -> int:
        return getattr(conf, f"{self.retry_settings}_RETRY_BACKOFF_MAX")

    @property
    def max_retries(self) -> int:
        return getattr(conf, f"{self.retry_settings}_MAX_RETRIES")


class SpamServiceTask(RetriedBySettings):
    """A task that asks the spam service about ``comment_id``; ``failed_kind`` names its
    history event when the service cannot answer."""

    retry_settings = "BLOG_SPAM"
    failed_kind = Kind.CHECK_FAILED
    autoretry_for = TRANSIENT
    retry_jitter = True

    def on_retry(
        self,
        exc: BaseException,
        task_id: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        einfo: "ExceptionInfo",
    ) -> None:
        retry = einfo.exception  # the Retry that Celery raised, wrapped in a worker
        retry = retry if isinstance(retry, Retry) else retry.exc
        logger.warning(
            "comment %s: %s (%s); retry in %ss",
            comment_id_of(args, kwargs),
            self.failed_kind.label,
            exc,
            retry.when,
        )

    def on_failure(
        self,
        exc: BaseException,
        task_id: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        einfo: "ExceptionInfo",
    ) -> None:
        """After the last retry: the history says why, and the comment stays as it was."""
        if isinstance(exc, TRANSIENT):
            retries = self.request.retries
            CommentEvent.objects.create(
                comment_id=comment_id_of(args, kwargs),
                kind=self.failed_kind,
                detail=f"{describe(exc)} (after {retries} retries)",
            )

    def refused(self, comment_id: int, exc: Exception, label: str = "") -> None:
        """The service refused the configuration: recorded, not retried (the backend logged
        it and flagged it for /healthz; the sweeper sends pending comments again later)."""
        CommentEvent.objects.create(
            comment_id=comment_id, kind=self.failed_kind, detail=f"{label}{exc}"
        )


@shared_task(bind=True, base=SpamServiceTask)
def spam_filter(
    self: SpamServiceTask, comment_id: int, remote_addr: str | None = None, recheck_reason: str = ""
) -> bool | None:
    """Check a pending comment; publish ham, keep spam apart. Returns is_spam (None: unchecked)."""
    try:
        comment = Comment.objects.select_related("entry").get(pk=comment_id)
    except Comment.DoesNotExist:
        logger.info("comment %s is gone; nothing to check", comment_id)
        return None
    if comment.status != Status.PENDING:
        # Already checked (a duplicate dispatch) or decided by a moderator.
        return comment.status == Status.SPAM
    backend = spam.get_backend()
    # Read by build_payload: the backend interface's check() keeps its signature.
    comment.recheck_reason = recheck_reason  # type: ignore[attr-defined]  # not a column
    try:
        verdict = backend.check(comment, remote_addr)
    except Refused as exc:
        self.refused(comment.pk, exc)
        return None
    return moderation.record_verdict(comment, verdict, backend.name)


def send_feedback(
    task: SpamServiceTask, comment_id: int, submit: Callable[[Comment], bool], name: str
) -> bool:
    """Send a moderator's decision to the backend; True when sent."""
    try:
        comment = Comment.objects.select_related("entry").get(pk=comment_id)
    except Comment.DoesNotExist:
        return False
    try:
        sent = submit(comment)
    except Refused as exc:
        task.refused(comment.pk, exc, f"{name}: ")
        return False
    if sent:
        CommentEvent.objects.create(comment_id=comment.pk, kind=Kind.FEEDBACK_SENT, detail=name)
    return sent


@shared_task(bind=True, base=SpamServiceTask, failed_kind=Kind.FEEDBACK_FAILED)
def submit_spam(self: SpamServiceTask, comment_id: int) -> bool:
    """Tell the spam backend a moderator found this comment to be spam."""
    return send_feedback(self, comment_id, spam.submit_spam, "submit-spam")


@shared_task(bind=True, base=SpamServiceTask, failed_kind=Kind.FEEDBACK_FAILED)
def submit_ham(self: SpamServiceTask, comment_id: int) -> bool:
    """Tell the spam backend a moderator found this comment not to be spam."""
    return send_feedback(self, comment_id, spam.submit_ham, "submit-ham")


class MailTask(RetriedBySettings):
    """A task that sends one of blog.notices' mails (``mail``). A mail server that fails
    or cannot be reached is tried again with exponential backoff; after the last retry
    the comment's history says so, and recheck_pending_comments queues it again. A
    server that refuses the recipients for good (5xx) is not retried."""

    retry_settings = "BLOG_MAIL"
    mail = ""
    autoretry_for = (smtplib.SMTPException, OSError)
    dont_autoretry_for = (smtplib.SMTPRecipientsRefused,)
    retry_jitter = False  # few tasks: the full backoff, so that retries span the hours

    def on_retry(
        self,
        exc: BaseException,
        task_id: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        einfo: "ExceptionInfo",
    ) -> None:
        logger.warning(
            "comment %s: the %s mail was not sent (%s); retry %s of %s",
            comment_id_of(args, kwargs),
            self.mail,
            describe(exc),
            self.request.retries + 1,
            self.max_retries,
        )

    def on_failure(
        self,
        exc: BaseException,
        task_id: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        einfo: "ExceptionInfo",
    ) -> None:
        """The history says why the mail was not sent; a mail server's failure (not a bug
        of a template: that one's traceback is logged) is queued again by the sweeper,
        unless the server refused the recipients for good."""
        comment_id = comment_id_of(args, kwargs)
        if isinstance(exc, smtplib.SMTPRecipientsRefused):
            notices.record(comment_id, Kind.MAIL_FAILED, self.mail, notices.refused(exc))
        elif isinstance(exc, self.autoretry_for):
            retries = self.request.retries
            detail = f"{describe(exc)} (after {retries} retries)"
            notices.record(comment_id, Kind.MAIL_FAILED, self.mail, detail)


@shared_task(bind=True, base=MailTask, mail=notices.MODERATORS)
def mail_moderators(self: MailTask, comment_id: int) -> bool:
    """Mail the moderators a comment held for them; True when a mail was sent."""
    return notices.mail_moderators(comment_id)


@shared_task(bind=True, base=MailTask, mail=notices.REPLY_NOTICE)
def mail_reply_notice(self: MailTask, comment_id: int) -> bool:
    """Mail a published reply to the commenter who asked to hear of replies; True when sent."""
    return notices.mail_reply_notice(comment_id)


@shared_task
def recheck_pending_comments() -> int:
    """Re-dispatch comments pending too long (broker down at POST time, lost tasks), and
    queue again the mails whose tasks gave up or were never queued."""
    for comment_id, mail in notices.mails_to_queue_again():
        notices.record(comment_id, Kind.MAIL_QUEUED_AGAIN, mail)
        dispatch_mail(mail, comment_id)
    minutes = conf.BLOG_SPAM_RECHECK_AFTER_MINUTES
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
def purge_spam() -> int:
    """Delete spam older than BLOG_SPAM_PURGE_AFTER_DAYS; returns how many."""
    cutoff = timezone.now() - timedelta(days=conf.BLOG_SPAM_PURGE_AFTER_DAYS)
    _, deleted = Comment.objects.spam().filter(pub_date__lt=cutoff).delete()
    return deleted.get("blog.Comment", 0)
