"""The fenced feed write: a change to a feed row that only the newest lock holder may make.

Every acquisition of a feed's lock bumps ``Feed.fence`` (``Feed.objects.next_fence``);
an import keeps the number it got, and each of its writes to the feed is
conditional on it still being the newest, so a stalled worker whose lease ran
out cannot overwrite what a newer import wrote.
"""

from djangofeeds.models import Feed, ImportRun
from djangofeeds.models.runs import plain


class StaleFence(Exception):
    """A newer lock holder exists: this import must not write."""


def write_fenced(feed, fence, *, run=None, later=None, **changes):
    """Update the feed row (and ``feed``) only while ``fence`` is the newest; else ``StaleFence``.

    Without a fence (a test, a benchmark) the write is not fenced. With
    ``run`` (an unsaved, finished ``ImportRun``), the run is saved with the
    write, and never without it: in the same statement on PostgreSQL
    (``ImportRun.objects.insert_with_update``), else right after it (the
    caller's transaction holds both). With ``later`` (a batch's
    ``batches.LaterWrites``) too, the write and its run are handed to it,
    to be sent with other imports' in one statement (PostgreSQL): a stale
    fence is then found there.
    """
    if run is not None and ImportRun.objects.can_insert_with_update():
        if later is not None and fence is not None and all(map(plain, changes.values())):
            later.add(feed, fence, run, changes)
        elif not ImportRun.objects.insert_with_update(run, feed.pk, fence, changes):
            raise StaleFence
    else:
        if changes and not Feed.objects.fenced(feed.pk, fence).update(**changes):
            raise StaleFence
        if run is not None:
            run.save(force_insert=True)
    for name, value in changes.items():
        setattr(feed, name, value)
