"""Running one import, in a worker or not: the feed's lock, its claim, its host, the importer.

The path of ``import_feed``, of ``import_feeds --sync``, of an eager task, and
of each feed of an ``import_feed_batch`` (``batch.run_batch``). What surrounds the
importer is here: the lock and its fencing number, the skips (lock held,
claim replaced, host deferring), a crash's record, WebSub's bookkeeping after
a poll. The host (its deferral, its slot, its answer) is
``hosts.HostVisit``'s; the records are ``records``'.
"""

import contextlib
import logging
import time
from hashlib import md5

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction

from djangofeeds import conf
from djangofeeds.importing.batch_fetches import Prefetch
from djangofeeds.importing.claims import holds_claim
from djangofeeds.importing.importer import fetch_and_store
from djangofeeds.importing.records import (
    BY_HAND,
    DATABASE_ERRORS,
    crash_message,
    failed_reply,
    record_crash,
    record_skip,
    record_stop,
)
from djangofeeds.locking.fence import next_fence
from djangofeeds.locking.hosts import (
    HostBusy,
    HostDeferred,
    HostVisit,
    busy_wait,
    deferral_key,
)
from djangofeeds.locking.locks import CacheLock, acquire_together, release_together
from djangofeeds.push import subscriber

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


def import_under_lock(url, *, started=None, progress=None, **options):
    """Import ``url`` under its lock and one of its host's slots (``FeedImport``).

    Returns the importer's ``ImportResult``: outcome ``skipped`` when another
    worker holds the lock, when ``claim`` (the message's) is no longer the
    feed's (the feed was imported since it was queued), or when the feed's host
    asked to wait (``Retry-After``: the feed is due again then). Raises
    ``HostBusy`` when the host has ``DJANGOFEEDS_MAX_PER_HOST`` imports running,
    and ``LockUnavailable`` when the lock's cache cannot be reached: without a
    lock nothing is imported. An unexpected error is recorded on the feed under
    the import's fencing number, then raised as ``ImportCrashed``; one stopped
    by the soft ``time_limit`` (seconds) is recorded so and returned.
    ``options``: ``task_name``, ``claim``, ``time_limit``, ``origin`` (who
    asked, ``records.ImportOrigin``, on the run) and ``prefetch`` (the feed's
    fetch made already, ``importer.EarlierFetch``); ``started()`` is called
    when the import begins (not for a skip).
    """
    feed_import = FeedImport(url, **options)
    skipped = feed_import.admit()
    if skipped is not None:
        return skipped
    return feed_import.run(started=started, progress=progress)


class FeedImport:
    """One feed's import under its lock, in two steps: ``admit`` it, then ``run`` it.

    ``import_under_lock`` takes both steps at once. A batch admits its feeds
    together (``batch_admission.admit_together``), starting each one's fetch as it is
    admitted, and runs them as their answers come back (``batch.run_batch``).
    """

    def __init__(
        self, url, *, task_name, claim=None, time_limit=None, origin=BY_HAND, prefetch=None
    ):
        self.url, self.task_name, self.claim = url, task_name, claim
        self.time_limit, self.origin = time_limit, origin
        self.lock = feed_lock(task_name, url)
        self.prefetch = prefetch  # a fetch made before (importer.EarlierFetch), or start_fetch's
        self.feed = self.fence = self.visit = None
        self.spare_slot = None  # a slot of the host taken for it and not yet the visit's
        self.stopped = False  # by the soft time limit, in ``store``
        self._renewal = contextlib.ExitStack()  # the lock's renewal while it is held

    def admit(self):
        """Take the feed's lock, its fencing number and a slot of its host.

        Returns None once admitted, or the ``ImportResult`` of a skip (lock
        held, claim replaced, host deferring). Raises ``HostBusy`` and
        ``LockUnavailable`` with nothing held. The lock is taken and the
        host's Retry-After read in one round trip to the lock cache.
        """
        (not_before,) = acquire_together([self.lock], reads=[deferral_key(self.url)])
        return self.admit_locked(not_before)

    def admit_locked(self, not_before, feed=None, slot=None):
        """``admit``'s rest, once the lock was tried and ``not_before`` (the host's
        Retry-After) read; ``feed`` is the feed with its new fence when the
        caller took it (``fence.next_fences``), ``slot`` a slot of its
        host the caller took with the lock (``batch_admission.admit_together``): given back
        with the lock if the feed does not use it."""
        url = self.url
        self.spare_slot = slot
        try:
            if not self.lock.acquired:
                raise Skipped(LOCK_HELD)
            self._renewal.enter_context(self.lock.keep_alive())
            self.feed = feed if feed is not None else next_fence(url)
            self.fence = self.feed.fence
            if self.claim is not None and not holds_claim(self.feed, self.claim):
                raise Skipped(CLAIM_REPLACED)
            # HostDeferred: a skip; HostBusy: no slot free (raised, the feed lock released)
            self.visit = HostVisit(url, not_before, slot).enter()
            self.spare_slot = None  # the visit's now
        except HostDeferred as deferred:  # due again when the host allows
            return self.skip(str(deferred), (self.feed, deferred.until))
        except Skipped as skipped:  # one record of a skip, whatever the reason
            return self.skip(*skipped.args)
        except BaseException:
            self.close()
            raise
        return None

    def start_fetch(self):
        """Start the admitted feed's fetch in a fetch thread (``run`` takes its answer)."""
        self.prefetch = Prefetch(self.feed)

    def renew_until(self, when):
        """No renewal of its lock and host slot after the monotonic time ``when``: held by a
        thread no time limit stops (``batch_stragglers``), they run out if it gets stuck."""
        self.lock.renew_until(when)
        if self.visit is not None:
            self.visit.slots.renew_until(when)

    def skip(self, *why):
        """Record the skip (``records.record_skip``) while the lock is held, then release it."""
        try:
            return record_skip(self.url, *why, origin=self.origin)
        finally:
            self.close()

    def run(self, *, started=None, progress=None, releases=None):
        """Fetch (or take ``start_fetch``'s answer) and store; give the slot and the lock back.

        The ``ImportResult``; see ``import_under_lock`` for a crash and a stop.
        With ``releases`` (a batch's ``Releases``), the slot and the lock are
        handed over to be given back with other imports'.
        """
        try:
            return self.finish(self.store(started=started, progress=progress))
        finally:
            self.close(releases)

    def store(self, *, started=None, progress=None, later=None):
        """``run``'s fetch and store, its slot and lock still held: then ``finish``, ``close``.

        With ``later`` (a batch's ``LaterWrites``), a feed found unchanged
        hands its last write over to it (``importer.fetch_and_store``): the
        batch sends it with others' before it finishes these imports.
        """
        url, fence, origin = self.url, self.fence, self.origin
        if started is not None:
            started()
        try:
            return fetch_and_store(
                self.feed,
                fence=fence,
                progress=progress,
                prefetch=self.prefetch,
                later=later,
                origin=origin,
            )
        except SoftTimeLimitExceeded:
            self.stopped = True
            return record_stop(url, self.time_limit, fence=fence, origin=origin)
        except Exception as exc:
            error = crash_message(exc)
            record_crash(url, error, fence=fence, origin=origin)
            raise ImportCrashed(error) from exc

    def finish(self, result):
        """After ``store`` and its writes: the host's answer noted, WebSub's bookkeeping."""
        if result is None or self.stopped:
            return result
        self.visit.answered(result.run.http_status, result.retry_after)
        subscribe_to = subscriber.after_poll(result, self.fence)  # WebSub: pace, a new hub
        if subscribe_to:
            transaction.on_commit(lambda: subscriber.subscribe(subscribe_to), robust=True)
        return result

    def close(self, releases=None):
        """Give back what is held: the host's slot then the lock, in one round trip.

        With ``releases``, hand them over to it instead (``Releases.flush``
        gives them back). Safe to call again: nothing is given back twice.
        """
        try:
            self._renewal.close()  # no renewal after the release
        finally:
            visit, self.visit = self.visit, None
            spare, self.spare_slot = self.spare_slot, None
            locks = [self.lock] if spare is None else [spare, self.lock]
            if releases is not None:
                releases.add(visit, locks)
            elif visit is not None:
                visit.leave(*locks)  # then heeds the host's answer
            else:
                release_together(locks)


def database_error(exc):
    """The database's error behind ``exc`` (itself, or what crashed the import), else None."""
    cause = exc.__cause__ if isinstance(exc, ImportCrashed) else exc
    return cause if isinstance(cause, DATABASE_ERRORS) else None


def database_failure_reply(url, exc, origin):
    """An import the database failed: one log line, not Celery's tracebacks; recorded if it can
    be (a crash before the import here, on a new connection, unless the database is gone)."""
    error = str(exc) if isinstance(exc, ImportCrashed) else crash_message(exc)
    if not isinstance(exc, ImportCrashed):
        with contextlib.suppress(*DATABASE_ERRORS):  # unreachable: nothing to write on
            record_crash(url, error, origin=origin)
    logger.error("Feed %s: not imported, %s", url, error)
    return failed_reply(url, error)
