"""A stored post's rows beside it: its enclosures and its category links, and the
categories themselves (shared by every feed), written in bulk for a batch of posts."""

from djangofeeds.models import Category, Enclosure, Post

# Category names per lookup query (a parameter list SQLite accepts).
CATEGORY_LOOKUP_BATCH = 500


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
