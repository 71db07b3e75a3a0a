"""0004 before issue 21: today's operations, then the cleanup's beat entry (as it was)."""

from django.db import migrations

from tests.support.migrations_before_21 import BEAT, todays

TODAY = todays("djangofeeds", "0004_enclosures_categories")
CLEANUP_TASK = "djangofeeds.tasks.cleanup"
CLEANUP_NAME = "djangofeeds: prune old posts, import runs and task results"


def create_cleanup_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_hour, _ = IntervalSchedule.objects.get_or_create(every=1, period="hours")
    PeriodicTask.objects.get_or_create(
        name=CLEANUP_NAME,
        defaults={
            "task": CLEANUP_TASK,
            "interval": every_hour,
            "expire_seconds": 3000,
            "description": "Keeps DJANGOFEEDS_KEEP_POSTS posts per feed (...)",
        },
    )


def remove_cleanup_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=CLEANUP_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [*TODAY.dependencies, BEAT]
    operations = [
        *TODAY.operations,
        migrations.RunPython(create_cleanup_schedule, remove_cleanup_schedule),
    ]
