"""manage.py setup_schedules: the apps' beat entries in django-celery-beat, idempotently.

With django-celery-beat installed, as this repository's site has it (project_wiring:
left out under a host's settings without beat; tests/test_optional_dependencies.py
runs the command where beat is missing).
"""

import io
from datetime import timedelta

import pytest
from celery import current_app as celery_app
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.utils import timezone

pytestmark = [pytest.mark.django_db, pytest.mark.project_wiring]

TICK = "djangofeeds: import due feeds"
CLEANUP = "djangofeeds: prune old posts, import runs and task results"
RECHECK = "blog: re-check pending comments"
PURGE = "blog: purge old spam"
RENEW = "djangofeeds: renew WebSub subscriptions"
DIGEST = "djangofeeds: mail the weekly feed health digest"


def setup_schedules(*args, **options):
    out = io.StringIO()
    call_command("setup_schedules", *args, stdout=out, **options)
    return out.getvalue()


def entries():
    """Every beat entry, as ``{name: (task, every, period, expire_seconds, enabled)}``."""
    from django_celery_beat.models import PeriodicTask

    return {
        task.name: (
            task.task,
            task.interval.every,
            task.interval.period,
            task.expire_seconds,
            task.enabled,
        )
        for task in PeriodicTask.objects.select_related("interval")
    }


@pytest.mark.beat
def test_setup_schedules_creates_the_entries_of_both_apps():
    """Each app's BEAT_SCHEDULE becomes an entry: the 5-second tick expiring after 4 s,
    the hourly cleanup and lease renewal, the weekly health digest, the 10-minute sweeper
    and the daily purge; no queue of their own.
    The migrations wrote none of them."""
    from django_celery_beat.models import PeriodicTask

    assert not PeriodicTask.objects.exists()
    assert "6 created, 0 kept" in setup_schedules()

    assert entries() == {
        TICK: ("djangofeeds.tasks.refresh_feeds", 5, "seconds", 4, True),
        CLEANUP: ("djangofeeds.tasks.cleanup", 1, "hours", 3000, True),
        RENEW: ("djangofeeds.tasks.renew_subscriptions", 1, "hours", 3000, True),
        DIGEST: ("djangofeeds.tasks.send_health_digest", 7, "days", 86400, True),
        RECHECK: ("blog.tasks.recheck_pending_comments", 10, "minutes", None, True),
        PURGE: ("blog.tasks.purge_spam", 1, "days", None, True),
    }
    assert not PeriodicTask.objects.exclude(queue=None).exists()
    assert "every 5 seconds" in PeriodicTask.objects.get(name=TICK).description


@pytest.mark.beat
def test_setup_schedules_twice_creates_nothing_and_keeps_an_operators_edits():
    """A second run creates no entry and no interval, and leaves an operator's edits
    (a slower tick, a disabled purge) as they are."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    setup_schedules()
    tick = PeriodicTask.objects.get(name=TICK)
    tick.interval = IntervalSchedule.objects.create(every=30, period="seconds")
    tick.save()
    PeriodicTask.objects.filter(name=PURGE).update(enabled=False)
    before, intervals = entries(), IntervalSchedule.objects.count()

    assert "0 created, 6 kept as they were" in setup_schedules()

    assert entries() == before
    assert before[TICK][1:3] == (30, "seconds") and before[PURGE][4] is False
    assert IntervalSchedule.objects.count() == intervals


@pytest.mark.beat
def test_setup_schedules_reset_puts_the_defaults_back():
    """--reset puts an edited entry back to the app's schedule, without a duplicate."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    setup_schedules()
    PeriodicTask.objects.filter(name=TICK).update(
        interval=IntervalSchedule.objects.create(every=1, period="hours"), expire_seconds=None
    )

    assert "0 created, 0 kept as they were, 6 reset" in setup_schedules("--reset")

    assert entries()[TICK] == ("djangofeeds.tasks.refresh_feeds", 5, "seconds", 4, True)
    assert PeriodicTask.objects.count() == 6


@pytest.mark.beat
def test_setup_schedules_of_one_app_and_of_an_unknown_one():
    """App labels limit the command to those apps; a label without a schedule is an error."""
    setup_schedules("blog")
    assert set(entries()) == {RECHECK, PURGE}

    with pytest.raises(CommandError, match="No installed app with a beat schedule: auth"):
        setup_schedules("auth")


@pytest.mark.beat
def test_setup_schedules_entries_are_what_beat_schedules():
    """django-celery-beat's DatabaseScheduler (the project's CELERY_BEAT_SCHEDULER) reads
    the entries: the tick is due every 5 seconds, with its expiry."""
    from django_celery_beat.schedulers import DatabaseScheduler

    setup_schedules()
    scheduler = DatabaseScheduler(app=celery_app, lazy=True)

    schedule = scheduler.all_as_schedule()

    assert {TICK, CLEANUP, RECHECK, PURGE} <= set(schedule)
    assert schedule[TICK].schedule.run_every.total_seconds() == 5
    assert schedule[TICK].options["expires"] == 4


def test_setup_schedules_without_django_celery_beat_says_what_to_do():
    """Without django-celery-beat installed the command fails with the alternative."""
    apps = [app for app in settings.INSTALLED_APPS if app != "django_celery_beat"]
    with (
        override_settings(INSTALLED_APPS=apps),
        pytest.raises(CommandError, match="CELERY_BEAT_SCHEDULE"),
    ):
        setup_schedules()


def test_setup_schedules_is_one_command_in_both_apps():
    """Both apps' setup_schedules are the shared package's command, so either app alone
    has it (tests/blog/test_stands_alone.py runs it where djangofeeds cannot be imported)."""
    from blog.management.commands import setup_schedules as blogs
    from djangofeeds.management.commands import setup_schedules as feeds
    from djangofeeds_blog_shared import schedules

    assert blogs.Command is feeds.Command is schedules.Command


@pytest.mark.beat
def test_schedule_fields_of_seconds_timedelta_and_crontab():
    """Seconds and timedeltas become intervals in their largest whole unit, a crontab a
    crontab schedule; anything else is refused with a message."""
    from celery.schedules import crontab

    from djangofeeds_blog_shared.schedules import schedule_fields

    hourly = schedule_fields(3600)["interval"]
    assert (hourly.every, hourly.period) == (1, "hours")
    ninety = schedule_fields(timedelta(minutes=90))["interval"]
    assert (ninety.every, ninety.period) == (90, "minutes")
    assert schedule_fields(5)["interval"].period == "seconds"
    nightly = schedule_fields(crontab(minute=0, hour=4))
    assert nightly["interval"] is None
    nightly["crontab"].refresh_from_db()  # saved
    assert (nightly["crontab"].minute, nightly["crontab"].hour) == ("0", "4")
    with pytest.raises(CommandError, match="whole seconds above 0"):
        schedule_fields(0.5)


@pytest.mark.beat
def test_setup_schedules_reset_enables_a_disabled_entry_and_clears_a_fixed_expiry():
    """--reset also re-enables the entry and replaces an expiry date by the app's seconds."""
    from django_celery_beat.models import PeriodicTask

    setup_schedules()
    PeriodicTask.objects.filter(name=CLEANUP).update(
        enabled=False, expire_seconds=None, expires=timezone.now()
    )

    setup_schedules("--reset")

    cleanup = PeriodicTask.objects.get(name=CLEANUP)
    assert (cleanup.enabled, cleanup.expires, cleanup.expire_seconds) == (True, None, 3000)
