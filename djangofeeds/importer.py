"""The feed importer: fetch, parse, store, and record how it went. No Celery here."""

import logging
import time
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F, Value
from django.utils import timezone

from djangofeeds import conf
from djangofeeds.fetch import FeedGone, FetchError, fetch
from djangofeeds.models import Category, Enclosure, Feed, ImportRun, Outcome, Post, PrunedPost
from djangofeeds.parse import NotAFeed, body_hash, parse
from djangofeeds.retention import prune_posts
from djangofeeds.schedule import BACKOFF_CAP, backoff, poll_delay, publishing_rate
from djangofeeds.signals import feed_deactivated, feed_failing, posts_stored, send_on_commit

logger = logging.getLogger(__name__)

BATCH_SIZE = 100
# Stands for a pruned post's checksum: no real checksum (64 hex digits) equals it.
PRUNED = "pruned"
# Category names per lookup query (a parameter list SQLite accepts).
CATEGORY_LOOKUP_BATCH = 500
URL_MAX_LENGTH = Feed._meta.get_field("url").max_length
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
    # The response of a fetch that answered (for WebSub discovery), else None.
    fetched: object = None

    @property
    def outcome(self):
        return self.run.outcome


def fetch_and_store(feed, run=None, *, fence=None, progress=None):
    """Fetch, parse and store ``feed``; record the attempt in ``run``; return an ``ImportResult``.

    ``fence`` is the fencing number the caller got with the feed's lock
    (``Feed.objects.next_fence``): every write is conditional on it still being
    the newest (without one, the writes are not fenced: a test, a benchmark).
    ``run`` is the attempt's unsaved ``ImportRun`` (a new one if not given).
    Feed problems (HTTP errors, bad documents) are recorded and returned, not
    raised. ``progress(current, total)`` is called as posts are stored.
    """
    run = run or new_run(feed)
    importer = Importer(feed, run, fence, progress)
    try:
        result = importer.execute()
        result.fetched = importer.fetched
        return result
    except StaleFence:
        run.error = "a newer import of this feed took over (the lock's lease had run out)"
        logger.warning("import of %s refused: %s", feed.url, run.error)
        return finish(feed, run, Outcome.FAILED)


class Importer:
    def __init__(self, feed, run, fence, progress):
        self.feed, self.run, self.fence = feed, run, fence
        self.progress = progress or (lambda current, total: None)
        self.now = run.started_at
        self.first_import = False  # store_posts finds out
        self.updated_hashes = []  # guid hashes of the posts rewritten, for posts_stored
        self.fetched = None

    def execute(self):
        feed, run = self.feed, self.run
        started = time.perf_counter()
        try:
            fetched = fetch(feed.url, etag=feed.etag, last_modified=feed.last_modified)
        except FetchError as exc:
            run.fetch_ms = elapsed_ms(started)
            return self.failed(
                exc,
                transient=exc.transient,
                retry_after=exc.retry_after,
                deactivate=isinstance(exc, FeedGone),
                status=exc.status,
            )
        run.fetch_ms = elapsed_ms(started)
        self.fetched = fetched
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
                next_check_at=self.next_check(
                    max_age=fetched.max_age, rate=(feed.poll_interval, feed.newest_entry_at)
                ),
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
                # The pace the document showed when it was parsed, as for a 304.
                next_check_at=self.next_check(
                    max_age=fetched.max_age, rate=(feed.poll_interval, feed.newest_entry_at)
                ),
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
        run.created, run.updated = self.store_posts(parsed.entries, parsed.categories)
        pruned = self.prune(parsed.entries, run.created) if run.created else 0
        run.warning = "; ".join(filter(None, [run.warning, left_out(parsed, pruned)]))
        rate = publishing_rate(parsed.entries, self.now)
        self.save_feed(
            fetched,
            title=parsed.title or feed.title,
            link=parsed.link,
            description=parsed.description,
            body_hash=digest,
            last_status=Outcome.IMPORTED,
            last_http_status=fetched.status,
            poll_interval=rate[0],
            newest_entry_at=rate[1],
            next_check_at=self.next_check(
                max_age=fetched.max_age, ttl_minutes=parsed.ttl_minutes, rate=rate
            ),
        )
        run.store_ms = elapsed_ms(started)
        return self.imported()

    def imported(self):
        """Finish the run as imported; after commit, announce the posts it stored, if any."""
        feed, run = self.feed, self.run
        result = finish(feed, run, Outcome.IMPORTED)
        if run.created or run.updated:
            send_on_commit(
                posts_stored,
                Feed,
                feed=feed,
                run=run,
                # New posts carry this import's time; rewritten ones keep their first.
                created=feed.posts.filter(imported_at=self.now),
                updated=feed.posts.filter(guid_hash__in=self.updated_hashes),
            )
        return result

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
            claimed_at=None,  # the import is over: the scheduler may queue it again
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

    def store_posts(self, entries, feed_categories=()):
        """Upsert changed posts with their enclosures and categories, in batches.

        Returns (created, updated). Entries whose posts were pruned (they have
        a ``PrunedPost`` tombstone) are not stored again.
        """
        created = updated = 0
        total = len(entries)
        categories = category_ids([*feed_categories, *(c for e in entries for c in e.categories)])
        tombstoned = False
        # A feed never imported before usually has no posts (nor tombstones): one
        # query says so, instead of one SELECT of known guids per batch.
        first = self.feed.last_success_at is None and not self.feed.posts.exists()
        self.first_import = first
        for start in range(0, total or 1, BATCH_SIZE):  # once for an empty feed (its categories)
            batch = entries[start : start + BATCH_SIZE]
            hashes = [e.guid_hash for e in batch]
            # Each batch is its own transaction, so progress is visible to
            # others and a long import does not hold the database's write lock.
            with transaction.atomic():
                self.claim(last_checked_at=self.now)
                known = {} if first else self.known_posts(hashes)
                changed = [e for e in batch if known.get(e.guid_hash) not in (e.checksum, PRUNED)]
                tombstoned = tombstoned or PRUNED in known.values()
                if changed:
                    stored = Post.objects.upsert(
                        [self.post(entry) for entry in changed], update_fields=POST_FIELDS
                    )
                    store_media(stored, changed, categories, replace=known.keys())
                if start + BATCH_SIZE >= total:
                    self.feed.categories.set([categories[pair] for pair in feed_categories])
                    if tombstoned:  # tombstones of entries the feed stopped listing are done
                        listed = [e.guid_hash for e in entries]
                        PrunedPost.objects.filter(feed=self.feed).exclude(
                            guid_hash__in=listed
                        ).delete()
            rewritten = [e.guid_hash for e in changed if e.guid_hash in known]
            self.updated_hashes += rewritten
            created += len(changed) - len(rewritten)
            updated += len(rewritten)
            if total > BATCH_SIZE:  # one batch has no "meanwhile" to report (and costs a write)
                self.progress(min(start + BATCH_SIZE, total), total)
        return created, updated

    def known_posts(self, hashes):
        """``{guid_hash: checksum}`` of stored posts, and ``PRUNED`` for pruned ones: one query."""
        posts = Post.objects.filter(feed=self.feed, guid_hash__in=hashes).order_by()
        pruned = PrunedPost.objects.filter(feed=self.feed, guid_hash__in=hashes)
        return dict(
            posts.values_list("guid_hash", "checksum").union(
                pruned.values_list("guid_hash", Value(PRUNED)), all=True
            )
        )

    def prune(self, entries, created):
        """Keep the feed's ``DJANGOFEEDS_KEEP_POSTS`` newest posts; return how many went."""
        if conf.DJANGOFEEDS_KEEP_POSTS <= 0:  # 0: no bound
            return 0
        if self.first_import and created <= conf.DJANGOFEEDS_KEEP_POSTS:
            return 0  # the feed holds only the posts it just created: none to prune
        return prune_posts(
            self.feed.pk,
            conf.DJANGOFEEDS_KEEP_POSTS,
            listed={entry.guid_hash for entry in entries},
            guard=lambda: self.claim(last_checked_at=self.now),
        )

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
        errors = feed.error_count + 1
        run.error = str(error)
        run.http_status = status
        changes = {
            "claimed_at": None,
            "last_checked_at": self.now,
            "last_status": Outcome.FAILED,
            "last_http_status": status,
            "last_error": run.error,
            "error_count": F("error_count") + 1,
            "next_check_at": self.next_check(retry_after=retry_after, errors=errors),
        }
        was_active = feed.is_active
        if deactivate:
            changes["is_active"] = False
        self.claim(**changes)
        feed.error_count = errors
        logger.warning("import of %s failed: %s", feed.url, run.error)
        result = finish(feed, run, Outcome.FAILED)
        result.transient, result.retry_after = transient, retry_after
        if errors == 1:
            send_on_commit(feed_failing, Feed, feed=feed, run=run, error=run.error)
        if deactivate and was_active:
            send_on_commit(feed_deactivated, Feed, feed=feed, run=run, reason=run.error)
        return result

    def next_check(
        self, *, errors=0, max_age=None, ttl_minutes=None, retry_after=None, rate=(None, None)
    ):
        """Next check: the feed's own pace or a backoff, pushed later (never earlier) by the server.

        ``rate`` is ``(poll_interval, newest_entry_at)``, see ``publishing_rate``.
        """
        delay = backoff(errors) if errors else poll_delay(*rate, now=self.now)
        for seconds in (max_age, retry_after, ttl_minutes and ttl_minutes * 60):
            if seconds:
                # Capped first: a server's 10**15 seconds must not overflow timedelta.
                delay = max(delay, timedelta(seconds=min(seconds, BACKOFF_CAP.total_seconds())))
        return self.now + min(delay, BACKOFF_CAP)


def category_ids(pairs):
    """``{(name, domain): id}`` for the given pairs, creating the missing categories.

    Looked up first: a re-import finds them all and writes nothing.
    """
    pairs = set(pairs)
    ids = find_categories(pairs)
    missing = pairs - ids.keys()
    if missing:
        # Categories are shared by every feed: created outside any feed's fence.
        Category.objects.bulk_create(
            [Category(name=name, domain=domain) for name, domain in missing],
            ignore_conflicts=True,
        )
        ids |= find_categories(missing)
        # A case- or accent-insensitive collation (MariaDB's and MySQL's
        # defaults) holds "Python" and "python" as one row: the one it has.
        for name, domain in missing - ids.keys():
            ids[name, domain] = Category.objects.get(name=name, domain=domain).pk
    return ids


def find_categories(pairs):
    ids = {}
    names = sorted({name for name, _ in pairs})
    for start in range(0, len(names), CATEGORY_LOOKUP_BATCH):
        found = Category.objects.filter(name__in=names[start : start + CATEGORY_LOOKUP_BATCH])
        for pk, name, domain in found.values_list("pk", "name", "domain"):
            if (name, domain) in pairs:
                ids[name, domain] = pk
    return ids


def store_media(posts, entries, categories, *, replace=()):
    """Write the enclosures and category links of freshly upserted ``posts`` (pks set).

    Posts whose guid hash is in ``replace`` existed before: their old
    enclosures and links go first. The caller's transaction holds the fence.
    """
    PostCategory = Post.categories.through
    existing = [post.pk for post in posts if post.guid_hash in replace]
    if existing:
        Enclosure.objects.filter(post_id__in=existing).delete()
        PostCategory.objects.filter(post_id__in=existing).delete()
    enclosures = [
        Enclosure(post_id=post.pk, url=item.url, type=item.type, length=item.length)
        for post, entry in zip(posts, entries, strict=True)
        for item in entry.enclosures
    ]
    if enclosures:
        Enclosure.objects.bulk_create(enclosures)
    # A set: two pairs may share a row (see category_ids), a link is unique.
    links = [
        PostCategory(post_id=post_id, category_id=category_id)
        for post_id, category_id in {
            (post.pk, categories[pair])
            for post, entry in zip(posts, entries, strict=True)
            for pair in entry.categories
        }
    ]
    if links:
        PostCategory.objects.bulk_create(links)


def left_out(parsed, pruned):
    """The run's note on what normalization dropped and retention pruned ("" if nothing)."""
    notes = [f"{count:,} {reason}" for reason, count in parsed.all_dropped().most_common()]
    if pruned:
        notes.append(
            f"{pruned:,} older posts pruned (keeping {conf.DJANGOFEEDS_KEEP_POSTS:,} per feed)"
        )
    return f"left out: {', '.join(notes)}" if notes else ""


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


def new_run(feed, task_id="", worker="", refresh_run=None, **fields):
    """An attempt's ``ImportRun``, saved by ``finish``."""
    return ImportRun(
        feed=feed,
        task_id=task_id or "",
        worker=worker or "",
        refresh_run_id=refresh_run,
        started_at=timezone.now(),
        **fields,
    )


def elapsed_ms(started):
    return int((time.perf_counter() - started) * 1000)
