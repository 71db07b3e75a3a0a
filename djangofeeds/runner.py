"""Running one import, in a worker or not: the feed's lock, its claim, its host, the importer.

The path of ``import_feed``, of ``import_feeds --sync``, of an eager task, and
of each feed of an ``import_feed_batch`` (``run_batch``). What surrounds the
importer is here: the lock and its fencing number, the skips (lock held,
claim replaced, host deferring), a crash's record, WebSub's bookkeeping after
a poll. The host (its deferral, its slot, its answer) is
``politeness.HostVisit``'s; the records are ``runs``'.
"""

import contextlib
import logging
import time
from collections import Counter, defaultdict
from concurrent.futures import FIRST_COMPLETED, wait
from hashlib import md5

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction

from djangofeeds import conf, dispatch, websub
from djangofeeds.claims import holds_claim
from djangofeeds.importer import fetch_and_store
from djangofeeds.locks import CacheLock, LockUnavailable, acquire_together, release_together
from djangofeeds.models import Feed, ImportRun, Outcome
from djangofeeds.politeness import (
    HostBusy,
    HostDeferred,
    HostVisit,
    busy_wait,
    deferral_key,
    host_of,
    host_slots,
)
from djangofeeds.prefetch import Prefetch
from djangofeeds.runs import (
    crash_message,
    describe,
    record_crash,
    record_refused,
    record_skip,
    record_stop,
    refusal,
    refused,
    reply,
)
from djangofeeds.stragglers import stragglers
from djangofeeds.transport import DEADLINE_TIMEOUTS

logger = logging.getLogger("djangofeeds.tasks")  # a batch's lines, as the task logs them

LOCK_HELD = "another worker is importing this feed"
CLAIM_REPLACED = "already imported since it was queued (its claim was replaced)"
LATER = object()  # run_batch: a feed that waits for the batch's next round of fetches
# How long a batch with nothing left but fetches still out waits for them before it
# leaves them to the process's stragglers: an answer merely slow comes in meanwhile,
# a dead server's takes up to a fetch deadline (3 x DJANGOFEEDS_FETCH_TIMEOUT).
PATIENCE = 0.25  # seconds


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
    ``options``: ``task_name``, ``claim``, ``time_limit`` and what goes on the
    run (``runs.start_run``); ``started()`` is called when the import begins
    (not for a skip).
    """
    feed_import = FeedImport(url, **options)
    skipped = feed_import.admit()
    if skipped is not None:
        return skipped
    return feed_import.run(started=started, progress=progress)


class FeedImport:
    """One feed's import under its lock, in two steps: ``admit`` it, then ``run`` it.

    ``import_under_lock`` takes both steps at once. A batch admits its feeds
    together (``admit_together``), starting each one's fetch as it is
    admitted, and runs them as their answers come back (``run_batch``).
    """

    def __init__(self, url, *, task_name, claim=None, time_limit=None, **recorded):
        self.url, self.task_name, self.claim = url, task_name, claim
        self.time_limit, self.recorded = time_limit, recorded
        self.lock = feed_lock(task_name, url)
        self.feed = self.fence = self.visit = self.prefetch = None
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
        caller took it (``Feed.objects.next_fences``), ``slot`` a slot of its
        host the caller took with the lock (``admit_together``): given back
        with the lock if the feed does not use it."""
        url = self.url
        self.spare_slot = slot
        try:
            if not self.lock.acquired:
                raise Skipped(LOCK_HELD)
            self._renewal.enter_context(self.lock.keep_alive())
            self.feed = feed if feed is not None else Feed.objects.next_fence(url)
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
        thread no time limit stops (``stragglers``), they run out if it gets stuck."""
        self.lock.renew_until(when)
        if self.visit is not None:
            self.visit.slots.renew_until(when)

    def skip(self, *why):
        """Record the skip (``runs.record_skip``) while the lock is held, then release it."""
        try:
            return record_skip(self.url, *why, **self.recorded)
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
        url, fence, recorded = self.url, self.fence, self.recorded
        if started is not None:
            started()
        try:
            return fetch_and_store(
                self.feed,
                fence=fence,
                progress=progress,
                prefetch=self.prefetch,
                later=later,
                **recorded,
            )
        except SoftTimeLimitExceeded:
            self.stopped = True
            return record_stop(url, self.time_limit, fence=fence, **recorded)
        except Exception as exc:
            error = crash_message(exc)
            record_crash(url, error, fence=fence, **recorded)
            raise ImportCrashed(error) from exc

    def finish(self, result):
        """After ``store`` and its writes: the host's answer noted, WebSub's bookkeeping."""
        if result is None or self.stopped:
            return result
        self.visit.answered(result.run.http_status, result.retry_after)
        subscribe_to = websub.after_poll(result, self.fence)  # WebSub: pace, a new hub
        if subscribe_to:
            transaction.on_commit(lambda: dispatch.subscribe(subscribe_to), robust=True)
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


class Releases:
    """The slots and locks of a batch's finished imports, given back together.

    ``run_batch`` flushes them whenever it would wait for the next answer, so
    a slot or a lock is held only while the batch stores answers already in:
    one round trip to the lock cache for those imports instead of one each.
    """

    def __init__(self):
        self._held = []  # (HostVisit or None, [CacheLock]: the feed's, a slot not used)

    def add(self, visit, locks):
        self._held.append((visit, locks))

    def flush(self):
        """Give back every slot and lock held (one round trip), then heed the hosts' answers."""
        held, self._held = self._held, []
        locks = []
        for visit, more in held:
            locks.extend(visit.give_up() if visit is not None else ())
            locks.extend(more)
        release_together(locks)
        for visit, _ in held:
            if visit is not None:
                visit.heed_answer()


class LaterWrites:
    """The last writes of a batch's feeds found unchanged, sent together (``write_fenced``).

    Each is a feed's update with its new run, which PostgreSQL writes in one
    statement; ``flush`` sends all those held in one
    (``ImportRun.objects.insert_with_updates``), before ``run_batch``
    finishes their imports and gives their slots and locks back: one round
    trip and one commit instead of one each. A feed whose fence went stale
    meanwhile gets its run failed as refused, as its own write would have.
    """

    def __init__(self):
        self._held = {}  # the feed's pk -> (feed, fence, run, changes)

    def add(self, feed, fence, run, changes):
        if feed.pk in self._held:  # a statement updates a feed once
            self.flush()
        self._held[feed.pk] = (feed, fence, run, changes)

    def flush(self):
        """Send the writes held, one statement for each set of columns they change.

        A write that fails records each of its imports as crashed, under its
        fence, and its run says so (the batch's tally).
        """
        held, self._held = self._held, {}
        alike = defaultdict(list)
        for write in held.values():
            alike[tuple(write[3])].append(write)
        for writes in alike.values():
            try:
                updated = ImportRun.objects.insert_with_updates(
                    [(run, feed.pk, fence, changes) for feed, fence, run, changes in writes]
                )
            except SoftTimeLimitExceeded:
                raise
            except Exception as exc:
                error = crash_message(exc)
                for feed, fence, run, _ in writes:
                    run.outcome, run.error = Outcome.FAILED, error
                    record_crash(
                        feed.url,
                        error,
                        fence=fence,
                        task_id=run.task_id,
                        worker=run.worker,
                        refresh_run=run.refresh_run_id,
                    )
                continue
            for feed, _, run, _ in writes:
                if feed.pk not in updated:
                    record_refused(feed, run)


class Stored:
    """A batch's imports stored and not yet finished, and what they hold.

    ``finish`` sends their writes together (``LaterWrites``), finishes each
    (``FeedImport.finish``) and gives their slots and locks back together
    (``Releases``): ``run_batch`` calls it whenever it would wait for the
    next answer.
    """

    def __init__(self):
        self.writes, self.releases = LaterWrites(), Releases()
        self._imports = []  # (FeedImport, its result)

    def add(self, feed_import, result):
        self._imports.append((feed_import, result))

    def finish(self):
        """Finish the imports stored; their results (None: stopped, a newer import took over)."""
        imports, self._imports = self._imports, []
        results = []
        try:
            self.writes.flush()
            for feed_import, result in imports:
                results.append(feed_import.finish(result))
                feed_import.close(self.releases)
        finally:
            self.releases.flush()
        return results


def admit_together(feed_imports):
    """Take the locks of ``feed_imports`` and their fences together, for their admissions.

    A batch's first step (``run_batch``): one round trip to the lock cache for
    every lock, every host's Retry-After and a slot for each feed (the ``k``-th
    feed of a host tries the host's slot ``k``), then one statement for the
    fences of the locks taken. Returns ``(feed_import, not_before, feed,
    slot)`` for each, in order (``slot`` None unless taken):
    ``feed_import.admit_locked(not_before, feed, slot)`` finishes its
    admission. Raises ``LockUnavailable``; the caller closes the imports it
    does not admit (``FeedImport.close``), which gives back what they hold.
    """
    locks = [feed_import.lock for feed_import in feed_imports]
    reads = [deferral_key(feed_import.url) for feed_import in feed_imports]
    slots = slots_to_try([feed_import.url for feed_import in feed_imports])
    tried = [slot for slot in slots if slot is not None]
    for feed_import, slot in zip(feed_imports, slots, strict=True):
        feed_import.spare_slot = slot  # closing the import gives it back if taken
    not_before = acquire_together(locks + tried, reads=reads)
    slots = [slot if slot is not None and slot.acquired else None for slot in slots]
    locked = [feed_import.url for feed_import in feed_imports if feed_import.lock.acquired]
    try:
        fenced = Feed.objects.next_fences(locked) if len(locked) > 1 else {}
    except SoftTimeLimitExceeded:
        raise
    except Exception:  # each feed takes its own fence then, and records its own failure
        fenced = {}
    return [
        (feed_import, until, fenced.get(feed_import.url), slot)
        for feed_import, until, slot in zip(feed_imports, not_before, slots, strict=True)
    ]


def slots_to_try(urls):
    """For each of ``urls``, a slot of its host to try taking (``lease_at``), or None.

    The ``k``-th URL of a host gets its host's slot ``k``, while the host has
    that many (``DJANGOFEEDS_MAX_PER_HOST``): the batch's feeds of one host do
    not all try the same slot. A feed whose slot was taken elsewhere asks for
    one as ``HostVisit`` does.
    """
    seen, slots = Counter(), []
    for url in urls:
        host = host_of(url)
        index, seen[host] = seen[host], seen[host] + 1
        slots.append(
            host_slots(url).lease_at(index) if index < conf.DJANGOFEEDS_MAX_PER_HOST else None
        )
    return slots


def log_outcome(result):
    """Log ``result``'s line as its task does; returns its status."""
    summary = reply(result)
    log = logger.warning if summary["status"] == Outcome.FAILED else logger.info
    log(describe(summary))
    return summary["status"]


def finish_left(feed_import):
    """A batch's import left to the process's stragglers, run once its fetch ended."""
    try:
        result = feed_import.run()
    except ImportCrashed:  # recorded on the feed and its run
        return
    if result is not None:
        log_outcome(result)


def run_batch(urls, *, task_name, claim=None, time_limit=None, leave_stragglers=False, **recorded):
    """Import ``urls``, as ``import_feed`` would each, their fetches together; count the outcomes.

    The body of ``import_feed_batch``. Each feed gets its own lock, claim check,
    host slot and run, as in ``import_under_lock``; the locks and the fences
    are taken together (``admit_together``). The feeds are admitted in turn,
    each one's fetch starting in a fetch thread as it is admitted
    (``prefetch``); then each is stored as its answer comes back, and the
    stored ones are finished together before the batch waits for the next
    answer (``Stored``: the unchanged feeds' writes in one statement, their
    slots and locks in one round trip). A crash is
    recorded on its feed and the batch goes on. A feed whose host is busy goes
    back as an ``import_feed`` of its own that waits a few seconds, unless the
    batch itself holds that host's slots: then it waits for the batch's next
    round of fetches. The feeds not started yet go back too when the lock
    cache is unreachable (they retry then), and when the soft ``time_limit``
    (seconds) is near: no round of fetches starts once less than two fetch
    deadlines are left, so timeouts never add up to it.

    With ``leave_stragglers`` (a worker's batch), once nothing is left but
    fetches still out after ``PATIENCE``, those imports are left to the
    process's ``stragglers`` (each keeps its lock and host slot), counted as
    "left to finish", and the batch returns: a dead server no longer holds the
    pool process for its fetch deadline.
    """
    counts = Counter()
    refresh_run = recorded.get("refresh_run")
    deadline = DEADLINE_TIMEOUTS * conf.DJANGOFEEDS_FETCH_TIMEOUT
    stop_starting = time.monotonic() + (time_limit or float("inf")) - 2 * deadline
    options = {"task_name": task_name, "claim": claim, "time_limit": time_limit, **recorded}

    def send_back(rest, why, wait=0.0):
        if not rest:
            return
        dispatch.send_back(rest, claim, refresh_run, countdown=wait)
        counts["sent back"] += len(rest)
        logger.warning("Batch of %d feeds: %s; %d sent back", len(urls), why, len(rest))

    def finished(stored):
        for result in stored.finish():
            if result is None:  # stopped, and a newer import holds the feed
                counts[Outcome.FAILED] += 1
            else:
                tally(result)

    def tally(result):
        counts[log_outcome(result)] += 1

    def admit(feed_import, not_before, feed, slot, admitted):
        """``feed_import`` admitted (``admit_together``) and its fetch started; ``LATER`` when
        this round holds its host's slots; None when it was skipped, sent back or crashed.
        ``LockUnavailable`` and ``SoftTimeLimitExceeded`` are the caller's."""
        url = feed_import.url
        try:
            skipped = feed_import.admit_locked(not_before, feed, slot)
        except HostBusy as busy:
            if any(held.visit.host == busy.host for held in admitted.values()):
                return LATER  # its slots are this batch's: in the next round
            wait = busy_wait(0)
            dispatch.send_back([url], claim, refresh_run, countdown=wait, host_waits=1)
            counts["sent back"] += 1
            logger.info("Feed %s: waits %.1fs, %s", url, wait, busy)
            return None
        except (LockUnavailable, SoftTimeLimitExceeded):
            raise
        except Exception as exc:  # before the import began: the feed's run records it
            record_crash(url, crash_message(exc), **recorded)
            counts[Outcome.FAILED] += 1
            return None
        if skipped is not None:
            tally(skipped)
            return None
        try:
            feed_import.start_fetch()
        except BaseException:  # no fetch thread: nothing of the feed stays held
            feed_import.close()
            raise
        return feed_import

    waiting = list(urls)
    left = set()  # imports left to the stragglers: theirs to close
    while waiting:
        if len(waiting) < len(urls) and time.monotonic() > stop_starting:
            send_back(waiting, "its time limit is near")
            break
        feed_imports = [FeedImport(url, **options) for url in waiting]
        stored = Stored()  # the imports stored and not finished: their writes, their locks
        admitted, later = {}, []  # each fetch's Future -> its FeedImport; feeds for next round
        index = 0  # the feed being admitted
        try:
            try:
                prepared = admit_together(feed_imports)
                for index, (feed_import, *admission) in enumerate(prepared):
                    feed_import = admit(feed_import, *admission, admitted)
                    if feed_import is LATER:
                        later.append(waiting[index])
                    elif feed_import is not None:
                        admitted[feed_import.prefetch.future] = feed_import
            except LockUnavailable as exc:
                url = waiting[index]
                logger.error(refusal(url, exc, giving_up=False))
                refused(url, exc, **recorded)
                unreachable = "the lock cache is unreachable"
                send_back(waiting[index:] + later, unreachable, busy_wait(0))
                later = []
            except SoftTimeLimitExceeded:  # before the import began (the lock, the database)
                record_stop(waiting[index], time_limit, **recorded)
                counts[Outcome.FAILED] += 1
                send_back(waiting[index + 1 :] + later, "it reached its time limit")
                later = []
                raise  # the admitted feeds go back too (below)
            patience = PATIENCE if leave_stragglers and not later else None
            while admitted:
                answered, _ = wait(admitted, patience, return_when=FIRST_COMPLETED)
                if not answered:  # nothing stored is held now (finished below, last time)
                    out = list(admitted.values())
                    if stragglers().take(out, finish_left):
                        left.update(out)
                        counts["left to finish"] += len(out)
                        admitted.clear()
                    continue  # or wait again: the process's stragglers were too many
                for future in answered:
                    feed_import = admitted.pop(future)
                    try:
                        stored.add(feed_import, feed_import.store(later=stored.writes))
                    except ImportCrashed:  # recorded on the feed and its run
                        counts[Outcome.FAILED] += 1
                        feed_import.close(stored.releases)
                if not any(next_one.done() for next_one in admitted):
                    finished(stored)  # before waiting: nothing of theirs is held meanwhile
        except SoftTimeLimitExceeded:
            # Between imports: the feeds admitted and not run go back, with the rest.
            send_back([held.url for held in admitted.values()] + later, "it reached its time limit")
            break
        finally:
            try:
                finished(stored)  # what was stored is written, even when the batch stops
            finally:
                for feed_import in feed_imports:  # not run: their slots and locks go back
                    if feed_import not in left:
                        feed_import.close()
        waiting = later
    return {str(outcome): count for outcome, count in counts.items()}
