"""The suite's queue names: on RabbitMQ each run has its own (tests/settings.py)."""

from django.conf import settings


def queue_name(name):
    """The real name of the queue the settings call ``name`` ("feeds", "spam", ...)."""
    return name + settings.TEST_QUEUE_SUFFIX


def redis_list_key(name):
    """The Redis list that holds queue ``name``'s messages on a test Redis broker (its keys
    carry the session's prefix: tests/settings.py, conftest.private_broker)."""
    return f"{settings.VAR_DIR.name}:{queue_name(name)}"
