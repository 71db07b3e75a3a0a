"""The task's records of attempts that did not run the importer to its end.

An import skipped (the lock is held, the claim was replaced), refused (the
lock cache is down) or crashed (a bug, a time limit, a lost database) still
leaves an ``ImportRun``, so the admin shows every attempt, and a crash backs
the feed off as a failure does. The importer records the attempts it runs.
"""

import logging

from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from djangofeeds.importer import finish, new_run
from djangofeeds.models import Feed, Outcome
from djangofeeds.schedule import backoff
from djangofeeds.signals import feed_failing, send_on_commit

logger = logging.getLogger(__name__)


def record_attempt(url, outcome, *, error="", task_id="", worker="", refresh_run=None):
    """Record an attempt that never reached the feed (lock held, lock cache down)."""
    feed, _ = Feed.objects.get_or_create(url=url)
    return finish(feed, new_run(feed, task_id, worker, refresh_run, error=error), outcome)


def crash_message(exc):
    """An unexpected error in words an operator can act on."""
    text = f"{type(exc).__name__}: {exc}".strip()
    if isinstance(exc, (OperationalError, InterfaceError)):
        return f"lost the connection to the database during the import ({text})"
    return text


def record_crash(url, error, *, fence=None, task_id="", worker="", refresh_run=None):
    """Record an attempt that ended with an unexpected error (a bug, a time limit, the database).

    The feed's status is written only under ``fence``, the fencing number the
    crashed import held: a newer import's status is never overwritten (and
    without a fence, the feed row is left alone; its claim runs out and the
    scheduler queues it again). The run is always recorded.
    """
    if not transaction.get_connection().in_atomic_block:
        # A broken connection (a restarted database) must not lose the record too.
        transaction.get_connection().close_if_unusable_or_obsolete()
    feed = Feed.objects.filter(url=url).first()
    if feed is None:
        return None
    now = timezone.now()
    written = fence is not None and Feed.objects.filter(pk=feed.pk, fence=fence).update(
        claimed_at=None,
        last_checked_at=now,
        last_status=Outcome.FAILED,
        last_error=error,
        error_count=F("error_count") + 1,
        # Backing off matters most here: a feed that always times out would
        # otherwise take a worker for the whole time limit at every refresh.
        next_check_at=now + backoff(feed.error_count + 1),
    )
    if fence is not None and not written:
        logger.warning(
            "The crash of an import of %s is not written on the feed: a newer import took it over",
            url,
        )
    result = finish(feed, new_run(feed, task_id, worker, refresh_run, error=error), Outcome.FAILED)
    if written and feed.error_count == 0:
        feed.error_count = 1
        send_on_commit(feed_failing, Feed, feed=feed, run=result.run, error=error)
    return result
