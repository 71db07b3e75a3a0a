"""Sending the blog's tasks to the broker, by name, without ever failing the caller.

Tasks are named, not imported: ``blog.tasks`` calls into moderation, and the
names are the contract (SPEC §5) the routes and the workers agree on. A broker
that is down only leaves the comment pending (the sweeper sends it again) or,
for a moderator's feedback, says so in the comment's history.
"""

import logging

from celery import current_app

from blog.models import CommentEvent
from blog.notices import MAILS, record

logger = logging.getLogger(__name__)

SPAM_FILTER = "blog.tasks.spam_filter"
SUBMIT_SPAM = "blog.tasks.submit_spam"
SUBMIT_HAM = "blog.tasks.submit_ham"


def send(name, **kwargs):
    """Queue the task ``name`` (the registered task's options, else the routes by name)."""
    current_app.signature(name, kwargs=kwargs).delay()


def check_broker():
    """Raise unless the broker answers now: recheck_comments asks before it records anything."""
    with current_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)


def dispatch_check(comment_id, remote_addr=None, recheck_reason=""):
    """Send one spam check to the broker; a broker that is down only leaves it pending."""
    # recheck_reason only when there is one: a message without it suits a worker
    # still running the previous spam_filter during a deploy.
    extra = {"recheck_reason": recheck_reason} if recheck_reason else {}
    try:
        send(SPAM_FILTER, comment_id=comment_id, remote_addr=remote_addr, **extra)
    except Exception as exc:
        logger.warning(
            "could not dispatch the spam check of comment %s (%r): it stays pending "
            "until recheck_pending_comments sends it again",
            comment_id,
            exc,
        )
        return False
    return True


def dispatch_feedback(name, comment_id):
    """Queue a moderator's feedback to Akismet; when the broker is down, say so in the history."""
    try:
        send(name, comment_id=comment_id)
    except Exception as exc:
        logger.warning("could not queue %s for comment %s: %r", name, comment_id, exc)
        CommentEvent.objects.create(
            comment_id=comment_id,
            kind=CommentEvent.Kind.FEEDBACK_FAILED,
            detail=f"{name} not queued ({type(exc).__name__}): mark the comment again",
        )
        return False
    return True


def dispatch_mail(mail, comment_id):
    """Queue one of blog.notices' mails (``MODERATORS``, ``REPLY_NOTICE``) about a comment;
    when the broker is down, the history says so and the sweeper queues it again."""
    try:
        send(MAILS[mail][1], comment_id=comment_id)
    except Exception as exc:
        logger.warning("could not queue the %s mail of comment %s: %r", mail, comment_id, exc)
        record(comment_id, CommentEvent.Kind.MAIL_FAILED, mail, f"not queued ({exc!r})")
        return False
    return True
