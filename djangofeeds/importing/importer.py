"""The feed importer: fetch, parse, store, and record how it went. No Celery here.

The importer orchestrates; its pieces are beside it: ``storage`` (posts),
``answers`` (what a fetch tells about the feed), ``pacing`` (the next check),
``claims`` and ``locking.fence`` (the feed's fenced writes), ``records`` (the record).
"""

import logging
import time
from contextlib import nullcontext
from typing import NamedTuple

from django.db import transaction
from django.utils import timezone

from djangofeeds import conf
from djangofeeds.fetching.http import FeedGone, Fetched, FetchError, fetch
from djangofeeds.importing.answers import moved_to_another_feed, save_fetched
from djangofeeds.importing.pacing import next_check, publishing_rate, usual_interval
from djangofeeds.importing.records import (
    BY_HAND,
    ImportResult,
    finish_run,
    record_failure,
    record_refused,
    start_run,
)
from djangofeeds.importing.storage import PostStore
from djangofeeds.locking.fence import StaleFence, can_write_with_run, write_fenced
from djangofeeds.models import Feed, Health, Outcome
from djangofeeds.parsing.entries import ParsedFeed
from djangofeeds.parsing.readers import NotAFeed, body_hash, parse
from djangofeeds.signals import posts_stored, send_on_commit

logger = logging.getLogger(__name__)


def fetch_and_store(feed, *, fence=None, progress=None, prefetch=None, later=None, origin=BY_HAND):
    """Fetch, parse and store ``feed``; record the attempt in its run; return an ``ImportResult``.

    ``fence`` is the fencing number the caller got with the feed's lock
    (``fence.next_fence``): every write is conditional on it still being
    the newest (without one, the writes are not fenced: a test, a benchmark).
    ``origin`` (who asked, ``records.ImportOrigin``) goes on the attempt's ``ImportRun``.
    Feed problems (HTTP errors, bad documents) are recorded and returned, not
    raised. ``progress(current, total)`` is called as posts are stored.
    ``prefetch`` is the feed's fetch already under way (``batch_fetches.Prefetch``:
    a batch fetches its feeds together) or made (``EarlierFetch``); the run
    starts when it started.
    ``later`` (a batch's ``batch.LaterWrites``) takes the last write of a
    feed found unchanged, to send it with other feeds' (``write_fenced``).
    """
    run = start_run(feed, origin)
    if prefetch is not None:
        run.started_at = prefetch.started_at
    return Importer(feed, run, fence, progress, prefetch, later).attempt()


class FetchAnswer(NamedTuple):
    """A fetch's outcome: what came back, or the ``FetchError``; and its milliseconds.

    ``parsed``: the document's reading, when whoever fetched it read it already.
    """

    fetched: Fetched | None
    error: FetchError | None
    ms: int
    parsed: ParsedFeed | None = None


class EarlierFetch:
    """A feed's fetch made before its import, and its reading: discovery's, when a person
    adds a feed and imports it at once (``addfeed --import``). Given to the import as
    its ``prefetch``, it spares a second request and a second parse of the same bytes."""

    def __init__(self, fetched, parsed=None, ms=0):
        self.started_at = timezone.now()
        self._answer = FetchAnswer(fetched, None, ms, parsed)

    def answer(self):
        return self._answer


def fetch_answer(url, etag="", last_modified=""):
    """``fetch`` ``url``, its feed problems returned as a ``FetchAnswer`` rather than raised."""
    started = time.perf_counter()
    try:
        fetched = fetch(url, etag=etag, last_modified=last_modified)
    except FetchError as exc:
        return FetchAnswer(None, exc, elapsed_ms(started))
    return FetchAnswer(fetched, None, elapsed_ms(started))


class Importer:
    """One import of a feed under its fence: fetch, store what changed, write the feed's state."""

    def __init__(self, feed, run, fence, progress=None, prefetch=None, later=None):
        self.feed, self.run, self.fence, self.later = feed, run, fence, later
        self.now = run.started_at
        self.posts = PostStore(feed, self.now, self.hold_fence, progress)
        self.prefetch = prefetch
        self.fetched = self.parsed = None

    def write(self, **changes):
        """Update the feed row, only while our fencing number is the newest."""
        write_fenced(self.feed, self.fence, **changes)

    def hold_fence(self):
        """A write that checks the fence, before each batch of posts: a stale import stops there."""
        self.write(last_checked_at=self.now)

    def attempt(self):
        """``execute``, its run failed when a newer import takes the feed over meanwhile."""
        try:
            result = self.execute()
        except StaleFence:
            return self.refused()
        result.fetched = self.fetched
        return result

    def refused(self):
        """Fail the run: a newer import took the feed over, its writes were refused."""
        return record_refused(self.feed, self.run)

    def execute(self):
        feed, run = self.feed, self.run
        if self.prefetch is None:
            answer = fetch_answer(feed.url, etag=feed.etag, last_modified=feed.last_modified)
        else:
            answer = self.prefetch.answer()
        run.fetch_ms = answer.ms
        if answer.error is not None:
            exc = answer.error
            return self.failed(
                exc,
                transient=exc.transient,
                retry_after=exc.retry_after,
                status=exc.status,
                health=Health.GONE if isinstance(exc, FeedGone) else None,
            )
        fetched = self.fetched = answer.fetched
        self.parsed = answer.parsed
        run.http_status = fetched.status
        run.bytes_received = len(fetched.body)
        duplicate_of = moved_to_another_feed(feed, fetched.permanent_url)
        if duplicate_of:
            error = (
                f"moved permanently to {fetched.permanent_url}, which is already feed "
                f"#{duplicate_of.pk}: this one is deactivated"
            )
            return self.failed(error, status=fetched.status, health=Health.MOVED)
        if fetched.not_modified:
            return self.unchanged(fetched, 304)
        content_type = fetched.headers.get("content-type", "")
        digest = body_hash(fetched.body, url=fetched.url, content_type=content_type)
        if digest == feed.body_hash:
            # The bytes stored last time: parsing them again would store nothing new.
            return self.unchanged(fetched, fetched.status)
        return self.store(fetched, content_type, digest)

    def unchanged(self, fetched, http_status):
        """Not modified (a 304, or last time's bytes): paced as the document was when parsed.

        The run is saved with the feed's write: on PostgreSQL both are one
        statement, which needs no transaction of its own (the commonest import
        is this one; docs/dev/performance.md), and which ``later`` may send with
        other feeds' (a batch's).
        """
        feed, run, rate = self.feed, self.run, (self.feed.poll_interval, self.feed.newest_entry_at)
        run.outcome, run.finished_at = Outcome.NOT_MODIFIED, timezone.now()
        one_statement = can_write_with_run()
        with nullcontext() if one_statement else one_commit():
            later = self.later if one_statement else None
            status = Outcome.NOT_MODIFIED
            run = self.save(
                fetched, status, rate, run=run, later=later, last_http_status=http_status
            )
        return ImportResult(feed=feed, run=run)

    def save(self, fetched, status, rate, *, ttl_minutes=None, **changes):
        """The feed after an answer, with its next check: one fenced write (``save_fetched``);
        the run, if given, as saved with it (``write_fenced``)."""
        pace = next_check(self.now, max_age=fetched.max_age, ttl_minutes=ttl_minutes, rate=rate)
        changes |= {"now": self.now, "last_status": status, "next_check_at": pace}
        return save_fetched(self.feed, self.fence, fetched, **changes)

    def store(self, fetched, content_type, digest):
        """Parse the new document and store its posts, the feed's new pace and details."""
        feed, run = self.feed, self.run
        started = time.perf_counter()
        try:
            parsed = self.parsed  # read already by discovery (EarlierFetch), or now
            if parsed is None:
                parsed = parse(fetched.body, url=fetched.url, content_type=content_type)
        except NotAFeed as exc:
            run.parse_ms = elapsed_ms(started)
            return self.failed(exc, status=fetched.status)
        run.parse_ms = elapsed_ms(started)
        run.warning = parsed.warning

        started = time.perf_counter()

        def finish(created, updated, pruned):
            # In the last batch's transaction when nothing was to be pruned.
            run.created, run.updated = created, updated
            held = self.posts.rules.note()  # posts the rules had no time to judge
            run.warning = "; ".join(filter(None, [run.warning, left_out(parsed, pruned), held]))
            rate = publishing_rate(parsed.entries, self.now)
            with one_commit():
                # The run is saved with the feed's write: one statement on PostgreSQL.
                run.outcome, run.finished_at = Outcome.IMPORTED, timezone.now()
                run.store_ms = elapsed_ms(started)
                self.run = self.save(
                    fetched,
                    Outcome.IMPORTED,
                    rate,
                    run=run,
                    ttl_minutes=parsed.ttl_minutes,
                    title=parsed.title or feed.title,
                    link=parsed.link,
                    description=parsed.description,
                    image_url=parsed.image_url,
                    body_hash=digest,
                    last_http_status=fetched.status,
                    poll_interval=rate[0],
                    newest_entry_at=rate[1],
                    entry_interval=usual_interval(parsed.entries, self.now),
                )
                return self.imported()

        return self.posts.store(parsed.entries, parsed.categories, finish=finish)

    def imported(self):
        """Finish the run as imported (unless saved with the feed's write already); after
        commit, announce the posts it stored, if any."""
        feed, run = self.feed, self.run
        if run.pk is None:
            result = finish_run(feed, run, Outcome.IMPORTED)
        else:
            result = ImportResult(feed=feed, run=run)
        # Its querysets cost a first import more than its whole run's INSERT: built for a listener.
        if (run.created or run.updated) and posts_stored.has_listeners(Feed):
            send_on_commit(
                posts_stored,
                Feed,
                feed=feed,
                run=run,
                # New posts carry this import's time; rewritten ones keep their first.
                created=feed.posts.filter(imported_at=self.now),
                updated=feed.posts.filter(guid_hash__in=self.posts.updated_hashes),
            )
        return result

    def failed(self, error, *, transient=False, retry_after=None, status=None, health=None):
        """Record a failed attempt on the feed (backing off) and in the run.

        ``health`` ``gone`` (a 410) or ``moved`` (to another feed's URL) deactivates the feed.
        """
        feed, run = self.feed, self.run
        run.http_status = status
        changes = {"last_http_status": status, **({"is_active": False} if health else {})}
        result = record_failure(
            feed, run, self.fence, error, retry_after=retry_after, health=health, **changes
        )
        logger.warning("import of %s failed: %s", feed.url, run.error)
        result.transient, result.retry_after = transient, retry_after
        return result


def left_out(parsed, pruned):
    """The run's note on what normalization dropped and retention pruned ("" if nothing)."""
    notes = [f"{count:,} {reason}" for reason, count in parsed.all_dropped().most_common()]
    if pruned:
        notes.append(
            f"{pruned:,} older posts pruned (keeping {conf.DJANGOFEEDS_KEEP_POSTS:,} per feed)"
        )
    return f"left out: {', '.join(notes)}" if notes else ""


def one_commit():
    """The feed's last write and the run's INSERT in one transaction: one commit, not two.

    Inside a caller's transaction they are already together (a savepoint would
    only add statements).
    """
    return nullcontext() if transaction.get_connection().in_atomic_block else transaction.atomic()


def elapsed_ms(started):
    """Milliseconds since ``started``, rounded: truncated, each phase lost half a millisecond."""
    return round((time.perf_counter() - started) * 1000)
