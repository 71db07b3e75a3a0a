"""Stories in the database: the post of another feed that a new post repeats (its lead),
what becomes of a story when its lead is deleted, grouping the posts stored before stories
existed, and splitting a post from its story (the admin's action).

A story's posts are in one form whatever made them: its lead is its oldest post (the
smallest pk) and has no ``duplicate_of``; the posts of other feeds repeat the lead; the
lead's own feed's other posts with the key stand on their own (a feed is never one story
with itself). ``settle`` puts stories back in that form.
"""

from django.db import connections, router, transaction

from djangofeeds.models import Post
from djangofeeds.stories.keys import story_key

# The story key of a post split from its story: no link's key (those are hex), so the post
# is never grouped again, and ``group_stored`` (which reads the posts without a key) skips it.
SPLIT = "-"


def leads(feed, keys):
    """``{story key: pk}`` of the first post of another feed with each key: the post each
    new post with that key repeats. One query (``story_key`` is indexed)."""
    keys = {key for key in keys if key}
    if not keys:
        return {}
    rows = (
        Post.objects.filter(story_key__in=keys, duplicate_of__isnull=True)
        .exclude(feed=feed)
        .order_by("-pk")
        .values_list("story_key", "pk")
    )
    return dict(rows)  # the smallest pk of each key, written last


def split(posts):
    """Take ``posts`` out of their stories for good: each is shown on its own again, and
    a story one of them led passes to its next post (``hand_over``). How many posts
    changed story."""
    pks = list(posts.values_list("pk", flat=True))
    moved = hand_over(pks)
    return Post.objects.filter(pk__in=pks).update(duplicate_of=None, story_key=SPLIT) + moved


def hand_over(posts):
    """Before ``posts`` (pks or a queryset) are deleted: each story one of them leads passes
    to its next post, so that it is still shown once. How many posts changed story."""
    repeats = Post.objects.filter(duplicate_of__in=posts).exclude(pk__in=posts)
    moves = settle(set(repeats.values_list("story_key", flat=True)), leaving=posts)
    write({}, moves)
    return len(moves)


def feed_deleted(sender, instance, **kwargs):
    """``pre_delete`` of a feed: the stories its posts lead pass on (``hand_over``)."""
    hand_over(instance.posts.all())


def settle(keys, leaving=(), keying=()):
    """What puts the stories of ``keys`` in the module's form: ``{pk: duplicate_of}`` of
    the posts to change. Without the posts ``leaving`` (pks or a queryset: posts about to
    be deleted); with ``keying``, rows ``(pk, key, feed_id, duplicate_of)`` of posts about
    to be given their key. One read."""
    rows = Post.objects.filter(story_key__in=keys).exclude(pk__in=leaving)
    rows = rows.values_list("pk", "story_key", "feed_id", "duplicate_of_id")
    stories = {}
    for pk, key, feed_id, duplicate_of in sorted([*rows, *keying]):
        stories.setdefault(key, []).append((pk, feed_id, duplicate_of))
    moves = {}
    for posts in stories.values():
        lead, lead_feed, _ = posts[0]
        for pk, feed_id, duplicate_of in posts:
            # The lead, and its own feed's other posts, stand alone; the rest repeat it.
            wanted = None if feed_id == lead_feed else lead
            if duplicate_of != wanted:
                moves[pk] = wanted
    return moves


def write(keys, moves):
    """Give posts their story key (``keys``, ``{pk: key}``) and their lead (``moves``,
    ``{pk: duplicate_of}``): one UPDATE for all, each column a CASE on the pk (Django's
    ``bulk_update`` built the same statement about 50 times slower)."""
    pks = sorted(keys.keys() | moves.keys())
    if not pks:
        return
    connection = connections[router.db_for_write(Post)]
    quote = connection.ops.quote_name
    table, pk = quote(Post._meta.db_table), quote(Post._meta.pk.column)
    sets, params = [], []
    for column, values in (("story_key", keys), ("duplicate_of_id", moves)):
        if values:
            whens = " ".join(["WHEN %s THEN %s"] * len(values))
            sets.append(f"{quote(column)} = CASE {pk} {whens} ELSE {quote(column)} END")
            params += [value for item in values.items() for value in item]
    where = ", ".join(["%s"] * len(pks))
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {', '.join(sets)} WHERE {pk} IN ({where})", params + pks
        )


def group_stored(batch_size=1000, progress=None):
    """Give the posts stored without a story key (before migration 0020) theirs, and group
    them with the posts that share it, oldest first. Batches of ``batch_size`` posts by pk,
    two queries and one write each; ``progress(keyed, grouped)`` after each. Returns
    ``(posts keyed, posts that changed story)``.

    A stored post's key comes from its link and guid (its ``feedburner:origLink`` was
    not stored). Running it again is harmless: a post whose link gives no key stays
    without one."""
    last = keyed = grouped = 0
    while True:
        batch = list(
            Post.objects.filter(story_key="", pk__gt=last)
            .order_by("pk")
            .values_list("pk", "link", "guid", "feed_id", "duplicate_of_id")[:batch_size]
        )
        if not batch:
            return keyed, grouped
        last = batch[-1][0]
        keying = [
            (pk, story_key(link, guid), feed_id, duplicate_of)
            for pk, link, guid, feed_id, duplicate_of in batch
        ]
        keying = [row for row in keying if row[1]]
        keys = {pk: key for pk, key, _, _ in keying}
        moves = settle(set(keys.values()), keying=keying)
        with transaction.atomic(using=router.db_for_write(Post)):
            write(keys, moves)
        keyed, grouped = keyed + len(keys), grouped + len(moves)
        if progress:
            progress(keyed, grouped)
