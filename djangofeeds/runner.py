"""Running one import, in a worker or not: the feed's lock, its claim, its host, the importer.

The path of ``import_feed``, of ``import_feeds --sync``, of an eager task, and
of each feed of an ``import_feed_batch`` (``run_batch``). What surrounds the
importer is here: the lock and its fencing number, the skips (lock held,
claim replaced, host deferring), a crash's record, WebSub's bookkeeping after
a poll. The host (its deferral, its slot, its answer) is
``politeness.HostVisit``'s; the records are ``runs``'.
"""

import logging
import time
from collections import Counter
from hashlib import md5

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction

from djangofeeds import conf, dispatch, websub
from djangofeeds.claims import holds_claim
from djangofeeds.importer import fetch_and_store
from djangofeeds.locks import CacheLock, LockUnavailable
from djangofeeds.models import Feed, Outcome
from djangofeeds.politeness import HostBusy, HostDeferred, HostVisit, busy_wait
from djangofeeds.runs import (
    crash_message,
    describe,
    record_crash,
    record_skip,
    record_stop,
    refusal,
    refused,
    reply,
)
from djangofeeds.transport import DEADLINE_TIMEOUTS

logger = logging.getLogger("djangofeeds.tasks")  # a batch's lines, as the task logs them

LOCK_HELD = "another worker is importing this feed"
CLAIM_REPLACED = "already imported since it was queued (its claim was replaced)"


class ImportCrashed(Exception):
    """An import ended with an unexpected error, already recorded on the feed and its run."""


class Skipped(Exception):
    """The import stops before its fetch: ``args`` say why, and ``(feed, until)`` if deferred."""


def lock_key(task_name, url):
    """The Cookbook's key: the task name and the MD5 of the URL (of its bytes)."""
    return f"{task_name}-lock-{md5(url.encode()).hexdigest()}"


def feed_lock(task_name, url):
    """The lock of ``url``'s feed, which its imports and its pushes take (not yet acquired)."""
    expire, lock_cache = conf.DJANGOFEEDS_LOCK_EXPIRE, conf.DJANGOFEEDS_LOCK_CACHE
    return CacheLock(lock_key(task_name, url), expire=expire, using=lock_cache)


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


def import_under_lock(
    url, *, task_name, claim=None, progress=None, started=None, time_limit=None, **recorded
):
    """Import ``url`` under its lock and one of its host's slots.

    Returns the importer's ``ImportResult``: outcome ``skipped`` when another
    worker holds the lock, when ``claim`` (the message's) is no longer the
    feed's (the feed was imported since it was queued), or when the feed's host
    asked to wait (``Retry-After``: the feed is due again then). Raises
    ``HostBusy`` when the host has ``DJANGOFEEDS_MAX_PER_HOST`` imports running,
    and ``LockUnavailable`` when the lock's cache cannot be reached: without a
    lock nothing is imported. An unexpected error is recorded on the feed under
    the import's fencing number, then raised as ``ImportCrashed``; one stopped
    by the soft ``time_limit`` (seconds) is recorded so and returned.
    ``recorded`` goes on the run (``runs.start_run``); ``started()`` is called
    when the import begins (not for a skip).
    """
    with feed_lock(task_name, url) as lock:
        try:
            if not lock.acquired:
                raise Skipped(LOCK_HELD)
            with lock.keep_alive():
                feed = Feed.objects.next_fence(url)
                fence = feed.fence
                if claim is not None and not holds_claim(feed, claim):
                    raise Skipped(CLAIM_REPLACED)
                # HostDeferred: a skip; HostBusy: no slot free (raised, the feed lock released)
                with HostVisit(url) as visit:
                    if started is not None:
                        started()
                    try:
                        result = fetch_and_store(feed, fence=fence, progress=progress, **recorded)
                    except SoftTimeLimitExceeded:
                        return record_stop(url, time_limit, fence=fence, **recorded)
                    except Exception as exc:
                        error = crash_message(exc)
                        record_crash(url, error, fence=fence, **recorded)
                        raise ImportCrashed(error) from exc
                    visit.answered(result.run.http_status, result.retry_after)
                subscribe_to = websub.after_poll(result, fence)  # WebSub: pace, a new hub
                if subscribe_to:
                    transaction.on_commit(lambda: dispatch.subscribe(subscribe_to), robust=True)
                return result
        except HostDeferred as deferred:  # due again when the host allows
            return record_skip(url, str(deferred), (feed, deferred.until), **recorded)
        except Skipped as skipped:  # one record of a skip, whatever the reason
            return record_skip(url, *skipped.args, **recorded)


def run_batch(urls, *, task_name, claim=None, time_limit=None, **recorded):
    """Import each of ``urls`` in turn, as ``import_feed`` would; count the outcomes.

    The body of ``import_feed_batch``. Each feed gets its own lock, claim check,
    host slot and run, as in ``import_under_lock``; a crash is recorded on its
    feed and the batch goes on. A feed whose host is busy goes back as an
    ``import_feed`` of its own that waits a few seconds. So do the feeds not
    started yet when the lock cache is unreachable (they retry then), and when
    the soft ``time_limit`` (seconds) is near: a batch starts no import once
    less than two fetch deadlines are left, so timeouts never add up to it.
    """
    counts = Counter()
    refresh_run = recorded.get("refresh_run")
    deadline = DEADLINE_TIMEOUTS * conf.DJANGOFEEDS_FETCH_TIMEOUT
    stop_starting = time.monotonic() + (time_limit or float("inf")) - 2 * deadline

    def send_back(rest, why, wait=0.0):
        if not rest:
            return
        dispatch.send_back(rest, claim, refresh_run, countdown=wait)
        counts["sent back"] += len(rest)
        logger.warning("Batch of %d feeds: %s; %d sent back", len(urls), why, len(rest))

    for index, url in enumerate(urls):
        if index and time.monotonic() > stop_starting:
            send_back(urls[index:], "its time limit is near")
            break
        try:
            result = import_under_lock(
                url, task_name=task_name, claim=claim, time_limit=time_limit, **recorded
            )
        except HostBusy as busy:
            wait = busy_wait(0)
            dispatch.send_back([url], claim, refresh_run, countdown=wait, host_waits=1)
            counts["sent back"] += 1
            logger.info("Feed %s: waits %.1fs, %s", url, wait, busy)
            continue
        except LockUnavailable as exc:
            logger.error(refusal(url, exc, giving_up=False))
            refused(url, exc, **recorded)
            send_back(urls[index:], "the lock cache is unreachable", busy_wait(0))
            break
        except ImportCrashed:  # recorded on the feed and its run
            counts[Outcome.FAILED] += 1
            continue
        except SoftTimeLimitExceeded:  # before the import began (the lock, the database)
            record_stop(url, time_limit, **recorded)
            counts[Outcome.FAILED] += 1
            send_back(urls[index + 1 :], "it reached its time limit")
            break
        except Exception as exc:  # before the import began: the feed's run records it
            record_crash(url, crash_message(exc), **recorded)
            counts[Outcome.FAILED] += 1
            continue
        summary = reply(result)
        counts[summary["status"]] += 1
        log = logger.warning if summary["status"] == Outcome.FAILED else logger.info
        log(describe(summary))
    return {str(outcome): count for outcome, count in counts.items()}
