"""The blog's periodic tasks in django-celery-beat (editable in the admin afterwards)."""

from django.db import migrations
from django.utils import timezone

SCHEDULES = [
    # (name, task, every, period)
    ("blog: re-check pending comments", "blog.tasks.recheck_pending_comments", 10, "minutes"),
    ("blog: purge old spam", "blog.tasks.purge_spam", 1, "days"),
]


def add_schedules(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, task, every, period in SCHEDULES:
        interval, _ = IntervalSchedule.objects.get_or_create(every=every, period=period)
        # get_or_create: an operator's later edits to the schedule are kept.
        PeriodicTask.objects.get_or_create(name=name, defaults={"task": task, "interval": interval})
    # Tells beat (DatabaseScheduler) that the schedule changed.
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})


def remove_schedules(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name__in=[name for name, *_ in SCHEDULES]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0002_comments"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(add_schedules, remove_schedules)]
