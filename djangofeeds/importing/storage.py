"""Storing a document's posts: upserts in batches, their media and categories, retention.

Each batch is written under the import's fence (``guard``), so a stale import
stops at its next batch; categories are shared by every feed and written
outside any fence.
"""

import logging

from django.db import models, transaction
from django.db.models import Value

from djangofeeds import conf
from djangofeeds.importing.judging import ImportRules
from djangofeeds.importing.media_rows import category_ids, store_media
from djangofeeds.importing.retention import prune_posts
from djangofeeds.importing.upsert import upsert_posts
from djangofeeds.importing.versions import PRUNED, Stored, earlier_checksums, replaces
from djangofeeds.models import Post, PrunedPost
from djangofeeds.parsing.entries import sha256
from djangofeeds.search import indexing
from djangofeeds.stories.grouping import leads
from djangofeeds.stories.keys import story_key

logger = logging.getLogger(__name__)

BATCH_SIZE = 100
# A first import has no stored posts to compare with: bigger batches, fewer commits
# and fenced writes (still bounded, so a huge feed does not hold one long transaction).
FIRST_IMPORT_BATCH_SIZE = 1_000
POST_FIELDS = [
    "guid",
    "title",
    "link",
    "author",
    "content",
    "published_at",
    "updated_at",
    # A podcast's details (parsing.podcasts.PodcastDetails).
    "duration",
    "image_url",
    "season",
    "episode",
    "explicit",
    "transcript_url",
    "transcript_type",
    "chapters_url",
    "checksum",
    "earlier_checksums",
    # The rules' verdict (importing.judging), given again to a rewritten post.
    "is_blocked",
    "blocked_by",
]


class PostStore:
    """One import's writes of a feed's posts, each batch under ``guard`` (the fence)."""

    def __init__(self, feed, now, guard, progress=None):
        self.feed, self.now, self.guard = feed, now, guard
        self.progress = progress or (lambda current, total: None)
        self.first_import = False  # store finds out
        self.updated_hashes = []  # guid hashes of the posts rewritten, for posts_stored
        self.rules = ImportRules(feed)
        # The batch's story keys by guid hash, and the posts of other feeds they repeat by key.
        self.stories, self.repeats = {}, {}
        # PostgreSQL: the posts' search vectors are left to index_posts, after the import.
        self.defer_search = indexing.deferrable()

    def store(self, entries, feed_categories=(), finish=None):
        """Upsert changed posts with their enclosures and categories, in batches.

        Batches of ``BATCH_SIZE`` (of ``FIRST_IMPORT_BATCH_SIZE`` when the feed
        has no posts yet). Entries whose posts were pruned (they have a
        ``PrunedPost`` tombstone) are not stored again. Returns (created,
        updated); with ``finish``, prunes and returns ``finish(created, updated,
        pruned)``, called in the last batch's transaction when there is nothing
        to prune (the import's last writes commit with its last posts).
        """
        created = updated = 0
        total = len(entries)
        categories = category_ids([*feed_categories, *(c for e in entries for c in e.categories)])
        tombstoned = False
        # A feed never imported before usually has no posts (nor tombstones): one
        # query says so, instead of one SELECT of known guids per batch.
        first = self.feed.last_success_at is None and not self.feed.posts.exists()
        self.first_import = first
        size = FIRST_IMPORT_BATCH_SIZE if first else BATCH_SIZE
        finished = None
        for start in range(0, total or 1, size):  # once for an empty feed (its categories)
            batch = entries[start : start + size]
            hashes = [e.guid_hash for e in batch]
            # Each batch is its own transaction, so progress is visible to
            # others and a long import does not hold the database's write lock.
            with transaction.atomic():
                self.guard()
                # Entries whose guid earlier releases gave otherwise: their posts move over.
                formers = (
                    {} if first else {sha256(e.former_guid): e for e in batch if e.former_guid}
                )
                known = {} if first else self.known_posts([*hashes, *formers])
                if formers:
                    self.move_to_new_guids(formers, known)
                changed = [e for e in batch if replaces(known.get(e.guid_hash), e)]
                tombstoned = tombstoned or any(k.checksum == PRUNED for k in known.values())
                self.log_older(batch, known)
                if changed:
                    self.stories = {e.guid_hash: story_key_of(e) for e in changed}
                    self.repeats = leads(self.feed, self.stories.values())
                    posts = [self.post(entry, known.get(entry.guid_hash)) for entry in changed]
                    stored = self.upsert(posts)
                    store_media(stored, changed, categories, replace=known.keys())
                rewritten = [e.guid_hash for e in changed if e.guid_hash in known]
                self.updated_hashes += rewritten
                created += len(changed) - len(rewritten)
                updated += len(rewritten)
                if start + size >= total:
                    if feed_categories or not first:  # a new feed has no links to clear
                        self.feed.categories.set([categories[p] for p in feed_categories])
                    if tombstoned:  # tombstones of entries the feed stopped listing are done
                        listed = [e.guid_hash for e in entries]
                        PrunedPost.objects.filter(feed=self.feed).exclude(
                            guid_hash__in=listed
                        ).delete()
                    if finish is not None and not self.prunes(created):
                        finished = [finish(created, updated, 0)]
            if total > size:  # one batch has no "meanwhile" to report (and costs a write)
                self.progress(min(start + size, total), total)
        if self.defer_search and created + updated:
            indexing.index_later(self.feed.pk)  # after the import's commit
        if finish is None:
            return created, updated
        if finished is not None:
            return finished[0]
        return finish(created, updated, self.prune(entries, created))

    def upsert(self, posts):
        """``upsert_posts`` of the import's fields, their search vectors deferred where they are."""
        if not self.defer_search:
            return upsert_posts(posts, update_fields=POST_FIELDS)
        indexing.defer(True)
        stored = upsert_posts(posts, update_fields=POST_FIELDS)
        # Off again: a caller's later writes in the same transaction (a test's) index at once.
        indexing.defer(False)
        return stored

    def known_posts(self, hashes):
        """``{guid_hash: Stored}`` of stored posts, and of tombstones (``PRUNED``): one query."""
        # Unordered, each part and the whole: Django 6.1 keeps a model's Meta.ordering in a
        # union, on columns the union does not select (a DatabaseError); 5.2 dropped it.
        posts = Post.objects.filter(feed=self.feed, guid_hash__in=hashes).order_by()
        pruned = PrunedPost.objects.filter(feed=self.feed, guid_hash__in=hashes).order_by()
        known = posts.values_list("guid_hash", "checksum", "updated_at", "earlier_checksums")
        known = known.union(
            pruned.values_list(
                "guid_hash",
                Value(PRUNED),
                Value(None, output_field=models.DateTimeField()),
                Value(""),
            ),
            all=True,
        )
        return {guid_hash: Stored(*rest) for guid_hash, *rest in known.order_by()}

    def log_older(self, batch, known):
        """Say which entries are kept out for being older than their posts (``replaces``)."""
        for entry in batch:
            stored = known.get(entry.guid_hash)
            changed = stored and stored.checksum not in (entry.checksum, PRUNED)
            if changed and not replaces(stored, entry):
                logger.info("Feed %s: post %s kept, the entry is older", self.feed.url, entry.guid)

    def move_to_new_guids(self, formers, known):
        """Give posts (and tombstones) stored under a former guid their entry's new one.

        ``formers``: ``{former guid hash: entry}`` (``ParsedEntry.former_guid``);
        ``known`` (``known_posts``) is updated to match. An upgrade to new guid
        rules then rewrites no post as new: an episode once identified by a hash
        of its title keeps its post when its enclosure's URL identifies it.
        """
        for former, entry in formers.items():
            if former not in known or entry.guid_hash in known:
                continue  # nothing under the former guid, or both exist already
            if known[former].checksum == PRUNED:
                PrunedPost.objects.filter(feed=self.feed, guid_hash=former).update(
                    guid_hash=entry.guid_hash
                )
            else:
                Post.objects.filter(feed=self.feed, guid_hash=former).update(
                    guid=entry.guid, guid_hash=entry.guid_hash
                )
            known[entry.guid_hash] = known.pop(former)

    def prunes(self, created):
        """Whether ``created`` new posts may take the feed past ``DJANGOFEEDS_KEEP_POSTS``."""
        keep = conf.DJANGOFEEDS_KEEP_POSTS
        # 0: no bound; a first import within it holds only the posts it just created.
        return bool(created) and keep > 0 and not (self.first_import and created <= keep)

    def prune(self, entries, created):
        """Keep the feed's ``DJANGOFEEDS_KEEP_POSTS`` newest posts; return how many went."""
        if not self.prunes(created):
            return 0
        return prune_posts(
            self.feed.pk,
            conf.DJANGOFEEDS_KEEP_POSTS,
            listed={entry.guid_hash for entry in entries},
            guard=self.guard,
        )

    def post(self, entry, stored=None):
        is_blocked, blocked_by = self.rules.state(entry)
        story = self.stories[entry.guid_hash]
        values = {
            "id": None,
            "feed_id": self.feed.pk,
            "guid": entry.guid,
            "guid_hash": entry.guid_hash,
            "title": entry.title,
            "link": entry.link,
            "author": entry.author,
            "content": entry.content,
            "published_at": entry.published_at,
            "updated_at": entry.updated_at,
            "checksum": entry.checksum,
            "earlier_checksums": earlier_checksums(stored),
            "imported_at": self.now,
            "duration": entry.podcast.duration,
            "image_url": entry.podcast.image_url,
            "season": entry.podcast.season,
            "episode": entry.podcast.episode,
            "explicit": entry.podcast.explicit,
            "transcript_url": entry.podcast.transcript_url,
            "transcript_type": entry.podcast.transcript_type,
            "chapters_url": entry.podcast.chapters_url,
            "is_blocked": is_blocked,
            "blocked_by_id": blocked_by,
            # A new post's story (a rewritten one keeps its own: not in POST_FIELDS).
            "story_key": story,
            "duplicate_of_id": self.repeats.get(story),
        }
        # Positional, in the model's column order: Model.__init__'s fast path (the
        # keyword one cost a 50-item first import about 1 ms in the worker).
        return Post(*(values[field.attname] for field in Post._meta.concrete_fields))


def story_key_of(entry):
    return story_key(entry.link, entry.guid, entry.original_link)
