"""Test settings: the project's own, with a private scratch folder per test session.

The folder (``DJANGO_VAR_DIR``) holds the filesystem broker and SQLite's test
database; worker subprocesses inherit it through the environment, so the tests
and their workers share one broker and one database, and nothing of a
``make run`` in the same checkout (nor its ``.env.local``: ``DJANGO_ENV_FILE`` is empty).
"""

import os
import tempfile

# A worker subprocess inherits its session's folder. A pytest-xdist worker
# (PYTEST_XDIST_WORKER=gw0, ...) is a session of its own: it makes its own
# folder rather than share the one its controller made (broker, queue names).
os.environ.setdefault("PYTEST_XDIST_WORKER", "")
if not os.environ.get("DJANGO_VAR_DIR") or (
    os.environ.get("DJANGO_VAR_DIR_OWNER", "") != os.environ["PYTEST_XDIST_WORKER"]
):
    os.environ["DJANGO_VAR_DIR"] = tempfile.mkdtemp(prefix="project-tests-")
    os.environ["DJANGO_VAR_DIR_OWNER"] = os.environ["PYTEST_XDIST_WORKER"]
# The memcached this session was given (CI's), as opposed to a test's private one.
os.environ.setdefault("TESTS_SHARED_MEMCACHED", os.environ.get("MEMCACHED_LOCATION", ""))
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ.setdefault("DJANGOFEEDS_ALLOW_PRIVATE_HOSTS", "1")
# No .env.local: a make run in this checkout must not configure the tests.
os.environ.setdefault("DJANGO_ENV_FILE", "")

from kombu import Exchange, Queue

from project.settings import *  # noqa: F403
from project.settings import (
    CACHES,
    CELERY_BROKER_TRANSPORT_OPTIONS,
    CELERY_BROKER_URL,
    CELERY_TASK_DEFAULT_QUEUE,
    CELERY_TASK_QUEUES,
    CELERY_TASK_ROUTES,
    MEMCACHED_LOCATION,
    VAR_DIR,
)

# Workers keep their mail (Django's in-memory backend) unless a test gives them a
# mail server (EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT: localservers.smtp_server).
# Not through os.environ: the manage.py subprocesses of the tests read the real default.
if "EMAIL_BACKEND" not in os.environ:
    if "MAILERS" in globals():  # Django 6.1
        MAILERS = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
    else:
        EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # A shared Redis (CI's, a developer's) keeps this session's queues apart.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **CELERY_BROKER_TRANSPORT_OPTIONS,
        "global_keyprefix": f"{VAR_DIR.name}:",
    }

if MEMCACHED_LOCATION and os.environ["TESTS_SHARED_MEMCACHED"] == MEMCACHED_LOCATION:
    # A shared memcached (CI's, under pytest-xdist) keeps this session's locks,
    # rate-limit counters and markers apart, as the Redis prefix does above.
    # Not on a test's private memcached: its workers and the test use bare keys.
    # Its clear() deletes only what the process wrote: never flush_all on a shared server.
    CACHES = {
        **CACHES,
        "default": {
            **CACHES["default"],
            "BACKEND": "tests.support.shared_cache.ProcessScopedPyMemcacheCache",
            "KEY_PREFIX": VAR_DIR.name,
        },
    }

# This session's queues and exchanges get names of their own (the suffix), on
# every broker: RabbitMQ has no key prefix, so two runs on one vhost would
# otherwise take, or purge, each other's messages; broadcasts (ping, shutdown)
# and events stay in the run too. On every broker, so that a test that switches
# to another one (a private Redis) and its workers still agree on the names.
# Tests name queues by their plain names: localservers.workers.queue_name.
TEST_QUEUE_SUFFIX = f".{VAR_DIR.name}"
CELERY_TASK_QUEUES = [
    Queue(
        queue.name + TEST_QUEUE_SUFFIX,
        Exchange(queue.exchange.name + TEST_QUEUE_SUFFIX, type=queue.exchange.type),
        routing_key=queue.routing_key + TEST_QUEUE_SUFFIX,
    )
    for queue in CELERY_TASK_QUEUES
]
CELERY_TASK_DEFAULT_QUEUE = CELERY_TASK_DEFAULT_QUEUE + TEST_QUEUE_SUFFIX
CELERY_TASK_ROUTES = {
    pattern: {**route, "queue": route["queue"] + TEST_QUEUE_SUFFIX} if "queue" in route else route
    for pattern, route in CELERY_TASK_ROUTES.items()
}
CELERY_CONTROL_EXCHANGE = "celery" + TEST_QUEUE_SUFFIX
CELERY_EVENT_EXCHANGE = "celeryev" + TEST_QUEUE_SUFFIX

# Fast hashing: the suite creates users, and no password here needs protecting.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
