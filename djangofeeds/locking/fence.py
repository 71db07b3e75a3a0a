"""The fence: the one place a feed row is written under a fencing number.

Every acquisition of a feed's lock bumps ``Feed.fence`` (``next_fence``, or
``next_fences`` for a batch's locks); an import keeps the number it got, and
every write of the feed row it makes goes through ``write_fenced``,
conditional on that number still being the newest, so a stalled worker whose
lease ran out cannot overwrite what a newer import wrote. The statements
Django's ORM cannot say are ``locking.fence_statements``'.
"""

from django.db import OperationalError, connections, router, transaction
from django.db.models import F

from djangofeeds.locking.fence_statements import (
    bump_fences,
    insert_run_with_update,
    insert_runs_with_updates,
    plain,
)
from djangofeeds.models import Feed, ImportRun


class StaleFence(Exception):
    """A newer lock holder exists: this import must not write."""


def next_fence(url, *, using=None):
    """Create the feed if needed, give it a new fencing number, and return it.

    Called right after taking the feed's lock; ``feed.fence`` is the number
    this holder writes with. One ``UPDATE … RETURNING`` (a round trip, and
    the row's write lock for its duration) serialises this against the
    importer's fenced writes, so a stale holder either finished before this
    increment or sees it and is refused. MariaDB and MySQL have no
    ``UPDATE … RETURNING``: there the ``UPDATE`` and a read of the row run
    in one transaction, under the same write lock.
    """
    db = using or router.db_for_write(Feed)
    for _attempt in range(2):
        if connections[db].vendor == "mysql":
            with transaction.atomic(using=db):
                if Feed.objects.using(db).filter(url=url).update(fence=F("fence") + 1):
                    return Feed.objects.using(db).get(url=url)
        else:
            feed = next(iter(bump_fences(db, url)), None)
            if feed is not None:
                return feed
        try:
            Feed.objects.using(db).get_or_create(url=url)  # a feed seen for the first time
        except OperationalError as exc:
            # InnoDB may pick one of two connections creating the same new feed as a
            # deadlock's victim (1213): the other one created it, the next attempt bumps it.
            if not is_deadlock(exc):
                raise
    raise Feed.DoesNotExist(url)  # deleted between the two statements


def is_deadlock(exc):
    """Whether MariaDB or MySQL rolled the statement back as a deadlock's victim (error 1213)."""
    return bool(exc.args) and exc.args[0] == 1213


def next_fences(urls, *, using=None):
    """``next_fence`` for several feeds in one statement: ``{url: feed}``.

    The batch's path (``batch_admission.admit_together``), once it holds the feeds'
    locks. Feeds not found (seen for the first time) are left out: the
    caller takes theirs with ``next_fence``. MariaDB and MySQL, without
    ``UPDATE … RETURNING``, leave every feed to ``next_fence``.
    """
    db = using or router.db_for_write(Feed)
    if not urls or connections[db].vendor not in ("postgresql", "sqlite"):
        return {}
    return {feed.url: feed for feed in bump_fences(db, urls)}


def can_write_with_run(using=None):
    """Whether a run is saved in its feed's write's statement: PostgreSQL's data-modifying
    ``WITH`` (``write_fenced(run=...)``, ``write_fenced_together``)."""
    return connections[using or router.db_for_write(ImportRun)].vendor == "postgresql"


def write_fenced(feed, fence, *, run=None, later=None, only_if=None, **changes):
    """Update the feed row (and ``feed``) only while ``fence`` is the newest; else ``StaleFence``.

    Without a fence (a test, a benchmark) the write is not fenced. With
    ``run`` (an unsaved, finished ``ImportRun``), the run is saved with the
    write, and never without it: in the same statement on PostgreSQL
    (``can_write_with_run``), else right after it (the caller's transaction
    holds both). Returns the run: the saved one, a new instance when saved
    in the write's statement (the caller goes on with it); None without one.
    With ``later`` (a batch's ``batch.LaterWrites``) too, the write and its
    run are handed to it, to be sent with other imports' in one statement
    (``write_fenced_together``): a stale fence is then found there, and the
    run returned is not saved yet. ``only_if`` (a ``Q``, not with ``run``)
    is one more condition on the row: a row it leaves out is not written,
    nor ``feed``, and nothing is raised (a stale fence cannot be told apart).
    """
    if run is not None and only_if is not None:
        raise TypeError("write_fenced: a run is saved with an unconditional write only")
    if run is not None and can_write_with_run():
        if later is not None and fence is not None and all(map(plain, changes.values())):
            later.add(feed, fence, run, changes)
        else:
            db = router.db_for_write(ImportRun)
            run = insert_run_with_update(run, feed.pk, fence, changes, db)
            if run is None:
                raise StaleFence
    else:
        rows = Feed.objects.fenced(feed.pk, fence)
        if only_if is not None:
            rows = rows.filter(only_if)
        if changes and not rows.update(**changes):
            if only_if is not None:
                return None
            raise StaleFence
        if run is not None:
            run.save(force_insert=True)
    for name, value in changes.items():
        setattr(feed, name, value)
    return run


def write_fenced_together(writes, *, using=None):
    """Send the writes ``write_fenced`` handed to a batch (``later``): ``{feed id: run saved}``.

    ``writes`` are ``(run, feed's pk, fence, changes)``, the same columns
    changed in each, plain values: one statement for them all (PostgreSQL).
    A feed whose fence is no longer ``fence`` is left out, its run not saved.
    """
    return insert_runs_with_updates(writes, using or router.db_for_write(ImportRun))
