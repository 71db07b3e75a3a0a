"""Once: the blog's periodic tasks in django-celery-beat. Now empty (issue 21), see below."""

from django.db import migrations

# This migration used to depend on django-celery-beat and create the entries
# of recheck_pending_comments and purge_spam. The blog no longer needs beat (a
# host may run without it): its schedule is data, blog.schedules.BEAT_SCHEDULE,
# and ``manage.py setup_schedules`` creates the editable beat entries, with the
# same names. The data step is gone rather than made conditional, so a fresh
# database gets the same entries whatever order the apps' migrations run in.
# A database that applied this keeps its rows (nothing deletes them, and
# setup_schedules leaves an existing entry as it is).


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0002_comments"),
    ]

    operations = []
