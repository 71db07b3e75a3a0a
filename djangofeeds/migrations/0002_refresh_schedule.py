"""Once: the beat schedule for refresh_feeds. Now empty (issue 21), see below."""

from django.db import migrations

# This migration used to depend on django-celery-beat and create its entry for
# refresh_feeds. The app no longer needs beat (a host may run without it): its
# schedule is data, djangofeeds.schedules.BEAT_SCHEDULE, and
# ``manage.py setup_schedules`` creates the editable beat entries, with the
# same names. The data step is gone rather than made conditional, so a fresh
# database gets the same entries whatever order the apps' migrations run in.
# A database that applied this keeps its rows (nothing deletes them, and
# setup_schedules leaves an existing entry as it is).


class Migration(migrations.Migration):
    dependencies = [
        ("djangofeeds", "0001_initial"),
    ]

    operations = []
