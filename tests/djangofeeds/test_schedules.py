"""djangofeeds/schedules.py: the app's periodic tasks as plain beat entries."""

from datetime import timedelta

from celery import current_app as celery_app
from celery.beat import ScheduleEntry

from djangofeeds import schedules
from djangofeeds.push.subscriber import RENEW_AHEAD
from djangofeeds.tasks import cleanup, refresh_feeds, renew_subscriptions


def test_beat_schedule_ticks_every_5_seconds_and_cleans_up_hourly():
    """The tick runs every 5 s and expires after 4; the cleanup runs hourly and expires first."""
    tick = schedules.BEAT_SCHEDULE["djangofeeds: import due feeds"]
    assert tick == {"task": refresh_feeds.name, "schedule": 5, "options": {"expires": 4}}
    assert refresh_feeds.expires == tick["options"]["expires"] < tick["schedule"]
    hourly = schedules.BEAT_SCHEDULE["djangofeeds: prune old posts, import runs and task results"]
    assert hourly == {"task": cleanup.name, "schedule": 3600, "options": {"expires": 3000}}
    assert set(schedules.DESCRIPTIONS) == set(schedules.BEAT_SCHEDULE)


def test_beat_schedule_renews_websub_leases_well_before_they_end():
    """The lease renewal runs hourly, far inside the 12 hours ahead it renews."""
    renewal = schedules.BEAT_SCHEDULE["djangofeeds: renew WebSub subscriptions"]
    assert renewal["task"] == renew_subscriptions.name
    assert timedelta(seconds=renewal["schedule"]) * 2 < RENEW_AHEAD


def test_beat_schedule_entries_are_what_celery_beat_reads():
    """Each entry is accepted by Celery's own beat as it stands (no key of ours in it),
    names a registered task, and names no queue: routing is the host's."""
    for name, entry in schedules.BEAT_SCHEDULE.items():
        beat_entry = ScheduleEntry(name=name, app=celery_app, **entry)
        assert beat_entry.schedule.run_every.total_seconds() == entry["schedule"]
        assert entry["task"] in celery_app.tasks
        assert "queue" not in entry.get("options", {})
