"""A batch's first step: each round's feeds admitted, their fetches started.

``admit_round`` admits a round of ``batch.run_batch`` (a ``batch.Round``):
the locks, hosts' slots and fences taken together (``admit_together``: one
round trip to the lock cache, one statement for the fences), then each
feed's admission finished in turn (``admit_feed``) and its fetch started.
What a feed's admission ends in is counted and sent back by its ``batch.Batch``.
"""

import logging
from collections import Counter

from celery.exceptions import SoftTimeLimitExceeded

from djangofeeds import conf
from djangofeeds.importing import dispatch
from djangofeeds.importing.records import crash_message, record_crash, record_stop
from djangofeeds.importing.refusals import refusal, refused
from djangofeeds.locking.fence import next_fences
from djangofeeds.locking.hosts import HostBusy, busy_wait, deferral_key, host_of, host_slots
from djangofeeds.locking.locks import LockUnavailable, acquire_together
from djangofeeds.models import Outcome

logger = logging.getLogger("djangofeeds.tasks")  # a batch's lines, as the task logs them


def admit_round(batch, current):
    """Admit the feeds of ``current`` (``admit_together``), then each in turn (``admit_feed``).

    When the lock cache is unreachable, the feeds not admitted go back to
    retry. At the soft time limit, the feed being admitted is recorded as
    stopped, those after it go back, and ``SoftTimeLimitExceeded`` is raised.
    """
    waiting, index = current.urls, 0  # the feed being admitted
    try:
        for feed_import, *admission in admit_together(current.imports):
            admit_feed(batch, current, feed_import, *admission)
            index += 1
    except LockUnavailable as exc:
        logger.error(refusal(waiting[index], exc, giving_up=False))
        refused(waiting[index], exc, origin=batch.origin)
        unreachable = "the lock cache is unreachable"
        batch.send_back(waiting[index:] + current.later, unreachable, busy_wait(0))
        current.later = []
    except SoftTimeLimitExceeded:  # before the import began (the lock, the database)
        record_stop(waiting[index], batch.time_limit, origin=batch.origin)
        batch.counts[Outcome.FAILED] += 1
        rest = waiting[index + 1 :] + current.later
        current.give_back(rest)
        batch.send_back(rest, "it reached its time limit")
        current.later = []
        raise  # the admitted feeds go back too (Batch.run_round)


def admit_feed(batch, current, feed_import, not_before, feed, slot):
    """Finish ``feed_import``'s admission (``FeedImport.admit_locked``) and start its fetch.

    A feed whose host is busy waits for the next round when this round holds
    the host's slots, else goes back; a skip is counted, a crash recorded.
    ``LockUnavailable`` and ``SoftTimeLimitExceeded`` are the caller's.
    """
    url = feed_import.url
    try:
        skipped = feed_import.admit_locked(not_before, feed, slot)
    except HostBusy as busy:
        if any(held.visit.host == busy.host for held in current.admitted.values()):
            current.later.append(url)  # its slots are this batch's: in the next round
            return
        wait = busy_wait(0)
        feed_import.close()  # its own import_feed takes the lock again
        dispatch.send_back(
            [url], batch.claim, batch.origin.refresh_run, countdown=wait, host_waits=1
        )
        batch.counts["sent back"] += 1
        logger.info("Feed %s: waits %.1fs, %s", url, wait, busy)
        return
    except (LockUnavailable, SoftTimeLimitExceeded):
        raise
    except Exception as exc:  # before the import began: the feed's run records it
        record_crash(url, crash_message(exc), origin=batch.origin)
        batch.counts[Outcome.FAILED] += 1
        return
    if skipped is not None:
        batch.tally(skipped)
        return
    try:
        feed_import.start_fetch()
    except BaseException:  # no fetch thread: nothing of the feed stays held
        feed_import.close()
        raise
    current.admitted[feed_import.prefetch.future] = feed_import


def admit_together(feed_imports):
    """Take the locks of ``feed_imports`` and their fences together, for their admissions.

    A round's first step (``admit_round``): one round trip to the lock cache for
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
        fenced = next_fences(locked) if len(locked) > 1 else {}
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
