"""The Celery app, configured from Django settings (as in Celery's Django example)."""

import os

from celery import Celery

# Set the default Django settings module for the 'celery' program.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

app = Celery("project")

# Read every CELERY_* Django setting: CELERY_BROKER_URL becomes broker_url.
app.config_from_object("django.conf:settings", namespace="CELERY")

# Load tasks.py from every installed app, plus the cheat sheet's demo tasks,
# which live in project/ (not an app).
app.autodiscover_tasks()
app.conf.imports = ["project.tasks"]
