"""Bounded history: posts per feed, import runs, task results. Deletes in batches.

The importer prunes its feed's posts after an import that passes
``DJANGOFEEDS_KEEP_POSTS``; ``djangofeeds.tasks.cleanup`` (hourly, beat) runs
``cleanup`` for every feed, the import runs and this app's own task results. No
Celery here.
"""

import logging
from datetime import timedelta

from django.apps import apps
from django.db import transaction
from django.db.models import Count, F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from djangofeeds import conf
from djangofeeds.models import (
    Enclosure,
    Feed,
    HealthChange,
    ImportRun,
    Post,
    PrunedPost,
    RefreshRun,
)
from djangofeeds.parsing import entries
from djangofeeds.stories.grouping import hand_over

logger = logging.getLogger(__name__)

# Rows deleted per statement (and per transaction): short locks, bounded memory.
DELETE_BATCH = 1000
# Feeds looked at per query when counting posts or ranking import runs.
FEEDS_PER_BATCH = 500
POST_ORDER = Post._meta.ordering  # newest first, undated last
# The names of this app's tasks: the only task results the cleanup deletes.
TASK_PREFIX = "djangofeeds."


def prune_posts(feed_id, keep, *, listed=None, guard=None, batch_size=DELETE_BATCH):
    """Delete the posts of feed ``feed_id`` past its ``keep`` newest; return how many.

    A pruned post leaves a ``PrunedPost`` tombstone so that the importer does
    not store it as new while the feed still lists it: only for the guid
    hashes in ``listed`` when the caller knows what the feed lists (the
    importer), else for each, and never more than ``entries.MAX_ENTRIES`` per
    feed (a feed never lists more). ``guard()`` runs first in each batch's
    transaction (the importer's fencing check).
    """
    pruned = 0
    while True:
        with transaction.atomic():
            if guard is not None:
                guard()
            rows = list(
                Post.objects.filter(feed_id=feed_id)
                .order_by(*POST_ORDER)
                .values_list("pk", "guid_hash")[keep : keep + batch_size]
            )
            if not rows:
                break
            now = timezone.now()
            tombstones = [
                PrunedPost(feed_id=feed_id, guid_hash=guid_hash, pruned_at=now)
                for _, guid_hash in rows
                if listed is None or guid_hash in listed
            ]
            PrunedPost.objects.bulk_create(tombstones, ignore_conflicts=True)
            delete_posts([pk for pk, _ in rows])
        pruned += len(rows)
        if len(rows) < batch_size:
            break
    if pruned:
        surplus = PrunedPost.objects.filter(feed_id=feed_id).order_by("-pruned_at", "-pk")
        surplus = list(surplus.values_list("pk", flat=True)[entries.MAX_ENTRIES :])
        if surplus:
            PrunedPost.objects.filter(pk__in=surplus).delete()
    return pruned


def delete_posts(pks):
    """Delete posts with their enclosures and category links, without loading the posts."""
    Enclosure.objects.filter(post_id__in=pks).delete()
    Post.categories.through.objects.filter(post_id__in=pks).delete()
    # A story one of these leads passes to its next post (still shown once).
    hand_over(pks)
    # Nothing else points at a post now: one DELETE, no collector reading the rows.
    Post.objects.filter(pk__in=pks)._raw_delete(Post.objects.db)


def prune_all_posts(keep=None):
    """``prune_posts`` for every feed over the bound; return ``(feeds, posts)`` pruned."""
    keep = conf.DJANGOFEEDS_KEEP_POSTS if keep is None else keep
    feeds = posts = 0
    if keep <= 0:  # 0: no bound
        return feeds, posts
    for feed_ids in feed_id_batches():
        over = (
            Post.objects.filter(feed_id__in=feed_ids)
            .values("feed_id")
            .annotate(count=Count("pk"))
            .filter(count__gt=keep)
            .values_list("feed_id", flat=True)
        )
        for feed_id in over:
            feeds += 1
            posts += prune_posts(feed_id, keep)
    return feeds, posts


def prune_import_runs(days=None, per_feed=None, *, batch_size=DELETE_BATCH):
    """Delete import runs older than ``days``, except the last ``per_feed`` of each feed.

    Returns how many were deleted.
    """
    days = conf.DJANGOFEEDS_KEEP_RUNS_DAYS if days is None else days
    per_feed = conf.DJANGOFEEDS_KEEP_RUNS_PER_FEED if per_feed is None else per_feed
    cutoff = timezone.now() - timedelta(days=days)
    deleted = 0
    for feed_ids in feed_id_batches():
        # Ranked over all of a feed's runs; the age filter applies outside the
        # ranking (inside, the last K would be counted among the old runs only).
        beyond_last = (
            ImportRun.objects.filter(feed_id__in=feed_ids)
            .annotate(
                rank=Window(
                    RowNumber(),
                    partition_by=[F("feed_id")],
                    order_by=[F("started_at").desc(), F("id").desc()],
                )
            )
            .filter(rank__gt=per_feed)
            .values("pk")
        )
        old = ImportRun.objects.filter(started_at__lt=cutoff, pk__in=beyond_last)
        while pks := list(old.values_list("pk", flat=True)[:batch_size]):
            deleted += ImportRun.objects.filter(pk__in=pks).delete()[0]
    return deleted


def prune_refresh_runs(days=None, *, batch_size=DELETE_BATCH):
    """Delete finished refresh rounds older than ``days``; return how many.

    A tick that queues anything writes one (every 5 s at most); their import
    runs stay, with the round left empty.
    """
    days = conf.DJANGOFEEDS_KEEP_RUNS_DAYS if days is None else days
    cutoff = timezone.now() - timedelta(days=days)
    old = RefreshRun.objects.filter(finished_at__isnull=False, started_at__lt=cutoff)
    deleted = 0
    while pks := list(old.order_by("pk").values_list("pk", flat=True)[:batch_size]):
        deleted += RefreshRun.objects.filter(pk__in=pks).delete()[1].get(RefreshRun._meta.label, 0)
    return deleted


# Health changes are few (one per change of state): kept a quarter, well past the digest's week.
HEALTH_CHANGES_KEPT = timedelta(days=90)


def prune_health_changes(*, batch_size=DELETE_BATCH):
    """Delete the records of health changes older than ``HEALTH_CHANGES_KEPT``; how many."""
    old = HealthChange.objects.filter(changed_at__lt=timezone.now() - HEALTH_CHANGES_KEPT)
    deleted = 0
    while pks := list(old.order_by("pk").values_list("pk", flat=True)[:batch_size]):
        deleted += HealthChange.objects.filter(pk__in=pks).delete()[0]
    return deleted


def prune_task_results(*, batch_size=DELETE_BATCH, expires=None):
    """Delete this app's task results older than ``CELERY_RESULT_EXPIRES`` seconds; return how many.

    Only results whose task name starts with ``djangofeeds.`` (the host's other
    results are the host's: Celery's own ``celery.backend_cleanup`` sweeps those),
    and only when django-celery-results is installed; otherwise 0, without
    importing it. A result stored without its name (``CELERY_RESULT_EXTENDED``
    off) is not known to be ours and is left alone.
    """
    if not apps.is_installed("django_celery_results"):
        return 0
    from django_celery_results.models import TaskResult

    seconds = conf.CELERY_RESULT_EXPIRES if expires is None else expires
    if not seconds:
        return 0
    cutoff = timezone.now() - timedelta(seconds=seconds)
    expired = TaskResult.objects.filter(
        task_name__startswith=TASK_PREFIX, date_done__lt=cutoff
    ).values_list("pk", flat=True)
    deleted = 0
    while pks := list(expired[:batch_size]):
        deleted += TaskResult.objects.filter(pk__in=pks).delete()[0]
    return deleted


def feed_id_batches(size=FEEDS_PER_BATCH):
    """Every feed's id, in ascending batches of ``size`` (one indexed query each)."""
    last = 0
    while True:
        ids = list(
            Feed.objects.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:size]
        )
        if not ids:
            return
        yield ids
        last = ids[-1]


def cleanup():
    """Prune posts, import runs and task results; return what was deleted (logged too)."""
    feeds, posts = prune_all_posts()
    summary = {
        "posts": posts,
        "feeds_pruned": feeds,
        "import_runs": prune_import_runs(),
        "refresh_runs": prune_refresh_runs(),
        "health_changes": prune_health_changes(),
        "task_results": prune_task_results(),
    }
    logger.info("cleanup deleted %s", summary)
    return summary
