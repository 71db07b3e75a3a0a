"""blog/schedules.py: the blog's periodic tasks as plain beat entries."""

from celery import current_app as celery_app
from celery.beat import ScheduleEntry

from blog import schedules
from blog.tasks import purge_spam, recheck_pending_comments


def test_beat_schedule_rechecks_every_10_minutes_and_purges_daily():
    """The sweeper runs every 10 minutes, the spam purge once a day."""
    expected = {
        "blog: re-check pending comments": {
            "task": recheck_pending_comments.name,
            "schedule": 600,
        },
        "blog: purge old spam": {"task": purge_spam.name, "schedule": 86400},
    }
    assert expected == schedules.BEAT_SCHEDULE
    assert set(schedules.DESCRIPTIONS) == set(schedules.BEAT_SCHEDULE)


def test_beat_schedule_entries_are_what_celery_beat_reads():
    """Each entry is accepted by Celery's own beat as it stands and names a registered task."""
    for name, entry in schedules.BEAT_SCHEDULE.items():
        beat_entry = ScheduleEntry(name=name, app=celery_app, **entry)
        assert beat_entry.schedule.run_every.total_seconds() == entry["schedule"]
        assert entry["task"] in celery_app.tasks
