"""A batch of scheduled imports (``import_feed_batch``): admitted, fetched and finished together.

Each feed of a batch is imported as ``runner.FeedImport`` imports one: its
lock, its claim, its host's slot, its run. What is the batch's is here: the
locks, slots and fences taken together (``batch_admission``), the fetches run
together (``batch_fetches``), the unchanged feeds' writes sent together
(``LaterWrites``), the slots and locks given back together (``Releases``),
and the fetches still out when the rest is done left to the process's
``batch_stragglers``. ``run_batch`` runs it in rounds of fetches (``Batch``).
"""

import logging
import time
from collections import Counter, defaultdict
from concurrent.futures import FIRST_COMPLETED, wait

from celery.exceptions import SoftTimeLimitExceeded

from djangofeeds.fetching.transport import fetch_deadline
from djangofeeds.importing import dispatch
from djangofeeds.importing.batch_admission import admit_round
from djangofeeds.importing.batch_stragglers import stragglers
from djangofeeds.importing.records import (
    BY_HAND,
    ImportOrigin,
    crash_message,
    logged_reply,
    record_crash,
    record_refused,
)
from djangofeeds.importing.runner import FeedImport, ImportCrashed
from djangofeeds.locking.fence import write_fenced_together
from djangofeeds.locking.locks import release_together
from djangofeeds.models import Outcome

logger = logging.getLogger("djangofeeds.tasks")  # a batch's lines, as the task logs them

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
    (``fence.write_fenced_together``), before ``run_batch``
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
                updated = write_fenced_together(
                    [(run, feed.pk, fence, changes) for feed, fence, run, changes in writes]
                )
            except SoftTimeLimitExceeded:
                raise
            except Exception as exc:
                error = crash_message(exc)
                for feed, fence, run, _ in writes:
                    run.outcome, run.error = Outcome.FAILED, error
                    record_crash(feed.url, error, fence=fence, origin=ImportOrigin.of_run(run))
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


def finish_left(feed_import):
    """A batch's import left to the process's stragglers, run once its fetch ended."""
    try:
        result = feed_import.run()
    except ImportCrashed:  # recorded on the feed and its run
        return
    if result is not None:
        logged_reply(result, logger)


def run_batch(
    urls, *, task_name, claim=None, time_limit=None, leave_stragglers=False, origin=BY_HAND
):
    """Import ``urls``, as ``import_feed`` would each, their fetches together; count the outcomes.

    The body of ``import_feed_batch``. Each feed gets its own lock, claim check, host slot and
    run, as in ``import_under_lock``; the locks and the fences are taken together
    (``batch_admission``). The feeds are admitted in turn, each one's fetch starting in a fetch
    thread as it is admitted (``batch_fetches``); then each is stored as its answer comes back,
    and the stored ones are finished together before the batch waits for the next answer
    (``Stored``: the unchanged feeds' writes in one statement, their slots and locks in one
    round trip). A crash is recorded on its feed and the batch goes on. A feed whose host is
    busy goes back as an ``import_feed`` of its own that waits a few seconds, unless the batch
    itself holds that host's slots: then it waits for the batch's next round of fetches. The
    feeds not started yet go back too when the lock cache is unreachable (they retry then), and
    when the soft ``time_limit`` (seconds) is near: no round of fetches starts once less than
    two fetch deadlines are left, so timeouts never add up to it. ``origin`` (who asked) goes on
    each feed's run.

    With ``leave_stragglers`` (a worker's batch), once nothing is left but
    fetches still out after ``PATIENCE``, those imports are left to the
    process's ``batch_stragglers`` (each keeps its lock and host slot), counted as
    "left to finish", and the batch returns: a dead server no longer holds the
    pool process for its fetch deadline.
    """
    options = {"task_name": task_name, "claim": claim, "time_limit": time_limit, "origin": origin}
    return Batch(urls, options, leave_stragglers).run()


class Round:
    """A batch's round of fetches: its imports, those admitted, those stored, those for later."""

    def __init__(self, urls, options):
        self.urls = urls
        self.imports = [FeedImport(url, **options) for url in urls]
        self.stored = Stored()  # the imports stored and not finished: their writes, their locks
        self.admitted = {}  # each fetch's Future -> its FeedImport
        self.later = []  # the URLs for the next round (their host's slots are this round's)

    def give_back(self, urls):
        """Close ``urls``' imports before they go back: their import_feed finds the lock free."""
        going = set(urls)
        for feed_import in [held for held in self.imports if held.url in going]:
            feed_import.close()


class Batch:
    """``run_batch``'s feeds, imported in rounds of fetches, and its counts of outcomes."""

    def __init__(self, urls, options, leave_stragglers):
        self.urls, self.options, self.leave_stragglers = urls, options, leave_stragglers
        self.claim, self.time_limit = options["claim"], options["time_limit"]
        self.origin = options["origin"]
        self.counts = Counter()
        self.left = set()  # imports left to the stragglers: theirs to close
        time_left = (self.time_limit or float("inf")) - 2 * fetch_deadline()
        self.stop_starting = time.monotonic() + time_left  # no round starts after it

    def run(self):
        """Run rounds until no feed is left; the counts of outcomes (JSON)."""
        waiting = list(self.urls)
        while waiting:
            if len(waiting) < len(self.urls) and time.monotonic() > self.stop_starting:
                self.send_back(waiting, "its time limit is near")
                break
            waiting = self.run_round(Round(waiting, self.options))
        return {str(outcome): count for outcome, count in self.counts.items()}

    def run_round(self, current):
        """Admit, fetch, store and finish ``current``; the URLs for the next round.

        At the soft time limit, the feeds admitted and not run go back, with
        the rest; what was stored is finished, even when the batch stops.
        """
        try:
            admit_round(self, current)
            self.store_answers(current)
        except SoftTimeLimitExceeded:
            rest = [held.url for held in current.admitted.values()] + current.later
            current.give_back(rest)
            self.send_back(rest, "it reached its time limit")
            return []
        finally:
            try:
                self.finish(current.stored)
            finally:
                for feed_import in current.imports:  # not run: their slots and locks go back
                    if feed_import not in self.left:
                        feed_import.close()
        return current.later

    def store_answers(self, current):
        """Store each admitted feed as its answer comes in (``FeedImport.store``).

        Those stored are finished before the batch waits for the next answer.
        With ``leave_stragglers`` and no feed for a next round, the fetches
        still out after ``PATIENCE`` are left to the process's stragglers.
        """
        admitted, stored = current.admitted, current.stored
        patience = PATIENCE if self.leave_stragglers and not current.later else None
        while admitted:
            answered, _ = wait(admitted, patience, return_when=FIRST_COMPLETED)
            if not answered:  # nothing stored is held now (finished below, last time)
                self.leave_to_stragglers(admitted)  # or wait again: they were too many
                continue
            for future in answered:
                feed_import = admitted.pop(future)
                try:
                    stored.add(feed_import, feed_import.store(later=stored.writes))
                except ImportCrashed:  # recorded on the feed and its run
                    self.counts[Outcome.FAILED] += 1
                    feed_import.close(stored.releases)
            if not any(next_one.done() for next_one in admitted):
                self.finish(stored)  # before waiting: nothing of theirs is held meanwhile

    def leave_to_stragglers(self, admitted):
        """Hand the imports of ``admitted`` over to the process's stragglers, if it takes them."""
        out = list(admitted.values())
        if stragglers().take(out, finish_left):
            self.left.update(out)
            self.counts["left to finish"] += len(out)
            admitted.clear()

    def finish(self, stored):
        """Finish the imports stored (``Stored.finish``) and count their outcomes."""
        for result in stored.finish():
            if result is None:  # stopped, and a newer import holds the feed
                self.counts[Outcome.FAILED] += 1
            else:
                self.tally(result)

    def tally(self, result):
        """Count an import's outcome, its line logged."""
        self.counts[logged_reply(result, logger)["status"]] += 1

    def send_back(self, rest, why, countdown=0.0):
        """Send ``rest`` back as ``import_feed`` tasks (``dispatch.send_back``); logged."""
        if not rest:
            return
        dispatch.send_back(rest, self.claim, self.origin.refresh_run, countdown=countdown)
        self.counts["sent back"] += len(rest)
        logger.warning("Batch of %d feeds: %s; %d sent back", len(self.urls), why, len(rest))
