"""Storing a document's posts: upserts in batches, their media and categories, retention.

Each batch is written under the import's fence (``guard``), so a stale import
stops at its next batch; categories are shared by every feed and written
outside any fence.
"""

from django.db import transaction
from django.db.models import Value

from djangofeeds import conf
from djangofeeds.importing.retention import prune_posts
from djangofeeds.importing.upsert import upsert_posts
from djangofeeds.models import Category, Enclosure, Post, PrunedPost

BATCH_SIZE = 100
# A first import has no stored posts to compare with: bigger batches, fewer commits
# and fenced writes (still bounded, so a huge feed does not hold one long transaction).
FIRST_IMPORT_BATCH_SIZE = 1_000
# Stands for a pruned post's checksum: no real checksum (64 hex digits) equals it.
PRUNED = "pruned"
# Category names per lookup query (a parameter list SQLite accepts).
CATEGORY_LOOKUP_BATCH = 500
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


class PostStore:
    """One import's writes of a feed's posts, each batch under ``guard`` (the fence)."""

    def __init__(self, feed, now, guard, progress=None):
        self.feed, self.now, self.guard = feed, now, guard
        self.progress = progress or (lambda current, total: None)
        self.first_import = False  # store finds out
        self.updated_hashes = []  # guid hashes of the posts rewritten, for posts_stored

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
                known = {} if first else self.known_posts(hashes)
                changed = [e for e in batch if known.get(e.guid_hash) not in (e.checksum, PRUNED)]
                tombstoned = tombstoned or PRUNED in known.values()
                if changed:
                    stored = upsert_posts(
                        [self.post(entry) for entry in changed], update_fields=POST_FIELDS
                    )
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
        if finish is None:
            return created, updated
        if finished is not None:
            return finished[0]
        return finish(created, updated, self.prune(entries, created))

    def known_posts(self, hashes):
        """``{guid_hash: checksum}`` of stored posts, and ``PRUNED`` for pruned ones: one query."""
        # Unordered, each part and the whole: Django 6.1 keeps a model's Meta.ordering in a
        # union, on columns the union does not select (a DatabaseError); 5.2 dropped it.
        posts = Post.objects.filter(feed=self.feed, guid_hash__in=hashes).order_by()
        pruned = PrunedPost.objects.filter(feed=self.feed, guid_hash__in=hashes).order_by()
        known = posts.values_list("guid_hash", "checksum").union(
            pruned.values_list("guid_hash", Value(PRUNED)), all=True
        )
        return dict(known.order_by())

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

    def post(self, entry):
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
            "imported_at": self.now,
        }
        # Positional, in the model's column order: Model.__init__'s fast path (the
        # keyword one cost a 50-item first import about 1 ms in the worker).
        return Post(*(values[field.attname] for field in Post._meta.concrete_fields))


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
