"""Bounded history: posts per feed (with re-imports), import runs, task results, the schedule."""

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from djangofeeds.importing import retention
from djangofeeds.models import Enclosure, Feed, ImportRun, Outcome, Post, PrunedPost, RefreshRun
from djangofeeds.parsing import entries
from localservers.feed_server import numbered_items, rss, with_media
from tests.factories import FeedFactory
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


def guids(feed_url):
    return list(Post.objects.filter(feed__url=feed_url).values_list("guid", flat=True))


def newest(count, start=0):
    return [f"item-{n}" for n in range(start, start + count)]


def test_import_past_the_bound_keeps_the_newest_posts(feed_server, settings):
    """An import past DJANGOFEEDS_KEEP_POSTS keeps the newest posts and says how many went."""
    settings.DJANGOFEEDS_KEEP_POSTS = 10
    url = feed_server.serve("/long.xml", rss(with_media(numbered_items(15))))

    run = import_url(url).run

    assert guids(url) == newest(10)
    assert run.created == 15
    assert "5 older posts pruned (keeping 10 per feed)" in run.warning
    assert Enclosure.objects.count() == 10  # the pruned posts' enclosures went with them
    assert Post.categories.through.objects.count() == 30


def test_pruned_posts_never_come_back_while_the_feed_lists_them(feed_server, settings):
    """The feed lists 15, 10 are kept: re-imports store nothing new and prune nothing."""
    settings.DJANGOFEEDS_KEEP_POSTS = 10
    url = feed_server.serve("/long.xml", rss(numbered_items(15)))
    import_url(url)
    kept_ids = set(Post.objects.values_list("pk", flat=True))

    for _ in range(2):
        run = import_url(url).run
        assert (run.created, run.updated) == (0, 0)
        assert "pruned" not in run.warning

    assert set(Post.objects.values_list("pk", flat=True)) == kept_ids


def test_new_posts_push_the_oldest_out_and_tombstones_follow_the_feed(feed_server, settings):
    """New posts push the oldest out; tombstones remember only what the feed still lists."""
    settings.DJANGOFEEDS_KEEP_POSTS = 10
    url = feed_server.serve("/long.xml", rss(numbered_items(15, start=2)))
    import_url(url)

    # Two new posts on top; the feed still lists its 15 newest.
    feed_server.serve("/long.xml", rss(numbered_items(15)))
    run = import_url(url).run

    assert run.created == 2
    assert guids(url) == newest(10)
    feed = Feed.objects.get(url=url)
    listed = {entries.sha256(guid) for guid in newest(15)}
    tombstones = set(feed.pruned_posts.values_list("guid_hash", flat=True))
    # Only what the feed still lists is remembered: item-15 and item-16 fell off its end.
    assert tombstones == {entries.sha256(guid) for guid in newest(5, start=10)}
    assert tombstones <= listed


def test_undated_posts_are_pruned_first_and_stay_pruned(feed_server, settings):
    """Undated posts are pruned first and the next import does not bring them back."""
    settings.DJANGOFEEDS_KEEP_POSTS = 4
    items = numbered_items(6)
    for item in items[:2]:
        del item["pubDate"]
    url = feed_server.serve("/undated.xml", rss(items))

    import_url(url)
    again = import_url(url).run

    assert guids(url) == newest(4, start=2)
    assert again.created == 0


def test_cleanup_prunes_every_feed_over_the_bound_in_batches(feed_server, settings):
    """Pruning all feeds cuts only those over the bound; the pruned posts stay gone."""
    url = feed_server.serve("/many.xml", rss(numbered_items(30)))
    import_url(url)
    small = feed_server.serve("/few.xml", rss(numbered_items(3, prefix="few")))
    import_url(small)
    settings.DJANGOFEEDS_KEEP_POSTS = 7

    feeds, posts = retention.prune_all_posts()

    assert (feeds, posts) == (1, 23)
    assert guids(url) == newest(7)
    assert len(guids(small)) == 3
    # And the next import does not bring the 23 back.
    assert import_url(url).run.created == 0


def test_prune_posts_deletes_in_batches(feed_server, django_assert_max_num_queries):
    """prune_posts deletes a feed's older posts in batches of the given size."""
    url = feed_server.serve("/many.xml", rss(numbered_items(25)))
    import_url(url)
    feed = Feed.objects.get(url=url)

    with django_assert_max_num_queries(100) as captured:
        pruned = retention.prune_posts(feed.pk, 4, batch_size=5)

    assert pruned == 21
    assert len(deletes_of(captured, "djangofeeds_post")) == 5  # 5 + 5 + 5 + 5 + 1
    assert guids(url) == newest(4)


def test_tombstones_are_bounded_by_what_a_feed_can_list(feed_server, monkeypatch):
    """A feed keeps at most MAX_ENTRIES tombstones, as many as it can list."""
    monkeypatch.setattr(entries, "MAX_ENTRIES", 8)
    url = feed_server.serve("/many.xml", rss(numbered_items(8)))
    import_url(url)
    feed = Feed.objects.get(url=url)

    retention.prune_posts(feed.pk, 0, batch_size=3)

    assert not Post.objects.exists()
    monkeypatch.setattr(entries, "MAX_ENTRIES", 5)
    feed_server.serve("/many.xml", rss(numbered_items(3, prefix="new")))
    import_url(url)
    retention.prune_posts(feed.pk, 0)
    assert PrunedPost.objects.filter(feed=feed).count() == 5


def runs(feed, ages_in_days):
    now = timezone.now()
    return [
        ImportRun.objects.create(
            feed=feed, outcome=Outcome.NOT_MODIFIED, started_at=now - timedelta(days=age)
        )
        for age in ages_in_days
    ]


def deletes_of(captured, table):
    start = f"DELETE FROM {connection.ops.quote_name(table)}"  # "…" or `…` (MariaDB/MySQL)
    return [q for q in captured.captured_queries if q["sql"].startswith(start)]


def test_run_retention_keeps_the_last_runs_of_each_feed_even_when_old(
    settings, django_assert_max_num_queries
):
    """Old import runs are deleted in batches, except each feed's last few."""
    settings.DJANGOFEEDS_KEEP_RUNS_DAYS = 7
    settings.DJANGOFEEDS_KEEP_RUNS_PER_FEED = 3
    busy, quiet, dead = FeedFactory(), FeedFactory(), FeedFactory()
    busy_runs = runs(busy, [0, 1, 2, 3, 4, 8, 9, 10, 30])
    quiet_runs = runs(quiet, [10, 20, 30, 40, 50])
    dead_runs = runs(dead, [100])

    with django_assert_max_num_queries(100) as captured:
        deleted = retention.prune_import_runs(batch_size=2)

    assert deleted == 4 + 2
    assert len(deletes_of(captured, "djangofeeds_importrun")) == 3  # batches of 2
    # Recent runs all stay; of the old ones, those among a feed's last three stay.
    assert set(busy.import_runs.all()) == set(busy_runs[:5])
    assert set(quiet.import_runs.all()) == set(quiet_runs[:3])
    assert list(dead.import_runs.all()) == dead_runs


def test_run_retention_works_across_feed_batches(settings, monkeypatch):
    """Run retention covers every feed when the feeds come in several batches."""
    monkeypatch.setattr(retention, "FEEDS_PER_BATCH", 2)
    feeds = FeedFactory.create_batch(5)
    for feed in feeds:
        runs(feed, [40, 50, 60])

    deleted = retention.prune_import_runs(days=30, per_feed=1)

    assert deleted == 10
    assert sorted(ImportRun.objects.values_list("feed_id", flat=True)) == [f.pk for f in feeds]


def test_finished_refresh_rounds_older_than_the_kept_days_are_deleted_and_their_runs_kept(settings):
    """Old finished rounds go in batches; open ones stay; their import runs only lose the round."""
    settings.DJANGOFEEDS_KEEP_RUNS_DAYS = 7
    now = timezone.now()
    feed = FeedFactory()
    old = [
        RefreshRun.objects.create(started_at=now - timedelta(days=d), finished_at=now, feeds=1)
        for d in (8, 9, 10)
    ]
    recent = RefreshRun.objects.create(started_at=now - timedelta(days=1), finished_at=now)
    still_open = RefreshRun.objects.create(started_at=now - timedelta(days=30))
    run = ImportRun.objects.create(feed=feed, outcome=Outcome.IMPORTED, refresh_run=old[0])

    assert retention.prune_refresh_runs(batch_size=2) == 3
    assert set(RefreshRun.objects.all()) == {recent, still_open}
    run.refresh_from_db()
    assert run.refresh_run is None


def task_result(task_id, age, task_name="djangofeeds.tasks.import_feed"):
    """A stored task result of ``task_name`` finished ``age`` seconds ago."""
    from django_celery_results.models import TaskResult

    result = TaskResult.objects.create(task_id=task_id, task_name=task_name, status="SUCCESS")
    TaskResult.objects.filter(pk=result.pk).update(
        date_done=timezone.now() - timedelta(seconds=age)
    )
    return result


@pytest.mark.project_wiring
def test_task_results_older_than_result_expires_are_deleted_in_batches(settings):
    """This app's task results older than CELERY_RESULT_EXPIRES are deleted in batches."""
    from django_celery_results.models import TaskResult

    settings.CELERY_RESULT_EXPIRES = 3600
    for number, age in enumerate([0, 10, 7200, 7300, 86400]):
        task_result(f"task-{number}", age)

    assert retention.prune_task_results(batch_size=2) == 3
    assert sorted(TaskResult.objects.values_list("task_id", flat=True)) == ["task-0", "task-1"]


@pytest.mark.project_wiring
def test_task_results_of_the_host_are_left_alone(settings):
    """The host's own old results (its tasks, another app's, a result stored without a
    name) are not this app's to delete: only djangofeeds.* results are pruned."""
    from django_celery_results.models import TaskResult

    settings.CELERY_RESULT_EXPIRES = 3600
    task_result("ours", 7200, "djangofeeds.tasks.cleanup")
    task_result("host", 7200, "project.tasks.add")
    task_result("blog", 7200, "blog.tasks.spam_filter")
    task_result("lookalike", 7200, "djangofeedsextra.tasks.sync")
    task_result("unnamed", 7200, None)

    assert retention.prune_task_results() == 1

    kept = sorted(TaskResult.objects.values_list("task_id", flat=True))
    assert kept == ["blog", "host", "lookalike", "unnamed"]


@pytest.mark.project_wiring
def test_task_results_without_django_celery_results_are_not_touched(settings):
    """Without django-celery-results installed the cleanup prunes no result and reports 0
    (import isolation, in a process where the library cannot load, is in
    tests/test_optional_dependencies.py)."""
    from django_celery_results.models import TaskResult

    settings.CELERY_RESULT_EXPIRES = 3600
    task_result("old", 7200)
    apps = [app for app in django_settings.INSTALLED_APPS if app != "django_celery_results"]

    with override_settings(INSTALLED_APPS=apps):
        assert retention.prune_task_results() == 0

    assert TaskResult.objects.filter(task_id="old").exists()


def test_cleanup_task_prunes_posts_runs_and_results(feed_server, settings):
    """The cleanup task prunes posts, import runs and results and sums them up."""
    from djangofeeds.tasks import cleanup

    url = feed_server.serve("/many.xml", rss(numbered_items(12)))
    import_url(url)
    feed = Feed.objects.get(url=url)
    runs(feed, [60, 61])
    settings.DJANGOFEEDS_KEEP_POSTS = 5
    settings.DJANGOFEEDS_KEEP_RUNS_PER_FEED = 1

    summary = cleanup.apply().get()

    assert summary == {
        "posts": 7,
        "feeds_pruned": 1,
        "import_runs": 2,
        "refresh_runs": 0,
        "health_changes": 0,
        "task_results": 0,
        # PostgreSQL: the posts kept, their search left by the import (no worker here).
        "search_indexed": 5 if connection.vendor == "postgresql" else 0,
    }
    assert feed.posts.count() == 5 and feed.import_runs.count() == 1


@pytest.mark.project_wiring
@pytest.mark.beat
def test_cleanup_and_result_expiry_are_on_the_beat_schedule(settings):
    """Cleanup runs hourly from beat, and results expire after a day."""
    from django_celery_beat.models import PeriodicTask

    from project.celery import app

    call_command("setup_schedules", verbosity=0)
    cleanup = PeriodicTask.objects.get(task="djangofeeds.tasks.cleanup")
    assert cleanup.enabled and cleanup.interval.every == 1 and cleanup.interval.period == "hours"
    assert app.conf.result_expires == settings.CELERY_RESULT_EXPIRES == 24 * 3600
    # With result_expires set, beat's DatabaseScheduler installs Celery's own daily
    # celery.backend_cleanup (django_celery_beat.schedulers.install_default_entries).
    assert hasattr(app.backend, "cleanup") and not app.backend.supports_autoexpire


def test_keep_posts_zero_means_no_bound(feed_server, settings):
    """DJANGOFEEDS_KEEP_POSTS = 0 keeps every post."""
    settings.DJANGOFEEDS_KEEP_POSTS = 0
    url = feed_server.serve("/all.xml", rss(numbered_items(12)))

    import_url(url)

    assert retention.prune_all_posts() == (0, 0)
    assert len(guids(url)) == 12


def test_cleanup_keeps_health_changes_for_90_days():
    """The record of health changes outlives the digest's week, but not for ever."""
    from djangofeeds.models import HealthChange

    feed = Feed.objects.create(url="https://example.com/feed")
    for days in (1, 89, 91, 400):
        HealthChange.objects.create(
            feed=feed,
            changed_at=timezone.now() - timedelta(days=days),
            old="ok",
            new="failing",
            reason=f"{days} days ago",
        )

    assert retention.prune_health_changes(batch_size=1) == 2

    kept = HealthChange.objects.order_by("reason").values_list("reason", flat=True)
    assert list(kept) == ["1 days ago", "89 days ago"]
