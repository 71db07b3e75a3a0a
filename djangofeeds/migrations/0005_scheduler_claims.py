"""Claims in the database (Feed.claimed_at), rounds on import runs, adaptive polling.

The beat entry now ticks every 5 seconds and each tick expires after 4: a
tick claims at most one batch, so it must come often, and a late copy is
dropped instead of piling up (djangofeeds.schedules holds that schedule now).
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

# Issue 21: this migration no longer depends on django-celery-beat (the app
# runs without it; its schedule is djangofeeds.schedules, written into beat by
# ``manage.py setup_schedules``). Its data step only updates the entry that
# 0002 created in a database migrated before the change (where beat's
# migrations always ran first); elsewhere, beat absent or no such entry, it is
# a no-op. Nothing here deletes a row.

TASK_NAME = "djangofeeds: import due feeds"


def beat_model(apps, name):
    """django-celery-beat's model, or None when beat is not installed or not migrated yet."""
    try:
        return apps.get_model("django_celery_beat", name)
    except LookupError:
        return None


def tick_every_5_seconds(apps, schema_editor):
    IntervalSchedule = beat_model(apps, "IntervalSchedule")
    PeriodicTask = beat_model(apps, "PeriodicTask")
    if PeriodicTask is None or not PeriodicTask.objects.filter(name=TASK_NAME).exists():
        return
    every, _ = IntervalSchedule.objects.get_or_create(every=5, period="seconds")
    PeriodicTask.objects.filter(name=TASK_NAME).update(
        interval=every,
        expire_seconds=4,
        description="Claims a batch of due feeds and queues one import each (see README, Feeds).",
    )


def tick_every_minute(apps, schema_editor):
    IntervalSchedule = beat_model(apps, "IntervalSchedule")
    PeriodicTask = beat_model(apps, "PeriodicTask")
    if PeriodicTask is None or not PeriodicTask.objects.filter(name=TASK_NAME).exists():
        return
    every, _ = IntervalSchedule.objects.get_or_create(every=1, period="minutes")
    PeriodicTask.objects.filter(name=TASK_NAME).update(interval=every, expire_seconds=None)


def due_now_not_null(apps, schema_editor):
    """Feeds never checked get a time: the claim scans next_check_at in index order."""
    Feed = apps.get_model("djangofeeds", "Feed")
    Feed.objects.filter(next_check_at__isnull=True).update(next_check_at=models.F("created_at"))


class Migration(migrations.Migration):

    dependencies = [
        ('djangofeeds', '0004_enclosures_categories'),
    ]

    operations = [
        migrations.AddField(
            model_name='feed',
            name='claimed_at',
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name='queued at'),
        ),
        migrations.AddField(
            model_name='feed',
            name='newest_entry_at',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='feed',
            name='poll_interval',
            field=models.PositiveIntegerField(blank=True, editable=False, null=True, verbose_name='observed interval (s)'),
        ),
        migrations.AddField(
            model_name='importrun',
            name='refresh_run',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='import_runs', to='djangofeeds.refreshrun', verbose_name='refresh round'),
        ),
        migrations.AlterField(
            model_name='feed',
            name='next_check_at',
            field=models.DateTimeField(blank=True, db_index=True, default=django.utils.timezone.now, null=True),
        ),
        migrations.AddIndex(
            model_name='feed',
            index=models.Index(condition=models.Q(('is_active', True)), fields=['next_check_at'], name='feed_claim_idx'),
        ),
        migrations.AddIndex(
            model_name='feed',
            index=models.Index(condition=models.Q(('claimed_at__isnull', False)), fields=['claimed_at'], name='feed_claimed_idx'),
        ),
        migrations.AddIndex(
            model_name='refreshrun',
            index=models.Index(condition=models.Q(('finished_at__isnull', True)), fields=['started_at'], name='refreshrun_open_idx'),
        ),
        migrations.RunPython(tick_every_5_seconds, tick_every_minute),
        migrations.RunPython(due_now_not_null, migrations.RunPython.noop),
    ]
