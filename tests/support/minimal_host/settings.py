"""The apps-alone settings (tests/settings_apps.py) for a process of its own: no Celery
settings at all (not even eager), no beat, no results, no memcached, no Akismet key. The
database and cache paths come from the test."""

import os

from tests.settings_apps import *  # noqa: F403

# startproject's settings name no Celery setting and no private-host fetching.
del CELERY_TASK_ALWAYS_EAGER, DJANGOFEEDS_ALLOW_PRIVATE_HOSTS  # noqa: F821

DATABASES = {
    "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["MINIMAL_HOST_DB"]}
}
# Shared between processes, so the lock check has nothing to warn about.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": os.environ["MINIMAL_HOST_CACHE"],
    }
}
