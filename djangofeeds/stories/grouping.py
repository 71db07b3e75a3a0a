"""Stories in the database: the post of another feed that a new post repeats (its lead),
and splitting a post from its story (the admin's action)."""

from djangofeeds.models import Post


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
    """Take ``posts`` out of their stories: each is shown on its own again, and so are the
    posts that repeated one of them; none is grouped again. How many were split."""
    pks = list(posts.values_list("pk", flat=True))
    freed = Post.objects.filter(duplicate_of__in=pks).update(duplicate_of=None)
    return Post.objects.filter(pk__in=pks).update(duplicate_of=None, story_key="") + freed
