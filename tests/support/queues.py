"""The suite's queue names: on RabbitMQ each run has its own (tests/settings.py)."""

from django.conf import settings


def queue_name(name):
    """The real name of the queue the settings call ``name`` ("feeds", "spam", ...)."""
    return name + settings.TEST_QUEUE_SUFFIX
