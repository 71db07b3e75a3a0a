"""Running one import, Celery or not: the feed's lock, its claim, its host, then the importer.

The path of ``import_feed``, of ``import_feeds --sync`` and of an eager task.
The runner owns what surrounds the importer: the lock and its fencing number,
the skips (lock held, claim replaced, host deferring), the host's slots, the
record of a crash, WebSub's bookkeeping after a poll; and the import's JSON
reply and log line.
"""

import logging
import time
from contextlib import suppress
from hashlib import md5

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction

from djangofeeds import conf, dispatch, websub
from djangofeeds.claims import holds_claim, release_claim
from djangofeeds.fencing import StaleFence
from djangofeeds.importer import fetch_and_store
from djangofeeds.locks import CacheLock
from djangofeeds.models import Feed, Outcome
from djangofeeds.politeness import HostBusy, busy_wait, deferred_until, heed, host_of, host_slot
from djangofeeds.runs import crash_message, record_attempt, record_crash

logger = logging.getLogger(__name__)

LOCK_HELD = "another worker is importing this feed"
CLAIM_REPLACED = "already imported since it was queued (its claim was replaced)"


class ImportCrashed(Exception):
    """An import ended with an unexpected error, already recorded on the feed and its run."""


def lock_key(task_name, url):
    """The Cookbook's key: the task name and the MD5 of the URL (of its bytes)."""
    return f"{task_name}-lock-{md5(url.encode()).hexdigest()}"


def run_import(url, *, wait_for_host=True, **options):
    """Import ``url`` (see ``import_under_lock``), waiting here while its host is busy.

    The path of ``import_feeds --sync`` and of an eager task: the caller's own
    process waits. A worker passes ``wait_for_host=False`` and gets
    ``HostBusy``: it requeues the feed instead of sleeping in a pool process.
    """
    waits = 0
    while True:
        try:
            return import_under_lock(url, **options)
        except HostBusy:
            if not wait_for_host:
                raise
            time.sleep(busy_wait(waits))
            waits += 1


def import_under_lock(url, *, task_name, progress=None, claim=None, time_limit=None, **recorded):
    """Import ``url`` under its lock and one of its host's slots.

    Returns the importer's ``ImportResult``: outcome ``skipped`` when another
    worker holds the lock, when ``claim`` (the message's) is no longer the
    feed's (the feed was imported since it was queued), or when the feed's host
    asked to wait (``Retry-After``: the feed is due again then). Raises
    ``HostBusy`` when the host has ``DJANGOFEEDS_MAX_PER_HOST`` imports running,
    and ``LockUnavailable`` when the lock's cache cannot be reached: without a
    lock nothing is imported. An unexpected error is recorded on the feed under
    the import's fencing number, then raised as ``ImportCrashed``; the soft
    ``time_limit`` (seconds) is recorded so and returned.
    """
    key = lock_key(task_name, url)
    expire, lock_cache = conf.DJANGOFEEDS_LOCK_EXPIRE, conf.DJANGOFEEDS_LOCK_CACHE
    with CacheLock(key, expire=expire, using=lock_cache) as lock:
        if not lock.acquired:
            return record_attempt(url, Outcome.SKIPPED, error=LOCK_HELD, **recorded)
        with lock.keep_alive():
            feed = Feed.objects.next_fence(url)
            skipped = skip_reason(feed, claim)
            if skipped:
                return record_attempt(url, Outcome.SKIPPED, error=skipped, **recorded)
            with host_slot(url):  # HostBusy if none is free (the feed lock is released)
                try:
                    result = fetch_and_store(feed, fence=feed.fence, progress=progress, **recorded)
                except SoftTimeLimitExceeded:
                    return stopped(url, time_limit, fence=feed.fence, **recorded)[1]
                except Exception as exc:
                    error = crash_message(exc)
                    record_crash(url, error, fence=feed.fence, **recorded)
                    raise ImportCrashed(error) from exc
            heed(url, result.run.http_status, result.retry_after)
            subscribe_to = websub.after_poll(result, feed.fence)  # WebSub: pace, a new hub
            if subscribe_to:
                transaction.on_commit(lambda: dispatch.subscribe(subscribe_to), robust=True)
            return result


def skip_reason(feed, claim):
    """Why an import holding ``feed``'s lock stops before fetching ("" if it goes on).

    Its ``claim`` was replaced (the feed was imported since), or the feed's
    host asked to wait: the feed goes back to the scheduler, due then.
    """
    if claim is not None and not holds_claim(feed, claim):
        return CLAIM_REPLACED
    until = deferred_until(feed.url)
    if not until:
        return ""
    # No worker waits that long; a newer lock holder decides for itself.
    with suppress(StaleFence):
        release_claim(feed, feed.fence, next_check_at=until)
    waiting = f"{host_of(feed.url)} asked to wait until {until.isoformat(timespec='seconds')}"
    return f"{waiting} (Retry-After)"


def refused(url, exc, *, giving_up, **recorded):
    """Log and record an import refused: the lock cache is unreachable (no lock, no import)."""
    how = "giving up" if giving_up else "will retry"
    logger.error("Feed %s: not imported, the lock cache is unreachable (%s); %s", url, exc, how)
    error = f"not imported: the lock cache is unreachable ({exc})"
    return record_attempt(url, Outcome.FAILED, error=error, **recorded)


def stopped(url, time_limit, **crash):
    """Record an import its soft time limit stopped; ``(error, ImportResult or None)``."""
    error = f"import took longer than {time_limit:g}s and was stopped"
    return error, record_crash(url, error, **crash)


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
