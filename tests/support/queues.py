"""The suite's Redis queue keys: on RabbitMQ each run has its own queues (tests/settings.py)."""

from django.conf import settings

from localservers.workers import queue_name

# A test's cleanup may wait on a loaded broker longer than a request's 0.5 s
# (project.broker.REQUEST): under CI's load a purge once timed out there.
CLEANUP_TIMEOUT = 10


def redis_list_key(name):
    """The Redis list that holds queue ``name``'s messages on a test Redis broker (its keys
    carry the session's prefix: tests/settings.py, conftest.private_broker)."""
    return f"{settings.VAR_DIR.name}:{queue_name(name)}"


def purge_run_queues():
    """Drop the messages in this run's queues (their names are the run's own: tests/settings.py)."""
    from project.celery import app

    options = {
        **app.conf.broker_transport_options,
        "socket_timeout": CLEANUP_TIMEOUT,  # Redis
        "read_timeout": CLEANUP_TIMEOUT,  # RabbitMQ
    }
    with app.connection_for_write(transport_options=options) as connection:
        return app.control.purge(connection=connection)
