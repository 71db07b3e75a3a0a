"""A batch of scheduled imports (``import_feed_batch``): admitted, fetched and finished together.

Each feed of a batch is imported as ``runner.FeedImport`` imports one: its
lock, its claim, its host's slot, its run. What is the batch's is here: the
locks, slots and fences taken together (``admit_together``), the fetches run
together (``prefetch``), the unchanged feeds' writes sent together
(``LaterWrites``), the slots and locks given back together (``Releases``),
and the fetches still out when the rest is done left to the process's
``stragglers``.
"""

import logging
import time
from collections import Counter, defaultdict
from concurrent.futures import FIRST_COMPLETED, wait

from celery.exceptions import SoftTimeLimitExceeded

from djangofeeds import conf, dispatch
from djangofeeds.locks import LockUnavailable, acquire_together, release_together
from djangofeeds.models import Feed, ImportRun, Outcome
from djangofeeds.politeness import HostBusy, busy_wait, deferral_key, host_of, host_slots
from djangofeeds.runner import FeedImport, ImportCrashed
from djangofeeds.runs import (
    crash_message,
    logged_reply,
    record_crash,
    record_refused,
    record_stop,
    refusal,
    refused,
)
from djangofeeds.stragglers import stragglers
from djangofeeds.transport import fetch_deadline

logger = logging.getLogger("djangofeeds.tasks")  # a batch's lines, as the task logs them

LATER = object()  # run_batch: a feed that waits for the batch's next round of fetches
# How long a batch with nothing left but fetches still out waits for them before it
# leaves them to the process's stragglers: an answer merely slow comes in meanwhile,
# a dead server's takes up to a fetch deadline (3 x DJANGOFEEDS_FETCH_TIMEOUT).
PATIENCE = 0.25  # seconds


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


def finish_left(feed_import):
    """A batch's import left to the process's stragglers, run once its fetch ended."""
    try:
        result = feed_import.run()
    except ImportCrashed:  # recorded on the feed and its run
        return
    if result is not None:
        logged_reply(result, logger)


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
    deadline = fetch_deadline()
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
        counts[logged_reply(result, logger)["status"]] += 1

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
