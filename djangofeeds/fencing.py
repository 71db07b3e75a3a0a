"""The fenced feed write: a change to a feed row that only the newest lock holder may make.

Every acquisition of a feed's lock bumps ``Feed.fence`` (``Feed.objects.next_fence``);
an import keeps the number it got, and each of its writes to the feed is
conditional on it still being the newest, so a stalled worker whose lease ran
out cannot overwrite what a newer import wrote.
"""

from djangofeeds.models import Feed


class StaleFence(Exception):
    """A newer lock holder exists: this import must not write."""


def write_fenced(feed, fence, **changes):
    """Update the feed row (and ``feed``) only while ``fence`` is the newest; else ``StaleFence``.

    Without a fence (a test, a benchmark) the write is not fenced.
    """
    rows = Feed.objects.filter(pk=feed.pk)
    if fence is not None:
        rows = rows.filter(fence=fence)
    if changes and not rows.update(**changes):
        raise StaleFence
    for name, value in changes.items():
        setattr(feed, name, value)
