"""An import's record: its ``ImportRun``, started and finished here whatever the outcome.

Every attempt leaves a run, so the admin shows each one: an import the
importer ran, one skipped (the lock is held, the claim was replaced, the host
asked to wait), refused (the lock cache is down: one run per outage, its
attempts counted) or crashed (a bug, a time
limit, a lost database). A failure, the importer's or a crash, is also written
on the feed by one function (``record_failure``): its status, its error and a
backoff, under the import's fencing number. The run is also what the task
answers (``reply``, JSON) and logs (``describe``). Who asked for the import
(``ImportOrigin``) is written on its run.
"""

import logging
from contextlib import nullcontext, suppress
from dataclasses import dataclass

from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from djangofeeds.health import states
from djangofeeds.importing.claims import release_claim
from djangofeeds.importing.pacing import longest_poll, next_check
from djangofeeds.locking.fence import StaleFence
from djangofeeds.locking.fence_statements import insert_run_for_url
from djangofeeds.models import Feed, Health, ImportRun, Outcome
from djangofeeds.signals import feed_deactivated, feed_failing, send_on_commit

logger = logging.getLogger(__name__)


# The database unreachable or its connection lost (not a query's own error).
DATABASE_ERRORS = (OperationalError, InterfaceError)


@dataclass(frozen=True, kw_only=True)
class ImportOrigin:
    """Who asked for an import, written on its ``ImportRun``: the Celery task's id, the
    worker's host name, the refresh round (``RefreshRun`` pk). ``BY_HAND``: all empty."""

    task_id: str = ""
    worker: str = ""
    refresh_run: int | None = None

    @classmethod
    def of_run(cls, run):
        """The origin written on ``run``."""
        return cls(task_id=run.task_id, worker=run.worker, refresh_run=run.refresh_run_id)


BY_HAND = ImportOrigin()  # a person at a shell, a test, a benchmark


@dataclass
class ImportResult:
    """How one import attempt ended; ``run`` is its ``ImportRun`` row."""

    feed: Feed
    run: ImportRun
    transient: bool = False  # a failure that may succeed if tried again soon
    retry_after: int | None = None
    # The response of a fetch that answered (for WebSub discovery), else None.
    fetched: object = None

    @property
    def outcome(self):
        return self.run.outcome


def start_run(feed, origin=BY_HAND, **fields):
    """An attempt's ``ImportRun`` with its ``origin``, unsaved: ``finish_run`` saves it."""
    return ImportRun(
        feed=feed,
        task_id=origin.task_id or "",
        worker=origin.worker or "",
        refresh_run_id=origin.refresh_run,
        started_at=timezone.now(),
        **fields,
    )


def finish_run(feed, run, outcome):
    """Save ``run`` with its outcome; the attempt's ``ImportResult``."""
    run.outcome = outcome
    run.finished_at = timezone.now()
    run.save(force_insert=True)
    return ImportResult(feed=feed, run=run)


REFUSED = "a newer import of this feed took over (the lock's lease had run out)"


def record_refused(feed, run):
    """Fail ``run``: a newer import took the feed over and refused its writes (``StaleFence``)."""
    run.error = REFUSED
    result = finish_run(feed, run, Outcome.FAILED)
    logger.warning("import of %s refused: %s", feed.url, run.error)
    return result


def record_attempt(url, outcome, *, error="", origin=BY_HAND):
    """Record an attempt that never reached the feed (lock held, lock cache down).

    A skip is a busy feed's commonest record: one ``INSERT ... SELECT`` by URL
    where the database allows, else the feed (its URL only) and the run.
    """
    run = start_run(None, origin, error=error, outcome=outcome)
    run.finished_at = timezone.now()
    saved = insert_run_for_url(run, url)
    if saved is not None:
        return ImportResult(feed=saved.feed, run=saved)
    feed, _ = Feed.objects.only("url").get_or_create(url=url)  # a URL seen for the first time
    run.feed = feed
    return finish_run(feed, run, outcome)


def record_skip(url, error, deferred=None, *, origin=BY_HAND):
    """Record an import skipped before its fetch, and why (the lock held, the claim replaced).

    ``deferred`` is ``(feed, until)`` when the feed's host asked to wait: the
    feed goes back to the scheduler, due then (no worker waits that long). Its
    claim is released under the import's fence: a newer lock holder decides
    for itself.
    """
    result = record_attempt(url, Outcome.SKIPPED, error=error, origin=origin)
    if deferred:
        feed, until = deferred
        with suppress(StaleFence):
            release_claim(feed, feed.fence, next_check_at=until)
    return result


def record_failure(
    feed, run, fence, error, *, retry_after=None, next_check_at=None, health=None, **changes
):
    """Fail ``feed`` and its ``run``: the failure write, the importer's and a crash's alike.

    Under ``fence`` (``StaleFence`` when a newer import holds the feed) the
    feed's claim is cleared, its error counted and its next check backed off,
    pushed later by ``retry_after``, or set to ``next_check_at`` when given;
    ``changes`` are more columns to write (the HTTP status, ``is_active``).
    Its health becomes ``health`` if given (gone, moved), else failing or dead
    (``health.states``; a dead feed is checked at the longest poll interval).
    Announces a healthy feed that starts failing, and one this failure deactivated.
    """
    started, errors, old = run.started_at, feed.error_count + 1, feed.health
    was_active = feed.is_active
    failing_since = feed.failing_since or started
    state = health or states.after_failure(errors, failing_since, now=started)
    # Backing off matters for a crash too: a feed that always times out
    # would otherwise take a worker for the whole time limit at every refresh.
    next_check_at = next_check_at or next_check(started, errors=errors, retry_after=retry_after)
    if state == Health.DEAD:
        next_check_at = max(next_check_at, started + longest_poll())
    run.error = str(error)
    with transaction.atomic() if state != old else nullcontext():
        release_claim(
            feed,
            fence,
            next_check_at=next_check_at,
            last_checked_at=started,
            last_status=Outcome.FAILED,
            last_error=run.error,
            error_count=F("error_count") + 1,
            **({} if feed.failing_since else {"failing_since": failing_since}),
            **states.change(feed, state, now=started),
            **changes,
        )
        feed.error_count = errors
        result = finish_run(feed, run, Outcome.FAILED)
        if state != old:
            states.announce(
                feed, old, states.describe(state, feed=feed, error=run.error), now=started
            )
    if errors == 1:
        send_on_commit(feed_failing, Feed, feed=feed, run=run, error=run.error)
    if was_active and not feed.is_active:
        send_on_commit(feed_deactivated, Feed, feed=feed, run=run, reason=run.error)
    return result


def crash_message(exc):
    """An unexpected error in words an operator can act on."""
    text = f"{type(exc).__name__}: {exc}".strip()
    if isinstance(exc, DATABASE_ERRORS):
        # psycopg adds a hint line ("Is the server running ..."): the log keeps one line.
        return f"lost the connection to the database during the import ({text.splitlines()[0]})"
    return text


def record_crash(url, error, *, fence=None, origin=BY_HAND):
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
    run = start_run(feed, origin, error=error)
    if fence is not None:
        try:
            return record_failure(feed, run, fence, error)
        except StaleFence:
            logger.warning(
                "The crash of an import of %s is not written on the feed: "
                "a newer import took it over",
                url,
            )
    return finish_run(feed, run, Outcome.FAILED)


def stop_message(time_limit):
    """What a run stopped by its soft time limit says."""
    return f"import took longer than {time_limit:g}s and was stopped"


def record_stop(url, time_limit, *, fence=None, origin=BY_HAND):
    """Record an import its soft time limit stopped, as a crash; its ``ImportResult`` or None."""
    return record_crash(url, stop_message(time_limit), fence=fence, origin=origin)


def stopped_reply(url, time_limit, *, origin=BY_HAND):
    """Record an import stopped before its fence (the feed row left alone); the task's reply."""
    record_stop(url, time_limit, origin=origin)
    return failed_reply(url, stop_message(time_limit))


def reply(result):
    """The task's return value (JSON) for an ``ImportResult``."""
    run = result.run
    summary = {
        "status": Outcome(run.outcome).value,
        "url": result.feed.url,
        "created": run.created,
        "updated": run.updated,
    }
    if run.error:
        summary["error"] = run.error
    return summary


def failed_reply(url, error):
    """The task's return value (JSON) for an import that ended without an ``ImportResult``."""
    return {"status": Outcome.FAILED, "url": url, "created": 0, "updated": 0, "error": error}


def logged_reply(result, logger):
    """``reply(result)``, its line (``describe``) logged: a warning when the import failed."""
    summary = reply(result)
    log = logger.warning if summary["status"] == Outcome.FAILED else logger.info
    log(describe(summary))
    return summary


def describe(result):
    """One log line saying what happened to a feed, in plain words."""
    status, url = result["status"], result["url"]
    if status == Outcome.IMPORTED:
        return (
            f"Feed {url}: imported, {result['created']} new and {result['updated']} changed posts"
        )
    if status == Outcome.NOT_MODIFIED:
        return f"Feed {url}: not modified since the last import"
    if status == Outcome.SKIPPED:
        return f"Feed {url}: skipped, {result.get('error') or 'another worker is importing it'}"
    return f"Feed {url}: failed, {result.get('error', 'unknown error')}"


def deactivate(feeds, reason="deactivated by a person"):
    """Deactivate ``feeds`` (a queryset; the admin's action); ``feed_deactivated`` is sent for
    each one that was active. Returns how many were."""
    deactivated = feeds.deactivate()
    for feed in deactivated:
        send_on_commit(feed_deactivated, Feed, feed=feed, run=None, reason=reason)
    return len(deactivated)
