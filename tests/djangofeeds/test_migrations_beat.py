"""The apps' migrations without django-celery-beat: a database of this project moves on
with its beat entries, and an operator's edits, kept.

The database is first built with the migrations as they were before issue 21
(tests/support/migrations_before_21: they depended on beat and wrote its entries),
then migrated with today's, and ``setup_schedules`` is run, as ``make run`` and the
compose file's migrate service do.
"""

import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.project_wiring,
    pytest.mark.beat,
]

BEFORE_21 = {
    "djangofeeds": "tests.support.migrations_before_21.djangofeeds",
    "blog": "tests.support.migrations_before_21.blog",
}
# The snapshot's migrations, by number: djangofeeds' up to 0006, blog's up to 0003.
OLD_NUMBERS = {
    "djangofeeds": tuple(f"{n:04d}_" for n in range(1, 7)),
    "blog": tuple(f"{n:04d}_" for n in range(1, 4)),
}
TICK = "djangofeeds: import due feeds"
RENEWAL = "djangofeeds: renew WebSub subscriptions"
DIGEST = "djangofeeds: mail the weekly feed health digest"


def migrate(*targets):
    executor = MigrationExecutor(connection)
    executor.loader.check_consistent_history(connection)
    plan = executor.migration_plan(list(targets))
    executor.migrate(list(targets))
    return plan


def beat_leaf():
    return MigrationExecutor(connection).loader.graph.leaf_nodes("django_celery_beat")[0]


def schedule_rows():
    """Every beat entry and interval, with every field."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    return (
        list(PeriodicTask.objects.order_by("name").values()),
        list(IntervalSchedule.objects.order_by("pk").values()),
    )


def entries():
    from django_celery_beat.models import PeriodicTask

    return {
        task.name: (task.task, task.interval.every, task.interval.period, task.expire_seconds)
        for task in PeriodicTask.objects.select_related("interval")
    }


@pytest.fixture
def unmigrated():
    """djangofeeds, blog and beat unapplied; the database is back at today's latest after."""
    migrate(("djangofeeds", None), ("blog", None), ("django_celery_beat", None))
    yield
    call_command("migrate", verbosity=0)


def setup_schedules():
    out = io.StringIO()
    call_command("setup_schedules", stdout=out)
    return out.getvalue()


def test_migrations_keep_an_existing_databases_beat_entries_and_edits(unmigrated):
    """A database migrated before issue 21 (tick every 5 s, hourly cleanup, the blog's two,
    an operator's edit, a host's own entry) needs no new migration, and neither migrate
    nor setup_schedules changes or deletes any of its beat rows."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    with override_settings(MIGRATION_MODULES=BEFORE_21):
        migrate(
            beat_leaf(), ("djangofeeds", "0006_feed_body_hash"), ("blog", "0003_beat_schedules")
        )
    assert entries() == {
        TICK: ("djangofeeds.tasks.refresh_feeds", 5, "seconds", 4),
        "djangofeeds: prune old posts, import runs and task results": (
            "djangofeeds.tasks.cleanup",
            1,
            "hours",
            3000,
        ),
        "blog: re-check pending comments": (
            "blog.tasks.recheck_pending_comments",
            10,
            "minutes",
            None,
        ),
        "blog: purge old spam": ("blog.tasks.purge_spam", 1, "days", None),
    }
    PeriodicTask.objects.filter(name="blog: purge old spam").update(enabled=False)
    PeriodicTask.objects.create(
        name="host: nightly report",
        task="host.tasks.report",
        interval=IntervalSchedule.objects.create(every=2, period="days"),
    )
    before = schedule_rows()

    executor = MigrationExecutor(connection)
    executor.loader.check_consistent_history(connection)
    # Only migrations newer than the snapshot are left to run: none of the old ones
    # changed its name or was replaced.
    left = executor.migration_plan(executor.loader.graph.leaf_nodes())
    assert not [
        migration
        for migration, _ in left
        if migration.name.startswith(OLD_NUMBERS.get(migration.app_label, ()))
    ]
    call_command("migrate", verbosity=0)
    assert "2 created, 4 kept as they were" in setup_schedules()  # the renewal, the digest: new

    tasks, intervals = schedule_rows()
    assert [row for row in tasks if row["name"] not in (RENEWAL, DIGEST)] == before[0]
    # The renewal's hourly interval is the cleanup's; the digest's weekly one is new.
    assert intervals == [*before[1], {**intervals[-1], "every": 7, "period": "days"}]


def test_migrations_give_a_database_from_before_0005_its_5_second_tick(unmigrated):
    """A database at 0004 (tick every minute) gets the 5-second tick from today's 0005,
    and setup_schedules then finds every entry there."""
    from django_celery_beat.models import PeriodicTask

    with override_settings(MIGRATION_MODULES=BEFORE_21):
        migrate(
            beat_leaf(),
            ("djangofeeds", "0004_enclosures_categories"),
            ("blog", "0003_beat_schedules"),
        )
    assert entries()[TICK] == ("djangofeeds.tasks.refresh_feeds", 1, "minutes", None)

    applied = migrate(("djangofeeds", "0006_feed_body_hash"))

    assert [migration.name for migration, _ in applied] == [
        "0005_scheduler_claims",
        "0006_feed_body_hash",
    ]
    assert entries()[TICK] == ("djangofeeds.tasks.refresh_feeds", 5, "seconds", 4)
    assert "2 created, 4 kept as they were" in setup_schedules()  # the renewal, the digest: new
    assert PeriodicTask.objects.count() == 6


def test_migrations_of_a_new_database_run_without_beat_and_write_no_entry(unmigrated):
    """Today's migrations of both apps need nothing of beat: they run with beat's tables
    absent, and write no beat entry once beat is migrated too (setup_schedules does)."""
    from django_celery_beat.models import PeriodicTask

    migrate(("djangofeeds", "0006_feed_body_hash"), ("blog", "0003_beat_schedules"))
    assert "django_celery_beat_periodictask" not in connection.introspection.table_names()

    migrate(beat_leaf())

    assert PeriodicTask.objects.count() == 0
