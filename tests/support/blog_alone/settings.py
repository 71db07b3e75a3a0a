"""A host with blog alone (tests/blog/test_stands_alone.py): the apps-alone settings
(tests/settings_apps.py) without djangofeeds, blog mounted at /blog/, and
django-celery-beat where it is installed (Django 5.2: not on 6.1). The database path
comes from the test."""

import os
from importlib.util import find_spec

from tests.settings_apps import *  # noqa: F403

INSTALLED_APPS = [app for app in INSTALLED_APPS if app != "djangofeeds"]  # noqa: F405
if find_spec("django_celery_beat") is not None:
    INSTALLED_APPS += ["django_celery_beat"]
ROOT_URLCONF = "tests.support.blog_alone.urls"
# startproject's settings name no djangofeeds setting.
del DJANGOFEEDS_ALLOW_PRIVATE_HOSTS  # noqa: F821

DATABASES = {
    "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["BLOG_ALONE_DB"]}
}
