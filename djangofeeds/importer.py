"""The feed importer: fetch, parse, store, and record how it went. No Celery here."""

import logging
import random
import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from djangofeeds.fetch import FeedGone, FetchError, fetch
from djangofeeds.models import Feed, ImportRun, Outcome, Post
from djangofeeds.parse import NotAFeed, body_hash, parse

logger = logging.getLogger(__name__)

BATCH_SIZE = 100
URL_MAX_LENGTH = Feed._meta.get_field("url").max_length
BACKOFF_BASE = timedelta(minutes=5)
BACKOFF_CAP = timedelta(hours=24)
# Feeds that failed together should not all be retried together: spread the
# backoff by ±20%, and capped backoffs over the cap's last 5%.
BACKOFF_JITTER = 0.2
CAPPED_JITTER = 0.05
POST_FIELDS = [
    "guid",
    "title",
    "link",
    "author",
    "content",
    "published_at",
    "updated_at",
    "checksum",
]


class StaleFence(Exception):
    """A newer lock holder exists: this import must not write."""


@dataclass
class ImportResult:
    """How one import attempt ended; ``run`` is its ``ImportRun`` row."""

    feed: Feed
    run: ImportRun
    transient: bool = False  # a failure that may succeed if tried again soon
    retry_after: int | None = None

    @property
    def outcome(self):
        return self.run.outcome

    def as_dict(self):
        """The task's return value (JSON)."""
        result = {
            "status": self.run.outcome,
            "url": self.feed.url,
            "created": self.run.created,
            "updated": self.run.updated,
        }
        if self.run.error:
            result["error"] = self.run.error
        return result


def failed_result(url, error):
    """The task's return value (JSON) for an import that ended without an ``ImportResult``."""
    return {"status": Outcome.FAILED, "url": url, "created": 0, "updated": 0, "error": error}


def import_feed(url, *, fenced=None, task_id="", worker="", progress=None, retry=False):
    """Import the feed at ``url`` (creating its ``Feed`` row); return an ``ImportResult``.

    ``fenced`` is the ``Feed`` the caller got from ``Feed.objects.next_fence``
    with the feed's lock: every write is conditional on its fencing number
    still being the newest. Feed problems (HTTP errors, bad
    documents) are recorded and returned, not raised. ``progress(current,
    total)`` is called as posts are stored. ``retry`` marks a task's retry of
    an attempt that already counted its error: it fails without counting again,
    so one outage does not multiply the feed's backoff.
    """
    if fenced is not None:
        feed, fence = fenced, fenced.fence
    else:
        (feed, _), fence = Feed.objects.get_or_create(url=url), None
    run = ImportRun(
        feed=feed, task_id=task_id or "", worker=worker or "", started_at=timezone.now()
    )
    try:
        return Importer(feed, run, fence, progress, retry).execute()
    except StaleFence:
        run.error = "a newer import of this feed took over (the lock's lease had run out)"
        logger.warning("import of %s refused: %s", url, run.error)
        return finish(feed, run, Outcome.FAILED)


class Importer:
    def __init__(self, feed, run, fence, progress, retry=False):
        self.feed, self.run, self.fence, self.retry = feed, run, fence, retry
        self.progress = progress or (lambda current, total: None)
        self.now = run.started_at

    def execute(self):
        feed, run = self.feed, self.run
        started = time.perf_counter()
        try:
            fetched = fetch(feed.url, etag=feed.etag, last_modified=feed.last_modified)
        except FetchError as exc:
            run.fetch_ms = elapsed_ms(started)
            return self.failed(exc, transient=exc.transient, retry_after=exc.retry_after,
                               deactivate=isinstance(exc, FeedGone), status=exc.status)  # fmt: skip
        run.fetch_ms = elapsed_ms(started)
        run.http_status = fetched.status
        run.bytes_received = len(fetched.body)
        duplicate_of = self.moved_to_another_feed(fetched.permanent_url)
        if duplicate_of:
            error = (
                f"moved permanently to {fetched.permanent_url}, which is already feed "
                f"#{duplicate_of.pk}: this one is deactivated"
            )
            return self.failed(error, status=fetched.status, deactivate=True)

        if fetched.not_modified:
            self.save_feed(
                fetched,
                last_status=Outcome.NOT_MODIFIED,
                last_http_status=304,
                next_check_at=self.next_check(max_age=fetched.max_age),
            )
            return finish(feed, run, Outcome.NOT_MODIFIED)

        content_type = fetched.headers.get("content-type", "")
        digest = body_hash(fetched.body, url=fetched.url, content_type=content_type)
        if digest == feed.body_hash:
            # The bytes stored last time: parsing them again would store nothing new.
            self.save_feed(
                fetched,
                last_status=Outcome.NOT_MODIFIED,
                last_http_status=fetched.status,
                next_check_at=self.next_check(max_age=fetched.max_age),
            )
            return finish(feed, run, Outcome.NOT_MODIFIED)

        started = time.perf_counter()
        try:
            parsed = parse(fetched.body, url=fetched.url, content_type=content_type)
        except NotAFeed as exc:
            run.parse_ms = elapsed_ms(started)
            return self.failed(exc, status=fetched.status)
        run.parse_ms = elapsed_ms(started)
        run.warning = parsed.warning

        started = time.perf_counter()
        run.created, run.updated = self.store_posts(parsed.entries)
        self.save_feed(
            fetched,
            title=parsed.title or feed.title,
            link=parsed.link,
            description=parsed.description,
            body_hash=digest,
            last_status=Outcome.IMPORTED,
            last_http_status=fetched.status,
            next_check_at=self.next_check(max_age=fetched.max_age, ttl_minutes=parsed.ttl_minutes),
        )
        run.store_ms = elapsed_ms(started)
        return finish(feed, run, Outcome.IMPORTED)

    def claim(self, **changes):
        """Update the feed row, only while our fencing number is the newest."""
        rows = Feed.objects.filter(pk=self.feed.pk)
        if self.fence is not None:
            rows = rows.filter(fence=self.fence)
        if changes and not rows.update(**changes):
            raise StaleFence
        for name, value in changes.items():
            setattr(self.feed, name, value)

    def moved_to_another_feed(self, new_url):
        """The other feed a permanent redirect leads to, if there is one (this one duplicates it).

        Happens when a task or a command still names a feed's old URL after
        the feed moved: importing it again would create a second copy.
        """
        if not new_url or new_url == self.feed.url:
            return None
        return Feed.objects.filter(url=new_url).exclude(pk=self.feed.pk).first()

    def save_feed(self, fetched, **changes):
        """Claim what a successful fetch tells about the feed, under its new URL if it moved."""
        changes.update(
            last_checked_at=self.now,
            last_success_at=self.now,
            last_error="",
            error_count=0,
            **validators(fetched),
        )
        new_url = fetched.permanent_url
        if not new_url or new_url == self.feed.url or len(new_url) > URL_MAX_LENGTH:
            self.claim(**changes)
            return
        old_url = self.feed.url
        try:
            with transaction.atomic():
                self.claim(url=new_url, **changes)
        except IntegrityError:  # another feed took the URL since moved_to_another_feed looked
            logger.warning("feed %s moved permanently to %s, already a feed", old_url, new_url)
            self.claim(**changes)
        else:
            logger.info("feed %s moved permanently to %s", old_url, new_url)

    def store_posts(self, entries):
        """Upsert in batches (a SELECT and one bulk upsert each); return (created, updated)."""
        created = updated = 0
        total = len(entries)
        # A feed never imported before usually has no posts: one query says so,
        # instead of one SELECT of known guids per batch.
        first = self.feed.last_success_at is None and not self.feed.posts.exists()
        for start in range(0, total, BATCH_SIZE):
            batch = entries[start : start + BATCH_SIZE]
            # Each batch is its own transaction, so progress is visible to
            # others and a long import does not hold the database's write lock.
            with transaction.atomic():
                self.claim(last_checked_at=self.now)
                known = {} if first else dict(
                    Post.objects.filter(feed=self.feed, guid_hash__in=[e.guid_hash for e in batch])
                    .values_list("guid_hash", "checksum")
                )  # fmt: skip
                changed = [e for e in batch if known.get(e.guid_hash) != e.checksum]
                if changed:
                    Post.objects.bulk_create(
                        [self.post(entry) for entry in changed],
                        update_conflicts=True,
                        unique_fields=["feed", "guid_hash"],
                        update_fields=POST_FIELDS,
                    )
            created += sum(1 for e in changed if e.guid_hash not in known)
            updated += sum(1 for e in changed if e.guid_hash in known)
            if total > BATCH_SIZE:  # one batch has no "meanwhile" to report (and costs a write)
                self.progress(min(start + BATCH_SIZE, total), total)
        return created, updated

    def post(self, entry):
        return Post(
            feed=self.feed,
            guid=entry.guid,
            guid_hash=entry.guid_hash,
            title=entry.title,
            link=entry.link,
            author=entry.author,
            content=entry.content,
            published_at=entry.published_at,
            updated_at=entry.updated_at,
            checksum=entry.checksum,
            imported_at=self.now,
        )

    def failed(self, error, *, transient=False, retry_after=None, deactivate=False, status=None):
        """Record a failed attempt on the feed (backing off) and in the run."""
        feed, run = self.feed, self.run
        counted = 0 if self.retry and feed.error_count else 1
        errors = feed.error_count + counted
        run.error = str(error)
        run.http_status = status
        changes = {
            "last_checked_at": self.now,
            "last_status": Outcome.FAILED,
            "last_http_status": status,
            "last_error": run.error,
            "error_count": F("error_count") + counted,
            "next_check_at": self.next_check(retry_after=retry_after, errors=errors),
        }
        if deactivate:
            changes["is_active"] = False
        self.claim(**changes)
        feed.error_count = errors
        logger.warning("import of %s failed: %s", feed.url, run.error)
        result = finish(feed, run, Outcome.FAILED)
        result.transient, result.retry_after = transient, retry_after
        return result

    def next_check(self, *, errors=0, max_age=None, ttl_minutes=None, retry_after=None):
        """Next check: the interval or a backoff, pushed later (never earlier) by the server."""
        if errors:
            delay = backoff(errors)
        else:
            delay = timedelta(seconds=settings.DJANGOFEEDS_REFRESH_INTERVAL)
        for seconds in (max_age, retry_after, ttl_minutes and ttl_minutes * 60):
            if seconds:
                # Capped first: a server's 10**15 seconds must not overflow timedelta.
                delay = max(delay, timedelta(seconds=min(seconds, BACKOFF_CAP.total_seconds())))
        return self.now + min(delay, BACKOFF_CAP)


def backoff(errors):
    """How long a feed with ``errors`` consecutive failures waits: doubling, jittered, capped."""
    # The exponent is bounded: a feed failing for months must not overflow timedelta.
    delay = BACKOFF_BASE * 2 ** min(errors - 1, 20)
    return min(
        delay * random.uniform(1 - BACKOFF_JITTER, 1 + BACKOFF_JITTER),
        BACKOFF_CAP * random.uniform(1 - CAPPED_JITTER, 1),
    )


def validators(fetched):
    """The conditional-GET validators to keep.

    A 200 replaces them (a server that stopped sending an ETag must not be
    asked with the old one); a 304 may update them, and keeps the others.
    """
    names = {"etag": ("etag", 500), "last_modified": ("last-modified", 100)}
    if fetched.not_modified:
        return {
            field: fetched.headers[header][:limit]
            for field, (header, limit) in names.items()
            if header in fetched.headers
        }
    return {
        field: fetched.headers.get(header, "")[:limit] for field, (header, limit) in names.items()
    }


def finish(feed, run, outcome):
    run.outcome = outcome
    run.finished_at = timezone.now()
    run.save(force_insert=True)
    return ImportResult(feed=feed, run=run)


def record_attempt(url, outcome, *, error="", task_id="", worker=""):
    """Record an attempt that never reached the feed (lock held, lock cache down)."""
    feed, _ = Feed.objects.get_or_create(url=url)
    now = timezone.now()
    run = ImportRun(
        feed=feed, task_id=task_id or "", worker=worker or "", started_at=now, error=error
    )
    return finish(feed, run, outcome)


def record_crash(url, error, *, task_id="", worker=""):
    """Record an attempt that ended with an unexpected error (a bug, a time limit)."""
    feed = Feed.objects.filter(url=url).first()
    if feed is None:
        return None
    now = timezone.now()
    # Backing off matters most here: a feed that always times out would
    # otherwise take a worker for the whole time limit at every refresh.
    Feed.objects.filter(pk=feed.pk).update(
        last_checked_at=now,
        last_status=Outcome.FAILED,
        last_error=error,
        error_count=F("error_count") + 1,
        next_check_at=now + backoff(feed.error_count + 1),
    )
    run = ImportRun(
        feed=feed, task_id=task_id or "", worker=worker or "", started_at=now, error=error
    )
    return finish(feed, run, Outcome.FAILED)


def elapsed_ms(started):
    return int((time.perf_counter() - started) * 1000)
