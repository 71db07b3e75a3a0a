"""The apps' migrations as they were before issue 21: they depended on django-celery-beat
and wrote its periodic tasks. Used through MIGRATION_MODULES to build a database as this
project's were (tests/djangofeeds/test_migrations_beat.py); unchanged ones are today's.
"""

from importlib import import_module

BEAT = ("django_celery_beat", "0019_alter_periodictasks_options")


def todays(app, name):
    """Today's migration class of ``app`` called ``name``."""
    return import_module(f"{app}.migrations.{name}").Migration
