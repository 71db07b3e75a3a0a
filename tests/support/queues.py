"""The suite's Redis queue keys: on RabbitMQ each run has its own queues (tests/settings.py)."""

from django.conf import settings

from localservers.workers import queue_name


def redis_list_key(name):
    """The Redis list that holds queue ``name``'s messages on a test Redis broker (its keys
    carry the session's prefix: tests/settings.py, conftest.private_broker)."""
    return f"{settings.VAR_DIR.name}:{queue_name(name)}"
